#!/usr/bin/env python3
"""compare_screen.py SCREEN COMPARE_JSON TEST [--heat]: the compare screen's
figures (ui/ui-compare.c) against `blktop --compare -J` of the same captures.

Every figure row on the screen is its entity's figure in the compare object:
A and B (a set's median [min..max]), B-A, B/A and sig, as numbers equal to
-J's; every figure of the entities shown is on the screen. --heat: the
device's B - A per bucket (the rows of numbers beside the heatmaps) equals
B's median share of a run's requests less A's, made here from the runs'
own -J histograms and summed over each screen row's buckets as the screen
folds them (ui-compare.c, compare-heat.c). Prints PASS/FAIL lines.
"""
import json
import re
import sys

screen_path, cmp_path, test = sys.argv[1:4]
heat = "--heat" in sys.argv[4:]
lines = open(screen_path, encoding="utf-8").read().splitlines()
c = json.loads(open(cmp_path, encoding="utf-8").read())["compare"]
failed = 0


def out(ok, what):
    global failed
    failed += not ok
    print(("PASS: " if ok else "FAIL: ") + test + ": " + what)


NUM = r"[-+]?[0-9]+(?:\.[0-9]+)?"
SIDE = r"(-|%s(?: \[%s\.\.%s\])?)" % (NUM, NUM, NUM)
ROW = re.compile(r"^  (\S+)( /s)?\s+%s\s+%s\s+(-|%s)\s+(-|%s)\s+(YES|no|-)\s*$" %
                 (SIDE, SIDE, NUM, NUM))
HEAD = re.compile(r'^(device|process|file|phase|insight) ("(?:[^"\\]|\\.)*"|\S+)(?: (.*))?$')
ENT = {"device": ("devices", "name", None), "process": ("processes", "comm", None),
       "file": ("files", "path", None), "phase": ("phases", "label", "device"),
       "insight": ("insights", "code", "name")}


def entity(kind, key, key2):
    arr, k1, k2 = ENT[kind]
    for row in c[arr]:
        if row[k1] != json.loads(key):
            continue
        if k2 is not None and row.get(k2) != (json.loads(key2) if key2 is not None else None):
            continue
        return row
    return None


def side_ok(cell, s, nrun):
    if s["median"] is None:
        return cell == "-"
    m = re.match(r"^(%s)(?: \[(%s)\.\.(%s)\])?$" % (NUM, NUM, NUM), cell)
    if m is None or float(m.group(1)) != s["median"]:
        return False
    if nrun == 1:
        return m.group(2) is None
    return m.group(2) is not None and float(m.group(2)) == s["min"] and float(m.group(3)) == s["max"]


def num_ok(cell, v):
    return cell == "-" if v is None else cell != "-" and float(cell) == v


# ---- the table: its rows under each entity's heading
try:
    start = next(i for i, l in enumerate(lines) if re.match(r"^  figure +A +B +B-A +B/A +sig", l))
except StopIteration:
    out(False, "the screen has the figures' table header")
    sys.exit(1)
nrun = (len(c["a"]["files"]), len(c["b"]["files"]))
ent, seen, nrows, bad = None, {}, 0, []
for l in lines[start + 1:]:
    h = HEAD.match(l)
    if h:
        ent = entity(h.group(1), h.group(2), h.group(3))
        if ent is None:
            bad.append("no entity %s in -J" % l)
            continue
        seen[id(ent)] = (ent, set())
        continue
    m = ROW.match(l)
    if m is None or ent is None:
        continue
    name, per_s, a, b, d, r, sig = m.groups()
    figs = [f for f in ent["figures"] if f["figure"] == name]
    if not figs:
        bad.append("%s: no such figure in -J" % name)
        continue
    f = figs[0]
    seen[id(ent)][1].add(name)
    nrows += 1
    want_sig = "-" if f["significant"] is None else "YES" if f["significant"] else "no"
    why = []
    if (per_s is not None) != (f["basis"] == "per_s"):
        why.append("basis %s" % f["basis"])
    if not side_ok(a, f["a"], nrun[0]):
        why.append("A %s, -J %s" % (a, f["a"]))
    if not side_ok(b, f["b"], nrun[1]):
        why.append("B %s, -J %s" % (b, f["b"]))
    if not num_ok(d, f["diff"]):
        why.append("B-A %s, -J %s" % (d, f["diff"]))
    if not num_ok(r, f.get("ratio")):
        why.append("B/A %s, -J %s" % (r, f.get("ratio")))
    if sig != want_sig:
        why.append("sig %s, -J %s" % (sig, f["significant"]))
    if why:
        bad.append("%s: %s" % (name, "; ".join(why)))
out(nrows > 0 and not bad, "%d figure rows on screen, each A, B, B-A, B/A and sig as -J's%s" %
    (nrows, ": " + " | ".join(bad[:4]) if bad else ""))
# Every figure of a shown entity is on the screen (the last one shown may be cut by the screen's end).
missing = []
shown = list(seen.values())
for k, (e, names) in enumerate(shown):
    want = [f["figure"] for f in e["figures"]]
    if k == len(shown) - 1:
        want = want[:len(names)]
    missing += [n for n in want if n not in names]
out(shown and not missing, "every figure of the %d entities shown is on the screen%s" %
    (len(shown), ": missing " + " ".join(missing[:6]) if missing else ""))

# ---- the heatmaps' B - A per bucket
if heat:
    try:
        t = next(i for i, l in enumerate(lines) if "A over time" in l)
    except StopIteration:
        out(False, "the heatmaps' titles are on the screen")
        sys.exit(1)
    x = lines[t].find("B - A per bucket")
    out(x > 0, "the difference is per bucket (the time columns do not align)")
    rows = []
    for l in lines[t + 1:]:
        if l.strip() == "":
            break
        rows.append(l)
    key = None
    for l in lines[start + 1:]:
        h = HEAD.match(l)
        if h and h.group(1) == "device":
            key = json.loads(h.group(2))
            break

    def shares(run):
        dev = [d for d in run["devices"] if d["name"] == key][0]
        hs = (dev["read"].get("hist") or []) + (dev["write"].get("hist") or [])
        tot = sum(e["count"] for e in hs)
        s = {}
        for e in hs:
            s[e["lo_us"]] = s.get(e["lo_us"], 0) + (e["count"] / tot if tot else 0)
        return s

    def median(v):
        v = sorted(v)
        n = len(v)
        return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    sa = [shares(r) for r in c["a"]["runs"]]
    sb = [shares(r) for r in c["b"]["runs"]]
    lo = sorted(set(k for s in sa + sb for k in s))
    diff = [median([s.get(b, 0) for s in sb]) - median([s.get(b, 0) for s in sa]) for b in lo]
    n = len(rows)
    fold = [0.0] * (2 * n)
    for i, v in enumerate(diff):
        fold[i * 2 * n // len(lo)] += v
    bad = []
    for r, l in enumerate(rows):
        v = fold[2 * (n - 1 - r)] + fold[2 * (n - 1 - r) + 1]
        cell = l[x:].strip() if x > 0 else ""
        if cell == "" and abs(v) < 1e-12:
            continue
        if cell == "" or abs(float(cell) - v) > 0.00006:
            bad.append("row %d: screen %r, runs' shares %+.5f" % (r, cell, v))
    out(n > 0 and not bad, "the %d rows of B - A per bucket are B's share less A's over %d buckets%s" %
        (n, len(lo), ": " + " | ".join(bad[:4]) if bad else ""))
sys.exit(1 if failed else 0)
