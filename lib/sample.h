/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_SAMPLE_H
#define PLATEAU_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"

/*
 * sample: one interval's measurement, the unit every phase records (a
 * precondition round, a sweep interval) and the store keeps.
 */

enum sample_dir {
	SAMPLE_READ,
	SAMPLE_WRITE,
	SAMPLE_ALL, /* reads and writes together */
	SAMPLE_NDIRS,
};

#define SAMPLE_NPCT 5
/* the percentiles every sample stores: p50 p90 p99 p99.9 p99.99 */
extern const double sample_pcts[SAMPLE_NPCT];

/* One direction's statistics in an interval; latencies in ns. */
struct sample_stats {
	uint64_t ios;
	uint64_t bytes;
	double lat_mean_ns;
	double lat_stddev_ns;
	uint64_t lat_min_ns;
	uint64_t lat_max_ns;
	uint64_t lat_pct_ns[SAMPLE_NPCT];
};

/* One interval's measurement, per direction (st[]) and with its histograms. */
struct sample {
	int64_t seq;	  /* 1-based round number within its phase */
	int64_t start_ns; /* interval bounds, CLOCK_REALTIME ns */
	int64_t end_ns;
	uint64_t errors; /* I/O errors in the interval */
	bool partial;	 /* cut short: not a round of the steady-state judgement */
	int point;	 /* a sweep's load point (1-based); 0: none or not recorded */
	bool aborted;	 /* its point's measurement was interrupted (schema 4) */
	struct sample_stats st[SAMPLE_NDIRS];
	/* merged histograms per direction (read, write); may be NULL when a
	 * sample is read back without them */
	struct hist *hist[2];
};

/**
 * sample_summarize() - fill @s->st from per-direction histograms and bytes
 * @s: sample; only @s->st is written (seq, times and the hist pointers are
 *     left alone, and @rd / @wr are not stored)
 * @rd: read latencies (may be NULL: no reads)
 * @rd_bytes: bytes read in the interval
 * @wr: write latencies (may be NULL: no writes)
 * @wr_bytes: bytes written in the interval
 *
 * I/O counts, mean, standard deviation, minimum, maximum and the
 * sample_pcts percentiles come from the histograms, in ns.  The SAMPLE_ALL
 * statistics come from merging @rd and @wr into a per-thread scratch
 * histogram, so concurrent calls on different samples are safe.
 */
void sample_summarize(struct sample *s, const struct hist *rd, uint64_t rd_bytes,
		      const struct hist *wr, uint64_t wr_bytes);

/*
 * Tracking metrics, as the CLI and the plans name them: every figure a
 * sample stores, of all I/O ("p99"), of reads only ("read.p99") or of
 * writes only ("write.p99").  A metric is a direction and a statistic
 * (sample_metric_dir(), sample_metric_stat()).  The first six keep the
 * values they always had.
 */
enum sample_metric {
	SAMPLE_METRIC_IOPS,	  /* "iops": reads + writes per second */
	SAMPLE_METRIC_BW,	  /* "bw": MB/s, 10^6 bytes per second */
	SAMPLE_METRIC_LAT,	  /* "lat": mean latency of all I/O, us */
	SAMPLE_METRIC_LAT_MAX,	  /* "lat-max": worst latency, us */
	SAMPLE_METRIC_LAT_STDDEV, /* "lat-stddev": us */
	SAMPLE_METRIC_P99,	  /* "p99": 99th percentile of all I/O, us */
	SAMPLE_METRIC_LAT_MIN,	  /* "lat-min": best latency, us */
	SAMPLE_METRIC_P50,	  /* "p50", "p90", "p99.9", "p99.99": us */
	SAMPLE_METRIC_P90,
	SAMPLE_METRIC_P999,
	SAMPLE_METRIC_P9999,
	/* "read.iops" ... "read.p99.99": the same statistics of reads only */
	SAMPLE_METRIC_READ_IOPS,
	SAMPLE_METRIC_READ_BW,
	SAMPLE_METRIC_READ_LAT,
	SAMPLE_METRIC_READ_LAT_MIN,
	SAMPLE_METRIC_READ_LAT_MAX,
	SAMPLE_METRIC_READ_LAT_STDDEV,
	SAMPLE_METRIC_READ_P50,
	SAMPLE_METRIC_READ_P90,
	SAMPLE_METRIC_READ_P99,
	SAMPLE_METRIC_READ_P999,
	SAMPLE_METRIC_READ_P9999,
	/* "write.iops" ... "write.p99.99": of writes only */
	SAMPLE_METRIC_WRITE_IOPS,
	SAMPLE_METRIC_WRITE_BW,
	SAMPLE_METRIC_WRITE_LAT,
	SAMPLE_METRIC_WRITE_LAT_MIN,
	SAMPLE_METRIC_WRITE_LAT_MAX,
	SAMPLE_METRIC_WRITE_LAT_STDDEV,
	SAMPLE_METRIC_WRITE_P50,
	SAMPLE_METRIC_WRITE_P90,
	SAMPLE_METRIC_WRITE_P99,
	SAMPLE_METRIC_WRITE_P999,
	SAMPLE_METRIC_WRITE_P9999,
	SAMPLE_METRIC_N,
};

