#!/bin/bash
# jsonkeys.sh: each JSON key literal of -J, --report and --dump is spelt in
# one file of src/ (issue 43, "One field, one row"): a key that members of
# several objects share is one macro of src/json-key.h that its writers and
# readers name (tests/golden/json-keys.py says what a key literal is). Fails on
# a key in two files, and on a key of json-key.h that fewer than two .c files
# name. The checker itself is tried on scratch copies of src/: a key written
# again in a second file, and a macro named by one file alone, must fail it.
# Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"

keys() { (cd "$BLKTOP_SRCDIR" && SRC=$1 python3 tests/golden/json-keys.py --check); }

keys src || fail "json-keys.py ran to its end"

# A scratch copy with "ticks_per_column" (json-run.c's alone) written in json.c too.
cp -r "$BLKTOP_SRCDIR/src" "$TEST_TMP/two"
printf '/* x */ static const char *jk_twice = "\\"ticks_per_column\\":";\n' >> "$TEST_TMP/two/json.c"
out=$(keys "$TEST_TMP/two")
check "a key written in a second file (ticks_per_column in json.c) fails the check: $(echo "$out" | grep -c '^FAIL')" \
    grep -q '^FAIL: jsonkeys: no key in two files of src/ (in more: ticks_per_column)$' <<<"$out"

# A scratch copy with a macro of json-key.h that no .c file names.
cp -r "$BLKTOP_SRCDIR/src" "$TEST_TMP/lone"
sed -i 's|^#define JK_RULE.*|&\n#define JK_UNUSED\t"unused_key"|' "$TEST_TMP/lone/json-key.h"
out=$(keys "$TEST_TMP/lone")
check "a key of json-key.h that no .c file names fails the check" \
    grep -q '^FAIL: jsonkeys: every key of json-key.h.*JK_UNUSED (none)' <<<"$out"
