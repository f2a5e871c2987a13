// SPDX-License-Identifier: MIT
/* plan: job files (see plan.h and plateau.plan(5)). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "engine.h"
#include "ini.h"
#include "parse.h"
#include "plan.h"
#include "verdict.h"

#define PLAN_INTERVAL_DEFAULT_NS 60000000000ULL
#define PLAN_SANITIZE_DEADLINE_NS (48ULL * 3600 * 1000000000ULL)

enum plan_section {
	SEC_NONE = -1,
	SEC_RUN = 4, /* after the phase kinds */
};

struct plan_ctx {
	struct plan *p;
	const char *file;
	unsigned int line;
	int section; /* enum plan_kind, SEC_RUN or SEC_NONE */
	const char *section_name;
	unsigned int section_line;
	char seen[32][32]; /* keys seen in this section */
	size_t nseen;
	bool run_seen;
	/* precondition / sweep workload fields, applied at the section's end */
	bool has_profile, has_rw, has_rwmix, has_bs;
	char rw[32], rwmix[32], bs[512];
	unsigned int rw_line, rwmix_line, bs_line;
	unsigned int metrics_line;
	bool steady_limits_set[5];
	int write_variant; /* -1 unset, 0 no, 1 yes */
	char *err;
	size_t errlen;
};

static const char *const plan_kind_names[] = {"erase", "fill", "precondition", "sweep"};

const char *plan_kind_name(enum plan_kind k)
{
	return (unsigned int)k < 4 ? plan_kind_names[k] : "?";
}

static int plan_fail(struct plan_ctx *c, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int plan_fail(struct plan_ctx *c, unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(c->err, c->errlen, "%s:%u: %s", c->file, line, msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->file, msg);
	return -EINVAL;
}

/* "[precondition] iodepth: expected ..., not 'x'" */
static int plan_bad(struct plan_ctx *c, const char *key, const char *expected, const char *val)
{
	return plan_fail(c, c->line, "[%s] %s: expected %s, not '%s'", c->section_name, key,
			 expected, val);
}

/* the tokenizer's errors in the words plan(5) readers know */
static int plan_ini_fail(struct plan_ctx *c, const struct ini *it)
{
	switch (it->error) {
	case INI_ERR_LONG:
		return plan_fail(c, it->line, "line longer than %d characters", INI_LINE_MAX);
	case INI_ERR_CONTROL:
		return plan_fail(c, it->line,
				 "control character 0x%02x in the line (expected text)",
				 it->control);
	case INI_ERR_SECTION:
		return plan_fail(c, it->line, "expected a section header like [fill]");
	case INI_ERR_NO_EQUALS:
		return plan_fail(c, it->line, "expected 'field = value' or a [section]");
	case INI_ERR_NO_KEY:
		return plan_fail(c, it->line, "a field name is missing before '='");
	case INI_OK:
		break;
	}
	return plan_fail(c, it->line, "%s", ini_error_message(it->error));
}

static struct plan_phase *plan_cur(struct plan_ctx *c)
{
	return &c->p->phases[c->p->nphases - 1];
}

static int plan_uint(struct plan_ctx *c, const char *key, const char *v, uint64_t min, uint64_t max,
		     unsigned int *ret)
{
	uint64_t x;
	char exp[96];

	if (parse_uint_range(v, min, max, &x)) {
		snprintf(exp, sizeof(exp), "a number %llu..%llu", (unsigned long long)min,
			 (unsigned long long)max);
		return plan_bad(c, key, exp, v);
	}
	*ret = (unsigned int)x;
	return 0;
}

static int plan_duration(struct plan_ctx *c, const char *key, const char *v, uint64_t min_ns,
			 uint64_t *ret)
{
	uint64_t ns;

	if (parse_duration_ns(v, &ns) || ns < min_ns) {
		char exp[96], m[32];

		if (min_ns)
			snprintf(exp, sizeof(exp), "a duration of at least %s ('60s', '5m', '2h')",
				 parse_fmt_duration(m, sizeof(m), min_ns));
		else
			snprintf(exp, sizeof(exp), "a duration ('30s', '5m', '2h')");
		return plan_bad(c, key, exp, v);
	}
	*ret = ns;
	return 0;
}

static int plan_bool(struct plan_ctx *c, const char *key, const char *v, bool *ret)
{
	if (parse_bool(v, ret))
		return plan_bad(c, key, "yes or no", v);
	return 0;
}

/* --- [run] --- */

static int plan_run_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan *p = c->p;

	if (!strcmp(key, "device")) {
		if (v[0] != '/' || strlen(v) >= sizeof(p->device))
			return plan_bad(c, key, "an absolute path to a device or file", v);
		snprintf(p->device, sizeof(p->device), "%s", v);
	} else if (!strcmp(key, "serial") || !strcmp(key, "eui64") || !strcmp(key, "nguid") ||
		   !strcmp(key, "wwn")) {
		if (*p->ident_field)
			return plan_fail(c, c->line,
					 "[run] %s: the drive is already named by %s; name it once",
					 key, p->ident_field);
		if (!*v || strlen(v) >= sizeof(p->ident))
			return plan_bad(c, key, "the drive's identifier", v);
		snprintf(p->ident, sizeof(p->ident), "%s", v);
		snprintf(p->ident_field, sizeof(p->ident_field), "%s", key);
	} else if (!strcmp(key, "name")) {
		if (!*v || strlen(v) >= sizeof(p->name))
			return plan_bad(c, key, "a name of 1..127 characters", v);
		snprintf(p->name, sizeof(p->name), "%s", v);
	} else if (!strcmp(key, "interval")) {
		return plan_duration(c, key, v, 100000000ULL, &p->interval_ns);
	} else if (!strcmp(key, "footprint")) {
		size_t n = strlen(v);

		if (n && v[n - 1] == '%') {
			double pct;

			if (parse_percent(v, false, &pct) || pct <= 0)
				return plan_bad(c, key, "a percentage above 0 and up to 100%", v);
			p->footprint_pct = pct;
		} else if (parse_size(v, &p->footprint_bytes) || !p->footprint_bytes) {
			return plan_bad(c, key, "a percentage ('20%') or a size ('64g')", v);
		}
	} else if (!strcmp(key, "offset")) {
		if (parse_size(v, &p->offset_bytes))
			return plan_bad(c, key, "a size ('0', '1g')", v);
	} else if (!strcmp(key, "database")) {
		if (v[0] != '/' || strlen(v) >= sizeof(p->database))
			return plan_bad(c, key, "an absolute path", v);
		snprintf(p->database, sizeof(p->database), "%s", v);
	} else if (!strcmp(key, "hook")) {
		/* a name from plateaud.conf's [hooks]: a plan never names code
		 * plateaud runs (plateaud(8), HOOKS) */
		if (v[0] == '/')
			return plan_fail(
				c, c->line,
				"hook: a plan names a hook of plateaud.conf's [hooks] section "
				"(plateaud(8)), not a path: '%s'",
				v);
		if (!*v || strlen(v) >= 64 ||
		    strspn(v,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
			    strlen(v))
			return plan_bad(c, key, "a hook name (letters, digits, '_', '-', '.')", v);
		snprintf(p->hook, sizeof(p->hook), "%s", v);
	} else if (!strcmp(key, "seed")) {
		if (parse_u64(v, &p->seed))
			return plan_bad(c, key, "a number", v);
	} else if (!strcmp(key, "io_timeout")) {
		return plan_duration(c, key, v, ENGINE_IO_TIMEOUT_MIN_NS, &p->io_timeout_ns);
	} else {
		return plan_fail(c, c->line,
				 "[run] unknown field '%s' (expected device, serial, eui64, nguid, "
				 "wwn, name, interval, footprint, offset, database, hook, seed, "
				 "io_timeout)",
				 key);
	}
	return 0;
}

/* --- [erase] --- */

static int plan_erase_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan_phase *ph = plan_cur(c);

	if (!strcmp(key, "method")) {
		if (erase_method_parse(v, &ph->erase_method))
			return plan_bad(c, key,
					"auto, sanitize-crypto, sanitize-block, format-crypto, "
					"format-user, secure-discard, discard, zero, punch or none",
					v);
	} else if (!strcmp(key, "verify")) {
		return plan_bool(c, key, v, &ph->verify);
	} else if (!strcmp(key, "deadline")) {
		return plan_duration(c, key, v, 1000000000ULL, &ph->deadline_ns);
	} else {
		return plan_fail(c, c->line,
				 "[erase] unknown field '%s' (expected method, verify, deadline)",
				 key);
	}
	return 0;
}

