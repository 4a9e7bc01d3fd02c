/* sink-metrics.c: the metrics sink: counters since start, served over HTTP to Prometheus (text 0.0.4 or OpenMetrics 1.0). */

#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "field-dev.h"
#include "sink-metrics-node.h"

/*
 * Operations as /proc/diskstats groups them (node_exporter's labels): write
 * zeroes and secure erase are writes; what none of these is, "other".
 */
enum metrics_op { MOP_READ, MOP_WRITE, MOP_DISCARD, MOP_FLUSH, MOP_OTHER, MOP_MAX };
static const char *metrics_op_names[MOP_MAX] = {
	"read", "write", "discard", "flush", "other"
};

/*
 * Exported histogram bounds: 1 us to 2^METRICS_POWERS us at two per power of
 * two (1, 1.5, 2, 3, 4, 6 ... us), each a bound of blktop's own log-linear
 * buckets, so the collapse is exact and histogram_quantile lands within one
 * exported bucket (at most 50% wide) of blktop's own percentile.
 */
#define METRICS_POWERS	25
#define METRICS_NBOUNDS	(2 * METRICS_POWERS + 1)

/* Cgroups with series of their own; the rest are summed under cgroup="other". */
#define METRICS_CGROUPS	32

/*
 * A device's counters since start; an operation's in the model's struct
 * sum_op (ios, bytes, errors, timed, lat and q with their sums), so that the
 * device field table's rows read them (field-dev.c's .off and .prom).
 */
struct metrics_dev {
	uint32_t		 dev;
	uint32_t		 inflight;	/* at the last completion */
	uint64_t		 busy_ns;
	struct sum_op		 op[MOP_MAX];
};

struct metrics_cgroup {
	uint64_t	 id;		/* 0: the slot of all others */
	uint64_t	 disk_ios[2];	/* read, write */
	uint64_t	 disk_bytes[2];
	uint64_t	 file_calls[2];
	uint64_t	 file_bytes[2];
	char		*name;		/* path in the v2 hierarchy, resolved when scraped */
	int		 name_tentative; /* "id:N": not found yet, looked up again */
};

/* The metrics sink's state (s->data). */
struct metrics {
	struct blktop		*b;
	struct http_server	*http;
	struct metrics_dev	*devs;		/* WINDOWS_MAX_DEVS, allocated at start */
	unsigned		 ndevs;
	uint16_t		 slot[WINDOWS_HASH];	/* devs index + 1 by a hash of dev_t */
	struct metrics_dev	*last;		/* the last one looked up */
	uint64_t		 dropped;	/* events of devices past the cap */
	struct metrics_cgroup	 cg[METRICS_CGROUPS + 1];	/* the last: "other" */
	unsigned		 ncg;
	uint64_t		 scrapes;
	struct metrics_node	*node;		/* --metrics-node-names, live only */
};

static enum metrics_op
metrics_op(uint16_t op)
{
	switch (op) {
	case BLK_OP_READ:
		return (MOP_READ);
	case BLK_OP_WRITE:
	case BLK_OP_WRITE_ZEROES:
	case BLK_OP_SECURE_ERASE:
		return (MOP_WRITE);
	case BLK_OP_DISCARD:
		return (MOP_DISCARD);
	case BLK_OP_FLUSH:
		return (MOP_FLUSH);
	default:
		return (MOP_OTHER);
	}
}

/* A device's counters, from the fixed table; NULL past its cap (the windows'). */
static struct metrics_dev *
metrics_dev(struct metrics *m, uint32_t dev)
{
	unsigned	 h;

	if (m->last != NULL && m->last->dev == dev)
		return (m->last);
	for (h = (dev * 0x9e3779b1u) >> (32 - 11); m->slot[h] != 0;
	    h = (h + 1) & (WINDOWS_HASH - 1)) {
		if (m->devs[m->slot[h] - 1].dev == dev)
			return (m->last = &m->devs[m->slot[h] - 1]);
	}
	if (m->ndevs >= m->b->win.max_devs)
		return (NULL);
	m->devs[m->ndevs].dev = dev;
	m->slot[h] = (uint16_t)++m->ndevs;
	return (m->last = &m->devs[m->ndevs - 1]);
}

