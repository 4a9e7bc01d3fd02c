#!/bin/bash
# faults.sh: faults found by trying to break blktop, one regression check each (disk full, trigger line and taken names, times past 2^63).
. "$BLKTOP_SRCDIR/tests/lib.sh"
FIX=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap

if user_part; then
# The trigger line shows the p99 with the digits that matter, not "0.0 ms".
mkdir -p "$TEST_TMP/rec"
"$BLKTOP" -r "$FIX" -b --trigger-p99 0.001 --record-dir "$TEST_TMP/rec" > /dev/null 2> "$TEST_TMP/trig"
st=$?
cat "$TEST_TMP/trig"
check "trigger: exit 0" [ "$st" = 0 ]
check "trigger: the p99 keeps three digits (0.07 ms here, not rounded to 0.1 or 0.0)" \
    grep -qE "p99 0\.07[0-9]* ms > 0.001 ms" "$TEST_TMP/trig"

# --dump of times at or past 2^63 ns: no signed overflow (UBSan in the debug build), sane wall times.
printf 'TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n%s\n%s\n' \
    "9300000000000000000 2022-02-05T20:27:46.000000000 1 python 0 kworker sdb 0 8 4096 50000" \
    "9300000000100000000 2022-02-05T20:27:46.100000000 1 python 0 kworker sdb 0 8 4096 50000" \
    > "$TEST_TMP/hi.log"
"$BLKTOP" -r "$TEST_TMP/hi.log" --dump > "$TEST_TMP/hi.csv" 2> "$TEST_TMP/hi.err"
st=$?
cat "$TEST_TMP/hi.err"
check "--dump past 2^63 ns: exit 0" [ "$st" = 0 ]
check "--dump past 2^63 ns: no runtime error" [ ! -s "$TEST_TMP/hi.err" ]
check "--dump past 2^63 ns: wall times from the TIME column" \
    grep -q '^"block",1644092866.100000000,9300000000100000000,' "$TEST_TMP/hi.csv"

# -r of a FIFO: one line and exit 1 at once, not a blocked open().
mkfifo "$TEST_TMP/fifo"
for args in "-J" "--dump"; do
	t0=$(date +%s%N)
	timeout -s KILL 5 "$BLKTOP" -r "$TEST_TMP/fifo" $args > /dev/null 2> "$TEST_TMP/fifo.err"
	st=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	# 1 s: the refusal is a stat and one line (milliseconds); the fault this
	# catches is an open() that blocks until killed (5 s). A machine a hundred
	# times slower, or one scheduling blktop late, still passes.
	check "-r FIFO $args: exit 1 within 1 s (status $st, $ms ms)" [ "$st" = 1 -a "$ms" -lt 1000 ]
	check "-r FIFO $args: says it is not a regular file" grep -q "fifo: not a regular file" "$TEST_TMP/fifo.err"
done

# Damaged captures: a flipped bit in the 530-byte file header costs the
# header, not the file; a chunk whose length lies (its header CRC made to
# match) costs that chunk, not the good one after it; a file cut short by
# someone else during the replay (it is mapped) is damage, not SIGBUS.
python3 - "$FIX" "$TEST_TMP" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
o = 20 + struct.unpack("<I", d[12:16])[0]
chunks = []
while o < len(d):
    comp, nrec = struct.unpack("<I", d[o + 4:o + 8])[0], struct.unpack("<I", d[o + 12:o + 16])[0]
    chunks.append((o, comp, nrec))
    o += 40 + comp
for pos, name in ((3, "magic"), (13, "length"), (17, "crc"), (40, "body")):
    b = bytearray(d); b[pos] ^= 0x10
    open("%s/hdr-%s.blkcap" % (sys.argv[2], name), "wb").write(b)
b = bytearray(d); o, comp, nrec = chunks[1]
struct.pack_into("<I", b, o + 4, comp + chunks[2][1] + 40 + 100)
struct.pack_into("<I", b, o + 36, zlib.crc32(bytes(b[o:o + 36])))
open(sys.argv[2] + "/lying.blkcap", "wb").write(b)
open(sys.argv[2] + "/lying.want", "w").write("%d\n" % (sum(c[2] for c in chunks) - nrec))
PY
blocks() { grep -c '"block"' "$1"; }
"$BLKTOP" -r "$FIX" --dump >"$TEST_TMP/fix.csv" 2>/dev/null
all=$(blocks "$TEST_TMP/fix.csv")
for name in magic length crc body; do
	"$BLKTOP" -r "$TEST_TMP/hdr-$name.blkcap" --dump >"$TEST_TMP/h.csv" 2>"$TEST_TMP/h.err"
	st=$?
	check "a flipped bit in the header's $name: all $all requests replay (got $(blocks "$TEST_TMP/h.csv"), exit $st), one line says so ($(head -n 1 "$TEST_TMP/h.err" | head -c 120))" \
	    sh -c "[ $st = 0 -a $(blocks "$TEST_TMP/h.csv") = $all ] && grep -q 'damaged header.*replaying the chunks after it' '$TEST_TMP/h.err' &&
	    grep -q 'skipped 1 damaged' '$TEST_TMP/h.err'"
