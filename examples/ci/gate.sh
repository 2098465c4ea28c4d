#!/bin/sh
# A CI regression gate with specrun, done either of two ways.
#
#   gate.sh ab BASE_PROGRAM HEAD_PROGRAM [ARG...]
#     The recommended gate: the base and the head builds of a pull request,
#     both built in this job, timed interleaved in one run (ab.hcl). Exit 1
#     when the head is slower beyond the noise threshold, or undecided.
#
#   gate.sh baseline PROGRAM [ARG...]
#     The fallback: this run against the result stored by the last run on
#     the main branch (baseline.hcl). Without a stored baseline every
#     verdict is skip and the gate passes; KEEP_BASELINE=1 (on the main
#     branch) stores a passing run as the next baseline, for CI to keep as
#     an artifact.
#
# Environment: SPECRUN (default: specrun on PATH), OUT (the results'
# directory, default gate-out), BASELINE (default baseline/gate.json),
# THRESHOLD (baseline gate's noise threshold, default 10%), SPECRUN_FLAGS
# (more flags for specrun run, such as "--repeat 20").
# The exit status is specrun's: 0 passed, 1 a regression, 2 a usage or spec
# error, 3 a benchmark could not run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
specrun=${SPECRUN:-specrun}
out=${OUT:-gate-out}
baseline=${BASELINE:-baseline/gate.json}

usage() {
	echo "usage: gate.sh ab BASE_PROGRAM HEAD_PROGRAM [ARG...] | gate.sh baseline PROGRAM [ARG...]" >&2
	exit 2
}

# hcl_list writes its arguments as an HCL list of strings: ["a", "b"].
hcl_list() {
	list=""
	for a in "$@"; do
		a=$(printf '%s' "$a" | sed 's/\\/\\\\/g; s/"/\\"/g; s/\$/$$/g')
		list="$list${list:+, }\"$a\""
	done
	printf '[%s]' "$list"
}

[ $# -ge 2 ] || usage
mode=$1
shift
mkdir -p "$out"

case $mode in
ab)
	[ $# -ge 2 ] || usage
	base=$1 head=$2
	shift 2
	# shellcheck disable=SC2086 # SPECRUN_FLAGS is a list of flags
	exec "$specrun" run --no-progress --strict --force --label ab --result "$out/ab.json" ${SPECRUN_FLAGS:-} \
		--var "base=$base" --var "head=$head" --var "args=$(hcl_list "$@")" "$here/ab.hcl"
	;;
baseline)
	program=$1
	shift
	set -- --var "program=$program" --var "args=$(hcl_list "$@")" --var "threshold=${THRESHOLD:-10%}"
	if [ -f "$baseline" ]; then
		set -- "$@" --baseline "$baseline"
	else
		echo "gate.sh: no baseline at $baseline: this run's verdicts are skip" >&2
	fi
	status=0
	# shellcheck disable=SC2086 # SPECRUN_FLAGS is a list of flags
	"$specrun" run --no-progress --strict --force --label gate --result "$out/gate.json" ${SPECRUN_FLAGS:-} "$@" "$here/baseline.hcl" || status=$?
	if [ "$status" -eq 0 ] && [ "${KEEP_BASELINE:-}" = 1 ]; then
		mkdir -p "$(dirname "$baseline")"
		cp "$out/gate.json" "$baseline"
		echo "gate.sh: kept $out/gate.json as the baseline $baseline" >&2
	fi
	exit "$status"
	;;
*)
	usage
	;;
esac
