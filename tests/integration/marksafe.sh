#!/bin/bash
# marksafe.sh: blktop --mark against a hostile local user and a stopped blktop
# (issue 41, items 8 and 9): it never blocks, it hands a label only to a
# blktop that proves it is one (the kernel's SO_PEERCRED of its socket: pid
# of the name, this user or root), it says which did not take it, and a live
# run whose mark socket name another user took says so.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd setpriv util-linux

LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
NOB=65534
chmod 711 "$TEST_TMP"
mkdir -m 777 "$TEST_TMP/h"
# Names of pids that do not run here (pid_max is at most 4194304).
FAKE_READ=4194301 FAKE_FULL=4194302
for p in $FAKE_READ $FAKE_FULL; do [ -d /proc/$p ] && { skip "pid $p runs here"; exit 0; }; done

# The hostile user: binds @blktop-mark.FAKE_READ and its own pid's name (both
# socket types), reads all it is sent into got.txt; binds @blktop-mark.FAKE_FULL
# (both types) and fills the datagram queue, never reading nor accepting.
setpriv --reuid=$NOB --regid=$NOB --clear-groups /usr/bin/python3 - "$TEST_TMP/h" $FAKE_READ $FAKE_FULL <<'PY' &
import os, select, signal, socket, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)	# a background job's SIGINT is ignored: cleanup sends it
d, fr, ff = sys.argv[1:]
A = lambda n: "\0blktop-mark." + str(n)
rd = []
for n in (fr, os.getpid()):
    g = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); g.bind(A(n)); rd.append(g)
    q = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); q.bind(A(n)); q.listen(64); rd.append(q)
full = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); full.bind(A(ff))
fq = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); fq.bind(A(ff)); fq.listen(0)
# fill: the full queues, once the test asks for them (d/fill).
def fill():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.setblocking(False)
    n = 0
    try:
        while True:
            s.sendto(b"filler", A(ff)); n += 1
    except BlockingIOError:
        pass
    # The seqpacket backlog too: connections never accepted.
    for i in range(4):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); c.setblocking(False)
        try:
            c.connect(A(ff)); held.append(c)
        except BlockingIOError:
            break
    open(d + "/full", "w").write("%d\n" % n)
held = []
out = open(d + "/got.txt", "ab", buffering=0)
open(d + "/ready", "w").write("%d\n" % os.getpid())
while True:
    if not held and os.path.exists(d + "/fill"):
        fill()
    r, _, _ = select.select(rd, [], [], 0.1)
    for x in r:
        if x.type == socket.SOCK_SEQPACKET and x in rd[:4] and x.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            c, _ = x.accept(); rd.append(c)
        else:
            try:
                m = x.recv(4096)
            except OSError:
                m = b""
            if m:
                out.write(m + b"\n")
            elif x.type == socket.SOCK_SEQPACKET:
                rd.remove(x); x.close()
PY
HPID=$!
TEST_PIDS="$TEST_PIDS $HPID"
wait_for "$TEST_TMP/h/ready" 10 || fail "the hostile binder started"

"$BLKTOP" -J -d 0.5 -D "$DEV" --no-vfs >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" 30 || fail "live: first report within 30 s"

# mark LABEL: blktop --mark under timeout 8: "status seconds"; output in mark.out, mark.err.
mark() {
	local t0 st
	t0=$(date +%s%N)
	timeout 8 "$BLKTOP" --mark "$1" >"$TEST_TMP/mark.out" 2>"$TEST_TMP/mark.err"
	st=$?
	echo "$st $(( ($(date +%s%N) - t0) / 1000000 ))"
}
LABEL="secret-label-$$"
read -r st ms <<<"$(mark "$LABEL")"
check "hostile binders: it reached blktop $bpid ($(tr '\n' ' ' <"$TEST_TMP/mark.out"))" \
    grep -qx "mark sent to blktop $bpid" "$TEST_TMP/mark.out"
check "hostile binders: not one label reached them ($(wc -l <"$TEST_TMP/h/got.txt") received)" \
    [ ! -s "$TEST_TMP/h/got.txt" ]
