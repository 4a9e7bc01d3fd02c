#!/usr/bin/env python3
"""gen-logs.py: the four bpftrace logs of one made-up training run, for bench/run-import.sh.

usage: gen-logs.py DIR [--vfs-lines N] [--seconds S] [--seed N]

Writes DIR/vfs.log (vfs_rw.bt: N lines, default 10 M), DIR/bio.log (bio.bt,
2000 requests/s), DIR/openat.log (openat.bt, 50 opens/s), DIR/align.log
(time_align.bt, every 100 ms) and DIR/stats.txt (what they hold, KEY VALUE).
The columns and widths are the printf()s of tests/fixtures/bpftrace/*.bt.
One run: 64 "python" workers, each reading and writing the file it opened
last (a basename of 5000, under /mnt/data/...), so a merge can give every
vfs_rw line the full path of an openat line of the same pid. Clocks: nsecs
since boot, TIME its UTC wall time (run blktop with TZ=UTC); align.log's
mtime is the wall time of its last line, as if just written. Deterministic
for a seed.
"""

import argparse
import datetime
import os
import random

PIDS = 64
FILES = 5000
OPEN_RATE = 50
BIO_RATE = 2000
ALIGN_HZ = 10
BOOT_NS = 3456789012345                 # nsecs of the run's first line
WALL0 = datetime.datetime(2026, 11, 25, 12, 30, 0, tzinfo=datetime.timezone.utc)
CHUNK = 100000


def wall_prefix_cache():
    """TIME of a second since BOOT_NS, up to its '.': strftime once a second."""
    cache = {}

    def prefix(sec):
        p = cache.get(sec)
        if p is None:
            w = WALL0 + datetime.timedelta(seconds=sec)
            p = cache[sec] = w.strftime("%Y-%m-%dT%H:%M:%S.")
        return p
    return prefix


def basenames():
    """5000 file names of a training set: shards, images, checkpoints, logs."""
    names = []
    for i in range(FILES):
        k = i % 10
        if k < 6:
            names.append("train-%05d-of-03000.tfrecord" % i)
        elif k < 8:
            names.append("img_%07d.npy" % (i * 7919 % 10000000))
        elif k < 9:
            names.append("ckpt-step%06d.pt" % (i * 10))
        else:
            names.append("events.out.tfevents.%d.worker%d" % (1795000000 + i, i % 64))
    return names


