#!/bin/sh
# SPDX-License-Identifier: MIT
#
# notify-webhook.sh: a plateaud hook that posts the interesting run events
# to a webhook as JSON (Slack, Mattermost, Rocket.Chat, Teams workflows and
# most chat and alerting tools accept a JSON body with a "text" field).
#
# Events posted: steady-reached, steady-lost, steady-not-reached, run-done,
# run-failed, run-stopped.  Every other event is ignored (exit 0).
#
# The body is one JSON object: "text" (one line for chat tools), "event",
# "run", "run_name", "phase", "phase_kind", "device", "serial", "message",
# "priority", "time", "host", and "data": the event's PLATEAU_DATA (itself
# JSON, or empty) as a string.  Every string is escaped, whatever an event
# or a run name contains.
#
# Install:
#   install -m 0755 notify-webhook.sh /usr/local/libexec/plateau/
#   echo 'https://hooks.example.com/services/T000/B000/XXXX' \
#       > /etc/plateau/webhook.url
#   chown root:plateau-hook /etc/plateau/webhook.url
#   chmod 0640 /etc/plateau/webhook.url
#   and in /etc/plateau/plateaud.conf, for every run:
#       [daemon]
#       hook = /usr/local/libexec/plateau/notify-webhook.sh
#   or, for the runs whose plan says "[run] hook = webhook":
#       [hooks]
#       webhook = /usr/local/libexec/plateau/notify-webhook.sh
#   plateaud runs it as hook_user (plateau-hook), never root, without
#   capabilities; its unit allows IP sockets for hooks: no drop-in is needed.
#
# The URL is $PLATEAU_WEBHOOK_URL if set, else the first line of
# /etc/plateau/webhook.url that is not blank or a comment.  plateaud runs a
# hook with only its PLATEAU_* variables and PATH (see plateaud(8)), so under
# the daemon the file is what counts; the variable is for trying the hook by
# hand:
#   PLATEAU_WEBHOOK_URL=https://... PLATEAU_EVENT=run-done PLATEAU_RUN=1 \
#       PLATEAU_MESSAGE=done ./notify-webhook.sh
#
# plateaud kills a hook, with its whole process group, after its
# hook_timeout (default 30 s); curl gets its own, shorter limit,
# $PLATEAU_WEBHOOK_MAX_TIME seconds, else max_time below (20): keep it below
# hook_timeout.
# The URL goes to curl through a configuration read from a file descriptor,
# not on its command line, so that a token in it does not show in ps.
#
# Exit status: 0 posted (or not an interesting event); 1 no URL configured or
# a bad setting; 2 curl is missing; else curl's own status (22: the server
# answered with an HTTP error).  plateaud logs a non-zero status as a warning.

set -u

url_file=/etc/plateau/webhook.url
max_time=${PLATEAU_WEBHOOK_MAX_TIME:-20}

case ${PLATEAU_EVENT:-} in
steady-reached | steady-lost | steady-not-reached | run-done | run-failed | run-stopped) ;;
*) exit 0 ;;
esac

err() {
	printf 'notify-webhook: %s\n' "$*" >&2
}

# The text of $1 as a JSON string body (without the quotes): backslash and
# double quote escaped, newline, carriage return and tab as \n \r \t, other
# control characters as \u00XX.  Bytes from 0x80 up pass unchanged (UTF-8).
json_str() {
	printf '%s' "$1" | LC_ALL=C awk '
	BEGIN {
		for (i = 1; i < 32; i++)
			esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
		esc["\t"] = "\\t"
		esc["\r"] = "\\r"
		esc["\\"] = "\\\\"
		esc["\""] = "\\\""
	}
	{
		out = ""
		n = length($0)
		for (i = 1; i <= n; i++) {
			c = substr($0, i, 1)
			out = out ((c in esc) ? esc[c] : c)
		}
		printf "%s%s", (NR > 1 ? "\\n" : ""), out
	}'
}

# $1 if it is a plain decimal number, else null
json_num() {
	case $1 in
	'' | *[!0-9]*) printf 'null' ;;
	*) printf '%s' "$1" ;;
	esac
}

url=${PLATEAU_WEBHOOK_URL:-}
if [ -z "$url" ] && [ -r "$url_file" ]; then
	url=$(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' \
		"$url_file" | head -n 1)
fi
if [ -z "$url" ]; then
	err "no webhook URL: set PLATEAU_WEBHOOK_URL or write it to $url_file"
	exit 1
fi
case $url in
http://* | https://*) ;;
*)
	err "the webhook URL must start with http:// or https://"
	exit 1
	;;
esac
case $max_time in
'' | *[!0-9]* | 0)
	err "PLATEAU_WEBHOOK_MAX_TIME must be a number of seconds, not '$max_time'"
	exit 1
	;;
esac
if ! command -v curl >/dev/null 2>&1; then
	err "curl is not installed"
	exit 2
fi

event=${PLATEAU_EVENT}
run=${PLATEAU_RUN:-}
name=${PLATEAU_RUN_NAME:-}
device=${PLATEAU_DEVICE:-}
serial=${PLATEAU_SERIAL:-}
message=${PLATEAU_MESSAGE:-}
host=$(uname -n 2>/dev/null || echo unknown)

text="plateau on $host: run $run '$name' on $device ($serial): $event: $message"

body=$(printf '{"text":"%s","event":"%s","run":%s,"run_name":"%s","phase":%s,"phase_kind":"%s","device":"%s","serial":"%s","message":"%s","priority":%s,"time":"%s","host":"%s","data":"%s"}' \
	"$(json_str "$text")" \
	"$(json_str "$event")" \
	"$(json_num "$run")" \
	"$(json_str "$name")" \
	"$(json_num "${PLATEAU_PHASE:-}")" \
	"$(json_str "${PLATEAU_PHASE_KIND:-}")" \
	"$(json_str "$device")" \
	"$(json_str "$serial")" \
	"$(json_str "$message")" \
	"$(json_num "${PLATEAU_PRIORITY:-}")" \
	"$(json_str "${PLATEAU_TIME:-}")" \
	"$(json_str "$host")" \
	"$(json_str "${PLATEAU_DATA:-}")")

# curl's configuration syntax: backslash and double quote escaped in a
# quoted value
url_conf=$(printf '%s' "$url" | sed 's/[\\"]/\\&/g')

printf '%s\n' "$body" | curl --config /dev/fd/3 --silent --show-error --fail \
	--connect-timeout 5 --max-time "$max_time" --output /dev/null \
	--header 'Content-Type: application/json' --data-binary @- 3<<EOF
url = "$url_conf"
EOF
status=$?
if [ "$status" -ne 0 ]; then
	err "posting $event of run $run failed (curl exit status $status)"
fi
exit "$status"
