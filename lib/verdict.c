// SPDX-License-Identifier: MIT
/* verdict: steady-state parameters, stored phases judged, results (verdict.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "verdict.h"

static int verdict_fail(char *err, size_t errlen, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int verdict_fail(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

/*
 * Exact: a whole number below 2^53 as its digits (parse_fmt_double() would
 * write 101000 as "1.01e+05"), anything else the shortest text that reads
 * back (parse.h).  As tools/out.c out_fmt_double(), which lib/ cannot call.
 */
static char *verdict_fmt(char *buf, size_t len, double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
		snprintf(buf, len, "%.0f", v);
	else
		parse_fmt_double(buf, len, v);
	return buf;
}

/* a number for JSON: exact (verdict_fmt()); null for NaN and inf */
static json_object *verdict_num(double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	if (!isfinite(v))
		return NULL;
	return json_object_new_double_s(v, verdict_fmt(buf, sizeof(buf), v));
}

void verdict_params_init(struct verdict_params *vp)
{
	memset(vp, 0, sizeof(*vp));
	vp->criterion = -1;
}

void verdict_params_json(json_object *o, const struct verdict_params *vp)
{
	json_object *m;

	json_object_object_add(
		o, "criterion",
		json_object_new_string(
			vp->none || vp->criterion < 0
				? "none"
				: steady_criterion_name((enum steady_criterion)vp->criterion)));
	if (!vp->none) {
		if (vp->set & VERDICT_SET_WINDOW)
			json_object_object_add(o, "window", json_object_new_int((int)vp->p.window));
		if (vp->set & VERDICT_SET_DATA)
			json_object_object_add(o, "data_limit", verdict_num(vp->p.data_limit));
		if (vp->set & VERDICT_SET_SLOPE)
			json_object_object_add(o, "slope_limit", verdict_num(vp->p.slope_limit));
		if (vp->set & VERDICT_SET_ABS)
			json_object_object_add(o, "limits_absolute",
					       json_object_new_boolean(vp->p.limits_absolute));
	}
	if (vp->set & VERDICT_SET_MAX)
		json_object_object_add(o, "max_rounds", json_object_new_int64(vp->p.max_rounds));
	if (!vp->nmetrics)
		return;
	m = json_object_new_array();
	for (size_t i = 0; i < vp->nmetrics; i++)
		json_object_array_add(m, json_object_new_string(sample_metric_name(
						 (enum sample_metric)vp->metrics[i])));
	json_object_object_add(o, "metrics", m);
}

