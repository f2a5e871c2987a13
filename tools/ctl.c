// SPDX-License-Identifier: MIT
/* ctl: start, stop, status (through plateaud) and wait (on the database). */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
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

int cmd_start(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"dry-run", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	json_object *req, *reply = NULL, *v;
	bool dry_run = false;
	char *text, why[128];
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
	free(text);
	r = ctl_call(cli, req, &reply);
	json_object_put(req);
	if (r)
		return r;
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
		} else if (json_object_object_get_ex(reply, "run", &v)) {
			printf("run %lld started\n", (long long)json_object_get_int64(v));
		}
	}
	json_object_put(reply);
	return r;
}

int cmd_stop(struct cli *cli, int argc, char **argv)
{
	json_object *req, *reply = NULL;
	int64_t run_id;
	int r;

	if (argc != 2)
		return cli_usage("stop");
	if ((r = cli_parse_run(argv[1], &run_id)))
		return r;
	req = json_object_new_object();
	json_object_object_add(req, "cmd", json_object_new_string("stop"));
	json_object_object_add(req, "run", json_object_new_int64(run_id));
	r = ctl_call(cli, req, &reply);
	json_object_put(req);
	if (r)
		return r;
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
		printf("%4s  %-16s %-16s %-15s %-26s %10s %8s %7s  %s\n", "RUN", "NAME", "DEVICE",
		       "STATE", "PHASE", "IOPS", "P99_US", "ROUNDS", "STEADY");
		for (size_t i = 0; i < json_object_array_length(runs); i++) {
			json_object *o = json_object_array_get_idx(runs, i), *x;
			char phase[64], steady[64] = "-";
			double prog = -1;

			if (json_object_object_get_ex(o, "progress", &x) && x)
				prog = json_object_get_double(x);
			snprintf(phase, sizeof(phase), "%d %s",
				 json_object_get_int(json_object_object_get(o, "phase")),
				 json_object_get_string(json_object_object_get(o, "phase_name")));
			if (prog >= 0)
				snprintf(phase + strlen(phase), sizeof(phase) - strlen(phase),
					 " %.1f%%", 100 * prog);
			if (json_object_get_boolean(json_object_object_get(o, "steady")))
				snprintf(steady, sizeof(steady), "since round %lld",
					 (long long)json_object_get_int64(
						 json_object_object_get(o, "steady_round")));
			printf("%4lld  %-16.16s %-16.16s %-15s %-26.26s %10.0f %8.1f %7lld  %s\n",
			       (long long)json_object_get_int64(json_object_object_get(o, "run")),
			       json_object_get_string(json_object_object_get(o, "name")),
			       json_object_get_string(json_object_object_get(o, "device")),
			       json_object_get_string(json_object_object_get(o, "state")), phase,
			       json_object_get_double(json_object_object_get(o, "iops")),
			       json_object_get_double(json_object_object_get(o, "lat_p99_us")),
			       (long long)json_object_get_int64(
				       json_object_object_get(o, "rounds")),
			       steady);
		}
	}
	json_object_put(reply);
	return CLI_OK;
}

/* --- wait: polls the database, so it works without the daemon too --- */

enum wait_for { WAIT_DONE, WAIT_STEADY };

static int wait_check(struct cli *cli, int64_t run_id, enum wait_for what, bool *finished)
{
	struct store_phase *ph = NULL;
	struct store_run run = {0};
	struct store *s;
	size_t n = 0;
	int r, steady = 0;

	*finished = false;
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
		printf("run %lld: steady state reached\n", (long long)run_id);
		*finished = true;
		r = CLI_OK;
	} else if (!store_run_state_active(run.state)) {
		*finished = true;
		if (!strcmp(run.state, "failed")) {
			printf("run %lld failed: %s\n", (long long)run_id,
			       run.error ? run.error : "");
			r = CLI_FAILED;
		} else if (!strcmp(run.state, "stopped")) {
			printf("run %lld was stopped\n", (long long)run_id);
		} else if (what == WAIT_DONE) {
			printf("run %lld done\n", (long long)run_id);
			r = CLI_OK;
		} else {
			printf("run %lld ended without reaching steady state\n", (long long)run_id);
		}
	}
out:
	store_run_clear(&run);
	return r;
}

int cmd_wait(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"for", required_argument, NULL, 'f'},
		{"timeout", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	enum wait_for what = WAIT_DONE;
	uint64_t timeout_ns = 0;
	int64_t run_id, deadline = 0;
	bool finished;
	int opt, r;

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
	for (;;) {
		struct timespec ts = {.tv_nsec = 250000000L};

		r = wait_check(cli, run_id, what, &finished);
		if (finished || (r != CLI_OK && r != CLI_NOT))
			return r;
		if (deadline && clock_mono_ns() >= deadline) {
			printf("run %lld: timed out waiting for %s\n", (long long)run_id,
			       what == WAIT_STEADY ? "steady state" : "the end");
			return CLI_NOT;
		}
		nanosleep(&ts, NULL);
	}
}

/* check: parse a plan locally and show what it would do (no daemon, no drive). */
int cmd_check(struct cli *cli, int argc, char **argv)
{
	json_object *doc, *phases;
	struct plan plan;
	char err[1024], why[128], *text;
	int r, code;

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
	doc = json_object_new_object();
	json_object_object_add(doc, "name", json_object_new_string(plan.name));
	json_object_object_add(doc, "device", json_object_new_string(plan.device));
	json_object_object_add(doc, plan.ident_field[0] ? plan.ident_field : "serial",
			       json_object_new_string(plan.ident));
	json_object_object_add(doc, "interval_s",
			       json_object_new_double((double)plan.interval_ns / 1e9));
	json_object_object_add(doc, "writes", json_object_new_boolean(plan_writes(&plan)));
	phases = json_object_new_array();
	for (size_t i = 0; i < plan.nphases; i++) {
		json_object_array_add(phases, plan_phase_object(&plan, &plan.phases[i]));
	}
	json_object_object_add(doc, "phases", phases);
	if (cli->format == CLI_JSON) {
		ctl_print_json(doc);
	} else {
		printf("%s: plan '%s' on %s (%s %s), sample interval %gs\n", argv[1], plan.name,
		       plan.device, plan.ident_field[0] ? plan.ident_field : "serial",
		       plan.ident[0] ? plan.ident : "-", (double)plan.interval_ns / 1e9);
		for (size_t i = 0; i < plan.nphases; i++)
			printf("  phase %zu  %-12s %s\n", i + 1,
			       plan_kind_name(plan.phases[i].kind),
			       json_object_to_json_string_ext(
				       json_object_array_get_idx(phases, i),
				       JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	}
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
	"  --json              the phases as JSON\n",
	cmd_check,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_stop = {
	"stop", "RUN",	  "stop a run (it ends 'stopped'; what was measured is kept)",
	"",	cmd_stop, false};

const struct cli_cmd cli_cmd_status = {
	"status",
	"[RUN]",
	"the runs plateaud is carrying out: phase, progress, last sample",
	"  --json              the daemon's answer as JSON\n",
	cmd_status,
	CLI_FMT_JSON};

const struct cli_cmd cli_cmd_wait = {
	"wait",
	"RUN [--for steady|done] [--timeout D]",
	"wait until a run reaches steady state or ends",
	"  Reads the database, so it works wherever the database is visible.\n"
	"  Exit status: 0 reached; 1 timed out, or the run ended without reaching it\n"
	"  (stopped, or done without steady state); 5 the run failed; 3 no such run.\n",
	cmd_wait,
	CLI_FMT_NONE};
