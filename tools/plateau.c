// SPDX-License-Identifier: MIT
/*
 * plateau: the CLI.  Starts and stops runs through plateaud, reads the
 * database (read-only) to list runs, print curves and judge steady state.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "version.h"

static int cmd_help(struct cli *cli, int argc, char **argv);
static int cmd_version(struct cli *cli, int argc, char **argv);

#define FORMAT_HELP "  --json | --csv      one JSON document / CSV with a header row\n"

static const struct cli_cmd cli_cmds[] = {
	{"start", "PLAN [--dry-run]", "hand a plan to plateaud",
	 "  The daemon passes the drive through the safety gate (plateau(1) SAFETY):\n"
	 "  the plan must name it (serial, EUI64, NGUID or WWN), and it must be neither\n"
	 "  in use nor locked by another plateau process; then it records the run and\n"
	 "  starts it.  --dry-run shows the identity, the checks, who holds the drive\n"
	 "  and the erase method that would run, and starts nothing.\n"
	 "  --json              the daemon's answer as JSON\n"
	 "  Exit status: 0 started; 2 bad plan; 4 plateaud unreachable; 6 refused.\n",
	 cmd_start, CLI_FMT_JSON},
	{"check", "PLAN", "validate a plan and show its phases with every default filled in",
	 "  Reads only the file: no daemon, no drive.  Errors name file:line and field.\n"
	 "  --json              the phases as JSON\n",
	 cmd_check, CLI_FMT_JSON},
	{"stop", "RUN", "stop a run (it ends 'stopped'; what was measured is kept)", "", cmd_stop,
	 false},
	{"status", "[RUN]", "the runs plateaud is carrying out: phase, progress, last sample",
	 "  --json              the daemon's answer as JSON\n", cmd_status, CLI_FMT_JSON},
	{"top", "[--interval D] [--once]",
	 "a live view of the runs in progress and how close each is to steady state",
	 "  Asks plateaud for its runs and reads the database for the last window of\n"
	 "  the current precondition phase, judged with the phase's criterion: its\n"
	 "  data and slope excursions as a share of their limits (each at most 100%,\n"
	 "  under 100% for the fio criteria: the window passes).\n"
	 "  --interval D        redraw every D (default 2s); Ctrl-C ends\n"
	 "  --once              print once, without escape codes\n"
	 "  Exit status: 0; 2 bad option; 4 plateaud unreachable.\n",
	 cmd_top, CLI_FMT_NONE},
	{"wait", "RUN [--for steady|done] [--timeout D]",
	 "wait until a run reaches steady state or ends",
	 "  Reads the database, so it works wherever the database is visible.\n"
	 "  Exit status: 0 reached; 1 timed out, or the run ended without reaching it\n"
	 "  (stopped, or done without steady state); 5 the run failed; 3 no such run.\n",
	 cmd_wait, CLI_FMT_NONE},
	{"drives", "[PATH...] [--json|--csv]",
	 "every NVMe namespace and block device: identity, erase methods, in-use reasons",
	 "  With PATHs, just those (regular files too).  The serial (or EUI64, NGUID,\n"
	 "  WWN) shown is what a plan names in [run] serial =.\n"
	 "  Loop devices are named loop:MAJ:MIN:INODE of their backing file, regular\n"
	 "  files file:MAJ:MIN:INODE.  A drive in use (mounted, swap, held by md/dm/LVM,\n"
	 "  backing /) is refused by every writing phase.\n" FORMAT_HELP,
	 cmd_drives, CLI_FMT_ALL},
	{"runs", "[--serial S] [--state STATE|active] [--since WHEN] [--until WHEN]",
	 "list the runs in the database",
	 "  --serial S          runs on the drive with this serial (or EUI64/NGUID/WWN)\n"
	 "  --state STATE       queued erasing filling preconditioning sweeping done\n"
	 "                      failed stopped, or 'active' for every unfinished run\n"
	 "  --since/--until W   created at or after / before W: '2026-11-29',\n"
	 "                      '2026-11-29 13:00' (local time) or '24h', '7d' (ago)\n" FORMAT_HELP,
	 cmd_runs, CLI_FMT_ALL},
	{"show", "RUN", "a run: drive identity, plan, phases, erase record, steady-state verdict",
	 "  The verdict of each preconditioning phase is re-judged from its stored\n"
	 "  samples with the criterion its plan named, and shown with its evidence.\n"
	 "  --json              one JSON document\n",
	 cmd_show, CLI_FMT_JSON},
	{"samples", "RUN [--phase N] [--metric M[,M...]]", "the samples (curve) of a phase",
	 "  --phase N           phase number (see `plateau show`); default: the last\n"
	 "                      preconditioning phase with samples\n"
	 "  --metric M          only these columns: iops bw lat lat-max lat-stddev "
	 "p99\n" FORMAT_HELP,
	 cmd_samples, CLI_FMT_ALL},
	{"plot", "RUN [--phase N] [--metric M] [--width N] [--height N] [--ascii]",
	 "a phase's curve as a chart in the terminal, the steady-state window marked",
	 "  --phase N           phase number (see `plateau show`); default: the last\n"
	 "                      preconditioning phase with samples\n"
	 "  --metric M          iops (default) bw lat lat-max lat-stddev p99\n"
	 "  --width N           characters (default: the terminal's, $COLUMNS, or 80)\n"
	 "  --height N          rows of the plot area (default 16)\n"
	 "  --ascii             plain characters instead of Unicode braille\n"
	 "  Exit status: 0 drawn; 2 bad option; 3 no such run or phase, or no samples.\n",
	 cmd_plot, CLI_FMT_NONE},
	{"steady",
	 "RUN [--phase N] [--criterion snia|fio-slope|fio-dev] [--window N]\n"
	 "       [--data-limit P] [--slope-limit P] [--absolute] [--max-rounds N] [--metric "
	 "M[,M...]]",
	 "re-judge the stored samples of a phase with any criterion",
	 "  --criterion C       snia (default): max-min <= R% and |slope|*(W-1) <= S% of\n"
	 "                      the window average; fio-slope: |slope| < X% of mean;\n"
	 "                      fio-dev: max|y-mean| < X% of mean\n"
	 "  --window N          rounds in the window (default 5)\n"
	 "  --data-limit P      R (snia, default 20) or X (fio-dev)\n"
	 "  --slope-limit P     S (snia, default 10) or X (fio-slope)\n"
	 "  --absolute          fio criteria: limits in the metric's units, not percent\n"
	 "  --max-rounds N      judge at most N rounds (default 25; 0: no cap)\n"
	 "  --metric M[,M...]   iops (default) bw lat p99 lat-max lat-stddev; several\n"
	 "                      metrics must all pass in the same window\n"
	 "  Exit status: 0 steady, 1 not steady.\n" FORMAT_HELP,
	 cmd_steady, CLI_FMT_ALL},

	{"analyze",
	 "FILE [--column NAME] [--round SECONDS] [--log iops|bw|lat|clat|slat] [steady options]",
	 "judge steady state of data from elsewhere (CSV or fio log)",
	 "  FILE is a CSV with a header row (one row per round; --column picks the\n"
	 "  column, default iops) or a fio per-interval log (write_iops_log,\n"
	 "  write_bw_log, write_lat_log: msec, value, direction, bs, offset), whose\n"
	 "  entries are averaged into rounds of --round seconds (default 60),\n"
	 "  directions summed.  `-` reads standard input.  The steady options are\n"
	 "  those of `plateau steady`.  Exit status: 0 steady, 1 not steady.\n" FORMAT_HELP,
	 cmd_analyze, CLI_FMT_ALL},

	{"run",
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
	 cmd_run, CLI_FMT_NONE},
	{"report", "RUN [RUN...] -o FILE.html",
	 "one self-contained HTML report: curves, steady-state windows, sweeps, drives",
	 "  For each run the drive identity, plan, erase record and phases; for each\n"
	 "  preconditioning phase (matched across runs by order) throughput, average,\n"
	 "  maximum latency and latency standard deviation over time with every run\n"
	 "  overlaid, and the steady-state measurement window with its evidence; the\n"
	 "  load sweeps.  The page needs no network (charts: uPlot, inlined) and\n"
	 "  prints.  Long phases are drawn from per-span minima and maxima.\n"
	 "  -o, --output FILE   where to write it (- for standard output); written\n"
	 "                      to a temporary file and renamed, never left half done\n"
	 "  Exit status: 0 written; 2 bad input; 3 no such run or database.\n",
	 cmd_report, CLI_FMT_NONE},
	{"migrate", "", "upgrade the database schema (the daemon does this on start)", "",
	 cmd_migrate, false},
	{"help", "[COMMAND]", "this list, or the help of one command", "", cmd_help, CLI_FMT_NONE},
	{"version", "", "print the version", "", cmd_version, CLI_FMT_NONE},
};

const struct cli_cmd *cli_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		if (!strcmp(cli_cmds[i].name, name))
			return &cli_cmds[i];
	return NULL;
}

static void cli_overview(FILE *f)
{
	fprintf(f, "usage: plateau [--db PATH] [--socket PATH] [--json|--csv] COMMAND [ARGS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
	fprintf(f, "\nOptions (before or after the command):\n"
		   "  --db PATH      the database (default $PLATEAU_DB or " PLATEAU_DEFAULT_DB ")\n"
		   "  --socket PATH  plateaud's control socket (default $PLATEAU_SOCKET or\n"
		   "                 " PLATEAU_DEFAULT_SOCKET ")\n"
		   "  --json, --csv  machine-readable output\n\n"
		   "Exit status: 0 ok or steady; 1 not steady, not reached or timed out;\n"
		   "2 usage or bad input; 3 not found; 4 daemon unreachable; 5 the run failed;\n"
		   "6 refused by the safety gate.\n");
}

static void cli_help_of(const struct cli_cmd *c)
{
	printf("usage: plateau %s %s\n\n%s.\n%s%s", c->name, c->args, c->summary,
	       *c->help ? "\n" : "", c->help);
}

static int cmd_help(struct cli *cli, int argc, char **argv)
{
	const struct cli_cmd *c;

	(void)cli;
	if (argc < 2) {
		cli_overview(stdout);
		return CLI_OK;
	}
	if (argc > 2)
		return cli_usage("help");
	c = cli_find(argv[1]);
	if (!c)
		return cli_error(CLI_USAGE, "no command '%s' (plateau help lists them)", argv[1]);
	cli_help_of(c);
	return CLI_OK;
}

static int cmd_version(struct cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argv;
	if (argc > 1)
		return cli_usage("version");
	printf("plateau %s\n", PLATEAU_VERSION);
	return CLI_OK;
}

/*
 * Take the global options out of argv wherever they stand (before the
 * command or among its arguments), up to a "--".  Returns an exit code.
 */
