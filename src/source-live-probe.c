/* source-live-probe.c: what this kernel offers the live source's programs: tracepoints by BTF or by tracefs, tracefs itself, the BPF build it takes. */

#include <sys/mman.h>
#include <sys/mount.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"

/* Whether the kernel has a tracepoint, by its BTF typedef (tp_btf, raw_tp: needs no tracefs). */
int
live_probe_tp_btf(const struct btf *vmlinux, const char *tp)
{
	char	 name[128];

	snprintf(name, sizeof name, "btf_trace_%s", tp);
	return (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0);
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
		}
	}
	if (bits->rqf_flush_seq == 0)
		bits->rqf_flush_seq = 1u << 4;
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
		return false;
	close(fd);
	return true;
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
	return compat;
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
	return bpf_object__open_skeleton(s, NULL);
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
