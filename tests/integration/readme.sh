#!/bin/bash
# readme.sh: the README's examples run as written. Every `blktop ...` and
# `sudo blktop ...` command of its "Using it" section (table cells and code
# blocks) and of the code blocks of doc/workflows.md runs here, by bash, in a directory of its own holding the files the
# examples name (a capture recorded first, the bpftrace logs of
# tests/fixtures/bpftrace under the README's names), with blktop and sudo (as
# a root shell's: SUDO_UID=0) on the PATH. A device this machine lacks is
# replaced by a loop device, said in the check's name. The UI examples run in
# tmux until their screen is drawn, then q; live reports until their first
# report, then SIGINT; the rest to their end. Each must exit 0 and print what
# it is for.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd tmux tmux

FIX=$BLKTOP_SRCDIR/tests/fixtures/bpftrace
LOOP=$(loop_create 64) || { fail "create a loop device"; exit 1; }
DEV=$(basename "$LOOP")
mkdir -p "$TEST_TMP/bin"
ln -s "$BLKTOP" "$TEST_TMP/bin/blktop"
# sudo as it runs from a root shell: the same command, SUDO_UID and SUDO_GID 0.
cat >"$TEST_TMP/bin/sudo" <<'SH'
#!/bin/sh
exec env SUDO_UID=0 SUDO_GID=0 SUDO_USER=root "$@"
SH
chmod 755 "$TEST_TMP/bin/sudo"
export PATH=$TEST_TMP/bin:$PATH
export BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes

# A capture to replay, made the way the README makes one.
"$BLKTOP" -w "$TEST_TMP/run.blkcap" -J -d 0.5 -D "$DEV" >"$TEST_TMP/rec.jsonl" 2>&1 &
pid=$!
TEST_PIDS="$TEST_PIDS $pid"
wait_for "$TEST_TMP/rec.jsonl" "$START_S" || fail "recording: first report within $START_S s"
dd if=/dev/zero of="$LOOP" bs=4k count=500 oflag=direct status=none
dd if="$LOOP" of=/dev/null bs=4k count=500 iflag=direct status=none
sleep 1.2
kill -INT "$pid"
wait "$pid"
check "recording run.blkcap for the replay examples" [ -s "$TEST_TMP/run.blkcap" ]

# The examples: one a line (continuations joined), from README's "## Using it" to
# the next "## ", then all of doc/workflows.md.
python3 - "$BLKTOP_SRCDIR/README.md" "$BLKTOP_SRCDIR/doc/workflows.md" >"$TEST_TMP/examples" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("## Using it")
end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
lines = lines[start:end] + open(sys.argv[2]).read().split("\n")
out, cur = [], None
for l in lines:
    cell = re.match(r"\|.*\| `((sudo )?blktop( [^`]*)?)` \|$", l)
    if cur is not None:
        cur += " " + l.strip()
    elif cell:
        cur = cell.group(1)
    elif l.startswith("    ") and re.match(r"(sudo )?blktop ", l.strip()):
        cur = l.strip()
    else:
        continue
    if cur.endswith("\\"):
        cur = cur[:-1].rstrip()
        continue
    out.append(cur)
    cur = None
print("\n".join(out))
PY
n=$(wc -l <"$TEST_TMP/examples")
check "README \"Using it\" and doc/workflows.md: $n examples found" [ "$n" -ge 15 ]

# stop_example PID: SIGINT to the blktop the example's bash runs (or is, if it exec'd it).
stop_example() {
	local c
	if [ "$(ps -o comm= -p "$1")" = blktop ]; then
		kill -INT "$1"
		return
	fi
	for c in $(ps -o pid= --ppid "$1"); do
		[ "$(ps -o comm= -p "$c")" = blktop ] && kill -INT "$c"
	done
}

