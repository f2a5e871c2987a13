#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-events.t: where run events go besides the database.
#   - the daemon's hook (--hook) runs once per event with the event in
#     PLATEAU_* variables (run-started, steady-reached with its evidence,
#     run-done, ...); a plan's own hook ([run] hook = NAME, a hook defined in
#     plateaud.conf's [hooks]) runs too, for its run; both run as hook_user
#     (nobody here);
#   - the calls of one hook for one run come one at a time, in the order the
#     events happened (an alert never hears steady-lost before steady-reached);
#   - a hook that outlives --hook-timeout is killed, with its children, and
#     logged; one that fails is logged; neither holds up the run, only the
#     later calls of that hook for that run;
#   - the Prometheus textfile (--prometheus-file) exists while a run runs,
#     in the text exposition format, with plateau_iops for the run, and
#     does not go on reporting a run that is over as running.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "the hooks change user: run as root"
id nobody >/dev/null 2>&1 || skip_all "no user 'nobody' to run the hooks as"

PROM=$W/plateau.prom
# the hooks run as nobody: what they write goes to $O, theirs
chmod 0711 "$W"
O=$W/out
mkdir "$O" && chown nobody "$O"
HOOKLOG=$O/hook.log
# the hooks in a directory of their own (never beside a target)
HD=$W/hooks
mkdir "$HD"
cat >"$HD/hook.sh" <<EOF
#!/bin/sh
# one record per call: every PLATEAU_* variable, then a separator
if [ "\$PLATEAU_RUN_NAME" = events-a ]; then
	# two calls at once would find the directory there
	mkdir "$O/inhook" 2>/dev/null || echo "\$PLATEAU_EVENT" >>"$O/overlap"
	sleep 0.05
	rmdir "$O/inhook"
fi
{ env | grep '^PLATEAU_' | sort; echo "PID=\$\$"; echo ---; } >>"$HOOKLOG"
if [ "\$PLATEAU_RUN_NAME" = events-slow ]; then
	case \$PLATEAU_EVENT in
	run-started) echo \$\$ >"$O/slow.pid"; sleep 30; echo "slow hook finished" >>"$O/slow.out" ;;
	run-done) exit 3 ;;
	esac
fi
if [ "\$PLATEAU_RUN_NAME" = events-hang ]; then
	echo \$\$ >"$O/hang.pid"
	sleep 30
fi
exit 0
EOF
cat >"$HD/planhook.sh" <<EOF
#!/bin/sh
echo "\$PLATEAU_RUN \$PLATEAU_EVENT" >>"$O/planhook.log"
EOF
chmod 0755 "$HD/hook.sh" "$HD/planhook.sh"
# a plan's hook is a name of plateaud.conf's [hooks]; "open" is in a
# world-writable directory
mkdir -p "$W/open"
cp "$HD/planhook.sh" "$W/open/hook.sh"
chmod 0777 "$W/open"
mkdir "$W/targets"
CONF=$W/plateaud.conf
cat >"$CONF" <<EOF
[daemon]
hook_user = nobody
# the runs' targets: regular files in $W/targets
file_targets = $W/targets

[hooks]
plan = $HD/planhook.sh
open = $W/open/hook.sh
EOF

# hook_records KIND [RUN]: how many hook calls saw PLATEAU_EVENT=KIND
# (any event when KIND is empty)
hook_records() {
	awk -v k="$1" -v r="${2:-}" '
		/^---$/ { if ((k == "" || ev == k) && (r == "" || run == r)) n++; ev = ""; run = ""; next }
		/^PLATEAU_EVENT=/ { ev = substr($0, 15) }
		/^PLATEAU_RUN=/ { run = substr($0, 13) }
		END { print n + 0 }' "$HOOKLOG" 2>/dev/null || echo 0
}
# hook_field KIND NAME: NAME's value in the first call for event KIND
hook_field() {
	awk -v k="$1" -v f="$2=" '
		/^---$/ { if (ev == k) { print val; exit } ev = ""; val = ""; next }
		/^PLATEAU_EVENT=/ { ev = substr($0, 15) }
		index($0, f) == 1 { val = substr($0, length(f) + 1) }' "$HOOKLOG"
}
hooked() { [ "$(hook_records "$1" "${2:-}")" -ge 1 ]; }
# runs_hooked RUN: how many hook calls saw PLATEAU_RUN=RUN
runs_hooked() { hook_records "" "$1"; }

