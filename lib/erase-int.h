/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_ERASE_INT_H
#define PLATEAU_ERASE_INT_H

/*
 * The erase module's insides, shared by its parts and by nothing else:
 * erase-method.c (which methods, in which order), erase.c (running the
 * chain, the record), erase-nvme.c (sanitize, format), erase-block.c
 * (block devices and files) and erase-verify.c (reading back).
 */

#include <stdbool.h>
#include <stdint.h>

#include "clock.h"
#include "erase.h"
#include "nvmex.h"

#define NS_PER_S 1000000000ull
#define DEFAULT_POLL_NS NS_PER_S
#define DEFAULT_FORMAT_TIMEOUT_MS (30u * 60u * 1000u)
#define DEFAULT_CHUNK_BYTES (1ull << 30)
#define DEFAULT_VERIFY_SAMPLES 16u
#define DEFAULT_VERIFY_RANGE_BYTES (1u << 20)
#define ZERO_BUF_BYTES (1u << 20)
/* A sanitize that the log still reports as "never sanitized" this long after
 * the command was accepted is not running. */
#define SANITIZE_NEVER_GRACE_NS (60ull * NS_PER_S)

/* one erase_run() or erase_resume() */
struct ctx {
	const struct target_identity *id;
	const struct erase_opts *o;
	struct erase_record *rec;
	uint64_t start_ns;
	uint64_t deadline_at_ns; /* 0: none */
	uint64_t poll_ns;
	uint64_t chunk_bytes;
};

static inline bool is_sanitize(enum erase_method m)
{
	return m == ERASE_SANITIZE_CRYPTO || m == ERASE_SANITIZE_BLOCK;
}

static inline bool is_format(enum erase_method m)
{
	return m == ERASE_FORMAT_CRYPTO || m == ERASE_FORMAT_USER;
}

static inline bool stop_requested(const struct ctx *c)
{
	return c->o->should_stop && c->o->should_stop(c->o->userdata);
}

static inline bool deadline_passed(const struct ctx *c)
{
	return c->deadline_at_ns && (uint64_t)clock_mono_ns() >= c->deadline_at_ns;
}

/* the record of an NVMe command that failed: its status and message */
void erase_attempt_nvme(struct erase_attempt *a, const struct nvmex_err *e, int r);
/* tell the caller's progress callback, if any */
void erase_report(const struct ctx *c, enum erase_method m, enum erase_phase ph, double frac,
		  uint32_t est_s, uint64_t t0, uint64_t done, uint64_t total, bool resumed);
/* erase-nvme.c: poll a sanitize to its end (@s: the status already read) */
int erase_sanitize_poll(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a,
			const struct nvmex_sanitize_status *s);
/* erase-nvme.c: start a sanitize and poll it to its end */
int erase_sanitize(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a);
/* erase-nvme.c: Format NVM; replaces *@fd with a fresh descriptor */
int erase_format(const struct ctx *c, int *fd, enum erase_method m, struct erase_attempt *a);
/* erase-block.c: discard, secure discard, zero or punch, a chunk at a time */
int erase_ranges(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a);

/* Below: parts the unit test (tests/unit/erase.c) pins down on fixtures. */

/**
 * erase_expected_pattern() - what an erased target should read as
 * @id: identity
 * @m: method that ran
 *
 * Return: 0xff after a sanitize on a namespace whose DLFEAT bits 2:0 are
 * 010b (deallocated blocks read FFh), else 0x00.
 */
uint8_t erase_expected_pattern(const struct target_identity *id, enum erase_method m);

#endif
