#!/bin/bash
# The systemd units pass `systemd-analyze verify`, and `make install` puts
# every file where the units and the man pages say (install.t: the whole
# list, uninstall, the completion).
set -u
. "$PLATEAU_SRC/tests/integration/tap.sh"

command -v systemd-analyze >/dev/null || skip_all "systemd-analyze is not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the units with ExecStart pointing at the build, the man pages on MANPATH so
# verify can check Documentation=
mkdir -p "$tmp/units" "$tmp/man/man1" "$tmp/man/man5" "$tmp/man/man8"
sed "s|@SBINDIR@|$PLATEAU_BUILD|g" "$PLATEAU_SRC/systemd/plateaud.service.in" >"$tmp/units/plateaud.service"
cp "$PLATEAU_SRC/systemd/plateaud.socket" "$tmp/units/"
cp "$PLATEAU_SRC/docs/plateau.1" "$tmp/man/man1/" 2>/dev/null
cp "$PLATEAU_SRC/docs/plateau.plan.5" "$tmp/man/man5/" 2>/dev/null
cp "$PLATEAU_SRC/docs/plateaud.8" "$tmp/man/man8/" 2>/dev/null
man_opt=--man=yes
command -v man >/dev/null || man_opt=--man=no
out=$(cd "$tmp/units" && MANPATH="$tmp/man" systemd-analyze verify $man_opt \
	./plateaud.service ./plateaud.socket 2>&1)
ok $? "systemd-analyze verify plateaud.service plateaud.socket"
is "$out" "" "verify prints no warnings"

unit="$tmp/units/plateaud.service"
for want in 'Type=notify' 'WatchdogSec=' 'Restart=on-failure' 'StateDirectory=plateau' \
	'RuntimeDirectory=plateau' 'ProtectSystem=strict' 'ProtectHome=yes' 'PrivateTmp=yes' \
	'NoNewPrivileges=yes' 'DeviceAllow=block-blkext rw' 'CapabilityBoundingSet=' \
	'SystemCallFilter=@system-service'; do
	grep -q "^$want" "$unit"
	ok $? "plateaud.service sets $want"
done
# hooks change user and empty their bounding set: the unit must leave
# plateaud those capabilities, and no more than it needs
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
for cap in CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL CAP_SYS_ADMIN; do
	has " $caps " " $cap " "CapabilityBoundingSet keeps $cap"
done
for cap in CAP_CHOWN CAP_FOWNER CAP_SYS_PTRACE CAP_DAC_READ_SEARCH; do
	ok "$(grep -qw "$cap" <<<"$caps" && echo 1 || echo 0)" "CapabilityBoundingSet drops $cap"
done
# the exposure score systemd-analyze gives the unit (3.3 before issue 10's
# hardening, 3.1 after): it may only go down
EXPOSURE_MAX=3.1
if out=$(cd "$tmp/units" && systemd-analyze security --offline=true ./plateaud.service 2>&1); then
	score=$(sed -n 's/.*Overall exposure level for plateaud.service: \([0-9.]*\).*/\1/p' <<<"$out")
	ok "$(awk -v s="${score:-99}" -v m="$EXPOSURE_MAX" 'BEGIN { print (s <= m) ? 0 : 1 }')" \
		"systemd-analyze security: exposure ${score:-unknown} <= $EXPOSURE_MAX" ||
		diag "$(grep '✗' <<<"$out")"
else
	skip 1 "systemd-analyze security --offline=true is not supported here"
fi
grep -q "^ListenStream=/run/plateau/control.sock" "$tmp/units/plateaud.socket"
ok $? "plateaud.socket listens on /run/plateau/control.sock"

# the sysusers and tmpfiles snippets parse
if command -v systemd-sysusers >/dev/null; then
	out=$(systemd-sysusers --dry-run "$PLATEAU_SRC/systemd/plateau.sysusers" 2>&1)
	ok $? "systemd-sysusers accepts plateau.sysusers"
	has "$out" "plateau" "it creates the plateau group"
	has "$out" "plateau-hook" "and the plateau-hook user hooks run as"
else
	skip 3 "systemd-sysusers is not installed"
fi
if command -v systemd-tmpfiles >/dev/null; then
	# as on install: sysusers first (tmpfiles resolves the group inside the root)
	mkdir -p "$tmp/root/etc"
	systemd-sysusers --root="$tmp/root" "$PLATEAU_SRC/systemd/plateau.sysusers" >/dev/null 2>&1
	gid=$(awk -F: '$1 == "plateau" { print $3 }' "$tmp/root/etc/group" 2>/dev/null)
	out=$(systemd-tmpfiles --create --root="$tmp/root" "$PLATEAU_SRC/systemd/plateau.tmpfiles" 2>&1)
	ok $? "systemd-tmpfiles accepts plateau.tmpfiles" || diag "$out"
	is "$(stat -c '%a %u %g' "$tmp/root/var/lib/plateau" 2>&1)" "2750 0 $gid" \
		"/var/lib/plateau: setgid, root:plateau, no access for others"
else
	skip 2 "systemd-tmpfiles is not installed"
fi

# make install into a staging root
make -C "$PLATEAU_SRC" --no-print-directory -s B="$PLATEAU_BUILD" PREFIX=/usr \
	UNITDIR=/lib/systemd/system DESTDIR="$tmp/stage" install >"$tmp/install.log" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr" || diag "$(tail -n 20 "$tmp/install.log")"
for f in usr/bin/plateau usr/sbin/plateaud lib/systemd/system/plateaud.service \
	lib/systemd/system/plateaud.socket usr/share/man/man1/plateau.1 \
	usr/share/man/man5/plateau.plan.5 usr/share/man/man8/plateaud.8 \
	usr/share/plateau/examples/lab-suite.plan; do
	test -e "$tmp/stage/$f"
	ok $? "installed $f"
done
# the schema is compiled into the binaries (tools/embed.sh)
test ! -e "$tmp/stage/usr/share/plateau/schema"
ok $? "no schema/*.sql installed"
grep -q '^ExecStart=/usr/sbin/plateaud$' "$tmp/stage/lib/systemd/system/plateaud.service"
ok $? "the installed unit starts /usr/sbin/plateaud"
"$tmp/stage/usr/sbin/plateaud" --version | grep -q '^plateaud '
ok $? "the installed plateaud runs"
done_testing
