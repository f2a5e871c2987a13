#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-full.t: a whole plan (erase, fill, precondition, sweep) through the
# real plateaud and the real CLI, on a regular file and on a loop device
# (direct I/O, root only), and what the database holds afterwards: every
# phase done, samples numbered 1..N in each phase, one points row per load
# point, the events in order, the run done, PRAGMA integrity_check = ok.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/daemon-full.t
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

# write_plan FILE DEVICE SERIAL NAME
write_plan() {
	cat >"$1" <<EOF
# the whole method, small: a 200 ms interval, a short sweep
[run]
device = $2
serial = $3
name = $4
interval = 200ms

[erase]
method = auto

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 8
max_rounds = 12

[sweep]
points = 1x1 2x4
time = 600ms
ramp = 200ms
EOF
}

# poll: the daemon's status shows the precondition with IOPS (SAW_IOPS=1),
# or the run has ended (so there is nothing more to wait for)
status_has_iops() {
	local j
	j=$(pctl status "$1" --json 2>/dev/null)
	if [[ $j == *'"phase_kind": "precondition"'* && $j == *'"iops": '[1-9]* ]]; then
		SAW_IOPS=1
		return 0
	fi
	[[ $(run_state "$1") =~ ^(done|failed|stopped)$ ]]
}

# full_run LABEL DEVICE: start, watch, wait, check
full_run() {
	local label=$1 dev=$2 serial out rc run kinds
	serial=$(serial_of "$dev")
	like "$serial" '^(file|loop):[0-9]+:[0-9]+:[0-9]+:[0-9]+\.[0-9]{9}(:g[0-9]+)?$' "$label: plateau drives names $dev ($serial)"
	write_plan "$W/$label.plan" "$dev" "$serial" "full-$label"
	out=$(pctl start "$W/$label.plan" 2>&1)
	ok $? "$label: plateau start succeeds" || diag "$out"
	like "$out" '^run [0-9]+ started$' "$label: start says which run"
	run=${out//[^0-9]/}
	[ -n "$run" ] || run=0
	SAW_IOPS=0
	wait_for 20 "$label: status to show the precondition's IOPS" status_has_iops "$run"
	out=$(pctl status 2>&1)
	is "$SAW_IOPS" 1 "$label: plateau status shows the run preconditioning, with IOPS"
	out=$(grep -E "^ *$run +full-$label +[^ ]+ +(preconditioning|sweeping) " <<<"$out")
	isnt "$out" "" "$label: plateau status lists run $run in its table"
	out=$(timeout 60 "$PLATEAU" --db "$DB" wait "$run" --timeout 45s 2>&1)
	rc=$?
	is "$rc" 0 "$label: plateau wait $run exits 0"
	is "$out" "run $run done" "$label: plateau wait says done"
	check_run "$run"
	is "$(sql "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM phases WHERE run_id = $run ORDER BY seq);")" \
		"erase fill precondition sweep" "$label: four phases in plan order"
	kinds=$(sql "SELECT e.kind || ':' || ifnull(p.seq, 0) FROM events e LEFT JOIN phases p ON p.id = e.phase_id
		WHERE e.run_id = $run AND e.kind IN ('run-created', 'run-started', 'phase-started',
			'phase-ended', 'point-measured', 'run-done') ORDER BY e.id;" | tr '\n' ' ')
	is "$kinds" "run-created:0 run-started:0 phase-started:1 phase-ended:1 phase-started:2 phase-ended:2 phase-started:3 phase-ended:3 phase-started:4 point-measured:4 point-measured:4 phase-ended:4 run-done:0 " \
		"$label: run and phase events in order"
	is "$(sql "SELECT count(*) FROM events e JOIN phases p ON p.id = e.phase_id WHERE e.run_id = $run AND p.seq = 3
		AND e.kind IN ('steady-reached', 'steady-not-reached') AND e.id > (SELECT id FROM events WHERE run_id = $run
		AND kind = 'phase-started' AND phase_id = p.id) AND e.id < (SELECT id FROM events WHERE run_id = $run
		AND kind = 'phase-ended' AND phase_id = p.id);")" 1 \
		"$label: one steady verdict event inside the precondition phase"
	is "$(sql "SELECT count(*) FROM events WHERE run_id = $run AND kind IN ('run-failed', 'run-stopped', 'run-paused', 'gap', 'run-resumed');")" \
		0 "$label: no failure, stop, pause or resume events"
	is "$(sql "SELECT json_extract(result, '\$.completed') FROM phases WHERE run_id = $run AND seq = 1;")" \
		1 "$label: the erase record says completed"
	ERASE_METHOD=$(sql "SELECT json_extract(result, '\$.method') FROM phases WHERE run_id = $run AND seq = 1;")
	is "$(sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id "$run" 3) AND partial = 0;")" \
		"$(sql "SELECT rounds FROM phases WHERE run_id = $run AND seq = 3;")" "$label: precondition rounds recorded"
	is "$(sql "SELECT count(*) >= 5 FROM samples WHERE phase_id = $(phase_id "$run" 3) AND partial = 0;")" 1 \
		"$label: at least one steady-state window of rounds (5)"
	is "$(sql "SELECT group_concat(threads || 'x' || iodepth, ' ') FROM (SELECT * FROM points WHERE phase_id = $(phase_id "$run" 4) ORDER BY seq);")" \
		"1x1 2x4" "$label: points rows are the plan's load points"
	is "$(sql "SELECT count(*) FROM points WHERE phase_id = $(phase_id "$run" 4) AND a_ios > 0 AND w_ios = a_ios;")" \
		2 "$label: every point measured writes"
	out=$(pctl show "$run" 2>&1)
	ok $? "$label: plateau show $run exits 0" || diag "$out"
	has "$out" "run $run: full-$label (done)" "$label: plateau show heads with the run"
	LAST_RUN=$run
}

daemon_start
ok $? "plateaud starts and answers on its socket" || bail_out "no daemon: $(cat "$LOG")"

# --- a regular file ---
f=$(mkfile target.img 192M)
full_run file "$f"
is "$ERASE_METHOD" "punch" "file: erased by punching holes"

# --- a loop device ---
if [ "$(id -u)" != 0 ]; then
	skip 29 "loop devices need root"
elif ! mkloop loop.img 160M; then
	skip 29 "cannot attach a loop device with direct I/O (losetup --direct-io=on)"
else
	full_run loop "$LOOPDEV"
	like "$ERASE_METHOD" '^(secure-discard|discard|zero)$' "loop: erased by $ERASE_METHOD"
fi

pctl status >/dev/null 2>&1
ok $? "plateaud still answers after the runs"
is "$(pctl status 2>&1)" "no runs in progress" "status: no runs in progress once both are done"
daemon_term
ok $? "plateaud exits on SIGTERM"
is "$DSTATUS" 0 "with status 0"
done_testing
