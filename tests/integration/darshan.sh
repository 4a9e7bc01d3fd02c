#!/bin/bash
# darshan.sh: the counters that carry Darshan's names equal Darshan's on
# workloads whose counts are known (issue 41, "Against Darshan itself"): a
# read-to-EOF loop (its last read moves 0 bytes at the file's size), a readv
# loop to EOF, a 0-byte write between writes, reads through a dup2'ed fd,
# strided preads over two opens, dd (dup2 onto fd 0). Each expected number below is Darshan's,
# worked out by its rules (darshan-runtime/lib/darshan-posix.c,
# POSIX_RECORD_OPEN/READ/WRITE; darshan-common.h,
# DARSHAN_UPDATE_COMMON_VAL_COUNTERS), the rule named beside it; where blktop
# is documented apart (doc/json.md: opens and dup), blktop's is checked and
# Darshan's said. Live -J and the replay of the run's capture.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs

ext4_on_loop 64 || exit 0
python3 - "$MNT" <<'EOF' || { fail "setup"; exit 0; }
import os, sys
for name, size in (("eof", (1 << 20) + 500), ("rv", 10000), ("dup", 64 << 10), ("stride", 1 << 20),
                   ("dd", 64 << 10)):
    with open("%s/%s.dat" % (sys.argv[1], name), "wb") as f:
        f.write(os.urandom(size))
EOF

"$BLKTOP" -J -d 0.5 --top 1000 -c python3 -c dd -w "$TEST_TMP/run.blkcap" >"$TEST_TMP/run.jsonl" \
    2>"$TEST_TMP/run.err" &
BPID=$!
TEST_PIDS="$TEST_PIDS $BPID"
wait_for "$TEST_TMP/run.jsonl" 30 || { fail "blktop started: $(head -c 300 "$TEST_TMP/run.err")"; exit 0; }

python3 - "$MNT" <<'EOF' || fail "workload"
import os, sys
mnt = sys.argv[1]
def path(n):
    return "%s/%s.dat" % (mnt, n)
# eof.dat: read() 4 KiB at a time until a read returns 0: 256 x 4096, 500, 0.
f = os.open(path("eof"), os.O_RDONLY)
n = 0
while True:
    n += 1
    if len(os.read(f, 4096)) == 0:
        break
assert n == 258, n
os.close(f)
# rv.dat: readv() of one 4 KiB buffer until 0: 4096, 4096, 1808, 0.
f = os.open(path("rv"), os.O_RDONLY)
while os.readv(f, [bytearray(4096)]) > 0:
    pass
