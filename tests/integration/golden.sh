#!/bin/bash
# golden.sh: -b, -J, --report (HTML and JSON) and --dump of the committed
# captures and logs, byte for byte as tests/golden/expected has them
# (tests/golden/run.sh; its cases in tests/golden/cases). Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"
BLKTOP="$BLKTOP" bash "$BLKTOP_SRCDIR/tests/golden/run.sh"

# call_errors (a field added as one row of src/field-proc.c): the calls the
# log says failed (RETURNED below 0), on the process, its file and the totals.
want=$(awk 'NF >= 9 && $8 ~ /^-[0-9]+$/ { n++ } END { print n + 0 }' "$BLKTOP_SRCDIR/tests/fixtures/import-vfs.txt")
got=$("$BLKTOP" -r "$BLKTOP_SRCDIR/tests/fixtures/import-vfs.txt" -J 2>/dev/null | python3 -c '
import json, sys
t = p = f = 0
for line in sys.stdin:
    o = json.loads(line)
    t += o["tables"]["call_errors"] or 0
    p += sum(x["call_errors"] or 0 for x in o["processes"])
    f += sum(x["call_errors"] or 0 for x in o["files"])
print(t, p, f)')
check "call_errors: $want failed call(s) in import-vfs.txt; -J's totals, processes, files: ${got:-none}" \
    [ "$got" = "$want $want $want" -a "$want" -gt 0 ]

# bytes_per_io (a device field added as one row of src/field-dev.c): each
# disk's and direction's mean request size over the run, as the log's own
# BYTES column has it (T: 0 read, 1 write; its lines of 11 fields, and of 9
# without TIME and SECTOR), against --report OUT.json's.
want=$(awk 'NF == 9 { $0 = $1 " - " $2 " " $3 " " $4 " " $5 " " $6 " " $7 " - " $8 " " $9 }
    NF == 11 && $8 ~ /^[01]$/ { k = $7 " " ($8 ? "write" : "read"); n[k]++; b[k] += $10 }
    END { for (k in n) printf "%s %.1f\n", k, b[k] / n[k] }' \
    "$BLKTOP_SRCDIR/tests/fixtures/import-bio.txt" | sort)
"$BLKTOP" -r "$BLKTOP_SRCDIR/tests/fixtures/import-bio.txt" --report "$TEST_TMP/bio.json" 2>/dev/null
got=$(python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    for op in ("read", "write"):
        if d[op]["ios"]:
            print(d["name"], op, "%.1f" % d[op]["bytes_per_io"])
    if d["other"]["bytes_per_io"] is not None:
        print(d["name"], "other: not null without a request")' "$TEST_TMP/bio.json" | sort)
check "bytes_per_io: import-bio.txt's mean request size per disk and direction ($(echo $want | tr '\n' ' ')); --report's: $(echo ${got:-none} | tr '\n' ' ')" \
    [ -n "$want" -a "$got" = "$want" ]
