#!/bin/bash
# run-scrape-node.sh BLKTOP DEV: blktop's CPU per /metrics scrape (2000 of them, its own utime
# and stime), without and with --metrics-node-names, tracing DEV only. Root.
# Measured: flock /tmp/blktop-bench.lock bench/run-scrape-node.sh build-rel/blktop loopN (doc/metrics.md).
B=$1; D=$2
for mode in off on; do
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	extra=; [ $mode = on ] && extra=--metrics-node-names
	$B --headless --listen $port -D $D $extra 2>/dev/null &
	pid=$!
	for i in $(seq 1 120); do curl -s -o /dev/null 127.0.0.1:$port/metrics && break; sleep 0.5; done
	size=$(curl -s 127.0.0.1:$port/metrics | wc -c)
	python3 - $pid $port $mode $size <<'PY'
import sys, os, http.client, time
pid, port, mode, size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
tck = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tck
n = 2000
c0 = cpu(); t0 = time.time()
for _ in range(n):
    h = http.client.HTTPConnection("127.0.0.1", port); h.request("GET", "/metrics"); h.getresponse().read(); h.close()
c1 = cpu(); t1 = time.time()
print("%s: %d scrapes in %.1f s, blktop CPU %.3f s: %.0f us a scrape, exposition %s bytes" % (mode, n, t1 - t0, c1 - c0, (c1 - c0) / n * 1e6, size))
PY
	kill -INT $pid; wait $pid
done
