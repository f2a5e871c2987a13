// SPDX-License-Identifier: MIT
/* report-data: the data of `plateau report`'s page (see report.h). */
#include "report.h"

const struct rep_curve_def rep_curves[REP_NCURVES] = {
	{SAMPLE_METRIC_IOPS, "iops", "Throughput"},
	{SAMPLE_METRIC_LAT, "lat", "Average latency"},
	{SAMPLE_METRIC_LAT_MAX, "lat_max", "Maximum latency"},
	{SAMPLE_METRIC_LAT_STDDEV, "lat_stddev", "Latency standard deviation"},
};

/* the series rep_group_table() averages over a window */
static const enum sample_metric rep_table_metrics[] = {
	SAMPLE_METRIC_IOPS, SAMPLE_METRIC_BW,	   SAMPLE_METRIC_LAT,
	SAMPLE_METRIC_P99,  SAMPLE_METRIC_LAT_MAX, SAMPLE_METRIC_LAT_STDDEV,
};

/* --- JSON --- */

/* A number that reads back as the same double (JSON null for NaN, inf). */
json_object *j_num(double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	if (!isfinite(v))
		return NULL;
	return json_object_new_double_s(v, parse_fmt_double(buf, sizeof(buf), v));
}

const char *j_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

bool j_bool(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

int j_int(json_object *o, const char *key, int def)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return def;
	return json_object_get_int(v);
}

