/* report-hosts.c: --report of a run of several hosts: each host's device totals and all hosts'. */

#include <inttypes.h>
#include <stdio.h>

#include "blktop.h"
#include "host.h"
#include "report.h"

/* One host's totals (host HOST_NONE with all: every device's). */
static void
report_hosts_one(FILE *f, const struct report *r, int host, int all)
{
	static const char	*ops[OPC_MAX] = { "read", "write", "other" };
	const struct host_label	*labels;
	uint64_t		 ios[OPC_MAX] = { 0 }, bytes[OPC_MAX] = { 0 };
	uint64_t		 errors[OPC_MAX] = { 0 };
	unsigned		 i, o, ndevs = 0, nlabels;

	for (i = 0; i < r->ndevs; i++) {
		if (!all && host_of_dev(r->devs[i]->dev) != host)
			continue;
		ndevs++;
		for (o = 0; o < OPC_MAX; o++) {
			ios[o] += r->devs[i]->tot.op[o].ios;
			bytes[o] += r->devs[i]->tot.op[o].bytes;
			errors[o] += r->devs[i]->tot.op[o].errors;
		}
	}
	fputs("{\"host\":", f);
	if (host_name(host) != NULL)
		json_string(f, host_name(host));
	else
		fputs("null", f);
	fputs(",\"labels\":{", f);
	labels = host_labels(host, &nlabels);
	for (i = 0; i < nlabels; i++) {
		if (i > 0)
			fputc(',', f);
		json_string(f, labels[i].key);
		fputc(':', f);
		json_string(f, labels[i].value);
	}
	fprintf(f, "},\"devices\":%u", ndevs);
	for (o = 0; o < OPC_MAX; o++)
		fprintf(f, ",\"%s\":{\"ios\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"errors\":%"
		    PRIu64 "}", ops[o], ios[o], bytes[o], errors[o]);
	fputc('}', f);
}

/*
 * "hosts" and "all_hosts" of a report of several hosts: the devices' totals
 * per host (a log's devices, of no host, under a host null) and of them all.
 */
void
report_hosts_json(FILE *f, const struct report *r)
{
	unsigned	 h, i;
	int		 none = 0;

	if (host_count() < 2)
		return;
	fputs(",\"hosts\":[", f);
	for (h = 0; h < host_count(); h++) {
		if (h > 0)
			fputc(',', f);
		report_hosts_one(f, r, (int)h, 0);
	}
	for (i = 0; i < r->ndevs; i++)
		none |= host_of_dev(r->devs[i]->dev) == HOST_NONE;
	if (none) {
		fputc(',', f);
		report_hosts_one(f, r, HOST_NONE, 0);
	}
	fputs("],\"all_hosts\":", f);
	report_hosts_one(f, r, HOST_NONE, 1);
}
