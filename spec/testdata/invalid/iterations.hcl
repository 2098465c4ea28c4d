benchmark "zero" {
  op         = "noop"
  iterations = 0 # ERROR: Invalid iterations
}

benchmark "fraction" {
  op         = "noop"
  iterations = 1.5 # ERROR: Invalid iterations
}

benchmark "word" {
  op         = "noop"
  iterations = "many" # ERROR: Invalid iterations
}

benchmark "ok" {
  op         = "noop"
  iterations = 1e8
}

benchmark "repeat" {
  op     = "noop"
  repeat = 0 # ERROR: Invalid count
}
