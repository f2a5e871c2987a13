// SPDX-License-Identifier: MIT
/* ctl: start, stop, status (through plateaud) and wait (on the database). */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "parse.h"
#include "plan.h"

/* Send one request and read one reply; prints and returns an exit code. */
static int ctl_call(struct cli *cli, json_object *req, json_object **reply)
{
	char err[1024];
	int r = cli_call(cli->socket_path, req, reply, err, sizeof(err));

	return r ? cli_error(r, "%s", err) : CLI_OK;
}

/* The reply's "ok"; prints its error otherwise. */
static int ctl_check(json_object *reply, int code_on_error)
{
	json_object *ok, *err;

	if (json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok))
		return CLI_OK;
	if (!json_object_object_get_ex(reply, "error", &err))
		return cli_error(code_on_error, "plateaud refused the request");
	/* the safety gate said no: one exit code for it (plateau(1)) */
	if (json_object_object_get_ex(reply, "refused", &ok) && json_object_get_boolean(ok))
		code_on_error = CLI_REFUSED;
	/* refused for who we are: the daemon is not there for this user */
	if (!strncmp(json_object_get_string(err), "permission denied", 17))
		code_on_error = CLI_NODAEMON;
	return cli_error(code_on_error, "%s", json_object_get_string(err));
}

