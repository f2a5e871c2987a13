// SPDX-License-Identifier: MIT
/*
 * target: identity of drives and files, in-use checks, exclusive open.
 * See target.h for the serial conventions of loop devices and files.
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
#include "erase.h"
#include "msg.h"
#include "nvmex.h"
#include "target.h"

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

static const char *sys_default = "/sys";

/* snprintf that reports truncation as -ENAMETOOLONG */
static int __attribute__((format(printf, 3, 4))) fmt(char *buf, size_t len, const char *f, ...)
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
static void copy_str(char *dst, size_t len, const char *src)
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
static char *strip(char *s)
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
	strip(buf);
	return (int)strlen(buf);
}

static int __attribute__((format(printf, 3, 4)))
read_attrf(char *buf, size_t len, const char *f, ...)
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

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int parse_devnum(const char *s, dev_t *d)
{
	unsigned ma, mi;
	int n = 0;

	if (sscanf(s, "%u:%u%n", &ma, &mi, &n) != 2 || s[n] != '\0')
		return -EINVAL;
	*d = makedev(ma, mi);
	return 0;
}

/* "nvme0n1" (not "nvme0c0n1", not "nvme0n1p1") */
static bool is_nvme_ns_name(const char *s, unsigned *a, unsigned *nsid)
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
static bool is_nvme_path_name(const char *s, unsigned *subsys, unsigned *ctrl, unsigned *nsid)
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
static bool is_ng_name(const char *s)
{
	unsigned x, y;
	int n = 0;

	return sscanf(s, "ng%un%u%n", &x, &y, &n) == 2 && s[n] == '\0' &&
	       isdigit((unsigned char)s[2]);
}

static bool is_ctrl_name(const char *s)
{
	unsigned x;
	int n = 0;

	return sscanf(s, "nvme%u%n", &x, &n) == 1 && s[n] == '\0' && isdigit((unsigned char)s[4]);
}

/* basename of realpath(@link) into @out */
static int link_base(const char *link, char *out, size_t len)
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

static void hex_str(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
		any |= b[i] != 0;
	}
	out[2 * n] = '\0';
	/* an all-zero EUI64/NGUID means "not reported" (NVMe 1.4 Figure 249) */
	if (!any)
		out[0] = '\0';
}

const char *target_kind_name(enum target_kind kind)
{
	switch (kind) {
	case TARGET_FILE:
		return "file";
	case TARGET_BLOCK:
		return "block";
	case TARGET_NVME:
		return "nvme";
	default:
		return "unknown";
	}
}

const char *target_match_name(enum target_match_field f)
{
	switch (f) {
	case TARGET_MATCH_SERIAL:
		return "serial";
	case TARGET_MATCH_EUI64:
		return "eui64";
	case TARGET_MATCH_NGUID:
		return "nguid";
	case TARGET_MATCH_WWN:
		return "wwn";
	default:
		return "none";
	}
}

/* The controller ("nvme0") of an NVMe namespace or generic device sysfs dir. */
static void nvme_ctrl_of(const char *sysdir, char *ctrl, size_t len)
{
	char p[PATH_MAX], base[TARGET_NAME_LEN];
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	unsigned c;

	ctrl[0] = '\0';
	if (fmt(p, sizeof(p), "%s/device", sysdir) == 0 && link_base(p, base, sizeof(base)) == 0 &&
	    is_ctrl_name(base)) {
		copy_str(ctrl, len, base);
		return;
	}
	/* a multipath head hangs off the subsystem: take its first path */
	if (fmt(p, sizeof(p), "%s/multipath", sysdir) < 0)
		return;
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (is_nvme_path_name(de->d_name, NULL, &c, NULL)) {
			snprintf(ctrl, len, "nvme%u", c);
			return;
		}
}

/* The block device of namespace @nsid on controller @ctrl, or "". */
static void nvme_block_of(const char *sys_root, const char *ctrl, uint32_t nsid, char *out,
			  size_t len)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX];
	struct dirent *de;
	unsigned s, n;

	out[0] = '\0';
	if (!ctrl[0] || fmt(p, sizeof(p), "%s/class/nvme/%s", sys_root, ctrl) < 0)
		return;
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (is_nvme_ns_name(de->d_name, NULL, &n) && n == nsid) {
			if (fmt(out, len, "/dev/%s", de->d_name) < 0)
				out[0] = '\0';
			return;
		}
		if (is_nvme_path_name(de->d_name, &s, NULL, &n) && n == nsid) {
			if (fmt(out, len, "/dev/nvme%un%u", s, n) < 0)
				out[0] = '\0';
			return;
		}
	}
}

static int identify_nvme(int fd, const struct stat *st, const char *sysdir,
			 struct target_identity *id, char *msg, size_t msg_len)
{
	struct nvmex_ctrl_info c;
	struct nvmex_ns_info n;
	struct nvmex_err e = {0};
	uint32_t nsid;
	int r;

