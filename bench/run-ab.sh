#!/bin/bash
# run-ab.sh: what a switch of blktop's running BPF objects is worth, measured
# by turning it off and on in place: one blktop, one workload running
# throughout, the switch (a u32 in an object's .bss, found by name in its BTF)
# flipped every SECS seconds in ABBA order for PHASES phases, bpf_stats read
# at each phase's ends. Adjacent phases share the machine's state, so their
# differences resolve what separate runs on this noisy VM do not.
#   bench/run-ab.sh [BLKTOP]        (default build/blktop)
# READLOOP (bench/bench-readloop: give a build dir's), VAR (batch_on), OBJ
# (vfs: the cached read loop, per read() call; block: fio 4k random reads,
# direct, libaio, qd 8, on a /dev/shm loop device, per request), PHASES (20),
# SECS (1.5). Prints each phase and, per setting, the
# median BPF ns per event and the median of the paired differences. The block
# object has no such switch today (its batches were measured with this, and
# taken out: doc/performance.md, known limits); any u32 of an object's .bss can be VAR.
set -u
BLKTOP=${1:-build/blktop}
VAR=${VAR:-batch_on}
OBJ=${OBJ:-vfs}
PHASES=${PHASES:-20}
SECS=${SECS:-1.5}
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d /dev/shm/blktop-ab-XXXXXX) || exit 1
BENCH_FILES+=("$dir")
bench_bpf_stats
bench_at_exit '[ -n "${tpid:-}" ] && kill -INT "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null'
bench_at_exit '[ -n "${wpid:-}" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null'
runtime=$(python3 -c "print(int($PHASES * ($SECS + 0.6) + 10))")
if [ "$OBJ" = vfs ]; then
	head -c $((64 << 20)) /dev/urandom >"$dir/cached.bin"
	"$BLKTOP" -J -d 1 -c bench-readloop >/dev/null 2>&1 &
	tpid=$!
	sleep 4
	taskset -c 1 "${READLOOP:-$(dirname "$0")/bench-readloop}" "$dir/cached.bin" "$runtime" >/dev/null &
	wpid=$!
	map=vfs_bpf.bss; progs="vfs_tp_enter_read vfs_tp_exit_read"; per=vfs_tp_exit_read
elif [ "$OBJ" = aio ] || [ "$OBJ" = uring ]; then
	bench_loop 512M zero || exit 1
	"$BLKTOP" -J -d 1 >/dev/null 2>&1 &
	tpid=$!
	sleep 6
	eng=libaio; [ "$OBJ" = uring ] && eng=io_uring
	fio --name=ab --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine=$eng \
	    --iodepth=32 --numjobs=2 --runtime="$runtime" --time_based --output=/dev/null &
	wpid=$!
	map=vfs_bpf.bss; progs=$(bpftool -j prog show | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin) if "name" in p))'); per=tb_rq_complete
else
	bench_loop 512M zero || exit 1
	"$BLKTOP" -J -d 1 --no-vfs >/dev/null 2>&1 &
	tpid=$!
	sleep 3
	fio --name=ab --filename="$LOOP" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	    --iodepth=8 --runtime="$runtime" --time_based --output=/dev/null &
	wpid=$!
	map=blktop_b.bss; progs="tb_io_start tb_rq_insert tb_rq_issue tb_rq_complete rt_io_start rt_rq_insert rt_rq_issue rt_rq_complete"; per=complete
fi
sleep 1
map=${MAP:-$map}
PYTHONPATH="$(dirname "$0")" python3 - "$map" "$VAR" "$PHASES" "$SECS" "$per" $progs <<'PY'
import statistics, sys, time
from bss_switch import BssVar, bpftool as bt
mapname, var, phases, secs, per, progs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], set(sys.argv[6:])
try:
    setv = BssVar(mapname, var).set
except LookupError as e:
    sys.exit("run-ab: %s" % e)
def snap():
    return {p["name"]: (p.get("run_time_ns", 0), p.get("run_cnt", 0))
            for p in bt("prog", "show") if p.get("name") in progs}
res = {0: [], 1: []}
byprog = {}
for i in range(phases):
    v = i % 2 if (i // 2) % 2 == 0 else 1 - i % 2
    setv(v)
    time.sleep(0.3)
    a = snap(); time.sleep(secs); b = snap()
    cnt = [b[k][1] - a[k][1] for k in b if per in k and k in a]
    n = max(sum(cnt), 1)
    ns = sum(b[k][0] - a[k][0] for k in b if k in a) / n
    res[v].append(ns)
    for k in b:
        if k in a:
            byprog.setdefault((v, k), []).append((b[k][0] - a[k][0]) / n)
    print("phase %2d %s=%d: %.1f ns of BPF per event (%d events)" % (i, var, v, ns, n))
setv(1)
pairs = [y - x for x, y in zip(res[0], res[1])]
for v in (0, 1):
    print("median %s=%d: %.1f ns per event (%s)" % (var, v, statistics.median(res[v]),
          " ".join("%.0f" % x for x in res[v])))
for k in sorted(set(k for _, k in byprog)):
    m = [statistics.median(byprog.get((v, k), [0])) for v in (0, 1)]
    if max(m) >= 5:
        print("  %-22s %s=0: %6.1f  %s=1: %6.1f ns per event" % (k, var, m[0], var, m[1]))
print("median paired difference (%s=1 minus 0): %.1f ns" % (var, statistics.median(pairs)))
PY
