#!/bin/bash
# escapes.sh: names that drive a terminal or break a format, through every
# output (issue 41, items 11, 12 and 17): an imported biosnoop log whose disks
# are named with a quote and a backslash, ESC and BEL (an OSC that retitles a
# terminal), DEL, a BOM, U+2028, U+202E, U+200B and the byte 0xff, and a read
# log of files named so (x\e]0;PWNED\a\e[2J among them). The text outputs
# (-b with its insights block, --dump CSV, the HTML report, /metrics, the
# messages on stderr, the UI: its device table, a capture's plan and n/a
# reasons, a live run's mark label) hold no control but their own newline
# and tab, no DEL, no C1 and none of those invisible characters, each shown
# as one '?'; every JSON (-J, --dump jsonl, --trace, --report x.json) parses,
# holds none of them raw either, and each device name decodes back to its
# bytes (doc/blktop.8, NAMES).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_cmd python3 python3

DEVS=$TEST_TMP/devs.py
cat >"$DEVS" <<'PY'
# The hostile disk and file names, as bytes, and what no text may hold; tests/common/unescape.py adds the decoder.
DISKS = [b'sd"x\\', b"nv\x1b]0;T\x07", b"d\x7fel", b"bo\xef\xbb\xbfm", b"\xff",
         b"ls\xe2\x80\xa8x", b"ps\xe2\x80\xa9x", b"rt\xe2\x80\xael", b"zw\xe2\x80\x8bs"]
FILES = [b"x\x1b]0;PWNED\x07\x1b[2J", b"d\x7fel.npy", b"bo\xef\xbb\xbfm.npy",
         b"ls\xe2\x80\xa8x.npy", b"ev\xe2\x80\xaetxt.exe", b"zw\xe2\x80\x8bsp"]
# What no output may hold raw: C0 but newline and tab, DEL, C1, the invisible ones.
BAD = [chr(c) for c in range(0x20) if c not in (9, 10)] + ["\x7f"] + \
      [chr(c) for c in range(0x80, 0xa0)] + ["\u2028", "\u2029", "\u202e", "\u200b", "\ufeff"]

def clean(path):
    """'' if the file is strict UTF-8 with none of BAD, else what is wrong."""
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        return "not strict UTF-8: %s" % e
    found = sorted({"U+%04X" % ord(c) for c in text if c in BAD})
    return "raw " + " ".join(found) if found else ""
PY
cat "$BLKTOP_SRCDIR/tests/common/unescape.py" >>"$DEVS"
# clean_of FILE: "ok", or "bad" and what the file holds that no text may.
clean_of() {
	python3 - "$DEVS" "$1" <<'PY'
import sys
exec(open(sys.argv[1]).read())
print("bad " + clean(sys.argv[2]) if clean(sys.argv[2]) else "ok")
PY
}

if user_part; then
python3 - "$DEVS" "$TEST_TMP" <<'PY'
import sys
exec(open(sys.argv[1]).read())
bio = [b"Attaching 2 probes...\n",
       b"TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n"]
for k in range(90):
    d = DISKS[k % len(DISKS)]
    bio.append(b"%d 2022-02-05T20:27:46.%09d 13134%02d python 0 kworker/u16:2 %s %d %d 4096 100000\n" %
               (4867000000000 + k * 33000000, k * 33000000, k % 3, d, k % 2, 1000 + k * 8))
open(sys.argv[2] + "/bio.txt", "wb").write(b"".join(bio))
vfs = [b"Attaching 4 probes...\n"]
k = 0
for r in range(20):
    for i, f in enumerate(FILES):
        vfs.append(b"%d 2022-02-05T20:27:46.%09d 13134%02d python R %d 100 4096 /data/%s\n" %
                   (4867000000000 + k * 1000000, k * 1000000, i, r * 100, f))
        k += 1
open(sys.argv[2] + "/vfs.txt", "wb").write(b"".join(vfs))
PY

