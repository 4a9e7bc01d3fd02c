#!/bin/bash
# xfer.sh: sendfile, splice and copy_file_range are the reads and writes of
# their files and process: tests/workload/xferwork moves files of known sizes
# on ext4 (a loop device in /dev/shm); each file's and the process's calls and
# bytes, summed over a blktop -J run, must be exactly what it did. Once per
# syscall hook variant this kernel loads (the first one recorded, and its
# capture replayed), and once with --all-files (the socket's and the pipe's
# side too), then cp, busybox cat and Python on the same files.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
XFER=$BLKTOP_BUILDDIR/tests/workload/xferwork
if [ ! -x "$XFER" ]; then
	fail "no $XFER (make check or make check-live builds it)"
	exit 0
fi

ext4_on_loop 64 || exit 0
"$XFER" prep "$MNT" || { fail "xferwork prep"; exit 0; }

# lines FILE N SECS: until FILE has N lines, at most SECS seconds.
lines() {
	local i=0
	while [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt "$2" ] && [ "$i" -lt $(($3 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(wc -l <"$1")" -ge "$2" ]
}

# run NAME HOOK [BLKTOP-ARGS]: xferwork under blktop -J -p (its pid), the vfs
# programs of variant HOOK. The workload waits on a FIFO until blktop reports,
# and writes its results to a pipe: it reads and writes no other file.
run() {
	local name=$1 hook=$2 out=$TEST_TMP/$1.jsonl res=$TEST_TMP/$1.res fifo=$TEST_TMP/$1.go
	local wpid bpid st
	shift 2
	mkfifo "$fifo" || return 1
	"$XFER" -w run "$MNT" <"$fifo" | cat >"$res" &
	TEST_PIDS="$TEST_PIDS $!"
	exec 3>"$fifo"
	if ! lines "$res" 1 10; then
		exec 3>&-
		fail "$name: xferwork started"
		return 1
	fi
	wpid=$(sed -n '1s/.*"pid":\([0-9]*\).*/\1/p' "$res")
	BLKTOP_VFS_HOOK=$hook "$BLKTOP" -J -d 0.5 --top 500 -p "$wpid" "$@" \
	    >"$out" 2>"$TEST_TMP/$name.err" &
	bpid=$!
	TEST_PIDS="$TEST_PIDS $bpid"
	if ! wait_for "$out" "$START_S"; then
		exec 3>&-
		fail "$name: blktop started"
		cat "$TEST_TMP/$name.err"
		return 1
	fi
	echo go >&3
	exec 3>&-
	lines "$res" 2 60 || fail "$name: xferwork finished"
	sleep 1.2	# the last calls' report
	kill -INT "$bpid"
	wait "$bpid"
	st=$?
	[ "$st" = 0 ] || { fail "$name: blktop exit status $st"; cat "$TEST_TMP/$name.err"; }
	return 0
}

# check NAME [all]: each file's and the process's calls and bytes, summed over
# the run's reports, against what xferwork says it did and the known sizes.
check_run() {
	python3 - "$TEST_TMP/$1.jsonl" "$TEST_TMP/$1.res" "$MNT" "$1" "${2:-}" <<'EOF'
import json, sys
path, res, mnt, name, mode = sys.argv[1:6]
lines = open(res).read().splitlines()
w = json.loads(lines[1])
pid = w["pid"]
keys = ("call_reads", "call_writes", "call_read_bytes", "call_write_bytes")
pkeys = ("call_reads", "call_writes", "call_read_bytes", "call_write_bytes")
files, proc, reports = {}, dict.fromkeys(pkeys, 0), 0
for line in open(path):
    r = json.loads(line)
    reports += 1
    for f in r["files"]:
        t = files.setdefault(f["path"], dict.fromkeys(keys, 0))
        for k in keys:
            t[k] += f[k]
    for p in r["processes"]:
        if p["pid"] == pid:
            for k in pkeys:
                proc[k] += p[k]

def calls(k):
    return w[k]["calls"]

# The known sizes, and what xferwork counted (its calls may return less than asked).
SF, SOCK, SP, CFR = 300000, 200000, 150000, 400000
for k, size in (("sendfile", SF), ("sendfile_sock", SOCK), ("splice_in", SP),
                ("splice_out", SP), ("copy_file_range", CFR)):
    if w[k]["bytes"] != size:
        print("FAIL: xfer: %s: xferwork moved %d bytes by %s, not %d" % (name, w[k]["bytes"], k, size))
want = {
    "sf.in": (calls("sendfile"), 0, SF, 0),
    "sf.out": (0, calls("sendfile"), 0, SF),
    "sock.in": (calls("sendfile_sock"), 0, SOCK, 0),
    "sp.in": (calls("splice_in"), 0, SP, 0),
    "sp.out": (0, calls("splice_out"), 0, SP),
    "cfr.in": (calls("copy_file_range"), 0, CFR, 0),
    "cfr.out": (0, calls("copy_file_range"), 0, CFR),
}
rows = [(mnt + "/" + n, v) for n, v in want.items()]
if mode == "all":
    # The other side of sendfile to a socket and of both splices: not files,
    # traced with --all-files only.
    rows.append(("socket:[%d]" % w["sock_ino"], (0, calls("sendfile_sock"), 0, SOCK)))
    rows.append(("pipe:[%d]" % w["pipe_ino"], (calls("splice_out"), calls("splice_in"), SP, SP)))
for p, v in rows:
    got = files.get(p, dict.fromkeys(keys, 0))
    ok = tuple(got[k] for k in keys) == v
    print("%s: xfer: %s: %s reads %d writes %d read_bytes %d write_bytes %d (want %s)" %
          ("PASS" if ok else "FAIL", name, p, got["call_reads"], got["call_writes"], got["call_read_bytes"],
           got["call_write_bytes"], " ".join(map(str, v))))
if mode != "all":
    # Per direction once: a copy is one read call of its source and one write call of its copy.
    v = (calls("sendfile") + calls("sendfile_sock") + calls("splice_in") + calls("copy_file_range"),
         calls("sendfile") + calls("splice_out") + calls("copy_file_range"),
         SF + SOCK + SP + CFR, SF + SP + CFR)
    got = tuple(proc[k] for k in pkeys)
    print("%s: xfer: %s: process %d call_reads %d call_writes %d call_read_bytes %d call_write_bytes %d (want %s)" %
          ("PASS" if got == v else "FAIL", name, pid, *got, " ".join(map(str, v))))
print("%s: %d reports" % (name, reports))
EOF
}

ran=0
"$BLKTOP" --probe >"$TEST_TMP/probe" 2>&1
for hook in tracepoint tp_btf raw_tp; do
	if ! grep -qE "^vfs: $hook .* available( \(chosen\))?$" "$TEST_TMP/probe"; then
		echo "note: vfs hook $hook does not load on this kernel"
		continue
	fi
	if [ "$ran" = 0 ]; then
		# The first one also recorded: its replay must give the same figures.
		run "$hook" "$hook" -w "$TEST_TMP/xfer.blkcap" && check_run "$hook" &&
		    "$BLKTOP" -r "$TEST_TMP/xfer.blkcap" -J -d 0.5 --top 500 >"$TEST_TMP/replay.jsonl" &&
		    cp "$TEST_TMP/$hook.res" "$TEST_TMP/replay.res" && check_run replay
	else
		run "$hook" "$hook" && check_run "$hook"
	fi
	ran=$((ran + 1))
done
# The socket and the pipe too, with the first variant this kernel loads.
run all-files auto --all-files && check_run all-files all
[ "$ran" -gt 0 ] || fail "no syscall hook variant available"

# The tools of the issue: cp (coreutils 9 copies by copy_file_range), busybox
# cat (sendfile to its stdout) and Python's os.sendfile, os.splice and
# os.copy_file_range. The tools choose their own calls (cp and cat end with a
# call that returns 0): their files' bytes must be exact; the Python script
# counts its calls, which must be exact too. -c keeps the machine's other
# processes (and their files) out of the tables.
PY=$(python3 -c 'print(open("/proc/self/comm").read().strip())')	# python3 run as below
TOOLS=(-c cp -c "$PY")
BUSYBOX=$(command -v busybox)
[ -n "$BUSYBOX" ] && TOOLS+=(-c busybox)
"$BLKTOP" -J -d 0.5 --top 500 "${TOOLS[@]}" >"$TEST_TMP/tools.jsonl" 2>"$TEST_TMP/tools.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
if wait_for "$TEST_TMP/tools.jsonl" "$START_S"; then
	cp "$MNT/sf.in" "$MNT/cp.out" || fail "tools: cp"
	if [ -n "$BUSYBOX" ]; then
		"$BUSYBOX" cat "$MNT/sock.in" >"$MNT/cat.out" || fail "tools: busybox cat"
	fi
	python3 - "$MNT" >"$TEST_TMP/tools.res" <<'EOF' || fail "tools: python"
import json, os, sys
d = sys.argv[1]
n = {"sendfile": 0, "splice_in": 0, "splice_out": 0, "copy_file_range": 0}

def moved(src, dst, step):
    fi = os.open(d + "/" + src, os.O_RDONLY)
    fo = os.open(d + "/" + dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    step(fi, fo, os.fstat(fi).st_size)
    os.close(fi)
    os.close(fo)

def sendfile(fi, fo, size):
    done = 0
    while done < size:
        done += os.sendfile(fo, fi, None, min(65536, size - done))
        n["sendfile"] += 1

def copy(fi, fo, size):
    done = 0
    while done < size:
        done += os.copy_file_range(fi, fo, min(131072, size - done))
        n["copy_file_range"] += 1

def splice(fi, fo, size):
    r, w = os.pipe()
    done = 0
    while done < size:
        k = os.splice(fi, w, min(65536, size - done))
        n["splice_in"] += 1
        done += k
        while k > 0:
            k -= os.splice(r, fo, k)
            n["splice_out"] += 1
    os.close(r)
    os.close(w)

moved("sf.in", "py-sf.out", sendfile)
moved("cfr.in", "py-cfr.out", copy)
if hasattr(os, "splice"):	# Python 3.10
    moved("sp.in", "py-sp.out", splice)
print(json.dumps(n))
EOF
	sleep 1.2	# the last calls' report
else
	fail "tools: blktop started"
	cat "$TEST_TMP/tools.err"
fi
stop_bg "$bpid" || fail "tools: blktop exit status"
python3 - "$TEST_TMP/tools.jsonl" "$TEST_TMP/tools.res" "$MNT" "$BUSYBOX" <<'EOF'
import json, sys
path, res, mnt, busybox = sys.argv[1:5]
try:
    n = json.loads(open(res).read())
except ValueError:
    n = {}
keys = ("call_reads", "call_writes", "call_read_bytes", "call_write_bytes")
files = {}
for line in open(path):
    for f in json.loads(line)["files"]:
        t = files.setdefault(f["path"], dict.fromkeys(keys, 0))
        for k in keys:
            t[k] += f[k]

def row(name):
    return files.get(mnt + "/" + name, dict.fromkeys(keys, 0))

def check(what, name, k, want):
    got = row(name)[k]
    print("%s: xfer: tools: %s: %s %s %d (want %d)" % ("PASS" if got == want else "FAIL",
          what, name, k, got, want))

SF, SOCK, SP, CFR = 300000, 200000, 150000, 400000
check("cp and python sendfile", "sf.in", "call_read_bytes", 2 * SF)	# both read it
check("cp", "cp.out", "call_write_bytes", SF)
if busybox:
    check("busybox cat", "sock.in", "call_read_bytes", SOCK)
    check("busybox cat", "cat.out", "call_write_bytes", SOCK)
check("python sendfile", "py-sf.out", "call_write_bytes", SF)
check("python sendfile", "py-sf.out", "call_writes", n.get("sendfile", -1))
check("python copy_file_range", "cfr.in", "call_read_bytes", CFR)
check("python copy_file_range", "cfr.in", "call_reads", n.get("copy_file_range", -1))
check("python copy_file_range", "py-cfr.out", "call_write_bytes", CFR)
check("python copy_file_range", "py-cfr.out", "call_writes", n.get("copy_file_range", -1))
if n.get("splice_in"):
    check("python splice", "sp.in", "call_read_bytes", SP)
    check("python splice", "sp.in", "call_reads", n["splice_in"])
    check("python splice", "py-sp.out", "call_write_bytes", SP)
    check("python splice", "py-sp.out", "call_writes", n["splice_out"])
print("tools: cp.out %s, cat.out %s (calls of the tools' own choosing)" %
      (row("cp.out"), row("cat.out")))
EOF