static bool verdict_is_number(json_object *v)
{
	return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* an integer @min..@max */
static int verdict_get_uint(json_object *root, const char *key, uint64_t min, uint64_t max,
			    unsigned int *ret, bool *found, char *err, size_t errlen)
{
	json_object *v;
	int64_t x;

	*found = json_object_object_get_ex(root, key, &v);
	if (!*found)
		return 0;
	x = json_object_get_int64(v);
	if (!json_object_is_type(v, json_type_int) || x < (int64_t)min || x > (int64_t)max)
		return verdict_fail(err, errlen, -EBADMSG,
				    "steady-state parameters: %s: expected a number %llu..%llu, "
				    "not %s",
				    key, (unsigned long long)min, (unsigned long long)max,
				    json_object_to_json_string(v));
	*ret = (unsigned int)x;
	return 0;
}

/* a non-negative finite number */
static int verdict_get_limit(json_object *root, const char *key, double *ret, bool *found,
			     char *err, size_t errlen)
{
	json_object *v;

	*found = json_object_object_get_ex(root, key, &v);
	if (!*found)
		return 0;
	*ret = json_object_get_double(v);
	if (!verdict_is_number(v) || !isfinite(*ret) || *ret < 0)
		return verdict_fail(err, errlen, -EBADMSG,
				    "steady-state parameters: %s: expected a non-negative number, "
				    "not %s",
				    key, json_object_to_json_string(v));
	return 0;
}

static int verdict_params_read(json_object *root, struct verdict_params *vp, char *err,
			       size_t errlen)
{
	json_object *v;
	bool found;
	int r;

	if (json_object_object_get_ex(root, "criterion", &v)) {
		const char *c =
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (!strcmp(c, "none")) {
			/* the plan judged nothing: its max_rounds only ended the
			 * phase; readers judge with the criterion's defaults */
			vp->none = true;
			return 0;
		}
		vp->criterion = steady_criterion_parse(c);
		if (vp->criterion < 0)
			return verdict_fail(err, errlen, -EBADMSG,
					    "steady-state parameters: criterion: expected snia, "
					    "fio-slope, fio-dev or none, not %s",
					    json_object_to_json_string(v));
	}
	if ((r = verdict_get_uint(root, "window", VERDICT_WINDOW_MIN, VERDICT_WINDOW_MAX,
				  &vp->p.window, &found, err, errlen)))
		return r;
	vp->set |= found ? VERDICT_SET_WINDOW : 0;
	if ((r = verdict_get_limit(root, "data_limit", &vp->p.data_limit, &found, err, errlen)))
		return r;
	vp->set |= found ? VERDICT_SET_DATA : 0;
	if ((r = verdict_get_limit(root, "slope_limit", &vp->p.slope_limit, &found, err, errlen)))
		return r;
	vp->set |= found ? VERDICT_SET_SLOPE : 0;
	if (json_object_object_get_ex(root, "limits_absolute", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return verdict_fail(err, errlen, -EBADMSG,
					    "steady-state parameters: limits_absolute: expected "
					    "true or false, not %s",
					    json_object_to_json_string(v));
		vp->p.limits_absolute = json_object_get_boolean(v);
		vp->set |= VERDICT_SET_ABS;
	}
	if ((r = verdict_get_uint(root, "max_rounds", 0, VERDICT_MAX_ROUNDS_MAX, &vp->p.max_rounds,
				  &found, err, errlen)))
		return r;
	vp->set |= found ? VERDICT_SET_MAX : 0;
	if (json_object_object_get_ex(root, "metrics", &v)) {
		size_t n =
			json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

		if (!n || n > SAMPLE_METRIC_N)
			return verdict_fail(err, errlen, -EBADMSG,
					    "steady-state parameters: metrics: expected 1 to %d "
					    "metric names, not %s",
					    SAMPLE_METRIC_N, json_object_to_json_string(v));
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(v, i);
			int m = json_object_is_type(e, json_type_string)
					? sample_metric_parse(json_object_get_string(e))
					: -1;

			for (size_t k = 0; m >= 0 && k < vp->nmetrics; k++)
				if (vp->metrics[k] == m)
					m = -1;
			if (m < 0)
				return verdict_fail(err, errlen, -EBADMSG,
						    "steady-state parameters: metrics: expected "
						    "each of %s at most once, not %s",
						    sample_metric_names(),
						    json_object_to_json_string(e));
			vp->metrics[vp->nmetrics++] = m;
		}
	}
	return 0;
}

int verdict_params_parse(const char *json, struct verdict_params *vp, char *err, size_t errlen)
{
	json_object *root;
	int r;

	verdict_params_init(vp);
	if (!json || !*json)
		return 0;
	root = json_tokener_parse(json);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return verdict_fail(err, errlen, -EBADMSG,
				    "steady-state parameters: expected a JSON object");
	}
	r = verdict_params_read(root, vp, err, errlen);
	json_object_put(root);
	if (r) {
		/* a half-read source is none */
		verdict_params_init(vp);
	}
	return r;
}

static void verdict_apply(struct steady_params *p, const struct verdict_params *from)
{
	if (from->set & VERDICT_SET_WINDOW)
		p->window = from->p.window;
	if (from->set & VERDICT_SET_DATA)
		p->data_limit = from->p.data_limit;
	if (from->set & VERDICT_SET_SLOPE)
		p->slope_limit = from->p.slope_limit;
	if (from->set & VERDICT_SET_ABS)
		p->limits_absolute = from->p.limits_absolute;
	if (from->set & VERDICT_SET_MAX)
		p->max_rounds = from->p.max_rounds;
}

