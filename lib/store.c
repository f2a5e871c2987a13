// SPDX-License-Identifier: MIT
/*
 * store: the SQLite database (see store.h for the durability contract and
 * schema/ for the tables).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>
#include <sqlite3.h>

#include "clock.h"
#include "embed.h"
#include "store-int.h"

/* PRAGMA application_id: "PLTU", so a foreign SQLite file is told apart. */
#define STORE_APP_ID 0x504C5455

enum store_stmt_id {
	ST_SAMPLE_INSERT,
	ST_POINT_INSERT,
	ST_EVENT_INSERT,
	ST_PHASE_UPDATE,
	ST_RUN_STATE,
	ST_N,
};

struct store {
	sqlite3 *db;
	bool rdonly;
	char path[1024];
	char err[512];
	sqlite3_stmt *stmt[ST_N];
};

/* 11 statistics per direction, in the order of struct sample_stats */
static const char *const store_stat_cols[] = {
	"ios",	      "bytes",	    "lat_mean_ns", "lat_stddev_ns", "lat_min_ns",   "lat_max_ns",
	"lat_p50_ns", "lat_p90_ns", "lat_p99_ns",  "lat_p999_ns",   "lat_p9999_ns",
};
#define STORE_NSTAT 11
static const char store_dir_prefix[SAMPLE_NDIRS] = {'r', 'w', 'a'};

static int store_fail(struct store *s, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int store_fail(struct store *s, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return ret;
}

/* Map an SQLite result code to -errno. */
static int store_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_FORMAT:
		return -EBADMSG;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CONSTRAINT:
		return -EEXIST;
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static int store_sqlfail(struct store *s, int rc, const char *what)
{
	return store_fail(s, store_errno(rc) ? store_errno(rc) : -EIO, "%s: %s: %s", s->path, what,
			  sqlite3_errmsg(s->db));
}

const char *store_path(const struct store *s)
{
	return s->path;
}

const char *store_errmsg(const struct store *s)
{
	return s ? s->err : "no database";
}

static int store_exec(struct store *s, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int ret = store_fail(s, store_errno(rc) ? store_errno(rc) : -EIO, "%s: %s", s->path,
				     msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return ret;
	}
	return 0;
}

static int store_pragma_int(struct store *s, const char *pragma, int64_t *v)
{
	sqlite3_stmt *st;
	char sql[128];
	int rc;

	snprintf(sql, sizeof(sql), "PRAGMA %s", pragma);
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_sqlfail(s, rc, pragma);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	else
		*v = 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sqlfail(s, rc, pragma);
	return 0;
}

static int store_schema_number(const char *name)
{
	int v = 0;

	for (int i = 0; i < 3; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return name[3] == '-' ? v : -1;
}

int store_latest_version(void)
{
	int latest = 0;

	for (size_t i = 0; i < store_schema_nfiles; i++) {
		int v = store_schema_number(store_schema_files[i].name);

		if (v > latest)
			latest = v;
	}
	return latest;
}

int store_file_version(const char *path)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	int rc, v;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_close_v2(db);
		return store_errno(rc) ? store_errno(rc) : -EIO;
	}
	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0)
			     : (store_errno(rc) ? store_errno(rc) : -EIO);
	sqlite3_finalize(st);
	sqlite3_close_v2(db);
	return v;
}

int store_version(struct store *s)
{
	int64_t v;
	int ret = store_pragma_int(s, "user_version", &v);

	return ret ? ret : (int)v;
}

/* Apply every embedded migration above @from, each in its own transaction. */
static int store_migrate(struct store *s, int from)
{
	for (size_t i = 0; i < store_schema_nfiles; i++) {
		const struct embed_file *f = &store_schema_files[i];
		int v = store_schema_number(f->name), ret;
		char sql[64];

		if (v != (int)i + 1)
			return store_fail(s, -EINVAL,
					  "schema file %s out of sequence (expected %03zu-*)",
					  f->name, i + 1);
		if (v <= from)
			continue;
		ret = store_exec(s, "BEGIN IMMEDIATE");
		if (ret)
			return ret;
		ret = store_exec(s, f->data);
		if (!ret && v == 1) {
			snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APP_ID);
			ret = store_exec(s, sql);
		}
		if (!ret) {
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
			ret = store_exec(s, sql);
		}
		if (!ret)
			ret = store_exec(s, "COMMIT");
		if (ret) {
			char why[sizeof(s->err)];

			snprintf(why, sizeof(why), "%s", s->err);
			(void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return store_fail(s, ret, "migration %s failed: %s", f->name, why);
		}
	}
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_close_v2(s->db);
	free(s);
}

int store_open(const char *path, unsigned int flags, struct store **ret, char *err, size_t errlen)
{
	struct store *s;
	int64_t version, app_id, ntables = 0;
	int latest = store_latest_version(), rc, r, oflags;
	struct stat sb;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->rdonly = flags & STORE_RDONLY;

	if (stat(path, &sb) < 0) {
		if (errno != ENOENT || s->rdonly || !(flags & STORE_CREATE)) {
			r = store_fail(s, -errno, "%s: %s%s", path, strerror(errno),
				       errno == ENOENT ? " (no database there yet)" : "");
			goto fail;
		}
	} else if (!S_ISREG(sb.st_mode)) {
		r = store_fail(s, -EBADMSG, "%s: not a regular file", path);
		goto fail;
	}

	oflags = s->rdonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (!s->rdonly && (flags & STORE_CREATE))
		oflags |= SQLITE_OPEN_CREATE;
	/* the CLI reads from one thread; the daemon's handles move between threads */
	rc = sqlite3_open_v2(path, &s->db,
			     oflags | (s->rdonly ? SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_FULLMUTEX),
			     NULL);
	if (rc != SQLITE_OK) {
		int sys = s->db ? sqlite3_system_errno(s->db) : 0;

		/* "unable to open database file" hides a permission problem: the
		 * operating system's reason is the one to give */
		if ((rc & 0xff) == SQLITE_CANTOPEN && sys && sys != ENOENT)
			r = store_fail(s, -sys, "%s: %s", path, strerror(sys));
		else
			r = store_fail(s, store_errno(rc) ? store_errno(rc) : -EIO, "%s: %s", path,
				       s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);

	r = store_pragma_int(s, "user_version", &version);
	if (r) {
		if (r == -EBADMSG)
			store_fail(s, r, "%s: not a SQLite database, or corrupt", path);
		else if (s->rdonly && (r == -EACCES || r == -ENOENT))
			/* WAL readers need the -wal and -shm files, which a reader
			 * without write access to the directory cannot create */
			store_fail(
				s, r,
				"%s: cannot read it: its -wal/-shm files are missing and this user "
				"cannot create them (start plateaud, or read as the database's "
				"owner)",
				path);
		goto fail;
	}
	if ((r = store_pragma_int(s, "application_id", &app_id)))
		goto fail;
	{
		sqlite3_stmt *st;

		rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
		if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
			ntables = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (rc != SQLITE_OK) {
			r = store_sqlfail(s, rc, "reading the schema");
			goto fail;
		}
	}
	if ((version > 0 || ntables > 0) && app_id != STORE_APP_ID) {
		r = store_fail(s, -EBADMSG, "%s: not a plateau database (application_id %#llx)",
			       path, (unsigned long long)app_id);
		goto fail;
	}
	if (version > latest) {
		r = store_fail(s, -EPROTO,
			       "%s: database schema version %lld is newer than this plateau's %d; "
			       "upgrade plateau to read it",
			       path, (long long)version, latest);
		goto fail;
	}
	if (s->rdonly) {
		if (version < latest) {
			r = store_fail(
				s, -EPROTO,
				"%s: database schema version %lld is older than this plateau's "
				"%d; `plateau migrate --db %s` (or starting plateaud) upgrades it",
				path, (long long)version, latest, path);
			goto fail;
		}
		/* query_only: a read-only handle can never write, even by mistake */
		if ((r = store_exec(s, "PRAGMA query_only = ON")))
			goto fail;
	} else {
		const char *sync = getenv(STORE_SYNC_ENV);
		int one = 1;

		if (sync && *sync && strcmp(sync, "full") && strcmp(sync, "normal")) {
			r = store_fail(s, -EINVAL, "%s=%s: expected full or normal", STORE_SYNC_ENV,
				       sync);
			goto fail;
		}
		/* keep -wal and -shm when the last writer closes, so readers
		 * that may not create files in the directory can still open it;
		 * a file that travels alone keeps a rollback journal instead */
		if (!(flags & STORE_SINGLE_FILE))
			(void)sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
		if ((r = store_exec(s, flags & STORE_SINGLE_FILE ? "PRAGMA journal_mode = DELETE"
								 : "PRAGMA journal_mode = WAL")) ||
		    (r = store_exec(s, sync && !strcmp(sync, "normal")
					       ? "PRAGMA synchronous = NORMAL"
					       : "PRAGMA synchronous = FULL")) ||
		    (r = store_exec(s, "PRAGMA foreign_keys = ON")) ||
		    (r = store_migrate(s, (int)version)))
			goto fail;
	}
	*ret = s;
	return 0;
fail:
	if (err)
		snprintf(err, errlen, "%s", s->err);
	store_close(s);
	return r;
}

int store_begin(struct store *s)
{
	return store_exec(s, "BEGIN IMMEDIATE");
}

int store_commit(struct store *s)
{
	return store_exec(s, "COMMIT");
}

/*
 * Called after a failure: the message of that failure is the one to keep.
 * SQLite may already have rolled back by itself (a COMMIT that failed with
 * SQLITE_FULL does), and a second ROLLBACK would replace "database or disk
 * is full" with "no transaction is active".
 */
int store_rollback(struct store *s)
{
	char keep[sizeof(s->err)];
	int ret;

	if (sqlite3_get_autocommit(s->db))
		return 0;
	memcpy(keep, s->err, sizeof(keep));
	ret = store_exec(s, "ROLLBACK");
	memcpy(s->err, keep, sizeof(keep));
	return ret;
}

/* Prepare (once) and reset a cached statement. */
static int store_stmt(struct store *s, enum store_stmt_id id, const char *sql, sqlite3_stmt **ret)
{
	int rc;

	if (!s->stmt[id]) {
		rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[id],
					NULL);
		if (rc != SQLITE_OK)
			return store_sqlfail(s, rc, "prepare");
	}
	sqlite3_reset(s->stmt[id]);
	sqlite3_clear_bindings(s->stmt[id]);
	*ret = s->stmt[id];
	return 0;
}

