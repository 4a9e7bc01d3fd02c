/* source-live-vfs.c: loads bpf/vfs.bpf.c for the live source: probes the hook variants, sets filters, attaches one. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "blktop.h"
#include "vfs.skel.h"
#include "vfs.compat.skel.h"

/* One way of hooking opens and reads/writes, in order of preference. */
struct live_vfs_variant {
	const char	*name;
	const char	*what;
	const char	*prefix[2];	/* section name prefixes of its programs */
};

/*
 * Preference, measured on 6.18 with test-vfs --bench (interleaved rounds,
 * medians): per traced 4 KiB read() the three syscall variants cost the same
 * within noise (~2.3-2.6 us, most of it the path walk and the ring buffer);
 * but tp_btf/raw_tp run on every syscall of every process (~160-190 ns added
 * to an untraced getppid()), the per-syscall tracepoints only on ours (~40-75
 * ns). So: classic tracepoints when tracefs is mounted, then tp_btf, raw_tp.
 */
static const struct live_vfs_variant live_vfs_variants[VFS_HOOK_MAX] = {
	[VFS_HOOK_TP_BTF] = { "tp_btf", "tp_btf/sys_enter + sys_exit, dispatch on syscall id",
	    { "tp_btf/", NULL } },
	[VFS_HOOK_RAW_TP] = { "raw_tp", "raw_tp/sys_enter + sys_exit, dispatch on syscall id",
	    { "raw_tp/", NULL } },
	[VFS_HOOK_TRACEPOINT] = { "tracepoint",
	    "syscalls/sys_{enter,exit}_{open*,creat,*read*,*write*,sendfile64,splice,copy_file_range}",
	    { "tracepoint/", NULL } },
	[VFS_HOOK_FENTRY] = { "fentry", "fentry/fexit vfs_read, vfs_write, fexit do_filp_open",
	    { "fentry/", "fexit/" } },
};

static struct vfs_bpf		*live_vfs_skel;
static int			 live_vfs_chosen = -1;
static uint64_t			 live_vfs_wakeup_ns;	/* a batch is kept this long at most */
static struct cost_batch	 live_vfs_batch;	/* its per-CPU batches */
static void			 live_vfs_batch_start(void);
static bool			 live_vfs_debug;
static int			 live_vfs_avail[VFS_HOOK_MAX];	/* 0 not probed, 1 yes, -1 not */
static char			 live_vfs_why[VFS_HOOK_MAX][128];
static char			 live_vfs_err[256];
static unsigned			 live_vfs_pages;		/* VFS_PAGES_* loaded */
#define LIVE_VFS_NGROUPS	5
/* Why a group of live_vfs_groups is not; why the verifier refused one, in its words. */
static char			 live_vfs_group_why[LIVE_VFS_NGROUPS][160];
static char			 live_vfs_refused_why[LIVE_VFS_NGROUPS][160];
static char			 live_vfs_failed_prog[64];	/* libbpf said it failed to load */
static char			 live_vfs_failed_line[128];	/* the verifier's last words */

/*
 * The extra programs, loaded beside any variant. A group (VFS_PAGES_*) loads
 * when each of its roles has a program whose tracepoint this kernel has, in
 * the shape the program takes (nargs: the typed tracepoint's arguments; 0,
 * any): a role's programs are alternatives for different kernels, the first
 * that fits is taken, and all a group takes must be of one shape (kind).
 */
static const struct live_vfs_extra {
	const char	*prog;		/* program name */
	const char	*tp;		/* its typed tracepoint, or syscalls/NAME */
	unsigned	 bit;		/* VFS_PAGES_* */
	const char	*role;		/* its part in the group */
	int		 nargs;		/* arguments of the typed tracepoint, 0: not checked */
	int		 kind;		/* the group's programs must agree on it */
	int		 needed;	/* the group loads without it if 0 */
	const char	*what;
} live_vfs_extras[] = {
	{ "page_dirty", "writeback_dirty_folio", VFS_PAGES_DIRTY, "dirty", 2, 0, 1,
	    "dirtied bytes, writeback charged to the dirtier (folios, 5.18+)" },
	{ "page_dirty_page", "writeback_dirty_page", VFS_PAGES_DIRTY, "dirty", 2, 0, 1,
	    "dirtied bytes, writeback charged to the dirtier (pages, to 5.17)" },
	{ "page_fault", "mm_filemap_fault", VFS_PAGES_FAULT, "fault", 0, 0, 1,
	    "mmap faults per file and process" },
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
};

