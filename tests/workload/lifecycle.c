/*
 * lifecycle.c: a workload with known lifecycle counts, for tests/integration/lifecycle.sh.
 *
 * usage: lifecycle DIR K
 *
 * Forks; the child prints its pid, then, in DIR (paths relative to it, so
 * the tracer must join them to the cwd), makes a directory tree, creates,
 * renames, maps, fsyncs, closes and unlinks K files, and touches an eventfd, a
 * memfd, a pipe and a file written after its unlink. The child was never
 * exec'd, so it makes no other system call the counts would see (the
 * loader's opens and mmaps happened in the parent). Expected counts: see
 * lifecycle.sh.
 */
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];

static void
xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(10);
}

static void
child(int k)
{
	char		 a[64], b[64], c[128];
	uint64_t	 one = 1;
	char		*p;
	int		 fd, i, pfd[2];

	if (mkdir("t", 0755) != 0 || mkdir("t/a", 0755) != 0 ||
	    mkdirat(AT_FDCWD, "t/a/b", 0755) != 0)
		_exit(2);
	for (i = 0; i < k; i++) {
		snprintf(a, sizeof a, "t/a/b/f%03d", i);
		snprintf(b, sizeof b, "t/a/b/g%03d", i);
		if ((fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644)) < 0)
			_exit(3);
		xwrite(fd, buf, sizeof buf);
		close(fd);
		if (rename(a, b) != 0 || (fd = open(b, O_RDWR)) < 0)
			_exit(4);
		p = mmap(NULL, sizeof buf, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			_exit(5);
		p[0] = 1;
		munmap(p, sizeof buf);
		if (fsync(fd) != 0)
			_exit(16);
		close(fd);
		if (unlink(b) != 0)
			_exit(6);
	}
	/* O_CREAT on a file that exists is an open, not a create. */
	close(open("t/x", O_CREAT | O_WRONLY, 0644));
	close(open("t/x", O_CREAT | O_WRONLY, 0644));
	unlink("t/x");
	if (open("t/missing", O_RDONLY) >= 0 || unlink("t/missing") == 0)
		_exit(7);
	if (mknod("t/fifo", S_IFIFO | 0600, 0) != 0 || unlink("t/fifo") != 0)
		_exit(8);
	/* Pseudo files, each named for what it is. */
	if ((fd = eventfd(0, 0)) < 0)
		_exit(9);
	xwrite(fd, &one, sizeof one);
	close(fd);
	if ((fd = memfd_create("blkmemfd", 0)) < 0)
		_exit(11);
	xwrite(fd, buf, sizeof buf);
	close(fd);
	if (pipe(pfd) != 0)
		_exit(12);
	xwrite(pfd[1], buf, 100);
	if (read(pfd[0], c, 100) != 100)
		_exit(13);
	close(pfd[0]);
	close(pfd[1]);
	/* Written after its unlink: the "(deleted)" row. */
	if ((fd = open("t/d", O_CREAT | O_RDWR, 0644)) < 0 || unlink("t/d") != 0)
		_exit(14);
	xwrite(fd, buf, sizeof buf);
	if (fdatasync(fd) != 0)
		_exit(17);
	close(fd);
	if (rmdir("t/a/b") != 0 || rmdir("t/a") != 0 || rmdir("t") != 0)
		_exit(15);
	_exit(0);
}

int
main(int argc, char **argv)
{
	pid_t	 pid;
	int	 st;

	if (argc != 3)
		errx(2, "usage: lifecycle DIR K");
	if (chdir(argv[1]) != 0)
		err(2, "%s", argv[1]);
	memset(buf, 'z', sizeof buf);
	fflush(stdout);
	if ((pid = fork()) < 0)
		err(1, "fork");
	if (pid == 0)
		child(atoi(argv[2]));
	printf("%d\n", (int)pid);
	fflush(stdout);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		errx(1, "child failed: status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
