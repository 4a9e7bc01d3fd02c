#!/bin/bash
# ui-replay.sh: the UI replaying a committed capture made by blktop: pause, step, seek, speed.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap

tmux_setup

key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }

# The capture's own first report: its wall clock, as the replay must show it.
first=$("$BLKTOP" -r "$CAP" -b -J -n 1 | python3 -c 'import json,sys,time; print(time.strftime("%H:%M:%S", time.localtime(json.load(sys.stdin)["ts"])))')
"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $CAP --speed 1 2>$TEST_TMP/err; echo \$? >$TEST_TMP/exit; sleep 600"
check "replay starts in the UI with the device of the capture" wait_screen 10 "loop[0-9]+"
check "header says replay" wait_screen 5 "replay"
check "header shows the recording's clock ($first..)" wait_screen 5 "${first%:*}"
key Space
check "Space pauses the replay" wait_screen 5 "replay paused"
before=$(screen | md5sum)
sleep 2.5
check "paused: the screen stands still" [ "$(screen | md5sum)" = "$before" ]
key .
check ". steps one tick" wait_screen 5 "paused"
key S
check "S doubles the speed" wait_screen 5 "replay at 2x"
key s s
check "s halves it" wait_screen 5 "replay at 0.5x"
# clock: the replay clock in the header.
clock() { screen | head -n 1 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}' | head -n 1; }
key G
check "G seeks to the end" wait_screen 5 "^blktop .* end *$"
at_end=$(clock)
key g
not_at_end() { local i=0; while [ "$i" -lt 50 ]; do screen | head -n 1 | grep -q ' end' || return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
check "g seeks to the start" not_at_end
at_start=$(clock)
check "the start is before the end ($at_start < $at_end)" [ "$at_start" \< "$at_end" ]
key ']'
check "] seeks 10 s forward: past the end of this 8 s capture" wait_screen 5 "^blktop .* end *$"
key '?'
check "help lists the replay keys" wait_screen 5 "one tick forward"
key x q
i=0
while [ ! -s "$TEST_TMP/exit" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "q exits 0" [ "$(cat "$TEST_TMP/exit" 2>/dev/null)" = 0 ]
check "nothing on stderr" [ ! -s "$TEST_TMP/err" ]
cat "$TEST_TMP/err"

# Terminals that cannot hold the UI, and one without an alternate screen.
# pane NAME TERM: blktop replaying in a new session NAME with that TERM; the
# shell after it prints "exit N" and "shell prompt".
pane() {
	rm -f "$TEST_TMP/exit.$1"
	"${TMUX_CMD[@]}" new-session -d -s "$1" -x 100 -y 30 \
	    "env TERM=$2 LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $CAP 2>$TEST_TMP/err.$1; \
	    echo \$? >$TEST_TMP/exit.$1; echo shell prompt; sleep 600"
}
shot() { "${TMUX_CMD[@]}" capture-pane -p -t "$1" 2>/dev/null; }
pane dumb dumb
i=0; while [ ! -s "$TEST_TMP/exit.dumb" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$TEST_TMP/exit.dumb" 2>/dev/null)" = 1 -a "$(wc -l <"$TEST_TMP/err.dumb")" = 1 ] &&
    grep -q "cannot move the cursor" "$TEST_TMP/err.dumb"
check_status $? "TERM=dumb: exit 1 at once, one line that says why ($(cat "$TEST_TMP/err.dumb"))"
# (the pane must be there to be looked at: a failed capture is no pass)
dumb_clean() { local s; s=$("${TMUX_CMD[@]}" capture-pane -p -t dumb) || return 1; ! grep -q 'Devices' <<<"$s"; }
check "TERM=dumb: nothing of the UI on the terminal" dumb_clean
pane vt vt100
i=0; while ! shot vt | grep -q 'loop[0-9]'; do sleep 0.1; i=$((i + 1)); [ $i -lt 100 ] || break; done
"${TMUX_CMD[@]}" send-keys -t vt q
i=0; while [ ! -s "$TEST_TMP/exit.vt" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
check "TERM=vt100: exits 0" [ "$(cat "$TEST_TMP/exit.vt" 2>/dev/null)" = 0 ]
check "TERM=vt100: the last frame is cleared, the shell goes on on a clean screen" \
    sh -c "'${TMUX_CMD[0]}' ${TMUX_CMD[*]:1} capture-pane -p -t vt | grep -q 'shell prompt' && ! '${TMUX_CMD[0]}' ${TMUX_CMD[*]:1} capture-pane -p -t vt | grep -qE 'Devices|loop[0-9]'"

# A process with file calls and no block request: its block p50/p99 are "-",
# not a latency of 0 (the vfs log fixture has only calls); so is its cache hit
# % (a log's block records name no file: not known), before them. Columns:
# r/s w/s rMB/s wMB/s drMB/s dwMB/s hit% p50 p99.
"${TMUX_CMD[@]}" new-session -d -s nodata -x 140 -y 30 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $BLKTOP_SRCDIR/tests/fixtures/import-vfs.txt --speed 1; sleep 600"
i=0; while ! shot nodata | grep -q 'Processes'; do sleep 0.1; i=$((i + 1)); [ $i -lt 100 ] || break; done
"${TMUX_CMD[@]}" send-keys -t nodata 2
i=0; while ! shot nodata | grep -qE 'python +0 +0 +0 +0 +0 +0 +- +- +- '; do sleep 0.1; i=$((i + 1)); [ $i -lt 100 ] || break; done
check "no block request: p50 and p99 show '-', not 0ns ($(shot nodata | grep python | head -1 | tr -s ' '))" \
    sh -c "'${TMUX_CMD[0]}' ${TMUX_CMD[*]:1} capture-pane -p -t nodata | grep -qE 'python +0 +0 +0 +0 +0 +0 +- +- +- '"
