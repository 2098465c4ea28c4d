server "both" {
  command = ["./app"]
  builtin = "static" # ERROR: Conflicting server kinds
}

server "neither" { # ERROR: Missing server command
  grace = "1s"
}

server "typo" {
  builtin = "statik" # ERROR: Value not allowed
}

server "nourl" { # ERROR: Missing server URL
  command = ["./app", "--port", "8080"]
}

server "badurl" {
  command = ["./app"]
  ready   = "localhost:8080/health" # ERROR: Invalid URL
}

server "signal" {
  builtin     = "static"
  stop_signal = "STOP" # ERROR: Unknown stop signal
}

server "mixed" {
  builtin = "static"
  ready   = "http://127.0.0.1:8080/" # ERROR: Unsupported server attribute
}

benchmark "a" {
  op = "noop"
}
