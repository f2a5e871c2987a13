// SPDX-License-Identifier: MIT
/*
 * latency: `plateau latency`, any percentile of a span of a run, computed
 * from the stored histograms.
 *
 * Every sample (and every sweep point) stores its read and write latency
 * histograms (lib/hist.h: within 1/128 of the true value).  The histograms
 * of the span are merged, and each percentile is the nearest rank of the
 * merged one, as the stored per-sample percentiles are: so a span of one
 * round gives back that round's stored p50..p99.99 exactly, and a span of
 * many gives the percentile of all of their I/Os together (which no average
 * of per-round percentiles is).  I/O count, minimum, mean and maximum are
 * exact.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "parse.h"
#include "points.h"
#include "verdict.h"

#define LAT_PCTS_MAX 32

enum lat_span {
	LAT_PHASE,  /* every sample of the phase (a sweep: every point) */
	LAT_ROUNDS, /* samples first..last by number */
	LAT_WINDOW, /* the steady-state window's rounds */
	LAT_POINT,  /* one sweep point's measurement */
};

struct lat_ctx {
	enum lat_span span;
	int64_t first, last; /* LAT_ROUNDS: sample numbers; LAT_WINDOW: rounds */
	int point;
	bool points; /* the span is sweep points' measurements, not samples */
	/* merged: read, write */
	struct hist h[2];
	size_t samples;
	int64_t first_seq, last_seq, start_ns, end_ns;
	int64_t rounds; /* full samples seen (LAT_WINDOW) */
	int64_t nohist_seq;
	int nohist_dir;
	bool need[2]; /* the directions whose histograms are asked for */
};

/* Add one sample's (or point's) histograms of the directions asked for; a
 * direction asked for with I/O but no stored histogram stops the walk. */
static int lat_add(struct lat_ctx *c, const struct sample *s, int64_t seq)
{
	for (int d = 0; d < 2; d++) {
		if (!c->need[d])
			continue;
		if (s->hist[d]) {
			hist_merge(&c->h[d], s->hist[d]);
		} else if (s->st[d].ios) {
			c->nohist_seq = seq;
			c->nohist_dir = d;
			return -ENODATA;
		}
	}
	if (!c->samples++) {
		c->first_seq = seq;
		c->start_ns = s->start_ns;
	}
	c->last_seq = seq;
	if (s->end_ns > c->end_ns)
		c->end_ns = s->end_ns;
	return 0;
}

static int lat_sample(void *ctx, const struct sample *s)
{
	struct lat_ctx *c = ctx;

	switch (c->span) {
	case LAT_ROUNDS:
		if (s->seq < c->first)
			return 0;
		if (s->seq > c->last)
			return 1; /* in seq order: done */
		break;
	case LAT_WINDOW:
		/* rounds as the judgement counts them: full samples only */
		if (s->partial)
			return 0;
		c->rounds++;
		if (c->rounds < c->first)
			return 0;
		if (c->rounds > c->last)
			return 1;
		break;
	default:
		break;
	}
	return lat_add(c, s, s->seq);
}

static int lat_point(void *ctx, const struct store_point *pt)
{
	struct lat_ctx *c = ctx;

	if (c->span == LAT_POINT && pt->seq != c->point)
		return 0;
	return lat_add(c, &pt->smp, pt->seq);
}

/* "50,99,99.99": each in (0, 100], at most 7 decimals (hist_rank()'s
 * resolution), no repeats */
static int lat_parse_pcts(const char *arg, double *pcts, size_t *n)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(buf))
		return cli_error(CLI_USAGE, "--percentiles: too long");
	strcpy(buf, arg);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double p;

		errno = 0;
		p = strtod(tok, &end);
		if (errno || end == tok || *end || !(p > 0 && p <= 100) ||
		    fabs(p * 1e7 - round(p * 1e7)) > 1e-4)
			return cli_error(CLI_USAGE,
					 "--percentiles: expected numbers above 0 and at most 100 "
					 "(at most 7 decimals), separated by commas, not '%s'",
					 tok);
		for (size_t i = 0; i < *n; i++)
			if (pcts[i] == p)
				return cli_error(CLI_USAGE, "--percentiles: %s is given twice",
						 tok);
		if (*n == LAT_PCTS_MAX)
			return cli_error(CLI_USAGE, "--percentiles: at most %d", LAT_PCTS_MAX);
		pcts[(*n)++] = p;
	}
	if (!*n)
		return cli_error(CLI_USAGE, "--percentiles: expected at least one number");
	return CLI_OK;
}

