/*
 * source-live-kio.c: whether direct io_uring and libaio calls are named at
 * their block requests here (bpf/blk-kio.h, issue 42), or at their
 * submission and completion as before (bpf/vfs-async.h), and why; the
 * switches that hand them from one object to the other.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "source-live.h"
#include "blktop.skel.h"

static char	 live_kio_reason[200];
static int	 live_kio_tried;	/* 0 not yet, 1 loads, -1 refused */

/* Whether the block object's program tb_rq_complete_kio loads here (the verifier's word). */
static int
live_kio_loads(void)
{
	struct blktop_bpf	*skel;
	struct bpf_program	*p;
	libbpf_print_fn_t	 old;
	int			 ok;

	if (live_kio_tried != 0)
		return (live_kio_tried > 0);
	if ((skel = live_open()) == NULL) {
		live_kio_tried = -1;
		return (0);
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.tb_rq_complete_kio);
	old = libbpf_set_print(NULL);
	ok = blktop_bpf__load(skel) == 0;
	libbpf_set_print(old);
	blktop_bpf__destroy(skel);
	live_kio_tried = ok ? 1 : -1;
	return (ok);
}

/*
 * NULL if the block object names direct async calls under this plan and
 * these options, else why not (one line, for --probe and -v).
 */
const char *
live_kio_why_not(const struct blktop *b, const struct hook_plan *plan)
{
	const char	*env = getenv("BLKTOP_KIO");
	struct btf	*vmlinux;
	int		 cast;

	if (env != NULL && strcmp(env, "0") == 0)
		return ("BLKTOP_KIO=0");
	if (b->opt.no_vfs)
		return ("--no-vfs: no calls are traced");
	if (plan->attach != ATTACH_TP_BTF || plan->start != START_IO_START)
		return ("needs the typed block_io_start hook (tp_btf:io_start, Linux 6.5+)");
	vmlinux = btf__load_vmlinux_btf();
	cast = vmlinux != NULL &&
	    btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	if (!cast)
		return ("no bpf_rdonly_cast kfunc (Linux 6.2+)");
	if (b->opt.ndevs > 0)
		return ("-D: a call on another device would go uncounted");
	if (b->opt.ntgids > 0)
		return ("-p: the process table is the vfs object's");
	if (!live_kio_loads()) {
		snprintf(live_kio_reason, sizeof live_kio_reason,
		    "the verifier refuses tb_rq_complete_kio (the kernel's dio structures "
		    "or symbols differ)");
		return (live_kio_reason);
	}
	return (NULL);
}

/* Before the block object loads: tb_rq_complete_kio in tb_rq_complete's place, the vfs filters copied. */
void
live_kio_prepare(struct blktop_bpf *skel, const struct blktop *b, uint32_t self_tgid)
{
	unsigned	 i;

	bpf_program__set_autoload(skel->progs.tb_rq_complete, false);
	bpf_program__set_autoload(skel->progs.tb_rq_complete_kio, true);
	skel->rodata->kio_self_tgid = self_tgid;
	skel->rodata->kio_cgroup = b->opt.cgroup_id;
	skel->rodata->kio_ncomms = b->opt.ncomms < FILTER_MAX_COMMS ? b->opt.ncomms : FILTER_MAX_COMMS;
	for (i = 0; i < skel->rodata->kio_ncomms; i++) {
		char c[BLKTOP_COMM_LEN] = { 0 };

		strncpy(c, b->opt.comms[i], sizeof(c) - 1);	/* as vfs.bpf.c's comms */
		memcpy((void *)skel->rodata->kio_comms[i], c, sizeof(c));
	}
}

/* --probe: which path direct async calls take, and why. */
void
live_kio_probe(const struct blktop *b, const struct hook_plan *plan, FILE *fp)
{
	const char	*why = live_kio_why_not(b, plan);

	if (why == NULL)
		fprintf(fp, "feature: %-8s at the block request: direct (O_DIRECT) io_uring and "
		    "libaio calls are named by their requests' kiocb at completion "
		    "(bpf/blk-kio.h); their submission and completion programs return at once\n", "kio");
	else
		fprintf(fp, "feature: %-8s n/a: direct io_uring and libaio calls are traced at "
		    "submission and completion: %s\n", "kio", why);
}
