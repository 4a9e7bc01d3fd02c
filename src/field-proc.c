/* field-proc.c: the process's field table (and the file's and the totals' where they share a counter). */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "draw.h"
#include "fields.h"
#include "field-dev.h"
#include "host.h"
#include "json-key.h"

#define FP_COUNT(m)	.unit = FIELD_COUNT, .off = offsetof(struct proc_counts, m)
#define FP_RAW(m)	.unit = FIELD_RAW, .off = offsetof(struct proc_counts, m)
#define FP_CALLS	(FIELD_PROC | FIELD_FILE | FIELD_SUM)
#define FP_BOTH		(FIELD_PROC | FIELD_FILE)
#define FP_SORT(k)	.sorts = 1, .sort_key = (k), .top_key = (k)

static double	field_pid(const struct field_ctx *, int *);
static double	field_tgid(const struct field_ctx *, int *);
static void	field_comm(FILE *, const struct field_ctx *);
static void	field_host(FILE *, const struct field_ctx *);
static void	field_cgroup(FILE *, const struct field_ctx *);
static double	field_cache_hit(const struct field_ctx *, int *);
static double	field_life_lat(const struct field_ctx *, int *);
static double	field_req_p50(const struct field_ctx *, int *);
static double	field_req_p99(const struct field_ctx *, int *);
static double	field_call_p99(const struct field_ctx *, int *);
static double	field_lat(const struct field_ctx *, int *);
static double	field_req_depth(const struct field_ctx *, int *);
static double	field_req_depth_max(const struct field_ctx *, int *);
static double	field_unread(const struct field_ctx *, int *);
static double	field_lifetime(const struct field_ctx *, int *);
static double	field_creates_s(const struct field_ctx *, int *);
static double	field_unlinks_s(const struct field_ctx *, int *);

/*
 * The fields, the JSON's members first and in its order (doc/json.md says
 * what each means; doc/blktop.schema.json names each). A new measure of a
 * process: its counter in struct proc_counts (the model), one row here, its
 * line in the schema and doc/json.md; a view lists it to show it.
 */
