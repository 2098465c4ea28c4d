benchmark "ab" {
  op = "http"
  matrix {
    build = ["a", "b"]
  }
  label       = "build ${upper(param.build)}"
  url         = param.build == "a" ? server.build_a.url : server.build_b.url
  requests    = var.requests
  concurrency = 10
  headers     = merge(local.common_headers, { "X-Build" = param.build })
  paths       = ["/", "/about"]
  rate        = 250.5
  duration    = "30s"
}

benchmark "static" {
  op         = "http"
  url        = "${server.static.url}/index.html"
  interleave = false
}

assert "b_slower" {
  description = "build B is about a third slower"
  value       = benchmark.ab["build=b"].ns_per_op / benchmark.ab["build=a"].ns_per_op
  min         = 1.2
  max         = 1.5
}

assert "throughput_kept" {
  value = min([for k, v in benchmark.ab : v.requests_per_sec]...) / baseline.static.requests_per_sec
  min   = 0.5
}
