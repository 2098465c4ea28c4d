# A benchmark whose matrix is wrong has no instances: the report block that
# names its parameter gets no second error about a parameter "it has none".
benchmark "loop" {
  op         = "noop"
  iterations = 1000
  matrix {
    build = ["A", "A"] # ERROR: Duplicate matrix value
  }
}

report {
  columns = "build"
  rows    = ["benchmark", "size"]
}
