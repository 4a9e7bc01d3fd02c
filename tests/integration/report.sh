#!/bin/bash
# report.sh: --report of the committed capture as HTML and JSON, checked
# against the capture's own rows (--dump) and batch reports, opened in
# headless Chromium; a live run's report against /proc/diskstats; the file
# rules (0600, never over a file or through a link, the sudo user's).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd chromium chromium
need_cmd python3 python3

CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
H=$TEST_TMP/small.html
J=$TEST_TMP/small.json

# ---- the committed capture: HTML and JSON, with no UI and no terminal
if user_part; then
check "-r --report OUT.html: exit 0 with no terminal" \
    sh -c "'$BLKTOP' -r '$CAP' --report '$H' </dev/null >'$TEST_TMP/h.out' 2>&1"
check "-r --report OUT.json: exit 0" \
    sh -c "'$BLKTOP' -r '$CAP' --report '$J' </dev/null >/dev/null 2>&1"
check "the report is 0600" [ "$(stat -c %a "$H")" = 600 -a "$(stat -c %a "$J")" = 600 ]
"$BLKTOP" -r "$CAP" --dump >"$TEST_TMP/dump.csv"
"$BLKTOP" -r "$CAP" -J >"$TEST_TMP/batch.jsonl"

# The capture's own rows and batch reports against the report: counts, bytes,
# ticks, whole-run p99's bucket; the page's heatmaps and SVG.
python3 - "$H" "$J" "$TEST_TMP/dump.csv" "$TEST_TMP/batch.jsonl" >"$TEST_TMP/py.out" 2>&1 <<'PY'
import csv, json, re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1], encoding="utf-8").read()
rep = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
batch = [json.loads(l) for l in open(sys.argv[4])]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "report: " + what)
ticks = sum(1 for r in rows if r["type"] == "tick")
blocks = [r for r in rows if r["type"] == "block"]
devs = sorted({r["dev"] for r in blocks})
out(rep["ticks"] == ticks and rep["columns"] == ticks,
    "JSON: %s ticks, %s columns; the capture has %d ticks" % (rep["ticks"], rep["columns"], ticks))
out(len(rep["devices"]) == len(devs) and len(devs) > 0,
    "JSON: %d devices, the capture's rows name %d" % (len(rep["devices"]), len(devs)))
for d in rep["devices"]:
    mine = [r for r in blocks if r["dev"] == "%d:%d" % (d["major"], d["minor"])]
    # op: the kernel's REQ_OP (0 read, 1 write).
    for op, name in (("0", "read"), ("1", "write")):
        n = sum(1 for r in mine if r["op"] == op)
        by = sum(int(r["bytes"]) for r in mine if r["op"] == op)
        out(d[name]["ios"] == n and d[name]["bytes"] == by and n > 0,
            "%s %s: %d requests, %d bytes; the capture's rows: %d, %d"
            % (d["name"], name, d[name]["ios"], d[name]["bytes"], n, by))
    # The whole run's p99 from the batch reports' histograms, summed.
    buckets = {}
    for b in batch:
        for bd in b["devices"]:
            if bd["name"] != d["name"]:
                continue
            for op in ("read", "write", "other"):
                for h in bd[op]["hist"]:
                    k = (h["lo_us"], h["hi_us"])
                    buckets[k] = buckets.get(k, 0) + h["count"]
    total = sum(buckets.values()); acc = 0
    for (lo, hi) in sorted(buckets):
        acc += buckets[(lo, hi)]
        if acc >= 0.99 * total:
            break
    p99 = d["lat_us"]["p99"]
    out(lo <= p99 <= hi, "%s: whole-run p99 %.1f us lies in the bucket [%g, %g) that holds the "
        "99th percentile of the batch reports' histograms" % (d["name"], p99, lo, hi))
out(re.search(r"<script|https?://(?!www\.w3\.org/2000/svg)|<link|@import|url\(", html) is None,
    "HTML: no script, no link, nothing fetched from elsewhere")
svgs = re.findall(r"<svg\b.*?</svg>", html, re.S)
bad = []
for s in svgs:
    try:
        ET.fromstring(s)
    except ET.ParseError as e:
        bad.append(str(e))
