#!/bin/bash
# run.sh: the kernel matrix: each suite's kernel booted with the checks, then the table.
#
# usage: tests/kernels/run.sh [SUITE...]     (default: bullseye bookworm trixie sid)
#
# For each suite, boot.sh SUITE (fetch, initramfs, QEMU, guest.sh, check.py),
# its PASS:/FAIL: lines as they come, and its time. Then matrix.py writes
# $BLKTOP_BUILDDIR/kernels/matrix.md and compares it with doc/kernels.md (one
# PASS or FAIL line). Ends with "kernels: N passed, N failed" and a line per
# kernel; exits 1 if any check failed. Environment as for boot.sh
# (BLKTOP_BUILDDIR, BLKTOP_KERNEL_TIMEOUT, BLKTOP_KERNEL_CACHE...).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
export BLKTOP_BUILDDIR=${BLKTOP_BUILDDIR:-$SRC/build}
suites=${*:-bullseye bookworm trixie sid}
K=$BLKTOP_BUILDDIR/kernels
mkdir -p "$K"
log=$(mktemp /tmp/blktop-kernels-XXXXXX)
all=$(mktemp /tmp/blktop-kernels-all-XXXXXX)
trap 'rm -f "$log" "$all"' EXIT
trap 'exit 130' INT TERM HUP
start=$(date +%s)
summary=()
results=()
for s in $suites; do
	t=$(date +%s)
	rm -f "$K/$s/results.json"
	# Its lines go out once its last boot is done: a first boot that panicked
	# or hung is said only as NOTE lines, never counted.
	BLKTOP_KERNEL_OUT=$K/$s "$HERE/boot.sh" "$s" >"$log" 2>&1
	# A guest kernel that panicked or hung is booted once more, its failure
	# kept as NOTE lines and its console beside the new one (the oops is on
	# the console: initramfs.sh shows warnings). Both at the same point, the
	# stress run's blktop loading as the files run's programs were freed,
	# under TCG: sid 7.2.13 panicked once in CI, ~90 s in, and not in 5 runs
	# here; 5.10 hung once in 6 runs (RCU stalls and soft lockups, both vCPUs
	# in syscall_exit_to_user_mode, blktop in perf_event_open). A second
	# panic or hang fails.
	if grep -qE "^FAIL: kernel .*: boot: (kernel panic|no end within)" "$log"; then
		sed 's/^FAIL: /NOTE: panicked or hung, booted again: /' "$log" | grep -E '^(NOTE|    )'
		rm -f "$K/$s/results.json"
		mv "$K/$s/console.log" "$K/$s-failed.console.log" 2>/dev/null
		BLKTOP_KERNEL_OUT=$K/$s "$HERE/boot.sh" "$s" >"$log" 2>&1
	fi
	cat "$log"
	cat "$log" >>"$all"
	p=$(grep -c '^PASS:' "$log")
	f=$(grep -c '^FAIL:' "$log")
	summary+=("kernel $s: $p passed, $f failed ($(( $(date +%s) - t ))s)")
	[ -s "$K/$s/results.json" ] && results+=("$K/$s/results.json")
done
python3 "$HERE/matrix.py" --out "$K/matrix.md" --check "$SRC/doc/kernels.md" \
    "${results[@]}" | tee -a "$all"
echo "--- kernel matrix: $K/matrix.md ($(( $(date +%s) - start ))s in all)"
printf '%s\n' "${summary[@]}"
p=$(grep -c '^PASS:' "$all")
f=$(grep -c '^FAIL:' "$all")
echo "kernels: $p passed, $f failed"
[ "$f" = 0 ]
