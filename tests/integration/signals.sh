#!/bin/bash
# signals.sh: a full-speed replay ends soon after SIGINT or SIGTERM, not at the end of the file.
. "$BLKTOP_SRCDIR/tests/lib.sh"

# A capture of 2 M requests over 600 s: a log imported once, recorded with -w.
awk 'BEGIN { print "TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)";
	t = 4867000000000;
	for (i = 0; i < 2000000; i++) {
		t += 300000;
		printf "%.0f 2022-02-05T20:27:46.000000000 %d python 0 kworker sdb %d %.0f 4096 %d\n",
		    t, 1000 + i % 50, i % 2, i * 8, 50000 + i % 1000;
	} }' > "$TEST_TMP/big.log"
rec_t0=$(date +%s%N)
TZ=UTC "$BLKTOP" -r "$TEST_TMP/big.log" -w "$TEST_TMP/big.blkcap" -J > "$TEST_TMP/all.jsonl" 2>"$TEST_TMP/err"
rec_ms=$(( ($(date +%s%N) - rec_t0) / 1000000 ))
check "the capture is recorded" [ -s "$TEST_TMP/big.blkcap" ]
total=$(wc -l < "$TEST_TMP/all.jsonl")
check "the whole replay has a report per second ($total)" [ "$total" -ge 600 ]

# stop_after_first SIG: replay at full speed, send SIG once the first report is out;
# prints "ms-to-exit exit-status reports".
stop_after_first() {
	local out=$TEST_TMP/part.jsonl pid t0 t1 st i=0
	: > "$out"
	"$BLKTOP" -r "$TEST_TMP/big.blkcap" -J > "$out" 2>>"$TEST_TMP/err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	while [ ! -s "$out" ] && [ $i -lt 2000 ]; do sleep 0.005; i=$((i + 1)); done
	t0=$(date +%s%N)
	kill -"$1" "$pid"
	wait "$pid"
	st=$?
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000000 )) $st $(wc -l < "$out")"
}

for sig in INT TERM; do
	read -r ms st n <<< "$(stop_after_first $sig)"
	echo "SIG$sig: exit after $ms ms, status $st, $n of $total reports"
	check "SIG$sig: a full-speed replay stops before the end of the file ($n of $total reports)" \
	    [ "$n" -lt $((total / 2)) ]
	# 1 s: stopping takes a turn of the event loop (milliseconds); the fault
	# this catches waited for the end of the file, the replay's whole 2 M
	# requests (seconds): the margin is a loaded machine's scheduling delay.
	# On a machine so loaded that the recording of those 2 M requests took
	# over 10 s, the margin is a tenth of that (tests run side by side; the
	# fault would still take about the whole recording's time).
	limit=$(( rec_ms / 10 > 1000 ? rec_ms / 10 : 1000 ))
	check "SIG$sig: it exits within $limit ms of the signal ($ms ms; the recording took $rec_ms ms)" \
	    [ "$ms" -lt "$limit" ]
	check "SIG$sig: exit status 0" [ "$st" = 0 ]
done
