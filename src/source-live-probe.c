/* source-live-probe.c: what this kernel offers the live source's programs: tracepoints by BTF or by tracefs, tracefs itself, the BPF build it takes. */

#include <sys/mman.h>
#include <sys/mount.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "sources.h"
#include "source-live.h"

/* Whether the kernel has a tracepoint, by its BTF typedef (tp_btf, raw_tp: needs no tracefs). */
int
live_probe_tp_btf(const struct btf *vmlinux, const char *tp)
{
	char	 name[128];

	snprintf(name, sizeof name, "btf_trace_%s", tp);
	return (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0);
}

/* Whether struct NAME of the kernel's BTF has a member MEMBER. */
static int
live_probe_has_member(const struct btf *vmlinux, const char *name, const char *member)
{
	const struct btf_type	*t;
	const struct btf_member	*m;
	int			 id;
	unsigned		 i;

	if ((id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_STRUCT)) <= 0)
		return (0);
	t = btf__type_by_id(vmlinux, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (strcmp(btf__name_by_offset(vmlinux, m->name_off), member) == 0)
			return (1);
	return (0);
}

/*
 * The block flag bits the programs need, from the kernel's BTF in one pass
 * over its enums (about 150,000 types here): CO-RE relocations cannot find
 * the enumerators of an anonymous enum, so any enum holding the name counts.
 *  - rqf_flush_seq: RQF_FLUSH_SEQ of struct request's rq_flags. Kernels
 *    since the flags became an enum name the bit __RQF_FLUSH_SEQ (1 on 6.12
 *    and 6.18, an anonymous enum on 6.12). Before (5.10, 6.1, and back to
 *    4.x) it is a #define, 1 << 4, that BTF does not hold.
 *  - bio_pinned: BIO_PAGE_PINNED of struct bio's bi_flags (6.5 and newer):
 *    the bio's pages are user memory pinned for direct I/O, none of them a
 *    page cache page; 0 where the kernel has no such flag.
 *  - rqf_io_stat: RQF_IO_STAT, the request is accounted and its start_time_ns
 *    is the kernel's (__RQF_IO_STAT, 8 on 6.12 and 6.18; 1 << 13 by #define
 *    on 5.10 and 6.1).
 *  - queue_flag_stats: the bit number of QUEUE_FLAG_STATS in queue_flags, a
 *    timed queue whose requests get io_start_time_ns (7 in the anonymous enum
 *    of 6.12 and 6.18; 20 by #define on 5.10 and 6.1).
 *  - blk_feat_io_stat: BLK_FEAT_IO_STAT of queue_limits.features (6.11+):
 *    an enumerator when the features were an enum, a #define since (1 << 4
 *    on 6.12 and 7.2); 0 where queue_limits has no features. The start hook
 *    trusts it only to skip its clock, and a wrong bit shows as requests
 *    sent without latency (CNT_KS_MISS), never as wrong times.
 */
void
live_probe_block_bits(const struct btf *vmlinux, struct block_bits *bits)
{
	const struct btf_type	*t;
	const struct btf_enum	*e;
	const char		*name;
	unsigned		 id, n, i;

	bits->rqf_flush_seq = 0;
	bits->bio_pinned = 0;
	bits->rqf_io_stat = 0;
	bits->queue_flag_stats = 0;
	bits->blk_feat_io_stat = 0;
	n = vmlinux != NULL ? btf__type_cnt(vmlinux) : 0;
	for (id = 1; id < n; id++) {
		t = btf__type_by_id(vmlinux, id);
		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++) {
			if (e->val < 0 || e->val >= 32)
				continue;
			name = btf__name_by_offset(vmlinux, e->name_off);
			if (strcmp(name, "__RQF_FLUSH_SEQ") == 0)
				bits->rqf_flush_seq = 1u << e->val;
			else if (strcmp(name, "BIO_PAGE_PINNED") == 0)
				bits->bio_pinned = 1u << e->val;
			else if (strcmp(name, "__RQF_IO_STAT") == 0)
				bits->rqf_io_stat = 1u << e->val;
			else if (strcmp(name, "QUEUE_FLAG_STATS") == 0)
				bits->queue_flag_stats = (unsigned)e->val;
			else if (strcmp(name, "BLK_FEAT_IO_STAT") == 0 && e->val > 0)
				bits->blk_feat_io_stat = (unsigned)e->val;	/* a mask, not a bit number */
		}
	}
	if (bits->rqf_flush_seq == 0)
		bits->rqf_flush_seq = 1u << 4;
	if (bits->rqf_io_stat == 0)
		bits->rqf_io_stat = 1u << 13;
	if (bits->queue_flag_stats == 0)
		bits->queue_flag_stats = 20;
	if (bits->blk_feat_io_stat == 0 && vmlinux != NULL &&
	    live_probe_has_member(vmlinux, "queue_limits", "features"))
		bits->blk_feat_io_stat = 1u << 4;
}

