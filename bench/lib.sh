# lib.sh: what the bench/run-*.sh scripts share, sourced: loop devices backed by
# /dev/shm, removed with whatever else a script registers on every exit path
# (its end, exit, an error, SIGINT, SIGTERM, SIGHUP); bpf_stats on for the run;
# the rounds of a measurement of what tools cost in BPF run time.

BENCH_AT_EXIT=()	# commands run at exit, the last registered first
BENCH_LOOPS=()		# loop devices to detach at exit
BENCH_FILES=()		# files and directories to remove at exit

# bench_at_exit CMD: evaluate CMD when the script exits, before its loop devices go.
bench_at_exit() {
	BENCH_AT_EXIT=("$1" "${BENCH_AT_EXIT[@]}")
}

# What runs at exit: the registered commands, then the loop devices and files.
bench_exit() {
	local c l

	trap - EXIT
	for c in "${BENCH_AT_EXIT[@]}"; do
		eval "$c"
	done
	for l in "${BENCH_LOOPS[@]}"; do
		losetup -d "$l"
	done
	rm -rf "${BENCH_FILES[@]}"
}
trap bench_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# bench_loop SIZE [zero]: a loop device on a new file of SIZE (truncate's) in
# /dev/shm: its path in LOOP, its name in DEV; with "zero", written through
# once so reads find allocated pages. Not in $(...): it records what to remove.
bench_loop() {
	local img

	img=$(mktemp /dev/shm/blktop-bench-XXXXXX) || return 1
	BENCH_FILES+=("$img")
	truncate -s "$1" "$img" || return 1
	LOOP=$(losetup -f --show "$img") || return 1
	BENCH_LOOPS+=("$LOOP")
	DEV=${LOOP#/dev/}
	[ "${2:-}" = zero ] || return 0
	dd if=/dev/zero of="$LOOP" bs=1M count=$(($(stat -c %s "$img") >> 20)) \
	    status=none oflag=direct
}

# bench_record BLKTOP WANT CAP: record about WANT block requests of fio
# (libaio, 4 KiB random reads, QD 32, 2 jobs) on a new 1 GiB loop device into
# the capture CAP (-w --no-vfs), and say how many the device did.
bench_record() {
	local pid r0 r1

	bench_loop 1G || return 1
	"$1" --headless --no-vfs -D "$DEV" -w "$3" 2>"$3.err" &
	pid=$!
	sleep 1.5
	read -r r0 _ < <(awk -v n="$DEV" '$3 == n { print $4 }' /proc/diskstats)
	fio --name=big --filename="$LOOP" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	    --iodepth=32 --numjobs=2 --group_reporting \
	    --io_size=$(($2 / 2 * 4096)) >/dev/null 2>&1
	sleep 0.5
	kill -INT $pid
	wait $pid
	read -r r1 _ < <(awk -v n="$DEV" '$3 == n { print $4 }' /proc/diskstats)
	printf "capture: %d requests on %s, %d bytes\n" $((r1 - r0)) "$DEV" "$(stat -c %s "$3")"
}

# bench_bpf_stats: the kernel's BPF run-time statistics on, as they were at exit.
bench_bpf_stats() {
	BENCH_OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	bench_at_exit 'sysctl -qw kernel.bpf_stats_enabled="$BENCH_OLD_STATS"'
	sysctl -qw kernel.bpf_stats_enabled=1
}

# bench_prog_ids [PREFIX...]: the ids of the BPF programs loaded now (whose
# names start with a PREFIX, if given).
bench_prog_ids() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
pre = tuple(sys.argv[1:])
print(" ".join(str(p["id"]) for p in json.load(sys.stdin)
               if not pre or p.get("name", "").startswith(pre)))' "$@"
}

# bench_prog_ns IDS...: run_time_ns and run_cnt summed over the programs of those ids.
bench_prog_ns() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
ids = set(int(x) for x in sys.argv[1:]); ns = cnt = 0
for p in json.load(sys.stdin):
    if p["id"] in ids:
        ns += p.get("run_time_ns", 0); cnt += p.get("run_cnt", 0)
print(ns, cnt)' "$@"
}

# bench_cost_rounds UNIT NAME=CMD...: ROUNDS rounds of the tools in turn. Each
# CMD starts (its programs: the ones it loads, only those named with a prefix
# of COST_PROGS if set), once attached (below) the caller's cost_work
# runs the work and sets COST_N, how many UNITs it did, and the tool stops on
# SIGINT. Prints each run and each tool's median BPF ns per UNIT.
bench_cost_rounds() {
	local unit=$1 spec name r before ids id ns0 cnt0 ns1 cnt1 per t0 since last n
	local -A res=()

	shift
	bench_at_exit '[ -n "${BENCH_TOOL:-}" ] && kill -INT "$BENCH_TOOL" 2>/dev/null && wait "$BENCH_TOOL" 2>/dev/null'
	for ((r = 1; r <= ROUNDS; r++)); do
		for spec in "$@"; do
			name=${spec%%=*}
			before=" $(bench_prog_ids) "
			# shellcheck disable=SC2086
			${spec#*=} >/dev/null 2>&1 &
			BENCH_TOOL=$!
			# Attached: at least COST_SETTLE seconds (3), and no program came
			# for 2 s (blktop loads its optional programs after the others,
			# seconds later on a busy machine); at most 30 s.
			t0=$SECONDS since=$SECONDS last=-1
			while (( SECONDS - t0 < ${COST_SETTLE:-3} || SECONDS - since < 2 )); do
				kill -0 "$BENCH_TOOL" 2>/dev/null || { echo "bench: $name exited at start" >&2; exit 1; }
				(( SECONDS - t0 > 30 )) && { echo "bench: $name still loading after 30 s" >&2; exit 1; }
				ids=
				# shellcheck disable=SC2086
				for id in $(bench_prog_ids ${COST_PROGS:-}); do
					[[ $before == *" $id "* ]] || ids="$ids $id"
				done
				n=$(wc -w <<<"$ids")
				[ "$n" != "$last" ] && last=$n since=$SECONDS
				sleep 0.25
			done
			# shellcheck disable=SC2086
			read -r ns0 cnt0 < <(bench_prog_ns $ids)
			cost_work
			# shellcheck disable=SC2086
			read -r ns1 cnt1 < <(bench_prog_ns $ids)
			kill -INT "$BENCH_TOOL"
			wait "$BENCH_TOOL" 2>/dev/null
			BENCH_TOOL=
			per=$(python3 -c "print(round(($ns1 - $ns0) / max($COST_N, 1), 1))")
			echo "round $r $name: $COST_N ${unit}s, $((cnt1 - cnt0)) program runs, $per ns of BPF per $unit"
			res[$name]="${res[$name]:-} $per"
		done
	done
	for spec in "$@"; do
		name=${spec%%=*}
		# shellcheck disable=SC2086
		python3 -c "import statistics, sys; v = [float(x) for x in sys.argv[3:]]; print('median %s: %.1f ns per %s (%s)' % (sys.argv[1], statistics.median(v), sys.argv[2], ' '.join(sys.argv[3:])))" "$name" "$unit" ${res[$name]}
	done
}
