#!/bin/bash
# Usage: tests/viewer/trace-load.sh TRACE.json [EXPECT_NAME...]
#        tests/viewer/trace-load.sh --jobs FILE
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
# --jobs FILE: several traces in one Chromium (its start is most of a load's
# CPU), each a line of FILE: TRACE.json and its EXPECT_NAMEs, tab-separated.
# Prints a line "RC<tab>RESULT" for each, RC and RESULT as the exit and line
# above; exits 0 when each has its line, else as above.
#
# speedscope draws only X and B/E slices (one profile per pid/tid with
# slices); it ignores b/e async, C counter and i instant events, so names that
# only occur on such events (e.g. "disk loop5") can never be EXPECTed here.
# Use check-trace.py for the structure of those.
#
# Env: BLKTOP_NPM_CACHE (default /var/cache/blktop-npm), CHROMIUM (default
# chromium), TRACE_LOAD_TIMEOUT (seconds a trace, default 60).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${BLKTOP_NPM_CACHE:-/var/cache/blktop-npm}
viewer=$cache/node_modules/speedscope/dist/release
limit=${TRACE_LOAD_TIMEOUT:-60}

if [ $# -lt 1 ]; then
    echo "usage: $0 TRACE.json [EXPECT_NAME...]" >&2
    exit 2
fi
if [ "$1" = --jobs ] && [ $# != 2 ]; then
    echo "usage: $0 --jobs FILE" >&2
    exit 2
fi
if [ ! -f "$viewer/index.html" ]; then
    echo "viewer not installed: run tests/viewer/install.sh"
    exit 2
fi
if ! command -v "${CHROMIUM:-chromium}" >/dev/null || ! command -v python3 >/dev/null; then
    echo "viewer not installed: chromium/python3 missing (run tests/viewer/install.sh)"
    exit 2
fi
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
work=$(mktemp -d /tmp/blktop-trace-load.XXXXXX)
trap cleanup EXIT
trap 'exit 3' INT TERM HUP
jobs=$work/jobs
if [ "$1" = --jobs ]; then
    cp "$2" "$jobs"
else
    # One job: TRACE and its names, tab-separated.
    (IFS=$'\t'; echo "$*") >"$jobs"
fi
n=$(grep -c . "$jobs")

# the driver gives each trace limit-5 s; timeout is the backstop
timeout -k 3 "$((limit * n))" python3 "$here/trace-load.py" "$viewer" "$work" \
    "$((limit - 5))" "$jobs" >"$work/out" 2>"$work/err" &
drv=$!
wait "$drv"
rc=$?
drv=
case $rc in
0) ;;
124 | 137) err="ERROR: harness: timed out after $((limit * n))s" ;;
*) err="ERROR: harness: driver exited $rc: $(tail -n 1 "$work/err")" ;;
esac
# Each job's line; one the driver did not reach has the driver's trouble.
got=$(grep -c . "$work/out")
[ "$rc" = 0 ] && [ "$got" = "$n" ] || {
    [ "$rc" = 0 ] && err="ERROR: harness: $got of $n traces loaded"
    for _ in $(seq $((got + 1)) "$n"); do printf '3\t%s\n' "$err"; done >>"$work/out"
}
if [ "$1" = --jobs ]; then
    cat "$work/out"
    awk -F'\t' '$1 == 3 { bad = 1 } END { exit bad ? 3 : 0 }' "$work/out"
    exit
fi
rc=$(head -n 1 "$work/out" | cut -f1)
head -n 1 "$work/out" | cut -f2-
exit "$rc"
