/* sink-trace-json.c: --trace's file: the kept events as Chrome Trace Event JSON, with their names and what was left out. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "field-dev.h"
#include "host.h"
#include "trace.h"

static const char *trace_kind_names[TR_KINDS] = {
	"requests", "calls", "async_calls", "opens", "file_ops", "lost", "device_counters",
	"process_counters", "marks", "recordings"
};

/* Time for the file: microseconds of wall time, ns digits kept. */
static void
trace_ts(FILE *f, const struct trace *t, const struct blktop *b, uint64_t ts)
{
	int64_t		 w = (int64_t)(ts + (uint64_t)b->mono_to_wall + (uint64_t)t->opts.offset_ns);
	uint64_t	 m = w < 0 ? 0 - (uint64_t)w : (uint64_t)w;

	fprintf(f, "%s%" PRIu64 ".%03u", w < 0 ? "-" : "", m / 1000, (unsigned)(m % 1000));
}

static void
trace_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static const char *
trace_op_name(unsigned op)
{
	static const char *names[] = { "read", "write", "flush", "discard", "secure erase",
		"write zeroes", "other" };

	return (op < nitems(names) ? names[op] : "other");
}

static const char *
trace_sys_name(unsigned sys)
{
	static const char *names[VFS_SYS_MAX] = {
		"open", "creat", "openat", "openat2", "read", "write", "pread64", "pwrite64",
		"readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2", "vfs_read",
		"vfs_write", "do_filp_open", "io_uring read", "io_uring write", "aio read",
		"aio write", "close", "unlink", "unlinkat", "rename", "renameat", "renameat2",
		"mkdir", "mkdirat", "rmdir", "mknod", "mknodat", "mmap", "munmap", "sendfile",
		"splice", "copy_file_range", "fsync", "fdatasync", "truncate", "ftruncate"
	};

	return (sys < VFS_SYS_MAX ? names[sys] : "call");
}

/*
 * The process a device's track is in: its own (pid = tid = TRACE_DEV_PID +
 * its index); in a run of several hosts, its host's, one per host
 * (TRACE_DEV_PID + TRACE_DEVS + the host's index), the track a thread of it.
 */
static uint32_t
trace_dev_pid(const struct trace *t, int i)
{
	int	 h;

	if (i < 0 || host_count() < 2 || (h = host_of_dev(t->devs[i])) == HOST_NONE)
		return (TRACE_DEV_PID + (uint32_t)i);
	return (TRACE_DEV_PID + TRACE_DEVS + (uint32_t)h);
}

/* The common head of an event: "{"ph":..,"ts":..,"pid":..,"tid":.. */
static void
trace_head(FILE *f, const struct trace *t, const struct blktop *b, char ph, uint64_t ts,
    uint32_t pid, uint32_t tid)
{
	fprintf(f, ",\n{\"ph\":\"%c\",\"ts\":", ph);
	trace_ts(f, t, b, ts);
	fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, pid, tid);
}

static void
trace_path_arg(FILE *f, const struct trace *t, uint32_t path)
{
	const char	*p = trace_path_str(t, path);

	if (p != NULL) {
		fputs(",\"path\":", f);
		json_string(f, p);
	}
}

