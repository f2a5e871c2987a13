#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-protocol.t: the control socket under bad input, through a raw
# client (tests/helpers/ctl-send) and the CLI:
#   - malformed JSON, an oversize line (> 256 KiB), unknown fields, wrong
#     types, unknown cmds, a stop or status of an unknown run, a NUL byte,
#     nesting too deep, a plan that does not parse: each gets one
#     {"ok":false,"error":...} line that names the problem, and the daemon
#     keeps serving (the same connection where it stays open, a new one,
#     and the daemon pid alive);
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

daemon_start || bail_out "no daemon: $(cat "$LOG")"
alive
ok $? "a plain status request works"

# --- malformed ---
bad "malformed JSON" 'nonsense\n' 'malformed JSON'
bad "truncated JSON" '{"cmd":"status"\n' 'malformed JSON'
bad "trailing data" '{"cmd":"status"} {"cmd":"list"}\n' 'malformed JSON \(trailing data\)'
bad "a JSON array" '[1,2,3]\n' 'expected a JSON object'
bad "a JSON string" '"status"\n' 'expected a JSON object'
bad "nesting too deep" "$(printf '%.0s[' {1..200})\n" 'malformed JSON.*(nest|depth)'
bad "a NUL byte" '{"cmd":"sta\0tus"}\n' 'NUL byte'
bad "a NUL byte after the object" '{"cmd":"status"}\0\n' 'NUL byte'
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

# --- oversize ---
big=$W/big.req
head -c 300000 /dev/zero | tr '\0' 'x' >"$big"
echo >>"$big"
out=$("$SEND" "$SOCK" <"$big" 2>>"$W/send.err")
rc=$?
like "$out" "$ERR_RE" "a 300 KB line gets an error reply"
like "$out" 'request longer than 262144 bytes' "  that names the size limit"
is "$rc" 0 "  and the daemon closes that connection"
{ printf '{"cmd":"start","plan":"'; head -c 270000 /dev/zero | tr '\0' '#'; printf '"}\n'; } >"$big"
out=$("$SEND" --no-shutdown --timeout 5000 "$SOCK" <"$big" 2>>"$W/send.err")
like "$out" 'request longer than 262144 bytes' "a start with a 270 KB plan is refused for its size"
head -c 300000 /dev/zero | tr '\0' 'y' >"$big"
out=$("$SEND" --no-shutdown --timeout 5000 "$SOCK" <"$big" 2>>"$W/send.err")
rc=$?
like "$out" 'request longer than 262144 bytes' "300 KB without any newline is refused before the newline comes"
is "$rc" 0 "  and that connection is closed"
ok "$(alive && echo 0 || echo 1)" "the daemon still serves after the oversize requests"

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
