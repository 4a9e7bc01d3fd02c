#!/bin/bash
# partstat.sh: %util, aqu-sz and in-flight are the kernel's own part_stat
# (/proc/diskstats) deltas over a run, live and in the replay of its capture;
# the depth each request found at its start (qd.max, qd.hist) is fio's own
# iodepth at QD 1 and reaches fio's bucket at QD 32, and equals, bucket for
# bucket, a sweep over the requests' own times in the capture's --dump
# (issue 42, decision 3; issue 44, item 2).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
sleep 1

# part NAME: "io_ticks_ms time_in_queue_ms in_flight completions" of a device.
part() {
	awk -v n="$1" '$3 == n { print $13, $14, $12, $4 + $8 + $15 + $19 }' /proc/diskstats
}

# run_qd QD: fio's libaio random reads at depth QD under blktop -J with a
# capture; JSON in $TEST_TMP/qdQD.jsonl, fio's in .fio.json, the part_stat
# figures before and after in .before/.after.
run_qd() {
	local qd=$1 out=$TEST_TMP/qd$1.jsonl pid
	"$BLKTOP" -J -d 1 -D "$DEV" --no-vfs -w "$TEST_TMP/qd$qd.blkcap" >"$out" 2>"$out.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "QD $qd: first report within $START_S s"
	part "$DEV" >"$TEST_TMP/qd$qd.before"
	fio --output-format=json --output="$TEST_TMP/qd$qd.fio.json" --filename="$LOOP" \
	    --name=r --direct=1 --ioengine=libaio --iodepth="$qd" --rw=randread --bs=4k \
	    --size=200M --io_size=$((qd == 1 ? 12 : 80))M >"$TEST_TMP/fio.err" 2>&1 ||
	    { fail "QD $qd: fio ran"; cat "$TEST_TMP/fio.err"; }
	sleep 0.5
	part "$DEV" >"$TEST_TMP/qd$qd.after"
	sleep 1.2	# a tick past the workload, so a tick's sample holds its end
	kill -INT "$pid"
	wait "$pid"
	check "QD $qd: blktop exits 0" [ $? = 0 ]
	check "QD $qd: nothing on stderr" [ ! -s "$out.err" ]
	cat "$out.err"
	"$BLKTOP" -r "$TEST_TMP/qd$qd.blkcap" -J >"$TEST_TMP/qd$qd.replay.jsonl" 2>&1
	noself "$out" >"$TEST_TMP/a"
	noself "$TEST_TMP/qd$qd.replay.jsonl" >"$TEST_TMP/b"
	check "QD $qd: the replay's reports are the live ones" cmp -s "$TEST_TMP/a" "$TEST_TMP/b"
	"$BLKTOP" -r "$TEST_TMP/qd$qd.blkcap" --dump >"$TEST_TMP/qd$qd.csv" 2>&1
}

# judge QD FILE: the checks of one run's reports (live or replay).
judge() {
	python3 - "$2" "$DEV" "$1" "$(cat "$TEST_TMP/qd$1.before")" "$(cat "$TEST_TMP/qd$1.after")" \
	    "$TEST_TMP/qd$1.fio.json" "$TEST_TMP/qd$1.csv" "$3" <<'PY'
import bisect, csv, json, sys
path, dev, qd, before, after, fio, dump, tag = sys.argv[1:9]
qd = int(qd)
b = [int(x) for x in before.split()]
a = [int(x) for x in after.split()]
def result(name, ok, detail):
    print("%s: partstat: QD %d %s: %s (%s)" % ("PASS" if ok else "FAIL", qd, tag, name, detail))
busy = tiq = 0.0
ios = lost = late = reports = nolat = 0
qd_max = 0
hist = {}
inflight = None
for line in open(path):
    r = json.loads(line)
    lost += r["lost"]
    for d in r["devices"]:
        if d["name"] != dev:
            continue
        reports += 1
        busy += d["util_pct"] / 100.0 * r["interval_s"] * 1000.0
        tiq += d["qd"]["avg"] * r["interval_s"] * 1000.0
        ios += d["read"]["ios"] + d["write"]["ios"] + d["other"]["ios"]
        nolat += sum(d[o].get("no_lat", 0) for o in ("read", "write", "other"))
        qd_max = max(qd_max, d["qd"]["max"])
        late += d["qd"].get("late", 0)
        inflight = d["qd"].get("in_flight")
        for h in d["qd"].get("hist", []):
            hist[h["lo"]] = hist.get(h["lo"], 0) + h["count"]
result("no lost events", lost == 0, "lost %d" % lost)
result("requests equal /proc/diskstats' completions", ios == a[3] - b[3],
       "blktop %d diskstats %d" % (ios, a[3] - b[3]))
# util_pct has 2 decimals and qd.avg 3: a report's rounding is at most
# 0.05 ms of busy time and 0.5 ms of queue time.
result("busy time (%util) equals io_ticks' delta", abs(busy - (a[0] - b[0])) <= 0.05 * reports + 0.01,
       "blktop %.2f ms diskstats %d ms" % (busy, a[0] - b[0]))
result("queue time (aqu-sz) equals time_in_queue's delta", abs(tiq - (a[1] - b[1])) <= 0.5 * reports + 0.01,
       "blktop %.2f ms diskstats %d ms" % (tiq, a[1] - b[1]))
result("in flight at the last sample equals /proc/diskstats'", inflight == a[2],
       "blktop %s diskstats %d" % (inflight, a[2]))
with open(fio) as f:
    levels = json.load(f)["jobs"][0]["iodepth_level"]
# fio's buckets: "1", "2" (2-3), "4" (4-7), ... "32" (32-63), ">=64".
fio_bucket = max(levels, key=lambda k: levels[k])
n = sum(hist.values())
# A request without times (no_lat: an empty flush, or one whose start was not
# seen) finds no depth, as in qdepth.sh.
result("a depth for every request with times", n == ios - nolat and late == 0,
       "%d depths, %d requests, %d without times, %d late" % (n, ios, nolat, late))
result("depth max is fio's iodepth", qd_max == qd, "blktop %d fio %d" % (qd_max, qd))
result("the highest depth bucket is fio's (%s: %.2f%%)" % (fio_bucket, levels[fio_bucket]),
       str(max(hist) if hist else None) == fio_bucket and (qd > 1 or hist.get(1) == n),
       "blktop %s" % sorted(hist.items()))
# The same depths from the capture's own records, by a sweep of their times.
starts, dones, reqs = [], [], []
for r in csv.DictReader(open(dump)):
    if r["type"] != "block" or r["device"] != dev or int(r["flags"]) & 1024:
        continue
    d = int(r["ts_ns"]); s = d - int(r["lat_ns"]) - int(r["queue_ns"])
    reqs.append((s, max(d, s + 1)))
starts = sorted(s for s, _ in reqs)
dones = sorted(d for _, d in reqs)
want = {}
for s, _ in reqs:
    k = bisect.bisect_right(starts, s) - bisect.bisect_right(dones, s)
    want[1 << (k.bit_length() - 1)] = want.get(1 << (k.bit_length() - 1), 0) + 1
result("depth histogram equals a sweep of the requests' times", want == hist,
       "blktop %s sweep %s" % (sorted(hist.items()), sorted(want.items())))
PY
}

for q in 1 32; do
	run_qd "$q"
	judge "$q" "$TEST_TMP/qd$q.jsonl" live
	judge "$q" "$TEST_TMP/qd$q.replay.jsonl" replay
done
