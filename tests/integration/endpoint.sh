#!/bin/bash
# endpoint.sh: the metrics endpoint against hostile local clients (issue 27,
# items 1, 2, 8, 9 and the taken port of 11), on loopback only, every loop
# bounded in count and time: a port taken fails at once; HEAD is headers only
# and no scrape; a half-closed client gets its reply whole; 1000 clients
# trickling a byte every 3 s under ulimit -n 1024 are closed by their deadline,
# cost little CPU and few bytes of stderr, and tracing stays exact; out of
# file descriptors (prlimit), accept pauses and says so once; 600 clients that
# never read leave RSS bounded and given back.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd curl curl
need_cmd promtool prometheus
need_cmd prlimit util-linux

H="$BLKTOP_SRCDIR/tests/integration/hostile.py"
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# cpu_ticks PID: user + system clock ticks of a process.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
nfds() { ls "/proc/$1/fd" | wc -l; }
HZ=$(getconf CLK_TCK)

# ---- a port taken: refused before anything loads
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(20)' >"$TEST_TMP/holder" &
holder=$!
TEST_PIDS="$TEST_PIDS $holder"
wait_for "$TEST_TMP/holder" 5
PORT=$(cat "$TEST_TMP/holder")
t0=$(date +%s%N)
timeout 20 "$BLKTOP" --headless --listen "$PORT" >/dev/null 2>"$TEST_TMP/taken.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "a taken port: exit 1 in ${ms} ms (under 1000), '$(head -c 120 "$TEST_TMP/taken.err")'" \
    sh -c "[ $rc = 1 ] && [ $ms -lt 1000 ] && grep -q 'cannot listen: Address already in use' '$TEST_TMP/taken.err'"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
out=$TEST_TMP/live.jsonl
sleep 1
base=$(diskstats "$DEV")
prlimit --nofile=1024:1024 "$BLKTOP" -J -d 1 -D "$DEV" --no-vfs --listen "$PORT" \
    >"$out" 2>"$out.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
wait_for "$out" "$START_S" || fail "first report within $START_S s"

# ---- HEAD: headers only (the next reply on the connection starts clean), and no scrape
read -r hlen len1 len2 s1 s2 verdict < <(python3 "$H" "$PORT" headkeep)
check "HEAD: Content-Length $hlen, no body (next reply $verdict), GET before $len1 B" \
    [ "$verdict" = clean -a "${hlen:-0}" -gt 1000 ]
check "HEAD is no scrape: scrapes $s1 then $s2 around it" [ "$s2" = $((s1 + 1)) ]
check "curl -I: 200 with a Content-Length" \
    sh -c "curl -sI '$URL/metrics' | grep -qi '^content-length: [1-9]'"

# ---- half-close after the request: the whole reply, three times, HTTP/1.1 and 1.0
for v in 1.1 1.0; do
	good=0
	for i in 1 2 3; do
		read -r cl got < <(python3 "$H" "$PORT" halfclose "$v")
		[ "$cl" = "$got" ] && [ "$got" -gt 1000 ] && good=$((good + 1))
	done
	check "HTTP/$v, half-closed after its request: $good of 3 replies whole (last $got of $cl B)" [ $good = 3 ]
