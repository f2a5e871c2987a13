// SPDX-License-Identifier: MIT
/*
 * store: migrations (from empty and from every older schema), refusal of a
 * newer schema, read-only handles, foreign and corrupt files, round trips of
 * every row type (histograms compared bucket by bucket), rows that break
 * the schema's promises and store_series(); a run's
 * requester (schema 3): round trip, unknown parts, zeroed structs, a database
 * from before schema 3, and corrupt values; a run's uuid (schema 5): given
 * to every old run by the migration, distinct, to every new run, kept when
 * given, refused when malformed or already stored.
 *
 * Every database lives in a mkdtemp() directory that is removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "embed.h"
#include "store-int.h"
#include "tap.h"

#define APP_ID 0x504C5455 /* "PLTU", store.c's PRAGMA application_id */
#define T0_NS 1796000000000000000LL
#define SEC_NS 1000000000LL

static char tmpdir[256];

static const char *path_of(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void rm_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			(void)unlink(path_of(e->d_name));
	closedir(d);
	(void)rmdir(tmpdir);
}

/* --- raw SQLite, to build what store.c would not --- */

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL))
		bail_out("sqlite3_open %s: %s", path, sqlite3_errmsg(db));
	return db;
}

static void raw_exec(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void raw_exec(sqlite3 *db, const char *fmt, ...)
{
	char *sql, *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg))
		bail_out("%s: %s", sql, msg);
	sqlite3_free(sql);
}

/* flip the bits of byte @off of blob @col of sample @seq */
static void raw_flip_byte(sqlite3 *db, const char *col, int seq, int off)
{
	unsigned char buf[HIST_ENCODED_MAX];
	sqlite3_stmt *st;
	char sql[128];
	int n = 0;

	snprintf(sql, sizeof(sql), "SELECT %s FROM samples WHERE seq = %d", col, seq);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) || sqlite3_step(st) != SQLITE_ROW)
		bail_out("%s: %s", sql, sqlite3_errmsg(db));
	n = sqlite3_column_bytes(st, 0);
	if (n <= off || n > (int)sizeof(buf))
		bail_out("%s: a blob of %d bytes", sql, n);
	memcpy(buf, sqlite3_column_blob(st, 0), (size_t)n);
	sqlite3_finalize(st);
	buf[off] ^= 0xff;
	snprintf(sql, sizeof(sql), "UPDATE samples SET %s = ?1 WHERE seq = %d", col, seq);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		bail_out("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_bind_blob(st, 1, buf, n, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		bail_out("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
}

/* one integer (or text, into @txt) from a query on the file at @path */
static int64_t raw_int(const char *path, const char *sql, char *txt, size_t txtlen)
{
	sqlite3 *db = raw_open(path);
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		bail_out("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		if (txt)
			snprintf(txt, txtlen, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* "type name sql" of every schema object, sorted: to compare two schemas */
static char *raw_schema(const char *path)
{
	sqlite3 *db = raw_open(path);
	sqlite3_stmt *st;
	size_t len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);

	if (!f || sqlite3_prepare_v2(db,
				     "SELECT type, name, coalesce(sql, '') FROM sqlite_master "
				     "ORDER BY type, name",
				     -1, &st, NULL))
		bail_out("reading the schema of %s", path);
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "%s %s %s\n", (const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 2));
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(f);
	return out;
}

/* A database at schema @version as an old plateau left it: the embedded
 * migrations 1..@version run directly, with one drive, run, precondition
 * phase and three samples (the last partial). */
static void make_old_db(const char *path, int version)
{
	sqlite3 *db = raw_open(path);

	raw_exec(db, "PRAGMA journal_mode = WAL");
	for (int i = 0; i < version; i++)
		raw_exec(db, "%s", store_schema_files[i].data);
	raw_exec(db, "PRAGMA application_id = %d; PRAGMA user_version = %d", APP_ID, version);
	raw_exec(db, "INSERT INTO drives (id, kind, path, model, serial, capacity_bytes, "
		     "lba_bytes, first_seen_ns) VALUES (1, 'nvme', '/dev/nvme0n1', 'OLD', 'S-OLD', "
		     "1000000000, 512, 1)");
	raw_exec(db,
		 "INSERT INTO runs (id, drive_id, name, plan, state, created_ns, host, version) "
		 "VALUES (1, 1, 'old-run', '[run]', 'done', %lld, 'h', '0.0.1')",
		 T0_NS);
	raw_exec(db, "INSERT INTO phases (id, run_id, seq, kind, name, state) VALUES "
		     "(1, 1, 1, 'precondition', '4k', 'done')");
	for (int seq = 1; seq <= 3; seq++) {
		char cols[1024] = "", vals[1024] = "";
		static const char dirs[] = "rwa";

		for (int d = 0; d < 3; d++) {
			size_t n = strlen(cols), m = strlen(vals);

			snprintf(cols + n, sizeof(cols) - n,
				 ", %c_ios, %c_bytes, %c_lat_mean_ns, %c_lat_stddev_ns, "
				 "%c_lat_min_ns, "
				 "%c_lat_max_ns, %c_lat_p50_ns, %c_lat_p90_ns, %c_lat_p99_ns, "
				 "%c_lat_p999_ns, %c_lat_p9999_ns",
				 dirs[d], dirs[d], dirs[d], dirs[d], dirs[d], dirs[d], dirs[d],
				 dirs[d], dirs[d], dirs[d], dirs[d]);
			snprintf(vals + m, sizeof(vals) - m,
				 ", %d, %d, 100.0, 1.0, 1, 9, 5, 6, 7, 8, 9",
				 d == 0 ? 0 : seq * 60000, d == 0 ? 0 : seq * 60000 * 4096);
		}
		raw_exec(db,
			 "INSERT INTO samples (phase_id, seq, start_ns, end_ns, partial%s) VALUES "
			 "(1, %d, %lld, %lld, %d%s)",
			 cols, seq, T0_NS + (seq - 1) * 60 * SEC_NS, T0_NS + seq * 60 * SEC_NS,
			 seq == 3, vals);
	}
	sqlite3_close(db);
}

/* --- histograms and samples --- */

static struct hist hist_rd, hist_wr;

/* A sample with @n_rd reads and @n_wr writes spread over four decades. */
static void make_sample(struct sample *smp, int64_t seq, int64_t start_ns, int64_t dur_ns,
			unsigned int n_rd, unsigned int n_wr, bool with_hists)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seq;

	hist_init(&hist_rd);
	hist_init(&hist_wr);
	for (unsigned int i = 0; i < n_rd + n_wr; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		hist_record(i < n_rd ? &hist_rd : &hist_wr,
			    1000 + (x * 0x2545F4914F6CDD1DULL) % 9999000);
	}
	memset(smp, 0, sizeof(*smp));
	smp->seq = seq;
	smp->start_ns = start_ns;
	smp->end_ns = start_ns + dur_ns;
	smp->errors = (uint64_t)seq % 3;
	sample_summarize(smp, &hist_rd, (uint64_t)n_rd * 4096, &hist_wr, (uint64_t)n_wr * 8192);
	if (with_hists) {
		smp->hist[0] = &hist_rd;
		smp->hist[1] = &hist_wr;
	}
}

static bool same_hist(const struct hist *a, const struct hist *b)
{
	return a->count == b->count && a->sum_ns == b->sum_ns && a->sumsq_ns2 == b->sumsq_ns2 &&
	       a->min_ns == b->min_ns && a->max_ns == b->max_ns &&
	       !memcmp(a->buckets, b->buckets, sizeof(a->buckets));
}

static bool same_stats(const struct sample *a, const struct sample *b)
{
	if (a->seq != b->seq || a->start_ns != b->start_ns || a->end_ns != b->end_ns ||
	    a->errors != b->errors || a->partial != b->partial) {
		diag("seq/times/errors/partial differ");
		return false;
	}
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		const struct sample_stats *x = &a->st[d], *y = &b->st[d];

		if (x->ios != y->ios || x->bytes != y->bytes || x->lat_mean_ns != y->lat_mean_ns ||
		    x->lat_stddev_ns != y->lat_stddev_ns || x->lat_min_ns != y->lat_min_ns ||
		    x->lat_max_ns != y->lat_max_ns ||
		    memcmp(x->lat_pct_ns, y->lat_pct_ns, sizeof(x->lat_pct_ns))) {
			diag("direction %d statistics differ", d);
			return false;
		}
	}
	return true;
}

#define MAXROWS 8

struct rows {
	size_t n;
	struct sample smp[MAXROWS];
	bool had_hist[MAXROWS][2];
	struct hist *h; /* [MAXROWS][2] */
	struct store_point pt[MAXROWS];
};

static struct hist *rows_hist(struct rows *r, size_t i, int d)
{
	return &r->h[i * 2 + (size_t)d];
}

static void rows_init(struct rows *r)
{
	memset(r, 0, sizeof(*r));
	r->h = calloc(MAXROWS * 2, sizeof(*r->h));
	if (!r->h)
		bail_out("out of memory");
}

static int rows_sample(void *ctx, const struct sample *smp)
{
	struct rows *r = ctx;

	if (r->n >= MAXROWS)
		return -E2BIG;
	r->smp[r->n] = *smp;
	for (int d = 0; d < 2; d++) {
		r->had_hist[r->n][d] = smp->hist[d] != NULL;
		if (smp->hist[d])
			*rows_hist(r, r->n, d) = *smp->hist[d];
		r->smp[r->n].hist[d] = NULL;
	}
	r->n++;
	return 0;
}