/* A cgroup's counters: its own slot while there is room, else "other". */
static struct metrics_cgroup *
metrics_cgroup(struct metrics *m, uint64_t id)
{
	unsigned	 i;

	for (i = 0; i < m->ncg; i++) {
		if (m->cg[i].id == id)
			return (&m->cg[i]);
	}
	if (m->ncg == METRICS_CGROUPS || id == 0)
		return (&m->cg[METRICS_CGROUPS]);
	m->cg[m->ncg].id = id;
	return (&m->cg[m->ncg++]);
}

/* One record into the counters: no allocation, no system call. */
static void
metrics_event(struct sink *s, const struct rec_type *rt __unused, const void *rec,
    size_t len __unused, unsigned keep)
{
	struct metrics		*m = s->data;
	struct metrics_dev	*md;
	struct sum_op		*o;
	struct metrics_cgroup	*cg;
	uint32_t		 type;
	unsigned		 rw;

	memcpy(&type, rec, sizeof type);
	if (type == EV_BLOCK) {
		const struct ev_block *ev = rec;

		if (!(keep & STREAM_KEEP_DEV))
			return;
		if ((md = metrics_dev(m, ev->dev)) == NULL) {
			m->dropped++;
			return;
		}
		o = &md->op[metrics_op(ev->op)];
		o->ios++;
		o->bytes += ev->bytes;
		if (ev->error != 0)
			o->errors++;
		if (!(ev->flags & BLK_F_NOLAT) && ev->ts_done >= ev->ts_issue &&
		    ev->ts_issue >= ev->ts_start) {
			o->timed++;
			o->lat_sum += ev->ts_done - ev->ts_issue;
			o->q_sum += ev->ts_issue - ev->ts_start;
			o->lat[hist_bucket(ev->ts_done - ev->ts_issue)]++;
			o->q[hist_bucket(ev->ts_issue - ev->ts_start)]++;
		}
		if (!(ev->flags & BLK_F_NODEVSTAT))	/* else part_stat's, per tick */
			md->inflight = ev->inflight > 0 ? ev->inflight - 1 : 0;
		if (ev->op == BLK_OP_READ || ev->op == BLK_OP_WRITE) {
			cg = metrics_cgroup(m, ev->cgroup);
			rw = ev->op == BLK_OP_WRITE;
			cg->disk_ios[rw]++;
			cg->disk_bytes[rw] += ev->bytes;
		}
	} else if (type == EV_RW) {
		const struct ev_rw *ev = rec;

		cg = metrics_cgroup(m, ev->cgroup);
		rw = ev->op == BLK_OP_WRITE;
		cg->file_calls[rw]++;
		cg->file_bytes[rw] += ev->done;
	}
}

/* A tick closed: each device's busy time of that tick, as the windows measured it. */
static void
metrics_tick(struct sink *s, uint64_t ts __unused)
{
	struct metrics		*m = s->data;
	struct windows		*w = &s->b->win;
	const struct tick	*t;
	struct metrics_dev	*md;
	unsigned		 i;

	for (i = 0; i < w->ndevs; i++) {
		if ((t = windows_tick_at(w, w->devs[i], 1)) == NULL ||
		    (md = metrics_dev(m, w->devs[i]->dev)) == NULL)
			continue;
		md->busy_ns += t->busy_ns;
		if (t->flags & TICK_STAT)
			md->inflight = t->in_flight;
	}
}

