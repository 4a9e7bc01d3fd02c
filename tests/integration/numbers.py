#!/usr/bin/env python3
"""numbers.py: numbers that hold together, over every field of blktop's output.

usage: numbers.py TAG (--json FILE | --report FILE | --text FILE)

--json: -J reports (JSON Lines); --report: one --report OUT.json; --text: -b reports.
JSON: every object with percentiles (pNN) and "max" has min <= pNN <= max and
the percentiles in order; every latency or mean whose sample count is 0 is
null, and one with samples is not; every percentile object is one the table
below knows the count of (a new one fails until it is added). Text: a figure
with no sample behind it is "-", never 0.0. Prints PASS:/FAIL: lines and, on
"# " lines, what was covered.
"""
import json
import re
import sys

PCT = re.compile(r"^p(\d+)$")
FOPS = ("mknods", "unlinks", "renames", "mkdirs", "rmdirs", "closes", "mmaps", "munmaps", "fsyncs")

bad = []        # (where, what)
seen = {"objects": 0, "pct_objects": 0, "null": 0, "single": 0}


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def pct_key(k):
    """The percentile a key names (p50 -> 50, p999 -> 99.9), or None."""
    m = PCT.match(k)
    if not m:
        return None
    d = m.group(1)
    return float(d) if len(d) <= 2 else float(d[:2] + "." + d[2:])


def check_bounds(where, o):
    """min <= pNN <= max, pNN in order, in an object holding percentiles."""
    ps = sorted((pct_key(k), k) for k in o if pct_key(k) is not None)
    if not ps:
        return
    seen["pct_objects"] += 1
    if not all(num(o[k]) for _, k in ps):
        bad.append((where, "a percentile that is not a number: %s" % o))
        return
    if "max" in o and num(o["max"]):
        for _, k in ps:
            if o[k] > o["max"]:
                bad.append((where, "%s %s above max %s" % (k, o[k], o["max"])))
    if "min" in o and num(o["min"]):
        for _, k in ps:
            if o[k] < o["min"]:
                bad.append((where, "%s %s below min %s" % (k, o[k], o["min"])))
    for (_, a), (_, b) in zip(ps, ps[1:]):
        if o[a] > o[b]:
            bad.append((where, "%s %s above %s %s" % (a, o[a], b, o[b])))


def walk(where, v):
    """Every object anywhere: the bounds of any that holds percentiles."""
    if isinstance(v, dict):
        seen["objects"] += 1
        check_bounds(where, v)
        for k, x in v.items():
            walk(where + "." + k, x)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk("%s[%d]" % (where, i), x)


def need(where, o, field, n, strict=True):
    """Field is null when its count n is 0; with samples (strict), not null."""
    if field not in o:
        bad.append((where, "no field %s" % field))
        return
    v = o[field]
    if n is None:
        return          # the count is not known (a source that lacks it)
    if n == 0 and v is not None:
        bad.append((where, "%s is %s with no sample behind it (want null)" % (field, json.dumps(v))))
    elif n == 0:
        seen["null"] += 1
    elif strict and v is None:
        bad.append((where, "%s is null with %d samples" % (field, n)))


def total(o, *keys):
    """The sum of count fields, None if one is null (not known)."""
    vs = [o.get(k) for k in keys]
    if any(v is None for v in vs):
        return None
    return sum(vs)


def known_objects(o, *fields):
    """The percentile objects of o: fields the rules below cover, and any other."""
    return set(k for k, v in o.items() if isinstance(v, dict) and
               any(pct_key(x) is not None for x in v)) - set(fields)


def check_dev_op(where, op, report):
    """A device's read, write or other: lat_us and q_us by its timed requests."""
    n = op["ios"] - (0 if report else op["no_lat"])
    for f in ("lat_us", "q_us"):
        # A --report op has no no_lat: with requests its times may be unknown.
        need(where, op, f, n, strict=not report)
        if n == 1 and op.get(f) is not None:
            seen["single"] += 1
    for k in ("iops", "bytes_per_s"):
        if not num(op.get(k)):
            bad.append((where, "%s is %s" % (k, op.get(k))))
    for k in known_objects(op, "lat_us", "q_us"):
        bad.append((where, "no count rule for %s" % k))


def check_life(where, o):
    need(where, o, "lifecycle_lat_us", total(o, *FOPS))


def check_proc(where, p):
    need(where, p, "req_lat_us", p["req_reads"] + p["req_writes"], strict=False)
    need(where, p, "call_lat_us", (p["call_reads"] or 0) + (p["call_writes"] or 0))
    need(where, p, "cache_hit_pct", p["call_read_bytes"] or 0, strict=False)
    check_life(where, p)
    for k in known_objects(p, "req_lat_us", "call_lat_us"):
        bad.append((where, "no count rule for %s" % k))


def check_file(where, f):
    need(where, f, "call_lat_us", (f["call_reads"] or 0) + (f["call_writes"] or 0))
    need(where, f, "disk_lat_us", total(f, "disk_reads", "disk_writes"), strict=False)
    need(where, f, "cache_hit_pct", f["call_read_bytes"] or 0, strict=False)
    check_life(where, f)
    for k in known_objects(f, "call_lat_us", "disk_lat_us"):
        bad.append((where, "no count rule for %s" % k))


