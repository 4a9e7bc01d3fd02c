#!/bin/bash
# numbers.sh: numbers that hold together, over every field of a live -J run
# under a real workload (ext4 on a loop device: direct random reads and
# writes, lone direct reads a report apart, buffered writes the flusher
# writes back, files renamed and removed unread), of -b and of --report
# OUT.json of its capture: every percentile between the exact min and max,
# and a latency or mean with no sample behind it null in JSON and "-" in
# text, never 0.0 (tests/integration/numbers.py has the rules).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
need_cmd fio fio

ext4_on_loop 128 || exit 0
NUM="python3 $BLKTOP_SRCDIR/tests/integration/numbers.py"

out=$TEST_TMP/live.jsonl
"$BLKTOP" -J -d 0.5 --top 500 -w "$TEST_TMP/live.cap" >"$out" 2>"$TEST_TMP/live.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || { fail "blktop started"; cat "$TEST_TMP/live.err"; }
# Many requests of each kind: percentiles from full histograms.
fio --filename="$MNT/f" --size=8M --direct=1 --ioengine=psync --bs=4k --rw=randrw \
    --io_size=2M --name=rw --output=/dev/null >"$TEST_TMP/fio.err" 2>&1 || fail "fio ran"
# One request in a report: its percentiles are the request's own time.
for i in 1 2 3; do
	dd if="$MNT/f" of=/dev/null bs=4k count=1 skip=$((i * 7)) iflag=direct status=none
	sleep 0.6
done
# Written back by the flusher (a process with requests and no calls), files unread.
dd if=/dev/zero of="$MNT/g" bs=64k count=32 status=none
touch "$MNT/h"
mv "$MNT/h" "$MNT/i"
rm "$MNT/i"
sync
cat "$MNT/g" >/dev/null
sleep 1.2
kill -INT "$pid"
wait "$pid"
check "blktop exits 0" [ $? = 0 ]

$NUM "-J live" --json "$out"
"$BLKTOP" -r "$TEST_TMP/live.cap" -b --top 500 >"$TEST_TMP/replay.txt" 2>"$TEST_TMP/replay.err" ||
    fail "-b replay of the capture"
$NUM "-b of the capture" --text "$TEST_TMP/replay.txt"
"$BLKTOP" -r "$TEST_TMP/live.cap" --report "$TEST_TMP/report.json" </dev/null >/dev/null 2>&1 ||
    fail "--report OUT.json of the capture"
$NUM "--report OUT.json" --report "$TEST_TMP/report.json"
