// SPDX-License-Identifier: MIT
/* query: show, samples, migrate: reading the database. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "judge.h"
#include "out.h"
#include "parse.h"

/* --- samples --- */

/*
 * A sample's columns.  JSON and CSV get every stored figure by default
 * (stable keys, units in the names); the table keeps its compact set unless
 * --wide.  Per direction the keys are prefixed "" (all I/O), "read_" or
 * "write_"; a percentile p99.9 is "lat_p99_9_us".
 */
enum samples_field {
	SF_ROUND,
	SF_START,
	SF_END,
	SF_ELAPSED,
	SF_LENGTH,
	SF_POINT,
	SF_THREADS,
	SF_IODEPTH,
	SF_IOS,
	SF_BYTES,
	SF_IOPS,
	SF_BW,
	SF_LAT_MEAN,
	SF_LAT_STDDEV,
	SF_LAT_MIN,
	SF_LAT_MAX,
	SF_LAT_PCT,
	SF_ERRORS,
	SF_PARTIAL,
	SF_METRIC, /* --metric: sample_metric() of one metric */
};

struct samples_col {
	enum samples_field f;
	enum sample_dir dir;
	int arg; /* SF_LAT_PCT: index into sample_pcts; SF_METRIC: the metric */
	int prec;
	char name[48];
	char title[48];
	int width;
	int left;
};

/* a sweep's load point: threads x iodepth, from the points table */
struct samples_load {
	unsigned int threads, iodepth;
};

struct samples_ctx {
	struct out *o;
	enum cli_format fmt;
	struct samples_col *cols;
	size_t ncols, cap;
	int64_t t0_ns;
	struct samples_load *loads; /* by point seq - 1 */
	size_t nloads;
};

static const char *const samples_dir_prefix[SAMPLE_NDIRS] = {
	[SAMPLE_READ] = "read_",
	[SAMPLE_WRITE] = "write_",
	[SAMPLE_ALL] = "",
};

