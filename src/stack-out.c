/* stack-out.c: --stack's output: the histograms in bpftrace's own layout, the rules as verdicts, and -J's "stack" object. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "json-key.h"
#include "stack.h"

#define STACK_BAR	52	/* bpftrace's bar width */

/* A bucket edge as bpftrace writes it: 1024 -> 1K, 5120 -> 5K, 1536 stays. */
static void
stack_num(char *buf, size_t len, uint64_t v)
{
	static const char	 sfx[] = "KMGTPE";
	unsigned		 k = 0;

	while (v >= 1024 && v % 1024 == 0 && k < sizeof sfx - 1) {
		v /= 1024;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, sfx[k - 1]);
}

/* Rows first..last of counts c with their labels, as bpftrace prints a map at exit. */
static void
stack_rows(FILE *f, const char *name, const uint64_t *c, unsigned nslots,
    void (*label)(char *, size_t, unsigned))
{
	char		 l[64];
	uint64_t	 max = 0;
	unsigned	 i, first = nslots, last = 0, w;

	for (i = 0; i < nslots; i++) {
		if (c[i] == 0)
			continue;
		if (first == nslots)
			first = i;
		last = i;
		if (c[i] > max)
			max = c[i];
	}
	if (max == 0)
		return;		/* bpftrace prints nothing of an empty map */
	fprintf(f, "@%s: \n", name);
	for (i = first; i <= last; i++) {
		label(l, sizeof l, i);
		w = (unsigned)(c[i] * STACK_BAR / max);
		fprintf(f, "%-16s%8" PRIu64 " |%.*s%*s|\n", l, c[i], (int)w,
		    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
		    (int)(STACK_BAR - w), "");
	}
	fputc('\n', f);
}

