#!/bin/bash
# cgroups.sh: cgroup names in the exposition (issue 27, items 3 and 4). A
# cgroup named with invalid UTF-8 and ESC, BEL writes 300 requests: a real Prometheus
# scrapes blktop, stores its series, finds them under the escaped name
# (doc/blktop.8, NAMES), and promtool passes the exposition. blktop runs in a
# private mount namespace whose /sys/fs/cgroup is a hybrid layout: a tmpfs,
# cgroup2 at unified/, a v1 hierarchy (name=blktoptest) beside it with a
# directory whose inode is the id of a v2 cgroup removed before any scrape:
# no name may come from the v1 hierarchy or carry /unified. The host is untouched.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd prometheus prometheus
need_cmd promtool prometheus
need_cmd curl curl
need_cmd unshare util-linux

# The host's cgroup2 mount, from mountinfo (the field after " - " is the type).
V2=$(sed -n 's/^[0-9]* [0-9]* [^ ]* \/ \([^ ]*\) .* - cgroup2 .*/\1/p' /proc/self/mountinfo | head -1)
[ -n "$V2" ] || { skip "no cgroup2 file system mounted"; exit 0; }
LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
# Invalid UTF-8, and an OSC that retitles a terminal (ESC ... BEL, issue 41, item 17).
BAD="blktop-test-$$-$(printf '\377\376\033]0;T\007')"
GONE="blktop-test-$$-gone"
mkdir "$V2/$BAD" "$V2/$GONE" || { fail "create the test cgroups"; exit 1; }
cg_cleanup() {
	[ -n "${nspid:-}" ] && kill -TERM "$nspid" 2>/dev/null && wait "$nspid" 2>/dev/null
	rmdir "$V2/$BAD" "$V2/$GONE" 2>/dev/null
	# The v1 hierarchy lives on while it has directories: remove them, whatever happened.
	unshare -m --propagation private bash -c 'd=$(mktemp -d) &&
	    mount -t cgroup -o none,name=blktoptest none "$d" 2>/dev/null &&
	    { rmdir "$d"/adv_v1_* 2>/dev/null; umount "$d"; }; rmdir "$d"'
	test_cleanup
}
trap cg_cleanup EXIT
GONE_ID=$(stat -c %i "$V2/$GONE")
read -r PORT PPORT < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# The namespace: its own /sys/fs/cgroup, blktop inside; everything undone at its end.
cat >"$TEST_TMP/ns.sh" <<'NS'
set -u
C=/sys/fs/cgroup
mount -t tmpfs blktoptest "$C" || exit 3
mkdir "$C/unified" "$C/blktoptest"
mount -t cgroup2 none "$C/unified" || exit 3
v1=0
if mount -t cgroup -o none,name=blktoptest none "$C/blktoptest"; then
	v1=1
	# v1 directories until one has the removed v2 cgroup's inode (bounded).
	i=0
	while [ $i -lt 2000 ]; do
		i=$((i + 1))
		mkdir "$C/blktoptest/adv_v1_$i" || break
		[ "$(stat -c %i "$C/blktoptest/adv_v1_$i")" -ge "$GONE_ID" ] && break
	done
	echo "v1 $i $(stat -c %i "$C/blktoptest/adv_v1_$i")" >"$TMP/v1"
fi
"$BLKTOP" -J -d 1 -D "$DEV" --listen "$PORT" >"$TMP/live.jsonl" 2>"$TMP/live.err" &
p=$!
trap 'kill -INT $p' TERM	# a background job ignores SIGINT: TERM it is
wait $p
wait $p
rc=$?
if [ $v1 = 1 ]; then
	rmdir "$C"/blktoptest/adv_v1_* 2>/dev/null
	umount "$C/blktoptest"
fi
umount "$C/unified"
umount "$C"
exit $rc
NS
GONE_ID=$GONE_ID TMP=$TEST_TMP BLKTOP=$BLKTOP DEV=$DEV PORT=$PORT \
    unshare -m --propagation private bash "$TEST_TMP/ns.sh" &
