/* test-task.c: the process tree (model-task.c): its bound and evictions, the job rule, --job; /proc/PID/stat lines parsed (source-live-tasks.c). */
#include <string.h>

#include "../../src/blktop.h"
#include "../../src/host.h"
#include "../../src/job.h"
#include "check.h"

int live_tasks_parse(const char *, struct ev_task *, uint64_t, long);

/* The live source's stream is not under test here. */
int
stream_event(struct blktop *b __unused, const void *rec __unused, size_t len __unused)
{
	return (0);
}

/* One process of host (HOST_NONE: a run of one) into the tree. */
static void
add_host(struct task_table *t, int host, uint32_t tgid, uint32_t ppid, const char *comm,
    uint32_t kind)
{
	struct ev_task	 ev;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_TASK;
	ev.tgid = tgid;
	ev.ppid = ppid;
	ev.kind = kind;
	ev.ts = ev.start = 1000 + tgid;
	strncpy(ev.comm, comm, sizeof ev.comm - 1);
	task_add(t, &ev, host);
}

/* One process of a run of one host into the tree. */
static void
add(struct task_table *t, uint32_t tgid, uint32_t ppid, const char *comm, uint32_t kind)
{
	add_host(t, HOST_NONE, tgid, ppid, comm, kind);
}

int
main(void)
{
	struct task_table	*t = task_create(64);
	struct ev_task		 ev;
	unsigned		 n, max, i;
	uint64_t		 ev_n;
	uint32_t		 ppid, pick[2];
	const char		*comm;

	/* init 1 -> sshd 10 -> bash 20 -> torchrun 30 -> python 31 -> workers 32, 33; 33 -> 34 */
	add(t, 1, 0, "systemd", TASK_FOUND);
	add(t, 10, 1, "sshd", TASK_FOUND);
	add(t, 20, 10, "bash", TASK_FOUND);
	add(t, 30, 20, "bash", TASK_FORK);
	add(t, 30, 20, "torchrun", TASK_EXEC);
	add(t, 31, 30, "python3", TASK_FORK);
	add(t, 32, 31, "python3", TASK_FORK);
	add(t, 33, 31, "pt_data_worker", TASK_FORK);
	add(t, 34, 33, "pt_data_worker", TASK_FORK);
	add(t, 40, 1, "nginx", TASK_FOUND);
	add(t, 41, 40, "nginx", TASK_FOUND);
	CHECK("exec renames: 30 is torchrun", task_find(t, 30, &ppid, &comm) &&
	    strcmp(comm, "torchrun") == 0 && ppid == 20);
	CHECK("job: a worker's is the process below the shell (30)",
	    task_job_root(t, 34, NULL, 0) == 30 && task_job_root(t, 32, NULL, 0) == 30 &&
	    task_job_root(t, 30, NULL, 0) == 30);
	CHECK("job: a service's is the process below pid 1", task_job_root(t, 41, NULL, 0) == 40);
	CHECK("job: the shell is its own", task_job_root(t, 20, NULL, 0) == 20);
	CHECK("job: a process the tree does not know is its own", task_job_root(t, 99, NULL, 0) == 99);
	pick[0] = 33;
	CHECK("--job 33: 33 and 34 in it, 32 in none",
	    task_job_root(t, 34, pick, 1) == 33 && task_job_root(t, 33, pick, 1) == 33 &&
	    task_job_root(t, 32, pick, 1) == 0 && task_job_root(t, 41, pick, 1) == 0);
	pick[1] = 31;
	CHECK("--job 33 --job 31: each in its nearest", task_job_root(t, 34, pick, 2) == 33 &&
	    task_job_root(t, 32, pick, 2) == 31);
	add(t, 50, 51, "a", TASK_FORK);
	add(t, 51, 50, "b", TASK_FORK);
	CHECK("a parent loop ends (depth bound)", task_job_root(t, 50, NULL, 0) != 0);
	task_free(t);

	/*
	 * Two hosts, the same pids, other trees: host 0's python 31 is 30's
	 * child, host 1's fio 31 the shell's. Each host's tree its own.
	 */
	t = task_create(64);
	for (i = 0; i < 2; i++) {
		add_host(t, (int)i, 1, 0, "systemd", TASK_FOUND);
		add_host(t, (int)i, 20, 1, "bash", TASK_FOUND);
	}
	add_host(t, 0, 30, 20, "python3", TASK_FORK);
	add_host(t, 0, 31, 30, "python3", TASK_FORK);
	add_host(t, 1, 30, 20, "fio", TASK_FORK);
	add_host(t, 1, 31, 20, "fio", TASK_FORK);
	CHECK("hosts: each host's 30 its own, its parent its host's, the bare pid none",
	    task_find(t, PROC_ID_OF(30, 1), &ppid, &comm) && strcmp(comm, "fio") == 0 &&
	    ppid == PROC_ID_OF(20, 1) && task_find(t, PROC_ID_OF(30, 0), &ppid, &comm) &&
	    strcmp(comm, "python3") == 0 && !task_find(t, 30, &ppid, &comm));
	CHECK("hosts: host 0's 31 in its 30's job, host 1's 31 its own",
	    task_job_root(t, PROC_ID_OF(31, 0), NULL, 0) == PROC_ID_OF(30, 0) &&
	    task_job_root(t, PROC_ID_OF(31, 1), NULL, 0) == PROC_ID_OF(31, 1) &&
	    task_job_root(t, PROC_ID_OF(30, 1), NULL, 0) == PROC_ID_OF(30, 1));
	pick[0] = 30;
	CHECK("hosts: --job 30 picks each host's 30, with its host's bits",
	    task_job_root(t, PROC_ID_OF(31, 0), pick, 1) == PROC_ID_OF(30, 0) &&
	    task_job_root(t, PROC_ID_OF(30, 1), pick, 1) == PROC_ID_OF(30, 1) &&
	    task_job_root(t, PROC_ID_OF(31, 1), pick, 1) == 0);
	task_free(t);

	t = task_create(4);
	for (i = 1; i <= 10; i++)
		add(t, 100 + i, 100, "x", TASK_FORK);
	task_stats(t, &n, &max, &ev_n);
	CHECK("bound: 10 processes in a tree of 4: 4 kept, 6 evicted", n == 4 && max == 4 && ev_n == 6);
	CHECK("bound: the least recently seen went first", !task_find(t, 106, &ppid, &comm) &&
	    task_find(t, 107, &ppid, &comm) && task_find(t, 110, &ppid, &comm));
	task_free(t);

	t = task_create(TASK_MAX);
	for (i = 0; i < 1000000; i++)
		add(t, 1000 + i, 999 + i, "w", TASK_FORK);
	task_stats(t, &n, &max, &ev_n);
	CHECK("bound: a million processes through the default tree: TASK_MAX kept, the rest evicted",
	    n == TASK_MAX && ev_n == 1000000 - TASK_MAX && task_find(t, 1000 + 999999, &ppid, &comm) &&
	    ppid == 999 + 999999);
	task_free(t);

	memset(&ev, 0, sizeof ev);
	CHECK("stat: a name with spaces and parentheses, up to the last ')'",
	    live_tasks_parse("123 (a) b (c) S 45 123 123 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 250 "
	    "1000 10\n", &ev, 0, 100) == 0 && ev.ppid == 45 && strcmp(ev.comm, "a) b (c") == 0 &&
	    ev.start == 2500000000ULL);
	CHECK("stat: the start before the boot-monotonic offset is 0",
	    live_tasks_parse("1 (init) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1 1\n", &ev,
	    100000000000ULL, 100) == 0 && ev.start == 0 && ev.ppid == 0);
	CHECK("stat: a long name is cut at 15 bytes",
	    live_tasks_parse("7 (abcdefghijklmnopqrst) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 9 1 1",
	    &ev, 0, 100) == 0 && strcmp(ev.comm, "abcdefghijklmno") == 0);
	CHECK("stat: malformed lines refused",
	    live_tasks_parse("7 (x S 1", &ev, 0, 100) != 0 &&
	    live_tasks_parse("7 (x) S 1 2 3", &ev, 0, 100) != 0 &&
	    live_tasks_parse("7 (x) S z 2 3", &ev, 0, 100) != 0 &&
	    live_tasks_parse("7 x) S 1", &ev, 0, 100) != 0);
	CHECK_EXIT();
}