static void ctl_print_json(json_object *o)
{
	printf("%s\n",
	       json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The first line of @s (@n bytes) that is not UTF-8, or 0. */
static unsigned int ctl_bad_utf8_line(const unsigned char *s, size_t n)
{
	unsigned int line = 1;

	for (size_t i = 0; i < n;) {
		unsigned char lo, hi;
		size_t len = 1;

		if (s[i] == '\n')
			line++;
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			len = 2;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			len = 3;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			len = 4;
		else if (s[i] >= 0x80)
			return line;
		lo = s[i] == 0xe0 ? 0xa0 : s[i] == 0xf0 ? 0x90 : 0x80;
		hi = s[i] == 0xed ? 0x9f : s[i] == 0xf4 ? 0x8f : 0xbf;
		if (len > 1 && (n - i < len || s[i + 1] < lo || s[i + 1] > hi))
			return line;
		for (size_t k = 2; k < len; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return line;
		i += len;
	}
	return 0;
}

/*
 * A plan file, as plateau check and plateau start read it: at most
 * PLAN_TEXT_MAX bytes (plateaud takes any plan of that size), no NUL,
 * UTF-8 (the daemon takes nothing else).  NULL with the reason in @why.
 */
static char *ctl_slurp(const char *path, char *why, size_t whylen, int *code)
{
	FILE *f = fopen(path, "r");
	unsigned int line;
	char *buf;
	size_t n;

	*code = CLI_USAGE;
	if (!f) {
		if (errno == ENOENT)
			*code = CLI_NOTFOUND;
		snprintf(why, whylen, "%s", strerror(errno));
		return NULL;
	}
	buf = malloc(PLAN_TEXT_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return NULL;
	}
	n = fread(buf, 1, PLAN_TEXT_MAX + 1, f);
	fclose(f);
	if (n > PLAN_TEXT_MAX)
		snprintf(why, whylen, "larger than %d KiB; not a plan", PLAN_TEXT_MAX / 1024);
	else if (memchr(buf, '\0', n))
		snprintf(why, whylen, "NUL byte in the file; not a plan");
	else if ((line = ctl_bad_utf8_line((const unsigned char *)buf, n)))
		snprintf(why, whylen, "line %u is not UTF-8 text; a plan is UTF-8", line);
	else if (!n)
		snprintf(why, whylen, "empty file");
	else {
		buf[n] = '\0';
		return buf;
	}
	free(buf);
	return NULL;
}

/* --- the status of a run, for people (status, wait) --- */

/* number field, NaN when absent, null or not a number */
static double ctl_num(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

/* integer field, @def when absent or null */
static int64_t ctl_int(json_object *o, const char *key, int64_t def)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return def;
	return json_object_get_int64(v);
}

static const char *ctl_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

/* "1h02m03s" when the time left is known, "<=2h10m00s" when only its bound
 * is, "-" when neither */
static char *ctl_fmt_eta(char *buf, size_t len, json_object *o)
{
	int64_t eta = ctl_int(o, "eta_ns", -1), max = ctl_int(o, "eta_max_ns", -1);
	char d[40];

	if (eta >= 0)
		parse_fmt_duration(buf, len, (uint64_t)eta);
	else if (max >= 0)
		snprintf(buf, len, "<=%s", parse_fmt_duration(d, sizeof(d), (uint64_t)max));
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "12345 IOPS", "1534.2 MB/s" or "-" */
static char *ctl_fmt_rate(char *buf, size_t len, json_object *o)
{
	double rate = ctl_num(o, "rate");
	const char *unit = ctl_str(o, "rate_unit");

	if (!isfinite(rate) || !*unit)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, !strcmp(unit, "IOPS") ? "%.0f %s" : "%.1f %s", rate, unit);
	return buf;
}

/* an excursion as a share of its limit: "data 120%"; "" when not judged */
static void ctl_share(char *buf, size_t len, const char *what, double exc, double limit)
{
	size_t n = strlen(buf);

	if (!isfinite(exc) || !isfinite(limit) || limit <= 0 || n >= len)
		return;
	snprintf(buf + n, len - n, "%s%s %.0f%%", n ? ", " : "", what, 100.0 * exc / limit);
}

/* The STEADY column: a precondition's verdict, or how far the current
 * window is from passing (each excursion as a share of its limit). */
static char *ctl_fmt_steady(char *buf, size_t len, json_object *o)
{
	snprintf(buf, len, "-");
	if (json_object_get_boolean(json_object_object_get(o, "steady"))) {
		snprintf(buf, len, "since round %lld", (long long)ctl_int(o, "steady_round", 0));
	} else if (!strcmp(ctl_str(o, "phase_kind"), "precondition")) {
		char w[96] = "";

		ctl_share(w, sizeof(w), "data", ctl_num(o, "data_excursion"),
			  ctl_num(o, "data_limit"));
		ctl_share(w, sizeof(w), "slope", ctl_num(o, "slope_excursion"),
			  ctl_num(o, "slope_limit"));
		if (json_object_get_boolean(json_object_object_get(o, "steady_lost")))
			snprintf(buf, len, "LOST");
		else if (*w)
			snprintf(buf, len, "no: %s of limit", w);
		else
			snprintf(buf, len, "no window yet");
	}
	return buf;
}

/* ROUNDS: a precondition's "judged/max_rounds", a sweep's "point/points" */
static char *ctl_fmt_rounds(char *buf, size_t len, json_object *o)
{
	const char *kind = ctl_str(o, "phase_kind");

	if (!strcmp(kind, "precondition") && ctl_int(o, "max_rounds", 0) > 0)
		snprintf(buf, len, "%lld/%lld", (long long)ctl_int(o, "rounds_judged", 0),
			 (long long)ctl_int(o, "max_rounds", 0));
	else if (!strcmp(kind, "sweep") && ctl_int(o, "npoints", 0) > 0)
		snprintf(buf, len, "%lld/%lld", (long long)ctl_int(o, "point", 0),
			 (long long)ctl_int(o, "npoints", 0));
	else
		snprintf(buf, len, "%lld", (long long)ctl_int(o, "rounds", 0));
	return buf;
}

static char *ctl_fmt_progress(char *buf, size_t len, json_object *o)
{
	double prog = ctl_num(o, "progress");

	if (isfinite(prog) && prog >= 0)
		snprintf(buf, len, "%.1f%%", 100.0 * prog);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* One line for `plateau wait`, the most telling first (a narrow terminal
 * cuts its end): phase, progress, ETA, rounds, rate, elapsed, steady. */
static void ctl_progress_line(char *buf, size_t len, json_object *o)
{
	char rate[48], prog[16], eta[48], el[32], rounds[48], steady[128];
	bool pre = !strcmp(ctl_str(o, "phase_kind"), "precondition");

	parse_fmt_duration(el, sizeof(el), (uint64_t)ctl_int(o, "elapsed_ns", 0));
	snprintf(buf, len, "run %lld phase %lld %s: %s, ETA %s, %s %s, %s, elapsed %s%s%s",
		 (long long)ctl_int(o, "run", 0), (long long)ctl_int(o, "phase", 0),
		 ctl_str(o, "phase_kind"), ctl_fmt_progress(prog, sizeof(prog), o),
		 ctl_fmt_eta(eta, sizeof(eta), o), ctl_fmt_rounds(rounds, sizeof(rounds), o),
		 !strcmp(ctl_str(o, "phase_kind"), "sweep") ? "points" : "rounds",
		 ctl_fmt_rate(rate, sizeof(rate), o), el, pre ? ", steady " : "",
		 pre ? ctl_fmt_steady(steady, sizeof(steady), o) : "");
}

/* --- the duration estimate, for people (check, start --dry-run) --- */

/* "26h10m00s" from a number of seconds in @o[@key]; false when null */
static bool ctl_est_dur(json_object *o, const char *key, char *buf, size_t len)
{
	double sec = ctl_num(o, key);

	if (!isfinite(sec) || sec < 0)
		return false;
	parse_fmt_duration(buf, len, (uint64_t)(sec * 1e9 + 0.5));
	return true;
}

static void ctl_print_estimate_phase(json_object *e, const struct plan *p)
{
	const char *basis = ctl_str(e, "basis");
	int seq = (int)ctl_int(e, "phase", 0);
	const struct plan_phase *ph =
		seq >= 1 && (size_t)seq <= p->nphases ? &p->phases[seq - 1] : NULL;
	char lo[48] = "", hi[48] = "", a[64], b[64], iv[48];
	bool has_lo = ctl_est_dur(e, "min_s", lo, sizeof(lo));
	bool has_hi = ctl_est_dur(e, "max_s", hi, sizeof(hi));

	printf("  phase %d  %-13s ", seq, ctl_str(e, "kind"));
	parse_fmt_duration(iv, sizeof(iv), p->interval_ns);
	if (!strcmp(basis, "nothing")) {
		printf("0s (method none: nothing to erase)\n");
	} else if (!strcmp(basis, "controller")) {
		printf("%s (the controller's estimate)\n", lo);
	} else if (!strcmp(basis, "deadline")) {
		printf("unknown before it starts; at most %s (the erase's deadline)\n", hi);
	} else if (!strcmp(basis, "measured-rate") || !strcmp(basis, "expected-rate")) {
		if (has_lo)
			printf("%s (%s at %s/s, %s)\n", lo,
			       parse_fmt_size(a, sizeof(a), (uint64_t)ctl_int(e, "bytes", 0)),
			       parse_fmt_size(b, sizeof(b), (uint64_t)ctl_num(e, "rate_bps")),
			       !strcmp(basis, "measured-rate")
				       ? "the rate of this drive's last fill in the database"
				       : "[fill] expected_rate");
		else
			printf("unknown: the size written is unknown (the dry run reads the "
			       "drive's capacity; or give [run] footprint in bytes)\n");
	} else if (!strcmp(basis, "unknown")) {
		if (ph && ph->kind == PLAN_FILL)
			printf("unknown: no rate (give [fill] expected_rate, or the dry run uses "
			       "the rate of this drive's last fill)\n");
		else
			printf("unknown (no estimate and no deadline)\n");
	} else if (!strcmp(basis, "rounds")) {
		if (!has_hi)
			printf("at least %s, no bound\n", has_lo ? lo : "0s");
		else if (has_lo && !strcmp(lo, hi))
			printf("%s (%lld rounds of %s)\n", hi,
			       (long long)ctl_int(e, "max_rounds", 0), iv);
		else
			printf("%s to %s (a first window of %lld rounds to max_rounds %lld, "
			       "rounds of %s%s)\n",
			       lo, hi, (long long)ctl_int(e, "min_rounds", 0),
			       (long long)ctl_int(e, "max_rounds", 0), iv,
			       ph && ph->max_duration_ns ? ", or max_duration" : "");
	} else if (!strcmp(basis, "exact")) {
		if (ph)
			printf("%s (%zu points x (ramp %s + time %s))\n", lo, ph->npoints,
			       parse_fmt_duration(a, sizeof(a), ph->ramp_ns),
			       parse_fmt_duration(b, sizeof(b), ph->point_ns));
		else
			printf("%s\n", lo);
	} else {
		printf("%s to %s\n", has_lo ? lo : "?", has_hi ? hi : "?");
	}
}

/* The estimate of plan_estimate_object(): each phase, then the bound. */
static void ctl_print_estimate(json_object *est, const struct plan *p, const char *note)
{
	json_object *phases;
	char lo[48], hi[48];
	bool has_lo, has_hi;

	if (!est)
		return;
	printf("estimate%s%s\n", *note ? " " : "", note);
	if (json_object_object_get_ex(est, "phases", &phases) &&
	    json_object_is_type(phases, json_type_array))
		for (size_t i = 0; i < json_object_array_length(phases); i++)
			ctl_print_estimate_phase(json_object_array_get_idx(phases, i), p);
	has_lo = ctl_est_dur(est, "min_s", lo, sizeof(lo));
	has_hi = ctl_est_dur(est, "max_s", hi, sizeof(hi));
	printf("  total            ");
	if (has_lo && has_hi && !strcmp(lo, hi))
		printf("%s\n", hi);
	else if (has_hi)
		printf("at least %s, at most %s\n", has_lo ? lo : "0s", hi);
	else
		printf("at least %s; at most unknown (a phase above has no bound)\n",
		       has_lo ? lo : "0s");
}

int cmd_start(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	json_object *req, *reply = NULL, *v;
	bool dry_run = false;
	char *text, why[128], err[1024], desc[2048];
	struct plan plan = {0};
	bool parsed;
	int opt, r, code;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt != 'n')
			return cli_bad_option("start", argv);
		dry_run = true;
	}
	if (optind != argc - 1)
		return cli_usage("start");
	text = ctl_slurp(argv[optind], why, sizeof(why), &code);
	if (!text)
		return cli_error(code, "%s: %s", argv[optind], why);
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("start"));
	json_object_object_add(req, "plan", json_object_new_string(text));
	json_object_object_add(req, "file", json_object_new_string(argv[optind]));
	if (dry_run)
		json_object_object_add(req, "dry_run", json_object_new_boolean(1));
	/* for the dry run's text: plateaud parses it again and says what is wrong */
	parsed = !plan_parse(text, argv[optind], &plan, err, sizeof(err));
	free(text);
	r = ctl_call(cli, req, &reply);
	json_object_put(req);
	if (r) {
		plan_free(&plan);
		return r;
	}
	r = ctl_check(reply, CLI_USAGE);
	if (!r) {
		if (cli->format == CLI_JSON) {
			ctl_print_json(reply);
		} else if (dry_run) {
			json_object *d, *ph;

			json_object_object_get_ex(reply, "drive", &d);
			printf("dry run: nothing was started or written\n");
			printf("drive    %s: %s, serial %s, firmware %s, %s bytes, %s-byte "
			       "blocks\n",
			       json_object_get_string(json_object_object_get(d, "device")),
			       json_object_get_string(json_object_object_get(d, "model")),
			       json_object_get_string(json_object_object_get(d, "serial")),
			       *json_object_get_string(json_object_object_get(d, "firmware"))
				       ? json_object_get_string(
						 json_object_object_get(d, "firmware"))
				       : "-",
			       json_object_get_string(json_object_object_get(d, "capacity_bytes")),
			       json_object_get_string(json_object_object_get(d, "lba_bytes")));
			printf("erase    methods the drive supports: %s\n",
			       json_object_get_string(json_object_object_get(d, "erase_methods")));
			printf("checks   %s\n",
			       json_object_get_string(json_object_object_get(reply, "checks")));
			json_object_object_get_ex(reply, "phases", &ph);
			for (size_t i = 0; i < json_object_array_length(ph); i++) {
				json_object *p = json_object_array_get_idx(ph, i), *x;

				printf("phase %zu  %s", i + 1,
				       json_object_get_string(json_object_object_get(p, "kind")));
				if (parsed && i < plan.nphases)
					printf(": %s", plan_phase_describe(&plan, &plan.phases[i],
									   desc, sizeof(desc)));
				if (json_object_object_get_ex(p, "would_try", &x))
					printf(": would try %s",
					       json_object_to_json_string_ext(
						       x, JSON_C_TO_STRING_PLAIN));
				if (json_object_object_get_ex(p, "refused", &x))
					printf(": REFUSED: %s", json_object_get_string(x));
				if (json_object_object_get_ex(p, "warnings", &x) &&
				    json_object_array_length(x))
					printf(" (warning: %s)",
					       json_object_to_json_string_ext(
						       x, JSON_C_TO_STRING_PLAIN));
				printf("\n");
			}
			if (parsed && json_object_object_get_ex(reply, "estimate", &v))
				ctl_print_estimate(
					v, &plan, "(this drive's capacity and measured fill rate)");
		} else if (json_object_object_get_ex(reply, "run", &v)) {
			printf("run %lld started\n", (long long)json_object_get_int64(v));
		}
	}
	json_object_put(reply);
	plan_free(&plan);
	return r;
}

/* "run N had already ended: STATE at TIME (WHY); nothing was stopped" */
static int ctl_ended(int64_t run_id, const char *state, int64_t ended_ns, const char *why)
{
	char when[64];

	printf("run %lld had already ended: %s at %s (%s); nothing was stopped\n",
	       (long long)run_id, state, cli_fmt_time(when, sizeof(when), ended_ns), why);
	return CLI_NOT;
}

/* plateaud unreachable: the database may still say the run is over. */
static int ctl_stop_from_db(struct cli *cli, int64_t run_id)
{
	struct store_run run = {0};
	struct store *s = NULL;
	char err[512];
	int r = -1;

	if (store_open(cli->db_path, STORE_RDONLY, &s, err, sizeof(err)))
		return -1;
	if (!store_run_get(s, run_id, &run) && !store_run_state_active(run.state))
		r = ctl_ended(run_id, run.state, run.ended_ns,
			      run.error && *run.error	   ? run.error
			      : !strcmp(run.state, "done") ? "every phase done"
							   : run.state);
	store_run_clear(&run);
	store_close(s);
	return r;
}

/*
 * stop, status and check take no options of their own (the global ones are
 * gone already): an argument that looks like one is a mistyped option, and
 * cli_bad_option() may know which was meant.  Returns an exit code or -1.
 */
static int ctl_no_options(const char *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			optind = i + 1;
			optopt = 0;
			return cli_bad_option(cmd, argv);
		}
	return -1;
}

