benchmark "memcpy" {
  op    = "memcpy"
  size  = param.size
  matrix {
    size = ["16B", "1MB"]
  }
}

report {
  columns = "size"
  rows    = ["size"]          # ERROR: Rows and columns overlap
  metric  = "bytes_per_sec"
  unit    = "s"               # ERROR: Unit of a metric that is not a time
}
