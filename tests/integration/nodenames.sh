#!/bin/bash
# nodenames.sh: --metrics-node-names scraped by a real Prometheus during dd on
# a loop device: every PromQL expression of dist/grafana/blktop.json and the
# node_disk_* expressions of node-mixin's dashboards return series, and the
# node_disk_* counters moved over the run exactly as /proc/diskstats did, and
# equal node_exporter's own (Debian's prometheus-node-exporter, started here on
# the same device) in names, types, help texts and values.
. "$BLKTOP_SRCDIR/tests/lib.sh"
if user_part; then
	check "dist/grafana/blktop.json is what dist/grafana/blktop-dashboard.py writes" \
	    sh -c "python3 '$BLKTOP_SRCDIR/dist/grafana/blktop-dashboard.py' | cmp -s - '$BLKTOP_SRCDIR/dist/grafana/blktop.json'"
fi
need_root
need_cmd prometheus prometheus
need_cmd promtool prometheus
need_cmd curl curl
need_cmd blkdiscard util-linux
need_cmd prometheus-node-exporter prometheus-node-exporter

refused 2 "--metrics-node-names without --listen refused" --metrics-node-names -b -n 1

LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
read -r PORT PPORT NPORT < <(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
URL=http://127.0.0.1:$PORT

out=$TEST_TMP/live.jsonl
"$BLKTOP" -J -d 1 -D "$DEV" --listen "$PORT" --metrics-node-names >"$out" 2>"$out.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$out" "$START_S" || fail "first report within $START_S s"

# ---- the exposition
curl -s "$URL/metrics" >"$TEST_TMP/m.txt"
check "promtool check metrics reports nothing ($(promtool check metrics <"$TEST_TMP/m.txt" 2>&1 | head -c 200))" \
    sh -c "promtool check metrics <'$TEST_TMP/m.txt' >'$TEST_TMP/lint' 2>&1 && [ ! -s '$TEST_TMP/lint' ]"
nfields=$(awk -v n="$DEV" '$3 == n { print NF - 3 }' /proc/diskstats)
want=$(( nfields > 17 ? 17 : nfields ))
check "one node_disk_* family per field of this kernel's /proc/diskstats ($want), each with $DEV alone" \
    [ "$(grep -c '^# TYPE node_disk_' "$TEST_TMP/m.txt")" = "$want" -a \
    "$(grep '^node_disk_' "$TEST_TMP/m.txt" | grep -vc "{device=\"$DEV\"}")" = 0 ]
check "node_uname_info names this host ($(uname -n))" \
    grep -q "^node_uname_info{.*nodename=\"$(uname -n)\".*} 1$" "$TEST_TMP/m.txt"
# Without -D: the devices node_exporter serves by default, by its device-exclude.
"$BLKTOP" -J -d 1 --listen "$PPORT" --metrics-node-names >/dev/null 2>&1 &
allpid=$!
TEST_PIDS="$TEST_PIDS $allpid"
for _ in $(seq 1 $((START_S * 2))); do curl -s -o "$TEST_TMP/all.txt" "http://127.0.0.1:$PPORT/metrics" && break; sleep 0.5; done
kill -INT "$allpid" 2>/dev/null; wait "$allpid" 2>/dev/null
served=$(grep '^node_disk_io_now{' "$TEST_TMP/all.txt" | sed 's/.*device="\([^"]*\)".*/\1/' | sort | tr '\n' ' ')
expected=$(python3 -c 'import re
x = re.compile(r"^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$")
print(" ".join(sorted(l.split()[2] for l in open("/proc/diskstats") if not x.match(l.split()[2]))))')
check "without -D: /proc/diskstats' devices but node_exporter's default exclusions ($served; want $expected)" \
    [ "$served" = "$expected " -a -n "$expected" ]

# ---- node_exporter itself, its diskstats and uname collectors alone, on our device only
prometheus-node-exporter --web.listen-address="127.0.0.1:$NPORT" --collector.disable-defaults \
    --collector.diskstats --collector.uname --collector.diskstats.device-exclude='^$' \
    >"$TEST_TMP/ne.log" 2>&1 &
nepid=$!
TEST_PIDS="$TEST_PIDS $nepid"
for _ in $(seq 1 40); do curl -s -o "$TEST_TMP/ne.txt" "http://127.0.0.1:$NPORT/metrics" && break; sleep 0.25; done
curl -s "$URL/metrics" >"$TEST_TMP/m.txt"
# The HELP and TYPE lines of every node_disk_* family blktop serves, and node_uname_info's sample.
fams() { grep -E "^# (HELP|TYPE) node_(disk_[a-z_]+|uname_info) " "$1" | grep -v '_info ' | sort; }
check "node_disk_* HELP and TYPE lines: node_exporter's ($(fams "$TEST_TMP/m.txt" | wc -l) lines; differing: $(diff <(fams "$TEST_TMP/m.txt") <(fams "$TEST_TMP/ne.txt" | grep -F -f <(fams "$TEST_TMP/m.txt" | awk '{ print $3 }' | sort -u | sed 's/$/ /')) | grep '^[<>]' | head -c 300))" \
    diff <(fams "$TEST_TMP/m.txt") <(fams "$TEST_TMP/ne.txt" | grep -F -f <(fams "$TEST_TMP/m.txt" | awk '{ print $3 }' | sort -u | sed 's/$/ /'))
check "node_uname_info: node_exporter's line ($(grep '^node_uname_info' "$TEST_TMP/ne.txt" | head -c 200))" \
    [ "$(grep '^node_uname_info' "$TEST_TMP/m.txt")" = "$(grep '^node_uname_info' "$TEST_TMP/ne.txt")" -a -n "$(grep '^node_uname_info' "$TEST_TMP/m.txt")" ]

# ---- Prometheus, scraping blktop every second as job "node" (node-mixin's
# nodeExporterSelector), with node-mixin's two disk recording rules at a
# rateInterval of 1m (its config knob: 5m by default) for the USE Method dashboards.
cat >"$TEST_TMP/rules.yml" <<'YML'
groups:
  - name: node-exporter.rules
    interval: 1s
    rules:
      - record: instance_device:node_disk_io_time_seconds:rate1m
        expr: rate(node_disk_io_time_seconds_total{job="node", device!=""}[1m])
      - record: instance_device:node_disk_io_time_weighted_seconds:rate1m
        expr: rate(node_disk_io_time_weighted_seconds_total{job="node", device!=""}[1m])
YML
prometheus_start node="$PORT" "$PPORT" node_exporter="$NPORT"
ppid=$PROM_PID
PROM=http://127.0.0.1:$PPORT
q() { python3 "$BLKTOP_SRCDIR/tests/integration/promql.py" "$PROM" value "$@"; }
i=0
until [ "$(q 'count_over_time(up{job="node"}[1m])')" != none ] &&
    [ "$(q 'count_over_time(up{job="node"}[1m])')" -ge 3 ]; do
	sleep 0.5; i=$((i + 1))
	[ $i -lt 120 ] || break
done
check "Prometheus scrapes blktop (up = $(q 'up{job="node"}'))" [ "$(q 'up{job="node"}')" = 1 ]

# ---- the run: reads, writes, a discard and flushes of known sizes, ~8 s,
# between quiet stretches of more than two scrapes, so the scrapes nearest
# each end read the same /proc/diskstats as the test.
sleep 3
t0=$(date +%s.%N)
awk -v n="$DEV" '$3 == n' /proc/diskstats >"$TEST_TMP/before"
end=$(( $(date +%s) + 8 ))
mid=$(( end - 4 ))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
	dd if=/dev/zero of="$LOOP" bs=64k count=32 seek=$((n % 16 * 32)) oflag=direct conv=fsync status=none
	dd if="$LOOP" of=/dev/null bs=4k count=256 skip=$((n % 16 * 256)) iflag=direct status=none
	[ "$n" = 5 ] && blkdiscard -o 0 -l 1048576 "$LOOP"
	[ ! -s "$TEST_TMP/tm" ] && [ "$(date +%s)" -ge "$mid" ] && date +%s.%N >"$TEST_TMP/tm"
	n=$((n + 1))
	sleep 0.1
done
sleep 3.5
awk -v n="$DEV" '$3 == n' /proc/diskstats >"$TEST_TMP/after"
t1=$(date +%s.%N)
tm=$(cat "$TEST_TMP/tm")
# Whole seconds back to a scrape before the run: at least 1 s before t0.
R=$(python3 -c "import math; print(math.ceil($t1 - $t0) + 1)")
check "the run did I/O ($n rounds; reads $(awk '{print $4}' "$TEST_TMP/before") -> $(awk '{print $4}' "$TEST_TMP/after"))" \
    [ "$(awk '{print $4}' "$TEST_TMP/after")" -gt "$(awk '{print $4}' "$TEST_TMP/before")" ]

# ---- every node_disk_* counter over the run, through Prometheus, against
# /proc/diskstats: exact (the device is idle at both ends, so the scrape before
# each instant read what the test read).
python3 "$BLKTOP_SRCDIR/tests/integration/promql.py" "$PROM" diskstats "$DEV" "$t1" "$R" \
    "$TEST_TMP/before" "$TEST_TMP/after" >"$TEST_TMP/ds.out"
while IFS=$'\t' read -r verdict what; do
	[ "$verdict" = ok ]; check_status $? "$what"
done <"$TEST_TMP/ds.out"
check "every node_disk_* family compared ($(grep -c . "$TEST_TMP/ds.out") of $want)" [ "$(grep -c . "$TEST_TMP/ds.out")" = "$want" ]

# Each family beside node_exporter's at the run's end (idle: both scrapes read the same counters).
python3 "$BLKTOP_SRCDIR/tests/integration/promql.py" "$PROM" pair "$DEV" "$t1" node node_exporter \
    >"$TEST_TMP/pair.out"
while IFS=$'\t' read -r verdict what; do
	[ "$verdict" = ok ]; check_status $? "$what"
done <"$TEST_TMP/pair.out"
check "every family beside node_exporter's ($(grep -c . "$TEST_TMP/pair.out") of $want)" [ "$(grep -c . "$TEST_TMP/pair.out")" = "$want" ]

# blktop's own counters over the run, through Prometheus, equal /proc/diskstats too.
read -r r0 _ w0 _ <<<"$(awk '{ print $4, $6, $8, $10 }' "$TEST_TMP/before")"
read -r r1 _ w1 _ <<<"$(awk '{ print $4, $6, $8, $10 }' "$TEST_TMP/after")"
for op in read write; do
	[ "$op" = read ] && d=$((r1 - r0)) || d=$((w1 - w0))
	got=$(q "blktop_disk_requests_total{device=\"$DEV\",op=\"$op\"} - blktop_disk_requests_total{device=\"$DEV\",op=\"$op\"} offset ${R}s" "$t1")
	check "blktop_disk_requests_total $op over the run: $got, /proc/diskstats: $d" [ "${got%.*}" = "$d" ]
done

# ---- the dashboards' expressions, each at the middle of the run (4 s in),
# each must return series: the shipped dashboard's (its variables set to this
# run's job, instance and device) with numbers (no NaN), node-mixin's (written
# out in promql.py) above 0, as each measures the run's I/O or counts the host.
python3 "$BLKTOP_SRCDIR/tests/integration/promql.py" "$PROM" dashboards "$tm" \
    "$BLKTOP_SRCDIR/dist/grafana/blktop.json" node "127.0.0.1:$PORT" "$DEV" >"$TEST_TMP/dash.out"
while IFS=$'\t' read -r verdict what; do
	[ "$verdict" = ok ]; check_status $? "$what"
done <"$TEST_TMP/dash.out"
check "expressions evaluated: $(grep -c . "$TEST_TMP/dash.out") (the dashboard's and node-mixin's)" \
    [ "$(grep -c . "$TEST_TMP/dash.out")" -ge 40 ]

kill -INT "$bpid"
wait "$bpid"
check "blktop exits 0" [ $? = 0 ]
kill "$ppid" "$nepid" 2>/dev/null
wait "$ppid" "$nepid" 2>/dev/null
check "nothing on blktop's stderr: $(head -c 200 "$out.err")" [ ! -s "$out.err" ]
