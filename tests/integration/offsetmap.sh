#!/bin/bash
# offsetmap.sh: where on the device requests start. A sequential fio read of a
# whole loop device draws a diagonal and random reads a spread, checked on the
# report's numbers (offset_map); the HTML report draws the map and headless
# Chromium renders it; `m` in the UI shows it, labelled in bytes.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd python3 python3
LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
C=$TEST_TMP/map.blkcap
"$BLKTOP" -b -d 1 -D "$DEV" --no-vfs -w "$C" >/dev/null 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
sleep 2.5
# 256 MiB from start to end at 64 MB/s: about 4 s, 8 bands of 8 MiB a second.
fio --name=seq --filename="$LOOP" --direct=1 --rw=read --bs=1M --size=256M \
    --rate=64m >/dev/null 2>&1
sleep 1
# 2 s of random 4 KiB reads anywhere.
fio --name=rand --filename="$LOOP" --direct=1 --rw=randread --bs=4k --size=256M \
    --rate_iops=4000 --runtime=2 --time_based --randseed=9 >/dev/null 2>&1
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$C" --report "$TEST_TMP/r.json" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$C" --report "$TEST_TMP/r.html" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$C" --dump >"$TEST_TMP/dump.csv"
python3 - "$TEST_TMP/r.json" "$TEST_TMP/dump.csv" "$DEV" <<'PY' ||
import csv, json, sys
rep = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["type"] == "block" and r["device"] == sys.argv[3]]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "offsetmap: " + what)
d = [x for x in rep["devices"] if x["name"] == sys.argv[3]][0]
m = d["offset_map"]
bb, R, W = m["band_bytes"], m["reads"], m["writes"]
# The numbers are the rows': each read in the band its sector falls in.
want = [0] * 32
for r in rows:
    if r["op"] == "0":
        want[int(r["sector"]) * 512 // bb] += 1
got = [sum(c[k] for c in R) for k in range(32)]
out(got == want and bb == 8 << 20, "the bands (of %d bytes) count each read where it starts: %s"
    % (bb, "as the capture's rows" if got == want else "%s, rows %s" % (got, want)))
# Sequential columns: those where 1 MiB reads were, by when.
seqcols = [i for i, c in enumerate(R) if sum(c) and i < len(R)]
big = sum(1 for r in rows if r["bytes"] == "1048576")
cols = []
for i, c in enumerate(R):
    n = sum(c)
    if n == 0:
        continue
    nz = [k for k in range(32) if c[k]]
    cols.append((i, n, nz))
# The diagonal: columns whose reads sit in at most 12 adjacent bands, each
# starting at or past where the last one started, together crossing the device.
diag = [c for c in cols if len(c[2]) <= 12 and c[2][-1] - c[2][0] < 12]
starts = [c[2][0] for c in diag]
out(len(diag) >= 3 and starts == sorted(starts) and diag[-1][2][-1] - diag[0][2][0] >= 24,
    "sequential: a diagonal, %d columns whose bands start at %s" % (len(diag), starts))
spread = [c for c in cols if len(c[2]) >= 28]
out(len(spread) >= 2, "random: spread, %d columns with reads in 28 or more of the 32 bands (%s)"
    % (len(spread), [len(c[2]) for c in cols]))
PY
	fail "the map's checks stopped (a Python error above)"
check "the HTML report draws the map (an offsetmap SVG with rects)" \
    grep -q '<svg class="offsetmap".*data-bands="32"' "$TEST_TMP/r.html"
if command -v chromium >/dev/null; then
	HOME=$TEST_TMP timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	    --dump-dom "file://$TEST_TMP/r.html" >"$TEST_TMP/dom.html" 2>/dev/null
	check "Chromium renders the report's offset map ($(grep -o '<rect[^>]*fill-opacity' "$TEST_TMP/dom.html" | wc -l) shaded cells)" \
	    sh -c "grep -q 'class=\"offsetmap\"' '$TEST_TMP/dom.html' && grep -q 'fill-opacity' '$TEST_TMP/dom.html'"
else
	skip "the report in Chromium: no chromium"
fi

# The UI: m switches the devices' heatmaps to their maps, labelled in bytes.
need_cmd tmux tmux
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s ui -x 150 -y 40 "'$BLKTOP' -r '$C' --speed max"
wait_screen 20 " end" || fail "the UI: the replay's end within 20 s"
"${TMUX_CMD[@]}" send-keys -t ui m
check "m: the device pane shows the offset map" wait_screen 5 "offset map of all"
check "m: its axis in bytes of the device (256M at the top band's edge or below)" \
    wait_screen 5 '^ +2[0-9][0-9]M '
