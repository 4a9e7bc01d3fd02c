#!/bin/bash
# stack.sh: blktop --stack beside MLPerf Storage's storage_latency_stack.bt
# (issue 44, part 1), on the same run: the test's own copy of the script
# (storage_latency_stack.bt here: its header says what changed) under this
# machine's bpftrace, and blktop --stack -J, around fio on a loop device in
# /dev/shm: direct reads and writes, then buffered writes with an fsync every
# 4 writes. Each histogram both define the same way is compared bucket by
# bucket; the capture of the run replays to the same figures, in the
# script's text layout.
#
# Bounds, not equality, and why: the script has no device or process filter
# for its block side, so whatever else the machine does in its window is in
# its histograms. bpftrace starts after blktop and stops before it, so for
# every bucket: blktop's figure for the test's own device (or fio's own
# process) <= the script's <= blktop's figure for all devices (or every
# process named fio), each side +- an edge allowance of 2 + 2% of the
# figure's count; and a time may be one bucket apart (stamps up to about
# 1 us apart, see below).
. "$BLKTOP_SRCDIR/tests/lib.sh"

# ---- no root: the committed captures' block figures, exactly, against the
# same computed here from --dump's rows (each request's dispatch ts - lat_ns,
# completion ts, start dispatch - queue_ns), and the depth at dispatch by
# counting, for each request, those of its direction dispatched no later and
# completed after its dispatch.
if user_part; then
need_cmd python3 python3
for f in small marks; do
	"$BLKTOP" -r "$BLKTOP_SRCDIR/tests/fixtures/$f.blkcap" --stack >"$TEST_TMP/$f.txt" 2>&1
	check "$f.blkcap: --stack" [ $? = 0 ]
	"$BLKTOP" -r "$BLKTOP_SRCDIR/tests/fixtures/$f.blkcap" --dump --format jsonl >"$TEST_TMP/$f.dump" 2>/dev/null
	python3 - "$TEST_TMP/$f.txt" "$TEST_TMP/$f.dump" "$f" <<'PY'
