// SPDX-License-Identifier: MIT
/* analyze: steady-state judgement of a CSV, a fio log or fio JSON from elsewhere. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "import.h"
#include "judge.h"
#include "out.h"
#include "parse.h"

#define ANALYZE_MAX_BYTES (1024L * 1024 * 1024)

/* Read all of @path ("-": stdin) into memory. */
static int analyze_slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 65536, n = 0;
	char *b;

	if (!f)
		return -errno;
	b = malloc(cap);
	while (b) {
		size_t got;

		if (n == cap) {
			char *nb;

			if (cap >= (size_t)ANALYZE_MAX_BYTES) {
				free(b);
				b = NULL;
				errno = EFBIG;
				break;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (b && ferror(f)) {
		free(b);
		b = NULL;
		errno = EIO;
	}
	if (f != stdin)
		fclose(f);
	if (!b)
		return -(errno ? errno : ENOMEM);
	*buf = b;
	*len = n;
	return 0;
}

/* A fio log starts with a line of numbers ("1000, 5123, 1, 4096, 0"). */
static bool analyze_looks_fio(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' '))
		i++;
	if (i >= len || !isdigit((unsigned char)buf[i]))
		return false;
	for (; i < len && buf[i] != '\n'; i++)
		if (!isdigit((unsigned char)buf[i]) && !strchr(", \r.xX", buf[i]) &&
		    !isxdigit((unsigned char)buf[i]))
			return false;
	return true;
}

int cmd_analyze(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"column", required_argument, NULL, 'c'},
		{"round", required_argument, NULL, 'r'},
		{"log", required_argument, NULL, 'l'},
		{"job", required_argument, NULL, 'j'},
		JUDGE_LONG_OPTS,
		{NULL, 0, NULL, 0},
	};
	struct import_series series = {0};
	struct import_error ierr = {0};
	const char *column = NULL, *job = NULL, *path, *format;
	int log_kind = -1, opt, r;
	struct judge_opts jo;
	double round_s = 60.0;
	bool round_set = false, fio, fiojson;
	char *buf = NULL, name[128], num[PARSE_DOUBLE_BYTES];
	json_object *src;
	size_t len = 0;
	FILE *f;

	judge_opts_init(&jo);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			column = optarg;
			break;
		case 'r':
			if (parse_double(optarg, &round_s) || round_s < 0.001 ||
			    round_s > 86400 * 7)
				return cli_error(
					CLI_USAGE,
					"--round: expected seconds per round (e.g. 60), not "
					"'%s'",
					optarg);
			round_set = true;
			break;
		case 'l':
			log_kind = import_log_kind_parse(optarg);
			if (log_kind < 0)
				return cli_error(
					CLI_USAGE,
					"--log: '%s' is not one of iops, bw, lat, clat, slat",
					optarg);
			break;
		case 'j':
			job = optarg;
			break;
		default:
			if (opt >= JUDGE_OPT_BASE && opt != JUDGE_OPT_BASE + 6) {
				if ((r = judge_opt(&jo, opt, optarg)))
					return r;
				break;
			}
			if (opt == JUDGE_OPT_BASE + 6)
				return cli_error(
					CLI_USAGE,
					"analyze judges one series: use --column "
					"(CSV, fio JSON) or --log (fio log), not --metric");
			return cli_bad_option("analyze", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("analyze");
	path = argv[optind];
	r = analyze_slurp(path, &buf, &len);
	if (r)
		return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s: %s", path,
				 strerror(-r));
	fiojson = log_kind < 0 && import_looks_fiojson(buf, len);
	fio = !fiojson &&
	      (log_kind >= 0 || (strcmp(path, "-") && import_log_kind_detect(path) >= 0) ||
	       analyze_looks_fio(buf, len));
	if (fio && column) {
		free(buf);
		return cli_error(CLI_USAGE, "%s: --column is for CSV files; this is a fio log",
				 path);
	}
	if (!fiojson && job) {
		free(buf);
		return cli_error(CLI_USAGE, "%s: --job is for fio's JSON output; this is a %s",
				 path, fio ? "fio log" : "CSV file");
	}
	if (fiojson && round_set) {
		free(buf);
		return cli_error(CLI_USAGE,
				 "%s: --round is for fio logs; fio's JSON gives its steady-state "
				 "interval (ss_dur over the intervals it kept)",
				 path);
	}
	if (fiojson) {
		r = import_fiojson(buf, len, column, job, &series, &ierr);
	} else {
		f = fmemopen(buf, len ? len : 1, "r");
		if (!f) {
			free(buf);
			return cli_error(CLI_USAGE, "%s: %s", path, strerror(errno));
		}
		if (!len)
			(void)fgetc(f); /* an empty file: fmemopen needs one byte; skip it */
		if (fio)
			r = import_fiolog(f, strcmp(path, "-") ? path : NULL,
					  log_kind >= 0 ? (enum import_log_kind)log_kind
							: IMPORT_LOG_DETECT,
					  round_s, &series, &ierr);
		else
			r = import_csv(f, column, &series, &ierr);
		fclose(f);
	}
	free(buf);
	if (r) {
		if (ierr.line)
			return cli_error(CLI_USAGE, "%s:%zu: %s", path, ierr.line, ierr.msg);
		return cli_error(CLI_USAGE, "%s: %s", path, *ierr.msg ? ierr.msg : strerror(-r));
	}
	if (fio && series.partial_dropped)
		cli_warn("%s: the last %.1f s do not fill a round of %g s and are left out", path,
			 series.partial_s, round_s);
	if (fiojson && series.zeros_dropped)
		cli_warn(
			"%s: job '%s': the last %zu intervals are 0 in iops and bw, fio's unfilled "
			"window (steady state not attained): left out",
			path, series.job, series.zeros_dropped);

	format = fiojson ? "fio-json" : fio ? "fio-log" : "csv";
	jo.series_name = fio ? import_log_kind_name(series.kind) : (column ? column : "iops");
	jo.series_unit = series.unit;
	snprintf(name, sizeof(name), "%s", path);
	src = json_object_new_object();
	json_object_object_add(src, "file", json_object_new_string(path));
	json_object_object_add(src, "format", json_object_new_string(format));
	json_object_object_add(src, "entries", json_object_new_int64((int64_t)series.entries));
	if (fio)
		json_object_object_add(src, "round_s",
				       json_object_new_double_s(
					       round_s, out_fmt_double(num, sizeof(num), round_s)));
	if (!fio && !fiojson)
		json_object_object_add(src, "partial_rows",
				       json_object_new_int64((int64_t)series.partial_rows));
	if (fiojson) {
		double rs = series.interval_ms / 1000.0;

		json_object_object_add(src, "job", json_object_new_string(series.job));
		json_object_object_add(
			src, "round_s",
			json_object_new_double_s(rs, out_fmt_double(num, sizeof(num), rs)));
		json_object_object_add(src, "fio_ss", json_object_new_string(series.fio_ss));
		json_object_object_add(src, "fio_attained",
				       json_object_new_boolean(series.fio_attained));
	}
	r = judge_series(name, src, series.values, series.n, &jo, cli->format);
	import_series_free(&series);
	return r;
}

