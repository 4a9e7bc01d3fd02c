/* test-batch.c: the shape of the batch reports (JSON Lines and text). */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blktop.h"
#include "check.h"
#include "fields.h"
#include "window-find.h"

struct blktop bt;

/* A strict little JSON checker: advances *p past one value or returns -1. */
static int
json_value(const char **p)
{
	const char	*s = *p;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		int obj = *s == '{';

		s++;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == close) {
			*p = s + 1;
			return (0);
		}
		for (;;) {
			if (obj) {
				while (isspace((unsigned char)*s))
					s++;
				if (*s != '"' || json_value(&s) != 0)
					return (-1);
				while (isspace((unsigned char)*s))
					s++;
				if (*s++ != ':')
					return (-1);
			}
			if (json_value(&s) != 0)
				return (-1);
			while (isspace((unsigned char)*s))
				s++;
			if (*s == ',') {
				s++;
				continue;
			}
			if (*s != close)
				return (-1);
			*p = s + 1;
			return (0);
		}
	}
	if (*s == '"') {
		for (s++; *s != '"'; s++) {
			if (*s == '\0' || (unsigned char)*s < 0x20)
				return (-1);
			if (*s == '\\')
				s++;
		}
		*p = s + 1;
		return (0);
	}
	if (*s == '-' || isdigit((unsigned char)*s)) {
		char *end;
		strtod(s, &end);
		if (end == s)
			return (-1);
		*p = end;
		return (0);
	}
	if (strncmp(s, "null", 4) == 0 || strncmp(s, "true", 4) == 0) {
		*p = s + 4;
		return (0);
	}
	if (strncmp(s, "false", 5) == 0) {
		*p = s + 5;
		return (0);
	}
	return (-1);
}

/* A source whose programs ran 1000 times more, for 250 us more, at each look. */
static int
fake_cost(struct source *src __unused, struct prog_cost *st)
{
	static uint64_t	 n;

	n++;
	st->run_ns = n * 250000;
	st->runs = n * 1000;
	st->misses = 0;
	st->paths_reused = n * 700;
	st->paths_missed = n * 2;
	st->batched = n * 48;
	return (0);
}
static const struct source_entry fake_source = { .name = "fake", .cost = fake_cost };

/* Whether a whole line is one valid JSON object. */
static int
json_valid(const char *line)
{
	const char *p = line;

	if (json_value(&p) != 0)
		return (0);
	while (isspace((unsigned char)*p))
		p++;
	return (*p == '\0');
}

/* The inverse of name_escape, as doc/blktop.8 describes it. */
static void
name_unescape_test(char *out, const char *s)
{
	size_t	 run, k;

	while (*s != '\0') {
		if (*s != '\\') {
			*out++ = *s++;
			continue;
		}
		for (run = 0; s[run] == '\\'; run++)
			;
		if (s[run] != 'X') {
			memcpy(out, s, run);
			out += run;
			s += run;
			continue;
		}
		for (k = 0; k < run / 2; k++)
			*out++ = '\\';
		if (run % 2 == 1) {
			char hex[3] = { s[run + 1], s[run + 2], '\0' };

			*out++ = (char)strtoul(hex, NULL, 16);
			s += run + 3;
		} else {
			*out++ = 'X';
			s += run + 1;
		}
	}
	*out = '\0';
}

/* What the sinks got of the last page record. */
/* A random name of 1 to 40 bytes into raw: a third any byte, the rest picked from pick (the hard cases). */
static void
name_random_test(char *raw, const char *pick)
{
	size_t	 k, n = 1 + (size_t)rand() % 40;

	for (k = 0; k < n; k++)
		raw[k] = (char)(rand() % 3 == 0 ? rand() % 255 + 1 :
		    pick[(size_t)rand() % strlen(pick)]);
	raw[n] = '\0';
}

static size_t		 page_len;
static uint64_t		 page_index1 = 99;

static void
page_event(struct sink *s __unused, const struct rec_type *rt __unused, const void *rec,
    size_t len, unsigned keep __unused)
{
	const struct ev_page *p = rec;

	if (p->type != EV_PAGE)
		return;
	page_len = len;
	page_index1 = p->index1;
}

static const struct sink_entry page_sink = { .name = "page", .event = page_event };

