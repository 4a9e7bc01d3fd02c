#!/bin/bash
# pipeline.sh: blktop -J against /proc/diskstats, fio and biolatency, for every hook variant.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd biolatency libbpf-tools
PATH=$PATH:/usr/sbin

LOOP=$(loop_create 512) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")

# start_biolatency: libbpf-tools' biolatency on the device, its pid in bl_pid,
# back once it says it is tracing (its programs are attached).
start_biolatency() {
	local i=0
	rm -f "$TEST_TMP/bl.out"
	stdbuf -oL biolatency -d "$DEV" >"$TEST_TMP/bl.out" 2>&1 &
	bl_pid=$!
	TEST_PIDS="$TEST_PIDS $bl_pid"
	while ! grep -q '^Tracing' "$TEST_TMP/bl.out" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^Tracing' "$TEST_TMP/bl.out" || fail "biolatency attached within 10 s"
}

# run_variant PLAN [after|before]: a fixed direct-I/O workload under blktop;
# with biolatency attached after blktop, or before it.
run_variant() {
	local plan=$1 order=$2 out=$TEST_TMP/$1-$2.jsonl fio_out=$TEST_TMP/$1-$2.fio.json
	local before after pid bl_pid= extra=() tag=$1

	# A run again (another order, a retry) must not find the last one's
	# report: the shell truncates it in the background child, after wait_for
	# may have looked (fio then ran while blktop was still loading).
	rm -f "$out" "$fio_out"
	[ "$order" = before ] && start_biolatency
	"$BLKTOP" -J -d 1 -D "$DEV" --hooks "$plan" >"$out" 2>"$out.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "$plan: first report within $START_S s"
	[ "$order" = after ] && start_biolatency
	if [ -n "$order" ]; then
		extra=(--biolatency "$TEST_TMP/bl.out")
		tag="$plan (biolatency attached $order blktop)"
	fi
	before=$(diskstats "$DEV")
	# 3000 random 4k reads, 2000 random 4k writes, 300 random 64k writes, all O_DIRECT.
	fio --output-format=json --output="$fio_out" --filename="$LOOP" --direct=1 \
	    --ioengine=psync --size=256M \
	    --name=r --rw=randread --bs=4k --io_size=$((3000 * 4))k \
	    --name=w --stonewall --rw=randwrite --bs=4k --io_size=$((2000 * 4))k \
	    --name=big --stonewall --rw=randwrite --bs=64k --io_size=$((300 * 64))k \
	    >"$TEST_TMP/fio.err" 2>&1 || { fail "$plan: fio ran"; cat "$TEST_TMP/fio.err"; }
	sleep 0.3
	after=$(diskstats "$DEV")
	if [ -n "$bl_pid" ]; then
		kill -INT "$bl_pid"
		wait "$bl_pid"
	fi
	kill -INT "$pid"
	wait "$pid"
	check "$plan: blktop exits 0 on SIGINT" [ $? = 0 ]
	check "$plan: nothing on stderr" [ ! -s "$out.err" ]
	cat "$out.err"
	python3 "$BLKTOP_SRCDIR/tests/integration/compare.py" "$out" "$DEV" "$before" "$after" \
	    --tag "$tag" --fio "$fio_out" --qd-max 1 "${extra[@]}"
}

