// SPDX-License-Identifier: MIT
/* engine: the I/O worker threads, one io_uring each */
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

/* floor(r * n / 2^64): uniform in [0, n) without a division */
static inline uint64_t mulhi(uint64_t r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/* ---- workers ---------------------------------------------------------- */

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
		 old->dir == DIR_READ ? "read" : "write", (unsigned long long)old->io_off,
		 old->io_len, e->path, (unsigned long long)((now - old->submit_ns) / NSEC_PER_SEC),
		 w->inflight, w->inflight == 1 ? "" : "s");
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
	uint64_t now = (uint64_t)clock_mono_ns();

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
		now = (uint64_t)clock_mono_ns();
		if (unlikely(now >= atomic_load_explicit(&e->deadline_ns, memory_order_relaxed)))
			w->stopping = true;
		io_uring_for_each_cqe (&w->ring, head, cqe) {
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

void *engine_worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	struct io_uring hung_ring = {0};
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
		w->last_ns = (uint64_t)clock_mono_ns();
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
