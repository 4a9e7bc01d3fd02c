/* ui-pane-proc.c: the processes pane: a top-like sortable table, and one process drilled into. */

#include <curses.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "ui.h"
#include "ui-proc.h"

#define UI_PROC_ROWS	1024		/* rows kept per interval (top_procs's most) */
#define UI_PROC_HISTORY	512		/* intervals of a drilled process's heatmap */
/*
 * The past of the processes doing block I/O, for a drill-down to start with:
 * UI_PROC_PAST of them (the first in the table's order each interval, the
 * least recently seen giving way), UI_PROC_PAST_LEN intervals each, one
 * count per power of two of latency (what the heatmap's rows resolve).
 * 64 x 300 x 29 x 4 bytes: 2.2 MB, whatever the number of processes.
 */
#define UI_PROC_PAST		64
#define UI_PROC_PAST_LEN	300
#define UI_PROC_PAST_NB		(HIST_POWERS + 2)

/* One file of the drilled process. */
struct ui_proc_file {
	char			*path;
	struct proc_counts	 c;
};

enum ui_proc_col {
	UI_PC_PID, UI_PC_COMM, UI_PC_HOST, UI_PC_R, UI_PC_W, UI_PC_RMB, UI_PC_WMB,
	UI_PC_DRMB, UI_PC_DWMB, UI_PC_HIT, UI_PC_P50, UI_PC_P99, UI_PC_CR, UI_PC_CW, UI_PC_VRMB, UI_PC_VWMB,
	UI_PC_OPEN, UI_PC_VP99, UI_PC_MAX
};

