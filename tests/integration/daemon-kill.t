#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-kill.t: plateaud killed with SIGKILL in the middle of a run, then
# started again, finishes the run as if nothing had happened but a gap:
#   - during fill: the fill resumes at its last committed offset (a
#     "fill resumes at byte N" event naming exactly what was committed), its
#     progress never goes back and ends complete, and the fill's samples
#     account for every byte;
#   - during precondition (twice in a row): the rounds already measured are
#     kept and judged again, a "gap" event says how many, the phase goes on
#     to exactly max_rounds whole rounds in all;
#   - during sweep: the interrupted load point is measured again, one
#     points row per point;
#   - during a zero-fill erase: the erase starts again and completes;
#   - during a precondition bounded by max_duration: the time measured
#     before the kill counts, the gap does not.
#   - during fill on a loop device (root), restarted at once: the resumed
#     fill gets the device (the dead daemon's claim on it is released
#     asynchronously by the kernel) and completes.
# Every time: samples numbered 1..N in each phase with no duplicate and no
# hole, a run-resumed event, the run done, PRAGMA integrity_check = ok.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

fill_bytes() { sql "SELECT progress_bytes FROM phases WHERE run_id = $1 AND kind = 'fill';"; }
fill_total() { sql "SELECT total_bytes FROM phases WHERE run_id = $1 AND kind = 'fill';"; }
nsamples() { sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id "$1" "$2");"; }

# record the fill's progress as seen from outside, in order
OBS=()
observe_fill() {
	local v
	v=$(fill_bytes "$1")
	[ -n "$v" ] && OBS+=("$v")
}
# poll: fill of run $1 committed at least $2 percent (and not done)
fill_reached() {
	local p t
	observe_fill "$1"
	p=${OBS[-1]:-0}
	t=$(fill_total "$1")
	[ -n "$t" ] && [ "$t" -gt 0 ] && [ $((p * 100)) -ge $((t * $2)) ]
}
run_over() { [[ $(run_state "$1") =~ ^(done|failed|stopped)$ ]]; }
observe_until_over() {
	observe_fill "$1"
	run_over "$1"
}
samples_at_least() { [ "$(nsamples "$1" "$2")" -ge "$3" ]; }
points_at_least() { [ "$(sql "SELECT count(*) FROM points WHERE phase_id = $(phase_id "$1" "$2");")" -ge "$3" ]; }
monotonic() {
	local prev=0 v
	for v in "$@"; do
		[ "$v" -lt "$prev" ] && return 1
		prev=$v
	done
	return 0
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# === kill -9 during fill ===
f=$(mkfile fill.img 128M)
cat >"$W/fill.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-fill
interval = 200ms

[fill]
passes = 1
bs = 4k
iodepth = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = 4

[sweep]
points = 1x2
time = 400ms
ramp = 100ms
EOF
out=$(pctl start "$W/fill.plan" 2>&1)
is "$out" "run 1 started" "fill: run 1 starts"
wait_for 30 "run 1's fill to reach 25%" fill_reached 1 25
ok $? "fill: a quarter of the fill committed"
is "$(run_state 1)" filling "fill: the run is filling when the daemon is killed"
daemon_kill9
ok "$(kill -0 "$DPID" 2>/dev/null && echo 1 || echo 0)" "fill: plateaud is gone after kill -9"
killed_at=$(fill_bytes 1)
observed=${OBS[-1]}
ok "$([ "$killed_at" -ge "$observed" ] && echo 0 || echo 1)" \
	"fill: the committed offset ($killed_at) is not behind what was seen before the kill ($observed)"
is "$(run_state 1)" filling "fill: the database still says filling"
is "$(sql 'PRAGMA integrity_check;')" ok "fill: integrity_check = ok right after the kill"

daemon_start
ok $? "fill: plateaud starts again"
wait_for 60 "run 1 to end" observe_until_over 1
is "$(run_state 1)" "done" "fill: the resumed run ends done"
monotonic "${OBS[@]}"
ok $? "fill: progress never went back (${#OBS[@]} observations: ${OBS[0]} .. ${OBS[-1]})"
msg=$(sql "SELECT message FROM events WHERE run_id = 1 AND kind = 'run-resumed' AND message LIKE 'fill resumes%';")
is "$msg" "fill resumes at byte $killed_at of $(fill_total 1)" \
	"fill: resumed exactly at the committed offset"
like "$(event_kinds 1)" "run-started .* run-resumed .* run-done$" "fill: run-started, then run-resumed, then run-done"
ok "$([ "$(sql "SELECT sum(a_bytes) >= (SELECT total_bytes FROM phases WHERE run_id = 1 AND kind = 'fill')
	FROM samples WHERE phase_id = $(phase_id 1 1);")" = 1 ] && echo 0 || echo 1)" \
	"fill: the fill's samples account for every byte of the fill"