out(len(svgs) > 0 and not bad, "HTML: %d SVGs, each parses as XML %s" % (len(svgs), bad[:1]))
heat = [s for s in svgs if 'class="heatmap"' in s]
out(len(heat) == len(rep["devices"]), "HTML: %d heatmaps, one per device (%d)"
    % (len(heat), len(rep["devices"])))
for s in heat:
    cols = len(ET.fromstring(s).findall("{http://www.w3.org/2000/svg}g[@class='col']"))
    out(cols == ticks, "HTML: a heatmap has %d columns, one per tick of the capture (%d)" % (cols, ticks))
for d in rep["devices"]:
    out(d["name"] in html and ("%d" % d["read"]["ios"]) in html,
        "HTML: the summary names %s and its %d reads" % (d["name"], d["read"]["ios"]))
out(html.count('class="anomaly"') == sum(len(d["anomalies"]) for d in rep["devices"]),
    "HTML: the spans outlined are the JSON's anomalies (%d)" % sum(len(d["anomalies"]) for d in rep["devices"]))
PY
cat "$TEST_TMP/py.out"
grep -q '^PASS' "$TEST_TMP/py.out" || fail "the report's checks ran"

# ---- Chromium: the page renders, with no console message
chrome() {	# chrome URL PNG: screenshot, console lines to PNG.log
	HOME=$TEST_TMP timeout 60 chromium --headless --no-sandbox --disable-gpu \
	    --no-first-run --enable-logging=stderr --v=0 --window-size=1200,1600 \
	    --screenshot="$2" "$1" >"$2.log" 2>&1
}
printf '<!DOCTYPE html><html><body><script>console.error("planted")</script></body></html>' \
    >"$TEST_TMP/planted.html"
chrome "file://$TEST_TMP/planted.html" "$TEST_TMP/planted.png"
check "Chromium's console lines are seen (a planted console.error is)" \
    grep -q 'CONSOLE.*planted' "$TEST_TMP/planted.png.log"
chrome "file://$H" "$TEST_TMP/small.png"
check "Chromium: a screenshot of the report ($(stat -c %s "$TEST_TMP/small.png" 2>/dev/null) bytes)" \
    sh -c "[ \$(stat -c %s '$TEST_TMP/small.png') -gt 20000 ]"
check "Chromium: no console errors ($(grep CONSOLE "$TEST_TMP/small.png.log" | head -c 200))" \
    sh -c "! grep -q CONSOLE '$TEST_TMP/small.png.log'"

# ---- a long run: 2000 ticks of an imported log, 30 requests a tick, 10 s
# of them 50 ms slow from tick 1000: the columns merge in pairs twice (720
# kept at most), every request stays counted, the slow span is found where
# it was planted.
python3 - "$TEST_TMP/long.txt" <<'PY'
import sys
t0, n = 4867000000000, 30
with open(sys.argv[1], "w") as f:
    f.write("TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n")
    for i in range(2000 * n):
        off = i * (10**9 // n)
        lat = 50000000 if 1000 <= i // n < 1010 else 100000 + (i % 7) * 1000
        f.write("%d 2022-02-05T20:27:46.000000000 100 app 0 kw sda %d %d 4096 %d\n"
                % (t0 + off, i % 2, i * 8, lat))
PY
"$BLKTOP" -r "$TEST_TMP/long.txt" --report "$TEST_TMP/long.json" </dev/null >/dev/null 2>&1
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); d=r["devices"][0]; a=d["anomalies"]
print(r["ticks"], r["columns"], r["ticks_per_column"], d["read"]["ios"], d["write"]["ios"], len(a),
      round(a[0]["start"] - r["start"]) if a else "-", round(a[0]["end"] - r["start"]) if a else "-")' \
    "$TEST_TMP/long.json" 2>&1)
check "long run: 2000 ticks in 500 columns of 4, 30000 reads and writes, one slow span at 1000-1012 s (got $got)" \
    [ "$got" = "2000 500 4 30000 30000 1 1000 1012" ]
