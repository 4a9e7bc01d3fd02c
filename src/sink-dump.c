/* sink-dump.c: --dump: every record the stream takes from the replay as a CSV row or a JSON line. */

#include <event2/event.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "host.h"
#include "stream.h"
#include "json-key.h"

/*
 * Print a string as a CSV field (name_text_char's text: '?' for a control,
 * an invisible character or a byte of no character) or a JSON string
 * (name_json: valid UTF-8, invalid bytes escaped reversibly).
 */
static void
sink_dump_str(FILE *f, const char *s, size_t max, int json)
{
	size_t	 i, k;
	int	 shown;

	if (json) {
		name_json(f, s, max);
		return;
	}
	fputc('"', f);
	for (i = 0; i < max && s[i] != '\0'; i += k) {
		k = name_text_char(s + i, strnlen(s + i, max - i), &shown);
		if (!shown)
			fputc('?', f);
		else if (s[i] == '"')
			fputs("\"\"", f);
		else
			fwrite(s + i, 1, k, f);
	}
	fputc('"', f);
}

/*
 * One dump row, fields in the order of sink_dump_cols. Columns are only
 * ever added at the end, so a consumer's column numbers keep working; JSON
 * leaves out fd, addr and len where a row has none and path2 but for renames.
 */
static const char *sink_dump_cols[] = {
	"type", JK_TS, "ts_ns", "dev", JK_DEVICE, "op", "flags", JK_BYTES,
	"sector", "lat_ns", "queue_ns", JK_PID, JK_TGID, JK_COMM, "error",
	"inflight", JK_CGROUP, JK_COUNT, JK_PATH, "class", "fsdev", "ino",
	"fd", "addr", "len", "path2", "offset", JK_LABEL, JK_HOST, JK_LABELS, "schema"
};
/*
 * The dump's schema version, in every row: 1 had no column of its own (up
 * to label), 2 added host, labels and schema. It changes only when a
 * column's meaning does or columns are added.
 */
#define DUMP_SCHEMA		2
/* enum blktop_fop, as the dump's type column names them. */
static const char *sink_dump_fop_names[FOP_MAX] = {
	"mknod", "unlink", "rename", "mkdir", "rmdir", "close", "mmap", "munmap", "fsync",
	"truncate"
};
/* enum blktop_fclass and enum blktop_page_kind, as the dump names them. */
static const char *sink_dump_fclass[BLK_FC_MAX] = { "", "file", "meta", "direct" };
struct dump_row {
	const char	*type;
	uint64_t	 ts, dev, op, flags, bytes, sector, lat, queue, pid, tgid;
	int64_t		 error;
	const char	*class;		/* block: whose pages; page: dirty or fault */
	uint64_t	 fsdev, ino;
	uint64_t	 inflight, cgroup, count;
	int		 no_inflight;	/* a block record whose depth the kernel did not count */
	const char	*comm;		/* BLKTOP_COMM_LEN bytes, or NULL */
	const char	*path;		/* NUL-terminated, or NULL */
	size_t		 pathlen;
	int		 has_fd;	/* file lifecycle rows: */
	int64_t		 fd;
	int		 has_map;	/* mmap, munmap */
	int		 has_len;	/* truncate: its length, without an address */
	uint64_t	 addr, len;
	const char	*path2;		/* rename's new name, or NULL */
	size_t		 path2len;
	int64_t		 offset;	/* read/write: where in the file it started, -1 if not known */
	const char	*label;		/* a mark's, or NULL */
	int		 host;		/* the record's host (host.h), HOST_NONE if none */
};

