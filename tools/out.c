// SPDX-License-Identifier: MIT
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "out.h"
#include "parse.h"

struct out {
	enum cli_format fmt;
	FILE *f;
	const struct out_col *cols;
	size_t ncols;
	bool stream; /* table with fixed widths */
	size_t nrows;
	/* current row */
	size_t col;
	char **cells; /* ncols strings: table and CSV text, JSON values as JSON */
	char **keys;  /* JSON: the columns' names as JSON strings */
	/* buffered table rows */
	char ***rows;
	size_t cap;
	int err;
};

/* @s as a JSON string, escaped as json-c writes it (no "\/") */
static char *out_json_string(const char *s)
{
	size_t n = 2;
	char *ret, *w;

	for (const char *p = s; *p; p++)
		n += (unsigned char)*p < 0x20 ? 6 : *p == '"' || *p == '\\' ? 2 : 1;
	ret = malloc(n + 1);
	if (!ret)
		return NULL;
	w = ret;
	*w++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		static const char esc[] = {
			['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r'};

		if (*p == '"' || *p == '\\') {
			*w++ = '\\';
			*w++ = (char)*p;
		} else if (*p < 0x20 && *p < sizeof(esc) && esc[*p]) {
			*w++ = '\\';
			*w++ = esc[*p];
		} else if (*p < 0x20) {
			w += sprintf(w, "\\u%04x", *p);
		} else {
			*w++ = (char)*p;
		}
	}
	*w++ = '"';
	*w = '\0';
	return ret;
}

static void out_header(struct out *o)
{
	if (o->fmt == CLI_CSV) {
		for (size_t i = 0; i < o->ncols; i++)
			fprintf(o->f, "%s%s", i ? "," : "", o->cols[i].name);
		fputc('\n', o->f);
	} else if (o->fmt == CLI_JSON) {
		fputs("[", o->f);
	}
}

struct out *out_new(enum cli_format fmt, FILE *f, const struct out_col *cols, size_t ncols)
{
	struct out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fmt = fmt;
	o->f = f;
	o->cols = cols;
	o->ncols = ncols;
	o->cells = calloc(ncols, sizeof(char *));
	if (!o->cells) {
		free(o);
		return NULL;
	}
	if (fmt == CLI_JSON) {
		bool ok = (o->keys = calloc(ncols, sizeof(char *))) != NULL;

		for (size_t i = 0; ok && i < ncols; i++)
			ok = (o->keys[i] = out_json_string(cols[i].name)) != NULL;
		if (!ok) {
			for (size_t i = 0; o->keys && i < ncols; i++)
				free(o->keys[i]);
			free(o->keys);
			free(o->cells);
			free(o);
			return NULL;
		}
	}
	o->stream = true;
	for (size_t i = 0; i < ncols; i++)
		if (!cols[i].width)
			o->stream = false;
	out_header(o);
	if (fmt == CLI_TABLE && o->stream) {
		for (size_t i = 0; i < ncols; i++) {
			const char *t = cols[i].title ? cols[i].title : cols[i].name;

			fprintf(f, i ? "  %*s" : "%*s",
				cols[i].left ? -cols[i].width : cols[i].width, t);
		}
		fputc('\n', f);
	}
	return o;
}

static void out_set(struct out *o, char *s)
{
	if (o->col >= o->ncols) {
		free(s);
		o->err = -EINVAL;
		return;
	}
	free(o->cells[o->col]);
	o->cells[o->col++] = s;
}

/*
 * JSON rows are written as text, a cell a value (a listing of a million
 * rows of fifty keys spent most of its time building json-c objects).
 */
void out_str(struct out *o, const char *s)
{
	if (o->fmt == CLI_JSON)
		out_set(o, s ? out_json_string(s) : strdup("null"));
	else
		out_set(o, strdup(s ? s : (o->fmt == CLI_TABLE ? "-" : "")));
}

void out_null(struct out *o)
{
	out_str(o, NULL);
}

void out_i64(struct out *o, int64_t v)
{
	char *s;

	if (asprintf(&s, "%lld", (long long)v) < 0)
		s = NULL;
	out_set(o, s);
}

/*
 * "%.*f" without printf's multi-precision path, which is most of the cost
 * of a million-row listing.  Falls back to printf (-1) where the fast path
 * could round differently: near a .5 tie, or beyond 2^53.  Same output.
 */