	r = nvmex_get_nsid(fd, &nsid, &e);
	if (r == 0)
		r = nvmex_identify_ctrl(fd, &c, &e);
	if (r == 0)
		r = nvmex_identify_ns(fd, nsid, &n, &e);
	if (r < 0) {
		msg_set(msg, msg_len, "%s: %s", id->path, e.msg[0] ? e.msg : strerror(-r));
		return r;
	}
	id->kind = TARGET_NVME;
	copy_str(id->serial, sizeof(id->serial), c.serial);
	copy_str(id->model, sizeof(id->model), c.model);
	copy_str(id->firmware, sizeof(id->firmware), c.firmware);
	hex_str(id->eui64, n.eui64, sizeof(n.eui64));
	hex_str(id->nguid, n.nguid, sizeof(n.nguid));
	id->nsid = nsid;
	id->cntlid = c.cntlid;
	id->oacs = c.oacs;
	id->fna = c.fna;
	id->sanicap = c.sanicap;
	id->flbas_index = n.lbaf;
	id->meta_bytes = n.meta_bytes;
	id->meta_extended = n.meta_extended;
	id->dps = n.dps;
	id->dlfeat = n.dlfeat;
	id->lba_bytes = n.lba_bytes;
	id->capacity_bytes = n.nsze_blocks * n.lba_bytes;
	if (S_ISBLK(st->st_mode)) {
		id->dev = st->st_rdev;
		copy_str(id->block_path, sizeof(id->block_path), id->path);
	} else if (S_ISREG(st->st_mode)) {
		/* an ioctl mock behind a plain file: I/O goes to the file */
		id->dev = st->st_dev;
		id->ino = st->st_ino;
		copy_str(id->block_path, sizeof(id->block_path), id->path);
	}
	if (sysdir) {
		nvme_ctrl_of(sysdir, id->ctrl, sizeof(id->ctrl));
		if (S_ISCHR(st->st_mode)) {
			nvme_block_of(sys_default, id->ctrl, nsid, id->block_path,
				      sizeof(id->block_path));
			if (id->block_path[0] && !path_exists(id->block_path))
				id->block_path[0] = '\0';
		}
	}
	return 0;
}

/*
 * What makes a file's synthetic serial unique beyond its inode number
 * (which file systems reuse): the birth time from statx and the inode
 * generation (FS_IOC_GETVERSION), each where the file system has it:
 * ":SEC.NSEC", ":gGEN" or ":SEC.NSEC:gGEN" into @buf.
 */
static int file_stamp(int fd, char *buf, size_t len)
{
	struct statx sx;
	unsigned int gen = 0;
	bool have_gen = ioctl(fd, FS_IOC_GETVERSION, &gen) == 0;
	int r = -EOPNOTSUPP;

	buf[0] = '\0';
	/* birth times are taken from a coarse clock: two files made in one tick
	 * share one, so the generation (random per inode on ext4) joins it */
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_SYNC_AS_STAT, STATX_BTIME, &sx) == 0 &&
	    (sx.stx_mask & STATX_BTIME) && (sx.stx_btime.tv_sec || sx.stx_btime.tv_nsec)) {
		r = fmt(buf, len, ":%lld.%09u", (long long)sx.stx_btime.tv_sec,
			sx.stx_btime.tv_nsec);
		if (r < 0)
			return r;
	}
	if (have_gen) {
		size_t n = strlen(buf);

		r = fmt(buf + n, len - n, ":g%u", gen);
	}
	return r;
}

/*
 * The synthetic serial of a loop device (see target.h), from its backing
 * file as the kernel holds it (LOOP_GET_STATUS64: lo_device, lo_inode,
 * lo_rdevice), never from the backing file's name alone: the name in sysfs
 * is only used to find a descriptor, which must have the same numbers.
 * A loop over a block device takes "loop:" + that device's serial.
 * Without a stamp the serial is marked weak (it could repeat).
 */
static void loop_serial(int fd, const char *sysdir, struct target_identity *id, int depth)
{
	struct loop_info64 li;
	char backing[PATH_MAX], stamp[48] = "", off[32] = "";
	_cleanup_close_ int bfd = -1;
	struct stat bst;
	int n;

	id->serial_weak = true;
	if (ioctl(fd, LOOP_GET_STATUS64, &li) < 0)
		return;
	if (li.lo_offset)
		snprintf(off, sizeof(off), "@%llu", (unsigned long long)li.lo_offset);
	if (li.lo_rdevice) {
		/* over a block device: name it by that device's own identity */
		struct target_identity inner;
		char p[PATH_MAX], name[TARGET_NAME_LEN];

		if (depth > 8 ||
		    fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_default,
			major((dev_t)li.lo_rdevice), minor((dev_t)li.lo_rdevice)) < 0 ||
		    link_base(p, name, sizeof(name)) < 0 || fmt(p, sizeof(p), "/dev/%s", name) < 0)
			return;
		bfd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (bfd < 0 || fstat(bfd, &bst) < 0 || !S_ISBLK(bst.st_mode) ||
		    bst.st_rdev != (dev_t)li.lo_rdevice)
			return;
		memset(&inner, 0, sizeof(inner));
		copy_str(inner.path, sizeof(inner.path), p);
		if (strncmp(name, "loop", 4) == 0) {
			if (fmt(p, sizeof(p), "%s/class/block/%s", sys_default, name) < 0)
				return;
			loop_serial(bfd, p, &inner, depth + 1);
		} else if (target_identify_fd(bfd, inner.path, TARGET_BLOCK, &inner, NULL, 0) < 0) {
			return;
		}
		if (!inner.serial[0])
			return;
		n = snprintf(id->serial, sizeof(id->serial), "loop:%s%s", inner.serial, off);
		id->serial_weak = inner.serial_weak || n < 0 || (size_t)n >= sizeof(id->serial);
		return;
	}
	snprintf(id->serial, sizeof(id->serial), "loop:%u:%u:%llu%s",
		 major((dev_t)li.lo_device), minor((dev_t)li.lo_device),
		 (unsigned long long)li.lo_inode, off);
	if (read_attrf(backing, sizeof(backing), "%s/loop/backing_file", sysdir) <= 0)
		return;
	bfd = open(backing, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (bfd < 0 || fstat(bfd, &bst) < 0 || bst.st_dev != (dev_t)li.lo_device ||
	    bst.st_ino != li.lo_inode || file_stamp(bfd, stamp, sizeof(stamp)) < 0)
		return;
	n = snprintf(id->serial, sizeof(id->serial), "loop:%u:%u:%llu%s%s",
		     major((dev_t)li.lo_device), minor((dev_t)li.lo_device),
		     (unsigned long long)li.lo_inode, stamp, off);
	id->serial_weak = n < 0 || (size_t)n >= sizeof(id->serial);
}