/* A request: its slice on its device's track, the queue and device phases nested in it. */
static void
trace_write_req(FILE *f, const struct trace *t, const struct blktop *b, const struct trace_ev *v)
{
	static const char *cls[BLK_FC_MAX] = { "", "page cache", "metadata", "direct" };
	int		 di = trace_dev_find(t, v->dev);
	uint32_t	 pid = trace_dev_pid(t, di), tid = TRACE_DEV_PID + (uint32_t)di;
	const char	*name = trace_op_name(v->op);
	const char	*p = trace_path_str(t, v->path);
	int		 nolat = v->fl & 0x100;
	unsigned	 fc = v->fl & 0xff;

	trace_head(f, t, b, 'b', v->ts, pid, tid);
	fprintf(f, ",\"cat\":\"block\",\"name\":\"%s\",\"id2\":{\"local\":\"0x%" PRIx64 "\"},"
	    "\"args\":{\"sector\":%" PRId64 ",\"bytes\":%" PRIu64 ",\"pid\":%" PRIu32
	    ",\"tid\":%" PRIu32, name, v->seq, v->off, v->bytes, TRACE_ID_PID(v->tgid),
	    TRACE_ID_PID(v->pid));
	if (p != NULL) {
		fputs(",\"file\":", f);
		json_string(f, p);
	} else if (fc < BLK_FC_MAX && fc != BLK_FC_NONE)
		fprintf(f, ",\"file\":\"(%s)\"", cls[fc]);
	if (v->error != 0)
		fprintf(f, ",\"error\":%" PRId32, v->error);
	if (nolat)
		fputs(",\"latency\":null", f);
	else {
		fputs(",\"queue_us\":", f);
		trace_us(f, v->mid - v->ts);
		fputs(",\"device_us\":", f);
		trace_us(f, v->ts + v->dur - v->mid);
	}
	fputs("}}", f);
	if (!nolat) {
		trace_head(f, t, b, 'b', v->ts, pid, pid);
		fprintf(f, ",\"cat\":\"block\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}}", v->seq);
		trace_head(f, t, b, 'e', v->mid, pid, pid);
		fprintf(f, ",\"cat\":\"block\",\"name\":\"queue\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}}", v->seq);
		trace_head(f, t, b, 'b', v->mid, pid, pid);
		fprintf(f, ",\"cat\":\"block\",\"name\":\"device\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}}", v->seq);
		trace_head(f, t, b, 'e', v->ts + v->dur, pid, pid);
		fprintf(f, ",\"cat\":\"block\",\"name\":\"device\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}}", v->seq);
	}
	trace_head(f, t, b, 'e', v->ts + v->dur, pid, pid);
	fprintf(f, ",\"cat\":\"block\",\"name\":\"%s\",\"id2\":{\"local\":\"0x%" PRIx64 "\"}}",
	    name, v->seq);
}

/* A call's args: path, offset, bytes asked and done, error. */
static void
trace_call_args(FILE *f, const struct trace *t, const struct trace_ev *v, int rw)
{
	fputs(",\"args\":{", f);
	fprintf(f, "\"fs\":\"%u:%u\"", DEV_MAJOR(v->dev), DEV_MINOR(v->dev));
	trace_path_arg(f, t, v->path);
	if (rw) {
		if (v->off >= 0)
			fprintf(f, ",\"offset\":%" PRId64, v->off);
		fprintf(f, ",\"asked\":%" PRIu64 ",\"done\":%" PRIu64, v->asked, v->bytes);
	}
	if (v->error != 0)
		fprintf(f, ",\"error\":%" PRId32, v->error);
	fputs("}}", f);
}

static void
trace_write_call(FILE *f, const struct trace *t, const struct blktop *b, const struct trace_ev *v)
{
	static const char *fops[FOP_MAX] = { "mknod", "unlink", "rename", "mkdir", "rmdir",
		"close", "mmap", "munmap", "fsync", "truncate" };
	const char	*name;

	switch (v->kind) {
	case TR_ASYNC:
		name = trace_sys_name(v->sys);
		trace_head(f, t, b, 'b', v->ts, v->tgid, v->pid);
		fprintf(f, ",\"cat\":\"async\",\"name\":\"%s\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}", name, v->seq);
		trace_call_args(f, t, v, 1);
		trace_head(f, t, b, 'e', v->ts + v->dur, v->tgid, v->pid);
		fprintf(f, ",\"cat\":\"async\",\"name\":\"%s\",\"id2\":{\"local\":\"0x%" PRIx64
		    "\"}}", name, v->seq);
		return;
	case TR_FOP:
		name = v->op == FOP_FSYNC || v->op == FOP_TRUNCATE ? trace_sys_name(v->sys) :
		    fops[v->op];
		break;
	default:
		name = trace_sys_name(v->sys);
		break;
	}
	trace_head(f, t, b, 'X', v->ts, v->tgid, v->pid);
	fprintf(f, ",\"dur\":");
	trace_us(f, v->dur);
	fprintf(f, ",\"cat\":\"%s\",\"name\":\"%s\"", v->kind == TR_CALL ? "io" : "file", name);
	trace_call_args(f, t, v, v->kind == TR_CALL);
}

/*
 * A device counter's args: the fields of trace_dev_cols, titled and scaled
 * as their rows' .trace column says (field-dev.c), read from the tick's
 * counts the event kept (its p99 kept whole, in us: no histogram is).
 */
