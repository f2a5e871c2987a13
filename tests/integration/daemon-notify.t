#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-notify.t: plateaud's sd_notify(3) messages, read from a
# NOTIFY_SOCKET this test owns (tests/helpers/notify-listen):
#   - READY=1 (with MAINPID) only once the control socket accepts
#     connections and the database exists: the listener connects and stats
#     the moment READY=1 arrives;
#   - STATUS= names a run's phase and its last IOPS while it runs, and says
#     idle once it is over;
#   - WATCHDOG=1 keeps coming, at most WATCHDOG_USEC apart, when
#     WATCHDOG_USEC (and WATCHDOG_PID = the daemon's pid) are set, and never
#     when WATCHDOG_PID names another process (libsystemd's rule);
#   - STOPPING=1 on SIGTERM, then a clean exit.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

LISTEN=$HELPERS/notify-listen
[ -x "$LISTEN" ] || skip_all "$LISTEN not built (make tests)"

NSOCK=$W/notify.sock
NOUT=$W/notify.out

# listen [ARGS]: a fresh listener writing to $NOUT -> $LPID
listen() {
	: >"$NOUT"
	"$LISTEN" --timeout 60 --check-socket "$SOCK" --check-file "$DB" "$@" "$NSOCK" >"$NOUT" 2>>"$LOG" &
	LPID=$!
	track "$LPID"
	wait_for 5 "the notify listener to bind" grep -q '^listening$' "$NOUT"
}
stop_listener() {
	kill -TERM "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
}
notified() { grep -qE "$1" "$NOUT"; }

# --- a daemon under a watchdog ---
listen || bail_out "notify-listen did not start"
(
	export NOTIFY_SOCKET=$NSOCK WATCHDOG_USEC=500000 WATCHDOG_PID=$BASHPID
	exec "$PLATEAUD" --db "$DB" --socket "$SOCK" --config "$DCONF"
) >>"$LOG" 2>&1 &
DPID=$!
track "$DPID"
T0=$(now_ms)

wait_for 10 "READY=1" notified "^[0-9]+ [0-9-]+ (.*\|)?READY=1(\||$)"
ok $? "READY=1 arrives"
ready=$(grep -E "READY=1" "$NOUT" | head -n1)
like "$ready" "^[0-9]+ $DPID " "READY=1 is sent by the daemon's own pid ($DPID)"
has "$ready" "MAINPID=$DPID" "READY=1 comes with MAINPID=$DPID"
check=$(grep -m1 ' CHECK ' "$NOUT")
has "$check" "socket=ok" "when READY=1 arrived the control socket already accepted connections"
has "$check" "file=ok" "when READY=1 arrived the database already existed"
before=$(awk '/READY=1/ { exit } { print }' "$NOUT" | grep -cE ' (STATUS|STOPPING)=')
is "$before" 0 "no STATUS/STOPPING before READY=1"

f=$(mkfile target.img 64M)
cat >"$W/p.plan" <<EOF
[run]
device = $f
serial = $(serial_of "$f")
name = notify
interval = 200ms

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = 100
EOF
out=$(pctl start "$W/p.plan" 2>&1)
is "$out" "run 1 started" "a run starts"
# the daemon refreshes STATUS periodically (every 5 s): wait for one that
# shows the precondition with a sample
wait_for 14 "a STATUS= with the precondition's IOPS" \
	notified "STATUS=.*run 1 .*preconditioning.*[0-9]+ IOPS"
ok $? "STATUS= reports the run while it preconditions"
st=$(grep -E "STATUS=.*run 1 .*preconditioning" "$NOUT" | tail -n1)
like "$st" "STATUS=run 1 $f: preconditioning 4k-randwrite round [0-9]+ [1-9][0-9]* IOPS" \
	"STATUS= names the device, the state, the workload, the round and the IOPS"

# the daemon said "idle" once already, right after READY=1: only a line
# written after the stop counts
before=$(wc -l <"$NOUT")
notified_after() { tail -n +"$((before + 1))" "$NOUT" | grep -qE "$1"; }
out=$(pctl stop 1 2>&1)
is "$out" "run 1: stop requested" "plateau stop 1"
wait_for 10 "STATUS=idle once the run is over" notified_after "STATUS=idle"
ok $? "STATUS= says idle once the run has ended"
is "$(run_state 1)" stopped "the run ended stopped"

# watchdog pings over the whole life so far
mapfile -t wd < <(awk -v p="$DPID" '$2 == p && /WATCHDOG=1/ { print $1 }' "$NOUT")
elapsed=$(($(now_ms) - T0))
diag "${#wd[@]} WATCHDOG=1 in ${elapsed} ms"
ok "$([ "${#wd[@]}" -ge $((elapsed / 500)) ] && echo 0 || echo 1)" \
	"WATCHDOG=1 at least every 500 ms (${#wd[@]} in ${elapsed} ms)"
maxgap=0
for ((i = 1; i < ${#wd[@]}; i++)); do
	g=$((wd[i] - wd[i - 1]))
	[ "$g" -gt "$maxgap" ] && maxgap=$g
done
ok "$([ "${#wd[@]}" -ge 2 ] && [ "$maxgap" -lt 500 ] && echo 0 || echo 1)" \
	"no two WATCHDOG=1 further apart than WATCHDOG_USEC (largest gap ${maxgap} ms)"

daemon_term 10
ok $? "plateaud exits after SIGTERM"
is "$DSTATUS" 0 "with status 0"
wait_for 3 "STOPPING=1" notified "STOPPING=1"
ok $? "STOPPING=1 is sent on SIGTERM"
stop_listener

# --- WATCHDOG_PID names another process: no pings (libsystemd's rule) ---
listen || bail_out "notify-listen did not restart"
(
	export NOTIFY_SOCKET=$NSOCK WATCHDOG_USEC=200000 WATCHDOG_PID=1
	exec "$PLATEAUD" --db "$DB" --socket "$SOCK" --config "$DCONF"
) >>"$LOG" 2>&1 &
DPID=$!
track "$DPID"
wait_for 10 "READY=1 (second daemon)" notified "READY=1"
ok $? "READY=1 with a foreign WATCHDOG_PID"
sleep 1 # the absence of pings over five watchdog periods is the point
is "$(grep -c 'WATCHDOG=1' "$NOUT")" 0 "no WATCHDOG=1 when WATCHDOG_PID is another process"
daemon_term 10
is "$DSTATUS" 0 "the second daemon exits 0 on SIGTERM"
stop_listener

# --- without NOTIFY_SOCKET nothing breaks ---
daemon_start
ok $? "plateaud runs without NOTIFY_SOCKET"
daemon_term 10
is "$DSTATUS" 0 "and exits 0 on SIGTERM"
done_testing
