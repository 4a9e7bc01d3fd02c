#!/bin/bash
# kstamps.sh: a request's queue and device time from the kernel's own stamps
# (rq->start_time_ns, rq->io_start_time_ns; bpf/kstamps.h) against our own
# clock on the same requests (-vvv times every request both ways), and that
# the kernel's stamps are what the records carry: the requests counted
# against /proc/diskstats, and the summed read time against the kernel's
# (diskstats' ms spent reading, made of the same stamps).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
# Timed by write-back throttling (loop devices have it on here): issue times
# from the kernel. Without it the issue hook's clock is used, and said.
wbt=$(cat "/sys/block/$DEV/queue/wbt_lat_usec" 2>/dev/null || echo 0)

# run TAG ARGS...: blktop -J on the device with ARGS around the workload;
# its reports in $TEST_TMP/TAG.jsonl, stderr in .err, diskstats in $before/$after.
run() {
	local tag=$1 out=$TEST_TMP/$1.jsonl pid
	shift
	"$BLKTOP" -J -d 1 -D "$DEV" --no-vfs "$@" >"$out" 2>"$out.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || fail "$tag: first report within $START_S s"
	before=$(diskstats "$DEV")
	# Queue depth 32 through libaio and io_uring (plugged batches: the
	# kernel's stamps come from the plug's cached time since 6.9), then
	# single writes and an fsync'd write (a flush).
	for eng in libaio io_uring; do
		fio --filename="$LOOP" --direct=1 --ioengine=$eng --iodepth=32 --name=$eng \
		    --rw=randread --bs=4k --size=256M --io_size=40M --randseed=3 \
		    >"$TEST_TMP/fio.err" 2>&1 || fail "$tag: fio $eng ran"
	done
	fio --filename="$LOOP" --direct=1 --ioengine=psync --name=w --rw=randwrite --bs=4k \
	    --size=256M --io_size=2M --fsync=64 >"$TEST_TMP/fio.err" 2>&1 || fail "$tag: fio writes ran"
	sleep 0.3
	after=$(diskstats "$DEV")
	kill -INT "$pid"
	wait "$pid"
	check "$tag: blktop exits 0" [ $? = 0 ]
}

# summed TAG: "ios read_ios read_ms lost" of the reports, read_ms the reads'
# summed start-to-completion time (device plus queue time of the timed ones).
summed() {
	python3 - "$TEST_TMP/$1.jsonl" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
ds = [d for x in r for d in x["devices"]]
ios = sum(d[o]["ios"] for d in ds for o in ("read", "write", "other"))
rd = [d["read"] for d in ds if d["read"]["ios"] > d["read"]["no_lat"]]
ms = sum(((c["lat_us"]["avg"] or 0) + (c["q_us"]["avg"] or 0)) * (c["ios"] - c["no_lat"]) for c in rd) / 1000
print(ios, sum(c["ios"] for c in rd), "%.1f" % ms, sum(x["lost"] for x in r))
PY
}

# read_ms: diskstats' ms spent reading (the kernel's completion - start_time_ns, summed).
read_ms() { awk -v n="$DEV" '$3 == n { print $7 }' /proc/diskstats; }

# ---- both ways on the same requests
run check -vvv
err=$TEST_TMP/check.jsonl.err
stamps=$(sed -n 's/.*request stamps: start from the kernel \([0-9]*\), from our clock \([0-9]*\); issue from the kernel \([0-9]*\), from our clock or never issued \([0-9]*\); start left to the kernel and not stamped \([0-9]*\).*/\1 \2 \3 \4 \5/p' "$err")
read -r kstart ostart kissue oissue miss <<<"$stamps"
check "kernel-side stamp counters reported ($stamps)" [ -n "$miss" ]
check "start times from the kernel: $kstart of $((kstart + ostart))" [ "${kstart:-0}" -gt 0 -a "${ostart:-1}" -le $(((kstart + ostart) / 100)) ]
if [ "$wbt" != 0 ]; then
	check "issue times from the kernel on a timed queue (wbt_lat_usec $wbt): $kissue of $((kissue + oissue))" \
	    [ "${kissue:-0}" -gt 0 -a "${oissue:-1}" -le $(((kissue + oissue) / 100)) ]
else
	check "issue times from our clock on an untimed queue: $oissue" [ "${oissue:-0}" -gt 0 ]
fi
check "no start left to the kernel went unstamped ($miss)" [ "$miss" = 0 ]
line=$(grep 'stamp check:' "$err")
read -r checked off within total <<<"$(python3 - "$line" <<'PY'
import re, sys
l = sys.argv[1]
m = re.search(r"stamp check: (\d+) requests timed both ways, (\d+) differ", l)
q, d = l.split(" q ")[1].split(" d ")
def within(h, bound):
    return sum(int(n) for k, n in re.findall(r"<(\d+):(\d+)", h) if int(k) <= bound)
def total(h):
    return sum(int(n) for _, n in re.findall(r"<(\d+):(\d+)", h))
# the share of requests whose queue and device time agree within 4 us
print(m.group(1), m.group(2), min(within(q, 4096), within(d, 4096)), min(total(q), total(d)))
PY
)"
read -r ios _ _ lost <<<"$(summed check)"
check "requests timed both ways: $checked of $ios reported" [ "${checked:-0}" -gt 0 -a "${checked:-0}" -ge $((ios * 9 / 10)) ]
check "every request's queue and device time agree within 1 ms both ways ($off beyond)" [ "$off" = 0 ]
check "99% agree within 4 us ($within of $total): $line" [ "${within:-0}" -ge $((total * 99 / 100)) -a "$total" -gt 0 ]
read -r r0 _ w0 _ d0 f0 _ <<<"$before"
read -r r1 _ w1 _ d1 f1 _ <<<"$after"
disk=$(( (r1 - r0) + (w1 - w0) + (d1 - d0) + (f1 - f0) ))
check "-vvv: requests reported equal /proc/diskstats (blktop $ios, diskstats $disk, lost $lost)" [ "$ios" = "$disk" -a "$lost" = 0 ]

# ---- the plain run: kernel stamps, no clock where the kernel stamped
ms0=$(read_ms)
run plain -vv
ms1=$(read_ms)
read -r ios rd rms lost <<<"$(summed plain)"
read -r r0 _ w0 _ d0 f0 _ <<<"$before"
read -r r1 _ w1 _ d1 f1 _ <<<"$after"
disk=$(( (r1 - r0) + (w1 - w0) + (d1 - d0) + (f1 - f0) ))
check "requests reported equal /proc/diskstats (blktop $ios, diskstats $disk, lost $lost)" [ "$ios" = "$disk" -a "$lost" = 0 ]
check "summed read times are the kernel's within 3% (blktop $rms ms of $rd reads, diskstats $((ms1 - ms0)) ms)" \
    python3 -c 'import sys; b, k = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (k > 0 and abs(b - k) <= 0.03 * k + 2))' "$rms" "$((ms1 - ms0))"
stamps=$(sed -n 's/.*request stamps: start from the kernel \([0-9]*\), from our clock \([0-9]*\).*/\1 \2/p' "$TEST_TMP/plain.jsonl.err")
read -r kstart ostart <<<"$stamps"
check "plain run: start times from the kernel ($stamps)" [ "${kstart:-0}" -gt 0 -a "${ostart:-1}" -le $(((kstart + ostart) / 100)) ]
