benchmark "shared" {
  op = "noop"
}