/* --- [fill] --- */

static int plan_fill_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan_phase *ph = plan_cur(c);
	uint64_t bs;

	if (!strcmp(key, "passes"))
		return plan_uint(c, key, v, 1, 100, &ph->passes);
	if (!strcmp(key, "iodepth"))
		return plan_uint(c, key, v, 1, 4096, &ph->iodepth);
	if (!strcmp(key, "threads"))
		return plan_uint(c, key, v, 1, 256, &ph->threads);
	if (!strcmp(key, "bs")) {
		if (parse_size(v, &bs) || bs < 512 || bs > PROFILE_BS_MAX_BYTES)
			return plan_bad(c, key, "a block size from 512 to 16m ('128k')", v);
		ph->bs_bytes = (uint32_t)bs;
		return 0;
	}
	if (!strcmp(key, "expected_rate")) {
		char num[64];
		size_t n = strlen(v);

		/* "500m" or "500m/s": a size per second, for the estimate */
		if (n > 2 && !strcmp(v + n - 2, "/s"))
			n -= 2;
		if (n >= sizeof(num))
			return plan_bad(c, key, "a size per second ('500m/s', '2g')", v);
		memcpy(num, v, n);
		num[n] = '\0';
		if (parse_size(num, &ph->expected_rate_bps) || !ph->expected_rate_bps)
			return plan_bad(c, key, "a size per second ('500m/s', '2g')", v);
		return 0;
	}
	return plan_fail(c, c->line,
			 "[fill] unknown field '%s' (expected passes, bs, iodepth, threads, "
			 "expected_rate)",
			 key);
}

/* --- [precondition] and [sweep] --- */

static int plan_workload_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan_phase *ph = plan_cur(c);

	if (!strcmp(key, "profile")) {
		if (profile_builtin(v, &ph->workload)) {
			char exp[512];

			snprintf(exp, sizeof(exp), "a profile (%s)", profile_builtin_names());
			return plan_bad(c, key, exp, v);
		}
		c->has_profile = true;
	} else if (!strcmp(key, "rw")) {
		snprintf(c->rw, sizeof(c->rw), "%s", v);
		c->has_rw = true;
		c->rw_line = c->line;
	} else if (!strcmp(key, "rwmix") || !strcmp(key, "rwmixread")) {
		snprintf(c->rwmix, sizeof(c->rwmix), "%s", v);
		c->has_rwmix = true;
		c->rwmix_line = c->line;
	} else if (!strcmp(key, "bssplit") || !strcmp(key, "bs")) {
		if (strlen(v) >= sizeof(c->bs))
			return plan_bad(c, key, "a shorter bssplit", "...");
		snprintf(c->bs, sizeof(c->bs), "%s", v);
		c->has_bs = true;
		c->bs_line = c->line;
	} else if ((!strcmp(key, "threads") || !strcmp(key, "iodepth")) && ph->kind == PLAN_SWEEP) {
		return plan_fail(c, c->line,
				 "[sweep] %s: a sweep's load is its points = THREADSxDEPTH list",
				 key);
	} else if (!strcmp(key, "threads")) {
		return plan_uint(c, key, v, 1, 256, &ph->threads);
	} else if (!strcmp(key, "iodepth")) {
		return plan_uint(c, key, v, 1, 4096, &ph->iodepth);
	} else {
		return 1; /* not a workload field */
	}
	return 0;
}

