#!/bin/bash
# nvme.t: identity, safety refusals and erase on a real kernel NVMe driver.
#
# One QEMU boot (tests/vm/lib.sh): Debian's 6.1 kernel, an emulated NVMe
# controller (-device nvme + nvme-ns with serial and EUI64) over a
# 64 MiB image that the host fills with a pattern, a partition holding an
# ext4 file system, and the tail of the image marked.  Inside the guest,
# tests/helpers/erase-tool drives lib/target and lib/erase on /dev/nvme0n1:
#   identity through libnvme (serial, model, OACS, FNA, SANICAP, EUI64,
#   controller, also via /dev/ng0n1); a wrong serial, the explicit
#   methods the controller does not advertise (sanitize: SANICAP 0;
#   format-crypto: FNA bit 2 is 0 although QEMU would accept SES=2), a
#   mounted partition and a dm holder are all refused with the data intact;
#   the dry run; then erase by auto, which must run Format NVM SES=1, and the
#   read-back verify.  After poweroff the host checks the whole image reads
#   zeros.
# The same boot then runs the real daemon on a second controller
# (/dev/nvme1n1): a plan with erase (auto: Format NVM SES=1), a fill and a
# precondition, started with the real CLI; the database is checked on the
# host afterwards.
# Skips (TAP) when qemu, busybox-static or a guest kernel is missing;
# PLATEAU_VM_REQUIRED=1 turns that into a failure.
set -u
. "${PLATEAU_SRC:?}/tests/integration/erase-lib.sh"
. "$PLATEAU_SRC/tests/vm/lib.sh"

B=${PLATEAU_BUILD:?}
TOOL=$B/tests/helpers/erase-tool

vm_skip() {
	if [ "${PLATEAU_VM_REQUIRED:-0}" = 1 ]; then
		echo "1..1"
		echo "not ok 1 - the VM test is required (PLATEAU_VM_REQUIRED=1) but: $*"
		exit 1
	fi
	skip_all "$*"
}

[ -x "$TOOL" ] || vm_skip "$TOOL not built (make tests)"
vm_prepare || vm_skip "$VM_WHY"

