// SPDX-License-Identifier: MIT
/* parse: whole-string parsers and the two formatters, accepted and refused. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "tap.h"

static void test_u64(void)
{
	static const char *const bad[] = {"",	 "+1",	 "-1",	" 1",	 "1 ", "abc",
					  "1.0", "0x10", "1e3", "1_000", "12a"};
	uint64_t v;

	is_int(parse_u64("0", &v), 0, "u64 '0'");
	is_u64(v, 0, "u64 '0' = 0");
	is_int(parse_u64("00012", &v), 0, "u64 leading zeros");
	is_u64(v, 12, "u64 '00012' = 12");
	is_int(parse_u64("18446744073709551615", &v), 0, "u64 max");
	is_u64(v, UINT64_MAX, "u64 max = UINT64_MAX");
	v = 7;
	is_int(parse_u64("18446744073709551616", &v), -ERANGE, "u64 max + 1: -ERANGE");
	is_u64(v, 7, "u64: *ret untouched on failure");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse_u64(bad[i], &v), -EINVAL, "u64 '%s': -EINVAL", bad[i]);
	is_int(parse_u64(NULL, &v), -EINVAL, "u64 NULL: -EINVAL");

	is_int(parse_uint_range("5", 1, 10, &v), 0, "range 5 in [1, 10]");
	is_u64(v, 5, "range: 5");
	is_int(parse_uint_range("1", 1, 10, &v), 0, "range: lower bound included");
	is_int(parse_uint_range("10", 1, 10, &v), 0, "range: upper bound included");
	v = 3;
	is_int(parse_uint_range("0", 1, 10, &v), -ERANGE, "range: 0 below 1: -ERANGE");
	is_int(parse_uint_range("11", 1, 10, &v), -ERANGE, "range: 11 above 10: -ERANGE");
	is_u64(v, 3, "range: *ret untouched on failure");
	is_int(parse_uint_range("x", 1, 10, &v), -EINVAL, "range: 'x' -EINVAL");
}

static void test_double(void)
{
	static const struct {
		const char *s;
		double v;
	} good[] = {
		{"1.5", 1.5},  {"-2.25", -2.25},   {"+3", 3},	     {".5", 0.5},   {"5.", 5},
		{"1e3", 1000}, {"2.5E-3", 0.0025}, {"1e308", 1e308}, {"-.5", -0.5}, {"0", 0},
	};
	static const char *const bad[] = {"",	   "-",	  "+",	 " 1",	 "1 ",	"1e",
					  "1.2.3", "1,5", "inf", "-inf", "nan", "0x10",
					  "-0x10", "e5",  "abc", "1e+"};
	double v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = NAN;
		is_int(parse_double(good[i].s, &v), 0, "double '%s'", good[i].s);
		is_dbl(v, good[i].v, 0, "double '%s' = %g", good[i].s, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse_double(bad[i], &v), -EINVAL, "double '%s': -EINVAL", bad[i]);
	v = 42;
	is_int(parse_double("1e309", &v), -ERANGE, "double 1e309: -ERANGE");
	is_dbl(v, 42, 0, "double: *ret untouched on failure");
	is_int(parse_double(NULL, &v), -EINVAL, "double NULL: -EINVAL");

	/* parse_double() strips one sign and recurses, so it strips them all:
	 * "--5" parses as 5, "+-5" and "-+5" as -5 */
	ok(parse_double("1e-310", &v) == 0 && v > 0 && v < 1e-300,
	   "double '1e-310' (subnormal) is accepted");
	ok(parse_double("1e999", &v) == -ERANGE, "double '1e999' overflows: -ERANGE");
	ok(parse_double("--5", &v) == -EINVAL, "double '--5': -EINVAL (one sign only)");
	ok(parse_double("+-5", &v) == -EINVAL, "double '+-5': -EINVAL (one sign only)");
	ok(parse_double("-+5", &v) == -EINVAL, "double '-+5': -EINVAL (one sign only)");
}

static void test_size(void)
{
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{"512", 512},
		{"0", 0},
		{"1b", 1},
		{"4k", 4096},
		{"4K", 4096},
		{"4KiB", 4096},
		{"4kb", 4096},
		{"1m", 1048576},
		{"1MiB", 1048576},
		{"2G", 2147483648ULL},
		{"1T", 1099511627776ULL},
		{"1.5k", 1536},
		{".5k", 512},
		{"16384t", 1ULL << 54},
	};
	/* 0.5: not whole; 1.1k = 1126.4: not whole */
	static const char *const bad[] = {"",	"k",	"4 k", "4k ",  " 4k", "1p",  "-1",
					  "+1", "0x10", "0.5", "1.1k", "4kk", "4ki", "abc"};
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 1;
		is_int(parse_size(good[i].s, &v), 0, "size '%s'", good[i].s);
		is_u64(v, good[i].v, "size '%s' = %llu", good[i].s, (unsigned long long)good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse_size(bad[i], &v), -EINVAL, "size '%s': -EINVAL", bad[i]);
	v = 9;
	is_int(parse_size("16777216t", &v), -ERANGE, "size 2^64 bytes: -ERANGE");
	is_u64(v, 9, "size: *ret untouched on failure");
	is_int(parse_size(NULL, &v), -EINVAL, "size NULL: -EINVAL");
}

