#!/bin/bash
# run-lifecost.sh: kernel-side cost of a file's lifecycle calls, by bpf_stats:
# run time of a blktop's vfs programs (vfs_*, names_*) over an open/close loop
# (or open/mmap/munmap/close with MMAP=1) of N iterations on a file in
# /dev/shm, divided by the system calls the loop made; tools alternate,
# ROUNDS rounds, medians at the end. blktop runs with -c lifecost (the loop's
# command name), so other processes' calls only pass the filter.
#   bench/run-lifecost.sh NAME=BLKTOP... e.g.
#   bench/run-lifecost.sh new=build/blktop old=/tmp/old/blktop
set -u
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
MMAP=${MMAP:-0}
tmp=$(mktemp -d /dev/shm/blktop-lifecost.XXXXXX) || exit 1
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	[ -n "${bp:-}" ] && kill -INT "$bp" 2>/dev/null && wait "$bp" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cat >"$tmp/lifecost.c" <<'EOF'
#include <sys/mman.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int
main(int argc, char **argv)
{
	long i, n = atol(argv[2]);
	int fd, mm = atoi(argv[3]);
	void *p;

	for (i = 0; i < n; i++) {
		if ((fd = open(argv[1], O_RDONLY)) < 0)
			return 1;
		if (mm) {
			p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
			if (p != MAP_FAILED)
				munmap(p, 4096);
		}
		close(fd);
	}
	return 0;
}
EOF
"${CC:-cc}" -O2 -o "$tmp/lifecost" "$tmp/lifecost.c" || exit 1
head -c 4096 /dev/zero >"$tmp/file"
sysctl -qw kernel.bpf_stats_enabled=1
# Run time and runs of the vfs programs loaded now.
stats() {
	bpftool prog show -j | python3 -c '
import json, sys
t = c = 0
for p in json.load(sys.stdin):
    if p.get("name", "").startswith(("vfs_", "names_")):
        t += p.get("run_time_ns", 0)
        c += p.get("run_cnt", 0)
print(t, c)'
}
calls=$((N * (MMAP ? 4 : 2)))
declare -A res
for r in $(seq "$ROUNDS"); do
	for spec in "$@"; do
		name=${spec%%=*}
		"${spec#*=}" -J -d 1 -c lifecost >/dev/null 2>&1 &
		bp=$!
		sleep 4
		read -r t0 c0 < <(stats)
		"$tmp/lifecost" "$tmp/file" "$N" "$MMAP" || echo "loop failed" >&2
		read -r t1 c1 < <(stats)
		kill -INT "$bp"
		wait "$bp"
		bp=
		ns=$(python3 -c "print('%.1f' % (($t1 - $t0) / $calls))")
		echo "round $r $name: $calls calls, $((c1 - c0)) program runs, $ns ns of BPF per call"
		res[$name]="${res[$name]:-} $ns"
	done
done
for spec in "$@"; do
	name=${spec%%=*}
	python3 -c "import statistics, sys; v = [float(x) for x in sys.argv[2:]]; print('median %s: %.1f ns per call (%s)' % (sys.argv[1], statistics.median(v), ' '.join(sys.argv[2:])))" "$name" ${res[$name]}
done
