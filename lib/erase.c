// SPDX-License-Identifier: MIT
/*
 * erase: running the chain of methods, the record, erase_resume().
 * See erase.h for the rules.
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

static struct erase_attempt *attempt_new(struct erase_record *rec, enum erase_method m)
{
	struct erase_attempt *a;

	/* the chain is shorter than the array; should it not be, the last slot is reused */
	if (rec->n_attempts < ERASE_ATTEMPTS_MAX)
		a = &rec->attempts[rec->n_attempts++];
	else
		a = &rec->attempts[ERASE_ATTEMPTS_MAX - 1];
	memset(a, 0, sizeof(*a));
	a->method = m;
	return a;
}

void erase_attempt_nvme(struct erase_attempt *a, const struct nvmex_err *e, int r)
{
	a->err = r;
	a->nvme_status = e->status;
	msg_set(a->msg, sizeof(a->msg), "%s", e->msg[0] ? e->msg : strerror(-r));
}

void erase_report(const struct ctx *c, enum erase_method m, enum erase_phase ph, double frac,
		  uint32_t est_s, uint64_t t0, uint64_t done, uint64_t total, bool resumed)
{
	struct erase_progress p = {
		.method = m,
		.phase = ph,
		.fraction = frac,
		.estimate_s = est_s,
		.elapsed_ns = (uint64_t)clock_mono_ns() - t0,
		.done_bytes = done,
		.total_bytes = total,
		.resumed = resumed,
	};

	if (c->o->progress)
		c->o->progress(&p, c->o->userdata);
}

/* The erase a sanitize's CDW10 SANACT (bits 2:0) names. */
static enum erase_method sanact_method(uint32_t scdw10)
{
	switch (scdw10 & 0x7) {
	case NVMEX_SANACT_CRYPTO_ERASE:
		return ERASE_SANITIZE_CRYPTO;
	case NVMEX_SANACT_BLOCK_ERASE:
		return ERASE_SANITIZE_BLOCK;
	default:
		return ERASE_NONE; /* overwrite or exit-failure: not an action plateau starts */
	}
}

/* May auto move on to the next method after this attempt? */
static bool may_fall_back(const struct erase_attempt *a)
{
	if (!a->sent)
		return a->err == -EOPNOTSUPP;
	if (a->err == -EOPNOTSUPP || a->err == -ENOTTY)
		return true; /* the kernel refused the ioctl: nothing was done */
	if (a->err != -EREMOTEIO)
		return false; /* transport error, timeout: the drive's state is unknown */
	switch (nvmex_status_code(a->nvme_status)) {
	case NVMEX_SC_SANITIZE_FAILED:
	case NVMEX_SC_SANITIZE_IN_PROGRESS:
	case 0x084: /* Format In Progress */
		return false;
	default:
		/* path related errors are about reaching the drive, not the command */
		return nvmex_status_sct(a->nvme_status) != 3;
	}
}

/* ---- run ---- */

static void ctx_init(struct ctx *c, const struct target_identity *id, const struct erase_opts *o,
		     struct erase_record *rec)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->o = o;
	c->rec = rec;
	c->start_ns = (uint64_t)clock_mono_ns();
	c->deadline_at_ns = o->deadline_ns ? c->start_ns + o->deadline_ns : 0;
	c->poll_ns = o->poll_interval_ns ? o->poll_interval_ns : DEFAULT_POLL_NS;
	c->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK_BYTES;
}

static int finish(struct ctx *c, int fd, int r)
{
	struct erase_record *rec = c->rec;

	rec->elapsed_ns = (uint64_t)clock_mono_ns() - c->start_ns;
	if (r < 0) {
		rec->err = r;
		return r;
	}
	rec->completed = true;
	if (!c->o->no_verify && rec->ran != ERASE_NONE && fd >= 0) {
		r = erase_verify(fd, c->id, erase_expected_pattern(c->id, rec->ran), c->o,
				 &rec->verify);
		if (r < 0) {
			rec->err = r;
			msg_set(rec->msg, sizeof(rec->msg),
				"erased by %s, but reading back failed: %s",
				erase_method_name(rec->ran), strerror(-r));
			return r;
		}
	}
	erase_report(c, rec->ran, ERASE_PHASE_DONE, 1.0, NVMEX_TIME_NOT_REPORTED, c->start_ns, 0, 0,
		     rec->resumed);
	return 0;
}

