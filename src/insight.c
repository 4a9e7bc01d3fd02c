/*
 * insight.c: the rules of doc/insights.md over the model's files and
 * processes: a table, one entry per rule, each with its test and its text.
 * A scan walks every entry once (O(files + processes)) and allocates nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "insight.h"

const struct insight_conf insight_defaults = {
	.min_calls = 1000,
	.small_bytes = 1048576,	/* Drishti's: requests under 1 MB (Darshan's bins up to 100K-1M) */
	.small_share = 0.10,
	.random_share = 0.20,
	.storm_opens = 1000,
	.storm_ratio = 1.0,
	.reread_factor = 1.5,
	.reread_bytes = 1048576,
	.misaligned_share = 0.10,
	.fsync_calls = 100,
	.fsync_ratio = 0.25,
	.min_requests = 1000,
	.queue_share = 0.5,
	.meta_share = 0.25,
	.wb_pause_ms = 1000,
	.wb_pause_share = 0.10,
};

/* The upper edges of Darshan's bins (pattern.c's), for small_bytes. */
static const uint64_t insight_edges[PAT_BINS - 1] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
};

/* How many bins lie at or under edge v (a bin edge); -1 if v is no edge. */
int
insight_small_edge(uint64_t v)
{
	unsigned i;

	for (i = 0; i < PAT_BINS - 1; i++)
		if (insight_edges[i] == v)
			return ((int)i + 1);
	return (-1);
}

/* A bin edge as text: 100 B, 1 KiB ... 1 GiB. */
static const char *
insight_bytes(uint64_t v, char *buf, size_t len)
{
	if (v >= 1073741824 && v % 1073741824 == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v >= 1048576 && v % 1048576 == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	return (buf);
}

/* small-io: over small_share of a file's calls at or under small_bytes, over min_calls calls. */
static int
insight_small_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct pattern	*p = &((const struct file_entry *)entry)->pat;
	int			 bins = insight_small_edge(c->small_bytes);
	uint64_t		 small = 0;
	unsigned		 d;
	int			 i;

	*n = p->side[0].accesses + p->side[1].accesses;
	for (d = 0; d < 2; d++)
		for (i = 0; i < bins; i++)
			small += p->side[d].hist[i];
	*figure = *n > 0 ? (double)small / (double)*n : 0;
	return (*n > c->min_calls && *figure > c->small_share);
}

static void
insight_small_text(const struct insight_conf *c, const struct insight *in, char *fig, size_t flen,
    char *rule, size_t rlen)
{
	char b[32];

	insight_bytes(c->small_bytes, b, sizeof b);
	snprintf(fig, flen, "%.0f%% of %llu calls at or under %s", in->figure * 100,
	    (unsigned long long)in->n, b);
	snprintf(rule, rlen, "over %.0f%% of a file's calls at or under %s, over %llu calls",
	    c->small_share * 100, b, (unsigned long long)c->min_calls);
}

/*
 * random-io, Drishti's rule (check_random_operation) per direction: a file's
 * calls of one direction with an offset, of which more than min_calls and over
 * random_share were random (neither sequential nor the first of their open and
 * direction: seq counts the firsts judged against the open's origin too, as
 * Darshan does, first_seq of them). Pooling the two directions fired where
 * neither had enough.
 * The direction judged is the one with the larger share; its random calls in
 * *random. 1 if it fires.
 */
static int
insight_random_dir(const struct insight_conf *c, const struct pattern *p, enum pat_dir *dirp,
    double *figure, uint64_t *n, uint64_t *random)
{
	const struct pat_side	*s;
	uint64_t		 with, judged, seq, rnd;
	double			 share;
	int			 d, fires, best = -1;

	*figure = 0;
	*n = *random = 0;
	*dirp = PAT_READ;
	for (d = PAT_READ; d <= PAT_WRITE; d++) {
		s = &p->side[d];
		with = s->accesses - s->no_offset;
		judged = with - s->first;
		seq = s->seq - s->first_seq;
		rnd = judged > seq ? judged - seq : 0;
		share = with > 0 ? (double)rnd / (double)with : 0;
		fires = rnd > c->min_calls && share > c->random_share;
		/* A direction that fires wins over one that does not, then the larger share. */
		if (best == -1 || fires > best || (fires == best && share > *figure)) {
			best = fires;
			*dirp = (enum pat_dir)d;
			*figure = share;
			*n = with;
			*random = rnd;
		}
	}
	return (best);
}