"$BLKTOP" -r "$TEST_TMP/long.txt" --report "$TEST_TMP/long.html" </dev/null >/dev/null 2>&1
check "long run: the page's heatmap has 500 columns and one outlined span" python3 -c '
import re, sys, xml.etree.ElementTree as ET
h = open(sys.argv[1]).read()
s = ET.fromstring(re.search(r"<svg class=\"heatmap\".*?</svg>", h, re.S).group(0))
ns = "{http://www.w3.org/2000/svg}"
sys.exit(not (len(s.findall(ns + "g[@class=\"col\"]")) == 500 and len(s.findall(ns + "rect[@class=\"anomaly\"]")) == 1))' "$TEST_TMP/long.html"

# ---- the file rules
echo keep >"$TEST_TMP/exists.html"
"$BLKTOP" -r "$CAP" --report "$TEST_TMP/exists.html" </dev/null >/dev/null 2>"$TEST_TMP/ex.err"; st=$?
check "an existing file: refused ($(head -c 120 "$TEST_TMP/ex.err")), exit $st, untouched" \
    [ "$st" != 0 -a "$(cat "$TEST_TMP/exists.html")" = keep -a "$(wc -l <"$TEST_TMP/ex.err")" = 1 ]
ln -s "$TEST_TMP/target" "$TEST_TMP/link.html"
"$BLKTOP" -r "$CAP" --report "$TEST_TMP/link.html" </dev/null >/dev/null 2>&1; st=$?
check "a symlink: not followed, exit $st" [ "$st" != 0 -a ! -e "$TEST_TMP/target" ]
"$BLKTOP" -r "$CAP" --report "$TEST_TMP/no/such/dir.html" </dev/null >/dev/null 2>"$TEST_TMP/nd.err"; st=$?
check "a missing directory: one line ($(head -c 120 "$TEST_TMP/nd.err")), exit $st" \
    [ "$st" != 0 -a "$(wc -l <"$TEST_TMP/nd.err")" = 1 ]
"$BLKTOP" -r "$CAP" --dump --report "$TEST_TMP/d.html" >/dev/null 2>"$TEST_TMP/du.err"; st=$?
check "--dump with --report: a usage error ($(head -c 100 "$TEST_TMP/du.err"))" \
    [ "$st" = 2 -a ! -e "$TEST_TMP/d.html" ]
"$BLKTOP" --report "" >/dev/null 2>&1; st=$?
check "--report with an empty name: a usage error" [ "$st" = 2 ]
fi

# ---- with root: through sudo, the report is the user's
need_root
chmod 711 "$TEST_TMP"
mkdir -m 1777 "$TEST_TMP/shared"
env SUDO_UID=65534 SUDO_GID=65534 "$BLKTOP" -r "$CAP" --report "$TEST_TMP/shared/u.html" \
    </dev/null >/dev/null 2>&1
check "through sudo: the report belongs to the user ($(stat -c %u:%g "$TEST_TMP/shared/u.html" 2>&1))" \
    [ "$(stat -c %u:%g "$TEST_TMP/shared/u.html")" = 65534:65534 ]

# ---- live: the report of a run against /proc/diskstats
need_cmd fio fio
LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
LJ=$TEST_TMP/live.json
"$BLKTOP" -J -d 0.5 -D "$DEV" --report "$LJ" >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "live: first report within $START_S s"
read -r r0 _ w0 _ < <(diskstats "$DEV")
fio --name=rep --filename="$LOOP" --direct=1 --ioengine=psync --bs=4k --rw=randrw \
    --number_ios=1500 --size=32M --randseed=7 >/dev/null 2>&1
read -r r1 _ w1 _ < <(diskstats "$DEV")
sleep 1
stop_bg "$bpid"; st=$?
check "live: exit $st at SIGINT, report written" [ "$st" = 0 -a -s "$LJ" ]
got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); d=[d for d in r["devices"] if d["name"]==sys.argv[2]][0]; print(d["read"]["ios"], d["write"]["ios"])' "$LJ" "$DEV" 2>&1)
check "live: the report's reads and writes ($got) are diskstats' ($((r1 - r0)) $((w1 - w0)))" \
    [ "$got" = "$((r1 - r0)) $((w1 - w0))" -a $((r1 - r0 + w1 - w0)) -ge 1500 ]
losetup -d "$LOOP"
