#!/bin/bash
# cmp-reports.sh OLD NEW: the reports of every committed capture and log (and a
# capture merged with a log), one blktop binary against another, over 14 option
# sets, --report's JSON and HTML included; standard output, standard error and
# exit status must match. What a newer one says about itself ("self" in -J,
# "  self: ..." on -b's lines) is left out. Prints each case that differs;
# "compare rc=0" when none does.
old=${1:?usage: cmp-reports.sh OLD-BLKTOP NEW-BLKTOP} new=${2:?usage: cmp-reports.sh OLD-BLKTOP NEW-BLKTOP}
old=$(readlink -f "$old") new=$(readlink -f "$new")
fx=$(cd "$(dirname "$0")/../tests/fixtures" && pwd) rc=0 n=0
t=$(mktemp -d /tmp/blktop-cmp-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$t"' EXIT
strip() { sed -E 's/,"self":\{[^}]*\}\}$/}/; s/^([0-9-]+ [0-9:]+  lost [0-9]+.*)  self: .*/\1/'; }
# one NAME BIN FILES ARGS: run BIN in $t/NAME, its report files appended to its output.
one() {
	local d=$t/$1 bin=$2 files=$3 args=$4 r
	rm -rf "$d"; mkdir -p "$d"
	# shellcheck disable=SC2086
	(cd "$d" && timeout 60 "$bin" -r $files $args 2>err | strip >out; echo "rc=${PIPESTATUS[0]}" >>out)
	for r in "$d"/R.*; do [ -f "$r" ] && strip <"$r" >>"$d/out"; done
}
for f in "$fx/small.blkcap" "$fx"/import-*.txt "$fx"/bpftrace/*.log "$fx/small.blkcap $fx/import-vfs.txt"; do
	for args in "-J" "-b" "-J -d 2" "-J -d 0.5" "-J -n 2" "-b -d 3" "--dump --format csv" \
	    "--dump --format jsonl" "-J --top 3 -o write_bytes" "-J --threads" \
	    "--report R.json --speed max" "--report R.html --speed max" "-J --speed max" "-J -d 0.25"; do
		one old "$old" "$f" "$args"
		one new "$new" "$f" "$args"
		n=$((n + 1))
		if ! cmp -s "$t/old/out" "$t/new/out" || ! cmp -s "$t/old/err" "$t/new/err"; then
			echo "DIFF: ${f//$fx\//} $args"; rc=1
		fi
	done
done
echo "$n cases; compare rc=$rc"
exit $rc
