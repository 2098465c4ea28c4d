#!/bin/sh
# 32bit.sh: build specrun for amd64 and for 386, run the classic spec with
# each, and compare (docs/32-bit.md). About a minute and a half at the
# default scale of 0.1 on a 2-vCPU VM; the kernel needs IA32 emulation.
#
#   bench/32bit.sh [SCALE]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
scale=${1:-0.1}
out=$(mktemp -d)
cd "$repo"
go build -o "$out/specrun-amd64" ./cmd/specrun
GOARCH=386 go build -o "$out/specrun-386" ./cmd/specrun
if ! "$out/specrun-386" version >/dev/null 2>&1; then
	echo "32bit.sh: this kernel cannot run the 386 build (no IA32 emulation)" >&2
	exit 2
fi
"$out/specrun-amd64" run --label amd64 --out "$out" --no-progress --scale "$scale" examples/common-operations.hcl >/dev/null
"$out/specrun-386" run --label 386 --out "$out" --no-progress --scale "$scale" examples/common-operations.hcl >/dev/null
"$out/specrun-amd64" compare "$out"/common-operations-amd64-*.json "$out"/common-operations-386-*.json
echo "32bit.sh: results in $out" >&2