/* SCSI VPD page 80h: 4-byte header, then the unit serial number. */
static int read_vpd80(const char *sysdir, char *out, size_t len)
{
	char p[PATH_MAX];
	unsigned char buf[256];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	size_t l;

	if (fmt(p, sizeof(p), "%s/device/vpd_pg80", sysdir) < 0)
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	if (n < 4 || buf[1] != 0x80)
		return -EINVAL;
	l = ((size_t)buf[2] << 8 | buf[3]);
	if (l > (size_t)n - 4)
		l = (size_t)n - 4;
	if (l >= len)
		l = len - 1;
	for (size_t i = 0; i < l; i++)
		out[i] = (buf[4 + i] >= 0x20 && buf[4 + i] < 0x7f) ? (char)buf[4 + i] : ' ';
	out[l] = '\0';
	strip(out);
	return out[0] ? 0 : -ENOENT;
}

static int identify_block(int fd, const struct stat *st, const char *sysdir, const char *sysname,
			  struct target_identity *id, char *msg, size_t msg_len)
{
	char buf[256];
	uint64_t size = 0;
	int ssz = 0;

	id->kind = TARGET_BLOCK;
	id->dev = st->st_rdev;
	copy_str(id->block_path, sizeof(id->block_path), id->path);
	if (ioctl(fd, BLKGETSIZE64, &size) < 0 || ioctl(fd, BLKSSZGET, &ssz) < 0) {
		int r = -errno;

		msg_set(msg, msg_len, "%s: cannot read size: %s", id->path, strerror(-r));
		return r;
	}
	id->capacity_bytes = size;
	id->lba_bytes = ssz > 0 ? (uint32_t)ssz : 512;

	if (read_attrf(buf, sizeof(buf), "%s/device/model", sysdir) > 0)
		copy_str(id->model, sizeof(id->model), buf);
	if (read_attrf(buf, sizeof(buf), "%s/device/rev", sysdir) > 0 ||
	    read_attrf(buf, sizeof(buf), "%s/device/firmware_rev", sysdir) > 0)
		copy_str(id->firmware, sizeof(id->firmware), buf);
	if (read_attrf(buf, sizeof(buf), "%s/queue/discard_max_bytes", sysdir) > 0)
		id->discard = strtoull(buf, NULL, 10) > 0;
	if (read_attrf(buf, sizeof(buf), "%s/queue/rotational", sysdir) > 0)
		id->rotational = buf[0] == '1';

	if (strncmp(sysname, "loop", 4) == 0) {
		copy_str(id->model, sizeof(id->model), "Linux loop device");
		loop_serial(fd, sysdir, id, 0);
		return 0;
	}

	if (read_attrf(buf, sizeof(buf), "%s/device/serial", sysdir) > 0 ||
	    read_attrf(buf, sizeof(buf), "%s/serial", sysdir) > 0 ||
	    read_vpd80(sysdir, buf, sizeof(buf)) == 0)
		copy_str(id->serial, sizeof(id->serial), buf);
	if (read_attrf(buf, sizeof(buf), "%s/device/wwid", sysdir) > 0 ||
	    read_attrf(buf, sizeof(buf), "%s/wwid", sysdir) > 0) {
		char hex[64];
		int n;

		if (!id->serial[0])
			copy_str(id->serial, sizeof(id->serial), buf);
		n = target_hex_id(buf, hex, sizeof(hex));
		if (strncasecmp(buf, "naa.", 4) == 0 && n > 0)
			copy_str(id->wwn, sizeof(id->wwn), hex);
		else if (strncasecmp(buf, "eui.", 4) == 0 && n == 16)
			copy_str(id->eui64, sizeof(id->eui64), hex);
		else if (strncasecmp(buf, "eui.", 4) == 0 && n == 32)
			copy_str(id->nguid, sizeof(id->nguid), hex);
	}
	return 0;
}