const struct field proc_fields[PROCF_MAX] = {
	[PROCF_PID] = { JK_PID, .unit = FIELD_ID, .ents = FIELD_PROC, .get = field_pid,
	    .top_key = PROC_KEY_LAT, .b = { "PID", 8 }, .ui = { "PID", 7 }, .html = "pid",
	    .help = "process id (thread id with --threads)" },
	[PROCF_TGID] = { JK_TGID, .unit = FIELD_ID, .ents = FIELD_PROC, .get = field_tgid,
	    .help = "thread group id" },
	[PROCF_COMM] = { JK_COMM, .unit = FIELD_TEXT, .ents = FIELD_PROC, .json = field_comm,
	    .top_key = PROC_KEY_LAT, .b = { "COMM", -16 }, .ui = { "COMMAND", 16 },
	    .html = "command", .help = "command name" },
	[PROCF_HOST] = { NULL, .unit = FIELD_GROUP, .ents = FP_BOTH, .json = field_host,
	    .b = { "HOST", -12 }, .ui = { "HOST", 12 },
	    .help = "its host, in a run of several hosts (captures merged); absent in a run of one" },
	[PROCF_CGROUP] = { JK_CGROUP, .unit = FIELD_RAW, .ents = FIELD_PROC,
	    .json = field_cgroup, .help = "cgroup v2 id" },
	[PROCF_REQ_READS] = { "req_reads", .old = "read_ios", FP_RAW(blk_ios[0]),
	    .ents = FIELD_PROC, FP_SORT(PROC_KEY_READ_IOS), .b = { "rd_ios", 7 },
	    .ui = { "r/s", 6 }, .html = "block r", .help = "block read requests it submitted" },
	[PROCF_REQ_WRITES] = { "req_writes", .old = "write_ios", FP_RAW(blk_ios[1]),
	    .ents = FIELD_PROC, FP_SORT(PROC_KEY_WRITE_IOS), .b = { "wr_ios", 7 },
	    .ui = { "w/s", 6 }, .html = "block w",
	    .help = "block write requests it submitted" },
	[PROCF_REQ_READ_BYTES] = { "req_read_bytes", .old = "read_bytes", FP_RAW(blk_bytes[0]),
	    .ents = FIELD_PROC, .bytes = 1, FP_SORT(PROC_KEY_READ_BYTES),
	    .b = { "rd_bytes", 10 }, .ui = { "rMB/s", 6 }, .html = "block read",
	    .help = "bytes of its block read requests" },
	[PROCF_REQ_WRITE_BYTES] = { "req_write_bytes", .old = "write_bytes",
	    FP_RAW(blk_bytes[1]), .ents = FIELD_PROC, .bytes = 1, FP_SORT(PROC_KEY_WRITE_BYTES),
	    .b = { "wr_bytes", 10 }, .ui = { "wMB/s", 6 }, .html = "block written",
	    .help = "bytes of its block write requests" },
	[PROCF_REQ_LAT] = { "req_lat_us", .unit = FIELD_US, .ents = FIELD_PROC | FIELD_INTERVAL,
	    .json = json_field_req_lat, .help = "its requests' device times, us" },
	[PROCF_REQ_DEPTH] = { "req_depth", .unit = FIELD_NUM, .ents = FP_BOTH | FIELD_INTERVAL,
	    .get = field_req_depth, .prec = 2,
	    .help = "mean block requests in flight (start to done) over the interval" },
	[PROCF_REQ_DEPTH_MAX] = { "req_depth_max", FP_COUNT(blk_depth_max), .ents = FIELD_PROC,
	    .get = field_req_depth_max,
	    .help = "the most of its block requests in flight at once (start to done)" },
	[PROCF_OPENS] = { "opens", FP_COUNT(opens), .ents = FP_CALLS,
	    .need_any = HAVE_VFS | HAVE_LIFE, FP_SORT(PROC_KEY_OPENS), .b = { "opens", 6 },
	    .ui = { "open/s", 6 }, .html = "opens",
	    .help = "opens that succeeded (-o opens and the UI: failed ones too)" },
	[PROCF_OPEN_FAILS] = { "open_fails", FP_COUNT(open_fails), .ents = FP_CALLS,
	    .need_any = HAVE_VFS | HAVE_LIFE, .help = "opens that failed" },
	[PROCF_CALL_READS] = { "call_reads", .old = "vfs_reads", FP_COUNT(vfs_calls[0]),
	    .ents = FP_CALLS, .need = HAVE_VFS, FP_SORT(PROC_KEY_VFS_READS),
	    .b = { "reads", 8 }, .ui = { "rcall/s", 7 }, .html = "calls r",
	    .help = "read-family calls" },
	[PROCF_CALL_WRITES] = { "call_writes", .old = "vfs_writes", FP_COUNT(vfs_calls[1]),
	    .ents = FP_CALLS, .need = HAVE_VFS, FP_SORT(PROC_KEY_VFS_WRITES),
	    .b = { "writes", 8 }, .ui = { "wcall/s", 7 }, .html = "calls w",
	    .help = "write-family calls" },
	[PROCF_CALL_READ_BYTES] = { "call_read_bytes", .old = "vfs_read_bytes",
	    FP_COUNT(vfs_bytes[0]), .ents = FP_CALLS, .need = HAVE_VFS, .bytes = 1,
	    FP_SORT(PROC_KEY_VFS_READ_BYTES), .b = { "vfs_rd_B", 10 }, .ui = { "vrMB/s", 6 },
	    .html = "read", .help = "bytes its read calls returned" },
	[PROCF_CALL_WRITE_BYTES] = { "call_write_bytes", .old = "vfs_write_bytes",
	    FP_COUNT(vfs_bytes[1]), .ents = FP_CALLS, .need = HAVE_VFS, .bytes = 1,
	    FP_SORT(PROC_KEY_VFS_WRITE_BYTES), .b = { "vfs_wr_B", 10 }, .ui = { "vwMB/s", 6 },
	    .html = "written", .help = "bytes its write calls wrote" },
	[PROCF_CALL_ERRORS] = { "call_errors", FP_COUNT(vfs_errors), .ents = FP_CALLS,
	    .need = HAVE_VFS, .help = "read and write calls that failed" },
	[PROCF_CALL_LAT] = { "call_lat_us", .unit = FIELD_US, .ents = FP_BOTH | FIELD_INTERVAL,
	    .json = json_field_call_lat, .help = "its read and write calls' times, us" },
	[PROCF_DISK_READ_BYTES] = { "disk_read_bytes", FP_COUNT(disk_bytes[0]), .ents = FP_BOTH,
	    .need_file = HAVE_FILES, .bytes = 1, FP_SORT(PROC_KEY_DISK_READ_BYTES),
	    .ui = { "drMB/s", 6 }, .html = "disk read",
	    .help = "bytes read from a device on its behalf (cache fills, direct I/O)" },
	[PROCF_DISK_WRITE_BYTES] = { "disk_write_bytes", FP_COUNT(disk_bytes[1]),
	    .ents = FP_BOTH, .need_file = HAVE_FILES, .bytes = 1,
	    FP_SORT(PROC_KEY_DISK_WRITE_BYTES), .ui = { "dwMB/s", 6 }, .html = "disk written",
	    .help = "bytes written on its behalf, writeback of its pages included" },
	[PROCF_DISK_READS] = { "disk_reads", FP_COUNT(disk_ios[0]), .ents = FIELD_FILE,
	    .need_file = HAVE_FILES, .help = "block read requests that carried its pages" },
	[PROCF_DISK_WRITES] = { "disk_writes", FP_COUNT(disk_ios[1]), .ents = FIELD_FILE,
	    .need_file = HAVE_FILES, .help = "block write requests that carried its pages" },
	[PROCF_WRITEBACK_BYTES] = { "writeback_bytes", FP_COUNT(wb_bytes), .ents = FIELD_PROC,
	    .need = HAVE_DIRTY, .bytes = 1,
	    .help = "writeback others did of the pages it dirtied" },
	[PROCF_DIRTIED_BYTES] = { "dirtied_bytes", FP_COUNT(dirtied_bytes), .ents = FP_BOTH,
	    .need = HAVE_DIRTY, .bytes = 1, .help = "page-cache bytes it dirtied" },
	[PROCF_CACHE_HIT] = { "cache_hit_pct", .unit = FIELD_PCT, .ents = FP_BOTH,
	    .get = field_cache_hit, .prec = 1, .top_key = PROC_KEY_VFS_READ_BYTES,
	    .ui = { "hit%", 4 }, .help = "read bytes the page cache served, %" },
	[PROCF_MMAP_FAULTS] = { "mmap_faults", FP_COUNT(mmap_faults), .ents = FP_BOTH,
	    .need = HAVE_FAULT, .help = "page faults a file mapping served" },
	[PROCF_URING_READS] = { "uring_reads", FP_COUNT(uring_calls[0]), .ents = FP_BOTH,
	    .need = HAVE_URING, .help = "of its read calls, io_uring's" },
	[PROCF_URING_WRITES] = { "uring_writes", FP_COUNT(uring_calls[1]), .ents = FP_BOTH,
	    .need = HAVE_URING, .help = "of its write calls, io_uring's" },
	[PROCF_AIO_READS] = { "aio_reads", FP_COUNT(aio_calls[0]), .ents = FP_BOTH,
	    .need = HAVE_AIO, .help = "of its read calls, libaio's" },
	[PROCF_AIO_WRITES] = { "aio_writes", FP_COUNT(aio_calls[1]), .ents = FP_BOTH,
	    .need = HAVE_AIO, .help = "of its write calls, libaio's" },
	[PROCF_DISK_LAT] = { "disk_lat_us", .unit = FIELD_US,
	    .ents = FIELD_FILE | FIELD_INTERVAL, .json = json_field_disk_lat,
	    .help = "device times of the requests of its pages, us" },
	[PROCF_CREATES] = { "creates", FP_COUNT(creates), .ents = FP_CALLS, .need = HAVE_LIFE,
	    .help = "opens that created their file, and mknods" },
	[PROCF_MKNODS] = { "mknods", FP_COUNT(fops[FOP_MKNOD]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "mknod calls" },
	[PROCF_UNLINKS] = { "unlinks", FP_COUNT(fops[FOP_UNLINK]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "unlink calls" },
	[PROCF_RENAMES] = { "renames", FP_COUNT(fops[FOP_RENAME]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "rename calls" },
	[PROCF_MKDIRS] = { "mkdirs", FP_COUNT(fops[FOP_MKDIR]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "mkdir calls" },
	[PROCF_RMDIRS] = { "rmdirs", FP_COUNT(fops[FOP_RMDIR]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "rmdir calls" },
	[PROCF_CLOSES] = { "closes", FP_COUNT(fops[FOP_CLOSE]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "close calls" },
	[PROCF_MMAPS] = { "mmaps", FP_COUNT(fops[FOP_MMAP]), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "mmaps of a file" },
	[PROCF_MUNMAPS] = { "munmaps", FP_COUNT(fops[FOP_MUNMAP]), .ents = FP_CALLS,
	    .need = HAVE_LIFE | HAVE_MUNMAP, .help = "munmaps of a file mapping" },
	[PROCF_FSYNCS] = { "fsyncs", FP_COUNT(fops[FOP_FSYNC]), .ents = FP_CALLS,
	    .need = HAVE_LIFE | HAVE_FSYNC, .help = "fsync and fdatasync calls" },
	[PROCF_TRUNCATES] = { "truncates", FP_COUNT(fops[FOP_TRUNCATE]), .ents = FP_CALLS,
	    .need = HAVE_LIFE | HAVE_TRUNCATE, .help = "truncate and ftruncate calls" },
	[PROCF_LIFE_ERRORS] = { "lifecycle_errors", FP_COUNT(fop_errors), .ents = FP_CALLS,
	    .need = HAVE_LIFE, .help = "lifecycle calls that failed" },
	[PROCF_LIFE_LAT] = { "lifecycle_lat_us", .unit = FIELD_US, .ents = FP_CALLS,
	    .need = HAVE_LIFE, .get = field_life_lat, .prec = 1,
	    .help = "lifecycle calls' mean time, us" },
	[PROCF_PATTERN] = { NULL, .unit = FIELD_GROUP, .ents = FP_BOTH,
	    .json = json_field_pattern,
	    .help = "its access pattern since first seen (doc/json.md)" },
	[PROCF_THROTTLES] = { "throttles", FP_COUNT(throttles), .ents = FIELD_PROC,
	    .need = HAVE_THROTTLE,
	    .help = "pauses the kernel made it take for dirtying pages" },
	[PROCF_THROTTLED_MS] = { "throttled_ms", FP_COUNT(throttle_ms), .ents = FIELD_PROC,
	    .need = HAVE_THROTTLE, .help = "those pauses' length, ms" },
	/* Bytes written and never read (src/wear.h, src/model-wear.c). */
	[PROCF_WRITTEN] = { "written_bytes", FP_COUNT(wear.written), .ents = FP_CALLS,
	    .need = HAVE_VFS, .bytes = 1, .html = "wear written",
	    .help = "bytes written by calls with an offset (an overwrite counted again)" },
	[PROCF_READ_BACK] = { "read_back_bytes", FP_COUNT(wear.read_back), .ents = FP_CALLS,
	    .need = HAVE_VFS, .bytes = 1, .html = "read back",
	    .help = "of the bytes written in the run, those a later read covered (once each), "
	    "before an unlink or truncation" },
	[PROCF_NEVER_READ] = { "never_read_bytes", FP_COUNT(wear.never_read), .ents = FP_CALLS,
	    .need = HAVE_VFS, .bytes = 1, FP_SORT(PROC_KEY_NEVER_READ), .ui = { "nvrMB/s", 7 },
	    .html = "never read",
	    .help = "bytes written and never read, counted at the file's unlink, truncation "
	    "(O_TRUNC) or new create, or as a write overwrote them" },
	[PROCF_UNREAD] = { "unread_bytes", .unit = FIELD_COUNT, .ents = FP_BOTH,
	    .need = HAVE_VFS, .get = field_unread, .bytes = 1,
	    .help = "bytes written, not read back yet, the file still there: never read if the "
	    "run ended now (since first seen)" },
	[PROCF_WEAR_OVER] = { "wear_over_bytes", FP_COUNT(wear.over), .ents = FP_CALLS,
	    .need = HAVE_VFS, .bytes = 1,
	    .help = "bytes of gaps joined in full range sets: 0 when the figures above are exact" },
	[PROCF_LIFETIMES] = { "lifetimes", FP_COUNT(wear.lives), .ents = FP_CALLS,
	    .need = HAVE_LIFE,
	    .help = "files unlinked whose create was seen (its lifetime known)" },
	[PROCF_LIFETIME] = { "lifetime_mean_s", .unit = FIELD_SECS, .ents = FP_CALLS,
	    .need = HAVE_LIFE, .get = field_lifetime, .prec = 6,
	    .help = "mean time from a file's create to its unlink, s" },
	[PROCF_CREATES_S] = { "creates_per_s", .unit = FIELD_SECS, .ents = FIELD_PROC | FIELD_SUM,
	    .need = HAVE_LIFE, .get = field_creates_s, .prec = 3,
	    .help = "files created a second: creates over -d (a run: over the time it was seen)" },
	[PROCF_UNLINKS_S] = { "unlinks_per_s", .unit = FIELD_SECS, .ents = FIELD_PROC | FIELD_SUM,
	    .need = HAVE_LIFE, .get = field_unlinks_s, .prec = 3,
	    .help = "unlink calls a second: unlinks over -d (a run: over the time it was seen)" },
	[PROCF_REQ_P50] = { "req_p50", .unit = FIELD_US, .ents = FIELD_PROC | FIELD_INTERVAL,
	    .get = field_req_p50, .top_key = PROC_KEY_LAT, .b = { "blk_p50", 9 },
	    .ui = { "p50", DRAW_LAT_WIDTH }, .help = "its requests' median device time, us" },
	[PROCF_REQ_P99] = { "req_p99", .unit = FIELD_US, .ents = FIELD_PROC | FIELD_INTERVAL,
	    .get = field_req_p99, .top_key = PROC_KEY_LAT, .b = { "blk_p99", 9 },
	    .ui = { "p99", DRAW_LAT_WIDTH },
	    .help = "its requests' 99th percentile device time, us" },
	[PROCF_CALL_P99] = { "call_p99", .unit = FIELD_US, .ents = FIELD_PROC | FIELD_INTERVAL,
	    .get = field_call_p99, .top_key = PROC_KEY_LAT, .ui = { "cp99", DRAW_LAT_WIDTH },
	    .help = "its calls' 99th percentile time, us" },
	[PROCF_LAT] = { "lat", .unit = FIELD_US, .ents = FP_BOTH, .get = field_lat,
	    FP_SORT(PROC_KEY_LAT),
	    .help = "time in I/O: its calls' times and its requests' device times" },
};

/* A process's id. */
static double
field_pid(const struct field_ctx *x, int *known)
{
	*known = 1;
	return (PROC_ID_PID(x->pe->id));
}

/* A process's thread group. */
static double
field_tgid(const struct field_ctx *x, int *known)
{
	*known = 1;
	return (x->pe->tgid);
}

/* A process's command name as a JSON string. */
static void
field_comm(FILE *f, const struct field_ctx *x)
{
	name_json(f, x->pe->comm, BLKTOP_COMM_LEN);
}

/* A host as a member (,"host":NAME), nothing for HOST_NONE (a run of one host): processes', files', the stack's. */
void
json_host(FILE *f, int host)
{
	const char	*name = host != HOST_NONE ? host_name(host) : NULL;

	if (name == NULL)
		return;
	fprintf(f, ",\"%s\":", dev_fields[DEVF_HOST].key);	/* as a device's */
	json_string(f, name);
}

/* A process's or file's host as a member in a run of several hosts; nothing in a run of one. */
static void
field_host(FILE *f, const struct field_ctx *x)
{
	json_host(f, x->ent == FIELD_FILE ? x->fe->host : x->pe->host);
}

/* A process's cgroup id, whole (64 bits). */
static void
field_cgroup(FILE *f, const struct field_ctx *x)
{
	fprintf(f, "%llu", (unsigned long long)x->pe->cgroup);
}

/* The share of read bytes the page cache served; not known where the source cannot tell. */
static double
field_cache_hit(const struct field_ctx *x, int *known)
{
	double	 hit = proc_cache_hit_pct(x->b->have, x->c);

	*known = hit >= 0;
	return (hit);
}

/* The lifecycle calls' mean time, us; none without a call. */
static double
field_life_lat(const struct field_ctx *x, int *known)
{
	uint64_t	 n = 0;
	unsigned	 i;

	for (i = 0; i < FOP_MAX; i++)
		n += x->c->fops[i];
	*known = n > 0;
	return (n > 0 ? (double)x->c->fop_lat_sum / (double)n / 1e3 : 0);
}

/* A percentile of a process's interval latencies (blk: its requests', else its calls'), us. */
static double
field_proc_pct(const struct field_ctx *x, int blk, double p, int *known)
{
	const struct proc_hist	*h = proc_entry_hist(x->b->procs, x->pe, blk);

	*known = h->n != 0;
	return (h->n != 0 ? proc_hist_pct(h, p) / 1e3 : 0);
}

/* Its requests' median device time. */
static double
field_req_p50(const struct field_ctx *x, int *known)
{
	return (field_proc_pct(x, 1, 50, known));
}

/* Its requests' 99th percentile device time. */
static double
field_req_p99(const struct field_ctx *x, int *known)
{
	return (field_proc_pct(x, 1, 99, known));
}

/* Its calls' 99th percentile time. */
static double
field_call_p99(const struct field_ctx *x, int *known)
{
	return (field_proc_pct(x, 0, 99, known));
}

/* Time in I/O, ns: what -o lat orders by. */
static double
field_lat(const struct field_ctx *x, int *known)
{
	*known = 1;
	return ((double)(x->c->vfs_lat_sum + x->c->blk_lat_sum));
}

/*
 * The depth it kept: its block requests' in-flight time (start to done) that
 * completed in the interval, over the interval's ticks (iostat's aqu-sz, of
 * its requests only); none without a request with times.
 */
static double
field_req_depth(const struct field_ctx *x, int *known)
{
	uint64_t	 ns = (uint64_t)x->b->ticks_since_report * x->b->tick_ns;

	*known = ns != 0 && x->c->blk_wait_sum != 0;
	return (*known ? (double)x->c->blk_wait_sum / (double)ns : 0);
}

/* The most requests it had in flight at once (model-pdepth.c); none without a request with times. */
static double
field_req_depth_max(const struct field_ctx *x, int *known)
{
	*known = x->c->blk_depth_max != 0;
	return ((double)x->c->blk_depth_max);
}

/*
 * Bytes written and still unread: a file's own set's, a process's by its
 * counters since first seen (written - read back - never read + over: the
 * files it wrote last); not kept for the interval's totals.
 */
static double
field_unread(const struct field_ctx *x, int *known)
{
	const struct wear_counts	*w;
	uint64_t			 out;

	*known = 1;
	if (x->fe != NULL)
		return ((double)x->fe->wear.unread.bytes);
	if (x->pe == NULL) {
		*known = 0;
		return (0);
	}
	w = &x->pe->tot.wear;
	out = w->read_back + w->never_read;
	return (w->written + w->over > out ? (double)(w->written + w->over - out) : 0);
}

/* Mean create-to-unlink time, s; none without one. */
static double
field_lifetime(const struct field_ctx *x, int *known)
{
	*known = x->c->wear.lives > 0;
	return (*known ? (double)x->c->wear.life_ns / (double)x->c->wear.lives / 1e9 : 0);
}

/* n a second: over -d, or over a whole run's process's time seen. */
static double
field_per_s(const struct field_ctx *x, uint64_t n, int *known)
{
	double	 secs = x->b->opt.interval;

	if (x->whole && x->pe != NULL)
		secs = (double)(x->pe->last_ts - x->pe->first_ts) / 1e9;
	*known = secs > 0;
	return (secs > 0 ? (double)n / secs : 0);
}

/* Files created a second. */
static double
field_creates_s(const struct field_ctx *x, int *known)
{
	return (field_per_s(x, x->c->creates, known));
}

/* Unlinks a second. */
static double
field_unlinks_s(const struct field_ctx *x, int *known)
{
	return (field_per_s(x, x->c->fops[FOP_UNLINK], known));
}

/* A counter's value (rows with an offset in struct proc_counts). */
uint64_t
field_count(const struct field *r, const struct field_ctx *x)
{
	uint64_t	 v;

	memcpy(&v, (const char *)x->c + r->off, sizeof v);
	return (v);
}

/* A field's value, and whether the source can tell it (else *known is 0). */
double
field_value(const struct field *r, const struct field_ctx *x, int *known)
{
	unsigned	 have = x->b->have;
	double		 v;
	int		 k;

	*known = (have & r->need) == r->need && (r->need_any == 0 || (have & r->need_any)) &&
	    (x->ent != FIELD_FILE || (have & r->need_file) == r->need_file);
	if (r->get == NULL)
		return ((double)field_count(r, x));
	v = r->get(x, &k);
	*known = *known && k;
	return (v);
}

/*
 * The rows from to to (not included) that x's entity has, as JSON members:
 * ,"key":value each ({ before the first while *first); null where the source
 * cannot tell.
 */
void
field_json(FILE *f, const struct field_ctx *x, unsigned from, unsigned to, int *first)
{
	const struct field	*r;
	unsigned		 i;

	for (i = from; i < to && i < PROCF_JSON_END; i++) {
		r = &proc_fields[i];
		if (!(r->ents & x->ent) || (x->whole && (r->ents & FIELD_INTERVAL)))
			continue;
		field_json_one(f, r, x, first);
	}
}

/* Row r as a JSON member: ,"key":value ({ before it while *first); null where the source cannot tell. */
void
field_json_one(FILE *f, const struct field *r, const struct field_ctx *x, int *first)
{
	double	 v;
	int	 known;

	if (r->unit == FIELD_GROUP) {
		r->json(f, x);
		return;
	}
	fprintf(f, "%c\"%s\":", *first ? '{' : ',', r->key);
	*first = 0;
	if (r->json != NULL)
		r->json(f, x);
	else if (r->unit == FIELD_RAW)
		fprintf(f, "%llu", (unsigned long long)field_count(r, x));
	else if (r->unit == FIELD_ID)
		fprintf(f, "%u", (unsigned)field_value(r, x, &known));
	else {
		v = field_value(r, x, &known);
		json_val(f, known, r->prec, v);
	}
}

/* A field as -b's table has it: its width, "-" for a time not known. */
void
field_text(const struct field *r, const struct field_ctx *x, char *buf, size_t len)
{
	char		 comm[BLKTOP_COMM_LEN], host[64];
	double		 v;
	int		 known, w = r->b.width < 0 ? -r->b.width : r->b.width;

	switch (r->unit) {
	case FIELD_TEXT:
		fmt_comm(comm, x->pe->comm);
		snprintf(buf, len, "%*s", r->b.width, comm);
		break;
	case FIELD_GROUP:	/* of the groups, only the host has a text column */
		snprintf(buf, len, "%*s", r->b.width, fmt_host(host, sizeof host, x->pe->host));
		break;
	case FIELD_US:
	case FIELD_SECS:
	case FIELD_PCT:
	case FIELD_NUM:
		v = field_value(r, x, &known);
		fmt_num(buf, len, w, 1, known, v);
		break;
	case FIELD_ID:
		snprintf(buf, len, "%*u", r->b.width, (unsigned)field_value(r, x, &known));
		break;
	default:
		snprintf(buf, len, "%*llu", r->b.width, (unsigned long long)field_count(r, x));
		break;
	}
}

/* -o's name of a sort key ("?" if none). */
const char *
field_key_name(int key)
{
	unsigned	 i;

	for (i = 0; i < PROCF_MAX; i++) {
		if (proc_fields[i].sorts && proc_fields[i].sort_key == key)
			return (proc_fields[i].key);
	}
	return ("?");
}

/* A sort key from its name or its former name, -1 if none. */
int
field_key_parse(const char *s)
{
	const struct field	*r;
	unsigned		 i;

	for (i = 0; i < PROCF_MAX; i++) {
		r = &proc_fields[i];
		if (r->sorts && (strcmp(s, r->key) == 0 || (r->old != NULL && strcmp(s, r->old) == 0)))
			return (r->sort_key);
	}
	return (-1);
}

/*
 * -o's names, sep between them, as the table orders its fields (for --help
 * and -o's error: no list written by hand). Its length, as snprintf's.
 */
size_t
field_key_list(char *buf, size_t len, const char *sep)
{
	size_t		 n = 0;
	unsigned	 i;
	int		 w;

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < PROCF_MAX; i++) {
		if (!proc_fields[i].sorts)
			continue;
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
		    n ? sep : "", proc_fields[i].key);
		if (w > 0)
			n += (size_t)w;
	}
	return (n);
}
