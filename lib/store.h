/* SPDX-License-Identifier: MIT */
#ifndef PLATEAU_STORE_H
#define PLATEAU_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/*
 * store: plateau's SQLite database.  One writer (the daemon, or a foreground
 * `plateau run`), many readers (the CLI opens it read-only).
 *
 * Durability: WAL with synchronous=FULL, so a sample whose insert returned 0
 * survives a crash or power loss (in WAL mode, NORMAL may lose the last
 * transactions on power loss).  busy_timeout lets readers and the writer
 * wait for each other instead of failing.
 *
 * Every function returns 0 (or a count) or -errno; the text of the last
 * failure is store_errmsg().  Rows read back are validated; a row that does
 * not make sense (an unknown state, end <= start, a corrupt histogram) gives
 * -EBADMSG with a message naming the table and row.
 */

struct store;

enum {
	STORE_RDONLY = 1 << 0, /* never writes; refuses an old schema */
	STORE_CREATE = 1 << 1, /* create the file if missing (writer only) */
};

#define STORE_BUSY_TIMEOUT_MS 10000
/* "full" (the default) or "normal": the writer's PRAGMA synchronous (above) */
#define STORE_SYNC_ENV "PLATEAU_DB_SYNC"

/**
 * store_open() - open (and as a writer, create or migrate) a database
 * @path: database file
 * @flags: STORE_RDONLY or STORE_CREATE
 * @ret: the handle, written on success
 * @err: a one-line reason on failure (may be NULL)
 *
 * Return: 0; -ENOENT no database at @path; -EPROTO the schema is newer than
 * this program's (both versions named in @err) or, read-only, older;
 * -EBADMSG not a plateau database or corrupt; other -errno.
 */
int store_open(const char *path, unsigned int flags, struct store **ret, char *err, size_t errlen);
void store_close(struct store *s);
const char *store_errmsg(const struct store *s);
/* the database file's path as opened */
const char *store_path(const struct store *s);
/* PRAGMA user_version of the file at @path, read without migrating; -errno */
int store_file_version(const char *path);
/* PRAGMA user_version of the open database */
int store_version(struct store *s);
/* the schema version this program creates */
int store_latest_version(void);

int store_begin(struct store *s);
int store_commit(struct store *s);
int store_rollback(struct store *s);

/* --- drives --- */
struct store_drive {
	int64_t id;
	char kind[8]; /* nvme, block, file */
	char path[256];
	char model[64];
	char serial[80];
	char firmware[32];
	char eui64[40];
	char nguid[48];
	char wwn[64];
	uint64_t capacity_bytes;
	uint32_t lba_bytes;
	int64_t first_seen_ns;
};

/* Find the row with the same identity or insert one; sets d->id. */
int store_drive_upsert(struct store *s, struct store_drive *d);

/* --- runs --- */
#define STORE_RUN_STATES                                                                         \
	"queued", "erasing", "filling", "preconditioning", "sweeping", "done", "failed", "stopped"

/* requester_via: how the run was asked for */
#define STORE_VIA_DAEMON "plateaud"    /* a client asked plateaud over its socket */
#define STORE_VIA_CLI    "plateau run" /* the CLI ran it in the foreground */

/*
 * The requester (schema 3) is an audit record: who asked for the run.  Each
 * part may be unknown (NULL in the database): runs stored before plateau
 * recorded requesters, or what the recorder could not learn.
 *
 * A caller inserting a run must set requester_uid and requester_pid
 * explicitly (-1 when unknown): zero is a value, and uid 0 is root.  Start
 * from store_run_init(), which zeroes the struct but marks every requester
 * part unknown, then set what is known.  A requester left all zero (uid 0,
 * pid 0, no command, no via) was never filled in: store_run_insert() stores
 * it as unknown rather than as root, so a caller still using "= { 0 }" does
 * not claim root; pid 0 with any other part set is refused (-EINVAL).
 */
struct store_run {
	int64_t id;
	int64_t drive_id;
	char name[128];
	char state[24];
	char *plan; /* owned */
	int64_t created_ns;
	int64_t started_ns; /* 0: not yet */
	int64_t ended_ns;   /* 0: not yet */
	char host[128];
	char version[32];
	char *error; /* owned, may be NULL */
	int64_t requester_uid;  /* -1: unknown; else 0..4294967294 */
	int64_t requester_pid;  /* -1: unknown; else >= 1 */
	char requester_cmd[256]; /* "": unknown; the command line, args joined by blanks */
	char requester_via[16];  /* "": unknown; STORE_VIA_DAEMON or STORE_VIA_CLI */
	struct store_drive drive;
};

/* Zero @r and mark its requester unknown (-1, -1, "", ""); use it instead of
 * "= { 0 }" for a run to insert. */
void store_run_init(struct store_run *r);
void store_run_clear(struct store_run *r);
/* true for a state the run can still leave (not done, failed, stopped) */
bool store_run_state_active(const char *state);
bool store_run_state_valid(const char *state);
/*
 * Stores r->drive_id, name, plan, state, host, version and the requester
 * (each unknown part as NULL: a negative uid or pid, an empty command or
 * via; an all-zero requester as all unknown, see above); sets id and
 * created_ns.  -EINVAL for an invalid state, a requester_uid above
 * 4294967294, a requester_pid of 0 (with the rest of the requester set) or
 * above INT32_MAX, or a requester_via other than "", STORE_VIA_DAEMON and
 * STORE_VIA_CLI.
 */
