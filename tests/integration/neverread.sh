#!/bin/bash
# neverread.sh: bytes written and never read (issue 44, part 4). A workload of
# known counts (neverread.py: 8 files created and written, some read back in
# known ranges, one overwritten in part, three unlinked, one renamed, read and
# unlinked by its new name, one truncated by O_TRUNC, the rest left) on ext4
# on a /dev/shm loop device, under blktop -J with -w; then the capture
# replayed. Every figure of each file and of the
# process equals the workload's own count, live (-J's intervals summed, the
# run's --report OUT.json) and from the replay; the lifetimes lie within the
# bounds the workload read around its calls.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
ext4_on_loop 64 || exit 0
C=$TEST_TMP/nvr.blkcap
# -o opens: the report's 10 file rows are the 9 the workload opened (a rename's
# new name one), before its directory's and the journal's.
"$BLKTOP" -J -d 0.5 -c nvrwork --top 50 -o opens -w "$C" --report "$TEST_TMP/live.json" \
    >"$TEST_TMP/live.jsonl" 2>"$TEST_TMP/live.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "blktop -J started: $(head -c 300 "$TEST_TMP/live.err")"
python3 "$BLKTOP_SRCDIR/tests/integration/neverread.py" "$MNT" "$TEST_TMP/want.json" ||
    fail "the workload"
sleep 1.2
stop_bg "$bpid"; st=$?
check "live: blktop -J exits $st at SIGINT" [ "$st" = 0 ]
"$BLKTOP" -r "$C" -J -d 0.5 -c nvrwork --top 50 -o opens --report "$TEST_TMP/replay.json" \
    >"$TEST_TMP/replay.jsonl" 2>"$TEST_TMP/replay.err" </dev/null
st=$?
check "replay: exit $st" [ "$st" = 0 ]
"$BLKTOP" -r "$C" -b -d 0.5 -c nvrwork -o never_read_bytes >"$TEST_TMP/replay.txt" 2>&1 </dev/null

python3 - "$TEST_TMP" <<'PY' ||
import json, sys
T = sys.argv[1]
want = json.load(open(T + "/want.json"))
def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "neverread: " + what)
KEYS = (("written_bytes", "written"), ("read_back_bytes", "read_back"),
        ("never_read_bytes", "never_read"), ("unread_bytes", "unread"))
