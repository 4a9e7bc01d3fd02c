#!/bin/bash
# compare.sh: blktop --compare. On the committed captures (no root): each
# side's run is that capture's `-r FILE -J -d 3600` byte for byte (but for
# self) and each figure its value there (summed by command, per second where
# the lengths differ), -J against the schema, -b and --report, bad input. Live:
# captures of fio runs with a difference built in (twice the request size,
# half the iodepth, a device throttled to 500 reads a second) show it,
# significant; 10 trials of one configuration
# split 20 ways into 5 against 5 show no significant difference in at least
# 19 of the 20 (tests/README.md: the tiers).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3

# check_compare NAME COMPARE_JSON FILE...: the compare's runs and values against each file's own -J.
check_compare() {
	local name=$1 cmp=$2 f i=0
	shift 2
	for f in "$@"; do
		i=$((i + 1))
		"$BLKTOP" -r "$f" -J -d 3600 | noself >"$TEST_TMP/alone$i.json"
	done
	python3 - "$name" "$cmp" "$BLKTOP_SRCDIR/doc/blktop.schema.json" "$TEST_TMP" "$@" <<'PY' ||
import json, sys
name, cmp_path, schema, tmp = sys.argv[1:5]
files = sys.argv[5:]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "compare: " + name + ": " + what)
raw = open(cmp_path, encoding="utf-8").read()
c = json.loads(raw)["compare"]
try:
    import jsonschema
    errs = list(jsonschema.Draft202012Validator(json.load(open(schema))).iter_errors(json.loads(raw)))
    out(not errs, "the compare object validates against the schema%s" %
        (": " + errs[0].message[:200] if errs else ""))
except ImportError:
    out(False, "python3-jsonschema is missing")
runs = c["a"]["runs"] + c["b"]["runs"]
out(c["a"]["files"] + c["b"]["files"] == files, "the sides name the files given, in order")
# Byte for byte: each run's text in the compare's own bytes equals the replay's line.
bad = []
for i, f in enumerate(files):
    alone = open("%s/alone%d.json" % (tmp, i + 1), encoding="utf-8").read().strip()
    if alone[:-1] not in raw:
        bad.append(f)
out(not bad, "each run is its capture's -r FILE -J -d 3600 line byte for byte, but for self (%d runs%s)" %
    (len(files), ", not: " + " ".join(bad) if bad else ""))
# Each figure's value against the run's -J row, as the doc says it is made.
def get(o, path):
    for k in path.split("."):
        if not isinstance(o, dict) or k not in o:
            return None
        o = o[k]
    return o
def value(run, ent, row_keys, fig, basis):
    j = run
    if ent == "devices":
        rows = [d for d in j["devices"] if json.dumps(d["name"]) == json.dumps(row_keys["name"])]
    elif ent in ("processes", "files"):
        k = "comm" if ent == "processes" else "path"
        rows = [d for d in j[ent] if d[k] == row_keys[k]]
    else:
        return "skip"
    if not rows:
        return None
    if fig.endswith("bytes_per_io"):
        op = fig.split(".")[0]
        r = rows[0][op]
        return r["bytes"] / r["ios"] if r["ios"] else None
    vals = [get(r, fig) for r in rows]
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    v = sum(vals)
    return v / run["interval_s"] if basis == "per_s" else v
n = wrong = 0
first = ""
for ent in ("devices", "processes", "files"):
    for row in c[ent]:
        for f in row["figures"]:
            for side in ("a", "b"):
                for r, got in zip(c[side]["runs"], f[side]["values"]):
                    want = value(r, ent, row, f["figure"], f["basis"])
                    n += 1
                    ok = (want is None and got is None) or (want is not None and got is not None and
                         abs(got - want) <= 1e-9 + (5e-4 if f["basis"] == "per_s" or
                                                    f["figure"].endswith("per_io") else 0) * abs(want))
                    if not ok:
                        wrong += 1
                        first = first or "%s %s %s: %s, -J %s" % (ent, f["figure"], side, got, want)
out(n > 0 and wrong == 0, "every value of devices, processes and files is -J's (%d values%s)" %
    (n, ", wrong: %d, first %s" % (wrong, first) if wrong else ""))
PY
	fail "$name: the checks stopped (a Python error above)"
}