/* What a metric measures, whatever its direction. */
enum sample_stat {
	SAMPLE_STAT_IOPS,	/* I/Os per second */
	SAMPLE_STAT_BW,		/* MB/s */
	SAMPLE_STAT_LAT_MEAN,	/* us */
	SAMPLE_STAT_LAT_MIN,	/* us */
	SAMPLE_STAT_LAT_MAX,	/* us */
	SAMPLE_STAT_LAT_STDDEV, /* us */
	SAMPLE_STAT_PCT,	/* us; the percentile sample_metric_pct() names */
};

/**
 * sample_metric_parse() - the tracking metric a name stands for
 * @name: "iops", "bw", "lat", "lat-min", "lat-max", "lat-stddev", "p50",
 *        "p90", "p99", "p99.9", "p99.99", or the aliases "mbps" (bw) and
 *        "lat-mean" (lat); each of them alone (all I/O) or after "read." or
 *        "write." (that direction only); case-sensitive
 *
 * Return: an enum sample_metric, or -EINVAL for NULL or an unknown name
 * (sample_metric_names() lists the known ones for the message).
 */
int sample_metric_parse(const char *name);

/**
 * sample_metric_name() - the name of a metric, as sample_metric_parse() takes it
 * @m: metric
 *
 * Return: a static string ("iops", "read.p99.9", ...); "?" out of range.
 */
const char *sample_metric_name(enum sample_metric m);

/**
 * sample_metric_unit() - the unit sample_metric() gives a metric in
 * @m: metric
 *
 * Return: a static string: "IOPS", "MB/s" (10^6 bytes/s) or "us"; "?" out
 * of range.
 */
const char *sample_metric_unit(enum sample_metric m);

/**
 * sample_metric_names() - every metric name, for error messages
 *
 * Return: the static string "iops, bw, lat, lat-min, lat-max, lat-stddev,
 * p50, p90, p99, p99.9, p99.99, each alone or after read. or write."
 * (without the aliases).
 */
const char *sample_metric_names(void);

/**
 * sample_metric_dir() - whose I/O a metric measures
 * @m: metric
 *
 * Return: SAMPLE_READ, SAMPLE_WRITE or SAMPLE_ALL (also out of range).
 */
enum sample_dir sample_metric_dir(enum sample_metric m);

/**
 * sample_metric_stat() - what a metric measures
 * @m: metric
 *
 * Return: an enum sample_stat; SAMPLE_STAT_IOPS out of range.
 */
enum sample_stat sample_metric_stat(enum sample_metric m);

/**
 * sample_metric_pct() - the stored percentile a metric is
 * @m: metric
 *
 * Return: its index in sample_pcts (and sample_stats.lat_pct_ns), or -1
 * when @m is not a percentile.
 */
int sample_metric_pct(enum sample_metric m);

/**
 * sample_metric_of() - the metric of a direction and a statistic
 * @dir: SAMPLE_READ, SAMPLE_WRITE or SAMPLE_ALL
 * @stat: an enum sample_stat
 * @pct: with SAMPLE_STAT_PCT, the index in sample_pcts; else ignored
 *
 * Return: an enum sample_metric, or -EINVAL for an argument out of range.
 */
int sample_metric_of(enum sample_dir dir, enum sample_stat stat, int pct);

/**
 * sample_metric_convert() - a stored figure in a metric's unit
 * @m: metric
 * @raw: the figure as a sample_stats holds it: I/Os (SAMPLE_STAT_IOPS),
 *       bytes (SAMPLE_STAT_BW), else a latency in ns
 * @secs: the interval's length in seconds
 *
 * For readers of the stored columns (store_series()) that do not build a
 * whole sample.
 *
 * Return: I/Os or MB per second (0 when @secs is not > 0), or us.
 */
double sample_metric_convert(enum sample_metric m, double raw, double secs);

/**
 * sample_metric() - the value of a tracking metric in one sample
 * @s: sample with its statistics filled in (sample_summarize())
 * @m: metric
 *
 * From the statistics of the metric's direction (SAMPLE_ALL: reads and
 * writes together); IOPS and MB/s over the interval
 * @s->start_ns..@s->end_ns, latencies converted from ns to us.
 *
 * Return: the value in sample_metric_unit(@m); 0 for an interval of no
 * length (IOPS, MB/s), an interval without I/O in that direction, or @m
 * out of range.
 */
double sample_metric(const struct sample *s, enum sample_metric m);

#endif