/* Print one row as CSV or a JSON object. */
static void
sink_dump_row(FILE *f, const struct dump_row *r, int64_t offset, int json)
{
	/* Wrapping sums in uint64_t: a file's times and offset are not trusted to fit. */
	uint64_t	 wall = r->ts + (uint64_t)offset;
	int		 neg = (int64_t)wall < 0;
	uint64_t	 mag = neg ? 0 - wall : wall;
	const char	*sep = json ? "," : ",";
	const struct host_label *labels;
	const char	*host;
	unsigned	 i = 0, k, nlabels;

#define COL(fmt, ...) do {						\
	if (json)							\
		fprintf(f, "%s\"%s\":" fmt, i ? sep : "{",		\
		    sink_dump_cols[i], __VA_ARGS__);			\
	else								\
		fprintf(f, "%s" fmt, i ? sep : "", __VA_ARGS__);	\
	i++;								\
} while (0)
	COL("\"%s\"", r->type);
	COL("%s%" PRIu64 ".%09" PRIu64, neg ? "-" : "",
	    (uint64_t)(mag / NSEC_PER_SEC), (uint64_t)(mag % NSEC_PER_SEC));
	COL("%" PRIu64, r->ts);
	COL("\"%u:%u\"", DEV_MAJOR(r->dev), DEV_MINOR(r->dev));
	COL("%s", "");
	sink_dump_str(f, r->dev != 0 ? device_name((uint32_t)r->dev) : "",
	    DEVNAME_MAX, json);
	COL("%" PRIu64, r->op);
	COL("%" PRIu64, r->flags);
	COL("%" PRIu64, r->bytes);
	COL("%" PRIu64, r->sector);
	COL("%" PRIu64, r->lat);
	COL("%" PRIu64, r->queue);
	COL("%" PRIu64, r->pid);
	COL("%" PRIu64, r->tgid);
	COL("%s", "");
	sink_dump_str(f, r->comm != NULL ? r->comm : "", BLKTOP_COMM_LEN, json);
	COL("%" PRId64, r->error);
	if (r->no_inflight)
		COL("%s", json ? "null" : "");
	else
		COL("%" PRIu64, r->inflight);
	COL("%" PRIu64, r->cgroup);
	COL("%" PRIu64, r->count);
	COL("%s", "");
	sink_dump_str(f, r->path != NULL ? r->path : "", r->pathlen, json);
	COL("\"%s\"", r->class != NULL ? r->class : "");
	if (r->fsdev != 0)
		COL("\"%u:%u\"", DEV_MAJOR(r->fsdev), DEV_MINOR(r->fsdev));
	else
		COL("%s", json ? "\"\"" : "");
	COL("%" PRIu64, r->ino);
	/* Since EV_FOP. */
#define COL_IF(cond, fmt, ...) do {					\
	if (cond)							\
		COL(fmt, __VA_ARGS__);					\
	else if (!json)							\
		COL("%s", "");						\
	else								\
		i++;							\
} while (0)
	COL_IF(r->has_fd, "%" PRId64, r->fd);
	COL_IF(r->has_map, "%" PRIu64, r->addr);
	COL_IF(r->has_map || r->has_len, "%" PRIu64, r->len);
	if (r->path2 != NULL || !json) {
		COL("%s", "");
		sink_dump_str(f, r->path2 != NULL ? r->path2 : "", r->path2len, json);
	} else
		i++;
	/* Since the file position of read and write calls (pread's and the like's before). */
	COL_IF(r->offset >= 0, "%" PRId64, r->offset);
	/* Since marks. */
	if (r->label != NULL || !json) {
		COL("%s", "");
		sink_dump_str(f, r->label != NULL ? r->label : "", MARK_LABEL_MAX, json);
	} else
		i++;
	/* Since schema 2: the host and its labels (CSV: KEY=VALUE;...; JSON: an object). */
	host = host_name(r->host);
	if (host != NULL) {
		COL("%s", "");
		sink_dump_str(f, host, HOST_NAME_MAX_LEN, json);
	} else
		COL("%s", json ? "null" : "");
	labels = host_labels(r->host, &nlabels);
	COL("%s", json ? "{" : "");
	for (k = 0; k < nlabels; k++) {
		if (json) {
			fprintf(f, "%s", k ? "," : "");
			sink_dump_str(f, labels[k].key, HOST_LABEL_KEY_MAX, 1);
			fputc(':', f);
			sink_dump_str(f, labels[k].value, HOST_LABEL_VALUE_MAX, 1);
		} else
			fprintf(f, "%s%s=%s", k ? ";" : "", labels[k].key, labels[k].value);
	}
	if (json)
		fputc('}', f);
	COL("%d", DUMP_SCHEMA);
#undef COL_IF
#undef COL
	fputs(json ? "}\n" : "\n", f);
}

/* The fields a read/write and a lifecycle call share (struct ev_rw, struct ev_fop). */
#define DUMP_FILE_CALL(r, e) do {						\
	(r)->ts = (e)->ts;							\
	(r)->dev = (e)->dev;							\
	(r)->lat = (e)->lat_ns;							\
	(r)->pid = (e)->pid;							\
	(r)->tgid = (e)->tgid;							\
	(r)->comm = (e)->comm;							\
	(r)->error = (e)->error;						\
	(r)->cgroup = (e)->cgroup;						\
	(r)->path = (e)->path;							\
	(r)->pathlen = (e)->path_len;						\
	(r)->fsdev = (e)->dev;							\
	(r)->ino = (e)->ino;							\
} while (0)

