server "build_a" {
  command      = ["./app-a", "--port", "18081"]
  ready        = "http://127.0.0.1:18081/health"
  ready_timeout = "5s"
  env          = { GOMAXPROCS = "2" }
  stop_signal  = "SIGINT"
  grace        = "2s"
}

server "build_b" {
  command = ["./app-b"]
  url     = "http://127.0.0.1:18082"
}

server "static" {
  builtin   = "static"
  body_size = "5KB"
  work      = "200us"
}