static int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);

	return rc == SQLITE_OK ? 0 : store_sqlfail(s, rc, "prepare");
}

/* Step a statement that returns no rows. */
static int store_step_done(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_sqlfail(s, rc, what);
	return 0;
}

static void store_copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", t ? (const char *)t : "");
}

static char *store_dup_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? strdup((const char *)t) : NULL;
}

static void store_bind_text_or_null(sqlite3_stmt *st, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* --- drives --- */

#define DRIVE_COLS                                                                                \
	"id, kind, path, model, serial, firmware, eui64, nguid, wwn, capacity_bytes, lba_bytes, " \
	"first_seen_ns"

static int store_drive_row(struct store *s, sqlite3_stmt *st, int c, struct store_drive *d)
{
	int64_t cap, lba;

	memset(d, 0, sizeof(*d));
	d->id = sqlite3_column_int64(st, c + 0);
	store_copy_text(d->kind, sizeof(d->kind), st, c + 1);
	store_copy_text(d->path, sizeof(d->path), st, c + 2);
	store_copy_text(d->model, sizeof(d->model), st, c + 3);
	store_copy_text(d->serial, sizeof(d->serial), st, c + 4);
	store_copy_text(d->firmware, sizeof(d->firmware), st, c + 5);
	store_copy_text(d->eui64, sizeof(d->eui64), st, c + 6);
	store_copy_text(d->nguid, sizeof(d->nguid), st, c + 7);
	store_copy_text(d->wwn, sizeof(d->wwn), st, c + 8);
	cap = sqlite3_column_int64(st, c + 9);
	lba = sqlite3_column_int64(st, c + 10);
	d->first_seen_ns = sqlite3_column_int64(st, c + 11);
	if (cap < 0 || lba <= 0 || lba > (1 << 24))
		return store_fail(s, -EBADMSG,
				  "%s: drives row %lld: capacity %lld / block size %lld", s->path,
				  (long long)d->id, (long long)cap, (long long)lba);
	d->capacity_bytes = (uint64_t)cap;
	d->lba_bytes = (uint32_t)lba;
	return 0;
}

struct json_object *store_drive_json(const struct store_drive *d)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "kind", json_object_new_string(d->kind));
	json_object_object_add(o, "device", json_object_new_string(d->path));
	json_object_object_add(o, "model", json_object_new_string(d->model));
	json_object_object_add(o, "serial", json_object_new_string(d->serial));
	json_object_object_add(o, "firmware", json_object_new_string(d->firmware));
	json_object_object_add(o, "eui64", json_object_new_string(d->eui64));
	json_object_object_add(o, "nguid", json_object_new_string(d->nguid));
	json_object_object_add(o, "wwn", json_object_new_string(d->wwn));
	json_object_object_add(o, "capacity_bytes",
			       json_object_new_int64((int64_t)d->capacity_bytes));
	json_object_object_add(o, "lba_bytes", json_object_new_int64(d->lba_bytes));
	return o;
}

int store_drive_upsert(struct store *s, struct store_drive *d)
{
	static const char *find =
		"SELECT id FROM drives WHERE kind = ?1 AND model = ?2 AND serial = ?3 AND "
		"firmware = ?4 AND eui64 = ?5 AND nguid = ?6 AND wwn = ?7 AND capacity_bytes = ?8 "
		"AND lba_bytes = ?9";
	static const char *ins = "INSERT INTO drives (kind, model, serial, firmware, eui64, nguid, "
				 "wwn, capacity_bytes, lba_bytes, path, first_seen_ns) VALUES "
				 "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *st;
	int rc, ret;

	for (int pass = 0; pass < 2; pass++) {
		ret = store_prepare(s, pass ? ins : find, &st);
		if (ret)
			return ret;
		sqlite3_bind_text(st, 1, d->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, d->model, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, d->serial, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, d->firmware, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, d->eui64, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, d->nguid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, d->wwn, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 8, (int64_t)d->capacity_bytes);
		sqlite3_bind_int64(st, 9, d->lba_bytes);
		if (pass) {
			if (!d->first_seen_ns)
				d->first_seen_ns = clock_wall_ns();
			sqlite3_bind_text(st, 10, d->path, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 11, d->first_seen_ns);
		}
		rc = sqlite3_step(st);
		if (!pass && rc == SQLITE_ROW) {
			d->id = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
			return 0;
		}
		sqlite3_finalize(st);
		if (pass && rc == SQLITE_DONE) {
			d->id = sqlite3_last_insert_rowid(s->db);
			return 0;
		}
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return store_sqlfail(s, rc, pass ? "inserting drive" : "finding drive");
	}
	return -EIO;
}

/* --- runs --- */

static const char *const store_run_states[] = {STORE_RUN_STATES};

bool store_run_state_valid(const char *state)
{
	for (size_t i = 0; i < sizeof(store_run_states) / sizeof(store_run_states[0]); i++)
		if (state && !strcmp(state, store_run_states[i]))
			return true;
	return false;
}