int cmd_stop(struct cli *cli, int argc, char **argv)
{
	json_object *req, *reply = NULL, *v;
	char err[1024];
	int64_t run_id;
	int r;

	if ((r = ctl_no_options("stop", argc, argv)) >= 0)
		return r;
	if (argc != 2)
		return cli_usage("stop");
	if ((r = cli_parse_run(argv[1], &run_id)))
		return r;
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("stop"));
	json_object_object_add(req, "run", json_object_new_int64(run_id));
	r = cli_call(cli->socket_path, req, &reply, err, sizeof(err));
	json_object_put(req);
	if (r) {
		int ended = ctl_stop_from_db(cli, run_id);

		return ended >= 0 ? ended : cli_error(r, "%s", err);
	}
	/* a run that is over: how it ended, exit 1 */
	if (json_object_object_get_ex(reply, "ended", &v) && json_object_get_boolean(v)) {
		r = ctl_ended(run_id, ctl_str(reply, "state"), ctl_int(reply, "ended_ns", 0),
			      ctl_str(reply, "reason"));
		json_object_put(reply);
		return r;
	}
	r = ctl_check(reply, CLI_NOTFOUND);
	if (!r)
		printf("run %lld: stop requested\n", (long long)run_id);
	json_object_put(reply);
	return r;
}

