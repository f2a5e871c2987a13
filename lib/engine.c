// SPDX-License-Identifier: MIT
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
#include "engine.h"
#include "msg.h"

#define NSEC_PER_SEC 1000000000ULL
#define CACHELINE 64
/* A stalled worker still wakes this often to see stop and sample requests. */
#define WAKE_MAX_NS 100000000ULL
/*
 * Ring setup and submission policy, measured on this project's machines
 * (4k random 1x32 and 16x16 on a loop device over /dev/shm, zram, a file
 * on the root disk; medians of 5 interleaved 3 s runs): DEFER_TASKRUN
 * (completions are run only when the worker asks for them, and it is woken
 * once per wait instead of once per completion) plus submitting every 4 new
 * I/Os (the device starts on the first ones while the rest are prepared)
 * gave +5..+25 % IOPS over COOP_TASKRUN with one submission per batch on
 * the loop device and the disk file, -2 % on zram, and -10 % on 128k
 * sequential writes (still above fio).  Flags the kernel refuses are
 * dropped newest first (DEFER_TASKRUN 6.1, SINGLE_ISSUER 6.0, COOP_TASKRUN
 * 5.19, SUBMIT_ALL 5.18); SQPOLL never by default (PERF-NOTES: a disaster
 * with more rings than cores).
 */
#define RING_FLAGS_DEFAULT                                                                  \
	(IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | \
	 IORING_SETUP_DEFER_TASKRUN)
#define SUBMIT_BATCH_DEFAULT 4
/* The sampler polls for the workers' acknowledgements this often. */
#define ACK_POLL_NS 20000L
#define DIR_READ SAMPLE_READ
#define DIR_WRITE SAMPLE_WRITE

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* One interval's worth of one worker's measurements. */
struct wstats {
	uint64_t ios[2];
	uint64_t bytes[2];
	uint64_t errors;
	uint64_t bs_ios[PROFILE_BS_MAX];
	struct hist lat[2];
};

struct slot {
	uint64_t off;	 /* device offset of the part still to transfer */
	uint64_t io_off; /* device offset of the whole I/O */
	uint64_t pos;	 /* sequential: stream position of the claim */
	uint64_t submit_ns;
	char *base; /* this slot's write buffer */
	char *buf;  /* where the part still to transfer starts */
	uint32_t len;
	uint32_t io_len;
	uint32_t pass;
	uint16_t buf_index;
	uint8_t dir;
	uint8_t bs;
	uint8_t active;
};

struct engine;

struct worker {
	/* private to the worker thread while it runs */
	struct engine *e;
	struct io_uring ring;
	struct slot *slots;
	struct wstats *cur; /* &stats[gen_seen & 1] */
	uint64_t rng;
	uint64_t budget_bytes; /* random + limit_bytes: bytes still to issue */
	uint64_t wseq;
	uint64_t fail_pos; /* sequential: earliest claim that failed */
	uint64_t gen_seen;
	uint64_t last_ns;
	unsigned int idx;
	unsigned int inflight;
	unsigned int pending; /* SQEs prepared, not yet submitted */
	unsigned int hung;    /* I/Os given up on: their memory is never freed */
	uint64_t hung_check_ns;
	bool stopping;
	bool fixed_file;
	bool fixed_bufs;
	bool ring_ok;
	unsigned int ring_flags;
	char *mem;
	size_t mem_len;
	char *sink;
	pthread_t tid;
	/* read by engine_run() after the join */
	uint64_t errors_total;
	uint64_t requeued_again;
	uint64_t requeued_short;
	int first_err;
	enum sample_dir first_err_dir;
	uint64_t first_err_off;
	uint32_t first_err_len;
	uint64_t first_err_ns;
	int setup_err;
	char setup_msg[160];
	/* written by the sampler */
	_Alignas(CACHELINE) _Atomic uint64_t gen_req;
	/* written by the worker, read by the sampler */
	_Alignas(CACHELINE) _Atomic uint64_t gen_ack;
	_Atomic uint64_t lw;
	_Atomic bool exited;
	_Atomic bool gone;
	_Alignas(CACHELINE) struct wstats stats[2];
};