static void test_duration(void)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} good[] = {
		{"1", 1000000000ULL},
		{"1s", 1000000000ULL},
		{"1sec", 1000000000ULL},
		{"1.5s", 1500000000ULL},
		{"0.1s", 100000000ULL},
		{"250ms", 250000000ULL},
		{"3us", 3000},
		{"7ns", 7},
		{"2m", 120000000000ULL},
		{"2min", 120000000000ULL},
		{"1h", 3600000000000ULL},
		{"1d", 86400000000000ULL},
		{"0", 0},
		{"1.5h", 5400000000000ULL},
		{"106000d", 9158400000000000000ULL},
		{"20msec", 20000000ULL},
		{"5usec", 5000},
	};
	static const char *const bad[] = {"", "s", "1 s", "1S", "1Ms", "-1s", "+1s", "1y", "1ss"};
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 1;
		is_int(parse_duration_ns(good[i].s, &v), 0, "duration '%s'", good[i].s);
		is_u64(v, good[i].ns, "duration '%s' = %llu ns", good[i].s,
		       (unsigned long long)good[i].ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse_duration_ns(bad[i], &v), -EINVAL, "duration '%s': -EINVAL", bad[i]);
	v = 5;
	is_int(parse_duration_ns("107000d", &v), -ERANGE, "duration 107000 days: -ERANGE");
	is_u64(v, 5, "duration: *ret untouched on failure");
	is_int(parse_duration_ns(NULL, &v), -EINVAL, "duration NULL: -EINVAL");
	is_int(parse_duration_ns("0.4ns", &v), -ERANGE,
	       "duration '0.4ns' rounds to nothing: -ERANGE");
}

