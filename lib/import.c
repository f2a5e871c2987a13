// SPDX-License-Identifier: MIT
/*
 * import: CSV tables and fio per-interval logs -> one value per round.
 *
 * fio's log format (HOWTO "Log File Formats"; iolog.c flush_samples()):
 *   "%lu, %PRId64, %u, %llu[, %llu offset][, %u or 0x%04x priority]"
 * i.e. msec, value, direction (0 read, 1 write, 2 trim), block size, then
 * the offset with log_offset=1 and the priority (older fio: neither).  With
 * log_avg_msec each entry is a window's average and block size and offset
 * are 0; without it there is one entry per I/O with its block size, and an
 * iops log's value is 1 (stat.c add_iops_sample(): sample_val(1)).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "import.h"

/* more rounds than this is a corrupt time stamp, not a run (48 days of 1 s) */
#define IMPORT_MAX_ROUNDS (1U << 22)

static const char *const kind_names[] = {
	[IMPORT_LOG_DETECT] = "detect", [IMPORT_LOG_IOPS] = "iops", [IMPORT_LOG_BW] = "bw",
	[IMPORT_LOG_LAT] = "lat",	[IMPORT_LOG_CLAT] = "clat", [IMPORT_LOG_SLAT] = "slat",
};

#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

__attribute__((format(printf, 3, 4))) static void set_err(struct import_error *err, size_t line,
							  const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* A printable excerpt of @len bytes at @s for messages: <= 40 bytes + "...". */
static const char *show(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < len && i < 40 && o + 1 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[o++] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	if (i < len && o + 4 <= size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

enum num_err {
	NUM_OK,
	NUM_EMPTY,
	NUM_SYNTAX,
	NUM_RANGE,
	NUM_NEGATIVE,
	NUM_NONFINITE,
};

/*
 * A decimal number >= 0 filling exactly @len bytes of the NUL-terminated
 * @s: [+-]digits[.digits][e[+-]digits].  No hex, no inf/nan, no blanks.
 */
static enum num_err parse_num(const char *s, size_t len, double *v)
{
	size_t i = 0, digits = 0;
	const char *t;
	char *end;

	if (!len)
		return NUM_EMPTY;
	if (strnlen(s, len) != len)
		return NUM_SYNTAX;
	t = s + (*s == '+' || *s == '-');
	if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity") || !strcasecmp(t, "nan"))
		return NUM_NONFINITE;
	if (s[i] == '+' || s[i] == '-')
		i++;
	for (; i < len && isdigit((unsigned char)s[i]); i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			digits++;
	if (!digits)
		return NUM_SYNTAX;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t edigits = 0;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < len && isdigit((unsigned char)s[i]); i++)
			edigits++;
		if (!edigits)
			return NUM_SYNTAX;
	}
	if (i != len)
		return NUM_SYNTAX;
	errno = 0;
	*v = strtod(s, &end);
	if (end != s + len)
		return NUM_SYNTAX;
	/* ERANGE on underflow returns a value near 0: fine; on overflow, not */
	if (!isfinite(*v) || (errno == ERANGE && fabs(*v) > 1.0))
		return NUM_RANGE;
	if (*v < 0.0)
		return NUM_NEGATIVE;
	*v += 0.0; /* -0 -> +0 */
	return NUM_OK;
}

static void num_err_msg(struct import_error *err, size_t line, const char *what, enum num_err e,
			const char *s, size_t len)
{
	char b[48];

	show(b, sizeof(b), s, len);
	switch (e) {
	case NUM_EMPTY:
		set_err(err, line, "%s: empty, expected a number >= 0", what);
		break;
	case NUM_SYNTAX:
		set_err(err, line, "%s: '%s' is not a number, expected a number >= 0", what, b);
		break;
	case NUM_RANGE:
		set_err(err, line, "%s: '%s' is out of range", what, b);
		break;
	case NUM_NEGATIVE:
		set_err(err, line, "%s: '%s' is negative, expected a number >= 0", what, b);
		break;
	case NUM_NONFINITE:
		set_err(err, line, "%s: '%s' is not finite, expected a number >= 0", what, b);
		break;
	case NUM_OK:
		break;
	}
}

struct values {
	double *v;
	size_t n, cap;
};

static int values_push(struct values *vs, double v)
{
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? 2 * vs->cap : 64;
		double *p;

		if (cap > SIZE_MAX / sizeof(*p))
			return -ENOMEM;
		p = realloc(vs->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		vs->v = p;
		vs->cap = cap;
	}
	vs->v[vs->n++] = v;
	return 0;
}

/* ---- CSV ---------------------------------------------------------------- */

static int read_all(FILE *f, char **ret, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			size_t ncap = cap ? 2 * cap : 65536;
			char *p;

			if (ncap < cap) {
				free(buf);
				return -ENOMEM;
			}
			p = realloc(buf, ncap);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			cap = ncap;
		}
		/* keep one byte for the terminating NUL */
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[n] = '\0';
	*ret = buf;
	*len = n;
	return 0;
}

struct csv {
	char *p, *end;
	size_t line; /* line of *p */
};

struct fields {
	char **s; /* NUL-terminated, unquoted, in the input buffer */
	size_t *len;
	size_t n, cap;
	size_t line; /* first line of the record */
	bool blank;  /* one empty unquoted field: a blank line */
};

static int fields_push(struct fields *fl, char *s, size_t len)
{
	if (fl->n == fl->cap) {
		size_t cap = fl->cap ? 2 * fl->cap : 16;
		char **ns;
		size_t *nl;

		if (cap > SIZE_MAX / sizeof(*ns))
			return -ENOMEM;
		ns = realloc(fl->s, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		fl->s = ns;
		nl = realloc(fl->len, cap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		fl->len = nl;
		fl->cap = cap;
	}
	fl->s[fl->n] = s;
	fl->len[fl->n] = len;
	fl->n++;
	return 0;
}

static bool csv_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* a CR that ends a line: followed by LF or by the end of the input */
static bool csv_cr_eol(const struct csv *c)
{
	return c->p < c->end && *c->p == '\r' && (c->p + 1 == c->end || c->p[1] == '\n');
}

static bool csv_field_end(const struct csv *c)
{
	return c->p >= c->end || *c->p == ',' || *c->p == '\n' || csv_cr_eol(c);
}

/*
 * Next record of @c into @fl, unquoting in place (the output never runs
 * ahead of the input, and the buffer has a spare byte for the last NUL).
 * Return: 1 for a record, 0 at the end of the input, -errno.
 */
static int csv_record(struct csv *c, struct fields *fl, struct import_error *err)
{
	fl->n = 0;
	fl->line = c->line;
	fl->blank = false;
	if (c->p >= c->end)
		return 0;
	for (;;) {
		bool quoted = false;
		char *start, *w, sep;
		int r;

		while (c->p < c->end && csv_blank(*c->p))
			c->p++;
		if (c->p < c->end && *c->p == '"') {
			size_t qline = c->line;

			quoted = true;
			start = w = ++c->p;
			for (;;) {
				if (c->p >= c->end) {
					set_err(err, qline,
						"field %zu: unterminated quoted field (no closing "
						"'\"')",
						fl->n + 1);
					return -EINVAL;
				}
				if (*c->p == '"') {
					if (c->p + 1 < c->end && c->p[1] == '"') {
						*w++ = '"';
						c->p += 2;
						continue;
					}
					c->p++;
					break;
				}
				if (*c->p == '\n')
					c->line++;
				*w++ = *c->p++;
			}
			while (c->p < c->end && csv_blank(*c->p))
				c->p++;
			if (!csv_field_end(c)) {
				char b[8];

				set_err(err, c->line,
					"field %zu: '%s' after a closing quote, expected ',' or "
					"the end "
					"of the line",
					fl->n + 1, show(b, sizeof(b), c->p, 1));
				return -EINVAL;
			}
		} else {
			start = c->p;
			for (; !csv_field_end(c); c->p++) {
				if (*c->p == '"') {
					set_err(err, c->line,
						"field %zu: '\"' inside an unquoted field; quote "
						"the "
						"field and double the '\"'",
						fl->n + 1);
					return -EINVAL;
				}
			}
			w = c->p;
			while (w > start && csv_blank(w[-1]))
				w--;
		}
		sep = c->p < c->end ? *c->p : '\0';
		*w = '\0'; /* may overwrite the separator: already in sep */
		r = fields_push(fl, start, (size_t)(w - start));
		if (r)
			return r;
		if (sep == ',') {
			c->p++;
			continue;
		}
		if (fl->n == 1 && !quoted && w == start)
			fl->blank = true;
		/* a CR that ends a line has LF or the end after it */
		if (sep == '\r') {
			c->p++;
			sep = c->p < c->end ? '\n' : '\0';
		}
		if (sep == '\n') {
			c->p++;
			c->line++;
		}
		return 1;
	}
}

static void column_list(char *buf, size_t size, const struct fields *fl)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < fl->n; i++) {
		char b[48];
		int k;

		show(b, sizeof(b), fl->s[i], fl->len[i]);
		k = snprintf(buf + o, size - o, "%s'%s'", i ? ", " : "", b);
		if (k < 0 || (size_t)k >= size - o) {
			/* no room: cut before this name, end with an ellipsis */
			buf[o] = '\0';
			if (size - o >= sizeof(", ..."))
				memcpy(buf + o, ", ...", sizeof(", ..."));
			return;
		}
		o += (size_t)k;
	}
}

int import_csv(FILE *f, const char *column, struct import_series *out, struct import_error *err)
{
	struct fields fl = {0};
	struct values vs = {0};
	struct csv c;
	const char *colname;
	size_t len, col = SIZE_MAX, pcol = SIZE_MAX, nf, header_line, blank_line = 0;
	size_t partial_rows = 0;
	char *buf = NULL;
	int r;

	set_err(err, 0, "%s", "");
	if (!f || !out)
		return -EINVAL;
	if (!column)
		column = "iops";
	r = read_all(f, &buf, &len);
	if (r) {
		set_err(err, 0, "%s", r == -EIO ? "read error" : "out of memory");
		return r;
	}
	c.p = buf;
	c.end = buf + len;
	c.line = 1;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		c.p += 3; /* UTF-8 byte order mark, as spreadsheets write */

	r = csv_record(&c, &fl, err);
	if (r < 0)
		goto out;
	if (r == 0 || fl.blank) {
		set_err(err, 1, "%s, expected a header row naming the columns",
			r == 0 ? "empty file" : "blank first line");
		r = -EINVAL;
		goto out;
	}
	header_line = fl.line;
	nf = fl.n;
	for (size_t i = 0; i < fl.n; i++) {
		if (strcasecmp(fl.s[i], column))
			continue;
		if (col != SIZE_MAX) {
			char b[48];

			set_err(err, header_line,
				"column '%s' appears twice in the header (fields %zu and %zu)",
				show(b, sizeof(b), column, strlen(column)), col + 1, i + 1);
			r = -EINVAL;
			goto out;
		}
		col = i;
	}
	if (col == SIZE_MAX) {
		char b[48], list[180];

		column_list(list, sizeof(list), &fl);
		set_err(err, header_line, "no column '%s' in the header; the columns are %s",
			show(b, sizeof(b), column, strlen(column)), list);
		r = -EINVAL;
		goto out;
	}
	colname = fl.s[col];
	/* plateau's own `samples --csv`: a partial interval is not a round */
	for (size_t i = 0; i < fl.n; i++)
		if (i != col && !strcasecmp(fl.s[i], "partial"))
			pcol = i;

	for (;;) {
		enum num_err e;
		double v;

		r = csv_record(&c, &fl, err);
		if (r < 0)
			goto out;
		if (r == 0)
			break;
		if (fl.blank) {
			if (!blank_line)
				blank_line = fl.line;
			continue;
		}
		if (blank_line) {
			set_err(err, blank_line,
				"blank line between data rows; rounds must be consecutive");
			r = -EINVAL;
			goto out;
		}
		if (fl.n != nf) {
			set_err(err, fl.line, "%zu field%s, expected %zu as in the header", fl.n,
				fl.n == 1 ? "" : "s", nf);
			r = -EINVAL;
			goto out;
		}
		if (pcol != SIZE_MAX) {
			const char *pv = fl.s[pcol];

			if (!strcasecmp(pv, "true") || !strcmp(pv, "1") || !strcasecmp(pv, "yes")) {
				partial_rows++;
				continue;
			}
			if (strcasecmp(pv, "false") && strcmp(pv, "0") && strcasecmp(pv, "no")) {
				char b[48];

				set_err(err, fl.line,
					"column 'partial': '%s' is not true or false (a partial "
					"interval is left out)",
					show(b, sizeof(b), pv, fl.len[pcol]));
				r = -EINVAL;
				goto out;
			}
		}
		e = parse_num(fl.s[col], fl.len[col], &v);
		if (e != NUM_OK) {
			char what[80], b[48];

			snprintf(what, sizeof(what), "column '%s'",
				 show(b, sizeof(b), colname, strlen(colname)));
			num_err_msg(err, fl.line, what, e, fl.s[col], fl.len[col]);
			r = -EINVAL;
			goto out;
		}
		r = values_push(&vs, v);
		if (r) {
			set_err(err, fl.line, "out of memory");
			goto out;
		}
	}
	if (!vs.n && partial_rows) {
		set_err(err, header_line,
			"no data rows after the header but %zu partial one%s, which are not "
			"rounds",
			partial_rows, partial_rows == 1 ? "" : "s");
		r = -EINVAL;
		goto out;
	}
	if (!vs.n) {
		set_err(err, header_line, "no data rows after the header");
		r = -EINVAL;
		goto out;
	}

	memset(out, 0, sizeof(*out));
	out->values = vs.v;
	out->n = vs.n;
	out->kind = IMPORT_LOG_DETECT;
	out->column = col + 1;
	out->entries = vs.n + partial_rows;
	out->partial_rows = partial_rows;
	vs.v = NULL;
	r = 0;
out:
	free(vs.v);
	free(fl.s);
	free(fl.len);
	free(buf);
	return r;
}

/* ---- fio logs ----------------------------------------------------------- */

int import_log_kind_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	for (size_t k = IMPORT_LOG_IOPS; k < NKINDS; k++)
		if (!strcmp(s, kind_names[k]))
			return (int)k;
	return -EINVAL;
}