/* A record of a type that grew (ev_page.index1), as an older blktop wrote it. */
static void
test_grown(struct blktop *b, uint64_t now)
{
	uint64_t	 bad = b->bad_records;
	unsigned char	 old[sizeof(struct ev_page)];
	struct ev_page	 pg;

	/* A page record of a blktop before ev_page.index1: taken, index1 0 ("not known"). */
	stream_add_sink(b, &page_sink, NULL);
	memset(&pg, 0, sizeof pg);
	pg.type = EV_PAGE;
	pg.kind = PAGE_FAULT;
	pg.bytes = 4096;
	pg.ts = now + 2000;
	pg.index1 = 12;
	memset(old, 0xff, sizeof old);
	memcpy(old, &pg, EV_PAGE_OLD_SIZE);
	CHECK("an older, shorter page record is taken",
	    stream_event(b, old, EV_PAGE_OLD_SIZE) == 0 && b->bad_records == bad);
	CHECK("and reaches the sinks at the new size, index1 0 (not known)",
	    page_len == sizeof pg && page_index1 == 0);
	CHECK("a page record shorter than the old size is refused",
	    stream_event(b, old, EV_PAGE_OLD_SIZE - 1) == -1 && b->bad_records == bad + 1);
	CHECK("a full one keeps its index",
	    stream_event(b, &pg, sizeof pg) == 0 && page_index1 == 12);
	CHECK("its offset: page 11", model_fault_offset(&pg) == 11 * 4096);
	pg.index1 = UINT64_MAX;
	CHECK("an index past any offset: not known", model_fault_offset(&pg) == -1);
	pg.kind = PAGE_DIRTY;
	pg.index1 = 5;
	CHECK("a dirtied page: no offset", model_fault_offset(&pg) == -1);
}

static unsigned		 idle_seen[2];

static void
idle_event(struct sink *s, const struct rec_type *rt __unused, const void *rec __unused,
    size_t len __unused, unsigned keep __unused)
{
	idle_seen[s->opts != NULL]++;
}

static const struct sink_entry idle_sink = { .name = "idle", .event = idle_event };

/*
 * A sink gone idle (stream_sink_idle: the capture sink with nothing to
 * record) is handed records until the next tick, then none; back, at once;
 * the sinks after it take every record throughout.
 */
static void
test_idle(struct blktop *b, uint64_t now)
{
	struct ev_block	 e;
	struct ev_tick	 t = { .type = EV_TICK, .ts = now + 40 * NSEC_PER_SEC };
	struct sink	*s;

	stream_add_sink(b, &idle_sink, NULL);
	s = &b->sinks[b->nsinks - 1];
	stream_add_sink(b, &idle_sink, &idle_seen);	/* the one after it */
	memset(&e, 0, sizeof e);
	e.type = EV_BLOCK;
	e.dev = DEV_MKDEV(7, 0);
	e.op = BLK_OP_READ;
	e.bytes = 4096;
	e.ts_start = t.ts - 3000;
	e.ts_issue = t.ts - 2000;
	e.ts_done = t.ts - 1000;
	stream_sink_idle(s, 1);
	stream_event(b, &e, sizeof e);
	CHECK("idle: a record before the next tick still reaches it, and the one after",
	    idle_seen[0] == 1 && idle_seen[1] == 1);
	stream_event(b, &t, sizeof t);
	e.ts_start += NSEC_PER_SEC;
	e.ts_issue += NSEC_PER_SEC;
	e.ts_done += NSEC_PER_SEC;
	stream_event(b, &e, sizeof e);
	CHECK("idle: after the tick it takes none; the one after takes them all",
	    idle_seen[0] == 2 && idle_seen[1] == 3);
	stream_sink_idle(s, 0);
	stream_event(b, &e, sizeof e);
	CHECK("back at once: the next record reaches it, in its place before the other",
	    idle_seen[0] == 3 && idle_seen[1] == 4 && b->event_sinks[b->nevent_sinks - 2] == s);
}

