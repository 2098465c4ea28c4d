benchmark "memcpy" {
  op    = "memcpy"
  size  = param.size
  label = "memcpy ${param.kind}"
  matrix {
    size = ["16B", "1MB"]
    kind = ["a", "b"]
  }
}

report {
  columns = "sise"            # ERROR: Unknown report columns
  rows    = ["kind", "mode"]  # ERROR: Unknown report row
  metric  = "requests_per_sec" # ERROR: Unknown metric
  per     = 0                 # ERROR: Invalid per
  unit    = "sec"             # ERROR: Invalid unit
  summary = ["ns_per_opp"]    # ERROR: Unknown metric
}

report { # ERROR: Duplicate report block
}
