/*
 * compare-out.c: a compare written as the options ask: --report's HTML page
 * (sink-report-compare.c), -J's object (json-compare.c), else -b's table
 * (compare-text.c). Above the three writers and compare.c, which builds the
 * compare and calls this through compare_main's write, so that nothing of
 * the compare calls back up into its writers.
 */
#include <stdio.h>

#include "blktop.h"
#include "compare.h"

void
compare_write(const struct blktop *b, const struct compare *c)
{
	FILE	*f;

	if (b->opt.report_opts.path != NULL) {
		if ((f = fopen(b->opt.report_opts.path, "w")) == NULL)
			fatal("%s", b->opt.report_opts.path);
		compare_html(f, c);
		if (fclose(f) != 0)
			fatal("%s", b->opt.report_opts.path);
	} else if (b->opt.batch_opts.json)
		compare_json(stdout, c);
	else
		compare_text(stdout, c);
}
