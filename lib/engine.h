/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_ENGINE_H
#define PLATEAU_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "profile.h"
#include "sample.h"

/*
 * engine: the io_uring load generator.
 *
 * T worker threads, each with its own io_uring and Q I/Os always in flight,
 * against one block device or regular file opened with O_DIRECT (block
 * devices also O_EXCL).  Every offset and size is a multiple of the logical
 * block size.  The calling thread of engine_run() is the sampler: every
 * interval it takes each worker's counters and latency histograms without
 * pausing the I/O (double-buffered per worker, swapped on a generation
 * number the worker acknowledges at its next loop iteration), merges them
 * and hands one struct sample to the caller.
 *
 * Costs on the I/O path (docs/performance.md): one clock read per completion
 * batch, which also stamps the submissions of that batch; no locks and no
 * atomic read-modify-write per I/O (sequential workloads: one CAS per I/O
 * on the shared stream cursor); registered files and buffers; size, read or
 * write and offset from one xorshift64* draw each, a 10000-entry size
 * table and a multiply-high instead of a division.
 *
 * Write data: every slot's buffer is filled with random bytes once (per
 * thread seed), and every 4 KiB of each write (ENGINE_STAMP_GRANULE) starts
 * with a 40-byte struct engine_stamp that is unique per write (thread, write
 * sequence, device offset, fill pass).  So no two written 4 KiB blocks are
 * ever equal (nothing to deduplicate) and the rest is random (nothing to
 * compress), at the cost of a few stores per 4 KiB instead of fio's
 * refill_buffers regeneration of the whole buffer.  Reads land in one
 * per-thread sink buffer and never disturb the write data.  The stamps also
 * let tests check from the device's content where each write landed.
 */

#define ENGINE_THREADS_MAX 256
#define ENGINE_DEPTH_MAX 4096
#define ENGINE_INTERVAL_MIN_NS 100000000ULL	  /* 100 ms */
#define ENGINE_INTERVAL_DEFAULT_NS 60000000000ULL /* 60 s, docs/method.md */
/*
 * An I/O still outstanding after this long is hung.  Linux's NVMe driver
 * times a command out after 30 s (nvme_core.io_timeout), aborts it, resets
 * the controller and retries (nvme_core.max_retries, 5): a drive the kernel
 * still deals with has answered or failed well within 5 minutes.
 */
#define ENGINE_IO_TIMEOUT_DEFAULT_NS 300000000000ULL
#define ENGINE_IO_TIMEOUT_MIN_NS 1000000000ULL
#define ENGINE_STAMP_GRANULE 4096U
#define ENGINE_STAMP_MAGIC 0x31554145544c4150ULL /* "PLATEAU1" little endian */
/* engine_job.ring_flags: pick the io_uring setup flags at run time */
#define ENGINE_RING_FLAGS_AUTO (-1)

/**
 * struct engine_stamp - head of every ENGINE_STAMP_GRANULE bytes written
 * @magic: ENGINE_STAMP_MAGIC
 * @offset_bytes: device offset of this granule (where it should be)
 * @io_offset_bytes: device offset of the write that carried it
 * @io_bytes: length of that write
 * @pass: sequential workloads: 1-based pass over the footprint (stream
 *        position / footprint + 1); random workloads: 0
 * @seq: thread index << 48 | the thread's write count, unique per write
 *
 * Little endian, as the CPU writes it.  Writes shorter than a granule carry
 * one stamp at their start.
 */
struct engine_stamp {
	uint64_t magic;
	uint64_t offset_bytes;
	uint64_t io_offset_bytes;
	uint32_t io_bytes;
	uint32_t pass;
	uint64_t seq;
};

enum engine_on_error {
	ENGINE_ERROR_STOP,     /* the first I/O error ends the run (default) */
	ENGINE_ERROR_CONTINUE, /* count it and carry on */
};