static int rows_point(void *ctx, const struct store_point *pt)
{
	struct rows *r = ctx;

	if (r->n >= MAXROWS)
		return -E2BIG;
	r->pt[r->n] = *pt;
	for (int d = 0; d < 2; d++) {
		r->had_hist[r->n][d] = pt->smp.hist[d] != NULL;
		if (pt->smp.hist[d])
			*rows_hist(r, r->n, d) = *pt->smp.hist[d];
		r->pt[r->n].smp.hist[d] = NULL;
	}
	r->n++;
	return 0;
}

struct ev_rows {
	int n;
	char kinds[64];
	char message[64];
	int64_t phase[4];
	bool data_null[4];
};

static int events_cb(void *ctx, const struct store_event *ev)
{
	struct ev_rows *x = ctx;
	size_t l = strlen(x->kinds);

	snprintf(x->kinds + l, sizeof(x->kinds) - l, "%s%s", l ? "," : "", ev->kind);
	snprintf(x->message, sizeof(x->message), "%s", ev->message);
	if (x->n < 4) {
		x->phase[x->n] = ev->phase_id;
		x->data_null[x->n] = ev->data == NULL;
	}
	x->n++;
	return 0;
}

static int stop_at_two(void *ctx, const struct sample *smp)
{
	(void)smp;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

/* --- a store with one drive, one run and phases --- */

struct fixture {
	struct store *s;
	struct store_drive d;
	struct store_run r;
	struct store_phase pre, sweep;
};

static char fixture_plan[] = "[run]\ndevice = /dev/nvme3n1\n";
static char fixture_params[] = "{\"criterion\":\"snia\",\"window\":5}";
static char fixture_result[] = "{\"steady_round\":8}";

static void fixture_open(struct fixture *fx, const char *name)
{
	char err[512];

	memset(fx, 0, sizeof(*fx));
	if (store_open(path_of(name), STORE_CREATE, &fx->s, err, sizeof(err)))
		bail_out("store_open %s: %s", name, err);
	snprintf(fx->d.kind, sizeof(fx->d.kind), "nvme");
	snprintf(fx->d.path, sizeof(fx->d.path), "/dev/nvme3n1");
	snprintf(fx->d.model, sizeof(fx->d.model), "ACME 7.68TB");
	snprintf(fx->d.serial, sizeof(fx->d.serial), "SN-0042");
	snprintf(fx->d.firmware, sizeof(fx->d.firmware), "FW1.0");
	snprintf(fx->d.eui64, sizeof(fx->d.eui64), "0025388b00000042");
	snprintf(fx->d.nguid, sizeof(fx->d.nguid), "6479a7ff00000000002538b100000042");
	snprintf(fx->d.wwn, sizeof(fx->d.wwn), "eui.0025388b00000042");
	fx->d.capacity_bytes = 7681501126656ULL;
	fx->d.lba_bytes = 4096;
	fx->d.first_seen_ns = T0_NS - 5;
	if (store_drive_upsert(fx->s, &fx->d))
		bail_out("drive: %s", store_errmsg(fx->s));
	fx->r.drive_id = fx->d.id;
	snprintf(fx->r.name, sizeof(fx->r.name), "unit-run");
	snprintf(fx->r.state, sizeof(fx->r.state), "queued");
	fx->r.plan = fixture_plan;
	fx->r.created_ns = T0_NS;
	snprintf(fx->r.host, sizeof(fx->r.host), "lab9");
	snprintf(fx->r.version, sizeof(fx->r.version), "9.9.9");
	if (store_run_insert(fx->s, &fx->r))
		bail_out("run: %s", store_errmsg(fx->s));
	fx->r.plan = NULL;
	fx->pre = (struct store_phase){.run_id = fx->r.id, .seq = 1, .total_bytes = 77};
	snprintf(fx->pre.kind, sizeof(fx->pre.kind), "precondition");
	snprintf(fx->pre.name, sizeof(fx->pre.name), "4k-randwrite");
	snprintf(fx->pre.state, sizeof(fx->pre.state), "running");
	fx->pre.params = fixture_params;
	if (store_phase_insert(fx->s, &fx->pre))
		bail_out("phase: %s", store_errmsg(fx->s));
	fx->pre.params = NULL;
	fx->sweep = (struct store_phase){.run_id = fx->r.id, .seq = 2};
	snprintf(fx->sweep.kind, sizeof(fx->sweep.kind), "sweep");
	snprintf(fx->sweep.state, sizeof(fx->sweep.state), "pending");
	if (store_phase_insert(fx->s, &fx->sweep))
		bail_out("phase: %s", store_errmsg(fx->s));
}

/* ---------------------------------------------------------------- tests */

static void test_versions(void)
{
	int latest = store_latest_version();

	ok(store_schema_nfiles >= 1, "at least one embedded migration");
	is_int(latest, (int64_t)store_schema_nfiles, "latest version = number of migrations");
	for (size_t i = 0; i < store_schema_nfiles; i++) {
		char want[32];

		snprintf(want, sizeof(want), "%03zu-", i + 1);
		ok(!strncmp(store_schema_files[i].name, want, 4), "migration %zu is %s*", i + 1,
		   want);
	}
}

static void test_create(void)
{
	struct store *s = NULL;
	char err[512] = "", txt[64];
	int r;

	r = store_open(path_of("new.db"), STORE_CREATE, &s, err, sizeof(err));
	is_int(r, 0, "create a database from nothing");
	if (r)
		diag("%s", err);
	is_int(store_version(s), store_latest_version(), "a new database is at the latest version");
	store_close(s);
	is_int(raw_int(path_of("new.db"), "PRAGMA application_id", NULL, 0), APP_ID,
	       "application_id is PLTU");
	raw_int(path_of("new.db"), "PRAGMA journal_mode", txt, sizeof(txt));
	is_str(txt, "wal", "journal_mode is WAL");
	is_int(raw_int(path_of("new.db"),
		       "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
		       "('drives', 'runs', 'phases', 'samples', 'points', 'events')",
		       NULL, 0),
	       6, "drives, runs, phases, samples, points and events exist");

	/* reopening an up-to-date database changes nothing */
	r = store_open(path_of("new.db"), 0, &s, err, sizeof(err));
	is_int(r, 0, "reopen as a writer");
	store_close(s);
	r = store_open(path_of("new.db"), STORE_RDONLY, &s, err, sizeof(err));
	is_int(r, 0, "reopen read-only");
	if (!r) {
		is_int(store_version(s), store_latest_version(), "read-only: latest version");
		store_close(s);
	}
}

static void test_missing(void)
{
	struct store *s = (struct store *)0x1;
	char err[512] = "";
	int r;

	r = store_open(path_of("missing.db"), 0, &s, err, sizeof(err));
	is_int(r, -ENOENT, "a missing file without STORE_CREATE: -ENOENT");
	ok(strstr(err, path_of("missing.db")) != NULL, "the message names the file: %s", err);
	ok(s == (struct store *)0x1, "*ret untouched on failure");
	r = store_open(path_of("missing.db"), STORE_RDONLY | STORE_CREATE, &s, err, sizeof(err));
	is_int(r, -ENOENT, "read-only never creates: -ENOENT");
	ok(access(path_of("missing.db"), F_OK) < 0, "and no file was created");
}

static void test_not_plateau(void)
{
	struct store *s = NULL;
	char err[512] = "";
	FILE *f;
	int r;

	f = fopen(path_of("text.db"), "w");
	if (!f)
		bail_out("fopen");
	for (int i = 0; i < 200; i++)
		fputs("this is a text file, not a database at all\n", f);
	fclose(f);
	r = store_open(path_of("text.db"), STORE_RDONLY, &s, err, sizeof(err));
	is_int(r, -EBADMSG, "a text file, read-only: -EBADMSG");
	ok(strstr(err, "text.db") && strstr(err, "not a SQLite database"), "says so: %s", err);
	r = store_open(path_of("text.db"), STORE_CREATE, &s, err, sizeof(err));
	is_int(r, -EBADMSG, "a text file, writer: -EBADMSG");

	{
		sqlite3 *db = raw_open(path_of("foreign.db"));

		raw_exec(db, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine')");
		sqlite3_close(db);
	}
	r = store_open(path_of("foreign.db"), STORE_RDONLY, &s, err, sizeof(err));
	is_int(r, -EBADMSG, "a foreign SQLite database, read-only: -EBADMSG");
	ok(strstr(err, "not a plateau database") != NULL, "says so: %s", err);
	r = store_open(path_of("foreign.db"), STORE_CREATE, &s, err, sizeof(err));
	is_int(r, -EBADMSG, "a foreign SQLite database, writer: -EBADMSG");
	is_int(raw_int(path_of("foreign.db"), "SELECT count(*) FROM sqlite_master", NULL, 0), 1,
	       "the writer did not touch the foreign database");

	if (mkdir(path_of("dir.db"), 0700))
		bail_out("mkdir");
	r = store_open(path_of("dir.db"), STORE_RDONLY, &s, err, sizeof(err));
	is_int(r, -EBADMSG, "a directory: -EBADMSG");
	(void)rmdir(path_of("dir.db"));
}

/* @n appears in @s as a whole number */
static bool has_number(const char *s, long n)
{
	for (const char *p = s; *p; p++) {
		char *end;

		if (*p < '0' || *p > '9' || (p > s && p[-1] >= '0' && p[-1] <= '9'))
			continue;
		if (strtol(p, &end, 10) == n)
			return true;
	}
	return false;
}

static void test_newer(void)
{
	int latest = store_latest_version();
	struct store *s = NULL;
	char err[512] = "";
	const char *msg;
	int r;

	if (store_open(path_of("newer.db"), STORE_CREATE, &s, err, sizeof(err)))
		bail_out("%s", err);
	store_close(s);
	{
		sqlite3 *db = raw_open(path_of("newer.db"));

		raw_exec(db, "PRAGMA user_version = %d", latest + 7);
		sqlite3_close(db);
	}
	for (int pass = 0; pass < 2; pass++) {
		r = store_open(path_of("newer.db"), pass ? 0 : STORE_RDONLY, &s, err, sizeof(err));
		is_int(r, -EPROTO, "a newer schema (%s): -EPROTO", pass ? "writer" : "read-only");
		/* past the path: a temporary directory's name may hold digits */
		msg = strstr(err, "newer.db") ? strstr(err, "newer.db") : err;
		ok(has_number(msg, latest + 7) && has_number(msg, latest),
		   "names both versions, %d and %d: %s", latest + 7, latest, err);
	}
	is_int(raw_int(path_of("newer.db"), "PRAGMA user_version", NULL, 0), latest + 7,
	       "a newer database is left alone");
}

/* Each older version: refused read-only, migrated by a writer, data kept,
 * the result identical to a fresh database's schema. */
static void test_migrate_old(void)
{
	int latest = store_latest_version();
	char *fresh, *migrated;
	struct store *s = NULL;

	if (store_open(path_of("fresh.db"), STORE_CREATE, &s, NULL, 0))
		bail_out("fresh.db");
	store_close(s);
	fresh = raw_schema(path_of("fresh.db"));

	for (int v = 1; v < latest; v++) {
		char name[32], err[512] = "";
		struct store_run run;
		double *vals = NULL;
		size_t n = 0;
		int r;

		snprintf(name, sizeof(name), "v%d.db", v);
		make_old_db(path_of(name), v);

		r = store_open(path_of(name), STORE_RDONLY, &s, err, sizeof(err));
		is_int(r, -EPROTO, "v%d read-only: -EPROTO (older)", v);
		ok(strstr(err, "older") && strstr(err, "migrate"), "v%d: says older, and how: %s",
		   v, err);
		is_int(raw_int(path_of(name), "PRAGMA user_version", NULL, 0), v,
		       "v%d: read-only open did not migrate", v);

		r = store_open(path_of(name), 0, &s, err, sizeof(err));
		is_int(r, 0, "v%d: a writer migrates", v);
		if (r) {
			diag("%s", err);
			continue;
		}
		is_int(store_version(s), latest, "v%d -> user_version %d", v, latest);
		r = store_run_get(s, 1, &run);
		is_int(r, 0, "v%d: the run survives", v);
		if (!r) {
			is_str(run.name, "old-run", "v%d: run name", v);
			is_str(run.drive.serial, "S-OLD", "v%d: its drive", v);
			ok(run.requester_uid == -1 && run.requester_pid == -1 &&
				   !*run.requester_cmd && !*run.requester_via,
			   "v%d: its requester is unknown (-1, -1, \"\", \"\")", v);
			store_run_clear(&run);
		}
		is_int(store_sample_count(s, 1), 3, "v%d: 3 samples survive", v);
		r = store_series(s, 1, SAMPLE_METRIC_IOPS, &vals, &n);
		is_int(r, 0, "v%d: series readable", v);
		is_u64(n, 2, "v%d: 2 full rounds (the partial one left out)", v);
		if (n == 2) {
			/* 60000 and 120000 I/Os over 60 s */
			is_dbl(vals[0], 1000.0, 1e-9, "v%d: round 1 at 1000 IOPS", v);
			is_dbl(vals[1], 2000.0, 1e-9, "v%d: round 2 at 2000 IOPS", v);
		}
		free(vals);
		store_close(s);

		migrated = raw_schema(path_of(name));
		is_str(migrated, fresh, "v%d migrated: the same schema as a new database", v);
		free(migrated);
	}
	free(fresh);
}

/* A migration that fails is rolled back whole: the version stays. */
static void test_migrate_fails(void)
{
	int latest = store_latest_version();
	const char *sql, *p;
	char table[64] = "", column[64] = "", err[512] = "";
	struct store *s = NULL;
	sqlite3 *db;
	int r;

	if (latest < 2) {
		skip(4, "one schema version only");
		return;
	}
	/* the first table the last migration creates, or the first column it
	 * adds, made in advance */
	sql = store_schema_files[latest - 1].data;
	make_old_db(path_of("conflict.db"), latest - 1);
	db = raw_open(path_of("conflict.db"));
	if ((p = strstr(sql, "CREATE TABLE ")) && sscanf(p + 13, "%63[A-Za-z0-9_]", table) == 1) {
		raw_exec(db, "CREATE TABLE %s (in_the_way INTEGER)", table);
	} else if ((p = strstr(sql, "ALTER TABLE ")) &&
		   sscanf(p + 12, "%63[A-Za-z0-9_] ADD COLUMN %63[A-Za-z0-9_]", table, column) ==
			   2) {
		raw_exec(db, "ALTER TABLE %s ADD COLUMN %s TEXT", table, column);
	} else {
		sqlite3_close(db);
		skip(4, "the last migration neither creates a table nor adds a column");
		return;
	}
	sqlite3_close(db);
	r = store_open(path_of("conflict.db"), 0, &s, err, sizeof(err));
	ok(r < 0, "a migration that cannot apply fails (%d)", r);
	ok(strstr(err, store_schema_files[latest - 1].name) != NULL, "names the migration: %s",
	   err);
	is_int(raw_int(path_of("conflict.db"), "PRAGMA user_version", NULL, 0), latest - 1,
	       "user_version stays %d", latest - 1);
	is_int(raw_int(path_of("conflict.db"), "SELECT count(*) FROM runs", NULL, 0), 1,
	       "the data is still there");
}

static void test_rdonly(void)
{
	struct fixture fx;
	struct store *ro = NULL;
	struct sample smp;
	struct store_event ev = {.kind = "note", .message = "m"};
	char err[512] = "";
	int64_t last = -1;
	int r;

	fixture_open(&fx, "ro.db");
	make_sample(&smp, 1, T0_NS, 60 * SEC_NS, 10, 20, true);
	is_int(store_sample_insert(fx.s, fx.pre.id, &smp), 0, "writer inserts sample 1");

	r = store_open(path_of("ro.db"), STORE_RDONLY, &ro, err, sizeof(err));
	is_int(r, 0, "read-only open while the writer has it open");
	if (r)
		bail_out("%s", err);
	is_int(store_sample_count(ro, fx.pre.id), 1, "the reader sees the committed sample");
	make_sample(&smp, 2, T0_NS + 60 * SEC_NS, 60 * SEC_NS, 10, 20, true);
	is_int(store_sample_insert(ro, fx.pre.id, &smp), -EACCES,
	       "read-only: store_sample_insert fails with -EACCES");
	ok(strstr(store_errmsg(ro), "ro.db") != NULL, "and says which file: %s", store_errmsg(ro));
	ev.run_id = fx.r.id;
	is_int(store_event_insert(ro, &ev), -EACCES, "read-only: store_event_insert fails");
	is_int(store_run_set_state(ro, fx.r.id, "done", NULL, T0_NS), -EACCES,
	       "read-only: store_run_set_state fails");
	is_int(store_begin(ro), -EACCES, "read-only: store_begin fails");
	is_int(store_sample_last_seq(ro, fx.pre.id, &last), 0, "read-only: reads still work");
	is_int(last, 1, "the last seq is 1");

	is_int(store_sample_insert(fx.s, fx.pre.id, &smp), 0, "the writer inserts sample 2");
	is_int(store_sample_count(ro, fx.pre.id), 2, "the reader sees it");
	store_close(ro);
	store_close(fx.s);
}

static void test_roundtrip(void)
{
	struct fixture fx;
	struct store_drive d2;
	struct store_run run;
	struct store_phase ph, *list = NULL, *got = NULL;
	struct sample in[4];
	struct hist in_h[4][2];
	struct rows rows;
	size_t nlist = 0;
	int64_t last = 0;
	int r, stop = 0;

	fixture_open(&fx, "rt.db");

	/* drives */
	d2 = fx.d;
	d2.id = 0;
	d2.first_seen_ns = 0;
	snprintf(d2.path, sizeof(d2.path), "/dev/nvme9n1"); /* a path is not identity */
	is_int(store_drive_upsert(fx.s, &d2), 0, "upsert the same drive again");
	is_int(d2.id, fx.d.id, "the same identity finds the same row");
	snprintf(d2.firmware, sizeof(d2.firmware), "FW2.0");
	d2.id = 0;
	is_int(store_drive_upsert(fx.s, &d2), 0, "upsert after a firmware update");
	ok(d2.id != fx.d.id && d2.id > 0, "a firmware update is a new row");

	/* runs */
	r = store_run_get(fx.s, fx.r.id, &run);
	is_int(r, 0, "store_run_get");
	is_str(run.name, "unit-run", "run name");
	is_str(run.state, "queued", "run state");
	is_str(run.plan, "[run]\ndevice = /dev/nvme3n1\n", "run plan");
	is_int(run.created_ns, T0_NS, "run created_ns");
	is_int(run.started_ns, 0, "not started yet");
	is_str(run.host, "lab9", "run host");
	is_str(run.version, "9.9.9", "run version");
	ok(run.error == NULL, "no error");
	ok(!memcmp(&run.drive, &fx.d, sizeof(run.drive)), "the run's drive is joined in");
	store_run_clear(&run);
	is_int(store_run_set_state(fx.s, fx.r.id, "preconditioning", NULL, T0_NS + 10), 0,
	       "state preconditioning");
	is_int(store_run_set_state(fx.s, fx.r.id, "failed", "it broke", T0_NS + 20), 0,
	       "state failed, with an error");
	is_int(store_run_get(fx.s, fx.r.id, &run), 0, "read it back");
	is_str(run.state, "failed", "state failed");
	is_int(run.started_ns, T0_NS + 10, "started at the first active state");
	is_int(run.ended_ns, T0_NS + 20, "ended at failed");
	is_str(run.error, "it broke", "the error");
	store_run_clear(&run);
	is_int(store_run_set_state(fx.s, fx.r.id, "bogus", NULL, 0), -EINVAL,
	       "an unknown state: -EINVAL");
	is_int(store_run_set_state(fx.s, 999, "done", NULL, 0), -ENOENT, "no run 999: -ENOENT");
	is_int(store_run_get(fx.s, 999, &run), -ENOENT, "store_run_get 999: -ENOENT");

	/* phases */
	ph = fx.pre;
	snprintf(ph.state, sizeof(ph.state), "done");
	ph.started_ns = T0_NS + 100;
	ph.ended_ns = T0_NS + 200;
	ph.progress_bytes = 12345;
	ph.total_bytes = 67890;
	ph.rounds = 9;
	ph.steady = 1;
	ph.steady_round = 8;
	ph.result = fixture_result;
	is_int(store_phase_update(fx.s, &ph), 0, "store_phase_update");
	ph.result = NULL;
	is_int(store_phases_list(fx.s, fx.r.id, &list, &nlist), 0, "store_phases_list");
	is_u64(nlist, 2, "two phases");
	if (nlist == 2) {
		is_int(list[0].seq, 1, "in seq order");
		is_str(list[0].kind, "precondition", "phase kind");
		is_str(list[0].name, "4k-randwrite", "phase name");
		is_str(list[0].params, "{\"criterion\":\"snia\",\"window\":5}", "phase params");
		is_str(list[0].state, "done", "phase state");
		is_int(list[0].started_ns, T0_NS + 100, "phase started");
		is_int(list[0].ended_ns, T0_NS + 200, "phase ended");
		is_u64(list[0].progress_bytes, 12345, "phase progress");
		is_u64(list[0].total_bytes, 67890, "phase total");
		is_int(list[0].rounds, 9, "phase rounds");
		is_int(list[0].steady, 1, "phase steady");
		is_int(list[0].steady_round, 8, "phase steady_round");
		is_str(list[0].result, "{\"steady_round\":8}", "phase result");
		is_int(list[1].steady, -1, "an unjudged phase: steady -1");
		is_str(list[1].params, "{}", "default params {}");
		ok(list[1].result == NULL, "no result yet");
	}
	store_phases_free(list, nlist);
	ph.result = NULL; /* keeps the result */
	ph.rounds = 10;
	is_int(store_phase_update(fx.s, &ph), 0, "update without a result");
	/* read back the way the programs do: the run's phases */
	is_int(store_phases_list(fx.s, fx.r.id, &list, &nlist), 0, "list the phases again");
	for (size_t i = 0; i < nlist; i++)
		if (list[i].id == fx.pre.id)
			got = &list[i];
	ok(got != NULL, "the updated phase is listed");
	if (got) {
		is_int(got->rounds, 10, "rounds updated");
		is_str(got->result, "{\"steady_round\":8}", "a NULL result keeps the old one");
	}
	store_phases_free(list, nlist);

	/* samples, with and without histograms, one partial */
	is_int(store_begin(fx.s), 0, "begin");
	for (int i = 0; i < 4; i++) {
		make_sample(&in[i], i + 1, T0_NS + i * 60 * SEC_NS, 60 * SEC_NS, 100u * (unsigned)i,
			    300 + 50u * (unsigned)i, i != 2);
		in[i].partial = i == 3;
		in_h[i][0] = hist_rd;
		in_h[i][1] = hist_wr;
		is_int(store_sample_insert(fx.s, fx.pre.id, &in[i]), 0, "insert sample %d", i + 1);
	}
	is_int(store_commit(fx.s), 0, "commit");
	is_int(store_sample_insert(fx.s, fx.pre.id, &in[0]), -EEXIST,
	       "the same seq twice: -EEXIST");
	{
		struct sample bad = in[0];

		bad.seq = 9;
		bad.end_ns = bad.start_ns;
		is_int(store_sample_insert(fx.s, fx.pre.id, &bad), -EINVAL,
		       "end_ns == start_ns: -EINVAL");
		bad.end_ns = bad.start_ns + 1;
		bad.seq = 0;
		is_int(store_sample_insert(fx.s, fx.pre.id, &bad), -EINVAL, "seq 0: -EINVAL");
	}
	is_int(store_sample_count(fx.s, fx.pre.id), 4, "4 samples");
	is_int(store_sample_last_seq(fx.s, fx.pre.id, &last), 0, "store_sample_last_seq");
	is_int(last, 4, "last seq 4");
	is_int(store_sample_last_seq(fx.s, fx.sweep.id, &last), 0, "last seq of an empty phase");
	is_int(last, 0, "is 0");

	rows_init(&rows);
	is_int(store_samples_foreach(fx.s, fx.pre.id, 1, STORE_WITH_HISTS, rows_sample, &rows), 0,
	       "store_samples_foreach with histograms");
	is_u64(rows.n, 4, "4 rows");
	for (size_t i = 0; i < rows.n && i < 4; i++) {
		ok(same_stats(&rows.smp[i], &in[i]), "sample %zu: every statistic round trips",
		   i + 1);
		if (i == 2) {
			ok(!rows.had_hist[i][0] && !rows.had_hist[i][1],
			   "sample 3 was stored without histograms");
			continue;
		}
		ok(rows.had_hist[i][0] && rows.had_hist[i][1], "sample %zu has both histograms",
		   i + 1);
		ok(same_hist(rows_hist(&rows, i, 0), &in_h[i][0]),
		   "sample %zu: read histogram identical, bucket by bucket", i + 1);
		ok(same_hist(rows_hist(&rows, i, 1), &in_h[i][1]),
		   "sample %zu: write histogram identical, bucket by bucket", i + 1);
	}
	ok(rows.n == 4 && rows.smp[3].partial && !rows.smp[2].partial, "partial round trips");
	is_int(hist_count(rows_hist(&rows, 0, 0)), 0, "sample 1: an empty read histogram");

	memset(rows.smp, 0, sizeof(rows.smp));
	rows.n = 0;
	is_int(store_samples_foreach(fx.s, fx.pre.id, 3, 0, rows_sample, &rows), 0,
	       "store_samples_foreach from seq 3 without histograms");
	is_u64(rows.n, 2, "2 rows from seq 3");
	ok(rows.n == 2 && rows.smp[0].seq == 3 && !rows.had_hist[1][0] && !rows.had_hist[1][1],
	   "seq 3 first, no histograms decoded");
	is_int(store_samples_foreach(fx.s, fx.pre.id, 1, 0, stop_at_two, &stop), 42,
	       "a callback's nonzero return stops the walk and is returned");
	is_int(stop, 2, "after the second row");

	/* points */
	{
		struct store_point pt = {.seq = 1, .threads = 4, .iodepth = 32};
		struct hist ph_rd, ph_wr;

		make_sample(&pt.smp, 1, T0_NS, 30 * SEC_NS, 500, 700, true);
		ph_rd = hist_rd;
		ph_wr = hist_wr;
		is_int(store_point_insert(fx.s, fx.sweep.id, &pt), 0, "insert point 4x32");
		pt.seq = 2;
		pt.threads = 0;
		is_int(store_point_insert(fx.s, fx.sweep.id, &pt), -EINVAL, "0 threads: -EINVAL");
		memset(rows.pt, 0, sizeof(rows.pt));
		rows.n = 0;
		is_int(store_points_foreach(fx.s, fx.sweep.id, STORE_WITH_HISTS, rows_point, &rows),
		       0, "store_points_foreach");
		is_u64(rows.n, 1, "one point");
		if (rows.n == 1) {
			is_int(rows.pt[0].seq, 1, "point seq");
			is_int(rows.pt[0].threads, 4, "point threads");
			is_int(rows.pt[0].iodepth, 32, "point iodepth");
			pt.threads = 4;
			pt.seq = 1;
			ok(same_stats(&rows.pt[0].smp, &pt.smp), "point statistics round trip");
			ok(same_hist(rows_hist(&rows, 0, 0), &ph_rd) &&
				   same_hist(rows_hist(&rows, 0, 1), &ph_wr),
			   "point histograms identical");
		}
	}
	free(rows.h);

	/* events */
	{
		struct store_event e1 = {.run_id = fx.r.id,
					 .time_ns = T0_NS + 1,
					 .kind = "steady",
					 .message = "steady at round 8",
					 .data = "{\"round\":8}"};
		struct store_event e2 = {.run_id = fx.r.id,
					 .phase_id = fx.pre.id,
					 .kind = "note",
					 .message = "hello"};
		struct store_event e3 = {.run_id = fx.r.id, .kind = "", .message = "x"};

		is_int(store_event_insert(fx.s, &e1), 0, "insert event 1");
		is_int(store_event_insert(fx.s, &e2), 0, "insert event 2 (time from the clock)");
		ok(e2.id > e1.id && e2.time_ns > T0_NS / 2, "ids ascend, time filled in");
		is_int(store_event_insert(fx.s, &e3), -EINVAL, "an event without kind: -EINVAL");
		struct ev_rows er = {0};

		is_int(store_events_foreach(fx.s, fx.r.id, NULL, 0, events_cb, &er), 0,
		       "store_events_foreach");
		is_str(er.kinds, "steady,note", "both events, oldest first");
		ok(er.phase[0] == 0 && er.phase[1] == fx.pre.id, "phase ids (0: none)");
		ok(!er.data_null[0] && er.data_null[1], "data and NULL data");
		is_str(er.message, "hello", "the message");
		memset(&er, 0, sizeof(er));
		is_int(store_events_foreach(fx.s, fx.r.id, "note", 0, events_cb, &er), 0,
		       "events of one kind");
		is_str(er.kinds, "note", "only the note");
		memset(&er, 0, sizeof(er));
		is_int(store_events_foreach(fx.s, fx.r.id, NULL, e1.id, events_cb, &er), 0,
		       "events after an id");
		is_str(er.kinds, "note", "only the later one");
	}
	store_close(fx.s);
}

struct runs_seen {
	char names[256];
};

static int runs_cb(void *ctx, const struct store_run *r)
{
	struct runs_seen *x = ctx;
	size_t l = strlen(x->names);

	snprintf(x->names + l, sizeof(x->names) - l, "%s%s", l ? "," : "", r->name);
	return 0;
}

static void test_runs_filter(void)
{
	struct fixture fx;
	struct store_run r2 = {0}, r3 = {0};
	struct store_drive d2;
	struct runs_seen seen;
	struct store_run_filter f;

	fixture_open(&fx, "filter.db");
	d2 = fx.d;
	d2.id = 0;
	snprintf(d2.serial, sizeof(d2.serial), "OTHER");
	snprintf(d2.eui64, sizeof(d2.eui64), "eui-other");
	snprintf(d2.path, sizeof(d2.path), "/dev/sdz");
	if (store_drive_upsert(fx.s, &d2))
		bail_out("%s", store_errmsg(fx.s));
	r2 = fx.r;
	r2.id = 0;
	r2.uuid[0] = '\0'; /* a new run: a uuid of its own */
	r2.drive_id = d2.id;
	snprintf(r2.name, sizeof(r2.name), "second");
	r2.created_ns = T0_NS + 100;
	r3 = r2;
	snprintf(r3.name, sizeof(r3.name), "third");
	r3.drive_id = fx.d.id;
	r3.created_ns = T0_NS + 200;
	if (store_run_insert(fx.s, &r2) || store_run_insert(fx.s, &r3) ||
	    store_run_set_state(fx.s, r2.id, "done", NULL, T0_NS + 150))
		bail_out("%s", store_errmsg(fx.s));

	memset(&seen, 0, sizeof(seen));
	is_int(store_runs_foreach(fx.s, NULL, runs_cb, &seen), 0, "all runs");
	is_str(seen.names, "unit-run,second,third", "oldest first");
	f = (struct store_run_filter){.serial = "OTHER"};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "second", "by serial");
	f = (struct store_run_filter){.serial = "eui-other"};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "second", "by EUI64");
	f = (struct store_run_filter){.state = "active"};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "unit-run,third", "active");
	f = (struct store_run_filter){.state = "done"};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "second", "done");
	f = (struct store_run_filter){.since_ns = T0_NS + 100, .until_ns = T0_NS + 200};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "second", "since (inclusive) and until (exclusive)");
	f = (struct store_run_filter){.drive_path = "/dev/sdz"};
	memset(&seen, 0, sizeof(seen));
	store_runs_foreach(fx.s, &f, runs_cb, &seen);
	is_str(seen.names, "second", "by drive path");
	store_close(fx.s);
}

