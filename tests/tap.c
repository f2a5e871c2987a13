// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int tap_n;
static int tap_failed;
static int tap_planned = -1;

static void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

void tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(0);
}

void tap_bail_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("Bail out! ", fmt, ap);
	va_end(ap);
	exit(1);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

void tap_skip(int n, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (int i = 0; i < n; i++)
		printf("ok %d # skip %s\n", ++tap_n, why);
	fflush(stdout);
}

static int tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	if (!pass) {
		tap_failed++;
		printf("#   Failed test at %s line %d.\n", file, line);
	}
	fflush(stdout);
	return pass;
}

int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

int tap_is_i64(int64_t got, int64_t want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %lld\n#     expected: %lld\n", (long long)got,
		       (long long)want);
	return pass;
}

int tap_is_u64(uint64_t got, uint64_t want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int pass = got == want;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %llu\n#     expected: %llu\n", (unsigned long long)got,
		       (unsigned long long)want);
	return pass;
}

int tap_is_dbl(double got, double want, double tol, const char *file, int line, const char *fmt,
	       ...)
{
	va_list ap;
	int pass;

	if (isnan(want))
		pass = isnan(got);
	else if (isinf(want))
		pass = got == want;
	else
		pass = fabs(got - want) <= tol;
	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: %.17g\n#     expected: %.17g (+- %g)\n", got, want, tol);
	return pass;
}

int tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int pass = (got && want) ? strcmp(got, want) == 0 : got == want;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#          got: '%s'\n#     expected: '%s'\n", got ? got : "(null)",
		       want ? want : "(null)");
	return pass;
}

int tap_done(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_n);
	else if (tap_planned != tap_n)
		printf("# planned %d tests but ran %d\n", tap_planned, tap_n);
	fflush(stdout);
	if (tap_failed)
		printf("# failed %d of %d tests\n", tap_failed, tap_n);
	return tap_failed || (tap_planned >= 0 && tap_planned != tap_n);
}