/* The groups of extras: their names in the plan, and what they tell. */
static const struct {
	unsigned	 bit;
	const char	*name;
} live_vfs_groups[] = {
	{ VFS_PAGES_DIRTY, "dirty" }, { VFS_PAGES_FAULT, "fault" }, { VFS_PAGES_URING, "uring" },
	{ VFS_PAGES_AIO, "aio" }, { VFS_PAGES_NAMES, "names" },
};
_Static_assert(nitems(live_vfs_groups) == LIVE_VFS_NGROUPS, "live_vfs_groups");

/* The arguments of a typed tracepoint (its btf_trace_ typedef's prototype less the context), -1 if none. */
static int
live_vfs_tp_nargs(const struct btf *vmlinux, const char *tp)
{
	const struct btf_type	*t;
	char			 name[128];
	int			 id;

	snprintf(name, sizeof name, "btf_trace_%s", tp);
	if (vmlinux == NULL || (id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF)) <= 0)
		return -1;
	t = btf__type_by_id(vmlinux, id);
	while (t != NULL && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	return t != NULL && btf_is_func_proto(t) ? btf_vlen(t) - 1 : -1;
}

/*
 * Whether the kernel has extra i's tracepoint, in its shape: typed by BTF,
 * classic in tracefs. *why (if not NULL) says why not.
 */
static bool
live_vfs_extra_fits(const struct btf *vmlinux, unsigned i, const char **why)
{
	const struct live_vfs_extra	*e = &live_vfs_extras[i];
	int			 n;

	if (strncmp(e->tp, "syscalls/", 9) == 0) {
		if (why != NULL)
			*why = "not in this kernel";
		return live_probe_tp_classic("syscalls", e->tp + 9);
	}
	n = live_vfs_tp_nargs(vmlinux, e->tp);
	if (why != NULL)
		*why = vmlinux == NULL ? "no kernel BTF" : n < 0 ? "not in this kernel" :
		    "another shape in this kernel";
	return n >= 0 && (e->nargs == 0 || n == e->nargs);
}

/* Whether program i of live_vfs_extras is chosen on this kernel (its role's first fit). */
static bool
live_vfs_extra_chosen(const struct btf *vmlinux, unsigned i)
{
	unsigned j;

	if (!live_vfs_extra_fits(vmlinux, i, NULL))
		return false;
	for (j = 0; j < i; j++) {
		if (live_vfs_extras[j].bit == live_vfs_extras[i].bit &&
		    strcmp(live_vfs_extras[j].role, live_vfs_extras[i].role) == 0 &&
		    live_vfs_extra_fits(vmlinux, j, NULL))
			return false;
	}
	return true;
}

/*
 * Note which program libbpf says failed to load, and the verifier's last
 * words on it (the line before its "processed N insns"), so that the load
 * can be tried again without that program's group.
 */
static void
live_vfs_note_failure(const char *msg)
{
	const char	*p, *end, *line;
	size_t		 n;

	if ((p = strstr(msg, "prog '")) != NULL && strstr(p, "': BPF program load failed") != NULL &&
	    (n = strcspn(p + 6, "'")) < sizeof live_vfs_failed_prog) {
		memcpy(live_vfs_failed_prog, p + 6, n);
		live_vfs_failed_prog[n] = '\0';
		live_vfs_failed_line[0] = '\0';
	}
	if ((end = strstr(msg, "\nprocessed ")) == NULL)
		return;
	for (line = end; line > msg && line[-1] != '\n'; line--)
		;
	n = (size_t)(end - line);
	snprintf(live_vfs_failed_line, sizeof live_vfs_failed_line, "%.*s", (int)n, line);
}

/* libbpf messages go to stderr only in debug mode; a load failure is noted. */
static int
live_vfs_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char	*msg = NULL;
	va_list	 aq;
	int	 n;

	if (level == LIBBPF_DEBUG)
		return 0;
	va_copy(aq, ap);
	if (vasprintf(&msg, fmt, aq) >= 0) {
		live_vfs_note_failure(msg);
		n = live_vfs_debug ? fputs(msg, stderr) : 0;
		free(msg);
	} else
		n = 0;
	va_end(aq);
	return n;
}