bool store_run_state_active(const char *state)
{
	return store_run_state_valid(state) && strcmp(state, "done") && strcmp(state, "failed") &&
	       strcmp(state, "stopped");
}

bool store_uuid_valid(const char *uuid)
{
	if (!uuid || strnlen(uuid, STORE_UUID_LEN + 1) != STORE_UUID_LEN)
		return false;
	for (int i = 0; i < STORE_UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = uuid[i];

		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

int store_uuid_new(char buf[STORE_UUID_LEN + 1])
{
	uint8_t b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(buf, STORE_UUID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
	return 0;
}

void store_run_init(struct store_run *r)
{
	memset(r, 0, sizeof(*r));
	r->requester_uid = -1;
	r->requester_pid = -1;
}

void store_run_clear(struct store_run *r)
{
	free(r->plan);
	free(r->error);
	r->plan = NULL;
	r->error = NULL;
}

#define STORE_UID_MAX 4294967294LL /* (uid_t)-1 is no user */
#define STORE_PID_MAX 2147483647LL

static bool store_via_valid(const char *via)
{
	return !strcmp(via, STORE_VIA_DAEMON) || !strcmp(via, STORE_VIA_CLI);
}

/* Bind the requester to ?first..?first+3, each unknown part as NULL. */
static int store_bind_requester(struct store *s, sqlite3_stmt *st, int first,
				const struct store_run *r)
{
	size_t cmdlen = strnlen(r->requester_cmd, sizeof(r->requester_cmd));
	size_t vialen = strnlen(r->requester_via, sizeof(r->requester_via));

	/* zeroed and never filled in: unknown, not uid 0 (root) */
	if (!r->requester_uid && !r->requester_pid && !cmdlen && !vialen)
		return 0;
	if (r->requester_uid > STORE_UID_MAX)
		return store_fail(s, -EINVAL, "requester uid %lld is no user (-1: unknown)",
				  (long long)r->requester_uid);
	if (!r->requester_pid || r->requester_pid > STORE_PID_MAX)
		return store_fail(s, -EINVAL, "requester pid %lld is no process (-1: unknown)",
				  (long long)r->requester_pid);
	if (vialen == sizeof(r->requester_via) || (vialen && !store_via_valid(r->requester_via)))
		return store_fail(s, -EINVAL, "requester via '%.*s' is neither '%s' nor '%s'",
				  (int)vialen, r->requester_via, STORE_VIA_DAEMON, STORE_VIA_CLI);
	if (r->requester_uid >= 0)
		sqlite3_bind_int64(st, first, r->requester_uid);
	if (r->requester_pid > 0)
		sqlite3_bind_int64(st, first + 1, r->requester_pid);
	if (cmdlen)
		sqlite3_bind_text(st, first + 2, r->requester_cmd, (int)cmdlen, SQLITE_STATIC);
	if (vialen)
		sqlite3_bind_text(st, first + 3, r->requester_via, (int)vialen, SQLITE_STATIC);
	return 0;
}

/* Insert @r; @whole: its started_ns, ended_ns and error too (a copy). */
static int store_run_insert_row(struct store *s, struct store_run *r, bool whole)
{
	sqlite3_stmt *st;
	int ret;

	if (!store_run_state_valid(r->state))
		return store_fail(s, -EINVAL, "invalid run state '%s'", r->state);
	if (!r->uuid[0] && (ret = store_uuid_new(r->uuid)))
		return store_fail(s, ret, "no random uuid for the run: %s", strerror(-ret));
	if (!store_uuid_valid(r->uuid))
		return store_fail(s, -EINVAL,
				  "run uuid '%.*s' is not 8-4-4-4-12 lowercase hex digits",
				  STORE_UUID_LEN, r->uuid);
	ret = store_prepare(
		s,
		"INSERT INTO runs (drive_id, name, plan, state, created_ns, host, "
		"version, requester_uid, requester_pid, requester_cmd, requester_via, "
		"uuid, started_ns, ended_ns, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
		"?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
		&st);
	if (ret)
		return ret;
	if ((ret = store_bind_requester(s, st, 8, r))) {
		sqlite3_finalize(st);
		return ret;
	}
	if (!r->created_ns)
		r->created_ns = clock_wall_ns();
	sqlite3_bind_int64(st, 1, r->drive_id);
	sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->plan ? r->plan : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->created_ns);
	sqlite3_bind_text(st, 6, r->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->version, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, r->uuid, -1, SQLITE_STATIC);
	if (whole) {
		if (r->started_ns)
			sqlite3_bind_int64(st, 13, r->started_ns);
		if (r->ended_ns)
			sqlite3_bind_int64(st, 14, r->ended_ns);
		store_bind_text_or_null(st, 15, r->error);
	}
	ret = store_step_done(s, st, "inserting run");
	if (!ret)
		r->id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return ret;
}

int store_run_insert(struct store *s, struct store_run *r)
{
	return store_run_insert_row(s, r, false);
}

int store_run_set_state(struct store *s, int64_t run_id, const char *state, const char *error,
			int64_t now_ns)
{
	sqlite3_stmt *st;
	int ret;

	if (!store_run_state_valid(state))
		return store_fail(s, -EINVAL, "invalid run state '%s'", state ? state : "(null)");
	ret = store_stmt(
		s, ST_RUN_STATE,
		"UPDATE runs SET state = ?2, "
		"started_ns = CASE WHEN started_ns IS NULL AND ?2 != 'queued' THEN ?3 "
		"ELSE started_ns END, "
		"ended_ns = CASE WHEN ?2 IN ('done', 'failed', 'stopped') THEN ?3 ELSE NULL "
		"END, error = ?4 WHERE id = ?1",
		&st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, now_ns ? now_ns : clock_wall_ns());
	store_bind_text_or_null(st, 4, error);
	ret = store_step_done(s, st, "updating run state");
	if (!ret && sqlite3_changes(s->db) != 1)
		return store_fail(s, -ENOENT, "no run %lld", (long long)run_id);
	return ret;
}

#define RUN_COLS                                                                              \
	"r.id, r.drive_id, r.name, r.plan, r.state, r.created_ns, r.started_ns, r.ended_ns, " \
	"r.host, r.version, r.error, d.id, d.kind, d.path, d.model, d.serial, d.firmware, "   \
	"d.eui64, d.nguid, d.wwn, d.capacity_bytes, d.lba_bytes, d.first_seen_ns, "           \
	"r.requester_uid, r.requester_pid, r.requester_cmd, r.requester_via, r.uuid"
#define RUN_COL_REQUESTER 23
#define RUN_COL_UUID 27

/* An integer requester column (requester_@what): NULL is -1 (unknown), else
 * @lo..@hi. */
static int store_requester_int(struct store *s, sqlite3_stmt *st, int col, const char *what,
			       int64_t lo, int64_t hi, int64_t run_id, int64_t *v)
{
	int type = sqlite3_column_type(st, col);
	int64_t x;

	*v = -1;
	if (type == SQLITE_NULL)
		return 0;
	if (type != SQLITE_INTEGER)
		return store_fail(
			s, -EBADMSG,
			"%s: runs row %lld: requester_%s '%s' is not a %s (NULL: unknown)", s->path,
			(long long)run_id, what, (const char *)sqlite3_column_text(st, col), what);
	x = sqlite3_column_int64(st, col);
	if (x < lo || x > hi)
		return store_fail(s, -EBADMSG,
				  "%s: runs row %lld: requester_%s %lld is not a %s (%lld..%lld; "
				  "NULL: unknown)",
				  s->path, (long long)run_id, what, (long long)x, what,
				  (long long)lo, (long long)hi);
	*v = x;
	return 0;
}

static int store_run_requester(struct store *s, sqlite3_stmt *st, struct store_run *r)
{
	int c = RUN_COL_REQUESTER, ret;

	if ((ret = store_requester_int(s, st, c, "uid", 0, STORE_UID_MAX, r->id,
				       &r->requester_uid)) ||
	    (ret = store_requester_int(s, st, c + 1, "pid", 1, STORE_PID_MAX, r->id,
				       &r->requester_pid)))
		return ret;
	store_copy_text(r->requester_cmd, sizeof(r->requester_cmd), st, c + 2);
	store_copy_text(r->requester_via, sizeof(r->requester_via), st, c + 3);
	if (sqlite3_column_type(st, c + 3) != SQLITE_NULL && !store_via_valid(r->requester_via))
		return store_fail(s, -EBADMSG,
				  "%s: runs row %lld: requester_via '%s' is neither '%s' nor '%s' "
				  "(NULL: unknown)",
				  s->path, (long long)r->id, r->requester_via, STORE_VIA_DAEMON,
				  STORE_VIA_CLI);
	return 0;
}

static int store_run_row(struct store *s, sqlite3_stmt *st, struct store_run *r)
{
	int ret;

	store_run_init(r);
	r->id = sqlite3_column_int64(st, 0);
	r->drive_id = sqlite3_column_int64(st, 1);
	store_copy_text(r->name, sizeof(r->name), st, 2);
	store_copy_text(r->state, sizeof(r->state), st, 4);
	r->created_ns = sqlite3_column_int64(st, 5);
	r->started_ns = sqlite3_column_int64(st, 6);
	r->ended_ns = sqlite3_column_int64(st, 7);
	store_copy_text(r->host, sizeof(r->host), st, 8);
	store_copy_text(r->version, sizeof(r->version), st, 9);
	if (!store_run_state_valid(r->state))
		return store_fail(s, -EBADMSG, "%s: runs row %lld: unknown state '%s'", s->path,
				  (long long)r->id, r->state);
	if (r->ended_ns && r->started_ns && r->ended_ns < r->started_ns)
		return store_fail(s, -EBADMSG, "%s: runs row %lld: ended before it started",
				  s->path, (long long)r->id);
	if ((ret = store_run_requester(s, st, r)))
		return ret;
	store_copy_text(r->uuid, sizeof(r->uuid), st, RUN_COL_UUID);
	/* the length too: a longer text would be cut to a valid-looking one */
	if (sqlite3_column_type(st, RUN_COL_UUID) != SQLITE_NULL &&
	    (sqlite3_column_bytes(st, RUN_COL_UUID) != STORE_UUID_LEN ||
	     !store_uuid_valid(r->uuid)))
		return store_fail(s, -EBADMSG,
				  "%s: runs row %lld: uuid '%s' is not 8-4-4-4-12 lowercase hex "
				  "digits",
				  s->path, (long long)r->id, r->uuid);
	r->plan = store_dup_text(st, 3);
	r->error = store_dup_text(st, 10);
	if (!r->plan) {
		store_run_clear(r);
		return store_fail(s, -ENOMEM, "out of memory");
	}
	return store_drive_row(s, st, 11, &r->drive);
}

int store_run_get(struct store *s, int64_t run_id, struct store_run *r)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_prepare(s,
			    "SELECT " RUN_COLS " FROM runs r JOIN drives d ON d.id = r.drive_id "
			    "WHERE r.id = ?1",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		ret = store_run_row(s, st, r);
	else if (rc == SQLITE_DONE)
		ret = store_fail(s, -ENOENT, "no run %lld in %s", (long long)run_id, s->path);
	else
		ret = store_sqlfail(s, rc, "reading run");
	sqlite3_finalize(st);
	return ret;
}

int store_runs_foreach(struct store *s, const struct store_run_filter *f,
		       int (*cb)(void *ctx, const struct store_run *r), void *ctx)
{
	static const struct store_run_filter none;
	sqlite3_stmt *st;
	int rc, ret;

	if (!f)
		f = &none;
	ret = store_prepare(
		s,
		"SELECT " RUN_COLS " FROM runs r JOIN drives d ON d.id = r.drive_id WHERE "
		"(?1 IS NULL OR d.serial = ?1 OR d.eui64 = ?1 OR d.nguid = ?1 OR d.wwn = ?1) AND "
		"(?2 IS NULL OR r.state = ?2 OR "
		"(?2 = 'active' AND r.state NOT IN ('done', 'failed', 'stopped'))) AND "
		"(?3 = 0 OR r.created_ns >= ?3) AND (?4 = 0 OR r.created_ns < ?4) AND "
		"(?5 IS NULL OR d.path = ?5) ORDER BY r.id",
		&st);
	if (ret)
		return ret;
	store_bind_text_or_null(st, 1, f->serial);
	store_bind_text_or_null(st, 2, f->state);
	sqlite3_bind_int64(st, 3, f->since_ns);
	sqlite3_bind_int64(st, 4, f->until_ns);
	store_bind_text_or_null(st, 5, f->drive_path);
	ret = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_run r;

		ret = store_run_row(s, st, &r);
		if (!ret)
			ret = cb(ctx, &r);
		store_run_clear(&r);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "listing runs");
	sqlite3_finalize(st);
	return ret;
}

int store_run_find_uuid(struct store *s, const char *hex, int64_t *ids, size_t max)
{
	size_t len = strlen(hex), n = 0;
	sqlite3_stmt *st;
	int rc, ret;

	if (!len || len > 32 || strspn(hex, "0123456789abcdef") != len)
		return store_fail(s, -EINVAL, "'%s' is not lowercase hex digits (1 to 32)", hex);
	/* the hex digits only, so a prefix may be written with or without dashes */
	ret = store_prepare(s,
			    "SELECT id FROM runs WHERE substr(replace(uuid, '-', ''), 1, ?2) = ?1 "
			    "ORDER BY id",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_text(st, 1, hex, (int)len, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, (int)len);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n < max)
			ids[n] = sqlite3_column_int64(st, 0);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sqlfail(s, rc, "finding runs by uuid");
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

/* --- phases --- */

static const char *const store_phase_kinds[] = {"erase", "fill", "precondition", "sweep"};
static const char *const store_phase_states[] = {"pending", "running", "done",
						 "failed",  "stopped", "skipped"};

static bool store_in(const char *v, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, set[i]))
			return true;
	return false;
}

