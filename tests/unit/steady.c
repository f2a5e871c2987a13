// SPDX-License-Identifier: MIT
/*
 * steady: SNIA and fio criteria on made-up series whose verdicts, fitted
 * lines and excursions are computed by hand in the comments.
 *
 * Hand arithmetic for a window of 5 uses centred x = -2, -1, 0, 1, 2:
 *   a = sum(x * (y - avg)) / sum(x^2) with sum(x^2) = 10,
 *   intercept = avg - a * (mean round of the window).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "steady-int.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct steady_params snia(void)
{
	struct steady_params p;

	steady_params_default(&p, STEADY_SNIA);
	return p;
}

static struct steady_params fio(enum steady_criterion c, double limit, bool absolute)
{
	struct steady_params p;

	steady_params_default(&p, c);
	if (c == STEADY_FIO_SLOPE)
		p.slope_limit = limit;
	else
		p.data_limit = limit;
	p.limits_absolute = absolute;
	return p;
}

static void test_defaults(void)
{
	struct steady_params p;

	steady_params_default(&p, STEADY_SNIA);
	ok(p.criterion == STEADY_SNIA && p.window == 5 && p.data_limit == 20.0 &&
		   p.slope_limit == 10.0 && !p.limits_absolute && p.max_rounds == 25,
	   "SNIA defaults: W=5, R=20%%, S=10%%, 25 rounds");
	steady_params_default(&p, STEADY_FIO_SLOPE);
	ok(p.criterion == STEADY_FIO_SLOPE && p.window == 5 && p.slope_limit == 1.0 &&
		   p.data_limit == 0.0 && !p.limits_absolute && p.max_rounds == 25,
	   "fio-slope defaults: W=5, 1%% (fio examples/steadystate.fio)");
	steady_params_default(&p, STEADY_FIO_DEV);
	ok(p.criterion == STEADY_FIO_DEV && p.window == 5 && p.data_limit == 10.0 &&
		   p.slope_limit == 0.0 && !p.limits_absolute && p.max_rounds == 25,
	   "fio-dev defaults: W=5, 10%% (fio examples/steadystate.fio)");

	is_int(steady_criterion_parse("snia"), STEADY_SNIA, "parse snia");
	is_int(steady_criterion_parse("fio-slope"), STEADY_FIO_SLOPE, "parse fio-slope");
	is_int(steady_criterion_parse("fio-dev"), STEADY_FIO_DEV, "parse fio-dev");
	is_int(steady_criterion_parse("SNIA"), -EINVAL, "names are case-sensitive");
	is_int(steady_criterion_parse("fio"), -EINVAL, "unknown name");
	is_int(steady_criterion_parse(""), -EINVAL, "empty name");
	is_int(steady_criterion_parse(NULL), -EINVAL, "NULL name");
	is_str(steady_criterion_name(STEADY_SNIA), "snia", "name of SNIA");
	is_str(steady_criterion_name(STEADY_FIO_SLOPE), "fio-slope", "name of fio-slope");
	is_str(steady_criterion_name(STEADY_FIO_DEV), "fio-dev", "name of fio-dev");
	is_str(steady_criterion_name((enum steady_criterion)99), "unknown", "name out of range");
}

static void test_snia_basic(void)
{
	struct steady_params p = snia();
	struct steady_result r;

	/* constant 100: avg 100, range 0, slope 0; limits 20 and 10 */
	{
		const double y[] = {100, 100, 100, 100, 100};

		is_int(steady_judge(y, N(y), &p, &r), 0, "constant: returns 0");
		ok(r.steady && r.steady_round == 5, "constant: steady at round W = 5");
		ok(r.window_start == 1 && r.window_end == 5, "constant: window 1..5");
		is_dbl(r.average, 100, 0, "constant: average 100");
		is_dbl(r.slope, 0, 0, "constant: slope 0");
		is_dbl(r.intercept, 100, 0, "constant: intercept 100");
		is_dbl(r.data_excursion, 0, 0, "constant: data excursion 0");
		is_dbl(r.slope_excursion, 0, 0, "constant: slope excursion 0");
		is_dbl(r.data_limit, 20, 0, "constant: data limit 20%% of 100 = 20");
		is_dbl(r.slope_limit, 10, 0, "constant: slope limit 10%% of 100 = 10");
		ok(r.data_ok && r.slope_ok && !r.lost && !r.lost_round && !r.capped &&
			   r.rounds == 5,
		   "constant: both ok, not lost, not capped, 5 rounds judged");
	}

	/*
	 * 95 97.5 100 102.5 105: avg 100, range 10 <= 20;
	 * sum x(y-avg) = (-2)(-5) + (-1)(-2.5) + 0 + (1)(2.5) + (2)(5) = 25, a = 2.5;
	 * slope excursion 2.5 * 4 = 10 = the limit: passes (inclusive);
	 * intercept 100 - 2.5 * 3 = 92.5 (2.5 * 1 + 92.5 = 95).
	 */
	{
		const double y[] = {95, 97.5, 100, 102.5, 105};

		steady_judge(y, N(y), &p, &r);
		ok(r.steady && r.steady_round == 5,
		   "slope excursion equal to the limit passes (<=)");
		is_dbl(r.slope, 2.5, 1e-12, "rising: slope 2.5 per round");
		is_dbl(r.intercept, 92.5, 1e-12, "rising: intercept 92.5 (rounds from 1)");
		is_dbl(r.slope_excursion, 10, 1e-12, "rising: slope excursion 10");
		is_dbl(r.data_excursion, 10, 0, "rising: data excursion 10");
	}

	/*
	 * 94 97 100 103 106: avg 100, range 12 <= 20 (data passes);
	 * sum x(y-avg) = 12 + 3 + 0 + 3 + 12 = 30, a = 3, excursion 12 > 10.
	 * intercept 100 - 3 * 3 = 91.
	 */
	{
		const double y[] = {94, 97, 100, 103, 106};

		steady_judge(y, N(y), &p, &r);
		ok(!r.steady && !r.steady_round, "data passes, slope fails: not steady");
		ok(r.data_ok && !r.slope_ok, "data_ok, !slope_ok");
		is_dbl(r.slope, 3, 1e-12, "slope 3");
		is_dbl(r.intercept, 91, 1e-12, "intercept 91");
		is_dbl(r.slope_excursion, 12, 1e-12, "slope excursion 12");
		ok(r.window_start == 1 && r.window_end == 5,
		   "evidence is the last window judged (1..5)");
	}

	/*
	 * 85 100 130 100 85: avg 500/5 = 100, range 45 > 20 (data fails);
	 * sum x(y-avg) = (-2)(-15) + 0 + 0 + 0 + (2)(-15) = 0: slope 0 passes.
	 */
	{
		const double y[] = {85, 100, 130, 100, 85};

		steady_judge(y, N(y), &p, &r);
		ok(!r.steady && !r.data_ok && r.slope_ok, "slope passes, data fails: not steady");
		is_dbl(r.data_excursion, 45, 0, "data excursion 45");
		is_dbl(r.slope, 0, 1e-12, "slope 0");
	}

	/* 90 110 100 110 90: avg 100, range 20 = limit: passes (inclusive), slope 0 */
	{
		const double y[] = {90, 110, 100, 110, 90};

		steady_judge(y, N(y), &p, &r);
		ok(r.steady && r.data_ok, "data excursion equal to the limit passes (<=)");
		is_dbl(r.data_excursion, 20, 0, "data excursion 20");
	}

	/*
	 * 90 110.5 100 110 89.5: sum 500, avg 100, range 21 > 20;
	 * sum x(y-avg) = 20 - 10.5 + 0 + 10 - 21 = -1.5, a = -0.15, excursion 0.6.
	 */
	{
		const double y[] = {90, 110.5, 100, 110, 89.5};

		steady_judge(y, N(y), &p, &r);
		ok(!r.steady && !r.data_ok && r.slope_ok, "data excursion 21 > 20 fails");
		is_dbl(r.slope, -0.15, 1e-12, "slope -0.15");
		is_dbl(r.slope_excursion, 0.6, 1e-12, "slope excursion |-0.15| * 4 = 0.6");
	}

	/*
	 * 0.9 1.1 1.0 1.1 0.9: on paper range 0.2 = 20 % of 1.0; in doubles
	 * 1.1 - 0.9 = 0.20000000000000007, so only the documented slack makes
	 * it pass as it does by hand.
	 */
	{
		const double y[] = {0.9, 1.1, 1.0, 1.1, 0.9};

		steady_judge(y, N(y), &p, &r);
		ok(r.steady, "decimal series exactly at the limit on paper passes");
	}

	/* window 2: 100 110: avg 105, range 10 <= 21, a = 10, excursion 10 <= 10.5 */
	{
		const double y[] = {100, 110};
		struct steady_params p2 = p;

		p2.window = 2;
		steady_judge(y, N(y), &p2, &r);
		ok(r.steady && r.steady_round == 2, "window 2: steady at round 2");
		is_dbl(r.slope, 10, 1e-12, "window 2: slope 10");
		is_dbl(r.intercept, 90, 1e-12, "window 2: intercept 105 - 10 * 1.5 = 90");
	}

	/*
	 * even window 4, limits 200 %: 10 20 30 40: avg 25, x - 2.5 =
	 * -1.5 -0.5 0.5 1.5, sum x(y-avg) = 22.5 + 2.5 + 2.5 + 22.5 = 50,
	 * sum x^2 = 5, a = 10, intercept 25 - 10 * 2.5 = 0; range 30 <= 50,
	 * slope excursion 10 * 3 = 30 <= 50.
	 */
	{
		const double y[] = {10, 20, 30, 40};
		struct steady_params p4 = p;

		p4.window = 4;
		p4.data_limit = 200;
		p4.slope_limit = 200;
		steady_judge(y, N(y), &p4, &r);
		ok(r.steady && r.steady_round == 4, "window 4: steady at round 4");
		is_dbl(r.slope, 10, 1e-12, "window 4: slope 10");
		is_dbl(r.intercept, 0, 1e-12, "window 4: intercept 0");
		is_dbl(r.slope_excursion, 30, 1e-12, "window 4: slope excursion 30");
		is_dbl(r.data_limit, 50, 1e-12, "window 4: data limit 200%% of 25 = 50");
	}
}

