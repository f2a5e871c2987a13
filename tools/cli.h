/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_CLI_H
#define PLATEAU_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "paths.h"
#include "clock.h"
#include "store.h"

/*
 * The plateau CLI: one file per subcommand group, a table in plateau.c.
 * Exit codes are an interface scripts depend on (plateau(1), README).
 */
enum cli_exit {
	CLI_OK = 0,	  /* success; steady */
	CLI_NOT = 1,	  /* not steady, not reached, timed out */
	CLI_USAGE = 2,	  /* usage error or bad input */
	CLI_NOTFOUND = 3, /* no such run/phase/file/database */
	CLI_NODAEMON = 4, /* the daemon is unreachable */
	CLI_FAILED = 5,	  /* the run failed (plateau run, plateau wait) */
	CLI_REFUSED = 6,  /* the safety gate refused the drive; nothing was written */
};

enum {
	CLI_FMT_NONE,
	CLI_FMT_JSON,
	CLI_FMT_ALL,
};

enum cli_format {
	CLI_TABLE,
	CLI_JSON,
	CLI_CSV,
};

#define CLI_MAX_DB_ARGS 64

struct cli_db;

/*
 * The databases: one --db (or $PLATEAU_DB, or the default) for most
 * commands; the commands that only read (cli->multi_db: runs, show,
 * samples, steady, plot, points, latency, report, export) take --db again
 * and again, or a directory (every *.db in it), all opened read-only.
 * cli_find_run() picks the database that holds a run; cli_store() then
 * returns that one.
 */
struct cli {
	const char *db_path;	 /* the database in use: --db, $PLATEAU_DB, or the default */
	const char *socket_path; /* --socket, $PLATEAU_SOCKET, or the default */
	enum cli_format format;	 /* --json / --csv */
	bool format_set;
	struct store *store;		      /* the database in use, opened read-only on demand */
	const char *db_args[CLI_MAX_DB_ARGS]; /* every --db, in order */
	size_t ndb_args;
	bool multi_db;	    /* the command reads several databases */
	struct cli_db *dbs; /* the database files, directories expanded */
	size_t ndb;
	size_t cur; /* index of cli->store in dbs, ndb: none yet */
	bool dbs_ready;
};

struct cli_cmd {
	const char *name;
	const char *args;    /* "RUN [--phase N]" */
	const char *summary; /* one line for `plateau help` */
	const char *help;    /* the rest of `plateau help CMD` */
	int (*fn)(struct cli *cli, int argc, char **argv);
	int formats; /* CLI_FMT_NONE, CLI_FMT_JSON (--json), CLI_FMT_ALL (--json, --csv) */
};

/* "plateau: <msg>" on stderr; returns @code */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* usage line of a command on stderr; returns CLI_USAGE */
int cli_usage(const char *cmd);
/* after getopt_long returned '?' (opterr is 0): names the option; CLI_USAGE */
int cli_bad_option(const char *cmd, char **argv);
/* @arg, as given, is no option of @cmd: names it, with a did-you-mean among
 * the command's options and the global ones it takes; CLI_USAGE */
int cli_bad_arg(const char *cmd, const char *arg);
const struct cli_cmd *cli_find(const char *name);

/*
 * One request to plateaud and its one-line reply (a JSON object).  Returns
 * CLI_OK, or CLI_NODAEMON / CLI_USAGE with the reason in @err.
 */
int cli_call(const char *socket_path, json_object *req, json_object **reply, char *err,
	     size_t errlen);

/* Open the database read-only (once): the one cli_find_run() picked, else the
 * only one given; prints the reason and returns the exit code on failure (3
 * missing, 2 corrupt / newer / older, or several databases and no run). */
int cli_store(struct cli *cli, struct store **ret);
/* How many databases the command reads (directories expanded); prints and
 * returns the exit code */
int cli_db_count(struct cli *cli, size_t *n);
/* The @i-th of them, opened read-only (once); prints and returns the exit code */
int cli_store_at(struct cli *cli, size_t i, struct store **ret);
/* Is the file open as @fd one of the command's databases, or its -wal,
 * -shm or -journal (by device and inode; the reading commands hold a
 * descriptor of each database)? */
bool cli_db_holds(struct cli *cli, int fd);
/* The path of the @i-th database (as given, or DIR/NAME.db) */
const char *cli_db_path_at(const struct cli *cli, size_t i);
/* Close every database (at exit) */
void cli_close(struct cli *cli);
/* Parse "RUN" as a run number of plateaud's database (stop, status);
 * prints and returns the exit code. */
