// SPDX-License-Identifier: MIT
/*
 * sqlite-crash.so: an LD_PRELOAD fault injector at the SQLite boundary.
 *
 * PLATEAU_CRASH_EVENT=KIND kills the process (SIGKILL, nothing flushed)
 * right after an event of that kind was inserted and before the sample it
 * is about can be committed:
 *   - inserted inside a transaction: at that transaction's COMMIT, before
 *     SQLite runs it (neither the event nor its sample reach the disk);
 *   - inserted on its own (autocommit): as soon as the insert returns, the
 *     event durable, the sample not yet written.
 * Either way it is the moment a crash tells whether an event can outlive
 * the evidence it announces.  Without the variable, it changes nothing.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

static int crash_armed;

static const char *crash_kind(void)
{
	const char *k = getenv("PLATEAU_CRASH_EVENT");

	return k && *k ? k : NULL;
}

int sqlite3_step(sqlite3_stmt *st)
{
	static int (*real)(sqlite3_stmt *);
	const char *kind = crash_kind();
	int rc, hit = 0;

	if (!real)
		real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
	if (kind) {
		char *sql = sqlite3_expanded_sql(st), want[96];

		/* events(run_id, phase_id, time_ns, kind, ...): the kind is bound */
		snprintf(want, sizeof(want), "'%s'", kind);
		hit = sql && strstr(sql, "INSERT INTO events") && strstr(sql, want);
		sqlite3_free(sql);
	}
	rc = real(st);
	if (hit && rc == SQLITE_DONE) {
		if (sqlite3_get_autocommit(sqlite3_db_handle(st)))
			raise(SIGKILL);
		crash_armed = 1;
	}
	return rc;
}

int sqlite3_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **, char **), void *arg,
		 char **errmsg)
{
	static int (*real)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *,
			   char **);

	if (!real)
		real = (int (*)(sqlite3 *, const char *, int (*)(void *, int, char **, char **),
				void *, char **))dlsym(RTLD_NEXT, "sqlite3_exec");
	if (crash_armed && sql && !strncmp(sql, "COMMIT", 6))
		raise(SIGKILL);
	if (crash_armed && sql && !strncmp(sql, "ROLLBACK", 8))
		crash_armed = 0;
	return real(db, sql, cb, arg, errmsg);
}
