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
