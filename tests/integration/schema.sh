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

# validate NAME FILE...: each file's JSON (one object, or one per line) against the schema.
validate() {
	local name=$1 res
	shift
	res=$(python3 - "$SCHEMA" "$@" <<'PY' 2>&1
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
# A $ref's verdict on a value depends on nothing else (the schema has no
# $dynamicRef): a value found valid once under a $ref is not walked again.
# The idle intervals of a merged run repeat the same devices and tables
# (-J of the fixtures: 4.7 -> 1.4 ms of CPU an object).
valid = set()
plain_ref = jsonschema.Draft202012Validator.VALIDATORS["$ref"]
def ref_once(validator, ref, instance, schema):
    if isinstance(instance, (dict, list)):
        key = (ref, json.dumps(instance, sort_keys=True))
    else:
        key = (ref, type(instance).__name__, instance)
    if key in valid:
        return
    errs = list(plain_ref(validator, ref, instance, schema))
    if not errs:
        valid.add(key)
    yield from errs
v = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"$ref": ref_once})(schema)
n = bad = 0
kinds = set()
for path in sys.argv[2:]:
    per_type = {}
    text = open(path, encoding="utf-8").read()
    try:
        objs = [json.loads(text)]
    except ValueError:
        objs = [json.loads(l) for l in text.splitlines() if l.strip()]
    for o in objs:
        # A dump's rows: at most 500 of each type (jsonschema takes ~1 ms an object).
        if "type" in o and "interval_s" not in o:
            per_type[o["type"]] = per_type.get(o["type"], 0) + 1
            if per_type[o["type"]] > 500:
                continue
        n += 1
        kinds.add("interval" if "interval_s" in o else "run" if "anomaly_rule" in o else "dump")
        errs = sorted(v.iter_errors(o), key=lambda e: list(e.absolute_path))
        if errs:
            bad += 1
            if bad <= 3:
                e = errs[0]
                print("%s: %s at %s" % (path, e.message[:300], "/".join(map(str, e.absolute_path))))
print("%d objects (%s), %d invalid" % (n, " ".join(sorted(kinds)), bad))
PY
)
	echo "$res" | sed '$d' | sed 's/^/    /' | head -3
	check "$name: $(echo "$res" | tail -n 1)" all_valid "$(echo "$res" | tail -n 1)"
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
validate "fixtures: -J" "$OUT"/f*.jsonl
validate "fixtures: --report OUT.json" "$OUT"/f*.json
validate "fixtures: --dump --format jsonl" "$OUT"/f*.dump
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
validate "live: -J" "$OUT/live.jsonl" "$OUT/replay.jsonl"
validate "live: --report OUT.json" "$OUT/live.json"
validate "live: the capture's --dump --format jsonl" "$OUT/live.dump"
