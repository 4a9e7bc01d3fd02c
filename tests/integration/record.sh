#!/bin/bash
# record.sh: -w then -r gives the same reports; damage, errors, disk full, file safety, imports, --dump.
. "$BLKTOP_SRCDIR/tests/lib.sh"
FIX=$BLKTOP_SRCDIR/tests/fixtures

# count_dump FILE TYPE: rows of one type in a --dump csv.
count_dump() { "$BLKTOP" -r "$1" --dump 2>/dev/null | grep -c "^\"$2\","; }
# one_line_error NAME FILE: exit 1 with exactly one line on stderr.
one_line_error() {
	"$BLKTOP" -r "$2" -b >"$TEST_TMP/o" 2>"$TEST_TMP/e"
	local st=$?
	check "$1: exit 1 ($st), one line ($(wc -l <"$TEST_TMP/e")): $(head -c 100 "$TEST_TMP/e")" \
	    [ "$st" = 1 -a "$(wc -l <"$TEST_TMP/e")" = 1 -a ! -s "$TEST_TMP/o" ]
}

# ---- without root: imports, errors, dump of the fixtures
if user_part; then
check "import block_rq_issue: 11 requests" [ "$(count_dump "$FIX/import-issue.txt" block)" = 11 ]
check "import block_rq_issue: 3 ticks" [ "$(count_dump "$FIX/import-issue.txt" tick)" = 3 ]
out=$("$BLKTOP" -r "$FIX/import-issue.txt" -J 2>"$TEST_TMP/imp.err")
check "import block_rq_issue: JSON totals 2 reads, 7 writes, 2 other" [ "$(echo "$out" | python3 -c '
import json, sys
r = w = o = 0
for l in sys.stdin:
    for d in json.loads(l)["devices"]:
        r += d["read"]["ios"]; w += d["write"]["ios"]; o += d["other"]["ios"]
        assert d["read"]["lat_us"] is None and d["write"]["lat_us"] is None, "latency from nothing"
print(r, w, o)')" = "2 7 2" ]
check "import block_rq_issue: malformed line reported with its number" grep -q 'import-issue.txt:11: malformed' "$TEST_TMP/imp.err"
check "import biosnoop: 31 requests" [ "$(count_dump "$FIX/import-bio.txt" block)" = 31 ]
out=$("$BLKTOP" -r "$FIX/import-bio.txt" -J 2>/dev/null)
check "import biosnoop: two disks, 31 requests, p99 from the LAT column" [ "$(echo "$out" | python3 -c '
import json, sys
n = 0; names = set(); p99 = 0
for l in sys.stdin:
    for d in json.loads(l)["devices"]:
        names.add(d["name"]); n += d["read"]["ios"] + d["write"]["ios"]
        p99 = max([p99] + [d[o]["lat_us"]["p99"] for o in ("read", "write") if d[o]["lat_us"]])
print(n, " ".join(sorted(names)), 250 < p99 < 500)')" = "31 sda sdb True" ]
check "import biosnoop: -D by the log's disk name" [ "$("$BLKTOP" -r "$FIX/import-bio.txt" -J -D sdb 2>/dev/null |
    python3 -c 'import json,sys; print(sorted({d["name"] for l in sys.stdin for d in json.loads(l)["devices"]}))')" = "['sdb']" ]
check "import vfs read/write: 21 calls" [ "$(count_dump "$FIX/import-vfs.txt" rw)" = 21 ]
check "import vfs: a name with blanks kept" sh -c "'$BLKTOP' -r '$FIX/import-vfs.txt' --dump 2>/dev/null | grep -q '\"file with blanks.txt\"'"
csv=$("$BLKTOP" -r "$FIX/import-bio.txt" --dump --format csv 2>/dev/null | wc -l)
jsonl=$("$BLKTOP" -r "$FIX/import-bio.txt" --dump --format jsonl 2>/dev/null | wc -l)
check "dump: csv rows (header + 35) and jsonl rows (35)" [ "$csv" = 36 -a "$jsonl" = 35 ]

: >"$TEST_TMP/empty"
one_line_error "empty file" "$TEST_TMP/empty"
head -c 4096 /dev/urandom >"$TEST_TMP/garbage"
one_line_error "garbage" "$TEST_TMP/garbage"
printf 'hello\nworld\n' >"$TEST_TMP/text"
one_line_error "text that is no log" "$TEST_TMP/text"
one_line_error "missing file" "$TEST_TMP/nonexistent"
printf 'Attaching 1 probe...\n' >"$TEST_TMP/nolines.txt"
one_line_error "log without a valid line" "$TEST_TMP/nolines.txt"
fi

# ---- with root: record a real workload
need_root
need_cmd fio fio
LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
CAP=$TEST_TMP/run.blkcap
FULL=$TEST_TMP/full
# The tiny file system goes away on every exit path, before lib.sh's cleanup.
trap 'umount "$FULL" 2>/dev/null; test_cleanup' EXIT

"$BLKTOP" -b -J -w "$CAP" -D "$DEV" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "first report within $START_S s"
fio --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=4 --size=128M \
    --name=rand --rw=randrw --bs=4k --runtime=2 --time_based \
    --name=seq --stonewall --rw=write --bs=64k --runtime=1 --time_based \
    >"$TEST_TMP/fio.out" 2>&1 || fail "fio ran"
sleep 0.5
kill -INT "$pid"
wait "$pid"
check "record: blktop -w exits 0" [ $? = 0 ]
check "record: nothing on stderr" [ ! -s "$TEST_TMP/live.err" ]
check "record: the file is 0600" [ "$(stat -c %a "$CAP")" = 600 ]
check "record: every report says what blktop cost" \
    [ "$(grep -c '"self":{"lost":[0-9]*,"cpu_pct":[0-9]' "$TEST_TMP/live.jsonl")" = "$(wc -l <"$TEST_TMP/live.jsonl")" ]
noself "$TEST_TMP/live.jsonl" >"$TEST_TMP/live.self" && mv "$TEST_TMP/live.self" "$TEST_TMP/live.jsonl"
"$BLKTOP" -r "$CAP" -b -J >"$TEST_TMP/replay.out" 2>"$TEST_TMP/replay.err"
check "replay: exit 0, nothing on stderr" [ $? = 0 -a ! -s "$TEST_TMP/replay.err" ]
noself "$TEST_TMP/replay.out" >"$TEST_TMP/replay.jsonl"
check "replay: $(wc -l <"$TEST_TMP/live.jsonl") JSON reports identical line for line" \
    cmp -s "$TEST_TMP/live.jsonl" "$TEST_TMP/replay.jsonl"
cmp "$TEST_TMP/live.jsonl" "$TEST_TMP/replay.jsonl" | head -3
"$BLKTOP" -r "$CAP" -b -J -D "$DEV" 2>/dev/null | noself >"$TEST_TMP/replay-D.jsonl"
check "replay: with -D, the same" cmp -s "$TEST_TMP/replay-D.jsonl" "$TEST_TMP/live.jsonl"

# Without privileges: a copy readable by nobody's uid.
mkdir -m 755 "$TEST_TMP/pub" && chmod 711 "$TEST_TMP" && cp "$CAP" "$TEST_TMP/pub/" &&
    chmod 644 "$TEST_TMP/pub/run.blkcap"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BLKTOP" -r "$TEST_TMP/pub/run.blkcap" \
	    -b -J >"$TEST_TMP/nobody.out" 2>"$TEST_TMP/nobody.err"
	st=$?
	noself "$TEST_TMP/nobody.out" >"$TEST_TMP/nobody.jsonl"
	same=0
	cmp -s "$TEST_TMP/nobody.jsonl" "$TEST_TMP/live.jsonl" && same=1
	check "replay as uid 65534: exit 0, same reports" [ "$st" = 0 -a "$same" = 1 ]
	cat "$TEST_TMP/nobody.err"
else
	skip "replay as non-root: no setpriv"
fi

# --dump rows against the reports: every block row is a request of a report.
events=$(python3 -c 'import json,sys; print(sum(d[o]["ios"] for l in open(sys.argv[1]) for d in json.loads(l)["devices"] for o in ("read","write","other")))' "$TEST_TMP/live.jsonl")
reports=$(wc -l <"$TEST_TMP/live.jsonl")
csv=$("$BLKTOP" -r "$CAP" --dump | tail -n +2 | wc -l)
blocks=$("$BLKTOP" -r "$CAP" --dump | grep -c '^"block"')
ticks=$("$BLKTOP" -r "$CAP" --dump | grep -c '^"tick"')
jsonl=$("$BLKTOP" -r "$CAP" --dump --format jsonl | python3 -c 'import json,sys; print(sum(1 for l in sys.stdin if json.loads(l)))')
check "dump: $blocks block rows = $events requests in the reports, $ticks ticks = $reports reports" \
    [ "$blocks" = "$events" -a "$ticks" = "$reports" ]
check "dump: csv $csv rows = jsonl $jsonl rows" [ "$csv" = "$jsonl" ]
# Block request times come to TS_QUANTUM_NS from the kernel side.
q=$(awk '$2 == "TS_QUANTUM_NS" { print $3 }' "$BLKTOP_SRCDIR/bpf/blktop-abi.h")
odd=$("$BLKTOP" -r "$CAP" --dump --format csv | python3 -c '
import csv, sys
q = int(sys.argv[1])
rows = [r for r in csv.DictReader(sys.stdin) if r["type"] == "block"]
print(sum(1 for r in rows for k in ("ts_ns", "lat_ns", "queue_ns") if int(r[k]) % q) if rows else -1)' "$q")
check "dump: block times are multiples of $q ns ($odd are not)" [ "$odd" = 0 ]

# Damage: cut anywhere, flip bytes: replay up to the damage, say so, never crash.
size=$(stat -c %s "$CAP")
bad=0
for off in 0 7 19 20 64 200 1000 $(seq 5000 $(( (size - 5000) / 40 + 1 )) "$size") $((size - 1)); do
	head -c "$off" "$CAP" >"$TEST_TMP/cut.blkcap"
	"$BLKTOP" -r "$TEST_TMP/cut.blkcap" -b -J >"$TEST_TMP/cut.out" 2>"$TEST_TMP/cut.err"
	st=$?
	noself "$TEST_TMP/cut.out" >"$TEST_TMP/cut.jsonl"
	if [ "$st" -gt 1 ] || grep -q 'Sanitizer\|runtime error' "$TEST_TMP/cut.err"; then
		echo "cut at $off: status $st"; bad=$((bad + 1)); continue
	fi
	# A cut inside the header is an error; after it, what is whole replays.
	if [ "$st" = 0 ]; then
		n=$(wc -l <"$TEST_TMP/cut.jsonl")
		[ "$n" -le "$reports" ] || { echo "cut at $off: $n reports"; bad=$((bad + 1)); }
		head -n $((n > 1 ? n - 1 : 0)) "$TEST_TMP/cut.jsonl" | cmp -s - <(head -n $((n > 1 ? n - 1 : 0)) "$TEST_TMP/live.jsonl") ||
		    { echo "cut at $off: reports before the cut differ"; bad=$((bad + 1)); }
		# A cut between two chunks leaves whole chunks: a capture with nothing
		# lost (the format has no end mark), so nothing to say; anywhere else
		# the bytes lost are said.
		at_chunk=$(tail -c +$((off + 1)) "$CAP" | head -c 4 | od -An -tx1 | tr -d ' \n')
		if [ "$off" -lt "$size" ] && [ "$off" -gt 1000 ] && [ "$at_chunk" != b16b4348 ] &&
		    ! grep -q 'lost [0-9]* bytes at the end' "$TEST_TMP/cut.err"; then
			echo "cut at $off of $size: no message (the bytes there: $at_chunk)"; bad=$((bad + 1))
		fi
	elif [ "$(wc -l <"$TEST_TMP/cut.err")" != 1 ]; then
		echo "cut at $off: not one line"; bad=$((bad + 1))
	fi
done
check "damage: truncation at 48 offsets" [ "$bad" = 0 ]
bad=0
for i in $(seq 1 25); do
	cp "$CAP" "$TEST_TMP/flip.blkcap"
	off=$(( (RANDOM * 32768 + RANDOM) % (size - 400) + 400 ))
	printf "\\x$(printf %02x $((RANDOM % 255 + 1)))" |
	    dd of="$TEST_TMP/flip.blkcap" bs=1 seek="$off" conv=notrunc status=none
	"$BLKTOP" -r "$TEST_TMP/flip.blkcap" -b -J >/dev/null 2>"$TEST_TMP/flip.err"
	st=$?
	if [ "$st" != 0 ] || grep -q 'Sanitizer\|runtime error' "$TEST_TMP/flip.err"; then
		echo "flip at $off: status $st: $(head -c 200 "$TEST_TMP/flip.err")"; bad=$((bad + 1))
	fi
done
check "damage: 25 flipped bytes replay with exit 0" [ "$bad" = 0 ]
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[8] = 9; d[10] = 0; open(sys.argv[2], "wb").write(d)' \
    "$CAP" "$TEST_TMP/v9.blkcap"
one_line_error "unknown version" "$TEST_TMP/v9.blkcap"
check "unknown version: the message names it" grep -q 'version 9.0' "$TEST_TMP/e"

# Files: never overwritten, no symbolic link followed.
echo keep >"$TEST_TMP/exists.blkcap"
"$BLKTOP" -b -J -n 1 -w "$TEST_TMP/exists.blkcap" -D "$DEV" >/dev/null 2>"$TEST_TMP/e"
check "an existing file: exit 1, one line, left alone" [ $? = 1 -a \
    "$(wc -l <"$TEST_TMP/e")" = 1 -a "$(cat "$TEST_TMP/exists.blkcap")" = keep ]
ln -s "$TEST_TMP/target" "$TEST_TMP/link.blkcap"
"$BLKTOP" -b -J -n 1 -w "$TEST_TMP/link.blkcap" -D "$DEV" >/dev/null 2>"$TEST_TMP/e"
check "a symbolic link: exit 1, not followed" [ $? = 1 -a ! -e "$TEST_TMP/target" ]

# Disk full: a 256 KiB tmpfs; recording stops with a message, the view goes on, the file replays.
mkdir -p "$FULL"
if mount -t tmpfs -o size=256k tmpfs "$FULL"; then
	# Block requests only: the whole system's file I/O would fill 256 KiB before the first tick.
	"$BLKTOP" -b -J --no-vfs -w "$FULL/full.blkcap" -D "$DEV" >"$TEST_TMP/full.jsonl" 2>"$TEST_TMP/full.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$TEST_TMP/full.jsonl" "$START_S"
	fio --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=8 --size=128M \
	    --name=rand --rw=randread --bs=4k --runtime=3 --time_based >/dev/null 2>&1
	sleep 1.2
	n1=$(wc -l <"$TEST_TMP/full.jsonl")
	sleep 1.2
	n2=$(wc -l <"$TEST_TMP/full.jsonl")
	kill -INT "$pid"
	wait "$pid"
	st=$?
	check "disk full: exit 1 (the recording failed; exit $st)" [ "$st" = 1 ]
	check "disk full: one message: $(head -c 160 "$TEST_TMP/full.err")" \
	    [ "$(grep -c 'recording stopped: .*No space left on device' "$TEST_TMP/full.err")" = 1 ]
	check "disk full: reports go on ($n1 then $n2)" [ "$n2" -gt "$n1" ]
	"$BLKTOP" -r "$FULL/full.blkcap" -b -J >"$TEST_TMP/full-replay.jsonl" 2>"$TEST_TMP/full-replay.err"
	check "disk full: the file replays (exit $?, $(wc -l <"$TEST_TMP/full-replay.jsonl") reports)" \
	    [ -s "$TEST_TMP/full-replay.jsonl" ]
	umount "$FULL"
else
	fail "mount a tmpfs"
fi

# Trigger: p99 above 1 ns starts a recording that begins with the flight recorder's seconds.
mkdir -p "$TEST_TMP/trig"
"$BLKTOP" -b -J -D "$DEV" --trigger-p99 0.000001 --record-dir "$TEST_TMP/trig" \
    >"$TEST_TMP/trig.jsonl" 2>"$TEST_TMP/trig.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$TEST_TMP/trig.jsonl" "$START_S"
dd if="$LOOP" of=/dev/null bs=4k count=2000 iflag=direct status=none
sleep 2.2
kill -INT "$pid"
wait "$pid"
f=$(ls "$TEST_TMP"/trig/blktop-*.blkcap 2>/dev/null | head -1)
check "trigger: a capture named blktop-HOST-DATE-TIME.blkcap: ${f##*/}" [ -n "$f" ]
check "trigger: said so on stderr" grep -q 'trigger: .* p99' "$TEST_TMP/trig.err"
if [ -n "$f" ]; then
	n=$("$BLKTOP" -r "$f" --dump | grep -c '^"block"')
	check "trigger: the capture holds the 2000 reads that fired it ($n)" [ "$n" -ge 2000 ]
fi
exit 0