/*
 * store_series: one value per full round, in the metric's units, for every
 * metric: all I/O as in rows[], writes the same, reads a quarter of the
 * I/O at three times the latency, so that a metric read from the wrong
 * column or direction shows
 */
static void test_series(void)
{
	/* a_ios, a_bytes, a_lat_mean_ns, a_lat_stddev_ns, a_lat_max_ns, a_lat_p99_ns, seconds */
	static const struct {
		uint64_t ios, bytes;
		double mean_ns, stddev_ns;
		uint64_t max_ns, p99_ns;
		int secs;
		bool partial;
	} rows[] = {
		{6000000, 24576000000ULL, 250000.0, 62500.0, 2000000, 625000, 60, false},
		{1500000, 6144000000ULL, 80000.0, 1000.5, 900000, 300000, 30, false},
		{10, 40960, 1.0, 0.0, 1, 1, 1, true},
		{0, 0, 0.0, 0.0, 0, 0, 60, false},
	};
	/* all I/O per statistic (percentiles: p99); lat-min is max/10, the
	 * other percentiles p99 times pct_scale[] */
	static const double want_all[SAMPLE_STAT_PCT + 1][3] = {
		[SAMPLE_STAT_IOPS] = {100000.0, 50000.0, 0.0},	/* ios / s */
		[SAMPLE_STAT_BW] = {409.6, 204.8, 0.0},		/* 10^6 bytes / s */
		[SAMPLE_STAT_LAT_MEAN] = {250.0, 80.0, 0.0},	/* us */
		[SAMPLE_STAT_LAT_MIN] = {200.0, 90.0, 0.0},	/* us */
		[SAMPLE_STAT_LAT_MAX] = {2000.0, 900.0, 0.0},	/* us */
		[SAMPLE_STAT_LAT_STDDEV] = {62.5, 1.0005, 0.0}, /* us */
		[SAMPLE_STAT_PCT] = {625.0, 300.0, 0.0},	/* us, p99 */
	};
	static const uint64_t pct_scale[SAMPLE_NPCT] = {1, 2, 4, 8, 16}; /* x p99 / 4 */
	struct fixture fx;
	int64_t t = T0_NS;

	fixture_open(&fx, "series.db");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sample smp = {
			.seq = (int64_t)i + 1, .start_ns = t, .partial = rows[i].partial};
		struct sample_stats *a = &smp.st[SAMPLE_ALL], *rd = &smp.st[SAMPLE_READ];

		smp.end_ns = t + rows[i].secs * SEC_NS;
		t = smp.end_ns;
		a->ios = rows[i].ios;
		a->bytes = rows[i].bytes;
		a->lat_mean_ns = rows[i].mean_ns;
		a->lat_stddev_ns = rows[i].stddev_ns;
		a->lat_max_ns = rows[i].max_ns;
		a->lat_min_ns = rows[i].max_ns / 10;
		for (int k = 0; k < SAMPLE_NPCT; k++)
			a->lat_pct_ns[k] = rows[i].p99_ns * pct_scale[k] / 4;
		smp.st[SAMPLE_WRITE] = *a;
		rd->ios = a->ios / 4;
		rd->bytes = a->bytes / 4;
		rd->lat_mean_ns = a->lat_mean_ns * 3;
		rd->lat_stddev_ns = a->lat_stddev_ns * 3;
		rd->lat_max_ns = a->lat_max_ns * 3;
		rd->lat_min_ns = a->lat_min_ns * 3;
		for (int k = 0; k < SAMPLE_NPCT; k++)
			rd->lat_pct_ns[k] = a->lat_pct_ns[k] * 3;
		if (store_sample_insert(fx.s, fx.pre.id, &smp))
			bail_out("%s", store_errmsg(fx.s));
	}
	for (int m = 0; m < SAMPLE_METRIC_N; m++) {
		const char *name = sample_metric_name((enum sample_metric)m);
		enum sample_stat st = sample_metric_stat((enum sample_metric)m);
		bool rd = sample_metric_dir((enum sample_metric)m) == SAMPLE_READ;
		double *v = NULL;
		size_t n = 0;
		int r = store_series(fx.s, fx.pre.id, (enum sample_metric)m, &v, &n);

		is_int(r, 0, "store_series %s", name);
		is_u64(n, 3, "%s: 3 full rounds, the partial one left out", name);
		for (size_t i = 0; i < n && i < 3; i++) {
			double w = want_all[st][i];

			if (st == SAMPLE_STAT_PCT)
				w = w *
				    (double)pct_scale[sample_metric_pct((enum sample_metric)m)] / 4;
			if (rd)
				w *= st == SAMPLE_STAT_IOPS || st == SAMPLE_STAT_BW ? 0.25 : 3;
			is_dbl(v[i], w, 1e-9 * w + 1e-12, "%s round %zu = %g", name, i + 1, w);
		}
		free(v);
	}
	{
		double *v = (double *)0x1;
		size_t n = 7;

		is_int(store_series(fx.s, fx.sweep.id, SAMPLE_METRIC_IOPS, &v, &n), 0,
		       "series of a phase without samples");
		is_u64(n, 0, "is empty");
		free(v);
		is_int(store_series(fx.s, fx.pre.id, SAMPLE_METRIC_N, &v, &n), -EINVAL,
		       "an unknown metric: -EINVAL");
	}
	store_close(fx.s);
}

