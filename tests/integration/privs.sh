#!/bin/bash
# privs.sh: once attached, blktop keeps no capability; through sudo it is the
# user who ran sudo, whose captures it creates; an ordinary user runs it
# through file capabilities.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd tmux tmux
need_cmd setpriv util-linux
need_cmd setcap libcap2-bin

tmux_setup

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
NOB=65534
chmod 711 "$TEST_TMP"
mkdir -m 755 "$TEST_TMP/user" && chown $NOB:$NOB "$TEST_TMP/user"
as_nobody() { setpriv --reuid=$NOB --regid=$NOB --clear-groups "$@"; }

# status_of PID: "uid-fields gid-fields CapEff CapPrm CapBnd NoNewPrivs" of a process.
status_of() {
	awk '/^Uid:/ { u = $2 "," $3 "," $4 "," $5 } /^Gid:/ { g = $2 "," $3 "," $4 "," $5 }
	    /^CapEff:/ { e = $2 } /^CapPrm:/ { p = $2 } /^CapBnd:/ { b = $2 }
	    /^NoNewPrivs:/ { n = $2 } END { print u, g, e, p, b, n }' "/proc/$1/status"
}
NOCAPS=0000000000000000

# reads_after FILE N: reports after the first N that counted reads on DEV.
reads_after() {
	python3 - "$1" "$2" "$DEV" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
print(sum(1 for r in rows for d in r["devices"] if d["name"] == sys.argv[3] and d["read"]["ios"] > 0))
PY
}

# ---- sudo: SUDO_UID/SUDO_GID as sudo sets them; -w creates the capture.
out=$TEST_TMP/sudo.jsonl
(cd "$TEST_TMP/user" && exec env SUDO_UID=$NOB SUDO_GID=$NOB SUDO_USER=nobody "$BLKTOP" -J -d 0.5 \
    -D "$DEV" -w "$TEST_TMP/user/sudo.blkcap") >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || fail "sudo: first report within $START_S s"
st=$(status_of "$pid")
check "sudo: runs as $NOB with no capabilities, no new privileges ($st)" \
    [ "$st" = "$NOB,$NOB,$NOB,$NOB $NOB,$NOB,$NOB,$NOB $NOCAPS $NOCAPS $NOCAPS 1" ]
n0=$(wc -l <"$out")
fio --filename="$LOOP" --direct=1 --ioengine=psync --name=p --rw=randread --bs=4k \
    --size=200M --runtime=1.5 --time_based >"$TEST_TMP/fio.out" 2>&1 || fail "fio ran"
sleep 0.6
kill -INT "$pid"
wait "$pid"
check "sudo: exits 0 (links closed without privileges)" [ $? = 0 ]
check "sudo: nothing on stderr: $(head -c 200 "$out.err")" [ ! -s "$out.err" ]
check "sudo: the live view went on after the drop ($(reads_after "$out" "$n0") reports with reads)" \
    [ "$(reads_after "$out" "$n0")" -ge 2 ]
check "sudo: the capture belongs to $NOB, mode 600 ($(stat -c '%u:%g %a' "$TEST_TMP/user/sudo.blkcap"))" \
    [ "$(stat -c '%u:%g %a' "$TEST_TMP/user/sudo.blkcap")" = "$NOB:$NOB 600" ]
as_nobody "$BLKTOP" -r "$TEST_TMP/user/sudo.blkcap" -J 2>"$TEST_TMP/replay.err" | noself >"$TEST_TMP/replay.jsonl"
check "sudo: that user replays it without privileges, the same reports" \
    cmp -s "$TEST_TMP/replay.jsonl" <(noself "$out")

# A root-only directory is out of reach once dropped: one line, exit 1.
mkdir -m 700 "$TEST_TMP/rootonly"
env SUDO_UID=$NOB SUDO_GID=$NOB "$BLKTOP" -J -n 1 -D "$DEV" -w "$TEST_TMP/rootonly/x.blkcap" \
    >/dev/null 2>"$TEST_TMP/ro.err"
