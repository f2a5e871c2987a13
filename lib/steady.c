// SPDX-License-Identifier: MIT
/*
 * Steady-state judgement (SNIA PTS 2.0.2 section 2.1, and fio's criteria).
 *
 * fio semantics, from fio's steadystate.c (axboe/fio):
 *  - steadystate_slope(): slope = (sum_xy - sum_x * sum_y / n) /
 *    (sum_x_sq - sum_x^2 / n) over x = 0..n-1, i.e. the least-squares
 *    slope per sample; criterion = 100 * slope / mean with FIO_SS_PCT, else
 *    slope; "result = criterion * (criterion < 0.0 ? -1.0 : 1.0);
 *    if (result < ss->limit)" -- the absolute value, strict <.
 *  - steadystate_deviation(): mean = sum_y / n; deviation = max |y - mean|;
 *    criterion = 100 * deviation / mean with FIO_SS_PCT, else deviation;
 *    "if (ss->criterion < ss->limit)" -- strict <.
 * The slope does not depend on where x starts, so fio's 0-based sample
 * index and our 1-based round give the same slope.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "steady-int.h"

/* relative slack for "equal to the limit", see steady.h */
#define STEADY_LIMIT_SLACK 1e-12

static const char *const criterion_names[] = {
	[STEADY_SNIA] = "snia",
	[STEADY_FIO_SLOPE] = "fio-slope",
	[STEADY_FIO_DEV] = "fio-dev",
};

void steady_params_default(struct steady_params *p, enum steady_criterion c)
{
	memset(p, 0, sizeof(*p));
	p->criterion = c;
	p->window = 5;
	p->max_rounds = 25;
	switch (c) {
	case STEADY_SNIA:
		p->data_limit = 20.0;
		p->slope_limit = 10.0;
		break;
	case STEADY_FIO_SLOPE:
		/* fio examples/steadystate.fio: ss=bw_slope:1% */
		p->slope_limit = 1.0;
		break;
	case STEADY_FIO_DEV:
		/* fio examples/steadystate.fio: ss=iops:10% */
		p->data_limit = 10.0;
		break;
	}
}

