/* source-live-extras.c: the extra programs of bpf/vfs.bpf.c (page cache, io_uring, libaio, names): which this kernel takes, in groups. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base.h"
#include "sources.h"
#include "source-live.h"

#define LIVE_EXTRAS_NGROUPS	7
static unsigned	 live_extras_on;		/* VFS_PAGES_* of the last plan */
/* Why a group is not on; why the verifier refused one, in its words (kept across loads). */
static char	 live_extras_why_not[LIVE_EXTRAS_NGROUPS][160];
static char	 live_extras_refused_why[LIVE_EXTRAS_NGROUPS][160];

/*
 * The extra programs, loaded beside any variant. A group (VFS_PAGES_*) loads
 * when each of its roles has a program whose tracepoint this kernel has, in
 * the shape the program takes (nargs: the typed tracepoint's arguments; 0,
 * any): a role's programs are alternatives for different kernels, the first
 * that fits is taken, and all a group takes must be of one shape (kind).
 */
static const struct live_extras_prog {
	const char	*prog;		/* program name */
	const char	*tp;		/* its typed tracepoint, or syscalls/NAME */
	unsigned	 bit;		/* VFS_PAGES_* */
	const char	*role;		/* its part in the group */
	int		 nargs;		/* arguments of the typed tracepoint, 0: not checked */
	int		 kind;		/* the group's programs must agree on it */
	int		 needed;	/* the group loads without it if 0 */
	const char	*what;
} live_extras_progs[] = {
	{ "page_dirty", "writeback_dirty_folio", VFS_PAGES_DIRTY, "dirty", 2, 0, 1,
	    "dirtied bytes, writeback charged to the dirtier (folios, 5.18+)" },
	{ "page_dirty_page", "writeback_dirty_page", VFS_PAGES_DIRTY, "dirty", 2, 0, 1,
	    "dirtied bytes, writeback charged to the dirtier (pages, to 5.17)" },
	{ "page_fault", "mm_filemap_fault", VFS_PAGES_FAULT, "fault", 0, 0, 1,
	    "mmap faults per file and process" },
	{ "page_throttle", "writeback/balance_dirty_pages", VFS_PAGES_THROTTLE, "throttle", 0, 0, 1,
	    "dirtiers paused by the kernel (balance_dirty_pages)" },
	{ "uring_submit", "io_uring_submit_req", VFS_PAGES_URING, "submit", 1, 1, 1,
	    "io_uring reads/writes: submission (6.4+)" },
	{ "uring_submit_sqe", "io_uring_submit_sqe", VFS_PAGES_URING, "submit", 2, 1, 1,
	    "io_uring reads/writes: submission (5.19-6.3)" },
	{ "uring_submit_v510", "io_uring_submit_sqe", VFS_PAGES_URING, "submit", 7, 2, 1,
	    "io_uring reads/writes: submission (to 5.18)" },
	{ "uring_complete", "io_uring_complete", VFS_PAGES_URING, "complete", 3, 1, 1,
	    "io_uring reads/writes: completion, file, bytes (6.2+)" },
	{ "uring_complete_v61", "io_uring_complete", VFS_PAGES_URING, "complete", 7, 1, 1,
	    "io_uring reads/writes: completion, file, bytes (5.19-6.1)" },
	{ "uring_complete_v510", "io_uring_complete", VFS_PAGES_URING, "complete", 4, 2, 1,
	    "io_uring reads/writes: completion, file, bytes (to 5.18)" },
	{ "aio_submit", "syscalls/sys_enter_io_submit", VFS_PAGES_AIO, "submit", 0, 0, 1,
	    "libaio: iocbs submitted" },
	{ "aio_getevents_exit", "syscalls/sys_exit_io_getevents", VFS_PAGES_AIO, "reaped", 0, 0, 1,
	    "libaio: reaped (io_getevents)" },
	{ "aio_pgetevents_exit", "syscalls/sys_exit_io_pgetevents", VFS_PAGES_AIO, "preaped", 0, 0, 1,
	    "libaio: reaped (io_pgetevents)" },
	/* Each where the kernel has it (an architecture lacks rename and unlink). */
	{ "names_rename", "syscalls/sys_exit_rename", VFS_PAGES_NAMES, "rename", 0, 0, 0,
	    "paths sent again after a rename" },
	{ "names_renameat", "syscalls/sys_exit_renameat", VFS_PAGES_NAMES, "renameat", 0, 0, 0,
	    "paths sent again after a rename" },
	{ "names_renameat2", "syscalls/sys_exit_renameat2", VFS_PAGES_NAMES, "renameat2", 0, 0, 1,
	    "paths sent again after a rename (needed)" },
	{ "names_unlink", "syscalls/sys_exit_unlink", VFS_PAGES_NAMES, "unlink", 0, 0, 0,
	    "paths sent again after an unlink" },
	{ "names_unlinkat", "syscalls/sys_exit_unlinkat", VFS_PAGES_NAMES, "unlinkat", 0, 0, 1,
	    "paths sent again after an unlink (needed)" },
	{ "task_fork", "sched_process_fork", VFS_PAGES_TASK, "fork", 2, 0, 1,
	    "the process tree: a new process, its parent" },
	{ "task_exec", "sched_process_exec", VFS_PAGES_TASK, "exec", 3, 0, 1,
	    "the process tree: a process's new program name" },
};

