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

#include "base.h"
#include "event.h"
#include "sources.h"
#include "source-live.h"
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
static uint64_t			 live_vfs_batch_age_ns;	/* a batch is kept this long at most */
static struct cost_batch	 live_vfs_batch;	/* its per-CPU batches */
static void			 live_vfs_batch_start(void);
static bool			 live_vfs_debug;
static int			 live_vfs_avail[VFS_HOOK_MAX];	/* 0 not probed, 1 yes, -1 not */
static char			 live_vfs_why[VFS_HOOK_MAX][128];
static char			 live_vfs_err[256];
static char			 live_vfs_failed_prog[64];	/* libbpf said it failed to load */
static char			 live_vfs_failed_line[128];	/* the verifier's last words */
static int			 live_vfs_cast = -1;	/* file_cast: -1 not decided, 0 off, 1 on */
static char			 live_vfs_cast_why[96];	/* why off */

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
		return (0);
	va_copy(aq, ap);
	if (vasprintf(&msg, fmt, aq) >= 0) {
		live_vfs_note_failure(msg);
		n = live_vfs_debug ? fputs(msg, stderr) : 0;
		free(msg);
	} else
		n = 0;
	va_end(aq);
	return (n);
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
			return (true);
	}
	return (false);
}

/*
 * The extra programs (source-live-extras.c) on or off, and the programs'
 * switches for the groups on; without want, all off and the switches as built.
 */
static void
live_vfs_select_extras(struct vfs_bpf *skel, bool want)
{
	unsigned	 on;

	live_extras_select(skel->obj, want);
	if (!want)
		return;
	on = live_extras_planned();
	skel->rodata->trace_pages = (on & (VFS_PAGES_DIRTY | VFS_PAGES_FAULT)) != 0;
	skel->rodata->trace_throttle = (on & VFS_PAGES_THROTTLE) != 0;
	skel->rodata->trace_task = (on & VFS_PAGES_TASK) != 0;
	skel->rodata->trace_uring = (on & VFS_PAGES_URING) != 0;
	skel->rodata->trace_aio = (on & VFS_PAGES_AIO) != 0;
}

/* Whether a program is one of the opens or a lifecycle call (else: read/write family). */
static bool
live_vfs_prog_is_open(const struct bpf_program *prog)
{
	static const char	*names[] = { "open", "creat", "close", "mmap", "unlink",
				    "rename", "mkdir", "rmdir", "mknod", "fsync", "fdatasync",
				    "truncate" };
	const char		*sec = bpf_program__section_name(prog);
	unsigned		 i;

	for (i = 0; i < nitems(names); i++) {
		if (strstr(sec, names[i]) != NULL)
			return (true);
	}
	return (false);
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

		if (live_extras_index(prog) >= 0)
			continue;	/* live_vfs_select_extras */
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
	return (n);
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
		return (NULL);
	}
	return (obj);
}

/*
 * Whether the read/write exits read the fd array's slot and the struct file
 * by faulting loads (bpf/vfs-cast.h): where the kernel has bpf_rdonly_cast
 * (6.2+), on the main build, unless BLKTOP_VFS_CAST=0 or the verifier
 * refused them in a probe (live_vfs_probe_one); else why not.
 */
static bool
live_vfs_cast_on(void)
{
	const char	*env = getenv("BLKTOP_VFS_CAST");
	struct btf	*vmlinux;

	if (live_vfs_cast >= 0)
		return (live_vfs_cast > 0);
	live_vfs_cast = 0;
	if (env != NULL && strcmp(env, "0") == 0)
		snprintf(live_vfs_cast_why, sizeof live_vfs_cast_why, "BLKTOP_VFS_CAST=0");
	else if (live_probe_compat(NULL))
		snprintf(live_vfs_cast_why, sizeof live_vfs_cast_why, "the compat build");
	else {
		vmlinux = btf__load_vmlinux_btf();
		live_vfs_cast = vmlinux != NULL &&
		    btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
		btf__free(vmlinux);
		if (!live_vfs_cast)
			snprintf(live_vfs_cast_why, sizeof live_vfs_cast_why,
			    "no bpf_rdonly_cast kfunc (Linux 6.2+)");
	}
	return (live_vfs_cast > 0);
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
	return (vfs_bpf__attach(skel));
}

/* Whether variant v can be tried at all without loading it; else fill live_vfs_why. */
static bool
live_vfs_possible(int v)
{
	if (v == VFS_HOOK_TRACEPOINT && !live_probe_tp_classic("syscalls", "sys_enter_openat")) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]),
		    "no %s/events/syscalls (mount -t tracefs nodev /sys/kernel/tracing, "
		    "or no CONFIG_FTRACE_SYSCALLS)", live_probe_tracefs());
		return (false);
	}
	return (true);
}

