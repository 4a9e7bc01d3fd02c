/* model-task.c: the process tree as the EV_TASK records tell it: each process's parent, name and start, bounded; a host's tree its own. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "job.h"
#include "model.h"

struct task_entry {
	uint32_t	 tgid;		/* as the model's process ids: its host's above PROC_ID_HOST_SHIFT */
	uint32_t	 ppid;		/* likewise; 0 if none */
	uint64_t	 start;
	char		 comm[BLKTOP_COMM_LEN];
};
struct task_table {
	struct model_index	 ix;	/* LRU: the least recently seen process is evicted first */
	struct task_entry	*e;
};

/* A tgid's hash (Knuth's multiplicative). */
static uint32_t
task_hash(uint32_t tgid)
{
	return (tgid * 2654435761u);
}

/* Whether entry e is the process key points to. */
static int
task_same(const void *ctx, uint32_t e, const void *key)
{
	const struct task_table	*t = ctx;

	return (t->e[e].tgid == *(const uint32_t *)key);
}

/* Bytes task_create(max) allocates: the tree's memory bound. */
size_t
task_mem_bound(unsigned max)
{
	return (sizeof(struct task_table) + model_index_size(max) +
	    (size_t)max * sizeof(struct task_entry));
}

/* A tree of at most max processes. */
struct task_table *
task_create(unsigned max)
{
	struct task_table	*t = xcalloc(1, sizeof *t);

	model_index_init(&t->ix, max, t);
	t->e = model_index_entries(max, sizeof *t->e);
	return (t);
}

/* Free it. */
void
task_free(struct task_table *t)
{
	if (t == NULL)
		return;
	model_index_entries_free(t->e, t->ix.cap, sizeof *t->e);
	model_index_free(&t->ix);
	free(t);
}

/*
 * A fork, exec or found process of host (HOST_NONE: a run of one): its
 * parent and name, the one before it forgotten (a tgid reused). A fork's
 * name is its parent's until its exec. A host's processes are its own: in a
 * run of several, pid 1234 of one is never another's.
 */
void
task_add(struct task_table *t, const struct ev_task *ev, int host)
{
	uint32_t		 e, tgid = PROC_ID_OF(ev->tgid, host);
	struct task_entry	*p;

	e = model_index_find(&t->ix, task_hash(tgid), task_same, &tgid);
	if (e == MODEL_NIL) {
		if (t->ix.used == t->ix.cap)
			model_index_evict(&t->ix);
		e = model_index_add(&t->ix, task_hash(tgid));
		p = &t->e[e];
		memset(p, 0, sizeof *p);
		p->tgid = tgid;
	} else {
		model_index_touch(&t->ix, e);
		p = &t->e[e];
		if (ev->kind == TASK_FOUND && p->start != 0)
			return;		/* seen by the programs first: theirs is as good */
	}
	p->ppid = ev->ppid != 0 ? PROC_ID_OF(ev->ppid, host) : 0;
	if (ev->kind != TASK_EXEC || p->start == 0)
		p->start = ev->start;
	memcpy(p->comm, ev->comm, sizeof p->comm);
	p->comm[sizeof p->comm - 1] = '\0';
}

/* A process's (its model id's: the host's bits in) parent and name; 0 if the tree does not know it. */
int
task_find(const struct task_table *t, uint32_t tgid, uint32_t *ppid, const char **comm)
{
	uint32_t	 e = model_index_find(&t->ix, task_hash(tgid), task_same, &tgid);

	if (e == MODEL_NIL)
		return (0);
	*ppid = t->e[e].ppid;
	*comm = t->e[e].comm;
	return (1);
}

/* How many processes it holds, at most, and how many it forgot for room. */
void
task_stats(const struct task_table *t, unsigned *n, unsigned *max, uint64_t *evicted)
{
	*n = t->ix.used;
	*max = t->ix.cap;
	*evicted = t->ix.evicted;
}

/*
 * Whether a process of this name starts sessions rather than being part of
 * one's work: init and service managers, shells, terminal multiplexers,
 * remote and privilege shells, container shims.
 */
int
task_is_boundary(const char *comm)
{
	static const char *const names[] = {
		"systemd", "init", "bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "tcsh",
		"csh", "busybox", "sshd", "sshd-session", "tmux: server", "tmux", "screen",
		"SCREEN", "sudo", "su", "login", "containerd-shim", "conmon", "tini",
		"dumb-init", "docker-init", "runc", "crun",
	};
	size_t	 i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcmp(comm, names[i]) == 0)
			return (1);
	}
	return (0);
}

/*
 * The job of process tgid (PROC_ID_OF: its host's bits in, the root's
 * likewise). With --job PIDs (picked, on every host): the nearest of them
 * among tgid and its ancestors, 0 if none. Else its ancestor just below the
 * session: walk up while the parent is known, is not pid 0, 1 or 2 (kernel
 * threads) and is not a boundary (task_is_boundary); a process the tree
 * does not know is its own job.
 */
uint32_t
task_job_root(const struct task_table *t, uint32_t tgid, const uint32_t *picked,
    unsigned npicked)
{
	uint32_t	 cur = tgid, ppid;
	const char	*comm;
	unsigned	 d, i;

	for (d = 0; d < JOB_MAX_DEPTH; d++) {
		for (i = 0; i < npicked; i++) {
			if (picked[i] == PROC_ID_PID(cur))
				return (cur);
		}
		if (!task_find(t, cur, &ppid, &comm) || PROC_ID_PID(ppid) <= 2 || ppid == cur)
			break;
		if (npicked == 0) {
			const char	*pcomm;
			uint32_t	 gp;

			if (!task_find(t, ppid, &gp, &pcomm) || task_is_boundary(pcomm))
				break;
		}
		cur = ppid;
	}
	return (npicked > 0 ? 0 : cur);
}