static void
trace_write_dev_args(FILE *f, const struct trace_ev *v)
{
	static const struct dev_colref cols[] = {
		{ DEVF_IOPS, DEVF_ALL }, { DEVF_BYTES_S, OPC_READ }, { DEVF_BYTES_S, OPC_WRITE },
		{ DEVF_QD_AVG, DEVF_ALL }, { DEVF_P99, DEVF_ALL },
	};
	static struct sum	 s;		/* large: keep them off the stack */
	static struct dev_ctx	 x;
	const struct dev_col	*col;
	unsigned		 i, n = 0;
	double			 val;
	int			 known;

	memset(&s, 0, sizeof s);
	s.dur_ns = v->mid;
	s.wait_sum = v->extra;
	s.op[OPC_READ].bytes = v->bytes;
	s.op[OPC_WRITE].bytes = v->asked;
	s.op[OPC_OTHER].ios = v->seq;	/* every class's: only their sum is read */
	dev_ctx_init(&x, v->dev, &s, NULL);
	for (i = 0; i < nitems(cols); i++) {
		col = &dev_fields[cols[i].field].trace;
		if (cols[i].field == DEVF_P99) {
			known = v->p99_us != UINT32_MAX;
			val = (double)v->p99_us * 1e3;
		} else
			val = dev_field_value(&x, &cols[i], &known);
		if (known)
			fprintf(f, "%s\"%s\":%.*f", n++ ? "," : "", dev_col_title(col, cols[i].op),
			    col->prec, col->scale != 0 ? val / col->scale : val);
	}
}

static void
trace_write_counter(FILE *f, const struct trace *t, const struct blktop *b,
    const struct trace_ev *v)
{
	double	 secs = (double)v->mid / 1e9;

	if (secs <= 0)
		secs = 1;
	if (v->kind == TR_DEVCNT) {
		int di = trace_dev_find(t, v->dev);
		uint32_t pid = trace_dev_pid(t, di);

		trace_head(f, t, b, 'C', v->ts, pid, TRACE_DEV_PID + (uint32_t)di);
		/* A capture's or a log's device name is anyone's: the one escaper (issue 41, item 12). */
		fputs(",\"name\":", f);
		json_string(f, device_name(v->dev));
		fputs(",\"args\":{", f);
		trace_write_dev_args(f, v);
		fputs("}}", f);
		return;
	}
	trace_head(f, t, b, 'C', v->ts, v->tgid, v->tgid);
	fprintf(f, ",\"name\":\"I/O\",\"args\":{\"read MB/s\":%.3f,\"write MB/s\":%.3f}}",
	    (double)v->bytes / secs / 1e6, (double)v->asked / secs / 1e6);
	/* A hit share only where calls read and the requests name their file. */
	if (v->bytes > 0 && (b->have & HAVE_FILES) && (b->have & HAVE_VFS)) {
		trace_head(f, t, b, 'C', v->ts, v->tgid, v->tgid);
		fprintf(f, ",\"name\":\"cache\",\"args\":{\"hit %%\":%.1f}}",
		    v->extra >= v->bytes ? 0.0 : 100.0 * (1 - (double)v->extra / (double)v->bytes));
	}
}

static void
trace_write_lost(FILE *f, const struct trace *t, const struct blktop *b, const struct trace_ev *v)
{
	static const char *units[LOST_KINDS] = { "records", "block requests", "read/write calls" };

	trace_head(f, t, b, 'i', v->ts, 0, 0);
	fprintf(f, ",\"s\":\"g\",\"name\":\"lost %" PRIu64 " %s\",\"args\":{\"count\":%" PRIu64
	    ",\"unit\":\"%s\"}}", v->bytes, units[v->fl], v->bytes, units[v->fl]);
}

static int
trace_cmp_ts(const void *a, const void *b, void *arg)
{
	const struct trace	*t = arg;
	const struct trace_ev	*x = &t->ev[*(const uint32_t *)a], *y = &t->ev[*(const uint32_t *)b];

	if (x->ts != y->ts)
		return (x->ts < y->ts ? -1 : 1);
	return (x->dur > y->dur ? -1 : x->dur < y->dur);
}

static int
trace_cmp_thread(const void *a, const void *b)
{
	const struct trace_thread *x = a, *y = b;

	if (x->tgid != y->tgid)
		return (x->tgid < y->tgid ? -1 : 1);
	if ((x->tid == x->tgid) != (y->tid == y->tgid))
		return (x->tid == x->tgid ? -1 : 1);
	return (x->tid < y->tid ? -1 : x->tid > y->tid);
}

static void
trace_name_event(FILE *f, const char *what, uint32_t pid, uint32_t tid, const char *name,
    size_t n)
{
	fprintf(f, ",\n{\"ph\":\"M\",\"ts\":0,\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
	    ",\"name\":\"%s\",\"args\":{\"name\":", pid, tid, what);
	name_json(f, name, n);
	fputs("}}", f);
}

