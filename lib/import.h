/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_IMPORT_H
#define PLATEAU_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * import: read a series, one value per round, for `plateau analyze FILE`:
 * a CSV table, a fio per-interval log (write_iops_log, write_bw_log,
 * write_lat_log), or the steady-state data of fio --output-format=json.  No printing: errors come
 * back as -errno plus a struct import_error naming the line, the field and the expectation.
 */

enum import_log_kind {
	IMPORT_LOG_DETECT, /* from the file name (import_log_kind_detect()) */
	IMPORT_LOG_IOPS,   /* NAME_iops.N.log: IOPS */
	IMPORT_LOG_BW,	   /* NAME_bw.N.log: KiB/s in the file */
	IMPORT_LOG_LAT,	   /* NAME_lat.N.log: ns in the file (fio >= 3.0) */
	IMPORT_LOG_CLAT,   /* NAME_clat.N.log */
	IMPORT_LOG_SLAT,   /* NAME_slat.N.log */
};

/* A series read by import_csv() or import_fiolog(); import_series_free() it. */
struct import_series {
	double *values; /* n values, one per round (malloc'ed) */
	size_t n;
	/* fio logs: "IOPS", "MB/s" (10^6 bytes/s) or "us", plateau's metric
	 * units (sample.h); CSV: NULL, the values are as written */
	const char *unit;
	enum import_log_kind kind; /* fio logs: the kind read; CSV: DETECT */
	size_t column;		   /* CSV: 1-based index of the column read */
	size_t entries;		   /* CSV data rows, or fio log entries, read */
	bool per_io;		   /* fio log written without log_avg_msec */
	size_t jobs;		   /* fio log: jobs found one after another */
	/* fio averaged log: its interval I (import_fiolog()); fio JSON: the
	 * steady-state interval, ss_dur / the intervals fio kept */
	double interval_ms;
	size_t partial_rows; /* CSV: rows with partial=true, left out */
	/* fio JSON: the job, fio's own setting ("iops_slope:0.300000%") and
	 * verdict, and the zero intervals of an unfilled ring left out */
	char job[128];
	char fio_ss[64];
	bool fio_attained;
	size_t zeros_dropped;
	/* fio log: the last round was cut short and dropped */
	bool partial_dropped;
	double partial_s; /* the seconds that dropped round covered */
};

/* Why an import failed, for the message the CLI prints. */
struct import_error {
	size_t line; /* 1-based; 0 when the error is not about one line */
	char msg[256];
};

/**
 * import_csv() - read one column of a CSV table, one row per round
 * @f: the table; its first row names the columns
 * @column: the column's name, matched case-insensitively after trimming
 *          blanks; NULL means "iops"
 * @out: the series, written only on success; free with import_series_free()
 * @err: on failure, the line and a message (may be NULL)
 *
 * RFC 4180 quoting ("a ""b""", commas and line breaks inside quotes), CRLF
 * or LF line ends, a UTF-8 byte order mark, blanks around fields and blank
 * lines at the end are accepted.  Every row must have the header's number
 * of fields; a blank line between rows is an error (rounds must be
 * consecutive).  Values: decimal numbers >= 0 ("1200", "1.2e3"), finite.
 *
 * A column named "partial" (another than @column), as `plateau samples
 * --csv` writes it, marks intervals cut short: rows where it is true (or
 * 1, yes) are left out, as the stored phase's judgement leaves them out,
 * and counted in @out->partial_rows; false, 0 or no is kept; anything else
 * is an error.
 *
 * Return: 0; -EINVAL for bad data (@err says which line and why), -ENOMEM,
 * -EIO for a read error.
 */
int import_csv(FILE *f, const char *column, struct import_series *out, struct import_error *err);

