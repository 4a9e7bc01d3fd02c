#!/bin/bash
# run-report.sh: --report of a large capture: time, peak RSS and size of the
# HTML and JSON reports, and how long headless Chromium takes to render it.
# usage: bench/run-report.sh [BLKTOP] [EVENTS]   (root; records EVENTS block
# requests, default 10 M, from fio on a tmpfs-backed loop device with -w --no-vfs)
set -u
BLKTOP=${1:-./blktop}
WANT=${2:-10000000}
[ "$(id -u)" = 0 ] || { echo "run-report: needs root" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/blktop-repbench-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
cap=$tmp/big.blkcap
bench_record "$BLKTOP" "$WANT" "$cap" || exit 1

# measure OUT: wall seconds, CPU seconds, peak RSS of one report.
measure() {
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$BLKTOP" -r "$cap" --report "$1" \
	    </dev/null >/dev/null 2>&1
	read -r wall user sys rss <"$tmp/time"
	printf "%-5s report: %6.2f s wall, %6.2f s CPU, %7d KiB peak RSS, %9d bytes\n" \
	    "${1##*.}" "$wall" "$(echo "$user + $sys" | bc -l)" "$rss" "$(stat -c %s "$1")"
	rm -f "$1"
}
for i in 1 2 3; do
	measure "$tmp/r.html"
	measure "$tmp/r.json"
done
"$BLKTOP" -r "$cap" --report "$tmp/r.html" </dev/null >/dev/null 2>&1
if command -v chromium >/dev/null; then
	for i in 1 2 3; do
		s=$(date +%s.%N)
		HOME=$tmp timeout 120 chromium --headless --no-sandbox --disable-gpu \
		    --screenshot="$tmp/r.png" --window-size=1200,1600 "file://$tmp/r.html" \
		    >/dev/null 2>&1
		printf "chromium: page rendered and screenshot taken in %.2f s\n" \
		    "$(echo "$(date +%s.%N) - $s" | bc -l)"
	done
	s=$(date +%s.%N)
	HOME=$tmp timeout 120 chromium --headless --no-sandbox --disable-gpu \
	    --screenshot="$tmp/e.png" --window-size=1200,1600 "about:blank" >/dev/null 2>&1
	printf "chromium: an empty page for comparison: %.2f s\n" "$(echo "$(date +%s.%N) - $s" | bc -l)"
fi