/* The directory holding the classic tracepoints, as libbpf 1.1 chooses it. */
const char *
live_probe_tracefs(void)
{
	if (access("/sys/kernel/debug/tracing", F_OK) == 0)
		return ("/sys/kernel/debug/tracing");
	return ("/sys/kernel/tracing");
}

/* Whether the classic tracepoint GROUP/NAME exists (and tracefs shows it). */
int
live_probe_tp_classic(const char *group, const char *name)
{
	char	 path[256];

	snprintf(path, sizeof path, "%s/events/%s/%s/id", live_probe_tracefs(), group, name);
	return (access(path, R_OK) == 0);
}

/*
 * Classic tracepoints are attached through tracefs: mount it if nobody has
 * (a fresh machine often has not). Failing that, the vfs probe picks a
 * variant that needs no tracefs.
 */
void
live_probe_mount_tracefs(int verbose)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0 &&
	    errno != EBUSY && verbose)
		log_warnx("cannot mount tracefs on /sys/kernel/tracing: %s", strerror(errno));
}

/* Whether the kernel verifies an atomic fetch-and-add (Linux 5.12). */
static bool
live_probe_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10,
		    .src_reg = BPF_REG_1, .off = -8, .imm = BPF_ADD | BPF_FETCH },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, nitems(insns), NULL);
	if (fd < 0)
		return (false);
	close(fd);
	return (true);
}

/*
 * Whether the kernel takes the objects' main build, or needs their compat
 * build (bpf/core-fixes.h): atomic fetch (5.12) and callbacks (5.13, probed
 * by bpf_for_each_map_elem, their first user) both present. BLKTOP_BPF_BUILD
 * (main or compat) forces one. *why says why the compat build, or is "".
 */
int
live_probe_compat(const char **why)
{
	static int	 compat = -1;
	static char	 reason[96];
	const char	*force = getenv("BLKTOP_BPF_BUILD");

	if (compat < 0) {
		reason[0] = '\0';
		if (force != NULL && strcmp(force, "compat") == 0)
			snprintf(reason, sizeof reason, "BLKTOP_BPF_BUILD=compat");
		else if (force != NULL && strcmp(force, "main") == 0)
			;
		else if (!live_probe_atomic_fetch())
			snprintf(reason, sizeof reason, "no BPF atomic fetch (Linux 5.12)");
		else if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
		    BPF_FUNC_for_each_map_elem, NULL) != 1)
			snprintf(reason, sizeof reason, "no BPF callbacks (Linux 5.13)");
		compat = reason[0] != '\0';
	}
	if (why != NULL)
		*why = reason;
	return (compat);
}

/*
 * Open a skeleton filled by its create function, as its __open does, on the
 * main build or on the compat build's ELF bytes (same maps, programs and
 * globals: bpf/skel-layout.sh). 0, or a negative errno.
 */
