#!/bin/bash
# pattern.sh: each file's access pattern (Darshan's counters, doc/json.md
# "Access pattern") from real calls, exact: 16 sequential 1 MiB reads, 256
# random 4 KiB preads, a 2-stride, reads and writes taking turns, one file
# read by two processes, two files each read twice (from the cache, and
# again after drop_caches), libaio and io_uring sequential and random (fio,
# iodepth 1; io_uring's offsets from 5.19, bpf/vfs-async.h uring_pos). The expected
# figures are computed here from what the workload did (its permutation,
# fio's own I/O log), not by blktop's code. Checked on -J, on --report
# OUT.json, and on the replay of the run's capture.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
need_cmd fio fio

ext4_on_loop 128 || exit 0

# The files, written before blktop starts: only the reads below are seen.
python3 - "$MNT" <<'EOF' || { fail "setup"; exit 0; }
import os, sys
mnt = sys.argv[1]
for name, size in (("seq", 16 << 20), ("rand", 1 << 20), ("stride", 512 << 10), ("turns", 32 << 10),
                   ("shared", 256 << 10), ("aio-seq", 1 << 20), ("aio-rand", 1 << 20),
                   ("uring-seq", 1 << 20), ("uring-rand", 1 << 20), ("many-small", 8 << 20), ("many-rand", 8 << 20),
                   ("storm", 4096), ("twice-cached", 4 << 20), ("twice-dropped", 4 << 20),
                   ("direct", 1 << 20)):
    with open("%s/%s.dat" % (mnt, name), "wb") as f:
        f.write(os.urandom(size))
os.sync()
with open("/proc/sys/vm/drop_caches", "w") as f:	# every first read from the device
    f.write("3")
EOF

OUT=$TEST_TMP/run.jsonl
# The workload runs under names of its own (a process's comm is the name it
# was executed by): -c python3 -c fio took in every other python3 and fio on
# the machine, whose files' findings crowded -b's insights block (issue 41 item 6).
WORK=bp$$
ln -s "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$TEST_TMP/${WORK}py"
ln -s "$(command -v fio)" "$TEST_TMP/${WORK}fio"
"$BLKTOP" -J -d 0.5 --top 2000 -o vfs_reads -c "${WORK}py" -c "${WORK}fio" -w "$TEST_TMP/run.blkcap" --report "$TEST_TMP/run.json" \
    >"$OUT" 2>"$TEST_TMP/run.err" &
BPID=$!
TEST_PIDS="$TEST_PIDS $BPID"
wait_for "$OUT" "$START_S" || { fail "blktop started: $(head -c 300 "$TEST_TMP/run.err")"; exit 0; }

# The calls; the random order is printed, for the expected figures.
"$TEST_TMP/${WORK}py" - "$MNT" >"$TEST_TMP/work.json" <<'EOF' || fail "workload"
import json, os, random, sys, time
mnt = sys.argv[1]
KiB, MiB = 1024, 1 << 20
def fd(name, mode=os.O_RDONLY):
    return os.open("%s/%s.dat" % (mnt, name), mode)
f = fd("seq")				# 16 sequential 1 MiB read()s
seq_t = [time.time()]
for i in range(16):
    assert len(os.read(f, MiB)) == MiB
seq_t.append(time.time())
os.close(f)
perm = list(range(256))			# 256 random 4 KiB pread()s, each block once
random.Random(7).shuffle(perm)
f = fd("rand")
for b in perm:
    assert len(os.pread(f, 4 * KiB, b * 4 * KiB)) == 4 * KiB
os.close(f)
f = fd("stride")			# every other 4 KiB block: stride 4 KiB
for i in range(64):
    assert len(os.pread(f, 4 * KiB, i * 8 * KiB)) == 4 * KiB
os.close(f)
f = fd("turns", os.O_RDWR)		# write a block, read it back, 8 times
for i in range(8):
    assert os.pwrite(f, b"t" * 4 * KiB, i * 4 * KiB) == 4 * KiB
    assert len(os.pread(f, 4 * KiB, i * 4 * KiB)) == 4 * KiB
