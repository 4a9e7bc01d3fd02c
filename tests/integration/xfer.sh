#!/bin/bash
# xfer.sh: sendfile, splice and copy_file_range are the reads and writes of
# their files and process: tests/workload/xferwork moves files of known sizes
# on ext4 (a loop device in /dev/shm); each file's and the process's calls and
# bytes, summed over a blktop -J run, must be exactly what it did. Once per
# syscall hook variant this kernel loads (the first one recorded, and its
# capture replayed), and once with --all-files (the socket's and the pipe's
# side too).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
XFER=$BLKTOP_BUILDDIR/tests/workload/xferwork
if [ ! -x "$XFER" ]; then
	fail "no $XFER (make check builds it)"
	exit 0
fi

LOOP=$(loop_create 64) || { fail "loop device"; exit 0; }
mkfs.ext4 -q -F "$LOOP" || { fail "mkfs.ext4"; exit 0; }
MNT=$TEST_TMP/mnt
mkdir -p "$MNT"
mount "$LOOP" "$MNT" || { fail "mount"; exit 0; }
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
	if ! wait_for "$out" 60; then
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
keys = ("reads", "writes", "read_bytes", "write_bytes")
pkeys = ("vfs_reads", "vfs_writes", "vfs_read_bytes", "vfs_write_bytes")
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
          ("PASS" if ok else "FAIL", name, p, got["reads"], got["writes"], got["read_bytes"],
           got["write_bytes"], " ".join(map(str, v))))
if mode != "all":
    # Per direction once: a copy is one read call of its source and one write call of its copy.
    v = (calls("sendfile") + calls("sendfile_sock") + calls("splice_in") + calls("copy_file_range"),
         calls("sendfile") + calls("splice_out") + calls("copy_file_range"),
         SF + SOCK + SP + CFR, SF + SP + CFR)
    got = tuple(proc[k] for k in pkeys)
    print("%s: xfer: %s: process %d vfs_reads %d vfs_writes %d vfs_read_bytes %d vfs_write_bytes %d (want %s)" %
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
