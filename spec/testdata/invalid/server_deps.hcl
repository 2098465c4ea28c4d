server "cache" {
  command = ["memcached", "-p", "11211"]
  ready   = "tcp://127.0.0.1:11211"
}

server "app" {
  command    = ["./app", "--memcached", server.cache.address]
  ready      = "http://127.0.0.1:8080/"
  depends_on = [server.cahce] # ERROR: Unknown server
}

server "self" {
  command    = ["./app"]
  ready      = "tcp://127.0.0.1:9000"
  depends_on = [server.self] # ERROR: Server depends on itself
}

server "a" {
  command    = ["./a"]
  ready      = "tcp://127.0.0.1:9001"
  depends_on = [server.b]
}

server "b" {
  command    = ["./b"]
  ready      = "tcp://127.0.0.1:9002"
  depends_on = [server.c]
}

server "c" {
  command    = ["./c"]
  ready      = "tcp://127.0.0.1:9003"
  depends_on = [server.a, server.cache] # ERROR: Server dependency cycle
}

server "notlist" {
  command    = ["./d"]
  ready      = "tcp://127.0.0.1:9004"
  depends_on = "cache" # ERROR: Invalid depends_on
}

server "notref" {
  command    = ["./d"]
  ready      = "tcp://127.0.0.1:9005"
  depends_on = [var.x] # ERROR: Invalid depends_on
}

server "tcppath" {
  command = ["./d"]
  ready   = "tcp://127.0.0.1:9006/health" # ERROR: Invalid URL
}

server "tcpnoport" {
  command = ["./d"]
  ready   = "tcp://127.0.0.1" # ERROR: Invalid URL
}

server "tcpurl" {
  command = ["./d"]
  url     = "tcp://127.0.0.1:9007" # ERROR: Invalid URL
}

server "emptyversion" {
  command = ["./d"]
  ready   = "tcp://127.0.0.1:9008"
  version = [] # ERROR: Empty server command
}

benchmark "a" {
  op = "noop"
}