/*
 * A label value: the name as valid UTF-8 (name_escape_strict_dup: an invalid
 * byte, and each byte of a control or invisible character, a newline among
 * them, as \XHH, reversibly), then the format's escapes of backslash and
 * double quote. One bad name must not make Prometheus refuse the scrape, nor
 * put a raw ESC on the terminal of whoever curls it.
 */
void
metrics_label(struct evbuffer *out, const char *name)
{
	char	*e, *s;

	e = name_escape_strict_dup(name, strlen(name));
	for (s = e; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			evbuffer_add_printf(out, "\\%c", *s);
		else
			evbuffer_add(out, s, 1);
	}
	free(e);
}

/* "# HELP" and "# TYPE" of a family; OpenMetrics names counters without _total. */
void
metrics_family(struct evbuffer *out, int om, const char *name, const char *type,
    const char *help)
{
	size_t	 n = strlen(name);

	if (om && strcmp(type, "counter") == 0 && n > 6 &&
	    strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	evbuffer_add_printf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name,
	    help, (int)n, name, type);
}

/* The start of a sample, NAMESUFFIX{device="...",op="..."}: the value follows. */
static void
metrics_dev_sample(struct evbuffer *out, const char *name, const char *suffix,
    uint32_t dev, const char *op)
{
	evbuffer_add_printf(out, "%s%s{device=\"", name, suffix);
	metrics_label(out, device_name(dev));
	if (op != NULL)
		evbuffer_add_printf(out, "\",op=\"%s", op);
	evbuffer_add(out, "\"}", 2);
}

/* A device-time or queue-time histogram, collapsed to the exported bounds. */
static void
metrics_histogram(struct evbuffer *out, const char *name, uint32_t dev,
    const char *op, const uint64_t *h, uint64_t count, uint64_t sum_ns)
{
	uint64_t	 cum = 0, bound_ns;
	unsigned	 i = 0, k;

	for (k = 0; k < METRICS_NBOUNDS; k++) {
		bound_ns = (NSEC_PER_USEC << (k / 2)) * (k % 2 ? 3 : 2) / 2;
		while (i < HIST_NBUCKETS && hist_bucket_hi(i) <= bound_ns)
			cum += h[i++];
		evbuffer_add_printf(out, "%s_bucket{device=\"", name);
		metrics_label(out, device_name(dev));
		evbuffer_add_printf(out, "\",op=\"%s\",le=\"%g\"} %llu\n", op,
		    (double)bound_ns / 1e9, (unsigned long long)cum);
	}
	evbuffer_add_printf(out, "%s_bucket{device=\"", name);
	metrics_label(out, device_name(dev));
	evbuffer_add_printf(out, "\",op=\"%s\",le=\"+Inf\"} %llu\n", op,
	    (unsigned long long)count);
	metrics_dev_sample(out, name, "_sum", dev, op);
	evbuffer_add_printf(out, " %.9f\n", (double)sum_ns / 1e9);
	metrics_dev_sample(out, name, "_count", dev, op);
	evbuffer_add_printf(out, " %llu\n", (unsigned long long)count);
}

/* Whether an operation has been seen on any device: a family's series start then. */
static int
metrics_op_seen(const struct metrics_dev *md, unsigned o)
{
	return (o <= MOP_WRITE || md->op[o].ios != 0);
}

/*
 * The cgroup's path in the cgroup v2 hierarchy by its id, kept once found (a
 * cgroup removed later keeps its series' name); "id:N" while it is not found,
 * looked for again at the next scrape.
 */
static const char *
metrics_cgroup_name(struct metrics_cgroup *cg)
{
	char	 path[PATH_MAX];

	if (cg->id == 0)
		return ("other");
	if (cg->name != NULL && !cg->name_tentative)
		return (cg->name);
	free(cg->name);
	if (cgroup_path(cg->id, path, sizeof path) == 0) {
		cg->name = xstrdup(path);
		cg->name_tentative = 0;
	} else {
		xasprintf(&cg->name, "id:%llu", (unsigned long long)cg->id);
		cg->name_tentative = 1;
	}
	return (cg->name);
}

