#!/bin/bash
# config.sh: the UI's config file: written by W, read back to the same view,
# keys rebound, broken files and bad values, reports untouched, sudo's user.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd tmux tmux
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
XDG=$TEST_TMP/xdg
RC=$XDG/blktop/blktoprc
NOB=65534

tmux_setup

key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }

# start [VAR=VALUE...] [-- ARGS...]: the UI replaying the fixture at 160x50 in
# session "ui", the config under $XDG; its exit status goes to $TEST_TMP/exit.
start() {
	local envs="" args=""
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs="$envs $1"; shift; done
	[ "${1:-}" = -- ] && shift
	args="$*"
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	rm -f "$TEST_TMP/exit" "$TEST_TMP/err"
	# Killing the last session ends the server: a new-session that meets it
	# on its way out fails ("server exited unexpectedly"); once more then.
	for try in 1 2 3; do
		"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
		    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes XDG_CONFIG_HOME=$XDG $envs \
		    $BLKTOP -r $CAP --speed 1 $args 2>$TEST_TMP/err; echo \$? >$TEST_TMP/exit; sleep 600" \
		    2>/dev/null && break
		sleep 0.5
	done
	wait_screen 10 "Devices .*Processes .*Files"
}

# one_line ERE: stderr is one line, matching.
not_grep() { ! grep -q "$@"; }
one_line() { [ "$(wc -l <"$TEST_TMP/err")" = 1 ] && grep -qE "$1" "$TEST_TMP/err"; }

# not_on_screen ERE: no line of the screen matches.
not_on_screen() { ! screen | grep -qE "$1"; }

# stopped: blktop has exited (within 5 s), with status 0.
stopped() {
	local i=0
	while [ ! -s "$TEST_TMP/exit" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$TEST_TMP/exit" 2>/dev/null)" = 0 ]
}

# ---- No file: the defaults, nothing said.
start
check "no config file: the devices pane, no message" \
    wait_screen 5 "^ *loop[0-9]+ "
check "no config file: nothing on stderr" [ ! -s "$TEST_TMP/err" ]
key q
check "no config file: q quits" stopped

# ---- Change the view, save it with W.
start
key t 2 '>' I + o
check "W: the processes pane shown" wait_screen 5 "PID COMMAND"
key W
check "W: says where it wrote" wait_screen 5 "settings written to $RC"
check "W: the file is 0600 and root's (no sudo here)" \
    [ "$(stat -c '%a %u' "$RC" 2>/dev/null)" = "600 0" ]
check "W: its directory is 0700" [ "$(stat -c '%a' "$XDG/blktop")" = 700 ]
check "W: pane" grep -qx 'pane = processes' "$RC"
check "W: sort moved right of r/s" grep -qx 'processes.sort = w/s' "$RC"
check "W: order inverted" grep -qx 'processes.order = inverted' "$RC"
check "W: 2 s per heatmap column" grep -qx 'heatmap.column_seconds = 2' "$RC"
check "W: heatmap of reads" grep -qx 'heatmap.ops = reads' "$RC"
check "W: the theme changed" sh -c "grep '^theme = ' '$RC' | grep -vqx 'theme = default'"
check "W: every action's keys" [ "$(grep -c '^key\.' "$RC")" -ge 30 ]
cp "$RC" "$TEST_TMP/first.rc"
missing=""
for name in $(sed -n 's/^#* *key\.\([a-z_]*\) = .*/\1/p' "$RC"); do
	grep -qw -e "$name" "$BLKTOP_SRCDIR/doc/blktop.8" || missing="$missing $name"
done
check "the man page names every action W wrote${missing:+ (missing:$missing)}" [ -z "$missing" ]
key q
check "W: q quits" stopped

# ---- Restart: the same view; W again writes the same file.
start
check "restart: the processes pane, sorted by w/s inverted" wait_screen 5 "PID COMMAND .*(▴|\^)w/s"
check "restart: 2 s per column in the header" wait_screen 5 "column 2s"
key W
check "restart: W says it wrote" wait_screen 5 "settings written"
check "restart: the file written again is the same, byte for byte" cmp -s "$RC" "$TEST_TMP/first.rc"
key q
check "restart: q quits" stopped

