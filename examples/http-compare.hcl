# The classic ab comparison: 1000 requests at concurrency 10 against two
# builds of the same web app, reporting requests/s, time per request,
# transfer rate, failed requests, and the server's CPU and memory; its
# conclusion was "B is 33% slower ... and uses 50% more CPU".
#
# Plain `ab -n 1000 -c 10` opens a new connection per request, so the load
# here sets keepalive = false (the http op's default, true, is `ab -k`).
# The asserts state the write-up's conclusion, that B is slower and costs
# more CPU per request, as bounds that pass when it holds and fail when it
# does not.
#
# Two builtin servers stand in for build A and build B: the same 5.9 KB page,
# with B spending a third more CPU per request (`work`). Each is specrun's own
# `specrun serve` in a separate process on a free loopback port, so this runs
# on a fresh machine with nothing else installed. To compare real builds,
# replace them with command servers (path.spec is this file's directory,
# so the spec runs the same from any directory):
#
#   server "a" {
#     command = ["${path.spec}/app-a", "--port", "8081"]
#     ready   = "http://127.0.0.1:8081/health"
#   }

suite "http-compare" {
  title       = "Build A vs build B under ab's load"
  description = "1000 requests at concurrency 10, three load phases per build, interleaved."
  repeat      = 3
}

variable "requests" {
  type    = number
  default = 1000
}

server "a" {
  builtin   = "static"
  body_size = 6041 # 5.9 KB
  work      = "300us"
}

server "b" {
  builtin   = "static"
  body_size = 6041
  work      = "400us"
}

benchmark "page" {
  op = "http"
  matrix {
    build = ["A", "B"]
  }
  label       = "GET / (build ${param.build})"
  url         = { A = server.a.url, B = server.b.url }[param.build]
  requests    = var.requests
  concurrency = 10
  keepalive   = false # ab without -k
}

assert "b_slower" {
  description = "B is slower: its requests/s is below A's"
  value       = benchmark.page["build=B"].requests_per_sec / benchmark.page["build=A"].requests_per_sec
  max         = 1
}

assert "b_more_cpu" {
  description = "B uses more CPU: its server CPU per request is above A's"
  value       = benchmark.page["build=B"].server_cpu_ns_per_request / benchmark.page["build=A"].server_cpu_ns_per_request
  min         = 1
}