check_run 1

# === kill -9 during precondition, twice ===
f=$(mkfile pre.img 64M)
cat >"$W/pre.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-pre
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 4
steady = none
max_rounds = 14

[sweep]
points = 1x2
time = 400ms
ramp = 100ms
EOF
out=$(pctl start "$W/pre.plan" 2>&1)
is "$out" "run 2 started" "precondition: run 2 starts"
wait_for 30 "3 precondition samples of run 2" samples_at_least 2 2 3
ok $? "precondition: 3 rounds measured"
daemon_kill9
n1=$(nsamples 2 2)
is "$(run_state 2)" preconditioning "precondition: killed while preconditioning (after $n1 samples)"
daemon_start
ok $? "precondition: plateaud starts again"
wait_for 30 "2 more precondition samples of run 2" samples_at_least 2 2 $((n1 + 2))
daemon_kill9
n2=$(nsamples 2 2)
ok "$([ "$n2" -gt "$n1" ] && [ "$(run_state 2)" = preconditioning ] && echo 0 || echo 1)" \
	"precondition: killed again while preconditioning, after $n2 samples"
daemon_start
ok $? "precondition: plateaud starts a third time"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 2 --timeout 40s 2>&1)
is "$out" "run 2 done" "precondition: the run completes"
gaps=$(sql "SELECT message FROM events e JOIN phases p ON p.id = e.phase_id WHERE e.run_id = 2
	AND e.kind = 'gap' AND p.kind = 'precondition' ORDER BY e.id;")
like "$gaps" "^precondition resumes after $n1 rounds; a gap of .* precedes round $((n1 + 1))"$'\n'"precondition resumes after $n2 rounds; a gap of .* precedes round $((n2 + 1))$" \
	"precondition: a gap event per restart, naming the rounds kept"
is "$(sql "SELECT count(*) FROM events WHERE run_id = 2 AND kind = 'run-resumed';")" 2 \
	"precondition: two run-resumed events"
is "$(sql "SELECT rounds FROM phases WHERE run_id = 2 AND kind = 'precondition';")" 14 \
	"precondition: exactly max_rounds (14) rounds in all: the kept rounds count"
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id 2 2) AND partial = 0;")" 14 \
	"precondition: 14 whole samples"
check_run 2

# === kill -9 during sweep ===
f=$(mkfile sweep.img 64M)
cat >"$W/sweep.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-sweep
interval = 200ms

[fill]
passes = 1

[sweep]
profile = 4k-randwrite
points = 1x1 1x4 2x4
time = 800ms
ramp = 100ms
EOF
out=$(pctl start "$W/sweep.plan" 2>&1)
is "$out" "run 3 started" "sweep: run 3 starts"
wait_for 30 "the first load point of run 3" points_at_least 3 2 1
ok $? "sweep: the first point is measured"
wait_for 5 "a sample of the second point" samples_at_least 3 2 $(($(nsamples 3 2) + 1))
daemon_kill9
np=$(sql "SELECT count(*) FROM points WHERE phase_id = $(phase_id 3 2);")
is "$(run_state 3)" sweeping "sweep: killed while sweeping ($np points measured)"
daemon_start
ok $? "sweep: plateaud starts again"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 3 --timeout 40s 2>&1)
is "$out" "run 3 done" "sweep: the run completes"
is "$(sql "SELECT group_concat(seq || '=' || threads || 'x' || iodepth, ' ') FROM
	(SELECT * FROM points WHERE phase_id = $(phase_id 3 2) ORDER BY seq);")" "1=1x1 2=1x4 3=2x4" \
	"sweep: one row per point, the interrupted one measured again"
check_run 3

# === kill -9 during erase (zero-fill): the erase starts again ===
f=$(mkfile erase.img 768M)
cat >"$W/erase.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-erase
interval = 200ms

[erase]
method = zero