int steady_criterion_parse(const char *name)
{
	if (!name)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(criterion_names) / sizeof(criterion_names[0]); i++)
		if (!strcmp(name, criterion_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *steady_criterion_name(enum steady_criterion c)
{
	if ((unsigned int)c >= sizeof(criterion_names) / sizeof(criterion_names[0]))
		return "unknown";
	return criterion_names[c];
}

static bool limit_ok(double v)
{
	return isfinite(v) && v >= 0.0;
}

static int check_params(const struct steady_params *p)
{
	if (!p || p->window < 2)
		return -EINVAL;
	if (!limit_ok(p->data_limit) || !limit_ok(p->slope_limit))
		return -EINVAL;
	switch (p->criterion) {
	case STEADY_SNIA:
		if (p->limits_absolute)
			return -EINVAL;
		break;
	case STEADY_FIO_SLOPE:
	case STEADY_FIO_DEV:
		break;
	default:
		return -EINVAL;
	}
	if (p->max_rounds && p->max_rounds < p->window)
		return -EINVAL;
	return 0;
}

/*
 * -1 below the limit, 0 equal to it (within the relative slack), 1 above.
 * Both arguments are >= 0.
 */
static int cmp_limit(double v, double lim)
{
	double slack = lim * STEADY_LIMIT_SLACK;

	if (isinf(lim))
		return -1;
	if (v < lim - slack)
		return -1;
	if (v > lim + slack)
		return 1;
	return 0;
}

/*
 * Judge the window of @w values ending at 1-based round @end; fill the
 * evidence fields of @r and return whether the window passes.
 */
static bool judge_window(const double *y, size_t end, const struct steady_params *p,
			 struct steady_result *r)
{
	const size_t w = p->window;
	const double *v = y + (end - w);
	double max = 0.0, min = INFINITY, sum = 0.0, mean, dev = 0.0, sxy = 0.0, sxx, a, b, xbar;
	double data_exc, slope_exc, data_lim = 0.0, slope_lim = 0.0;
	int e = 0;

	for (size_t i = 0; i < w; i++) {
		if (v[i] > max)
			max = v[i];
		if (v[i] < min)
			min = v[i];
	}
	/*
	 * Scale by 2^-e so the largest value lies in [0.5, 1): exact, and it
	 * keeps the sums below w * w even for values near DBL_MAX.
	 */
	if (max > 0.0)
		(void)frexp(max, &e);
	for (size_t i = 0; i < w; i++)
		sum += ldexp(v[i], -e);
	mean = sum / (double)w;
	/* centred x: i - (w - 1) / 2, so sum(x) = 0 and sxx = w (w^2 - 1) / 12 */
	for (size_t i = 0; i < w; i++) {
		double x = (double)i - (double)(w - 1) / 2.0;
		double d = ldexp(v[i], -e) - mean;

		sxy += x * d;
		if (fabs(d) > dev)
			dev = fabs(d);
	}
	sxx = (double)w * ((double)w * (double)w - 1.0) / 12.0;
	a = sxy / sxx;
	/* the line passes through (mean round, mean value) */
	xbar = (double)(end - w + 1) + (double)(w - 1) / 2.0;
	b = mean - a * xbar;

	memset(r, 0, sizeof(*r));
	r->window_start = end - w + 1;
	r->window_end = end;
	r->average = ldexp(mean, e);
	r->slope = ldexp(a, e);
	r->intercept = ldexp(b, e);

	switch (p->criterion) {
	case STEADY_SNIA:
	default:
		data_exc = max - min;
		slope_exc = fabs(r->slope) * (double)(w - 1);
		/* R * avg / 100 in the scaled space: exact for integers */
		data_lim = ldexp(p->data_limit * mean / 100.0, e);
		slope_lim = ldexp(p->slope_limit * mean / 100.0, e);
		r->data_ok = cmp_limit(data_exc, data_lim) <= 0;
		r->slope_ok = cmp_limit(slope_exc, slope_lim) <= 0;
		break;
	case STEADY_FIO_SLOPE:
		data_exc = max - min;
		slope_exc = fabs(r->slope);
		slope_lim = p->limits_absolute ? p->slope_limit
					       : ldexp(p->slope_limit * mean / 100.0, e);
		r->data_ok = true;
		r->slope_ok = cmp_limit(slope_exc, slope_lim) < 0;
		break;
	case STEADY_FIO_DEV:
		data_exc = ldexp(dev, e);
		slope_exc = fabs(r->slope) * (double)(w - 1);
		data_lim =
			p->limits_absolute ? p->data_limit : ldexp(p->data_limit * mean / 100.0, e);
		r->data_ok = cmp_limit(data_exc, data_lim) < 0;
		r->slope_ok = true;
		break;
	}
	r->data_excursion = data_exc;
	r->slope_excursion = slope_exc;
	r->data_limit = data_lim;
	r->slope_limit = slope_lim;
	/* a window averaging 0 never passes (see steady.h) */
	if (mean == 0.0) {
		r->data_ok = false;
		r->slope_ok = false;
	}
	return r->data_ok && r->slope_ok;
}

static bool all_pass(const double *const *ys, size_t nmetrics, size_t end,
		     const struct steady_params *p)
{
	struct steady_result tmp;

	for (size_t m = 0; m < nmetrics; m++)
		if (!judge_window(ys[m], end, p, &tmp))
			return false;
	return true;
}

int steady_judge_all(const double *const *ys, size_t nmetrics, size_t n,
		     const struct steady_params *p, struct steady_result *r,
		     struct steady_result *all)
{
	struct steady_result v;
	size_t rounds, verdict = 0, lost = 0, ev;
	int ret;

	ret = check_params(p);
	if (ret)
		return ret;
	if (!ys || !nmetrics || !r || !all)
		return -EINVAL;
	rounds = p->max_rounds && n > p->max_rounds ? p->max_rounds : n;
	for (size_t m = 0; m < nmetrics; m++) {
		if (rounds && !ys[m])
			return -EINVAL;
		for (size_t i = 0; i < rounds; i++)
			if (!isfinite(ys[m][i]) || ys[m][i] < 0.0)
				return -EDOM;
	}

	memset(&v, 0, sizeof(v));
	v.rounds = rounds;
	if (rounds < p->window) {
		for (size_t m = 0; m < nmetrics; m++)
			r[m] = v;
		*all = v;
		return 0;
	}

	for (size_t end = p->window; end <= rounds && !verdict; end++)
		if (all_pass(ys, nmetrics, end, p))
			verdict = end;
	for (size_t end = verdict + 1; verdict && end <= rounds && !lost; end++)
		if (!all_pass(ys, nmetrics, end, p))
			lost = end;

	v.steady = verdict != 0;
	v.steady_round = verdict;
	v.capped = !verdict && p->max_rounds && n >= p->max_rounds;
	v.lost = lost != 0;
	v.lost_round = lost;
	ev = verdict ? verdict : rounds;
	v.window_start = ev - p->window + 1;
	v.window_end = ev;
	v.data_ok = true;
	v.slope_ok = true;
	for (size_t m = 0; m < nmetrics; m++) {
		judge_window(ys[m], ev, p, &r[m]);
		v.data_ok = v.data_ok && r[m].data_ok;
		v.slope_ok = v.slope_ok && r[m].slope_ok;
		r[m].steady = v.steady;
		r[m].steady_round = v.steady_round;
		r[m].rounds = v.rounds;
		r[m].capped = v.capped;
		r[m].lost = v.lost;
		r[m].lost_round = v.lost_round;
	}
	*all = v;
	return 0;
}

int steady_judge(const double *y, size_t n, const struct steady_params *p, struct steady_result *r)
{
	struct steady_result all;

	return steady_judge_all(&y, 1, n, p, r, &all);
}