/* random-io: the file's calls of one direction, judged as insight_random_dir says. */
static int
insight_random_fire(const struct insight_conf *c, const void *entry, double *figure,
    uint64_t *n)
{
	enum pat_dir	 d;
	uint64_t	 rnd;

	return (insight_random_dir(c, &((const struct file_entry *)entry)->pat, &d, figure, n,
	    &rnd));
}

/* random-io's figure names the direction judged and its random calls. */
static void
insight_random_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	enum pat_dir	 d;
	double		 share;
	uint64_t	 n, rnd;

	insight_random_dir(c, &in->file->pat, &d, &share, &n, &rnd);
	snprintf(fig, flen, "%.0f%% of %llu %s not sequential: %llu random", in->figure * 100,
	    (unsigned long long)in->n, d == PAT_READ ? "reads" : "writes",
	    (unsigned long long)rnd);
	snprintf(rule, rlen, "over %llu of a file's reads or of its writes with an offset not "
	    "sequential (less each process's first), over %.0f%% of them",
	    (unsigned long long)c->min_calls, c->random_share * 100);
}

/* open-storm: a process's opens, at least storm_opens, over storm_ratio per read/write call. */
static int
insight_storm_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct proc_counts	*t = &((const struct proc_entry *)entry)->tot;
	uint64_t			 calls = t->vfs_calls[0] + t->vfs_calls[1];

	*n = t->opens;
	*figure = (double)t->opens / (double)(calls > 0 ? calls : 1);
	return (t->opens >= c->storm_opens && *figure > c->storm_ratio);
}

static void
insight_storm_text(const struct insight_conf *c, const struct insight *in, char *fig, size_t flen,
    char *rule, size_t rlen)
{
	snprintf(fig, flen, "%llu opens, %.1f per read/write call", (unsigned long long)in->n,
	    in->figure);
	snprintf(rule, rlen, "at least %llu opens by a process, over %.1f per read/write call",
	    (unsigned long long)c->storm_opens, c->storm_ratio);
}

/* Bytes as text, binary units with one decimal. */
static const char *
insight_size(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double		 x = (double)v;
	unsigned	 u = 0;

	while (x >= 1024 && u + 1 < nitems(unit)) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, u == 0 ? "%.0f %s" : "%.1f %s", x, unit[u]);
	return (buf);
}

/*
 * A file's bytes read again (pattern.h: a lower bound when ranges were
 * joined) and touched; *n the reads they were measured on (those with an offset).
 */
static uint64_t
insight_reread(const struct file_entry *f, uint64_t *touched, uint64_t *n)
{
	*touched = f->touched.bytes;
	*n = f->pat.side[PAT_READ].accesses - f->pat.side[PAT_READ].no_offset;
	return (pattern_reread(&f->touched));
}

/* re-read: a file's reads with an offset over reread_factor times the bytes they touched, reread_bytes again at least. */
static int
insight_reread_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct file_entry	*f = entry;
	uint64_t		 touched, again = insight_reread(f, &touched, n);

	*figure = touched > 0 ? (double)f->touched.read / (double)touched : 0;
	return (again >= c->reread_bytes && *figure > c->reread_factor);
}