[precondition]
profile = 4k-randwrite
steady = none
max_rounds = 2
EOF
erase_events() { sql "SELECT count(*) FROM events WHERE run_id = 4 AND kind = 'erase-progress';"; }
erasing_some() { [ "$(run_state 4)" = erasing ] && [ "$(erase_events)" -ge 2 ]; }
out=$(pctl start "$W/erase.plan" 2>&1)
is "$out" "run 4 started" "erase: run 4 starts"
wait_for 20 "run 4's erase to make progress" erasing_some
ok $? "erase: the zero-fill is under way"
daemon_kill9
is "$(run_state 4)" erasing "erase: killed while erasing"
daemon_start
ok $? "erase: plateaud starts again"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 4 --timeout 40s 2>&1)
is "$out" "run 4 done" "erase: the run completes"
like "$(event_kinds 4 '^(run-|phase-|erase-verify)')" \
	"^run-created run-started phase-started run-resumed phase-started erase-verify phase-ended phase-started phase-ended run-done$" \
	"erase: the erase phase started again after the restart, then verified"
is "$(sql "SELECT json_extract(result, '\$.method') || ' ' || json_extract(result, '\$.completed') || ' ' ||
	json_extract(result, '\$.verify.passed') FROM phases WHERE run_id = 4 AND seq = 1;")" "zero 1 1" \
	"erase: the record says zero-fill, completed, verified"
check_run 4

# === kill -9 during a precondition limited by max_duration ===
f=$(mkfile dur.img 32M)
cat >"$W/dur.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-duration
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
steady = none
max_duration = 2s
EOF
out=$(pctl start "$W/dur.plan" 2>&1)
is "$out" "run 5 started" "duration: run 5 starts"
wait_for 20 "4 precondition samples of run 5" samples_at_least 5 2 4
daemon_kill9
sleep 0.5 # a gap that must not count as measured time
daemon_start
ok $? "duration: plateaud starts again"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 5 --timeout 40s 2>&1)
is "$out" "run 5 done" "duration: the run completes"
measured=$(sql "SELECT CAST(sum(end_ns - start_ns) / 1000000 AS INTEGER) FROM samples WHERE phase_id = $(phase_id 5 2);")
ok "$([ "$measured" -ge 1900 ] && [ "$measured" -le 2300 ] && echo 0 || echo 1)" \
	"duration: the samples measure max_duration in all across the restart (${measured} ms of 2000)"
check_run 5

# === kill -9 during fill on a loop device, restarted at once ===
# (fill only: one engine, so nothing but the restart is tested here)
if [ "$(id -u)" != 0 ]; then
	skip 8 "loop devices need root"
elif ! mkloop loop.img 128M; then
	skip 8 "cannot attach a loop device with direct I/O"
else
	cat >"$W/loop.plan" <<EOF
[run]
device = $LOOPDEV
serial = $(serial_of "$LOOPDEV")
name = kill-loop
interval = 200ms

[fill]
passes = 1
bs = 4k
iodepth = 2
EOF
	out=$(pctl start "$W/loop.plan" 2>&1)
	is "$out" "run 6 started" "loop: run 6 starts on $LOOPDEV"
	wait_for 20 "run 6's fill to reach 20%" fill_reached 6 20
	ok $? "loop: the fill is under way"
	seen=${OBS[-1]}
	daemon_kill9
	daemon_start # at once: no query in between
	ok $? "loop: plateaud starts again at once"
	out=$(timeout 60 "$PLATEAU" --db "$DB" wait 6 --timeout 40s 2>&1)
	is "$out" "run 6 done" "loop: the fill resumes on the device and the run completes"
	at=$(sql "SELECT message FROM events WHERE run_id = 6 AND message LIKE 'fill resumes%';")
	at=${at#fill resumes at byte }
	at=${at%% *}
	ok "$([ -n "$at" ] && [ "$at" -ge "$seen" ] && echo 0 || echo 1)" \
		"loop: resumed at the committed offset (${at:-none}; ${seen} seen before the kill)"
	is "$(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.run_id = 6
		GROUP BY p.id HAVING count(*) = max(s.seq) AND min(s.seq) = 1;")" \
		"$(nsamples 6 1)" "loop: samples numbered 1..N"
	is "$(sql "SELECT progress_bytes = total_bytes FROM phases WHERE run_id = 6;")" 1 "loop: the fill is complete"
	is "$(sql 'PRAGMA integrity_check;')" ok "loop: integrity_check = ok"
fi

daemon_term
is "$DSTATUS" 0 "plateaud exits 0 on SIGTERM"
done_testing
