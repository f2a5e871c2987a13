// SPDX-License-Identifier: MIT
/*
 * erase: NVMe Sanitize and Format NVM through nvmex
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

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S)};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* "1h02m03s" style, for messages */
static char *fmt_secs(char *buf, size_t len, uint64_t s)
{
	if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum%02llus", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
	return buf;
}

static char *fmt_elapsed(char *buf, size_t len, uint64_t ns)
{
	if (ns < NS_PER_S) {
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000));
		return buf;
	}
	return fmt_secs(buf, len, ns / NS_PER_S);
}

/* ---- NVMe sanitize ---- */

/*
 * Poll the Sanitize Status log until the operation ends, the deadline
 * passes or the caller stops.  @m names the operation (for the estimate).
 */
int erase_sanitize_poll(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a,
			const struct nvmex_sanitize_status *first)
{
	bool resumed = first != NULL;
	uint64_t t0 = (uint64_t)clock_mono_ns();
	char tbuf[32], ebuf[32];

	for (;;) {
		struct nvmex_sanitize_status s;
		struct nvmex_err e = {0};
		uint32_t est;
		int r = 0;

		/* resuming: the page that showed the operation running is the first sample */
		if (first)
			s = *first;
		else
			r = nvmex_sanitize_status(fd, &s, &e);
		first = NULL;
		if (r < 0) {
			erase_attempt_nvme(a, &e, r);
			msg_set(a->msg, sizeof(a->msg), "while polling the sanitize: %s",
				e.msg[0] ? e.msg : strerror(-r));
			return r;
		}
		/* ETCE / ETBE, seconds (NVMe 1.4 Figure 259); FFFFFFFFh: none */
		est = m == ERASE_SANITIZE_CRYPTO ? s.etce_s : s.etbe_s;
		switch (s.state) {
		case NVMEX_SANITIZE_SUCCESS:
		case NVMEX_SANITIZE_SUCCESS_ND:
			erase_report(c, m, ERASE_PHASE_RUNNING, 1.0, est, t0, 0, 0, resumed);
			a->err = 0;
			msg_set(a->msg, sizeof(a->msg), "sanitize %s (SSTAT 0x%04x) after %s%s",
				nvmex_sanitize_state_name(s.state), s.sstat,
				fmt_elapsed(tbuf, sizeof(tbuf), (uint64_t)clock_mono_ns() - t0),
				resumed ? ", resumed: it was already in progress" : "");
			return 0;
		case NVMEX_SANITIZE_FAILED:
			a->err = -EIO;
			msg_set(a->msg, sizeof(a->msg),
				"sanitize failed: Sanitize Status log SSTAT 0x%04x (most recent "
				"sanitize operation failed); the drive now accepts only a new "
				"sanitize until one succeeds",
				s.sstat);
			return -EIO;
		case NVMEX_SANITIZE_IN_PROGRESS:
			erase_report(c, m, ERASE_PHASE_RUNNING, s.progress, est, t0, 0, 0, resumed);
			break;
		case NVMEX_SANITIZE_NEVER:
			/* the log may lag the command by a moment */
			if ((uint64_t)clock_mono_ns() - t0 > SANITIZE_NEVER_GRACE_NS) {
				a->err = -EIO;
				msg_set(a->msg, sizeof(a->msg),
					"Sanitize was accepted but the Sanitize Status log still "
					"says "
					"never sanitized after %s",
					fmt_elapsed(tbuf, sizeof(tbuf),
						    (uint64_t)clock_mono_ns() - t0));
				return -EIO;
			}
			erase_report(c, m, ERASE_PHASE_RUNNING, 0.0, est, t0, 0, 0, resumed);
			break;
		default:
			a->err = -EIO;
			msg_set(a->msg, sizeof(a->msg),
				"Sanitize Status log: reserved SSTAT 0x%04x", s.sstat);
			return -EIO;
		}
		if (deadline_passed(c)) {
			a->err = -ETIMEDOUT;
			if (est == NVMEX_TIME_NOT_REPORTED)
				snprintf(ebuf, sizeof(ebuf), "none reported");
			else
				fmt_secs(ebuf, sizeof(ebuf), est);
			msg_set(a->msg, sizeof(a->msg),
				"deadline: sanitize still in progress after %s at %.1f%% "
				"(controller estimate: %s); it cannot be aborted and continues "
				"in the drive, resume polls it",
				fmt_elapsed(tbuf, sizeof(tbuf), (uint64_t)clock_mono_ns() - t0),
				100.0 * s.progress, ebuf);
			return -ETIMEDOUT;
		}
		if (stop_requested(c)) {
			a->err = -ECANCELED;
			msg_set(a->msg, sizeof(a->msg),
				"stopped while polling at %.1f%%; the sanitize continues in the "
				"drive, resume polls it",
				100.0 * s.progress);
			return -ECANCELED;
		}
		{
			uint64_t wait = c->poll_ns, now = (uint64_t)clock_mono_ns();

			if (c->deadline_at_ns && c->deadline_at_ns > now &&
			    c->deadline_at_ns - now < wait)
				wait = c->deadline_at_ns - now;
			sleep_ns(wait);
		}
	}
}

