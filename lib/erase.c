// SPDX-License-Identifier: MIT
/*
 * erase: method choice, NVMe sanitize/format through nvmex, block and file
 * fallbacks, read-back verification.  See erase.h for the rules.
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
#include "erase.h"
#include "guard.h"
#include "msg.h"
#include "nvmex.h"
#include "target.h"

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

static const char *const method_names[ERASE_METHOD_COUNT] = {
	[ERASE_AUTO] = "auto",
	[ERASE_SANITIZE_CRYPTO] = "sanitize-crypto",
	[ERASE_SANITIZE_BLOCK] = "sanitize-block",
	[ERASE_FORMAT_CRYPTO] = "format-crypto",
	[ERASE_FORMAT_USER] = "format-user",
	[ERASE_SECURE_DISCARD] = "secure-discard",
	[ERASE_DISCARD] = "discard",
	[ERASE_ZERO] = "zero",
	[ERASE_PUNCH] = "punch",
	[ERASE_NONE] = "none",
};

/* "auto", strongest first, per kind */
static const enum erase_method auto_nvme[] = {ERASE_SANITIZE_CRYPTO, ERASE_SANITIZE_BLOCK,
					      ERASE_FORMAT_CRYPTO, ERASE_FORMAT_USER};
static const enum erase_method auto_block[] = {ERASE_SECURE_DISCARD, ERASE_DISCARD, ERASE_ZERO};
static const enum erase_method auto_file[] = {ERASE_PUNCH, ERASE_ZERO};

