/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_VERDICT_H
#define PLATEAU_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "sample.h"
#include "steady.h"
#include "store.h"

/*
 * verdict: the one home of a steady-state verdict around lib/steady.c's
 * arithmetic: the parameters as a phase stores them (JSON, written by
 * plan_phase_json() and read back here), how they resolve against a
 * command line's, the judgement of a stored phase, and a result as JSON
 * and as CSV cells.  The daemon judges from the parsed plan; every reader
 * of the database judges through verdict_judge_phase(), so both see the
 * same parameters within the same bounds.
 *
 * Parameters resolve in this order: the criterion's defaults
 * (steady_params_default()), then the phase's own (when the criterion is
 * the phase's), then the command line's.
 */

/*
 * The bounds of every parameter, wherever it comes from (a plan, a stored
 * phase, a command line): plateau.plan(5)'s.  A window of 1000 rounds is
 * 16 hours at the default 60 s interval, and each round re-judges the
 * window in O(window).
 */
#define VERDICT_WINDOW_MIN 2U
#define VERDICT_WINDOW_MAX 1000U
#define VERDICT_MAX_ROUNDS_MAX 1000000U

/* struct verdict_params.set: the fields given */
enum {
	VERDICT_SET_WINDOW = 1 << 0,
	VERDICT_SET_DATA = 1 << 1,
	VERDICT_SET_SLOPE = 1 << 2,
	VERDICT_SET_ABS = 1 << 3,
	VERDICT_SET_MAX = 1 << 4,
};

/**
 * struct verdict_params - steady-state parameters as one source gives them
 * @criterion: enum steady_criterion, or -1 when not given
 * @none: the plan judges nothing ("criterion": "none"); the phase ended on
 *        max_rounds or max_duration, and readers judge it with the default
 *        criterion's parameters
 * @p: the values of the fields in @set (@p.criterion is unused)
 * @set: VERDICT_SET_* of the fields given
 * @metrics: the tracking metrics (enum sample_metric), @nmetrics of them;
 *           0: not given
 * @nmetrics: how many
 */
struct verdict_params {
	int criterion;
	bool none;
	struct steady_params p;
	unsigned int set;
	int metrics[SAMPLE_METRIC_N];
	size_t nmetrics;
};

/**
 * verdict_params_init() - nothing given
 * @vp: the parameters to clear (criterion -1, no field set)
 */
void verdict_params_init(struct verdict_params *vp);

/**
 * verdict_params_json() - add the parameters to a phase's params object
 * @o: a JSON object
 * @vp: the parameters
 *
 * Adds "criterion" (its name, or "none"), then, unless none, "window",
 * "data_limit", "slope_limit" and "limits_absolute" as given in @vp->set,
 * "max_rounds" when given, and "metrics" (an array of names) when given.
 * verdict_params_parse() reads exactly these keys back.
 */
void verdict_params_json(json_object *o, const struct verdict_params *vp);

/**
 * verdict_params_parse() - read a phase's params JSON
 * @json: the phase's params text; NULL or "" gives nothing
 * @vp: result, initialized first
 * @err: on failure, which key was wrong and what was expected
 * @errlen: size of @err
 *
 * Keys other than those of verdict_params_json() are ignored.  With
 * "criterion": "none" nothing else is read (@vp->none).
 *
 * Return: 0; -EBADMSG when @json is not an object or a key is malformed or
 * out of bounds.
 */
int verdict_params_parse(const char *json, struct verdict_params *vp, char *err, size_t errlen);

/**
 * verdict_resolve() - the parameters to judge with
 * @phase: the phase's own (criterion -1: none given)
 * @cli: the command line's, or NULL
 * @p: result: the defaults of @cli's criterion, else the phase's, else
 *     SNIA; then the phase's fields (when its criterion is that one);
 *     then @cli's fields
 * @metrics: result: @cli's metrics, else the phase's, else iops
 * @nmetrics: result: how many
 * @err: on failure, why ("--absolute applies to the fio criteria only...")
 * @errlen: size of @err
 *
 * Return: 0; -EINVAL when the result cannot be judged (limits_absolute with
 * SNIA, 0 < max_rounds < window).
 */
int verdict_resolve(const struct verdict_params *phase, const struct verdict_params *cli,
		    struct steady_params *p, int *metrics, size_t *nmetrics, char *err,
		    size_t errlen);

/* verdict_judge_phase() flags */
enum {
	VERDICT_ALL_SERIES = 1 << 0,  /* read every metric's series, not only the judged */
	VERDICT_LAST_WINDOW = 1 << 1, /* judge the last window alone, without a cap */
};