/* Whether a program (by section name) belongs to variant v. */
static bool
live_vfs_prog_in(const struct bpf_program *prog, int v)
{
	const char	*sec = bpf_program__section_name(prog);
	unsigned	 i;

	for (i = 0; i < nitems(live_vfs_variants[v].prefix); i++) {
		const char *p = live_vfs_variants[v].prefix[i];

		if (p != NULL && strncmp(sec, p, strlen(p)) == 0)
			return true;
	}
	return false;
}

/* The extra program's index in live_vfs_extras, or -1 for the syscall variants' programs. */
static int
live_vfs_page_prog(const struct bpf_program *prog)
{
	unsigned i;

	for (i = 0; i < nitems(live_vfs_extras); i++) {
		if (strcmp(bpf_program__name(prog), live_vfs_extras[i].prog) == 0)
			return i;
	}
	return -1;
}

/* Group bit's index in live_vfs_groups. */
static unsigned
live_vfs_group_index(unsigned bit)
{
	unsigned g;

	for (g = 0; g < nitems(live_vfs_groups) - 1; g++) {
		if (live_vfs_groups[g].bit == bit)
			break;
	}
	return g;
}

/* Turn a group off: bit, and why (the first reason given sticks). */
static void
live_vfs_group_off(unsigned bit, const char *fmt, ...)
{
	char	*why = live_vfs_group_why[live_vfs_group_index(bit)];
	va_list	 ap;

	live_vfs_pages &= ~bit;
	if (why[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof live_vfs_group_why[0], fmt, ap);
	va_end(ap);
}

/*
 * Turn the extra programs on where the kernel has their tracepoints in their
 * shape (typed ones need BTF) and the helpers they call, one program per
 * role; note why a group is not. Groups the verifier refused on an earlier
 * try (vfs_refused) stay off.
 */
static void
live_vfs_plan_pages(const struct btf *vmlinux)
{
	unsigned		 i, j, g;
	int			 kind[nitems(live_vfs_groups)];
	bool			 found;

	live_vfs_pages = 0;
	for (g = 0; g < nitems(live_vfs_groups); g++) {
		live_vfs_pages |= live_vfs_groups[g].bit;
		kind[g] = 0;
		memcpy(live_vfs_group_why[g], live_vfs_refused_why[g],
		    sizeof live_vfs_group_why[g]);
		if (live_vfs_refused_why[g][0] != '\0')
			live_vfs_pages &= ~live_vfs_groups[g].bit;
	}
	/* Each needed role of a group: a program that fits, all of one kind. */
	for (i = 0; i < nitems(live_vfs_extras); i++) {
		const char *why = "";

		if (!live_vfs_extras[i].needed)
			continue;
		g = live_vfs_group_index(live_vfs_extras[i].bit);
		found = false;
		for (j = 0; j < nitems(live_vfs_extras) && !found; j++) {
			if (live_vfs_extras[j].bit != live_vfs_extras[i].bit ||
			    strcmp(live_vfs_extras[j].role, live_vfs_extras[i].role) != 0)
				continue;
			if (live_vfs_extra_fits(vmlinux, j, j == i ? &why : NULL)) {
				found = true;
				if (kind[g] != 0 && live_vfs_extras[j].kind != kind[g])
					live_vfs_group_off(live_vfs_extras[i].bit,
					    "tracepoints %s of shapes blktop does not pair",
					    live_vfs_extras[i].tp);
				kind[g] = live_vfs_extras[j].kind;
			}
		}
		if (!found && (i == 0 || live_vfs_extras[i - 1].bit != live_vfs_extras[i].bit ||
		    strcmp(live_vfs_extras[i - 1].role, live_vfs_extras[i].role) != 0))
			live_vfs_group_off(live_vfs_extras[i].bit, "tracepoint %s: %s",
			    live_vfs_extras[i].tp, why);
	}
	/* libaio's programs walk an io_submit's iocbs with bpf_loop. */
	if (live_probe_compat(NULL) ||
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) != 1)
		live_vfs_group_off(VFS_PAGES_AIO, "needs the bpf_loop helper (Linux 5.17)");
}

