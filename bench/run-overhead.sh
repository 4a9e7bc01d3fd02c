#!/bin/bash
# run-overhead.sh: fio 4k random reads on a tmpfs-backed loop device at full speed,
# without and with blktop running, interleaved; prints IOPS ratio, blktop CPU% and lost.
# usage: bench/run-overhead.sh [BLKTOP] [PAIRS] [SECONDS] [-- extra blktop args]
set -u
BLKTOP=${1:-./blktop}
PAIRS=${2:-5}
SECS=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = "--" ] && shift
[ "$(id -u)" = 0 ] || { echo "run-overhead: needs root" >&2; exit 1; }
. "$(dirname "$0")/pairs.sh"
. "$(dirname "$0")/lib.sh"
bench_loop 1G zero || exit 1

BLKTOP_CMD=("$BLKTOP" -J -D "$(basename "$LOOP")" "$@")

# workload: IOPS of one timed run.
workload() {
	fio --name=bench --filename="$LOOP" --direct=1 --rw=randread --bs=4k \
	    --ioengine=libaio --iodepth=32 --runtime="$SECS" --time_based \
	    --output-format=json 2>/dev/null |
	    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))'
}
run_pairs IOPS