/*
 * 200 150 120 105 100 100 100 100, windows of 5:
 *   ..5: avg 135, range 100 > 27                       fail
 *   ..6: 150 120 105 100 100 avg 115, range 50 > 23     fail
 *   ..7: 120 105 100 100 100 avg 105, range 20 <= 21;
 *        sum x(y-avg) = -30 + 0 + 0 - 5 - 10 = -45, a = -4.5,
 *        excursion 18 > 10.5                             fail
 *   ..8: 105 100 100 100 100 avg 101, range 5 <= 20.2;
 *        sum x(y-avg) = -8 + 1 + 0 - 1 - 2 = -10, a = -1,
 *        excursion 4 <= 10.1                              pass
 * The window 4..8 has mean round 6: intercept 101 + 1 * 6 = 107.
 */
static const double settling[] = {200, 150, 120, 105, 100, 100, 100, 100};

static void test_snia_later(void)
{
	struct steady_params p = snia();
	struct steady_result r;
	double y[10];

	steady_judge(settling, N(settling), &p, &r);
	ok(r.steady && r.steady_round == 8, "settling: steady at round 8");
	ok(r.window_start == 4 && r.window_end == 8, "settling: window 4..8");
	is_dbl(r.average, 101, 1e-12, "settling: average 101");
	is_dbl(r.slope, -1, 1e-12, "settling: slope -1");
	is_dbl(r.intercept, 107, 1e-12, "settling: intercept 107 with 1-based rounds");
	is_dbl(r.data_excursion, 5, 0, "settling: data excursion 5");
	is_dbl(r.slope_excursion, 4, 1e-12, "settling: slope excursion 4");
	is_dbl(r.data_limit, 20.2, 1e-12, "settling: data limit 20.2");
	is_dbl(r.slope_limit, 10.1, 1e-12, "settling: slope limit 10.1");
	ok(!r.lost && r.rounds == 8, "settling: not lost, 8 rounds");

	/* steady lost: round 9 = 100 keeps 5..9 steady; round 10 = 60:
	 * 100 100 100 100 60, avg 92, range 40 > 18.4 -> lost at 10 */
	memcpy(y, settling, sizeof(settling));
	y[8] = 100;
	y[9] = 60;
	steady_judge(y, 10, &p, &r);
	ok(r.steady && r.steady_round == 8, "lost: still steady at round 8");
	ok(r.lost && r.lost_round == 10, "lost: first failing later window ends at round 10");
	ok(r.window_start == 4 && r.window_end == 8 && r.average == 101,
	   "lost: evidence stays the first passing window");
	steady_judge(y, 9, &p, &r);
	ok(r.steady && !r.lost && !r.lost_round, "not lost while later windows pass");

	/*
	 * max_rounds 7: the last judged window is 3..7 (see above): avg 105,
	 * a = -4.5, mean round 5 -> intercept 105 + 4.5 * 5 = 127.5.
	 */
	p.max_rounds = 7;
	steady_judge(settling, N(settling), &p, &r);
	ok(!r.steady && r.capped && r.rounds == 7, "cap 7: not steady, capped, 7 rounds judged");
	ok(r.window_start == 3 && r.window_end == 7, "cap 7: evidence window 3..7");
	is_dbl(r.average, 105, 1e-12, "cap 7: average 105");
	is_dbl(r.slope, -4.5, 1e-12, "cap 7: slope -4.5");
	is_dbl(r.intercept, 127.5, 1e-12, "cap 7: intercept 127.5");
	is_dbl(r.data_excursion, 20, 0, "cap 7: data excursion 20");
	is_dbl(r.slope_excursion, 18, 1e-12, "cap 7: slope excursion 18");
	ok(r.data_ok && !r.slope_ok, "cap 7: data ok, slope not");
	steady_judge(settling, 7, &p, &r);
	ok(!r.steady && r.capped, "n == max_rounds without a pass: capped");

	/* rounds beyond the cap are not judged, not even validated */
	memcpy(y, settling, sizeof(settling));
	y[7] = NAN;
	is_int(steady_judge(y, 8, &p, &r), 0, "NaN beyond max_rounds is not judged");

	p.max_rounds = 25;
	steady_judge(settling, 6, &p, &r);
	ok(!r.steady && !r.capped && r.rounds == 6, "6 rounds under a cap of 25: not capped");
	p.max_rounds = 0;
	steady_judge(settling, N(settling), &p, &r);
	ok(r.steady && r.steady_round == 8 && r.rounds == 8, "max_rounds 0: no cap");
}