const char *import_log_kind_name(enum import_log_kind k)
{
	if ((unsigned int)k >= NKINDS)
		return "unknown";
	return kind_names[k];
}

int import_log_kind_detect(const char *name)
{
	static const struct {
		const char *suffix;
		enum import_log_kind kind;
	} tab[] = {
		{"_iops", IMPORT_LOG_IOPS}, {"_bw", IMPORT_LOG_BW},   {"_clat", IMPORT_LOG_CLAT},
		{"_slat", IMPORT_LOG_SLAT}, {"_lat", IMPORT_LOG_LAT},
	};
	const char *b, *e, *q;

	if (!name)
		return -EINVAL;
	b = strrchr(name, '/');
	b = b ? b + 1 : name;
	e = b + strlen(b);
	if (e - b < 4 || strcmp(e - 4, ".log"))
		return -EINVAL;
	e -= 4;
	/* fio adds ".N", the job's index, unless per_job_logs=0 */
	for (q = e; q > b && isdigit((unsigned char)q[-1]); q--)
		;
	if (q < e && q > b && q[-1] == '.')
		e = q - 1;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		size_t n = strlen(tab[i].suffix);

		if ((size_t)(e - b) >= n && !strncmp(e - n, tab[i].suffix, n))
			return tab[i].kind;
	}
	return -EINVAL;
}