static int plan_precondition_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan_phase *ph = plan_cur(c);
	int r = plan_workload_key(c, key, v);
	double d;

	if (r <= 0)
		return r;
	if (!strcmp(key, "steady") || !strcmp(key, "criterion")) {
		int crit;

		if (!strcmp(v, "none")) {
			ph->steady_enabled = false;
			return 0;
		}
		crit = steady_criterion_parse(v);
		if (crit < 0)
			return plan_bad(c, key, "snia, fio-slope, fio-dev or none", v);
		ph->steady_enabled = true;
		ph->steady.criterion = (enum steady_criterion)crit;
	} else if (!strcmp(key, "window")) {
		c->steady_limits_set[0] = true;
		return plan_uint(c, key, v, VERDICT_WINDOW_MIN, VERDICT_WINDOW_MAX,
				 &ph->steady.window);
	} else if (!strcmp(key, "data_limit") || !strcmp(key, "slope_limit")) {
		if (parse_percent(v, true, &d))
			return plan_bad(c, key, "a non-negative number ('20', '20%')", v);
		if (key[0] == 'd') {
			ph->steady.data_limit = d;
			c->steady_limits_set[1] = true;
		} else {
			ph->steady.slope_limit = d;
			c->steady_limits_set[2] = true;
		}
	} else if (!strcmp(key, "limits_absolute")) {
		c->steady_limits_set[3] = true;
		return plan_bool(c, key, v, &ph->steady.limits_absolute);
	} else if (!strcmp(key, "max_rounds")) {
		c->steady_limits_set[4] = true;
		return plan_uint(c, key, v, 0, VERDICT_MAX_ROUNDS_MAX, &ph->steady.max_rounds);
	} else if (!strcmp(key, "metrics") || !strcmp(key, "metric")) {
		char buf[128], *save = NULL, *tok;

		if (strlen(v) >= sizeof(buf))
			return plan_bad(c, key, "a list of metrics", v);
		strcpy(buf, v);
		c->metrics_line = c->line;
		ph->nmetrics = 0;
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			int m = sample_metric_parse(tok);

			if (m < 0) {
				char want[256];

				snprintf(want, sizeof(want), "metrics from %s (comma-separated)",
					 sample_metric_names());
				return plan_bad(c, key, want, v);
			}
			/* as many as there are metrics: only a repeat gets here */
			if (ph->nmetrics >= PLAN_METRICS_MAX)
				return plan_bad(c, key, "each metric once", v);
			for (size_t i = 0; i < ph->nmetrics; i++)
				if (ph->metrics[i] == m)
					return plan_bad(c, key, "each metric once", v);
			ph->metrics[ph->nmetrics++] = m;
		}
		if (!ph->nmetrics)
			return plan_bad(c, key, "at least one metric", v);
	} else if (!strcmp(key, "max_duration")) {
		return plan_duration(c, key, v, 1000000000ULL, &ph->max_duration_ns);
	} else if (!strcmp(key, "after_steady")) {
		if (!strcmp(v, "stop"))
			ph->continue_after_steady = false;
		else if (!strcmp(v, "continue"))
			ph->continue_after_steady = true;
		else
			return plan_bad(c, key, "stop or continue", v);
	} else if (!strcmp(key, "write_variant")) {
		bool b;

		if (plan_bool(c, key, v, &b))
			return -EINVAL;
		c->write_variant = b;
	} else {
		return plan_fail(
			c, c->line,
			"[precondition] unknown field '%s' (expected profile, rw, rwmix, "
			"bssplit, threads, iodepth, steady, window, data_limit, slope_limit, "
			"limits_absolute, metrics, max_rounds, max_duration, after_steady, "
			"write_variant)",
			key);
	}
	return 0;
}

static int plan_sweep_key(struct plan_ctx *c, const char *key, const char *v)
{
	struct plan_phase *ph = plan_cur(c);
	int r = plan_workload_key(c, key, v);

	if (r <= 0)
		return r;
	if (!strcmp(key, "points")) {
		char buf[1024], *save = NULL, *tok;

		if (strlen(v) >= sizeof(buf))
			return plan_bad(c, key, "a shorter list", "...");
		strcpy(buf, v);
		ph->npoints = 0;
		for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
			char *x = strchr(tok, 'x');
			uint64_t t, q;

			if (ph->npoints >= PLAN_POINTS_MAX)
				return plan_bad(c, key, "at most 64 load points", v);
			if (!x)
				return plan_bad(c, key,
						"load points THREADSxDEPTH ('2x2 4x8 16x16')", tok);
			*x = '\0';
			if (parse_uint_range(tok, 1, 256, &t) ||
			    parse_uint_range(x + 1, 1, 4096, &q)) {
				*x = 'x';
				return plan_bad(c, key,
						"load points THREADSxDEPTH with threads 1..256 and "
						"depth 1..4096",
						tok);
			}
			ph->points[ph->npoints].threads = (unsigned int)t;
			ph->points[ph->npoints].iodepth = (unsigned int)q;
			ph->npoints++;
		}
		if (!ph->npoints)
			return plan_bad(c, key, "at least one load point ('2x2 4x8')", v);
	} else if (!strcmp(key, "time") || !strcmp(key, "runtime")) {
		return plan_duration(c, key, v, 100000000ULL, &ph->point_ns);
	} else if (!strcmp(key, "ramp") || !strcmp(key, "ramp_time")) {
		return plan_duration(c, key, v, 0, &ph->ramp_ns);
	} else {
		return plan_fail(
			c, c->line,
			"[sweep] unknown field '%s' (expected profile, rw, rwmix, bssplit, "
			"points, time, ramp)",
			key);
	}
	return 0;
}

/* --- sections --- */

static int plan_new_phase(struct plan_ctx *c, enum plan_kind k)
{
	struct plan *p = c->p;
	struct plan_phase *v, *ph;

	v = realloc(p->phases, (p->nphases + 1) * sizeof(*v));
	if (!v)
		return plan_fail(c, c->line, "out of memory");
	p->phases = v;
	ph = &p->phases[p->nphases++];
	memset(ph, 0, sizeof(*ph));
	ph->kind = k;
	ph->line = c->line;
	switch (k) {
	case PLAN_ERASE:
		ph->erase_method = ERASE_AUTO;
		ph->verify = true;
		ph->deadline_ns = PLAN_SANITIZE_DEADLINE_NS;
		break;
	case PLAN_FILL:
		/* WIPC: two full fills with 128 KiB sequential writes (docs/method.md step 2) */
		ph->passes = 2;
		ph->bs_bytes = 128 * 1024;
		ph->iodepth = 32;
		ph->threads = 1;
		break;
	case PLAN_PRECONDITION:
		/* WDPC at 16 threads x 16 (docs/method.md step 3), SNIA criterion */
		ph->threads = 16;
		ph->iodepth = 16;
		ph->steady_enabled = true;
		steady_params_default(&ph->steady, STEADY_SNIA);
		break;
	case PLAN_SWEEP:
		ph->point_ns = 60000000000ULL;
		ph->ramp_ns = 5000000000ULL;
		break;
	}
	return 0;
}

