#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-protocol.t: the control socket under bad input, through a raw
# client (tests/helpers/ctl-send) and the CLI:
#   - malformed JSON, an oversize line (> CONTROL_REQUEST_MAX, daemon/control.h),
#     unknown fields, wrong types, unknown cmds, a stop or status of an
#     unknown run, a NUL byte, nesting too deep, a plan that does not
#     parse: each gets one {"ok":false,"error":...} line that names the
#     problem, and the daemon keeps serving (the same connection where it
#     stays open, a new one, and the daemon pid alive);
#   - strict JSON (RFC 8259): single quotes, trailing commas, NaN, "1.",
#     raw control characters, invalid UTF-8 (overlong forms and surrogates
#     too), lone \u surrogates, \u0000 in any string or field name: refused,
#     answered, never echoing the bytes, and the command does not run; a
#     last request without its newline is answered even with a raw NUL;
#   - a plan of exactly PLAN_TEXT_MAX bytes that JSON escapes everywhere
#     passes plateau check and plateau start; one byte more fails both
#     with the same words; a PLAN_TEXT_MAX plan of control bytes (each
#     6 bytes as JSON) still reaches the plan parser;
#   - 20 peers that send requests and never read: another client's status
#     still answers within a second each time, the watchdog keeps pinging,
#     and each of them is dropped (and logged) once its unread replies pass
#     CONTROL_OUTPUT_MAX;
#   - the connection limit answers with an error, and frees up again;
#   - a peer that is neither root nor in the plateau group is refused
#     (SO_PEERCRED), with a log line; the CLI says so;
#   - the CLI without a daemon (no socket, a stale socket) exits 4 with a
#     clear message.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

SEND=$HELPERS/ctl-send
[ -x "$SEND" ] || skip_all "$SEND not built (make tests)"

# send BYTES [ARGS]: the raw bytes (printf %b escapes) on a new connection
send() {
	local bytes=$1
	shift
	printf '%b' "$bytes" | "$SEND" "$@" "$SOCK" 2>>"$W/send.err"
}
ERR_RE='^\{"ok":false,"error":"[^"]+.*"\}$'
alive() {
	kill -0 "$DPID" 2>/dev/null && [ "$(send '{"cmd":"status"}\n')" = \
		"{\"ok\":true,\"runs\":[],\"version\":\"$("$PLATEAU" version | cut -d' ' -f2)\",\"database\":\"$DB\"}" ]
}

# bad NAME BYTES ERE: one error line naming the problem, then still serving
bad() {
	local name=$1 bytes=$2 re=$3 out n
	out=$(send "$bytes")
	n=$(grep -c '' <<<"$out")
	if [ "$n" != 1 ] || ! [[ $out =~ $ERR_RE ]]; then
		fail "$name: one {\"ok\":false,\"error\":...} line"
		diag "got: ${out:0:300}"
	else
		like "$out" "$re" "$name: error says: ${out:21:90}"
	fi
}

# regular files are plateaud's targets only beneath file_targets
mkdir -p "$W/t"
CONF=$W/plateaud.conf
printf '[daemon]\nfile_targets = %s\n' "$W/t" >"$CONF"
daemon_start --config "$CONF" || bail_out "no daemon: $(cat "$LOG")"
alive
ok $? "a plain status request works"
f=$(mkfile t/x.img 16M)
# a plan that would start a (read-only) run, as JSON string contents
P=$(printf '[run]\\\\ndevice = %s\\\\nserial = %s\\\\n[sweep]\\\\nprofile = 4k-randread\\\\npoints = 1x1\\\\n' \
	"$f" "$(serial_of "$f")")

