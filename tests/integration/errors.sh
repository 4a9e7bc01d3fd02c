#!/bin/bash
# errors.sh: bad input and missing privileges give one clear line and a non-zero exit.
. "$BLKTOP_SRCDIR/tests/lib.sh"

# expect NAME STATUS PATTERN CMD...: exit status and a one-line stderr matching PATTERN.
expect() {
	local name=$1 want=$2 pat=$3 st
	shift 3
	"$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	st=$?
	if [ "$st" = "$want" ] && [ "$(wc -l <"$TEST_TMP/err")" = 1 ] &&
	    grep -qE -e "$pat" "$TEST_TMP/err"; then
		pass "$name"
	else
		fail "$name (status $st, want $want; stderr: $(head -c 300 "$TEST_TMP/err"))"
	fi
}

if user_part; then
expect "unknown option" 2 "usage|unrecognized|invalid" "$BLKTOP" --no-such-option
expect "bad -d" 2 "'-d': .*|-d: 'abc' is not a number" "$BLKTOP" -b -d abc
expect "-d zero" 2 "-d: '0' is not a number" "$BLKTOP" -b -d 0
expect "bad -n" 2 "-n: '-3' is not a whole number" "$BLKTOP" -b -n -3
expect "--top past the rows one table lists" 2 "--top: '10001' is not a whole number from 1 to 10000" \
    "$BLKTOP" -J --top 10001 -r "$TEST_TMP/none.blkcap"
expect "stray argument" 2 "unexpected argument 'foo'" "$BLKTOP" -b foo
expect "unknown device lists the known ones" 2 "unknown device 'nosuchdisk' \(known: .*\)" \
    "$BLKTOP" -b -D nosuchdisk
expect "device path tricks refused" 2 "unknown device" "$BLKTOP" -b -D ../../etc
expect "bad hook plan" 2 "bad hook plan 'kprobe'" "$BLKTOP" -b --hooks kprobe
expect "bad hook plan in the environment" 2 "bad hook plan" env BLKTOP_HOOKS=tp_btf:nope "$BLKTOP" -b
expect "bad --listen port" 2 "--listen: '99999' is not a port" "$BLKTOP" --listen 99999
expect "bad --listen" 2 "--listen: 'x' is not a port" "$BLKTOP" --listen 127.0.0.1:x
expect "--headless alone" 2 "--headless needs --listen, -w, --report or --trace" "$BLKTOP" --headless
expect "--headless with -J" 2 "--headless prints no reports" "$BLKTOP" --headless -J --listen 9
check "--help exits 0 with usage" "$BLKTOP" --help
check "--version" bash -c "'$BLKTOP' --version | grep -q '^blktop [0-9]'"

fi

# ---- with root: what a user without privileges is told, live reports
need_root
# Drop to nobody with no capabilities: the message names what is missing.
cp "$BLKTOP" "$TEST_TMP/blktop" && chmod 755 "$TEST_TMP" "$TEST_TMP/blktop"
expect "not root: names CAP_BPF and CAP_PERFMON" 1 \
    "needs root or CAP_BPF and CAP_PERFMON \(missing: CAP_BPF, CAP_PERFMON\)" \
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    "$TEST_TMP/blktop" -b -n 1
expect "probe as non-root" 1 "needs root" \
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    "$TEST_TMP/blktop" --probe
# A forced variant this kernel lacks: clear message, no libbpf dump.
if ! "$BLKTOP" --probe | grep -q 'io_start .*exists'; then
	expect "forced missing tracepoint" 1 "does not exist" "$BLKTOP" -b --hooks tp_btf:io_start -n 1
else
	pass "forced missing tracepoint (not applicable: block_io_start exists)"
fi
# -n stops by itself, and the report has the device asked for.
LOOP=$(loop_create 16) && DEV=$(basename "$LOOP")
check "-n 2 -d 0.2 prints two reports and exits 0" \
    bash -c "'$BLKTOP' -J -n 2 -d 0.2 -D $DEV > '$TEST_TMP/n.out' && [ \$(wc -l < '$TEST_TMP/n.out') = 2 ] && grep -q '\"name\":\"$DEV\"' '$TEST_TMP/n.out'"
check "text mode header and row" \
    bash -c "'$BLKTOP' -b -n 1 -d 0.2 -D $DEV | grep -q '^$DEV '"
