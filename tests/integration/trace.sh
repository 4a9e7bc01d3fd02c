#!/bin/bash
# trace.sh: --trace, the Chrome Trace Event file for Perfetto: of the committed
# capture (against its own rows and batch reports), bounded by --trace-max,
# shifted by --trace-offset, refused where it must be; of a live run of fio
# (io_uring) and a workload of known calls, against the capture written
# beside it, fio's own counts and /proc/diskstats; loaded by a real viewer.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3

CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
CHECK=$BLKTOP_SRCDIR/tests/integration/trace_check.py
VIEW=$BLKTOP_SRCDIR/tests/viewer/trace-load.sh
STRUCT=$BLKTOP_SRCDIR/tests/viewer/check-trace.py
T=$TEST_TMP/small.json

# structure NAME FILE: the format's rules (tests/viewer/check-trace.py).
structure() {
	local o st
	o=$(python3 "$STRUCT" "$2" 2>&1)
	st=$?
	check "$1: valid, every event with ph, ts, pid, tid, each b with its e: $(echo "$o" | head -c 200)" \
	    [ "$st" = 0 ]
}

# ---- the committed capture
if user_part; then
check "-r --trace: exit 0 with no terminal" \
    sh -c "'$BLKTOP' -r '$CAP' --trace '$T' </dev/null >'$TEST_TMP/t.out' 2>&1"
check "the trace is 0600" [ "$(stat -c %a "$T")" = 600 ]
"$BLKTOP" -r "$CAP" --dump >"$TEST_TMP/dump.csv"
"$BLKTOP" -r "$CAP" -J >"$TEST_TMP/batch.jsonl"
structure "the capture's trace" "$T"
python3 "$CHECK" capture "$T" "$TEST_TMP/dump.csv" "$TEST_TMP/batch.jsonl"

# Bounded: 1 MB of a 12 MB trace; the slowest requests and the counters stay.
TM=$TEST_TMP/max.json
"$BLKTOP" -r "$CAP" --trace "$TM" --trace-max 1 </dev/null >/dev/null 2>"$TEST_TMP/max.err"
[ -s "$TM" ] && [ "$(stat -c %s "$TM")" -le 1048576 ]
check_status $? "--trace-max 1: exit 0, the file at most 1 MiB ($(stat -c %s "$TM" 2>&1) bytes)"
check "--trace-max 1: stderr says what was left out ($(head -c 200 "$TEST_TMP/max.err" | tr "\n" " "))" \
    grep -q "did not fit in --trace-max 1 MB: kept the slowest requests and a uniform sample" \
    "$TEST_TMP/max.err"
structure "the bounded trace" "$TM"
python3 "$CHECK" bounded "$TM" "$TEST_TMP/dump.csv" "$T"

# An imported log with no wall clock says so; a capture merged with a log has both.
FX=$BLKTOP_SRCDIR/tests/fixtures
"$BLKTOP" -r "$FX/import-issue.txt" --trace "$TEST_TMP/noclock.json" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$CAP" "$FX/import-vfs.txt" --trace "$TEST_TMP/merged.json" </dev/null >/dev/null 2>&1
python3 - "$TEST_TMP/noclock.json" "$TEST_TMP/merged.json" <<'PY' ||
import json, sys
a, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "trace: " + what)
o = a["otherData"]
out(o["clock"] == "none" and "no wall clock" in o["ts"] and o["requests_seen"] > 0,
    "a log without a clock: otherData says clock %s (%s)" % (o["clock"], o["ts"]))
k = {}
for e in m["traceEvents"]:
    k[e.get("cat")] = k.get(e.get("cat"), 0) + 1
out(m["otherData"]["clock"] == "wall" and k.get("block", 0) > 0 and k.get("io", 0) > 0,
    "a capture merged with a vfs log: its requests and the log's calls (%s)" % k)
PY
	fail "the clock checks stopped (a Python error above)"
