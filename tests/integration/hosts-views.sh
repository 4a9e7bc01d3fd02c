#!/bin/bash
# hosts-views.sh: the views hosts.sh does not cover keep each host's own in a
# run of several hosts (issue 45: merging folds nothing of one host into
# another's). Captures made from committed fixtures recorded again under two
# host names (as hosts.sh does): small.blkcap as sva and svb (the same fio
# pids 21367 and 21368 on both), the bpftrace vfs log as filesa (all its
# calls) and filesb (its first 10: unet3d.log written 5 times, not 10).
# --stack: a process per host and pid, each with its capture's own figures,
# named host:comm[pid]; --trace: a process per host and pid, named
# host:comm[pid], its calls' files host:path with its capture's counts, the
# requests' args the real pids; the UI: the files pane's HOST column, a
# drill into filesb's unet3d.log showing filesb's 5 writes, and L from a
# process naming its host; the vfs capture as 8 hosts merged opens in a real
# viewer (tests/viewer) with a process per host. A capture alone prints as
# before (no host).
# Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3
T=$TEST_TMP
FX=$BLKTOP_SRCDIR/tests/fixtures

for h in a b; do
	timeout 60 "$BLKTOP" -r "$FX/small.blkcap" -w "$T/sv$h.blkcap" --hostname "sv$h" -J \
	    >/dev/null 2>&1
	check "sv$h: recorded" [ -s "$T/sv$h.blkcap" ]
done
grep -v '^garbage' "$FX/import-vfs.txt" >"$T/vfs-a.txt"
head -n 11 "$FX/import-vfs.txt" >"$T/vfs-b.txt"
for h in a b; do
	timeout 60 "$BLKTOP" -r "$T/vfs-$h.txt" -w "$T/files-$h.blkcap" --hostname "files$h" -J \
	    >/dev/null 2>&1
	check "files$h: recorded" [ -s "$T/files-$h.blkcap" ]
done

# ---- --stack: each host's processes
timeout 60 "$BLKTOP" -r "$FX/small.blkcap" --stack -J 2>/dev/null | tail -1 >"$T/st-one.json"
timeout 60 "$BLKTOP" -r "$T/sva.blkcap" "$T/svb.blkcap" --stack -J 2>/dev/null | tail -1 \
    >"$T/st-ab.json"
timeout 60 "$BLKTOP" -r "$T/sva.blkcap" "$T/svb.blkcap" --stack >"$T/st-ab.txt" 2>/dev/null
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "hosts-views: stack: " + what)
one = json.load(open(f"{t}/st-one.json"))["stack"]
ab = json.load(open(f"{t}/st-ab.json"))["stack"]
HS = ("q2d_us", "d2c_us", "vfs_read_us", "vfs_write_us", "fsync_us")
fig = lambda p: {k: (p[k]["n"], p[k]["buckets"]) for k in HS}
alone = {p["pid"]: fig(p) for p in one["processes"]}
rows = {(p.get("host"), p["pid"]): fig(p) for p in ab["processes"]}
want = {(h, pid): f for h in ("sva", "svb") for pid, f in alone.items()}
out(all("host" not in p for p in one["processes"]) and len(alone) == 2,
    "the capture alone: %d processes, no host key" % len(alone))
out(len(ab["processes"]) == len(want) and rows == want,
    "merged: %d process rows, one per host and pid, each its capture's figures alone "
    "(%s; pid %s's q2d n %s, not %s folded)" % (len(ab["processes"]), sorted(rows, key=str)[:4],
    min(alone), alone[min(alone)]["q2d_us"][0], 2 * alone[min(alone)]["q2d_us"][0]))
out(sorted((d.get("host") for d in ab["devices"]), key=str) == ["sva", "svb"],
    "merged: each device object names its host")
txt = open(f"{t}/st-ab.txt").read()
out(all(f"\n{h}:fio[{pid}] " in txt for h in ("sva", "svb") for pid in alone),
    "the text's verdicts name each host's process host:fio[pid]")