static void store_phase_clear(struct store_phase *p)
{
	free(p->params);
	free(p->result);
	p->params = NULL;
	p->result = NULL;
}

void store_phases_free(struct store_phase *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		store_phase_clear(&p[i]);
	free(p);
}

int store_phase_insert(struct store *s, struct store_phase *p)
{
	sqlite3_stmt *st;
	int ret;

	if (!store_in(p->kind, store_phase_kinds, 4) || !store_in(p->state, store_phase_states, 6))
		return store_fail(s, -EINVAL, "invalid phase kind '%s' or state '%s'", p->kind,
				  p->state);
	ret = store_prepare(s,
			    "INSERT INTO phases (run_id, seq, kind, name, params, state, "
			    "total_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, p->run_id);
	sqlite3_bind_int(st, 2, p->seq);
	sqlite3_bind_text(st, 3, p->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, p->params ? p->params : "{}", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, p->state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (int64_t)p->total_bytes);
	ret = store_step_done(s, st, "inserting phase");
	if (!ret)
		p->id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return ret;
}

int store_phase_update(struct store *s, const struct store_phase *p)
{
	sqlite3_stmt *st;
	int ret;

	if (!store_in(p->state, store_phase_states, 6))
		return store_fail(s, -EINVAL, "invalid phase state '%s'", p->state);
	ret = store_stmt(s, ST_PHASE_UPDATE,
			 "UPDATE phases SET state = ?2, started_ns = ?3, ended_ns = ?4, "
			 "progress_bytes = ?5, total_bytes = ?6, rounds = ?7, steady = ?8, "
			 "steady_round = ?9, result = coalesce(?10, result) WHERE id = ?1",
			 &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, p->id);
	sqlite3_bind_text(st, 2, p->state, -1, SQLITE_STATIC);
	if (p->started_ns)
		sqlite3_bind_int64(st, 3, p->started_ns);
	if (p->ended_ns)
		sqlite3_bind_int64(st, 4, p->ended_ns);
	sqlite3_bind_int64(st, 5, (int64_t)p->progress_bytes);
	sqlite3_bind_int64(st, 6, (int64_t)p->total_bytes);
	sqlite3_bind_int64(st, 7, p->rounds);
	if (p->steady >= 0)
		sqlite3_bind_int(st, 8, p->steady);
	if (p->steady_round > 0)
		sqlite3_bind_int64(st, 9, p->steady_round);
	store_bind_text_or_null(st, 10, p->result);
	ret = store_step_done(s, st, "updating phase");
	if (!ret && sqlite3_changes(s->db) != 1)
		return store_fail(s, -ENOENT, "no phase %lld", (long long)p->id);
	return ret;
}

#define PHASE_COLS                                                                           \
	"id, run_id, seq, kind, name, params, state, started_ns, ended_ns, progress_bytes, " \
	"total_bytes, rounds, steady, steady_round, result"

static int store_phase_row(struct store *s, sqlite3_stmt *st, struct store_phase *p)
{
	int64_t prog, total;

	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, 0);
	p->run_id = sqlite3_column_int64(st, 1);
	p->seq = sqlite3_column_int(st, 2);
	store_copy_text(p->kind, sizeof(p->kind), st, 3);
	store_copy_text(p->name, sizeof(p->name), st, 4);
	store_copy_text(p->state, sizeof(p->state), st, 6);
	p->started_ns = sqlite3_column_int64(st, 7);
	p->ended_ns = sqlite3_column_int64(st, 8);
	prog = sqlite3_column_int64(st, 9);
	total = sqlite3_column_int64(st, 10);
	p->rounds = sqlite3_column_int64(st, 11);
	p->steady = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 12);
	p->steady_round = sqlite3_column_int64(st, 13);
	if (!store_in(p->kind, store_phase_kinds, 4) ||
	    !store_in(p->state, store_phase_states, 6) || prog < 0 || total < 0 || p->rounds < 0 ||
	    p->steady > 1)
		return store_fail(s, -EBADMSG,
				  "%s: phases row %lld: kind '%s', state '%s', progress %lld/%lld, "
				  "rounds %lld do not make sense",
				  s->path, (long long)p->id, p->kind, p->state, (long long)prog,
				  (long long)total, (long long)p->rounds);
	p->progress_bytes = (uint64_t)prog;
	p->total_bytes = (uint64_t)total;
	p->params = store_dup_text(st, 5);
	p->result = store_dup_text(st, 14);
	return 0;
}

