benchmark "memcpy" {
  op = "memcpy"
  matrix {
    size = ["16B", "1MB"]
  }
  size = param.size
}

benchmark "null" {
  op = "noop"
}

assert "typo_block" {
  value = benchmark.memcpi["size=16B"].ns_per_op # ERROR: Unknown benchmark
  max   = 1
}

assert "typo_instance" {
  value = benchmark.memcpy["size=32B"].ns_per_op # ERROR: Unknown benchmark instance
  max   = 1
}

assert "typo_metric" {
  value = benchmark.null.ns_per_opp # ERROR: Unknown metric
  max   = 1
}

assert "typo_stat" {
  value = benchmark.null.ns_per_op_frist # ERROR: Unknown metric
  max   = 1
}

assert "stat_of_typo" {
  value = benchmark.null.ns_per_opp_first # ERROR: Unknown metric
  max   = 1
}

assert "no_instance" {
  value = benchmark.memcpy.ns_per_op # ERROR: Missing matrix instance
  max   = 1
}

assert "baseline_typo" {
  value = baseline.nul.ns_per_op # ERROR: Unknown benchmark
  max   = 1
}

assert "other_root" {
  value = param.size # ERROR: Unknown variable
  max   = 1
}
