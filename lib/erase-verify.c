// SPDX-License-Identifier: MIT
/*
 * erase: reading back sampled ranges after an erase
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

/* ---- verify ---- */

uint8_t erase_expected_pattern(const struct target_identity *id, enum erase_method m)
{
	/* DLFEAT bits 2:0 = 010b: deallocated blocks read as FFh (NVMe 1.4 Figure 245) */
	if (id->kind == TARGET_NVME && (is_sanitize(m) || is_format(m)) &&
	    (id->dlfeat & NVMEX_DLFEAT_READ_MASK) == NVMEX_DLFEAT_READ_ONES)
		return 0xff;
	return 0x00;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int classify(const uint8_t *b, size_t n)
{
	bool zero = true, ones = true;

	for (size_t i = 0; i < n && (zero || ones); i++) {
		zero &= b[i] == 0x00;
		ones &= b[i] == 0xff;
	}
	return zero ? 0 : ones ? 1 : 2;
}

int erase_verify(int fd, const struct target_identity *id, uint8_t expect,
		 const struct erase_opts *o, struct erase_verify *v)
{
	uint64_t cap = id->capacity_bytes, t0 = (uint64_t)clock_mono_ns(), seed, span;
	uint32_t align = id->lba_bytes ? id->lba_bytes : 512;
	uint64_t range = o->verify_range_bytes ? o->verify_range_bytes : DEFAULT_VERIFY_RANGE_BYTES;
	unsigned samples = o->verify_samples ? o->verify_samples : DEFAULT_VERIFY_SAMPLES;
	unsigned total_ranges;
	_cleanup_free_ uint8_t *buf = NULL;
	struct ctx c = {.id = id, .o = o};

	memset(v, 0, sizeof(*v));
	v->expect = expect;
	v->first_bad_offset = UINT64_MAX;
	if (align < 512)
		align = 512;
	if (range > cap)
		range = cap;
	range -= range % align;
	if (range == 0) {
		/* smaller than one block: read what there is without O_DIRECT alignment */
		range = cap;
	}
	if (posix_memalign((void **)&buf, 4096, range ? range + align : align))
		return -ENOMEM;
	seed = o->verify_seed ? o->verify_seed
			      : ((uint64_t)clock_mono_ns() ^ ((uint64_t)getpid() << 32));
	if (!seed)
		seed = 0x9E3779B97F4A7C15ull;
	span = cap > range ? (cap - range) / align : 0;
	/* first and last range, then the random ones; one range covers a tiny target */
	total_ranges = cap == 0 ? 0 : cap > range ? 2 + samples : 1;

	for (unsigned i = 0; i < total_ranges; i++) {
		uint64_t off;
		size_t got = 0;

		if (i == 0)
			off = 0;
		else if (i == 1 && cap > range)
			off = ((cap - range) / align) * align; /* the last range */
		else
			off = span ? (xorshift(&seed) % (span + 1)) * align : 0;
		if (o->should_stop && o->should_stop(o->userdata))
			return -ECANCELED;
		while (got < range) {
			ssize_t n = pread(fd, buf + got, range - got, (off_t)(off + got));

			if (n < 0 && errno == EINVAL &&
			    ((range - got) % align || (off + got) % align)) {
				/* a file's unaligned tail: O_DIRECT cannot read it */
				int fl = fcntl(fd, F_GETFL), saved;

				if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
					return -errno;
				n = pread(fd, buf + got, range - got, (off_t)(off + got));
				saved = errno;
				(void)fcntl(fd, F_SETFL, fl);
				errno = saved;
			}
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0)
				break; /* end of a file */
			got += (size_t)n;
		}
		v->ranges++;
		v->bytes_read += got;
		switch (classify(buf, got)) {
		case 0:
			v->ranges_zero++;
			break;
		case 1:
			v->ranges_ones++;
			break;
		default:
			v->ranges_other++;
			break;
		}
		if (classify(buf, got) != (expect == 0xff ? 1 : 0) &&
		    v->first_bad_offset == UINT64_MAX)
			v->first_bad_offset = off;
		erase_report(&c, ERASE_NONE, ERASE_PHASE_VERIFY, (double)(i + 1) / total_ranges,
			     NVMEX_TIME_NOT_REPORTED, t0, v->bytes_read, 0, false);
	}
	v->done = true;
	v->passed = v->first_bad_offset == UINT64_MAX;
	return 0;
}
