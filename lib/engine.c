// SPDX-License-Identifier: MIT
/* engine: checking a job, building the engine, the target probe */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <linux/fs.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "engine-int.h"
#include "msg.h"

/* aligned_alloc() wants the size to be a multiple of the alignment */
static void *alloc_aligned(size_t size)
{
	return aligned_alloc(CACHELINE, (size + CACHELINE - 1) & ~(size_t)(CACHELINE - 1));
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

const char *engine_stop_reason_name(enum engine_stop_reason r)
{
	static const char *const names[] = {
		[ENGINE_STOP_NONE] = "none",	   [ENGINE_STOP_DURATION] = "duration",
		[ENGINE_STOP_BYTES] = "bytes",	   [ENGINE_STOP_DONE] = "done",
		[ENGINE_STOP_REQUEST] = "request", [ENGINE_STOP_CALLBACK] = "callback",
		[ENGINE_STOP_ERROR] = "error",
	};

	return (unsigned int)r < ARRAY_SIZE(names) ? names[r] : "?";
}

int engine_target_probe_fd(int fd, struct engine_target *ret)
{
	struct engine_target t = {0};
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		int lba;

		if (ioctl(fd, BLKGETSIZE64, &t.size_bytes) || ioctl(fd, BLKSSZGET, &lba))
			return -errno;
		if (lba <= 0)
			return -EIO;
		t.lba_bytes = (uint32_t)lba;
		t.block_device = true;
	} else if (S_ISREG(st.st_mode)) {
		t.size_bytes = (uint64_t)st.st_size;
		t.lba_bytes = 4096;
#ifdef STATX_DIOALIGN
		struct statx sx;

		if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) &&
		    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align &&
		    !(sx.stx_dio_offset_align & (sx.stx_dio_offset_align - 1)))
			t.lba_bytes = sx.stx_dio_offset_align;
#endif
	} else {
		return -EINVAL;
	}
	*ret = t;
	return 0;
}