static int identify_file(int fd, const struct stat *st, struct target_identity *id)
{
	const char *b = strrchr(id->path, '/');
	char stamp[48] = "";

	id->kind = TARGET_FILE;
	copy_str(id->name, sizeof(id->name), b ? b + 1 : id->path);
	copy_str(id->model, sizeof(id->model), "regular file");
	/* synthetic serial, see target.h; without a stamp it could repeat */
	id->serial_weak = file_stamp(fd, stamp, sizeof(stamp)) < 0;
	snprintf(id->serial, sizeof(id->serial), "file:%u:%u:%llu%s", major(st->st_dev),
		 minor(st->st_dev), (unsigned long long)st->st_ino, stamp);
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->capacity_bytes = (uint64_t)st->st_size;
	/* O_DIRECT on a file: 4 KiB covers every local file system's block */
	id->lba_bytes = 4096;
	return 0;
}

int target_identify_fd(int fd, const char *path, enum target_kind kind, struct target_identity *id,
		       char *msg, size_t msg_len)
{
	struct target_identity t;
	char sysdir[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int r;

	memset(&t, 0, sizeof(t));
	if (!path || !*path)
		return -EINVAL;
	if (strlen(path) >= sizeof(t.path)) {
		msg_set(msg, msg_len, "%.64s...: path too long", path);
		return -ENAMETOOLONG;
	}
	copy_str(t.path, sizeof(t.path), path);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		msg_set(msg, msg_len, "%s: %s", path, strerror(-r));
		return r;
	}

	if (S_ISREG(st.st_mode)) {
		if (kind == TARGET_BLOCK) {
			msg_set(msg, msg_len, "%s: a regular file, not a block device", path);
			return -ENOTBLK;
		}
		if (kind == TARGET_NVME) {
			const char *b = strrchr(path, '/');

			copy_str(t.name, sizeof(t.name), b ? b + 1 : path);
			r = identify_nvme(fd, &st, NULL, &t, msg, msg_len);
		} else {
			r = identify_file(fd, &st, &t);
		}
	} else if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)) {
		bool blk = S_ISBLK(st.st_mode);

		if (kind == TARGET_FILE) {
			msg_set(msg, msg_len, "%s: a device, not a regular file", path);
			return -EINVAL;
		}
		r = fmt(sysdir, sizeof(sysdir), "%s/dev/%s/%u:%u", sys_default,
			blk ? "block" : "char", major(st.st_rdev), minor(st.st_rdev));
		if (r == 0)
			r = link_base(sysdir, t.name, sizeof(t.name));
		if (r < 0) {
			msg_set(msg, msg_len, "%s: not found in sysfs: %s", path, strerror(-r));
			return r;
		}
		if (fmt(p, sizeof(p), "%s/partition", sysdir) == 0 && path_exists(p)) {
			msg_set(msg, msg_len, "%s: %s is a partition; plateau takes whole drives",
				path, t.name);
			return -EINVAL;
		}
		if (!blk && !is_ng_name(t.name)) {
			msg_set(msg, msg_len, "%s: character device %s is not an NVMe namespace",
				path, t.name);
			return -ENOTBLK;
		}
		if (!blk || kind == TARGET_NVME ||
		    (kind == TARGET_UNKNOWN && is_nvme_ns_name(t.name, NULL, NULL)))
			r = identify_nvme(fd, &st, sysdir, &t, msg, msg_len);
		else
			r = identify_block(fd, &st, sysdir, t.name, &t, msg, msg_len);
	} else {
		msg_set(msg, msg_len, "%s: not a drive or regular file", path);
		return -EINVAL;
	}
	if (r < 0)
		return r;
	t.erase_methods = erase_methods_supported(&t);
	*id = t;
	return 0;
}

int target_identify_as(const char *path, enum target_kind kind, struct target_identity *id,
		       char *msg, size_t msg_len)
{
	_cleanup_close_ int fd = -1;
	int r;

	/* O_NONBLOCK: do not wait for media; no O_EXCL: identifying is harmless */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		msg_set(msg, msg_len, "%s: %s", path, strerror(-r));
		return r;
	}
	return target_identify_fd(fd, path, kind, id, msg, msg_len);
}

int target_identify(const char *path, struct target_identity *id, char *msg, size_t msg_len)
{
	return target_identify_as(path, TARGET_UNKNOWN, id, msg, msg_len);
}

int target_hex_id(const char *in, char *out, size_t len)
{
	const char *p = in;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (strncasecmp(p, "eui.", 4) == 0 || strncasecmp(p, "naa.", 4) == 0)
		p += 4;
	else if (strncasecmp(p, "0x", 2) == 0)
		p += 2;
	for (; *p; p++) {
		if (isxdigit((unsigned char)*p)) {
			if (n + 1 >= len)
				return -EINVAL;
			out[n++] = (char)tolower((unsigned char)*p);
		} else if (*p == ':' || *p == '-' || *p == ' ' || *p == '\t' || *p == '\n') {
			continue;
		} else {
			return -EINVAL;
		}
	}
	if (len)
		out[n] = '\0';
	return n ? (int)n : -EINVAL;
}

enum target_match_field target_match(const struct target_identity *id, const char *want)
{
	char w[TARGET_SERIAL_LEN + 8], s[TARGET_SERIAL_LEN], hex[80];
	int n;

