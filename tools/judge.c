// SPDX-License-Identifier: MIT
/* judge: steady-state options, verdicts and `plateau steady`. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "parse.h"

enum {
	JS_WINDOW = 1 << 0,
	JS_DATA = 1 << 1,
	JS_SLOPE = 1 << 2,
	JS_ABS = 1 << 3,
	JS_MAX = 1 << 4,
};

void judge_opts_init(struct judge_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->plan_criterion = -1;
	o->cli_criterion = -1;
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
			return cli_error(CLI_USAGE, "--metric: unknown metric '%s' (expected %s)", tok,
					 sample_metric_names());
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
		o->cli_criterion = c;
		return CLI_OK;
	case 1:
		if (parse_uint_range(arg, 2, 1000000, &u))
			return cli_error(CLI_USAGE, "--window: expected a number of rounds >= 2, not '%s'",
					 arg);
		o->cli.window = (unsigned int)u;
		o->cli_set |= JS_WINDOW;
		return CLI_OK;
	case 2:
	case 3:
		if (parse_percent(arg, true, &d))
			return cli_error(CLI_USAGE, "--%s: expected a non-negative number, not '%s'",
					 opt - JUDGE_OPT_BASE == 2 ? "data-limit" : "slope-limit", arg);
		if (opt - JUDGE_OPT_BASE == 2) {
			o->cli.data_limit = d;
			o->cli_set |= JS_DATA;
		} else {
			o->cli.slope_limit = d;
			o->cli_set |= JS_SLOPE;
		}
		return CLI_OK;
	case 4:
		o->cli.limits_absolute = true;
		o->cli_set |= JS_ABS;
		return CLI_OK;
	case 5:
		if (parse_uint_range(arg, 0, 100000000, &u))
			return cli_error(CLI_USAGE, "--max-rounds: expected a number (0: no cap), not '%s'",
					 arg);
		o->cli.max_rounds = (unsigned int)u;
		o->cli_set |= JS_MAX;
		return CLI_OK;
	case 6:
		return judge_parse_metrics(arg, o->cli_metrics, &o->cli_nmetrics);
	default:
		return CLI_USAGE;
	}
}

int judge_opts_from_params(struct judge_opts *o, const char *json)
{
	json_object *root, *v;
	int ret = 0;

	if (!json || !*json)
		return 0;
	root = json_tokener_parse(json);
	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return -EINVAL;
	}
	if (json_object_object_get_ex(root, "criterion", &v) &&
	    !strcmp(json_object_get_string(v), "none")) {
		/* the plan judged nothing: its max_rounds only ended the phase;
		 * judge with the criterion's defaults */
		json_object_put(root);
		return 0;
	}
	if (json_object_object_get_ex(root, "criterion", &v)) {
		int c = steady_criterion_parse(json_object_get_string(v));

		if (c < 0)
			ret = -EINVAL;
		o->plan_criterion = c;
	}
	if (json_object_object_get_ex(root, "window", &v)) {
		int64_t w = json_object_get_int64(v);

		if (w < 2 || w > 1000000)
			ret = -EINVAL;
		o->plan.window = (unsigned int)w;
		o->plan_set |= JS_WINDOW;
	}
	if (json_object_object_get_ex(root, "data_limit", &v)) {
		o->plan.data_limit = json_object_get_double(v);
		o->plan_set |= JS_DATA;
	}
	if (json_object_object_get_ex(root, "slope_limit", &v)) {
		o->plan.slope_limit = json_object_get_double(v);
		o->plan_set |= JS_SLOPE;
	}
	if (json_object_object_get_ex(root, "limits_absolute", &v)) {
		o->plan.limits_absolute = json_object_get_boolean(v);
		o->plan_set |= JS_ABS;
	}
	if (json_object_object_get_ex(root, "max_rounds", &v)) {
		int64_t m = json_object_get_int64(v);

		if (m < 0 || m > 100000000)
			ret = -EINVAL;
		o->plan.max_rounds = (unsigned int)m;
		o->plan_set |= JS_MAX;
	}
	if (json_object_object_get_ex(root, "metrics", &v)) {
		size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;

		if (!n || n > SAMPLE_METRIC_N)
			ret = -EINVAL;
		for (size_t i = 0; !ret && i < n; i++) {
			int m = sample_metric_parse(
				json_object_get_string(json_object_array_get_idx(v, i)));

			if (m < 0)
				ret = -EINVAL;
			else
				o->plan_metrics[o->plan_nmetrics++] = m;
		}
	}
	json_object_put(root);
	return ret;
}

