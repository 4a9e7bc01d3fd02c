#!/bin/bash
# metrics.sh: --listen scraped every second by a real Prometheus during fio on
# a loop device: counters against /proc/diskstats, histogram_quantile against
# blktop's own p99, promtool's lint, slow and silent clients, bad requests.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd fio fio
need_cmd prometheus prometheus
need_cmd promtool prometheus
need_cmd curl curl

LOOP=$(loop_create 256) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
# Free ports on loopback, picked by the kernel.
read -r PORT PPORT < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
URL=http://127.0.0.1:$PORT

out=$TEST_TMP/live.jsonl
"$BLKTOP" -J -d 1 -D "$DEV" --listen "$PORT" >"$out" 2>"$out.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$out" "$START_S" || fail "first report within $START_S s (BPF loads in ~1 s idle, 10 s and more on a busy 2-CPU machine)"

# ---- the exposition itself
curl -s "$URL/metrics" >"$TEST_TMP/m.txt"
check "GET /metrics: promtool check metrics reports nothing ($(promtool check metrics <"$TEST_TMP/m.txt" 2>&1 | head -c 200))" \
    sh -c "promtool check metrics <'$TEST_TMP/m.txt' >'$TEST_TMP/lint' 2>&1 && [ ! -s '$TEST_TMP/lint' ]"
check "text format 0.0.4 by default" \
    sh -c "curl -s -D - -o /dev/null '$URL/metrics' | grep -qi '^content-type: text/plain; version=0.0.4'"
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0,text/plain;q=0.5' "$URL/metrics" >"$TEST_TMP/om.txt"
check "OpenMetrics when asked: ends with # EOF, counters typed without _total" \
    sh -c "tail -1 '$TEST_TMP/om.txt' | grep -qx '# EOF' && grep -qx '# TYPE blktop_disk_requests counter' '$TEST_TMP/om.txt'"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "/ answers 200" [ "$(code "$URL/")" = 200 ]
check "an unknown path: 404, no file served" [ "$(code "$URL/../../etc/passwd")" = 404 -a "$(code "$URL/metrics/x")" = 404 ]
check "POST refused" [ "$(code -X POST -d x "$URL/metrics")" != 200 ]
check "headers over 8 KiB refused" [ "$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "$URL/metrics")" != 200 ]
check "no node_* series without --metrics-node-names" sh -c "! grep -q '^node_' '$TEST_TMP/m.txt'"
check "listens on loopback only" sh -c "ss -ltnH | grep -q '127.0.0.1:$PORT '"

# ---- Prometheus, scraping every second
prometheus_start "$PORT" "$PPORT"
ppid=$PROM_PID
# q EXPR [TIME]: the first value of an instant query, or "none".
q() {
	python3 - "http://127.0.0.1:$PPORT" "$@" <<'PY'
import json, sys, urllib.parse, urllib.request
args = {"query": sys.argv[2]}
if len(sys.argv) > 3: args["time"] = sys.argv[3]
try:
    r = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode(args), timeout=5))
    res = r["data"]["result"]
    print(res[0]["value"][1] if res else "none")
except Exception as e:
    print("none")
PY
}
i=0
while [ "$(q 'count_over_time(up{job="blktop"}[1m])')" = none ] || [ "$(q 'count_over_time(up{job="blktop"}[1m])')" -lt 3 ]; do
	sleep 0.5; i=$((i + 1))
	[ $i -lt 60 ] || break
done
check "Prometheus scrapes blktop (up = $(q 'up{job="blktop"}'))" [ "$(q 'up{job="blktop"}')" = 1 ]

# Two slow clients during the run: one that sends nothing, one that reads a byte a second.
python3 - "$PORT" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
time.sleep(30)
PY
TEST_PIDS="$TEST_PIDS $!"
python3 - "$PORT" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
for _ in range(30):
    s.recv(1)
    time.sleep(1)
PY
TEST_PIDS="$TEST_PIDS $!"

