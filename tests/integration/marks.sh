#!/bin/bash
# marks.sh: blktop --mark into a live run: the marks in -J (within a tick of
# the command), the capture, the trace and the report; the statistics of each
# phase between marks against the capture's own rows (--dump) of that phase;
# the replay's -J the live one's; a mark from Python's socket; one from
# another user refused; the heatmap's triangle in the UI; bad labels.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3

# ---- bad input: one line, a non-zero exit
if user_part; then
refused 2 "--mark ''" --mark ''
refused 2 "--mark of 128 bytes" --mark "$(printf 'x%.0s' $(seq 128))"
refused 2 "--mark with -J" --mark x -J
refused 2 "--mark with an argument" --mark x y
if ! grep -q " @blktop-mark\." /proc/net/unix; then
	refused 1 "--mark with no blktop running" --mark x
fi
fi

need_root
need_cmd fio fio
LOOP=$(loop_create 128) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
C=$TEST_TMP/m.blkcap
T=$TEST_TMP/m.json
R=$TEST_TMP/r.json
"$BLKTOP" -J -d 0.5 -D "$DEV" --no-vfs -w "$C" --trace "$T" --report "$R" \
    >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "live: first report within $START_S s"
# mark LABEL: blktop --mark, with the wall time just before and after it.
mark() {
	local t0 t1 out
	t0=$(date +%s.%N)
	out=$("$BLKTOP" --mark "$1" 2>/dev/null)
	t1=$(date +%s.%N)
	echo "$t0 $t1" >>"$TEST_TMP/sent"
	# Other blktops may run beside this test: its own line is what counts.
	check "--mark '$1': said whom it reached ($out)" grep -qx "mark sent to blktop $bpid" <<<"$out"
}
fio --name=a --filename="$LOOP" --direct=1 --rw=randread --bs=4k --number_ios=1500 \
    --size=64M --randseed=3 >/dev/null 2>&1
mark "epoch 1"
fio --name=b --filename="$LOOP" --direct=1 --rw=read --bs=64k --number_ios=400 \
    --size=64M >/dev/null 2>&1
fio --name=c --filename="$LOOP" --direct=1 --rw=randwrite --bs=4k --number_ios=700 \
    --size=64M --randseed=4 >/dev/null 2>&1
mark "époque 2 — écritures"
# A training script's way: one datagram to the socket, no blktop binary.
python3 - "$bpid" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"from python\n", "\0blktop-mark." + sys.argv[1])
PY
sleep 0.6
# Another user's mark is refused.
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$bpid" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"not yours", "\0blktop-mark." + sys.argv[1])
PY
fio --name=d --filename="$LOOP" --direct=1 --rw=randread --bs=16k --number_ios=500 \
    --size=64M --randseed=5 >/dev/null 2>&1
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
check "another user's mark refused, and said ($(grep -c 'mark refused' "$TEST_TMP/live.err"))" \
    grep -q "mark refused: from a user who is neither root nor blktop's" "$TEST_TMP/live.err"
"$BLKTOP" -r "$C" --dump >"$TEST_TMP/dump.csv"
"$BLKTOP" -r "$C" -J -d 0.5 >"$TEST_TMP/replay.jsonl"
"$BLKTOP" -r "$C" --report "$TEST_TMP/r.html" </dev/null >/dev/null 2>&1
python3 - "$TEST_TMP/live.jsonl" "$TEST_TMP/dump.csv" "$TEST_TMP/replay.jsonl" "$T" "$R" \
    "$TEST_TMP/r.html" "$TEST_TMP/sent" "$DEV" "$BLKTOP_SRCDIR/doc/blktop.schema.json" <<'PY' ||
import csv, json, sys
live, dump, replay, trace, rep, html, sent, dev, schema = sys.argv[1:]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "marks: " + what)
J = [json.loads(l) for l in open(live, encoding="utf-8")]
rows = list(csv.DictReader(open(dump, encoding="utf-8")))
want = ["epoch 1", "époque 2 — écritures", "from python"]
marks = [m for j in J for m in j["marks"]]
out([m["label"] for m in marks] == want, "-J's marks: %s" % [m["label"] for m in marks])
# Within a tick (0.5 s) of the command: from its start to a tick after its end. The
# mark's time is when blktop takes it, after a drain; --mark sends without waiting
# for that, so it may exit first (a CI run of the debug build: 17.5 and 11.0 ms
# after the command's start, past its end).
times = [tuple(map(float, l.split())) for l in open(sent)]
lat = [m["ts"] - t0 for m, (t0, t1) in zip(marks, times)]
ok = all(t0 <= m["ts"] <= t1 + 0.5 for m, (t0, t1) in zip(marks, times))
out(ok and len(times) == 2, "each --mark's time is from the command's start to a tick after its end "
    "(mark latency from the command: %s ms)" % ", ".join("%.1f" % (x * 1e3) for x in lat))
# Each mark in the report of the interval it fell in.
ok = all(j["ts"] - j["interval_s"] - 0.001 <= m["ts"] <= j["ts"] + 0.001 for j in J for m in j["marks"])
out(ok, "each mark in the -J interval that holds its time")
dm = [r for r in rows if r["type"] == "mark"]
out([r["label"] for r in dm] == want and all(int(r["pid"]) > 0 for r in dm),
    "the capture holds the marks, with their senders: %s" % [(r["label"], r["pid"]) for r in dm])
