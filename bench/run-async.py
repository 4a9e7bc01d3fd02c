#!/usr/bin/env python3
"""run-async.py: what tracing costs the async I/O of fio (issue 28's table).

fio 4 KiB random reads, --direct=1 --iodepth=32 --numjobs=2, SECS seconds, on
a /dev/shm loop device, with libaio and with io_uring; each tracer started (all its
programs loaded, at least 3 s) before fio and stopped after; ROUNDS rounds, the tracers in a rotated order
each round. Per tracer and engine it prints IOPS as a share of the untraced
run of the same round, BPF run time of the tracer's programs (bpf_stats) per
request the device completed, each program's part, the CPU time of the tracer's
own process per request (its threads' run time, /proc/PID/task/*/sched: what draining and
counting the records costs in user space and system calls), blktop's lost
events, and what a stopped tracer's programs still ran: their BPF run time from
the stop signal (SIGINT, fio still running) until the kernel released the last
of them, and how long that took.
The medians close the table; the floors of issue 28 are checked against them.

    bench/run-async.py [NAME=CMD ...]
    default tracers: none, biolatency, blktop (BLKTOP -J -d 1),
    blktop --no-vfs; BLKTOP=build/blktop, ROUNDS=3, SECS=4, ENGINES=libaio,io_uring,
    OLD=path/to/another/blktop adds "old" and "old --no-vfs";
    FLOOR=SET,SET... adds bench-floor's sets (floor.bpf.c) as tracers beside the
    defaults (FLOOR_BIN=build/bench/bench-floor, FLOOR_OBJ=build/bench/floor.bpf.o;
    `make bench` builds them), e.g. FLOOR=min,async-blk.
READLOOP=bench/bench-readloop also measures BPF ns per cached 4 KiB read()
and pread() call (blktop -c bench-readloop), READLOOP_ROUNDS times each
(default 5), alternating with OLD's blktop where OLD= is given;
READLOOP_MODES=read (default read,pread) the calls measured. ENGINES=
(empty) measures only that.

A tracer's programs are those that appear while it starts and that its
process holds (the prog ids of its fds), so programs others load meanwhile
are not counted; their work still slows the runs (take
/tmp/blktop-bench.lock). The loop device and its file are removed on every
exit path.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = int(os.environ.get("ROUNDS", "3"))
SECS = float(os.environ.get("SECS", "4"))
ENGINES = [e for e in os.environ.get("ENGINES", "libaio,io_uring").split(",") if e]
BLKTOP = os.environ.get("BLKTOP", "build/blktop")
READLOOP = os.environ.get("READLOOP", "")
READLOOP_ROUNDS = int(os.environ.get("READLOOP_ROUNDS", "5"))


def tracers():
    if len(sys.argv) > 1:
        return [("none", "")] + [tuple(a.split("=", 1)) for a in sys.argv[1:]]
    t = [("none", ""), ("biolatency", "biolatency"),
         ("blktop", BLKTOP + " -J -d 1"), ("blktop --no-vfs", BLKTOP + " -J -d 1 --no-vfs")]
    for st in [x for x in os.environ.get("FLOOR", "").split(",") if x]:
        t.append(("floor " + st, "%s %s %s" % (os.environ.get("FLOOR_BIN", "build/bench/bench-floor"),
                                               os.environ.get("FLOOR_OBJ", "build/bench/floor.bpf.o"), st)))
    if os.environ.get("OLD"):
        t += [("old", os.environ["OLD"] + " -J -d 1"),
              ("old --no-vfs", os.environ["OLD"] + " -J -d 1 --no-vfs")]
    return t


def progs():
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout
    return {p["id"]: (p.get("name", "?"), p.get("run_time_ns", 0), p.get("run_cnt", 0))
            for p in json.loads(out or "[]")}


def diskstats(dev):
    with open("/proc/diskstats") as f:
        for line in f:
            w = line.split()
            if w[2] == dev:
                return int(w[3]) + int(w[7])
    raise SystemExit("run-async: %s not in /proc/diskstats" % dev)


def start(cmd, out):
    before = set(progs())
    p = subprocess.Popen(cmd.split(), stdout=out, stderr=subprocess.DEVNULL)
    # Attached: at least 3 s, and no program came in the last 1.5 s (blktop
    # loads its optional programs after the others).
    t0, n, since = time.time(), -1, time.time()
    while time.time() - t0 < 3 or time.time() - since < 1.5:
        if p.poll() is not None:
            raise SystemExit("run-async: %r exited at start" % cmd)
        if time.time() - t0 > 30:
            p.kill()	# not left running beside what comes next
            p.wait()
            raise SystemExit("run-async: %r still loading programs after 30 s" % cmd)
        m = len(set(progs()) - before)
        if m != n:
            n, since = m, time.time()
        time.sleep(0.25)
    ids = set(progs()) - before
    own = own_progs(p.pid)
    return p, (ids & own if own else ids)


def own_progs(pid):
    """The ids of the BPF programs process pid holds (prog and link fds), so
    that programs another user loads beside it meanwhile are not counted."""
    ids = set()
    try:
        for fd in os.listdir("/proc/%d/fdinfo" % pid):
            try:
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    for line in f:
                        if line.startswith("prog_id:"):
                            ids.add(int(line.split()[1]))
            except (OSError, ValueError):
                pass
    except OSError:
        pass
    return ids


TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(p):
    """CPU time of process p and all its threads so far, in seconds (0 if none):
    their se.sum_exec_runtime (ns, in ms) where /proc/PID/task/*/sched has it,
    else utime + stime in clock ticks."""
    if p is None:
        return 0.0
    try:
        total, seen = 0.0, False
        for tid in os.listdir("/proc/%d/task" % p.pid):
            with open("/proc/%d/task/%s/sched" % (p.pid, tid)) as f:
                for line in f:
                    if line.startswith("se.sum_exec_runtime"):
                        total += float(line.split(":")[1]) / 1e3
                        seen = True
        if seen:
            return total
    except OSError:
        pass
    try:
        with open("/proc/%d/stat" % p.pid) as f:
            w = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(w[11]) + int(w[12])) / TICK	# utime, stime: fields 14 and 15


def stop(p, ids=(), busy=None):
    """SIGINT, and wait. With ids (the tracer's programs) and busy (a process
    doing I/O meanwhile, or None): (ms of BPF run time the programs ran after
    the signal, s until the last of them was gone), watched for 10 s at most."""
    a = progs() if ids else {}
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    if not ids:
        return None
    last = {i: a[i][1] for i in ids if i in a}
    gone = time.time() - t0
    while time.time() - t0 < 10:
        now = progs()
        live = [i for i in ids if i in now]
        for i in live:
            last[i] = now[i][1]
        gone = time.time() - t0
        if not live or (busy is not None and busy.poll() is not None):
            break
        time.sleep(0.02)
    return (sum(last[i] - a[i][1] for i in last) / 1e6, gone)


def lost_of(path):
    """blktop's lost events over the run (each report's lost is its interval's)."""
    n = 0
    try:
        with open(path) as f:
            for line in f:
                try:
                    n += json.loads(line).get("lost", 0)
                except ValueError:
                    pass
    except OSError:
        return None
    return n


def fio_args(loop, engine, secs):
    return ["fio", "--name=b", "--filename=" + loop, "--rw=randread", "--bs=4k", "--direct=1",
            "--iodepth=32", "--numjobs=2", "--ioengine=" + engine, "--runtime=%g" % secs,
            "--time_based", "--group_reporting", "--output-format=json"]


def fio(loop, engine):
    out = subprocess.run(fio_args(loop, engine, SECS), capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out[out.index("{"):])["jobs"][0]["read"]["iops"]


def stopped(loop, engine, p, ids):
    """Stop tracer p while the same fio job runs: what its programs ran after the signal."""
    busy = subprocess.Popen(fio_args(loop, engine, 20), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        return stop(p, ids, busy)
    finally:
        busy.send_signal(signal.SIGINT)
        busy.wait()


def run_one(loop, dev, engine, name, cmd, tmp):
    out_path = os.path.join(tmp, "out.json")
    p = ids = None
    after = None
    with open(out_path, "w") as out:
        if cmd:
            p, ids = start(cmd, out)
        try:
            a = progs()
            c0 = cpu_s(p)
            r0 = diskstats(dev)
            iops = fio(loop, engine)
            r1 = diskstats(dev)
            c1 = cpu_s(p)
            b = progs()
            if p:
                after, p = stopped(loop, engine, p, ids), None
        finally:
            if p:
                stop(p)
    reqs = max(r1 - r0, 1)
    per = {}
    for i in ids or ():
        if i in a and i in b:
            nm = b[i][0]
            per[nm] = per.get(nm, 0) + (b[i][1] - a[i][1]) / reqs
    lost = lost_of(out_path) if cmd and "blktop" in cmd else None
    return iops, reqs, per, lost, (c1 - c0) * 1e9 / reqs, after


def med(v):
    return statistics.median(v) if v else float("nan")


def readloop_one(cmd, path, mode):
    """One tracer over the read loop: calls/s and its programs' BPF ns per call."""
    with open(os.devnull, "w") as out:
        p, ids = start(cmd, out)
        try:
            a = progs()
            rate = float(subprocess.run(["taskset", "-c", "1", READLOOP, path, str(SECS)] +
                                        (["pread"] if mode == "pread" else []),
                                        capture_output=True, text=True, check=True).stdout)
            b = progs()
        finally:
            stop(p, ids)	# and its programs gone before the next tracer starts
    calls = rate * SECS
    per = {}
    for i in ids:
        if i in a and i in b and b[i][1] > a[i][1]:
            per[b[i][0]] = per.get(b[i][0], 0) + (b[i][1] - a[i][1]) / calls
    return rate, per


def readloop(tmp, mode):
    """blktop over a cached 4 KiB read loop; for read(), the "names its file"
    floor (bench-floor vfs-file) in the same rounds, alternating with it (the
    floor has no pread64 programs)."""
    path = os.path.join(tmp, "cached.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(64 << 20))
    floor = "%s %s vfs-file" % (os.environ.get("FLOOR_BIN", "build/bench/bench-floor"),
                                os.environ.get("FLOOR_OBJ", "build/bench/floor.bpf.o"))
    with_floor = mode == "read" and os.path.exists(floor.split()[0])
    res, fres, ores = [], [], []
    for r in range(READLOOP_ROUNDS):
        runs = [("blktop", BLKTOP + " -J -d 1 -c bench-readloop")]
        if os.environ.get("OLD"):
            runs.append(("old", os.environ["OLD"] + " -J -d 1 -c bench-readloop"))
        if with_floor:
            runs.append(("floor vfs-file", floor))
        runs = runs[r % len(runs):] + runs[:r % len(runs)]
        for name, cmd in runs:
            rate, per = readloop_one(cmd, path, mode)
            ns = sum(per.values())
            print("%s loop round %d %s: %.0f calls/s, %.1f ns of BPF per call (%s)" % (
                mode, r + 1, name, rate, ns, ", ".join("%s %.0f" % kv for kv in
                                                       sorted(per.items(), key=lambda kv: -kv[1])
                                                       if kv[1] >= 1)), flush=True)
            {"blktop": res, "old": ores}.get(name, fres).append(ns)
    print("median %s loop: %.1f ns of BPF per cached 4 KiB %s() call (%s)"
          % (mode, med(res), mode, " ".join("%.0f" % x for x in res)))
    if ores:
        print("median %s loop, old: %.1f ns (%s)" % (mode, med(ores), " ".join("%.0f" % x for x in ores)))
    if fres:
        print("median %s loop, floor vfs-file: %.1f ns (%s); blktop / floor %.2f (<= 1.15: %s)"
              % (mode, med(fres), " ".join("%.0f" % x for x in fres), med(res) / med(fres),
                 "met" if med(res) <= 1.15 * med(fres) else "NOT met"))


def main():
    old_stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    tmp = tempfile.mkdtemp(prefix="blktop-async-", dir="/dev/shm")
    img = os.path.join(tmp, "disk.img")
    loop = None

    def cleanup(*_):
        if loop:
            subprocess.run(["losetup", "-d", loop])
        subprocess.run(["rm", "-rf", tmp])
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write(old_stats)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled", "w") as f:
            f.write("1")
        with open(img, "wb") as f:
            f.truncate(1 << 30)
        loop = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True,
                              check=True).stdout.strip()
        subprocess.run(["dd", "if=/dev/zero", "of=" + loop, "bs=1M", "count=1024", "status=none",
                        "oflag=direct"], check=True)
        dev = os.path.basename(loop)
        ts = tracers()
        res = {}
        for r in range(ROUNDS):
            for engine in ENGINES:
                order = ts[r % len(ts):] + ts[:r % len(ts)]
                base = None
                rows = []
                for name, cmd in order:
                    iops, reqs, per, lost, cpu, after = run_one(loop, dev, engine, name, cmd, tmp)
                    rows.append((name, iops, reqs, per, lost, cpu, after))
                    if name == "none":
                        base = iops
                for name, iops, reqs, per, lost, cpu, after in rows:
                    ns = sum(per.values())
                    share = iops / base if base else float("nan")
                    d = res.setdefault((engine, name), {"share": [], "ns": [], "per": {}, "lost": [],
                                                        "cpu": [], "after_ms": [], "gone_s": []})
                    d["share"].append(share)
                    if name != "none":
                        d["ns"].append(ns)
                        d["cpu"].append(cpu)
                    for k, v in per.items():
                        d["per"].setdefault(k, []).append(v)
                    if lost is not None:
                        d["lost"].append(lost)
                    if after is not None:
                        d["after_ms"].append(after[0])
                        d["gone_s"].append(after[1])
                    print("round %d %-8s %-16s %7.0f IOPS  share %.2f  %6.0f ns BPF/request  %5.0f ns CPU/request%s%s" % (
                        r + 1, engine, name, iops, share, ns, cpu,
                        "" if lost is None else "  lost %d" % lost,
                        "" if after is None else "  stopped: %.1f ms BPF, gone after %.2f s" % after),
                          flush=True)
        print()
        print("| tracer | engine | IOPS share (median; runs) | BPF ns/request (median; runs) | process CPU ns/request (median; runs) | lost |")
        print("|---|---|---|---|---|---|")
        for engine in ENGINES:
            for name, _ in ts:
                d = res[(engine, name)]
                print("| %s | %s | %.2f (%s) | %s | %s | %s |" % (
                    name, engine, med(d["share"]), " ".join("%.2f" % x for x in d["share"]),
                    "%.0f (%s)" % (med(d["ns"]), " ".join("%.0f" % x for x in d["ns"])) if d["ns"] else "-",
                    "%.0f (%s)" % (med(d["cpu"]), " ".join("%.0f" % x for x in d["cpu"])) if d["cpu"] else "-",
                    sum(d["lost"]) if d["lost"] else "-"))
        print()
        print("Per program, median BPF ns per request:")
        for engine in ENGINES:
            for name, _ in ts:
                per = res[(engine, name)]["per"]
                if per:
                    print("  %s %s: %s" % (engine, name, ", ".join(
                        "%s %.0f" % (k, med(v)) for k, v in
                        sorted(per.items(), key=lambda kv: -med(kv[1])) if med(v) >= 1)))
        print()
        print("Stopped tracers (SIGINT while fio runs), median: BPF ms its programs ran after the signal; s until the last was gone:")
        for engine in ENGINES:
            for name, _ in ts:
                d = res[(engine, name)]
                if d["after_ms"]:
                    print("  %s %s: %.1f ms BPF (%s), gone after %.2f s (%s)" % (
                        engine, name, med(d["after_ms"]), " ".join("%.1f" % x for x in d["after_ms"]),
                        med(d["gone_s"]), " ".join("%.2f" % x for x in d["gone_s"])))
        names = [n for n, _ in ts]
        if "biolatency" in names and "blktop" in names:
            print()
            for engine in ENGINES:
                bio, bt = res[(engine, "biolatency")], res[(engine, "blktop")]
                nv = res.get((engine, "blktop --no-vfs"))
                print("%s floors: share %.2f vs biolatency %.2f (>= %.2f: %s); ns %.0f <= 1.2 x %.0f: %s%s" % (
                    engine, med(bt["share"]), med(bio["share"]), med(bio["share"]) - 0.05,
                    "met" if med(bt["share"]) >= med(bio["share"]) - 0.05 else "NOT met",
                    med(bt["ns"]), med(bio["ns"]),
                    "met" if med(bt["ns"]) <= 1.2 * med(bio["ns"]) else "NOT met",
                    "; --no-vfs %.0f <= %.0f: %s" % (med(nv["ns"]), med(bio["ns"]),
                        "met" if med(nv["ns"]) <= med(bio["ns"]) else "NOT met") if nv else ""))
        if READLOOP:
            for mode in [m for m in os.environ.get("READLOOP_MODES", "read,pread").split(",") if m]:
                print()
                readloop(tmp, mode)
    finally:
        cleanup()


if __name__ == "__main__":
    main()
