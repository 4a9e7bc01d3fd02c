#!/bin/bash
# initramfs.sh: the initramfs the kernel matrix boots, from this machine's own binaries.
#
# usage: tests/kernels/initramfs.sh SUITE OUT.cpio
#
# OUT.cpio is two newc cpio archives, one after the other (the kernel unpacks
# both, the later entries over the earlier):
#  1. the base, cached per suite in $BLKTOP_KERNEL_CACHE/SUITE/initramfs-base.cpio
#     and rebuilt when an input changed: busybox-static (a link per applet), fio
#     and mkfs.ext4 with their shared libraries and the dynamic loader (as ldd
#     says), the workloads compiled statically from this tree
#     (tests/workload/iowork.c, lifecycle.c, xferwork.c, tests/kernels/kwork.c), the suite
#     kernel's modules for a loop device (decompressed on the host, their
#     dependencies from the host's depmod run on the cached tree, loaded in
#     order by /init with insmod), and /init;
#  2. the part under test: $BLKTOP_BUILDDIR/blktop (default ./build/blktop) and
#     its libraries as /usr/bin/blktop, $BLKTOP_BUILDDIR/tests/integration/test-vfs
#     when built, tests/kernels/guest.sh, and any files named in
#     $BLKTOP_GUEST_FILES (space-separated host paths, copied to /extra/ with
#     their libraries).
# boot.sh appends a third, /cmd.sh, the command to run.
#
# /init mounts proc, sysfs, devtmpfs, tmpfs on /dev/shm and /tmp, tracefs on
# /sys/kernel/tracing, debugfs, bpffs and cgroup2; keeps kernel messages off
# the console; loads the modules; runs /cmd.sh with its output on the console
# (ttyS0), prints "BLKTOP-GUEST-STATUS=N"; sends /out as a base64 tar.gz
# between BLKTOP-OUT-BEGIN and BLKTOP-OUT-END on the second serial port
# (ttyS1); then poweroff -f.
set -u
SUITE=${1:-}
OUT=${2:-}
[ -n "$SUITE" ] && [ -n "$OUT" ] || { echo "usage: initramfs.sh SUITE OUT.cpio" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BLKTOP_BUILDDIR:-$SRC/build}
C=${BLKTOP_KERNEL_CACHE:-/var/cache/blktop-kernels}/$SUITE
err() { echo "initramfs: $SUITE: $*" >&2; exit 1; }

[ -s "$C/release" ] || err "no kernel fetched in $C (tests/kernels/fetch.sh $SUITE)"
REL=$(cat "$C/release")
[ -x "$BUILD/blktop" ] || err "no blktop in $BUILD (./setup.sh build, or set BLKTOP_BUILDDIR)"
for t in busybox fio mke2fs cpio depmod modprobe; do
	command -v "$t" >/dev/null || [ -x "/sbin/$t" ] || [ -x "/usr/sbin/$t" ] ||
	    err "needs $t on this machine"
done
PATH=$PATH:/sbin:/usr/sbin
BUSYBOX=$(command -v busybox)
ldd "$BUSYBOX" >/dev/null 2>&1 && err "$BUSYBOX is dynamically linked: install busybox-static"

