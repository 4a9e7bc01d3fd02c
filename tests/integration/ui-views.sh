#!/bin/bash
# ui-views.sh: the UI's question screens on a replay of a committed capture:
# L the latency stack (all devices and processes, then each device and
# process: every column's buckets, count and mean equal -J's "stack" object of
# the same capture, its rule lines --stack's own), N written and never read
# (this capture has no file calls: it says so). The HTML report of the same
# capture: the stack section's figures equal -J's, its rules --stack's lines.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux
need_cmd python3 python3
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
PY=$BLKTOP_SRCDIR/tests/integration/stack_screen.py

"$BLKTOP" -r "$CAP" --stack -J >"$TEST_TMP/stack.jsonl" 2>"$TEST_TMP/j.err" </dev/null
check "-r --stack -J: exit 0" [ $? = 0 ]
"$BLKTOP" -r "$CAP" --stack >"$TEST_TMP/stack.txt" 2>"$TEST_TMP/t.err" </dev/null
check "-r --stack: exit 0" [ $? = 0 ]
dev=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["stack"]["devices"][0]["device"])' "$TEST_TMP/stack.jsonl")
pid=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["stack"]["processes"][0]["pid"])' "$TEST_TMP/stack.jsonl")

tmux_setup
key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
# gone SECS ERE: until the screen no longer matches, at most SECS seconds.
gone() { local i=0; while [ "$i" -lt $(($1 * 10)) ]; do screen | grep -qE "$2" || return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 60 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $CAP --speed max 2>$TEST_TMP/err; sleep 600"
check "the replay reaches its end" wait_screen 20 "^blktop .* end *$"
key L
check "L opens the latency stack screen" wait_screen 5 "^Latency stack since the start"
check "first over all devices and processes" wait_screen 5 "^all devices and processes \(1 of"
screen >"$TEST_TMP/all.txt"
python3 "$PY" "$TEST_TMP/all.txt" "$TEST_TMP/stack.jsonl" "$TEST_TMP/stack.txt" all ui-views || fail "the stack screen, all: as -J and --stack: the checks stopped"
key Down
check "Down: the device $dev" wait_screen 5 "^device $dev \(2 of"
screen >"$TEST_TMP/dev.txt"
python3 "$PY" "$TEST_TMP/dev.txt" "$TEST_TMP/stack.jsonl" "$TEST_TMP/stack.txt" "dev:$dev" ui-views || fail "the stack screen, $dev: as -J and --stack: the checks stopped"
key L
check "L again: the process $pid" wait_screen 5 "^process .*\[$pid\] \(3 of"
screen >"$TEST_TMP/proc.txt"
python3 "$PY" "$TEST_TMP/proc.txt" "$TEST_TMP/stack.jsonl" "$TEST_TMP/stack.txt" "pid:$pid" ui-views || fail "the stack screen, process $pid: as -J and --stack: the checks stopped"
key Up Up
check "Up twice: back to all" wait_screen 5 "^all devices and processes \(1 of"
key x
check "another key closes it" gone 5 "^Latency stack"
key N
check "N opens the written-and-never-read screen" wait_screen 5 "^Written and never read since the start"
check "a capture without file calls: it says so" wait_screen 5 "no file calls here"
key x '?'
check "the help lists L" wait_screen 5 "^L +the latency stack"
check "the help lists N" wait_screen 5 "^N +written and never read"
key x q
check "nothing on stderr" [ ! -s "$TEST_TMP/err" ]

# From the processes pane, L opens the selected process's stack first.
"${TMUX_CMD[@]}" kill-session -t ui
"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 60 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $CAP --speed 1 2>$TEST_TMP/err2; sleep 600"
wait_screen 10 "replay" || fail "the second replay did not start: $(head -c 200 "$TEST_TMP/err2")"
key 2
wait_screen 20 "^ *[0-9]+ +fio " || fail "no fio row in the processes pane"
key Space
sleep 0.5
sel=$(screen | grep -E "^ *[0-9]+ +fio " | head -n 1 | awk '{print $1}')
key L
check "from the processes pane, L opens the selected process $sel" wait_screen 5 "^process fio\[$sel\] "

"$BLKTOP" -r "$CAP" --report "$TEST_TMP/r.html" </dev/null >/dev/null 2>"$TEST_TMP/h.err"
check "--report OUT.html: exit 0" [ $? = 0 ]
python3 "$PY" --html "$TEST_TMP/r.html" "$TEST_TMP/stack.jsonl" "$TEST_TMP/stack.txt" ui-views ||
    fail "the report's stack section: the checks stopped"
