/* test-json-read.c: src/json-read.c, the reader --compare reads -J lines with: paths, tokens kept as written, bad text refused. */

#include <string.h>

#include "base.h"
#include "json-read.h"
#include "check.h"

/* Parse s: 0 if it parsed. */
static int
test_parse(struct jr_doc *d, const char *s)
{
	char	*err = NULL;
	int	 rc = json_read_parse(d, s, strlen(s), &err);

	free(err);
	return (rc);
}

int
main(void)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":}", "{\"a\" 1}", "{\"a\":1}x", "\"open", "{1:2}",
		"[1 2]", "{\"a\":1,}",
	};
	const char	*line = "{\"ts\":1795292357.776137,\"devices\":[{\"name\":\"loop6\","
	    "\"read\":{\"ios\":12000,\"lat_us\":{\"p99\":68.9},\"q_us\":null}},"
	    "{\"name\":\"a\\\"b\\\\\",\"read\":{\"ios\":0}}],\"x\":[],\"y\":{},\"t\":true}";
	struct jr_doc	 d;
	double		 v;
	unsigned	 i, nbad = 0;
	int		 devs, row, n;

	CHECK("a -J like line parses", test_parse(&d, line) == 0);
	CHECK("ts: its value", json_read_num(&d, json_read_get(&d, 0, "ts"), &v) && v == 1795292357.776137);
	devs = json_read_get(&d, 0, "devices");
	CHECK("devices: an array", devs >= 0 && d.n[devs].type == JR_ARR);
	row = d.n[devs].child;
	CHECK("the first device's name, with its quotes", json_read_eq(&d, json_read_get(&d, row, "name"),
	    "\"loop6\""));
	n = json_read_get(&d, row, "read.lat_us.p99");
	CHECK("a dotted path: read.lat_us.p99 is 68.9, its token as written",
	    json_read_num(&d, n, &v) && v == 68.9 && d.n[n].len == 4 && memcmp(d.n[n].tok, "68.9", 4) == 0);
	CHECK("null is no number", !json_read_num(&d, json_read_get(&d, row, "read.q_us"), &v) &&
	    json_read_get(&d, row, "read.q_us") >= 0);
	CHECK("a path past a null: absent", json_read_get(&d, row, "read.q_us.p50") == -1);
	CHECK("an absent key: -1", json_read_get(&d, row, "write") == -1);
	row = d.n[row].next;
	CHECK("the second device: escapes inside a string kept whole",
	    json_read_eq(&d, json_read_get(&d, row, "name"), "\"a\\\"b\\\\\"") &&
	    json_read_num(&d, json_read_get(&d, row, "read.ios"), &v) && v == 0);
	CHECK("no third device", d.n[row].next == -1);
	CHECK("an empty array and object", d.n[json_read_get(&d, 0, "x")].child == -1 &&
	    d.n[json_read_get(&d, 0, "y")].type == JR_OBJ && d.n[json_read_get(&d, 0, "y")].child == -1);
	CHECK("true: a boolean", d.n[json_read_get(&d, 0, "t")].type == JR_BOOL);
	json_read_free(&d);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (test_parse(&d, bad[i]) != 0)
			nbad++;
		json_read_free(&d);
	}
	CHECK("10 malformed texts refused", nbad == sizeof bad / sizeof bad[0]);
	CHECK_EXIT();
}