PY
if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 - "$BLKTOP_SRCDIR/doc/blktop.schema.json" "$T/st-ab.json" <<'PY'
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
errs = [e.message for e in v.iter_errors(json.load(open(sys.argv[2])))]
print(("PASS: " if not errs else "FAIL: ") + "hosts-views: stack: the merged -J valid by "
      "doc/blktop.schema.json%s" % (": " + errs[0][:200] if errs else ""))
PY
else
	skip "the schema check needs python3-jsonschema"
fi

# ---- --trace: each host's processes and files
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" "$T/files-b.blkcap" --trace "$T/tr-files.json" \
    </dev/null >/dev/null 2>&1
timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" --trace "$T/tr-a.json" </dev/null >/dev/null 2>&1
timeout 60 "$BLKTOP" -r "$T/sva.blkcap" "$T/svb.blkcap" --trace "$T/tr-sv.json" \
    </dev/null >/dev/null 2>&1
for f in tr-files tr-sv; do
	python3 "$BLKTOP_SRCDIR/tests/viewer/check-trace.py" "$T/$f.json" >"$T/$f.ct" 2>&1
	check "$f: well formed (check-trace.py: $(tail -1 "$T/$f.ct" | head -c 160))" [ $? = 0 ]
done
python3 - "$T" <<'PY'
import json, sys
from collections import Counter
t = sys.argv[1]
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "hosts-views: trace: " + what)
ev = lambda p: json.load(open(f"{t}/{p}"))["traceEvents"]
def procs(e):
    return {x["pid"]: x["args"]["name"] for x in e
            if x.get("ph") == "M" and x.get("name") == "process_name"}
one, ab, sv = ev("tr-a.json"), ev("tr-files.json"), ev("tr-sv.json")
p1 = procs(one)
out(p1.get(1313402) == "python" and not any("files" in x.get("args", {}).get("path", "")
    for x in one if x.get("ph") == "X"),
    "a capture alone: python is pid 1313402, its paths without a host")
pab = procs(ab)
py = {n: p for p, n in pab.items() if "python" in n}
out(sorted(py) == ["filesa:python[1313402]", "filesb:python[1313402]"] and
    len(set(py.values())) == 2,
    "merged: python of each host a process of its own, named host:python[pid] (%s)" % sorted(pab.values()))
calls = Counter((x["pid"], x["args"].get("path")) for x in ab if x.get("ph") == "X")
alone = Counter(x["args"].get("path") for x in one if x.get("ph") == "X")
w = {h: calls.get((py.get(f"files{h}:python[1313402]"), f"files{h}:unet3d.log")) for h in "ab"}
out(w == {"a": alone["unet3d.log"], "b": 5} and alone["unet3d.log"] == 10,
    "merged: unet3d.log's calls on each host's python, named host:path: %s (not 15 on one)" % w)
out(all(p is None or p.split(":")[0] in ("filesa", "filesb") for _, p in calls),
    "merged: every call's path names its host")
sort = {x["pid"]: x["args"]["sort_index"] for x in ab
        if x.get("ph") == "M" and x.get("name") == "process_sort_index"}
hosts = {n[5:]: p for p, n in pab.items() if n.startswith("host ")}
si = lambda h, n: sort.get(hosts.get(h) if n is None else py.get(f"{h}:python[1313402]"), 0)
out(all(si(h, None) < si(h, 1) for h in ("filesa", "filesb")) and
    si("filesa", 1) < si("filesb", None),
    "merged: each host's processes sort after its own group, before the next host's")
req = Counter((x["pid"], x["args"]["pid"]) for x in sv if x.get("ph") == "b" and x.get("cat") == "block"
              and "sector" in x.get("args", {}))
psv = procs(sv)
out(sorted({a for _, a in req}) == [21367, 21368] and len({p for p, _ in req}) == 2 and
    sorted(n for n in psv.values() if "fio" in n) ==
    ["sva:fio[21367]", "sva:fio[21368]", "svb:fio[21367]", "svb:fio[21368]"],
    "small.blkcap as two hosts: the requests' args carry the real pids %s, fio a process per "
    "host and pid (%s)" % (sorted({a for _, a in req}), sorted(psv.values())))
PY

