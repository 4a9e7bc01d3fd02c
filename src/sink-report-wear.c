/* sink-report-wear.c: the report's HTML table of bytes written and never read, by directory (json-wear.c's figures). */

#include <stdlib.h>

#include "blktop.h"
#include "draw.h"
#include "report.h"
#include "json-wear.h"

/* One row: a directory's figures, or the run's (name "all"). */
static void
html_wear_row(FILE *f, const char *name, const struct wear_dir *d)
{
	char	 x[5][16];

	fprintf(f, "<tr><td class=\"l path\">");
	html_text(f, name);
	fprintf(f, "</td><td>%llu</td><td>%sB</td><td>%sB</td><td>%sB</td><td>%sB</td><td>%llu</td>"
	    "<td>%llu</td><td>", (unsigned long long)d->files,
	    html_trim(draw_fmt_bytes(x[0], 16, d->written)),
	    html_trim(draw_fmt_bytes(x[1], 16, d->read_back)),
	    html_trim(draw_fmt_bytes(x[2], 16, d->never_read)),
	    html_trim(draw_fmt_bytes(x[3], 16, d->unread)),
	    (unsigned long long)d->creates, (unsigned long long)d->unlinks);
	if (d->lives > 0)
		fprintf(f, "%.3f s", (double)d->life_ns / (double)d->lives / 1e9);
	else
		fprintf(f, "-");
	fprintf(f, "</td></tr>\n");
}

/*
 * Written and never read, the run's and each directory's (doc/json.md):
 * left out when no file was written, created or unlinked.
 */
void
report_wear_html(struct html *h, double secs)
{
	struct wear_walk	*w = wear_walk_new(h->b);
	FILE			*f = h->f;
	unsigned		 i;

	if (w == NULL || w->all.files == 0) {
		wear_walk_free(w);
		return;
	}
	fprintf(f, "<h2>Written and never read</h2>\n<p class=\"dim\">Bytes written by calls with "
	    "an offset; of those, read back by a later read before an unlink or truncation; never "
	    "read: left when the file was unlinked, truncated (O_TRUNC) or created anew, or "
	    "overwritten unread; unread: still there, unread, at the end. %.2f creates/s and %.2f "
	    "unlinks/s over the run; lifetime: create to unlink.%s</p>\n<table><tr>"
	    "<th class=\"l\">directory</th><th>files</th><th>written</th><th>read back</th>"
	    "<th>never read</th><th>unread</th><th>creates</th><th>unlinks</th>"
	    "<th>mean lifetime</th></tr>\n",
	    secs > 0 ? (double)w->all.creates / secs : 0,
	    secs > 0 ? (double)w->all.unlinks / secs : 0,
	    w->all.over > 0 ? " Ranges were joined at a file's cap: the figures may be over by "
	    "the bytes of the gaps (wear_over_bytes)." : "");
	html_wear_row(f, "all", &w->all);
	for (i = 0; i < w->ndirs && i < WEAR_DIRS_SHOWN; i++)
		html_wear_row(f, w->dirs[i].dir[0] != '\0' ? w->dirs[i].dir : "/", &w->dirs[i]);
	fprintf(f, "</table>\n");
	wear_walk_free(w);
}