struct ctx {
	const struct target_identity *id;
	const struct erase_opts *o;
	struct erase_record *rec;
	uint64_t start_ns;
	uint64_t deadline_at_ns; /* 0: none */
	uint64_t poll_ns;
	uint64_t chunk_bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

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

const char *erase_method_name(enum erase_method m)
{
	if ((unsigned)m >= ERASE_METHOD_COUNT)
		return "?";
	return method_names[m];
}

int erase_method_parse(const char *s, enum erase_method *m)
{
	if (!s)
		return -EINVAL;
	for (unsigned i = 0; i < ERASE_METHOD_COUNT; i++)
		if (strcmp(s, method_names[i]) == 0) {
			*m = (enum erase_method)i;
			return 0;
		}
	return -EINVAL;
}

uint32_t erase_methods_supported(const struct target_identity *id)
{
	uint32_t m = ERASE_BIT(ERASE_NONE);

	switch (id->kind) {
	case TARGET_NVME:
		/* Identify Controller SANICAP bit 0 CES / bit 1 BES (NVMe 1.4 5.15.2.1) */
		if (id->sanicap & NVMEX_SANICAP_CES)
			m |= ERASE_BIT(ERASE_SANITIZE_CRYPTO);
		if (id->sanicap & NVMEX_SANICAP_BES)
			m |= ERASE_BIT(ERASE_SANITIZE_BLOCK);
		/* OACS bit 1 Format NVM; FNA bit 2 cryptographic erase (NVMe 1.4 5.15.2.1) */
		if (id->oacs & NVMEX_OACS_FORMAT) {
			m |= ERASE_BIT(ERASE_FORMAT_USER);
			if (id->fna & NVMEX_FNA_CRYPTO_ERASE)
				m |= ERASE_BIT(ERASE_FORMAT_CRYPTO);
		}
		/* the block layer on the namespace, on explicit request only */
		if (id->block_path[0] && !id->ino)
			m |= ERASE_BIT(ERASE_DISCARD) | ERASE_BIT(ERASE_ZERO);
		break;
	case TARGET_BLOCK:
		/* the kernel says whether BLKSECDISCARD works (EOPNOTSUPP) */
		m |= ERASE_BIT(ERASE_SECURE_DISCARD) | ERASE_BIT(ERASE_ZERO);
		if (id->discard)
			m |= ERASE_BIT(ERASE_DISCARD);
		break;
	case TARGET_FILE:
		m |= ERASE_BIT(ERASE_PUNCH) | ERASE_BIT(ERASE_ZERO);
		break;
	default:
		break;
	}
	return m;
}

char *erase_methods_str(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned i = ERASE_SANITIZE_CRYPTO; i < ERASE_METHOD_COUNT; i++) {
		int w;

		if (!(mask & ERASE_BIT(i)))
			continue;
		w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", method_names[i]);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

static bool is_sanitize(enum erase_method m)
{
	return m == ERASE_SANITIZE_CRYPTO || m == ERASE_SANITIZE_BLOCK;
}

static bool is_format(enum erase_method m)
{
	return m == ERASE_FORMAT_CRYPTO || m == ERASE_FORMAT_USER;
}

/* Why @id does not offer @m, citing the capability field. */
static void refusal(const struct target_identity *id, enum erase_method m, char *msg, size_t len)
{
	const char *name = erase_method_name(m);

	if ((is_sanitize(m) || is_format(m)) && id->kind != TARGET_NVME) {
		msg_set(msg, len, "%s needs an NVMe namespace; %s is a %s", name, id->path,
			target_kind_name(id->kind));
		return;
	}
	switch (m) {
	case ERASE_SANITIZE_CRYPTO:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller SANICAP bit 0 (CES) is 0 "
			"(SANICAP 0x%08x)",
			name, id->sanicap);
		break;
	case ERASE_SANITIZE_BLOCK:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller SANICAP bit 1 (BES) is 0 "
			"(SANICAP 0x%08x)",
			name, id->sanicap);
		break;
	case ERASE_FORMAT_CRYPTO:
		if (!(id->oacs & NVMEX_OACS_FORMAT))
			msg_set(msg, len,
				"%s is not advertised: Identify Controller OACS bit 1 (Format NVM) "
				"is 0 (OACS 0x%04x)",
				name, id->oacs);
		else
			msg_set(msg, len,
				"%s is not advertised: Identify Controller FNA bit 2 (crypto "
				"erase) "
				"is 0 (FNA 0x%02x)",
				name, id->fna);
		break;
	case ERASE_FORMAT_USER:
		msg_set(msg, len,
			"%s is not advertised: Identify Controller OACS bit 1 (Format NVM) is 0 "
			"(OACS 0x%04x)",
			name, id->oacs);
		break;
	case ERASE_SECURE_DISCARD:
		msg_set(msg, len, "%s is for block devices; %s is a %s", name, id->path,
			target_kind_name(id->kind));
		break;
	case ERASE_DISCARD:
		if (id->kind == TARGET_BLOCK)
			msg_set(msg, len, "%s: %s does not discard (queue/discard_max_bytes is 0)",
				name, id->path);
		else
			msg_set(msg, len, "%s is not available for %s (%s)", name, id->path,
				target_kind_name(id->kind));
		break;
	case ERASE_PUNCH:
		msg_set(msg, len, "%s is for regular files; %s is a %s", name, id->path,
			target_kind_name(id->kind));
		break;
	default:
		msg_set(msg, len, "%s is not available for %s (%s)", name, id->path,
			target_kind_name(id->kind));
		break;
	}
}

static void add_warning(struct erase_plan *p, const char *f, ...)
	__attribute__((format(printf, 2, 3)));
static void add_warning(struct erase_plan *p, const char *f, ...)
{
	va_list ap;

	if (p->n_warnings >= ERASE_WARNINGS_MAX)
		return;
	va_start(ap, f);
	vsnprintf(p->warnings[p->n_warnings++], ERASE_MSG_LEN, f, ap);
	va_end(ap);
}

int erase_dry_run(const struct target_identity *id, enum erase_method method,
		  struct erase_plan *plan, char *msg, size_t msg_len)
{
	uint32_t sup = erase_methods_supported(id);
	const enum erase_method *order = NULL;
	size_t n_order = 0;
	bool any_sanitize = false, any_format = false;

