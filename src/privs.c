/* privs.c: once the source has started, keep nothing of root but the fds it opened. */

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

#define PRIVS_CAP_MAX	63	/* capabilities a newer kernel may know beyond our headers */

/*
 * An id from SUDO_UID/SUDO_GID as sudo writes it: canonical decimal (digits
 * only, no leading zero: "01001" is not 1001 to every reader), less than
 * (uid_t)-1.
 */
static int
privs_id(const char *s, unsigned long *v)
{
	char	*end;

	if (s == NULL || *s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return (-1);
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v >= UINT32_MAX)
		return (-1);
	return (0);
}

/*
 * Root started through sudo: the user and group who ran sudo (0), none
 * (1: not root, no SUDO_UID, or SUDO_UID 0, sudo from a root shell: blktop
 * stays root), or -1 with *errp when SUDO_UID or SUDO_GID is not a user's:
 * not canonical decimal, or a uid the password database does not know
 * (4294967294, 99999 where there is no such user). doc/blktop.8, PRIVILEGES.
 */
int
privs_sudo_ids(uid_t *uidp, gid_t *gidp, char **errp)
{
	const char	*u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long	 su, sg;

	if (errp != NULL)
		*errp = NULL;
	if (getuid() != 0 || geteuid() != 0 || u == NULL || strcmp(u, "0") == 0)
		return (1);
	if (privs_id(u, &su) != 0 || privs_id(g, &sg) != 0 || getpwuid((uid_t)su) == NULL) {
		if (errp != NULL)
			xasprintf(errp, "SUDO_UID '%.16s' SUDO_GID '%.16s': not a user's ids "
			    "(canonical decimal, a user of the password database): refusing to "
			    "go on as root", u, g != NULL ? g : "");
		return (-1);
	}
	*uidp = (uid_t)su;
	*gidp = (gid_t)sg;
	return (0);
}

/* Started through sudo and still root: the user who ran sudo, 0; else -1. */
int
privs_sudo_uid(uid_t *uidp)
{
	gid_t	 gid;

	return (privs_sudo_ids(uidp, &gid, NULL) == 0 ? 0 : -1);
}

/*
 * Open a file the user named (-t THEME) as that user: started through sudo
 * and still root, the open runs with the effective ids and only the group of
 * SUDO_UID/SUDO_GID, so root never reads for the user what the user may not
 * (and an error never shows a line of it). Otherwise a plain open.
 */
int
privs_open_user(const char *path, int flags)
{
	uid_t		 su;
	gid_t		 groups[64], g;
	int		 ngroups, fd, saved;

	if (privs_sudo_ids(&su, &g, NULL) != 0)
		return (open(path, flags));
	if ((ngroups = getgroups((int)nitems(groups), groups)) == -1)
		return (-1);
	if (setgroups(1, &g) != 0 || setegid(g) != 0 || seteuid(su) != 0) {
		saved = errno;
		fd = -1;
	} else {
		fd = open(path, flags);
		saved = errno;
	}
	if (seteuid(0) != 0 || setegid(0) != 0 || setgroups((size_t)ngroups, groups) != 0)
		fatal("cannot take back root after opening %s", path);
	errno = saved;
	return (fd);
}

/* The effective, permitted and inheritable sets, all empty. */
static int
privs_capset_none(void)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	memset(data, 0, sizeof data);
	return ((int)syscall(SYS_capset, &hdr, data));
}

/* Whether any capability is left in the effective or permitted set. */
static int
privs_caps_left(void)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return (1);
	return ((data[0].effective | data[1].effective | data[0].permitted |
	    data[1].permitted) != 0);
}

/*
 * Started through sudo as root: become the user who ran sudo (SUDO_UID,
 * SUDO_GID, that user's groups). In every case drop every capability, empty
 * the bounding and ambient sets and set no_new_privs: the ring buffer, maps
 * and links are used through fds already open, which need none. Files
 * created from here on (captures) belong to that user. *uidp is the user.
 */
int
privs_drop(uid_t *uidp, char **errp)
{
	struct passwd	*pw;
	uid_t		 uid = getuid();
	gid_t		 gid = getgid();
	int		 cap, change;

	if ((change = privs_sudo_ids(&uid, &gid, errp)) == -1)
		return (-1);
	change = change == 0;
	/* Out of the bounding set first: dropping it needs CAP_SETPCAP. */
	for (cap = 0; cap <= PRIVS_CAP_MAX; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL)
			break;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (change) {
		pw = getpwuid(uid);
		if ((pw != NULL ? initgroups(pw->pw_name, gid) :
		    setgroups(1, &gid)) != 0 ||
		    setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
			xasprintf(errp, "cannot become uid %lu gid %lu: %s",
			    (unsigned long)uid, (unsigned long)gid, strerror(errno));
			return (-1);
		}
	}
	if (privs_capset_none() != 0 || privs_caps_left() ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		xasprintf(errp, "cannot drop capabilities: %s", strerror(errno));
		return (-1);
	}
	if (change && (setuid(0) == 0 || geteuid() == 0)) {
		xasprintf(errp, "root could be taken back after dropping it");
		return (-1);
	}
	*uidp = uid;
	return (0);
}