/* Where a process's group sorts in the viewer (devices and hosts first). */
static void
trace_sort_index(FILE *f, uint32_t pid, int index)
{
	fprintf(f, ",\n{\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":0,\"name\":"
	    "\"process_sort_index\",\"args\":{\"sort_index\":%d}}", pid, index);
}

/*
 * A process's name: its main thread's comm; in a run of several hosts (its
 * pid has host bits) "host:comm[pid]" (the trace's pid is not its own),
 * sorted after its host's group, so that each host's processes follow its disks.
 */
static void
trace_write_proc_name(FILE *f, const struct trace_thread *th)
{
	int	 host = (int)(th->tgid >> PROC_ID_HOST_SHIFT) - 1;
	char	 name[HOST_NAME_MAX_LEN + BLKTOP_COMM_LEN + 16], comm[BLKTOP_COMM_LEN + 1];

	if (host < 0 || host_name(host) == NULL) {
		trace_name_event(f, "process_name", th->tgid, 0, th->comm,
		    strnlen(th->comm, BLKTOP_COMM_LEN));
		return;
	}
	snprintf(comm, sizeof comm, "%.*s", BLKTOP_COMM_LEN, th->comm);
	snprintf(name, sizeof name, "%s:%s[%" PRIu32 "]", host_name(host), comm,
	    TRACE_ID_PID(th->tgid));
	trace_name_event(f, "process_name", th->tgid, 0, name, strlen(name));
	trace_sort_index(f, th->tgid, -2000 + 2 * host + 1);
}

/* The names: each process (its main thread's comm), thread and device track. */
static void
trace_write_names(FILE *f, struct trace *t)
{
	struct trace_thread	*th = t->threads;
	uint32_t		 i, n = 0, last = 0;
	char			 name[DEVNAME_MAX + HOST_NAME_MAX_LEN + 8];

	for (i = 0; i < TRACE_THREADS; i++) {
		if (th[i].tid != 0)
			th[n++] = th[i];
	}
	qsort(th, n, sizeof *th, trace_cmp_thread);
	for (i = 0; i < n; i++) {
		if (i == 0 || th[i].tgid != last) {
			trace_write_proc_name(f, &th[i]);
			last = th[i].tgid;
		}
		trace_name_event(f, "thread_name", th[i].tgid, th[i].tid, th[i].comm,
		    strnlen(th[i].comm, BLKTOP_COMM_LEN));
	}
	for (i = 0; i < t->ndevs; i++) {
		snprintf(name, sizeof name, "disk %s", device_name(t->devs[i]));
		if (trace_dev_pid(t, (int)i) != TRACE_DEV_PID + i) {
			/* A host's group: the disk a thread of it. */
			trace_name_event(f, "thread_name", trace_dev_pid(t, (int)i),
			    TRACE_DEV_PID + i, name, strlen(name));
			continue;
		}
		trace_name_event(f, "process_name", TRACE_DEV_PID + i, 0, name, strlen(name));
		trace_sort_index(f, TRACE_DEV_PID + i, -1000 + (int)i);
	}
	for (i = 0; host_count() > 1 && i < host_count(); i++) {
		snprintf(name, sizeof name, "host %s", host_name((int)i));
		trace_name_event(f, "process_name", TRACE_DEV_PID + TRACE_DEVS + i, 0, name,
		    strlen(name));
		trace_sort_index(f, TRACE_DEV_PID + TRACE_DEVS + i, -2000 + 2 * (int)i);
	}
	if (t->seen[TR_MARK] > 0)
		trace_name_event(f, "thread_name", 0, 1, "phases", 6);
}

/*
 * A phase: a slice on blktop's "phases" track from its mark (or the run's
 * start) to the next mark (or the run's end), named by its label.
 */
static void
trace_write_phase(FILE *f, const struct trace *t, const struct blktop *b,
    const struct trace_ev *m, uint64_t start, uint64_t end)
{
	const char	*label = m != NULL ? trace_path_str(t, m->path) : NULL;

	trace_head(f, t, b, 'X', start, 0, 1);
	fputs(",\"dur\":", f);
	trace_us(f, end > start ? end - start : 0);
	fputs(",\"cat\":\"phase\",\"name\":", f);
	if (label != NULL)
		json_string(f, label);
	else
		fputs(m != NULL ? "\"(a label not kept)\"" : "\"(before the first mark)\"", f);
	fputs(",\"args\":{}}", f);
}

