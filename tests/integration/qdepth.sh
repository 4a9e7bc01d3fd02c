#!/bin/bash
# qdepth.sh: the queue depth a workload reached, and what it cost (issue 44,
# item 2): fio's libaio random reads at iodepth 1, 4, 32 and 128 (2 s each) on
# a /dev/shm loop device under blktop -J with a capture; the same checks on
# the live reports and on the capture's replay, which must be the live
# reports byte for byte (less "self").
#
# How blktop's depths are compared with fio's (fio's buckets 1, 2, 4, 8, 16,
# 32, >=64; blktop's 64-127 and 128+ folded into fio's ">=64"):
# - fio counts an I/O in flight from its submission until it reaps it, the
#   block layer from the request's start to its completion: every request in
#   flight at the block layer is fio's, so blktop's depth can never be above
#   fio's. So: (a) blktop's highest depth (max) is the configured depth and
#   its highest bucket is fio's top bucket; (b) for every fio bucket edge k,
#   the share of requests blktop saw at a depth >= k is at most fio's share
#   at >= k, plus 0.7 points (fio prints each bucket under 0.1% as 0.1, 7
#   buckets); (c) at iodepth 1 both are 100% depth 1.
# - The depth-at-start and depth-at-dispatch histograms, and the mean and
#   p50/p99 total latency and bytes per depth bucket (by_depth), equal a
#   sweep over the requests' own start, dispatch and completion times in the
#   capture's --dump (an independent computation, in Python): counts and
#   bytes exactly, the mean within 0.05 us (JSON's 1 decimal).
# - The fio process's mean depth (req_depth, its requests' start-to-done
#   time over the interval) times the interval, summed over the run, is the
#   kernel's own time_in_queue delta of the device (/proc/diskstats field 11;
#   fio is the device's only submitter), within 5 ms per report (req_depth's
#   2 decimals over 1 s) + 1 ms (the kernel's ms) + 2 us a request (blktop's
#   completion stamp is taken at block_rq_complete, before the kernel's
#   accounting takes its own: 0.8 us a request shorter, 266 ms of 181 s seen
#   over 333k requests; 0.6-0.9 us over whole runs, more on a busier machine;
#   the 1% once allowed was 0.87-1.9% of it); and it is at most the configured
#   depth in every interval. It is NOT near the configured depth on this
#   device: a request on a /dev/shm loop completes in microseconds, and fio
#   spends most of each cycle in user space reaping and refilling, so the
#   block layer holds 0.3-0.6 requests at iodepth 1 and a sawtooth from 1 to
#   N at iodepth N (fio's own Little's law depth, its IOPS times its mean
#   latency, counts that user-space time in flight and is the configured
#   depth). That gap is what the figure is for (CacheLib #303).
# - The fio process's depth reached (req_depth_max, the most of its requests
#   in flight at once) is the configured depth in each run (fio keeps N
#   submitted from the start, and the block layer holds all N at the first
#   submission), and each fio process's maximum over the reports equals an
#   independent sweep over its requests' start and completion times.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd python3 python3

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
sleep 1

# tiq NAME: a device's time_in_queue, ms (/proc/diskstats field 11).
tiq() {
	awk -v n="$1" '$3 == n { print $14 }' /proc/diskstats
}

out=$TEST_TMP/live.jsonl
"$BLKTOP" -J -d 1 -D "$DEV" --no-vfs --top 50 -w "$TEST_TMP/qd.blkcap" >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || fail "first report within $START_S s"
tiq "$DEV" >"$TEST_TMP/tiq.before"
for q in 1 4 32 128; do
	fio --output-format=json --output="$TEST_TMP/fio$q.json" --filename="$LOOP" \
	    --name=qd$q --direct=1 --ioengine=libaio --iodepth="$q" --rw=randread --bs=4k \
	    --size=200M --time_based --runtime=2 >"$TEST_TMP/fio.err" 2>&1 ||
	    { fail "QD $q: fio ran"; cat "$TEST_TMP/fio.err"; }
	sleep 4	# idle reports between the runs (depths are final 250 ms late; under load reports come late)
