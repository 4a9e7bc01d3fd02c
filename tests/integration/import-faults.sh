#!/bin/bash
# import-faults.sh: bad bpftrace logs for -r, one regression check each (times near 2^64, huge lines, year 0, NULs, garbage).
. "$BLKTOP_SRCDIR/tests/lib.sh"
HDR='TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)'
# UBSan and ASan reports are failures here, not noise.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# bio LINE-PREFIX: a biosnoop line "TS TIME" + the rest of a valid record.
bio() { echo "$1 1 python 0 kworker sdb 0 8 4096 50000"; }

# below MAX_KB: whether a /usr/bin/time maxrss figure is known and below the bound.
below() { [ -n "$1" ] && [ "$1" -lt "$2" ]; }
# grep_err NAME ERE: whether the stderr of run NAME matches.
grep_err() { grep -qE "$2" "$TEST_TMP/$1.err"; }

# run NAME SECS ARGS...: blktop ARGS with a time limit; stdout in $TEST_TMP/NAME.out,
# stderr in .err, status in $st, elapsed ms in $ms.
run() {
	local name=$1 secs=$2 t0
	shift 2
	t0=$(date +%s%N)
	timeout -s KILL "$secs" "$BLKTOP" "$@" > "$TEST_TMP/$name.out" 2> "$TEST_TMP/$name.err"
	st=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	cat "$TEST_TMP/$name.err"
}

# ---- timestamps near 2^64: the tick step t + 1 s wrapped, -b printed empty reports forever.
{ echo "$HDR"; bio "18446744073709000000 2022-02-05T20:27:46.000000000"
  bio "18446744073709500000 2022-02-05T20:27:46.500000000"; } > "$TEST_TMP/top.log"
run top 5 -r "$TEST_TMP/top.log" -b
check "ts near 2^64 -b: ends within 5 s with status 1 (status $st, $ms ms)" [ "$st" = 1 ]
check "ts near 2^64 -b: no report printed" [ ! -s "$TEST_TMP/top.out" ]
check "ts near 2^64 -b: the error names the first bad line and why" \
    grep -q "top.log: no valid biosnoop line (2 malformed, the first line 2, timestamp 18446744073709000000 past" "$TEST_TMP/top.err"
check "ts near 2^64: no sanitizer report" sh -c "! grep -q 'runtime error\|Sanitizer' '$TEST_TMP/top.err'"
# The last timestamps that still have a next tick: imported, and the replay ends.
{ echo "$HDR"; bio "18446744072999000000 2022-02-05T20:27:46.000000000"
  bio "18446744072999999999 2022-02-05T20:27:46.999999999"; } > "$TEST_TMP/max.log"
for mode in -b -J --dump; do
	run max 5 -r "$TEST_TMP/max.log" $mode
	check "last representable ts $mode: exit 0 within 5 s (status $st, $ms ms)" [ "$st" = 0 ]
	check "last representable ts $mode: no error" [ ! -s "$TEST_TMP/max.err" ]
done
check "last representable ts --dump: both requests and one tick at 2^64 - 0.709551615 s" \
    [ "$(grep -c '^"block"' "$TEST_TMP/max.out")" = 2 -a \
      "$(grep '^"tick"' "$TEST_TMP/max.out" | cut -d, -f3)" = 18446744073000000000 ]
check "last representable ts --dump: wall time from the first TIME, plus the ns between" \
    grep -q '^"block",1644092866.000999999,18446744072999999999,' "$TEST_TMP/max.out"

# ---- a 2 GiB file without a newline: read whole into memory (2.1 GB RSS) before.
truncate -s 2G "$TEST_TMP/big.log"
/usr/bin/time -f "maxrss_kb %M" -o "$TEST_TMP/big.time" \
    timeout -s KILL 60 "$BLKTOP" -r "$TEST_TMP/big.log" -J > /dev/null 2> "$TEST_TMP/big.err"
st=$?
cat "$TEST_TMP/big.err" "$TEST_TMP/big.time"
rss=$(awk '/maxrss_kb/ { print $2 }' "$TEST_TMP/big.time")
check "2 GiB line: exit 1 (status $st)" [ "$st" = 1 ]
# 200 MB on any machine: the reader holds 16 KiB of a line at most and a
# replay's tables are blktop's own bounded ones (no BPF ring); the fault this
# catches read the line whole, 2.1 GB.
check "2 GiB line: max RSS under 200 MB ($rss kB)" below "$rss" 200000
check "2 GiB line: one line names line 1 and why" \
    grep -q "big.log:1: not a text log blktop can import: line longer than 16384 bytes" "$TEST_TMP/big.err"
