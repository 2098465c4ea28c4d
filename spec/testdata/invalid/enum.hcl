benchmark "write" {
  op   = "file.write"
  size = "4KiB"
  mode = "snyc" # ERROR: Value not allowed
}
