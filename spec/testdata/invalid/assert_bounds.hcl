benchmark "a" {
  op = "noop"
}

assert "unbounded" { # ERROR: Missing bound
  value = benchmark.a.ns_per_op
}

assert "impossible" {
  value = benchmark.a.ns_per_op
  min   = 10
  max   = 1 # ERROR: Impossible bounds
}

assert "string_bound" {
  value = benchmark.a.ns_per_op
  min   = "ten" # ERROR: Incorrect value type
}

assert "novalue" { # ERROR: Missing required argument
  min = 1
}
