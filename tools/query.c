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

enum samples_colid {
	SC_SEQ,
	SC_START,
	SC_ELAPSED,
	SC_IOPS,
	SC_BW,
	SC_LAT,
	SC_P99,
	SC_LAT_MAX,
	SC_LAT_STDDEV,
	SC_RIOPS,
	SC_WIOPS,
	SC_ERRORS,
	SC_PARTIAL,
	SC_N,
};

static const struct out_col samples_all_cols[SC_N] = {
	[SC_SEQ] = {"round", "ROUND", 6, 0},
	[SC_START] = {"start", "START", 19, 1},
	[SC_ELAPSED] = {"elapsed_s", "ELAPSED_S", 10, 0},
	[SC_IOPS] = {"iops", "IOPS", 11, 0},
	[SC_BW] = {"bw_mbps", "MB/S", 9, 0},
	[SC_LAT] = {"lat_mean_us", "LAT_US", 10, 0},
	[SC_P99] = {"lat_p99_us", "P99_US", 10, 0},
	[SC_LAT_MAX] = {"lat_max_us", "MAX_US", 10, 0},
	[SC_LAT_STDDEV] = {"lat_stddev_us", "STDDEV_US", 10, 0},
	[SC_RIOPS] = {"read_iops", "READ_IOPS", 11, 0},
	[SC_WIOPS] = {"write_iops", "WRITE_IOPS", 11, 0},
	[SC_ERRORS] = {"errors", "ERRORS", 6, 0},
	/* an interval cut short: not a round of the steady-state judgement */
	[SC_PARTIAL] = {"partial", "PARTIAL", 7, 0},
};

static const int samples_metric_col[SAMPLE_METRIC_N] = {
	[SAMPLE_METRIC_IOPS] = SC_IOPS,
	[SAMPLE_METRIC_BW] = SC_BW,
	[SAMPLE_METRIC_LAT] = SC_LAT,
	[SAMPLE_METRIC_LAT_MAX] = SC_LAT_MAX,
	[SAMPLE_METRIC_LAT_STDDEV] = SC_LAT_STDDEV,
	[SAMPLE_METRIC_P99] = SC_P99,
};

struct samples_ctx {
	struct out *o;
	enum cli_format fmt;
	int cols[SC_N];
	size_t ncols;
	int64_t t0_ns;
};

static int samples_row(void *ctx, const struct sample *smp)
{
	struct samples_ctx *c = ctx;
	double secs = (double)(smp->end_ns - smp->start_ns) / 1e9;

	if (!c->t0_ns) /* a phase without a start time counts from its first sample */
		c->t0_ns = smp->start_ns;

	for (size_t i = 0; i < c->ncols; i++) {
		switch (c->cols[i]) {
		case SC_SEQ:
			out_i64(c->o, smp->seq);
			break;
		case SC_START:
			out_time(c->o, c->fmt, smp->start_ns);
			break;
		case SC_ELAPSED:
			out_dbl(c->o, (double)(smp->end_ns - c->t0_ns) / 1e9, 1);
			break;
		case SC_IOPS:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_IOPS), 1);
			break;
		case SC_BW:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_BW), 2);
			break;
		case SC_LAT:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_LAT), 1);
			break;
		case SC_P99:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_P99), 1);
			break;
		case SC_LAT_MAX:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_LAT_MAX), 1);
			break;
		case SC_LAT_STDDEV:
			out_dbl(c->o, sample_metric(smp, SAMPLE_METRIC_LAT_STDDEV), 1);
			break;
		case SC_RIOPS:
			out_dbl(c->o, (double)smp->st[SAMPLE_READ].ios / secs, 1);
			break;
		case SC_WIOPS:
			out_dbl(c->o, (double)smp->st[SAMPLE_WRITE].ios / secs, 1);
			break;
		case SC_ERRORS:
			out_i64(c->o, (int64_t)smp->errors);
			break;
		case SC_PARTIAL:
			out_bool(c->o, smp->partial);
			break;
		}
	}
	out_end_row(c->o);
	return 0;
}

int cmd_samples(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		{"metric", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	struct samples_ctx c = {.fmt = cli->format};
	struct out_col cols[SC_N];
	const char *metrics = NULL;
	struct cli_phase ph;
	uint64_t phase_seq = 0;
	int64_t run_id;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (parse_uint_range(optarg, 1, 1000000, &phase_seq))
				return cli_error(CLI_USAGE,
						 "--phase: expected a phase number, not '%s'",
						 optarg);
			break;
		case 'm':
			metrics = optarg;
			break;
		default:
			return cli_bad_option("samples", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("samples");
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;

	c.cols[c.ncols++] = SC_SEQ;
	c.cols[c.ncols++] = SC_START;
	c.cols[c.ncols++] = SC_ELAPSED;
	if (metrics) {
		int m[SAMPLE_METRIC_N];
		size_t nm;

		if ((r = judge_parse_metrics(metrics, m, &nm)))
			return r;
		for (size_t i = 0; i < nm; i++)
			c.cols[c.ncols++] = samples_metric_col[m[i]];
		c.cols[c.ncols++] = SC_PARTIAL;
	} else {
		for (int i = SC_IOPS; i < SC_N; i++)
			c.cols[c.ncols++] = i;
	}
	for (size_t i = 0; i < c.ncols; i++)
		cols[i] = samples_all_cols[c.cols[i]];

	if ((r = cli_open_phase(cli, run_id, (int)phase_seq, &ph)))
		return r;
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
		char buf[32];

#define SJD(k, v, prec)                                                         \
	do {                                                                    \
		snprintf(buf, sizeof(buf), "%.*f", prec, v);                    \
		json_object_object_add(o, k, json_object_new_double_s(v, buf)); \
	} while (0)
		json_object_object_add(o, "point", json_object_new_int(pt->seq));
		json_object_object_add(o, "threads", json_object_new_int((int)pt->threads));
		json_object_object_add(o, "iodepth", json_object_new_int((int)pt->iodepth));
		SJD("iops", sample_metric(m, SAMPLE_METRIC_IOPS), 1);
		SJD("bw_mbps", sample_metric(m, SAMPLE_METRIC_BW), 2);
		SJD("lat_mean_us", sample_metric(m, SAMPLE_METRIC_LAT), 1);
		SJD("lat_p99_us", sample_metric(m, SAMPLE_METRIC_P99), 1);
		SJD("lat_max_us", sample_metric(m, SAMPLE_METRIC_LAT_MAX), 1);
#undef SJD
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
	"RUN [--phase N] [--metric M[,M...]]",
	"the samples (curve) of a phase",
	"  --phase N           phase number (see `plateau show`); default: the last\n"
	"                      preconditioning phase with samples\n"
	"  --metric M          only these columns: iops bw lat lat-max lat-stddev "
	"p99\n" FORMAT_HELP,
	cmd_samples,
	CLI_FMT_ALL};

const struct cli_cmd cli_cmd_migrate = {
	"migrate", "",		"upgrade the database schema (the daemon does this on start)",
	"",	   cmd_migrate, false};
