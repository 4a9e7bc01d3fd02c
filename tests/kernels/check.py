#!/usr/bin/env python3
"""check.py: judge what tests/kernels/guest.sh collected in one guest.

usage: check.py OUTDIR --kernel NAME --suite SUITE [--console LOG] [--results FILE]

OUTDIR is the guest's /out brought back by boot.sh. Prints one PASS:/FAIL:
line per check, each naming the kernel ("FAIL: kernel bookworm 6.1.176: ..."),
and writes the per-feature verdicts as JSON (--results, default
OUTDIR/../results.json) for matrix.py. Exits 1 if any check failed.

The checks mirror tests/integration: pipeline.sh and compare.py (block
requests against /proc/diskstats), vfs.sh (iowork's calls and bytes),
diskbytes.sh (disk bytes of a write+fsync, a cold read, a cold mmap; io_uring
and libaio through fio), lifecycle.sh (opens, creates, closes... per process
and file) and record.sh (a capture replays to the same reports).

A feature blktop says this kernel lacks (--probe: "unavailable: not in this
kernel", and null in -J) is "n/a" with blktop's reason: a PASS line. A hook
that is there but did not load (the verifier refused it: "unavailable: load:
...") is a FAIL, and so is a zero or a wrong figure.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from blkreports import KEYS, device_totals, diskstats_delta  # noqa: E402

args = sys.argv[1:]
if not args or args[0].startswith("-"):
    sys.exit(__doc__)
OUT = args[0]


def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default


KERNEL = opt("--kernel", "?")
SUITE = opt("--suite", "?")
RESULTS = opt("--results", os.path.join(os.path.dirname(os.path.abspath(OUT)), "results.json"))
CONSOLE = opt("--console")

# The matrix's columns, in order, and what each means.
FEATURES = [
    ("probe", "blktop --probe names a plan"),
    ("block", "block requests of loopN against /proc/diskstats"),
    ("block-replay", "-w then -r of the block run: the same reports"),
    ("kstamps", "request times from the kernel's stamps agree with our clock (-vvv)"),
    ("counters", "kernel counters read after the drop (sent == received), the capability kept named"),
    ("files", "read/write calls and bytes per file and process (iowork)"),
    ("disk-bytes", "disk bytes per file: write+fsync, cold read"),
    ("dirtied", "dirtied bytes per file and process"),
    ("mmap", "mmap: disk bytes and faults per file"),
    ("lifecycle", "opens, creates, closes, renames... per process and file"),
    ("munmap", "munmaps per process and file"),
    ("xfer", "sendfile, splice, copy_file_range per file and process (xferwork)"),
    ("io_uring", "io_uring reads/writes per file (fio), their offsets from 5.19"),
    ("libaio", "libaio reads/writes per file (fio)"),
    ("throttle", "a dirtier's pauses (balance_dirty_pages) against tracefs"),
    ("jobs", "the process tree: lifecycle's child in its parent's job (fork records)"),
    ("files-replay", "-w then -r of the files run: the same reports"),
]
verdict = {name: {"status": "works", "detail": ""} for name, _ in FEATURES}
checked = {name: 0 for name, _ in FEATURES}
npass = nfail = 0


def line(ok, feature, text):
    global npass, nfail
    print("%s: kernel %s: %s: %s" % ("PASS" if ok else "FAIL", KERNEL, feature, text))
    checked[feature] += 1
    if ok:
        npass += 1
    else:
        nfail += 1
        if verdict[feature]["status"] != "fails":
            verdict[feature] = {"status": "fails", "detail": text}


def na(feature, reason):
    """A feature blktop reported unavailable here: a PASS that says so."""
    line(True, feature, "n/a (reported: %s)" % reason)
    if verdict[feature]["status"] == "works":
        verdict[feature] = {"status": "n/a", "detail": reason}


def read(name, default=""):
    try:
        with open(os.path.join(OUT, name), errors="replace") as f:
            return f.read()
    except OSError:
        return default


def rc(name):
    t = read(name).strip()
    return int(t) if re.fullmatch(r"-?\d+", t) else None


def first_error(name):
    """blktop's own words: the first line of its stderr that says something."""
    for l in read(name).splitlines():
        l = l.strip()
        if l and not l.startswith("libbpf:"):
            return l[:400]
    return "(nothing on stderr)"


def reports(name):
    out = []
    for n, l in enumerate(read(name).splitlines(), 1):
        try:
            out.append(json.loads(l))
        except ValueError:
            out.append({"_bad": n})
    return out


def noself(text):
    return [re.sub(r',"self":\{[^}]*\}\}$', "}", l) for l in text.splitlines()]