struct round_acc {
	double job_sum[3]; /* this job's entries, per direction */
	uint64_t job_cnt[3];
	double total;	/* sum over jobs and directions of their averages */
	double all_sum; /* every entry's value (per-I/O bw: block sizes) */
	uint64_t all_cnt;
};

/* one entry of an averaged log, kept until the log's interval is known */
struct fioent {
	double t_ms, value;
	size_t line;
	int dir;
};

struct fiolog {
	struct round_acc *r;
	size_t n, cap;	       /* rounds 0..n-1 exist */
	size_t job_lo, job_hi; /* rounds the current job touched */
	bool job_any;
	/* the entries as placed */
	enum import_log_kind kind;
	bool per_io;
	double round_ms;
	double shift_ms; /* averaged logs: half the log's interval (import.h) */
	size_t placed, jobs;
	double t_prev, t_last, gap_min;
	/* averaged logs: every entry, placed once the interval is known */
	struct fioent *ents;
	size_t nents, capents;
};

static int fiolog_round(struct fiolog *L, size_t k)
{
	if (k >= L->cap) {
		size_t cap = L->cap ? L->cap : 64;
		struct round_acc *p;

		while (cap <= k)
			cap *= 2;
		p = realloc(L->r, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + L->cap, 0, (cap - L->cap) * sizeof(*p));
		L->r = p;
		L->cap = cap;
	}
	if (k >= L->n)
		L->n = k + 1;
	if (!L->job_any || k < L->job_lo)
		L->job_lo = k;
	if (!L->job_any || k > L->job_hi)
		L->job_hi = k;
	L->job_any = true;
	return 0;
}

