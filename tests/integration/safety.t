#!/bin/bash
# safety.t: the erase path refuses what it must, on real loop devices.
#
# Through lib/erase's erase_drive() (identify -> match -> in-use -> open
# O_EXCL -> re-identify -> erase), driven by tests/helpers/erase-tool:
#   - a mounted loop device (mkfs.ext4 + mount) is refused, unchanged;
#   - a loop device that is active swap (mkswap + swapon) is refused, unchanged;
#   - a wrong serial is refused, the device unchanged; so is the old
#     synthetic form without the birth time (re-read the serial);
#   - a device another process holds open with O_EXCL is refused at open;
#   - a file backing a loop device is refused as a file target;
#   - the same device with the right serial and free is erased (control),
#     reads back as zeros;
#   - the synthetic loop serial (loop:MAJ:MIN:INO:BTIME[:gGEN] of the
#     backing file) is stable across detach/re-attach;
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
matches() { [[ $1 =~ $2 ]] || { echo "#   '$1' does not match /$2/" >&2; return 1; }; }
# refused_with FILE RESULT: the last erase ($rc) failed with this result
refused_with() { [ "$rc" -ne 0 ] && has "$1" "^result: $2\$"; }
# birth_of FILE -> SEC.NSEC, the birth time as statx gives it
birth_of() {
	local w
	w=$(stat -c %w "$1")
	w=${w#*.}
	echo "$(stat -c %W "$1").${w%% *}"
}
devsum() { "$TOOL" sum "$1" | sed -n 's/^sum: //p'; }

# --- identity of a loop device ---
attach plain
PLAIN=$dev
"$TOOL" identify "$PLAIN" >"$W/id.out"
check "loop identify: exit 0" [ $? -eq 0 ]
read -r maj min ino < <(stat -c '%Hd %Ld %i' "$W/plain.img")
btime=$(birth_of "$W/plain.img")
SERIAL=$(field "$W/id.out" serial)
# :gGENERATION where the file system keeps an inode generation
check "loop serial is loop:<major>:<minor>:<inode>:<birth time> of the backing file" \
	matches "$SERIAL" "^loop:$maj:$min:$ino:${btime/./\\.}(:g[0-9]+)?\$"
kind_model() { has "$W/id.out" '^kind: block$' && has "$W/id.out" '^model: Linux loop device$'; }
check "loop kind and model" kind_model
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
WRONG="loop:$maj:$min:$((ino + 1)):${SERIAL#"loop:$maj:$min:$ino:"}"
"$TOOL" erase "$PLAIN" --want "$WRONG" >"$W/wrong.out"
rc=$?
check "wrong serial: refused (EPERM)" refused_with "$W/wrong.out" EPERM
check "wrong serial: says it is not the drive named" has "$W/wrong.out" \
	"^msg: refusing $PLAIN: it is .*, not the drive the plan names \\(serial $WRONG\\)$"
check "wrong serial: device unchanged" [ "$(devsum "$PLAIN")" = "$before" ]
"$TOOL" erase "$PLAIN" --want "loop:$maj:$min:$ino" >"$W/oldform.out"
rc=$?
check "old serial form (no birth time): refused (EPERM)" refused_with "$W/oldform.out" EPERM
check "old serial form: says to re-read the serial" has "$W/oldform.out" \
	"^msg: refusing $PLAIN: serial loop:$maj:$min:$ino is the old synthetic form.*re-read the serial with plateau drives $PLAIN$"
check "old serial form: device unchanged" [ "$(devsum "$PLAIN")" = "$before" ]

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
	rc=$?
	check "mounted: refused (EBUSY)" refused_with "$W/mounted.out" EBUSY
	check "mounted: the reason names the mount point" has "$W/mounted.out" \
		"^msg: refusing $MOUNTED: $(basename "$MOUNTED") is mounted at $W/mnt(;|$)"
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
	# the kernel may page out to an active swap device at any time, so
	# only its signature page (which an erase would overwrite first) is
	# compared, and the erase must not have sent anything at all
	before=$(dd if="$SWAPDEV" bs=4096 count=1 iflag=direct status=none | cksum)
	"$TOOL" erase "$SWAPDEV" --want "$want" >"$W/swap.out"
	rc=$?
	check "swap: refused (EBUSY)" refused_with "$W/swap.out" EBUSY
	check "swap: the reason says swap" has "$W/swap.out" \
		"^msg: refusing $SWAPDEV: $(basename "$SWAPDEV") is active swap(;|$)"
	check "swap: nothing sent to the device" lacks "$W/swap.out" '^attempt:'
	check "swap: its signature page unchanged" [ "$(dd if="$SWAPDEV" bs=4096 count=1 iflag=direct status=none | cksum)" = "$before" ]
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
rc=$?
check "O_EXCL: refused at open (EBUSY)" refused_with "$W/held.out" EBUSY
check "O_EXCL: the message says so" has "$W/held.out" '^msg: refusing .*O_EXCL'
check "O_EXCL: device unchanged" [ "$(devsum "$HELD")" = "$before" ]
kill "$HOLDER" && wait "$HOLDER" 2>/dev/null
HOLDER=

# --- the backing file of a loop device, as a file target ---
fwant=$(field <("$TOOL" identify "$W/held.img") serial)
fbefore=$(cksum <"$W/held.img")
"$TOOL" erase "$W/held.img" --want "$fwant" >"$W/backing.out"
rc=$?
check "backing file: refused (EBUSY)" refused_with "$W/backing.out" EBUSY
check "backing file: the reason says the file backs the loop device" has "$W/backing.out" \
	"^msg: refusing $W/held.img: the file backs $(basename "$HELD")(;|$)"
check "backing file: unchanged" [ "$(cksum <"$W/held.img")" = "$fbefore" ]

# --- control: the same device, right serial, free: erased ---
"$TOOL" erase "$HELD" --want "$want" >"$W/control.out"
check "control: erase succeeds" [ $? -eq 0 ]
check "control: secure-discard not even tried on a loop device (drives does not list it)" \
	lacks "$W/control.out" '^attempt: method=secure-discard'
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
