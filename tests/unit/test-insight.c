/* test-insight.c: the insights' rules (src/insight.c) on files whose calls are made here through pattern_add. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "check.h"
#include "../common/rand.h"

#define NBLK	4096		/* 4 KiB blocks a file has */

/* The rule named code. */
static const struct insight_rule *
rule(const char *code)
{
	unsigned	 i;

	for (i = 0; i < insight_nrules; i++)
		if (strcmp(insight_rules[i].code, code) == 0)
			return (&insight_rules[i]);
	return (NULL);
}

/* perm[0..n): 0..n-1 in an order drawn from *seed. */
static void
shuffle(unsigned *perm, unsigned n, uint64_t *seed)
{
	unsigned	 i, j, t;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = (unsigned)(xorshift64(seed) % (i + 1));
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/*
 * One process's nr random reads and nw random writes (4 KiB blocks, each
 * block once a direction), taking turns while both last, into f's pattern.
 * rnd[d]: the calls of direction d that started before the end of the
 * previous one of d (not its first), counted here from the offsets alone.
 */
static void
calls(struct file_entry *f, unsigned nr, unsigned nw, uint64_t seed, uint64_t rnd[2])
{
	static unsigned	 perm[2][NBLK];
	struct pat_pos	 pos;
	int64_t		 end[2] = { -1, -1 }, off;
	unsigned	 i, k[2] = { 0, 0 }, want[2] = { nr, nw }, d;

	memset(f, 0, sizeof *f);
	pattern_init(&f->pat);
	pattern_pos_init(&pos);
	shuffle(perm[0], NBLK, &seed);
	shuffle(perm[1], NBLK, &seed);
	rnd[0] = rnd[1] = 0;
	for (i = 0; i < nr + nw; i++) {
		d = k[0] == want[0] ? 1 : k[1] == want[1] ? 0 : i % 2;
		off = (int64_t)perm[d][k[d]++] * 4096;
		if (end[d] != -1 && off < end[d])
			rnd[d]++;
		end[d] = off + 4096;
		pattern_add(&f->pat, &pos, (enum pat_dir)d, off, 4096);
	}
}

/* random-io is judged per direction as Drishti's check_random_operation does: more than min_calls random calls of one direction, over random_share of them. */
static void
random_checks(void)
{
	const struct insight_rule	*r = rule("random-io");
	const struct insight_conf	*c = &insight_defaults;
	static struct file_entry	 f;
	struct insight			 in;
	uint64_t			 rnd[2], n;
	double				 fig;
	char				 text[256], rtext[256];
	int				 fired;

	CHECK("random-io: the rule is there", r != NULL);
	if (r == NULL)
		return;

	/* 1500 random reads and 1500 random writes: about 750 random each. */
	calls(&f, 1500, 1500, 11, rnd);
	fired = r->fire(c, &f, &fig, &n);
	printf("random reads %llu, writes %llu of 1500 each; fired %d\n",
	    (unsigned long long)rnd[0], (unsigned long long)rnd[1], fired);
	CHECK("random-io: 1500 random reads and 1500 random writes, each direction under "
	    "1000 random calls, both over 1000 pooled: not fired",
	    rnd[0] <= c->min_calls && rnd[1] <= c->min_calls && rnd[0] + rnd[1] > c->min_calls &&
	    (double)(rnd[0] + rnd[1]) / 3000 > c->random_share && !fired);

	/* 2600 random reads and 400 random writes: about 1300 random reads. */
	calls(&f, 2600, 400, 12, rnd);
	fired = r->fire(c, &f, &fig, &n);
	memset(&in, 0, sizeof in);
	in.rule = r;
	in.file = &f;
	in.figure = fig;
	in.n = n;
	r->text(c, &in, text, sizeof text, rtext, sizeof rtext);
	printf("random reads %llu of 2600, writes %llu of 400; fired %d: %s\n",
	    (unsigned long long)rnd[0], (unsigned long long)rnd[1], fired, text);
	CHECK("random-io: 2600 random reads, over 1000 of them random: fired on the reads, "
	    "measured on the 2600 reads",
	    rnd[0] > c->min_calls && fired && n == 2600 &&
	    fig > (double)rnd[0] / 2600 - 1e-9 && fig < (double)rnd[0] / 2600 + 1e-9 &&
	    strstr(text, " of 2600 reads not sequential") != NULL);

	/*
	 * 1100 opens, each a read at a block past 0 (its first: sequential
	 * against the open's origin, as Darshan judges it) and then one at 0
	 * (random): 1100 random reads of 2200. A first judged sequential is
	 * still a first, not a sequential call that offsets a random one.
	 */
	{
		struct pat_pos	 pos;
		unsigned	 i;

		memset(&f, 0, sizeof f);
		pattern_init(&f.pat);
		pattern_pos_init(&pos);
		for (i = 0; i < 1100; i++) {
			pattern_pos_open(&pos);
			pattern_add(&f.pat, &pos, PAT_READ, (int64_t)(i % 64 + 1) * 4096, 4096);
			pattern_add(&f.pat, &pos, PAT_READ, 0, 4096);
		}
		fired = r->fire(c, &f, &fig, &n);
		printf("1100 opens of 2 reads: first_seq %llu; fired %d at %.3f of %llu\n",
		    (unsigned long long)f.pat.side[PAT_READ].first_seq, fired, fig,
		    (unsigned long long)n);
		CHECK("random-io: 1100 opens, each a first read then a random one: fired, "
		    "1100 random of 2200", fired && n == 2200 && fig > 0.5 - 1e-9 && fig < 0.5 + 1e-9);
	}

	/* The same writes alone: 400 calls, under 1000 random. */
	calls(&f, 0, 400, 12, rnd);
	CHECK("random-io: 400 random writes alone: not fired", !r->fire(c, &f, &fig, &n));
}

int
main(void)
{
	random_checks();
	CHECK_EXIT();
}
