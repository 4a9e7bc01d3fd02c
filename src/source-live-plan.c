/*
 * source-live-plan.c: the block hooks of the live source: the privileges
 * they need, the attach variants and start hooks this kernel offers, the
 * plan chosen from them (--hooks, or the best that works), and --probe's
 * account of it all.
 */
#include <sys/syscall.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"
#include "blktop.skel.h"
#include "blktop.compat.skel.h"

static const char *live_attach_names[ATTACH_MAX] = { "tp_btf", "raw_tp" };
static const char *live_start_names[START_MAX] = { "io_start", "rq_insert", "issue" };
static const char *live_start_tps[START_MAX] = {
	"block_io_start", "block_rq_insert", "block_rq_issue"
};

/* The plan as "ATTACH:START" (the capture keeps it). */
void
live_plan_text(const struct hook_plan *plan, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", live_attach_names[plan->attach], live_start_names[plan->start]);
}

/* Whether the effective set holds a capability. */
static int
live_has_cap(int cap)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return (0);
	return ((data[cap / 32].effective & (1u << (cap % 32))) != 0);
}

/* 0 if this process may load and attach tracing BPF; else a one-line reason. */
int
live_check_privileges(char **errp)
{
	int	 bpf, perfmon, admin;

	*errp = NULL;
	admin = live_has_cap(CAP_SYS_ADMIN);
	bpf = live_has_cap(39) || admin;	/* CAP_BPF, 5.8+ */
	perfmon = live_has_cap(38) || admin;	/* CAP_PERFMON, 5.8+ */
	if (!bpf || !perfmon) {
		xasprintf(errp, "live tracing needs root or CAP_BPF and CAP_PERFMON "
		    "(missing: %s%s%s); replaying a capture (-r FILE) needs neither",
		    bpf ? "" : "CAP_BPF", !bpf && !perfmon ? ", " : "",
		    perfmon ? "" : "CAP_PERFMON");
		return (-1);
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		xasprintf(errp, "this kernel exposes no BTF (/sys/kernel/btf/vmlinux): "
		    "it needs CONFIG_DEBUG_INFO_BTF=y");
		return (-1);
	}
	return (0);
}

/* The block object, opened on the build this kernel takes (live_probe_compat). */
struct blktop_bpf *
live_open(void)
{
	struct blktop_bpf	*obj = xcalloc(1, sizeof *obj);
	const void		*compat;
	size_t			 sz;
	int			 err;

	compat = blktop_compat__elf_bytes(&sz);
	if ((err = blktop_bpf__create_skeleton(obj)) != 0 ||
	    (err = live_probe_open_skeleton(obj->skeleton, compat, sz)) != 0) {
		blktop_bpf__destroy(obj);
		errno = -err;
		return (NULL);
	}
	/* tb_rq_complete's other form, only where live_kio_prepare puts it in its place. */
	bpf_program__set_autoload(obj->progs.tb_rq_complete_kio, false);
	return (obj);
}

/*
 * The programs of one attach variant, in skeleton order: each hook is
 * written twice in blktop.bpf.c, tb_NAME (tp_btf) and rt_NAME (raw_tp).
 */
static void
live_progs(struct blktop_bpf *skel, enum hook_attach a, struct bpf_program **p)
{
	static const char	*hooks[] = { "io_start", "rq_insert", "rq_issue",
	    "rq_requeue", "rq_merge", "rq_complete" };
	char			 name[32];
	unsigned		 i;

	for (i = 0; i < nitems(hooks); i++) {
		snprintf(name, sizeof name, "%s_%s", a == ATTACH_TP_BTF ? "tb" : "rt",
		    hooks[i]);
		p[i] = bpf_object__find_program_by_name(skel->obj, name);
	}
}

