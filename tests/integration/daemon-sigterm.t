#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-sigterm.t: SIGTERM pauses the runs with their state committed
# (a run-paused event, the run still active in the database, plateaud
# exits 0 promptly), and the next start resumes them (run-resumed, a gap
# for a precondition, a fill from exactly where it paused) to the end.
# A run stopped with `plateau stop` is not resumed.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

nsamples() { sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id "$1" "$2");"; }
samples_at_least() { [ "$(nsamples "$1" "$2")" -ge "$3" ]; }
fill_bytes() { sql "SELECT progress_bytes FROM phases WHERE run_id = $1 AND kind = 'fill';"; }
fill_started() { [ "$(fill_bytes "$1")" -gt 0 ] 2>/dev/null; }

# write_plan FILE DEVICE NAME
write_plan() {
	cat >"$1" <<EOF
[run]
device = $2
serial = $(serial_of "$2")
name = $3
interval = 200ms

[fill]
passes = 1
bs = 4k
iodepth = 1

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 4
steady = none
max_rounds = 10
EOF
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# === SIGTERM during precondition ===
f=$(mkfile pre.img 32M)
write_plan "$W/pre.plan" "$f" term-pre
out=$(pctl start "$W/pre.plan" 2>&1)
is "$out" "run 1 started" "run 1 starts"
wait_for 30 "3 precondition samples" samples_at_least 1 2 3
ok $? "run 1 is preconditioning"
t0=$(now_ms)
daemon_term 10
ok $? "plateaud exits after SIGTERM"
is "$DSTATUS" 0 "with status 0"
dt=$(($(now_ms) - t0))
ok "$([ "$dt" -lt 3000 ] && echo 0 || echo 1)" "promptly (${dt} ms)"
is "$(run_state 1)" preconditioning "the run is still preconditioning in the database"
is "$(sql "SELECT state FROM phases WHERE run_id = 1 AND seq = 2;")" running "its phase is still running"
is "$(sql "SELECT kind FROM events WHERE run_id = 1 ORDER BY id DESC LIMIT 1;")" run-paused \
	"the last event is run-paused"
like "$(sql "SELECT message FROM events WHERE run_id = 1 AND kind = 'run-paused';")" \
	"paused in phase 2 \(precondition\)" "run-paused names the phase"
has "$(cat "$LOG")" "run 1 paused" "the log says the run paused"
kept=$(sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id 1 2) AND partial = 0;")
is "$(sql "SELECT rounds FROM phases WHERE run_id = 1 AND seq = 2;")" "$kept" \
	"the paused phase's rounds ($kept) match its whole samples"
is "$(sql 'PRAGMA integrity_check;')" ok "integrity_check = ok after the pause"

daemon_start
ok $? "plateaud starts again"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 1 --timeout 40s 2>&1)
is "$out" "run 1 done" "the paused run resumes and completes"
like "$(event_kinds 1 '^(run-|gap)')" "^run-created run-started run-paused run-resumed gap run-done$" \
	"events: started, paused, resumed, gap, done"
like "$(sql "SELECT message FROM events WHERE run_id = 1 AND kind = 'gap';")" \
	"^precondition resumes after $kept rounds" "the gap keeps the $kept rounds measured before the pause"
is "$(sql "SELECT rounds FROM phases WHERE run_id = 1 AND seq = 2;")" 10 "10 rounds in all"
check_run 1

# === SIGTERM during fill ===
f=$(mkfile fill.img 96M)
write_plan "$W/fill.plan" "$f" term-fill
out=$(pctl start "$W/fill.plan" 2>&1)
is "$out" "run 2 started" "run 2 starts"
wait_for 30 "run 2's fill to commit progress" fill_started 2
ok $? "run 2 is filling"
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0 after SIGTERM during fill"
paused_at=$(fill_bytes 2)
total=$(sql "SELECT total_bytes FROM phases WHERE run_id = 2 AND kind = 'fill';")
is "$(run_state 2)" filling "the run is still filling in the database (paused at $paused_at of $total)"
ok "$([ "$paused_at" -gt 0 ] && [ "$paused_at" -lt "$total" ] && echo 0 || echo 1)" \
	"the pause committed a partial fill offset"
daemon_start
ok $? "plateaud starts again"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 2 --timeout 40s 2>&1)
is "$out" "run 2 done" "the paused fill resumes and the run completes"
is "$(sql "SELECT message FROM events WHERE run_id = 2 AND message LIKE 'fill resumes%';")" \
	"fill resumes at byte $paused_at of $total" "the fill resumed where it paused"
check_run 2

# === a stopped run stays stopped ===
f=$(mkfile stop.img 32M)
write_plan "$W/stop.plan" "$f" term-stop
out=$(pctl start "$W/stop.plan" 2>&1)
is "$out" "run 3 started" "run 3 starts"
wait_for 30 "run 3's fill to commit progress" fill_started 3
out=$(pctl stop 3 2>&1)
is "$out" "run 3: stop requested" "plateau stop 3"
wait_for 10 "run 3 to end stopped" eval '[ "$(run_state 3)" = stopped ]'
ok $? "run 3 ends stopped"
is "$(event_kinds 3 '^run-')" "run-created run-started run-stopped" "run-stopped recorded"
daemon_term 10
daemon_start
sleep 0.5 # give a (wrong) resume the time to show
is "$(run_state 3)" stopped "a stopped run is not resumed at the next start"
is "$(pctl status 2>&1)" "no runs in progress" "the daemon carries no run after restart"
check_run 3 stopped
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"
done_testing
