/* report-hosts.c: --report of a run of several hosts: each host's device totals and all hosts'. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "host.h"
#include "report.h"
#include "field-dev.h"
#include "json-key.h"

/* One host's device totals (all: every device's, whatever its host). */
void
report_hosts_sum(const struct report *r, int host, int all, struct report_host_sum *t)
{
	unsigned	 i, o;

	memset(t, 0, sizeof *t);
	for (i = 0; i < r->ndevs; i++) {
		if (!all && host_of_dev(r->devs[i]->dev) != host)
			continue;
		t->ndevs++;
		for (o = 0; o < OPC_MAX; o++) {
			t->ios[o] += r->devs[i]->tot.op[o].ios;
			t->bytes[o] += r->devs[i]->tot.op[o].bytes;
			t->errors[o] += r->devs[i]->tot.op[o].errors;
		}
	}
}

/* Whether a report of several hosts has a device of no host (a log's). */
int
report_hosts_none(const struct report *r)
{
	unsigned	 i;

	for (i = 0; i < r->ndevs; i++) {
		if (host_of_dev(r->devs[i]->dev) == HOST_NONE)
			return (1);
	}
	return (0);
}

/* A device's name in a report: host:name in a run of several hosts. */
const char *
report_dev_name(uint32_t dev, char *buf, size_t len)
{
	const char	*h = host_count() > 1 ? host_name(host_of_dev(dev)) : NULL;

	if (h == NULL)
		return (device_name(dev));
	snprintf(buf, len, "%s:%s", h, device_name(dev));
	return (buf);
}

/* One host's totals as JSON (host HOST_NONE with all: every device's). */
static void
report_hosts_one(FILE *f, const struct report *r, int host, int all)
{
	const struct host_label	*labels;
	struct report_host_sum	 t;
	unsigned		 i, o, nlabels;

	report_hosts_sum(r, host, all, &t);
	fprintf(f, "{\"%s\":", dev_fields[DEVF_HOST].key);
	if (host_name(host) != NULL)
		json_string(f, host_name(host));
	else
		fputs("null", f);
	fputs("," JK(JK_LABELS) "{", f);
	labels = host_labels(host, &nlabels);
	for (i = 0; i < nlabels; i++) {
		if (i > 0)
			fputc(',', f);
		json_string(f, labels[i].key);
		fputc(':', f);
		json_string(f, labels[i].value);
	}
	fprintf(f, "}," JK(JK_DEVICES) "%u", t.ndevs);
	/* Each operation class's object, its members as a device's (field-dev.c's rows). */
	for (o = 0; o < OPC_MAX; o++)
		fprintf(f, ",\"%s\":{\"%s\":%" PRIu64 ",\"%s\":%" PRIu64 ",\"%s\":%" PRIu64 "}",
		    dev_op_keys[o], dev_fields[DEVF_IOS].key, t.ios[o], dev_fields[DEVF_BYTES].key,
		    t.bytes[o], dev_fields[DEVF_ERRORS].key, t.errors[o]);
	fputc('}', f);
}

/*
 * "hosts" and "all_hosts" of a report of several hosts: the devices' totals
 * per host (a log's devices, of no host, under a host null) and of them all.
 */
void
report_hosts_json(FILE *f, const struct report *r)
{
	unsigned	 h;

	if (host_count() < 2)
		return;
	fputs(",\"hosts\":[", f);
	for (h = 0; h < host_count(); h++) {
		if (h > 0)
			fputc(',', f);
		report_hosts_one(f, r, (int)h, 0);
	}
	if (report_hosts_none(r)) {
		fputc(',', f);
		report_hosts_one(f, r, HOST_NONE, 0);
	}
	fputs("],\"all_hosts\":", f);
	report_hosts_one(f, r, HOST_NONE, 1);
}
