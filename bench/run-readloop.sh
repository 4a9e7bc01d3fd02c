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
EXTRA=("$@")
tmp=$(mktemp -d /tmp/blktop-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head -c $((64 << 20)) /dev/urandom >"$tmp/cached"
cat "$tmp/cached" >/dev/null
ticks=$(getconf CLK_TCK)
ratios=() cpus=() lost_total=0
for i in $(seq 1 "$PAIRS"); do
	base=$(taskset -c 1 "$LOOPER" "$tmp/cached" "$SECS")
	"$BLKTOP" -J "${EXTRA[@]}" >"$tmp/out.jsonl" 2>"$tmp/err" &
	pid=$!
	while [ ! -s "$tmp/out.jsonl" ]; do sleep 0.2; done
	c0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t0=$(date +%s.%N)
	with=$(taskset -c 1 "$LOOPER" "$tmp/cached" "$SECS")
	c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t1=$(date +%s.%N)
	kill -INT $pid
	wait $pid
	lost=$(python3 -c 'import json,sys; print(sum(json.loads(l)["lost"] for l in open(sys.argv[1])))' "$tmp/out.jsonl")
	cpu=$(echo "($c1 - $c0) / $ticks / ($t1 - $t0) * 100" | bc -l)
	ratio=$(echo "$with / $base" | bc -l)
	printf "pair %d: baseline %d calls/s, with blktop %d calls/s, ratio %.3f, blktop CPU %.1f%%, lost %d\n" \
	    "$i" "$base" "$with" "$ratio" "$cpu" "$lost"
	ratios+=("$ratio") cpus+=("$cpu")
	lost_total=$((lost_total + lost))
done
med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf "median ratio %.3f (slowdown %.1f%%), median blktop CPU %.1f%% of one core, lost events %d (%d pairs of %ds)\n" \
    "$(med "${ratios[@]}")" "$(echo "(1 - $(med "${ratios[@]}")) * 100" | bc -l)" "$(med "${cpus[@]}")" \
    "$lost_total" "$PAIRS" "$SECS"
