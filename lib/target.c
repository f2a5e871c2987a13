// SPDX-License-Identifier: MIT
/*
 * target: identity of drives and files, opening them, and the list of
 * drives.  See target.h for the serial conventions of loop devices and files.
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
#include "nvmex.h"
#include "target-int.h"

static bool is_ctrl_name(const char *s)
{
	unsigned x;
	int n = 0;

	return sscanf(s, "nvme%u%n", &x, &n) == 1 && s[n] == '\0' && isdigit((unsigned char)s[4]);
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
	if (target_fmt(p, sizeof(p), "%s/device", sysdir) == 0 &&
	    target_link_base(p, base, sizeof(base)) == 0 && is_ctrl_name(base)) {
		target_copy_str(ctrl, len, base);
		return;
	}
	/* a multipath head hangs off the subsystem: take its first path */
	if (target_fmt(p, sizeof(p), "%s/multipath", sysdir) < 0)
		return;
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (target_is_nvme_path_name(de->d_name, NULL, &c, NULL)) {
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
	if (!ctrl[0] || target_fmt(p, sizeof(p), "%s/class/nvme/%s", sys_root, ctrl) < 0)
		return;
	d = opendir(p);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (target_is_nvme_ns_name(de->d_name, NULL, &n) && n == nsid) {
			if (target_fmt(out, len, "/dev/%s", de->d_name) < 0)
				out[0] = '\0';
			return;
		}
		if (target_is_nvme_path_name(de->d_name, &s, NULL, &n) && n == nsid) {
			if (target_fmt(out, len, "/dev/nvme%un%u", s, n) < 0)
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
	target_copy_str(id->serial, sizeof(id->serial), c.serial);
	target_copy_str(id->model, sizeof(id->model), c.model);
	target_copy_str(id->firmware, sizeof(id->firmware), c.firmware);
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
		target_copy_str(id->block_path, sizeof(id->block_path), id->path);
	} else if (S_ISREG(st->st_mode)) {
		/* an ioctl mock behind a plain file: I/O goes to the file */
		id->dev = st->st_dev;
		id->ino = st->st_ino;
		target_copy_str(id->block_path, sizeof(id->block_path), id->path);
	}
	if (sysdir) {
		nvme_ctrl_of(sysdir, id->ctrl, sizeof(id->ctrl));
		if (S_ISCHR(st->st_mode)) {
			nvme_block_of(TARGET_SYS_ROOT, id->ctrl, nsid, id->block_path,
				      sizeof(id->block_path));
			if (id->block_path[0] && !target_path_exists(id->block_path))
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
		r = target_fmt(buf, len, ":%lld.%09u", (long long)sx.stx_btime.tv_sec,
			       sx.stx_btime.tv_nsec);
		if (r < 0)
			return r;
	}
	if (have_gen) {
		size_t n = strlen(buf);

		r = target_fmt(buf + n, len - n, ":g%u", gen);
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
		    target_fmt(p, sizeof(p), "%s/dev/block/%u:%u", TARGET_SYS_ROOT,
			       major((dev_t)li.lo_rdevice), minor((dev_t)li.lo_rdevice)) < 0 ||
		    target_link_base(p, name, sizeof(name)) < 0 ||
		    target_fmt(p, sizeof(p), "/dev/%s", name) < 0)
			return;
		bfd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (bfd < 0 || fstat(bfd, &bst) < 0 || !S_ISBLK(bst.st_mode) ||
		    bst.st_rdev != (dev_t)li.lo_rdevice)
			return;
		memset(&inner, 0, sizeof(inner));
		target_copy_str(inner.path, sizeof(inner.path), p);
		if (strncmp(name, "loop", 4) == 0) {
			if (target_fmt(p, sizeof(p), "%s/class/block/%s", TARGET_SYS_ROOT, name) <
			    0)
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
	snprintf(id->serial, sizeof(id->serial), "loop:%u:%u:%llu%s", major((dev_t)li.lo_device),
		 minor((dev_t)li.lo_device), (unsigned long long)li.lo_inode, off);
	if (target_read_attrf(backing, sizeof(backing), "%s/loop/backing_file", sysdir) <= 0)
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

	if (target_fmt(p, sizeof(p), "%s/device/vpd_pg80", sysdir) < 0)
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
	target_strip(out);
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
	target_copy_str(id->block_path, sizeof(id->block_path), id->path);
	if (ioctl(fd, BLKGETSIZE64, &size) < 0 || ioctl(fd, BLKSSZGET, &ssz) < 0) {
		int r = -errno;

		msg_set(msg, msg_len, "%s: cannot read size: %s", id->path, strerror(-r));
		return r;
	}
	id->capacity_bytes = size;
	id->lba_bytes = ssz > 0 ? (uint32_t)ssz : 512;

	if (target_read_attrf(buf, sizeof(buf), "%s/device/model", sysdir) > 0)
		target_copy_str(id->model, sizeof(id->model), buf);
	if (target_read_attrf(buf, sizeof(buf), "%s/device/rev", sysdir) > 0 ||
	    target_read_attrf(buf, sizeof(buf), "%s/device/firmware_rev", sysdir) > 0)
		target_copy_str(id->firmware, sizeof(id->firmware), buf);
	if (target_read_attrf(buf, sizeof(buf), "%s/queue/discard_max_bytes", sysdir) > 0)
		id->discard = strtoull(buf, NULL, 10) > 0;
	if (target_read_attrf(buf, sizeof(buf), "%s/queue/rotational", sysdir) > 0)
		id->rotational = buf[0] == '1';

	if (strncmp(sysname, "loop", 4) == 0) {
		target_copy_str(id->model, sizeof(id->model), "Linux loop device");
		loop_serial(fd, sysdir, id, 0);
		return 0;
	}

	if (target_read_attrf(buf, sizeof(buf), "%s/device/serial", sysdir) > 0 ||
	    target_read_attrf(buf, sizeof(buf), "%s/serial", sysdir) > 0 ||
	    read_vpd80(sysdir, buf, sizeof(buf)) == 0)
		target_copy_str(id->serial, sizeof(id->serial), buf);
	if (target_read_attrf(buf, sizeof(buf), "%s/device/wwid", sysdir) > 0 ||
	    target_read_attrf(buf, sizeof(buf), "%s/wwid", sysdir) > 0) {
		char hex[64];
		int n;

		if (!id->serial[0])
			target_copy_str(id->serial, sizeof(id->serial), buf);
		n = target_hex_id(buf, hex, sizeof(hex));
		if (strncasecmp(buf, "naa.", 4) == 0 && n > 0)
			target_copy_str(id->wwn, sizeof(id->wwn), hex);
		else if (strncasecmp(buf, "eui.", 4) == 0 && n == 16)
			target_copy_str(id->eui64, sizeof(id->eui64), hex);
		else if (strncasecmp(buf, "eui.", 4) == 0 && n == 32)
			target_copy_str(id->nguid, sizeof(id->nguid), hex);
	}
	return 0;
}

static int identify_file(int fd, const struct stat *st, struct target_identity *id)
{
	const char *b = strrchr(id->path, '/');
	char stamp[48] = "";

	id->kind = TARGET_FILE;
	target_copy_str(id->name, sizeof(id->name), b ? b + 1 : id->path);
	target_copy_str(id->model, sizeof(id->model), "regular file");
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
	target_copy_str(t.path, sizeof(t.path), path);
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

			target_copy_str(t.name, sizeof(t.name), b ? b + 1 : path);
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
		r = target_fmt(sysdir, sizeof(sysdir), "%s/dev/%s/%u:%u", TARGET_SYS_ROOT,
			       blk ? "block" : "char", major(st.st_rdev), minor(st.st_rdev));
		if (r == 0)
			r = target_link_base(sysdir, t.name, sizeof(t.name));
		if (r < 0) {
			msg_set(msg, msg_len, "%s: not found in sysfs: %s", path, strerror(-r));
			return r;
		}
		if (target_fmt(p, sizeof(p), "%s/partition", sysdir) == 0 &&
		    target_path_exists(p)) {
			msg_set(msg, msg_len, "%s: %s is a partition; plateau takes whole drives",
				path, t.name);
			return -EINVAL;
		}
		if (!blk && !target_is_ng_name(t.name)) {
			msg_set(msg, msg_len, "%s: character device %s is not an NVMe namespace",
				path, t.name);
			return -ENOTBLK;
		}
		if (!blk || kind == TARGET_NVME ||
		    (kind == TARGET_UNKNOWN && target_is_nvme_ns_name(t.name, NULL, NULL)))
			r = identify_nvme(fd, &st, sysdir, &t, msg, msg_len);
		else
			r = identify_block(fd, &st, sysdir, t.name, &t, msg, msg_len);
	} else {
		msg_set(msg, msg_len, "%s: not a drive or regular file", path);
		return -EINVAL;
	}
	if (r < 0)
		return r;
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
	target_copy_str(w, sizeof(w), want);
	target_strip(w);
	if (!w[0])
		return TARGET_MATCH_NONE;
	target_copy_str(s, sizeof(s), id->serial);
	target_strip(s);
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
	target_copy_str(e->id.path, sizeof(e->id.path), path);
	target_copy_str(e->id.name, sizeof(e->id.name), name);
	r = target_identify(path, &e->id, e->msg, sizeof(e->msg));
	if (r < 0) {
		struct stat st;

		e->err = r;
		/* keep path and name for the listing */
		memset(&e->id, 0, sizeof(e->id));
		target_copy_str(e->id.path, sizeof(e->id.path), path);
		target_copy_str(e->id.name, sizeof(e->id.name), name);
		/* the in-use checks need no open: still say why it is busy */
		if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
			e->id.kind = TARGET_BLOCK;
			target_copy_str(e->id.block_path, sizeof(e->id.block_path), path);
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

int target_list(struct target_entry **ret, size_t *ret_n)
{
	const char *sys_root = TARGET_SYS_ROOT, *dev_root = "/dev";
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ struct target_entry *v = NULL;
	size_t n = 0, cap = 0, nblock;
	char p[PATH_MAX], buf[64];
	struct dirent *de;
	int r;

	if (target_fmt(p, sizeof(p), "%s/block", sys_root) < 0)
		return -ENAMETOOLONG;
	d = opendir(p);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;

		if (nm[0] == '.' || strncmp(nm, "ram", 3) == 0 || strncmp(nm, "zram", 4) == 0 ||
		    target_is_nvme_path_name(nm, NULL, NULL, NULL))
			continue;
		if (target_read_attrf(buf, sizeof(buf), "%s/block/%s/size", sys_root, nm) <= 0 ||
		    strtoull(buf, NULL, 10) == 0)
			continue;
		if (target_fmt(p, sizeof(p), "%s/%s", dev_root, nm) < 0 || !target_path_exists(p))
			continue;
		r = list_add(&v, &n, &cap, p, nm);
		if (r < 0)
			return r;
	}
	nblock = n;
	closedir(TAKE_PTR(d));

	/* NVMe namespaces with only a generic char device (no block device) */
	if (target_fmt(p, sizeof(p), "%s/class/nvme-generic", sys_root) == 0)
		d = opendir(p);
	while (d && (de = readdir(d))) {
		bool dup = false;
		struct target_entry *e;

		if (!target_is_ng_name(de->d_name) ||
		    target_fmt(p, sizeof(p), "%s/%s", dev_root, de->d_name) < 0 ||
		    !target_path_exists(p))
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