done
tiq "$DEV" >"$TEST_TMP/tiq.after"
sleep 1.2
kill -INT "$pid"
wait "$pid"
check "blktop exits 0" [ $? = 0 ]
check "nothing on stderr" [ ! -s "$out.err" ]
cat "$out.err"
"$BLKTOP" -r "$TEST_TMP/qd.blkcap" -J --top 50 >"$TEST_TMP/replay.jsonl" 2>&1
noself "$out" >"$TEST_TMP/a"
noself "$TEST_TMP/replay.jsonl" >"$TEST_TMP/b"
check "the replay's reports are the live ones" cmp -s "$TEST_TMP/a" "$TEST_TMP/b"
"$BLKTOP" -r "$TEST_TMP/qd.blkcap" --dump >"$TEST_TMP/qd.csv" 2>&1

# judge FILE TAG: the checks of one run's reports (live or replay).
judge() {
	python3 - "$1" "$DEV" "$TEST_TMP" "$(cat "$TEST_TMP/tiq.before")" \
	    "$(cat "$TEST_TMP/tiq.after")" "$2" <<'PY' || fail "$2: the checker ran to its end"
import bisect, csv, json, sys
path, dev, tmp, tiq0, tiq1, tag = sys.argv[1:7]
def result(name, ok, detail):
    print("%s: qdepth %s: %s (%s)" % ("PASS" if ok else "FAIL", tag, name, detail))
def bucket(k):
    return 1 << (k.bit_length() - 1)
# The reports, each fio run's by its job name (fio's processes are all "fio":
# a run is the reports between two idle ones).
runs, cur = [], None
late = 0
pidmax = {}
for line in open(path):
    r = json.loads(line)
    for d in r["devices"]:
        if d["name"] != dev:
            continue
        q = d["qd"]
        late += q.get("late", 0)
        # requests with times: one without (an empty flush, no_lat) finds no depth
        ios = sum(d[o]["ios"] - d[o]["no_lat"] for o in ("read", "write", "other"))
        fio = [p for p in r["processes"] if p["comm"] == "fio"]
        busy = ios > 0 or q.get("hist")
        if busy and cur is None:
            cur = {"hist": {}, "disp": {}, "by": {}, "max": 0, "maxd": 0, "ios": 0,
                   "bytes": 0, "depth_ms": 0.0, "means": [], "pmax": 0}
            runs.append(cur)
        if not busy:
            cur = None
            continue
        for h in q.get("hist", []):
            cur["hist"][h["lo"]] = cur["hist"].get(h["lo"], 0) + h["count"]
        for h in q.get("hist_dispatch", []):
            cur["disp"][h["lo"]] = cur["disp"].get(h["lo"], 0) + h["count"]
        for b in q.get("by_depth", []):
            c = cur["by"].setdefault(b["lo"], [0, 0, 0.0])
            c[0] += b["count"]; c[1] += b["bytes"]; c[2] += b["await_us"]["avg"] * b["count"]
        cur["max"] = max(cur["max"], q["max"])
        cur["maxd"] = max(cur["maxd"], q.get("max_dispatch") or 0)
        cur["ios"] += ios
        cur["bytes"] += d["read"]["bytes"] + d["write"]["bytes"] + d["other"]["bytes"]
        for p in fio:
            if p["req_depth_max"] is not None:
                cur["pmax"] = max(cur["pmax"], p["req_depth_max"])
                pidmax[p["pid"]] = max(pidmax.get(p["pid"], 0), p["req_depth_max"])
            if p["req_depth"] is not None:
                # over the interval's ticks: one of 1 s (-d 1)
                cur["depth_ms"] += p["req_depth"] * 1000.0
                cur["means"].append(p["req_depth"])
result("no depth came late", late == 0, "late %d" % late)
result("four fio runs seen", len(runs) == 4, "%d runs" % len(runs))
# The independent sweep over the capture's requests.
reqs, byproc = [], {}
for r in csv.DictReader(open(tmp + "/qd.csv")):
    if r["type"] != "block" or r["device"] != dev or int(r["flags"]) & 1024:
        continue
    d = int(r["ts_ns"]); lat = int(r["lat_ns"]); s = d - lat - int(r["queue_ns"])
    d = max(d, s + 1)
    i = min(max(d - lat, s), d - 1)
    reqs.append((s, i, d, int(r["bytes"])))
    if r["comm"] == "fio":
        byproc.setdefault(int(r["tgid"]), []).append((s, d))
reqs.sort()
starts = [x[0] for x in reqs]
issues = sorted(x[1] for x in reqs)
dones = sorted(x[2] for x in reqs)
tiq_blktop = 0.0
for n, (q, run) in enumerate(zip((1, 4, 32, 128), runs)):
    lv = json.load(open("%s/fio%d.json" % (tmp, q)))["jobs"][0]["iodepth_level"]
    # (a) the max and the top bucket
    top = max(run["hist"]) if run["hist"] else None
    fio_top = max((int(k.strip(">=")) for k, v in lv.items() if v > 0.5), default=None)
    result("QD %d: depth max is fio's iodepth (at start, at dispatch)" % q,
           run["max"] == q and run["maxd"] == q, "start %d dispatch %d" % (run["max"], run["maxd"]))
    result("QD %d: the highest bucket is fio's top bucket (%s)" % (q, fio_top),
           top is not None and min(top, 64) == fio_top, "blktop %s" % sorted(run["hist"].items()))
    # (b) never above fio's distribution
    tot = sum(run["hist"].values())
    worst = ""
    ok = tot > 0
    for k in (1, 2, 4, 8, 16, 32, 64):
        mine = 100.0 * sum(v for lo, v in run["hist"].items() if lo >= k) / max(tot, 1)
        theirs = sum(v for kk, v in lv.items() if int(kk.strip(">=")) >= k)
        if mine > theirs + 0.7:
            ok = False
            worst += " >=%d: %.2f%% > fio %.2f%%" % (k, mine, theirs)
    result("QD %d: no depth share above fio's" % q, ok, worst.strip() or "%d depths" % tot)
    if q == 1:
        result("QD 1: every depth 1, as fio's", run["hist"] == {1: tot} and lv["1"] == 100.0,
               "blktop %s fio %s" % (sorted(run["hist"].items()), lv["1"]))
    result("QD %d: a depth at start and at dispatch for every timed request" % q,
           tot == run["ios"] and sum(run["disp"].values()) == run["ios"],
           "%d starts %d dispatches %d requests" % (tot, sum(run["disp"].values()), run["ios"]))
    # the fio process's mean depth
    result("QD %d: fio's mean depth at most its iodepth" % q,
           run["means"] and max(run["means"]) <= q + 0.01, "means %s" % run["means"])
    tiq_blktop += run["depth_ms"]
    # the fio process's depth reached (req_depth_max): the configured depth
    result("QD %d: fio's depth reached (req_depth_max) is its iodepth" % q,
           run["pmax"] == q, "req_depth_max %d" % run["pmax"])
# The sweep: every request's depth at start and at dispatch, by_depth's sums.
want, wdisp, wby = {}, {}, {}
for s, i, d, nb in reqs:
    k = bucket(bisect.bisect_right(starts, s) - bisect.bisect_right(dones, s))
    want[k] = want.get(k, 0) + 1
    c = wby.setdefault(k, [0, 0, 0])
    c[0] += 1; c[1] += nb; c[2] += d - s
    kd = bucket(bisect.bisect_right(issues, i) - bisect.bisect_right(dones, i))
    wdisp[kd] = wdisp.get(kd, 0) + 1
got, gdisp, gby = {}, {}, {}
for run in runs:
    for a, b in ((got, run["hist"]), (gdisp, run["disp"])):
        for k, v in b.items():
            a[k] = a.get(k, 0) + v
    for k, (c, nb, us) in run["by"].items():
        g = gby.setdefault(k, [0, 0, 0.0])
        g[0] += c; g[1] += nb; g[2] += us
# Each process's depth reached: the most of its requests holding one's start, by a sweep.
sweep = {}
for pid, rs in byproc.items():
    ps = sorted(x[0] for x in rs)
    pd = sorted(x[1] for x in rs)
    sweep[pid] = max(bisect.bisect_right(ps, s) - bisect.bisect_right(pd, s) for s, d in rs)
result("each process's req_depth_max over the reports equals a sweep of its requests",
       pidmax == sweep and len(sweep) >= 4, "blktop %s sweep %s" % (sorted(pidmax.items()),
       sorted(sweep.items())))
result("depth at start equals a sweep of the requests' times", got == want,
       "blktop %s sweep %s" % (sorted(got.items()), sorted(want.items())))
result("depth at dispatch equals a sweep of the dispatch times", gdisp == wdisp,
       "blktop %s sweep %s" % (sorted(gdisp.items()), sorted(wdisp.items())))
ok = sorted(gby) == sorted(wby)
bad = ""
for k in wby:
    if k not in gby:
        continue
    c, nb, ns = wby[k]
    g = gby[k]
    # a report's mean has 1 decimal: its sum is within 0.05 us per request
    if g[0] != c or g[1] != nb or abs(g[2] - ns / 1e3) > 0.05 * c + 0.01:
        ok = False
        bad += " %d: %s vs %s" % (k, g, [c, nb, ns / 1e3])
result("by_depth's counts, bytes and mean total latency equal the sweep's", ok,
       bad.strip() or "%d buckets" % len(wby))
tiq_kernel = int(tiq1) - int(tiq0)
nreq = sum(r["ios"] for r in runs)
result("fio's depth x time is the kernel's time_in_queue", abs(tiq_blktop - tiq_kernel) <=
       1.0 + 5.0 * sum(len(r["means"]) for r in runs) + 0.002 * nreq,
       "blktop %.1f ms kernel %d ms, %d requests: %.2f us a request" % (tiq_blktop, tiq_kernel,
       nreq, (tiq_kernel - tiq_blktop) * 1000.0 / max(nreq, 1)))
PY
}

