// SPDX-License-Identifier: MIT
/*
 * engine on regular files (no root needed): parameter errors before any
 * I/O, bssplit and rwmix within statistical bounds, offsets inside the
 * footprint and aligned (hook and read-back stamps), fills writing every
 * block exactly N times, resume from the low-water mark, samples adding up,
 * I/O errors (RLIMIT_FSIZE makes writes past a limit fail with EFBIG, and
 * one straddling it come back short), stop on request and by callback,
 * ramp, seed repeatability.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "tap.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024ULL)
#define MS 1000000ULL
#define BLK 4096ULL
#define MAX_SAMPLES 256

static char dir[256];

/* What the hooks saw, updated from the worker threads. */
struct watch {
	struct engine *e;
	uint64_t fp_off, fp_len, align;
	uint32_t sizes[PROFILE_BS_MAX];
	unsigned int nsizes;
	_Atomic uint64_t ios, recorded, unrecorded, reads, writes, errors;
	_Atomic uint64_t by_size[PROFILE_BS_MAX];
	_Atomic uint64_t outside, unaligned, bad_size;
	_Atomic uint32_t *blk; /* writes per 4 KiB block of the file */
	uint64_t nblk;
	uint64_t stop_after; /* engine_stop() after this many I/Os; 0 never */
	long delay_ns;	     /* slow the workers down: samples see I/O in flight */
	uint64_t *trace;     /* offsets in completion order (one thread, QD 1) */
	uint64_t trace_len, trace_max;
	/* samples */
	int nsamples;
	struct sample s[MAX_SAMPLES];
	struct engine_progress p[MAX_SAMPLES];
	int stop_at_sample; /* on_sample returns 1 at this seq; 0 never */
	uint64_t lw_holes;  /* blocks below a sample's low-water mark not yet written */
	unsigned int passes_for_lw;
	uint64_t lw_base; /* resume position of this run: counts start below it */
};

static void watch_init(struct watch *w, uint64_t file_bytes)
{
	memset(w, 0, sizeof(*w));
	w->nblk = file_bytes / BLK;
	w->blk = calloc(w->nblk, sizeof(*w->blk));
	if (!w->blk)
		bail_out("out of memory");
}

static void watch_free(struct watch *w)
{
	free(w->blk);
	free(w->trace);
	w->blk = NULL;
	w->trace = NULL;
}

static void on_io(void *ctx, const struct engine_io *io)
{
	struct watch *w = ctx;
	uint64_t n = atomic_fetch_add(&w->ios, 1) + 1;

	if (io->res) {
		atomic_fetch_add(&w->errors, 1);
	} else {
		atomic_fetch_add(io->recorded ? &w->recorded : &w->unrecorded, 1);
		atomic_fetch_add(io->dir == SAMPLE_READ ? &w->reads : &w->writes, 1);
		if (io->offset_bytes < w->fp_off ||
		    io->offset_bytes + io->len_bytes > w->fp_off + w->fp_len)
			atomic_fetch_add(&w->outside, 1);
		if (w->align && (io->offset_bytes - w->fp_off) % w->align)
			atomic_fetch_add(&w->unaligned, 1);
		if (io->dir == SAMPLE_WRITE)
			for (uint64_t b = io->offset_bytes / BLK;
			     b < (io->offset_bytes + io->len_bytes + BLK - 1) / BLK && b < w->nblk;
			     b++)
				atomic_fetch_add(&w->blk[b], 1);
		if (io->recorded) {
			unsigned int i;

			for (i = 0; i < w->nsizes; i++)
				if (w->sizes[i] == io->len_bytes)
					break;
			if (i < w->nsizes)
				atomic_fetch_add(&w->by_size[i], 1);
			else
				atomic_fetch_add(&w->bad_size, 1);
		}
	}
	if (w->trace && w->trace_len < w->trace_max)
		w->trace[w->trace_len++] = io->offset_bytes;
	if (w->stop_after && n == w->stop_after)
		engine_stop(w->e);
	if (w->delay_ns) {
		struct timespec ts = {0, w->delay_ns};

		nanosleep(&ts, NULL);
	}
}

static int on_sample(void *ctx, const struct sample *s, const struct engine_progress *p)
{
	struct watch *w = ctx;

	if (w->nsamples < MAX_SAMPLES) {
		w->s[w->nsamples] = *s;
		w->p[w->nsamples] = *p;
		w->nsamples++;
	}
	/* low-water mark: every block of the stream below it is written */
	if (w->passes_for_lw) {
		for (uint64_t pos = w->lw_base; pos < p->stream_bytes; pos += BLK) {
			uint64_t pass = pos / w->fp_len, b = (w->fp_off + pos % w->fp_len) / BLK;

			if (atomic_load(&w->blk[b]) < pass + 1 - w->lw_base / w->fp_len)
				w->lw_holes++;
		}
	}
	return w->stop_at_sample && s->seq == w->stop_at_sample;
}

