benchmark "huge" { # ERROR: Too many benchmark instances
  op = "noop"
  matrix {
    a = range(100)
    b = range(100)
    c = range(100)
  }
}

benchmark "fill" {
  op = "noop"
  matrix {
    a = range(100)
    b = range(100)
  }
}

benchmark "one_more" { # ERROR: Too many benchmark instances
  op = "noop"
}
