benchmark "memcpy" {
  op = "memcpy"
  matrix {
    size = [] # ERROR: Empty matrix key
  }
  size = param.size
}

benchmark "nokeys" {
  op = "noop"
  matrix { # ERROR: Empty matrix
  }
}

benchmark "scalar" {
  op = "noop"
  matrix {
    size = "16B" # ERROR: Invalid matrix key
  }
}

benchmark "objects" {
  op = "noop"
  matrix {
    size = [{ a = 1 }] # ERROR: Invalid matrix value
  }
}

benchmark "twice" {
  op = "noop"
  matrix {
    size = ["16B", "16B"] # ERROR: Duplicate matrix value
  }
}
