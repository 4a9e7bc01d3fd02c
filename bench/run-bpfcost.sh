#!/bin/bash
# run-bpfcost.sh: kernel-side cost per block request, by bpf_stats (run time of
# all programs of a tool / requests the device completed), tools alternating on
# the same fio job, ROUNDS rounds; prints each run and the medians. A tool's
# programs are those loaded while it starts (nothing else may load BPF meanwhile).
#   bench/run-bpfcost.sh NAME=CMD... e.g.
#   bench/run-bpfcost.sh "new=build/blktop -J --no-vfs -d 1" "old=/tmp/old/blktop -J --no-vfs -d 1" \
#       "biolatency=biolatency"
# FIO_ARGS overrides the job (default: 4k random reads, direct, iodepth 8, libaio).
# The loop device is backed by /dev/shm and removed on every exit path.
# WORK=readloop measures per read() call instead: bench/bench-readloop (READLOOP=)
# reads a cached 64 MiB file in 4 KiB calls for SECS, and the divisor is its calls.
set -u
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-4}
FIO_ARGS=${FIO_ARGS:---rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=8}
img=/dev/shm/blktop-bpfcost-$$.img
truncate -s 512M "$img"
loop=$(losetup -f --show "$img") || { rm -f "$img"; exit 1; }
dev=${loop#/dev/}
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	[ -n "${tpid:-}" ] && kill -INT "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	losetup -d "$loop"
	rm -f "$img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
sysctl -qw kernel.bpf_stats_enabled=1
dd if=/dev/zero of="$loop" bs=1M count=512 status=none oflag=direct
WORK=${WORK:-fio}
READLOOP=${READLOOP:-$(dirname "$0")/bench-readloop}
if [ "$WORK" = readloop ]; then
	cached=/dev/shm/blktop-bpfcost-$$.dir/data/set-01/cached.bin
	mkdir -p "${cached%/*}"
	head -c $((64 << 20)) /dev/urandom >"$cached"
	trap 'cleanup; rm -rf /dev/shm/blktop-bpfcost-$$.dir' EXIT
fi

# prog_ids: the ids of the BPF programs loaded now.
prog_ids() { bpftool -j prog show 2>/dev/null | python3 -c 'import json, sys; print(" ".join(str(p["id"]) for p in json.load(sys.stdin)))'; }

# prog_ns IDS...: run_time_ns and run_cnt summed over the programs of those ids.
prog_ns() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
ids = set(int(x) for x in sys.argv[1:]); ns = cnt = 0
for p in json.load(sys.stdin):
    if p["id"] in ids:
        ns += p.get("run_time_ns", 0); cnt += p.get("run_cnt", 0)
print(ns, cnt)' "$@"
}

declare -A res
for ((r = 1; r <= ROUNDS; r++)); do
	for spec in "$@"; do
		name=${spec%%=*}
		cmd=${spec#*=}
		before=" $(prog_ids) "
		# shellcheck disable=SC2086
		$cmd >/dev/null 2>&1 &
		tpid=$!
		# Attached: at least 3 s, and no program came in the last 1.5 s (blktop
		# loads its optional programs after the others; slower on a busy machine).
		ids= t0=$SECONDS since=$SECONDS last=-1
		while (( SECONDS - t0 < 3 || SECONDS - since < 2 )); do
			kill -0 "$tpid" 2>/dev/null || { echo "run-bpfcost: $name exited at start" >&2; exit 1; }
			(( SECONDS - t0 > 30 )) && { echo "run-bpfcost: $name still loading after 30 s" >&2; exit 1; }
			ids=
			for id in $(prog_ids); do
				[[ $before == *" $id "* ]] || ids="$ids $id"
			done
			n=$(wc -w <<<"$ids")
			[ "$n" != "$last" ] && last=$n since=$SECONDS
			sleep 0.25
		done
		# shellcheck disable=SC2086
		read -r ns0 cnt0 < <(prog_ns $ids)
		if [ "$WORK" = readloop ]; then
			rate=$(taskset -c 1 "$READLOOP" "$cached" "$SECS")
			# shellcheck disable=SC2086
			read -r ns1 cnt1 < <(prog_ns $ids)
			ios=$(python3 -c "print(round($rate * $SECS))")
			unit="read() call"
		else
			ios0=$(awk -v d="$dev" '$3 == d { print $4 + $8 }' /proc/diskstats)
			# shellcheck disable=SC2086
			fio --name=b --filename="$loop" $FIO_ARGS --runtime="$SECS" --time_based \
			    --output=/dev/null >/dev/null 2>&1
			# shellcheck disable=SC2086
			read -r ns1 cnt1 < <(prog_ns $ids)
			ios1=$(awk -v d="$dev" '$3 == d { print $4 + $8 }' /proc/diskstats)
			ios=$((ios1 - ios0))
			unit=request
		fi
		kill -INT "$tpid"; wait "$tpid" 2>/dev/null; tpid=
		per=$(python3 -c "print(round(($ns1 - $ns0) / max($ios, 1), 1))")
		echo "round $r $name: $ios ${unit}s, $((cnt1 - cnt0)) program runs, $per ns of BPF per $unit"
		res[$name]="${res[$name]:-} $per"
	done
done
for spec in "$@"; do
	name=${spec%%=*}
	python3 -c "import statistics, sys; v = [float(x) for x in sys.argv[2:]]; print('median %s: %.1f ns per event (%s)' % (sys.argv[1], statistics.median(v), ' '.join(sys.argv[2:])))" "$name" ${res[$name]}
done
