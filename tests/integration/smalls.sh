#!/bin/bash
# smalls.sh: the smaller items of issue 27, item 11, that need no root:
# --report r.JSON writes JSON (the suffix in any case), and every -d value
# the examples of the README and doc/*.md give is accepted (the interval is capped at 3600 s).
. "$BLKTOP_SRCDIR/tests/lib.sh"
CAP=$BLKTOP_SRCDIR/tests/fixtures/small.blkcap

"$BLKTOP" -r "$CAP" --report "$TEST_TMP/r.JSON" </dev/null >/dev/null 2>&1
check "--report r.JSON: JSON, not HTML" \
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TEST_TMP/r.JSON"
vals=$(grep -ohE 'blktop .* -d [0-9.]+' "$BLKTOP_SRCDIR/README.md" "$BLKTOP_SRCDIR"/doc/*.md | grep -oE -- '-d [0-9.]+' | sort -u | cut -d' ' -f2)
bad=""
for v in $vals; do
	"$BLKTOP" -r "$CAP" -b -d "$v" -n 1 </dev/null >/dev/null 2>&1 || bad="$bad $v"
done
check "every -d value of README and doc/*.md accepted ($(echo $vals)); refused:${bad:- none}" [ -z "$bad" ]