static uint64_t sum_sample_ios(const struct watch *w)
{
	uint64_t n = 0;

	for (int i = 0; i < w->nsamples; i++)
		n += w->s[i].st[SAMPLE_ALL].ios;
	return n;
}

static int samples_contiguous(const struct watch *w)
{
	for (int i = 0; i < w->nsamples; i++) {
		if (w->s[i].end_ns < w->s[i].start_ns || w->s[i].seq != i + 1)
			return 0;
		if (i && w->s[i].start_ns != w->s[i - 1].end_ns)
			return 0;
	}
	return 1;
}

static void make_file(const char *path, uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || ftruncate(fd, (off_t)size))
		bail_out("cannot create %s: %m", path);
	close(fd);
}

static uint8_t *read_file(const char *path, uint64_t size)
{
	uint8_t *buf = malloc(size);
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0 || pread(fd, buf, size, 0) != (ssize_t)size)
		bail_out("cannot read %s: %m", path);
	close(fd);
	return buf;
}

static int all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void base_job(struct engine_job *job, const char *path, const char *profile)
{
	memset(job, 0, sizeof(*job));
	job->path = path;
	if (profile_builtin(profile, &job->profile))
		bail_out("no profile %s", profile);
	job->threads = 1;
	job->iodepth = 1;
	job->interval_ns = 100 * MS;
	job->lba_bytes = 4096;
	job->ring_flags = ENGINE_RING_FLAGS_AUTO;
	job->seed = 1;
}

static int run_job(const struct engine_job *job, struct watch *w, struct engine_result *res)
{
	char err[512];
	struct engine *e;
	int r;

	r = engine_new(job, &e, err, sizeof(err));
	if (r) {
		diag("engine_new: %s", err);
		return r;
	}
	w->e = e;
	w->fp_off = engine_footprint_offset(e);
	w->fp_len = engine_footprint_bytes(e);
	w->nsizes = engine_profile(e)->nbs;
	for (unsigned int i = 0; i < w->nsizes; i++)
		w->sizes[i] = engine_profile(e)->bs[i].size_bytes;
	r = engine_run(e, res);
	if (r)
		diag("engine_run: %d %s", r, res->msg);
	engine_free(e);
	w->e = NULL;
	return r;
}

/* ---- tests ------------------------------------------------------------ */

static void expect_invalid(const struct engine_job *job, int want, const char *needle,
			   const char *what)
{
	char err[512] = "";
	struct engine *e = NULL;
	int r = engine_new(job, &e, err, sizeof(err));

	ok(r == want && strstr(err, needle) && !e, "%s: %d, '%s'", what, r, err);
	if (r == 0)
		engine_free(e);
	else if (!strstr(err, needle))
		diag("expected the message to contain '%s'", needle);
}

