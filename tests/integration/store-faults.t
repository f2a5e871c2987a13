#!/bin/bash
# SPDX-License-Identifier: MIT
#
# store-faults.t: no fault leaves a false record.
#   - a crash between a steady-state verdict and the commit of the sample it
#     is about (made deterministic with tests/mock/sqlite-crash.c at the
#     SQLite boundary): neither is stored, the resumed run reaches steady
#     state once, and its one steady-reached event names a stored sample;
#   - a sweep point interrupted by kill -9: its samples carry the point, the
#     interrupted attempt's samples are marked aborted with a point-aborted
#     event, and no query mixes them into the point's figures;
#   - the database's file system fills up during a run (a small tmpfs): the
#     run stops with SQLite's own "database or disk is full", nothing is
#     stored after the failure (no hole in the sequence), the rounds stored
#     are the samples stored, and once space is freed the run is recorded
#     failed with that error;
#   - a database the user cannot read is exit 2 with the system's reason,
#     not "not found"; a database without its samples table is an error,
#     not "no samples yet" or a `show` without its verdict.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

MOCK=$B/tests/mock/sqlite-crash.so
[ -f "$MOCK" ] || bail_out "$MOCK not built (make tests)"

# a process that is gone or a zombie (kill -0 succeeds on a zombie)
_dead() { ! kill -0 "$1" 2>/dev/null || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
nfull() { sql "SELECT count(*) FROM samples WHERE phase_id = $1 AND partial = 0;"; }

# === a crash between the steady verdict and its sample's commit ===
f=$(mkfile steady.img 64M)
cat >"$W/steady.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = crash-steady
interval = 100ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = snia
window = 3
data_limit = 95
slope_limit = 95
max_rounds = 100
EOF
PLATEAU_CRASH_EVENT=steady-reached LD_PRELOAD=$MOCK daemon_start ||
	bail_out "no daemon: $(cat "$LOG")"
is "$(pctl start "$W/steady.plan" 2>&1)" "run 1 started" "steady: run 1 starts"
wait_for 60 "plateaud to be killed at the steady-state commit" _dead "$DPID"
ok $? "steady: plateaud died at the moment the steady verdict was stored"
wait "$DPID" 2>/dev/null
is "$?" 137 "steady: killed by SIGKILL (the fault injector)"
P=$(phase_id 1 1)
n=$(nfull "$P")
is "$(sql "SELECT count(*) FROM events WHERE run_id = 1 AND kind = 'steady-reached';")" 0 \
	"steady: no steady-reached event survived the crash without its sample ($n rounds stored)"
is "$(sql "SELECT coalesce(steady, 0) FROM phases WHERE id = $P;")" 0 \
	"steady: the stored phase does not claim a verdict its rounds do not show"
is "$(sql 'PRAGMA integrity_check;')" ok "steady: integrity_check = ok after the crash"

daemon_start || bail_out "no daemon: $(cat "$LOG")"
out=$(timeout 90 "$PLATEAU" --db "$DB" wait 1 --timeout 60s 2>&1)
is "$out" "run 1 done" "steady: the resumed run ends"
is "$(sql "SELECT count(*) FROM events WHERE run_id = 1 AND kind = 'steady-reached';")" 1 \
	"steady: exactly one steady-reached event"
ev=$(sql "SELECT json_extract(data, '$.sample_seq') || ' ' || json_extract(data, '$.steady_round')
	FROM events WHERE run_id = 1 AND kind = 'steady-reached';")
seq=${ev% *}
round=${ev#* }
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND seq = ${seq:-0} AND partial = 0;")" 1 \
	"steady: the event names its sample ($seq), and that sample is stored"
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND partial = 0 AND seq <= ${seq:-0};")" \
	"$round" "steady: the sample is round $round, the round the event calls steady"
is "$(sql "SELECT steady || ' ' || steady_round FROM phases WHERE id = $P;")" "1 $round" \
	"steady: the phase's verdict is the event's"
check_run 1

# === a sweep point interrupted by kill -9 ===
f=$(mkfile sweep.img 64M)
cat >"$W/sweep.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = kill-sweep
interval = 100ms

[sweep]
profile = 4k-randread
points = 1x1 1x2 1x4
time = 2s
ramp = 100ms
EOF
is "$(pctl start "$W/sweep.plan" 2>&1)" "run 2 started" "sweep: run 2 starts"
P=$(phase_id 2 1)
point2_half() {
	[ "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND point = 2;")" -ge 5 ] &&
		[ "$(sql "SELECT count(*) FROM points WHERE phase_id = $P AND seq = 2;")" = 0 ]
}
wait_for 60 "5 samples of point 2, before it is stored" point2_half
ok $? "sweep: point 2 is being measured"
daemon_kill9
cut=$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND point = 2;")
cut_end=$(sql "SELECT max(end_ns) FROM samples WHERE phase_id = $P AND point = 2;")
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND point IS NULL;")" 0 \
	"sweep: every sample of the sweep names its load point"
daemon_start || bail_out "no daemon: $(cat "$LOG")"
out=$(timeout 90 "$PLATEAU" --db "$DB" wait 2 --timeout 60s 2>&1)
is "$out" "run 2 done" "sweep: the resumed run ends"
is "$(sql "SELECT count(*) || ' ' || min(point) || ' ' || max(point) FROM samples
	WHERE phase_id = $P AND aborted = 1;")" "$cut 2 2" \
	"sweep: the $cut samples of point 2's interrupted attempt are marked aborted, and only they"
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND aborted = 1 AND end_ns > $cut_end;")" 0 \
	"sweep: nothing measured after the crash is marked"
is "$(sql "SELECT message FROM events WHERE run_id = 2 AND kind = 'point-aborted';")" \
	"load point 2 was interrupted after $cut samples: they are set aside (aborted) and the point is measured again" \
	"sweep: a point-aborted event says so"
is "$(sql "SELECT count(*) FROM points WHERE phase_id = $P AND seq = 2 AND start_ns < $cut_end;")" 0 \
	"sweep: point 2's stored figures come from after the interruption"
is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $P AND point = 2 AND aborted = 0 AND start_ns < $cut_end;")" 0 \
	"sweep: point 2's counted samples are all from the new attempt"
total=$(sql "SELECT count(*) FROM samples WHERE phase_id = $P;")
rows=$(pctl samples 2 --phase 1 --csv | tail -n +2 | wc -l)
is "$rows" "$((total - cut))" "sweep: plateau samples lists the $((total - cut)) samples that count, not the aborted ones"
check_run 2
is "$(sql "SELECT count(*) FROM points WHERE phase_id = $P;")" 3 "sweep: one points row per point"

# === a second precondition tracking more metrics than the first ===
# (found by fuzz.t: the first phase's series capacity was kept, the new
# metric's series never allocated, and plateaud died at its first round)
f=$(mkfile two.img 64M)
cat >"$W/two.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = two-pre
interval = 100ms

[precondition]
profile = 4k-randwrite
steady = none
max_rounds = 2

[precondition]
profile = 4k-randwrite
steady = snia
window = 2
max_rounds = 3
metrics = iops, p99
EOF
is "$(pctl start "$W/two.plan" 2>&1)" "run 3 started" "two preconditions: run 3 starts"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 3 --timeout 40s 2>&1)
is "$out" "run 3 done" "two preconditions: the run ends done"
ok "$(kill -0 "$DPID" 2>/dev/null && echo 0 || echo 1)" "two preconditions: plateaud is alive"
check_run 3

daemon_term

# === the database's file system fills up ===
if [ "$(id -u)" != 0 ]; then
	skip 12 "disk full needs a tmpfs mount (root)"
else
	FULL=$W/full
	mkdir "$FULL"
	mount -t tmpfs -o size=8m tmpfs "$FULL" || bail_out "cannot mount a tmpfs"
	at_cleanup "umount -l $FULL"
	FDB=$FULL/p.db
	f=$(mkfile full.img 64M)
	"$PLATEAU" --db "$FDB" run --yes --target "$f" --profile 4k-randwrite --threads 1 \
		--iodepth 4 --interval 100ms --duration 1h >"$W/full.out" 2>"$W/full.err" &
	RPID=$!
	track "$RPID"
	# some samples stored, then every free byte taken: the next commit fails,
	# and so does the first attempt to record the failure
	DB=$FDB
	wait_for 60 "10 samples in $FDB" has_samples 1 10
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	full_reported() { grep -q "retrying" "$W/full.err"; }
	wait_for 60 "plateau run to report the full disk" full_reported
	ok $? "full: the run reports that it cannot record its end"
	like "$(cat "$W/full.err")" "database or disk is full" \
		"full: the reason is SQLite's own ('database or disk is full'), not a later rollback's"
	unlike "$(cat "$W/full.err")" "no transaction is active" "full: the true error is not overwritten"
	ok "$(_dead "$RPID" && echo 1 || echo 0)" "full: plateau run waits for space to record the failure"
	P=$(phase_id 1 1)
	bad=$(sql "SELECT count(*) || ',' || min(seq) || ',' || max(seq) FROM samples WHERE phase_id = $P;")
	n=${bad%%,*}
	is "${bad#*,}" "1,$n" "full: the $n samples stored are numbered 1..$n: nothing stored after the failure"
	is "$(sql "SELECT rounds FROM phases WHERE id = $P;")" "$(nfull "$P")" \
		"full: the rounds stored are the whole samples stored"
	is "$(run_state 1)" preconditioning "full: the database cannot say failed yet"
	rm "$FULL/filler"
	wait_for 30 "plateau run to exit once space is free" _dead "$RPID"
	ok $? "full: plateau run exits once the failure is recorded"
	wait "$RPID"
	is "$?" 5 "full: exit status 5 (the run failed)"
	is "$(run_state 1)" failed "full: the run is recorded failed"
	like "$(sql "SELECT error FROM runs WHERE id = 1;")" "database or disk is full" \
		"full: with the true error"
	is "$(sql "SELECT count(*) FROM events WHERE run_id = 1 AND kind = 'run-failed';")" 1 \
		"full: and one run-failed event"
fi

# === errors reading the database are errors ===
DB=$W/p.db
mkdir -m 0755 "$W/ro"
cp "$DB" "$W/ro/p.db"
sqlite3 "$W/ro/p.db" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
chmod 0600 "$W/ro/p.db"
chmod o+x "$W"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$PLATEAU" --db "$W/ro/p.db" runs 2>&1)
	st=$?
	is "$st" 2 "unreadable: exit 2, not 3 (not found)"
	like "$out" "Permission denied" "unreadable: the system's reason: $out"
else
	skip 2 "needs root and setpriv to read as another user"
fi
cp "$DB" "$W/nosamples.db"
sqlite3 "$W/nosamples.db" 'DROP TABLE samples;'
out=$("$PLATEAU" --db "$W/nosamples.db" samples 1 2>&1)
st=$?
is "$st" 2 "no samples table: plateau samples exits 2"
like "$out" "no such table: samples" "no samples table: says so, not 'no samples yet': $out"
out=$("$PLATEAU" --db "$W/nosamples.db" show 1 2>&1)
st=$?
is "$st" 2 "no samples table: plateau show exits 2 instead of leaving the verdict out"
like "$out" "no such table: samples" "no samples table: show names the problem"

done_testing