	memset(plan, 0, sizeof(*plan));
	plan->requested = method;
	if ((unsigned)method >= ERASE_METHOD_COUNT) {
		msg_set(msg, msg_len, "unknown erase method %d", (int)method);
		return -EINVAL;
	}
	if (method == ERASE_AUTO) {
		switch (id->kind) {
		case TARGET_NVME:
			order = auto_nvme;
			n_order = ARRAY_SIZE(auto_nvme);
			break;
		case TARGET_BLOCK:
			order = auto_block;
			n_order = ARRAY_SIZE(auto_block);
			break;
		case TARGET_FILE:
			order = auto_file;
			n_order = ARRAY_SIZE(auto_file);
			break;
		default:
			break;
		}
		for (size_t i = 0; i < n_order; i++)
			if (sup & ERASE_BIT(order[i]))
				plan->chain[plan->n_chain++] = order[i];
		if (plan->n_chain == 0) {
			if (id->kind == TARGET_NVME)
				msg_set(msg, msg_len,
					"%s advertises no erase: Identify Controller SANICAP "
					"0x%08x "
					"(no crypto/block erase), OACS 0x%04x (bit 1 Format NVM is "
					"0)",
					id->path, id->sanicap, id->oacs);
			else
				msg_set(msg, msg_len, "%s: no erase method for a %s", id->path,
					target_kind_name(id->kind));
			return -EOPNOTSUPP;
		}
	} else if (method == ERASE_NONE) {
		plan->chain[plan->n_chain++] = ERASE_NONE;
	} else {
		if (!(sup & ERASE_BIT(method))) {
			refusal(id, method, msg, msg_len);
			return -EOPNOTSUPP;
		}
		plan->chain[plan->n_chain++] = method;
	}

