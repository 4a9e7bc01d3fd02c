#!/bin/bash
# cachehit.sh: cache_hit_pct (hit% in the UI) counts O_DIRECT reads as the
# device's (issue 41, item 4: a file read only with O_DIRECT showed 100).
# ext4 on a loop device in /dev/shm; each reader a dd of its own: f1 read
# with iflag=direct (every byte from the device: 0); f2 read through the page
# cache, twice (the second reader's 100, less what the kernel read of it
# again, which its own disk bytes show: other tests on the machine drop the
# caches when they like); f3's first MiB read through the cache twice, its
# second with O_DIRECT (the file's 3 MiB read: 100 less the bytes from the
# device, the O_DIRECT MiB and the fills, per byte read). Checked on live
# -J's reports, and on the capture's replay as one report, in -J and
# --report OUT.json. blktop records dd's calls alone (-c dd): other tests' fio
# jobs beside this one lose it no events.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
ext4_on_loop 64 || exit 0
for f in f1 f2 f3; do
	head -c $((4 << 20)) /dev/urandom >"$MNT/$f"
done
sync

C=$TEST_TMP/c.blkcap
"$BLKTOP" -J -d 0.5 --top 1000 -c dd -w "$C" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" 60 || fail "blktop started: $(head -c 300 "$TEST_TMP/live.err")"
# reader NAME DD-ARGS...: one dd, its pid in $TEST_TMP/NAME.pid.
reader() {
	local name=$1 pid
	shift
	LC_ALL=C dd of=/dev/null bs=64k status=none "$@" &
	pid=$!
	echo "$pid" >"$TEST_TMP/$name.pid"
	wait "$pid" || fail "dd $*"
}
reader direct if="$MNT/f1" iflag=direct
reader warm if="$MNT/f2"
reader cached if="$MNT/f2"
reader mixed0 if="$MNT/f3" count=16
reader mixed1 if="$MNT/f3" count=16
reader mixed2 if="$MNT/f3" iflag=direct count=16 skip=16
sleep 1.2
stop_bg "$bpid"
st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$C" -J -d 3600 --top 1000 >"$TEST_TMP/replay.jsonl" 2>"$TEST_TMP/replay.err"
st=$?
check "replay as one report: exit $st ($(head -c 200 "$TEST_TMP/replay.err"))" [ "$st" = 0 ]
"$BLKTOP" -r "$C" -o vfs_read_bytes --report "$TEST_TMP/rep.json" </dev/null >/dev/null 2>"$TEST_TMP/rep.err"
st=$?
check "replay's --report OUT.json: exit $st ($(head -c 200 "$TEST_TMP/rep.err"))" [ "$st" = 0 ]
"$BLKTOP" -r "$C" --trace "$TEST_TMP/t.json" </dev/null >/dev/null 2>"$TEST_TMP/t.err"
st=$?
check "replay's --trace: exit $st ($(head -c 200 "$TEST_TMP/t.err"))" [ "$st" = 0 ]

# The UI's files pane on the replay, stepped tick by tick: f1's row, while it shows,
# has hit% 0 (its header's column), not 100.
if command -v tmux >/dev/null; then
	tmux_setup
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 50 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $C --speed 0.5 2>$TEST_TMP/ui.err; sleep 600"
	wait_screen 20 "Devices|Processes" || fail "the UI started: $(head -c 200 "$TEST_TMP/ui.err")"
	# Paused, from the start, a tick at a time: f1 shows whatever the load
	# (at half speed, a UI slow to start had played past it: FAIL beside a suite).
	"${TMUX_CMD[@]}" send-keys -t ui Space g 3
	seen=0
	for _ in $(seq 1 400); do
		screen | grep -qE " $MNT/f1\$" && { seen=1; break; }
		"${TMUX_CMD[@]}" send-keys -t ui .
		sleep 0.05
	done
	[ "$seen" = 1 ] || fail "the UI's files pane showed f1"
	screen >"$TEST_TMP/ui.txt"
	python3 - "$TEST_NAME" "$TEST_TMP/ui.txt" "$MNT/f1" <<'PY'
import sys
name, shot, path = sys.argv[1:4]
lines = open(shot).read().splitlines()
head = [l.split() for l in lines if "hit%" in l]
row = [l.split() for l in lines if l.rstrip().endswith(" " + path)]
col = head[0].index("hit%") if head else None
got = row[0][col] if row and col is not None and len(row[0]) > col else None
print("%s: %s: UI files pane: f1's hit%% is 0 (%s: %s)" % ("PASS" if got == "0" else "FAIL", name, got,
      " ".join(row[0]) if row else None))
PY
fi

