#!/bin/bash
# throttle.sh: dirtiers paused by the kernel (writeback:balance_dirty_pages)
# and the rule writeback-storm. A dd writes 48 MiB through the page cache of
# an ext4 whose device takes writes at 16 MB/s (the blkio throttle of the root
# cgroup, which the flusher's writeback obeys), with an 8 MiB dirty limit: the
# kernel pauses dd for most of its run. Checked against the tracepoint itself
# (tracefs, enabled beside blktop: every pause of dd's, and their sum), on -J,
# --report, the replay and --dump; a reader beside it is not paused, and
# writeback-storm fires on dd only. The machine's dirty limits and the
# throttle are put back on every exit path.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
need_cmd dd coreutils

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
THR=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
if [ ! -w "$THR" ]; then
	fail "no cgroup v1 blkio write throttle ($THR) to slow the device"
	exit 1
fi
if [ ! -d "$T/events/writeback/balance_dirty_pages" ]; then
	fail "no writeback:balance_dirty_pages tracepoint in tracefs"
	exit 1
fi
ext4_on_loop 128 || exit 1
MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
RATIO=$(cat /proc/sys/vm/dirty_ratio)
BRATIO=$(cat /proc/sys/vm/dirty_background_ratio)
BYTES=$(cat /proc/sys/vm/dirty_bytes)
BBYTES=$(cat /proc/sys/vm/dirty_background_bytes)
restore() {
	echo 0 >"$T/events/writeback/balance_dirty_pages/enable"
	# Writing a ratio clears the byte limit, and the other way round.
	if [ "$BYTES" != 0 ]; then echo "$BYTES" >/proc/sys/vm/dirty_bytes
	else echo "$RATIO" >/proc/sys/vm/dirty_ratio; fi
	if [ "$BBYTES" != 0 ]; then echo "$BBYTES" >/proc/sys/vm/dirty_background_bytes
	else echo "$BRATIO" >/proc/sys/vm/dirty_background_ratio; fi
	echo "$MM 0" >"$THR" 2>/dev/null
	test_cleanup
}
trap restore EXIT
head -c $((4 << 20)) /dev/urandom >"$MNT/read.dat"
sync

C=$TEST_TMP/t.blkcap
"$BLKTOP" -J -d 0.5 -c dd -c python3 -w "$C" --report "$TEST_TMP/r.json" >"$TEST_TMP/j.jsonl" \
    2>"$TEST_TMP/j.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/j.jsonl" "$START_S" || fail "blktop -J started: $(head -c 300 "$TEST_TMP/j.err")"
echo > "$T/trace"
echo 1 >"$T/events/writeback/balance_dirty_pages/enable"
echo "$MM 16777216" >"$THR"
echo $((8 << 20)) >/proc/sys/vm/dirty_bytes
echo $((2 << 20)) >/proc/sys/vm/dirty_background_bytes
# The reader: 4 MiB in 64 KiB reads, 20 ms apart, while dd writes.
python3 - "$MNT/read.dat" <<'PY' &
import os, sys, time
f = os.open(sys.argv[1], os.O_RDONLY)
while os.read(f, 65536):
    time.sleep(0.02)
PY
rpid=$!
dd if=/dev/zero of="$MNT/big" bs=1M count=48 2>"$TEST_TMP/dd.err" &
ddpid=$!
wait "$ddpid"; ddst=$?
wait "$rpid"
echo 0 >"$T/events/writeback/balance_dirty_pages/enable"
cp "$T/trace" "$TEST_TMP/trace.txt"
restore_now() { echo "$MM 0" >"$THR"; }
restore_now
sync
sleep 1
stop_bg "$bpid"; st=$?
check "live: dd exits $ddst, blktop $st at SIGINT, nothing on stderr" \
    [ "$ddst" = 0 -a "$st" = 0 -a ! -s "$TEST_TMP/j.err" ]