# ---- Keys rebound: quit on x, help on F5 and ?, and columns chosen.
cat >>"$RC" <<'EOF'
key.quit = x
key.help = F5 ?
processes.columns = PID COMMAND r/s p99
EOF
start
check "rebound: the processes pane" wait_screen 5 "PID COMMAND"
key q
sleep 1
check "rebound: q no longer quits" [ ! -s "$TEST_TMP/exit" ]
key F5
check "rebound: F5 opens the help, which shows x for quit" wait_screen 5 "^ *x +quit"
check "rebound: the help shows F5 ? for help" wait_screen 5 "F5 \? +this help"
check "rebound: q is on no line of the help" not_on_screen "^ *q "
key Space
check "rebound: the status line's reminder says x quit" wait_screen 5 "^x quit  F5 help"
check "columns: PID COMMAND r/s p99 shown" wait_screen 5 "PID COMMAND +r/s +p99 *$"
check "columns: rMB/s not shown" not_on_screen "rMB/s"
key x
check "rebound: x quits" stopped

# ---- A broken file: one line, the defaults, exit 0. The user of SUDO_UID
# (below) may read what is meant for it.
chmod 755 "$TEST_TMP" "$XDG" "$XDG/blktop"
printf 'pane = files\ntheme light\n\001\002\n' >"$RC"
start
check "broken: the defaults (devices pane, not files)" wait_screen 5 "^ *loop[0-9]+ "
check "broken: the status line says why" wait_screen 5 "blktoprc: line 2: not KEY = VALUE; using the defaults"
key q
stopped
check "broken: one line on stderr ($(head -c 200 "$TEST_TMP/err"))" \
    one_line 'line 2: not KEY = VALUE; using the defaults\)?$' 

# A NUL byte: not a text file.
printf 'pane = files\n\000\n' >"$RC"
start
key q
stopped
check "NUL: one line ($(head -c 200 "$TEST_TMP/err"))" one_line 'line 2: a NUL byte' 

# A bad value: all defaults, even the good settings around it.
printf 'pane = files\ninterval = 0\n' >"$RC"
start
check "bad value: the defaults (devices pane)" wait_screen 5 "^ *loop[0-9]+ "
key q
stopped
check "bad value: one line naming it ($(head -c 200 "$TEST_TMP/err"))" \
    one_line "blktoprc:2: interval: '0' is not a number of seconds"
for bad in 'pane = disks' 'processes.sort = nope' 'heatmap.column_seconds = 3' \
    'key.quit = Ctrl-Q' 'key.nope = q' 'files.columns = PATH bogus' 'theme = /etc/shadow'; do
	printf '%s\n' "$bad" >"$RC"
	chmod 644 "$RC"
	start SUDO_UID=$NOB SUDO_GID=$NOB
	key q
	check "bad value '$bad' (the user running): exit 0" stopped
	check "bad value '$bad': one line naming it ($(head -c 160 "$TEST_TMP/err"))" \
	    one_line "blktoprc:1: ${bad%% *}: .*; using the defaults"
done
check "a theme the user may not read: not echoed" sh -c "! grep -q 'root:' '$TEST_TMP/err'"

# An unknown key: passed over with one line, the rest taken.
printf 'colour = red\npane = files\nshape = round\n' >"$RC"
start
check "unknown key: the rest taken (files pane)" wait_screen 5 "PATH"
key q
stopped
check "unknown key: one line ($(head -c 200 "$TEST_TMP/err"))" \
    one_line "blktoprc:1: unknown key 'colour' and 1 more, passed over"

