#!/usr/bin/env bash
# bench/launchgate.sh: a stored-baseline gate of unchanged ns-scale ops
# (memcpy 16B, call.direct, alloc 16B), once with a baseline measured in
# one process and once with one spread over launches, whose spread between
# processes widens the verdicts. Each baseline is followed by RERUNS
# unchanged reruns in one process, judged against it under --strict; an
# unchanged rerun should pass. Per gate it prints the exit status, the
# wall time and the verdicts that did not pass, and at the end how many
# gates of each kind failed.
#
# Usage: bench/launchgate.sh [RERUNS] [LAUNCHES]   (default 3 5)
set -euo pipefail
cd "$(dirname "$0")/.."
reruns=${1:-3}
launches=${2:-5}
out=bench/out/launchgate
mkdir -p "$out"
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
go build -o "$out/specrun" ./cmd/specrun

cat >"$out/gate.hcl" <<'HCL'
suite "launchgate" {
  min_time = "200ms"
  warmup   = "100ms"
  repeat   = 10
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
assert "no_slower" {
  for_each = benchmark
  value    = each.value.ns_per_op / baseline[each.key].ns_per_op
  max      = 1.10
}
HCL

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -srm), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A failed
for kind in flat launched; do
	n=1; [ "$kind" = launched ] && n=$launches
	"$out/specrun" run --no-progress --launches "$n" --result "$out/base-$kind.json" --force "$out/gate.hcl" >/dev/null 2>&1 || true
	failed[$kind]=0
	for i in $(seq 1 "$reruns"); do
		start=$(date +%s.%N)
		code=0
		"$out/specrun" run --no-progress --launches 1 --strict --baseline "$out/base-$kind.json" \
			--result "$out/rerun-$kind-$i.json" --force "$out/gate.hcl" >/dev/null 2>&1 || code=$?
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		[ "$code" -ne 0 ] && failed[$kind]=$((failed[$kind] + 1))
		bad=$(jq -r '[.assertions[] | select(.verdict != "pass") | "\(.name) \(.verdict) \(.value * 1000 | round / 1000) [\(.interval.low * 1000 | round / 1000), \(.interval.high * 1000 | round / 1000)]"] | join("; ")' "$out/rerun-$kind-$i.json")
		printf 'baseline %-8s rerun %d: exit %d, wall %.1fs; %s\n' "$kind" "$i" "$code" "$wall" "${bad:-all pass}"
	done
done
echo
echo "unchanged gates failed: baseline in one process ${failed[flat]} of $reruns, over $launches launches ${failed[launched]} of $reruns"
