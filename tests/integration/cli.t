#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cli.t: the query side of the plateau CLI against a fixture database built
# from tests/fixtures/basic.sql: golden output, every exit code, one-line
# errors, --json / --csv shape, --db / PLATEAU_DB, read-only access and
# `plateau migrate` from schema 1.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/cli.t
#   PLATEAU_UPDATE_GOLDEN=1 ... rewrites tests/golden/ from the current
#   output (check every change by hand: the numbers below are the spec).
#
# The steady-state figures asserted here are worked out by hand:
#
# Run 1, phase 3 (4k-randwrite, 60 s rounds): a_ios / 60 s gives
#   200000 180000 160000 140000 120000 110000 105000 100000 101000 99000
#   100000 100500.  SNIA, W = 5, R = 20 %, S = 10 %; slope a from x centred
#   on the window (-2..2, sum x^2 = 10):
#   - rounds 5-9: avg 107200, max-min 20000 <= 21440, but a = (-2*120000
#     - 110000 + 100000 + 2*101000) / 10 = -4800, |a|*4 = 19200 > 10720.
#   - rounds 6-10: avg 103000, 11000 <= 20600; a = -26000/10 = -2600,
#     10400 > 10300: the data test passes and the slope test fails by 100.
#   - rounds 7-11: avg 101000, 6000 <= 20200; a = (-210000 - 100000 +
#     99000 + 200000)/10 = -1100, 4400 <= 10100: steady at round 11.
#     Intercept (rounds 1-based): 101000 - (-1100 * 9) = 110900.
#   fio-dev 10 %: rounds 5-9 max|y-mean| = 12800 >= 10720; rounds 6-10 mean
#   103000, max |110000 - 103000| = 7000 < 10300: steady at round 10,
#   intercept 103000 + 2600 * 8 = 123800.
#   fio-slope 1 %: rounds 7-11 100*1100/101000 = 1.09 % fails; rounds 8-12
#   100000 101000 99000 100000 100500: a = (-200000 - 101000 + 100000 +
#   201000)/10 = 0, steady at round 12, average 100100.
# Run 2, phase 5 (8k-7030): 5400000/60 = 90000 falling by 6000 a round to
#   24000 at round 12; plan max_rounds 12.  Rounds 8-12: avg 36000, max-min
#   24000 > 7200, a = -6000, 24000 > 3600; never steady, capped; intercept
#   36000 + 6000 * 10 = 96000.
# tests/fixtures/analyze-steady.csv (iops): 50000 42000 36000 33000 31000
#   30500 30000 30200 29800 30100.  Rounds 3-7: avg 32100, 6000 <= 6420, a =
#   (-72000 - 33000 + 30500 + 60000)/10 = -1450, 5800 > 3210.  Rounds 4-8:
#   avg 30940, 3000 <= 6188, a = (-66000 - 31000 + 30000 + 60400)/10 = -660,
#   2640 <= 3094: steady at round 8; intercept 30940 + 660 * 6 = 34900.
# tests/fixtures/fio-4k_iops.1.log (1 s averaged entries, --round 5): reads
#   3000 every second, writes averaging V - 3000 per 5 s, so the rounds are
#   V = 20000 15000 12000 10500 10000 10100 9900 10000.  Rounds 3-7: avg
#   10500, max-min 2100 <= 2100 (inclusive), a = -460, 1840 > 1050.  Rounds
#   4-8: avg 10100, 600 <= 2020, a = (-21000 - 10000 + 9900 + 20000)/10 =
#   -110, 440 <= 1010: steady at round 8; intercept 10100 + 110 * 6 = 10760.
# tests/fixtures/fio-jitter_iops.1.log (1 s averaged entries stamped with
#   jitter: writes at 1000, 2000, 3001, 4000, 5002, 5999, 7001, 8000 ms,
#   reads at 1001, 2000, 3002, ...; --round 1): reads 3000 and writes V -
#   3000 a second, V as in the log above: steady at round 8, intercept 10760.
#   Each entry goes to the round holding the middle of its 1 s window.
# tests/fixtures/fio-ss.json (fio --output-format=json of a job run with
#   ss=iops_slope:0.3% ss_dur=10s, its steadystate.data.iops set to the
#   series of analyze-steady.csv): steady at round 8, average 30940, slope
#   -660, intercept 34900; bw is 4096 bytes an I/O: 126.73024 MB/s average.
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
MKDB=$PLATEAU_BUILD/tests/helpers/mkdb
GOLDEN=$PLATEAU_SRC/tests/golden
FIX=tests/fixtures # relative: commands run in $PLATEAU_SRC, so outputs are stable

[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
[ -x "$MKDB" ] || skip_all "no $MKDB (make tests)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"
command -v jq >/dev/null || skip_all "no jq (apt-get install jq)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-cli.XXXXXX") || bail_out "mktemp failed"
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT

DB=$T/basic.db
"$MKDB" "$DB" || bail_out "mkdb $DB failed"
sqlite3 -bail "$DB" <"$PLATEAU_SRC/$FIX/basic.sql" || bail_out "loading basic.sql failed"
# open it once more as plateaud would, which leaves -wal and -shm in place
"$MKDB" "$DB" || bail_out "mkdb $DB failed"

# run ARGS...: plateau in $PLATEAU_SRC; sets RC, OUT, ERR ($T/out, $T/err)
run() {
	(cd "$PLATEAU_SRC" && "$PLATEAU" "$@") >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# golden FILE RC ARGS...: `plateau --db $DB ARGS` prints FILE, exits RC,
# says nothing on stderr
golden() {
	local file=$1 want_rc=$2
	shift 2
	run --db "$DB" "$@"
	if [ -n "${PLATEAU_UPDATE_GOLDEN:-}" ]; then
		mkdir -p "$GOLDEN"
		cp "$T/out" "$GOLDEN/$file"
		pass "updated tests/golden/$file"
	else
		is_file "$T/out" "$GOLDEN/$file" "plateau $* matches tests/golden/$file"
	fi
	is "$RC" "$want_rc" "plateau $*: exit $want_rc"
	is "$ERR" "" "plateau $*: nothing on stderr"
}

# expect_fail RC NEEDLE NAME ARGS...: exit RC, one line on stderr starting
# "plateau: " and containing NEEDLE, nothing on stdout.  STREAMED=1: a
# listing streamed row by row (samples) may have printed the rows before the
# bad one; then stdout must not hold the bad row (4) and, as JSON, must not
# parse as a complete document.
STREAMED=
expect_fail() {
	local want_rc=$1 needle=$2 name=$3
	shift 3
	run "$@"
	is "$RC" "$want_rc" "$name: exit $want_rc"
	is "$(wc -l <"$T/err")" 1 "$name: one line on stderr"
	like "$ERR" '^plateau: ' "$name: stderr starts with 'plateau: '"
	has "$ERR" "$needle" "$name: stderr names '$needle'"
	if [ -n "$STREAMED" ]; then
		unlike "$OUT" '(^|'$'\n'')( +4 |\{"round":4)' "$name: the bad row is not printed"
		if [[ $* == *--json* ]]; then
			! jq . <<<"$OUT" >/dev/null 2>&1
			ok $? "$name: the cut JSON does not parse as a whole document"
		fi
	else
		is "$OUT" "" "$name: nothing on stdout"
	fi
	STREAMED=
}

# a copy of the fixture database (without -wal/-shm) at $T/NAME
dbcopy() {
	cp "$DB" "$T/$1"
	echo "$T/$1"
}

###########################################################################
diag "golden output"

golden runs.txt 0 runs
golden runs.csv 0 runs --csv
golden runs.json 0 runs --json
golden show-1.txt 0 show 1
golden show-2.txt 0 show 2
golden show-1.json 0 show 1 --json
golden samples-1.txt 0 samples 1
golden samples-1.csv 0 samples 1 --csv
golden samples-1.json 0 samples 1 --json
golden steady-1.txt 0 steady 1
golden steady-2.txt 1 steady 2
golden steady-1-fio-dev.json 0 steady 1 --criterion fio-dev --json
golden steady-1-fio-slope.txt 0 steady 1 --criterion fio-slope
golden steady-1.csv 0 steady 1 --csv
golden analyze-csv.txt 0 analyze $FIX/analyze-steady.csv
golden analyze-csv.json 0 analyze $FIX/analyze-steady.csv --json
golden analyze-ramp.txt 1 analyze $FIX/analyze-ramp.csv
golden analyze-fio.txt 0 analyze $FIX/fio-4k_iops.1.log --round 5
golden analyze-fio.csv 0 analyze $FIX/fio-4k_iops.1.log --round 5 --csv
golden analyze-fio-jitter.txt 0 analyze $FIX/fio-jitter_iops.1.log --round 1
golden analyze-fio-json.txt 0 analyze $FIX/fio-ss.json
golden analyze-fio-json.json 0 analyze $FIX/fio-ss.json --json
golden samples-1-wide.txt 0 samples 1 --wide
golden samples-2-metric.csv 0 samples 2 --metric iops,p99,bw,lat,lat-max,lat-stddev --csv

###########################################################################
diag "exit codes: 0 ok/steady, 1 not steady"

run --db "$DB" runs
is "$RC" 0 "runs: exit 0"
run --db "$DB" steady 1
is "$RC" 0 "steady on a steady run: exit 0"
like "$OUT" 'steady at round 11' "steady 1: steady at round 11"
run --db "$DB" steady 2
is "$RC" 1 "steady on a never-steady run: exit 1"
like "$OUT" 'NOT steady after 12 rounds' "steady 2: NOT steady after 12 rounds"
run --db "$DB" steady 3
is "$RC" 1 "steady on a run with fewer rounds than the window: exit 1"
like "$OUT" 'fewer than 5 rounds' "steady 3: says there are fewer rounds than the window"
run analyze $FIX/analyze-ramp.csv
is "$RC" 1 "analyze of a non-steady CSV: exit 1"
run analyze $FIX/analyze-steady.csv --column lat_us
is "$RC" 0 "analyze --column lat_us: exit 0 (steady latency)"
like "$OUT" 'metric +lat_us' "analyze --column: the column is the metric"
# a column name with a comma is one CSV field (RFC 4180, tools/out.c), not two
printf 'round,"a,b"\n1,100\n2,100\n3,100\n4,100\n5,100\n' >"$T/comma.csv"
run analyze "$T/comma.csv" --column 'a,b' --csv
is "$RC" 0 "analyze --column 'a,b' --csv: exit 0"
is "$(printf '%s\n' "$OUT" | sed -n 2p | cut -c1-12)" '"a,b",snia,5' \
	"analyze --csv quotes a metric name with a comma"
run --db "$DB" steady 1 --window 6 --data-limit 5 --slope-limit 5
is "$RC" 1 "steady with tighter limits than the plan's: exit 1"
run --db "$DB" steady 2 --max-rounds 0 --criterion fio-dev --data-limit 50
is "$RC" 0 "steady 2 --criterion fio-dev --data-limit 50: exit 0"
# 90000 84000 78000 72000 66000: mean 78000, max dev 12000 < 39000
like "$OUT" 'steady at round 5' "fio-dev 50 % on run 2: steady at round 5"

###########################################################################
diag "exit code 2: usage and bad input, one line on stderr"

expect_fail 2 "--bogus" "unknown option" --db "$DB" runs --bogus
expect_fail 2 "--frobnicate" "unknown steady option" --db "$DB" steady 1 --frobnicate
expect_fail 2 "foo" "samples --metric foo" --db "$DB" samples 1 --metric foo
expect_fail 2 "foo" "steady --metric foo" --db "$DB" steady 1 --metric foo
expect_fail 2 "--metric" "steady --metric ''" --db "$DB" steady 1 --metric ''
expect_fail 2 "bogus" "steady --criterion bogus" --db "$DB" steady 1 --criterion bogus
expect_fail 2 "--window" "steady --window 1" --db "$DB" steady 1 --window 1
expect_fail 2 "--absolute" "--absolute with snia" --db "$DB" steady 1 --absolute
expect_fail 2 "abc" "show abc" --db "$DB" show abc
expect_fail 2 "--json and --csv" "--json --csv together" --db "$DB" runs --json --csv
expect_fail 2 "--json and --csv" "--csv before, --json after" --db "$DB" --csv samples 1 --json
expect_fail 2 "nope" "--state nope" --db "$DB" runs --state nope
expect_fail 2 "yesterday" "--since yesterday" --db "$DB" runs --since yesterday
expect_fail 2 "--db" "--db without a path" runs --db
expect_fail 2 "frob" "unknown command" --db "$DB" frob
expect_fail 2 "--json" "show --csv" --db "$DB" show 1 --csv

expect_fail 2 "$FIX/analyze-bad.csv:4:" "malformed CSV names file and line" \
	analyze $FIX/analyze-bad.csv
has "$ERR" "'abc'" "malformed CSV: names the bad value"
has "$ERR" "iops" "malformed CSV: names the column"
expect_fail 2 "nope" "analyze --column nope" analyze $FIX/analyze-steady.csv --column nope
expect_fail 2 "--metric" "analyze --metric" analyze $FIX/analyze-steady.csv --metric iops
expect_fail 2 "60 s" "a fio log shorter than one round" analyze $FIX/fio-4k_iops.1.log
expect_fail 2 "give --round 1 or more" "a fio log's interval longer than a round" \
	analyze $FIX/fio-4k_iops.1.log --round 0.5
has "$ERR" "1000 ms apart" "  names the log's interval"
expect_fail 2 "--job" "a fio JSON with two jobs' steady-state data" \
	analyze $FIX/fio-ss-two-jobs.json
has "$ERR" "'randwrite-4k', 'randread-4k'" "  names both jobs"
expect_fail 2 "no job has a steadystate block" "a fio JSON without steady-state data" \
	analyze $FIX/fio-no-ss.json
expect_fail 2 "no \"lat_ns\" array" "a fio JSON without latency data, --column lat" \
	analyze $FIX/fio-ss.json --column lat
expect_fail 2 "--round is for fio logs" "--round with fio JSON" analyze $FIX/fio-ss.json --round 1
expect_fail 2 "no job 'nope'" "--job nope" analyze $FIX/fio-ss.json --job nope
expect_fail 2 "--job is for fio's JSON" "--job with a CSV" analyze $FIX/analyze-steady.csv --job 1
printf '{"jobs": [\n{"jobname": "x",\n' >"$T/cut.json"
expect_fail 2 "$T/cut.json:3: not valid JSON" "a cut fio JSON names the line" analyze "$T/cut.json"
printf 'round,iops,partial\n1,100,false\n2,100,maybe\n' >"$T/partial-bad.csv"
expect_fail 2 "$T/partial-bad.csv:3: column 'partial': 'maybe' is not true or false" \
	"a partial column that is neither true nor false" analyze "$T/partial-bad.csv"

NEWER=$(dbcopy newer.db)
sqlite3 "$NEWER" 'PRAGMA user_version = 99' || bail_out "sqlite3 failed"
LATEST=0 # the highest schema/NNN-*.sql
for f in "$PLATEAU_SRC"/schema/[0-9][0-9][0-9]-*.sql; do
	f=${f##*/}
	[ $((10#${f:0:3})) -gt "$LATEST" ] && LATEST=$((10#${f:0:3}))
done
expect_fail 2 "version 99" "a newer schema" --db "$NEWER" runs
has "$ERR" "plateau's $LATEST" "a newer schema: names this plateau's version $LATEST"
has "$ERR" "$NEWER" "a newer schema: names the file"

NOTDB=$T/notdb.db
printf 'plateau was here, but this is not SQLite\n%.0s' {1..200} >"$NOTDB"
expect_fail 2 "$NOTDB" "a non-SQLite file" --db "$NOTDB" runs
has "$ERR" "not a SQLite database" "a non-SQLite file: says so"

FOREIGN=$T/foreign.db
sqlite3 "$FOREIGN" 'CREATE TABLE t (x); INSERT INTO t VALUES (1)' || bail_out "sqlite3 failed"
expect_fail 2 "not a plateau database" "a foreign SQLite database" --db "$FOREIGN" runs

# garbage over the phases table's root page, in the middle of the file
CORRUPT=$(dbcopy corrupt.db)
PAGE=$(sqlite3 "$CORRUPT" 'PRAGMA page_size')
ROOT=$(sqlite3 "$CORRUPT" "SELECT rootpage FROM sqlite_master WHERE name = 'phases'")
NPAGES=$(sqlite3 "$CORRUPT" 'PRAGMA page_count')
rm -f "$CORRUPT-wal" "$CORRUPT-shm"
diag "phases root page $ROOT of $NPAGES, $PAGE bytes"
printf 'GARBAGE!%.0s' $(seq $((PAGE / 8))) |
	dd of="$CORRUPT" bs="$PAGE" seek=$((ROOT - 1)) conv=notrunc status=none
expect_fail 2 "malformed" "a corrupt database (show)" --db "$CORRUPT" show 1
has "$ERR" "$CORRUPT" "a corrupt database: names the file"
expect_fail 2 "malformed" "a corrupt database (steady)" --db "$CORRUPT" steady 1

# rows that break what the schema promises (the CHECK constraints refuse
# these updates; ignore_check_constraints lets a broken writer through)
BADROW=$(dbcopy badrow.db)
sqlite3 "$BADROW" 'UPDATE samples SET end_ns = start_ns WHERE phase_id = 3 AND seq = 4' \
	2>/dev/null
isnt "$?" 0 "the schema's CHECK refuses a sample with end_ns <= start_ns"
sqlite3 "$BADROW" 'PRAGMA ignore_check_constraints = ON;
	UPDATE samples SET end_ns = start_ns WHERE phase_id = 3 AND seq = 4;
	UPDATE runs SET state = '"'bogus'"' WHERE id = 2;' || bail_out "sqlite3 failed"
expect_fail 2 "sample 4" "a sample with end_ns = start_ns (steady)" --db "$BADROW" steady 1
STREAMED=1
expect_fail 2 "sample 4" "a sample with end_ns = start_ns (samples)" --db "$BADROW" samples 1
STREAMED=1
expect_fail 2 "sample 4" "a sample with end_ns = start_ns (samples --json)" \
	--db "$BADROW" samples 1 --json
expect_fail 2 "sample 4" "a sample with end_ns = start_ns (show)" --db "$BADROW" show 1
expect_fail 2 "bogus" "a run in state 'bogus' (show)" --db "$BADROW" show 2
has "$ERR" "runs row 2" "a run in state 'bogus': names the row"
expect_fail 2 "bogus" "a run in state 'bogus' (runs)" --db "$BADROW" runs

###########################################################################
diag "exit code 3: not found"

expect_fail 3 "no run 99" "show an unknown run" --db "$DB" show 99
expect_fail 3 "no run 99" "steady an unknown run" --db "$DB" steady 99
expect_fail 3 "no run 99" "samples of an unknown run" --db "$DB" samples 99
expect_fail 3 "$T/missing.db" "a missing database" --db "$T/missing.db" runs
[ ! -e "$T/missing.db" ]
ok $? "a missing database is not created"
expect_fail 3 "$T/missing.db" "migrate a missing database" --db "$T/missing.db" migrate
expect_fail 3 "$FIX/nope.csv" "analyze a missing file" analyze $FIX/nope.csv
expect_fail 3 "phase 9" "steady --phase 9" --db "$DB" steady 1 --phase 9
expect_fail 3 "phase 9" "samples --phase 9" --db "$DB" samples 1 --phase 9
expect_fail 3 "no samples" "samples of a run without samples" --db "$DB" samples 4

###########################################################################
diag "--json parses and has the evidence keys"

KEYS='steady steady_round window_start window_end average slope intercept data_excursion
	slope_excursion data_limit slope_limit criterion metric rounds'
# has_keys NAME: $T/out is one JSON object holding every key in $KEYS
has_keys() {
	local k missing=""
	jq -e . "$T/out" >/dev/null 2>&1
	ok $? "$1: --json output parses"
	for k in $KEYS; do
		jq -e "has(\"$k\")" "$T/out" >/dev/null 2>&1 || missing="$missing $k"
	done
	is "$missing" "" "$1: has every evidence key"
}
# jv FILTER: the value of FILTER in $T/out, compact
jv() { jq -c "$1" "$T/out" 2>/dev/null; }

run --db "$DB" steady 1 --json
has_keys "steady 1"
is "$(jv '[.steady, .steady_round, .window_start, .window_end, .rounds]')" '[true,11,7,11,12]' \
	"steady 1 --json: steady at round 11, window 7-11 of 12 rounds"
is "$(jv '[.average, .slope, .intercept]')" '[101000,-1100,110900]' \
	"steady 1 --json: average 101000, slope -1100, intercept 110900"
is "$(jv '[.data_excursion, .slope_excursion, .data_limit, .slope_limit]')" \
	'[6000,4400,20200,10100]' "steady 1 --json: excursions and limits in IOPS"
is "$(jv '[.criterion, .metric]')" '["snia","iops"]' "steady 1 --json: snia on iops"

run --db "$DB" steady 2 --json
is "$RC" 1 "steady 2 --json: exit 1"
has_keys "steady 2"
is "$(jv '[.steady, .steady_round, .window_start, .window_end, .capped]')" \
	'[false,null,8,12,true]' "steady 2 --json: not steady, last window 8-12, capped"
is "$(jv '[.average, .slope, .intercept, .data_excursion, .slope_excursion]')" \
	'[36000,-6000,96000,24000,24000]' "steady 2 --json: the evidence of the last window"

run --db "$DB" steady 1 --metric iops,lat --json
is "$RC" 1 "steady 1 --metric iops,lat: exit 1 (latency rises 15 us a round)"
is "$(jv '[.steady, (.metrics | length), .metrics[1].metric]')" '[false,2,"lat"]' \
	"steady --metric iops,lat --json: both metrics, not steady together"

run analyze $FIX/analyze-steady.csv --json
has_keys "analyze CSV"
is "$(jv '[.steady_round, .window_start, .window_end, .average, .slope, .intercept]')" \
	'[8,4,8,30940,-660,34900]' "analyze CSV --json: the hand-computed evidence"
is "$(jv '.source.format')" '"csv"' "analyze CSV --json: source format csv"

run analyze $FIX/fio-4k_iops.1.log --round 5 --json
has_keys "analyze fio log"
is "$(jv '[.steady_round, .window_start, .window_end, .average, .slope, .intercept]')" \
	'[8,4,8,10100,-110,10760]' "analyze fio log --json: the hand-computed evidence"
is "$(jv '[.metric, .unit, .source.format, .source.entries]')" '["iops","IOPS","fio-log",80]' \
	"analyze fio log --json: iops from 80 entries"

run --db "$DB" runs --json
is "$(jv '[.[].run]')" '[1,2,3,4]' "runs --json: an array of the four runs"
run --db "$DB" runs --state "done" --json
is "$(jv '[.[].run]')" '[1]' "runs --state done --json: run 1"
run --db "$DB" runs --state active --json
is "$(jv '[.[].run]')" '[3,4]' "runs --state active --json: runs 3 and 4"
run --db "$DB" runs --serial LOOP-00c1-4242 --json
is "$(jv '[.[].run]')" '[2,4]' "runs --serial --json: the loop device's runs"
run --db "$DB" runs --since 2026-12-01 --json
is "$(jv '[.[].run]')" '[3,4]' "runs --since 2026-12-01: runs 3 and 4"
run --db "$DB" runs --until '2026-11-30 03:00' --json
is "$(jv '[.[].run]')" '[1]' "runs --until '2026-11-30 03:00': run 1"
run --db "$DB" samples 1 --json
is "$(jv '[length, .[10].round, .[10].iops, .[11].iops]')" '[12,11,100000,100500]' \
	"samples 1 --json: 12 rounds, round 11 at 100000 IOPS"
run --db "$DB" show 1 --json
is "$(jv '[(.phases | length), .phases[2].steady_state.steady_round, (.phases[3].points | length)]')" \
	'[4,11,3]' "show 1 --json: four phases, steady at 11, three sweep points"
run --db "$DB" show 2 --json
is "$(jv '[.error, .phases[0].steady_state.steady]')" \
	'["write at offset 1048576 (8192 bytes): Input/output error",false]' \
	"show 2 --json: the error and the verdict"

###########################################################################
diag "--csv columns"

run --db "$DB" runs --csv
is "$(head -n 1 "$T/out")" "run,host,uuid,name,state,steady,steady_round,model,serial,device,created,ended" \
	"runs --csv header"
is "$(wc -l <"$T/out")" 5 "runs --csv: a header and four rows"
run --db "$DB" samples 1 --csv
DIRKEYS="ios,bytes,iops,bw_mbps,lat_mean_us,lat_stddev_us,lat_min_us,lat_max_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p99_9_us,lat_p99_99_us"
is "$(head -n 1 "$T/out")" \
	"round,start,end,elapsed_s,length_s,point,threads,iodepth,$DIRKEYS,$(echo ",$DIRKEYS" |
		sed 's/,/,read_/g' | cut -c2-),$(echo ",$DIRKEYS" | sed 's/,/,write_/g' |
		cut -c2-),errors,partial" \
	"samples --csv header: every stored figure, all I/O, read_ and write_"
is "$(awk -F, '{ print NF }' "$T/out" | sort -u)" 49 "samples --csv: 49 fields on every row"
# run 1 round 1: 12000000 writes of 4 KiB in 60 s; p99.9 400 us, p99.99 600 us
is "$(sed -n 2p "$T/out")" \
	"1,2026-11-30T01:23:21.000Z,2026-11-30T01:24:21.000Z,60,60,,,,12000000,49152000000,200000,819.2,100,25,20,800,90,150,250,400,600,0,0,0,0,0,0,0,0,0,0,0,0,0,12000000,49152000000,200000,819.2,100,25,20,800,90,150,250,400,600,0,false" \
	"samples 1 --csv: round 1 as stored (ios, bytes, every percentile, per direction)"
run --db "$DB" samples 1 --wide
is "$(head -n 1 "$T/out" | wc -w)" 49 "samples --wide: the 49 columns in the table too"
run --db "$DB" samples 2 --metric iops,p99 --csv
is "$(head -n 1 "$T/out")" "round,start,elapsed_s,iops,p99_us,partial" \
	"samples --metric iops,p99 --csv header: a column per metric, named with its unit"
is "$(sed -n 2p "$T/out")" "1,2026-11-30T03:06:41.000Z,60,90000,645,false" \
	"samples 2 --metric iops,p99 --csv: round 1 (5400000 I/Os / 60 s, p99 645 us)"

# a sweep's samples name their point, and its load from the points table
SWEEP=$(dbcopy sweep.db)
STATS="errors, r_ios, r_bytes, r_lat_mean_ns, r_lat_stddev_ns, r_lat_min_ns, r_lat_max_ns,
	r_lat_p50_ns, r_lat_p90_ns, r_lat_p99_ns, r_lat_p999_ns, r_lat_p9999_ns, w_ios, w_bytes,
	w_lat_mean_ns, w_lat_stddev_ns, w_lat_min_ns, w_lat_max_ns, w_lat_p50_ns, w_lat_p90_ns,
	w_lat_p99_ns, w_lat_p999_ns, w_lat_p9999_ns, a_ios, a_bytes, a_lat_mean_ns,
	a_lat_stddev_ns, a_lat_min_ns, a_lat_max_ns, a_lat_p50_ns, a_lat_p90_ns, a_lat_p99_ns,
	a_lat_p999_ns, a_lat_p9999_ns"
sqlite3 -bail "$SWEEP" "INSERT INTO samples (phase_id, seq, start_ns, end_ns, $STATS, point)
	SELECT phase_id, seq, start_ns, end_ns, $STATS, seq FROM points WHERE phase_id = 4;
	INSERT INTO samples (phase_id, seq, start_ns, end_ns, $STATS, point)
	SELECT phase_id, 4, end_ns, end_ns + 1000000000, $STATS, 4 FROM points
	WHERE phase_id = 4 AND seq = 3;" || bail_out "adding sweep samples failed"
run --db "$SWEEP" samples 1 --phase 4 --csv
is "$(cut -d, -f1,6-8,11 "$T/out" | tr '\n' ' ')" \
	"round,point,threads,iodepth,iops 1,1,2,2,40000 2,2,4,8,95000 3,3,16,16,101000 4,4,,,6060000 " \
	"samples --phase 4 --csv: point, threads and iodepth (none yet for point 4)"
run --db "$SWEEP" samples 1 --phase 4
like "$(sed -n 2p "$T/out")" '^ +1  2026-11-30 01:35:21 +60.0 +1 +2 +2 +40000.0 ' \
	"samples of a sweep: the table shows point, threads and iodepth"

# plateau's own CSV back into analyze: a partial interval is not a round
PART=$(dbcopy partial.db)
sqlite3 -bail "$PART" "UPDATE samples SET partial = 1 WHERE phase_id = 3 AND seq = 12" ||
	bail_out "marking a partial sample failed"
run --db "$PART" samples 1 --csv
cp "$T/out" "$T/partial.csv"
run --db "$PART" steady 1 --json
STORED=$(jq -c 'del(.source, .unit)' "$T/out")
run analyze "$T/partial.csv" --json
is "$(jq -c 'del(.source, .unit)' "$T/out")" "$STORED" \
	"analyze of samples --csv: the verdict steady gives the stored phase (11 rounds)"
is "$(jv '[.rounds, .source.entries, .source.partial_rows]')" '[11,12,1]' \
	"  the partial row read and left out"
STEADY_CSV="metric,criterion,window,rounds,steady,steady_round,window_start,window_end,average,slope,intercept,data_excursion,slope_excursion,data_limit,slope_limit,lost,lost_round"
run --db "$DB" steady 2 --csv
is "$(head -n 1 "$T/out")" "$STEADY_CSV" "steady --csv header"
is "$(sed -n 2p "$T/out")" "iops,snia,5,12,false,,8,12,36000,-6000,96000,24000,24000,7200,3600,false," \
	"steady 2 --csv: not steady, the last window's evidence"
run analyze $FIX/analyze-steady.csv --csv
is "$(head -n 1 "$T/out")" "$STEADY_CSV" "analyze --csv header"
is "$(sed -n 2p "$T/out")" "iops,snia,5,10,true,8,4,8,30940,-660,34900,3000,2640,6188,3094,false," \
	"analyze CSV --csv: steady at round 8"

###########################################################################
diag "--db before and after the command, --db=, PLATEAU_DB"

run --db "$DB" runs
WANT=$OUT
run runs --db "$DB"
is "$OUT" "$WANT" "--db after the command"
run runs --db="$DB"
is "$OUT" "$WANT" "--db=PATH"
run --json runs --db "$DB"
run runs --db "$DB" --json
is "$(jv '[.[].run]')" '[1,2,3,4]' "--json after --db after the command"
export PLATEAU_DB=$DB
run runs
is "$RC" 0 "PLATEAU_DB: exit 0"
is "$OUT" "$WANT" "PLATEAU_DB names the database"
PLATEAU_DB=$T/missing.db
run --db "$DB" runs
is "$OUT" "$WANT" "--db wins over PLATEAU_DB"
PLATEAU_DB=$DB
expect_fail 3 "$T/other-missing.db" "--db wins over PLATEAU_DB (missing)" \
	--db "$T/other-missing.db" runs
unset PLATEAU_DB
if [ -e /var/lib/plateau/plateau.db ]; then
	skip 4 "/var/lib/plateau/plateau.db exists here"
else
	expect_fail 3 "/var/lib/plateau/plateau.db" "the default database" runs
fi

###########################################################################
diag "read-only: the CLI never writes the database"

RO=$(dbcopy ro.db)
# an absent file sums as an empty one (a reader may leave an empty -wal)
sum() { { [ ! -e "$1" ] || cat "$1"; } | sha256sum | cut -d' ' -f1; }
BEFORE="$(sum "$RO") $(sum "$RO-wal")"
for args in "runs" "runs --json" "show 1" "show 2 --json" "samples 1" "samples 1 --csv" \
	"steady 1" "steady 2" "steady 1 --criterion fio-dev" "migrate"; do
	# shellcheck disable=SC2086
	run --db "$RO" $args
done
is "$(sum "$RO") $(sum "$RO-wal")" "$BEFORE" "a set of queries leaves the db and its -wal as they were"

chmod 444 "$RO"
run --db "$RO" runs
is "$RC" 0 "runs on a mode 444 database: exit 0"
is "$OUT" "$WANT" "runs on a mode 444 database: the runs"
run --db "$RO" steady 1
is "$RC" 0 "steady on a mode 444 database: exit 0"
is "$(sum "$RO") $(sum "$RO-wal")" "$BEFORE" "the mode 444 database is unchanged"

# A reader that cannot write the directory (a user reading the daemon's
# database) with no -wal/-shm next to it (the daemon closed it cleanly).
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null &&
	runuser -u nobody -- test -x "$PLATEAU" 2>/dev/null; then
	mkdir "$T/ro-dir"
	cp "$DB" "$T/ro-dir/plateau.db"
	# plateaud keeps -wal and -shm (SQLITE_FCNTL_PERSIST_WAL): copy them too
	cp "$DB-wal" "$T/ro-dir/plateau.db-wal"
	cp "$DB-shm" "$T/ro-dir/plateau.db-shm"
	chmod 755 "$T" "$T/ro-dir"
	chmod 644 "$T/ro-dir/plateau.db" "$T/ro-dir/plateau.db-wal" "$T/ro-dir/plateau.db-shm"
	runuser -u nobody -- "$PLATEAU" --db "$T/ro-dir/plateau.db" runs >"$T/out" 2>"$T/err"
	RC=$?
	is "$RC" 0 "a user who cannot write the directory can list the runs" || diag "$(cat "$T/err")"
	rm "$T/ro-dir/plateau.db-wal" "$T/ro-dir/plateau.db-shm"
	runuser -u nobody -- "$PLATEAU" --db "$T/ro-dir/plateau.db" runs >"$T/out" 2>"$T/err"
	is "$?" 2 "without -wal/-shm it cannot: exit 2"
	has "$(cat "$T/err")" "-wal/-shm files are missing" "and says why"
	chmod 700 "$T"
else
	skip 1 "needs root, runuser and a build directory 'nobody' can reach"
fi

###########################################################################
diag "migrate: schema 1 to the latest, data kept"

V1=$T/v1.db
{
	cat "$PLATEAU_SRC"/schema/001-*.sql
	echo 'PRAGMA application_id = 1347179605; PRAGMA user_version = 1;'
} | sqlite3 -bail "$V1" || bail_out "building a schema-1 database failed"
# the fixture minus what schema 1 does not have (points)
grep -v 'INSERT INTO points' "$PLATEAU_SRC/$FIX/basic.sql" | sqlite3 -bail "$V1" ||
	bail_out "loading basic.sql into schema 1 failed"
expect_fail 2 "migrate" "a schema-1 database is refused, naming the cure" --db "$V1" steady 1
has "$ERR" "version 1 is older" "a schema-1 database: names its version"
run --db "$V1" migrate
is "$RC" 0 "migrate: exit 0"
is "$OUT" "$V1: upgraded from schema version 1 to $LATEST" "migrate: says both versions"
is "$(sqlite3 "$V1" 'PRAGMA user_version')" "$LATEST" "migrate: user_version is $LATEST"
is "$(sqlite3 "$V1" "SELECT count(*) FROM sqlite_master WHERE name = 'points'")" 1 \
	"migrate: the points table exists"
is "$(sqlite3 "$V1" 'SELECT count(*) FROM samples')" 27 "migrate: the 27 samples are kept"
is "$(sqlite3 "$V1" 'PRAGMA integrity_check')" ok "migrate: integrity_check ok"
run --db "$V1" migrate
is "$OUT" "$V1: schema version $LATEST, nothing to do" "migrate again: nothing to do"
run --db "$V1" steady 1
is "$RC" 0 "after migrate: steady 1 exits 0"
is_file "$T/out" "$GOLDEN/steady-1.txt" "after migrate: steady 1 as on the latest schema"
run --db "$V1" runs
is "$OUT" "$WANT" "after migrate: the same runs"

###########################################################################
diag "help and version"

run help
is "$RC" 0 "help: exit 0"
for c in runs show samples steady analyze migrate; do
	has "$OUT" "  $c " "help lists $c"
done
run help steady
has "$OUT" "--criterion" "help steady: documents --criterion"
run steady --help
has "$OUT" "usage: plateau steady" "steady --help: the usage"
run
is "$RC" 2 "no command: exit 2"
run --version
like "$OUT" '^plateau [0-9]+\.[0-9]+' "--version"


###########################################################################
diag "show: the requester (schema 3)"

REQ=$(dbcopy requester.db)
sqlite3 -bail "$REQ" <"$PLATEAU_SRC/$FIX/requester.sql" || bail_out "loading requester.sql failed"
run --db "$REQ" show 1
has "$OUT" "  requested by  uid 1000 (pid 4242: plateau start nightly.plan) via plateaud" \
	"show 1: requested over plateaud's socket"
run --db "$REQ" show 2
has "$OUT" "  requested by  uid 0 (pid 77: plateau run qlc.plan) via plateau run" \
	"show 2: root, in the foreground"
run --db "$REQ" show 3
has "$OUT" "  requested by  uid 1001 (pid unknown: plateau start ?[31mred.plan) via plateaud" \
	"show 3: no pid; the escape character printed as ?"
run --db "$REQ" show 4
has "$OUT" "  requested by  unknown (stored before plateau recorded requesters)" \
	"show 4: unknown"
run --db "$REQ" show 1 --json
is "$(jv .requester)" '{"uid":1000,"pid":4242,"cmd":"plateau start nightly.plan","via":"plateaud"}' \
	"show 1 --json: the requester, integers as integers"
run --db "$REQ" show 3 --json
is "$(jv '.requester | [.pid, .cmd]')" '[null,"plateau start \u001b[31mred.plan"]' \
	"show 3 --json: null pid, the command as stored"
run --db "$REQ" show 4 --json
is "$(jv .requester)" '{"uid":null,"pid":null,"cmd":null,"via":null}' "show 4 --json: all null"
sqlite3 "$REQ" "PRAGMA ignore_check_constraints = ON;
	UPDATE runs SET requester_uid = -1 WHERE id = 1;" || bail_out "sqlite3 failed"
expect_fail 2 "requester_uid" "a negative requester uid (show)" --db "$REQ" show 1
has "$ERR" "runs row 1" "a negative requester uid: names the row"

done_testing