/* Build the workload of a [precondition]/[sweep] from its fields. */
static int plan_finish_workload(struct plan_ctx *c, struct plan_phase *ph, bool required)
{
	char err[256];

	if (!c->has_profile && !c->has_rw && !c->has_bs && !c->has_rwmix) {
		const struct plan_phase *prev = NULL;

		if (required)
			return plan_fail(
				c, ph->line,
				"[%s] needs a workload: profile = NAME, or rw = and bssplit =",
				plan_kind_name(ph->kind));
		for (size_t i = c->p->nphases - 1; i-- > 0;)
			if (c->p->phases[i].kind == PLAN_PRECONDITION) {
				prev = &c->p->phases[i];
				break;
			}
		if (!prev)
			return plan_fail(c, ph->line,
					 "[sweep] needs a workload (profile = NAME), or a "
					 "[precondition] before it to measure");
		ph->workload = prev->workload;
		return 0;
	}
	if (!c->has_profile) {
		if (!c->has_rw)
			return plan_fail(c, ph->line,
					 "[%s] needs rw = (or profile =) to say what "
					 "it does",
					 plan_kind_name(ph->kind));
		memset(&ph->workload, 0, sizeof(ph->workload));
		if (!c->has_bs)
			return plan_fail(c, ph->line, "[%s] needs bssplit = (or bs =) with rw =",
					 plan_kind_name(ph->kind));
	}
	if (c->has_rw && profile_parse_rw(c->rw, &ph->workload, err, sizeof(err)))
		return plan_fail(c, c->rw_line, "[%s] rw: %s", plan_kind_name(ph->kind), err);
	if (c->has_rwmix && profile_parse_rwmix(c->rwmix, &ph->workload, err, sizeof(err)))
		return plan_fail(c, c->rwmix_line, "[%s] rwmix: %s", plan_kind_name(ph->kind), err);
	if (c->has_bs && profile_parse_bssplit(c->bs, &ph->workload, err, sizeof(err)))
		return plan_fail(c, c->bs_line, "[%s] bssplit: %s", plan_kind_name(ph->kind), err);
	if (profile_validate(&ph->workload, err, sizeof(err)))
		return plan_fail(c, ph->line, "[%s] workload: %s", plan_kind_name(ph->kind), err);
	if (!c->has_profile || c->has_rw || c->has_rwmix || c->has_bs) {
		char bs[128];

		/* a modified or custom workload is not the built-in any more */
		snprintf(ph->workload.name, sizeof(ph->workload.name), "%s %s %.0f%% read",
			 ph->workload.pattern == PROFILE_RANDOM ? "random" : "sequential",
			 profile_format_bssplit(&ph->workload, bs, sizeof(bs)),
			 ph->workload.read_share * 100.0 / PROFILE_SHARE_SCALE);
	}
	return 0;
}

/*
 * A metric of reads (writes) on a phase that never reads (writes) would be
 * judged on zeros: refused.  Judged by what the phase runs (ph->load: a
 * 100 %-read workload is preconditioned as its write variant).
 */
static int plan_check_metric_dirs(struct plan_ctx *c, const struct plan_phase *ph)
{
	for (size_t k = 0; k < ph->nmetrics; k++) {
		enum sample_metric m = (enum sample_metric)ph->metrics[k];
		enum sample_dir d = sample_metric_dir(m);
		bool none = (d == SAMPLE_READ && ph->load.read_share == 0) ||
			    (d == SAMPLE_WRITE && ph->load.read_share >= PROFILE_SHARE_SCALE);

		if (none)
			return plan_fail(c, c->metrics_line ? c->metrics_line : ph->line,
					 "[precondition] metrics: %s measures %s, but the phase "
					 "runs 100 %% %s (%s%s): it would judge no data",
					 sample_metric_name(m),
					 d == SAMPLE_READ ? "reads" : "writes",
					 d == SAMPLE_READ ? "writes" : "reads", ph->workload.name,
					 ph->load.read_share != ph->workload.read_share
						 ? ", preconditioned as its write variant"
						 : "");
	}
	return 0;
}