/* Rows that break the schema's promises, written past its CHECKs. */
static void test_bad_rows(void)
{
	struct fixture fx;
	struct sample smp;
	struct store_run run;
	struct rows rows;
	double *v = NULL;
	size_t n = 0;
	sqlite3 *db;
	int r;

	fixture_open(&fx, "bad.db");
	for (int i = 1; i <= 4; i++) {
		make_sample(&smp, i, T0_NS + (i - 1) * 60 * SEC_NS, 60 * SEC_NS, 5, 7, true);
		if (store_sample_insert(fx.s, fx.pre.id, &smp))
			bail_out("%s", store_errmsg(fx.s));
	}
	store_close(fx.s);

	db = raw_open(path_of("bad.db"));
	/* sample 2: garbage instead of a histogram; sample 3: a valid blob with
	 * one byte flipped (the CRC catches it); sample 4: a valid histogram of
	 * the wrong sample (its count disagrees with w_ios) */
	raw_exec(db, "UPDATE samples SET r_hist = x'504c4801deadbeef' WHERE seq = 2");
	raw_flip_byte(db, "w_hist", 3, 12);
	raw_exec(db, "UPDATE samples SET w_ios = w_ios + 1 WHERE seq = 4");
	sqlite3_close(db);

	if (store_open(path_of("bad.db"), STORE_RDONLY, &fx.s, NULL, 0))
		bail_out("reopen bad.db");
	rows_init(&rows);
	r = store_samples_foreach(fx.s, fx.pre.id, 1, STORE_WITH_HISTS, rows_sample, &rows);
	is_int(r, -EBADMSG, "a corrupt histogram blob: -EBADMSG");
	ok(strstr(store_errmsg(fx.s), "sample 2") && strstr(store_errmsg(fx.s), "histogram"),
	   "the message names the sample and the histogram: %s", store_errmsg(fx.s));
	ok(strstr(store_errmsg(fx.s), "bad.db") != NULL, "and the file");
	is_u64(rows.n, 1, "the good sample before it was delivered");
	rows.n = 0;
	r = store_samples_foreach(fx.s, fx.pre.id, 3, STORE_WITH_HISTS, rows_sample, &rows);
	is_int(r, -EBADMSG, "a blob with a flipped byte: -EBADMSG");
	ok(strstr(store_errmsg(fx.s), "sample 3") && strstr(store_errmsg(fx.s), "write histogram"),
	   "names sample 3's write histogram: %s", store_errmsg(fx.s));
	rows.n = 0;
	r = store_samples_foreach(fx.s, fx.pre.id, 4, STORE_WITH_HISTS, rows_sample, &rows);
	is_int(r, -EBADMSG, "a histogram whose count disagrees with the row: -EBADMSG");
	ok(strstr(store_errmsg(fx.s), "sample 4") != NULL, "names sample 4: %s",
	   store_errmsg(fx.s));
	rows.n = 0;
	is_int(store_samples_foreach(fx.s, fx.pre.id, 1, 0, rows_sample, &rows), 0,
	       "without STORE_WITH_HISTS the blobs are not read");
	is_u64(rows.n, 4, "all 4 samples");
	free(rows.h);
	store_close(fx.s);

	db = raw_open(path_of("bad.db"));
	raw_exec(db, "PRAGMA ignore_check_constraints = ON");
	raw_exec(db, "UPDATE samples SET end_ns = start_ns WHERE seq = 2");
	raw_exec(db, "UPDATE runs SET state = 'bogus'");
	sqlite3_close(db);
	if (store_open(path_of("bad.db"), STORE_RDONLY, &fx.s, NULL, 0))
		bail_out("reopen bad.db");
	r = store_series(fx.s, fx.pre.id, SAMPLE_METRIC_IOPS, &v, &n);
	is_int(r, -EBADMSG, "store_series over end_ns == start_ns: -EBADMSG");
	ok(strstr(store_errmsg(fx.s), "sample 2") != NULL, "names sample 2: %s",
	   store_errmsg(fx.s));
	rows_init(&rows);
	r = store_samples_foreach(fx.s, fx.pre.id, 1, 0, rows_sample, &rows);
	is_int(r, -EBADMSG, "store_samples_foreach over end_ns == start_ns: -EBADMSG");
	free(rows.h);
	r = store_run_get(fx.s, fx.r.id, &run);
	is_int(r, -EBADMSG, "a run in state 'bogus': -EBADMSG");
	ok(strstr(store_errmsg(fx.s), "runs row 1") && strstr(store_errmsg(fx.s), "bogus"),
	   "names the row and the state: %s", store_errmsg(fx.s));
	store_close(fx.s);
}

