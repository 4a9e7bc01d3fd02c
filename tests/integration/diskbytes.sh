#!/bin/bash
# diskbytes.sh: disk bytes per file and process whatever the path, against
# what the kernel must move: a new file written and fsynced, a cold and a warm
# read, a cold mmap, writeback of pages another process dirtied. ext4 on a loop
# device in /dev/shm; each phase in a blktop run of its own, checked on the
# run's summed reports, so no phase depends on where a report boundary falls.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
need_cmd fio fio

ext4_on_loop 256 || exit 0
DEV=${LOOP#/dev/}
MAJMIN=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')

# The workload, one phase per call: prints its pid first, then the pid of each
# fio it ran (the only processes the test takes as its own).
work() {
	python3 - "$MNT" "$@" <<'EOF'
import mmap, os, sys, time
mnt, phase = sys.argv[1], sys.argv[2]
print(os.getpid(), flush=True)
if phase == "write":		# 256 KiB to a new file, fsync: the writer submits it
    fd = os.open(mnt + "/w1", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for i in range(64):
        os.write(fd, b"x" * 4096)
    os.fsync(fd)
    os.close(fd)
elif phase == "read":		# the whole file, 64 KiB calls
    with open(mnt + "/r1", "rb") as f:
        while f.read(65536):
            pass
elif phase == "mmap":		# every page of the file through a shared mapping
    with open(mnt + "/m1", "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        s = 0
        for i in range(0, len(m), 4096):
            s += m[i]
        m.close()
elif phase in ("uring", "aio"):	# fio: 1024 4k direct reads, then 512 writes
    # Each fio's pid on a line of its own: its job is a thread of it
    # (--thread), so its rows are the ones of that tgid, whatever other fio
    # runs beside the test.
    import subprocess
    engine, name = ("io_uring", "/u1") if phase == "uring" else ("libaio", "/a1")
    for rw, size in (("randread", "4M"), ("randwrite", "2M")):
        p = subprocess.Popen(["fio", "--name=u", "--filename=" + mnt + name, "--size=4M",
                              "--io_size=" + size, "--bs=4k", "--rw=" + rw, "--direct=1",
                              "--thread", "--ioengine=" + engine, "--iodepth=8",
                              "--output=/dev/null"])
        print(p.pid, flush=True)
        if p.wait() != 0:
            sys.exit("fio exited %d" % p.returncode)
elif phase == "dirty":		# 512 KiB dirtied, no fsync: written back by the flusher
    fd = os.open(mnt + "/w2", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for i in range(128):
        os.write(fd, b"y" * 4096)
    os.close(fd)
EOF
}

# run NAME PHASE [SETUP]: blktop -J around one phase; the workload's pid in $TEST_TMP/NAME.pid.
# Only the test's own device (-D): the block requests of other tests' devices
# (the flusher's, fio's beside the test) are not in its figures.
run() {
	local name=$1 phase=$2 out=$TEST_TMP/$1.jsonl pid
	"$BLKTOP" -J -d 0.5 --top 500 -D "$DEV" >"$out" 2>"$TEST_TMP/$name.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || { fail "$name: blktop started"; cat "$TEST_TMP/$name.err"; }
	work "$phase" >"$TEST_TMP/$name.pid"
	if [ "$phase" = dirty ]; then
		sleep 0.3
		sync		# sync(2) hands the inodes to the flusher and waits for it
	fi
	sleep 1.2
	kill -INT "$pid"
	wait "$pid"
}

# sum NAME: the runs' files and processes summed over every report, as JSON.
sum() {
	python3 - "$TEST_TMP/$1.jsonl" "$MNT" "$(cat "$TEST_TMP/$1.pid")" <<'EOF'
import json, sys
path, mnt = sys.argv[1], sys.argv[2]
wpid, fios = int(sys.argv[3].split()[0]), {int(x) for x in sys.argv[3].split()[1:]}
keys = ("call_reads", "call_read_bytes", "call_writes", "call_write_bytes", "req_read_bytes",
        "req_write_bytes", "disk_read_bytes", "disk_write_bytes",
        "disk_reads", "disk_writes", "dirtied_bytes", "mmap_faults", "writeback_bytes",
        "uring_reads", "uring_writes", "aio_reads", "aio_writes")
files, procs, hits = {}, {}, {}
for line in open(path):
    r = json.loads(line)
    for f in r["files"]:
        t = files.setdefault(f["path"], {})
        for k in keys:
            if k in f and f[k] is not None:
                t[k] = t.get(k, 0) + f[k]
        if f.get("cache_hit_pct") is not None:
            hits.setdefault(f["path"], []).append(f["cache_hit_pct"])
            # What the hit % should be from the same report's own bytes.
            if f.get("disk_read_bytes") is not None and f["call_read_bytes"]:
                want = max(0.0, 100 * (1 - f["disk_read_bytes"] / f["call_read_bytes"]))
                hits.setdefault("off:" + f["path"], []).append(abs(f["cache_hit_pct"] - want))
    for p in r["processes"]:
        name = "writer" if p["pid"] == wpid else "test-fio" if p["tgid"] in fios else "comm:" + p["comm"]
        t = procs.setdefault(name, {})
        for k in keys:
            if k in p and p[k] is not None:
                t[k] = t.get(k, 0) + p[k]
print(json.dumps({"files": files, "procs": procs, "hits": hits, "mnt": mnt}))
EOF
}

# field JSON EXPR: a value out of sum's JSON ("files['/x']['call_reads']"), 0 if missing.
# The JSON goes through stdin: with the whole machine's files in it (a package
# install beside the test), it once passed the 128 KiB limit of one argument.
field() {
	python3 -c '
import json, sys
d = json.load(sys.stdin); F = d["files"]; P = d["procs"]; H = d["hits"]; M = d["mnt"]
try:
    print(eval(sys.argv[1]))
except (KeyError, IndexError):
    print(0)' "$2" <<<"$1"
}

dd if=/dev/urandom of="$MNT/r1" bs=1M count=8 status=none
dd if=/dev/urandom of="$MNT/m1" bs=1M count=4 status=none
dd if=/dev/urandom of="$MNT/u1" bs=1M count=4 status=none
dd if=/dev/urandom of="$MNT/a1" bs=1M count=4 status=none
sync

# 1. A new file written and fsynced: its data reaches the disk once, charged to the writer.
run write write
s=$(sum write)
v=$(field "$s" "F[M + '/w1'].get('disk_write_bytes', 0)")
check "write+fsync: the file's disk write bytes are the 256 KiB written (got $v)" [ "$v" = 262144 ]
v=$(field "$s" "F[M + '/w1'].get('dirtied_bytes', 0)")
check "write+fsync: the file's dirtied bytes are 256 KiB (got $v)" [ "$v" = 262144 ]
v=$(field "$s" "P['writer'].get('dirtied_bytes', 0)")
check "write+fsync: the writer is charged as dirtier (got $v)" [ "$v" -ge 262144 ]
v=$(field "$s" "P['writer'].get('disk_write_bytes', 0)")
check "write+fsync: the writer's disk write bytes hold the file's (got $v)" [ "$v" -ge 262144 ]
v=$(field "$s" "sum(f.get('disk_write_bytes', 0) for k, f in F.items() if k.startswith('metadata:[$MAJMIN]'))")
check "write+fsync: metadata and journal shown as such, not lost (got $v bytes)" [ "$v" -gt 0 ]

# 2. Cold sequential read: every byte from the disk; read again: none, all hits.
echo 3 >/proc/sys/vm/drop_caches
run cold read
s=$(sum cold)
v=$(field "$s" "F[M + '/r1'].get('disk_read_bytes', 0)")
check "cold read: disk read bytes == the 8 MiB file (got $v)" [ "$v" = 8388608 ]
v=$(field "$s" "F[M + '/r1'].get('call_read_bytes', 0)")
check "cold read: the calls read the 8 MiB (got $v)" [ "$v" = 8388608 ]
v=$(field "$s" "P['writer'].get('disk_read_bytes', 0)")
check "cold read: charged to the reader (got $v)" [ "$v" -ge 8388608 ]
v=$(field "$s" "min(H[M + '/r1'])")
check "cold read: cache hit 0% in its busiest report (got $v)" [ "$v" = 0.0 ]
# The page cache keeps the file, but now and then the kernel reads a range of
# it again (seen: 16-144 KiB of the 8 MiB, sectors the cold read had read):
# whatever it reads must be what blktop charges the file, and no more.
# Other tests drop every cache on the machine (drop_caches: pattern.sh,
# pipeline.sh, this one): a process holding the file mapped keeps its pages
# (mapped pages are not dropped), so "warm" stays warm whatever runs beside.
# It maps them before blktop starts: its faults are not in the run.
python3 -c '
import mmap, os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))
print("held", flush=True)
time.sleep(600)
' "$MNT/r1" >"$TEST_TMP/hold.out" &
hold=$!
TEST_PIDS="$TEST_PIDS $hold"
for _ in $(seq 100); do [ -s "$TEST_TMP/hold.out" ] && break; sleep 0.1; done
before=$(diskstats "$DEV")
run warm read
after=$(diskstats "$DEV")
kill "$hold"
wait "$hold" 2>/dev/null
s=$(sum warm)
v=$(field "$s" "F[M + '/r1'].get('disk_read_bytes', 0)")
r=$(field "$s" "F[M + '/r1'].get('call_read_bytes', 0)")
m=$(field "$s" "sum(f.get('disk_read_bytes', 0) for k, f in F.items() if k.startswith('metadata:[$MAJMIN]'))")
set -- $before
b_rsect=$2
set -- $after
dev=$((($2 - b_rsect) * 512))
check "warm read: the 8 MiB read again, its disk bytes are what the device read ($v of the file + $m metadata == $dev)" [ "$r" = 8388608 -a $((v + m)) = "$dev" ]
# How much the kernel reads again is its business (seen up to 384 KiB, once
# after a package install beside the test): the file must come mostly from
# the cache, and each report's hit % must be what its own bytes say.
check "warm read: under a quarter of it from the disk, against all of it cold (got $v bytes)" [ "$v" -le 2097152 ]
v=$(field "$s" "min(H[M + '/r1'])")
check "warm read: cache hit at least 75% in every report (got $v)" python3 -c "import sys; sys.exit(not float('$v') >= 75.0)"
v=$(field "$s" "max(H['off:' + M + '/r1'])")
check "warm read: each report's hit % is 100 x (1 - disk read bytes / read bytes) of that report (off by at most $v)" \
    python3 -c "import sys; sys.exit(not float('$v') <= 0.1)"

# 3. mmap after dropping caches, every page touched: the file's 4 MiB from the disk.
echo 3 >/proc/sys/vm/drop_caches
run mmap mmap
s=$(sum mmap)
v=$(field "$s" "F[M + '/m1'].get('disk_read_bytes', 0)")
check "mmap: disk read bytes == the 4 MiB file (got $v)" [ "$v" = 4194304 ]
v=$(field "$s" "F[M + '/m1'].get('mmap_faults', 0)")
check "mmap: faults counted on the file (got $v)" [ "$v" -gt 0 ]
v=$(field "$s" "P['writer'].get('mmap_faults', 0)")
check "mmap: faults counted on the process (got $v)" [ "$v" -gt 0 ]
v=$(field "$s" "F[M + '/m1'].get('call_reads', 0)")
check "mmap: no read calls on the file (got $v)" [ "$v" = 0 ]

# direct_phase PHASE FILE KEY WHAT: fio's 1024 direct 4k reads and 512 writes
# through an engine: exactly that many calls (KEY_reads, KEY_writes) and bytes on
# the file and on fio, and the same bytes on the disk.
direct_phase() {
	local phase=$1 key=$3 what=$4 s v
	run "$phase" "$phase"
	s=$(sum "$phase")
	v=$(field "$s" "(F['$MNT/$2'].get('${key}_reads', 0), F['$MNT/$2'].get('${key}_writes', 0))")
	check "$what: the file's calls are fio's 1024 reads and 512 writes (got $v)" [ "$v" = "(1024, 512)" ]
	v=$(field "$s" "(F['$MNT/$2'].get('call_read_bytes', 0), F['$MNT/$2'].get('call_write_bytes', 0))")
	check "$what: the file's bytes are 4 MiB read and 2 MiB written (got $v)" [ "$v" = "(4194304, 2097152)" ]
	v=$(field "$s" "(F['$MNT/$2'].get('disk_read_bytes', 0), F['$MNT/$2'].get('disk_write_bytes', 0))")
	check "$what: O_DIRECT, so the same bytes reached the disk (got $v)" [ "$v" = "(4194304, 2097152)" ]
	v=$(field "$s" "(P['test-fio'].get('${key}_reads', 0), P['test-fio'].get('${key}_writes', 0))")
	check "$what: charged to the test's fio, by pid (got $v)" [ "$v" = "(1024, 512)" ]
}

# 4. io_uring, then libaio (io_submit to the io_getevents that reaped each).
direct_phase uring u1 uring io_uring
direct_phase aio a1 aio libaio

# 5. Dirtied by one process, written back by the flusher: charged to the dirtier.
run dirty dirty
s=$(sum dirty)
v=$(field "$s" "F[M + '/w2'].get('disk_write_bytes', 0)")
check "writeback: the file's disk write bytes are the 512 KiB dirtied (got $v)" [ "$v" = 524288 ]
# (the writer also dirtied its pid file on /tmp: that writeback is its own too)
v=$(field "$s" "P['writer'].get('writeback_bytes', 0)")
w=$(field "$s" "P['writer'].get('dirtied_bytes', 0)")
check "writeback: the dirtier is charged the writeback done for it (got $v of $w dirtied)" [ "$v" -ge 524288 -a "$v" -le "$w" ]
v=$(field "$s" "P['writer'].get('req_write_bytes', 0)")
check "writeback: the dirtier submitted none of it itself (got $v)" [ "$v" = 0 ]
v=$(field "$s" "sum(p.get('req_write_bytes', 0) for k, p in P.items() if k.startswith('comm:kworker'))")
w=$(field "$s" "sum(p.get('disk_write_bytes', 0) for k, p in P.items() if k.startswith('comm:kworker'))")
check "writeback: the flusher stays visible as the one that did the work ($v bytes submitted, $w on its own behalf)" [ "$v" -ge 524288 -a "$w" -le $((v - 524288)) ]

umount "$MNT"
