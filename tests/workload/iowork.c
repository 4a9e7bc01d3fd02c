/* iowork.c: a known file workload for the VFS tests; prints what it did as JSON. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIRECT_BYTES	4096
#define MISSING		"iowork-missing/none"

static const char *usage =
    "usage: iowork [-w] dir file read_bytes read_calls write_bytes write_calls\n"
    "  chdir(dir); open(file) by that relative path; write write_bytes in write_calls\n"
    "  write()s; read read_bytes (<= write_bytes) back in read_calls read()s; reopen\n"
    "  with O_DIRECT and pread 4096 bytes; try to open " MISSING " (ENOENT).\n"
    "  -w: print {\"pid\":N} and wait for a line on stdin before starting.\n";

/* Parse a non-negative number or exit. */
static unsigned long long
number(const char *s)
{
	char			*end;
	unsigned long long	 v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *s == '\0' || *end != '\0') {
		fputs(usage, stderr);
		exit(2);
	}
	return v;
}

/* Transfer total bytes in calls calls of near-equal size; exit on a short transfer. */
static void
transfer(int fd, char *buf, unsigned long long total, unsigned long long calls, int wr)
{
	unsigned long long	i, done = 0;

	for (i = 0; i < calls; i++) {
		size_t	 n = (total - done) / (calls - i);
		ssize_t	 r;

		r = wr ? write(fd, buf, n) : read(fd, buf, n);
		if (r < 0 || (size_t)r != n) {
			fprintf(stderr, "iowork: %s: %s\n", wr ? "write" : "read",
			    r < 0 ? strerror(errno) : "short transfer");
			exit(1);
		}
		done += n;
	}
}

int
main(int argc, char **argv)
{
	unsigned long long	 rbytes, rcalls, wbytes, wcalls;
	char			*buf, cwd[PATH_MAX], line[64];
	void			*dbuf;
	int			 fd, wait = 0, missing_errno = 0;
	ssize_t			 direct;

	if (argc > 1 && strcmp(argv[1], "-w") == 0) {
		wait = 1;
		argc--;
		argv++;
	}
	if (argc != 7) {
		fputs(usage, stderr);
		return 2;
	}
	rbytes = number(argv[3]);
	rcalls = number(argv[4]);
	wbytes = number(argv[5]);
	wcalls = number(argv[6]);
	if (rbytes > wbytes || (rbytes && !rcalls) || (wbytes && !wcalls) ||
	    wbytes < DIRECT_BYTES || strchr(argv[2], '/') != NULL) {
		fputs(usage, stderr);
		return 2;
	}
	if ((buf = calloc(1, wbytes + 1)) == NULL ||
	    posix_memalign(&dbuf, 4096, DIRECT_BYTES) != 0)
		return 1;
	memset(buf, 'x', wbytes);

	if (chdir(argv[1]) != 0 || getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "iowork: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (wait) {
		printf("{\"pid\":%d}\n", (int)getpid());
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			return 1;
	}

	if ((fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0) {
		fprintf(stderr, "iowork: open %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	transfer(fd, buf, wbytes, wcalls, 1);
	if (lseek(fd, 0, SEEK_SET) != 0)
		return 1;
	transfer(fd, buf, rbytes, rcalls, 0);
	close(fd);

	if ((fd = open(argv[2], O_RDONLY | O_DIRECT)) < 0) {
		fprintf(stderr, "iowork: open O_DIRECT %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	direct = pread(fd, dbuf, DIRECT_BYTES, 0);
	close(fd);
	if (direct != DIRECT_BYTES) {
		fprintf(stderr, "iowork: O_DIRECT pread: %s\n", direct < 0 ? strerror(errno) : "short");
		return 1;
	}

	if ((fd = open(MISSING, O_RDONLY)) >= 0)
		close(fd);
	else
		missing_errno = errno;

	printf("{\"pid\":%d,\"path\":\"%s/%s\",\"opens\":2,"
	    "\"writes\":%llu,\"write_bytes\":%llu,\"reads\":%llu,\"read_bytes\":%llu,"
	    "\"direct_preads\":1,\"direct_bytes\":%d,"
	    "\"failed_open\":\"%s/%s\",\"failed_errno\":%d}\n",
	    (int)getpid(), cwd, argv[2], wcalls, wbytes, rcalls, rbytes, DIRECT_BYTES,
	    cwd, MISSING, missing_errno);
	free(buf);
	free(dbuf);
	return 0;
}