int
live_probe_open_skeleton(struct bpf_object_skeleton *s, const void *compat, size_t compat_sz)
{
	if (live_probe_compat(NULL)) {
		s->data = (void *)compat;
		s->data_sz = compat_sz;
	}
	return (bpf_object__open_skeleton(s, NULL));
}

/*
 * A loaded object's ELF bytes (built into this program: 8 MB for the two
 * objects' main and compat builds) are read no more, but parsing them left
 * their pages resident (3.5 MB here): drop them. Read again, they come back
 * from the file.
 */
void
live_probe_forget_elf(const void *data, size_t sz)
{
	uintptr_t	 page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t	 lo = ((uintptr_t)data + page - 1) & ~(page - 1);
	uintptr_t	 hi = ((uintptr_t)data + sz) & ~(page - 1);

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* /sys/block/DEV/FILE's first line into buf; 0, or -1 if unreadable. */
static int
live_probe_sysfs(const char *dev, const char *file, char *buf, size_t len)
{
	char	 path[300];
	FILE	*f;
	int	 rc = -1;

	snprintf(path, sizeof path, "/sys/block/%s/%s", dev, file);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	if (fgets(buf, (int)len, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return (rc);
}

/*
 * --probe's account of where a request's times come from on this kernel
 * (bpf/kstamps.h): the kernel's own stamps where it sets them, our clock
 * elsewhere, and on which queues the issue program still runs.
 */
void
live_probe_stamps(FILE *f, const struct block_bits *bits, int io_start)
{
	char		 lat[32], size[32];
	struct dirent	*de;
	DIR		*d;
	int		 timed;

	fprintf(f, "block start time: the kernel's rq->start_time_ns where the request is "
	    "accounted (RQF_IO_STAT 0x%x at completion), else our clock at the start hook; "
	    "the start hook reads no clock where %s\n", bits->rqf_io_stat,
	    bits->blk_feat_io_stat != 0 ?
	    "RQF_IO_STAT is already set or the queue accounts I/O "
	    "(queue_limits.features & BLK_FEAT_IO_STAT: RQF_IO_STAT comes after block_io_start)" :
	    "RQF_IO_STAT is already set (at allocation)");
	if (bits->blk_feat_io_stat != 0)
		fprintf(f, "  (BLK_FEAT_IO_STAT is 0x%x here)\n", bits->blk_feat_io_stat);
	fprintf(f, "block issue time: the kernel's rq->io_start_time_ns on a timed queue "
	    "(QUEUE_FLAG_STATS, bit %u of queue_flags: write-back throttling, iocost, "
	    "iolatency), tested per request; else our clock at the issue hook\n",
	    bits->queue_flag_stats);
	fprintf(f, "block issue hook: %s\n", io_start ?
	    "returns at once for an accounted request on a timed queue (block_io_start "
	    "sees every accounted request); runs in full on untimed queues and for "
	    "requests first seen at issue (the queue's flush request)" :
	    "runs for every request (a request may be first seen at issue: no "
	    "block_io_start), reading no clock on a timed queue");
	fprintf(f, "block queues (from sysfs, as the programs test QUEUE_FLAG_STATS per request):\n");
	for (timed = 1; timed >= 0; timed--) {
		if ((d = opendir("/sys/block")) == NULL)
			return;
		fprintf(f, "  %s:", timed ? "timed by write-back throttling (wbt_lat_usec), "
		    "issue times from the kernel" : "not timed by it (the issue hook runs "
		    "unless iocost or iolatency time them)");
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' ||
			    live_probe_sysfs(de->d_name, "size", size, sizeof size) != 0 ||
			    strcmp(size, "0") == 0)
				continue;	/* an unbound loop device, a missing medium */
			if (live_probe_sysfs(de->d_name, "queue/wbt_lat_usec", lat, sizeof lat) != 0)
				lat[0] = '\0';
			if ((lat[0] != '\0' && strcmp(lat, "0") != 0) == timed)
				fprintf(f, " %s", de->d_name);
		}
		fprintf(f, "\n");
		closedir(d);
	}
}
