// SPDX-License-Identifier: MIT
/*
 * points: `plateau points`, the load points of a sweep phase, one row each,
 * as a lab tabulates them: the load (threads x iodepth), throughput, and
 * mean, p99 and p99.99 latency of all I/O, of reads and of writes.
 *
 * The figures are the points table's (the measurement after each point's
 * ramp, as plateaud stored it), never recomputed from the samples.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "parse.h"
#include "points.h"

int points_pick_sweep(struct cli_phase *ph, int64_t run_id, int want_seq)
{
	if (want_seq > 0) {
		for (size_t i = 0; i < ph->n; i++)
			if (ph->phases[i].seq == want_seq)
				ph->p = &ph->phases[i];
		if (!ph->p)
			return cli_error(CLI_NOTFOUND, "run %lld has no phase %d (it has %zu)",
					 (long long)run_id, want_seq, ph->n);
		if (strcmp(ph->p->kind, "sweep"))
			return cli_error(CLI_USAGE,
					 "run %lld phase %d is a %s phase, not a sweep: it has "
					 "no load points",
					 (long long)run_id, want_seq, ph->p->kind);
		return CLI_OK;
	}
	for (size_t i = ph->n; i-- > 0;)
		if (!strcmp(ph->phases[i].kind, "sweep")) {
			ph->p = &ph->phases[i];
			return CLI_OK;
		}
	return cli_error(CLI_NOTFOUND, "run %lld has no sweep phase", (long long)run_id);
}

int points_open(struct cli *cli, int64_t run_id, int want_seq, struct cli_phase *ph)
{
	int r;

	memset(ph, 0, sizeof(*ph));
	if ((r = cli_load_run(cli, run_id, &ph->run)))
		return r;
	if ((r = cli_store(cli, &ph->s)))
		goto fail;
	if (store_phases_list(ph->s, run_id, &ph->phases, &ph->n)) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph->s));
		goto fail;
	}
	if ((r = points_pick_sweep(ph, run_id, want_seq)))
		goto fail;
	return CLI_OK;
fail:
	cli_close_phase(ph);
	return r;
}

struct points_io {
	uint64_t ios[2];
	size_t rows;
};

static int points_io_sample(void *ctx, const struct sample *smp)
{
	struct points_io *c = ctx;

	c->ios[SAMPLE_READ] += smp->st[SAMPLE_READ].ios;
	c->ios[SAMPLE_WRITE] += smp->st[SAMPLE_WRITE].ios;
	c->rows++;
	return 0;
}

static int points_io_point(void *ctx, const struct store_point *pt)
{
	return points_io_sample(ctx, &pt->smp);
}

int points_need_io(const struct cli_phase *ph, const char *const what[2])
{
	static const char *const names[2] = {"read", "write"};
	struct points_io c = {{0, 0}, 0};
	int r;

	if (!what[SAMPLE_READ] && !what[SAMPLE_WRITE])
		return CLI_OK;
	r = store_samples_foreach(ph->s, ph->p->id, 1, STORE_WITH_ABORTED, points_io_sample, &c);
	if (!r && !strcmp(ph->p->kind, "sweep"))
		r = store_points_foreach(ph->s, ph->p->id, 0, points_io_point, &c);
	if (r)
		return cli_error(CLI_USAGE, "%s",
				 r == -ENOMEM ? "out of memory" : store_errmsg(ph->s));
	if (!c.rows)
		return CLI_OK;
	for (int d = 0; d < 2; d++)
		if (what[d] && !c.ios[d])
			return cli_error(CLI_USAGE,
					 "run %lld phase %d (%s%s%s) has no %s I/O in any of its "
					 "%zu %s: %s has no data",
					 (long long)ph->run.id, ph->p->seq, ph->p->kind,
					 *ph->p->name ? " " : "", ph->p->name, names[d], c.rows,
					 !strcmp(ph->p->kind, "sweep") ? "samples and points"
								       : "samples",
					 what[d]);
	return CLI_OK;
}

int points_need_metric_io(const struct cli_phase *ph, const int *metrics, size_t n)
{
	char name[2][64];
	const char *w[2] = {NULL, NULL};

	for (size_t k = 0; k < n; k++) {
		enum sample_metric m = (enum sample_metric)metrics[k];
		enum sample_dir d = sample_metric_dir(m);

		if (d == SAMPLE_ALL || w[d])
			continue;
		snprintf(name[d], sizeof(name[d]), "metric %s", sample_metric_name(m));
		w[d] = name[d];
	}
	return points_need_io(ph, w);
}

char *points_run_ref(struct cli *cli, const struct store_run *run, char *buf, size_t len)
{
	size_t ndb = 1;

	/* cli_db_count() succeeded for cli_find_run() already */
	if (cli_db_count(cli, &ndb) || ndb <= 1 || !*run->host)
		snprintf(buf, len, "%lld", (long long)run->id);
	else
		snprintf(buf, len, "%s:%lld", run->host, (long long)run->id);
	return buf;
}