done
"$BLKTOP" -r "$TEST_TMP/lying.blkcap" --dump >"$TEST_TMP/l.csv" 2>"$TEST_TMP/l.err"
want=$(grep -c '"block"\|"tick"\|"lost"' "$TEST_TMP/fix.csv")
check "a chunk whose length lies: only its records are lost ($(grep -c '"block"\|"tick"\|"lost"' "$TEST_TMP/l.csv") of $want kept, $(cat "$TEST_TMP/lying.want") wanted)" \
    [ "$(grep -c '"block"\|"tick"\|"lost"' "$TEST_TMP/l.csv")" = "$(cat "$TEST_TMP/lying.want")" ]
cp "$FIX" "$TEST_TMP/shrink.blkcap"
"$BLKTOP" -r "$TEST_TMP/shrink.blkcap" -J --speed 1 >"$TEST_TMP/s.jsonl" 2>"$TEST_TMP/s.err" &
spid=$!
TEST_PIDS="$TEST_PIDS $spid"
sleep 2.5
truncate -s 40000 "$TEST_TMP/shrink.blkcap"
for i in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
kill -TERM "$spid" 2>/dev/null
wait "$spid"
st=$?
check "a capture cut short during the replay: no SIGBUS (exit $st), the shrink said ($(head -c 120 "$TEST_TMP/s.err"))" \
    sh -c "[ $st = 0 ] && grep -q 'shrank while it was read' '$TEST_TMP/s.err'"
fi

# ---- with root: a full file system, names taken by another user
need_root
# A 16 KiB tmpfs: the capture of the fixture (about 160 KiB) cannot fit.
mkdir -p "$TEST_TMP/tiny"
mount -t tmpfs -o size=16k tmpfs "$TEST_TMP/tiny" || { fail "mount a small tmpfs"; exit 1; }
"$BLKTOP" -r "$FIX" -w "$TEST_TMP/tiny/x.blkcap" -J > "$TEST_TMP/out.jsonl" 2> "$TEST_TMP/err"
st=$?
cat "$TEST_TMP/err"
check "disk full: exit status is not 0 ($st)" [ "$st" != 0 ]
check "disk full: one line says the recording stopped and why" \
    grep -q "recording stopped: .*No space left on device" "$TEST_TMP/err"
check "disk full: the reports still come" [ "$(wc -l < "$TEST_TMP/out.jsonl")" -gt 0 ]
"$BLKTOP" -r "$TEST_TMP/tiny/x.blkcap" -J > /dev/null 2>"$TEST_TMP/err2"
check "disk full: what was written replays" [ $? = 0 ]
umount "$TEST_TMP/tiny"

# A trigger capture's name already taken, by a file of another user and by a
# symlink: the recording goes to the next free name, neither is touched.
mkdir -p "$TEST_TMP/taken" && chmod 755 "$TEST_TMP/taken"
host=$(uname -n | tr / _)
now=$(date +%s)
for t in $(seq $((now - 1)) $((now + 8))); do
	stamp=$(date -d "@$t" +%Y%m%d-%H%M%S)
	echo "someone's" > "$TEST_TMP/taken/blktop-$host-$stamp.blkcap"
	chown 65534:65534 "$TEST_TMP/taken/blktop-$host-$stamp.blkcap"
	ln -s "$TEST_TMP/target" "$TEST_TMP/taken/blktop-$host-$stamp-1.blkcap"
done
"$BLKTOP" -r "$FIX" -b --trigger-p99 0.001 --record-dir "$TEST_TMP/taken" > /dev/null 2> "$TEST_TMP/taken.err"
st=$?
made=$(ls "$TEST_TMP/taken" | grep -- '-2\.blkcap$')
[ "$st" = 0 -a -n "$made" ] && "$BLKTOP" -r "$TEST_TMP/taken/$made" -J -n 1 >/dev/null 2>&1
check_status $? "trigger, names taken: exit 0, recorded to the next free name (${made:-none}: $(head -c 200 "$TEST_TMP/taken.err"))"
theirs=$(find "$TEST_TMP/taken" -type f -user 65534 -name '*[0-9][0-9][0-9][0-9][0-9][0-9].blkcap' \
    -exec cat {} + | sort | uniq -c | awk '{ print $1, $2 }')
check "trigger, names taken: the other user's 10 files untouched ($theirs), the symlinks not followed" \
    [ ! -e "$TEST_TMP/target" -a "$theirs" = "10 someone's" ]
