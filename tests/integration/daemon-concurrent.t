#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-concurrent.t: two runs at once on two targets, both complete, each
# with its own intact record; a second start on a target that is busy is
# refused (by path, and by identity through another path to the same file)
# without creating a run; once the run is over the target is free again.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

# write_plan FILE DEVICE SERIAL NAME ROUNDS
write_plan() {
	cat >"$1" <<EOF
[run]
device = $2
serial = $3
name = $4
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = $5

[sweep]
points = 1x2
time = 400ms
ramp = 100ms
EOF
}

status_lists_two() {
	local j
	j=$(pctl status --json 2>/dev/null) || return 1
	[[ $j == *'"run": 1,'* && $j == *'"run": 2,'* ]]
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

a=$(mkfile a.img 96M)
b=$(mkfile b.img 96M)
sa=$(serial_of "$a")
sb=$(serial_of "$b")
isnt "$sa" "$sb" "the two files have different serials"
write_plan "$W/a.plan" "$a" "$sa" conc-a 10
write_plan "$W/b.plan" "$b" "$sb" conc-b 10

out=$(pctl start "$W/a.plan" 2>&1)
is "$out" "run 1 started" "run 1 starts on a"
out=$(pctl start "$W/b.plan" 2>&1)
is "$out" "run 2 started" "run 2 starts on b while run 1 runs"
wait_for 10 "status to list both runs" status_lists_two
ok $? "plateau status lists both runs at once"

# --- a busy target is refused, and nothing is recorded ---
out=$(pctl start "$W/a.plan" 2>&1)
rc=$?
is "$rc" 6 "a second start on a (busy) is refused: exit 6"
like "$out" "refusing $a: the file is locked by pid [0-9]+ \\(plateaud, run 1, uid 0\\)" "and says which run holds it"
ln "$a" "$W/alias.img"
write_plan "$W/alias.plan" "$W/alias.img" "$sa" conc-alias 2
out=$(pctl start "$W/alias.plan" 2>&1)
rc=$?
is "$rc" 6 "a start on the same file through a hard link is refused: exit 6"
like "$out" "refusing $W/alias.img: the file is locked by pid [0-9]+ \\(plateaud, run 1, uid 0\\)" "and is refused as locked too (the same file, by numbers)"
is "$(sql 'SELECT count(*) FROM runs;')" 2 "the refused starts created no run"

out=$(timeout 60 "$PLATEAU" --db "$DB" wait 1 --timeout 40s 2>&1)
is "$?" 0 "run 1 completes: $out"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 2 --timeout 40s 2>&1)
is "$?" 0 "run 2 completes: $out"
check_run 1
check_run 2
# they really ran side by side: the precondition phases overlap in time
is "$(sql "SELECT count(*) FROM phases a JOIN phases b ON a.run_id = 1 AND b.run_id = 2
	AND a.kind = 'precondition' AND b.kind = 'precondition'
	AND a.started_ns < b.ended_ns AND b.started_ns < a.ended_ns;")" 1 \
	"the two preconditions overlapped in time"
is "$(sql "SELECT count(*) FROM phases WHERE kind = 'precondition' AND rounds = 10;")" 2 \
	"each precondition ran its own 10 rounds"
is "$(sql "SELECT group_concat(DISTINCT d.serial) FROM runs r JOIN drives d ON d.id = r.drive_id WHERE r.id = 1;")" \
	"$sa" "run 1 is recorded on a's serial"
is "$(sql "SELECT group_concat(DISTINCT d.serial) FROM runs r JOIN drives d ON d.id = r.drive_id WHERE r.id = 2;")" \
	"$sb" "run 2 is recorded on b's serial"
is "$(sql "SELECT count(*) FROM events e JOIN phases p ON p.id = e.phase_id WHERE p.run_id != e.run_id;")" 0 \
	"no event of one run points at the other's phases"

# --- free again once the run is over ---
write_plan "$W/a2.plan" "$a" "$sa" conc-a-again 2
out=$(pctl start "$W/a2.plan" 2>&1)
is "$out" "run 3 started" "a is accepted again once run 1 is over"
out=$(timeout 30 "$PLATEAU" --db "$DB" wait 3 --timeout 20s 2>&1)
is "$?" 0 "run 3 completes: $out"
check_run 3
daemon_term
is "$DSTATUS" 0 "plateaud exits 0 on SIGTERM"
done_testing