# ---- probe: the plan and what it says of each hook
probe = read("probe.txt")
probe_all = probe + read("probe.err")
prc = rc("probe.rc")
m = re.search(r"^plan: (\S+)", probe, re.M)
if prc == 0 and m:
    line(True, "probe", "plan %s (exit 0)" % m.group(1))
else:
    line(False, "probe", "exit %s, %s" % (prc, "plan %s" % m.group(1) if m else
                                         "no plan: " + (probe_all.strip().splitlines() or ["(no output)"])[0][:300]))
# Direct io_uring/libaio calls (bpf/blk-kio.h): named at their block requests
# where the typed block_io_start (6.5+) and bpf_rdonly_cast (6.2+) are, at
# submission and completion before (5.10, 6.1), with the reason.
kvp = tuple(int(x) for x in re.findall(r"\d+", read("uname"))[:2])
mk = re.search(r"^feature: kio +(.*)$", probe, re.M)
want = "at the block request" if kvp >= (6, 5) else "n/a"
line(mk is not None and mk.group(1).startswith(want), "probe",
     "kio: %s on Linux %d.%d (got %s)" % (want, kvp[0], kvp[1], mk.group(1)[:120] if mk else None))
# The read/write exits' fd slot and struct file (bpf/vfs-cast.h): faulting
# loads where bpf_rdonly_cast is (6.2+), probe reads before (5.10, 6.1).
mr = re.search(r"^vfs: read path: (.*)$", probe, re.M)
want = "fd slot and struct file by " + ("faulting loads" if kvp >= (6, 2) else "probe reads")
line(mr is not None and mr.group(1).startswith(want), "probe",
     "read path: %s on Linux %d.%d (got %s)" % (want, kvp[0], kvp[1], mr.group(1)[:120] if mr else None))
# "extra:" lines: hook -> "available" or the reason it is not.
extra = {}
for l in probe.splitlines():
    # "extra: tp_btf/    mm_filemap_fault    what...    available" or
    # "extra: tracepoint/syscalls/sys_enter_io_submit    what...    unavailable: WHY"
    mm = re.match(r"extra: (\S*/)\s*(\S+)\s+.*?\s{2,}(available|unavailable: .*)$", l)
    if mm:
        extra[mm.group(2)] = mm.group(3)
for l in probe.splitlines():
    if re.match(r"vfs: \S+ .*unavailable: load", l) or "no hook variant loads" in l or "none works" in l:
        print("  kernel %s: probe says: %s" % (KERNEL, l.strip()))

# The verifier's words, from the -v probe: each refused program's last log line.
seen = set()
prog, log = None, []
for l in read("probe-v.txt").splitlines():
    mm = re.match(r"libbpf: prog '([^']+)': -- BEGIN PROG LOAD LOG --", l)
    if mm:
        prog, log = mm.group(1), []
    elif l.startswith("-- END PROG LOAD LOG --") and prog:
        msg = [x for x in log if x.strip() and not x.startswith(("processed ", "verification time"))]
        key = (prog, msg[-1] if msg else "(empty log)")
        if key not in seen:
            seen.add(key)
            print("  kernel %s: verifier: prog '%s': %s" % ((KERNEL,) + key))
        prog = None
    elif prog:
        log.append(l)


def hook_reason(*hooks):
    """(lacking, reason): lacking if the kernel has not every hook (the n/a
    case); reason names what the probe said of each hook that is not available."""
    lacking, why = False, []
    for h in hooks:
        s = extra.get(h)
        if s is None:
            why.append("%s: not in --probe" % h)
        elif s != "available":
            why.append("%s %s" % (h, s))
            if "not in this kernel" in s:
                lacking = True
    return lacking, "; ".join(why)


# ---- block
dev = read("block.dev").strip()
brc = rc("block.rc")
blk = reports("block.jsonl")
if not dev:
    line(False, "block", "no loop device in the guest")
elif brc != 0 or not blk:
    line(False, "block", "blktop -b -J -D %s --no-vfs: exit %s, %d reports: %s" %
         (dev, brc, len(blk), first_error("block.err")))
elif any("_bad" in r for r in blk):
    line(False, "block", "line %d of blktop's output is not JSON" % [r for r in blk if "_bad" in r][0]["_bad"])
