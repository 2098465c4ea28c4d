#!/usr/bin/env bash
# bench/shard.sh: one generator at concurrency 30 against three shards at 10
# each (run --shard I/3, started together with --start-at, then merged),
# both loading the same `specrun serve` on loopback for the same duration.
# Prints requests/s, p50/p99 latency and client CPU per request of both.
#
# On one machine the three shards share its cores with each other and with
# the server, so this shows what sharding costs and that the merge adds up,
# not the gain of spreading generators over machines.
#
# Usage: bench/shard.sh [DURATION] [REPEAT]   (default 5s and 3)
# Bounded: loopback only; 2 x REPEAT phases of DURATION, plus warm-ups.
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-5s}
repeat=${2:-3}
tmp=$(mktemp -d)
trap 'kill "$serve_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/specrun" ./cmd/specrun
"$tmp/specrun" serve --addr 127.0.0.1:0 >"$tmp/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do grep -q http "$tmp/serve.out" && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' "$tmp/serve.out" | head -1)
cat >"$tmp/load.hcl" <<HCL
suite "shard-bench" {
  repeat = $repeat
}

benchmark "get" {
  op          = "http"
  url         = "$url/"
  duration    = "$dur"
  concurrency = 30
  threads     = 1
}
HCL
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/specrun" run --no-progress --label one --result "$tmp/one.json" "$tmp/load.hcl" >/dev/null
at=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%S.%NZ)
for i in 0 1 2; do
	"$tmp/specrun" run --no-progress --shard "$i/3" --start-at "$at" --label "shard$i" \
		--result "$tmp/shard$i.json" "$tmp/load.hcl" >/dev/null &
done
wait %2 %3 %4
"$tmp/specrun" merge --result "$tmp/merged.json" "$tmp"/shard[012].json >/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/one.json" "$tmp/merged.json" <<'PY'
import json, sys
print(f"{'generator':<22} {'requests/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'CPU ns/req':>11}")
for name, path in zip(["1 x concurrency 30", "3 shards x 10, merged"], sys.argv[1:]):
    m = json.load(open(path))["benchmarks"][0]["metrics"]
    med = lambda k: m[k]["median"]
    print(f"{name:<22} {med('requests_per_sec'):>12.0f} {med('latency_p50_ns')/1e6:>8.3f} "
          f"{med('latency_p99_ns')/1e6:>8.3f} {med('client_cpu_ns_per_request'):>11.0f}")
print(f"(medians of {len(json.load(open(sys.argv[1]))['benchmarks'][0]['runs'])} runs each)")
PY
