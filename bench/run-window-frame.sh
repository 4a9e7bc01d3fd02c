#!/bin/bash
# run-window-frame.sh OLD-BUILD NEW-BUILD [PAIRS]: bench-window and bench-frame
# (devices, processes, files) of two release build trees (make bench in each),
# alternating, PAIRS times (default 5); prints each run and the medians.
old=${1:?usage: run-window-frame.sh OLD-BUILD NEW-BUILD [PAIRS]} new=${2:?usage}
out=$(mktemp)
for i in $(seq 1 "${3:-5}"); do
	for v in old new; do
		d=$old; [ $v = new ] && d=$new
		echo "window $v $("$d/bench/bench-window" | sed -n 's/aggregation: \([0-9.]*\) million.*/\1/p')"
		for m in devices processes files; do
			echo "frame-$m $v $("$d/bench/bench-frame" $m | grep "frame: median")"
		done
	done
done | tee "$out"
python3 - "$out" <<'PY'
import re, statistics as st, sys
d = {}
for l in open(sys.argv[1]):
    p = l.split()
    if p[0] == "window":
        d.setdefault(("window M events/s", p[1]), []).append(float(p[2]))
        continue
    m = re.search(r"frame: median ([0-9.]+) ms.*tick\+collect: median ([0-9.]+)", l)
    d.setdefault((p[0] + " frame ms", p[1]), []).append(float(m.group(1)))
    d.setdefault((p[0] + " tick+collect ms", p[1]), []).append(float(m.group(2)))
for k in sorted({k for k, _ in d}):
    o, n = d[(k, "old")], d[(k, "new")]
    print("%-31s old %.3f  new %.3f  new/old %.2f" % (k, st.median(o), st.median(n), st.median(n) / st.median(o)))
PY
rm -f "$out"
