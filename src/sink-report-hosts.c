/* sink-report-hosts.c: the HTML report of several hosts: a row per host and one of all hosts. */

#include <stdio.h>

#include "blktop.h"
#include "draw.h"
#include "host.h"
#include "report.h"

/* One row: a host (its labels under its name), or every device's. */
static void
html_hosts_row(FILE *f, const struct report *r, int host, int all)
{
	const struct host_label	*labels;
	struct report_host_sum	 t;
	char			 a[16], c[16];
	unsigned		 i, nlabels;

	report_hosts_sum(r, host, all, &t);
	fputs("<tr><td class=\"l\">", f);
	html_text(f, all ? "all hosts" : host_name(host) != NULL ? host_name(host) : "(no host)");
	fputs("</td><td class=\"l\">", f);
	labels = host_labels(host, &nlabels);
	for (i = 0; i < nlabels; i++) {
		fputs(i > 0 ? " " : "", f);
		html_text(f, labels[i].key);
		fputc('=', f);
		html_text(f, labels[i].value);
	}
	fprintf(f, "</td><td>%u</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%sB</td>"
	    "<td>%sB</td><td>%llu</td></tr>\n", t.ndevs, (unsigned long long)t.ios[OPC_READ],
	    (unsigned long long)t.ios[OPC_WRITE], (unsigned long long)t.ios[OPC_OTHER],
	    html_trim(draw_fmt_bytes(a, sizeof a, t.bytes[OPC_READ])),
	    html_trim(draw_fmt_bytes(c, sizeof c, t.bytes[OPC_WRITE])),
	    (unsigned long long)(t.errors[OPC_READ] + t.errors[OPC_WRITE] + t.errors[OPC_OTHER]));
}

/* The hosts' table, in a report of several hosts only. */
void
report_hosts_html(struct html *h)
{
	unsigned	 i;

	if (host_count() < 2)
		return;
	fprintf(h->f, "<h2>Hosts</h2>\n<table><tr><th class=\"l\">host</th><th class=\"l\">"
	    "labels</th><th>devices</th><th>reads</th><th>writes</th><th>other</th>"
	    "<th>read</th><th>written</th><th>errors</th></tr>\n");
	for (i = 0; i < host_count(); i++)
		html_hosts_row(h->f, h->r, (int)i, 0);
	if (report_hosts_none(h->r))
		html_hosts_row(h->f, h->r, HOST_NONE, 0);
	html_hosts_row(h->f, h->r, HOST_NONE, 1);
	fprintf(h->f, "</table>\n<p class=\"dim\">Each host's devices summed: the hosts' "
	    "captures keep their devices apart (a device name is host:name).</p>\n");
}
