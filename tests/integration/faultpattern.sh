#!/bin/bash
# faultpattern.sh: a file read through a mapping has an access pattern like
# one read by calls (issue 30: "mmap faults at page size"). On ext4, its
# pages dropped from the cache (POSIX_FADV_DONTNEED), with readahead off (MADV_RANDOM: each page touched faults once
# and reads that page only, fault-around finds nothing cached), a process
# touches pages 0-15 in order, then 64, 66, ... 92 (16 ranges: the
# touched bytes are exact, pattern.h PAT_EXTENTS). Each fault is an access
# of one page at its offset: the pattern counts are exact, the --dump rows of
# type fault carry the offsets, the file's offset map holds them, and the
# replay gives the same (its report of the workload's process, -c: other
# work's files, beside it, never take the file's offset map).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
ext4_on_loop 64 || exit 0
head -c $((1 << 20)) /dev/urandom >"$MNT/m.dat"
sync
C=$TEST_TMP/f.blkcap
"$BLKTOP" -J -d 0.5 --top 1000 -w "$C" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "blktop started: $(head -c 300 "$TEST_TMP/live.err")"
python3 - "$MNT/m.dat" <<'PY' || fail "the workload ran"
import ctypes, mmap, os, sys
# Its own name, for the replay's -c: other work's files never take its offset map.
ctypes.CDLL(None).prctl(15, b"faultwork", 0, 0, 0)	# PR_SET_NAME
with open(sys.argv[1], "rb") as f:
    os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    m.madvise(mmap.MADV_RANDOM)
    s = 0
    for p in list(range(16)) + list(range(64, 94, 2)):
        s += m[p * 4096]
    m.close()
PY
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$C" -c faultwork -o disk_read_bytes --report "$TEST_TMP/r.json" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$C" --dump >"$TEST_TMP/dump.csv" 2>/dev/null
python3 - "$TEST_TMP/live.jsonl" "$TEST_TMP/r.json" "$TEST_TMP/dump.csv" "$MNT/m.dat" <<'PY' ||
import csv, json, os, sys
live, rep, dump, path = sys.argv[1:5]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "faultpattern: " + what)
pages = list(range(16)) + list(range(64, 94, 2))
KiB = 1024
want = {"mmap_faults": 31, "call_reads": 0,
        "read_size_hist": [0, 0, 31, 0, 0, 0, 0, 0, 0, 0],
        "consec_reads": 15, "seq_reads": 30,
        "common_sizes": [[4 * KiB, 31]],
        # Forward gaps only, 0 never listed (Darshan's: pattern.h): the 15 consecutive faults have none.
        "common_strides": [[4 * KiB, 14], [48 * 4 * KiB, 1]],
        "bytes_touched": 31 * 4 * KiB, "bytes_touched_over": 0, "bytes_reread": 0}
# -J: the last report has the pattern (since the file was first seen); faults summed.
rows, faults = None, 0
for line in open(live):
    for f in json.loads(line)["files"]:
        if f["path"] == path:
            rows = f
            faults += f.get("mmap_faults") or 0
got = dict(rows or {})
got["mmap_faults"] = faults
bad = ["%s %s, want %s" % (k, got.get(k), v) for k, v in want.items()
       if k != "call_reads" and got.get(k) != v]
out(rows is not None and not bad, "-J: the faults' pattern is the pages' (%s)" % ("; ".join(bad) or "exact"))
r = [f for f in json.load(open(rep))["files"] if f["path"] == path]
bad = ["%s %s, want %s" % (k, r[0].get(k), v) for k, v in want.items()
       if k not in ("call_reads",) and r and r[0].get(k) != v] if r else ["no row"]
out(not bad, "replay --report: the same counts (%s)" % ("; ".join(bad) or "exact"))
ino = str(os.stat(path).st_ino)
offs = [int(x["offset"]) for x in csv.DictReader(open(dump))
        if x["type"] == "page" and x["class"] == "fault" and x["ino"] == ino and x["offset"] != ""]
out(sorted(offs) == sorted(p * 4096 for p in pages),
    "--dump: the fault rows' offsets are the pages touched (%d rows)" % len(offs))
m = r[0].get("offset_map") if r else None
n = sum(sum(c) for c in m["reads"]) if m else -1
out(m is not None and n == 31, "the file's offset map holds its 31 faults (%d)" % n)
if m:
    bands = sorted({b for col in m["reads"] for b, c in enumerate(col) if c})
    span = [p * 4096 // m["band_bytes"] for p in pages]
    out(bands == sorted(set(span)), "the map's bands are the pages' (%s, want %s)" % (bands, sorted(set(span))))
PY
fail "the checks ran"
