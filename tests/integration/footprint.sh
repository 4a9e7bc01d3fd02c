#!/bin/bash
# footprint.sh: what the user holds and waits for (issue 28). An idle
# `blktop -J` at defaults holds under 48 MB (normal builds: a sanitizer's
# shadow and quarantine say nothing of blktop's own), and it is gone within
# 0.5 s of SIGINT, as the UI is of q (to the shell's next command). Best of
# three runs each: a loaded machine may slow one exit, a slow teardown slows
# every one (each tracepoint released waits for an RCU grace period: 2-3 s in
# all when blktop waited for them). A capture written up to the signal replays
# to the same reports.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd tmux tmux
RSS_MAX_KB=48000
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

# ---- blktop -J: idle, then SIGINT
best=999999
for r in $(seq $ROUNDS); do
	out=$TEST_TMP/j$r.jsonl
	# The last rounds record too: the capture is closed before the exit.
	w=()
	[ "$r" -gt 1 ] && w=(-w "$TEST_TMP/c$r.blkcap")
	"$BLKTOP" -J -d 1 "${w[@]}" >"$out" 2>"$TEST_TMP/err$r" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || { fail "round $r: first report within $START_S s: $(head -1 "$TEST_TMP/err$r")"; exit 1; }
	if [ "$r" = 1 ]; then
		sleep 5
		rss=$(kb $pid VmRSS)
		echo "# idle blktop -J, 5 s after its first report: VmRSS $rss kB, VmHWM $(kb $pid VmHWM) kB: $(resident $pid)"
		if [ "$asan" = 1 ]; then
			echo "# AddressSanitizer build: the RSS bound is checked on normal builds only"
		else
			check "idle blktop -J at defaults: VmRSS $rss kB <= $RSS_MAX_KB" [ "$rss" -le "$RSS_MAX_KB" ]
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
	check "round $r: exits 0 after SIGINT, nothing on stderr" [ "$st" = 0 -a ! -s "$TEST_TMP/err$r" ]
	check "round $r: every report whole" \
	    python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$out"
	if [ "$r" -gt 1 ]; then
		noself "$out" >"$TEST_TMP/live$r"
		"$BLKTOP" -r "$TEST_TMP/c$r.blkcap" -J 2>"$TEST_TMP/replay.err" | noself >"$TEST_TMP/replay$r"
		check "round $r: the capture replays to the $(wc -l <"$TEST_TMP/live$r") reports, nothing on stderr" \
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
	    "env BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP 2>$TEST_TMP/uierr; \
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
