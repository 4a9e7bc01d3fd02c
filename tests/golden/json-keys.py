#!/usr/bin/env python3
# json-keys.py: the JSON key literals of -J, --report and --dump that more than
# one file of src/ spells (issue 43: each in one file). Run from the top of the
# tree; prints each with its files, then the counts.
# A key is a \"key\": in a format string of a .c file, a json_num()/json_common()
# name, a field row's key, a latency summary's member (json.c's [JL_X] =
# "key"), a --dump column (sink-dump.c's sink_dump_cols), or a #define JK_X "key" of src/json-key.h (the keys that several
# objects share: their writers and readers name them by macro);
# --trace (sink-trace*.c), the metrics and the sources (their hook tables) are
# left out.
#
# --check (tests/integration/jsonkeys.sh): fail on any key in more than one
# file, and on a key of json-key.h that fewer than two .c files name (a key of
# one writer belongs in that writer). SRC=DIR reads DIR instead of src/.
import collections, glob, os, re, sys

src = os.environ.get("SRC", "src")
files = collections.defaultdict(set)
for path in sorted(glob.glob(src + "/*.c")):
    if "trace" in path or "metrics" in path or "source-" in path:
        continue
    text = open(path, encoding="utf-8").read()
    keys = set(re.findall(r'\\"([a-z_0-9]+)\\":', text))
    keys |= set(re.findall(r'json_(?:num|common)\(f, "([a-z_0-9]+)"', text))
    keys |= set(re.findall(r'\] = \{ (?:-1, )?"([a-z_0-9]+)"', text))
    keys |= set(re.findall(r'\[JL_[A-Z0-9_]+\] = "([a-z_0-9]+)"', text))	# json_lat's members
    keys |= set(re.findall(r'json_read_get\([^;]*?"([a-z_0-9]+)"\)', text))	# keys read back
    for cols in re.findall(r'sink_dump_cols\[\] = \{([^}]*)\}', text):	# --dump's columns
        keys |= set(re.findall(r'"([a-z_0-9]+)"', cols))
    for k in keys:
        files[k].add(path.split("/")[-1])
macros = {}
header = os.path.join(src, "json-key.h")
if os.path.exists(header):
    macros = dict(re.findall(r'^#define\s+(JK_[A-Z0-9_]+)\s+"([a-z_0-9]+)"',
                             open(header, encoding="utf-8").read(), re.M))
    for k in macros.values():
        files[k].add("json-key.h")
multi = {k: v for k, v in files.items() if len(v) > 1}
for k, v in sorted(multi.items()):
    print(k, " ".join(sorted(v)))
print("%d keys, %d in more than one file" % (len(files), len(multi)))
if "--check" in sys.argv[1:]:
    users = collections.defaultdict(set)
    for path in sorted(glob.glob(src + "/*.c")):
        for m in set(re.findall(r'\b(JK_[A-Z0-9_]+)\b', open(path, encoding="utf-8").read())):
            users[m].add(path.split("/")[-1])
    lone = sorted("%s (%s)" % (m, " ".join(sorted(users[m])) or "none")
                  for m in macros if len(users[m]) < 2)
    print("PASS:" if not multi else "FAIL:", "jsonkeys: no key in two files of src/ "
          "(in more: %s)" % (" ".join(sorted(multi)) or "none"))
    print("PASS:" if not lone else "FAIL:", "jsonkeys: every key of json-key.h is named "
          "by two .c files or more (fewer: %s; put it back in its writer)" %
          (" ".join(lone) or "none"))
