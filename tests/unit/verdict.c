// SPDX-License-Identifier: MIT
/*
 * verdict: the steady-state parameters a plan writes are the ones a reader
 * gets back, within the one set of bounds; resolution order; a result as
 * JSON (nulls where a round is not there) and as CSV cells.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tap.h"
#include "verdict.h"

#define PLAN_HEAD "[run]\ndevice = /dev/null\nserial = S1\n[precondition]\nprofile = 4k-randread\n"

static int roundtrip(const char *text, struct plan *p, struct verdict_params *vp)
{
	char err[512] = "", *js;
	int r = plan_parse(text, "t.plan", p, err, sizeof(err));

	if (r) {
		diag("plan_parse: %s", err);
		return r;
	}
	js = plan_phase_json(p, &p->phases[0]);
	r = verdict_params_parse(js, vp, err, sizeof(err));
	if (r)
		diag("verdict_params_parse(%s): %s", js, err);
	free(js);
	return r;
}

static int parse_fails(const char *json, const char *want)
{
	struct verdict_params vp;
	char err[512] = "";
	int r = verdict_params_parse(json, &vp, err, sizeof(err));

	if (r != -EBADMSG || !strstr(err, want))
		diag("got %d '%s', want -EBADMSG and '%s'", r, err, want);
	return r == -EBADMSG && strstr(err, want) && vp.criterion == -1 && !vp.set;
}

/* a JSON document's number at @key, as a script's parser reads it */
static double json_number(json_object *doc, const char *key)
{
	json_object *v = json_object_object_get(doc, key);

	return v ? json_object_get_double(v) : -1.0;
}

/*
 * Every number of a result reads back to the double judged: the verdict
 * JSON and CSV once printed 148913.37293816853 as 148913 and 1234567.1 as
 * 1.23457e+06.
 */
static void exact_numbers(struct steady_params *sp)
{
	static const double y[5] = {148913.37293816853, 0.1, 1234567.1, 2.0 / 3.0, 1e-300};
	struct steady_result r = {0};
	char buf[VERDICT_CSV_NCOLS][VERDICT_CSV_CELL_BYTES];
	const char *cells[VERDICT_CSV_NCOLS];
	json_object *o, *back, *win;
	const char *text;
	int same = 1;

	r.rounds = 5;
	r.window_start = 1;
	r.window_end = 5;
	r.average = 148913.37293816853;
	r.slope = -1234567.1;
	r.intercept = 2.0 / 3.0;
	r.data_excursion = 0.1 + 0.2;
	r.slope_excursion = 1e-300;
	r.data_limit = 29782.674587633706;
	r.slope_limit = NAN;
	o = verdict_result_json(&r, NULL, sp, "iops", "IOPS", y, 0);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ok(strstr(text, "\"average\":148913.37293816853") != NULL,
	   "JSON: the average as its shortest exact text");
	back = json_tokener_parse(text);
	ok(back != NULL, "JSON: the result parses");
	is_dbl(json_number(back, "average"), 148913.37293816853, 0,
	       "JSON: average reads back equal");
	is_dbl(json_number(back, "slope"), -1234567.1, 0, "JSON: slope reads back equal");
	is_dbl(json_number(back, "intercept"), 2.0 / 3.0, 0, "JSON: intercept reads back equal");
	is_dbl(json_number(back, "data_excursion"), 0.1 + 0.2, 0,
	       "JSON: data_excursion reads back equal (0.30000000000000004)");
	is_dbl(json_number(back, "slope_excursion"), 1e-300, 0,
	       "JSON: slope_excursion reads back equal");
	is_dbl(json_number(back, "data_limit"), 29782.674587633706, 0,
	       "JSON: data_limit reads back equal");
	ok(json_object_object_get_ex(back, "slope_limit", NULL) &&
		   !json_object_object_get(back, "slope_limit"),
	   "JSON: a NaN is null, not an invalid token");
	win = json_object_object_get(back, "window_values");
	for (size_t i = 0; i < 5; i++)
		same = same && json_object_get_double(json_object_array_get_idx(win, i)) == y[i];
	ok(win && json_object_array_length(win) == 5 && same,
	   "JSON: every window value reads back equal");
	json_object_put(back);
	json_object_put(o);

	verdict_result_csv(cells, buf, &r, NULL, sp, "iops");
	is_str(cells[8], "148913.37293816853", "CSV: the average as its shortest exact text");
	is_dbl(strtod(cells[9], NULL), -1234567.1, 0, "CSV: slope reads back equal");
	is_dbl(strtod(cells[10], NULL), 2.0 / 3.0, 0, "CSV: intercept reads back equal");
	is_dbl(strtod(cells[12], NULL), 1e-300, 0, "CSV: slope_excursion reads back equal");
	is_str(cells[14], "", "CSV: a NaN is an empty cell");
	r.average = 101000;
	r.slope = 1e300;
	verdict_result_csv(cells, buf, &r, NULL, sp, "iops");
	is_str(cells[8], "101000", "CSV: a whole number as its digits, not 1.01e+05");
	is_str(cells[9], "1e+300", "CSV: beyond 2^53 the shortest text");
}

