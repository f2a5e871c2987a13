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
	size_t len, col = SIZE_MAX, nf, header_line, blank_line = 0;
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
	out->entries = vs.n;
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

struct fiolog {
	struct round_acc *r;
	size_t n, cap;	       /* rounds 0..n-1 exist */
	size_t job_lo, job_hi; /* rounds the current job touched */
	bool job_any;
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

#define FIOLOG_MAX_FIELDS 7

int import_fiolog(FILE *f, const char *name, enum import_log_kind kind, double round_s,
		  struct import_series *out, struct import_error *err)
{
	struct fiolog L = {0};
	struct values vs = {0};
	char *line = NULL;
	size_t cap = 0, lineno = 0, blank_line = 0, entries = 0, nf0 = 0, nf0_line = 0, jobs = 1;
	size_t n, last;
	double round_ms, t_prev = 0.0, t_last = 0.0, gap_min = 0.0, tol;
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
	round_ms = round_s * 1000.0;

	for (;;) {
		static const char *const what[4] = {"time (msec)", "value", "direction",
						    "block size"};
		char *fs[FIOLOG_MAX_FIELDS];
		size_t fl[FIOLOG_MAX_FIELDS], nf = 0, len, k;
		double x[4], idx;
		char *p, *end;
		bool blank = true, io;
		struct round_acc *a;
		int d;

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
		} else if (io != per_io) {
			set_err(err, lineno,
				"block size %.0f, but the first entry (line %zu) has %s: a log is "
				"either averaged (log_avg_msec, block size 0) or per I/O",
				x[3], nf0_line, per_io ? "a block size" : "block size 0");
			r = -EINVAL;
			goto out;
		}
		idx = x[0] <= 0.0 ? 0.0 : ceil(x[0] / round_ms) - 1.0;
		if (idx >= (double)IMPORT_MAX_ROUNDS) {
			set_err(err, lineno, "time %.0f ms is past %u rounds of %g s", x[0],
				IMPORT_MAX_ROUNDS, round_s);
			r = -EINVAL;
			goto out;
		}
		k = (size_t)idx;

		/* time going backwards: the next job of a per_job_logs=0 log */
		if (entries && x[0] < t_prev) {
			fiolog_fold_job(&L);
			jobs++;
		}
		if (entries && x[0] > t_prev && (gap_min == 0.0 || x[0] - t_prev < gap_min))
			gap_min = x[0] - t_prev;
		t_prev = x[0];
		if (x[0] > t_last)
			t_last = x[0];

		r = fiolog_round(&L, k);
		if (r) {
			set_err(err, lineno, "out of memory");
			goto out;
		}
		a = &L.r[k];
		d = (int)x[2];
		a->job_sum[d] += x[1];
		a->job_cnt[d]++;
		a->all_sum += per_io && kind == IMPORT_LOG_BW ? x[3] : x[1];
		a->all_cnt++;
		entries++;
	}
	fiolog_fold_job(&L);
	if (!entries) {
		set_err(err, 0, "no entries in the log");
		r = -EINVAL;
		goto out;
	}

	/* the last round counts only if the log reaches its end (see import.h) */
	last = L.n - 1;
	tol = fmax(round_ms / 100.0, gap_min);
	n = L.n;
	if (t_last < (double)(last + 1) * round_ms - tol) {
		dropped = true;
		partial_s = (t_last - (double)last * round_ms) / 1000.0;
		n = last;
	}
	if (!n) {
		set_err(err, 0, "the log covers %.3f s, less than one round of %g s",
			t_last / 1000.0, round_s);
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
	out->jobs = jobs;
	out->partial_dropped = dropped;
	out->partial_s = partial_s;
	vs.v = NULL;
	r = 0;
out:
	free(vs.v);
	free(L.r);
	free(line);
	return r;
}

void import_series_free(struct import_series *s)
{
	if (!s)
		return;
	free(s->values);
	memset(s, 0, sizeof(*s));
}
