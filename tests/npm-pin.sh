#!/bin/sh
# npm-pin.sh WHO DIR PACKAGE VERSION FILE: install PACKAGE@VERSION from the
# npm registry into DIR (a cache outside the tree) unless that version is
# there already (then a no-op that needs no network); FILE, under the
# package, must exist after. WHO names the caller in messages. No install
# script runs: tests/viewer and tests/duckdb use prebuilt files only.
set -e
who=$1 dir=$2 name=$3 version=$4 file=$5
pkg=$dir/node_modules/$name

have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json" 2>/dev/null | head -n 1)
if [ "$have" = "$version" ] && [ -f "$pkg/$file" ]; then
	exit 0
fi
command -v npm >/dev/null || { echo "$who: npm not found" >&2; exit 1; }
echo "$who: installing $name@$version into $dir"
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --loglevel=error \
	"$name@$version" >/dev/null
[ -f "$pkg/$file" ] || {
	echo "$who: $name installed but $pkg/$file is missing" >&2
	exit 1
}
