#!/bin/bash
# vfs.sh: the open/read/write programs alone, every syscall hook variant, against iowork.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
IOWORK=$BLKTOP_BUILDDIR/tests/workload/iowork "$BLKTOP_BUILDDIR/tests/integration/test-vfs"
st=$?
[ "$st" = 0 ] || [ "$st" = 77 ] || fail "test-vfs exited with status $st"
