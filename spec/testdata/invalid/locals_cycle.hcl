locals {
  a = local.b + 1 # ERROR: Cycle in local values
  b = local.a * 2 # ERROR: Cycle in local values
  c = local.c # ERROR: Cycle in local values
  d = local.e # ERROR: Unsupported attribute
}

benchmark "x" {
  op         = "noop"
  iterations = local.a
}