static int cli_globals(struct cli *cli, int *argc, char **argv)
{
	int out = 1, i;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;

		if (!strcmp(a, "--")) {
			break;
		} else if (!strcmp(a, "--json") || !strcmp(a, "--csv")) {
			enum cli_format f = a[2] == 'j' ? CLI_JSON : CLI_CSV;

			if (cli->format_set && cli->format != f)
				return cli_error(CLI_USAGE, "--json and --csv exclude each other");
			cli->format = f;
			cli->format_set = true;
			continue;
		} else if (!strcmp(a, "--db") || !strcmp(a, "--socket")) {
			dst = a[2] == 'd' ? &cli->db_path : &cli->socket_path;
			if (i + 1 >= *argc || !*argv[i + 1])
				return cli_error(CLI_USAGE, "%s needs a path", a);
			*dst = argv[++i];
			continue;
		} else if (!strncmp(a, "--db=", 5) || !strncmp(a, "--socket=", 9)) {
			dst = a[2] == 'd' ? &cli->db_path : &cli->socket_path;
			*dst = strchr(a, '=') + 1;
			if (!**dst)
				return cli_error(CLI_USAGE, "%.*s needs a path",
						 (int)(strchr(a, '=') - a), a);
			continue;
		}
		argv[out++] = argv[i];
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	*argc = out;
	return CLI_OK;
}