/* Add the finished job's per-direction averages into each round's total. */
static void fiolog_fold_job(struct fiolog *L)
{
	if (!L->job_any)
		return;
	for (size_t k = L->job_lo; k <= L->job_hi; k++) {
		struct round_acc *a = &L->r[k];

		for (int d = 0; d < 3; d++) {
			if (a->job_cnt[d])
				a->total += a->job_sum[d] / (double)a->job_cnt[d];
			a->job_sum[d] = 0.0;
			a->job_cnt[d] = 0;
		}
	}
	L->job_any = false;
}

/*
 * Put one entry into its round: the round that holds t - shift (see
 * import.h), the first for anything at or before 0.  Time going backwards
 * starts the next job of a per_job_logs=0 log.
 */
static int fiolog_place(struct fiolog *L, double t, double value, double bs, int d, size_t line,
			struct import_error *err)
{
	double x = t - L->shift_ms, idx = x <= 0.0 ? 0.0 : ceil(x / L->round_ms) - 1.0;
	struct round_acc *a;
	size_t k;
	int r;

	if (idx >= (double)IMPORT_MAX_ROUNDS) {
		set_err(err, line, "time %.0f ms is past %u rounds of %g s", t, IMPORT_MAX_ROUNDS,
			L->round_ms / 1000.0);
		return -EINVAL;
	}
	k = (size_t)idx;
	if (L->placed && t < L->t_prev) {
		fiolog_fold_job(L);
		L->jobs++;
	}
	if (L->placed && t > L->t_prev && (L->gap_min == 0.0 || t - L->t_prev < L->gap_min))
		L->gap_min = t - L->t_prev;
	L->t_prev = t;
	if (t > L->t_last)
		L->t_last = t;
	r = fiolog_round(L, k);
	if (r) {
		set_err(err, line, "out of memory");
		return r;
	}
	a = &L->r[k];
	a->job_sum[d] += value;
	a->job_cnt[d]++;
	a->all_sum += L->per_io && L->kind == IMPORT_LOG_BW ? bs : value;
	a->all_cnt++;
	L->placed++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * An averaged log's interval (log_avg_msec as written, jitter and all): the
 * median of the gaps between an entry and the one before it of the same job
 * and direction.  0 when no direction has two entries.
 */
static int fiolog_interval(const struct fiolog *L, double *interval)
{
	double last[3] = {0}, *gaps;
	bool seen[3] = {false, false, false};
	size_t n = 0;

	*interval = 0.0;
	if (L->nents < 2)
		return 0;
	gaps = malloc(L->nents * sizeof(*gaps));
	if (!gaps)
		return -ENOMEM;
	for (size_t i = 0; i < L->nents; i++) {
		const struct fioent *e = &L->ents[i];

		if (i && e->t_ms < L->ents[i - 1].t_ms) /* the next job */
			seen[0] = seen[1] = seen[2] = false;
		if (seen[e->dir] && e->t_ms > last[e->dir])
			gaps[n++] = e->t_ms - last[e->dir];
		last[e->dir] = e->t_ms;
		seen[e->dir] = true;
	}
	if (n) {
		qsort(gaps, n, sizeof(*gaps), cmp_double);
		*interval = n % 2 ? gaps[n / 2] : (gaps[n / 2 - 1] + gaps[n / 2]) / 2.0;
	}
	free(gaps);
	return 0;
}

#define FIOLOG_MAX_FIELDS 7

int import_fiolog(FILE *f, const char *name, enum import_log_kind kind, double round_s,
		  struct import_series *out, struct import_error *err)
{
	struct fiolog L = {0};
	struct values vs = {0};
	char *line = NULL;
	size_t cap = 0, lineno = 0, blank_line = 0, entries = 0, nf0 = 0, nf0_line = 0;
	size_t n, last;
	double tol, interval = 0.0;
	bool per_io = false, lat, dropped = false;
	double partial_s = 0.0;
	ssize_t got;
	int r;

