#!/bin/bash
# hosts.sh: captures of several hosts merged by -r. The committed capture
# recorded again as 8 hosts (--hostname nodeN, --label job=train --label
# rank=N; node2's clock offset moved 5 s by hosts_clock.py, as another
# host's boot would), merged: each host's rows at their own wall times, 8 times the devices, each equal to its capture replayed
# alone, totals the sum of the 8; --report's hosts and all_hosts; the trace
# one process group per host; -b naming host:loop6; captures of one host
# still merge into one device. Two hosts' captures of file calls on the same
# paths merge into a file per host and path, each its capture's alone, -J
# naming its host; -b and the UI's processes pane have a HOST column then,
# and only then. Their --dump files loaded into a real DuckDB
# (tests/duckdb/hosts.mjs): GROUP BY host totals equal blktop's per-host
# report, and DuckDB's Parquet of them reads back equal. Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap
T=$TEST_TMP
N=8

# ---- --hostname and --label: checked, a one-line error each
for bad in "--hostname a:b" "--hostname ''" "--label rank" "--label =x" "--label k=a,b" \
    "--label k=$(printf 'v%.0s' $(seq 200))" "--label job=a --label job=b"; do
	eval "timeout 20 '$BLKTOP' -r '$CAP' -b -n 1 $bad" >"$T/bad.out" 2>"$T/bad.err"
	st=$?
	check "$(echo "$bad" | head -c 40): refused, one line ($(head -c 160 "$T/bad.err"))" \
	    [ "$st" != 0 -a "$(wc -l <"$T/bad.err")" = 1 -a ! -s "$T/bad.out" ]
done
labels=""
for i in $(seq 17); do labels="$labels --label k$i=v"; done
timeout 20 "$BLKTOP" -r "$CAP" -b -n 1 $labels >/dev/null 2>"$T/bad.err"
check "17 labels: refused ($(head -c 100 "$T/bad.err"))" grep -q "at most 16 labels" "$T/bad.err"

# ---- 8 captures of 8 hosts, each the committed capture recorded again
caps=()
mkdir -p "$T/dumps"
for i in $(seq $N); do
	timeout 60 "$BLKTOP" -r "$CAP" -w "$T/node$i.blkcap" --hostname "node$i" \
	    --label job=train --label "rank=$i" -J >/dev/null 2>"$T/rec$i.err"
	check "node$i: recorded (exit $?)" [ -s "$T/node$i.blkcap" ]
	if [ "$i" = 2 ]; then
		python3 "$BLKTOP_SRCDIR/tests/integration/hosts_clock.py" "$T/node2.blkcap" \
		    "$T/node2-clock.blkcap" 5
		mv "$T/node2-clock.blkcap" "$T/node2.blkcap"
	fi
	timeout 60 "$BLKTOP" -r "$T/node$i.blkcap" --report "$T/one$i.json" >/dev/null 2>&1
	timeout 60 "$BLKTOP" -r "$T/node$i.blkcap" --dump >"$T/dumps/node$i.csv"
	timeout 60 "$BLKTOP" -r "$T/node$i.blkcap" --dump --format jsonl >"$T/dumps/node$i.jsonl"
	caps+=("$T/node$i.blkcap")
done
timeout 120 "$BLKTOP" -r "${caps[@]}" --report "$T/all.json" >/dev/null 2>"$T/all.err"
st=$?
check "the 8 merged: --report exit 0, no warning ($(grep -v 'report written' "$T/all.err" | head -c 200))" \
    [ "$st" = 0 -a -z "$(grep -v 'report written' "$T/all.err")" ]