static void test_edges(void)
{
	struct steady_params p = snia();
	struct steady_result r;

	{
		const double y[] = {100, 100, 100};

		memset(&r, 0xff, sizeof(r));
		is_int(steady_judge(y, N(y), &p, &r), 0, "3 rounds < W: no error");
		ok(!r.steady && !r.steady_round && r.rounds == 3 && !r.capped && !r.lost,
		   "3 rounds: not steady, 3 rounds judged");
		ok(!r.window_start && !r.window_end && r.average == 0 && r.slope == 0 &&
			   r.intercept == 0 && r.data_excursion == 0 && r.data_limit == 0 &&
			   !r.data_ok && !r.slope_ok,
		   "3 rounds: evidence all zero");
	}
	is_int(steady_judge(NULL, 0, &p, &r), 0, "empty series: no error");
	ok(!r.steady && r.rounds == 0, "empty series: not steady");

	{
		const double z[] = {0, 0, 0, 0, 0};
		const double zr[] = {0, 0, 0, 0, 0, 100, 100, 100, 100, 100};
		struct steady_params fa = fio(STEADY_FIO_DEV, 5, true);

		steady_judge(z, N(z), &p, &r);
		ok(!r.steady && !r.data_ok && !r.slope_ok && r.average == 0,
		   "all zeros: average 0 is never steady (SNIA)");
		steady_judge(z, N(z), &fa, &r);
		ok(!r.steady, "all zeros: not steady with fio absolute limits either");
		/* windows ending 6..9 mix 0 and 100 (range 100); 6..10 is 100s */
		steady_judge(zr, N(zr), &p, &r);
		ok(r.steady && r.steady_round == 10, "zeros then 100s: steady at round 10");
	}

	{
		double y[] = {100, 100, 100, 100, 100};
		const double bad[] = {-1, NAN, INFINITY, -INFINITY};
		const char *what[] = {"negative", "NaN", "+inf", "-inf"};

		for (size_t i = 0; i < N(bad); i++) {
			y[3] = bad[i];
			is_int(steady_judge(y, N(y), &p, &r), -EDOM, "%s value: -EDOM", what[i]);
		}
		y[3] = 100;
		y[1] = -1;
		is_int(steady_judge(y, 3, &p, &r), -EDOM,
		       "negative value with fewer rounds than the window: -EDOM");
	}

	/* near DBL_MAX: a naive sum of five 1.7e308 overflows to inf */
	{
		const double big[] = {1.7e308, 1.7e308, 1.7e308, 1.7e308, 1.7e308};
		/* 1 1.2 1.4 1.6 1.79 (e308): avg 6.99 / 5 = 1.398; sum x(y-avg) =
		 * -2(-0.398) - (-0.198) + 0 + 0.202 + 2(0.392) = 1.98, a = 0.198 */
		const double ramp[] = {1.0e308, 1.2e308, 1.4e308, 1.6e308, 1.79e308};
		/* the rising series (slope excursion = limit) scaled by 1e298 */
		const double r300[] = {95e298, 97.5e298, 100e298, 102.5e298, 105e298};

		steady_judge(big, N(big), &p, &r);
		ok(r.steady && r.average == 1.7e308 && r.slope == 0 && r.intercept == 1.7e308,
		   "five 1.7e308: steady, average 1.7e308 exactly, slope 0");
		steady_judge(ramp, N(ramp), &p, &r);
		is_dbl(r.average, 1.398e308, 1e294, "ramp near DBL_MAX: average 1.398e308");
		is_dbl(r.slope, 1.98e307, 1e293, "ramp near DBL_MAX: slope 1.98e307");
		ok(isfinite(r.intercept) && isfinite(r.data_limit) && isfinite(r.slope_limit),
		   "ramp near DBL_MAX: intercept and limits finite");
		steady_judge(r300, N(r300), &p, &r);
		ok(r.steady, "rising series times 1e298: slope excursion at the limit passes");
		is_dbl(r.slope, 2.5e298, 2.5e286, "times 1e298: slope 2.5e298");
		is_dbl(r.intercept, 92.5e298, 92.5e286, "times 1e298: intercept 9.25e299");
	}
}

