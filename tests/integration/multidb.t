#!/bin/bash
# SPDX-License-Identifier: MIT
#
# multidb.t: the reading commands over several databases (issue 13, "many
# hosts, one lab").  Three databases made from tests/fixtures/basic.sql as
# if on three hosts: every run's host set to alpha, beta or gamma and its
# uuid to one that says where it is:
#
#   a.db  alpha  aaaaaaaa-000N-4000-8000-000000000000   runs 1 2 3 4
#   b.db  beta   aaaaaaaa-b00N-4000-8000-000000000000   runs 1 2 3
#   c.db  gamma  c000000N-0000-4000-8000-000000000000   runs 1 2 3
#
# (a and b share their first 8 hex digits: a prefix that short names 7
# runs).  b's samples start an hour later than the others', and its run
# names start with "beta-", so output from the wrong database shows.
# Checked: runs over all three (and over their directory, and a file given
# twice), run numbers, HOST:N and uuid prefixes, the errors for ambiguous
# and missing runs, the single-database commands refusing a second --db,
# and the did-you-mean of commands and options.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/multidb.t
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
MKDB=$PLATEAU_BUILD/tests/helpers/mkdb

[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
[ -x "$MKDB" ] || skip_all "no $MKDB (make tests)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"
command -v jq >/dev/null || skip_all "no jq (apt-get install jq)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-multidb.XXXXXX") || bail_out "mktemp failed"
trap 'rm -rf "$T"' EXIT
D=$T/lab
mkdir "$D" || bail_out "mkdir failed"

# mkhost DB HOST UUID-FORMAT [SQL]: basic.sql as if run on HOST
mkhost() {
	local db=$1 host=$2 fmt=$3 extra=${4:-}
	"$MKDB" "$db" || bail_out "mkdb $db failed"
	sqlite3 -bail "$db" <"$PLATEAU_SRC/tests/fixtures/basic.sql" || bail_out "basic.sql failed"
	sqlite3 -bail "$db" "UPDATE runs SET host = '$host', uuid = printf('$fmt', id); $extra" ||
		bail_out "setting the host of $db failed"
	# opened once more as plateaud would, which leaves -wal and -shm in place
	"$MKDB" "$db" || bail_out "mkdb $db failed"
}
HOUR_NS=3600000000000
mkhost "$D/a.db" alpha 'aaaaaaaa-%04d-4000-8000-000000000000'
mkhost "$D/b.db" beta 'aaaaaaaa-b%03d-4000-8000-000000000000' \
	"DELETE FROM runs WHERE id = 4; UPDATE runs SET name = 'beta-' || name;
	 UPDATE samples SET start_ns = start_ns + $HOUR_NS, end_ns = end_ns + $HOUR_NS;"
mkhost "$D/c.db" gamma 'c%07d-0000-4000-8000-000000000000' "DELETE FROM runs WHERE id = 4;"
echo "not a database" >"$D/notes.txt" # not *.db: ignored in the directory
mkdir "$T/empty"
ABC=(--db "$D/a.db" --db "$D/b.db" --db "$D/c.db")