	if (!want || strlen(want) >= sizeof(w))
		return TARGET_MATCH_NONE;
	copy_str(w, sizeof(w), want);
	strip(w);
	if (!w[0])
		return TARGET_MATCH_NONE;
	copy_str(s, sizeof(s), id->serial);
	strip(s);
	if (s[0] && strcasecmp(s, w) == 0)
		return TARGET_MATCH_SERIAL;
	n = target_hex_id(w, hex, sizeof(hex));
	if (n <= 0)
		return TARGET_MATCH_NONE;
	if (id->eui64[0] && strcmp(id->eui64, hex) == 0)
		return TARGET_MATCH_EUI64;
	if (id->nguid[0] && strcmp(id->nguid, hex) == 0)
		return TARGET_MATCH_NGUID;
	if (id->wwn[0] && strcmp(id->wwn, hex) == 0)
		return TARGET_MATCH_WWN;
	return TARGET_MATCH_NONE;
}

bool target_same(const struct target_identity *a, const struct target_identity *b)
{
	return a->kind == b->kind && strcmp(a->serial, b->serial) == 0 &&
	       strcmp(a->eui64, b->eui64) == 0 && strcmp(a->nguid, b->nguid) == 0 &&
	       strcmp(a->wwn, b->wwn) == 0 && a->nsid == b->nsid &&
	       a->capacity_bytes == b->capacity_bytes && a->lba_bytes == b->lba_bytes;
}

char *target_describe(const struct target_identity *id, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%s (%s%s%s, serial %s", id->path, target_kind_name(id->kind),
		     id->model[0] ? " " : "", id->model, id->serial[0] ? id->serial : "none");
	if (n >= 0 && (size_t)n < len && id->eui64[0])
		n += snprintf(buf + n, len - (size_t)n, ", eui64 %s", id->eui64);
	if (n >= 0 && (size_t)n < len && id->nguid[0])
		n += snprintf(buf + n, len - (size_t)n, ", nguid %s", id->nguid);
	if (n >= 0 && (size_t)n < len && id->wwn[0])
		n += snprintf(buf + n, len - (size_t)n, ", wwn %s", id->wwn);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
	return buf;
}

/* ---- in use ---- */

static int devset_add(struct target_devset *set, dev_t d, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->dev[i] == d)
			return 0;
	if (set->n >= TARGET_DEVSET_MAX)
		return -E2BIG;
	set->dev[set->n] = d;
	copy_str(set->name[set->n], sizeof(set->name[0]), name);
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
	r = fmt(dir, sizeof(dir), "%s/class/block/%s", sys_root, name);
	if (r < 0)
		return r;
	r = read_attrf(buf, sizeof(buf), "%s/dev", dir);
	if (r < 0)
		return r == -ENOENT ? -ENOENT : r;
	if (parse_devnum(buf, &dv) < 0)
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
		if (read_attrf(buf, sizeof(buf), "%s/%s/partition", dir, de->d_name) < 0)
			continue;
		if (read_attrf(buf, sizeof(buf), "%s/%s/dev", dir, de->d_name) < 0 ||
		    parse_devnum(buf, &dv) < 0)
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

	if (fmt(p, sizeof(p), "%s/class/nvme/%s", sys_root, ctrl) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (is_nvme_ns_name(de->d_name, NULL, NULL)) {
			r = target_devset_sysfs(sys_root, de->d_name, set);
		} else if (is_nvme_path_name(de->d_name, &s, NULL, &n)) {
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

static void add_reason(struct target_inuse *u, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void add_reason(struct target_inuse *u, const char *f, ...)
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
	if (parse_devnum(f[2], &m->dev) < 0)
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
			add_reason(u, "%s is mounted at %s", hit, m.mountpoint);
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
				add_reason(u, "%s is an active swap file", name);
			continue;
		}
		hit = source_in_set(name, set);
		if (hit) {
			add_reason(u, "%s is active swap", hit);
			continue;
		}
		if (stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
			hit = devset_find_dev(set, st.st_dev);
			if (hit)
				add_reason(u, "%s holds the active swap file %s", hit, name);
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
	if (depth > 16 || fmt(p, sizeof(p), "%s/class/block/%s/holders", sys_root, name) < 0)
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

		if (fmt(p, sizeof(p), "%s/class/block/%s/holders", sys_root, set->name[i]) < 0)
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
			if (read_attrf(dmname, sizeof(dmname), "%s/class/block/%s/dm/name",
				       sys_root, de->d_name) > 0)
				add_reason(u, "%s is held by %s (%s)%s", set->name[i], de->d_name,
					   dmname, chain);
			else
				add_reason(u, "%s is held by %s%s", set->name[i], de->d_name, chain);
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

	if (depth > 8 || fmt(p, sizeof(p), "%s/class/block/%s/slaves", sys_root, name) < 0)
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
		copy_str(src, sizeof(src), m.source);
	}
	if (!found)
		return 0;
	hit = devset_find_dev(set, root);
	if (!hit)
		hit = source_in_set(src, set);
	if (hit) {
		add_reason(u, "%s backs the root filesystem", hit);
		return 1;
	}
	/* root on dm / md: follow the slaves down */
	if (fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_root, major(root), minor(root)) < 0 ||
	    link_base(p, name, sizeof(name)) < 0)
		return 0;
	hit = slaves_hit(sys_root, name, set, 0);
	if (hit) {
		add_reason(u, "%s backs the root filesystem (through %s)", hit, name);
		return 1;
	}
	return 0;
}