# Per phase, from the capture's own rows between its marks.
phases, cur = [], {"rows": [], "start": None}
for r in rows:
    if r["type"] == "mark":
        phases.append(cur)
        cur = {"rows": [], "start": r}
    elif r["type"] == "block" and r["device"] == dev:
        cur["rows"].append(r)
phases.append(cur)
jp = [p for j in J for p in j.get("phases", [])]
out(len(jp) == 4 and [p["label"] for p in jp] == [None] + want,
    "-J closed 4 phases: %s" % [p["label"] for p in jp])
def pct(v, p):
    v = sorted(v)
    if not v:
        return None
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (k - lo)
bad = []
for i, (p, d) in enumerate(zip(jp, phases)):
    devs = {x["name"]: x for x in p["devices"]}
    rs = d["rows"]
    if not rs:
        if dev in devs:
            bad.append("phase %d has %s without rows" % (i, dev))
        continue
    x = devs.get(dev)
    if x is None:
        bad.append("phase %d: no %s" % (i, dev)); continue
    aw = [(int(r["lat_ns"]) + int(r["queue_ns"])) / 1e3 for r in rs]
    rb = sum(int(r["bytes"]) for r in rs if r["op"] == "0")
    wb = sum(int(r["bytes"]) for r in rs if r["op"] == "1")
    if (x["ios"], x["read_bytes"], x["write_bytes"]) != (len(rs), rb, wb):
        bad.append("phase %d: %s ios/bytes %s; rows %s" % (i, dev, (x["ios"], x["read_bytes"], x["write_bytes"]), (len(rs), rb, wb)))
    a = x["await_us"]
    if abs(a["mean"] - sum(aw) / len(aw)) > 0.06 or abs(a["max"] - max(aw)) > 0.06:
        bad.append("phase %d: mean/max %s %s; rows %.2f %.2f" % (i, a["mean"], a["max"], sum(aw) / len(aw), max(aw)))
    for q in (50, 90, 99):
        e = pct(aw, q)
        if abs(a["p%d" % q] - e) > e / 8 + 1:
            bad.append("phase %d: p%d %s; rows %.1f" % (i, q, a["p%d" % q], e))
    dur = p["duration_s"]
    if abs(x["mb_s"] - (rb + wb) / dur / 1e6) > 0.002 or abs(x["aqu_sz"] - sum(aw) / 1e6 / dur) > 0.002:
        bad.append("phase %d: MB/s %s aqu-sz %s; rows %.3f %.3f" % (i, x["mb_s"], x["aqu_sz"], (rb + wb) / dur / 1e6, sum(aw) / 1e6 / dur))
n = sum(len(d["rows"]) for d in phases)
out(not bad and n > 3000, "each phase's requests, bytes, MB/s, aqu-sz and await (mean, max exact; "
    "p50/p90/p99 within their bucket) equal the capture's %d rows of it%s" % (n, ": " + "; ".join(bad[:3]) if bad else ""))
out([p["start"] for p in jp[1:]] == [m["ts"] for m in marks] and
    all(abs(jp[k]["end"] - jp[k + 1]["start"]) < 1e-6 for k in range(3)),
    "the phases start at their marks, each where the last ended")
R = [json.loads(l) for l in open(replay, encoding="utf-8")]
out([m for j in R for m in j["marks"]] == marks and [p for j in R for p in j.get("phases", [])] == jp,
    "the capture's replay gives the same marks and phases in -J")
rj = json.load(open(rep))
out(rj["marks"] == marks and rj["phases"] == jp, "--report OUT.json has the same marks and phases")
h = open(html, encoding="utf-8").read()
out("<h2>Phases</h2>" in h and all(w in h for w in ("epoch 1", "époque 2 — écritures", "from python")),
    "the HTML report's Phases table names each phase")
out(h.count('<g class="mark">') == 3, "the HTML report's heatmap has a line per mark (%d)" % h.count('<g class="mark">'))
tr = json.load(open(trace))
ti = [e for e in tr["traceEvents"] if e.get("cat") == "mark"]
tp = [e for e in tr["traceEvents"] if e.get("cat") == "phase"]
out([e["name"] for e in ti] == want and all(abs(e["ts"] - m["ts"] * 1e6) < 2 for e, m in zip(ti, marks)),
    "the trace has the marks as instants at their times (%d)" % len(ti))
out([e["name"] for e in tp] == ["(before the first mark)"] + want and
    all(abs(e["dur"] / 1e6 - p["duration_s"]) < 1e-5 for e, p in zip(tp, jp)),
    "the trace has the phases as slices of their lengths (%d)" % len(tp))
try:
    import jsonschema
    v = jsonschema.Draft202012Validator(json.load(open(schema)))
    errs = [e.message for j in J + [rj] for e in v.iter_errors(j)]
    out(not errs, "-J and the report validate against the schema%s" % (": " + errs[0][:200] if errs else ""))
except ImportError:
    out(False, "python3-jsonschema is missing")
PY
	fail "the checks of the live run stopped (a Python error above)"
# ---- the UI shows where the marks fell: a triangle over their heatmap columns
need_cmd tmux tmux
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s ui -x 150 -y 40 "'$BLKTOP' -r '$C' --speed max"
wait_screen 20 " end" || fail "the UI: the replay's end within 20 s"
check "the UI's heatmap marks the columns of the marks: $(screen | grep -o '▾' | wc -l) triangles" \
    wait_screen 5 '▾'
