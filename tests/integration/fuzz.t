#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fuzz.t: tests/helpers/fuzz against the plan parser and a running
# plateaud (seeded, bounded by cases and by time):
#   - mutated plans (examples/*.plan and small valid ones) handed to
#     plan_parse() in-process: each accepted, or refused with a message
#     naming the file; no crash, and no leak under ASan (build-san);
#   - mutated and random requests on the control socket: every complete
#     request line gets one JSON reply with "ok", the daemon answers status
#     every 100 cases and at the end, and exits 0 on SIGTERM without a
#     sanitizer report in its log (LeakSanitizer included under build-san).
# Plans in start requests are dry runs or name a scratch file in $W (the
# fuzzer withholds any other); the daemon has its own database, socket,
# lock directory and config.
#
# Environment: FUZZ_CASES (cases of each kind; default 3000 plans x 10 and
# 3000 requests), FUZZ_SECONDS (time bound of each fuzzer; default 20 s, or
# a day when FUZZ_CASES is given), FUZZ_SEED (default 1: make check runs the
# same cases every time, so a failure is the same for everyone; give a new
# seed to explore).  A failure names its case: `fuzz socket ... --seed S
# --case K` replays it alone.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

FUZZ=$HELPERS/fuzz
[ -x "$FUZZ" ] || skip_all "$FUZZ not built (make tests)"

SEED=${FUZZ_SEED:-1}
if [ -n "${FUZZ_CASES:-}" ]; then
	PLAN_CASES=$FUZZ_CASES
	SOCK_CASES=$FUZZ_CASES
	LIMIT=${FUZZ_SECONDS:-86400}
else
	PLAN_CASES=30000
	SOCK_CASES=3000
	LIMIT=${FUZZ_SECONDS:-20}
fi
SAN_RE='ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer'
# sanitizer reports on stderr, where this test reads them (make check's
# sanitizer run may send them to files otherwise)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=stderr"
export PLATEAU_LOCK_DIR=$W/locks
mkdir -p "$PLATEAU_LOCK_DIR"
diag "seed $SEED (FUZZ_SEED), $PLAN_CASES plan cases, $SOCK_CASES socket cases, at most ${LIMIT}s each"

# --- the plan parser ---
out=$("$FUZZ" plan --seed "$SEED" --cases "$PLAN_CASES" --seconds "$LIMIT" \
	"$PLATEAU_SRC"/examples/*.plan 2>&1)
rc=$?
diag "$out"
is "$rc" 0 "plan fuzzer: every check passed, exit 0"
like "$out" $'\nok [0-9]+ - every mutated plan was accepted or refused' "  it judged the mutated plans"
unlike "$out" "$SAN_RE" "  no sanitizer report"

# --- the control socket ---
scratch=$(mkfile scratch.img 16M)
serial=$(serial_of "$scratch")
isnt "$serial" "" "the scratch file has a serial"
daemon_start || bail_out "no daemon: $(cat "$LOG")"
out=$("$FUZZ" socket --socket "$SOCK" --device "$scratch" --serial "$serial" --pid "$DPID" \
	--seed "$SEED" --cases "$SOCK_CASES" --seconds "$LIMIT" 2>&1)
rc=$?
diag "$out"
is "$rc" 0 "socket fuzzer: every check passed, exit 0"
like "$out" $'\nok [0-9]+ - every complete request line got one JSON reply' "  it checked the replies"
unlike "$out" "$SAN_RE" "  no sanitizer report from the fuzzer"
ok "$(kill -0 "$DPID" 2>/dev/null && echo 0 || echo 1)" "plateaud (pid $DPID) is alive"
runs=$(sql "SELECT count(*) FROM runs;")
ok "$([ "${runs:-0}" -ge 1 ] && echo 0 || echo 1)" "runs were started on the scratch file ($runs)"
is "$(sql 'PRAGMA integrity_check;')" ok "the database passes PRAGMA integrity_check"
daemon_term 60
is "$DSTATUS" 0 "plateaud exits 0 on SIGTERM (no leak under LeakSanitizer)"
san=$(grep -E -A12 "$SAN_RE" "$LOG" | head -40)
is "$san" "" "no sanitizer report in plateaud's log"
bad=$(grep -E "$SAN_RE" "$LOG" | head -3)
[ -n "$bad" ] && diag "$(tail -n 60 "$LOG")"
done_testing