/* "read", "write", "all" or a comma-separated list of them, in that order */
static int lat_parse_dirs(const char *arg, bool dirs[SAMPLE_NDIRS])
{
	static const char *const names[SAMPLE_NDIRS] = {"read", "write", "all"};
	char buf[64], *save = NULL, *tok;
	bool any = false;

	memset(dirs, 0, SAMPLE_NDIRS * sizeof(bool));
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int d;

		for (d = 0; d < SAMPLE_NDIRS && strcmp(tok, names[d]); d++)
			;
		if (d == SAMPLE_NDIRS)
			return cli_error(CLI_USAGE,
					 "--dir: expected read, write or all (or a list of them), "
					 "not '%s'",
					 tok);
		dirs[d] = any = true;
	}
	if (!any || strlen(arg) >= sizeof(buf))
		return cli_error(CLI_USAGE, "--dir: expected read, write or all, not '%s'", arg);
	return CLI_OK;
}

/* "A-B" or "A": sample numbers from 1 */
static int lat_parse_rounds(const char *arg, int64_t *first, int64_t *last)
{
	const char *dash = strchr(arg, '-');
	char a[32];
	uint64_t x, y;

	if (!dash) {
		if (parse_uint_range(arg, 1, INT64_MAX, &x))
			goto bad;
		*first = *last = (int64_t)x;
		return CLI_OK;
	}
	if ((size_t)(dash - arg) >= sizeof(a))
		goto bad;
	memcpy(a, arg, (size_t)(dash - arg));
	a[dash - arg] = '\0';
	if (parse_uint_range(a, 1, INT64_MAX, &x) || parse_uint_range(dash + 1, 1, INT64_MAX, &y) ||
	    y < x)
		goto bad;
	*first = (int64_t)x;
	*last = (int64_t)y;
	return CLI_OK;
bad:
	return cli_error(CLI_USAGE,
			 "--rounds: expected A-B (sample numbers, 1 <= A <= B) or one number, "
			 "not '%s'",
			 arg);
}

/* "p99.99_us": the key of a percentile column, the percentile in the
 * fewest decimals that read back (at most 7, lat_parse_pcts()) */
static char *lat_pct_key(double pct)
{
	char num[32], *s;
	int dec = 0;

	for (; dec < 7; dec++) {
		snprintf(num, sizeof(num), "%.*f", dec, pct);
		if (strtod(num, NULL) == pct)
			break;
	}
	snprintf(num, sizeof(num), "%.*f", dec, pct);
	if (asprintf(&s, "p%s_us", num) < 0)
		return NULL;
	return s;
}

struct lat_out {
	struct out_col cols[16 + LAT_PCTS_MAX];
	char *keys[LAT_PCTS_MAX], *titles[LAT_PCTS_MAX];
	size_t ncols;
};

static void lat_out_free(struct lat_out *lo)
{
	for (size_t i = 0; i < LAT_PCTS_MAX; i++) {
		free(lo->keys[i]);
		free(lo->titles[i]);
	}
}