static void judge_apply(struct steady_params *p, const struct steady_params *from, unsigned int set)
{
	if (set & JS_WINDOW)
		p->window = from->window;
	if (set & JS_DATA)
		p->data_limit = from->data_limit;
	if (set & JS_SLOPE)
		p->slope_limit = from->slope_limit;
	if (set & JS_ABS)
		p->limits_absolute = from->limits_absolute;
	if (set & JS_MAX)
		p->max_rounds = from->max_rounds;
}

int judge_resolve(struct judge_opts *o)
{
	int c = o->cli_criterion >= 0 ? o->cli_criterion
		: o->plan_criterion >= 0 ? o->plan_criterion
					 : STEADY_SNIA;

	steady_params_default(&o->p, (enum steady_criterion)c);
	if (o->plan_criterion < 0 || o->plan_criterion == c)
		judge_apply(&o->p, &o->plan, o->plan_set);
	judge_apply(&o->p, &o->cli, o->cli_set);
	if (o->p.limits_absolute && c == STEADY_SNIA)
		return cli_error(CLI_USAGE, "--absolute applies to the fio criteria only; SNIA "
					    "limits are percentages of the window average");
	if (o->p.max_rounds && o->p.max_rounds < o->p.window)
		return cli_error(CLI_USAGE,
				 "%s %u is below the window of %u rounds: no window could ever be "
				 "judged (0 means no cap)",
				 (o->cli_set & JS_MAX) ? "--max-rounds" : "the plan's max_rounds",
				 o->p.max_rounds, o->p.window);
	if (o->cli_nmetrics) {
		memcpy(o->metrics, o->cli_metrics, sizeof(o->metrics));
		o->nmetrics = o->cli_nmetrics;
	} else if (o->plan_nmetrics) {
		memcpy(o->metrics, o->plan_metrics, sizeof(o->metrics));
		o->nmetrics = o->plan_nmetrics;
	} else {
		o->metrics[0] = SAMPLE_METRIC_IOPS;
		o->nmetrics = 1;
	}
	return CLI_OK;
}

static const char *judge_name(const struct judge_opts *o, enum sample_metric m)
{
	return o->series_name ? o->series_name : sample_metric_name(m);
}

static const char *judge_unit(const struct judge_opts *o, enum sample_metric m)
{
	return o->series_name ? (o->series_unit ? o->series_unit : "") : sample_metric_unit(m);
}

static json_object *judge_json_result(const struct steady_result *r, enum sample_metric m,
				      const struct judge_opts *jo, const double *y)
{
	const struct steady_params *p = &jo->p;
	json_object *o = json_object_new_object(), *win = json_object_new_array();
	char buf[64];

#define JD(key, v)                                                                                 \
	do {                                                                                       \
		snprintf(buf, sizeof(buf), "%.6g", (v));                                           \
		json_object_object_add(o, key, json_object_new_double_s((v), buf));                \
	} while (0)
	json_object_object_add(o, "metric", json_object_new_string(judge_name(jo, m)));
	json_object_object_add(o, "unit", json_object_new_string(judge_unit(jo, m)));
	json_object_object_add(o, "criterion",
			       json_object_new_string(steady_criterion_name(p->criterion)));
	json_object_object_add(o, "window", json_object_new_int((int)p->window));
	json_object_object_add(o, "steady", json_object_new_boolean(r->steady));
	json_object_object_add(o, "steady_round",
			       r->steady ? json_object_new_int64((int64_t)r->steady_round) : NULL);
	json_object_object_add(o, "rounds", json_object_new_int64((int64_t)r->rounds));
	json_object_object_add(o, "capped", json_object_new_boolean(r->capped));
	json_object_object_add(o, "window_start", r->window_end ? json_object_new_int64(
									 (int64_t)r->window_start)
								 : NULL);
	json_object_object_add(o, "window_end",
			       r->window_end ? json_object_new_int64((int64_t)r->window_end) : NULL);
	JD("average", r->average);
	JD("slope", r->slope);
	JD("intercept", r->intercept);
	JD("data_excursion", r->data_excursion);
	JD("slope_excursion", r->slope_excursion);
	JD("data_limit", r->data_limit);
	JD("slope_limit", r->slope_limit);
	json_object_object_add(o, "data_ok", json_object_new_boolean(r->data_ok));
	json_object_object_add(o, "slope_ok", json_object_new_boolean(r->slope_ok));
	json_object_object_add(o, "lost", json_object_new_boolean(r->lost));
	json_object_object_add(o, "lost_round",
			       r->lost ? json_object_new_int64((int64_t)r->lost_round) : NULL);
	for (size_t i = r->window_start; r->window_end && i <= r->window_end; i++) {
		snprintf(buf, sizeof(buf), "%.6g", y[i - 1]);
		json_object_array_add(win, json_object_new_double_s(y[i - 1], buf));
	}
	json_object_object_add(o, "window_values", win);
#undef JD
	return o;
}

