suite "auto" {
  repeat     = "auto"
  max_repeat = 5 # ERROR: Invalid count
}

benchmark "word" {
  op     = "noop"
  repeat = "often" # ERROR: Invalid repeat
}

benchmark "zero_precision" {
  op        = "noop"
  precision = 0 # ERROR: Invalid precision
}

benchmark "percent" {
  op        = "noop"
  precision = 2 # ERROR: Invalid precision
}

benchmark "no_time" {
  op       = "noop"
  max_time = "0s" # ERROR: Invalid duration
}

benchmark "ok" {
  op         = "noop"
  max_repeat = 100
  max_time   = "1m"
  precision  = 0.05
}
