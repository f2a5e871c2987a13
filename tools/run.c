// SPDX-License-Identifier: MIT
/*
 * run: `plateau run`, a run in the foreground, for scripts and tests.  It
 * writes a plan from its options, records the run in the database and
 * carries it out through the same runner the daemon uses.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "cli.h"
#include "erase.h"
#include "guard.h"
#include "plan.h"
#include "parse.h"
#include "profile.h"
#include "runner.h"
#include "sample.h"
#include "target.h"

static struct runner *run_runner;

static void run_signal(int sig)
{
	(void)sig;
	if (run_runner)
		runner_stop(run_runner, false);
}

struct run_ctx {
	bool quiet;
	int last_phase;
};

static void run_event(void *ctx, const struct runner_event *ev)
{
	struct run_ctx *c = ctx;

	if (c->quiet && ev->priority > RUNNER_PRIO_NOTICE)
		return;
	fprintf(stderr, "plateau: %s: %s\n", ev->kind, ev->message);
}

static void run_status(void *ctx, const struct runner_status *st)
{
	struct run_ctx *c = ctx;
	const struct sample *s = st->sample;
	char eta[40];
	double secs;

	if (!s || c->quiet)
		return;
	secs = (double)(s->end_ns - s->start_ns) / 1e9;
	printf("phase %d %-12s %s %5lld %7.1fs  %10.0f IOPS  %9.2f MB/s  lat %8.1f us  p99 %8.1f "
	       "us  max %9.1f us",
	       st->phase_seq, st->phase_kind, s->partial ? "part " : "round", (long long)s->seq,
	       secs, sample_metric(s, SAMPLE_METRIC_IOPS), sample_metric(s, SAMPLE_METRIC_BW),
	       sample_metric(s, SAMPLE_METRIC_LAT), sample_metric(s, SAMPLE_METRIC_P99),
	       sample_metric(s, SAMPLE_METRIC_LAT_MAX));
	if (s->errors)
		printf("  errors %llu", (unsigned long long)s->errors);
	if (st->progress >= 0)
		printf("  %5.1f%%", 100.0 * st->progress);
	if (st->steady)
		printf("  steady since round %lld", (long long)st->steady_round);
	/* the phase's time left (runner.h): exact, or only its bound */
	if (st->eta_ns >= 0)
		printf("  ETA %s", parse_fmt_duration(eta, sizeof(eta), (uint64_t)st->eta_ns));
	else if (st->eta_max_ns >= 0)
		printf("  ETA <=%s",
		       parse_fmt_duration(eta, sizeof(eta), (uint64_t)st->eta_max_ns));
	printf("\n");
	fflush(stdout);
}

static const struct runner_ops run_ops = {
	.event = run_event,
	.status = run_status,
};