# poll: the textfile shows run $1 preconditioning with IOPS -> PROM_SEEN
prom_running() {
	[ -f "$PROM" ] || return 1
	if grep -qE "^plateau_iops\{run=\"$1\",[^}]*\} [1-9]" "$PROM" &&
		grep -qE "^plateau_run_state\{run=\"$1\",.*state=\"preconditioning\"\} 1$" "$PROM"; then
		cp "$PROM" "$W/prom.seen"
		return 0
	fi
	return 1
}

daemon_start --config "$CONF" --hook "$HD/hook.sh" --hook-timeout 1s --prometheus-file "$PROM"
ok $? "plateaud starts with a hook and a textfile" || bail_out "$(cat "$LOG")"

# --- run 1: every event reaches the hook ---
f=$(mkfile targets/a.img 32M)
serial=$(serial_of "$f")
cat >"$W/a.plan" <<EOF
[run]
device = $f
serial = $serial
name = events-a
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = snia
window = 3
data_limit = 95
slope_limit = 95
after_steady = continue
max_rounds = 12

[sweep]
points = 1x1
time = 400ms
ramp = 100ms
EOF
is "$(pctl start "$W/a.plan" 2>&1)" "run 1 started" "run 1 starts"
wait_for 20 "the textfile to show run 1 preconditioning with IOPS" prom_running 1
ok $? "the textfile exists during the run and shows the precondition's IOPS"
seen=$(cat "$W/prom.seen" 2>/dev/null)
# (more labels may follow: the phase, the direction)
like "$seen" "plateau_iops\{run=\"1\",device=\"$f\",serial=\"$serial\"(,[^}]*)?\} [1-9][0-9.e+]*" \
	"plateau_iops carries run, device and serial labels"
like "$seen" "# TYPE plateau_iops gauge" "plateau_iops is typed a gauge"
like "$seen" "plateau_run_info\{run=\"1\",name=\"events-a\",device=\"$f\",serial=\"$serial\",[^}]*\"precondition\",[^}]*workload=\"4k-randwrite\"[^}]*\} 1" \
	"plateau_run_info names the run, the phase and the workload"
badlines=$(grep -vE '^(# (HELP|TYPE) [a-z_][a-z0-9_]* .+|[a-z_][a-z0-9_]*\{[^}]*\} -?[0-9][0-9.e+-]*)$' "$W/prom.seen")
is "$badlines" "" "every line is a comment or 'name{labels} value'"
is "$(find "$W" -maxdepth 1 -name '*.tmp' | wc -l)" 0 "no temporary textfile left behind"

out=$(timeout 60 "$PLATEAU" --db "$DB" wait 1 --timeout 40s 2>&1)
is "$out" "run 1 done" "run 1 completes"
wait_for 10 "the run-done hook of run 1" hooked run-done 1
ok $? "the hook ran for run-done"
ok "$(hooked steady-reached 1 && echo 0 || echo 1)" "the hook ran for steady-reached"
db_kinds=$(sql "SELECT kind FROM events WHERE run_id = 1 ORDER BY id;" | tr '\n' ' ')
hook_kinds=$(awk '/^PLATEAU_EVENT=/ { print substr($0, 15) }' "$HOOKLOG" | tr '\n' ' ')
is "$hook_kinds" "$db_kinds" "the hook ran exactly once for every event of the run (run-created included), in their order"
is "$(cat "$O/overlap" 2>/dev/null)" "" "  one call at a time"
is "$(hook_field run-done PLATEAU_RUN)" 1 "PLATEAU_RUN"
is "$(hook_field run-done PLATEAU_RUN_NAME)" events-a "PLATEAU_RUN_NAME"
is "$(hook_field run-done PLATEAU_DEVICE)" "$f" "PLATEAU_DEVICE"
is "$(hook_field run-done PLATEAU_SERIAL)" "$serial" "PLATEAU_SERIAL"
is "$(hook_field run-done PLATEAU_DATABASE)" "$DB" "PLATEAU_DATABASE"
like "$(hook_field run-done PLATEAU_TIME)" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' "PLATEAU_TIME (ISO 8601 UTC)"
is "$(hook_field steady-reached PLATEAU_PHASE)" 2 "steady-reached: PLATEAU_PHASE"
is "$(hook_field steady-reached PLATEAU_PHASE_KIND)" precondition "steady-reached: PLATEAU_PHASE_KIND"
like "$(hook_field steady-reached PLATEAU_DATA)" '"steady":true' "steady-reached: PLATEAU_DATA is the evidence"
like "$(hook_field steady-reached PLATEAU_MESSAGE)" '^steady state at round [0-9]+' "steady-reached: PLATEAU_MESSAGE"
is "$(hook_field steady-reached PLATEAU_PRIORITY)" 5 "steady-reached: PLATEAU_PRIORITY (notice)"

