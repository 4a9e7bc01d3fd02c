#!/bin/bash
# lifecycle-logs.sh OUTDIR: real bpftrace logs of a known file lifecycle.
#
# Runs the tracepoint-only scripts of tests/fixtures/bpftrace (openat, mmap,
# create_del, close, time_align, vfs_rw, bio) around one run of
# tests/workload/btlifecycle on a fresh ext4 (no journal) on a loop device
# backed by a file in /dev/shm, and writes OUTDIR/{openat,mmap,create_del,
# close,time_align,vfs_rw,bio}.log. The workload is started first and waits
# for SIGUSR1, so its loader's opens and maps are not traced; the scripts
# filter on comm == "btlifecycle" (bio.bt on the loop device). The counts
# are then checked against tests/fixtures/bpftrace/README; a mismatch exits 1.
#
# Needs root, bpftrace, cc, losetup, mkfs.ext4. Exits 2 if one is missing.
# BTLIFECYCLE=path uses a built workload (its name must stay btlifecycle);
# otherwise it is compiled with ${CC:-cc} into a scratch directory.
# BLKTOP_CAPTURE=PATH (with BLKTOP=the binary) also records the same run live:
# `$BLKTOP -J -d 1 -c btlifecycle -D LOOPDEV -w PATH` is started before the
# scripts (its reports go to PATH.jsonl, its stderr to PATH.err) and stopped
# with SIGINT with them, after the workload.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
BT_DIR=${BT_DIR:-$HERE/../fixtures/bpftrace}
SCRIPTS="openat mmap create_del close time_align vfs_rw bio"
NFILES=5

die() { echo "lifecycle-logs: $*" >&2; exit 1; }
missing() { echo "lifecycle-logs: $*" >&2; exit 2; }

