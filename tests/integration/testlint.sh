#!/bin/bash
# testlint.sh: the tests themselves. A `check NAME [ A ] && B` judges [ A ] alone (B's status is
# lost): every compound test goes through check_status (tests/lib.sh). Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"

# The linter finds what it must: a check that runs on past && (the form 15 checks had).
printf 'check "x" [ 1 = 1 ] &&\n    grep -q y z\ncheck "ok" [ 1 = 1 ]\n' > "$TEST_TMP/bad.sh"
mkdir -p "$TEST_TMP/src/tests/integration"
cp "$TEST_TMP/bad.sh" "$TEST_TMP/src/tests/integration/bad.sh"
found=$(python3 "$BLKTOP_SRCDIR/tests/integration/testlint.py" "$TEST_TMP/src")
check "the linter finds a check run on past && (${found:-none})" [ "$found" = tests/integration/bad.sh:1 ]
found=$(python3 "$BLKTOP_SRCDIR/tests/integration/testlint.py" "$BLKTOP_SRCDIR" | tr "\n" " ")
check "no check of tests/ runs on past && or || (${found:-none})" [ -z "${found// }" ]