/* --- requesters (schema 3) --- */

#define REQ_CMD "plateau start nightly.plan"

static bool same_requester(const struct store_run *a, const struct store_run *b)
{
	if (a->requester_uid == b->requester_uid && a->requester_pid == b->requester_pid &&
	    !strcmp(a->requester_cmd, b->requester_cmd) &&
	    !strcmp(a->requester_via, b->requester_via))
		return true;
	diag("requester uid %lld pid %lld cmd '%s' via '%s', expected %lld %lld '%s' '%s'",
	     (long long)a->requester_uid, (long long)a->requester_pid, a->requester_cmd,
	     a->requester_via, (long long)b->requester_uid, (long long)b->requester_pid,
	     b->requester_cmd, b->requester_via);
	return false;
}

static bool requester_unknown(const struct store_run *r)
{
	return r->requester_uid == -1 && r->requester_pid == -1 && !*r->requester_cmd &&
	       !*r->requester_via;
}

/* "uid|pid|cmd|via" of run @id as stored, NULL as "NULL" */
static const char *raw_requester(const char *path, int64_t id)
{
	static char buf[512];
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT coalesce(typeof(requester_uid) || ':' || requester_uid, 'NULL') || '|' || "
		 "coalesce(typeof(requester_pid) || ':' || requester_pid, 'NULL') || '|' || "
		 "coalesce(requester_cmd, 'NULL') || '|' || coalesce(requester_via, 'NULL') "
		 "FROM runs WHERE id = %lld",
		 (long long)id);
	buf[0] = '\0';
	raw_int(path, sql, buf, sizeof(buf));
	return buf;
}