int cmd_status(struct cli *cli, int argc, char **argv)
{
	json_object *req, *reply = NULL, *runs;
	int64_t run_id = 0;
	int r;

	if ((r = ctl_no_options("status", argc, argv)) >= 0)
		return r;
	if (argc > 2)
		return cli_usage("status");
	if (argc == 2 && (r = cli_parse_run(argv[1], &run_id)))
		return r;
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("status"));
	if (run_id)
		json_object_object_add(req, "run", json_object_new_int64(run_id));
	r = ctl_call(cli, req, &reply);
	json_object_put(req);
	if (r)
		return r;
	r = ctl_check(reply, CLI_NOTFOUND);
	if (r) {
		json_object_put(reply);
		return r;
	}
	json_object_object_get_ex(reply, "runs", &runs);
	if (cli->format == CLI_JSON) {
		ctl_print_json(reply);
	} else if (!json_object_array_length(runs)) {
		printf("no runs in progress\n");
	} else {
		printf("%4s  %-16s %-16s %-15s %-24s %-7s %8s %-12s %8s %-10s %-11s %-9s %s\n",
		       "RUN", "NAME", "DEVICE", "STATE", "PHASE", "LOAD", "PROGRESS", "RATE",
		       "P99_US", "ELAPSED", "ETA", "ROUNDS", "STEADY");
		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			json_object *o = json_object_array_get_idx(runs, i);
			char phase[96], load[24] = "-", prog[16], rate[48], p99[24] = "-", el[32],
					eta[48], rounds[48], steady[128];

			snprintf(phase, sizeof(phase), "%lld %s", (long long)ctl_int(o, "phase", 0),
				 ctl_str(o, "phase_name"));
			if (ctl_int(o, "threads", 0) > 0)
				snprintf(load, sizeof(load), "%lldx%lld",
					 (long long)ctl_int(o, "threads", 0),
					 (long long)ctl_int(o, "iodepth", 0));
			/* the current phase's last sample only: none yet, "-" */
			if (isfinite(ctl_num(o, "lat_p99_us")))
				snprintf(p99, sizeof(p99), "%.1f", ctl_num(o, "lat_p99_us"));
			parse_fmt_duration(el, sizeof(el), (uint64_t)ctl_int(o, "elapsed_ns", 0));
			printf("%4lld  %-16.16s %-16.16s %-15s %-24.24s %-7s %8s %-12s %8s %-10s "
			       "%-11s %-9s %s\n",
			       (long long)ctl_int(o, "run", 0), ctl_str(o, "name"),
			       ctl_str(o, "device"), ctl_str(o, "state"), phase, load,
			       ctl_fmt_progress(prog, sizeof(prog), o),
			       ctl_fmt_rate(rate, sizeof(rate), o), p99, el,
			       ctl_fmt_eta(eta, sizeof(eta), o),
			       ctl_fmt_rounds(rounds, sizeof(rounds), o),
			       ctl_fmt_steady(steady, sizeof(steady), o));
		}
	}
	json_object_put(reply);
	return CLI_OK;
}

