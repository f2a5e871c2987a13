// SPDX-License-Identifier: MIT
/*
 * erase: block devices and files (secure discard, discard, zero, punch)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "erase-int.h"
#include "msg.h"

/* ---- block devices and files ---- */

static int write_zeros(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a,
		       uint64_t t0)
{
	uint64_t total = c->id->capacity_bytes, off = 0;
	_cleanup_free_ void *buf = NULL;
	int r;

	if (posix_memalign(&buf, 4096, ZERO_BUF_BYTES))
		return -ENOMEM;
	memset(buf, 0, ZERO_BUF_BYTES);
	while (off < total) {
		size_t len = total - off < ZERO_BUF_BYTES ? (size_t)(total - off) : ZERO_BUF_BYTES;
		ssize_t w;

		if (stop_requested(c) || deadline_passed(c)) {
			r = stop_requested(c) ? -ECANCELED : -ETIMEDOUT;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s after %llu of %llu bytes zeroed",
				r == -ECANCELED ? "stopped" : "deadline", (unsigned long long)off,
				(unsigned long long)total);
			return r;
		}
		if (len % c->id->lba_bytes) {
			/* a file's unaligned tail: O_DIRECT cannot write it */
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
				return -errno;
			w = pwrite(fd, buf, len, (off_t)off);
			r = errno;
			(void)fcntl(fd, F_SETFL, fl);
			errno = r;
		} else {
			w = pwrite(fd, buf, len, (off_t)off);
		}
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "writing zeros at %llu: %s",
				(unsigned long long)off, strerror(-r));
			return r;
		}
		if (w == 0) {
			a->err = -EIO;
			msg_set(a->msg, sizeof(a->msg), "writing zeros at %llu: no progress",
				(unsigned long long)off);
			return -EIO;
		}
		off += (uint64_t)w;
		erase_report(c, m, ERASE_PHASE_RUNNING, (double)off / (double)total,
			     NVMEX_TIME_NOT_REPORTED, t0, off, total, false);
	}
	if (fdatasync(fd) < 0) {
		r = -errno;
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "fdatasync after zeroing: %s", strerror(-r));
		return r;
	}
	msg_set(a->msg, sizeof(a->msg), "wrote zeros over %llu bytes", (unsigned long long)total);
	return 0;
}

static const char *blk_op_name(enum erase_method m)
{
	switch (m) {
	case ERASE_SECURE_DISCARD:
		return "BLKSECDISCARD";
	case ERASE_DISCARD:
		return "BLKDISCARD";
	case ERASE_ZERO:
		return "BLKZEROOUT";
	default:
		return "fallocate(PUNCH_HOLE)";
	}
}

int erase_ranges(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a)
{
	uint64_t total = c->id->capacity_bytes, off = 0, t0 = (uint64_t)clock_mono_ns();
	uint64_t chunk = c->chunk_bytes;
	bool file = c->id->kind == TARGET_FILE;
	int r;

	if (m == ERASE_ZERO && file) {
		a->sent = true;
		return write_zeros(c, fd, m, a, t0);
	}
	/* keep chunks a multiple of the block size */
	chunk -= chunk % (c->id->lba_bytes ? c->id->lba_bytes : 512);
	if (!chunk)
		chunk = DEFAULT_CHUNK_BYTES;
	while (off < total) {
		uint64_t len = total - off < chunk ? total - off : chunk;
		uint64_t range[2] = {off, len};

		if (stop_requested(c) || deadline_passed(c)) {
			r = stop_requested(c) ? -ECANCELED : -ETIMEDOUT;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s after %llu of %llu bytes (%s)",
				r == -ECANCELED ? "stopped" : "deadline", (unsigned long long)off,
				(unsigned long long)total, blk_op_name(m));
			return r;
		}
		a->sent = true;
		if (m == ERASE_PUNCH)
			r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				      (off_t)len);
		else
			r = ioctl(fd,
				  m == ERASE_SECURE_DISCARD ? BLKSECDISCARD
				  : m == ERASE_DISCARD	    ? BLKDISCARD
							    : BLKZEROOUT,
				  range);
		if (r < 0) {
			r = -errno;
			if (r == -EINTR)
				continue;
			if (m == ERASE_ZERO && off == 0 && (r == -EOPNOTSUPP || r == -ENOTTY))
				/* no write-zeroes path: write them */
				return write_zeros(c, fd, m, a, t0);
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s on %s at %llu: %s", blk_op_name(m),
				c->id->path, (unsigned long long)off, strerror(-r));
			return r;
		}
		off += len;
		erase_report(c, m, ERASE_PHASE_RUNNING, (double)off / (double)total,
			     NVMEX_TIME_NOT_REPORTED, t0, off, total, false);
	}
	if (file && fsync(fd) < 0) {
		r = -errno;
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "fsync after punching holes: %s", strerror(-r));
		return r;
	}
	msg_set(a->msg, sizeof(a->msg), "%s over %llu bytes", blk_op_name(m),
		(unsigned long long)total);
	return 0;
}