BIO=$TEST_TMP/bio.txt
VFS=$TEST_TMP/vfs.txt
"$BLKTOP" -r "$BIO" -b -d 1 >"$TEST_TMP/bio-b.txt" 2>"$TEST_TMP/err"
"$BLKTOP" -r "$VFS" -b -d 60 --top 20 --insight min_calls=5 >"$TEST_TMP/vfs-b.txt" 2>>"$TEST_TMP/err"
# The devices past a cap of 2, named in the header line.
BLKTOP_MAX_DEVS=2 "$BLKTOP" -r "$BIO" -b -d 60 >"$TEST_TMP/drop-b.txt" 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$BIO" -J -d 1 --trace "$TEST_TMP/trace.json" --report "$TEST_TMP/r.json" \
    >"$TEST_TMP/j.jsonl" 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$VFS" -J -d 60 --top 20 >"$TEST_TMP/vfs-j.jsonl" 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$BIO" --report "$TEST_TMP/r.html" >/dev/null 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$BIO" --dump >"$TEST_TMP/d.csv" 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$BIO" --dump --format jsonl >"$TEST_TMP/d.jsonl" 2>>"$TEST_TMP/err"
"$BLKTOP" -r "$VFS" --dump --format jsonl >"$TEST_TMP/vfs-d.jsonl" 2>>"$TEST_TMP/err"
grep -v 'written to' "$TEST_TMP/err" >"$TEST_TMP/err.rest"
check "every output written, nothing on stderr but where ($(head -c 200 "$TEST_TMP/err.rest"))" \
    sh -c "[ -s '$TEST_TMP/trace.json' ] && [ -s '$TEST_TMP/r.html' ] && [ -s '$TEST_TMP/d.csv' ] && ! [ -s '$TEST_TMP/err.rest' ]"

for o in bio-b.txt vfs-b.txt drop-b.txt d.csv r.html j.jsonl vfs-j.jsonl d.jsonl vfs-d.jsonl trace.json r.json; do
	verdict=$(clean_of "$TEST_TMP/$o")
	check "$o: no control but newline and tab, no DEL, C1, U+2028/9, U+202E, U+200B or BOM raw: ${verdict#bad }" \
	    [ "$verdict" = ok ]
done
check "-b: the disk named nv ESC ]0;T BEL shown as nv?]0;T?" grep -qF 'nv?]0;T?' "$TEST_TMP/bio-b.txt"
for o in bio-b.txt d.csv r.html; do
	check "$o: a character of 3 bytes (BOM, U+2028, U+202E) is one '?', as in the UI" \
	    sh -c 'grep -qF "bo?m" "$1" && grep -qF "ls?x" "$1" && grep -qF "rt?l" "$1"' sh "$TEST_TMP/$o"
done
check "-b: the devices dropped past the cap named as elsewhere (bo?m, ls?x)" \
    sh -c 'grep -q "dropped .*past the cap of 2:.* bo?m .*ls?x" "$1"' sh "$TEST_TMP/drop-b.txt"
check "-b: the insights block names x ESC ]0;PWNED BEL ESC [2J as x?]0;PWNED??[2J" \
    sh -c "sed -n '/^insights since/,\$p' '$TEST_TMP/vfs-b.txt' | grep -qF '/data/x?]0;PWNED??[2J:'"

# Messages quote the log: its disks (-D of none of them) and a malformed line.
"$BLKTOP" -r "$BIO" -D nosuch -J >/dev/null 2>"$TEST_TMP/msg.txt"
{ cat "$BIO"; printf 'zz\033]0;PWNED\007\342\200\256 a line of no format\n'; } >"$TEST_TMP/badline.txt"
"$BLKTOP" -r "$TEST_TMP/badline.txt" -J >/dev/null 2>>"$TEST_TMP/msg.txt"
verdict=$(clean_of "$TEST_TMP/msg.txt")
check "stderr: the disks and the malformed line quoted with '?'s: ${verdict#bad }" \
    sh -c '[ "$1" = ok ] && grep -qF "nv?]0;T?" "$2" && grep -qF "zz?]0;PWNED??" "$2"' sh "$verdict" "$TEST_TMP/msg.txt"