static int samples_add(struct samples_ctx *c, enum samples_field f, enum sample_dir dir, int arg,
		       int prec, int width, int left, const char *name, const char *title)
{
	struct samples_col *col;

	if (c->ncols == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct samples_col *n = realloc(c->cols, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->cols = n;
		c->cap = cap;
	}
	col = &c->cols[c->ncols++];
	*col = (struct samples_col){.f = f, .dir = dir, .arg = arg, .prec = prec, .left = left};
	snprintf(col->name, sizeof(col->name), "%s%s", samples_dir_prefix[dir], name);
	snprintf(col->title, sizeof(col->title), "%s", title);
	col->width = width > (int)strlen(col->title) ? width : (int)strlen(col->title);
	return 0;
}

/* "P99.9" -> "p99_9" */
static void samples_pct_name(char *buf, size_t len, double pct)
{
	snprintf(buf, len, "p%g", pct);
	for (char *p = buf; *p; p++)
		if (*p == '.')
			*p = '_';
}

static void samples_upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

/* every stored figure of one direction */
static int samples_add_dir(struct samples_ctx *c, enum sample_dir d)
{
	static const char *const t[SAMPLE_NDIRS] = {
		[SAMPLE_READ] = "R_", [SAMPLE_WRITE] = "W_", [SAMPLE_ALL] = ""};
	char name[32], title[48];
	int r = 0;

#define ADD(f, prec, w, n, tt)                                             \
	do {                                                               \
		snprintf(title, sizeof(title), "%s%s", t[d], tt);          \
		r = r ? r : samples_add(c, f, d, 0, prec, w, 0, n, title); \
	} while (0)
	ADD(SF_IOS, 0, 11, "ios", "IOS");
	ADD(SF_BYTES, 0, 14, "bytes", "BYTES");
	ADD(SF_IOPS, 1, 11, "iops", "IOPS");
	ADD(SF_BW, 2, 9, "bw_mbps", "MB/S");
	ADD(SF_LAT_MEAN, 1, 10, "lat_mean_us", "LAT_US");
	ADD(SF_LAT_STDDEV, 1, 10, "lat_stddev_us", "STDDEV_US");
	ADD(SF_LAT_MIN, 1, 10, "lat_min_us", "MIN_US");
	ADD(SF_LAT_MAX, 1, 10, "lat_max_us", "MAX_US");
#undef ADD
	for (int i = 0; i < SAMPLE_NPCT && !r; i++) {
		char pn[16], tp[24];

		samples_pct_name(pn, sizeof(pn), sample_pcts[i]);
		snprintf(name, sizeof(name), "lat_%s_us", pn);
		snprintf(tp, sizeof(tp), "%s", pn);
		samples_upper(tp);
		snprintf(title, sizeof(title), "%s%s_US", t[d], tp);
		r = samples_add(c, SF_LAT_PCT, d, i, 1, 10, 0, name, title);
	}
	return r;
}

/*
 * A metric's column: its name with '.' and '-' as '_', and its unit
 * (sample_metric_unit()) as a suffix: iops, bw_mbps, lat_us, p99_us,
 * read_p99_9_us.  Written from the metric's own name and unit, so a metric
 * lib/sample.c gains gets its column unchanged here.
 */
static int samples_add_metric(struct samples_ctx *c, enum sample_metric m)
{
	const char *unit = sample_metric_unit(m);
	char name[48], title[48], suffix[16] = "";
	size_t k = 0;

	for (const char *p = sample_metric_name(m); *p && k + 1 < sizeof(name); p++)
		name[k++] = (char)((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a'
				   : (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p
											  : '_');
	name[k] = '\0';
	if (!strcmp(unit, "us"))
		snprintf(suffix, sizeof(suffix), "_us");
	else if (!strcmp(unit, "MB/s"))
		snprintf(suffix, sizeof(suffix), "_mbps");
	else if (!strcmp(unit, "IOPS") && (k < 4 || strcmp(name + k - 4, "iops")))
		snprintf(suffix, sizeof(suffix), "_iops");
	if (strlen(name) + strlen(suffix) < sizeof(name))
		strcat(name, suffix);
	snprintf(title, sizeof(title), "%s", name);
	samples_upper(title);
	return samples_add(c, SF_METRIC, SAMPLE_ALL, m, strcmp(unit, "MB/s") ? 1 : 2, 11, 0, name,
			   title);
}

static int samples_row(void *ctx, const struct sample *smp)
{
	struct samples_ctx *c = ctx;
	double secs = (double)(smp->end_ns - smp->start_ns) / 1e9;
	const struct samples_load *ld = smp->point > 0 && (size_t)smp->point <= c->nloads &&
							c->loads[smp->point - 1].threads
						? &c->loads[smp->point - 1]
						: NULL;

	if (!c->t0_ns) /* a phase without a start time counts from its first sample */
		c->t0_ns = smp->start_ns;

	for (size_t i = 0; i < c->ncols; i++) {
		const struct samples_col *col = &c->cols[i];
		const struct sample_stats *st = &smp->st[col->dir];

		switch (col->f) {
		case SF_ROUND:
			out_i64(c->o, smp->seq);
			break;
		case SF_START:
			out_time(c->o, c->fmt, smp->start_ns);
			break;
		case SF_END:
			out_time(c->o, c->fmt, smp->end_ns);
			break;
		case SF_ELAPSED:
			out_dec(c->o, smp->end_ns - c->t0_ns, 9, col->prec);
			break;
		case SF_LENGTH:
			out_dec(c->o, smp->end_ns - smp->start_ns, 9, col->prec);
			break;
		case SF_POINT:
			if (smp->point > 0)
				out_i64(c->o, smp->point);
			else
				out_null(c->o);
			break;
		case SF_THREADS:
		case SF_IODEPTH:
			if (ld)
				out_i64(c->o, col->f == SF_THREADS ? ld->threads : ld->iodepth);
			else
				out_null(c->o);
			break;
		case SF_IOS:
			out_i64(c->o, (int64_t)st->ios);
			break;
		case SF_BYTES:
			out_i64(c->o, (int64_t)st->bytes);
			break;
		case SF_IOPS:
			out_dbl(c->o, (double)st->ios / secs, col->prec);
			break;
		case SF_BW:
			out_dbl(c->o, (double)st->bytes / secs / 1e6, col->prec);
			break;
		case SF_LAT_MEAN:
			out_dbl(c->o, st->lat_mean_ns / 1e3, col->prec);
			break;
		case SF_LAT_STDDEV:
			out_dbl(c->o, st->lat_stddev_ns / 1e3, col->prec);
			break;
		case SF_LAT_MIN:
			out_dec(c->o, (int64_t)st->lat_min_ns, 3, col->prec);
			break;
		case SF_LAT_MAX:
			out_dec(c->o, (int64_t)st->lat_max_ns, 3, col->prec);
			break;
		case SF_LAT_PCT:
			out_dec(c->o, (int64_t)st->lat_pct_ns[col->arg], 3, col->prec);
			break;
		case SF_ERRORS:
			out_i64(c->o, (int64_t)smp->errors);
			break;
		case SF_PARTIAL:
			out_bool(c->o, smp->partial);
			break;
		case SF_METRIC:
			out_dbl(c->o, sample_metric(smp, (enum sample_metric)col->arg), col->prec);
			break;
		}
	}
	out_end_row(c->o);
	return 0;
}

static int samples_load(void *ctx, const struct store_point *pt)
{
	struct samples_ctx *c = ctx;

	if (pt->seq < 1)
		return 0;
	if ((size_t)pt->seq > c->nloads) {
		struct samples_load *n = realloc(c->loads, (size_t)pt->seq * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + c->nloads, 0, ((size_t)pt->seq - c->nloads) * sizeof(*n));
		c->loads = n;
		c->nloads = (size_t)pt->seq;
	}
	c->loads[pt->seq - 1] = (struct samples_load){pt->threads, pt->iodepth};
	return 0;
}

/* the columns: every stored figure (JSON, CSV, --wide), the compact table,
 * or --metric's */
static int samples_columns(struct samples_ctx *c, bool sweep, bool wide, const int *m, size_t nm)
{
	int r = 0;

	r = r ? r : samples_add(c, SF_ROUND, SAMPLE_ALL, 0, 0, 6, 0, "round", "ROUND");
	r = r ? r : samples_add(c, SF_START, SAMPLE_ALL, 0, 0, 19, 1, "start", "START");
	if (wide && !nm)
		r = r ? r : samples_add(c, SF_END, SAMPLE_ALL, 0, 0, 19, 1, "end", "END");
	r = r ? r : samples_add(c, SF_ELAPSED, SAMPLE_ALL, 0, 1, 10, 0, "elapsed_s", "ELAPSED_S");
	if (wide && !nm)
		r = r ? r
		      : samples_add(c, SF_LENGTH, SAMPLE_ALL, 0, 3, 9, 0, "length_s", "LENGTH_S");
	if ((wide && !nm) || sweep) {
		r = r ? r : samples_add(c, SF_POINT, SAMPLE_ALL, 0, 0, 5, 0, "point", "POINT");
		r = r ? r
		      : samples_add(c, SF_THREADS, SAMPLE_ALL, 0, 0, 7, 0, "threads", "THREADS");
		r = r ? r
		      : samples_add(c, SF_IODEPTH, SAMPLE_ALL, 0, 0, 7, 0, "iodepth", "IODEPTH");
	}
	if (nm) {
		for (size_t i = 0; i < nm && !r; i++)
			r = samples_add_metric(c, (enum sample_metric)m[i]);
	} else if (wide) {
		r = r ? r : samples_add_dir(c, SAMPLE_ALL);
		r = r ? r : samples_add_dir(c, SAMPLE_READ);
		r = r ? r : samples_add_dir(c, SAMPLE_WRITE);
		r = r ? r : samples_add(c, SF_ERRORS, SAMPLE_ALL, 0, 0, 6, 0, "errors", "ERRORS");
	} else {
		/* the table for people, as it always was */
		r = r ? r : samples_add(c, SF_IOPS, SAMPLE_ALL, 0, 1, 11, 0, "iops", "IOPS");
		r = r ? r : samples_add(c, SF_BW, SAMPLE_ALL, 0, 2, 9, 0, "bw_mbps", "MB/S");
		r = r ? r
		      : samples_add(c, SF_LAT_MEAN, SAMPLE_ALL, 0, 1, 10, 0, "lat_mean_us",
				    "LAT_US");
		r = r ? r
		      : samples_add(c, SF_LAT_PCT, SAMPLE_ALL, 2, 1, 10, 0, "lat_p99_us", "P99_US");
		r = r ? r
		      : samples_add(c, SF_LAT_MAX, SAMPLE_ALL, 0, 1, 10, 0, "lat_max_us", "MAX_US");
		r = r ? r
		      : samples_add(c, SF_LAT_STDDEV, SAMPLE_ALL, 0, 1, 10, 0, "lat_stddev_us",
				    "STDDEV_US");
		r = r ? r : samples_add(c, SF_IOPS, SAMPLE_READ, 0, 1, 11, 0, "iops", "READ_IOPS");
		r = r ? r
		      : samples_add(c, SF_IOPS, SAMPLE_WRITE, 0, 1, 11, 0, "iops", "WRITE_IOPS");
		r = r ? r : samples_add(c, SF_ERRORS, SAMPLE_ALL, 0, 0, 6, 0, "errors", "ERRORS");
	}
	/* an interval cut short: not a round of the steady-state judgement */
	r = r ? r : samples_add(c, SF_PARTIAL, SAMPLE_ALL, 0, 0, 7, 0, "partial", "PARTIAL");
	return r;
}

int cmd_samples(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		{"metric", required_argument, NULL, 'm'},
		{"wide", no_argument, NULL, 'w'},
		{NULL, 0, NULL, 0},
	};
	struct samples_ctx c = {.fmt = cli->format};
	struct out_col *cols = NULL;
	const char *metrics = NULL;
	struct cli_phase ph;
	uint64_t phase_seq = 0;
	int m[SAMPLE_METRIC_N];
	size_t nm = 0;
	bool wide = cli->format != CLI_TABLE, sweep;
	int64_t run_id;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if ((r = cli_parse_phase(optarg, &phase_seq)))
				return r;
			break;
		case 'm':
			metrics = optarg;
			break;
		case 'w':
			wide = true;
			break;
		default:
			return cli_bad_option("samples", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("samples");
	if (metrics && (r = judge_parse_metrics(metrics, m, &nm)))
		return r;
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;
	if ((r = cli_open_phase(cli, run_id, (int)phase_seq, &ph)))
		return r;
	sweep = !strcmp(ph.p->kind, "sweep");
	if (sweep && store_points_foreach(ph.s, ph.p->id, 0, samples_load, &c)) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph.s));
		goto out;
	}
	if (samples_columns(&c, sweep, wide, m, nm) || !(cols = calloc(c.ncols, sizeof(*cols)))) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.ncols; i++)
		cols[i] = (struct out_col){c.cols[i].name, c.cols[i].title, c.cols[i].width,
					   c.cols[i].left};
	c.t0_ns = ph.p->started_ns;
	c.o = out_new(cli->format, stdout, cols, c.ncols);
	if (!c.o) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	r = store_samples_foreach(ph.s, ph.p->id, 1, 0, samples_row, &c);
	if (r) {
		out_abort(c.o);
		r = cli_error(CLI_USAGE, "%s", store_errmsg(ph.s));
	} else if (out_finish(c.o)) {
		r = cli_error(CLI_USAGE, "writing the output failed");
	}