# once the run is over the textfile must not go on reporting it as running:
# it keeps the run (for a day) with its final state and end time
prom_ended() { grep -qE "^plateau_run_state\{run=\"1\",.*state=\"done\"\} 1$" "$PROM"; }
wait_for 5 "the textfile to show run 1 done" prom_ended
ok $? "once over, the textfile shows run 1 in state done"
is "$(grep -cE '^plateau_run_state\{run="1",.*state="(queued|erasing|filling|preconditioning|sweeping)"\} 1$' "$PROM")" 0 \
	"  and in no active state"
like "$(cat "$PROM")" 'plateau_run_end_timestamp_seconds\{run="1",[^}]*\} [1-9]' "  with its end time"

# --- run 2: a slow hook and a failing hook, and a plan's own hook ---
g=$(mkfile targets/b.img 32M)
cat >"$W/b.plan" <<EOF
[run]
device = $g
serial = $(serial_of "$g")
name = events-slow
interval = 200ms
hook = plan

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
steady = none
max_rounds = 8
EOF
t0=$(now_ms)
is "$(pctl start "$W/b.plan" 2>&1)" "run 2 started" "run 2 starts (its run-started hook sleeps 30 s)"
wait_for 10 "the slow hook to start" test -s "$O/slow.pid"
slow=$(cat "$O/slow.pid" 2>/dev/null)
[ -n "$slow" ] && track_pgid "$slow"
out=$(timeout 60 "$PLATEAU" --db "$DB" wait 2 --timeout 40s 2>&1)
is "$out" "run 2 done" "run 2 completes although its hook hangs"
dt=$(($(now_ms) - t0))
ok "$([ "$dt" -lt 10000 ] && echo 0 || echo 1)" "  without waiting for the hook (${dt} ms)"
wait_for 5 "the timeout to be logged" grep -q "ran past its time limit" "$LOG"
like "$(cat "$LOG")" "hook $HD/hook.sh for run-started of run 2 ran past its time limit: killed" \
	"the slow hook is killed at --hook-timeout, and logged"
pgone() { ! pgrep -g "$slow" >/dev/null 2>&1; }
wait_for 3 "the slow hook's process group to be gone" pgone
ok $? "nothing of the slow hook survives (its 'sleep 30' child included)" ||
	diag "left: $(pgrep -a -g "$slow" 2>/dev/null)"
wait_for 5 "the failing hook to be logged" grep -q "run-done of run 2 exited with status 3" "$LOG"
ok $? "a hook that exits 3 is logged"
like "$(cat "$LOG")" "run-started of run 2 ran past its time limit: killed.*run-done of run 2 exited with status 3" \
	"  the run's later calls waited for the slow one to be killed"
wait_for 5 "the plan's hook for run-done" grep -q "^2 run-done$" "$O/planhook.log"
ok $? "the plan's own hook runs for its run"
is "$(grep -c '^1 ' "$O/planhook.log")" 0 "the plan's hook does not run for other runs"
is "$(awk '{ print $2 }' "$O/planhook.log" | tr '\n' ' ')" \
	"$(sql "SELECT kind FROM events WHERE run_id = 2 ORDER BY id;" | tr '\n' ' ')" \
	"the plan's hook ran once for every event of its run, in their order"
check_run 2

# a hook that others could have written is refused (daemon-hooks.t has more)
sed "s|^hook = .*|hook = open|; s|^name = .*|name = events-untrusted|" \
	"$W/b.plan" >"$W/c.plan"
