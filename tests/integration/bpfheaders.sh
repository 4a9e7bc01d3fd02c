#!/bin/bash
# bpfheaders.sh: each bpf/vfs-*.h is self-contained (issue 43): it compiles
# alone, in the main and the compat build, with the build's own clang and
# flags, and vfs.bpf.c holds only the includes and what no header owns.
# Needs no root.
. "$BLKTOP_SRCDIR/tests/lib.sh"

clang=$(sed -n 's/^BPF_CLANG = //p' "$BLKTOP_BUILDDIR/Makefile")
arch=$(sed -n 's/^BPF_ARCH = //p' "$BLKTOP_BUILDDIR/Makefile")
check "the build's BPF clang ($clang) and vmlinux.h are there" \
    [ -x "$clang" -a -s "$BLKTOP_BUILDDIR/bpf/vmlinux.h" ]
for v in main compat; do
	bad=""
	def=""
	[ "$v" = compat ] && def=-DBLKTOP_COMPAT
	for h in "$BLKTOP_SRCDIR"/bpf/vfs-*.h; do
		echo "#include \"$(basename "$h")\"" | "$clang" -g -O2 -target bpf -mcpu=v3 \
		    -D__TARGET_ARCH_"$arch" -Wall -Wno-unused-function $def \
		    -I"$BLKTOP_BUILDDIR/bpf" -I"$BLKTOP_SRCDIR/bpf" -x c -fsyntax-only - \
		    >"$TEST_TMP/err" 2>&1 || bad="$bad $(basename "$h")"
	done
	n=$(ls "$BLKTOP_SRCDIR"/bpf/vfs-*.h | wc -l)
	check "$v build: each of the $n bpf/vfs-*.h compiles alone (failed:${bad:- none})" [ -z "$bad" ]
done
# A header that needs another's definitions without including it fails above;
# one that is never included at all would not: vfs.bpf.c reaches every one.
missing=""
for h in "$BLKTOP_SRCDIR"/bpf/vfs-*.h; do
	grep -q "^#include \"$(basename "$h")\"" "$BLKTOP_SRCDIR"/bpf/vfs.bpf.c "$BLKTOP_SRCDIR"/bpf/vfs-*.h ||
	    missing="$missing $(basename "$h")"
done
check "every bpf/vfs-*.h is included by vfs.bpf.c or another (not:${missing:- none})" [ -z "$missing" ]
n=$(wc -l < "$BLKTOP_SRCDIR/bpf/vfs.bpf.c")
check "bpf/vfs.bpf.c is its includes and the batch flush ($n lines, <= 100)" [ "$n" -le 100 ]