static int lat_print(struct cli *cli, const struct cli_phase *ph, const struct lat_ctx *c,
		     const double *pcts, size_t npcts, const bool dirs[SAMPLE_NDIRS])
{
	static const char *const dir_names[SAMPLE_NDIRS] = {"read", "write", "all"};
	enum cli_format fmt = cli->format;
	bool table = fmt == CLI_TABLE;
	struct lat_out lo = {0};
	struct hist *all = malloc(sizeof(*all));
	struct out *o = NULL;
	int r = CLI_OK;

	if (!all)
		return cli_error(CLI_USAGE, "out of memory");
	hist_init(all);
	hist_merge(all, &c->h[0]);
	hist_merge(all, &c->h[1]);

#define COL(n, t, l) (lo.cols[lo.ncols++] = (struct out_col){n, t, 0, l})
	if (!table) {
		COL("run", NULL, 0);
		COL("host", NULL, 1);
		COL("uuid", NULL, 1);
		COL("phase", NULL, 0);
		COL("point", NULL, 0);
		COL("first_round", NULL, 0);
		COL("last_round", NULL, 0);
		COL("samples", NULL, 0);
		COL("start", NULL, 1);
		COL("end", NULL, 1);
	}
	COL("dir", "DIR", 1);
	COL("ios", "IOS", 0);
	COL("lat_min_us", "MIN_US", 0);
	COL("lat_mean_us", "MEAN_US", 0);
	COL("lat_max_us", "MAX_US", 0);
	for (size_t i = 0; i < npcts; i++) {
		lo.keys[i] = lat_pct_key(pcts[i]);
		if (!lo.keys[i]) {
			r = cli_error(CLI_USAGE, "out of memory");
			goto out;
		}
		lo.titles[i] = strdup(lo.keys[i]);
		for (char *t = lo.titles[i]; t && *t; t++)
			*t = *t >= 'a' && *t <= 'z' ? (char)(*t - 'a' + 'A') : *t;
		COL(lo.keys[i], lo.titles[i], 0);
	}
#undef COL

	if (table) {
		char t0[32], t1[32], ref[160];

		printf("run %s phase %d %s", points_run_ref(cli, &ph->run, ref, sizeof(ref)),
		       ph->p->seq, ph->p->kind);
		if (c->span == LAT_POINT)
			printf(", load point %d", c->point);
		else if (c->points)
			printf(", load points %lld-%lld", (long long)c->first_seq,
			       (long long)c->last_seq);
		else
			printf(", %s %lld-%lld (%zu sample%s)",
			       c->span == LAT_WINDOW ? "steady window, samples" : "samples",
			       (long long)c->first_seq, (long long)c->last_seq, c->samples,
			       c->samples == 1 ? "" : "s");
		printf(", %s to %s\n", cli_fmt_time(t0, sizeof(t0), c->start_ns),
		       cli_fmt_time(t1, sizeof(t1), c->end_ns));
	}
	o = out_new(fmt, stdout, lo.cols, lo.ncols);
	if (!o) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		const struct hist *h = d == SAMPLE_ALL ? all : &c->h[d];

		if (!dirs[d])
			continue;
		if (!table) {
			out_i64(o, ph->run.id);
			out_str(o, *ph->run.host ? ph->run.host : NULL);
			out_str(o, *ph->run.uuid ? ph->run.uuid : NULL);
			out_i64(o, ph->p->seq);
			if (c->span == LAT_POINT)
				out_i64(o, c->point);
			else
				out_null(o);
			if (c->points) {
				out_null(o);
				out_null(o);
			} else {
				out_i64(o, c->first_seq);
				out_i64(o, c->last_seq);
			}
			out_i64(o, (int64_t)c->samples);
			out_time(o, fmt, c->start_ns);
			out_time(o, fmt, c->end_ns);
		}
		out_str(o, dir_names[d]);
		out_i64(o, (int64_t)hist_count(h));
		if (!hist_count(h)) {
			/* no I/O in this direction: no latency at all */
			for (size_t i = 0; i < 3 + npcts; i++)
				out_null(o);
		} else {
			out_dbl(o, (double)hist_min(h) / 1e3, 3);
			out_dbl(o, hist_mean(h) / 1e3, 3);
			out_dbl(o, (double)hist_max(h) / 1e3, 3);
			for (size_t i = 0; i < npcts; i++)
				out_dbl(o, (double)hist_percentile(h, pcts[i]) / 1e3, 3);
		}
		out_end_row(o);
	}
	if (out_finish(o))
		r = cli_error(CLI_USAGE, "writing the output failed");
out:
	lat_out_free(&lo);
	free(all);
	return r;
}

