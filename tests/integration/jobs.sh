#!/bin/bash
# jobs.sh: jobs, processes grouped by their tree (issue 44 part 3). A tree the
# test starts (tree.py: a parent that forks 3 children, the second of which
# forks a grandchild) reads known files on an ext4 on a /dev/shm loop device,
# each process its own file of its own size, the file's pages dropped first
# (fsync + POSIX_FADV_DONTNEED, then mincore: a page the kernel kept is
# expected from the cache, not the device) so that every byte comes from the device. The
# parent starts before blktop (found in /proc), its children after (forks).
# Checked, live (-J; the report, of --job) and from the capture's replay: the
# job rooted at the parent (its parent is this test's bash) has exactly those 5 members,
# each member's call and disk read bytes are its file's size, the job's are
# their sum; --job CHILD picks exactly that child and the grandchild, live
# --job PARENT exactly the tree; the UI's processes pane grouped by job (J)
# shows the tree as one row and Enter opens it (where tmux is); the task programs refused
# (BLKTOP_VFS_REFUSE=task), the rest runs and jobs are null; an older capture
# (tests/fixtures/marks.blkcap, recorded before the tree was traced) replays
# with jobs null. Issue 45: the capture recorded again (-r C -w B) replays
# with C's jobs, interval by interval (its plan whole: cut at 40 characters,
# B lost "+task" and its jobs were null); recorded again as hosts ja and jb
# and merged, each host's jobs are the capture's, with its host: twice the
# jobs, each with its own members and figures (-J, the report, -b, the UI's
# job rows, a HOST column each).
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root
need_cmd python3 python3
need_cmd mkfs.ext4 e2fsprogs

ext4_on_loop 96 || exit 1
# Sizes in 64 KiB units: parent, child 0, 1, 2, grandchild.
SIZES="16 32 48 64 80"
i=0
for s in $SIZES; do
	head -c $((s * 65536)) /dev/urandom >"$MNT/f$i"
	i=$((i + 1))
done
sync

cat >"$TEST_TMP/tree.py" <<'PY'
import ctypes, os, sys, time
mnt, go, out = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