	for (size_t i = 0; i < plan->n_chain; i++) {
		any_sanitize |= is_sanitize(plan->chain[i]);
		any_format |= is_format(plan->chain[i]);
	}
	if (any_sanitize) {
		/* Sanitize operates on the whole NVM subsystem (NVMe 1.4 8.15) */
		add_warning(plan,
			    "sanitize erases every namespace of the NVM subsystem behind %s, "
			    "not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	if (any_format && (id->fna & NVMEX_FNA_FORMAT_ALL_NS)) {
		add_warning(plan,
			    "Identify Controller FNA bit 0 is set: Format NVM formats every "
			    "namespace of %s, not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	if (any_format && (id->fna & NVMEX_FNA_SECURE_ALL_NS)) {
		add_warning(plan,
			    "Identify Controller FNA bit 1 is set: a secure erase by Format NVM "
			    "erases every namespace of %s, not only namespace %u",
			    id->ctrl[0] ? id->ctrl : id->path, id->nsid);
		plan->all_namespaces = true;
	}
	return 0;
}

/* ---- records and callbacks ---- */

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

static void attempt_from_nvme(struct erase_attempt *a, const struct nvmex_err *e, int r)
{
	a->err = r;
	a->nvme_status = e->status;
	msg_set(a->msg, sizeof(a->msg), "%s", e->msg[0] ? e->msg : strerror(-r));
}

static bool stop_requested(const struct ctx *c)
{
	return c->o->should_stop && c->o->should_stop(c->o->userdata);
}

static bool deadline_passed(const struct ctx *c)
{
	return c->deadline_at_ns && now_ns() >= c->deadline_at_ns;
}

static void report(const struct ctx *c, enum erase_method m, enum erase_phase ph, double frac,
		   uint32_t est_s, uint64_t t0, uint64_t done, uint64_t total, bool resumed)
{
	struct erase_progress p = {
		.method = m,
		.phase = ph,
		.fraction = frac,
		.estimate_s = est_s,
		.elapsed_ns = now_ns() - t0,
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

/* ---- NVMe sanitize ---- */

/*
 * Poll the Sanitize Status log until the operation ends, the deadline
 * passes or the caller stops.  @m names the operation (for the estimate).
 */
static int sanitize_poll(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a,
			 const struct nvmex_sanitize_status *first)
{
	bool resumed = first != NULL;
	uint64_t t0 = now_ns();
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
			attempt_from_nvme(a, &e, r);
			msg_set(a->msg, sizeof(a->msg), "while polling the sanitize: %s",
				e.msg[0] ? e.msg : strerror(-r));
			return r;
		}
		/* ETCE / ETBE, seconds (NVMe 1.4 Figure 259); FFFFFFFFh: none */
		est = m == ERASE_SANITIZE_CRYPTO ? s.etce_s : s.etbe_s;
		switch (s.state) {
		case NVMEX_SANITIZE_SUCCESS:
		case NVMEX_SANITIZE_SUCCESS_ND:
			report(c, m, ERASE_PHASE_RUNNING, 1.0, est, t0, 0, 0, resumed);
			a->err = 0;
			msg_set(a->msg, sizeof(a->msg), "sanitize %s (SSTAT 0x%04x) after %s%s",
				nvmex_sanitize_state_name(s.state), s.sstat,
				fmt_elapsed(tbuf, sizeof(tbuf), now_ns() - t0),
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
			report(c, m, ERASE_PHASE_RUNNING, s.progress, est, t0, 0, 0, resumed);
			break;
		case NVMEX_SANITIZE_NEVER:
			/* the log may lag the command by a moment */
			if (now_ns() - t0 > SANITIZE_NEVER_GRACE_NS) {
				a->err = -EIO;
				msg_set(a->msg, sizeof(a->msg),
					"Sanitize was accepted but the Sanitize Status log still "
					"says "
					"never sanitized after %s",
					fmt_elapsed(tbuf, sizeof(tbuf), now_ns() - t0));
				return -EIO;
			}
			report(c, m, ERASE_PHASE_RUNNING, 0.0, est, t0, 0, 0, resumed);
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
				fmt_elapsed(tbuf, sizeof(tbuf), now_ns() - t0), 100.0 * s.progress,
				ebuf);
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
			uint64_t wait = c->poll_ns, now = now_ns();

			if (c->deadline_at_ns && c->deadline_at_ns > now &&
			    c->deadline_at_ns - now < wait)
				wait = c->deadline_at_ns - now;
			sleep_ns(wait);
		}
	}
}

static int run_sanitize(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a)
{
	struct nvmex_err e = {0};
	int r;

	r = nvmex_sanitize_start(fd,
				 m == ERASE_SANITIZE_CRYPTO ? NVMEX_SANACT_CRYPTO_ERASE
							    : NVMEX_SANACT_BLOCK_ERASE,
				 &e);
	a->sent = true;
	if (r < 0) {
		attempt_from_nvme(a, &e, r);
		return r;
	}
	return sanitize_poll(c, fd, m, a, NULL);
}

/* ---- NVMe format ---- */

static int run_format(const struct ctx *c, int *fd, enum erase_method m, struct erase_attempt *a)
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
	uint64_t t0 = now_ns();
	dev_t rdev_before;
	ino_t ino_before;
	int r, nfd;

	r = nvmex_format(*fd, &ns,
			 m == ERASE_FORMAT_CRYPTO ? NVMEX_SES_CRYPTO : NVMEX_SES_USER_DATA, tmo,
			 &e);
	a->sent = true;
	if (r < 0) {
		attempt_from_nvme(a, &e, r);
		return r;
	}
	report(c, m, ERASE_PHASE_RUNNING, 1.0, NVMEX_TIME_NOT_REPORTED, t0, 0, 0, false);

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
				"formatted, but %s is no longer the device that was formatted", path);
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
		fmt_elapsed(msg, sizeof(msg), now_ns() - t0));
	return 0;
}

/* ---- block devices and files ---- */

