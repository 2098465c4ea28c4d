# ERROR: No benchmarks
suite "lonely" {
  title = "A suite with nothing to run"
}
