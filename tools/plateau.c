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

static const struct cli_cmd cli_cmd_help = {
	"help", "[COMMAND]", "this list, or the help of one command", "", cmd_help, CLI_FMT_NONE};

static const struct cli_cmd cli_cmd_version = {"version", "",	       "print the version",
					       "",	  cmd_version, CLI_FMT_NONE};

/* every command, in the order `plateau help` lists them */
/* clang-format off */
static const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_start,
	&cli_cmd_check,
	&cli_cmd_stop,
	&cli_cmd_status,
	&cli_cmd_top,
	&cli_cmd_wait,
	&cli_cmd_drives,
	&cli_cmd_runs,
	&cli_cmd_show,
	&cli_cmd_samples,
	&cli_cmd_points,
	&cli_cmd_latency,
	&cli_cmd_plot,
	&cli_cmd_steady,
	&cli_cmd_analyze,
	&cli_cmd_run,
	&cli_cmd_report,
	&cli_cmd_export,
	&cli_cmd_import,
	&cli_cmd_migrate,
	&cli_cmd_help,
	&cli_cmd_version,
};
/* clang-format on */

const struct cli_cmd *cli_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		if (!strcmp(cli_cmds[i]->name, name))
			return cli_cmds[i];
	return NULL;
}

/* the commands that only read stored runs: several databases at once */
#define CLI_READERS "runs, show, samples, steady, plot, points, latency, report, export"

static bool cli_reads_many(const char *name)
{
	static const char *const readers[] = {"runs",	"show",	   "samples", "steady", "plot",
					      "points", "latency", "report",  "export"};

	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(name, readers[i]))
			return true;
	return false;
}

/* an unknown command: the nearest one, if it is a typing mistake away */
static int cli_no_command(const char *name)
{
	const char *names[sizeof(cli_cmds) / sizeof(cli_cmds[0])];
	const char *hint;

	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		names[i] = cli_cmds[i]->name;
	hint = cli_suggest(name, names, sizeof(names) / sizeof(names[0]));
	if (hint)
		return cli_error(CLI_USAGE, "no command '%s': did you mean %s? (plateau help)",
				 name, hint);
	return cli_error(CLI_USAGE, "no command '%s' (plateau help lists them)", name);
}

static void cli_overview(FILE *f)
{
	fprintf(f, "usage: plateau [--db PATH] [--socket PATH] [--json|--csv] COMMAND [ARGS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i]->name, cli_cmds[i]->summary);
	fprintf(f,
		"\nOptions (before or after the command):\n"
		"  --db PATH      the database (default $PLATEAU_DB or " PLATEAU_DEFAULT_DB ");\n"
		"                 again and again, or a directory (its *.db files), for\n"
		"                 the commands that only read: " CLI_READERS "\n"
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
		return cli_no_command(argv[1]);
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
		} else if (!strncmp(a, "--db=", 5) || !strncmp(a, "--socket=", 9)) {
			dst = a[2] == 'd' ? &cli->db_path : &cli->socket_path;
			*dst = strchr(a, '=') + 1;
			if (!**dst)
				return cli_error(CLI_USAGE, "%.*s needs a path",
						 (int)(strchr(a, '=') - a), a);
		}
		if (dst) {
			/* --db again and again: the reading commands take them all */
			if (dst == &cli->db_path) {
				if (cli->ndb_args == CLI_MAX_DB_ARGS)
					return cli_error(CLI_USAGE,
							 "more than %d --db: give a directory "
							 "of databases instead",
							 CLI_MAX_DB_ARGS);
				cli->db_args[cli->ndb_args++] = *dst;
				cli->db_path = cli->db_args[0];
			}
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
	if (!c && argv[1][0] == '-') {
		const char *hint = cli_suggest(argv[1], cli_global_opts, 4);

		if (hint)
			return cli_error(CLI_USAGE,
					 "unknown option '%s': did you mean %s? (plateau help)",
					 argv[1], hint);
		return cli_error(CLI_USAGE, "unknown option '%s' (plateau help)", argv[1]);
	}
	if (!c)
		return cli_no_command(argv[1]);
	if (cli.ndb_args > 1 && !cli_reads_many(c->name))
		return cli_error(CLI_USAGE,
				 "%s uses one database: --db given %zu times (several are for "
				 "the commands that only read: " CLI_READERS ")",
				 c->name, cli.ndb_args);
	cli.multi_db = cli_reads_many(c->name);
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
	cli_close(&cli);
	if (fflush(stdout) && !r)
		r = cli_error(CLI_USAGE, "writing the output failed");
	return r;
}
