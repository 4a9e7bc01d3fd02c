/*
 * json-wear.c: the run's "wear" object (--report OUT.json): what became of
 * the bytes written (src/wear.h), over every file the table holds and by
 * directory (the files directly in it, by the path the table has; in a run
 * of several hosts a directory is its host's, as a file is), and the files
 * created and unlinked a second over the run. Made at the report from
 * the file table, not per event: a file the table evicted is in neither.
 */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "field-dev.h"
#include "json-key.h"
#include "json-wear.h"

/* Add file fe's totals into d. */
static void
wear_dir_add(struct wear_dir *d, const struct file_entry *fe)
{
	const struct wear_counts *w = &fe->tot.wear;

	d->files++;
	d->written += w->written;
	d->read_back += w->read_back;
	d->never_read += w->never_read;
	d->unread += fe->wear.unread.bytes;
	d->over += w->over;
	d->creates += fe->tot.creates;
	d->unlinks += fe->tot.fops[FOP_UNLINK];
	d->lives += w->lives;
	d->life_ns += w->life_ns;
}

/* A 32-bit FNV-1a of s's n bytes. */
static uint32_t
wear_hash(const char *s, size_t n)
{
	uint32_t	 h = 2166136261u;

	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return (h);
}

/* One file: into the totals and its directory's slot (found or taken: open addressing). */
static void
wear_file(void *arg, const struct file_entry *fe)
{
	struct wear_walk	*w = arg;
	struct wear_dir		*d;
	const char		*slash;
	size_t			 n;
	uint32_t		 i, k;

	if (fe->tot.wear.written + fe->tot.creates + fe->tot.fops[FOP_UNLINK] == 0)
		return;		/* nothing written, created or unlinked: not a row of this */
	wear_dir_add(&w->all, fe);
	model_file_path(w->t, fe, w->path, sizeof w->path);
	slash = strrchr(w->path, '/');
	n = slash != NULL ? (size_t)(slash - w->path) : 0;
	i = wear_hash(w->path, n) ^ (uint32_t)(fe->host + 1) * 2654435761u;
	for (k = 0; k < WEAR_DIRS; k++) {
		d = &w->dirs[(i + k) % WEAR_DIRS];
		if (d->dir == NULL) {
			if (w->ndirs == WEAR_DIRS * 3 / 4)
				break;		/* full enough: counted apart */
			d->dir = xmalloc(n + 1);
			memcpy(d->dir, w->path, n);
			d->dir[n] = '\0';
			d->host = fe->host;
			w->ndirs++;
		} else if (d->host != fe->host || strlen(d->dir) != n ||
		    memcmp(d->dir, w->path, n) != 0)
			continue;
		wear_dir_add(d, fe);
		return;
	}
	w->dirs_more++;
}

/* ,"key":n, the key that of field row i (the field table names every key once). */
static void
wear_count(FILE *f, unsigned i, uint64_t n)
{
	fprintf(f, ",\"%s\":%llu", proc_fields[i].key, (unsigned long long)n);
}

/* Members of d (the leading comma included); secs > 0: the churn a second too. */
static void
wear_members(FILE *f, const struct wear_dir *d, double secs)
{
	fprintf(f, "," JK(JK_FILES) "%llu", (unsigned long long)d->files);
	wear_count(f, PROCF_WRITTEN, d->written);
	wear_count(f, PROCF_READ_BACK, d->read_back);
	wear_count(f, PROCF_NEVER_READ, d->never_read);
	wear_count(f, PROCF_UNREAD, d->unread);
	wear_count(f, PROCF_WEAR_OVER, d->over);
	wear_count(f, PROCF_CREATES, d->creates);
	wear_count(f, PROCF_UNLINKS, d->unlinks);
	wear_count(f, PROCF_LIFETIMES, d->lives);
	json_num(f, proc_fields[PROCF_LIFETIME].key, d->lives > 0, 6,
	    d->lives > 0 ? (double)d->life_ns / (double)d->lives / 1e9 : 0);
	if (secs <= 0)
		return;
	json_num(f, proc_fields[PROCF_CREATES_S].key, 1, 3, (double)d->creates / secs);
	json_num(f, proc_fields[PROCF_UNLINKS_S].key, 1, 3, (double)d->unlinks / secs);
}

/* Order: never read and unread bytes, most first; then by name. */
static int
wear_dir_cmp(const void *a, const void *b)
{
	const struct wear_dir	*x = a, *y = b;
	uint64_t		 u = x->never_read + x->unread, v = y->never_read + y->unread;

	if (x->dir == NULL || y->dir == NULL)
		return ((x->dir == NULL) - (y->dir == NULL));
	if (u != v)
		return (u > v ? -1 : 1);
	if (strcmp(x->dir, y->dir) != 0)
		return (strcmp(x->dir, y->dir));
	return ((x->host > y->host) - (x->host < y->host));
}

/*
 * The run's figures over the files of b's table (NULL without call records),
 * the directories sorted, most never read and unread bytes first; for
 * wear_walk_free.
 */
struct wear_walk *
wear_walk_new(const struct blktop *b)
{
	struct wear_walk	*w;

	if (b->procs == NULL || !(b->have & HAVE_VFS))
		return (NULL);
	w = xcalloc(1, sizeof *w);
	w->t = b->procs;
	top_each_file(b->procs, wear_file, w);
	qsort(w->dirs, WEAR_DIRS, sizeof w->dirs[0], wear_dir_cmp);
	return (w);
}

void
wear_walk_free(struct wear_walk *w)
{
	unsigned	 i;

	if (w == NULL)
		return;
	for (i = 0; i < WEAR_DIRS; i++)
		free(w->dirs[i].dir);
	free(w);
}

/*
 * ,"wear":{...}: the run's totals over the files the table holds, each
 * directory's (WEAR_DIRS_SHOWN at most, most never read and unread first),
 * secs the run's length for the churn; null without call records.
 */
void
json_wear_run(FILE *f, const struct blktop *b, double secs)
{
	struct wear_walk	*w = wear_walk_new(b);
	unsigned		 i;

	if (w == NULL) {
		fprintf(f, ",\"wear\":null");
		return;
	}
	fprintf(f, ",\"wear\":{" JK(JK_DURATION_S) "%.3f", secs);
	wear_members(f, &w->all, secs);
	fprintf(f, ",\"dirs_more\":%u,\"files_in_dirs_more\":%llu,\"dirs\":[",
	    w->ndirs > WEAR_DIRS_SHOWN ? w->ndirs - WEAR_DIRS_SHOWN : 0,
	    (unsigned long long)w->dirs_more);
	for (i = 0; i < w->ndirs && i < WEAR_DIRS_SHOWN; i++) {
		fputs(i ? ",{" : "{", f);
		if (w->dirs[i].host != HOST_NONE) {	/* a run of several hosts */
			fprintf(f, "\"%s\":", dev_fields[DEVF_HOST].key);	/* as a device's */
			json_string(f, host_name(w->dirs[i].host));
			fputc(',', f);
		}
		fprintf(f, "\"dir\":");
		json_string(f, w->dirs[i].dir[0] != '\0' ? w->dirs[i].dir : "/");
		wear_members(f, &w->dirs[i], 0);
		fputc('}', f);
	}
	fprintf(f, "]}");
	wear_walk_free(w);
}
