// SPDX-License-Identifier: MIT
/*
 * target: what the kernel says about block devices, read from sysfs and
 * /dev: attributes, device numbers, names and the table of bound loop
 * devices.  Shared by identity, in-use and the storage below a target.
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

/* snprintf that reports truncation as -ENAMETOOLONG */
int __attribute__((format(printf, 3, 4))) target_fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Copy with truncation (identifiers longer than the field are cut, never overflow). */
void target_copy_str(char *dst, size_t len, const char *src)
{
	size_t n;

	if (!len)
		return;
	n = src ? strlen(src) : 0;
	if (n > len - 1)
		n = len - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Remove surrounding whitespace in place; returns @s. */
char *target_strip(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (*p && isspace((unsigned char)*p))
		p++;
	if (p != s)
		memmove(s, p, strlen(p) + 1);
	return s;
}

/* Read a small sysfs attribute, stripped.  Returns its length or -errno. */
static int read_attr(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* some attributes are binary (vpd pages): stop at the first NUL */
	target_strip(buf);
	return (int)strlen(buf);
}

int __attribute__((format(printf, 3, 4)))
target_read_attrf(char *buf, size_t len, const char *f, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(path, sizeof(path), f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_attr(path, buf, len);
}

int target_parse_devnum(const char *s, dev_t *d)
{
	unsigned ma, mi;
	int n = 0;

	if (sscanf(s, "%u:%u%n", &ma, &mi, &n) != 2 || s[n] != '\0')
		return -EINVAL;
	*d = makedev(ma, mi);
	return 0;
}

/* "nvme0n1" (not "nvme0c0n1", not "nvme0n1p1") */
bool target_is_nvme_ns_name(const char *s, unsigned *a, unsigned *nsid)
{
	unsigned x, y;
	int n = 0;

	if (sscanf(s, "nvme%un%u%n", &x, &y, &n) != 2 || s[n] != '\0' ||
	    !isdigit((unsigned char)s[4]))
		return false;
	if (a)
		*a = x;
	if (nsid)
		*nsid = y;
	return true;
}

/* "nvme0c1n1": hidden per-path device of a multipath namespace */
bool target_is_nvme_path_name(const char *s, unsigned *subsys, unsigned *ctrl, unsigned *nsid)
{
	unsigned x, y, z;
	int n = 0;

	if (sscanf(s, "nvme%uc%un%u%n", &x, &y, &z, &n) != 3 || s[n] != '\0' ||
	    !isdigit((unsigned char)s[4]))
		return false;
	if (subsys)
		*subsys = x;
	if (ctrl)
		*ctrl = y;
	if (nsid)
		*nsid = z;
	return true;
}

/* "ng0n1" */
bool target_is_ng_name(const char *s)
{
	unsigned x, y;
	int n = 0;

	return sscanf(s, "ng%un%u%n", &x, &y, &n) == 2 && s[n] == '\0' &&
	       isdigit((unsigned char)s[2]);
}

/* basename of realpath(@link) into @out */
int target_link_base(const char *link, char *out, size_t len)
{
	_cleanup_free_ char *rp = realpath(link, NULL);
	const char *b;

	if (!rp)
		return -errno;
	b = strrchr(rp, '/');
	b = b ? b + 1 : rp;
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	strcpy(out, b);
	return 0;
}

int target_name_of_dev(const char *sys_root, dev_t d, char *name, size_t len)
{
	char p[PATH_MAX];
	int r = target_fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_root, major(d), minor(d));

	return r < 0 ? r : target_link_base(p, name, len);
}

void target_loops_free(struct target_loops *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

int target_loops_scan(const char *sys_root, struct target_loops *t, struct target_inuse *u)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX], buf[64];
	struct dirent *de;

	if (target_fmt(p, sizeof(p), "%s/block", sys_root) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		_cleanup_close_ int fd = -1;
		struct loop_info64 li;
		struct target_loop *e;
		struct stat st;
		dev_t dv;

		if (strncmp(de->d_name, "loop", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		/* unbound loop devices have no loop/ directory */
		if (target_fmt(p, sizeof(p), "%s/block/%s/loop", sys_root, de->d_name) < 0 ||
		    !target_path_exists(p))
			continue;
		if (target_read_attrf(buf, sizeof(buf), "%s/block/%s/dev", sys_root, de->d_name) <
			    0 ||
		    target_parse_devnum(buf, &dv) < 0 ||
		    target_fmt(p, sizeof(p), "/dev/%s", de->d_name) < 0) {
			target_inuse_add(u, "cannot read what %s is stacked on (sysfs)",
					 de->d_name);
			continue;
		}
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dv) {
			target_inuse_add(u, "cannot tell what %s is stacked on: %s is not it",
					 de->d_name, p);
			continue;
		}
		if (ioctl(fd, LOOP_GET_STATUS64, &li) < 0) {
			if (errno == ENXIO)
				continue; /* detached meanwhile */
			target_inuse_add(u, "cannot tell what %s is stacked on: %s", de->d_name,
					 strerror(errno));
			continue;
		}
		if (t->n == t->cap) {
			size_t nc = t->cap ? t->cap * 2 : 16;
			struct target_loop *nv = realloc(t->v, nc * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			t->v = nv;
			t->cap = nc;
		}
		e = &t->v[t->n++];
		memset(e, 0, sizeof(*e));
		e->dev = dv;
		target_copy_str(e->name, sizeof(e->name), de->d_name);
		e->back_rdev = (dev_t)li.lo_rdevice;
		if (!e->back_rdev) {
			e->back_dev = (dev_t)li.lo_device;
			e->back_ino = li.lo_inode;
		}
	}
	return 0;
}

const struct target_loop *target_loop_by_dev(const struct target_loops *t, dev_t d)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dev == d)
			return &t->v[i];
	return NULL;
}
