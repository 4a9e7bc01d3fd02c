/* ui-depth.c: the queue depth screen: the depths each device's requests found, and what each cost, until the next key. */

#include <curses.h>
#include <stdio.h>

#include "blktop.h"
#include "model-qdepth.h"
#include "ui.h"

/* One bucket's line: the depths, how many found it at start and at dispatch, their await, p50, p99, share of the bytes, a bar. */
static void
ui_depth_line(int y, int x, int w, unsigned k, const struct qd_acc *a, uint64_t bytes,
    uint64_t max)
{
	const struct qd_lat	*l = a->lat[k] != NULL && a->lat[k]->n != 0 ? a->lat[k] : NULL;
	char			 qd[24], line[256];
	int			 n, bar;

	if (k == 0)
		snprintf(qd, sizeof qd, "1");
	else if (k == QD_NBUCKETS - 1)
		snprintf(qd, sizeof qd, "%llu+", 1ULL << k);
	else
		snprintf(qd, sizeof qd, "%llu-%llu", 1ULL << k, (2ULL << k) - 1);
	if (l != NULL)
		n = snprintf(line, sizeof line, "  %7s %10llu %10llu %10.1f %10.1f %10.1f %6.1f ", qd,
		    (unsigned long long)l->n, (unsigned long long)a->disp[k],
		    (double)l->sum / (double)l->n / 1e3,
		    hist_percentile(l->hist, l->n, 50, l->min, l->max) / 1e3,
		    hist_percentile(l->hist, l->n, 99, l->min, l->max) / 1e3,
		    bytes ? 100.0 * (double)l->bytes / (double)bytes : 0);
	else
		n = snprintf(line, sizeof line, "  %7s %10d %10llu %10s %10s %10s %6s ", qd, 0,
		    (unsigned long long)a->disp[k], "-", "-", "-", "-");
	/* A bar of the count at start, to the largest bucket's, in what is left of the line. */
	bar = l != NULL && w > n + 1 ? (int)((double)(w - n - 1) * (double)l->n / (double)max) : 0;
	for (; bar > 0 && n < (int)sizeof line - 1; bar--)
		line[n++] = '#';
	line[n < (int)sizeof line ? n : (int)sizeof line - 1] = '\0';
	ui_text(stdscr, y, x, THEME_MAIN_FG, THEME_MAIN_BG, line);
}

/*
 * Each device whose depths come from its requests' times: per depth bucket
 * (fio's), the requests since the start (as of the last report) that found
 * it at their start and at their dispatch, and the total latency (start to
 * done, us) and share of the bytes of those that found it at their start.
 */
void
ui_draw_depth(const struct ui_state *u, const struct ui_rect *r)
{
	const struct windows	*w = &u->b->win;
	const struct qd_acc	*a;
	uint64_t		 bytes, max;
	unsigned		 i, k;
	int			 y = r->y + 2, shown = 0;

	ui_text(stdscr, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, "Queue depth since the start, "
	    "as of the last report (any key closes it; doc/json.md, qd)");
	for (i = 0; i < w->ndevs && y + 2 < r->y + r->h; i++) {
		if ((a = depth_acc(w->devs[i], 1)) == NULL)
			continue;
		for (bytes = 0, max = 1, k = 0; k < QD_NBUCKETS; k++) {
			if (a->lat[k] == NULL)
				continue;
			bytes += a->lat[k]->bytes;
			if (a->lat[k]->n > max)
				max = a->lat[k]->n;
		}
		ui_text(stdscr, y++, r->x, THEME_TITLE, THEME_MAIN_BG,
		    device_name(w->devs[i]->dev));
		ui_text(stdscr, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG,
		    "       qd   at start at dispatch   await_us     p50_us     p99_us    MB%");
		for (k = 0; k < QD_NBUCKETS && y < r->y + r->h; k++) {
			if ((a->lat[k] == NULL || a->lat[k]->n == 0) && a->disp[k] == 0)
				continue;
			ui_depth_line(y++, r->x, r->w, k, a, bytes, max);
		}
		shown++;
		y++;
	}
	if (shown == 0)
		ui_text(stdscr, y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "no device's depths "
		    "from its requests' times yet (they come a report after the requests)");
}
