#!/bin/bash
# make install into a staging root puts exactly the expected files where
# systemd, man and bash-completion look for the chosen PREFIX, never
# overwrites an existing plateaud.conf and installs no schema/*.sql (it is
# compiled in); make uninstall removes exactly what install put there; the
# installed bash completion completes commands, options, run numbers and
# drives (compgen, through the completion function as bash calls it).
set -u
. "$PLATEAU_SRC/tests/integration/tap.sh"

B=${PLATEAU_BUILD:?}
[ -x "$B/plateau" ] && [ -x "$B/plateaud" ] || skip_all "plateau and plateaud not built (make tests)"
command -v pkg-config >/dev/null || skip_all "pkg-config is not installed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plateau-install.XXXXXX")
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

mk() { make -C "$PLATEAU_SRC" --no-print-directory -s B="$B" "$@"; }
# every file and symlink below $1, relative, sorted
files() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort); }

# --- PREFIX=/usr: the distribution's own directories, from systemd.pc ---
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/lib/systemd/system}
stage=$tmp/usr
mk PREFIX=/usr DESTDIR="$stage" install >"$tmp/install.log" 2>&1
ok $? "make install PREFIX=/usr DESTDIR=..." || diag "$(tail -n 20 "$tmp/install.log")"
want=$( (
	echo usr/bin/plateau
	echo usr/sbin/plateaud
	echo "${unitdir#/}/plateaud.service"
	echo "${unitdir#/}/plateaud.socket"
	echo usr/lib/sysusers.d/plateau.conf
	echo usr/lib/tmpfiles.d/plateau.conf
	echo usr/share/bash-completion/completions/plateau
	echo usr/share/man/man1/plateau.1
	echo usr/share/man/man5/plateau.plan.5
	echo usr/share/man/man8/plateaud.8
	echo etc/plateau/plateaud.conf
	for f in "$PLATEAU_SRC"/examples/*.plan "$PLATEAU_SRC"/examples/plateaud.conf \
		"$PLATEAU_SRC"/examples/hooks/* "$PLATEAU_SRC"/examples/prometheus/*; do
		echo "usr/share/plateau/${f#"$PLATEAU_SRC"/}"
	done
) | LC_ALL=C sort)
is "$(files "$stage")" "$want" "PREFIX=/usr installs exactly the expected files, no schema/*.sql"
grep -q '^ExecStart=/usr/sbin/plateaud$' "$stage/${unitdir#/}/plateaud.service"
ok $? "the installed unit starts /usr/sbin/plateaud"
is "$(stat -c %a "$stage/usr/bin/plateau" "$stage/usr/share/plateau/examples/hooks/notify-mail.sh" \
	"$stage/etc/plateau/plateaud.conf")" $'755\n755\n644' "modes: programs and hooks 0755, the configuration 0644"
"$stage/usr/sbin/plateaud" --version | grep -q '^plateaud '
ok $? "the installed plateaud runs"

# the installed configuration changes nothing: plateaud reads it (as root it
# must be root's, 0644: install made it so) and every setting is commented
if [ "$(id -u)" = 0 ]; then
	"$stage/usr/sbin/plateaud" --config "$stage/etc/plateau/plateaud.conf" \
		--db "$tmp/c.db" --socket "$tmp/c.sock" >"$tmp/c.log" 2>&1 &
	pid=$!
	for _ in $(seq 200); do
		"$B/plateau" --socket "$tmp/c.sock" status >/dev/null 2>&1 && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	"$B/plateau" --socket "$tmp/c.sock" status >/dev/null 2>&1
	ok $? "plateaud starts with the installed plateaud.conf" || diag "$(cat "$tmp/c.log")"
	kill -TERM $pid 2>/dev/null
	wait $pid 2>/dev/null
else
	skip 1 "plateaud's check of its configuration's owner needs root"
fi
is "$(grep -Ev '^[[:space:]]*(#|$)' "$stage/etc/plateau/plateaud.conf")" $'[daemon]\n[hooks]' \
	"plateaud.conf: every setting commented out (the defaults), only the section lines active"
for key in database socket hook hook_timeout hook_user file_targets prometheus_textfile; do
	grep -Eq "^#$key = " "$stage/etc/plateau/plateaud.conf"
	ok $? "plateaud.conf documents $key"
done

# an existing configuration is never overwritten, and survives uninstall
echo '# mine' >>"$stage/etc/plateau/plateaud.conf"
cp "$stage/etc/plateau/plateaud.conf" "$tmp/mine.conf"
mk PREFIX=/usr DESTDIR="$stage" install >"$tmp/install2.log" 2>&1
ok $? "make install again"
cmp -s "$tmp/mine.conf" "$stage/etc/plateau/plateaud.conf"
ok $? "a second install keeps the existing plateaud.conf"
has "$(cat "$tmp/install2.log")" "not overwritten" "and says so"
mk PREFIX=/usr DESTDIR="$stage" uninstall >"$tmp/uninstall.log" 2>&1
ok $? "make uninstall"
is "$(files "$stage")" "etc/plateau/plateaud.conf" "uninstall removes every file but the changed plateaud.conf"
rm -f "$stage/etc/plateau/plateaud.conf"

# a fresh install and uninstall leave no file and no directory of plateau's
stage=$tmp/fresh
mk PREFIX=/usr DESTDIR="$stage" install >/dev/null 2>&1
mk PREFIX=/usr DESTDIR="$stage" uninstall >/dev/null 2>&1
is "$(files "$stage")" "" "install then uninstall leaves no file"
is "$(cd "$stage" && find . -name '*plateau*')" "" "nor a directory of plateau's (share/plateau, etc/plateau)"

# --- PREFIX=/usr/local: systemd.pc's directories below the prefix, which
# systemd, systemd-sysusers and bash-completion search ---
stage=$tmp/local
mk PREFIX=/usr/local DESTDIR="$stage" install >"$tmp/local.log" 2>&1
ok $? "make install PREFIX=/usr/local"
for f in usr/local/bin/plateau usr/local/sbin/plateaud usr/local/lib/systemd/system/plateaud.service \
	usr/local/lib/systemd/system/plateaud.socket usr/local/lib/sysusers.d/plateau.conf \
	usr/local/lib/tmpfiles.d/plateau.conf usr/local/share/bash-completion/completions/plateau \
	usr/local/share/man/man8/plateaud.8 etc/plateau/plateaud.conf; do
	test -f "$stage/$f"
	ok $? "PREFIX=/usr/local: $f"
done
grep -q '^ExecStart=/usr/local/sbin/plateaud$' "$stage/usr/local/lib/systemd/system/plateaud.service"
ok $? "its unit starts /usr/local/sbin/plateaud"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze unit-paths 2>/dev/null | grep -qx /usr/local/lib/systemd/system
	ok $? "systemd searches /usr/local/lib/systemd/system"
else
	skip 1 "systemd-analyze is not installed"
fi
mk PREFIX=/usr/local DESTDIR="$stage" uninstall >/dev/null 2>&1
is "$(files "$stage")" "" "PREFIX=/usr/local: uninstall leaves no file"

# another prefix: systemd does not look there, and install says how to link
stage=$tmp/opt
mk PREFIX=/opt/plateau DESTDIR="$stage" install >"$tmp/opt.log" 2>&1
ok $? "make install PREFIX=/opt/plateau"
has "$(cat "$tmp/opt.log")" "systemctl link /opt/plateau/lib/systemd/system/plateaud.socket" \
	"it says how to link units systemd does not find"
mk PREFIX=/opt/plateau DESTDIR="$stage" uninstall >/dev/null 2>&1
is "$(files "$stage")" "" "PREFIX=/opt/plateau: uninstall leaves no file"

# --- the bash completion, as installed ---
comp=$tmp/usr-c/usr/share/bash-completion/completions/plateau
mk PREFIX=/usr DESTDIR="$tmp/usr-c" install >/dev/null 2>&1
# a database with a run: run numbers come from `plateau runs --csv`
db=$tmp/comp.db
truncate -s 16M "$tmp/c.img"
"$B/plateau" --db "$db" run --target "$tmp/c.img" --profile 4k-randwrite --threads 1 --iodepth 1 \
	--interval 100ms --duration 1s --quiet >/dev/null 2>&1
"$B/plateau" --db "$db" run --target "$tmp/c.img" --profile 4k-randwrite --threads 1 --iodepth 1 \
	--interval 100ms --duration 1s --quiet >/dev/null 2>&1
runs=$("$B/plateau" --db "$db" runs --csv | awk -F, 'NR > 1 { print $1 }' | sort | tr '\n' ' ')
is "$runs" "1 2 " "two runs to complete"
if [ "$(id -u)" = 0 ] && loop=$(losetup -f --show "$tmp/c.img" 2>/dev/null); then :; else loop=; fi

# complete WORDS...: what bash offers for the last word, one line, sorted
complete_words() {
	bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		fn=$(complete -p plateau | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		"$fn" plateau "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort -u | tr "\n" " "
	' complete "$comp" "$@"
}
P=$B/plateau
bash -c ". '$comp' && complete -p plateau" | grep -q -- '-F'
ok $? "the completion registers a function for plateau"
is "$(complete_words "$P" st)" "start status steady stop " "commands: from plateau help"
got=$(complete_words "$P" "")
for c in start check status drives runs show samples steady analyze run report help; do
	has " $got" " $c " "commands offered include $c" || break
done
want=$("$P" help samples | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | tr '\n' ' ')
got=$(complete_words "$P" samples --)
for o in $want; do
	has " $got" " $o " "samples options from plateau help samples: $o"
done
has " $(complete_words "$P" steady 1 --cr)" " --criterion " "an option by its prefix"
is "$(complete_words "$P" --db "$db" show "")" "1 2 " "run numbers from plateau runs --csv of the --db on the line"
is "$(PLATEAU_DB=$db complete_words "$P" samples "")" "1 2 " "and of \$PLATEAU_DB"
is "$(complete_words "$P" check "$PLATEAU_SRC/examples/lab-4k")" "$PLATEAU_SRC/examples/lab-4k.plan " \
	"plan files for check"
is "$(complete_words "$P" wait 1 --for "")" "done steady " "wait --for: steady or done"
if [ -n "$loop" ]; then
	has " $(complete_words "$P" drives /dev/loop)" " $loop " "drives: the paths plateau drives lists"
	has " $(complete_words "$P" run --target /dev/loop)" " $loop " "run --target: the drives too"
else
	skip 2 "no loop device (needs root)"
fi
done_testing