st=$?
check "sudo: -w in a directory the user cannot write: exit 1, one line ($(head -c 160 "$TEST_TMP/ro.err"))" \
    [ "$st" = 1 -a "$(wc -l <"$TEST_TMP/ro.err")" = 1 -a ! -e "$TEST_TMP/rootonly/x.blkcap" ]
env SUDO_UID=abc SUDO_GID=$NOB "$BLKTOP" -J -n 1 -D "$DEV" >/dev/null 2>"$TEST_TMP/bad.err"
st=$?
[ "$st" = 1 ] && grep -q 'SUDO_UID' "$TEST_TMP/bad.err"
check_status $? "sudo: a SUDO_UID that is no id: refused, not run as root ($(head -c 160 "$TEST_TMP/bad.err"))"

# SUDO_UID as sudo writes it, of a user that exists; else one line, exit 1,
# before anything loads (issue 27, item 11). 01001 is not 1001 to every
# reader; 4294967294 and 99999 are no user here.
for su in 01001 4294967294 99999 +65534 " 65534" 65534x; do
	case $su in 4294967294|99999)
		getent passwd "$su" >/dev/null 2>&1 && { skip "SUDO_UID $su: a user has it here"; continue; } ;;
	esac
	start=$(date +%s%N)
	env SUDO_UID="$su" SUDO_GID=$NOB "$BLKTOP" -J -n 1 -D "$DEV" >"$TEST_TMP/su.out" 2>"$TEST_TMP/su.err"
	st=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ "$st" = 1 -a "$(wc -l <"$TEST_TMP/su.err")" = 1 -a ! -s "$TEST_TMP/su.out" ] &&
	    grep -q "SUDO_UID '$su'" "$TEST_TMP/su.err"
	check_status $? "SUDO_UID '$su': refused, exit 1, one line, no report, in ${ms} ms ($(head -c 160 "$TEST_TMP/su.err"))"
done
env SUDO_UID=$NOB SUDO_GID=0$NOB "$BLKTOP" -J -n 1 -D "$DEV" >/dev/null 2>"$TEST_TMP/sg.err"
st=$?
[ "$st" = 1 ] && grep -q "SUDO_GID '0$NOB'" "$TEST_TMP/sg.err"
check_status $? "SUDO_GID '0$NOB': refused the same ($(head -c 120 "$TEST_TMP/sg.err"))"

# sudo from a root shell (SUDO_UID=0): it starts and stays root, without capabilities.
out=$TEST_TMP/root.jsonl
(cd "$TEST_TMP" && exec env SUDO_UID=0 SUDO_GID=0 SUDO_USER=root "$BLKTOP" -J -d 0.5 -D "$DEV" \
    -w "$TEST_TMP/root.blkcap") >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || fail "SUDO_UID=0: first report within $START_S s ($(head -c 160 "$out.err"))"
st=$(status_of "$pid")
check "SUDO_UID=0: runs as root with no capabilities, no new privileges ($st)" \
    [ "$st" = "0,0,0,0 0,0,0,0 $NOCAPS $NOCAPS $NOCAPS 1" ]
kill -INT "$pid"
wait "$pid"
check "SUDO_UID=0: exits 0, nothing on stderr ($(head -c 160 "$out.err"))" [ $? = 0 -a ! -s "$out.err" ]
check "SUDO_UID=0: the capture is root's, mode 600 ($(stat -c '%u:%g %a' "$TEST_TMP/root.blkcap" 2>/dev/null))" \
    [ "$(stat -c '%u:%g %a' "$TEST_TMP/root.blkcap" 2>/dev/null)" = "0:0 600" ]

# What the drop keeps: here (bpf() on a map fd held works without a
# capability: Linux 5.19+, or the sysctl at 0) nothing, and -v and --probe
# say so; the kernel's counters are still read after it, block events sent
# == received (5.10 with unprivileged_bpf_disabled: tests/kernels, CAP_BPF).
out=$TEST_TMP/keep.jsonl
env SUDO_UID=$NOB SUDO_GID=$NOB "$BLKTOP" -J -d 0.5 -D "$DEV" --no-vfs -vv >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || fail "-vv: first report within $START_S s ($(head -c 160 "$out.err"))"
st=$(status_of "$pid")
fio --filename="$LOOP" --direct=1 --ioengine=psync --name=k --rw=randread --bs=4k \
    --size=200M --io_size=4M >/dev/null 2>&1 || fail "fio ran"