static void test_params(void)
{
	const double y[] = {100, 100, 100, 100, 100};
	struct steady_params p;
	struct steady_result r;

	p = snia();
	p.window = 1;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "window 1: -EINVAL");
	p.window = 0;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "window 0: -EINVAL");
	p = snia();
	p.data_limit = -1;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "negative data limit: -EINVAL");
	p = snia();
	p.slope_limit = -0.5;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "negative slope limit: -EINVAL");
	p = snia();
	p.slope_limit = NAN;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "NaN limit: -EINVAL");
	p = snia();
	p.data_limit = INFINITY;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "infinite limit: -EINVAL");
	p = fio(STEADY_FIO_DEV, 10, false);
	p.slope_limit = -1;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "negative unused limit: -EINVAL");
	p = snia();
	p.criterion = (enum steady_criterion)7;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "unknown criterion: -EINVAL");
	p = snia();
	p.limits_absolute = true;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "SNIA with absolute limits: -EINVAL");
	p = snia();
	p.max_rounds = 4;
	is_int(steady_judge(y, N(y), &p, &r), -EINVAL, "max_rounds 4 < window 5: -EINVAL");
	p.max_rounds = 5;
	is_int(steady_judge(y, N(y), &p, &r), 0, "max_rounds == window: fine");
	ok(r.steady, "max_rounds == window: steady at 5");
	p = snia();
	p.data_limit = 0;
	p.slope_limit = 0;
	steady_judge(y, N(y), &p, &r);
	ok(r.steady, "limits 0 %%: a constant series still passes (0 <= 0)");
	is_int(steady_judge(y, N(y), NULL, &r), -EINVAL, "NULL params: -EINVAL");
	is_int(steady_judge(y, N(y), &p, NULL), -EINVAL, "NULL result: -EINVAL");
	is_int(steady_judge(NULL, 5, &p, &r), -EINVAL, "NULL series with n > 0: -EINVAL");
}

