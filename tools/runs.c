// SPDX-License-Identifier: MIT
/* runs: the list of stored runs, from one database or several. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"

/* the table: HOST only when more than one host appears */
static const struct out_col runs_table_cols[] = {
	{"run", "RUN", 0, 0},	    {"host", "HOST", 0, 1},	{"name", "NAME", 0, 1},
	{"state", "STATE", 0, 1},   {"steady", "STEADY", 0, 1}, {"model", "MODEL", 0, 1},
	{"serial", "SERIAL", 0, 1}, {"device", "DEVICE", 0, 1}, {"created", "CREATED", 0, 1},
	{"ended", "ENDED", 0, 1},
};

/* JSON and CSV: every column, always */
static const struct out_col runs_data_cols[] = {
	{"run", NULL, 0, 0},	      {"host", NULL, 0, 1},    {"uuid", NULL, 0, 1},
	{"name", NULL, 0, 1},	      {"state", NULL, 0, 1},   {"steady", NULL, 0, 1},
	{"steady_round", NULL, 0, 0}, {"model", NULL, 0, 1},   {"serial", NULL, 0, 1},
	{"device", NULL, 0, 1},	      {"created", NULL, 0, 1}, {"ended", NULL, 0, 1},
	{"db", NULL, 0, 1}, /* only with several databases */
};

struct runs_row {
	size_t db;
	int64_t id;
	char host[128];
	char uuid[STORE_UUID_LEN + 1];
	char name[128];
	char state[24];
	int steady;	      /* -1: no precondition judged, 0 not steady, 1 steady */
	int64_t steady_round; /* of the last precondition judged, when steady */
	char model[64];
	char serial[80];
	char device[256];
	int64_t created_ns;
	int64_t ended_ns;
};

struct runs_ctx {
	struct store *s;
	size_t db;
	struct runs_row *rows;
	size_t n, cap;
};

/*
 * The run's steady-state verdict as its precondition phases were judged:
 * steady when every judged one reached it (at the last one's round), not
 * steady when any did not, none (-1) while none is judged.
 */
static int runs_verdict(struct store *s, int64_t run_id, struct runs_row *row)
{
	struct store_phase *ph = NULL;
	size_t n = 0;
	int r = store_phases_list(s, run_id, &ph, &n);

	row->steady = -1;
	row->steady_round = 0;
	if (r)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ph[i].kind, "precondition") || ph[i].steady < 0)
			continue;
		if (!ph[i].steady) {
			row->steady = 0;
			row->steady_round = 0;
		} else if (row->steady != 0) {
			row->steady = 1;
			row->steady_round = ph[i].steady_round;
		}
	}
	store_phases_free(ph, n);
	return 0;
}

static int runs_collect(void *ctx, const struct store_run *r)
{
	struct runs_ctx *c = ctx;
	struct runs_row *row;
	int ret;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct runs_row *nr = realloc(c->rows, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->rows = nr;
		c->cap = cap;
	}
	row = &c->rows[c->n];
	memset(row, 0, sizeof(*row));
	row->db = c->db;
	row->id = r->id;
	snprintf(row->host, sizeof(row->host), "%s", r->host);
	snprintf(row->uuid, sizeof(row->uuid), "%s", r->uuid);
	snprintf(row->name, sizeof(row->name), "%s", r->name);
	snprintf(row->state, sizeof(row->state), "%s", r->state);
	snprintf(row->model, sizeof(row->model), "%s", r->drive.model);
	snprintf(row->serial, sizeof(row->serial), "%s", r->drive.serial);
	snprintf(row->device, sizeof(row->device), "%s", r->drive.path);
	row->created_ns = r->created_ns;
	row->ended_ns = r->ended_ns;
	if ((ret = runs_verdict(c->s, r->id, row)))
		return ret;
	c->n++;
	return 0;
}