int main(int argc, char **argv)
{
	struct cli cli = {.format = CLI_TABLE};
	const struct cli_cmd *c;
	const char *env;
	int r;

	env = getenv("PLATEAU_DB");
	cli.db_path = env && *env ? env : PLATEAU_DEFAULT_DB;
	env = getenv("PLATEAU_SOCKET");
	cli.socket_path = env && *env ? env : PLATEAU_DEFAULT_SOCKET;

	opterr = 0; /* the commands say what was wrong, in one line */
	r = cli_globals(&cli, &argc, argv);
	if (r)
		return r;
	if (argc < 2) {
		cli_overview(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_overview(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return cmd_version(&cli, 1, argv);
	c = cli_find(argv[1]);
	if (!c && argv[1][0] == '-')
		return cli_error(CLI_USAGE, "unknown option '%s' (plateau help)", argv[1]);
	if (!c)
		return cli_error(CLI_USAGE, "no command '%s' (plateau help lists them)", argv[1]);
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cli_help_of(c);
			return CLI_OK;
		}
	if (cli.format_set && c->formats == CLI_FMT_NONE)
		return cli_error(CLI_USAGE, "%s takes no --json/--csv", c->name);
	if (cli.format == CLI_CSV && c->formats == CLI_FMT_JSON)
		return cli_error(CLI_USAGE, "%s prints one document: --json, not --csv", c->name);
	r = c->fn(&cli, argc - 1, argv + 1);
	store_close(cli.store);
	if (fflush(stdout) && !r)
		r = cli_error(CLI_USAGE, "writing the output failed");
	return r;
}
