#!/bin/sh
# guest.sh: what the kernel matrix collects inside each guest (busybox sh, as
# /guest/guest.sh under boot.sh SUITE). It only COLLECTS: raw files in /out,
# which boot.sh brings back and check.py judges on the host. Nothing here
# decides pass or fail.
#
# /out after a run:
#   uname, timings                 the kernel; "STEP uptime" at each step
#   probe.{txt,err,rc}             blktop --probe; probe-v.txt its -v log (and
#                                  BLKTOP_DEBUG=1: the vfs object's) when a
#                                  hook failed (the verifier's words)
#   block.{jsonl,err,rc,before,after,dev}
#                                  blktop -b -J -d 1 -D loopN --no-vfs -w around
#                                  direct fio on the raw device, then mkfs.ext4,
#                                  mount, write, fsync, cold read, umount;
#                                  /proc/diskstats of loopN before and after
#   block-replay.{jsonl,err,rc}    -r of that capture, -b -J
#   kstamps.{jsonl,err,rc,txt}     blktop -vvv around fio on the same loopN: the
#                                  kernel's request stamps against our clock
#   files.{jsonl,err,rc}           one blktop -J -d 0.5 --top 500 --all-files -w
#                                  run (the vfs object loads once: under TCG its
#                                  verification takes tens of seconds) around
#                                  every file phase, each on its own file of an
#                                  ext4 on another loop device mounted at /mnt:
#                                  iowork, write+fsync, cold read, cold mmap,
#                                  lifecycle, xferwork, fio io_uring, fio libaio
#   files-replay.{jsonl,err,rc}    -r of that capture, -J -d 0.5 --top 500
#   stress.{jsonl,err,rc,pids}     another such run around ten lifecycle runs
#                                  beside a CPU hog and a dd loop (their pids)
#   iowork.json kw-*.txt lifecycle.pid xfer.json fio-*.{pid,rc}   what each phase did
#   throttle.{pid,rc,err} throttle-trace.txt  dd paused for dirtying, and
#                                  the balance_dirty_pages lines of tracefs
export PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin
O=/out
BLKTOP=${BLKTOP:-blktop}
step() { echo "$1 $(cut -d' ' -f1 /proc/uptime)" >>"$O/timings"; echo "guest: $1"; }
# diskstats DEV: "reads rsect writes wsect discards flushes io_ticks time_in_queue"
diskstats() { awk -v n="$1" '$3 == n { print $4, $6, $8, $10, $15, $19, $13, $14 }' /proc/diskstats; }
# started PID FILE SECS: until blktop's first report; 1 if it died or took too long.
started() {
	i=0
	while [ ! -s "$2" ] && [ "$i" -lt $(($3 * 10)) ]; do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$2" ]
}
# stop PID RCFILE: SIGINT, wait, keep the status; a blktop that has not
# ended 60 s after SIGINT is killed (status 137), and the checks go on.
stop() {
	kill -INT "$1" 2>/dev/null
	( sleep 60; kill -KILL "$1" 2>/dev/null ) &
	w=$!
	wait "$1"
	echo $? >"$2"
	kill "$w" 2>/dev/null
}
# START: seconds blktop may take to load (the verifier runs under TCG).
START=${BLKTOP_GUEST_START:-240}

uname -r >"$O/uname"
step begin

# ---- probe
$BLKTOP --probe >"$O/probe.txt" 2>"$O/probe.err"
echo $? >"$O/probe.rc"
step probe
# The verifier's words where something did not load.
# (Not for one variant alone: each -v probe costs as much as the probe.)
if grep -qE 'none works|no hook variant loads' "$O/probe.txt" "$O/probe.err"; then
	BLKTOP_DEBUG=1 $BLKTOP -v --probe 2>&1 | head -c 3000000 >"$O/probe-v.txt"
	step probe-v
fi

