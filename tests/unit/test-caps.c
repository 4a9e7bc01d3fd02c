/* test-caps.c: no output cuts rows or marks without saying so (issue 41, items 3 and 15). */

#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "check.h"
#include "feed.h"

struct blktop bt;

/* The text between "key":[ and its closing ] (rows hold no nested array of objects here). */
static char *
array_of(const char *buf, const char *key)
{
	char		 pat[64];
	const char	*p;
	int		 depth = 0;
	size_t		 i;

	snprintf(pat, sizeof pat, "\"%s\":[", key);
	if ((p = strstr(buf, pat)) == NULL)
		return (NULL);
	p += strlen(pat) - 1;
	for (i = 0; p[i] != '\0'; i++) {
		if (p[i] == '[')
			depth++;
		else if (p[i] == ']' && --depth == 0)
			return (strndup(p, i + 1));
	}
	return (NULL);
}

/* n files, dir/fNNNN each read once by its own process (pids from pid0), from ts on. */
static void
feed_files(struct blktop *b, uint64_t ts, const char *dir, unsigned n, uint32_t pid0)
{
	char		 path[64];
	unsigned	 i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/f%04u", dir, i);
		feed_read(b, ts + 1000 + i, pid0 + i, path);
	}
}

/* The rows of the JSON array key in buf: how many hold field. */
static unsigned
json_rows(const char *buf, const char *key, const char *field)
{
	char		*rows = array_of(buf, key);
	unsigned	 n = rows != NULL ? feed_count(rows, field) : 0;

	free(rows);
	return (n);
}

/* One report: two ticks from ts; its output alone in *buf. */
static void
report(struct blktop *b, uint64_t ts, char **buf, size_t *len)
{
	struct ev_tick	 t = { .type = EV_TICK };

	fclose(b->opt.batch_opts.out);
	free(*buf);
	*buf = NULL;
	b->opt.batch_opts.out = open_memstream(buf, len);
	t.ts = ts;
	stream_event(b, &t, sizeof t);
	t.ts = ts + NSEC_PER_SEC;
	stream_event(b, &t, sizeof t);
	fflush(b->opt.batch_opts.out);
}

/* count marks labelled prefix0, prefix1, ... in one interval from ts, then its report. */
static void
marks_report(struct blktop *b, uint64_t ts, char prefix, unsigned count, char **buf,
    size_t *len)
{
	char		 label[32];
	unsigned	 i;

	for (i = 0; i < count; i++) {
		snprintf(label, sizeof label, "%c%u", prefix, i);
		feed_mark(b, ts + 1000 + i, label);
	}
	report(b, ts, buf, len);
}

int
main(void)
{
	struct blktop	*b = &bt;
	char		*buf = NULL, *rows, line[128], *p;
	size_t		 len = 0;
	uint64_t	 now = 5000 * NSEC_PER_SEC, ts;
	unsigned	 n;

	b->opt.batch = b->opt.batch_opts.json = 1;
	b->tick_ns = NSEC_PER_SEC;
	b->ticks_per_report = 2;
	b->nticks = 10;
	b->have = HAVE_VFS;
	b->opt.batch_opts.top = 300;
	b->opt.batch_opts.out = open_memstream(&buf, &len);
	b->procs = proc_create(4096, 4096, 0);
	stream_add_sink(b, &sink_model, NULL);
	stream_add_sink(b, &sink_batch, &b->opt.batch_opts);
	stream_begin(b, now);

	/* Item 3: --top 300 over 400 files read by 400 processes lists 300 of each. */
	feed_files(b, now, "/data", 400, 1000);
	report(b, now + NSEC_PER_SEC, &buf, &len);
	CHECK("-J --top 300, 400 files read: 300 file rows (was 256)",
	    json_rows(buf, "files", "\"path\":") == 300);
	CHECK("-J --top 300, 400 processes: 300 process rows (was 256)",
	    json_rows(buf, "processes", "\"comm\":") == 300);

	b->opt.batch_opts.json = 0;
	ts = now + 3 * NSEC_PER_SEC;
	feed_files(b, ts, "/data", 400, 1000);
	report(b, ts, &buf, &len);
	CHECK("-b --top 300: 300 file rows (was 256)", feed_count(buf, " /data/f") == 300);
	CHECK("-b --top 300: 300 process rows (was 256)", feed_count(buf, " reader ") == 300);

	/* Item 15: 1000 marks in one interval, more than the 256 kept. */
	b->opt.batch_opts.json = 1;
	marks_report(b, now + 5 * NSEC_PER_SEC, 'm', 1000, &buf, &len);
	rows = array_of(buf, "marks");
	n = rows != NULL ? feed_count(rows, "\"label\":") : 0;
	CHECK("-J: 1000 marks in an interval: those listed and marks_not_listed sum to 1000",
	    n > 0 && (p = strstr(buf, "\"marks_not_listed\":")) != NULL &&
	    n + strtoul(p + strlen("\"marks_not_listed\":"), NULL, 10) == 1000);
	CHECK("-J: the last mark is listed", rows != NULL && strstr(rows, "\"m999\"") != NULL);
	free(rows);
	CHECK("-J: phases: those listed and phases_not_listed sum to the 1000 closed",
	    (rows = array_of(buf, "phases")) != NULL &&
	    (p = strstr(buf, "\"phases_not_listed\":")) != NULL &&
	    feed_count(rows, "\"duration_s\":") +
	    strtoul(p + strlen("\"phases_not_listed\":"), NULL, 10) == 1000);
	free(rows);

	/* The next interval: 10 marks, all listed, none dropped. */
	marks_report(b, now + 7 * NSEC_PER_SEC, 'n', 10, &buf, &len);
	rows = array_of(buf, "marks");
	CHECK("-J: 10 marks in the next interval: 10 listed, marks_not_listed 0",
	    rows != NULL && feed_count(rows, "\"label\":") == 10 &&
	    strstr(buf, "\"marks_not_listed\":0,") != NULL &&
	    strstr(buf, "\"phases_not_listed\":0") != NULL);
	free(rows);

	b->opt.batch_opts.json = 0;
	marks_report(b, now + 9 * NSEC_PER_SEC, 't', 1000, &buf, &len);
	n = feed_count(buf, "\nmark ");
	snprintf(line, sizeof line, "\nmarks: %u more in this interval not listed", 1000 - n);
	CHECK("-b: 1000 marks: a line says how many are not listed", n > 0 && n < 1000 &&
	    strstr(buf, line) != NULL);
	n = feed_count(buf, "\nphase ");
	snprintf(line, sizeof line, "\nphases: %u more closed in this interval not listed",
	    1000 - n);
	CHECK("-b: and how many phases", n > 0 && n < 1000 && strstr(buf, line) != NULL);

	b->opt.batch_opts.json = 1;
	/* --top past the 1024 one top call returned: 2000 of 2500 files, in -J. */
	b->opt.batch_opts.top = 2000;
	ts = now + 11 * NSEC_PER_SEC;
	feed_files(b, ts, "/big", 2500, 5000);
	report(b, ts, &buf, &len);
	CHECK("-J --top 2000, 2500 files read: 2000 file rows (was 1024)",
	    json_rows(buf, "files", "\"path\":") == 2000);

	fclose(b->opt.batch_opts.out);
	free(buf);
	proc_free(b->procs);
	phase_free(b->phases);
	windows_free(&b->win);
	CHECK_EXIT();
}
