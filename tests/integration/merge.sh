#!/bin/bash
# merge.sh: -r with several files of one run (two text logs and a capture): one stream in time order, totals as the files' sums, one clock, one device table.
. "$BLKTOP_SRCDIR/tests/lib.sh"
F=$BLKTOP_SRCDIR/tests/fixtures
BIO=$F/import-bio.txt
VFS=$F/import-vfs.txt
CAP=$F/small.blkcap
T=$TEST_TMP
# The logs' local times (ISO TIME columns, the alignment log) are read in the
# local zone: one zone, whatever the machine's.
export TZ=UTC

# run NAME ARGS...: blktop ARGS; stdout in $T/NAME.out, stderr in .err, status in $st.
run() {
	local name=$1
	shift
	timeout -s KILL 60 "$BLKTOP" "$@" > "$T/$name.out" 2> "$T/$name.err"
	st=$?
}

# ---- --dump: every record of every file once, ticks made once for the run.
for f in BIO VFS CAP; do
	run "one-$f" -r "${!f}" --dump
	check "--dump of $f alone: exit 0" [ "$st" = 0 ]
done
run merged -r "$BIO" -r "$VFS" -r "$CAP" --dump
check "--dump of the three: exit 0 (status $st)" [ "$st" = 0 ]
run merged2 -r "$BIO" "$VFS" "$CAP" --dump
check "-r A B C is -r A -r B -r C: the same rows" cmp -s "$T/merged.out" "$T/merged2.out"
run merged3 --dump "$CAP" -r "$BIO" "$VFS"
check "files around -r (GNU argument order): the same rows but for their order" \
    cmp -s <(sort "$T/merged.out") <(sort "$T/merged3.out")

# The rows, checked in Python: counts by type against the single files,
# order, ticks one second apart around the records.
python3 - "$T" > "$T/dump.check" <<'EOF'
import csv, sys
t = sys.argv[1]
def rows(name):
    with open(f"{t}/{name}.out") as f:
        return list(csv.DictReader(f))
singles = [rows(f"one-{n}") for n in ("BIO", "VFS", "CAP")]
merged = rows("merged")
def count(rs, tick):
    return sum(1 for r in rs if (r["type"] == "tick") == tick)
want = sum(count(s, False) for s in singles)
got = count(merged, False)
print(f"records {got} want {want} (file ticks {sum(count(s, True) for s in singles)} dropped)")
print("records_equal", got == want)
# Each file's own records, in its own order, are in the merged stream.
def key(r):
    return tuple(r[k] for k in r if k != "ts")    # wall time: the run's clock
ok = True
for s in singles:
    mine = [key(r) for r in s if r["type"] != "tick"]
    ks = set(mine)
    sub = [key(r) for r in merged if r["type"] != "tick" and key(r) in ks]
    ok = ok and sub == mine
print("each_file_in_order", ok)
ts = [int(r["ts_ns"]) for r in merged]
print("non_decreasing", all(a <= b for a, b in zip(ts, ts[1:])))
ticks = [int(r["ts_ns"]) for r in merged if r["type"] == "tick"]
recs = [int(r["ts_ns"]) for r in merged if r["type"] != "tick"]
steps = set(b - a for a, b in zip(ticks, ticks[1:]))
print(f"ticks {len(ticks)} steps {sorted(steps)}")
print("ticks_1s_apart", steps == {1000000000})
print("ticks_cover", ticks[0] - 1000000000 <= recs[0] and ticks[-1] > recs[-1] and
      ticks[-1] - 1000000000 <= recs[-1])
