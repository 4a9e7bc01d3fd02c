#!/bin/bash
# run-scrape.sh: the metrics endpoint's cost and what it loses.
#  1. CPU per scrape with 16 loop devices busy and the default cardinality cap:
#     blktop's CPU time over 10 s with no scrapes against 10 s with 10 scrapes a
#     second, alternating, 3 rounds each (medians).
#  2. Scraping 10 times a second while fio drives one device as fast as it goes
#     (200k+ IOPS here): lost events, and the request counter against diskstats.
# usage: [BLKTOP_ARGS=--no-vfs] bench/run-scrape.sh [BLKTOP]   (root; tmpfs-backed loop devices)
set -u
BLKTOP=${1:-./blktop}
[ "$(id -u)" = 0 ] || { echo "run-scrape: needs root" >&2; exit 1; }
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/blktop-scrape-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
bench_at_exit '[ -n "${fpid:-}" ] && kill "$fpid" 2>/dev/null'
bench_at_exit '[ -n "${bpid:-}" ] && kill -INT "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null'
loops=()
for i in $(seq 1 16); do
	bench_loop 64M || exit 1
	loops+=("$LOOP")
done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT/metrics

"$BLKTOP" --headless --listen "$PORT" ${BLKTOP_ARGS:-} 2>"$tmp/b.err" &
bpid=$!
for i in $(seq 1 100); do curl -s -o /dev/null "$URL" && break; sleep 0.1; done
cpu() { awk '{ print $14 + $15 }' "/proc/$bpid/stat"; }	# clock ticks
hz=$(getconf CLK_TCK)

# A steady load on all 16 devices for the whole measurement.
files=$(IFS=:; echo "${loops[*]}")
fio --name=bg --filename="$files" --direct=1 --ioengine=psync --rw=randread --bs=4k \
    --rate_iops=8000 --time_based --runtime=600 >/dev/null 2>&1 &
fpid=$!
sleep 2
curl -s "$URL" >"$tmp/m.txt"
printf "exposition with 16 busy devices: %d bytes, %d series, %d device labels\n" \
    "$(stat -c %s "$tmp/m.txt")" "$(grep -vc '^#' "$tmp/m.txt")" \
    "$(grep -o 'device="[^"]*"' "$tmp/m.txt" | sort -u | wc -l)"
round() {	# round SCRAPES_PER_S: CPU ms over 10 s
	local c0 c1 n=$((10 * $1)) i
	c0=$(cpu)
	if [ "$1" = 0 ]; then
		sleep 10
	else
		for i in $(seq 1 "$n"); do curl -s -o /dev/null "$URL"; sleep "$(echo "1 / $1" | bc -l)"; done
	fi
	c1=$(cpu)
	echo $(( (c1 - c0) * 1000 / hz ))
}
quiet=() busy=()
for r in 1 2 3; do
	quiet+=("$(round 0)")
	busy+=("$(round 10)")
	echo "round $r: ${quiet[-1]} ms CPU in 10 s without scrapes, ${busy[-1]} ms with 100 scrapes"
done
med() { printf "%s\n" "$@" | sort -n | sed -n 2p; }
q=$(med "${quiet[@]}") b=$(med "${busy[@]}")
printf "CPU per scrape (median rounds): %.2f ms (%d ms - %d ms over 100 scrapes)\n" \
    "$(echo "($b - $q) / 100" | bc -l)" "$b" "$q"
curl -s -o /dev/null -w "one scrape: %{time_total} s\n" "$URL"
kill "$fpid" 2>/dev/null; wait "$fpid" 2>/dev/null

# 2. As fast as the device goes, scraped 10 times a second.
L=${loops[0]} D=$(basename "${loops[0]}")
val() { awk -v m="$1" -v d="$D" 'index($0, m "{") == 1 && (d == "" || index($0, "device=\"" d "\"")) { s += $NF } END { printf "%d\n", s }' "$2"; }
curl -s "$URL" >"$tmp/a.txt"
read -r r0 _ w0 _ < <(awk -v n="$D" '$3 == n { print $4, $6, $8, $10 }' /proc/diskstats)
fio --name=fast --filename="$L" --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=32 \
    --numjobs=2 --group_reporting --time_based --runtime=10 --output-format=json \
    --output="$tmp/fio.json" >/dev/null 2>&1 &
fpid=$!
n=0
while kill -0 "$fpid" 2>/dev/null; do curl -s -o /dev/null "$URL"; n=$((n + 1)); sleep 0.1; done
wait "$fpid"
sleep 1.5
read -r r1 _ w1 _ < <(awk -v n="$D" '$3 == n { print $4, $6, $8, $10 }' /proc/diskstats)
curl -s "$URL" >"$tmp/b.txt"
got=$(( $(val blktop_disk_requests_total "$tmp/b.txt") - $(val blktop_disk_requests_total "$tmp/a.txt") ))
D= lost=$(val blktop_lost_events_total "$tmp/b.txt")
iops=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' "$tmp/fio.json")
echo "at $iops read IOPS (fio) for 10 s, $n scrapes: blktop counted $got requests," \
    "diskstats $(( r1 - r0 + w1 - w0 )); lost events $lost"
