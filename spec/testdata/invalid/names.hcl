benchmark "my bench" { # ERROR: Invalid benchmark name
  op = "noop"
}

benchmark "plain" {
  op   = "memcpy"
  size = param.size # ERROR: Unknown variable
}

benchmark "vars" {
  op         = "noop"
  iterations = var.nope # ERROR: Unsupported attribute
}