static int plan_end_section(struct plan_ctx *c)
{
	struct plan_phase *ph;
	int r;

	if (c->section == SEC_NONE || c->section == SEC_RUN)
		return 0;
	ph = plan_cur(c);
	switch (ph->kind) {
	case PLAN_ERASE:
		snprintf(ph->name, sizeof(ph->name), "%s", erase_method_name(ph->erase_method));
		break;
	case PLAN_FILL:
		if (ph->bs_bytes % (1024 * 1024) == 0)
			snprintf(ph->name, sizeof(ph->name), "%um x%u", ph->bs_bytes >> 20,
				 ph->passes);
		else if (ph->bs_bytes % 1024 == 0)
			snprintf(ph->name, sizeof(ph->name), "%uk x%u", ph->bs_bytes >> 10,
				 ph->passes);
		else
			snprintf(ph->name, sizeof(ph->name), "%u x%u", ph->bs_bytes, ph->passes);
		break;
	case PLAN_PRECONDITION: {
		if ((r = plan_finish_workload(c, ph, true)))
			return r;
		/* docs/method.md step 3: a 100 %-read workload is preconditioned with
		 * 100 % writes of its sizes; write_variant = yes forces it for a
		 * mix too */
		if (c->write_variant == 1 ||
		    (c->write_variant < 0 && ph->workload.read_share == PROFILE_SHARE_SCALE))
			profile_write_variant(&ph->workload, &ph->load);
		else
			ph->load = ph->workload;
		if (!ph->steady_enabled && !c->steady_limits_set[4] && !ph->max_duration_ns)
			return plan_fail(c, ph->line,
					 "[precondition] steady = none needs max_rounds or "
					 "max_duration, or it never ends");
		if (!ph->steady_enabled && !c->steady_limits_set[4])
			ph->steady.max_rounds = 0;
		if (ph->steady_enabled) {
			/* the criterion's defaults, then what the section set */
			struct steady_params d;

			steady_params_default(&d, ph->steady.criterion);
			if (!c->steady_limits_set[0])
				ph->steady.window = d.window;
			if (!c->steady_limits_set[1])
				ph->steady.data_limit = d.data_limit;
			if (!c->steady_limits_set[2])
				ph->steady.slope_limit = d.slope_limit;
			if (!c->steady_limits_set[3])
				ph->steady.limits_absolute = d.limits_absolute;
			if (!c->steady_limits_set[4])
				ph->steady.max_rounds = d.max_rounds;
			if (ph->steady.limits_absolute && ph->steady.criterion == STEADY_SNIA)
				return plan_fail(
					c, ph->line,
					"[precondition] limits_absolute applies to the fio "
					"criteria only");
			if (ph->steady.max_rounds && ph->steady.max_rounds < ph->steady.window)
				return plan_fail(
					c, ph->line,
					"[precondition] max_rounds: expected 0 (no cap) or at "
					"least the window of %u rounds, not %u",
					ph->steady.window, ph->steady.max_rounds);
		}
		if ((!ph->steady_enabled || ph->continue_after_steady) && !ph->steady.max_rounds &&
		    !ph->max_duration_ns)
			return plan_fail(
				c, ph->line,
				"[precondition] %s needs max_rounds or max_duration, or it "
				"never ends",
				ph->steady_enabled ? "after_steady = continue" : "steady = none");
		if (!ph->nmetrics) {
			ph->metrics[0] = SAMPLE_METRIC_IOPS;
			ph->nmetrics = 1;
		}
		if ((r = plan_check_metric_dirs(c, ph)))
			return r;
		snprintf(ph->name, sizeof(ph->name), "%s", ph->workload.name);
		break;
	}
	case PLAN_SWEEP:
		if ((r = plan_finish_workload(c, ph, false)))
			return r;
		if (!ph->npoints)
			return plan_fail(c, ph->line,
					 "[sweep] needs points = THREADSxDEPTH ... "
					 "('2x2 4x8 16x16')");
		ph->load = ph->workload;
		snprintf(ph->name, sizeof(ph->name), "%s", ph->workload.name);
		break;
	}
	return 0;
}

static int plan_section(struct plan_ctx *c, const char *name)
{
	static const struct {
		const char *name;
		int sec;
	} secs[] = {
		{"run", SEC_RUN},      {"erase", PLAN_ERASE},
		{"fill", PLAN_FILL},   {"precondition", PLAN_PRECONDITION},
		{"sweep", PLAN_SWEEP},
	};
	int r;

	if ((r = plan_end_section(c)))
		return r;
	c->nseen = 0;
	c->has_profile = c->has_rw = c->has_rwmix = c->has_bs = false;
	memset(c->steady_limits_set, 0, sizeof(c->steady_limits_set));
	c->metrics_line = 0;
	c->write_variant = -1;
	c->section_line = c->line;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		if (strcmp(name, secs[i].name))
			continue;
		c->section = secs[i].sec;
		c->section_name = secs[i].name;
		if (c->section == SEC_RUN) {
			if (c->run_seen)
				return plan_fail(c, c->line, "[run] given twice; a plan has one");
			c->run_seen = true;
			return 0;
		}
		return plan_new_phase(c, (enum plan_kind)c->section);
	}
	return plan_fail(c, c->line,
			 "unknown section [%s] (expected [run], [erase], [fill], [precondition], "
			 "[sweep])",
			 name);
}

static int plan_key(struct plan_ctx *c, const char *name, const char *v)
{
	char key[32];
	size_t n = strlen(name);

	/* the field's name, lowercase, '-' as '_', in its own buffer: the
	 * value follows the name in the line */
	if (n >= sizeof(key))
		return plan_fail(c, c->line, "[%s] unknown field '%.40s'",
				 c->section_name ? c->section_name : "?", name);
	for (size_t i = 0; i <= n; i++)
		key[i] = name[i] == '-' ? '_' : (char)tolower((unsigned char)name[i]);
	/* one name per field, so an alias cannot set a field twice */
	{
		static const char *const alias[][2] = {
			{"criterion", "steady"}, {"bs", "bssplit"},	{"metric", "metrics"},
			{"runtime", "time"},	 {"ramp_time", "ramp"}, {"rwmixread", "rwmix"},
		};

		for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
			if (!strcmp(key, alias[i][0]) &&
			    (c->section == PLAN_PRECONDITION || c->section == PLAN_SWEEP))
				strcpy(key, alias[i][1]);
	}
	if (c->section == SEC_NONE)
		return plan_fail(c, c->line, "'%s' outside a section (start with [run])", key);
	for (size_t i = 0; i < c->nseen; i++)
		if (!strcmp(c->seen[i], key))
			return plan_fail(c, c->line, "[%s] %s given twice", c->section_name, key);
	if (c->nseen < sizeof(c->seen) / sizeof(c->seen[0]) && strlen(key) < sizeof(c->seen[0]))
		strcpy(c->seen[c->nseen++], key);
	if (!*v)
		return plan_fail(c, c->line, "[%s] %s: empty value", c->section_name, key);
	switch (c->section) {
	case SEC_RUN:
		return plan_run_key(c, key, v);
	case PLAN_ERASE:
		return plan_erase_key(c, key, v);
	case PLAN_FILL:
		return plan_fill_key(c, key, v);
	case PLAN_PRECONDITION:
		return plan_precondition_key(c, key, v);
	default:
		return plan_sweep_key(c, key, v);
	}
}

