#!/usr/bin/env python3
# neverread.py DIR OUT.json: neverread.sh's workload, of known counts. In
# DIR/kv: 8 files written in 32 KiB write()s, some read back in known ranges,
# one overwritten in part before any read, three unlinked, one renamed, read
# through its new name and unlinked by it, one truncated by an open with
# O_TRUNC and written again, one cut by ftruncate() and one by truncate(),
# the rest left. Prints, in OUT.json,
# every figure blktop must find (per file, and the process's totals) and,
# for each unlinked file, the bounds its create-to-unlink time must lie in:
# CLOCK_MONOTONIC read before and after the open that created it and the
# unlink (blktop stamps both calls at their exit, on the same clock).
import ctypes, json, os, sys, time

# Its name for blktop -c, before any call of the workload.
ctypes.CDLL(None).prctl(15, b"nvrwork", 0, 0, 0)	# PR_SET_NAME
d = os.path.join(sys.argv[1], "kv")
os.mkdir(d)
SIZES = [100000 + 12345 * i for i in range(8)]
files = {}


def path(i):
    return os.path.join(d, "chunk%d.bin" % i)


def fig(i):
    return files.setdefault("chunk%d.bin" % i, {"written": 0, "read_back": 0, "never_read": 0,
                                                 "unread": 0, "creates": 0, "unlinks": 0})


def write_all(fd, n):
    off = 0
    while off < n:
        k = min(32768, n - off)
        assert os.write(fd, b"x" * k) == k
        off += k


life = {}
for i, n in enumerate(SIZES):
    t0 = time.monotonic_ns()
    fd = os.open(path(i), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    t1 = time.monotonic_ns()
    write_all(fd, n)
    os.close(fd)
    life[i] = (t0, t1)
    f = fig(i)
    f["written"] += n
    f["unread"] = n
    f["creates"] = 1

# chunk5: its first 1000 bytes written again before any read: 1000 never read.
fd = os.open(path(5), os.O_WRONLY)
assert os.pwrite(fd, b"y" * 1000, 0) == 1000
os.close(fd)
fig(5)["written"] += 1000
fig(5)["never_read"] += 1000

# Reads: chunk0 whole (read()), chunk1 two ranges and one of them again (pread),
# chunk2 two overlapping ranges, chunk4 its first 4096 bytes.
fd = os.open(path(0), os.O_RDONLY)
while os.read(fd, 65536):
    pass
os.close(fd)
fig(0)["read_back"] = SIZES[0]
fd = os.open(path(1), os.O_RDONLY)
for off, k in ((5000, 1000), (20000, 3000), (5000, 1000)):
    assert len(os.pread(fd, k, off)) == k
os.close(fd)
fig(1)["read_back"] = 4000
fd = os.open(path(2), os.O_RDONLY)
for off, k in ((0, 10000), (5000, 10000)):
    assert len(os.pread(fd, k, off)) == k
os.close(fd)
fig(2)["read_back"] = 15000
fd = os.open(path(4), os.O_RDONLY)
assert len(os.pread(fd, 4096, 0)) == 4096
os.close(fd)
fig(4)["read_back"] = 4096

# Unlinks after 0.2, 0.4, 0.6 s: chunk0 (all read), chunk1 (4000 read), chunk3 (none read).
lives = {}
for k, i in enumerate((0, 1, 3)):
    time.sleep(0.2)
    u0 = time.monotonic_ns()
    os.unlink(path(i))
    u1 = time.monotonic_ns()
    t0, t1 = life[i]
    lives["chunk%d.bin" % i] = [(u0 - t1) / 1e9, (u1 - t0) / 1e9]
    f = fig(i)
    f["never_read"] += SIZES[i] - f["read_back"]
    f["unlinks"] = 1

# chunk6 renamed to chunk6r.bin, 2000 bytes read back through the new name, then
# unlinked by it: its unread bytes and its create went with it.
os.rename(path(6), os.path.join(d, "chunk6r.bin"))
fd = os.open(os.path.join(d, "chunk6r.bin"), os.O_RDONLY)
assert len(os.pread(fd, 2000, 1000)) == 2000
os.close(fd)
time.sleep(0.1)
u0 = time.monotonic_ns()
os.unlink(os.path.join(d, "chunk6r.bin"))
u1 = time.monotonic_ns()
lives["chunk6r.bin"] = [(u0 - life[6][1]) / 1e9, (u1 - life[6][0]) / 1e9]
r = files.setdefault("chunk6r.bin", {"written": 0, "read_back": 2000,
                                     "never_read": SIZES[6] - 2000, "unread": 0, "creates": 0,
                                     "unlinks": 1})

# chunk4 truncated (O_TRUNC), 500 bytes written again, left unread.
fd = os.open(path(4), os.O_WRONLY | os.O_TRUNC)
assert os.write(fd, b"z" * 500) == 500
os.close(fd)
f = fig(4)
f["never_read"] += SIZES[4] - 4096
f["written"] += 500

# chunk7: its first 10000 bytes read back, then ftruncate() to 50000: the 136415 past it
# never read. chunk5: truncate() by name to 100000: its 61725 past it never read
# (its first 1000, written twice, count once as unread now).
fd = os.open(path(7), os.O_RDWR)
assert len(os.pread(fd, 10000, 0)) == 10000
os.ftruncate(fd, 50000)
os.close(fd)
fig(7)["read_back"] = 10000
fig(7)["never_read"] += SIZES[7] - 50000
os.truncate(path(5), 100000)
fig(5)["never_read"] += SIZES[5] - 100000
truncates = 2

# What is left unread at the end: chunk2's rest, chunk4's 500, chunks 5, 6 and 7.
for i in range(8):
    f = fig(i)
    f["unread"] = 0 if i in (0, 1, 3, 6) else f["written"] - f["read_back"] - f["never_read"]
tot = {k: sum(f[k] for f in files.values()) for k in ("written", "read_back", "never_read",
                                                      "unread", "creates", "unlinks")}
# Its figures written under its first name again: not the workload's (-c).
ctypes.CDLL(None).prctl(15, b"python3", 0, 0, 0)
json.dump({"files": files, "total": tot, "lives": lives, "pid": os.getpid(), "truncates": truncates},
          open(sys.argv[2], "w"))