# Every JSON parses, and each disk name decodes back to its bytes.
for o in trace.json r.json j.jsonl d.jsonl; do
	verdict=$(python3 - "$DEVS" "$TEST_TMP/$o" <<'PY'
import json, sys
exec(open(sys.argv[1]).read())
text = open(sys.argv[2], "rb").read().decode("utf-8", errors="replace")
try:
    docs = [json.loads(text)] if sys.argv[2].endswith(".json") else \
        [json.loads(l) for l in text.split("\n") if l.strip()]
except ValueError as e:
    print("bad does not parse:", e); sys.exit()
names = set()
def walk(v, key=None):
    if isinstance(v, dict):
        if v.get("ph") == "M" and v.get("name") == "process_name":
            n = v["args"]["name"]
            if n.startswith("disk "): names.add(n[5:])
        for k, x in v.items():
            if k in ("device", "dev", "name") and isinstance(x, str): names.add(x)
            walk(x, k)
    elif isinstance(v, list):
        for x in v: walk(x)
for d in docs: walk(d)
back = {unescape(n) for n in names}
missing = [d for d in DISKS if d not in back]
print("ok" if not missing else "bad", "%d lines, missing %r" % (len(docs), missing))
PY
)
	check "$o: parses, every disk name decodes back to its bytes (${verdict#* })" [ "${verdict%% *}" = ok ]
done

# ---- /metrics: label values hold no raw ESC, and the exposition still lints.
if command -v curl >/dev/null 2>&1; then
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$BLKTOP" -r "$BIO" --speed 1 --listen "$PORT" -J -d 1 >/dev/null 2>"$TEST_TMP/m.err" &
	mpid=$!
	TEST_PIDS="$TEST_PIDS $mpid"
	i=0
	# Until every disk has been seen (the replay at its own pace: 3 s), 20 s at most.
	while [ $i -lt 200 ]; do
		curl -s "http://127.0.0.1:$PORT/metrics" >"$TEST_TMP/m.txt" 2>/dev/null &&
		    [ "$(grep -c '^blktop_disk_requests_total{.*op="write"} [1-9]' "$TEST_TMP/m.txt")" -ge 9 ] && break
		sleep 0.1; i=$((i + 1))
	done
	kill -INT "$mpid" 2>/dev/null
	wait "$mpid" 2>/dev/null
	verdict=$(clean_of "$TEST_TMP/m.txt")
	check "/metrics: label values hold no raw control or invisible character: ${verdict#bad }" \
	    sh -c '[ "$1" = ok ] && grep -qF "device=\"nv\\\\X1B]0;T\\\\X07\"" "$2"' sh "$verdict" "$TEST_TMP/m.txt"
	if command -v promtool >/dev/null 2>&1; then
		check "/metrics: promtool check metrics reports nothing" \
		    sh -c "promtool check metrics <'$TEST_TMP/m.txt' >'$TEST_TMP/lint' 2>&1 && ! [ -s '$TEST_TMP/lint' ]"
	fi
else
	skip "/metrics: needs curl"
fi

# ---- The UI replaying the log: the device pane shows each name with '?'s.
if ! command -v tmux >/dev/null 2>&1; then
	skip "UI: needs tmux"
	exit 0
fi
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s ui -x 200 -y 50 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $BIO --speed 0.25 \
    2>$TEST_TMP/ui.err; echo \$? >$TEST_TMP/ui.exit; sleep 600"