static int write_zeros(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a,
		       uint64_t t0)
{
	uint64_t total = c->id->capacity_bytes, off = 0;
	_cleanup_free_ void *buf = NULL;
	int r;

	if (posix_memalign(&buf, 4096, ZERO_BUF_BYTES))
		return -ENOMEM;
	memset(buf, 0, ZERO_BUF_BYTES);
	while (off < total) {
		size_t len = total - off < ZERO_BUF_BYTES ? (size_t)(total - off) : ZERO_BUF_BYTES;
		ssize_t w;

		if (stop_requested(c) || deadline_passed(c)) {
			r = stop_requested(c) ? -ECANCELED : -ETIMEDOUT;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s after %llu of %llu bytes zeroed",
				r == -ECANCELED ? "stopped" : "deadline", (unsigned long long)off,
				(unsigned long long)total);
			return r;
		}
		if (len % c->id->lba_bytes) {
			/* a file's unaligned tail: O_DIRECT cannot write it */
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
				return -errno;
			w = pwrite(fd, buf, len, (off_t)off);
			r = errno;
			(void)fcntl(fd, F_SETFL, fl);
			errno = r;
		} else {
			w = pwrite(fd, buf, len, (off_t)off);
		}
		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "writing zeros at %llu: %s",
				(unsigned long long)off, strerror(-r));
			return r;
		}
		if (w == 0) {
			a->err = -EIO;
			msg_set(a->msg, sizeof(a->msg), "writing zeros at %llu: no progress",
				(unsigned long long)off);
			return -EIO;
		}
		off += (uint64_t)w;
		report(c, m, ERASE_PHASE_RUNNING, (double)off / (double)total,
		       NVMEX_TIME_NOT_REPORTED, t0, off, total, false);
	}
	if (fdatasync(fd) < 0) {
		r = -errno;
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "fdatasync after zeroing: %s", strerror(-r));
		return r;
	}
	msg_set(a->msg, sizeof(a->msg), "wrote zeros over %llu bytes", (unsigned long long)total);
	return 0;
}

static const char *blk_op_name(enum erase_method m)
{
	switch (m) {
	case ERASE_SECURE_DISCARD:
		return "BLKSECDISCARD";
	case ERASE_DISCARD:
		return "BLKDISCARD";
	case ERASE_ZERO:
		return "BLKZEROOUT";
	default:
		return "fallocate(PUNCH_HOLE)";
	}
}

static int run_ranges(const struct ctx *c, int fd, enum erase_method m, struct erase_attempt *a)
{
	uint64_t total = c->id->capacity_bytes, off = 0, t0 = now_ns();
	uint64_t chunk = c->chunk_bytes;
	bool file = c->id->kind == TARGET_FILE;
	int r;

	if (m == ERASE_ZERO && file) {
		a->sent = true;
		return write_zeros(c, fd, m, a, t0);
	}
	/* keep chunks a multiple of the block size */
	chunk -= chunk % (c->id->lba_bytes ? c->id->lba_bytes : 512);
	if (!chunk)
		chunk = DEFAULT_CHUNK_BYTES;
	while (off < total) {
		uint64_t len = total - off < chunk ? total - off : chunk;
		uint64_t range[2] = {off, len};

		if (stop_requested(c) || deadline_passed(c)) {
			r = stop_requested(c) ? -ECANCELED : -ETIMEDOUT;
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s after %llu of %llu bytes (%s)",
				r == -ECANCELED ? "stopped" : "deadline", (unsigned long long)off,
				(unsigned long long)total, blk_op_name(m));
			return r;
		}
		a->sent = true;
		if (m == ERASE_PUNCH)
			r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
				      (off_t)len);
		else
			r = ioctl(fd,
				  m == ERASE_SECURE_DISCARD ? BLKSECDISCARD
				  : m == ERASE_DISCARD	    ? BLKDISCARD
							    : BLKZEROOUT,
				  range);
		if (r < 0) {
			r = -errno;
			if (r == -EINTR)
				continue;
			if (m == ERASE_ZERO && off == 0 && (r == -EOPNOTSUPP || r == -ENOTTY))
				/* no write-zeroes path: write them */
				return write_zeros(c, fd, m, a, t0);
			a->err = r;
			msg_set(a->msg, sizeof(a->msg), "%s on %s at %llu: %s", blk_op_name(m),
				c->id->path, (unsigned long long)off, strerror(-r));
			return r;
		}
		off += len;
		report(c, m, ERASE_PHASE_RUNNING, (double)off / (double)total,
		       NVMEX_TIME_NOT_REPORTED, t0, off, total, false);
	}
	if (file && fsync(fd) < 0) {
		r = -errno;
		a->err = r;
		msg_set(a->msg, sizeof(a->msg), "fsync after punching holes: %s", strerror(-r));
		return r;
	}
	msg_set(a->msg, sizeof(a->msg), "%s over %llu bytes", blk_op_name(m),
		(unsigned long long)total);
	return 0;
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

