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

# first_include H: the file H's first #include names, or "-" if anything but
# comments and its include guard comes before it.
first_include() {
	awk '/^#include/ { match($0, /"[^"]*"|<[^>]*>/); print substr($0, RSTART + 1, RLENGTH - 2); exit }
	    /^[[:space:]]*($|\/\*|\*|\/\/)/ || /^#(ifndef|define) [A-Z0-9_]+_H$/ { next }
	    { print "-"; exit }' "$1"
}
# vmlinux_first H: H includes vmlinux.h before anything else, through its
# first #include and that one's (vfs-defs.h's is vmlinux.h).
vmlinux_first() {
	local f=$1 n
	for n in 1 2 3 4 5 6 7 8 9 10; do
		f=$(first_include "$f")
		[ "$f" = vmlinux.h ] && return 0
		f=$BLKTOP_SRCDIR/bpf/$f
		[ -f "$f" ] || return 1
	done
	return 1
}
# vmlinux.h (135k lines) is parsed once a build, into a precompiled header
# that each compile includes first (32 parses of it were 11 s of CPU). Alone,
# each header includes it first too (checked here), so both compile alike.
late=""
for h in "$BLKTOP_SRCDIR"/bpf/vfs-*.h; do
	vmlinux_first "$h" || late="$late $(basename "$h")"
done
check "every bpf/vfs-*.h includes vmlinux.h before anything else (not:${late:- none})" [ -z "$late" ]
for v in main compat; do
	bad=""
	flags=(-g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_"$arch" -Wall -Wno-unused-function
	    -I"$BLKTOP_BUILDDIR/bpf" -I"$BLKTOP_SRCDIR/bpf")
	[ "$v" = compat ] && flags+=(-DBLKTOP_COMPAT)
	pch=()
	"$clang" "${flags[@]}" -x c-header "$BLKTOP_BUILDDIR/bpf/vmlinux.h" -o "$TEST_TMP/$v.pch" \
	    >"$TEST_TMP/err" 2>&1 && pch=(-include-pch "$TEST_TMP/$v.pch")
	for h in "$BLKTOP_SRCDIR"/bpf/vfs-*.h; do
		echo "#include \"$(basename "$h")\"" | "$clang" "${flags[@]}" "${pch[@]}" \
		    -x c -fsyntax-only - >"$TEST_TMP/err" 2>&1 || bad="$bad $(basename "$h")"
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
