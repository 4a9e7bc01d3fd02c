#!/bin/bash
# startcost.sh: what starting costs the kernel's verifier, in instructions
# it walked (verified_insns in each program fd's /proc/PID/fdinfo, Linux
# 5.16+): a figure that, unlike seconds, does not move with the machine's
# load. Each syscall's exit program is compiled with its own call only
# (bpf/vfs-exit.h); when every exit program held every call's branches,
# the verifier walked 9.7 million instructions (max 439k in one program)
# and blktop took 10.7 s to start on the 2-core VM of this project (6.18),
# and over 30 s beside other suites. After: 1.53 million, max 138k, 3.7 s.
# The bounds below (2.5 million, 250k) leave 60% and 80% for another
# kernel's verifier and for programs to come, and fail the old layout.
. "$BLKTOP_SRCDIR/tests/lib.sh"
need_root

out=$TEST_TMP/start.jsonl
t0=$(date +%s%N)
start_bg "$BLKTOP" -J -d 1 -n 60 >"$out" 2>"$TEST_TMP/err"
pid=$BG_PID
# -J's first report: every program is loaded and attached by then.
wait_for "$out" "$START_S"
t1=$(date +%s%N)
check "blktop started and reported ($(( (t1 - t0) / 1000000 )) ms to the first report)" [ -s "$out" ]
# A program's fd says prog_type (a link's says link_type and its prog_id too).
progs=$(grep -L '^link_type:' $(grep -l '^prog_type:' /proc/"$pid"/fdinfo/* 2>/dev/null) 2>/dev/null | wc -l)
read -r sum n max < <(awk '/^verified_insns:/ { s += $2; n++; if ($2 > m) m = $2 }
    END { print s + 0, n + 0, m + 0 }' /proc/"$pid"/fdinfo/* 2>/dev/null)
stop_bg "$pid"
check "its programs are there to count ($progs program fds)" [ "$progs" -gt 20 ]
if [ "$n" -eq 0 ]; then
	# Before 5.16 the kernel does not say: nothing to judge, and said so.
	check "verified_insns: not in this kernel's fdinfo ($(uname -r)): none to judge" \
	    [ "$(printf '%s\n' "$(uname -r)" 5.16 | sort -V | head -1)" != 5.16 ]
else
	check "every program fd says its verified_insns ($n of $progs)" [ "$n" -eq "$progs" ]
	check "the verifier walked <= 2,500,000 instructions in all ($sum, $n programs)" [ "$sum" -le 2500000 ]
	check "and <= 250,000 in any one program ($max)" [ "$max" -le 250000 ]
fi
