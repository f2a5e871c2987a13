// SPDX-License-Identifier: MIT
/* judge: steady-state options, verdicts and `plateau steady`. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "out.h"
#include "parse.h"
#include "points.h"

void judge_opts_init(struct judge_opts *o)
{
	memset(o, 0, sizeof(*o));
	verdict_params_init(&o->cli);
}

int judge_parse_metrics(const char *list, int *m, size_t *n)
{
	char buf[256], *save = NULL, *tok;
	size_t k = 0;

	if (!list || strlen(list) >= sizeof(buf) || !*list)
		return cli_error(CLI_USAGE, "--metric: expected one or more of %s",
				 sample_metric_names());
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int id = sample_metric_parse(tok);

		if (id < 0)
			return cli_error(CLI_USAGE, "--metric: unknown metric '%s' (expected %s)",
					 tok, sample_metric_names());
		for (size_t i = 0; i < k; i++)
			if (m[i] == id)
				return cli_error(CLI_USAGE, "--metric: '%s' given twice", tok);
		m[k++] = id;
	}
	if (!k)
		return cli_error(CLI_USAGE, "--metric: expected one or more of %s",
				 sample_metric_names());
	*n = k;
	return CLI_OK;
}

int judge_opt(struct judge_opts *o, int opt, const char *arg)
{
	uint64_t u;
	double d;
	int c;

	switch (opt - JUDGE_OPT_BASE) {
	case 0:
		c = steady_criterion_parse(arg);
		if (c < 0)
			return cli_error(CLI_USAGE,
					 "--criterion: '%s' is not one of snia, fio-slope, fio-dev",
					 arg);
		o->cli.criterion = c;
		return CLI_OK;
	case 1:
		if (parse_uint_range(arg, VERDICT_WINDOW_MIN, VERDICT_WINDOW_MAX, &u))
			return cli_error(CLI_USAGE,
					 "--window: expected a number of rounds %u..%u, not '%s'",
					 VERDICT_WINDOW_MIN, VERDICT_WINDOW_MAX, arg);
		o->cli.p.window = (unsigned int)u;
		o->cli.set |= VERDICT_SET_WINDOW;
		return CLI_OK;
	case 2:
	case 3:
		if (parse_percent(arg, true, &d))
			return cli_error(
				CLI_USAGE, "--%s: expected a non-negative number, not '%s'",
				opt - JUDGE_OPT_BASE == 2 ? "data-limit" : "slope-limit", arg);
		if (opt - JUDGE_OPT_BASE == 2) {
			o->cli.p.data_limit = d;
			o->cli.set |= VERDICT_SET_DATA;
		} else {
			o->cli.p.slope_limit = d;
			o->cli.set |= VERDICT_SET_SLOPE;
		}
		return CLI_OK;
	case 4:
		o->cli.p.limits_absolute = true;
		o->cli.set |= VERDICT_SET_ABS;
		return CLI_OK;
	case 5:
		if (parse_uint_range(arg, 0, VERDICT_MAX_ROUNDS_MAX, &u))
			return cli_error(
				CLI_USAGE,
				"--max-rounds: expected a number 0..%u (0: no cap), not '%s'",
				VERDICT_MAX_ROUNDS_MAX, arg);
		o->cli.p.max_rounds = (unsigned int)u;
		o->cli.set |= VERDICT_SET_MAX;
		return CLI_OK;
	case 6:
		return judge_parse_metrics(arg, o->cli.metrics, &o->cli.nmetrics);
	default:
		return CLI_USAGE;
	}
}

static const char *judge_name(const struct judge_opts *o, enum sample_metric m)
{
	return o->series_name ? o->series_name : sample_metric_name(m);
}

static const char *judge_unit(const struct judge_opts *o, enum sample_metric m)
{
	return o->series_name ? (o->series_unit ? o->series_unit : "") : sample_metric_unit(m);
}

static const char *judge_limit_desc(char *buf, size_t len, const struct steady_params *p,
				    double lim)
{
	if (p->limits_absolute)
		snprintf(buf, len, "absolute");
	else
		snprintf(buf, len, "%g%% of the %s", lim,
			 p->criterion == STEADY_SNIA ? "average" : "mean");
	return buf;
}

static void judge_print(FILE *f, const struct steady_result *r, enum sample_metric m,
			const struct steady_params *p, const struct judge_opts *o, const double *y)
{
	const char *unit = judge_unit(o, m);
	char l1[64], l2[64], u[32];

	snprintf(u, sizeof(u), "%s%s", *unit ? " " : "", unit);

	fprintf(f, "  metric     %s (%s), criterion %s, window %u rounds, %zu rounds judged%s\n",
		judge_name(o, m), *unit ? unit : "no unit", steady_criterion_name(p->criterion),
		p->window, r->rounds, r->capped ? " (max-rounds cap reached)" : "");
	if (!r->window_end) {
		fprintf(f, "  window     fewer than %u rounds: nothing to judge yet\n", p->window);
		return;
	}
	fprintf(f, "  window     rounds %zu-%zu%s:", r->window_start, r->window_end,
		r->steady ? "" : " (the last judged)");
	for (size_t i = r->window_start; i <= r->window_end; i++)
		fprintf(f, " %.6g", y[i - 1]);
	fprintf(f, "\n  average    %.6g%s\n", r->average, u);
	fprintf(f, "  fit        y = %.6g * round %s %.6g\n", r->slope,
		r->intercept < 0 ? "-" : "+", fabs(r->intercept));
	if (p->criterion == STEADY_SNIA || p->criterion == STEADY_FIO_DEV)
		fprintf(f, "  data       excursion %.6g %s %.6g%s (%s): %s\n", r->data_excursion,
			r->data_ok ? "within" : "exceeds", r->data_limit, u,
			judge_limit_desc(l1, sizeof(l1), p, p->data_limit),
			r->data_ok ? "pass" : "FAIL");
	if (p->criterion == STEADY_SNIA || p->criterion == STEADY_FIO_SLOPE)
		fprintf(f, "  slope      excursion %.6g %s %.6g%s (%s): %s\n", r->slope_excursion,
			r->slope_ok ? "within" : "exceeds", r->slope_limit, u,
			judge_limit_desc(l2, sizeof(l2), p, p->slope_limit),
			r->slope_ok ? "pass" : "FAIL");
}

/* one row per metric, quoted by tools/out.c (a --column name may hold a comma) */
static int judge_csv(FILE *out, const struct steady_result *res, const struct steady_result *all,
		     const struct steady_params *p, const int *metrics, size_t nmetrics,
		     const struct judge_opts *o)
{
	struct out_col cols[VERDICT_CSV_NCOLS];
	char buf[VERDICT_CSV_NCOLS][VERDICT_CSV_CELL_BYTES];
	const char *cells[VERDICT_CSV_NCOLS];
	struct out *t;

	for (size_t i = 0; i < VERDICT_CSV_NCOLS; i++)
		cols[i] = (struct out_col){.name = verdict_csv_columns[i]};
	t = out_new(CLI_CSV, out, cols, VERDICT_CSV_NCOLS);
	if (!t)
		return cli_error(CLI_USAGE, "out of memory");
	for (size_t k = 0; k < nmetrics; k++) {
		verdict_result_csv(cells, buf, &res[k], all, p,
				   judge_name(o, (enum sample_metric)metrics[k]));
		for (size_t i = 0; i < VERDICT_CSV_NCOLS; i++)
			out_str(t, cells[i]);
		out_end_row(t);
	}
	if (out_finish(t))
		return cli_error(CLI_USAGE, "cannot write the output: %s", strerror(EIO));
	return CLI_OK;
}

