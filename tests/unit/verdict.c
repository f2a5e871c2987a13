// SPDX-License-Identifier: MIT
/*
 * verdict: the steady-state parameters a plan writes are the ones a reader
 * gets back, within the one set of bounds; resolution order; a result as
 * JSON (nulls where a round is not there) and as CSV cells.
 */
#include <errno.h>
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
	o = verdict_result_json(&r, NULL, &sp, "iops", "IOPS", NULL, VERDICT_JSON_SHORT);
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
	is_str(cells[8], "1.23457e+06", "CSV: numbers as %%.6g");
	is_str(cells[16], "", "CSV: no lost_round");
	is_str(verdict_csv_columns[16], "lost_round", "CSV: the last column");
	return done_testing();
}
