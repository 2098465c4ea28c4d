suite "two-builds" {
  title       = "A and B under ab"
  description = "The same app, two builds, 1000 requests at concurrency 10."
  repeat      = 3
}

variable "requests" {
  type    = number
  default = 1000
}

locals {
  common_headers = { "Accept" = "text/html" }
}