/* ---- verify ---- */

uint8_t erase_expected_pattern(const struct target_identity *id, enum erase_method m)
{
	/* DLFEAT bits 2:0 = 010b: deallocated blocks read as FFh (NVMe 1.4 Figure 245) */
	if (id->kind == TARGET_NVME && (is_sanitize(m) || is_format(m)) &&
	    (id->dlfeat & NVMEX_DLFEAT_READ_MASK) == NVMEX_DLFEAT_READ_ONES)
		return 0xff;
	return 0x00;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int classify(const uint8_t *b, size_t n)
{
	bool zero = true, ones = true;

	for (size_t i = 0; i < n && (zero || ones); i++) {
		zero &= b[i] == 0x00;
		ones &= b[i] == 0xff;
	}
	return zero ? 0 : ones ? 1 : 2;
}

int erase_verify(int fd, const struct target_identity *id, uint8_t expect,
		 const struct erase_opts *o, struct erase_verify *v)
{
	uint64_t cap = id->capacity_bytes, t0 = now_ns(), seed, span;
	uint32_t align = id->lba_bytes ? id->lba_bytes : 512;
	uint64_t range = o->verify_range_bytes ? o->verify_range_bytes : DEFAULT_VERIFY_RANGE_BYTES;
	unsigned samples = o->verify_samples ? o->verify_samples : DEFAULT_VERIFY_SAMPLES;
	unsigned total_ranges;
	_cleanup_free_ uint8_t *buf = NULL;
	struct ctx c = {.id = id, .o = o};

	memset(v, 0, sizeof(*v));
	v->expect = expect;
	v->first_bad_offset = UINT64_MAX;
	if (align < 512)
		align = 512;
	if (range > cap)
		range = cap;
	range -= range % align;
	if (range == 0) {
		/* smaller than one block: read what there is without O_DIRECT alignment */
		range = cap;
	}
	if (posix_memalign((void **)&buf, 4096, range ? range + align : align))
		return -ENOMEM;
	seed = o->verify_seed ? o->verify_seed : (now_ns() ^ ((uint64_t)getpid() << 32));
	if (!seed)
		seed = 0x9E3779B97F4A7C15ull;
	span = cap > range ? (cap - range) / align : 0;
	/* first and last range, then the random ones; one range covers a tiny target */
	total_ranges = cap == 0 ? 0 : cap > range ? 2 + samples : 1;

	for (unsigned i = 0; i < total_ranges; i++) {
		uint64_t off;
		size_t got = 0;

		if (i == 0)
			off = 0;
		else if (i == 1 && cap > range)
			off = ((cap - range) / align) * align; /* the last range */
		else
			off = span ? (xorshift(&seed) % (span + 1)) * align : 0;
		if (o->should_stop && o->should_stop(o->userdata))
			return -ECANCELED;
		while (got < range) {
			ssize_t n = pread(fd, buf + got, range - got, (off_t)(off + got));

			if (n < 0 && errno == EINVAL &&
			    ((range - got) % align || (off + got) % align)) {
				/* a file's unaligned tail: O_DIRECT cannot read it */
				int fl = fcntl(fd, F_GETFL), saved;

				if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
					return -errno;
				n = pread(fd, buf + got, range - got, (off_t)(off + got));
				saved = errno;
				(void)fcntl(fd, F_SETFL, fl);
				errno = saved;
			}
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (n == 0)
				break; /* end of a file */
			got += (size_t)n;
		}
		v->ranges++;
		v->bytes_read += got;
		switch (classify(buf, got)) {
		case 0:
			v->ranges_zero++;
			break;
		case 1:
			v->ranges_ones++;
			break;
		default:
			v->ranges_other++;
			break;
		}
		if (classify(buf, got) != (expect == 0xff ? 1 : 0) &&
		    v->first_bad_offset == UINT64_MAX)
			v->first_bad_offset = off;
		report(&c, ERASE_NONE, ERASE_PHASE_VERIFY, (double)(i + 1) / total_ranges,
		       NVMEX_TIME_NOT_REPORTED, t0, v->bytes_read, 0, false);
	}
	v->done = true;
	v->passed = v->first_bad_offset == UINT64_MAX;
	return 0;
}

/* ---- run ---- */

static void ctx_init(struct ctx *c, const struct target_identity *id, const struct erase_opts *o,
		     struct erase_record *rec)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->o = o;
	c->rec = rec;
	c->start_ns = now_ns();
	c->deadline_at_ns = o->deadline_ns ? c->start_ns + o->deadline_ns : 0;
	c->poll_ns = o->poll_interval_ns ? o->poll_interval_ns : DEFAULT_POLL_NS;
	c->chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK_BYTES;
}