# Shifted: every time by exactly the offset.
TO=$TEST_TMP/off.json
"$BLKTOP" -r "$CAP" --trace "$TO" --trace-offset -2.5 </dev/null >/dev/null 2>&1
python3 "$CHECK" offset "$TO" "$T" -2.5

# Refused, each with one line and a non-zero exit; nothing written over.
echo keep >"$TEST_TMP/exists.json"
ln -s "$TEST_TMP/target.json" "$TEST_TMP/link.json"
refused 1 "--trace over a file" -r "$CAP" --trace "$TEST_TMP/exists.json"
check "--trace over a file: the file is as it was" [ "$(cat "$TEST_TMP/exists.json")" = keep ]
refused 1 "--trace through a link" -r "$CAP" --trace "$TEST_TMP/link.json"
check "--trace through a link: nothing at the link's target" [ ! -e "$TEST_TMP/target.json" ]
refused 1 "--trace in no directory" -r "$CAP" --trace "$TEST_TMP/none/x.json"
refused 2 "--trace-max 0" -r "$CAP" --trace "$TEST_TMP/a.json" --trace-max 0
refused 2 "--trace-max 1x" -r "$CAP" --trace "$TEST_TMP/a.json" --trace-max 1x
# Past the bound: refused at parse (655361 wrapped the pool's count, 25000 failed
# calloc after the programs loaded).
for mb in 4097 25000 655361; do
	refused 2 "--trace-max $mb" -r "$CAP" --trace "$TEST_TMP/a.json" --trace-max $mb
	check "--trace-max $mb: the line names the bound" \
	    grep -q "^blktop: --trace-max: '$mb' is not a whole number from 1 to 4096" \
	    "$TEST_TMP/refused.out"
done
# Within 4096 but over half of the memory (a 2 GiB machine, made so by an
# LD_PRELOAD of sysconf): refused with the largest that fits; that one is taken.
if ${CC:-cc} -shared -fPIC -o "$TEST_TMP/physmem.so" "$BLKTOP_SRCDIR/tests/integration/physmem.c" \
    -ldl 2>"$TEST_TMP/cc.err"; then
	asan_was=${ASAN_OPTIONS-}
	export FAKE_PHYS_MB=2048 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	LD_PRELOAD=$TEST_TMP/physmem.so refused 2 "--trace-max 2000 on 2 GiB" -r "$CAP" \
	    --trace "$TEST_TMP/a.json" --trace-max 2000
	most=$(sed -n 's/.*over half of this machine.s 2048 MiB: at most \([0-9]*\) here.*/\1/p' \
	    "$TEST_TMP/refused.out")
	check "--trace-max 2000 on 2 GiB: the line says the most that fits (${most:-none})" \
	    [ "${most:-0}" -gt 1 -a "${most:-0}" -lt 2000 ]
	check "--trace-max ${most:-none} on 2 GiB: taken" bash -c 'LD_PRELOAD="$1" "$2" -r "$3" \
	    --trace "$4" --trace-max "$5" </dev/null >/dev/null 2>&1' - "$TEST_TMP/physmem.so" \
	    "$BLKTOP" "$CAP" "$TEST_TMP/most.json" "${most:-0}"
	unset FAKE_PHYS_MB
	ASAN_OPTIONS=$asan_was
else
	skip "--trace-max over half of the memory: no C compiler ($(head -c 100 "$TEST_TMP/cc.err"))"
fi
refused 2 "--trace-offset abc" -r "$CAP" --trace "$TEST_TMP/a.json" --trace-offset abc
refused 2 "--trace-offset 1e9" -r "$CAP" --trace "$TEST_TMP/a.json" --trace-offset 1e9
refused 2 "--trace-offset without --trace" -r "$CAP" --trace-offset 1
refused 2 "--trace with --dump" -r "$CAP" --dump --trace "$TEST_TMP/a.json"
refused 2 "--trace ''" -r "$CAP" --trace ''
check "no refused run left a file" [ ! -e "$TEST_TMP/a.json" ]
fi

