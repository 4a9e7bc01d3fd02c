#!/bin/bash
# straggle.sh: the access patterns stay exact when some records come late.
# A CPU's batch of records waits for its age before it goes out (bpf/batch.h),
# so a CPU that went quiet sends its last records tens of ms after the other
# CPUs' later ones: thousands of places at 100k+ records/s. The calls and the
# requests wait to be judged in time order (0.3 s), and those far behind wait
# beside the rings (model.h's lane). fio's sequential reader (pread, QD 1,
# 4 KiB, direct) on one loop device, for 4 s, beside fio's random reader
# (libaio, QD 8) on another, and blktop tracing both: every one of the
# sequential reader's reads but its first is consecutive (fio's own count),
# as a call (the file's pattern) and as a request (the device's pattern, in
# start order), and no call is judged out of order. Before the lane, 30-40
# of some 170,000 reads were judged not consecutive here (2 cores, 6.18).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd python3 python3
SEQ=$(loop_create 4096) || { fail "loop device"; exit 0; }
RND=$(loop_create 256) || { fail "loop device"; exit 0; }
losetup --direct-io=on "$SEQ" 2>/dev/null
losetup --direct-io=on "$RND" 2>/dev/null
"$BLKTOP" -J -d 1 --top 50 -D "$(basename "$SEQ")" -D "$(basename "$RND")" \
    --report "$TEST_TMP/rep.json" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "blktop started: $(head -c 300 "$TEST_TMP/live.err")"
fio --name=rnd --filename="$RND" --direct=1 --rw=randread --bs=4k --ioengine=libaio \
    --iodepth=8 --runtime=4 --time_based >/dev/null 2>&1 &
rpid=$!
TEST_PIDS="$TEST_PIDS $rpid"
fio --name=seq --filename="$SEQ" --direct=1 --rw=read --bs=4k --ioengine=psync \
    --runtime=4 --time_based --output-format=json >"$TEST_TMP/seq.json" 2>/dev/null ||
    fail "fio sequential"
wait "$rpid"
sleep 1.2
stop_bg "$bpid"; st=$?
check "exit $st at SIGINT" [ "$st" = 0 ]
python3 - "$TEST_TMP" "$SEQ" "$(blockdev --getsize64 "$SEQ")" <<'PY' || fail "the checks ran"
import json, sys
tmp, seq, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "straggle: " + what)
ios = json.load(open(tmp + "/seq.json"))["jobs"][0]["read"]["total_ios"]
rep = json.load(open(tmp + "/rep.json"))
f = [x for x in rep["files"] if x["path"] == seq]
d = [x for x in rep["devices"] if "/dev/" + x["name"] == seq]
last, nolat, lost_calls, lost_reqs = None, 0, 0, 0
for line in open(tmp + "/live.jsonl"):
    last = json.loads(line)
    nolat += sum(x["read"]["no_lat"] for x in last["devices"] if "/dev/" + x["name"] == seq)
    lost_calls += last["lost_calls"] or 0
    lost_reqs += last["lost_requests"] or 0
t = last["tables"]
out(ios > 10000, "fio's sequential reader made %d reads (10,000 at least)" % ios)
# Past the device's end fio starts again at 0: that read is neither consecutive nor
# sequential. A call lost on the way (a starved blktop: counted, lost_calls) leaves a
# gap that the next one is judged across (sequential, not consecutive): one fewer
# each, at most; with none lost, all of them.
want = ios - 1 - (ios - 1) // (size // 4096)
fr = f and (f[0]["call_reads"], f[0]["consec_reads"], f[0]["seq_reads"])
out(bool(f) and fr[0] + lost_calls >= ios and fr[0] <= ios and
    want - lost_calls <= fr[1] <= fr[2] <= want,
    "its file: %d reads, %d consecutive, less one for each of %d calls lost (%s)" % (
        ios, want, lost_calls, fr))
# The device's reads: fio's, and any of udev's probes of the new device before them. A
# request whose start the programs missed (no_lat: doc/performance.md, known limits) has
# no place in start order: it and the two it lands between are not judged consecutive.
rp = d and d[0]["request_pattern"]
out(bool(rp) and rp["consec_reads"] >= want - 3 * nolat - lost_reqs and
    rp["consec_reads"] <= rp["reads"] - 1,
    "its device's requests in start order: fio's %d consecutive at least, less 3 for each of "
    "%d without a start and one for each of %d lost (%s)" % (want, nolat, lost_reqs,
        rp and (rp["reads"], rp["consec_reads"])))
out(t["pattern_late"] == 0, "no call judged out of order (%d; requests %d, judged early: calls %d, "
    "requests %d)" % (t["pattern_late"], t["requests_judged_late"], t["pattern_early"],
                      t["requests_judged_early"]))
PY