struct engine {
	struct engine_job job;
	char *path;
	struct profile prof;
	struct engine_target tgt;
	int fd;
	uint32_t lba;
	uint64_t fp_off;
	uint64_t fp_len;
	uint64_t align;
	unsigned int nbs;
	uint32_t bs_bytes[PROFILE_BS_MAX];
	uint64_t bs_npos[PROFILE_BS_MAX]; /* random offsets per size */
	uint32_t max_bs;
	size_t slot_bytes;
	uint64_t read_thresh; /* a read when the low 32 random bits are below */
	bool sequential;
	bool writes;
	uint64_t stream_end;
	uint64_t total_bytes;
	uint64_t interval_ns;
	uint64_t io_timeout_ns;
	_Atomic uint64_t deadline_ns; /* CLOCK_MONOTONIC; moved to the ramp's real end */
	uint64_t wake_ns;
	unsigned int complete_min;
	unsigned int submit_batch;
	unsigned int ring_flags;
	bool ran;
	struct worker **w;
	struct wstats *agg; /* the sampler's merge of one interval */
	sem_t wake;
	bool sem_ok;
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cond;
	unsigned int gate_ready;
	int gate; /* 0 wait, 1 go, -1 abort */
	uint8_t bs_table[PROFILE_SHARE_SCALE];
	_Alignas(CACHELINE) _Atomic uint64_t cursor;
	_Alignas(CACHELINE) _Atomic int stop;
	_Atomic unsigned int running;
};

/* aligned_alloc() wants the size to be a multiple of the alignment */
static void *alloc_aligned(size_t size)
{
	return aligned_alloc(CACHELINE, (size + CACHELINE - 1) & ~(size_t)(CACHELINE - 1));
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec;
}

/* xorshift64* (Vigna): 3 shifts and a multiply per 64 random bits */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* floor(r * n / 2^64): uniform in [0, n) without a division */
static inline uint64_t mulhi(uint64_t r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)r * n) >> 64);
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

/* ---- workers ---------------------------------------------------------- */

static void engine_set_stop(struct engine *e, enum engine_stop_reason r)
{
	int expected = ENGINE_STOP_NONE;

	if (atomic_compare_exchange_strong(&e->stop, &expected, (int)r) && e->sem_ok)
		(void)sem_post(&e->wake);
}

/*
 * Claim the next piece of the shared sequential stream.  Pieces never cross
 * the end of the footprint (a pass) nor the end of the stream, so a pass
 * whose length is not a multiple of the transfer size ends with a shorter
 * piece.  One CAS per I/O, uncontended at one thread, and one 64-bit
 * division (tens of cycles, next to a system call per few I/Os).
 */
static inline bool stream_claim(struct engine *e, struct slot *s, uint32_t *len)
{
	uint64_t cur = atomic_load_explicit(&e->cursor, memory_order_relaxed);

	for (;;) {
		uint64_t pass, in, l = *len;

		if (cur >= e->stream_end)
			return false;
		pass = cur / e->fp_len;
		in = cur - pass * e->fp_len;
		if (l > e->fp_len - in)
			l = e->fp_len - in;
		if (l > e->stream_end - cur)
			l = e->stream_end - cur;
		if (atomic_compare_exchange_weak_explicit(&e->cursor, &cur, cur + l,
							  memory_order_relaxed,
							  memory_order_relaxed)) {
			s->pos = cur;
			s->pass = (uint32_t)(pass + 1);
			s->io_off = e->fp_off + in;
			*len = (uint32_t)l;
			return true;
		}
	}
}

static inline void stamp(struct worker *w, struct slot *s)
{
	uint64_t seq = ((uint64_t)w->idx << 48) | (w->wseq++ & ((1ULL << 48) - 1));

	for (uint32_t g = 0; g < s->io_len; g += ENGINE_STAMP_GRANULE) {
		struct engine_stamp *st = (struct engine_stamp *)(void *)(s->base + g);

		st->magic = ENGINE_STAMP_MAGIC;
		st->offset_bytes = s->io_off + g;
		st->io_offset_bytes = s->io_off;
		st->io_bytes = s->io_len;
		st->pass = s->pass;
		st->seq = seq;
	}
}

