# The ab write-up rebuilt with real software: a Plurk-like page (30
# memcached gets and unpicklings, a 5,899-byte page, app.py) under waitress
# on CPython as build A and on PyPy as build B, loaded as `ab -n 1000 -c 10`
# loads it (keepalive = false: plain ab opens a connection per request; ab -k
# would keep them). memcached is a server of its own that both builds depend
# on: it starts first, is ready once it accepts a TCP connection, and stops
# last. run.sh installs what this needs (Debian: memcached, pypy3,
# python3-waitress, python3-pymemcache) and runs it; app.py falls back to the
# standard library where waitress or pymemcache is missing.
#
# The write-up's conclusion was that build B "is slower (33% slower), uses
# much more memory (33% more), uses much more CPU (50% more)". The asserts
# state that conclusion as bounds that pass when it holds for these two
# builds, and fail when it does not.

suite "interpreters" {
  title       = "waitress on CPython (A) and PyPy (B) under ab's load"
  description = "1000 requests at concurrency 10, a new connection per request, three load phases per build, interleaved."
  repeat      = 3
}

variable "requests" {
  type    = number
  default = 1000
}

variable "cpython" {
  type    = string
  default = "/usr/bin/python3"
}

variable "pypy" {
  type    = string
  default = "/usr/bin/pypy3"
}

variable "memcached" {
  type    = string
  default = "/usr/bin/memcached"
}

server "cache" {
  # -u only matters as root, where memcached refuses to run without it.
  command = [var.memcached, "-u", "nobody", "-l", "127.0.0.1", "-p", "11311", "-U", "0", "-t", "2"]
  ready   = "tcp://127.0.0.1:11311"
  version = [var.memcached, "-V"]
}

server "cpython" {
  command    = [var.cpython, "${path.spec}/app.py", "--port", "8091", "--memcached", server.cache.address]
  ready      = "http://127.0.0.1:8091/"
  depends_on = [server.cache]
  version    = [var.cpython, "${path.spec}/app.py", "--version"]
}

server "pypy" {
  command    = [var.pypy, "${path.spec}/app.py", "--port", "8092", "--memcached", server.cache.address]
  ready      = "http://127.0.0.1:8092/"
  depends_on = [server.cache]
  version    = [var.pypy, "${path.spec}/app.py", "--version"]
}

benchmark "page" {
  op = "http"
  matrix {
    build = ["A", "B"]
  }
  label       = "GET / (build ${param.build}: ${{ A = "CPython", B = "PyPy" }[param.build]})"
  url         = { A = server.cpython.url, B = server.pypy.url }[param.build]
  requests    = var.requests
  concurrency = 10
  keepalive   = false
}

# Build A and B side by side, and the write-up's sentence under the table:
# "B vs A: requests/s -34% [...] (slower), server CPU per request +52% [...]
# (more CPU), server peak RSS +33% [...] (more memory)."
report {
  columns = "build"
  metric  = "requests_per_sec"
  summary = ["requests_per_sec", "server_cpu_ns_per_request", "server_max_rss_bytes"]
}

assert "b_slower" {
  description = "B is slower: its requests/s is below A's"
  value       = benchmark.page["build=B"].requests_per_sec / benchmark.page["build=A"].requests_per_sec
  max         = 1
}

assert "b_more_memory" {
  description = "B uses more memory: its peak RSS is above A's"
  value       = benchmark.page["build=B"].server_max_rss_bytes / benchmark.page["build=A"].server_max_rss_bytes
  min         = 1
}

assert "b_more_cpu" {
  description = "B uses more CPU: its server CPU per request is above A's"
  value       = benchmark.page["build=B"].server_cpu_ns_per_request / benchmark.page["build=A"].server_cpu_ns_per_request
  min         = 1
}

# What a JIT does over time, which the medians above hide (specrun report
# --phases shows every phase, the warm-up's few requests first): PyPy's
# first load phase runs while its JIT is still compiling the page, so it
# costs more CPU per request than its cheapest, and its memory grows phase
# by phase as it compiles more. The write-up's PyPy did 229 requests/s in
# its first phase against about 400 later; on this machine, loaded, the
# first phase was 13% to 22% under the best in requests/s (a figure the
# other load on the machine moves as much, so it is shown, not asserted)
# and cost 40% more CPU. The first assert reads single phases, so the point
# value decides; on a loaded machine one disturbed phase can turn it.
assert "b_first_phase_costly" {
  description = "B's first phase costs at least 20% more server CPU per request than its cheapest"
  value       = benchmark.page["build=B"].server_cpu_ns_per_request_first / benchmark.page["build=B"].server_cpu_ns_per_request_min
  min         = 1.2
}

assert "b_memory_grows" {
  description = "B's memory grows phase by phase: its peak RSS has a rising trend"
  value       = benchmark.page["build=B"].server_max_rss_bytes_trend
  min         = 0
}