os.close(f)
pids = [os.getpid()]
child = os.fork()			# two processes, each 4 x 64 KiB read()s from 0
if child == 0:
    f = fd("shared")
    for i in range(4):
        os.read(f, 64 * KiB)
    os._exit(0)
os.waitpid(child, 0)
f = fd("shared")
for i in range(4):
    os.read(f, 64 * KiB)
os.close(f)
f = fd("many-small")			# 2048 sequential 4 KiB read()s: small-io
for i in range(2048):
    os.read(f, 4 * KiB)
os.close(f)
perm2 = list(range(2048))		# 2048 random 4 KiB pread()s: small-io and random-io
random.Random(8).shuffle(perm2)
f = fd("many-rand")
for b in perm2:
    os.pread(f, 4 * KiB, b * 4 * KiB)
os.close(f)
for name in ("twice-cached", "twice-dropped"):	# 2 passes of 4 x 1 MiB read()s
    for n in range(2):
        if n == 1 and name == "twice-dropped":	# the second from the device again
            os.sync()
            with open("/proc/sys/vm/drop_caches", "w") as d:
                d.write("3")
        f = fd(name)
        for i in range(4):
            assert len(os.read(f, MiB)) == MiB
        os.close(f)
import errno, mmap			# O_DIRECT: 16 reads 512 B off 4 KiB (the loop
buf = memoryview(mmap.mmap(-1, 4096))	# device's 512 B blocks take them), 4 refused
f = os.open("%s/direct.dat" % mnt, os.O_RDONLY | os.O_DIRECT)	# (EINVAL), 8 aligned
for i in range(16):
    assert os.preadv(f, [buf], i * 4096 + 512) == 4096
for i in range(4):
    try:
        os.preadv(f, [buf], 100)
        assert False, "a read at offset 100 with O_DIRECT was not refused"
    except OSError as e:
        assert e.errno == errno.EINVAL
for i in range(8):
    assert os.preadv(f, [buf], i * 4096) == 4096
os.close(f)
fsyncer = os.fork()			# 200 writes, each followed by an fsync: fsync-heavy
if fsyncer == 0:
    f = fd("fsync", os.O_WRONLY | os.O_CREAT)
    for i in range(200):
        os.write(f, b"x" * 512)
        os.fsync(f)
    os._exit(0)
os.waitpid(fsyncer, 0)
storm = os.fork()			# 1200 opens and no read: open-storm
if storm == 0:
    for i in range(1200):
        os.close(fd("storm"))
    os._exit(0)
os.waitpid(storm, 0)
print(json.dumps({"pid": os.getpid(), "child": child, "storm": storm, "perm": perm, "fsyncer": fsyncer,
                  "seq_t": seq_t}))
EOF
for job in "aio-seq read libaio" "aio-rand randread libaio" "uring-seq read io_uring" \
    "uring-rand randread io_uring"; do
	set -- $job
	"$TEST_TMP/${WORK}fio" --name=p --filename="$MNT/$1.dat" --size=1M --bs=64k --rw="$2" --direct=1 \
	    --ioengine="$3" --iodepth=1 --randrepeat=1 --write_iolog="$TEST_TMP/$1.iolog" \
	    --output=/dev/null || fail "fio $1"
	# A call's pattern is judged 0.3 s after it (src/model-pattern.c): its
	# file's row then, in a report whose top rows the next fio's start (it
	# reads hundreds of /sys files) does not fill.
	sleep 1.5
done
sleep 1.2
stop_bg "$BPID"
"$BLKTOP" -r "$TEST_TMP/run.blkcap" --top 2000 -J >"$TEST_TMP/replay.jsonl" 2>"$TEST_TMP/replay.err"
"$BLKTOP" -r "$TEST_TMP/run.blkcap" --top 2000 --report "$TEST_TMP/replay.json" >/dev/null 2>&1
# The thresholds from --insight: at 100 calls the 256 random reads are judged too.
"$BLKTOP" --insight min_calls=100 --insight insight.small_bytes=10240 --insight reread_factor=2.5 -r "$TEST_TMP/run.blkcap" \
    --top 2000 --report "$TEST_TMP/conf.json" >/dev/null 2>"$TEST_TMP/conf.err" ||
    fail "replay with --insight: $(head -1 "$TEST_TMP/conf.err")"