static inline void prep(struct worker *w, struct slot *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	int fd = w->fixed_file ? 0 : w->e->fd;

	if (unlikely(!sqe)) {
		/* cannot happen with at most iodepth SQEs per ring, but be safe */
		(void)io_uring_submit(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
		if (!sqe)
			abort();
	}
	if (w->fixed_bufs) {
		if (s->dir == DIR_READ)
			io_uring_prep_read_fixed(sqe, fd, s->buf, s->len, s->off, s->buf_index);
		else
			io_uring_prep_write_fixed(sqe, fd, s->buf, s->len, s->off, s->buf_index);
	} else {
		if (s->dir == DIR_READ)
			io_uring_prep_read(sqe, fd, s->buf, s->len, s->off);
		else
			io_uring_prep_write(sqe, fd, s->buf, s->len, s->off);
	}
	if (w->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, (uint64_t)(s - w->slots));
	if (++w->pending >= w->e->submit_batch) {
		(void)io_uring_submit(&w->ring);
		w->pending = 0;
	}
}

/* Start a new I/O in slot @s; false when there is nothing more to issue. */
static inline bool issue(struct worker *w, struct slot *s, uint64_t now)
{
	struct engine *e = w->e;
	uint64_t r = rng_next(&w->rng);
	unsigned int bs = 0;
	uint32_t len;

	if (e->nbs > 1)
		bs = e->bs_table[((r >> 32) * PROFILE_SHARE_SCALE) >> 32];
	len = e->bs_bytes[bs];
	s->dir = (uint32_t)r < e->read_thresh ? DIR_READ : DIR_WRITE;
	if (!e->sequential) {
		if (unlikely(w->budget_bytes != UINT64_MAX)) {
			if (!w->budget_bytes) {
				w->stopping = true;
				return false;
			}
			w->budget_bytes = w->budget_bytes > len ? w->budget_bytes - len : 0;
		}
		s->io_off = e->fp_off + mulhi(rng_next(&w->rng), e->bs_npos[bs]) * e->align;
		s->pass = 0;
	} else if (!stream_claim(e, s, &len)) {
		w->stopping = true;
		return false;
	}
	s->off = s->io_off;
	s->len = s->io_len = len;
	s->bs = (uint8_t)bs;
	s->submit_ns = now;
	s->active = 1;
	if (s->dir == DIR_WRITE) {
		s->buf = s->base;
		s->buf_index = (uint16_t)(s - w->slots);
		stamp(w, s);
	} else {
		s->buf = w->sink;
		s->buf_index = (uint16_t)e->job.iodepth;
	}
	prep(w, s);
	w->inflight++;
	return true;
}

static void hook(struct worker *w, const struct slot *s, int res)
{
	struct engine *e = w->e;
	struct engine_io io = {
		.thread = w->idx,
		.dir = (enum sample_dir)s->dir,
		.offset_bytes = s->io_off,
		.len_bytes = s->io_len,
		.res = res,
		.recorded = !e->job.ramp_ns || w->gen_seen > 0,
	};

	e->job.on_io(e->job.ctx, &io);
}

static void fail(struct worker *w, struct slot *s, int err, uint64_t now)
{
	struct engine *e = w->e;

	w->cur->errors++;
	if (!w->errors_total++) {
		w->first_err = err;
		w->first_err_dir = (enum sample_dir)s->dir;
		w->first_err_off = s->off;
		w->first_err_len = s->len;
		w->first_err_ns = now;
	}
	if (e->sequential && s->pos < w->fail_pos)
		w->fail_pos = s->pos;
	if (e->job.on_error == ENGINE_ERROR_STOP) {
		engine_set_stop(e, ENGINE_STOP_ERROR);
		w->stopping = true;
	}
}

static inline void complete(struct worker *w, const struct io_uring_cqe *cqe, uint64_t now)
{
	struct slot *s = &w->slots[cqe->user_data];
	int res = cqe->res;

	if (likely(res == (int)s->len)) {
		struct wstats *st = w->cur;

		hist_record(&st->lat[s->dir], now - s->submit_ns);
		st->ios[s->dir]++;
		st->bytes[s->dir] += s->io_len;
		st->bs_ios[s->bs]++;
		if (unlikely(w->e->job.on_io))
			hook(w, s, 0);
	} else if (res == -EAGAIN) {
		w->requeued_again++;
		prep(w, s);
		return;
	} else if (res > 0 && (uint32_t)res < s->len) {
		/* short transfer: the rest goes again; latency runs on */
		s->off += (uint32_t)res;
		s->buf += (uint32_t)res;
		s->len -= (uint32_t)res;
		w->requeued_short++;
		prep(w, s);
		return;
	} else {
		int err = res < 0 ? -res : EIO; /* 0 bytes: no progress */

		fail(w, s, err, now);
		if (unlikely(w->e->job.on_io))
			hook(w, s, -err);
	}
	s->active = 0;
	w->inflight--;
	if (likely(!w->stopping))
		issue(w, s, now);
}

/*
 * Low-water mark of this worker: below it, every claim it made has
 * completed.  Its later claims come from the cursor, so with nothing in
 * flight the cursor itself bounds them; a worker that has exited makes no
 * more claims and is bounded only by what it left unfinished or failed.
 */
static uint64_t worker_lw(struct worker *w, bool exiting)
{
	struct engine *e = w->e;
	uint64_t lw = exiting ? UINT64_MAX : atomic_load_explicit(&e->cursor, memory_order_relaxed);

	for (unsigned int i = 0; i < e->job.iodepth; i++)
		if (w->slots[i].active && w->slots[i].pos < lw)
			lw = w->slots[i].pos;
	return w->fail_pos < lw ? w->fail_pos : lw;
}

/* The sampler asked for generation @g: hand over the current buffer. */
static void worker_switch(struct worker *w, uint64_t g)
{
	w->gen_seen = g;
	w->cur = &w->stats[g & 1];
	if (w->e->sequential)
		atomic_store_explicit(&w->lw, worker_lw(w, false), memory_order_relaxed);
	atomic_store_explicit(&w->gen_ack, g, memory_order_release);
}

/*
 * Once a second: an I/O outstanding for io_timeout_ns is hung.  Nothing can
 * take it back from the kernel (a cancel does not reach a request the
 * device holds, and a task blocked in the kernel does not wake for it), so
 * the thread gives up on all it has in flight, counts them as errors and
 * stops the run.  Their buffers stay mapped for good: the kernel may still
 * transfer into them when the device answers.
 */
static bool worker_hung(struct worker *w, uint64_t now)
{
	struct engine *e = w->e;
	const struct slot *old = NULL;

	w->hung_check_ns = now;
	for (unsigned int i = 0; i < e->job.iodepth; i++) {
		const struct slot *s = &w->slots[i];

		if (s->active && (!old || s->submit_ns < old->submit_ns))
			old = s;
	}
	if (!old || now - old->submit_ns < e->io_timeout_ns)
		return false;
	snprintf(w->setup_msg, sizeof(w->setup_msg),
		 "%s at offset %llu (%u bytes) of %s not completed after %llu s: the device "
		 "does not answer; %u I/O%s abandoned",
		 old->dir == DIR_READ ? "read" : "write", (unsigned long long)old->io_off, old->io_len,
		 e->path, (unsigned long long)((now - old->submit_ns) / NSEC_PER_SEC), w->inflight,
		 w->inflight == 1 ? "" : "s");
	w->setup_err = -ETIMEDOUT;
	for (unsigned int i = 0; i < e->job.iodepth; i++) {
		struct slot *s = &w->slots[i];

		if (s->active) {
			fail(w, s, ETIMEDOUT, now);
			if (unlikely(e->job.on_io))
				hook(w, s, -ETIMEDOUT);
			s->active = 0;
		}
	}
	w->hung = w->inflight;
	w->inflight = 0;
	w->stopping = true;
	engine_set_stop(e, ENGINE_STOP_ERROR);
	return true;
}

static void worker_loop(struct worker *w)
{
	struct engine *e = w->e;
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(e->wake_ns / NSEC_PER_SEC),
		.tv_nsec = (long long)(e->wake_ns % NSEC_PER_SEC),
	};
	uint64_t now = mono_ns();

	/* a stop requested before the run began issues nothing */
	if (atomic_load_explicit(&e->stop, memory_order_relaxed))
		w->stopping = true;
	for (unsigned int i = 0; i < e->job.iodepth && !w->stopping; i++)
		if (!issue(w, &w->slots[i], now))
			break;
	for (;;) {
		struct io_uring_cqe *cqe;
		uint64_t g = atomic_load_explicit(&w->gen_req, memory_order_acquire);
		unsigned int head, n = 0, wait_nr, ready;
		int r;

		if (unlikely(g != w->gen_seen))
			worker_switch(w, g);
		if (unlikely(atomic_load_explicit(&e->stop, memory_order_relaxed)))
			w->stopping = true;
		if (!w->inflight)
			break;
		wait_nr = w->stopping || e->complete_min > w->inflight ? 1 : e->complete_min;
		r = io_uring_submit_and_wait_timeout(&w->ring, &cqe, wait_nr, &ts, NULL);
		w->pending = 0;
		if (unlikely(r < 0) && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
			/* the ring itself failed: nothing can be reaped any more */
			snprintf(w->setup_msg, sizeof(w->setup_msg),
				 "thread %u: io_uring_enter: %s", w->idx, strerror(-r));
			w->setup_err = r;
			engine_set_stop(e, ENGINE_STOP_ERROR);
			break;
		}
		/*
		 * Only the completions that are there before the clock is read:
		 * io_uring_for_each_cqe re-reads the tail, and an I/O re-issued
		 * in this loop (stamped with this same time, submitted by prep()
		 * once a batch is full) could complete before the loop ends and
		 * be recorded with a latency of 0.
		 */
		ready = io_uring_cq_ready(&w->ring);
		now = mono_ns();
		if (unlikely(now >= atomic_load_explicit(&e->deadline_ns, memory_order_relaxed)))
			w->stopping = true;
		io_uring_for_each_cqe(&w->ring, head, cqe)
		{
			if (n == ready)
				break;
			/* liburing's own timeout on kernels without EXT_ARG
			 * (LIBURING_UDATA_TIMEOUT) is not one of our slots */
			if (likely(cqe->user_data < e->job.iodepth))
				complete(w, cqe, now);
			n++;
		}
		io_uring_cq_advance(&w->ring, n);
		if (unlikely(now - w->hung_check_ns >= NSEC_PER_SEC) && worker_hung(w, now))
			break;
	}
	w->last_ns = now;
}