sleep 0.6
kill -INT "$pid"
wait "$pid"
check "-vv: exits 0" [ $? = 0 ]
check "-vv: no capability left ($st)" [ "$st" = "$NOB,$NOB,$NOB,$NOB $NOB,$NOB,$NOB,$NOB $NOCAPS $NOCAPS $NOCAPS 1" ]
why=$(sed -n 's/^[^:]*: privileges: //p' "$out.err")
check "-vv names what was kept: nothing, bpf() works without ($why)" \
    grep -q '^no capability kept: bpf() on a map fd held works without one here' <<<"$why"
sr=$(sed -n 's/.*block events sent \([0-9]*\), received \([0-9]*\).*/\1 \2/p' "$out.err")
check "-vv: the kernel's counters read after the drop: block events sent == received > 0 ($sr)" \
    [ -n "$sr" -a "${sr% *}" = "${sr#* }" -a "${sr% *}" != 0 ]
check "-J: lost is a number, not null (counters readable)" \
    python3 -c 'import json,sys; rs=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not rs or not all(isinstance(r["lost"], int) and isinstance(r["self"]["lost"], int) for r in rs))' "$out"
pr=$("$BLKTOP" --probe 2>/dev/null | sed -n 's/^privileges: after attaching, //p')
check "--probe says the same ($pr)" grep -q '^no capability kept: bpf() on a map fd held works' <<<"$pr"

# A theme file only root may read, named through sudo: opened as the user,
# refused, and not one line of it shown (root would have echoed line 1).
printf 'SECRET-%s\n' "$$" >"$TEST_TMP/secret.theme" && chmod 600 "$TEST_TMP/secret.theme"
env SUDO_UID=$NOB SUDO_GID=$NOB "$BLKTOP" -t "$TEST_TMP/secret.theme" -r \
    "$BLKTOP_SRCDIR/tests/fixtures/small.blkcap" -b -n 1 >/dev/null 2>"$TEST_TMP/theme.err"
st=$?
[ "$st" = 2 ] && grep -q 'Permission denied' "$TEST_TMP/theme.err" && ! grep -q SECRET "$TEST_TMP/theme.err"
check_status $? "sudo: -t FILE the user may not read: exit 2, 'Permission denied', none of it shown ($(head -c 160 "$TEST_TMP/theme.err"))"