/* The cgroup families: one line per cgroup and direction. */
static void
metrics_cgroups(struct metrics *m, struct evbuffer *out, int om)
{
	static const struct {
		const char	*name, *help;
		size_t		 off;
	} fam[] = {
		{ "blktop_cgroup_disk_requests_total", "Block requests completed, by the cgroup that submitted them.",
		  offsetof(struct metrics_cgroup, disk_ios) },
		{ "blktop_cgroup_disk_bytes_total", "Bytes of those block requests.",
		  offsetof(struct metrics_cgroup, disk_bytes) },
		{ "blktop_cgroup_file_calls_total", "read and write system calls on files.",
		  offsetof(struct metrics_cgroup, file_calls) },
		{ "blktop_cgroup_file_bytes_total", "Bytes those calls moved.",
		  offsetof(struct metrics_cgroup, file_bytes) },
	};
	struct metrics_cgroup	*cg;
	const uint64_t		*v;
	unsigned		 f, i, rw;

	for (f = 0; f < nitems(fam); f++) {
		metrics_family(out, om, fam[f].name, "counter", fam[f].help);
		for (i = 0; i <= METRICS_CGROUPS; i++) {
			if (i < METRICS_CGROUPS && i >= m->ncg)
				continue;
			cg = &m->cg[i];
			v = (const uint64_t *)(const void *)((const char *)cg + fam[f].off);
			for (rw = 0; rw < 2; rw++) {
				evbuffer_add_printf(out, "%s{cgroup=\"", fam[f].name);
				metrics_label(out, metrics_cgroup_name(cg));
				evbuffer_add_printf(out, "\",op=\"%s\"} %llu\n",
				    rw ? "write" : "read", (unsigned long long)v[rw]);
			}
		}
	}
}

/* blktop's own figures: what it saw, lost, and cost. */
static void
metrics_self(struct metrics *m, struct evbuffer *out, int om)
{
	struct blktop	*b = m->b;
	struct prog_cost	 pc;
	struct rusage		 ru;
	double			 cpu = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	metrics_family(out, om, "blktop_events_total", "counter",
	    "Records blktop took from the kernel (or the file it replays).");
	evbuffer_add_printf(out, "blktop_events_total %llu\n", (unsigned long long)b->events);
	metrics_family(out, om, "blktop_lost_events_total", "counter",
	    "Events the kernel could not hand over (ring buffer full, tables full, runs skipped).");
	evbuffer_add_printf(out, "blktop_lost_events_total %llu\n", (unsigned long long)b->lost);
	metrics_family(out, om, "blktop_lost_requests_total", "counter",
	    "Block requests of which no record came: requests plus these is what /proc/diskstats counts.");
	evbuffer_add_printf(out, "blktop_lost_requests_total %llu\n",
	    (unsigned long long)b->lost_kind[LOST_REQUESTS]);
	metrics_family(out, om, "blktop_lost_calls_total", "counter",
	    "read and write calls of which no record came.");
	evbuffer_add_printf(out, "blktop_lost_calls_total %llu\n",
	    (unsigned long long)b->lost_kind[LOST_CALLS]);
	metrics_family(out, om, "blktop_dropped_events_total", "counter",
	    "Block events of devices past the cap on devices with series of their own.");
	evbuffer_add_printf(out, "blktop_dropped_events_total %llu\n",
	    (unsigned long long)m->dropped);
	metrics_family(out, om, "blktop_cpu_seconds_total", "counter",
	    "User and system CPU time of blktop itself.");
	evbuffer_add_printf(out, "blktop_cpu_seconds_total %.6f\n", cpu);
	if (b->src != NULL && b->src->entry->cost != NULL &&
	    b->src->entry->cost(b->src, &pc) == 0) {
		metrics_family(out, om, "blktop_bpf_run_seconds_total", "counter",
		    "Run time of blktop's BPF programs, as the kernel counts it.");
		evbuffer_add_printf(out, "blktop_bpf_run_seconds_total %.9f\n",
		    (double)pc.run_ns / 1e9);
		metrics_family(out, om, "blktop_bpf_runs_total", "counter",
		    "Runs of blktop's BPF programs.");
		evbuffer_add_printf(out, "blktop_bpf_runs_total %llu\n",
		    (unsigned long long)pc.runs);
	}
	metrics_family(out, om, "blktop_scrapes_total", "counter",
	    "Requests for /metrics served, this one included.");
	evbuffer_add_printf(out, "blktop_scrapes_total %llu\n", (unsigned long long)m->scrapes);
}