# --- malformed ---
bad "malformed JSON" 'nonsense\n' 'malformed JSON'
bad "truncated JSON" '{"cmd":"status"\n' 'malformed JSON'
bad "trailing data" '{"cmd":"status"} {"cmd":"list"}\n' 'malformed JSON \(trailing data at byte 18\)'
bad "a JSON array" '[1,2,3]\n' 'expected a JSON object'
bad "a JSON string" '"status"\n' 'expected a JSON object'
bad "nesting too deep" "$(printf '%.0s[' {1..200})\n" 'malformed JSON.*(nest|depth)'
bad "a NUL byte" '{"cmd":"sta\0tus"}\n' 'NUL byte'
bad "a NUL byte after the object" '{"cmd":"status"}\0\n' 'NUL byte'
# --- strict JSON (RFC 8259), UTF-8, no NUL: refused, answered, not run ---
# norun NAME BYTES ERE: one error line naming the problem, no byte that is
# not UTF-8 in it, and no run recorded
norun() {
	local name=$1 bytes=$2 re=$3 out
	out=$(send "$bytes")
	if [ "$(grep -c '' <<<"$out")" != 1 ] || ! [[ $out =~ $ERR_RE ]]; then
		fail "$name: one {\"ok\":false,\"error\":...} line"
		diag "got: ${out:0:300}"
	else
		like "$out" "$re" "$name: refused: ${out:21:80}"
	fi
	if iconv -f UTF-8 -t UTF-8 <<<"$out" >/dev/null 2>&1; then
		pass "  the answer is UTF-8"
	else
		fail "  the answer is UTF-8"
		diag "got: $(od -c <<<"$out" | head -5)"
	fi
	is "$(sql 'SELECT count(*) FROM runs;')" 0 "  and no run was recorded"
}
S='{"cmd":"start","plan":"'$P
NUL_RE='a NUL character \(\\\\u0000\)'
norun "an escaped NUL in cmd" '{"cmd":"start\\u0000x","plan":"'"$P"'"}\n' "field 'cmd': $NUL_RE in the string"
norun "an escaped NUL in a nested value" "$S"'","file":"a\\u0000b"}\n' "field 'file': $NUL_RE"
norun "an escaped NUL in the plan" "$S"'\\u0000"}\n' "field 'plan': $NUL_RE"
norun "an escaped NUL in a field name" "$S"'","dry_run\\u0000":false}\n' \
	"malformed JSON \\($NUL_RE in a field name at byte [0-9]+\\)"
norun "single quotes" "{'cmd':'start','plan':'$P'}\\n" \
	'malformed JSON \(expected a field name in double quotes at byte 2\)'
norun "a trailing comma" "$S"'",}\n' 'malformed JSON \(expected a field name in double quotes'
norun "invalid UTF-8 in cmd" '{"cmd":"sta\xffrt","plan":"'"$P"'"}\n' 'malformed JSON \(not UTF-8 at byte 12\)'
norun "invalid UTF-8 in the plan" "$S"'#\xc3("}\n' 'malformed JSON \(not UTF-8 at byte [0-9]+\)'
norun "an overlong UTF-8 form" "$S"'#\xc0\xaf"}\n' 'malformed JSON \(not UTF-8'
norun "a UTF-8 surrogate" "$S"'#\xed\xa0\x80"}\n' 'malformed JSON \(not UTF-8'
norun "a lone \\u surrogate" "$S"'#\\ud800"}\n' 'malformed JSON \(a lone UTF-16 surrogate'
norun "a raw tab in a string" "$S"'#\t"}\n' 'malformed JSON \(a control character in a string'
norun "NaN" "$S"'","dry_run":NaN}\n' 'malformed JSON \(unexpected character \(expected a value\)'
norun "a number ending in '.'" "$S"'","dry_run":1.}\n' "malformed JSON \\(a number needs a digit after '\\.'"
norun "a raw NUL, no newline, then EOF" "$S"'"}\0' 'NUL byte in the request'
# without the fault the same request is taken: the cases above were
# refused for what they show, not for something else in them
out=$(send "$S"'","dry_run":true}\n')
like "$out" '^\{"ok":true,"drive":' "the same request without the fault is taken (dry run)"
out=$(send '{"cmd":"status"}\0')
like "$out" 'NUL byte in the request' "a last request with a raw NUL and no newline gets an answer"
out=$(send '{"cmd":"st\xc3\xa9tus"}\n')
has "$out" $'unknown cmd \'st\xc3\xa9tus\'' "valid UTF-8 is taken, and quoted back as it came"

