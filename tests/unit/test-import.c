/* test-import.c: source-import.c on bad logs: times near 2^64, lines with NULs or over the cap, garbage. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "check.h"

#define HDR	"TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n"
#define REST	" 1 python 0 kworker sdb 0 8 4096 50000"

static char	 path[] = "/tmp/test-import-XXXXXX";

/* Write len bytes of text as the log. */
static void
write_log(const char *text, size_t len)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL || fwrite(text, 1, len, f) != len ||
	    fclose(f) != 0) {
		printf("FAIL: write %s\n", path);
		exit(1);
	}
}

/*
 * Import the log: the records and ticks import_next gives, at most max
 * (the rest counted as overflow); -1 if import_open refused it (*errp).
 */
static int
import_all(unsigned *blocks, unsigned *ticks, uint64_t *last_tick, int *ordered,
    char **errp)
{
	struct import	*im;
	uint64_t	 buf[1024];
	struct ev_tick	*t = (struct ev_tick *)buf;
	size_t		 len;
	unsigned	 n = 0;

	*blocks = *ticks = 0;
	*last_tick = 0;
	*ordered = 1;
	if ((im = import_open(path, errp)) == NULL)
		return (-1);
	while (n++ < 1000 && import_next(im, buf, sizeof buf, &len) == 1) {
		if (t->type == EV_TICK) {
			if (*ticks > 0 && t->ts <= *last_tick)
				*ordered = 0;
			*last_tick = t->ts;
			(*ticks)++;
		} else
			(*blocks)++;
	}
	import_close(im);
	return (n > 1000 ? -2 : 0);
}

int
main(void)
{
	char		*err, *big;
	unsigned	 blocks, ticks;
	uint64_t	 last;
	int		 fd, ordered, r;
	size_t		 n;

	if ((fd = mkstemp(path)) == -1)
		return (1);
	close(fd);

	/* The tick after 2^64 - 1 s wrapped: import_next never ended. */
	big = HDR "18446744073709000000 2022-02-05T20:27:46.0" REST "\n"
	    "18446744073709500000 2022-02-05T20:27:46.5" REST "\n";
	write_log(big, strlen(big));
	err = NULL;
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("ts near 2^64: refused", r == -1);
	CHECK("ts near 2^64: the error names line 2 and why", err != NULL &&
	    strstr(err, "the first line 2, timestamp 18446744073709000000 past") != NULL);
	free(err);

	big = HDR "18446744072999000000" REST "\n18446744072999999999" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("last representable ts: ends", r == 0);
	CHECK("last representable ts: 2 requests, 1 tick at 18446744073 s",
	    blocks == 2 && ticks == 1 && last == 18446744073000000000ULL);

	/* Ticks across a long silence stay in order. */
	big = HDR "1000000000" REST "\n18446744072000000001" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("a silence of 584 years: ends, ticks in order",
	    r == 0 && blocks == 2 && ordered && last == 18446744073000000000ULL);

	/* A NUL mid-line: the line is malformed whether opening or reading. */
	big = HDR "1000000000" REST "\n2000000000" REST "\0junk\n3000000000" REST "\n";
	write_log(big, strlen(HDR) + 3 * (10 + strlen(REST) + 1) + 5);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("NUL mid-line: the other 2 requests", r == 0 && blocks == 2);

	/* A NUL on line 1: the whole file was refused as binary. */
	big = "x\0y\n" HDR "1000000000" REST "\n";
	write_log(big, 4 + strlen(HDR) + 10 + strlen(REST) + 1);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("NUL on line 1: imported", r == 0 && blocks == 1);
	if (r == -1)
		free(err);

	/* A line over 8 KB was cut: what it had past 8191 bytes was lost. */
	n = 20000;
	big = xmalloc(n + 256);
	snprintf(big, n + 256, HDR "1000000000" REST "\n2000000000" REST);
	memset(big + strlen(big), ' ', 9000);
	snprintf(big + strlen(HDR) + 2 * (10 + strlen(REST)) + 1 + 9000, 256,
	    " garbage\n3000000000" REST "\n");
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("9 KB line: parsed whole, malformed by its last field", r == 0 && blocks == 2);

	/* A line over the cap: skipped, the next imported, memory bounded. */
	memset(big, '7', n);
	memcpy(big + n, "\n1000000000" REST "\n", 12 + strlen(REST));
	write_log(big, n + 12 + strlen(REST));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("20 KB line: skipped, the next line imported", r == 0 && blocks == 1);
	if (r == -1)
		free(err);

	/* Over the cap before any valid line: the error names it. */
	memcpy(big + n, "\n", 2);
	write_log(big, n + 1);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("20 KB line alone: refused as line 1, too long", r == -1 && err != NULL &&
	    strstr(err, ":1: not a text log blktop can import: line longer than 16384 bytes (20000)") != NULL);
	if (r == -1)
		free(err);
	free(big);

	/* Year 0000: a signed overflow (UBSan) making the wall clock. */
	big = HDR "1000000000 0000-01-01T00:00:00.0" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("year 0000: refused, the date named", r == -1 && err != NULL &&
	    strstr(err, "TIME date not between 1970 and 2262") != NULL);
	if (r == -1)
		free(err);

	unlink(path);
	CHECK_EXIT();
}