int erase_sanitize(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a)
{
	struct nvmex_err e = {0};
	int r;

	r = nvmex_sanitize_start(fd,
				 m == ERASE_SANITIZE_CRYPTO ? NVMEX_SANACT_CRYPTO_ERASE
							    : NVMEX_SANACT_BLOCK_ERASE,
				 &e);
	a->sent = true;
	if (r < 0) {
		erase_attempt_nvme(a, &e, r);
		return r;
	}
	return erase_sanitize_poll(c, fd, m, a, NULL);
}

/* ---- NVMe format ---- */

int erase_format(const struct ctx *c, int *fd, enum erase_method m, struct erase_attempt *a)
{
	const struct target_identity *id = c->id;
	struct target_identity again;
	struct nvmex_ns_info ns = {
		.nsid = id->nsid,
		.lba_bytes = id->lba_bytes,
		.lbaf = id->flbas_index,
		.meta_extended = id->meta_extended,
		.meta_bytes = id->meta_bytes,
		.dps = id->dps,
		.dlfeat = id->dlfeat,
	};
	const char *path = id->block_path[0] ? id->block_path : id->path;
	struct nvmex_err e = {0};
	uint32_t tmo =
		c->o->format_timeout_ms ? c->o->format_timeout_ms : DEFAULT_FORMAT_TIMEOUT_MS;
	char msg[ERASE_MSG_LEN];
	uint64_t t0 = (uint64_t)clock_mono_ns();
	dev_t rdev_before;
	ino_t ino_before;
	int r, nfd;

	r = nvmex_format(*fd, &ns,
			 m == ERASE_FORMAT_CRYPTO ? NVMEX_SES_CRYPTO : NVMEX_SES_USER_DATA, tmo,
			 &e);
	a->sent = true;
	if (r < 0) {
		erase_attempt_nvme(a, &e, r);
		return r;
	}
	erase_report(c, m, ERASE_PHASE_RUNNING, 1.0, NVMEX_TIME_NOT_REPORTED, t0, 0, 0, false);

	/* the kernel revalidates the namespace after a format: use a fresh
	 * descriptor, of the same device (by number) as the one checked */
	{
		struct stat before;

		if (fstat(*fd, &before) < 0) {
			a->err = -errno;
			msg_set(a->msg, sizeof(a->msg), "formatted, but fstat failed: %s",
				strerror(errno));
			return a->err;
		}
		rdev_before = S_ISBLK(before.st_mode) ? before.st_rdev : 0;
		ino_before = before.st_ino;
	}
	close(*fd);
	*fd = -1;
	r = target_open(path, true, &nfd);
	if (r < 0) {
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "formatted, but re-opening %s failed: %s", path,
			strerror(-r));
		return r;
	}
	*fd = nfd;
	{
		struct stat after;

		if (fstat(nfd, &after) < 0 ||
		    (rdev_before ? after.st_rdev != rdev_before : after.st_ino != ino_before)) {
			a->err = -ESTALE;
			msg_set(a->msg, sizeof(a->msg),
				"formatted, but %s is no longer the device that was formatted",
				path);
			return -ESTALE;
		}
	}
	r = target_identify_fd(nfd, path, id->kind, &again, msg, sizeof(msg));
	if (r < 0) {
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "formatted, but identify after re-open failed: %s",
			msg);
		return r;
	}
	if (!target_same(id, &again)) {
		a->err = -ESTALE;
		msg_set(a->msg, sizeof(a->msg),
			"formatted, but after re-opening %s it no longer identifies as the same "
			"namespace (serial %s, %llu bytes)",
			path, again.serial, (unsigned long long)again.capacity_bytes);
		return -ESTALE;
	}
	msg_set(a->msg, sizeof(a->msg), "Format NVM SES=%d LBAF %u completed in %s",
		m == ERASE_FORMAT_CRYPTO ? 2 : 1, id->flbas_index,
		fmt_elapsed(msg, sizeof(msg), (uint64_t)clock_mono_ns() - t0));
	return 0;
}
