benchmark "unit" {
  op   = "memcpy"
  size = "16QB" # ERROR: Invalid size
}

benchmark "negative" {
  op   = "memcpy"
  size = -1 # ERROR: Invalid size
}

benchmark "zero" {
  op   = "memcpy"
  size = "0B" # ERROR: Invalid size
}

benchmark "fraction" {
  op   = "memcpy"
  size = "5.9KB" # ERROR: Invalid size
}

benchmark "list" {
  op   = "memcpy"
  size = ["16B"] # ERROR: Invalid size
}
