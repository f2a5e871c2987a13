#!/bin/bash
# safety.t: the erase path refuses what it must, on real loop devices.
#
# Through lib/erase's erase_drive() (identify -> match -> in-use -> open
# O_EXCL -> re-identify -> erase), driven by tests/helpers/erase-tool:
#   - a mounted loop device (mkfs.ext4 + mount) is refused, unchanged;
#   - a loop device that is active swap (mkswap + swapon) is refused, unchanged;
#   - a wrong serial is refused, the device unchanged;
#   - a device another process holds open with O_EXCL is refused at open;
#   - a file backing a loop device is refused as a file target;
#   - the same device with the right serial and free is erased (control),
#     reads back as zeros;
#   - the synthetic loop serial is stable across detach/re-attach;
#   - the root filesystem's device is reported as in use (read-only check).
# Only loop devices and files this script creates are written.  Needs root.
set -u
. "${PLATEAU_SRC:?}/tests/integration/erase-lib.sh"

B=${PLATEAU_BUILD:?}
TOOL=$B/tests/helpers/erase-tool
[ -x "$TOOL" ] || skip_all "$TOOL not built (make tests)"
[ "$(id -u)" = 0 ] || skip_all "needs root for loop devices"
for t in losetup mkfs.ext4 mkswap swapon swapoff mount umount findmnt; do
	command -v $t >/dev/null || skip_all "$t not installed (util-linux, e2fsprogs)"
done

