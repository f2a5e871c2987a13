# SPDX-License-Identifier: MIT
# daemon-lib.sh: what the daemon-*.t tests share (bash; sourced, not run).
#
# Sourcing it sets up a private work directory $W (removed on exit) with a
# database $DB, a control socket $SOCK and a daemon log $LOG, and a trap
# that kills every daemon and helper the test started (by pid, never by
# name), detaches the loop devices it attached, and removes $W.
#
#   daemon_start [ARGS...]     start plateaud on $DB/$SOCK (plus ARGS); $DPID;
#                              without --config in ARGS, with $DCONF, which
#                              allows regular-file targets in $W
#   daemon_kill9 / daemon_term kill -9 / SIGTERM $DPID and reap it
#   pctl ARGS...               the CLI on $DB/$SOCK
#   wait_for SECS DESC CMD...  poll CMD every 50 ms until it succeeds
#   sql QUERY                  sqlite3 on $DB (busy timeout, read side)
#   mkfile NAME SIZE           a sparse regular file in $W -> its path
#   mkloop NAME SIZE           a loop device (direct I/O) over a file in $W
#   serial_of PATH             what `plateau drives` names it
#   check_run RUN              the database invariants of a finished run
#   samples_of RUN / has_samples RUN N   its samples (all phases) / at least N
#   at_cleanup CMD             run CMD first at exit (unfreeze, unmount)
set -u
. "${PLATEAU_SRC:?}/tests/integration/tap.sh"

B=${PLATEAU_BUILD:?}
PLATEAU=$B/plateau
PLATEAUD=$B/plateaud
HELPERS=$B/tests/helpers
for _x in "$PLATEAU" "$PLATEAUD"; do
	[ -x "$_x" ] || skip_all "$_x not built (make tests)"
done
command -v sqlite3 >/dev/null || skip_all "sqlite3 (the shell) is not installed"
if [ "$(id -u)" != 0 ] && ! id -nG | grep -qw plateau; then
	skip_all "the daemon tests act as other users and use loop devices: run as root"
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/plateau-daemon.XXXXXX") || bail_out "mktemp failed"
DB=$W/p.db
SOCK=$W/ctl.sock
LOG=$W/daemon.log
DPID=
_PIDS=()
_LOOPS=()
_PGIDS=()

_CLEANUPS=()