/* A block request's row. */
static int
sink_dump_block(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	const struct ev_block *e = rec;

	r->ts = e->ts_done;
	r->dev = e->dev;
	r->op = e->op;
	r->flags = e->flags;
	r->bytes = e->bytes;
	r->sector = e->sector;
	if (!(e->flags & BLK_F_NOLAT)) {
		r->lat = e->ts_done > e->ts_issue ? e->ts_done - e->ts_issue : 0;
		r->queue = e->ts_issue > e->ts_start ? e->ts_issue - e->ts_start : 0;
	}
	r->pid = e->pid;
	r->tgid = e->tgid;
	r->comm = e->comm;
	r->error = e->error;
	r->inflight = e->inflight;
	/* Its depth is the model's, from the requests' times (model-depth.c), known later. */
	r->no_inflight = (e->flags & BLK_F_NODEVSTAT) != 0;
	r->cgroup = e->cgroup;
	r->class = e->fclass < BLK_FC_MAX ? sink_dump_fclass[e->fclass] : "?";
	r->fsdev = e->fsdev;
	r->ino = e->ino;
	return (1);
}

/* A page dirtied or faulted. */
static int
sink_dump_page(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	const struct ev_page *e = rec;

	r->ts = e->ts;
	r->bytes = e->bytes;
	r->pid = e->pid;
	r->tgid = e->tgid;
	r->comm = e->comm;
	r->cgroup = e->cgroup;
	r->class = e->kind == PAGE_DIRTY ? "dirty" : e->kind == PAGE_FAULT ? "fault" : "?";
	r->offset = model_fault_offset(e);
	r->fsdev = e->dev;
	r->ino = e->ino;
	return (1);
}

/* A dirtier paused: its pause as the latency, the system's dirty pages as the count. */
static int
sink_dump_throttle(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	const struct ev_throttle *e = rec;

	r->ts = e->ts;
	r->lat = (uint64_t)e->pause_ms * 1000000;
	r->pid = e->pid;
	r->tgid = e->tgid;
	r->comm = e->comm;
	r->cgroup = e->cgroup;
	r->count = e->dirty;
	return (1);
}

/* A process of the tree: its parent tgid as the count, fork, exec or found as the class. */
static int
sink_dump_task(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	static const char *const kinds[] = { "fork", "exec", "found" };
	const struct ev_task *e = rec;

	r->ts = e->ts;
	r->pid = e->tgid;
	r->tgid = e->tgid;
	r->comm = e->comm;
	r->class = e->kind < nitems(kinds) ? kinds[e->kind] : "other";
	r->count = e->ppid;
	return (1);
}

/* A tick: its time. */
static int
sink_dump_tick(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	r->ts = ((const struct ev_tick *)rec)->ts;
	return (1);
}

/* Events lost: when, and how many. */
static int
sink_dump_lost(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	r->ts = ((const struct ev_lost *)rec)->ts;
	r->count = ((const struct ev_lost *)rec)->count;
	return (1);
}

/* An open; 0 if its path does not fit. */
static int
sink_dump_open(struct blktop *b __unused, const void *rec, size_t len,
    struct dump_row *r)
{
	const struct ev_open *e = rec;

	if (EV_OPEN_SIZE(e->path_len) > len)
		return (0);
	r->ts = e->ts;
	r->dev = e->dev;
	r->flags = e->flags;
	r->lat = e->lat_ns;
	r->pid = e->pid;
	r->tgid = e->tgid;
	r->comm = e->comm;
	r->error = e->ret < 0 ? e->ret : 0;
	r->cgroup = e->cgroup;
	r->path = e->path;
	r->pathlen = e->path_len;
	return (1);
}

/* A read or write call; 0 if its path does not fit. */
static int
sink_dump_rw(struct blktop *b __unused, const void *rec, size_t len,
    struct dump_row *r)
{
	const struct ev_rw *e = rec;

	if (EV_RW_SIZE(e->path_len) > len)
		return (0);
	DUMP_FILE_CALL(r, e);
	r->op = e->op;
	r->bytes = e->done;
	r->offset = e->pos;
	return (1);
}

/* A file operation, typed by its op; 0 if its paths do not fit. */
static int
sink_dump_fop(struct blktop *b __unused, const void *rec, size_t len,
    struct dump_row *r)
{
	const struct ev_fop *e = rec;