static double	 ui_pane_proc_id(const struct ui_col *, const void *);
static double	 ui_pane_proc_hit(const struct ui_col *, const void *);
static void	 ui_pane_proc_fmt_host(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_proc_fmt_id(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_proc_fmt_comm(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_proc_fmt_blk_lat(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_proc_fmt_vfs_lat(const struct ui_col *, const void *, double, char *, size_t);

/*
 * The columns: block requests and device time first, then the system calls.
 * Each is a field of proc_fields (field-proc.c: its title, width and the
 * top_procs key that picks the rows worth keeping when sorted by it); here,
 * how the pane prints it and where its row keeps it: a counter at its
 * offset in the row's proc_counts, unless off or value says otherwise.
 */
static const struct {
	enum proc_field	 field;
	int		 left;
	int		 ascending;
	int		 by_name;
	size_t		 off;
	double		(*value)(const struct ui_col *, const void *row);
	void		(*fmt)(const struct ui_col *, const void *row, double secs,
			    char *, size_t);
} ui_proc_show[UI_PC_MAX] = {
	[UI_PC_PID] = { PROCF_PID, .ascending = 1, .value = ui_pane_proc_id,
	    .fmt = ui_pane_proc_fmt_id },
	[UI_PC_COMM] = { PROCF_COMM, .left = 1, .by_name = 1, .fmt = ui_pane_proc_fmt_comm },
	[UI_PC_HOST] = { PROCF_HOST, .left = 1, .ascending = 1,
	    .off = offsetof(struct ui_proc_row, host1), .fmt = ui_pane_proc_fmt_host },	/* shown in a run of several hosts only */
	[UI_PC_R] = { PROCF_REQ_READS, .fmt = ui_tab_fmt_rate },
	[UI_PC_W] = { PROCF_REQ_WRITES, .fmt = ui_tab_fmt_rate },
	[UI_PC_RMB] = { PROCF_REQ_READ_BYTES, .fmt = ui_tab_fmt_mb },
	[UI_PC_WMB] = { PROCF_REQ_WRITE_BYTES, .fmt = ui_tab_fmt_mb },
	[UI_PC_DRMB] = { PROCF_DISK_READ_BYTES, .fmt = ui_tab_fmt_mb },
	[UI_PC_DWMB] = { PROCF_DISK_WRITE_BYTES, .fmt = ui_tab_fmt_mb },
	[UI_PC_HIT] = { PROCF_CACHE_HIT, .value = ui_pane_proc_hit, .fmt = ui_tab_fmt_pct },
	[UI_PC_P50] = { PROCF_REQ_P50, .off = offsetof(struct ui_proc_row, blk_p50),
	    .fmt = ui_pane_proc_fmt_blk_lat },
	[UI_PC_P99] = { PROCF_REQ_P99, .off = offsetof(struct ui_proc_row, blk_p99),
	    .fmt = ui_pane_proc_fmt_blk_lat },
	[UI_PC_CR] = { PROCF_CALL_READS, .fmt = ui_tab_fmt_rate },
	[UI_PC_CW] = { PROCF_CALL_WRITES, .fmt = ui_tab_fmt_rate },
	[UI_PC_VRMB] = { PROCF_CALL_READ_BYTES, .fmt = ui_tab_fmt_mb },
	[UI_PC_VWMB] = { PROCF_CALL_WRITE_BYTES, .fmt = ui_tab_fmt_mb },
	/* Opens, failed ones too (as -o opens orders them). */
	[UI_PC_OPEN] = { PROCF_OPENS, .off = offsetof(struct ui_proc_row, c),
	    .value = ui_tab_opens, .fmt = ui_tab_fmt_rate },
	[UI_PC_VP99] = { PROCF_CALL_P99, .off = offsetof(struct ui_proc_row, vfs_p99),
	    .fmt = ui_pane_proc_fmt_vfs_lat },
};
static struct ui_col ui_proc_cols[UI_PC_MAX];	/* ui_proc_show with its fields' rows */

/* One process's past: a ring of coarse histograms, by interval. */
struct ui_proc_past {
	uint32_t	 id;		/* 0: a free slot */
	uint64_t	 first;		/* interval of its first column */
	uint64_t	 last;		/* interval of its last column */
	uint32_t	(*h)[UI_PROC_PAST_NB];	/* UI_PROC_PAST_LEN, by interval */
};

/* The snapshot, the selection and the drill-down of the processes pane. */
static int	 ui_pane_proc_tie(const void *, const void *);
static const char *ui_pane_proc_name(const void *);
static int	 ui_pane_proc_kept(const void *, const void *);
static void	 ui_pane_proc_remember(void *, unsigned);

static const struct ui_tab ui_proc_tab = {
	.sortcol = UI_PC_R, .cols = ui_proc_cols, .ncols = UI_PC_MAX,
	.rowsize = sizeof(struct ui_proc_row), .tie = ui_pane_proc_tie,
	.name = ui_pane_proc_name, .kept = ui_pane_proc_kept,
	.remember = ui_pane_proc_remember,
};

/* Cgroup names by id, looked up once each when found (a directory walk). */
#define UI_CG_CACHE	64
struct ui_proc_cgname {
	uint64_t	 id;
	int		 found;
	uint64_t	 retry;		/* not found: source_now() to look again */
	char		 name[BLKTOP_COMM_LEN];
};

/* The processes pane's rows, selection and drill-down: its state in a UI (ui_pane's data). */
struct ui_proc {
	struct ui_proc_row *rows;	/* the last interval, sorted */
	unsigned	 nrows;
	struct ui_tab	 tab;		/* order, sort and selection */
	double		 secs;
	uint32_t	 sel_id;	/* keeps the selection across intervals */

	int		 by_cgroup;	/* rows are cgroups (key c), like atop's G */
	struct ui_proc_jobs jobs;	/* grouped by job (key J; ui-pane-job.c) */
	uint32_t	 drill;		/* tgid drilled into, 0 for none */
	struct ui_proc_row drill_row;
	uint64_t	(*hist)[HIST_NBUCKETS];	/* ring of UI_PROC_HISTORY intervals */
	unsigned	 hist_n;	/* intervals recorded */
	uint64_t	 intervals;	/* collected so far */
	struct ui_proc_past past[UI_PROC_PAST];
	uint32_t	(*past_pool)[UI_PROC_PAST_NB];
	uint64_t	*hcols;		/* sub-row columns for ui_heatmap */
	struct ui_proc_file *files;
	unsigned	 nfiles;
	unsigned	 ftop;
	struct ui_proc_cgname cgnames[UI_CG_CACHE];
};

/* Equal in the sort column: by id. */
static int
ui_pane_proc_tie(const void *a, const void *b)
{
	const struct ui_proc_row *x = a, *y = b;

	return (x->id < y->id ? -1 : x->id > y->id);
}

/* What the / filter matches: the command name. */
static const char *
ui_pane_proc_name(const void *row)
{
	return (((const struct ui_proc_row *)row)->comm);
}

/* Whether a row is the process selected before. */
static int
ui_pane_proc_kept(const void *owner, const void *row)
{
	const struct ui_proc	*d = owner;

	return (((const struct ui_proc_row *)row)->id == d->sel_id);
}

/* Remember a process's id as the selection. */
static void
ui_pane_proc_remember(void *owner, unsigned row)
{
	struct ui_proc	*d = owner;

	d->sel_id = d->rows[row].id;
}

/* List the rows passing the filter, sorting them first if asked, keeping the selection. */
static void
ui_pane_proc_order(struct ui_pane *p, int sort)
{
	struct ui_state	*u = p->u;
	struct ui_proc	*d = p->data;

	ui_tab_order(u, &d->tab, d->rows, d->nrows, sort);
}

/* Remember the files of the drilled process over the interval. */
static void
ui_pane_proc_collect_files(struct ui_proc *d, struct blktop *b)
{
	static const struct file_entry *top[UI_PROC_ROWS];
	const struct file_entry	*f;
	char			 path[VFS_PATH_MAX];
	unsigned		 n, i, j;

	for (i = 0; i < d->nfiles; i++)
		free(d->files[i].path);
	d->nfiles = 0;
	n = top_files(b->procs, PROC_KEY_LAT, 0, top, UI_PROC_ROWS);
	for (i = 0; i < n; i++) {
		f = top[i];
		for (j = 0; j < f->npids && f->pids[j] != d->drill; j++)
			;
		if (j == f->npids)
			continue;
		model_file_path(b->procs, f, path, sizeof path);
		d->files[d->nfiles].path = xstrdup(path);
		d->files[d->nfiles].c = *proc_file_counts(b->procs, f, 0);
		d->nfiles++;
	}
}

/* A cgroup's name for the COMMAND column: its last path component, or id:N. */
static const char *
ui_pane_proc_cgname(struct ui_proc *d, uint64_t id)
{
	unsigned	 i = (unsigned)(id % UI_CG_CACHE);
	char		 path[PATH_MAX], *base;
	size_t		 n;

	if (d->cgnames[i].id == id && d->cgnames[i].name[0] != '\0' &&
	    (d->cgnames[i].found || source_now() < d->cgnames[i].retry))
		return (d->cgnames[i].name);
	d->cgnames[i].id = id;
	/* Not found (yet, or a v1-only host): "id:N", looked for again in 5 s. */
	d->cgnames[i].retry = source_now() + 5 * NSEC_PER_SEC;
	if ((d->cgnames[i].found = cgroup_path(id, path, sizeof path) == 0)) {
		base = strrchr(path, '/');
		base = base != NULL && base[1] != '\0' ? base + 1 : path;
		/* The component's tail: a long name keeps what tells it apart. */
		n = strlen(base);
		memcpy(d->cgnames[i].name, n < BLKTOP_COMM_LEN ? base : base + n -
		    (BLKTOP_COMM_LEN - 1), n < BLKTOP_COMM_LEN ? n + 1 : BLKTOP_COMM_LEN);
	} else
		snprintf(d->cgnames[i].name, sizeof d->cgnames[i].name, "id:%llu",
		    (unsigned long long)id);
	return (d->cgnames[i].name);
}

/*
 * Grouped by cgroup: the process rows folded into one per cgroup, named by
 * its last path component; latency columns show the worst process's.
 */
static void
ui_pane_proc_group(struct ui_proc *d, const struct blktop *b)
{
	struct ui_proc_row	*g;
	unsigned		 n = 0, i, j;

	for (i = 0; i < d->nrows; i++) {
		for (j = 0; j < n && d->rows[j].cgroup != d->rows[i].cgroup; j++)
			;
		if (j == n) {
			g = &d->rows[n++];
			if (j != i)
				*g = d->rows[i];
			g->tgid = 1;
			g->id = n;
			snprintf(g->comm, sizeof g->comm, "%s",
			    ui_pane_proc_cgname(d, g->cgroup));
		} else
			ui_proc_row_fold(&d->rows[j], &d->rows[i]);
	}
	for (j = 0; j < n; j++)
		d->rows[j].hit = proc_cache_hit_pct(b->have, &d->rows[j].c);
	d->nrows = n;
}

/* A full histogram folded to one count per power of two. */
static int
ui_pane_proc_coarse(const uint32_t *lat, uint32_t *c)
{
	unsigned	 i, k;
	int		 any = 0;

	memset(c, 0, UI_PROC_PAST_NB * sizeof *c);
	for (i = 0; i < HIST_NBUCKETS; i++) {
		if (lat[i] == 0)
			continue;
		k = i == 0 ? 0 : i == HIST_NBUCKETS - 1 ? UI_PROC_PAST_NB - 1 :
		    1 + (i - 1) / HIST_SUB;
		c[k] += lat[i];
		any = 1;
	}
	return (any);
}

/*
 * Keep interval now of a process with block I/O in the last interval: in
 * its slot, or in a free one or the least recently seen one. Intervals it
 * was not seen in since its last are zero. All slots taken this interval:
 * not kept.
 */
static void
ui_pane_proc_past_note(struct ui_proc *d, uint32_t id, const uint32_t *lat,
    uint64_t now)
{
	struct ui_proc_past	*p, *victim = NULL;
	uint32_t		 c[UI_PROC_PAST_NB];
	uint64_t		 t;
	unsigned		 i;

	if (!ui_pane_proc_coarse(lat, c))
		return;
	for (i = 0; i < UI_PROC_PAST; i++) {
		p = &d->past[i];
		if (p->id == id)
			break;
		if (p->h == NULL)	/* not set up */
			return;
		if (p->id == 0) {	/* the first free slot */
			if (victim == NULL || victim->id != 0)
				victim = p;
		} else if (p->last != now && (victim == NULL ||
		    (victim->id != 0 && p->last < victim->last)))
			victim = p;
	}
	if (i == UI_PROC_PAST) {
		if (victim == NULL)
			return;
		p = victim;
		p->id = id;
		p->first = now;
		p->last = now;
	}
	for (t = p->last + 1; t < now && t - p->last <= UI_PROC_PAST_LEN; t++)
		memset(p->h[t % UI_PROC_PAST_LEN], 0, sizeof *p->h);
	memcpy(p->h[now % UI_PROC_PAST_LEN], c, sizeof c);
	p->last = now;
}

/*
 * Start a drill-down's heatmap with the process's past, up to interval now:
 * the number of intervals put in d->hist (0 if none is kept).
 */
static unsigned
ui_pane_proc_past_fill(struct ui_proc *d, uint32_t id, uint64_t now)
{
	struct ui_proc_past	*p;
	uint64_t		 t, start;
	uint32_t		*c;
	unsigned		 i, k, j, n;

	for (i = 0; i < UI_PROC_PAST && d->past[i].id != id; i++)
		;
	if (i == UI_PROC_PAST || now < d->past[i].last)
		return (0);
	p = &d->past[i];
	start = p->first;
	if (now - start >= UI_PROC_PAST_LEN)
		start = now - UI_PROC_PAST_LEN + 1;
	if (p->last + UI_PROC_PAST_LEN <= now)	/* all of it too old */
		return (0);
	n = (unsigned)(now - start + 1);
	for (t = start, j = 0; t <= now; t++, j++) {
		if (t > p->last || p->last - t >= UI_PROC_PAST_LEN)
			continue;
		c = p->h[t % UI_PROC_PAST_LEN];
		for (k = 0; k < UI_PROC_PAST_NB; k++)	/* mid-power: its row */
			d->hist[j % UI_PROC_HISTORY][k == 0 ? 0 :
			    k == UI_PROC_PAST_NB - 1 ? HIST_NBUCKETS - 1 :
			    1 + (k - 1) * HIST_SUB + HIST_SUB / 2] = c[k];
	}
	return (n);
}

/* End of a display interval: copy the busiest processes out of the table. */
static void
ui_pane_proc_collect(struct ui_pane *pane, double secs)
{
	static const struct proc_entry *top[UI_PROC_ROWS];
	struct ui_proc		*d = pane->data;
	struct blktop		*b = pane->u->b;
	const struct proc_entry	*p;
	struct ui_proc_row	*r;
	uint64_t		*h;
	unsigned		 n, i, k;
	int			 found = 0;

	if (d->rows == NULL) {
		d->rows = xcalloc(UI_PROC_ROWS, sizeof *d->rows);
		d->tab.order = xcalloc(UI_PROC_ROWS, sizeof *d->tab.order);
		d->files = xcalloc(UI_PROC_ROWS, sizeof *d->files);
		d->past_pool = xcalloc((size_t)UI_PROC_PAST * UI_PROC_PAST_LEN,
		    sizeof *d->past_pool);
		for (i = 0; i < UI_PROC_PAST; i++)
			d->past[i].h = d->past_pool + (size_t)i * UI_PROC_PAST_LEN;
	}
	if (b->procs == NULL || secs <= 0)
		return;
	d->secs = secs;
	n = top_procs(b->procs, ui_proc_cols[d->tab.sortcol].key, 0, top,
	    UI_PROC_ROWS);
	for (i = 0; i < n; i++) {
		p = top[i];
		r = &d->rows[i];
		r->id = p->id;
		r->tgid = p->tgid;
		r->cgroup = p->cgroup;
		memcpy(r->comm, p->comm, sizeof r->comm);
		r->comm[sizeof r->comm - 1] = '\0';
		r->c = *proc_entry_counts(b->procs, p, 0);
		r->blk_p50 = proc_entry_lat(b->procs, p, 1, 50);
		r->blk_p99 = proc_entry_lat(b->procs, p, 1, 99);
		r->vfs_p99 = proc_entry_lat(b->procs, p, 0, 99);
		r->hit = proc_cache_hit_pct(b->have, &r->c);
		r->host1 = (uint64_t)(p->host + 1);
		ui_pane_proc_past_note(d, p->id, p->blk_lat.b, d->intervals);
		if (d->drill != 0 && p->id == d->drill) {
			d->drill_row = *r;
			h = d->hist[d->hist_n % UI_PROC_HISTORY];
			for (k = 0; k < HIST_NBUCKETS; k++)
				h[k] = p->blk_lat.b[k];
			found = 1;
		}
	}
	d->nrows = n;
	if (d->by_cgroup)
		ui_pane_proc_group(d, b);
	else if (d->jobs.by_job && (b->have & HAVE_TASK))
		d->nrows = ui_pane_job_group(d->rows, d->nrows, d->jobs.open, b);
	if (d->drill != 0) {
		if (!found) {
			memset(&d->drill_row.c, 0, sizeof d->drill_row.c);
			memset(d->hist[d->hist_n % UI_PROC_HISTORY], 0,
			    sizeof *d->hist);
		}
		d->hist_n++;
		ui_pane_proc_collect_files(d, b);
	}
	d->intervals++;
	ui_pane_proc_order(pane, 1);
}

/* The PID column's value: the id (grouped: the row's index + 1). */
static double
ui_pane_proc_id(__unused const struct ui_col *c, const void *row)
{
	return (((const struct ui_proc_row *)row)->id);
}

/* The hit% column's value: the cache hit %, -1 if not known. */
static double
ui_pane_proc_hit(__unused const struct ui_col *c, const void *row)
{
	return (((const struct ui_proc_row *)row)->hit);
}

/* The PID cell: the process, its host's bits off (grouped, ui_pane_proc_cell counts the cgroup's). */
static void
ui_pane_proc_fmt_id(__unused const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	snprintf(buf, len, "%u", PROC_ID_PID(((const struct ui_proc_row *)row)->id));
}

/* The HOST cell: its host's name, "-" for a group's row. */
static void
ui_pane_proc_fmt_host(__unused const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	fmt_host(buf, len, (int)((const struct ui_proc_row *)row)->host1 - 1);
}

/* The COMMAND cell. */
static void
ui_pane_proc_fmt_comm(__unused const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	draw_path(buf, len, ((const struct ui_proc_row *)row)->comm,
	    BLKTOP_COMM_LEN, 0);
}

/* A device latency: "-" with no request in the interval. */
static void
ui_pane_proc_fmt_blk_lat(const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	ui_tab_lat(c, row, ((const struct ui_proc_row *)row)->c.blk_ios, buf, len);
}

/* A call latency: "-" with no read or write call (opens are not timed). */
static void
ui_pane_proc_fmt_vfs_lat(const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	ui_tab_lat(c, row, ((const struct ui_proc_row *)row)->c.vfs_calls, buf, len);
}

/* The interval the rows cover, in seconds (1 before the first). */
static double
ui_pane_proc_secs(const struct ui_proc *d)
{
	return (d->secs > 0 ? d->secs : 1);
}

/*
 * ui_table callback for the process table. Grouped by cgroup, the PID cell
 * says how many processes the cgroup has: the pane's mode, which a column's
 * format does not see.
 */
static void
ui_pane_proc_cell(unsigned row, unsigned col, char *buf, size_t len, void *arg)
{
	const struct ui_proc	*d = arg;
	const struct ui_proc_row *r = &d->rows[d->tab.order[row]];

	if (col == UI_PC_PID && d->by_cgroup)
		snprintf(buf, len, "x%u", r->tgid);
	else
		ui_proc_cols[col].fmt(&ui_proc_cols[col], r, ui_pane_proc_secs(d),
		    buf, len);
}

/* The drilled process's files: their rates, then the path. */
#define UI_PF_U64(field, fn)	.off = offsetof(struct ui_proc_file, field), .fmt = (fn)
static const struct ui_col ui_proc_file_cols[] = {
	{ "rcall/s", 7, 0, UI_PF_U64(c.vfs_calls[0], ui_tab_fmt_rate) },
	{ "wcall/s", 7, 0, UI_PF_U64(c.vfs_calls[1], ui_tab_fmt_rate) },
	{ "rMB/s", 6, 0, UI_PF_U64(c.vfs_bytes[0], ui_tab_fmt_mb) },
	{ "wMB/s", 6, 0, UI_PF_U64(c.vfs_bytes[1], ui_tab_fmt_mb) },
	{ "open/s", 6, 0, .off = offsetof(struct ui_proc_file, c),
	    .value = ui_tab_opens, .fmt = ui_tab_fmt_rate },
	{ "FILE", 0, 1, .off = offsetof(struct ui_proc_file, path),
	    .fmt = ui_tab_fmt_str },
};

/* ui_table callback for the drilled process's files. */
static void
ui_pane_proc_file_cell(unsigned row, unsigned col, char *buf, size_t len,
    void *arg)
{
	const struct ui_proc	*d = arg;

	ui_proc_file_cols[col].fmt(&ui_proc_file_cols[col], &d->files[row],
	    ui_pane_proc_secs(d), buf, len);
}

/* One process in detail: its numbers, device latency heatmap (one column per interval) and files. */
static void
ui_pane_proc_draw_drill(struct ui_pane *p, WINDOW *win, const struct ui_rect *r)
{
	struct ui_state	*u = p->u;
	struct ui_proc	*d = p->data;
	struct ui_rect	 fr;
	unsigned	 ncols, heat, c, n;
	uint64_t	 age;
	char		 line[512], f[UI_PC_MAX][24];
	int		 cols;

	for (c = 0; c < UI_PC_MAX; c++)
		ui_proc_cols[c].fmt(&ui_proc_cols[c], &d->drill_row,
		    ui_pane_proc_secs(d), f[c], sizeof f[c]);
	snprintf(line, sizeof line, "PID %u %s  r/s %s w/s %s rMB/s %s wMB/s %s "
	    "p50 %s p99 %s  calls r/s %s w/s %s  (Esc back)", d->drill,
	    f[UI_PC_COMM], f[UI_PC_R], f[UI_PC_W], f[UI_PC_RMB], f[UI_PC_WMB],
	    f[UI_PC_P50], f[UI_PC_P99], f[UI_PC_CR], f[UI_PC_CW]);
	ui_text(win, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	cols = r->w - DRAW_LABEL_WIDTH - 1;
	heat = (unsigned)(r->h - 1) / 2;
	if (heat > 16)
		heat = 16;
	if (cols > 0 && heat > 0) {
		ncols = (unsigned)cols;
		d->hcols = xreallocarray(d->hcols, ncols,
		    2 * heat * sizeof *d->hcols);
		memset(d->hcols, 0, (size_t)ncols * 2 * heat *
		    sizeof *d->hcols);
		n = d->hist_n;
		for (c = 0; c < ncols; c++) {
			age = ncols - 1 - c;
			if (age >= n || age >= UI_PROC_HISTORY)
				continue;
			draw_heat_column(d->hist[(n - 1 - age) % UI_PROC_HISTORY],
			    2 * heat, d->hcols + (size_t)c * 2 * heat);
		}
		ui_heatmap(u, win, r->y + 1, r->x, heat, ncols, d->hcols, NULL, -1);
	}
	fr = *r;
	fr.y = r->y + 1 + (int)heat;
	fr.h = r->h - 1 - (int)heat;
	if (d->nfiles == 0) {
		ui_text(win, fr.y, fr.x, THEME_INACTIVE_FG, THEME_MAIN_BG,
		    "no file activity of this process in the last interval");
		return;
	}
	ui_table(u, win, &fr, ui_proc_file_cols, nitems(ui_proc_file_cols), 0,
	    d->nfiles, (unsigned)-1, &d->ftop, -1, 0,
	    ui_pane_proc_file_cell, d);
}

/* Draw the processes pane. */
static void
ui_pane_proc_draw(struct ui_pane *p, WINDOW *win, const struct ui_rect *r)
{
	struct ui_state	*u = p->u;
	struct ui_proc	*d = p->data;
	struct blktop	*b = u->b;

	if (d->drill != 0) {
		ui_pane_proc_draw_drill(p, win, r);
		return;
	}
	if (d->rows == NULL)
		return;
	ui_pane_proc_order(p, 0);
	ui_table(u, win, r, ui_proc_cols, UI_PC_MAX, d->tab.hidden |
	    (host_count() > 1 ? 0 : 1u << UI_PC_HOST),
	    d->tab.norder, d->tab.sel,
	    &d->tab.top, d->tab.sortcol, d->tab.invert, ui_pane_proc_cell, d);
	if (d->tab.norder == 0)
		ui_text(win, r->y + 2, r->x + 2, THEME_INACTIVE_FG,
		    THEME_MAIN_BG, b->procs == NULL ?
		    "per-process accounting is not enabled in this build" :
		    d->nrows > 0 ? "no process matches the filter" :
		    "no process did I/O in the last interval");
}

/* Start following one process. */
static void
ui_pane_proc_drill(struct ui_pane *p, uint32_t id)
{
	struct ui_state	*u = p->u;
	struct ui_proc	*d = p->data;

	if (d->hist == NULL)
		d->hist = xcalloc(UI_PROC_HISTORY, sizeof *d->hist);
	memset(d->hist, 0, UI_PROC_HISTORY * sizeof *d->hist);
	d->hist_n = d->intervals == 0 ? 0 :
	    ui_pane_proc_past_fill(d, id, d->intervals - 1);
	d->nfiles = 0;
	d->drill = id;
	memset(&d->drill_row, 0, sizeof d->drill_row);
	if (d->tab.sel < d->tab.norder)
		d->drill_row = d->rows[d->tab.order[d->tab.sel]];
	if (d->hist_n > 0)
		ui_status(u, "following PID %u: %u intervals of its past, then one "
		    "column per interval", id, d->hist_n);
	else
		ui_status(u, "following PID %u; its heatmap fills one column per "
		    "interval", id);
}

/* Keys of the processes pane: move, sort, drill down and back. */
static int
ui_pane_proc_key(struct ui_pane *p, enum ui_action a)
{
	struct ui_state	*u = p->u;
	struct ui_proc	*d = p->data;
	unsigned	 i;
	uint32_t	 saved;
	int		 used;

	if (d->drill != 0) {
		if (a != UI_BACK)
			return (a == UI_ENTER);
		d->drill = 0;
		for (i = 0; i < d->nfiles; i++)
			free(d->files[i].path);
		d->nfiles = 0;
		return (1);
	}
	if (a == UI_GROUP) {
		d->by_cgroup = !d->by_cgroup;
		d->jobs.by_job = 0;
		ui_status(u, d->by_cgroup ? "processes grouped by cgroup (c: one row per "
		    "process); from the next interval" : "one row per process (c: by cgroup); "
		    "from the next interval");
		return (1);
	}
	if (ui_pane_job_key(u, &d->jobs, a, d->tab.sel < d->tab.norder ?
	    d->rows[d->tab.order[d->tab.sel]].id : 0, &d->by_cgroup))
		return (1);
	if (a == UI_ENTER) {
		if (d->by_cgroup)
			return (1);	/* a cgroup's row has no drill-down */
		if (d->tab.sel < d->tab.norder)
			ui_pane_proc_drill(p, d->rows[d->tab.order[d->tab.sel]].id);
		return (1);
	}
	saved = d->tab.hidden;	/* no sorting by HOST where it is not shown (one host) */
	d->tab.hidden |= host_count() > 1 ? 0 : 1u << UI_PC_HOST;
	used = ui_tab_key(u, &d->tab, a, d->rows, d->nrows);
	d->tab.hidden = saved;
	return (used);
}

/* A click selects a row; a click on the selected row drills down. */
static void
ui_pane_proc_click(struct ui_pane *p, const struct ui_rect *r, int y,
    __unused int x)
{
	struct ui_proc	*d = p->data;
	int		 row;

	if (d->drill != 0 || (row = ui_tab_click(&d->tab, r, y)) < 0)
		return;
	if ((unsigned)row == d->tab.sel && !d->by_cgroup && (!d->jobs.by_job || d->jobs.open != 0))
		ui_pane_proc_drill(p, d->rows[d->tab.order[row]].id);
	d->tab.sel = (unsigned)row;
	ui_pane_proc_remember(d, d->tab.order[row]);
}

/* The pane's defaults: its columns (made from their fields' rows the first time), the sort. */
static const struct ui_tab *
ui_pane_proc_tab_default(void)
{
	const struct field *f;
	unsigned	 i;

	if (ui_proc_cols[0].name != NULL)
		return (&ui_proc_tab);
	for (i = 0; i < UI_PC_MAX; i++) {
		f = &proc_fields[ui_proc_show[i].field];
		ui_proc_cols[i] = (struct ui_col){
			.name = f->ui.title, .width = f->ui.width, .left = ui_proc_show[i].left,
			.ascending = ui_proc_show[i].ascending,
			.by_name = ui_proc_show[i].by_name, .key = (enum proc_key)f->top_key,
			.off = ui_proc_show[i].off != 0 || ui_proc_show[i].value != NULL ||
			    (f->unit != FIELD_COUNT && f->unit != FIELD_RAW) ?
			    ui_proc_show[i].off : offsetof(struct ui_proc_row, c) + f->off,
			.value = ui_proc_show[i].value, .fmt = ui_proc_show[i].fmt,
		};
	}
	return (&ui_proc_tab);
}

/* The pane's state in a new UI: the table's defaults, no rows yet. */
static void *
ui_pane_proc_init(void)
{
	struct ui_proc	*d = xcalloc(1, sizeof *d);

	ui_pane_proc_tab_default();
	d->tab = ui_proc_tab;
	d->tab.owner = d;
	return (d);
}

/* Free the pane's state and its snapshot. */
static void
ui_pane_proc_free(void *data)
{
	struct ui_proc	*d = data;
	unsigned	 i;

	for (i = 0; i < d->nfiles; i++)
		free(d->files[i].path);
	free(d->rows);
	free(d->tab.order);
	free(d->files);
	free(d->hist);
	free(d->hcols);
	free(d->past_pool);
	free(d);
}

/* The table's sort and columns, for the config file. */
static struct ui_tab *
ui_pane_proc_tab(struct ui_pane *p)
{
	struct ui_proc	*d = p->data;

	return (&d->tab);
}

/* The process drilled into, or the one selected (not a cgroup's row). */
static int
ui_pane_proc_selected(struct ui_pane *p, uint64_t *id, __unused const char **path)
{
	struct ui_proc	*d = p->data;

	*id = d->drill != 0 ? d->drill : !d->by_cgroup && d->tab.sel < d->tab.norder ?
	    d->rows[d->tab.order[d->tab.sel]].id : 0;
	return (*id != 0);
}

const struct pane_entry ui_pane_proc = {
	.name = "processes",
	.title = "Processes",
	.init = ui_pane_proc_init,
	.free = ui_pane_proc_free,
	.collect = ui_pane_proc_collect,
	.draw = ui_pane_proc_draw,
	.key = ui_pane_proc_key,
	.click = ui_pane_proc_click,
	.tab = ui_pane_proc_tab,
	.tab_default = ui_pane_proc_tab_default,
	.selected = ui_pane_proc_selected,
};