int plan_parse(const char *text, const char *file, struct plan *p, char *err, size_t errlen)
{
	struct plan_ctx c = {
		.p = p,
		.file = file ? file : "plan",
		.section = SEC_NONE,
		.err = err,
		.errlen = errlen,
	};
	struct ini *it;
	int r = 0, t;

	memset(p, 0, sizeof(*p));
	p->interval_ns = PLAN_INTERVAL_DEFAULT_NS;
	if (!text)
		return plan_fail(&c, 0, "empty plan");
	if (strlen(text) > PLAN_TEXT_MAX)
		return plan_fail(&c, 0, "larger than %d KiB; not a plan", PLAN_TEXT_MAX / 1024);
	/* 8 KiB of line buffers: not on the stack of a parse that may run
	 * on a small one */
	it = malloc(sizeof(*it));
	if (!it)
		return plan_fail(&c, 0, "out of memory");
	ini_init(it, text);
	while ((t = ini_next(it)) > 0) {
		c.line = it->line;
		r = t == INI_SECTION ? plan_section(&c, it->section)
				     : plan_key(&c, it->key, it->value);
		if (r)
			break;
	}
	if (t < 0)
		r = plan_ini_fail(&c, it);
	free(it);
	if (r)
		return r;
	if ((r = plan_end_section(&c)))
		return r;
	c.line = 0;
	if (!c.run_seen)
		return plan_fail(&c, 0, "no [run] section (it names the device)");
	if (!*p->device)
		return plan_fail(&c, 0, "[run] device is required");
	if (!p->nphases)
		return plan_fail(&c, 0,
				 "nothing to do: add [erase], [fill], [precondition] or "
				 "[sweep]");
	if (plan_writes(p) && !*p->ident)
		return plan_fail(
			&c, 0,
			"[run] serial (or eui64, nguid, wwn) is required: this plan writes "
			"to %s, and plateau only writes to a drive the plan names "
			"(`plateau drives` shows them)",
			p->device);
	if (!*p->name) {
		const char *b = strrchr(c.file, '/');
		const char *dot;

		b = b ? b + 1 : c.file;
		dot = strrchr(b, '.');
		snprintf(p->name, sizeof(p->name), "%.*s",
			 dot && dot != b ? (int)(dot - b) : (int)strlen(b), b);
	}
	return 0;
}

void plan_free(struct plan *p)
{
	free(p->phases);
	p->phases = NULL;
	p->nphases = 0;
}

bool plan_writes(const struct plan *p)
{
	for (size_t i = 0; i < p->nphases; i++) {
		const struct plan_phase *ph = &p->phases[i];

		switch (ph->kind) {
		case PLAN_ERASE:
			if (ph->erase_method != ERASE_NONE)
				return true;
			break;
		case PLAN_FILL:
			return true;
		case PLAN_PRECONDITION:
		case PLAN_SWEEP:
			if (ph->load.read_share < PROFILE_SHARE_SCALE)
				return true;
			break;
		}
	}
	return false;
}

/* a double that reads back (parse_fmt_double()), null when not finite */
static json_object *plan_json_double(double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	if (!isfinite(v))
		return NULL;
	return json_object_new_double_s(v, parse_fmt_double(buf, sizeof(buf), v));
}

/* seconds, exact: an integer when whole ("deadline = 90s" is 90), else the
 * double that reads back ("1.5s" is 1.5) */
static json_object *plan_json_seconds(uint64_t ns)
{
	if (ns % 1000000000ULL == 0)
		return json_object_new_int64((int64_t)(ns / 1000000000ULL));
	return plan_json_double((double)ns / 1e9);
}

static void plan_json_profile(json_object *o, const char *key, const struct profile *pr)
{
	json_object *j = json_object_new_object();
	char bs[256];

	json_object_object_add(j, "name", json_object_new_string(pr->name));
	json_object_object_add(
		j, "pattern",
		json_object_new_string(pr->pattern == PROFILE_RANDOM ? "random" : "sequential"));
	json_object_object_add(j, "read_pct",
			       plan_json_double(pr->read_share * 100.0 / PROFILE_SHARE_SCALE));
	json_object_object_add(j, "bssplit",
			       json_object_new_string(profile_format_bssplit(pr, bs, sizeof(bs))));
	json_object_object_add(o, key, j);
}

void plan_phase_verdict(const struct plan_phase *ph, struct verdict_params *vp)
{
	verdict_params_init(vp);
	vp->p = ph->steady;
	if (ph->steady_enabled) {
		vp->criterion = (int)ph->steady.criterion;
		vp->set = VERDICT_SET_WINDOW | VERDICT_SET_DATA | VERDICT_SET_SLOPE |
			  VERDICT_SET_ABS | VERDICT_SET_MAX;
	} else {
		vp->none = true;
		vp->set = VERDICT_SET_MAX;
	}
	memcpy(vp->metrics, ph->metrics, ph->nmetrics * sizeof(*vp->metrics));
	vp->nmetrics = ph->nmetrics;
}

json_object *plan_phase_object(const struct plan *p, const struct plan_phase *ph)
{
	json_object *o = json_object_new_object();

	(void)p;
	json_object_object_add(o, "kind", json_object_new_string(plan_kind_name(ph->kind)));
	switch (ph->kind) {
	case PLAN_ERASE:
		json_object_object_add(o, "method",
				       json_object_new_string(erase_method_name(ph->erase_method)));
		json_object_object_add(o, "verify", json_object_new_boolean(ph->verify));
		json_object_object_add(o, "deadline_s", plan_json_seconds(ph->deadline_ns));
		break;
	case PLAN_FILL:
		json_object_object_add(o, "passes", json_object_new_int((int)ph->passes));
		json_object_object_add(o, "bs_bytes", json_object_new_int64(ph->bs_bytes));
		json_object_object_add(o, "threads", json_object_new_int((int)ph->threads));
		json_object_object_add(o, "iodepth", json_object_new_int((int)ph->iodepth));
		if (ph->expected_rate_bps)
			json_object_object_add(
				o, "expected_rate_bps",
				json_object_new_int64((int64_t)ph->expected_rate_bps));
		break;
	case PLAN_PRECONDITION: {
		struct verdict_params vp;

		plan_json_profile(o, "workload", &ph->workload);
		plan_json_profile(o, "load", &ph->load);
		json_object_object_add(o, "threads", json_object_new_int((int)ph->threads));
		json_object_object_add(o, "iodepth", json_object_new_int((int)ph->iodepth));
		plan_phase_verdict(ph, &vp);
		verdict_params_json(o, &vp);
		json_object_object_add(o, "max_duration_s", plan_json_seconds(ph->max_duration_ns));
		json_object_object_add(
			o, "after_steady",
			json_object_new_string(ph->continue_after_steady ? "continue" : "stop"));
		break;
	}
	case PLAN_SWEEP: {
		json_object *pts = json_object_new_array();
		char buf[32];

		plan_json_profile(o, "workload", &ph->load);
		for (size_t i = 0; i < ph->npoints; i++) {
			snprintf(buf, sizeof(buf), "%ux%u", ph->points[i].threads,
				 ph->points[i].iodepth);
			json_object_array_add(pts, json_object_new_string(buf));
		}
		json_object_object_add(o, "points", pts);
		json_object_object_add(o, "time_s", plan_json_seconds(ph->point_ns));
		json_object_object_add(o, "ramp_s", plan_json_seconds(ph->ramp_ns));
		break;
	}
	}
	return o;
}

