benchmark "shared" { # ERROR: Duplicate benchmark
  op = "noop"
}

suite "one" {
}

suite "two" { # ERROR: Duplicate suite block
}