"$BLKTOP" --insight small_bytes=5000 -r "$TEST_TMP/run.blkcap" -J >/dev/null 2>"$TEST_TMP/bad.err"
st=$?
check "a small_bytes that is no bin edge: one line, exit $st" \
    test "$st" != 0 -a "$(wc -l <"$TEST_TMP/bad.err")" = 1 -a -n "$(grep "bin edges" "$TEST_TMP/bad.err")"

python3 - "$TEST_NAME" "$MNT" "$TEST_TMP" <<'EOF'
import json, os, sys
name, mnt, tmp = sys.argv[1:4]
work = json.load(open(tmp + "/work.json"))
KiB = 1024

def hist(n, size):			# Darshan's bins: 0-100 ... 1G+
    edges = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824]
    h = [0] * 10
    h[next((i for i, e in enumerate(edges) if size <= e), 9)] = n
    return h

# consec, seq, commonest strides of one process's reads in order, one list
# of offsets per open, by Darshan's rules (darshan-posix.c): each open starts
# from last_byte 0 (_POSIX_RECORD_OPEN); a read at o is sequential if o >
# last_byte, consecutive if o == last_byte + 1; its stride o - last_byte - 1
# when o > last_byte and last_byte != 0 (POSIX_RECORD_READ), a value 0 never
# listed (DARSHAN_UPDATE_COMMON_VAL_COUNTERS), equal counts the larger value
# first. The strides counted are those of the first 16 distinct values
# (doc/json.md: the tables are bounded, as Darshan's are at 32).
def judge(opens, size):
    consec = seq = 0
    strides = {}
    for offs in opens:
        last = 0
        for o in offs:
            consec += o == last + 1
            seq += o > last
            g = o - last - 1
            if o > last and last != 0 and g > 0 and (g in strides or len(strides) < 16):
                strides[g] = strides.get(g, 0) + 1
            last = o + size - 1
    top = sorted(strides.items(), key=lambda kv: (-kv[1], -kv[0]))[:4]
    return consec, seq, [list(kv) for kv in top]

def fio_offsets(log):			# fio's own log: "[TIME] FILE read OFFSET LENGTH"
    offs = []
    for line in open(log):
        w = line.split()
        if len(w) >= 4 and w[-3] == "read":
            offs.append(int(w[-2]))
    return offs

want = {}
def union(offs, size):			# bytes_touched: the union of the ranges read
    n, end = 0, -1
    for o in sorted(offs):
        n += max(0, o + size - max(o, end))
        end = max(end, o + size)
    return n

def reads(f, opens, size, procs=1, calls=None):
    offs = [o for op in opens for o in op]
    n = len(offs) if calls is None else calls
    c, s, st = judge(opens, size)
    touched = union(offs, size)
    want[f] = {"_touched": (touched, n * procs * size - touched),"call_reads": n * procs, "read_size_hist": hist(n * procs, size),
               "consec_reads": c * procs, "seq_reads": s * procs, "no_offset_reads": 0,
               "common_sizes": [[size, n * procs]],
               "common_strides": [[v, k * procs] for v, k in st], "rw_switches": 0,
               "direct_calls": 0, "misaligned": 0,
               "procs": procs}
reads("seq", [[i << 20 for i in range(16)]], 1 << 20)
reads("rand", [[b * 4 * KiB for b in work["perm"]]], 4 * KiB)
reads("stride", [[i * 8 * KiB for i in range(64)]], 4 * KiB)
reads("shared", [[i * 64 * KiB for i in range(4)]], 64 * KiB, procs=2)
for f in ("twice-cached", "twice-dropped"):		# two opens, each 4 reads from 0
    reads(f, [[i << 20 for i in range(4)]] * 2, 1 << 20)
