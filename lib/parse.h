/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_PARSE_H
#define PLATEAU_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * parse: strict parsers for the values operators type (CLI arguments, plan
 * fields, control requests).  Whole-string matches only: leading/trailing
 * garbage, empty strings, signs where none belong and overflow all fail.
 * Return 0 or -EINVAL / -ERANGE; *ret is written only on success.
 */

/**
 * parse_u64() - a decimal unsigned integer
 * @s: "0" .. "18446744073709551615"; no sign, no blanks
 * @ret: the value, written only on success
 *
 * Return: 0, -EINVAL not a number, -ERANGE above UINT64_MAX.
 */
int parse_u64(const char *s, uint64_t *ret);

/**
 * parse_uint_range() - a decimal unsigned integer within bounds
 * @s: as parse_u64()
 * @min: lowest value accepted
 * @max: highest value accepted
 * @ret: the value, written only on success
 *
 * Return: 0, -EINVAL not a number, -ERANGE outside [@min, @max].
 */
int parse_uint_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/**
 * parse_double() - a finite decimal floating point number
 * @s: "1.5", "-2", "1e3"; no "inf", no "nan", no hex
 * @ret: the value, written only on success
 *
 * Return: 0, -EINVAL not a number, -ERANGE overflow.
 */
int parse_double(const char *s, double *ret);

/**
 * parse_size() - a size in bytes
 * @s: a number with an optional suffix, binary like fio's default kb_base:
 *     "512", "4k", "4K", "4KiB", "1m", "2G", "1T"; a fractional number is
 *     accepted with a suffix when it comes out whole ("1.5k")
 * @bytes: the size, written only on success
 *
 * Return: 0, -EINVAL not a size (unknown suffix, a fraction of a byte),
 * -ERANGE above UINT64_MAX bytes.
 */
int parse_size(const char *s, uint64_t *bytes);

/**
 * parse_duration_ns() - a duration
 * @s: a number with a unit "ns", "us", "ms", "s", "m", "min", "h", "d"; a
 *     bare number is seconds; fractions allowed ("1.5s", "0.1s")
 * @ns: the duration in ns, written only on success
 *
 * Return: 0, -EINVAL not a duration (unknown unit, a sign), -ERANGE
 * 9.2e18 ns or more, or above 0 yet under 1 ns.
 */
int parse_duration_ns(const char *s, uint64_t *ns);

/**
 * parse_percent() - a percentage
 * @s: "20" or "20%"
 * @allow_over_100: accept values above 100
 * @pct: the value in percent, written only on success
 *
 * Return: 0, -EINVAL not a number or negative, -ERANGE above 100 unless
 * @allow_over_100.
 */
int parse_percent(const char *s, bool allow_over_100, double *pct);

/**
 * parse_bool() - a yes/no value
 * @s: "true"/"false", "yes"/"no", "on"/"off", "1"/"0"
 * @ret: the value, written only on success
 *
 * Return: 0 or -EINVAL.
 */
int parse_bool(const char *s, bool *ret);

/**
 * parse_fmt_duration() - a duration for people
 * @buf: destination
 * @len: size of @buf
 * @ns: duration
 *
 * "1h02m03s", "250ms", "3.2s".
 *
 * Return: @buf.
 */
char *parse_fmt_duration(char *buf, size_t len, uint64_t ns);

/**
 * parse_fmt_size() - a size for people, binary units
 * @buf: destination
 * @len: size of @buf
 * @bytes: size
 *
 * "4.00 KiB", "1.50 GiB", "512 B".
 *
 * Return: @buf.
 */
char *parse_fmt_size(char *buf, size_t len, uint64_t bytes);

/* enough for any double parse_fmt_double() writes, with its NUL */
#define PARSE_DOUBLE_BYTES 32

/**
 * parse_fmt_double() - a double for scripts: the shortest text that reads back
 * @buf: destination, at least PARSE_DOUBLE_BYTES
 * @len: size of @buf
 * @v: value
 *
 * The shortest of "%.1g" .. "%.17g" that strtod() turns back into exactly
 * @v (17 significant digits always do, IEEE 754 binary64): 148913.37293816853
 * stays that, 0.1 is "0.1", 2 is "2", 60 is "60" (a whole number below
 * 10^17 is written as its digits), 1e300 is "1e+300".  Every number a
 * script reads from --json or --csv goes through here (or is an integer).
 * NaN and the infinities, which JSON cannot carry, come out as "null".
 *
 * Return: @buf.
 */
char *parse_fmt_double(char *buf, size_t len, double v);

#endif
