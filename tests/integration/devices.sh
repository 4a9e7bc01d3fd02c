#!/bin/bash
# devices.sh: no device vanishes (issue 27, item 5). 70 loop devices backed by
# /dev/shm, a direct read on each in turn, then 300 direct writes to the 70th:
# -J counts every one of them as /proc/diskstats does, with no "dropped". With
# a cap forced low ($BLKTOP_MAX_DEVS) the devices past it are named and their
# requests counted in -J's "dropped", -b's header and the UI's status line;
# so are the entries full process and file tables evict.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd losetup mount
need_cmd tmux tmux

NLOOP=70
LOOPS=()
# Deterministic backing files: lib.sh's cleanup finds them by this prefix.
for i in $(seq 1 $NLOOP); do
	img=/dev/shm/blktop-test-$$-dev$i.img
	truncate -s 4M "$img" || { fail "create $img"; exit 1; }
	l=$(losetup -f --show "$img") || { fail "losetup $i"; exit 1; }
	LOOPS+=("$l")
done
NAMES=()
for l in "${LOOPS[@]}"; do NAMES+=("$(basename "$l")"); done
LAST=${NAMES[$((NLOOP - 1))]}
pass "$NLOOP loop devices: ${NAMES[0]} .. $LAST"

# snap: "name reads writes" of every test device from /proc/diskstats.
snap() {
	local n
	for n in "${NAMES[@]}"; do
		echo "$n $(diskstats "$n" | awk '{ print $1, $3 }')"
	done
}

# workload: a direct 4 KiB read of every device in turn, then 300 direct writes to the last.
workload() {
	local l
	for l in "${LOOPS[@]}"; do
		dd if="$l" of=/dev/null bs=4k count=1 iflag=direct status=none
	done
	dd if=/dev/zero of="${LOOPS[$((NLOOP - 1))]}" bs=4k count=300 oflag=direct status=none
}

# run_json OUT ENV...: blktop -J over the workload; diskstats before and after in OUT.before/.after.
run_json() {
	local out=$1 pid
	shift
	sleep 0.5
	snap >"$out.before"
	env "$@" "$BLKTOP" -J -d 1 >"$out" 2>"$out.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "first report within $START_S s ($(head -c 200 "$out.err"))"
	workload
	sleep 2.5
	awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" >"$out.rss"
	kill -INT "$pid"
	wait "$pid"
	echo $? >"$out.rc"
	snap >"$out.after"
}

# judge OUT: per device "name blktop_reads disk_reads blktop_writes disk_writes", then a
# line "dropped JSON-of-the-last-report's-dropped-or-null sum-of-interval-requests".
judge() {
	python3 - "$1" <<'PY'
import json, sys
out = sys.argv[1]
rep = [json.loads(l) for l in open(out)]
def snap(p):
    return {f[0]: (int(f[1]), int(f[2])) for f in (l.split() for l in open(p)) if len(f) == 3}
b, a = snap(out + ".before"), snap(out + ".after")
got = {}
for r in rep:
    for d in r["devices"]:
        g = got.setdefault(d["name"], [0, 0])
        g[0] += d["read"]["ios"]
        g[1] += d["write"]["ios"]
for n in b:
    g = got.get(n, [0, 0])
    print(n, g[0], a[n][0] - b[n][0], g[1], a[n][1] - b[n][1])
drop = rep[-1].get("dropped")
ivs = sum(r.get("dropped", {}).get("devices", {}).get("requests", 0) for r in rep)
print("dropped", json.dumps(drop, separators=(",", ":")) if drop else "null", ivs)
print("lost", sum(r.get("lost", 0) for r in rep))
PY
}

# ---- 70 devices, the default cap: every request of every device counted.
out=$TEST_TMP/all.jsonl
run_json "$out"
check "all: blktop exits 0" [ "$(cat "$out.rc")" = 0 ]
judge "$out" >"$out.judge"
bad=$(awk '$1 != "dropped" && $1 != "lost" && ($2 != $3 || $4 != $5)' "$out.judge" | head -5)
check "all: every device's reads and writes in -J equal /proc/diskstats' (${bad:-70 of 70})" [ -z "$bad" ]
row=$(awk -v n="$LAST" '$1 == n' "$out.judge")
check "all: $LAST, the 70th: writes $(echo "$row" | awk '{ print $4 " in -J, " $5 " in /proc/diskstats" }')" \
    awk -v n="$LAST" '$1 == n && $4 == $5 && $4 >= 300 { ok = 1 } END { exit !ok }' "$out.judge"
check "all: no \"dropped\" object ($(grep '^dropped' "$out.judge"))" grep -q '^dropped null 0$' "$out.judge"
echo "# 70 devices: blktop -J's peak RSS $(cat "$out.rss") kB"