char *plan_phase_json(const struct plan *p, const struct plan_phase *ph)
{
	json_object *o = plan_phase_object(p, ph);
	char *ret;

	if (!o)
		return NULL;
	ret = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ret;
}

/* --- the duration estimate --- */

static const char *const plan_basis_names[] = {
	[PLAN_EST_NONE] = "nothing",
	[PLAN_EST_CONTROLLER] = "controller",
	[PLAN_EST_DEADLINE] = "deadline",
	[PLAN_EST_UNKNOWN] = "unknown",
	[PLAN_EST_FILL_MEASURED] = "measured-rate",
	[PLAN_EST_FILL_PLAN] = "expected-rate",
	[PLAN_EST_ROUNDS] = "rounds",
	[PLAN_EST_EXACT] = "exact",
};

const char *plan_estimate_basis_name(enum plan_estimate_basis b)
{
	return (unsigned int)b < sizeof(plan_basis_names) / sizeof(plan_basis_names[0])
		       ? plan_basis_names[b]
		       : "?";
}

/* a * b ns, PLAN_ESTIMATE_UNKNOWN when it does not fit */
static int64_t plan_mul_ns(uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r) || r > (uint64_t)INT64_MAX)
		return PLAN_ESTIMATE_UNKNOWN;
	return (int64_t)r;
}

/* the bytes a fill writes: its footprint times its passes; 0 unknown */
static uint64_t plan_fill_bytes(const struct plan *p, const struct plan_phase *ph,
				uint64_t capacity)
{
	uint64_t size = 0, r;

	if (p->footprint_bytes && !(p->footprint_pct > 0))
		size = p->footprint_bytes;
	else if (capacity > p->offset_bytes && p->footprint_pct > 0)
		size = (uint64_t)((double)(capacity - p->offset_bytes) * p->footprint_pct / 100.0);
	else if (capacity > p->offset_bytes)
		size = capacity - p->offset_bytes;
	if (__builtin_mul_overflow(size, (uint64_t)ph->passes, &r))
		return 0;
	return r;
}

static void plan_estimate_phase(const struct plan *p, const struct plan_phase *ph,
				const struct plan_estimate_input *in, struct plan_estimate *e)
{
	memset(e, 0, sizeof(*e));
	e->min_ns = e->max_ns = PLAN_ESTIMATE_UNKNOWN;
	switch (ph->kind) {
	case PLAN_ERASE:
		if (ph->erase_method == ERASE_NONE) {
			e->basis = PLAN_EST_NONE;
			e->min_ns = e->max_ns = 0;
		} else if (in->erase_ns >= 0) {
			e->basis = PLAN_EST_CONTROLLER;
			e->min_ns = e->max_ns = in->erase_ns;
		} else if (ph->deadline_ns && ph->deadline_ns <= (uint64_t)INT64_MAX) {
			/* the erase fails at its deadline: a bound, not an estimate */
			e->basis = PLAN_EST_DEADLINE;
			e->max_ns = (int64_t)ph->deadline_ns;
		} else {
			e->basis = PLAN_EST_UNKNOWN;
		}
		break;
	case PLAN_FILL:
		e->bytes = plan_fill_bytes(p, ph, in->capacity_bytes);
		if (in->fill_rate_bps > 0) {
			e->basis = PLAN_EST_FILL_MEASURED;
			e->rate_bps = in->fill_rate_bps;
		} else if (ph->expected_rate_bps) {
			e->basis = PLAN_EST_FILL_PLAN;
			e->rate_bps = (double)ph->expected_rate_bps;
		} else {
			e->basis = PLAN_EST_UNKNOWN;
		}
		if (e->bytes && e->rate_bps > 0) {
			double ns = (double)e->bytes / e->rate_bps * 1e9;

			if (ns < 9e18)
				e->min_ns = e->max_ns = (int64_t)ns;
		}
		break;
	case PLAN_PRECONDITION: {
		uint64_t max_rounds = ph->steady.max_rounds;

		e->basis = PLAN_EST_ROUNDS;
		if (max_rounds)
			e->max_ns = plan_mul_ns(max_rounds, p->interval_ns);
		if (ph->max_duration_ns && ph->max_duration_ns <= (uint64_t)INT64_MAX &&
		    (e->max_ns < 0 || (uint64_t)e->max_ns > ph->max_duration_ns))
			e->max_ns = (int64_t)ph->max_duration_ns;
		e->max_rounds = max_rounds;
		/* it can stop once a first window passes; else it runs to its limit */
		if (ph->steady_enabled && !ph->continue_after_steady) {
			e->min_rounds = ph->steady.window;
			e->min_ns = plan_mul_ns(ph->steady.window, p->interval_ns);
			if (e->max_ns >= 0 && e->min_ns > e->max_ns)
				e->min_ns = e->max_ns;
		} else {
			e->min_rounds = max_rounds;
			e->min_ns = e->max_ns;
		}
		break;
	}
	case PLAN_SWEEP: {
		uint64_t per;

		e->basis = PLAN_EST_EXACT;
		if (!__builtin_add_overflow(ph->ramp_ns, ph->point_ns, &per))
			e->min_ns = e->max_ns = plan_mul_ns(per, ph->npoints);
		break;
	}
	}
}

/* a + b, unknown when either is or the sum does not fit */
static int64_t plan_add_ns(int64_t a, int64_t b)
{
	int64_t r;

	if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r))
		return PLAN_ESTIMATE_UNKNOWN;
	return r;
}

void plan_estimate(const struct plan *p, const struct plan_estimate_input *in,
		   struct plan_estimate *phases, struct plan_estimate *total)
{
	struct plan_estimate_input none = {.erase_ns = PLAN_ESTIMATE_UNKNOWN};

