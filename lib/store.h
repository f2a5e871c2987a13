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
 * FULL is the default, NORMAL a choice (STORE_SYNC_ENV).  Measured with
 * `make bench` (README, Performance: a loop device over a file on the root
 * disk, 4k random writes, 1 s samples, 3 interleaved runs each): with the
 * database on a tmpfs of its own, 92k IOPS at 2x16 and a worst per-sample
 * maximum latency of 20.6 ms; with the database beside the loop's file and
 * FULL, 0.828 of those IOPS (0.697-0.890) and 314 ms worst stalls (every
 * commit flushes the WAL to the disk being measured); beside it with NORMAL,
 * 1.057 and 20.1 ms.  At 1x1: 0.980 (FULL) and 0.960 (NORMAL), worst
 * maxima 61.6 and 11.1 ms.  The cost is the shared disk, not FULL itself, so
 * the default stays FULL, whose records and announced events survive a power
 * loss (with NORMAL, a steady-reached already sent to the hooks could be
 * rolled back with its sample); a run whose database shares the target's
 * disk is warned about (target_shares_disk(), event store-shares-disk), and
 * a lab that must keep it there can choose NORMAL.
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
	/* a writer with a rollback journal, not WAL: a file that travels alone
	 * (an export), with no -wal and -shm beside it once closed */
	STORE_SINGLE_FILE = 1 << 2,
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
 * @errlen: size of @err
 *
 * Return: 0; -ENOENT no database at @path; -EPROTO the schema is newer than
 * this program's (both versions named in @err) or, read-only, older;
 * -EBADMSG not a plateau database or corrupt; other -errno.
 */
int store_open(const char *path, unsigned int flags, struct store **ret, char *err, size_t errlen);

/**
 * store_close() - close a database and free the handle
 * @s: handle from store_open(), or NULL
 */
void store_close(struct store *s);

/**
 * store_errmsg() - the text of the last failure on @s
 * @s: handle, or NULL
 *
 * Return: a string owned by @s, valid until its next call ("no database"
 * for NULL).
 */
const char *store_errmsg(const struct store *s);

/**
 * store_path() - the database file's path as it was opened
 * @s: handle
 *
 * Return: a string owned by @s.
 */
const char *store_path(const struct store *s);

/**
 * store_file_version() - the schema version of a database file
 * @path: database file
 *
 * Reads PRAGMA user_version without opening the file for writing or
 * migrating it.
 *
 * Return: the version (0: not a plateau database yet), or -errno.
 */
int store_file_version(const char *path);

/**
 * store_version() - the schema version of an open database
 * @s: handle
 *
 * Return: its PRAGMA user_version, or -errno.
 */
int store_version(struct store *s);

/**
 * store_begin() - start a write transaction (BEGIN IMMEDIATE)
 * @s: a writer's handle
 *
 * Every insert and update until store_commit() is committed at once.
 *
 * Return: 0 or -errno (-EBUSY when another writer held the database
 * beyond STORE_BUSY_TIMEOUT_MS).
 */
int store_begin(struct store *s);

/**
 * store_commit() - commit the transaction store_begin() started
 * @s: handle
 *
 * Return: 0 or -errno (-ENOSPC: disk full; the transaction is not stored).
 */
int store_commit(struct store *s);

/**
 * store_rollback() - after a failure, drop the open transaction
 * @s: handle
 *
 * Keeps the message of the failure that led here (store_errmsg()); a
 * transaction SQLite already rolled back by itself is not an error.
 *
 * Return: 0 or -errno.
 */
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

/**
 * store_drive_json() - a drive's identity as JSON, the one form every
 * program prints (plateau show, plateaud's start and dry-run replies)
 * @d: the drive
 *
 * Keys, in order: kind, device, model, serial, firmware, eui64, nguid, wwn,
 * capacity_bytes, lba_bytes.
 *
 * Return: a new object (json_object_put() it), or NULL when out of memory.
 */
struct json_object;
struct json_object *store_drive_json(const struct store_drive *d);

/**
 * store_drive_upsert() - the row of a drive, found or inserted
 * @s: a writer's handle
 * @d: the drive; @d->id is set (and @d->first_seen_ns, when it was 0 and
 *     the row is new)
 *
 * A row with the same identity (kind, model, serial, firmware, EUI64,
 * NGUID, WWN, capacity, block size) is reused whatever its path; a
 * firmware update makes a new row.
 *
 * Return: 0 or -errno.
 */
int store_drive_upsert(struct store *s, struct store_drive *d);

/* --- runs --- */
#define STORE_RUN_STATES \
	"queued", "erasing", "filling", "preconditioning", "sweeping", "done", "failed", "stopped"

