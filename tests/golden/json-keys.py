#!/usr/bin/env python3
# json-keys.py: the JSON key literals of -J, --report and --dump that more than
# one .c file of src/ writes (issue 43: each in one file). Run from the top of
# the tree; prints each with its files, then the counts. Not a test: a figure.
# A key is a \"key\": in a format string, a json_num()/json_common() name or a
# field row's key; --trace (sink-trace*.c), the metrics and the sources (their
# hook tables) are left out.
#
# --check (tests/integration/jsonkeys.sh): fail on a key in more than one file
# that SHARED does not list, and on a listed one no longer in more than one
# (the list only shrinks). SHARED: members of different objects that share a
# common word (start, max, p50), each with why; a measure's key lives in its
# field table's row and other writers take it from there
# (proc_fields[PROCF_PID].key).
import collections, glob, re, sys

SHARED = {
    "start": "a phase's, an anomaly's, a file offset map's and the report's time span",
    "max": "a latency summary's, a device's depth, the dropped tables' bounds",
    "p50": "a latency summary of a device (json.c) and of a phase's device (json-run.c)",
    "p90": "the same two latency summaries",
    "p99": "the same two latency summaries",
    "mean": "a phase's device latency (json-run.c) and a stack histogram's (stack-out.c)",
    "await_us": "a depth bucket's latency (json.c) and a phase's device's (json-run.c)",
    "columns": "a file offset map's columns (json.c) and the report's (json-run.c)",
    "procs": "a file's processes (json.c) and the process table's size (json-run.c)",
    "pids": "a file's processes (field-file.c) and a job's members (json-job.c)",
    "late": "a device's depths made late (json.c) and the stack's (stack-out.c)",
    "devices": "an interval's and the report's device list (json-run.c), the stack's (stack-out.c)",
    "processes": "an interval's process list (json-run.c) and the stack's (stack-out.c)",
    "files": "the interval's file list (json-run.c), the wear totals' count (json-wear.c), the stack's list (stack-out.c)",
    "count": "a depth bucket's requests (json.c) and the devices dropped (json-run.c)",
    "name": "a device's name (field-dev.c's row; a phase's list takes it from there) and an insight's subject's (json.c)",
    "avg": "a device's mean depth (field-dev.c's row) and a latency summary's mean (json.c)",
    "duration_s": "a phase's and the report's (json-run.c), the wear object's (json-wear.c)",
    "figure": "an insight's measured figure (json.c) and a compared figure's name (json-compare.c)",
    "min": "a latency summary's (json.c) and a compared figure's spread (json-compare.c)",
    "rule": "an insight's rule (json.c) and the compare's significance rule (json-compare.c)",
    "insights": "written by json.c; compare.c reads -J's \"insights\" back (a key it looks up, not one it writes)",
    "phases": "written by json-run.c; compare.c reads it back from -J (looked up, not written)",
}


files = collections.defaultdict(set)
for path in sorted(glob.glob("src/*.c")):
    if "trace" in path or "metrics" in path or "source-" in path:
        continue
    text = open(path, encoding="utf-8").read()
    keys = set(re.findall(r'\\"([a-z_0-9]+)\\":', text))
    keys |= set(re.findall(r'json_(?:num|common)\(f, "([a-z_0-9]+)"', text))
    keys |= set(re.findall(r'\] = \{ (?:-1, )?"([a-z_0-9]+)"', text))
    for k in keys:
        files[k].add(path.split("/")[-1])
multi = {k: v for k, v in files.items() if len(v) > 1}
for k, v in sorted(multi.items()):
    print(k, " ".join(sorted(v)))
print("%d keys, %d in more than one .c file" % (len(files), len(multi)))
if "--check" in sys.argv[1:]:
    new = sorted(k for k in multi if k not in SHARED)
    gone = sorted(k for k in SHARED if k not in multi)
    print("PASS:" if not new else "FAIL:", "jsonkeys: no key in two .c files but the %d "
          "listed (unlisted: %s)" % (len(SHARED), " ".join(new) or "none"))
    print("PASS:" if not gone else "FAIL:", "jsonkeys: every listed key is still in two "
          "(no longer: %s; take it off the list)" % (" ".join(gone) or "none"))
