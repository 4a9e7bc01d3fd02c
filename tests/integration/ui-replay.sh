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