static void test_fio_slope(void)
{
	/* 97 98.5 100 101.5 103: avg 100, sum x(y-avg) = 6 + 1.5 + 0 + 1.5 + 6
	 * = 15, a = 1.5 per round: 100 * 1.5 / 100 = 1.5 % */
	const double y[] = {97, 98.5, 100, 101.5, 103};
	const double down[] = {103, 101.5, 100, 98.5, 97};
	/* 198 199 200 201 202: avg 200, a = (4 + 1 + 0 + 1 + 4) / 10 = 1: 0.5 % */
	const double y200[] = {198, 199, 200, 201, 202};
	/* a = 3, 3 %: SNIA fails it (excursion 12 > 10), fio-slope 5 % passes */
	const double y3[] = {94, 97, 100, 103, 106};
	struct steady_params p;
	struct steady_result r;

	p = fio(STEADY_FIO_SLOPE, 2, false);
	steady_judge(y, N(y), &p, &r);
	ok(r.steady && r.steady_round == 5, "fio-slope 2%%: 1.5%% passes");
	is_dbl(r.slope_excursion, 1.5, 1e-12, "fio-slope: excursion is |a| = 1.5");
	is_dbl(r.slope_limit, 2, 1e-12, "fio-slope: limit 2%% of 100 = 2");
	ok(r.data_ok && r.data_limit == 0, "fio-slope: data test not judged");
	p = fio(STEADY_FIO_SLOPE, 1.5, false);
	steady_judge(y, N(y), &p, &r);
	ok(!r.steady && !r.slope_ok, "fio-slope 1.5%%: 1.5%% fails (strict <, as fio)");
	steady_params_default(&p, STEADY_FIO_SLOPE);
	steady_judge(y, N(y), &p, &r);
	ok(!r.steady, "fio-slope default 1%%: 1.5%% fails");
	p = fio(STEADY_FIO_SLOPE, 2, false);
	steady_judge(down, N(down), &p, &r);
	ok(r.steady && r.slope == -1.5, "fio-slope: falling series judged on |a|");

	p = fio(STEADY_FIO_SLOPE, 1.5, true);
	steady_judge(y, N(y), &p, &r);
	ok(!r.steady, "fio-slope absolute 1.5: |a| = 1.5 fails (strict)");
	p = fio(STEADY_FIO_SLOPE, 1.6, true);
	steady_judge(y, N(y), &p, &r);
	ok(r.steady, "fio-slope absolute 1.6: |a| = 1.5 passes");
	is_dbl(r.slope_limit, 1.6, 0, "fio-slope absolute: limit in units is 1.6");

	p = fio(STEADY_FIO_SLOPE, 0.6, false);
	steady_judge(y200, N(y200), &p, &r);
	ok(r.steady, "avg 200, a = 1: 0.5%% < 0.6%% passes");
	p = fio(STEADY_FIO_SLOPE, 0.6, true);
	steady_judge(y200, N(y200), &p, &r);
	ok(!r.steady, "avg 200, a = 1: 1 < 0.6 absolute fails");

	p = fio(STEADY_FIO_SLOPE, 5, false);
	steady_judge(y3, N(y3), &p, &r);
	ok(r.steady, "a = 3 %%: fio-slope 5%% passes where SNIA fails");
}

