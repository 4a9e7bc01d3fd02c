#!/bin/bash
# run-trace.sh: --trace of a large capture: time, peak RSS and size of the
# trace at the default bound and at a smaller one, what it kept.
# usage: bench/run-trace.sh [BLKTOP] [EVENTS] [CAPTURE]   (root; records EVENTS
# block requests, default 10 M, from fio on a tmpfs-backed loop device with -w
# --no-vfs, unless CAPTURE names one already made)
set -u
BLKTOP=${1:-./blktop}
WANT=${2:-10000000}
CAP=${3:-}
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/blktop-tracebench-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
if [ -z "$CAP" ]; then
	[ "$(id -u)" = 0 ] || { echo "run-trace: needs root to record" >&2; exit 1; }
	CAP=$tmp/big.blkcap
	bench_record "$BLKTOP" "$WANT" "$CAP" || exit 1
fi

# measure [--trace-max MB]: wall seconds, CPU seconds, peak RSS, bytes, what was kept.
measure() {
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$BLKTOP" -r "$CAP" --trace "$tmp/t.json" \
	    "$@" </dev/null >/dev/null 2>&1
	read -r wall user sys rss <"$tmp/time"
	kept=$(python3 -c 'import json,sys
o = json.load(open(sys.argv[1]))["otherData"]
print("%d of %d requests kept" % (o["requests_seen"] - o["requests_dropped"], o["requests_seen"]))' \
	    "$tmp/t.json" 2>&1)
	printf "trace %-16s %6.2f s wall, %6.2f s CPU, %7d KiB peak RSS, %10d bytes, %s\n" \
	    "${*:-(default)}" "$wall" "$(echo "$user + $sys" | bc -l)" "$rss" \
	    "$(stat -c %s "$tmp/t.json")" "$kept"
	rm -f "$tmp/t.json"
}
for i in 1 2 3; do
	measure
	measure --trace-max 32
done
s=$(date +%s.%N)
"$BLKTOP" -r "$CAP" --report "$tmp/r.json" </dev/null >/dev/null 2>&1
printf "for comparison, --report of the same: %.2f s wall\n" "$(echo "$(date +%s.%N) - $s" | bc -l)"