want["turns"] = {"call_reads": 8, "call_writes": 8, "read_size_hist": hist(8, 4 * KiB),
                 "write_size_hist": hist(8, 4 * KiB), "consec_reads": 7, "seq_reads": 7,
                 "consec_writes": 7, "seq_writes": 7, "common_sizes": [[4 * KiB, 16]],
                 "common_strides": [], "rw_switches": 15, "procs": 1,	# every stride 0: none listed
                 "direct_calls": 0, "misaligned": 0,
                 "_touched": (32 * KiB, 0)}
for f in ("aio-seq", "aio-rand", "uring-seq", "uring-rand"):
    offs = fio_offsets("%s/%s.iolog" % (tmp, f))
    reads(f, [offs], 64 * KiB)	# fio's job opens the file once before its reads
    want[f]["aio_reads" if f.startswith("aio") else "uring_reads"] = 16
    want[f]["direct_calls"] = 16			# fio --direct=1, aligned
    want[f]["fio_log_reads"] = len(offs)

# The counts of an interval's row are the interval's: summed over the reports.
# The pattern's are since the file was first seen: the last report's.
SUMMED = ("call_reads", "call_writes", "aio_reads", "uring_reads")

def last_rows(path, key="path", kind="files"):
    rows = {}
    for line in open(path):
        for f in json.loads(line)[kind]:
            r = rows.setdefault(f[key], {k: 0 for k in SUMMED})
            r.update({k: v for k, v in f.items() if k not in SUMMED})
            for k in SUMMED:
                r[k] += f[k] or 0
    return rows

def check(what, rows, some=False):
    for f, w in want.items():
        row = rows.get("%s/%s.dat" % (mnt, f))
        if row is None and some:
            continue
        if row is None:
            print("FAIL: %s: %s: %s.dat has a row" % (name, what, f))
            continue
        bad = ["%s %s, want %s" % (k, row.get(k), v) for k, v in w.items()
               if k[0] != "_" and k != "fio_log_reads" and row.get(k) != v]
        # bytes_touched: exact while the reads left 16 ranges apart at most
        # (bytes_touched_over 0), else an upper bound off by that much at most.
        t, again = w["_touched"]
        got = [row.get(k) for k in ("bytes_touched", "bytes_reread", "bytes_touched_over")]
        if None in got or (got[2] == 0 and got[:2] != [t, again]) or \
                not (got[0] - got[2] <= t <= got[0] and got[1] <= again) or \
                (got[2] != 0 and f not in ("rand", "stride")):
            bad.append("bytes touched, re-read, over %s: want %s, %s" % (got, t, again))
        if "fio_log_reads" in w and w["fio_log_reads"] != 16:
            bad.append("fio's log has %d reads, want 16" % w["fio_log_reads"])
        print("%s: %s: %s: %s.dat: %s" % ("FAIL" if bad else "PASS", name, what, f,
              "; ".join(bad) if bad else "exact (%d fields; bytes touched, re-read, over %s)" %
              (len(w) - 1, got)))

check("-J", last_rows(tmp + "/run.jsonl"))
# When seq.dat was read: within the workload's own clock readings around its reads.
r = last_rows(tmp + "/run.jsonl").get(mnt + "/seq.dat", {})
t0, t1 = work["seq_t"]
a, b = r.get("first_access"), r.get("last_access")
ok = a is not None and b is not None and t0 - 0.005 <= a <= b <= t1 + 0.005
print("%s: %s: seq.dat's first and last access within the reads' own clock [%.6f, %.6f]: %s, %s" % (
    "PASS" if ok else "FAIL", name, t0, t1, a, b))
# The report has the run's top 10 files by calls: the random file's 256 at least.
rep = {f["path"]: f for f in json.load(open(tmp + "/run.json"))["files"]}
print("%s: %s: --report OUT.json has the random file" % (
    "PASS" if mnt + "/rand.dat" in rep else "FAIL", name))
check("--report OUT.json", rep, some=True)
check("replay of the capture, -J", last_rows(tmp + "/replay.jsonl"))

# The processes: the reader's reads of its files (its other calls are its own
# interpreter's, and its writes its output's): the child's row is its 4 reads.
c = last_rows(tmp + "/run.jsonl", "pid", "processes").get(work["child"])
ok = c is not None and c["call_reads"] == 4 and c["consec_reads"] == 3 and \
    c["seq_reads"] == 3 and c["read_size_hist"] == hist(4, 64 * KiB) and \
    c["common_strides"] == []