bool target_serial_legacy(const char *want)
{
	unsigned a, b;
	unsigned long long ino, off;
	int n = 0;

	if (!want)
		return false;
	while (isspace((unsigned char)*want))
		want++;
	if (strncmp(want, "file:", 5) && strncmp(want, "loop:", 5))
		return false;
	if (sscanf(want + 5, "%u:%u:%llu%n", &a, &b, &ino, &n) != 3)
		return false;
	want += 5 + n;
	if (*want == '@' && sscanf(want + 1, "%llu%n", &off, &n) == 1)
		want += 1 + n;
	while (isspace((unsigned char)*want))
		want++;
	return *want == '\0';
}

/*
 * Every bound loop device: its number and what it is stacked on, as the
 * kernel holds it.  Reached through /dev/<name>, checked by st_rdev.
 */
struct loop_edge {
	dev_t dev;
	char name[TARGET_NAME_LEN];
	dev_t back_rdev; /* over a block device: its number; else 0 */
	dev_t back_dev;  /* over a file: st_dev and st_ino of the file */
	uint64_t back_ino;
};

struct loop_table {
	size_t n, cap;
	struct loop_edge *v;
};

static void loop_table_free(struct loop_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

static int loops_scan(const char *sys_root, struct loop_table *t, struct target_inuse *u)
{
	_cleanup_closedir_ DIR *d = NULL;
	char p[PATH_MAX], buf[64];
	struct dirent *de;

	if (fmt(p, sizeof(p), "%s/block", sys_root) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		_cleanup_close_ int fd = -1;
		struct loop_info64 li;
		struct loop_edge *e;
		struct stat st;
		dev_t dv;

		if (strncmp(de->d_name, "loop", 4) != 0 || !isdigit((unsigned char)de->d_name[4]))
			continue;
		/* unbound loop devices have no loop/ directory */
		if (fmt(p, sizeof(p), "%s/block/%s/loop", sys_root, de->d_name) < 0 ||
		    !path_exists(p))
			continue;
		if (read_attrf(buf, sizeof(buf), "%s/block/%s/dev", sys_root, de->d_name) < 0 ||
		    parse_devnum(buf, &dv) < 0 || fmt(p, sizeof(p), "/dev/%s", de->d_name) < 0) {
			add_reason(u, "cannot read what %s is stacked on (sysfs)", de->d_name);
			continue;
		}
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != dv) {
			add_reason(u, "cannot tell what %s is stacked on: %s is not it", de->d_name,
				   p);
			continue;
		}
		if (ioctl(fd, LOOP_GET_STATUS64, &li) < 0) {
			if (errno == ENXIO)
				continue; /* detached meanwhile */
			add_reason(u, "cannot tell what %s is stacked on: %s", de->d_name,
				   strerror(errno));
			continue;
		}
		if (t->n == t->cap) {
			size_t nc = t->cap ? t->cap * 2 : 16;
			struct loop_edge *nv = realloc(t->v, nc * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			t->v = nv;
			t->cap = nc;
		}
		e = &t->v[t->n++];
		memset(e, 0, sizeof(*e));
		e->dev = dv;
		copy_str(e->name, sizeof(e->name), de->d_name);
		e->back_rdev = (dev_t)li.lo_rdevice;
		if (!e->back_rdev) {
			e->back_dev = (dev_t)li.lo_device;
			e->back_ino = li.lo_inode;
		}
	}
	return 0;
}

static const struct loop_edge *loop_by_dev(const struct loop_table *t, dev_t d)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].dev == d)
			return &t->v[i];
	return NULL;
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

static int name_of_dev(const char *sys_root, dev_t d, char *name, size_t len)
{
	char p[PATH_MAX];
	int r = fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_root, major(d), minor(d));

	return r < 0 ? r : link_base(p, name, len);
}

/*
 * The target's reach: its device and partitions (or the file), and for a
 * loop device, down through what it is stacked on to the bottom.
 */