timeout 120 "$BLKTOP" -r "${caps[@]}" --dump >"$T/all.csv" 2>/dev/null
timeout 120 "$BLKTOP" -r "${caps[@]}" -J >"$T/all.jsonl" 2>/dev/null
timeout 120 "$BLKTOP" -r "${caps[@]}" --report "$T/all.html" >/dev/null 2>&1
timeout 120 "$BLKTOP" -r "${caps[@]}" -b >"$T/all.txt" 2>/dev/null
timeout 120 "$BLKTOP" -r "${caps[@]}" --trace "$T/all-trace.json" </dev/null >/dev/null 2>&1
timeout 60 "$BLKTOP" -r "$CAP" --report "$T/fixture.json" >/dev/null 2>&1
# Every process of a run, in one interval: the capture alone and the 8 merged.
timeout 60 "$BLKTOP" -r "$CAP" -J -d 3600 --top 1000 >"$T/fixture-procs.jsonl" 2>/dev/null
timeout 120 "$BLKTOP" -r "${caps[@]}" -J -d 3600 --top 1000 >"$T/all-procs.jsonl" 2>/dev/null
# -D host:name picks one host's device.
timeout 60 "$BLKTOP" -r "${caps[@]}" -D node3:loop6 -J 2>&1 | tail -1 >"$T/d3.json"
check "-D node3:loop6: node3's device alone ($(head -c 120 "$T/d3.json"))" python3 -c "
import json, sys; d = json.load(open('$T/d3.json'))['devices']
sys.exit(not (len(d) == 1 and d[0]['host'] == 'node3'))"
timeout 60 "$BLKTOP" -r "${caps[@]}" -D node9:loop6 -J >/dev/null 2>"$T/d9.err"
check "-D node9:loop6: refused, naming host:name ($(head -c 120 "$T/d9.err"))" \
    grep -q "unknown device 'node9:loop6' (the recording names: node1:loop6 node2:loop6" "$T/d9.err"
# One host twice: its devices fold, as before hosts.
timeout 60 "$BLKTOP" -r "$CAP" -w "$T/again.blkcap" --hostname node1 -J >/dev/null 2>&1
timeout 60 "$BLKTOP" -r "$T/node1.blkcap" "$T/again.blkcap" --report "$T/same.json" >/dev/null 2>&1

python3 - "$T" "$N" <<'PY'
import gc, json, sys
gc.disable()  # the merged trace's and dumps' many small objects, none cyclic
t, n = sys.argv[1], int(sys.argv[2])
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "hosts: " + what)
def load(p):
    return json.load(open(f"{t}/{p}"))
OPS = ("read", "write", "other")
def figs(d):
    return {o: (d[o]["ios"], d[o]["bytes"], d[o]["errors"]) for o in OPS}
fx = load("fixture.json")
one = [load(f"one{i}.json") for i in range(1, n + 1)]
allr = load("all.json")
out(len(fx["devices"]) == 1 and all(len(o["devices"]) == 1 for o in one),
    "each capture alone: 1 device (%s)" % fx["devices"][0]["name"])
devs = allr["devices"]
out(len(devs) == n * len(fx["devices"]),
    "merged: %d devices, %d times the capture's %d" % (len(devs), n, len(fx["devices"])))
names = sorted((d["host"], d["name"]) for d in devs)
out(names == sorted((f"node{i}", fx["devices"][0]["name"]) for i in range(1, n + 1)),
    "each device names its host, the same device name on every host: %s" % names[:3])
bad = []
for i, o in enumerate(one, 1):
    d = [x for x in devs if x["host"] == f"node{i}"]
    if len(d) != 1 or figs(d[0]) != figs(o["devices"][0]) or \
            d[0]["qd"]["max"] != o["devices"][0]["qd"]["max"]:
        bad.append(i)
out(not bad, "each host's device has its capture's own figures (ios, bytes, errors, qd max)%s"
    % (": not node%s" % bad if bad else ""))
tot = {o: sum(x["devices"][0][o]["ios"] for x in one) for o in OPS}
out({o: sum(d[o]["ios"] for d in devs) for o in OPS} == tot and tot["read"] > 0,
    "merged totals are the sum of the 8 replays: %s" % tot)
h = allr.get("hosts", [])
out([x["host"] for x in h] == [f"node{i}" for i in range(1, n + 1)] and
    all(x["labels"] == {"job": "train", "rank": str(i)} and x["devices"] == 1 and
        {o: x[o]["ios"] for o in OPS} == {o: one[i - 1]["devices"][0][o]["ios"] for o in OPS}
        for i, x in enumerate(h, 1)),
    "--report hosts: each host, its labels, its device count and figures")
