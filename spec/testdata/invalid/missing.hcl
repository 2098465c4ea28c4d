benchmark "write" {
  op = "file.write" # ERROR: Missing required parameter
}

benchmark "noop" { # ERROR: Missing required argument
  label = "no op at all"
}

variable "host" { # ERROR: Missing variable value
  type = string
}

variable "port" {
  type    = number
  default = "http" # ERROR: Incorrect value type
}