struct req_rows {
	size_t n;
	int64_t id[8];
	struct store_run req[8]; /* the requester parts only */
};

static int req_cb(void *ctx, const struct store_run *r)
{
	struct req_rows *x = ctx;

	if (x->n >= 8)
		return -E2BIG;
	x->id[x->n] = r->id;
	store_run_init(&x->req[x->n]);
	x->req[x->n].requester_uid = r->requester_uid;
	x->req[x->n].requester_pid = r->requester_pid;
	memcpy(x->req[x->n].requester_cmd, r->requester_cmd, sizeof(r->requester_cmd));
	memcpy(x->req[x->n].requester_via, r->requester_via, sizeof(r->requester_via));
	x->n++;
	return 0;
}

/* a run like the fixture's, its requester left to the caller */
static void req_run(struct store_run *r, const struct fixture *fx, const char *name)
{
	store_run_init(r);
	r->drive_id = fx->d.id;
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->state, sizeof(r->state), "queued");
	r->plan = fixture_plan;
	r->created_ns = T0_NS + 1000;
	snprintf(r->host, sizeof(r->host), "lab9");
	snprintf(r->version, sizeof(r->version), "9.9.9");
}

static void test_requester(void)
{
	struct fixture fx;
	struct store_run init, known, unknown, root, neg, longcmd, bad, got;
	struct req_rows rows = {0};
	int64_t nruns;
	int r;

	/* store_run_init: everything zero but the requester, which is unknown */
	memset(&init, 0x5a, sizeof(init));
	store_run_init(&init);
	ok(requester_unknown(&init), "store_run_init: requester -1, -1, \"\", \"\"");
	ok(init.id == 0 && init.plan == NULL && init.error == NULL && !*init.name &&
		   init.drive.id == 0,
	   "store_run_init: the rest zeroed");

	fixture_open(&fx, "requester.db");

	/* the fixture's run is a zeroed struct (as callers made them before
	 * store_run_init): unknown, not uid 0 = root */
	is_str(raw_requester(path_of("requester.db"), fx.r.id), "NULL|NULL|NULL|NULL",
	       "a zeroed struct store_run stores an unknown requester (NULLs), not uid 0");
	is_int(store_run_get(fx.s, fx.r.id, &got), 0, "read the zeroed one back");
	ok(requester_unknown(&got), "it reads back unknown: -1, -1, \"\", \"\"");
	store_run_clear(&got);

	/* every part known */
	req_run(&known, &fx, "known");
	known.requester_uid = 1000;
	known.requester_pid = 4242;
	snprintf(known.requester_cmd, sizeof(known.requester_cmd), REQ_CMD);
	snprintf(known.requester_via, sizeof(known.requester_via), STORE_VIA_DAEMON);
	is_int(store_run_insert(fx.s, &known), 0, "insert a run with its requester");
	is_str(raw_requester(path_of("requester.db"), known.id),
	       "integer:1000|integer:4242|" REQ_CMD "|plateaud", "stored as integers and text");
	is_int(store_run_get(fx.s, known.id, &got), 0, "read it back");
	ok(same_requester(&got, &known), "uid, pid, command and via read back identical");
	is_str(got.name, "known", "the rest of the run too");
	store_run_clear(&got);

	/* every part unknown, from store_run_init */
	req_run(&unknown, &fx, "unknown");
	is_int(store_run_insert(fx.s, &unknown), 0, "insert a run with an unknown requester");
	is_str(raw_requester(path_of("requester.db"), unknown.id), "NULL|NULL|NULL|NULL",
	       "stored as NULLs");
	is_int(store_run_get(fx.s, unknown.id, &got), 0, "read it back");
	ok(requester_unknown(&got), "reads back -1, -1, \"\", \"\"");
	store_run_clear(&got);

	/* root, said explicitly, is recorded; an empty command is unknown */
	req_run(&root, &fx, "root");
	root.requester_uid = 0;
	root.requester_pid = 1;
	snprintf(root.requester_via, sizeof(root.requester_via), STORE_VIA_CLI);
	is_int(store_run_insert(fx.s, &root), 0, "insert a run requested by root, no command");
	is_str(raw_requester(path_of("requester.db"), root.id),
	       "integer:0|integer:1|NULL|plateau run", "uid 0 stored, the command NULL");
	is_int(store_run_get(fx.s, root.id, &got), 0, "read it back");
	ok(same_requester(&got, &root), "uid 0, pid 1, no command, via plateau run");
	store_run_clear(&got);

	/* any negative uid or pid is unknown */
	req_run(&neg, &fx, "negative");
	neg.requester_uid = -7;
	neg.requester_pid = -2;
	snprintf(neg.requester_cmd, sizeof(neg.requester_cmd), "x");
	is_int(store_run_insert(fx.s, &neg), 0, "insert a run with uid -7, pid -2");
	is_str(raw_requester(path_of("requester.db"), neg.id), "NULL|NULL|x|NULL",
	       "a negative uid and pid are stored as NULL");
	is_int(store_run_get(fx.s, neg.id, &got), 0, "read it back");
	ok(got.requester_uid == -1 && got.requester_pid == -1 && !strcmp(got.requester_cmd, "x"),
	   "as -1, -1");
	store_run_clear(&got);

	/* the longest command the struct holds */
	req_run(&longcmd, &fx, "long");
	longcmd.requester_uid = 4294967294LL;
	longcmd.requester_pid = 2147483647LL;
	memset(longcmd.requester_cmd, 'c', sizeof(longcmd.requester_cmd) - 1);
	snprintf(longcmd.requester_via, sizeof(longcmd.requester_via), STORE_VIA_CLI);
	is_int(store_run_insert(fx.s, &longcmd), 0,
	       "insert the largest uid and pid, a 255-byte command");
	is_int(store_run_get(fx.s, longcmd.id, &got), 0, "read it back");
	ok(same_requester(&got, &longcmd), "read back identical");
	store_run_clear(&got);

	/* what the schema would refuse is refused before it gets there */
	nruns = raw_int(path_of("requester.db"), "SELECT count(*) FROM runs", NULL, 0);
	req_run(&bad, &fx, "bad");
	bad.requester_uid = 1000;
	bad.requester_pid = 4242;
	snprintf(bad.requester_via, sizeof(bad.requester_via), "telnet");
	is_int(store_run_insert(fx.s, &bad), -EINVAL, "via 'telnet': -EINVAL");
	ok(strstr(store_errmsg(fx.s), "telnet") != NULL, "names it: %s", store_errmsg(fx.s));
	bad.requester_via[0] = '\0';
	bad.requester_pid = 0;
	is_int(store_run_insert(fx.s, &bad), -EINVAL,
	       "pid 0 with a uid set (a struct half filled in): -EINVAL");
	ok(strstr(store_errmsg(fx.s), "pid 0") != NULL, "says so: %s", store_errmsg(fx.s));
	bad.requester_pid = 4242;
	bad.requester_uid = 4294967295LL;
	is_int(store_run_insert(fx.s, &bad), -EINVAL, "uid 4294967295 ((uid_t)-1): -EINVAL");
	is_int(raw_int(path_of("requester.db"), "SELECT count(*) FROM runs", NULL, 0), nruns,
	       "and none of them was stored");

	/* store_runs_foreach reads them the same way */
	is_int(store_runs_foreach(fx.s, NULL, req_cb, &rows), 0, "store_runs_foreach");
	is_u64(rows.n, 6, "six runs");
	if (rows.n == 6) {
		ok(requester_unknown(&rows.req[0]), "foreach: the zeroed one unknown");
		ok(same_requester(&rows.req[1], &known), "foreach: the known one");
		ok(requester_unknown(&rows.req[2]), "foreach: the unknown one");
		ok(same_requester(&rows.req[3], &root), "foreach: root's");
		ok(same_requester(&rows.req[5], &longcmd), "foreach: the long one");
	}
	store_close(fx.s);

	/* what a broken writer could leave past the CHECKs: refused on reading,
	 * naming the run and the column */
	{
		static const struct {
			const char *set, *column;
		} corrupt[] = {
			{"requester_uid = -3", "requester_uid"},
			{"requester_uid = 'root'", "requester_uid"},
			{"requester_pid = 0", "requester_pid"},
			{"requester_pid = -4242", "requester_pid"},
			{"requester_via = 'telnet'", "requester_via"},
			{"requester_via = ''", "requester_via"},
		};
		sqlite3 *db = raw_open(path_of("requester.db"));
		char want[64];

		ok(sqlite3_exec(db, "UPDATE runs SET requester_uid = -3 WHERE id = 2", NULL, NULL,
				NULL) == SQLITE_CONSTRAINT,
		   "the schema's CHECK refuses a negative uid");
		if (store_open(path_of("requester.db"), STORE_RDONLY, &fx.s, NULL, 0))
			bail_out("reopen requester.db");
		snprintf(want, sizeof(want), "runs row %lld", (long long)known.id);
		for (size_t i = 0; i < sizeof(corrupt) / sizeof(corrupt[0]); i++) {
			raw_exec(db,
				 "PRAGMA ignore_check_constraints = ON; UPDATE runs SET %s WHERE "
				 "id = %lld; PRAGMA ignore_check_constraints = OFF",
				 corrupt[i].set, (long long)known.id);
			r = store_run_get(fx.s, known.id, &got);
			is_int(r, -EBADMSG, "%s: store_run_get -EBADMSG", corrupt[i].set);
			ok(strstr(store_errmsg(fx.s), want) &&
				   strstr(store_errmsg(fx.s), corrupt[i].column),
			   "names the run and the column: %s", store_errmsg(fx.s));
			store_run_clear(&got);
			rows.n = 0;
			is_int(store_runs_foreach(fx.s, NULL, req_cb, &rows), -EBADMSG,
			       "%s: store_runs_foreach -EBADMSG", corrupt[i].set);
			raw_exec(db,
				 "UPDATE runs SET requester_uid = 1000, requester_pid = 4242, "
				 "requester_via = 'plateaud' WHERE id = %lld",
				 (long long)known.id);
		}
		is_int(store_run_get(fx.s, known.id, &got), 0, "repaired, it reads again");
		store_run_clear(&got);
		store_close(fx.s);
		sqlite3_close(db);
	}
}