# --- unknown things ---
bad "unknown cmd" '{"cmd":"format-everything"}\n' "unknown cmd 'format-everything' \(expected start, stop, status, list\)"
bad "no cmd" '{"run":1}\n' "field 'cmd': expected one of start, stop, status, list"
bad "unknown field in status" '{"cmd":"status","verbose":true}\n' "unknown field 'verbose' in a status request"
bad "unknown field in stop" '{"cmd":"stop","run":1,"force":true}\n' "unknown field 'force' in a stop request"
bad "unknown field in list" '{"cmd":"list","all":1}\n' "unknown field 'all' in a list request"
bad "unknown field in start" '{"cmd":"start","plan":"x","device":"/dev/sda"}\n' "unknown field 'device' in a start request"
bad "stop of an unknown run" '{"cmd":"stop","run":999}\n' 'run 999 is not running in this daemon'
bad "status of an unknown run" '{"cmd":"status","run":42}\n' 'run 42 is not running in this daemon'
# --- wrong types ---
bad "cmd a number" '{"cmd":5}\n' "field 'cmd': expected one of"
bad "cmd null" '{"cmd":null}\n' "field 'cmd': expected one of"
bad "run a string" '{"cmd":"stop","run":"1"}\n' "field 'run': expected a positive integer"
bad "run negative" '{"cmd":"stop","run":-3}\n' "field 'run': expected a positive integer"
bad "run zero" '{"cmd":"stop","run":0}\n' "field 'run': expected a positive integer"
bad "run fractional" '{"cmd":"status","run":1.5}\n' "field 'run': expected a positive integer"
bad "run missing from stop" '{"cmd":"stop"}\n' "missing field 'run'"
bad "plan a number" '{"cmd":"start","plan":42}\n' "field 'plan': expected the plan's text as a string"
bad "plan missing" '{"cmd":"start"}\n' "field 'plan'"
bad "file empty" '{"cmd":"start","plan":"x","file":""}\n' "field 'file'"
bad "dry_run a string" '{"cmd":"start","plan":"x","dry_run":"yes"}\n' "field 'dry_run': expected true or false"
bad "a plan that does not parse" '{"cmd":"start","file":"bad.plan","plan":"[run]\\ndevice = /dev/null\\ncolour = blue\\n"}\n' \
	"\"error\":\"bad\\.plan:3: \\[run\\] unknown field 'colour'"
bad "a plan naming no device" '{"cmd":"start","plan":"[fill]\\n"}\n' "plan.*\[run\]"
ok "$(alive && echo 0 || echo 1)" "after all that the daemon still answers a status request"

# --- one connection, an error and then a good request ---
out=$(send 'nonsense\n\n{"cmd":"status"}\n{"cmd":"nope"}\n{"cmd":"list"}\n')
mapfile -t lines <<<"$out"
is "${#lines[@]}" 4 "four requests on one connection (and an empty line ignored): four answers"
like "${lines[0]:-}" 'malformed JSON' "  1: the malformed line is refused"
like "${lines[1]:-}" '^\{"ok":true,"runs":\[\]' "  2: the connection still serves status"
like "${lines[2]:-}" "unknown cmd 'nope'" "  3: an unknown cmd is refused"
like "${lines[3]:-}" '^\{"ok":true,"runs":\[\]\}$' "  4: list works"
out=$(send '{"cmd":"sta\0tus"}\n{"cmd":"status"}\n' --no-shutdown --lines 2 --timeout 3000)
like "$out" $'NUL byte.*\n\\{"ok":true' "a NUL byte does not end the connection"

# --- oversize: CONTROL_REQUEST_MAX = 6 * PLAN_TEXT_MAX + 6 * PATH_MAX + 1024
# (daemon/control.h, lib/plan.h) ---
REQMAX=1254400
PLANMAX=204800
big=$W/big.req
head -c $((REQMAX + 1)) /dev/zero | tr '\0' 'x' >"$big"
echo >>"$big"
out=$("$SEND" "$SOCK" <"$big" 2>>"$W/send.err")
rc=$?
like "$out" "$ERR_RE" "a line one byte over the limit gets an error reply"
like "$out" "request longer than $REQMAX bytes" "  that names the size limit"
is "$rc" 0 "  and the daemon closes that connection"
{ printf '{"cmd":"start","plan":"'; head -c $((PLANMAX + 1)) /dev/zero | tr '\0' '#'; printf '"}\n'; } >"$big"
out=$("$SEND" --no-shutdown --lines 1 --timeout 5000 "$SOCK" <"$big" 2>>"$W/send.err")
like "$out" '"error":"plan: larger than 200 KiB; not a plan"' \
	"a start with a plan one byte over PLAN_TEXT_MAX is refused by the plan parser, in its words"
