#!/usr/bin/env bash
# bench/http.sh: specrun's http load generator against wrk (and ab, for
# context), alternating tools against one `specrun serve` process serving a
# 5.9 KB static page on loopback. For each concurrency it reports requests/s,
# the load generator's own CPU per request (user+sys over requests) and
# latency p50/p99, medians over ROUNDS, and specrun's ratios to wrk.
#
# Targets (issue 6): requests/s >= 0.9x wrk's, CPU/request <= 1.5x wrk's,
# p50 and p99 within 25% of wrk's.
#
# Usage: bench/http.sh [SECONDS_PER_PHASE] [ROUNDS]   (default 5 and 3)
# Bounded: loopback only, 2 concurrencies x ROUNDS x 3 tools x SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-3}
out=bench/out/http
mkdir -p "$out"

need() { command -v "$1" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }; }
need wrk wrk
need ab apache2-utils
need python3 python3
[ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null

go build -o "$out/specrun" ./cmd/specrun
"$out/specrun" serve --addr 127.0.0.1:0 --body-size 6041 >"$out/serve.url" 2>"$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$out/serve.url" ] && break; sleep 0.1; done
url="$(head -1 "$out/serve.url")/"
echo "server: $url (pid $server, 6041-byte page)"

# One line per phase: tool concurrency requests_per_sec cpu_us_per_request p50_ms p99_ms
: >"$out/phases.txt"

wrk_phase() { # concurrency
	/usr/bin/time -f "%U %S" -o "$out/wrk.time" wrk -t2 -c"$1" -d"${secs}s" --latency "$url" >"$out/wrk.txt"
	python3 - "$1" "$out/wrk.txt" "$out/wrk.time" >>"$out/phases.txt" <<'PY'
import re, sys
c, text, cpu = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
unit = {"us": 1e-3, "ms": 1.0, "s": 1e3}
def lat(q):
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % q, text, re.M)
    return float(m.group(1)) * unit[m.group(2)]
reqs = int(re.search(r"(\d+) requests in", text).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
print("wrk", c, rps, (float(cpu[0]) + float(cpu[1])) * 1e6 / reqs, lat(50), lat(99))
PY
}

ab_phase() { # concurrency
	n=$(python3 -c "print(int($2 * $secs))")
	/usr/bin/time -f "%U %S" -o "$out/ab.time" ab -q -k -c"$1" -n"$n" "$url" >"$out/ab.txt"
	python3 - "$1" "$out/ab.txt" "$out/ab.time" >>"$out/phases.txt" <<'PY'
import re, sys
c, text, cpu = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
reqs = int(re.search(r"Complete requests:\s+(\d+)", text).group(1))
rps = float(re.search(r"Requests per second:\s+([\d.]+)", text).group(1))
p = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s+(\d+)%\s+(\d+)", text, re.M)}
print("ab", c, rps, (float(cpu[0]) + float(cpu[1])) * 1e6 / reqs, p["50"], p["99"])
PY
}

specrun_phase() { # concurrency
	cat >"$out/load.hcl" <<HCL
suite "http-bench" {
  repeat = 1
  warmup = "0s"
}
benchmark "load" {
  op          = "http"
  url         = "$url"
  duration    = "${secs}s"
  concurrency = $1
}
HCL
	"$out/specrun" run --no-progress --force --out "$out/results" --format json "$out/load.hcl" >"$out/specrun.json" 2>/dev/null
	python3 - "$1" "$out/specrun.json" >>"$out/phases.txt" <<'PY'
import json, sys
c, r = sys.argv[1], json.load(open(sys.argv[2]))
m = r["benchmarks"][0]["runs"][0]["metrics"]
print("specrun", c, m["requests_per_sec"], m["client_cpu_ns_per_request"] / 1e3,
      m["latency_p50_ns"] / 1e6, m["latency_p99_ns"] / 1e6)
PY
}

for c in 10 50; do
	for r in $(seq "$rounds"); do
		# Alternate the order so that drift does not favour one tool.
		if [ $((r % 2)) = 1 ]; then wrk_phase $c; specrun_phase $c; else specrun_phase $c; wrk_phase $c; fi
		rps=$(awk -v c=$c '$1=="wrk" && $2==c {v=$3} END {print v}' "$out/phases.txt")
		ab_phase $c "$rps"
		tail -3 "$out/phases.txt" | sed 's/^/  phase: /'
	done
done

python3 - "$out/phases.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for tool in ("wrk", "specrun", "ab"):
    for c in ("10", "50"):
        sel = [list(map(float, r[2:])) for r in rows if r[0] == tool and r[1] == c]
        if sel:
            med[tool, c] = [statistics.median(col) for col in zip(*sel)]
print()
print("| tool | concurrency | requests/s | client CPU us/request | p50 ms | p99 ms |")
print("|------|------------:|-----------:|----------------------:|-------:|-------:|")
for (tool, c), (rps, cpu, p50, p99) in sorted(med.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"| {tool} | {c} | {rps:.0f} | {cpu:.1f} | {p50:.3f} | {p99:.3f} |")
print()
print("| concurrency | specrun/wrk requests/s (>= 0.9) | CPU/request (<= 1.5) | p50 (0.75..1.25) | p99 (0.75..1.25) |")
print("|------------:|------:|------:|------:|------:|")
for c in ("10", "50"):
    s, w = med["specrun", c], med["wrk", c]
    print(f"| {c} | {s[0]/w[0]:.2f} | {s[1]/w[1]:.2f} | {s[2]/w[2]:.2f} | {s[3]/w[3]:.2f} |")
PY
