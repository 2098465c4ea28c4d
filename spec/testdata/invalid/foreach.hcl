benchmark "a" {
  op = "noop"
}

benchmark "m" {
  op = "memcpy"
  matrix {
    size = ["16B", "1KB"]
  }
  size = param.size
}

assert "no_for_each" {
  value = each.value.ns_per_op # ERROR: Reference to "each" in context without for_each
  max   = 1
}

assert "number" {
  for_each = 3 # ERROR: Invalid for_each argument
  value    = 1
  max      = 1
}

assert "by_figure" {
  for_each = { for k, v in benchmark.m : k => v if v.ns_per_op > 10 } # ERROR: Invalid for_each argument
  value    = each.value.ns_per_op
  max      = 1
}

assert "bad_each" {
  for_each = benchmark.m
  value    = each.nope # ERROR: Invalid reference to each
  max      = 1
}

assert "matrix_as_instance" {
  for_each = benchmark
  value    = each.value.ns_per_op # ERROR: Unsupported attribute
  max      = 1
}

assert "string_value" {
  for_each = benchmark.m
  value    = "${each.key} fast" # ERROR: Incorrect value type
  max      = 1
}

assert "loud" {
  value     = benchmark.a.ns_per_op
  max       = 1
  threshold = 2 # ERROR: Invalid threshold
}

assert "duplicate_keys" {
  for_each = ["a", "a"] # ERROR: Invalid for_each argument
  value    = benchmark[each.key].ns_per_op
  max      = 1
}
