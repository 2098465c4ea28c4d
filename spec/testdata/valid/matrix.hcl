suite "matrix" {
  title    = "Matrix expansion"
  repeat   = 5
  warmup   = "50ms"
  min_time = "1s"
}

variable "scale" {
  type    = number
  default = 2
}

locals {
  big   = local.small * 1024
  small = 16
}

benchmark "null" {
  op         = "noop"
  iterations = 1e8 * var.scale
}

benchmark "memcpy" {
  op = "memcpy"
  matrix {
    size = ["16B", "1MB", "16MB"]
  }
  label      = "${param.size} memcpy"
  size       = param.size
  iterations = { "16B" = 1e8, "1MB" = 1e4, "16MB" = 100 }[param.size]
}

benchmark "file_write" {
  op = "file.write"
  matrix {
    size   = [local.big, "16MB"]
    atomic = [false, true]
  }
  size     = param.size
  atomic   = param.atomic
  mode     = upper("sync") == "SYNC" ? "nosync" : "sync"
  repeat   = 1
  timeout  = "1m"
}

assert "memcpy_scales" {
  description = "a 16MB copy costs over 1000 times a 16B one"
  value       = benchmark.memcpy["size=16MB"].ns_per_op / benchmark.memcpy["size=16B"].ns_per_op
  min         = 1000
}

assert "not_slower_than_baseline" {
  value = benchmark.null.ns_per_op / baseline.null.ns_per_op
  max   = 1.1 * var.scale
}