head -c $((REQMAX + 5000)) /dev/zero | tr '\0' 'y' >"$big"
out=$("$SEND" --no-shutdown --timeout 5000 "$SOCK" <"$big" 2>>"$W/send.err")
rc=$?
like "$out" "request longer than $REQMAX bytes" "a line over the limit without any newline is refused before the newline comes"
is "$rc" 0 "  and that connection is closed"
ok "$(alive && echo 0 || echo 1)" "the daemon still serves after the oversize requests"

# --- one plan limit: plateau check, plateau start and plateaud agree ---
hdr=$(printf '[run]\ndevice = %s\nserial = %s\nname = escapes\n[sweep]\nprofile = 4k-randread\npoints = 1x1\n' \
	"$f" "$(serial_of "$f")")
# comment lines of '"', '\' and tabs: every byte but '#' is two bytes of JSON
line=$(printf '#%s' "$(printf '"\\\t%.0s' {1..300})")
{ printf '%s\n' "$hdr"; yes "$line" | head -c $((PLANMAX - ${#hdr} - 1)); } >"$W/max.plan"
is "$(stat -c %s "$W/max.plan")" "$PLANMAX" "a plan of exactly PLAN_TEXT_MAX bytes, nearly all escaped in JSON"
out=$(pctl check "$W/max.plan" 2>&1)
is "$?" 0 "  plateau check takes it" || diag "$out"
out=$(pctl start --dry-run "$W/max.plan" 2>&1)
is "$?" 0 "  plateau start --dry-run takes it too (the request is about twice its size)" || diag "$out"
like "$out" "^dry run: nothing was started" "  and the daemon answers with its dry run"
cp "$W/max.plan" "$W/over.plan"
printf '#' >>"$W/over.plan"
cout=$(pctl check "$W/over.plan" 2>&1)
crc=$?
sout=$(pctl start --dry-run "$W/over.plan" 2>&1)
src=$?
is "$crc:$src" "2:2" "one byte more: check and start both fail (exit 2)"
is "$sout" "$cout" "  with the same message"
like "$cout" "over.plan: larger than 200 KiB; not a plan" "  which says the limit"
# the worst case of escaping: every byte a control byte, 6 bytes as JSON
{
	printf '{"cmd":"start","plan":"'
	head -c "$PLANMAX" /dev/zero | tr '\0' '\1' | od -An -v -tx1 | tr -s ' \n' '\n\n' |
		grep -v '^$' | sed 's/^/\\u00/' | tr -d '\n'
	printf '"}\n'
} >"$big"
ok "$([ "$(stat -c %s "$big")" -gt $((6 * PLANMAX)) ] && echo 0 || echo 1)" \
	"a start whose plan is PLAN_TEXT_MAX control bytes, \\u0001 each, is $(stat -c %s "$big") bytes"
out=$("$SEND" --no-shutdown --lines 1 --timeout 10000 "$SOCK" <"$big" 2>>"$W/send.err")
like "$out" '"error":"plan:1: line longer than 4096 characters"' "  and still reaches the plan parser, which names the problem"

# a request whose last line has no newline, then EOF: answer or refuse it,
# but do not drop it in silence
out=$(send '{"cmd":"status"}')
isnt "$out" "" "a request without its newline, then EOF, gets an answer"

# --- the connection limit ---
idle=()
for i in $(seq 1 64); do
	"$SEND" --no-shutdown --timeout 30000 "$SOCK" </dev/null >/dev/null 2>&1 &
	idle+=($!)
	track $!
done
full() { [ "$(send '{"cmd":"status"}\n')" = '{"ok":false,"error":"too many connections"}' ]; }
wait_for 10 "the 65th connection to be refused" full
ok $? "with 64 idle connections open the next one is told: too many connections"
for p in "${idle[@]}"; do kill "$p" 2>/dev/null; done
for p in "${idle[@]}"; do wait "$p" 2>/dev/null; done
wait_for 10 "the daemon to serve again" alive
ok $? "once they close, the daemon serves again"

# --- peers that send and never read their replies ---
LISTEN=$HELPERS/notify-listen
[ -x "$LISTEN" ] || bail_out "$LISTEN not built (make tests)"
daemon_term || bail_out "plateaud did not stop"
NSOCK=$W/notify.sock
NOUT=$W/notify.out
"$LISTEN" --timeout 600 "$NSOCK" >"$NOUT" 2>>"$LOG" &
track $!
wait_for 5 "the notify listener to bind" grep -q '^listening$' "$NOUT" || bail_out "no listener"
(
	export NOTIFY_SOCKET=$NSOCK WATCHDOG_USEC=2000000 WATCHDOG_PID=$BASHPID
	exec "$PLATEAUD" --db "$DB" --socket "$SOCK" --config "$CONF"
) >>"$LOG" 2>&1 &
DPID=$!
track "$DPID"
wait_for 10 "plateaud under a watchdog to answer" _daemon_up || bail_out "no daemon: $(tail "$LOG")"
T0=$(now_ms)
# 20 peers: 2400 status requests each (far more replies than a socket
# buffer holds), then nothing until $W/go, then requests without end;
# never reading anything
REQ='{"cmd":"status"}'
for i in $(seq 1 20); do
	{
		yes "$REQ" | head -c $((2400 * 17))
		touch "$W/sent.$i"
		until [ -e "$W/go" ]; do sleep 0.05; done
		yes "$REQ"
	} | nice -n 19 "$SEND" --flood "$SOCK" >"$W/stall.$i" 2>&1 &
	track $!
done
all_sent() { [ "$(ls "$W"/sent.* 2>/dev/null | wc -l)" = 20 ]; }
wait_for 20 "the 20 peers to send their first requests" all_sent
ok $? "20 connections have sent 2400 status requests each without reading a reply"
# round trips on one connection: the daemon's time, not a process start's
out=$(printf '{"cmd":"status"}\n' | "$SEND" --ping 10 --timeout 10000 "$SOCK" 2>>"$W/send.err")
is "$(grep -c '^[0-9]* {"ok":true,"runs":' <<<"$out")" 10 \
	"meanwhile another client's status is answered, 10 of 10 times"
slow=$(awk '$1 >= 1000 { printf "%s ", $1 }' <<<"$out")
is "$slow" "" "  each within a second" || diag "round trips (ms): $(cut -d' ' -f1 <<<"$out" | tr '\n' ' ')"
touch "$W/go"
dropped() { [ "$(grep -l '^closed after' "$W"/stall.* 2>/dev/null | wc -l)" = 20 ]; }
wait_for 60 "the 20 peers to be dropped" dropped
ok $? "once they go on sending, each is dropped by the daemon" ||
	diag "$(head -n 3 "$W"/stall.* | head -n 40)"
n=$(grep -c 'dropping the control connection of uid 0 (pid [0-9]*): [0-9]* bytes of replies unread (at most 1048576)' "$LOG")
is "$n" 20 "  with a log line for each, naming the cap"
# the cap is the daemon's buffer, on top of what the socket holds: each
# peer sent at least 1 MiB of replies' worth of requests
rlen=$(($(send '{"cmd":"status"}\n' | wc -c)))
small=$(awk -v min=$((1048576 / rlen * ${#REQ})) '/^closed after/ && $3 < min { n++ } END { print n + 0 }' "$W"/stall.*)
is "$small" 0 "  none before its unread replies passed CONTROL_OUTPUT_MAX"
ok "$(alive && echo 0 || echo 1)" "the daemon serves on"
mapfile -t wd < <(awk -v p="$DPID" '$2 == p && /WATCHDOG=1/ { print $1 }' "$NOUT")
elapsed=$(($(now_ms) - T0))
maxgap=0
for ((i = 1; i < ${#wd[@]}; i++)); do
	g=$((wd[i] - wd[i - 1]))
	[ "$g" -gt "$maxgap" ] && maxgap=$g
done
ok "$([ "${#wd[@]}" -ge $((elapsed / 2000)) ] && [ "$maxgap" -lt 2000 ] && echo 0 || echo 1)" \
	"the watchdog was pinged all along (${#wd[@]} in ${elapsed} ms, largest gap ${maxgap} ms < WATCHDOG_USEC)"

# --- a peer that is neither root nor in the plateau group ---
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip 10 "needs root and setpriv to act as another user"
elif getent group plateau | grep -qE '(:|,)nobody(,|$)'; then
	skip 10 "nobody is in the plateau group here"
else
	asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	chmod 0755 "$W"
	out=$(asnobody "$PLATEAU" --socket "$SOCK" status 2>&1)
	rc=$?
	is "$rc" 4 "nobody, socket mode 0660: plateau status exits 4"
	like "$out" "Permission denied.*root or the plateau group" "  and says who may use it"
	chmod 0666 "$SOCK"
	out=$(printf '{"cmd":"status"}\n' | asnobody "$SEND" "$SOCK" 2>/dev/null)
	like "$out" '^\{"ok":false,"error":"permission denied: plateaud serves root and members of the plateau group"\}$' \
		"nobody through a 0666 socket is refused by SO_PEERCRED"
	like "$(cat "$LOG")" "refused a control connection from uid 65534 \(pid [0-9]+\)" "  with a log line naming the uid"
	# the daemon answers and closes at once; the CLI must still show the
	# answer, every time (20 tries: the race is timing-dependent)
	msgs=() codes=()
	for i in $(seq 1 20); do
		out=$(asnobody "$PLATEAU" --socket "$SOCK" status 2>&1)
		codes+=($?)
		[[ $out == *"permission denied: plateaud serves root"* ]] || msgs+=("$out")
	done
	is "${#msgs[@]}" 0 "  the CLI shows the daemon's refusal (20 of 20 tries)" ||
		diag "instead: $(printf '%s\n' "${msgs[@]}" | sort | uniq -c)"
	is "$(printf '%s\n' "${codes[@]}" | sort -u | tr '\n' ' ')" "4 " \
		"  and exits 4 like any other 'cannot use the daemon' (not 3, 'not found')"
	ok "$(alive && echo 0 || echo 1)" "root is still served"
	# a plateaud started by hand by an unprivileged user (make demo as a
	# user) serves that user, and still nobody else
	NB=$W/nobody
	mkdir -p "$NB" && chown 65534:65534 "$NB"
	# (setpriv directly, not through the function: $! is then plateaud)
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PLATEAUD" --db "$NB/p.db" --socket "$NB/ctl.sock" >>"$LOG" 2>&1 &
	nbpid=$!
	track "$nbpid"
	nb_up() { asnobody "$PLATEAU" --socket "$NB/ctl.sock" status >/dev/null 2>&1; }
	wait_for 10 "nobody's plateaud to answer" nb_up
	ok $? "a plateaud run by nobody serves nobody"
	chmod 0666 "$NB/ctl.sock"
	out=$(printf '{"cmd":"list"}\n' |
		setpriv --reuid=65533 --regid=65533 --clear-groups "$SEND" "$NB/ctl.sock" 2>/dev/null)
	like "$out" '^\{"ok":false,"error":"permission denied: ' \
		"  and refuses uid 65533 through a 0666 socket"
	kill "$nbpid" 2>/dev/null
	wait "$nbpid"
	is "$?" 0 "  nobody's plateaud exits 0 on SIGTERM"
	chmod 0700 "$W"
fi

# --- no daemon ---
out=$("$PLATEAU" --socket "$W/nowhere.sock" status 2>&1)
rc=$?
is "$rc" 4 "plateau status with no socket exits 4"
like "$out" "^plateau: plateaud is not reachable at $W/nowhere.sock: No such file or directory \(is plateaud running\?" \
	"  with a clear message"
daemon_kill9
out=$(pctl status 2>&1)
rc=$?
is "$rc" 4 "plateau status on a stale socket (daemon killed) exits 4"
like "$out" "plateaud is not reachable at $SOCK: Connection refused" "  and says the connection was refused"
out=$(pctl stop 1 2>&1)
is "$?" 4 "plateau stop without a daemon exits 4"
printf '[run]\ndevice = /dev/null\n[sweep]\nprofile = 4k-randread\npoints = 1x1\n' >"$W/ro.plan"
out=$(pctl start "$W/ro.plan" 2>&1)
is "$?" 4 "plateau start without a daemon exits 4"
done_testing
