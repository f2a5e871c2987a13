// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sample.h"

const double sample_pcts[SAMPLE_NPCT] = {50.0, 90.0, 99.0, 99.9, 99.99};

static void sample_stats_from(struct sample_stats *st, const struct hist *h, uint64_t bytes)
{
	memset(st, 0, sizeof(*st));
	st->bytes = bytes;
	if (!h)
		return;
	st->ios = hist_count(h);
	st->lat_mean_ns = hist_mean(h);
	st->lat_stddev_ns = hist_stddev(h);
	st->lat_min_ns = hist_min(h);
	st->lat_max_ns = hist_max(h);
	for (int i = 0; i < SAMPLE_NPCT; i++)
		st->lat_pct_ns[i] = hist_percentile(h, sample_pcts[i]);
}

void sample_summarize(struct sample *s, const struct hist *rd, uint64_t rd_bytes,
		      const struct hist *wr, uint64_t wr_bytes)
{
	static __thread struct hist all;

	sample_stats_from(&s->st[SAMPLE_READ], rd, rd_bytes);
	sample_stats_from(&s->st[SAMPLE_WRITE], wr, wr_bytes);
	hist_init(&all);
	if (rd)
		hist_merge(&all, rd);
	if (wr)
		hist_merge(&all, wr);
	sample_stats_from(&s->st[SAMPLE_ALL], &all, rd_bytes + wr_bytes);
}

/* A metric: its name, direction, statistic and, for a percentile, its index
 * in sample_pcts.  Indexed by enum sample_metric. */
struct sample_metric_def {
	const char *name;
	enum sample_dir dir;
	enum sample_stat stat;
	int pct;
};

#define SM(n, d, st, p)     \
	{                   \
		n, d, st, p \
	}
#define SM_DIR(prefix, d)                                                                         \
	SM(prefix "iops", d, SAMPLE_STAT_IOPS, -1), SM(prefix "bw", d, SAMPLE_STAT_BW, -1),       \
		SM(prefix "lat", d, SAMPLE_STAT_LAT_MEAN, -1),                                    \
		SM(prefix "lat-min", d, SAMPLE_STAT_LAT_MIN, -1),                                 \
		SM(prefix "lat-max", d, SAMPLE_STAT_LAT_MAX, -1),                                 \
		SM(prefix "lat-stddev", d, SAMPLE_STAT_LAT_STDDEV, -1),                           \
		SM(prefix "p50", d, SAMPLE_STAT_PCT, 0), SM(prefix "p90", d, SAMPLE_STAT_PCT, 1), \
		SM(prefix "p99", d, SAMPLE_STAT_PCT, 2),                                          \
		SM(prefix "p99.9", d, SAMPLE_STAT_PCT, 3),                                        \
		SM(prefix "p99.99", d, SAMPLE_STAT_PCT, 4)

static const struct sample_metric_def sample_metrics[SAMPLE_METRIC_N] = {
	/* all I/O: the first six in their historical order */
	[SAMPLE_METRIC_IOPS] = SM("iops", SAMPLE_ALL, SAMPLE_STAT_IOPS, -1),
	[SAMPLE_METRIC_BW] = SM("bw", SAMPLE_ALL, SAMPLE_STAT_BW, -1),
	[SAMPLE_METRIC_LAT] = SM("lat", SAMPLE_ALL, SAMPLE_STAT_LAT_MEAN, -1),
	[SAMPLE_METRIC_LAT_MAX] = SM("lat-max", SAMPLE_ALL, SAMPLE_STAT_LAT_MAX, -1),
	[SAMPLE_METRIC_LAT_STDDEV] = SM("lat-stddev", SAMPLE_ALL, SAMPLE_STAT_LAT_STDDEV, -1),
	[SAMPLE_METRIC_P99] = SM("p99", SAMPLE_ALL, SAMPLE_STAT_PCT, 2),
	[SAMPLE_METRIC_LAT_MIN] = SM("lat-min", SAMPLE_ALL, SAMPLE_STAT_LAT_MIN, -1),
	[SAMPLE_METRIC_P50] = SM("p50", SAMPLE_ALL, SAMPLE_STAT_PCT, 0),
	[SAMPLE_METRIC_P90] = SM("p90", SAMPLE_ALL, SAMPLE_STAT_PCT, 1),
	[SAMPLE_METRIC_P999] = SM("p99.9", SAMPLE_ALL, SAMPLE_STAT_PCT, 3),
	[SAMPLE_METRIC_P9999] = SM("p99.99", SAMPLE_ALL, SAMPLE_STAT_PCT, 4),
	/* reads, then writes, in enum sample_stat order */
	SM_DIR("read.", SAMPLE_READ),
	SM_DIR("write.", SAMPLE_WRITE),
};