static void
insight_reread_text(const struct insight_conf *c, const struct insight *in, char *fig, size_t flen,
    char *rule, size_t rlen)
{
	char a[32], t[32];

	snprintf(fig, flen, "%s read, %.2fx the %s touched", insight_size(in->file->touched.read, a, sizeof a),
	    in->figure, insight_size(in->file->touched.bytes, t, sizeof t));
	snprintf(rule, rlen, "a file's bytes read over %.2fx the bytes they touched, %s read again "
	    "at least", c->reread_factor, insight_size(c->reread_bytes, t, sizeof t));
}

/*
 * re-read-from-disk: the bytes read again that the device read again too,
 * min(re-read, device reads - touched), reread_bytes at least; the figure
 * is their share of the re-read.
 */
static uint64_t
insight_fromdisk(const struct file_entry *f, uint64_t *again, uint64_t *n)
{
	uint64_t touched, disk = f->tot.disk_bytes[0];

	*again = insight_reread(f, &touched, n);
	disk = disk > touched ? disk - touched : 0;
	return (disk < *again ? disk : *again);
}

static int
insight_fromdisk_fire(const struct insight_conf *c, const void *entry, double *figure,
    uint64_t *n)
{
	uint64_t again, disk = insight_fromdisk(entry, &again, n);

	*figure = again > 0 ? (double)disk / (double)again : 0;
	return (disk >= c->reread_bytes);
}

static void
insight_fromdisk_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	char		 a[32], d[32];
	uint64_t	 again, n, disk = insight_fromdisk(in->file, &again, &n);

	snprintf(fig, flen, "%s read again from the device, %.0f%% of the %s re-read",
	    insight_size(disk, a, sizeof a), in->figure * 100, insight_size(again, d, sizeof d));
	snprintf(rule, rlen, "bytes read again that the device read again (the lesser of the "
	    "re-read bytes and the device's reads past the bytes touched), %s at least",
	    insight_size(c->reread_bytes, d, sizeof d));
}

/*
 * cache-served: a file read again in full (re-read bytes at least the bytes
 * touched, and reread_bytes) while the device read no more than one pass of
 * it; the figure is the share of its read bytes the device did not read.
 */
static int
insight_cached_fire(const struct insight_conf *c, const void *entry, double *figure,
    uint64_t *n)
{
	const struct file_entry	*f = entry;
	uint64_t		 touched, again = insight_reread(f, &touched, n);
	uint64_t		 disk = f->tot.disk_bytes[0], read = f->touched.read;

	*figure = read > 0 && disk < read ? 1 - (double)disk / (double)read : 0;
	return (again >= c->reread_bytes && again >= touched && disk <= touched);
}

static void
insight_cached_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	char a[32], t[32], d[32];

	snprintf(fig, flen, "%s read over %s touched, the device read %s: %.0f%% from the page "
	    "cache", insight_size(in->file->touched.read, a, sizeof a),
	    insight_size(in->file->touched.bytes, t, sizeof t),
	    insight_size(in->file->tot.disk_bytes[0], d, sizeof d), in->figure * 100);
	snprintf(rule, rlen, "a file read again in full (bytes read again at least the bytes "
	    "touched, and %s) while the device read no more than the bytes touched",
	    insight_size(c->reread_bytes, d, sizeof d));
}

/* misaligned-direct: over misaligned_share of a file's O_DIRECT calls misaligned (pattern.h), one at least. */
static int
insight_misaligned_fire(const struct insight_conf *c, const void *entry, double *figure,
    uint64_t *n)
{
	const struct pattern *p = &((const struct file_entry *)entry)->pat;

	*n = p->direct;
	*figure = p->direct > 0 ? (double)p->misaligned / (double)p->direct : 0;
	return (p->misaligned > 0 && *figure > c->misaligned_share);
}

static void
insight_misaligned_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	snprintf(fig, flen, "%llu of %llu O_DIRECT calls misaligned (%.0f%%)",
	    (unsigned long long)in->file->pat.misaligned, (unsigned long long)in->n,
	    in->figure * 100);
	snprintf(rule, rlen, "over %.0f%% of a file's O_DIRECT calls with an offset or length "
	    "off %u bytes, or refused with EINVAL", c->misaligned_share * 100, PAT_ALIGN);
}

