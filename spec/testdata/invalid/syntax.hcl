benchmark "x" {
  op = # ERROR: Invalid expression
}