static void test_bad_parameters(void)
{
	char path[300], sub[300];
	struct engine_job job;
	uint8_t *before, *after;
	struct stat st0, st1;

	snprintf(path, sizeof(path), "%s/bad.img", dir);
	make_file(path, 4 * MiB);
	{
		/* a recognisable content that must survive every rejected job */
		int fd = open(path, O_WRONLY);
		char buf[4096];

		memset(buf, 0x5a, sizeof(buf));
		for (int i = 0; i < 1024; i++)
			if (pwrite(fd, buf, sizeof(buf), (off_t)i * 4096) != 4096)
				bail_out("pwrite");
		fsync(fd);
		close(fd);
	}
	before = read_file(path, 4 * MiB);
	stat(path, &st0);

	base_job(&job, path, "4k-randwrite");
	job.iodepth = 0;
	expect_invalid(&job, -EINVAL, "iodepth 0", "depth 0");
	base_job(&job, path, "4k-randwrite");
	job.threads = 0;
	expect_invalid(&job, -EINVAL, "threads 0", "threads 0");
	base_job(&job, path, "4k-randwrite");
	job.threads = ENGINE_THREADS_MAX + 1;
	expect_invalid(&job, -EINVAL, "expected 1 to", "too many threads");
	base_job(&job, path, "fileserver");
	job.profile.bs[3].share -= 100;
	expect_invalid(&job, -EINVAL, "sum to 99", "bssplit not summing to 100");
	base_job(&job, path, "4k-randwrite");
	profile_parse_bssplit("6k/50:4k/50", &job.profile, NULL, 0);
	expect_invalid(&job, -EINVAL, "not a multiple of the logical block size",
		       "unaligned transfer size");
	base_job(&job, path, "4k-randwrite");
	job.profile.nbs = 0; /* what a caller gets without a known profile */
	expect_invalid(&job, -EINVAL, "transfer sizes", "no transfer size");
	base_job(&job, path, "4k-randwrite");
	job.offset_bytes = 1 * MiB;
	job.size_bytes = 4 * MiB;
	expect_invalid(&job, -EINVAL, "past the end", "footprint past the end");
	base_job(&job, path, "4k-randwrite");
	job.offset_bytes = 4 * MiB;
	expect_invalid(&job, -EINVAL, "at or past the end", "offset at the end");
	base_job(&job, path, "4k-randwrite");
	job.offset_bytes = 512;
	expect_invalid(&job, -EINVAL, "offset 512 is not a multiple", "unaligned offset");
	base_job(&job, path, "4k-randwrite");
	job.size_bytes = 6 * KiB;
	expect_invalid(&job, -EINVAL, "size 6144 is not a multiple", "unaligned size");
	base_job(&job, path, "64k-randwrite");
	job.size_bytes = 32 * KiB;
	expect_invalid(&job, -EINVAL, "exceeds the footprint", "transfer larger than footprint");
	base_job(&job, path, "4k-randwrite");
	job.interval_ns = 50 * MS;
	expect_invalid(&job, -EINVAL, "at least 100 ms", "interval below 100 ms");
	base_job(&job, path, "4k-randwrite");
	job.io_timeout_ns = 999 * MS;
	expect_invalid(&job, -EINVAL, "io_timeout 999 ms: expected at least 1000 ms",
		       "io_timeout below 1 s");
	base_job(&job, path, "4k-randwrite");
	job.fill_passes = 2;
	expect_invalid(&job, -EINVAL, "a fill needs a sequential write", "fill with random");
	base_job(&job, path, "128k-seqwrite");
	job.fill_passes = 2;
	job.resume_bytes = 9 * MiB;
	expect_invalid(&job, -EINVAL, "resume offset", "resume past the fill's end");
	base_job(&job, path, "4k-randwrite");
	job.resume_bytes = 4096;
	expect_invalid(&job, -EINVAL, "only sequential", "resume of a random workload");
	base_job(&job, path, "128k-seqwrite");
	job.limit_bytes = 10000; /* the last piece would be 1808 bytes */
	expect_invalid(&job, -EINVAL, "byte limit 10000: expected a multiple of the logical block",
		       "sequential byte limit not a multiple of the block size");
	base_job(&job, path, "4k-randwrite");
	job.lba_bytes = 3000;
	expect_invalid(&job, -EINVAL, "power of two", "odd block size");
	base_job(&job, path, "4k-randwrite");
	job.align_bytes = 6 * KiB;
	expect_invalid(&job, -EINVAL, "alignment 6144", "unaligned alignment");
	snprintf(sub, sizeof(sub), "%s/missing.img", dir);
	base_job(&job, sub, "4k-randwrite");
	expect_invalid(&job, -ENOENT, "No such file", "missing target");
	base_job(&job, dir, "4k-randwrite");
	expect_invalid(&job, -EINVAL, "not a block device or a regular file", "directory target");
	base_job(&job, path, "4k-randwrite");
	job.path = NULL;
	expect_invalid(&job, -EINVAL, "no target", "no path");

	after = read_file(path, 4 * MiB);
	stat(path, &st1);
	ok(!memcmp(before, after, 4 * MiB) && st0.st_mtim.tv_sec == st1.st_mtim.tv_sec &&
		   st0.st_mtim.tv_nsec == st1.st_mtim.tv_nsec,
	   "rejected jobs wrote nothing");
	free(before);
	free(after);
	unlink(path);
}

/* |got - n p| within 5 standard deviations of a binomial */
static int binomial_ok(uint64_t got, uint64_t n, double p)
{
	double sd = sqrt((double)n * p * (1.0 - p));

	return fabs((double)got - (double)n * p) <= 5.0 * sd + 1.0;
}