/* fsync-heavy: a process's fsyncs (and fdatasyncs), at least fsync_calls, over fsync_ratio per write call. */
static int
insight_fsync_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct proc_counts *t = &((const struct proc_entry *)entry)->tot;

	*n = t->fops[FOP_FSYNC];
	*figure = (double)*n / (double)(t->vfs_calls[1] > 0 ? t->vfs_calls[1] : 1);
	return (*n >= c->fsync_calls && *figure > c->fsync_ratio);
}

static void
insight_fsync_text(const struct insight_conf *c, const struct insight *in, char *fig, size_t flen,
    char *rule, size_t rlen)
{
	snprintf(fig, flen, "%llu fsyncs, %.2f per write call", (unsigned long long)in->n,
	    in->figure);
	snprintf(rule, rlen, "at least %llu fsync or fdatasync calls by a process, over %.2f per "
	    "write call", (unsigned long long)c->fsync_calls, c->fsync_ratio);
}

/*
 * queue-saturated: over queue_share of a device's await (start to done,
 * summed over its timed requests) spent queued (start to issue: in the I/O
 * scheduler, before the driver took them), over min_requests requests.
 */
static int
insight_queue_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct devrun *r = &((const struct devwin *)entry)->run;

	*n = r->timed;
	*figure = r->wait_sum > 0 ? (double)r->q_sum / (double)r->wait_sum : 0;
	return (*n > c->min_requests && *figure > c->queue_share);
}

static void
insight_queue_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	const struct devrun *r = &in->dev->run;

	snprintf(fig, flen, "%.0f%% of the await queued: %.0f us of %.0f us a request, over %llu "
	    "requests", in->figure * 100, (double)r->q_sum / 1e3 / (double)r->timed,
	    (double)r->wait_sum / 1e3 / (double)r->timed, (unsigned long long)in->n);
	snprintf(rule, rlen, "over %.0f%% of a device's await spent queued before the driver took "
	    "the requests, over %llu requests", c->queue_share * 100,
	    (unsigned long long)c->min_requests);
}

/* metadata-heavy: over meta_share of a device's bytes metadata or journal, over min_requests requests. */
static int
insight_meta_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct devrun	*r = &((const struct devwin *)entry)->run;
	uint64_t		 all = 0;
	unsigned		 k;

	for (k = 0; k < BLK_FC_MAX; k++)
		all += r->bytes[k];
	*n = r->ios;
	*figure = all > 0 ? (double)r->bytes[BLK_FC_META] / (double)all : 0;
	return (*n > c->min_requests && *figure > c->meta_share);
}

static void
insight_meta_text(const struct insight_conf *c, const struct insight *in, char *fig,
    size_t flen, char *rule, size_t rlen)
{
	char	 a[32];

	snprintf(fig, flen, "%.0f%% of the bytes metadata or journal (%s), over %llu requests",
	    in->figure * 100, insight_size(in->dev->run.bytes[BLK_FC_META], a, sizeof a),
	    (unsigned long long)in->n);
	snprintf(rule, rlen, "over %.0f%% of a device's bytes in requests for the filesystem's "
	    "metadata and journal (the block device's own cache), over %llu requests",
	    c->meta_share * 100, (unsigned long long)c->min_requests);
}

/*
 * writeback-storm: a process paused by the kernel for dirtying pages faster
 * than writeback cleaned them, wb_pause_ms at least and over wb_pause_share
 * of its time (first to last record of it).
 */
static int
insight_wb_fire(const struct insight_conf *c, const void *entry, double *figure, uint64_t *n)
{
	const struct proc_entry	*p = entry;
	double			 ms = (double)(p->last_ts - p->first_ts) / 1e6;

	*n = p->tot.throttles;
	*figure = ms > 0 ? (double)p->tot.throttle_ms / ms : 0;
	if (*figure > 1)
		*figure = 1;	/* paused from its first record on */
	return (p->tot.throttle_ms >= c->wb_pause_ms && *figure > c->wb_pause_share);
}

