/* cgroup.c: a cgroup v2 id (its directory's inode) to its path, for the views. */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

/*
 * Find the cgroup v2 directory whose inode is id below dir (at most depth
 * levels down); its path relative to that root into out. 0 if found.
 */
static int
cgroup_find(int dirfd, const char *rel, uint64_t id, unsigned depth,
    char *out, size_t outlen)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 sub[PATH_MAX];
	int		 fd, found = -1;

	if ((d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return (-1);
	}
	while (found != 0 && (de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name) >= sizeof sub)
			continue;
		if ((uint64_t)st.st_ino == id) {
			snprintf(out, outlen, "%s", sub);
			found = 0;
		} else if (depth > 0 && (fd = openat(dirfd, de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1)
			found = cgroup_find(fd, sub, id, depth - 1, out, outlen);
	}
	closedir(d);
	return (found);
}

/*
 * The path of cgroup id relative to the cgroup v2 root ("/" for the root),
 * into out; 0 if found. The root is /sys/fs/cgroup, or /sys/fs/cgroup/unified
 * on a hybrid hierarchy. A directory walk (8 levels at most): callers cache.
 */
int
cgroup_path(uint64_t id, char *out, size_t len)
{
	static const char	*roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct stat		 st;
	unsigned		 i;
	int			 fd;

	for (i = 0; i < nitems(roots); i++) {
		if ((fd = open(roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
			continue;
		if (fstat(fd, &st) == 0 && (uint64_t)st.st_ino == id) {
			close(fd);
			snprintf(out, len, "/");
			return (0);
		}
		if (cgroup_find(fd, "", id, 8, out, len) == 0)
			return (0);
	}
	return (-1);
}
