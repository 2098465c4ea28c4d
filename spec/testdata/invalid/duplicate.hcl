variable "n" {
  default = 1
}

variable "n" { # ERROR: Duplicate variable
  default = 2
}

benchmark "a" {
  op = "noop"
}

benchmark "a" { # ERROR: Duplicate benchmark
  op = "noop"
}

assert "fast" {
  value = benchmark.a.ns_per_op
  max   = 10
}

assert "fast" { # ERROR: Duplicate assert
  value = benchmark.a.ns_per_op
  max   = 10
}

locals {
  x = 1
}

locals {
  x = 2 # ERROR: Duplicate local value
}
