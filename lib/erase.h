/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_ERASE_H
#define PLATEAU_ERASE_H

/*
 * erase: pick and run the strongest erase a drive supports, show progress,
 * verify by reading back, and record what ran.
 *
 * NVMe, strongest first under "auto":
 *   sanitize-crypto  Sanitize, Crypto Erase     (Identify Controller SANICAP bit 0 CES)
 *   sanitize-block   Sanitize, Block Erase      (SANICAP bit 1 BES)
 *   format-crypto    Format NVM SES=2           (OACS bit 1 and FNA bit 2)
 *   format-user      Format NVM SES=1           (OACS bit 1)
 * A method the drive does not advertise is refused before anything is sent.
 * A command the drive rejects with a status (Invalid Command Opcode, Invalid
 * Field in Command, ...) is recorded with the decoded status and, under
 * "auto", the next method is tried.  A transport error (timeout, EIO), a
 * failed sanitize operation, or "Sanitize In Progress/Failed" stop the chain:
 * the drive is in a state an operator must look at.  Format with SES=0 is
 * never sent: it does not erase.  Under "auto" an NVMe drive with none of
 * the four fails (-EOPNOTSUPP) rather than falling back to a weak discard;
 * "discard" and "zero" may be asked for explicitly.
 *
 * Other block devices: secure-discard (BLKSECDISCARD), discard (BLKDISCARD,
 * when queue/discard_max_bytes > 0), zero (BLKZEROOUT, else O_DIRECT writes
 * of zeros); "auto" tries them in that order, moving on when the kernel says
 * EOPNOTSUPP.  Files: punch (fallocate PUNCH_HOLE|KEEP_SIZE), then zero.
 * "none" erases nothing and says so.
 *
 * Scope.  A sanitize alters every namespace of the NVM subsystem; Identify
 * Controller FNA bit 0 (format) and bit 1 (secure erase) make a format
 * apply to every namespace of the controller.  erase_dry_run() and the
 * record say so, and the gate (guard.h) then checks every namespace for
 * users.
 *
 * Sanitize runs in the background: it is started, then the Sanitize Status
 * log is polled (progress SPROG/65536 and the controller's own estimate go
 * to the progress callback).  A sanitize found already running (after a
 * crash or reboot) is polled, never started again.  It cannot be aborted:
 * when the deadline passes or the caller stops, erase returns -ETIMEDOUT /
 * -ECANCELED and says the operation continues; erase_resume() picks it up.
 *
 * Verify.  After an erase, sampled ranges are read back (the first and last
 * range and N random ones) and compared with the expected pattern: 0x00, or
 * 0xff when Identify Namespace DLFEAT bits 2:0 say deallocated blocks read
 * as FFh (only after a sanitize, which deallocates).
 *
 * lib/ never logs: progress goes to a callback, failures to the record.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target.h"

enum erase_method {
	ERASE_AUTO = 0,
	ERASE_SANITIZE_CRYPTO,
	ERASE_SANITIZE_BLOCK,
	ERASE_FORMAT_CRYPTO,
	ERASE_FORMAT_USER,
	ERASE_SECURE_DISCARD,
	ERASE_DISCARD,
	ERASE_ZERO,
	ERASE_PUNCH,
	ERASE_NONE,
	ERASE_METHOD_COUNT,
};

#define ERASE_BIT(m) (1u << (m))
#define ERASE_CHAIN_MAX 8
#define ERASE_ATTEMPTS_MAX 10
#define ERASE_WARNINGS_MAX 4
#define ERASE_MSG_LEN 256

enum erase_phase {
	ERASE_PHASE_START,   /* a method is about to be sent */
	ERASE_PHASE_RUNNING, /* sanitize polled / chunk done */
	ERASE_PHASE_VERIFY,  /* reading back */
	ERASE_PHASE_DONE,
};

/**
 * struct erase_progress - what the progress callback is told
 * @method: method running
 * @phase: see enum erase_phase
 * @fraction: 0..1 done, or -1 when unknown
 * @estimate_s: the controller's estimated total seconds (Sanitize Status log
 *              ETCE / ETBE), UINT32_MAX when it reports none
 * @elapsed_ns: since the method started
 * @done_bytes: discard / zero / verify: bytes done
 * @total_bytes: ... of this many
 * @resumed: a sanitize found in progress is being polled
 */
struct erase_progress {
	enum erase_method method;
	enum erase_phase phase;
	double fraction;
	uint32_t estimate_s;
	uint64_t elapsed_ns;
	uint64_t done_bytes;
	uint64_t total_bytes;
	bool resumed;
};

typedef void (*erase_progress_fn)(const struct erase_progress *p, void *userdata);
/* Return true to stop at the next step boundary (never mid-command). */
typedef bool (*erase_stop_fn)(void *userdata);