TMP=$(mktemp -d /tmp/blktop-initramfs-XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP

# put STAGE SRC DEST: copy a file (following links) to STAGE/DEST. What was at
# DEST goes first: an applet's link there points at the HOST's /bin/busybox,
# and cp would write through it.
put() {
	mkdir -p "$1/$(dirname "$3")" && rm -f "$1/$3" && cp -L "$2" "$1/$3"
}
# put_elf STAGE SRC DEST: an executable and every shared library ldd names.
put_elf() {
	local stage=$1 lib
	put "$stage" "$2" "$3" || return 1
	chmod 755 "$stage/$3"
	for lib in $(ldd "$2" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'); do
		[ -e "$stage$lib" ] || put "$stage" "$lib" "$lib" || return 1
	done
}

# ---- 1. the base
BASE=$C/initramfs-base.cpio
inputs() {
	local f
	for f in "$BUSYBOX" "$(command -v fio)" "$(command -v mke2fs)" /etc/mke2fs.conf \
	    "$SRC/tests/kernels/initramfs.sh" "$SRC/tests/workload/iowork.c" \
	    "$SRC/tests/workload/lifecycle.c" "$SRC/tests/workload/xferwork.c" \
	    "$SRC/tests/kernels/kwork.c" "$C/release" "$C/config"; do
		stat -L -c '%n %s %Y' "$f"
	done
	ldd "$(command -v fio)" "$(command -v mke2fs)" | awk '/=> \// { print $3 }' | sort -u |
	    xargs stat -L -c '%n %s %Y'
}
exec 8>"$C/.initramfs.lock"
flock -w 600 8 || err "another build held $C/.initramfs.lock for 10 minutes"
if [ ! -s "$BASE" ] || ! inputs 2>/dev/null | cmp -s - "$BASE.inputs"; then
	S=$TMP/base
	mkdir -p "$S"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib64,etc,proc,sys,dev,tmp,mnt,out,root,run,var/tmp}
	mknod -m 600 "$S/dev/console" c 5 1 && mknod -m 666 "$S/dev/null" c 1 3 ||
	    err "mknod (needs root)"
	cp "$BUSYBOX" "$S/bin/busybox"
	put_elf "$S" "$(command -v fio)" usr/bin/fio || err "copy fio"
	put_elf "$S" "$(command -v mke2fs)" sbin/mke2fs || err "copy mke2fs"
	ln -sf mke2fs "$S/sbin/mkfs.ext4"
	cp /etc/mke2fs.conf "$S/etc/"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$S/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$S/etc/group"
	for w in tests/workload/iowork tests/workload/lifecycle tests/workload/xferwork \
	    tests/kernels/kwork; do
		${CC:-cc} -O2 -static -Wall -o "$S/usr/local/bin/$(basename "$w")" "$SRC/$w.c" 2>"$TMP/cc.err" ||
		    err "cc -static $w.c: $(head -3 "$TMP/cc.err")"
	done

	# Modules: depmod on the cached tree (once), then the insmod order of each.
	R=$C/root
	[ -e "$R/lib" ] || ln -s usr/lib "$R/lib"
	[ "$C/modules/modules.dep" -nt "$C/release" ] 2>/dev/null ||
	    depmod -b "$R" "$REL" 2>"$TMP/depmod.err" || err "depmod: $(head -2 "$TMP/depmod.err")"
	mkdir -p "$S/lib/modules/$REL"
	: >"$S/etc/modules.load"
	for m in ${BLKTOP_KERNEL_MODULES:-loop}; do
		modprobe -d "$R" -S "$REL" --show-depends "$m" >"$TMP/dep" 2>"$TMP/dep.err" ||
		    err "module $m: $(head -1 "$TMP/dep.err")"
		while read -r kind path _; do
			[ "$kind" = insmod ] || continue	# "builtin NAME": in the kernel
			name=$(basename "$path")
			name=${name%.xz}
			name=${name%.zst}
			name=${name%.gz}
			grep -qx "$name" "$S/etc/modules.load" && continue
			case "$path" in
			*.xz)	xz -dc "$path" >"$S/lib/modules/$REL/$name" ;;
			*.zst)	zstd -qdc "$path" >"$S/lib/modules/$REL/$name" ;;
			*.gz)	gzip -dc "$path" >"$S/lib/modules/$REL/$name" ;;
			*)	cp "$path" "$S/lib/modules/$REL/$name" ;;
			esac || err "decompress $path"
			echo "$name" >>"$S/etc/modules.load"
		done <"$TMP/dep"
	done
	echo "$REL" >"$S/etc/kernel-release"

	# The applets last, each a link where no real program is: links that
	# resolve only inside the guest.
	for a in $("$BUSYBOX" --list-full); do
		[ -e "$S/$a" ] || [ -L "$S/$a" ] || ln -s /bin/busybox "$S/$a"
	done

	cat >"$S/init" <<'EOF'
#!/bin/sh
# /init of the blktop kernel matrix (tests/kernels/initramfs.sh).
export PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /out
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
[ -e /sys/kernel/tracing/trace ] || mount -t tracefs tracefs /sys/kernel/debug/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# On the console, the command's output and the kernel's warnings and worse
# (an oops and its call trace, a WARN, a panic); the rest to the log only.
echo 5 >/proc/sys/kernel/printk
hostname blktop-guest
rel=$(cat /etc/kernel-release)
while read -r m; do
	insmod "/lib/modules/$rel/$m" || echo "init: insmod $m failed"
done </etc/modules.load
echo "BLKTOP-GUEST-START $(uname -r)"
st=0
if [ -f /cmd.sh ]; then
	cd /out && sh /cmd.sh </dev/null
	st=$?
fi
cd /
echo "BLKTOP-GUEST-STATUS=$st"
# /out back to the host on the second serial port.
if [ -c /dev/ttyS1 ]; then
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	{
		echo "BLKTOP-OUT-BEGIN"
		tar -C /out -czf - . | base64
		echo "BLKTOP-OUT-END"
	} >/dev/ttyS1
fi
sync
poweroff -f
EOF
	chmod 755 "$S/init"
	(cd "$S" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$BASE.tmp" || err "cpio of the base"
	mv "$BASE.tmp" "$BASE"
	inputs >"$BASE.inputs" 2>/dev/null
fi
flock -u 8

# ---- 2. blktop and the guest scripts
S=$TMP/top
mkdir -p "$S/usr/bin" "$S/guest" "$S/extra"
put_elf "$S" "$BUILD/blktop" usr/bin/blktop || err "copy $BUILD/blktop"
if [ -x "$BUILD/tests/integration/test-vfs" ]; then
	put_elf "$S" "$BUILD/tests/integration/test-vfs" usr/local/bin/test-vfs || err "copy test-vfs"
fi
cp "$SRC/tests/kernels/guest.sh" "$S/guest/" 2>/dev/null
for f in ${BLKTOP_GUEST_FILES:-}; do
	[ -e "$f" ] || err "BLKTOP_GUEST_FILES: no $f"
	if [ "$(head -c 4 "$f" | tail -c 3)" = ELF ]; then
		put_elf "$S" "$f" "extra/$(basename "$f")"
	else
		put "$S" "$f" "extra/$(basename "$f")"
	fi || err "copy $f"
done
(cd "$S" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$TMP/top.cpio" || err "cpio of blktop"
cat "$BASE" "$TMP/top.cpio" >"$OUT" || err "write $OUT"
