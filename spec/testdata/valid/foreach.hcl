suite "foreach" {
  threshold = "2%"
}

benchmark "null" {
  op = "noop"
}

benchmark "copy" {
  op   = "memcpy"
  size = "1KB"
}

benchmark "memcpy" {
  op = "memcpy"
  matrix {
    size = ["16B", "1MB", "16MB"]
  }
  size = param.size
}

# one verdict per instance of the matrix block, in the matrix's order
assert "memcpy_no_regression" {
  for_each = benchmark.memcpy
  value    = each.value.ns_per_op / baseline.memcpy[each.key].ns_per_op
  max      = 1.05
}

# a filtered map: the keys are known before anything runs
assert "large_copies" {
  for_each  = { for k, v in benchmark.memcpy : k => v if k != "size=16B" }
  value     = each.value.bytes_per_sec / benchmark.copy.bytes_per_sec
  min       = 1
  threshold = 0.1
}

# the plain blocks, by name
assert "plain_no_regression" {
  for_each = { for k, b in benchmark : k => b if k != "memcpy" }
  value    = each.value.ns_per_op / baseline[each.key].ns_per_op
  max      = 1.1
}

# a set of strings: each.key and each.value are the string
assert "named" {
  for_each = ["copy", "null"]
  value    = benchmark[each.value].ns_per_op
  max      = 1e9
}

# stats of a metric over each instance's runs
assert "memcpy_steady" {
  for_each = benchmark.memcpy
  value    = each.value.ns_per_op_cv + 0 * each.value.ns_per_op_first / benchmark.null.ns_per_op_last
  max      = 0.1
}