	if (e->path_len >= VFS_PATH_MAX || e->path2_len >= VFS_PATH_MAX ||
	    EV_FOP_SIZE(e->path_len, e->path2_len) > len)
		return (0);
	r->type = e->op < FOP_MAX ? sink_dump_fop_names[e->op] : "fop";
	DUMP_FILE_CALL(r, e);
	r->flags = e->flags;
	r->has_fd = 1;
	r->fd = e->fd;
	if (e->op == FOP_MMAP || e->op == FOP_MUNMAP) {
		r->has_map = 1;
		r->addr = e->addr;
		r->len = e->len;
	}
	if (e->op == FOP_TRUNCATE) {
		r->has_len = 1;
		r->len = e->len;
	}
	if (e->op == FOP_RENAME) {
		r->path2 = e->path + e->path_len + 1;
		r->path2len = e->path2_len;
	}
	return (1);
}

/* A mark: when, who sent it, its label; 0 if it is malformed. */
static int
sink_dump_mark(struct blktop *b __unused, const void *rec, size_t len, struct dump_row *r)
{
	const struct ev_mark *e = rec;

	if (!rec_types[EV_MARK].valid(rec, len))
		return (0);
	r->ts = e->ts;
	r->pid = r->tgid = e->pid;
	r->label = e->label;
	return (1);
}

/* A disk's part_stat sample: its in-flight, and completions since boot in count. */
static int
sink_dump_diskstat(struct blktop *b __unused, const void *rec, size_t len __unused,
    struct dump_row *r)
{
	const struct ev_diskstat *e = rec;

	r->ts = e->ts;
	r->dev = e->dev;
	r->inflight = e->in_flight;
	r->count = e->ios;
	return (1);
}

/* Each record type's row, after the stream's length check; the type column is the entry's name. */
static int (*const sink_dump_fillers[EV_MAX])(struct blktop *, const void *, size_t,
    struct dump_row *) = {
	[EV_BLOCK] = sink_dump_block,
	[EV_PAGE] = sink_dump_page,
	[EV_THROTTLE] = sink_dump_throttle,
	[EV_TASK] = sink_dump_task,
	[EV_TICK] = sink_dump_tick,
	[EV_LOST] = sink_dump_lost,
	[EV_OPEN] = sink_dump_open,
	[EV_RW] = sink_dump_rw,
	[EV_FOP] = sink_dump_fop,
	[EV_MARK] = sink_dump_mark,
	[EV_DISKSTAT] = sink_dump_diskstat,
};

/* The dump sink's state: where the rows go, and as what. */
struct sink_dump {
	FILE		*f;
	int		 json;
};

/* Rows to stdout; a CSV dump starts with its header line. */
static int
sink_dump_start(struct sink *s, char **errp)
{
	const struct dump_opts	*o = s->opts;
	struct sink_dump	*d;
	unsigned		 i;

	*errp = NULL;
	d = s->data = xcalloc(1, sizeof *d);
	d->f = stdout;
	d->json = o->format == REPLAY_DUMP_JSONL;
	if (!d->json) {
		for (i = 0; i < nitems(sink_dump_cols); i++)
			fprintf(d->f, "%s%s", i ? "," : "", sink_dump_cols[i]);
		fputc('\n', d->f);
	}
	return (0);
}

/*
 * One record the stream took (rt NULL: a type this version does not know, an
 * "other" row); none of a device -D leaves out. The dump shows what the files
 * hold: the recording's own device filter, which the replay source takes when
 * there is no -D, leaves out nothing here.
 */
static void
sink_dump_event(struct sink *s, const struct rec_type *rt, const void *rec, size_t len,
    unsigned keep)
{
	struct sink_dump	*d = s->data;
	struct dump_row		 row;

	if (s->b->opt.ndev_args != 0 && !(keep & STREAM_KEEP_DEV))
		return;
	memset(&row, 0, sizeof row);
	row.offset = -1;
	row.host = host_current();
	if (rt == NULL || sink_dump_fillers[rt - rec_types] == NULL)
		row.type = "other";
	else {
		row.type = rt->name;
		if (!sink_dump_fillers[rt - rec_types](s->b, rec, len, &row))
			return;
	}
	sink_dump_row(d->f, &row, s->b->mono_to_wall, d->json);
}

/* The files have nothing more: the rows are out, or the run fails; stop. */
static void
sink_dump_end(struct sink *s)
{
	struct sink_dump	*d = s->data;
	struct blktop		*b = s->b;

	if (fflush(d->f) != 0 || ferror(d->f)) {
		log_warnx("stdout: %s", strerror(errno));
		b->status = 1;
	}
	if (b->base != NULL)
		event_base_loopbreak(b->base);
}

/* Free the state. */
static void
sink_dump_stop(struct sink *s)
{
	free(s->data);
	s->data = NULL;
}

const struct sink_entry sink_dump = {
	.name = "dump",
	.start = sink_dump_start,
	.event = sink_dump_event,
	.end = sink_dump_end,
	.stop = sink_dump_stop,
};