/* Requests in reverse start order, as a hostile capture could have them: bounded work, counted late. */
static void
test_reverse(struct blktop *b, uint64_t now)
{
	struct ev_block	 e;
	uint64_t	 early, late;
	clock_t		 c0 = clock();
	unsigned	 i;

	memset(&e, 0, sizeof e);
	e.type = EV_BLOCK;
	e.dev = DEV_MKDEV(7, 0);
	e.op = BLK_OP_READ;
	e.bytes = 4096;
	for (i = 0; i < 60000; i++) {
		e.ts_start = e.ts_issue = now + 3000000000ULL - i * 1000ULL;
		e.ts_done = now + 3000000000ULL;
		e.sector = i * 8;
		stream_event(b, &e, sizeof e);
	}
	reqpat_flush(b, UINT64_MAX);
	reqpat_stats(b->reqpat, &early, &late);
	/* The lane takes the first MODEL_LANE_MAX of those far behind, in their order; the ring 4096 places more. */
	CHECK("60000 requests in reverse start order: those past the lane and 4096 places judged late",
	    late >= 60000 - 16384 - 128 - 4097 - 1);
	/* 20 s: the whole of test-batch takes 1.3 s of CPU under ASan (issue 41). */
	CHECK("and in bounded time (under 20 s of CPU; unbounded, minutes)",
	    (double)(clock() - c0) / CLOCKS_PER_SEC < 20.0);
}

/*
 * A CPU's batch sent late (bpf/batch.h: a partial batch waits for its age):
 * a device read from sector 0 on, 10000 requests 1 us apart in start order,
 * of which the 32 from the 2000th come after the 9000th, 7000 places late,
 * past the 4096 the ring's moves reach. They wait in its lane and are
 * judged in their turn: 9999 consecutive, none late (without the lane this
 * fails: the 32 are judged after later requests).
 */
static void
test_straggler(struct blktop *b, uint64_t now)
{
	struct ev_block		 e;
	const struct devwin	*dw;
	uint64_t		 early0, late0, early, late;
	unsigned		 i, k;

	reqpat_flush(b, UINT64_MAX);
	reqpat_stats(b->reqpat, &early0, &late0);
	memset(&e, 0, sizeof e);
	e.type = EV_BLOCK;
	e.dev = DEV_MKDEV(7, 5);
	e.op = BLK_OP_READ;
	e.bytes = 4096;
	for (k = 0; k < 10000; k++) {
		/* 0..1999, 2032..9000, the 32 late ones, 9001..9999 */
		i = k < 2000 ? k : k < 8969 ? k + 32 : k < 9001 ? k - 6969 : k;
		e.ts_start = e.ts_issue = now + 10000000000ULL + i * 1000ULL;
		e.ts_done = e.ts_start + 500;
		e.sector = (uint64_t)i * 8;
		stream_event(b, &e, sizeof e);
	}
	reqpat_flush(b, UINT64_MAX);
	reqpat_stats(b->reqpat, &early, &late);
	dw = windows_find(&b->win, DEV_MKDEV(7, 5));
	CHECK("32 requests 7000 places late: judged in start order (9999 consecutive), none late",
	    dw != NULL && dw->rpat.n[PAT_READ] == 10000 && dw->rpat.consec[PAT_READ] == 9999 &&
	    late == late0);
}

/* -o's names: the sort keys' JSON fields (field-proc.c), and the names they had before. */
static void
test_sort_keys(void)
{
	CHECK("keys: names round-trip", field_key_parse("call_write_bytes") ==
	    PROC_KEY_VFS_WRITE_BYTES && strcmp(field_key_name(PROC_KEY_LAT), "lat") == 0 &&
	    strcmp(field_key_name(PROC_KEY_READ_IOS), "req_reads") == 0 &&
	    field_key_parse("nope") == -1);
	CHECK("keys: the names before the JSON schema are taken too",
	    field_key_parse("vfs_write_bytes") == PROC_KEY_VFS_WRITE_BYTES &&
	    field_key_parse("read_ios") == PROC_KEY_READ_IOS);
	CHECK("keys: every key has one name", strcmp(field_key_name(PROC_KEY_OPENS), "opens") == 0 &&
	    strcmp(field_key_name(PROC_KEY_DISK_WRITE_BYTES), "disk_write_bytes") == 0 &&
	    strcmp(field_key_name(PROC_KEY_MAX), "?") == 0);
	{
		char	 list[512], small[8];
		size_t	 n = field_key_list(list, sizeof list, " ");

		CHECK("keys: -o's list, from the table, every key once",
		    n == strlen(list) && strcmp(list, "req_reads req_writes req_read_bytes "
		    "req_write_bytes opens call_reads call_writes call_read_bytes "
		    "call_write_bytes disk_read_bytes disk_write_bytes never_read_bytes lat") == 0);
		CHECK("keys: the list cut to its buffer, its whole length said",
		    field_key_list(small, sizeof small, " ") == n && strlen(small) == 7);
	}
}