static void test_fio_dev(void)
{
	/* 90 105 100 95 110: avg 100, max |y - 100| = 10 (range would be 20) */
	const double y[] = {90, 105, 100, 95, 110};
	/* 198 202 200 200 200: avg 200, max dev 2 = 1 % */
	const double y200[] = {198, 202, 200, 200, 200};
	struct steady_params p;
	struct steady_result r;

	p = fio(STEADY_FIO_DEV, 10, false);
	steady_judge(y, N(y), &p, &r);
	ok(!r.steady && !r.data_ok, "fio-dev 10%%: deviation 10%% fails (strict <)");
	is_dbl(r.data_excursion, 10, 0, "fio-dev: excursion is max |y - mean| = 10");
	is_dbl(r.data_limit, 10, 1e-12, "fio-dev: limit 10%% of 100 = 10");
	ok(r.slope_ok && r.slope_limit == 0, "fio-dev: slope test not judged");
	p = fio(STEADY_FIO_DEV, 10.5, false);
	steady_judge(y, N(y), &p, &r);
	ok(r.steady && r.steady_round == 5, "fio-dev 10.5%%: passes");
	p = fio(STEADY_FIO_DEV, 10, true);
	steady_judge(y, N(y), &p, &r);
	ok(!r.steady, "fio-dev absolute 10: fails");
	p = fio(STEADY_FIO_DEV, 11, true);
	steady_judge(y, N(y), &p, &r);
	ok(r.steady && r.data_limit == 11, "fio-dev absolute 11: passes, limit 11");

	p = fio(STEADY_FIO_DEV, 1.5, false);
	steady_judge(y200, N(y200), &p, &r);
	ok(r.steady, "avg 200, dev 2: 1%% < 1.5%% passes");
	p = fio(STEADY_FIO_DEV, 1.5, true);
	steady_judge(y200, N(y200), &p, &r);
	ok(!r.steady, "avg 200, dev 2: 2 < 1.5 absolute fails");
}