/* A recording started: a global instant, with what started it. */
static void
trace_write_rec(FILE *f, const struct trace *t, const struct blktop *b, const struct trace_ev *v)
{
	const char	*why = trace_path_str(t, v->path);

	trace_head(f, t, b, 'i', v->ts, 0, 0);
	fprintf(f, ",\"s\":\"g\",\"cat\":\"capture\",\"name\":\"%s\",\"args\":{\"by\":",
	    why != NULL && strcmp(why, "trigger") == 0 ? "trigger fired: recording started" :
	    "recording started");
	json_string(f, why != NULL ? why : "?");
	fputs("}}", f);
}

/* A mark: a global instant named by its label. */
static void
trace_write_mark(FILE *f, const struct trace *t, const struct blktop *b, const struct trace_ev *v)
{
	const char	*label = trace_path_str(t, v->path);

	trace_head(f, t, b, 'i', v->ts, 0, 1);
	fputs(",\"s\":\"g\",\"cat\":\"mark\",\"name\":", f);
	json_string(f, label != NULL ? label : "(a label not kept)");
	fprintf(f, ",\"args\":{\"pid\":%" PRIu32 "}}", v->pid);
}

/* The whole file: what made it and what it left out, the names, the events in time order (the threads' table is sorted). */
void
trace_json(FILE *f, struct trace *t, const struct blktop *b, uint64_t dropped)
{
	uint32_t	*order, n = t->nfix + t->nslow + t->nsamp, i;
	uint64_t	 kept = n;
	const struct trace_ev *mark = NULL;
	unsigned	 k;

	order = xreallocarray(NULL, (size_t)n + 1, sizeof *order);
	memcpy(order, t->fix, t->nfix * sizeof *order);
	memcpy(order + t->nfix, t->slow, t->nslow * sizeof *order);
	memcpy(order + t->nfix + t->nslow, t->samp, t->nsamp * sizeof *order);
	qsort_r(order, n, sizeof *order, trace_cmp_ts, t);

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"blktop %s\","
	    "\"clock\":\"%s\",\"ts\":\"microseconds since the Unix epoch%s\","
	    "\"trace_offset_s\":%.6f,\"max_bytes\":%" PRIu64 ",\"events_kept\":%" PRIu64
	    ",\"events_dropped\":%" PRIu64 ",\"sampled\":%s,\"sampling\":\"%s\"",
	    PACKAGE_VERSION, b->wall_known ? "wall" : "none",
	    b->wall_known ? "" : " as far as known: the log has no wall clock, its own "
	    "clock is used", (double)t->opts.offset_ns / 1e9, t->opts.max_bytes, kept,
	    dropped, dropped ? "true" : "false", dropped ? "past max_bytes: the slowest "
	    "requests in a quarter of the bytes and a uniform sample of all the other events"
	    : "none: every event is in");
	for (k = 0; k < TR_KINDS; k++)
		fprintf(f, ",\"%s_seen\":%" PRIu64 ",\"%s_dropped\":%" PRIu64,
		    trace_kind_names[k], t->seen[k], trace_kind_names[k], t->dropped[k]);
	fprintf(f, ",\"requests_past_device_cap\":%" PRIu64 ",\"paths_unnamed\":%" PRIu64
	    ",\"labels_unnamed\":%" PRIu64 ",\"threads_unnamed\":%" PRIu64
	    ",\"lost_in_kernel\":%" PRIu64 "},\n"
	    "\"traceEvents\":[\n{\"ph\":\"M\",\"ts\":0,\"pid\":0,\"tid\":0,\"name\":"
	    "\"process_name\",\"args\":{\"name\":\"blktop\"}}", t->devs_dropped,
	    t->paths_unnamed, t->labels_unnamed, t->threads_unnamed, b->lost);
	trace_write_names(f, t);
	for (i = 0; i < n; i++) {
		const struct trace_ev *v = &t->ev[order[i]];

		switch (v->kind) {
		case TR_MARK:
			trace_write_phase(f, t, b, mark, mark != NULL ? mark->ts : t->run_start, v->ts);
			trace_write_mark(f, t, b, v);
			mark = v;
			break;
		case TR_REQ:
			trace_write_req(f, t, b, v);
			break;
		case TR_DEVCNT:
		case TR_PROCCNT:
			trace_write_counter(f, t, b, v);
			break;
		case TR_LOST:
			trace_write_lost(f, t, b, v);
			break;
		case TR_REC:
			trace_write_rec(f, t, b, v);
			break;
		default:
			trace_write_call(f, t, b, v);
			break;
		}
	}
	if (t->seen[TR_MARK] > 0)
		trace_write_phase(f, t, b, mark, mark != NULL ? mark->ts : t->run_start,
		    b->last_tick);
	fputs("\n]}\n", f);
	free(order);
}
