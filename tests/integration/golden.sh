#!/bin/bash
# golden.sh: -b, -J, --report (HTML and JSON) and --dump of the committed
# captures and logs, byte for byte as tests/golden/expected has them
# (tests/golden/run.sh; its cases in tests/golden/cases). Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"
BLKTOP="$BLKTOP" bash "$BLKTOP_SRCDIR/tests/golden/run.sh"