/* Turn the extra programs of the groups live_vfs_plan_pages takes on, the others off. */
static void
live_vfs_select_pages(struct vfs_bpf *skel, bool want)
{
	struct bpf_program	*prog;
	struct btf		*vmlinux;
	unsigned		 i;

	if (!want) {
		bpf_object__for_each_program(prog, skel->obj) {
			if (live_vfs_page_prog(prog) >= 0)
				bpf_program__set_autoload(prog, false);
		}
		return;
	}
	vmlinux = btf__load_vmlinux_btf();
	live_vfs_plan_pages(vmlinux);
	bpf_object__for_each_program(prog, skel->obj) {
		if ((i = live_vfs_page_prog(prog)) != (unsigned)-1)
			bpf_program__set_autoload(prog,
			    (live_vfs_pages & live_vfs_extras[i].bit) != 0 &&
			    live_vfs_extra_chosen(vmlinux, i));
	}
	skel->rodata->trace_pages = (live_vfs_pages & (VFS_PAGES_DIRTY | VFS_PAGES_FAULT)) != 0;
	skel->rodata->trace_uring = (live_vfs_pages & VFS_PAGES_URING) != 0;
	skel->rodata->trace_aio = (live_vfs_pages & VFS_PAGES_AIO) != 0;
	btf__free(vmlinux);
}

/* Whether a program is one of the opens or a lifecycle call (else: read/write family). */
static bool
live_vfs_prog_is_open(const struct bpf_program *prog)
{
	static const char	*names[] = { "open", "creat", "close", "mmap", "unlink",
				    "rename", "mkdir", "rmdir", "mknod" };
	const char		*sec = bpf_program__section_name(prog);
	unsigned		 i;

	for (i = 0; i < nitems(names); i++) {
		if (strstr(sec, names[i]) != NULL)
			return true;
	}
	return false;
}

/*
 * Enable exactly the programs of variant v (minus a group turned off, and
 * classic tracepoints this kernel lacks); returns how many.
 */
static int
live_vfs_select(struct vfs_bpf *skel, int v, bool opens, bool rw)
{
	struct bpf_program	*prog;
	int			 n = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		bool on = live_vfs_prog_in(prog, v);

		if (live_vfs_page_prog(prog) >= 0)
			continue;	/* live_vfs_select_pages */
		if (prog == skel->progs.vfs_batch_flush) {
			bpf_program__set_autoload(prog, true);	/* run by live_vfs_batch_flush */
			continue;
		}
		if (on && v != VFS_HOOK_TP_BTF && v != VFS_HOOK_RAW_TP) {
			if (live_vfs_prog_is_open(prog) ? !opens : !rw)
				on = false;
		}
		if (on && v == VFS_HOOK_TRACEPOINT) {
			const char *sec = bpf_program__section_name(prog);

			on = live_probe_tp_classic("syscalls",
			    sec + strlen("tracepoint/syscalls/"));
		}
		bpf_program__set_autoload(prog, on);
		n += on;
	}
	return n;
}

/* --probe: the page-cache hooks, each by its typed tracepoint. */
static void
live_vfs_probe_pages(FILE *fp)
{
	struct btf	*vmlinux = btf__load_vmlinux_btf();
	unsigned	 i;

	for (i = 0; i < nitems(live_vfs_extras); i++) {
		const char	*why;
		bool		 ok = live_vfs_extra_fits(vmlinux, i, &why);
		bool		 classic = strncmp(live_vfs_extras[i].tp, "syscalls/", 9) == 0;

		fprintf(fp, "extra: %-11s%-33s %-58s %s%s\n", classic ? "tracepoint/" : "tp_btf/",
		    live_vfs_extras[i].tp, live_vfs_extras[i].what,
		    ok ? "available" : "unavailable: ", ok ? "" : why);
	}
	live_vfs_plan_pages(vmlinux);
	for (i = 0; i < nitems(live_vfs_groups); i++)
		fprintf(fp, "feature: %-8s %s%s\n", live_vfs_groups[i].name,
		    (live_vfs_pages & live_vfs_groups[i].bit) ? "works" : "n/a: ",
		    live_vfs_group_why[i]);
	fprintf(fp, "feature: %-8s %s\n", "munmap", live_vfs_have_munmap() ? "works" :
	    "n/a: needs the bpf_find_vma helper (Linux 5.17)");
	btf__free(vmlinux);
}