check "hostile binders: each said, not sent ($(head -c 400 "$TEST_TMP/mark.err" | tr '\n' '|'))" \
    grep -q "@blktop-mark.$FAKE_READ is held by pid $HPID of uid $NOB.*not sent" "$TEST_TMP/mark.err"
# Now a queue that is full and never read.
touch "$TEST_TMP/h/fill"
wait_for "$TEST_TMP/h/full" 10 || fail "the hostile binder filled its queue"
read -r st ms <<<"$(mark "$LABEL-2")"
check "a full queue never read: --mark ends (exit $st, ${ms} ms; 124 is timeout's)" [ "$st" = 0 ]

# A stopped blktop (Ctrl-Z): every --mark ends; past its queue each says it is not reading.
kill -STOP "$bpid"
nsent=0 nhung=0 nsaid=0
for i in $(seq 14); do
	read -r st ms <<<"$(mark "stopped $i")"
	[ "$st" = 124 ] && nhung=$((nhung + 1))
	grep -qx "mark sent to blktop $bpid" "$TEST_TMP/mark.out" && nsent=$((nsent + 1))
	grep -q "blktop $bpid is not reading marks" "$TEST_TMP/mark.err" && nsaid=$((nsaid + 1))
done
kill -CONT "$bpid"
check "stopped blktop: 14 --mark, none hung ($nhung), $nsent queued, $nsaid said 'not reading marks'" \
    [ "$nhung" = 0 -a "$nsaid" -ge 1 -a $((nsent + nsaid)) = 14 ]
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
python3 - "$TEST_TMP/live.jsonl" "$LABEL" "$nsent" <<'PY'
import json, sys
marks = [m["label"] for l in open(sys.argv[1], encoding="utf-8") for m in json.loads(l)["marks"]]
st = [m for m in marks if m.startswith("stopped ")]
ok = marks[:2] == [sys.argv[2], sys.argv[2] + "-2"] and len(st) == int(sys.argv[3]) and st == ["stopped %d" % i for i in range(1, len(st) + 1)]
print(("PASS: " if ok else "FAIL: ") + "marksafe: the run took the first two marks and every mark said sent "
      "while it was stopped, in order, none lost (%d of %s: %s)" % (len(st), sys.argv[3], marks[:3]))
PY

# A live run whose mark socket name is taken (the hostile user binds it first): it says so.
mkfifo "$TEST_TMP/go"
sh -c 'echo $$ >"$1"; read x <"$2"; exec "$3" -J -d 0.5 -D "$4" --no-vfs' sh "$TEST_TMP/bpid" \
    "$TEST_TMP/go" "$BLKTOP" "$DEV" >"$TEST_TMP/taken.jsonl" 2>"$TEST_TMP/taken.err" &
tpid=$!
TEST_PIDS="$TEST_PIDS $tpid"
wait_for "$TEST_TMP/bpid" 10
setpriv --reuid=$NOB --regid=$NOB --clear-groups /usr/bin/python3 -c '
import signal, socket, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("\0blktop-mark." + sys.argv[1])
open(sys.argv[2], "w").write("bound\n"); time.sleep(60)' "$tpid" "$TEST_TMP/h/squat" &
spid=$!
TEST_PIDS="$TEST_PIDS $spid"
wait_for "$TEST_TMP/h/squat" 10 || fail "the squatter bound @blktop-mark.$tpid"
echo go >"$TEST_TMP/go"
wait_for "$TEST_TMP/taken.jsonl" 30 || fail "taken: first report within 30 s"
check "taken: the run says its mark socket is taken ($(head -c 200 "$TEST_TMP/taken.err"))" \
    grep -q "mark socket @blktop-mark.$tpid is taken by another process: marks off" "$TEST_TMP/taken.err"
read -r st ms <<<"$(mark "to-the-squatter-$$")"
check "taken: --mark hands the squatter nothing and says so ($(grep "$tpid" "$TEST_TMP/mark.err" | head -c 200))" \
    grep -q "@blktop-mark.$tpid has no socket to prove it is a blktop: not sent" "$TEST_TMP/mark.err"
kill "$spid" 2>/dev/null
stop_bg "$tpid"