/* A field's series of one device (its row's .prom): per operation seen, or one. */
static void
metrics_dev_field(struct evbuffer *out, const struct metrics_dev *md,
    const struct dev_field_row *r)
{
	const struct sum_op	*o;
	const char		*p;
	unsigned		 k;

	if (r->prom.from == DEVM_IN_FLIGHT) {
		metrics_dev_sample(out, r->prom.name, "", md->dev, NULL);
		evbuffer_add_printf(out, " %u\n", md->inflight);
		return;
	}
	if (r->prom.from == DEVM_BUSY) {
		metrics_dev_sample(out, r->prom.name, "", md->dev, NULL);
		evbuffer_add_printf(out, " %.9f\n", (double)md->busy_ns / 1e9);
		return;
	}
	for (k = 0; k < MOP_MAX; k++) {
		if (!metrics_op_seen(md, k))
			continue;
		o = &md->op[k];
		p = (const char *)o;
		if (r->prom.hist != 0) {
			metrics_histogram(out, r->prom.name, md->dev, metrics_op_names[k],
			    (const uint64_t *)(const void *)(p + r->prom.hist), o->timed,
			    *(const uint64_t *)(const void *)(p + r->prom.sum));
			continue;
		}
		metrics_dev_sample(out, r->prom.name, "", md->dev, metrics_op_names[k]);
		evbuffer_add_printf(out, " %llu\n",
		    (unsigned long long)*(const uint64_t *)(const void *)(p + r->off));
	}
}

/*
 * The whole exposition into out: the device fields that have a family
 * (field-dev.c's .prom), in the table's order, then the cgroups' and ours.
 */
static void
metrics_write(struct metrics *m, struct evbuffer *out, int om)
{
	const struct dev_field_row	*r;
	unsigned			 f, i;

	for (f = 0; f < DEVF_MAX; f++) {
		r = &dev_fields[f];
		if (r->prom.name == NULL)
			continue;
		metrics_family(out, om, r->prom.name, r->prom.type, r->prom.help);
		for (i = 0; i < m->ndevs; i++)
			metrics_dev_field(out, &m->devs[i], r);
	}
	metrics_cgroups(m, out, om);
	metrics_self(m, out, om);
	if (m->node != NULL)
		metrics_node_write(m->node, out, om);
	if (om)
		evbuffer_add_printf(out, "# EOF\n");
}

/* Whether the scraper asks for OpenMetrics in Accept. */
static int
metrics_wants_om(const struct http_request *req)
{
	return (req->accept != NULL &&
	    strstr(req->accept, "application/openmetrics-text") != NULL);
}

/*
 * GET and HEAD of /metrics and / only; anything else gets an error and
 * nothing of ours. HEAD gets the headers GET would, and is no scrape.
 */
