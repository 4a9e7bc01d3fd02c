#!/bin/bash
# run-import-ab.sh: the CPU time (user + system) of `blktop -r LOG -J --speed max`,
# several blktop binaries side by side: each round runs every binary on every
# log, the binaries in turn (the order rotating from round to round, as
# pairs.sh does, so that none always follows a pause); ROUNDS rounds (7), then
# the median per log and binary and its ratio to the first binary's.
#   bench/run-import-ab.sh BLKTOP...        (no root, no BPF: replay only)
# Logs: the largest committed text logs (tests/fixtures/import-bio.txt,
# import-vfs.txt, bpftrace/bio.log, bpftrace/vfs_rw.log), each run REPS times
# (20) a measurement with perf stat (task-clock: CPU time), since one run is
# a few ms and mostly start-up; and the vfs_rw and block logs of
# bench/gen-logs.py (VFS_LINES lines of vfs.log, 1000000; its seed 42) written
# to /dev/shm and removed on exit, where the cost per record shows, one run a
# measurement with /usr/bin/time (%U + %S).
set -u
[ $# -ge 1 ] || { echo "usage: run-import-ab.sh BLKTOP..." >&2; exit 2; }
ROUNDS=${ROUNDS:-7}
REPS=${REPS:-20}
VFS_LINES=${VFS_LINES:-1000000}
HERE=$(cd "$(dirname "$0")" && pwd)
FX=$HERE/../tests/fixtures
. "$HERE/lib.sh"
export TZ=UTC			# the generated logs' TIME is UTC
command -v perf >/dev/null || { echo "run-import-ab: needs perf" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-import-ab: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
bins=()
for b in "$@"; do
	p=$(realpath "$b") || exit 1
	bins+=("$p")
done
tmp=$(mktemp -d /dev/shm/blktop-importab-XXXXXX) || exit 1
BENCH_FILES+=("$tmp")
python3 "$HERE/gen-logs.py" "$tmp" --vfs-lines "$VFS_LINES" >/dev/null || exit 1
small=("$FX/import-bio.txt" "$FX/import-vfs.txt" "$FX/bpftrace/bio.log" "$FX/bpftrace/vfs_rw.log")
large=("$tmp/vfs.log" "$tmp/bio.log")

# cpu_ms BIN LOG: milliseconds of CPU one run of BIN -r LOG -J --speed max takes
# (the mean of REPS runs for a committed fixture, one run for a generated log).
cpu_ms() {
	local u s
	if [ "${2#"$tmp"/}" = "$2" ]; then
		perf stat -x, -e task-clock -r "$REPS" -o "$tmp/perf" \
		    "$1" -r "$2" -J --speed max >/dev/null 2>&1 </dev/null || return 1
		awk -F, '$3 == "task-clock" { print $1 }' "$tmp/perf"
	else
		/usr/bin/time -f "%U %S" -o "$tmp/time" \
		    "$1" -r "$2" -J --speed max >/dev/null 2>&1 </dev/null || return 1
		read -r u s <"$tmp/time"
		echo "($u + $s) * 1000" | bc -l
	fi
}

n=${#bins[@]}
for ((r = 0; r < ROUNDS; r++)); do
	for log in "${small[@]}" "${large[@]}"; do
		for ((k = 0; k < n; k++)); do
			i=$(((k + r) % n))
			ms=$(cpu_ms "${bins[i]}" "$log") ||
			    { echo "run-import-ab: ${bins[i]} -r $log failed" >&2; exit 1; }
			name=${log#"$FX"/}
			echo "${name/#$tmp/generated} $i $ms" >>"$tmp/results"
		done
	done
	echo "round $((r + 1)) of $ROUNDS done" >&2
done
python3 - "$tmp/results" "${bins[@]}" <<'EOF'
import sys
bins = sys.argv[2:]
rows = {}
for l in open(sys.argv[1]):
    log, i, ms = l.split()
    rows.setdefault(log, {}).setdefault(int(i), []).append(float(ms))
med = lambda v: sorted(v)[len(v) // 2]
print("CPU ms (user + system) of -r LOG -J --speed max, medians of %d rounds" %
      len(next(iter(rows.values()))[0]))
for i, b in enumerate(bins):
    print("  [%d] %s" % (i, b))
print("%-28s %s" % ("log", " ".join("%16s" % ("[%d] ms (ratio)" % i) for i in range(len(bins)))))
for log, v in rows.items():
    base = med(v[0])
    print("%-28s %s" % (log, " ".join("%9.2f (%.3f)" % (med(v[i]), med(v[i]) / base)
                                      for i in range(len(bins)))))
EOF