a = allr.get("all_hosts", {})
out(a.get("host", 1) is None and a.get("devices") == n and
    {o: a[o]["ios"] for o in OPS} == tot and
    {o: a[o]["bytes"] for o in OPS} == {o: sum(x["devices"][0][o]["bytes"] for x in one) for o in OPS},
    "--report all_hosts: every device, the sums")
out("hosts" not in fx and "host" not in fx["devices"][0],
    "one host's report: no host keys (its output as before)")
# Processes: each host's own, never folded into another host's of the same pid.
pk = lambda p: (p["pid"], p["comm"])
pf = lambda p: (p["req_reads"], p["req_read_bytes"], p["req_writes"], p["req_write_bytes"])
def procs(name):
    rows = {}
    for line in open(f"{t}/{name}"):
        for p in json.loads(line)["processes"]:
            k = (p.get("host"), pk(p))
            rows[k] = tuple(a + b for a, b in zip(rows.get(k, (0, 0, 0, 0)), pf(p)))
    return rows
fxp = {k: v for (h, k), v in procs("fixture-procs.jsonl").items()}
allp = procs("all-procs.jsonl")
mp = [dict(zip(("host", "key"), k)) for k in allp]
bad = [i for i in range(1, n + 1)
       if {k: v for (h, k), v in allp.items() if h == f"node{i}"} != fxp]
out(len(fxp) > 0 and not bad and len(mp) == n * len(fxp) and
    all(h is None for h, _ in procs("fixture-procs.jsonl")),
    "processes: %d rows, the capture's %d on each of the %d hosts with its own figures, "
    "each naming its host (pid %s of node1 is not node2's)%s"
    % (len(mp), len(fxp), n, sorted(fxp)[0][0] if fxp else "-", ": not node%s" % bad if bad else ""))
import re
html = open(f"{t}/all.html").read()
rows = re.findall(r'<tr><td class="l">([^<]*)</td><td class="l">([^<]*)</td><td>(\d+)</td>'
                  r'<td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', html)
want = [(f"node{i}", f"job=train rank={i}", "1", str(one[i - 1]["devices"][0]["read"]["ios"]),
         str(one[i - 1]["devices"][0]["write"]["ios"]), str(one[i - 1]["devices"][0]["other"]["ios"]))
        for i in range(1, n + 1)]
want.append(("all hosts", "", str(n), str(tot["read"]), str(tot["write"]), str(tot["other"])))
out(rows == want and all(f">node{i}:{fx['devices'][0]['name']}<" in html for i in range(1, n + 1)),
    "--report HTML: the Hosts table, a row per host and one of all hosts; devices named host:name (%s)"
    % (rows[-1:] if rows != want else "ok"))
last = [json.loads(l) for l in open(f"{t}/all.jsonl")][-1]
out(sorted(d.get("host") for d in last["devices"]) == [f"node{i}" for i in range(1, n + 1)],
    "-J: every device object has its host")
txt = open(f"{t}/all.txt").read()
out(all(f"node{i}:{fx['devices'][0]['name']}" in txt for i in range(1, n + 1)),
    "-b names the devices host:name")
same = load("same.json")
out(len(same["devices"]) == 1 and "hosts" not in same and
    same["devices"][0]["read"]["ios"] == 2 * fx["devices"][0]["read"]["ios"],
    "two captures of one host: one device, twice the requests (%d), as before hosts"
    % same["devices"][0]["read"]["ios"])
# Each host's rows of the merged dump at the wall times of its own dump (node2's clock is 5 s off).
import csv
# walls(PATH, by_host): {host: {type: sorted wall times}}, read once (host None if not by_host).
def walls(path, by_host):
    w = {}
    for r in csv.DictReader(open(path)):
        if r["type"] != "tick":
            w.setdefault(r["host"] if by_host else None, {}).setdefault(r["type"], []).append(r["ts"])
    return {h: {k: sorted(v) for k, v in hw.items()} for h, hw in w.items()}
every = walls(f"{t}/all.csv", True)
merged = {f"node{i}": every.get(f"node{i}", {}) for i in range(1, n + 1)}
bad = [h for h in merged if merged[h] != walls(f"{t}/dumps/{h}.csv", False).get(None, {})]
out(not bad and merged["node2"]["block"][0] != merged["node1"]["block"][0],
    "merged --dump: each host's rows at its own wall times, node2's 5 s later (%s)"
    % ("not " + ",".join(bad) if bad else "%s vs %s" % (merged["node1"]["block"][0],
                                                       merged["node2"]["block"][0])))
