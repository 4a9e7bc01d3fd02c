#!/bin/bash
# run-perf.sh: where blktop's BPF programs spend their time, by source line,
# under the fio job of bench/run-async.py (4 KiB random direct reads, depth 32,
# 2 jobs, on a /dev/shm loop device): perf samples every CPU (cpu-clock,
# with call stacks) while blktop runs, and bench/bpf-lines maps each sample
# in a program to its source line, or to the function it called (a helper,
# the irq_work of a ring-buffer wakeup...).
#
#   bench/run-perf.sh    ENGINE=io_uring|libaio SECS=4 BLKTOP=build/blktop
#                        ARGS="-J -d 1" PROGS="tb_io_start tb_rq_complete ..."
#                        LINES=build/bench/bpf-lines (make bench)
#
# This is how the wakeups were found (issue 28): 58% of tb_rq_complete's
# samples in the APIC write of the irq_work each wakeup queued. Nothing else
# may run BPF or benchmarks meanwhile (take /tmp/blktop-bench.lock). The loop
# device, its file and blktop go away on every exit path.
set -u
ENGINE=${ENGINE:-io_uring}
SECS=${SECS:-4}
BLKTOP=${BLKTOP:-build/blktop}
ARGS=${ARGS:--J -d 1}
LINES=${LINES:-build/bench/bpf-lines}
PROGS=${PROGS:-tb_io_start tb_rq_issue tb_rq_complete uring_submit uring_complete aio_submit aio_getevents_exit}
for c in perf fio bpftool; do
	command -v "$c" >/dev/null || { echo "run-perf: needs $c" >&2; exit 2; }
done
[ -x "$LINES" ] || { echo "run-perf: no $LINES (make bench)" >&2; exit 2; }
IMG=/dev/shm/blktop-perf-$$.img
OUT=$(mktemp -d)
LOOP=
BPID=
cleanup() {
	[ -n "$BPID" ] && kill -INT "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -f "$IMG"
	rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
truncate -s 1G "$IMG" && LOOP=$(losetup -f --show "$IMG") || exit 1
# shellcheck disable=SC2086
"$BLKTOP" $ARGS >/dev/null 2>"$OUT/blktop.err" &
BPID=$!
sleep 3
kill -0 "$BPID" 2>/dev/null || { cat "$OUT/blktop.err" >&2; exit 1; }
fio --name=b --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine="$ENGINE" \
    --iodepth=32 --numjobs=2 --time_based --runtime=$((SECS + 2)) --group_reporting \
    --output="$OUT/fio.txt" &
FPID=$!
sleep 1
perf record -a -g -e cpu-clock -F 20000 -o "$OUT/perf.data" -- sleep "$SECS" 2>/dev/null
# The programs' ids while they are loaded.
ids=
for p in $PROGS; do
	id=$(bpftool prog show name "$p" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$id" ] && ids="$ids $id"
done
wait "$FPID"
grep -o "IOPS=[^,]*" "$OUT/fio.txt" | head -1
# shellcheck disable=SC2086
perf script -i "$OUT/perf.data" -F ip,sym 2>/dev/null | "$LINES" $ids