/* A phase's params, parsed; NULL when absent or not an object. */
json_object *rep_params(const struct store_phase *p)
{
	json_object *o = p->params ? json_tokener_parse(p->params) : NULL;

	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* "16x16" from a phase's params (threads, iodepth), "" if not given. */
char *rep_load(char *buf, size_t len, const struct store_phase *p)
{
	json_object *o = rep_params(p);
	int t = j_int(o, "threads", 0), q = j_int(o, "iodepth", 0);

	if (t > 0 && q > 0)
		snprintf(buf, len, "%dx%d", t, q);
	else
		snprintf(buf, len, "%s", "");
	json_object_put(o);
	return buf;
}

/* --- what a phase runs --- */

/* Append to @buf at *@o, bounded (a text that does not fit is cut). */
static void rep_ap(char *buf, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void rep_ap(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o = *o + (size_t)n < len ? *o + (size_t)n : len - 1;
}

/* A workload as plan_phase_object() writes it: {name, pattern, read_pct, bssplit}. */
static bool rep_profile_of(json_object *wl, struct profile *pr)
{
	const char *pat = j_str(wl, "pattern"), *bss = j_str(wl, "bssplit");
	json_object *v;

	memset(pr, 0, sizeof(*pr));
	if (!pat || !bss || !json_object_object_get_ex(wl, "read_pct", &v))
		return false;
	pr->pattern = strcmp(pat, "sequential") ? PROFILE_RANDOM : PROFILE_SEQUENTIAL;
	pr->read_share = (uint32_t)lround(json_object_get_double(v) * PROFILE_SHARE_SCALE / 100.0);
	return !profile_parse_bssplit(bss, pr, NULL, 0);
}

/* "random writes of 4k", "sequential, 70 % reads, of 8k/50:64k/50" */
static void rep_profile_text(char *buf, size_t len, size_t *o, const struct profile *pr)
{
	char bs[256];

	rep_ap(buf, len, o, "%s ", pr->pattern == PROFILE_SEQUENTIAL ? "sequential" : "random");
	if (pr->read_share == 0)
		rep_ap(buf, len, o, "writes");
	else if (pr->read_share >= PROFILE_SHARE_SCALE)
		rep_ap(buf, len, o, "reads");
	else
		rep_ap(buf, len, o, "I/O, %g %% reads,",
		       pr->read_share * 100.0 / PROFILE_SHARE_SCALE);
	profile_format_bssplit(pr, bs, sizeof(bs));
	/* one size: "4k", not "4k/100" */
	if (pr->nbs == 1 && strchr(bs, '/'))
		*strchr(bs, '/') = '\0';
	rep_ap(buf, len, o, " of %s", bs);
}

void rep_workload(const struct store_phase *p, struct rep_workload *w)
{
	json_object *o = rep_params(p), *wl;
	const char *name = NULL, *rw, *bs;
	struct profile pr;
	size_t n = 0;
	char b[256];

	memset(w, 0, sizeof(*w));
	memset(&pr, 0, sizeof(pr));
	if (o && json_object_object_get_ex(o, "workload", &wl) &&
	    json_object_is_type(wl, json_type_object)) {
		name = j_str(wl, "name");
		w->known = rep_profile_of(wl, &pr);
	} else {
		/* older runs name a profile, and may say rw= and bs= */
		name = j_str(o, "profile");
		w->known = name && !profile_builtin(name, &pr);
		rw = j_str(o, "rw");
		bs = json_object_object_get_ex(o, "bs", &wl) &&
				     json_object_is_type(wl, json_type_string)
			     ? json_object_get_string(wl)
			     : NULL;
		if (rw && !profile_parse_rw(rw, &pr, NULL, 0) && bs &&
		    !profile_parse_bssplit(bs, &pr, NULL, 0))
			w->known = true;
	}
	if (!name || !*name)
		name = p->name;
	if (w->known) {
		snprintf(w->key, sizeof(w->key), "%d|%u|%s", (int)pr.pattern, pr.read_share,
			 profile_format_bssplit(&pr, b, sizeof(b)));
		rep_ap(w->text, sizeof(w->text), &n, "%s: ", name);
		rep_profile_text(w->text, sizeof(w->text), &n, &pr);
		w->large = profile_min_bytes(&pr) >= REP_LARGE_BYTES;
	} else {
		snprintf(w->key, sizeof(w->key), "name|%s", name);
		snprintf(w->text, sizeof(w->text), "%s", name);
	}
	w->threads = (unsigned int)j_int(o, "threads", 0);
	w->iodepth = (unsigned int)j_int(o, "iodepth", 0);
	json_object_put(o);
}

/* ends_with("deadline_s", "_s") */
static bool rep_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a > b && !strcmp(s + a - b, suf);
}

/* One parameter's value for people: durations, sizes, percentages, lists. */
static void rep_param_value(char *buf, size_t len, size_t *o, const char *key, json_object *v,
			    bool absolute)
{
	char t[64];

	switch (json_object_get_type(v)) {
	case json_type_null:
		rep_ap(buf, len, o, "none");
		return;
	case json_type_boolean:
		rep_ap(buf, len, o, "%s", json_object_get_boolean(v) ? "yes" : "no");
		return;
	case json_type_string:
		rep_ap(buf, len, o, "%s", json_object_get_string(v));
		return;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			rep_ap(buf, len, o, "%s", i ? (strcmp(key, "points") ? ", " : " ") : "");
			rep_param_value(buf, len, o, key, e, absolute);
		}
		return;
	case json_type_object:
		rep_ap(buf, len, o, "%s",
		       json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		return;
	default:
		break;
	}
	{
		double d = json_object_get_double(v);

		if (rep_suffix(key, "_s") && d >= 0 && d < 1e10) {
			if (d == 0 && strstr(key, "max"))
				rep_ap(buf, len, o, "none");
			else
				rep_ap(buf, len, o, "%s",
				       parse_fmt_duration(t, sizeof(t),
							  (uint64_t)llround(d * 1e9)));
		} else if (rep_suffix(key, "_bytes") && d >= 0) {
			rep_ap(buf, len, o, "%s", parse_fmt_size(t, sizeof(t), (uint64_t)d));
		} else if (rep_suffix(key, "_limit") && !absolute) {
			rep_ap(buf, len, o, "%g %%", d);
		} else if (json_object_is_type(v, json_type_int)) {
			rep_ap(buf, len, o, "%lld", (long long)json_object_get_int64(v));
		} else {
			rep_ap(buf, len, o, "%g", d);
		}
	}
}

/*
 * A phase's parameters as text, in the order they were stored: "workload
 * 4k-randwrite: random writes of 4k; 16 threads x queue depth 16; criterion
 * snia; window 5; ...".  Unknown keys still appear, as "key value".
 */
char *rep_params_text(char *buf, size_t len, const struct store_phase *p)
{
	json_object *o = rep_params(p), *v;
	int t = j_int(o, "threads", 0), q = j_int(o, "iodepth", 0);
	bool absolute = j_bool(o, "limits_absolute");
	const char *wname = NULL;
	size_t n = 0, k = 0;

	buf[0] = '\0';
	if (!o) {
		/* not an object: shown as stored */
		snprintf(buf, len, "%s", p->params ? p->params : "");
		return buf;
	}
	if (json_object_object_get_ex(o, "workload", &v))
		wname = j_str(v, "name");
	json_object_object_foreach(o, key, val)
	{
		struct profile pr;
		size_t n0 = n, k0 = k;
		char label[64];

		if (!strcmp(key, "kind") || !strcmp(key, "iodepth") ||
		    (!strcmp(key, "threads") && !t) || !strcmp(key, "limits_absolute"))
			continue;
		rep_ap(buf, len, &n, "%s", k++ ? "; " : "");
		if (!strcmp(key, "threads")) {
			if (q)
				rep_ap(buf, len, &n, "%d thread%s \xc3\x97 queue depth %d", t,
				       t == 1 ? "" : "s", q);
			else
				rep_ap(buf, len, &n, "%d thread%s", t, t == 1 ? "" : "s");
			continue;
		}
		if ((!strcmp(key, "workload") || !strcmp(key, "load")) &&
		    json_object_is_type(val, json_type_object) && rep_profile_of(val, &pr)) {
			const char *name = j_str(val, "name");

			if (!strcmp(key, "load") && name && wname && !strcmp(name, wname)) {
				/* what ran is what was named: said once */
				n = n0;
				buf[n] = '\0';
				k = k0;
				continue;
			}
			rep_ap(buf, len, &n, "%s %s%s",
			       !strcmp(key, "load") ? "runs as" : "workload",
			       name && *name ? name : "", name && *name ? ": " : "");
			rep_profile_text(buf, len, &n, &pr);
			continue;
		}
		snprintf(label, sizeof(label), "%s", key);
		if (rep_suffix(label, "_s"))
			label[strlen(label) - 2] = '\0';
		else if (rep_suffix(label, "_bytes"))
			label[strlen(label) - 6] = '\0';
		for (char *c = label; *c; c++)
			if (*c == '_')
				*c = ' ';
		rep_ap(buf, len, &n, "%s ", label);
		rep_param_value(buf, len, &n, key, val, absolute);
	}
	if (q && !t)
		rep_ap(buf, len, &n, "%squeue depth %d", k ? "; " : "", q);
	json_object_put(o);
	return buf;
}

/* --- steady state --- */

void rep_steady_free(struct rep_steady *st)
{
	verdict_free(&st->v);
}

/* Re-judge a precondition phase with the criterion its plan named. */
int rep_judge(struct rep *R, const struct rep_run *rr, size_t i)
{
	const struct store_phase *p = &rr->phases[i];
	struct rep_steady *st = &rr->steady[i];
	char err[512];
	int r;

	(void)R;
	/* the judged series, then those the group table shows: every metric's
	 * series (VERDICT_ALL_SERIES, 33 of them) would read a long phase 33 times */
	r = verdict_judge_phase(rr->s, p, NULL, 0, &st->v, err, sizeof(err));
	for (size_t k = 0;
	     (!r || r == -EDOM) && k < sizeof(rep_table_metrics) / sizeof(rep_table_metrics[0]);
	     k++) {
		enum sample_metric m = rep_table_metrics[k];
		size_t n;

		if (st->v.series[m])
			continue;
		if (store_series(rr->s, p->id, m, &st->v.series[m], &n))
			return cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
		/* a running phase may have gained rounds since: the verdict's are there */
		if (n < st->v.n)
			return cli_error(
				CLI_USAGE, "run %lld phase %d: %zu rounds of %s, %zu judged",
				(long long)rr->run.id, p->seq, n, sample_metric_name(m), st->v.n);
	}
	if (r == -EDOM) {
		/* the charts still show the rounds */
		st->has = true;
		snprintf(st->why, sizeof(st->why), "a value is negative, NaN or infinite");
		cli_warn("run %lld phase %d: not judged: %s", (long long)rr->run.id, p->seq,
			 st->why);
		return CLI_OK;
	}
	if (r)
		return cli_error(CLI_USAGE, "%s", err);
	st->has = true;
	st->judged = true;
	return CLI_OK;
}

const char *rep_sep(size_t *n)
{
	return (*n)++ ? "; " : " (";
}

char *rep_verdict(char *buf, size_t len, const struct rep_steady *st, const struct store_phase *p)
{
	const struct steady_result *a = &st->v.all;
	size_t o, n = 0;

	if (!st->has) {
		snprintf(buf, len, "no samples");
		return buf;
	}
	if (!st->judged) {
		snprintf(buf, len, "not judged: %s", st->why);
		return buf;
	}
	if (a->steady)
		o = (size_t)snprintf(buf, len, "steady at round %zu", a->steady_round);
	else
		o = (size_t)snprintf(buf, len, "NOT steady after %zu rounds", a->rounds);
	if (o < len && a->lost)
		o += (size_t)snprintf(buf + o, len - o, ", steady state lost at round %zu",
				      a->lost_round);
	/* the reasons, in one parenthesis */
	if (o < len && !a->steady && !a->window_end)
		o += (size_t)snprintf(buf + o, len - o, "%sfewer than the window of %u",
				      rep_sep(&n), st->v.p.window);
	if (o < len && a->capped)
		o += (size_t)snprintf(buf + o, len - o, "%smax-rounds cap reached", rep_sep(&n));
	if (o < len && !a->steady && !strcmp(p->state, "running"))
		o += (size_t)snprintf(buf + o, len - o, "%sstill running", rep_sep(&n));
	if (o < len && n)
		snprintf(buf + o, len - o, ")");
	return buf;
}

const char *rep_limit_desc(char *buf, size_t len, const struct steady_params *p, double lim)
{
	if (p->limits_absolute)
		snprintf(buf, len, "absolute");
	else
		snprintf(buf, len, "%g%% of the %s", lim,
			 p->criterion == STEADY_SNIA ? "average" : "mean");
	return buf;
}

/* --- time curves, downsampled --- */

struct rep_ds {
	json_object *t, *y;
	double lo, hi, lo_t, hi_t;
	size_t lo_i, hi_i, count;
};

struct rep_curve {
	const struct rep_curve_def *defs;
	size_t ndefs;
	int64_t t0_ns;
	size_t per_bucket;
	size_t n, full;
	size_t steady_round;
	double steady_t;
	bool have_steady;
	struct rep_ds ds[REP_MAX_CURVES];
};

static void rep_ds_emit(struct rep_ds *d, double t, double v)
{
	json_object_array_add(d->t, j_num(t));
	json_object_array_add(d->y, j_num(v));
}

/* Emit a bucket: its minimum and its maximum, in time order. */
static void rep_ds_flush(struct rep_ds *d)
{
	if (!d->count)
		return;
	if (d->lo_i == d->hi_i) {
		rep_ds_emit(d, d->lo_t, d->lo);
	} else if (d->lo_i < d->hi_i) {
		rep_ds_emit(d, d->lo_t, d->lo);
		rep_ds_emit(d, d->hi_t, d->hi);
	} else {
		rep_ds_emit(d, d->hi_t, d->hi);
		rep_ds_emit(d, d->lo_t, d->lo);
	}
	d->count = 0;
}

static void rep_ds_add(struct rep_ds *d, double t, double v, size_t i, size_t per_bucket)
{
	if (!d->count || v < d->lo) {
		d->lo = v;
		d->lo_t = t;
		d->lo_i = i;
	}
	if (!d->count || v > d->hi) {
		d->hi = v;
		d->hi_t = t;
		d->hi_i = i;
	}
	if (++d->count >= per_bucket)
		rep_ds_flush(d);
}

static int rep_curve_sample(void *ctx, const struct sample *smp)
{
	struct rep_curve *c = ctx;
	double t;

	/* a phase without a start time (or a sample before it) counts from its
	 * first sample */
	if (!c->n && (!c->t0_ns || smp->start_ns < c->t0_ns))
		c->t0_ns = smp->start_ns;
	/* a partial sample after full rounds is the queue draining at a stop
	 * or pause, not the drive: not drawn (`plateau plot` does the same) */
	if (smp->partial && c->full)
		return 0;
	c->n++;
	t = (double)(smp->end_ns - c->t0_ns) / 60e9;
	if (!smp->partial && ++c->full == c->steady_round) {
		c->steady_t = t;
		c->have_steady = true;
	}
	for (size_t k = 0; k < c->ndefs; k++) {
		double v = sample_metric(smp, c->defs[k].m);

		if (isfinite(v))
			rep_ds_add(&c->ds[k], t, v, c->n, c->per_bucket);
	}
	return 0;
}

/* The curves of a phase as a "series" object of a group; NULL on failure. */
json_object *rep_series(struct rep *R, size_t ri, size_t pi, size_t *per_bucket)
{
	const struct rep_run *rr = &R->runs[ri];
	const struct store_phase *p = &rr->phases[pi];
	const struct rep_steady *st = &rr->steady[pi];
	struct rep_curve c = {.defs = R->curves, .ndefs = R->ncurves, .t0_ns = p->started_ns};
	int64_t count = rr->nsamples[pi];
	json_object *o = json_object_new_object();

	c.per_bucket = count > REP_BUCKETS ? ((size_t)count + REP_BUCKETS - 1) / REP_BUCKETS : 1;
	if (st->judged && st->v.all.steady)
		c.steady_round = st->v.all.steady_round;
	for (size_t k = 0; k < c.ndefs; k++) {
		c.ds[k].t = json_object_new_array();
		c.ds[k].y = json_object_new_array();
	}
	if (store_samples_foreach(rr->s, p->id, 1, 0, rep_curve_sample, &c)) {
		cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
		for (size_t k = 0; k < c.ndefs; k++) {
			json_object_put(c.ds[k].t);
			json_object_put(c.ds[k].y);
		}
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "run", json_object_new_int((int)ri));
	json_object_object_add(o, "phase", json_object_new_int(p->seq));
	json_object_object_add(o, "name", json_object_new_string(p->name));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)c.n));
	json_object_object_add(o, "per_bucket", json_object_new_int64((int64_t)c.per_bucket));
	json_object_object_add(o, "steady_t", c.have_steady ? j_num(c.steady_t) : NULL);
	for (size_t k = 0; k < c.ndefs; k++) {
		json_object *m = json_object_new_object();

		rep_ds_flush(&c.ds[k]);
		json_object_object_add(m, "t", c.ds[k].t);
		json_object_object_add(m, "y", c.ds[k].y);
		json_object_object_add(o, c.defs[k].key, m);
	}
	*per_bucket = c.per_bucket;
	return o;
}