rm -f "$TEST_TMP/big.log"
# The same after a valid first line: the long line is skipped and counted, the rest imported.
{ echo "$HDR"; bio "4867000000000 2022-02-05T20:27:46.000000000"
  head -c 40000000 /dev/zero | tr '\0' 7; echo
  bio "4867100000000 2022-02-05T20:27:46.100000000"; } > "$TEST_TMP/long.log"
/usr/bin/time -f "maxrss_kb %M" -o "$TEST_TMP/long.time" \
    timeout -s KILL 30 "$BLKTOP" -r "$TEST_TMP/long.log" --dump > "$TEST_TMP/long.out" 2> "$TEST_TMP/long.err"
st=$?
cat "$TEST_TMP/long.err" "$TEST_TMP/long.time"
rss=$(awk '/maxrss_kb/ { print $2 }' "$TEST_TMP/long.time")
check "40 MB line among valid ones: exit 0, both valid lines imported (status $st)" \
    [ "$st" = 0 -a "$(grep -c '^"block"' "$TEST_TMP/long.out")" = 2 ]
check "40 MB line: max RSS under 200 MB ($rss kB)" below "$rss" 200000
check "40 MB line: reported with its number and counted" \
    grep -q "long.log:3: malformed biosnoop line, longer than 16384 bytes (40000000)" "$TEST_TMP/long.err"
check "40 MB line: the count of skipped lines" grep -q "long.log: 1 malformed line skipped, 2 imported" "$TEST_TMP/long.err"

# ---- year 0000 in the TIME column: a signed overflow (UBSan) and a wall clock 62 billion s before 1970.
{ echo "$HDR"; bio "4867000000000 0000-01-01T00:00:00.000000000"; } > "$TEST_TMP/y0.log"
run y0 5 -r "$TEST_TMP/y0.log" -J
check "year 0000: no sanitizer report" sh -c "! grep -q 'runtime error\|Sanitizer' '$TEST_TMP/y0.err'"
check "year 0000: exit 1 (status $st)" \
    [ "$st" = 1 ]
check "year 0000: the line reported as malformed and why" \
    grep_err y0 "y0.log:2: malformed biosnoop line, TIME date not between 1970 and 2262"
{ echo "$HDR"; bio "4867000000000 9999-12-31T23:59:59.000000000"
  bio "4867100000000 2022-02-05T20:27:46.100000000"; } > "$TEST_TMP/y9.log"
run y9 5 -r "$TEST_TMP/y9.log" --dump
check "year 9999 then a good line: exit 0 (status $st)" [ "$st" = 0 ]
check "year 9999 then a good line: the good line imported with its wall clock" \
    grep -q '^"block",1644092866.100000000,4867100000000,' "$TEST_TMP/y9.out"
check "year 9999: no sanitizer report" sh -c "! grep -q 'runtime error\|Sanitizer' '$TEST_TMP/y9.err'"

# ---- lines over 8 KB were cut at 8191 bytes: what followed was lost silently.
pad=$(head -c 9000 /dev/zero | tr '\0' ' ')
{ echo "$HDR"; bio "4867000000000 2022-02-05T20:27:46.000000000"
  echo "$(bio "4867100000000 2022-02-05T20:27:46.100000000")$pad trailing-garbage"; } > "$TEST_TMP/cut.log"
run cut 5 -r "$TEST_TMP/cut.log" --dump
check "9 KB line: the whole line is parsed: its trailing garbage makes it malformed" \
    grep -q "cut.log:3: malformed biosnoop line, wrong number of fields" "$TEST_TMP/cut.err"
check "9 KB line: one request imported, exit 0 (status $st)" \
    [ "$st" = 0 -a "$(grep -c '^"block"' "$TEST_TMP/cut.out")" = 1 ]

# ---- a NUL in mid-line: counted as valid when opening, dropped silently when reading.
{ echo "$HDR"; bio "4867000000000 2022-02-05T20:27:46.000000000"
  printf '%s\0junk\n' "$(bio "4867100000000 2022-02-05T20:27:46.100000000")"
  bio "4867200000000 2022-02-05T20:27:46.200000000"; } > "$TEST_TMP/nul.log"
run nul 5 -r "$TEST_TMP/nul.log" --dump
check "NUL mid-line: reported with line and column" \
    grep -q "nul.log:3: malformed biosnoop line, NUL byte at column 82" "$TEST_TMP/nul.err"
check "NUL mid-line: counted in the skipped lines" grep -q "nul.log: 1 malformed line skipped, 2 imported" "$TEST_TMP/nul.err"
check "NUL mid-line: the two other requests imported, exit 0 (status $st)" \
    [ "$st" = 0 -a "$(grep -c '^"block"' "$TEST_TMP/nul.out")" = 2 ]
