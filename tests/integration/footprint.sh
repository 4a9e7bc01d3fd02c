#!/bin/bash
# footprint.sh: what the user holds and waits for (issue 28). An idle
# `blktop -J` at defaults holds under 48 MB (normal builds: a sanitizer's
# shadow and quarantine say nothing of blktop's own), and it is gone within
# 0.5 s of SIGINT, as the UI is of q (to the shell's next command). Best of
# three runs each: a loaded machine may slow one exit, a slow teardown slows
# every one (each tracepoint released waits for an RCU grace period: 2-3 s in
# all when blktop waited for them). A capture written up to the signal replays
# to the same reports.
#
# "Idle" whatever else runs on the machine (issue 41): the blktop measured
# traces only a light workload of the test's own (-p its pid, -D its own loop
# device: up to 4000 reads/s of a tmpfs file and as many direct reads of the
# device), so other tests' processes and I/O do not fill its tables (bounded,
# and checked by manyfiles.sh). Its RSS is sampled where it settles: 5 s after
# its first report and 25 s later (issue 41 item 17). The calls' and the
# requests' rings (6 MiB reserved) were written round in full under any
# steady load, 44.5 MB at 5 s and 48.6 MB from 15 s on the issue's machine;
# they now take the pages their load needs.
# The margins, measured on the 2-core VM of issue 41 (normal build, this
# workload): 42.3 MB, flat from 5 s to 60 s; 32.8 MB of it is the 16 MiB BPF
# ring, which the kernel maps twice. 48,000 kB leaves 5.6 MB (13%) for another
# machine's libraries and CPU count. Before the rings took what they need it
# grew 1.1 MB from 5 s to 30 s, 2.4 MB to 60 s, 6 MB once written round: the
# growth allowed between the samples, 512 kB, is under half the first of
# those and covers a report's buffers and the allocator's rounding.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd tmux tmux
need_cmd python3 python3
RSS_MAX_KB=48000
RSS_GROWTH_MAX_KB=512
EXIT_MAX_MS=500
ROUNDS=3

# kb PID FIELD: kB of a /proc/PID/status line.
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

# resident PID: where the resident kB are, by kind of mapping.
resident() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { n = $6 == "" ? "anon" : $6; sub(/.*\//, "", n) }
	    /^Rss:/ { r[n] += $2 }
	    END { for (n in r) if (r[n] >= 512) printf "%s %d kB, ", n, r[n] }' "/proc/$1/smaps"
}

# now_ms: the clock in ms.
now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }

asan=0
ldd "$BLKTOP" 2>/dev/null | grep -q libasan && asan=1

# ---- the light workload: 40 reads of each kind, then 10 ms of sleep
LOOP=$(loop_create 64) || { fail "loop device"; exit 1; }
DAT=/dev/shm/blktop-test-$$-light.img
dd if=/dev/zero of="$DAT" bs=1M count=4 status=none
python3 -c '
import mmap, os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)	# a background job of a script ignores it
f = os.open(sys.argv[1], os.O_RDONLY)
d = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
i = 0
while True:
    os.pread(f, 4096, (i % 1024) * 4096)
    os.preadv(d, [buf], (i % 16384) * 4096)
    i += 1
    if i % 40 == 0:
        time.sleep(0.01)
' "$DAT" "$LOOP" &
LIGHT=$!
TEST_PIDS="$TEST_PIDS $LIGHT"

