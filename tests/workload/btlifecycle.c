/*
 * btlifecycle.c: a file lifecycle with known syscall counts, for the bpftrace
 * logs of tests/workload/lifecycle-logs.sh. In DIR it says "ready" and waits
 * for SIGUSR1 (so its loader's opens and maps happen before tracing starts),
 * then makes lc/a/b, creates, writes, syncs, maps, reads, closes and unlinks
 * five files, fails one open and removes the tree. Each call is the raw
 * syscall the logs name (mkdir and mkdirat, unlink and unlinkat, ...), and
 * nothing else reads or writes after the signal. Exits 0 silently on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NFILES		5
#define FILE_SIZE	4096
#define READ_SIZE	8192
#define ANON_SIZE	8192

static char	 buf[READ_SIZE];

/* Say what failed on stderr and exit 1. */
static void
die(const char *what, const char *path)
{
	fprintf(stderr, "btlifecycle: %s %s: %s\n", what, path, strerror(errno));
	_exit(1);
}

int
main(int argc, char **argv)
{
	static const char	*dirs[] = { "lc", "lc/a", "lc/a/b" };
	char			 path[NFILES][64];
	unsigned char		*map[NFILES], *anon;
	volatile unsigned	 sum = 0;
	sigset_t		 set;
	int			 fd[NFILES], i, sig;

	if (argc != 2) {
		fprintf(stderr, "usage: btlifecycle DIR\n");
		return 2;
	}
	if (chdir(argv[1]) != 0)
		die("chdir", argv[1]);
	for (i = 0; i < NFILES; i++)
		snprintf(path[i], sizeof path[i], "lc/a/b/file%d.dat", i);
	memset(buf, 'x', FILE_SIZE);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		die("sigprocmask", "");
	printf("ready\n");
	fflush(stdout);
	if (sigwait(&set, &sig) != 0)
		die("sigwait", "");

	/* 3 directories: mkdir, mkdirat, mkdir. */
	if (syscall(SYS_mkdir, dirs[0], 0755) != 0)
		die("mkdir", dirs[0]);
	if (syscall(SYS_mkdirat, AT_FDCWD, dirs[1], 0755) != 0)
		die("mkdirat", dirs[1]);
	if (syscall(SYS_mkdir, dirs[2], 0700) != 0)
		die("mkdir", dirs[2]);

	/* 5 files open at once (fds in a row), 4 KiB each, synced to the disk. */
	for (i = 0; i < NFILES; i++) {
		if ((fd[i] = openat(AT_FDCWD, path[i], O_RDWR | O_CREAT | O_TRUNC,
		    0644)) < 0)
			die("openat", path[i]);
	}
	for (i = 0; i < NFILES; i++) {
		if (write(fd[i], buf, FILE_SIZE) != FILE_SIZE)
			die("write", path[i]);
	}
	/* Synced and dropped, so each map's first touch reads the disk. */
	for (i = 0; i < NFILES; i++) {
		if (fsync(fd[i]) != 0)
			die("fsync", path[i]);
		errno = posix_fadvise(fd[i], 0, 0, POSIX_FADV_DONTNEED);
		if (errno != 0)
			die("posix_fadvise", path[i]);
	}

	/* 1 anonymous map and 5 file maps, each touched, then all unmapped. */
	anon = mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		die("mmap", "anonymous");
	anon[0] = 1;
	for (i = 0; i < NFILES; i++) {
		map[i] = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd[i], 0);
		if (map[i] == MAP_FAILED)
			die("mmap", path[i]);
		sum += map[i][0];
	}
	for (i = 0; i < NFILES; i++) {
		if (munmap(map[i], FILE_SIZE) != 0)
			die("munmap", path[i]);
	}
	if (munmap(anon, ANON_SIZE) != 0)
		die("munmap", "anonymous");

	/* 2 reads each: the whole file, then end of file. */
	for (i = 0; i < NFILES; i++) {
		if (lseek(fd[i], 0, SEEK_SET) != 0)
			die("lseek", path[i]);
		if (read(fd[i], buf, READ_SIZE) != FILE_SIZE)
			die("read", path[i]);
		if (read(fd[i], buf, READ_SIZE) != 0)
			die("read at end of", path[i]);
	}
	for (i = 0; i < NFILES; i++) {
		if (close(fd[i]) != 0)
			die("close", path[i]);
	}

	/* 1 failed open. */
	if (openat(AT_FDCWD, "lc/a/b/missing.dat", O_RDONLY) >= 0 || errno != ENOENT)
		die("openat did not fail with ENOENT", "lc/a/b/missing.dat");

	/* 5 unlinks: 3 unlink, 2 unlinkat; 3 rmdirs: rmdir, unlinkat(AT_REMOVEDIR), rmdir. */
	for (i = 0; i < NFILES; i++) {
		if ((i < 3 ? syscall(SYS_unlink, path[i]) :
		    syscall(SYS_unlinkat, AT_FDCWD, path[i], 0)) != 0)
			die("unlink", path[i]);
	}
	if (syscall(SYS_rmdir, dirs[2]) != 0)
		die("rmdir", dirs[2]);
	if (syscall(SYS_unlinkat, AT_FDCWD, dirs[1], AT_REMOVEDIR) != 0)
		die("unlinkat", dirs[1]);
	if (syscall(SYS_rmdir, dirs[0]) != 0)
		die("rmdir", dirs[0]);
	_exit(sum == 'x' * NFILES ? 0 : 3);
}