# ---- a real viewer (tests/viewer: speedscope in headless Chromium): the vfs
# capture as 8 hosts merged opens with one process per host, host:python[pid]
# (speedscope draws only X slices: the calls' processes, not the disks' groups).
vcaps=()
for i in $(seq 8); do
	timeout 60 "$BLKTOP" -r "$T/files-a.blkcap" -w "$T/vh$i.blkcap" --hostname "vh$i" -J \
	    >/dev/null 2>&1
	vcaps+=("$T/vh$i.blkcap")
done
timeout 120 "$BLKTOP" -r "${vcaps[@]}" --trace "$T/tr-8.json" </dev/null >/dev/null 2>&1
names=()
for i in $(seq 8); do names+=("vh$i:python[1313402]"); done
out=$(bash "$BLKTOP_SRCDIR/tests/viewer/trace-load.sh" "$T/tr-8.json" "${names[@]}" \
    "vh8:unet3d.log" 2>&1)
st=$?
if [ "$st" = 2 ]; then
	skip "the viewer is not installed (tests/viewer/install.sh): $(echo "$out" | tail -1 | head -c 120)"
else
	check "viewer: 8 hosts' trace opens, a profile per host (vh1..vh8:python[1313402]): $(echo "$out" | tail -1 | head -c 200)" \
	    [ "$st" = 0 -a "$(echo "$out" | tail -1 | grep -c ': 8 profile(s) \[vh1:python')" = 1 ]
fi

# ---- the UI: the files pane's HOST column and drill; L from a process names its host
if command -v tmux >/dev/null; then
	tmux_setup
	key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 40 "env LANG=C.UTF-8 \
	    BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $T/files-a.blkcap $T/files-b.blkcap \
	    --speed 1 2>$T/ui.err; sleep 600"
	wait_screen 10 "replay" && key Space && wait_screen 5 "paused"
	key 3 / u n e t Enter
	for i in $(seq 40); do
		[ "$(screen | grep -c 'unet3d.log')" -ge 2 ] && break
		key . && sleep 0.3
	done
	check "UI: the files pane's HOST column" wait_screen 5 " +PIDS +HOST +PATH"
	check "UI: filesa's unet3d.log" wait_screen 5 "^ .* filesa +unet3d.log"
	check "UI: and filesb's, a row of its own" wait_screen 5 "^ .* filesb +unet3d.log"
	# Rows of one path sort by host: filesb's is the second; to the end, its totals.
	key Down Enter Space
	check "UI: the drill into filesb's unet3d.log names it filesb:unet3d.log" \
	    wait_screen 10 "^filesb:unet3d.log "
	wait_screen 15 "^since first seen: .*, 5 writes "
	check "UI: ... with filesb's 5 writes, not filesa's 10 ($(screen | grep -m1 '^since first'))" \
	    wait_screen 1 "^since first seen: .*, 5 writes "
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 40 "env LANG=C.UTF-8 \
	    BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $T/sva.blkcap $T/svb.blkcap \
	    --speed 1 2>$T/ui2.err; sleep 600"
	wait_screen 10 "replay" || fail "the UI's replay did not start: $(head -c 200 "$T/ui2.err")"
	key 2
	wait_screen 20 "^ *[0-9]+ +fio +sv[ab] " || fail "no fio row of a host in the processes pane"
	key Space
	sleep 0.5
	row=$(screen | grep -E "^ *[0-9]+ +fio +sv[ab] " | head -n 1)
	pid=$(echo "$row" | awk '{print $1}')
	host=$(echo "$row" | awk '{print $3}')
	key L
	check "UI: L from $host's fio[$pid] opens that host's process ($(screen | sed -n 2p | head -c 80))" \
	    wait_screen 5 "^process $host:fio\[$pid\] "
	"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 40 "env LANG=C.UTF-8 \
	    BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $T/files-a.blkcap --speed 1 \
	    2>$T/ui3.err; sleep 600"
	wait_screen 10 "replay" && key Space && wait_screen 5 "paused"
	key 3
	check "UI, one host: the files pane has no HOST column" wait_screen 5 " +p99 +PIDS +PATH"
else
	skip "the UI's checks need tmux"
fi