else:
    if rc("block-fio.rc") != 0:
        line(False, "block", "fio on %s: %s" % (dev, read("block-fio.err").strip()[:300]))
    if rc("block-fs.rc") != 0:
        line(False, "block", "mkfs.ext4, mount, write, read, umount of %s: %s" %
             (dev, read("block-fs.err").strip()[:300]))
    b = [int(x) for x in read("block.before").split()]
    a = [int(x) for x in read("block.after").split()]
    if len(a) != 8 or len(b) != 8:
        line(False, "block", "no /proc/diskstats line for %s (%r, %r)" % (dev, b, a))
    else:
        tot = device_totals(blk, dev)
        ds = diskstats_delta(b, a)
        lost = sum(r["lost"] for r in blk)
        line(lost == 0, "block", "%d reports, %d lost events" % (len(blk), lost))
        for k in KEYS:
            line(tot.get(k, 0) == ds[k] and (k == "other_ios" or ds[k] > 0), "block",
                 "%s %s equals /proc/diskstats (blktop %d, diskstats %d)" % (dev, k, tot.get(k, 0), ds[k]))
        # %util and aqu-sz are part_stat's io_ticks and time_in_queue, sampled
        # per tick (issue 42, decision 3): their deltas, within -J's rounding
        # (0.05 and 0.5 ms a report).
        busy = tiq = 0.0
        nrep = 0
        for r in blk:
            for d in r.get("devices", []):
                if d["name"] == dev:
                    nrep += 1
                    busy += d["util_pct"] / 100.0 * r["interval_s"] * 1000.0
                    tiq += d["qd"]["avg"] * r["interval_s"] * 1000.0
        line(abs(busy - (a[6] - b[6])) <= 0.05 * nrep + 0.01 and
             abs(tiq - (a[7] - b[7])) <= 0.5 * nrep + 0.01, "block",
             "%s busy %.2f ms and time in queue %.2f ms equal io_ticks %d and time_in_queue %d" %
             (dev, busy, tiq, a[6] - b[6], a[7] - b[7]))
    # -w then -r: the same reports, line for line (record.sh).
    live, rep = noself(read("block.jsonl")), noself(read("block-replay.jsonl"))
    if rc("block-replay.rc") != 0:
        line(False, "block-replay", "blktop -r of the capture: exit %s: %s" %
             (rc("block-replay.rc"), first_error("block-replay.err")))
    else:
        diff = [i for i in range(max(len(live), len(rep)))
                if i >= len(live) or i >= len(rep) or live[i] != rep[i]]
        line(not diff and len(live) > 0, "block-replay",
             "%d live reports, %d replayed, identical line for line%s" %
             (len(live), len(rep), "" if not diff else " (first difference: report %d)" % (diff[0] + 1)))

# ---- kstamps: the kernel's stamps against our clock on the same requests
kt = read("kstamps.txt")
ks = re.search(r"start from the kernel (\d+), from our clock (\d+); issue from the kernel (\d+), "
               r"from our clock or never issued (\d+); start left to the kernel and not stamped (\d+)", kt)
kc = re.search(r"stamp check: (\d+) requests timed both ways, (\d+) differ by more than (\d+) ns(.*)", kt)
kerr = read("kstamps.err")
ksent = re.search(r"block events sent (\d+), received (\d+)", kerr)
kunread = re.search(r"kernel counters: unreadable.*", kerr)
kpriv = re.search(r"privileges: (.*)", kerr)
kprobe = re.search(r"^privileges: after attaching, (.*)$", probe, re.M)
ubd = read("ubd").strip()
# With the sysctl as Debian sets it (2), a kernel that refuses bpf() without
# CAP_BPF (5.10) keeps CAP_BPF and says so; later ones keep nothing. Either
# way the counters are read: block events sent == received, not 0.
line(ksent is not None and int(ksent.group(2)) > 0 and ksent.group(1) == ksent.group(2),
     "counters", "-vvv -D %s with unprivileged_bpf_disabled=%s: block events sent == received > 0 "
     "(%s)" % (dev, ubd, ksent.group(0) if ksent else (kunread.group(0) if kunread else "no counters line")))
line(kpriv is not None and re.match(r"(CAP_BPF|CAP_SYS_ADMIN) kept|no capability kept: bpf\(\) on a map fd "
                                    r"held works", kpriv.group(1)) is not None,
     "counters", "-v names what was kept: %s" % (kpriv.group(1)[:200] if kpriv else "(no privileges line)"))
line(kprobe is not None and kpriv is not None and kprobe.group(1).split(":")[0] == kpriv.group(1).split(":")[0],
     "counters", "--probe says the same: %s" % (kprobe.group(1)[:120] if kprobe else "(no privileges line)"))
if kvp < (5, 19) and ubd in ("1", "2"):
    line(kpriv is not None and kpriv.group(1).startswith("CAP_BPF kept"), "counters",
         "Linux %d.%d refuses bpf() without CAP_BPF: CAP_BPF kept" % kvp)
if rc("kstamps.rc") != 0 or not ks or not kc:
    line(False, "kstamps", "blktop -vvv -D %s: exit %s, %s" % (dev, rc("kstamps.rc"),
         first_error("kstamps.err") or "no stamp counters"))
