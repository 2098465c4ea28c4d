# The Go edition of "Performance Comparisons of Common Operations": every row
# of the classic table that has a Go analog, labelled like the classic rows.
#
# Iteration counts are the classic ones times var.scale, except for the 16MB
# allocation, where the classic count would take minutes (noted in place).
# The suite takes about a minute and a half on a 2-vCPU VM;
# `specrun run examples/common-operations.hcl --scale 0.1` takes seconds.
#
# Left out, having no Go analog:
#   NSButtonCell creation, NSButtonCell draw: GUI objects; Go has none built in.
#   Objective-C message send: Go's one dynamic dispatch is the interface call,
#     which already stands for the C++ virtual method call below.

suite "common-operations" {
  title       = "Performance Comparisons of Common Operations, Go edition"
  description = "The classic table's rows, each timed as the nearest Go operation."
  repeat      = 3
  time_unit   = "ns" # the classic table's Time per (ns), one decimal
}

variable "scale" {
  type        = number
  default     = 1
  description = "multiplies every iteration count"
}

benchmark "direct_call" {
  op         = "call.direct"
  label      = "Direct function call"
  iterations = 1000000000 * var.scale
}

benchmark "func_value_call" {
  op         = "call.func_value"
  label      = "Func value call (IMP-cached message send)"
  iterations = 1000000000 * var.scale
}

benchmark "interface_call" {
  op         = "call.interface"
  label      = "Interface method call (C++ virtual method call)"
  iterations = 1000000000 * var.scale
}

benchmark "integer_division" {
  op         = "int.div"
  label      = "Integer division"
  iterations = 1000000000 * var.scale
}

benchmark "float_division_int" {
  op         = "float.div_int"
  label      = "Float division with int conversion"
  iterations = 100000000 * var.scale
}

benchmark "float_division" {
  op         = "float.div"
  label      = "Floating-point division"
  iterations = 100000000 * var.scale
}

benchmark "memcpy" {
  op = "memcpy"
  matrix {
    size = ["16B", "1MB"]
  }
  size       = param.size
  label      = { "16B" = "16 byte memcpy", "1MB" = "1MB memcpy" }[param.size]
  iterations = { "16B" = 100000000, "1MB" = 10000 }[param.size] * var.scale
}

benchmark "alloc" {
  op = "alloc"
  matrix {
    size = ["16B", "16MB"]
  }
  size  = param.size
  label = "${param.size == "16B" ? "16 byte" : param.size} allocation (GC)"
  # Classic: 1e5 for 16MB. A Go allocation is zeroed (and its pages faulted
  # in when fresh from the OS) and later collected: a 16MB one costs
  # milliseconds, not the microseconds of an untouched malloc, so 1e5 would
  # take minutes.
  iterations = { "16B" = 100000000, "16MB" = 200 }[param.size] * var.scale
}

benchmark "reflect_call" {
  op         = "call.reflect"
  label      = "reflect.Value.Call (NSInvocation message send)"
  iterations = 10000000 * var.scale
}

benchmark "object_alloc" {
  op         = "alloc.object"
  label      = "Object alloc/init, GC release (NSObject alloc/init/release)"
  iterations = 10000000 * var.scale
}

benchmark "pool" {
  op         = "pool"
  label      = "sync.Pool get/put (NSAutoreleasePool alloc/init/release)"
  iterations = 10000000 * var.scale
}

benchmark "read_file" {
  op = "file.read"
  matrix {
    size = ["16B", "16MB"]
  }
  size       = param.size
  label      = "Read ${param.size == "16B" ? "16-byte" : param.size} file"
  iterations = { "16B" = 100000, "16MB" = 100 }[param.size] * var.scale
}

benchmark "delayed_perform" {
  op         = "timer.zero"
  label      = "Zero-delay timer (zero-second delayed perform)"
  iterations = 100000 * var.scale
}

benchmark "thread" {
  op         = "thread"
  label      = "OS thread create/join (pthread create/join)"
  iterations = 10000 * var.scale
}

benchmark "goroutine" {
  op    = "goroutine"
  label = "Goroutine spawn/join"
  # No classic row: Go's lightweight counterpart of the thread row above,
  # at a count that fills about half a second.
  iterations = 1000000 * var.scale
}

benchmark "write_file" {
  op = "file.write"
  matrix {
    size   = ["16B", "16MB"]
    atomic = [false, true]
  }
  size       = param.size
  atomic     = param.atomic
  label      = "Write ${param.size == "16B" ? "16-byte" : param.size} file${param.atomic ? " (atomic)" : ""}"
  iterations = { "16B" = 10000, "16MB" = 30 }[param.size] * var.scale
}

benchmark "process_spawn" {
  op         = "process.spawn"
  label      = "Process spawn (NSTask process spawn)"
  iterations = 1000 * var.scale
}

assert "reflect_call_over_10x_direct" {
  description = "a reflective call is over ten times slower than a direct call (NSInvocation vs message send)"
  value       = benchmark.reflect_call.ns_per_op / benchmark.direct_call.ns_per_op
  min         = 10
}

assert "thread_over_10x_goroutine" {
  description = "creating and joining an OS thread costs over ten goroutine spawns"
  value       = benchmark.thread.ns_per_op / benchmark.goroutine.ns_per_op
  min         = 10
}

assert "process_over_thread" {
  description = "spawning a process costs more than creating a thread"
  value       = benchmark.process_spawn.ns_per_op / benchmark.thread.ns_per_op
  min         = 1
}