/* --- the latency of a window, per direction --- */

struct rep_pct_walk {
	size_t from, to, full;
	int64_t from_seq;
	bool no_hist;
	struct hist *h[2];
	/* without histograms: sums over the rounds */
	double mean_sum[SAMPLE_NDIRS], pct_sum[SAMPLE_NDIRS][SAMPLE_NPCT];
	size_t rounds[SAMPLE_NDIRS];
	uint64_t ios[SAMPLE_NDIRS], max_ns[SAMPLE_NDIRS];
};

/* rep_pct_walk's callbacks stop the walk with this (not an error) */
#define REP_WALK_DONE 1

/* the first pass: the seq of round @from (rounds count full samples, as the
 * verdict does), so that only the window's histograms are decoded */
static int rep_pct_find(void *ctx, const struct sample *smp)
{
	struct rep_pct_walk *w = ctx;

	if (smp->partial || ++w->full < w->from)
		return 0;
	w->from_seq = smp->seq;
	return REP_WALK_DONE;
}

static int rep_pct_sample(void *ctx, const struct sample *smp)
{
	struct rep_pct_walk *w = ctx;

	if (smp->partial)
		return 0;
	if (++w->full > w->to)
		return REP_WALK_DONE;
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		const struct sample_stats *st = &smp->st[d];

		if (!st->ios)
			continue;
		w->ios[d] += st->ios;
		w->rounds[d]++;
		w->mean_sum[d] += st->lat_mean_ns * (double)st->ios;
		if (st->lat_max_ns > w->max_ns[d])
			w->max_ns[d] = st->lat_max_ns;
		for (int k = 0; k < SAMPLE_NPCT; k++)
			w->pct_sum[d][k] += (double)st->lat_pct_ns[k];
		if (d < 2) {
			if (smp->hist[d])
				hist_merge(w->h[d], smp->hist[d]);
			else
				w->no_hist = true;
		}
	}
	return 0;
}