def check_report_line(where, r):
    """One -J report."""
    walk(where, r)
    for d in r["devices"]:
        w = "%s.devices[%s]" % (where, d["name"])
        for o in ("read", "write", "other"):
            check_dev_op(w + "." + o, d[o], False)
        for k in ("avg",):
            if not num(d["qd"].get(k)):
                bad.append((w, "qd.%s is %s" % (k, d["qd"].get(k))))
    for p in r.get("processes", []):
        check_proc("%s.processes[%s %s]" % (where, p["pid"], p["comm"]), p)
    for f in r.get("files", []):
        check_file("%s.files[%s]" % (where, f["path"]), f)
    if "tables" in r:
        check_life(where + ".tables", r["tables"])
    s = r.get("self", {})
    if s:
        need(where + ".self", s, "bpf_ns_per_run", s.get("bpf_runs"))
    for k in known_objects(r):
        bad.append((where, "no count rule for %s" % k))


def check_report(r):
    """One --report OUT.json."""
    walk("report", r)
    for d in r["devices"]:
        w = "report.devices[%s]" % d["name"]
        ios = 0
        for o in ("read", "write", "other"):
            check_dev_op(w + "." + o, d[o], True)
            ios += d[o]["ios"]
        need(w, d, "lat_us", ios, strict=False)
        cols = d.get("median_column_p99_us")
        if cols is not None and not num(cols):
            bad.append((w, "median_column_p99_us is %s" % cols))
        if d["qd"]["max"] == 0 and d["qd"].get("max_at") is not None:
            bad.append((w, "qd.max_at %s with no request in flight ever" % d["qd"]["max_at"]))
        for k in known_objects(d, "lat_us"):
            bad.append((w, "no count rule for %s" % k))


def check_text(path):
    """-b reports: a figure with no sample is "-"; the tables as their headers say."""
    table = None
    for n, line in enumerate(open(path), 1):
        t = line.split()
        w = "%s:%d" % (path, n)
        if not t:
            table = None
            continue
        if t[0] == "Device":
            table = "dev"
            continue
        if t[0] == "PID":
            table = "proc"
            continue
        if t[0] == "opens" and "PATH" in t:
            table = "file"
            continue
        if table == "dev":
            seen["objects"] += 1
            # Device r/s w/s rMB/s wMB/s r_await w_await r_p50 r_p99 w_p50 w_p99 ...
            for rate, cols in ((t[1], (t[5], t[7], t[8])), (t[2], (t[6], t[9], t[10]))):
                if rate == "-":
                    seen["null"] += 1       # a report that covered no time
                elif float(rate) == 0 and cols != ("-", "-", "-"):
                    bad.append((w, "no request, yet await/p50/p99 %s: %s" % (cols, line.strip())))
                elif float(rate) == 0:
                    seen["null"] += 1
        elif table == "proc":
            seen["objects"] += 1
            # ... rd_ios wr_ios vfs_rd_B vfs_wr_B reads writes opens blk_p50 blk_p99 (the last 9)
            f = t[-9:]
            if int(f[0]) + int(f[1]) == 0 and (f[7], f[8]) != ("-", "-"):
                bad.append((w, "no block request, yet blk_p50/p99 %s %s: %s" % (f[7], f[8], line.strip())))
            elif int(f[0]) + int(f[1]) == 0:
                seen["null"] += 1
        elif table == "file":
            seen["objects"] += 1
            # opens reads writes rd_bytes wr_bytes dsk_rd_B dsk_wr_B lat_p50 lat_p99 PIDS PATH
            if int(t[1]) + int(t[2]) == 0 and (t[7], t[8]) != ("-", "-"):
                bad.append((w, "no read or write, yet lat_p50/p99 %s %s: %s" % (t[7], t[8], line.strip())))
            elif int(t[1]) + int(t[2]) == 0:
                seen["null"] += 1


def main():
    tag, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == "--json":
        lines = open(path).read().splitlines()
        for i, line in enumerate(lines):
            check_report_line("report %d" % (i + 1), json.loads(line))
    elif kind == "--report":
        check_report(json.load(open(path)))
    else:
        check_text(path)
    print("# %s: %d objects, %d with percentiles, %d figures without samples, "
          "%d percentile objects of one request" % (tag, seen["objects"], seen["pct_objects"],
                                                    seen["null"], seen["single"]))
    for where, what in bad[:12]:
        print("# %s: %s: %s" % (tag, where, what))
    print(("PASS: " if not bad else "FAIL: ") + "numbers: %s: every figure within its bounds, "
          "null or '-' without samples (%d wrong)" % (tag, len(bad)))
    if kind == "--report":
        # A run's devices usually have requests of every kind: nothing to null.
        print(("PASS: " if seen["pct_objects"] > 0 else "FAIL: ") + "numbers: %s: the "
              "output had percentiles to check (%d)" % (tag, seen["pct_objects"]))
    else:
        print(("PASS: " if seen["objects"] > 0 and seen["null"] > 0 else "FAIL: ") +
              "numbers: %s: the output had objects and figures without samples to check "
              "(%d, %d)" % (tag, seen["objects"], seen["null"]))
    if kind == "--json":
        print(("PASS: " if seen["single"] > 0 else "FAIL: ") + "numbers: %s: latencies of "
              "a single request checked (%d)" % (tag, seen["single"]))


main()
