#!/bin/bash
# overview.sh: the devices pane with many devices: one line each, with a p99
# trend; Enter opens one's heatmap, Esc comes back, v switches. First 64
# devices of an imported log (no privileges), then 32 loop devices under fio.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux

tmux_setup
key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }

# start ARGS...: blktop in session "ui" at 120x50.
start() {
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	rm -f "$TEST_TMP/exit"
	"${TMUX_CMD[@]}" new-session -d -s ui -x 120 -y 50 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP $* \
	    2>$TEST_TMP/err; echo \$? >$TEST_TMP/exit; sleep 600"
}

# lines NAME...: every device named has its line on the screen, with a p99
# trend that is not blank; prints what is missing, and the p99 of each.
# The line's layout: name, r/s, w/s, MB/s, p99 at 0-37 (p99 at 32-36), the trend
# from 38 to 11 before its end, its width read from the header.
lines() {
	screen >"$TEST_TMP/screen.txt"
	python3 - "$TEST_TMP/screen.txt" "$@" <<'PY'
import re, sys
rows = open(sys.argv[1]).read().split("\n")
head = [r for r in rows if r.startswith("Device ") and "p99 trend" in r]
if not head:
    print("no overview header"); sys.exit(1)
starts = [m.start() for m in re.finditer(r"Device ", head[0])]
w = starts[1] - starts[0] - 1 if len(starts) > 1 else 120	# the pane's width
bad = []
for name in sys.argv[2:]:
    seg = None
    for r in rows:
        for s in starts:
            if r[s:s + len(name) + 1] == name + " ":
                seg = r[s:s + w]
    if seg is None:
        bad.append(name + ": no line")
    elif not seg[38:w - 11].strip():
        bad.append(name + ": blank trend")
    else:
        print("%s p99 %s" % (name, seg[32:37].strip()))
for b in bad:
    print("MISSING " + b)
sys.exit(1 if bad else 0)
PY
}

# stopped: blktop has exited (within 5 s), with status 0.
stopped() {
	local i=0
	while [ ! -s "$TEST_TMP/exit" ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$TEST_TMP/exit" 2>/dev/null)" = 0 ]
}

# wait_lines SECS NAME...: until lines passes.
wait_lines() {
	local t=$1 i=0
	shift
	while [ "$i" -lt $((t * 5)) ]; do
		lines "$@" >"$TEST_TMP/lines.out" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

if user_part; then
# ---- 64 devices of an imported log, each doing 20 requests a second.
python3 - "$TEST_TMP/many.txt" <<'PY'
import sys
t0 = 4867000000000
with open(sys.argv[1], "w") as f:
    f.write("TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n")
    i = 0
    for s in range(60 * 20):
        for d in range(64):
            if d == 63 and (s // 20) % 3 != 0:	# vd63: 1 s in 3 only
                continue
            lat = 100000 + (d * 37 % 50) * 20000
            f.write("%d 2022-02-05T20:27:46.000000000 %d app 0 kw vd%02d %d %d 4096 %d\n"
                    % (t0 + s * 50000000 + d * 1000, 100 + d, d, s % 2, i * 8, lat))
            i += 1
PY
names=$(seq -f 'vd%02g' 0 63)
start -r "$TEST_TMP/many.txt" --speed 2
check "import: 64 devices at 120x50 all shown, one line each, each with its p99 trend" \
    wait_lines 15 $names
grep MISSING "$TEST_TMP/lines.out" | head -5
check "import: two columns of devices" sh -c "grep -c 'Device .*p99 trend.* Device .*p99 trend' '$TEST_TMP/screen.txt' | grep -qx 1"
check "import: the p99 of vd01 is its latency's bucket (840 us planted: $(grep '^vd01 ' "$TEST_TMP/lines.out"))" \
    grep -qE '^vd01 p99 8[4-9][0-9]us$' "$TEST_TMP/lines.out"
key Down Enter
check "import: Enter opens the selected device's heatmap (vd01)" \
    wait_screen 5 "^vd01 .*[0-9]"
check "import: ... the full heatmap's header" wait_screen 2 "r_p50 r_p99"
key Escape
check "import: Esc: back to one line each" wait_screen 5 "p99 trend"
key v
check "import: v: a heatmap each" wait_screen 5 "devices: a heatmap each"
check "import: ... the heatmap blocks' header" wait_screen 2 "r_p50 r_p99"
key v
check "import: v again: one line each" wait_screen 5 "p99 trend"

# The line says what the trend's last cell shows: with 2 s columns, paused,
# stepped a tick at a time, vd63 (reads 1 s in 3) has a p99 exactly when its
# last cell is not blank (the newest column, not the last tick: with the last
# tick, a column of [reads, none] showed "-" beside a drawn cell).
# last_cell: "P99 CELL" of vd63's line, CELL "x" if drawn, "_" if blank.
last_cell() {
	screen | python3 -c '
import re, sys
rows = sys.stdin.read().split("\n")
head = [r for r in rows if r.startswith("Device ") and "p99 trend" in r][0]
starts = [m.start() for m in re.finditer(r"Device ", head)]
w = starts[1] - starts[0] - 1 if len(starts) > 1 else 120
for r in rows:
    for s in starts:
        if r[s:s + 5] == "vd63 ":
            seg = r[s:s + w].ljust(w)
            print(seg[32:37].strip(), "_" if seg[38 + w - 49 - 1] == " " else "x")'
}
key + Space
check "import: 2 s columns, paused" wait_screen 5 "paused"
agree=0 differ="" seen=""
for i in $(seq 1 12); do
	key .
	sleep 0.4
	c=$(last_cell)
	seen="$seen|$c"
	case "$c" in
	"- _"|[0-9]*" x") agree=$((agree + 1)) ;;
	*) differ="$differ $c" ;;
	esac