# ---- Reports do not read it; --config and --no-config.
printf 'interval = 2\n' >"$RC"
n1=$(XDG_CONFIG_HOME=$XDG "$BLKTOP" -r "$CAP" -J 2>/dev/null | wc -l)
n2=$("$BLKTOP" -r "$CAP" -J --no-config 2>/dev/null | wc -l)
check "-J: the config's interval is not taken ($n1 reports, $n2 without it)" [ "$n1" -gt 2 -a "$n1" = "$n2" ]
"$BLKTOP" -r "$CAP" -J --config "$RC" >/dev/null 2>"$TEST_TMP/cfg.err"
st=$?
check "--config with -J: a usage error ($(head -c 120 "$TEST_TMP/cfg.err"))" \
    [ "$st" = 2 -a "$(wc -l <"$TEST_TMP/cfg.err")" = 1 ]
printf 'pane = files\n' >"$TEST_TMP/other.rc"
start -- --config "$TEST_TMP/other.rc"
check "--config FILE: its settings (files pane)" wait_screen 5 "PATH"
key q
check "--config FILE: q quits" stopped
start -- --config "$TEST_TMP/missing.rc"
stopped
check "--config with no such file: exit 2, one line" sh -c "[ \"\$(cat '$TEST_TMP/exit')\" = 2 ] && grep -q 'no such file' '$TEST_TMP/err'"
start -- --no-config
key W
check "--no-config: W writes nothing and says so" wait_screen 5 "no config file: --no-config"
key q
stopped

# ---- A --record-dir with a newline (issue 27, item 11): W never writes it
# into the file, where it would be a line of its own ("key.quit = z"), and
# says so; the rest is written and reads back.
rm -f "$RC"
start -- --record-dir "\"\$(printf '$TEST_TMP/rd\\nkey.quit = z')\""
key 3 W
check "record_dir with a newline: W says it was left out" \
    wait_screen 5 "settings written to .*but not the record directory: it holds a control"
key q
stopped
check "record_dir with a newline: not in the file, no line of it ($(grep -c 'record_dir\|key.quit = z' "$RC" 2>/dev/null) lines)" \
    sh -c "grep -q '^pane = files' '$RC' && ! grep -q 'key.quit = z' '$RC' && ! grep -q '^record_dir' '$RC'"
start
check "record_dir with a newline: the file reads back (files pane), no message" wait_screen 5 "PATH"
key q
check "record_dir with a newline: q still quits" stopped
check "record_dir with a newline: nothing on stderr" [ ! -s "$TEST_TMP/err" ]

# ---- sudo: the file is read and written as the user who ran sudo.
rm -rf "$XDG"
mkdir -p "$XDG/blktop"
printf 'pane = files\n# secret-line\n' >"$RC"
chmod 600 "$RC"
chmod 755 "$XDG" "$XDG/blktop"
start SUDO_UID=$NOB SUDO_GID=$NOB
check "sudo: root's 0600 file is not read for the user: the defaults" wait_screen 5 "^ *loop[0-9]+ "
key q
stopped
check "sudo: one line, permission denied ($(head -c 160 "$TEST_TMP/err"))" \
    one_line 'blktoprc: Permission denied; using the defaults'
check "sudo: nothing of the file said" not_grep secret "$TEST_TMP/err"
rm -rf "$XDG"
mkdir -p "$XDG"
chown $NOB:$NOB "$XDG"
start SUDO_UID=$NOB SUDO_GID=$NOB
key 3 W
check "sudo: W writes" wait_screen 5 "settings written"
check "sudo: the file belongs to the user, 0600 ($(stat -c '%U %a' "$RC" 2>/dev/null))" \
    [ "$(stat -c '%u %a' "$RC" 2>/dev/null)" = "$NOB 600" ]
check "sudo: and so does its directory" [ "$(stat -c '%u %a' "$XDG/blktop" 2>/dev/null)" = "$NOB 700" ]
key q
stopped
start SUDO_UID=$NOB SUDO_GID=$NOB
check "sudo: read back as the user (files pane)" wait_screen 5 "PATH"
key q
check "sudo: q quits" stopped
