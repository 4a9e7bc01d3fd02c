# pairs.sh: interleaved baseline/with-blktop measurement, sourced by the run-*.sh benchmarks.
#
# The caller defines workload (prints one rate, higher is better) and sets
# BLKTOP_CMD (array: the blktop command line, its JSON going to stdout) and
# PAIRS. From the environment: SETTLE (seconds from the start of an arm to the
# start of its workload, default 6), RECORD=1 (blktop also records every
# event with -w to a new capture, removed after the arm) and FLOOR (a command run in place of
# blktop, e.g. "bench/bench-floor bench/floor.bpf.o block": do-nothing
# programs on blktop's hooks, the kernel's own cost of them).
# Both arms of a pair are built the same way: the same wait before the
# workload (blktop loads and attaches during it, or nothing runs), and the
# order alternates (base-with, with-base, ...), because on this VM the run
# that follows a pause is systematically faster: a fixed order measured a
# ratio of 0.90 against a `sleep` in place of blktop.

# arm_with OUTDIR: the workload's rate with blktop running; sets ARM_CPU, ARM_LOST.
arm_with() {
	local dir=$1 pid c0 c1 t0 t1 rate start rec=()
	start=$(date +%s.%N)
	[ "${RECORD:-}" = 1 ] && rec=(-w "$dir/arm.blkcap")
	"${BLKTOP_CMD[@]}" "${rec[@]}" >"$dir/out.jsonl" 2>"$dir/err" &
	pid=$!
	# its first report says BPF is loaded and attached
	while [ ! -s "$dir/out.jsonl" ]; do
		kill -0 $pid 2>/dev/null || { echo "bench: blktop exited: $(head -1 "$dir/err")" >&2; exit 1; }
		sleep 0.1
	done
	sleep "$(echo "$SETTLE - ($(date +%s.%N) - $start)" | bc -l | sed 's/^-.*/0/')"
	c0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t0=$(date +%s.%N)
	rate=$(workload)
	c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
	t1=$(date +%s.%N)
	kill -TERM $pid	# INT is ignored by a background shell script (floor-cmd.sh)
	wait $pid
	[ "${RECORD:-}" = 1 ] && ARM_CAPTURE=$(stat -c %s "$dir/arm.blkcap") && rm -f "$dir/arm.blkcap"
	ARM_CPU=$(echo "($c1 - $c0) / $(getconf CLK_TCK) / ($t1 - $t0) * 100" | bc -l)
	ARM_LOST=$(python3 -c 'import json,sys; print(sum(json.loads(l)["lost"] for l in open(sys.argv[1])))' \
	    "$dir/out.jsonl")
	ARM_RATE=$rate
}

# arm_base: the workload's rate without blktop, after the same wait.
arm_base() {
	sleep "$SETTLE"
	ARM_RATE=$(workload)
}

med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# run_pairs UNIT: PAIRS pairs, then the medians.
run_pairs() {
	local unit=$1 i base with ratios=() cpus=() lost_total=0 dir
	SETTLE=${SETTLE:-6}
	[ -n "${FLOOR:-}" ] && read -ra BLKTOP_CMD <<<"$FLOOR"
	dir=$(mktemp -d /tmp/blktop-pairs-XXXXXX)
	for i in $(seq 1 "$PAIRS"); do
		if [ $((i % 2)) = 1 ]; then
			arm_base; base=$ARM_RATE
			arm_with "$dir"; with=$ARM_RATE
		else
			arm_with "$dir"; with=$ARM_RATE
			arm_base; base=$ARM_RATE
		fi
		ratios+=("$(echo "$with / $base" | bc -l)") cpus+=("$ARM_CPU")
		lost_total=$((lost_total + ARM_LOST))
		printf "pair %d: baseline %d %s, with blktop %d %s, ratio %.3f, blktop CPU %.1f%%, lost %d%s\n" \
		    "$i" "$base" "$unit" "$with" "$unit" "${ratios[-1]}" "$ARM_CPU" "$ARM_LOST" \
		    "${ARM_CAPTURE:+, capture $ARM_CAPTURE bytes}"
	done
	rm -rf "$dir"
	printf "median ratio %.3f, median blktop CPU %.1f%% of one core, lost events %d (%d pairs)\n" \
	    "$(med "${ratios[@]}")" "$(med "${cpus[@]}")" "$lost_total" "$PAIRS"
}
