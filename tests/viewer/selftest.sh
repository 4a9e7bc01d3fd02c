#!/bin/bash
# Self-test of the viewer harness: sample.json must load in the viewer and pass
# check-trace.py; broken variants of it must be rejected by the viewer and/or
# check-trace.py as listed.  Prints "N passed, N failed"; exit 2 (skip) when the
# viewer is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/blktop-viewer-selftest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect NAME WANT_VIEWER_RC WANT_CHECK_RC FILE [EXPECT...]: a case, judged by
# judge once the viewer has loaded every case's file in one Chromium.
cases=()
expect() {
    local name=$1 wv=$2 wc=$3 f=$4
    shift 4
    cases+=("$name $wv $wc")
    (IFS=$'\t'; echo "$f${*:+$IFS$*}") >>"$tmp/jobs"
}

judge() {
    local k=0 name wv wc f v c rv rc
    v=$("$here/trace-load.sh" --jobs "$tmp/jobs"); rv=$?
    if [ "$rv" = 2 ]; then echo "$v"; exit 2; fi
    echo "$v" >"$tmp/viewer.out"
    while IFS=$'\t' read -r f _; do
        k=$((k + 1))
        read -r name wv wc <<<"${cases[k - 1]}"
        rv=$(sed -n "${k}p" "$tmp/viewer.out" | cut -f1)
        v=$(sed -n "${k}p" "$tmp/viewer.out" | cut -f2-)
        c=$("$here/check-trace.py" "$f"); rc=$?
        if [ "$rv" = "$wv" ] && [ "$rc" = "$wc" ]; then
            pass=$((pass + 1)); echo "ok   $name: viewer $rv, check $rc"
        else
            fail=$((fail + 1)); echo "FAIL $name: viewer $rv (want $wv): $v; check $rc (want $wc): $c"
        fi
    done <"$tmp/jobs"
}

python3 - "$here/sample.json" "$tmp" <<'EOF'
import copy, json, sys
src, out = sys.argv[1], sys.argv[2]
raw = open(src).read()
d = json.loads(raw)
def w(name, doc):
    json.dump(doc, open("%s/%s" % (out, name), "w"))
def var(name, fn):
    x = copy.deepcopy(d); fn(x["traceEvents"]); w(name, x)
open(out + "/truncated.json", "w").write(raw[:len(raw) // 2])
var("no-ph-on-X.json", lambda ev: ev[9].pop("ph"))
var("no-ph-on-b.json", lambda ev: ev[14].pop("ph"))
var("no-slices.json", lambda ev: ev.__setitem__(slice(None), [e for e in ev if e["ph"] != "X"]))
var("negative-dur.json", lambda ev: ev[10].__setitem__("dur", -5))
var("string-counter.json", lambda ev: ev[22]["args"].__setitem__("value", "lots"))
var("unmatched-e.json", lambda ev: ev.__setitem__(slice(None), [e for e in ev if not (e["ph"] == "e" and e["name"] == "device")]))
EOF

expect sample 0 0 "$here/sample.json" blktop blktop-main bpf-poll refresh "read diskstats"
expect expect-missing 1 0 "$here/sample.json" no-such-name
expect truncated 1 1 "$tmp/truncated.json"
expect no-ph-on-X 1 1 "$tmp/no-ph-on-X.json"
expect no-ph-on-b 1 1 "$tmp/no-ph-on-b.json"
expect no-slices 1 0 "$tmp/no-slices.json"
# speedscope tolerates these; only check-trace.py catches them
expect negative-dur 0 1 "$tmp/negative-dur.json"
expect string-counter 0 1 "$tmp/string-counter.json"
expect unmatched-e 0 1 "$tmp/unmatched-e.json"
judge

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