python3 - "$TEST_NAME" "$TEST_TMP" "$MNT" <<'PY'
import json, sys
name, tmp, mnt = sys.argv[1:4]
MiB = 1 << 20
pids = {n: int(open("%s/%s.pid" % (tmp, n)).read()) for n in ("direct", "cached")}
def out(ok, what):
    print("%s: %s: %s" % ("PASS" if ok else "FAIL", name, what))
def hit(read, from_dev):
    """The share as doc/json.md defines it, to the one decimal -J prints."""
    return round(max(0.0, 100 * (1 - from_dev / read)), 1)

# Live -J, every report: f1's and its dd's hit 0 wherever they read, never 100.
f1, dd1 = [], []
for line in open(tmp + "/live.jsonl"):
    r = json.loads(line)
    f1 += [f["cache_hit_pct"] for f in r["files"] if f["path"] == mnt + "/f1" and f["call_read_bytes"]]
    dd1 += [(p["cache_hit_pct"], p["call_read_bytes"], p["disk_read_bytes"]) for p in r["processes"]
            if p["pid"] == pids["direct"] and p["call_read_bytes"]]
out(f1 and all(h == 0.0 for h in f1), "live -J: f1, read with O_DIRECT: hit 0 in each of its %d reports (%s)" %
    (len(f1), f1))
out(dd1 and all(h == hit(r, d) and h < 1 for h, r, d in dd1),
    "live -J: the O_DIRECT dd: hit 100 x (1 - disk/read bytes), under 1, in each of its %d reports (%s)" %
    (len(dd1), dd1))

# The run as one report: the replay with -d 3600, and its --report OUT.json.
def whole(what, rep):
    files = {f["path"]: f for f in rep["files"]}
    procs = {p["pid"]: p for p in rep["processes"]}
    f1, f2, f3 = (files.get(mnt + "/" + n, {}) for n in ("f1", "f2", "f3"))
    v = [f1.get(k) for k in ("call_read_bytes", "disk_read_bytes", "cache_hit_pct")]
    out(v == [4 * MiB, 4 * MiB, 0.0], "%s: f1: 4 MiB read with O_DIRECT, 4 MiB from the device: hit 0 (%s)" %
        (what, v))
    d = procs.get(pids["direct"], {})
    v = [d.get(k) for k in ("call_read_bytes", "disk_read_bytes", "cache_hit_pct")]
    out(None not in v and v[0] >= 4 * MiB and v[1] >= 4 * MiB and v[2] == hit(v[0], v[1]) and v[2] < 1,
        "%s: the O_DIRECT dd (its 4 MiB and what it read at start): hit under 1 (%s)" % (what, v))
    # f2: 8 MiB read through the cache, its disk bytes all fills.
    v = [f2.get(k) for k in ("call_read_bytes", "disk_read_bytes", "cache_hit_pct")]
    out(None not in v and v[0] == 8 * MiB and v[2] == hit(v[0], v[1]),
        "%s: f2, read through the cache twice: hit 100 x (1 - fills / read bytes) (%s)" % (what, v))
    c = procs.get(pids["cached"], {})
    v = [c.get(k) for k in ("call_read_bytes", "disk_read_bytes", "cache_hit_pct")]
    out(None not in v and v[0] >= 4 * MiB and v[1] <= MiB and v[2] == hit(v[0], v[1]) and v[2] >= 75,
        "%s: the second reader of f2, the file in the cache: hit 100 less what was read again (%s)" %
        (what, v))
    # f3: 2 MiB through the cache (fills: its disk bytes less the direct MiB), 1 MiB with O_DIRECT.
    v = [f3.get(k) for k in ("call_read_bytes", "disk_read_bytes", "cache_hit_pct")]
    out(None not in v and v[0] == 3 * MiB and v[1] >= MiB and v[2] == hit(3 * MiB, v[1]) and
        v[2] <= hit(3 * MiB, MiB),
        "%s: f3, 2 MiB through the cache and 1 MiB with O_DIRECT: hit 100 x (1 - (1 MiB + %s filled) "
        "/ 3 MiB) (%s)" % (what, v[1] - MiB if v[1] else None, v))
# --trace: the O_DIRECT dd's "cache" counter, each second it read, under 1.
t = json.load(open(tmp + "/t.json"))
ev = t["traceEvents"] if isinstance(t, dict) else t
h = [e["args"]["hit %"] for e in ev if e.get("ph") == "C" and e.get("name") == "cache" and
     e.get("pid") == pids["direct"]]
out(h and all(x < 1 for x in h), "--trace: the O_DIRECT dd's cache counter under 1 each time (%s)" % h)
reps = [json.loads(l) for l in open(tmp + "/replay.jsonl")]
out(len(reps) == 1, "the replay with -d 3600: one report (%d)" % len(reps))
if reps:
    whole("replay -J", reps[-1])
whole("replay --report OUT.json", json.load(open(tmp + "/rep.json")))
PY
