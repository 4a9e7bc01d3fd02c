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
EXTRA=("$@")
[ "$(id -u)" = 0 ] || { echo "run-overhead: needs root" >&2; exit 1; }
img=/dev/shm/blktop-bench-$$.img
truncate -s 1G "$img"
LOOP=$(losetup -f --show "$img") || exit 1
DEV=$(basename "$LOOP")
tmp=$(mktemp -d /tmp/blktop-bench-XXXXXX)
trap 'losetup -d "$LOOP"; rm -f "$img"; rm -rf "$tmp"' EXIT
dd if=/dev/zero of="$LOOP" bs=1M count=1024 status=none oflag=direct

# fio_iops: IOPS of one timed run.
fio_iops() {
	fio --name=bench --filename="$LOOP" --direct=1 --rw=randread --bs=4k \
	    --ioengine=libaio --iodepth=32 --runtime="$SECS" --time_based \
	    --output-format=json 2>/dev/null |
	    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))'
}

ticks=$(getconf CLK_TCK)
ratios=() cpus=() lost_total=0
for i in $(seq 1 "$PAIRS"); do
	base=$(fio_iops)
	"$BLKTOP" -J -D "$DEV" "${EXTRA[@]}" >"$tmp/out.jsonl" 2>"$tmp/err" &
	pid=$!
	sleep 1.5
	c0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t0=$(date +%s.%N)
	with=$(fio_iops)
	c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t1=$(date +%s.%N)
	kill -INT $pid
	wait $pid
	lost=$(python3 -c 'import json,sys; print(sum(json.loads(l)["lost"] for l in open(sys.argv[1])))' "$tmp/out.jsonl")
	ios=$(python3 -c 'import json,sys; print(sum(d["read"]["ios"] for l in open(sys.argv[1]) for d in json.loads(l)["devices"]))' "$tmp/out.jsonl")
	cpu=$(echo "($c1 - $c0) / $ticks / ($t1 - $t0) * 100" | bc -l)
	ratio=$(echo "$with / $base" | bc -l)
	printf "pair %d: baseline %d IOPS, with blktop %d IOPS, ratio %.3f, blktop CPU %.1f%%, events %d, lost %d\n" \
	    "$i" "$base" "$with" "$ratio" "$cpu" "$ios" "$lost"
	ratios+=("$ratio") cpus+=("$cpu")
	lost_total=$((lost_total + lost))
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf "median IOPS ratio %.3f, median blktop CPU %.1f%% of one core, lost events %d (%d pairs of %ds)\n" \
    "$(med "${ratios[@]}")" "$(med "${cpus[@]}")" "$lost_total" "$PAIRS" "$SECS"
