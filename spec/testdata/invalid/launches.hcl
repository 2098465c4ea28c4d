suite "launched" {
  launches = 3
  repeat   = 6
}

benchmark "few" {
  op     = "noop"
  repeat = 2 # ERROR: Too few runs for the launches
}

benchmark "auto" {
  op       = "noop"
  repeat   = "auto"
  launches = 4 # ERROR: Launches with repeat = "auto"
}

benchmark "zero" {
  op       = "noop"
  launches = 0 # ERROR: Invalid parameter value
}

benchmark "ok" {
  op       = "noop"
  launches = 6
}