import json, re, sys, bisect
txt, dump, name = sys.argv[1:]
SFX = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
def num(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    return int(m.group(1)) * SFX[m.group(2)]
maps, cur = {}, None
for line in open(txt):
    m = re.match(r"^@(\w+): $", line.rstrip("\n"))
    if m:
        cur = maps.setdefault(m.group(1), {})
        continue
    m = re.match(r"^\[(\d+[KMG]?)(?:, [^)]*)?[\])]\s+(\d+) \|", line)
    if m and cur is not None and int(m.group(2)):
        cur[num(m.group(1))] = int(m.group(2))
def slot(v):
    return 0 if v == 0 else 1 if v == 1 else 1 << (v.bit_length() - 1)
want = {}
def add(k, v, lin=False):
    h = want.setdefault(k, {})
    b = (v // 10) * 10 if lin else slot(v)
    h[b] = h.get(b, 0) + 1
reqs = {0: [], 1: []}
for l in open(dump):
    r = json.loads(l)
    if r["type"] != "block" or r["op"] not in (0, 1):
        continue
    d = r["op"]
    k = "read" if d == 0 else "write"
    done = r["ts_ns"]; issue = done - r["lat_ns"]
    add("d2c_%s_us" % k, r["lat_ns"] // 1000)
    if r["op"] == 1 and r["flags"] & 8 and r["bytes"] == 0:
        continue
    add("bssplit_%s_kb" % k, r["bytes"] // 1024)
    add("lba_%s_gb" % k, r["sector"] >> 21, lin=True)
    if not r["flags"] & 256:
        add("q2d_%s_us" % k, r["queue_ns"] // 1000)
    reqs[d].append((issue, done))
for d, k in ((0, "read"), (1, "write")):
    starts = sorted(i for i, _ in reqs[d])
    dones = sorted(max(e, i + 1) for i, e in reqs[d])
    for i, _ in reqs[d]:
        add("qd_" + k, bisect.bisect_right(starts, i) - bisect.bisect_right(dones, i))
bad = [k for k in want if maps.get(k) != want[k]] + [k for k in maps if k not in want]
print(("PASS: " if want and not bad else "FAIL: ") + "stack: %s.blkcap: %d maps as computed from --dump%s"
      % (name, len(want), (": differ " + " ".join(bad)) if bad else ""))
PY
done
fi

need_root
need_cmd fio fio
need_cmd python3 python3
need_cmd bpftrace bpftrace

BT=$BLKTOP_SRCDIR/tests/integration/storage_latency_stack.bt
LOOP=$(loop_create 256) || { fail "loop device"; exit 0; }
DEV=${LOOP#/dev/}

# blktop first (its window holds the script's), its first report says it is loaded.
"$BLKTOP" --stack -J -d 0.5 -c fio --all-files -w "$TEST_TMP/run.cap" \
    >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/blktop.err" &
BPID=$!
TEST_PIDS="$TEST_PIDS $BPID"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || { fail "blktop started"; cat "$TEST_TMP/blktop.err"; exit 0; }
# bpftrace's limit on locked memory: it asks for more than a test shell may have.
(ulimit -l unlimited 2>/dev/null; exec bpftrace "$BT" fio) >"$TEST_TMP/bt.txt" 2>"$TEST_TMP/bt.err" &
TPID=$!
TEST_PIDS="$TEST_PIDS $TPID"
i=0
while ! grep -q "^Attaching" "$TEST_TMP/bt.txt" "$TEST_TMP/bt.err" 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 3	# "Attaching N probes..." comes before the attach
# --thread: every job a thread of the one fio process, whose pid blktop's figures name.
fio --thread --name=dread --filename="$LOOP" --direct=1 --rw=randread --bs=4k --size=128M \
    --ioengine=sync --number_ios=3000 --output="$TEST_TMP/fio1.txt" &
FPID1=$!
wait "$FPID1"
fio --thread --name=dwrite --filename="$LOOP" --direct=1 --rw=randwrite --bs=16k --size=128M \
    --ioengine=sync --number_ios=1500 --output="$TEST_TMP/fio2.txt" &
FPID2=$!
wait "$FPID2"
fio --thread --name=bwrite --filename="$LOOP" --rw=write --bs=8k --size=4M \
    --ioengine=sync --fsync=4 --output-format=json --output="$TEST_TMP/fio3.json" &
FPID3=$!
wait "$FPID3"
sleep 1
kill -INT "$TPID"
wait "$TPID"
sleep 1
kill -INT "$BPID"
wait "$BPID"
check "blktop ran" [ $? = 0 ]
"$BLKTOP" -r "$TEST_TMP/run.cap" --stack -c fio >"$TEST_TMP/replay.txt" 2>"$TEST_TMP/replay.err"
check "replay of the capture with --stack" [ $? = 0 ]
# Hosts (issue 45): the capture recorded again as two hosts and merged: each file
# fsynced and each process is its host's, with its capture's figures alone.
for h in a b; do
	"$BLKTOP" -r "$TEST_TMP/run.cap" -w "$TEST_TMP/host$h.cap" --hostname "stk$h" -J >/dev/null 2>&1
done
"$BLKTOP" -r "$TEST_TMP/run.cap" --stack -J -c fio 2>/dev/null | tail -1 >"$TEST_TMP/h-one.json"
"$BLKTOP" -r "$TEST_TMP/hosta.cap" "$TEST_TMP/hostb.cap" --stack -J -c fio 2>/dev/null | tail -1 \
    >"$TEST_TMP/h-ab.json"
python3 - "$TEST_TMP" <<'PY'
import json, sys
t = sys.argv[1]
one, ab = (json.load(open(f"{t}/h-{n}.json"))["stack"] for n in ("one", "ab"))
HS = ("fsync_us", "write_to_fsync_us", "dirty_to_fsync_us")
fig = lambda x, hs: {k: (x[k]["n"], x[k]["buckets"]) for k in hs}
for what, key, hs in (("files", "path", HS), ("processes", "pid", HS + ("q2d_us", "d2c_us"))):
    alone = {x[key]: fig(x, hs) for x in one[what]}
    got = {(x.get("host"), x[key]): fig(x, hs) for x in ab[what]}
    want = {(h, k): v for h in ("stka", "stkb") for k, v in alone.items()}
    n = sum(v["fsync_us"][0] for v in alone.values())
    print(("PASS: " if n > 0 and got == want and len(ab[what]) == len(want) else "FAIL: ") +
          "stack: hosts: %s: the capture as two hosts merged: %d rows, one per host and %s, "
          "each with its capture's figures alone (%d fsyncs each host)" % (what, len(ab[what]), key, n))
PY

python3 - "$TEST_TMP" "$DEV" "$FPID1 $FPID2 $FPID3" <<'PY'
import json, re, sys
tmp, dev, pids = sys.argv[1], sys.argv[2], [int(p) for p in sys.argv[3].split()]

def check(ok, text):
    print(("PASS: " if ok else "FAIL: ") + "stack: " + text)

SFX = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
def num(s):
    m = re.fullmatch(r"(\d+)([KMGT]?)", s)
    return int(m.group(1)) * SFX[m.group(2)]

def parse_bt(path):
    """bpftrace's maps as printed at exit: name -> {bucket low: count}."""
    maps, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^@(\w+): $", line.rstrip("\n"))
        if m:
            cur = maps.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\[(\d+[KMGT]?)(?:, (?:\d+[KMGT]?|\.\.\.))?[\])]\s+(\d+) \|", line)
        if m and cur is not None:
            if int(m.group(2)):
                cur[num(m.group(1))] = int(m.group(2))
        elif not line.strip() or not line.startswith("["):
            cur = None if not line.strip() else cur
    return maps

def js(h):
    return {lo: c for lo, c in h["buckets"]}

bt = parse_bt(tmp + "/bt.txt")
replay = parse_bt(tmp + "/replay.txt")
last = None
for line in open(tmp + "/live.jsonl"):
    last = json.loads(line)
st = last["stack"]
alld = st["all"]
mine = [d for d in st["devices"] if d["device"] == dev]
check(len(mine) == 1, "the test's device %s has a stack" % dev)
mine = mine[0] if mine else {}
procs = st["processes"]
ours = [p for p in procs if p["pid"] in pids]
check(len(ours) >= 3, "fio's three runs are processes of the stack (%d)" % len(ours))

def proc_sum(ps, key):
    out = {}
    for p in ps:
        for lo, c in p[key]["buckets"]:
            out[lo] = out.get(lo, 0) + c
    return out

# The script's own figures, and where blktop's bounds for each come from.
BLOCK = ["d2c_read_us", "d2c_write_us", "bssplit_read_kb", "bssplit_write_kb",
         "lba_read_gb", "lba_write_gb"]
CALLS = ["vfs_read_us", "vfs_write_us", "fsync_us", "write_to_fsync_us"]
def bounds(name):
    if name in BLOCK:
        return js(mine[name]), js(alld[name])
    return proc_sum(ours, name), proc_sum(procs, name)

for name in BLOCK + CALLS:
    lo, hi = bounds(name)
    got = bt.get(name, {})
    n = sum(lo.values())
    allow = 2 + n * 0.02
    keys = sorted(set(lo) | set(hi) | set(got))
    bad = []
    # Summed over buckets up to each edge: a request moved to the next bucket by
    # a stamp difference moves the prefix sum by one, not two buckets by one each.
    # Times: blktop's request stamps are the kernel's (bpf/kstamps.h; since
    # 6.9 the time cached in the submitter's plug), the script's its own
    # clock in the tracepoint: within 1 us for 99.6% of requests
    # (doc/tracing.md). A call's entry and exit are stamped by both tools'
    # programs on the same syscall tracepoints, one after the other, blktop's
    # run time (about 1 us) between them. On this loop device requests take
    # 2-30 us and calls 1-30 us, so 1 us is up to one power of two: each
    # time may sit one bucket apart, and below 2 us is not compared.
    shift = 2 if name.endswith("_us") else 1
    def prefix(h, k):
        return sum(c for b, c in h.items() if b <= k)
    for k in keys:
        if name.endswith("_us") and k < 2:
            continue
        plo, phi, pgot = prefix(lo, k // shift), prefix(hi, k * shift), prefix(got, k)
        if not (plo - allow <= pgot <= phi + allow):
            bad.append("<=%s: %d not in [%d, %d]" % (k, pgot, plo, phi))
    check(n > 0 and not bad,
          "%s: the script's %d (blktop: %d on %s or fio's own, %d on all) within bounds +-%.0f%s"
          % (name, sum(got.values()), n, dev, sum(hi.values()), allow,
             (": " + "; ".join(bad[:4])) if bad else ""))

# The workload's known counts: 3000 reads of 4 KiB, 1500 writes of 16 KiB, 512 buffered writes, 128 fsyncs.
check(js(mine["bssplit_read_kb"]).get(4, 0) >= 3000, "3000 direct reads of 4 KiB on the device")
check(js(mine["bssplit_write_kb"]).get(16, 0) >= 1500, "1500 direct writes of 16 KiB on the device")
syncs = json.load(open(tmp + "/fio3.json"))["jobs"][0]["sync"]["total_ios"]
f = proc_sum(ours, "fsync_us")
check(syncs > 100 and sum(f.values()) == syncs, "fio's %d fsyncs (%d)" % (syncs, sum(f.values())))
g = proc_sum(ours, "write_to_fsync_us")
check(sum(g.values()) == syncs, "a write-to-fsync gap per fsync (%d)" % sum(g.values()))
d = proc_sum(ours, "dirty_to_fsync_us")
check(sum(d.values()) == syncs, "a dirty-to-fsync gap per fsync (%d)" % sum(d.values()))
fl = [x for x in st["files"] if x["path"] == "/dev/" + dev]
check(len(fl) == 1 and fl[0]["fsync_us"]["n"] == syncs and fl[0]["dirty_to_fsync_us"]["n"] == syncs,
      "the file /dev/%s: its fsyncs and dirty-to-fsync gaps, fio's %d (%s)"
      % (dev, syncs, [(x["fsync_us"]["n"], x["dirty_to_fsync_us"]["n"]) for x in fl]))
check(min(d) >= min(g), "a file's first write is never later than a thread's last before the fsync")
# Depth at dispatch: global per direction in the script; with nothing else on the machine equal to ours.
# A request whose record came more than the sweep's lag (1 s) after its
# dispatch (a busy machine's ring buffer) has no depth: counted in "late".
qd = js(mine["qd_read"])
check(sum(qd.values()) + st["late"] >= 3000 and st["late"] <= 30 and
      qd.get(1, 0) >= 0.95 * sum(qd.values()),
      "fio's sync reads found themselves alone in flight at dispatch (qd 1: %d of %d, late %d)"
      % (qd.get(1, 0), sum(qd.values()), st["late"]))

# The layout: every row as bpftrace writes one (label in 16, count in 8, " |", 52 wide bar, "|").
ROW = re.compile(r"^[\[(][^ ]*(?: [^ ]+)?[\])] *\d+ \|[@ ]{52}\|$")
def rows(path):
    return [l.rstrip("\n") for l in open(path, errors="replace") if l.startswith(("[", "(..."))]
rb, rr = rows(tmp + "/bt.txt"), rows(tmp + "/replay.txt")
check(rb and all(ROW.match(l) and len(l) == 79 for l in rb), "the rows of bpftrace's own output (%d)" % len(rb))
check(rr and all(ROW.match(l) and len(l) == 79 for l in rr), "the replay's rows in that layout (%d)" % len(rr))
# (blktop's own @dirty_to_fsync_us comes after them, under a comment line)
heads = [l for l in open(tmp + "/replay.txt") if l.startswith("@") and "dirty_to" not in l]
check(len(heads) >= 12 and heads == sorted(heads) and all(l.endswith(": \n") for l in heads),
      "maps by name, each headed \"@name: \" as bpftrace prints them")

# The replay's text, in the script's layout, holds the live run's last figures exactly.
for name in BLOCK + CALLS + ["q2d_read_us", "q2d_write_us", "qd_read", "qd_write"]:
    src = alld if name in alld else st["all"]
    live = js(src[name])
    check(replay.get(name, {}) == live, "replay: @%s as the live run's (%d)" % (name, sum(live.values())))
PY

# The UI's stack screen (L) on the capture replayed to its end, and the HTML
# report of it: the file fsynced, the fsyncing process and all, as -J's
# "stack" object and --stack's rule lines of the same replay.
PY=$BLKTOP_SRCDIR/tests/integration/stack_screen.py
"$BLKTOP" -r "$TEST_TMP/run.cap" --stack -J -c fio </dev/null >"$TEST_TMP/replay.jsonl" 2>>"$TEST_TMP/replay.err"
"$BLKTOP" -r "$TEST_TMP/run.cap" -c fio --report "$TEST_TMP/r.html" </dev/null >/dev/null 2>"$TEST_TMP/h.err"
check "the HTML report of the capture" [ $? = 0 ]
python3 "$PY" --html "$TEST_TMP/r.html" "$TEST_TMP/replay.jsonl" "$TEST_TMP/replay.txt" stack ||
    fail "the report's stack section: the checks stopped"
if command -v tmux >/dev/null; then
	tmux_setup
	key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 60 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $TEST_TMP/run.cap -c fio --speed max 2>$TEST_TMP/ui.err; sleep 600"
	wait_screen 30 "^blktop .* end *$" || fail "ui: the replay did not reach its end: $(head -c 200 "$TEST_TMP/ui.err")"
	key L
	check "ui: L opens the stack screen" wait_screen 5 "^all devices and processes \(1 of"
	screen >"$TEST_TMP/ui-all.txt"
	python3 "$PY" "$TEST_TMP/ui-all.txt" "$TEST_TMP/replay.jsonl" "$TEST_TMP/replay.txt" all stack ||
	    fail "ui all: the checks stopped"
	# Up from all: the last scope, the one file fsynced.
	key Up
	check "ui: Up from all: the file fsynced" wait_screen 5 "^file /"
	f=$(screen | sed -n 's/^file \(.*\) ([0-9]* of [0-9]*).*/\1/p')
	screen >"$TEST_TMP/ui-file.txt"
	python3 "$PY" "$TEST_TMP/ui-file.txt" "$TEST_TMP/replay.jsonl" "$TEST_TMP/replay.txt" "file:$f" stack ||
	    fail "ui file: the checks stopped"
	# The fsyncing process: its place among the scopes, after all and the devices.
	n=$(python3 -c 'import json,sys; s=json.loads(open(sys.argv[1]).read().splitlines()[-1])["stack"]; print(len(s["devices"]) + [p["pid"] for p in s["processes"]].index(int(sys.argv[2])) + 1)' "$TEST_TMP/replay.jsonl" "$FPID3")
	key Down
	for _ in $(seq "$n"); do key Down; done
	check "ui: Down $n times from all: the process $FPID3" wait_screen 5 "^process .*\[$FPID3\] "
	screen >"$TEST_TMP/ui-proc.txt"
	python3 "$PY" "$TEST_TMP/ui-proc.txt" "$TEST_TMP/replay.jsonl" "$TEST_TMP/replay.txt" "pid:$FPID3" stack ||
	    fail "ui process: the checks stopped"
fi