/*
 * The latency of rounds @from..@to of phase @pi: from the rounds' merged
 * histograms when every round has them (exact percentiles of the window),
 * else the rounds' stored percentiles averaged.  Returns 0 or an exit code.
 */
int rep_window_pcts(const struct rep_run *rr, size_t pi, size_t from, size_t to,
		    struct rep_pcts *out)
{
	struct rep_pct_walk w = {.from = from, .to = to};
	struct hist *all;
	int r;

	memset(out, 0, sizeof(*out));
	w.h[0] = malloc(sizeof(struct hist));
	w.h[1] = malloc(sizeof(struct hist));
	all = malloc(sizeof(struct hist));
	if (!w.h[0] || !w.h[1] || !all) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	hist_init(w.h[0]);
	hist_init(w.h[1]);
	hist_init(all);
	r = store_samples_foreach(rr->s, rr->phases[pi].id, 1, 0, rep_pct_find, &w);
	if (r == REP_WALK_DONE) {
		w.full = w.from - 1;
		r = store_samples_foreach(rr->s, rr->phases[pi].id, w.from_seq, STORE_WITH_HISTS,
					  rep_pct_sample, &w);
	}
	if (r < 0) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
		goto out;
	}
	hist_merge(all, w.h[0]);
	hist_merge(all, w.h[1]);
	out->from_hist = !w.no_hist;
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		const struct hist *h = d == SAMPLE_ALL ? all : w.h[d];

		out->ios[d] = w.ios[d];
		if (!w.ios[d])
			continue;
		/* exact from the histograms' sums, as `plateau latency` gives them */
		out->mean_us[d] = out->from_hist ? hist_mean(h) / 1e3
						 : w.mean_sum[d] / (double)w.ios[d] / 1e3;
		out->max_us[d] = (double)w.max_ns[d] / 1e3;
		for (int k = 0; k < SAMPLE_NPCT; k++)
			out->pct_us[d][k] =
				out->from_hist ? (double)hist_percentile(h, sample_pcts[k]) / 1000.0
					       : w.pct_sum[d][k] / (double)w.rounds[d] / 1000.0;
	}
	r = CLI_OK;
out:
	free(w.h[0]);
	free(w.h[1]);
	free(all);
	return r;
}
