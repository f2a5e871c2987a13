// SPDX-License-Identifier: MIT
/*
 * target: the storage below a target, by device and inode numbers: the
 * keys of its per-drive locks and whether a file system shares its disks.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cleanup.h"
#include "target-int.h"

int target_storage_keys(const struct target_identity *id, char keys[][TARGET_KEY_LEN],
			char labels[][TARGET_NAME_LEN], size_t max)
{
	struct target_loops loops = {0};
	struct target_inuse u;
	size_t n = 0;
	dev_t cur;
	int ret = 0;

	if (id->kind == TARGET_FILE || (id->kind == TARGET_NVME && id->ino)) {
		if (max < 1)
			return -E2BIG;
		snprintf(keys[0], TARGET_KEY_LEN, "file-%u-%u-%llu", major(id->dev), minor(id->dev),
			 (unsigned long long)id->ino);
		target_copy_str(labels[0], TARGET_NAME_LEN, "the file");
		return 1;
	}
	memset(&u, 0, sizeof(u));
	ret = target_loops_scan(TARGET_SYS_ROOT, &loops, &u);
	if (ret < 0)
		goto out;
	cur = id->dev;
	for (;;) {
		const struct target_loop *e;

		if (n >= max) {
			ret = -E2BIG;
			goto out;
		}
		snprintf(keys[n], TARGET_KEY_LEN, "block-%u-%u", major(cur), minor(cur));
		if (target_name_of_dev(TARGET_SYS_ROOT, cur, labels[n], TARGET_NAME_LEN) < 0)
			snprintf(labels[n], TARGET_NAME_LEN, "block %u:%u", major(cur), minor(cur));
		n++;
		e = target_loop_by_dev(&loops, cur);
		if (!e)
			break;
		if (e->back_rdev) {
			cur = e->back_rdev;
			continue;
		}
		if (n >= max) {
			ret = -E2BIG;
			goto out;
		}
		snprintf(keys[n], TARGET_KEY_LEN, "file-%u-%u-%llu", major(e->back_dev),
			 minor(e->back_dev), (unsigned long long)e->back_ino);
		snprintf(labels[n], TARGET_NAME_LEN, "%.20s's file", e->name);
		n++;
		break;
	}
	ret = (int)n;
out:
	target_loops_free(&loops);
	return ret;
}

/* --- the disks under a device or file system (target_shares_disk) --- */

#define DISKS_MAX 32

struct disk_set {
	size_t n;
	dev_t v[DISKS_MAX];
};

static void disk_add(struct disk_set *s, dev_t d)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == d)
			return;
	if (s->n < DISKS_MAX)
		s->v[s->n++] = d;
}

/*
 * The bottom devices @d is made of: a partition's disk, a dm/md device's
 * slaves, a loop device's backing device or the file system holding its
 * file, by numbers from sysfs.  A number sysfs does not know (tmpfs, an
 * anonymous btrfs device) stands for itself.
 */
static int disks_of(const struct target_loops *loops, dev_t d, struct disk_set *s, int depth)
{
	_cleanup_closedir_ DIR *dir = NULL;
	char p[PATH_MAX], buf[64];
	const struct target_loop *e;
	struct dirent *de;
	bool any = false;
	dev_t sd;

	if (depth > 16)
		return -ELOOP;
	e = target_loop_by_dev(loops, d);
	if (e)
		return disks_of(loops, e->back_rdev ? e->back_rdev : e->back_dev, s, depth + 1);
	if (target_fmt(p, sizeof(p), "%s/dev/block/%u:%u", TARGET_SYS_ROOT, major(d), minor(d)) < 0)
		return -ENAMETOOLONG;
	if (!target_path_exists(p)) {
		disk_add(s, d);
		return 0;
	}
	/* a partition: its disk is the directory above */
	if (target_read_attrf(buf, sizeof(buf), "%s/partition", p) > 0 &&
	    target_read_attrf(buf, sizeof(buf), "%s/../dev", p) > 0 &&
	    !target_parse_devnum(buf, &sd))
		return disks_of(loops, sd, s, depth + 1);
	if (target_fmt(p, sizeof(p), "%s/dev/block/%u:%u/slaves", TARGET_SYS_ROOT, major(d),
		       minor(d)) < 0)
		return -ENAMETOOLONG;
	dir = opendir(p);
	while (dir && (de = readdir(dir))) {
		int r;

		if (de->d_name[0] == '.')
			continue;
		if (target_read_attrf(buf, sizeof(buf), "%s/%s/dev", p, de->d_name) <= 0 ||
		    target_parse_devnum(buf, &sd) < 0)
			return -EIO;
		if ((r = disks_of(loops, sd, s, depth + 1)) < 0)
			return r;
		any = true;
	}
	if (!any)
		disk_add(s, d);
	return 0;
}

int target_shares_disk(const struct target_identity *id, dev_t fs_dev, char *why, size_t len)
{
	struct target_loops loops = {0};
	struct disk_set a = {0}, b = {0};
	struct target_inuse u = {0};
	char name[TARGET_NAME_LEN], fsname[TARGET_NAME_LEN];
	int ret;

	if (!id->dev)
		return -ENODEV;
	ret = target_loops_scan(TARGET_SYS_ROOT, &loops, &u);
	if (ret >= 0)
		ret = disks_of(&loops, id->dev, &a, 0);
	if (ret >= 0)
		ret = disks_of(&loops, fs_dev, &b, 0);
	target_loops_free(&loops);
	if (ret < 0)
		return ret;
	if (target_name_of_dev(TARGET_SYS_ROOT, fs_dev, fsname, sizeof(fsname)) < 0)
		snprintf(fsname, sizeof(fsname), "%u:%u", major(fs_dev), minor(fs_dev));
	for (size_t i = 0; i < a.n; i++)
		for (size_t k = 0; k < b.n; k++) {
			if (a.v[i] != b.v[k])
				continue;
			if (target_name_of_dev(TARGET_SYS_ROOT, a.v[i], name, sizeof(name)) < 0)
				snprintf(name, sizeof(name), "the file system %u:%u", major(a.v[i]),
					 minor(a.v[i]));
			snprintf(why, len, "%s (on %s) and the target share %s", "the database",
				 fsname, name);
			return 1;
		}
	return 0;
}