FX=$BLKTOP_SRCDIR/tests/fixtures
if user_part; then
S=$FX/small.blkcap M=$FX/marks.blkcap
"$BLKTOP" -J --compare "$S" "$M" >"$TEST_TMP/sm.json" 2>"$TEST_TMP/sm.err"
check "fixtures: -J --compare small marks exits 0, nothing on stderr" [ $? = 0 -a ! -s "$TEST_TMP/sm.err" ]
check_compare fixtures "$TEST_TMP/sm.json" "$S" "$M"
python3 - "$TEST_TMP/sm.json" <<'PY' || fail "fixtures: the lengths' checks stopped"
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "compare: fixtures: " + what)
figs = {f["figure"]: f for f in c["devices"][0]["figures"]}
out(c["totals_as_rates"] and "different lengths" in c["note"] and "rates per second" in c["note"],
    "captures of 8.8 and 3.8 s: totals as rates, and the note says so (%s)" % c["note"])
out(figs["read.ios"]["basis"] == "per_s" and figs["read.iops"]["basis"] == "rate" and
    figs["read.lat_us.p99"]["basis"] == "rate", "read.ios per_s, read.iops and read.lat_us.p99 rate")
ph = [p for p in c["phases"] if p["label"] == "warm-up done" and p["device"] == "loop0"]
out(ph and {f["figure"]: f for f in ph[0]["figures"]}["ios"]["b"]["values"] == [150] and
    {f["figure"]: f for f in ph[0]["figures"]}["ios"]["basis"] == "total",
    "a phase's totals stay totals (warm-up done: 150 requests in marks.blkcap)")
out(all(f["significant"] is None for e in ("devices", "processes", "phases") for r in c[e]
        for f in r["figures"]), "single runs: significance null")
PY
"$BLKTOP" -J --compare "$S" "$S" "$S" -- "$S" "$S" >"$TEST_TMP/ss.json"
check_compare "fixtures, sets" "$TEST_TMP/ss.json" "$S" "$S" "$S" "$S" "$S"
python3 - "$TEST_TMP/ss.json" <<'PY' || fail "fixtures: the sets' checks stopped"
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
f = [f for r in c["devices"] + c["processes"] for f in r["figures"]]
ok = all(x["diff"] == 0 and x["significant"] is False and x["a"]["min"] == x["a"]["max"] for x in f
         if x["a"]["median"] is not None and x["b"]["median"] is not None)
print(("PASS: " if ok and f else "FAIL: ") + "compare: fixtures: 3 runs of small.blkcap against 2: "
      "every difference 0, none significant, no spread (%d figures)" % len(f))
PY
"$BLKTOP" -b --compare "$S" "$M" >"$TEST_TMP/sm.txt"
check "fixtures: -b's table has the note, the rule and the device's p99 row" \
    grep -q "^note: captures of different lengths" "$TEST_TMP/sm.txt"
check "fixtures: -b names the rule" grep -q "^rule: significant when" "$TEST_TMP/sm.txt"
check "fixtures: -b's row of read.lat_us.p99 has small.blkcap's 68.9" \
    grep -qE "^  read\.lat_us\.p99 +68\.9 " "$TEST_TMP/sm.txt"
"$BLKTOP" --compare "$S" "$M" --report "$TEST_TMP/sm.html"
check "fixtures: --report: 6 heatmaps a device (A, B, B - A over time and per run), 2 devices: $(grep -o '<svg' "$TEST_TMP/sm.html" | wc -l)" \
    [ "$(grep -o '<svg' "$TEST_TMP/sm.html" | wc -l)" = 12 ]
# small.blkcap's 9 ticks: its map over time has 9 columns of 8 px.
check "fixtures: --report: A's map over time has a column per tick of small.blkcap (9)" \
    grep -q '<div><b>A</b><svg xmlns="http://www.w3.org/2000/svg" width="72"' "$TEST_TMP/sm.html"
# The heatmap's rule as the UI's help prints it (ui-compare.sh), in the report too.
check "fixtures: --report: the heatmap's rule, the UI help's line" \
    grep -q "<p>heatmap: B - A per time column when the time columns align (captures of like lengths, each side&#39;s first run cut into as many columns); else per bucket: B&#39;s median share of a run&#39;s requests less A&#39;s</p>" "$TEST_TMP/sm.html"
