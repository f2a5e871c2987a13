// SPDX-License-Identifier: MIT
/*
 * top: `plateau top`, a live view of the runs plateaud is carrying out.
 *
 * What runs, and their last sample, come from the daemon (the status
 * request, daemon/control.c); how close the current precondition phase is to
 * steady state comes from the database: the last W rounds of the phase
 * judged as one window with the phase's own criterion (lib/verdict.h), each
 * excursion shown as a share of its limit.  Both at or under 100 %: that
 * window passes (SNIA compares inclusively, fio strictly).
 *
 * Everything the daemon and the database say is checked before use: the
 * reply must be one JSON object with "ok" and an array of run objects, each
 * field of the expected type, and text printed to the terminal has its
 * control characters replaced (a run name must not move the cursor).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "parse.h"
#include "verdict.h"

#define TOP_INTERVAL_DEFAULT_NS (2ULL * 1000000000ULL)
#define TOP_INTERVAL_MIN_NS (100ULL * 1000000ULL)

static volatile sig_atomic_t top_quit;

static void top_on_signal(int sig)
{
	(void)sig;
	top_quit = 1;
}

/* One status request; 0 with *ret the reply, or an exit code and @err. */
static int top_status(const char *socket_path, json_object **ret, char *err, size_t errlen)
{
	json_object *req = json_object_new_object();
	int r;

	json_object_object_add(req, "cmd", json_object_new_string("status"));
	r = cli_call(socket_path, req, ret, err, errlen);
	json_object_put(req);
	return r;
}

/* --- checked access to the reply --- */

static json_object *top_get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* integer field, or @def when absent or of another type */
static int64_t top_int(json_object *o, const char *key, int64_t def)
{
	json_object *v = top_get(o, key, json_type_int);

	return v ? json_object_get_int64(v) : def;
}

/* number field (int or double), NAN when absent or not a finite number */
static double top_num(json_object *o, const char *key)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	d = json_object_get_double(v);
	return isfinite(d) ? d : NAN;
}

/* string field with control characters replaced, "-" when absent or empty */
static const char *top_str(json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v = top_get(o, key, json_type_string);
	const char *s = v ? json_object_get_string(v) : "";
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	if (!i)
		snprintf(buf, len, "-");
	return buf;
}

static bool top_bool(json_object *o, const char *key)
{
	json_object *v = top_get(o, key, json_type_boolean);

	return v && json_object_get_boolean(v);
}

/* --- the window from the database --- */

struct top_db {
	const char *path;
	struct store *s;
	char err[512];
};

/* Open the database read-only if it is not open yet; false with db->err. */
static bool top_db_open(struct top_db *db)
{
	int r;

	if (db->s)
		return true;
	r = store_open(db->path, STORE_RDONLY, &db->s, db->err, sizeof(db->err));
	if (r)
		db->s = NULL;
	return !r;
}

static void top_pct(FILE *out, const char *what, double excursion, double limit)
{
	if (limit > 0)
		fprintf(out, "%s %.0f%% of limit", what, 100.0 * excursion / limit);
	else
		fprintf(out, "%s n/a (the window averages 0)", what);
}

/*
 * How close the current window is: the last W rounds of the phase judged as
 * one window.  Prints the "window" line(s) of a run.
 */