/* The window of the phase's steady verdict, as `plateau steady` gives it */
static int lat_window(const struct cli_phase *ph, struct lat_ctx *c)
{
	struct verdict v;
	char err[512];
	int r;

	if (strcmp(ph->p->kind, "precondition"))
		return cli_error(CLI_USAGE,
				 "--window: run %lld phase %d is a %s phase: only a "
				 "precondition phase is judged",
				 (long long)ph->run.id, ph->p->seq, ph->p->kind);
	r = verdict_judge_phase(ph->s, ph->p, NULL, 0, &v, err, sizeof(err));
	verdict_free(&v);
	if (r)
		return cli_error(CLI_USAGE, "%s", err);
	if (!v.all.steady)
		return cli_error(CLI_NOT,
				 "--window: run %lld phase %d is not steady (%zu rounds): it has "
				 "no steady-state window",
				 (long long)ph->run.id, ph->p->seq, v.all.rounds);
	c->first = (int64_t)v.all.window_start;
	c->last = (int64_t)v.all.window_end;
	return CLI_OK;
}

static int cmd_latency(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		{"point", required_argument, NULL, 'P'},
		{"rounds", required_argument, NULL, 'r'},
		{"window", no_argument, NULL, 'w'},
		{"percentiles", required_argument, NULL, 'c'},
		{"dir", required_argument, NULL, 'd'},
		{NULL, 0, NULL, 0},
	};
	double pcts[LAT_PCTS_MAX];
	size_t npcts = SAMPLE_NPCT;
	bool dirs[SAMPLE_NDIRS] = {[SAMPLE_ALL] = true};
	struct lat_ctx *c;
	struct cli_phase ph;
	uint64_t phase_seq = 0, u;
	int64_t run_id;
	int opt, r, spans = 0;

	memcpy(pcts, sample_pcts, sizeof(sample_pcts));
	c = calloc(1, sizeof(*c));
	if (!c)
		return cli_error(CLI_USAGE, "out of memory");
	c->span = LAT_PHASE;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		r = CLI_OK;
		switch (opt) {
		case 'p':
			r = cli_parse_phase(optarg, &phase_seq);
			break;
		case 'P':
			if (parse_uint_range(optarg, 1, 1000000, &u))
				r = cli_error(CLI_USAGE,
					      "--point: expected a load point number, not '%s'",
					      optarg);
			c->span = LAT_POINT;
			c->point = (int)u;
			spans++;
			break;
		case 'r':
			r = lat_parse_rounds(optarg, &c->first, &c->last);
			c->span = LAT_ROUNDS;
			spans++;
			break;
		case 'w':
			c->span = LAT_WINDOW;
			spans++;
			break;
		case 'c':
			r = lat_parse_pcts(optarg, pcts, &npcts);
			break;
		case 'd':
			r = lat_parse_dirs(optarg, dirs);
			break;
		default:
			r = cli_bad_option("latency", argv);
			break;
		}
		if (r)
			goto out_free;
	}
	if (spans > 1) {
		r = cli_error(CLI_USAGE, "--point, --rounds and --window choose the span: one of "
					 "them at most");
		goto out_free;
	}
	if (optind != argc - 1) {
		r = cli_usage("latency");
		goto out_free;
	}
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		goto out_free;
	/* --point is a sweep's; without --phase it means the last sweep */
	r = c->span == LAT_POINT ? points_open(cli, run_id, (int)phase_seq, &ph)
				 : cli_open_phase(cli, run_id, (int)phase_seq, &ph);
	if (r)
		goto out_free;
	if (c->span == LAT_WINDOW && (r = lat_window(&ph, c)))
		goto out;
	if (dirs[SAMPLE_READ] + dirs[SAMPLE_WRITE] + dirs[SAMPLE_ALL] == 1 && !dirs[SAMPLE_ALL]) {
		const char *what[2] = {dirs[SAMPLE_READ] ? "--dir read" : NULL,
				       dirs[SAMPLE_WRITE] ? "--dir write" : NULL};

		/* --dir read alone of a phase that never read: nothing to show
		 * (in a list, its row says 0 I/Os and no latency) */
		if ((r = points_need_io(&ph, what)))
			goto out;
	}
	/* all needs both */
	c->need[SAMPLE_READ] = dirs[SAMPLE_READ] || dirs[SAMPLE_ALL];
	c->need[SAMPLE_WRITE] = dirs[SAMPLE_WRITE] || dirs[SAMPLE_ALL];
	hist_init(&c->h[0]);
	hist_init(&c->h[1]);
	c->points = c->span == LAT_POINT || (c->span == LAT_PHASE && !strcmp(ph.p->kind, "sweep"));
	if (c->points)
		r = store_points_foreach(ph.s, ph.p->id, STORE_WITH_HISTS, lat_point, c);
	else
		r = store_samples_foreach(ph.s, ph.p->id, c->span == LAT_ROUNDS ? c->first : 1,
					  STORE_WITH_HISTS, lat_sample, c);
	if (r < 0 && r != -ENODATA) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph.s));
		goto out;
	}
	if (r == -ENODATA) {
		r = cli_error(CLI_USAGE,
			      "run %lld phase %d %s %lld has %s I/Os but no stored histogram: "
			      "percentiles cannot be computed (its stored p50..p99.99 are in "
			      "`plateau samples`)",
			      (long long)run_id, ph.p->seq, c->points ? "load point" : "sample",
			      (long long)c->nohist_seq, c->nohist_dir ? "write" : "read");
		goto out;
	}
	if (!c->samples) {
		if (c->span == LAT_POINT)
			r = cli_error(CLI_NOTFOUND, "run %lld phase %d has no load point %d%s",
				      (long long)run_id, ph.p->seq, c->point,
				      " measured (plateau points lists them)");
		else if (c->span == LAT_ROUNDS)
			r = cli_error(CLI_NOTFOUND, "run %lld phase %d has no samples %lld-%lld",
				      (long long)run_id, ph.p->seq, (long long)c->first,
				      (long long)c->last);
		else
			r = cli_error(CLI_NOTFOUND, "run %lld phase %d (%s) has no %s yet",
				      (long long)run_id, ph.p->seq, ph.p->kind,
				      strcmp(ph.p->kind, "sweep") ? "samples"
								  : "load point measured");
		goto out;
	}
	r = lat_print(cli, &ph, c, pcts, npcts, dirs);