	if (!in)
		in = &none;
	memset(total, 0, sizeof(*total));
	total->basis = PLAN_EST_EXACT;
	for (size_t i = 0; i < p->nphases; i++) {
		struct plan_estimate *e = &phases[i];

		plan_estimate_phase(p, &p->phases[i], in, e);
		/* an unknown least is at least 0: the sum of the known ones
		 * still bounds the run from below */
		if (e->min_ns >= 0 && total->min_ns >= 0)
			total->min_ns = plan_add_ns(total->min_ns, e->min_ns);
		total->max_ns = plan_add_ns(total->max_ns, e->max_ns);
		if (e->min_ns != e->max_ns || e->min_ns < 0)
			total->basis = PLAN_EST_ROUNDS;
	}
}

static json_object *plan_json_est_s(int64_t ns)
{
	return ns >= 0 ? plan_json_seconds((uint64_t)ns) : NULL;
}

json_object *plan_estimate_object(const struct plan *p, const struct plan_estimate *phases,
				  const struct plan_estimate *total)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(o, "min_s", plan_json_est_s(total->min_ns));
	json_object_object_add(o, "max_s", plan_json_est_s(total->max_ns));
	for (size_t i = 0; i < p->nphases; i++) {
		const struct plan_estimate *e = &phases[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "phase", json_object_new_int((int)i + 1));
		json_object_object_add(j, "kind",
				       json_object_new_string(plan_kind_name(p->phases[i].kind)));
		json_object_object_add(j, "min_s", plan_json_est_s(e->min_ns));
		json_object_object_add(j, "max_s", plan_json_est_s(e->max_ns));
		json_object_object_add(j, "basis",
				       json_object_new_string(plan_estimate_basis_name(e->basis)));
		if (p->phases[i].kind == PLAN_FILL) {
			json_object_object_add(j, "bytes",
					       e->bytes ? json_object_new_int64((int64_t)e->bytes)
							: NULL);
			json_object_object_add(j, "rate_bps",
					       e->rate_bps > 0 ? plan_json_double(e->rate_bps)
							       : NULL);
		}
		if (p->phases[i].kind == PLAN_PRECONDITION) {
			json_object_object_add(j, "min_rounds",
					       json_object_new_int64((int64_t)e->min_rounds));
			json_object_object_add(j, "max_rounds",
					       json_object_new_int64((int64_t)e->max_rounds));
		}
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "phases", a);
	return o;
}

/* --- a phase for people --- */

/* append to @buf (cut to @len) */
static void plan_cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void plan_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static void plan_cat_profile(char *buf, size_t len, const struct profile *pr)
{
	char bs[256];

	plan_cat(buf, len, "%s (%s, %.15g%% reads, %s)", pr->name,
		 pr->pattern == PROFILE_RANDOM ? "random" : "sequential",
		 pr->read_share * 100.0 / PROFILE_SHARE_SCALE,
		 profile_format_bssplit(pr, bs, sizeof(bs)));
}

static void plan_cat_duration(char *buf, size_t len, const char *what, uint64_t ns)
{
	char d[64];

	plan_cat(buf, len, "%s %s", what, ns ? parse_fmt_duration(d, sizeof(d), ns) : "none");
}

char *plan_phase_describe(const struct plan *p, const struct plan_phase *ph, char *buf, size_t len)
{
	char sz[64];

	(void)p;
	if (!len)
		return buf;
	*buf = '\0';
	switch (ph->kind) {
	case PLAN_ERASE:
		plan_cat(buf, len, "method %s, verify %s, ", erase_method_name(ph->erase_method),
			 ph->verify ? "yes" : "no");
		plan_cat_duration(buf, len, "deadline", ph->deadline_ns);
		break;
	case PLAN_FILL:
		plan_cat(buf, len, "%u pass%s of %s writes, %u x %u (threads x iodepth)",
			 ph->passes, ph->passes == 1 ? "" : "es",
			 parse_fmt_size(sz, sizeof(sz), ph->bs_bytes), ph->threads, ph->iodepth);
		if (ph->expected_rate_bps)
			plan_cat(buf, len, ", expected rate %s/s",
				 parse_fmt_size(sz, sizeof(sz), ph->expected_rate_bps));
		break;
	case PLAN_PRECONDITION:
		plan_cat_profile(buf, len, &ph->workload);
		if (memcmp(&ph->load, &ph->workload, sizeof(ph->load))) {
			plan_cat(buf, len, ", runs ");
			plan_cat_profile(buf, len, &ph->load);
		}
		plan_cat(buf, len, ", %u x %u (threads x iodepth), ", ph->threads, ph->iodepth);
		if (ph->steady_enabled) {
			const char *unit = ph->steady.limits_absolute ? "" : "%";

			plan_cat(buf, len, "steady %s: window %u",
				 steady_criterion_name(ph->steady.criterion), ph->steady.window);
			if (ph->steady.criterion != STEADY_FIO_SLOPE)
				plan_cat(buf, len, ", data_limit %.15g%s", ph->steady.data_limit,
					 unit);
			if (ph->steady.criterion != STEADY_FIO_DEV)
				plan_cat(buf, len, ", slope_limit %.15g%s", ph->steady.slope_limit,
					 unit);
		} else {
			plan_cat(buf, len, "steady none");
		}
		plan_cat(buf, len, ", max_rounds %u, ", ph->steady.max_rounds);
		plan_cat_duration(buf, len, "max_duration", ph->max_duration_ns);
		plan_cat(buf, len, ", metrics");
		for (size_t k = 0; k < ph->nmetrics; k++)
			plan_cat(buf, len, "%s%s", k ? "," : " ",
				 sample_metric_name((enum sample_metric)ph->metrics[k]));
		plan_cat(buf, len, ", after steady %s",
			 ph->continue_after_steady ? "continue" : "stop");
		break;
	case PLAN_SWEEP:
		plan_cat_profile(buf, len, &ph->load);
		plan_cat(buf, len, ", points");
		for (size_t k = 0; k < ph->npoints; k++)
			plan_cat(buf, len, " %ux%u", ph->points[k].threads, ph->points[k].iodepth);
		plan_cat(buf, len, ", ");
		plan_cat_duration(buf, len, "ramp", ph->ramp_ns);
		plan_cat(buf, len, ", ");
		plan_cat_duration(buf, len, "time", ph->point_ns);
		plan_cat(buf, len, " per point");
		break;
	}
	return buf;
}