static void top_window(FILE *out, struct top_db *db, int64_t run_id, int phase_seq)
{
	struct store_phase *ph = NULL, *p = NULL;
	struct verdict v = {0};
	size_t nph = 0, w;
	char err[512];
	bool none;

	if (!top_db_open(db)) {
		fprintf(out, "  window    unknown: %s\n", db->err);
		return;
	}
	if (store_phases_list(db->s, run_id, &ph, &nph)) {
		fprintf(out, "  window    unknown: %s\n", store_errmsg(db->s));
		return;
	}
	for (size_t i = 0; i < nph; i++)
		if (ph[i].seq == phase_seq)
			p = &ph[i];
	if (!p) {
		fprintf(out, "  window    unknown: run %lld phase %d is not in %s\n",
			(long long)run_id, phase_seq, db->path);
		goto out;
	}
	if (verdict_judge_phase(db->s, p, NULL, VERDICT_LAST_WINDOW, &v, err, sizeof(err))) {
		fprintf(out, "  window    unknown: %s\n", err);
		goto out;
	}
	none = v.phase.none;
	w = v.p.window;
	if (!v.judged) {
		fprintf(out, "  window    %zu of %zu rounds measured (%s%s)\n", v.n, w,
			steady_criterion_name(v.p.criterion), none ? ", the plan judges none" : "");
		goto out;
	}
	for (size_t k = 0; k < v.nmetrics; k++) {
		const struct steady_result *x = &v.res[k];

		fprintf(out, "  %-9s rounds %zu-%zu, %s %s: ", k ? "" : "window", v.first + 1, v.n,
			steady_criterion_name(v.p.criterion),
			sample_metric_name((enum sample_metric)v.metrics[k]));
		if (v.p.criterion != STEADY_FIO_SLOPE)
			top_pct(out, "data", x->data_excursion, x->data_limit);
		if (v.p.criterion == STEADY_SNIA)
			fputs(", ", out);
		if (v.p.criterion != STEADY_FIO_DEV)
			top_pct(out, "slope", x->slope_excursion, x->slope_limit);
		fprintf(out, "%s%s\n", x->data_ok && x->slope_ok ? " (passes)" : "",
			none && !k ? " (the plan judges none)" : "");
	}
out:
	verdict_free(&v);
	store_phases_free(ph, nph);
}

/* --- a frame --- */

/*
 * Progress, rate, elapsed time and ETA of the current phase: "progress
 * 40.0%, 12345 IOPS, elapsed 1h02m, ETA 13m00s" (a fill's rate in MB/s; a
 * precondition that stops at steady state has only a bound: "ETA <= 2h").
 */
static void top_timing(FILE *out, json_object *o, double prog)
{
	double rate = top_num(o, "rate");
	int64_t eta = top_int(o, "eta_ns", -1), max = top_int(o, "eta_max_ns", -1);
	int64_t el = top_int(o, "elapsed_ns", 0);
	char unit[16], buf[40];
	json_object *v;

	/* a plateaud without timing (an older one): its progress only */
	if (!json_object_object_get_ex(o, "elapsed_ns", &v)) {
		if (isfinite(prog) && prog >= 0 && prog <= 1)
			fprintf(out, "  progress  %.1f%%\n", 100.0 * prog);
		return;
	}
	fputs("  progress  ", out);
	if (isfinite(prog) && prog >= 0 && prog <= 1)
		fprintf(out, "%.1f%%", 100.0 * prog);
	else
		fputs("-", out);
	if (top_int(o, "max_rounds", 0) > 0)
		fprintf(out, " (%lld of max_rounds %lld)",
			(long long)top_int(o, "rounds_judged", 0),
			(long long)top_int(o, "max_rounds", 0));
	if (top_int(o, "npoints", 0) > 0)
		fprintf(out, " (point %lld of %lld)", (long long)top_int(o, "point", 0),
			(long long)top_int(o, "npoints", 0));
	top_str(o, "rate_unit", unit, sizeof(unit));
	if (isfinite(rate) && strcmp(unit, "-"))
		fprintf(out, !strcmp(unit, "IOPS") ? ", %.0f %s" : ", %.1f %s", rate, unit);
	if (el > 0)
		fprintf(out, ", elapsed %s", parse_fmt_duration(buf, sizeof(buf), (uint64_t)el));
	if (eta >= 0)
		fprintf(out, ", ETA %s", parse_fmt_duration(buf, sizeof(buf), (uint64_t)eta));
	else if (max >= 0)
		fprintf(out, ", ETA <= %s", parse_fmt_duration(buf, sizeof(buf), (uint64_t)max));
	else
		fputs(", ETA unknown", out);
	if (eta >= 0 && max > eta)
		fprintf(out, " (at most %s)", parse_fmt_duration(buf, sizeof(buf), (uint64_t)max));
	fputc('\n', out);
}

