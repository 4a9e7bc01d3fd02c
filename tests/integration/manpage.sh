#!/bin/bash
# manpage.sh: doc/blktop.8 renders without warnings, and its synopsis and
# options name every option `blktop --help` lists.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd groff groff-base

MAN=$BLKTOP_SRCDIR/doc/blktop.8
groff -man -Tutf8 -ww "$MAN" >"$TEST_TMP/man.txt" 2>"$TEST_TMP/man.err"
check "renders (groff -ww) without warnings: $(head -c 200 "$TEST_TMP/man.err")" \
    [ -s "$TEST_TMP/man.txt" -a ! -s "$TEST_TMP/man.err" ]
# Plain text: no overstrike, no hyphenation at line ends, one line per section body.
sed 's/.\x08//g' "$TEST_TMP/man.txt" >"$TEST_TMP/plain.txt"
groff -man -Tascii -rLL=400n -P-c -P-b -P-u "$MAN" 2>/dev/null |
    sed 's/.\x08//g' >"$TEST_TMP/wide.txt"
synopsis=$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$TEST_TMP/wide.txt")
options=$(sed -n '/^OPTIONS/,/^KEYS/p' "$TEST_TMP/wide.txt")

longs=$("$BLKTOP" --help 2>&1 | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
check "--help lists long options ($(echo $longs | wc -w))" [ "$(echo $longs | wc -w)" -gt 20 ]
missing_syn="" missing_opt=""
# A long option with a short form ("  -x, --long" in --help) stands in the
# synopsis by its short form, checked below.
aliased=$("$BLKTOP" --help 2>&1 | sed -n 's/^  -[a-zA-Z], \(--[a-z0-9-]*\).*/\1/p')
for o in $longs; do
	grep -qxF -e "$o" <<<"$aliased" || grep -qF -e "$o" <<<"$synopsis" ||
	    missing_syn="$missing_syn $o"
	grep -qF -e "$o" <<<"$options" || missing_opt="$missing_opt $o"
done
# A short option in --help ("  -x, --long"): the synopsis names it too.
shorts=$("$BLKTOP" --help 2>&1 | sed -n 's/^  \(-[a-zA-Z]\), --.*/\1/p')
for o in $shorts; do
	grep -qE -e "(^|[[ ])$o( |\]|$)|\[-[a-zA-Z]*${o#-}[a-zA-Z]*\]" <<<"$synopsis" ||
	    missing_syn="$missing_syn $o"
done
check "synopsis names every option${missing_syn:+ (missing:$missing_syn)}" [ -z "$missing_syn" ]
check "OPTIONS describes every long option${missing_opt:+ (missing:$missing_opt)}" [ -z "$missing_opt" ]
check "version matches the binary" \
    grep -qF "blktop $("$BLKTOP" --version | awk '{print $2}')" "$MAN"
# KEYS names every printable key of the default key table (ui/ui-keys.c), each as a word.
keys=$(sed -n '/^KEYS/,/^CONFIG FILE/p' "$TEST_TMP/wide.txt" | tr -s ' ;,\t' '\n\n\n\n')
table=$(sed -n '/ui_keys_default\[\] = {/,/^};/p' "$BLKTOP_SRCDIR/ui/ui-keys.c" |
    grep -o "{ '[^\\\\']'," | sed "s/{ '\(.\)',/\1/" | grep -v '^ $')
missing_key=""
while read -r k; do
	grep -qxF -e "$k" <<<"$keys" || missing_key="$missing_key $k"
done <<<"$table"
check "KEYS names every key of the default key table ($(wc -l <<<"$table") keys)${missing_key:+ (missing:$missing_key)}" \
    [ -z "$missing_key" -a "$(wc -l <<<"$table")" -ge 25 ]