/* The groups of extras: their names in the plan, and what they tell. */
static const struct {
	unsigned	 bit;
	const char	*name;
} live_extras_groups[] = {
	{ VFS_PAGES_DIRTY, "dirty" }, { VFS_PAGES_FAULT, "fault" }, { VFS_PAGES_URING, "uring" },
	{ VFS_PAGES_AIO, "aio" }, { VFS_PAGES_NAMES, "names" }, { VFS_PAGES_THROTTLE, "throttle" },
	{ VFS_PAGES_TASK, "task" },
};
_Static_assert(nitems(live_extras_groups) == LIVE_EXTRAS_NGROUPS, "live_extras_groups");

/* A typed tracepoint's arguments (its btf_trace_ typedef's prototype less the context), -1 if none. */
static int
live_extras_tp_nargs(const struct btf *vmlinux, const char *tp)
{
	const struct btf_type	*t;
	char			 name[128];
	int			 id;

	snprintf(name, sizeof name, "btf_trace_%s", tp);
	if (vmlinux == NULL || (id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF)) <= 0)
		return (-1);
	t = btf__type_by_id(vmlinux, id);
	while (t != NULL && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	return (t != NULL && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1);
}

/*
 * Whether the kernel has extra i's tracepoint, in its shape: typed by BTF,
 * classic in tracefs. *why (if not NULL) says why not.
 */
static bool
live_extras_fits(const struct btf *vmlinux, unsigned i, const char **why)
{
	const struct live_extras_prog	*e = &live_extras_progs[i];
	const char			*slash;
	int				 n;

	if ((slash = strchr(e->tp, '/')) != NULL) {
		char	 cat[32];
		size_t	 k = (size_t)(slash - e->tp);

		memcpy(cat, e->tp, k < sizeof cat - 1 ? k : sizeof cat - 1);
		cat[k < sizeof cat - 1 ? k : sizeof cat - 1] = '\0';
		if (why != NULL)
			*why = "not in this kernel";
		return (live_probe_tp_classic(cat, slash + 1));
	}
	n = live_extras_tp_nargs(vmlinux, e->tp);
	if (why != NULL)
		*why = vmlinux == NULL ? "no kernel BTF" : n < 0 ? "not in this kernel" :
		    "another shape in this kernel";
	return (n >= 0 && (e->nargs == 0 || n == e->nargs));
}