/* Append "key = value\n" to the plan text. */
static int run_kv(char **plan, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int run_kv(char **plan, size_t *len, const char *fmt, ...)
{
	char line[1024];
	size_t n;
	char *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	p = realloc(*plan, *len + n + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + *len, line, n + 1);
	*plan = p;
	*len += n;
	return 0;
}

/* Reject characters that would change the meaning of the generated plan. */
static int run_plain(const char *opt, const char *v)
{
	if (strpbrk(v, "\n\r[]=") || !*v)
		return cli_error(CLI_USAGE, "--%s: '%s' contains a character a plan cannot hold",
				 opt, v);
	return 0;
}

/* `plateau run` leaves a journal record of what it did and refused, like plateaud. */
static void run_journal_refusal(const char *device, const char *serial, const char *msg)
{
	(void)sd_journal_send("MESSAGE=%s (plateau run, uid %u, pid %d)", msg, (unsigned)getuid(),
			      (int)getpid(), "MESSAGE_ID=%s", GUARD_REFUSED_MESSAGE_ID,
			      "PRIORITY=4", "SYSLOG_IDENTIFIER=plateau", "PLATEAU_EVENT=refused",
			      "DEVICE=%s", device, "SERIAL=%s", serial ? serial : "",
			      "REQUESTER_UID=%u", (unsigned)getuid(), "REQUESTER_PID=%d",
			      (int)getpid(), NULL);
}

static void run_journal_start(int64_t run_id, const char *device, const char *serial)
{
	(void)sd_journal_send(
		"MESSAGE=run %lld started on %s (%s) by plateau run, uid %u", (long long)run_id,
		device, serial, (unsigned)getuid(), "MESSAGE_ID=%s", GUARD_RUN_STARTED_MESSAGE_ID,
		"PRIORITY=5", "SYSLOG_IDENTIFIER=plateau", "PLATEAU_EVENT=run-started", "RUN=%lld",
		(long long)run_id, "DEVICE=%s", device, "SERIAL=%s", serial, "REQUESTER_UID=%u",
		(unsigned)getuid(), "REQUESTER_PID=%d", (int)getpid(), NULL);
}

/* A refusal made before the gate could run: the gate's wording, exit code and record. */
static int run_refused(const char *target, const char *serial, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int run_refused(const char *target, const char *serial, const char *fmt, ...)
{
	char why[512], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "refusing %s: %s", target, why);
	run_journal_refusal(target, serial, msg);
	return cli_error(CLI_REFUSED, "%s", msg);
}

/*
 * At a terminal, the operator gets to see what is about to be written and
 * to change their mind (as nvme-cli does before a format): 10 s, Ctrl-C
 * aborts with nothing recorded.  Scripts (stdin not a tty) and --yes skip it.
 */
static void run_confirm(const struct guard *g, bool erase)
{
	char size[32];

	fprintf(stderr, "%s %s (%s, serial %s, %s) in 10 s - Ctrl-C aborts\n",
		erase ? "ERASING" : "WRITING", g->path, *g->id.model ? g->id.model : "no model",
		g->id.serial, parse_fmt_size(size, sizeof(size), g->id.capacity_bytes));
	for (int i = 10; i > 0; i--) {
		fprintf(stderr, "\r%2d ", i);
		fflush(stderr);
		sleep(1);
	}
	fprintf(stderr, "\r   \r");
}

static int run_mkdir_parent(const char *path)
{
	char *copy = strdup(path), *dir;
	struct stat st;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(dir, &st) < 0 && errno == ENOENT) {
		if (mkdir(dir, 0750) < 0 && errno != EEXIST)
			r = -errno;
	}
	free(copy);
	return r;
}

