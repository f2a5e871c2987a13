/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_STEADY_H
#define PLATEAU_STEADY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * steady: steady-state judgement over a series, one value per round.
 * Pure functions: no I/O, no allocation, no globals.
 *
 * SNIA PTS (SSS PTS 2.0.2, section 2.1 "steady state"): over a measurement
 * window of the last W rounds (default 5) with average avg,
 *   data excursion   max(y) - min(y)        <= R% of avg   (default R = 20)
 *   slope excursion  |a| * (W - 1)          <= S% of avg   (default S = 10)
 * where a is the least-squares slope of y over the round index x.  Both
 * comparisons are inclusive, as the spec words them.
 *
 * fio (steadystate.c, steadystate_slope() and steadystate_deviation()) over
 * a window of N samples with mean m; both comparisons are strict, as fio's:
 *   fio-slope  |a|              < X (absolute) or 100 * |a| / m < X %
 *   fio-dev    max |y - m|      < X (absolute) or 100 * max|y - m| / m < X %
 * fio takes one sample per ss_check_interval (1 s by default), so its X is
 * per second; here a sample is a round, so X is per round.
 *
 * Every criterion: a window whose average is 0 never passes (a drive that
 * did no I/O is not "steady"; fio's percent form gets NaN there and fails
 * too, its absolute form would pass: we deliberately do not).
 *
 * "Equal to the limit" is decided with a relative slack of 1e-12 of the
 * limit, so a series exactly at the limit on paper (20.0 vs 20 % of 100.0)
 * gets the inclusive (SNIA) or strict (fio) verdict it gets by hand, not one
 * decided by rounding in the last bit.
 *
 * Numerics: values are scaled by a power of two before fitting (exact), so
 * any finite input up to DBL_MAX gives a finite average, slope and
 * excursions; small integers give exact results.
 *
 * Rounds are numbered from 1.  A window is identified by its last round.
 */

enum steady_criterion {
	STEADY_SNIA,
	STEADY_FIO_SLOPE,
	STEADY_FIO_DEV,
};

/* How to judge: steady_params_default() fills in the defaults. */
struct steady_params {
	enum steady_criterion criterion;
	unsigned int window;	 /* rounds in the window, >= 2 */
	double data_limit;	 /* SNIA R (%); fio-dev X; unused by fio-slope */
	double slope_limit;	 /* SNIA S (%); fio-slope X; unused by fio-dev */
	bool limits_absolute;	 /* fio only: X in the metric's units, not % */
	unsigned int max_rounds; /* 0: no cap; judge at most this many rounds */
};

/* One judgement: the verdict and the evidence behind it. */
struct steady_result {
	bool steady;	     /* some window passed within the rounds judged */
	size_t steady_round; /* last round of the first passing window, 0 if none */
	size_t rounds;	     /* rounds judged (n capped at max_rounds) */
	bool capped;	     /* max_rounds reached without a passing window */
	/* The evidence: of the first passing window, or of the last window
	 * judged when none passed (all zero when fewer than window rounds). */
	size_t window_start, window_end; /* 1-based, inclusive */
	double average;
	double slope, intercept; /* y = slope * round + intercept, rounds 1-based */
	/* SNIA: max - min; fio-dev: max |y - average|; fio-slope: max - min,
	 * shown but not judged.  In the metric's units. */
	double data_excursion;
	/* SNIA: |slope| * (window - 1); fio-slope: |slope| (per round);
	 * fio-dev: |slope| * (window - 1), shown but not judged. */
	double slope_excursion;
	/* The limits in the metric's units (percent limits times average /
	 * 100); 0 for the test a fio criterion does not judge. */
	double data_limit, slope_limit;
	/* Test verdicts; a test the criterion does not judge is true. */
	bool data_ok, slope_ok;
	/* steady lost: the first window after steady_round that fails */
	bool lost;
	size_t lost_round; /* last round of that window, 0 if not lost */
};

/**
 * steady_params_default() - defaults for a criterion
 * @p: result, overwritten entirely
 * @c: criterion
 *
 * Every criterion: window 5 rounds, max_rounds 25 (SNIA's cap, kept for the
 * fio criteria so switching criterion changes only the test), percent limits.
 * SNIA: R = 20, S = 10.  fio has no default limit; we take the values of
 * fio's own examples/steadystate.fio: fio-dev 10 % ("ss=iops:10%"),
 * fio-slope 1 % ("ss=bw_slope:1%").  The unused limit is 0.
 */
void steady_params_default(struct steady_params *p, enum steady_criterion c);
/**
 * steady_criterion_parse() - the criterion a name stands for
 * @name: "snia", "fio-slope" or "fio-dev" (case-sensitive)
 *
 * Return: an enum steady_criterion, or -EINVAL for NULL or another name.
 */
int steady_criterion_parse(const char *name);

/**
 * steady_criterion_name() - the name steady_criterion_parse() takes
 * @c: criterion
 *
 * Return: a static string; "unknown" out of range.
 */
const char *steady_criterion_name(enum steady_criterion c);

/**
 * steady_judge_all() - several tracking metrics at once
 * @ys: @nmetrics series of @n rounds each
 * @nmetrics: >= 1
 * @n: rounds in every series
 * @p: parameters, the same for every metric
 * @r: @nmetrics results; the verdict fields (steady, steady_round, rounds,
 *     capped, lost, lost_round) are the combined verdict's, the evidence
 *     is of that metric at the combined verdict window (or at the last
 *     window judged when none passed)
 * @all: the combined verdict: steady at the first window in which every
 *       metric passes; lost at the first later window in which any fails.
 *       Its window_start/end are the verdict window, data_ok/slope_ok the
 *       AND over the metrics, its other evidence fields 0.
 *
 * Only the first min(@n, max_rounds) rounds are looked at, for the verdict
 * and for "steady lost" alike.  Fewer rounds than the window: not steady,
 * evidence all zero, and no error.
 *
 * Return: 0; -EINVAL for bad parameters (window < 2, a negative or
 * non-finite limit, unknown criterion, limits_absolute with SNIA,
 * 0 < max_rounds < window, NULL pointers, @nmetrics 0); -EDOM if any judged
 * value is negative, NaN or infinite.
 */
int steady_judge_all(const double *const *ys, size_t nmetrics, size_t n,
		     const struct steady_params *p, struct steady_result *r,
		     struct steady_result *all);

#endif
