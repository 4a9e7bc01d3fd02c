/* fmt.c: the text of a measure the views write alike: the UI's header, -b's tables and the report. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "insight.h"

/* A host's name as text (a capture's, made safe), "-" for none (HOST_NONE). */
const char *
fmt_host(char *buf, size_t len, int host)
{
	const char	*name = host != HOST_NONE ? host_name(host) : NULL;

	if (name == NULL)
		snprintf(buf, len, "-");
	else
		name_text(buf, len, name, strlen(name));
	return (buf);
}

/*
 * A file's name in the views' tables: its path, in a run of several hosts
 * after its host's name and a ':' (as a device's, "node1:/data/x"), so that
 * the same path of two hosts reads as two files. Its length, as snprintf's.
 */
size_t
fmt_file_name(const struct proc_table *t, const struct file_entry *fe, char *buf, size_t len)
{
	const char	*host = fe->host != HOST_NONE ? host_name(fe->host) : NULL;
	int		 n = host != NULL ? snprintf(buf, len, "%s:", host) : 0;

	if (n < 0 || (size_t)n >= len)
		return ((size_t)(n < 0 ? 0 : n));
	return ((size_t)n + model_file_path(t, fe, buf + n, len - (size_t)n));
}

/* A figure width wide with prec decimals, or "-" when nothing is behind it (text tables). */
const char *
fmt_num(char *buf, size_t len, int width, int prec, int known, double v)
{
	if (known)
		snprintf(buf, len, "%*.*f", width, prec, v);
	else
		snprintf(buf, len, "%*s", width, "-");
	return (buf);
}

/*
 * What a cap cut, as one line of text ("" if nothing): requests of devices
 * past the device cap, named; processes and files evicted from full tables.
 * interval: the counts since the last report (-b's header), else since the
 * start (the UI). Its length.
 */
size_t
fmt_dropped(const struct blktop *b, int interval, char *buf, size_t size)
{
	const struct windows	*w = &b->win;
	struct proc_stats	 st;
	uint64_t		 reqs = interval ? w->dropped_interval : w->dropped;
	uint64_t		 np, nf;
	size_t			 n = 0;
	unsigned		 i;

#define DROPPED_ADD(...) do {							\
	if (n < size)								\
		n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);		\
} while (0)
	if (size > 0)
		buf[0] = '\0';
	if (w->dropped > 0) {
		DROPPED_ADD("dropped %llu requests of %u device%s past the cap of %u:",
		    (unsigned long long)reqs, w->ndrop, w->ndrop == 1 ? "" : "s",
		    w->max_devs);
		for (i = 0; i < w->ndrop && n < size; i++) {
			char	 name[DEVNAME_MAX], *p;

			/* name_text's, and a space as '?' too: the list is space-separated. */
			snprintf(name, sizeof name, "%s", device_text(w->drop[i].dev));
			for (p = name; *p != '\0'; p++)
				if (*p == ' ')
					*p = '?';
			DROPPED_ADD(" %s", name);
		}
		if (w->drop[WINDOWS_DROP_MAX].requests > 0)
			DROPPED_ADD(" and more");
	}
	if (b->procs != NULL) {
		proc_stats(b->procs, &st);
		np = interval ? st.procs_evicted_interval : st.procs_evicted;
		nf = interval ? st.files_evicted_interval : st.files_evicted;
		if (np > 0)
			DROPPED_ADD("%sevicted %llu processes (table of %u)", n ? "; " : "",
			    (unsigned long long)np, st.max_procs);
		if (nf > 0)
			DROPPED_ADD("%s%llu files (table of %u)", np > 0 ? ", " : n ? "; evicted " :
			    "evicted ", (unsigned long long)nf, st.max_files);
	}
#undef DROPPED_ADD
	return (n < size ? n : size > 0 ? size - 1 : 0);
}

/* A command name as printable text (comm is 16 bytes from the kernel): name_text's. */
void
fmt_comm(char *out, const char *comm)
{
	name_text(out, BLKTOP_COMM_LEN, comm, BLKTOP_COMM_LEN - 1);
}

/* A finding's subject as text: the device's name, the file's path, or the process's comm and "(pid)". */
void
fmt_insight_name(const struct proc_table *t, const struct insight *in, char *buf, size_t len)
{
	char comm[BLKTOP_COMM_LEN];

	if (in->dev != NULL) {
		snprintf(buf, len, "%s", device_text(in->dev->dev));
		return;
	}
	if (in->file != NULL) {
		/* A file's name is anyone's: no raw ESC, BEL or U+202E in -b, the UI or HTML. */
		fmt_file_name(t, in->file, buf, len);
		name_text(buf, len, buf, len);
		return;
	}
	fmt_comm(comm, in->proc->comm);
	snprintf(buf, len, "%s (%u)", comm, in->proc->id);
}