/* a run's global id: a version 4 UUID, 36 characters, lowercase */
#define STORE_UUID_LEN 36

/* requester_via: how the run was asked for */
#define STORE_VIA_DAEMON "plateaud" /* a client asked plateaud over its socket */
#define STORE_VIA_CLI "plateau run" /* the CLI ran it in the foreground */

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
	int64_t started_ns;	       /* 0: not yet */
	int64_t ended_ns;	       /* 0: not yet */
	char host[128];		       /* the host name of the machine that ran it */
	char uuid[STORE_UUID_LEN + 1]; /* global id (schema 5); "": none stored */
	char version[32];
	char *error;		 /* owned, may be NULL */
	int64_t requester_uid;	 /* -1: unknown; else 0..4294967294 */
	int64_t requester_pid;	 /* -1: unknown; else >= 1 */
	char requester_cmd[256]; /* "": unknown; the command line, args joined by blanks */
	char requester_via[16];	 /* "": unknown; STORE_VIA_DAEMON or STORE_VIA_CLI */
	struct store_drive drive;
};

/**
 * store_run_init() - a run to insert, requester unknown
 * @r: zeroed, with requester_uid and requester_pid -1 (use it instead of
 *     "= { 0 }")
 */
void store_run_init(struct store_run *r);

/**
 * store_run_clear() - free what a run owns (plan, error)
 * @r: a run filled by store_run_get(); its pointers are set to NULL
 */
void store_run_clear(struct store_run *r);

/**
 * store_uuid_valid() - is @uuid a run id as plateau stores it?
 * @uuid: text, may be NULL
 *
 * Return: true for 8-4-4-4-12 lowercase hex digits.
 */
bool store_uuid_valid(const char *uuid);

/**
 * store_uuid_new() - a new random (version 4) UUID
 * @buf: STORE_UUID_LEN + 1 bytes, written
 *
 * Return: 0 or -errno (no randomness available).
 */
int store_uuid_new(char buf[STORE_UUID_LEN + 1]);

/**
 * store_run_state_active() - can a run in @state still change?
 * @state: a state name, may be NULL
 *
 * Return: true for a valid state other than done, failed and stopped.
 */
bool store_run_state_active(const char *state);

/**
 * store_run_state_valid() - is @state one of STORE_RUN_STATES?
 * @state: a state name, may be NULL
 *
 * Return: true when it is.
 */
bool store_run_state_valid(const char *state);

/**
 * store_run_insert() - store a new run
 * @s: a writer's handle
 * @r: the run (start from store_run_init()); @r->id and @r->created_ns are set
 *
 * Stores r->drive_id, name, plan, state, host, uuid, version and the
 * requester (each unknown part as NULL: a negative uid or pid, an empty
 * command or via; an all-zero requester as all unknown, see above); sets
 * id and created_ns, and uuid when it was "" (a new random one; a given one
 * is kept, as an import does).  -EINVAL for an invalid state, a uuid that
 * is not store_uuid_valid(), a requester_uid above
 * 4294967294, a requester_pid of 0 (with the rest of the requester set) or
 * above INT32_MAX, or a requester_via other than "", STORE_VIA_DAEMON and
 * STORE_VIA_CLI; -EEXIST when a run with that uuid is already stored.
 *
 * Return: 0 or -errno.
 */
int store_run_insert(struct store *s, struct store_run *r);
/**
 * store_run_set_state() - move a run to @state
 * @s: a writer's handle
 * @run_id: run
 * @state: one of STORE_RUN_STATES
 * @error: why it failed, or NULL
 * @now_ns: wall time of the change (0: now)
 *
 * Sets started_ns on the first active state after queued and ended_ns on
 * done, failed or stopped.
 *
 * Return: 0, -EINVAL for an invalid state, -ENOENT no such run, or -errno.
 */
int store_run_set_state(struct store *s, int64_t run_id, const char *state, const char *error,
			int64_t now_ns);
/**
 * store_run_get() - read one run and its drive
 * @s: handle
 * @run_id: run
 * @r: result, with @r->drive joined in; store_run_clear() it
 *
 * Unknown requester parts read back as -1 / "" (store_run_init()'s values).
 *
 * Return: 0, -ENOENT when there is no such run, -EBADMSG for a row the
 * schema would refuse (a negative uid, say; the message names the run and
 * the column), or -errno.
 */
int store_run_get(struct store *s, int64_t run_id, struct store_run *r);

struct store_run_filter {
	const char *serial; /* NULL: any */
	const char *state;  /* NULL: any; "active" for all unfinished */
	int64_t since_ns;   /* 0: any; created at or after */
	int64_t until_ns;   /* 0: any; created before */
	const char *drive_path;
};

