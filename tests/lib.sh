# lib.sh: helpers for the integration tests: results, loop devices, diskstats.
# Sourced by tests/integration/*.sh; tests/run counts the PASS:/FAIL:/SKIP: lines.

BLKTOP=${BLKTOP:-$BLKTOP_BUILDDIR/blktop}
TEST_NAME=$(basename "$0" .sh)
TEST_TMP=$(mktemp -d /tmp/blktop-test-XXXXXX)
TEST_PIDS=""

pass() { echo "PASS: $TEST_NAME: $*"; }
fail() { echo "FAIL: $TEST_NAME: $*"; }
skip() { echo "SKIP: $TEST_NAME: $*"; }
# check NAME CMD...: PASS if the command succeeds, else FAIL.
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# check_status STATUS NAME: PASS if STATUS (a compound test's $?) is 0, else FAIL.
# `check NAME [ A ] && B` would judge [ A ] alone; write `[ A ] && B; check_status $? NAME`
# (the status first: a $(...) in NAME would overwrite $?). testlint.sh finds the former.
check_status() { if [ "$1" = 0 ]; then pass "$2"; else fail "$2"; fi; }

# blktop started through sudo becomes the user who ran sudo: tests run as
# whatever root they were started as, and privs.sh sets these itself.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND
# The UI's config file: none, whatever the tester keeps in ~/.config
# (config.sh points it elsewhere).
export XDG_CONFIG_HOME=$TEST_TMP/no-config

# Everything a test set up goes away on every exit path.
test_cleanup() {
	local p l
	for p in $TEST_PIDS; do kill -INT "$p" 2>/dev/null; done
	for p in $TEST_PIDS; do wait "$p" 2>/dev/null; done
	# loop_create runs in $(...), a subshell: find its devices by backing file.
	for img in /dev/shm/blktop-test-"$$"-*.img; do
		[ -e "$img" ] || continue
		for l in $(losetup -j "$img" | cut -d: -f1); do
			grep -q "^$l " /proc/mounts 2>/dev/null && umount "$l"
			# A queue limit a test set (kio.sh: max_sectors_kb) outlives
			# the device's detach: the next test given loopN would get it.
			[ -s "$img.msk" ] && cat "$img.msk" >"/sys/block/${l#/dev/}/queue/max_sectors_kb" 2>/dev/null
			losetup -d "$l" 2>/dev/null
		done
		rm -f "$img" "$img.msk"
	done
	rm -rf "$TEST_TMP"
}
trap test_cleanup EXIT
trap 'exit 130' INT TERM HUP

# refused WANT WHAT ARGS...: blktop ARGS exits WANT with one line of output.
refused() {
	local want=$1 what=$2 st lines
	shift 2
	"$BLKTOP" "$@" </dev/null >"$TEST_TMP/refused.out" 2>&1
	st=$?
	lines=$(wc -l <"$TEST_TMP/refused.out")
	check "$what: exit $st (want $want), one line: $(head -c 160 "$TEST_TMP/refused.out")" \
	    [ "$st" = "$want" -a "$lines" = 1 ]
}

# BLKTOP_TIER: which of a test's checks this run does (tests/README.md): user,
# those that need no root (make check); live, those that do (make check-live);
# all, both (the default: ./setup.sh check, a test run by hand). tests/run sets it.
BLKTOP_TIER=${BLKTOP_TIER:-all}

# user_part: true unless this run does only the checks that need root. A test
# with checks of both kinds puts those that need no root first, inside
# `if user_part; then ... fi`, and starts the others with need_root
# (tests/run finds a test's tiers by these two words).
user_part() { [ "$BLKTOP_TIER" != live ]; }

# need_root: the checks that follow need root. Under BLKTOP_TIER=user the test
# ends here (exit 0: they are check-live's); otherwise skip the rest (exit 0)
# unless root. tests/run turns skips into failures under CI=true.
need_root() {
	[ "$BLKTOP_TIER" = user ] && exit 0
	if [ "$(id -u)" != 0 ]; then
		skip "needs root to load BPF"
		exit 0
	fi
}

# need_cmd CMD PACKAGE: skip unless a command exists.
need_cmd() {
	if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$1" ]; then
		skip "needs $1 (Debian package $2)"
		exit 0
	fi
}

