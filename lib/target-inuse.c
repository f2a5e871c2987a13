// SPDX-License-Identifier: MIT
/*
 * target: in use.  Every reason not to write a target, decided by device
 * and inode numbers (target.h).
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
#include "msg.h"
#include "target-int.h"

static int devset_add(struct target_devset *set, dev_t d, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->dev[i] == d)
			return 0;
	if (set->n >= TARGET_DEVSET_MAX)
		return -E2BIG;
	set->dev[set->n] = d;
	target_copy_str(set->name[set->n], sizeof(set->name[0]), name);
	set->n++;
	return 0;
}

static const char *devset_find_dev(const struct target_devset *set, dev_t d)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->dev[i] == d)
			return set->name[i];
	return NULL;
}

static const char *devset_find_name(const struct target_devset *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->name[i], name) == 0)
			return set->name[i];
	return NULL;
}

int target_devset_sysfs(const char *sys_root, const char *name, struct target_devset *set)
{
	_cleanup_closedir_ DIR *d = NULL;
	char dir[PATH_MAX], buf[64];
	struct dirent *de;
	dev_t dv;
	int r;

	if (strchr(name, '/') || !name[0])
		return -EINVAL;
	r = target_fmt(dir, sizeof(dir), "%s/class/block/%s", sys_root, name);
	if (r < 0)
		return r;
	r = target_read_attrf(buf, sizeof(buf), "%s/dev", dir);
	if (r < 0)
		return r == -ENOENT ? -ENOENT : r;
	if (target_parse_devnum(buf, &dv) < 0)
		return -EINVAL;
	r = devset_add(set, dv, name);
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (target_read_attrf(buf, sizeof(buf), "%s/%s/partition", dir, de->d_name) < 0)
			continue;
		if (target_read_attrf(buf, sizeof(buf), "%s/%s/dev", dir, de->d_name) < 0 ||
		    target_parse_devnum(buf, &dv) < 0)
			continue;
		r = devset_add(set, dv, de->d_name);
		if (r < 0)
			return r;
	}
	return 0;
}

int target_devset_add_ctrl(const char *sys_root, const char *ctrl, struct target_devset *set)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX], head[TARGET_NAME_LEN];
	struct dirent *de;
	unsigned s, n;
	int r;

	if (target_fmt(p, sizeof(p), "%s/class/nvme/%s", sys_root, ctrl) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (target_is_nvme_ns_name(de->d_name, NULL, NULL)) {
			r = target_devset_sysfs(sys_root, de->d_name, set);
		} else if (target_is_nvme_path_name(de->d_name, &s, NULL, &n)) {
			/* the multipath head nvme<subsys>n<nsid> is what gets mounted */
			snprintf(head, sizeof(head), "nvme%un%u", s, n);
			r = target_devset_sysfs(sys_root, head, set);
		} else {
			continue;
		}
		if (r < 0 && r != -ENOENT)
			return r;
	}
	return 0;
}

void target_inuse_add(struct target_inuse *u, const char *f, ...)
{
	va_list ap;

	if (u->count < TARGET_REASONS_MAX) {
		va_start(ap, f);
		vsnprintf(u->reason[u->count], sizeof(u->reason[0]), f, ap);
		va_end(ap);
	}
	u->count++;
}

/* Undo the octal escapes (\040 etc.) of mountinfo and /proc/swaps, in place. */
static void unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

/* Does a device path (mount source, swap file name) refer to something in @set? */
static const char *source_in_set(const char *src, const struct target_devset *set)
{
	struct stat st;
	const char *b, *hit;

	if (src[0] != '/')
		return NULL;
	if (stat(src, &st) == 0 && S_ISBLK(st.st_mode)) {
		hit = devset_find_dev(set, st.st_rdev);
		if (hit)
			return hit;
	}
	/* by kernel name too (a stale or namespaced /dev): refusing is the safe side */
	if (strncmp(src, "/dev/", 5) != 0)
		return NULL;
	b = strrchr(src, '/') + 1;
	return devset_find_name(set, b);
}

