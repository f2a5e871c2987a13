// SPDX-License-Identifier: MIT
/* import: CSV tables and fio logs, every error path, from in-memory files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "tap.h"

/* fmemopen() over a private copy (it wants a writable buffer); "" -> tmpfile */
static FILE *open_text(const char *text, char **copy)
{
	size_t len = strlen(text);

	*copy = strdup(text);
	if (!*copy)
		bail_out("out of memory");
	if (!len)
		return tmpfile();
	return fmemopen(*copy, len, "r");
}

static int csv(const char *text, const char *column, struct import_series *s,
	       struct import_error *e)
{
	char *copy;
	FILE *f = open_text(text, &copy);
	int r;

	if (!f)
		bail_out("fmemopen: %s", strerror(errno));
	r = import_csv(f, column, s, e);
	fclose(f);
	free(copy);
	return r;
}

static int fiolog(const char *text, const char *name, enum import_log_kind kind, double round_s,
		  struct import_series *s, struct import_error *e)
{
	char *copy;
	FILE *f = open_text(text, &copy);
	int r;

	if (!f)
		bail_out("fmemopen: %s", strerror(errno));
	r = import_fiolog(f, name, kind, round_s, s, e);
	fclose(f);
	free(copy);
	return r;
}

static int same(const struct import_series *s, const double *want, size_t n)
{
	if (s->n != n) {
		diag("got %zu values, want %zu", s->n, n);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (fabs(s->values[i] - want[i]) > 1e-9 * (1.0 + fabs(want[i]))) {
			diag("value %zu: got %.17g, want %.17g", i + 1, s->values[i], want[i]);
			return 0;
		}
	return 1;
}

#define SAME(s, ...)                                       \
	({                                                 \
		const double _w[] = {__VA_ARGS__};         \
		same((s), _w, sizeof(_w) / sizeof(_w[0])); \
	})

/* the call fails with -EINVAL at @line and the message holds @needle */
static void fails(int r, const struct import_error *e, size_t line, const char *needle,
		  const char *what)
{
	int pass = r == -EINVAL && e->line == line && strstr(e->msg, needle);

	ok(pass, "%s: -EINVAL at line %zu, message names '%s'", what, line, needle);
	if (!pass)
		diag("got %d at line %zu: %s", r, e->line, e->msg);
}

static void test_csv_ok(void)
{
	struct import_series s;
	struct import_error e;

	is_int(csv("round,iops,lat_us\n1,1000,50\n2,1100,51\n3,1050,49\n", NULL, &s, &e), 0,
	       "csv: default column iops");
	ok(SAME(&s, 1000, 1100, 1050), "csv: iops values 1000 1100 1050");
	ok(s.column == 2 && s.entries == 3 && !s.unit && s.kind == IMPORT_LOG_DETECT,
	   "csv: column 2, 3 rows, no unit");
	import_series_free(&s);
	ok(!s.values && !s.n, "import_series_free zeroes the series");
	import_series_free(NULL);

	csv("round,iops,lat_us\n1,1000,50\n2,1100,51\n", "lat_us", &s, &e);
	ok(SAME(&s, 50, 51) && s.column == 3, "csv: column chosen by name");
	import_series_free(&s);
	csv("Round,IOPS\n1,7\n", "iops", &s, &e);
	ok(SAME(&s, 7), "csv: column names match case-insensitively");
	import_series_free(&s);

	csv("round,iops\r\n1,10\r\n2,20\r\n", NULL, &s, &e);
	ok(SAME(&s, 10, 20), "csv: CRLF line ends");
	import_series_free(&s);
	csv("iops\n1\n2", NULL, &s, &e);
	ok(SAME(&s, 1, 2), "csv: no newline at the end");
	import_series_free(&s);
	csv("iops\n1\n2\n\n  \n\r\n\n", NULL, &s, &e);
	ok(SAME(&s, 1, 2), "csv: blank lines at the end are ignored");
	import_series_free(&s);
	csv("\xef\xbb\xbfiops\n5\n", NULL, &s, &e);
	ok(SAME(&s, 5), "csv: UTF-8 byte order mark");
	import_series_free(&s);
	csv(" round , iops \n1,  2  \n", NULL, &s, &e);
	ok(SAME(&s, 2), "csv: blanks around names and values are trimmed");
	import_series_free(&s);

	/* quoting: a comma in a name, doubled quotes, a line break in a field */
	is_int(csv("round,\"iops, total\",note\n"
		   "1,\"1500\",\"a \"\"quoted\"\" note\"\n"
		   "2, 1600 ,\"two\nlines\"\n"
		   "3,\"1700\" ,x\n",
		   "iops, total", &s, &e),
	       0, "csv: RFC 4180 quoting");
	ok(SAME(&s, 1500, 1600, 1700), "csv: quoted values 1500 1600 1700");
	import_series_free(&s);
	/* the record after the two-line field starts on line 5 */
	fails(csv("iops,note\n1,a\n2,\"x\ny\"\nbad,b\n", NULL, &s, &e), &e, 5, "'bad'",
	      "line numbers count line breaks inside quotes");

	csv("iops\n1.5e3\n+7\n-0\n.5\n5.\n0\n", NULL, &s, &e);
	ok(SAME(&s, 1500, 7, 0, 0.5, 5, 0), "csv: 1.5e3 +7 -0 .5 5. 0");
	ok(!signbit(s.values[2]), "csv: -0 is stored as +0");
	import_series_free(&s);
}

static void test_csv_errors(void)
{
	struct import_series s, keep;
	struct import_error e;
	char big[2048];
	size_t o = 0;

	fails(csv("round,write_iops,lat_us\n1,2,3\n", NULL, &s, &e), &e, 1, "no column 'iops'",
	      "missing column");
	ok(strstr(e.msg, "'round', 'write_iops', 'lat_us'") != NULL,
	   "missing column: lists the columns found (%s)", e.msg);
	fails(csv("iops,IOPS\n1,2\n", NULL, &s, &e), &e, 1, "fields 1 and 2", "duplicate column");

	for (int i = 0; i < 100; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%scolumn_%d", i ? "," : "", i);
	snprintf(big + o, sizeof(big) - o, "\n");
	fails(csv(big, NULL, &s, &e), &e, 1, "column_0", "missing column among 100");
	ok(strlen(e.msg) < sizeof(e.msg) && strstr(e.msg, ", ..."),
	   "a long column list ends in ', ...'");

	fails(csv("round,iops\n1,100\n2,abc\n", NULL, &s, &e), &e, 3, "column 'iops': 'abc' is not",
	      "non-numeric value");
	fails(csv("round,iops\n1,100\n2,-5\n", NULL, &s, &e), &e, 3, "'-5' is negative",
	      "negative value");
	fails(csv("iops\n1\ninf\n", NULL, &s, &e), &e, 3, "'inf' is not finite", "inf");
	fails(csv("iops\nNaN\n", NULL, &s, &e), &e, 2, "not finite", "NaN");
	fails(csv("iops\n1e999\n", NULL, &s, &e), &e, 2, "out of range", "1e999");
	fails(csv("iops\n0x10\n", NULL, &s, &e), &e, 2, "'0x10' is not a number", "hex");
	fails(csv("iops\n1 2\n", NULL, &s, &e), &e, 2, "not a number", "two numbers");
	fails(csv("iops\n1e\n", NULL, &s, &e), &e, 2, "not a number", "exponent without digits");
	fails(csv("round,iops\n1,\n", NULL, &s, &e), &e, 2, "column 'iops': empty", "empty value");
	fails(csv("round,iops\n1,100\n2,200,5\n", NULL, &s, &e), &e, 3, "3 fields, expected 2",
	      "too many fields");
	fails(csv("round,iops\n1,100\n2\n", NULL, &s, &e), &e, 3, "1 field, expected 2",
	      "too few fields");
	fails(csv("iops\n1\n\n2\n", NULL, &s, &e), &e, 3, "blank line", "blank line between rows");
	fails(csv("", NULL, &s, &e), &e, 1, "empty file", "empty file");
	fails(csv("\n1\n", NULL, &s, &e), &e, 1, "blank first line", "blank header");
	fails(csv("round,iops\n", NULL, &s, &e), &e, 1, "no data rows", "header only");
	fails(csv("iops\n1\n\"12\n3\n", NULL, &s, &e), &e, 3, "unterminated", "open quote");
	fails(csv("iops\n\"12\"x\n", NULL, &s, &e), &e, 2, "after a closing quote",
	      "text after a closing quote");
	fails(csv("iops\n1\"2\n", NULL, &s, &e), &e, 2, "inside an unquoted field", "stray quote");
	fails(csv("iops\n\"\x01\x02\"\n", NULL, &s, &e), &e, 2, "'?\?' is not a number",
	      "control characters are shown as '?'");

	/* nothing written on failure; a NULL error is fine */
	memset(&s, 0x5a, sizeof(s));
	memcpy(&keep, &s, sizeof(s));
	csv("iops\nx\n", NULL, &s, NULL);
	ok(!memcmp(&s, &keep, sizeof(s)), "the series is not written on failure");

	/* a stream that cannot be read: -EIO */
	{
		char buf[16] = "iops\n1\n";
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		is_int(import_csv(f, NULL, &s, &e), -EIO, "write-only stream: -EIO");
		fclose(f);
	}
	is_int(import_csv(NULL, NULL, &s, &e), -EINVAL, "NULL stream: -EINVAL");
}

static void test_fio_averaged(void)
{
	struct import_series s;
	struct import_error e;
	/*
	 * 500 ms windows, reads (0) and writes (1), rounds of 1 s:
	 * round 1 (0, 1000]: reads (100 + 110) / 2 = 105, writes (200 + 210) / 2
	 * = 205 -> 310; round 2: 125 + 225 = 350.  (Averaging every entry would
	 * give 155, summing them 620.)
	 */
	static const char two_rounds[] = "500, 100, 0, 0, 0\n500, 200, 1, 0, 0\n"
					 "1000, 110, 0, 0, 0\n1000, 210, 1, 0, 0\n"
					 "1500, 120, 0, 0, 0\n1500, 220, 1, 0, 0\n"
					 "2000, 130, 0, 0, 0\n2000, 230, 1, 0, 0\n";
	char text[1024];

	is_int(fiolog(two_rounds, "job_iops.1.log", IMPORT_LOG_DETECT, 1, &s, &e), 0,
	       "fio iops log: 0");
	ok(SAME(&s, 310, 350), "fio iops: per-direction averages added: 310 350");
	ok(s.kind == IMPORT_LOG_IOPS && !strcmp(s.unit, "IOPS") && !s.per_io && s.entries == 8 &&
		   s.jobs == 1 && !s.partial_dropped,
	   "fio iops: kind, unit, averaged, 8 entries, 1 job, nothing dropped");
	import_series_free(&s);

	/* a third round reaching 2400 of 3000 ms: the smallest gap is 400 ms,
	 * 2400 < 3000 - 400, dropped; it covered 0.4 s */
	snprintf(text, sizeof(text), "%s2400, 140, 0, 0, 0\n2400, 240, 1, 0, 0\n", two_rounds);
	fiolog(text, NULL, IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 310, 350), "partial last round dropped");
	ok(s.partial_dropped, "partial_dropped set");
	is_dbl(s.partial_s, 0.4, 1e-12, "partial round covered 0.4 s");
	import_series_free(&s);

	/* ... and a complete third round: (140 + 150) / 2 + (240 + 250) / 2 = 390 */
	snprintf(text, sizeof(text),
		 "%s2500, 140, 0, 0, 0\n2500, 240, 1, 0, 0\n3000, 150, 0, 0, 0\n"
		 "3000, 250, 1, 0, 0\n",
		 two_rounds);
	fiolog(text, NULL, IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 310, 350, 390) && !s.partial_dropped, "complete third round kept: 390");
	import_series_free(&s);

	/*
	 * 3 s windows, rounds of 10 s: the second round's last window ends at
	 * 18 s, 2 s short of 20 s: within the log's 3 s sampling interval, so
	 * the round is complete (1 %% of a round alone would drop it).
	 */
	fiolog("3000, 100, 1, 0\n6000, 100, 1, 0\n9000, 100, 1, 0\n"
	       "12000, 200, 1, 0\n15000, 200, 1, 0\n18000, 200, 1, 0\n",
	       NULL, IMPORT_LOG_IOPS, 10, &s, &e);
	ok(SAME(&s, 100, 200) && !s.partial_dropped,
	   "last round within one sampling interval of its end is kept");
	import_series_free(&s);

	/* a round of 2 s holds both: reads 115, writes 215 -> 330 */
	fiolog(two_rounds, NULL, IMPORT_LOG_IOPS, 2, &s, &e);
	ok(SAME(&s, 330), "rounds of 2 s: 330");
	import_series_free(&s);

	/* bw: KiB/s -> MB/s: 1000 KiB/s = 1.024 MB/s */
	fiolog("1000, 1000, 1, 0, 0\n2000, 2000, 1, 0, 0\n", "x_bw.log", IMPORT_LOG_DETECT, 1, &s,
	       &e);
	ok(SAME(&s, 1.024, 2.048) && s.kind == IMPORT_LOG_BW && !strcmp(s.unit, "MB/s"),
	   "fio bw: 1000 and 2000 KiB/s are 1.024 and 2.048 MB/s");
	import_series_free(&s);

	/* latency: all entries averaged, ns -> us: (50000 + 70000) / 2 = 60 us */
	fiolog("1000, 50000, 0, 0, 0\n1000, 70000, 1, 0, 0\n2000, 60000, 0, 0, 0\n"
	       "2000, 80000, 1, 0, 0\n",
	       "x_clat.3.log", IMPORT_LOG_DETECT, 1, &s, &e);
	ok(SAME(&s, 60, 70) && s.kind == IMPORT_LOG_CLAT && !strcmp(s.unit, "us"),
	   "fio clat: directions averaged, not added: 60 70 us");
	import_series_free(&s);

	/* per_job_logs=0: job 2 follows job 1, time restarts; jobs are added */
	fiolog("1000, 100, 1, 0\n2000, 100, 1, 0\n1000, 50, 1, 0\n2000, 70, 1, 0\n", NULL,
	       IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 150, 170) && s.jobs == 2, "two jobs in one log: 100 + 50, 100 + 70; 2 jobs");
	import_series_free(&s);

	/* older (4 fields) and newer (hex priority) formats, CRLF, blank tail */
	fiolog("1000, 10, 1, 0\r\n2000, 20, 1, 0\r\n\r\n\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 10, 20), "4 fields, CRLF, blank lines at the end");
	import_series_free(&s);
	fiolog("1000, 10, 1, 0, 0, 0x0000\n2000, 20, 1, 0, 0, 0x2001\n", NULL, IMPORT_LOG_IOPS, 1,
	       &s, &e);
	ok(SAME(&s, 10, 20), "6 fields with a hex priority");
	import_series_free(&s);
}

