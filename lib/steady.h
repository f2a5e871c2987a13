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
 * where a is the least-squares slope of y over the round index x.
 *
 * fio (steadystate.c) over a window of N samples with mean m:
 *   fio-slope  |a|              < X (absolute) or 100 * |a| / m < X %
 *   fio-dev    max |y - m|      < X (absolute) or 100 * max|y - m| / m < X %
 *
 * Rounds are numbered from 1.  A window is identified by its last round.
 */

enum steady_criterion {
	STEADY_SNIA,
	STEADY_FIO_SLOPE,
	STEADY_FIO_DEV,
};

struct steady_params {
	enum steady_criterion criterion;
	unsigned int window;  /* rounds in the window, >= 2 */
	double data_limit;    /* SNIA R; fio-dev X */
	double slope_limit;   /* SNIA S; fio-slope X */
	bool limits_absolute; /* fio only: X in the metric's units, not % */
	unsigned int max_rounds; /* 0: no cap; judge at most this many rounds */
};

struct steady_result {
	bool steady;        /* some window passed within the rounds judged */
	size_t steady_round; /* last round of the first passing window, 0 if none */
	size_t rounds;       /* rounds judged (n capped at max_rounds) */
	bool capped;         /* max_rounds reached without a passing window */
	/* The evidence: of the first passing window, or of the last window
	 * judged when none passed (all zero when n < window). */
	size_t window_start, window_end; /* 1-based, inclusive */
	double average;
	double slope, intercept;        /* y = slope * round + intercept, rounds 1-based */
	double data_excursion;          /* in the metric's units */
	double slope_excursion;         /* in the metric's units */
	double data_limit, slope_limit; /* in the metric's units */
	bool data_ok, slope_ok;
	/* steady lost: the first window after steady_round that fails */
	bool lost;
	size_t lost_round; /* last round of that window, 0 if not lost */
};

/* steady_params_default() - SNIA: W=5, R=20, S=10, 25 rounds; fio: W=5? see .c */
void steady_params_default(struct steady_params *p, enum steady_criterion c);
/* "snia", "fio-slope", "fio-dev" -> criterion, or -EINVAL */
int steady_criterion_parse(const char *name);
const char *steady_criterion_name(enum steady_criterion c);

/**
 * steady_judge() - judge a series
 * @y: values, one per round
 * @n: number of rounds
 * @p: parameters
 * @r: result, fully written on success
 *
 * Return: 0; -EINVAL for bad parameters (window < 2, negative limits, unknown
 * criterion); -EDOM if any judged value is negative, NaN or infinite.
 */
int steady_judge(const double *y, size_t n, const struct steady_params *p,
		 struct steady_result *r);

/**
 * steady_judge_all() - several tracking metrics at once
 * @ys: @nmetrics series of @n rounds each
 * @r: @nmetrics results; each describes its metric at the verdict window
 * @all: the combined verdict: steady at the first window in which every
 *       metric passes; lost at the first later window in which any fails
 *
 * Return: as steady_judge().
 */
int steady_judge_all(const double *const *ys, size_t nmetrics, size_t n,
		     const struct steady_params *p, struct steady_result *r,
		     struct steady_result *all);

#endif
