benchmark "copy" {
  op    = "memcpy"
  sizee = "16B" # ERROR: Unsupported argument
}

benchmark "write" {
  op      = "file.write"
  size    = "1MB"
  atomics = true # ERROR: Unsupported argument
}