static void test_mix(void)
{
	static const uint32_t sizes[] = {4096, 8192, 16384};
	static const double shares[] = {0.2, 0.3, 0.5};
	char path[300];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	uint64_t n, stamped = 0, bad_stamps = 0, dirty_outside = 0;
	uint8_t *data;
	int r;

	snprintf(path, sizeof(path), "%s/mix.img", dir);
	make_file(path, 16 * MiB);
	watch_init(w, 16 * MiB);
	base_job(&job, path, "4k-randwrite");
	profile_parse_bssplit("4k/20:8k/30:16k/50", &job.profile, NULL, 0);
	profile_parse_rwmix("30", &job.profile, NULL, 0);
	job.threads = 2;
	job.iodepth = 8;
	job.offset_bytes = 1 * MiB;
	job.size_bytes = 8 * MiB;
	job.duration_ns = 1000 * MS;
	job.on_io = on_io;
	job.on_sample = on_sample;
	job.ctx = w;
	w->align = 4096;
	r = run_job(&job, w, res);
	n = res->ios[0] + res->ios[1];
	ok(r == 0 && res->stop == ENGINE_STOP_DURATION && n > 2000, "mixed run: %llu I/Os in 1 s",
	   (unsigned long long)n);
	diag("%llu I/Os, ring flags 0x%x, registered files %d buffers %d", (unsigned long long)n,
	     res->ring_flags, res->registered_files, res->registered_buffers);
	is_u64(sum_sample_ios(w), n, "the samples' I/Os add up to the total");
	ok(w->nsamples >= 8 && w->nsamples <= 11 && samples_contiguous(w),
	   "%d contiguous samples of 100 ms for 1 s", w->nsamples);
	ok(w->p[w->nsamples - 1].final && w->p[w->nsamples - 1].ios == n,
	   "the last sample is final and its progress holds the total");
	is_u64(atomic_load(&w->recorded), n, "every recorded completion reached the hook");
	is_u64(atomic_load(&w->reads), res->ios[SAMPLE_READ], "reads: engine and hook agree");
	is_u64(hist_count(&res->hist[SAMPLE_WRITE]), res->ios[SAMPLE_WRITE],
	       "the run's write histogram counts every write");
	is_u64(atomic_load(&w->outside), 0, "no I/O outside the footprint");
	is_u64(atomic_load(&w->unaligned), 0, "every offset is a multiple of 4 KiB");
	is_u64(atomic_load(&w->bad_size), 0, "every size is one of the bssplit's");
	for (int i = 0; i < 3; i++) {
		ok(w->sizes[i] == sizes[i] && res->bs_ios[i] == atomic_load(&w->by_size[i]) &&
			   binomial_ok(res->bs_ios[i], n, shares[i]),
		   "%u bytes: %llu of %llu I/Os (%.1f%%, expected %.0f%%)", sizes[i],
		   (unsigned long long)res->bs_ios[i], (unsigned long long)n,
		   100.0 * (double)res->bs_ios[i] / (double)n, 100 * shares[i]);
	}
	ok(binomial_ok(res->ios[SAMPLE_READ], n, 0.3), "reads: %.1f%% (expected 30%%)",
	   100.0 * (double)res->ios[SAMPLE_READ] / (double)n);

	/* the stamps say where each write landed */
	data = read_file(path, 16 * MiB);
	dirty_outside = !all_zero(data, 1 * MiB) + !all_zero(data + 9 * MiB, 7 * MiB);
	for (uint64_t off = 1 * MiB; off < 9 * MiB; off += ENGINE_STAMP_GRANULE) {
		const struct engine_stamp *st = (const void *)(data + off);

		if (all_zero(data + off, ENGINE_STAMP_GRANULE))
			continue;
		stamped++;
		if (st->magic != ENGINE_STAMP_MAGIC || st->offset_bytes != off ||
		    st->io_offset_bytes % 4096 || st->io_offset_bytes < 1 * MiB ||
		    st->io_offset_bytes + st->io_bytes > 9 * MiB || st->io_offset_bytes > off ||
		    off >= st->io_offset_bytes + st->io_bytes || st->pass != 0 ||
		    (st->io_bytes != 4096 && st->io_bytes != 8192 && st->io_bytes != 16384))
			bad_stamps++;
	}
	ok(!dirty_outside, "read back: nothing written outside the footprint");
	ok(stamped > 100 && !bad_stamps, "read back: %llu stamped blocks, %llu inconsistent",
	   (unsigned long long)stamped, (unsigned long long)bad_stamps);
	free(data);
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void count_blocks(const struct watch *w, uint64_t lo, uint64_t hi, uint32_t *min,
			 uint32_t *max)
{
	*min = UINT32_MAX;
	*max = 0;
	for (uint64_t b = lo / BLK; b < hi / BLK; b++) {
		uint32_t c = atomic_load(&w->blk[b]);

		if (c < *min)
			*min = c;
		if (c > *max)
			*max = c;
	}
}

static uint64_t check_pass_stamps(const uint8_t *data, uint64_t lo, uint64_t hi, uint32_t pass)
{
	uint64_t bad = 0;

	for (uint64_t off = lo; off < hi; off += ENGINE_STAMP_GRANULE) {
		const struct engine_stamp *st = (const void *)(data + off);

		if (st->magic != ENGINE_STAMP_MAGIC || st->offset_bytes != off || st->pass != pass)
			bad++;
	}
	return bad;
}

static void test_fill(void)
{
	/* footprint not a multiple of the 64 KiB transfer: each pass ends short */
	const uint64_t file = 8 * MiB, off = 512 * KiB, len = 3 * MiB + 12 * KiB;
	char path[300];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	uint32_t mn, mx, omn, omx;
	uint8_t *data;
	int r;

	snprintf(path, sizeof(path), "%s/fill.img", dir);
	make_file(path, file);
	watch_init(w, file);
	base_job(&job, path, "64k-randwrite");
	job.profile.pattern = PROFILE_SEQUENTIAL;
	job.threads = 2;
	job.iodepth = 4;
	job.offset_bytes = off;
	job.size_bytes = len;
	job.fill_passes = 2;
	job.on_io = on_io;
	job.on_sample = on_sample;
	job.ctx = w;
	r = run_job(&job, w, res);
	ok(r == 0 && res->stop == ENGINE_STOP_DONE, "fill of 2 passes ends as done (%s)",
	   engine_stop_reason_name(res->stop));
	is_u64(res->stream_bytes, 2 * len, "low-water mark at the end: 2 x footprint");
	is_u64(res->bytes[SAMPLE_WRITE], 2 * len, "bytes written: 2 x footprint");
	is_u64(res->ios[SAMPLE_WRITE], 2 * ((len + 65535) / 65536),
	       "I/Os: 2 x ceil(footprint / 64 KiB), the last of each pass shorter");
	count_blocks(w, off, off + len, &mn, &mx);
	ok(mn == 2 && mx == 2, "every 4 KiB block of the footprint written exactly twice (%u..%u)",
	   mn, mx);
	count_blocks(w, 0, off, &omn, &omx);
	count_blocks(w, off + len, file, &mn, &mx);
	ok(omx == 0 && mx == 0, "no block outside the footprint written");
	data = read_file(path, file);
	is_u64(check_pass_stamps(data, off, off + len, 2), 0,
	       "read back: every block carries pass 2 and its own offset");
	ok(all_zero(data, off) && all_zero(data + off + len, file - off - len),
	   "read back: outside the footprint still zero");
	is_u64(sum_sample_ios(w), res->ios[0] + res->ios[1], "fill: samples add up to the total");
	free(data);
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void test_fill_resume(void)
{
	const uint64_t file = 16 * MiB;
	char path[300];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	uint64_t lw1;
	uint32_t mn, mx;
	uint8_t *data;
	int r;

	snprintf(path, sizeof(path), "%s/resume.img", dir);
	make_file(path, file);
	watch_init(w, file);
	base_job(&job, path, "128k-seqwrite");
	profile_parse_bssplit("16k", &job.profile, NULL, 0);
	job.threads = 2;
	job.iodepth = 2;
	job.fill_passes = 2;
	job.on_io = on_io;
	job.on_sample = on_sample;
	job.ctx = w;
	w->stop_after = 1100; /* of 2048 */
	w->passes_for_lw = 2;
	w->delay_ns = 400000; /* ~220 ms: samples come while I/O is in flight */
	r = run_job(&job, w, res);
	lw1 = res->stream_bytes;
	ok(r == 0 && res->stop == ENGINE_STOP_REQUEST, "fill stopped by engine_stop() (%s)",
	   engine_stop_reason_name(res->stop));
	ok(lw1 > file && lw1 < 2 * file && lw1 % (16 * KiB) == 0,
	   "low-water mark %llu inside pass 2, on a transfer boundary", (unsigned long long)lw1);
	is_u64(lw1, res->bytes[SAMPLE_WRITE], "stopped cleanly: low-water mark = bytes written");
	is_u64(w->lw_holes, 0, "at every sample, every block below the low-water mark was written");
	ok(w->nsamples >= 2 && w->p[0].stream_bytes > 0 && w->p[0].stream_bytes < lw1,
	   "a sample taken mid-run had a partial low-water mark (%d samples)", w->nsamples);
	ok(w->nsamples >= 1 && w->p[w->nsamples - 1].stream_bytes == lw1,
	   "the final sample reports the final low-water mark");

	/* resume where the first run left off: exactly two writes per block */
	memset(w->s, 0, sizeof(w->s));
	w->nsamples = 0;
	w->stop_after = 0;
	w->delay_ns = 0;
	w->lw_base = 0;
	job.resume_bytes = lw1;
	r = run_job(&job, w, res);
	ok(r == 0 && res->stop == ENGINE_STOP_DONE && res->stream_bytes == 2 * file,
	   "resumed fill finishes at 2 x footprint");
	is_u64(res->bytes[SAMPLE_WRITE], 2 * file - lw1, "resumed fill wrote only the rest");
	count_blocks(w, 0, file, &mn, &mx);
	ok(mn == 2 && mx == 2, "stop + resume: every block written exactly twice (%u..%u)", mn, mx);
	is_u64(w->lw_holes, 0, "resumed run: no block below any low-water mark unwritten");
	data = read_file(path, file);
	is_u64(check_pass_stamps(data, 0, file, 2), 0, "read back: all blocks carry pass 2");
	free(data);

	/* a crash loses the last commits: resume from an older mark, no holes */
	memset(w->blk, 0, w->nblk * sizeof(*w->blk));
	w->nsamples = 0;
	job.resume_bytes = file / 2;
	r = run_job(&job, w, res);
	count_blocks(w, 0, file / 2, &mn, &mx);
	ok(r == 0 && mn == 1 && mx == 1, "resume from the middle of pass 1: first half once more");
	count_blocks(w, file / 2, file, &mn, &mx);
	ok(mn == 2 && mx == 2, "... second half twice");
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void test_errors(void)
{
	const uint64_t file = 8 * MiB, limit = 4 * MiB + 4 * KiB;
	char path[300];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	struct rlimit old, lim;
	uint8_t *data;
	int r;

	snprintf(path, sizeof(path), "%s/err.img", dir);
	make_file(path, file);
	watch_init(w, file);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = limit;

	/* sequential 8 KiB at QD 1: the write at 4 MiB comes back short (4 KiB),
	 * its remainder at 4 MiB + 4 KiB fails with EFBIG */
	base_job(&job, path, "128k-seqwrite");
	profile_parse_bssplit("8k", &job.profile, NULL, 0);
	job.fill_passes = 1;
	job.on_io = on_io;
	job.on_sample = on_sample;
	job.ctx = w;
	setrlimit(RLIMIT_FSIZE, &lim);
	r = run_job(&job, w, res);
	setrlimit(RLIMIT_FSIZE, &old);
	is_int(r, -EFBIG, "engine_run returns the I/O error");
	ok(res->stop == ENGINE_STOP_ERROR && res->errors == 1 && res->first_errno == EFBIG &&
		   res->first_error_dir == SAMPLE_WRITE,
	   "stopped by one EFBIG write (%s, %llu errors, errno %d)",
	   engine_stop_reason_name(res->stop), (unsigned long long)res->errors, res->first_errno);
	is_u64(res->first_error_offset_bytes, limit, "error offset: the short write's remainder");
	is_u64(res->requeued_short, 1, "one short write requeued");
	is_u64(res->ios[SAMPLE_WRITE], 4 * MiB / (8 * KiB), "what was measured is kept");
	is_u64(res->stream_bytes, 4 * MiB, "low-water mark stops below the failed write");
	is_u64(sum_sample_ios(w), res->ios[SAMPLE_WRITE], "samples add up to the total");
	ok(w->nsamples >= 1 && w->s[w->nsamples - 1].errors == 1,
	   "the error is in the last sample");
	ok(strstr(res->msg, "write at offset 4198400") && strstr(res->msg, "File too large"),
	   "message: %s", res->msg);
	data = read_file(path, file);
	is_u64(check_pass_stamps(data, 0, 4 * MiB, 1), 0, "everything below 4 MiB was written");
	free(data);

	/* policy continue: errors are counted, the run goes on */
	memset(w->s, 0, sizeof(w->s));
	w->nsamples = 0;
	base_job(&job, path, "4k-randwrite");
	job.iodepth = 4;
	job.on_error = ENGINE_ERROR_CONTINUE;
	job.duration_ns = 300 * MS;
	job.on_sample = on_sample;
	job.ctx = w;
	setrlimit(RLIMIT_FSIZE, &lim);
	r = run_job(&job, w, res);
	setrlimit(RLIMIT_FSIZE, &old);
	ok(r == 0 && res->stop == ENGINE_STOP_DURATION && res->errors > 10 &&
		   res->ios[SAMPLE_WRITE] > 10,
	   "continue: %llu errors and %llu writes in 300 ms", (unsigned long long)res->errors,
	   (unsigned long long)res->ios[SAMPLE_WRITE]);
	{
		uint64_t e = 0;

		for (int i = 0; i < w->nsamples; i++)
			e += w->s[i].errors;
		is_u64(e, res->errors, "continue: the samples' errors add up");
	}
	ok(binomial_ok(res->errors, res->errors + res->ios[SAMPLE_WRITE], 0.5 - 1.0 / 2048),
	   "continue: about half the writes (those past 4 MiB) failed");

	/* a fill under policy continue that left holes is not "done" */
	base_job(&job, path, "128k-seqwrite");
	job.fill_passes = 1;
	job.iodepth = 4;
	job.on_error = ENGINE_ERROR_CONTINUE;
	setrlimit(RLIMIT_FSIZE, &lim);
	r = run_job(&job, w, res);
	setrlimit(RLIMIT_FSIZE, &old);
	ok(r == -EFBIG && res->stop == ENGINE_STOP_ERROR && res->errors > 0 &&
		   res->stream_bytes < file,
	   "continue: a fill with failed writes ends '%s' (rc %d), not done; low-water mark %llu",
	   engine_stop_reason_name(res->stop), r, (unsigned long long)res->stream_bytes);
	signal(SIGXFSZ, SIG_DFL);
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void *stopper(void *arg)
{
	struct timespec ts = {0, 300 * (long)MS};

	nanosleep(&ts, NULL);
	engine_stop(arg);
	return NULL;
}

static void test_stops(void)
{
	char path[300], err[512];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	struct engine *e;
	pthread_t t;
	int r;

	snprintf(path, sizeof(path), "%s/stop.img", dir);
	make_file(path, 8 * MiB);
	watch_init(w, 8 * MiB);

	/* engine_stop() from another thread, no duration */
	base_job(&job, path, "4k-randread");
	job.threads = 2;
	job.iodepth = 4;
	job.on_sample = on_sample;
	job.ctx = w;
	r = engine_new(&job, &e, err, sizeof(err));
	if (r)
		bail_out("%s", err);
	pthread_create(&t, NULL, stopper, e);
	r = engine_run(e, res);
	pthread_join(t, NULL);
	ok(r == 0 && res->stop == ENGINE_STOP_REQUEST && res->elapsed_ns >= 250 * MS &&
		   res->elapsed_ns < 3000 * MS,
	   "engine_stop() ends an open-ended run (%s after %.2f s)",
	   engine_stop_reason_name(res->stop), (double)res->elapsed_ns / 1e9);
	is_u64(sum_sample_ios(w), res->ios[0] + res->ios[1], "stopped run: samples add up");
	ok(w->nsamples >= 1 && w->p[w->nsamples - 1].final && samples_contiguous(w),
	   "stopped run: %d contiguous samples, the last final", w->nsamples);
	is_int(engine_run(e, res), -EALREADY, "an engine runs once");
	engine_free(e);

	/* engine_stop() before engine_run(): nothing is issued */
	base_job(&job, path, "4k-randwrite");
	job.threads = 2;
	job.iodepth = 8;
	r = engine_new(&job, &e, err, sizeof(err));
	if (r)
		bail_out("%s", err);
	engine_stop(e);
	r = engine_run(e, res);
	ok(r == 0 && res->stop == ENGINE_STOP_REQUEST &&
		   res->ios[SAMPLE_READ] + res->ios[SAMPLE_WRITE] == 0,
	   "stopped before it ran: no I/O issued (%llu writes, %s)",
	   (unsigned long long)res->ios[SAMPLE_WRITE], engine_stop_reason_name(res->stop));
	engine_free(e);
	base_job(&job, path, "4k-randread"); /* the job of the tests below */
	job.threads = 2;
	job.iodepth = 4;
	job.on_sample = on_sample;
	job.ctx = w;

	/* on_sample returning nonzero */
	memset(w->s, 0, sizeof(w->s));
	w->nsamples = 0;
	w->stop_at_sample = 2;
	job.duration_ns = 5000 * MS;
	r = run_job(&job, w, res);
	ok(r == 0 && res->stop == ENGINE_STOP_CALLBACK && w->nsamples == 3,
	   "on_sample stops the run after sample 2; the tail is sample 3 (%d samples)",
	   w->nsamples);
	is_u64(sum_sample_ios(w), res->ios[0] + res->ios[1], "callback stop: samples add up");
	w->stop_at_sample = 0;

	/* limit_bytes on a random workload */
	w->nsamples = 0;
	job.duration_ns = 0;
	job.limit_bytes = 4 * MiB;
	r = run_job(&job, w, res);
	ok(r == 0 && res->stop == ENGINE_STOP_BYTES && res->bytes[SAMPLE_READ] == 4 * MiB,
	   "limit_bytes: %llu bytes read, stop %s", (unsigned long long)res->bytes[SAMPLE_READ],
	   engine_stop_reason_name(res->stop));
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void test_ramp(void)
{
	char path[300];
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));
	int r;

	snprintf(path, sizeof(path), "%s/ramp.img", dir);
	make_file(path, 8 * MiB);
	watch_init(w, 8 * MiB);
	base_job(&job, path, "4k-randwrite");
	job.iodepth = 4;
	job.ramp_ns = 200 * MS;
	job.duration_ns = 300 * MS;
	job.seq_base = 40;
	job.on_io = on_io;
	job.on_sample = on_sample;
	job.ctx = w;
	r = run_job(&job, w, res);
	/* 3 samples on time; a sampler delayed past a boundary makes one fewer */
	ok(r == 0 && w->nsamples >= 2 && w->nsamples <= 3 && w->s[0].seq == 41 &&
		   w->s[w->nsamples - 1].seq == 40 + w->nsamples,
	   "300 ms after a 200 ms ramp: %d samples numbered from seq_base + 1", w->nsamples);
	ok(atomic_load(&w->unrecorded) > 0 && atomic_load(&w->recorded) == res->ios[SAMPLE_WRITE],
	   "ramp I/O ran (%llu) but only later I/O was recorded (%llu)",
	   (unsigned long long)atomic_load(&w->unrecorded),
	   (unsigned long long)res->ios[SAMPLE_WRITE]);
	is_u64(sum_sample_ios(w), res->ios[SAMPLE_WRITE], "ramp: samples add up to the total");
	ok(w->s[0].start_ns == res->start_ns && res->elapsed_ns >= 300 * MS &&
		   res->elapsed_ns < 1000 * MS,
	   "measurement starts after the ramp and lasts %.3f s", (double)res->elapsed_ns / 1e9);
	watch_free(w);
	free(w);
	free(res);
	unlink(path);
}

static void trace_run(const char *path, uint64_t seed, uint64_t *trace, uint64_t n)
{
	struct engine_job job;
	struct engine_result *res = calloc(1, sizeof(*res));
	struct watch *w = calloc(1, sizeof(*w));

	watch_init(w, 8 * MiB);
	base_job(&job, path, "fileserver");
	job.seed = seed;
	job.limit_bytes = n * 64 * KiB; /* at least n I/Os; the trace keeps the first n */
	job.on_io = on_io;
	job.ctx = w;
	w->trace = trace;
	w->trace_max = n;
	if (run_job(&job, w, res))
		bail_out("trace run failed");
	w->trace = NULL;
	watch_free(w);
	free(w);
	free(res);
}

static void test_seed(void)
{
	const uint64_t n = 300;
	uint64_t *a = calloc(n, 8), *b = calloc(n, 8), *c = calloc(n, 8);
	char path[300];

	snprintf(path, sizeof(path), "%s/seed.img", dir);
	make_file(path, 8 * MiB);
	trace_run(path, 42, a, n);
	trace_run(path, 42, b, n);
	trace_run(path, 43, c, n);
	ok(!memcmp(a, b, n * 8), "same seed: same offsets in the same order");
	ok(memcmp(a, c, n * 8), "another seed: other offsets");
	free(a);
	free(b);
	free(c);
	unlink(path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/plateau-engine-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		bail_out("mkdtemp %s: %m", dir);
	{
		/* O_DIRECT must work where the test files live */
		char probe[300];
		int fd;

		snprintf(probe, sizeof(probe), "%s/probe", dir);
		fd = open(probe, O_RDWR | O_CREAT | O_DIRECT, 0600);
		if (fd < 0) {
			rmdir(dir);
			skip_all("no O_DIRECT in %s: %m", dir);
		}
		close(fd);
		unlink(probe);
	}
	test_bad_parameters();
	test_mix();
	test_fill();
	test_fill_resume();
	test_errors();
	test_stops();
	test_ramp();
	test_seed();
	rmdir(dir);
	return done_testing();
}