int cmd_run(struct cli *cli, int argc, char **argv)
{
	enum {
		O_TARGET = 0x100,
		O_PROFILE,
		O_RW,
		O_BSSPLIT,
		O_RWMIX,
		O_THREADS,
		O_IODEPTH,
		O_INTERVAL,
		O_DURATION,
		O_STEADY,
		O_WINDOW,
		O_DATA,
		O_SLOPE,
		O_MAXR,
		O_METRIC,
		O_FILLP,
		O_FILLBS,
		O_FOOT,
		O_OFFSET,
		O_SERIAL,
		O_NAME,
		O_SEED,
		O_ERASE,
		O_AFTER,
		O_QUIET,
		O_IOTIMEOUT,
		O_YES,
		O_PREWITH,
		O_ABS,
	};
	static const struct option opts[] = {
		{"target", required_argument, NULL, O_TARGET},
		{"profile", required_argument, NULL, O_PROFILE},
		{"rw", required_argument, NULL, O_RW},
		{"bssplit", required_argument, NULL, O_BSSPLIT},
		{"bs", required_argument, NULL, O_BSSPLIT},
		{"rwmix", required_argument, NULL, O_RWMIX},
		{"threads", required_argument, NULL, O_THREADS},
		{"iodepth", required_argument, NULL, O_IODEPTH},
		{"interval", required_argument, NULL, O_INTERVAL},
		{"io-timeout", required_argument, NULL, O_IOTIMEOUT},
		{"duration", required_argument, NULL, O_DURATION},
		{"steady", required_argument, NULL, O_STEADY},
		{"window", required_argument, NULL, O_WINDOW},
		{"data-limit", required_argument, NULL, O_DATA},
		{"slope-limit", required_argument, NULL, O_SLOPE},
		{"absolute", no_argument, NULL, O_ABS},
		{"max-rounds", required_argument, NULL, O_MAXR},
		{"metric", required_argument, NULL, O_METRIC},
		{"fill-passes", required_argument, NULL, O_FILLP},
		{"fill-bs", required_argument, NULL, O_FILLBS},
		{"footprint", required_argument, NULL, O_FOOT},
		{"offset", required_argument, NULL, O_OFFSET},
		{"serial", required_argument, NULL, O_SERIAL},
		{"name", required_argument, NULL, O_NAME},
		{"seed", required_argument, NULL, O_SEED},
		{"erase", required_argument, NULL, O_ERASE},
		{"after-steady", required_argument, NULL, O_AFTER},
		{"quiet", no_argument, NULL, O_QUIET},
		{"yes", no_argument, NULL, O_YES},
		{"precondition-with", required_argument, NULL, O_PREWITH},
		{NULL, 0, NULL, 0},
	};
	const char *v[O_ABS + 1 - O_TARGET] = {0};
	struct run_ctx ctx = {0};
	struct target_identity id;
	struct guard g = {.fd = -1};
	struct plan pl;
	struct runner *runner = NULL;
	struct store *s = NULL;
	char *plan = NULL, err[1024], host[128] = "", cmd[256], load[256] = "";
	struct runner_requester who;
	size_t len = 0;
	int64_t run_id;
	int opt, r, li;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, &li)) != -1) {
		if (opt < O_TARGET || opt > O_ABS)
			return cli_bad_option("run", argv);
		/* messages name the option as typed (--bs is --bssplit) */
		if (v[opt - O_TARGET] && opt != O_QUIET && opt != O_ABS && opt != O_YES)
			return cli_error(CLI_USAGE, "--%s given twice", opts[li].name);
		v[opt - O_TARGET] = optarg ? optarg : "yes";
		/* an empty serial is the gate's to refuse, below */
		if (optarg && (opt != O_SERIAL || *optarg) &&
		    (r = run_plain(opts[li].name, optarg)))
			return r;
	}
	if (optind != argc)
		return cli_usage("run");
