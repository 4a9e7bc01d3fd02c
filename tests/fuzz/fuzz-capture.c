/* fuzz-capture.c: fuzz the capture reader (libFuzzer or standalone). */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "blktop.h"
#include "fuzz.h"
#include "../common/capture-fixture.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Read every record of one input, checking what the reader promises. */
static void
fuzz_read(const uint8_t *data, size_t size)
{
	static unsigned char		 rec[CAPTURE_REC_MAX];
	struct capture_reader		*r;
	const struct capture_header	*hdr;
	const struct capture_stats	*st;
	size_t				 len, small;
	uint64_t			 n = 0;
	char				*err = NULL;
	int				 ret;

	if ((r = capture_open_mem(data, size, &err)) == NULL) {
		if (err == NULL || strchr(err, '\n') != NULL)
			abort();
		free(err);
		return;
	}
	hdr = capture_reader_header(r);
	if (strlen(hdr->version) > 4096 || strlen(hdr->host) > 4096)
		abort();
	if (hdr->nfilter > 4096 ||
	    (hdr->nfilter != 0) != (hdr->filter_devs != NULL))
		abort();
	/* Vary the buffer size a little so the too-small path runs too. */
	small = size % 64;
	for (;;) {
		ret = capture_next(r, rec, n % 7 == 3 ? small : sizeof rec,
		    &len);
		if (ret == 0)
			break;
		if (ret == -1) {
			if (len <= small || len > CAPTURE_REC_MAX)
				abort();
			/* The record may still turn out malformed: 0 is fine. */
			ret = capture_next(r, rec, sizeof rec, &len);
			if (ret == 0)
				break;
			if (ret != 1)
				abort();
		}
		if (len < 4 || len > CAPTURE_REC_MAX)
			abort();
		n++;
	}
	st = capture_reader_stats(r);
	if (st->records != n || st->skipped_bytes + st->tail_lost > size)
		abort();
	capture_reader_close(r);
}

/* Store a little-endian u32. */
static void
fuzz_put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * Wrap the input, as an inflated chunk payload, in a valid file: a header and
 * one chunk with good CRCs. Mutations then reach the record decoder instead
 * of stopping at the CRC check.
 */
static void
fuzz_wrap(const uint8_t *data, size_t size)
{
	static const unsigned char	 body[8] = { 1 };
	unsigned char			*buf, *h;
	uLongf				 comp;
	uint64_t			 n = 0;
	unsigned			 shift = 0;
	size_t				 i, hlen = 20 + sizeof body;

	if (size > 65536)
		return;
	/* The record count is the first varint, as the format requires. */
	for (i = 0; i < size && i < 9; i++) {
		n |= (uint64_t)(data[i] & 0x7f) << shift;
		shift += 7;
		if (!(data[i] & 0x80))
			break;
	}
	if (n == 0 || n > 65536)
		n = 1;
	comp = compressBound(size);
	buf = xmalloc(hlen + 40 + comp);
	memcpy(buf, "\x89" "BLKTOP\n", 8);
	buf[8] = 1;
	buf[9] = buf[10] = buf[11] = 0;
	fuzz_put32(buf + 12, sizeof body);
	fuzz_put32(buf + 16, crc32(0, body, sizeof body));
	memcpy(buf + 20, body, sizeof body);
	h = buf + hlen;
	if (compress2(h + 40, &comp, data, size, 1) != Z_OK)
		abort();
	memcpy(h, "\xb1kCH", 4);
	fuzz_put32(h + 4, comp);
	fuzz_put32(h + 8, size);
	fuzz_put32(h + 12, n);
	memset(h + 16, 0, 16);
	fuzz_put32(h + 32, crc32(0, h + 40, comp));
	fuzz_put32(h + 36, crc32(0, h, 36));
	fuzz_read(buf, hlen + 40 + comp);
	free(buf);
}