done
check "curl -0 (HTTP/1.0): 200, body as long as said" \
    sh -c "curl -s -0 -D '$TEST_TMP/h0' -o '$TEST_TMP/b0' '$URL/metrics' &&
	[ \"\$(tr -d '\r' <'$TEST_TMP/h0' | awk -F': ' 'tolower(\$1)==\"content-length\"{print \$2}')\" = \"\$(wc -c <'$TEST_TMP/b0')\" ]"

# ---- 1000 clients trickling a byte every 3 s, under ulimit -n 1024
err0=$(stat -c %s "$out.err")
c0=$(cpu_ticks "$bpid")
t0=$(date +%s.%N)
python3 "$H" "$PORT" trickle 1000 24 >"$TEST_TMP/trickle" &
tp=$!
TEST_PIDS="$TEST_PIDS $tp"
dd if=/dev/zero of="$LOOP" bs=4k count=3000 oflag=direct status=none
dd if="$LOOP" of=/dev/null bs=4k count=2000 iflag=direct status=none
# A scraper asks again at its next interval: two tries, each within 5 s.
for try in 1 2; do
	curl -s -m 5 -o "$TEST_TMP/during" -w '%{http_code}' "$URL/metrics" >"$TEST_TMP/during.code"
	[ "$(cat "$TEST_TMP/during.code")" = 200 ] && break
done
wait "$tp"
c1=$(cpu_ticks "$bpid")
t1=$(date +%s.%N)
err1=$(stat -c %s "$out.err")
read -r _ connected _ held _ closed <"$TEST_TMP/trickle"
check "trickling clients: $connected connected, $held still held after 24 s (a deadline, not renewed by bytes)" \
    [ "${held:-1}" = 0 -a "${connected:-0}" -ge 900 ]
cpu=$(python3 -c "print('%.1f' % (100.0 * ($c1 - $c0) / $HZ / ($t1 - $t0)))")
check "CPU of blktop over the 24 s of 1000 trickling clients: $cpu% (under 20%)" \
    python3 -c "import sys; sys.exit(not $cpu < 20)"
check "stderr over them: $((err1 - err0)) bytes (under 1024)" [ $((err1 - err0)) -lt 1024 ]
check "a scrape during them answered, the oldest idle connection made room ($(cat "$TEST_TMP/during.code"), try $try)" [ "$(cat "$TEST_TMP/during.code")" = 200 ]

# ---- out of file descriptors: accept pauses, one line, nothing spins
n=$(nfds "$bpid")
prlimit --pid "$bpid" --nofile=$((n + 4)):	# the soft limit: blktop may raise it no more
err0=$(stat -c %s "$out.err")
c0=$(cpu_ticks "$bpid")
t0=$(date +%s.%N)
python3 "$H" "$PORT" trickle 100 12 >"$TEST_TMP/trickle2" &
tp=$!
TEST_PIDS="$TEST_PIDS $tp"
dd if=/dev/zero of="$LOOP" bs=4k count=2000 seek=4000 oflag=direct status=none
wait "$tp"
c1=$(cpu_ticks "$bpid")
t1=$(date +%s.%N)
err1=$(stat -c %s "$out.err")
cpu=$(python3 -c "print('%.1f' % (100.0 * ($c1 - $c0) / $HZ / ($t1 - $t0)))")
check "out of fds (limit $((n + 4)), 100 clients): CPU $cpu% (under 20%)" \
    python3 -c "import sys; sys.exit(not $cpu < 20)"
secs=$(python3 -c "print(int($t1 - $t0))")
check "out of fds: $((err1 - err0)) bytes of stderr in $secs s, one line a minute ($(tail -c +$((err0 + 1)) "$out.err" | head -c 160))" \
    sh -c "n=\$(tail -c +$((err0 + 1)) '$out.err' | grep -c 'out of file descriptors'); [ \$n -ge 1 ] && [ \$n -le $((1 + secs / 60)) ] &&
	[ $((err1 - err0)) -lt $((200 * (1 + secs / 60))) ]"
prlimit --pid "$bpid" --nofile=1024:
sleep 11	# the connections held meanwhile reach their deadline
check "accepting again once fds are free: 200" \
    [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/metrics")" = 200 ]
sleep 2.5
after=$(diskstats "$DEV")
read -r r0 _ w0 _ <<<"$base"
read -r r1 _ w1 _ <<<"$after"
got=$(python3 - "$out" "$DEV" <<'PY'
import json, sys
r = w = 0
for line in open(sys.argv[1]):
    j = json.loads(line)
    for d in j["devices"]:
        if d["name"] == sys.argv[2]:
            r += d["read"]["ios"]; w += d["write"]["ios"]
print(r, w)
PY
)
read -r gr gw <<<"$got"
check "tracing exact through it all: blktop reads $gr writes $gw, /proc/diskstats $((r1 - r0)) $((w1 - w0))" \
    sh -c "[ $((r1 - r0)) = $gr ] && [ $((w1 - w0)) = $gw ] && [ $gw -ge 5000 ] && [ $gr -ge 2000 ]"

kill -INT "$bpid"
wait "$bpid"
check "blktop exits 0" [ $? = 0 ]

# ---- 600 clients that never read, 200 pipelined GETs each, 4 KiB receive buffers.
# Devices with series make each reply large: 24 more loop devices, a read each.
LOOPS=""
for i in $(seq 24); do
	l=$(loop_create 8) || { fail "create loop device $i"; break; }
	LOOPS="$LOOPS $l"
done
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
"$BLKTOP" --headless --no-vfs --listen "$PORT" 2>"$TEST_TMP/noread.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
sleep 3
for l in $LOOPS; do dd if="$l" of=/dev/null bs=4k count=1 iflag=direct status=none; done
i=0
until curl -s -m 5 -o "$TEST_TMP/m.txt" "$URL/metrics" && [ "$(grep -c '^blktop_disk_in_flight_requests{' "$TEST_TMP/m.txt")" -ge 24 ]; do
	sleep 0.5; i=$((i + 1)); [ $i -lt 30 ] || break
done
size=$(wc -c <"$TEST_TMP/m.txt")
rss0=$(rss_kb "$bpid")
python3 "$H" "$PORT" noread 600 200 15 >"$TEST_TMP/noread" &
np=$!
TEST_PIDS="$TEST_PIDS $np"
peak=$rss0
while kill -0 "$np" 2>/dev/null; do
	r=$(rss_kb "$bpid"); [ "$r" -gt "$peak" ] && peak=$r
	sleep 0.2
done
wait "$np"
sleep 12	# their deadlines pass, memory is given back
rss1=$(rss_kb "$bpid")
# A sanitizer's allocator keeps freed memory in quarantine: RSS says nothing there.
if ldd "$BLKTOP" 2>/dev/null | grep -q libasan; then
	echo "note: AddressSanitizer build, RSS not judged: $rss0 -> $peak KiB peak, $rss1 after"
else
	# The margins hold on any machine because the cap is blktop's own: unsent
	# replies hold 32 MiB at most (503 past it); 48 MiB leaves 16 MiB for the
	# 600 connections' buffers and the allocator (+33.9 MB peak measured, issue
	# 27). After they left, +1.5 MB measured against 8 MiB: what the allocator
	# keeps, where a leak would keep the replies' tens of MB.
	check "600 non-reading clients ($(cat "$TEST_TMP/noread"), $size B a scrape): peak RSS $rss0 -> $peak KiB (under +49152)" \
	    [ $((peak - rss0)) -lt 49152 ]
	check "after they left: RSS $rss1 KiB (within 8192 of $rss0)" [ $((rss1 - rss0)) -lt 8192 ]
fi
curl -s -m 5 -o "$TEST_TMP/m2.txt" "$URL/metrics"
check "a scrape after them: promtool check metrics clean" \
    sh -c "[ -s '$TEST_TMP/m2.txt' ] && promtool check metrics <'$TEST_TMP/m2.txt' >'$TEST_TMP/lint' 2>&1 && [ ! -s '$TEST_TMP/lint' ]"
kill -INT "$bpid"
wait "$bpid"
check "blktop exits 0" [ $? = 0 ]
# Each reason for refusing (connections full, out of fds, the output budget)
# has its own line at most once a minute: which ones come depends on timing.
check "stderr: at most one line a minute per reason ($(head -c 300 "$TEST_TMP/noread.err"))" \
    sh -c "! sed -n 's/^.*--listen: \([^;]*\);.*/\1/p' '$TEST_TMP/noread.err' | sort | uniq -d | grep -q . &&
	[ \$(grep -vc -- '--listen: ' '$TEST_TMP/noread.err') = 0 ] && [ \$(wc -l <'$TEST_TMP/noread.err') -le 3 ]"