int main(void)
{
	struct verdict_params vp, cli;
	struct steady_params sp;
	struct steady_result r = {0};
	struct plan p;
	int metrics[SAMPLE_METRIC_N];
	size_t nm;
	char err[512], buf[VERDICT_CSV_NCOLS][VERDICT_CSV_CELL_BYTES];
	const char *cells[VERDICT_CSV_NCOLS];
	json_object *o;

	is_int(roundtrip(PLAN_HEAD
			 "steady = fio-dev\nwindow = 1000\ndata_limit = 7\n"
			 "limits_absolute = yes\nmax_rounds = 1000000\nmetrics = lat,iops\n",
			 &p, &vp),
	       0, "a plan's parameters are written and read back");
	is_int(vp.criterion, STEADY_FIO_DEV, "criterion");
	is_int(vp.p.window, 1000, "window: the largest a plan takes is read back");
	is_dbl(vp.p.data_limit, 7, 0, "data_limit");
	ok(vp.p.limits_absolute, "limits_absolute");
	is_int(vp.p.max_rounds, 1000000, "max_rounds: the largest a plan takes is read back");
	ok(vp.nmetrics == 2 && vp.metrics[0] == SAMPLE_METRIC_LAT &&
		   vp.metrics[1] == SAMPLE_METRIC_IOPS,
	   "metrics, in order");
	ok(vp.set == (VERDICT_SET_WINDOW | VERDICT_SET_DATA | VERDICT_SET_SLOPE | VERDICT_SET_ABS |
		      VERDICT_SET_MAX),
	   "every field is set");
	plan_free(&p);

	is_int(roundtrip(PLAN_HEAD "steady = none\nmax_rounds = 30\n", &p, &vp), 0,
	       "steady = none round-trips");
	ok(vp.none && vp.criterion == -1 && !vp.set, "none: nothing else is read");
	plan_free(&p);

	/* one set of bounds: what a plan refuses, a reader refuses too */
	plan_parse(PLAN_HEAD "window = 1001\n", "t.plan", &p, err, sizeof(err));
	is_str(err, "t.plan:6: [precondition] window: expected a number 2..1000, not '1001'",
	       "a plan refuses window 1001");
	plan_free(&p);
	ok(parse_fails("{\"criterion\":\"snia\",\"window\":1001}",
		       "window: expected a number 2..1000"),
	   "so does the params reader");
	ok(parse_fails("{\"max_rounds\":1000001}", "max_rounds: expected a number 0..1000000"),
	   "max_rounds above the plan's bound");
	ok(parse_fails("{\"data_limit\":-1}", "data_limit: expected a non-negative number"),
	   "a negative limit");
	ok(parse_fails("{\"criterion\":\"fast\"}", "criterion: expected snia"),
	   "an unknown criterion");
	ok(parse_fails("{\"metrics\":[\"iops\",\"iops\"]}", "metrics"), "a metric twice");
	ok(parse_fails("[1]", "expected a JSON object"), "not an object");
	is_int(verdict_params_parse(NULL, &vp, err, sizeof(err)), 0, "no params: nothing given");

	/* resolution: the command line's criterion drops the phase's fields */
	verdict_params_parse("{\"criterion\":\"snia\",\"window\":7,\"metrics\":[\"bw\"]}", &vp, err,
			     sizeof(err));
	verdict_params_init(&cli);
	is_int(verdict_resolve(&vp, &cli, &sp, metrics, &nm, err, sizeof(err)), 0, "resolve");
	ok(sp.criterion == STEADY_SNIA && sp.window == 7 && nm == 1 &&
		   metrics[0] == SAMPLE_METRIC_BW,
	   "the phase's criterion, window and metrics");
	cli.criterion = STEADY_FIO_SLOPE;
	verdict_resolve(&vp, &cli, &sp, metrics, &nm, err, sizeof(err));
	ok(sp.criterion == STEADY_FIO_SLOPE && sp.window == 5,
	   "another criterion on the command line: its defaults, not the phase's window");
	cli.criterion = -1;
	cli.p.max_rounds = 3;
	cli.set = VERDICT_SET_MAX;
	is_int(verdict_resolve(&vp, &cli, &sp, metrics, &nm, err, sizeof(err)), -EINVAL,
	       "max_rounds below the window");
	ok(strstr(err, "--max-rounds 3 is below the window of 7 rounds") != NULL,
	   "names the command line's option: %s", err);

	/* a result: rounds that are not there are null */
	steady_params_default(&sp, STEADY_SNIA);
	r.rounds = 3;
	o = verdict_result_json(&r, NULL, &sp, "iops", "IOPS", NULL, 0);
	is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	       "{\"metric\":\"iops\",\"unit\":\"IOPS\",\"criterion\":\"snia\",\"window\":5,"
	       "\"steady\":false,\"steady_round\":null,\"rounds\":3,\"capped\":false,"
	       "\"window_start\":null,\"window_end\":null,\"average\":0,\"slope\":0,"
	       "\"intercept\":0,\"data_excursion\":0,\"slope_excursion\":0,\"data_limit\":0,"
	       "\"slope_limit\":0,\"data_ok\":false,\"slope_ok\":false,\"lost\":false,"
	       "\"lost_round\":null}",
	       "a result with no window yet");
	json_object_put(o);
	r.steady = true;
	r.steady_round = 9;
	r.window_start = 5;
	r.window_end = 9;
	r.average = 1234567.0;
	verdict_result_csv(cells, buf, &r, NULL, &sp, "a,b");
	is_str(cells[0], "a,b", "CSV: the metric's name as is (the writer quotes it)");
	is_str(cells[5], "9", "CSV: steady_round");
	is_str(cells[6], "5", "CSV: window_start");
	is_str(cells[8], "1234567", "CSV: 1234567 exactly, not %%.6g's 1.23457e+06");
	is_str(cells[16], "", "CSV: no lost_round");
	is_str(verdict_csv_columns[16], "lost_round", "CSV: the last column");

	exact_numbers(&sp);

	/* the parameters a phase stores: exact, and the shortest text */
	verdict_params_init(&vp);
	vp.criterion = STEADY_FIO_DEV;
	vp.p.data_limit = 0.1;
	vp.p.slope_limit = 148913.37293816853;
	vp.set = VERDICT_SET_DATA | VERDICT_SET_SLOPE;
	o = json_object_new_object();
	verdict_params_json(o, &vp);
	is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	       "{\"criterion\":\"fio-dev\",\"data_limit\":0.1,\"slope_limit\":148913.37293816853}",
	       "params: 0.1 is 0.1 (not 0.10000000000000001), every digit kept");
	verdict_params_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), &cli, err,
			     sizeof(err));
	ok(cli.p.data_limit == 0.1 && cli.p.slope_limit == 148913.37293816853,
	   "params: read back equal");
	json_object_put(o);
	return done_testing();
}