int cli_parse_run(const char *arg, int64_t *run_id);
/*
 * Find the stored run "RUN" names, for the commands that read databases:
 * a run number (when exactly one database has it), HOST:N (run N of the
 * database whose run N was made on HOST), or a UUID or a prefix of at
 * least 8 of its hex digits.  A uuid held in several databases (an
 * exported run imported elsewhere) is one run: the copy in the first
 * database, in --db order, is taken.  Sets *run_id to its id in the database that
 * holds it, and makes that database the one cli_store() returns.  Prints
 * and returns the exit code (2 malformed or ambiguous, listing the
 * candidates as HOST:N and UUID; 3 not found).
 */
int cli_find_run(struct cli *cli, const char *arg, int64_t *run_id);
/* the global options, for suggestions */
extern const char *const cli_global_opts[4];
/* The closest of @n candidates to @word by edit distance, when close
 * enough to be a typing mistake; NULL otherwise */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);
/* Parse --phase's "N" (a phase number); prints and returns the exit code. */
int cli_parse_phase(const char *arg, uint64_t *seq);
/* Load a run; 3 when absent */
int cli_load_run(struct cli *cli, int64_t run_id, struct store_run *run);
/* A run, its phases and the one picked (see cli_open_phase), for the
 * commands that work on one phase: samples, steady, plot. */
struct cli_phase {
	struct store *s;
	struct store_run run;
	struct store_phase *phases;
	size_t n;
	struct store_phase *p; /* the one picked */
};

/* Returns an exit code; on failure everything is released already. */
int cli_open_phase(struct cli *cli, int64_t run_id, int want_seq, struct cli_phase *ph);
void cli_close_phase(struct cli_phase *ph);

/* Time as "2026-11-29 23:04:12" local time; "-" for 0. */
char *cli_fmt_time(char *buf, size_t len, int64_t ns);
/* ISO 8601 UTC "2026-11-29T23:04:12.345Z"; for JSON/CSV */
char *cli_fmt_iso(char *buf, size_t len, int64_t ns);
/* "2026-11-29", "2026-11-29 13:00[:00]" (local) or "24h"/"7d" (ago) -> ns */
int cli_parse_when(const char *s, int64_t *ns);

/* the help line of --json/--csv, for the commands that take both */
#define FORMAT_HELP "  --json | --csv      one JSON document / CSV with a header row\n"

/* Subcommands: each file defines its commands' table entries (plateau.c
 * lists them) */
extern const struct cli_cmd cli_cmd_start;
extern const struct cli_cmd cli_cmd_check;
extern const struct cli_cmd cli_cmd_stop;
extern const struct cli_cmd cli_cmd_status;
extern const struct cli_cmd cli_cmd_top;
extern const struct cli_cmd cli_cmd_wait;
extern const struct cli_cmd cli_cmd_drives;
extern const struct cli_cmd cli_cmd_runs;
extern const struct cli_cmd cli_cmd_show;
extern const struct cli_cmd cli_cmd_samples;
extern const struct cli_cmd cli_cmd_points;
extern const struct cli_cmd cli_cmd_latency;
extern const struct cli_cmd cli_cmd_plot;
extern const struct cli_cmd cli_cmd_steady;
extern const struct cli_cmd cli_cmd_analyze;
extern const struct cli_cmd cli_cmd_run;
extern const struct cli_cmd cli_cmd_report;
extern const struct cli_cmd cli_cmd_export;
extern const struct cli_cmd cli_cmd_import;
extern const struct cli_cmd cli_cmd_migrate;

int cmd_runs(struct cli *cli, int argc, char **argv);
int cmd_show(struct cli *cli, int argc, char **argv);
int cmd_samples(struct cli *cli, int argc, char **argv);
int cmd_steady(struct cli *cli, int argc, char **argv);
int cmd_analyze(struct cli *cli, int argc, char **argv);
int cmd_migrate(struct cli *cli, int argc, char **argv);
int cmd_run(struct cli *cli, int argc, char **argv);
int cmd_start(struct cli *cli, int argc, char **argv);
int cmd_stop(struct cli *cli, int argc, char **argv);
int cmd_status(struct cli *cli, int argc, char **argv);
int cmd_wait(struct cli *cli, int argc, char **argv);
int cmd_drives(struct cli *cli, int argc, char **argv);
int cmd_check(struct cli *cli, int argc, char **argv);
int cmd_report(struct cli *cli, int argc, char **argv);
int cmd_plot(struct cli *cli, int argc, char **argv);
int cmd_top(struct cli *cli, int argc, char **argv);

#endif
