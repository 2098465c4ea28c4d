benchmarks "x" { # ERROR: Unsupported block type
  op = "noop"
}

benchmark "y" {
  op = "noop"
}
