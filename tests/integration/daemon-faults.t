#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-faults.t: plateaud killed with SIGKILL at random points of short
# runs on a file target, at least 24 times (PLATEAU_FAULT_KILLS), started
# again each time.  Kills are seeded choices among: a random delay after the
# restart, during the resume itself, right after the samples row count
# changes, while the fill commits progress, and during the precondition;
# an aimed kill waits for the stored state it aims at and then comes after
# a small random delay.  After every kill: PRAGMA integrity_check = ok and
# the daemon was still alive to be killed (not dead of a crash).  Once the
# runs have ended:
#   - each run done, every phase done, samples of every phase 1..N with
#     start_ns >= the previous end_ns, the database invariants of check_run;
#   - no steady-reached/steady-lost event without the sample it is about
#     (data.sample_seq, or at least data.rounds whole samples);
#   - the fill's committed progress never went back (every observation, in
#     order), each "fill resumes at byte X" names exactly the progress
#     committed at the kill before it, and the fill's samples add up to the
#     target size;
#   - plateaud exits 0 on SIGTERM and its log has no sanitizer report.
#
# The seed is time-based unless PLATEAU_FAULT_SEED gives one: the kill
# points depend on the machine's timing anyway, so a fixed seed would not
# make a run repeatable, and a new seed each time covers more choices; the
# seed is printed so the same choices can be replayed.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

SEED=${PLATEAU_FAULT_SEED:-$(date +%s)}
KILLS=${PLATEAU_FAULT_KILLS:-24}
RANDOM=$SEED
diag "seed $SEED (PLATEAU_FAULT_SEED=$SEED replays these choices), $KILLS kills"
SAN_RE='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer'
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=stderr"
export PLATEAU_LOCK_DIR=$W/locks
mkdir -p "$PLATEAU_LOCK_DIR"

f=$(mkfile faults.img 64M)
cat >"$W/faults.plan" <<EOF2
[run]
device = $f
serial = $(serial_of "$f")
name = faults
interval = 100ms

[fill]
passes = 1
bs = 4k
iodepth = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = snia
window = 3
data_limit = 60
slope_limit = 60
after_steady = continue
max_rounds = 24

[sweep]
points = 1x1 1x2
time = 300ms
ramp = 100ms
EOF2

rnd() { echo $((RANDOM % $1)); }
sleep_ms() { sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"; }

RUN=0
RUNS=()
declare -A OBS KP KE # per run: fill progress seen, in order; per kill: committed, resume events
nsamp() { sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.run_id = $RUN;"; }
fill_p() { sql "SELECT progress_bytes FROM phases WHERE run_id = $RUN AND kind = 'fill';"; }
fill_resumes() { sql "SELECT count(*) FROM events WHERE run_id = $RUN AND kind = 'run-resumed' AND message LIKE 'fill resumes%';"; }
over() { [[ $(run_state "$RUN") =~ ^(done|failed|stopped)$ ]]; }
observe() {
	local v
	v=$(fill_p)
	[ -n "$v" ] && OBS[$RUN]+="$v "
}
more_samples() { [ "$(nsamp)" -gt "$1" ] || over; }
fill_moved() {
	observe
	[ "$(fill_p)" != "$1" ] || [ "$(run_state "$RUN")" != filling ]
}
preconditioning() { [ "$(run_state "$RUN")" = preconditioning ] || over; }

start_run() {
	local out
	RUN=$((RUN + 1))
	out=$(pctl start "$W/faults.plan" 2>&1)
	is "$out" "run $RUN started" "run $RUN starts" || bail_out "cannot start a run: $(tail -n 20 "$LOG")"
	RUNS+=("$RUN")
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"
start_run
kills=0
declare -A AIMED
crashed=""
integrity_bad=""
t0=$(now_ms)
while [ "$kills" -lt "$KILLS" ]; do
	if over; then
		start_run
		continue
	fi
	st=$(run_state "$RUN")
	aim=$(rnd 5)
	# the fill is short: aim at it more often while it lasts
	[ "$st" = filling ] && [ "$(rnd 2)" = 0 ] && aim=2
	case $aim in
	0)
		what="random delay"
		sleep_ms "$(rnd 900)"
		;;
	1)
		what="new sample"
		n=$(nsamp)
		wait_for 30 "a sample after $n of run $RUN" more_samples "$n"
		sleep_ms "$(rnd 60)"
		;;
	2)
		if [ "$st" = filling ]; then
			what="fill progress"
			p=$(fill_p)
			wait_for 30 "run $RUN's fill to pass $p" fill_moved "$p"
			sleep_ms "$(rnd 40)"
		else
			what="resume"
			sleep_ms "$(rnd 30)"
		fi
		;;
	3)
		what="precondition"
		wait_for 60 "run $RUN to precondition" preconditioning
		n=$(nsamp)
		wait_for 30 "a sample after $n of run $RUN" more_samples "$n"
		sleep_ms "$(rnd 100)"
		;;
	*)
		what="resume"
		sleep_ms "$(rnd 30)"
		;;
	esac
	# killed while it lives: a daemon that died on its own crashed
	if ! kill -0 "$DPID" 2>/dev/null; then
		wait "$DPID" 2>/dev/null
		crashed+="before kill $((kills + 1)) (status $?) "
		daemon_start || bail_out "plateaud does not start again: $(tail -n 40 "$LOG")"
		continue
	fi
	st=$(run_state "$RUN")
	kill -KILL "$DPID"
	wait "$DPID" 2>/dev/null
	rc=$?
	printf -- "--- killed -9 (%s, run %s %s)\n" "$what" "$RUN" "$st" >>"$LOG"
	[ "$rc" = 137 ] || crashed+="at kill $((kills + 1)) (status $rc) "
	over || {
		kills=$((kills + 1))
		AIMED[$what]=$((${AIMED[$what]:-0} + 1))
		AIMED["in $st"]=$((${AIMED["in $st"]:-0} + 1))
	}
	observe
	KP[$RUN]+="$(fill_p) "
	KE[$RUN]+="$(fill_resumes) "
	v=$(sql 'PRAGMA integrity_check;')
	[ "$v" = ok ] || integrity_bad+="kill $kills: $v; "
	daemon_start || bail_out "plateaud does not start again: $(tail -n 40 "$LOG")"