out=$(pctl start "$W/c.plan" 2>&1)
is "$?" 2 "a hook in a world-writable directory: start refused (exit 2)"
like "$out" "hook = open: \\[hooks\\] open = $W/open/hook.sh: directory $W/open must be owned by root and writable by its owner only" \
	"  naming the hook, its directory and the rule"
chmod 0755 "$W/open"
chmod 0775 "$W/open/hook.sh"
out=$(pctl start "$W/c.plan" 2>&1)
like "$out" "$W/open/hook.sh must be owned by root and writable by its owner only" "a group-writable hook: refused"
is "$(sql 'SELECT count(*) FROM runs;')" 2 "  and no run was recorded"
ok "$(kill -0 "$DPID" 2>/dev/null && echo 0 || echo 1)" "plateaud is still running"
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"

# --- run 3: plateaud stops while hook calls wait behind hung ones ---
# plateaud waits for the hooks at most one hook time limit, then exits;
# what never ran is logged, counted
rm -f "$O/hang.pid"
daemon_start --config "$CONF" --hook "$HD/hook.sh" --hook-timeout 3s
ok $? "plateaud starts again, hook time limit 3 s"
sed "s|^name = .*|name = events-hang|" "$W/b.plan" >"$W/d.plan"
is "$(pctl start "$W/d.plan" 2>&1)" "run 3 started" "run 3 starts (every hook call of it sleeps 30 s)"
wait_for 10 "the first hook call to hang" test -s "$O/hang.pid"
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 3 --timeout 40s 2>&1)" "run 3 done" \
	"run 3 completes while its hook calls hang"
wait_for 5 "the plan's hook for run-done of run 3" grep -q "^3 run-done$" "$O/planhook.log"
ok $? "  the plan's hook, another lane, heard every event meanwhile"
n3=$(sql "SELECT count(*) FROM events WHERE run_id = 3;")
ok "$([ "$(runs_hooked 3)" -lt "$n3" ] && echo 0 || echo 1)" \
	"  the daemon's hook is behind: $(runs_hooked 3) of $n3 calls started"
t0=$(now_ms)
daemon_term 15
dt=$(($(now_ms) - t0))
is "$DSTATUS" 0 "plateaud exits 0 with hook calls waiting"
ok "$([ "$dt" -ge 2500 ] && [ "$dt" -lt 8000 ] && echo 0 || echo 1)" \
	"  after waiting for the hooks about one time limit, 3 s (${dt} ms)"
n=$(sed -n 's/.*hook .*: \([0-9]*\) calls for run 3 not made: plateaud is stopping.*/\1/p' "$LOG")
ok "$([ "${n:-0}" -ge 1 ] && echo 0 || echo 1)" "  the calls still waiting then are logged as not made (${n:-none})"
is "$(($(runs_hooked 3) + ${n:-0}))" "$n3" "  each event of run 3 was passed to the hook or counted as not made"
hang=$(cat "$O/hang.pid" 2>/dev/null)
[ -n "$hang" ] && kill -KILL -- "-$hang" 2>/dev/null

# --- run 4: plateaud stopped in the middle of a run ---
# the hook hears of every event, run-paused included, before plateaud exits
daemon_start --config "$CONF" --hook "$HD/hook.sh" --hook-timeout 5s
ok $? "plateaud starts again"
cat >"$W/e.plan" <<EOF
[run]
device = $f
serial = $serial
name = events-term
interval = 200ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = 1000
EOF
is "$(pctl start "$W/e.plan" 2>&1)" "run 4 started" "run 4 starts"
wait_for 20 "run 4 to store 2 samples" has_samples 4 2
daemon_term 20
is "$DSTATUS" 0 "plateaud exits 0 (SIGTERM in the middle of run 4)"
is "$(sql "SELECT kind FROM events WHERE run_id = 4 ORDER BY id DESC LIMIT 1;")" run-paused \
	"  run 4 paused (its last event), to resume"
n4=$(sql "SELECT count(*) FROM events WHERE run_id = 4;")
lost4() {
	local n
	n=$(sed -n 's/.*hook .*: \([0-9]*\) calls for run 4 not made.*/\1/p' "$LOG" | tail -1)
	echo "${n:-0}"
}
# plateaud waited for them: no waiting for the hooks here
is "$(runs_hooked 4) $(lost4)" "$n4 0" \
	"  each of its $n4 events, run-paused included, reached the hook before plateaud exited"
done_testing