#define V(o) v[(o)-O_TARGET]
	if (!V(O_TARGET))
		return cli_error(CLI_USAGE, "--target PATH is required (a block device or file)");
	if (!V(O_PROFILE) && !V(O_RW))
		return cli_error(CLI_USAGE, "--profile NAME (or --rw and --bssplit) is required");
	if (V(O_PROFILE) && (V(O_RW) || V(O_BSSPLIT) || V(O_RWMIX)))
		return cli_error(CLI_USAGE,
				 "--profile and --rw/--bssplit/--rwmix exclude each other");
	if ((!V(O_STEADY) || !strcmp(V(O_STEADY), "none")) && !V(O_DURATION) && !V(O_MAXR))
		return cli_error(CLI_USAGE,
				 "give --duration (or --max-rounds), or --steady to stop at "
				 "steady state");
	if (V(O_PREWITH) && strcmp(V(O_PREWITH), "write") && strcmp(V(O_PREWITH), "none"))
		return cli_error(
			CLI_USAGE,
			"--precondition-with: expected write (a read workload's write variant) "
			"or none (the workload as given), not '%s'",
			V(O_PREWITH));
	ctx.quiet = V(O_QUIET) != NULL;

	/* a regular file is named by its path: its serial is read here, and the
	 * gate below checks that the file it opens still carries it */
	if (!V(O_SERIAL)) {
		r = target_identify(V(O_TARGET), &id, err, sizeof(err));
		if (r)
			return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
		if (id.kind != TARGET_FILE)
			return run_refused(
				V(O_TARGET), id.serial,
				"it is a drive: name it with --serial (its serial is %s); "
				"plateau writes only to a drive the operator names",
				*id.serial ? id.serial : "unknown");
	} else if (!*V(O_SERIAL)) {
		return run_refused(
			V(O_TARGET), "",
			"--serial is empty: name the drive by its serial (plateau drives "
			"%s shows it)",
			V(O_TARGET));
	}

	r = run_kv(&plan, &len, "# written by plateau run\n[run]\ndevice = %s\nserial = %s\n",
		   V(O_TARGET), V(O_SERIAL) ? V(O_SERIAL) : id.serial);

	r = r
		    ?: run_kv(&plan, &len, "name = %s\n",
			      V(O_NAME)	     ? V(O_NAME)
			      : V(O_PROFILE) ? V(O_PROFILE)
					     : "custom");
	if (V(O_INTERVAL))
		r = r ?: run_kv(&plan, &len, "interval = %s\n", V(O_INTERVAL));
	if (V(O_IOTIMEOUT))
		r = r ?: run_kv(&plan, &len, "io_timeout = %s\n", V(O_IOTIMEOUT));
	if (V(O_FOOT))
		r = r ?: run_kv(&plan, &len, "footprint = %s\n", V(O_FOOT));
	if (V(O_OFFSET))
		r = r ?: run_kv(&plan, &len, "offset = %s\n", V(O_OFFSET));
	if (V(O_SEED))
		r = r ?: run_kv(&plan, &len, "seed = %s\n", V(O_SEED));
	if (V(O_ERASE))
		r = r ?: run_kv(&plan, &len, "\n[erase]\nmethod = %s\n", V(O_ERASE));
	if (V(O_FILLP) || V(O_FILLBS)) {
		r = r ?: run_kv(&plan, &len, "\n[fill]\n");
		if (V(O_FILLP))
			r = r ?: run_kv(&plan, &len, "passes = %s\n", V(O_FILLP));
		if (V(O_FILLBS))
			r = r ?: run_kv(&plan, &len, "bs = %s\n", V(O_FILLBS));
	}
	r = r ?: run_kv(&plan, &len, "\n[precondition]\n");
	if (V(O_PROFILE))
		r = r ?: run_kv(&plan, &len, "profile = %s\n", V(O_PROFILE));
	if (V(O_RW))
		r = r ?: run_kv(&plan, &len, "rw = %s\n", V(O_RW));
	if (V(O_BSSPLIT))
		r = r ?: run_kv(&plan, &len, "bssplit = %s\n", V(O_BSSPLIT));
	if (V(O_RWMIX))
		r = r ?: run_kv(&plan, &len, "rwmix = %s\n", V(O_RWMIX));
	if (V(O_PREWITH))
		r = r
			    ?: run_kv(&plan, &len, "write_variant = %s\n",
				      !strcmp(V(O_PREWITH), "write") ? "yes" : "no");
	r = r
		    ?: run_kv(&plan, &len, "threads = %s\niodepth = %s\nsteady = %s\n",
			      V(O_THREADS) ? V(O_THREADS) : "1", V(O_IODEPTH) ? V(O_IODEPTH) : "32",
			      V(O_STEADY) ? V(O_STEADY) : "none");
	if (V(O_WINDOW))
		r = r ?: run_kv(&plan, &len, "window = %s\n", V(O_WINDOW));
	if (V(O_DATA))
		r = r ?: run_kv(&plan, &len, "data_limit = %s\n", V(O_DATA));
	if (V(O_SLOPE))
		r = r ?: run_kv(&plan, &len, "slope_limit = %s\n", V(O_SLOPE));
	if (V(O_ABS))
		r = r ?: run_kv(&plan, &len, "limits_absolute = yes\n");
	if (V(O_MAXR))
		r = r ?: run_kv(&plan, &len, "max_rounds = %s\n", V(O_MAXR));
	if (V(O_METRIC))
		r = r ?: run_kv(&plan, &len, "metrics = %s\n", V(O_METRIC));
	if (V(O_DURATION))
		r = r ?: run_kv(&plan, &len, "max_duration = %s\n", V(O_DURATION));
	if (V(O_AFTER))
		r = r ?: run_kv(&plan, &len, "after_steady = %s\n", V(O_AFTER));
	if (r) {
		free(plan);
		return cli_error(CLI_USAGE, "out of memory");
	}

	/* the one gate (guard.h), before anything is recorded: a refusal leaves
	 * no run behind, whatever the reason */
	r = plan_parse(plan, "options", &pl, err, sizeof(err));
	if (r) {
		plan_free(&pl);
		free(plan);
		return cli_error(CLI_USAGE, "%s", err);
	}
	r = runner_guard_open(&pl, 0, 0, NULL, &g);
	if (r) {
		char msg[GUARD_REASONS_MAX * GUARD_REASON_LEN + 300];

		guard_refusal(&g, msg, sizeof(msg));
		run_journal_refusal(V(O_TARGET), g.id.serial, msg);
		guard_close(&g);
		plan_free(&pl);
		free(plan);
		return cli_error(CLI_REFUSED, "%s", msg);
	}
	id = g.id;
	/* say what the load is: a read workload is run as its write variant
	 * unless --precondition-with none (plateau.plan(5), write_variant) */
	for (size_t i = 0; i < pl.nphases; i++)
		if (pl.phases[i].kind == PLAN_PRECONDITION)
			snprintf(load, sizeof(load), "%s%s%s", pl.phases[i].load.name,
				 strcmp(pl.phases[i].load.name, pl.phases[i].workload.name)
					 ? " (the write variant of "
					 : "",
				 strcmp(pl.phases[i].load.name, pl.phases[i].workload.name)
					 ? pl.phases[i].workload.name
					 : "");
	if (*load && strchr(load, '('))
		strncat(load, "; --precondition-with none runs it as given)",
			sizeof(load) - strlen(load) - 1);
	if (!V(O_YES) && plan_writes(&pl) && isatty(STDIN_FILENO) &&
	    (g.id.kind != TARGET_FILE || V(O_ERASE)))
		run_confirm(&g, V(O_ERASE) && strcmp(V(O_ERASE), "none"));

	if ((r = run_mkdir_parent(cli->db_path))) {
		guard_close(&g);
		plan_free(&pl);
		free(plan);
		return cli_error(CLI_USAGE, "%s: cannot create its directory: %s", cli->db_path,
				 strerror(-r));
	}
	r = store_open(cli->db_path, STORE_CREATE, &s, err, sizeof(err));
	if (r) {
		guard_close(&g);
		plan_free(&pl);
		free(plan);
		return cli_error(r == -ENOENT ? CLI_NOTFOUND : CLI_USAGE, "%s", err);
	}
	(void)gethostname(host, sizeof(host) - 1);
	/* plan errors name the option, since the operator wrote no plan */
	runner_cmdline(getpid(), cmd, sizeof(cmd));
	who.uid = getuid();
	who.pid = getpid();
	who.cmd = *cmd ? cmd : NULL;
	who.via = STORE_VIA_CLI;
	r = runner_create_run(s, &pl, plan, &id, host, &who, &run_id, NULL, err, sizeof(err));
	free(plan);
	if (r) {
		guard_close(&g);
		plan_free(&pl);
		store_close(s);
		return cli_error(CLI_USAGE, "%s", err);
	}
	printf("run %lld on %s (%s)\n", (long long)run_id, V(O_TARGET), id.serial);
	if (*load)
		printf("load %s\n", load);
	fflush(stdout);
	run_journal_start(run_id, V(O_TARGET), id.serial);
	if (runner_new(s, run_id, &run_ops, &ctx, &runner)) {
		guard_close(&g);
		plan_free(&pl);
		store_close(s);
		return cli_error(CLI_USAGE, "out of memory");
	}
	runner_adopt_guard(runner, &g);
	/* parsed once: the runner does not parse the stored text again */
	runner_set_plan(runner, &pl);
	run_runner = runner;
	signal(SIGINT, run_signal);
	signal(SIGTERM, run_signal);
	r = runner_run(runner);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	run_runner = NULL;
	if (r) {
		cli_error(0, "run %lld %s: %s", (long long)run_id,
			  r == -ECANCELED ? "stopped" : "failed", runner_errmsg(runner));
		r = r == -ECANCELED ? CLI_NOT : CLI_FAILED;
	} else if (V(O_STEADY) && strcmp(V(O_STEADY), "none")) {
		/* the run is done; did its precondition reach steady state? */
		struct store_phase *ph = NULL;
		size_t n = 0;

		r = CLI_NOT;
		if (!store_phases_list(s, run_id, &ph, &n))
			for (size_t i = 0; i < n; i++)
				if (!strcmp(ph[i].kind, "precondition") && ph[i].steady == 1)
					r = CLI_OK;
		store_phases_free(ph, n);
		printf("run %lld done: %s\n", (long long)run_id,
		       r == CLI_OK ? "steady state reached" : "steady state NOT reached");
	} else {
		printf("run %lld done\n", (long long)run_id);
	}
	runner_free(runner);
	plan_free(&pl);
	store_close(s);