# ---- the viewer: speedscope in headless Chromium (tests/viewer: it shows X
# slices only, so the live trace's calls are what it loads). Its harness first
# proves it tells a good file from broken ones (a check of the tier that needs
# no root; the live tier runs it only to know whether the viewer works).
need_cmd chromium chromium
viewer=1
out=$(bash "$BLKTOP_SRCDIR/tests/viewer/selftest.sh" 2>&1); st=$?
if [ "$st" = 2 ]; then
	skip "the viewer: $(echo "$out" | tail -1)"
	viewer=0
elif user_part; then
	check "the viewer harness loads a good file and rejects broken ones: $(echo "$out" | tail -1)" \
	    [ "$st" = 0 ]
fi

# ---- live: fio on io_uring and a workload of known calls, written beside a capture
need_root
need_cmd fio fio
need_cmd mkfs.ext4 e2fsprogs
ext4_on_loop 256 || exit 1
DEV=$(basename "$LOOP")
LT=$TEST_TMP/live.json
LC=$TEST_TMP/live.blkcap
# The workload runs in a cgroup of its own: the live trace holds every
# process's calls (beside another fio, tests/workload/noise.sh, the viewer had
# not loaded it in 59 s), so the viewer is given the capture's replay of the
# workload's cgroup alone (--cgroup), its processes named as they ran.
V2=$(sed -n 's/^[0-9]* [0-9]* [^ ]* \/ \([^ ]*\) .* - cgroup2 .*/\1/p' /proc/self/mountinfo | head -1)
CG=$V2/blktop-test-$$-trace
mkdir "$CG" || { fail "live: a cgroup of its own"; exit 1; }
trap 'rmdir "$CG" 2>/dev/null; test_cleanup' EXIT
# in_cg CMD...: CMD in the test's cgroup.
in_cg() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"; }
"$BLKTOP" -J -d 1 -D "$DEV" --trace "$LT" -w "$LC" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "live: first report within $START_S s"
in_cg fio --name=tr --filename="$MNT/f" --size=16M --direct=1 --ioengine=io_uring --iodepth=8 \
    --bs=4k --rw=randread --number_ios=3000 --randseed=11 --output-format=json \
    >"$TEST_TMP/fio.json" 2>"$TEST_TMP/fio.err"
# trwork: 1 MiB written in 4 KiB writes, one fsync, 256 preads of it (cached).
in_cg python3 - "$MNT/g" >"$TEST_TMP/work.out" <<'PY'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"trwork", 0, 0, 0)
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o600)
for i in range(256):
    os.write(fd, b"x" * 4096)
os.fsync(fd)
os.close(fd)
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(256):
    os.pread(fd, 4096, i * 4096)
os.close(fd)
print(os.getpid())
PY
sleep 2.5
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT, trace written" [ "$st" = 0 -a -s "$LT" ]
"$BLKTOP" -r "$LC" --dump >"$TEST_TMP/live.csv"
RT=$TEST_TMP/replay.json
"$BLKTOP" -r "$LC" --trace "$RT" </dev/null >/dev/null 2>&1
structure "the live trace" "$LT"
python3 "$CHECK" live "$LT" "$TEST_TMP/live.csv" "$TEST_TMP/live.jsonl" "$TEST_TMP/fio.json" \
    "$(cat "$TEST_TMP/work.out")" "$MNT" "$DEV" "$RT"
if [ "$viewer" = 1 ]; then
	"$BLKTOP" -r "$LC" --cgroup "$CG" --trace "$TEST_TMP/view.json" </dev/null >/dev/null 2>&1
	out=$("$VIEW" "$TEST_TMP/view.json" trwork fio pread64 fsync 2>&1); st=$?
	check "speedscope loads the live run's trace (its cgroup's) and shows trwork, fio, pread64, fsync: $(echo "$out" | tail -1 | head -c 240)" \
	    [ "$st" = 0 ]
fi
