// SPDX-License-Identifier: MIT
/*
 * mkdb PATH: create an empty database at the latest schema (test fixtures).
 *
 * Fixtures insert runs with SQL (tests/fixtures/basic.sql) and no uuid; for
 * their golden output to be stable, a run inserted here without one gets a
 * fixed uuid made from its id, 00000000-0000-4000-8000-<id, 12 digits>,
 * by a trigger that only test databases have.  plateau itself always gives
 * a random one (store_run_insert(), schema 5).
 */
#include <sqlite3.h>
#include <stdio.h>

#include "store.h"

static const char fixture_uuid_trigger[] =
	"CREATE TRIGGER IF NOT EXISTS mkdb_fixture_uuid AFTER INSERT ON runs "
	"WHEN NEW.uuid IS NULL BEGIN "
	"UPDATE runs SET uuid = printf('00000000-0000-4000-8000-%012d', NEW.id) "
	"WHERE id = NEW.id; END";

int main(int argc, char **argv)
{
	struct store *s;
	char err[1024];
	sqlite3 *db;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: mkdb PATH\n");
		return 2;
	}
	if (store_open(argv[1], STORE_CREATE, &s, err, sizeof(err))) {
		fprintf(stderr, "mkdb: %s\n", err);
		return 1;
	}
	store_close(s);
	rc = sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, fixture_uuid_trigger, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		fprintf(stderr, "mkdb: %s: %s\n", argv[1], sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	sqlite3_close(db);
	return 0;
}