judge "$out" live
judge "$TEST_TMP/replay.jsonl" replay

# -b prints the same depths per bucket as -J.
"$BLKTOP" -r "$TEST_TMP/qd.blkcap" -b >"$TEST_TMP/b.txt" 2>&1
want=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    for d in json.loads(line)["devices"]:
        if d["name"] == sys.argv[2]:
            n += sum(h["count"] for h in d["qd"].get("hist_dispatch", []))
print(n)' "$out" "$DEV")
got=$(awk -v d="$DEV" '$1 == d && NF == 8 && $2 ~ /^[0-9]+(-[0-9]+|\+)?$/ { n += $4 } END { print n + 0 }' "$TEST_TMP/b.txt")
check "-b's depth block: $got dispatches, -J's $want" [ "$got" = "$want" -a "$got" -gt 0 ]

# The UI's depth screen (D) over the capture, sought to its end: the
# requests that found depth 128-255 at their start, since the start, are
# -J's over the run (those depths were final reports before the end).
need_cmd tmux tmux
tmux_setup
want=$(python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    for d in json.loads(line)["devices"]:
        if d["name"] == sys.argv[2]:
            n += sum(h["count"] for h in d["qd"].get("hist", []) if h["lo"] == 128)
print(n)' "$out" "$DEV")
"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $TEST_TMP/qd.blkcap 2>$TEST_TMP/ui.err; echo \$? >$TEST_TMP/ui.exit; sleep 600"
check "UI: replay starts" wait_screen "$START_S" "$DEV"
"${TMUX_CMD[@]}" send-keys -t ui G
check "UI: G seeks to the end" wait_screen 20 "^blktop .* end *$"
"${TMUX_CMD[@]}" send-keys -t ui D
check "UI: D shows the depth screen" wait_screen 5 "Queue depth since the start"
got=$(screen | awk '$1 == "128-255" { print $2 }')
check "UI: depth 128-255 at start: $got, -J's $want" [ "$got" = "$want" -a "${want:-0}" -gt 0 ]
"${TMUX_CMD[@]}" send-keys -t ui x
gone() { local i=0; while [ "$i" -lt 50 ]; do screen | grep -q "Queue depth since" || return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
check "UI: a key closes it" gone
"${TMUX_CMD[@]}" send-keys -t ui q
i=0
while [ ! -s "$TEST_TMP/ui.exit" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "UI: q exits 0" [ "$(cat "$TEST_TMP/ui.exit" 2>/dev/null)" = 0 ]
