#!/usr/bin/env bash
# bench/launches.sh: how the spread of a benchmark's time per op divides
# between specrun processes (launches) and between runs of one process, on
# this machine, for ns-scale ops (memcpy 16B, call.direct, alloc 16B), a
# file op (file.write 4KB) and an exec (/bin/true).
#
# One `specrun run --launches L --repeat L*R`: every benchmark does R runs
# in each of L fresh specrun processes, interleaved with the others as a
# suite runs them. The table is the result's launch split: the standard
# deviations of ln(ns/op) between launches and within one (close to
# relative spreads), the share of the variance between launches (ICC), the
# permutation p-value of F, and the range of the launches' medians. The
# machine's load average and specrun's own measure of the other processes'
# CPU are printed: a shared machine moves both spreads.
#
# Each round also runs the suite in one process with as many runs, and
# prints both wall times: what the launches cost.
#
# Usage: bench/launches.sh [LAUNCHES] [RUNS_PER_LAUNCH] [ROUNDS]   (default 5 4 2)
set -euo pipefail
cd "$(dirname "$0")/.."
launches=${1:-5}
per=${2:-4}
rounds=${3:-2}
out=bench/out/launches
mkdir -p "$out"
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
command -v bc >/dev/null || { apt-get update -qq && apt-get install -y -qq bc >/dev/null; }
go build -o "$out/specrun" ./cmd/specrun

cat >"$out/launches.hcl" <<'HCL'
suite "launches" {
  min_time = "200ms"
  warmup   = "100ms"
}
benchmark "memcpy" {
  op   = "memcpy"
  size = "16B"
}
benchmark "call" {
  op = "call.direct"
}
benchmark "alloc" {
  op   = "alloc"
  size = "16B"
}
benchmark "file_write" {
  op   = "file.write"
  size = "4KB"
}
benchmark "exec" {
  op         = "exec"
  command    = ["/bin/true"]
  iterations = 20
  interleave = false
}
HCL

table() {
	echo "| op | launches x runs | median ns/op | between launches | within a launch | ICC | p | launch medians |"
	echo "|---|---|---|---|---|---|---|---|"
	jq -r '.benchmarks[] | select(.launches) |
		def pct: ((. | exp) - 1) * 100 | . * 10 | round / 10 | tostring + "%";
		def sig: if . >= 100 then round | tostring elif . >= 10 then . * 10 | round / 10 | tostring else . * 100 | round / 100 | tostring end;
		"| \(.name) | \(.launches.count) x \(.launches.runs[0]) | \(.ns_per_op.median | sig) | \(.launches.between | pct) | \(.launches.within | pct) | \(.launches.icc * 100 | round / 100) | \(.launches.p) | \(.launches.medians | min | sig) .. \(.launches.medians | max | sig) |"' "$1"
}

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -srm), $(nproc) CPUs"
# Each round runs the suite spread over the launches, then in one process
# with as many runs, so that the cost of the launches shows beside it.
for round in $(seq 1 "$rounds"); do
	for mode in "$launches" 1; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		"$out/specrun" run --no-progress --launches "$mode" --repeat $((launches * per)) \
			--result "$out/result-$round-$mode.json" --force "$out/launches.hcl" >/dev/null 2>"$out/stderr-$round-$mode.txt"
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		busy=$(grep -ho 'other processes kept [0-9.]* CPUs' "$out/stderr-$round-$mode.txt" | grep -o '[0-9.]* CPUs' || echo "? CPUs")
		printf 'round %d, launches %d: wall %.1fs; load average %s before; %s busy with other processes\n' "$round" "$mode" "$wall" "$load" "$busy"
	done
	echo
	table "$out/result-$round-$launches.json"
	echo
done
