// SPDX-License-Identifier: MIT
#include <errno.h>
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

static const struct {
	const char *name;
	const char *unit;
} sample_metrics[SAMPLE_METRIC_N] = {
	[SAMPLE_METRIC_IOPS] = {"iops", "IOPS"},
	[SAMPLE_METRIC_BW] = {"bw", "MB/s"},
	[SAMPLE_METRIC_LAT] = {"lat", "us"},
	[SAMPLE_METRIC_LAT_MAX] = {"lat-max", "us"},
	[SAMPLE_METRIC_LAT_STDDEV] = {"lat-stddev", "us"},
	[SAMPLE_METRIC_P99] = {"p99", "us"},
};

int sample_metric_parse(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int i = 0; i < SAMPLE_METRIC_N; i++)
		if (!strcmp(name, sample_metrics[i].name))
			return i;
	if (!strcmp(name, "mbps"))
		return SAMPLE_METRIC_BW;
	if (!strcmp(name, "lat-mean"))
		return SAMPLE_METRIC_LAT;
	return -EINVAL;
}

const char *sample_metric_name(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].name : "?";
}

const char *sample_metric_unit(enum sample_metric m)
{
	return (unsigned int)m < SAMPLE_METRIC_N ? sample_metrics[m].unit : "?";
}

const char *sample_metric_names(void)
{
	return "iops, bw, lat, lat-max, lat-stddev, p99";
}

double sample_metric(const struct sample *s, enum sample_metric m)
{
	const struct sample_stats *a = &s->st[SAMPLE_ALL];
	double secs = (double)(s->end_ns - s->start_ns) / 1e9;

	switch (m) {
	case SAMPLE_METRIC_IOPS:
		return secs > 0 ? (double)a->ios / secs : 0.0;
	case SAMPLE_METRIC_BW:
		return secs > 0 ? (double)a->bytes / secs / 1e6 : 0.0;
	case SAMPLE_METRIC_LAT:
		return a->lat_mean_ns / 1e3;
	case SAMPLE_METRIC_LAT_MAX:
		return (double)a->lat_max_ns / 1e3;
	case SAMPLE_METRIC_LAT_STDDEV:
		return a->lat_stddev_ns / 1e3;
	case SAMPLE_METRIC_P99:
		return (double)a->lat_pct_ns[2] / 1e3;
	default:
		return 0.0;
	}
}
