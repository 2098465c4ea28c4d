#!/bin/sh
# run.sh: install what the interpreters example needs, build specrun and run
# the spec: waitress on CPython (build A) and PyPy (build B) in front of
# memcached, 1000 requests at concurrency 10 per phase. On a fresh Debian or
# Ubuntu machine with Go it takes about two minutes, most of it apt-get.
#
#   examples/interpreters/run.sh [specrun run flags...]
#   examples/interpreters/run.sh --ab
#
# With --ab it also installs ab (apache2-utils) and runs bench/writeups
# interpreters instead: the spec, then ab -n 1000 -c 10 against the same app
# under the same interpreters, with specrun's figures beside ab's and /proc's
# and their ratios (about a minute after the installs).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ab=false
if [ "${1:-}" = "--ab" ]; then
	ab=true
	shift
fi

need=""
if $ab && ! command -v ab >/dev/null 2>&1; then
	need="$need apache2-utils"
fi
command -v memcached >/dev/null 2>&1 || need="$need memcached"
command -v pypy3 >/dev/null 2>&1 || need="$need pypy3"
/usr/bin/python3 -c 'import waitress' 2>/dev/null || need="$need python3-waitress"
/usr/bin/python3 -c 'import pymemcache' 2>/dev/null || need="$need python3-pymemcache"
if [ -n "$need" ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "run.sh: installing$need" >&2
	$sudo apt-get update -qq
	# shellcheck disable=SC2086 # the list is meant to split
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >/dev/null
fi

if $ab; then
	cd "$repo"
	exec go run ./bench/writeups interpreters
fi

out=${OUT:-$(mktemp -d)}
(cd "$repo" && go build -o "$out/specrun" ./cmd/specrun)
"$out/specrun" run --out "$out" \
	--var memcached="$(command -v memcached)" --var pypy="$(command -v pypy3)" \
	"$@" "$here/interpreters.hcl"
echo "run.sh: result and specrun in $out" >&2
