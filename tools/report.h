/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_TOOLS_REPORT_H
#define PLATEAU_TOOLS_REPORT_H
/*
 * report's private header: what the parts of `plateau report` share.
 *   report-html.c  HTML text: escaping, table cells, times for people
 *   report-data.c  the data of the page: JSON helpers, the verdicts of the
 *                  precondition phases, the time curves (downsampled)
 *   report.c       the page: its parts, the sweeps, one run, the command
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "embed.h"
#include "hist.h"
#include "parse.h"
#include "profile.h"
#include "verdict.h"
#include "version.h"

#define REP_MAX_RUNS 32
/* Time charts: at most 2 * REP_BUCKETS points per series and metric. */
#define REP_BUCKETS 1500
#define REP_MAX_EVENTS 100
/* The four charts over time of every preconditioning phase (rep_curves). */
#define REP_NCURVES 4
/* ... and those --metric adds */
#define REP_MAX_CURVES (REP_NCURVES + SAMPLE_METRIC_N)
/* a sweep charts MB/s instead of IOPS when no transfer is smaller */
#define REP_LARGE_BYTES (64U * 1024)

/* The four charts over time labs draw for every preconditioning phase. */
struct rep_curve_def {
	enum sample_metric m;
	const char *key;   /* JSON key, data-metric */
	const char *title; /* figure caption */
};
extern const struct rep_curve_def rep_curves[REP_NCURVES];

/*
 * What a phase runs, from its parameters: the workload (pattern, share of
 * reads, transfer sizes; the profile's name when nothing else is known) and
 * the load (threads x queue depth, 0 when not recorded).
 */
struct rep_workload {
	char key[320];	/* equal keys: the same workload */
	char text[320]; /* for people */
	bool known;	/* pattern and sizes known */
	bool large;	/* every transfer at least REP_LARGE_BYTES */
	unsigned int threads, iodepth;
};

/* A precondition phase re-judged as `plateau steady` does. */
struct rep_steady {
	bool has;    /* a precondition phase with samples */
	bool judged; /* false: why[] says why not */
	char why[128];
	/* every metric's rounds (v.series, by metric id; v.n full samples),
	 * the parameters and the results per v.metrics[k] */
	struct verdict v;
};

struct rep_run {
	struct store *s; /* its database (cli_store() after cli_find_run()) */
	size_t db;	 /* index into rep.dbs */
	struct store_run run;
	struct store_phase *phases;
	size_t nphases;
	struct rep_steady *steady; /* one per phase */
	int64_t *nsamples;	   /* one per phase */
	const char *color;
	char ref[200];	 /* "run 7", or "lab7:7" in a report over several databases */
	char anchor[48]; /* its section's id */
};

/*
 * Phases compared in one part of the page: at most one phase of each run,
 * all of one kind and one workload.
 */
struct rep_group {
	const char *kind;
	ssize_t phase[REP_MAX_RUNS]; /* by run index; -1: none */
	size_t n;
	struct rep_workload w; /* of its first phase */
	bool loads_differ;
};

struct rep {
	struct cli *cli;
	struct rep_run *runs;
	size_t nruns;
	const char *dbs[REP_MAX_RUNS]; /* the databases, each once */
	size_t ndbs;
	struct rep_curve_def curves[REP_MAX_CURVES]; /* rep_curves, then --metric's */
	size_t ncurves;
	FILE *f; /* the page, in memory */
	json_object *data, *jgroups, *jwindows, *jsweeps;
	int ncharts;
};

/* report-html.c */
/* a write to the in-memory page failed (checked before it is written out) */
extern bool rep_oom;
void h_esc(FILE *f, const char *s);
void h_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void h_td(FILE *f, const char *cls, const char *s);
void h_kv(FILE *f, const char *key, const char *val);
char *rep_time(char *buf, size_t len, int64_t ns);
char *rep_duration(char *buf, size_t len, int64_t from_ns, int64_t to_ns);
const char *rep_unit(const char *u);

/* report-data.c */
json_object *j_num(double v);
const char *j_str(json_object *o, const char *key);
bool j_bool(json_object *o, const char *key);
int j_int(json_object *o, const char *key, int def);
json_object *rep_params(const struct store_phase *p);
char *rep_load(char *buf, size_t len, const struct store_phase *p);
void rep_workload(const struct store_phase *p, struct rep_workload *w);
char *rep_params_text(char *buf, size_t len, const struct store_phase *p);
void rep_steady_free(struct rep_steady *st);
int rep_judge(struct rep *R, const struct rep_run *rr, size_t i);
const char *rep_sep(size_t *n);
char *rep_verdict(char *buf, size_t len, const struct rep_steady *st, const struct store_phase *p);
const char *rep_limit_desc(char *buf, size_t len, const struct steady_params *p, double lim);
json_object *rep_series(struct rep *R, size_t ri, size_t pi, size_t *per_bucket);

/* Latency percentiles of a window, per direction (read, write, all), in us. */
struct rep_pcts {
	bool from_hist; /* merged histograms; else the rounds' percentiles averaged */
	uint64_t ios[SAMPLE_NDIRS];
	double mean_us[SAMPLE_NDIRS], max_us[SAMPLE_NDIRS];
	double pct_us[SAMPLE_NDIRS][SAMPLE_NPCT];
};
int rep_window_pcts(const struct rep_run *rr, size_t pi, size_t from, size_t to,
		    struct rep_pcts *out);

#endif