	set_err(err, 0, "%s", "");
	if (!f || !out)
		return -EINVAL;
	if (!isfinite(round_s) || round_s < 0.001) {
		set_err(err, 0, "round length %g s: expected a number of seconds >= 0.001",
			round_s);
		return -EINVAL;
	}
	if (kind == IMPORT_LOG_DETECT) {
		int k = import_log_kind_detect(name);

		if (k < 0) {
			char b[48];

			set_err(err, 0,
				"cannot tell the log kind from the name '%s' (fio writes "
				"NAME_iops.N.log, NAME_bw.N.log, NAME_lat/clat/slat.N.log); "
				"give the kind",
				name ? show(b, sizeof(b), name, strlen(name)) : "");
			return -EINVAL;
		}
		kind = (enum import_log_kind)k;
	} else if ((unsigned int)kind >= NKINDS) {
		return -EINVAL;
	}
	lat = kind == IMPORT_LOG_LAT || kind == IMPORT_LOG_CLAT || kind == IMPORT_LOG_SLAT;
	L.kind = kind;
	L.round_ms = round_s * 1000.0;
	L.jobs = 1;

	for (;;) {
		static const char *const what[4] = {"time (msec)", "value", "direction",
						    "block size"};
		char *fs[FIOLOG_MAX_FIELDS];
		size_t fl[FIOLOG_MAX_FIELDS], nf = 0, len;
		double x[4];
		char *p, *end;
		bool blank = true, io;

		errno = 0;
		got = getline(&line, &cap, f);
		if (got < 0) {
			if (errno == ENOMEM) {
				set_err(err, lineno + 1, "out of memory");
				r = -ENOMEM;
				goto out;
			}
			if (ferror(f)) {
				set_err(err, lineno + 1, "read error");
				r = -EIO;
				goto out;
			}
			break;
		}
		lineno++;
		len = (size_t)got;
		if (len && line[len - 1] == '\n')
			len--;
		if (len && line[len - 1] == '\r')
			len--;
		line[len] = '\0';
		for (size_t i = 0; i < len && blank; i++)
			blank = line[i] == ' ' || line[i] == '\t';
		if (blank) {
			if (!blank_line)
				blank_line = lineno;
			continue;
		}
		if (blank_line) {
			set_err(err, blank_line, "blank line inside the log");
			r = -EINVAL;
			goto out;
		}

		/* split at commas, trim blanks, NUL-terminate each field */
		end = line + len;
		for (p = line;; nf++) {
			char *q = memchr(p, ',', (size_t)(end - p)), *fe = q ? q : end;

			while (p < fe && (*p == ' ' || *p == '\t'))
				p++;
			while (fe > p && (fe[-1] == ' ' || fe[-1] == '\t'))
				fe--;
			if (nf < FIOLOG_MAX_FIELDS) {
				fs[nf] = p;
				fl[nf] = (size_t)(fe - p);
			}
			*fe = '\0';
			if (!q)
				break;
			p = q + 1;
		}
		nf++;
		if (nf < 4 || nf > FIOLOG_MAX_FIELDS) {
			set_err(err, lineno,
				"%zu field%s, expected 4 to %d: msec, value, direction, block "
				"size[, offset][, priority]",
				nf, nf == 1 ? "" : "s", FIOLOG_MAX_FIELDS);
			r = -EINVAL;
			goto out;
		}
		if (!nf0) {
			nf0 = nf;
			nf0_line = lineno;
		} else if (nf != nf0) {
			set_err(err, lineno, "%zu fields, the first entry (line %zu) has %zu", nf,
				nf0_line, nf0);
			r = -EINVAL;
			goto out;
		}
		for (int i = 0; i < 4; i++) {
			enum num_err e = parse_num(fs[i], fl[i], &x[i]);

			if (e != NUM_OK) {
				num_err_msg(err, lineno, what[i], e, fs[i], fl[i]);
				r = -EINVAL;
				goto out;
			}
		}
		if (x[2] != 0.0 && x[2] != 1.0 && x[2] != 2.0) {
			char b[48];

			set_err(err, lineno,
				"direction '%s': expected 0 (read), 1 (write) or 2 (trim)",
				show(b, sizeof(b), fs[2], fl[2]));
			r = -EINVAL;
			goto out;
		}
		if (x[3] != floor(x[3])) {
			char b[48];

			set_err(err, lineno, "block size '%s': expected a whole number of bytes",
				show(b, sizeof(b), fs[3], fl[3]));
			r = -EINVAL;
			goto out;
		}
		io = x[3] > 0.0;
		if (!entries) {
			per_io = io;
			L.per_io = io;
		} else if (io != per_io) {
			set_err(err, lineno,
				"block size %.0f, but the first entry (line %zu) has %s: a log is "
				"either averaged (log_avg_msec, block size 0) or per I/O",
				x[3], nf0_line, per_io ? "a block size" : "block size 0");
			r = -EINVAL;
			goto out;
		}
		entries++;
		/* a per-I/O entry is stamped when its I/O completed: placed now */
		if (per_io) {
			r = fiolog_place(&L, x[0], x[1], x[3], (int)x[2], lineno, err);
			if (r)
				goto out;
			continue;
		}
		if (L.nents == L.capents) {
			size_t ncap = L.capents ? 2 * L.capents : 256;
			struct fioent *ne = ncap > SIZE_MAX / sizeof(*ne)
						    ? NULL
						    : realloc(L.ents, ncap * sizeof(*ne));

			if (!ne) {
				set_err(err, lineno, "out of memory");
				r = -ENOMEM;
				goto out;
			}
			L.ents = ne;
			L.capents = ncap;
		}
		L.ents[L.nents++] = (struct fioent){x[0], x[1], lineno, (int)x[2]};
	}
	if (!entries) {
		set_err(err, 0, "no entries in the log");
		r = -EINVAL;
		goto out;
	}
	if (!per_io) {
		/* an averaged entry covers the interval before its stamp: the
		 * round that holds the middle of it (import.h) */
		r = fiolog_interval(&L, &interval);
		if (r) {
			set_err(err, 0, "out of memory");
			goto out;
		}
		/* an entry spanning rounds cannot be split among them (10 %:
		 * a 1 s log's jitter against rounds of 1 s) */
		if (interval > L.round_ms * 1.1) {
			set_err(err, 0,
				"the log's entries are %g ms apart (its log_avg_msec), more than "
				"a round of %g s: give --round %g or more",
				interval, round_s, ceil(interval) / 1000.0);
			r = -EINVAL;
			goto out;
		}
		L.shift_ms = interval / 2.0;
		for (size_t i = 0; i < L.nents; i++) {
			const struct fioent *e = &L.ents[i];

			r = fiolog_place(&L, e->t_ms, e->value, 0.0, e->dir, e->line, err);
			if (r)
				goto out;
		}
	}
	fiolog_fold_job(&L);

