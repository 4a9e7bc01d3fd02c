#!/usr/bin/env python3
"""stack_screen.py SCREEN JSONL TEXT SCOPE TEST: the UI's stack screen (key L) as
tmux captured it against -J's "stack" object (the last line of JSONL) and
--stack's text (TEXT) of the same capture: every column's buckets, count and
mean, and each verdict line. SCOPE: all, dev:NAME, pid:N or file:PATH.
stack_screen.py --html HTML JSONL TEXT TEST: the same of every scope of the
HTML report's "Latency stack" section (means to -J's 3 decimals).
Prints PASS/FAIL lines named TEST (exit 0: a nonzero exit is an error of its own)."""
import json
import re
import sys

COLS = {"q2d_r": "q2d_read_us", "q2d_w": "q2d_write_us", "d2c_r": "d2c_read_us",
        "d2c_w": "d2c_write_us", "vfs_r": "vfs_read_us", "vfs_w": "vfs_write_us",
        "fsync": "fsync_us", "wr>fsync": "write_to_fsync_us", "dirty>fs": "dirty_to_fsync_us",
        "kb_r": "bssplit_read_kb", "kb_w": "bssplit_write_kb", "qd_r": "qd_read",
        "qd_w": "qd_write", "q2d": "q2d_us", "d2c": "d2c_us"}


def num(v):
    """A bucket edge as bpftrace writes it: 1024 -> 1K."""
    k = 0
    while v >= 1024 and v % 1024 == 0 and k < 6:
        v //= 1024
        k += 1
    return "%d%s" % (v, "KMGTPE"[k - 1] if k else "")


def label(lo):
    return "[%d]" % lo if lo <= 1 else "[%s, %s)" % (num(lo), num(lo * 2))


def blocks(lines):
    """The screen's blocks: {column: {"b": {label: count}, "n": n, "mean": text}}."""
    out, cur = {}, None
    for l in lines:
        m = re.match(r"^(us|KiB \| depth)\s+(.*)$", l)
        if m:
            cur = m.group(2).split()
            for c in cur:
                out[c] = {"b": {}, "n": None, "mean": None}
            continue
        if cur is None:
            continue
        if not l.strip():
            cur = None
            continue
        lab, vals = l[:16].strip(), l[16:].split()
        if len(vals) != len(cur):
            cur = None
            continue
        for c, v in zip(cur, vals):
            if lab == "n":
                out[c]["n"] = int(v)
            elif lab == "mean":
                out[c]["mean"] = v
            elif v != "0":
                out[c]["b"][lab] = int(v)
    return out


def find(st, scope):
    """-J's object of a scope: all, dev:NAME, pid:N or file:PATH."""
    kind, _, what = scope.partition(":")
    if kind == "all":
        want = st["all"]
    elif kind == "dev":
        want = next(d for d in st["devices"] if d["device"] == what)
    elif kind == "pid":
        want = next(p for p in st["processes"] if p["pid"] == int(what))
    else:
        want = next(f for f in st["files"] if f["path"] == what)
    return want


def html(path, st, text, test):
    """Each <h3> scope of the report's stack section against -J's."""
    page = open(path).read()
    sec = page.split("<h2>Latency stack</h2>", 1)
    if len(sec) < 2:
        print("FAIL: %s: the report has no Latency stack section" % test)
        return
    sec = re.split(r"<h2>", sec[1], 1)[0]
    n, bad = 0, []
    for name, body in re.findall(r"<h3>(.*?)</h3>\n(.*?)(?=<h3>|$)", sec, re.S):
        name = html_unescape(name)
        if name == "all devices and processes":
            scope = "all"
        elif name.startswith("device "):
            scope = "dev:" + name[7:]
        elif name.startswith("process "):
            scope = "pid:" + re.search(r"\[(\d+)\]$", name).group(1)
        else:
            scope = "file:" + name[5:]
        want = find(st, scope)
        n += 1
        for table in re.findall(r"<table.*?</table>", body, re.S):
            rows = [[re.sub(r"<[^>]*>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)]
                    for r in re.findall(r"<tr.*?</tr>", table, re.S)]
            keys = rows[0][1:]
            for i, k in enumerate(keys):
                w = want.get(k)
                got = {r[0]: int(r[i + 1]) for r in rows[1:] if r[0] not in ("n", "mean") and r[i + 1] != "0"}
                gn = next(int(r[i + 1]) for r in rows if r[0] == "n")
                gm = next(r[i + 1] for r in rows if r[0] == "mean")
                if w is None:
                    bad.append("%s %s: not in -J" % (scope, k))
                    continue
                wb = {label(lo): c for lo, c in w["buckets"]}
                wm = "-" if w["n"] == 0 else "%.3f" % w["mean"]
                if got != wb or gn != w["n"] or gm != wm:
                    bad.append("%s %s: html %s n %s mean %s, -J %s n %s mean %s" % (scope, k, got, gn, gm, wb, w["n"], wm))
        rules = [html_unescape(l) for l in re.search(r"<pre class=\"rules\">(.*?)</pre>", body, re.S).group(1).splitlines() if l]
        bad += ["%s: rule line not --stack's: %s" % (scope, l) for l in rules if l not in text]
    ok = n > 0 and not bad
    print(("PASS: " if ok else "FAIL: ") + "%s: the report's stack section: %d scopes' histograms equal -J's "
          "buckets, counts and means, their rules --stack's lines%s" % (test, n, "" if ok else ": " + "; ".join(bad[:3])))


def html_unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&#39;", "'").replace("&amp;", "&")


def main():
    if sys.argv[1] == "--html":
        st = json.loads(open(sys.argv[3]).read().strip().splitlines()[-1])["stack"]
        html(sys.argv[2], st, [l.rstrip() for l in open(sys.argv[4])], sys.argv[5])
        return
    screen = open(sys.argv[1]).read().splitlines()
    st = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["stack"]
    text = [l.rstrip() for l in open(sys.argv[3])]
    scope, test = sys.argv[4], sys.argv[5]
    want = find(st, scope)
    got = blocks(screen)
    bad = []
    for c, g in sorted(got.items()):
        w = want.get(COLS[c])
        if w is None:
            bad.append("%s: not in -J's scope" % c)
            continue
        wb = {label(lo): n for lo, n in w["buckets"]}
        if g["b"] != wb or g["n"] != w["n"]:
            bad.append("%s: screen %s n %s, -J %s n %s" % (c, g["b"], g["n"], wb, w["n"]))
        wm = "-" if w["n"] == 0 else "%.1f" % w["mean"]
        if g["mean"] != wm and not (wm != "-" and abs(float(g["mean"]) - w["mean"]) <= 0.0501):
            bad.append("%s: mean %s, -J %s" % (c, g["mean"], w["mean"]))
    ok = bool(got) and not bad
    print(("PASS: " if ok else "FAIL: ") + test + ": stack screen %s: %d columns (%s) equal -J's buckets, "
          "counts and means%s" % (scope, len(got), " ".join(sorted(got)),
                                  "" if ok else ": " + "; ".join(bad[:4])))
    rules = [l.rstrip() for l in screen if re.search(r" (yes|no|n/a) +\S+ mean ", l)]
    missing = [l for l in rules if l not in text]
    ok2 = bool(rules) and not missing
    print(("PASS: " if ok2 else "FAIL: ") + test + ": stack screen %s: its %d rule lines are --stack's "
          "own%s" % (scope, len(rules), "" if ok2 else " (not in --stack's: %s)" % missing[:2]))


main()
