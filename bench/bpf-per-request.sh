#!/bin/bash
# bench/bpf-per-request.sh BLKTOP ENGINE [SECS]: BPF ns per request of one blktop's own
# programs (bpf_stats, by the prog ids its fds hold: others' programs beside it are
# not counted) and its own CPU per request, over fio 4 KiB random reads, O_DIRECT,
# QD 32, 2 jobs on a fresh loop device of /dev/shm. Run it under
# flock /tmp/blktop-bench.lock; BLKTOP_KIO=0 in the environment for the old path.
B=$1 ENG=$2 SECS=${3:-5}
T=$(mktemp -d) P= L=
IMG=/dev/shm/kio-bench-$$.img
trap '[ -n "$P" ] && kill -INT $P 2>/dev/null; [ -n "$L" ] && losetup -d $L; rm -f $IMG; rm -rf "$T"' EXIT
sysctl -q kernel.bpf_stats_enabled=1
truncate -s 256M $IMG; L=$(losetup -f --show $IMG)
rm -f $T/out.jsonl
"$B" -J -d 1 > $T/out.jsonl 2>/dev/null & P=$!
for i in $(seq 300); do [ -s $T/out.jsonl ] && break; sleep 0.2; done
sleep 1
grep -h "^prog_id:" /proc/$P/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u > $T/ids.txt
bpftool -j prog show > $T/before.json
read u0 s0 < <(awk '{print $14, $15}' /proc/$P/stat)
fio --name=k --filename=$L --direct=1 --ioengine=$ENG --rw=randread --bs=4k --iodepth=32 --numjobs=2 --time_based --runtime=$SECS --output-format=json --output=$T/fio.json >/dev/null
read u1 s1 < <(awk '{print $14, $15}' /proc/$P/stat)
bpftool -j prog show > $T/after.json
kill -INT $P; wait $P; BP=$P P=
python3 - $BP $ENG $u0 $s0 $u1 $s1 "$T/ids.txt" "$T/before.json" "$T/after.json" "$T/fio.json" <<'PY'
import json,sys,os
pid=int(sys.argv[1]); eng=sys.argv[2]; u0,s0,u1,s1=map(int,sys.argv[3:7])
ids={int(x) for x in open(sys.argv[7]).read().split()}
def load(f):
    d={}
    for p in json.load(open(f)):
        if p["id"] in ids:
            d[p["id"]]=(p.get("name"),p.get("run_time_ns",0),p.get("run_cnt",0))
    return d
b=load(sys.argv[8]); a=load(sys.argv[9])
fj=json.load(open(sys.argv[10])); ios=sum(j["read"]["total_ios"] for j in fj["jobs"])
tot=0; parts=[]
for i,(n,t,c) in a.items():
    t0,c0=b.get(i,(n,0,0))[1:]
    dt=t-t0; dc=c-c0
    if dc: parts.append("%s %d runs %.0f ns/req"%(n,dc,dt/ios)); tot+=dt
hz=os.sysconf("SC_CLK_TCK")
cpu=((u1-u0)+(s1-s0))/hz*1e9
print("%s: ios %d iops %.0f  BPF %.0f ns/req  own CPU %.0f ns/req"%(eng,ios,sum(j["read"]["iops"] for j in fj["jobs"]),tot/ios,cpu/ios))
for p in parts: print("   ",p)
PY