static int sample_metric_find(const char *name)
{
	for (int i = 0; i < SAMPLE_METRIC_N; i++)
		if (!strcmp(name, sample_metrics[i].name))
			return i;
	return -EINVAL;
}

int sample_metric_parse(const char *name)
{
	static const struct {
		const char *alias, *name;
	} aliases[] = {{"mbps", "bw"}, {"lat-mean", "lat"}};
	const char *dot;
	char buf[32];
	int m;

	if (!name)
		return -EINVAL;
	m = sample_metric_find(name);
	if (m >= 0)
		return m;
	/* an alias, alone or after a direction: "read.mbps" is "read.bw" */
	dot = strncmp(name, "read.", 5) ? strncmp(name, "write.", 6) ? name : name + 6 : name + 5;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strcmp(dot, aliases[i].alias))
			continue;
		snprintf(buf, sizeof(buf), "%.*s%s", (int)(dot - name), name, aliases[i].name);
		return sample_metric_find(buf);
	}
	return -EINVAL;
}

const char *sample_metric_name(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].name : "?";
}

const char *sample_metric_unit(enum sample_metric m)
{
	if ((unsigned int)m >= SAMPLE_METRIC_N)
		return "?";
	switch (sample_metrics[m].stat) {
	case SAMPLE_STAT_IOPS:
		return "IOPS";
	case SAMPLE_STAT_BW:
		return "MB/s";
	default:
		return "us";
	}
}

const char *sample_metric_names(void)
{
	return "iops, bw, lat, lat-min, lat-max, lat-stddev, p50, p90, p99, p99.9, p99.99, "
	       "each alone or after read. or write.";
}

enum sample_dir sample_metric_dir(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].dir : SAMPLE_ALL;
}

enum sample_stat sample_metric_stat(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].stat : SAMPLE_STAT_IOPS;
}

int sample_metric_pct(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].pct : -1;
}

int sample_metric_of(enum sample_dir dir, enum sample_stat stat, int pct)
{
	if (stat == SAMPLE_STAT_PCT && (pct < 0 || pct >= SAMPLE_NPCT))
		return -EINVAL;
	for (int i = 0; i < SAMPLE_METRIC_N; i++)
		if (sample_metrics[i].dir == dir && sample_metrics[i].stat == stat &&
		    (stat != SAMPLE_STAT_PCT || sample_metrics[i].pct == pct))
			return i;
	return -EINVAL;
}

double sample_metric_convert(enum sample_metric m, double raw, double secs)
{
	switch (sample_metric_stat(m)) {
	case SAMPLE_STAT_IOPS:
		return secs > 0 ? raw / secs : 0.0;
	case SAMPLE_STAT_BW:
		return secs > 0 ? raw / secs / 1e6 : 0.0;
	default:
		return raw / 1e3; /* ns -> us */
	}
}

double sample_metric(const struct sample *s, enum sample_metric m)
{
	const struct sample_stats *st;
	double secs = (double)(s->end_ns - s->start_ns) / 1e9;

	if ((unsigned int)m >= SAMPLE_METRIC_N)
		return 0.0;
	st = &s->st[sample_metrics[m].dir];
	switch (sample_metrics[m].stat) {
	case SAMPLE_STAT_IOPS:
		return sample_metric_convert(m, (double)st->ios, secs);
	case SAMPLE_STAT_BW:
		return sample_metric_convert(m, (double)st->bytes, secs);
	case SAMPLE_STAT_LAT_MEAN:
		return st->lat_mean_ns / 1e3;
	case SAMPLE_STAT_LAT_MIN:
		return (double)st->lat_min_ns / 1e3;
	case SAMPLE_STAT_LAT_MAX:
		return (double)st->lat_max_ns / 1e3;
	case SAMPLE_STAT_LAT_STDDEV:
		return st->lat_stddev_ns / 1e3;
	case SAMPLE_STAT_PCT:
		return (double)st->lat_pct_ns[sample_metrics[m].pct] / 1e3;
	}
	return 0.0;
}