/* hist()'s label of slot s. */
void
stack_hist_label(char *buf, size_t len, unsigned s)
{
	char	 lo[24], hi[24];

	if (s == 0) {
		snprintf(buf, len, "(..., 0)");
		return;
	}
	if (s <= 2) {
		snprintf(buf, len, "[%u]", s - 1);
		return;
	}
	stack_num(lo, sizeof lo, stack_hist_slot_lo(s));
	stack_num(hi, sizeof hi, stack_hist_slot_lo(s) * 2);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/* lhist(v, 0, 8000, 10)'s label of slot s. */
static void
stack_lba_label(char *buf, size_t len, unsigned s)
{
	char	 lo[24], hi[24];

	if (s == 0) {
		snprintf(buf, len, "(..., 0)");
		return;
	}
	stack_num(lo, sizeof lo, (uint64_t)(s - 1) * STACK_LBA_STEP);
	if (s == STACK_LBA_SLOTS - 1) {
		snprintf(buf, len, "[%s, ...)", lo);
		return;
	}
	stack_num(hi, sizeof hi, (uint64_t)s * STACK_LBA_STEP);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/* The mean of two hists together. */
static double
stack_mean2(const struct stack_hist *a, const struct stack_hist *b, uint64_t *n)
{
	*n = a->n + b->n;
	return (*n > 0 ? (a->sum + b->sum) / (double)*n : 0);
}

/*
 * One rule, "A >> B": 1 if mean A >= STACK_FAR x mean B, 0 if not, -1 if
 * either side has fewer than STACK_MIN_SAMPLES samples.
 */
int
stack_far(double a, uint64_t na, double b, uint64_t nb)
{
	if (na < STACK_MIN_SAMPLES || nb < STACK_MIN_SAMPLES)
		return (-1);
	return (a >= STACK_FAR * b);
}

static const char *stack_rule_names[4] = {
	"device-bound", "scheduler-bound", "file-system/page-cache-bound", "application-bound"
};
static const char *stack_rule_keys[4] = {
	"device_bound", "scheduler_bound", "fs_cache_bound", "application_bound"
};

/* Judge a scope from its hists: q2d, d2c pairs of two (read, write) or one; vfs NULL where not its own. */
void
stack_judge(struct stack_verdict *v, const struct stack_hist *q2d, const struct stack_hist *d2c,
    int pairs, const struct stack_proc *p)
{
	uint64_t	 n;

	memset(v, 0, sizeof *v);
	v->dev = v->sched = v->fs = v->app = -1;
	if (q2d != NULL) {
		if (pairs) {
			v->q2d = stack_mean2(&q2d[0], &q2d[1], &v->nq2d);
			v->d2c = stack_mean2(&d2c[0], &d2c[1], &v->nd2c);
		} else {
			v->q2d = stack_hist_mean(q2d);
			v->nq2d = q2d->n;
			v->d2c = stack_hist_mean(d2c);
			v->nd2c = d2c->n;
		}
		v->dev = stack_far(v->d2c, v->nd2c, v->q2d, v->nq2d);
		v->sched = stack_far(v->q2d, v->nq2d, v->d2c, v->nd2c);
	}
	if (p == NULL)
		return;
	v->vfs = stack_mean2(&p->vfs[0], &p->vfs[1], &v->nvfs);
	n = v->nq2d < v->nd2c ? v->nq2d : v->nd2c;
	v->fs = stack_far(v->vfs, v->nvfs, v->q2d + v->d2c, n);
	v->fsync = stack_hist_mean(&p->fsync);
	v->nfsync = p->fsync.n;
	v->wgap = stack_hist_mean(&p->wgap);
	v->nwgap = p->wgap.n;
	v->app = stack_far(v->wgap, v->nwgap, v->fsync, v->nfsync);
}

/* One verdict line of a scope's rule, no newline. */
static void
stack_rule_line(char *buf, size_t len, const char *scope, int rule, int r, const char *a,
    double ma, uint64_t na, const char *bn, double mb, uint64_t nb)
{
	snprintf(buf, len, "%-20s %-29s %-4s %s mean %.1f us (%" PRIu64 ") vs %s mean %.1f us (%"
	    PRIu64 ")", scope, stack_rule_names[rule], r < 0 ? "n/a" : r ? "yes" : "no", a, ma, na,
	    bn, mb, nb);
}

/*
 * The verdict lines of the rules a scope has (blk: the block layer's two,
 * calls: the calls' two) into lines; their number (4 at most).
 */
unsigned
stack_verdict_lines(const char *scope, const struct stack_verdict *v, int blk, int calls,
    char lines[][STACK_LINE])
{
	unsigned	 n = 0;

	if (blk) {
		stack_rule_line(lines[n++], STACK_LINE, scope, 0, v->dev, "D2C", v->d2c, v->nd2c,
		    "Q2D", v->q2d, v->nq2d);
		stack_rule_line(lines[n++], STACK_LINE, scope, 1, v->sched, "Q2D", v->q2d, v->nq2d,
		    "D2C", v->d2c, v->nd2c);
	}
	if (calls) {
		stack_rule_line(lines[n++], STACK_LINE, scope, 2, v->fs, "VFS", v->vfs, v->nvfs,
		    "Q2D+D2C", v->q2d + v->d2c, v->nq2d < v->nd2c ? v->nq2d : v->nd2c);
		stack_rule_line(lines[n++], STACK_LINE, scope, 3, v->app, "write_to_fsync", v->wgap,
		    v->nwgap, "fsync", v->fsync, v->nfsync);
	}
	return (n);
}

/* A process as its scope reads: "fio[12]", in a run of several hosts "node1:fio[12]" (as a device's host:name). */
void
stack_proc_name(char *buf, size_t len, const struct stack_proc *p)
{
	char	 host[HOST_NAME_MAX_LEN];

	snprintf(buf, len, "%s%s%.*s[%u]", p->host != HOST_NONE ? fmt_host(host, sizeof host,
	    p->host) : "", p->host != HOST_NONE ? ":" : "", BLKTOP_COMM_LEN, p->comm, p->tgid);
}

/* A file as its scope reads: its path ("?" if none), in a run of several hosts after "host:". */
void
stack_file_name(char *buf, size_t len, const struct stack_file *sf)
{
	char	 host[HOST_NAME_MAX_LEN];

	snprintf(buf, len, "%s%s%s", sf->host != HOST_NONE ? fmt_host(host, sizeof host,
	    sf->host) : "", sf->host != HOST_NONE ? ":" : "", sf->path[0] != '\0' ? sf->path : "?");
}

/* A file's verdict line: its one rule, the application's. */
void
stack_file_line(char *buf, size_t len, const struct stack_file *sf)
{
	char	 name[HOST_NAME_MAX_LEN + STACK_PATH];

	stack_file_name(name, sizeof name, sf);
	stack_rule_line(buf, len, name, 3,
	    stack_far(stack_hist_mean(&sf->wgap), sf->wgap.n, stack_hist_mean(&sf->fsync),
	    sf->fsync.n), "write_to_fsync", stack_hist_mean(&sf->wgap), sf->wgap.n, "fsync",
	    stack_hist_mean(&sf->fsync), sf->fsync.n);
}

/* The rules that a scope has, one line each. */
static void
stack_print_verdict(FILE *f, const char *scope, const struct stack_verdict *v, int blk, int calls)
{
	char		 lines[4][STACK_LINE];
	unsigned	 i, n = stack_verdict_lines(scope, v, blk, calls, lines);

	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
}

/*
 * The script's histograms over every device and every process kept, in the
 * order bpftrace prints its maps at exit (by name), so that the two outputs
 * diff line by line; then blktop's own figure and the verdicts.
 */
void
stack_print_text(FILE *f, const struct blktop *b __unused, const struct stack *st)
{
	const struct stack_dev	*a = &st->all;
	const struct stack_proc	*p = &st->procs_all;
	struct stack_verdict	 v;
	char			 scope[HOST_NAME_MAX_LEN + 64], line[STACK_LINE];
	unsigned		 i;

	fputs("\n\n", f);
	stack_rows(f, "bssplit_read_kb", a->bs[0].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "bssplit_write_kb", a->bs[1].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "d2c_read_us", a->d2c[0].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "d2c_write_us", a->d2c[1].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "fsync_us", p->fsync.b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "lba_read_gb", a->lba[0], STACK_LBA_SLOTS, stack_lba_label);
	stack_rows(f, "lba_write_gb", a->lba[1], STACK_LBA_SLOTS, stack_lba_label);
	stack_rows(f, "q2d_read_us", a->q2d[0].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "q2d_write_us", a->q2d[1].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "qd_read", a->qd[0].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "qd_write", a->qd[1].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "vfs_read_us", p->vfs[0].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "vfs_write_us", p->vfs[1].b, STACK_LOG2, stack_hist_label);
	stack_rows(f, "write_to_fsync_us", p->wgap.b, STACK_LOG2, stack_hist_label);
	fputs("# blktop: a file's first write() after its last fsync to the fsync() that makes it "
	    "durable\n", f);
	stack_rows(f, "dirty_to_fsync_us", p->dirty.b, STACK_LOG2, stack_hist_label);
	fprintf(f, "# verdicts: A >> B when mean A >= %.0f x mean B, each of >= %d samples "
	    "(storage_latency_stack.bt's rules); Q2D is start to dispatch\n", STACK_FAR,
	    STACK_MIN_SAMPLES);
	stack_judge(&v, a->q2d, a->d2c, 1, p);
	stack_print_verdict(f, "all", &v, 1, 1);
	for (i = 0; i < st->ndevs; i++) {
		stack_judge(&v, st->devs[i]->q2d, st->devs[i]->d2c, 1, NULL);
		stack_print_verdict(f, device_text(st->devs[i]->dev), &v, 1, 0);
	}
	for (i = 0; i < st->nprocs; i++) {
		p = &st->procs[i];
		stack_judge(&v, &p->q2d, &p->d2c, 0, p);
		stack_proc_name(scope, sizeof scope, p);
		stack_print_verdict(f, scope, &v, 0, 1);
	}
	for (i = 0; i < st->nsfiles; i++) {
		stack_file_line(line, sizeof line, &st->sfiles[i]);
		fprintf(f, "%s\n", line);
	}
	if (st->late != 0 || st->over != 0 || st->procs_dropped != 0 || st->devs_dropped != 0)
		fprintf(f, "# late %" PRIu64 ", over %" PRIu64 ", processes dropped %" PRIu64
		    ", devices dropped %" PRIu64 "\n", st->late, st->over, st->procs_dropped,
		    st->devs_dropped);
	fflush(f);
}

/* ,"name":{"n":..,"mean":..,"buckets":[[lo,count],..]}: only buckets with a count; lo in the hist's unit. */
static void
stack_json_hist(FILE *f, const char *name, const struct stack_hist *h)
{
	unsigned	 i, k = 0;

	fprintf(f, ",\"%s\":{\"n\":%" PRIu64, name, h->n);
	json_num(f, JK_MEAN, h->n > 0, 3, stack_hist_mean(h));
	fprintf(f, ",\"buckets\":[");
	for (i = 1; i < STACK_LOG2; i++) {
		if (h->b[i] == 0)
			continue;
		fprintf(f, "%s[%" PRIu64 ",%" PRIu64 "]", k++ ? "," : "", stack_hist_slot_lo(i),
		    h->b[i]);
	}
	fprintf(f, "]}");
}

/* ,"name":{"n":..,"buckets":[[lo_gb,count],..]}: 10 GiB wide, the last from 8000 GiB up. */
static void
stack_json_lba(FILE *f, const char *name, const uint64_t *c, uint64_t n)
{
	unsigned	 i, k = 0;

	fprintf(f, ",\"%s\":{\"n\":%" PRIu64 ",\"buckets\":[", name, n);
	for (i = 1; i < STACK_LBA_SLOTS; i++) {
		if (c[i] == 0)
			continue;
		fprintf(f, "%s[%u,%" PRIu64 "]", k++ ? "," : "", (i - 1) * STACK_LBA_STEP, c[i]);
	}
	fprintf(f, "]}");
}

/* ,"verdicts":{"device_bound":true|false|null,..}: the rules a scope has. */
static void
stack_json_verdict(FILE *f, const struct stack_verdict *v, int blk, int calls)
{
	const int	 r[4] = { v->dev, v->sched, v->fs, v->app };
	unsigned	 i, k = 0;

	fprintf(f, ",\"verdicts\":{");
	for (i = 0; i < 4; i++) {
		if ((i < 2 && !blk) || (i >= 2 && !calls))
			continue;
		fprintf(f, "%s\"%s\":%s", k++ ? "," : "", stack_rule_keys[i],
		    r[i] < 0 ? "null" : r[i] ? "true" : "false");
	}
	fprintf(f, "}");
}

/* A device's (or all devices') block figures. */
static void
stack_json_dev(FILE *f, const struct stack_dev *d)
{
	stack_json_hist(f, "q2d_read_us", &d->q2d[0]);
	stack_json_hist(f, "q2d_write_us", &d->q2d[1]);
	stack_json_hist(f, "d2c_read_us", &d->d2c[0]);
	stack_json_hist(f, "d2c_write_us", &d->d2c[1]);
	stack_json_hist(f, "bssplit_read_kb", &d->bs[0]);
	stack_json_hist(f, "bssplit_write_kb", &d->bs[1]);
	stack_json_hist(f, "qd_read", &d->qd[0]);
	stack_json_hist(f, "qd_write", &d->qd[1]);
	stack_json_lba(f, "lba_read_gb", d->lba[0], d->lba_n[0]);
	stack_json_lba(f, "lba_write_gb", d->lba[1], d->lba_n[1]);
}

/* A process's (or all processes') call figures. */
static void
stack_json_calls(FILE *f, const struct stack_proc *p)
{
	stack_json_hist(f, "vfs_read_us", &p->vfs[0]);
	stack_json_hist(f, "vfs_write_us", &p->vfs[1]);
	stack_json_hist(f, "fsync_us", &p->fsync);
	stack_json_hist(f, "write_to_fsync_us", &p->wgap);
	stack_json_hist(f, "dirty_to_fsync_us", &p->dirty);
}

/* ,"stack":{..}: since the run started, as the histograms the text prints. */
void
stack_json(FILE *f, const struct blktop *b __unused, const struct stack *st)
{
	struct stack_verdict	 v;
	const struct stack_proc	*p;
	unsigned		 i;

	fprintf(f, ",\"stack\":{\"far\":%.1f,\"min_samples\":%d," JK(JK_LATE) "%" PRIu64
	    ",\"over\":%" PRIu64 ",\"processes_dropped\":%" PRIu64 ",\"all\":{" JK(JK_DEVICE) "null",
	    STACK_FAR, STACK_MIN_SAMPLES, st->late, st->over, st->procs_dropped);
	stack_json_dev(f, &st->all);
	stack_json_calls(f, &st->procs_all);
	stack_judge(&v, st->all.q2d, st->all.d2c, 1, &st->procs_all);
	stack_json_verdict(f, &v, 1, 1);
	fprintf(f, "}," JK(JK_DEVICES) "[");
	for (i = 0; i < st->ndevs; i++) {
		fprintf(f, "%s{" JK(JK_DEVICE), i ? "," : "");
		json_string(f, device_text(st->devs[i]->dev));
		json_host(f, host_count() > 1 ? host_of_dev(st->devs[i]->dev) : HOST_NONE);
		stack_json_dev(f, st->devs[i]);
		stack_judge(&v, st->devs[i]->q2d, st->devs[i]->d2c, 1, NULL);
		stack_json_verdict(f, &v, 1, 0);
		fprintf(f, "}");
	}
	fprintf(f, "]," JK(JK_PROCESSES) "[");
	for (i = 0; i < st->nprocs; i++) {
		p = &st->procs[i];
		fprintf(f, "%s{\"%s\":%u,\"%s\":", i ? "," : "", proc_fields[PROCF_PID].key, p->tgid,
		    proc_fields[PROCF_COMM].key);
		name_json(f, p->comm, BLKTOP_COMM_LEN);
		json_host(f, p->host);
		stack_json_calls(f, p);
		stack_json_hist(f, "q2d_us", &p->q2d);
		stack_json_hist(f, "d2c_us", &p->d2c);
		stack_judge(&v, &p->q2d, &p->d2c, 0, p);
		stack_json_verdict(f, &v, 0, 1);
		fprintf(f, "}");
	}
	fprintf(f, "],\"files_dropped\":%" PRIu64 "," JK(JK_FILES) "[", st->files_dropped);
	for (i = 0; i < st->nsfiles; i++) {
		const struct stack_file *sf = &st->sfiles[i];

		fprintf(f, "%s{\"%s\":", i ? "," : "", file_field_key(FILEF_PATH));
		name_json(f, sf->path, sizeof sf->path);
		json_host(f, sf->host);
		stack_json_hist(f, "fsync_us", &sf->fsync);
		stack_json_hist(f, "write_to_fsync_us", &sf->wgap);
		stack_json_hist(f, "dirty_to_fsync_us", &sf->dirty);
		fprintf(f, ",\"verdicts\":{\"application_bound\":%s}}",
		    stack_far(stack_hist_mean(&sf->wgap), sf->wgap.n, stack_hist_mean(&sf->fsync),
		    sf->fsync.n) < 0 ? "null" : stack_far(stack_hist_mean(&sf->wgap), sf->wgap.n,
		    stack_hist_mean(&sf->fsync), sf->fsync.n) ? "true" : "false");
	}
	fprintf(f, "]}");
}
