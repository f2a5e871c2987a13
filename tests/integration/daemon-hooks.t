#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-hooks.t: a member of the plateau group can never make plateaud run
# code of theirs as root (plateaud(8), HOOKS).
#   - a plan names a hook of plateaud.conf's [hooks], never a path: a path,
#     or a name the file does not define, is refused at start (dry run too);
#   - the hook file is opened component by component from "/" without
#     following symbolic links, and the descriptor checked is the one
#     executed: a symbolic link on the path, or a directory owned by
#     someone else, is refused, naming the component; a #! script reaches
#     its interpreter as /dev/fd/N, not by its path looked up again;
#   - the checks are made at every call: a hook file replaced by one that
#     others could write is not run from the next event on, and the file
#     that replaces it is the one that runs;
#   - a hook runs as hook_user (here nobody), with no capability left
#     (effective, permitted, bounding, ambient, inheritable) and
#     no_new_privs set; a hook_user that does not exist means no hook runs,
#     never a hook as root;
#   - as root, plateaud refuses to start on a plateaud.conf that is not
#     root's alone.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "the hooks change user: run as root"
id nobody >/dev/null 2>&1 || skip_all "no user 'nobody' to run the hooks as"
NOBODY_UID=$(id -u nobody)
NOBODY_GID=$(id -g nobody)

# the hooks run as nobody: they write their records to $O, theirs
chmod 0711 "$W"
O=$W/out
mkdir "$O" && chown nobody "$O"
HD=$W/hooks
mkdir "$HD"
chmod 0755 "$HD"

# hook_script VERSION: a hook recording who it ran as, one line per call
hook_script() {
	cat <<EOF
#!/bin/sh
st() { awk -v k="\$1:" '\$1 == k { print \$2 }' /proc/self/status; }
echo "\$PLATEAU_RUN \$PLATEAU_EVENT ver=$1 uid=\$(id -u) gid=\$(id -g) groups=\$(id -G | tr ' ' ,) eff=\$(st CapEff) prm=\$(st CapPrm) bnd=\$(st CapBnd) amb=\$(st CapAmb) inh=\$(st CapInh) nnp=\$(st NoNewPrivs) arg0=\$0" >>"$O/calls.log"
EOF
}
hook_script v1 >"$HD/who.sh"
hook_script v1 >"$HD/swap.sh"
chmod 0755 "$HD/who.sh" "$HD/swap.sh"
# the same hook behind a symbolic link to its directory
ln -s "$HD" "$W/hooks-link"
# and in a directory of an unprivileged user
mkdir "$W/userdir"
cp "$HD/who.sh" "$W/userdir/who.sh"
chown nobody "$W/userdir"

mkdir "$W/targets"
CONF=$W/plateaud.conf
cat >"$CONF" <<EOF
[daemon]
hook_user = nobody
# the runs' targets: regular files in $W/targets
file_targets = $W/targets

[hooks]
who = $HD/who.sh
swap = $HD/swap.sh
link = $W/hooks-link/who.sh
userdir = $W/userdir/who.sh
EOF
chmod 0644 "$CONF"

# calls RUN [VER]: the hook calls recorded for run RUN (of version VER)
calls() { awk -v r="$1" -v v="${2:-}" '$1 == r && (v == "" || $3 == "ver=" v)' "$O/calls.log" 2>/dev/null | wc -l; }
# field RUN EVENT KEY: KEY=value of the call for EVENT of RUN
field() {
	awk -v r="$1" -v e="$2" -v k="$3=" '$1 == r && $2 == e {
		for (i = 3; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); exit } }' \
		"$O/calls.log" 2>/dev/null
}
called() { [ "$(field "$1" "$2" ver)" != "" ]; }

f=$(mkfile targets/a.img 32M)
serial=$(serial_of "$f")
# plan NAME HOOK-LINE: a short run on the file
plan() {
	cat >"$W/$1.plan" <<EOF
[run]
device = $f
serial = $serial
name = $1
interval = 100ms
$2

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 2
steady = none
max_rounds = 2
EOF
	echo "$W/$1.plan"
}

daemon_start --config "$CONF" --hook-timeout 5s
ok $? "plateaud starts with [hooks] and hook_user = nobody" || bail_out "$(cat "$LOG")"
like "$(cat "$LOG")" "\[hooks\] link = $W/hooks-link/who.sh: not run as it stands .*$W/hooks-link is a symbolic link" \
	"at start, a defined hook that would be refused is logged"

