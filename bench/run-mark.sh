#!/bin/bash
# run-mark.sh: a mark's latency, from the command to the capture: the wall
# time a mark was sent at against the time blktop gave its record, for
# `blktop --mark` (a process started per mark) and for one datagram from a
# running program (python3), with and without I/O beside it.
# usage: bench/run-mark.sh [BLKTOP] [N]   (root)
set -u
BLKTOP=${1:-./blktop}
N=${2:-20}
[ "$(id -u)" = 0 ] || { echo "run-mark: needs root" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
bench_loop 256M || exit 1
tmp=$(mktemp -d /tmp/blktop-markbench-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
"$BLKTOP" -J -d 1 -D "$DEV" -w "$tmp/m.blkcap" >"$tmp/j.jsonl" 2>"$tmp/err" &
pid=$!
bench_at_exit "kill -INT $pid 2>/dev/null; wait $pid"
for i in $(seq 100); do [ -s "$tmp/j.jsonl" ] && break; sleep 0.1; done
# One round: N marks by the command, then N datagrams; the send times in $tmp/sent.
round() {
	local i
	for i in $(seq "$N"); do
		printf "cmd-%s-%d %s\n" "$1" "$i" "$(date +%s.%N)" >>"$tmp/sent"
		"$BLKTOP" --mark "cmd-$1-$i" >/dev/null
		sleep 0.05
	done
	python3 - "$pid" "$N" "$1" >>"$tmp/sent" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
for i in range(1, int(sys.argv[2]) + 1):
    label = "dgram-%s-%d" % (sys.argv[3], i)
    t = time.time()
    s.sendto(label.encode(), "\0blktop-mark." + sys.argv[1])
    print(label, "%.6f" % t)
    time.sleep(0.05)
PY
}
round idle
fio --name=load --filename="$LOOP" --direct=1 --rw=randread --bs=4k --iodepth=32 \
    --ioengine=libaio --runtime=30 --time_based >/dev/null 2>&1 &
fpid=$!
sleep 1
round busy
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
sleep 1.2
kill -INT $pid
wait $pid
"$BLKTOP" -r "$tmp/m.blkcap" --dump >"$tmp/dump.csv"
python3 - "$tmp/sent" "$tmp/dump.csv" <<'PY'
import csv, statistics, sys
sent = dict(l.split() for l in open(sys.argv[1]))
got = {r["label"]: float(r["ts"]) for r in csv.DictReader(open(sys.argv[2])) if r["type"] == "mark"}
for kind in ("cmd-idle", "dgram-idle", "cmd-busy", "dgram-busy"):
    d = [(got[k] - float(v)) * 1e3 for k, v in sent.items() if k.startswith(kind + "-") and k in got]
    miss = sum(1 for k in sent if k.startswith(kind + "-") and k not in got)
    if d:
        print("%-11s %2d marks in the capture (%d missing): median %.2f ms, max %.2f ms"
              % (kind, len(d), miss, statistics.median(d), max(d)))
PY