/* The vfs object, opened on the build this kernel takes (live_probe_compat). */
static struct vfs_bpf *
live_vfs_open(void)
{
	struct vfs_bpf	*obj = xcalloc(1, sizeof *obj);
	const void	*compat;
	size_t		 sz;
	int		 err;

	compat = vfs_compat__elf_bytes(&sz);
	if ((err = vfs_bpf__create_skeleton(obj)) != 0 ||
	    (err = live_probe_open_skeleton(obj->skeleton, compat, sz)) != 0) {
		vfs_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/* Detach (all links at once) and free a skeleton; NULL is fine. */
static void
live_vfs_destroy(struct vfs_bpf *skel)
{
	if (skel == NULL)
		return;
	live_links_destroy(skel->skeleton);
	vfs_bpf__destroy(skel);
}

/* Attach the autoloaded programs; the skeleton keeps the links. */
static int
live_vfs_attach(struct vfs_bpf *skel)
{
	return vfs_bpf__attach(skel);
}

/* Whether variant v can be tried at all without loading it; else fill live_vfs_why. */
static bool
live_vfs_possible(int v)
{
	if (v == VFS_HOOK_TRACEPOINT && !live_probe_tp_classic("syscalls", "sys_enter_openat")) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]),
		    "no %s/events/syscalls (mount -t tracefs nodev /sys/kernel/tracing, "
		    "or no CONFIG_FTRACE_SYSCALLS)", live_probe_tracefs());
		return false;
	}
	return true;
}

/* Try to load and attach variant v into a throwaway object; fill live_vfs_why. */
static int
live_vfs_probe_one(int v)
{
	struct vfs_bpf	*skel;
	int		 error;

	if (!live_vfs_possible(v))
		return 0;
	skel = live_vfs_open();
	if (skel == NULL) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "open: %s", strerror(errno));
		return 0;
	}
	bpf_map__set_max_entries(skel->maps.events, 4096);
	live_vfs_select_pages(skel, false);
	live_vfs_select(skel, v, true, true);
	error = vfs_bpf__load(skel);
	if (error != 0) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "load: %s", strerror(-error));
		live_vfs_destroy(skel);
		return 0;
	}
	error = live_vfs_attach(skel);
	if (error != 0) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "attach: %s", strerror(-error));
		live_vfs_destroy(skel);
		return 0;
	}
	live_vfs_destroy(skel);
	snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "available");
	return 1;
}

/* BLKTOP_DEBUG set and not "0": show the libbpf log. */
static bool
live_vfs_env_debug(void)
{
	const char	*dbg = getenv("BLKTOP_DEBUG");

	return dbg != NULL && *dbg != '\0' && strcmp(dbg, "0") != 0;
}

/*
 * Whether variant v loads and attaches, probed on first ask: a start probes
 * only up to the variant it takes (each probe loads and attaches, ~1 s for the
 * classic tracepoints), --probe all of them.
 */
static bool
live_vfs_probe_v(int v)
{
	libbpf_print_fn_t	 old;

	if (live_vfs_avail[v] == 0) {
		live_vfs_debug |= live_vfs_env_debug();
		old = libbpf_set_print(live_vfs_libbpf_print);
		live_vfs_avail[v] = live_vfs_probe_one(v) ? 1 : -1;
		libbpf_set_print(old);
	}
	return live_vfs_avail[v] == 1;
}

/* Name to variant index, -1 if unknown. */
int
live_vfs_hook_lookup(const char *name)
{
	int v;

	for (v = 0; v < VFS_HOOK_MAX; v++) {
		if (strcmp(name, live_vfs_variants[v].name) == 0)
			return v;
	}
	return -1;
}

/* Variant v's name. */
const char *
live_vfs_hook_name(int v)
{
	if (v < 0 || v >= VFS_HOOK_MAX)
		return "none";
	return live_vfs_variants[v].name;
}

/*
 * The variant forced by force or BLKTOP_VFS_HOOK: its index, -2 if none is
 * forced ("auto" or unset), -1 with live_vfs_err set if the name is unknown.
 */
static int
live_vfs_forced(const char *force)
{
	int v;

	if (force == NULL || *force == '\0')
		force = getenv("BLKTOP_VFS_HOOK");
	if (force == NULL || *force == '\0' || strcmp(force, "auto") == 0)
		return -2;
	if ((v = live_vfs_hook_lookup(force)) < 0)
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: unknown hook '%.32s' (tp_btf, raw_tp, tracepoint, fentry)", force);
	return v;
}

/* Set live_vfs_err: forced variant v is unavailable, and why. Returns live_vfs_err. */
static const char *
live_vfs_fail_unavailable(int v)
{
	snprintf(live_vfs_err, sizeof(live_vfs_err), "vfs: hook %s unavailable: %.127s",
	    live_vfs_variants[v].name, live_vfs_why[v]);
	return live_vfs_err;
}