print("one_tick_per_second", len(ticks) == (ticks[-1] - ticks[0]) // 1000000000 + 1)
EOF
cat "$T/dump.check"
for c in records_equal each_file_in_order non_decreasing ticks_1s_apart ticks_cover \
    one_tick_per_second; do
	check "--dump merged: $c" grep -qx "$c True" "$T/dump.check"
done

# ---- -J: the run's totals are the sums of the files' own runs.
for f in BIO VFS CAP; do
	run "j-$f" -r "${!f}" -J --top 1000
done
run j-merged -r "$BIO" "$VFS" "$CAP" -J --top 1000
check "-J merged: exit 0" [ "$st" = 0 ]
python3 - "$T" > "$T/json.check" <<'EOF'
import json, sys
from collections import Counter
t = sys.argv[1]
def totals(name):
    c = Counter()
    with open(f"{t}/{name}.out") as f:
        for line in f:
            r = json.loads(line)
            for d in r["devices"]:
                for op in ("read", "write"):
                    c[f"{d['name']}.{op}.ios"] += d[op]["ios"]
                    c[f"{d['name']}.{op}.bytes"] += d[op]["bytes"]
            for p in r["processes"]:
                for k in ("req_reads", "req_writes", "call_reads", "call_writes",
                          "call_read_bytes", "call_write_bytes"):
                    c[f"procs.{k}"] += p[k] or 0
    return c
want = totals("j-BIO") + totals("j-VFS") + totals("j-CAP")
got = totals("j-merged")
print(dict(sorted(got.items())))
print("block_equal", all(got[k] == v for k, v in want.items() if ".ios" in k or ".bytes" in k) and
      all(want[k] == v for k, v in got.items() if ".ios" in k or ".bytes" in k))
print("vfs_equal", all(got[f"procs.{k}"] == want[f"procs.{k}"] and want[f"procs.{k}"] > 0
      for k in ("call_reads", "call_writes", "call_read_bytes")))
print("block_nonzero", want["loop6.read.ios"] + want["loop6.write.ios"] == 15000 and
      got["sda.read.ios"] > 0)
# A log names no file on its block lines: the files' disk figures are unknown (null), not 0.
rows = [fr for name in ("j-BIO", "j-VFS") for line in open(f"{t}/{name}.out")
        for fr in json.loads(line)["files"]]
print("log_files_disk_null", len(rows) > 0 and all(fr[k] is None for fr in rows for k in
      ("disk_read_bytes", "disk_write_bytes", "disk_reads", "disk_writes")))
EOF
cat "$T/json.check"
for c in block_equal vfs_equal block_nonzero log_files_disk_null; do
	check "-J merged: $c" grep -qx "$c True" "$T/json.check"
done

# ---- --report: one report of the whole run.
run rep-merged -r "$BIO" "$VFS" "$CAP" --report "$T/merged.json"
ev_sum=0
for f in BIO VFS CAP; do
	run "rep-$f" -r "${!f}" --report "$T/$f.json"
	ev_sum=$((ev_sum + $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$T/$f.json")))
done
ev=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$T/merged.json")
check "--report merged: events $ev, the files' sum $ev_sum" [ "$ev" = "$ev_sum" ]
check "--report merged: its source names every file" \
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["source"]; sys.exit(not all(f in s for f in sys.argv[2:]))' \
    "$T/merged.json" "$BIO" "$VFS" "$CAP"
run html -r "$BIO" "$VFS" "$CAP" --report "$T/merged.html"
check "--report merged HTML: written, exit 0" [ "$st" = 0 -a -s "$T/merged.html" ]

# ---- the wall clock: a log without one (TIME column cut) takes the capture's.
awk 'NR <= 2 { print; next } NF == 11 { $2 = ""; print; next } { print }' "$BIO" | \
    sed 's/  / /' > "$T/noclock.txt"
run nc-alone -r "$T/noclock.txt" --dump
run nc-merged -r "$T/noclock.txt" "$CAP" --dump
python3 - "$T" > "$T/clock.check" <<'EOF'
import csv, sys
from decimal import Decimal
t = sys.argv[1]
def offsets(name, devs):
    out = set()
    with open(f"{t}/{name}.out") as f:
        for r in csv.DictReader(f):
            if r["type"] == "block" and r["device"] in devs:
                out.add(int(Decimal(r["ts"]) * 10**9) - int(r["ts_ns"]))
    return out
alone = offsets("nc-alone", {"sda", "sdb"})
cap = offsets("one-CAP", {"loop6"})
merged_log = offsets("nc-merged", {"sda", "sdb"})
print("alone", alone, "cap", cap, "merged_log", merged_log)
print("alone_no_clock", alone == {0})
print("log_takes_capture_clock", len(cap) == 1 and merged_log == cap)
EOF
cat "$T/clock.check"
check "clock: the log alone has no wall clock (ts = ts_ns)" grep -qx "alone_no_clock True" "$T/clock.check"
check "clock: with the capture, the log's rows have the capture's wall clock" \
    grep -qx "log_takes_capture_clock True" "$T/clock.check"
run nc-merged-b -r "$T/noclock.txt" "$CAP" -b
check "clock: -b report times of the log's seconds are the capture's dates (2026), not 1970" \
    sh -c "grep -q '^2026-' '$T/nc-merged-b.out' && ! grep -q '^1970-' '$T/nc-merged-b.out'"
run both-clocks -r "$BIO" "$CAP" --dump
check "clock: two known clocks 151201061 s apart: one warning naming both, the first's kept" \
    sh -c "[ \$(grep -c 'wall clock is' '$T/both-clocks.err') = 1 ] && grep -q 'small.blkcap: its wall clock is .* from .*import-bio.txt' '$T/both-clocks.err' && grep -q '^\"block\",1644092866.000000000,4867000000000,' '$T/both-clocks.out'"

# ---- devices: a name two files share is one device.
sed 's/ sda / loop6 /' "$BIO" > "$T/loop6.txt"
run dev -r "$CAP" "$T/loop6.txt" --dump
check "devices: the log's loop6 requests are the capture's 7:6, none elsewhere" \
    sh -c "[ \$(grep -c '\"4095:[0-9]*\",\"loop6\"' '$T/dev.out') = 0 ] && [ \$(grep -c '\"7:6\",\"loop6\"' '$T/dev.out') = \$(( \$(grep -c '\"loop6\"' '$T/one-CAP.out') + \$(grep -c '\"sda\"' '$T/one-BIO.out') ))  ]"

# ---- errors: one line naming the file, non-zero status.
for mode in --dump -J; do
	run missing -r "$BIO" "$T/nonexistent.txt" $mode
	check "missing file $mode: non-zero status ($st), one line naming it" \
	    sh -c "[ '$st' != 0 ] && [ \$(grep -vc 'malformed' '$T/missing.err') = 1 ] && grep -q 'nonexistent.txt: No such file' '$T/missing.err'"
done
args=()
for i in $(seq 65); do args+=("$VFS"); done
run toomany -r "${args[@]}" --dump
check "65 files: refused with usage status 2 and one line" \
    sh -c "[ '$st' = 2 ] && grep -q 'at most 64 files' '$T/toomany.err' && [ ! -s '$T/toomany.out' ]"
run noropt --dump "$BIO"
check "a file without -r: still an unexpected argument" \
    sh -c "[ '$st' = 2 ] && grep -q \"unexpected argument\" '$T/noropt.err'"
# Malformed lines are counted per file, with the file's name, as alone.
run bad -r "$BIO" "$VFS" -J
check "malformed lines: each file's count under its name" \
    sh -c "grep -q 'import-bio.txt: 1 malformed line skipped, 31 imported' '$T/bad.err' && grep -q 'import-vfs.txt: 1 malformed line skipped, 21 imported' '$T/bad.err'"

# ---- the UI over the merged run: pause, step, seek, speed as with one file.
if command -v tmux >/dev/null 2>&1; then
	tmux_setup
	key() { "${TMUX_CMD[@]}" send-keys -t ui "$@"; }
	clock() { screen | head -n 1 | grep -oE '[0-9]{2}:[0-9]{2}:[0-9]{2}' | head -n 1; }
	hms() { python3 -c 'import sys,time; print(time.strftime("%H:%M:%S", time.localtime(float(sys.argv[1]))))' "$1"; }
	# The run's first tick (its start is a tick before it).
	run ui-dump -r "$BIO" "$VFS" --dump
	tick1=$(grep -m 1 '^"tick"' "$T/ui-dump.out" | cut -d, -f2)
	first=$(python3 -c "print($tick1 - 1)")
	"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
	    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $BIO $VFS --speed 0.25 2>$T/ui.err; echo \$? >$T/ui.exit; sleep 600"
	check "UI: the merged run shows the log's disks" wait_screen 10 "sd[ab]"
	key Space
	check "UI: Space pauses" wait_screen 5 "replay paused"
	key g
	sleep 0.5
	t0=$(clock)
	check "UI: g seeks to the run's start, a tick before its first at $(hms "$first") ($t0)" \
	    [ "$t0" = "$(hms "$first")" ]
	key .
	sleep 0.5
	t1=$(clock)
	check "UI: . steps one tick of the run: one second on ($t0 -> $t1)" \
	    [ "$t1" = "$(hms "$tick1")" ]
	key S
	check "UI: S doubles the speed" wait_screen 5 "replay at 0.5x"
	key G
	check "UI: G seeks to the end" wait_screen 5 "^blktop .* end *$"
	key q
	i=0
	while [ ! -s "$T/ui.exit" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "UI: q exits 0" [ "$(cat "$T/ui.exit" 2>/dev/null)" = 0 ]
	check "UI: nothing on stderr but the logs' malformed lines" \
	    sh -c "! grep -v 'malformed' '$T/ui.err'"
else
	skip "UI checks: needs tmux"
fi

# ---- damage: counted per file and named, as one file's is.
sz=$(stat -c %s "$CAP")
head -c $((sz / 2)) "$CAP" > "$T/cut.blkcap"
run cut-alone -r "$T/cut.blkcap" -J
lost=$(grep -o 'lost [0-9]* bytes at the end' "$T/cut-alone.err")
for mode in -J --dump; do
	run cut -r "$VFS" "$T/cut.blkcap" $mode
	check "damage $mode: the cut capture's loss named with it, as alone ($lost)" \
	    sh -c "[ -n '$lost' ] && grep -q 'cut.blkcap: replayed [0-9]* events; skipped 0 damaged chunks; $lost' '$T/cut.err' && [ \$(grep -c 'damaged chunks' '$T/cut.err') = 1 ]"
done

# ---- the seven real bpftrace logs of one run (tests/fixtures/bpftrace, tracepoint-only
# scripts: this machine has no kprobes) given together: every file's opens, reads,
# writes, closes, mmaps, munmaps and unlink on one row, joined by basename and by
# fd; the clock from the alignment log; the counts of its README.
BT=$BLKTOP_SRCDIR/tests/fixtures/bpftrace
# The alignment log's TIME has no date: it is dated by its mtime, in the local zone.
cp "$BT/time_align.log" "$T/time_align.log"
touch -d '2026-11-25 12:10:00 UTC' "$T/time_align.log"
run bt7 -r "$BT/openat.log" "$BT/vfs_rw.log" "$BT/close.log" "$BT/create_del.log" \
    "$BT/mmap.log" "$T/time_align.log" "$BT/bio.log" -J -d 1000
python3 - "$T/bt7.out" <<'EOF'
import json, sys, time
def check(ok, text):
    print(("PASS: " if ok else "FAIL: ") + "merge: seven bpftrace logs: " + text)
reports = [json.loads(l) for l in open(sys.argv[1])]
files, proc = {}, {}
for r in reports:
    for f in r["files"]:
        c = files.setdefault(f["path"], {})
        for k, v in f.items():
            if isinstance(v, int) and k not in ("pids",):
                c[k] = c.get(k, 0) + v
    for p in r["processes"]:
        if p["tgid"] == 24654:
            for k, v in p.items():
                if isinstance(v, int):
                    proc[k] = proc.get(k, 0) + v
row = {"opens": 1, "call_reads": 2, "call_writes": 1, "call_read_bytes": 4096,
       "call_write_bytes": 4096, "closes": 1, "mmaps": 1, "munmaps": 1, "unlinks": 1}
bad = [(p, {k: files.get(p, {}).get(k) for k in row}) for p in
       ["lc/a/b/file%d.dat" % i for i in range(5)]
       if any(files.get(p, {}).get(k) != v for k, v in row.items())]
check(not bad, "each of the 5 files on one row: %s (wrong: %s)" % (row, bad[:2]))
check(not [p for p in files if "/" not in p and p.endswith(".dat")],
      "no row left under a basename (%s)" % [p for p in files if "/" not in p][:4])
want = {"opens": 5, "open_fails": 1, "call_reads": 10, "call_writes": 5, "closes": 5, "mmaps": 5,
        "munmaps": 6, "mkdirs": 3, "rmdirs": 3, "unlinks": 5, "req_reads": 9, "req_writes": 20}
got = {k: proc.get(k) for k in want}
check(got == want, "the process: %s (%s)" % (want, "equal" if got == want else got))
day = time.strftime("%Y-%m-%d", time.gmtime(reports[0]["ts"])) if reports else "-"
check(day == "2026-11-25", "the reports' wall clock from the alignment log: %s" % day)
EOF

# ---- ten captures, the 9th cut short while they replay (issue 41, item 13):
# every mapping is watched for SIGBUS (8 were: exit 135), and the shrink is
# said of the file that shrank alone (every file said it). At half speed the
# fixture's 7.7 s last 15 s; the cut comes after the first report (1 s of
# replay time), while the 9th's reader still has chunks past 40000 bytes ahead.
# Two captures, the 2nd cut, run beside them: fewer than 8, so the old table
# watched both, and only the message's count is asked of them.
for i in 01 02 03 04 05 06 07 08 09 10; do cp "$CAP" "$T/ten$i.blkcap"; done
cp "$CAP" "$T/two1.blkcap"
cp "$CAP" "$T/two2.blkcap"
timeout -s KILL 120 "$BLKTOP" -r "$T"/ten??.blkcap -J --speed 0.5 > "$T/ten.out" 2> "$T/ten.err" &
cpid=$!
timeout -s KILL 120 "$BLKTOP" -r "$T"/two?.blkcap -J --speed 0.5 > "$T/two.out" 2> "$T/two.err" &
tpid=$!
TEST_PIDS="$TEST_PIDS $cpid $tpid"
wait_for "$T/ten.out" 60
truncate -s 40000 "$T/ten09.blkcap"
wait_for "$T/two.out" 60
truncate -s 40000 "$T/two2.blkcap"
wait "$cpid"
st=$?
wait "$tpid"
st2=$?
check "ten captures, the 9th cut short in the replay: exit $st, no signal death ($(head -c 160 "$T/ten.err"))" \
    [ "$st" = 0 ]
check "the shrink said once, of the 9th alone: $(grep -c 'shrank' "$T/ten.err") line(s)" \
    sh -c "[ \$(grep -c 'shrank' '$T/ten.err') = 1 ] &&
    grep -q '^blktop: $T/ten09.blkcap: the capture file shrank while it was read' '$T/ten.err'"
check "the 9th's cut counted as skipped or lost: $(grep 'ten09.blkcap: replayed' "$T/ten.err")" \
    sh -c "grep 'ten09.blkcap: replayed' '$T/ten.err' | grep -Eq 'skipped [1-9]|lost [1-9]'"
check "two captures, the 2nd cut: exit $st2, the shrink said once, of the 2nd: $(grep -c 'shrank' "$T/two.err") line(s)" \
    sh -c "[ $st2 = 0 ] && [ \$(grep -c 'shrank' '$T/two.err') = 1 ] &&
    grep -q '^blktop: $T/two2.blkcap: the capture file shrank' '$T/two.err'"