static void test_fio_per_io(void)
{
	struct import_series s;
	struct import_error e;

	/*
	 * One entry per I/O (value 1, block size 4096), rounds of 1 s:
	 * round 1: 3 I/Os, round 2: 5, round 3: 2 ending at 2991 ms; the
	 * smallest gap is 6 ms, so the tolerance is 1 % = 10 ms: 2991 >= 2990.
	 */
	is_int(fiolog("100, 1, 0, 4096, 0\n500, 1, 1, 4096, 0\n900, 1, 1, 4096, 0\n"
		      "1100, 1, 1, 4096, 0\n1300, 1, 0, 4096, 0\n1500, 1, 1, 4096, 0\n"
		      "1700, 1, 1, 4096, 0\n1900, 1, 1, 4096, 0\n"
		      "2985, 1, 1, 4096, 0\n2991, 1, 1, 4096, 0\n",
		      "a_iops.1.log", IMPORT_LOG_DETECT, 1, &s, &e),
	       0, "per-I/O iops log: 0");
	ok(SAME(&s, 3, 5, 2) && s.per_io && !s.partial_dropped,
	   "per-I/O iops: entries per second 3 5 2, last round kept within 1 %%");
	import_series_free(&s);
	/* the same ending at 2989: 11 ms short of 3000, more than the 10 ms
	 * tolerance (the smallest gap, 4 ms, is smaller): dropped */
	fiolog("100, 1, 0, 4096\n900, 1, 1, 4096\n1100, 1, 1, 4096\n1900, 1, 1, 4096\n"
	       "2985, 1, 1, 4096\n2989, 1, 1, 4096\n",
	       NULL, IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 2, 2) && s.partial_dropped, "per-I/O: last round 11 ms short is dropped");
	is_dbl(s.partial_s, 0.989, 1e-12, "per-I/O: dropped round covered 0.989 s");
	import_series_free(&s);

	/* rounds of 0.5 s: 3 I/Os in (0, 500] ms -> 6 IOPS */
	fiolog("100, 1, 0, 4096\n400, 1, 0, 4096\n500, 1, 0, 4096\n", NULL, IMPORT_LOG_IOPS, 0.5,
	       &s, &e);
	ok(SAME(&s, 6), "per-I/O: 3 I/Os in 0.5 s = 6 IOPS");
	import_series_free(&s);

	/* a round without I/O is 0 IOPS, not an error */
	fiolog("500, 1, 1, 4096\n1000, 1, 1, 4096\n2500, 1, 1, 4096\n3000, 1, 1, 4096\n", NULL,
	       IMPORT_LOG_IOPS, 1, &s, &e);
	ok(SAME(&s, 2, 0, 2), "per-I/O: an idle round is 0 IOPS");
	import_series_free(&s);

	/* bw: the block sizes count, not the per-I/O rates: 12288 B in 1 s */
	fiolog("200, 5000, 1, 4096\n1000, 7000, 1, 8192\n", "z_bw.1.log", IMPORT_LOG_DETECT, 1, &s,
	       &e);
	ok(SAME(&s, 0.012288) && s.per_io, "per-I/O bw: 4096 + 8192 bytes in 1 s = 0.012288 MB/s");
	import_series_free(&s);

	/* lat: the mean of the I/Os, (1000 + 3000) / 2 ns = 2 us */
	fiolog("200, 1000, 0, 4096\n1000, 3000, 1, 4096\n", "z_lat.1.log", IMPORT_LOG_DETECT, 1, &s,
	       &e);
	ok(SAME(&s, 2) && s.kind == IMPORT_LOG_LAT, "per-I/O lat: mean 2 us");
	import_series_free(&s);
}

