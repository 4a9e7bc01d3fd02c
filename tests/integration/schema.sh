#!/bin/bash
# schema.sh: every JSON blktop writes validates against doc/blktop.schema.json:
# -J, --report OUT.json and --dump --format jsonl of every committed capture
# and log, and of a live run (block, file calls, lifecycle, async) and its
# capture. The schema forbids fields it does not name, so a field added to one
# writer and not the schema fails here.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3
python3 -c 'import jsonschema' 2>/dev/null || { skip "needs python3-jsonschema"; exit 0; }

SCHEMA=$BLKTOP_SRCDIR/doc/blktop.schema.json
FX=$BLKTOP_SRCDIR/tests/fixtures
OUT=$TEST_TMP/out
mkdir -p "$OUT"

# validate NAME FILE... [-- NAME FILE...]...: each group's JSON (one object, or
# one per line) against the schema, a check a group, all in one Python
# (tests/integration/schema_validate.py).
validate() {
	local res names=() k=0 next=1 a got
	for a in "$@"; do
		[ "$next" = 1 ] && names+=("$a")
		next=0
		[ "$a" = -- ] && next=1
	done
	res=$(python3 "$BLKTOP_SRCDIR/tests/integration/schema_validate.py" "$SCHEMA" "$@" 2>&1)
	echo "$res" | grep -v '^group [0-9]*: ' | head -n 9
	for a in "${names[@]}"; do
		k=$((k + 1))
		got=$(echo "$res" | sed -n "s/^group $k: //p")
		check "$a: ${got:-no verdict}" all_valid "$got"
	done
}
all_valid() { echo "$1" | grep -qE '^[1-9][0-9]* objects .*, 0 invalid$'; }

if user_part; then
# ---- the schema's fields are the ones doc/json.md explains.
missing=$(python3 - "$SCHEMA" "$BLKTOP_SRCDIR/doc/json.md" <<'PY'
import json, sys
names = set()
def walk(o):
    if isinstance(o, dict):
        names.update(o.get("properties", {}))
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(open(sys.argv[1])))
doc = open(sys.argv[2], encoding="utf-8").read()
print(" ".join(sorted(n for n in names if "`%s`" % n not in doc and '"%s"' % n not in doc)))
PY
)
check "doc/json.md names every field of the schema (missing: ${missing:-none})" [ -z "$missing" ]

# ---- the committed captures and logs, and a capture merged with a log.
i=0
for f in "$FX/small.blkcap" "$FX/marks.blkcap" "$FX"/import-*.txt "$FX"/bpftrace/*.log "$FX/small.blkcap $FX/import-vfs.txt"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f -J >"$OUT/f$i.jsonl" 2>/dev/null
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f -J --threads -d 0.5 >"$OUT/f$i-t.jsonl" 2>/dev/null
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f -J --stack >"$OUT/f$i-s.jsonl" 2>/dev/null
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f --stack --report "$OUT/f$i-s.json" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f --report "$OUT/f$i.json" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$BLKTOP" -r $f --dump --format jsonl >"$OUT/f$i.dump" 2>/dev/null
done
validate "fixtures: -J" "$OUT"/f*.jsonl -- "fixtures: --report OUT.json" "$OUT"/f*.json \
    -- "fixtures: --dump --format jsonl" "$OUT"/f*.dump
fi

# ---- a live run: direct and buffered I/O through fio (libaio and io_uring),
# files made, renamed and removed, recorded and replayed.
need_root
need_cmd fio fio
dev=$(loop_create 256) || { fail "loop device"; exit 0; }
mkfs.ext4 -q "$dev" && mkdir -p "$TEST_TMP/mnt" && mount "$dev" "$TEST_TMP/mnt" || { fail "mount"; exit 0; }
start_bg "$BLKTOP" -J -d 0.5 --all-files -w "$OUT/live.blkcap" --report "$OUT/live.json" >"$OUT/live.jsonl" 2>"$OUT/live.err"
LPID=$BG_PID
wait_for "$OUT/live.jsonl" "$START_S" || { fail "live: no report in $START_S s: $(head -c 300 "$OUT/live.err")"; exit 0; }
for e in libaio io_uring psync; do
	fio --name=s --directory="$TEST_TMP/mnt" --size=4M --bs=4k --rw=randrw --direct=$([ $e = psync ] && echo 0 || echo 1) \
	    --ioengine=$e --iodepth=4 --rate_iops=500 --runtime=1 --time_based --output=/dev/null >/dev/null 2>&1
done
for n in 1 2 3; do echo "x$n" >"$TEST_TMP/mnt/f$n"; mv "$TEST_TMP/mnt/f$n" "$TEST_TMP/mnt/g$n"; done
mkdir "$TEST_TMP/mnt/d" && rmdir "$TEST_TMP/mnt/d"
sync
sleep 1.5
stop_bg "$LPID"
rc=$?
check "live: blktop -J -w --report exits 0 (got $rc)" [ "$rc" = 0 ]
umount "$TEST_TMP/mnt"
"$BLKTOP" -r "$OUT/live.blkcap" --dump --format jsonl >"$OUT/live.dump" 2>/dev/null
"$BLKTOP" -r "$OUT/live.blkcap" -J >"$OUT/replay.jsonl" 2>/dev/null
check "live: reports with processes and files" python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print("# %d reports, %d process rows, %d file rows" % (len(rs), sum(len(r.get("processes", [])) for r in rs), sum(len(r.get("files", [])) for r in rs)))
assert len(rs) >= 4 and any(r.get("files") for r in rs) and any(r.get("processes") for r in rs)' "$OUT/live.jsonl"
validate "live: -J" "$OUT/live.jsonl" "$OUT/replay.jsonl" -- "live: --report OUT.json" "$OUT/live.json" \
    -- "live: the capture's --dump --format jsonl" "$OUT/live.dump"