static const char *judge_limit_desc(char *buf, size_t len, const struct steady_params *p,
				    double lim)
{
	if (p->limits_absolute)
		snprintf(buf, len, "absolute");
	else
		snprintf(buf, len, "%g%% of the %s", lim, p->criterion == STEADY_SNIA ? "average" : "mean");
	return buf;
}

static void judge_print(FILE *f, const struct steady_result *r, enum sample_metric m,
			const struct judge_opts *o, const double *y)
{
	const struct steady_params *p = &o->p;
	const char *unit = judge_unit(o, m);
	char l1[64], l2[64], u[32];

	snprintf(u, sizeof(u), "%s%s", *unit ? " " : "", unit);

	fprintf(f, "  metric     %s (%s), criterion %s, window %u rounds, %zu rounds judged%s\n",
		judge_name(o, m), *unit ? unit : "no unit", steady_criterion_name(p->criterion), p->window, r->rounds,
		r->capped ? " (max-rounds cap reached)" : "");
	if (!r->window_end) {
		fprintf(f, "  window     fewer than %u rounds: nothing to judge yet\n", p->window);
		return;
	}
	fprintf(f, "  window     rounds %zu-%zu%s:", r->window_start, r->window_end,
		r->steady ? "" : " (the last judged)");
	for (size_t i = r->window_start; i <= r->window_end; i++)
		fprintf(f, " %.6g", y[i - 1]);
	fprintf(f, "\n  average    %.6g%s\n", r->average, u);
	fprintf(f, "  fit        y = %.6g * round %s %.6g\n", r->slope, r->intercept < 0 ? "-" : "+",
		fabs(r->intercept));
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

int judge_report(const char *title, json_object *source, const double *const *ys, size_t n,
		 const struct judge_opts *o, enum cli_format fmt, FILE *out, json_object **json)
{
	struct steady_result res[SAMPLE_METRIC_N], all;
	int r;

	r = steady_judge_all(ys, o->nmetrics, n, &o->p, res, &all);
	if (r == -EDOM) {
		json_object_put(source);
		return cli_error(CLI_USAGE, "%s: a value is negative, NaN or infinite", title);
	}
	if (r) {
		json_object_put(source);
		return cli_error(CLI_USAGE, "%s: invalid steady-state parameters", title);
	}

	if (json || fmt == CLI_JSON) {
		/* the first metric's evidence at the top, the verdict of all */
		json_object *doc = judge_json_result(&res[0], (enum sample_metric)o->metrics[0], o,
						     ys[0]);

		json_object_object_add(doc, "steady", json_object_new_boolean(all.steady));
		json_object_object_add(doc, "steady_round",
				       all.steady ? json_object_new_int64((int64_t)all.steady_round)
						  : NULL);
		json_object_object_add(doc, "lost", json_object_new_boolean(all.lost));
		json_object_object_add(doc, "lost_round",
				       all.lost ? json_object_new_int64((int64_t)all.lost_round)
						: NULL);
		json_object_object_add(doc, "source", source);
		if (o->nmetrics > 1) {
			json_object *arr = json_object_new_array();

			for (size_t i = 0; i < o->nmetrics; i++)
				json_object_array_add(arr, judge_json_result(
								   &res[i],
								   (enum sample_metric)o->metrics[i], o,
								   ys[i]));
			json_object_object_add(doc, "metrics", arr);
		}
		if (json) {
			*json = doc;
		} else {
			fprintf(out, "%s\n",
				json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									    JSON_C_TO_STRING_SPACED |
									    JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(doc);
		}
	} else if (fmt == CLI_CSV) {
		json_object_put(source);
		fprintf(out, "metric,criterion,window,rounds,steady,steady_round,window_start,"
			     "window_end,average,slope,intercept,data_excursion,slope_excursion,"
			     "data_limit,slope_limit,lost,lost_round\n");
		for (size_t i = 0; i < o->nmetrics; i++) {
			const struct steady_result *x = &res[i];

			fprintf(out, "%s,%s,%u,%zu,%s,",
				judge_name(o, (enum sample_metric)o->metrics[i]),
				steady_criterion_name(o->p.criterion), o->p.window, x->rounds,
				all.steady ? "true" : "false");
			if (all.steady)
				fprintf(out, "%zu", all.steady_round);
			fprintf(out, ",");
			if (x->window_end)
				fprintf(out, "%zu,%zu", x->window_start, x->window_end);
			else
				fprintf(out, ",");
			fprintf(out, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,", x->average, x->slope,
				x->intercept, x->data_excursion, x->slope_excursion, x->data_limit,
				x->slope_limit, all.lost ? "true" : "false");
			if (all.lost)
				fprintf(out, "%zu", all.lost_round);
			fprintf(out, "\n");
		}
	} else {
		json_object_put(source);
		fprintf(out, "%s: ", title);
		if (all.steady)
			fprintf(out, "steady at round %zu", all.steady_round);
		else
			fprintf(out, "NOT steady after %zu rounds", all.rounds);
		if (all.lost)
			fprintf(out, ", steady state lost at round %zu", all.lost_round);
		fprintf(out, "\n");
		for (size_t i = 0; i < o->nmetrics; i++)
			judge_print(out, &res[i], (enum sample_metric)o->metrics[i], o, ys[i]);
	}
	return all.steady ? CLI_OK : CLI_NOT;
}

int judge_phase(struct cli *cli, struct store *s, const struct store_run *run,
		const struct store_phase *p, struct judge_opts *o, FILE *out, json_object **json)
{
	double *ys[SAMPLE_METRIC_N] = { 0 };
	size_t n = 0, k;
	json_object *src;
	char title[256];
	int r;

	if ((r = judge_resolve(o)))
		return r;
	for (k = 0; k < o->nmetrics; k++) {
		size_t nk;

		if (store_series(s, p->id, (enum sample_metric)o->metrics[k], &ys[k], &nk)) {
			r = cli_error(CLI_USAGE, "%s", store_errmsg(s));
			goto out;
		}
		/* a running phase may gain a round between two reads */
		n = k == 0 || nk < n ? nk : n;
	}
	snprintf(title, sizeof(title), "run %lld phase %d (%s%s%s)", (long long)run->id, p->seq,
		 p->kind, *p->name ? " " : "", p->name);
	src = json_object_new_object();
	json_object_object_add(src, "run", json_object_new_int64(run->id));
	json_object_object_add(src, "phase", json_object_new_int(p->seq));
	json_object_object_add(src, "workload", json_object_new_string(p->name));
	r = judge_report(title, src, (const double *const *)ys, n, o, cli->format, out, json);
out:
	for (k = 0; k < o->nmetrics; k++)
		free(ys[k]);
	return r;
}

int cmd_steady(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "phase", required_argument, NULL, 'p' },
		JUDGE_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
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
			if (parse_uint_range(optarg, 1, 1000000, &phase_seq))
				return cli_error(CLI_USAGE, "--phase: expected a phase number, not '%s'",
						 optarg);
		} else if (opt >= JUDGE_OPT_BASE) {
			if ((r = judge_opt(&jo, opt, optarg)))
				return r;
		} else {
			return cli_bad_option("steady", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("steady");
	if ((r = cli_parse_run(argv[optind], &run_id)))
		return r;
	if ((r = cli_open_phase(cli, run_id, (int)phase_seq, &ph)))
		return r;
	if (judge_opts_from_params(&jo, ph.p->params))
		r = cli_error(CLI_USAGE, "run %lld phase %d: unreadable steady-state parameters",
			      (long long)run_id, ph.p->seq);
	else
		r = judge_phase(cli, ph.s, &ph.run, ph.p, &jo, stdout, NULL);
	cli_close_phase(&ph);
	return r;
}