out:
	cli_close_phase(&ph);
	free(cols);
	free(c.cols);
	free(c.loads);
	return r;
}

/* --- show --- */

/* show renders into memory and prints only when all of it worked */
static FILE *so;

static json_object *show_json_time(int64_t ns)
{
	char buf[64];

	return ns ? json_object_new_string(cli_fmt_iso(buf, sizeof(buf), ns)) : NULL;
}

/* a double for scripts: exact (out_fmt_double()); null for NaN and inf */
static json_object *show_json_dbl(double v)
{
	char buf[PARSE_DOUBLE_BYTES];

	return isfinite(v) ? json_object_new_double_s(v, out_fmt_double(buf, sizeof(buf), v))
			   : NULL;
}

static bool show_requester_known(const struct store_run *r)
{
	return r->requester_uid >= 0 || r->requester_pid >= 0 || *r->requester_cmd ||
	       *r->requester_via;
}

/* "requester": each part, or null where unknown */
static json_object *show_json_requester(const struct store_run *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(
		o, "uid", r->requester_uid >= 0 ? json_object_new_int64(r->requester_uid) : NULL);
	json_object_object_add(
		o, "pid", r->requester_pid >= 0 ? json_object_new_int64(r->requester_pid) : NULL);
	json_object_object_add(o, "cmd",
			       *r->requester_cmd ? json_object_new_string(r->requester_cmd) : NULL);
	json_object_object_add(o, "via",
			       *r->requester_via ? json_object_new_string(r->requester_via) : NULL);
	return o;
}