/* --- wait: polls the database, so it works without the daemon too --- */

enum wait_for { WAIT_DONE, WAIT_STEADY };

static int wait_check(struct cli *cli, int64_t run_id, enum wait_for what, bool *finished,
		      char *msg, size_t msglen)
{
	struct store_phase *ph = NULL;
	struct store_run run = {0};
	struct store *s;
	size_t n = 0;
	int r, steady = 0;

	*finished = false;
	*msg = '\0';
	if ((r = cli_load_run(cli, run_id, &run)))
		return r;
	if ((r = cli_store(cli, &s)))
		goto out;
	if (store_phases_list(s, run_id, &ph, &n)) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(s));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ph[i].kind, "precondition") && ph[i].steady == 1)
			steady = 1;
	store_phases_free(ph, n);
	r = CLI_NOT;
	if (what == WAIT_STEADY && steady) {
		snprintf(msg, msglen, "run %lld: steady state reached", (long long)run_id);
		*finished = true;
		r = CLI_OK;
	} else if (!store_run_state_active(run.state)) {
		*finished = true;
		if (!strcmp(run.state, "failed")) {
			snprintf(msg, msglen, "run %lld failed: %s", (long long)run_id,
				 run.error ? run.error : "");
			r = CLI_FAILED;
		} else if (!strcmp(run.state, "stopped")) {
			snprintf(msg, msglen, "run %lld was stopped", (long long)run_id);
		} else if (what == WAIT_DONE) {
			snprintf(msg, msglen, "run %lld done", (long long)run_id);
			r = CLI_OK;
		} else {
			snprintf(msg, msglen, "run %lld ended without reaching steady state",
				 (long long)run_id);
		}
	}