/* Enable exactly the programs of a plan; every other one stays unloaded. */
void
live_set_autoload(struct blktop_bpf *skel, const struct hook_plan *plan)
{
	struct bpf_program	*p[6];
	enum hook_attach	 a;
	int			 i;

	for (a = 0; a < ATTACH_MAX; a++) {
		live_progs(skel, a, p);
		for (i = 0; i < 6; i++)
			bpf_program__set_autoload(p[i], false);
	}
	live_progs(skel, plan->attach, p);
	bpf_program__set_autoload(p[0], plan->start == START_IO_START);
	bpf_program__set_autoload(p[1], plan->start == START_RQ_INSERT);
	for (i = 2; i < 6; i++)
		bpf_program__set_autoload(p[i], true);
}

/* Whether an attach variant loads and attaches here: a trial of its issue program alone. */
static int
live_attach_works(enum hook_attach a)
{
	struct blktop_bpf	*skel;
	struct bpf_program	*p[6];
	struct bpf_link		*link;
	int			 i, ok = 0;

	if ((skel = live_open()) == NULL)
		return (0);
	for (i = 0; i < ATTACH_MAX; i++) {
		live_progs(skel, (enum hook_attach)i, p);
		for (int j = 0; j < 6; j++)
			bpf_program__set_autoload(p[j], false);
	}
	live_progs(skel, a, p);
	bpf_program__set_autoload(p[2], true);
	if (blktop_bpf__load(skel) == 0 &&
	    (link = bpf_program__attach(p[2])) != NULL) {
		bpf_link__destroy(link);
		ok = 1;
	}
	blktop_bpf__destroy(skel);
	return (ok);
}

/* What this kernel offers: attach variants that work and start hooks that exist. */
static void
live_block_offers(int attach_ok[ATTACH_MAX], int start_ok[START_MAX])
{
	struct btf	*vmlinux;
	int		 i;

	vmlinux = btf__load_vmlinux_btf();
	for (i = 0; i < START_MAX; i++)
		start_ok[i] = vmlinux != NULL && live_probe_tp_btf(vmlinux, live_start_tps[i]);
	for (i = 0; i < ATTACH_MAX; i++)
		attach_ok[i] = vmlinux != NULL && live_attach_works((enum hook_attach)i);
	btf__free(vmlinux);
}

/* Parse "ATTACH[:START]" (tp_btf|raw_tp, io_start|rq_insert|issue). */
int
live_parse_hooks(const char *spec, struct hook_plan *plan, char **errp)
{
	char	*copy = xstrdup(spec), *colon;
	int	 i, found;

	*errp = NULL;
	plan->attach = ATTACH_MAX;
	plan->start = START_MAX;
	if ((colon = strchr(copy, ':')) != NULL)
		*colon++ = '\0';
	for (i = 0, found = 0; i < ATTACH_MAX; i++) {
		if (strcmp(copy, live_attach_names[i]) == 0) {
			plan->attach = (enum hook_attach)i;
			found = 1;
		}
	}
	if (!found && *copy != '\0')
		goto bad;
	if (colon != NULL) {
		for (i = 0, found = 0; i < START_MAX; i++) {
			if (strcmp(colon, live_start_names[i]) == 0) {
				plan->start = (enum hook_start)i;
				found = 1;
			}
		}
		if (!found)
			goto bad;
	}
	free(copy);
	return (0);
bad:
	xasprintf(errp, "bad hook plan '%s': want ATTACH[:START] with ATTACH "
	    "tp_btf or raw_tp and START io_start, rq_insert or issue", spec);
	free(copy);
	return (-1);
}