enum engine_stop_reason {
	ENGINE_STOP_NONE,
	ENGINE_STOP_DURATION, /* duration_ns elapsed */
	ENGINE_STOP_BYTES,    /* limit_bytes issued */
	ENGINE_STOP_DONE,     /* a fill wrote all its passes */
	ENGINE_STOP_REQUEST,  /* engine_stop() */
	ENGINE_STOP_CALLBACK, /* on_sample returned nonzero */
	ENGINE_STOP_ERROR,    /* an I/O error under ENGINE_ERROR_STOP, or a ring failure */
};

/**
 * engine_stop_reason_name() - the name of a stop reason, for records and events
 * @r: reason
 *
 * Return: a static string: "duration", "bytes", "done", "request",
 * "callback", "error" or "none"; "?" for a value out of range.
 */
const char *engine_stop_reason_name(enum engine_stop_reason r);

/**
 * struct engine_target - what engine_target_probe() finds
 * @size_bytes: device or file size
 * @lba_bytes: logical block size: BLKSSZGET for a block device; for a
 *             file the direct I/O offset alignment (statx STATX_DIOALIGN),
 *             4096 where the file system does not say
 * @block_device: true for a block device
 */
struct engine_target {
	uint64_t size_bytes;
	uint32_t lba_bytes;
	bool block_device;
};

/**
 * engine_target_probe() - size and logical block size of a target
 * @path: block device or regular file
 * @ret: written only on success
 *
 * Opens @path read-only (O_NONBLOCK, never O_EXCL) for the length of the
 * call and does no I/O.
 *
 * Return: 0; -EINVAL for a NULL or empty @path or anything that is neither
 * a block device nor a regular file; -EIO when the device reports a logical
 * block size of 0; other -errno from open/fstat/ioctl.
 */
int engine_target_probe(const char *path, struct engine_target *ret);

/**
 * engine_target_probe_fd() - engine_target_probe() through a descriptor
 * @fd: open block device or regular file; the caller keeps it
 * @ret: written only on success
 *
 * Used where the target must be the one a check already opened, not
 * whatever its path names now.
 *
 * Return: 0; -EINVAL for anything but a block device or regular file; -EIO
 * for a logical block size of 0; other -errno from fstat/ioctl.
 */
int engine_target_probe_fd(int fd, struct engine_target *ret);

/**
 * engine_footprint() - the region a job works on (ActiveRange)
 * @target_bytes: size of the target
 * @lba_bytes: its logical block size
 * @offset_bytes: start of the region, a multiple of @lba_bytes
 * @size_bytes: length of the region, a multiple of @lba_bytes; 0 means up
 *              to the end of the target (rounded down to whole blocks)
 * @size_pct: when not 0, the length is this percentage (0 < pct <= 100)
 *            of the bytes from @offset_bytes to the end, rounded down to
 *            whole blocks, and @size_bytes is ignored; 0 uses @size_bytes
 * @ret_len: the length in bytes, written only on success
 * @err: filled with what was wrong on failure (may be NULL)
 * @errlen: size of @err
 *
 * Pure arithmetic: no I/O.
 *
 * Return: 0, or -EINVAL for a @lba_bytes that is not a power of two, an
 * unaligned offset or size, an offset at or past the end, a @size_pct
 * outside (0, 100], a region past the end, or a region under one block.
 */
int engine_footprint(uint64_t target_bytes, uint32_t lba_bytes, uint64_t offset_bytes,
		     uint64_t size_bytes, double size_pct, uint64_t *ret_len, char *err,
		     size_t errlen);

/**
 * struct engine_progress - where a run is, handed with every sample
 * @elapsed_ns: measured time so far (after the ramp)
 * @ios: successful I/Os so far (reads + writes, after the ramp)
 * @bytes: their bytes
 * @errors: I/O errors so far (ramp included)
 * @stream_bytes: sequential workloads: the low-water mark of the stream,
 *                i.e. every byte of the stream below it has been written
 *                (read) completely and successfully; a fill resumes from
 *                it (engine_job.resume_bytes) without leaving a hole.
 *                Counts from the start of pass 1, so a fill of N passes
 *                ends at N * footprint.  Random workloads: 0.
 * @total_bytes: a fill's end, passes * footprint; 0 otherwise
 * @final: the last sample of the run
 */
