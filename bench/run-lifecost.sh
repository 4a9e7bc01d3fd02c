#!/bin/bash
# run-lifecost.sh: kernel-side cost of a file's lifecycle calls, by bpf_stats:
# run time of a blktop's vfs programs (vfs_*, names_*) over an open/close loop
# (or open/mmap/munmap/close with MMAP=1) of N iterations on a file in
# /dev/shm, divided by the system calls the loop made; tools alternate,
# ROUNDS rounds, medians at the end. blktop runs with -c lifecost (the loop's
# command name), so other processes' calls only pass the filter.
#   bench/run-lifecost.sh NAME=BLKTOP... e.g.
#   bench/run-lifecost.sh new=build/blktop old=/tmp/old/blktop
# COST_SETTLE: seconds each blktop is given to load and attach (4).
set -u
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
MMAP=${MMAP:-0}
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /dev/shm/blktop-lifecost.XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
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
bench_bpf_stats

# cost_work: the loop, once; COST_N, the system calls it made.
cost_work() {
	"$tmp/lifecost" "$tmp/file" "$N" "$MMAP" || echo "loop failed" >&2
	COST_N=$((N * (MMAP ? 4 : 2)))
}

# Each blktop filters on the loop's command; only its vfs programs count.
specs=()
for spec in "$@"; do
	specs+=("$spec -J -d 1 -c lifecost")
done
COST_PROGS="vfs_ names_" COST_SETTLE=${COST_SETTLE:-4} bench_cost_rounds call "${specs[@]}"
