#!/bin/bash
# ui.sh: the terminal UI driven inside a private tmux server under a loop-device fio workload.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd tmux tmux

tmux_setup

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")

# A steady mixed workload for the whole test, rate-limited to stay light.
fio --name=uiwork --filename="$LOOP" --direct=1 --ioengine=psync --rw=randrw \
    --bs=4k --size=200M --time_based --runtime=120 --rate_iops=400,200 \
    >"$TEST_TMP/fio.out" 2>&1 &
TEST_PIDS="$TEST_PIDS $!"


# heat_cells: the heatmap of the one device (screen rows 5..41 at 160x50, past
# the 6-column axis) has non-blank cells.
heat_cells() {
	local i=0
	while [ "$i" -lt 100 ]; do
		screen | awk 'NR >= 5 && NR <= 41 { print substr($0, 7) }' |
		    grep -q '[^ ]' && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# start_ui ENV...: blktop in a new tmux session "ui" at 160x50; the pane's shell
# records the tty settings before and after, and blktop's exit status.
start_ui() {
	rm -f "$TEST_TMP"/exit "$TEST_TMP"/stty.*
	"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
	    "stty -g >$TEST_TMP/stty.before; env $* BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes \
	    $BLKTOP -D $DEV --record-dir $TEST_TMP 2>$TEST_TMP/err; echo \$? >$TEST_TMP/exit; \
	    stty -g >$TEST_TMP/stty.after; sleep 600"
	"${TMUX_CMD[@]}" resize-window -t ui -x 160 -y 50 2>/dev/null
}

# ui_pid: blktop's pid (a child of the pane's shell).
ui_pid() { pgrep -n -P "$("${TMUX_CMD[@]}" display -p -t ui '#{pane_pid}')" blktop; }

# check_restored WHAT: blktop exited 0, the tty settings and the normal screen are back.
check_restored() {
	local i=0
	while [ ! -s "$TEST_TMP/exit" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "$1: exits 0" [ "$(cat "$TEST_TMP/exit" 2>/dev/null)" = 0 ]
	sleep 0.2
	check "$1: tty settings restored" cmp -s "$TEST_TMP/stty.before" "$TEST_TMP/stty.after"
	check "$1: normal screen back" [ "$("${TMUX_CMD[@]}" display -p -t ui '#{alternate_on}')" = 0 ]
	check "$1: nothing on stderr" [ ! -s "$TEST_TMP/err" ]
	cat "$TEST_TMP/err" 2>/dev/null
	# The whole server goes, so the next start_ui never meets it exiting.
	"${TMUX_CMD[@]}" kill-server 2>/dev/null
	i=0
	while "${TMUX_CMD[@]}" ls >/dev/null 2>&1 && [ "$i" -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# ---- UTF-8, 256 colours: the full walk through the screens.
start_ui LANG=C.UTF-8 TERM=xterm-256color
check "device pane lists $DEV" wait_screen 15 "^$DEV +[0-9]"
check "heatmap has cells" heat_cells
check "heatmap in half blocks" wait_screen 2 "▀"
check "header: live, lost, plan" wait_screen 2 "live .*lost [0-9]+ .*rec off"
check "header: blktop's own CPU and BPF cost" wait_screen 3 "cpu +[0-9.]+% bpf +[0-9.]+%  plan "
check "sparklines labelled" wait_screen 2 "^ +qd |^ +iops "
screen >"$TEST_TMP/dev.txt"

"${TMUX_CMD[@]}" send-keys -t ui Tab
check "Tab: process pane" wait_screen 5 "PID COMMAND"
check "process pane shows fio" wait_screen 5 "^ *[0-9]+ fio "
sleep 4		# a past of 4 intervals or more for the drill-down to start with
"${TMUX_CMD[@]}" send-keys -t ui Enter
check "Enter: drill into a process" wait_screen 5 "^PID [0-9]+ .*Esc back"
# The drill-down starts with the past the pane kept for the process, not
# empty: the status line says how many intervals, and as many heatmap columns
# are drawn at once (the heatmap's rows under the title, past the axis labels).
screen >"$TEST_TMP/drill.txt"
past=$(sed -n 's/.*following PID [0-9]*: \([0-9]*\) intervals of its past.*/\1/p' "$TEST_TMP/drill.txt")
cols=$(python3 -c '
import sys
lines = open(sys.argv[1]).read().split("\n")
t = [i for i, l in enumerate(lines) if l.startswith("PID ") and "Esc back" in l]
rows = []
for l in (lines[t[0] + 1:t[0] + 17] if t else []):
    if "PATH" in l or "no file activity" in l:	# the files table under it
        break
    rows.append(l[int(sys.argv[2]):])
w = max([len(r) for r in rows] or [0])
print(sum(1 for c in range(w) if any(c < len(r) and r[c] != " " for r in rows)))' \
    "$TEST_TMP/drill.txt" 6)
check "Enter: the drill-down starts with the process's past (${past:-no} intervals, $cols heatmap columns drawn at once)" \
    [ "${past:-0}" -ge 3 -a "$cols" -ge 3 -a "$cols" -le "$((${past:-0} + 1))" ]
"${TMUX_CMD[@]}" send-keys -t ui Escape
check "Esc: back to the table" wait_screen 5 "PID COMMAND"
"${TMUX_CMD[@]}" send-keys -t ui '>'
check "> sorts by the next column" wait_screen 5 "sorted by"
# c: one row per cgroup (fio runs in this script's cgroup v2, named by its last
# component, its tail if long; "/" for the root), the count of its processes
# in the PID column; c again: processes.
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
cg=${cg##*/}
cg=${cg:-/}
[ ${#cg} -le 15 ] || cg=${cg: -15}
"${TMUX_CMD[@]}" send-keys -t ui c
check "c: processes grouped by cgroup" wait_screen 5 "grouped by cgroup"
check "c: a row for fio's cgroup ($cg) with its process count" \
    wait_screen 5 "^ +x[0-9]+ +$(printf '%s' "$cg" | sed 's/[][\.*^$+?(){}|/]/\\&/g') "
"${TMUX_CMD[@]}" send-keys -t ui c
check "c again: one row per process" wait_screen 5 "^ *[0-9]+ fio "
"${TMUX_CMD[@]}" send-keys -t ui 3
check "3: files pane" wait_screen 5 "PATH"
"${TMUX_CMD[@]}" send-keys -t ui 1
check "1: devices pane" wait_screen 5 "^Device "

"${TMUX_CMD[@]}" send-keys -t ui '?'
wait_screen 5 "^Keys " || fail "?: help screen"
screen >"$TEST_TMP/help.txt"
missing=""
for k in q '?' h F1 Tab 1 2 3 Up k Down j PgUp PgDn Home End Enter Esc '<' '>' I \
    Space + - o t ^L / r . '[' ']' g G s S; do
	grep -qE "^([^ ]+ )*$(printf '%s' "$k" | sed 's/[]?+*.^$[]/\\&/g')( |$)" \
	    "$TEST_TMP/help.txt" || missing="$missing $k"
done
check "?: help lists every key${missing:+ (missing:$missing)}" [ -z "$missing" ]
"${TMUX_CMD[@]}" send-keys -t ui x
check "any key closes the help" wait_screen 5 "^Device "

"${TMUX_CMD[@]}" send-keys -t ui +
check "+: 2 s per column" wait_screen 5 "column 2s"
"${TMUX_CMD[@]}" send-keys -t ui -- -
check "-: 1 s per column" wait_screen 5 "column 1s"
"${TMUX_CMD[@]}" send-keys -t ui Space
check "Space: paused" wait_screen 5 "PAUSED"
"${TMUX_CMD[@]}" send-keys -t ui Space
check "Space: resumed" wait_screen 5 "display resumed"
"${TMUX_CMD[@]}" send-keys -t ui r
check "r: recording starts" wait_screen 5 "recording to $TEST_TMP/"
check "r: header shows the file" wait_screen 5 "rec $TEST_TMP/blktop-.*\\.blkcap"
"${TMUX_CMD[@]}" send-keys -t ui r
check "r again: recording stops" wait_screen 5 "recorded [0-9]+ events to"
check "r: capture file written" sh -c "ls $TEST_TMP/blktop-*.blkcap >/dev/null"
"${TMUX_CMD[@]}" send-keys -t ui t
check "t: next theme" wait_screen 5 "theme [a-z]+"
"${TMUX_CMD[@]}" send-keys -t ui / n o m a t c h Enter
check "/: filter hides the device" wait_screen 5 "no device matches the filter"
"${TMUX_CMD[@]}" send-keys -t ui Escape
check "Esc: filter cleared" wait_screen 5 "^$DEV +[0-9]"

"${TMUX_CMD[@]}" resize-window -t ui -x 20 -y 5
check "resize to 20x5: too small" wait_screen 5 "too small"
"${TMUX_CMD[@]}" resize-window -t ui -x 60 -y 12
check "resize to 60x12: device back" wait_screen 5 "^$DEV +[0-9]"
"${TMUX_CMD[@]}" resize-window -t ui -x 160 -y 50
check "resize to 160x50: heatmap back" wait_screen 5 "^ +1ms "

"${TMUX_CMD[@]}" send-keys -t ui q
check_restored "q"

# ---- no UTF-8, no colour: ASCII glyphs on a vt100; SIGTERM restores the terminal.
start_ui LANG=C TERM=vt100 NO_COLOR=1
check "vt100: device pane lists $DEV" wait_screen 15 "^$DEV +[0-9]"
check "vt100: heatmap has cells" heat_cells
check "vt100: no UTF-8 on screen" sh -c "! ${TMUX_CMD[*]} capture-pane -p -t ui | LC_ALL=C grep -q '[^ -~]'"
kill -TERM "$(ui_pid)"
check_restored "SIGTERM"

# ---- the other terminals start and stop cleanly.
for t in screen linux; do
	start_ui LANG=C.UTF-8 TERM=$t
	check "$t: device pane lists $DEV" wait_screen 15 "^$DEV +[0-9]"
	kill -HUP "$(ui_pid)"
	check_restored "$t SIGHUP"
done

# ---- not a terminal: a clear error, no garbage.
"$BLKTOP" -D "$DEV" </dev/null >"$TEST_TMP/notty.out" 2>"$TEST_TMP/notty.err"
check "no terminal: exit 1" [ $? = 1 ]
check "no terminal: says so" grep -q "needs a terminal" "$TEST_TMP/notty.err"
"$BLKTOP" -t no-such-theme -b -n 1 >/dev/null 2>"$TEST_TMP/theme.err"
check "-t unknown theme: exit 2" [ $? = 2 ]
