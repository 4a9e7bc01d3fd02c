/* compare-text.c: --compare -b: the compare as a text table, a block per device, process, file, phase and insight. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"

/* A side's figure in a cell: the value, or a set's median [min..max]; json: the median with -J's decimals. */
static void
compare_text_side(char *cell, size_t len, const struct cmp_fig *f, const struct cmp_side *sd,
    unsigned nrun, int json)
{
	int	 mp = f->prec + (json && sd->n % 2 == 0);

	if (sd->n == 0)
		snprintf(cell, len, "-");
	else if (nrun == 1)
		snprintf(cell, len, "%.*f", f->prec, sd->median);
	else
		snprintf(cell, len, "%.*f [%.*f..%.*f]", mp, sd->median, f->prec, sd->min, f->prec,
		    sd->max);
}

/*
 * A figure's row as text cells (CMP_CELL_*): its name (" /s" after a total
 * compared per second), A, B, B - A, B / A and its significance, "-" for
 * none; json: with the decimals -J writes them with, else -b's.
 */
void
compare_cells(const struct compare *c, const struct cmp_fig *f, int json,
    char cell[CMP_NCELLS][CMP_CELL_LEN])
{
	snprintf(cell[CMP_CELL_NAME], CMP_CELL_LEN, "%s%s", f->name,
	    strcmp(compare_basis(c, f), "per_s") == 0 ? " /s" : "");
	compare_text_side(cell[CMP_CELL_A], CMP_CELL_LEN, f, &f->s[0], c->nrun[0], json);
	compare_text_side(cell[CMP_CELL_B], CMP_CELL_LEN, f, &f->s[1], c->nrun[1], json);
	if (f->has_diff)
		snprintf(cell[CMP_CELL_DIFF], CMP_CELL_LEN, "%.*f", f->prec + json, f->diff);
	else
		snprintf(cell[CMP_CELL_DIFF], CMP_CELL_LEN, "-");
	if (f->has_ratio)
		snprintf(cell[CMP_CELL_RATIO], CMP_CELL_LEN, "%.*f", json ? 4 : 3, f->ratio);
	else
		snprintf(cell[CMP_CELL_RATIO], CMP_CELL_LEN, "-");
	snprintf(cell[CMP_CELL_SIG], CMP_CELL_LEN, "%s", f->significant < 0 ? "-" :
	    f->significant ? "YES" : "no");
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
	char			 note[256], cell[CMP_NCELLS][CMP_CELL_LEN];
	unsigned		 i, j, k;
	size_t			 name_len;

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
			compare_cells(c, f, 0, cell);
			name_len = strlen(f->name);
			fprintf(out, "  %-19.*s%-3s %26s %26s %14s %9s %5s\n", (int)name_len,
			    cell[CMP_CELL_NAME], cell[CMP_CELL_NAME] + name_len, cell[CMP_CELL_A],
			    cell[CMP_CELL_B], cell[CMP_CELL_DIFF], cell[CMP_CELL_RATIO],
			    cell[CMP_CELL_SIG]);
		}
	}
}