/*
 * "uid 1000 (pid 4242: plateau start nightly.plan) via plateaud", each
 * unknown part said so.  The command line is whatever the requesting
 * process made its argv: control characters (an escape sequence) print as
 * '?'.
 */
static void show_requester(const struct store_run *r)
{
	char cmd[sizeof(r->requester_cmd)];
	size_t i;

	fprintf(so, "  requested by  ");
	if (!show_requester_known(r)) {
		fprintf(so, "unknown (stored before plateau recorded requesters)\n");
		return;
	}
	for (i = 0; r->requester_cmd[i] && i + 1 < sizeof(cmd); i++)
		cmd[i] = (unsigned char)r->requester_cmd[i] < 0x20 || r->requester_cmd[i] == 0x7f
				 ? '?'
				 : r->requester_cmd[i];
	cmd[i] = '\0';
	if (r->requester_uid >= 0)
		fprintf(so, "uid %lld", (long long)r->requester_uid);
	else
		fprintf(so, "uid unknown");
	if (r->requester_pid >= 0 && *cmd)
		fprintf(so, " (pid %lld: %s)", (long long)r->requester_pid, cmd);
	else if (r->requester_pid >= 0)
		fprintf(so, " (pid %lld)", (long long)r->requester_pid);
	else if (*cmd)
		fprintf(so, " (pid unknown: %s)", cmd);
	fprintf(so, " via %s\n", *r->requester_via ? r->requester_via : "unknown");
}

/*
 * A phase's stored parameters (JSON) as text for people: "key value" pairs,
 * a unit suffix said in words ("time_s 60" is "time 60 s", "bs_bytes
 * 131072" is "bs 128.00 KiB", "read_pct 70" is "read 70%"), arrays joined
 * by blanks, objects in parentheses.
 */
static void show_param_value(FILE *f, json_object *v);

