#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-wait.t: `plateau wait` against runs of a real plateaud, every exit
# code (plateau help wait): 0 reached (steady state while the run still
# runs; the end of a done run); 1 on --timeout, for a stopped run, for a
# run done without steady state; 5 a failed run; 3 no such run (or no
# database); 2 bad arguments.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

pwait() { timeout 60 "$PLATEAU" --db "$DB" wait "$@" 2>&1; }
nsamples() { sql "SELECT count(*) FROM samples WHERE phase_id = $(phase_id "$1" "$2");"; }

# write_plan FILE DEVICE NAME [precondition lines...]
write_plan() {
	local f=$1 dev=$2 name=$3
	shift 3
	{
		cat <<EOF
[run]
device = $dev
serial = $(serial_of "$dev")
name = $name
interval = 200ms

[fill]
passes = 1
bs = 4k
iodepth = 1

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
EOF
		printf '%s\n' "$@"
	} >"$f"
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# --- 0: steady state reached, while the run goes on ---
a=$(mkfile a.img 16M)
write_plan "$W/a.plan" "$a" wait-steady "steady = snia" "window = 3" "data_limit = 95" \
	"slope_limit = 95" "after_steady = continue" "max_rounds = 100"
is "$(pctl start "$W/a.plan" 2>&1)" "run 1 started" "run 1 (steady within 3 rounds, then continues)"
out=$(pwait 1 --for steady --timeout 30s)
rc=$?
state=$(run_state 1)
is "$rc" 0 "wait --for steady: exit 0 once steady"
is "$out" "run 1: steady state reached" "  and says so"
is "$state" preconditioning "  while the run is still preconditioning (it returned on steady, not at the end)"
ok "$([ "$(nsamples 1 2)" -lt 100 ] && echo 0 || echo 1)" "  long before max_rounds"
pctl stop 1 >/dev/null 2>&1
out=$(pwait 1 --for steady)
is "$?" 0 "wait --for steady on a run that was steady, then stopped: still 0"

# --- 1: timeouts ---
b=$(mkfile b.img 16M)
write_plan "$W/b.plan" "$b" wait-never "steady = none" "max_rounds = 200"
is "$(pctl start "$W/b.plan" 2>&1)" "run 2 started" "run 2 (never steady, long)"
t0=$(now_ms)
out=$(pwait 2 --for steady --timeout 1s)
rc=$?
dt=$(($(now_ms) - t0))
is "$rc" 1 "wait --for steady --timeout 1s: exit 1"
is "$out" "run 2: timed out waiting for steady state" "  and says it timed out"
ok "$([ "$dt" -ge 900 ] && [ "$dt" -lt 5000 ] && echo 0 || echo 1)" "  after about 1 s (${dt} ms)"
out=$(pwait 2 --timeout 300ms)
is "$?" 1 "wait (for done) --timeout 300ms: exit 1"
is "$out" "run 2: timed out waiting for the end" "  and says it timed out"

# --- the progress line: on a terminal only, and not with --quiet ---
err=$(timeout 60 "$PLATEAU" --db "$DB" --socket "$SOCK" wait 2 --timeout 300ms 2>&1 >/dev/null)
is "$err" "" "not on a terminal: nothing on stderr"
if command -v script >/dev/null; then
	# script(1) gives wait a terminal; what it wrote comes back on stdout
	# (a wide terminal: on a narrow one the line is cut to its width)
	tty_wait() { timeout 60 script -qec "stty cols 250; $PLATEAU --db $DB --socket $SOCK wait 2 --timeout 1500ms $*" /dev/null; }
	out=$(tty_wait | tr -d '\r')
	like "$out" $'\033\\[Krun 2 phase 2 precondition: [0-9.]+%, ETA [0-9hms.]+, [0-9]+/200 rounds, [0-9]+ IOPS, elapsed [0-9hms.]+, steady no' \
		"on a terminal: a progress line (phase, progress, IOPS, rounds of max_rounds, elapsed, ETA)" ||
		diag "$(printf '%s' "$out" | od -c | head -20)"
	like "$out" $'\033\\[Krun 2: timed out waiting for the end$' "  cleared before the result"
	out=$(tty_wait --quiet | tr -d '\r')
	ok "$(timeout 60 script -qec "stty cols 40; $PLATEAU --db $DB --socket $SOCK wait 2 --timeout 1500ms" /dev/null |
		tr '\r' '\n' | sed 's/\x1b\[K/\n/g' | awk 'length > 39 { bad = 1 } END { print bad ? 1 : 0 }')" \
		"  a line never wider than the terminal (40 columns)"
	is "$out" "run 2: timed out waiting for the end" "on a terminal with --quiet: the result only"
else
	skip 3 "script(1) is not installed"
fi

# --- 1: a stopped run ---
is "$(pctl stop 2 2>&1)" "run 2: stop requested" "plateau stop 2"
out=$(pwait 2 --timeout 20s)
is "$?" 1 "wait on a stopped run: exit 1"
is "$out" "run 2 was stopped" "  and says it was stopped"
out=$(pwait 2 --for steady --timeout 20s)
is "$?" 1 "wait --for steady on a stopped run (never steady): exit 1"

# --- 0 and 1: a run done without steady state ---
c=$(mkfile c.img 16M)
write_plan "$W/c.plan" "$c" wait-done "steady = none" "max_rounds = 3"
is "$(pctl start "$W/c.plan" 2>&1)" "run 3 started" "run 3 (short, no steady-state criterion)"
out=$(pwait 3 --timeout 30s)
is "$?" 0 "wait on a run that ends done: exit 0"
is "$out" "run 3 done" "  and says done"
out=$(pwait 3 --for steady --timeout 5s)
is "$?" 1 "wait --for steady on a run done without steady state: exit 1"
is "$out" "run 3 ended without reaching steady state" "  and says so"

# --- 5: a failed run (its target file grows between phases: the run keeps
# the descriptor it was checked with, and the recheck before the next phase
# finds a drive of another size) ---
d=$(mkfile d.img 64M)
write_plan "$W/d.plan" "$d" wait-fail "steady = none" "max_rounds = 3"
is "$(pctl start "$W/d.plan" 2>&1)" "run 4 started" "run 4 (its file grows during the fill)"
wait_for 20 "run 4 to fill" eval '[ "$(run_state 4)" = filling ]'
truncate -s 128M "$d"
out=$(pwait 4 --timeout 30s)
is "$?" 5 "wait on a failed run: exit 5"
like "$out" "^run 4 failed: refusing $d: it is no longer the drive that was checked" "  and says why it failed"
out=$(pwait 4 --for steady --timeout 5s)
is "$?" 5 "wait --for steady on a failed run: exit 5"

# --- 3 and 2 ---
out=$(pwait 999)
is "$?" 3 "wait on a run that does not exist: exit 3"
like "$out" "999" "  and names it"
out=$(timeout 10 "$PLATEAU" --db "$W/none.db" wait 1 2>&1)
is "$?" 3 "wait with no database: exit 3"
out=$(pwait abc)
is "$?" 2 "wait abc: exit 2"
out=$(pwait 1 --for ever)
is "$?" 2 "wait --for ever: exit 2"
like "$out" "expected steady or done" "  and says what --for takes"
out=$(pwait 1 --timeout soon)
is "$?" 2 "wait --timeout soon: exit 2"

daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"
done_testing
