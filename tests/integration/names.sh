#!/bin/bash
# names.sh: hostile names through every output (issue 27, items 6, 7 and the
# spoofing of 11): a log of reads of files named with invalid UTF-8, C0 and C1
# controls, a bidi override, a zero-width space, backslashes and systemd's
# \x2d, replayed into -J, --dump --format jsonl and --report x.json: each is
# strict UTF-8, parses, and every name decodes back to its bytes by the one
# documented escape (doc/blktop.8, NAMES); the text outputs (-b, CSV, HTML)
# show the invisible characters as '?' (one a byte, as controls already were).
. "$BLKTOP_SRCDIR/tests/lib.sh"

if user_part; then
NAMES="$TEST_TMP/names.py"
cat >"$NAMES" <<'PY'
# The hostile names, as bytes; tests/common/unescape.py adds the decoder of doc/blktop.8, NAMES.
NAMES = [b"caf\xc3\xa9.npy", b"x\xff\xfe.npy", b"a\xc2\x9b[2Jb.npy", b"lone\x9b.npy",
         b"evil\xe2\x80\xaetxt.exe", b"zw\xe2\x80\x8bsp.npy", b"back\\Xslash.npy",
         b"sysd\\x2dname.npy", b"ctl\x1bq.npy", b"run\\\\\xffend.npy", b"\xf0\x9f\x98\x80.npy"]
PY
cat "$BLKTOP_SRCDIR/tests/common/unescape.py" >>"$NAMES"
{
	echo 'Attaching 4 probes...'
	python3 - "$TEST_TMP/names.py" <<'PY'
import sys
exec(open(sys.argv[1]).read())
for k, n in enumerate(NAMES):
    sys.stdout.buffer.write(b"%d 2022-02-05T20:27:46.%09d 1313402 python R %d 4096 4096 %s\n" %
                            (4867000000000 + k * 1000000, k * 1000000, 5000 + k, n))
PY
} >"$TEST_TMP/hostile.txt"

"$BLKTOP" -r "$TEST_TMP/hostile.txt" -J -d 60 --top 100 >"$TEST_TMP/j.jsonl" 2>"$TEST_TMP/j.err"
"$BLKTOP" -r "$TEST_TMP/hostile.txt" --dump --format jsonl >"$TEST_TMP/d.jsonl" 2>"$TEST_TMP/d.err"
"$BLKTOP" -r "$TEST_TMP/hostile.txt" --report "$TEST_TMP/r.json" >/dev/null 2>"$TEST_TMP/r.err"
"$BLKTOP" -r "$TEST_TMP/hostile.txt" --dump >"$TEST_TMP/d.csv" 2>/dev/null
"$BLKTOP" -r "$TEST_TMP/hostile.txt" -b -d 60 --top 100 >"$TEST_TMP/b.txt" 2>/dev/null
"$BLKTOP" -r "$TEST_TMP/hostile.txt" --report "$TEST_TMP/r.html" >/dev/null 2>/dev/null

for o in j.jsonl d.jsonl r.json; do
	verdict=$(python3 - "$TEST_TMP/names.py" "$TEST_TMP/$o" <<'PY'
import json, sys
exec(open(sys.argv[1]).read())
raw = open(sys.argv[2], "rb").read()
try:
    text = raw.decode("utf-8", errors="strict")
except UnicodeDecodeError as e:
    print("bad not strict UTF-8:", e); sys.exit()
if "\x9b" in text or "\u202e" in text or "\u200b" in text or "\x1b" in text:
    print("bad a raw control or invisible character in the file"); sys.exit()
paths = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "path" and isinstance(x, str) and x: paths.add(x)
            else: walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
docs = [json.loads(l) for l in text.splitlines() if l.strip()] if not sys.argv[2].endswith("r.json") else [json.loads(text)]
for d in docs: walk(d)
back = {unescape(p) for p in paths}
missing = [n for n in NAMES if not any(b.endswith(n) for b in back)]
strange = [b for b in back if not any(b.endswith(n) for n in NAMES)]
# the report keeps its top 10 files: there, every path must be one of the names
if sys.argv[2].endswith("r.json"):
    missing = missing if len(back) < 10 else []
print("ok" if not missing and not strange else "bad",
      "%d names, %d paths; missing %r, unknown %r" % (len(NAMES), len(paths), missing, strange))
PY
)
	check "$o: strict UTF-8, parses, every name round-trips: ${verdict#* }" [ "${verdict%% *}" = ok ]
done
check "-J: e acute as UTF-8, not \\u00c3\\u00a9 mojibake" \
    sh -c "grep -q 'café.npy' '$TEST_TMP/j.jsonl' && ! grep -q 'u00c3' '$TEST_TMP/j.jsonl'"
check "-J: an invalid byte as \\\\XFF (JSON for \\XFF)" grep -qF 'x\\XFF\\XFE.npy' "$TEST_TMP/j.jsonl"
for o in d.csv b.txt r.html; do
	check "$o: no bidi override, zero-width space, C1 or stray byte; '?' in their place" python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8", errors="strict")
import re
sys.exit(not ("\u202e" not in t and "\u200b" not in t and "\x9b" not in t and
              re.search(r"evil\?+txt\.exe", t) and re.search(r"zw\?+sp\.npy", t) and
              ("café.npy" in t or sys.argv[1].endswith("r.html"))))' "$TEST_TMP/$o"
done
check "nothing on stderr" sh -c "! [ -s '$TEST_TMP/j.err' ] && ! [ -s '$TEST_TMP/d.err' ]"
fi

# ---- The UI, live: files named with U+202E (a bidi override) and U+200B (a
# zero-width space) read while the files pane is shown: each is a '?', and
# the screen holds neither character.
need_root
need_cmd tmux tmux
tmux_setup
mkdir "$TEST_TMP/live"
EVIL=$TEST_TMP/live/$(printf 'evil\342\200\256txt.exe')
ZW=$TEST_TMP/live/$(printf 'zw\342\200\213sp.npy')
echo data >"$EVIL" && echo data >"$ZW"
cp /bin/cat "$TEST_TMP/live/bidicat"
# A bounded reader (a background loop of a script ignores SIGINT): 90 s at most.
( for i in $(seq 1 450); do "$TEST_TMP/live/bidicat" "$EVIL" "$ZW" >/dev/null; sleep 0.2; done ) &
reader=$!
"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 40 \
    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP -c bidicat \
    2>$TEST_TMP/ui.err; echo \$? >$TEST_TMP/ui.exit; sleep 600"
check "UI: starts" wait_screen 60 "rec off"
"${TMUX_CMD[@]}" send-keys -t ui 3
check "UI: the files pane shows the U+202E name with a '?' in its place" \
    wait_screen 20 'evil\?txt\.exe'
check "UI: and the U+200B name" wait_screen 10 'zw\?sp\.npy'
screen >"$TEST_TMP/screen.txt"
check "UI: the screen holds no U+202E and no U+200B" python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", errors="replace")
sys.exit("\u202e" in t or "\u200b" in t)' "$TEST_TMP/screen.txt"
kill -TERM "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
"${TMUX_CMD[@]}" send-keys -t ui q
i=0; while [ ! -s "$TEST_TMP/ui.exit" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "UI: exits 0" [ "$(cat "$TEST_TMP/ui.exit" 2>/dev/null)" = 0 ]