plans=$("$BLKTOP" --probe | awk '/^block attach/ { s = "a"; next } /^block start/ { s = "s"; next }
	/^  / && s == "a" && $2 == "works" { a[na++] = $1 }
	/^  / && s == "s" && $3 == "exists" { st[ns++] = $1 }
	END { for (i = 0; i < na; i++) for (j = 0; j < ns; j++) print a[i] ":" st[j] }')
check "probe lists at least one plan" [ -n "$plans" ]
# The kernel now and then skips the completion hook (doc/performance.md, known limits);
# blktop sends such a request when it is reused, but one not reused before
# blktop exits stays uncounted (-vv: "still in the table"). That has been seen
# about once in 50 runs: a variant whose counts differ runs once more, and the
# first result is shown but not counted. A systematic error fails both runs.
# The first variant runs twice beside biolatency, attached after blktop and
# before it (each tracer sees the other's run time, in opposite directions).
first=1
for plan in $plans; do
	for order in $([ $first = 1 ] && echo after before || echo none); do
		[ "$order" = none ] && order=
		run_variant "$plan" "$order" >"$TEST_TMP/variant.out"
		if grep -q '^FAIL: .*equals /proc/diskstats' "$TEST_TMP/variant.out"; then
			sed 's/^FAIL:/RETRIED (not counted), was FAIL:/; s/^PASS:/RETRIED (not counted), was PASS:/' \
			    "$TEST_TMP/variant.out"
			run_variant "$plan" "$order"
		else
			cat "$TEST_TMP/variant.out"
		fi
	done
	first=0
done

# watch_device OUT TAG: blktop -J on the device into OUT (pid in $pid), then
# the diskstats before the workload in $before.
watch_device() {
	"$BLKTOP" -J -d 1 -D "$DEV" >"$1" 2>"$1.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$1" "$START_S" || fail "$2: first report within $START_S s"
	before=$(diskstats "$DEV")
}

# A saturated device: %util against the kernel's io_ticks, queue depth bounded by fio's.
# Saturated for real: 512 KiB reads (the loop device's 128 segments of a page,
# so none is split) keep the loop worker busy while fio refills the queue. With
# 4 KiB reads fio's own CPU time is the bottleneck and the device idles between
# batches; io_ticks, which counts whole jiffies (4 ms here) and drops one whose
# first event is a start with no other request in the driver, then read 52-75%
# of blktop's exact busy time in 3 of 8 runs. At 512 KiB: 0.96-1.07 in 8 of 8.
out=$TEST_TMP/sat.jsonl
watch_device "$out" "saturated"
fio --output-format=json --output="$TEST_TMP/sat.fio.json" --filename="$LOOP" --direct=1 \
    --ioengine=libaio --iodepth=8 --name=sat --rw=randread --bs=512k --size=256M \
    --runtime=2 --time_based >"$TEST_TMP/fio.err" 2>&1 || fail "saturated: fio ran"
sleep 0.3
after=$(diskstats "$DEV")
kill -INT "$pid"
wait "$pid"
python3 "$BLKTOP_SRCDIR/tests/integration/compare.py" "$out" "$DEV" "$before" "$after" \
    --tag "saturated" --fio "$TEST_TMP/sat.fio.json" --qd-max 8 --saturated

# Starting under load: requests in flight while the programs attach. Every
# request blktop saw start is accounted for in the counters of -vv: completed,
# or started again with its completion never seen (sent then, without times),
# or left in the table. With the programs attached in file order the first two
# would be "started but never completed".
# fio runs until blktop has reported twice: loading takes ~1 s idle and over
# 10 s on a busy 2-CPU machine, and the load must span the attach.
fio --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=8 --name=under --rw=randread \
    --bs=4k --size=256M --runtime=120 --time_based >"$TEST_TMP/fio.err" 2>&1 &
fio_pid=$!
TEST_PIDS="$TEST_PIDS $fio_pid"
sleep 0.5
out=$TEST_TMP/under.jsonl
"$BLKTOP" -J -d 1 -D "$DEV" -vv >"$out" 2>"$out.err" &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$out" "$START_S"
sleep 1.5
kill -INT "$fio_pid"
wait "$fio_pid"
check "under load: fio ran (its summary: $(grep -c 'groupid' "$TEST_TMP/fio.err"))" grep -q "groupid" "$TEST_TMP/fio.err"
sleep 0.3
kill -INT "$pid"
wait "$pid"
unseen=$(sed -n 's/.*completions never seen (sent at reuse, no latency) \([0-9]*\).*/\1/p' "$out.err")
counts=$(sed -n 's/.*debug counters: started \([0-9]*\), first seen at issue \([0-9]*\), .*final completions \([0-9]*\), still in the table \([0-9]*\).*/\1 \2 \3 \4/p' "$out.err")
read -r started issued done left <<<"$counts"
check "under load: every request seen started is accounted for ($started + $issued started, $done completed, ${unseen:-?} completions never seen, $left left)" \
    [ -n "$left" -a -n "$unseen" -a "${done:-0}" -gt 0 -a $((started + issued)) = $((done + unseen + left)) ]
read -r lost ios nolat <<<"$(python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
ops = [d[o] for x in r for d in x["devices"] for o in ("read", "write", "other")]
print(sum(x["lost"] for x in r), sum(o["ios"] for o in ops), sum(o["no_lat"] for o in ops))' "$out")"
check "under load: nothing lost, every request reported ($lost lost, $ios reported, $done completed + ${unseen:-?} never seen)" \
    [ "$lost" = 0 -a "$ios" = $((done + unseen)) ]
check "under load: the requests reported without times are those never seen ($nolat, ${unseen:-?})" [ "$nolat" = "$unseen" ]
qd=$(python3 -c 'import json,sys; print(max([d["qd"]["max"] for l in open(sys.argv[1]) for d in json.loads(l)["devices"]] + [0]))' "$out")
check "under load: queue depth max $qd is at most fio's 8 plus completions never seen $unseen" \
    [ "$qd" -ge 1 -a "$qd" -le $((8 + unseen)) ]

# Buffered I/O through a file system: merges, flushes and discards (mkfs discards).
need_cmd mkfs.ext4 e2fsprogs
out=$TEST_TMP/fs.jsonl
watch_device "$out" "fs"
mkfs.ext4 -q -F -E discard "$LOOP" && mkdir -p "$TEST_TMP/mnt" &&
    mount "$LOOP" "$TEST_TMP/mnt" && {
	for i in 1 2 3 4; do
		dd if=/dev/urandom of="$TEST_TMP/mnt/f$i" bs=1M count=8 conv=fsync status=none
	done
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cat "$TEST_TMP"/mnt/f* > /dev/null
	umount "$TEST_TMP/mnt"
} || fail "fs: mkfs, mount, write, umount"
sleep 0.3
after=$(diskstats "$DEV")
kill -INT "$pid"
wait "$pid"
python3 "$BLKTOP_SRCDIR/tests/integration/compare.py" "$out" "$DEV" "$before" "$after" --tag "ext4 buffered"