int verdict_resolve(const struct verdict_params *phase, const struct verdict_params *cli,
		    struct steady_params *p, int *metrics, size_t *nmetrics, char *err,
		    size_t errlen)
{
	int c = cli && cli->criterion >= 0 ? cli->criterion
		: phase->criterion >= 0	   ? phase->criterion
					   : STEADY_SNIA;

	steady_params_default(p, (enum steady_criterion)c);
	if (phase->criterion < 0 || phase->criterion == c)
		verdict_apply(p, phase);
	if (cli)
		verdict_apply(p, cli);
	if (p->limits_absolute && c == STEADY_SNIA)
		return verdict_fail(err, errlen, -EINVAL,
				    "--absolute applies to the fio criteria only; SNIA limits are "
				    "percentages of the window average");
	if (p->max_rounds && p->max_rounds < p->window)
		return verdict_fail(err, errlen, -EINVAL,
				    "%s %u is below the window of %u rounds: no window could ever "
				    "be judged (0 means no cap)",
				    cli && (cli->set & VERDICT_SET_MAX) ? "--max-rounds"
									: "the plan's max_rounds",
				    p->max_rounds, p->window);
	if (cli && cli->nmetrics) {
		memcpy(metrics, cli->metrics, cli->nmetrics * sizeof(*metrics));
		*nmetrics = cli->nmetrics;
	} else if (phase->nmetrics) {
		memcpy(metrics, phase->metrics, phase->nmetrics * sizeof(*metrics));
		*nmetrics = phase->nmetrics;
	} else {
		metrics[0] = SAMPLE_METRIC_IOPS;
		*nmetrics = 1;
	}
	return 0;
}

int verdict_judge_phase(struct store *s, const struct store_phase *ph,
			const struct verdict_params *cli, unsigned int flags, struct verdict *v,
			char *err, size_t errlen)
{
	const double *ys[SAMPLE_METRIC_N];
	struct steady_params p;
	size_t n = SIZE_MAX;
	int r;

	memset(v, 0, sizeof(*v));
	r = verdict_params_parse(ph->params, &v->phase, err, errlen);
	if (r) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err ? err : "");
		return verdict_fail(err, errlen, r, "run %lld phase %d: unreadable %s",
				    (long long)ph->run_id, ph->seq, why);
	}
	r = verdict_resolve(&v->phase, cli, &v->p, v->metrics, &v->nmetrics, err, errlen);
	if (r)
		return r;
	for (int m = 0; m < SAMPLE_METRIC_N; m++) {
		bool judged = false;
		size_t nm;

		for (size_t k = 0; k < v->nmetrics; k++)
			judged = judged || v->metrics[k] == m;
		if (!judged && !(flags & VERDICT_ALL_SERIES))
			continue;
		if (store_series(s, ph->id, (enum sample_metric)m, &v->series[m], &nm))
			return verdict_fail(err, errlen, -EIO, "%s", store_errmsg(s));
		/* a running phase may gain a round between two reads */
		if (nm < n)
			n = nm;
	}
	v->n = n == SIZE_MAX ? 0 : n;
	p = v->p;
	if (flags & VERDICT_LAST_WINDOW) {
		if (v->n < p.window)
			return 0;
		v->first = v->n - p.window;
		p.max_rounds = 0;
	}
	for (size_t k = 0; k < v->nmetrics; k++)
		ys[k] = v->series[v->metrics[k]] + v->first;
	r = steady_judge_all(ys, v->nmetrics, v->n - v->first, &p, v->res, &v->all);
	if (r == -EDOM)
		return verdict_fail(err, errlen, r,
				    "run %lld phase %d: a value is negative, NaN or "
				    "infinite",
				    (long long)ph->run_id, ph->seq);
	if (r)
		return verdict_fail(err, errlen, -EINVAL,
				    "run %lld phase %d: invalid steady-state parameters",
				    (long long)ph->run_id, ph->seq);
	v->judged = true;
	return 0;
}

void verdict_free(struct verdict *v)
{
	for (int m = 0; m < SAMPLE_METRIC_N; m++) {
		free(v->series[m]);
		v->series[m] = NULL;
	}
}

static json_object *verdict_round(bool there, size_t round)
{
	return there ? json_object_new_int64((int64_t)round) : NULL;
}