static void test_all(void)
{
	/*
	 * A passes windows ..5 to ..8; ..9 = 100 100 100 100 50 (avg 90,
	 * range 50 > 18) fails.  B: ..5 500..200 fails; ..6 avg 260 range 200
	 * fails; ..7 avg 220 range 100 > 44 fails; ..8 and ..9 are 200s.
	 * Together: steady at 8, lost at 9.
	 */
	const double a[] = {100, 100, 100, 100, 100, 100, 100, 100, 50};
	const double b[] = {500, 400, 300, 200, 200, 200, 200, 200, 200};
	const double *ys[] = {a, b};
	const double c[] = {94, 97, 100, 103, 106}; /* a = 3: slope fails */
	const double *ys2[] = {a, c};
	double bad[9];
	const double *ys3[] = {a, bad};
	struct steady_params p = snia();
	struct steady_result r[2], all;

	is_int(steady_judge_all(ys, 2, 9, &p, r, &all), 0, "two metrics: 0");
	ok(all.steady && all.steady_round == 8, "combined: steady at 8 (B settles last)");
	ok(all.lost && all.lost_round == 9, "combined: lost at 9 (A drops)");
	ok(all.window_start == 4 && all.window_end == 8 && all.data_ok && all.slope_ok,
	   "combined: window 4..8, both tests ok");
	ok(r[0].steady_round == 8 && r[1].steady_round == 8 && r[0].lost_round == 9 &&
		   r[1].lost_round == 9,
	   "per-metric results carry the combined verdict");
	is_dbl(r[0].average, 100, 0, "A at window 4..8: average 100");
	is_dbl(r[1].average, 200, 0, "B at window 4..8: average 200");
	ok(r[0].window_start == 4 && r[1].window_end == 8, "per-metric evidence window 4..8");

	/* the same with the order swapped: the loss comes from the second metric */
	ys[0] = b;
	ys[1] = a;
	steady_judge_all(ys, 2, 9, &p, r, &all);
	ok(all.steady_round == 8 && all.lost_round == 9, "swapped order: steady 8, lost 9");

	steady_judge(a, 9, &p, &r[0]);
	ok(r[0].steady_round == 5 && r[0].lost_round == 9, "A alone: steady at 5, lost at 9");

	steady_judge_all(ys2, 2, 5, &p, r, &all);
	ok(!all.steady && all.data_ok && !all.slope_ok,
	   "never together: not steady; data ok, slope not");
	is_dbl(r[1].slope, 3, 1e-12, "never together: B's evidence slope 3");

	is_int(steady_judge_all(ys, 0, 9, &p, r, &all), -EINVAL, "0 metrics: -EINVAL");
	memcpy(bad, b, sizeof(bad));
	bad[2] = -5;
	is_int(steady_judge_all(ys3, 2, 9, &p, r, &all), -EDOM, "bad value in metric 2: -EDOM");
}

int main(void)
{
	test_defaults();
	test_snia_basic();
	test_snia_later();
	test_edges();
	test_params();
	test_fio_slope();
	test_fio_dev();
	test_all();
	return done_testing();
}