/**
 * store_runs_foreach() - every run that matches a filter, oldest first
 * @s: handle
 * @f: filter (NULL: every run)
 * @cb: called with each run, valid only during the call
 * @ctx: for @cb
 *
 * Return: 0, the first nonzero return of @cb (which stops the walk), or
 * -errno.
 */
int store_runs_foreach(struct store *s, const struct store_run_filter *f,
		       int (*cb)(void *ctx, const struct store_run *r), void *ctx);

/**
 * store_run_find_uuid() - the runs whose uuid starts with some hex digits
 * @s: handle
 * @hex: 1 to 32 lowercase hex digits, without dashes (they are ignored in
 *       the stored uuid too)
 * @ids: the ids of the first @max matches, oldest first
 * @max: room in @ids
 *
 * Return: the number of matches (may exceed @max), -EINVAL for @hex that
 * is not hex digits, or -errno.
 */
int store_run_find_uuid(struct store *s, const char *hex, int64_t *ids, size_t max);

/* --- phases --- */
struct store_phase {
	int64_t id;
	int64_t run_id;
	int seq;
	char kind[16]; /* erase, fill, precondition, sweep */
	char name[64];
	char *params;	/* owned JSON */
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

/**
 * store_phases_free() - free what store_phases_list() returned
 * @p: array, may be NULL
 * @n: its length
 */
void store_phases_free(struct store_phase *p, size_t n);

/**
 * store_phase_insert() - store a new phase of a run
 * @s: a writer's handle
 * @p: run_id, seq, kind, name, params (NULL: "{}"), state and total_bytes
 *     are stored; @p->id is set
 *
 * Return: 0, -EINVAL for an unknown kind or state, or -errno.
 */
int store_phase_insert(struct store *s, struct store_phase *p);

/**
 * store_phase_update() - write a phase's progress and verdict
 * @s: a writer's handle
 * @p: the phase @p->id: state, started/ended, progress, total, rounds,
 *     steady, steady_round and result (NULL keeps the old result)
 *
 * Return: 0, -EINVAL for an unknown state, -ENOENT no such phase, or -errno.
 */
int store_phase_update(struct store *s, const struct store_phase *p);

/**
 * store_phases_list() - every phase of a run, in order
 * @s: handle
 * @run_id: run
 * @ret: malloc'd array (free with store_phases_free()); NULL when none
 * @n: its length
 *
 * Return: 0, -EBADMSG for a row that does not make sense, or -errno.
 */
int store_phases_list(struct store *s, int64_t run_id, struct store_phase **ret, size_t *n);

/* --- samples and points --- */
/**
 * store_sample_insert() - store one interval's sample
 * @s: a writer's handle
 * @phase_id: phase
 * @smp: the sample; its histograms are encoded when present
 *
 * Committed on return unless inside store_begin().
 *
 * Return: 0, -EINVAL for a sample that does not make sense (seq below 1,
 * end not after start), -ENOSPC disk full, or -errno.
 */
int store_sample_insert(struct store *s, int64_t phase_id, const struct sample *smp);

/**
 * store_sample_last_seq() - the highest seq stored for a phase
 * @s: handle
 * @phase_id: phase
 * @seq: the seq (aborted samples included), 0 when there is none
 *
 * Return: 0 or -errno.
 */
int store_sample_last_seq(struct store *s, int64_t phase_id, int64_t *seq);

/**
 * store_sample_count() - how many samples of a phase count
 * @s: handle
 * @phase_id: phase
 *
 * Return: the number (aborted ones left out), or -errno.
 */
int64_t store_sample_count(struct store *s, int64_t phase_id);

/**
 * store_samples_abort_point() - set aside an interrupted sweep point
 * @s: a writer's handle
 * @phase_id: the sweep phase
 * @point: the point's seq
 *
 * Marks the point's stored samples aborted (schema 4) so no figure mixes
 * them with the measurement that replaces it.
 *
 * Return: the number of samples marked, or -errno.
 */
int store_samples_abort_point(struct store *s, int64_t phase_id, int point);

enum {
	STORE_WITH_HISTS = 1 << 0,   /* decode r_hist/w_hist into sample.hist[] */
	STORE_WITH_ABORTED = 1 << 1, /* include the samples of aborted sweep points */
};

/**
 * store_samples_foreach() - the samples of a phase, in seq order
 * @s: handle
 * @phase_id: phase
 * @from_seq: the first seq wanted (0 or 1: all)
 * @flags: STORE_WITH_HISTS, STORE_WITH_ABORTED (else aborted ones are left out)
 * @cb: called with each sample, valid (histograms too) only during the call
 * @ctx: for @cb
 *
 * Return: 0, the first nonzero return of @cb (which stops the walk),
 * -EBADMSG for a row that does not make sense (a corrupt histogram, say),
 * or -errno.
 */
int store_samples_foreach(struct store *s, int64_t phase_id, int64_t from_seq, unsigned int flags,
			  int (*cb)(void *ctx, const struct sample *smp), void *ctx);
/**
 * store_series() - one metric of a phase, a value per round
 * @s: handle
 * @phase_id: phase
 * @m: the metric
 * @vals: malloc'd values, one per full (not partial, not aborted) sample,
 *        in seq order: the rounds of the steady-state judgement
 * @n: how many
 *
 * Return: 0 or -errno.
 */
int store_series(struct store *s, int64_t phase_id, enum sample_metric m, double **vals, size_t *n);

struct store_point {
	int seq;
	unsigned int threads;
	unsigned int iodepth;
	struct sample smp; /* seq mirrors the point's seq */
};

/**
 * store_point_insert() - store a sweep point's result
 * @s: a writer's handle
 * @phase_id: the sweep phase
 * @pt: the point: its load (threads x iodepth, both >= 1) and its sample
 *
 * Return: 0, -EINVAL for a point that does not make sense, or -errno.
 */
int store_point_insert(struct store *s, int64_t phase_id, const struct store_point *pt);

/**
 * store_points_foreach() - the points of a sweep phase, in seq order
 * @s: handle
 * @phase_id: the sweep phase
 * @flags: STORE_WITH_HISTS to decode the histograms
 * @cb: called with each point, valid only during the call
 * @ctx: for @cb
 *
 * Return: 0, the first nonzero return of @cb (which stops the walk),
 * -EBADMSG for a row that does not make sense, or -errno.
 */
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

/**
 * store_event_insert() - store an event of a run
 * @s: a writer's handle
 * @ev: the event; @ev->id is set, and @ev->time_ns when it was 0 (now)
 *
 * Inside store_begin(), it is committed with the sample it is about.
 *
 * Return: 0, -EINVAL without a kind or a message, or -errno.
 */
int store_event_insert(struct store *s, struct store_event *ev);

/**
 * store_events_foreach() - the events of a run, oldest first
 * @s: handle
 * @run_id: run
 * @kind: only this kind, or NULL for all
 * @after_id: only events with a greater id (0: all)
 * @cb: called with each event, valid only during the call
 * @ctx: for @cb
 *
 * Return: 0, the first nonzero return of @cb (which stops the walk), or
 * -errno.
 */
int store_events_foreach(struct store *s, int64_t run_id, const char *kind, int64_t after_id,
			 int (*cb)(void *ctx, const struct store_event *ev), void *ctx);

/* --- checks and copies between databases --- */

/**
 * store_quick_check() - SQLite's quick check of the whole file
 * @s: handle
 *
 * Return: 0, -EBADMSG for a damaged file (the message names what), or
 * -errno.
 */
int store_quick_check(struct store *s);

/* what store_copy_runs() did with one run */
struct store_copied {
	int64_t src_id;
	int64_t dst_id; /* its id in the destination */
	bool present;	/* already there (the same uuid): left as it was */
	char uuid[STORE_UUID_LEN + 1];
	char host[128];
	size_t samples, points, events; /* copied */
};

/**
 * store_copy_runs() - copy runs with everything they own to another database
 * @dst: a writer's handle, the destination
 * @src: any handle, the source
 * @ids: the runs' ids in @src
 * @n: how many
 * @out: @n entries, written: what became of each run
 *
 * One transaction: every run is copied, or (on any failure) nothing is.  A
 * run is recognised by its uuid: one that @dst already holds is left as it
 * is (so copying twice changes nothing).  Its drive is found in @dst by
 * identity (store_drive_upsert()) or inserted; the run, its phases, samples
 * (with histograms, partial and aborted ones too), points and events are
 * inserted under new ids, with every value as stored.  Every row is read
 * through the validating readers, so a damaged source stops the copy.
 *
 * Only ended runs are copied: plateaud resumes the unfinished runs it finds
 * in its database, and a copy must never be one.
 *
 * Return: 0, or -errno with the reason (naming the file, table and row) in
 * store_errmsg(@dst): -ENOENT a run is not in @src, -EBUSY a run has not
 * ended, -EBADMSG a row that does not make sense (a run without uuid, say),
 * -EACCES @dst is read-only.
 */
int store_copy_runs(struct store *dst, struct store *src, const int64_t *ids, size_t n,
		    struct store_copied *out);

#endif
