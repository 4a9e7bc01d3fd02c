#!/bin/bash
# Usage: tests/viewer/trace-load.sh TRACE.json [EXPECT_NAME...]
#
# Proves that a real viewer loads a Chrome Trace Event file: speedscope's
# release build (npm package, installed by tests/viewer/install.sh) runs in
# headless Chromium from an HTTP server on 127.0.0.1 (random free port) and
# is driven over the DevTools protocol (python3 stdlib, --remote-debugging-pipe).
#
# Exit 0, one line "loaded: ...": speedscope imported the file as a trace
#   event profile, showed no error/alert/exception, and every EXPECT_NAME is a
#   substring of a profile name ("PROCESS (pid N), THREAD (tid M)") or of a
#   frame (slice) name in its sandwich table.
# Exit 1, one line "FAIL: reason": the viewer rejected the file, errored,
#   showed nothing, or an EXPECT_NAME is not shown.
# Exit 2: viewer not installed / chromium or python3 missing.
# Exit 3: harness trouble (timeout of the harness itself, protocol error).
#
# speedscope draws only X and B/E slices (one profile per pid/tid with
# slices); it ignores b/e async, C counter and i instant events, so names that
# only occur on such events (e.g. "disk loop5") can never be EXPECTed here.
# Use check-trace.py for the structure of those.
#
# Env: BLKTOP_NPM_CACHE (default /var/cache/blktop-npm), CHROMIUM (default
# chromium), TRACE_LOAD_TIMEOUT (seconds, default 60).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}
viewer=$cache/node_modules/speedscope/dist/release
limit=${TRACE_LOAD_TIMEOUT:-60}

if [ $# -lt 1 ]; then
    echo "usage: $0 TRACE.json [EXPECT_NAME...]" >&2
    exit 2
fi
trace=$1
shift
if [ ! -f "$viewer/index.html" ]; then
    echo "viewer not installed: run tests/viewer/install.sh"
    exit 2
fi
if ! command -v "${CHROMIUM:-chromium}" >/dev/null || ! command -v python3 >/dev/null; then
    echo "viewer not installed: chromium/python3 missing (run tests/viewer/install.sh)"
    exit 2
fi
if [ ! -r "$trace" ]; then
    echo "FAIL: cannot read $trace"
    exit 1
fi

work=$(mktemp -d /tmp/blktop-trace-load.XXXXXX)
drv=
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
    # the driver kills chromium itself; this is for when the driver was killed
    if [ -n "$drv" ]; then kill "$drv" 2>/dev/null; fi
    if [ -s "$work/chrome.pgid" ]; then
        kill -KILL -- "-$(cat "$work/chrome.pgid")" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 3' INT TERM HUP

# the driver stops by itself at limit-5 s; timeout is the backstop
timeout -k 3 "$limit" python3 "$here/trace-load.py" "$viewer" "$trace" "$work" \
    "$((limit - 5))" "$@" >"$work/out" 2>"$work/err" &
drv=$!
wait "$drv"
rc=$?
drv=
out=$(head -n 1 "$work/out")
case $rc in
0) echo "$out" ;;
1) echo "${out:-FAIL: viewer check failed (no detail)}" ;;
124 | 137) echo "ERROR: harness: timed out after ${limit}s"; rc=3 ;;
*)
    [ -n "$out" ] || out="ERROR: harness: driver exited $rc: $(tail -n 1 "$work/err")"
    echo "$out"
    rc=3
    ;;
esac
exit "$rc"
