benchmark "ÿþ" { # ERROR: Invalid UTF-8
  op = "noop"
}