# ---- bad input: one line, a non-zero exit
head -c 4096 /dev/urandom >"$TEST_TMP/noise.blkcap"
refused 1 "a missing capture" --compare "$S" "$TEST_TMP/none.blkcap"
refused 2 "-- with no capture after it" --compare "$S" --
refused 2 "-- with no capture before it" --compare -- "$S"
refused 2 "one capture" --compare "$S"
refused 2 "three captures and no --" --compare "$S" "$S" "$S"
refused 1 "a file that is no capture" --compare "$S" "$TEST_TMP/noise.blkcap"
refused 2 "--trace with --compare" --trace "$TEST_TMP/t.json" --compare "$S" "$S"
refused 2 "--dump with --compare" --dump --compare "$S" "$S"
fi

need_root
need_cmd fio fio
LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
# trial FILE BS DEPTH SEED: a capture of 1 s of fio's random reads (libaio, direct).
# Its reports go to a file of its own: the background job's redirection may
# come after wait_for's first look, which must not find the last trial's.
trial() {
	"$BLKTOP" -J -d 0.5 -D "$DEV" --no-vfs -w "$1" >"$1.jsonl" 2>"$1.err" &
	local bpid=$!
	TEST_PIDS="$TEST_PIDS $bpid"
	wait_for "$1.jsonl" "$START_S" || fail "live: first report within $START_S s"
	fio --name=t --filename="$LOOP" --direct=1 --ioengine=libaio --rw=randread --bs="$2" \
	    --iodepth="$3" --runtime=1 --time_based --size=200M --randseed="$4" \
	    --output-format=json --output="$1.fio" >/dev/null 2>&1
	sleep 0.3
	stop_bg "$bpid" || fail "live: blktop recording $1 exited $?"
}
X=() Y=()
for i in 1 2 3 4 5 6 7 8 9 10; do
	trial "$TEST_TMP/x$i.blkcap" 4k 8 "$i"
	X+=("$TEST_TMP/x$i.blkcap")
done
for i in 1 2 3; do
	trial "$TEST_TMP/y$i.blkcap" 8k 4 "$((i + 10))"
	Y+=("$TEST_TMP/y$i.blkcap")
done
"$BLKTOP" -J --compare "${X[@]:0:3}" -- "${Y[@]}" >"$TEST_TMP/xy.json"
check "live: -J --compare x1 x2 x3 -- y1 y2 y3 exits 0" [ $? = 0 ]
check_compare live "$TEST_TMP/xy.json" "${X[@]:0:3}" "${Y[@]}"
python3 - "$TEST_TMP/xy.json" "$DEV" <<'PY' || fail "live: the difference's checks stopped"
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "compare: live: " + what)
dev = [d for d in c["devices"] if d["name"] == sys.argv[2]]
f = {x["figure"]: x for x in dev[0]["figures"]} if dev else {}
b = f.get("read.bytes_per_io", {})
out(b and abs(b["ratio"] - 2.0) < 0.02 and b["significant"] is True,
    "bytes per request: 4 KiB against 8 KiB, ratio %s (2.0 within 1%%), significant %s" %
    (b.get("ratio"), b.get("significant")))
q = f.get("qd.max", {})
out(q and q["a"]["median"] == 8 and q["b"]["median"] == 4 and abs(q["ratio"] - 0.5) < 1e-9 and
    q["significant"] is True, "depth reached: iodepth 8 against 4, %s and %s, ratio %s, significant %s" %
    (q.get("a", {}).get("values"), q.get("b", {}).get("values"), q.get("ratio"), q.get("significant")))
