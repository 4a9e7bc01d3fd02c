#!/bin/bash
# run-bpfcost.sh: kernel-side cost per block request, by bpf_stats (run time of
# all programs of a tool / requests the device completed), tools alternating on
# the same fio job, ROUNDS rounds; prints each run and the medians. A tool's
# programs are those loaded while it starts (nothing else may load BPF meanwhile).
#   bench/run-bpfcost.sh NAME=CMD... e.g.
#   bench/run-bpfcost.sh "new=build/blktop -J --no-vfs -d 1" "old=/tmp/old/blktop -J --no-vfs -d 1" \
#       "biolatency=biolatency"
# FIO_ARGS overrides the job (default: 4k random reads, direct, iodepth 8, libaio).
# The loop device is backed by /dev/shm and removed on every exit path (bench/lib.sh).
# COST_SETTLE: seconds a tool is given to load and attach (3; a debug build on a
# busy machine needs more).
# WORK=readloop measures per read() call instead: bench/bench-readloop (READLOOP=)
# reads a cached 64 MiB file in 4 KiB calls for SECS, and the divisor is its calls.
set -u
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-4}
FIO_ARGS=${FIO_ARGS:---rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=8}
. "$(dirname "$0")/lib.sh"
bench_loop 512M zero || exit 1
bench_bpf_stats
WORK=${WORK:-fio}
READLOOP=${READLOOP:-$(dirname "$0")/bench-readloop}
if [ "$WORK" = readloop ]; then
	dir=$(mktemp -d /dev/shm/blktop-bpfcost-XXXXXX) || exit 1
	BENCH_FILES+=("$dir")
	cached=$dir/data/set-01/cached.bin
	mkdir -p "${cached%/*}"
	head -c $((64 << 20)) /dev/urandom >"$cached"
fi

# cost_work: one run of the work under a tool; COST_N, what it did.
cost_work() {
	local rate ios0 ios1

	if [ "$WORK" = readloop ]; then
		rate=$(taskset -c 1 "$READLOOP" "$cached" "$SECS")
		COST_N=$(python3 -c "print(round($rate * $SECS))")
	else
		ios0=$(awk -v d="$DEV" '$3 == d { print $4 + $8 }' /proc/diskstats)
		# shellcheck disable=SC2086
		fio --name=b --filename="$LOOP" $FIO_ARGS --runtime="$SECS" --time_based \
		    --output=/dev/null >/dev/null 2>&1
		ios1=$(awk -v d="$DEV" '$3 == d { print $4 + $8 }' /proc/diskstats)
		COST_N=$((ios1 - ios0))
	fi
}

unit=request
[ "$WORK" = readloop ] && unit="read() call"
bench_cost_rounds "$unit" "$@"