# ---- a cap of 40 (for tests): the devices past it named, their requests counted.
out=$TEST_TMP/cap.jsonl
run_json "$out" BLKTOP_MAX_DEVS=40
check "cap 40: blktop exits 0" [ "$(cat "$out.rc")" = 0 ]
judge "$out" >"$out.judge"
read -r _ drop ivs < <(grep '^dropped' "$out.judge")
read -r _ lost < <(grep '^lost' "$out.judge")
echo "# cap 40: dropped $drop, lost $lost"
kept=$(awk '$1 != "dropped" && $1 != "lost" && $2 + $4 > 0' "$out.judge" | wc -l)
# named total disk_dropped all_ours: what "dropped" says, what /proc/diskstats
# counted on those of them that are ours, whether all of them are.
read -r named total disk_dropped all_ours < <(python3 - "$drop" "$out.judge" <<'PY'
import json, sys
d = json.loads(sys.argv[1])["devices"]
ours = {f[0]: int(f[2]) + int(f[4]) for f in (l.split() for l in open(sys.argv[2]))
        if f[0] not in ("dropped", "lost")}
names = d["names"]
print(len(names), d["requests_total"], sum(ours.get(n, 0) for n in names),
      int(all(n in ours for n in names) and d["others_requests_total"] == 0))
PY
)
# A request lost (counted in -J's "lost", a ring full or a program run the
# kernel skipped) is neither shown nor dropped: each may take one device away.
[ "$kept" -le 40 ] && [ $((named + lost)) -ge $((NLOOP - 40)) ] && [ $((kept + named + lost)) -ge $NLOOP ]
check_status $? "cap 40: at most 40 devices shown ($kept of ours), the rest of ours named in \"dropped\" ($named; lost $lost)"
check "cap 40: $LAST named in \"dropped\"" python3 -c '
import json, sys
sys.exit(sys.argv[2] not in json.loads(sys.argv[1])["devices"]["names"])' "$drop" "$LAST"
check "cap 40: \"max\" says the cap" python3 -c '
import json, sys
sys.exit(json.loads(sys.argv[1])["devices"]["max"] != 40)' "$drop"
# Another device of the machine (its disk) may be among the dropped: then at least ours.
if [ "$all_ours" = 1 ]; then
	[ "$total" = "$disk_dropped" ] && [ $((disk_dropped + lost)) -ge $((NLOOP - 40 + 300)) ]
	check_status $? "cap 40: dropped requests_total $total = /proc/diskstats' requests of those devices $disk_dropped (lost $lost)"
else
	[ -n "$total" ] && [ "$total" -ge "$disk_dropped" ] && [ $((disk_dropped + lost)) -ge $((NLOOP - 40 + 300)) ]
	check_status $? "cap 40: dropped requests_total $total >= /proc/diskstats' requests of ours among them $disk_dropped"
fi
check "cap 40: the reports' \"requests\" add up to \"requests_total\" ($ivs = $total)" [ "$ivs" = "$total" ]
bad=$(awk '$1 != "dropped" && $1 != "lost" && $2 + $4 > 0 && ($2 != $3 || $4 != $5)' "$out.judge" | head -3)
check "cap 40: the devices kept still counted exactly (${bad:-all})" [ -z "$bad" ]

# ---- -b: the header of every report says it.
out=$TEST_TMP/cap.txt
BLKTOP_MAX_DEVS=40 "$BLKTOP" -b -d 1 >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S" || fail "-b: first report within $START_S s"
workload
sleep 2.5
kill -INT "$pid"
wait "$pid"
line=$(grep -m1 'dropped [0-9]* requests of' "$out")
check "-b: the header names what was cut (${line:0:160})" \
    grep -qE "lost [0-9]+.*dropped [0-9]+ requests of [0-9]+ devices past the cap of 40:.* $LAST( |;|$)" "$out"

# ---- Full process and file tables: the evicted entries said too (a replay of
# a log of 40 processes reading 40 files, tables of 16).
{
	echo 'Attaching 4 probes...'
	for k in $(seq 0 39); do
		printf '%d 2022-02-05T20:27:46.%09d %d python R %d 4096 4096 /data/f%02d.npy\n' \
		    $((4867000000000 + k * 1000000)) $((k * 1000000)) $((1000 + k)) $((5000 + k)) "$k"
	done
} >"$TEST_TMP/vfs.txt"
"$BLKTOP" -r "$TEST_TMP/vfs.txt" -J -d 60 --max-procs 16 --max-files 16 >"$TEST_TMP/ev.jsonl" 2>&1
check "tables of 16: -J's \"dropped\" says 24 processes and 24 files evicted, totals kept ($(head -c 200 "$TEST_TMP/ev.jsonl"))" python3 -c '
import json, sys
j = json.loads(open(sys.argv[1]).readline())
d = j["dropped"]
sys.exit(not (d["processes"] == {"max": 16, "evicted": 24, "evicted_total": 24} and
              d["files"] == {"max": 16, "evicted": 24, "evicted_total": 24} and
              "devices" not in d and j["tables"]["call_reads"] == 40))' "$TEST_TMP/ev.jsonl"
"$BLKTOP" -r "$TEST_TMP/vfs.txt" -b -d 60 --max-procs 16 --max-files 16 >"$TEST_TMP/ev.txt" 2>&1
check "tables of 16: -b's header says it ($(head -1 "$TEST_TMP/ev.txt" | cut -c1-120))" \
    grep -q 'lost 0  evicted 24 processes (table of 16), 24 files (table of 16)' "$TEST_TMP/ev.txt"

# ---- the UI's status line, and its help.
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 40 \
    "env BLKTOP_MAX_DEVS=2 LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP \
    -D ${NAMES[0]} -D ${NAMES[1]} -D ${NAMES[2]} 2>$TEST_TMP/ui.err; echo \$? >$TEST_TMP/ui.exit; sleep 600"
check "ui: starts" wait_screen 60 "rec off"
for l in "${LOOPS[@]:0:3}"; do dd if="$l" of=/dev/null bs=4k count=1 iflag=direct status=none; done
check "ui: the status line says a device was dropped" wait_screen 10 "dropped 1 dev"
"${TMUX_CMD[@]}" send-keys -t ui '?'
check "ui: the help names it" wait_screen 10 "cut: dropped [0-9]+ requests of 1 device past the cap of 2: ${NAMES[2]}"
"${TMUX_CMD[@]}" send-keys -t ui q q
i=0; while [ ! -s "$TEST_TMP/ui.exit" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "ui: exits 0" [ "$(cat "$TEST_TMP/ui.exit" 2>/dev/null)" = 0 ]
