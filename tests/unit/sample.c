// SPDX-License-Identifier: MIT
/*
 * sample: every tracking metric's name, unit, direction and value, from a
 * hand-built sample whose every figure differs, so a metric that reads the
 * wrong direction or the wrong statistic shows.
 */
#include <errno.h>
#include <string.h>

#include "sample.h"
#include "tap.h"

struct want {
	const char *name;
	int m;
	const char *unit;
	enum sample_dir dir;
	double value;
};

/*
 * The sample: 2 s long; reads 1000 I/Os and 4,096,000 bytes, writes 3000
 * and 24,576,000, all 4000 and 28,672,000.  Latencies in ns, distinct per
 * direction: read 1xxxx, write 2xxxx, all 3xxxx.
 */
static void fill(struct sample *s)
{
	static const uint64_t base[SAMPLE_NDIRS] = {10000, 20000, 30000};
	static const uint64_t ios[SAMPLE_NDIRS] = {1000, 3000, 4000};
	static const uint64_t bytes[SAMPLE_NDIRS] = {4096000, 24576000, 28672000};

	memset(s, 0, sizeof(*s));
	s->seq = 1;
	s->start_ns = 1000000000000LL;
	s->end_ns = s->start_ns + 2000000000LL;
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		struct sample_stats *st = &s->st[d];

		st->ios = ios[d];
		st->bytes = bytes[d];
		st->lat_mean_ns = (double)base[d] + 500.5;
		st->lat_stddev_ns = (double)base[d] + 250.25;
		st->lat_min_ns = base[d] + 1;
		st->lat_max_ns = base[d] + 9999;
		for (int p = 0; p < SAMPLE_NPCT; p++)
			st->lat_pct_ns[p] = base[d] + 1000 * (uint64_t)(p + 1) + 7;
	}
}

#define W(n, m, u, d, v)      \
	{                     \
		n, m, u, d, v \
	}
