/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_TARGET_INT_H
#define PLATEAU_TARGET_INT_H

/*
 * The target module's insides, shared by its parts and by nothing else:
 * target-sysfs.c (reading sysfs and /dev, the loop table), target.c
 * (identity, open, list), target-inuse.c (in use) and target-disk.c (the
 * storage below a target).
 */

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "cleanup.h"
#include "target.h"

#define TARGET_SYS_ROOT "/sys"

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

static inline bool target_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/*
 * Every bound loop device: its number and what it is stacked on, as the
 * kernel holds it.  Reached through /dev/<name>, checked by st_rdev.
 */
struct target_loop {
	dev_t dev;
	char name[TARGET_NAME_LEN];
	dev_t back_rdev; /* over a block device: its number; else 0 */
	dev_t back_dev;	 /* over a file: st_dev and st_ino of the file */
	uint64_t back_ino;
};

struct target_loops {
	size_t n, cap;
	struct target_loop *v;
};

/* snprintf that reports truncation as -ENAMETOOLONG */
int target_fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
/* copy with truncation: identifiers longer than the field are cut */
void target_copy_str(char *dst, size_t len, const char *src);
/* remove surrounding whitespace in place; returns @s */
char *target_strip(char *s);
/* a small sysfs attribute at a formatted path, stripped: its length or -errno */
int target_read_attrf(char *buf, size_t len, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
/* "M:m" into a device number: 0 or -EINVAL */
int target_parse_devnum(const char *s, dev_t *d);
/* "nvme0n1" (not "nvme0c0n1", not "nvme0n1p1"); @a, @nsid may be NULL */
bool target_is_nvme_ns_name(const char *s, unsigned *a, unsigned *nsid);
/* "nvme0c1n1": a hidden per-path device of a multipath namespace */
bool target_is_nvme_path_name(const char *s, unsigned *subsys, unsigned *ctrl, unsigned *nsid);
/* "ng0n1" */
bool target_is_ng_name(const char *s);
/* the basename of realpath(@link) into @out: 0 or -errno */
int target_link_base(const char *link, char *out, size_t len);
/* the kernel name of block device @d ("loop3"): 0 or -errno */
int target_name_of_dev(const char *sys_root, dev_t d, char *name, size_t len);

/* every bound loop device; a loop that cannot be read is a reason in @u */
int target_loops_scan(const char *sys_root, struct target_loops *t, struct target_inuse *u);
void target_loops_free(struct target_loops *t);
/* the loop device numbered @d, or NULL */
const struct target_loop *target_loop_by_dev(const struct target_loops *t, dev_t d);

/* append a reason to @u (counted beyond TARGET_REASONS_MAX, not kept) */
void target_inuse_add(struct target_inuse *u, const char *f, ...)
	__attribute__((format(printf, 2, 3)));

/* Below: parts the unit test (tests/unit/target.c) pins down on fixtures. */

/**
 * target_devset_sysfs() - a block device and its partitions, from sysfs
 * @sys_root: "/sys" (or a test tree)
 * @name: kernel name ("loop3", "nvme0n1")
 * @set: result
 *
 * Return: 0 or -errno (-ENOENT: no such block device).
 */
int target_devset_sysfs(const char *sys_root, const char *name, struct target_devset *set);

/**
 * target_inuse_mountinfo() - mounts of anything in @set
 * @f: /proc/self/mountinfo or a fixture
 * @set: devices
 * @u: reasons are appended
 *
 * Return: number of reasons added, or -errno.
 */
int target_inuse_mountinfo(FILE *f, const struct target_devset *set, struct target_inuse *u);

/**
 * target_inuse_swaps() - active swap on anything in @set (or the swap file @set names)
 * @f: /proc/swaps or a fixture
 * @set: devices, or a file
 * @u: reasons are appended
 *
 * Return: number of reasons added, or -errno.
 */
int target_inuse_swaps(FILE *f, const struct target_devset *set, struct target_inuse *u);

/**
 * target_inuse_holders() - md/dm/LVM devices stacked on anything in @set
 * @sys_root: "/sys" (or a test tree)
 * @set: devices
 * @u: reasons are appended
 *
 * Return: number of reasons added, or -errno.
 */
int target_inuse_holders(const char *sys_root, const struct target_devset *set,
			 struct target_inuse *u);

/**
 * target_inuse_root() - does the root filesystem live on anything in @set?
 * @f: /proc/self/mountinfo or a fixture (the last "/" mount counts)
 * @sys_root: "/sys" (or a test tree) to follow dm/md slaves down
 * @set: devices
 * @u: reasons are appended
 *
 * Return: number of reasons added, or -errno.
 */
int target_inuse_root(FILE *f, const char *sys_root, const struct target_devset *set,
		      struct target_inuse *u);

/**
 * target_hex_id() - normalize a hex identifier the way target_match() does
 * @in: "EUI.0011-2233:4455 6677", "naa.5000C500A1B2C3D4", "0x..."
 * @out: lowercase hex digits only
 * @len: size of @out
 *
 * Return: the number of digits, or -EINVAL when @in has anything else.
 */
int target_hex_id(const char *in, char *out, size_t len);

#endif