check "UI: the disk named rt U+202E l shown as rt?l" wait_screen 20 'rt\?l'
check "UI: nv ESC ]0;T BEL as nv?]0;T?" wait_screen 5 'nv\?\]0;T\?'
screen >"$TEST_TMP/screen.txt"
verdict=$(clean_of "$TEST_TMP/screen.txt")
check "UI: the screen holds no control or invisible character: ${verdict#bad }" [ "$verdict" = ok ]
"${TMUX_CMD[@]}" send-keys -t ui q
i=0; while [ ! -s "$TEST_TMP/ui.exit" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "UI: exits 0" [ "$(cat "$TEST_TMP/ui.exit" 2>/dev/null)" = 0 ]

# ---- The replay header's plan and the help's n/a reasons come from the
# capture: the committed capture with its plan rewritten in place (as long,
# the header's CRC made again) to "tp ESC]0;P BEL U+202E io_s" and an n/a
# reason for aio of ESC and U+200B.
python3 - "$BLKTOP_SRCDIR/tests/fixtures/small.blkcap" "$TEST_TMP/evil.blkcap" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
old = b"\x1btp_btf:io_start -d 1 -D 7:6"
new = b"tp\x1b]0;P\x07\xe2\x80\xaeio_s\nna aio \x1b\xe2\x80\x8b"
i = b.index(old)
b[i + 1:i + 1 + len(new)] = new
n = struct.unpack("<I", b[12:16])[0]
b[16:20] = struct.pack("<I", zlib.crc32(bytes(b[20:20 + n])))
open(sys.argv[2], "wb").write(b)
PY
"${TMUX_CMD[@]}" new-session -d -s cap -x 160 -y 50 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -r $TEST_TMP/evil.blkcap --speed 1 \
    2>$TEST_TMP/cap.err; sleep 600"
cap() { "${TMUX_CMD[@]}" capture-pane -p -t cap 2>/dev/null; }
i=0; while [ $i -lt 100 ] && ! cap | grep -q 'plan tp?]0;P??io_s'; do sleep 0.1; i=$((i + 1)); done
cap >"$TEST_TMP/cap.txt"
check "UI replay: the capture's plan in the header as plan tp?]0;P??io_s" grep -qF 'plan tp?]0;P??io_s' "$TEST_TMP/cap.txt"
"${TMUX_CMD[@]}" send-keys -t cap '?'
i=0; while [ $i -lt 50 ] && ! cap | grep -qE 'n/a aio +\?\?'; do sleep 0.1; i=$((i + 1)); done
cap >>"$TEST_TMP/cap.txt"
check "UI replay: the help's n/a reason for aio as ??" grep -qE 'n/a aio +\?\?' "$TEST_TMP/cap.txt"
verdict=$(clean_of "$TEST_TMP/cap.txt")
check "UI replay: header and help hold no control or invisible character: ${verdict#bad }" [ "$verdict" = ok ]
"${TMUX_CMD[@]}" send-keys -t cap Escape q
fi

# ---- A live UI's status line: a mark label with CR, newline, U+202E and
# U+200B, sent to this run's own socket only (blktop --mark would reach
# every blktop on the machine, other tests' among them).
need_root
need_cmd tmux tmux
tmux_setup
"${TMUX_CMD[@]}" new-session -d -s live -x 200 -y 50 \
    "echo \$\$ >$TEST_TMP/live.pid; exec env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP --no-vfs \
    2>$TEST_TMP/live.err"
live() { "${TMUX_CMD[@]}" capture-pane -p -t live 2>/dev/null; }
i=0; while [ $i -lt 600 ] && ! live | grep -q "rec off"; do sleep 0.1; i=$((i + 1)); done
live_up=0; live | grep -q "rec off" && live_up=1
check "UI live: starts (60 s at most: BPF loads slowly on a busy machine)" [ "$live_up" = 1 ]
# The label, until the status line shows it (a mark before the socket is bound is lost).
i=0
while [ $i -lt 20 ]; do
	python3 - "$(cat "$TEST_TMP/live.pid")" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto("m\r1\n2\u202e3\u200b4".encode(), "\0blktop-mark." + sys.argv[1])
PY
	sleep 0.5
	live | grep -qF 'mark: m?1?2?3?4' && break
	i=$((i + 1))
done
live >"$TEST_TMP/live.txt"
check "UI live: the mark label on the status line as mark: m?1?2?3?4, whole on one line" \
    grep -qF 'mark: m?1?2?3?4' "$TEST_TMP/live.txt"
verdict=$(clean_of "$TEST_TMP/live.txt")
check "UI live: the screen holds no control or invisible character: ${verdict#bad }" [ "$verdict" = ok ]
"${TMUX_CMD[@]}" send-keys -t live q
i=0; while [ $i -lt 100 ] && "${TMUX_CMD[@]}" has-session -t live 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
gone=1; "${TMUX_CMD[@]}" has-session -t live 2>/dev/null && gone=0
check "UI live: q ends it (10 s at most)" [ "$gone" = 1 ]