/* One run: the input as a file, and as a chunk payload. */
static void
fuzz_one(const uint8_t *data, size_t size)
{
	fuzz_read(data, size);
	fuzz_wrap(data, size);
}

/* The fuzz target, for libFuzzer. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_one(data, size);
	return (0);
}

#ifndef FUZZ_LIBFUZZER

/* Mutate a copy of a corpus input the way a simple fuzzer would. */
static size_t
fuzz_mutate(const struct fuzz_input *in, unsigned char *out, size_t max)
{
	const struct fuzz_input	*other;
	size_t			 len, i, n, at, k;

	len = in->len < max ? in->len : max;
	memcpy(out, in->data, len);
	n = 1 + fuzz_rand() % 8;
	for (i = 0; i < n && len > 0; i++) {
		at = fuzz_rand() % len;
		switch (fuzz_rand() % 7) {
		case 0:		/* flip a bit */
			out[at] ^= 1 << (fuzz_rand() % 8);
			break;
		case 1:		/* random byte */
			out[at] = fuzz_rand();
			break;
		case 2:		/* truncate */
			len = at;
			break;
		case 3:		/* delete a run */
			k = fuzz_rand() % (len - at + 1);
			memmove(out + at, out + at + k, len - at - k);
			len -= k;
			break;
		case 4:		/* duplicate a run */
			k = fuzz_rand() % 64;
			if (k > len - at)
				k = len - at;
			if (len + k <= max) {
				memmove(out + at + k, out + at, len - at);
				len += k;
			}
			break;
		case 5:		/* interesting values */
			out[at] = (unsigned char[]){ 0, 0x7f, 0x80, 0xff,
			    1 }[fuzz_rand() % 5];
			break;
		case 6:		/* splice the tail of another input */
			other = &fuzz_inputs[fuzz_rand() % fuzz_ninputs];
			k = other->len > 0 ? fuzz_rand() % other->len : 0;
			if (at + other->len - k <= max) {
				memcpy(out + at, other->data + k,
				    other->len - k);
				len = at + other->len - k;
			}
			break;
		}
	}
	return (len);
}

/* Write one seed capture of n mixed records, flushing every "every". */
static void
fuzz_seed_file(const char *dir, const char *name, size_t n, size_t every,
    unsigned ndevs, unsigned ntasks)
{
	struct capture_header	 hdr;
	struct capture_dev	 devs[1] = { { DEV_MKDEV(8, 0), "sda" } };
	uint32_t		 filter[1] = { DEV_MKDEV(8, 0) };
	struct capture		*w;
	struct ev_block		 b;
	struct ev_tick		 t;
	struct ev_lost		 l;
	unsigned char		 raw[64];
	uint64_t		 ts = 1000000000;
	size_t			 i;
	char			*path, *err;

	fixture_capture_header(&hdr, "block=tp", devs, 1, 1000000000, 0, 0);
	hdr.nfilter = 1;
	hdr.filter_devs = filter;
	xasprintf(&path, "%s/%s", dir, name);
	unlink(path);
	if ((w = capture_create(path, &hdr, &err)) == NULL)
		fatalx("%s", err);
	for (i = 0; i < n; i++) {
		ts += 10000 + fuzz_rand() % 5000;
		switch (i % 16) {
		case 7:
			memset(&t, 0, sizeof t);
			t.type = EV_TICK;
			t.ts = ts;
			capture_add(w, &t, sizeof t);
			break;
		case 11:
			memset(&l, 0, sizeof l);
			l.type = EV_LOST;
			l.ts = ts;
			l.count = i;
			capture_add(w, &l, sizeof l);
			break;
		case 13:
			memset(raw, 'p', sizeof raw);
			raw[0] = EV_OPEN;
			raw[1] = raw[2] = raw[3] = 0;
			capture_add(w, raw, 8 + i % 56);
			break;
		default:
			memset(&b, 0, sizeof b);
			b.type = EV_BLOCK;
			b.dev = DEV_MKDEV(8, 16 * (i % ndevs));
			b.ts_done = ts;
			b.ts_issue = ts - 50000 - fuzz_rand() % 1000;
			b.ts_start = b.ts_issue - fuzz_rand() % 2000;
			b.sector = (i % 5 == 0) ? fuzz_rand() % 2097152 : i * 8;
			b.bytes = (i % 9 == 0) ? 1000 : 4096;
			b.pid = 100 + i % ntasks;
			b.tgid = 100;
			snprintf(b.comm, sizeof b.comm, "task%zu", i % ntasks);
			b.op = (i % 17 == 0) ? 9 : i % 2;
			b.flags = i % 3;
			b.error = (i % 23 == 0) ? -5 : 0;
			b.inflight = 1 + i % 4;
			b.busy_ns = ts / 2;
			b.cgroup = 1 + i % 2;
			capture_add(w, &b, sizeof b);
			break;
		}
		if (every != 0 && i % every == every - 1)
			capture_flush(w);
	}
	if (capture_close(w) != 0)
		fatalx("%s: write failed", path);
	free(path);
}

