#!/bin/bash
# degrade.sh: a feature this kernel cannot give is left out with its reason,
# never shown as 0, and the rest works. Two ways to get such a kernel here:
# BLKTOP_VFS_REFUSE=GROUP loads the vfs object as if the verifier had refused
# that group's programs (the load is tried again without them), and
# BLKTOP_BPF_BUILD=compat loads the objects built for Linux 5.10-5.12 (no
# atomic fetch, no callbacks: no libaio, no munmaps). Counted against what the
# workload did and /proc/diskstats; ext4 on a loop device in /dev/shm.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs
need_cmd fio fio

# No lazy init and no atime: the device is quiet but for the workload.
ext4_on_loop 128 noatime -E lazy_itable_init=0,lazy_journal_init=0 || exit 0
DEV=${LOOP#/dev/}
dd if=/dev/urandom of="$MNT/u1" bs=1M count=4 status=none
dd if=/dev/urandom of="$MNT/r1" bs=1M count=1 status=none
sync

# The workload: 16 reads of 4 KiB and an mmap/munmap of r1, then 256 direct
# io_uring reads of u1 (fio); prints its pid first.
work() {
	python3 - "$MNT" <<'EOF'
import mmap, os, subprocess, sys
mnt = sys.argv[1]
print(os.getpid(), flush=True)
fd = os.open(mnt + "/r1", os.O_RDONLY)
for i in range(16):
    assert len(os.read(fd, 4096)) == 4096
m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ)
m.close()
os.close(fd)
subprocess.run(["fio", "--name=u", "--filename=" + mnt + "/u1", "--size=4M", "--io_size=1M",
                "--bs=4k", "--rw=randread", "--direct=1", "--ioengine=io_uring", "--iodepth=8",
                "--output=/dev/null"], check=True)
EOF
}

# run NAME ENV...: blktop -J around the workload, with ENV; diskstats before and after.
run() {
	local name=$1 out=$TEST_TMP/$1.jsonl pid
	shift
	sync
	env "$@" "$BLKTOP" -J -d 0.5 --top 500 -D "$DEV" -w "$TEST_TMP/$name.cap" >"$out" \
	    2>"$TEST_TMP/$name.err" &
	pid=$!
	TEST_PIDS="$TEST_PIDS $pid"
	wait_for "$out" "$START_S" || { fail "$name: blktop started"; cat "$TEST_TMP/$name.err"; }
	diskstats "$DEV" >"$TEST_TMP/$name.ds0"
	work >"$TEST_TMP/$name.pid"
	sleep 1.2
	diskstats "$DEV" >"$TEST_TMP/$name.ds1"
	sleep 0.6
	kill -INT "$pid"
	wait "$pid"
}

# verdict NAME EXPR...: python checks over the run's reports; prints PASS/FAIL lines.
verdict() {
	local name=$1
	shift
	python3 - "$TEST_TMP/$name.jsonl" "$MNT" "$(cat "$TEST_TMP/$name.pid")" \
	    "$(cat "$TEST_TMP/$name.ds0")" "$(cat "$TEST_TMP/$name.ds1")" "$TEST_NAME: $name" "$@" <<'EOF'
import json, sys
path, mnt, wpid, ds0, ds1, tag = sys.argv[1:7]
checks = sys.argv[7:]
reps = [json.loads(l) for l in open(path)]
wpid = int(wpid)
d0 = [int(x) for x in ds0.split()]
d1 = [int(x) for x in ds1.split()]
disk = {"reads": d1[0] - d0[0], "rbytes": (d1[1] - d0[1]) * 512,
        "writes": d1[2] - d0[2], "wbytes": (d1[3] - d0[3]) * 512, "io_ticks": d1[6] - d0[6]}
def tot(key, rows, match):
    vals = [r.get(key) for rep in reps for r in rep[rows] if match(r)]
    return "no rows" if not vals else None if any(v is None for v in vals) else sum(vals)
def file(key, name):
    return tot(key, "files", lambda r: r["path"] == mnt + "/" + name)
def proc(key):
    return tot(key, "processes", lambda r: r["pid"] == wpid)
def busy_ms():
    # %util is part_stat's io_ticks per tick (jiffies: a burst inside one adds 0).
    return sum(dv['util_pct'] / 100 * rep['interval_s'] * 1000 for rep in reps for dv in rep['devices'])
def dev(op, key):
    return sum(dv[op][key] for rep in reps for dv in rep["devices"])
na = [rep.get("unavailable", {}) for rep in reps]
for c in checks:
    what, expr = c.split("::", 1)
    try:
        ok, got = eval(expr)
    except Exception as e:
        ok, got = False, repr(e)
    print("%s: %s: %s (got %s)" % ("PASS" if ok else "FAIL", tag, what, got))
EOF
}

# 1. io_uring's programs refused: everything else counted, io_uring null with its reason.
run refuse BLKTOP_VFS_REFUSE=uring
BLKTOP_VFS_REFUSE=uring "$BLKTOP" -b -d 0.3 -n 1 -D "$DEV" >"$TEST_TMP/refuse.txt" 2>/dev/null
check "refuse: -b's header says n/a: uring" grep -q "  n/a: uring" "$TEST_TMP/refuse.txt"
check "refuse: the warning names the group and why" \
    grep -q "not traced on this kernel: uring (left out by BLKTOP_VFS_REFUSE)" "$TEST_TMP/refuse.err"