# ---- replay inputs through sudo (issue 41, item 10): every file of -r, of a
# merge and every imported log is opened as the user, who may not read what
# root may; --dump drops privileges as every other mode. Root would have
# quoted the text file's first line in its error and replayed the capture.
printf 'SECRET-%s line one\nSECRET two\n' "$$" >"$TEST_TMP/secret.txt"
cp "$BLKTOP_SRCDIR/tests/fixtures/small.blkcap" "$TEST_TMP/secret.blkcap"
cp "$BLKTOP_SRCDIR/tests/fixtures/import-bio.txt" "$TEST_TMP/secret-bio.txt"
chmod 600 "$TEST_TMP/secret.txt" "$TEST_TMP/secret.blkcap" "$TEST_TMP/secret-bio.txt"
cp "$BLKTOP_SRCDIR/tests/fixtures/small.blkcap" "$TEST_TMP/user/mine.blkcap"
chown $NOB:$NOB "$TEST_TMP/user/mine.blkcap" && chmod 600 "$TEST_TMP/user/mine.blkcap"
as_user() { env SUDO_UID=$NOB SUDO_GID=$NOB "$BLKTOP" "$@"; }
# refused_input WHAT FILE ARGS...: exit 1, FILE's 'Permission denied', no output, nothing of it shown.
refused_input() {
	local what=$1 file=$2 st
	shift 2
	as_user "$@" </dev/null >"$TEST_TMP/in.out" 2>"$TEST_TMP/in.err"
	st=$?
	check "sudo: $what: exit $st (want 1), '$file: Permission denied', no output, no line of it ($(head -c 160 "$TEST_TMP/in.err"))" \
	    input_refused "$st" "$file"
}
# input_refused STATUS FILE: the last refused_input run ended as it must.
input_refused() {
	[ "$1" = 1 -a ! -s "$TEST_TMP/in.out" ] && grep -q "$2: Permission denied" "$TEST_TMP/in.err" &&
	    ! grep -q -e SECRET -e garbage -e 4867000999 "$TEST_TMP/in.err" "$TEST_TMP/in.out"
}
refused_input "-r of a text file only root may read" "$TEST_TMP/secret.txt" -r "$TEST_TMP/secret.txt" -J
refused_input "-r of a capture only root may read, -J" "$TEST_TMP/secret.blkcap" -r "$TEST_TMP/secret.blkcap" -J
refused_input "-r of a capture only root may read, --dump" "$TEST_TMP/secret.blkcap" -r "$TEST_TMP/secret.blkcap" --dump
refused_input "-r of an imported log only root may read" "$TEST_TMP/secret-bio.txt" -r "$TEST_TMP/secret-bio.txt" -b
refused_input "a merge whose second file only root may read" "$TEST_TMP/secret.blkcap" \
    -r "$TEST_TMP/user/mine.blkcap" "$TEST_TMP/secret.blkcap" -J
as_user -r "$TEST_TMP/secret.blkcap" --report "$TEST_TMP/user/leak.html" </dev/null >/dev/null 2>&1
check "sudo: --report of a capture only root may read: no report written" [ ! -e "$TEST_TMP/user/leak.html" ]
check "sudo: the user's own capture still replays ($(as_user -r "$TEST_TMP/user/mine.blkcap" --dump | wc -l) rows)" \
    [ "$(as_user -r "$TEST_TMP/user/mine.blkcap" --dump | wc -l)" -gt 1000 ]
# dump_status WANT CMD...: while CMD's --dump blocks on a full pipe, "uid-fields CapEff" of it.
dump_status() {
	local want=$1 pid i st=
	shift
	"$@" -r "$TEST_TMP/user/mine.blkcap" --dump > >(sleep 8; cat >/dev/null) 2>/dev/null &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	# Dropped before (sudo) or just after (root) the file is opened; the
	# rows (over 1 MB) fill the pipe soon after: poll up to 5 s.
	for i in $(seq 50); do
		st=$(status_of "$pid" | awk '{ print $1, $3 }')
		case $st in "$want $NOCAPS") break ;; esac
		sleep 0.1
	done
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	echo "$st"
}
st=$(dump_status "$NOB,$NOB,$NOB,$NOB" env SUDO_UID=$NOB SUDO_GID=$NOB "$BLKTOP")
check "sudo: --dump runs as $NOB with no capabilities ($st)" [ "$st" = "$NOB,$NOB,$NOB,$NOB $NOCAPS" ]
st=$(dump_status "0,0,0,0" "$BLKTOP")
check "root: --dump reads a user's 0600 capture, then keeps no capability ($st)" [ "$st" = "0,0,0,0 $NOCAPS" ]

# ---- the UI through sudo: r records a capture the user owns.
"${TMUX_CMD[@]}" new-session -d -s ui -x 120 -y 40 \
    "cd $TEST_TMP/user && env SUDO_UID=$NOB SUDO_GID=$NOB BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes \
    $BLKTOP -D $DEV --flight 0 2>$TEST_TMP/ui.err; echo \$? >$TEST_TMP/ui.exit; sleep 600"
check "ui: starts" wait_screen "$START_S" "rec off"
pid=$(pgrep -n -P "$("${TMUX_CMD[@]}" display -p -t ui '#{pane_pid}')" blktop)
st=$(status_of "$pid")
check "ui: runs as $NOB with no capabilities ($st)" \
    [ "$st" = "$NOB,$NOB,$NOB,$NOB $NOB,$NOB,$NOB,$NOB $NOCAPS $NOCAPS $NOCAPS 1" ]