json_object *verdict_result_json(const struct steady_result *r, const struct steady_result *all,
				 const struct steady_params *p, const char *metric,
				 const char *unit, const double *y, unsigned int flags)
{
	json_object *o = json_object_new_object();

	(void)flags; /* none is left: every number is exact */
	if (!o)
		return NULL;
	if (!all)
		all = r;
	json_object_object_add(o, "metric", json_object_new_string(metric));
	json_object_object_add(o, "unit", json_object_new_string(unit ? unit : ""));
	json_object_object_add(o, "criterion",
			       json_object_new_string(steady_criterion_name(p->criterion)));
	json_object_object_add(o, "window", json_object_new_int((int)p->window));
	json_object_object_add(o, "steady", json_object_new_boolean(all->steady));
	json_object_object_add(o, "steady_round", verdict_round(all->steady, all->steady_round));
	json_object_object_add(o, "rounds", json_object_new_int64((int64_t)all->rounds));
	json_object_object_add(o, "capped", json_object_new_boolean(all->capped));
	json_object_object_add(o, "window_start", verdict_round(r->window_end, r->window_start));
	json_object_object_add(o, "window_end", verdict_round(r->window_end, r->window_end));
	json_object_object_add(o, "average", verdict_num(r->average));
	json_object_object_add(o, "slope", verdict_num(r->slope));
	json_object_object_add(o, "intercept", verdict_num(r->intercept));
	json_object_object_add(o, "data_excursion", verdict_num(r->data_excursion));
	json_object_object_add(o, "slope_excursion", verdict_num(r->slope_excursion));
	json_object_object_add(o, "data_limit", verdict_num(r->data_limit));
	json_object_object_add(o, "slope_limit", verdict_num(r->slope_limit));
	json_object_object_add(o, "data_ok", json_object_new_boolean(r->data_ok));
	json_object_object_add(o, "slope_ok", json_object_new_boolean(r->slope_ok));
	json_object_object_add(o, "lost", json_object_new_boolean(all->lost));
	json_object_object_add(o, "lost_round", verdict_round(all->lost, all->lost_round));
	if (y) {
		json_object *win = json_object_new_array();

		for (size_t i = r->window_start; r->window_end && i <= r->window_end; i++)
			json_object_array_add(win, verdict_num(y[i - 1]));
		json_object_object_add(o, "window_values", win);
	}
	return o;
}

const char *const verdict_csv_columns[VERDICT_CSV_NCOLS] = {
	"metric",	   "criterion",	 "window",	"rounds", "steady",	"steady_round",
	"window_start",	   "window_end", "average",	"slope",  "intercept",	"data_excursion",
	"slope_excursion", "data_limit", "slope_limit", "lost",	  "lost_round",
};

_Static_assert(VERDICT_CSV_CELL_BYTES >= PARSE_DOUBLE_BYTES, "a cell holds any exact double");

void verdict_result_csv(const char *cells[VERDICT_CSV_NCOLS],
			char buf[VERDICT_CSV_NCOLS][VERDICT_CSV_CELL_BYTES],
			const struct steady_result *r, const struct steady_result *all,
			const struct steady_params *p, const char *metric)
{
	const double nums[7] = {r->average,	    r->slope,	   r->intercept,  r->data_excursion,
				r->slope_excursion, r->data_limit, r->slope_limit};

	if (!all)
		all = r;
	for (size_t i = 0; i < VERDICT_CSV_NCOLS; i++) {
		buf[i][0] = '\0';
		cells[i] = buf[i];
	}
	cells[0] = metric;
	snprintf(buf[1], VERDICT_CSV_CELL_BYTES, "%s", steady_criterion_name(p->criterion));
	snprintf(buf[2], VERDICT_CSV_CELL_BYTES, "%u", p->window);
	snprintf(buf[3], VERDICT_CSV_CELL_BYTES, "%zu", all->rounds);
	snprintf(buf[4], VERDICT_CSV_CELL_BYTES, "%s", all->steady ? "true" : "false");
	if (all->steady)
		snprintf(buf[5], VERDICT_CSV_CELL_BYTES, "%zu", all->steady_round);
	if (r->window_end) {
		snprintf(buf[6], VERDICT_CSV_CELL_BYTES, "%zu", r->window_start);
		snprintf(buf[7], VERDICT_CSV_CELL_BYTES, "%zu", r->window_end);
	}
	for (size_t i = 0; i < 7; i++)
		if (isfinite(nums[i]))
			verdict_fmt(buf[8 + i], VERDICT_CSV_CELL_BYTES, nums[i]);
	snprintf(buf[15], VERDICT_CSV_CELL_BYTES, "%s", all->lost ? "true" : "false");
	if (all->lost)
		snprintf(buf[16], VERDICT_CSV_CELL_BYTES, "%zu", all->lost_round);
}