for src in ("live", "replay"):
    rep = json.load(open("%s/%s.json" % (T, src)))
    files = {f["path"].rsplit("/", 1)[-1]: f for f in rep["files"] if "/kv/" in f["path"]}
    bad = []
    for name, w in sorted(want["files"].items()):
        f = files.get(name)
        if f is None:
            bad.append("%s: no row" % name)
            continue
        for key, wk in KEYS:
            if f[key] != w[wk]:
                bad.append("%s %s %s, want %s" % (name, key, f[key], w[wk]))
        if f["wear_over_bytes"] != 0:
            bad.append("%s wear_over_bytes %s" % (name, f["wear_over_bytes"]))
    out(not bad, "%s: the 9 rows' (a rename's new name one) written, read back, never read and unread bytes as the "
        "workload counted (%s)" % (src, "; ".join(bad) if bad else "exact"))
    bad = []
    for name, (lo, hi) in sorted(want["lives"].items()):
        f = files.get(name) or {}
        got = f.get("lifetime_mean_s")
        if f.get("lifetimes") != 1 or got is None or not (lo - 1e-6 <= got <= hi + 1e-6):
            bad.append("%s %s lifetime(s), %s s not in [%.6f, %.6f]" % (name, f.get("lifetimes"),
                       got, lo, hi))
    left = [n for n, f in files.items() if n not in want["lives"] and f.get("lifetimes")]
    out(not bad and not left, "%s: the 4 unlinked files' lifetimes (a renamed one's from its create under the old name) within the workload's bounds "
        "around its open and unlink calls (%s)" % (src, "; ".join(bad + left) if bad or left else
        ", ".join("%s %.4f s" % (n, files[n]["lifetime_mean_s"]) for n in sorted(want["lives"]))))
    procs = [p for p in rep["processes"] if p["pid"] == want["pid"]]
    t = want["total"]
    p = procs[0] if procs else {}
    got = [p.get(k) for k, _ in KEYS] + [p.get("creates"), p.get("unlinks"), p.get("lifetimes")]
    exp = [t[k] for _, k in KEYS] + [t["creates"], t["unlinks"], len(want["lives"])]
    out(got == exp, "%s: the process's totals %s, want %s" % (src, got, exp))
    out(p.get("truncates") == want["truncates"], "%s: the process's truncates (one truncate(), one "
        "ftruncate()): %s, want %s" % (src, p.get("truncates"), want["truncates"]))
    # -J: the intervals' tables (every process's calls) and the process's rows, summed.
    lines = [json.loads(l) for l in open("%s/%s.jsonl" % (T, src)) if l.strip()]
    sums = [sum(o["tables"][k] or 0 for o in lines) for k, _ in KEYS[:3]]
    prow = [sum(sum(r[k] or 0 for r in o["processes"] if r["pid"] == want["pid"]) for o in lines)
            for k, _ in KEYS[:3]]
    exp = [t[k] for _, k in KEYS[:3]]
    out(sums == exp and prow == exp, "%s -J: written, read back, never read over the intervals: "
        "tables %s, the process's rows %s, want %s" % (src, sums, prow, exp))
    churn = [(o["tables"]["creates"], o["tables"]["creates_per_s"], o["tables"]["unlinks"],
              o["tables"]["unlinks_per_s"]) for o in lines]
    ok = all(c is not None and abs(c - 2 * n) < 1e-6 and abs(u - 2 * m) < 1e-6
             for n, c, m, u in churn)
    out(ok and sum(c[0] for c in churn) == t["creates"] and sum(c[2] for c in churn) == t["unlinks"],
        "%s -J: creates_per_s and unlinks_per_s are the interval's creates and unlinks over -d 0.5 "
        "(%d creates, %d unlinks)" % (src, sum(c[0] for c in churn), sum(c[2] for c in churn)))
    w = rep.get("wear") or {}
    dirs = {x["dir"].rsplit("/", 1)[-1]: x for x in w.get("dirs", [])}
    kv = dirs.get("kv", {})
    got = [kv.get(k) for k, _ in KEYS] + [kv.get("creates"), kv.get("unlinks")]
    exp = [t[k] for _, k in KEYS] + [t["creates"], t["unlinks"]]
    out(got == exp, "%s: the run's wear object, directory kv: %s, want %s" % (src, got, exp))
live = json.load(open(T + "/live.json"))
rep = json.load(open(T + "/replay.json"))
strip = lambda r: [{k: v for k, v in f.items() if k not in ("offset_map",)} for f in r["files"]
                   if "/kv/" in f["path"]]
out(strip(live) == strip(rep) and live.get("wear") == rep.get("wear"),
    "the replay's files and wear object equal the live run's")
PY
	fail "the checks stopped (a Python error above)"
check "-b: a wear line (written, read back, never read)" \
    grep -Eq '^wear: [0-9]+ written, [0-9]+ read back, [0-9]+ never read' "$TEST_TMP/replay.txt"
"$BLKTOP" -r "$C" --dump --format jsonl 2>/dev/null </dev/null |
    python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin if "\"truncate\"" in l]
print(" ".join("%s:%s" % (r["path"].rsplit("/", 1)[-1], r.get("len")) for r in rows if r.get("comm") == "nvrwork"))' \
    >"$TEST_TMP/trunc.txt"
check "--dump: the truncate() and ftruncate() rows with their lengths ($(cat "$TEST_TMP/trunc.txt"))" \
    [ "$(cat "$TEST_TMP/trunc.txt")" = "chunk7.bin:50000 chunk5.bin:100000" ]
"$BLKTOP" -r "$C" -c nvrwork --report "$TEST_TMP/r.html" </dev/null >/dev/null 2>&1
check "the HTML report: a 'Written and never read' table with the kv directory's row" \
    grep -q '<td class="l path">[^<]*/kv</td><td>9</td>' "$TEST_TMP/r.html"