/* Set live_vfs_err: no variant loads (with why the first did not). Returns live_vfs_err. */
static const char *
live_vfs_fail_none(void)
{
	snprintf(live_vfs_err, sizeof(live_vfs_err),
	    "vfs: no hook variant loads on this kernel (%s: %s)",
	    live_vfs_variants[0].name, live_vfs_why[0]);
	return live_vfs_err;
}

/* The first available variant, honouring BLKTOP_VFS_HOOK / force; -1 with live_vfs_err set. */
static int
live_vfs_choose(const char *force)
{
	int v;

	if ((v = live_vfs_forced(force)) == -1)
		return -1;
	if (v >= 0) {
		if (!live_vfs_probe_v(v)) {
			live_vfs_fail_unavailable(v);
			return -1;
		}
		return v;
	}
	for (v = 0; v < VFS_HOOK_MAX; v++) {
		if (live_vfs_probe_v(v))
			return v;
	}
	live_vfs_fail_none();
	return -1;
}

/* Print one line per variant, and the plan, for blktop --probe. */
void
live_vfs_probe(FILE *fp)
{
	int v, chosen;

	chosen = live_vfs_choose(NULL);
	for (v = 0; v < VFS_HOOK_MAX; v++) {
		bool ok = live_vfs_probe_v(v);

		fprintf(fp, "vfs: %-10s %-56s %s%s\n",
		    live_vfs_variants[v].name, live_vfs_variants[v].what,
		    ok ? "available" : "unavailable: ", ok ? (v == chosen ? " (chosen)" : "") :
		    live_vfs_why[v]);
	}
	if (chosen < 0)
		fprintf(fp, "%s\n", live_vfs_err);
	live_vfs_probe_pages(fp);
}

/* Load, configure and attach variant v; NULL on success, else live_vfs_err, and nothing loaded. */
static const char *
live_vfs_load_one(int v, int events_fd, int counters_fd, const struct live_vfs_opts *o)
{
	libbpf_print_fn_t		 old;
	struct vfs_bpf			*skel;
	unsigned			 i;
	int				 error;
	uint8_t				 one = 1;

	old = libbpf_set_print(live_vfs_libbpf_print);
	skel = live_vfs_open();
	if (skel == NULL) {
		snprintf(live_vfs_err, sizeof(live_vfs_err), "vfs: cannot open the BPF object: %s",
		    strerror(errno));
		goto fail;
	}
	skel->rodata->trace_open = !o->no_open;
	skel->rodata->trace_rw = !o->no_rw;
	skel->rodata->trace_life = !o->no_open;
	skel->rodata->include_all = o->all_files != 0;
	skel->rodata->filter_tgid = o->ntgids > 0;
	skel->rodata->filter_cgroup = o->cgroup;
	skel->rodata->self_tgid = getpid();
	skel->rodata->wakeup_ns = o->wakeup_ns;
	skel->rodata->batch_age_ns = o->wakeup_ns;
	skel->rodata->ncomms = o->ncomms;
	for (i = 0; i < o->ncomms; i++) {
		char c[BLKTOP_COMM_LEN] = { 0 };

		strncpy(c, o->comms[i], sizeof(c) - 1);	/* the kernel's comm is cut to 15 too */
		memcpy((void *)skel->rodata->comms[i], c, sizeof(c));
	}

	if (events_fd >= 0 && (error = bpf_map__reuse_fd(skel->maps.events, events_fd)) != 0) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: cannot share the events ring buffer: %s", strerror(-error));
		goto fail;
	}
	if (counters_fd >= 0 &&
	    (error = bpf_map__reuse_fd(skel->maps.counters, counters_fd)) != 0) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: cannot share the counters map: %s", strerror(-error));
		goto fail;
	}
	live_vfs_select_pages(skel, !o->no_pages);
	/* Without the names programs, every call walks its path. */
	skel->rodata->path_cache = live_paths_on() && !o->no_pages &&
	    (live_vfs_pages & VFS_PAGES_NAMES) != 0;
	if (live_vfs_select(skel, v, !o->no_open, !o->no_rw) == 0) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: hook %s has no program for this kernel", live_vfs_variants[v].name);
		goto fail;
	}
	if ((error = vfs_bpf__load(skel)) != 0) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: cannot load the %s programs: %s%s",
		    live_vfs_variants[v].name, strerror(-error),
		    live_vfs_debug ? "" : " (BLKTOP_DEBUG=1 shows the libbpf log)");
		goto fail;
	}
	for (i = 0; i < o->ntgids; i++) {
		if (bpf_map__update_elem(skel->maps.vfs_tgids, &o->tgids[i], sizeof(o->tgids[i]),
		    &one, sizeof(one), BPF_ANY) != 0) {
			snprintf(live_vfs_err, sizeof(live_vfs_err),
			    "vfs: cannot set the -p filter: %s", strerror(errno));
			goto fail;
		}
	}
	if ((error = live_vfs_attach(skel)) != 0) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: cannot attach the %s programs: %s",
		    live_vfs_variants[v].name, strerror(-error));
		goto fail;
	}
	libbpf_set_print(old);
	live_vfs_skel = skel;
	live_vfs_chosen = v;
	live_vfs_wakeup_ns = o->wakeup_ns;
	live_vfs_batch_start();
	return NULL;