nspid=$!
TEST_PIDS="$TEST_PIDS $nspid"
wait_for "$TEST_TMP/live.jsonl" "$START_S" || fail "first report within $START_S s ($(head -c 300 "$TEST_TMP/live.err" 2>/dev/null))"

prometheus_start "$PORT" "$PPORT"

# 200 writes from the cgroup that goes, 300 from the one with the bad name.
bash -c "echo \$\$ >'$V2/$GONE/cgroup.procs' && exec dd if=/dev/zero of='$LOOP' bs=4k count=200 oflag=direct status=none"
rmdir "$V2/$GONE"
bash -c "echo \$\$ >'$V2/$BAD/cgroup.procs' && exec dd if=/dev/zero of='$LOOP' bs=4k count=300 seek=1000 oflag=direct status=none"
sleep 4

curl -s -m 5 "http://127.0.0.1:$PORT/metrics" >"$TEST_TMP/m.txt"
check "the exposition holds no raw ESC or BEL (the name's are \\X1B, \\X07)" \
    sh -c "! grep -q \"\$(printf '[\033\007]')\" '$TEST_TMP/m.txt' && grep -qF 'X1B]0;T' '$TEST_TMP/m.txt'"
check "promtool check metrics passes the exposition with the invalid-UTF-8 name ($(promtool check metrics <"$TEST_TMP/m.txt" 2>&1 | head -c 200))" \
    sh -c "[ -s '$TEST_TMP/m.txt' ] && promtool check metrics <'$TEST_TMP/m.txt' >'$TEST_TMP/lint' 2>&1 && [ ! -s '$TEST_TMP/lint' ]"
verdict=$(python3 - "http://127.0.0.1:$PPORT" "$BAD" "$GONE" "$GONE_ID" <<'PY'
import json, sys, time, urllib.parse, urllib.request
url, bad, gone, gone_id = sys.argv[1], sys.argv[2].encode("utf-8", "surrogateescape"), sys.argv[3], sys.argv[4]
want_bad = "/" + "".join(chr(b) if 0x20 <= b < 0x7f else "\\X%02X" % b for b in bad)
def q(expr):
    r = json.load(urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}), timeout=5))
    return r["data"]["result"]
res = []
for _ in range(40):
    try:
        res = q('blktop_cgroup_disk_requests_total{op="write"}')
        if any(r["metric"]["cgroup"] == want_bad for r in res): break
    except Exception:
        pass
    time.sleep(0.5)
names = {r["metric"]["cgroup"]: int(float(r["value"][1])) for r in res}
got_bad = names.get(want_bad)
gone_names = [n for n in names if n in ("/" + gone, "id:" + gone_id)]
wrong = [n for n in names if n.startswith("/unified") or "blktoptest" in n or "adv_v1" in n]
ok = got_bad == 300 and len(gone_names) == 1 and names[gone_names[0]] == 200 and not wrong
print("ok" if ok else "bad", "%s=%s, the removed one %s=%s, from v1 or /unified: %r" % (
    want_bad, got_bad, gone_names, [names[n] for n in gone_names], wrong))
PY
)
check "Prometheus stored the series: ${verdict#* }" [ "${verdict%% *}" = ok ]
# Inode numbers of a new hierarchy need not reach the id; the test says whether they met.
read -r _ _ ino <"$TEST_TMP/v1" 2>/dev/null
[ "${ino:-}" = "$GONE_ID" ] && pass "the v1 hierarchy had a directory with the removed cgroup's inode ($GONE_ID)" ||
	echo "note: no v1 directory had inode $GONE_ID (the last $ino)"
kill -TERM "$nspid"
wait "$nspid"
check "blktop exits 0, the namespace undone" [ $? = 0 ]
check "nothing on blktop's stderr: $(head -c 200 "$TEST_TMP/live.err")" [ ! -s "$TEST_TMP/live.err" ]
