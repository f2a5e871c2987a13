#!/bin/sh
# deps.sh build|check: install the Debian packages plateau needs that are
# missing.  As root it runs apt-get; otherwise it prints the exact command and
# fails, so nothing is installed behind the operator's back.
set -eu
build="gcc make pkg-config liburing-dev libsystemd-dev libsqlite3-dev libnvme-dev libjson-c-dev libssl-dev"
# check: prove (perl), fio for the benchmark, loop devices and mkfs/swap for the
# safety tests, systemd-analyze for the units, sqlite3 and jq to inspect
# results, qemu + busybox for the NVMe VM test (xz-utils unpacks Debian's
# kernel image, not installed on every Debian), chromium for the report test,
# promtool (prometheus) for the textfile, clang-format for the format check.
check="$build perl fio util-linux mount e2fsprogs sqlite3 jq systemd qemu-system-x86 qemu-utils busybox-static xz-utils chromium prometheus curl clang-format"

case "${1:-build}" in
build) want=$build ;;
check) want=$check ;;
*) echo "usage: deps.sh build|check" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "plateau needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
