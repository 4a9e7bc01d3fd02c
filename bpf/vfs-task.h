/*
 * vfs-task.h: the process tree (EV_TASK): a new process at fork (not a new
 * thread) and a process's exec, with its parent's tgid and its name.
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_TASK_H
#define BLKTOP_VFS_TASK_H

#include "vfs-pages.h"

const volatile bool trace_task = false;	/* the task_* programs are loaded */

/*
 * One record of task p: every process, whatever the filters (a job is a
 * tree, and its members are known before they do I/O). Rare: a fork or an
 * exec costs tens of microseconds, this record well under one.
 */
static __always_inline int task_event(struct task_struct *p, __u32 kind)
{
	struct ev_task *ev;
	__u64 now;

	if (!trace_task)
		return 0;
	if (!(ev = page_reserve(sizeof(*ev), &now)))
		return 0;
	ev->type = EV_TASK;
	ev->tgid = BPF_CORE_READ(p, tgid);
	ev->ts = now;
	ev->start = now;
	ev->ppid = BPF_CORE_READ(p, real_parent, tgid);
	ev->kind = kind;
	bpf_probe_read_kernel_str(ev->comm, sizeof(ev->comm), p->comm);
	bpf_ringbuf_submit(ev, wake_flags(now));
	return 0;
}

/* A fork: a new thread group only (a thread's pid differs from its tgid). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(task_fork, struct task_struct *parent, struct task_struct *child)
{
	if (BPF_CORE_READ(child, pid) != BPF_CORE_READ(child, tgid))
		return 0;
	return task_event(child, TASK_FORK);
}

/* An exec: the process's new name (comm is set before the tracepoint). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(task_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	return task_event(p, TASK_EXEC);
}

#endif
