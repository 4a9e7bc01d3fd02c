/* probe.c: what this kernel offers the programs: tracepoints by BTF or by tracefs, and tracefs itself. */

#include <sys/mount.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

/* Whether the kernel has a tracepoint, by its BTF typedef (tp_btf, raw_tp: needs no tracefs). */
int
probe_tp_btf(const struct btf *vmlinux, const char *tp)
{
	char	 name[128];

	snprintf(name, sizeof name, "btf_trace_%s", tp);
	return (btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0);
}

/* The directory holding the classic tracepoints, as libbpf 1.1 chooses it. */
const char *
probe_tracefs(void)
{
	if (access("/sys/kernel/debug/tracing", F_OK) == 0)
		return ("/sys/kernel/debug/tracing");
	return ("/sys/kernel/tracing");
}

/* Whether the classic tracepoint GROUP/NAME exists (and tracefs shows it). */
int
probe_tp_classic(const char *group, const char *name)
{
	char	 path[256];

	snprintf(path, sizeof path, "%s/events/%s/%s/id", probe_tracefs(), group, name);
	return (access(path, R_OK) == 0);
}

/*
 * Classic tracepoints are attached through tracefs: mount it if nobody has
 * (a fresh machine often has not). Failing that, the vfs probe picks a
 * variant that needs no tracefs.
 */
void
probe_mount_tracefs(int verbose)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0 &&
	    errno != EBUSY && verbose)
		log_warnx("cannot mount tracefs on /sys/kernel/tracing: %s", strerror(errno));
}