# Two hosts: the capture recorded again under two host names and merged, each
# directory is its host's (the report's wear.dirs, with host), and each host's
# figures are the capture's alone (issue 45: nothing of one host folds into
# another's).
for h in a b; do
	"$BLKTOP" -r "$C" -w "$TEST_TMP/nv-$h.blkcap" --hostname "nv$h" -J </dev/null >/dev/null 2>&1
done
"$BLKTOP" -r "$C" -c nvrwork --report "$TEST_TMP/one.json" </dev/null >/dev/null 2>&1
"$BLKTOP" -r "$TEST_TMP/nv-a.blkcap" "$TEST_TMP/nv-b.blkcap" -c nvrwork \
    --report "$TEST_TMP/two.json" </dev/null >/dev/null 2>&1
python3 - "$TEST_TMP" <<'PY' || fail "two hosts: the checks stopped (a Python error above)"
import json, sys
t = sys.argv[1]
dirs = lambda p: {(d.get("host"), d["dir"]): d for d in json.load(open(p))["wear"]["dirs"]}
one, two = dirs(t + "/one.json"), dirs(t + "/two.json")
want = {(h, k[1]): d for h in ("nva", "nvb") for k, d in one.items()}
keys = ["files", "written_bytes", "read_back_bytes", "never_read_bytes", "unread_bytes"]
bad = [(k, c) for k, d in want.items() for c in keys if two.get(k, {}).get(c) != d.get(c)]
kv = [k for k in two if k[1].endswith("/kv")]
ok = all(k[0] is None for k in one) and set(two) == set(want) and len(kv) == 2 and not bad
print(("PASS: " if ok else "FAIL: ") + "neverread: two hosts: %d directories, one per host and "
      "directory (%d alone), the kv directory's of each host its capture's%s" %
      (len(two), len(one), ": " + str(bad[:3]) if bad else ""))
PY

# The UI's written-and-never-read screen (N) on the capture, replayed to its
# end with the same filter: the kv directory's row and the process's row
# equal the replayed report's wear object and process row.
if command -v tmux >/dev/null; then
	tmux_setup
	"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 60 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $C -c nvrwork --speed max 2>$TEST_TMP/ui.err; sleep 600"
	wait_screen 30 "^blktop .* end *$" || fail "ui: the replay did not reach its end: $(head -c 200 "$TEST_TMP/ui.err")"
	"${TMUX_CMD[@]}" send-keys -t ui N
	check "ui: N opens the written-and-never-read screen" wait_screen 5 "^Written and never read since the start"
	screen >"$TEST_TMP/ui-wear.txt"
	python3 - "$TEST_TMP" <<'PY' || fail "ui: the checks stopped (a Python error above)"
import json, sys
T = sys.argv[1]
rep = json.load(open(T + "/replay.json"))
want = json.load(open(T + "/want.json"))
lines = open(T + "/ui-wear.txt").read().splitlines()
def row(pred):
    r = [l for l in lines if pred(l[:24].strip())]
    return r[0][24:].split() if r else None
kv = next(d for d in rep["wear"]["dirs"] if d["dir"].endswith("/kv"))
got = row(lambda n: n.endswith("/kv"))
exp = [str(kv[k]) for k in ("written_bytes", "read_back_bytes", "never_read_bytes", "unread_bytes",
                             "creates", "unlinks", "lifetimes")]
exp.append("%.6f" % kv["lifetime_mean_s"])
ok = got is not None and got[:8] == exp and got[8] == str(kv["files"])
print(("PASS: " if ok else "FAIL: ") + "neverread: ui: the kv directory's row %s, the report's %s (files %s)"
      % (got, exp, kv["files"]))
p = next(p for p in rep["processes"] if p["pid"] == want["pid"])
got = row(lambda n: n.split(" ")[0] == str(want["pid"]))
exp = [str(p[k]) for k in ("written_bytes", "read_back_bytes", "never_read_bytes", "unread_bytes",
                            "creates", "unlinks", "lifetimes")]
exp.append("%.6f" % p["lifetime_mean_s"])
ok = got is not None and got[:8] == exp
print(("PASS: " if ok else "FAIL: ") + "neverread: ui: the process %d's row %s, the report's %s"
      % (want["pid"], got, exp))
PY
fi