verdict refuse \
    "every report says uring is unavailable and why::(all(n.get('uring') == 'left out by BLKTOP_VFS_REFUSE' for n in na) and len(na) > 0, na[-1])" \
    "nothing else is unavailable::(all(set(n) == {'uring'} for n in na), na[-1])" \
    "the workload's uring_reads are null, not 0::(proc('uring_reads') is None, proc('uring_reads'))" \
    "u1's uring_reads are null (or u1 has no row)::(file('uring_reads', 'u1') in (None, 'no rows'), file('uring_reads', 'u1'))" \
    "r1's 16 reads are counted::(file('call_reads', 'r1') == 16, file('call_reads', 'r1'))" \
    "r1's read bytes are 65536::(file('call_read_bytes', 'r1') == 65536, file('call_read_bytes', 'r1'))" \
    "the block reads equal /proc/diskstats::(dev('read', 'ios') == disk['reads'], (dev('read', 'ios'), disk['reads']))" \
    "fio's 256 direct block reads are counted on the process::(tot('req_read_bytes', 'processes', lambda r: r['comm'] == 'fio') >= 1048576, tot('req_read_bytes', 'processes', lambda r: r['comm'] == 'fio'))"

# 2. The 5.10-5.12 build: block exact, calls exact, libaio and munmaps null with their reasons.
BLKTOP_BPF_BUILD=compat "$BLKTOP" --probe >"$TEST_TMP/probe.txt" 2>&1
check "compat: --probe names the build" grep -q "^bpf build: compat" "$TEST_TMP/probe.txt"
check "compat: --probe says libaio needs bpf_loop" \
    grep -qE "^feature: aio +n/a: needs the bpf_loop helper \(Linux 5.17\)" "$TEST_TMP/probe.txt"
check "compat: --probe says munmaps need bpf_find_vma" \
    grep -qE "^feature: munmap +n/a: needs the bpf_find_vma helper \(Linux 5.17\)" "$TEST_TMP/probe.txt"
check "compat: --probe says io_uring works" grep -qE "^feature: uring +works" "$TEST_TMP/probe.txt"
run compat BLKTOP_BPF_BUILD=compat
verdict compat \
    "the block reads equal /proc/diskstats::(dev('read', 'ios') == disk['reads'], (dev('read', 'ios'), disk['reads']))" \
    "the block read bytes equal /proc/diskstats::(dev('read', 'bytes') == disk['rbytes'], (dev('read', 'bytes'), disk['rbytes']))" \
    "the block writes equal /proc/diskstats::(dev('write', 'ios') == disk['writes'], (dev('write', 'ios'), disk['writes']))" \
    "util is the kernel's io_ticks over the run (within a jiffy)::(abs(busy_ms() - disk['io_ticks']) <= 4.5 + 0.01 * disk['io_ticks'], (round(busy_ms(), 2), disk['io_ticks']))" \
    "r1's 16 reads are counted::(file('call_reads', 'r1') == 16, file('call_reads', 'r1'))" \
    "u1's 256 io_uring reads are counted::(file('uring_reads', 'u1') == 256, file('uring_reads', 'u1'))" \
    "aio and munmap are unavailable with their reasons::(all(n.get('aio', '').startswith('needs the bpf_loop') and n.get('munmap', '').startswith('needs the bpf_find_vma') for n in na), na[-1])" \
    "the workload's munmaps are null::(proc('munmaps') is None, proc('munmaps'))" \
    "the workload's mmaps are counted::((proc('mmaps') or 0) >= 1, proc('mmaps'))" \
    "the workload's aio_reads are null::(proc('aio_reads') is None, proc('aio_reads'))"

# The captures replay to the same reports, what was unavailable and why included.
for name in refuse compat; do
	"$BLKTOP" -r "$TEST_TMP/$name.cap" -J --top 500 >"$TEST_TMP/$name.replay" 2>"$TEST_TMP/$name.rerr"
	check "$name: the capture replays to the same reports" \
	    cmp -s <(noself "$TEST_TMP/$name.jsonl") <(noself "$TEST_TMP/$name.replay")
	check "$name: the replay says what was unavailable, as the live run did" \
	    grep -q '"unavailable":{' "$TEST_TMP/$name.replay"
done

# 3. The UI says what it cannot see: the bottom line, and why in the help.
need_cmd tmux tmux
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s ui -x 140 -y 40 \
    "env BLKTOP_VFS_REFUSE=aio $BLKTOP -D $DEV 2>$TEST_TMP/ui.err"
check "ui: the bottom line says n/a: aio" wait_screen 30 "n/a: aio"
"${TMUX_CMD[@]}" send-keys -t ui '?'
check "ui: the help says why" wait_screen 10 "n/a aio +left out by BLKTOP_VFS_REFUSE"
"${TMUX_CMD[@]}" send-keys -t ui q q
