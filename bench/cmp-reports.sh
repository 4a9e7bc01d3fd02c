#!/bin/bash
# cmp-reports.sh OLD NEW: the reports of the committed captures and logs, one
# blktop binary against another, over 40 option sets; what a newer one says
# about itself ("self" in -J, "  self: ..." on -b's first line) is left out.
# Prints each option set that differs; "compare rc=0" when none does.
old=${1:?usage: cmp-reports.sh OLD-BLKTOP NEW-BLKTOP} new=${2:?usage: cmp-reports.sh OLD-BLKTOP NEW-BLKTOP}
fx=$(cd "$(dirname "$0")/../tests/fixtures" && pwd) rc=0
strip() { sed -E 's/,"self":\{[^}]*\}\}$/}/; s/^([0-9-]+ [0-9:]+  lost [0-9]+)  self: .*/\1/'; }
for f in "$fx/small.blkcap" "$fx/import-bio.txt" "$fx/import-issue.txt" "$fx/import-vfs.txt"; do
	for args in "-J" "-b" "-J -d 2" "-J -d 0.5" "-J -n 2" "-b -d 3" "--dump --format csv" \
	    "--dump --format jsonl" "-J --top 3 -o write_bytes" "-J --threads"; do
		a=$("$old" -r "$f" $args 2>/dev/null | strip; echo "rc=${PIPESTATUS[0]}")
		b=$("$new" -r "$f" $args 2>/dev/null | strip; echo "rc=${PIPESTATUS[0]}")
		if [ "$a" != "$b" ]; then echo "DIFF: $f $args"; rc=1; fi
	done
done
echo "compare rc=$rc"
exit $rc