W=$(mktemp -d "$B/safety.XXXXXX") || exit 1
LOOPS=()
MNT=
SWAP=
HOLDER=
cleanup() {
	[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null && wait "$HOLDER" 2>/dev/null
	[ -n "$MNT" ] && umount "$MNT"
	[ -n "$SWAP" ] && swapoff "$SWAP"
	for l in "${LOOPS[@]}"; do [ -n "$l" ] && losetup -d "$l"; done
	rm -rf "$W"
}
trap cleanup EXIT

# attach NAME: a 32 MiB image of random data on a new loop device -> $dev
attach() {
	head -c 32M /dev/urandom >"$W/$1.img"
	dev=$(losetup -f --show "$W/$1.img") || skip_all "cannot attach a loop device"
	LOOPS+=("$dev")
}
field() { sed -n "s/^$2: //p" "$1"; }
devsum() { "$TOOL" sum "$1" | sed -n 's/^sum: //p'; }

# --- identity of a loop device ---
attach plain
PLAIN=$dev
"$TOOL" identify "$PLAIN" >"$W/id.out"
check "loop identify: exit 0" [ $? -eq 0 ]
read -r maj min ino < <(stat -c '%Hd %Ld %i' "$W/plain.img")
SERIAL=$(field "$W/id.out" serial)
check "loop serial is loop:<major>:<minor>:<inode> of the backing file" [ "$SERIAL" = "loop:$maj:$min:$ino" ]
check "loop kind and model" has "$W/id.out" '^kind: block$' && has "$W/id.out" '^model: Linux loop device$'
check "loop capacity" has "$W/id.out" '^capacity_bytes: 33554432$'
losetup -d "$PLAIN"
LOOPS=()
dev=$(losetup -f --show "$W/plain.img") || skip_all "cannot re-attach"
LOOPS+=("$dev")
PLAIN=$dev
"$TOOL" identify "$PLAIN" >"$W/id2.out"
check "loop serial stable across detach and re-attach" [ "$(field "$W/id2.out" serial)" = "$SERIAL" ]

# --- wrong serial ---
before=$(devsum "$PLAIN")
"$TOOL" erase "$PLAIN" --want "loop:$maj:$min:$((ino + 1))" >"$W/wrong.out"
check "wrong serial: refused" [ $? -ne 0 ] && has "$W/wrong.out" '^result: EPERM$'
check "wrong serial: says identity mismatch" has "$W/wrong.out" '^msg: identity mismatch'
check "wrong serial: device unchanged" [ "$(devsum "$PLAIN")" = "$before" ]

# --- mounted ---
attach mounted
MOUNTED=$dev
mkfs.ext4 -q -F "$MOUNTED" >/dev/null 2>&1
mkdir -p "$W/mnt"
if mount -o ro "$MOUNTED" "$W/mnt" 2>"$W/mount.err"; then
	MNT=$W/mnt
	want=$(field <("$TOOL" identify "$MOUNTED") serial)
	before=$(devsum "$MOUNTED")
	"$TOOL" erase "$MOUNTED" --want "$want" >"$W/mounted.out"
	check "mounted: refused (EBUSY)" [ $? -ne 0 ] && has "$W/mounted.out" '^result: EBUSY$'
	check "mounted: the reason names the mount point" has "$W/mounted.out" \
		"^msg: refusing to erase $MOUNTED: in use: $(basename "$MOUNTED") is mounted at $W/mnt"
	check "mounted: nothing attempted" lacks "$W/mounted.out" '^attempt:'
	check "mounted: device unchanged" [ "$(devsum "$MOUNTED")" = "$before" ]
	"$TOOL" list >"$W/list.out"
	check "list: the mounted loop device with its serial and reason" has "$W/list.out" \
		"^drive: path=$MOUNTED kind=block serial=$want .* inuse=1 reason=\[.* is mounted at $W/mnt\]"
else
	diag "mount failed: $(cat "$W/mount.err")"
	skip_one "mount not possible here"
fi

# --- swap ---
attach swap
SWAPDEV=$dev
mkswap -q "$SWAPDEV" >/dev/null 2>&1
if swapon "$SWAPDEV" 2>"$W/swapon.err"; then
	SWAP=$SWAPDEV
	want=$(field <("$TOOL" identify "$SWAPDEV") serial)
	before=$(devsum "$SWAPDEV")
	"$TOOL" erase "$SWAPDEV" --want "$want" >"$W/swap.out"
	check "swap: refused (EBUSY)" [ $? -ne 0 ] && has "$W/swap.out" '^result: EBUSY$'
	check "swap: the reason says swap" has "$W/swap.out" "in use: $(basename "$SWAPDEV") is active swap"
	check "swap: device unchanged" [ "$(devsum "$SWAPDEV")" = "$before" ]
	swapoff "$SWAPDEV" && SWAP=
else
	diag "swapon failed: $(cat "$W/swapon.err")"
	skip_one "swapon not possible here"
fi

# --- O_EXCL: held by another process, invisible to the in-use checks ---
attach held
HELD=$dev
want=$(field <("$TOOL" identify "$HELD") serial)
before=$(devsum "$HELD")
"$TOOL" hold "$HELD" --deadline-ms 30000 >"$W/hold.out" &
HOLDER=$!
for _ in $(seq 50); do grep -q '^held:' "$W/hold.out" && break; sleep 0.1; done
"$TOOL" erase "$HELD" --want "$want" >"$W/held.out"
check "O_EXCL: refused at open (EBUSY)" [ $? -ne 0 ] && has "$W/held.out" '^result: EBUSY$'
check "O_EXCL: the message says so" has "$W/held.out" 'O_EXCL'
check "O_EXCL: device unchanged" [ "$(devsum "$HELD")" = "$before" ]
kill "$HOLDER" && wait "$HOLDER" 2>/dev/null
HOLDER=

# --- the backing file of a loop device, as a file target ---
fwant=$(field <("$TOOL" identify "$W/held.img") serial)
fbefore=$(cksum <"$W/held.img")
"$TOOL" erase "$W/held.img" --want "$fwant" >"$W/backing.out"
check "backing file: refused (EBUSY)" [ $? -ne 0 ] && has "$W/backing.out" \
	"in use: the file backs $(basename "$HELD")"
check "backing file: unchanged" [ "$(cksum <"$W/held.img")" = "$fbefore" ]

# --- control: the same device, right serial, free: erased ---
"$TOOL" erase "$HELD" --want "$want" >"$W/control.out"
check "control: erase succeeds" [ $? -eq 0 ]
check "control: BLKSECDISCARD refused by the kernel, recorded" has "$W/control.out" \
	'^attempt: method=secure-discard sent=1 err=EOPNOTSUPP'
check "control: a weaker method ran" has "$W/control.out" '^ran: (discard|zero)$'
check "control: verify passed" has "$W/control.out" '^verify: done=1 passed=1 expect=0x00'
check "control: the whole device reads zeros" cmp -s -n 33554432 "$HELD" /dev/zero
check "control: other loop devices untouched" [ "$(devsum "$PLAIN")" != "$(devsum "$HELD")" ]

# --- the root filesystem's device (read-only check, nothing is opened for writing) ---
rootsrc=$(findmnt -n -o SOURCE / 2>/dev/null)
if [ -b "$rootsrc" ] && "$TOOL" identify "$rootsrc" >/dev/null 2>&1; then
	"$TOOL" inuse "$rootsrc" >"$W/root.out"
	check "root device: in use, backs the root filesystem" has "$W/root.out" 'backs the root filesystem'
else
	skip_one "the root device ($rootsrc) cannot be opened or is not a whole block device"
fi

done_testing