enum {
	PC_RUN, /* run, host, uuid: JSON and CSV only */
	PC_HOST,
	PC_UUID,
	PC_POINT,
	PC_THREADS,
	PC_IODEPTH,
	PC_IOPS,
	PC_BW,
	PC_RIOPS,
	PC_WIOPS,
	PC_LAT, /* then P99, P9999; for all, read, write */
	PC_ERRORS = PC_LAT + 9,
	PC_START,
	PC_END,
	PC_N,
};

static const struct out_col points_cols[PC_N] = {
	[PC_RUN] = {"run", "RUN", 0, 0},
	[PC_HOST] = {"host", "HOST", 0, 1},
	[PC_UUID] = {"uuid", "UUID", 0, 1},
	[PC_POINT] = {"point", "POINT", 0, 0},
	[PC_THREADS] = {"threads", "THREADS", 0, 0},
	[PC_IODEPTH] = {"iodepth", "QD", 0, 0},
	[PC_IOPS] = {"iops", "IOPS", 0, 0},
	[PC_BW] = {"bw_mbps", "MB/S", 0, 0},
	[PC_RIOPS] = {"read_iops", "R_IOPS", 0, 0},
	[PC_WIOPS] = {"write_iops", "W_IOPS", 0, 0},
	[PC_LAT + 0] = {"lat_mean_us", "LAT_US", 0, 0},
	[PC_LAT + 1] = {"lat_p99_us", "P99_US", 0, 0},
	[PC_LAT + 2] = {"lat_p9999_us", "P99.99_US", 0, 0},
	[PC_LAT + 3] = {"read_lat_mean_us", "R_LAT_US", 0, 0},
	[PC_LAT + 4] = {"read_lat_p99_us", "R_P99_US", 0, 0},
	[PC_LAT + 5] = {"read_lat_p9999_us", "R_P99.99_US", 0, 0},
	[PC_LAT + 6] = {"write_lat_mean_us", "W_LAT_US", 0, 0},
	[PC_LAT + 7] = {"write_lat_p99_us", "W_P99_US", 0, 0},
	[PC_LAT + 8] = {"write_lat_p9999_us", "W_P99.99_US", 0, 0},
	[PC_ERRORS] = {"errors", "ERRORS", 0, 0},
	[PC_START] = {"start", "START", 0, 1},
	[PC_END] = {"end", "END", 0, 1},
};

/* the latency columns, by direction: mean, p99, p99.99 */
static const int points_lat_metrics[3][3] = {
	{SAMPLE_METRIC_LAT, SAMPLE_METRIC_P99, SAMPLE_METRIC_P9999},
	{SAMPLE_METRIC_READ_LAT, SAMPLE_METRIC_READ_P99, SAMPLE_METRIC_READ_P9999},
	{SAMPLE_METRIC_WRITE_LAT, SAMPLE_METRIC_WRITE_P99, SAMPLE_METRIC_WRITE_P9999},
};

struct points_ctx {
	struct out *o;
	enum cli_format fmt;
	const struct store_run *run;
	size_t n;
};

