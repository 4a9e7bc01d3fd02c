/*
 * bpf-lines: where a loaded BPF program spends its time, by source line.
 * Reads `perf script -F ip,sym` on stdin (samples of `perf record -a`), and
 * for each program named (its id), the JIT image's line table from the kernel
 * (bpf_prog_info: jited_ksyms, jited_line_info, line_info and the program's
 * BTF, where the lines' text is): prints the program's samples by source
 * line, most first, and the functions its samples called into (helpers, the
 * irq_work a wakeup queues...). Debian's bpftool cannot show the JIT image
 * (no libbfd); perf cannot annotate it (no libopcodes): this needs neither.
 *
 *	perf script -i perf.data -F ip,sym | bench/bpf-lines ID...
 *
 * bench/run-perf.sh runs it all under a fio job. Not installed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#define MAXL	4096	/* line records kept per program */
#define MAXS	512	/* distinct callee symbols kept per program */

struct prog {
	unsigned		 id;
	char			 name[64];
	unsigned long long	 start, len;
	unsigned		 nl;
	unsigned long long	 addr[MAXL];
	const char		*text[MAXL];
	unsigned		 line[MAXL];
	unsigned long		 hits[MAXL], total, self;
	char			 callee[MAXS][256];
	unsigned long		 chits[MAXS];
	unsigned		 nc;
	struct btf		*btf;
};

/* Fill p from the kernel; 0 on success. */
static int
prog_load(struct prog *p)
{
	struct bpf_prog_info	 info, two;
	struct bpf_line_info	*li;
	unsigned long long	*jl, ksym = 0;
	__u32			 len = sizeof info, n, i;
	int			 fd = bpf_prog_get_fd_by_id(p->id);

	memset(&info, 0, sizeof info);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) != 0)
		return (-1);
	snprintf(p->name, sizeof p->name, "%s", info.name);
	n = info.nr_jited_line_info < info.nr_line_info ? info.nr_jited_line_info :
	    info.nr_line_info;
	if (n > MAXL)
		n = MAXL;
	jl = calloc(info.nr_jited_line_info + 1, sizeof *jl);
	li = calloc(info.nr_line_info + 1, sizeof *li);
	if (jl == NULL || li == NULL)
		return (-1);
	memset(&two, 0, sizeof two);
	two.nr_jited_ksyms = 1;
	two.jited_ksyms = (unsigned long)&ksym;
	two.nr_jited_line_info = info.nr_jited_line_info;
	two.jited_line_info_rec_size = sizeof *jl;
	two.jited_line_info = (unsigned long)jl;
	two.nr_line_info = info.nr_line_info;
	two.line_info_rec_size = sizeof *li;
	two.line_info = (unsigned long)li;
	len = sizeof two;
	if (bpf_obj_get_info_by_fd(fd, &two, &len) != 0)
		return (-1);
	p->start = ksym;
	p->len = info.jited_prog_len;
	p->btf = btf__load_from_kernel_by_id(info.btf_id);
	for (i = 0; i < n; i++) {
		p->addr[i] = jl[i];
		p->line[i] = BPF_LINE_INFO_LINE_NUM(li[i].line_col);
		p->text[i] = p->btf != NULL ? btf__name_by_offset(p->btf, li[i].line_off) : NULL;
	}
	p->nl = n;
	free(jl);
	free(li);
	return (0);
}

/* The line record an address falls in (the last starting at or before it). */
static int
prog_line(const struct prog *p, unsigned long long ip)
{
	int lo = 0, hi = (int)p->nl - 1, at = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (p->addr[mid] <= ip) {
			at = mid;
			lo = mid + 1;
		} else
			hi = mid - 1;
	}
	return (at);
}

static void
prog_callee(struct prog *p, const char *sym)
{
	unsigned i;

	for (i = 0; i < p->nc; i++) {
		if (strcmp(p->callee[i], sym) == 0) {
			p->chits[i]++;
			return;
		}
	}
	if (p->nc < MAXS) {
		snprintf(p->callee[p->nc], sizeof p->callee[0], "%s", sym);
		p->chits[p->nc++] = 1;
	}
}

int
main(int argc, char **argv)
{
	static struct prog	 progs[16];
	char			 buf[512], leaf[256] = "";
	unsigned		 np = 0, i, k, first = 1;
	int			 a;

	if (argc < 2) {
		fprintf(stderr, "usage: perf script -F ip,sym | bpf-lines PROG_ID...\n");
		return (2);
	}
	for (a = 1; a < argc && np < 16; a++) {
		progs[np].id = (unsigned)strtoul(argv[a], NULL, 10);
		if (prog_load(&progs[np]) != 0) {
			fprintf(stderr, "bpf-lines: program %s: %s\n", argv[a], strerror(errno));
			return (1);
		}
		np++;
	}
	/* A sample is a stack, leaf first, one frame a line, a blank line after it. */
	while (fgets(buf, sizeof buf, stdin) != NULL) {
		unsigned long long	 ip;
		char			 sym[256];

		if (sscanf(buf, " %llx %255s", &ip, sym) != 2) {
			first = 1;
			continue;
		}
		for (i = 0; i < np; i++) {
			struct prog *p = &progs[i];
			int at;

			if (ip < p->start || ip >= p->start + p->len)
				continue;
			p->total++;
			if (first) {
				p->self++;
				if ((at = prog_line(p, ip)) >= 0)
					p->hits[at]++;
			} else
				prog_callee(p, leaf);
		}
		if (first)
			snprintf(leaf, sizeof leaf, "%s", sym);
		first = 0;
	}
	for (i = 0; i < np; i++) {
		struct prog	*p = &progs[i];
		unsigned long	 shown = 0;

		printf("%s (id %u): %lu samples, %lu in its own code\n", p->name, p->id,
		    p->total, p->self);
		/* Its lines, most samples first: a selection, the tables are small. */
		for (k = 0; k < 16 && shown < p->self; k++) {
			unsigned best = MAXL;

			for (a = 0; a < (int)p->nl; a++)
				if (p->hits[a] > 0 && (best == MAXL || p->hits[a] > p->hits[best]))
					best = (unsigned)a;
			if (best == MAXL)
				break;
			printf("  %5.1f%%  line %-5u %.100s\n", 100.0 * (double)p->hits[best] /
			    (double)(p->total ? p->total : 1), p->line[best],
			    p->text[best] != NULL ? p->text[best] : "");
			shown += p->hits[best];
			p->hits[best] = 0;
		}
		for (k = 0; k < 8; k++) {
			unsigned best = MAXS;

			for (a = 0; a < (int)p->nc; a++)
				if (p->chits[a] > 0 && (best == MAXS || p->chits[a] > p->chits[best]))
					best = (unsigned)a;
			if (best == MAXS)
				break;
			printf("  %5.1f%%  in %s\n", 100.0 * (double)p->chits[best] /
			    (double)(p->total ? p->total : 1), p->callee[best]);
			p->chits[best] = 0;
		}
	}
	return (0);
}
