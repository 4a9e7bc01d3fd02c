#!/bin/bash
# manyloops.sh [RUNS] [NDEV]: issue 41 item 7's hostile-clients shape, RUNS
# times (default 20): NDEV loop devices (default 70, backed by files in
# /dev/shm), a live `blktop -J -d 1` at defaults, then at once 8 direct 4 KiB
# writes (dd oflag=direct) to each device and 300 more to the last. Per run it
# prints the devices' write requests summed over blktop's reports, the
# writes /proc/diskstats counted on them over the same run, what the dd
# processes asked, and the reports' lost_requests; a run where blktop's
# count is short of diskstats without lost_requests saying so is marked
# UNCOUNTED. Exit status 1 if any run was. SETTLE: seconds between the
# last dd's exit and blktop's SIGINT (default 2.5; 0: the stop races the
# last completions' way to user space). Every device is detached, every
# image removed, on every path; only processes it started are stopped.
# Needs root, losetup, dd, python3. BLKTOP: the binary (default: blktop).
set -u
RUNS=${1:-20}
NDEV=${2:-70}
BLKTOP=${BLKTOP:-blktop}
SETTLE=${SETTLE:-2.5}
TMP=$(mktemp -d /tmp/blktop-manyloops-XXXXXX)
LOOPS=() BPID=

cleanup() {
	local l
	[ -n "$BPID" ] && kill -INT "$BPID" 2>/dev/null && wait "$BPID" 2>/dev/null
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -f /dev/shm/blktop-manyloops-$$-*.img
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for i in $(seq "$NDEV"); do
	img=/dev/shm/blktop-manyloops-$$-$i.img
	truncate -s 8M "$img" || exit 1
	l=$(losetup -f --show "$img") || { echo "manyloops: losetup failed at $i" >&2; exit 1; }
	LOOPS+=("$l")
done
NAMES=$(printf '%s\n' "${LOOPS[@]}" | sed 's|/dev/||' | tr '\n' ' ')

# wsum: the devices' completed writes in /proc/diskstats, summed.
wsum() { awk -v names=" $NAMES" 'index(names, " " $3 " ") { n += $8 } END { print n + 0 }' /proc/diskstats; }

bad=0
for run in $(seq "$RUNS"); do
	out=$TMP/r$run.jsonl
	"$BLKTOP" -J -d 1 -v >"$out" 2>"$TMP/err" &
	BPID=$!
	for _ in $(seq 600); do [ -s "$out" ] && break; sleep 0.1; done
	before=$(wsum)
	pids=()
	n=0
	for l in "${LOOPS[@]}"; do
		n=$((n + 1))
		cnt=8
		[ "$n" = "$NDEV" ] && cnt=308
		dd if=/dev/zero of="$l" bs=4k count=$cnt oflag=direct status=none &
		pids+=($!)
	done
	wait "${pids[@]}"
	after=$(wsum)
	sleep "$SETTLE"
	kill -INT "$BPID"
	wait "$BPID"
	st=$?
	BPID=
	python3 - "$out" "$NAMES" "$((after - before))" "$((8 * NDEV + 300))" "$run" "$st" <<'EOF'
import json, sys
path, names, disk, asked, run, st = sys.argv[1], set(sys.argv[2].split()), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
w = lost = other = calls = reps = 0
for line in open(path):
    r = json.loads(line)
    reps += 1
    lost += r["lost_requests"]
    other += r["lost_other"]
    calls += r["lost_calls"]
    w += sum(d["write"]["ios"] for d in r["devices"] if d["name"] in names)
ok = w == disk or w + lost >= disk
print("run %s: blktop %d writes, diskstats %d, dd asked %d, lost_requests %d (lost_other %d, "
      "lost_calls %d), %d reports, exit %s%s"
      % (run, w, disk, asked, lost, other, calls, reps, st, "" if ok else " UNCOUNTED"))
sys.exit(0 if ok else 1)
EOF
	if [ $? != 0 ]; then
		bad=1
		grep -i "counters" "$TMP/err" | sed 's/^/  /'
	fi
done
exit $bad