/* A database at schema 2, the last without requesters: migrated on open, its
 * runs read back with an unknown requester, new runs get theirs. */
static void test_requester_migrate(void)
{
	struct store *s = NULL;
	struct store_run run, got;
	char err[512] = "";
	int r;

	make_old_db(path_of("req-v2.db"), 2);
	is_int(raw_int(path_of("req-v2.db"),
		       "SELECT count(*) FROM pragma_table_info('runs') WHERE name LIKE "
		       "'requester%'",
		       NULL, 0),
	       0, "schema 2: runs has no requester columns");
	r = store_open(path_of("req-v2.db"), 0, &s, err, sizeof(err));
	is_int(r, 0, "a schema-2 database opens as a writer");
	if (r)
		bail_out("%s", err);
	is_int(store_version(s), store_latest_version(), "and is migrated to %d",
	       store_latest_version());
	is_int(raw_int(path_of("req-v2.db"),
		       "SELECT count(*) FROM pragma_table_info('runs') WHERE name LIKE "
		       "'requester%'",
		       NULL, 0),
	       4, "runs has the four requester columns");
	is_str(raw_requester(path_of("req-v2.db"), 1), "NULL|NULL|NULL|NULL",
	       "the old run's requester is NULL");
	is_int(store_run_get(s, 1, &got), 0, "the old run reads");
	ok(requester_unknown(&got), "with an unknown requester (-1, -1, \"\", \"\")");
	is_str(got.name, "old-run", "and the rest as it was");
	store_run_clear(&got);

	store_run_init(&run);
	run.drive_id = 1;
	snprintf(run.name, sizeof(run.name), "new-run");
	snprintf(run.state, sizeof(run.state), "queued");
	snprintf(run.host, sizeof(run.host), "h");
	snprintf(run.version, sizeof(run.version), "9.9.9");
	run.requester_uid = 1000;
	run.requester_pid = 4242;
	snprintf(run.requester_cmd, sizeof(run.requester_cmd), REQ_CMD);
	snprintf(run.requester_via, sizeof(run.requester_via), STORE_VIA_DAEMON);
	is_int(store_run_insert(s, &run), 0, "a new run in the migrated database");
	is_int(store_run_get(s, run.id, &got), 0, "reads back");
	ok(same_requester(&got, &run), "with its requester");
	store_run_clear(&got);
	store_close(s);
}

/* --- run uuids (schema 5) --- */

struct uuid_rows {
	size_t n;
	char uuid[8][STORE_UUID_LEN + 1];
	char host[8][128];
};

static int uuid_cb(void *ctx, const struct store_run *r)
{
	struct uuid_rows *x = ctx;

	if (x->n >= 8)
		return -E2BIG;
	snprintf(x->uuid[x->n], sizeof(x->uuid[0]), "%s", r->uuid);
	snprintf(x->host[x->n], sizeof(x->host[0]), "%s", r->host);
	x->n++;
	return 0;
}