/* A file's text, NUL-terminated (NULL if it cannot be read). */
static char *
read_text(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*buf = NULL;
	size_t	 len = 0, n;

	if (f == NULL)
		return (NULL);
	do {
		buf = realloc(buf, len + 65536 + 1);
		n = fread(buf + len, 1, 65536, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return (buf);
}

/*
 * Every JSON member of the process field table is in the schema (which
 * forbids members it does not name) and explained in doc/json.md: a row
 * added without them fails here, not only in a root test's live run.
 */
static void
test_fields_documented(void)
{
	char		*schema = read_text(TEST_DOC "/blktop.schema.json");
	char		*md = read_text(TEST_DOC "/json.md");
	char		 q[128], missing[1024] = "";
	unsigned	 i, n = 0;

	for (i = 0; schema != NULL && md != NULL && i < PROCF_JSON_END; i++) {
		if (proc_fields[i].key == NULL)
			continue;
		n++;
		snprintf(q, sizeof q, "\"%s\"", proc_fields[i].key);
		if (strstr(schema, q) == NULL)
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing),
			    " %s(schema)", proc_fields[i].key);
		snprintf(q, sizeof q, "`%s`", proc_fields[i].key);
		if (strstr(md, q) == NULL)
			snprintf(missing + strlen(missing), sizeof missing - strlen(missing),
			    " %s(json.md)", proc_fields[i].key);
	}
	printf("fields: %u JSON members, missing:%s\n", n, missing[0] ? missing : " none");
	CHECK("fields: every JSON member of proc_fields is in the schema and doc/json.md",
	    schema != NULL && md != NULL && n > 40 && missing[0] == '\0');
	free(schema);
	free(md);
}

