#!/usr/bin/env bash
# bench/http.sh: specrun's http load generator beside wrk and ab, against
# nginx (Debian's nginx-light, started here on loopback with a temporary
# config) and `specrun serve`, both serving the same 6041-byte page.
#
# For every server, keepalive on and off, and concurrency 1, 10, 50 and 200,
# each round runs one phase of every tool, in an order that rotates from
# round to round so that drift favours none. Per phase it records:
#   - requests/s, as the tool prints it;
#   - CPU per request: the generator's own user+sys time over its requests.
#     wrk and ab: the whole process (/usr/bin/time; start-up is ~1 ms).
#     specrun: client_cpu_ns_per_request, its rusage over the measured phase,
#     with threads = min(2, c) as wrk's -t.
#   - p50/p99 latency. specrun's and ab's are raw samples (ab's from its -e
#     CSV, at microsecond resolution). Stock wrk back-fills its histogram for
#     coordinated omission (stats_correct) before printing, so its p99 is
#     not a raw figure and is shown apart; its p50 is barely moved by it.
# Then a table of medians [min..max] over rounds and specrun's per-round
# ratios to wrk (median [min..max]).
#
# Rate mode: specrun's open model at 2,000 and 10,000 requests/s against
# nginx, reporting the rate reached, CPU per request and the latency from
# the intended send time. wrk2, the peer for rate mode, is not packaged by
# Debian and cannot be built here without fetching its source, so it is
# not run; say so wherever these figures are quoted.
#
# The machine may be shared: the figures are only as quiet as it is. The
# script prints the load average before and after.
#
# Usage: bench/http.sh [SECONDS_PER_PHASE] [ROUNDS]   (default 3 and 3)
# Environment: CONC="1 10 50 200", SERVERS="nginx serve", KEEPALIVE="on off",
#   SPECRUN_BASE=path/to/another/specrun (adds it as tool specrun-base, e.g.
#   a build of an older commit, to compare clients side by side; it is given
#   threads and max_failures only with SPECRUN_BASE_PARAMS=1, for builds
#   that know them).
# Bounded: loopback only; about 2 x 4 x 2 x 3 x ROUNDS phases of SECONDS,
# 7 minutes at the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}
rounds=${2:-3}
conc=${CONC:-1 10 50 200}
servers=${SERVERS:-nginx serve}
keepalive=${KEEPALIVE:-on off}
out=bench/out/http
rm -rf "$out"
mkdir -p "$out/nginx"

for tool in wrk ab nginx python3; do
	command -v "$tool" >/dev/null || {
		echo "bench/http.sh: $tool is missing: apt-get install -y wrk apache2-utils nginx-light python3" >&2
		exit 1
	}
done
[ -x /usr/bin/time ] || { echo "bench/http.sh: /usr/bin/time is missing: apt-get install -y time" >&2; exit 1; }

go build -o "$out/specrun" ./cmd/specrun
tools="wrk ab specrun"
[ -n "${SPECRUN_BASE:-}" ] && tools="$tools specrun-base"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

declare -A url
page="$out/nginx/index.html"
python3 -c 'import sys; open(sys.argv[1], "wb").write((b"specrun static page " * 400)[:6041])' "$page"
if [[ " $servers " == *" nginx "* ]]; then
	port=$(free_port)
	cat >"$out/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $PWD/$out/nginx/nginx.pid;
error_log $PWD/$out/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$port;
    root $PWD/$out/nginx;
    location / { }
  }
}
CONF
	nginx -c "$PWD/$out/nginx/nginx.conf" -p "$PWD/$out/nginx" -e "$PWD/$out/nginx/error.log" &
	pids+=($!)
	url[nginx]="http://127.0.0.1:$port/index.html"
fi
if [[ " $servers " == *" serve "* ]]; then
	"$out/specrun" serve --addr 127.0.0.1:0 --body-size 6041 >"$out/serve.url" 2>"$out/serve.log" &
	pids+=($!)
	for _ in $(seq 50); do [ -s "$out/serve.url" ] && break; sleep 0.1; done
	url[serve]="$(head -1 "$out/serve.url")/"
fi
for s in $servers; do
	for _ in $(seq 50); do python3 - "${url[$s]}" <<'PY' && break || sleep 0.1; done
import sys, urllib.request
assert len(urllib.request.urlopen(sys.argv[1], timeout=1).read()) == 6041
PY
	echo "server $s: ${url[$s]}"
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# One JSON line per phase.
phases="$out/phases.jsonl"
: >"$phases"

