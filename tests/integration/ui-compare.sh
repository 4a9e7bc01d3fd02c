#!/bin/bash
# ui-compare.sh: blktop --compare on a terminal (no -b, -J or --report) opens
# the compare screen (ui/ui-compare.c). On the committed capture and captures
# made from it here (its first 4 s recorded again: the same device, other
# figures; no root): every figure row of the devices, processes and phases
# tabs equals --compare -J's numbers of the same captures (A, B, B-A, B/A,
# sig; a set's median [min..max]), the heatmaps' B - A per bucket equals B's
# share of the runs' requests less A's, made from the runs' own -J
# histograms; the checker fails on a -J with one number changed; the help
# says what the screen shows and the rules; q leaves with status 0.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd tmux tmux
need_cmd python3 python3
S=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
M=$BLKTOP_SRCDIR/tests/fixtures/marks.blkcap
PY=$BLKTOP_SRCDIR/tests/integration/compare_screen.py
T=$TEST_TMP

# The first seconds of a capture, recorded again: same device, other counts and length.
timeout 60 "$BLKTOP" -r "$S" -w "$T/s4.blkcap" -n 4 -d 1 -J >/dev/null 2>"$T/w1.err"
check "small.blkcap's first 4 s recorded again" [ -s "$T/s4.blkcap" ]
timeout 60 "$BLKTOP" -r "$M" -w "$T/m2.blkcap" -n 2 -d 1 -J >/dev/null 2>"$T/w2.err"
check "marks.blkcap's first 2 s recorded again" [ -s "$T/m2.blkcap" ]

tmux_setup
key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
# open NAME ARGS...: the compare screen of ARGS in a fresh session; its -J beside it in $T/NAME.json.
open() {
	local name=$1
	shift
	timeout 60 "$BLKTOP" -J --compare "$@" >"$T/$name.json" 2>"$T/$name.jerr" </dev/null
	check "$name: --compare -J: exit 0" [ $? = 0 ]
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 70 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP --compare $* 2>$T/$name.err; echo EXIT \$?; sleep 600"
	check "$name: the compare screen opens" wait_screen 30 "^blktop compare  A: "
}

# Single runs of other lengths: rates, B - A per bucket.
open one "$S" "$T/s4.blkcap"
check "one: the devices tab first, the note on lengths" wait_screen 5 "^captures of different lengths"
check "one: the heatmaps: B - A per bucket" wait_screen 5 "B - A per bucket"
screen >"$T/one-dev.txt"
python3 "$PY" "$T/one-dev.txt" "$T/one.json" "one: devices" --heat || fail "one: devices: the checks stopped"
# The checker fails on a wrong number: -J's read.lat_us.p99 of A changed by 0.1.
python3 - "$T/one.json" "$T/wrong.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for f in j["compare"]["devices"][0]["figures"]:
    if f["figure"] == "read.lat_us.p99":
        f["a"]["median"] = round(f["a"]["median"] + 0.1, 1)
json.dump(j, open(sys.argv[2], "w"))
PY
python3 "$PY" "$T/one-dev.txt" "$T/wrong.json" "wrong" >"$T/wrong.out"
check "the checker fails on one number changed ($(grep -c '^FAIL' "$T/wrong.out") failed)" \
    grep -q "^FAIL: wrong: .*read.lat_us.p99: A 68.9" "$T/wrong.out"
key 2
check "one: 2 opens the processes tab" wait_screen 5 '^process "fio"'
screen >"$T/one-proc.txt"
python3 "$PY" "$T/one-proc.txt" "$T/one.json" "one: processes" || fail "one: processes: the checks stopped"
key '?'
check "one: the help says what the screen shows" wait_screen 5 "^The compare screen"
check "one: the help gives the significance rule" wait_screen 5 "^sig: significant when both sides"
check "one: the help gives the heatmap's rule" wait_screen 5 "^heatmap: B - A per time column when"
key x q
check "one: q leaves, status 0" wait_screen 5 "^EXIT 0"
check "one: nothing on stderr" [ ! -s "$T/one.err" ]

# Like lengths: the heatmaps' difference per time column.
open like "$T/s4.blkcap" "$T/s4.blkcap"
check "like: B - A per time column" wait_screen 5 "B - A per time column"
screen >"$T/like.txt"
python3 "$PY" "$T/like.txt" "$T/like.json" "like: devices" || fail "like: the checks stopped"

# Sets: each side's median [min..max].
open sets "$S" "$T/s4.blkcap" -- "$T/s4.blkcap" "$T/s4.blkcap" "$S"
check "sets: A of 2 runs, B of 3" wait_screen 5 "A: 2 runs, .*B: 3 runs"
screen >"$T/sets.txt"
python3 "$PY" "$T/sets.txt" "$T/sets.json" "sets: devices" --heat || fail "sets: the checks stopped"

# Phases (marks.blkcap's marks): Tab past the empty files tab.
open phases "$M" "$T/m2.blkcap"
key Tab Tab
check "phases: Tab twice: the phases tab" wait_screen 5 '^phase "'
screen >"$T/phases.txt"
python3 "$PY" "$T/phases.txt" "$T/phases.json" "phases" || fail "phases: the checks stopped"
key q
check "phases: q leaves, status 0" wait_screen 5 "^EXIT 0"

# Not a terminal: the text table, as before.
"$BLKTOP" --compare "$S" "$T/s4.blkcap" >"$T/text.txt" 2>&1 </dev/null
check "no terminal: -b's table" grep -q "^  figure  .* sig$" "$T/text.txt"