int store_phases_list(struct store *s, int64_t run_id, struct store_phase **ret_p, size_t *ret_n)
{
	struct store_phase *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_prepare(s, "SELECT " PHASE_COLS " FROM phases WHERE run_id = ?1 ORDER BY seq",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			struct store_phase *nv;

			cap = cap ? 2 * cap : 8;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = store_fail(s, -ENOMEM, "out of memory");
				break;
			}
			v = nv;
		}
		ret = store_phase_row(s, st, &v[n]);
		n++;
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "listing phases");
	sqlite3_finalize(st);
	if (ret) {
		store_phases_free(v, n);
		return ret;
	}
	*ret_p = v;
	*ret_n = n;
	return 0;
}

/* --- samples and points --- */

/* "r_ios, r_bytes, ..., a_lat_p9999_ns" */
static char store_stat_cols_buf[1024];
static pthread_once_t store_stat_cols_once = PTHREAD_ONCE_INIT;

static void store_stat_cols_init(void)
{
	size_t off = 0;

	for (int d = 0; d < SAMPLE_NDIRS; d++)
		for (int i = 0; i < STORE_NSTAT; i++)
			off += (size_t)snprintf(store_stat_cols_buf + off,
						sizeof(store_stat_cols_buf) - off, "%s%c_%s",
						off ? ", " : "", store_dir_prefix[d],
						store_stat_cols[i]);
}

static const char *store_stat_col_list(void)
{
	pthread_once(&store_stat_cols_once, store_stat_cols_init);
	return store_stat_cols_buf;
}

/* Bind the 33 statistics from @first; returns the next index. */
static int store_bind_stats(sqlite3_stmt *st, int first, const struct sample *smp)
{
	int i = first;

	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		const struct sample_stats *x = &smp->st[d];

		sqlite3_bind_int64(st, i++, (int64_t)x->ios);
		sqlite3_bind_int64(st, i++, (int64_t)x->bytes);
		sqlite3_bind_double(st, i++, x->lat_mean_ns);
		sqlite3_bind_double(st, i++, x->lat_stddev_ns);
		sqlite3_bind_int64(st, i++, (int64_t)x->lat_min_ns);
		sqlite3_bind_int64(st, i++, (int64_t)x->lat_max_ns);
		for (int p = 0; p < SAMPLE_NPCT; p++)
			sqlite3_bind_int64(st, i++, (int64_t)x->lat_pct_ns[p]);
	}
	return i;
}

static int store_bind_hists(struct store *s, sqlite3_stmt *st, int first, const struct sample *smp)
{
	static __thread unsigned char buf[2][HIST_ENCODED_MAX];

	for (int d = 0; d < 2; d++) {
		ssize_t n;

		if (!smp->hist[d]) {
			sqlite3_bind_null(st, first + d);
			continue;
		}
		n = hist_encode(smp->hist[d], buf[d], sizeof(buf[d]));
		if (n < 0)
			return store_fail(s, (int)n, "encoding histogram");
		sqlite3_bind_blob(st, first + d, buf[d], (int)n, SQLITE_STATIC);
	}
	return 0;
}

static int store_check_sample(struct store *s, const struct sample *smp, const char *what)
{
	if (smp->seq < 1 || smp->end_ns <= smp->start_ns)
		return store_fail(s, -EINVAL, "%s %lld: seq must be >= 1 and end after start", what,
				  (long long)smp->seq);
	return 0;
}

