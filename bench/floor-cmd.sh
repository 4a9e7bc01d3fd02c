#!/bin/bash
# floor-cmd.sh CMD...: run another tracer (biolatency, a bpftrace script) in place
# of blktop in bench/pairs.sh: FLOOR="bench/floor-cmd.sh biolatency". Prints one
# JSON line once CMD has printed something (it has attached), then waits; SIGTERM
# (pairs.sh sends it: a background script cannot catch SIGINT) stops CMD with SIGINT.
[ $# -gt 0 ] || { echo "usage: floor-cmd.sh CMD [ARGS...]" >&2; exit 2; }
out=$(mktemp /tmp/blktop-floor-XXXXXX)
stdbuf -oL -eL "$@" >"$out" 2>&1 &
pid=$!
stop() { kill -INT "$pid" 2>/dev/null; wait "$pid"; rm -f "$out"; exit 0; }
trap stop TERM
while [ ! -s "$out" ]; do
	kill -0 "$pid" 2>/dev/null || { cat "$out" >&2; rm -f "$out"; exit 1; }
	sleep 0.1
done
echo '{"lost": 0}'
wait "$pid"
rm -f "$out"