/* Print a judgement: text, CSV or JSON (into *json when @json). */
static int judge_show(const char *title, json_object *source, const double *const *ys,
		      const struct steady_result *res, const struct steady_result *all,
		      const struct steady_params *p, const int *metrics, size_t nmetrics,
		      const struct judge_opts *o, enum cli_format fmt, FILE *out,
		      json_object **json)
{
	if (json || fmt == CLI_JSON) {
		/* the first metric's evidence at the top, the verdict of all */
		enum sample_metric m0 = (enum sample_metric)metrics[0];
		json_object *doc = verdict_result_json(&res[0], all, p, judge_name(o, m0),
						       judge_unit(o, m0), ys[0], 0);

		json_object_object_add(doc, "source", source);
		if (nmetrics > 1) {
			json_object *arr = json_object_new_array();

			for (size_t i = 0; i < nmetrics; i++) {
				enum sample_metric m = (enum sample_metric)metrics[i];

				json_object_array_add(
					arr, verdict_result_json(&res[i], all, p, judge_name(o, m),
								 judge_unit(o, m), ys[i], 0));
			}
			json_object_object_add(doc, "metrics", arr);
		}
		if (json) {
			*json = doc;
		} else {
			fprintf(out, "%s\n",
				json_object_to_json_string_ext(
					doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(doc);
		}
	} else if (fmt == CLI_CSV) {
		int r;

		json_object_put(source);
		if ((r = judge_csv(out, res, all, p, metrics, nmetrics, o)))
			return r;
	} else {
		json_object_put(source);
		fprintf(out, "%s: ", title);
		if (all->steady)
			fprintf(out, "steady at round %zu", all->steady_round);
		else
			fprintf(out, "NOT steady after %zu rounds", all->rounds);
		if (all->lost)
			fprintf(out, ", steady state lost at round %zu", all->lost_round);
		fprintf(out, "\n");
		for (size_t i = 0; i < nmetrics; i++)
			judge_print(out, &res[i], (enum sample_metric)metrics[i], p, o, ys[i]);
	}
	return all->steady ? CLI_OK : CLI_NOT;
}

int judge_series(const char *title, json_object *source, const double *y, size_t n,
		 const struct judge_opts *o, enum cli_format fmt)
{
	struct steady_result res[1], all;
	struct verdict_params none;
	struct steady_params p;
	int metrics[SAMPLE_METRIC_N];
	size_t nmetrics;
	char err[256];
	int r;

	verdict_params_init(&none);
	if (verdict_resolve(&none, &o->cli, &p, metrics, &nmetrics, err, sizeof(err))) {
		json_object_put(source);
		return cli_error(CLI_USAGE, "%s", err);
	}
	r = steady_judge_all(&y, 1, n, &p, res, &all);
	if (r) {
		json_object_put(source);
		return cli_error(CLI_USAGE, "%s: %s", title,
				 r == -EDOM ? "a value is negative, NaN or infinite"
					    : "invalid steady-state parameters");
	}
	return judge_show(title, source, &y, res, &all, &p, metrics, 1, o, fmt, stdout, NULL);
}

int judge_phase(struct cli *cli, struct store *s, const struct store_run *run,
		const struct store_phase *p, const struct judge_opts *o, FILE *out,
		json_object **json)
{
	const double *ys[SAMPLE_METRIC_N];
	struct verdict v;
	json_object *src;
	char title[256], err[512];
	int r;

	r = verdict_judge_phase(s, p, &o->cli, 0, &v, err, sizeof(err));
	if (r) {
		verdict_free(&v);
		return cli_error(CLI_USAGE, "%s", err);
	}
	for (size_t k = 0; k < v.nmetrics; k++)
		ys[k] = v.series[v.metrics[k]];
	snprintf(title, sizeof(title), "run %lld phase %d (%s%s%s)", (long long)run->id, p->seq,
		 p->kind, *p->name ? " " : "", p->name);
	src = json_object_new_object();
	json_object_object_add(src, "run", json_object_new_int64(run->id));
	json_object_object_add(src, "phase", json_object_new_int(p->seq));
	json_object_object_add(src, "workload", json_object_new_string(p->name));
	r = judge_show(title, src, ys, v.res, &v.all, &v.p, v.metrics, v.nmetrics, o, cli->format,
		       out, json);
	verdict_free(&v);
	return r;
}

int cmd_steady(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		JUDGE_LONG_OPTS,
		{NULL, 0, NULL, 0},
	};
	struct judge_opts jo;
	struct cli_phase ph;
	uint64_t phase_seq = 0;
	int64_t run_id;
	int opt, r;

	judge_opts_init(&jo);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'p') {
			if ((r = cli_parse_phase(optarg, &phase_seq)))
				return r;
		} else if (opt >= JUDGE_OPT_BASE) {
			if ((r = judge_opt(&jo, opt, optarg)))
				return r;
		} else {
			return cli_bad_option("steady", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("steady");
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;
	if ((r = cli_open_phase(cli, run_id, (int)phase_seq, &ph)))
		return r;
	/* a read. (write.) metric of a phase that never read (wrote) would be
	 * judged on zeros */
	r = points_need_metric_io(&ph, jo.cli.metrics, jo.cli.nmetrics);
	if (!r)
		r = judge_phase(cli, ph.s, &ph.run, ph.p, &jo, stdout, NULL);
	cli_close_phase(&ph);
	return r;
}

const struct cli_cmd cli_cmd_steady = {
	"steady",
	"RUN [--phase N] [--criterion snia|fio-slope|fio-dev]\n"
	"       [--window N] [--data-limit P] [--slope-limit P] [--absolute]\n"
	"       [--max-rounds N] [--metric M[,M...]]",
	"re-judge the stored samples of a phase with any criterion",
	"  --criterion C       snia (default): max-min <= R% and |slope|*(W-1) <= S% of\n"
	"                      the window average; fio-slope: |slope| < X% of mean;\n"
	"                      fio-dev: max|y-mean| < X% of mean\n"
	"  --window N          rounds in the window (default 5)\n"
	"  --data-limit P      R (snia, default 20) or X (fio-dev)\n"
	"  --slope-limit P     S (snia, default 10) or X (fio-slope)\n"
	"  --absolute          fio criteria: limits in the metric's units, not percent\n"
	"  --max-rounds N      judge at most N rounds (default 25; 0: no cap)\n"
	"  --metric M[,M...]   iops (default), bw, lat, lat-min, lat-max, lat-stddev,\n"
	"                      p50 p90 p99 p99.9 p99.99, each also as read.M or\n"
	"                      write.M (plateau(1), METRICS); several metrics must\n"
	"                      all pass in the same window\n"
	"  Exit status: 0 steady, 1 not steady; 2 bad option, or a read. (write.)\n"
	"  metric of a phase without reads (writes).\n" FORMAT_HELP,
	cmd_steady,
	CLI_FMT_ALL};