static int reach_build(const char *sys_root, const struct target_identity *id, bool whole_ctrl,
		       const struct loop_table *loops, struct reach *r)
{
	char name[TARGET_NAME_LEN];
	dev_t cur;
	int ret;

	memset(r, 0, sizeof(*r));
	if (id->kind == TARGET_FILE || (id->kind == TARGET_NVME && id->ino)) {
		r->files[r->nfiles++] = (struct file_node){ id->dev, id->ino };
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
		const struct loop_edge *e;

		if (depth > 14)
			return -ELOOP;
		ret = name_of_dev(sys_root, cur, name, sizeof(name));
		if (ret == 0)
			ret = target_devset_sysfs(sys_root, name, &r->set);
		if (ret < 0)
			return ret;
		if (depth == 0 && whole_ctrl && id->kind == TARGET_NVME && id->ctrl[0]) {
			ret = target_devset_add_ctrl(sys_root, id->ctrl, &r->set);
			if (ret < 0)
				return ret;
		}
		e = loop_by_dev(loops, cur);
		if (!e)
			return 0;
		r->own[r->nown++] = cur;
		if (!e->back_rdev) {
			if (r->nfiles < FILES_MAX)
				r->files[r->nfiles++] = (struct file_node){ e->back_dev, e->back_ino };
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
static void loop_top_use(const char *sys_root, const struct loop_table *loops,
			 const struct loop_edge *e, int depth, char *out, size_t len)
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
		copy_str(out, len, tu.reason[0]);
		return;
	}
	for (size_t i = 0; i < loops->n; i++) {
		const struct loop_edge *up = &loops->v[i];

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
			const struct loop_table *loops, const struct reach *r,
			struct target_inuse *u)
{
	for (size_t i = 0; i < loops->n; i++) {
		const struct loop_edge *e = &loops->v[i];
		char top[TARGET_REASON_LEN], what[TARGET_NAME_LEN + 32];
		const char *hit = NULL;

		if (reach_own(r, e->dev))
			continue;
		if (e->back_rdev) {
			hit = devset_find_dev(&r->set, e->back_rdev);
			if (!hit)
				continue;
			copy_str(what, sizeof(what), hit);
		} else if (reach_file(r, e->back_dev, e->back_ino)) {
			if (id->kind == TARGET_FILE)
				copy_str(what, sizeof(what), "the file");
			else
				snprintf(what, sizeof(what), "%.31s's backing file", id->name);
		} else {
			continue;
		}
		loop_top_use(sys_root, loops, e, 0, top, sizeof(top));
		if (top[0])
			add_reason(u, "%s backs %s (%s)", what, e->name, top);
		else
			add_reason(u, "%s backs %s", what, e->name);
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
			add_reason(u, "%s (mount namespace of pid %.20s)", tu.reason[i],
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
		struct target_devset fs = { .is_file = true,
					    .file_dev = r->files[i].dev,
					    .file_ino = r->files[i].ino };

		rewind(sw);
		ret = target_inuse_swaps(sw, &fs, u);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int target_inuse(const struct target_identity *id, bool whole_ctrl, struct target_inuse *u)
{
	struct loop_table loops = { 0 };
	struct reach *r;
	int ret;

	memset(u, 0, sizeof(*u));
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = loops_scan(sys_default, &loops, u);
	if (ret == 0)
		ret = reach_build(sys_default, id, whole_ctrl, &loops, r);
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
		ret = target_inuse_root(mi, sys_default, &r->set, u);
		if (ret < 0)
			goto out;
		ret = target_inuse_holders(sys_default, &r->set, u);
		if (ret < 0)
			goto out;
	}
	ret = inuse_swaps(r, u);
	if (ret < 0)
		goto out;
	inuse_loops(sys_default, id, &loops, r, u);
	ret = (int)u->count;
out:
	loop_table_free(&loops);
	free(r);
	return ret;
}

int target_open(const char *path, bool writable, int *ret_fd)
{
	struct stat st;
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	int fd;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		/* O_EXCL without O_CREAT on a block device: an exclusive claim */
		flags |= O_DIRECT | O_EXCL;
	else if (S_ISREG(st.st_mode))
		flags |= O_DIRECT;
	else if (!S_ISCHR(st.st_mode))
		return -EINVAL;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct target_entry *x = a, *y = b;

	return strverscmp(x->id.name, y->id.name);
}

static int list_add(struct target_entry **v, size_t *n, size_t *cap, const char *path,
		    const char *name)
{
	struct target_entry *e;
	int r;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct target_entry *nv = realloc(*v, nc * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	e = &(*v)[*n];
	memset(e, 0, sizeof(*e));
	copy_str(e->id.path, sizeof(e->id.path), path);
	copy_str(e->id.name, sizeof(e->id.name), name);
	r = target_identify(path, &e->id, e->msg, sizeof(e->msg));
	if (r < 0) {
		struct stat st;

		e->err = r;
		/* keep path and name for the listing */
		memset(&e->id, 0, sizeof(e->id));
		copy_str(e->id.path, sizeof(e->id.path), path);
		copy_str(e->id.name, sizeof(e->id.name), name);
		/* the in-use checks need no open: still say why it is busy */
		if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
			e->id.kind = TARGET_BLOCK;
			copy_str(e->id.block_path, sizeof(e->id.block_path), path);
			(void)target_inuse(&e->id, false, &e->inuse);
			e->id.kind = TARGET_UNKNOWN;
		}
	} else {
		r = target_inuse(&e->id, false, &e->inuse);
		if (r < 0) {
			e->err = r;
			snprintf(e->msg, sizeof(e->msg), "%s: in-use check failed: %s", path,
				 strerror(-r));
		}
	}
	(*n)++;
	return 0;
}

int target_list_sysfs(const char *sys_root, const char *dev_root, struct target_entry **ret,
		      size_t *ret_n)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ struct target_entry *v = NULL;
	size_t n = 0, cap = 0, nblock;
	char p[PATH_MAX], buf[64];
	struct dirent *de;
	int r;

	if (fmt(p, sizeof(p), "%s/block", sys_root) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;

		if (nm[0] == '.' || strncmp(nm, "ram", 3) == 0 || strncmp(nm, "zram", 4) == 0 ||
		    is_nvme_path_name(nm, NULL, NULL, NULL))
			continue;
		if (read_attrf(buf, sizeof(buf), "%s/block/%s/size", sys_root, nm) <= 0 ||
		    strtoull(buf, NULL, 10) == 0)
			continue;
		if (fmt(p, sizeof(p), "%s/%s", dev_root, nm) < 0 || !path_exists(p))
			continue;
		r = list_add(&v, &n, &cap, p, nm);
		if (r < 0)
			return r;
	}
	nblock = n;
	closedir(TAKE_PTR(d));

	/* NVMe namespaces with only a generic char device (no block device) */
	if (fmt(p, sizeof(p), "%s/class/nvme-generic", sys_root) == 0)
		d = opendir(p);
	while (d && (de = readdir(d))) {
		bool dup = false;
		struct target_entry *e;

		if (!is_ng_name(de->d_name) ||
		    fmt(p, sizeof(p), "%s/%s", dev_root, de->d_name) < 0 || !path_exists(p))
			continue;
		r = list_add(&v, &n, &cap, p, de->d_name);
		if (r < 0)
			return r;
		e = &v[n - 1];
		for (size_t i = 0; i < nblock && e->err == 0 && e->id.block_path[0]; i++)
			if (strcmp(v[i].id.path, e->id.block_path) == 0)
				dup = true;
		if (dup)
			n--;
	}
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

int target_list(struct target_entry **ret, size_t *ret_n)
{
	return target_list_sysfs(sys_default, "/dev", ret, ret_n);
}

int target_storage_keys(const struct target_identity *id, char keys[][TARGET_KEY_LEN],
			char labels[][TARGET_NAME_LEN], size_t max)
{
	struct loop_table loops = { 0 };
	struct target_inuse u;
	size_t n = 0;
	dev_t cur;
	int ret = 0;

	if (id->kind == TARGET_FILE || (id->kind == TARGET_NVME && id->ino)) {
		if (max < 1)
			return -E2BIG;
		snprintf(keys[0], TARGET_KEY_LEN, "file-%u-%u-%llu", major(id->dev), minor(id->dev),
			 (unsigned long long)id->ino);
		copy_str(labels[0], TARGET_NAME_LEN, "the file");
		return 1;
	}
	memset(&u, 0, sizeof(u));
	ret = loops_scan(sys_default, &loops, &u);
	if (ret < 0)
		goto out;
	cur = id->dev;
	for (;;) {
		const struct loop_edge *e;

		if (n >= max) {
			ret = -E2BIG;
			goto out;
		}
		snprintf(keys[n], TARGET_KEY_LEN, "block-%u-%u", major(cur), minor(cur));
		if (name_of_dev(sys_default, cur, labels[n], TARGET_NAME_LEN) < 0)
			snprintf(labels[n], TARGET_NAME_LEN, "block %u:%u", major(cur), minor(cur));
		n++;
		e = loop_by_dev(&loops, cur);
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
	loop_table_free(&loops);
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
static int disks_of(const struct loop_table *loops, dev_t d, struct disk_set *s, int depth)
{
	_cleanup_closedir_ DIR *dir = NULL;
	char p[PATH_MAX], buf[64];
	const struct loop_edge *e;
	struct dirent *de;
	bool any = false;
	dev_t sd;

	if (depth > 16)
		return -ELOOP;
	e = loop_by_dev(loops, d);
	if (e)
		return disks_of(loops, e->back_rdev ? e->back_rdev : e->back_dev, s, depth + 1);
	if (fmt(p, sizeof(p), "%s/dev/block/%u:%u", sys_default, major(d), minor(d)) < 0)
		return -ENAMETOOLONG;
	if (!path_exists(p)) {
		disk_add(s, d);
		return 0;
	}
	/* a partition: its disk is the directory above */
	if (read_attrf(buf, sizeof(buf), "%s/partition", p) > 0 &&
	    read_attrf(buf, sizeof(buf), "%s/../dev", p) > 0 && !parse_devnum(buf, &sd))
		return disks_of(loops, sd, s, depth + 1);
	if (fmt(p, sizeof(p), "%s/dev/block/%u:%u/slaves", sys_default, major(d), minor(d)) < 0)
		return -ENAMETOOLONG;
	dir = opendir(p);
	while (dir && (de = readdir(dir))) {
		int r;

		if (de->d_name[0] == '.')
			continue;
		if (read_attrf(buf, sizeof(buf), "%s/%s/dev", p, de->d_name) <= 0 ||
		    parse_devnum(buf, &sd) < 0)
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
	struct loop_table loops = { 0 };
	struct disk_set a = { 0 }, b = { 0 };
	struct target_inuse u = { 0 };
	char name[TARGET_NAME_LEN], fsname[TARGET_NAME_LEN];
	int ret;

	if (!id->dev)
		return -ENODEV;
	ret = loops_scan(sys_default, &loops, &u);
	if (ret >= 0)
		ret = disks_of(&loops, id->dev, &a, 0);
	if (ret >= 0)
		ret = disks_of(&loops, fs_dev, &b, 0);
	loop_table_free(&loops);
	if (ret < 0)
		return ret;
	if (name_of_dev(sys_default, fs_dev, fsname, sizeof(fsname)) < 0)
		snprintf(fsname, sizeof(fsname), "%u:%u", major(fs_dev), minor(fs_dev));
	for (size_t i = 0; i < a.n; i++)
		for (size_t k = 0; k < b.n; k++) {
			if (a.v[i] != b.v[k])
				continue;
			if (name_of_dev(sys_default, a.v[i], name, sizeof(name)) < 0)
				snprintf(name, sizeof(name), "the file system %u:%u",
					 major(a.v[i]), minor(a.v[i]));
			snprintf(why, len, "%s (on %s) and the target share %s", "the database",
				 fsname, name);
			return 1;
		}
	return 0;
}
