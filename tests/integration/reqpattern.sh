#!/bin/bash
# reqpattern.sh: the access pattern at the request level (issue 30), of a
# device and of the file whose pages requests carried. On a loop device: fio's
# 256 sequential 64 KiB direct reads at depth 1 (255 consecutive), then 512
# random 4 KiB ones; on an ext4 of another loop device, a 4 MiB file read
# cold through the page cache (readahead: its requests). Every count equals
# the same definitions computed here from the capture's own rows (--dump:
# each request's start, offset, size), and the sequential run's equals fio's
# own; -J's last report, the live --report and the replay's agree. A device's
# also has its commonest request sizes and strides and read/write switches.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
RAW=$(loop_create 64) || { fail "loop device"; exit 0; }
ext4_on_loop 64 || exit 0
head -c $((4 << 20)) /dev/urandom >"$MNT/f.dat"
sync
C=$TEST_TMP/r.blkcap
# Its two devices only (-D: the kernel filters them): requests wait 0.3 s in
# one ring of 65536 to be judged in start order, and a fio beside the test at
# full speed pushed them out early (206,441 judged early under noise.sh).
"$BLKTOP" -J -d 0.5 --top 1000 -o disk_read_bytes -D "$(basename "$RAW")" -D "$(basename "$LOOP")" \
    -w "$C" --report "$TEST_TMP/live.json" \
    >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "blktop started: $(head -c 300 "$TEST_TMP/live.err")"
fio --name=seq --filename="$RAW" --direct=1 --rw=read --bs=64k --size=16M --iodepth=1 \
    >/dev/null 2>&1 || fail "fio sequential"
fio --name=rand --filename="$RAW" --direct=1 --rw=randread --bs=4k --size=64M \
    --io_size=2M --iodepth=4 --ioengine=libaio --randseed=7 >/dev/null 2>&1 || fail "fio random"
python3 - "$MNT/f.dat" <<'PY' || fail "the cold read ran"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
while os.read(fd, 1 << 16):
    pass
os.close(fd)
PY
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$C" --top 1000 -o disk_read_bytes --report "$TEST_TMP/replay.json" \
    </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$C" --dump >"$TEST_TMP/dump.csv" 2>/dev/null
python3 - "$TEST_TMP" "$(basename "$RAW")" "$(basename "$LOOP")" "$MNT/f.dat" <<'PY' ||
import csv, json, os, sys
tmp, raw, fsdev_name, path = sys.argv[1:5]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "reqpattern: " + what)
BINS = [100, 1 << 10, 10 << 10, 100 << 10, 1 << 20, 4 << 20, 10 << 20, 100 << 20, 1 << 30]
def common(vals):
    """pattern.h's common values: the first 16 distinct ones counted, the top 4,
    equal counts the larger value first (Darshan's order)."""
    t = {}
    for v in vals:
        if v in t or len(t) < 16:
            t[v] = t.get(v, 0) + 1
    return [[v, c] for v, c in sorted(t.items(), key=lambda x: (-x[1], -x[0]))[:4]]
def pattern(rows, device):
    """The request pattern of rows, by pattern.h's definitions: in start order."""
    rows = sorted(rows, key=lambda r: (r[0], r[1]))
    p = {}
    for d in ("read", "write"):
        p[d + "s"] = 0
        p[d + "_size_hist"] = [0] * 10
        p["consec_" + d + "s"] = p["seq_" + d + "s"] = 0
    end, sizes, strides, switches, last = {}, [], [], 0, None
    for ts, off, n, d in rows:
        sizes.append(n)
        if d in end:
            strides.append(off - end[d])
            p["consec_" + d + "s"] += off == end[d]
            p["seq_" + d + "s"] += off >= end[d]
        switches += last is not None and last != d
        last = d
        p[d + "s"] += 1
        p[d + "_size_hist"][sum(n > b for b in BINS)] += 1
        end[d] = off + n
    if device:	# a device's only: 624 bytes more a file
        p.update(common_sizes=common(sizes), common_strides=common(strides), rw_switches=switches)
    return p if rows else None
ino = str(os.stat(path).st_ino)
by_dev, by_file = {}, []
for r in csv.DictReader(open(tmp + "/dump.csv")):
    # op: enum blktop_op, 0 read, 1 write (bpf/blktop-abi.h)
    if r["type"] != "block" or r["op"] not in ("0", "1") or int(r["bytes"]) == 0:
        continue
    start = int(r["ts_ns"]) - int(r["lat_ns"] or 0) - int(r["queue_ns"] or 0)
    row = (start, int(r["sector"]) * 512, int(r["bytes"]), "read" if r["op"] == "0" else "write")
    by_dev.setdefault(r["device"], []).append(row)
    if r["class"] == "file" and r["ino"] == ino:
        by_file.append(row)
want_dev = {d: pattern(rows, True) for d, rows in by_dev.items()}
want_file = pattern(by_file, False)
last_dev, last_file = {}, None
for line in open(tmp + "/live.jsonl"):
    j = json.loads(line)
    for d in j["devices"]:
        last_dev[d["name"]] = d["request_pattern"]
    for f in j["files"]:
        if f["path"] == path:
            last_file = f["request_pattern"]
    tables = j["tables"]
out(tables["requests_judged_late"] == 0 and tables["requests_judged_early"] == 0,
    "-J: no request judged early or late (%s, %s)" % (tables["requests_judged_early"],
                                                      tables["requests_judged_late"]))
w = want_dev.get(raw)
out(w is not None and w["reads"] == 256 + 512 and w["consec_reads"] >= 255,
    "the raw device: fio's 256 + 512 reads, at least its 255 consecutive (%s)" %
    str(w and (w["reads"], w["consec_reads"])))
for name in (raw, fsdev_name):
    out(last_dev.get(name) == want_dev.get(name),
        "-J: %s's request pattern is its rows' (%s; want %s)" % (name, last_dev.get(name), want_dev.get(name)))
out(want_file is not None and want_file["reads"] > 0 and last_file == want_file,
    "-J: the file's request pattern is the rows' of its pages (%s; want %s)" % (last_file, want_file))
for rep in ("live", "replay"):
    r = json.load(open("%s/%s.json" % (tmp, rep)))
    dev = {d["name"]: d["request_pattern"] for d in r["devices"]}
    fil = [f["request_pattern"] for f in r["files"] if f["path"] == path]
    out(dev.get(raw) == want_dev.get(raw) and dev.get(fsdev_name) == want_dev.get(fsdev_name),
        "%s --report: the devices' request patterns" % rep)
    out(fil == [want_file], "%s --report: the file's request pattern (%s)" % (rep, fil))
PY
fail "the checks ran"