int store_sample_insert(struct store *s, int64_t phase_id, const struct sample *smp)
{
	char sql[2048] = "";
	sqlite3_stmt *st;
	int ret, i;

	if ((ret = store_check_sample(s, smp, "sample")))
		return ret;
	if (!s->stmt[ST_SAMPLE_INSERT])
		snprintf(
			sql, sizeof(sql),
			"INSERT INTO samples (phase_id, seq, start_ns, end_ns, errors, %s, r_hist, "
			"w_hist, partial, point) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
			"?11, "
			"?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
			"?26, "
			"?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, ?40, "
			"?41, ?42)",
			store_stat_col_list());
	ret = store_stmt(s, ST_SAMPLE_INSERT, sql, &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int64(st, 2, smp->seq);
	sqlite3_bind_int64(st, 3, smp->start_ns);
	sqlite3_bind_int64(st, 4, smp->end_ns);
	sqlite3_bind_int64(st, 5, (int64_t)smp->errors);
	i = store_bind_stats(st, 6, smp);
	if ((ret = store_bind_hists(s, st, i, smp)))
		return ret;
	sqlite3_bind_int(st, i + 2, smp->partial);
	if (smp->point > 0)
		sqlite3_bind_int(st, i + 3, smp->point);
	else
		sqlite3_bind_null(st, i + 3);
	return store_step_done(s, st, "inserting sample");
}

int store_point_insert(struct store *s, int64_t phase_id, const struct store_point *pt)
{
	char sql[2048] = "";
	sqlite3_stmt *st;
	int ret, i;

	if ((ret = store_check_sample(s, &pt->smp, "point")))
		return ret;
	if (!pt->threads || !pt->iodepth)
		return store_fail(s, -EINVAL, "point %d: threads and iodepth must be >= 1",
				  pt->seq);
	if (!s->stmt[ST_POINT_INSERT])
		snprintf(sql, sizeof(sql),
			 "INSERT INTO points (phase_id, seq, threads, iodepth, start_ns, end_ns, "
			 "errors, %s, r_hist, w_hist) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
			 "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, "
			 "?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, "
			 "?38, ?39, ?40, ?41, ?42)",
			 store_stat_col_list());
	ret = store_stmt(s, ST_POINT_INSERT, sql, &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int(st, 2, pt->seq);
	sqlite3_bind_int(st, 3, (int)pt->threads);
	sqlite3_bind_int(st, 4, (int)pt->iodepth);
	sqlite3_bind_int64(st, 5, pt->smp.start_ns);
	sqlite3_bind_int64(st, 6, pt->smp.end_ns);
	sqlite3_bind_int64(st, 7, (int64_t)pt->smp.errors);
	i = store_bind_stats(st, 8, &pt->smp);
	if ((ret = store_bind_hists(s, st, i, &pt->smp)))
		return ret;
	return store_step_done(s, st, "inserting point");
}

/* Read the statistics and histograms of a samples/points row from column
 * @c (start_ns, end_ns, errors, 33 statistics, r_hist, w_hist). */
struct store_row_hists {
	struct hist h[2];
};

static int store_sample_row(struct store *s, sqlite3_stmt *st, int c, struct sample *smp,
			    struct store_row_hists *hists, const char *what, int64_t key)
{
	int i = c + 3;
	int64_t errors;

	smp->start_ns = sqlite3_column_int64(st, c);
	smp->end_ns = sqlite3_column_int64(st, c + 1);
	errors = sqlite3_column_int64(st, c + 2);
	if (smp->end_ns <= smp->start_ns)
		return store_fail(s, -EBADMSG, "%s: %s %lld: end %lld not after start %lld",
				  s->path, what, (long long)key, (long long)smp->end_ns,
				  (long long)smp->start_ns);
	if (errors < 0)
		return store_fail(s, -EBADMSG, "%s: %s %lld: negative error count", s->path, what,
				  (long long)key);
	smp->errors = (uint64_t)errors;
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		struct sample_stats *x = &smp->st[d];
		int64_t v[STORE_NSTAT];

		for (int k = 0; k < STORE_NSTAT; k++)
			v[k] = sqlite3_column_int64(st, i + k);
		x->lat_mean_ns = sqlite3_column_double(st, i + 2);
		x->lat_stddev_ns = sqlite3_column_double(st, i + 3);
		for (int k = 0; k < STORE_NSTAT; k++) {
			if (k == 2 || k == 3)
				continue;
			if (v[k] < 0)
				return store_fail(s, -EBADMSG, "%s: %s %lld: %c_%s is negative",
						  s->path, what, (long long)key,
						  store_dir_prefix[d], store_stat_cols[k]);
		}
		if (!isfinite(x->lat_mean_ns) || x->lat_mean_ns < 0 ||
		    !isfinite(x->lat_stddev_ns) || x->lat_stddev_ns < 0)
			return store_fail(s, -EBADMSG,
					  "%s: %s %lld: %c_ latency mean/stddev invalid", s->path,
					  what, (long long)key, store_dir_prefix[d]);
		x->ios = (uint64_t)v[0];
		x->bytes = (uint64_t)v[1];
		x->lat_min_ns = (uint64_t)v[4];
		x->lat_max_ns = (uint64_t)v[5];
		for (int p = 0; p < SAMPLE_NPCT; p++)
			x->lat_pct_ns[p] = (uint64_t)v[6 + p];
		i += STORE_NSTAT;
	}
	smp->hist[0] = smp->hist[1] = NULL;
	if (!hists)
		return 0;
	for (int d = 0; d < 2; d++) {
		const void *blob = sqlite3_column_blob(st, i + d);
		int n = sqlite3_column_bytes(st, i + d), r;

		if (sqlite3_column_type(st, i + d) == SQLITE_NULL)
			continue;
		r = hist_decode(&hists->h[d], blob, (size_t)n);
		if (r)
			return store_fail(s, -EBADMSG, "%s: %s %lld: corrupt %s histogram (%s)",
					  s->path, what, (long long)key, d ? "write" : "read",
					  r == -EPROTONOSUPPORT ? "unknown format" : "bad data");
		if (hist_count(&hists->h[d]) != smp->st[d].ios)
			return store_fail(
				s, -EBADMSG,
				"%s: %s %lld: %s histogram holds %llu I/Os, row says %llu", s->path,
				what, (long long)key, d ? "write" : "read",
				(unsigned long long)hist_count(&hists->h[d]),
				(unsigned long long)smp->st[d].ios);
		smp->hist[d] = &hists->h[d];
	}
	return 0;
}

int store_sample_last_seq(struct store *s, int64_t phase_id, int64_t *seq)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_prepare(s, "SELECT coalesce(max(seq), 0) FROM samples WHERE phase_id = ?1",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*seq = sqlite3_column_int64(st, 0);
	else
		ret = store_sqlfail(s, rc, "reading samples");
	sqlite3_finalize(st);
	return ret;
}

int64_t store_sample_count(struct store *s, int64_t phase_id)
{
	sqlite3_stmt *st;
	int64_t n;
	int rc, ret;

	ret = store_prepare(s, "SELECT count(*) FROM samples WHERE phase_id = ?1 AND aborted = 0",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	rc = sqlite3_step(st);
	n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : store_sqlfail(s, rc, "counting");
	sqlite3_finalize(st);
	return n;
}

int store_samples_abort_point(struct store *s, int64_t phase_id, int point)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_prepare(s,
			    "UPDATE samples SET aborted = 1 WHERE phase_id = ?1 AND point = ?2 "
			    "AND aborted = 0",
			    &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int(st, 2, point);
	rc = sqlite3_step(st);
	ret = rc == SQLITE_DONE ? sqlite3_changes(s->db) : store_sqlfail(s, rc, "marking samples");
	sqlite3_finalize(st);
	return ret;
}

int store_samples_foreach(struct store *s, int64_t phase_id, int64_t from_seq, unsigned int flags,
			  int (*cb)(void *ctx, const struct sample *smp), void *ctx)
{
	struct store_row_hists *hists = NULL;
	char sql[2048], what[64];
	sqlite3_stmt *st;
	int rc, ret;

	/* rows named by phase and seq: "phase 3 sample 4" */
	snprintf(what, sizeof(what), "phase %lld sample", (long long)phase_id);
	snprintf(sql, sizeof(sql),
		 "SELECT seq, partial, start_ns, end_ns, errors, %s%s, coalesce(point, 0), aborted "
		 "FROM samples WHERE phase_id = ?1 AND seq >= ?2%s ORDER BY seq",
		 store_stat_col_list(), flags & STORE_WITH_HISTS ? ", r_hist, w_hist" : "",
		 flags & STORE_WITH_ABORTED ? "" : " AND aborted = 0");
	ret = store_prepare(s, sql, &st);
	if (ret)
		return ret;
	if (flags & STORE_WITH_HISTS) {
		hists = malloc(sizeof(*hists));
		if (!hists) {
			sqlite3_finalize(st);
			return store_fail(s, -ENOMEM, "out of memory");
		}
	}
	sqlite3_bind_int64(st, 1, phase_id);
	sqlite3_bind_int64(st, 2, from_seq);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int ncol = sqlite3_column_count(st);
		struct sample smp = {.seq = sqlite3_column_int64(st, 0),
				     .partial = sqlite3_column_int(st, 1) != 0};
		int64_t point = sqlite3_column_int64(st, ncol - 2);

		if (point < 0 || point > INT32_MAX) {
			ret = store_fail(s, -EBADMSG, "%s: %s %lld: point %lld", s->path, what,
					 (long long)smp.seq, (long long)point);
			break;
		}
		smp.point = (int)point;
		smp.aborted = sqlite3_column_int(st, ncol - 1) != 0;
		ret = store_sample_row(s, st, 2, &smp, hists, what, smp.seq);
		if (!ret)
			ret = cb(ctx, &smp);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "reading samples");
	sqlite3_finalize(st);
	free(hists);
	return ret;
}

int store_points_foreach(struct store *s, int64_t phase_id, unsigned int flags,
			 int (*cb)(void *ctx, const struct store_point *pt), void *ctx)
{
	struct store_row_hists *hists = NULL;
	char sql[2048], what[64];
	sqlite3_stmt *st;
	int rc, ret;

	snprintf(what, sizeof(what), "phase %lld point", (long long)phase_id);
	snprintf(sql, sizeof(sql),
		 "SELECT seq, threads, iodepth, start_ns, end_ns, errors, %s%s FROM points WHERE "
		 "phase_id = ?1 ORDER BY seq",
		 store_stat_col_list(), flags & STORE_WITH_HISTS ? ", r_hist, w_hist" : "");
	ret = store_prepare(s, sql, &st);
	if (ret)
		return ret;
	if (flags & STORE_WITH_HISTS) {
		hists = malloc(sizeof(*hists));
		if (!hists) {
			sqlite3_finalize(st);
			return store_fail(s, -ENOMEM, "out of memory");
		}
	}
	sqlite3_bind_int64(st, 1, phase_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_point pt = {.seq = sqlite3_column_int(st, 0)};
		int64_t t = sqlite3_column_int64(st, 1), q = sqlite3_column_int64(st, 2);

		if (t < 1 || q < 1 || t > 65536 || q > 65536) {
			ret = store_fail(s, -EBADMSG, "%s: %s %d: %lld threads x %lld depth",
					 s->path, what, pt.seq, (long long)t, (long long)q);
			break;
		}
		pt.threads = (unsigned int)t;
		pt.iodepth = (unsigned int)q;
		pt.smp.seq = pt.seq;
		ret = store_sample_row(s, st, 3, &pt.smp, hists, what, pt.seq);
		if (!ret)
			ret = cb(ctx, &pt);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "reading points");
	sqlite3_finalize(st);
	free(hists);
	return ret;
}

int store_series(struct store *s, int64_t phase_id, enum sample_metric m, double **vals, size_t *n)
{
	/* Only the column the metric needs, converted in C from the row. */
	static const char *const stat_cols[] = {
		[SAMPLE_STAT_IOPS] = "ios",
		[SAMPLE_STAT_BW] = "bytes",
		[SAMPLE_STAT_LAT_MEAN] = "lat_mean_ns",
		[SAMPLE_STAT_LAT_MIN] = "lat_min_ns",
		[SAMPLE_STAT_LAT_MAX] = "lat_max_ns",
		[SAMPLE_STAT_LAT_STDDEV] = "lat_stddev_ns",
	};
	static const char *const pct_cols[SAMPLE_NPCT] = {"lat_p50_ns", "lat_p90_ns", "lat_p99_ns",
							  "lat_p999_ns", "lat_p9999_ns"};
	double *v = NULL;
	size_t cnt = 0, cap = 0;
	sqlite3_stmt *st;
	char sql[256];
	int rc, ret;

	if ((unsigned int)m >= SAMPLE_METRIC_N)
		return store_fail(s, -EINVAL, "unknown metric");
	snprintf(sql, sizeof(sql),
		 "SELECT seq, start_ns, end_ns, %c_%s FROM samples WHERE phase_id = ?1 AND "
		 "partial = 0 AND aborted = 0 ORDER BY seq",
		 "rwa"[sample_metric_dir(m)],
		 sample_metric_stat(m) == SAMPLE_STAT_PCT ? pct_cols[sample_metric_pct(m)]
							  : stat_cols[sample_metric_stat(m)]);
	ret = store_prepare(s, sql, &st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, phase_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		int64_t t0 = sqlite3_column_int64(st, 1), t1 = sqlite3_column_int64(st, 2);
		double x = sqlite3_column_double(st, 3), secs = (double)(t1 - t0) / 1e9;

		if (t1 <= t0 || !isfinite(x) || x < 0) {
			ret = store_fail(
				s, -EBADMSG, "%s: sample %lld: %s", s->path, (long long)seq,
				t1 <= t0 ? "end not after start" : "negative or non-finite value");
			break;
		}
		if (cnt == cap) {
			double *nv;

			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				ret = store_fail(s, -ENOMEM, "out of memory");
				break;
			}
			v = nv;
		}
		v[cnt++] = sample_metric_convert(m, x, secs);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "reading samples");
	sqlite3_finalize(st);
	if (ret) {
		free(v);
		return ret;
	}
	*vals = v;
	*n = cnt;
	return 0;
}

