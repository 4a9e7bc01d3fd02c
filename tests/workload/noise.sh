#!/bin/bash
# noise.sh [SECS]: the load another developer's tests put beside a test (issue
# 41): a fio job of random direct 4k reads and writes on a loop device of its
# own, an fsync loop on an ext4 on that device, and a CPU hog. Runs SECS
# seconds (default: until SIGINT/SIGTERM), then stops what it started, by pid,
# and detaches its own device on every path. Run a test beside it to see that
# the test takes as its own only the processes and devices it made.
# Needs root, fio, losetup, mkfs.ext4.
set -u
secs=${1:-0}
IMG=/dev/shm/blktop-noise-$$.img
MNT=$(mktemp -d /tmp/blktop-noise-XXXXXX)
LOOP= PIDS=

cleanup() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -f "$IMG"
	rmdir "$MNT" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 0' INT TERM HUP

truncate -s 256M "$IMG" || exit 1
LOOP=$(losetup -f --show "$IMG") || { LOOP=; exit 1; }
mkfs.ext4 -q -F "$LOOP" || exit 1
mount "$LOOP" "$MNT" || exit 1
echo "noise: $LOOP on $MNT, pid $$" >&2

# fio: a job that runs until it is stopped (the same program name tests count).
fio --name=noise --filename="$MNT/fio" --size=64M --bs=4k --rw=randrw --direct=1 \
    --ioengine=libaio --iodepth=8 --time_based --runtime=100000 --output=/dev/null &
PIDS="$PIDS $!"
# fsync loop: small writes, each made durable (journal commits, flushes).
sh -c 'i=0; while :; do echo $i >"$1/sync.$((i % 8))"; sync "$1/sync.$((i % 8))" 2>/dev/null ||
    python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY); os.fsync(fd)" "$1/sync.$((i % 8))";
    i=$((i + 1)); done' sh "$MNT" &
PIDS="$PIDS $!"
# CPU hog: one of the machine's cores.
sh -c 'while :; do :; done' &
PIDS="$PIDS $!"

if [ "$secs" -gt 0 ]; then
	sleep "$secs"
else
	while :; do sleep 1; done
fi