/* A schema-4 database with three runs: each gets its own valid uuid. */
static void test_uuid_migrate(void)
{
	struct uuid_rows rows = {0};
	struct store *s = NULL;
	struct store_run run, got;
	char err[512] = "", uuid[STORE_UUID_LEN + 1], uuid2[STORE_UUID_LEN + 1];
	sqlite3 *db;
	bool distinct = true, valid = true;
	int r;

	make_old_db(path_of("uuid-v4.db"), 4);
	db = raw_open(path_of("uuid-v4.db"));
	raw_exec(db,
		 "INSERT INTO runs (id, drive_id, name, plan, state, created_ns, host, version) "
		 "VALUES (2, 1, 'b', '', 'done', 2, 'h2', '0.0.1'), "
		 "(3, 1, 'c', '', 'failed', 3, 'h3', '0.0.1')");
	sqlite3_close(db);
	is_int(raw_int(path_of("uuid-v4.db"),
		       "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'uuid'", NULL,
		       0),
	       0, "schema 4: runs has no uuid");
	r = store_open(path_of("uuid-v4.db"), 0, &s, err, sizeof(err));
	is_int(r, 0, "a schema-4 database opens as a writer");
	if (r)
		bail_out("%s", err);
	is_int(store_version(s), store_latest_version(), "and is migrated");
	is_int(raw_int(path_of("uuid-v4.db"), "SELECT count(*) FROM runs WHERE uuid IS NULL", NULL,
		       0),
	       0, "every old run has a uuid");
	is_int(raw_int(path_of("uuid-v4.db"), "SELECT count(DISTINCT uuid) FROM runs", NULL, 0), 3,
	       "three runs, three distinct uuids");
	is_int(store_runs_foreach(s, NULL, uuid_cb, &rows), 0, "the runs read back");
	is_int((int64_t)rows.n, 3, "all three");
	for (size_t i = 0; i < rows.n; i++) {
		valid &= store_uuid_valid(rows.uuid[i]) && rows.uuid[i][14] == '4' &&
			 strchr("89ab", rows.uuid[i][19]);
		for (size_t j = 0; j < i; j++)
			distinct &= strcmp(rows.uuid[i], rows.uuid[j]) != 0;
	}
	ok(valid, "each a version 4 UUID: %s %s %s", rows.uuid[0], rows.uuid[1], rows.uuid[2]);
	ok(distinct, "read back distinct");
	is_str(rows.host[2], "h3", "the host is kept beside it");

	/* new runs: a fresh one each, a given one kept */
	store_run_init(&run);
	run.drive_id = 1;
	snprintf(run.name, sizeof(run.name), "new");
	snprintf(run.state, sizeof(run.state), "queued");
	snprintf(run.host, sizeof(run.host), "h4");
	is_int(store_run_insert(s, &run), 0, "a new run without a uuid");
	ok(store_uuid_valid(run.uuid), "gets one: %s", run.uuid);
	is_int(store_run_get(s, run.id, &got), 0, "reads back");
	is_str(got.uuid, run.uuid, "with that uuid");
	is_str(got.host, "h4", "and its host");
	store_run_clear(&got);

	snprintf(uuid, sizeof(uuid), "%s", run.uuid);
	store_run_init(&run);
	run.drive_id = 1;
	snprintf(run.name, sizeof(run.name), "dup");
	snprintf(run.state, sizeof(run.state), "done");
	snprintf(run.uuid, sizeof(run.uuid), "%s", uuid);
	is_int(store_run_insert(s, &run), -EEXIST, "a uuid already stored: -EEXIST");
	snprintf(run.uuid, sizeof(run.uuid), "0123ABCD-0000-4000-8000-000000000000");
	is_int(store_run_insert(s, &run), -EINVAL, "an uppercase uuid: -EINVAL");
	ok(strstr(store_errmsg(s), "0123ABCD") != NULL, "naming it: %s", store_errmsg(s));
	snprintf(run.uuid, sizeof(run.uuid), "0123abcd-0000-4000-8000-00000000000");
	is_int(store_run_insert(s, &run), -EINVAL, "a short uuid: -EINVAL");
	snprintf(run.uuid, sizeof(run.uuid), "0123abcd-0000-4000-8000-000000000000");
	is_int(store_run_insert(s, &run), 0, "a given valid uuid is stored");
	is_int(store_run_get(s, run.id, &got), 0, "reads back");
	is_str(got.uuid, "0123abcd-0000-4000-8000-000000000000", "as given");
	store_run_clear(&got);
	store_close(s);

	ok(store_uuid_new(uuid) == 0 && store_uuid_new(uuid2) == 0 && strcmp(uuid, uuid2),
	   "two new uuids differ");

	/* a row written past the CHECK reads as corrupt, not as a cut uuid */
	db = raw_open(path_of("uuid-v4.db"));
	raw_exec(db, "PRAGMA ignore_check_constraints = ON; UPDATE runs SET uuid = "
		     "'0123abcd-0000-4000-8000-000000000000x' WHERE id = 1");
	sqlite3_close(db);
	r = store_open(path_of("uuid-v4.db"), STORE_RDONLY, &s, err, sizeof(err));
	is_int(r, 0, "reopens read-only");
	if (!r) {
		is_int(store_run_get(s, 1, &got), -EBADMSG, "a 37-character uuid: -EBADMSG");
		ok(strstr(store_errmsg(s), "uuid") != NULL, "naming the column: %s",
		   store_errmsg(s));
		store_close(s);
	}
}

/* store_run_find_uuid() and store_copy_runs(): the library's side of
 * RUN by uuid and of export / import */
static int count_cb(void *ctx, const struct store_run *r)
{
	(void)r;
	(*(int *)ctx)++;
	return 0;
}

static void test_copy(void)
{
	struct fixture src;
	struct store *dst = NULL;
	struct store_copied out[2];
	struct store_run got;
	struct sample smp = {.seq = 1, .start_ns = T0_NS, .end_ns = T0_NS + 60 * SEC_NS};
	struct store_event ev = {.kind = "steady-reached", .message = "steady", .time_ns = T0_NS};
	int64_t ids[4], two[2];
	char err[512], hex[40];
	int n = 0;

	fixture_open(&src, "copy-src.db");
	smp.st[SAMPLE_WRITE].ios = smp.st[SAMPLE_ALL].ios = 600;
	if (store_sample_insert(src.s, src.pre.id, &smp))
		bail_out("%s", store_errmsg(src.s));
	ev.run_id = src.r.id;
	ev.phase_id = src.pre.id;
	if (store_event_insert(src.s, &ev))
		bail_out("%s", store_errmsg(src.s));

	/* by uuid: its first hex digits, dashes left out */
	for (size_t i = 0, k = 0; src.r.uuid[i] && k < 12; i++)
		if (src.r.uuid[i] != '-')
			hex[k++] = src.r.uuid[i], hex[k] = '\0';
	is_int(store_run_find_uuid(src.s, hex, ids, 4), 1, "find by 12 hex digits: one run");
	is_int(ids[0], src.r.id, "  the run");
	is_int(store_run_find_uuid(src.s, "ffffffffffff", ids, 4), 0, "an unknown prefix: none");
	is_int(store_run_find_uuid(src.s, "not hex", ids, 4), -EINVAL, "not hex digits: -EINVAL");

	if (store_open(path_of("copy-dst.db"), STORE_CREATE | STORE_SINGLE_FILE, &dst, err,
		       sizeof(err)))
		bail_out("%s", err);
	is_int(store_copy_runs(dst, src.s, &src.r.id, 1, out), -EBUSY,
	       "an unfinished run is not copied: -EBUSY");
	ok(strstr(store_errmsg(dst), "still queued") != NULL, "  says why: %s", store_errmsg(dst));
	store_run_set_state(src.s, src.r.id, "done", NULL, T0_NS + 3600 * SEC_NS);

	two[0] = src.r.id;
	two[1] = src.r.id + 100;
	is_int(store_copy_runs(dst, src.s, two, 2, out), -ENOENT, "a missing second run: -ENOENT");
	ok(strstr(store_errmsg(dst), "no run") != NULL, "  named: %s", store_errmsg(dst));
	store_runs_foreach(dst, NULL, count_cb, &n);
	is_int(n, 0, "  and the first is not kept (one transaction)");

	is_int(store_copy_runs(dst, src.s, &src.r.id, 1, out), 0, "a done run is copied");
	ok(!out[0].present, "  it was not there");
	is_int((int64_t)(out[0].samples * 100 + out[0].events), 101, "  1 sample, 1 event");
	is_int(store_run_get(dst, out[0].dst_id, &got), 0, "  reads back");
	is_str(got.uuid, src.r.uuid, "  with its uuid");
	is_str(got.host, "lab9", "  its host");
	is_str(got.state, "done", "  its state");
	is_int(got.ended_ns, T0_NS + 3600 * SEC_NS, "  its end");
	is_str(got.drive.serial, "SN-0042", "  and its drive");
	store_run_clear(&got);
	is_int(store_copy_runs(dst, src.s, &src.r.id, 1, out), 0, "copied again");
	ok(out[0].present && out[0].dst_id == 1, "  found there by its uuid, nothing added");
	n = 0;
	store_runs_foreach(dst, NULL, count_cb, &n);
	is_int(n, 1, "  one run in the copy");
	store_close(dst);
	ok(access(path_of("copy-dst.db-wal"), F_OK) != 0, "a single-file copy leaves no -wal");
	store_close(src.s);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/plateau-store.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		bail_out("mkdtemp %s failed", tmpdir);
	test_versions();
	test_create();
	test_missing();
	test_not_plateau();
	test_newer();
	test_migrate_old();
	test_migrate_fails();
	test_rdonly();
	test_roundtrip();
	test_runs_filter();
	test_series();
	test_bad_rows();
	test_requester();
	test_requester_migrate();
	test_uuid_migrate();
	test_copy();
	rm_tmpdir();
	return done_testing();
}