def full_path(i, name):
    """The path a worker passed to openat() for file i."""
    if name.startswith("ckpt"):
        return "/mnt/ckpt/run42/%s" % name
    if name.startswith("events"):
        return "/mnt/ckpt/run42/logs/%s" % name
    return "/mnt/data/imagenet/train/shard_%03d/%s" % (i // 50, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--vfs-lines", type=int, default=10000000)
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    prefix = wall_prefix_cache()
    span = a.seconds * 1000000000
    end = BOOT_NS + span
    pids = [41000 + 17 * p for p in range(PIDS)]
    names = basenames()
    # Worker p's files: every PIDS-th of the set.
    owned = [[i for i in range(FILES) if i % PIDS == p] for p in range(PIDS)]
    stats = {}

    # Opens: each worker opens its first file in the first 0.32 s (before any
    # read), then 50 opens a second by random workers; 1 in 100 fails (ENOENT).
    opens = []
    for p in range(PIDS):
        opens.append((BOOT_NS + p * 5000000 + rnd.randrange(1000), p, rnd.choice(owned[p]), 0))
    nopen = (a.seconds - 1) * OPEN_RATE
    for k in range(nopen):
        t = BOOT_NS + 400000000 + k * (span - 400000000) // nopen + rnd.randrange(1000000)
        p = rnd.randrange(PIDS)
        fail = rnd.random() < 0.01
        opens.append((t, p, rnd.choice(owned[p]), fail))
    opens.sort()
    with open(os.path.join(a.dir, "openat.log"), "w") as f:
        f.write("Attaching 4 probes...\n")
        f.write("%-17s %-6s %-5s %-8s %s %s\n" % ("TIMESTAMP", "PID", "FD", "LAT(ns)", "FILENAME", "FULLPATH"))
        out = []
        for t, p, i, fail in opens:
            name = names[i]
            path = full_path(i, name)
            if fail:
                name = name + ".tmp"
                path = path + ".tmp"
            fd = -2 if fail else 7 + p % 3
            out.append("%-17d %-6d %-5d %-8d %s %s\n" % (t, pids[p], fd, 3000 + rnd.randrange(40000), name, path))
        f.write("".join(out))
        f.write("\n\n")
    stats["opens"] = sum(1 for o in opens if not o[3])
    stats["open_fails"] = sum(1 for o in opens if o[3])

    # vfs_rw: N reads and writes from 0.5 s on, evenly spread (random gaps);
    # each names the file its worker opened last.
    sizes = [4096 << k for k in range(9)]               # 4 KiB .. 1 MiB
    size_w = [30, 12, 10, 8, 8, 8, 10, 6, 8]
    lat_base = [1500 + s // 3 for s in sizes]           # about 3 GB/s from the cache
    n = a.vfs_lines
    t0 = BOOT_NS + 500000000
    step = (end - 1000000 - t0) / n                     # mean gap, ns
    gaps = list(range(1, int(2 * step)))
    cur = [None] * PIDS
    oi = 0
    reads = writes = rbytes = wbytes = 0
    t = t0
    with open(os.path.join(a.dir, "vfs.log"), "w") as f:
        f.write("Attaching 9 probes...\n")
        f.write("%-17s %-26s %-6s %-14s %-4s %-8s " % ("TIMESTAMP", "TIME", "PID", "COMM", "R/W", "LAT(ns)"))
        f.write("%-10s %-10s %s\n" % ("REQUESTED", "RETURNED", "FILE"))
        done = 0
        while done < n:
            m = min(CHUNK, n - done)
            g = rnd.choices(gaps, k=m)
            wp = rnd.choices(range(PIDS), k=m)
            rw = rnd.choices("RW", weights=(80, 20), k=m)
            sz = rnd.choices(range(9), weights=size_w, k=m)
            jit = rnd.choices(range(4000), k=m)
            short = rnd.choices((0, 1, 2), weights=(97, 2, 1), k=m)
            out = []
            for j in range(m):
                t += g[j]
                while oi < len(opens) and opens[oi][0] <= t:
                    if not opens[oi][3]:
                        cur[opens[oi][1]] = names[opens[oi][2]]
                    oi += 1
                p = wp[j]
                s = sz[j]
                req = sizes[s]
                ret = req if short[j] == 0 else (req >> 1 if short[j] == 1 else 0)
                d = t - BOOT_NS
                us = d // 1000
                rel = us % 1000000
                op = rw[j]
                if op == "R":
                    reads += 1
                    rbytes += ret
                else:
                    writes += 1
                    wbytes += ret
                out.append("%-17d %s%06d %-6d python         %-4s %-8d %-10d %-10d %s\n" % (
                    t, prefix(us // 1000000), rel, pids[p], op, lat_base[s] + jit[j], req, ret, cur[p]))
            f.write("".join(out))
            done += m
        f.write("\n\n\n\n\n\n")
    stats["vfs_lines"] = n
    stats["vfs_reads"] = reads
    stats["vfs_writes"] = writes
    stats["vfs_read_bytes"] = rbytes
    stats["vfs_write_bytes"] = wbytes
    stats["vfs_first_ns"] = t0
    stats["vfs_last_ns"] = t

    # bio: 2000 requests a second on nvme0n1, reads issued by the workers,
    # writes mostly by a flusher thread; TIMESTAMP at completion.
    nb = a.seconds * BIO_RATE
    bstep = span / nb
    bgaps = list(range(1, int(2 * bstep)))
    bsz = [4096 << k for k in range(6)]                 # 4 .. 128 KiB
    breads = bwrites = 0
    t = BOOT_NS + 200000000
    with open(os.path.join(a.dir, "bio.log"), "w") as f:
        f.write("Attaching 4 probes...\n")
        f.write("%-17s %-26s %-8s %-14s %-8s %-14s " % ("TIMESTAMP", "TIME", "PID", "COMM", "DONEPID", "DONECOMM"))
        f.write("%-6s %-1s %-12s %-8s %s\n" % ("DISK", "T", "SECTOR", "BYTES", "LAT(ns)"))
        done = 0
        while done < nb:
            m = min(CHUNK, nb - done)
            g = rnd.choices(bgaps, k=m)
            wr = rnd.choices((0, 1), weights=(75, 25), k=m)
            wp = rnd.choices(range(PIDS), k=m)
            sz = rnd.choices(range(6), weights=(40, 10, 10, 10, 10, 20), k=m)
            sec = rnd.choices(range(1 << 24), k=m)
            lat = rnd.choices(range(20000, 2000000, 997), k=m)
            cpu = rnd.choices(range(8), k=m)
            out = []
            for j in range(m):
                t += g[j]
                d = t - BOOT_NS
                us = d // 1000
                if wr[j]:
                    bwrites += 1
                    if wp[j] < 48:
                        ipid, icomm = 211, "kworker/u16:2"
                    else:
                        ipid, icomm = pids[wp[j]], "python"
                else:
                    breads += 1
                    ipid, icomm = pids[wp[j]], "python"
                out.append("%-17d %s%06d %-8d %-14s %-8d %-14s nvme0n1 %-1d %-12d %-8d %d\n" % (
                    t, prefix(us // 1000000), us % 1000000, ipid, icomm, 0, "swapper/%d" % cpu[j],
                    wr[j], sec[j] * 8, bsz[sz[j]], lat[j]))
            f.write("".join(out))
            done += m
        f.write("\n\n\n\n\n")
    stats["bio_lines"] = nb
    stats["bio_reads"] = breads
    stats["bio_writes"] = bwrites

    # Time alignment: every 100 ms from 0.5 s before the run to its end.
    na = (a.seconds + 1) * ALIGN_HZ
    last = None
    with open(os.path.join(a.dir, "align.log"), "w") as f:
        f.write("Attaching 2 probes...\n")
        f.write("%-15s %-8s\n" % ("TIMESTAMP", "TIME"))
        out = []
        for k in range(na):
            t = BOOT_NS - 500000000 + k * 100000000 + rnd.randrange(20000)
            w = WALL0 + datetime.timedelta(microseconds=(t - BOOT_NS) // 1000)
            out.append("%-15d %s\n" % (t, w.strftime("%H:%M:%S")))
            last = w
        f.write("".join(out))
    ts = last.timestamp()
    os.utime(os.path.join(a.dir, "align.log"), (ts, ts))
    stats["align_lines"] = na
    stats["wall0"] = int(WALL0.timestamp())

    with open(os.path.join(a.dir, "stats.txt"), "w") as f:
        for k, v in stats.items():
            f.write("%s %d\n" % (k, v))


if __name__ == "__main__":
    main()