struct mountinfo_line {
	dev_t dev;
	char *mountpoint;
	char *source;
};

/* Split one mountinfo line (modified in place). */
static int parse_mountinfo_line(char *line, struct mountinfo_line *m)
{
	char *f[64], *save = NULL, *tok;
	size_t n = 0, sep;

	for (tok = strtok_r(line, " \n", &save); tok && n < 64; tok = strtok_r(NULL, " \n", &save))
		f[n++] = tok;
	if (n < 7)
		return -EINVAL;
	for (sep = 6; sep < n && strcmp(f[sep], "-") != 0; sep++)
		;
	if (sep + 2 >= n)
		return -EINVAL;
	if (target_parse_devnum(f[2], &m->dev) < 0)
		return -EINVAL;
	m->mountpoint = f[4];
	m->source = f[sep + 2];
	unescape(m->mountpoint);
	unescape(m->source);
	return 0;
}

int target_inuse_mountinfo(FILE *f, const struct target_devset *set, struct target_inuse *u)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	unsigned before = u->count;

	if (set->is_file)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		struct mountinfo_line m;
		const char *hit;

		if (parse_mountinfo_line(line, &m) < 0)
			continue;
		hit = devset_find_dev(set, m.dev);
		if (!hit)
			hit = source_in_set(m.source, set);
		if (hit)
			target_inuse_add(u, "%s is mounted at %s", hit, m.mountpoint);
	}
	if (ferror(f))
		return -EIO;
	return (int)(u->count - before);
}

int target_inuse_swaps(FILE *f, const struct target_devset *set, struct target_inuse *u)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	unsigned before = u->count;

	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *name, *type;
		const char *hit;
		struct stat st;

		name = strtok_r(line, " \t\n", &save);
		type = strtok_r(NULL, " \t\n", &save);
		if (!name || !type || strcmp(name, "Filename") == 0)
			continue;
		unescape(name);
		if (set->is_file) {
			if (stat(name, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_dev == set->file_dev && st.st_ino == set->file_ino)
				target_inuse_add(u, "%s is an active swap file", name);
			continue;
		}
		hit = source_in_set(name, set);
		if (hit) {
			target_inuse_add(u, "%s is active swap", hit);
			continue;
		}
		if (stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
			hit = devset_find_dev(set, st.st_dev);
			if (hit)
				target_inuse_add(u, "%s holds the active swap file %s", hit, name);
		}
	}
	if (ferror(f))
		return -EIO;
	return (int)(u->count - before);
}

/* " -> dm-1 -> md0": the holders of @name up to the top, at any depth */
static void holder_chain(const char *sys_root, const char *name, char *out, size_t len, int depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX];
	struct dirent *de;

	out[0] = '\0';
	if (depth > 16 || target_fmt(p, sizeof(p), "%s/class/block/%s/holders", sys_root, name) < 0)
		return;
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		n = (size_t)snprintf(out, len, ", which is held by %s", de->d_name);
		if (n < len)
			holder_chain(sys_root, de->d_name, out + n, len - n, depth + 1);
		return;
	}
}

int target_inuse_holders(const char *sys_root, const struct target_devset *set,
			 struct target_inuse *u)
{
	unsigned before = u->count;

	for (size_t i = 0; i < set->n; i++) {
		_cleanup_closedir_ DIR *d = NULL;
		char p[PATH_MAX], dmname[128];
		struct dirent *de;

		if (target_fmt(p, sizeof(p), "%s/class/block/%s/holders", sys_root, set->name[i]) <
		    0)
			return -ENAMETOOLONG;
		d = opendir(p);
		if (!d) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		while ((de = readdir(d))) {
			char chain[TARGET_REASON_LEN];

			if (de->d_name[0] == '.')
				continue;
			holder_chain(sys_root, de->d_name, chain, sizeof(chain), 0);
			if (target_read_attrf(dmname, sizeof(dmname), "%s/class/block/%s/dm/name",
					      sys_root, de->d_name) > 0)
				target_inuse_add(u, "%s is held by %s (%s)%s", set->name[i],
						 de->d_name, dmname, chain);
			else
				target_inuse_add(u, "%s is held by %s%s", set->name[i], de->d_name,
						 chain);
		}
	}
	return (int)(u->count - before);
}