static void show_param_pairs(FILE *f, json_object *o)
{
	bool first = true;

	json_object_object_foreach(o, key, v)
	{
		size_t n = strlen(key);
		bool number = json_object_is_type(v, json_type_int) ||
			      json_object_is_type(v, json_type_double);
		char size[64];

		fprintf(f, "%s", first ? "" : ", ");
		first = false;
		if (n > 2 && !strcmp(key + n - 2, "_s") && number) {
			fprintf(f, "%.*s ", (int)(n - 2), key);
			show_param_value(f, v);
			fputs(" s", f);
		} else if (n > 6 && !strcmp(key + n - 6, "_bytes") &&
			   json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
			fprintf(f, "%.*s %s", (int)(n - 6), key,
				parse_fmt_size(size, sizeof(size),
					       (uint64_t)json_object_get_int64(v)));
		} else if (n > 4 && !strcmp(key + n - 4, "_pct") && number) {
			fprintf(f, "%.*s ", (int)(n - 4), key);
			show_param_value(f, v);
			fputs("%", f);
		} else {
			fprintf(f, "%s ", key);
			show_param_value(f, v);
		}
	}
}

static void show_param_value(FILE *f, json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		fputs("-", f);
		break;
	case json_type_boolean:
		fputs(json_object_get_boolean(v) ? "yes" : "no", f);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			fputs(i ? " " : "", f);
			show_param_value(f, json_object_array_get_idx(v, i));
		}
		break;
	case json_type_object:
		fputs("(", f);
		show_param_pairs(f, v);
		fputs(")", f);
		break;
	case json_type_double: {
		char buf[PARSE_DOUBLE_BYTES];

		/* every digit, without the exponent of "7e+01" */
		fputs(out_fmt_double(buf, sizeof(buf), json_object_get_double(v)), f);
		break;
	}
	default: /* integers and strings as they are */
		fputs(json_object_get_string(v), f);
		break;
	}
}

/* "parameters": a line per phase that has any, wrapped at 90 columns */
static void show_params(const struct store_phase *phases, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		json_object *o = phases[i].params ? json_tokener_parse(phases[i].params) : NULL;
		char *text = NULL;
		size_t len = 0, col = 6;
		FILE *f;

		if (!o || !json_object_is_type(o, json_type_object) ||
		    !json_object_object_length(o) || !(f = open_memstream(&text, &len))) {
			json_object_put(o);
			continue;
		}
		show_param_pairs(f, o);
		fclose(f);
		json_object_put(o);
		fprintf(so, "%s  %-3d ", any ? "" : "\nparameters\n", phases[i].seq);
		any = true;
		/* break after a ", " that would pass the margin */
		for (char *p = text; p && *p;) {
			char *sep = strstr(p, ", ");
			size_t w = sep ? (size_t)(sep - p) + 1 : strlen(p);

			if (col > 6 && col + 1 + w > 90) {
				fprintf(so, "\n%6s", "");
				col = 6;
			} else if (col > 6) {
				fputc(' ', so);
				col++;
			}
			fprintf(so, "%.*s", (int)w, p);
			col += w;
			p = sep ? sep + 2 : NULL;
		}
		fputc('\n', so);
		free(text);
	}
}

/* The erase record (lib/runner.c runner_erase_json) in words. */
static void show_erase(const struct store_phase *p)
{
	json_object *o = p->result ? json_tokener_parse(p->result) : NULL, *v, *a;

	fprintf(so, "\nerase (phase %d)\n", p->seq);
	if (!o) {
		fprintf(so, "  no record\n");
		return;
	}
	fprintf(so, "  method     %s (asked for %s)%s\n",
		json_object_get_string(json_object_object_get(o, "method")),
		json_object_get_string(json_object_object_get(o, "requested")),
		json_object_get_boolean(json_object_object_get(o, "resumed"))
			? ", a sanitize found running after a restart"
			: "");
	if (json_object_object_get_ex(o, "attempts", &a))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *t = json_object_array_get_idx(a, i);

			fprintf(so, "  %-10s %s: %s%s\n", i ? "" : "attempts",
				json_object_get_string(json_object_object_get(t, "method")),
				json_object_get_boolean(json_object_object_get(t, "ok")) ? "ok"
				: json_object_get_boolean(json_object_object_get(t, "sent"))
					? "REJECTED"
					: "not sent",
				"");
			fprintf(so, "  %-10s   %s\n", "",
				json_object_get_string(json_object_object_get(t, "message")));
		}
	if (json_object_object_get_ex(o, "warnings", &a))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			fprintf(so, "  %-10s %s\n", "warning",
				json_object_get_string(json_object_array_get_idx(a, i)));
	if (json_object_object_get_ex(o, "verify", &v)) {
		if (!json_object_get_boolean(json_object_object_get(v, "done")))
			fprintf(so, "  verify     not done\n");
		else
			fprintf(so,
				"  verify     %s: %d of %d sampled ranges read as 0x%02x (%d zero, "
				"%d "
				"0xff, %d other)\n",
				json_object_get_boolean(json_object_object_get(v, "passed"))
					? "passed"
					: "FAILED",
				json_object_get_int(json_object_object_get(
					v, json_object_get_int(json_object_object_get(v, "expect"))
						   ? "ranges_ones"
						   : "ranges_zero")),
				json_object_get_int(json_object_object_get(v, "ranges")),
				json_object_get_int(json_object_object_get(v, "expect")),
				json_object_get_int(json_object_object_get(v, "ranges_zero")),
				json_object_get_int(json_object_object_get(v, "ranges_ones")),
				json_object_get_int(json_object_object_get(v, "ranges_other")));
	}
	if (json_object_object_get_ex(o, "error", &v))
		fprintf(so, "  error      %s\n", json_object_get_string(v));
	json_object_put(o);
}