/* --- events --- */

int store_event_insert(struct store *s, struct store_event *ev)
{
	sqlite3_stmt *st;
	int ret;

	if (!ev->kind || !*ev->kind || !ev->message)
		return store_fail(s, -EINVAL, "event without kind or message");
	ret = store_stmt(s, ST_EVENT_INSERT,
			 "INSERT INTO events (run_id, phase_id, time_ns, kind, message, data) "
			 "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			 &st);
	if (ret)
		return ret;
	if (!ev->time_ns)
		ev->time_ns = clock_wall_ns();
	sqlite3_bind_int64(st, 1, ev->run_id);
	if (ev->phase_id)
		sqlite3_bind_int64(st, 2, ev->phase_id);
	sqlite3_bind_int64(st, 3, ev->time_ns);
	sqlite3_bind_text(st, 4, ev->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, ev->message, -1, SQLITE_STATIC);
	store_bind_text_or_null(st, 6, ev->data);
	ret = store_step_done(s, st, "inserting event");
	if (!ret)
		ev->id = sqlite3_last_insert_rowid(s->db);
	return ret;
}

int store_events_foreach(struct store *s, int64_t run_id, const char *kind, int64_t after_id,
			 int (*cb)(void *ctx, const struct store_event *ev), void *ctx)
{
	sqlite3_stmt *st;
	int rc, ret;

	ret = store_prepare(
		s,
		"SELECT id, run_id, phase_id, time_ns, kind, message, data FROM events "
		"WHERE run_id = ?1 AND (?2 IS NULL OR kind = ?2) AND id > ?3 ORDER BY id",
		&st);
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run_id);
	store_bind_text_or_null(st, 2, kind);
	sqlite3_bind_int64(st, 3, after_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_event ev = {
			.id = sqlite3_column_int64(st, 0),
			.run_id = sqlite3_column_int64(st, 1),
			.phase_id = sqlite3_column_int64(st, 2),
			.time_ns = sqlite3_column_int64(st, 3),
			.kind = (const char *)sqlite3_column_text(st, 4),
			.message = (const char *)sqlite3_column_text(st, 5),
			.data = (const char *)sqlite3_column_text(st, 6),
		};

		if (!ev.kind || !ev.message) {
			ret = store_fail(s, -EBADMSG,
					 "%s: events row %lld: missing kind or message", s->path,
					 (long long)ev.id);
			break;
		}
		ret = cb(ctx, &ev);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_sqlfail(s, rc, "reading events");
	sqlite3_finalize(st);
	return ret;
}

/* --- checks and copies between databases --- */

int store_quick_check(struct store *s)
{
	char what[256] = "";
	size_t len = 0;
	sqlite3_stmt *st;
	int rc, ret;

	if ((ret = store_prepare(s, "PRAGMA quick_check(4)", &st)))
		return ret;
	/* "ok", or up to 4 problems: one line of them, for one error line */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (t && !strcmp(t, "ok"))
			continue;
		for (; t && *t && len + 3 < sizeof(what); t++)
			what[len++] = *t == '\n' ? ' ' : *t;
		if (len + 3 < sizeof(what)) {
			what[len++] = ';';
			what[len++] = ' ';
		}
		what[len] = '\0';
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, store_errno(rc) ? store_errno(rc) : -EIO, "%s: corrupt: %s",
				  s->path, sqlite3_errstr(rc));
	if (len) {
		what[len - 2] = '\0';
		return store_fail(s, -EBADMSG, "%s: corrupt: %s", s->path, what);
	}
	return 0;
}