sleep 1.5
t0=$(date +%s.%N)
before=$(diskstats "$DEV")
scrapes0=$(q 'blktop_scrapes_total')
fio --filename="$LOOP" --direct=1 --ioengine=libaio --iodepth=4 --name=m --rw=randrw \
    --bs=4k --size=200M --runtime=4 --time_based >"$TEST_TMP/fio.out" 2>&1 || fail "fio ran"
sleep 2.5
after=$(diskstats "$DEV")
t1=$(date +%s.%N)
read -r r0 _ w0 _ <<<"$before"
read -r r1 _ w1 _ <<<"$after"
# Whole seconds back to a scrape before the run: at least 1 s before t0.
R=$(python3 -c "import math; print(math.ceil($t1 - $t0) + 1)")
for op in read write; do
	[ "$op" = read ] && want=$((r1 - r0)) || want=$((w1 - w0))
	got=$(q "blktop_disk_requests_total{device=\"$DEV\",op=\"$op\"} - blktop_disk_requests_total{device=\"$DEV\",op=\"$op\"} offset ${R}s" "$t1")
	check "$op requests over the run, through Prometheus: $got, /proc/diskstats: $want" \
	    [ "${got%.*}" = "$want" -a "$want" -gt 1000 ]
done
check "counters never went back (resets over the run: $(q "sum(resets(blktop_disk_requests_total[1m]))"))" \
    [ "$(q "sum(resets(blktop_disk_requests_total[1m]))")" = 0 ]
check "scrapes went on beside the slow clients ($scrapes0 -> $(q 'blktop_scrapes_total'))" \
    [ "$(q 'blktop_scrapes_total')" -ge $(( ${scrapes0:-0} + 6 )) ]
check "nothing lost ($(q 'blktop_lost_events_total'))" [ "$(q 'blktop_lost_events_total')" = 0 ]

# histogram_quantile over the run against blktop's own p99 from its reports:
# the quantile falls in the exported bucket that holds blktop's p99.
pq=$(q "histogram_quantile(0.99, blktop_disk_device_time_seconds_bucket{device=\"$DEV\",op=\"read\"} - blktop_disk_device_time_seconds_bucket{device=\"$DEV\",op=\"read\"} offset ${R}s)" "$t1")
verdict=$(python3 - "$out" "$DEV" "$pq" <<'PY'
import json, sys, math
h = {}
for line in open(sys.argv[1]):
    if not line.endswith("\n"):
        continue	# the report blktop is writing now: read in part
    r = json.loads(line)
    for d in r["devices"]:
        if d["name"] != sys.argv[2]: continue
        for b in d["read"]["hist"]:
            h[(b["lo_us"], b["hi_us"])] = h.get((b["lo_us"], b["hi_us"]), 0) + b["count"]
n = sum(h.values()); rank = 0.99 * n; seen = 0; own = None
for (lo, hi) in sorted(h):
    if seen + h[(lo, hi)] >= rank:
        own = lo + (hi - lo) * (rank - seen) / h[(lo, hi)]; break
    seen += h[(lo, hi)]
# exported bounds: 1, 1.5, 2, 3, 4, 6 ... us
bounds = [(1 << (k // 2)) * (3 if k % 2 else 2) / 2 for k in range(51)]
lo = max([0] + [b for b in bounds if b <= own]); hi = min(b for b in bounds if b > own)
pq = float(sys.argv[3]) * 1e6
print("ok" if lo <= pq <= hi else "bad", "prometheus %.1f us, blktop %.1f us, bucket [%g, %g] us, %d requests" % (pq, own, lo, hi, n))
PY
)
check "histogram_quantile(0.99) in the bucket of blktop's own p99: ${verdict#* }" [ "${verdict%% *}" = ok ]

kill -INT "$bpid"
wait "$bpid"
check "blktop exits 0" [ $? = 0 ]
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
check "nothing on blktop's stderr: $(head -c 200 "$out.err")" [ ! -s "$out.err" ]