struct show_points_ctx {
	json_object *arr;
	size_t n;
};

static int show_point(void *ctx, const struct store_point *pt)
{
	struct show_points_ctx *c = ctx;
	const struct sample *m = &pt->smp;

	if (c->arr) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "point", json_object_new_int(pt->seq));
		json_object_object_add(o, "threads", json_object_new_int((int)pt->threads));
		json_object_object_add(o, "iodepth", json_object_new_int((int)pt->iodepth));
		json_object_object_add(o, "iops",
				       show_json_dbl(sample_metric(m, SAMPLE_METRIC_IOPS)));
		json_object_object_add(o, "bw_mbps",
				       show_json_dbl(sample_metric(m, SAMPLE_METRIC_BW)));
		json_object_object_add(o, "lat_mean_us",
				       show_json_dbl(sample_metric(m, SAMPLE_METRIC_LAT)));
		json_object_object_add(o, "lat_p99_us",
				       show_json_dbl(sample_metric(m, SAMPLE_METRIC_P99)));
		json_object_object_add(o, "lat_max_us",
				       show_json_dbl(sample_metric(m, SAMPLE_METRIC_LAT_MAX)));
		json_object_array_add(c->arr, o);
	} else {
		if (!c->n)
			fprintf(so, "  %-5s %-7s %11s %9s %10s %10s %10s\n", "POINT", "TxQ", "IOPS",
				"MB/S", "LAT_US", "P99_US", "MAX_US");
		char tq[32];

		snprintf(tq, sizeof(tq), "%ux%u", pt->threads, pt->iodepth);
		fprintf(so, "  %-5d %-7s %11.1f %9.2f %10.1f %10.1f %10.1f\n", pt->seq, tq,
			sample_metric(m, SAMPLE_METRIC_IOPS), sample_metric(m, SAMPLE_METRIC_BW),
			sample_metric(m, SAMPLE_METRIC_LAT), sample_metric(m, SAMPLE_METRIC_P99),
			sample_metric(m, SAMPLE_METRIC_LAT_MAX));
	}
	c->n++;
	return 0;
}

/* The load points of a sweep phase: a table, or "points" in @jphase. */
static int show_points(struct store *s, const struct store_phase *p, json_object *jphase)
{
	struct show_points_ctx c = {0};
	int r;

	if (jphase) {
		c.arr = json_object_new_array();
		json_object_object_add(jphase, "points", c.arr);
	} else {
		fprintf(so, "\nsweep (phase %d, %s)\n", p->seq, p->name);
	}
	r = store_points_foreach(s, p->id, 0, show_point, &c);
	if (r)
		return cli_error(CLI_USAGE, "%s", store_errmsg(s));
	if (!jphase && !c.n)
		fprintf(so, "  no load points measured\n");
	return CLI_OK;
}