struct store_copy_ctx {
	struct store *dst, *src;
	int64_t run_id; /* in dst */
	int64_t phase_id;
	const int64_t *phase_map; /* src phase ids, dst phase ids: 2 per phase */
	size_t nphases;
	struct store_copied *out;
	bool dst_failed; /* which side the failure is on */
};

static int store_copy_sample(void *ctx, const struct sample *smp)
{
	struct store_copy_ctx *c = ctx;
	sqlite3_stmt *st;
	int ret;

	c->dst_failed = true;
	if ((ret = store_sample_insert(c->dst, c->phase_id, smp)))
		return ret;
	if (smp->aborted) {
		if ((ret = store_prepare(c->dst,
					 "UPDATE samples SET aborted = 1 WHERE phase_id = ?1 AND "
					 "seq = ?2",
					 &st)))
			return ret;
		sqlite3_bind_int64(st, 1, c->phase_id);
		sqlite3_bind_int64(st, 2, smp->seq);
		ret = store_step_done(c->dst, st, "marking a sample aborted");
		sqlite3_finalize(st);
		if (ret)
			return ret;
	}
	c->dst_failed = false;
	c->out->samples++;
	return 0;
}

static int store_copy_point(void *ctx, const struct store_point *pt)
{
	struct store_copy_ctx *c = ctx;
	int ret;

	c->dst_failed = true;
	if ((ret = store_point_insert(c->dst, c->phase_id, pt)))
		return ret;
	c->dst_failed = false;
	c->out->points++;
	return 0;
}

static int store_copy_event(void *ctx, const struct store_event *ev)
{
	struct store_copy_ctx *c = ctx;
	struct store_event e = *ev;
	int ret;

	e.id = 0;
	e.run_id = c->run_id;
	if (e.phase_id) {
		size_t i;

		for (i = 0; i < c->nphases && c->phase_map[2 * i] != ev->phase_id; i++)
			;
		if (i == c->nphases) {
			c->dst_failed = true;
			return store_fail(c->dst, -EBADMSG,
					  "%s: events row %lld: phase %lld is not a phase of run "
					  "%lld",
					  c->src->path, (long long)ev->id, (long long)ev->phase_id,
					  (long long)ev->run_id);
		}
		e.phase_id = c->phase_map[2 * i + 1];
	}
	c->dst_failed = true;
	if (!e.time_ns)
		return store_fail(c->dst, -EBADMSG, "%s: events row %lld: time_ns is 0",
				  c->src->path, (long long)ev->id);
	if ((ret = store_event_insert(c->dst, &e)))
		return ret;
	c->dst_failed = false;
	c->out->events++;
	return 0;
}

/* the id of the run with @uuid in @s: 0 none, -errno */
static int64_t store_run_by_uuid(struct store *s, const char *uuid)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	int rc, ret;

	if ((ret = store_prepare(s, "SELECT id FROM runs WHERE uuid = ?1", &st)))
		return ret;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sqlfail(s, rc, "finding a run by uuid");
	return id;
}

static int store_copy_one(struct store_copy_ctx *c, int64_t src_id)
{
	struct store_phase *ph = NULL;
	struct store_run r;
	int64_t *map = NULL, have;
	size_t n = 0;
	int ret;

	c->dst_failed = false;
	memset(c->out, 0, sizeof(*c->out));
	c->out->src_id = src_id;
	if ((ret = store_run_get(c->src, src_id, &r)))
		return ret;
	snprintf(c->out->uuid, sizeof(c->out->uuid), "%s", r.uuid);
	snprintf(c->out->host, sizeof(c->out->host), "%s", r.host);
	c->dst_failed = true;
	if (!r.uuid[0]) {
		ret = store_fail(c->dst, -EBADMSG, "%s: runs row %lld: no uuid", c->src->path,
				 (long long)src_id);
		goto out;
	}
	/* plateaud resumes the unfinished runs it finds: a copy must never be one */
	if (store_run_state_active(r.state)) {
		ret = store_fail(c->dst, -EBUSY,
				 "%s: run %lld (%s) is still %s: only ended runs (done, failed, "
				 "stopped) are copied",
				 c->src->path, (long long)src_id, r.uuid, r.state);
		goto out;
	}
	if ((have = store_run_by_uuid(c->dst, r.uuid)) < 0) {
		ret = (int)have;
		goto out;
	}
	if (have) {
		c->out->dst_id = have;
		c->out->present = true;
		ret = 0;
		goto out;
	}
	r.drive.id = 0;
	if ((ret = store_drive_upsert(c->dst, &r.drive)))
		goto out;
	r.drive_id = r.drive.id;
	r.id = 0;
	if ((ret = store_run_insert_row(c->dst, &r, true)))
		goto out;
	c->run_id = c->out->dst_id = r.id;

	c->dst_failed = false;
	if ((ret = store_phases_list(c->src, src_id, &ph, &n)))
		goto out;
	map = calloc(n ? 2 * n : 1, sizeof(*map));
	if (!map) {
		c->dst_failed = true;
		ret = store_fail(c->dst, -ENOMEM, "out of memory");
		goto out;
	}
	c->phase_map = map;
	c->nphases = n;
	for (size_t i = 0; i < n; i++) {
		struct store_phase p = ph[i];

		c->dst_failed = true;
		p.run_id = r.id;
		if ((ret = store_phase_insert(c->dst, &p)) ||
		    (ret = store_phase_update(c->dst, &p)))
			goto out;
		map[2 * i] = ph[i].id;
		map[2 * i + 1] = c->phase_id = p.id;
		c->dst_failed = false;
		if ((ret = store_samples_foreach(c->src, ph[i].id, 0,
						 STORE_WITH_HISTS | STORE_WITH_ABORTED,
						 store_copy_sample, c)) ||
		    (ret = store_points_foreach(c->src, ph[i].id, STORE_WITH_HISTS,
						store_copy_point, c)))
			goto out;
	}
	c->dst_failed = false;
	ret = store_events_foreach(c->src, src_id, NULL, 0, store_copy_event, c);
out:
	c->phase_map = NULL;
	c->nphases = 0;
	free(map);
	store_phases_free(ph, n);
	store_run_clear(&r);
	return ret;
}

int store_copy_runs(struct store *dst, struct store *src, const int64_t *ids, size_t n,
		    struct store_copied *out)
{
	struct store_copy_ctx c = {.dst = dst, .src = src};
	int ret;

	if (dst->rdonly)
		return store_fail(dst, -EACCES, "%s: opened read-only", dst->path);
	if ((ret = store_begin(dst)))
		return ret;
	for (size_t i = 0; i < n; i++) {
		c.out = &out[i];
		if ((ret = store_copy_one(&c, ids[i]))) {
			/* the message of the side that failed, on @dst */
			if (!c.dst_failed)
				snprintf(dst->err, sizeof(dst->err), "%s", src->err);
			store_rollback(dst);
			return ret;
		}
	}
	if ((ret = store_commit(dst))) {
		store_rollback(dst);
		return ret;
	}
	return 0;
}