print("%s: %s: the child's process row: 4 reads, 3 consecutive (%s)" % (
    "PASS" if ok else "FAIL", name,
    None if c is None else {k: c[k] for k in ("call_reads", "consec_reads", "seq_reads",
                                             "read_size_hist", "common_strides")}))
EOF
# Each insight on its workload and on none of the others (of this test's
# files and processes: the machine's own may have some).
python3 - "$TEST_NAME" "$MNT" "$TEST_TMP" <<'EOF'
import json, sys
name, mnt, tmp = sys.argv[1:4]
work = json.load(open(tmp + "/work.json"))
ours = {work["pid"], work["child"], work["storm"], work["fsyncer"]}
who = {work["storm"]: "storm", work["fsyncer"]: "fsyncer"}

def fired(ins):
    got = set()
    for i in ins or []:
        if i["subject"] == "file" and i["name"].startswith(mnt + "/"):
            got.add((i["code"], i["name"][len(mnt) + 1:]))
        elif i["subject"] == "process" and i["pid"] in ours:
            got.add((i["code"], who.get(i["pid"], str(i["pid"]))))
    return got

want = {("small-io", "many-small.dat"), ("small-io", "many-rand.dat"),
        ("random-io", "many-rand.dat"), ("open-storm", "storm"),
        ("re-read", "twice-cached.dat"), ("cache-served", "twice-cached.dat"),
        ("re-read", "twice-dropped.dat"), ("re-read-from-disk", "twice-dropped.dat"),
        ("misaligned-direct", "direct.dat"), ("fsync-heavy", "fsyncer")}
lines = [json.loads(l) for l in open(tmp + "/run.jsonl")]
for what, ins in (("-J's last line", lines[-1].get("insights")),
                  ("--report OUT.json", json.load(open(tmp + "/run.json")).get("insights")),
                  ("replay's --report", json.load(open(tmp + "/replay.json")).get("insights"))):
    got = fired(ins)
    print("%s: %s: %s: insights %s" % ("PASS" if got == want else "FAIL", name, what,
          "as expected" if got == want else "%s, want %s" % (sorted(got), sorted(want))))
conf = fired(json.load(open(tmp + "/conf.json")).get("insights"))
want2 = (want | {("small-io", "rand.dat"), ("random-io", "rand.dat"), ("small-io", "fsync.dat")}) - \
    {("re-read", "twice-cached.dat"), ("re-read", "twice-dropped.dat")}
print("%s: %s: --insight min_calls=100, reread_factor=2.5: rand.dat and fsync.dat judged too, "
      "the files read twice (2.0x) not re-read (%s)" % (
    "PASS" if conf == want2 else "FAIL", name, sorted(conf ^ want2) or "exactly"))
# The finding's own figures, against the workload.
r = [i for i in lines[-1]["insights"] if i["code"] == "random-io" and i["name"].endswith("/many-rand.dat")]
ok = len(r) == 1 and r[0]["calls"] == 2048 and r[0]["level"] == "high"
print("%s: %s: random-io on many-rand.dat measured on its 2048 calls (%s)" % (
    "PASS" if ok else "FAIL", name, r[0]["measured"] if r else None))
r = [i for i in lines[-1]["insights"] if i["code"] == "fsync-heavy" and i["pid"] == work["fsyncer"]]
fs = sum(p["fsyncs"] or 0 for l in lines for p in l["processes"] if p["pid"] == work["fsyncer"])
ok = fs == 200 and len(r) == 1 and r[0]["calls"] == 200 and abs(r[0]["figure"] - 1.0) < 1e-3
print("%s: %s: the fsyncer's 200 fsyncs, one per write: fsync-heavy on it (%s; %s)" % (
    "PASS" if ok else "FAIL", name, fs, r[0]["measured"] if r else None))
