/* compare-text.c: --compare -b: the compare as a text table, a block per device, process, file, phase and insight. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"

/* A side's figure in a cell: the value, or a set's median [min..max]. */
static void
compare_text_side(FILE *out, const struct cmp_fig *f, const struct cmp_side *sd, unsigned nrun)
{
	char	 cell[96];

	if (sd->n == 0)
		snprintf(cell, sizeof cell, "-");
	else if (nrun == 1)
		snprintf(cell, sizeof cell, "%.*f", f->prec, sd->median);
	else
		snprintf(cell, sizeof cell, "%.*f [%.*f..%.*f]", f->prec, sd->median, f->prec,
		    sd->min, f->prec, sd->max);
	fprintf(out, " %26s", cell);
}

/* A side's files, one line. */
static void
compare_text_files(FILE *out, const struct compare *c, int s)
{
	unsigned	 r;

	fprintf(out, "%s:", s == 0 ? "A" : "B");
	for (r = 0; r < c->nrun[s]; r++)
		fprintf(out, " %s (%.3f s)", c->run[s][r].path, c->run[s][r].duration);
	fputc('\n', out);
}

/* The compare as text. */
void
compare_text(FILE *out, const struct compare *c)
{
	const struct cmp_fig	*f;
	char			 note[256];
	unsigned		 i, j, k;

	compare_text_files(out, c, 0);
	compare_text_files(out, c, 1);
	fprintf(out, "note: %s\nrule: %s\n", compare_note(c, note, sizeof note), CMP_RULE);
	if (c->nrun[0] > 1 || c->nrun[1] > 1)
		fprintf(out, "sets: median [min..max] of each side's runs\n");
	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		f = &c->fig[i];
		fprintf(out, "\n%s %s%s%s\n", cmp_entity_names[f->entity], f->key,
		    f->key2 != NULL ? " " : "", f->key2 != NULL ? f->key2 : "");
		fprintf(out, "  %-22s %26s %26s %14s %9s %5s\n", "figure", "A", "B", "B-A",
		    "B/A", "sig");
		for (k = i; k < j; k++) {
			f = &c->fig[k];
			if (f->s[0].n == 0 && f->s[1].n == 0)
				continue;
			fprintf(out, "  %-19s%-3s", f->name, strcmp(compare_basis(c, f), "per_s") == 0 ?
			    " /s" : "");
			compare_text_side(out, f, &f->s[0], c->nrun[0]);
			compare_text_side(out, f, &f->s[1], c->nrun[1]);
			if (f->has_diff)
				fprintf(out, " %14.*f", f->prec, f->diff);
			else
				fprintf(out, " %14s", "-");
			if (f->has_ratio)
				fprintf(out, " %9.3f", f->ratio);
			else
				fprintf(out, " %9s", "-");
			fprintf(out, " %5s\n", f->significant < 0 ? "-" : f->significant ? "YES" :
			    "no");
		}
	}
}
