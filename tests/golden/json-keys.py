#!/usr/bin/env python3
# json-keys.py: the JSON key literals of -J, --report and --dump that more than
# one .c file of src/ writes (issue 43: each in one file). Run from the top of
# the tree; prints each with its files, then the counts. Not a test: a figure.
# A key is a \"key\": in a format string, a json_num()/json_common() name or a
# field row's key; --trace (sink-trace*.c), the metrics and the sources (their
# hook tables) are left out.
import collections, glob, re

files = collections.defaultdict(set)
for path in sorted(glob.glob("src/*.c")):
    if "trace" in path or "metrics" in path or "source-" in path:
        continue
    text = open(path, encoding="utf-8").read()
    keys = set(re.findall(r'\\"([a-z_0-9]+)\\":', text))
    keys |= set(re.findall(r'json_(?:num|common)\(f, "([a-z_0-9]+)"', text))
    keys |= set(re.findall(r'\] = \{ "([a-z_0-9]+)"', text))
    for k in keys:
        files[k].add(path.split("/")[-1])
multi = {k: v for k, v in files.items() if len(v) > 1}
for k, v in sorted(multi.items()):
    print(k, " ".join(sorted(v)))
print("%d keys, %d in more than one .c file" % (len(files), len(multi)))