out:
	cli_close_phase(&ph);
out_free:
	free(c);
	return r;
}

const struct cli_cmd cli_cmd_latency = {
	"latency",
	"RUN [--phase N] [--point N | --rounds A-B | --window]\n"
	"       [--percentiles P,...] [--dir read|write|all]",
	"any latency percentile of a phase, point or rounds (histograms)",
	"  --phase N           phase number (see `plateau show`); default: the last\n"
	"                      preconditioning phase with samples (with --point: the\n"
	"                      last sweep)\n"
	"  --point N           one load point of a sweep (its measurement after the\n"
	"                      ramp); a sweep without --point or --rounds: all points\n"
	"  --rounds A-B        samples A to B (the ROUND of `plateau samples`), or one\n"
	"  --window            the rounds of the steady-state window (`plateau steady`)\n"
	"                      default: every sample of the phase\n"
	"  --percentiles P,... percentiles above 0 and at most 100, e.g.\n"
	"                      50,99,99.99,99.999 (default 50,90,99,99.9,99.99)\n"
	"  --dir D,...         read, write or all (default all: reads and writes)\n" FORMAT_HELP
	"  Percentiles are nearest ranks of the merged histograms (within 1/128 of\n"
	"  the true value); ios, min, mean and max are exact.  Latencies in us.\n"
	"  JSON/CSV columns: run host uuid phase point first_round last_round\n"
	"  samples start end dir ios lat_min_us lat_mean_us lat_max_us and\n"
	"  p<P>_us per percentile (p50_us, p99.99_us).\n"
	"  Exit status: 0 printed; 1 --window of a phase not steady; 2 bad option,\n"
	"  no histograms stored, or --dir read (write) alone of a phase without\n"
	"  reads (writes); 3 no such run, phase, point or samples.\n",
	cmd_latency,
	CLI_FMT_ALL};