# --- what a plan may name ---
p=$(plan by-path "hook = $HD/who.sh")
out=$(pctl start "$p" 2>&1)
is "$?" 2 "a plan naming a hook by its path: start refused (exit 2)"
like "$out" "hook: a plan names a hook of plateaud.conf's \[hooks\] section \(plateaud\(8\)\), not a path: '$HD/who.sh'" \
	"  saying a plan names a hook of [hooks]"
p=$(plan undefined "hook = nosuch")
out=$(pctl start "$p" 2>&1)
is "$?" 2 "a plan naming a hook plateaud.conf does not define: start refused (exit 2)"
like "$out" "\[run\] hook = nosuch: no hook 'nosuch' in the \[hooks\] section of $CONF" \
	"  naming the hook and the configuration file"
out=$(pctl start --dry-run "$p" 2>&1)
is "$?" 2 "  a dry run too"
like "$out" "no hook 'nosuch' in the \[hooks\] section of $CONF" "  with the same message"

# --- the file's path: no symbolic link, no directory of anyone else ---
p=$(plan via-link "hook = link")
out=$(pctl start "$p" 2>&1)
is "$?" 2 "a hook whose path goes through a symbolic link: start refused"
like "$out" "\[run\] hook = link: \[hooks\] link = $W/hooks-link/who.sh: $W/hooks-link is a symbolic link" \
	"  naming the link"
p=$(plan in-userdir "hook = userdir")
out=$(pctl start "$p" 2>&1)
is "$?" 2 "a hook in a directory owned by an unprivileged user: start refused"
like "$out" "directory $W/userdir must be owned by root and writable by its owner only \(it is owned by uid $NOBODY_UID" \
	"  naming the directory and its owner"
is "$(sql 'SELECT count(*) FROM runs;')" 0 "no run was recorded for any of them"

# --- the checks are made at every call ---
# run 3 runs until stopped: its first calls run version 1; the file is then
# replaced, by rename, with one others may write, and the run stopped: the
# run-stopped call is refused at the call, although the start was accepted
sed 's/^max_rounds = .*/max_rounds = 100000/' "$(plan swap "hook = swap")" >"$W/long.plan"
is "$(pctl start "$W/long.plan" 2>&1)" "run 1 started" "run 1 starts with hook 'swap' (version 1)"
wait_for 20 "the hook's call for phase-started of run 1" called 1 phase-started
ok $? "  its first calls ran"
started1=$(calls 1)
hook_script v2 >"$HD/swap.new"
chmod 0775 "$HD/swap.new"
mv -f "$HD/swap.new" "$HD/swap.sh"
is "$(pctl stop 1 2>&1)" "run 1: stop requested" "the hook file is replaced by a group-writable one, and run 1 stopped"
wait_for 20 "run 1 to end" test "$(run_state 1)" = stopped
refused1() { grep -q "hook $HD/swap.sh for run-stopped of run 1 not run: $HD/swap.sh must be owned by root and writable by its owner only (it is owned by uid 0, mode 0775)" "$LOG"; }
wait_for 10 "the refusal of run-stopped of run 1" refused1
ok $? "the replaced hook is refused at its next call, and logged with the reason" || diag "$(grep hook "$LOG")"
is "$(calls 1 v1) $(calls 1 v2)" "$(calls 1) 0" "  no call ran the group-writable file"
ok "$([ "$(calls 1)" -ge "$started1" ] && [ -z "$(field 1 run-stopped ver)" ] && echo 0 || echo 1)" \
	"  run-stopped did not run"
# replaced again, with a file that passes: the new file is the one that runs
hook_script v3 >"$HD/swap.new"
chmod 0755 "$HD/swap.new"
mv -f "$HD/swap.new" "$HD/swap.sh"
p=$(plan swap "hook = swap")
is "$(pctl start "$p" 2>&1)" "run 2 started" "run 2 starts after the file was replaced again"
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 2 --timeout 40s 2>&1)" "run 2 done" "run 2 completes"
wait_for 10 "the hook's call for run-done of run 2" called 2 run-done
is "$(calls 2 v3) $(calls 2)" "$(sql 'SELECT count(*) FROM events WHERE run_id = 2;') $(calls 2 v3)" \
	"every call of run 2 ran the new file, version 3, and nothing else"

