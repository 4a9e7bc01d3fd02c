#!/bin/bash
# procs.sh: per-process and per-file numbers of blktop -J against a workload we wrote.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd mkfs.ext4 e2fsprogs
IOWORK=$BLKTOP_BUILDDIR/tests/workload/iowork

ext4_on_loop 64 || exit 1
DEV=$(basename "$LOOP")
mkdir -p "$MNT/work"

# run FILTER...: blktop -J with the filter around one iowork run started
# through a shell that execs it, so its pid is known in advance.
run() {
	local out=$TEST_TMP/out.jsonl pid
	# The previous run's report must not pass for this one's first.
	rm -f "$TEST_TMP/go" "$out"
	(while [ ! -e "$TEST_TMP/go" ]; do sleep 0.05; done
	 exec "$IOWORK" "$MNT/work" f.dat 30000 3 40000 4 >"$TEST_TMP/iowork.json") &
	IOPID=$!
	TEST_PIDS="$TEST_PIDS $IOPID"
	# Every process of an interval listed (--top's most): unfiltered, on a busy
	# machine, 200 rows by opens were short-lived processes' (a shell loop's
	# sync(1) opens its libraries), and the workload's row was in none of them.
	"$BLKTOP" -J -d 1 -D "$DEV" --top 10000 -o opens "${@//@PID@/$IOPID}" >"$out" 2>"$TEST_TMP/err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "first report within $START_S s (BPF loads in ~1 s idle, 10 s and more on a busy 2-CPU machine)"
	touch "$TEST_TMP/go"
	wait "$IOPID"
	sleep 1.2
	kill -INT "$pid"
	wait "$pid"
	check "blktop exits 0 ($*)" [ $? = 0 ]
}

# The workload's own account, then blktop's.
summary() {
	python3 - "$TEST_TMP/out.jsonl" "$TEST_TMP/iowork.json" "$MNT/work/f.dat" "$1" "$IOPID" <<'PY'
import json, sys
out, work, path, mode, iopid = sys.argv[1:6]
iopid = int(iopid)
w = json.load(open(work))
procs, files, lost = {}, {}, 0
for line in open(out):
    o = json.loads(line)
    lost += o["lost"]
    for p in o["processes"]:
        e = procs.setdefault((p["pid"], p["comm"]), {})
        for k, v in p.items():
            if isinstance(v, int) and k not in ("pid", "tgid", "cgroup"):
                e[k] = e.get(k, 0) + v
    for f in o["files"]:
        e = files.setdefault(f["path"], {"pids": set()})
        e["pids"].update(f["pids"])
        for k, v in f.items():
            if isinstance(v, int):
                e[k] = e.get(k, 0) + v
def res(name, ok, detail):
    print(("PASS: " if ok else "FAIL: ") + "procs: " + mode + ": " + name + " (" + detail + ")")
res("no lost events", lost == 0, "lost %d" % lost)
me = procs.get((w["pid"], "iowork"))
res("workload's pid and comm reported", me is not None, "pid %d, %d processes" % (w["pid"], len(procs)))
if mode == "all":
    f = files.get(path)
    res("file reported by its absolute path", f is not None, path)
    if f:
        res("opens of the file", f["opens"] == w["opens"], "%d vs %d" % (f["opens"], w["opens"]))
        res("write calls and bytes", f["call_writes"] == w["writes"] and f["call_write_bytes"] == w["write_bytes"],
            "%d calls %d bytes vs %d %d" % (f["call_writes"], f["call_write_bytes"], w["writes"], w["write_bytes"]))
        reads = w["reads"] + w["direct_preads"]
        rbytes = w["read_bytes"] + w["direct_bytes"]
        res("read calls and bytes (read() and the O_DIRECT pread)",
            f["call_reads"] == reads and f["call_read_bytes"] == rbytes,
            "%d calls %d bytes vs %d %d" % (f["call_reads"], f["call_read_bytes"], reads, rbytes))
        res("file lists the workload's pid", w["pid"] in f["pids"], str(sorted(f["pids"])))
    if me:
        res("block read bytes of the pid equal its O_DIRECT reads",
            me["req_read_bytes"] == w["direct_bytes"], "%d vs %d" % (me["req_read_bytes"], w["direct_bytes"]))
        res("failed open counted", me["open_fails"] >= 1, "open_fails %d" % me["open_fails"])
    bad = [p for p in files if not p.startswith("/") and ":[" not in p]
    res("no bare basenames", not bad, ", ".join(bad[:3]))
elif mode == "pid":
    others = [k for k in procs if k[0] != iopid]
    res("-p: only that process", me is not None and not others, str(others[:3]))
elif mode == "comm":
    others = [k for k in procs if k[1] != "iowork"]
    res("-c: only that command", me is not None and not others, str(others[:3]))
PY
}

run
summary all
run -p @PID@
summary pid
run -c iowork
summary comm
umount "$MNT"