/* Whether program i of live_extras_progs is chosen on this kernel (its role's first fit). */
static bool
live_extras_chosen(const struct btf *vmlinux, unsigned i)
{
	unsigned j;

	if (!live_extras_fits(vmlinux, i, NULL))
		return (false);
	for (j = 0; j < i; j++) {
		if (live_extras_progs[j].bit == live_extras_progs[i].bit &&
		    strcmp(live_extras_progs[j].role, live_extras_progs[i].role) == 0 &&
		    live_extras_fits(vmlinux, j, NULL))
			return (false);
	}
	return (true);
}

/* The extra program's index in live_extras_progs, or -1 for the syscall variants' programs. */
int
live_extras_index(const struct bpf_program *prog)
{
	unsigned i;

	for (i = 0; i < nitems(live_extras_progs); i++) {
		if (strcmp(bpf_program__name(prog), live_extras_progs[i].prog) == 0)
			return (i);
	}
	return (-1);
}

/* Group bit's index in live_extras_groups. */
static unsigned
live_extras_group_index(unsigned bit)
{
	unsigned g;

	for (g = 0; g < nitems(live_extras_groups) - 1; g++) {
		if (live_extras_groups[g].bit == bit)
			break;
	}
	return (g);
}

/* Turn a group off: bit, and why (the first reason given sticks). */
static void
live_extras_group_off(unsigned bit, const char *fmt, ...)
{
	char	*why = live_extras_why_not[live_extras_group_index(bit)];
	va_list	 ap;

	live_extras_on &= ~bit;
	if (why[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof live_extras_why_not[0], fmt, ap);
	va_end(ap);
}

/*
 * Turn the extra programs on where the kernel has their tracepoints in their
 * shape (typed ones need BTF) and the helpers they call, one program per
 * role; note why a group is not. Groups the verifier refused on an earlier
 * try (live_extras_refuse) stay off.
 */
static void
live_extras_plan(const struct btf *vmlinux)
{
	unsigned		 i, j, g;
	int			 kind[nitems(live_extras_groups)];
	bool			 found;

	live_extras_on = 0;
	for (g = 0; g < nitems(live_extras_groups); g++) {
		live_extras_on |= live_extras_groups[g].bit;
		kind[g] = 0;
		memcpy(live_extras_why_not[g], live_extras_refused_why[g],
		    sizeof live_extras_why_not[g]);
		if (live_extras_refused_why[g][0] != '\0')
			live_extras_on &= ~live_extras_groups[g].bit;
	}
	/* Each needed role of a group: a program that fits, all of one kind. */
	for (i = 0; i < nitems(live_extras_progs); i++) {
		const char *why = "";

		if (!live_extras_progs[i].needed)
			continue;
		g = live_extras_group_index(live_extras_progs[i].bit);
		found = false;
		for (j = 0; j < nitems(live_extras_progs) && !found; j++) {
			if (live_extras_progs[j].bit != live_extras_progs[i].bit ||
			    strcmp(live_extras_progs[j].role, live_extras_progs[i].role) != 0)
				continue;
			if (live_extras_fits(vmlinux, j, j == i ? &why : NULL)) {
				found = true;
				if (kind[g] != 0 && live_extras_progs[j].kind != kind[g])
					live_extras_group_off(live_extras_progs[i].bit,
					    "tracepoints %s of shapes blktop does not pair",
					    live_extras_progs[i].tp);
				kind[g] = live_extras_progs[j].kind;
			}
		}
		if (!found && (i == 0 || live_extras_progs[i - 1].bit != live_extras_progs[i].bit ||
		    strcmp(live_extras_progs[i - 1].role, live_extras_progs[i].role) != 0))
			live_extras_group_off(live_extras_progs[i].bit, "tracepoint %s: %s",
			    live_extras_progs[i].tp, why);
	}
	/* libaio's programs walk an io_submit's iocbs with bpf_loop. */
	if (live_probe_compat(NULL) ||
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) != 1)
		live_extras_group_off(VFS_PAGES_AIO, "needs the bpf_loop helper (Linux 5.17)");
}

/*
 * Turn the extra programs of obj (the vfs object, opened) of the groups
 * live_extras_plan takes on, the others off; without want, all off.
 */
