/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_ENGINE_INT_H
#define PLATEAU_ENGINE_INT_H

/*
 * The engine's insides, shared by its three parts and by nothing else:
 * engine-worker.c (the I/O threads), engine-sampler.c (engine_run(): start
 * the workers, collect an interval at a time, stop) and engine.c (checking
 * a job and building the engine).
 */

#include <liburing.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "engine.h"

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
 * 5.19, SUBMIT_ALL 5.18); SQPOLL never by default (docs/performance.md:
 * it collapses with more rings than cores).
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

static inline void engine_set_stop(struct engine *e, enum engine_stop_reason r)
{
	int expected = ENGINE_STOP_NONE;

	if (atomic_compare_exchange_strong(&e->stop, &expected, (int)r) && e->sem_ok)
		(void)sem_post(&e->wake);
}

/* a worker thread (engine-worker.c); started by engine_run() */
void *engine_worker_main(void *arg);
/* zero one interval's counters and histograms (engine-sampler.c) */
void engine_wstats_reset(struct wstats *st);

#endif