	/* the last round counts only if the log reaches its end (see import.h) */
	last = L.n - 1;
	tol = fmax(L.round_ms / 100.0, per_io ? L.gap_min : interval);
	n = L.n;
	if (L.t_last < (double)(last + 1) * L.round_ms - tol) {
		dropped = true;
		partial_s = (L.t_last - (double)last * L.round_ms) / 1000.0;
		n = last;
	}
	if (!n) {
		set_err(err, 0, "the log covers %.3f s, less than one round of %g s",
			L.t_last / 1000.0, round_s);
		r = -EINVAL;
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		const struct round_acc *a = &L.r[k];
		double v;

		if (!a->all_cnt && !(per_io && !lat)) {
			set_err(err, 0, "round %zu (%g to %g s) has no entries", k + 1,
				(double)k * round_s, (double)(k + 1) * round_s);
			r = -EINVAL;
			goto out;
		}
		if (lat)
			v = a->all_sum / (double)a->all_cnt / 1000.0; /* ns -> us */
		else if (per_io && kind == IMPORT_LOG_IOPS)
			v = (double)a->all_cnt / round_s;
		else if (per_io)
			v = a->all_sum / round_s / 1e6; /* bytes -> MB/s */
		else if (kind == IMPORT_LOG_IOPS)
			v = a->total;
		else
			v = a->total * 1024.0 / 1e6; /* KiB/s -> MB/s */
		r = values_push(&vs, v);
		if (r) {
			set_err(err, 0, "out of memory");
			goto out;
		}
	}

