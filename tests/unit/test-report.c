/* test-report.c: --report says what it leaves out: the marks and phases past the 256 kept (issue 41, items 3 and 15). */

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
	struct blktop		*b = &bt;
	struct report_opts	 html = { 0 }, json = { 0 };
	struct ev_tick		 t = { .type = EV_TICK };
	char			 dir[] = "/dev/shm/blktop-test-report.XXXXXX", hpath[128], jpath[128];
	char			 label[32], *err = NULL, *h, *j;
	uint64_t		 now = 5000 * NSEC_PER_SEC;
	unsigned		 i;

	if (mkdtemp(dir) == NULL) {
		CHECK("a directory for the reports in /dev/shm", 0);
		CHECK_EXIT();
	}
	snprintf(hpath, sizeof hpath, "%s/r.html", dir);
	snprintf(jpath, sizeof jpath, "%s/r.json", dir);
	html.path = hpath;
	json.path = jpath;
	b->tick_ns = NSEC_PER_SEC;
	b->nticks = 10;
	b->ticks_per_report = 1;
	b->procs = proc_create(64, 64, 0);
	stream_add_sink(b, &sink_model, NULL);
	stream_add_sink(b, &sink_report, &html);
	stream_add_sink(b, &sink_report, &json);
	CHECK("the report sinks start", stream_start(b, &err) == 0);
	stream_begin(b, now);
	/* 300 marks over three ticks, a file read between them. */
	for (i = 0; i < 300; i++) {
		snprintf(label, sizeof label, "m%u", i);
		feed_mark(b, now + 1000 + (uint64_t)i * 10000000, label);
		feed_read(b, now + 2000 + (uint64_t)i * 10000000, 1000, "/data/f");
		if (i % 100 == 99) {
			t.ts = now + (uint64_t)(i + 1) * 10000000;
			stream_event(b, &t, sizeof t);
		}
	}
	stream_end(b);
	stream_stop(b);

	h = feed_slurp(hpath);
	j = feed_slurp(jpath);
	CHECK("both reports written", h != NULL && j != NULL);
	CHECK("--report OUT.json: the marks listed and marks_not_listed sum to the 300 taken",
	    j != NULL && feed_field(j, "marks_not_listed") > 0 && feed_count(j, "{\"ts\":") +
	    (unsigned long long)feed_field(j, "marks_not_listed") == 300);
	CHECK("--report OUT.json: the phases listed and phases_not_listed sum to the 301 closed",
	    j != NULL && feed_field(j, "phases_not_listed") > 0 && feed_count(j, "\"duration_s\":") - 1 +
	    (unsigned long long)feed_field(j, "phases_not_listed") == 301);
	snprintf(label, sizeof label, "%llu earlier marks not drawn",
	    j != NULL ? (unsigned long long)feed_field(j, "marks_not_listed") : 0ULL);
	CHECK("--report OUT.html: the marks not drawn on the charts are counted",
	    h != NULL && strstr(h, label) != NULL);
	free(h);
	free(j);
	unlink(hpath);
	unlink(jpath);
	rmdir(dir);
	proc_free(b->procs);
	CHECK_EXIT();
}