# ---- blktop -J: idle on the light workload (round 1 measured), then SIGINT
best=999999
for r in $(seq $ROUNDS); do
	out=$TEST_TMP/j$r.jsonl
	# The last rounds record too: the capture is closed before the exit.
	w=()
	[ "$r" -gt 1 ] && w=(-w "$TEST_TMP/c$r.blkcap")
	# Its own workload and device only (the kernel side filters both): another
	# suite's I/O beside it would be lost under its load, and said, on stderr.
	scope=(-p "$LIGHT" -D "${LOOP#/dev/}")
	"$BLKTOP" -J -d 1 "${scope[@]}" "${w[@]}" >"$out" 2>"$TEST_TMP/err$r" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || { fail "round $r: first report within $START_S s: $(head -1 "$TEST_TMP/err$r")"; exit 1; }
	if [ "$r" = 1 ]; then
		sleep 5
		rss5=$(kb $pid VmRSS)
		echo "# blktop -J on the light workload, 5 s after its first report: VmRSS $rss5 kB: $(resident $pid)"
		sleep 25
		rss=$(kb $pid VmRSS)
		echo "# 30 s after: VmRSS $rss kB, VmHWM $(kb $pid VmHWM) kB: $(resident $pid)"
		n=$(python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
print(sum(p.get("call_reads") or 0 for p in r["processes"]), sum(d["read"]["ios"] for d in r["devices"]))' "$out")
		# Enough for rings written round to grow over 1 MB in the 25 s
		# (56 bytes a call, 40 a request): 930 and 465 a second, the
		# slowest seen with other suites beside it, grew 2.4 MB.
		check "the light workload is traced: read calls and device reads in the last report ($n), 500 and 250 at least" \
		    python3 -c 'import sys; c, d = map(int, sys.argv[1].split()); sys.exit(not (c >= 500 and d >= 250))' "$n"
		if [ "$asan" = 1 ]; then
			echo "# AddressSanitizer build: the RSS bounds are checked on normal builds only"
		else
			check "idle blktop -J: VmRSS $rss kB 30 s after its first report <= $RSS_MAX_KB" [ "$rss" -le "$RSS_MAX_KB" ]
			check "idle blktop -J settled: VmRSS grew $((rss - rss5)) kB from 5 s to 30 s, <= $RSS_GROWTH_MAX_KB" \
			    [ $((rss - rss5)) -le "$RSS_GROWTH_MAX_KB" ]
		fi
	else
		sleep 1.5
	fi
	t0=$(now_ms)
	kill -INT $pid
	wait $pid
	st=$?
	ms=$(( $(now_ms) - t0 ))
	echo "# round $r: SIGINT to exit $ms ms, status $st"
	[ "$ms" -lt "$best" ] && best=$ms
	check "round $r: exits 0 after SIGINT, nothing on stderr ($(head -c 200 "$TEST_TMP/err$r"))" \
	    [ "$st" = 0 -a ! -s "$TEST_TMP/err$r" ]
	check "round $r: every report whole" \
	    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$out"
	if [ "$r" -gt 1 ]; then
		noself "$out" >"$TEST_TMP/live$r"
		"$BLKTOP" -r "$TEST_TMP/c$r.blkcap" -J 2>"$TEST_TMP/replay.err" | noself >"$TEST_TMP/replay$r"
		check "round $r: the capture replays to the $(wc -l <"$TEST_TMP/live$r") reports, nothing on stderr ($(head -c 200 "$TEST_TMP/replay.err"))" \
		    sh -c "cmp -s '$TEST_TMP/live$r' '$TEST_TMP/replay$r' && [ ! -s '$TEST_TMP/replay.err' ]"
	fi
done
check "SIGINT to exit: best of $ROUNDS ${best} ms <= $EXIT_MAX_MS ms" [ "$best" -le "$EXIT_MAX_MS" ]

# ---- the UI: q, then the pane's shell runs its next command
tmux_setup
best=999999
for r in $(seq $ROUNDS); do
	rm -f "$TEST_TMP/exit"
	"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
	    "env BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -p $LIGHT -D ${LOOP#/dev/} 2>$TEST_TMP/uierr; \
	    echo \$? >$TEST_TMP/exit; sleep 600"
	if ! wait_screen 60 "rec off"; then
		fail "ui round $r: starts within 60 s: $(head -1 "$TEST_TMP/uierr")"
		break
	fi
	sleep 1
	t0=$(now_ms)
	"${TMUX_CMD[@]}" send-keys -t ui q
	i=0
	while [ ! -s "$TEST_TMP/exit" ] && [ "$i" -lt 20000 ]; do sleep 0.002; i=$((i + 1)); done
	ms=$(( $(now_ms) - t0 ))
	echo "# ui round $r: q to the next command $ms ms"
	[ "$ms" -lt "$best" ] && best=$ms
	check "ui round $r: exits 0, nothing on stderr" \
	    [ "$(cat "$TEST_TMP/exit" 2>/dev/null)" = 0 -a ! -s "$TEST_TMP/uierr" ]
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
done
check "q to the next command: best of $ROUNDS ${best} ms <= $EXIT_MAX_MS ms" [ "$best" -le "$EXIT_MAX_MS" ]
