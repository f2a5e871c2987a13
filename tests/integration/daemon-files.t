#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-files.t: where a regular file may be plateaud's target.  plateaud
# runs as root; a member of the plateau group (a real unprivileged uid,
# 65534, with the group as a supplementary group) hands it plans.  A
# regular file is a target only beneath plateaud.conf's file_targets,
# reached without a symlink, owned by the requester or root, and never one
# of plateaud's own files (compared by device and inode):
#   - the database by its path (outside file_targets), and by a hard link
#     beneath file_targets, with [erase] method = zero and the right
#     serial: refused, the database intact (same sample count, integrity);
#   - /etc/passwd (dry run), a file beneath file_targets owned by another
#     user, a symlink beneath file_targets (to a file there, and through a
#     symlinked directory), the Prometheus textfile, a file in a hook's
#     directory: refused, each with its reason;
#   - the requester's own file beneath file_targets: a dry run and a real
#     run (done, with samples, the requester stored);
#   - a resumed run opens the gate again with the stored requester's
#     rights: a file given away to another user while plateaud was down
#     fails the run;
#   - root's `plateau run` (its own rights) still takes a file anywhere.
# The plateau group: the system's if it has one, else a private
# /etc/group (a bind mount in the daemon's own mount namespace).
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (a daemon as root, a client as another uid)"
command -v setpriv >/dev/null || skip_all "setpriv is not installed"

ME=65534 OTHER=65533
nsamples() { sql 'SELECT count(*) FROM samples;'; }

GID=$(getent group plateau | cut -d: -f3)
NS=
if [ -z "$GID" ]; then
	command -v unshare >/dev/null || skip_all "no plateau group and no unshare(1) to make one"
	for g in $(seq 64000 64100); do
		getent group "$g" >/dev/null || { GID=$g && break; }
	done
	cp /etc/group "$W/group" && echo "plateau:x:$GID:" >>"$W/group"
	NS=1
fi
# the group member: uid 65534, plateau as a supplementary group
member() { setpriv --reuid=$ME --regid=$ME --groups="$GID" "$@"; }
mctl() { member "$PLATEAU" --socket "$SOCK" "$@"; }

chmod 0755 "$W"
T=$W/targets
HOOKS=$T/hooks
PROM=$T/metrics.prom
mkdir -p "$T/sub" "$HOOKS" "$W/plans"
printf '#!/bin/sh\nexit 0\n' >"$HOOKS/h.sh"
chmod 0755 "$HOOKS/h.sh"
CONF=$W/plateaud.conf
printf '[daemon]\nfile_targets = %s\n' "$T" >"$CONF"

# files_daemon: plateaud as root, seeing the plateau group; $DPID
files_daemon() {
	printf -- "--- plateaud (files) %s (%(%T)T)\n" "$*" -1 >>"$LOG"
	if [ -n "$NS" ]; then
		# unshare and sh exec: $! is plateaud
		unshare -m --propagation private sh -c 'mount --bind "$0" /etc/group && exec "$@"' \
			"$W/group" "$PLATEAUD" --db "$DB" --socket "$SOCK" --config "$CONF" \
			--hook "$HOOKS/h.sh" --prometheus-file "$PROM" >>"$LOG" 2>&1 &
	else
		"$PLATEAUD" --db "$DB" --socket "$SOCK" --config "$CONF" \
			--hook "$HOOKS/h.sh" --prometheus-file "$PROM" >>"$LOG" 2>&1 &
	fi
	DPID=$!
	track "$DPID"
	wait_for 10 "plateaud to answer on $SOCK" _daemon_up
}