done
diag "$kills kills in $((($(now_ms) - t0) / 1000)) s over ${#RUNS[@]} run(s):" \
	"$(for k in "${!AIMED[@]}"; do printf '%s=%s ' "$k" "${AIMED[$k]}"; done)"
ok "$([ "$kills" -ge 20 ] && echo 0 || echo 1)" "at least 20 kills while a run was under way ($kills)"
is "$crashed" "" "plateaud was alive at every kill (it never died on its own)"
is "$integrity_bad" "" "PRAGMA integrity_check = ok after every kill"

wait_for 120 "run $RUN to end" over
for r in "${RUNS[@]}"; do
	RUN=$r
	check_run "$r"
	# a steady event names a committed sample
	bad=$(sql "SELECT e.id || ':' || e.kind || ':' || ifnull(json_extract(e.data, '\$.sample_seq'), '-') ||
			'/' || ifnull(json_extract(e.data, '\$.rounds'), '-')
		FROM events e WHERE e.run_id = $r AND e.kind IN ('steady-reached', 'steady-lost') AND (
			e.data IS NULL OR
			(json_extract(e.data, '\$.sample_seq') IS NOT NULL AND NOT EXISTS
				(SELECT 1 FROM samples s WHERE s.phase_id = e.phase_id AND
					s.seq = json_extract(e.data, '\$.sample_seq'))) OR
			(json_extract(e.data, '\$.sample_seq') IS NULL AND
				(SELECT count(*) FROM samples s WHERE s.phase_id = e.phase_id AND s.partial = 0) <
				json_extract(e.data, '\$.rounds')));")
	is "$bad" "" "run $r: every steady event's sample is committed" ||
		diag "events (id:kind:sample_seq/rounds): $bad"
	diag "run $r: $(sql "SELECT count(*) FROM events WHERE run_id = $r AND kind LIKE 'steady-%';") steady events," \
		"$(sql "SELECT count(*) FROM events WHERE run_id = $r AND kind = 'run-resumed';") resumes"
	# the fill's committed progress, as seen, never went back
	prev=0 back=""
	for v in ${OBS[$r]:-}; do
		[ "$v" -lt "$prev" ] && back+="$prev->$v "
		prev=$v
	done
	is "$back" "" "run $r: the fill's progress never went back ($(wc -w <<<"${OBS[$r]:-}") observations)"
	# each fill resume names the progress committed at the kill before it
	read -r -a kp <<<"${KP[$r]:-}"
	read -r -a ke <<<"${KE[$r]:-}"
	mapfile -t res < <(sql "SELECT message FROM events WHERE run_id = $r AND kind = 'run-resumed'
		AND message LIKE 'fill resumes%' ORDER BY id;")
	total=$(sql "SELECT total_bytes FROM phases WHERE run_id = $r AND kind = 'fill';")
	bad=""
	for j in "${!res[@]}"; do
		want=""
		for k in "${!ke[@]}"; do
			[ "${ke[$k]}" = "$j" ] && want=${kp[$k]}
		done
		[ "${res[$j]}" = "fill resumes at byte $want of $total" ] || bad+="[${res[$j]} / committed ${want:-?}] "
	done
	is "$bad" "" "run $r: every fill resume (${#res[@]}) starts at the offset committed before its kill"
	is "$(sql "SELECT sum(s.a_bytes) FROM samples s JOIN phases p ON p.id = s.phase_id
		WHERE p.run_id = $r AND p.kind = 'fill';")" "$total" \
		"run $r: the fill's samples add up to the target size ($total bytes)"
done
daemon_term 60
is "$DSTATUS" 0 "plateaud exits 0 on SIGTERM"
san=$(grep -E -A12 "$SAN_RE" "$LOG" | head -40)
is "$san" "" "no sanitizer report in plateaud's log"
done_testing