else:
    kstart, ostart, kissue, oissue, miss = [int(x) for x in ks.groups()]
    nchk, off = int(kc.group(1)), int(kc.group(2))
    line(rc("kstamps-fio.rc") == 0, "kstamps", "fio on %s ran" % dev)
    line(miss == 0, "kstamps", "no start left to the kernel went unstamped (%d)" % miss)
    line(kstart + kissue > 0, "kstamps", "the kernel's stamps used: start %d (our clock %d), "
         "issue %d (our clock %d)" % (kstart, ostart, kissue, oissue))
    # Where the start hook is block_rq_insert (5.10, 6.1) the kernel's start
    # is the request's allocation, and a request can wait in the submitter's
    # plug before it is inserted: 3 of 1280 by 2-4 ms under TCG on 6.1.
    line(off * 100 <= nchk and (nchk > 0 or kstart == 0 or kissue == 0), "kstamps",
         "%d requests timed both ways, %d differ by more than %s ns (1%% may);%s (scheduler: %s)" %
         (nchk, off, kc.group(3), kc.group(4)[:300], " ".join(read("kstamps.sched").split())[:80]))

# ---- files: one run, every phase on its own file of /mnt
frc = rc("files.rc")
fr = reports("files.jsonl")
FILE_FEATURES = ["files", "disk-bytes", "dirtied", "mmap", "lifecycle", "munmap", "xfer", "io_uring",
                 "libaio", "throttle", "jobs", "files-replay"]
vfs_err = None
if frc != 0 or not fr or any("_bad" in r for r in fr):
    vfs_err = "blktop -J --all-files: exit %s, %d reports: %s" % (frc, len(fr), first_error("files.err"))
elif "file I/O is not traced" in read("files.err") or "no hook variant loads" in read("files.err"):
    vfs_err = "blktop ran without file tracing: " + first_error("files.err")
if vfs_err:
    for f in FILE_FEATURES:
        line(False, f, vfs_err)
