suite "durations" {
  warmup  = "fast" # ERROR: Invalid duration
  timeout = 5 # ERROR: Invalid duration
}

benchmark "load" {
  op       = "http"
  url      = "http://127.0.0.1:1/"
  duration = "-2s" # ERROR: Invalid duration
  min_time = "0s" # ERROR: Invalid duration
}