/* Is any (transitive) slave of block device @d in @set?  Depth-limited. */
static const char *slaves_hit(const char *sys_root, const char *name,
			      const struct target_devset *set, int depth)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX];
	struct dirent *de;

	if (depth > 8 || target_fmt(p, sizeof(p), "%s/class/block/%s/slaves", sys_root, name) < 0)
		return NULL;
	d = opendir(p);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		const char *hit;

		if (de->d_name[0] == '.')
			continue;
		hit = devset_find_name(set, de->d_name);
		if (!hit)
			hit = slaves_hit(sys_root, de->d_name, set, depth + 1);
		if (hit)
			return hit;
	}
	return NULL;
}

int target_inuse_root(FILE *f, const char *sys_root, const struct target_devset *set,
		      struct target_inuse *u)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	bool found = false;
	dev_t root = 0;
	char src[PATH_MAX] = "", p[PATH_MAX], name[TARGET_NAME_LEN];
	const char *hit;

	if (set->is_file)
		return 0;
	/* the last mount on "/" is the one in effect */
	while (getline(&line, &cap, f) > 0) {
		struct mountinfo_line m;

		if (parse_mountinfo_line(line, &m) < 0 || strcmp(m.mountpoint, "/") != 0)
			continue;
		found = true;
		root = m.dev;
		target_copy_str(src, sizeof(src), m.source);
	}
	if (!found)
		return 0;
	hit = devset_find_dev(set, root);
	if (!hit)
		hit = source_in_set(src, set);
	if (hit) {
		target_inuse_add(u, "%s backs the root filesystem", hit);
		return 1;
	}
	/* root on dm / md: follow the slaves down */
	if (target_fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_root, major(root), minor(root)) <
		    0 ||
	    target_link_base(p, name, sizeof(name)) < 0)
		return 0;
	hit = slaves_hit(sys_root, name, set, 0);
	if (hit) {
		target_inuse_add(u, "%s backs the root filesystem (through %s)", hit, name);
		return 1;
	}
	return 0;
}

/* A regular file the target reaches: the target itself or a loop's bottom. */
struct file_node {
	dev_t dev;
	uint64_t ino;
};

#define FILES_MAX 8

/* Everything a write to the target reaches, and what must not count as a user. */
struct reach {
	struct target_devset set; /* block devices */
	struct file_node files[FILES_MAX];
	size_t nfiles;
	dev_t own[16]; /* the target and the loops it is stacked through */
	size_t nown;
};

static bool reach_own(const struct reach *r, dev_t d)
{
	for (size_t i = 0; i < r->nown; i++)
		if (r->own[i] == d)
			return true;
	return false;
}

/*
 * The target's reach: its device and partitions (or the file), and for a
 * loop device, down through what it is stacked on to the bottom.
 */
