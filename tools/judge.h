/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_JUDGE_H
#define PLATEAU_JUDGE_H

#include <getopt.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cli.h"
#include "sample.h"
#include "steady.h"

/*
 * judge: the steady-state options shared by `steady`, `analyze` and `show`,
 * and the printing of a verdict with its evidence.
 *
 * The parameters resolve in this order: the criterion's defaults, then the
 * phase's own plan parameters (when the criterion is the plan's), then the
 * command-line options.
 */
struct judge_opts {
	struct steady_params p; /* resolved by judge_resolve() */
	int metrics[SAMPLE_METRIC_N];
	size_t nmetrics;
	/* from the plan (phase params) */
	int plan_criterion; /* -1 none */
	struct steady_params plan;
	unsigned int plan_set;
	int plan_metrics[SAMPLE_METRIC_N];
	size_t plan_nmetrics;
	/* from the command line */
	int cli_criterion;
	struct steady_params cli;
	unsigned int cli_set;
	int cli_metrics[SAMPLE_METRIC_N];
	size_t cli_nmetrics;
	/* analyze: one series from elsewhere, named and in its own unit */
	const char *series_name;
	const char *series_unit;
};

/* getopt_long codes of the shared options start here */
#define JUDGE_OPT_BASE 0x1000
#define JUDGE_LONG_OPTS                                                                            \
	{ "criterion", required_argument, NULL, JUDGE_OPT_BASE + 0 },                              \
		{ "window", required_argument, NULL, JUDGE_OPT_BASE + 1 },                         \
		{ "data-limit", required_argument, NULL, JUDGE_OPT_BASE + 2 },                     \
		{ "slope-limit", required_argument, NULL, JUDGE_OPT_BASE + 3 },                    \
		{ "absolute", no_argument, NULL, JUDGE_OPT_BASE + 4 },                             \
		{ "max-rounds", required_argument, NULL, JUDGE_OPT_BASE + 5 },                     \
		{ "metric", required_argument, NULL, JUDGE_OPT_BASE + 6 }

void judge_opts_init(struct judge_opts *o);
/* handle one shared option; returns an exit code (CLI_USAGE on a bad value) */
int judge_opt(struct judge_opts *o, int opt, const char *arg);
/* apply a phase's params JSON (keys criterion, window, data_limit,
 * slope_limit, limits_absolute, max_rounds, metrics); -EINVAL if malformed */
int judge_opts_from_params(struct judge_opts *o, const char *json);
/* "iops,lat" -> metric ids; prints and returns an exit code */
int judge_parse_metrics(const char *list, int *m, size_t *n);
/* resolve the parameters; prints and returns an exit code */
int judge_resolve(struct judge_opts *o);

/*
 * judge_report() - judge the series and print the verdict with its evidence
 * @title: what was judged ("run 3 phase 2 (precondition 4k-randwrite)")
 * @ys: one series per o->metrics[i], @n rounds each
 * @fmt: output format (when @out is not NULL)
 * @json: when not NULL, receives the verdict as a JSON object instead
 *
 * Return: CLI_OK steady, CLI_NOT not steady, CLI_USAGE bad data.
 */
int judge_report(const char *title, json_object *source, const double *const *ys, size_t n,
		 const struct judge_opts *o, enum cli_format fmt, FILE *out, json_object **json);

/* Re-judge a stored phase (see judge_report); resolves @o. */
int judge_phase(struct cli *cli, struct store *s, const struct store_run *run,
		const struct store_phase *p, struct judge_opts *o, FILE *out, json_object **json);

#endif
