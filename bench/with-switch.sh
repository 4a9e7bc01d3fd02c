#!/bin/bash
# with-switch.sh MAP VAR VALUE CMD...: run CMD (a blktop) with the u32 VAR of
# its BPF object's .bss map MAP set to VALUE as soon as the map exists (and
# again 2 s later), so that bench/run-async.py can measure a switch's
# setting as a tracer of its own: e.g.
#   bench/run-async.py "blktop kio=bench/with-switch.sh blktop_b.bss async_kio 1 build/blktop -J -d 1"
# SIGINT and SIGTERM go on to CMD; its exit status is ours.
set -u
map=$1 var=$2 val=$3
shift 3
"$@" &
pid=$!
trap 'kill -INT $pid 2>/dev/null' INT TERM
setvar() { python3 "$(dirname "$0")/bss_switch.py" "$map" "$var" "$val"; }
for i in $(seq 100); do
	kill -0 $pid 2>/dev/null || break
	setvar 2>/dev/null && break
	sleep 0.1
done
sleep 2
setvar >&2 || echo "with-switch: could not set $var in $map" >&2
wait $pid
rc=$?
# wait returns early when a trapped signal arrives: wait for the tracer itself
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
exit $rc
