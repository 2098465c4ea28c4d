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
  repeat = 0 # ERROR: Invalid parameter value
}

benchmark "near_2_63" {
  op         = "noop"
  iterations = 9223372036854775806 # ERROR: Invalid iterations
}

benchmark "max_iterations" {
  op         = "noop"
  iterations = 9007199254740992
}

benchmark "repeat_int32" {
  op     = "noop"
  repeat = 2147483647 # ERROR: Invalid parameter value
}

benchmark "huge_literal" {
  op         = "noop"
  iterations = 1e9000 # ERROR: Invalid iterations
}

benchmark "huge_repeat" {
  op     = "noop"
  repeat = 1e9000 # ERROR: Invalid parameter value
}

benchmark "huger_literal" {
  op         = "noop"
  iterations = 1e10000000 # ERROR: Value too large
}

benchmark "tiny_rate" {
  op   = "http"
  url  = "http://127.0.0.1:1/"
  rate = 1e-300 # ERROR: Invalid parameter value
}

benchmark "huge_requests" {
  op       = "http"
  url      = "http://127.0.0.1:1/"
  requests = 1e18 # ERROR: Invalid parameter value
}

benchmark "huge_matrix_value" {
  op = "noop"
  matrix {
    n = [1e300, 2e300, -1e-300]
  }
  label = param.n
}