static int reach_build(const char *sys_root, const struct target_identity *id, bool whole_ctrl,
		       const struct target_loops *loops, struct reach *r)
{
	char name[TARGET_NAME_LEN];
	dev_t cur;
	int ret;

	memset(r, 0, sizeof(*r));
	if (id->kind == TARGET_FILE || (id->kind == TARGET_NVME && id->ino)) {
		r->files[r->nfiles++] = (struct file_node){id->dev, id->ino};
		return 0;
	}
	cur = id->dev;
	if (!cur && id->block_path[0]) {
		/* an NVMe generic device identified by itself (a listing): its block
		 * twin; the gate always hands over an identity read through the block
		 * device */
		struct stat bst;

		if (stat(id->block_path, &bst) < 0)
			return -errno;
		if (!S_ISBLK(bst.st_mode))
			return -ENOTBLK;
		cur = bst.st_rdev;
	}
	if (!cur)
		return -ENODEV;
	for (int depth = 0;; depth++) {
		const struct target_loop *e;

		if (depth > 14)
			return -ELOOP;
		ret = target_name_of_dev(sys_root, cur, name, sizeof(name));
		if (ret == 0)
			ret = target_devset_sysfs(sys_root, name, &r->set);
		if (ret < 0)
			return ret;
		if (depth == 0 && whole_ctrl && id->kind == TARGET_NVME && id->ctrl[0]) {
			ret = target_devset_add_ctrl(sys_root, id->ctrl, &r->set);
			if (ret < 0)
				return ret;
		}
		e = target_loop_by_dev(loops, cur);
		if (!e)
			return 0;
		r->own[r->nown++] = cur;
		if (!e->back_rdev) {
			if (r->nfiles < FILES_MAX)
				r->files[r->nfiles++] =
					(struct file_node){e->back_dev, e->back_ino};
			return 0;
		}
		cur = e->back_rdev;
	}
}

static bool reach_file(const struct reach *r, dev_t d, uint64_t ino)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].dev == d && r->files[i].ino == ino)
			return true;
	return false;
}

static int mounts_all(const struct target_devset *set, struct target_inuse *u);

/* What uses loop device @e (its first use, for the message), at any depth. */
static void loop_top_use(const char *sys_root, const struct target_loops *loops,
			 const struct target_loop *e, int depth, char *out, size_t len)
{
	struct target_devset set;
	struct target_inuse tu;
	_cleanup_fclose_ FILE *sw = NULL;

	out[0] = '\0';
	memset(&set, 0, sizeof(set));
	memset(&tu, 0, sizeof(tu));
	if (depth > 14 || target_devset_sysfs(sys_root, e->name, &set) < 0)
		return;
	(void)mounts_all(&set, &tu);
	sw = fopen("/proc/swaps", "re");
	if (sw)
		(void)target_inuse_swaps(sw, &set, &tu);
	(void)target_inuse_holders(sys_root, &set, &tu);
	if (tu.count) {
		target_copy_str(out, len, tu.reason[0]);
		return;
	}
	for (size_t i = 0; i < loops->n; i++) {
		const struct target_loop *up = &loops->v[i];

		if (!up->back_rdev || !devset_find_dev(&set, up->back_rdev))
			continue;
		loop_top_use(sys_root, loops, up, depth + 1, out, len);
		if (!out[0])
			snprintf(out, len, "%s is stacked on %s", up->name, e->name);
		return;
	}
}

/* Loops stacked on anything the target reaches (other than its own chain). */
static void inuse_loops(const char *sys_root, const struct target_identity *id,
			const struct target_loops *loops, const struct reach *r,
			struct target_inuse *u)
{
	for (size_t i = 0; i < loops->n; i++) {
		const struct target_loop *e = &loops->v[i];
		char top[TARGET_REASON_LEN], what[TARGET_NAME_LEN + 32];
		const char *hit = NULL;

		if (reach_own(r, e->dev))
			continue;
		if (e->back_rdev) {
			hit = devset_find_dev(&r->set, e->back_rdev);
			if (!hit)
				continue;
			target_copy_str(what, sizeof(what), hit);
		} else if (reach_file(r, e->back_dev, e->back_ino)) {
			if (id->kind == TARGET_FILE)
				target_copy_str(what, sizeof(what), "the file");
			else
				snprintf(what, sizeof(what), "%.31s's backing file", id->name);
		} else {
			continue;
		}
		loop_top_use(sys_root, loops, e, 0, top, sizeof(top));
		if (top[0])
			target_inuse_add(u, "%s backs %s (%s)", what, e->name, top);
		else
			target_inuse_add(u, "%s backs %s", what, e->name);
	}
}