	memset(out, 0, sizeof(*out));
	out->values = vs.v;
	out->n = vs.n;
	out->unit = lat ? "us" : kind == IMPORT_LOG_IOPS ? "IOPS" : "MB/s";
	out->kind = kind;
	out->entries = entries;
	out->per_io = per_io;
	out->jobs = L.jobs;
	out->interval_ms = interval;
	out->partial_dropped = dropped;
	out->partial_s = partial_s;
	vs.v = NULL;
	r = 0;
out:
	free(vs.v);
	free(L.r);
	free(L.ents);
	free(line);
	return r;
}

/* ---- fio --output-format=json ------------------------------------------ */

/* 1-based line of byte @off of @text */
static size_t line_of(const char *text, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

bool import_looks_fiojson(const char *text, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	return i < len && text[i] == '{';
}

/* a job's steadystate block, or NULL */
static json_object *fiojson_ss(json_object *job)
{
	json_object *ss;

	return json_object_object_get_ex(job, "steadystate", &ss) &&
			       json_object_is_type(ss, json_type_object)
		       ? ss
		       : NULL;
}

static const char *fiojson_name(json_object *job)
{
	json_object *v;

	return json_object_object_get_ex(job, "jobname", &v) &&
			       json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

/* the job to judge: @want by name or 1-based index, else the one with data */
static int fiojson_pick(json_object *jobs, const char *want, json_object **ret,
			struct import_error *err)
{
	size_t n = json_object_array_length(jobs), with = 0, o = 0;
	char list[160] = "", b[48];
	uint64_t idx = 0;
	char *end;

	if (want) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(fiojson_name(json_object_array_get_idx(jobs, i)), want)) {
				*ret = json_object_array_get_idx(jobs, i);
				return 0;
			}
		errno = 0;
		idx = strtoull(want, &end, 10);
		if (!*want || *end || errno || idx < 1 || idx > n) {
			set_err(err, 0, "no job '%s' (by name, or 1 to %zu by position)",
				show(b, sizeof(b), want, strlen(want)), n);
			return -EINVAL;
		}
		*ret = json_object_array_get_idx(jobs, idx - 1);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *j = json_object_array_get_idx(jobs, i);
		int k;

		if (!fiojson_ss(j))
			continue;
		*ret = j;
		with++;
		k = snprintf(list + o, sizeof(list) - o, "%s'%s'", o ? ", " : "",
			     show(b, sizeof(b), fiojson_name(j), strlen(fiojson_name(j))));
		if (k > 0 && (size_t)k < sizeof(list) - o)
			o += (size_t)k;
	}
	if (with == 1)
		return 0;
	if (!with)
		set_err(err, 0,
			"no job has a steadystate block (fio writes one for a job run with "
			"ss= and ss_dur=): nothing to judge");
	else
		set_err(err, 0, "%zu jobs have steady-state data (%s): pick one with --job", with,
			list);
	return -EINVAL;
}

int import_fiojson(const char *text, size_t len, const char *series, const char *job,
		   struct import_series *out, struct import_error *err)
{
	static const struct {
		const char *name, *key, *unit;
		double scale; /* fio's unit -> plateau's */
	} tab[] = {
		{"iops", "iops", "IOPS", 1.0},
		{"bw", "bw", "MB/s", 1e-6},    /* bytes/s -> MB/s */
		{"lat", "lat_ns", "us", 1e-3}, /* ns -> us */
	};
	struct json_tokener *tok;
	json_object *root = NULL, *jobs, *j = NULL, *ss, *data, *arr, *v, *iops, *bw;
	struct values vs = {0};
	size_t t, n, keep, zeros = 0;
	const char *name;
	double dur;
	char b[48];
	int r = -EINVAL;

