#!/bin/bash
# jsonkeys.sh: each JSON key literal of -J, --report and --dump is written in
# one .c file of src/ (issue 43, "One field, one row"), but for the members of
# different objects that share a common word, each listed with why in
# tests/golden/json-keys.py (which says what a key literal is). Fails on a
# key in two files that is not listed, and on a listed one that no longer is.
# Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"

(cd "$BLKTOP_SRCDIR" && python3 tests/golden/json-keys.py --check) ||
    fail "json-keys.py ran to its end"