fail:
	live_vfs_destroy(skel);
	libbpf_set_print(old);
	return live_vfs_err;
}

/*
 * live_vfs_load_one, tried again without an extra group the verifier refused: one
 * refused program leaves its group out, with the verifier's words as the
 * reason, never the object. BLKTOP_VFS_REFUSE=NAME (a group) has it left out
 * as if refused, to test the degraded plan.
 */
static const char *
live_vfs_load_tries(int v, int events_fd, int counters_fd, const struct live_vfs_opts *o)
{
	const char	*err, *refuse = getenv("BLKTOP_VFS_REFUSE");
	unsigned	 tries, g;
	int		 i;

	for (g = 0; g < nitems(live_vfs_groups); g++) {
		if (refuse != NULL && strcmp(refuse, live_vfs_groups[g].name) == 0)
			snprintf(live_vfs_refused_why[g], sizeof live_vfs_refused_why[g],
			    "left out by BLKTOP_VFS_REFUSE");
	}
	for (tries = 0; ; tries++) {
		live_vfs_failed_prog[0] = '\0';
		if ((err = live_vfs_load_one(v, events_fd, counters_fd, o)) == NULL)
			return NULL;
		if (tries >= nitems(live_vfs_groups) || live_vfs_failed_prog[0] == '\0')
			return err;
		for (i = 0; i < (int)nitems(live_vfs_extras); i++) {
			if (strcmp(live_vfs_extras[i].prog, live_vfs_failed_prog) == 0)
				break;
		}
		if (i == (int)nitems(live_vfs_extras))
			return err;	/* a program of the variant itself */
		g = live_vfs_group_index(live_vfs_extras[i].bit);
		if (live_vfs_refused_why[g][0] != '\0')
			return err;
		snprintf(live_vfs_refused_why[g], sizeof live_vfs_refused_why[g],
		    "refused by this kernel's verifier (%s: %.80s)", live_vfs_failed_prog,
		    live_vfs_failed_line[0] != '\0' ? live_vfs_failed_line : "no log");
		if (live_vfs_debug)
			fprintf(stderr, "vfs: %s; trying without it\n", live_vfs_refused_why[g]);
	}
}

/* Load, configure and attach; NULL on success, else a one-line error. */
static const char *
live_vfs_load_any(int events_fd, int counters_fd, const struct live_vfs_opts *o)
{
	static const struct live_vfs_opts	 defaults;
	const char			*err;
	int				 v;

	if (o == NULL)
		o = &defaults;
	if (live_vfs_skel != NULL)
		return "vfs: already loaded";
	live_vfs_debug = o->debug || live_vfs_env_debug();
	if (o->ncomms > FILTER_MAX_COMMS) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: at most %d -c filters", FILTER_MAX_COMMS);
		return live_vfs_err;
	}
	if (o->ntgids > VFS_MAX_TGIDS) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: at most %d -p filters", VFS_MAX_TGIDS);
		return live_vfs_err;
	}
	if (o->no_open && o->no_rw)
		return "vfs: nothing to trace";

	/*
	 * The forced variant, or the first that loads, tried for real rather
	 * than probed first: a probe is a whole load and attach (~1 s for the
	 * 28 classic tracepoint programs), and a start needs only the one it keeps.
	 */
	if ((v = live_vfs_forced(o->hook)) == -1)
		return live_vfs_err;
	if (v >= 0) {
		if (!live_vfs_possible(v))
			return live_vfs_fail_unavailable(v);
		return live_vfs_load_tries(v, events_fd, counters_fd, o);
	}
	for (v = 0; v < VFS_HOOK_MAX; v++) {
		if (live_vfs_avail[v] == -1)
			continue;
		if (!live_vfs_possible(v)) {
			live_vfs_avail[v] = -1;
			continue;
		}
		if ((err = live_vfs_load_tries(v, events_fd, counters_fd, o)) == NULL) {
			live_vfs_avail[v] = 1;
			return NULL;
		}
		live_vfs_avail[v] = -1;
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "%.120s", err);
	}
	return live_vfs_fail_none();
}

