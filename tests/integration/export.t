#!/bin/bash
# SPDX-License-Identifier: MIT
#
# export.t: plateau export and import move runs between databases (issue
# 13, "many hosts, one lab").  Three hosts' databases:
#
#   h1.db  alpha  gendb --sweep: 30 samples with write histograms, a sweep
#                 of 3 points with read and write histograms, 2 aborted
#                 samples, 6 events
#   h2.db  beta   the same generator, 20 samples
#   h3.db  gamma  tests/fixtures/basic.sql: run 1 done (4 phases, points,
#                 events), 2 failed, 3 still preconditioning, 4 queued
#
# Exported from the three into one file, imported into a new lab database:
# every value of every row comes through (compared per run, ids aside),
# the two gendb runs share one drive row (the same identity); importing
# again changes nothing (a dump compared byte for byte); an unfinished run
# is refused on export; damaged files are refused naming what is wrong,
# and nothing is written (a bad last run leaves the first ones out too:
# one transaction).
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/export.t
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
MKDB=$PLATEAU_BUILD/tests/helpers/mkdb
GENDB=$PLATEAU_BUILD/tests/helpers/gendb

[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
[ -x "$MKDB" ] && [ -x "$GENDB" ] || skip_all "no $MKDB or $GENDB (make tests)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"
command -v jq >/dev/null || skip_all "no jq (apt-get install jq)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-export.XXXXXX") || bail_out "mktemp failed"
trap 'rm -rf "$T"' EXIT

"$GENDB" "$T/h1.db" 30 --host alpha --sweep >/dev/null || bail_out "gendb h1 failed"
"$GENDB" "$T/h2.db" 20 --host beta --sweep >/dev/null || bail_out "gendb h2 failed"
"$MKDB" "$T/h3.db" || bail_out "mkdb failed"
sqlite3 -bail "$T/h3.db" <"$PLATEAU_SRC/tests/fixtures/basic.sql" || bail_out "basic.sql failed"
sqlite3 -bail "$T/h3.db" "UPDATE runs SET host = 'gamma'" || bail_out "sqlite3 failed"
H=(--db "$T/h1.db" --db "$T/h2.db" --db "$T/h3.db")