d = ([f for l in lines for f in l["files"] if f["path"] == mnt + "/direct.dat"] or [{}])[-1]
r = [i for i in lines[-1]["insights"] if i["code"] == "misaligned-direct"]
ok = (d.get("direct_calls"), d.get("misaligned")) == (28, 20) and len(r) == 1 and \
    r[0]["calls"] == 28 and abs(r[0]["figure"] - 20 / 28) < 1e-3
print("%s: %s: direct.dat: 28 O_DIRECT calls, 20 misaligned (16 off 4 KiB, 4 refused): "
      "misaligned-direct on them (%s, %s)" % ("PASS" if ok else "FAIL", name,
      (d.get("direct_calls"), d.get("misaligned")), [(i["name"], i["calls"], i["measured"]) for i in r]))
# The re-read rules' figures: 8 MiB read over 4 MiB touched, 8 reads; the
# device read the cached file once (half of its 8 MiB), the dropped one twice
# (all of its 4 MiB re-read).
for code, f, fig in (("re-read", "twice-cached", 2.0), ("re-read", "twice-dropped", 2.0),
                     ("cache-served", "twice-cached", 0.5), ("re-read-from-disk", "twice-dropped", 1.0)):
    r = [i for i in lines[-1]["insights"] if i["code"] == code and i["name"].endswith("/%s.dat" % f)]
    ok = len(r) == 1 and r[0]["calls"] == 8 and abs(r[0]["figure"] - fig) < 1e-9
    print("%s: %s: %s on %s.dat: figure %s on 8 reads (%s)" % (
        "PASS" if ok else "FAIL", name, code, f, fig, r[0]["measured"] if r else None))
EOF
# -b: the files table's seq% and size columns, and the insights block.
"$BLKTOP" -r "$TEST_TMP/run.blkcap" -b -d 3600 --top 2000 >"$TEST_TMP/run.txt" 2>&1
python3 - "$TEST_NAME" "$MNT" "$TEST_TMP" <<'EOF'
import re, sys
name, mnt, tmp = sys.argv[1:4]
t = open(tmp + "/run.txt").read()
rows = {l.split()[-1]: l.split() for l in t.splitlines() if l.rstrip().endswith(".dat")}
r, s = rows.get(mnt + "/seq.dat"), rows.get(mnt + "/rand.dat")
print("%s: %s: -b: seq.dat seq%% 100, size 1048576; rand.dat's size 4096 (%s; %s)" % (
    "PASS" if r and r[9:11] == ["100", "1048576"] and s and s[10] == "4096" else "FAIL", name,
    r and r[9:11], s and s[9:11]))
block = t[t.find("insights since the start"):]
got = sorted(set(re.findall(r"^(?:high|warn|info) +(\S+) +%s/(\S+): " % re.escape(mnt), block, re.M)))
want = {("small-io", "many-small.dat"), ("small-io", "many-rand.dat"), ("random-io", "many-rand.dat"),
        ("misaligned-direct", "direct.dat"), ("re-read-from-disk", "twice-dropped.dat")}
print("%s: %s: -b: the insights block's 8 highest hold the high-level findings (%s)" % (
    "PASS" if want <= set(got) else "FAIL", name, got))
EOF

# The HTML report's sections (Darshan's job summary): they render in headless
# Chromium with no console error, and hold what the JSON holds.
if command -v chromium >/dev/null; then
	"$BLKTOP" -r "$TEST_TMP/run.blkcap" -o vfs_read_bytes --report "$TEST_TMP/run.html" </dev/null >/dev/null 2>&1
	HOME=$TEST_TMP timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	    --enable-logging=stderr --v=0 --window-size=1200,3000 \
	    --screenshot="$TEST_TMP/run.png" "file://$TEST_TMP/run.html" >"$TEST_TMP/chrome.log" 2>&1
	check "the report renders in headless Chromium with no console line" \
	    test -s "$TEST_TMP/run.png" -a -z "$(grep -i 'CONSOLE' "$TEST_TMP/chrome.log")"
	python3 - "$TEST_NAME" "$TEST_TMP" <<'EOF'
import json, re, sys
name, tmp = sys.argv[1:3]
h = open(tmp + "/run.html", encoding="utf-8").read()
rep = json.load(open(tmp + "/replay.json"))
for sec in ("Access sizes", "Access pattern", "Insights"):
    print("%s: %s: the report has its %s section" % ("PASS" if "<h2>%s</h2>" % sec in h else "FAIL", name, sec))
