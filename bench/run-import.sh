#!/bin/bash
# run-import.sh: how fast -r imports the researchers' bpftrace text logs, alone
# and four merged: wall and CPU seconds, lines a second, peak RSS (3 runs each,
# medians at the end), and whether the merge adds up (OK/MISMATCH).
# usage: bench/run-import.sh [BLKTOP] [VFS_LINES]   (no root; default 10 M lines)
# The logs (bench/gen-logs.py, seed 42: a 10-minute run of 64 python workers,
# 5000 files) are written to a directory in /dev/shm, removed on exit.
set -u
BLKTOP=$(realpath "${1:-./blktop}") || exit 1
LINES=${2:-10000000}
HERE=$(cd "$(dirname "$0")" && pwd)
export TZ=UTC			# the logs' TIME is UTC
[ -x /usr/bin/time ] || { echo "run-import: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d /dev/shm/blktop-impbench-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

s=$(date +%s.%N)
/usr/bin/time -f "%e %U %S" -o "$tmp/time" \
    python3 "$HERE/gen-logs.py" "$tmp" --vfs-lines "$LINES" || exit 1
read -r gwall guser gsys <"$tmp/time"
printf "logs: %s\n" "$(cd "$tmp" && wc -l vfs.log bio.log openat.log align.log | tr -s ' \n' ' ')"
printf "generated in %.1f s wall, %.1f s CPU, %d MB\n" "$gwall" "$(echo "$guser + $gsys" | bc -l)" \
    "$(du -sm "$tmp" | cut -f1)"
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/stats.txt"; }
vfs_n=$(stat_of vfs_lines)
bio_n=$(stat_of bio_lines)
open_n=$(( $(stat_of opens) + $(stat_of open_fails) ))
merge_n=$((vfs_n + bio_n + open_n))		# records; align.log's lines make none
merge_lines=$((merge_n + $(stat_of align_lines)))

# measure NAME RECORDS ARGS...: one run of blktop ARGS to /dev/null, a row of results.
measure() {
	local name=$1 n=$2
	shift 2
	if ! /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$BLKTOP" "$@" \
	    </dev/null >/dev/null 2>"$tmp/err"; then
		echo "run-import: blktop $* failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	read -r wall user sys rss <"$tmp/time"
	echo "$name $n $wall $user $sys $rss" >>"$tmp/results"
	printf "%-10s %6.2f s wall %6.2f s CPU %9.0f rec/s wall %9.0f rec/s CPU %7d KiB\n" \
	    "$name" "$wall" "$(echo "$user + $sys" | bc -l)" "$(echo "$n / $wall" | bc -l)" \
	    "$(echo "$n / ($user + $sys)" | bc -l)" "$rss"
}

cd "$tmp" || exit 1
echo "blktop -r vfs.log -J -d 60 --top 20 > /dev/null"
for i in 1 2 3; do measure vfs-J "$vfs_n" -r vfs.log -J -d 60 --top 20; done
echo "blktop -r vfs.log --dump > /dev/null"
for i in 1 2 3; do measure vfs-dump "$vfs_n" -r vfs.log --dump; done
echo "blktop -r bio.log vfs.log openat.log align.log -J -d 60 > /dev/null ($merge_lines lines, $merge_n records)"
for i in 1 2 3; do measure merge-J "$merge_n" -r bio.log vfs.log openat.log align.log -J -d 60; done
# Peak RSS against the log's length: the first tenth of vfs.log.
head -n $((vfs_n / 10 + 2)) vfs.log >vfs10.log
echo "blktop -r vfs10.log -J -d 60 --top 20 > /dev/null (the first tenth)"
measure vfs10-J $((vfs_n / 10)) -r vfs10.log -J -d 60 --top 20
rm -f vfs10.log

# Does the merge add up? Every row of every report (--top 1000 keeps all 65
# processes; the files table stops at 256 rows a report), then every rw row of
# the merge's --dump: its path must be a full path from openat.log.
"$BLKTOP" -r vfs.log -J -d 60 --top 1000 >vfs.json 2>/dev/null
"$BLKTOP" -r bio.log -J -d 60 --top 1000 >bio.json 2>/dev/null
"$BLKTOP" -r bio.log vfs.log openat.log align.log -J -d 60 --top 1000 >merge.json 2>/dev/null
"$BLKTOP" -r bio.log vfs.log openat.log align.log --dump 2>/dev/null |
    awk -F, '$1 == "\"rw\"" { n++; if ($19 !~ /^"\//) b++ } END { print n + 0, b + 0 }' >dump.txt
python3 - "$tmp" <<'EOF'
import json, os, sys
d = sys.argv[1]
stats = dict(l.split() for l in open(os.path.join(d, "stats.txt")))
stats = {k: int(v) for k, v in stats.items()}

def totals(name):
    t = dict.fromkeys(("reports", "vfs_reads", "vfs_writes", "vfs_read_bytes", "vfs_write_bytes",
                       "proc_ios", "dev_ios", "opens", "open_fails", "files_full", "files_base",
                       "files_joined"), 0)
    for line in open(os.path.join(d, name)):
        r = json.loads(line)
        t["reports"] += 1
        for p in r["processes"]:
            for k, j in (("vfs_reads", "call_reads"), ("vfs_writes", "call_writes"),
                         ("vfs_read_bytes", "call_read_bytes"), ("vfs_write_bytes", "call_write_bytes"),
                         ("opens", "opens"), ("open_fails", "open_fails")):
                t[k] += p[j] or 0
            t["proc_ios"] += p["req_reads"] + p["req_writes"]
        for v in r["devices"]:
            t["dev_ios"] += v["read"]["ios"] + v["write"]["ios"]
        for f in r["files"]:
            if f["path"].startswith("/"):
                t["files_full"] += 1
                if f["opens"] and (f["call_reads"] or 0) + (f["call_writes"] or 0):
                    t["files_joined"] += 1
            else:
                t["files_base"] += 1
    return t

vfs, bio, m = totals("vfs.json"), totals("bio.json"), totals("merge.json")
rw_rows, rw_base = map(int, open(os.path.join(d, "dump.txt")).read().split())
bad = 0
def check(what, got, want):
    global bad
    ok = got == want
    bad += not ok
    print("  %-8s %-52s %12d %12d" % ("OK" if ok else "MISMATCH", what, got, want))
print("merge check (merged, expected):")
for k in ("vfs_reads", "vfs_writes", "vfs_read_bytes", "vfs_write_bytes"):
    check(k + " = vfs.log alone", m[k], vfs[k])
    check(k + " = generated", m[k], stats[k])
check("block ios of devices = bio.log alone", m["dev_ios"], bio["dev_ios"])
check("block ios of processes = bio.log alone", m["proc_ios"], bio["proc_ios"])
check("block ios = generated", m["dev_ios"], stats["bio_reads"] + stats["bio_writes"])
check("opens = generated", m["opens"], stats["opens"])
check("failed opens = generated", m["open_fails"], stats["open_fails"])
check("rw rows of the merged --dump = vfs lines", rw_rows, stats["vfs_lines"])
check("rw rows with a basename only (no join)", rw_base, 0)
check("file rows named by basename in the reports", m["files_base"], 0)
check("file rows with opens and reads/writes > 0", m["files_joined"] > 0, 1)
print("  (%d reports, %d file rows with full paths, %d of them opened and read or written)"
      % (m["reports"], m["files_full"], m["files_joined"]))
print("merge: %s" % ("OK" if not bad else "MISMATCH (%d)" % bad))
open(os.path.join(d, "check"), "w").write("OK" if not bad else "MISMATCH")
EOF

# Medians of the 3 runs.
python3 - "$tmp/results" <<'EOF'
import sys
rows = {}
for l in open(sys.argv[1]):
    name, n, wall, user, sys_, rss = l.split()
    rows.setdefault(name, []).append((int(n), float(wall), float(user) + float(sys_), int(rss)))
med = lambda v: sorted(v)[len(v) // 2]
print("\nmedians of %s runs" % "/".join(str(len(v)) for v in rows.values()))
print("%-10s %10s %8s %8s %12s %12s %9s" % ("run", "records", "wall s", "CPU s", "rec/s wall", "rec/s CPU", "RSS MiB"))
for name, v in rows.items():
    n = v[0][0]
    w, c, r = med([x[1] for x in v]), med([x[2] for x in v]), med([x[3] for x in v])
    print("%-10s %10d %8.2f %8.2f %12.0f %12.0f %9.1f" % (name, n, w, c, n / w, n / c, r / 1024))
EOF
[ "$(cat "$tmp/check")" = OK ]