/*
 * If a sanitize is already running, follow it instead of starting anything:
 * returns 1 when one was found and polled (result in @r_out), 0 when none.
 */
static int pick_up_sanitize(struct ctx *c, int fd, int *r_out)
{
	struct erase_record *rec = c->rec;
	struct nvmex_sanitize_status s;
	struct nvmex_err e = {0};
	struct erase_attempt *a;
	enum erase_method m;
	int r;

	r = nvmex_sanitize_status(fd, &s, &e);
	if (r < 0) {
		/* cannot know: refuse to send anything that could collide with one */
		a = attempt_new(rec, rec->requested);
		erase_attempt_nvme(a, &e, r);
		msg_set(rec->msg, sizeof(rec->msg),
			"cannot read the Sanitize Status log to rule out a sanitize in progress: "
			"%s",
			e.msg);
		*r_out = r;
		return 1;
	}
	if (s.state != NVMEX_SANITIZE_IN_PROGRESS)
		return 0;
	m = sanact_method(s.scdw10);
	a = attempt_new(rec, m);
	rec->resumed = true;
	r = erase_sanitize_poll(c, fd, m == ERASE_NONE ? ERASE_SANITIZE_BLOCK : m, a, &s);
	a->method = m;
	if (r == 0 && m == ERASE_NONE) {
		/* an overwrite sanitize (SANACT 3) is not one of plateau's methods and
		 * has no read-back here: once it is over, erase as planned, so the
		 * record says what erased the drive */
		msg_set(a->msg, sizeof(a->msg),
			"a sanitize plateau does not start (SANACT %u) was in progress and "
			"completed; not counted as an erase, the planned erase follows",
			s.scdw10 & 0x7);
		rec->resumed = false;
		return 0;
	}
	if (r == 0)
		rec->ran = m;
	else
		msg_set(rec->msg, sizeof(rec->msg), "%s", a->msg);
	*r_out = r;
	return 1;
}

int erase_run(int *fd, const struct target_identity *id, const struct erase_opts *o,
	      struct erase_record *rec)
{
	struct ctx c;
	int r = 0;

	memset(rec, 0, sizeof(*rec));
	rec->requested = o->method;
	rec->ran = ERASE_NONE;
	ctx_init(&c, id, o, rec);

