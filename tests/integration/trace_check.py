#!/usr/bin/env python3
"""trace_check.py MODE ...: trace.sh's checks of a --trace file, as PASS:/FAIL: lines.

  capture TRACE DUMP.csv BATCH.jsonl   the committed capture's trace against its rows and reports
  bounded TRACE DUMP.csv FULL_TRACE    --trace-max: what stayed
  offset TRACE FULL_TRACE SECS         --trace-offset: every time shifted by SECS
  live TRACE DUMP.csv LIVE.jsonl FIO.json WORKPID MNT DEV REPLAY_TRACE
"""
import csv
import json
import sys

DEV_PID = 4194304


def out(ok, what):
    print(("PASS: " if ok else "FAIL: ") + "trace: " + what)
    return ok


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def names(d):
    """pid -> process_name, (pid, tid) -> thread_name."""
    p, t = {}, {}
    for e in d["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "process_name":
            p[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            t[(e["pid"], e["tid"])] = e["args"]["name"]
    return p, t


def requests(d):
    """The outer slices of requests: device name -> op name -> [count, bytes], and the list."""
    pn, _ = names(d)
    by, lst = {}, []
    for e in d["traceEvents"]:
        if e["ph"] == "b" and e.get("cat") == "block" and e["name"] not in ("queue", "device"):
            dev = pn.get(e["pid"], "?").replace("disk ", "", 1)
            c = by.setdefault(dev, {}).setdefault(e["name"], [0, 0])
            c[0] += 1
            c[1] += e["args"]["bytes"]
            lst.append((dev, e))
    return by, lst


def dump_requests(rows, dev=None):
    by = {}
    opn = {"0": "read", "1": "write", "2": "flush", "3": "discard"}
    for r in rows:
        if r["type"] != "block" or (dev is not None and r["device"] != dev):
            continue
        c = by.setdefault(r["device"], {}).setdefault(opn.get(r["op"], "other"), [0, 0])
        c[0] += 1
        c[1] += int(r["bytes"])
    return by


def counters_per_device(d):
    pn, _ = names(d)
    c = {}
    for e in d["traceEvents"]:
        if e["ph"] == "C" and e["pid"] >= DEV_PID:
            c.setdefault(pn.get(e["pid"], "?").replace("disk ", "", 1), []).append(e)
    return c


def tick_counters(d, rows, dev):
    """Each tick of the stream from the device's first request has the device's
    counters at its time, and no counters are at a time that is no tick's:
    (ticks, those with counters, counters at no tick)."""
    seen, want, ticks = False, [], []
    for r in rows:
        if r["type"] == "block" and r["device"] == dev:
            seen = True
        elif r["type"] == "tick":
            ticks.append(float(r["ts"]) * 1e6)
            if seen:
                want.append(ticks[-1])
    have = sorted(e["ts"] for e in counters_per_device(d).get(dev, []))
    hit = sum(1 for w in want if any(abs(h - w) < 1.0 for h in have))
    stray = sum(1 for h in have if not any(abs(h - w) < 1.0 for w in ticks))
    return len(want), hit, stray


def check_ticks(d, rows, dev, name):
    n, hit, stray = tick_counters(d, rows, dev)
    out(n > 0 and hit == n and stray == 0,
        "%s: %s's counters at each of the %d ticks from its first request (%d), none off a tick (%d)"
        % (name, dev, n, hit, stray))


def batch_ts_near(d, batch, devs):
    """Each report's wall time has each device's counters within 1 s."""
    cs = counters_per_device(d)
    worst = 0.0
    n = 0
    for b in batch:
        for dv in b["devices"]:
            if dv["name"] not in devs or dv["name"] not in cs:
                continue
            near = min(abs(e["ts"] / 1e6 - b["ts"]) for e in cs[dv["name"]])
            worst = max(worst, near)
            n += 1
    return n, worst


def mode_capture(trace, dump, batch):
    d = load(trace)
    rows = list(csv.DictReader(open(dump, encoding="utf-8")))
    bl = [json.loads(l) for l in open(batch, encoding="utf-8")]
    o = d.get("otherData", {})
    out(o.get("sampled") is False and o.get("events_dropped") == 0 and d.get("displayTimeUnit") == "ns",
        "capture: nothing sampled (%s dropped), displayTimeUnit ns" % o.get("events_dropped"))
    got, lst = requests(d)
    want = dump_requests(rows)
    out(got == want and len(want) > 0,
        "capture: requests per device and op, count and bytes %s; the capture's rows %s" % (got, want))
    # Queue and device times: the rows' own, to the ns.
    qt = sum(round(e["args"]["queue_us"] * 1000) for _, e in lst)
    dt = sum(round(e["args"]["device_us"] * 1000) for _, e in lst)
    wq = sum(int(r["queue_ns"]) for r in rows if r["type"] == "block")
    wd = sum(int(r["lat_ns"]) for r in rows if r["type"] == "block")
    out(qt == wq and dt == wd, "capture: queue and device time summed, %d and %d ns; the rows' %d and %d"
        % (qt, dt, wq, wd))
    for dev in want:
        check_ticks(d, rows, dev, "capture")
    n, worst = batch_ts_near(d, bl, want)
    out(n > 0 and worst < 1.0, "capture: each of %d -J intervals has its device's counters within 1 s "
        "of its wall time (worst %.6f s)" % (n, worst))
    pn, tn = names(d)
    comm = {}
    for r in rows:
        if r["type"] == "block":
            comm.setdefault(int(r["tgid"]), set()).add(r["comm"])
    bad = [(p, pn.get(p)) for p in {e["args"]["pid"] for _, e in lst} if pn.get(p) not in comm.get(p, ())]
    out(not bad and len(comm) > 0, "capture: the M process names are the rows' commands (%d processes%s)"
        % (len(comm), "" if not bad else ", wrong: %s" % bad[:3]))


def mode_bounded(trace, dump, full):
    d = load(trace)
    f = load(full)
    rows = list(csv.DictReader(open(dump, encoding="utf-8")))
    o = d["otherData"]
    out(o.get("sampled") is True and o["events_dropped"] > 0 and o["events_kept"] > 0,
        "bounded: otherData says it was sampled (%d kept, %d dropped)" % (o["events_kept"], o["events_dropped"]))
    _, lst = requests(d)
    have = {(e["args"]["sector"], round((e["args"]["queue_us"] + e["args"]["device_us"]) * 1000))
            for _, e in lst}
    blocks = sorted((r for r in rows if r["type"] == "block"),
                    key=lambda r: -(int(r["lat_ns"]) + int(r["queue_ns"])))
    slow = blocks[:50]
    miss = [r for r in slow if (int(r["sector"]), int(r["lat_ns"]) + int(r["queue_ns"])) not in have]
    out(not miss, "bounded: the 50 slowest requests of the capture are in (%d missing)" % len(miss))
    cut = int(slow[-1]["lat_ns"]) + int(slow[-1]["queue_ns"])
    rest = sum(1 for _, e in lst if (e["args"]["queue_us"] + e["args"]["device_us"]) * 1000 < cut)
    out(rest > 50, "bounded: and a sample of the rest (%d faster requests)" % rest)
    cf, cd = counters_per_device(f), counters_per_device(d)
    out({k: len(v) for k, v in cf.items()} == {k: len(v) for k, v in cd.items()},
        "bounded: every device counter kept (%s)" % {k: len(v) for k, v in cd.items()})
    out(o["requests_seen"] == o["requests_dropped"] + len(lst),
        "bounded: requests seen %d = dropped %d + kept %d" % (o["requests_seen"], o["requests_dropped"], len(lst)))


def mode_offset(trace, full, secs):
    d, f = load(trace), load(full)
    a = [e for e in d["traceEvents"] if e["ph"] != "M"]
    b = [e for e in f["traceEvents"] if e["ph"] != "M"]
    shift = float(secs) * 1e6
    bad = sum(1 for x, y in zip(a, b) if abs(x["ts"] - y["ts"] - shift) > 1.0)
    out(len(a) == len(b) and bad == 0 and len(a) > 0,
        "offset: all %d times moved by %s s (%d not)" % (len(a), secs, bad))
    out(d["otherData"]["trace_offset_s"] == float(secs), "offset: otherData says %s"
        % d["otherData"]["trace_offset_s"])


def mode_live(trace, dump, jsonl, fio, workpid, mnt, dev, replay):
    d = load(trace)
    rows = list(csv.DictReader(open(dump, encoding="utf-8")))
    bl = [json.loads(l) for l in open(jsonl, encoding="utf-8")]
    fj = json.load(open(fio))
    pid = int(workpid)
    o = d["otherData"]
    out(o.get("sampled") is False and o.get("clock") == "wall" and o.get("lost_in_kernel") == 0,
        "live: nothing sampled, wall clock, nothing lost (%s, %s, %s)"
        % (o.get("sampled"), o.get("clock"), o.get("lost_in_kernel")))
    got, lst = requests(d)
    want = dump_requests(rows, dev)
    out(got.get(dev) == want.get(dev) and dev in want,
        "live: %s's requests per op, count and bytes %s; the capture's %s" % (dev, got.get(dev), want.get(dev)))
    jn = sum(dv[op]["ios"] for b in bl for dv in b["devices"] if dv["name"] == dev
             for op in ("read", "write", "other"))
    tn = sum(c[0] for c in got.get(dev, {}).values())
    out(jn == tn, "live: %d requests in the trace, %d in the -J reports" % (tn, jn))
    pn, tnames = names(d)
    ios = fj["jobs"][0]["read"]["total_ios"]
    ur = [e for e in d["traceEvents"] if e["ph"] == "b" and e.get("cat") == "async"
          and e["args"].get("path") == mnt + "/f"]
    out(len(ur) == ios and sum(e["args"]["done"] for e in ur) == ios * 4096 and ios >= 3000,
        "live: %d io_uring reads of %s/f, %d bytes; fio's %d" % (len(ur), mnt, sum(e["args"]["done"] for e in ur), ios))
    out(ur and all(pn.get(e["pid"]) == "fio" for e in ur),
        "live: their process is named fio (%s)" % sorted({pn.get(e["pid"]) for e in ur}))
    mine = [e for e in d["traceEvents"] if e["ph"] == "X" and e["pid"] == pid]
    wr = [e for e in mine if e["name"] == "write" and e["args"].get("path") == mnt + "/g"]
    pr = [e for e in mine if e["name"] == "pread64" and e["args"].get("path") == mnt + "/g"]
    fs = [e for e in mine if e["name"] == "fsync"]
    out(len(wr) == 256 and all(e["args"]["done"] == 4096 for e in wr),
        "live: trwork's 256 writes of 4096 bytes (%d)" % len(wr))
    out(sorted(e["args"].get("offset") for e in pr) == [i * 4096 for i in range(256)],
        "live: trwork's 256 preads at offsets 0, 4096, ... (%d)" % len(pr))
    out(len(fs) == 1 and fs[0]["args"].get("path") == mnt + "/g", "live: trwork's one fsync (%d)" % len(fs))
    out(pn.get(pid) == "trwork" and tnames.get((pid, pid)) == "trwork",
        "live: the process and thread are named trwork (%s, %s)" % (pn.get(pid), tnames.get((pid, pid))))
    ends = [e["ts"] + e["dur"] for e in mine]
    out(all(a <= b for a, b in zip([e["ts"] for e in mine], [e["ts"] for e in mine][1:])) and len(mine) >= 513,
        "live: trwork's %d calls in time order" % len(mine))
    pc = [e for e in d["traceEvents"] if e["ph"] == "C" and e["pid"] == pid and e["name"] == "I/O"]
    out(any(e["args"]["write MB/s"] > 0 for e in pc) and any(e["args"]["read MB/s"] > 0 for e in pc),
        "live: trwork's I/O counters show its writes and reads (%d ticks)" % len(pc))
    check_ticks(d, rows, dev, "live")
    n, worst = batch_ts_near(d, bl, {dev})
    out(n > 0 and worst < 1.0, "live: each of %d -J intervals has %s's counters within 1 s of its wall "
        "time (worst %.6f s)" % (n, dev, worst))
    # The calls on the -J wall clock: trwork's writes end before the report that counted them.
    first = min(ends) / 1e6 if ends else 0
    rep = [b["ts"] for b in bl if any(p.get("pid") == pid for p in b.get("processes", []))]
    out(rep and first <= rep[0] and rep[0] - first < 3.0,
        "live: trwork's first call %.3f s before the first report that names it" % ((rep[0] - first) if rep else -1))
    rec = [e for e in d["traceEvents"] if e.get("cat") == "capture"]
    out(len(rec) == 1 and rec[0]["name"] == "recording started" and rec[0]["args"]["by"] == "-w"
        and rec[0]["ts"] <= min(e["ts"] for e in d["traceEvents"] if e["ph"] == "C") + 1,
        "live: the recording's start (-w) is an instant, before the first counters (%s)"
        % [(e["name"], e["args"]) for e in rec])
    r = load(replay)
    rg, _ = requests(r)
    ra = sum(1 for e in r["traceEvents"] if e["ph"] == "b" and e.get("cat") == "async")
    la = sum(1 for e in d["traceEvents"] if e["ph"] == "b" and e.get("cat") == "async")
    out(rg.get(dev) == got.get(dev) and ra == la,
        "live: the capture's replay gives the same trace of requests and async calls (%s, %d; live %s, %d)"
        % (rg.get(dev), ra, got.get(dev), la))


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    try:
        {"capture": mode_capture, "bounded": mode_bounded, "offset": mode_offset, "live": mode_live}[mode](*args)
    except Exception as e:  # a broken file is a failure, not a crash of the test
        out(False, "%s: %s: %s" % (mode, type(e).__name__, e))


if __name__ == "__main__":
    main()