# The trace: a process per host ("host nodeN"), each device's requests a thread of it.
tr = json.load(open(f"{t}/all-trace.json"))["traceEvents"]
hostpid = {e["args"]["name"][5:]: e["pid"] for e in tr
           if e.get("ph") == "M" and e.get("name") == "process_name" and
           str(e["args"].get("name", "")).startswith("host ")}
threads = {(e["pid"], e["tid"]) for e in tr if e.get("ph") == "M" and e.get("name") == "thread_name"
           and str(e["args"].get("name", "")).startswith("disk ")}
reqs = {}
for e in tr:
    if e.get("ph") == "b" and e.get("cat") == "block":
        reqs[e["pid"]] = reqs.get(e["pid"], 0) + 1
out(sorted(hostpid) == [f"node{i}" for i in range(1, n + 1)] and
    len(set(hostpid.values())) == n and
    all(sum(1 for p, _ in threads if p == hostpid[f"node{i}"]) == 1 for i in range(1, n + 1)),
    "--trace: one process per host, its disk a thread of it (%d hosts)" % len(hostpid))
out(set(reqs) <= set(hostpid.values()) and len(reqs) == n,
    "--trace: every request on its host's process (%s)" % sorted(reqs.values())[:3])
PY
python3 "$BLKTOP_SRCDIR/tests/viewer/check-trace.py" "$T/all-trace.json" >"$T/ct.out" 2>&1
check "the merged trace is well formed (tests/viewer/check-trace.py: $(tail -1 "$T/ct.out" | head -c 120))" \
    [ $? = 0 ]

# The new keys as doc/blktop.schema.json has them (host, hosts, all_hosts, the dump's host, labels, schema).
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$BLKTOP_SRCDIR/doc/blktop.schema.json" "$T" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
t = sys.argv[2]
objs = [json.load(open(f"{t}/all.json")), [json.loads(l) for l in open(f"{t}/all.jsonl")][-1]]
objs += [json.loads(l) for l in open(f"{t}/dumps/node3.jsonl")][:300]
errs = [e.message for o in objs for e in v.iter_errors(o)]
print(("PASS: " if not errs else "FAIL: ") + "hosts: the merged report, -J and a dump's rows "
      "valid by doc/blktop.schema.json%s" % (": " + errs[0][:200] if errs else ""))
PY
else
	skip "the schema check needs python3-jsonschema"
fi

# ---- Files are each host's: two hosts' captures of file calls on the same paths
# (the committed bpftrace vfs log, host b's its first 10 calls), merged: one file
# row per host and path, each equal to its capture replayed alone, -J naming its
# host (absent alone); -b, --report's tables and timeline name host:path.
grep -v '^garbage' "$BLKTOP_SRCDIR/tests/fixtures/import-vfs.txt" >"$T/vfs-a.txt"
head -n 11 "$BLKTOP_SRCDIR/tests/fixtures/import-vfs.txt" >"$T/vfs-b.txt"
for h in a b; do
	timeout 60 "$BLKTOP" -r "$T/vfs-$h.txt" -w "$T/files-$h.blkcap" --hostname "files$h" -J \
	    >/dev/null 2>"$T/files-$h.err"
	check "files$h: recorded" [ -s "$T/files-$h.blkcap" ]
	timeout 60 "$BLKTOP" -r "$T/files-$h.blkcap" -J -d 3600 --top 100 >"$T/files-$h.json"
done
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" "$T/files-b.blkcap" -J -d 3600 --top 100 >"$T/files-ab.json"
check "files: the two hosts' captures merged (-J exit $?)" [ -s "$T/files-ab.json" ]
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
last = lambda p: json.loads(open(p).read().splitlines()[-1])
one = {h: last(f"{t}/files-{h}.json")["files"] for h in "ab"}
ab = last(f"{t}/files-ab.json")["files"]
keys = ["opens", "call_reads", "call_writes", "call_read_bytes", "call_write_bytes"]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "hosts: files: " + what)
out(all("host" not in f for h in "ab" for f in one[h]), "a capture replayed alone: no file has host")
rows = {(f.get("host"), f["path"]): f for f in ab}
want = {("files" + h, f["path"]): f for h in "ab" for f in one[h]}
out(len(ab) == len(rows) == len(want) and set(rows) == set(want),
    "%d file rows merged, one per host and path, as the %d + %d alone (%s)" %
    (len(ab), len(one["a"]), len(one["b"]), sorted(set(rows) ^ set(want), key=str)[:4]))
