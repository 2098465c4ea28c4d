suite "types" {
  repeat = "three" # ERROR: Invalid repeat
}

benchmark "write" {
  op     = "file.write"
  size   = "1MB"
  atomic = "yes" # ERROR: Invalid parameter value
  label  = ["not", "a", "string"] # ERROR: Invalid parameter value
}

benchmark "load" {
  op          = "http"
  url         = "http://127.0.0.1:1/"
  concurrency = 2.5 # ERROR: Invalid parameter value
  headers     = ["a", "b"] # ERROR: Invalid parameter value
}