/**
 * struct erase_opts - how to erase
 * @method: ERASE_AUTO or one method
 * @want: the serial / EUI64 / NGUID / WWN the plan names (guard_erase()
 *        refuses without it, except for ERASE_NONE)
 * @kind: TARGET_UNKNOWN to detect (see target_identify_as())
 * @poll_interval_ns: Sanitize Status polling; 0: 1 s
 * @deadline_ns: overall limit for the erase (not the verify); 0: none
 * @format_timeout_ms: Format NVM command timeout; 0: 30 minutes
 * @chunk_bytes: discard / zero / punch step between stop checks; 0: 1 GiB
 * @verify_samples: random ranges read back besides the first and last; 0: 16
 * @verify_range_bytes: size of each range; 0: 1 MiB (capped to the device)
 * @verify_seed: seed for the random offsets (0: from the clock)
 * @no_verify: skip the read-back
 * @progress: progress callback, may be NULL
 * @should_stop: stop callback, may be NULL
 * @userdata: for both callbacks
 */
struct erase_opts {
	enum erase_method method;
	const char *want;
	enum target_kind kind;
	uint64_t poll_interval_ns;
	uint64_t deadline_ns;
	uint32_t format_timeout_ms;
	uint64_t chunk_bytes;
	unsigned verify_samples;
	uint32_t verify_range_bytes;
	uint64_t verify_seed;
	bool no_verify;
	erase_progress_fn progress;
	erase_stop_fn should_stop;
	void *userdata;
};

/**
 * struct erase_attempt - one method tried
 * @method: method
 * @sent: a command / ioctl reached the device (false: refused beforehand)
 * @err: 0 success, -EOPNOTSUPP not advertised / not supported, -EREMOTEIO
 *       the drive returned @nvme_status, other -errno
 * @nvme_status: NVMe status field (0 if none)
 * @msg: "Sanitize: Invalid Command Opcode (0x4001)", "SANICAP bit 0 (CES) is 0"
 */
struct erase_attempt {
	enum erase_method method;
	bool sent;
	int err;
	uint16_t nvme_status;
	char msg[ERASE_MSG_LEN];
};

/**
 * struct erase_verify - what reading back found
 * @done: verify ran
 * @passed: every range read as @expect
 * @expect: 0x00 or 0xff
 * @ranges: ranges read
 * @ranges_zero: ranges all 0x00
 * @ranges_ones: ranges all 0xff
 * @ranges_other: ranges with anything else
 * @bytes_read: total
 * @first_bad_offset: first range not matching @expect (UINT64_MAX if none)
 */
struct erase_verify {
	bool done;
	bool passed;
	uint8_t expect;
	unsigned ranges;
	unsigned ranges_zero;
	unsigned ranges_ones;
	unsigned ranges_other;
	uint64_t bytes_read;
	uint64_t first_bad_offset;
};

/**
 * struct erase_plan - what would run (erase_dry_run())
 * @requested: the method asked for
 * @chain: methods in the order they would be tried
 * @n_chain: how many
 * @all_namespaces: the erase would reach other namespaces than the target
 * @n_warnings: warnings kept
 * @warnings: scope warnings, e.g. "sanitize erases every namespace of the
 *            NVM subsystem", "FNA bit 0: a format applies to all namespaces"
 */
struct erase_plan {
	enum erase_method requested;
	enum erase_method chain[ERASE_CHAIN_MAX];
	size_t n_chain;
	bool all_namespaces;
	size_t n_warnings;
	char warnings[ERASE_WARNINGS_MAX][ERASE_MSG_LEN];
};

/**
 * struct erase_record - what happened (for the store and `plateau show`)
 * @requested: the method asked for
 * @ran: the method that erased the drive (ERASE_NONE if none did)
 * @completed: an erase (or "none") completed
 * @resumed: a sanitize already in progress was polled to its end
 * @plan: the chain and scope warnings
 * @n_attempts: attempts recorded
 * @attempts: in order, including refusals
 * @verify: read-back result
 * @elapsed_ns: erase time (without verify)
 * @err: 0 or the -errno guard_erase()/erase_run() returned
 * @msg: why it failed, empty on success
 */
struct erase_record {
	enum erase_method requested;
	enum erase_method ran;
	bool completed;
	bool resumed;
	struct erase_plan plan;
	size_t n_attempts;
	struct erase_attempt attempts[ERASE_ATTEMPTS_MAX];
	struct erase_verify verify;
	uint64_t elapsed_ns;
	int err;
	char msg[ERASE_MSG_LEN];
};

/**
 * erase_method_name() - "auto", "sanitize-crypto", ..., "none"
 * @m: method
 *
 * Return: a static string ("?" for out of range).
 */
const char *erase_method_name(enum erase_method m);

/**
 * erase_method_parse() - the inverse of erase_method_name()
 * @s: name
 * @m: result, written only on success
 *
 * Return: 0 or -EINVAL.
 */
int erase_method_parse(const char *s, enum erase_method *m);

