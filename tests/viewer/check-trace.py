#!/usr/bin/env python3
"""Structural check of a Chrome Trace Event JSON file as blktop --trace writes it.

Usage: tests/viewer/check-trace.py TRACE.json
Exit 0 and print "ok: <summary>"; exit 1 and print "FAIL: <reason>" on the
first problem; exit 2 on usage errors.

Checks: valid JSON object with a traceEvents list; every event an object with
ph, ts, pid (and tid where the phase needs it); names are strings; X has
dur >= 0; B/E balance per thread; every b has an e with the same cat, id and
name, nested properly per (cat, id) and not ending before it begins; C args
are all numbers; i has s in g/p/t; M has a string args.name (process_name,
thread_name) or an integer sort_index (*_sort_index).
Numbers are read as Decimal so timestamps like 1764170000123456.789 compare
exactly (a float would round them to 0.25 us).
"""
import gc
import json
import re
import sys
from decimal import Decimal

PHASES = set("BEXibenCMIsftPOND") | {"(", ")"}
NEEDS_TID = set("XBEibe")
META_STR = {"process_name", "thread_name", "process_labels"}
META_INT = {"process_sort_index", "thread_sort_index"}


class Bad(Exception):
    pass


def is_num(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def is_int(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or \
        (isinstance(v, Decimal) and v == v.to_integral_value())


HEX_ID = re.compile(r"0x[0-9a-fA-F]+")


def where(i, e):
    """Event I's place and kind, for a message: made only when one is written."""
    name = e.get("name")
    return "event %d (ph %s%s)" % (i, e.get("ph"), ", %r" % name if isinstance(name, str) else "")


def check(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Bad("cannot read: %s" % e)
    try:
        doc = json.loads(raw, parse_float=Decimal)
    except (ValueError, RecursionError) as e:
        raise Bad("not valid JSON: %s" % e)
    if not isinstance(doc, dict):
        raise Bad("top level is %s, not an object" % type(doc).__name__)
    evs = doc.get("traceEvents")
    if not isinstance(evs, list):
        raise Bad("no traceEvents list")
    if not evs:
        raise Bad("traceEvents is empty")
    if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms", "ns"):
        raise Bad("displayTimeUnit is %r, not \"ms\" or \"ns\"" % (doc["displayTimeUnit"],))

    counts = {}
    pnames, tnames = {}, {}
    threads = set()
    be_stacks = {}          # (pid, tid) -> [name]
    async_ev = []           # (ts, index, ev) for b/e
    tmin = tmax = None
    for i, e in enumerate(evs):
        if not isinstance(e, dict):
            raise Bad("event %d is %s, not an object" % (i, type(e).__name__))
        ph = e.get("ph")
        if ph is None:
            raise Bad("event %d has no ph" % i)
        if not isinstance(ph, str) or ph not in PHASES:
            raise Bad("event %d has unknown ph %r" % (i, ph))
        name = e.get("name")
        counts[ph] = counts.get(ph, 0) + 1
        if "ts" not in e:
            raise Bad("%s has no ts" % where(i, e))
        ts = e["ts"]
        if not is_num(ts) or ts < 0:
            raise Bad("%s has ts %r, not a number >= 0" % (where(i, e), ts))
        if "pid" not in e:
            raise Bad("%s has no pid" % where(i, e))
        if not is_int(e["pid"]):
            raise Bad("%s has pid %r, not an integer" % (where(i, e), e["pid"]))
        if ph in NEEDS_TID and "tid" not in e:
            raise Bad("%s has no tid" % where(i, e))
        if "tid" in e and not is_int(e["tid"]):
            raise Bad("%s has tid %r, not an integer" % (where(i, e), e["tid"]))
        if not isinstance(name, str) and not (ph == "E" and name is None):
            raise Bad("%s has name %r, not a string" % (where(i, e), name))
        if "cat" in e and not isinstance(e["cat"], str):
            raise Bad("%s has cat %r, not a string" % (where(i, e), e["cat"]))
        args = e.get("args", {})
        if not isinstance(args, dict):
            raise Bad("%s has args %r, not an object" % (where(i, e), args))
        pid, tid = e["pid"], e.get("tid")
        if ph != "M":
            tmin = ts if tmin is None or ts < tmin else tmin
            end = ts + e["dur"] if ph == "X" and is_num(e.get("dur")) else ts
            tmax = end if tmax is None or end > tmax else tmax
            if tid is not None and ph in NEEDS_TID:
                threads.add((pid, tid))

        if ph == "X":
            if "dur" not in e:
                raise Bad("%s has no dur" % where(i, e))
            if not is_num(e["dur"]) or e["dur"] < 0:
                raise Bad("%s has dur %r, not a number >= 0" % (where(i, e), e["dur"]))
        elif ph == "B":
            be_stacks.setdefault((pid, tid), []).append(name)
        elif ph == "E":
            st = be_stacks.get((pid, tid))
            if not st:
                raise Bad("%s ends nothing on pid %s tid %s" % (where(i, e), pid, tid))
            top = st.pop()
            if name is not None and name != top:
                raise Bad("%s ends %r, but %r is open" % (where(i, e), name, top))
        elif ph in ("b", "e"):
            if not isinstance(e.get("cat"), str):
                raise Bad("%s has no cat" % where(i, e))
            aid = e.get("id", e.get("id2"))
            if isinstance(aid, dict):
                aid = aid.get("local", aid.get("global"))
                local = True
            else:
                local = False
            if isinstance(aid, str):
                if not HEX_ID.fullmatch(aid):
                    raise Bad("%s has id %r, not a hex string like \"0x1a\"" % (where(i, e), aid))
            elif not is_int(aid):
                raise Bad("%s has id %r, not a hex string or an integer" % (where(i, e), aid))
            async_ev.append((ts, i, e, (e["cat"], str(aid), pid if local else None)))
        elif ph == "C":
            if not args:
                raise Bad("%s has no args series" % where(i, e))
            for k, v in args.items():
                if not is_num(v):
                    raise Bad("%s series %r is %r, not a number" % (where(i, e), k, v))
        elif ph in ("i", "I"):
            if e.get("s", "t") not in ("g", "p", "t"):
                raise Bad("%s has s %r, not g/p/t" % (where(i, e), e.get("s")))
        elif ph == "M":
            if name in META_STR:
                if not isinstance(args.get("name" if name != "process_labels" else "labels"), str):
                    raise Bad("%s has no string args.name" % where(i, e))
                if name == "process_name":
                    pnames[pid] = args["name"]
                elif name == "thread_name":
                    if tid is None:
                        raise Bad("%s has no tid" % where(i, e))
                    tnames[(pid, tid)] = args["name"]
            elif name in META_INT:
                if not is_int(args.get("sort_index")):
                    raise Bad("%s has sort_index %r, not an integer" % (where(i, e), args.get("sort_index")))

    for (pid, tid), st in be_stacks.items():
        if st:
            raise Bad("B %r on pid %s tid %s never ends" % (st[-1], pid, tid))

    # async: in timestamp order (file order for equal ts, as viewers sort stably)
    async_ev.sort(key=lambda x: x[0])
    stacks = {}
    pairs = 0
    for ts, i, e, key in async_ev:
        st = stacks.setdefault(key, [])
        if e["ph"] == "b":
            st.append((e["name"], ts, i))
        else:
            if not st:
                raise Bad("event %d (e %r cat %r id %s) ends nothing" % (i, e["name"], key[0], key[1]))
            bname, bts, bi = st.pop()
            if bname != e["name"]:
                raise Bad("event %d (e %r cat %r id %s) ends %r of event %d: not nested" % (
                    i, e["name"], key[0], key[1], bname, bi))
            pairs += 1
    for key, st in stacks.items():
        if st:
            bname, bts, bi = st[-1]
            raise Bad("event %d (b %r cat %r id %s) has no matching e" % (bi, bname, key[0], key[1]))

    kinds = ", ".join("%s %d" % (k, counts[k]) for k in sorted(counts))
    span = "%.3f s" % ((tmax - tmin) / Decimal(1000000)) if tmin is not None else "no timed events"
    named = sorted(set(pnames.values()))
    return "%d events (%s), %d async pairs, %d processes named [%s], %d threads, span %s" % (
        len(evs), kinds or "none", pairs, len(named), ", ".join(named), len(threads), span)


def main():
    # A trace is hundreds of thousands of small objects, none of them cyclic:
    # the collector would walk them again and again while they load.
    gc.disable()
    if len(sys.argv) != 2:
        print("usage: %s TRACE.json" % sys.argv[0], file=sys.stderr)
        return 2
    try:
        print("ok: " + check(sys.argv[1]))
        return 0
    except Bad as e:
        print("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
