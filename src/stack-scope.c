/* stack-scope.c: the latency stack's scopes (all, each device, process, file) as named columns and rule lines, for the UI's screen and the HTML report. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "host.h"
#include "stack.h"

/* The scopes the stack has: all, then each device, process and file, in the order it met them. */
unsigned
stack_nscopes(const struct stack *st)
{
	return (1 + st->ndevs + st->nprocs + st->nsfiles);
}

/* Fill a column: its title (the UI's), its member in -J's scope, the hist. */
static void
stack_col(struct stack_col *c, const char *name, const char *key, const struct stack_hist *h)
{
	c->name = name;
	c->key = key;
	c->h = h;
}

/* A device's (or all devices') block: the times (sizes 0) or the sizes and depths (1). */
static unsigned
stack_cols_dev(const struct stack_dev *d, int sizes, struct stack_col *c)
{
	if (sizes) {
		stack_col(&c[0], "kb_r", "bssplit_read_kb", &d->bs[0]);
		stack_col(&c[1], "kb_w", "bssplit_write_kb", &d->bs[1]);
		stack_col(&c[2], "qd_r", "qd_read", &d->qd[0]);
		stack_col(&c[3], "qd_w", "qd_write", &d->qd[1]);
		return (4);
	}
	stack_col(&c[0], "q2d_r", "q2d_read_us", &d->q2d[0]);
	stack_col(&c[1], "q2d_w", "q2d_write_us", &d->q2d[1]);
	stack_col(&c[2], "d2c_r", "d2c_read_us", &d->d2c[0]);
	stack_col(&c[3], "d2c_w", "d2c_write_us", &d->d2c[1]);
	return (4);
}

/* A process's (or all processes') calls, from column k on. */
static unsigned
stack_cols_calls(const struct stack_proc *p, struct stack_col *c)
{
	stack_col(&c[0], "vfs_r", "vfs_read_us", &p->vfs[0]);
	stack_col(&c[1], "vfs_w", "vfs_write_us", &p->vfs[1]);
	stack_col(&c[2], "fsync", "fsync_us", &p->fsync);
	stack_col(&c[3], "wr>fsync", "write_to_fsync_us", &p->wgap);
	stack_col(&c[4], "dirty>fs", "dirty_to_fsync_us", &p->dirty);
	return (5);
}

/*
 * The histograms of scope s (0 all, then devices, processes, files) into c
 * (STACK_COLS), the times in us (sizes 0) or the request sizes and depths
 * (1: all and devices only); their number.
 */
unsigned
stack_cols(const struct stack *st, unsigned s, int sizes, struct stack_col *c)
{
	const struct stack_proc	*p;
	const struct stack_file	*f;
	unsigned		 n;

	if (s == 0) {
		n = stack_cols_dev(&st->all, sizes, c);
		return (sizes ? n : n + stack_cols_calls(&st->procs_all, c + n));
	}
	if (s <= st->ndevs)
		return (stack_cols_dev(st->devs[s - 1], sizes, c));
	if (sizes)
		return (0);
	if (s <= st->ndevs + st->nprocs) {
		p = &st->procs[s - 1 - st->ndevs];
		stack_col(&c[0], "q2d", "q2d_us", &p->q2d);
		stack_col(&c[1], "d2c", "d2c_us", &p->d2c);
		return (2 + stack_cols_calls(p, c + 2));
	}
	f = &st->sfiles[s - 1 - st->ndevs - st->nprocs];
	stack_col(&c[0], "fsync", "fsync_us", &f->fsync);
	stack_col(&c[1], "wr>fsync", "write_to_fsync_us", &f->wgap);
	stack_col(&c[2], "dirty>fs", "dirty_to_fsync_us", &f->dirty);
	return (3);
}

/* Scope s's name: "all devices and processes", "device sda", "process fio[12]", "file /path". */
void
stack_scope_name(const struct stack *st, unsigned s, char *buf, size_t len)
{
	if (s == 0)
		snprintf(buf, len, "all devices and processes");
	else if (s <= st->ndevs)
		snprintf(buf, len, "device %s", device_text(st->devs[s - 1]->dev));
	else if (s <= st->ndevs + st->nprocs) {
		snprintf(buf, len, "process ");
		stack_proc_name(buf + strlen(buf), len - strlen(buf), &st->procs[s - 1 - st->ndevs]);
	} else {
		snprintf(buf, len, "file ");
		stack_file_name(buf + strlen(buf), len - strlen(buf),
		    &st->sfiles[s - 1 - st->ndevs - st->nprocs]);
	}
}

/* Scope s's rule lines, as --stack prints them (4 at most); their number. */
unsigned
stack_scope_rules(const struct stack *st, unsigned s, char lines[][STACK_LINE])
{
	const struct stack_proc	*p;
	struct stack_verdict	 v;
	char			 scope[HOST_NAME_MAX_LEN + 64];

	if (s == 0) {
		stack_judge(&v, st->all.q2d, st->all.d2c, 1, &st->procs_all);
		return (stack_verdict_lines("all", &v, 1, 1, lines));
	}
	if (s <= st->ndevs) {
		stack_judge(&v, st->devs[s - 1]->q2d, st->devs[s - 1]->d2c, 1, NULL);
		return (stack_verdict_lines(device_text(st->devs[s - 1]->dev), &v, 1, 0, lines));
	}
	if (s <= st->ndevs + st->nprocs) {
		p = &st->procs[s - 1 - st->ndevs];
		stack_judge(&v, &p->q2d, &p->d2c, 0, p);
		stack_proc_name(scope, sizeof scope, p);
		return (stack_verdict_lines(scope, &v, 0, 1, lines));
	}
	stack_file_line(lines[0], STACK_LINE, &st->sfiles[s - 1 - st->ndevs - st->nprocs]);
	return (1);
}

/* The lowest and highest slots any of the n columns has a count in; 0 if none has. */
int
stack_cols_span(const struct stack_col *c, unsigned n, unsigned *first, unsigned *last)
{
	unsigned	 i, s;

	*first = STACK_LOG2;
	*last = 0;
	for (i = 0; i < n; i++)
		for (s = 1; s < STACK_LOG2; s++)
			if (c[i].h->b[s] != 0) {
				*first = s < *first ? s : *first;
				*last = s > *last ? s : *last;
			}
	return (*first <= *last);
}
