/* source-live-links.c: detach the live source's BPF programs all at once, or at exit without waiting. */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base.h"
#include "sources.h"
#include "source-live.h"

#define LIVE_LINKS_THREADS_MAX	64

/* Thread body: destroy one link and clear the skeleton's pointer to it. */
static void *
live_links_destroy_one(void *arg)
{
	struct bpf_link	**link = arg;

	bpf_link__destroy(*link);
	*link = NULL;
	return (NULL);
}

/*
 * Destroy the links of a skeleton's programs, the skeleton's destroy then
 * finding none. Closing a tracepoint link waits for an RCU grace period
 * (60-70 ms each here): one after the other the 28 of the per-process side
 * made quitting take 2 s. A thread each lets the waits overlap; a link whose
 * thread does not start is destroyed in turn here, and links past the first
 * LIVE_LINKS_THREADS_MAX are left to the skeleton.
 */
void
live_links_destroy(struct bpf_object_skeleton *s)
{
	pthread_t			 t[LIVE_LINKS_THREADS_MAX];
	int				 started[LIVE_LINKS_THREADS_MAX];
	const struct bpf_prog_skeleton	*p;
	int				 i, n;

	if (s == NULL || s->progs == NULL)
		return;
	n = s->prog_cnt < LIVE_LINKS_THREADS_MAX ? s->prog_cnt : LIVE_LINKS_THREADS_MAX;
	for (i = 0; i < n; i++) {
		started[i] = 0;
		p = (const struct bpf_prog_skeleton *)(const void *)
		    ((const char *)s->progs + (size_t)i * (size_t)s->prog_skel_sz);
		if (p->link == NULL || *p->link == NULL)
			continue;
		if (pthread_create(&t[i], NULL, live_links_destroy_one, p->link) == 0)
			started[i] = 1;
		else
			live_links_destroy_one(p->link);
	}
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
	}
}

/* Whether a link releases at once when closed: a BPF link other than a perf event's. */
static int
live_links_quick(const struct bpf_link *link)
{
	struct bpf_link_info	 info;
	uint32_t		 len = sizeof info;

	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) != 0)
		return (0);	/* a perf event itself (no perf links before 5.15) */
	return (info.type != BPF_LINK_TYPE_PERF_EVENT);
}

/* The links of skeleton s, in turn: *i from 0; NULL past the last. */
static struct bpf_link **
live_links_next(struct bpf_object_skeleton *s, int *i)
{
	const struct bpf_prog_skeleton	*p;

	while (s != NULL && s->progs != NULL && *i < s->prog_cnt) {
		p = (const struct bpf_prog_skeleton *)(const void *)
		    ((const char *)s->progs + (size_t)(*i)++ * (size_t)s->prog_skel_sz);
		if (p->link != NULL && *p->link != NULL)
			return (p->link);
	}
	return (NULL);
}

/* Close every fd from lo to hi (inclusive). */
static void
live_links_close_range(unsigned lo, unsigned hi)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
#endif
	if (hi > 65535)
		hi = 65535;
	for (; lo <= hi; lo++)
		close((int)lo);
}

/* Ascending order of fds. */
static int
live_links_fd_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/*
 * In the child of live_links_leave: hold the nkeep fds of keep[] (rd, the end of
 * the pipe it waits on, among them), nothing else; wait; exit.
 */
static void __attribute__((noreturn))
live_links_child(int *keep, int nkeep, int rd)
{
	unsigned	 lo = 0;
	int		 i;
	char		 c;

	(void)setsid();		/* no terminal, no terminal's signals */
	qsort(keep, (size_t)nkeep, sizeof *keep, live_links_fd_cmp);
	for (i = 0; i < nkeep; i++) {
		if ((unsigned)keep[i] > lo)
			live_links_close_range(lo, (unsigned)keep[i] - 1);
		lo = (unsigned)keep[i] + 1;
	}
	live_links_close_range(lo, ~0u);
	/* The parent has let go of every link: its own exit waits for nothing. */
	while (read(rd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);	/* the kernel releases the links, one grace period each */
}

/*
 * At exit: end the process without waiting for the kernel to release the
 * links. Closing a tracepoint's perf event waits for an RCU grace period
 * under the kernel's event_mutex (35-80 ms each here, one after the other
 * whatever the threads): the per-process side's syscall tracepoints made
 * quitting take 2-3 s, and exiting with them open takes as long (a process's
 * files are closed before its parent hears of its end). So the links that
 * release at once (raw tracepoints, tp_btf) are destroyed here; a child
 * process takes a copy of the others, which are then destroyed here too,
 * closing only this process's copy (the captures are closed already, the
 * screen restored). The child, in a session of its own and holding no other
 * file, exits after that, and the kernel releases them in its exit while the
 * shell already has its prompt; until each is released its program still
 * runs, into a ring buffer no one reads. Without a child (fork failed) it is
 * live_links_destroy's threads.
 */
void
live_links_leave(struct bpf_object_skeleton **s, int ns)
{
	struct bpf_link	**link;
	int		  keep[LIVE_LINKS_THREADS_MAX * 2 + 1], nkeep = 0, k, i, p[2];
	pid_t		  pid;

	for (k = 0; k < ns; k++) {
		for (i = 0; (link = live_links_next(s[k], &i)) != NULL;) {
			if (live_links_quick(*link) || nkeep == (int)nitems(keep) - 1)
				live_links_destroy_one(link);
			else
				keep[nkeep++] = bpf_link__fd(*link);
		}
	}
	if (nkeep == 0 || pipe2(p, O_CLOEXEC) != 0)
		goto threads;
	if ((pid = fork()) == 0) {
		keep[nkeep++] = p[0];
		live_links_child(keep, nkeep, p[0]);
	}
	close(p[0]);
	if (pid == -1) {
		close(p[1]);
		goto threads;
	}
	for (k = 0; k < ns; k++) {
		for (i = 0; (link = live_links_next(s[k], &i)) != NULL;)
			live_links_destroy_one(link);
	}
	close(p[1]);	/* the child's read ends: it may release them now */
	return;
threads:
	for (k = 0; k < ns; k++)
		live_links_destroy(s[k]);
}
