/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_OUT_H
#define PLATEAU_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/*
 * out: one listing in three formats.  Table: aligned columns with units in
 * the header (streamed when every column has a fixed width, else buffered);
 * CSV: a header row of stable column names, RFC 4180 quoting; JSON: one
 * array of objects keyed by the same names.
 */

struct out_col {
	const char *name;  /* stable key: JSON key and CSV header */
	const char *title; /* table header, NULL: name */
	int width;	   /* table: fixed width, 0: fit the data */
	int left;	   /* table: left-align (text) */
};

struct out;

struct out *out_new(enum cli_format fmt, FILE *f, const struct out_col *cols, size_t ncols);
void out_str(struct out *o, const char *s); /* NULL: null / empty */
void out_i64(struct out *o, int64_t v);
/*
 * A double for scripts, exact: a whole number below 2^53 as its digits
 * ("60", "200000"), anything else as lib/parse.h parse_fmt_double()'s
 * shortest text that reads back ("148913.37293816853", "0.1", "1e+300");
 * "null" for NaN and inf.  @buf: at least PARSE_DOUBLE_BYTES.
 */
char *out_fmt_double(char *buf, size_t len, double v);
/* a double: @prec decimals in tables; exact in JSON and CSV
 * (out_fmt_double()); null for NaN/inf */
void out_dbl(struct out *o, double v, int prec);
/* @n / 10^@scale (@scale 0..9): as out_dbl((double)@n / 10^@scale, @prec),
 * the same text, written faster (ns as us or s) */
void out_dec(struct out *o, int64_t n, unsigned int scale, int prec);
/* a time cell: local time in tables, ISO 8601 UTC in JSON and CSV; null for 0 */
void out_time(struct out *o, enum cli_format fmt, int64_t ns);
void out_bool(struct out *o, int v);
void out_null(struct out *o);
void out_end_row(struct out *o);
/* Flush and free; -EIO if the output failed (e.g. a closed pipe). */
int out_finish(struct out *o);
/* Free after a failure: buffered rows are dropped and a JSON array is left
 * unclosed, so a truncated listing never parses as a complete one. */
void out_abort(struct out *o);

#endif