rows = len(re.findall(r'<tr class="insight">', h))
print("%s: %s: the report's insights are the JSON's (%d rows, %d in the JSON)" % (
    "PASS" if rows == len(rep["insights"]) else "FAIL", name, rows, len(rep["insights"])))
# The access pattern table (its top 10 by bytes read: 16 MiB, then 8 MiB each): the files read twice, 2.00x their 4 MiB.
for f in ("twice-cached", "twice-dropped"):
    m = re.search(f + r"\.dat</td>(?:<td>[^<]*</td>){4}<td>([^<]*)</td><td>([^<]*)</td>",
                  h[h.find("<h2>Access pattern</h2>"):])
    print("%s: %s: the access pattern table: %s.dat touched 4 MiB, read 2.00x (%s)" % (
        "PASS" if m and m.groups() == ("4.0M", "2.00x") else "FAIL", name, f, m and m.groups() or
        re.findall(r'<td class="l path">([^<]*)</td>', h[h.find("<h2>Access pattern</h2>"):])[:10]))
# The sizes table's 1K-10K reads: at least the 256 + 64 + 2048 + 2048 4 KiB reads made here.
m = re.search(r"<td class=\"l\">1K-10K</td><td>(\d+)</td>", h)
print("%s: %s: the access size table counts the 4 KiB reads (%s)" % (
    "PASS" if m and int(m.group(1)) >= 256 + 64 + 16 + 2048 + 2048 else "FAIL", name, m and m.group(1)))
EOF
else
	skip "the report in Chromium: no chromium"
fi

# The UI on the run's capture: paused at its start, stepped a tick at a time
# until the file read twice shows in the files pane (filtered to it); Enter
# drills into it: its figures since first seen, its size histogram and its
# insights; i lists every insight.
if command -v tmux >/dev/null; then
	tmux_setup
	key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
	"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $TEST_TMP/run.blkcap --speed 1 2>$TEST_TMP/ui.err; sleep 600"
	wait_screen 10 "replay" && key Space && wait_screen 5 "paused"
	key 3 / t w i c e - c a c h e d Enter
	for i in $(seq 60); do
		screen | grep -q "twice-cached.dat" && break
		key . && sleep 0.3
	done
	check "UI: the files pane shows twice-cached.dat at some tick" wait_screen 2 "twice-cached.dat"
	key Enter
	check "UI: Enter drills into the file: its bytes since first seen" \
	    wait_screen 5 "since first seen: [0-9]+ reads"
	# Its reads so far (a tick may fall between its two passes): 4 or 8 of 1 MiB.
	check "UI: the drill-down's size histogram: its 1 MiB reads in 100K-1M" \
	    wait_screen 5 "100K-1M #+ +[48] \\|"
	check "UI: the drill-down says what its reads touched" wait_screen 5 "touched 4.0M by its reads"
	for i in $(seq 60); do
		screen | grep -q "cache-served" && break
		key . && sleep 0.3
	done
	check "UI: stepped on, the drill-down names its insights (re-read, cache-served)" \
	    sh -c "'${TMUX_CMD[0]}' ${TMUX_CMD[*]:1} capture-pane -p -t ui | grep -q 'warn re-read: 8.0 MiB read, 2.00x' &&
	        '${TMUX_CMD[0]}' ${TMUX_CMD[*]:1} capture-pane -p -t ui | grep -q 'info cache-served'"
	key Escape
	check "UI: Esc goes back to the files table" wait_screen 5 "rcall/s"
	# At the capture's end every workload is in (direct.dat's reads come after the twice files').
	key G
	check "UI: G seeks to the end of the capture" wait_screen 10 "^blktop .* end *$"
	key i
	check "UI: i lists the insights, misaligned-direct among them" wait_screen 5 "misaligned-direct"
	check "UI: nothing on stderr" [ ! -s "$TEST_TMP/ui.err" ]
else
	fail "the UI drill-down: no tmux"
fi
umount "$MNT"
