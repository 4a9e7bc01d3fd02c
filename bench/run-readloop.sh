#!/bin/bash
# run-readloop.sh: 4 KiB read() loop on a cached file without and with blktop, interleaved;
# prints calls/s both ways, the ratio, blktop's CPU% and lost events.
# usage: bench/run-readloop.sh [BLKTOP] [READLOOP] [PAIRS] [SECONDS] [-- extra blktop args]
set -u
BLKTOP=${1:-./blktop}
LOOPER=${2:-./bench/bench-readloop}
PAIRS=${3:-5}
SECS=${4:-5}
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/pairs.sh"
tmp=$(mktemp -d /tmp/blktop-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head -c $((64 << 20)) /dev/urandom >"$tmp/cached"
cat "$tmp/cached" >/dev/null

BLKTOP_CMD=("$BLKTOP" -J "$@")

# workload: read() calls per second of one timed run, on the second CPU.
workload() {
	taskset -c 1 "$LOOPER" "$tmp/cached" "$SECS"
}
run_pairs calls/s