PY
# A slower device: the loop device throttled to 500 reads a second (the root
# blkio cgroup's read_iops_device, fio's cgroup or its parent), 3 trials
# against 3 at 2000 a second: each trial's reads are fio's own count, and the
# reads a second fall to a quarter, significant. Both sides are held by the
# throttle, not by the CPU: against unthrottled trials the rule failed under
# load (their spread, 30k-130k a second beside other work, took in the
# difference). The throttle is put back on every exit path.
THR=/sys/fs/cgroup/blkio/blkio.throttle.read_iops_device
if [ -w "$THR" ]; then
	MM=$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ')
	restore() { echo "$MM 0" >"$THR" 2>/dev/null; test_cleanup; }
	trap restore EXIT
	echo "$MM 2000" >"$THR"
	W=()
	for i in 1 2 3; do
		trial "$TEST_TMP/w$i.blkcap" 4k 8 "$((i + 30))"
		W+=("$TEST_TMP/w$i.blkcap")
	done
	echo "$MM 500" >"$THR"
	Z=()
	for i in 1 2 3; do
		trial "$TEST_TMP/z$i.blkcap" 4k 8 "$((i + 20))"
		Z+=("$TEST_TMP/z$i.blkcap")
		"$BLKTOP" -r "$TEST_TMP/z$i.blkcap" -J -d 3600 2>/dev/null | tail -1 >"$TEST_TMP/z$i.alone"
	done
	echo "$MM 0" >"$THR"
	"$BLKTOP" -J --compare "${W[@]}" -- "${Z[@]}" >"$TEST_TMP/xz.json"
	check "live: -J --compare w1 w2 w3 -- z1 z2 z3 (throttled) exits 0" [ $? = 0 ]
	python3 - "$TEST_TMP" "$DEV" <<'PY' || fail "live: the throttle's checks stopped"
import json, sys
t, dev = sys.argv[1:3]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "compare: live: throttled: " + what)
fio = [json.load(open(f"{t}/z{i}.blkcap.fio"))["jobs"][0]["read"] for i in (1, 2, 3)]
ios = [[d["read"]["ios"] for d in json.load(open(f"{t}/z{i}.alone"))["devices"] if d["name"] == dev]
       for i in (1, 2, 3)]
out(all(450 <= f["iops"] <= 550 for f in fio), "fio's own reads a second %s (the throttle's 500)"
    % [round(f["iops"]) for f in fio])
out(all(len(n) == 1 and abs(n[0] - f["total_ios"]) <= 8 for n, f in zip(ios, fio)),
    "each trial's reads on %s are fio's own count (%s against %s)"
    % (dev, ios, [f["total_ios"] for f in fio]))
c = json.load(open(f"{t}/xz.json"))["compare"]
d = [x for x in c["devices"] if x["name"] == dev]
f = {x["figure"]: x for x in d[0]["figures"]} if d else {}
r = f.get("read.iops", {})
out(r and r["ratio"] is not None and 0.15 < r["ratio"] < 0.4 and r["significant"] is True,
    "reads a second: 2000/s against 500/s, ratio %s (0.25 expected: 0.15-0.4), significant %s (A %s, B %s)"
    % (r.get("ratio"), r.get("significant"), r.get("a", {}).get("values"), r.get("b", {}).get("values")))
PY
else
	skip "live: no cgroup v1 blkio read throttle ($THR): the slower device is not compared"
fi
# 20 comparisons of 5 trials against 5 of the same configuration: the 10
# captures x1..x10 split 20 ways (seeded), none the same split.
python3 - "${X[@]}" >"$TEST_TMP/splits" <<'PY'
import itertools, random, sys
files = sys.argv[1:]
splits = list(itertools.combinations(range(10), 5))
random.Random(45).shuffle(splits)
seen = set()
for a in splits:
    b = tuple(i for i in range(10) if i not in a)
    if b in seen:
        continue
    seen.add(a)
    print(" ".join(files[i] for i in a), "--", " ".join(files[i] for i in b))
    if len(seen) == 20:
        break
PY
quiet=0 n=0 which=""
while read -r line; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$BLKTOP" -J --compare $line >"$TEST_TMP/same.json"
	s=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
print(" ".join(sorted({"%s:%s %s %s" % (r.get("name") or r.get("comm") or r.get("path") or r.get("label") or r.get("code"),
    f["figure"], f["a"]["values"], f["b"]["values"])
    for e in ("devices", "processes", "files", "phases", "insights") for r in c[e] for f in r["figures"] if f["significant"]})))' "$TEST_TMP/same.json")
	if [ -z "$s" ]; then quiet=$((quiet + 1)); else which="$which [$n: $s]"; fi
done <"$TEST_TMP/splits"
check "live: 5 trials against 5 of one configuration, 20 splits of 10: no significant difference in $quiet of $n (at least 19)${which:+; significant:$which}" \
    [ "$n" = 20 -a "$quiet" -ge 19 ]