static void
metrics_request(void *arg, const struct http_request *req, struct http_reply *rep)
{
	struct metrics	*m = arg;
	int		 om;

	rep->status = 200;
	rep->reason = "OK";
	if (strcmp(req->path, "/") == 0) {
		rep->type = "text/html; charset=utf-8";
		evbuffer_add_printf(rep->body, "<!DOCTYPE html><html><head><title>blktop"
		    "</title></head><body><h1>blktop</h1><p><a href=\"/metrics\">"
		    "Metrics</a></p></body></html>\n");
	} else if (strcmp(req->path, "/metrics") == 0) {
		om = metrics_wants_om(req);
		rep->type = om ?
		    "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		    "text/plain; version=0.0.4; charset=utf-8";
		m->scrapes++;
		metrics_write(m, rep->body, om);
		if (req->head)
			m->scrapes--;
	} else {
		rep->status = 404;
		rep->reason = "Not Found";
		rep->type = "text/plain; charset=utf-8";
		evbuffer_add_printf(rep->body, "404 Not Found\n");
	}
}

/* Parse [ADDR:]PORT (or [ADDR6]:PORT); 127.0.0.1 when only a port is given. */
int
metrics_parse_listen(const char *arg, char *addr, size_t addrlen, uint16_t *port,
    char **errp)
{
	const char	*colon, *p;
	char		*end;
	unsigned long	 v;
	size_t		 n;

	if ((colon = strrchr(arg, ':')) == NULL) {
		p = arg;
		snprintf(addr, addrlen, "127.0.0.1");
	} else {
		p = colon + 1;
		n = (size_t)(colon - arg);
		if (n >= 2 && arg[0] == '[' && arg[n - 1] == ']') {
			arg++;
			n -= 2;
		}
		if (n == 0)
			snprintf(addr, addrlen, "127.0.0.1");
		else if (n >= addrlen) {
			xasprintf(errp, "--listen: address too long");
			return (-1);
		} else
			snprintf(addr, addrlen, "%.*s", (int)n, arg);
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v == 0 || v > 65535) {
		xasprintf(errp, "--listen: '%s' is not a port (1-65535)", p);
		return (-1);
	}
	*port = (uint16_t)v;
	return (0);
}

/*
 * Connections at most: half the file descriptors still free at start (the
 * rest stay blktop's own), no more than the server's cap.
 */
static unsigned
metrics_max_conns(void)
{
	struct rlimit	 rl;
	DIR		*d;
	unsigned	 open_fds = 0;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return (0);
	if ((d = opendir("/proc/self/fd")) != NULL) {
		while (readdir(d) != NULL)
			open_fds++;
		closedir(d);
	}
	if (rl.rlim_cur <= open_fds + 2)
		return (1);
	return ((unsigned)((rl.rlim_cur - open_fds) / 2));
}

/* Serve on the socket main() bound before the source started (else bind one now). */
static int
metrics_start(struct sink *s, char **errp)
{
	struct blktop			*b = s->b;
	const struct metrics_opts	*mo = s->opts;
	struct metrics			*m = s->data = xcalloc(1, sizeof *m);
	int				 fd = mo->listen_fd;

	m->b = b;
	m->devs = xcalloc(WINDOWS_MAX_DEVS, sizeof *m->devs);
	/* A replay's devices are another time's (or host's): this host's counters are not theirs. */
	if (mo->node_names && b->opt.replay_path == NULL)
		m->node = metrics_node_new(b);
	if (fd == -1 &&
	    (fd = metrics_http_bind(mo->listen_addr, mo->listen_port, errp)) == -1)
		return (-1);
	m->http = metrics_http_start(b, fd, metrics_max_conns(), metrics_request, m);
	return (0);
}

static void
metrics_stop(struct sink *s)
{
	struct metrics	*m = s->data;
	unsigned	 i;

	if (m == NULL)
		return;
	if (m->http != NULL)
		metrics_http_free(m->http);
	metrics_node_free(m->node);
	for (i = 0; i <= METRICS_CGROUPS; i++)
		free(m->cg[i].name);
	free(m->devs);
	free(m);
	s->data = NULL;
}

const struct sink_entry sink_metrics = {
	.name = "metrics",
	.start = metrics_start,
	.event = metrics_event,
	.tick = metrics_tick,
	.stop = metrics_stop,
};