# plan FILE DEVICE [SECTIONS]: a plan naming DEVICE by its serial
plan() {
	local f=$W/plans/$1 dev=$2
	shift 2
	{
		printf '[run]\ndevice = %s\nserial = %s\nname = files\ninterval = 200ms\n\n' \
			"$dev" "$(serial_of "$dev")"
		if [ $# -gt 0 ]; then
			printf '%s\n' "$@"
		else
			printf '[sweep]\nprofile = 4k-randread\npoints = 1x1\ntime = 1s\n'
		fi
	} >"$f"
	chmod 0644 "$f"
	echo "$f"
}

# refused LABEL PLAN ERE [--dry-run]: the member's start is refused by the
# gate (exit 6) with that reason, and no run is recorded
refused() {
	local label=$1 p=$2 re=$3 out rc before
	shift 3
	before=$(sql 'SELECT count(*) FROM runs;')
	out=$(mctl start "$@" "$p" 2>&1)
	rc=$?
	is "$rc" 6 "$label: plateau start exits 6 (refused)" || diag "$out"
	like "$out" "$re" "$label: ${out:0:200}"
	is "$(sql 'SELECT count(*) FROM runs;')" "$before" "$label: no run recorded"
}

files_daemon || bail_out "no daemon: $(cat "$LOG")"
out=$(mctl status 2>&1)
is "$?" 0 "uid $ME in the plateau group (gid $GID) is served" || bail_out "$out"

# --- the requester's own file: accepted ---
own=$(mkfile targets/own.img 64M)
chown $ME:$ME "$own"
p=$(plan own.plan "$own")
out=$(mctl start --dry-run "$p" 2>&1)
is "$?" 0 "a dry run on the requester's own file beneath file_targets passes" || diag "$out"
p=$(plan run.plan "$own" '[fill]' 'passes = 1' '' '[precondition]' 'profile = 4k-randwrite' \
	'steady = none' 'max_rounds = 3')
out=$(mctl start "$p" 2>&1)
like "$out" '^run [0-9]+ started$' "a real run on it starts"
run=$(sed -n 's/^run \([0-9]*\) started$/\1/p' <<<"$out")
done_or_failed() { [[ "$(run_state "${run:-0}")" =~ ^(done|failed|stopped)$ ]]; }
wait_for 120 "run $run to end" done_or_failed
check_run "$run" done
is "$(sql "SELECT requester_uid FROM runs WHERE id = ${run:-0};")" $ME "  the requester (uid $ME) is stored"
ok "$(has_samples "${run:-0}" 1 && echo 0 || echo 1)" "  it has samples"

# --- the database: never ---
before=$(nsamples)
sumdb=$(sql 'PRAGMA integrity_check;')
p=$(plan db.plan "$DB" '[erase]' 'method = zero')
refused "the database by its path" "$p" \
	"refusing $DB: a regular file is a target of plateaud only beneath plateaud\\.conf's file_targets \\($T\\)"
ln "$DB" "$T/db-link"
p=$(plan dblink.plan "$T/db-link" '[erase]' 'method = zero')
refused "a hard link of the database beneath file_targets" "$p" \
	"refusing $T/db-link: it is plateaud's own file $DB \\(never a target\\)"
refused "  and its dry run" "$p" "it is plateaud's own file $DB" --dry-run
rm -f "$T/db-link"
is "$(nsamples)" "$before" "the database keeps its $before samples"
is "$(sql 'PRAGMA integrity_check;')" "$sumdb" "  and passes PRAGMA integrity_check"

# --- outside, not the requester's, symlinks, plateaud's own ---
p=$(plan passwd.plan /etc/passwd)
refused "/etc/passwd, dry run" "$p" \
	"refusing /etc/passwd: a regular file is a target of plateaud only beneath plateaud\\.conf's file_targets" \
	--dry-run
theirs=$(mkfile targets/theirs.img 16M)
chown $OTHER:$OTHER "$theirs"
p=$(plan theirs.plan "$theirs")
refused "another user's file beneath file_targets" "$p" \
	"refusing $theirs: it is owned by uid $OTHER, not by the requester \\(uid $ME\\) or root" --dry-run
ln -s own.img "$T/link.img"
p=$(plan link.plan "$T/link.img")
refused "a symlink beneath file_targets (to the requester's own file)" "$p" \
	"refusing $T/link.img: reached through a symlink \\(component 'link.img'\\)" --dry-run
ln -s /etc "$T/etc"
p=$(plan etc.plan "$T/etc/passwd")
refused "a path through a symlinked directory" "$p" "reached through a symlink \\(component 'etc'\\)" --dry-run
wait_for 10 "the textfile" test -s "$PROM"
p=$(plan prom.plan "$PROM")
refused "the Prometheus textfile" "$p" "refusing $PROM: it is plateaud's own file $PROM" --dry-run
inhook=$(mkfile targets/hooks/x.img 16M)
chown $ME:$ME "$inhook"
p=$(plan hook.plan "$inhook")
refused "a file in a hook's directory" "$p" \
	"refusing $inhook: it is in $HOOKS, a directory of plateaud's own files" --dry-run
p=$(plan dotdot.plan "$T/sub/../own.img")
refused "a path going up with '..'" "$p" "goes up \\('\\.\\.'\\)" --dry-run
printf '[daemon]\n' >"$CONF"
daemon_term || bail_out "plateaud did not stop"
files_daemon || bail_out "no daemon: $(cat "$LOG")"
p=$(plan own.plan "$own")
refused "without file_targets, even the requester's own file" "$p" \
	"plateaud\\.conf's file_targets \\(none set\\)" --dry-run
printf '[daemon]\nfile_targets = %s\n' "$T" >"$CONF"
daemon_term || bail_out "plateaud did not stop"

# --- a resume opens the gate with the stored requester's rights ---
files_daemon || bail_out "no daemon: $(cat "$LOG")"
long=$(mkfile targets/long.img 64M)
chown $ME:$ME "$long"
p=$(plan long.plan "$long" '[precondition]' 'profile = 4k-randwrite' 'steady = none' \
	'max_rounds = 1000')
out=$(mctl start "$p" 2>&1)
like "$out" '^run [0-9]+ started$' "a long run on the requester's own file starts"
run=$(sed -n 's/^run \([0-9]*\) started$/\1/p' <<<"$out")
wait_for 30 "run $run to have samples" has_samples "${run:-0}" 2
daemon_kill9
n=$(samples_of "${run:-0}")
files_daemon || bail_out "no daemon: $(cat "$LOG")"
wait_for 30 "run $run to go on after a restart" has_samples "${run:-0}" $((n + 2))
ok $? "  resumed after plateaud was killed, it goes on (the requester's file, uid $ME)"
daemon_kill9
chown $OTHER:$OTHER "$long"
files_daemon || bail_out "no daemon: $(cat "$LOG")"
ended() { [ "$(run_state "${run:-0}")" = failed ]; }
wait_for 30 "run $run to fail" ended
ok $? "  given away to uid $OTHER while plateaud was down, the resumed run fails"
like "$(sql "SELECT error FROM runs WHERE id = ${run:-0};")" \
	"owned by uid $OTHER, not by the requester \\(uid $ME\\) or root" "  on the owner, in its error"

# --- plateau run: the requester's own rights, any file ---
outside=$(mkfile outside.img 16M)
out=$("$PLATEAU" --db "$W/cli.db" run --target "$outside" --serial "$(serial_of "$outside")" \
	--profile 4k-randread --duration 1s --interval 500ms --quiet --yes 2>&1)
is "$?" 0 "root's plateau run (its own rights) still takes a file outside file_targets" || diag "$out"
done_testing