static void top_run(FILE *out, json_object *o, struct top_db *db, int64_t now_ns)
{
	char name[160], state[40], dev[300], serial[120], kind[40], pname[80], ago[32];
	int64_t id = top_int(o, "run", 0), last_ns = top_int(o, "last_sample_ns", 0);
	int phase = (int)top_int(o, "phase", 0);
	double prog = top_num(o, "progress");

	top_str(o, "phase_kind", kind, sizeof(kind));
	fprintf(out, "run %lld %s: %s", (long long)id, top_str(o, "name", name, sizeof(name)),
		top_str(o, "state", state, sizeof(state)));
	if (phase > 0)
		fprintf(out, ", phase %d %s %s", phase, kind,
			top_str(o, "phase_name", pname, sizeof(pname)));
	fputc('\n', out);
	fprintf(out, "  drive     %s, serial %s", top_str(o, "device", dev, sizeof(dev)),
		top_str(o, "serial", serial, sizeof(serial)));
	if (top_int(o, "threads", 0) > 0)
		fprintf(out, ", %lld x %lld (threads x iodepth)",
			(long long)top_int(o, "threads", 0), (long long)top_int(o, "iodepth", 0));
	fputc('\n', out);
	top_timing(out, o, prog);
	if (last_ns > 0) {
		if (now_ns >= last_ns)
			parse_fmt_duration(ago, sizeof(ago), (uint64_t)(now_ns - last_ns));
		else
			snprintf(ago, sizeof(ago), "0s");
		fprintf(out,
			"  last      round %lld, %s ago: %.0f IOPS, %.2f MB/s, mean %.1f us, p99 "
			"%.1f us\n",
			(long long)top_int(o, "last_round", 0), ago, top_num(o, "iops"),
			top_num(o, "bw_mbps"), top_num(o, "lat_mean_us"), top_num(o, "lat_p99_us"));
	} else {
		fprintf(out, "  last      no sample yet\n");
	}
	if (strcmp(kind, "precondition") || phase <= 0)
		return;
	fprintf(out, "  rounds    %lld", (long long)top_int(o, "rounds", 0));
	if (top_bool(o, "steady"))
		fprintf(out, ", steady since round %lld", (long long)top_int(o, "steady_round", 0));
	else if (top_bool(o, "steady_lost"))
		fprintf(out, ", steady state LOST");
	else
		fprintf(out, ", not steady yet");
	fputc('\n', out);
	top_window(out, db, id, phase);
}

/* how frames are drawn */
enum top_mode {
	TOP_ONCE,   /* one frame, then exit */
	TOP_REDRAW, /* a terminal: clear the screen for each frame */
	TOP_STREAM, /* not a terminal, --interval: frames one after another,
		     * each after a separator line, never screen control codes */
};

#define TOP_SEPARATOR "----------------------------------------------------------------\n"

/* What starts a frame (or the retry message) in @mode; @first: no frame
 * was printed yet. */
static void top_frame_start(FILE *out, enum top_mode mode, bool first)
{
	if (mode == TOP_REDRAW)
		fputs("\033[H\033[2J", out);
	else if (mode == TOP_STREAM && !first)
		fputs("\n" TOP_SEPARATOR, out);
}

/* One frame; CLI_OK, or an exit code when the daemon is not reachable. */
static int top_frame(FILE *out, const char *socket_path, struct top_db *db, enum top_mode mode,
		     bool first, char *err, size_t errlen)
{
	json_object *reply = NULL, *runs, *v;
	char buf[64], ver[40], dbpath[1100];
	size_t n;
	int r;

	r = top_status(socket_path, &reply, err, errlen);
	if (r)
		return r;
	if (!top_bool(reply, "ok")) {
		v = top_get(reply, "error", json_type_string);
		snprintf(err, errlen, "plateaud refused the status request: %s",
			 v ? json_object_get_string(v) : "no reason given");
		json_object_put(reply);
		return CLI_NODAEMON;
	}
	runs = top_get(reply, "runs", json_type_array);
	if (!runs) {
		snprintf(err, errlen, "plateaud's status has no list of runs");
		json_object_put(reply);
		return CLI_NODAEMON;
	}
	n = json_object_array_length(runs);
	top_frame_start(out, mode, first);
	fprintf(out, "plateaud %s, database %s: ", top_str(reply, "version", ver, sizeof(ver)),
		top_str(reply, "database", dbpath, sizeof(dbpath)));
	if (!n)
		fprintf(out, "no runs in progress");
	else
		fprintf(out, "%zu run%s in progress", n, n == 1 ? "" : "s");
	if (mode != TOP_ONCE)
		fprintf(out, "   %s", cli_fmt_time(buf, sizeof(buf), clock_wall_ns()));
	fputc('\n', out);
	/* the database the daemon writes, unless one was named (--db,
	 * $PLATEAU_DB): on one host they are the same file */
	if (!db->s && strcmp(dbpath, "-") && !strcmp(db->path, PLATEAU_DEFAULT_DB)) {
		static char daemon_db[1100];

		snprintf(daemon_db, sizeof(daemon_db), "%s", dbpath);
		db->path = daemon_db;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(runs, i);

		fputc('\n', out);
		if (!o || !json_object_is_type(o, json_type_object) || top_int(o, "run", 0) <= 0) {
			fprintf(out, "(an entry of plateaud's status that is not a run)\n");
			continue;
		}
		top_run(out, o, db, clock_wall_ns());
	}
	if (mode == TOP_REDRAW)
		fputs("\nCtrl-C quits\n", out);
	fflush(out);
	json_object_put(reply);
	return CLI_OK;
}