int engine_target_probe(const char *path, struct engine_target *ret)
{
	_cleanup_close_ int fd = -1;

	if (!path || !*path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	return engine_target_probe_fd(fd, ret);
}

int engine_footprint(uint64_t target_bytes, uint32_t lba_bytes, uint64_t offset_bytes,
		     uint64_t size_bytes, double size_pct, uint64_t *ret_len, char *err,
		     size_t errlen)
{
	uint64_t len;

	if (!lba_bytes || (lba_bytes & (lba_bytes - 1))) {
		msg_set(err, errlen, "logical block size %u is not a power of two", lba_bytes);
		return -EINVAL;
	}
	if (offset_bytes % lba_bytes) {
		msg_set(err, errlen, "offset %llu is not a multiple of the logical block size (%u)",
			(unsigned long long)offset_bytes, lba_bytes);
		return -EINVAL;
	}
	if (offset_bytes >= target_bytes) {
		msg_set(err, errlen, "offset %llu is at or past the end of the target (%llu bytes)",
			(unsigned long long)offset_bytes, (unsigned long long)target_bytes);
		return -EINVAL;
	}
	if (size_pct != 0.0) {
		if (!(size_pct > 0.0 && size_pct <= 100.0)) {
			msg_set(err, errlen, "size %g%% is not a percentage in (0, 100]", size_pct);
			return -EINVAL;
		}
		len = (uint64_t)((double)(target_bytes - offset_bytes) * (size_pct / 100.0));
		if (len > target_bytes - offset_bytes)
			len = target_bytes - offset_bytes;
		len -= len % lba_bytes;
	} else if (size_bytes == 0) {
		len = target_bytes - offset_bytes;
		len -= len % lba_bytes;
	} else {
		if (size_bytes % lba_bytes) {
			msg_set(err, errlen,
				"size %llu is not a multiple of the logical block size (%u)",
				(unsigned long long)size_bytes, lba_bytes);
			return -EINVAL;
		}
		if (size_bytes > target_bytes - offset_bytes) {
			msg_set(err, errlen,
				"footprint past the end: offset %llu + size %llu = %llu > target "
				"size "
				"%llu bytes",
				(unsigned long long)offset_bytes, (unsigned long long)size_bytes,
				(unsigned long long)(offset_bytes + size_bytes),
				(unsigned long long)target_bytes);
			return -EINVAL;
		}
		len = size_bytes;
	}
	if (len < lba_bytes) {
		msg_set(err, errlen,
			"footprint of %llu bytes is smaller than one logical block (%u)",
			(unsigned long long)len, lba_bytes);
		return -EINVAL;
	}
	*ret_len = len;
	return 0;
}

/* ---- construction ----------------------------------------------------- */

static int validate_job(const struct engine_job *job, char *err, size_t errlen)
{
	if (!job->path || !*job->path) {
		msg_set(err, errlen, "no target given; expected a block device or a regular file");
		return -EINVAL;
	}
	if (job->threads < 1 || job->threads > ENGINE_THREADS_MAX) {
		msg_set(err, errlen, "threads %u: expected 1 to %d", job->threads,
			ENGINE_THREADS_MAX);
		return -EINVAL;
	}
	if (job->iodepth < 1 || job->iodepth > ENGINE_DEPTH_MAX) {
		msg_set(err, errlen, "iodepth %u: expected 1 to %d", job->iodepth,
			ENGINE_DEPTH_MAX);
		return -EINVAL;
	}
	if (job->interval_ns && job->interval_ns < ENGINE_INTERVAL_MIN_NS) {
		msg_set(err, errlen, "interval %llu ms: expected at least %llu ms",
			(unsigned long long)(job->interval_ns / 1000000),
			ENGINE_INTERVAL_MIN_NS / 1000000);
		return -EINVAL;
	}
	if (job->io_timeout_ns && job->io_timeout_ns < ENGINE_IO_TIMEOUT_MIN_NS) {
		msg_set(err, errlen, "io_timeout %llu ms: expected at least %llu ms",
			(unsigned long long)(job->io_timeout_ns / 1000000),
			ENGINE_IO_TIMEOUT_MIN_NS / 1000000);
		return -EINVAL;
	}
	if (job->on_error != ENGINE_ERROR_STOP && job->on_error != ENGINE_ERROR_CONTINUE) {
		msg_set(err, errlen, "on_error %d: expected stop or continue", (int)job->on_error);
		return -EINVAL;
	}
	if (job->duration_ns > UINT64_MAX / 4 || job->ramp_ns > UINT64_MAX / 4) {
		msg_set(err, errlen, "duration or ramp too long");
		return -EINVAL;
	}
	return profile_validate(&job->profile, err, errlen);
}

static const char *open_hint(int err)
{
	switch (err) {
	case EBUSY:
		return " (in use: mounted, part of a RAID/LVM, or opened exclusively elsewhere)";
	case EINVAL:
		return " (the file system does not support O_DIRECT)";
	case EACCES:
	case EPERM:
		return " (permission denied; run as root or a member of the disk group)";
	default:
		return "";
	}
}

/* everything that depends on the target: profile alignment, footprint, fill */
static int engine_resolve(struct engine *e, char *err, size_t errlen)
{
	const struct engine_job *job = &e->job;
	char msg[200];
	uint64_t mem, phys;
	int r;

	r = job->use_fd ? engine_target_probe_fd(job->fd, &e->tgt)
			: engine_target_probe(e->path, &e->tgt);
	if (r) {
		msg_set(err, errlen, "'%s': %s", e->path,
			r == -EINVAL ? "not a block device or a regular file" : strerror(-r));
		return r;
	}
	e->lba = e->tgt.lba_bytes;
	if (job->lba_bytes) {
		if ((job->lba_bytes & (job->lba_bytes - 1)) || job->lba_bytes % e->tgt.lba_bytes) {
			msg_set(err, errlen,
				"'%s': block size %u: expected a power of two multiple of "
				"the logical block size (%u)",
				e->path, job->lba_bytes, e->tgt.lba_bytes);
			return -EINVAL;
		}
		e->lba = job->lba_bytes;
	}
	e->prof = job->profile;
	if (profile_align(&e->prof, e->lba, msg, sizeof(msg))) {
		msg_set(err, errlen, "'%s': %s", e->path, msg);
		return -EINVAL;
	}
	if (engine_footprint(e->tgt.size_bytes, e->lba, job->offset_bytes, job->size_bytes, 0.0,
			     &e->fp_len, msg, sizeof(msg))) {
		msg_set(err, errlen, "'%s': %s", e->path, msg);
		return -EINVAL;
	}
	e->fp_off = job->offset_bytes;
	e->max_bs = profile_max_bytes(&e->prof);
	if (e->max_bs > e->fp_len) {
		msg_set(err, errlen, "'%s': transfer size %u exceeds the footprint (%llu bytes)",
			e->path, e->max_bs, (unsigned long long)e->fp_len);
		return -EINVAL;
	}
	e->align = job->align_bytes ? job->align_bytes : profile_min_bytes(&e->prof);
	if (e->align % e->lba || e->align > e->fp_len) {
		msg_set(err, errlen,
			"'%s': alignment %llu: expected a multiple of the logical block "
			"size (%u) within the footprint",
			e->path, (unsigned long long)e->align, e->lba);
		return -EINVAL;
	}
	e->sequential = e->prof.pattern == PROFILE_SEQUENTIAL;
	e->writes = e->prof.read_share < PROFILE_SHARE_SCALE;
	e->stream_end = UINT64_MAX;
	if (job->fill_passes) {
		if (!e->sequential || e->prof.read_share || e->prof.nbs != 1) {
			msg_set(err, errlen,
				"a fill needs a sequential write profile with one transfer "
				"size (e.g. 128k-seqwrite)");
			return -EINVAL;
		}
		if (e->fp_len > UINT64_MAX / 2 / job->fill_passes) {
			msg_set(err, errlen, "%u passes over %llu bytes: too many",
				job->fill_passes, (unsigned long long)e->fp_len);
			return -EINVAL;
		}
		e->total_bytes = e->fp_len * job->fill_passes;
		e->stream_end = e->total_bytes;
	}
	if (job->resume_bytes) {
		if (!e->sequential) {
			msg_set(err, errlen, "resume offset %llu: only sequential workloads resume",
				(unsigned long long)job->resume_bytes);
			return -EINVAL;
		}
		if (job->resume_bytes % e->lba || job->resume_bytes > e->stream_end ||
		    job->resume_bytes > UINT64_MAX / 2) {
			msg_set(err, errlen,
				"resume offset %llu: expected a multiple of %u up to %llu",
				(unsigned long long)job->resume_bytes, e->lba,
				(unsigned long long)(e->stream_end == UINT64_MAX ? UINT64_MAX / 2
										 : e->stream_end));
			return -EINVAL;
		}
	}
	/* a sequential stream ends exactly there: a last piece shorter than a
	 * block would fail under O_DIRECT */
	if (e->sequential && job->limit_bytes % e->lba) {
		msg_set(err, errlen,
			"byte limit %llu: expected a multiple of the logical block size (%u bytes)",
			(unsigned long long)job->limit_bytes, e->lba);
		return -EINVAL;
	}
	if (e->sequential && job->limit_bytes &&
	    job->limit_bytes < e->stream_end - job->resume_bytes)
		e->stream_end = job->resume_bytes + job->limit_bytes;

	e->slot_bytes = ((size_t)e->max_bs + 4095) & ~(size_t)4095;
	mem = (uint64_t)job->threads * (job->iodepth + 1) * e->slot_bytes;
	phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (mem > phys / 2) {
		msg_set(err, errlen,
			"buffers need %llu MiB (threads x (iodepth + 1) x %u bytes), more "
			"than half of the memory",
			(unsigned long long)(mem >> 20), e->max_bs);
		return -ENOMEM;
	}
	return 0;
}

static void engine_tables(struct engine *e)
{
	unsigned int k = 0;

	e->nbs = e->prof.nbs;
	for (unsigned int i = 0; i < e->nbs; i++) {
		e->bs_bytes[i] = e->prof.bs[i].size_bytes;
		e->bs_npos[i] = (e->fp_len - e->bs_bytes[i]) / e->align + 1;
		for (uint32_t j = 0; j < e->prof.bs[i].share; j++)
			e->bs_table[k++] = (uint8_t)i;
	}
	/* 2^32 * share / scale: P(read) = read_share / scale within 2^-32 */
	e->read_thresh = ((uint64_t)e->prof.read_share << 32) / PROFILE_SHARE_SCALE;
	e->interval_ns = e->job.interval_ns ? e->job.interval_ns : ENGINE_INTERVAL_DEFAULT_NS;
	e->io_timeout_ns =
		e->job.io_timeout_ns ? e->job.io_timeout_ns : ENGINE_IO_TIMEOUT_DEFAULT_NS;
	e->wake_ns = e->interval_ns / 4 < WAKE_MAX_NS ? e->interval_ns / 4 : WAKE_MAX_NS;
	e->complete_min = e->job.complete_min ? e->job.complete_min : 1;
	e->submit_batch = e->job.submit_batch ? e->job.submit_batch : SUBMIT_BATCH_DEFAULT;
	if (e->job.ring_flags == ENGINE_RING_FLAGS_AUTO)
		e->ring_flags = RING_FLAGS_DEFAULT;
	else
		e->ring_flags = (unsigned int)e->job.ring_flags;
	atomic_init(&e->cursor, e->job.resume_bytes);
}

int engine_new(const struct engine_job *job, struct engine **ret, char *err, size_t errlen)
{
	struct engine *e;
	int r, flags;

	if (!job || !ret) {
		msg_set(err, errlen, "no job");
		return -EINVAL;
	}
	r = validate_job(job, err, errlen);
	if (r)
		return r;
	e = alloc_aligned(sizeof(*e));
	if (!e) {
		msg_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->job = *job;
	e->path = strdup(job->path);
	e->job.path = e->path;
	pthread_mutex_init(&e->gate_lock, NULL);
	pthread_cond_init(&e->gate_cond, NULL);
	e->sem_ok = sem_init(&e->wake, 0, 0) == 0;
	if (!e->path || !e->sem_ok) {
		msg_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	r = engine_resolve(e, err, errlen);
	if (r)
		goto fail;
	engine_tables(e);

	e->w = calloc(job->threads, sizeof(*e->w));
	e->agg = alloc_aligned(sizeof(*e->agg));
	if (!e->w || !e->agg) {
		msg_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	engine_wstats_reset(e->agg);
	for (unsigned int i = 0; i < job->threads; i++) {
		struct worker *w = alloc_aligned(sizeof(*w));

		if (!w) {
			msg_set(err, errlen, "out of memory");
			r = -ENOMEM;
			goto fail;
		}
		memset(w, 0, offsetof(struct worker, stats));
		e->w[i] = w;
		w->e = e;
		w->idx = i;
		w->slots = calloc(job->iodepth, sizeof(*w->slots));
		if (!w->slots) {
			msg_set(err, errlen, "out of memory");
			r = -ENOMEM;
			goto fail;
		}
		w->rng = splitmix64(job->seed ^ splitmix64(i + 1));
		if (!w->rng)
			w->rng = 1;
		w->fail_pos = UINT64_MAX;
		w->budget_bytes = UINT64_MAX;
		if (!e->sequential && job->limit_bytes)
			w->budget_bytes = job->limit_bytes / job->threads +
					  (i < job->limit_bytes % job->threads);
		engine_wstats_reset(&w->stats[0]);
		engine_wstats_reset(&w->stats[1]);
		w->cur = &w->stats[0];
		atomic_init(&w->gen_req, 0);
		atomic_init(&w->gen_ack, 0);
		atomic_init(&w->lw, job->resume_bytes);
		atomic_init(&w->exited, false);
	}

	if (job->use_fd) {
		/* the descriptor the safety gate checked (lib/guard.h): no second lookup */
		int fl = fcntl(job->fd, F_GETFL);

		if (fl < 0 || !(fl & O_DIRECT) || (e->writes && (fl & O_ACCMODE) != O_RDWR)) {
			r = fl < 0 ? -errno : -EBADF;
			msg_set(err, errlen, "'%s': the descriptor handed over is not open %s",
				e->path, e->writes ? "read-write with O_DIRECT" : "with O_DIRECT");
			goto fail;
		}
		e->fd = fcntl(job->fd, F_DUPFD_CLOEXEC, 3);
		if (e->fd < 0) {
			r = -errno;
			msg_set(err, errlen, "'%s': %s", e->path, strerror(-r));
			goto fail;
		}
		*ret = e;
		return 0;
	}
	flags = O_DIRECT | O_CLOEXEC | (e->writes ? O_RDWR : O_RDONLY);
	if (e->tgt.block_device)
		flags |= O_EXCL; /* the kernel's own "in use" check */
	e->fd = open(e->path, flags);
	if (e->fd < 0) {
		r = -errno;
		msg_set(err, errlen, "'%s': cannot open with O_DIRECT%s: %s%s", e->path,
			e->tgt.block_device ? " and O_EXCL" : "", strerror(-r), open_hint(-r));
		goto fail;
	}
	*ret = e;
	return 0;
fail:
	engine_free(e);
	return r;
}

const struct profile *engine_profile(const struct engine *e)
{
	return &e->prof;
}

uint64_t engine_footprint_offset(const struct engine *e)
{
	return e->fp_off;
}

uint64_t engine_footprint_bytes(const struct engine *e)
{
	return e->fp_len;
}

const struct engine_target *engine_target(const struct engine *e)
{
	return &e->tgt;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->w) {
		for (unsigned int i = 0; i < e->job.threads; i++) {
			struct worker *w = e->w[i];

			if (!w)
				continue;
			/* hung I/O may still transfer into it (worker_hung()) */
			if (w->mem && !w->hung)
				munmap(w->mem, w->mem_len);
			free(w->slots);
			free(w);
		}
		free(e->w);
	}
	free(e->agg);
	if (e->fd >= 0)
		close(e->fd);
	if (e->sem_ok)
		sem_destroy(&e->wake);
	pthread_cond_destroy(&e->gate_cond);
	pthread_mutex_destroy(&e->gate_lock);
	free(e->path);
	free(e);
}