"${TMUX_CMD[@]}" send-keys -t ui r
check "ui: r records" wait_screen 5 "recording to "
dd if="$LOOP" of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null
sleep 1.2
"${TMUX_CMD[@]}" send-keys -t ui r
check "ui: r again stops" wait_screen 5 "recorded [0-9]+ events to"
"${TMUX_CMD[@]}" send-keys -t ui q
i=0; while [ ! -s "$TEST_TMP/ui.exit" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "ui: exits 0" [ "$(cat "$TEST_TMP/ui.exit" 2>/dev/null)" = 0 ]
f=$(ls "$TEST_TMP/user"/blktop-*.blkcap 2>/dev/null | head -1)
[ -n "$f" ] && [ "$(stat -c '%u:%g %a' "$f")" = "$NOB:$NOB 600" ]
check_status $? "ui: the r capture belongs to $NOB, mode 600 (${f:+$(stat -c '%u:%g %a' "$f")})"
n=$(as_nobody "$BLKTOP" -r "$f" -J -n 1 2>/dev/null | grep -c '"devices"')
check "ui: the user replays it ($n reports)" [ "$n" = 1 ]

# ---- an ordinary user, no sudo: file capabilities on a copy of the binary.
mkdir -m 755 "$TEST_TMP/bin" && cp "$BLKTOP" "$TEST_TMP/bin/blktop" && chmod 755 "$TEST_TMP/bin/blktop"
if setcap cap_bpf,cap_perfmon,cap_sys_admin+ep "$TEST_TMP/bin/blktop" 2>"$TEST_TMP/setcap.err"; then
	out=$TEST_TMP/fcap.jsonl
	(cd "$TEST_TMP/user" && exec setpriv --reuid=$NOB --regid=$NOB --clear-groups \
	    "$TEST_TMP/bin/blktop" -J -d 0.5 -D "$DEV") >"$out" 2>"$out.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "file capabilities: first report within $START_S s"
	# The bounding set stays (emptying it needs CAP_SETPCAP); with no_new_privs
	# nothing can come back through it.
	st=$(status_of "$pid" | awk '{ $5 = "-"; print }')
	check "file capabilities: uid $NOB, no capabilities left after start, no new privileges ($st)" \
	    [ "$st" = "$NOB,$NOB,$NOB,$NOB $NOB,$NOB,$NOB,$NOB $NOCAPS $NOCAPS - 1" ]
	n0=$(wc -l <"$out")
	dd if="$LOOP" of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null
	sleep 1.2
	kill -INT "$pid"
	wait "$pid"
	check "file capabilities: exits 0" [ $? = 0 ]
	check "file capabilities: the reads are seen ($(reads_after "$out" "$n0") reports)" \
	    [ "$(reads_after "$out" "$n0")" -ge 1 ]
	check "file capabilities: its BPF cost is known (cap_sys_admin given)" \
	    python3 -c 'import json, sys; sys.exit(json.loads(open(sys.argv[1]).readlines()[-1])["self"]["bpf_ns"] is None)' "$out"
	cat "$out.err" | head -3 | sed 's/^/# stderr: /'
	# Without the capabilities, one line that says what is missing.
	cp "$BLKTOP" "$TEST_TMP/bin/plain" && chmod 755 "$TEST_TMP/bin/plain"
	as_nobody "$TEST_TMP/bin/plain" -J -n 1 >/dev/null 2>"$TEST_TMP/plain.err"
	st=$?
	[ "$st" = 1 ] && grep -q 'CAP_BPF, CAP_PERFMON' "$TEST_TMP/plain.err"
	check_status $? "no capabilities: exit 1, says CAP_BPF and CAP_PERFMON ($(head -c 160 "$TEST_TMP/plain.err"))"
else
	fail "setcap on $TEST_TMP: $(cat "$TEST_TMP/setcap.err")"
fi