int cmd_top(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"interval", required_argument, NULL, 'i'},
		{"once", no_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct top_db db = {.path = cli->db_path};
	uint64_t interval_ns = TOP_INTERVAL_DEFAULT_NS;
	struct sigaction sa = {.sa_handler = top_on_signal};
	bool once = false, interval_set = false, first = true;
	enum top_mode mode;
	char err[1024];
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_duration_ns(optarg, &interval_ns) ||
			    interval_ns < TOP_INTERVAL_MIN_NS)
				return cli_error(
					CLI_USAGE,
					"--interval: expected a duration of at least 100ms "
					"('2s', '500ms'), not '%s'",
					optarg);
			interval_set = true;
			break;
		case 'o':
			once = true;
			break;
		default:
			return cli_bad_option("top", argv);
		}
	}
	if (optind != argc)
		return cli_usage("top");

	/* not on a terminal (a pipe, a log): never screen control codes; one
	 * frame unless more were asked for (--interval), then one after
	 * another, each after a separator line */
	if (once)
		mode = TOP_ONCE;
	else if (isatty(STDOUT_FILENO))
		mode = TOP_REDRAW;
	else
		mode = interval_set ? TOP_STREAM : TOP_ONCE;
	r = top_frame(stdout, cli->socket_path, &db, mode, true, err, sizeof(err));
	if (r || mode == TOP_ONCE) {
		store_close(db.s);
		return r ? cli_error(r, "%s", err) : CLI_OK;
	}
	first = false;
	/* no SA_RESTART: Ctrl-C interrupts the sleep at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!top_quit) {
		struct timespec ts = {.tv_sec = (time_t)(interval_ns / 1000000000ULL),
				      .tv_nsec = (long)(interval_ns % 1000000000ULL)};

		if (nanosleep(&ts, NULL) < 0 && top_quit)
			break;
		if (top_frame(stdout, cli->socket_path, &db, mode, first, err, sizeof(err))) {
			/* the daemon went away (a restart): say so and keep trying */
			top_frame_start(stdout, mode, first);
			printf("%s\n\nretrying every %.1f s; Ctrl-C quits\n", err,
			       (double)interval_ns / 1e9);
			fflush(stdout);
		}
	}
	store_close(db.s);
	return CLI_OK;
}

const struct cli_cmd cli_cmd_top = {
	"top",
	"[--interval D] [--once]",
	"a live view of the runs in progress and how close each is to steady state",
	"  Asks plateaud for its runs and reads the database for the last window of\n"
	"  the current precondition phase, judged with the phase's criterion: its\n"
	"  data and slope excursions as a share of their limits (each at most 100%,\n"
	"  under 100% for the fio criteria: the window passes).\n"
	"  --interval D        redraw every D (default 2s); Ctrl-C ends.  Not on a\n"
	"                      terminal: a frame every D, each after a line of dashes,\n"
	"                      without screen control codes\n"
	"  --once              print once, without escape codes (also when stdout is not\n"
	"                      a terminal and --interval is not given)\n"
	"  Exit status: 0; 2 bad option; 4 plateaud unreachable.\n",
	cmd_top,
	CLI_FMT_NONE};