[ $# -eq 1 ] || { echo "usage: lifecycle-logs.sh OUTDIR" >&2; exit 2; }
OUT=$1
command -v bpftrace >/dev/null 2>&1 ||
	missing "bpftrace is not installed (apt-get install bpftrace); cannot make the logs"
[ "$(id -u)" -eq 0 ] || missing "needs root (bpftrace, losetup, mount)"
for c in losetup mkfs.ext4 mount umount truncate blockdev; do
	command -v $c >/dev/null 2>&1 || missing "$c is not installed"
done
for s in $SCRIPTS; do
	[ -r "$BT_DIR/$s.bt" ] || missing "no $BT_DIR/$s.bt"
done
if [ -n "${BLKTOP_CAPTURE:-}" ]; then
	[ -x "${BLKTOP:-}" ] || missing "BLKTOP_CAPTURE needs BLKTOP=the blktop binary"
	[ -e "$BLKTOP_CAPTURE" ] && die "$BLKTOP_CAPTURE exists"
fi
mkdir -p "$OUT" || die "cannot make $OUT"

TMP= IMG= LOOP= MNT= WPID= BLKPID=
BTPIDS=()
cleanup() {
	local p
	for p in "${BTPIDS[@]}" $BLKPID; do
		kill -INT "$p" 2>/dev/null
	done
	for p in "${BTPIDS[@]}"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	BTPIDS=()
	if [ -n "$BLKPID" ]; then
		for _ in $(seq 100); do kill -0 "$BLKPID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$BLKPID" 2>/dev/null
		wait "$BLKPID" 2>/dev/null
	fi
	if [ -n "$WPID" ]; then
		kill -KILL "$WPID" 2>/dev/null
		wait "$WPID" 2>/dev/null
	fi
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then
		umount "$MNT" || umount -l "$MNT"
	fi
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	[ -n "$IMG" ] && rm -f "$IMG"
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

TMP=$(mktemp -d /tmp/btlogs.XXXXXX) || die "mktemp failed"
MNT=$TMP/mnt
mkdir -p "$MNT" "$TMP/raw"

# The workload, named btlifecycle so comm matches the scripts' filter.
if [ -n "${BTLIFECYCLE:-}" ]; then
	[ "$(basename "$BTLIFECYCLE")" = btlifecycle ] || die "BTLIFECYCLE must be named btlifecycle"
	WORK=$BTLIFECYCLE
else
	command -v "${CC:-cc}" >/dev/null 2>&1 || missing "no C compiler (${CC:-cc})"
	WORK=$TMP/btlifecycle
	"${CC:-cc}" -O2 -Wall -o "$WORK" "$HERE/btlifecycle.c" || die "cannot compile btlifecycle.c"
fi

# Classic tracepoints need tracefs (blktop mounts it the same way, and leaves it).
if [ ! -d /sys/kernel/tracing/events/syscalls ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events/syscalls ] ||
		missing "no /sys/kernel/tracing/events/syscalls (tracefs, CONFIG_FTRACE_SYSCALLS)"
fi

IMG=/dev/shm/btlogs-$$.img
truncate -s 64M "$IMG" || die "cannot make $IMG"
LOOP=$(losetup -f --show "$IMG") || { LOOP=; die "losetup failed"; }
mkfs.ext4 -q -F -b 1024 -O ^has_journal -E lazy_itable_init=0 "$LOOP" || die "mkfs.ext4 $LOOP failed"
mount -o no_prefetch_block_bitmaps "$LOOP" "$MNT" || die "mount $LOOP failed"
DISK=$(basename "$LOOP")
DEV=$(( (16#$(stat -c %t "$LOOP") << 20) | 16#$(stat -c %T "$LOOP") ))

"$WORK" "$MNT" >"$TMP/work.out" 2>"$TMP/work.err" &
WPID=$!
for _ in $(seq 100); do grep -q ready "$TMP/work.out" && break; sleep 0.1; done
grep -q ready "$TMP/work.out" || die "btlifecycle did not start: $(cat "$TMP/work.err")"

# The workload's metadata reads are those of blocks not in the loop device's
# page cache when it starts. Mount's inode table readahead leaves 3 blocks
# there, and an `echo 3 > drop_caches` anywhere on the machine (tests that do
# it may run alongside) in the seconds the scripts take to start evicted them
# in 1 run of 5: 3 reads more. Start from an empty cache instead: nothing
# reads the file system until the signal, so it stays empty.
blockdev --flushbufs "$LOOP" || die "blockdev --flushbufs $LOOP failed"

# blktop, live, attached once it printed its first report.
if [ -n "${BLKTOP_CAPTURE:-}" ]; then
	"$BLKTOP" -J -d 1 -c btlifecycle -D "$DISK" -w "$BLKTOP_CAPTURE" \
	    >"$BLKTOP_CAPTURE.jsonl" 2>"$BLKTOP_CAPTURE.err" &
	BLKPID=$!
	for _ in $(seq 200); do [ -s "$BLKTOP_CAPTURE.jsonl" ] && break; sleep 0.1; done
	[ -s "$BLKTOP_CAPTURE.jsonl" ] ||
		die "blktop did not start: $(head -5 "$BLKTOP_CAPTURE.err")"
fi

# Start every script; each is ready once BEGIN printed its headers (after attaching).
for s in $SCRIPTS; do
	args=()
	[ "$s" = bio ] && args=("$DEV" "$DISK")
	bpftrace -B line "$BT_DIR/$s.bt" "${args[@]}" >"$TMP/raw/$s.log" 2>"$TMP/raw/$s.err" &
	BTPIDS+=($!)
done
for s in $SCRIPTS; do
	want=1
	[ "$s" = mmap ] && want=2
	for _ in $(seq 600); do
		[ "$(grep -c TIMESTAMP "$TMP/raw/$s.log")" -ge $want ] && break
		sleep 0.1
	done
	[ "$(grep -c TIMESTAMP "$TMP/raw/$s.log")" -ge $want ] ||
		die "$s.bt did not start: $(grep -v RLIMIT_MEMLOCK "$TMP/raw/$s.err" | head -5)"
done
sleep 0.3

kill -USR1 "$WPID"
wait "$WPID"
rc=$?
[ $rc -eq 0 ] || die "btlifecycle failed ($rc): $(cat "$TMP/work.err")"
echo "lifecycle-logs: btlifecycle pid $WPID on $DISK (dev $DEV)"
sleep 0.5

for p in "${BTPIDS[@]}" $BLKPID; do
	kill -INT "$p"
done
# A script that has not ended 5 s after SIGINT is sent another, then killed at
# 10 s: bpftrace 0.17 once sat in epoll_wait for ten minutes after one (its
# log, written a line at a time with -B line, was complete).
for p in "${BTPIDS[@]}"; do
	for i in $(seq 100); do
		kill -0 "$p" 2>/dev/null || break
		[ "$i" = 50 ] && kill -INT "$p" 2>/dev/null
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null && echo "lifecycle-logs: bpftrace $p killed 10 s after SIGINT" >&2
	wait "$p"
done
BTPIDS=()
if [ -n "$BLKPID" ]; then
	wait "$BLKPID"
	rc=$?
	BLKPID=
	[ $rc -eq 0 ] || die "blktop exited $rc: $(head -5 "$BLKTOP_CAPTURE.err")"
fi

for s in $SCRIPTS; do
	[ "$s" = mmap ] && continue
	cp "$TMP/raw/$s.log" "$OUT/$s.log"
done
# mmap.bt prints both headers at BEGIN and its lines interleaved: regroup them
# into the mmap(): block (ADDRESS 4th) and the munmap(): block (ADDRESS 3rd).
awk 'NR == 1 { print; next }
    /^mmap\(\):/ { getline mh; next }
    /^munmap\(\):/ { getline uh; next }
    NF == 0 { blank++; next }
    $4 ~ /^0x/ { mm[++nm] = $0; next }
    $3 ~ /^0x/ { mu[++nu] = $0; next }
    { other[++no] = $0 }
    END {
	print "mmap():"; print mh
	for (i = 1; i <= nm; i++) print mm[i]
	print "munmap():"; print uh
	for (i = 1; i <= nu; i++) print mu[i]
	for (i = 1; i <= no; i++) print other[i]
	for (i = 1; i <= blank; i++) print ""
    }' "$TMP/raw/mmap.log" >"$OUT/mmap.log"

# The counts the README promises, from the logs.
bad=0
expect() {	# expect WHAT WANT GOT
	if [ "$2" != "$3" ]; then
		echo "lifecycle-logs: $1: expected $2, got $3" >&2
		bad=1
	fi
}
lines() { grep -E "^[0-9]+ +$WPID " "$OUT/$1.log"; }
expect "openat lines" 6 "$(lines openat | wc -l)"
expect "openat fd >= 0" $NFILES "$(lines openat | awk '$3 >= 0' | wc -l)"
expect "openat fd -2 missing.dat" 1 "$(lines openat | awk '$3 == -2 && $5 == "missing.dat"' | wc -l)"
expect "close lines" $NFILES "$(lines close | wc -l)"
expect "mmap lines" $((NFILES + 1)) "$(lines mmap | awk '$4 ~ /^0x/' | wc -l)"
expect "mmap of file*.dat" $NFILES "$(lines mmap | awk '$4 ~ /^0x/ && $6 ~ /^file[0-9]\.dat$/' | wc -l)"
expect "anonymous mmap" 1 "$(lines mmap | awk '$4 ~ /^0x/ && $3 == -1 && $6 == "-"' | wc -l)"
expect "munmap lines" $((NFILES + 1)) "$(lines mmap | awk '$3 ~ /^0x/' | wc -l)"
expect "munmap bytes" $((NFILES * 4096 + 8192)) "$(lines mmap | awk '$3 ~ /^0x/ { n += $4 } END { print n + 0 }')"
expect "mkdir() lines" 3 "$(lines create_del | awk '$3 == "mkdir()"' | wc -l)"
expect "rmdir() lines" 3 "$(lines create_del | awk '$3 == "rmdir()"' | wc -l)"
expect "unlink() lines" $NFILES "$(lines create_del | awk '$3 == "unlink()"' | wc -l)"
expect "writes" $NFILES "$(grep -E "^[0-9]+ +[^ ]+ +$WPID " "$OUT/vfs_rw.log" | awk '$5 == "W"' | wc -l)"
expect "bytes written" $((NFILES * 4096)) "$(grep -E "^[0-9]+ +[^ ]+ +$WPID " "$OUT/vfs_rw.log" | awk '$5 == "W" { n += $8 } END { print n + 0 }')"
expect "reads" $((NFILES * 2)) "$(grep -E "^[0-9]+ +[^ ]+ +$WPID " "$OUT/vfs_rw.log" | awk '$5 == "R"' | wc -l)"
expect "bytes read" $((NFILES * 4096)) "$(grep -E "^[0-9]+ +[^ ]+ +$WPID " "$OUT/vfs_rw.log" | awk '$5 == "R" { n += $8 } END { print n + 0 }')"
expect "time_align has lines" 1 "$(grep -cE '^[0-9]+ +[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT/time_align.log" | awk '{ print ($1 > 0) }')"
expect "workload's data writes on $DISK" $NFILES "$(grep -E "^[0-9]+ +[^ ]+ +$WPID +btlifecycle " "$OUT/bio.log" | awk '$8 == 1 && $10 == 4096' | wc -l)"
expect "workload's map reads on $DISK" $NFILES "$(grep -E "^[0-9]+ +[^ ]+ +$WPID +btlifecycle " "$OUT/bio.log" | awk '$8 == 0 && $10 == 4096' | wc -l)"
[ $bad -eq 0 ] || die "the logs in $OUT do not have the expected counts"
echo "lifecycle-logs: logs in $OUT, counts as expected"