void
live_extras_select(struct bpf_object *obj, int want)
{
	struct bpf_program	*prog;
	struct btf		*vmlinux;
	unsigned		 i;

	if (!want) {
		bpf_object__for_each_program(prog, obj) {
			if (live_extras_index(prog) >= 0)
				bpf_program__set_autoload(prog, false);
		}
		return;
	}
	vmlinux = btf__load_vmlinux_btf();
	live_extras_plan(vmlinux);
	bpf_object__for_each_program(prog, obj) {
		if ((i = live_extras_index(prog)) != (unsigned)-1)
			bpf_program__set_autoload(prog,
			    (live_extras_on & live_extras_progs[i].bit) != 0 &&
			    live_extras_chosen(vmlinux, i));
	}
	btf__free(vmlinux);
}

/* The groups (VFS_PAGES_*) the last plan took, of a load or a probe. */
unsigned
live_extras_planned(void)
{
	return (live_extras_on);
}

/* Forget the last plan (the programs are unloaded). */
void
live_extras_clear(void)
{
	live_extras_on = 0;
}

/* --probe: the extra programs, each by its tracepoint, and the groups that work. */
void
live_extras_probe(FILE *fp)
{
	struct btf	*vmlinux = btf__load_vmlinux_btf();
	unsigned	 i;

	for (i = 0; i < nitems(live_extras_progs); i++) {
		const char	*why;
		bool		 ok = live_extras_fits(vmlinux, i, &why);
		bool		 classic = strchr(live_extras_progs[i].tp, '/') != NULL;

		fprintf(fp, "extra: %-11s%-33s %-58s %s%s\n", classic ? "tracepoint/" : "tp_btf/",
		    live_extras_progs[i].tp, live_extras_progs[i].what,
		    ok ? "available" : "unavailable: ", ok ? "" : why);
	}
	live_extras_plan(vmlinux);
	for (i = 0; i < nitems(live_extras_groups); i++)
		fprintf(fp, "feature: %-8s %s%s\n", live_extras_groups[i].name,
		    (live_extras_on & live_extras_groups[i].bit) ? "works" : "n/a: ",
		    live_extras_why_not[i]);
	btf__free(vmlinux);
}

/* Why group bit is not loaded (by the last load or probe), or "". */
const char *
live_extras_why(unsigned bit)
{
	return (live_extras_why_not[live_extras_group_index(bit)]);
}

/* BLKTOP_VFS_REFUSE=NAME (a group) has it left out as if refused, to test the degraded plan. */
void
live_extras_refuse_env(void)
{
	const char	*refuse = getenv("BLKTOP_VFS_REFUSE");
	unsigned	 g;

	for (g = 0; g < nitems(live_extras_groups); g++) {
		if (refuse != NULL && strcmp(refuse, live_extras_groups[g].name) == 0)
			snprintf(live_extras_refused_why[g], sizeof live_extras_refused_why[g],
			    "left out by BLKTOP_VFS_REFUSE");
	}
}

/*
 * The verifier refused program prog (its last words: line, or ""): its group
 * stays out of the plans from now on. Returns why, or NULL if prog is not an
 * extra program (one of the variant's own) or its group was refused already.
 */
const char *
live_extras_refuse(const char *prog, const char *line)
{
	unsigned	 i, g;

	for (i = 0; i < nitems(live_extras_progs); i++) {
		if (strcmp(live_extras_progs[i].prog, prog) == 0)
			break;
	}
	if (i == nitems(live_extras_progs))
		return (NULL);
	g = live_extras_group_index(live_extras_progs[i].bit);
	if (live_extras_refused_why[g][0] != '\0')
		return (NULL);
	snprintf(live_extras_refused_why[g], sizeof live_extras_refused_why[g],
	    "refused by this kernel's verifier (%s: %.80s)", prog,
	    line[0] != '\0' ? line : "no log");
	return (live_extras_refused_why[g]);
}
