#!/bin/bash
# boot.sh: boot a Debian kernel under QEMU with blktop inside, run a command or the checks.
#
# usage: tests/kernels/boot.sh SUITE [-- CMD [ARG...]]
#   SUITE   bullseye (5.10) | bookworm (6.1) | trixie (6.12) | sid (newest)
#   CMD     run in the guest, as root, by /bin/sh (busybox), cwd /out; its
#           output is on the console, which is this script's stdout. Each
#           argument is quoted: for pipes and redirections pass one
#           `sh -c '...'`. Without CMD: the matrix's checks (guest.sh collects,
#           check.py judges), printing PASS:/FAIL: lines naming the kernel.
# Exits with the command's status in the guest (with the checks: 0 when none
# failed), 124 if the guest did not end in time, 125 if it never ran.
#
# Environment:
#   BLKTOP_BUILDDIR      the blktop build to test (default ./build of this tree);
#                        its blktop, and tests/integration/test-vfs when built
#   BLKTOP_KERNEL_OUT    where a boot's files go (default $BLKTOP_BUILDDIR/kernels/SUITE):
#                        console.log (the whole serial console) and out/ (the
#                        guest's /out, every file CMD wrote there)
#   BLKTOP_KERNEL_TIMEOUT  seconds before the guest is killed (default 600: sid
#                        with a --enable-debug blktop took 263 s beside other guests)
#   BLKTOP_KERNEL_ACCEL  tcg (default) or kvm (here KVM hangs guests: TCG always)
#   BLKTOP_KERNEL_CACHE  the kernels' cache (default /var/cache/blktop-kernels)
#   BLKTOP_GUEST_FILES   more host files for the guest's /extra/ (initramfs.sh)
# The kernel is fetched first if it is not cached (fetch.sh).
set -u
SUITE=${1:-}
case "$SUITE" in
bullseye|bookworm|trixie|sid) shift ;;
*)	echo "usage: boot.sh bullseye|bookworm|trixie|sid [-- CMD [ARG...]]" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then
	[ "$1" = -- ] || { echo "boot.sh: CMD must follow --" >&2; exit 2; }
	shift
fi
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
export BLKTOP_BUILDDIR=${BLKTOP_BUILDDIR:-$SRC/build}
BLKTOP_BUILDDIR=$(cd "$BLKTOP_BUILDDIR" 2>/dev/null && pwd) || {
	echo "FAIL: kernel $SUITE: boot: no build directory ${BLKTOP_BUILDDIR}"; exit 125; }
