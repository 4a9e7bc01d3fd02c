#!/bin/bash
# offsetmap.sh: where on the device requests start. A sequential fio read of a
# whole loop device draws a diagonal and random reads a spread, checked on the
# report's numbers (offset_map); the HTML report draws the map and headless
# Chromium renders it; `m` in the UI shows it, labelled in bytes. Then a
# file's map (where in the file its calls start, against time): a paced
# sequential read is a diagonal and random preads a spread, the report's
# cells counted against the workload's own offsets; `m` in a file's
# drill-down draws it.
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

"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null

# A file's map. 16 MiB read in 1 MiB read()s, 30 ms apart (about 0.5 s: the
# columns double once or twice), and 256 random 4 KiB preads of a 1 MiB file,
# each block once, 2 ms apart.
ext4_on_loop 64 || exit 0
python3 - "$MNT" <<'PY' || fail "the files' setup"
import os, sys
for name, size in (("fseq", 16 << 20), ("frand", 1 << 20)):
    with open("%s/%s.dat" % (sys.argv[1], name), "wb") as f:
        f.write(os.urandom(size))
PY
F=$TEST_TMP/files.blkcap
"$BLKTOP" -J -d 0.5 -c python3 -w "$F" --report "$TEST_TMP/f.json" >"$TEST_TMP/f.jsonl" \
    2>"$TEST_TMP/f.err" &
fpid=$!
TEST_PIDS="$TEST_PIDS $fpid"
wait_for "$TEST_TMP/f.jsonl" "$START_S" || fail "blktop -J started: $(head -c 300 "$TEST_TMP/f.err")"
python3 - "$MNT" >"$TEST_TMP/perm.json" <<'PY' || fail "the files' workload"
import json, os, random, sys, time
f = os.open(sys.argv[1] + "/fseq.dat", os.O_RDONLY)
for i in range(16):
    assert len(os.read(f, 1 << 20)) == 1 << 20
    time.sleep(0.03)
os.close(f)
perm = list(range(256))
random.Random(3).shuffle(perm)
f = os.open(sys.argv[1] + "/frand.dat", os.O_RDONLY)
for b in perm:
    assert len(os.pread(f, 4096, b * 4096)) == 4096
    time.sleep(0.002)
os.close(f)
print(json.dumps(perm))
PY
sleep 1
stop_bg "$fpid"; st=$?
check "files: blktop -J exits $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$F" --report "$TEST_TMP/f2.json" </dev/null >/dev/null 2>&1
python3 - "$TEST_TMP/f.json" "$TEST_TMP/f2.json" "$TEST_TMP/perm.json" "$TEST_TMP/f.jsonl" <<'PY' ||
import json, sys
perm = json.load(open(sys.argv[3]))
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "file map: " + what)
def maps(path):
    rep = json.load(open(path))
    return {f["path"].rsplit("/", 1)[-1]: f["offset_map"] for f in rep["files"]}
for src, path in (("live", sys.argv[1]), ("replay", sys.argv[2])):
    ms = maps(path)
    s, r = ms.get("fseq.dat"), ms.get("frand.dat")
    if s is None or r is None:
        out(False, "%s: fseq.dat and frand.dat have maps (%s)" % (src, sorted(ms)))
        continue
    # Sequential: 16 MiB over 32 bands of 512 KiB, a read at each even band, columns in order.
    bb = s["band_bytes"]
    want = [0] * 32
    for i in range(16):
        want[(i << 20) // bb] += 1
    got = [sum(c[k] for c in s["reads"]) for k in range(32)]
    out(bb == 512 << 10 and got == want and not any(map(any, s["writes"])),
        "%s: fseq.dat's 16 reads, each in the band its offset starts in (bands of %d): %s"
        % (src, bb, "exact" if got == want else "%s, want %s" % (got, want)))
    col = {}
    for c, bands in enumerate(s["reads"]):
        for k, n in enumerate(bands):
            if n:
                col.setdefault(k, []).append(c)
    order = [col[k] for k in sorted(col)]
    flat = [c for cs in order for c in cs]
    out(flat == sorted(flat) and flat[-1] - flat[0] >= 8,
        "%s: fseq.dat is a diagonal: its bands' columns in order, over %d columns of %.3f s"
        % (src, flat[-1] - flat[0] + 1 if flat else 0, s["column_s"]))
    # Random: 256 reads of 4 KiB over 1 MiB, 32 bands of 32 KiB: 8 in each.
    bb = r["band_bytes"]
    want = [0] * 32
    for b in perm:
        want[b * 4096 // bb] += 1
    got = [sum(c[k] for c in r["reads"]) for k in range(32)]
    out(bb == 32 << 10 and got == want, "%s: frand.dat's 256 reads, each in its band (bands of %d): %s"
        % (src, bb, "exact" if got == want else "%s, want %s" % (got, want)))
    spans = [max(k for k in range(32) if c[k]) - min(k for k in range(32) if c[k])
             for c in r["reads"] if any(c)]
    out(len(spans) >= 8 and sorted(spans)[len(spans) // 2] >= 16,
        "%s: frand.dat is spread: the median column spans %s of 32 bands (%d columns)"
        % (src, sorted(spans)[len(spans) // 2] if spans else "-", len(spans)))
last = [json.loads(l) for l in open(sys.argv[4]) if l.strip()][-1]
out(last["tables"]["offset_maps_reused"] == 0, "-J: no file's map was given to another (offset_maps_reused %s)"
    % last["tables"]["offset_maps_reused"])
PY
	fail "the file map's checks stopped (a Python error above)"

# The UI: the replay paused and stepped until the files pane (filtered to
# fseq.dat) shows it; Enter drills in, m draws its map (labelled in bytes of
# the file), m again its size histogram.
"${TMUX_CMD[@]}" new-session -d -s ui -x 150 -y 45 \
    "env LANG=C.UTF-8 '$BLKTOP' -r '$F' --speed 1 2>'$TEST_TMP/ui2.err'; sleep 600"
key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
wait_screen 10 "replay" && key Space && wait_screen 5 "paused"
key 3 / f s e q Enter
for i in $(seq 60); do
	screen | grep -q "fseq.dat" && break
	key . && sleep 0.3
done
check "UI: the files pane shows fseq.dat at some tick" wait_screen 2 "fseq.dat"
key Enter m
# The drill-down follows the file: stepped on, all 16 reads are in.
for i in $(seq 30); do
	screen | grep -q "16 reads, 0 writes" && break
	key . && sleep 0.3
done
screen >"$TEST_TMP/drill.txt"
check "UI: m in the drill-down draws the file's offset map (16 reads)" \
    wait_screen 5 "offset map \\(m: size histogram; o: both\\): 16 reads, 0 writes"
check "UI: the map's axis is in bytes of the file (a label of 8M or more)" \
    wait_screen 5 "^ *1?[0-9](\\.[0-9])?M "
key m
check "UI: m again brings back the size histogram" wait_screen 5 "size histogram \\(Darshan"
check "UI: nothing on stderr" [ ! -s "$TEST_TMP/ui2.err" ]
if [ -n "$BLKTOP_KEEP_SCREEN" ]; then cp "$TEST_TMP/drill.txt" "$BLKTOP_KEEP_SCREEN"; fi