/* several databases: one list in the order the runs were created */
static int runs_cmp(const void *a, const void *b)
{
	const struct runs_row *x = a, *y = b;

	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? -1 : 1;
	if (x->db != y->db)
		return x->db < y->db ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* several databases: a run's copies (one uuid) together, first database first */
static int runs_cmp_uuid(const void *a, const void *b)
{
	const struct runs_row *x = a, *y = b;
	int c = strcmp(x->uuid, y->uuid);

	if (c)
		return c;
	if (x->db != y->db)
		return x->db < y->db ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A run exported from one database and imported into another is one run:
 * the copy in the first database (in --db order) stays.  Returns the new
 * count. */
static size_t runs_drop_copies(struct runs_row *rows, size_t n)
{
	size_t k = 0;

	qsort(rows, n, sizeof(*rows), runs_cmp_uuid);
	for (size_t i = 0; i < n; i++) {
		if (k && rows[i].uuid[0] && !strcmp(rows[i].uuid, rows[k - 1].uuid))
			continue;
		rows[k++] = rows[i];
	}
	return k;
}

static void runs_print_row(struct out *o, enum cli_format fmt, const struct runs_row *r,
			   bool show_host, const char *db)
{
	char verdict[48];

	out_i64(o, r->id);
	if (fmt != CLI_TABLE || show_host)
		out_str(o, r->host);
	if (fmt != CLI_TABLE)
		out_str(o, r->uuid[0] ? r->uuid : NULL);
	out_str(o, r->name);
	out_str(o, r->state);
	if (fmt == CLI_TABLE) {
		if (r->steady < 0)
			snprintf(verdict, sizeof(verdict), "-");
		else if (!r->steady)
			snprintf(verdict, sizeof(verdict), "not steady");
		else
			snprintf(verdict, sizeof(verdict), "steady r%lld",
				 (long long)r->steady_round);
		out_str(o, verdict);
	} else {
		if (r->steady < 0)
			out_null(o);
		else
			out_bool(o, r->steady);
		if (r->steady == 1 && r->steady_round > 0)
			out_i64(o, r->steady_round);
		else
			out_null(o);
	}
	out_str(o, r->model);
	out_str(o, r->serial);
	out_str(o, r->device);
	out_time(o, fmt, r->created_ns);
	out_time(o, fmt, r->ended_ns);
	if (fmt != CLI_TABLE && db)
		out_str(o, db);
	out_end_row(o);
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
	struct runs_ctx c = {0};
	struct out_col cols[sizeof(runs_table_cols) / sizeof(runs_table_cols[0])];
	const struct out_col *use = runs_data_cols;
	size_t ndb, ncols = sizeof(runs_data_cols) / sizeof(runs_data_cols[0]);
	bool show_host = false;
	struct out *o;
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
	if ((r = cli_db_count(cli, &ndb)))
		return r;
	for (size_t i = 0; i < ndb; i++) {
		if ((r = cli_store_at(cli, i, &c.s)))
			goto out;
		c.db = i;
		r = store_runs_foreach(c.s, &f, runs_collect, &c);
		if (r) {
			r = cli_error(CLI_USAGE, "%s",
				      r == -ENOMEM ? "out of memory" : store_errmsg(c.s));
			goto out;
		}
	}
	if (ndb > 1) {
		c.n = runs_drop_copies(c.rows, c.n);
		qsort(c.rows, c.n, sizeof(*c.rows), runs_cmp);
	} else {
		ncols--; /* no db column: the one database is the one given */
	}

	if (cli->format == CLI_TABLE) {
		for (size_t i = 1; i < c.n; i++)
			show_host |= strcmp(c.rows[i].host, c.rows[0].host) != 0;
		ncols = 0;
		for (size_t i = 0; i < sizeof(runs_table_cols) / sizeof(runs_table_cols[0]); i++)
			if (show_host || strcmp(runs_table_cols[i].name, "host"))
				cols[ncols++] = runs_table_cols[i];
		use = cols;
	}
	o = out_new(cli->format, stdout, use, ncols);
	if (!o) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c.n; i++)
		runs_print_row(o, cli->format, &c.rows[i], show_host,
			       ndb > 1 ? cli_db_path_at(cli, c.rows[i].db) : NULL);
	r = out_finish(o) ? cli_error(CLI_USAGE, "writing the output failed") : CLI_OK;
out:
	free(c.rows);
	return r;
}

const struct cli_cmd cli_cmd_runs = {
	"runs",
	"[--serial S] [--state STATE|active] [--since WHEN] [--until WHEN]",
	"list the runs in the database (or databases)",
	"  --serial S          runs on the drive with this serial (or EUI64/NGUID/WWN)\n"
	"  --state STATE       queued erasing filling preconditioning sweeping done\n"
	"                      failed stopped, or 'active' for every unfinished run\n"
	"  --since/--until W   created at or after / before W: '2026-11-29',\n"
	"                      '2026-11-29 13:00' (local time) or '24h', '7d' (ago)\n" FORMAT_HELP
	"\nWith several --db (or a directory), the runs of all of them, oldest first;\n"
	"a run held in several (the same uuid: exported and imported) is listed once,\n"
	"from the first database in --db order, and JSON and CSV name each row's\n"
	"database (db).\n"
	"STEADY is the verdict of the run's precondition phases: 'steady rN' (every\n"
	"judged one reached steady state; N the round of the last), 'not steady', or\n"
	"'-' (none judged yet).  The table shows HOST when the runs come from more\n"
	"than one host; JSON and CSV always have host, uuid, steady (true, false or\n"
	"null) and steady_round.\n",
	cmd_runs,
	CLI_FMT_ALL};