run_wrk() { # server keepalive concurrency round
	local hdr=() t=$(($3 < 2 ? $3 : 2))
	[ "$2" = off ] && hdr=(-H "Connection: close")
	/usr/bin/time -f "%U %S" -o "$out/wrk.time" wrk -t"$t" -c"$3" -d"${secs}s" --latency "${hdr[@]}" "${url[$1]}" >"$out/wrk.txt"
	python3 - "$@" "$out/wrk.txt" "$out/wrk.time" >>"$phases" <<'PY'
import json, os, re, sys
server, ka, c, rnd, text, cpu = sys.argv[1:5] + [open(sys.argv[5]).read(), open(sys.argv[6]).read().split()]
unit = {"us": 1e-3, "ms": 1.0, "s": 1e3}
def lat(q):
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % q, text, re.M)
    return float(m.group(1)) * unit[m.group(2)]
reqs = int(re.search(r"(\d+) requests in", text).group(1))
errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
print(json.dumps({"tool": "wrk", "server": server, "ka": ka, "c": int(c), "round": int(rnd),
    "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
    "cpu_us": (float(cpu[0]) + float(cpu[1])) * 1e6 / reqs, "p50": lat(50), "p99": lat(99),
    "raw": False, "errors": errors, "load": os.getloadavg()[0]}))
PY
}

run_ab() { # server keepalive concurrency round
	local k=()
	[ "$2" = on ] && k=(-k)
	/usr/bin/time -f "%U %S" -o "$out/ab.time" ab -q "${k[@]}" -c"$3" -t"$secs" -n 100000000 -e "$out/ab.csv" "${url[$1]}" >"$out/ab.txt" 2>&1
	python3 - "$@" "$out/ab.txt" "$out/ab.time" "$out/ab.csv" >>"$phases" <<'PY'
import csv, json, os, re, sys
server, ka, c, rnd = sys.argv[1:5]
text, cpu = open(sys.argv[5]).read(), open(sys.argv[6]).read().split()
pct = {int(r[0]): float(r[1]) for r in csv.reader(open(sys.argv[7])) if r and r[0].isdigit()}
reqs = int(re.search(r"Complete requests:\s+(\d+)", text).group(1))
failed = int(re.search(r"Failed requests:\s+(\d+)", text).group(1))
print(json.dumps({"tool": "ab", "server": server, "ka": ka, "c": int(c), "round": int(rnd),
    "rps": float(re.search(r"Requests per second:\s+([\d.]+)", text).group(1)),
    "cpu_us": (float(cpu[0]) + float(cpu[1])) * 1e6 / reqs, "p50": pct[50], "p99": pct[99],
    "raw": True, "errors": failed, "load": os.getloadavg()[0]}))
PY
}

spec() { # url keepalive concurrency rate max_failures threads
	cat <<HCL
suite "http-bench" {
  repeat = 1
  warmup = "0s"
}
benchmark "load" {
  op           = "http"
  url          = "$1"
  duration     = "${secs}s"
  concurrency  = $3
  keepalive    = $([ "$2" = on ] && echo true || echo false)
  ${4:+rate = $4}
  ${5:+max_failures = $5}
  ${6:+threads = $6}
}
HCL
}

run_specrun() { # tool server keepalive concurrency round [rate]
	# Failures are reported, not fatal (max_failures = 1).
	# threads is wrk's -t here: min(2, c). A build before either has none to set.
	local bin="$out/specrun" maxf=1 threads=$(($4 < 2 ? $4 : 2))
	[ "$1" = specrun-base ] && bin=$SPECRUN_BASE && [ -z "${SPECRUN_BASE_PARAMS:-}" ] && maxf= threads=
	spec "${url[$2]}" "$3" "$4" "${6:-}" "$maxf" "$threads" >"$out/load.hcl"
	"$bin" run --no-progress --force --out "$out/results" --format json "$out/load.hcl" >"$out/specrun.json" 2>"$out/specrun.err" || true
	python3 - "$@" "$out/specrun.json" >>"$phases" <<'PY'
import json, os, sys
tool, server, ka, c, rnd = sys.argv[1:6]
rate = sys.argv[6] if len(sys.argv) > 7 else ""
r = json.load(open(sys.argv[-1]))
m = r["benchmarks"][0]["runs"][0]["metrics"]
rec = {"tool": tool, "server": server, "ka": ka, "c": int(c), "round": int(rnd),
    "rps": m["requests_per_sec"], "cpu_us": m["client_cpu_ns_per_request"] / 1e3,
    "p50": m["latency_p50_ns"] / 1e6, "p99": m["latency_p99_ns"] / 1e6, "raw": not rate,
    "errors": m["failed"], "load": os.getloadavg()[0]}
if rate:
    rec["rate"] = float(rate)
    if "processing_median_ns" in m:
        rec["service_p50"] = m["processing_median_ns"] / 1e6
print(json.dumps(rec))
PY
}

phase() { # tool server keepalive concurrency round
	case $1 in
	wrk) run_wrk "${@:2}" ;;
	ab) run_ab "${@:2}" ;;
	*) run_specrun "$@" ;;
	esac
}

