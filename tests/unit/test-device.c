/* test-device.c: device names and -D parsing against a fake sysfs tree. */

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "check.h"

static char root[] = "/tmp/blktop-test-sysfs-XXXXXX";

/* Write a small file under the fake root. */
static void
put(const char *rel, const char *text)
{
	char	 path[512];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if ((f = fopen(path, "w")) == NULL)
		fatal("%s", path);
	fputs(text, f);
	fclose(f);
}

/* mkdir -p under the fake root. */
static void
dir(const char *rel)
{
	char	 cmd[600];

	snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", root, rel);
	if (system(cmd) != 0)
		fatalx("mkdir %s", rel);
}

/* A symlink under the fake root. */
static void
link_to(const char *target, const char *rel)
{
	char	 path[512];

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (symlink(target, path) != 0)
		fatal("symlink %s", path);
}

int
main(void)
{
	uint32_t	 dev;
	char		*err, cmd[600];

	if (mkdtemp(root) == NULL)
		fatal("mkdtemp");
	dir("devices/loop0");
	dir("devices/sda/sda1");
	dir("dev/block");
	dir("class/block");
	dir("block");
	put("devices/loop0/dev", "7:0\n");
	put("devices/loop0/uevent", "MAJOR=7\nMINOR=0\nDEVNAME=loop0\nDEVTYPE=disk\n");
	put("devices/sda/dev", "8:0\n");
	put("devices/sda/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\n");
	put("devices/sda/sda1/dev", "8:1\n");
	put("devices/sda/sda1/partition", "1\n");
	put("devices/sda/sda1/uevent", "MAJOR=8\nMINOR=1\nDEVNAME=sda1\n");
	link_to("../../devices/loop0", "dev/block/7:0");
	link_to("../../devices/sda", "dev/block/8:0");
	link_to("../../devices/sda/sda1", "dev/block/8:1");
	link_to("../../devices/loop0", "class/block/loop0");
	link_to("../../devices/sda", "class/block/sda");
	link_to("../../devices/sda/sda1", "class/block/sda1");
	link_to("../devices/loop0", "block/loop0");
	link_to("../devices/sda", "block/sda");
	device_set_sysfs(root);

	CHECK("name by sysfs", strcmp(device_name(DEV_MKDEV(7, 0)), "loop0") == 0);
	CHECK("unknown dev is MAJ:MIN", strcmp(device_name(DEV_MKDEV(9, 9)), "9:9") == 0);
	device_set_name(DEV_MKDEV(259, 3), "nvme0n1");
	CHECK("name set by replay", strcmp(device_name(DEV_MKDEV(259, 3)), "nvme0n1") == 0);
	CHECK("-D name", device_parse("loop0", &dev, &err) == 0 && dev == DEV_MKDEV(7, 0));
	CHECK("-D /dev/name", device_parse("/dev/sda", &dev, &err) == 0 && dev == DEV_MKDEV(8, 0));
	CHECK("-D MAJ:MIN", device_parse("7:0", &dev, &err) == 0 && dev == DEV_MKDEV(7, 0));
	CHECK("-D partition maps to its disk",
	    device_parse("sda1", &dev, &err) == 0 && dev == DEV_MKDEV(8, 0));
	CHECK("-D partition by MAJ:MIN maps to its disk",
	    device_parse("8:1", &dev, &err) == 0 && dev == DEV_MKDEV(8, 0));
	CHECK("-D unknown lists the known ones", device_parse("nope", &dev, &err) != 0 &&
	    strstr(err, "unknown device 'nope'") != NULL && strstr(err, "known: loop0 sda") != NULL);
	free(err);
	CHECK("-D refuses paths", device_parse("../loop0", &dev, &err) != 0);
	free(err);
	CHECK("-D refuses junk after MAJ:MIN", device_parse("7:0x", &dev, &err) != 0);
	free(err);
	CHECK("-D refuses absent MAJ:MIN", device_parse("7:5", &dev, &err) != 0);
	free(err);
	CHECK("-D refuses huge major", device_parse("99999:0", &dev, &err) != 0);
	free(err);

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return (1);
	CHECK_EXIT();
}