static int out_fmt_fixed(char *buf, size_t len, double v, int prec)
{
	static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
	static const uint64_t p10i[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	char digits[32];
	double x, frac;
	uint64_t n, ip, fp;
	size_t k = 0, d = 0;

	if (prec < 0 || prec > 6 || !(fabs(v) < 1e9))
		return -1;
	x = fabs(v) * p10[prec];
	frac = x - floor(x);
	if (fabs(frac - 0.5) < 1e-6)
		return -1;
	n = (uint64_t)floor(x + 0.5);
	ip = n / p10i[prec];
	fp = n % p10i[prec];
	if (len < 40)
		return -1;
	if (signbit(v))
		buf[k++] = '-';
	do {
		digits[d++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (d)
		buf[k++] = digits[--d];
	if (prec) {
		buf[k++] = '.';
		for (int i = prec - 1; i >= 0; i--) {
			buf[k + (size_t)i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		k += (size_t)prec;
	}
	buf[k] = '\0';
	return 0;
}

char *out_fmt_double(char *buf, size_t len, double v)
{
	/* subnormals hold fewer digits than the shortcut below assumes */
	if (!isfinite(v) || len < PARSE_DOUBLE_BYTES || (v != 0.0 && fabs(v) < DBL_MIN))
		return parse_fmt_double(buf, len, v);
	/* parse_fmt_double() writes a whole number of few significant digits
	 * with an exponent (60 as "6e+01"): below 2^53 every digit is exact */
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	/*
	 * The text parse_fmt_double() finds by trying "%.1g" to "%.17g", in at
	 * most three tries (a listing prints millions): a double is within half
	 * a unit of the 15th significant digit of any decimal of 15 digits or
	 * fewer that reads back to it, so if a shorter one does, "%.15g" is that
	 * one (%g drops the trailing zeros; a value that is not whole prints
	 * without an exponent at either precision or with one at both);
	 * otherwise 16 digits or 17 (which always read back).
	 */
	for (int prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, len, "%.17g", v);
	return buf;
}

/*
 * n / 10^scale for scripts: the decimal itself, written with integer
 * arithmetic (printf's %g of a double is most of a listing's time).  Below
 * 10^15 it has at most 15 significant digits, so the double (double)n /
 * 10^scale, the nearest to it, prints as this text in out_fmt_double() too;
 * below 10^-4 that one has an exponent, above 10^15 more digits: those go
 * there.
 */
static char *out_fmt_dec(char *buf, size_t len, int64_t n, unsigned int scale)
{
	static const int64_t p10[] = {1,      10,      100,	 1000,	    10000,
				      100000, 1000000, 10000000, 100000000, 1000000000};
	uint64_t a = n < 0 ? -(uint64_t)n : (uint64_t)n, ip, fp;
	char digits[24];
	size_t k = 0, d = 0;

	if (scale >= sizeof(p10) / sizeof(p10[0]) || len < 24 || a >= 1000000000000000ULL ||
	    (a && scale >= 4 && a < (uint64_t)p10[scale - 4]))
		return out_fmt_double(buf, len, (double)n / pow(10.0, scale));
	ip = a / (uint64_t)p10[scale];
	fp = a % (uint64_t)p10[scale];
	if (n < 0)
		buf[k++] = '-';
	do {
		digits[d++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (d)
		buf[k++] = digits[--d];
	if (fp) {
		unsigned int w = scale;

		while (fp % 10 == 0) { /* no trailing zeros */
			fp /= 10;
			w--;
		}
		buf[k++] = '.';
		for (unsigned int i = w; i > 0; i--) {
			buf[k + i - 1] = (char)('0' + fp % 10);
			fp /= 10;
		}
		k += w;
	}
	buf[k] = '\0';
	return buf;
}

void out_dec(struct out *o, int64_t n, unsigned int scale, int prec)
{
	char buf[64];

	if (o->fmt == CLI_TABLE)
		out_dbl(o, (double)n / pow(10.0, scale), prec);
	else
		out_set(o, strdup(out_fmt_dec(buf, sizeof(buf), n, scale)));
}

void out_dbl(struct out *o, double v, int prec)
{
	char buf[64], *s;

	if (!isfinite(v)) {
		out_null(o);
		return;
	}
	/* scripts read JSON and CSV: exact; people read tables: rounded to @prec */
	if (o->fmt != CLI_TABLE)
		s = strdup(out_fmt_double(buf, sizeof(buf), v));
	else if (!out_fmt_fixed(buf, sizeof(buf), v, prec))
		s = strdup(buf);
	else if (asprintf(&s, "%.*f", prec, v) < 0)
		s = NULL;
	out_set(o, s);
}

void out_bool(struct out *o, int v)
{
	out_set(o, strdup(o->fmt != CLI_TABLE ? (v ? "true" : "false") : (v ? "yes" : "no")));
}

static void out_csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void out_end_row(struct out *o)
{
	if (o->fmt == CLI_JSON) {
		bool first = true;

		fputs(o->nrows ? ",\n{" : "\n{", o->f);
		for (size_t i = 0; i < o->ncols; i++) {
			if (!o->cells[i])
				continue;
			fprintf(o->f, "%s%s:%s", first ? "" : ",", o->keys[i], o->cells[i]);
			first = false;
		}
		fputc('}', o->f);
	} else if (o->fmt == CLI_CSV) {
		for (size_t i = 0; i < o->ncols; i++) {
			if (i)
				fputc(',', o->f);
			out_csv_cell(o->f, o->cells[i] ? o->cells[i] : "");
		}
		fputc('\n', o->f);
	} else if (o->stream) {
		for (size_t i = 0; i < o->ncols; i++) {
			const char *c = o->cells[i] ? o->cells[i] : "-";

			fprintf(o->f, i ? "  %*s" : "%*s",
				o->cols[i].left ? -o->cols[i].width : o->cols[i].width, c);
		}
		fputc('\n', o->f);
	} else {
		if (o->nrows == o->cap) {
			size_t cap = o->cap ? 2 * o->cap : 64;
			char ***nr = realloc(o->rows, cap * sizeof(*nr));

			if (!nr) {
				o->err = -ENOMEM;
				goto reset;
			}
			o->rows = nr;
			o->cap = cap;
		}
		o->rows[o->nrows] = o->cells;
		o->cells = calloc(o->ncols, sizeof(char *));
		if (!o->cells) {
			o->err = -ENOMEM;
			return;
		}
	}
	o->nrows++;
reset:
	if (o->fmt != CLI_TABLE || o->stream)
		for (size_t i = 0; i < o->ncols; i++) {
			free(o->cells[i]);
			o->cells[i] = NULL;
		}
	o->col = 0;
}

static void out_flush_table(struct out *o)
{
	int *w = calloc(o->ncols, sizeof(int));

	if (!w) {
		o->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < o->ncols; i++) {
		const char *t = o->cols[i].title ? o->cols[i].title : o->cols[i].name;

		w[i] = (int)strlen(t);
		for (size_t r = 0; r < o->nrows; r++) {
			const char *c = o->rows[r][i] ? o->rows[r][i] : "-";

			if ((int)strlen(c) > w[i])
				w[i] = (int)strlen(c);
		}
	}
	for (size_t i = 0; i < o->ncols; i++) {
		const char *t = o->cols[i].title ? o->cols[i].title : o->cols[i].name;

		if (i == o->ncols - 1 && o->cols[i].left)
			fprintf(o->f, i ? "  %s" : "%s", t);
		else
			fprintf(o->f, i ? "  %*s" : "%*s", o->cols[i].left ? -w[i] : w[i], t);
	}
	fputc('\n', o->f);
	for (size_t r = 0; r < o->nrows; r++) {
		for (size_t i = 0; i < o->ncols; i++) {
			const char *c = o->rows[r][i] ? o->rows[r][i] : "-";

			/* no trailing blanks after a left-aligned last column */
			if (i == o->ncols - 1 && o->cols[i].left)
				fprintf(o->f, i ? "  %s" : "%s", c);
			else
				fprintf(o->f, i ? "  %*s" : "%*s", o->cols[i].left ? -w[i] : w[i],
					c);
		}
		fputc('\n', o->f);
	}
	free(w);
}

static int out_free(struct out *o, bool complete)
{
	int ret;

	if (!o)
		return -ENOMEM;
	if (complete && o->fmt == CLI_JSON)
		fputs(o->nrows ? "\n]\n" : "]\n", o->f);
	else if (complete && o->fmt == CLI_TABLE && !o->stream)
		out_flush_table(o);
	else if (!complete && o->fmt == CLI_JSON)
		fputs("\n", o->f);
	for (size_t r = 0; r < o->nrows && o->rows; r++) {
		for (size_t i = 0; i < o->ncols; i++)
			free(o->rows[r][i]);
		free(o->rows[r]);
	}
	free(o->rows);
	for (size_t i = 0; i < o->ncols; i++)
		free(o->cells[i]);
	free(o->cells);
	for (size_t i = 0; o->keys && i < o->ncols; i++)
		free(o->keys[i]);
	free(o->keys);
	ret = o->err;
	if (fflush(o->f) || ferror(o->f))
		ret = -EIO;
	free(o);
	return ret;
}

int out_finish(struct out *o)
{
	return out_free(o, true);
}

void out_abort(struct out *o)
{
	(void)out_free(o, false);
}

/* A time cell: local time in tables, ISO 8601 UTC in JSON and CSV. */
void out_time(struct out *o, enum cli_format fmt, int64_t ns)
{
	char buf[64];

	if (!ns) {
		out_null(o);
		return;
	}
	out_str(o, fmt == CLI_TABLE ? cli_fmt_time(buf, sizeof(buf), ns)
				    : cli_fmt_iso(buf, sizeof(buf), ns));
}
