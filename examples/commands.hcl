# Whole commands timed the way hyperfine times them: one iteration is one run
# of the command from fork to exit, output discarded. The three variants run
# interleaved (true, sh, env, true, sh, env, ...) so that drift on the
# machine hits each alike; each run reports wall time, user+sys CPU (cpu_ns)
# and the command's own peak RSS (max_rss_bytes).

suite "commands" {
  title       = "The cost of starting a process"
  description = "/bin/true, sh -c : and env true, 100 runs each per repeat, interleaved."
  repeat      = 6
}

benchmark "start" {
  op = "exec"
  matrix {
    cmd = ["true", "sh", "env"]
  }
  label = { true = "/bin/true", sh = "sh -c :", env = "env true" }[param.cmd]
  command = {
    true = ["/bin/true"]
    sh   = ["/bin/sh", "-c", ":"]
    env  = ["env", "true"]
  }[param.cmd]
  iterations = 100
}

assert "env_execs_twice" {
  description = "env true starts two programs, so it costs more than /bin/true alone"
  value       = benchmark.start["cmd=env"].ns_per_op / benchmark.start["cmd=true"].ns_per_op
  min         = 1.1
}