out:
	store_run_clear(&run);
	return r;
}

/*
 * The progress line of `plateau wait` on a terminal: plateaud's status of
 * the run (phase, progress, rate, ETA) when it carries it out, else the
 * state the database gives; cut to the terminal's width so that "\r"
 * rewrites it in place.
 */
static void wait_progress(struct cli *cli, int64_t run_id, bool *shown)
{
	json_object *req = json_object_new_object(), *reply = NULL, *runs, *o;
	char line[512], err[256];
	struct winsize ws;
	size_t cols = 80;

	json_object_object_add(req, "cmd", json_object_new_string("status"));
	json_object_object_add(req, "run", json_object_new_int64(run_id));
	if (!cli_call(cli->socket_path, req, &reply, err, sizeof(err)) &&
	    json_object_object_get_ex(reply, "runs", &runs) &&
	    json_object_is_type(runs, json_type_array) && json_object_array_length(runs) == 1 &&
	    (o = json_object_array_get_idx(runs, 0)))
		ctl_progress_line(line, sizeof(line), o);
	else
		snprintf(line, sizeof(line), "run %lld: waiting (plateaud shows no progress of it)",
			 (long long)run_id);
	json_object_put(reply);
	json_object_put(req);
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1)
		cols = ws.ws_col;
	if (cols < sizeof(line))
		line[cols - 1] = '\0';
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	*shown = true;
}

