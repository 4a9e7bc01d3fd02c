/* test-trace.c: --trace's names: a flood of mark labels leaves the files their paths (issue 41, item 16). */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "check.h"
#include "feed.h"

struct blktop bt;

int
main(void)
{
	struct blktop	*b = &bt;
	char		 dir[] = "/dev/shm/blktop-test-trace.XXXXXX", path[128], name[64];
	char		*err = NULL, *out;
	uint64_t	 now = 5000 * NSEC_PER_SEC;
	unsigned	 i, named = 0;

	if (mkdtemp(dir) == NULL) {
		CHECK("a directory for the trace in /dev/shm", 0);
		CHECK_EXIT();
	}
	snprintf(path, sizeof path, "%s/t.json", dir);
	b->tick_ns = NSEC_PER_SEC;
	b->nticks = 10;
	b->ticks_per_report = 1;
	b->opt.trace_opts.path = path;
	b->opt.trace_opts.max_bytes = (uint64_t)TRACE_MAX_DEFAULT_MB << 20;
	stream_add_sink(b, &sink_model, NULL);
	stream_add_sink(b, &sink_trace, &b->opt.trace_opts);
	CHECK("the trace sink starts", stream_start(b, &err) == 0);
	stream_begin(b, now);

	/* 140,000 distinct labels (more than the 131,072 names), then 50 files read. */
	for (i = 0; i < 140000; i++) {
		snprintf(name, sizeof name, "label-%06u", i);
		feed_mark(b, now + 1000 + i, name);
	}
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "/data/after-the-flood-%02u", i);
		feed_read(b, now + 1000000 + i, 1000 + i, name);
	}
	stream_end(b);
	stream_stop(b);

	out = feed_slurp(path);
	CHECK("the trace is written", out != NULL);
	if (out != NULL) {
		for (i = 0; i < 50; i++) {
			snprintf(name, sizeof name, "\"path\":\"/data/after-the-flood-%02u\"", i);
			named += strstr(out, name) != NULL;
		}
	}
	CHECK("after 140,000 distinct labels the 50 file calls keep their paths (0 before)",
	    named == 50);
	CHECK("no path left unnamed", out != NULL && feed_field(out, "paths_unnamed") == 0);
	CHECK("the labels past their share counted in otherData: labels_unnamed",
	    out != NULL && feed_field(out, "labels_unnamed") == 140000 - 16384);
	CHECK("every mark is in the trace, past its share as '(a label not kept)'",
	    out != NULL && feed_field(out, "marks_seen") == 140000 && feed_field(out, "marks_dropped") == 0 &&
	    strstr(out, "\"label-016383\"") != NULL && strstr(out, "\"label-016384\"") == NULL &&
	    strstr(out, "(a label not kept)") != NULL);
	free(out);
	unlink(path);
	rmdir(dir);
	windows_free(&b->win);
	CHECK_EXIT();
}