static int points_row(void *ctx, const struct store_point *pt)
{
	struct points_ctx *c = ctx;
	const struct sample *s = &pt->smp;

	if (c->fmt != CLI_TABLE) {
		/* whose run, when several databases are read */
		out_i64(c->o, c->run->id);
		out_str(c->o, *c->run->host ? c->run->host : NULL);
		out_str(c->o, *c->run->uuid ? c->run->uuid : NULL);
	}
	out_i64(c->o, pt->seq);
	out_i64(c->o, pt->threads);
	out_i64(c->o, pt->iodepth);
	out_dbl(c->o, sample_metric(s, SAMPLE_METRIC_IOPS), 0);
	out_dbl(c->o, sample_metric(s, SAMPLE_METRIC_BW), 2);
	out_dbl(c->o, sample_metric(s, SAMPLE_METRIC_READ_IOPS), 0);
	out_dbl(c->o, sample_metric(s, SAMPLE_METRIC_WRITE_IOPS), 0);
	for (int d = 0; d < 3; d++) {
		/* a direction without I/O has no latency (not 0 us) */
		const struct sample_stats *st =
			&s->st[sample_metric_dir((enum sample_metric)points_lat_metrics[d][0])];

		for (int k = 0; k < 3; k++) {
			if (!st->ios)
				out_null(c->o);
			else
				out_dbl(c->o,
					sample_metric(s,
						      (enum sample_metric)points_lat_metrics[d][k]),
					1);
		}
	}
	out_i64(c->o, (int64_t)s->errors);
	out_time(c->o, c->fmt, s->start_ns);
	out_time(c->o, c->fmt, s->end_ns);
	out_end_row(c->o);
	c->n++;
	return 0;
}

static int cmd_points(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	struct points_ctx c = {.fmt = cli->format};
	struct cli_phase ph;
	uint64_t phase_seq = 0;
	int64_t run_id;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if ((r = cli_parse_phase(optarg, &phase_seq)))
				return r;
			break;
		default:
			return cli_bad_option("points", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("points");
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;
	if ((r = points_open(cli, run_id, (int)phase_seq, &ph)))
		return r;
	c.run = &ph.run;
	if (cli->format == CLI_TABLE) {
		size_t ndb = 1;

		/* which run of which host, when several databases are read */
		if (!cli_db_count(cli, &ndb) && ndb > 1) {
			char ref[160];

			printf("run %s phase %d sweep\n",
			       points_run_ref(cli, &ph.run, ref, sizeof(ref)), ph.p->seq);
		}
		c.o = out_new(cli->format, stdout, points_cols + PC_POINT, PC_N - PC_POINT);
	} else {
		c.o = out_new(cli->format, stdout, points_cols, PC_N);
	}
	if (!c.o) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	r = store_points_foreach(ph.s, ph.p->id, 0, points_row, &c);
	if (r) {
		out_abort(c.o);
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph.s));
	} else if (out_finish(c.o)) {
		r = cli_error(CLI_USAGE, "writing the output failed");
	} else if (!c.n && cli->format == CLI_TABLE) {
		/* an empty listing is an answer; say why for a person */
		fprintf(stderr,
			"plateau: run %lld phase %d (sweep) has no load point measured yet\n",
			(long long)run_id, ph.p->seq);
	}
out:
	cli_close_phase(&ph);
	return r;
}

const struct cli_cmd cli_cmd_points = {
	"points",
	"RUN [--phase N]",
	"a sweep's load points: threads, QD, IOPS, MB/s and latency",
	"  --phase N           the sweep phase (see `plateau show`); default: the\n"
	"                      run's last sweep phase\n" FORMAT_HELP
	"  Columns (JSON keys, CSV header): run host uuid (whose run), point\n"
	"  threads iodepth iops bw_mbps\n"
	"  read_iops write_iops, lat_mean_us lat_p99_us lat_p9999_us and the same\n"
	"  with read_ and write_ (null for a direction without I/O), errors,\n"
	"  start end (ISO 8601 UTC).  The figures are the points' measurements\n"
	"  (after each point's ramp), as stored.\n"
	"  Exit status: 0 listed (also none yet); 2 bad option, or the phase is\n"
	"  not a sweep; 3 no such run or phase, or no sweep.\n",
	cmd_points,
	CLI_FMT_ALL};
