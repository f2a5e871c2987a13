/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_TAP_H
#define PLATEAU_TAP_H

/*
 * A minimal TAP producer for plateau's test programs (run by prove).
 * Every check prints "ok N - name" or "not ok N - name" plus a diagnostic
 * with the file, line, and the got/expected values.
 */

#include <stdint.h>

void tap_plan(int n);
void tap_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void tap_bail_out(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_skip(int n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int tap_is_i64(int64_t got, int64_t want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int tap_is_u64(uint64_t got, uint64_t want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int tap_is_dbl(double got, double want, double tol, const char *file, int line, const char *fmt,
	       ...) __attribute__((format(printf, 6, 7)));
int tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Prints the plan if none was given; returns the exit status for main(). */
int tap_done(void);

#define plan(n) tap_plan(n)
#define skip_all(...) tap_skip_all(__VA_ARGS__)
#define bail_out(...) tap_bail_out(__VA_ARGS__)
#define diag(...) tap_diag(__VA_ARGS__)
#define skip(n, ...) tap_skip(n, __VA_ARGS__)
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) tap_is_i64((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define is_u64(got, want, ...) tap_is_u64((got), (want), __FILE__, __LINE__, __VA_ARGS__)
/* |got - want| <= tol; NaN equals NaN, inf equals inf of the same sign */
#define is_dbl(got, want, tol, ...) \
	tap_is_dbl((got), (want), (tol), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
#define done_testing() tap_done()

#endif