const struct cli_cmd cli_cmd_analyze = {
	"analyze",
	"FILE [--column NAME] [--round SECONDS] [--log iops|bw|lat|clat|slat] [--job JOB]\n"
	"       [steady options]",
	"judge steady state of data from elsewhere (CSV, fio log, fio JSON)",
	"  FILE is one of:\n"
	"  - a CSV with a header row, one row per round; --column picks the column\n"
	"    (default iops).  A `partial` column, as `plateau samples --csv` writes\n"
	"    it, leaves out the rows where it is true: an interval cut short is not\n"
	"    a round, as `plateau steady` judges the stored phase.\n"
	"  - a fio per-interval log (write_iops_log, write_bw_log, write_lat_log:\n"
	"    msec, value, direction, bs, offset), whose entries are averaged into\n"
	"    rounds of --round seconds (default 60), directions summed.  An\n"
	"    averaged entry covers the log's interval before its stamp and goes to\n"
	"    the round holding the middle of it, so stamps may stray by half an\n"
	"    interval (1000, 2000, 3001 ms with --round 1 are rounds 1, 2, 3).\n"
	"  - fio --output-format=json (starts with '{'): a job's steadystate data,\n"
	"    the intervals fio kept for ss=/ss_dur=; --column iops (default), bw\n"
	"    or lat; --job NAME|N picks the job when several have the data.\n"
	"  `-` reads standard input.  The steady options are those of `plateau\n"
	"  steady`.  Exit status: 0 steady, 1 not steady.\n" FORMAT_HELP,
	cmd_analyze,
	CLI_FMT_ALL};