static void
insight_wb_text(const struct insight_conf *c, const struct insight *in, char *fig, size_t flen,
    char *rule, size_t rlen)
{
	snprintf(fig, flen, "paused %llu times for %.1f s, %.0f%% of its time, for dirtying "
	    "pages faster than writeback cleaned them", (unsigned long long)in->n,
	    (double)in->proc->tot.throttle_ms / 1e3, in->figure * 100);
	snprintf(rule, rlen, "a process paused by the kernel's writeback throttling "
	    "(balance_dirty_pages) for at least %llu ms and over %.0f%% of its time",
	    (unsigned long long)c->wb_pause_ms, c->wb_pause_share * 100);
}

const struct insight_rule insight_rules[] = {
	{ "small-io", INSIGHT_HIGH, INSIGHT_FILE, insight_small_fire, insight_small_text,
	  "make the calls larger (a bigger buffer or block size, or gather them: readv, "
	  "a buffered stream) or read the file whole", HAVE_VFS },
	{ "random-io", INSIGHT_HIGH, INSIGHT_FILE, insight_random_fire, insight_random_text,
	  "read in offset order where the format allows it (sort the indices, larger "
	  "contiguous records), or give the kernel a hint (posix_fadvise RANDOM, or "
	  "prefetch with readahead)", HAVE_VFS },
	{ "misaligned-direct", INSIGHT_HIGH, INSIGHT_FILE, insight_misaligned_fire,
	  insight_misaligned_text,
	  "align O_DIRECT offsets, lengths and buffers to 4 KiB (posix_memalign, a block-sized "
	  "record layout); misaligned direct writes are serialised, refused ones (EINVAL) never "
	  "reached the device", HAVE_VFS },
	{ "re-read-from-disk", INSIGHT_HIGH, INSIGHT_FILE, insight_fromdisk_fire,
	  insight_fromdisk_text,
	  "the page cache did not keep the file between its reads: give it the memory (a "
	  "cgroup's memory.max, other readers evicting it), read it in one pass, or keep the "
	  "parts read again in the application (O_DIRECT readers must)", HAVE_VFS | HAVE_FILES },
	{ "re-read", INSIGHT_WARN, INSIGHT_FILE, insight_reread_fire, insight_reread_text,
	  "keep what is read again in the application (a buffer, a cache of records), or read "
	  "each part once", HAVE_VFS },
	{ "cache-served", INSIGHT_INFO, INSIGHT_FILE, insight_cached_fire, insight_cached_text,
	  "the page cache served the reads again: a benchmark's later passes measure memory, "
	  "not the device (drop the caches between passes, use O_DIRECT, or size the data past "
	  "the memory)", HAVE_VFS | HAVE_FILES },
	{ "fsync-heavy", INSIGHT_WARN, INSIGHT_PROC, insight_fsync_fire, insight_fsync_text,
	  "sync less often: batch writes between fsyncs (group commit), fdatasync where the "
	  "metadata need not be durable, or sync_file_range for writeback without waiting", HAVE_FSYNC },
	{ "open-storm", INSIGHT_WARN, INSIGHT_PROC, insight_storm_fire, insight_storm_text,
	  "keep files open across uses, or pack many small files into one (a tar, "
	  "WebDataset or TFRecord shard)", HAVE_VFS },
	{ "writeback-storm", INSIGHT_WARN, INSIGHT_PROC, insight_wb_fire, insight_wb_text,
	  "the device cannot write back as fast as the process dirties: write less or "
	  "compress, spread writes over more devices, or write with O_DIRECT or "
	  "sync_file_range in step with the device instead of through the page cache", HAVE_THROTTLE },
	{ "queue-saturated", INSIGHT_WARN, INSIGHT_DEVICE, insight_queue_fire, insight_queue_text,
	  "the device takes requests slower than they come: more in flight only adds "
	  "latency; lower the queue depth the application keeps, spread the load over more "
	  "devices, or move it to a faster one", 0 },
	{ "metadata-heavy", INSIGHT_WARN, INSIGHT_DEVICE, insight_meta_fire, insight_meta_text,
	  "the filesystem's bookkeeping moves more bytes than the data: fewer, larger files "
	  "(pack small ones), fewer creates, renames and fsyncs, or a larger journal and "
	  "commit interval", HAVE_FILES },
};
const unsigned insight_nrules = nitems(insight_rules);