int cmd_show(struct cli *cli, int argc, char **argv)
{
	struct store_run run = {0};
	struct store_phase *phases = NULL;
	size_t nphases = 0;
	int64_t run_id;
	struct store *s;
	json_object *doc = NULL, *jphases = NULL;
	char t1[64], t2[64], buf[64], *text = NULL;
	size_t textlen = 0;
	int r;

	/* show has no options of its own: a word with a dash is a mistyped
	 * one (--jsn), said so with a suggestion */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return cli_bad_arg("show", argv[i]);
	if (argc != 2)
		return cli_usage("show");
	if ((r = cli_find_run(cli, argv[1], &run_id)))
		return r;
	if ((r = cli_load_run(cli, run_id, &run)))
		return r;
	if ((r = cli_store(cli, &s)))
		goto out;
	if (store_phases_list(s, run_id, &phases, &nphases)) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(s));
		goto out;
	}
	so = open_memstream(&text, &textlen);
	if (!so) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}

	if (cli->format == CLI_JSON) {
		doc = json_object_new_object();
		json_object_object_add(doc, "run", json_object_new_int64(run.id));
		json_object_object_add(doc, "uuid", json_object_new_string(run.uuid));
		json_object_object_add(doc, "name", json_object_new_string(run.name));
		json_object_object_add(doc, "state", json_object_new_string(run.state));
		json_object_object_add(doc, "created", show_json_time(run.created_ns));
		json_object_object_add(doc, "started", show_json_time(run.started_ns));
		json_object_object_add(doc, "ended", show_json_time(run.ended_ns));
		json_object_object_add(doc, "host", json_object_new_string(run.host));
		json_object_object_add(doc, "version", json_object_new_string(run.version));
		json_object_object_add(doc, "requester", show_json_requester(&run));
		json_object_object_add(doc, "error",
				       run.error ? json_object_new_string(run.error) : NULL);
		json_object_object_add(doc, "drive", store_drive_json(&run.drive));
		json_object_object_add(doc, "plan", json_object_new_string(run.plan));
		jphases = json_object_new_array();
		json_object_object_add(doc, "phases", jphases);
	} else {
		fprintf(so, "run %lld: %s (%s)\n", (long long)run.id, run.name, run.state);
		fprintf(so, "  drive     %s, serial %s, firmware %s, %s\n",
			*run.drive.model ? run.drive.model : "(no model)", run.drive.serial,
			*run.drive.firmware ? run.drive.firmware : "-", run.drive.path);
		fprintf(so, "            %s (%llu bytes), %u-byte blocks, %s",
			parse_fmt_size(buf, sizeof(buf), run.drive.capacity_bytes),
			(unsigned long long)run.drive.capacity_bytes, run.drive.lba_bytes,
			run.drive.kind);
		if (*run.drive.eui64)
			fprintf(so, ", eui64 %s", run.drive.eui64);
		if (*run.drive.nguid)
			fprintf(so, ", nguid %s", run.drive.nguid);
		if (*run.drive.wwn)
			fprintf(so, ", wwn %s", run.drive.wwn);
		fprintf(so, "\n  created   %s on %s by plateau %s\n",
			cli_fmt_time(t1, sizeof(t1), run.created_ns), run.host, run.version);
		fprintf(so, "  global id %s\n", run.uuid);
		show_requester(&run);
		fprintf(so, "  started   %s   ended %s",
			cli_fmt_time(t1, sizeof(t1), run.started_ns),
			cli_fmt_time(t2, sizeof(t2), run.ended_ns));
		if (run.started_ns && run.ended_ns > run.started_ns)
			fprintf(so, "   (%s)",
				parse_fmt_duration(buf, sizeof(buf),
						   (uint64_t)(run.ended_ns - run.started_ns)));
		fprintf(so, "\n");
		if (run.error)
			fprintf(so, "  error     %s\n", run.error);
		fprintf(so, "\nphases\n  %-3s %-13s %-16s %-8s %-19s %10s %9s %7s\n", "#", "KIND",
			"NAME", "STATE", "STARTED", "DURATION", "PROGRESS", "ROUNDS");
	}

	for (size_t i = 0; i < nphases; i++) {
		const struct store_phase *p = &phases[i];
		char dur[32] = "-", prog[32] = "-";

		if (p->started_ns && p->ended_ns > p->started_ns)
			parse_fmt_duration(dur, sizeof(dur),
					   (uint64_t)(p->ended_ns - p->started_ns));
		if (p->total_bytes)
			snprintf(prog, sizeof(prog), "%.1f%%",
				 100.0 * (double)p->progress_bytes / (double)p->total_bytes);
		if (doc) {
			json_object *jp = json_object_new_object();

			json_object_object_add(jp, "phase", json_object_new_int(p->seq));
			json_object_object_add(jp, "kind", json_object_new_string(p->kind));
			json_object_object_add(jp, "name", json_object_new_string(p->name));
			json_object_object_add(jp, "state", json_object_new_string(p->state));
			json_object_object_add(jp, "started", show_json_time(p->started_ns));
			json_object_object_add(jp, "ended", show_json_time(p->ended_ns));
			json_object_object_add(jp, "progress_bytes",
					       json_object_new_int64((int64_t)p->progress_bytes));
			json_object_object_add(jp, "total_bytes",
					       json_object_new_int64((int64_t)p->total_bytes));
			json_object_object_add(jp, "rounds", json_object_new_int64(p->rounds));
			json_object_object_add(jp, "params",
					       p->params ? json_tokener_parse(p->params) : NULL);
			json_object_object_add(jp, "result",
					       p->result ? json_tokener_parse(p->result) : NULL);
			json_object_array_add(jphases, jp);
		} else {
			fprintf(so, "  %-3d %-13s %-16s %-8s %-19s %10s %9s %7lld\n", p->seq,
				p->kind, *p->name ? p->name : "-", p->state,
				cli_fmt_time(t1, sizeof(t1), p->started_ns), dur, prog,
				(long long)p->rounds);
		}
	}

	if (!doc)
		show_params(phases, nphases);

	for (size_t i = 0; i < nphases; i++) {
		const struct store_phase *p = &phases[i];
		int64_t nsamples = store_sample_count(s, p->id);

		/* a query that fails is an error: the verdict is never silently left out */
		if (nsamples < 0) {
			r = cli_error(CLI_USAGE, "%s", store_errmsg(s));
			goto out;
		}
		if (!strcmp(p->kind, "precondition") && nsamples > 0) {
			struct judge_opts jo;

			judge_opts_init(&jo);
			if (doc) {
				json_object *jp = json_object_array_get_idx(jphases, i), *js = NULL;

				r = judge_phase(cli, s, &run, p, &jo, NULL, &js);
				json_object_object_add(jp, "steady_state", js);
			} else {
				fprintf(so, "\n");
				r = judge_phase(cli, s, &run, p, &jo, so, NULL);
			}
			if (r > CLI_NOT)
				goto out;
			r = CLI_OK;
		} else if (!strcmp(p->kind, "sweep")) {
			if ((r = show_points(s, p,
					     doc ? json_object_array_get_idx(jphases, i) : NULL)))
				goto out;
		} else if (!doc && !strcmp(p->kind, "erase")) {
			show_erase(p);
		}
	}

	if (doc) {
		fprintf(so, "%s\n",
			json_object_to_json_string_ext(
				doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		const char *p = run.plan, *nl;

		fprintf(so, "\nplan\n");
		while (p && *p) {
			int n;

			nl = strchr(p, '\n');
			n = nl ? (int)(nl - p) : (int)strlen(p);
			fprintf(so, n ? "  %.*s\n" : "\n", n, p);
			p = nl ? nl + 1 : NULL;
		}
	}
	r = CLI_OK;
out:
	if (so) {
		fclose(so);
		so = NULL;
		if (r == CLI_OK)
			fwrite(text, 1, textlen, stdout);
		free(text);
	}
	json_object_put(doc);
	store_phases_free(phases, nphases);
	store_run_clear(&run);
	return r;
}

/* --- migrate --- */

int cmd_migrate(struct cli *cli, int argc, char **argv)
{
	struct store *s;
	char err[1024];
	int r, before;

	(void)argv;
	if (argc != 1)
		return cli_usage("migrate");
	r = store_open(cli->db_path, STORE_RDONLY, &s, err, sizeof(err));
	if (r == 0) {
		printf("%s: schema version %d, nothing to do\n", cli->db_path, store_version(s));
		store_close(s);
		return CLI_OK;
	}
	if (r != -EPROTO)
		return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
	before = store_file_version(cli->db_path);
	r = store_open(cli->db_path, 0, &s, err, sizeof(err));
	if (r)
		return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
	printf("%s: upgraded from schema version %d to %d\n", cli->db_path, before,
	       store_version(s));
	store_close(s);
	return CLI_OK;
}

const struct cli_cmd cli_cmd_show = {
	"show",
	"RUN",
	"a run: drive identity, plan, phases, erase record, steady-state verdict",
	"  The verdict of each preconditioning phase is re-judged from its stored\n"
	"  samples with the criterion its plan named, and shown with its evidence.\n"
	"  --json              one JSON document\n",
	cmd_show,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_samples = {
	"samples",
	"RUN [--phase N] [--metric M[,M...]] [--wide]",
	"the samples (curve) of a phase, every stored figure",
	"  --phase N           phase number (see `plateau show`); default: the last\n"
	"                      preconditioning phase with samples\n"
	"  --metric M[,M...]   only these metrics (as `plateau steady --metric`\n"
	"                      takes them), a column each: iops, bw_mbps, p99_us, ...\n"
	"  --wide              the table shows every column --json and --csv do\n"
	"  --json and --csv carry every stored figure of a sample, exact: round,\n"
	"  start, end, elapsed_s, length_s, point, threads, iodepth; then for all\n"
	"  I/O, read_ and write_: ios, bytes, iops, bw_mbps, lat_mean_us,\n"
	"  lat_stddev_us, lat_min_us, lat_max_us, lat_p50_us, lat_p90_us,\n"
	"  lat_p99_us, lat_p99_9_us, lat_p99_99_us; errors, partial (an interval\n"
	"  cut short, not a round of the steady-state judgement).\n" FORMAT_HELP,
	cmd_samples,
	CLI_FMT_ALL};

const struct cli_cmd cli_cmd_migrate = {
	"migrate", "",		"upgrade the database schema (the daemon does this on start)",
	"",	   cmd_migrate, false};
