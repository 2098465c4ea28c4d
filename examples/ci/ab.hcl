# The recommended CI gate: the base and the head of a pull request, built in
# the same job, run as one matrix, interleaved (base, head, base, head, ...),
# so that both see the same machine at the same moment. The two builds'
# programs are variables, so that the same file serves any pair:
#
#   specrun run --strict --result out/ab.json \
#     --var base=./base/spin --var head=./head/spin ab.hcl

variable "base" {
  type        = string
  description = "the base build's program"
}

variable "head" {
  type        = string
  description = "the head build's program"
}

variable "args" {
  type        = list(string)
  default     = []
  description = "arguments given to both"
}

# repeat = "auto": ten runs of each build, then more (15, 23, 35, 50) only
# while the verdict is still open, the error rate spent over those looks.
# A clear pass or fail stops at ten, as a fixed repeat = 10 did; a ratio
# near the bound runs on instead of failing --strict as inconclusive.
suite "ab" {
  title  = "Base against head, interleaved"
  repeat = "auto"
  warmup = "0s"
}

benchmark "program" {
  op = "exec"
  matrix {
    build = ["base", "head"]
  }
  command    = concat([{ base = var.base, head = var.head }[param.build]], var.args)
  iterations = 3
}

# Changes under 5% are noise, never a failure: unchanged builds came out
# within [0.98, 1.05] of each other on a shared 2-core VM. A head
# significantly slower than that fails (an undecided one under --strict).
assert "head_not_slower" {
  description = "the head build is not slower than the base"
  value       = benchmark.program["build=head"].cpu_ns / benchmark.program["build=base"].cpu_ns
  max         = 1
  threshold   = "5%"
}