# run ARGS...: plateau; sets RC, OUT, ERR
run() {
	"$PLATEAU" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# fails RC NEEDLE NAME ARGS...: exit RC, one line on stderr naming NEEDLE,
# nothing on stdout
fails() {
	local want_rc=$1 needle=$2 name=$3
	shift 3
	run "$@"
	is "$RC" "$want_rc" "$name: exit $want_rc"
	is "$(wc -l <"$T/err")" 1 "$name: one line on stderr"
	has "$ERR" "$needle" "$name: names '$needle'"
	is "$OUT" "" "$name: nothing on stdout"
}

###########################################################################
diag "runs over three databases"

run "${ABC[@]}" runs --csv
is "$RC" 0 "runs --csv over three databases: exit 0"
is "$(head -n 1 "$T/out")" \
	"run,host,uuid,name,state,steady,steady_round,model,serial,device,created,ended,db" \
	"runs --csv: host, uuid, the verdict and the database among the columns"
is "$(tail -n +2 "$T/out" | wc -l)" 10 "runs --csv: the 4 + 3 + 3 runs"
is "$(tail -n +2 "$T/out" | cut -d, -f3 | sort -u | wc -l)" 10 "each with its own uuid"
is "$(tail -n +2 "$T/out" | cut -d, -f2 | sort | uniq -c | awk '{ print $2 "=" $1 }' | xargs)" \
	"alpha=4 beta=3 gamma=3" "each with its host"
is "$(sed -n 2,4p "$T/out" | cut -d, -f1-3 | xargs)" \
	"1,alpha,aaaaaaaa-0001-4000-8000-000000000000 1,beta,aaaaaaaa-b001-4000-8000-000000000000 1,gamma,c0000001-0000-4000-8000-000000000000" \
	"oldest first; runs made at the same time in the order of --db"
is "$(grep -c ',steady,true,11,\|,true,11,' "$T/out")" 3 \
	"run 1 of each host: steady at round 11 (its stored verdict)"
CSV3=$OUT

run --db "$D" runs --csv
is "$RC" 0 "runs --db DIR: exit 0"
is "$OUT" "$CSV3" "--db DIR reads every *.db in it, in name order"
run --db "$D" --db "$D/b.db" --db "$D/../lab/a.db" runs --csv
is "$OUT" "$CSV3" "a database named twice (a directory and its file) is read once"

run "${ABC[@]}" runs --json
is "$(jq -r '[.[] | select(.host == "beta") | .name] | join(" ")' <<<"$OUT")" \
	"beta-nightly-4k beta-qlc-never beta-in-progress" "runs --json: beta's runs"
is "$(jq -c '[.[] | select(.run == 1) | [.steady, .steady_round]] | unique' <<<"$OUT")" \
	'[[true,11]]' "runs --json: steady true at round 11 for every run 1"
is "$(jq -c '[.[] | select(.run == 2) | [.steady, .steady_round]] | unique' <<<"$OUT")" \
	'[[false,null]]' "runs --json: run 2 not steady, no round"
is "$(jq -c '[.[] | select(.run == 3) | .steady] | unique' <<<"$OUT")" '[null]' \
	"runs --json: run 3 (still preconditioning) not judged: null"

run "${ABC[@]}" runs
is "$(head -n 1 "$T/out" | awk '{ print $1, $2, $3, $4, $5 }')" "RUN HOST NAME STATE STEADY" \
	"the table shows HOST when the runs come from several hosts"
like "$(sed -n 2p "$T/out")" '^ +1 +alpha +nightly-4k +done +steady r11 ' \
	"a row: run, host, name, state, verdict"
like "$(grep qlc-never "$T/out" | head -n 1)" ' failed +not steady ' "a run not steady"
run --db "$D/c.db" runs
is "$(head -n 1 "$T/out" | awk '{ print $1, $2 }')" "RUN NAME" "one host: no HOST column"

fails 3 "no database" "an empty directory" --db "$T/empty" runs
fails 3 "$T/none.db" "a missing database among others" "${ABC[@]}" --db "$T/none.db" runs

###########################################################################
diag "RUN: a number, HOST:N, a uuid prefix"

run "${ABC[@]}" show 4 --json
is "$RC" 0 "show 4: only a.db has a run 4"
is "$(jq -r '.host + " " + .name' <<<"$OUT")" "alpha queued-one" "  it is alpha's"

fails 2 "names 3 runs" "show 1: in every database" "${ABC[@]}" show 1
has "$ERR" "alpha:1 aaaaaaaa-0001-4000-8000-000000000000 in $D/a.db" "  lists alpha:1 with its uuid"
has "$ERR" "beta:1 aaaaaaaa-b001-4000-8000-000000000000 in $D/b.db" "  lists beta:1"
has "$ERR" "gamma:1 c0000001-0000-4000-8000-000000000000 in $D/c.db" "  lists gamma:1"
has "$ERR" "HOST:N" "  and says how to name one"
fails 2 "names 3 runs" "samples 2 as well" "${ABC[@]}" samples 2
fails 3 "no run 9" "run 9 is nowhere" "${ABC[@]}" show 9

run "${ABC[@]}" show beta:1 --json
is "$RC" 0 "show beta:1: exit 0"
is "$(jq -r '.host + " " + .name' <<<"$OUT")" "beta beta-nightly-4k" "  beta's run 1"
run "${ABC[@]}" samples beta:1 --csv
BETA_SAMPLES=$OUT
run --db "$D/b.db" samples 1 --csv
is "$BETA_SAMPLES" "$OUT" "samples beta:1 over three = samples 1 of b.db alone"
run --db "$D/a.db" samples 1 --csv
isnt "$BETA_SAMPLES" "$OUT" "  and not a.db's (an hour earlier)"
run "${ABC[@]}" steady gamma:1
is "$RC" 0 "steady gamma:1: steady (exit 0)"
run "${ABC[@]}" steady gamma:2
is "$RC" 1 "steady gamma:2: not steady (exit 1)"
fails 3 "no run delta:1" "an unknown host" "${ABC[@]}" show delta:1
fails 3 "no run alpha:9" "an unknown run of a known host" "${ABC[@]}" show alpha:9
fails 2 "HOST:N" "HOST:N without a number" "${ABC[@]}" show alpha:x

run "${ABC[@]}" show c0000002 --json
is "$RC" 0 "show by an 8-digit uuid prefix: exit 0"
is "$(jq -r '.host + " " + .name' <<<"$OUT")" "gamma qlc-never" "  gamma's run 2"
run "${ABC[@]}" show C0000002-0000 --json
is "$(jq -r '.host' <<<"$OUT")" "gamma" "a prefix in capitals, with a dash"
run "${ABC[@]}" show aaaaaaaab003 --json
is "$(jq -r '.host + " " + .name' <<<"$OUT")" "beta beta-in-progress" \
	"a prefix without its dash: beta's run 3"
run "${ABC[@]}" show aaaaaaaa-0002-4000-8000-000000000000 --json
is "$(jq -r '.host + " " + .name' <<<"$OUT")" "alpha qlc-never" "a whole uuid: alpha's run 2"
fails 2 "names 7 runs" "an 8-digit prefix of 7 runs" "${ABC[@]}" show aaaaaaaa
has "$ERR" "longer uuid prefix" "  says to give more of it"
fails 3 "no run with a uuid starting deadbeef" "a uuid prefix of no run" "${ABC[@]}" show deadbeef
fails 2 "at least its first 8 hex digits" "7 hex digits are too few" "${ABC[@]}" show c000000
fails 2 "not 'zzz'" "not a RUN at all" "${ABC[@]}" show zzz

# one database: the old messages stay
fails 3 "no run 99 in $D/a.db" "one database, an unknown run" --db "$D/a.db" show 99
run --db "$D/a.db" show gamma:1
is "$RC" 3 "one database: HOST:N of another host is not found"

###########################################################################
diag "a run held in two databases (exported, imported) is one run"

# lab1.db: beta's run 1, then alpha's run 1 (its run 2 there); lab2.db:
# alpha's run 1 alone (its run 1 there too).  Outside $D: the listings above
# stay as they are.
UA1=aaaaaaaa-0001-4000-8000-000000000000
run --db "$D/b.db" export 1 -o "$T/b1.exp"
run --db "$D/a.db" export 1 -o "$T/a1.exp"
is "$RC" 0 "alpha's run 1 exported"
run --db "$T/lab1.db" import "$T/b1.exp"
run --db "$T/lab1.db" import "$T/a1.exp"
has "$OUT" "alpha $UA1: imported as run 2" "  and imported into lab1.db as its run 2"
run --db "$T/lab2.db" import "$T/a1.exp"
has "$OUT" "alpha $UA1: imported as run 1" "  and into lab2.db as its run 1"

run --db "$D/a.db" --db "$T/lab1.db" show "$UA1" --json
is "$RC" 0 "show UUID held in a.db and lab1.db: exit 0 (was 'names 2 runs')"
is "$(jq -r '"\(.run) \(.uuid)"' <<<"$OUT")" "1 $UA1" "  a.db's copy: the first --db"
run --db "$T/lab1.db" --db "$D/a.db" show "$UA1" --json
is "$(jq -r '"\(.run) \(.uuid)"' <<<"$OUT")" "2 $UA1" "  lab1.db first: lab1.db's copy (run 2)"
run --db "$D/a.db" --db "$T/lab2.db" show alpha:1 --json
is "$RC" 0 "show HOST:N, run 1 of alpha in both: exit 0"
is "$(jq -r .uuid <<<"$OUT")" "$UA1" "  the one run"
run --db "$D/a.db" --db "$T/lab2.db" show 1 --json
is "$RC" 0 "show 1: a.db's run 1 and its copy in lab2.db are one run"
run --db "$D/a.db" --db "$T/lab2.db" report "$UA1" -o "$T/copies.html"
is "$RC" 0 "report UUID over a.db and lab2.db: exit 0"
ok "$([ -s "$T/copies.html" ]; echo $?)" "  the report written"
fails 2 "names 4 runs" "different uuids of one prefix are still ambiguous (the copy counted once)" \
	--db "$D/a.db" --db "$T/lab1.db" show aaaaaaaa-0
has "$ERR" "aaaaaaaa-0002" "  a.db's run 2 among them"

run --db "$D/a.db" --db "$T/lab1.db" runs --json
is "$RC" 0 "runs over a.db and lab1.db: exit 0"
is "$(jq length <<<"$OUT")" 5 "  alpha's 4 runs and beta's 1: the copy listed once"
is "$(jq -r --arg u "$UA1" '[.[] | select(.uuid == $u) | .db] | join(" ")' <<<"$OUT")" \
	"$D/a.db" "  from the first database (key db)"
is "$(jq -r '[.[] | select(.host == "beta") | .db] | join(" ")' <<<"$OUT")" "$T/lab1.db" \
	"  beta's run: from lab1.db, the only one holding it"
run --db "$T/lab1.db" --db "$D/a.db" runs --csv
is "$(head -n 1 "$T/out")" \
	"run,host,uuid,name,state,steady,steady_round,model,serial,device,created,ended,db" \
	"runs --csv over several databases: a db column"
is "$(grep -c "$UA1" "$T/out")" 1 "  the copy listed once"
has "$(grep "$UA1" "$T/out")" "2,alpha,$UA1," "  as lab1.db's run 2 (lab1.db given first)"
has "$(grep "$UA1" "$T/out")" ",$T/lab1.db" "  naming lab1.db"

###########################################################################
diag "the commands that use one database"

fails 2 "uses one database" "status with two --db" --db "$D/a.db" --db "$D/b.db" status
fails 2 "uses one database" "import with two --db" --db "$D/a.db" --db "$D/b.db" import x.db
fails 2 "uses one database" "migrate with two --db" --db "$D/a.db" --db "$D/b.db" migrate

###########################################################################
diag "did you mean"

fails 2 "did you mean status?" "plateau staus" staus
fails 2 "did you mean samples?" "plateau smaples (transposed)" smaples
run frobnicate
unlike "$ERR" "did you mean" "a word far from every command: no suggestion"
is "$RC" 2 "  exit 2"
fails 2 "did you mean status?" "plateau help stauts" help stauts
fails 2 "did you mean --serial?" "runs --seriall" --db "$D/a.db" runs --seriall X
fails 2 "did you mean --metric?" "samples --metirc" --db "$D/a.db" samples 1 --metirc iops
fails 2 "did you mean --json?" "a global option mistyped before the command" --jsno runs
fails 2 "did you mean --db?" "a global option mistyped after it" runs --dbb "$D/a.db"
fails 2 "--serial needs a value" "runs --serial without its value" --db "$D/a.db" runs --serial
fails 2 "'--bogus'" "runs --bogus: no suggestion, the option named" --db "$D/a.db" runs --bogus
unlike "$ERR" "did you mean" "  and nothing suggested"
# stop, status and check parse no options: a mistyped one was "not a run number"
fails 2 "status: unknown option '--jsno': did you mean --json?" "status --jsno (after the command)" status --jsno
fails 2 "stop: unknown option or missing value: '--now'" "stop --now: the option named" stop --now 1
fails 2 "check: unknown option '--jsn': did you mean --json?" "check --jsn" check --jsn x.plan
# the option named as given, not '-?'; show's mistakes named too; no
# suggestion of a format the command refuses
fails 2 "drives: unknown option or missing value: '--foo'" "drives --foo: the option named" \
	drives --foo
fails 2 "drives: unknown option '--jsn': did you mean --json?" "drives --jsn" drives --jsn
fails 2 "show: unknown option '--jsn': did you mean --json?" "show 1 --jsn" \
	--db "$D/a.db" show 1 --jsn
fails 2 "show: unknown option '--jsn': did you mean --json?" "show --jsn 1" \
	--db "$D/a.db" show --jsn 1
fails 2 "show: unknown option or missing value: '--cvs'" "show --cvs: show has no --csv" \
	--db "$D/a.db" show 1 --cvs
unlike "$ERR" "did you mean" "  and suggests none"
fails 2 "stop: unknown option or missing value: '--jsno'" "stop --jsno: stop takes no --json" \
	stop --jsno 1
unlike "$ERR" "did you mean" "  and suggests none"
fails 2 "import: unknown option or missing value: '--jsno'" "import --jsno: no --json either" \
	--db "$T/none.db" import --jsno x.db
unlike "$ERR" "did you mean" "  and suggests none"

done_testing
