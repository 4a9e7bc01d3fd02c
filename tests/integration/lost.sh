#!/bin/bash
# lost.sh: loss in the units a user reconciles (issue 27, item 10). blktop is
# stopped (SIGSTOP) while 20000 direct writes go to a loop device, with a 64
# KiB ring buffer (BLKTOP_RINGBUF_KB) that fills within the first few hundred:
# the requests of its reports plus its lost_requests equal what
# /proc/diskstats counted, and lost_calls and lost_other stay apart.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root

LOOP=$(loop_create 128) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
sleep 1
base=$(diskstats "$DEV")
out=$TEST_TMP/live.jsonl
BLKTOP_RINGBUF_KB=64 "$BLKTOP" -J -d 1 -D "$DEV" >"$out" 2>"$out.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$out" "$START_S" || fail "first report within $START_S s (BPF loads in ~1 s idle, 10 s and more on a busy 2-CPU machine)"
kill -STOP "$bpid"
timeout 120 dd if=/dev/zero of="$LOOP" bs=4k count=20000 oflag=direct status=none
kill -CONT "$bpid"
sleep 3
kill -INT "$bpid"
wait "$bpid"
check "blktop exits 0" [ $? = 0 ]
after=$(diskstats "$DEV")
read -r r0 _ w0 _ d0 f0 _ <<<"$base"
read -r r1 _ w1 _ d1 f1 _ <<<"$after"
disk=$(( (r1 - r0) + (w1 - w0) + (d1 - d0) + (f1 - f0) ))
read -r ios lreq lcalls lother lost < <(python3 - "$out" "$DEV" <<'PY'
import json, sys
ios = lreq = lcalls = lother = lost = 0
for line in open(sys.argv[1]):
    j = json.loads(line)
    lreq += j["lost_requests"]; lcalls += j["lost_calls"]; lother += j["lost_other"]; lost += j["lost"]
    for d in j["devices"]:
        if d["name"] == sys.argv[2]:
            ios += d["read"]["ios"] + d["write"]["ios"] + d["other"]["ios"]
print(ios, lreq, lcalls, lother, lost)
PY
)
check "requests lost while stopped: $lreq of $disk" [ "$lreq" -gt 1000 ]
check "ios $ios + lost requests $lreq = $((ios + lreq)), /proc/diskstats $disk" [ $((ios + lreq)) = "$disk" ]
check "lost = requests + calls + other ($lost = $lreq + $lcalls + $lother)" [ "$lost" = $((lreq + lcalls + lother)) ]
check "the exit line splits the loss by unit ($(head -c 200 "$out.err"))" \
    grep -q "events lost in the kernel.*: $lreq block requests, $lcalls read/write calls, $lother other records" "$out.err"