done
check "import: stepped 12 ticks, vd63's p99 and its last trend cell agree every time ($seen)" \
    [ "$agree" = 12 ]
check "import: ... both states seen" sh -c "echo '$seen' | grep -q -- '- _' && echo '$seen' | grep -qE '[0-9]+[a-z]+ x'"
key q
check "import: q exits 0" stopped

fi

# ---- 32 loop devices under fio, 40 reads a second each; one more reads for
# 3 s only: then its line says "-" for the p99 of the last interval.
need_root
need_cmd fio fio
loops=() names=""
for i in $(seq 1 33); do
	l=$(loop_create 16) || { fail "create loop device $i"; exit 1; }
	loops+=("$l")
	names="$names $(basename "$l")"
done
# blktop first, so that it sees the brief job's reads whatever its start costs.
start		# all devices: -D takes 16 at most
check "live: the UI is up" wait_screen 20 "live .*lost"
jobs=()
for i in $(seq 0 31); do
	jobs+=(--name="j$i" --filename="${loops[$i]}")
done
fio --direct=1 --ioengine=psync --rw=randread --bs=4k --size=16M --rate_iops=40 \
    --time_based --runtime=60 "${jobs[@]}" \
    --name=brief --filename="${loops[32]}" --runtime=3 >"$TEST_TMP/fio.out" 2>&1 &
TEST_PIDS="$TEST_PIDS $!"
check "live: 33 loop devices at 120x50 all shown, each with its p99 trend" wait_lines 20 $names
grep MISSING "$TEST_TMP/lines.out" | head -5
brief=$(basename "${loops[32]}")
# idle_dash: the brief device's line says "-" for its p99 while every line
# (its own too) keeps a trend that is not blank.
idle_dash() { lines $names >"$TEST_TMP/lines.out" 2>&1 && grep -qx "$brief p99 -" "$TEST_TMP/lines.out"; }
i=0
while ! idle_dash && [ "$i" -lt 75 ]; do sleep 0.2; i=$((i + 1)); done
check "live: a device idle since its 3 s of reads: '-' for its p99, its trend kept ($(grep "^$brief " "$TEST_TMP/lines.out"))" \
    idle_dash
busy=$(basename "${loops[0]}")
check "live: ... a busy device's p99 is a latency ($(grep "^$busy " "$TEST_TMP/lines.out"))" \
    grep -qE "^$busy p99 [0-9.]+(ns|us|ms)$" "$TEST_TMP/lines.out"
key Enter
check "live: Enter opens a heatmap" wait_screen 5 "r_p50 r_p99"
key Escape
check "live: Esc: back to one line each" wait_screen 5 "p99 trend"
key q
check "live: q exits 0" stopped