static int ring_init(struct worker *w)
{
	unsigned int flags = w->e->ring_flags;
	int r;

	/* Drop the newest flag the kernel rejects until it accepts the rest. */
	for (;;) {
		struct io_uring_params p = {.flags = flags};

		r = io_uring_queue_init_params(w->e->job.iodepth, &w->ring, &p);
		if (r != -EINVAL || !flags)
			break;
		flags &= ~(1U << (31 - __builtin_clz(flags)));
		if (!(flags & IORING_SETUP_SINGLE_ISSUER))
			flags &= ~IORING_SETUP_DEFER_TASKRUN;
	}
	if (r)
		return r;
	w->ring_ok = true;
	w->ring_flags = flags;
	(void)io_uring_register_ring_fd(&w->ring); /* saves an fdget per enter; optional */
	return 0;
}

static int worker_setup(struct worker *w)
{
	struct engine *e = w->e;
	unsigned int q = e->job.iodepth;
	_cleanup_free_ struct iovec *iov = NULL;
	int r;

	/* one buffer per slot for writes, one shared sink for reads */
	w->mem_len = (size_t)(q + 1) * e->slot_bytes;
	w->mem = mmap(NULL, w->mem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->mem == MAP_FAILED) {
		w->mem = NULL;
		snprintf(w->setup_msg, sizeof(w->setup_msg), "thread %u: %zu bytes of buffers: %s",
			 w->idx, w->mem_len, strerror(errno));
		return -ENOMEM;
	}
	w->sink = w->mem + (size_t)q * e->slot_bytes;
	if (e->writes) {
		uint64_t *p = (uint64_t *)(void *)w->mem;
		uint64_t seed = w->rng ^ 0xA0761D6478BD642FULL;

		for (size_t i = 0; i < (size_t)q * e->slot_bytes / 8; i++)
			p[i] = rng_next(&seed);
	}
	memset(w->sink, 0, e->slot_bytes);
	for (unsigned int i = 0; i < q; i++)
		w->slots[i].base = w->mem + (size_t)i * e->slot_bytes;

	r = ring_init(w);
	if (r) {
		snprintf(w->setup_msg, sizeof(w->setup_msg),
			 "thread %u: io_uring_queue_init(%u entries): %s", w->idx, q, strerror(-r));
		return r;
	}
	if (!e->job.no_register) {
		w->fixed_file = io_uring_register_files(&w->ring, &e->fd, 1) == 0;
		iov = calloc(q + 1, sizeof(*iov));
		if (!iov) {
			snprintf(w->setup_msg, sizeof(w->setup_msg), "thread %u: out of memory",
				 w->idx);
			return -ENOMEM;
		}
		for (unsigned int i = 0; i <= q; i++) {
			iov[i].iov_base = w->mem + (size_t)i * e->slot_bytes;
			iov[i].iov_len = e->slot_bytes;
		}
		/* fails without CAP_IPC_LOCK beyond RLIMIT_MEMLOCK: run unregistered */
		w->fixed_bufs = io_uring_register_buffers(&w->ring, iov, q + 1) == 0;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	struct io_uring hung_ring = { 0 };
	bool close_late = false;
	char name[16];
	int gate;

	snprintf(name, sizeof(name), "plateau-io/%u", w->idx);
	(void)pthread_setname_np(pthread_self(), name);
	w->setup_err = worker_setup(w);

	pthread_mutex_lock(&e->gate_lock);
	e->gate_ready++;
	pthread_cond_broadcast(&e->gate_cond);
	while (!e->gate)
		pthread_cond_wait(&e->gate_cond, &e->gate_lock);
	gate = e->gate;
	pthread_mutex_unlock(&e->gate_lock);

	if (gate > 0 && !w->setup_err)
		worker_loop(w);
	else
		w->last_ns = mono_ns();
	if (e->sequential)
		atomic_store_explicit(&w->lw, worker_lw(w, true), memory_order_relaxed);
	if (w->hung && w->ring_ok) {
		/*
		 * Closing a ring with requests in flight may wait for them on
		 * some kernels: it is closed after engine_run() may go on (from
		 * a copy: the worker is freed once gone).  Not unregistered:
		 * the hung I/O holds the file and buffers anyway.
		 */
		hung_ring = w->ring;
		w->ring_ok = false;
		close_late = true;
	} else if (w->ring_ok) {
		/*
		 * The ring is torn down asynchronously, and a registered file
		 * would keep the O_EXCL claim on a block device until then: the
		 * next job on the same device would see EBUSY.  Unregistering
		 * drops the reference now.
		 */
		if (w->fixed_file)
			(void)io_uring_unregister_files(&w->ring);
		if (w->fixed_bufs)
			(void)io_uring_unregister_buffers(&w->ring);
		io_uring_queue_exit(&w->ring);
		w->ring_ok = false;
	}
	atomic_store_explicit(&w->exited, true, memory_order_release);
	if (atomic_fetch_sub(&e->running, 1) == 1 && e->sem_ok)
		(void)sem_post(&e->wake);
	/* the last touch of the engine: a hung thread is not joined */
	atomic_store_explicit(&w->gone, true, memory_order_release);
	if (close_late)
		io_uring_queue_exit(&hung_ring);
	return NULL;
}

/* ---- sampler ---------------------------------------------------------- */

static void wstats_reset(struct wstats *st)
{
	memset(st, 0, offsetof(struct wstats, lat));
	hist_init(&st->lat[0]);
	hist_init(&st->lat[1]);
}

static void wstats_add(struct wstats *dst, const struct wstats *src, unsigned int nbs)
{
	for (int d = 0; d < 2; d++) {
		dst->ios[d] += src->ios[d];
		dst->bytes[d] += src->bytes[d];
		if (src->lat[d].count)
			hist_merge(&dst->lat[d], &src->lat[d]);
	}
	dst->errors += src->errors;
	for (unsigned int i = 0; i < nbs; i++)
		dst->bs_ios[i] += src->bs_ios[i];
}

/*
 * Take every worker's measurements since the previous generation into
 * e->agg (reset first) without stopping them.  Returns the request time.
 * @lw gets the stream's low-water mark: the minimum of the workers' marks
 * and of the cursor (nothing at or above it was claimed yet).
 */
static uint64_t collect(struct engine *e, uint64_t gen, uint64_t *lw, bool *all_exited)
{
	const struct timespec poll = {.tv_sec = 0, .tv_nsec = ACK_POLL_NS};
	uint64_t req_ns = mono_ns();
	unsigned int nexited = 0;

	wstats_reset(e->agg);
	*lw = UINT64_MAX;
	for (unsigned int i = 0; i < e->job.threads; i++)
		atomic_store_explicit(&e->w[i]->gen_req, gen, memory_order_release);
	for (unsigned int i = 0; i < e->job.threads; i++) {
		struct worker *w = e->w[i];
		uint64_t l;

		for (;;) {
			if (atomic_load_explicit(&w->exited, memory_order_acquire)) {
				nexited++;
				/* frozen: whatever is in either buffer is new */
				for (int b = 0; b < 2; b++) {
					wstats_add(e->agg, &w->stats[b], e->nbs);
					wstats_reset(&w->stats[b]);
				}
				break;
			}
			if (atomic_load_explicit(&w->gen_ack, memory_order_acquire) == gen) {
				struct wstats *old = &w->stats[(gen - 1) & 1];

				wstats_add(e->agg, old, e->nbs);
				wstats_reset(old);
				break;
			}
			nanosleep(&poll, NULL);
		}
		l = atomic_load_explicit(&w->lw, memory_order_relaxed);
		if (l < *lw)
			*lw = l;
	}
	if (atomic_load_explicit(&e->cursor, memory_order_relaxed) < *lw)
		*lw = atomic_load_explicit(&e->cursor, memory_order_relaxed);
	*all_exited = nexited == e->job.threads;
	return req_ns;
}

enum wait_result { WAIT_DONE, WAIT_TIME };

/* Sleep until @deadline (CLOCK_MONOTONIC ns, UINT64_MAX: none) or all workers exit. */
static enum wait_result wait_until(struct engine *e, uint64_t deadline)
{
	for (;;) {
		struct timespec ts;

		if (!atomic_load(&e->running))
			return WAIT_DONE;
		if (deadline != UINT64_MAX && mono_ns() >= deadline)
			return WAIT_TIME;
		if (deadline == UINT64_MAX) {
			/* a stop or an error also posts; just look again */
			(void)sem_wait(&e->wake);
			continue;
		}
		ts.tv_sec = (time_t)(deadline / NSEC_PER_SEC);
		ts.tv_nsec = (long)(deadline % NSEC_PER_SEC);
		(void)sem_clockwait(&e->wake, CLOCK_MONOTONIC, &ts);
	}
}

static void engine_start_gate(struct engine *e, int gate)
{
	pthread_mutex_lock(&e->gate_lock);
	e->gate = gate;
	pthread_cond_broadcast(&e->gate_cond);
	pthread_mutex_unlock(&e->gate_lock);
}

static int start_workers(struct engine *e, struct engine_result *res, unsigned int *created)
{
	sigset_t all, old;
	int r = 0;

	/* signals go to the caller's thread, where its handler can engine_stop() */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (*created = 0; *created < e->job.threads; (*created)++) {
		r = pthread_create(&e->w[*created]->tid, NULL, worker_main, e->w[*created]);
		if (r) {
			snprintf(res->msg, sizeof(res->msg), "creating worker thread %u: %s",
				 *created, strerror(r));
			r = -r;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&e->gate_lock);
	while (e->gate_ready < *created)
		pthread_cond_wait(&e->gate_cond, &e->gate_lock);
	pthread_mutex_unlock(&e->gate_lock);
	if (r)
		return r;
	for (unsigned int i = 0; i < e->job.threads; i++)
		if (e->w[i]->setup_err) {
			snprintf(res->msg, sizeof(res->msg), "%s", e->w[i]->setup_msg);
			return e->w[i]->setup_err;
		}
	return 0;
}

static void finish_result(struct engine *e, struct engine_result *res)
{
	const struct worker *first = NULL;

	for (unsigned int i = 0; i < e->job.threads; i++) {
		const struct worker *w = e->w[i];

		res->errors += w->errors_total;
		res->requeued_again += w->requeued_again;
		res->requeued_short += w->requeued_short;
		res->hung += w->hung;
		if (w->errors_total && (!first || w->first_err_ns < first->first_err_ns))
			first = w;
		if (w->setup_err && !res->msg[0])
			snprintf(res->msg, sizeof(res->msg), "%s", w->setup_msg);
	}
	if (first) {
		res->first_errno = first->first_err;
		res->first_error_dir = first->first_err_dir;
		res->first_error_offset_bytes = first->first_err_off;
		if (!res->msg[0])
			snprintf(res->msg, sizeof(res->msg),
				 "%s at offset %llu (%u bytes) of %s: %s",
				 first->first_err_dir == DIR_READ ? "read" : "write",
				 (unsigned long long)first->first_err_off, first->first_err_len,
				 e->path, strerror(first->first_err));
	}
	res->ring_flags = e->w[0]->ring_flags;
	res->registered_files = true;
	res->registered_buffers = true;
	for (unsigned int i = 0; i < e->job.threads; i++) {
		res->registered_files &= e->w[i]->fixed_file;
		res->registered_buffers &= e->w[i]->fixed_bufs;
	}
}

static enum engine_stop_reason natural_stop(struct engine *e)
{
	if (e->sequential &&
	    atomic_load_explicit(&e->cursor, memory_order_relaxed) >= e->stream_end)
		return e->job.fill_passes && e->stream_end == e->total_bytes ? ENGINE_STOP_DONE
									     : ENGINE_STOP_BYTES;
	if (!e->sequential && e->job.limit_bytes) {
		bool spent = true;

		for (unsigned int i = 0; i < e->job.threads; i++)
			spent &= e->w[i]->budget_bytes == 0;
		if (spent)
			return ENGINE_STOP_BYTES;
	}
	return ENGINE_STOP_DURATION;
}

int engine_run(struct engine *e, struct engine_result *res)
{
	uint64_t t0, mstart, prev, gen = 0, lw = UINT64_MAX, ramp_errors = 0, k = 1;
	struct engine_progress p = {.total_bytes = e->total_bytes};
	unsigned int created = 0;
	bool done = false;
	int64_t rt0;
	int r;

	memset(res, 0, sizeof(*res));
	hist_init(&res->hist[0]);
	hist_init(&res->hist[1]);
	if (e->ran) {
		snprintf(res->msg, sizeof(res->msg), "engine_run: an engine runs only once");
		return -EALREADY;
	}
	e->ran = true;
	atomic_store(&e->running, e->job.threads);

	r = start_workers(e, res, &created);
	/* the clock starts once every ring and buffer is ready */
	t0 = mono_ns();
	rt0 = real_ns();
	atomic_store(&e->deadline_ns,
		     e->job.duration_ns ? t0 + e->job.ramp_ns + e->job.duration_ns : UINT64_MAX);
	if (r) {
		/* workers never created must not be waited for */
		atomic_fetch_sub(&e->running, e->job.threads - created);
		engine_start_gate(e, -1);
		for (unsigned int i = 0; i < created; i++)
			pthread_join(e->w[i]->tid, NULL);
		res->stop = ENGINE_STOP_ERROR;
		return r;
	}
	engine_start_gate(e, 1);

	mstart = t0;
	if (e->job.ramp_ns) {
		(void)wait_until(e, t0 + e->job.ramp_ns);
		mstart = collect(e, ++gen, &lw, &done);
		ramp_errors = e->agg->errors;
		/* the measured part lasts duration_ns from the real end of the ramp */
		if (e->job.duration_ns)
			atomic_store(&e->deadline_ns, mstart + e->job.duration_ns);
	}
	res->start_ns = rt0 + (int64_t)(mstart - t0);
	prev = mstart;
	p.errors = ramp_errors;
	for (;;) {
		uint64_t boundary = mstart + k * e->interval_ns, end;
		struct sample s = {0};

		/* a boundary just before the planned end would leave a sliver */
		if (e->job.duration_ns &&
		    boundary + e->interval_ns / 10 >= atomic_load(&e->deadline_ns))
			boundary = UINT64_MAX;
		(void)wait_until(e, boundary);
		/* done when every worker had exited before its data was taken */
		end = collect(e, ++gen, &lw, &done);
		if (done) {
			end = prev;
			for (unsigned int i = 0; i < e->job.threads; i++)
				if (e->w[i]->last_ns > end)
					end = e->w[i]->last_ns;
		}
		for (int d = 0; d < 2; d++) {
			res->ios[d] += e->agg->ios[d];
			res->bytes[d] += e->agg->bytes[d];
			hist_merge(&res->hist[d], &e->agg->lat[d]);
		}
		for (unsigned int i = 0; i < e->nbs; i++)
			res->bs_ios[i] += e->agg->bs_ios[i];
		p.elapsed_ns = end - mstart;
		p.ios = res->ios[0] + res->ios[1];
		p.bytes = res->bytes[0] + res->bytes[1];
		p.errors += e->agg->errors;
		p.stream_bytes = e->sequential ? lw : 0;
		p.final = done;
		if (!done || e->agg->ios[0] + e->agg->ios[1] || e->agg->errors) {
			s.seq = e->job.seq_base + (int64_t)++res->samples;
			s.start_ns = rt0 + (int64_t)(prev - t0);
			s.end_ns = rt0 + (int64_t)(end - t0);
			s.errors = e->agg->errors;
			sample_summarize(&s, &e->agg->lat[0], e->agg->bytes[0], &e->agg->lat[1],
					 e->agg->bytes[1]);
			s.hist[0] = &e->agg->lat[0];
			s.hist[1] = &e->agg->lat[1];
			if (e->job.on_sample && e->job.on_sample(e->job.ctx, &s, &p) && !done)
				engine_set_stop(e, ENGINE_STOP_CALLBACK);
		}
		prev = end;
		if (done)
			break;
		/* a slow callback makes one long sample, not a burst of short ones */
		k = (mono_ns() - mstart) / e->interval_ns + 1;
	}
	/*
	 * A thread that gave up on hung I/O cannot finish exiting: the kernel
	 * waits for its io_uring workers, blocked with the I/O.  It is
	 * detached instead of joined once its code no longer touches the
	 * engine (gone), microseconds after it said it exited.
	 */
	for (unsigned int i = 0; i < e->job.threads; i++) {
		struct worker *w = e->w[i];

		if (!w->hung) {
			pthread_join(w->tid, NULL);
			continue;
		}
		while (!atomic_load_explicit(&w->gone, memory_order_acquire))
			nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		pthread_detach(w->tid);
	}

	finish_result(e, res);
	res->elapsed_ns = prev - mstart;
	res->end_ns = rt0 + (int64_t)(prev - t0);
	res->stream_bytes = e->sequential ? lw : 0;
	res->stop = (enum engine_stop_reason)atomic_load(&e->stop);
	if (res->stop == ENGINE_STOP_NONE)
		res->stop = natural_stop(e);
	/* a fill that went on past failed writes (on_error continue) is not
	 * done: its low-water mark stops at the first hole */
	if (res->stop == ENGINE_STOP_DONE && res->stream_bytes < e->total_bytes)
		res->stop = ENGINE_STOP_ERROR;
	for (unsigned int i = 0; i < e->job.threads; i++)
		if (e->w[i]->setup_err)
			return e->w[i]->setup_err;
	if (res->stop == ENGINE_STOP_ERROR && res->first_errno)
		return -res->first_errno;
	return 0;
}

void engine_stop(struct engine *e)
{
	int expected = ENGINE_STOP_NONE;

	/* async-signal-safe: a lock-free CAS and sem_post only */
	if (atomic_compare_exchange_strong(&e->stop, &expected, ENGINE_STOP_REQUEST) && e->sem_ok)
		(void)sem_post(&e->wake);
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
	wstats_reset(e->agg);
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
		wstats_reset(&w->stats[0]);
		wstats_reset(&w->stats[1]);
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