/* Loaded or not, the object's ELF bytes are read no more: their pages go. */
static void
live_vfs_forget_elf(void)
{
	const void	*data;
	size_t		 sz;

	data = vfs_bpf__elf_bytes(&sz);
	live_probe_forget_elf(data, sz);
	data = vfs_compat__elf_bytes(&sz);
	live_probe_forget_elf(data, sz);
}

/* Load, configure and attach the programs; -1 and *errp (one line) if none would. */
int
live_vfs_load(int events_fd, int counters_fd, const struct live_vfs_opts *o, char **errp)
{
	const char	*err;

	*errp = NULL;
	live_paths_start();
	err = live_vfs_load_any(events_fd, counters_fd, o);
	live_vfs_forget_elf();
	if (err == NULL)
		return 0;
	live_paths_stop();
	*errp = xstrdup(err);
	return -1;
}

/* The variant attached by live_vfs_load, or "none". */
const char *
live_vfs_hook(void)
{
	return live_vfs_hook_name(live_vfs_skel != NULL ? live_vfs_chosen : -1);
}

/* The extra groups loaded (VFS_PAGES_*). */
unsigned
live_vfs_pages_loaded(void)
{
	return live_vfs_skel != NULL ? live_vfs_pages : 0;
}

/* Why group bit is not loaded (by the last load or probe), or "". */
const char *
live_vfs_pages_why(unsigned bit)
{
	return live_vfs_group_why[live_vfs_group_index(bit)];
}

/* Whether munmaps can be traced: the file mapped at an address needs bpf_find_vma (5.17). */
int
live_vfs_have_munmap(void)
{
	return !live_probe_compat(NULL) &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_find_vma, NULL) == 1;
}

/* Turn the per-CPU batches of read/write records on where they can be sent (cost_batch_start). */
static void
live_vfs_batch_start(void)
{
	if (live_vfs_skel->bss != NULL && cost_batch_start(&live_vfs_batch,
	    bpf_program__fd(live_vfs_skel->progs.vfs_batch_flush),
	    bpf_map__fd(live_vfs_skel->maps.batch_ts), live_vfs_wakeup_ns))
		live_vfs_skel->bss->batch_on = 1;
}

/* Send the batches waiting (all with force). */
void
live_vfs_batch_flush(int force)
{
	if (live_vfs_skel != NULL)
		cost_batch_flush(&live_vfs_batch, force);
}

/* Calls not traced because the in-flight table was full (summed over CPUs). */
uint64_t
live_vfs_inflight_full(void)
{
	if (live_vfs_skel == NULL)
		return 0;
	return cost_percpu_sum(bpf_map__fd(live_vfs_skel->maps.vfs_counters), 0);
}

/* Add what the loaded programs cost to *st. */
void
live_vfs_cost(struct prog_cost *st)
{
	if (live_vfs_skel != NULL)
		cost_add_object(live_vfs_skel->obj, st);
	live_paths_cost(st);
}

/* Every path cached in the kernel is stale: the next record of each file is sent whole. */
void
live_vfs_paths_stale(void)
{
	if (live_vfs_skel != NULL && live_vfs_skel->data != NULL)
		live_vfs_skel->data->path_epoch++;
}

/* The skeleton of the attached programs, NULL if none. */
struct bpf_object_skeleton *
live_vfs_skeleton(void)
{
	return (live_vfs_skel != NULL ? live_vfs_skel->skeleton : NULL);
}

/* Detach and free everything live_vfs_load set up. */
void
live_vfs_unload(void)
{
	if (live_vfs_skel == NULL)
		return;
	live_vfs_destroy(live_vfs_skel);
	live_vfs_skel = NULL;
	live_vfs_chosen = -1;
	live_paths_stop();
	live_vfs_pages = 0;
}