# ---- block: blktop -D loopN against /proc/diskstats
truncate -s 256M /dev/shm/blk.img
L=$(losetup -f) && losetup "$L" /dev/shm/blk.img
D=${L#/dev/}
echo "$D" >"$O/block.dev"
$BLKTOP -b -J -d 1 -D "$D" --no-vfs -w /tmp/block.cap >"$O/block.jsonl" 2>"$O/block.err" &
pid=$!
if started "$pid" "$O/block.jsonl" "$START"; then
	step block-started
	diskstats "$D" >"$O/block.before"
	# 300 random 4k reads, 200 random 4k writes, 30 random 64k writes, O_DIRECT.
	fio --filename="$L" --direct=1 --ioengine=psync --size=128M --randseed=7 \
	    --name=r --rw=randread --bs=4k --io_size=1200k \
	    --name=w --stonewall --rw=randwrite --bs=4k --io_size=800k \
	    --name=big --stonewall --rw=randwrite --bs=64k --io_size=1920k \
	    --output=/dev/null >"$O/block-fio.err" 2>&1
	echo $? >"$O/block-fio.rc"
	# ext4 made, mounted, written, fsynced, read cold, unmounted: all of its
	# I/O inside the window.
	mkdir -p /mnt2
	{ mkfs.ext4 -q -F -E discard "$L" && mount "$L" /mnt2 &&
		for i in 1 2 3 4; do
			dd if=/dev/urandom of=/mnt2/f$i bs=64k count=32 conv=fsync 2>/dev/null || exit 1
		done &&
		sync && echo 3 >/proc/sys/vm/drop_caches && cat /mnt2/f* >/dev/null &&
		umount /mnt2; } >"$O/block-fs.err" 2>&1
	echo $? >"$O/block-fs.rc"
	sleep 0.3
	diskstats "$D" >"$O/block.after"
	sleep 1.2
fi
stop "$pid" "$O/block.rc"
step block
if [ -s /tmp/block.cap ]; then
	$BLKTOP -r /tmp/block.cap -b -J >"$O/block-replay.jsonl" 2>"$O/block-replay.err"
	echo $? >"$O/block-replay.rc"
	step block-replay
fi
rm -f /tmp/block.cap

# ---- kstamps: the kernel's request stamps against our clock on the same
# requests (-vvv), queue depth 8 reads, then writes with fsyncs. The
# sysctl as the kernel has it (Debian: 2): on 5.10 it refuses every bpf()
# call of a process without CAP_BPF, so blktop keeps CAP_BPF there and says
# so (-v "privileges:"); check.py holds its counters to what it received.
cat /proc/sys/kernel/unprivileged_bpf_disabled >"$O/ubd" 2>&1
# With a scheduler every request is inserted, so a start hook sees it on
# 5.10 and 6.1 too (block_rq_insert; issued straight to the driver it is
# first seen at issue, and starts there): timed both ways.
sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$D/queue/scheduler" 2>/dev/null)
echo mq-deadline >"/sys/block/$D/queue/scheduler" 2>"$O/kstamps.sched"
cat "/sys/block/$D/queue/scheduler" >>"$O/kstamps.sched" 2>&1
$BLKTOP -J -d 1 -D "$D" --no-vfs -vvv >"$O/kstamps.jsonl" 2>"$O/kstamps.err" &
pid=$!
if started "$pid" "$O/kstamps.jsonl" "$START"; then
	fio --filename="$L" --direct=1 --ioengine=libaio --iodepth=8 --size=128M --randseed=7 \
	    --name=r --rw=randread --bs=4k --io_size=4M \
	    --name=w --stonewall --rw=randwrite --bs=4k --io_size=1M --fsync=32 \
	    --output=/dev/null >"$O/kstamps-fio.err" 2>&1
	echo $? >"$O/kstamps-fio.rc"
	sleep 1.2
fi
stop "$pid" "$O/kstamps.rc"
[ -n "$sched" ] && echo "$sched" >"/sys/block/$D/queue/scheduler" 2>/dev/null
grep -E 'request stamps|stamp check' "$O/kstamps.err" >"$O/kstamps.txt"
step kstamps
losetup -d "$L"
rm -f /dev/shm/blk.img

# ---- files: every file phase under one blktop run
truncate -s 256M /dev/shm/fs.img
L=$(losetup -f) && losetup "$L" /dev/shm/fs.img
echo "${L#/dev/}" >"$O/files.dev"
mkfs.ext4 -q -F "$L" >"$O/files-mkfs.err" 2>&1 && mkdir -p /mnt && mount "$L" /mnt ||
    echo "mkfs.ext4 or mount of $L failed" >>"$O/files-mkfs.err"
dd if=/dev/urandom of=/mnt/r1 bs=1M count=8 2>/dev/null
dd if=/dev/urandom of=/mnt/m1 bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/mnt/u1 bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/mnt/a1 bs=1M count=4 2>/dev/null
mkdir -p /mnt/iow /mnt/lc /mnt/xf
xferwork prep /mnt/xf >"$O/xfer-prep.err" 2>&1
sync
$BLKTOP -J -d 0.5 --top 500 --all-files -w /tmp/files.cap >"$O/files.jsonl" 2>"$O/files.err" &
pid=$!
if started "$pid" "$O/files.jsonl" "$START"; then
	step files-started
	iowork /mnt/iow data.bin 10000 7 20000 3 >"$O/iowork.json" 2>"$O/iowork.err"
	kwork write /mnt/w1 >"$O/kw-write.txt" 2>&1
	echo 3 >/proc/sys/vm/drop_caches
	kwork read /mnt/r1 >"$O/kw-read.txt" 2>&1
	echo 3 >/proc/sys/vm/drop_caches
	kwork mmap /mnt/m1 >"$O/kw-mmap.txt" 2>&1
	lifecycle /mnt/lc 20 >"$O/lifecycle.pid" 2>"$O/lifecycle.err"
	echo $? >"$O/lifecycle.rc"
	step files-lifecycle
	# sendfile, splice and copy_file_range of known sizes (xfer.sh).
	xferwork run /mnt/xf >"$O/xfer.json" 2>"$O/xfer.err"
	step files-xfer
	# fio's 1024 direct 4k reads, then 512 writes, through io_uring and libaio.
	for e in io_uring:u1 libaio:a1; do
		for rw in randread:4M randwrite:2M; do
			fio --name=u --filename="/mnt/${e#*:}" --size=4M --io_size="${rw#*:}" --bs=4k \
			    --rw="${rw%:*}" --direct=1 --ioengine="${e%:*}" --iodepth=8 \
			    --output=/dev/null >>"$O/fio-${e%:*}.err" 2>&1
			echo $? >>"$O/fio-${e%:*}.rc"
		done
	done
	step files-fio
	# A dirtier paused: 8 MiB through the page cache with a 1 MiB dirty
	# limit, the device's writes slowed to 4 MB/s where cgroup v1's blkio
	# throttle mounts; the tracepoint's own lines beside blktop's.
	T=/sys/kernel/tracing
	[ -d $T/events ] || T=/sys/kernel/debug/tracing
	echo >$T/trace 2>/dev/null
	echo 1 >$T/events/writeback/balance_dirty_pages/enable 2>"$O/throttle.err"
	r=$(cat /proc/sys/vm/dirty_ratio) br=$(cat /proc/sys/vm/dirty_background_ratio)
	echo 1048576 >/proc/sys/vm/dirty_bytes
	echo 262144 >/proc/sys/vm/dirty_background_bytes
	mkdir -p /cg && mount -t cgroup -o blkio none /cg 2>>"$O/throttle.err" &&
	    echo "$(cat /sys/block/${L#/dev/}/dev) 4194304" >/cg/blkio.throttle.write_bps_device
	dd if=/dev/zero of=/mnt/th bs=64k count=128 2>/dev/null &
	echo $! >"$O/throttle.pid"
	wait $!
	echo $? >"$O/throttle.rc"
	echo 0 >$T/events/writeback/balance_dirty_pages/enable 2>/dev/null
	cp $T/trace "$O/throttle-trace.txt" 2>>"$O/throttle.err"
	echo "$(cat /sys/block/${L#/dev/}/dev) 0" >/cg/blkio.throttle.write_bps_device 2>/dev/null
	umount /cg 2>/dev/null
	echo "$r" >/proc/sys/vm/dirty_ratio
	echo "$br" >/proc/sys/vm/dirty_background_ratio
	sync
	step files-throttle
	sleep 1.2
fi
stop "$pid" "$O/files.rc"
step files
# ---- stress: the lifecycle workload ten times beside a CPU hog and a loop of
# traced syscalls, under a blktop of its own (its losses apart from the files
# run's): where the kernel runs the syscall programs preemptible, two programs
# meet on one CPU mid-record (bpf/vfs.bpf.c, vfs_scratch)
$BLKTOP -J -d 0.5 --top 2000 --all-files >"$O/stress.jsonl" 2>"$O/stress.err" &
pid=$!
if started "$pid" "$O/stress.jsonl" "$START"; then
	step stress-started
	( while :; do :; done ) &
	hog=$!
	( while :; do dd if=/dev/zero of=/dev/null bs=512 count=200 2>/dev/null; done ) &
	noise=$!
	for j in 0 1 2 3 4 5 6 7 8 9; do
		mkdir -p /mnt/st$j
		lifecycle /mnt/st$j 20 >>"$O/stress.pids" 2>>"$O/stress-lc.err" || echo fail >>"$O/stress.pids"
	done
	kill "$hog" "$noise"
	wait "$hog" "$noise" 2>/dev/null
	sleep 1.2
fi
stop "$pid" "$O/stress.rc"
step stress
if [ -s /tmp/files.cap ]; then
	ls -l /tmp/files.cap >"$O/files.cap.ls"
	$BLKTOP -r /tmp/files.cap -J -d 0.5 --top 500 >"$O/files-replay.jsonl" 2>"$O/files-replay.err"
	echo $? >"$O/files-replay.rc"
	step files-replay
fi
rm -f /tmp/files.cap
umount /mnt
losetup -d "$L"
rm -f /dev/shm/fs.img
step end
exit 0