#undef V
	return r;
}

const struct cli_cmd cli_cmd_run = {
	"run",
	"--target PATH --profile NAME [--threads T] [--iodepth Q] [--interval 1s]\n"
	"       [--duration 30s] [--steady snia|fio-slope|fio-dev|none ...] [--fill-passes N] ...",
	"a run in the foreground (scripts, tests), recorded in the database",
	"  Writes a plan from the options, records the run and carries it out with\n"
	"  the daemon's code, printing a line per sample.  Ctrl-C stops it.\n"
	"  --target PATH       block device or regular file\n"
	"  --serial ID         the drive's serial (or EUI64/NGUID/WWN); required for a\n"
	"                      block device: plateau writes only to a drive you name\n"
	"  --profile NAME      4k-randwrite 4k-randread 8k-7030 64k-randwrite\n"
	"                      64k-randread 128k-seqwrite 128k-seqread fileserver webserver\n"
	"  --rw RW --bssplit B [--rwmix P]   a custom workload (fio syntax)\n"
	"  --threads T --iodepth Q           load (default 1 x 32)\n"
	"  --interval D        sample interval (default 60s; 100ms at least)\n"
	"  --duration D        stop after this long\n"
	"  --steady C          snia, fio-slope, fio-dev: stop at steady state (with\n"
	"                      --window --data-limit --slope-limit --absolute\n"
	"                      --max-rounds --metric as for `plateau steady`);\n"
	"                      none (default): just measure\n"
	"  --after-steady A    stop (default) or continue (and report if it is lost)\n"
	"  --precondition-with write|none    a 100 %-read workload runs as its write\n"
	"                      variant (write, the default: SNIA preconditions with\n"
	"                      writes) or as given (none: measure the reads)\n"
	"  --fill-passes N [--fill-bs B]     sequential fill first (WIPC)\n"
	"  --erase METHOD      erase first (see plateau.plan(5))\n"
	"  --footprint P%|SIZE [--offset SIZE]  the region (ActiveRange)\n"
	"  --io-timeout D      an I/O outstanding this long is hung: the run fails\n"
	"                      (default 5m; 1s at least)\n"
	"  --name NAME --seed N --quiet\n"
	"  --yes               at a terminal, do not wait 10 s before writing a drive\n"
	"  Exit status: 0 done (and steady, with --steady), 1 not steady or stopped,\n"
	"  2 bad input, 3 target not found, 5 the run failed, 6 refused by the\n"
	"  safety gate (nothing written, nothing recorded).\n",
	cmd_run,
	CLI_FMT_NONE};