/* Write the inflated payload of a seed's first chunk, a seed for fuzz_wrap. */
static void
fuzz_seed_payload(const char *dir, const char *from, const char *name)
{
	unsigned char	*file, *raw, *h;
	uLongf		 rawlen;
	size_t		 len;
	char		*path;
	FILE		*f;

	xasprintf(&path, "%s/%s", dir, from);
	if ((f = fopen(path, "rb")) == NULL)
		fatal("%s", path);
	file = xmalloc(1 << 20);
	len = fread(file, 1, 1 << 20, f);
	fclose(f);
	free(path);
	h = file + 20 + (file[12] | file[13] << 8 | file[14] << 16);
	rawlen = h[8] | h[9] << 8 | h[10] << 16;
	raw = xmalloc(rawlen);
	if (h + 40 > file + len || uncompress(raw, &rawlen, h + 40,
	    h[4] | h[5] << 8 | h[6] << 16) != Z_OK)
		fatalx("%s: cannot inflate its first chunk", from);
	xasprintf(&path, "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(raw, 1, rawlen, f) != rawlen || fclose(f) != 0)
		fatal("%s", path);
	free(path);
	free(raw);
	free(file);
}

/* Write the seed corpus with the capture writer. */
static void
fuzz_make_corpus(const char *dir)
{
	fuzz_seed = 42;
	fuzz_seed_file(dir, "empty-capture", 0, 0, 1, 1);
	fuzz_seed_file(dir, "one-chunk", 30, 0, 1, 2);
	fuzz_seed_file(dir, "chunks", 200, 50, 2, 3);
	fuzz_seed_file(dir, "tables", 300, 0, 70, 40);
	fuzz_seed_payload(dir, "one-chunk", "payload-one-chunk");
	fuzz_seed_payload(dir, "tables", "payload-tables");
}

/* -g DIR: write the seed corpus to DIR instead of fuzzing. */
static int
fuzz_capture_option(int ch, const char *arg)
{
	if (ch != 'g')
		return (0);
	fuzz_make_corpus(arg);
	return (1);
}

/* Without a corpus, one empty input. */
static void
fuzz_capture_start(void)
{
	if (fuzz_ninputs != 0)
		return;
	fuzz_inputs = xcalloc(1, sizeof *fuzz_inputs);
	fuzz_inputs[0].data = xcalloc(1, 1);
	fuzz_ninputs = 1;
}

static const struct fuzz_target fuzz_capture_target = {
	.name = "fuzz-capture",
	.usage = "[-g dir] [-s seed] [-t seconds] corpus...",
	.optstring = "g:",
	.option = fuzz_capture_option,
	.start = fuzz_capture_start,
	.one = fuzz_one,
	.mutate = fuzz_mutate,
	.batch = 1000,
};

int
main(int argc, char **argv)
{
	return (fuzz_main(argc, argv, &fuzz_capture_target));
}

#endif
