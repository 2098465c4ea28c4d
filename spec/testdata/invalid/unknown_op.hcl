benchmark "copy" {
  op = "memcopy" # ERROR: Unknown op
}

benchmark "nothing" {
  op = "nope" # ERROR: Unknown op
}

assert "no_cascade" {
  # a reference to a block whose op is unknown is not reported again
  value = benchmark.copy.ns_per_op
  max   = 10
}
