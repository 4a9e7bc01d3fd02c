#!/bin/bash
# import-logs.sh: the openat, mmap, create/delete, close and time alignment logs through -r: rows by type, the counts said, damaged copies.
. "$BLKTOP_SRCDIR/tests/lib.sh"
FIX=$BLKTOP_SRCDIR/tests/fixtures
# UBSan and ASan reports are failures here, not noise.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# dump NAME FILE [ARGS...]: blktop -r FILE --dump ARGS into $TEST_TMP/NAME.out and .err, status in $st.
dump() {
	local name=$1 file=$2
	shift 2
	timeout -s KILL 20 "$BLKTOP" -r "$file" --dump "$@" > "$TEST_TMP/$name.out" 2> "$TEST_TMP/$name.err"
	st=$?
	cat "$TEST_TMP/$name.err"
}
# rows NAME TYPE: the CSV rows of that type in dump NAME.
rows() { grep -c "^\"$2\"," "$TEST_TMP/$1.out"; }
# clean NAME: no sanitizer report and no control character in the stderr of NAME.
clean() { ! grep -q 'runtime error\|Sanitizer' "$TEST_TMP/$1.err" && ! grep -q '[[:cntrl:]]' "$TEST_TMP/$1.err"; }

# ---- the fixtures: rows by type, as each fixture was written to give.
dump openat "$FIX/import-openat.txt"
check "openat: exit 0 (status $st)" [ "$st" = 0 ]
check "openat: 7 open rows, 3 of them failed (-2, -2, -13)" \
    [ "$(rows openat open)" = 7 -a "$(grep '^"open"' "$TEST_TMP/openat.out" | cut -d, -f15 | grep -c '^-')" = 3 ]
check "openat: Lost 3 events: one lost row of 3" \
    [ "$(grep '^"lost"' "$TEST_TMP/openat.out" | cut -d, -f18)" = 3 ]
check "openat: a path with blanks kept whole" grep -q '"/home/u/my file.txt"' "$TEST_TMP/openat.out"
check "openat: the counts said in one line" \
    grep -q "import-openat.txt: 1 malformed line skipped, 7 imported; 5 other lines skipped (bpftrace's own, headers, blank); bpftrace lost 3 events" "$TEST_TMP/openat.err"
check "openat: the malformed line named with its number" \
    grep -q "import-openat.txt:9: malformed openat line, bad FD" "$TEST_TMP/openat.err"
check "openat: bpftrace's WARNING shown with its line" \
    grep -q "import-openat.txt:5: bpftrace's message, skipped: WARNING: Addrspace is not set" "$TEST_TMP/openat.err"

dump mmap "$FIX/import-mmap.txt"
check "mmap: exit 0 (status $st)" [ "$st" = 0 ]
check "mmap: 4 mmap rows, 6 munmap rows" [ "$(rows mmap mmap)" = 4 -a "$(rows mmap munmap)" = 6 ]
check "mmap: 3 munmaps named after their map (weights.bin, /data/my map.dat, dec.bin), 3 without a path" \
    [ "$(grep '^"munmap"' "$TEST_TMP/mmap.out" | cut -d, -f19 | grep -vc '^""$')" = 3 ]
check "mmap: the bytes unmapped, from the len column: 36864" \
    [ "$(grep '^"munmap"' "$TEST_TMP/mmap.out" | awk -F, '{ s += $25 } END { print s }')" = 36864 ]
check "mmap: the counts said" \
    grep -q "import-mmap.txt: 1 malformed line skipped, 10 imported; 11 other lines skipped" "$TEST_TMP/mmap.err"
dump mmapj "$FIX/import-mmap.txt" --format jsonl
check "mmap jsonl: munmap rows have addr and len, no path2" \
    sh -c "grep '\"type\":\"munmap\"' '$TEST_TMP/mmapj.out' | grep '\"addr\":' | grep '\"len\":' | grep -vc path2 | grep -qx 6"
check "mmap jsonl: a tick row has no fd, addr, len or path2" \
    sh -c "! grep '\"type\":\"tick\"' '$TEST_TMP/mmapj.out' | grep -q '\"fd\"\|\"addr\"\|\"len\"\|path2'"

dump createdel "$FIX/import-createdel.txt"
check "createdel: exit 0 (status $st)" [ "$st" = 0 ]
check "createdel: 2 mkdir, 2 unlink, 2 rmdir rows" \
    [ "$(rows createdel mkdir)" = 2 -a "$(rows createdel unlink)" = 2 -a "$(rows createdel rmdir)" = 2 ]
check "createdel: bpftrace's ERROR shown and counted" \
    grep -q "import-createdel.txt: 1 malformed line skipped, 6 imported; 4 other lines skipped" "$TEST_TMP/createdel.err"

dump close "$FIX/import-close.txt"
check "close: exit 0 (status $st)" [ "$st" = 0 ]
check "close: 4 close rows, fds 3 4 5 6 in the fd column" \
    [ "$(grep '^"close"' "$TEST_TMP/close.out" | cut -d, -f23 | tr '\n' ' ')" = "3 4 5 6 " ]
check "close: 2 malformed lines counted" \
    grep -q "import-close.txt: 2 malformed lines skipped, 4 imported" "$TEST_TMP/close.err"

# The alignment log: no rows; the clock from its lines and its mtime, in UTC.
cp "$FIX/import-timealign.txt" "$TEST_TMP/align.txt"
touch -d '2024-03-02 00:00:05 UTC' "$TEST_TMP/align.txt"
TZ=UTC dump align "$TEST_TMP/align.txt"
check "time align: exit 0, only the CSV header (status $st)" [ "$st" = 0 -a "$(wc -l < "$TEST_TMP/align.out")" = 1 ]
check "time align: the clock said, across midnight, dated by the mtime" \
    grep -q "align.txt: a clock alignment log (9 lines, dated from the file's mtime: the first line's day is 2024-03-01): wall time = CLOCK_MONOTONIC + 1709336598.025000000 s (within 0.025000 s); no events" "$TEST_TMP/align.err"