/**
 * erase_methods_supported() - which methods a target advertises
 * @id: identity (kind and NVMe capability fields are used)
 *
 * NVMe: the sanitize and format methods SANICAP, OACS and FNA advertise,
 * plus discard and zero through the block device when there is one (on
 * explicit request only: "auto" never picks them).  Block devices: secure
 * discard and zero always (the kernel decides at run time), discard when
 * queue/discard_max_bytes is not 0.  Files: punch and zero.
 *
 * Return: bitmask of ERASE_BIT(method); ERASE_NONE is always included,
 * ERASE_AUTO never.
 */
uint32_t erase_methods_supported(const struct target_identity *id);

/**
 * erase_methods_str() - "sanitize-crypto,format-user,..." of a bitmask
 * @mask: ERASE_BIT() mask
 * @buf: destination
 * @len: size of @buf
 *
 * Names in enum order, comma-separated; the "auto" bit is ignored.  Only
 * whole names are written when @buf is too small.
 *
 * Return: @buf ("" for an empty mask).
 */
char *erase_methods_str(uint32_t mask, char *buf, size_t len);

/**
 * erase_dry_run() - what erase_run() would try, without sending anything
 * @id: identity
 * @method: requested method
 * @plan: result (zeroed first; @plan->requested is set even on failure)
 * @msg: why the request cannot run, on failure (may be NULL)
 * @msg_len: size of @msg
 *
 * Pure: reads only @id, sends nothing.
 *
 * Return: 0; -EOPNOTSUPP when the target does not offer @method, including
 * a method of another kind of target ("sanitize-crypto needs an NVMe
 * namespace"), or "auto" has nothing to run; -EINVAL for a value that is
 * not an enum erase_method.
 */
int erase_dry_run(const struct target_identity *id, enum erase_method method,
		  struct erase_plan *plan, char *msg, size_t msg_len);

/**
 * erase_run() - erase an open target
 * @fd: descriptor opened read-write with O_DIRECT (guard_open(), or
 *      target_open(..., true, ...)); a format closes it and stores a fresh
 *      one of the same device here, so pass a variable: -1 when re-opening
 *      failed.  The caller closes whatever @fd holds afterwards.
 * @id: identity of @fd (from target_identify_fd())
 * @o: options
 * @rec: result (zeroed first); @rec->msg says what failed
 *
 * Does not check identity or use: the gate (guard_open()) does first.
 * Blocks until the erase (and the read-back) is over, polling a sanitize
 * and calling @o->progress from the calling thread.  Verifies unless
 * @o->no_verify or the method was "none".
 *
 * Return: 0 when an erase completed (see @rec->verify for the read-back,
 * which may have failed to match), or -errno: -EOPNOTSUPP nothing
 * supported, -EREMOTEIO drive rejected the last method, -EIO sanitize
 * failed, -ESTALE the device re-opened after a format is not the same
 * namespace, -ETIMEDOUT deadline, -ECANCELED stopped, -EINVAL an unknown
 * method; another -errno from the device, or from the read-back after a
 * completed erase (then @rec->completed is true).
 */
int erase_run(int *fd, const struct target_identity *id, const struct erase_opts *o,
	      struct erase_record *rec);

/**
 * erase_resume() - follow a sanitize already in progress to its end
 * @fd: open NVMe namespace
 * @id: identity
 * @o: options (poll interval, deadline, callbacks, verify)
 * @rec: result; @rec->resumed is true when one was in progress
 *
 * Nothing is started.  When the Sanitize Status log shows no operation in
 * progress, reports how the most recent one ended.
 *
 * Return: 0 when a sanitize in progress completed, or the most recent one
 * completed and nothing was written since (SSTAT Global Data Erased);
 * -EOPNOTSUPP when @id is not an NVMe namespace that supports sanitize;
 * -ENOENT when there is nothing to resume (never sanitized, or written
 * since: erase again), -EIO when it failed, -ETIMEDOUT / -ECANCELED as
 * erase_run(); another -errno when the log page could not be read.
 */
int erase_resume(int fd, const struct target_identity *id, const struct erase_opts *o,
		 struct erase_record *rec);

/**
 * erase_verify() - read back sampled ranges
 * @fd: O_DIRECT descriptor
 * @id: identity (capacity, block size)
 * @expect: 0x00 or 0xff
 * @o: options (samples, range size, seed, callbacks)
 * @v: result (zeroed first)
 *
 * Reads the first and the last range and @o->verify_samples random ones
 * (one range when the target is no larger than a range), each aligned to
 * the logical block size.  A regular file's unaligned tail is read without
 * O_DIRECT.
 *
 * Return: 0 (whether or not it passed: see @v->passed), or -errno when
 * reading failed, -ENOMEM, -ECANCELED when stopped.
 */
int erase_verify(int fd, const struct target_identity *id, uint8_t expect,
		 const struct erase_opts *o, struct erase_verify *v);

#endif