static void test_fio_errors(void)
{
	struct import_series s;
	struct import_error e;

	fails(fiolog("1000, 1, 0, 0\nabc, 1, 0, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 2,
	      "time (msec): 'abc' is not a number", "bad time");
	fails(fiolog("1000, -5, 0, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "value: '-5' is negative", "negative value");
	fails(fiolog("1000, nan, 0, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "value: 'nan' is not finite", "NaN value");
	fails(fiolog("1000, 5, 3, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1, "direction '3'",
	      "direction 3");
	fails(fiolog("1000, 5, 0.5, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "direction '0.5'", "direction 0.5");
	fails(fiolog("1000, 5, 1, 4096.5\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "block size '4096.5'", "fractional block size");
	fails(fiolog("1000, 5, 1, \n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "block size: empty", "empty block size");
	fails(fiolog("1000, 5, 1\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1,
	      "3 fields, expected 4 to 7", "3 fields");
	fails(fiolog("1,2,3,4,5,6,7,8\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 1, "8 fields",
	      "8 fields");
	fails(fiolog("1000, 5, 1, 0, 0\n2000, 5, 1, 0, 0, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e),
	      &e, 2, "the first entry (line 1) has 5", "field count changes");
	fails(fiolog("1000, 5, 1, 0\n2000, 1, 1, 4096\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 2,
	      "block size 4096", "averaged then per-I/O entries");
	fails(fiolog("1000, 5, 1, 0\n\n2000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 2,
	      "blank line", "blank line inside");
	fails(fiolog("", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 0, "no entries", "empty log");
	fails(fiolog("\n\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 0, "no entries", "only blanks");
	fails(fiolog("100, 1, 0, 4096\n500, 1, 0, 4096\n", NULL, IMPORT_LOG_IOPS, 1, &s, &e), &e, 0,
	      "covers 0.500 s, less than one round", "shorter than a round");
	fails(fiolog("1000, 5, 1, 0\n2000, 5, 1, 0\n4000, 5, 1, 0\n5000, 5, 1, 0\n", NULL,
		     IMPORT_LOG_IOPS, 1, &s, &e),
	      &e, 0, "round 3 (2 to 3 s) has no entries", "averaged log with a hole");
	fails(fiolog("2000, 5, 1, 0\n4000, 5, 1, 0\n6000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, 1, &s,
		     &e),
	      &e, 0,
	      "entries are 2000 ms apart (its log_avg_msec), more than a round of 1 s: give "
	      "--round 2 or more",
	      "an averaged log's interval longer than a round");
	fails(fiolog("1000, 5, 1, 4096\n3000, 5, 1, 4096\n", NULL, IMPORT_LOG_LAT, 1, &s, &e), &e,
	      0, "round 2", "per-I/O latency log with a hole");
	fails(fiolog("1e12, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, 0.001, &s, &e), &e, 1,
	      "past 4194304 rounds", "absurd time stamp");
	fails(fiolog("1000, 5, 1, 0\n", "job.log", IMPORT_LOG_DETECT, 1, &s, &e), &e, 0,
	      "cannot tell the log kind from the name 'job.log'", "undetectable name");
	fails(fiolog("1000, 5, 1, 0\n", NULL, IMPORT_LOG_DETECT, 1, &s, &e), &e, 0,
	      "cannot tell the log kind", "no name to detect from");
	fails(fiolog("1000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, 0, &s, &e), &e, 0, "round length",
	      "round of 0 s");
	fails(fiolog("1000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, -1, &s, &e), &e, 0, "round length",
	      "negative round");
	fails(fiolog("1000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, NAN, &s, &e), &e, 0, "round length",
	      "NaN round");
	fails(fiolog("1000, 5, 1, 0\n", NULL, IMPORT_LOG_IOPS, 0.0005, &s, &e), &e, 0,
	      "round length", "round below 1 ms");
	is_int(fiolog("1000, 5, 1, 0\n", NULL, (enum import_log_kind)99, 1, &s, &e), -EINVAL,
	       "unknown kind: -EINVAL");
	{
		char buf[32] = "1000, 5, 1, 0\n";
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		is_int(import_fiolog(f, NULL, IMPORT_LOG_IOPS, 1, &s, &e), -EIO,
		       "write-only stream: -EIO");
		fclose(f);
	}
}

/* plateau's own samples --csv: rows of intervals cut short are not rounds */
static void test_csv_partial(void)
{
	struct import_series s;
	struct import_error e;

	is_int(csv("round,iops,partial\n1,100,false\n2,110,false\n3,90,true\n", NULL, &s, &e), 0,
	       "csv with a partial column: 0");
	ok(SAME(&s, 100, 110) && s.partial_rows == 1 && s.entries == 3,
	   "csv: the partial=true row left out (2 values of 3 rows, 1 partial)");
	import_series_free(&s);
	csv("iops,Partial\n5,0\n6,1\n7,no\n8,YES\n", NULL, &s, &e);
	ok(SAME(&s, 5, 7) && s.partial_rows == 2, "csv: partial as 0/1, yes/no, any case");
	import_series_free(&s);
	csv("partial,iops\n3,4\n", "partial", &s, &e);
	ok(SAME(&s, 3) && !s.partial_rows, "csv: the column asked for is read, not a filter");
	import_series_free(&s);
	fails(csv("iops,partial\n1,false\n2,maybe\n", NULL, &s, &e), &e, 3,
	      "column 'partial': 'maybe' is not true or false", "partial neither true nor false");
	fails(csv("iops,partial\n1,true\n", NULL, &s, &e), &e, 1,
	      "no data rows after the header but 1 partial one", "only a partial row");
}

/*
 * fio's averaged logs are stamped a few ms off the window's end (a 1 s log:
 * 1000, 2000, 3001 ms): each entry goes to the round that holds the middle
 * of its window, so --round 1 gives a round per entry.
 */
static void test_fio_jitter(void)
{
	struct import_series s;
	struct import_error e;

	is_int(fiolog("1000, 10, 1, 0, 0\n2000, 20, 1, 0, 0\n3001, 30, 1, 0, 0\n", NULL,
		      IMPORT_LOG_IOPS, 1, &s, &e),
	       0, "1000, 2000, 3001 ms with rounds of 1 s: 0 (was: round 3 has no entries)");
	ok(SAME(&s, 10, 20, 30) && !s.partial_dropped, "  three rounds, the last one kept");
	is_dbl(s.interval_ms, 1000.5, 0, "  the log's interval: the median gap, 1000.5 ms");
	import_series_free(&s);

	/* early and late stamps, reads and writes a ms apart */
	is_int(fiolog("999, 10, 1, 0\n1001, 1, 0, 0\n2000, 2, 0, 0\n2001, 20, 1, 0\n"
		      "2998, 30, 1, 0\n3003, 3, 0, 0\n3999, 40, 1, 0\n4001, 4, 0, 0\n",
		      NULL, IMPORT_LOG_IOPS, 1, &s, &e),
	       0, "stamps a few ms early and late, per direction: 0");
	ok(SAME(&s, 11, 22, 33, 44) && s.jobs == 1,
	   "  reads and writes added per round: 11 22 33 44");
	import_series_free(&s);

	/* 500 ms windows in rounds of 1 s, late by up to 4 ms: two a round */
	is_int(fiolog("502, 10, 1, 0\n1001, 20, 1, 0\n1503, 30, 1, 0\n2004, 40, 1, 0\n", NULL,
		      IMPORT_LOG_IOPS, 1, &s, &e),
	       0, "500 ms windows stamped late: 0");
	ok(SAME(&s, 15, 35), "  (10 + 20) / 2, (30 + 40) / 2");
	import_series_free(&s);

	/* jittered bw log, two jobs one after another (per_job_logs=0) */
	is_int(fiolog("1000, 1000, 1, 0\n2001, 1000, 1, 0\n1002, 2000, 1, 0\n1999, 2000, 1, 0\n",
		      "x_bw.log", IMPORT_LOG_DETECT, 1, &s, &e),
	       0, "two jobs with jitter: 0");
	ok(SAME(&s, 3.072, 3.072) && s.jobs == 2, "  3000 KiB/s a round in both rounds, 2 jobs");
	import_series_free(&s);
}

/* fio --output-format=json: a job's steadystate block, as fio 3.33 writes it */
#define FIOJSON_HEAD                                                    \
	"{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n" \
	"      \"jobname\" : \"ss-1\",\n      \"groupid\" : 0,\n"
#define FIOJSON_SS(attained, iops, bw)                                            \
	"      \"steadystate\" : {\n        \"ss\" : \"iops_slope:0.300000%\",\n" \
	"        \"duration\" : 4,\n        \"attained\" : " attained ",\n"       \
	"        \"criterion\" : \"0.2%\",\n        \"max_deviation\" : 0.0,\n"   \
	"        \"slope\" : 1.5,\n        \"data\" : {\n"                        \
	"          \"bw_mean\" : 8192000,\n          \"iops_mean\" : 2000,\n"     \
	"          \"iops\" : " iops ",\n          \"bw\" : " bw "\n        }\n      }\n"

static int fiojson(const char *text, const char *series, const char *job, struct import_series *s,
		   struct import_error *e)
{
	return import_fiojson(text, strlen(text), series, job, s, e);
}

static void test_fiojson(void)
{
	static const char one[] =
		FIOJSON_HEAD FIOJSON_SS("1", "[2010, 1993, 2000, 2007]",
					"[8233001, 8167399, 8192000, 8220700]") "    }\n  ]\n}\n";
	static const char two[] = FIOJSON_HEAD FIOJSON_SS(
		"1", "[1, 2]", "[4096, 8192]") "    },\n    {\n"
					       "      \"jobname\" : \"plain\"\n    },\n    {\n"
					       "      \"jobname\" : \"ss-3\",\n" FIOJSON_SS(
						       "1", "[3, 4]", "[1, 2]") "    }\n  ]\n}\n";
	static const char unfilled[] = FIOJSON_HEAD FIOJSON_SS(
		"0", "[1014, 987, 0, 0]", "[4153690, 4042805, 0, 0]") "    }\n  ]\n}\n";
	struct import_series s;
	struct import_error e;

	ok(import_looks_fiojson(" \n{", 3) && !import_looks_fiojson("iops\n1\n", 7) &&
		   !import_looks_fiojson("1000, 1, 0, 0\n", 14),
	   "fio JSON told from CSV and logs by its '{'");
	is_int(fiojson(one, NULL, NULL, &s, &e), 0, "fio JSON: 0");
	ok(SAME(&s, 2010, 1993, 2000, 2007) && !strcmp(s.unit, "IOPS") && !strcmp(s.job, "ss-1"),
	   "fio JSON: the job's iops intervals, oldest first");
	is_dbl(s.interval_ms, 1000, 0, "fio JSON: ss_dur 4 s over 4 intervals: 1 s rounds");
	ok(s.fio_attained && !strcmp(s.fio_ss, "iops_slope:0.300000%") && !s.zeros_dropped,
	   "fio JSON: fio's setting and verdict kept");
	import_series_free(&s);
	fiojson(one, "bw", NULL, &s, &e);
	ok(SAME(&s, 8.233001, 8.167399, 8.192, 8.2207) && !strcmp(s.unit, "MB/s"),
	   "fio JSON bw: bytes/s as MB/s");
	import_series_free(&s);
	fails(fiojson(one, "lat", NULL, &s, &e), &e, 0, "no \"lat_ns\" array", "no lat_ns");
	fails(fiojson(one, "p99", NULL, &s, &e), &e, 0, "iops, bw or lat", "an unknown series");

	fails(fiojson(two, NULL, NULL, &s, &e), &e, 0,
	      "2 jobs have steady-state data ('ss-1', "
	      "'ss-3'): pick one with --job",
	      "two jobs with data");
	is_int(fiojson(two, NULL, "ss-3", &s, &e), 0, "--job by name");
	ok(SAME(&s, 3, 4), "  the job named");
	import_series_free(&s);
	is_int(fiojson(two, NULL, "1", &s, &e), 0, "--job by position");
	ok(SAME(&s, 1, 2), "  the first job");
	import_series_free(&s);
	fails(fiojson(two, NULL, "2", &s, &e), &e, 0, "job 'plain' has no steadystate block",
	      "a job without ss");
	fails(fiojson(two, NULL, "4", &s, &e), &e, 0, "no job '4' (by name, or 1 to 3",
	      "a position past the jobs");

	is_int(fiojson(unfilled, NULL, NULL, &s, &e), 0, "an unfilled window: 0");
	ok(SAME(&s, 1014, 987) && s.zeros_dropped == 2 && !s.fio_attained,
	   "  the trailing zero intervals of a job that ended early left out");
	import_series_free(&s);

	fails(fiojson("{\"jobs\": [{\"jobname\": \"x\"}]}", NULL, NULL, &s, &e), &e, 0,
	      "no job has a steadystate block", "no steady-state data");
	fails(fiojson("{\"x\": 1}", NULL, NULL, &s, &e), &e, 0, "no \"jobs\" array", "not fio's");
	fails(fiojson("{\n\"jobs\": [\n1,\n", NULL, NULL, &s, &e), &e, 4, "not valid JSON",
	      "cut short: the line");
	fails(fiojson("{\"jobs\": []}\n{}", NULL, NULL, &s, &e), &e, 2,
	      "text after the JSON document", "two documents");
	fails(fiojson("{\"jobs\": [{\"jobname\": \"x\", \"steadystate\": {\"duration\": 2, "
		      "\"data\": {\"iops\": [1, -2]}}}]}",
		      NULL, NULL, &s, &e),
	      &e, 0, "steadystate.data.iops[1]: expected a number >= 0, not -2",
	      "a negative value");
	fails(fiojson("{\"jobs\": [{\"jobname\": \"x\", \"steadystate\": {\"data\": "
		      "{\"iops\": [1]}}}]}",
		      NULL, NULL, &s, &e),
	      &e, 0, "steadystate.duration", "no duration");
}

static void test_kinds(void)
{
	is_int(import_log_kind_detect("/tmp/run/job_iops.1.log"), IMPORT_LOG_IOPS,
	       "NAME_iops.1.log");
	is_int(import_log_kind_detect("job_bw.log"), IMPORT_LOG_BW, "NAME_bw.log (per_job_logs=0)");
	is_int(import_log_kind_detect("a_clat.12.log"), IMPORT_LOG_CLAT, "NAME_clat.12.log");
	is_int(import_log_kind_detect("a_slat.1.log"), IMPORT_LOG_SLAT, "NAME_slat.1.log");
	is_int(import_log_kind_detect("a_lat.1.log"), IMPORT_LOG_LAT, "NAME_lat.1.log");
	is_int(import_log_kind_detect("a_clat_hist.1.log"), -EINVAL, "histogram logs: no");
	is_int(import_log_kind_detect("iops.log"), -EINVAL, "no NAME_ prefix: no");
	is_int(import_log_kind_detect("x_iops.1.log.gz"), -EINVAL, "compressed: no");
	is_int(import_log_kind_detect("x_iops.1.txt"), -EINVAL, "not .log: no");
	is_int(import_log_kind_detect("run_iops.d/x.log"), -EINVAL, "the directory does not count");
	is_int(import_log_kind_detect("x_iops.a.log"), -EINVAL, "a non-numeric job index: no");
	is_int(import_log_kind_detect(NULL), -EINVAL, "NULL name");
	is_int(import_log_kind_parse("iops"), IMPORT_LOG_IOPS, "parse iops");
	is_int(import_log_kind_parse("bw"), IMPORT_LOG_BW, "parse bw");
	is_int(import_log_kind_parse("lat"), IMPORT_LOG_LAT, "parse lat");
	is_int(import_log_kind_parse("clat"), IMPORT_LOG_CLAT, "parse clat");
	is_int(import_log_kind_parse("slat"), IMPORT_LOG_SLAT, "parse slat");
	is_int(import_log_kind_parse("detect"), -EINVAL, "'detect' is not a kind to parse");
	is_int(import_log_kind_parse("IOPS"), -EINVAL, "parse is case-sensitive");
	is_str(import_log_kind_name(IMPORT_LOG_CLAT), "clat", "name of clat");
	is_str(import_log_kind_name((enum import_log_kind)42), "unknown", "name out of range");
}

int main(void)
{
	test_csv_ok();
	test_csv_errors();
	test_csv_partial();
	test_fio_averaged();
	test_fio_jitter();
	test_fiojson();
	test_fio_per_io();
	test_fio_errors();
	test_kinds();
	return done_testing();
}
