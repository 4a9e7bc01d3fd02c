/*
 * bench-readloop.c: 4 KiB read() calls per second from a cached file, for the
 * vfs overhead benchmark; with a third argument "pread", pread() calls walking
 * the file (issue 28's cached pread loop).
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds on the monotonic clock. */
static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

int
main(int argc, char **argv)
{
	char		 buf[4096];
	double		 secs, t0, t;
	unsigned long	 calls = 0;
	off_t		 pos = 0;
	int		 fd, use_pread;

	if (argc < 3 || argc > 4 || (secs = atof(argv[2])) <= 0 ||
	    (argc == 4 && strcmp(argv[3], "pread") != 0)) {
		fprintf(stderr, "usage: bench-readloop FILE SECONDS [pread]\n");
		return (2);
	}
	use_pread = argc == 4;
	if ((fd = open(argv[1], O_RDONLY)) == -1) {
		perror(argv[1]);
		return (1);
	}
	t0 = now();
	do {
		for (int i = 0; i < 4096; i++) {
			if (use_pread) {
				if (pread(fd, buf, sizeof buf, pos) <= 0)
					pos = 0;
				else
					pos += sizeof buf;
			} else if (read(fd, buf, sizeof buf) <= 0)
				lseek(fd, 0, SEEK_SET);
			calls++;
		}
		t = now();
	} while (t - t0 < secs);
	printf("%.0f\n", (double)calls / (t - t0));
	return (0);
}