	set_err(err, 0, "%s", "");
	if (!text || !out)
		return -EINVAL;
	if (!series)
		series = "iops";
	for (t = 0; t < sizeof(tab) / sizeof(tab[0]) && strcmp(tab[t].name, series); t++)
		;
	if (t == sizeof(tab) / sizeof(tab[0])) {
		set_err(err, 0, "series '%s': a fio JSON's steady-state data has iops, bw or lat",
			show(b, sizeof(b), series, strlen(series)));
		return -EINVAL;
	}
	if (len > INT32_MAX) {
		set_err(err, 0, "larger than 2 GiB: not fio's JSON output");
		return -EFBIG;
	}
	tok = json_tokener_new();
	if (!tok) {
		set_err(err, 0, "out of memory");
		return -ENOMEM;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error je = json_tokener_get_error(tok);
		size_t at = json_tokener_get_parse_end(tok);

		set_err(err, line_of(text, at < len ? at : len), "not valid JSON: %s",
			je == json_tokener_continue ? "it ends too early"
						    : json_tokener_error_desc(je));
		goto out;
	}
	for (size_t at = json_tokener_get_parse_end(tok); at < len; at++)
		if (!isspace((unsigned char)text[at])) {
			set_err(err, line_of(text, at),
				"text after the JSON document: one fio --output-format=json "
				"document expected");
			goto out;
		}
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array) || !json_object_array_length(jobs)) {
		set_err(err, 0,
			"no \"jobs\" array: not the JSON of fio --output-format=json (a CSV "
			"or a fio log does not start with '{')");
		goto out;
	}
	if ((r = fiojson_pick(jobs, job, &j, err)))
		goto out;
	r = -EINVAL;
	name = fiojson_name(j);
	ss = fiojson_ss(j);
	if (!ss) {
		set_err(err, 0,
			"job '%s' has no steadystate block (fio writes one for a job run with ss= "
			"and ss_dur=)",
			show(b, sizeof(b), name, strlen(name)));
		goto out;
	}
	if (!json_object_object_get_ex(ss, "data", &data) ||
	    !json_object_is_type(data, json_type_object)) {
		set_err(err, 0, "job '%s': steadystate has no \"data\" object",
			show(b, sizeof(b), name, strlen(name)));
		goto out;
	}
	if (!json_object_object_get_ex(data, tab[t].key, &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		set_err(err, 0, "job '%s': steadystate.data has no \"%s\" array%s",
			show(b, sizeof(b), name, strlen(name)), tab[t].key,
			t == 2 ? " (fio writes lat_ns for ss=lat only)" : "");
		goto out;
	}
	n = json_object_array_length(arr);
	if (!n) {
		set_err(err, 0, "job '%s': steadystate.data.%s is empty",
			show(b, sizeof(b), name, strlen(name)), tab[t].key);
		goto out;
	}
	if (!json_object_object_get_ex(ss, "duration", &v) ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) ||
	    !((dur = json_object_get_double(v)) > 0) || !isfinite(dur)) {
		set_err(err, 0,
			"job '%s': steadystate.duration: expected ss_dur in seconds, a number > 0",
			show(b, sizeof(b), name, strlen(name)));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		double x = json_object_get_double(e);

		if (!(json_object_is_type(e, json_type_int) ||
		      json_object_is_type(e, json_type_double)) ||
		    !isfinite(x) || x < 0) {
			set_err(err, 0,
				"job '%s': steadystate.data.%s[%zu]: expected a number >= 0, "
				"not %s",
				show(b, sizeof(b), name, strlen(name)), tab[t].key, i,
				json_object_to_json_string(e));
			goto out;
		}
	}
	/*
	 * fio keeps ss_dur / ss_interval intervals in a ring it allocated
	 * zeroed: a job that ended before filling it (and so before attaining
	 * steady state) leaves its tail 0 in iops and bw both.  Not rounds.
	 */
	keep = n;
	if (json_object_object_get_ex(ss, "attained", &v) && !json_object_get_int(v) &&
	    json_object_object_get_ex(data, "iops", &iops) &&
	    json_object_object_get_ex(data, "bw", &bw) &&
	    json_object_is_type(iops, json_type_array) &&
	    json_object_is_type(bw, json_type_array) && json_object_array_length(iops) == n &&
	    json_object_array_length(bw) == n)
		while (keep && !json_object_get_double(json_object_array_get_idx(iops, keep - 1)) &&
		       !json_object_get_double(json_object_array_get_idx(bw, keep - 1)))
			keep--;
	zeros = n - keep;
	if (!keep) {
		set_err(err, 0, "job '%s': every steady-state interval is 0: no data collected",
			show(b, sizeof(b), name, strlen(name)));
		goto out;
	}
	for (size_t i = 0; i < keep; i++) {
		r = values_push(&vs, json_object_get_double(json_object_array_get_idx(arr, i)) *
					     tab[t].scale);
		if (r) {
			set_err(err, 0, "out of memory");
			goto out;
		}
	}
	memset(out, 0, sizeof(*out));
	out->values = vs.v;
	out->n = vs.n;
	out->unit = tab[t].unit;
	out->kind = IMPORT_LOG_DETECT;
	out->entries = n;
	out->jobs = json_object_array_length(jobs);
	out->interval_ms = dur * 1000.0 / (double)n;
	out->zeros_dropped = zeros;
	snprintf(out->job, sizeof(out->job), "%s", name);
	if (json_object_object_get_ex(ss, "ss", &v) && json_object_is_type(v, json_type_string))
		snprintf(out->fio_ss, sizeof(out->fio_ss), "%s", json_object_get_string(v));
	out->fio_attained =
		json_object_object_get_ex(ss, "attained", &v) && json_object_get_int(v) > 0;
	vs.v = NULL;
	r = 0;
out:
	free(vs.v);
	json_object_put(root);
	json_tokener_free(tok);
	return r;
}

void import_series_free(struct import_series *s)
{
	if (!s)
		return;
	free(s->values);
	memset(s, 0, sizeof(*s));
}
