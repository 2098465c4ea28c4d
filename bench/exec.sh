#!/usr/bin/env bash
# bench/exec.sh: the exec op against `hyperfine -N` on the same commands and
# the same number of runs: /bin/true, `sleep 0.01`, `python3 -c pass` and a
# program that burns 50 ms of CPU.
#
# Per command and round, the two tools run back to back, alternating which
# goes first. hyperfine runs with its defaults (`-N --runs R`, no warm-up);
# specrun runs the exec op with `iterations = R`, `repeat = 1` and
# `warmup = "0s"`, the same R executions, peak memory included (it comes
# from the timed executions' cgroup, with no execution of its own). The
# script prints, as medians over the rounds:
#   - whole invocation: wall time of the tool's process, start to exit;
#   - per run: mean and standard deviation of one execution's wall time
#     (specrun's wall_ns and wall_stddev_ns, hyperfine's mean and stddev);
#   - specrun/hyperfine ratios (target: whole invocation at most 1.10).
# The machine may be shared: medians of interleaved rounds, not single
# figures, and a spread that says how noisy it was.
#
# Usage: bench/exec.sh [ROUNDS]   (default 6)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-6}
out=bench/out/exec
mkdir -p "$out"

need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
[ -x /usr/bin/python3 ] || { apt-get update -qq && apt-get install -y -qq python3 >/dev/null; }

go build -o "$out/specrun" ./cmd/specrun
cat >"$out/cpu50.go" <<'GO'
// cpu50 burns about 50 ms of CPU on a dependent multiply-add chain.
package main

import "os"

func main() {
	x := uint64(len(os.Args))
	for i := 0; i < 40_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	if x == 42 {
		println(x)
	}
}
GO
go build -o "$out/cpu50" "$out/cpu50.go"

/usr/bin/python3 - "$out" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys, time

out, rounds = sys.argv[1], int(sys.argv[2])
cases = [
    ("/bin/true", ["/bin/true"], 200),
    ("sleep 0.01", ["/bin/sleep", "0.01"], 50),
    ("python3 -c pass", ["/usr/bin/python3", "-c", "pass"], 30),
    ("cpu50", [os.path.abspath(out + "/cpu50")], 20),
]

def hcl_list(argv):
    return "[" + ", ".join(json.dumps(a) for a in argv) + "]"

def hyperfine(argv, runs):
    js = out + "/h.json"
    t0 = time.perf_counter()
    subprocess.run(["hyperfine", "-N", "--style", "none", "--runs", str(runs), "--export-json", js,
                    " ".join(argv)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r = json.load(open(js))["results"][0]
    return wall, r["mean"] * 1e6, r["stddev"] * 1e6

def specrun(argv, runs):
    spec = out + "/exec.hcl"
    with open(spec, "w") as f:
        f.write(f'''suite "exec-bench" {{
  repeat = 1
  warmup = "0s"
}}
benchmark "cmd" {{
  op         = "exec"
  command    = {hcl_list(argv)}
  iterations = {runs}
}}
''')
    t0 = time.perf_counter()
    p = subprocess.run([out + "/specrun", "run", "--no-progress", "--force", "--out", out + "/results",
                        "--format", "json", spec], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    b = json.loads(p.stdout)["benchmarks"][0]
    m = b["runs"][0]["metrics"]
    return wall, m["wall_ns"] / 1e3, m["wall_stddev_ns"] / 1e3, m.get("max_rss_bytes")

rows = {name: {"h": [], "s": []} for name, _, _ in cases}
rss = {}
for r in range(rounds):
    for name, argv, runs in cases:
        order = [("h", hyperfine), ("s", specrun)] if r % 2 == 0 else [("s", specrun), ("h", hyperfine)]
        for tool, f in order:
            res = f(argv, runs)
            rows[name][tool].append(res[:3])
            if tool == "s":
                rss[name] = res[3]
    print(f"round {r + 1}/{rounds} done", file=sys.stderr)

def med(xs):
    return statistics.median(xs)

print()
print(f"exec vs hyperfine -N, medians of {rounds} interleaved rounds (shared 2-core machine: noisy)")
print()
print("| command | runs | tool | whole invocation s | mean us | stddev us |")
print("|---|--:|---|--:|--:|--:|")
for name, _, runs in cases:
    for tool, label in (("h", "hyperfine"), ("s", "specrun")):
        cols = list(zip(*rows[name][tool]))
        print(f"| {name} | {runs} | {label} | {med(cols[0]):.3f} | {med(cols[1]):.1f} | {med(cols[2]):.1f} |")
print()
print("| command | whole invocation specrun/hyperfine: median [min..max] | mean ratio | stddev ratio | specrun max_rss_bytes |")
print("|---|--:|--:|--:|--:|")
for name, _, runs in cases:
    ratios = [s[0] / h[0] for s, h in zip(rows[name]["s"], rows[name]["h"])]
    mean_r = [s[1] / h[1] for s, h in zip(rows[name]["s"], rows[name]["h"])]
    sd_r = [s[2] / h[2] if h[2] else float("nan") for s, h in zip(rows[name]["s"], rows[name]["h"])]
    peak = rss.get(name)
    peak = f"{peak / 1024:.0f} KiB" if peak is not None else "not reported (no memory cgroup)"
    print(f"| {name} | {med(ratios):.3f} [{min(ratios):.2f}..{max(ratios):.2f}] | {med(mean_r):.3f} | {med(sd_r):.2f} | {peak} |")
PY