read -ra order <<<"$tools"
for s in $servers; do
	for ka in $keepalive; do
		for c in $conc; do
			for r in $(seq "$rounds"); do
				n=${#order[@]}
				for i in $(seq 0 $((n - 1))); do
					phase "${order[$(((i + r) % n))]}" "$s" "$ka" "$c" "$r"
				done
				echo "  $s keepalive=$ka c=$c round $r done"
			done
		done
	done
done

if [[ " $servers " == *" nginx "* ]]; then
	for c in 10 50; do
		for rate in 2000 10000; do
			for r in $(seq "$rounds"); do
				run_specrun specrun nginx on "$c" "$r" "$rate"
			done
		done
	done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$phases" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
closed = [r for r in rows if "rate" not in r]
def mm(xs):
    return statistics.median(xs), min(xs), max(xs)
def fmt(xs, f="%.1f"):
    m, lo, hi = mm(xs)
    return (f + " [" + f + ".." + f + "]") % (m, lo, hi)
cells = collections.defaultdict(list)
for r in closed:
    cells[r["server"], r["ka"], r["c"], r["tool"]].append(r)
tools = sorted({r["tool"] for r in closed}, key=lambda t: ["wrk", "specrun", "specrun-base", "ab"].index(t))
print()
print("1-minute load average at the phases' ends: %s (2 CPUs)." % fmt([r["load"] for r in rows]))
print()
print("Closed loop: medians [min..max] over rounds. CPU = the generator's user+sys per request.")
print("p50/p99 are raw samples except wrk's p99, which stock wrk corrects for coordinated omission (marked *).")
print()
print("| server | keepalive | c | tool | requests/s | CPU us/request | p50 ms | p99 ms | errors |")
print("|---|---|--:|---|--:|--:|--:|--:|--:|")
for (s, ka, c, t) in sorted(cells, key=lambda k: (k[0], k[1] != "on", k[2], tools.index(k[3]))):
    rs = cells[s, ka, c, t]
    star = "" if rs[0]["raw"] else "*"
    print(f"| {s} | {ka} | {c} | {t} | {fmt([r['rps'] for r in rs], '%.0f')} | {fmt([r['cpu_us'] for r in rs])} | "
          f"{fmt([r['p50'] for r in rs], '%.3f')} | {fmt([r['p99'] for r in rs], '%.3f')}{star} | {sum(r['errors'] for r in rs):.0f} |")
print()
print("specrun's ratios to wrk, per round: median [min..max]. CPU <= 1 and requests/s >= 1 are the goals.")
print()
others = [t for t in tools if t.startswith("specrun")]
head = " | ".join(f"{t}/wrk req/s | {t}/wrk CPU/req | {t}/wrk p50" for t in others)
print(f"| server | keepalive | c | {head} |")
print("|---|---|--:|" + "--:|" * 3 * len(others))
keys = sorted({k[:3] for k in cells}, key=lambda k: (k[0], k[1] != "on", k[2]))
for k in keys:
    w = {r["round"]: r for r in cells[k + ("wrk",)]}
    parts = []
    for t in others:
        rs = [r for r in cells[k + (t,)] if r["round"] in w]
        for key in ("rps", "cpu_us", "p50"):
            ratios = [r[key] / w[r["round"]][key] for r in rs if w[r["round"]][key] > 0]
            parts.append(fmt(ratios, "%.2f") if ratios else "N/A")
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(parts) + " |")
rate = [r for r in rows if "rate" in r]
if rate:
    print()
    print("Rate mode (specrun only; wrk2 is not packaged by Debian and its source cannot be fetched here,")
    print("so the peer figure is specrun's own closed loop against nginx, keepalive on, at the same c).")
    print("Latency counts from each request's intended send time; service p50 is the raw processing median.")
    print()
    print("| c | target req/s | reached req/s | CPU us/request | closed-loop CPU us/request | p50 ms | p99 ms | service p50 ms |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    groups = collections.defaultdict(list)
    for r in rate:
        groups[r["c"], r["rate"]].append(r)
    for (c, target), rs in sorted(groups.items()):
        sp = [r["service_p50"] for r in rs if "service_p50" in r]
        cl = [r["cpu_us"] for r in cells.get(("nginx", "on", c, "specrun"), [])]
        print(f"| {c} | {target:.0f} | {fmt([r['rps'] for r in rs], '%.0f')} | {fmt([r['cpu_us'] for r in rs])} | "
              f"{fmt(cl) if cl else 'N/A'} | "
              f"{fmt([r['p50'] for r in rs], '%.3f')} | {fmt([r['p99'] for r in rs], '%.3f')} | {fmt(sp, '%.3f') if sp else 'N/A'} |")
PY
