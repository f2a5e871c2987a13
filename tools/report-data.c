// SPDX-License-Identifier: MIT
/* report-data: the data of `plateau report`'s page (see report.h). */
#include "report.h"

const struct rep_curve_def rep_curves[REP_NCURVES] = {
	{SAMPLE_METRIC_IOPS, "iops", "Throughput"},
	{SAMPLE_METRIC_LAT, "lat", "Average latency"},
	{SAMPLE_METRIC_LAT_MAX, "lat_max", "Maximum latency"},
	{SAMPLE_METRIC_LAT_STDDEV, "lat_stddev", "Latency standard deviation"},
};

/* --- JSON --- */

json_object *j_num(double v, int prec)
{
	char buf[48];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	return json_object_new_double_s(v, buf);
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

	r = verdict_judge_phase(R->s, p, NULL, VERDICT_ALL_SERIES, &st->v, err, sizeof(err));
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
	int64_t t0_ns;
	size_t per_bucket;
	size_t n, full;
	size_t steady_round;
	double steady_t;
	bool have_steady;
	struct rep_ds ds[REP_NCURVES];
};

static void rep_ds_emit(struct rep_ds *d, double t, double v)
{
	json_object_array_add(d->t, j_num(t, 7));
	json_object_array_add(d->y, j_num(v, 6));
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
	for (size_t k = 0; k < REP_NCURVES; k++) {
		double v = sample_metric(smp, rep_curves[k].m);

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
	struct rep_curve c = {.t0_ns = p->started_ns};
	int64_t count = rr->nsamples[pi];
	json_object *o = json_object_new_object();

	c.per_bucket = count > REP_BUCKETS ? ((size_t)count + REP_BUCKETS - 1) / REP_BUCKETS : 1;
	if (st->judged && st->v.all.steady)
		c.steady_round = st->v.all.steady_round;
	for (size_t k = 0; k < REP_NCURVES; k++) {
		c.ds[k].t = json_object_new_array();
		c.ds[k].y = json_object_new_array();
	}
	if (store_samples_foreach(R->s, p->id, 1, 0, rep_curve_sample, &c)) {
		cli_error(CLI_USAGE, "%s", store_errmsg(R->s));
		for (size_t k = 0; k < REP_NCURVES; k++) {
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
	json_object_object_add(o, "steady_t", c.have_steady ? j_num(c.steady_t, 7) : NULL);
	for (size_t k = 0; k < REP_NCURVES; k++) {
		json_object *m = json_object_new_object();

		rep_ds_flush(&c.ds[k]);
		json_object_object_add(m, "t", c.ds[k].t);
		json_object_object_add(m, "y", c.ds[k].y);
		json_object_object_add(o, rep_curves[k].key, m);
	}
	*per_bucket = c.per_bucket;
	return o;
}