_daemon_cleanup() {
	local p l
	# first: what a test set up that would keep its processes from dying
	# (a frozen filesystem)
	for p in "${_CLEANUPS[@]}"; do
		eval "$p"
	done
	for p in "${_PIDS[@]}"; do
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	done
	for p in "${_PGIDS[@]}"; do
		[ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null
	done
	for p in "${_PIDS[@]}"; do
		[ -n "$p" ] && wait "$p" 2>/dev/null
	done
	for l in "${_LOOPS[@]}"; do
		[ -n "$l" ] && losetup -d "$l" 2>/dev/null
	done
	if [ -n "${PLATEAU_TEST_KEEP:-}" ]; then
		echo "# kept $W" >&2
	else
		rm -rf "$W"
	fi
}
trap _daemon_cleanup EXIT

# track PID: kill it at exit
track() { _PIDS+=("$1"); }
# at_cleanup CMD: run the shell command CMD at exit, before anything else
at_cleanup() { _CLEANUPS=("$1" "${_CLEANUPS[@]}"); }
# track_pgid PGID: kill the process group at exit
track_pgid() { _PGIDS+=("$1"); }

pctl() { "$PLATEAU" --db "$DB" --socket "$SOCK" "$@"; }

sql() { sqlite3 -batch -cmd '.timeout 5000' "$DB" "$@"; }

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for SECS DESC CMD...: poll CMD until it succeeds; diag on timeout
wait_for() {
	local secs=$1 desc=$2 end
	shift 2
	end=$(($(now_ms) + secs * 1000))
	until "$@"; do
		if [ "$(now_ms)" -ge "$end" ]; then
			diag "timed out after ${secs}s waiting for: $desc"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

_daemon_up() { "$PLATEAU" --socket "$SOCK" status >/dev/null 2>&1; }

# The daemon's settings unless a test gives its own --config: regular files
# in $W are targets (plateaud refuses every regular file not beneath
# plateaud.conf's file_targets).
DCONF=$W/plateaud.conf
printf '[daemon]\nfile_targets = %s\n' "$W" >"$DCONF"

# daemon_start [ARGS...]: plateaud in the background; waits until it answers
daemon_start() {
	local conf=()
	[[ " $* " == *" --config "* ]] || conf=(--config "$DCONF")
	printf -- "--- plateaud %s (%(%T)T)\n" "$*" -1 >>"$LOG"
	"$PLATEAUD" --db "$DB" --socket "$SOCK" "${conf[@]}" "$@" >>"$LOG" 2>&1 &
	DPID=$!
	track "$DPID"
	wait_for 10 "plateaud to answer on $SOCK" _daemon_up
}

_gone() { ! kill -0 "$1" 2>/dev/null; }

# daemon_kill9: kill -9 the daemon and reap it
daemon_kill9() {
	kill -KILL "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	printf -- "--- killed -9 (%(%T)T)\n" -1 >>"$LOG"
}

# daemon_term [SECS]: SIGTERM, wait for the exit (its status in $DSTATUS)
daemon_term() {
	local secs=${1:-10}
	DSTATUS=
	kill -TERM "$DPID" 2>/dev/null || return 1
	if ! wait_for "$secs" "plateaud (pid $DPID) to exit after SIGTERM" _gone "$DPID"; then
		kill -KILL "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		DSTATUS=timeout
		return 1
	fi
	wait "$DPID" 2>/dev/null
	DSTATUS=$?
	return 0
}

# mkfile NAME SIZE: a sparse file in $W, path on stdout
mkfile() {
	truncate -s "$2" "$W/$1" && echo "$W/$1"
}

# mkloop NAME SIZE: a loop device with direct I/O over a new file -> $LOOPDEV
mkloop() {
	LOOPDEV=
	truncate -s "$2" "$W/$1" || return 1
	LOOPDEV=$(losetup --direct-io=on -f --show "$W/$1" 2>/dev/null) || return 1
	_LOOPS+=("$LOOPDEV")
}

serial_of() {
	"$PLATEAU" drives "$1" --json | sed -n 's/.*"serial":"\([^"]*\)".*/\1/p'
}

# the state of run $1 in the database
run_state() { sql "SELECT state FROM runs WHERE id = $1;"; }

# samples_of RUN: its samples, all phases; has_samples RUN N: at least N
samples_of() { sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.run_id = $1;"; }
has_samples() { [ "$(samples_of "$1" 2>/dev/null)" -ge "$2" ] 2>/dev/null; }

# phase_id RUN SEQ
phase_id() { sql "SELECT id FROM phases WHERE run_id = $1 AND seq = $2;"; }

# The run's event kinds in order, as one space-separated line; with a
# second argument, only the kinds matching that ERE.
event_kinds() {
	sql "SELECT kind FROM events WHERE run_id = $1 ORDER BY id;" |
		{ if [ $# -gt 1 ]; then grep -E "$2"; else cat; fi; } | tr '\n' ' ' | sed 's/ $//'
}

# check_run RUN [STATE]: what must hold of a run that ended (default done)
check_run() {
	local run=$1 want=${2:-done} bad
	is "$(run_state "$run")" "$want" "run $run: state $want"
	if [ "$want" = "done" ]; then
		is "$(sql "SELECT group_concat(seq || ':' || state, ' ') FROM phases
			WHERE run_id = $run AND state != 'done';")" "" \
			"run $run: every phase done"
	fi
	# PRIMARY KEY (phase_id, seq) rules out duplicates; min 1 and count =
	# max rules out gaps
	bad=$(sql "SELECT p.seq || ':n=' || count(*) || ',min=' || min(s.seq) || ',max=' || max(s.seq)
		FROM phases p JOIN samples s ON s.phase_id = p.id WHERE p.run_id = $run
		GROUP BY p.id HAVING count(*) != max(s.seq) OR min(s.seq) != 1;")
	is "$bad" "" "run $run: samples of every phase numbered 1..N, no gap, no duplicate"
	bad=$(sql "SELECT p.seq || ':' || a.seq FROM phases p
		JOIN samples a ON a.phase_id = p.id
		JOIN samples b ON b.phase_id = a.phase_id AND b.seq = a.seq + 1
		WHERE p.run_id = $run AND (b.start_ns < a.end_ns OR a.end_ns <= a.start_ns);")
	is "$bad" "" "run $run: sample intervals in order and not overlapping"
	# a precondition's rounds are its whole (non-partial) samples
	bad=$(sql "SELECT p.seq || ':rounds=' || p.rounds || ',full=' ||
			(SELECT count(*) FROM samples s WHERE s.phase_id = p.id AND s.partial = 0)
		FROM phases p WHERE p.run_id = $run AND p.kind = 'precondition' AND
			p.rounds != (SELECT count(*) FROM samples s WHERE s.phase_id = p.id AND s.partial = 0);")
	is "$bad" "" "run $run: precondition rounds = its whole samples"
	if [ "$want" = "done" ]; then
		bad=$(sql "SELECT seq || ':' || progress_bytes || '/' || total_bytes FROM phases
			WHERE run_id = $run AND kind = 'fill' AND (total_bytes = 0 OR progress_bytes != total_bytes);")
		is "$bad" "" "run $run: every fill phase complete (progress = total > 0)"
		bad=$(sql "SELECT p.seq || ':points=' || count(pt.seq) || ',max=' || ifnull(max(pt.seq), 0)
			FROM phases p LEFT JOIN points pt ON pt.phase_id = p.id
			WHERE p.run_id = $run AND p.kind = 'sweep'
			GROUP BY p.id HAVING count(pt.seq) = 0 OR count(pt.seq) != max(pt.seq) OR
				count(pt.seq) != json_array_length(p.params, '\$.points');")
		is "$bad" "" "run $run: one points row per load point of every sweep"
	fi
	bad=$(sql "SELECT a.id FROM events a JOIN events b ON b.run_id = a.run_id AND b.id > a.id
		WHERE a.run_id = $run AND b.time_ns < a.time_ns LIMIT 3;")
	is "$bad" "" "run $run: event times in order"
	bad=$(sql "SELECT a.seq FROM phases a JOIN phases b ON b.run_id = a.run_id AND b.seq = a.seq + 1
		WHERE a.run_id = $run AND a.ended_ns > b.started_ns;")
	is "$bad" "" "run $run: phases ran one after the other"
	is "$(sql 'PRAGMA integrity_check;')" "ok" "run $run: PRAGMA integrity_check = ok"
}
