/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_JUDGE_H
#define PLATEAU_JUDGE_H

#include <getopt.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cli.h"
#include "sample.h"
#include "steady.h"
#include "verdict.h"

/*
 * judge: the steady-state options shared by `steady`, `analyze` and `show`,
 * and the printing of a verdict with its evidence.  What the parameters
 * are, how they resolve and how a stored phase is judged is lib/verdict's;
 * this is the command line's side of it.
 */
struct judge_opts {
	struct verdict_params cli; /* from the command line */
	/* analyze: one series from elsewhere, named and in its own unit */
	const char *series_name;
	const char *series_unit;
};

/* getopt_long codes of the shared options start here */
#define JUDGE_OPT_BASE 0x1000
#define JUDGE_LONG_OPTS                                                       \
	{"criterion", required_argument, NULL, JUDGE_OPT_BASE + 0},           \
		{"window", required_argument, NULL, JUDGE_OPT_BASE + 1},      \
		{"data-limit", required_argument, NULL, JUDGE_OPT_BASE + 2},  \
		{"slope-limit", required_argument, NULL, JUDGE_OPT_BASE + 3}, \
		{"absolute", no_argument, NULL, JUDGE_OPT_BASE + 4},          \
		{"max-rounds", required_argument, NULL, JUDGE_OPT_BASE + 5},  \
	{                                                                     \
		"metric", required_argument, NULL, JUDGE_OPT_BASE + 6         \
	}

void judge_opts_init(struct judge_opts *o);
/* handle one shared option; returns an exit code (CLI_USAGE on a bad value) */
int judge_opt(struct judge_opts *o, int opt, const char *arg);
/* "iops,lat" -> metric ids; prints and returns an exit code */
int judge_parse_metrics(const char *list, int *m, size_t *n);

/*
 * judge_series() - judge one series from elsewhere and print the verdict
 * @title: what was judged (the file's name)
 * @source: where it came from, for JSON (consumed)
 * @y: @n rounds
 * @o: the command line's options, series_name and series_unit
 * @fmt: output format
 *
 * Return: CLI_OK steady, CLI_NOT not steady, CLI_USAGE bad data.
 */
int judge_series(const char *title, json_object *source, const double *y, size_t n,
		 const struct judge_opts *o, enum cli_format fmt);

/*
 * judge_phase() - judge a stored phase (lib/verdict) and print the verdict
 * @out: where the text, CSV or JSON goes (when @json is NULL)
 * @json: when not NULL, receives the verdict as a JSON object instead
 *
 * Return: CLI_OK steady, CLI_NOT not steady, CLI_USAGE bad data.
 */
int judge_phase(struct cli *cli, struct store *s, const struct store_run *run,
		const struct store_phase *p, const struct judge_opts *o, FILE *out,
		json_object **json);

#endif
