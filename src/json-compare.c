/* json-compare.c: --compare -J: the "compare" object (doc/json.md): both sides' runs as -J wrote them, then each figure's spreads, difference, ratio and significance. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"
#include "fields.h"
#include "json-key.h"

/* A side's spread of figure f: {"values":[..],"median":..,"min":..,"p95":..,"max":..}. */
static void
json_compare_side(FILE *out, const struct cmp_fig *f, const struct cmp_side *sd, unsigned nrun)
{
	unsigned	 r;

	fprintf(out, "{\"values\":[");
	for (r = 0; r < nrun; r++) {
		if (r > 0)
			fputc(',', out);
		compare_value(out, f, sd->known[r], sd->v[r]);
	}
	fprintf(out, "],\"median\":");
	/* An even count's median falls between two values: one decimal more. */
	json_val(out, sd->n > 0, f->prec + (sd->n % 2 == 0), sd->median);
	fprintf(out, "," JK(JK_MIN));
	compare_value(out, f, sd->n > 0, sd->min);
	fprintf(out, ",\"p95\":");
	compare_value(out, f, sd->n > 0, sd->p95);
	fprintf(out, "," JK(JK_MAX));
	compare_value(out, f, sd->n > 0, sd->max);
	fputc('}', out);
}

/* One figure's object. */
static void
json_compare_fig(FILE *out, const struct compare *c, const struct cmp_fig *f)
{
	fprintf(out, "{" JK(JK_FIGURE) "\"%s\",\"basis\":\"%s\",\"a\":", f->name, compare_basis(c, f));
	json_compare_side(out, f, &f->s[0], c->nrun[0]);
	fprintf(out, ",\"b\":");
	json_compare_side(out, f, &f->s[1], c->nrun[1]);
	fprintf(out, ",\"diff\":");
	json_val(out, f->has_diff, f->prec + 1, f->diff);
	json_num(out, "ratio", f->has_ratio, 4, f->ratio);
	fprintf(out, ",\"significant\":%s}", f->significant < 0 ? "null" :
	    f->significant ? "true" : "false");
}

/* A side's captures, their lengths and their -J lines. */
static void
json_compare_runs(FILE *out, const struct compare *c, int s)
{
	unsigned	 r;

	fprintf(out, "{" JK(JK_FILES) "[");
	for (r = 0; r < c->nrun[s]; r++) {
		if (r > 0)
			fputc(',', out);
		json_string(out, c->run[s][r].path);
	}
	fprintf(out, "]," JK(JK_DURATION_S) "[");
	for (r = 0; r < c->nrun[s]; r++)
		fprintf(out, "%s%.6f", r ? "," : "", c->run[s][r].duration);
	fprintf(out, "],\"runs\":[");
	for (r = 0; r < c->nrun[s]; r++)
		fprintf(out, "%s%s", r ? "," : "", c->run[s][r].line);
	fprintf(out, "]}");
}

/* The names of an entity's row: "name", "comm", "path", "label" and "device", "code" and "name". */
static void
json_compare_key(FILE *out, const struct cmp_fig *f)
{
	static const char *const keys[CMP_NENTITY][2] = {
		{ JK_NAME, NULL }, { JK_COMM, NULL }, { JK_PATH, NULL }, { JK_LABEL, JK_DEVICE },
		{ JK_CODE, JK_NAME },
	};

	fprintf(out, "\"%s\":%s", keys[f->entity][0], f->key);
	if (keys[f->entity][1] != NULL)
		fprintf(out, ",\"%s\":%s", keys[f->entity][1], f->key2 != NULL ? f->key2 : "null");
}

/* The compare as one line of JSON: {"compare":{...}}. */
void
compare_json(FILE *out, const struct compare *c)
{
	const struct cmp_fig	*f;
	char			 note[256];
	unsigned		 e, i, j, k, n;

	fprintf(out, "{\"compare\":{\"version\":1," JK(JK_RULE));
	json_string(out, CMP_RULE);
	fprintf(out, ",\"totals_as_rates\":%s,\"note\":", c->rates ? "true" : "false");
	json_string(out, compare_note(c, note, sizeof note));
	fprintf(out, ",\"a\":");
	json_compare_runs(out, c, 0);
	fprintf(out, ",\"b\":");
	json_compare_runs(out, c, 1);
	for (e = 0; e < CMP_NENTITY; e++) {
		fprintf(out, ",\"%s\":[", cmp_entity_names[e]);
		for (i = 0, n = 0; i < c->nfig; i = j) {
			j = compare_group_end(c, i);
			if (c->fig[i].entity != e)
				continue;
			fprintf(out, "%s{", n++ ? "," : "");
			json_compare_key(out, &c->fig[i]);
			fprintf(out, ",\"figures\":[");
			for (k = i, f = NULL; k < j; k++) {
				if (c->fig[k].s[0].n == 0 && c->fig[k].s[1].n == 0)
					continue;
				if (f != NULL)
					fputc(',', out);
				json_compare_fig(out, c, f = &c->fig[k]);
			}
			fprintf(out, "]}");
		}
		fputc(']', out);
	}
	fprintf(out, "}}\n");
}
