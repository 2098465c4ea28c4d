# "Timers and timing": the cost of a null function, getpid(), time() and
# gettimeofday(), 10,000,000 calls each, three runs, totals in seconds as in
# the original thread; plus clock_gettime(2) and Go's time.Now.
#
# On a virtual machine where a system call costs a microsecond or more,
# getpid and clock_gettime take 10-20 s per run: use --scale 0.1 for a quick look.

suite "timers" {
  title  = "Timers and timing"
  repeat = 3
}

variable "scale" {
  type    = number
  default = 1
}

locals {
  calls = 10000000 * var.scale
}

benchmark "null_function" {
  op         = "call.direct"
  label      = "null function"
  iterations = local.calls
}

benchmark "getpid" {
  op         = "syscall.getpid"
  label      = "getpid()"
  iterations = local.calls
}

benchmark "time" {
  op         = "clock.time"
  label      = "time()"
  iterations = local.calls
}

benchmark "gettimeofday" {
  op         = "clock.gettimeofday"
  label      = "gettimeofday()"
  iterations = local.calls
}

benchmark "clock_gettime" {
  op         = "clock.gettime"
  clock      = "monotonic"
  label      = "clock_gettime(CLOCK_MONOTONIC) system call"
  iterations = local.calls
}

benchmark "time_now" {
  op         = "time.now"
  label      = "time.Now() (vDSO)"
  iterations = local.calls
}

assert "null_function_cheapest" {
  description = "a null function call costs less than getpid()"
  value       = benchmark.null_function.ns_per_op / benchmark.getpid.ns_per_op
  max         = 1
}