/**
 * struct verdict - a stored phase judged
 * @phase: the phase's own parameters, as stored
 * @p: the parameters judged with
 * @metrics: the tracking metrics judged, @nmetrics of them
 * @nmetrics: how many
 * @series: every series read, by metric id (NULL: not read)
 * @n: the rounds every series read has (a running phase may gain a round
 *     between two reads: the later series' extra round is left out)
 * @first: VERDICT_LAST_WINDOW: the rounds before the judged window (round
 *         k of @res is round @first + k of the phase)
 * @judged: @res and @all hold a judgement (false: VERDICT_LAST_WINDOW with
 *          fewer than a window of rounds, or a failure)
 * @res: per @metrics[k], steady_judge_all()'s results
 * @all: the combined verdict
 */
struct verdict {
	struct verdict_params phase;
	struct steady_params p;
	int metrics[SAMPLE_METRIC_N];
	size_t nmetrics;
	double *series[SAMPLE_METRIC_N];
	size_t n;
	size_t first;
	bool judged;
	struct steady_result res[SAMPLE_METRIC_N];
	struct steady_result all;
};

/**
 * verdict_judge_phase() - judge a stored phase
 * @s: the store
 * @ph: the phase (its params, id, run and seq)
 * @cli: the command line's parameters, or NULL
 * @flags: VERDICT_ALL_SERIES, VERDICT_LAST_WINDOW
 * @v: result; filled as far as it got, free with verdict_free() in every case
 * @err: on failure, a message that names the run and phase where it helps
 * @errlen: size of @err
 *
 * Return: 0; -EBADMSG unreadable params; -EINVAL parameters that cannot be
 * judged (verdict_resolve()); -EIO the store failed (@err: its message);
 * -EDOM a value is negative, NaN or infinite (@v->series and @v->n are
 * set); -ENOMEM.
 */
int verdict_judge_phase(struct store *s, const struct store_phase *ph,
			const struct verdict_params *cli, unsigned int flags, struct verdict *v,
			char *err, size_t errlen);

/**
 * verdict_free() - free what verdict_judge_phase() read
 * @v: the verdict; may be all zero
 */
void verdict_free(struct verdict *v);

/**
 * verdict_result_json() - one metric's result as JSON
 * @r: the metric's result: its evidence
 * @all: the combined verdict (steady, steady_round, rounds, capped, lost,
 *       lost_round), or NULL for @r's own
 * @p: the parameters judged with
 * @metric: the metric's name
 * @unit: its unit ("" none)
 * @y: the series judged (rounds from 1 at y[0]), for "window_values", or
 *     NULL to leave them out
 * @flags: 0 (no flag is defined: the "%.6g" one went when every number
 *         became exact)
 *
 * Keys, in order: metric, unit, criterion, window, steady, steady_round,
 * rounds, capped, window_start, window_end, average, slope, intercept,
 * data_excursion, slope_excursion, data_limit, slope_limit, data_ok,
 * slope_ok, lost, lost_round[, window_values].  Rounds that are not there
 * (no window yet, not steady, not lost) are null.  Every number is exact:
 * rounds are integers, the rest the shortest text that reads back to the
 * same double (parse_fmt_double()); a NaN or infinite value is null.
 *
 * Return: a new object, or NULL when out of memory.
 */
json_object *verdict_result_json(const struct steady_result *r, const struct steady_result *all,
				 const struct steady_params *p, const char *metric,
				 const char *unit, const double *y, unsigned int flags);

#define VERDICT_CSV_NCOLS 17
#define VERDICT_CSV_CELL_BYTES 32
/* the CSV header: one name per column, as verdict_result_csv() fills them */
extern const char *const verdict_csv_columns[VERDICT_CSV_NCOLS];

/**
 * verdict_result_csv() - one metric's result as CSV cells, unquoted
 * @cells: result: VERDICT_CSV_NCOLS cells ("" for an empty one), in the
 *         order of verdict_csv_columns; the writer quotes them (the CLI:
 *         tools/out.c), as a metric's name may hold anything
 * @buf: the cells' storage, but for cells[0], which is @metric itself
 * @r: the metric's result
 * @all: the combined verdict, or NULL for @r's own
 * @p: the parameters judged with
 * @metric: the metric's name
 *
 * Numbers as in verdict_result_json(): exact; a NaN or infinite one is an
 * empty cell.
 */
void verdict_result_csv(const char *cells[VERDICT_CSV_NCOLS],
			char buf[VERDICT_CSV_NCOLS][VERDICT_CSV_CELL_BYTES],
			const struct steady_result *r, const struct steady_result *all,
			const struct steady_params *p, const char *metric);

#endif
