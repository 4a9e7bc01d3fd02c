#!/bin/bash
# pathcache.sh: a read or write's path is walked once per open file and put
# back in user space for the calls after (bpf/vfs.bpf.c vfs_pslots,
# src/source-live-paths.c live_paths_record). Every call must still land on
# the right path: after a rename of the file or of its directory, on a hard
# link opened through the same struct file slot, on thousands of files opened
# and closed one after the other (a freed struct file is reused at once), and
# the counts must equal a run that walks every call (BLKTOP_PATH_CACHE=0).
# Records sent without their path come per CPU in batches (EV_BATCH): the
# counts must equal a run where every record comes by itself (BLKTOP_BATCH=0),
# and no path may be missed when a batch arrives after its slot went to
# another file.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3

DIR=$TEST_TMP/pc
mkdir -p "$DIR"
NFILES=3000

# The workload: prints its pid, then does everything, in one process.
work() {
	python3 - "$DIR" "$NFILES" <<'EOF'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
print(os.getpid(), flush=True)
buf = b"z" * 4096
for i in range(n):				# many files, one after the other
    with open("%s/f%05d" % (d, i), "wb") as f:
        f.write(buf)
for i in range(n):
    fd = os.open("%s/f%05d" % (d, i), os.O_RDONLY)
    for k in range(3):
        os.pread(fd, 4096, 0)
    os.close(fd)
os.makedirs(d + "/dir1")
with open(d + "/dir1/a", "wb") as f:
    f.write(buf)
fd = os.open(d + "/dir1/a", os.O_RDONLY)
for k in range(300):
    os.pread(fd, 4096, 0)
os.rename(d + "/dir1/a", d + "/dir1/b")	# the file renamed while open
for k in range(200):
    os.pread(fd, 4096, 0)
os.rename(d + "/dir1", d + "/dir2")		# its directory renamed
for k in range(100):
    os.pread(fd, 4096, 0)
os.close(fd)
os.link(d + "/dir2/b", d + "/hard")		# one inode, two names, one after the other
for name, calls in (("/dir2/b", 50), ("/hard", 70), ("/dir2/b", 30)):
    fd = os.open(d + name, os.O_RDONLY)
    for k in range(calls):
        os.pread(fd, 4096, 0)
    os.close(fd)
EOF
}

# run NAME [ENV...]: blktop -J around the workload; reports in $TEST_TMP/NAME.jsonl.
run() {
	local name=$1 out=$TEST_TMP/$1.jsonl pid
	shift
	env "$@" "$BLKTOP" -J -d 0.5 -w "$TEST_TMP/$name.cap" >"$out" 2>"$TEST_TMP/$name.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || { fail "$name: blktop started"; cat "$TEST_TMP/$name.err"; }
	work >"$TEST_TMP/$name.pid"
	sleep 1.2
	kill -INT "$pid"
	wait "$pid"
	rm -rf "${DIR:?}"/*
}

# sum NAME: the workload's reads per file (calls, bytes) from the run's capture,
# every record as the stream took it, and the paths figures of its reports.
sum() {
	"$BLKTOP" -r "$TEST_TMP/$1.cap" --dump --format jsonl >"$TEST_TMP/$1.dump" ||
	    fail "$1: --dump of the capture"
	python3 - "$TEST_TMP/$1.jsonl" "$TEST_TMP/$1.dump" "$DIR" "$(cat "$TEST_TMP/$1.pid")" <<'EOF'
import json, sys
reports, dump, d, wpid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
files, reused, missed, batched = {}, 0, 0, 0
for line in open(reports):
    s = json.loads(line).get("self", {})
    reused += s.get("paths_reused") or 0
    missed += s.get("paths_missed") or 0
    batched += s.get("records_batched") or 0
for line in open(dump):
    r = json.loads(line)
    if r.get("type") == "rw" and r.get("tgid") == wpid and r.get("op") == 0:
        c = files.setdefault(r["path"][len(d):] if r["path"].startswith(d + "/") else r["path"], [0, 0])
        c[0] += 1
        c[1] += r["bytes"]
print(json.dumps({"files": files, "reused": reused, "missed": missed, "batched": batched}))
EOF
}

run cached
run walked BLKTOP_PATH_CACHE=0
run single BLKTOP_BATCH=0
sum cached >"$TEST_TMP/cached.sum"
sum walked >"$TEST_TMP/walked.sum"
sum single >"$TEST_TMP/single.sum"

python3 - "$TEST_TMP/cached.sum" "$TEST_TMP/walked.sum" "$NFILES" "$TEST_TMP/single.sum" <<'EOF'
import json, sys
c, w, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
u = json.load(open(sys.argv[4]))
def check(ok, text):
    print(("PASS: " if ok else "FAIL: ") + "pathcache: " + text)
cf, wf = c["files"], w["files"]
many = [p for p in cf if p.startswith("/f")]
bad = [p for p in many if cf[p] != [3, 3 * 4096]]
check(len(many) == n and not bad, "%d files opened one after the other: 3 reads each on its own path "
      "(%d files, %d wrong: %s)" % (n, len(many), len(bad), bad[:3]))
for p, want in (("/dir1/a", 300), ("/dir1/b", 200), ("/dir2/b", 100 + 50 + 30), ("/hard", 70)):
    got = cf.get(p, [0, 0])[0]
    check(got == want, "%s: %d reads (%d)" % (p, want, got))
diff = sorted(set(cf) ^ set(wf)) + [p for p in cf if p in wf and cf[p] != wf[p]]
check(not diff, "every file's reads and bytes equal a run walking every call's path "
      "(%d files; differ: %s)" % (len(cf), diff[:4]))
check(c["reused"] >= 2 * n, "paths sent once per open file: %d calls had theirs put back" % c["reused"])
check(c["missed"] == 0, "no path missing (%d)" % c["missed"])
check(w["reused"] == 0, "BLKTOP_PATH_CACHE=0: every call walked (%d put back)" % w["reused"])
check(c["batched"] >= n, "records sent without their path came in batches (%d)" % c["batched"])
diff = sorted(set(cf) ^ set(u["files"])) + [p for p in cf if p in u["files"] and cf[p] != u["files"][p]]
check(u["batched"] == 0 and not diff, "BLKTOP_BATCH=0: every record by itself (%d batched), "
      "every file's reads and bytes equal (differ: %s)" % (u["batched"], diff[:4]))
EOF
