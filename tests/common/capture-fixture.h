/* capture-fixture.h: the header of a capture the tests and benchmarks write themselves. */

#ifndef TESTS_COMMON_CAPTURE_FIXTURE_H
#define TESTS_COMMON_CAPTURE_FIXTURE_H

#include <string.h>

#include "blktop.h"

/*
 * A made-up build, host and kernel, the plan, devices, interval and clock
 * given (created: the capture's start in the stream's clock, plus the
 * offset), no filters.
 */
static inline void
fixture_capture_header(struct capture_header *hdr, const char *plan,
    const struct capture_dev *devs, unsigned ndevs, uint64_t interval_ns,
    uint64_t start, int64_t clock_offset)
{
	memset(hdr, 0, sizeof *hdr);
	hdr->version = (char *)"test";
	hdr->host = (char *)"host";
	hdr->kernel = (char *)"6.1.0";
	hdr->plan = (char *)plan;
	hdr->devs = (struct capture_dev *)devs;
	hdr->ndevs = ndevs;
	hdr->interval_ns = interval_ns;
	hdr->clock_offset = clock_offset;
	hdr->created = (uint64_t)((int64_t)start + clock_offset);
}

#endif