	r = erase_dry_run(id, o->method, &rec->plan, rec->msg, sizeof(rec->msg));
	if (r < 0) {
		struct erase_attempt *a = attempt_new(rec, o->method);

		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "%s", rec->msg);
		return finish(&c, *fd, r);
	}
	if (o->method == ERASE_NONE) {
		msg_set(rec->msg, sizeof(rec->msg), "erase method none: nothing was erased");
		return finish(&c, *fd, 0);
	}

	/* a sanitize running since before a crash or reboot is polled, never restarted */
	if (id->kind == TARGET_NVME && (id->sanicap & (NVMEX_SANICAP_CES | NVMEX_SANICAP_BES)) &&
	    pick_up_sanitize(&c, *fd, &r))
		return finish(&c, *fd, r);

	r = -EOPNOTSUPP;
	for (size_t i = 0; i < rec->plan.n_chain; i++) {
		enum erase_method m = rec->plan.chain[i];
		struct erase_attempt *a;

		if (stop_requested(&c)) {
			msg_set(rec->msg, sizeof(rec->msg), "stopped before %s",
				erase_method_name(m));
			return finish(&c, *fd, -ECANCELED);
		}
		if (deadline_passed(&c)) {
			msg_set(rec->msg, sizeof(rec->msg), "deadline passed before %s",
				erase_method_name(m));
			return finish(&c, *fd, -ETIMEDOUT);
		}
		a = attempt_new(rec, m);
		erase_report(&c, m, ERASE_PHASE_START, 0.0, NVMEX_TIME_NOT_REPORTED,
			     (uint64_t)clock_mono_ns(), 0, id->capacity_bytes, false);
		if (is_sanitize(m))
			r = erase_sanitize(&c, *fd, m, a);
		else if (is_format(m))
			r = erase_format(&c, fd, m, a);
		else
			r = erase_ranges(&c, *fd, m, a);
		a->err = r;
		if (r == 0) {
			rec->ran = m;
			break;
		}
		msg_set(rec->msg, sizeof(rec->msg), "%s: %s", erase_method_name(m), a->msg);
		if (o->method != ERASE_AUTO || !may_fall_back(a))
			return finish(&c, *fd, r);
	}
	if (r < 0) {
		char last[ERASE_MSG_LEN];

		snprintf(last, sizeof(last), "%s", rec->msg);
		msg_set(rec->msg, sizeof(rec->msg), "every method failed; last %s", last);
		return finish(&c, *fd, r);
	}
	return finish(&c, *fd, 0);
}

int erase_resume(int fd, const struct target_identity *id, const struct erase_opts *o,
		 struct erase_record *rec)
{
	struct nvmex_sanitize_status s;
	struct nvmex_err e = {0};
	struct ctx c;
	int r;

	memset(rec, 0, sizeof(*rec));
	rec->requested = o->method;
	rec->ran = ERASE_NONE;
	ctx_init(&c, id, o, rec);
	if (id->kind != TARGET_NVME || !(id->sanicap & (NVMEX_SANICAP_CES | NVMEX_SANICAP_BES))) {
		msg_set(rec->msg, sizeof(rec->msg), "%s does not support sanitize", id->path);
		return finish(&c, -1, -EOPNOTSUPP);
	}
	if (pick_up_sanitize(&c, fd, &r))
		return finish(&c, fd, r);
	/* nothing running: report how the most recent one ended */
	r = nvmex_sanitize_status(fd, &s, &e);
	if (r < 0) {
		msg_set(rec->msg, sizeof(rec->msg), "%s", e.msg);
		return finish(&c, -1, r);
	}
	switch (s.state) {
	case NVMEX_SANITIZE_SUCCESS:
	case NVMEX_SANITIZE_SUCCESS_ND:
		/*
		 * SSTAT bit 8 Global Data Erased (NVMe 1.4 Figure 260): set while
		 * nothing has been written since that sanitize.  Without it the
		 * old sanitize says nothing about the data now: erase again.
		 */
		if (!s.global_data_erased) {
			msg_set(rec->msg, sizeof(rec->msg),
				"no sanitize in progress; the most recent one %s but data was "
				"written since (SSTAT 0x%04x, Global Data Erased is 0)",
				nvmex_sanitize_state_name(s.state), s.sstat);
			return finish(&c, -1, -ENOENT);
		}
		rec->ran = sanact_method(s.scdw10);
		msg_set(rec->msg, sizeof(rec->msg),
			"no sanitize in progress; the most recent one %s (SSTAT 0x%04x)",
			nvmex_sanitize_state_name(s.state), s.sstat);
		return finish(&c, fd, 0);
	case NVMEX_SANITIZE_FAILED:
		msg_set(rec->msg, sizeof(rec->msg),
			"no sanitize in progress; the most recent one failed (SSTAT 0x%04x)",
			s.sstat);
		return finish(&c, -1, -EIO);
	default:
		msg_set(rec->msg, sizeof(rec->msg), "no sanitize in progress; %s (SSTAT 0x%04x)",
			nvmex_sanitize_state_name(s.state), s.sstat);
		return finish(&c, -1, -ENOENT);
	}
}