int store_run_insert(struct store *s, struct store_run *r);
/* Sets started_ns on the first active state after queued and ended_ns on
 * done/failed/stopped; @error may be NULL. */
int store_run_set_state(struct store *s, int64_t run_id, const char *state, const char *error,
			int64_t now_ns);
/* -ENOENT when there is no such run.  Unknown requester parts read back as
 * -1 / "" (store_run_init()'s values); a requester the schema would refuse
 * (a negative uid, say) gives -EBADMSG naming the run and the column. */
int store_run_get(struct store *s, int64_t run_id, struct store_run *r);

struct store_run_filter {
	const char *serial; /* NULL: any */
	const char *state;  /* NULL: any; "active" for all unfinished */
	int64_t since_ns;   /* 0: any; created at or after */
	int64_t until_ns;   /* 0: any; created before */
	const char *drive_path;
};

/* Calls @cb for each matching run, oldest first; a nonzero return from @cb
 * stops and is returned. */
int store_runs_foreach(struct store *s, const struct store_run_filter *f,
		       int (*cb)(void *ctx, const struct store_run *r), void *ctx);

/* --- phases --- */
struct store_phase {
	int64_t id;
	int64_t run_id;
	int seq;
	char kind[16];  /* erase, fill, precondition, sweep */
	char name[64];
	char *params;   /* owned JSON */
	char state[16]; /* pending running done failed stopped skipped */
	int64_t started_ns;
	int64_t ended_ns;
	uint64_t progress_bytes;
	uint64_t total_bytes;
	int64_t rounds;
	int steady; /* -1 not judged, 0, 1 */
	int64_t steady_round;
	char *result; /* owned JSON, may be NULL */
};

void store_phases_free(struct store_phase *p, size_t n);
int store_phase_insert(struct store *s, struct store_phase *p);
/* Writes state, started/ended, progress, total, rounds, steady, steady_round
 * and result (NULL keeps the old result) of p->id. */
int store_phase_update(struct store *s, const struct store_phase *p);
/* All phases of a run in order; *ret is malloc'd (free with store_phases_free). */
int store_phases_list(struct store *s, int64_t run_id, struct store_phase **ret, size_t *n);

/* --- samples and points --- */
/* Insert one sample (histograms encoded when present), committed on return
 * unless inside store_begin(). */
int store_sample_insert(struct store *s, int64_t phase_id, const struct sample *smp);
/* highest seq of the phase (aborted samples included), 0 if none */
int store_sample_last_seq(struct store *s, int64_t phase_id, int64_t *seq);
/* samples of the phase that count (aborted ones left out), or -errno */
int64_t store_sample_count(struct store *s, int64_t phase_id);
/*
 * A sweep point's measurement was interrupted: mark its stored samples
 * aborted (schema 4) so no figure mixes them with the measurement that
 * replaces it.  Returns the number of samples marked, or -errno.
 */
int store_samples_abort_point(struct store *s, int64_t phase_id, int point);

enum {
	STORE_WITH_HISTS = 1 << 0,   /* decode r_hist/w_hist into sample.hist[] */
	STORE_WITH_ABORTED = 1 << 1, /* include the samples of aborted sweep points */
};

/* Each sample of a phase in seq order (from seq >= @from_seq), without the
 * aborted ones unless STORE_WITH_ABORTED.  The sample and its histograms
 * are only valid during the callback. */
int store_samples_foreach(struct store *s, int64_t phase_id, int64_t from_seq, unsigned int flags,
			  int (*cb)(void *ctx, const struct sample *smp), void *ctx);
/* One metric of every full (not partial, not aborted) sample of a phase -
 * the rounds of the steady-state judgement - in seq order; *vals malloc'd. */
int store_series(struct store *s, int64_t phase_id, enum sample_metric m, double **vals,
		 size_t *n);

struct store_point {
	int seq;
	unsigned int threads;
	unsigned int iodepth;
	struct sample smp; /* seq mirrors the point's seq */
};

int store_point_insert(struct store *s, int64_t phase_id, const struct store_point *pt);
int store_points_foreach(struct store *s, int64_t phase_id, unsigned int flags,
			 int (*cb)(void *ctx, const struct store_point *pt), void *ctx);

/* --- events --- */
struct store_event {
	int64_t id;
	int64_t run_id;
	int64_t phase_id; /* 0: none */
	int64_t time_ns;
	const char *kind;
	const char *message;
	const char *data; /* JSON or NULL */
};

int store_event_insert(struct store *s, struct store_event *ev);
/* events of a run (kind NULL: all kinds) with id > @after_id, oldest first */
int store_events_foreach(struct store *s, int64_t run_id, const char *kind, int64_t after_id,
			 int (*cb)(void *ctx, const struct store_event *ev), void *ctx);

#endif