/**
 * import_fiolog() - turn a fio per-interval log into one value per round
 * @f: the log: "msec, value, direction, block size[, offset][, priority]"
 * @name: file name, used only when @kind is IMPORT_LOG_DETECT (may be NULL)
 * @kind: what the log holds, or IMPORT_LOG_DETECT
 * @round_s: round length in seconds (>= 0.001)
 * @out: the series, written only on success; free with import_series_free()
 * @err: on failure, the line and a message (may be NULL)
 *
 * Rounds, with fio's timestamp jitter (a 1 s log stamped 1000, 2000, 3001
 * ms): an averaged entry covers the log's interval I before its stamp t
 * (fio stamps a window at its end, a few ms late or early), so it belongs
 * to the round that holds the middle of that window: round ceil((t - I/2)
 * / round), 1-based, round 1 for anything at or before 0.  I is the median
 * gap between consecutive entries of one job and direction (log_avg_msec as
 * written), so a stamp may stray up to half an interval either way.  A
 * per-I/O entry is stamped when its I/O completed: round ceil(t / round).
 * An averaged log whose interval is more than 10 % longer than a round
 * is an error that names the round length that fits (an entry cannot be
 * split among rounds).
 *
 * Averaged logs (log_avg_msec > 0; fio writes block size 0): per round,
 * iops and bw logs average each direction's entries and add the directions
 * (read + write + trim); latency logs average all entries (not weighted by
 * I/O count, which fio does not log).  A log holding several jobs one after
 * another (per_job_logs=0) is split where time goes backwards, and the
 * jobs' IOPS or bandwidth are added.
 *
 * Per-I/O logs (no log_avg_msec; fio writes one entry per I/O with its
 * block size, and value 1 in an iops log, see fio's stat.c
 * add_iops_sample()): IOPS = entries in the round / round_s; bandwidth =
 * the block sizes' sum / round_s; latency = the mean of the entries.  A
 * round without entries is 0 IOPS / 0 MB/s there; in any other case a
 * round without entries is an error.
 *
 * Units: bw logs' KiB/s become MB/s, latency logs' ns become us.
 *
 * The last round is kept only if the log reaches its end, within the
 * larger of 1 % of a round and the log's sampling interval (averaged: I;
 * per I/O: the smallest gap between two time stamps); otherwise it is
 * dropped and @out->partial_dropped / partial_s say so.  Other rounds are
 * trusted.
 *
 * Return: as import_csv().
 */
int import_fiolog(FILE *f, const char *name, enum import_log_kind kind, double round_s,
		  struct import_series *out, struct import_error *err);

/**
 * import_looks_fiojson() - whether a file is JSON rather than CSV or a log
 * @text: the file's bytes
 * @len: how many
 *
 * Return: true when the first byte after blanks (and a UTF-8 byte order
 * mark) is '{', which neither a CSV header nor a fio log starts with.
 */
bool import_looks_fiojson(const char *text, size_t len);

/**
 * import_fiojson() - a job's steady-state data from fio --output-format=json
 * @text: the document (json+ too), @len bytes; nothing but blanks after it
 * @len: its length
 * @series: "iops" (NULL too), "bw" or "lat": steadystate.data's iops
 *          (IOPS), bw (bytes/s, made MB/s) or lat_ns (ns, made us; fio
 *          writes it for ss=lat only)
 * @job: the job by its jobname or 1-based position in "jobs"; NULL: the
 *       one job that has a "steadystate" block (an error when several do)
 * @out: the series, one value per interval, oldest first as fio writes
 *       them; @out->interval_ms is steadystate.duration (ss_dur, s) over
 *       their number; job, fio_ss, fio_attained and zeros_dropped are set
 * @err: on failure a message (the line for a JSON syntax error)
 *
 * fio keeps the last ss_dur / ss_interval intervals in a ring it allocated
 * zeroed; a job that ended before filling it did not attain steady state
 * ("attained": 0), and its trailing intervals 0 in iops and bw both are
 * left out (@out->zeros_dropped).
 *
 * Return: 0; -EINVAL not fio's JSON, no such job, no steadystate data, or
 * a malformed value (@err says which); -EFBIG, -ENOMEM.
 */
int import_fiojson(const char *text, size_t len, const char *series, const char *job,
		   struct import_series *out, struct import_error *err);

/**
 * import_log_kind_detect() - what a fio log holds, from its file name
 * @name: a path; only its last component is looked at
 *
 * fio names its logs NAME_iops.log, NAME_bw.log, NAME_lat.log,
 * NAME_clat.log and NAME_slat.log, with ".N" (the job's index) before
 * ".log" unless per_job_logs=0.
 *
 * Return: the enum import_log_kind, or -EINVAL for NULL or a name of
 * another form.
 */
int import_log_kind_detect(const char *name);

/**
 * import_log_kind_parse() - the kind a name stands for
 * @s: "iops", "bw", "lat", "clat" or "slat" (case-sensitive; "detect" is
 *     not accepted)
 *
 * Return: the enum import_log_kind, or -EINVAL for NULL or another name.
 */
int import_log_kind_parse(const char *s);

/**
 * import_log_kind_name() - the name import_log_kind_parse() takes
 * @k: kind
 *
 * Return: a static string; "detect" for IMPORT_LOG_DETECT, "unknown" out
 * of range.
 */
const char *import_log_kind_name(enum import_log_kind k);

/**
 * import_series_free() - free a series' values and zero it
 * @s: series from import_csv() or import_fiolog(), or NULL
 *
 * The struct itself belongs to the caller; it can be reused afterwards.
 */
void import_series_free(struct import_series *s);

#endif
