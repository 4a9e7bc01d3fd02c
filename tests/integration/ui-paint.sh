#!/bin/bash
# ui-paint.sh: heatmaps and sparklines painted directly look exactly as ncurses
# paints them: the same replay, paused at the same tick, side by side.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux
need_cmd python3 python3
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap

tmux_setup

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
	check "$1: painted directly looks as ncurses paints it" cells \
	    "$TEST_TMP/direct.txt" "$TEST_TMP/ncurses.txt"
}

# cells A B: cells.py's verdict. Two screens the same byte for byte but for
# the figures of blktop's own cost (cells.py's COST, each character a #) are
# the same to it: no Python then (40 runs of it were 4 s of CPU).
cells() {
	local c='s/(cpu [ 0-9.-]{5}%? bpf [ 0-9.-]{5}%?)/"#" x length($1)/ge'
	cmp -s <(perl -pe "$c" "$1") <(perl -pe "$c" "$2") ||
	    python3 "$BLKTOP_SRCDIR/tests/integration/cells.py" "$1" "$2"
}

# start S FILE W H ENV...: blktop replaying FILE in session S at W x H.
start() {
	local s=$1 f=$2 w=$3 h=$4
	shift 4
	"${TMUX_CMD[@]}" new-session -d -s "$s" -x "$w" -y "$h" \
	    "env LANG=C.UTF-8 $* BLKTOP_PAINT=$s BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes \
	    $BLKTOP -r $f --speed 1 2>$TEST_TMP/$s.err; echo \$? >$TEST_TMP/$s.exit; sleep 600"
	"${TMUX_CMD[@]}" resize-window -t "$s" -x "$w" -y "$h" 2>/dev/null
}

# quit_both WHAT: q to both; both exit 0; the sessions go.
quit_both() {
	local i=0
	both q
	while { [ ! -s "$TEST_TMP/direct.exit" ] || [ ! -s "$TEST_TMP/ncurses.exit" ]; } &&
	    [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "$1: both exit 0 (direct painting was possible)" \
	    [ "$(cat "$TEST_TMP/direct.exit" "$TEST_TMP/ncurses.exit" 2>/dev/null | tr -d '\n')" = 00 ]
	cat "$TEST_TMP/direct.err" "$TEST_TMP/ncurses.err" 2>/dev/null
	rm -f "$TEST_TMP"/*.exit
	"${TMUX_CMD[@]}" kill-session -t direct 2>/dev/null
	"${TMUX_CMD[@]}" kill-session -t ncurses 2>/dev/null
}

for t in xterm-256color screen linux; do
	start direct "$CAP" 160 50 TERM=$t
	start ncurses "$CAP" 160 50 TERM=$t
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
	quit_both "$t"
done

# Twelve devices in a 30-row terminal: moving the selection scrolls the device
# list, whole heatmaps move up and down, and ncurses must not carry painted
# cells along (it would scroll the screen to save output).
python3 - "$TEST_TMP/many.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n")
    for i in range(2400):
        ts = 5000000000000 + i * 4000000
        d = i % 12
        f.write("%d 2022-02-05T20:27:%02d.%09d %d dd 0 kworker sd%s %d %d 4096 %d\n" % (
            ts, 46 + i * 4 // 1000, (i * 4000000) % 1000000000, 2000 + d,
            "abcdefghijkl"[d], i % 2, 1000 + 8 * i, 20000 + (i * 7919) % 900000 * (1 + d)))
PY
start direct "$TEST_TMP/many.txt" 120 30 TERM=xterm-256color
start ncurses "$TEST_TMP/many.txt" 120 30 TERM=xterm-256color
sleep 1
both Space
sleep 0.3
both g . . . . .
same "12 devices" "paused"
for n in 1 2 3 4 5 6; do
	both Down
	same "12 devices, selection $n down" "paused"
done
both End
same "12 devices, the last" "paused"
both Up Up Up
same "12 devices, three up" "paused"
both Home
same "12 devices, the first again" "paused"
quit_both "12 devices"