struct engine_progress {
	uint64_t elapsed_ns;
	uint64_t ios;
	uint64_t bytes;
	uint64_t errors;
	uint64_t stream_bytes;
	uint64_t total_bytes;
	bool final;
};

/**
 * struct engine_io - one finished I/O, for engine_job.on_io
 * @thread: worker index
 * @dir: SAMPLE_READ or SAMPLE_WRITE
 * @offset_bytes: device offset
 * @len_bytes: length
 * @res: 0 on success, else -errno
 * @recorded: false during the ramp
 */
struct engine_io {
	unsigned int thread;
	enum sample_dir dir;
	uint64_t offset_bytes;
	uint32_t len_bytes;
	int res;
	bool recorded;
};

/**
 * struct engine_job - everything a run needs; engine_new() copies it
 * @path: block device or regular file
 * @profile: the workload (pattern, read share, transfer sizes); sizes
 *           below the logical block size are rounded up to it
 * @threads: worker threads, 1..ENGINE_THREADS_MAX
 * @iodepth: I/Os in flight per thread, 1..ENGINE_DEPTH_MAX
 * @offset_bytes: footprint start (see engine_footprint())
 * @size_bytes: footprint length, 0 = to the end of the target
 * @align_bytes: random offsets are multiples of this; 0 = the smallest
 *               transfer size, as fio's blockalign default; must be a
 *               multiple of the logical block size
 * @duration_ns: measured run time after the ramp; 0 = no time limit
 * @limit_bytes: stop after issuing this many bytes in total (ramp
 *               included); sequential: exact, the stream ends at
 *               resume_bytes + limit_bytes; random: split evenly over the
 *               threads, each may overshoot by less than one transfer;
 *               0 = no limit
 * @ramp_ns: I/O runs but nothing is recorded for this long first
 * @interval_ns: sample interval, >= ENGINE_INTERVAL_MIN_NS; 0 = 60 s
 * @fill_passes: > 0 makes this a fill: a sequential write profile with one
 *               transfer size, ending after this many passes over the
 *               footprint (stop reason ENGINE_STOP_DONE)
 * @resume_bytes: sequential workloads: stream position to start at, a
 *                multiple of the logical block size; for a fill at most
 *                fill_passes * footprint
 * @seed: random offsets, sizes and read/write choices repeat for a seed
 * @on_error: ENGINE_ERROR_STOP or ENGINE_ERROR_CONTINUE
 * @seq_base: the first sample's seq is seq_base + 1
 * @on_sample: called by engine_run()'s thread once per interval and for
 *             the final partial interval; @s and its histograms are valid
 *             during the call only; nonzero stops the run
 * @on_io: test and diagnostic hook, NULL in production: called from the
 *         worker threads for every finished I/O (requeues are not finished)
 * @ctx: passed to the callbacks
 * @lba_bytes: 0 = probe; else a multiple of the probed logical block size
 *             (to run a 512-byte device as if it had 4 KiB blocks)
 * @ring_flags: ENGINE_RING_FLAGS_AUTO, or io_uring setup flags to try
 *              (each unsupported flag is dropped, as in auto)
 * @complete_min: completions to wait for per io_uring_enter; 0 = auto
 * @submit_batch: submit as soon as this many new I/Os are ready (1: each
 *                at once); 0 = auto
 * @no_register: do not register the file and buffers (for measurements)
 * @io_timeout_ns: an I/O outstanding this long is hung: the run stops
 *                 with -ETIMEDOUT and the thread gives up on every I/O it
 *                 still has in flight (counted as errors, and in @hung of
 *                 the result); >= ENGINE_IO_TIMEOUT_MIN_NS;
 *                 0 = ENGINE_IO_TIMEOUT_DEFAULT_NS
 * @use_fd: do I/O through @fd (duplicated; the caller keeps its own)
 *          instead of opening @path, which then only names it in messages:
 *          the descriptor the safety gate checked (lib/guard.h).  It must be
 *          open with O_DIRECT, read-write for a job that writes.
 * @fd: see @use_fd
 */
