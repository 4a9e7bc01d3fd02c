#!/bin/bash
# ui-paint.sh: heatmaps and sparklines painted directly look exactly as ncurses
# paints them: the same replay, paused at the same tick, side by side.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux
need_cmd python3 python3
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap

SOCK=blktop-test-$$
TMUX_CMD=(tmux -u -L "$SOCK" -f /dev/null)
trap '"${TMUX_CMD[@]}" kill-server 2>/dev/null; test_cleanup' EXIT

# both KEYS...: the same keys to the two sessions.
both() {
	"${TMUX_CMD[@]}" send-keys -t direct "$@"
	"${TMUX_CMD[@]}" send-keys -t ncurses "$@"
}

# grab S: session S's screen with its colours and attributes.
grab() { "${TMUX_CMD[@]}" capture-pane -N -e -p -t "$1" >"$TEST_TMP/$1.txt"; }

# same WHAT ERE: once both screens match ERE and stand still, they look the same cell by cell.
same() {
	local i=0 a b
	while [ "$i" -lt 50 ]; do
		grab direct
		grab ncurses
		if grep -qE "$2" "$TEST_TMP/direct.txt" && grep -qE "$2" "$TEST_TMP/ncurses.txt"; then
			sleep 0.3
			a=$(md5sum <"$TEST_TMP/direct.txt")
			b=$(md5sum <"$TEST_TMP/ncurses.txt")
			grab direct
			grab ncurses
			[ "$a" = "$(md5sum <"$TEST_TMP/direct.txt")" ] &&
			    [ "$b" = "$(md5sum <"$TEST_TMP/ncurses.txt")" ] && break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	check "$1: painted directly looks as ncurses paints it" \
	    python3 "$BLKTOP_SRCDIR/tests/integration/cells.py" \
	    "$TEST_TMP/direct.txt" "$TEST_TMP/ncurses.txt"
}

for t in xterm-256color screen linux; do
	for p in direct ncurses; do
		"${TMUX_CMD[@]}" new-session -d -s $p -x 160 -y 50 \
		    "env LANG=C.UTF-8 TERM=$t BLKTOP_PAINT=$p BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes \
		    $BLKTOP -r $CAP --speed 1 2>$TEST_TMP/$p.err; echo \$? >$TEST_TMP/$p.exit; sleep 600"
		"${TMUX_CMD[@]}" resize-window -t $p -x 160 -y 50 2>/dev/null
	done
	# Paused, at the start, then three ticks on: the same frame in both.
	sleep 1
	both Space
	sleep 0.3
	both g . . .
	same "$t devices" "paused"
	# Only cells that change are written: about what ncurses itself writes.
	for p in direct ncurses; do
		rm -f "$TEST_TMP/out.$p"
		"${TMUX_CMD[@]}" pipe-pane -t $p -O "cat >$TEST_TMP/out.$p"
	done
	sleep 0.3
	both I
	same "$t devices, sort inverted" "paused"
	both .
	same "$t devices, one tick on" "paused"
	for p in direct ncurses; do "${TMUX_CMD[@]}" pipe-pane -t $p; done
	sleep 0.3
	d=$(stat -c %s "$TEST_TMP/out.direct" 2>/dev/null || echo 0)
	n=$(stat -c %s "$TEST_TMP/out.ncurses" 2>/dev/null || echo 0)
	check "$t: a redraw and a tick write no more than ncurses would ($d vs $n bytes)" \
	    [ "$n" -gt 0 -a "$d" -le $((n * 3 / 2 + 64)) ]
	both Tab
	same "$t processes" "paused"
	both 1
	same "$t devices again, nothing left of the processes" "paused"
	"${TMUX_CMD[@]}" resize-window -t direct -x 100 -y 30
	"${TMUX_CMD[@]}" resize-window -t ncurses -x 100 -y 30
	same "$t at 100x30" "paused"
	"${TMUX_CMD[@]}" resize-window -t direct -x 160 -y 50
	"${TMUX_CMD[@]}" resize-window -t ncurses -x 160 -y 50
	same "$t back at 160x50" "paused"
	both t
	same "$t next theme" "paused"
	both C-l
	same "$t Ctrl-L repaints" "paused"
	both . .
	same "$t two ticks on" "paused"
	both q
	i=0
	while { [ ! -s "$TEST_TMP/direct.exit" ] || [ ! -s "$TEST_TMP/ncurses.exit" ]; } &&
	    [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "$t: both exit 0 (direct painting was possible)" \
	    [ "$(cat "$TEST_TMP/direct.exit" "$TEST_TMP/ncurses.exit" 2>/dev/null | tr -d '\n')" = 00 ]
	cat "$TEST_TMP/direct.err" "$TEST_TMP/ncurses.err" 2>/dev/null
	rm -f "$TEST_TMP"/*.exit
	"${TMUX_CMD[@]}" kill-session -t direct 2>/dev/null
	"${TMUX_CMD[@]}" kill-session -t ncurses 2>/dev/null
done