# A NUL on line 1 rejected the whole file as binary.
{ printf 'x\0y\n'; cat "$BLKTOP_SRCDIR/tests/fixtures/import-bio.txt"; } > "$TEST_TMP/nul1.log"
run nul1 5 -r "$TEST_TMP/nul1.log" --dump
check "NUL on line 1: the log is still imported, 31 requests (status $st)" \
    [ "$st" = 0 -a "$(grep -c '^"block"' "$TEST_TMP/nul1.out")" = 31 ]
check "NUL on line 1: reported" grep -q "nul1.log:1: malformed biosnoop line, NUL byte at column 2" "$TEST_TMP/nul1.err"

# ---- not a log at all: one line naming the first bad line and why, not a generic message.
for i in $(seq 70); do echo "garbage line $i"; done > "$TEST_TMP/garbage.txt"
run garbage 5 -r "$TEST_TMP/garbage.txt" -J
check "70 garbage lines: exit 1, one line (status $st)" [ "$st" = 1 -a "$(wc -l < "$TEST_TMP/garbage.err")" = 1 ]
check "70 garbage lines: names line 1 and why" \
    grep -q "garbage.txt:1: not a text log blktop can import: neither block_rq_issue (not 5 comma-separated fields), biosnoop (too few fields) nor vfs_rw (too few fields): garbage line 1" "$TEST_TMP/garbage.err"
# Binary junk: one line, control characters not sent to the terminal, C1
# controls spelled in UTF-8 (C2 80-9F) included: 40 files of random bytes from
# fixed seeds (from /dev/urandom, 1 run in 40 once failed here).
bad_exit=0 bad_cntrl=0
# The 40 files made by one Python (40 starts of it were 2.4 s of CPU).
python3 -c "
import random, sys
for seed in range(1, 41):
    r = random.Random(seed)
    open('$TEST_TMP/random%d.bin' % seed, 'wb').write(bytes(r.getrandbits(8) for _ in range(100000)))"
for seed in $(seq 40); do
	mv "$TEST_TMP/random$seed.bin" "$TEST_TMP/random.bin"
	run random 5 -r "$TEST_TMP/random.bin" -J > /dev/null
	[ "$st" = 1 -a "$(wc -l < "$TEST_TMP/random.err")" = 1 ] || bad_exit=$((bad_exit + 1))
	grep -q '[[:cntrl:]]' "$TEST_TMP/random.err" && bad_cntrl=$((bad_cntrl + 1))
	LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$TEST_TMP/random.err" && bad_cntrl=$((bad_cntrl + 1))
done
# A first line that spells a C1 CSI (U+009B) in UTF-8, then an SGR sequence.
printf 'x \xc2\x9b31mred \xc2\x85 \xe2\x80\xae tail\n' > "$TEST_TMP/c1.bin"
run c1 5 -r "$TEST_TMP/c1.bin" -J > /dev/null
grep -q '[[:cntrl:]]' "$TEST_TMP/c1.err" && bad_cntrl=$((bad_cntrl + 1))
LC_ALL=C grep -q $'\xc2[\x80-\x9f]' "$TEST_TMP/c1.err" && bad_cntrl=$((bad_cntrl + 1))
check "random bytes (40 seeds): exit 1, one line ($bad_exit did not)" [ "$bad_exit" = 0 ]
check "random bytes (40 seeds) and a line of UTF-8 C1 controls: none in the message ($bad_cntrl had one)" \
    [ "$bad_cntrl" = 0 ]
check "random bytes: no sanitizer report" sh -c "! grep -q 'runtime error\|Sanitizer' '$TEST_TMP/random.err'"
# Only a header: no record.
echo "$HDR" > "$TEST_TMP/hdr.log"
run hdr 5 -r "$TEST_TMP/hdr.log" -J
check "header only: exit 1 with one line" [ "$st" = 1 -a "$(wc -l < "$TEST_TMP/hdr.err")" = 1 ]
# More than the reported few: all counted.
{ echo "$HDR"; bio "4867000000000 2022-02-05T20:27:46.000000000"; for i in $(seq 20); do echo "4867000001 bad $i"; done; } > "$TEST_TMP/many.log"
run many 5 -r "$TEST_TMP/many.log" -J
check "20 bad lines: exit 0, 5 reported (status $st)" \
    [ "$st" = 0 -a "$(grep -c 'malformed biosnoop line' "$TEST_TMP/many.err")" = 5 ]
check "20 bad lines: all 20 counted" grep_err many "many.log: 20 malformed lines skipped, 1 imported"