struct engine_job {
	const char *path;
	struct profile profile;
	unsigned int threads;
	unsigned int iodepth;
	uint64_t offset_bytes;
	uint64_t size_bytes;
	uint64_t align_bytes;
	uint64_t duration_ns;
	uint64_t limit_bytes;
	uint64_t ramp_ns;
	uint64_t interval_ns;
	unsigned int fill_passes;
	uint64_t resume_bytes;
	uint64_t seed;
	enum engine_on_error on_error;
	int64_t seq_base;
	int (*on_sample)(void *ctx, const struct sample *s, const struct engine_progress *p);
	void (*on_io)(void *ctx, const struct engine_io *io);
	void *ctx;
	uint32_t lba_bytes;
	int ring_flags;
	unsigned int complete_min;
	unsigned int submit_batch;
	bool no_register;
	uint64_t io_timeout_ns;
	bool use_fd;
	int fd;
};

/**
 * struct engine_result - what engine_run() measured
 * @ios: successful I/Os per direction (SAMPLE_READ, SAMPLE_WRITE), after
 *       the ramp; equal to the sum over the delivered samples
 * @bytes: their bytes
 * @errors: failed I/Os, ramp included
 * @first_errno: positive errno of the earliest failed I/O, 0 if none
 * @first_error_offset_bytes: its device offset (of the failing part, for
 *                            a requeued short transfer)
 * @first_error_dir: its direction
 * @requeued_again: I/Os resubmitted after -EAGAIN
 * @requeued_short: short transfers whose remainder was resubmitted
 * @elapsed_ns: measured time, from the end of the ramp to the last
 *              completion
 * @start_ns: CLOCK_REALTIME of the end of the ramp
 * @end_ns: CLOCK_REALTIME of the last completion
 * @samples: samples delivered
 * @stream_bytes: sequential workloads: final low-water mark (see struct
 *                engine_progress), the value to resume a fill from
 * @stop: why the run ended
 * @ring_flags: io_uring setup flags in use (of the first thread)
 * @registered_files: the target was registered with every ring
 * @registered_buffers: buffers were registered with every ring
 * @bs_ios: successful I/Os per transfer size, indexed like the job's
 *          profile after alignment (engine_profile())
 * @hist: merged latency histograms of the whole measured run, per
 *        direction (SAMPLE_READ, SAMPLE_WRITE)
 * @hung: I/Os given up on as hung (see @io_timeout_ns of the job); they
 *        are counted in @errors too
 * @msg: what failed, for the caller to print: a setup failure, hung I/O
 *       or the first I/O error ("write at offset 4198400 (4096 bytes): ...")
 */
struct engine_result {
	uint64_t ios[2];
	uint64_t bytes[2];
	uint64_t errors;
	int first_errno;
	uint64_t first_error_offset_bytes;
	enum sample_dir first_error_dir;
	uint64_t requeued_again;
	uint64_t requeued_short;
	uint64_t elapsed_ns;
	int64_t start_ns;
	int64_t end_ns;
	uint64_t samples;
	uint64_t stream_bytes;
	enum engine_stop_reason stop;
	unsigned int ring_flags;
	bool registered_files;
	bool registered_buffers;
	uint64_t bs_ios[PROFILE_BS_MAX];
	struct hist hist[2];
	uint64_t hung;
	char msg[256];
};

struct engine;

