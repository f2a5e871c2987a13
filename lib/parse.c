// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

int parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_uint_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	uint64_t v;
	int r = parse_u64(s, &v);

	if (r)
		return r;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* Leading number of @s (digits, one dot, optional exponent) -> *v, *end. */
static int parse_number_prefix(const char *s, double *v, const char **end)
{
	char *e;

	if (!s || !(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &e);
	/* ERANGE also flags a subnormal result, which is a fine value */
	if (!isfinite(*v) || (errno == ERANGE && *v != 0.0 && fabs(*v) >= 1.0))
		return -ERANGE;
	/* strtod accepts hex and "inf"; the first-char check rules both out
	 * except "0x..": refuse that explicitly */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return -EINVAL;
	*end = e;
	return 0;
}

int parse_double(const char *s, double *ret)
{
	const char *end;
	double v;
	int r;

	if (s && (*s == '-' || *s == '+')) {
		if (s[1] == '-' || s[1] == '+')
			return -EINVAL;
		r = parse_double(s + 1, &v);
		if (!r)
			*ret = *s == '-' ? -v : v;
		return r;
	}
	r = parse_number_prefix(s, &v, &end);
	if (r)
		return r;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		unsigned int shift;
	} units[] = {
		{"", 0},     {"b", 0},	 {"k", 10},   {"kb", 10},  {"kib", 10},
		{"m", 20},   {"mb", 20}, {"mib", 20}, {"g", 30},   {"gb", 30},
		{"gib", 30}, {"t", 40},	 {"tb", 40},  {"tib", 40},
	};
	const char *end;
	double v;
	int r;

	r = parse_number_prefix(s, &v, &end);
	if (r)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double x;

		if (strcasecmp(end, units[i].suffix))
			continue;
		x = ldexp(v, (int)units[i].shift);
		if (x >= 18446744073709551616.0)
			return -ERANGE;
		if (x != floor(x))
			return -EINVAL;
		*bytes = (uint64_t)x;
		return 0;
	}
	return -EINVAL;
}

int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{"", 1e9},  {"ns", 1},	  {"us", 1e3}, {"usec", 1e3}, {"ms", 1e6},   {"msec", 1e6},
		{"s", 1e9}, {"sec", 1e9}, {"m", 60e9}, {"min", 60e9}, {"h", 3600e9}, {"d", 86400e9},
	};
	const char *end;
	double v;
	int r;

	r = parse_number_prefix(s, &v, &end);
	if (r)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double x;

		if (strcmp(end, units[i].unit))
			continue;
		x = v * units[i].ns;
		if (x >= 9.2e18)
			return -ERANGE;
		/* a positive duration never rounds down to "none" */
		if (v > 0 && llround(x) == 0)
			return -ERANGE;
		*ns = (uint64_t)llround(x);
		return 0;
	}
	return -EINVAL;
}

int parse_percent(const char *s, bool allow_over_100, double *pct)
{
	char buf[64];
	size_t n;
	double v;
	int r;

	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (buf[0] == '-' || buf[0] == '+')
		return -EINVAL;
	r = parse_double(buf, &v);
	if (r)
		return r;
	if (v < 0 || (!allow_over_100 && v > 100.0))
		return -ERANGE;
	*pct = v;
	return 0;
}

int parse_bool(const char *s, bool *ret)
{
	static const char *yes[] = {"1", "yes", "true", "on"};
	static const char *no[] = {"0", "no", "false", "off"};

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

char *parse_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s;

	/* choose the unit on the rounded value: 999999 ns is "1ms", not "1000us" */
	if (ns < 999500ULL) {
		snprintf(buf, len, "%.0fus", (double)ns / 1e3);
		return buf;
	}
	if (ns < 999500000ULL) {
		snprintf(buf, len, "%.0fms", (double)ns / 1e6);
		return buf;
	}
	if (ns < 59950000000ULL) {
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
		return buf;
	}
	s = (ns + 500000000ULL) / 1000000000ULL;
	if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%lluh%02llum%02llus", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	return buf;
}

char *parse_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	/* move up a unit when the value would print as 1024.00 */
	while (v >= 1023.995 && u < 4) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

char *parse_fmt_double(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* %g writes 60 as "6e+01" when one digit reads back: a whole number
	 * below 10^17 is written as its digits, as scripts expect */
	if (strchr(buf, 'e') && fabs(v) >= 1 && fabs(v) < 1e17)
		snprintf(buf, len, "%.0f", v);
	return buf;
}
