// SPDX-License-Identifier: MIT
/*
 * fuzz: a seeded, bounded fuzzer of the plan parser and of plateaud's
 * control socket (tests/integration/fuzz.t).  TAP on standard output.
 *
 *   fuzz plan [OPTIONS] PLAN...
 *       mutates the plans given and a few small valid ones built in (byte
 *       flips, deletions, insertions, duplicated and swapped lines, huge
 *       numbers, random keys and sections, truncations) and hands each
 *       to plan_parse() in this process: it must return 0, or an error
 *       whose message names the file; a plan it accepts must give every
 *       phase's JSON.  ASan/LSan (the build-san binary) see the rest.
 *
 *   fuzz socket --socket PATH --device FILE --serial S [--pid PID]
 *               [--every N] [OPTIONS]
 *       sends mutated and random requests to a running plateaud:
 *       mutated valid commands, random bytes, invalid UTF-8, huge
 *       strings, deep nesting, NUL bytes, truncated lines, many requests
 *       on one connection, half-closed and abruptly closed connections.
 *       Every complete non-empty line must get one reply line that is a
 *       JSON object with a boolean "ok" (a connection the daemon closes
 *       after an {"ok":false} reply may leave later lines unanswered);
 *       every N cases (default 100) and at the end a status request must
 *       succeed and, with --pid, the daemon must be alive.  A plan sent in
 *       a start request names FILE (a scratch file) or the case is not
 *       sent: the fuzzer parses each request as the daemon would first.
 *
 *   OPTIONS: --seed N (default 1), --cases N (default 2000), --seconds S
 *   (stop early after S seconds, default 60), --case K (run only case K:
 *   a failure names its case and seed, so it can be replayed alone).
 *
 * Exit status: 0 when every check passed, 1 otherwise, 2 for usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "plan.h"
#include "tap.h"

/* plateaud's request limit, CONTROL_REQUEST_MAX in daemon/control.h: the
 * sizes tried straddle it (and the 256 KiB it once was) */
#define REQUEST_MAX (6 * PLAN_TEXT_MAX + 6 * PATH_MAX + 1024)
#define ANSWER_MS 15000 /* a reply slower than this is a hang */

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	b->cap = (b->len + extra + 1) * 2;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		fprintf(stderr, "fuzz: out of memory\n");
		exit(2);
	}
}