int
main(void)
{
	struct blktop	*b = &bt;
	struct ev_block	 e;
	struct ev_tick	 t = { .type = EV_TICK };
	struct ev_lost	 l = { .type = EV_LOST };
	char		*buf = NULL;
	size_t		 len = 0;
	uint64_t	 now = 5000 * NSEC_PER_SEC;
	unsigned	 i;

	test_sort_keys();
	test_fields_documented();
	b->opt.batch = b->opt.batch_opts.json = 1;
	b->tick_ns = NSEC_PER_SEC;
	b->ticks_per_report = 2;
	b->opt.batch_opts.out = open_memstream(&buf, &len);
	b->nticks = 10;
	stream_add_sink(b, &sink_model, NULL);
	stream_add_sink(b, &sink_batch, &b->opt.batch_opts);
	stream_begin(b, now);
	device_set_name(DEV_MKDEV(7, 0), "loop\"0");

	memset(&e, 0, sizeof e);
	e.type = EV_BLOCK;
	e.dev = DEV_MKDEV(7, 0);
	for (i = 0; i < 100; i++) {
		e.op = i % 2 ? BLK_OP_WRITE : BLK_OP_READ;
		e.bytes = 4096;
		e.ts_done = now + 1000 + i;
		e.ts_issue = e.ts_done - (i + 1) * 1000;
		e.ts_start = e.ts_issue - 500;
		e.inflight = i % 7 + 1;
		stream_event(b, &e, sizeof e);
	}
	/* A request without times: counted, out of the latencies. */
	e.op = BLK_OP_READ;
	e.ts_issue = e.ts_done - 50000000;
	e.flags = BLK_F_NOLAT | BLK_F_UNSEEN;
	stream_event(b, &e, sizeof e);
	e.flags = 0;
	CHECK("short record refused", stream_event(b, &e, sizeof e - 1) == -1 && b->bad_records == 1);
	l.count = 3;
	stream_event(b, &l, sizeof l);
	t.ts = now + NSEC_PER_SEC;
	stream_event(b, &t, sizeof t);
	fflush(b->opt.batch_opts.out);
	CHECK("no report before the interval is complete", len == 0);
	t.ts = now + 2 * NSEC_PER_SEC;
	stream_event(b, &t, sizeof t);
	fflush(b->opt.batch_opts.out);
	CHECK("one report after two ticks", len > 0 && strchr(buf, '\n') == buf + len - 1);
	CHECK("report is valid JSON", json_valid(buf));
	CHECK("interval and lost", strstr(buf, "\"interval_s\":2.000000,\"lost\":3,") != NULL);
	CHECK("device name escaped", strstr(buf, "\"name\":\"loop\\\"0\",\"major\":7,\"minor\":0") != NULL);
	CHECK("read ios and bytes, one of them without times",
	    strstr(buf, "\"read\":{\"ios\":51,\"bytes\":208896,\"errors\":0,\"no_lat\":1,") != NULL);
	CHECK("a request without times is not in the read latencies",
	    strstr(buf, "\"max\":99.0,\"avg\":50.0}") != NULL);
	CHECK("write ios", strstr(buf, "\"write\":{\"ios\":50,") != NULL);
	CHECK("latency percentiles", strstr(buf, "\"lat_us\":{\"p50\":") != NULL &&
	    strstr(buf, "\"p90\":") != NULL && strstr(buf, "\"p99\":") != NULL &&
	    strstr(buf, "\"max\":100.0") != NULL);
	CHECK("queue time", strstr(buf, "\"q_us\":{\"p50\":") != NULL);
	CHECK("the exact min beside the max", strstr(buf, "\"min\":1.0,\"max\":99.0,") != NULL &&
	    strstr(buf, "\"min\":2.0,\"max\":100.0,") != NULL);
	CHECK("no request of a class: its counts 0, its times null, not 0.0",
	    strstr(buf, "\"other\":{\"ios\":0,\"bytes\":0,\"errors\":0,\"no_lat\":0,"
	    "\"iops\":0.0,\"bytes_per_s\":0,\"bytes_per_io\":null,\"lat_us\":null,\"q_us\":null,")
	    != NULL);
	CHECK("a class's mean request size: its bytes over its requests (208896 / 51)",
	    strstr(buf, "\"bytes_per_io\":4096.0,\"lat_us\":{") != NULL);
	CHECK("histogram buckets", strstr(buf, "\"hist\":[{\"lo_us\":1,\"hi_us\":1.125,\"count\":1}") != NULL);
	CHECK("queue depth", strstr(buf, "\"qd\":{\"avg\":") != NULL && strstr(buf, "\"max\":7}") != NULL);
	CHECK("util", strstr(buf, "\"util_pct\":") != NULL);
	CHECK("lost resets per report", b->lost_report == 0 && b->lost == 3);
	CHECK("self: last, lost and CPU", strstr(buf, ",\"self\":{\"lost\":3,\"cpu_pct\":") != NULL &&
	    strstr(buf, "}}\n") == buf + len - 3);
	CHECK("self: the 101 records taken counted (not the refused one)", b->self.valid && b->self.events == 101);
	CHECK("self: BPF figures null without a source that knows them",
	    strstr(buf, "\"bpf_pct\":null,\"bpf_ns\":null,\"bpf_runs\":null,"
	    "\"bpf_ns_per_run\":null,\"bpf_ns_per_event\":null,\"paths_reused\":null,"
	    "\"paths_missed\":null,\"records_batched\":null}") != NULL);
	{
		struct source	 fake = { .entry = &fake_source, .b = b };
		uint64_t	 ts;

		b->src = &fake;
		self_reset(b);
		fclose(b->opt.batch_opts.out);
		free(buf);
		buf = NULL;
		b->opt.batch_opts.out = open_memstream(&buf, &len);
		e.ts_done = now + 2 * NSEC_PER_SEC + 1000;
		e.ts_issue = e.ts_done - 1000;
		e.ts_start = e.ts_issue;
		for (i = 0; i < 10; i++)
			stream_event(b, &e, sizeof e);
		ts = now + 3 * NSEC_PER_SEC;
		t.ts = ts;
		stream_event(b, &t, sizeof t);
		t.ts = ts + NSEC_PER_SEC;
		stream_event(b, &t, sizeof t);
		fflush(b->opt.batch_opts.out);
		CHECK("self: BPF run time and runs between two looks",
		    strstr(buf, "\"bpf_ns\":250000,\"bpf_runs\":1000,\"bpf_ns_per_run\":250.0,"
		    "\"bpf_ns_per_event\":25000.0,") != NULL);
		CHECK("self: paths put back and missed, records batched, between two looks",
		    strstr(buf, "\"paths_reused\":700,\"paths_missed\":2,"
		    "\"records_batched\":48}") != NULL);
		b->src = NULL;
	}

	/* The text table. */
	fclose(b->opt.batch_opts.out);
	free(buf);
	buf = NULL;
	b->opt.batch_opts.out = open_memstream(&buf, &len);
	b->opt.batch_opts.json = 0;
	t.ts = now + 4 * NSEC_PER_SEC;
	b->ticks_since_report = 1;
	stream_event(b, &t, sizeof t);
	fflush(b->opt.batch_opts.out);
	CHECK("text header", strstr(buf, "Device") != NULL && strstr(buf, "r_p99") != NULL &&
	    strstr(buf, "%util") != NULL);
	CHECK("text row", strstr(buf, "loop\"0") != NULL);
	{
		char		*row = strstr(buf, "loop\"0"), *tok, *save;
		unsigned	 dash = 0, zero = 0;

		/* No request in the report: awaits and percentiles "-", rates a real 0. */
		if (row != NULL && (tok = strchr(row, '\n')) != NULL)
			*tok = '\0';
		for (tok = row != NULL ? strtok_r(row, " ", &save) : NULL; tok != NULL;
		    tok = strtok_r(NULL, " ", &save)) {
			dash += strcmp(tok, "-") == 0;
			zero += strcmp(tok, "0.0") == 0 || strcmp(tok, "0.00") == 0;
		}
		CHECK("text row without a request: awaits and p50/p99 '-' (6), rates and util 0 (7)",
		    dash == 6 && zero == 7);
	}
	fclose(b->opt.batch_opts.out);
	free(buf);
	windows_free(&b->win);

	/* Names go to text output only as printable UTF-8: no C0, DEL or C1 control. */
	CHECK("utf8: ASCII letter 1, ESC and DEL 0",
	    name_utf8_printable("a", 1) == 1 && name_utf8_printable("\x1b[2J", 4) == 0 &&
	    name_utf8_printable("\x7f", 1) == 0);
	CHECK("utf8: C1 controls (CSI U+009B, NEL U+0085) and a lone 0x9b are not printable",
	    name_utf8_printable("\xc2\x9b", 2) == 0 && name_utf8_printable("\xc2\x85", 2) == 0 &&
	    name_utf8_printable("\x9b", 1) == 0);
	CHECK("utf8: NBSP, e acute, euro sign and an emoji are whole characters",
	    name_utf8_printable("\xc2\xa0", 2) == 2 && name_utf8_printable("\xc3\xa9", 2) == 2 &&
	    name_utf8_printable("\xe2\x82\xac", 3) == 3 &&
	    name_utf8_printable("\xf0\x9f\x98\x80", 4) == 4);
	CHECK("utf8: overlong C1, surrogate, past U+10FFFF, truncated and bad continuation are not",
	    name_utf8_printable("\xe0\x82\x9b", 3) == 0 && name_utf8_printable("\xed\xa0\x80", 3) == 0 &&
	    name_utf8_printable("\xf4\x90\x80\x80", 4) == 0 && name_utf8_printable("\xe2\x82", 2) == 0 &&
	    name_utf8_printable("\xe2\x41\xac", 3) == 0 && name_utf8_printable("\xc1\xbf", 2) == 0);
	CHECK("utf8: bidi override U+202E, zero-width space U+200B and BOM are not printable",
	    name_utf8_printable("\xe2\x80\xae", 3) == 0 && name_utf8_printable("\xe2\x80\x8b", 3) == 0 &&
	    name_utf8_printable("\xef\xbb\xbf", 3) == 0);

	/* Names as valid UTF-8, reversibly (doc/blktop.8, NAMES). */
	{
		char		 esc[1024], raw[256], back[256];
		size_t		 k, bad = 0, valid = 0;
		unsigned	 round;

		name_escape(esc, sizeof esc, "caf\xc3\xa9/x\xff\xfe", 64);
		CHECK("escape: UTF-8 kept, invalid bytes as \\XHH", strcmp(esc, "caf\xc3\xa9/x\\XFF\\XFE") == 0);
		name_escape(esc, sizeof esc, "system-systemd\\x2dcryptsetup.slice", 64);
		CHECK("escape: systemd's \\x2d unchanged", strcmp(esc, "system-systemd\\x2dcryptsetup.slice") == 0);
		name_escape(esc, sizeof esc, "a\\XFFb\\\\\x80", 64);
		CHECK("escape: backslash runs before X or an escape doubled",
		    strcmp(esc, "a\\\\XFFb\\\\\\\\\\X80") == 0);
		CHECK("escape: length needed when cut", name_escape(esc, 4, "\xff\xff", 8) == 8 &&
		    strlen(esc) == 3);
		/* 20000 random names: each escape is valid UTF-8 and decodes back. */
		srand(27);
		for (round = 0; round < 20000; round++) {
			name_random_test(raw, "\\Xx0A\xc3\xa9\xe2\x80\xae\xff\x80\xf0\x9f\x98\x80/");
			name_escape(esc, sizeof esc, raw, sizeof raw);
			for (k = 0; esc[k] != '\0'; k += name_utf8_char(esc + k, strlen(esc + k), NULL)) {
				if (name_utf8_char(esc + k, strlen(esc + k), NULL) == 0) {
					bad++;
					break;
				}
			}
			name_unescape_test(back, esc);
			if (strcmp(back, raw) == 0)
				valid++;
		}
		CHECK("escape: 20000 random names valid UTF-8 and round-trip", bad == 0 && valid == 20000);

		/* The strict escape (metrics' label values): no control or invisible character left, still reversible. */
		bad = valid = 0;
		for (round = 0; round < 20000; round++) {
			char	*se;

			name_random_test(raw, "\\X\x1b\a\r\n\x7f\xe2\x80\xae\xe2\x80\xa8\xef\xbb\xbf\xc2\x9b\xff");
			se = name_escape_strict_dup(raw, sizeof raw);
			for (k = 0; se[k] != '\0'; k += name_utf8_printable(se + k, strlen(se + k))) {
				if (name_utf8_printable(se + k, strlen(se + k)) == 0) {
					bad++;	/* every character printable: the others are \XHH */
					break;
				}
			}
			name_unescape_test(back, se);
			if (strcmp(back, raw) == 0)
				valid++;
			free(se);
		}
		CHECK("escape strict: 20000 random names all printable and round-trip", bad == 0 && valid == 20000);
	}

	/* name_text, the one sanitiser of text outputs: '?' for each control, invisible character or bad byte. */
	{
		char	 tx[64];
		char	*jb = NULL;
		size_t	 jl = 0;
		FILE	*jf;

		name_text(tx, sizeof tx, "x\x1b]0;PWNED\a\x1b[2J", 64);
		CHECK("text: ESC and BEL as '?'", strcmp(tx, "x?]0;PWNED??[2J") == 0);
		name_text(tx, sizeof tx, "a\rb\nc\x7f\xef\xbb\xbf\xe2\x80\xae\xe2\x80\x8b\xe2\x80\xa8\xe2\x80\xa9\xc2\x9b\xff", 64);
		CHECK("text: CR, LF, DEL, BOM, U+202E, U+200B, U+2028/9, C1, a bad byte: one '?' each",
		    strcmp(tx, "a?b?c????????") == 0);
		name_text(tx, sizeof tx, "caf\xc3\xa9 \xf0\x9f\x98\x80", 64);
		CHECK("text: printable UTF-8 kept", strcmp(tx, "caf\xc3\xa9 \xf0\x9f\x98\x80") == 0);
		snprintf(tx, sizeof tx, "%s", "ab\x1b\xc3\xa9");
		CHECK("text: in place, cut at a character's end",
		    name_text(tx, 5, tx, sizeof tx) == 3 && strcmp(tx, "ab?") == 0);
		snprintf(tx, sizeof tx, "%s", "\xef\xbb\xbf" "b\xe2\x80\xa8\xc3\xa9\xe2\x80\xae" "c");
		CHECK("text: in place, an invisible character of 3 bytes is one '?'",
		    name_text(tx, sizeof tx, tx, sizeof tx) == 7 && strcmp(tx, "?b?\xc3\xa9?c") == 0);
		jf = open_memstream(&jb, &jl);
		name_json(jf, "l\xe2\x80\xa8p\xe2\x80\xa9", 16);
		fclose(jf);
		CHECK("json: U+2028 and U+2029 as \\u2028, \\u2029 (line splitters break on them raw)",
		    strcmp(jb, "\"l\\u2028p\\u2029\"") == 0);
		free(jb);
	}
	test_grown(b, now);
	test_reverse(b, now);
	test_straggler(b, now);
	test_idle(b, now);
	CHECK_EXIT();
}
