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

struct sample_stats {
	uint64_t ios;
	uint64_t bytes;
	double lat_mean_ns;
	double lat_stddev_ns;
	uint64_t lat_min_ns;
	uint64_t lat_max_ns;
	uint64_t lat_pct_ns[SAMPLE_NPCT];
};

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
 * @s: sample; seq and times are left alone, hist pointers are not stored
 * @rd: read latencies (may be NULL: none)
 * @wr: write latencies (may be NULL: none)
 *
 * The SAMPLE_ALL statistics come from merging @rd and @wr.
 */
void sample_summarize(struct sample *s, const struct hist *rd, uint64_t rd_bytes,
		      const struct hist *wr, uint64_t wr_bytes);

/* Tracking metrics, as the CLI and the plans name them. */
enum sample_metric {
	SAMPLE_METRIC_IOPS,	  /* "iops": reads + writes per second */
	SAMPLE_METRIC_BW,	  /* "bw": MB/s, 10^6 bytes per second */
	SAMPLE_METRIC_LAT,	  /* "lat": mean latency of all I/O, us */
	SAMPLE_METRIC_LAT_MAX,	  /* "lat-max": worst latency, us */
	SAMPLE_METRIC_LAT_STDDEV, /* "lat-stddev": us */
	SAMPLE_METRIC_P99,	  /* "p99": 99th percentile of all I/O, us */
	SAMPLE_METRIC_N,
};

/* Return the metric for @name (also accepts "mbps", "lat-mean"), or -EINVAL. */
int sample_metric_parse(const char *name);
const char *sample_metric_name(enum sample_metric m);
/* "IOPS", "MB/s", "us" */
const char *sample_metric_unit(enum sample_metric m);
/* the comma-separated list of metric names, for error messages */
const char *sample_metric_names(void);
/* The value of @m in @s; 0 for an empty interval. */
double sample_metric(const struct sample *s, enum sample_metric m);

#endif
