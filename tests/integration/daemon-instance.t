#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-instance.t: one plateaud per database and per socket.  A second
# plateaud started by hand while the first one is carrying out a run must
# not take that run over (resume it a second time, on the same drive, into
# the same rows) nor take over the first one's control socket; the run
# completes intact under the first daemon.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

SOCK2=$W/other.sock
f=$(mkfile a.img 32M)
cat >"$W/a.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = instance
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = 15
EOF
nsamples() { sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id 1 2);"; }
samples_at_least() { [ "$(nsamples)" -ge "$1" ]; }

daemon_start || bail_out "no daemon: $(cat "$LOG")"
first=$DPID
is "$(pctl start "$W/a.plan" 2>&1)" "run 1 started" "run 1 starts under the first plateaud"
wait_for 20 "run 1 to precondition" samples_at_least 2
ok $? "run 1 is preconditioning"

# --- a second plateaud on the same database, another socket ---
"$PLATEAUD" --db "$DB" --socket "$SOCK2" >>"$W/second.log" 2>&1 &
second=$!
track "$second"
wait_for 3 "the second plateaud to give up" _gone "$second"
gone=$?
if [ "$gone" != 0 ]; then
	kill -TERM "$second" 2>/dev/null
	wait_for 10 "the second plateaud to exit" _gone "$second"
fi
wait "$second" 2>/dev/null
rc=$?
ok "$gone" "a second plateaud on the same database refuses to start (exit $rc)" ||
	diag "its log: $(cat "$W/second.log")"
isnt "$rc" 0 "  with a non-zero exit status"
unlike "$(cat "$W/second.log")" "resuming run 1" "  and does not resume the first one's run"
like "$(cat "$W/second.log")" "another plateaud \(pid $first\) already runs on $DB" "  and says which plateaud holds the database"

# --- a second plateaud on the same socket, another database ---
"$PLATEAUD" --db "$W/other.db" --socket "$SOCK" >>"$W/third.log" 2>&1 &
third=$!
track "$third"
wait_for 3 "the third plateaud to give up" _gone "$third"
gone=$?
if [ "$gone" != 0 ]; then
	kill -TERM "$third" 2>/dev/null
	wait_for 10 "the third plateaud to exit" _gone "$third"
fi
wait "$third" 2>/dev/null
ok "$gone" "a second plateaud on a socket that a live plateaud serves refuses to start" ||
	diag "its log: $(cat "$W/third.log")"
out=$(pctl status --json 2>&1)
like "$out" '"run": 1,' "the first plateaud still answers on its socket, with run 1"

out=$(timeout 60 "$PLATEAU" --db "$DB" wait 1 --timeout 40s 2>&1)
is "$out" "run 1 done" "run 1 completes under the first plateaud"
is "$(sql "SELECT count(*) FROM events WHERE run_id = 1 AND kind IN ('run-failed', 'run-resumed', 'gap');")" 0 \
	"no one else resumed it (no run-resumed, gap or run-failed event)"
is "$(sql "SELECT rounds FROM phases WHERE run_id = 1 AND seq = 2;")" 15 "its 15 rounds"
check_run 1
DPID=$first
daemon_term 10
is "$DSTATUS" 0 "the first plateaud exits 0"
done_testing