const char *
insight_level_name(enum insight_level l)
{
	return (l == INSIGHT_HIGH ? "high" : l == INSIGHT_WARN ? "warn" : "info");
}

/* A scan in progress: the findings kept, the highest first once sorted. */
struct insight_scan {
	const struct insight_conf	*conf;
	unsigned			 have;		/* the source's HAVE_* bits */
	struct insight			*out;
	unsigned			 n, max;
	uint64_t			 more;
};

/* Whether a ranks before b: higher level, then the larger figure. */
static int
insight_before(const struct insight *a, const struct insight *b)
{
	if (a->rule->level != b->rule->level)
		return (a->rule->level > b->rule->level);
	return (a->figure > b->figure);
}

static int
insight_cmp(const void *a, const void *b)
{
	return (insight_before(a, b) ? -1 : insight_before(b, a) ? 1 : 0);
}

/* Keep in, in place of the lowest kept if there is no room and it ranks before it. */
static void
insight_keep(struct insight_scan *sc, const struct insight *in)
{
	unsigned i, low = 0;

	if (sc->n < sc->max) {
		sc->out[sc->n++] = *in;
		return;
	}
	sc->more++;
	if (sc->max == 0)
		return;
	for (i = 1; i < sc->n; i++)
		if (insight_before(&sc->out[low], &sc->out[i]))
			low = i;
	if (insight_before(in, &sc->out[low]))
		sc->out[low] = *in;
}

/* Every rule of subject s on one entry. */
static void
insight_entry(struct insight_scan *sc, enum insight_subject s, const void *entry)
{
	struct insight	 in;
	unsigned	 r;

	for (r = 0; r < insight_nrules; r++) {
		if (insight_rules[r].subject != s ||
		    (insight_rules[r].need & sc->have) != insight_rules[r].need)
			continue;
		memset(&in, 0, sizeof in);
		if (!insight_rules[r].fire(sc->conf, entry, &in.figure, &in.n))
			continue;
		in.rule = &insight_rules[r];
		if (s == INSIGHT_FILE)
			in.file = entry;
		else if (s == INSIGHT_PROC)
			in.proc = entry;
		else
			in.dev = entry;
		insight_keep(sc, &in);
	}
}

static void
insight_file(void *ctx, const struct file_entry *f)
{
	insight_entry(ctx, INSIGHT_FILE, f);
}

static void
insight_proc(void *ctx, const struct proc_entry *p)
{
	insight_entry(ctx, INSIGHT_PROC, p);
}

/*
 * The findings of every rule over the run's devices, and its files and
 * processes when calls are traced, at most max of them into out, highest
 * level first (then the larger figure); *more: how many fired beyond those.
 * Returns how many were stored.
 */
unsigned
insight_scan(const struct blktop *b, struct insight *out, unsigned max, uint64_t *more)
{
	struct insight_scan sc = { &b->opt.insight, b->have, out, 0, max, 0 };
	unsigned	    i;

	for (i = 0; i < b->win.ndevs; i++)
		insight_entry(&sc, INSIGHT_DEVICE, b->win.devs[i]);
	if (b->procs != NULL && (b->have & HAVE_VFS)) {
		top_each_file(b->procs, insight_file, &sc);
		top_each(b->procs, insight_proc, &sc);
	}
	qsort(out, sc.n, sizeof(*out), insight_cmp);
	*more = sc.more;
	return (sc.n);
}