static int finish(struct ctx *c, int fd, int r)
{
	struct erase_record *rec = c->rec;

	rec->elapsed_ns = now_ns() - c->start_ns;
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
	report(c, rec->ran, ERASE_PHASE_DONE, 1.0, NVMEX_TIME_NOT_REPORTED, c->start_ns, 0, 0,
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
		attempt_from_nvme(a, &e, r);
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
	r = sanitize_poll(c, fd, m == ERASE_NONE ? ERASE_SANITIZE_BLOCK : m, a, &s);
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
		report(&c, m, ERASE_PHASE_START, 0.0, NVMEX_TIME_NOT_REPORTED, now_ns(), 0,
		       id->capacity_bytes, false);
		if (is_sanitize(m))
			r = run_sanitize(&c, *fd, m, a);
		else if (is_format(m))
			r = run_format(&c, fd, m, a);
		else
			r = run_ranges(&c, *fd, m, a);
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

int erase_drive(const char *path, const struct erase_opts *o, struct target_identity *id_out,
		struct erase_record *rec)
{
	struct guard_req rq = {
		.path = path,
		.want = o->want,
		.want_field = "serial",
		.kind = o->kind,
		.flags = o->method == ERASE_NONE ? 0 : GUARD_WRITES,
		.erase_method = o->method,
	};
	struct guard g;
	int r;

	memset(rec, 0, sizeof(*rec));
	rec->requested = o->method;
	rec->ran = ERASE_NONE;
	/* identity, name, every use, locks: the one gate (guard.h) */
	r = guard_open(&rq, &g);
	if (r < 0) {
		guard_refusal(&g, rec->msg, sizeof(rec->msg));
		(void)erase_dry_run(&g.id, o->method, &rec->plan, NULL, 0);
		guard_close(&g);
		return rec->err = r;
	}
	if (id_out)
		*id_out = g.id;
	if (o->method == ERASE_NONE) {
		guard_close(&g);
		rec->completed = true;
		rec->plan.requested = ERASE_NONE;
		rec->plan.chain[0] = ERASE_NONE;
		rec->plan.n_chain = 1;
		msg_set(rec->msg, sizeof(rec->msg), "erase method none: nothing was erased");
		return 0;
	}
	r = erase_run(&g.fd, &g.id, o, rec);
	guard_close(&g);
	return r;
}