static void wait_progress_clear(bool *shown)
{
	if (!*shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	*shown = false;
}

int cmd_wait(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"for", required_argument, NULL, 'f'},
		{"timeout", required_argument, NULL, 't'},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	enum wait_for what = WAIT_DONE;
	uint64_t timeout_ns = 0;
	int64_t run_id, deadline = 0;
	bool finished, quiet = false, shown = false;
	char msg[1200];
	int opt, r;
	unsigned int tick;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "steady"))
				what = WAIT_STEADY;
			else if (!strcmp(optarg, "done"))
				what = WAIT_DONE;
			else
				return cli_error(CLI_USAGE,
						 "--for: expected steady or done, not '%s'",
						 optarg);
			break;
		case 't':
			if (parse_duration_ns(optarg, &timeout_ns))
				return cli_error(CLI_USAGE,
						 "--timeout: expected a duration ('10m', '8h'), "
						 "not '%s'",
						 optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return cli_bad_option("wait", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("wait");
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;
	if (timeout_ns)
		deadline = clock_mono_ns() + (int64_t)timeout_ns;
	/* progress only for a person watching: never into a pipe or a log */
	if (!isatty(STDERR_FILENO))
		quiet = true;
	for (tick = 0;; tick++) {
		struct timespec ts = {.tv_nsec = 250000000L};

		r = wait_check(cli, run_id, what, &finished, msg, sizeof(msg));
		if (finished || (r != CLI_OK && r != CLI_NOT)) {
			wait_progress_clear(&shown);
			if (*msg)
				printf("%s\n", msg);
			return r;
		}
		if (deadline && clock_mono_ns() >= deadline) {
			wait_progress_clear(&shown);
			printf("run %lld: timed out waiting for %s\n", (long long)run_id,
			       what == WAIT_STEADY ? "steady state" : "the end");
			return CLI_NOT;
		}
		/* the daemon asked once a second, the database four times */
		if (!quiet && tick % 4 == 0)
			wait_progress(cli, run_id, &shown);
		nanosleep(&ts, NULL);
	}
}

/* check: parse a plan locally and show what it would do (no daemon, no drive). */
int cmd_check(struct cli *cli, int argc, char **argv)
{
	json_object *doc, *phases, *est;
	struct plan_estimate *pe, total;
	char interval[PARSE_DOUBLE_BYTES], desc[2048];
	struct plan plan;
	char err[1024], why[128], *text;
	int r, code;

	if ((r = ctl_no_options("check", argc, argv)) >= 0)
		return r;
	if (argc != 2)
		return cli_usage("check");
	text = ctl_slurp(argv[1], why, sizeof(why), &code);
	if (!text)
		return cli_error(code, "%s: %s", argv[1], why);
	r = plan_parse(text, argv[1], &plan, err, sizeof(err));
	free(text);
	if (r) {
		plan_free(&plan);
		return cli_error(CLI_USAGE, "%s", err);
	}
	pe = calloc(plan.nphases ? plan.nphases : 1, sizeof(*pe));
	if (!pe) {
		plan_free(&plan);
		return cli_error(CLI_USAGE, "%s", strerror(ENOMEM));
	}
	/* the plan alone: no capacity, no controller, no measured rate */
	plan_estimate(&plan, NULL, pe, &total);
	est = plan_estimate_object(&plan, pe, &total);
	free(pe);
	doc = json_object_new_object();
	json_object_object_add(doc, "name", json_object_new_string(plan.name));
	json_object_object_add(doc, "device", json_object_new_string(plan.device));
	json_object_object_add(doc, plan.ident_field[0] ? plan.ident_field : "serial",
			       json_object_new_string(plan.ident));
	/* whole seconds as an integer (parse_fmt_double() writes 60 as 6e+01) */
	parse_fmt_double(interval, sizeof(interval), (double)plan.interval_ns / 1e9);
	json_object_object_add(
		doc, "interval_s",
		plan.interval_ns % 1000000000ULL
			? json_object_new_double_s((double)plan.interval_ns / 1e9, interval)
			: json_object_new_int64((int64_t)(plan.interval_ns / 1000000000ULL)));
	json_object_object_add(doc, "writes", json_object_new_boolean(plan_writes(&plan)));
	phases = json_object_new_array();
	for (size_t i = 0; i < plan.nphases; i++)
		json_object_array_add(phases, plan_phase_object(&plan, &plan.phases[i]));
	json_object_object_add(doc, "phases", phases);
	json_object_object_add(doc, "estimate", json_object_get(est));
	if (cli->format == CLI_JSON) {
		ctl_print_json(doc);
	} else {
		printf("%s: plan '%s' on %s (%s %s), sample interval %s\n", argv[1], plan.name,
		       plan.device, plan.ident_field[0] ? plan.ident_field : "serial",
		       plan.ident[0] ? plan.ident : "-",
		       parse_fmt_duration(desc, sizeof(desc), plan.interval_ns));
		for (size_t i = 0; i < plan.nphases; i++)
			printf("  phase %zu  %-13s %s\n", i + 1,
			       plan_kind_name(plan.phases[i].kind),
			       plan_phase_describe(&plan, &plan.phases[i], desc, sizeof(desc)));
		ctl_print_estimate(est, &plan,
				   "(the plan alone: plateau start --dry-run adds the drive's "
				   "capacity and measured fill rate)");
	}
	json_object_put(est);
	json_object_put(doc);
	plan_free(&plan);
	return CLI_OK;
}

const struct cli_cmd cli_cmd_start = {
	"start",
	"PLAN [--dry-run]",
	"hand a plan to plateaud",
	"  The daemon passes the drive through the safety gate (plateau(1) SAFETY):\n"
	"  the plan must name it (serial, EUI64, NGUID or WWN), and it must be neither\n"
	"  in use nor locked by another plateau process; then it records the run and\n"
	"  starts it.  --dry-run shows the identity, the checks, who holds the drive\n"
	"  and the erase method that would run, and starts nothing.\n"
	"  --json              the daemon's answer as JSON\n"
	"  Exit status: 0 started; 2 bad plan; 4 plateaud unreachable; 6 refused.\n",
	cmd_start,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_check = {
	"check",
	"PLAN",
	"validate a plan and show its phases with every default filled in",
	"  Reads only the file: no daemon, no drive.  Errors name file:line and field.\n"
	"  Shows each phase's parameters and how long each phase and the run take: an\n"
	"  estimate and its bound (plateau(1), DURATION ESTIMATE).\n"
	"  --json              the phases and the estimate (seconds) as JSON\n",
	cmd_check,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_stop = {
	"stop",
	"RUN",
	"stop a run (it ends 'stopped'; what was measured is kept)",
	"  A run that had already ended is not touched: stop says how it ended (state,\n"
	"  when, why), from plateaud or, when plateaud is not running, the database.\n"
	"  Exit status: 0 stop requested; 1 the run had already ended; 3 no such run\n"
	"  in plateaud; 4 plateaud unreachable.\n",
	cmd_stop,
	CLI_FMT_NONE};

const struct cli_cmd cli_cmd_status = {
	"status",
	"[RUN]",
	"the runs plateaud is carrying out: phase, load, progress, rate, ETA, rounds",
	"  One line a run: the phase and its load (threads x iodepth), progress, rate\n"
	"  (a fill in MB/s, else IOPS), p99 of the phase's last sample, elapsed time,\n"
	"  ETA ('<=' when only its bound is known), ROUNDS (a precondition: judged of\n"
	"  max_rounds; a sweep: point of points) and STEADY (since which round, or\n"
	"  the current window's excursions as shares of their limits).\n"
	"  --json              the daemon's answer as JSON (plateau(1), STATUS)\n",
	cmd_status,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_wait = {
	"wait",
	"RUN [--for steady|done] [--timeout D] [--quiet]",
	"wait until a run reaches steady state or ends",
	"  Reads the database, so it works wherever the database is visible.  On a\n"
	"  terminal, a line on stderr shows the run's progress and ETA (from plateaud),\n"
	"  rewritten in place; not on a terminal, or with --quiet, nothing but the result.\n"
	"  Exit status: 0 reached; 1 timed out, or the run ended without reaching it\n"
	"  (stopped, or done without steady state); 5 the run failed; 3 no such run.\n",
	cmd_wait,
	CLI_FMT_NONE};
