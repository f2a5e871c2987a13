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

/* decimal unsigned integer */
int parse_u64(const char *s, uint64_t *ret);
/* decimal unsigned integer within [min, max] (-ERANGE outside) */
int parse_uint_range(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* finite decimal floating point number (no inf, no nan) */
int parse_double(const char *s, double *ret);
/*
 * Size in bytes: a number with an optional suffix, binary like fio's
 * default kb_base: "512", "4k", "4K", "4KiB", "1m", "2G", "1T".  A
 * fractional number is accepted with a suffix if it comes out whole ("1.5k").
 */
int parse_size(const char *s, uint64_t *bytes);
/*
 * Duration: a number with a unit "ns", "us", "ms", "s", "m", "min", "h",
 * "d"; a bare number is seconds.  Fractions allowed ("1.5s", "0.1s").
 */
int parse_duration_ns(const char *s, uint64_t *ns);
/* percentage "20" or "20%", 0..100 unless @allow_over_100 */
int parse_percent(const char *s, bool allow_over_100, double *pct);
/* true/false yes/no on/off 1/0 */
int parse_bool(const char *s, bool *ret);

/* "1h02m03s", "250ms", "3.2s" */
char *parse_fmt_duration(char *buf, size_t len, uint64_t ns);
/* "4.00 KiB", "1.50 GiB", "512 B" */
char *parse_fmt_size(char *buf, size_t len, uint64_t bytes);

#endif
