/* kwork.c: the disk-bytes workload of the kernel matrix (tests/kernels/guest.sh),
 * the phases of tests/integration/diskbytes.sh without python3 in the guest.
 *
 * usage: kwork write FILE   64 write()s of 4096 bytes to a new FILE, fsync, close
 *        kwork read FILE    read FILE to its end in 65536-byte read()s
 *        kwork mmap FILE    map FILE shared, read one byte of every page, unmap
 * Prints its pid on the first line, then what it did as "phase bytes". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void
die(const char *what, const char *file)
{
	perror(file);
	fprintf(stderr, "kwork: %s failed\n", what);
	exit(1);
}

int
main(int argc, char **argv)
{
	static char	 buf[65536];
	unsigned long long total = 0;
	const char	*phase, *file;
	struct stat	 st;
	ssize_t		 n;
	int		 fd, i;

	if (argc != 3) {
		fputs("usage: kwork write|read|mmap FILE\n", stderr);
		return 2;
	}
	phase = argv[1];
	file = argv[2];
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(phase, "write") == 0) {
		memset(buf, 'x', sizeof(buf));
		if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
			die("open", file);
		for (i = 0; i < 64; i++) {
			if (write(fd, buf, 4096) != 4096)
				die("write", file);
			total += 4096;
		}
		if (fsync(fd) != 0)
			die("fsync", file);
		close(fd);
	} else if (strcmp(phase, "read") == 0) {
		if ((fd = open(file, O_RDONLY)) < 0)
			die("open", file);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += (unsigned long long)n;
		if (n < 0)
			die("read", file);
		close(fd);
	} else if (strcmp(phase, "mmap") == 0) {
		volatile unsigned char	*m;
		unsigned long		 s = 0;
		off_t			 off;

		if ((fd = open(file, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
			die("open", file);
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("mmap", file);
		for (off = 0; off < st.st_size; off += 4096)
			s += m[off];
		munmap((void *)m, (size_t)st.st_size);
		close(fd);
		total = (unsigned long long)st.st_size;
		if (s == 1)	/* keep the loads */
			putchar(' ');
	} else {
		fputs("usage: kwork write|read|mmap FILE\n", stderr);
		return 2;
	}
	printf("%s %llu\n", phase, total);
	return 0;
}