both = [p for (h, p) in want if h == "filesa" and ("filesb", p) in want]
bad = [(k, c) for k, f in want.items() for c in keys if rows.get(k, {}).get(c) != f.get(c)]
out(both and not bad, "the %d paths of both hosts (%s) are two files, each host's totals its "
    "capture's alone%s" % (len(both), " ".join(both[:3]), ": " + str(bad[:3]) if bad else ""))
w = {h: rows.get(("files" + h, "unet3d.log"), {}).get("call_writes") for h in "ab"}
out(w["a"] == 10 and w["b"] == 5, "unet3d.log: host a's 10 writes, host b's 5 (%s), not %s folded" %
    (w, 15))
PY
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" "$T/files-b.blkcap" -b -d 3600 >"$T/files-ab.txt"
check "files: -b names filesa:unet3d.log and filesb:unet3d.log" \
    [ "$(grep -oE ' files[ab]:unet3d.log$' "$T/files-ab.txt" | sort -u | wc -l)" = 2 ]
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" "$T/files-b.blkcap" --report "$T/files-ab.html" \
    >/dev/null 2>&1
check "files: --report's files table names both hosts' unet3d.log" \
    [ "$(grep -oE '>files[ab]:unet3d.log<' "$T/files-ab.html" | sort -u | wc -l)" = 2 ]

# ---- -b and the UI's processes pane: a HOST column in a run of several hosts only
check "files: -b's processes: a HOST column, each host's python row (its pid, not the host's bits)" \
    [ "$(grep -cE '^ +1313402 python +files[ab] ' "$T/files-ab.txt")" = 2 ]
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" -b -d 3600 >"$T/files-a.txt"
check "files: -b of one host: no HOST column" [ "$(grep -c ' HOST ' "$T/files-a.txt")" = 0 ]
if command -v tmux >/dev/null; then
	tmux_setup
	for one in "" "$T/files-b.blkcap"; do
		"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
		"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 40 "env LANG=C.UTF-8 \
		    BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $T/files-a.blkcap $one \
		    --speed 1 2>$T/ui.err; sleep 600"
		wait_screen 10 "replay" || fail "the UI's replay did not start: $(head -c 200 "$T/ui.err")"
		"${TMUX_CMD[@]}" send-keys -t ui 2
		if [ -n "$one" ]; then
			check "UI, two hosts: the processes pane's HOST column, filesa's and filesb's python" \
			    wait_screen 10 "^ *1313402 python +filesb "
			check "UI, two hosts: filesa's python too" wait_screen 10 "^ *1313402 python +filesa "
		else
			check "UI, one host: python's row, no HOST column" wait_screen 10 "^ *1313402 python +[0-9]"
			check "UI, one host: no HOST title" [ "$(screen | grep -c ' HOST ')" = 0 ]
		fi
	done
else
	skip "the UI's HOST column needs tmux"
fi

# ---- DuckDB: the 8 hosts' dumps, as a user of the dumps queries them
cache=${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}/duckdb
if [ ! -f "$cache/node_modules/@duckdb/node-api/package.json" ] || ! command -v node >/dev/null; then
	skip "DuckDB not installed (tests/duckdb/install.sh, run by setup.sh)"
else
	timeout 300 node "$BLKTOP_SRCDIR/tests/duckdb/hosts.mjs" "$cache" "$T/dumps" "$T/all.json" \
	    >"$T/duck.out" 2>&1
	st=$?
	cat "$T/duck.out" | grep -E "^(PASS|FAIL): "
	check "DuckDB ran (exit $st: $(grep -vE '^(PASS|FAIL): ' "$T/duck.out" | head -c 200))" \
	    [ "$st" = 0 ]
fi