tmux_setup
k=0
while IFS= read -r ex; do
	k=$((k + 1))
	dir=$TEST_TMP/ex$k
	mkdir "$dir"
	cp "$TEST_TMP/run.blkcap" "$dir/run.blkcap"
	cp "$FIX/bio.log" "$dir/bpftrace-block.log"
	cp "$FIX/bio.log" "$dir/bio.log"
	cp "$FIX/vfs_rw.log" "$dir/vfs.log"
	cp "$FIX/openat.log" "$dir/openat.log"
	cp "$FIX/openat.log" "$dir/open.log"
	cp "$FIX/close.log" "$dir/close.log"
	cp "$FIX/mmap.log" "$dir/mmap.log"
	cp "$FIX/create_del.log" "$dir/createdel.log"
	cp "$FIX/time_align.log" "$dir/align.log"
	run=$ex note=""
	# A capture is never written over: an example that records starts without one.
	case " $run " in *" -w run.blkcap "*) rm -f "$dir/run.blkcap" ;; esac
	for d in $(echo "$run" | grep -oE -- '-D [^ ]+' | cut -c4-); do
		if [ ! -e "/sys/block/$d" ]; then
			run=$(echo "$run" | sed "s/-D $d\b/-D $DEV/")
			note=" ($d is $DEV here)"
		fi
	done
	printf '%s\n' "$run" >"$dir/example.sh"
	name="example $k: $ex$note"
	code=$(echo "$run" | sed 's/[[:space:]]\{1,\}#.*$//')	# what bash runs of it
	if echo "$code" | grep -qE -- '(^| )(-b|-J|--dump|--report|--trace|--probe|--stack)( |$)'; then
		live=1
		echo "$code" | grep -qE -- '(^| )-r ' && live=0
		if [ $live = 1 ] && ! echo "$code" | grep -qE -- '(^| )(-n|--probe)( |$)'; then
			# Live reports without -n: until the first report, then SIGINT.
			d=$(echo "$code" | grep -oE -- '-d [0-9.]+' | cut -c4-)
			d=${d%%.*}
			(cd "$dir" && exec bash example.sh >out 2>err) &
			pid=$!
			TEST_PIDS="$TEST_PIDS $pid"
			# --stack prints at Ctrl-C: 3 s of tracing, then SIGINT.
			limit=$(( (${d:-1} + 60) * 10 ))
			echo "$code" | grep -qE -- '(^| )--stack( |$)' && limit=30
			i=0
			while [ ! -s "$dir/out" ] && [ $i -lt $limit ]; do
				sleep 0.1
				i=$((i + 1))
			done
			dd if="$LOOP" of=/dev/null bs=4k count=10 iflag=direct status=none
			sleep 0.5
			stop_example "$pid"
			wait "$pid"
			st=$?
		else
			(cd "$dir" && timeout -s INT 180 bash example.sh >out 2>err)
			st=$?
		fi
		# What it is for: a report, rows, a file it writes, or the plan.
		made=$(echo "$code" | grep -oE '> *[^ ]+$' | tr -d '> ')
		[ -n "$made" ] || made=$(echo "$code" | grep -oE -- '--(report|trace) [^ ]+' | sed 's/^--[a-z]* //')
		if [ -n "$made" ]; then
			[ -s "$dir/$made" ] || st="$st, $made empty"
		else
			[ -s "$dir/out" ] || st="$st, no output"
		fi
		case " $code " in *" -w run.blkcap "*)
			[ -s "$dir/run.blkcap" ] || st="$st, no capture" ;;
		esac
		check "$name: exit ${st}$( [ -s "$dir/err" ] && echo "; stderr: $(head -c 120 "$dir/err")")" \
		    [ "$st" = 0 ]
	else
		# The UI: drawn, then q.
		"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
		rm -f "$dir/exit"
		"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 45 \
		    "cd $dir && LANG=C.UTF-8 PATH=$PATH bash example.sh 2>err; echo \$? >exit; sleep 600"
		if wait_screen 60 "rec (off|[0-9])"; then
			"${TMUX_CMD[@]}" send-keys -t ui q
			i=0; while [ ! -s "$dir/exit" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
			st=$(cat "$dir/exit" 2>/dev/null)
		else
			st="no screen: $(screen | head -3 | tr -s ' \n' ' ')"
		fi
		check "$name: the UI draws, q quits: exit ${st:-none}$( [ -s "$dir/err" ] && echo "; stderr: $(head -c 120 "$dir/err")")" \
		    [ "$st" = 0 ]
	fi
done <"$TEST_TMP/examples"