#define WDIR(pfx, P, d, b)                                                                         \
	W(pfx "iops", SAMPLE_METRIC_##P##IOPS, "IOPS", d, 0),                                      \
		W(pfx "bw", SAMPLE_METRIC_##P##BW, "MB/s", d, 0),                                  \
		W(pfx "lat", SAMPLE_METRIC_##P##LAT, "us", d, ((b) + 500.5) / 1e3),                \
		W(pfx "lat-min", SAMPLE_METRIC_##P##LAT_MIN, "us", d, ((b) + 1) / 1e3),            \
		W(pfx "lat-max", SAMPLE_METRIC_##P##LAT_MAX, "us", d, ((b) + 9999) / 1e3),         \
		W(pfx "lat-stddev", SAMPLE_METRIC_##P##LAT_STDDEV, "us", d, ((b) + 250.25) / 1e3), \
		W(pfx "p50", SAMPLE_METRIC_##P##P50, "us", d, ((b) + 1007) / 1e3),                 \
		W(pfx "p90", SAMPLE_METRIC_##P##P90, "us", d, ((b) + 2007) / 1e3),                 \
		W(pfx "p99", SAMPLE_METRIC_##P##P99, "us", d, ((b) + 3007) / 1e3),                 \
		W(pfx "p99.9", SAMPLE_METRIC_##P##P999, "us", d, ((b) + 4007) / 1e3),              \
		W(pfx "p99.99", SAMPLE_METRIC_##P##P9999, "us", d, ((b) + 5007) / 1e3)

static const struct want wants[] = {
	WDIR("", , SAMPLE_ALL, 30000),
	WDIR("read.", READ_, SAMPLE_READ, 10000),
	WDIR("write.", WRITE_, SAMPLE_WRITE, 20000),
};

#define NWANTS (sizeof(wants) / sizeof(wants[0]))

static double want_value(const struct want *w)
{
	/* IOPS and MB/s of the 2 s interval */
	static const double iops[SAMPLE_NDIRS] = {500, 1500, 2000};
	static const double mbps[SAMPLE_NDIRS] = {2.048, 12.288, 14.336};

	if (!strcmp(w->unit, "IOPS"))
		return iops[w->dir];
	if (!strcmp(w->unit, "MB/s"))
		return mbps[w->dir];
	return w->value;
}

static void test_every_metric(void)
{
	struct sample s;
	int seen[SAMPLE_METRIC_N] = {0};

	fill(&s);
	is_int((int)NWANTS, SAMPLE_METRIC_N, "every metric is listed here once (%d)",
	       SAMPLE_METRIC_N);
	for (size_t i = 0; i < NWANTS; i++) {
		const struct want *w = &wants[i];
		int m = sample_metric_parse(w->name);

		is_int(m, w->m, "parse '%s'", w->name);
		if (m < 0)
			continue;
		seen[m]++;
		is_str(sample_metric_name((enum sample_metric)m), w->name, "name of %d", m);
		is_str(sample_metric_unit((enum sample_metric)m), w->unit, "unit of %s", w->name);
		is_int(sample_metric_dir((enum sample_metric)m), w->dir, "direction of %s",
		       w->name);
		is_dbl(sample_metric(&s, (enum sample_metric)m), want_value(w), 1e-9, "value of %s",
		       w->name);
		is_int(sample_metric_of(sample_metric_dir((enum sample_metric)m),
					sample_metric_stat((enum sample_metric)m),
					sample_metric_pct((enum sample_metric)m)),
		       m, "%s: sample_metric_of(its direction, statistic, percentile)", w->name);
	}
	for (int m = 0; m < SAMPLE_METRIC_N; m++)
		if (seen[m] != 1)
			ok(0, "metric %d (%s) parsed from exactly one name, not %d", m,
			   sample_metric_name((enum sample_metric)m), seen[m]);
}

static void test_compat(void)
{
	struct sample s;

	fill(&s);
	/* the six historical metrics keep their numbers (plans, stored
	 * params and the verdict's arrays name them) */
	is_int(SAMPLE_METRIC_IOPS, 0, "iops is 0");
	is_int(SAMPLE_METRIC_BW, 1, "bw is 1");
	is_int(SAMPLE_METRIC_LAT, 2, "lat is 2");
	is_int(SAMPLE_METRIC_LAT_MAX, 3, "lat-max is 3");
	is_int(SAMPLE_METRIC_LAT_STDDEV, 4, "lat-stddev is 4");
	is_int(SAMPLE_METRIC_P99, 5, "p99 is 5");
	/* aliases, alone and with a direction */
	is_int(sample_metric_parse("mbps"), SAMPLE_METRIC_BW, "mbps is bw");
	is_int(sample_metric_parse("lat-mean"), SAMPLE_METRIC_LAT, "lat-mean is lat");
	is_int(sample_metric_parse("read.mbps"), SAMPLE_METRIC_READ_BW, "read.mbps is read.bw");
	is_int(sample_metric_parse("write.lat-mean"), SAMPLE_METRIC_WRITE_LAT,
	       "write.lat-mean is write.lat");
	/* p99 of all I/O is st[SAMPLE_ALL].lat_pct_ns[2], as before */
	is_dbl(sample_metric(&s, SAMPLE_METRIC_P99), 33.007, 1e-12, "p99: all I/O's 99th");
}

static void test_bad(void)
{
	static const char *const bad[] = {
		"",	 "IOPS",    "read",	   "read.",	    "write.",  "all.iops",
		"p99.0", "p99.999", "p100",	   "read.read.p99", ".p99",    "read-p99",
		"p99 ",	 "readp99", "write.mbpsx", "lat-mean.read", "rw.iops", "read.p9",
	};
	struct sample s;

	is_int(sample_metric_parse(NULL), -EINVAL, "NULL is no metric");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(sample_metric_parse(bad[i]), -EINVAL, "'%s' is no metric", bad[i]);
	is_str(sample_metric_name(SAMPLE_METRIC_N), "?", "name out of range");
	is_str(sample_metric_unit((enum sample_metric) - 1), "?", "unit out of range");
	is_int(sample_metric_pct(SAMPLE_METRIC_IOPS), -1, "iops is no percentile");
	is_int(sample_metric_of(SAMPLE_READ, SAMPLE_STAT_PCT, SAMPLE_NPCT), -EINVAL,
	       "no 6th stored percentile");
	fill(&s);
	is_dbl(sample_metric(&s, SAMPLE_METRIC_N), 0, 0, "value out of range: 0");
	s.end_ns = s.start_ns;
	is_dbl(sample_metric(&s, SAMPLE_METRIC_READ_IOPS), 0, 0, "read.iops of no time: 0");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_WRITE_BW), 0, 0, "write.bw of no time: 0");
	is_dbl(sample_metric_convert(SAMPLE_METRIC_READ_P90, 12345, 0), 12.345, 1e-12,
	       "convert: a latency needs no time");
	is_dbl(sample_metric_convert(SAMPLE_METRIC_WRITE_BW, 3e6, 1.5), 2, 1e-12,
	       "convert: 3e6 bytes in 1.5 s are 2 MB/s");
	/* the names in the message are the ones parse takes */
	ok(strstr(sample_metric_names(), "p99.99") && strstr(sample_metric_names(), "read."),
	   "sample_metric_names() names the percentiles and the directions");
}

/* sample_summarize() keeps reads and writes apart: a read-only metric of a
 * write-only interval is 0, not the writes' figure */
static void test_summarize(void)
{
	static struct hist wr;
	struct sample s = {.start_ns = 1, .end_ns = 1000000001};

	hist_init(&wr);
	for (uint64_t v = 1; v <= 100; v++)
		hist_record(&wr, v * 1000);
	sample_summarize(&s, NULL, 0, &wr, 409600);
	is_dbl(sample_metric(&s, SAMPLE_METRIC_WRITE_IOPS), 100, 1e-9, "write.iops 100");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_READ_IOPS), 0, 0, "read.iops 0");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_READ_P99), 0, 0, "read.p99 of no reads: 0");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_WRITE_LAT_MIN), 1, 0, "write.lat-min 1 us");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_LAT_MIN), 1, 0, "lat-min 1 us");
	/* 99.9 % of 100 values: rank 100, the maximum (exact below 128 ns
	 * only, so within the bucket's 1/128) */
	is_dbl(sample_metric(&s, SAMPLE_METRIC_WRITE_P999), 100, 100.0 / 128,
	       "write.p99.9 of 1..100 us is 100 us");
	is_dbl(sample_metric(&s, SAMPLE_METRIC_P50), 50, 50.0 / 128, "p50 of 1..100 us is 50 us");
}

int main(void)
{
	test_every_metric();
	test_compat();
	test_bad();
	test_summarize();
	return done_testing();
}