for f in openat mmap createdel close align mmapj; do
	check "$f: no sanitizer report" clean $f
done
# The model takes them: batch reports, the lost events counted.
timeout -s KILL 20 "$BLKTOP" -r "$FIX/import-openat.txt" -J > "$TEST_TMP/openat.json" 2> "$TEST_TMP/openatJ.err"
st=$?
check "openat -J: exit 0, the 3 lost events in a report (status $st)" \
    [ "$st" = 0 -a "$(grep -c '"lost":3' "$TEST_TMP/openat.json")" = 1 ]
check "openat -J: no sanitizer report" clean openatJ

# ---- damaged copies: binary garbage, a 20 KB line, a cut last line: counted, never a crash.
head -c 20000 /dev/zero | tr '\0' 7 > "$TEST_TMP/long.line"
echo >> "$TEST_TMP/long.line"
for f in openat mmap createdel close; do
	n=$(grep -c '^"' "$TEST_TMP/$f.out")
	# Garbage: 4 KiB of random bytes (NULs, control bytes, newlines) at the end.
	{ cat "$FIX/import-$f.txt"; head -c 4096 /dev/urandom; } > "$TEST_TMP/$f-junk.txt"
	dump $f-junk "$TEST_TMP/$f-junk.txt"
	check "$f + 4 KiB of garbage: exit 0, the same rows (status $st)" \
	    [ "$st" = 0 -a "$(grep -c '^"' "$TEST_TMP/$f-junk.out")" = "$n" ]
	check "$f + garbage: malformed lines counted in one line" \
	    grep -q "$f-junk.txt: [0-9]* malformed lines* skipped" "$TEST_TMP/$f-junk.err"
	check "$f + garbage: no sanitizer report, no control character shown" clean $f-junk
	# A 20 KB line after the header.
	{ head -n 2 "$FIX/import-$f.txt"; cat "$TEST_TMP/long.line"; tail -n +3 "$FIX/import-$f.txt"; } > "$TEST_TMP/$f-long.txt"
	dump $f-long "$TEST_TMP/$f-long.txt"
	check "$f + a 20 KB line: exit 0, the same rows, line 3 named (status $st)" \
	    [ "$st" = 0 -a "$(grep -c '^"' "$TEST_TMP/$f-long.out")" = "$n" ] && \
	    grep -q "$f-long.txt:3: malformed .* line, longer than 16384 bytes (20000)" "$TEST_TMP/$f-long.err"
	check "$f + a 20 KB line: no sanitizer report" clean $f-long
	# The last record cut in its middle (no newline after it).
	grep -v '^$' "$FIX/import-$f.txt" | head -c -9 > "$TEST_TMP/$f-cut.txt"
	dump $f-cut "$TEST_TMP/$f-cut.txt"
	check "$f cut short: exit 0, no more rows than whole (status $st)" \
	    [ "$st" = 0 -a "$(grep -c '^"' "$TEST_TMP/$f-cut.out")" -le "$n" ]
	check "$f cut short: no sanitizer report" clean $f-cut
done
# Cut in the last record's numbers: the last line is malformed, reported with its number.
grep -v '^$' "$FIX/import-openat.txt" | head -c -40 > "$TEST_TMP/cut2.txt"
dump cut2 "$TEST_TMP/cut2.txt"
[ "$st" = 0 -a "$(rows cut2 open)" = 6 ] &&
    grep -q "cut2.txt:12: malformed openat line, too few fields" "$TEST_TMP/cut2.err"
check_status $? "openat cut in its last record: 6 opens, line 12 malformed (status $st)"
# Only bpftrace's lines: one line, exit 1.
printf 'Attaching 2 probes...\nTIMESTAMP PID FD LAT(ns)\nERROR: oops\n\n' > "$TEST_TMP/none.txt"
dump none "$TEST_TMP/none.txt"
[ "$st" = 1 ] && grep -q "none.txt: no valid close line (0 malformed, the first none)" "$TEST_TMP/none.err"
check_status $? "a close log with no record: exit 1, says so"
# File names reach text output as printable UTF-8 only: a C1 control (CSI,
# U+009B, which a terminal may obey) or a stray byte becomes '?', a whole
# character stays.
{
	head -1 "$FIX/import-vfs.txt"
	printf '4867000000000 2022-02-05T20:27:46.000000000 1313402 python R 5000 4096 4096 a\302\233[2Jb.npy\n'
	printf '4867150000000 2022-02-05T20:27:46.150000000 1313402 python R 5001 4096 4096 caf\303\251.npy\n'
	printf '4867300000000 2022-02-05T20:27:46.300000000 1313402 python R 5002 4096 4096 x\233y.npy\n'
} > "$TEST_TMP/c1.txt"
dump c1 "$TEST_TMP/c1.txt"
timeout -s KILL 20 "$BLKTOP" -r "$TEST_TMP/c1.txt" -b -d 10 > "$TEST_TMP/c1-b.out" 2>&1
for o in c1 c1-b; do
	check "names with C1 controls, $o: no C1 or stray byte, one ? for the C1 character, one for the stray byte, cafe's e acute kept" \
	    python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(not (b"\xc2\x9b" not in b and b"\x9b" not in b and b"a?[2Jb.npy" in b and
              b"x?y.npy" in b and "café.npy".encode() in b))' "$TEST_TMP/$o.out"
done