CACHE=${BLKTOP_KERNEL_CACHE:-/var/cache/blktop-kernels}
C=$CACHE/$SUITE
OUT=${BLKTOP_KERNEL_OUT:-$BLKTOP_BUILDDIR/kernels/$SUITE}
LIMIT=${BLKTOP_KERNEL_TIMEOUT:-600}
ACCEL=${BLKTOP_KERNEL_ACCEL:-tcg}
checks=0
[ $# = 0 ] && checks=1

TMP=$(mktemp -d /tmp/blktop-boot-XXXXXX) || exit 125
qpid=
# QEMU runs in the background so that a signal reaches this trap at once: the
# guest is stopped with this script, not left to its timeout.
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP
t0=$(date +%s)

# The kernel's name in result lines: the suite and its version (5.10.223).
kname() {
	local v
	v=$(sed -n 's/^linux-image-cloud-amd64=\([0-9.]*\).*/\1/p' "$C/packages" 2>/dev/null)
	echo "$SUITE ${v:-?}"
}

"$HERE/fetch.sh" "$SUITE" >"$TMP/fetch" || { cat "$TMP/fetch"; exit 125; }
[ "$checks" = 1 ] && cat "$TMP/fetch"
K=$(kname)
if ! "$HERE/initramfs.sh" "$SUITE" "$TMP/initrd.cpio" 2>"$TMP/initramfs.err"; then
	echo "FAIL: kernel $K: initramfs: $(tail -1 "$TMP/initramfs.err")"
	exit 125
fi

# The command: one archive with /cmd.sh, after the others. The sanitizers'
# options go along (a --enable-debug blktop: tests/run sets detect_leaks=0).
mkdir -p "$TMP/cmd"
for v in ASAN_OPTIONS UBSAN_OPTIONS BLKTOP_DEBUG BLKTOP_GUEST_START; do
	[ -n "${!v:-}" ] && printf "export %s='%s'\n" "$v" "$(printf '%s' "${!v}" | sed "s/'/'\\\\''/g")"
done >"$TMP/cmd/cmd.sh"
if [ "$checks" = 1 ]; then
	echo 'exec sh /guest/guest.sh' >>"$TMP/cmd/cmd.sh"
else
	{
		printf 'exec 2>&1\n'
		for a in "$@"; do
			printf "'%s' " "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"
		done
		printf '\n'
	} >>"$TMP/cmd/cmd.sh"
fi
(cd "$TMP/cmd" && echo cmd.sh | cpio -o -H newc --quiet) >>"$TMP/initrd.cpio"

rm -rf "$OUT"
mkdir -p "$OUT/out" || { echo "FAIL: kernel $K: boot: cannot create $OUT"; exit 125; }
t1=$(date +%s)
accel=(-accel tcg -cpu max)
[ "$ACCEL" = kvm ] && accel=(-accel kvm -cpu host)
# stdin is /dev/null: nothing is typed into the guest, and a shell's
# terminal is left alone. -no-reboot with panic=-1: a panic ends QEMU.
QEMU=(qemu-system-x86_64 "${accel[@]}" -m 2048 -smp 2 -no-reboot -display none
	-monitor none -serial stdio -serial "file:$TMP/ttyS1" -net none
	-kernel "$C/vmlinuz" -initrd "$TMP/initrd.cpio"
	-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 mitigations=off")
: >"$OUT/console.log"
timeout -k 10 "$LIMIT" "${QEMU[@]}" </dev/null >>"$OUT/console.log" 2>&1 &
qpid=$!
tpid=
if [ "$checks" = 0 ]; then	# the console live on stdout, to its last line
	tail -n +1 -f --pid="$qpid" "$OUT/console.log" &
	tpid=$!
fi
wait "$qpid"
qst=$?
qpid=
[ -n "$tpid" ] && wait "$tpid"
t2=$(date +%s)

# /out of the guest, back through the second serial port.
tr -d '\r' <"$TMP/ttyS1" | sed -n '/^BLKTOP-OUT-BEGIN$/,/^BLKTOP-OUT-END$/p' |
    sed '1d;$d' >"$TMP/out.b64"
if [ -s "$TMP/out.b64" ]; then
	base64 -d <"$TMP/out.b64" | tar -C "$OUT/out" -xzf - 2>"$TMP/tar.err" ||
	    echo "boot.sh: the guest's /out came back damaged: $(head -1 "$TMP/tar.err")" >&2
fi
status=$(tr -d '\r' <"$OUT/console.log" | sed -n 's/^BLKTOP-GUEST-STATUS=\([0-9]*\)$/\1/p' | tail -1)
why=
if [ "$qst" = 124 ] || [ "$qst" = 137 ]; then
	why="no end within ${LIMIT}s (hung?)"
elif grep -q 'Kernel panic' "$OUT/console.log"; then
	why="kernel panic"
elif [ -z "$status" ]; then
	why="qemu exited $qst before the guest said its status"
fi
timing="boot+run $((t2 - t1))s, fetch+initramfs $((t1 - t0))s"
if [ -n "$why" ]; then
	echo "FAIL: kernel $K: boot: $why ($timing); last console lines:"
	# A panic's own line first: its register dump fills the tail.
	tr -d '\r' <"$OUT/console.log" | grep -m 3 -E 'Kernel panic|BUG:|Oops|panic' | sed 's/^/    /'
	echo "    ..."
	tr -d '\r' <"$OUT/console.log" | tail -n 20 | sed 's/^/    /'
	exit "$([ "$qst" = 124 ] || [ "$qst" = 137 ] && echo 124 || echo 125)"
fi
if [ "$checks" = 0 ]; then
	echo "boot.sh: $K: guest status $status ($timing); console in $OUT/console.log, /out in $OUT/out" >&2
	exit "$status"
fi
python3 "$HERE/check.py" "$OUT/out" --kernel "$K" --suite "$SUITE" --console "$OUT/console.log"
st=$?
echo "kernel $K: checks took $((t2 - t1))s in the guest (fetch+initramfs $((t1 - t0))s)"
exit "$st"
