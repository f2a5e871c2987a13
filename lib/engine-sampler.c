// SPDX-License-Identifier: MIT
/* engine: engine_run() starts the workers, collects one interval at a time
 * from them and stops them */
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

#include "engine-int.h"

/* ---- sampler ---------------------------------------------------------- */

void engine_wstats_reset(struct wstats *st)
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
	uint64_t req_ns = (uint64_t)clock_mono_ns();
	unsigned int nexited = 0;

	engine_wstats_reset(e->agg);
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
					engine_wstats_reset(&w->stats[b]);
				}
				break;
			}
			if (atomic_load_explicit(&w->gen_ack, memory_order_acquire) == gen) {
				struct wstats *old = &w->stats[(gen - 1) & 1];

				wstats_add(e->agg, old, e->nbs);
				engine_wstats_reset(old);
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
		if (deadline != UINT64_MAX && (uint64_t)clock_mono_ns() >= deadline)
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
		r = pthread_create(&e->w[*created]->tid, NULL, engine_worker_main, e->w[*created]);
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
	t0 = (uint64_t)clock_mono_ns();
	rt0 = clock_wall_ns();
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
		k = ((uint64_t)clock_mono_ns() - mstart) / e->interval_ns + 1;
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
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
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
