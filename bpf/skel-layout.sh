#!/bin/sh
# skel-layout.sh MAIN.skel.h COMPAT.skel.h: fail unless the two skeletons
# declare the same maps, programs and global variables in the same order and
# layout (their struct definitions equal but for the name), so the loader can
# open the compat object's bytes through the main skeleton (src/skel.c).
set -e
main=$(sed -n 's/^struct \([a-z_]*\) {$/\1/p' "$1" | head -n 1)
compat=$(sed -n 's/^struct \([a-z_]*\) {$/\1/p' "$2" | head -n 1)
body() { awk -v n="$2" '$0 == "struct " n " {" { on = 1 } on { print } on && /^};$/ { exit }' "$1" | sed "s/$2/SKEL/g"; }
if ! body "$1" "$main" > "$2.main.tmp" || ! body "$2" "$compat" > "$2.compat.tmp" ||
    ! [ -s "$2.main.tmp" ] || ! cmp -s "$2.main.tmp" "$2.compat.tmp"; then
	echo "$2: its maps, programs or globals differ from $1's:" >&2
	diff "$2.main.tmp" "$2.compat.tmp" >&2 || true
	rm -f "$2.main.tmp" "$2.compat.tmp"
	exit 1
fi
rm -f "$2.main.tmp" "$2.compat.tmp"
