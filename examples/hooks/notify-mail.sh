#!/bin/sh
# SPDX-License-Identifier: MIT
#
# notify-mail.sh: a plateaud hook that mails the interesting run events,
# through sendmail(8) if there is one, else mail(1).
#
# Events mailed: steady-reached, steady-lost, steady-not-reached, run-done,
# run-failed, run-stopped.  Every other event is ignored (exit 0).
#
# Install:
#   install -m 0755 notify-mail.sh /usr/local/libexec/plateau/
#   echo 'lab-team@example.com, oncall@example.com' > /etc/plateau/mail.to
#   chown root:plateau-hook /etc/plateau/mail.to; chmod 0640 /etc/plateau/mail.to
#   and in /etc/plateau/plateaud.conf, for every run:
#       [daemon]
#       hook = /usr/local/libexec/plateau/notify-mail.sh
#   or, for the runs whose plan says "[run] hook = mail":
#       [hooks]
#       mail = /usr/local/libexec/plateau/notify-mail.sh
#   plateaud runs it as hook_user (plateau-hook), never root, without
#   capabilities and with no_new_privs, in its unit's sandbox: IP sockets
#   are allowed, the file system is read-only.  A local MTA whose sendmail
#   hands mail to a setgid or setuid helper (Postfix's postdrop, Exim) cannot
#   work under no_new_privs: use an SMTP sendmail (msmtp, ssmtp, dma
#   relaying).
#
# The recipients are $PLATEAU_MAIL_TO if set, else /etc/plateau/mail.to:
# addresses separated by blanks, commas or newlines; lines starting with #
# are comments.  plateaud runs a hook with only its PLATEAU_* variables and
# PATH (see plateaud(8)), so under the daemon the file is what counts; the
# variable is for trying the hook by hand:
#   PLATEAU_MAIL_TO=root PLATEAU_EVENT=run-done PLATEAU_RUN=1 \
#       PLATEAU_MESSAGE=done ./notify-mail.sh
#
# plateaud kills a hook, with its whole process group, after its
# hook_timeout (default 30 s); sendmail or mail runs under timeout(1), when
# there is one, for
# $PLATEAU_MAIL_MAX_TIME seconds, else max_time below (20): keep it below
# hook_timeout.
#
# Exit status: 0 handed to the mailer (or not an interesting event); 1 no
# recipients or a bad setting; 2 neither sendmail nor mail is installed; else
# the mailer's own status (124: it timed out).  plateaud logs a non-zero
# status as a warning.

set -u

to_file=/etc/plateau/mail.to
max_time=${PLATEAU_MAIL_MAX_TIME:-20}

case ${PLATEAU_EVENT:-} in
steady-reached | steady-lost | steady-not-reached | run-done | run-failed | run-stopped) ;;
*) exit 0 ;;
esac

err() {
	printf 'notify-mail: %s\n' "$*" >&2
}

# $1 on one line: control characters (a newline too) become blanks, so that
# nothing from an event can start a header of its own
one_line() {
	printf '%s' "$1" | LC_ALL=C tr '\001-\037\177' '[ *]'
}

to=${PLATEAU_MAIL_TO:-}
if [ -z "$to" ] && [ -r "$to_file" ]; then
	to=$(sed -e '/^[[:space:]]*#/d' "$to_file")
fi
# one argument per address; every address checked, none may look like an
# option of the mailer
set -f
# shellcheck disable=SC2046 # splitting the list into addresses is the point
set -- $(printf '%s' "$to" | tr ',\n\t' '   ')
set +f
if [ $# -eq 0 ]; then
	err "no recipients: set PLATEAU_MAIL_TO or write them to $to_file"
	exit 1
fi
for rcpt in "$@"; do
	case $rcpt in
	-* | *[!A-Za-z0-9.@_%+=-]*)
		err "not a mail address I will pass on: '$rcpt'"
		exit 1
		;;
	esac
done
case $max_time in
'' | *[!0-9]* | 0)
	err "PLATEAU_MAIL_MAX_TIME must be a number of seconds, not '$max_time'"
	exit 1
	;;
esac

sendmail=
for c in sendmail /usr/sbin/sendmail /usr/lib/sendmail; do
	if command -v "$c" >/dev/null 2>&1; then
		sendmail=$(command -v "$c")
		break
	fi
done
mail=
if [ -z "$sendmail" ]; then
	mail=$(command -v mail 2>/dev/null || command -v mailx 2>/dev/null || true)
	if [ -z "$mail" ]; then
		err "neither sendmail nor mail is installed"
		exit 2
	fi
fi
# run "$@" under timeout(1) when there is one
limited() {
	if command -v timeout >/dev/null 2>&1; then
		timeout "$max_time" "$@"
	else
		"$@"
	fi
}

event=${PLATEAU_EVENT}
run=${PLATEAU_RUN:-}
name=${PLATEAU_RUN_NAME:-}
device=${PLATEAU_DEVICE:-}
serial=${PLATEAU_SERIAL:-}
host=$(uname -n 2>/dev/null || echo unknown)

subject=$(one_line "[plateau] $host: run $run '$name': $event on $device ($serial)")

body() {
	printf '%s\n\n' "${PLATEAU_MESSAGE:-}"
	printf 'event     %s\n' "$event"
	printf 'run       %s (%s)\n' "$run" "$(one_line "$name")"
	printf 'phase     %s %s\n' "${PLATEAU_PHASE:-}" "${PLATEAU_PHASE_KIND:-}"
	printf 'drive     %s, serial %s\n' "$device" "$serial"
	printf 'host      %s\n' "$host"
	printf 'time      %s\n' "${PLATEAU_TIME:-}"
	printf 'database  %s\n' "${PLATEAU_DATABASE:-}"
	if [ -n "${PLATEAU_DATA:-}" ]; then
		printf '\ndetails   %s\n' "$PLATEAU_DATA"
	fi
	printf '\nplateau show %s\nplateau samples %s --phase %s\n' "$run" "$run" \
		"${PLATEAU_PHASE:-1}"
}

if [ -n "$sendmail" ]; then
	rcpts=$(printf '%s, ' "$@")
	{
		printf 'To: %s\n' "${rcpts%, }"
		printf 'Subject: %s\n' "$subject"
		printf 'MIME-Version: 1.0\n'
		printf 'Content-Type: text/plain; charset=UTF-8\n'
		printf 'Content-Transfer-Encoding: 8bit\n'
		printf 'Auto-Submitted: auto-generated\n'
		printf '\n'
		body
	} | limited "$sendmail" -oi "$@"
else
	body | limited "$mail" -s "$subject" "$@"
fi
status=$?
if [ "$status" -ne 0 ]; then
	err "mailing $event of run $run failed (exit status $status)"
fi
exit "$status"