/**
 * engine_new() - validate a job and open its target
 * @job: the job, copied (path included)
 * @ret: the engine, written only on success
 * @err: on failure, what was wrong and what was expected
 * @errlen: size of @err
 *
 * Everything is checked here, before any I/O: threads, depth, interval,
 * the profile (sizes, percentages summing to 100, alignment to the logical
 * block size), the footprint against the target's size, the fill and
 * resume parameters, and the memory the buffers need.  The target is
 * opened (O_DIRECT, read-write only for a job that writes, block devices
 * O_EXCL) so that "in use" shows here; with job.use_fd, job.fd is
 * duplicated instead and the caller keeps its own.  Free the engine with
 * engine_free().
 *
 * Return: 0; -EINVAL for a bad parameter; -EBADF when job.fd (use_fd) is
 * not open with O_DIRECT, or not read-write for a job that writes;
 * -ENOMEM; other -errno from probing or opening the target (e.g. -EBUSY).
 */
int engine_new(const struct engine_job *job, struct engine **ret, char *err, size_t errlen);

/**
 * engine_run() - run the job to its end; blocking
 * @e: engine from engine_new(), run at most once
 * @res: filled in all cases
 *
 * Starts the workers, samples every interval on the calling thread (and
 * calls job.on_sample there), and returns when every worker has finished
 * its in-flight I/O.  The last, partial interval is always delivered as a
 * sample of its own with progress.final set (unless it holds no I/O and
 * no error), never merged into the previous one and never dropped; a
 * sample boundary within a tenth of an interval of a planned end
 * (duration_ns) is skipped so that a run of N whole intervals yields N
 * samples, the last one slightly longer by the final drain.
 *
 * Return: 0 when the run ended normally (duration, bytes, fill done,
 * engine_stop(), on_sample); -first_errno when an I/O error stopped it
 * (@res holds everything measured up to then); -ETIMEDOUT when an I/O
 * hung (job.io_timeout_ns): engine_run() returns without it, the
 * engine's buffers then stay allocated until the process exits, as the
 * kernel may still transfer into them; another -errno when the workers
 * could not start (ring setup, memory; @res->msg says which).
 */
int engine_run(struct engine *e, struct engine_result *res);

/**
 * engine_stop() - ask a running engine to stop
 * @e: engine
 *
 * Async-signal-safe and callable from any thread, before or during
 * engine_run().  Workers stop issuing at their next loop iteration and
 * engine_run() returns once the in-flight I/O has completed (or hung).
 */
void engine_stop(struct engine *e);

/**
 * engine_profile() - the profile actually run
 * @e: engine from engine_new()
 *
 * The job's profile after profile_align() to the logical block size: its
 * entries are what engine_result.bs_ios is indexed by.
 *
 * Return: a profile owned by @e, valid until engine_free().
 */
const struct profile *engine_profile(const struct engine *e);

/**
 * engine_footprint_offset() - where the resolved footprint starts
 * @e: engine from engine_new()
 *
 * Return: the footprint's first byte on the target (job.offset_bytes).
 */
uint64_t engine_footprint_offset(const struct engine *e);

/**
 * engine_footprint_bytes() - length of the resolved footprint
 * @e: engine from engine_new()
 *
 * Return: the footprint's length in bytes as engine_footprint() computed
 * it (job.size_bytes 0 resolved to the end of the target).
 */
uint64_t engine_footprint_bytes(const struct engine *e);

/**
 * engine_target() - the target as engine_new() probed it
 * @e: engine from engine_new()
 *
 * Return: size, logical block size and kind, owned by @e; @lba_bytes is
 * the probed one even when job.lba_bytes asked for a larger block size.
 */
const struct engine_target *engine_target(const struct engine *e);

/**
 * engine_free() - close the target and free an engine
 * @e: engine, or NULL
 *
 * Not while engine_run() is running.  The buffers of a worker that gave up
 * on hung I/O are not unmapped (the kernel may still write into them): they
 * stay allocated until the process exits.
 */
void engine_free(struct engine *e);

#endif