# run ARGS...: plateau; sets RC, OUT, ERR
run() {
	"$PLATEAU" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# q DB SQL: one query, read-only (no checkpoint by the sqlite3 shell)
q() {
	sqlite3 -readonly "$1" "$2"
}

# rundump DB UUID: every stored value of a run, ids replaced by what they
# stand for (the phase's seq, the drive's identity)
rundump() {
	local db=$1 u=$2 r="(SELECT id FROM runs WHERE uuid = '$2')"
	q "$db" "SELECT 'run', name, plan, state, created_ns, started_ns, ended_ns, host, version,
			error, requester_uid, requester_pid, requester_cmd, requester_via, uuid
		 FROM runs WHERE uuid = '$u';
		SELECT 'drive', kind, path, model, serial, firmware, eui64, nguid, wwn,
			capacity_bytes, lba_bytes, first_seen_ns
		 FROM drives WHERE id = (SELECT drive_id FROM runs WHERE uuid = '$u');
		SELECT 'phase', seq, kind, name, params, state, started_ns, ended_ns,
			progress_bytes, total_bytes, rounds, steady, steady_round, result
		 FROM phases WHERE run_id = $r ORDER BY seq;
		SELECT 'sample', p.seq, s.seq, s.start_ns, s.end_ns, s.errors, s.r_ios, s.r_bytes,
			s.r_lat_mean_ns, s.r_lat_stddev_ns, s.r_lat_min_ns, s.r_lat_max_ns,
			s.r_lat_p50_ns, s.r_lat_p90_ns, s.r_lat_p99_ns, s.r_lat_p999_ns,
			s.r_lat_p9999_ns, s.w_ios, s.w_bytes, s.w_lat_mean_ns, s.w_lat_stddev_ns,
			s.w_lat_min_ns, s.w_lat_max_ns, s.w_lat_p50_ns, s.w_lat_p90_ns,
			s.w_lat_p99_ns, s.w_lat_p999_ns, s.w_lat_p9999_ns, s.a_ios, s.a_bytes,
			s.a_lat_mean_ns, s.a_lat_stddev_ns, s.a_lat_min_ns, s.a_lat_max_ns,
			s.a_lat_p50_ns, s.a_lat_p90_ns, s.a_lat_p99_ns, s.a_lat_p999_ns,
			s.a_lat_p9999_ns, hex(s.r_hist), hex(s.w_hist), s.partial, s.point, s.aborted
		 FROM samples s JOIN phases p ON p.id = s.phase_id
		 WHERE p.run_id = $r ORDER BY p.seq, s.seq;
		SELECT 'point', p.seq, s.seq, s.threads, s.iodepth, s.start_ns, s.end_ns, s.errors,
			s.r_ios, s.r_bytes, s.r_lat_mean_ns, s.r_lat_p99_ns, s.r_lat_p9999_ns,
			s.w_ios, s.w_bytes, s.w_lat_mean_ns, s.w_lat_p99_ns, s.w_lat_p9999_ns,
			s.a_ios, s.a_bytes, s.a_lat_mean_ns, s.a_lat_stddev_ns, s.a_lat_min_ns,
			s.a_lat_max_ns, s.a_lat_p50_ns, s.a_lat_p90_ns, s.a_lat_p99_ns,
			s.a_lat_p999_ns, s.a_lat_p9999_ns, hex(s.r_hist), hex(s.w_hist)
		 FROM points s JOIN phases p ON p.id = s.phase_id
		 WHERE p.run_id = $r ORDER BY p.seq, s.seq;
		SELECT 'event', (SELECT seq FROM phases WHERE id = e.phase_id), time_ns, kind, message,
			data
		 FROM events e WHERE run_id = $r ORDER BY id;"
}

# the whole database as SQL text
dump() {
	q "$1" .dump
}

uuid_of() { # DB ID
	q "$1" "SELECT uuid FROM runs WHERE id = $2"
}
U1=$(uuid_of "$T/h1.db" 1)
U2=$(uuid_of "$T/h2.db" 1)
U31=$(uuid_of "$T/h3.db" 1)
U32=$(uuid_of "$T/h3.db" 2)

###########################################################################
diag "export from three databases"

run "${H[@]}" export alpha:1 beta:1 gamma:1 gamma:2 -o "$T/lab-export.db"
is "$RC" 0 "export of 4 runs from 3 databases: exit 0"
has "$ERR" "exported 4 runs to $T/lab-export.db" "  says what it wrote (stderr)"
is "$OUT" "" "  nothing on stdout"
ls "$T"/lab-export.db* >"$T/ls"
is "$(wc -l <"$T/ls")" 1 "the export is one file (no -wal, no -shm beside it)"
ls -a "$T" >"$T/ls"
is "$(grep -c '^\.lab-export' "$T/ls")" 0 "no temporary file left"
run --db "$T/lab-export.db" runs --json
is "$(jq -r 'map(.host + ":" + .uuid) | join(" ")' <<<"$OUT")" \
	"alpha:$U1 beta:$U2 gamma:$U31 gamma:$U32" "the file is a plateau database: runs lists it"
is "$(q "$T/lab-export.db" 'PRAGMA application_id')" 1347179605 "  application_id PLTU"
is "$(q "$T/lab-export.db" 'PRAGMA user_version')" \
	"$(q "$T/h1.db" 'PRAGMA user_version')" "  this plateau's schema version"

run "${H[@]}" export "${U1:0:8}" -o "$T/one.db"
is "$RC" 0 "export by uuid prefix"
is "$(q "$T/one.db" 'SELECT host || " " || uuid FROM runs')" "alpha $U1" "  that run alone"
"$PLATEAU" --db "$T/h2.db" export 1 >"$T/stdout.db" 2>"$T/err"
is "$?" 0 "export to standard output"
is "$(q "$T/stdout.db" 'SELECT uuid FROM runs')" "$U2" "  a database as well"

run "${H[@]}" export gamma:3 -o "$T/active.db"
is "$RC" 2 "an unfinished run is not exported: exit 2"
has "$ERR" "is still preconditioning" "  says why"
ok "$([ ! -e "$T/active.db" ]; echo $?)" "  and writes no file"
ls -a "$T" >"$T/ls"
is "$(grep -c '^\.active' "$T/ls")" 0 "  nor leaves a temporary one"
BEFORE=$(dump "$T/h1.db")
run --db "$T/h1.db" export 1 -o "$T/h1.db"
is "$RC" 2 "export over the database read: refused"
has "$ERR" "is one of the databases read" "  says why"
is "$(dump "$T/h1.db")" "$BEFORE" "  the database is untouched"
run "${H[@]}" export 1
is "$RC" 2 "export 1 over three databases: ambiguous"
has "$ERR" "names 3 runs" "  as for every reading command"

###########################################################################
diag "import into the lab's database"

LAB=$T/lab.db
run --db "$LAB" import "$T/lab-export.db"
is "$RC" 0 "import: exit 0"
has "$OUT" "4 runs imported, 0 already there" "  says what it did"
has "$OUT" "alpha $U1: imported as run 1 (38 samples, 3 points, 6 events)" \
	"  alpha's run: its 30 + 8 samples (2 of them aborted), 3 points, 6 events"
is "$(q "$LAB" 'SELECT count(*) FROM runs')" 4 "4 runs in the lab"
for pair in "$T/h1.db:$U1" "$T/h2.db:$U2" "$T/h3.db:$U31" "$T/h3.db:$U32"; do
	db=${pair%%:*} u=${pair#*:}
	rundump "$db" "$u" >"$T/want"
	rundump "$LAB" "$u" >"$T/got"
	is_file "$T/got" "$T/want" "$(basename "$db") run $u: every value as stored there"
done
is "$(rundump "$LAB" "$U1" | grep -c '^sample|4|.*|1$')" 2 \
	"the aborted samples come along, marked aborted"
is "$(rundump "$LAB" "$U1" | grep -c '^sample|.*|[0-9A-F]\{20,\}|')" 38 \
	"  every sample with its histogram blob"
is "$(q "$LAB" 'SELECT count(*) FROM drives')" 3 \
	"drives matched by identity: alpha and beta share one (3 drives, not 4)"
is "$(q "$LAB" "SELECT count(*) FROM runs WHERE state NOT IN ('done', 'failed', 'stopped')")" 0 \
	"no unfinished run in the lab (plateaud would resume it)"

run --db "$LAB" runs --csv
is "$(tail -n +2 "$T/out" | cut -d, -f2 | xargs)" "alpha beta gamma gamma" \
	"plateau runs on the lab: the hosts of the runs"
run --db "$LAB" show "${U2:0:12}" --json
is "$(jq -r .host <<<"$OUT")" "beta" "show by uuid prefix in the lab: beta's run"

DUMP1=$(dump "$LAB")
run --db "$LAB" import "$T/lab-export.db"
is "$RC" 0 "import again: exit 0"
has "$OUT" "0 runs imported, 4 already there" "  nothing new"
has "$OUT" "beta $U2: already there as run 2" "  each run found by its uuid"
is "$(dump "$LAB")" "$DUMP1" "  and the lab database is the same, byte for byte in its dump"
run --db "$LAB" import "$T/one.db"
is "$RC" 0 "import of a file whose run is there already"
is "$(dump "$LAB")" "$DUMP1" "  changes nothing either"
run --db "$LAB" import "$T/h3.db"
is "$RC" 2 "import of a host's database with an unfinished run: refused"
has "$ERR" "still preconditioning" "  says why"
is "$(dump "$LAB")" "$DUMP1" "  and nothing is written"

###########################################################################
diag "damaged files are refused, and nothing is written"

# refused NEEDLE NAME FILE: import FILE fails (exit 2 or 3) naming NEEDLE,
# and the lab database is unchanged
refused() {
	local needle=$1 name=$2 file=$3
	run --db "$LAB" import "$file"
	ok "$([ "$RC" = 2 ] || [ "$RC" = 3 ]; echo $?)" "$name: refused (exit $RC)"
	is "$(wc -l <"$T/err")" 1 "$name: one line on stderr"
	has "$ERR" "$needle" "$name: names '$needle'"
	is "$(dump "$LAB")" "$DUMP1" "$name: the lab database is unchanged"
}

# a new run, not yet in the lab, so that a partial import would show
"$GENDB" "$T/h4.db" 10 --host delta --sweep >/dev/null || bail_out "gendb h4 failed"
run --db "$T/h4.db" export 1 -o "$T/new.db"
is "$RC" 0 "an export of a new run"

refused "No such file" "a missing file" "$T/none.db"
echo "not a database" >"$T/text.db"
refused "$T/text.db" "a text file" "$T/text.db"
SIZE=$(stat -c %s "$T/new.db")
head -c $((SIZE / 2)) "$T/new.db" >"$T/cut.db"
refused "$T/cut.db" "a file cut in half" "$T/cut.db"
cp "$T/new.db" "$T/garbage.db"
PAGE=$(q "$T/new.db" 'PRAGMA page_size')
ROOT=$(q "$T/new.db" "SELECT rootpage FROM sqlite_master WHERE name = 'samples'")
head -c "$PAGE" /dev/zero | tr '\0' 'g' |
	dd of="$T/garbage.db" bs="$PAGE" seek=$((ROOT - 1)) conv=notrunc status=none
refused "corrupt" "a page overwritten with garbage" "$T/garbage.db"
sqlite3 "$T/foreign.db" 'CREATE TABLE t (x); INSERT INTO t VALUES (1)' || bail_out "sqlite3 failed"
refused "not a plateau database" "a foreign SQLite file" "$T/foreign.db"
"$MKDB" "$T/empty.db" || bail_out "mkdb failed"
refused "no runs in it" "a plateau database without runs" "$T/empty.db"

# rows that break the schema's promises, in the last run of a file whose
# first runs are new to the lab: the transaction takes none of them
bad_copy() { # NAME SQL
	cp "$T/lab-export.db" "$T/$1.db"
	# the export's runs are in the lab already: out with them, in with new.db's
	# run (101) and a copy of its run row under another uuid (50, no phases),
	# imported first
	sqlite3 -bail "$T/$1.db" "DELETE FROM events; DELETE FROM points; DELETE FROM samples;
		DELETE FROM phases; DELETE FROM runs;
		ATTACH '$T/new.db' AS n;
		INSERT INTO drives SELECT id + 100, kind, path, model, 'DELTA', firmware, eui64,
			nguid, wwn, capacity_bytes, lba_bytes, first_seen_ns FROM n.drives;
		INSERT INTO runs SELECT id + 100, drive_id + 100, name, plan, state, created_ns,
			started_ns, ended_ns, host, version, error, requester_uid, requester_pid,
			requester_cmd, requester_via, uuid FROM n.runs;
		INSERT INTO runs SELECT 50, drive_id + 100, name, plan, state, created_ns,
			started_ns, ended_ns, host, version, error, requester_uid, requester_pid,
			requester_cmd, requester_via, 'feedf00d-0000-4000-8000-000000000000'
			FROM n.runs;
		INSERT INTO phases SELECT id + 100, run_id + 100, seq, kind, name, params, state,
			started_ns, ended_ns, progress_bytes, total_bytes, rounds, steady,
			steady_round, result FROM n.phases;
		INSERT INTO samples SELECT phase_id + 100, seq, start_ns, end_ns, errors, r_ios,
			r_bytes, r_lat_mean_ns, r_lat_stddev_ns, r_lat_min_ns, r_lat_max_ns,
			r_lat_p50_ns, r_lat_p90_ns, r_lat_p99_ns, r_lat_p999_ns, r_lat_p9999_ns,
			w_ios, w_bytes, w_lat_mean_ns, w_lat_stddev_ns, w_lat_min_ns, w_lat_max_ns,
			w_lat_p50_ns, w_lat_p90_ns, w_lat_p99_ns, w_lat_p999_ns, w_lat_p9999_ns,
			a_ios, a_bytes, a_lat_mean_ns, a_lat_stddev_ns, a_lat_min_ns, a_lat_max_ns,
			a_lat_p50_ns, a_lat_p90_ns, a_lat_p99_ns, a_lat_p999_ns, a_lat_p9999_ns,
			r_hist, w_hist, partial, point, aborted FROM n.samples;
		DETACH n;
		PRAGMA ignore_check_constraints = ON; $2" || bail_out "building $1.db failed"
	echo "$T/$1.db"
}
F=$(bad_copy badstate "UPDATE runs SET state = 'bogus' WHERE id = 101")
refused "runs row 101: unknown state 'bogus'" "a run with an unknown state" "$F"
F=$(bad_copy baduuid "UPDATE runs SET uuid = 'not-a-uuid' WHERE id = 101")
refused "uuid 'not-a-uuid'" "a malformed uuid" "$F"
F=$(bad_copy badhist "UPDATE samples SET w_hist = X'0011223344' WHERE phase_id = 103 AND seq = 5")
refused "phase 103 sample 5: corrupt write histogram" "a damaged histogram" "$F"
F=$(bad_copy badtime "UPDATE samples SET end_ns = start_ns WHERE phase_id = 103 AND seq = 7")
refused "phase 103 sample 7: end" "a sample that ends when it starts" "$F"
F=$(bad_copy goodcopy "")
run --db "$T/fresh.db" import "$F"
is "$RC" 0 "the same file unbroken imports (the checks above are the faults' doing)"
is "$(q "$T/fresh.db" 'SELECT count(*) FROM runs')" 2 "  both its runs"

###########################################################################
diag "a refused import into a database that was not there leaves none behind"

# left NAME: what of NAME, NAME-wal, NAME-shm, NAME-journal is in $T
left() {
	(cd "$T" && ls -d "$1" "$1-wal" "$1-shm" "$1-journal" 2>/dev/null | xargs)
}
F=$(bad_copy badhist2 "UPDATE samples SET w_hist = X'0011223344' WHERE phase_id = 103 AND seq = 5")
for f in "$T/text.db" "$T/foreign.db" "$T/empty.db" "$F"; do
	run --db "$T/l3.db" import "$f"
	is "$RC" 2 "import of ${f##*/} into a new l3.db: refused"
	is "$(left l3.db)" "" "  no l3.db, -wal, -shm or -journal left behind"
done
has "$ERR" "phase 103 sample 5: corrupt write histogram" "  (the last refused while copying)"
# a -wal that was there before is not this import's to remove
: >"$T/l4.db-wal"
run --db "$T/l4.db" import "$F"
is "$RC:$(left l4.db)" "2:l4.db-wal" "a stray l4.db-wal from before stays, the new l4.db goes"
# a database that was there stays, whatever the import
run --db "$T/fresh.db" import "$T/foreign.db"
is "$RC:$(left fresh.db)" "2:fresh.db fresh.db-shm fresh.db-wal" "a database that was there stays"
is "$(q "$T/fresh.db" 'SELECT count(*) FROM runs')" 2 "  with its runs"

run --db "$T/l5.db" import "$T/missing.db"
is "$RC" 3 "import of a missing file: exit 3"
has "$ERR" "import: $T/missing.db: No such file or directory (the file to import" \
	"  names the file to import as the one missing"
unlike "$ERR" "no database there yet" "  not as if the database were"
is "$(left l5.db)" "" "  and creates no database"

done_testing