# loop_create SIZE_MB: a loop device backed by a file in /dev/shm; prints /dev/loopN.
loop_create() {
	local img=/dev/shm/blktop-test-$$-$RANDOM.img dev
	truncate -s "${1}M" "$img" || return 1
	dev=$(losetup -f --show "$img") || { rm -f "$img"; return 1; }
	# A new loop device keeps the request size limit its last user set
	# (kio.sh sets 64 KiB): give it the kernel's default for a new queue,
	# min(max_hw_sectors_kb, 1280), and put that back before the detach.
	local q=/sys/block/${dev#/dev/}/queue hw
	hw=$(cat "$q/max_hw_sectors_kb" 2>/dev/null) && {
		echo $((hw < 1280 ? hw : 1280)) >"$img.msk"
		cat "$img.msk" >"$q/max_sectors_kb" 2>/dev/null
	}
	echo "$dev"
}

# ext4_on_loop MB [MOUNT_OPTIONS [MKFS_OPTION...]]: an ext4 on a new loop
# device of MB MiB (mkfs.ext4's options added), mounted at $TEST_TMP/mnt (-o
# MOUNT_OPTIONS if not empty); sets LOOP and MNT. 1 after a FAIL line if a
# step failed.
ext4_on_loop() {
	local mb=$1 mopts=${2:-}
	shift $(($# < 2 ? $# : 2))
	LOOP=$(loop_create "$mb") || { fail "loop device"; return 1; }
	mkfs.ext4 -q -F "$@" "$LOOP" || { fail "mkfs.ext4"; return 1; }
	MNT=$TEST_TMP/mnt
	mkdir -p "$MNT"
	mount ${mopts:+-o "$mopts"} "$LOOP" "$MNT" || { fail "mount"; return 1; }
}

# diskstats NAME: "reads rsect writes wsect discards flushes io_ticks_ms time_in_queue_ms" for a device.
diskstats() {
	awk -v n="$1" '$3 == n { print $4, $6, $8, $10, $15, $19, $13, $14 }' /proc/diskstats
}

# prometheus_start TARGET PORT [TARGET...]: a Prometheus scraping each TARGET
# on 127.0.0.1 every second (a port: job "blktop"; JOB=PORT: job JOB), serving
# on 127.0.0.1:PORT, its data in $TEST_TMP/prom; its pid in PROM_PID. With
# $TEST_TMP/rules.yml there, its rules are evaluated every second.
prometheus_start() {
	local port=$2 t rules=
	mkdir -p "$TEST_TMP/prom"
	[ -f "$TEST_TMP/rules.yml" ] &&
	    rules="  evaluation_interval: 1s
rule_files: ['$TEST_TMP/rules.yml']"
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n'
		[ -n "$rules" ] && printf '%s\n' "$rules"
		echo "scrape_configs:"
		for t in "$1" "${@:3}"; do
			case $t in *=*) ;; *) t=blktop=$t ;; esac
			printf '  - job_name: %s\n    static_configs:\n      - targets: [%s]\n' \
			    "${t%%=*}" "'127.0.0.1:${t#*=}'"
		done
	} >"$TEST_TMP/prom.yml"
	prometheus --config.file="$TEST_TMP/prom.yml" --storage.tsdb.path="$TEST_TMP/prom" \
	    --web.listen-address="127.0.0.1:$port" >"$TEST_TMP/prom.log" 2>&1 &
	PROM_PID=$!
	TEST_PIDS="$TEST_PIDS $PROM_PID"
}

# start_bg CMD...: run in the background, remember the pid in BG_PID for stop_bg.
start_bg() {
	"$@" &
	BG_PID=$!
	TEST_PIDS="$TEST_PIDS $BG_PID"
}

# stop_bg PID: SIGINT and wait; returns the exit status.
stop_bg() {
	kill -INT "$1" 2>/dev/null
	wait "$1"
}

# noself [FILE]: JSON reports without their "self" object (the last one: what
# the blktop that wrote them cost), so a replay's reports compare with the live ones.
noself() { sed -E 's/,"self":\{[^}]*\}\}$/}/' "$@"; }

# START_S: how long a test waits for a live blktop's first report. Not a
# figure under test, a timeout: BPF loads in about 1 s on an idle machine,
# but the verifier's time grows with what else runs (10-25 s seen with other
# suites' fio jobs, fsync loops and a CPU hog on this 2-core machine, issue
# 41), so 60 s holds on a slower or busier machine and costs nothing where
# blktop starts at once.
START_S=60

# wait_for FILE SECS: until FILE is non-empty, at most SECS seconds.
wait_for() {
	local i=0
	while [ ! -s "$1" ] && [ "$i" -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# ---- tmux: tests that drive the UI call tmux_setup and name their session "ui".

# tmux_setup: a private tmux server (TMUX_CMD), killed with its socket on every exit path.
tmux_setup() {
	SOCK=blktop-test-$$
	TMUX_CMD=(tmux -u -L "$SOCK" -f /dev/null)
	trap tmux_cleanup EXIT
	# A session of its own keeps the server up: killing the last session
	# ends a tmux server, and a new-session that meets it on its way out
	# fails ("server exited unexpectedly"). With this one, a test's
	# kill-session -t ui never ends the server.
	"${TMUX_CMD[@]}" new-session -d -s keep -x 20 -y 5 "sleep 86400"
}
tmux_cleanup() {
	"${TMUX_CMD[@]}" kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	test_cleanup
}

# screen: the visible pane as text.
screen() { "${TMUX_CMD[@]}" capture-pane -p -t ui 2>/dev/null; }

# wait_screen SECS ERE: until the screen matches, at most SECS seconds.
wait_screen() {
	local i=0
	while [ "$i" -lt $(($1 * 10)) ]; do
		screen | grep -qE "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