W=$(mktemp -d "$B/vm-nvme.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
IMG=$W/nvme.img
SIZE=$((64 << 20))
SERIAL=PLATEAUVM0001
SERIAL2=PLATEAUVM0002 # the second controller, for the daemon
EUI64=5a5a000011112222

# The image: a pattern everywhere, an MBR with one partition (1 MiB, 8 MiB)
# holding ext4, and a marker in the last 4 KiB.
yes plateau-vm-pattern | head -c $SIZE >"$IMG"
mkfs.ext4 -q -F -E offset=1048576 "$IMG" 8M >/dev/null 2>&1 || diag "mkfs.ext4 in the image failed"
# partition 1: type 83h, LBA 2048, 16384 sectors; entries 2-4 empty (the
# kernel ignores a table whose entries carry invalid boot indicators)
{
	printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x40\x00\x00'
	head -c 48 /dev/zero
} | dd of="$IMG" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="$IMG" bs=1 seek=510 conv=notrunc status=none
printf 'plateau-vm-tail' | dd of="$IMG" bs=1 seek=$((SIZE - 4096)) conv=notrunc status=none
check "host: image has data before the boot" [ "$(cmp -s -n $SIZE "$IMG" /dev/zero; echo $?)" = 1 ]

mkdir -p "$W/share"
cat >"$W/share/run.sh" <<EOF
set -u
R=/plateau-vm
T=$TOOL
D=/dev/nvme0n1
step() { local n=\$1; shift; "\$@" >\$R/\$n.out 2>&1; echo \$? >\$R/\$n.rc; }
step identify \$T identify \$D
step identify-ng \$T identify /dev/ng0n1
step match-eui \$T match \$D "eui.$EUI64"
step sum-before \$T sum \$D
step wrong \$T erase \$D --want NOT-$SERIAL
step refuse-sanitize \$T erase \$D --want $SERIAL --method sanitize-crypto
step refuse-sanitize-block \$T erase \$D --want $SERIAL --method sanitize-block
step refuse-format-crypto \$T erase \$D --want $SERIAL --method format-crypto
mkdir -p /mnt/p1
ls -l \$D* >\$R/parts.txt 2>&1
if [ -b \${D}p1 ] && mount -o ro \${D}p1 /mnt/p1 2>\$R/mount.err; then
	step mounted \$T erase \$D --want $SERIAL
	umount /mnt/p1
fi
if command -v dmsetup >/dev/null &&
   dmsetup --noudevsync create plateau-vm --table "0 16384 linear \$D 0" >\$R/dm.err 2>&1; then
	step held \$T erase \$D --want $SERIAL
	dmsetup --noudevsync remove plateau-vm >>\$R/dm.err 2>&1
fi
step sum-mid \$T sum \$D
step dry \$T dry-run \$D
step erase \$T erase \$D --want $EUI64 --poll-ms 100
step identify-after \$T identify \$D
step sum-after \$T sum \$D

# the real daemon and CLI on the second controller; the database lives in
# the guest's tmpfs (SQLite's WAL needs shared memory, which 9p lacks) and is
# copied out at the end
P="$B/plateau --db /run/p.db --socket /run/ctl.sock"
cat >/run/vm.plan <<PLAN
[run]
device = /dev/nvme1n1
serial = $SERIAL2
name = vm-e2e
interval = 500ms

[erase]
method = auto

[fill]
passes = 1
bs = 128k
iodepth = 8

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 8
steady = snia
max_rounds = 8
PLAN
$B/plateaud --db /run/p.db --socket /run/ctl.sock 2>\$R/daemon.log &
dpid=\$!
i=0
while [ ! -S /run/ctl.sock ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
step d-drives \$P drives /dev/nvme1n1 --csv
step d-dry \$P start /run/vm.plan --dry-run
step d-start \$P start /run/vm.plan
step d-wait \$P wait 1 --for done --timeout 100s
step d-show \$P show 1
kill \$dpid
wait \$dpid
echo \$? >\$R/daemon.rc
cp /run/p.db \$R/p.db
EOF

IMG2=$W/nvme2.img
yes plateau-vm-second | head -c $SIZE >"$IMG2"

VM_IMG2=$IMG2 VM_SERIAL2=$SERIAL2 vm_run "$W" "$IMG" "$SERIAL" "eui64=0x$EUI64"
S=$W/share
diag "vm: kernel $VM_KVER, accel $VM_ACCEL, boot+test+poweroff ${VM_SECONDS}s"
check "guest script ran to the end" [ "$VM_RC" = 0 ]
if [ "$VM_RC" != 0 ]; then
	diag "qemu exit $VM_QEMU_RC; console:"
	tail -30 "$W/console.log" 2>/dev/null | sed 's/^/#   /'
	sed 's/^/#   /' "$S/guest.out" 2>/dev/null
fi
check "under 3 minutes" [ "$VM_SECONDS" -lt 180 ]

f() { echo "$S/$1.out"; }
rc() { cat "$S/$1.rc" 2>/dev/null || echo missing; }

# identity through libnvme on the kernel's driver
check "identify: exit 0" [ "$(rc identify)" = 0 ]
check "identify: kind nvme, controller nvme0, nsid 1" has "$(f identify)" '^kind: nvme$' &&
	has "$(f identify)" '^ctrl: nvme0$' && has "$(f identify)" '^nsid: 1$'
check "identify: serial from Identify Controller" has "$(f identify)" "^serial: $SERIAL\$"
check "identify: model" has "$(f identify)" '^model: QEMU NVMe Ctrl$'
check "identify: OACS has Format NVM (bit 1)" has "$(f identify)" '^oacs: 0x0[0-9a-f]{2}[2367abef]$'
check "identify: FNA 0, SANICAP 0" has "$(f identify)" '^fna: 0x00$' && has "$(f identify)" '^sanicap: 0x00000000$'
check "identify: EUI64 (QEMU 7.2 has no NGUID property: absent)" has "$(f identify)" "^eui64: $EUI64\$" &&
	has "$(f identify)" '^nguid: $'
check "identify: capacity" has "$(f identify)" "^capacity_bytes: $SIZE\$"
check "identify: only format-user among the NVMe methods" has "$(f identify)" '^erase_methods: format-user,'
check "identify via /dev/ng0n1: same drive, block device found" has "$(f identify-ng)" "^serial: $SERIAL\$" &&
	has "$(f identify-ng)" '^block_path: /dev/nvme0n1$'
check "match: the EUI64 names the drive" has "$(f match-eui)" '^match: eui64$'

# refusals, data intact
check "wrong serial: refused" [ "$(rc wrong)" = 1 ] && has "$(f wrong)" '^result: EPERM$'
check "sanitize-crypto: refused before sending (SANICAP CES 0)" has "$(f refuse-sanitize)" '^result: EOPNOTSUPP$' &&
	has "$(f refuse-sanitize)" '^attempt: method=sanitize-crypto sent=0 .*SANICAP bit 0 \(CES\) is 0'
check "sanitize-block: refused before sending (SANICAP BES 0)" has "$(f refuse-sanitize-block)" \
	'^attempt: method=sanitize-block sent=0 .*SANICAP bit 1 \(BES\) is 0'
check "format-crypto: refused before sending (FNA bit 2 is 0)" has "$(f refuse-format-crypto)" \
	'^attempt: method=format-crypto sent=0 .*FNA bit 2'
if [ -f "$(f mounted)" ]; then
	check "mounted partition: refused" has "$(f mounted)" '^result: EBUSY$' &&
		has "$(f mounted)" 'nvme0n1p1 is mounted at /mnt/p1'
else
	skip_one "the partition could not be mounted in the guest: $(cat "$S/parts.txt" "$S/mount.err" 2>/dev/null | tr '\n' ' ')"
fi
if [ -f "$(f held)" ]; then
	check "dm holder: refused" has "$(f held)" '^result: EBUSY$' &&
		has "$(f held)" 'nvme0n1 is held by dm-[0-9]+ \(plateau-vm\)'
else
	skip_one "no dmsetup / device-mapper in the guest"
fi
before=$(sed -n 's/^sum: //p' "$(f sum-before)")
check "data unchanged by the refusals" [ -n "$before" ] && [ "$(sed -n 's/^sum: //p' "$(f sum-mid)")" = "$before" ]

# dry run and the erase
check "dry-run: auto would run format-user only, no scope warning" has "$(f dry)" '^chain: format-user$' &&
	lacks "$(f dry)" '^warning:'
check "erase: exit 0" [ "$(rc erase)" = 0 ]
check "erase: format-user ran (SES=1)" has "$(f erase)" '^ran: format-user$' &&
	has "$(f erase)" '^attempt: method=format-user sent=1 err=0 .*Format NVM SES=1 LBAF 0 completed'
check "erase: nothing else was attempted" [ "$(count "$(f erase)" '^attempt:')" = 1 ]
check "erase: verify read back zeros" has "$(f erase)" '^verify: done=1 passed=1 expect=0x00 ranges=18 zero=18 '
check "after: same identity, same LBA format" has "$(f identify-after)" "^serial: $SERIAL\$" &&
	has "$(f identify-after)" '^flbas_index: 0$' && has "$(f identify-after)" "^capacity_bytes: $SIZE\$"
check "after: the namespace reads differently" [ "$(sed -n 's/^sum: //p' "$(f sum-after)")" != "$before" ]
check "host: the whole image is zero after poweroff" cmp -s -n $SIZE "$IMG" /dev/zero

# the daemon run on the second controller
q() { sqlite3 "$S/p.db" "$1" 2>&1; }
check "daemon: drives lists nvme1n1 with its serial" has "$(f d-drives)" ",$SERIAL2,"
check "daemon: dry run would format (SES=1) only" [ "$(rc d-dry)" = 0 ] &&
	has "$(f d-dry)" 'would try \["format-user"\]'
check "daemon: start accepted" [ "$(rc d-start)" = 0 ] && has "$(f d-start)" '^run 1 started$'
# on failure the guest's daemon log goes to stderr, so a non-verbose prove
# (CI) shows why the run did not finish
check "daemon: the run finished (wait exit 0)" [ "$(rc d-wait)" = 0 ] ||
	diag "$(cat "$(f d-wait)" "$S/daemon.log" 2>/dev/null | tail -n 40)" >&2
check "daemon: exited cleanly on SIGTERM" [ "$(cat "$S/daemon.rc" 2>/dev/null)" = 0 ]
check "db: integrity ok" [ "$(q 'PRAGMA integrity_check')" = ok ]
check "db: run done" [ "$(q 'SELECT state FROM runs WHERE id = 1')" = done ]
check "db: drive recorded with the controller's serial and model" \
	[ "$(q "SELECT kind || '|' || serial || '|' || model FROM drives")" = "nvme|$SERIAL2|QEMU NVMe Ctrl" ]
check "db: erase ran Format NVM SES=1 and verified zeros" \
	[ "$(q "SELECT json_extract(result, '\$.method') || '|' || json_extract(result, '\$.verify.passed') FROM phases WHERE kind = 'erase'")" = "format-user|1" ]
check "db: the fill wrote the whole namespace" \
	[ "$(q "SELECT progress_bytes = total_bytes AND total_bytes = $SIZE FROM phases WHERE kind = 'fill'")" = 1 ]
n=$(q "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.kind = 'precondition'")
check "db: precondition samples stored ($n)" [ "${n:-0}" -ge 5 ]
check "db: sample numbers contiguous from 1" \
	[ "$(q "SELECT count(*) = max(seq) AND min(seq) = 1 FROM samples GROUP BY phase_id" | sort -u)" = 1 ]
check "db: every sample measured I/O" \
	[ "$(q "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.kind = 'precondition' AND s.partial = 0 AND s.a_ios = 0")" = 0 ]
check "show: names the erase and the verdict" has "$(f d-show)" 'method     format-user' &&
	has "$(f d-show)" 'phase 3 \(precondition 4k-randwrite\)'
check "host: the second drive holds written data, not the pattern" \
	[ "$(head -c 4096 "$IMG2" | tr -d '\000' | wc -c)" -gt 0 ] && ! head -c 64 "$IMG2" | grep -q plateau-vm-second

done_testing
