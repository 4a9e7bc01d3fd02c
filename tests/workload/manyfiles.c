/*
 * manyfiles.c: touch N distinct files for the bounded-memory test: create
 * DIR/fNNNNNNN, write one byte, close, unlink (so tmpfs stays small).
 * Prints {"files":N} when done.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	char		 path[4096];
	unsigned long	 n, i;
	char		*end;
	int		 fd;

	if (argc != 3 || (n = strtoul(argv[2], &end, 10)) == 0 || *end != '\0') {
		fprintf(stderr, "usage: manyfiles DIR N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/f%07lu", argv[1], i);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0 ||
		    write(fd, "x", 1) != 1) {
			fprintf(stderr, "manyfiles: %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
		unlink(path);
	}
	printf("{\"files\":%lu}\n", n);
	return 0;
}