"$BLKTOP" -r "$C" --report "$TEST_TMP/r2.json" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$C" --dump >"$TEST_TMP/dump.csv" 2>/dev/null
python3 - "$TEST_TMP" "$ddpid" "$rpid" <<'PY' || fail "the checks stopped (a Python error above)"
import csv, json, re, sys
tmp, dd, rd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "throttle: " + what)
# The truth: the tracepoint's own lines of dd's pauses (pause > 0: a sleep).
n = ms = 0
for l in open(tmp + "/trace.txt"):
    m = re.search(r"-(\d+)\s+\[.*balance_dirty_pages:.* pause=(-?\d+)", l)
    if m and int(m.group(1)) == dd and int(m.group(2)) > 0:
        n += 1
        ms += int(m.group(2))
out(n >= 10 and ms >= 1000, "the workload: tracefs shows dd paused %d times for %d ms" % (n, ms))
def procs(path):
    j = json.load(open(path)) if path.endswith(".json") else [json.loads(l) for l in open(path) if l.strip()][-1]
    return j, {p["pid"]: p for p in j["processes"]}
for src, path in (("--report", tmp + "/r.json"), ("replay --report", tmp + "/r2.json")):
    j, P = procs(path)
    d, r = P.get(dd, {}), P.get(rd, {})
    out(d.get("throttles") == n and d.get("throttled_ms") == ms,
        "%s: dd's throttles %s and throttled_ms %s are the tracepoint's %d and %d"
        % (src, d.get("throttles"), d.get("throttled_ms"), n, ms))
    out(r.get("throttles") == 0 and r.get("throttled_ms") == 0 and r.get("call_reads", 0) >= 64,
        "%s: the reader (%s reads) was never paused: 0, not null" % (src, r.get("call_reads")))
    ws = [i for i in j["insights"] if i["code"] == "writeback-storm"]
    out(len(ws) == 1 and ws[0]["pid"] == dd and ws[0]["calls"] == n and ws[0]["figure"] > 0.5,
        "%s: writeback-storm fires on dd only (%s)" % (src, [(i["pid"], i["measured"]) for i in ws]))
# -J: the intervals' throttles add up to the run's.
tot = 0
for l in open(tmp + "/j.jsonl"):
    for p in json.loads(l)["processes"]:
        if p["pid"] == dd:
            tot += p["throttles"] or 0
out(tot == n, "-J: dd's throttles over the intervals add up to %d (want %d)" % (tot, n))
rows = [r for r in csv.DictReader(open(tmp + "/dump.csv")) if r["type"] == "throttle"]
out(len(rows) == n and sum(int(r["lat_ns"]) for r in rows) == ms * 1000000 and
    all(int(r["tgid"]) == dd for r in rows),
    "--dump: %d throttle rows, each with its pause as lat_ns, all dd's" % len(rows))
PY
# A capture from before the pauses were traced says so: this run's, its
# plan's "+throttle" renamed (the header's CRC made again), replays with
# throttles null and "unavailable" saying why.
python3 - "$C" "$TEST_TMP/old.blkcap" <<'PY' || fail "the older capture's making stopped"
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", d, 12)[0]
body = bytes(d[20:20 + n])
assert body.count(b"+throttle") == 1, body[:200]
body = body.replace(b"+throttle", b"+throttlx")
d[20:20 + n] = body
struct.pack_into("<I", d, 16, zlib.crc32(body))
open(sys.argv[2], "wb").write(d)
PY
"$BLKTOP" -r "$TEST_TMP/old.blkcap" -J -d 3600 </dev/null >"$TEST_TMP/old.jsonl" 2>"$TEST_TMP/old.err"
python3 - "$TEST_TMP/old.jsonl" "$ddpid" <<'PY' || fail "the older capture's checks stopped (a Python error above)"
import json, sys
j = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
ps = j["processes"]
why = j.get("unavailable", {}).get("throttle")
print(("PASS: " if ps and all(p["throttles"] is None and p["throttled_ms"] is None for p in ps)
       and why and not [i for i in j["insights"] if i["code"] == "writeback-storm"] else "FAIL: ") +
      "throttle: a capture without the pauses: throttles null, no writeback-storm, and "
      "\"unavailable\" says why (%s)" % why)
PY