else:
    KEYS = ("opens", "open_fails", "call_reads", "call_read_bytes", "call_writes", "call_write_bytes",
            "disk_read_bytes", "disk_write_bytes", "dirtied_bytes", "mmap_faults",
            "uring_reads", "uring_writes", "aio_reads", "aio_writes", "creates", "closes",
            "mmaps", "munmaps", "fsyncs", "unlinks", "renames", "mkdirs", "rmdirs", "mknods",
            "lifecycle_errors", "writeback_bytes", "throttles", "throttled_ms")

    def tally(rs):
        """Files by path and processes by tgid, summed over every report;
        a key seen only as null stays None (blktop: not known here)."""
        files, procs = {}, {}
        for r in rs:
            for f in r.get("files", []):
                t = files.setdefault(f["path"], {"pids": set()})
                t["pids"].update(f.get("pids", []))
                for k in KEYS:
                    if k in f:
                        t[k] = (t.get(k) or 0) + f[k] if f[k] is not None else t.get(k)
            for p in r.get("processes", []):
                t = procs.setdefault(p["tgid"], {"comm": p["comm"]})
                for k in KEYS:
                    if k in p:
                        t[k] = (t.get(k) or 0) + p[k] if p[k] is not None else t.get(k)
        return files, procs

    F, P = tally(fr)
    # What blktop said it cannot trace here, and why (-J's "unavailable",
    # --probe's "feature:" lines): n/a, where the figure is null.
    UN = {}
    for r in fr:
        UN.update(r.get("unavailable", {}))
    FEAT = dict(re.findall(r"^feature: (\S+) +(.*)$", probe, re.M))

    def unavailable(name):
        """blktop's reason for name (a have_table name), if both -J and --probe say it is n/a."""
        why = UN.get(name)
        if why and FEAT.get(name, "").startswith("n/a"):
            return why
        return None
    lost = sum(r.get("lost", 0) for r in fr)
    if lost:	# said, not judged: exact() allows for them
        print("kernel %s: files: %d events lost over the run (%s)" % (KERNEL, lost, first_error("files.err")))

    def exact(got, want, byte_keys=(), lost=lost):
        """(ok, note): got == want; or, where blktop counted events lost in this
        run, short of want by no more records than it lost and over in nothing.
        A kernel that runs the syscall programs preemptible (sid's 7.2,
        PREEMPT_LAZY) skips one program's run while another is stopped
        mid-run on that CPU; blktop counts each skip as a lost record ("program
        runs skipped" under -v). byte_keys: the fields (keys or indexes) that
        are bytes, short by any amount then."""
        if got == want:
            return True, "equal"
        keys = list(want) if isinstance(want, dict) else list(range(len(want)))
        gv = (lambda k: got.get(k)) if isinstance(got, dict) else (lambda k: got[k])
        short = 0
        for k in keys:
            x, y = gv(k), want[k]
            if x is None and y is None:
                continue
            if x is None or y is None or x > y:
                return False, "got %s" % (got,)
            if k not in byte_keys:
                short += y - x
        if not lost or short > lost:
            return False, "got %s" % (got,)
        return True, "got %s: %d records short, within the %d events blktop counted lost" % (got, short, lost)

    def pid_of(name):
        t = read(name).split()
        return int(t[0]) if t and t[0].isdigit() else None

    def g(table, key, field):
        return table.get(key, {}).get(field, 0)

    # files: iowork's writes, reads, O_DIRECT pread, failed open (vfs.sh, test-vfs.c)
    try:
        iw = json.loads(read("iowork.json").strip().splitlines()[-1])
    except (ValueError, IndexError):
        iw = None
    if not iw:
        line(False, "files", "iowork did not run: " + read("iowork.err").strip()[:200])
    else:
        path, pid = iw["path"], iw["pid"]
        f = F.get(path, {})
        got = (f.get("opens"), f.get("call_writes"), f.get("call_write_bytes"), f.get("call_reads"), f.get("call_read_bytes"))
        want = (2, 3, 20000, 7 + 1, 10000 + 4096)
        ok, note = exact(got, want, (2, 4))
        line(ok, "files", "%s: opens, writes, write bytes, reads, read bytes %s (%s)" % (path, want, note))
        line(pid in f.get("pids", ()), "files", "%s: iowork's pid %d among the file's pids %s" %
             (path, pid, sorted(f.get("pids", ()))))
        miss = iw["failed_open"]
        line(F.get(miss, {}).get("open_fails") == 1, "files", "%s: 1 failed open (got %s)" %
             (miss, F.get(miss, {}).get("open_fails")))
        p = P.get(pid, {})
        got = (p.get("comm"), p.get("call_writes"), p.get("call_reads"), p.get("opens"), p.get("open_fails"))
        line(got[0] == "iowork" and (got[1] or 0) >= 3 and (got[2] or 0) >= 8 and (got[3] or 0) >= 2 and got[4] == 1,
             "files", "process %d: comm iowork, >= 3 writes, >= 8 reads, >= 2 opens, 1 failed open (got %s)" %
             (pid, got))

    # disk bytes (diskbytes.sh): write+fsync, cold read
    wpid, rpid, mpid = pid_of("kw-write.txt"), pid_of("kw-read.txt"), pid_of("kw-mmap.txt")
    w1 = F.get("/mnt/w1", {})
    line(w1.get("disk_write_bytes") == 262144, "disk-bytes",
         "write+fsync: /mnt/w1 disk write bytes are the 256 KiB written (got %s)" % w1.get("disk_write_bytes"))
    v = P.get(wpid, {}).get("disk_write_bytes")
    line(v is not None and v >= 262144, "disk-bytes",
         "write+fsync: the writer (pid %s) is charged its disk writes (got %s)" % (wpid, v))
    r1 = F.get("/mnt/r1", {})
    line((r1.get("disk_read_bytes"), r1.get("call_read_bytes")) == (8388608, 8388608), "disk-bytes",
         "cold read: /mnt/r1 disk read bytes and read bytes are the 8 MiB file (got %s, %s)" %
         (r1.get("disk_read_bytes"), r1.get("call_read_bytes")))
    v = P.get(rpid, {}).get("disk_read_bytes")
    line(v is not None and v >= 8388608, "disk-bytes",
         "cold read: the reader (pid %s) is charged the disk reads (got %s)" % (rpid, v))

    # dirtied bytes
    why = unavailable("dirty")
    if "dirtied_bytes" in w1 and w1["dirtied_bytes"] is None and why:
        na("dirtied", why)
    else:
        line(w1.get("dirtied_bytes") == 262144, "dirtied",
             "/mnt/w1 dirtied bytes are the 256 KiB written (got %s%s)" %
             (w1.get("dirtied_bytes"), "; probe: " + why if why else ""))
        v = P.get(wpid, {}).get("dirtied_bytes")
        line(v is not None and v >= 262144, "dirtied", "the writer is charged as dirtier (got %s)" % v)

    # a dirtier's pauses, against the tracepoint's own lines (pause > 0: a sleep)
    tpid = pid_of("throttle.pid")
    why = unavailable("throttle")
    tn = tms = 0
    for l in read("throttle-trace.txt").splitlines():
        m = re.search(r"-(\d+)\s+\[.*balance_dirty_pages:.* pause=(-?\d+)", l)
        if m and int(m.group(1)) == tpid and int(m.group(2)) > 0:
            tn += 1
            tms += int(m.group(2))
    tp = P.get(tpid, {})
    if why and tp.get("throttles") is None:
        na("throttle", why)
    else:
        line(tn >= 1 and rc("throttle.rc") == 0, "throttle",
             "the workload: dd (pid %s, exit %s) paused %d times for %d ms by tracefs (%s)" %
             (tpid, rc("throttle.rc"), tn, tms, first_error("throttle.err") or "no error"))
        ok, note = exact((tp.get("throttles"), tp.get("throttled_ms")), (tn, tms), byte_keys=(1,))
        line(ok, "throttle", "dd's throttles and throttled_ms are tracefs's %d and %d (%s)" %
             (tn, tms, note))

    # mmap
    m1 = F.get("/mnt/m1", {})
    line(m1.get("disk_read_bytes") == 4194304 and not m1.get("call_reads"), "mmap",
         "/mnt/m1 mapped cold: disk read bytes are the 4 MiB file, no read calls (got %s, %s reads)" %
         (m1.get("disk_read_bytes"), m1.get("call_reads")))
    why = unavailable("fault")
    if "mmap_faults" in m1 and m1["mmap_faults"] is None and why:
        na("mmap", "faults: " + why)
    else:
        v, pv = m1.get("mmap_faults"), P.get(mpid, {}).get("mmap_faults")
        line(bool(v) and bool(pv), "mmap", "faults counted on the file and its process (got %s, %s%s)" %
             (v, pv, "; probe: " + why if why else ""))

    # jobs: lifecycle forks its worker, which is in the parent's job (the
    # parent's parent is this script's shell); the tree's records from the
    # fork tracepoint (the parent itself found in /proc or by its fork)
    lpid = pid_of("lifecycle.pid")
    why = unavailable("task")
    jobs = [j for r in fr for j in (r.get("jobs") or []) if lpid in j["pids"]]
    if why and all(r.get("jobs") is None for r in fr):
        na("jobs", why)
    else:
        roots = sorted(set((j["root"], j["comm"]) for j in jobs))
        line(bool(jobs) and all(j["root"] != lpid and j["comm"] == "lifecycle" for j in jobs),
             "jobs", "the lifecycle worker (pid %s) is in its parent's job: roots %s" % (lpid, roots))

    # lifecycle (lifecycle.sh): the child's counts, its files
    if rc("lifecycle.rc") != 0 or lpid is None:
        line(False, "lifecycle", "the workload failed: " + read("lifecycle.err").strip()[:200])
    else:
        k, d = 20, "/mnt/lc"
        p = P.get(lpid, {})
        want = {"opens": 2 * k + 3, "open_fails": 1, "creates": k + 3, "closes": 2 * k + 7,
                "mmaps": k, "munmaps": k, "unlinks": k + 4, "renames": k, "mkdirs": 3, "rmdirs": 3,
                "mknods": 1, "lifecycle_errors": 1, "fsyncs": k + 1}
        why_munmap = unavailable("munmap")
        if why_munmap:
            want["munmaps"] = None
        got = {key: p.get(key) for key in want}
        if all(v is None for k2, v in got.items() if k2 not in ("opens", "open_fails")):
            line(False, "lifecycle", "the process's lifecycle counts are all null: %s" % got)
        else:
            ok, note = exact(got, want)
            line(ok, "lifecycle", "the process: %s (%s)" % (want, note))
        bad = []
        for i in range(k):
            for path, expect in (("/t/a/b/f%03d" % i, {"opens": 1, "creates": 1, "closes": 1,
                                                        "renames": 1, "call_writes": 1}),
                                 ("/t/a/b/g%03d" % i, {"opens": 1, "closes": 1, "mmaps": 1,
                                                        "munmaps": None if why_munmap else 1,
                                                        "unlinks": 1, "renames": 1, "fsyncs": 1})):
                f = F.get(d + path, {})
                c = {key: f.get(key) for key in expect}
                if not exact(c, expect)[0]:
                    bad.append((path, c))
        line(not bad, "lifecycle", "%d files created, written, closed, renamed, mapped, unmapped, "
             "unlinked: each row exact (wrong: %s)" % (2 * k, bad[:2]))
        if why_munmap:
            na("munmap", why_munmap)
        else:
            line(exact((p.get("munmaps"),), (k,))[0], "munmap", "the process's %d munmaps (%s)" %
                 (k, exact((p.get("munmaps"),), (k,))[1]))
        for path, expect in (("/t/x", {"opens": 2, "creates": 1, "closes": 2, "unlinks": 1}),
                             ("/t/missing", {"open_fails": 1, "unlinks": 1, "lifecycle_errors": 1}),
                             ("/t/fifo", {"creates": 1, "mknods": 1, "unlinks": 1}),
                             ("/t/d (deleted)", {"call_writes": 1, "closes": 1, "fsyncs": 1}),
                             ("memfd:blkmemfd", {"call_writes": 1, "closes": 1})):
            f = F.get(path if path.startswith("memfd") else d + path, {})
            c = {key: f.get(key) for key in expect}
            ok, note = exact(c, expect)
            line(ok, "lifecycle", "%s: %s (%s)" % (path, expect, note))

    # the lifecycle workload under load (stress.*): each run's counts exact, or
    # short by no more than the records that blktop run said it lost; never over
    sr = reports("stress.jsonl")
    spids = read("stress.pids").split()
    if rc("stress.rc") != 0 or not sr or any("_bad" in r for r in sr) or len(spids) != 10 or \
            not all(x.isdigit() for x in spids):
        line(False, "lifecycle", "under load: blktop exit %s, %d reports, runs %s: %s" %
             (rc("stress.rc"), len(sr), spids, first_error("stress.err")))
    else:
        k = 20
        want = {"opens": 2 * k + 3, "open_fails": 1, "creates": k + 3, "closes": 2 * k + 7,
                "mmaps": k, "munmaps": None if unavailable("munmap") else k, "unlinks": k + 4,
                "renames": k, "mkdirs": 3, "rmdirs": 3, "mknods": 1, "lifecycle_errors": 1, "fsyncs": k + 1}
        _, SP = tally(sr)
        slost = sum(r.get("lost", 0) for r in sr)
        bad, short = [], 0
        for x in spids:
            c = {key: SP.get(int(x), {}).get(key) for key in want}
            ok, note = exact(c, want, lost=slost)
            if not ok:
                bad.append((x, c))
            short += sum(want[k] - (c[k] or 0) for k in want if want[k] is not None)
        line(not bad and short <= slost, "lifecycle",
             "under load (a CPU hog, a syscall loop): 10 runs, none over, %d records short "
             "of %d, within the %d blktop counted lost (wrong: %s)" %
             (short, 10 * sum(v for v in want.values() if v is not None), slost, bad[:2]))

    # sendfile, splice, copy_file_range (xfer.sh): each side's calls and bytes on its file
    try:
        xw = json.loads(read("xfer.json").strip().splitlines()[-1])
    except (ValueError, IndexError):
        xw = None
    if not xw:
        line(False, "xfer", "xferwork did not run: " + read("xfer.err").strip()[:200])
    else:
        c = lambda k: xw[k]["calls"]
        SF, SOCK, SP, CFR = 300000, 200000, 150000, 400000
        want = {"sf.in": (c("sendfile"), 0, SF, 0), "sf.out": (0, c("sendfile"), 0, SF),
                "sock.in": (c("sendfile_sock"), 0, SOCK, 0), "sp.in": (c("splice_in"), 0, SP, 0),
                "sp.out": (0, c("splice_out"), 0, SP), "cfr.in": (c("copy_file_range"), 0, CFR, 0),
                "cfr.out": (0, c("copy_file_range"), 0, CFR)}
        for name, v in want.items():
            f = F.get("/mnt/xf/" + name, {})
            got = tuple(f.get(k) or 0 for k in ("call_reads", "call_writes", "call_read_bytes", "call_write_bytes"))
            ok, note = exact(got, v, (2, 3))
            line(ok, "xfer", "/mnt/xf/%s: reads, writes, read bytes, write bytes %s (%s)" % (name, v, note))
        p = P.get(xw["pid"], {})
        v = (c("sendfile") + c("sendfile_sock") + c("splice_in") + c("copy_file_range"),
             c("sendfile") + c("splice_out") + c("copy_file_range"))
        got = (p.get("call_reads"), p.get("call_writes"))
        # --all-files: its pipe, socket and stdout are counted too (exact in xfer.sh).
        line(got[0] is not None and got[1] is not None and got[0] >= v[0] and got[1] >= v[1], "xfer",
             "xferwork's process: at least its %s file read and write calls (got %s)" % (v, got))

    # io_uring and libaio through fio (diskbytes.sh direct_phase)
    def direct(feature, key, fname, hooks, rcfile):
        f = F.get("/mnt/" + fname, {})
        rcs = read(rcfile).split()
        why = unavailable(key)
        if f.get(key + "_reads", 0) is None and why:
            na(feature, why)
            return
        why = hook_reason(*hooks)[1]
        if rcs != ["0", "0"]:
            line(False, feature, "fio --ioengine=%s exited %s: %s" %
                 (feature, rcs, read(rcfile.replace(".rc", ".err")).strip()[-300:]))
            return
        got = (f.get(key + "_reads"), f.get(key + "_writes"))
        others = {p: (t.get(key + "_reads"), t.get(key + "_writes")) for p, t in F.items()
                  if p != "/mnt/" + fname and (t.get(key + "_reads") or t.get(key + "_writes"))}
        missed = sum((r.get("self") or {}).get("paths_missed") or 0 for r in fr)
        ok, note = exact(got, (1024, 512))
        line(ok, feature, "/mnt/%s: fio's 1024 reads and 512 writes (%s%s)" %
             (fname, note, "" if got == (1024, 512) else "; other files with them: %s; paths "
              "missed %d%s" % (others, missed, "; probe: " + why if why else "")))
        got = (f.get("call_read_bytes"), f.get("call_write_bytes"))
        ok, note = exact(got, (4194304, 2097152), (0, 1))
        line(ok, feature, "/mnt/%s: 4 MiB read and 2 MiB written (%s)" % (fname, note))
        got = (f.get("disk_read_bytes"), f.get("disk_write_bytes"))
        line(got == (4194304, 2097152), feature, "/mnt/%s: O_DIRECT, the same bytes on the disk (got %s)" %
             (fname, got))
        got = (sum(p.get(key + "_reads") or 0 for p in P.values() if p["comm"].startswith("fio")),
               sum(p.get(key + "_writes") or 0 for p in P.values() if p["comm"].startswith("fio")))
        ok, note = exact(got, (1024, 512))
        line(ok, feature, "charged to fio (%s)" % note)
        # Their access pattern (doc/json.md): every call's offset known,
        # io_uring's from 5.19 (5.10's tracepoint runs before the offset is set).
        pat = {}
        for r in fr:
            for row in r.get("files") or []:
                if row.get("path") == "/mnt/" + fname:
                    pat = row
        kv = tuple(int(x) for x in re.findall(r"\d+", read("uname"))[:2])
        want = (1024, 512) if key == "uring" and kv < (5, 19) else (0, 0)
        got = (pat.get("no_offset_reads"), pat.get("no_offset_writes"), pat.get("common_sizes"))
        line(got == want + ([[4096, 1536]],), feature, "/mnt/%s: calls without an offset %s, "
             "the one common size 4 KiB x 1536 (got %s)" % (fname, want, got))

    direct("io_uring", "uring", "u1", ("io_uring_submit_req", "io_uring_complete"), "fio-io_uring.rc")
    direct("libaio", "aio", "a1", ("sys_enter_io_submit", "sys_enter_io_getevents",
                                   "sys_exit_io_getevents"), "fio-libaio.rc")

    # -w then -r of the files run
    live, rep = noself(read("files.jsonl")), noself(read("files-replay.jsonl"))
    if rc("files-replay.rc") != 0:
        line(False, "files-replay", "blktop -r of the capture: exit %s: %s" %
             (rc("files-replay.rc"), first_error("files-replay.err")))
    else:
        diff = [i for i in range(max(len(live), len(rep)))
                if i >= len(live) or i >= len(rep) or live[i] != rep[i]]
        RF, RP = tally(reports("files-replay.jsonl"))
        same = {p: {k: v for k, v in t.items() if k != "pids"} for p, t in RF.items()} == \
            {p: {k: v for k, v in t.items() if k != "pids"} for p, t in F.items()}
        line(same, "files-replay", "the capture replays to the same file figures (%d files live, %d replayed)" %
             (len(F), len(RF)))
        line(not diff, "files-replay", "%d live reports, %d replayed, identical line for line%s" %
             (len(live), len(rep), "" if not diff else " (first difference: report %d)" % (diff[0] + 1)))

# A feature no check reached (its run never happened) is not a pass.
for name, _ in FEATURES:
    if not checked[name]:
        line(False, name, "not checked: the run it needs did not happen (see the failures above)")

# ---- timings and the results for the matrix
steps = []
for l in read("timings").splitlines():
    t = l.split()
    if len(t) == 2:
        steps.append((t[0], float(t[1])))
if steps:
    prev = steps[0][1]
    parts = []
    for name, t in steps[1:]:
        parts.append("%s %.0fs" % (name, t - prev))
        prev = t
    print("kernel %s: guest steps: %s" % (KERNEL, ", ".join(parts)))
res = {"kernel": KERNEL, "suite": SUITE, "release": read("uname").strip(),
       "passed": npass, "failed": nfail,
       "features": [dict(name=n, what=w, **verdict[n]) for n, w in FEATURES]}
with open(RESULTS, "w") as f:
    json.dump(res, f, indent=1)
sys.exit(1 if nfail else 0)