static void test_percent(void)
{
	char longs[80];
	double v;

	is_int(parse_percent("20", false, &v), 0, "percent '20'");
	is_dbl(v, 20, 0, "percent '20' = 20");
	is_int(parse_percent("20%", false, &v), 0, "percent '20%%'");
	is_dbl(v, 20, 0, "percent '20%%' = 20");
	is_int(parse_percent("0.5%", false, &v), 0, "percent '0.5%%'");
	is_dbl(v, 0.5, 0, "percent '0.5%%' = 0.5");
	is_int(parse_percent("0", false, &v), 0, "percent 0");
	is_int(parse_percent("100%", false, &v), 0, "percent 100 is allowed");
	v = 1;
	is_int(parse_percent("100.5", false, &v), -ERANGE, "percent 100.5: -ERANGE");
	is_dbl(v, 1, 0, "percent: *ret untouched on failure");
	is_int(parse_percent("150%", true, &v), 0, "percent 150 with allow_over_100");
	is_dbl(v, 150, 0, "percent 150");
	is_int(parse_percent("-5", false, &v), -EINVAL, "percent -5: -EINVAL");
	is_int(parse_percent("+5", false, &v), -EINVAL, "percent +5: -EINVAL");
	is_int(parse_percent("%", false, &v), -EINVAL, "percent '%%': -EINVAL");
	is_int(parse_percent("20%%", false, &v), -EINVAL, "percent '20%%%%': -EINVAL");
	is_int(parse_percent("", false, &v), -EINVAL, "percent '': -EINVAL");
	is_int(parse_percent("abc%", false, &v), -EINVAL, "percent 'abc%%': -EINVAL");
	is_int(parse_percent("20 %", false, &v), -EINVAL, "percent '20 %%': -EINVAL");
	is_int(parse_percent(NULL, false, &v), -EINVAL, "percent NULL: -EINVAL");
	memset(longs, '1', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = '\0';
	is_int(parse_percent(longs, true, &v), -EINVAL, "percent of 79 characters: -EINVAL");
}

static void test_bool(void)
{
	static const char *const yes[] = {"1", "yes", "true", "on", "YES", "True", "On"};
	static const char *const no[] = {"0", "no", "false", "off", "NO", "False", "OFF"};
	static const char *const bad[] = {"", "y", "n", "2", "yes ", "enable"};
	bool v;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		v = false;
		ok(!parse_bool(yes[i], &v) && v, "bool '%s' is true", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		v = true;
		ok(!parse_bool(no[i], &v) && !v, "bool '%s' is false", no[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(parse_bool(bad[i], &v), -EINVAL, "bool '%s': -EINVAL", bad[i]);
	is_int(parse_bool(NULL, &v), -EINVAL, "bool NULL: -EINVAL");
}

static void test_format(void)
{
	char b[64];

	is_str(parse_fmt_duration(b, sizeof(b), 1000), "1us", "fmt 1000 ns");
	is_str(parse_fmt_duration(b, sizeof(b), 250000000ULL), "250ms", "fmt 250 ms");
	is_str(parse_fmt_duration(b, sizeof(b), 1000000000ULL), "1.0s", "fmt 1 s");
	is_str(parse_fmt_duration(b, sizeof(b), 3200000000ULL), "3.2s", "fmt 3.2 s");
	is_str(parse_fmt_duration(b, sizeof(b), 60000000000ULL), "1m00s", "fmt 60 s");
	is_str(parse_fmt_duration(b, sizeof(b), 3723000000000ULL), "1h02m03s", "fmt 3723 s");
	is_str(parse_fmt_duration(b, sizeof(b), 86400000000000ULL), "24h00m00s", "fmt a day");
	ok(parse_fmt_duration(b, 4, 3723000000000ULL) == b && !strcmp(b, "1h0"),
	   "fmt duration truncates to the buffer");
	/* rounding carries past the unit: 999999 ns prints "1000us", not
	 * "1ms"; 999999999 ns "1000ms"; 59.95 s "60.0s" */
	ok(!strcmp(parse_fmt_duration(b, sizeof(b), 999999), "1ms"),
	   "fmt 999999 ns is '1ms' (got '%s')", b);
	ok(!strcmp(parse_fmt_duration(b, sizeof(b), 59950000000ULL), "1m00s"),
	   "fmt 59.95 s is '1m00s' (got '%s')", b);

	is_str(parse_fmt_size(b, sizeof(b), 0), "0 B", "fmt 0 bytes");
	is_str(parse_fmt_size(b, sizeof(b), 1023), "1023 B", "fmt 1023 bytes");
	is_str(parse_fmt_size(b, sizeof(b), 1024), "1.00 KiB", "fmt 1024 bytes");
	is_str(parse_fmt_size(b, sizeof(b), 1536), "1.50 KiB", "fmt 1536 bytes");
	is_str(parse_fmt_size(b, sizeof(b), 4096), "4.00 KiB", "fmt 4096 bytes");
	is_str(parse_fmt_size(b, sizeof(b), 1048576), "1.00 MiB", "fmt 1 MiB");
	is_str(parse_fmt_size(b, sizeof(b), 1610612736ULL), "1.50 GiB", "fmt 1.5 GiB");
	is_str(parse_fmt_size(b, sizeof(b), 1ULL << 50), "1.00 PiB", "fmt 1 PiB");
	is_str(parse_fmt_size(b, sizeof(b), UINT64_MAX), "16384.00 PiB", "fmt UINT64_MAX");
	ok(!strcmp(parse_fmt_size(b, sizeof(b), 1048575), "1.00 MiB"),
	   "fmt 1048575 bytes is '1.00 MiB' (got '%s')", b);
}

/* parse_fmt_double: exact and shortest; random doubles of every exponent */
static void test_fmt_double(void)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{148913.37293816853, "148913.37293816853"},
		{1234567.1, "1234567.1"},
		{0.1, "0.1"},
		{2, "2"},
		{0, "0"},
		{-3.5, "-3.5"},
		{1e300, "1e+300"},
		{0.1336, "0.1336"},
		{5e-324, "5e-324"},
		{60, "60"},
		{-1200, "-1200"},
		{1e16, "10000000000000000"},
		{1e17, "1e+17"},
		{2.5e-5, "2.5e-05"},
	};
	char b[PARSE_DOUBLE_BYTES];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	int bad = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(parse_fmt_double(b, sizeof(b), cases[i].v), cases[i].want,
		       "fmt_double %.17g", cases[i].v);
	is_str(parse_fmt_double(b, sizeof(b), NAN), "null", "fmt_double NaN is null");
	is_str(parse_fmt_double(b, sizeof(b), -INFINITY), "null", "fmt_double -inf is null");
	for (int i = 0; i < 100000; i++) {
		double v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(&v, &x, sizeof(v));
		if (!isfinite(v))
			continue;
		parse_fmt_double(b, sizeof(b), v);
		if (strtod(b, NULL) != v || strlen(b) >= PARSE_DOUBLE_BYTES)
			bad++;
	}
	is_u64((uint64_t)bad, 0, "fmt_double: 100000 random doubles read back exactly");
}

int main(void)
{
	test_fmt_double();
	test_u64();
	test_double();
	test_size();
	test_duration();
	test_percent();
	test_bool();
	test_format();
	return done_testing();
}
