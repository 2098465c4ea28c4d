#!/usr/bin/env bash
# bench/autocost.sh: what repeat = "auto" costs against repeat = 3 on
# examples/common-operations.hcl at --scale 0.1, the quick rerun its
# comment names. Rounds alternate the two (3, auto, 3, auto, ...), so that
# the load of a shared machine falls on both alike. Per run it prints the
# wall time, the timed runs the result holds in all, the most runs of one
# benchmark, and specrun's measure of the other processes' CPU.
#
# Usage: bench/autocost.sh [ROUNDS]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
out=bench/out/autocost
mkdir -p "$out"
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }
go build -o "$out/specrun" ./cmd/specrun
sed 's/^  repeat      = 3$/  repeat      = "auto"/' examples/common-operations.hcl >"$out/auto.hcl"
grep -q 'repeat      = "auto"' "$out/auto.hcl" || { echo "autocost: the example's repeat line moved" >&2; exit 1; }
cp examples/common-operations.hcl "$out/three.hcl"

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  host: $(uname -srm), $(nproc) CPUs"
echo "| round | repeat | wall s | runs in all | most runs of one | other processes' CPUs | load average before |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
	for mode in three auto; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		"$out/specrun" run --no-progress --scale 0.1 --result "$out/$mode-$round.json" --force "$out/$mode.hcl" \
			>/dev/null 2>"$out/$mode-$round.stderr" || true
		wall=$(echo "$(date +%s.%N) - $start" | bc)
		busy=$(grep -ho 'other processes kept [0-9.]* CPUs' "$out/$mode-$round.stderr" | grep -o '[0-9.]*' || echo "?")
		runs=$(jq '[.benchmarks[].runs | length] | add' "$out/$mode-$round.json")
		most=$(jq '[.benchmarks[].runs | length] | max' "$out/$mode-$round.json")
		name=3; [ "$mode" = auto ] && name='"auto"'
		printf '| %d | %s | %.1f | %s | %s | %s | %s |\n' "$round" "$name" "$wall" "$runs" "$most" "$busy" "$load"
	done
done