/* Try to load and attach variant v into a throwaway object; fill live_vfs_why. */
static int
live_vfs_probe_one(int v)
{
	struct vfs_bpf	*skel;
	int		 error;

	if (!live_vfs_possible(v))
		return (0);
	skel = live_vfs_open();
	if (skel == NULL) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "open: %s", strerror(errno));
		return (0);
	}
	bpf_map__set_max_entries(skel->maps.events, 4096);
	live_vfs_select_extras(skel, false);
	live_vfs_select(skel, v, true, true);
	skel->rodata->file_cast = live_vfs_cast_on();
	error = vfs_bpf__load(skel);
	if (error != 0 && live_vfs_cast_on()) {
		/* Refused with the faulting loads: without them, then, if that loads. */
		live_vfs_destroy(skel);
		live_vfs_cast = 0;
		if (live_vfs_probe_one(v)) {
			snprintf(live_vfs_cast_why, sizeof live_vfs_cast_why,
			    "the verifier refused them (%s)", strerror(-error));
			return (1);
		}
		live_vfs_cast = 1;	/* variant v fails either way: not the loads' fault */
		return (0);
	}
	if (error != 0) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "load: %s", strerror(-error));
		live_vfs_destroy(skel);
		return (0);
	}
	error = live_vfs_attach(skel);
	if (error != 0) {
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "attach: %s", strerror(-error));
		live_vfs_destroy(skel);
		return (0);
	}
	live_vfs_destroy(skel);
	snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "available");
	return (1);
}

/* BLKTOP_DEBUG set and not "0": show the libbpf log. */
static bool
live_vfs_env_debug(void)
{
	const char	*dbg = getenv("BLKTOP_DEBUG");

	return (dbg != NULL && *dbg != '\0' && strcmp(dbg, "0") != 0);
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
	return (live_vfs_avail[v] == 1);
}

/* Name to variant index, -1 if unknown. */
int
live_vfs_hook_lookup(const char *name)
{
	int v;

	for (v = 0; v < VFS_HOOK_MAX; v++) {
		if (strcmp(name, live_vfs_variants[v].name) == 0)
			return (v);
	}
	return (-1);
}

/* Variant v's name. */
const char *
live_vfs_hook_name(int v)
{
	if (v < 0 || v >= VFS_HOOK_MAX)
		return ("none");
	return (live_vfs_variants[v].name);
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
		return (-2);
	if ((v = live_vfs_hook_lookup(force)) < 0)
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: unknown hook '%.32s' (tp_btf, raw_tp, tracepoint, fentry)", force);
	return (v);
}

/* Set live_vfs_err: forced variant v is unavailable, and why. Returns live_vfs_err. */
static const char *
live_vfs_fail_unavailable(int v)
{
	snprintf(live_vfs_err, sizeof(live_vfs_err), "vfs: hook %s unavailable: %.127s",
	    live_vfs_variants[v].name, live_vfs_why[v]);
	return (live_vfs_err);
}

/* Set live_vfs_err: no variant loads (with why the first did not). Returns live_vfs_err. */
static const char *
live_vfs_fail_none(void)
{
	snprintf(live_vfs_err, sizeof(live_vfs_err),
	    "vfs: no hook variant loads on this kernel (%s: %s)",
	    live_vfs_variants[0].name, live_vfs_why[0]);
	return (live_vfs_err);
}

/* The first available variant, honouring BLKTOP_VFS_HOOK / force; -1 with live_vfs_err set. */
static int
live_vfs_choose(const char *force)
{
	int v;

	if ((v = live_vfs_forced(force)) == -1)
		return (-1);
	if (v >= 0) {
		if (!live_vfs_probe_v(v)) {
			live_vfs_fail_unavailable(v);
			return (-1);
		}
		return (v);
	}
	for (v = 0; v < VFS_HOOK_MAX; v++) {
		if (live_vfs_probe_v(v))
			return (v);
	}
	live_vfs_fail_none();
	return (-1);
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
	if (live_vfs_cast_on())
		fprintf(fp, "vfs: read path: fd slot and struct file by faulting loads "
		    "(bpf_rdonly_cast)\n");
	else
		fprintf(fp, "vfs: read path: fd slot and struct file by probe reads (%s)\n",
		    live_vfs_cast_why);
	live_extras_probe(fp);
	fprintf(fp, "feature: %-8s %s\n", "munmap", live_vfs_have_munmap() ? "works" :
	    "n/a: needs the bpf_find_vma helper (Linux 5.17)");
}

