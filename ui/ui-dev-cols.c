/* ui-dev-cols.c: a device's columns in the devices pane, read from its field table (field-dev.c): their titles and cells. */

#include <curses.h>
#include <string.h>

#include "blktop.h"
#include "ui.h"
#include "field-dev.h"

/* A row's column in the pane's layout (line: one line each). */
static const struct dev_col *
ui_dev_cols_col(unsigned field, int line)
{
	return (line ? &dev_fields[field].line : &dev_fields[field].ui);
}

/*
 * The titles of columns cols (n) in the layout, a space apart: what
 * ui_dev_cols_cells writes under them.
 */
void
ui_dev_cols_head(const struct dev_colref *cols, unsigned n, int line, char *buf, size_t len)
{
	const struct dev_col	*c;
	size_t			 off = 0;
	unsigned		 i;
	int			 w;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		c = ui_dev_cols_col(cols[i].field, line);
		w = dev_col_width(c, cols[i].op);
		w += (w < 0 ? -1 : 1) * (c->suffix != NULL ? (int)strlen(c->suffix) : 0);
		off += (size_t)snprintf(buf + off, len - off, "%s%*s", i ? " " : "", w,
		    dev_col_title(c, cols[i].op));
	}
}

/*
 * A device's cells of columns cols (n) in the layout, a space apart: rates
 * as "12.3k", times as "850us", time averages with their decimals (these
 * three over no time: 0); "-" where nothing is behind a figure (no request
 * timed: not "0ns").
 */
void
ui_dev_cols_cells(const struct dev_ctx *x, const struct dev_colref *cols, unsigned n,
    int line, char *buf, size_t len)
{
	const struct dev_field_row	*r;
	const struct dev_col		*c;
	char				 cell[64];
	size_t				 off = 0;
	unsigned			 i;
	double				 v;
	int				 w, known;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		r = &dev_fields[cols[i].field];
		c = ui_dev_cols_col(cols[i].field, line);
		w = dev_col_width(c, cols[i].op);
		v = dev_field_value(x, &cols[i], &known);
		if (c->scale != 0)
			v /= c->scale;
		if (r->unit == DEVU_TEXT)
			snprintf(cell, sizeof cell, "%*.*s", w, w < 0 ? -w : w,
			    device_name(x->dev));
		else if (r->unit == DEVU_RATE)
			ui_layout_rate(cell, sizeof cell, v);
		else if (!known && r->unit != DEVU_TIME)
			snprintf(cell, sizeof cell, "%*s", w, "-");
		else if (r->unit == DEVU_NS)
			draw_fmt_lat(cell, sizeof cell, (uint64_t)v);
		else if (r->unit == DEVU_COUNT)
			snprintf(cell, sizeof cell, "%*llu", w,
			    (unsigned long long)dev_field_count(x, &cols[i]));
		else
			snprintf(cell, sizeof cell, "%*.*f%s", w, c->prec, v,
			    c->suffix != NULL ? c->suffix : "");
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", cell);
	}
}
