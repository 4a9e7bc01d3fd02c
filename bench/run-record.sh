#!/bin/bash
# run-record.sh: capture size per event for fio workloads recorded with -w, and replay speed.
# usage: bench/run-record.sh [BLKTOP] [SECONDS]   (root; a tmpfs-backed loop device)
set -u
BLKTOP=${1:-./blktop}
SECS=${2:-5}
[ "$(id -u)" = 0 ] || { echo "run-record: needs root" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
bench_loop 1G zero || exit 1
tmp=$(mktemp -d /tmp/blktop-rbench-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")

# record NAME FIO-ARGS...: one fio run under blktop -w; prints events, bytes, bytes/event.
record() {
	local name=$1 cap=$tmp/$1.blkcap pid events size
	shift
	"$BLKTOP" -J -D "$DEV" -w "$cap" >"$tmp/$name.jsonl" 2>"$tmp/$name.err" &
	pid=$!
	sleep 1.2
	fio --name="$name" --filename="$LOOP" --direct=1 --ioengine=libaio --runtime="$SECS" \
	    --time_based "$@" >/dev/null 2>&1
	sleep 0.3
	kill -INT $pid
	wait $pid
	events=$("$BLKTOP" -r "$cap" --dump --format csv | tail -n +2 | wc -l)
	size=$(stat -c %s "$cap")
	printf "%-28s %9d records %10d bytes %6.2f bytes/record\n" "$name" "$events" "$size" \
	    "$(echo "$size / $events" | bc -l)"
}

record rand4k-read --rw=randread --bs=4k --iodepth=32
record seq4k-read --rw=read --bs=4k --iodepth=32
record rand4k-write --rw=randwrite --bs=4k --iodepth=32
record seq128k-write --rw=write --bs=128k --iodepth=8
record mixed-4k-64k --rw=randrw --bsrange=4k-64k --iodepth=16

# Replay speed: the largest capture, as fast as possible, reports to /dev/null.
big=$(ls -S "$tmp"/*.blkcap | head -1)
n=$("$BLKTOP" -r "$big" --dump | tail -n +2 | wc -l)
for i in 1 2 3; do
	s=$(date +%s.%N)
	"$BLKTOP" -r "$big" -b -J >/dev/null
	e=$(date +%s.%N)
	printf "replay %s: %d records in %.3f s: %.2f M records/s\n" "$(basename "$big")" "$n" \
	    "$(echo "$e - $s" | bc -l)" "$(echo "$n / ($e - $s) / 1000000" | bc -l)"
done