def resident(fd):
    """Bytes of the file's pages in the page cache (mincore of a mapping that
    touches none): the truth of what its read finds there, not on the disk."""
    size = os.fstat(fd).st_size
    a = libc.mmap(None, size, 1, 1, fd, 0)	# PROT_READ, MAP_SHARED
    if a in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    vec = ctypes.create_string_buffer((size + 4095) // 4096)
    r = libc.mincore(a, size, vec)
    libc.munmap(a, size)
    if r != 0:
        raise OSError(ctypes.get_errno(), "mincore")
    return 4096 * sum(b & 1 for b in vec.raw)

def read_all(name):
    fd = os.open(os.path.join(mnt, name), os.O_RDONLY)
    os.fsync(fd)
    # The pages dropped, checked (a page the kernel kept is read from the
    # cache: what is left is written out for the expectation).
    for _ in range(50):
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        res = resident(fd)
        if res == 0:
            break
        time.sleep(0.02)
    open("%s.res.%s" % (out, name), "w").write("%d\n" % res)
    n = 0
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        n += len(b)
        time.sleep(0.04)	# over seconds: the UI's rows of an interval show it
    os.close(fd)
    return n

def child(k, grand):
    if grand:
        g = os.fork()
        if g == 0:
            time.sleep(0.3)
            read_all("f4")
            os._exit(0)
    time.sleep(0.3)
    read_all("f%d" % k)
    if grand:
        os.waitpid(g, 0)
    os._exit(0)

while not os.path.exists(go):
    time.sleep(0.05)
pids = []
for k in (1, 2, 3):
    p = os.fork()
    if p == 0:
        child(k, k == 2)
    pids.append(p)
time.sleep(0.3)
read_all("f0")
for p in pids:
    os.waitpid(p, 0)
open(out, "w").write(" ".join(str(p) for p in pids) + "\n")
PY
python3 "$TEST_TMP/tree.py" "$MNT" "$TEST_TMP/go" "$TEST_TMP/kids" &
tpid=$!
TEST_PIDS="$TEST_PIDS $tpid"

C=$TEST_TMP/j.blkcap
"$BLKTOP" -J -d 0.5 --top 1000 -w "$C" >"$TEST_TMP/j.jsonl" 2>"$TEST_TMP/j.err" &
bpid=$!
TEST_PIDS="$TEST_PIDS $bpid"
"$BLKTOP" -J -d 0.5 --job "$tpid" --report "$TEST_TMP/r.json" >"$TEST_TMP/p.jsonl" 2>"$TEST_TMP/p.err" &
ppid2=$!
TEST_PIDS="$TEST_PIDS $ppid2"
wait_for "$TEST_TMP/j.jsonl" "$START_S" || fail "blktop -J started: $(head -c 300 "$TEST_TMP/j.err")"
wait_for "$TEST_TMP/p.jsonl" "$START_S" || fail "blktop --job started: $(head -c 300 "$TEST_TMP/p.err")"
read -r _ rs0 _ <<<"$(diskstats "${LOOP##*/}")"
touch "$TEST_TMP/go"
wait "$tpid"; tst=$?
read -r _ rs1 _ <<<"$(diskstats "${LOOP##*/}")"
loop_read=$(((rs1 - rs0) * 512))
sleep 1
stop_bg "$bpid"; st=$?
stop_bg "$ppid2"; st2=$?
check "live: the tree exits $tst, both blktops $st $st2 at SIGINT, nothing on stderr" \
    [ "$tst" = 0 -a "$st" = 0 -a "$st2" = 0 -a ! -s "$TEST_TMP/j.err" -a ! -s "$TEST_TMP/p.err" ]
read -r k1 k2 k3 <"$TEST_TMP/kids"

"$BLKTOP" -r "$C" -J -d 0.5 --top 1000 </dev/null >"$TEST_TMP/rj.jsonl" 2>"$TEST_TMP/rj.err"
"$BLKTOP" -r "$C" --job "$tpid" --report "$TEST_TMP/r2.json" </dev/null >/dev/null 2>"$TEST_TMP/r2.err"
"$BLKTOP" -r "$C" --job "$tpid" --report "$TEST_TMP/r2.html" </dev/null >/dev/null 2>"$TEST_TMP/h.err"
"$BLKTOP" -r "$C" -J -d 0.5 --job "$k2" </dev/null >"$TEST_TMP/rk.jsonl" 2>>"$TEST_TMP/rj.err"
"$BLKTOP" -r "$C" -b -d 3600 --top 1000 </dev/null >"$TEST_TMP/b.txt" 2>>"$TEST_TMP/rj.err"
"$BLKTOP" -r "$C" --dump </dev/null >"$TEST_TMP/dump.csv" 2>>"$TEST_TMP/rj.err"
# Recorded again: as it was, and as two hosts merged.
"$BLKTOP" -r "$C" -w "$TEST_TMP/again.blkcap" -J </dev/null >/dev/null 2>>"$TEST_TMP/rj.err"
"$BLKTOP" -r "$TEST_TMP/again.blkcap" -J -d 0.5 --top 1000 </dev/null >"$TEST_TMP/ra.jsonl" 2>>"$TEST_TMP/rj.err"
for h in ja jb; do
	"$BLKTOP" -r "$C" -w "$TEST_TMP/$h.blkcap" --hostname $h -J </dev/null >/dev/null 2>>"$TEST_TMP/rj.err"
done
H="$TEST_TMP/ja.blkcap $TEST_TMP/jb.blkcap"
# The run as one interval (a merged run ticks on its own, not at the capture's
# ticks), the tree's job alone (the machine's others may pass --top's cap).
"$BLKTOP" -r "$C" -J -d 3600 --job "$tpid" </dev/null >"$TEST_TMP/r1.jsonl" 2>>"$TEST_TMP/rj.err"
"$BLKTOP" -r $H -J -d 3600 --job "$tpid" </dev/null >"$TEST_TMP/rh.jsonl" 2>>"$TEST_TMP/rj.err"
"$BLKTOP" -r $H --report "$TEST_TMP/rh.json" --job "$tpid" </dev/null >/dev/null 2>"$TEST_TMP/rh.err"
"$BLKTOP" -r $H -b -d 3600 --job "$tpid" </dev/null >"$TEST_TMP/bh.txt" 2>>"$TEST_TMP/rj.err"
check "replays: nothing on stderr ($(head -c 300 "$TEST_TMP/rj.err"))" [ ! -s "$TEST_TMP/rj.err" ]

python3 - "$TEST_TMP" "$tpid" "$k1" "$k2" "$k3" "$SIZES" "$BLKTOP_SRCDIR" "${LOOP##*/}" "$loop_read" <<'PY' || fail "the checks stopped (a Python error above)"
import csv, json, sys
tmp, root, k1, k2, k3 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
units = [int(s) for s in sys.argv[6].split()]
# The grandchild: the one process of the dump whose fork names k2 as parent.
rows = [r for r in csv.DictReader(open(tmp + "/dump.csv")) if r["type"] == "task"]
gs = [int(r["tgid"]) for r in rows if r["class"] == "fork" and int(r["count"]) == k2]
found = [r for r in rows if r["class"] == "found" and int(r["tgid"]) == root]
forks = sorted(int(r["tgid"]) for r in rows if r["class"] == "fork" and int(r["count"]) == root)

def ok(cond, what):
    print(("PASS: " if cond else "FAIL: ") + "jobs: " + what)

ok(len(gs) == 1 and found and forks == sorted([k1, k2, k3]),
   "the capture's tree: the parent %d found in /proc (ppid %s), forks of %s, grandchild %s"
   % (root, found[0]["count"] if found else None, forks, gs))
g = gs[0] if gs else -1
want = {root: units[0], k1: units[1], k2: units[2], k3: units[3], g: units[4]}
want = {p: u * 65536 for p, u in want.items()}
# A member's disk bytes are its file's and whatever else it read from a disk:
# python's own pages faulted in again from the root disk (another test dropped
# the caches) are its reads too. The dump's block rows off the test's device
# name them; the calls' bytes are the file's alone.
extra = {}
for r in csv.DictReader(open(tmp + "/dump.csv")):
    if r["type"] == "block" and r["op"] == "0" and r["device"] != sys.argv[8] and int(r["tgid"]) in want:
        extra[int(r["tgid"])] = extra.get(int(r["tgid"]), 0) + int(r["bytes"])
# A page the kernel kept through POSIX_FADV_DONTNEED (mincore said so) is
# read from the cache, not the disk.
res = {}
for p, k in ((root, 0), (k1, 1), (k2, 2), (k3, 3), (g, 4)):
    res[p] = int(open("%s/kids.res.f%d" % (tmp, k)).read())
disk = {p: want[p] - res[p] + extra.get(p, 0) for p in want}
# What the device itself read (/proc/diskstats), beside the members' sum: a
# failure says whether bytes went elsewhere or were never read.
diag = "other disks' %s, cached %s, the device read %d" % (extra, res, int(sys.argv[9]))

def job_sums(lines, jroot):
    """Per member: call and disk read bytes summed over the intervals; and the job's."""
    mem, job, other = {}, [0, 0], set()
    for l in lines:
        o = json.loads(l)
        for j in o["jobs"] or []:
            if j["root"] != jroot:
                other.update(j["pids"])
                continue
            job[0] += j["call_read_bytes"]
            job[1] += j["disk_read_bytes"]
            assert sorted(j["pids"]) == j["pids"] and [m["pid"] for m in j["members"]] == j["pids"]
            for m in j["members"]:
                s = mem.setdefault(m["pid"], [0, 0])
                s[0] += m["call_read_bytes"]
                s[1] += m["disk_read_bytes"]
    return mem, job, other

total = sum(want.values())
tdisk = sum(disk.values())
for name, f in (("live -J", "j.jsonl"), ("replay -J", "rj.jsonl")):
    mem, job, other = job_sums(open(tmp + "/" + f), root)
    ok(set(mem) == set(want) and all(mem[p] == [want[p], disk[p]] for p in want),
       "%s: the job of %d has members %s, each its file's bytes read by calls and from the "
       "device (%s; want %s; %s)" % (name, root, sorted(mem), mem, want, diag))
    ok(job == [total, tdisk], "%s: the job's read bytes, calls and disk, are the sum %d (%d): %s"
       % (name, total, tdisk, job))
    ok(not (other & set(want)), "%s: no member of the tree in another job" % name)
for name, f in (("live report", "r.json"), ("replayed report", "r2.json")):
    r = json.load(open(tmp + "/" + f))
    js = r["jobs"]	# with --job: the run's busiest 10 could be others' (a busy machine)
    ok(len(js) == 1 and js[0]["root"] == root and js[0]["pids"] == sorted(want) and js[0]["call_read_bytes"] == total
       and js[0]["disk_read_bytes"] == tdisk and js[0]["comm"] == "python3",
       "%s: one job of %d, python3, members %s, %d bytes read" % (name, root, sorted(want), total))
# The HTML report's Jobs table: the job's row and a row per member, each figure
# (exact bytes in the cell's title) the report JSON's of the same replay.
import re
page = open(tmp + "/r2.html").read()
tab = re.search(r"<h2>Jobs</h2>.*?(<table class=\"jobs\">.*?</table>)", page, re.S)
KEYS = ("call_read_bytes", "call_write_bytes", "disk_read_bytes", "disk_write_bytes",
        "req_read_bytes", "req_write_bytes")
hjobs = []
for cls, row in re.findall(r'<tr class="(job|member)">(.*?)</tr>', tab.group(1) if tab else "", re.S):
    cells = re.findall(r"<td[^>]*?(?: title=\"(\d+)\")?>(.*?)</td>", row)
    figs = [int(t) for t, _ in cells[3:9]]
    if cls == "job":
        hjobs.append({"root": int(cells[0][1]), "n": cells[2][1], "figs": figs, "members": []})
    else:
        hjobs[-1]["members"].append({"pid": int(cells[2][1]), "figs": figs})
j2 = json.load(open(tmp + "/r2.json"))["jobs"]
want_h = [{"root": j["root"], "n": "%d processes" % len(j["pids"]), "figs": [j[k] for k in KEYS],
           "members": [{"pid": m["pid"], "figs": [m[k] for k in KEYS]} for m in j["members"]]} for j in j2]
ok(tab is not None and hjobs == want_h and hjobs and hjobs[0]["root"] == root,
   "the HTML report's Jobs table: the job of %d and its %d members' rows, every figure the report "
   "JSON's (%s)" % (root, len(want), hjobs if hjobs != want_h else "equal"))
# --job: exactly the subtree named.
mem, job, other = job_sums(open(tmp + "/rk.jsonl"), k2)
sub = {k2: want[k2], g: want[g]}
ok(set(mem) == set(sub) and not other and job == [sum(sub.values()), disk[k2] + disk[g]],
   "replay --job %d: one job, the child and its grandchild %s, %s bytes (other jobs: %s)"
   % (k2, sorted(mem), job, sorted(other)))
mem, job, other = job_sums(open(tmp + "/p.jsonl"), root)
ok(set(mem) == set(want) and not other and job == [total, tdisk],
   "live --job %d: one job, the whole tree %s, %s bytes (other jobs: %s)"
   % (root, sorted(mem), job, sorted(other)))
b = open(tmp + "/b.txt").read()
ok(any(l.split()[:3] == [str(root), "python3", "5"] for l in b.splitlines()),
   "-b: the job block has the tree's line (root, comm, 5 processes)")
# Recorded again: the same jobs, interval by interval.
rj = [json.loads(l)["jobs"] for l in open(tmp + "/rj.jsonl")]
ra = [json.loads(l)["jobs"] for l in open(tmp + "/ra.jsonl")]
ok(ra == rj and any(rj), "recorded again (-r C -w B): B's -J jobs are C's, %d intervals, %d jobs "
   "(B's: %s)" % (len(rj), sum(len(j or []) for j in rj), "equal" if ra == rj else
                  [len(j) if j is not None else None for j in ra][:8]))
# Two hosts: each host's jobs are the capture's, its host named (the run as one interval).
r1 = [json.loads(l)["jobs"] for l in open(tmp + "/r1.jsonl")]
rh = [json.loads(l) for l in open(tmp + "/rh.jsonl")]
def key(j):
    return json.dumps(j, sort_keys=True)
def of_host(jobs, h):
    return sorted(key({k: v for k, v in j.items() if k != "host"}) for j in jobs or [] if j.get("host") == h)
bad = [i for i, o in enumerate(rh) if i >= len(r1) or
       of_host(o["jobs"], "ja") != sorted(map(key, r1[i] or [])) or
       of_host(o["jobs"], "jb") != sorted(map(key, r1[i] or [])) or
       len(o["jobs"] or []) != 2 * len(r1[i] or [])]
ok(len(rh) == len(r1) == 1 and not bad and len(rh[0]["jobs"] or []) == 2 * len(r1[0] or []) == 2,
   "ja and jb merged, --job %d: twice the capture's %d jobs, each host's the capture's alone (members, "
   "pids, figures), each with its host (merged: %s jobs, %s)" % (root, len(r1[0] or []) if r1 else 0,
   [len(o["jobs"] or []) for o in rh], "equal" if not bad else "differ"))
mem, job, other = job_sums([json.dumps({"jobs": [j for j in o["jobs"] or [] if j.get("host") == "jb"]}) for o in rh], root)
ok(set(mem) == set(want) and all(mem[p] == [want[p], disk[p]] for p in want) and job == [total, tdisk],
   "ja and jb merged: jb's job of %d, members %s, each its file's bytes, %d in all, as the capture's"
   % (root, sorted(mem), total))
js = [j for j in json.load(open(tmp + "/rh.json"))["jobs"] or [] if j["root"] == root]
ok(sorted(j.get("host") for j in js) == ["ja", "jb"] and all(j["pids"] == sorted(want) and
   j["call_read_bytes"] == total and j["disk_read_bytes"] == tdisk for j in js),
   "ja and jb merged, the report: the job of %d once per host, members %s, %d bytes each (%s)"
   % (root, sorted(want), total, [(j.get("host"), j["pids"], j["call_read_bytes"]) for j in js]))
bh = [l.split()[:4] for l in open(tmp + "/bh.txt")]
ok([str(root), "python3", "ja", "5"] in bh and [str(root), "python3", "jb", "5"] in bh,
   "ja and jb merged, -b: the job block has the tree's line per host (root, comm, HOST, 5 processes)")
try:
    import jsonschema
except ImportError:
    jsonschema = None
if jsonschema:
    v = jsonschema.Draft202012Validator(json.load(open(sys.argv[7] + "/doc/blktop.schema.json")))
    objs = [json.loads(l) for l in open(tmp + "/j.jsonl")] + [json.load(open(tmp + "/r.json"))]
    objs += rh + [json.load(open(tmp + "/rh.json"))]
    errs = ["%s at %s" % (e.message[-200:], "/".join(map(str, e.absolute_path)))
            for o in objs for e in v.iter_errors(o)]
    ok(not errs, "the schema takes -J's %d intervals and the report, jobs included (%s)"
       % (len(objs) - 1, errs[:1]))
PY

# The UI on the capture: the processes pane (2), grouped by job (J): the
# tree's row, PID its root, COMMAND its name and the 4 other members.
if command -v tmux >/dev/null; then
	tmux_setup
	# ui_grouped ERR ARGS...: blktop ARGS in the tmux session ui (the one
	# before ended), its processes pane grouped by job.
	ui_grouped() {
		local err=$1
		shift
		"${TMUX_CMD[@]}" kill-session -t ui 2>/dev/null
		"${TMUX_CMD[@]}" new-session -d -s ui -x 160 -y 50 \
		    "env LANG=C.UTF-8 BLKTOP_THEMEDIR=$BLKTOP_SRCDIR/themes $BLKTOP $* 2>$err; sleep 600"
		wait_screen 10 "replay" || fail "ui: the replay ($*) did not start: $(head -c 200 "$err")"
		"${TMUX_CMD[@]}" send-keys -t ui 2
		"${TMUX_CMD[@]}" send-keys -t ui J
	}
	ui_grouped "$TEST_TMP/ui.err" -r "$C" --speed 1
	check "ui: J groups the processes by job: a row $tpid python3+4 (the tree)" \
	    wait_screen 30 "^ *$tpid +python3\+4 "
	screen | grep -E "^ *[0-9]+ " | grep -E " ($k1|$k2|$k3) " >"$TEST_TMP/ui-rows.txt"
	check "ui: no row of the tree's other processes while grouped" [ ! -s "$TEST_TMP/ui-rows.txt" ]
	# With --job the tree is the one job: Enter opens it to its members.
	ui_grouped "$TEST_TMP/ui2.err" -r "$C" --job "$tpid" --speed 0.5
	wait_screen 40 "^ *$tpid +python3\+4 " || fail "ui --job: no job row for $tpid"
	"${TMUX_CMD[@]}" send-keys -t ui Enter
	check "ui: Enter on the job's row lists its processes ($k1 $k2 $k3 among them)" \
	    wait_screen 10 "^ *($k1|$k2|$k3) +python3 "
	# Two hosts merged: a job row per host, HOST its host's.
	ui_grouped "$TEST_TMP/ui3.err" -r $H --job "$tpid" --speed 0.5
	wait_screen 40 "^ *$tpid +python3\+4 +j[ab] " || fail "ui, ja and jb: no job row for $tpid"
	# both_rows SECS: the two hosts' rows on one screen.
	both_rows() {
		local i=0
		while [ "$i" -lt $(($1 * 10)) ]; do
			screen >"$TEST_TMP/ui3.txt"
			grep -qE "^ *$tpid +python3\+4 +ja " "$TEST_TMP/ui3.txt" &&
			    grep -qE "^ *$tpid +python3\+4 +jb " "$TEST_TMP/ui3.txt" && return 0
			sleep 0.1
			i=$((i + 1))
		done
		return 1
	}
	check "ui, ja and jb merged: the tree's job row per host ($tpid python3+4 ja, jb)" both_rows 10
fi

# A kernel without the tree (the group refused, as the verifier would): the
# rest runs, jobs null, and "unavailable" says why.
BLKTOP_VFS_REFUSE=task "$BLKTOP" -J -d 1 -n 1 </dev/null >"$TEST_TMP/nt.jsonl" 2>"$TEST_TMP/nt.err"
python3 - "$TEST_TMP/nt.jsonl" <<'PY' || fail "the refused tree's checks stopped"
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
why = o.get("unavailable", {}).get("task")
print(("PASS: " if o["jobs"] is None and why and o["processes"] else "FAIL: ") +
      "jobs: the task programs refused: %d processes still, jobs null, unavailable.task: %s"
      % (len(o["processes"]), why))
PY

# An older blktop's capture (no task records, no "task" in its plan): jobs null.
"$BLKTOP" -r "$BLKTOP_SRCDIR/tests/fixtures/marks.blkcap" -J -d 3600 </dev/null >"$TEST_TMP/old.jsonl" 2>/dev/null
python3 - "$TEST_TMP/old.jsonl" <<'PY' || fail "the older capture's checks stopped"
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = ls and all(o["jobs"] is None for o in ls)
print(("PASS: " if ok else "FAIL: ") + "jobs: an older capture replays with jobs null, not [] "
      "(%d intervals)" % len(ls))
PY
