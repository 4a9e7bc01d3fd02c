#!/bin/bash
# kstamps-cost.sh: BPF ns per block request of blktop builds in turn (issue 42,
# decision 2): bpf_stats of each run's own block programs (found by the prog
# ids in its fdinfo), fio 4 KiB random reads, direct, libaio, QD 32 on a
# /dev/shm loop device, --no-vfs. Run as root under the bench lock:
#   ROUNDS=3 SECS=5 flock /tmp/blktop-bench.lock bench/kstamps-cost.sh OLD/blktop NEW/blktop
set -u
ROUNDS=${ROUNDS:-2}; SECS=${SECS:-6}
sysctl -qw kernel.bpf_stats_enabled=1
img=/dev/shm/kstamps-bench-$$.img
truncate -s 512M $img; L=$(losetup -f --show $img); D=$(basename $L)
trap 'losetup -d $L; rm -f $img' EXIT
dd if=/dev/zero of=$L bs=1M count=512 oflag=direct status=none
ids() { grep -h prog_id /proc/$1/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u | tr '\n' ' '; }
stats() { bpftool -j prog show | python3 -c '
import json,sys
mine=set(sys.argv[1].split()); t=0; n={}
for p in json.load(sys.stdin):
    if str(p["id"]) not in mine: continue
    nm=p.get("name","")
    if nm[3:] in ("io_start","rq_insert","rq_issue","rq_complete","rq_requeue","rq_merge"):
        t+=p.get("run_time_ns",0); n[nm]=(p.get("run_cnt",0),p.get("run_time_ns",0))
print(t, n.get("tb_rq_complete",(0,0))[0], " ".join("%s=%d/%d"%(k,v[1],v[0]) for k,v in sorted(n.items())))' "$1"; }
for r in $(seq $ROUNDS); do
for B in "$@"; do
	$B -J -d 1 -D $D --no-vfs > /dev/null 2>/tmp/kstamps-bench.err &
	p=$!
	sleep 3
	old=$(ids $p)
	read t0 c0 d0 <<<"$(stats "$old")"
	fio --filename=$L --direct=1 --ioengine=libaio --iodepth=32 --name=r --rw=randread --bs=4k --size=512M --runtime=$SECS --time_based --output-format=json > /tmp/kstamps-bench.fio
	read t1 c1 d1 <<<"$(stats "$old")"
	iops=$(python3 -c 'import json;print(int(json.load(open("/tmp/kstamps-bench.fio"))["jobs"][0]["read"]["iops"]))')
	kill -INT $p; wait $p
	echo "round $r $B: $(( (t1 - t0) / (c1 - c0) )) ns/req over $((c1 - c0)) requests, iops $iops; $d1"
done
done
