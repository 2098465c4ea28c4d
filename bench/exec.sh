#!/usr/bin/env bash
# bench/exec.sh: specrun's exec op against `hyperfine -N` on /bin/true,
# alternating tools. Per round, specrun runs RUNS executions back to back in
# one timed run, as hyperfine does, and reports their mean (wall_ns) and
# standard deviation (wall_stddev_ns), hyperfine's two figures. (One
# execution per run would time the harness's per-run GC along with it.)
# Also reports the peak RSS specrun gives for /bin/true and for a child that
# touches 50 MB, against /usr/bin/time's.
#
# Targets (issue 6): specrun's mean within 10% of hyperfine's, with a lower
# or equal standard deviation.
#
# Usage: bench/exec.sh [RUNS] [ROUNDS]   (default 200 and 8: short rounds, so
# that the drift of a shared machine hits both tools alike)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
rounds=${2:-8}
out=bench/out/exec
mkdir -p "$out"

need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
need python3 python3
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null

go build -o "$out/specrun" ./cmd/specrun
go build -o "$out/spawnfloor" ./bench/spawnfloor
cat >"$out/true.hcl" <<HCL
suite "exec-bench" {
  repeat = 1
  warmup = "50ms"
}
benchmark "true" {
  op         = "exec"
  command    = ["/bin/true"]
  iterations = $runs
}
HCL

: >"$out/rounds.txt"
for r in $(seq "$rounds"); do
	hyper() {
		hyperfine -N --style none --warmup 50 --runs "$runs" --export-json "$out/h.json" /bin/true >/dev/null 2>&1
		python3 -c "
import json; r = json.load(open('$out/h.json'))['results'][0]
print('hyperfine', r['mean'] * 1e6, r['stddev'] * 1e6)" >>"$out/rounds.txt"
	}
	spec() {
		"$out/specrun" run --no-progress --force --out "$out/results" --format json "$out/true.hcl" >"$out/s.json" 2>/dev/null
		python3 -c "
import json; m = json.load(open('$out/s.json'))['benchmarks'][0]['runs'][0]['metrics']
print('specrun', m['wall_ns'] / 1e3, m['wall_stddev_ns'] / 1e3, m['max_rss_bytes'] / 1024)" >>"$out/rounds.txt"
	}
	floor() {
		echo "go-forkexec $("$out/spawnfloor" -runs "$runs" /bin/true)" >>"$out/rounds.txt"
	}
	if [ $((r % 2)) = 1 ]; then hyper; spec; floor; else floor; spec; hyper; fi
	tail -3 "$out/rounds.txt" | sed 's/^/  round: /'
done

python3 - "$out/rounds.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print()
print("| tool | mean us | stddev us |  (medians over rounds)")
print("|------|--------:|----------:|")
med = {}
for tool in ("hyperfine", "go-forkexec", "specrun"):
    sel = [list(map(float, r[1:3])) for r in rows if r[0] == tool]
    med[tool] = [statistics.median(c) for c in zip(*sel)]
    print(f"| {tool} | {med[tool][0]:.1f} | {med[tool][1]:.1f} |")
s, h = med["specrun"], med["hyperfine"]
g = med["go-forkexec"]
print(f"\nspecrun/hyperfine: mean {s[0]/h[0]:.3f} (target 0.90..1.10), stddev {s[1]/h[1]:.3f} (target <= 1)")
print(f"go-forkexec/hyperfine: mean {g[0]/h[0]:.3f}, stddev {g[1]/h[1]:.3f}  (Go's own fork/exec loop, no harness)")
PY

# Peak RSS of /bin/true and of a child touching 50 MB: specrun's exec op
# against GNU time's (ru_maxrss of a child of a small parent).
cat >"$out/alloc.go" <<'GO'
package main

func main() {
	b := make([]byte, 50<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
}
GO
go build -o "$out/alloc50" "$out/alloc.go"
for cmd in /bin/true "$out/alloc50"; do
	cat >"$out/rss.hcl" <<HCL
suite "rss" {
  repeat = 1
}
benchmark "rss" {
  op         = "exec"
  command    = ["$cmd"]
  iterations = 3
}
HCL
	"$out/specrun" run --no-progress --force --out "$out/results" --format json "$out/rss.hcl" >"$out/r.json" 2>/dev/null
	spec_kb=$(python3 -c "import json; print(int(json.load(open('$out/r.json'))['benchmarks'][0]['runs'][0]['metrics']['max_rss_bytes'] / 1024))")
	time_kb=$(/usr/bin/time -f "%M" "$cmd" 2>&1 >/dev/null | tail -1)
	echo "peak RSS of $(basename "$cmd"): specrun ${spec_kb} KB, /usr/bin/time ${time_kb} KB"
done
