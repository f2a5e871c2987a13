// SPDX-License-Identifier: MIT
/* runs: the list of stored runs. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "out.h"

static const struct out_col runs_cols[] = {
	{"run", "RUN", 0, 0},	      {"name", "NAME", 0, 1},	  {"state", "STATE", 0, 1},
	{"model", "MODEL", 0, 1},     {"serial", "SERIAL", 0, 1}, {"device", "DEVICE", 0, 1},
	{"created", "CREATED", 0, 1}, {"ended", "ENDED", 0, 1},
};

struct runs_ctx {
	struct out *o;
	enum cli_format fmt;
	size_t n;
};

static int runs_row(void *ctx, const struct store_run *r)
{
	struct runs_ctx *c = ctx;

	out_i64(c->o, r->id);
	out_str(c->o, r->name);
	out_str(c->o, r->state);
	out_str(c->o, r->drive.model);
	out_str(c->o, r->drive.serial);
	out_str(c->o, r->drive.path);
	out_time(c->o, c->fmt, r->created_ns);
	out_time(c->o, c->fmt, r->ended_ns);
	out_end_row(c->o);
	c->n++;
	return 0;
}

int cmd_runs(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"serial", required_argument, NULL, 's'},
		{"state", required_argument, NULL, 't'},
		{"since", required_argument, NULL, 'S'},
		{"until", required_argument, NULL, 'U'},
		{NULL, 0, NULL, 0},
	};
	struct store_run_filter f = {0};
	struct runs_ctx c = {.fmt = cli->format};
	struct store *s;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			f.serial = optarg;
			break;
		case 't':
			if (strcmp(optarg, "active") && !store_run_state_valid(optarg))
				return cli_error(
					CLI_USAGE,
					"--state: '%s' is not a run state (queued erasing "
					"filling preconditioning sweeping done failed stopped "
					"active)",
					optarg);
			f.state = optarg;
			break;
		case 'S':
		case 'U':
			if (cli_parse_when(optarg, opt == 'S' ? &f.since_ns : &f.until_ns))
				return cli_error(CLI_USAGE,
						 "--%s: '%s' is not a date ('2026-11-29', "
						 "'2026-11-29 13:00') or an age ('24h', '7d')",
						 opt == 'S' ? "since" : "until", optarg);
			break;
		default:
			return cli_bad_option("runs", argv);
		}
	}
	if (optind != argc)
		return cli_usage("runs");
	if ((r = cli_store(cli, &s)))
		return r;
	c.o = out_new(cli->format, stdout, runs_cols, sizeof(runs_cols) / sizeof(runs_cols[0]));
	if (!c.o)
		return cli_error(CLI_USAGE, "out of memory");
	r = store_runs_foreach(s, &f, runs_row, &c);
	if (r) {
		out_abort(c.o);
		return cli_error(CLI_USAGE, "%s", store_errmsg(s));
	}
	if (out_finish(c.o))
		return cli_error(CLI_USAGE, "writing the output failed");
	return CLI_OK;
}

const struct cli_cmd cli_cmd_runs = {
	"runs",
	"[--serial S] [--state STATE|active] [--since WHEN] [--until WHEN]",
	"list the runs in the database",
	"  --serial S          runs on the drive with this serial (or EUI64/NGUID/WWN)\n"
	"  --state STATE       queued erasing filling preconditioning sweeping done\n"
	"                      failed stopped, or 'active' for every unfinished run\n"
	"  --since/--until W   created at or after / before W: '2026-11-29',\n"
	"                      '2026-11-29 13:00' (local time) or '24h', '7d' (ago)\n" FORMAT_HELP,
	cmd_runs,
	CLI_FMT_ALL};
