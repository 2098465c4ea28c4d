# The Go edition of "Performance Comparisons of Common Operations": every row
# of the classic table that has a Go analog, labelled like the classic rows.
#
# Iteration counts are the classic ones times var.scale, except for the 16MB
# allocation, where the classic count would take minutes (noted in place).
# The suite takes about a minute and a half on a 2-vCPU VM;
# `specrun run examples/common-operations.hcl --scale 0.1` takes seconds.
#
# The write-up's rows in its order, with its Time per (ns) (the Leopard
# table, a 32-bit build), and the instance and label that stand for each
# ("-" where there is none). The names are stable, so that assertions and
# scripts can compare with the write-up by name: bench/writeups reads this
# table, and a test checks that it names every instance of this spec, with
# its label, exactly once.
#
# | Write-up row                         |          ns | Instance                          | Label                                                       |
# |--------------------------------------|------------:|-----------------------------------|-------------------------------------------------------------|
# | IMP-cached message send              |         0.7 | func_value_call                   | Func value call (IMP-cached message send)                   |
# | C++ virtual method call              |         1.1 | interface_call                    | Interface method call (C++ virtual method call)             |
# | Integer division                     |         2.4 | integer_division                  | Integer division                                            |
# | Objective-C message send             |         4.9 | -                                 | -                                                           |
# | Float division with int conversion   |         9.0 | float_division_int                | Float division with int conversion                          |
# | Floating-point division              |         9.2 | float_division                    | Floating-point division                                     |
# | 16 byte memcpy                       |        28.9 | memcpy/size=16B                   | 16 byte memcpy                                              |
# | 16 byte malloc/free                  |        56.0 | alloc/size=16B                    | 16 byte allocation (GC)                                     |
# | NSInvocation message send            |        77.3 | reflect_call                      | reflect.Value.Call (NSInvocation message send)              |
# | NSObject alloc/init/release          |       290.5 | object_alloc                      | Object alloc/init, GC release (NSObject alloc/init/release) |
# | NSAutoreleasePool alloc/init/release |       357.7 | pool                              | sync.Pool get/put (NSAutoreleasePool alloc/init/release)    |
# | 16MB malloc/free                     |      4485.2 | alloc/size=16MB                   | 16MB allocation (GC)                                        |
# | NSButtonCell creation                |      6640.5 | -                                 | -                                                           |
# | Read 16-byte file                    |     21219.3 | read_file/size=16B                | Read 16-byte file                                           |
# | Zero-second delayed perform          |     42211.8 | delayed_perform                   | Zero-delay timer (zero-second delayed perform)              |
# | pthread create/join                  |     56633.2 | thread                            | OS thread create/join (pthread create/join)                 |
# | NSButtonCell draw                    |     69400.5 | -                                 | -                                                           |
# | 1MB memcpy                           |    123001.8 | memcpy/size=1MB                   | 1MB memcpy                                                  |
# | Write 16-byte file                   |    492040.5 | write_file/size=16B/atomic=false  | Write 16-byte file                                          |
# | Write 16-byte file (atomic)          |    867380.7 | write_file/size=16B/atomic=true   | Write 16-byte file (atomic)                                 |
# | NSTask process spawn                 |   6096478.5 | process_spawn                     | Process spawn (NSTask process spawn)                        |
# | Read 16MB file                       |  28619582.6 | read_file/size=16MB               | Read 16MB file                                              |
# | Write 16MB file (atomic)             | 356168718.8 | write_file/size=16MB/atomic=true  | Write 16MB file (atomic)                                    |
# | Write 16MB file                      | 361767086.5 | write_file/size=16MB/atomic=false | Write 16MB file                                             |
# | -                                    |           - | direct_call                       | Direct function call                                        |
# | -                                    |           - | goroutine                         | Goroutine spawn/join                                        |
#
# No analog: NSButtonCell creation and draw are GUI objects, and Go has none
# built in; an Objective-C message send is a dynamic dispatch, and Go's one
# dynamic dispatch, the interface call, already stands for the C++ virtual
# method call. Direct function call and goroutine spawn/join have no row of
# the write-up's: they are Go's baseline call and its lightweight thread.
#
# The malloc/free rows are Go allocations, garbage-collected, unless
# var.libc is true: then they are C's malloc and free (op c.malloc, at the
# classic counts), labelled as the write-up prints them. That needs a
# specrun built with the libc ops (docs/libc-ops.md):
#
#   CGO_ENABLED=1 go build -tags specrun_libc ./cmd/specrun
#   ./specrun run examples/common-operations.hcl --var libc=true

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

variable "libc" {
  type        = bool
  default     = false
  description = "time the malloc/free rows as C's malloc and free (c.malloc), in a specrun built with -tags specrun_libc"
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
  op = var.libc ? "c.malloc" : "alloc"
  matrix {
    size = ["16B", "16MB"]
  }
  size  = param.size
  label = "${param.size == "16B" ? "16 byte" : param.size} ${var.libc ? "malloc/free" : "allocation (GC)"}"
  # Classic: 1e5 for 16MB. A Go allocation is zeroed (and its pages faulted
  # in when fresh from the OS) and later collected: a 16MB one costs
  # milliseconds, not the microseconds of an untouched malloc, so 1e5 would
  # take minutes. C's malloc/free runs the classic count.
  iterations = { "16B" = 100000000, "16MB" = var.libc ? 100000 : 200 }[param.size] * var.scale
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