/*
 * Mounts of anything in @set, in this mount namespace and every other one
 * whose mountinfo can be read (/proc/PID/mountinfo, one per namespace).
 */
static int mounts_all(const struct target_devset *set, struct target_inuse *u)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct stat self;
	ino_t *seen = NULL;
	size_t nseen = 0;
	struct dirent *de;
	int r;

	{
		_cleanup_fclose_ FILE *mi = fopen("/proc/self/mountinfo", "re");

		if (!mi)
			return -errno;
		r = target_inuse_mountinfo(mi, set, u);
		if (r < 0)
			return r;
	}
	if (stat("/proc/self/ns/mnt", &self) < 0)
		return 0; /* no namespaces to walk */
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char p[64];
		struct stat ns;
		bool dup = false;
		struct target_inuse tu;
		_cleanup_fclose_ FILE *mi = NULL;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(p, sizeof(p), "/proc/%.20s/ns/mnt", de->d_name);
		if (stat(p, &ns) < 0 || ns.st_ino == self.st_ino)
			continue;
		for (size_t i = 0; i < nseen; i++)
			dup |= seen[i] == ns.st_ino;
		if (dup)
			continue;
		{
			ino_t *nv = realloc(seen, (nseen + 1) * sizeof(*seen));

			if (!nv)
				break;
			seen = nv;
			seen[nseen++] = ns.st_ino;
		}
		snprintf(p, sizeof(p), "/proc/%.20s/mountinfo", de->d_name);
		mi = fopen(p, "re");
		if (!mi)
			continue;
		memset(&tu, 0, sizeof(tu));
		if (target_inuse_mountinfo(mi, set, &tu) <= 0)
			continue;
		for (unsigned i = 0; i < tu.count && i < TARGET_REASONS_MAX; i++)
			target_inuse_add(u, "%s (mount namespace of pid %.20s)", tu.reason[i],
					 de->d_name);
	}
	free(seen);
	return 0;
}

/* Swap: on a device of @r, a swap file on one, or a file @r reaches. */
static int inuse_swaps(const struct reach *r, struct target_inuse *u)
{
	_cleanup_fclose_ FILE *sw = fopen("/proc/swaps", "re");
	int ret;

	if (!sw)
		return errno == ENOENT ? 0 : -errno;
	if (r->set.n) {
		ret = target_inuse_swaps(sw, &r->set, u);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < r->nfiles; i++) {
		struct target_devset fs = {
			.is_file = true, .file_dev = r->files[i].dev, .file_ino = r->files[i].ino};

		rewind(sw);
		ret = target_inuse_swaps(sw, &fs, u);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int target_inuse(const struct target_identity *id, bool whole_ctrl, struct target_inuse *u)
{
	struct target_loops loops = {0};
	struct reach *r;
	int ret;

	memset(u, 0, sizeof(*u));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = target_loops_scan(TARGET_SYS_ROOT, &loops, u);
	if (ret == 0)
		ret = reach_build(TARGET_SYS_ROOT, id, whole_ctrl, &loops, r);
	if (ret < 0)
		goto out;
	if (r->set.n) {
		_cleanup_fclose_ FILE *mi = NULL;

		ret = mounts_all(&r->set, u);
		if (ret < 0)
			goto out;
		mi = fopen("/proc/self/mountinfo", "re");
		if (!mi) {
			ret = -errno;
			goto out;
		}
		ret = target_inuse_root(mi, TARGET_SYS_ROOT, &r->set, u);
		if (ret < 0)
			goto out;
		ret = target_inuse_holders(TARGET_SYS_ROOT, &r->set, u);
		if (ret < 0)
			goto out;
	}
	ret = inuse_swaps(r, u);
	if (ret < 0)
		goto out;
	inuse_loops(TARGET_SYS_ROOT, id, &loops, r, u);
	ret = (int)u->count;
out:
	target_loops_free(&loops);
	free(r);
	return ret;
}