/* Hand direct async calls to the block object (on) or take them back: 0, or -1 with no vfs object. */
int
live_vfs_set_kio(int on)
{
	if (live_vfs_skel == NULL || live_vfs_skel->bss == NULL)
		return (-1);
	live_vfs_skel->bss->kio_direct = on != 0;
	return (0);
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
	skel->rodata->file_cast = live_vfs_cast_on();
	skel->rodata->trace_life = !o->no_open;
	skel->rodata->include_all = o->all_files != 0;
	skel->rodata->filter_tgid = o->ntgids > 0;
	skel->rodata->filter_cgroup = o->cgroup;
	skel->rodata->self_tgid = getpid();
	skel->rodata->wakeup_ns = o->wakeup_ns;
	skel->rodata->batch_age_ns = o->batch_age_ns;
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
	live_vfs_select_extras(skel, !o->no_pages);
	/* Without the names programs, every call walks its path. */
	skel->rodata->path_cache = live_paths_on() && !o->no_pages &&
	    (live_extras_planned() & VFS_PAGES_NAMES) != 0;
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
	live_vfs_batch_age_ns = o->batch_age_ns;
	live_vfs_batch_start();
	return (NULL);

fail:
	live_vfs_destroy(skel);
	libbpf_set_print(old);
	return (live_vfs_err);
}

/*
 * live_vfs_load_one, tried again without an extra group the verifier refused:
 * one refused program leaves its group out, with the verifier's words as the
 * reason, never the object. A group is refused once at most (its programs
 * are not loaded again), so the tries end. BLKTOP_VFS_REFUSE: see
 * live_extras_refuse_env.
 */
static const char *
live_vfs_load_tries(int v, int events_fd, int counters_fd, const struct live_vfs_opts *o)
{
	const char	*err, *why;

	live_extras_refuse_env();
	for (;;) {
		live_vfs_failed_prog[0] = '\0';
		if ((err = live_vfs_load_one(v, events_fd, counters_fd, o)) == NULL)
			return (NULL);
		if (live_vfs_failed_prog[0] == '\0' ||
		    (why = live_extras_refuse(live_vfs_failed_prog, live_vfs_failed_line)) == NULL)
			return (err);
		if (live_vfs_debug)
			fprintf(stderr, "vfs: %s; trying without it\n", why);
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
		return ("vfs: already loaded");
	live_vfs_debug = o->debug || live_vfs_env_debug();
	if (o->ncomms > FILTER_MAX_COMMS) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: at most %d -c filters", FILTER_MAX_COMMS);
		return (live_vfs_err);
	}
	if (o->ntgids > VFS_MAX_TGIDS) {
		snprintf(live_vfs_err, sizeof(live_vfs_err),
		    "vfs: at most %d -p filters", VFS_MAX_TGIDS);
		return (live_vfs_err);
	}
	if (o->no_open && o->no_rw)
		return ("vfs: nothing to trace");

	/*
	 * The forced variant, or the first that loads, tried for real rather
	 * than probed first: a probe is a whole load and attach (~1 s for the
	 * 28 classic tracepoint programs), and a start needs only the one it keeps.
	 */
	if ((v = live_vfs_forced(o->hook)) == -1)
		return (live_vfs_err);
	if (v >= 0) {
		if (!live_vfs_possible(v))
			return (live_vfs_fail_unavailable(v));
		return (live_vfs_load_tries(v, events_fd, counters_fd, o));
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
			return (NULL);
		}
		live_vfs_avail[v] = -1;
		snprintf(live_vfs_why[v], sizeof(live_vfs_why[v]), "%.120s", err);
	}
	return (live_vfs_fail_none());
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
		return (0);
	live_paths_stop();
	*errp = xstrdup(err);
	return (-1);
}

/* The variant attached by live_vfs_load, or "none". */
const char *
live_vfs_hook(void)
{
	return (live_vfs_hook_name(live_vfs_skel != NULL ? live_vfs_chosen : -1));
}

/* The extra groups loaded (VFS_PAGES_*). */
unsigned
live_vfs_pages_loaded(void)
{
	return (live_vfs_skel != NULL ? live_extras_planned() : 0);
}

/* Whether munmaps can be traced: the file mapped at an address needs bpf_find_vma (5.17). */
int
live_vfs_have_munmap(void)
{
	return (!live_probe_compat(NULL) &&
	    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_find_vma, NULL) == 1);
}

/* Turn the per-CPU batches of read/write records on where they can be sent (cost_batch_start). */
static void
live_vfs_batch_start(void)
{
	if (live_vfs_skel->bss != NULL && cost_batch_start(&live_vfs_batch,
	    bpf_program__fd(live_vfs_skel->progs.vfs_batch_flush),
	    bpf_map__fd(live_vfs_skel->maps.batch_ts), live_vfs_batch_age_ns))
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
		return (0);
	return (cost_percpu_sum(bpf_map__fd(live_vfs_skel->maps.vfs_counters), 0));
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

/* Every program returns at once from now on (bpf/stop.h): blktop quits. */
void
live_vfs_halt(void)
{
	if (live_vfs_skel != NULL && live_vfs_skel->bss != NULL)
		live_vfs_skel->bss->prog_stop = 1;
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
	live_extras_clear();
}
