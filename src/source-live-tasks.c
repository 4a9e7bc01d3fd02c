/* source-live-tasks.c: the processes running when blktop starts, read once from /proc, as the process tree's records. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"

/*
 * One /proc/PID/stat line into ev: "PID (COMM) S PPID ..." where COMM may
 * hold spaces and parentheses (the last ')' ends it), and field 22 is the
 * start time in clock ticks since boot. Returns 0, or -1 if malformed.
 */
int
live_tasks_parse(const char *line, struct ev_task *ev, uint64_t boot_to_mono, long hz)
{
	const char		*open, *close, *p;
	unsigned long long	 ppid = 0, start = 0, v;
	char			*end;
	size_t			 n;
	int			 field;

	if ((open = strchr(line, '(')) == NULL || (close = strrchr(line, ')')) == NULL ||
	    close < open || close[1] != ' ')
		return (-1);
	n = (size_t)(close - open - 1);
	if (n >= sizeof ev->comm)
		n = sizeof ev->comm - 1;
	memset(ev->comm, 0, sizeof ev->comm);
	memcpy(ev->comm, open + 1, n);
	/* Fields 3 on: the state, then numbers. */
	p = close + 2;
	if (*p == '\0' || p[1] != ' ')
		return (-1);
	p += 2;
	for (field = 4; field <= 22; field++) {
		if (*p == '-')
			p++;	/* tty_nr, tpgid, priority, nice may be negative */
		if (!isdigit((unsigned char)*p))
			return (-1);
		v = strtoull(p, &end, 10);
		if (field == 4)
			ppid = v;
		if (field == 22)
			start = v;
		p = end;
		if (field < 22 && *p++ != ' ')
			return (-1);
	}
	if (ppid > UINT32_MAX || hz <= 0)
		return (-1);
	ev->ppid = (uint32_t)ppid;
	start = start / (unsigned long long)hz * 1000000000ULL +
	    start % (unsigned long long)hz * (1000000000ULL / (unsigned long long)hz);
	ev->start = start > boot_to_mono ? start - boot_to_mono : 0;
	return (0);
}

/* CLOCK_BOOTTIME less CLOCK_MONOTONIC, ns: the time suspended (a /proc start time is on the first). */
static uint64_t
live_tasks_boot_to_mono(void)
{
	struct timespec	 bt, mt;
	int64_t		 d;

	if (clock_gettime(CLOCK_BOOTTIME, &bt) != 0 || clock_gettime(CLOCK_MONOTONIC, &mt) != 0)
		return (0);
	d = ((int64_t)bt.tv_sec - mt.tv_sec) * 1000000000LL + (bt.tv_nsec - mt.tv_nsec);
	return (d > 0 ? (uint64_t)d : 0);
}

/*
 * Every process in /proc as an EV_TASK record of kind TASK_FOUND, at ts,
 * into the stream: so that a capture carries the whole tree, not only the
 * processes born while it ran. Called once, after the fork and exec
 * programs are attached (a process born in between is seen by both: the
 * same facts twice). Returns the records streamed.
 */
unsigned
live_tasks_scan(struct blktop *b, uint64_t ts)
{
	DIR		*d;
	struct dirent	*de;
	struct ev_task	 ev;
	char		 path[64], line[1024];
	uint64_t	 b2m = live_tasks_boot_to_mono();
	long		 hz = sysconf(_SC_CLK_TCK);
	unsigned	 n = 0;
	ssize_t		 k;
	char		*end;
	unsigned long	 pid;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoul(de->d_name, &end, 10);
		if (*end != '\0' || pid == 0 || pid > UINT32_MAX)
			continue;
		snprintf(path, sizeof path, "/proc/%lu/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;	/* gone meanwhile */
		k = read(fd, line, sizeof line - 1);
		close(fd);
		if (k <= 0)
			continue;
		line[k] = '\0';
		memset(&ev, 0, sizeof ev);
		if (live_tasks_parse(line, &ev, b2m, hz) != 0)
			continue;
		ev.type = EV_TASK;
		ev.tgid = (uint32_t)pid;
		ev.ts = ts;
		ev.kind = TASK_FOUND;
		if (stream_event(b, &ev, sizeof ev) == 0)
			n++;
	}
	closedir(d);
	return (n);
}
