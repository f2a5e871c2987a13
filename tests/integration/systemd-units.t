#!/bin/bash
# The systemd units pass `systemd-analyze verify`, and `make install` puts
# every file where the units and the man pages say.
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
grep -q "^ListenStream=/run/plateau/control.sock" "$tmp/units/plateaud.socket"
ok $? "plateaud.socket listens on /run/plateau/control.sock"

# the sysusers and tmpfiles snippets parse
if command -v systemd-sysusers >/dev/null; then
	out=$(systemd-sysusers --dry-run "$PLATEAU_SRC/systemd/plateau.sysusers" 2>&1)
	ok $? "systemd-sysusers accepts plateau.sysusers"
	has "$out" "plateau" "it creates the plateau group"
else
	skip 2 "systemd-sysusers is not installed"
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
	usr/share/plateau/schema/001-initial.sql usr/share/plateau/examples/lab-suite.plan; do
	test -e "$tmp/stage/$f"
	ok $? "installed $f"
done
grep -q '^ExecStart=/usr/sbin/plateaud$' "$tmp/stage/lib/systemd/system/plateaud.service"
ok $? "the installed unit starts /usr/sbin/plateaud"
"$tmp/stage/usr/sbin/plateaud" --version | grep -q '^plateaud '
ok $? "the installed plateaud runs"
done_testing