static void buf_add(struct buf *b, const void *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_fill(struct buf *b, int c, size_t n)
{
	buf_reserve(b, n);
	memset(b->p + b->len, c, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

/* insert @n bytes of @s at @at */
static void buf_insert(struct buf *b, size_t at, const void *s, size_t n)
{
	buf_reserve(b, n);
	memmove(b->p + at + n, b->p + at, b->len - at);
	memcpy(b->p + at, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_erase(struct buf *b, size_t at, size_t n)
{
	memmove(b->p + at, b->p + at + n, b->len - at - n);
	b->len -= n;
	b->p[b->len] = '\0';
}

/* splitmix64: one stream per case, so a case replays alone (--case) */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0..n-1 (n > 0) */
static size_t below(size_t n)
{
	return (size_t)(rnd() % n);
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

static void seed_case(uint64_t seed, uint64_t kase)
{
	rng_state = seed * 0x2545f4914f6cdd1dULL + kase;
	(void)rnd();
}

static const char *pick(const char *const *v, size_t n)
{
	return v[below(n)];
}

#define PICK(v) pick(v, sizeof(v) / sizeof(v[0]))

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- mutations shared by plans and requests ---- */

static const char *const huge_numbers[] = {
	"18446744073709551615",
	"18446744073709551616",
	"99999999999999999999999999",
	"-1",
	"-9223372036854775808",
	"9223372036854775807",
	"4294967295",
	"4294967296",
	"2147483648",
	"0",
	"1e308",
	"1e999",
	"-0",
	"0x7fffffff",
	"nan",
	"inf",
	"1.5",
	"999999999999999999999999999999999999999999999999999999999999999999999999999999",
	"0000000000000000000000000000000000000000000000000000000000000000000000000001",
	"18446744073709551615k",
	"17179869184t",
	"9999999999h",
	"1e-320",
	"100%",
	"101%",
	"0%",
};

/* bytes that are not valid UTF-8 on their own */
static const char *const bad_utf8[] = {
	"\xff",		"\xfe",		"\xc0\x80",	    "\xc3",
	"\xe2\x82",	"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80",
	"\x80\x80\x80", "\xef\xbf\xbf",
};

static void mut_random_bytes(struct buf *b, size_t at, size_t n, bool printable)
{
	char tmp[64];

	if (n > sizeof(tmp))
		n = sizeof(tmp);
	for (size_t i = 0; i < n; i++)
		tmp[i] = printable ? (char)(0x20 + below(0x5f)) : (char)below(256);
	buf_insert(b, at, tmp, n);
}

/* one byte-level change; @tokens are text worth inserting whole */
static void mutate_bytes(struct buf *b, const char *const *tokens, size_t ntokens)
{
	size_t at = b->len ? below(b->len + 1) : 0, n;
	const char *t;

	switch (below(9)) {
	case 0: /* flip a bit */
		if (b->len)
			b->p[below(b->len)] ^= (char)(1u << below(8));
		break;
	case 1: /* replace a byte */
		if (b->len)
			b->p[below(b->len)] = (char)below(256);
		break;
	case 2: /* delete a span */
		if (b->len) {
			at = below(b->len);
			n = 1 + below(chance(80) ? 4 : b->len - at);
			buf_erase(b, at, n > b->len - at ? b->len - at : n);
		}
		break;
	case 3: /* insert random bytes */
		mut_random_bytes(b, at, 1 + below(8), chance(50));
		break;
	case 4: /* duplicate a span */
		if (b->len) {
			size_t from = below(b->len), len = 1 + below(b->len - from);
			char *copy = malloc(len);

			if (copy) {
				memcpy(copy, b->p + from, len);
				buf_insert(b, below(b->len + 1), copy, len);
				free(copy);
			}
		}
		break;
	case 5: /* a token */
		t = tokens[below(ntokens)];
		buf_insert(b, at, t, strlen(t));
		break;
	case 6: /* a huge number */
		t = PICK(huge_numbers);
		buf_insert(b, at, t, strlen(t));
		break;
	case 7: /* invalid UTF-8 */
		t = PICK(bad_utf8);
		buf_insert(b, at, t, strlen(t));
		break;
	default: /* truncate */
		if (b->len) {
			b->len = below(b->len);
			b->p[b->len] = '\0';
		}
		break;
	}
}

/* ---- plans ---- */

static const char *const builtin_plans[] = {
	"[run]\ndevice = /tmp/fuzz.img\nserial = FUZZ-1\nname = small\ninterval = 100ms\n\n"
	"[fill]\npasses = 1\nbs = 4k\niodepth = 1\n\n"
	"[precondition]\nprofile = 4k-randwrite\nthreads = 1\niodepth = 4\nsteady = none\n"
	"max_rounds = 4\n\n[sweep]\npoints = 1x2\ntime = 400ms\nramp = 100ms\n",
	"[run]\ndevice = /tmp/fuzz.img\nserial = FUZZ-1\nfootprint = 20%\noffset = 1m\n"
	"seed = 7\nio_timeout = 30s\n\n[erase]\nmethod = zero\nverify = yes\ndeadline = 12h\n\n"
	"[precondition]\nrw = randrw\nrwmix = 60\nbssplit = 4k/80:64k/20\nwrite_variant = no\n"
	"threads = 2\niodepth = 8\nsteady = snia\nwindow = 3\ndata_limit = 20\n"
	"slope_limit = 10\nmetrics = iops, p99\nafter_steady = continue\nmax_rounds = 10\n"
	"max_duration = 5m\n\n[sweep]\npoints = 1x1 2x4\ntime = 1s\nramp = 100ms\n",
	"[run]\ndevice = /dev/null\n\n[sweep]\nprofile = 4k-randread\npoints = 1x1\n",
	"# comment\n; another\r\n[run]\r\ndevice = /tmp/fuzz.img\r\neui64 = 0011223344556677\r\n"
	"[precondition]\r\nprofile = 128k-seqwrite\r\nsteady = fio-slope\r\nlimits_absolute = "
	"yes\r\n"
	"data_limit = 1000\r\nslope_limit = 500\r\nwindow = 2\r\nmax_rounds = 2\r\n",
};

static const char *const plan_keys[] = {
	"device",	   "serial",	"eui64",     "nguid",	   "wwn",	   "name",
	"interval",	   "footprint", "offset",    "database",   "hook",	   "seed",
	"io_timeout",	   "method",	"verify",    "deadline",   "passes",	   "bs",
	"iodepth",	   "threads",	"profile",   "rw",	   "rwmix",	   "rwmixread",
	"bssplit",	   "steady",	"criterion", "window",	   "data_limit",   "slope_limit",
	"limits_absolute", "metrics",	"metric",    "max_rounds", "max_duration", "after_steady",
	"write_variant",   "points",	"time",	     "ramp",	   "colour",	   "",
};

static const char *const plan_values[] = {
	"1",
	"0",
	"yes",
	"no",
	"none",
	"snia",
	"auto",
	"zero",
	"crypto",
	"4k",
	"128k",
	"4k-randwrite",
	"4k-randread",
	"8k-7030",
	"randrw",
	"randread",
	"write",
	"1x1 2x4",
	"16x16",
	"0x0",
	"1m",
	"100ms",
	"1ns",
	"5s",
	"20%",
	"4k/50:64k/50",
	"iops, p99",
	"continue",
	"stop",
	"/tmp/fuzz.img",
	"/dev/null",
	"relative/path",
	"",
	"=",
	"a=b=c",
	"[fill]",
	"#",
	"x",
};

static const char *const plan_sections[] = {
	"[run]", "[erase]", "[fill]", "[precondition]", "[sweep]", "[bogus]",	"[]",
	"[",	 "]",	    "[run",   "[ fill ]",	"[RUN]",   "[sweep] x",
};

static const char *const plan_tokens[] = {
	"\n", "\r\n", "=", " = ", "[", "]", "#", ";", "%", "x", ",", ":", "/", "\t", "k", "g", "t",
};

/* line boundaries of @b: the byte offsets where each line starts */
static size_t line_starts(const struct buf *b, size_t *v, size_t max)
{
	size_t n = 0;

	if (max)
		v[n++] = 0;
	for (size_t i = 0; i < b->len && n < max; i++)
		if (b->p[i] == '\n' && i + 1 < b->len)
			v[n++] = i + 1;
	return n;
}

static size_t line_end(const struct buf *b, size_t start)
{
	const char *nl = memchr(b->p + start, '\n', b->len - start);

	return nl ? (size_t)(nl - b->p) + 1 : b->len;
}

/* one change that knows about lines, keys and sections */
static void mutate_plan(struct buf *b)
{
	size_t starts[512], n = line_starts(b, starts, 512), s, e;
	struct buf tmp = {0};
	char *copy;

	switch (below(8)) {
	case 0: /* duplicate a line */
		if (n) {
			s = starts[below(n)];
			e = line_end(b, s);
			copy = malloc(e - s); /* not strndup: the line may hold a NUL */
			if (copy) {
				memcpy(copy, b->p + s, e - s);
				buf_insert(b, starts[below(n)], copy, e - s);
				free(copy);
			}
		}
		break;
	case 1: /* delete a line */
		if (n) {
			s = starts[below(n)];
			buf_erase(b, s, line_end(b, s) - s);
		}
		break;
	case 2: /* swap a line with the next */
		if (n > 1) {
			size_t i = below(n - 1), e2;

			s = starts[i];
			e = line_end(b, s);
			e2 = line_end(b, e);
			buf_add(&tmp, b->p + e, e2 - e);
			buf_add(&tmp, b->p + s, e - s);
			memcpy(b->p + s, tmp.p, tmp.len);
		}
		break;
	case 3: /* a random key = value line */
		buf_str(&tmp, PICK(plan_keys));
		buf_str(&tmp, chance(80) ? " = " : "=");
		if (chance(30))
			buf_str(&tmp, PICK(huge_numbers));
		else
			buf_str(&tmp, PICK(plan_values));
		buf_str(&tmp, "\n");
		buf_insert(b, n ? starts[below(n)] : 0, tmp.p, tmp.len);
		break;
	case 4: /* a section header */
		buf_str(&tmp, PICK(plan_sections));
		buf_str(&tmp, "\n");
		buf_insert(b, n ? starts[below(n)] : 0, tmp.p, tmp.len);
		break;
	case 5: /* a value replaced by a huge number */
		if (n) {
			s = starts[below(n)];
			e = line_end(b, s);
			copy = memchr(b->p + s, '=', e - s);
			if (copy) {
				size_t v = (size_t)(copy - b->p) + 1, ve = e;

				if (ve > v && b->p[ve - 1] == '\n')
					ve--;
				const char *h = PICK(huge_numbers);

				buf_erase(b, v, ve - v);
				buf_insert(b, v, " ", 1);
				buf_insert(b, v + 1, h, strlen(h));
			}
		}
		break;
	case 6: /* a very long line (sometimes longer than the parser's line) */
		buf_str(&tmp, "name = ");
		buf_fill(&tmp, 'n', chance(50) ? 100 + below(200) : 1000 + below(9000));
		buf_str(&tmp, "\n");
		buf_insert(b, n ? starts[below(n)] : 0, tmp.p, tmp.len);
		break;
	default:
		mutate_bytes(b, plan_tokens, sizeof(plan_tokens) / sizeof(plan_tokens[0]));
		break;
	}
	free(tmp.p);
}

static struct buf *corpus;
static size_t ncorpus;

static void corpus_add(const char *text, size_t len)
{
	struct buf *c = realloc(corpus, (ncorpus + 1) * sizeof(*corpus));

	if (!c) {
		fprintf(stderr, "fuzz: out of memory\n");
		exit(2);
	}
	corpus = c;
	memset(&corpus[ncorpus], 0, sizeof(corpus[0]));
	buf_add(&corpus[ncorpus++], text, len);
}

static int corpus_load(const char *path)
{
	struct buf b = {0};
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, (size_t)n);
	close(fd);
	if (n < 0) {
		free(b.p);
		return -EIO;
	}
	corpus_add(b.p ? b.p : "", b.len);
	free(b.p);
	return 0;
}

static void show_bytes(const char *what, const char *p, size_t len)
{
	char out[700];
	size_t o = 0;

	for (size_t i = 0; i < len && o + 8 < sizeof(out); i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", c);
	}
	out[o] = '\0';
	diag("%s (%zu bytes): %s%s", what, len, out, o + 8 >= sizeof(out) ? "..." : "");
}

/* plan_parse() on @text: 0 accepted, 1 refused properly, -1 a failure */
static int plan_check(const char *text, const char *file, char *why, size_t whylen)
{
	struct plan p;
	char err[1024] = "";
	int r = plan_parse(text, file, &p, err, sizeof(err));
	int ret = 0;

	if (r) {
		size_t fl = strlen(file);

		ret = 1;
		snprintf(why, whylen, "%s", err);
		if (r != -EINVAL && r != -ENOMEM) {
			snprintf(why, whylen, "plan_parse returned %d (expected 0 or -EINVAL)", r);
			ret = -1;
		} else if (strncmp(err, file, fl) || err[fl] != ':' || !err[fl + 1]) {
			snprintf(why, whylen, "error '%.200s' does not name the file '%s'", err,
				 file);
			ret = -1;
		}
	} else {
		if (!*p.device)
			snprintf(why, whylen, "accepted a plan without a device"), ret = -1;
		(void)plan_writes(&p);
		for (size_t i = 0; i < p.nphases && ret == 0; i++) {
			char *js = plan_phase_json(&p, &p.phases[i]);
			json_object *o = js ? json_tokener_parse(js) : NULL;

			if (!o || !json_object_is_type(o, json_type_object)) {
				snprintf(why, whylen, "phase %zu: plan_phase_json gave '%.200s'",
					 i + 1, js ? js : "NULL");
				ret = -1;
			}
			(void)plan_kind_name(p.phases[i].kind);
			json_object_put(o);
			free(js);
		}
	}
	plan_free(&p);
	return ret;
}

/* a mutated plan from the corpus: 1..8 changes */
static void make_plan(struct buf *out)
{
	const struct buf *base = &corpus[below(ncorpus)];
	size_t changes = 1 + below(chance(70) ? 3 : 8);

	buf_clear(out);
	buf_add(out, base->p, base->len);
	for (size_t i = 0; i < changes; i++) {
		if (chance(60))
			mutate_plan(out);
		else
			mutate_bytes(out, plan_tokens,
				     sizeof(plan_tokens) / sizeof(plan_tokens[0]));
	}
	/* now and then larger than any plan may be */
	if (chance(1))
		buf_fill(out, '#', PLAN_TEXT_MAX);
}

static struct {
	uint64_t seed, cases, only;
	bool have_only;
	int seconds;
	const char *socket, *device, *serial;
	pid_t pid;
	unsigned int every;
} opt = {.seed = 1, .cases = 2000, .seconds = 60, .every = 100};

static bool past_deadline(int64_t start_ms)
{
	return mono_ms() - start_ms >= (int64_t)opt.seconds * 1000;
}

static int fuzz_plans(void)
{
	struct buf text = {0};
	uint64_t accepted = 0, refused = 0, failed = 0, done = 0;
	int64_t start = mono_ms();
	char why[512];

	for (size_t i = 0; i < ncorpus; i++) {
		why[0] = '\0';
		if (plan_check(corpus[i].p, "fuzz.plan", why, sizeof(why)) != 0) {
			diag("seed plan %zu is not accepted: %s", i + 1, why);
			failed++;
		}
	}
	ok(failed == 0, "the %zu plans the mutations start from are valid", ncorpus);
	failed = 0;
	for (uint64_t k = opt.have_only ? opt.only : 0; k < opt.cases; k++) {
		int r;

		if (past_deadline(start))
			break;
		seed_case(opt.seed, k);
		make_plan(&text);
		why[0] = '\0';
		r = plan_check(text.p, "fuzz.plan", why, sizeof(why));
		done++;
		if (r == 0)
			accepted++;
		else if (r == 1)
			refused++;
		else if (failed++ < 5) {
			diag("plan case %llu (seed %llu): %s", (unsigned long long)k,
			     (unsigned long long)opt.seed, why);
			show_bytes("the plan", text.p, text.len);
		}
		if (opt.have_only)
			break;
	}
	free(text.p);
	diag("plans: %llu cases in %.1f s (seed %llu): %llu accepted, %llu refused",
	     (unsigned long long)done, (double)(mono_ms() - start) / 1000.0,
	     (unsigned long long)opt.seed, (unsigned long long)accepted,
	     (unsigned long long)refused);
	ok(done > 0, "plan cases ran (%llu)", (unsigned long long)done);
	ok(failed == 0,
	   "every mutated plan was accepted or refused with a message naming the file "
	   "(%llu did not)",
	   (unsigned long long)failed);
	if (!opt.have_only) {
		/* mutations that always or never parse test nothing */
		ok(accepted > 0 && refused > 0, "the mutations reach both outcomes");
	}
	return 0;
}

/* ---- the socket ---- */

static const char *const json_tokens[] = {
	"{",	    "}",	"[",	       "]",	    ",",	":",
	"\"",	    "\\",	"\\u0000",     "\\ud800",   "\\udfff",	"\\uffff",
	"\\n",	    "null",	"true",	       "false",	    "\"cmd\"",	"\"run\"",
	"\"plan\"", "\"file\"", "\"dry_run\"", "\"start\"", "\"stop\"", "\"status\"",
	"\"list\"", "\n",	"\r",	       " ",	    "\0",	"'",
};

static int sock_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", opt.socket);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

enum how {
	HOW_HALF,   /* send, half-close, read to EOF */
	HOW_OPEN,   /* send, keep writing side open, read the replies due */
	HOW_CHUNKS, /* send in small pieces, then like HOW_HALF */
	HOW_ABRUPT, /* send, close without reading */
	HOW_FLOOD,  /* send, never read, close */
	HOW_SLOW,   /* send, half-close, read only after a pause */
};

struct outcome {
	struct buf in; /* what came back */
	bool closed;   /* the daemon closed the connection */
	bool timed_out;
	int err;
};

/* Exchange @data over a new connection the @how way. */
static int exchange(const char *data, size_t len, enum how how, size_t want_lines,
		    struct outcome *o)
{
	size_t off = 0, got_lines = 0;
	bool wr_open = true, send_failed = false;
	int64_t last = mono_ms();
	int fd = sock_connect();

	buf_clear(&o->in);
	o->closed = o->timed_out = false;
	o->err = 0;
	if (fd < 0)
		return o->err = fd;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		char buf[65536];
		ssize_t n;
		int r;

		if (wr_open && off == len) {
			wr_open = false;
			if (how == HOW_ABRUPT || how == HOW_FLOOD)
				break;
			if (how != HOW_OPEN)
				(void)shutdown(fd, SHUT_WR);
			if (how == HOW_SLOW)
				usleep(300000);
		}
		/* after a failed send, read what is left up to the close */
		if (!wr_open && how == HOW_OPEN && got_lines >= want_lines && !send_failed)
			break;
		if (wr_open)
			p.events |= POLLOUT;
		if (how == HOW_FLOOD || (how == HOW_SLOW && wr_open))
			p.events &= ~POLLIN;
		if (mono_ms() - last > ANSWER_MS) {
			o->timed_out = true;
			break;
		}
		r = poll(&p, 1, 200);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (p.revents & POLLOUT) {
			size_t chunk = len - off;

			if (how == HOW_CHUNKS && chunk > 64)
				chunk = 1 + below(64);
			n = send(fd, data + off, chunk, MSG_NOSIGNAL);
			if (n > 0) {
				off += (size_t)n;
				last = mono_ms();
				if (how == HOW_CHUNKS && chance(10))
					usleep(1000);
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				/* the daemon closed on us (an oversize line) */
				wr_open = false;
				off = len;
				send_failed = true;
			}
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0) {
				o->closed = true;
				break;
			}
			last = mono_ms();
			buf_add(&o->in, buf, (size_t)n);
			for (ssize_t k = 0; k < n; k++)
				got_lines += buf[k] == '\n';
		}
	}
	close(fd);
	return 0;
}

/* the lines of @data as the daemon sees them */
struct lines {
	size_t full;  /* complete, non-empty */
	bool partial; /* a non-empty last line without its newline */
};

static struct lines count_lines(const char *data, size_t len)
{
	struct lines l = {0};
	size_t start = 0;

	for (size_t i = 0; i < len; i++)
		if (data[i] == '\n') {
			l.full += i > start;
			start = i + 1;
		}
	l.partial = len > start;
	return l;
}

/* Each reply line a JSON object with a boolean "ok"; *@last_ok the last. */
static int check_replies(const struct buf *in, size_t *n, bool *last_ok, char *why, size_t whylen)
{
	size_t start = 0;

	*n = 0;
	*last_ok = true;
	for (size_t i = 0; i < in->len; i++) {
		json_object *o, *okv;
		char *line;
		bool good;

		if (in->p[i] != '\n')
			continue;
		line = strndup(in->p + start, i - start);
		o = line ? json_tokener_parse(line) : NULL;
		free(line);
		good = o && json_object_is_type(o, json_type_object) &&
		       json_object_object_get_ex(o, "ok", &okv) &&
		       json_object_is_type(okv, json_type_boolean);
		if (good)
			*last_ok = json_object_get_boolean(okv);
		json_object_put(o);
		if (!good) {
			snprintf(why, whylen,
				 "reply %zu is not a JSON object with a boolean \"ok\": "
				 "'%.200s'",
				 *n + 1, in->p + start);
			return -1;
		}
		(*n)++;
		start = i + 1;
	}
	if (start < in->len) {
		snprintf(why, whylen, "a reply without its newline: '%.200s'", in->p + start);
		return -1;
	}
	return 0;
}

/*
 * Would the daemon run this plan?  Every line (and a last one without its
 * newline) that parses as a JSON object with a string "plan" that parses
 * as a plan must name the scratch file and no hook, or the case is not
 * sent.  json-c here parses at least what the daemon's stricter settings
 * do (default depth 32 against its 16, trailing data allowed).
 */
static bool safe_to_send(const char *data, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		struct json_tokener *tok;
		json_object *o, *pv;
		bool safe = true;

		if (i < len && data[i] != '\n')
			continue;
		if (i == start) {
			start = i + 1;
			continue;
		}
		tok = json_tokener_new();
		o = tok ? json_tokener_parse_ex(tok, data + start, (int)(i - start)) : NULL;
		if (o && json_object_is_type(o, json_type_object) &&
		    json_object_object_get_ex(o, "plan", &pv) &&
		    json_object_is_type(pv, json_type_string)) {
			struct plan p;
			char err[256];

			if (!plan_parse(json_object_get_string(pv), "x", &p, err, sizeof(err)))
				safe = !strcmp(p.device, opt.device) && !*p.hook;
			plan_free(&p);
		}
		json_object_put(o);
		if (tok)
			json_tokener_free(tok);
		if (!safe)
			return false;
		start = i + 1;
	}
	return true;
}

/* a plan for the scratch file: short, and the serial the daemon wants */
static void scratch_plan(struct buf *b)
{
	static const char *const phases[] = {
		"[fill]\npasses = 1\nbs = 128k\niodepth = 2\n",
		"[precondition]\nprofile = 4k-randwrite\nthreads = 1\niodepth = 2\nsteady = none\n"
		"max_rounds = 2\n",
		"[precondition]\nprofile = 4k-randwrite\nsteady = snia\nwindow = 2\n"
		"max_rounds = 3\nmetrics = iops, p99\n",
		"[sweep]\nprofile = 4k-randread\npoints = 1x1 1x2\ntime = 200ms\nramp = 100ms\n",
		"[erase]\nmethod = zero\nverify = yes\n",
	};
	char head[512];

	snprintf(head, sizeof(head),
		 "[run]\ndevice = %s\nserial = %s\nname = fuzz\ninterval = 100ms\n", opt.device,
		 opt.serial);
	buf_clear(b);
	buf_str(b, head);
	for (size_t n = 1 + below(3); n; n--)
		buf_str(b, PICK(phases));
	if (chance(40)) {
		size_t changes = 1 + below(3);

		for (size_t i = 0; i < changes; i++)
			mutate_plan(b);
	}
}

static void json_string(struct buf *b, const char *s, size_t len)
{
	json_object *o = json_object_new_string_len(s, (int)len);

	buf_str(b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* one valid request, before mutation */
static void valid_request(struct buf *b)
{
	struct buf plan = {0};
	char tmp[128];

	switch (below(7)) {
	case 0:
		buf_str(b, "{\"cmd\":\"status\"}");
		break;
	case 1:
		buf_str(b, "{\"cmd\":\"list\"}");
		break;
	case 2:
		snprintf(tmp, sizeof(tmp), "{\"cmd\":\"status\",\"run\":%zu}", 1 + below(20));
		buf_str(b, tmp);
		break;
	case 3:
		snprintf(tmp, sizeof(tmp), "{\"cmd\":\"stop\",\"run\":%zu}", 1 + below(20));
		buf_str(b, tmp);
		break;
	case 4: /* a real start on the scratch file: rare, a run holds it */
		if (chance(85)) {
			buf_str(b, "{\"cmd\":\"list\"}");
			break;
		}
		scratch_plan(&plan);
		buf_str(b, "{\"cmd\":\"start\",\"file\":\"fuzz.plan\",\"plan\":");
		json_string(b, plan.p, plan.len);
		buf_str(b, "}");
		break;
	default:
		scratch_plan(&plan);
		buf_str(b, "{\"cmd\":\"start\",\"plan\":");
		json_string(b, plan.p, plan.len);
		buf_str(b, chance(50) ? ",\"file\":\"fuzz.plan\"" : "");
		buf_str(b, ",\"dry_run\":true}");
		break;
	}
	free(plan.p);
}

static const char *const how_name[] = {"half-closed",	  "open",    "in pieces",
				       "closed abruptly", "flooded", "read late"};

/* the length of one status reply now, 0 when none came */
static size_t status_reply_bytes(void)
{
	static const char req[] = "{\"cmd\":\"status\"}\n";
	struct outcome o = {0};
	size_t n = 0;

	if (!exchange(req, sizeof(req) - 1, HOW_HALF, 1, &o))
		n = o.in.len;
	free(o.in.p);
	return n;
}

/* Build case @k's bytes and the way to send them. */
static void make_request(struct buf *b, enum how *how, const char **kind)
{
	size_t n;

	buf_clear(b);
	*how = chance(60) ? HOW_HALF : chance(50) ? HOW_OPEN : chance(60) ? HOW_CHUNKS : HOW_ABRUPT;
	switch (below(12)) {
	case 0:
	case 1:
	case 2: /* a valid request, mutated */
		*kind = "mutated request";
		valid_request(b);
		for (n = 1 + below(4); n; n--)
			mutate_bytes(b, json_tokens, sizeof(json_tokens) / sizeof(json_tokens[0]));
		buf_str(b, "\n");
		break;
	case 3: /* random bytes */
		*kind = "random bytes";
		n = chance(80) ? below(200) : below(70000);
		buf_reserve(b, n);
		for (size_t i = 0; i < n; i++)
			b->p[b->len++] = (char)(chance(50) ? 0x20 + below(0x5f) : below(256));
		b->p[b->len] = '\0';
		buf_str(b, "\n");
		break;
	case 4: /* invalid UTF-8 in a key, a value or a plan */
		*kind = "invalid UTF-8";
		valid_request(b);
		for (n = 1 + below(3); n; n--) {
			/* inside the text, most likely within a string */
			const char *t = PICK(bad_utf8);

			buf_insert(b, 1 + below(b->len - 1), t, strlen(t));
		}
		buf_str(b, "\n");
		break;
	case 5: { /* a huge string, about the request limit */
		static const size_t sizes[] = {1000,
					       65536,
					       256 * 1024,
					       PLAN_TEXT_MAX,
					       REQUEST_MAX - 64,
					       REQUEST_MAX,
					       REQUEST_MAX + 1,
					       3 * REQUEST_MAX / 2};
		size_t size = sizes[below(sizeof(sizes) / sizeof(sizes[0]))] + below(64);

		*kind = "huge string";
		buf_str(b, chance(50) ? "{\"cmd\":\"status\",\"x\":\""
				      : "{\"cmd\":\"start\",\"plan\":\"");
		buf_fill(b, chance(80) ? 'a' : '#', size > b->len + 3 ? size - b->len - 3 : 1);
		buf_str(b, "\"}");
		if (chance(80))
			buf_str(b, "\n");
		if (*how == HOW_CHUNKS)
			*how = HOW_HALF;
		break;
	}
	case 6: { /* deep nesting */
		static const size_t depths[] = {15, 16, 17, 32, 33, 200, 5000, 60000};
		size_t d = depths[below(sizeof(depths) / sizeof(depths[0]))];
		bool obj = chance(50);

		*kind = "deep nesting";
		for (size_t i = 0; i < d; i++)
			buf_str(b, obj ? "{\"cmd\":" : "[");
		buf_str(b, "\"status\"");
		if (chance(70))
			for (size_t i = 0; i < d; i++)
				buf_str(b, obj ? "}" : "]");
		buf_str(b, "\n");
		if (*how == HOW_CHUNKS)
			*how = HOW_HALF;
		break;
	}
	case 7: /* NUL bytes */
		*kind = "NUL bytes";
		valid_request(b);
		for (n = 1 + below(3); n; n--)
			buf_insert(b, below(b->len + 1), "\0", 1);
		buf_str(b, "\n");
		break;
	case 8: /* a truncated line: no newline at the end */
		*kind = "truncated line";
		valid_request(b);
		b->len = below(b->len + 1);
		b->p[b->len] = '\0';
		break;
	case 9:
	case 10: { /* many requests on one connection */
		size_t count = 2 + below(chance(80) ? 20 : 300);

		*kind = "many requests";
		for (size_t i = 0; i < count; i++) {
			valid_request(b);
			if (chance(20))
				mutate_bytes(b, json_tokens,
					     sizeof(json_tokens) / sizeof(json_tokens[0]));
			buf_str(b, chance(5) ? "\n\n" : "\n");
		}
		/* more replies than the socket buffers hold (~500 KiB), to a
		 * peer that never reads them or reads them late; below the 1 MiB
		 * of unread replies plateaud keeps for a peer (daemon/control.h).
		 * A status reply grows with the runs in progress (~1 KiB each),
		 * so the count comes from one measured now: 768 KiB of replies,
		 * a quarter more allowed for runs changing meanwhile */
		if (chance(4)) {
			size_t one = status_reply_bytes(), lines = 1000;

			if (one)
				lines = 768 * 1024 / (one + one / 4);
			*how = chance(50) ? HOW_FLOOD : HOW_SLOW;
			for (size_t i = 0; i < lines && i < 1000; i++)
				buf_str(b, "{\"cmd\":\"status\"}\n");
		}
		break;
	}
	default: /* nothing at all, or a lone newline or blanks */
		*kind = "empty";
		buf_str(b, chance(50) ? "" : chance(50) ? "\n" : " \t\r\n");
		break;
	}
}

/* status on a new connection: {"ok":true,"runs":[...],"version":...} */
static int daemon_answers(char *why, size_t whylen)
{
	static const char req[] = "{\"cmd\":\"status\"}\n";
	struct outcome o = {0};
	json_object *j = NULL, *v;
	int ret = -1;

	if (opt.pid && kill(opt.pid, 0) < 0) {
		snprintf(why, whylen, "plateaud (pid %d) is gone", (int)opt.pid);
		return -1;
	}
	if (exchange(req, sizeof(req) - 1, HOW_HALF, 1, &o)) {
		snprintf(why, whylen, "cannot connect to %s: %s", opt.socket, strerror(-o.err));
		goto out;
	}
	if (o.in.len && o.in.p[o.in.len - 1] == '\n')
		j = json_tokener_parse(o.in.p);
	if (!j || !json_object_object_get_ex(j, "ok", &v) || !json_object_get_boolean(v) ||
	    !json_object_object_get_ex(j, "runs", &v) || !json_object_is_type(v, json_type_array) ||
	    !json_object_object_get_ex(j, "version", &v)) {
		snprintf(why, whylen, "status answered '%.300s'%s", o.in.p ? o.in.p : "",
			 o.timed_out ? " (timed out)" : "");
		goto out;
	}
	ret = 0;
out:
	json_object_put(j);
	free(o.in.p);
	return ret;
}

static int fuzz_socket(void)
{
	struct buf req = {0};
	struct outcome o = {0};
	uint64_t done = 0, failed = 0, withheld = 0, replies = 0, closed_early = 0, liveness = 0;
	int64_t start = mono_ms();
	bool alive = true;
	char why[768];

	if (daemon_answers(why, sizeof(why)))
		bail_out("plateaud does not answer before fuzzing: %s", why);
	for (uint64_t k = opt.have_only ? opt.only : 0; k < opt.cases && alive; k++) {
		const char *kind = "";
		enum how how;
		struct lines l;
		size_t n = 0;
		bool last_ok = true, bad = false;

		if (past_deadline(start))
			break;
		seed_case(opt.seed, k);
		make_request(&req, &how, &kind);
		if (!safe_to_send(req.p, req.len)) {
			withheld++;
			continue;
		}
		l = count_lines(req.p, req.len);
		done++;
		if (exchange(req.p, req.len, how, l.full, &o)) {
			snprintf(why, sizeof(why), "cannot connect: %s", strerror(-o.err));
			bad = true;
			if (daemon_answers(why + strlen(why), sizeof(why) - strlen(why)) < 0)
				alive = false;
		} else if (how == HOW_ABRUPT || how == HOW_FLOOD) {
			/* nothing to check but that the daemon lives on */
		} else if (check_replies(&o.in, &n, &last_ok, why, sizeof(why))) {
			bad = true;
		} else if (o.timed_out) {
			snprintf(why, sizeof(why), "%zu of %zu replies, then nothing for %d s", n,
				 l.full, ANSWER_MS / 1000);
			bad = true;
		} else if (n >
			   l.full + (l.partial && (how != HOW_OPEN || (o.closed && !last_ok)))) {
			/* a last line without its newline is answered at EOF, or
			 * refused (too long) with the connection closed */
			snprintf(why, sizeof(why), "%zu replies to %zu request lines%s", n, l.full,
				 l.partial ? " and a last one without its newline" : "");
			bad = true;
		} else if (n < l.full && !(o.closed && !last_ok)) {
			/* only a refusal may end the connection early */
			snprintf(why, sizeof(why),
				 "%zu replies to %zu request lines (connection %s)", n, l.full,
				 o.closed ? "closed after an ok reply" : "open");
			bad = true;
		}
		replies += n;
		closed_early += n < l.full;
		if (!bad && (opt.have_only || (k + 1) % opt.every == 0 ||
			     (opt.pid && kill(opt.pid, 0) < 0))) {
			liveness++;
			if (daemon_answers(why, sizeof(why))) {
				bad = true;
				alive = false;
			}
		}
		if (bad && failed++ < 5) {
			diag("socket case %llu (seed %llu, %s, %s): %s", (unsigned long long)k,
			     (unsigned long long)opt.seed, kind, how_name[how], why);
			show_bytes("sent", req.p, req.len);
			if (o.in.len)
				show_bytes("got", o.in.p, o.in.len);
		}
		if (bad && !alive)
			break;
		if (opt.have_only)
			break;
	}
	diag("socket: %llu cases in %.1f s (seed %llu): %llu replies, %llu connections ended "
	     "early, %llu status checks, %llu cases not sent (a plan for another device)",
	     (unsigned long long)done, (double)(mono_ms() - start) / 1000.0,
	     (unsigned long long)opt.seed, (unsigned long long)replies,
	     (unsigned long long)closed_early, (unsigned long long)liveness,
	     (unsigned long long)withheld);
	ok(done > 0, "socket cases ran (%llu)", (unsigned long long)done);
	ok(failed == 0,
	   "every complete request line got one JSON reply with \"ok\" (%llu cases "
	   "did not)",
	   (unsigned long long)failed);
	if (!ok(alive && !daemon_answers(why, sizeof(why)),
		"plateaud still answers status after the fuzzing"))
		diag("%s", why);
	free(req.p);
	free(o.in.p);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: fuzz plan [--seed N] [--cases N] [--seconds S] [--case K] PLAN...\n"
			"       fuzz socket --socket PATH --device FILE --serial S [--pid PID]\n"
			"                   [--every N] [--seed N] [--cases N] [--seconds S] "
			"[--case K]\n");
	return 2;
}

static bool num_arg(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && *s && !*end && *s != '-';
}

int main(int argc, char **argv)
{
	bool plans;
	uint64_t v;
	int i;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "plan"))
		plans = true;
	else if (!strcmp(argv[1], "socket"))
		plans = false;
	else
		return usage();
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			if (!plans)
				return usage();
			if (corpus_load(a)) {
				fprintf(stderr, "fuzz: %s: %s\n", a, strerror(errno));
				return 2;
			}
			continue;
		}
		if (!val)
			return usage();
		i++;
		if (!strcmp(a, "--socket")) {
			opt.socket = val;
		} else if (!strcmp(a, "--device")) {
			opt.device = val;
		} else if (!strcmp(a, "--serial")) {
			opt.serial = val;
		} else if (!num_arg(val, &v)) {
			return usage();
		} else if (!strcmp(a, "--seed")) {
			opt.seed = v;
		} else if (!strcmp(a, "--cases")) {
			opt.cases = v;
		} else if (!strcmp(a, "--seconds") && v > 0 && v < 100000) {
			opt.seconds = (int)v;
		} else if (!strcmp(a, "--case")) {
			opt.only = v;
			opt.have_only = true;
		} else if (!strcmp(a, "--pid") && v > 0 && v < INT32_MAX) {
			opt.pid = (pid_t)v;
		} else if (!strcmp(a, "--every") && v > 0 && v < 1000000) {
			opt.every = (unsigned int)v;
		} else {
			return usage();
		}
	}
	if (opt.have_only && opt.only >= opt.cases)
		opt.cases = opt.only + 1;
	diag("fuzz %s: seed %llu, at most %llu cases, at most %d s", argv[1],
	     (unsigned long long)opt.seed, (unsigned long long)opt.cases, opt.seconds);
	if (plans) {
		for (size_t k = 0; k < sizeof(builtin_plans) / sizeof(builtin_plans[0]); k++)
			corpus_add(builtin_plans[k], strlen(builtin_plans[k]));
		fuzz_plans();
	} else {
		if (!opt.socket || !opt.device || !opt.serial || opt.device[0] != '/')
			return usage();
		fuzz_socket();
	}
	for (size_t k = 0; k < ncorpus; k++)
		free(corpus[k].p);
	free(corpus);
	return done_testing();
}