/* Fill unset parts of a plan with the best choice that works; -1 if none does. */
int
live_choose(struct hook_plan *plan, char **errp)
{
	int	 attach_ok[ATTACH_MAX], start_ok[START_MAX], i;

	live_block_offers(attach_ok, start_ok);
	if (plan->attach == ATTACH_MAX) {
		for (i = 0; i < ATTACH_MAX && !attach_ok[i]; i++)
			;
		if (i == ATTACH_MAX) {
			xasprintf(errp, "no way to attach to the block tracepoints "
			    "on this kernel (tp_btf and raw_tp both failed; -v shows why)");
			return (-1);
		}
		plan->attach = (enum hook_attach)i;
	} else if (!attach_ok[plan->attach]) {
		xasprintf(errp, "hook variant %s does not work on this kernel",
		    live_attach_names[plan->attach]);
		return (-1);
	}
	if (plan->start == START_MAX) {
		for (i = 0; i < START_MAX && !start_ok[i]; i++)
			;
		plan->start = i == START_MAX ? START_ISSUE : (enum hook_start)i;
	} else if (!start_ok[plan->start]) {
		xasprintf(errp, "tracepoint %s does not exist on this kernel",
		    live_start_tps[plan->start]);
		return (-1);
	}
	return (0);
}

/* Print the chosen plan and the alternatives, for --probe. */
void
live_print_probe(const struct blktop *b, FILE *f)
{
	int		 attach_ok[ATTACH_MAX], start_ok[START_MAX], i;
	struct hook_plan plan = { ATTACH_MAX, START_MAX };
	struct block_bits bits;
	struct btf	*vmlinux;
	char		*err;
	const char	*why;

	if (live_probe_compat(&why))
		fprintf(f, "bpf build: compat, for Linux 5.10-5.12 (%s): no batches; %%util and "
		    "queue depth can be off by a request where two CPUs start or end one in "
		    "the same instant\n", why);
	else
		fprintf(f, "bpf build: main\n");
	privs_print_probe(f);
	live_block_offers(attach_ok, start_ok);
	if (b->opt.hooks != NULL && live_parse_hooks(b->opt.hooks, &plan, &err) != 0)
		fatalx("%s", err);
	if (live_choose(&plan, &err) != 0) {
		fprintf(f, "block: none works: %s\n", err);
		free(err);
	} else
		fprintf(f, "plan: %s:%s\n", live_attach_names[plan.attach],
		    live_start_names[plan.start]);
	fprintf(f, "block attach (request pointer, typed or raw):\n");
	for (i = 0; i < ATTACH_MAX; i++)
		fprintf(f, "  %-10s %s%s\n", live_attach_names[i],
		    attach_ok[i] ? "works" : "unavailable",
		    plan.attach == (enum hook_attach)i ? " (chosen)" : "");
	fprintf(f, "block start (submitter pid/comm/cgroup, queue time):\n");
	for (i = 0; i < START_MAX; i++)
		fprintf(f, "  %-10s %-16s %s%s\n", live_start_names[i], live_start_tps[i],
		    start_ok[i] ? "exists" : "missing",
		    plan.start == (enum hook_start)i ? " (chosen)" : "");
	vmlinux = btf__load_vmlinux_btf();
	live_probe_block_bits(vmlinux, &bits);
	btf__free(vmlinux);
	fprintf(f, "block issue/requeue/merge/complete: block_rq_issue, block_rq_requeue, "
	    "block_rq_merge, block_rq_complete (final when all bytes are done and, "
	    "in a flush sequence, when the sequence ends: RQF_FLUSH_SEQ is 0x%x here)\n",
	    bits.rqf_flush_seq);
	if (bits.bio_pinned != 0)
		fprintf(f, "block direct I/O: a bio of pinned pages (BIO_PAGE_PINNED 0x%x)\n",
		    bits.bio_pinned);
	else
		fprintf(f, "block direct I/O: a bio whose first page has no file mapping "
		    "(no BIO_PAGE_PINNED: before 6.5)\n");
	live_probe_stamps(f, &bits, plan.start == START_IO_START);
	fprintf(f, "not used: kprobes and fentry (tracepoints are stable and work where those are refused)\n");
	live_probe_mount_tracefs(b->opt.verbose);
	live_vfs_probe(f);
	live_kio_probe(b, &plan, f);
}
