#!/bin/bash
# golden-runs.sh OLD NEW: the output of two blktop binaries on the committed
# captures (tests/fixtures/*.blkcap), byte for byte: -b, -J, --report (HTML
# and JSON), --dump (CSV and JSONL) with the options that shape them, their
# stderr and exit status. The run's own CPU cost (self: cpu_pct,
# events_per_s) is masked; nothing else is. For a change that must not change
# output: build main (OLD) and the branch (NEW), then run this; exit 1 and
# the names of the files that differ if any does.
old=${1:?usage: golden-runs.sh OLD_BLKTOP NEW_BLKTOP} new=${2:?usage: golden-runs.sh OLD_BLKTOP NEW_BLKTOP}
old=$(realpath "$old") new=$(realpath "$new") || exit 1
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run BIN DIR: every option set on every fixture, into DIR.
run() {
	local bin=$1 dir=$2 f base i opts r
	mkdir -p "$dir" && cd "$dir" || exit 1
	for f in "$src"/tests/fixtures/*.blkcap; do
		base=$(basename "$f" .blkcap)
		i=0
		while IFS= read -r opts; do
			i=$((i + 1))
			eval "\"$bin\" $opts -r \"$f\"" >"$base.$i.out" 2>"$base.$i.err"
			echo "$opts: $?" >"$base.$i.rc"
		done <<'OPTS'
-b
-J
-b -d 0.5
-J -d 2 -n 3
-J -o read_bytes --top 3
-b -o write_ios --threads
-J --all-files --max-procs 16 --max-files 16
-J --insight min_calls=1 --insight small_share=0.2
-b -D loop6
-J -D nosuch
-J -p 1
-J -c dd
--report rep.html
--report rep.json
-J --report rep2.json
--dump
--dump --format jsonl
--dump -D 7:0
-J --speed max
-J -d 0.01 -n 5
OPTS
		for r in rep.html rep.json rep2.json; do
			[ -f "$r" ] && mv "$r" "$base.$r"
		done
	done
	cd - >/dev/null || exit 1
}

# The run's own cost differs from run to run: masked.
norm() {
	sed -E 's/"cpu_pct":[0-9.]+/"cpu_pct":X/g; s/"events_per_s":[0-9.]+/"events_per_s":X/g;
	    s/self: cpu [0-9.]+%, [0-9.]+ events\/s/self: X/g' "$1"
}

run "$old" "$tmp/old"
run "$new" "$tmp/new"
n=0 bad=0
for f in "$tmp"/old/*; do
	n=$((n + 1))
	if ! cmp -s <(norm "$f") <(norm "$tmp/new/${f##*/}"); then
		echo "differs: ${f##*/}"
		bad=$((bad + 1))
	fi
done
[ "$(ls "$tmp/new" | wc -l)" = "$n" ] || { echo "not the same files"; bad=$((bad + 1)); }
echo "$n files compared, $bad differ"
[ "$bad" = 0 ]