os.close(f)
# zero.dat: write() 4 KiB three times, 0 bytes, 4 KiB.
f = os.open(path("zero"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
for b in (b"z" * 4096, b"z" * 4096, b"z" * 4096, b"", b"z" * 4096):
    assert os.write(f, b) == len(b)
os.close(f)
# dup.dat: opened, dup2'ed to fd 100, the first fd closed, read to EOF through 100 (dd's way).
f = os.open(path("dup"), os.O_RDONLY)
os.dup2(f, 100)
os.close(f)
while len(os.read(100, 4096)) > 0:
    pass
os.close(100)
# stride.dat: open 1: pread 4 KiB at 4096 + 8192 i (16), then at 0; open 2:
# at 2048, at 6656 (512 past the previous end), at 0.
f = os.open(path("stride"), os.O_RDONLY)
for i in range(16):
    assert len(os.pread(f, 4096, 4096 + 8192 * i)) == 4096
os.pread(f, 4096, 0)
os.close(f)
f = os.open(path("stride"), os.O_RDONLY)
for off in (2048, 6656, 0):
    assert len(os.pread(f, 4096, off)) == 4096
os.close(f)
EOF
# dd opens its input and dup2s it onto fd 0 (coreutils fd_reopen): Darshan's 2 opens.
dd if="$MNT/dd.dat" of=/dev/null bs=4096 </dev/null 2>/dev/null || fail "dd"
sleep 1.2
stop_bg "$BPID"
"$BLKTOP" -r "$TEST_TMP/run.blkcap" --top 1000 -J >"$TEST_TMP/replay.jsonl" 2>"$TEST_TMP/replay.err" ||
    fail "replay: $(head -1 "$TEST_TMP/replay.err")"

python3 - "$TEST_NAME" "$MNT" "$TEST_TMP" <<'EOF'
import json, sys
name, mnt, tmp = sys.argv[1:4]
H = lambda *bins: [bins[i] if i < len(bins) else 0 for i in range(10)]	# Darshan's 10 size bins
# Darshan's rules (darshan-posix.c): each open sets last_byte_read/written to
# 0 (_POSIX_RECORD_OPEN, __reset_flag); an access at off is sequential if
# off > last_byte, consecutive if off == last_byte + 1, then last_byte =
# off + ret - 1 (POSIX_RECORD_READ/WRITE): a 0-byte access at the end is
# both. Its stride is off - last_byte - 1 when off > last_byte and last_byte
# != 0, else 0; a common value 0 (size or stride) is never listed
# (DARSHAN_UPDATE_COMMON_VAL_COUNTERS: "if(*(int64_t *)__vals == 0) break").
want = {
    "eof": {
        "call_reads": 258,			# 256 x 4096, 500, 0 (the read at EOF)
        "read_size_hist": H(1, 1, 256),		# 0 in 0-100 (DARSHAN_BUCKET_INC), 500 in 100-1K
        "consec_reads": 257,			# all but the first: at 0, 0 != last_byte 0 + 1
        "seq_reads": 257,			# all but the first: 0 > 0 is false
        "no_offset_reads": 0,			# the read at EOF has its offset, 1049076
        "common_sizes": [[4096, 256], [500, 1]],	# 0 not listed
        "common_strides": [],			# every stride 0: not listed
        "opens": 1,
    },
    "rv": {
        "call_reads": 4, "read_size_hist": H(1, 0, 3),	# 4096, 4096, 1808, 0
        "consec_reads": 3, "seq_reads": 3, "no_offset_reads": 0,
        "common_sizes": [[4096, 2], [1808, 1]], "common_strides": [],
    },
    "zero": {
        "call_writes": 5, "write_size_hist": H(1, 0, 4),
        "consec_writes": 4,			# 4096, 8192, 12288 (the 0 bytes), 12288: each at last_byte + 1
        "seq_writes": 4, "no_offset_writes": 0,
        "common_sizes": [[4096, 4]], "common_strides": [],
    },
    "dup": {
        "call_reads": 17,			# through fd 100: 16 x 4096 and the 0 at EOF
        "consec_reads": 16, "seq_reads": 16, "no_offset_reads": 0,
        "common_sizes": [[4096, 16]], "common_strides": [],
        "opens": 1,				# Darshan: 2 (dup2 is a POSIX_RECORD_REFOPEN); doc/json.md says why not
    },
    "dd": {
        "call_reads": 17,			# through fd 0: 16 x 4096 and the 0 at EOF
        "consec_reads": 16, "seq_reads": 16, "no_offset_reads": 0,
        "common_sizes": [[4096, 16]], "common_strides": [],
        "opens": 1,				# Darshan: 2 (open + dup2, issue 41: "dd gives 2 against 1"); doc/json.md says why not
    },
    "stride": {
        "call_reads": 20, "read_size_hist": H(0, 0, 20),
        # open 1: at 4096 seq (4096 > 0); 15 more seq, each 8192 on; at 0 not.
        # open 2: at 2048 seq (2048 > 0, judged from the open, not from
        # open 1's end at 4096); at 6656 seq; at 0 not. 16 + 2.
        "seq_reads": 18, "consec_reads": 0, "no_offset_reads": 0,
        "common_sizes": [[4096, 20]],
        # 4096 (8192 - 4096) x15; 512 (6656 - 6143 - 1) x1; the opens'
        # first reads and the steps back are 0: not listed.
        "common_strides": [[4096, 15], [512, 1]],
        "rw_switches": 0, "opens": 2,
    },
}
SUMMED = ("call_reads", "call_writes", "opens")

def rows(path):
    out = {}
    for line in open(path):
        for f in json.loads(line)["files"]:
            r = out.setdefault(f["path"], {k: 0 for k in SUMMED})
            r.update({k: v for k, v in f.items() if k not in SUMMED})
            for k in SUMMED:
                r[k] += f.get(k) or 0
    return out

for what, fn in (("live -J", "run.jsonl"), ("replay of the capture", "replay.jsonl")):
    got = rows("%s/%s" % (tmp, fn))
    for f, w in want.items():
        r = got.get("%s/%s.dat" % (mnt, f))
        bad = ["no row"] if r is None else \
            ["%s %s, want %s" % (k, r.get(k), v) for k, v in w.items() if r.get(k) != v]
        print("%s: %s: %s: %s.dat: %s" % ("FAIL" if bad else "PASS", name, what, f,
              "; ".join(bad) if bad else "Darshan's counts (%d fields)" % len(w)))
EOF
umount "$MNT"