# --- a defined hook: who it runs as ---
p=$(plan who "hook = who")
is "$(pctl start "$p" 2>&1)" "run 3 started" "a plan naming a defined hook starts"
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 3 --timeout 40s 2>&1)" "run 3 done" "run 3 completes"
wait_for 10 "the hook's call for run-done of run 3" called 3 run-done
ok $? "the hook ran for run-done" || diag "$(cat "$LOG")"
is "$(calls 3)" "$(sql 'SELECT count(*) FROM events WHERE run_id = 3;')" "  once for every event of the run"
is "$(field 3 run-done uid) $(field 3 run-done gid) $(field 3 run-done groups)" \
	"$NOBODY_UID $NOBODY_GID $(id -G nobody | tr ' ' ,)" "  as hook_user nobody: its uid, gid and groups only"
is "$(field 3 run-done eff) $(field 3 run-done prm) $(field 3 run-done bnd)" \
	"0000000000000000 0000000000000000 0000000000000000" "  CapEff, CapPrm and CapBnd are 0"
is "$(field 3 run-done amb) $(field 3 run-done inh)" "0000000000000000 0000000000000000" \
	"  CapAmb and CapInh are 0"
is "$(field 3 run-done nnp)" 1 "  NoNewPrivs is 1"
like "$(field 3 run-done arg0)" '^/dev/fd/[0-9]+$' \
	"  the script reached sh as the checked descriptor (/dev/fd/N), not its path again"
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"

# --- a hook_user that does not exist: no hook runs, never as root ---
sed 's/^hook_user = .*/hook_user = plateau-no-such-user/' "$CONF" >"$W/nouser.conf"
daemon_start --config "$W/nouser.conf" --hook "$HD/who.sh"
ok $? "plateaud starts with a hook_user that does not exist"
like "$(cat "$LOG")" "hooks will not run: hook_user 'plateau-no-such-user' does not exist" \
	"  and says at start that hooks will not run"
p=$(plan who "hook = who")
out=$(pctl start "$p" 2>&1)
is "$?" 2 "a plan naming a hook: start refused"
like "$out" "\[run\] hook = who: hook_user 'plateau-no-such-user' does not exist \(hooks never fall back to root" \
	"  saying why"
p=$(plan nohook "")
is "$(pctl start "$p" 2>&1)" "run 4 started" "a plan without a hook starts (the daemon's hook applies)"
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 4 --timeout 40s 2>&1)" "run 4 done" "run 4 completes"
nouser4() { grep -q "hook $HD/who.sh for run-done of run 4 not run: hook_user 'plateau-no-such-user' does not exist" "$LOG"; }
wait_for 10 "the refusal of run-done of run 4" nouser4
ok $? "each call of the daemon's hook is refused and logged with the reason"
is "$(calls 4)" 0 "  no call of run 4 ran, as root or otherwise"
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"

# --- plateaud.conf must be root's alone ---
# conf_refused DESC: plateaud exits 2 at once on $W/bad.conf, saying why
conf_refused() {
	local out st
	out=$(timeout 20 "$PLATEAUD" --db "$W/bad.db" --socket "$W/bad.sock" --config "$W/bad.conf" 2>&1)
	st=$?
	is "$st" 2 "$1: plateaud refuses to start (exit 2)"
	like "$out" "$W/bad.conf: owned by uid $2, mode $3: plateaud runs as root and this file names the hooks it runs and the files it may write, so it must be owned by root and writable by root only" \
		"  naming the file, its owner and mode"
	ok "$([ ! -e "$W/bad.sock" ] && [ ! -e "$W/bad.db" ] && echo 0 || echo 1)" "  creating nothing"
}
cp "$CONF" "$W/bad.conf"
chmod 0664 "$W/bad.conf"
conf_refused "a group-writable plateaud.conf" 0 0664
chmod 0646 "$W/bad.conf"
conf_refused "a world-writable plateaud.conf" 0 0646
chmod 0644 "$W/bad.conf"
chown nobody "$W/bad.conf"
conf_refused "a plateaud.conf owned by another user" "$NOBODY_UID" 0644
done_testing
