#!/usr/bin/env bash
# bench/gate.sh: the CI gate of examples/ci on this machine, both ways.
#
# Stored baseline (examples/ci/baseline.hcl: memcpy 16B and 4KB, a direct
# call, a 64KB file write and an exec of the CPU-bound examples/ci/spin):
# one baseline run, then RERUNS unchanged reruns against it, then reruns
# with the program made 10% and 50% slower (spin -slower). Every unchanged
# rerun should pass under --strict, every slowed one fail naming program.
#
# Interleaved (examples/ci/ab.hcl): base and head builds of spin in one
# run; RERUNS runs with head = base, then head built 10% and 50% slower
# (-ldflags -X main.slowerByDefault=N).
#
# Prints one line per gate: the exit status, the verdicts that did not
# pass, and the gate's wall time. Runs nice'd; about 3 minutes at the
# defaults on a quiet 2-core machine.
#
# Usage: bench/gate.sh [RERUNS]   (default 5; THRESHOLD=10% for the baseline gate)
set -euo pipefail
cd "$(dirname "$0")/.."
reruns=${1:-5}
out=bench/out/gate
rm -rf "$out"
mkdir -p "$out"

go build -o "$out/specrun" ./cmd/specrun
go build -o "$out/spin" ./examples/ci/spin
go build -ldflags "-X main.slowerByDefault=10" -o "$out/spin-10" ./examples/ci/spin
go build -ldflags "-X main.slowerByDefault=50" -o "$out/spin-50" ./examples/ci/spin
bin=$(cd "$out" && pwd)
export SPECRUN="$bin/specrun"

# gate NAME EXPECT CMD...: runs one gate, prints its row. EXPECT is pass,
# or fail=ASSERT: exit 1 with a failed verdict whose name starts ASSERT.
gate() {
	local name=$1 expect=$2
	shift 2
	local start end status=0
	start=$(date +%s.%N)
	OUT="$out/$name" nice "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" || status=$?
	end=$(date +%s.%N)
	local failed
	failed=$(grep -oE '^- \*\*(fail|inconclusive|error)\*\* [^:]+' "$out/$name.stdout" | sed 's/^- \*\*//; s/\*\* / /; s/ *$//' | paste -sd, - || true)
	local ok=yes
	if [ "$expect" = pass ] && [ "$status" -ne 0 ]; then ok=NO; fi
	if [ "${expect%%=*}" = fail ] && { [ "$status" -ne 1 ] || ! grep -q "fail ${expect#fail=}" <<<"$failed"; }; then ok=NO; fi
	printf '%-22s %-22s exit %d  %-3s %6.1fs  %s\n' "$name" "$expect" "$status" "$ok" "$(echo "$end - $start" | bc)" "${failed:--}"
}

echo "# stored baseline (examples/ci/baseline.hcl, threshold ${THRESHOLD:-10%}, --strict)"
printf '%-22s %-22s %-7s %-3s %7s  %s\n' gate want status ok wall "verdicts that did not pass"
gate baseline-first pass env BASELINE="$out/baseline.json" KEEP_BASELINE=1 examples/ci/gate.sh baseline "$bin/spin"
for i in $(seq "$reruns"); do
	gate "baseline-same-$i" pass env BASELINE="$out/baseline.json" examples/ci/gate.sh baseline "$bin/spin"
done
gate baseline-slower-10 fail=program env BASELINE="$out/baseline.json" examples/ci/gate.sh baseline "$bin/spin" -slower 10
gate baseline-slower-50 fail=program env BASELINE="$out/baseline.json" examples/ci/gate.sh baseline "$bin/spin" -slower 50

echo
echo "# base and head interleaved in one run (examples/ci/ab.hcl, threshold 5%, --strict)"
printf '%-22s %-22s %-7s %-3s %7s  %s\n' gate want status ok wall "verdicts that did not pass"
for i in $(seq "$reruns"); do
	gate "ab-same-$i" pass examples/ci/gate.sh ab "$bin/spin" "$bin/spin"
done
gate ab-slower-10 fail=head_not_slower examples/ci/gate.sh ab "$bin/spin" "$bin/spin-10"
gate ab-slower-50 fail=head_not_slower examples/ci/gate.sh ab "$bin/spin" "$bin/spin-50"

echo
echo "# ratios to the baseline, and head to base (value [95% interval])"
for f in "$out"/baseline-*/gate.json "$out"/ab-*/ab.json; do
	python3 - "$f" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f'{sys.argv[1].split("/")[-2]:20}', "  ".join(
    f'{a["name"]} {a["value"]:.3f} [{a["interval"]["low"]:.2f}, {a["interval"]["high"]:.2f}]'
    for a in r["assertions"] if a.get("value") is not None and a.get("interval")))
PY
done
