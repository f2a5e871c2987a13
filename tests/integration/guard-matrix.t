#!/bin/bash
# SPDX-License-Identifier: MIT
#
# guard-matrix.t: the one safety gate (lib/guard.h), case by case, through
# every entry point that writes, on real loop devices.
#
# Every case is built for real (mkfs, mount, swapon, stacked loops, an
# O_EXCL holder, a second plateau process) and tried three ways:
#   dry-run  plateau start PLAN --dry-run   (through plateaud)
#   run      plateau run --target T --serial S ...   (no daemon)
#   start    plateau start PLAN             (through plateaud)
# A refusal must exit 6 with one line on stderr,
#   plateau: refusing PATH: REASON[; REASON...]
# naming the reason; no run may be recorded (the runs table of the database
# the entry point uses keeps its row count) and not one byte may change, in
# the target nor in the device or file underneath it (sha256 and a byte
# count against a copy taken before).  plateau drives PATH must say IN USE
# yes, with reasons the refusal gives too, for every case that is in use.
#
#   1  a wrong serial; another drive's serial; an empty serial; a file
#      named by another file's serial
#   2  a loop device mounted rw; mounted ro
#   3  a partition of the loop mounted, the whole loop targeted; the
#      partition itself targeted ("plateau takes whole drives")
#   4  swap on the whole loop; swap on a partition; a swap file (file target)
#   5  a loop on a loop, the top one mounted: the bottom one targeted; three
#      deep (C on A on B, C mounted): B targeted, A targeted
#   6  the backing file of a mounted loop, unlinked, reached through a hard
#      link; a backing file reached through a hard link (no unlink); a free
#      loop whose backing file is unlinked (no birth time: never written)
#   7  inode reuse: a file's serial, the file deleted, a new file with the
#      same inode number, a run with the old serial on it
#   8  old-form synthetic serials (loop:MAJ:MIN:INO, file:MAJ:MIN:INO):
#      refused, telling to re-read the serial
#   9  a lock held by another plateau process: plateau run writing a loop,
#      the same loop again; two loops over one file (the other loop is a
#      reason of its own, or its writer's lock is); the daemon writing,
#      plateau run, the dry run and start on the same loop; plateau run
#      writing a file, the file reached through a hard link
#  10  another process holding the loop with O_EXCL
#  11  control: a free loop and a free file, rightly named, ARE written
#  12  the race between check and use: a symlink swapped after the gate
#      opened (tests/helpers/guard-tool): the drive checked gets the writes,
#      the one swapped in is unchanged
# and the form of the synthetic serials (loop:/file:MAJ:MIN:INO:SEC.NSEC,
# @OFFSET for a loop at an offset into its file).
#
# Each (case, entry point) gives a diagnostic line for a table:
#   # matrix | CASE | ENTRY | refused=yes/no | exit=N | reason=FIRST-REASON | bytes_changed=N
# Swap areas are made 64 KiB (mkswap DEV 64) and watched from past them: the
# kernel may swap out to any active swap at any time, and that is not
# plateau's doing.
# Everything built is torn down in a trap (umount, swapoff, losetup -d,
# holders killed), also on failure.  Needs root.

# tmpfs is fast and supports O_DIRECT (Linux 6.6): images and copies go there
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] &&
	dd if=/dev/zero of=/dev/shm/.guard-matrix.$$ bs=4k count=1 oflag=direct status=none 2>/dev/null; then
	export TMPDIR=/dev/shm
fi
rm -f /dev/shm/.guard-matrix.$$ 2>/dev/null
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root: loop devices, mounts, swap"
for t in losetup mkfs.ext4 mkswap swapon swapoff mount umount dd cmp sha256sum python3 timeout; do
	command -v "$t" >/dev/null || skip_all "$t is not installed"
done
# the interpreter itself, not a version manager's shim (0.3 s a call)
PY=$(python3 -c 'import sys; print(sys.executable)') && [ -x "$PY" ] || PY=python3
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

RDB=$W/run.db                       # plateau run's database
SNAP=$W/snap                        # copies taken before
mkdir -p "$SNAP" "$W/mnt" || bail_out "cannot create $SNAP"
# the locks of every plateau process of this test (plateau run, plateaud)
export PLATEAU_LOCK_DIR=$W/locks
mkdir -p "$PLATEAU_LOCK_DIR"
NL=$'\n'

# ---- teardown: a stack, unwound per case and at exit ----
UNDO=()
undo_push() { UNDO+=("$1"); }
undo_to() {
	local i
	for ((i = ${#UNDO[@]} - 1; i >= $1; i--)); do
		eval "${UNDO[i]}" >/dev/null 2>&1
		unset 'UNDO[i]'
	done
	UNDO=("${UNDO[@]}")
}
at_cleanup 'undo_to 0'

kill_wait() { kill "$@" 2>/dev/null; wait "${@: -1}" 2>/dev/null; }

# ---- building blocks ----
# img NAME [MiB]: a file of random data in $W -> its path
img() {
	head -c "${2:-32}M" /dev/urandom >"$W/$1" && echo "$W/$1"
}
# newloop FILE [losetup options]: attach (direct I/O when possible) -> $LOOPDEV
newloop() {
	local f=$1
	shift
	LOOPDEV=$(losetup --direct-io=on "$@" -f --show "$f" 2>/dev/null) ||
		LOOPDEV=$(losetup "$@" -f --show "$f") || return 1
	undo_push "losetup -d $LOOPDEV"
}
# mkext4 DEV: nothing left for the kernel to initialise after the mount
mkext4() {
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$1" >/dev/null 2>&1
}
# domount DEV DIR [OPTS]
domount() {
	mkdir -p "$2" && mount ${3:+-o "$3"} "$1" "$2" || return 1
	undo_push "umount '$2' || umount -l '$2'"
	sync
}
doswapon() {
	swapon "$1" || return 1
	undo_push "swapoff '$1'"
}
# addpart1 DEV TYPE: an MBR with one partition (2048 to the end), made
# known to the kernel with BLKPG (works without partition parsers) -> $PART
addpart1() {
	local dev=$1 type=$2 sectors
	sectors=$(blockdev --getsz "$dev") || return 1
	"$PY" - "$dev" "$sectors" "$type" <<-'EOF' || return 1
		import os, struct, sys
		dev, n, t = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
		m = bytearray(512)
		m[440:444] = b"\x47\x4d\x54\x31"
		m[446:462] = struct.pack("<B3sB3sII", 0, b"\0\0\0", t, b"\0\0\0", 2048, n - 2048)
		m[510:512] = b"\x55\xaa"
		fd = os.open(dev, os.O_WRONLY)
		os.pwrite(fd, bytes(m), 0)
		os.fsync(fd)
		os.close(fd)
	EOF
	PART=${dev}p1
	if [ ! -b "$PART" ]; then
		partx -a "$dev" 2>/dev/null || addpart "$dev" 1 2048 $((sectors - 2048)) || return 1
	fi
	wait_for 10 "$PART to appear" test -b "$PART" || return 1
	undo_push "delpart $dev 1"
}

# ---- identity through plateau drives --json ----
# drives_info PATH -> "in_use<TAB>reasons; joined<TAB>serial" (empty on error)
drives_info() {
	"$PLATEAU" drives "$1" --json 2>/dev/null | "$PY" -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
e = d[0] if isinstance(d, list) and d else d
if not isinstance(e, dict):
    sys.exit(0)
r = e.get("in_use_reasons")
r = "; ".join(r) if isinstance(r, list) else (r or "")
print("%s\t%s\t%s" % (str(e.get("in_use")).lower(), r, e.get("serial") or ""))'
}
serial_json() { drives_info "$1" | cut -f3; }

# ---- watching bytes ----
WATCH=()
WSKIP=()
WSHA=()
# _read PATH SKIP_MIB OUT: block devices with O_DIRECT (no stale page cache)
_read() {
	if [ -b "$1" ]; then
		dd if="$1" of="$3" bs=1M skip="$2" iflag=direct status=none
	else
		dd if="$1" of="$3" bs=1M skip="$2" status=none
	fi
}
# watch PATH [SKIP_MIB]: take a copy now (from SKIP_MIB on)
watch() {
	local i=${#WATCH[@]}
	WATCH+=("$1")
	WSKIP+=("${2:-0}")
	_read "$1" "${2:-0}" "$SNAP/w$i.before" || diag "cannot read $1"
	WSHA[i]=$(sha256sum <"$SNAP/w$i.before" | cut -c1-64)
}
unwatch() {
	WATCH=()
	WSKIP=()
	WSHA=()
	rm -f "$SNAP"/w*
}
# count_diff A B: bytes that differ (and the difference in length)
count_diff() {
	cmp -s "$1" "$2" && { echo 0; return; }
	"$PY" - "$1" "$2" <<-'EOF' 2>/dev/null || cmp -l "$1" "$2" | wc -l
		import sys
		a = open(sys.argv[1], "rb").read()
		b = open(sys.argv[2], "rb").read()
		m = min(len(a), len(b))
		n = abs(len(a) - len(b))
		for o in range(0, m, 4096):
		    x, y = a[o:min(o + 4096, m)], b[o:min(o + 4096, m)]
		    if x != y:
		        d = int.from_bytes(x, "little") ^ int.from_bytes(y, "little")
		        n += len(x) - d.to_bytes(len(x), "little").count(0)
		print(n)
	EOF
}
# measure: CHANGED (the most bytes changed in one watched object) and
# CHDETAIL; the copies move on, so the next entry point starts afresh
measure() {
	local i n sha
	CHANGED=0
	CHDETAIL=
	for i in "${!WATCH[@]}"; do
		_read "${WATCH[i]}" "${WSKIP[i]}" "$SNAP/w$i.after" || diag "cannot read ${WATCH[i]}"
		# the same bytes have the same sha256: hash only what cmp finds changed
		if cmp -s "$SNAP/w$i.before" "$SNAP/w$i.after"; then
			n=0
			sha=${WSHA[i]}
		else
			sha=$(sha256sum <"$SNAP/w$i.after" | cut -c1-64)
			n=$(count_diff "$SNAP/w$i.before" "$SNAP/w$i.after")
			[ "$n" = 0 ] && n=1
		fi
		CHDETAIL+="${WATCH[i]}"
		[ "${WSKIP[i]}" != 0 ] && CHDETAIL+=" (from ${WSKIP[i]} MiB on)"
		CHDETAIL+=": $n bytes (sha256 ${WSHA[i]:0:12} -> ${sha:0:12}); "
		mv -f "$SNAP/w$i.after" "$SNAP/w$i.before"
		WSHA[i]=$sha
		[ "$n" -gt "$CHANGED" ] && CHANGED=$n
	done
	CHDETAIL=${CHDETAIL%; }
}

# ---- the entry points ----
nruns_in() { [ -f "$1" ] && sqlite3 -batch -cmd '.timeout 5000' "$1" 'SELECT count(*) FROM runs;' 2>/dev/null || echo 0; }

write_plan() { # FILE DEVICE SERIAL [EXTRA-RUN-LINES] [MAX_DURATION]
	cat >"$1" <<-EOF
		[run]
		device = $2
		serial = $3
		interval = 1s
		${4:-}

		[precondition]
		profile = 4k-randwrite
		threads = 1
		iodepth = 4
		steady = none
		max_duration = ${5:-2s}
	EOF
}

ensure_daemon() {
	if [ -z "$DPID" ] || ! kill -0 "$DPID" 2>/dev/null; then
		diag "plateaud is not running (log: $(tail -n 5 "$LOG")): starting it again"
		daemon_start || bail_out "plateaud does not start: $(tail -n 20 "$LOG")"
	fi
}

# attempt ENTRY TARGET SERIAL: RC, OUT, ERR, RUNS_ADDED, NEWRUN
attempt() {
	local entry=$1 target=$2 serial=$3 db before
	NEWRUN=
	case $entry in
	run)
		db=$RDB
		before=$(nruns_in "$db")
		OUT=$(timeout 90 "$PLATEAU" --db "$RDB" run --target "$target" --serial "$serial" \
			--profile 4k-randwrite --threads 1 --iodepth 4 --duration 2s --interval 1s \
			--quiet 2>"$W/err")
		RC=$?
		;;
	start | dry-run)
		db=$DB
		ensure_daemon
		write_plan "$W/case.plan" "$target" "$serial"
		before=$(nruns_in "$db")
		if [ "$entry" = start ]; then
			OUT=$(pctl start "$W/case.plan" 2>"$W/err")
			RC=$?
			if [[ $OUT =~ run\ ([0-9]+)\ started ]]; then
				NEWRUN=${BASH_REMATCH[1]}
				# it writes: let it end before the bytes are counted
				timeout 90 "$PLATEAU" --db "$DB" wait "$NEWRUN" --timeout 60s >/dev/null 2>&1
			fi
		else
			OUT=$(pctl start --dry-run "$W/case.plan" 2>"$W/err")
			RC=$?
		fi
		;;
	esac
	ERR=$(cat "$W/err")
	RUNS_ADDED=$(($(nruns_in "$db") - before))
}

re_esc() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }

# first_reason TARGET: the first reason of the refusal line, else the first error line
first_reason() {
	local line r
	line=$(grep -m1 '^plateau: refusing ' <<<"$ERR")
	if [ -n "$line" ]; then
		r=${line#"plateau: refusing $1: "}
		[ "$r" = "$line" ] && r=${line#plateau: refusing }
		r=${r%%; *}
	elif [ -n "$ERR" ] && [ "$RC" != 0 ]; then
		r=$(tail -n 1 <<<"$ERR")
		r=${r#plateau: }
	else
		r=-
	fi
	r=${r//|//}
	echo "${r:0:200}"
}

matrix() { # ENTRY TARGET
	local refused=no
	[ "$RC" != 0 ] && [ "$RUNS_ADDED" = 0 ] && refused=yes
	diag "matrix | $CASE | $1 | refused=$refused | exit=$RC | reason=$(first_reason "$2") | bytes_changed=$CHANGED"
}

REFUSAL=()          # the refusal line of each entry point of the case
# refused ENTRY TARGET SERIAL WANT: WANT is a fixed text, or ~ERE
refused() {
	local entry=$1 target=$2 serial=$3 want=$4 line
	attempt "$entry" "$target" "$serial"
	measure
	matrix "$entry" "$target"
	line=$(grep -m1 '^plateau: refusing ' <<<"$ERR")
	REFUSAL+=("$line")
	[[ $line == *"; "* ]] && diag "  $line"
	is "$RC" 6 "$CASE $entry: exit 6 (refused)" || diag "  stdout: ${OUT:0:300}${NL}  stderr: ${ERR:0:600}"
	like "$ERR" "^plateau: refusing $(re_esc "$target"): [^;$NL]+(; [^;$NL]+)*\$" \
		"$CASE $entry: one line 'plateau: refusing $target: REASON; ...' on stderr"
	if [ "${want:0:1}" = "~" ]; then
		like "$line" "${want:1}" "$CASE $entry: the reason matches /${want:1}/"
	else
		has "$line" "$want" "$CASE $entry: the reason says '$want'"
	fi
	is "$RUNS_ADDED" 0 "$CASE $entry: no run recorded"
	is "$CHANGED" 0 "$CASE $entry: not a byte changed" || diag "  $CHDETAIL"
	[ "$CHANGED" != 0 ] && [ -n "${FSCK_DEV:-}" ] &&
		diag "  e2fsck -fn $FSCK_DEV: $(e2fsck -fn "$FSCK_DEV" 2>&1 | grep -v '^e2fsck' | head -n 3 | tr '\n' ' ')"
	return 0
}

# refused3 TARGET SERIAL WANT [WANT-DRY]: dry run, run, start (same reasons from each)
refused3() {
	REFUSAL=()
	refused dry-run "$1" "$2" "${4:-$3}"
	refused run "$1" "$2" "$3"
	refused start "$1" "$2" "$3"
}

# same_refusal: the three entry points printed the same line
same_refusal() {
	is "${REFUSAL[1]}" "${REFUSAL[0]}" "$CASE: plateau run refuses with the dry run's line" &&
		is "${REFUSAL[2]}" "${REFUSAL[0]}" "$CASE: plateau start refuses with the dry run's line"
}

# drives_inuse PATH WANT: IN USE yes with the reason, table and JSON, and
# every reason it gives is in the refusal of plateau run
drives_inuse() {
	local path=$1 want=$2 table info r reasons bad=
	table=$("$PLATEAU" drives "$path" 2>&1)
	like "$(grep -F "$path " <<<"$table" | head -n 1)" "[[:space:]]yes[[:space:]].*$(re_esc "$want")" \
		"$CASE: plateau drives $path: IN USE yes, '$want'" || diag "  $table"
	info=$(drives_info "$path")
	is "$(cut -f1 <<<"$info")" true "$CASE: plateau drives --json: in_use true"
	reasons=$(cut -f2 <<<"$info")
	has "$reasons" "$want" "$CASE: plateau drives --json: in_use_reasons has '$want'"
	while IFS= read -r r; do
		[ -n "$r" ] && [[ ${REFUSAL[1]:-} != *"$r"* ]] && bad+="'$r' "
	done <<<"${reasons//; /$NL}"
	is "$bad" "" "$CASE: the refusal gives every reason plateau drives gives"
}

# nonzero ENTRY TARGET SERIAL: the empty serial (exit 6 or 2, a usage error)
nonzero() {
	local entry=$1 target=$2 serial=$3
	attempt "$entry" "$target" "$serial"
	measure
	matrix "$entry" "$target"
	like "$RC" '^(2|6)$' "$CASE $entry: refused (exit 6, or 2: usage)" || diag "  stderr: ${ERR:0:400}"
	has "$ERR" "serial" "$CASE $entry: the message is about the serial: ${ERR:0:160}"
	is "$RUNS_ADDED" 0 "$CASE $entry: no run recorded"
	is "$CHANGED" 0 "$CASE $entry: not a byte changed" || diag "  $CHDETAIL"
}

# written ENTRY TARGET SERIAL: the control (dry run: passes, writes nothing)
written() {
	local entry=$1 target=$2 serial=$3
	attempt "$entry" "$target" "$serial"
	measure
	matrix "$entry" "$target"
	is "$RC" 0 "$CASE $entry: exit 0" || diag "  stdout: ${OUT:0:300}${NL}  stderr: ${ERR:0:600}"
	if [ "$entry" = dry-run ]; then
		has "$OUT" "dry run: nothing was started or written" "$CASE dry-run: passes, says nothing was written"
		is "$RUNS_ADDED" 0 "$CASE dry-run: no run recorded"
		is "$CHANGED" 0 "$CASE dry-run: not a byte changed" || diag "  $CHDETAIL"
	else
		is "$RUNS_ADDED" 1 "$CASE $entry: one run recorded"
		[ "$entry" = start ] && is "$(run_state "${NEWRUN:-0}")" "done" "$CASE start: run ${NEWRUN:-?} done"
		ok "$([ "$CHANGED" -gt 0 ] && echo 0 || echo 1)" "$CASE $entry: the target was written ($CHANGED bytes changed)"
	fi
}

T0=${EPOCHREALTIME/./}
elapsed() { local t=$((${EPOCHREALTIME/./} - T0)); printf '%d.%01ds' $((t / 1000000)) $((t % 1000000 / 100000)); }
CASE=
MARK=0
case_begin() {
	CASE=$1
	MARK=${#UNDO[@]}
	FSCK_DEV=
	unwatch
	diag "---- $CASE: $2 (at $(elapsed))"
}
case_end() {
	undo_to "$MARK"
	unwatch
}
# case_skip WHY: the case cannot be built here
case_skip() {
	skip 1 "$CASE: $1"
	diag "matrix | $CASE | - | refused=skipped | exit=- | reason=$1 | bytes_changed=-"
	case_end
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# ---- 0: the form of the synthetic serials ----
case_begin 0-serial-form "loop:/file:MAJ:MIN:INO:SEC.NSEC, @OFFSET"
# birth_of FILE -> SEC.NSEC (statx btime, as stat(1) shows it)
birth_of() {
	local s w
	s=$(stat -c %W "$1") && w=$(stat -c %w "$1") || return 1
	w=${w#*.}
	echo "$s.${w%% *}"
}
f=$(img form.img 32)
read -r maj min ino < <(stat -c '%Hd %Ld %i' "$f")
bt=$(birth_of "$f")
if [ "${bt%%.*}" = 0 ] || [ -z "$bt" ]; then
	skip 3 "$TMPDIR has no birth times"
else
	# (:gGENERATION where the file system keeps an inode generation)
	like "$(serial_json "$f")" "^file:$maj:$min:$ino:${bt/./\\.}(:g[0-9]+)?\$" \
		"a file: file:MAJ:MIN:INO:SEC.NSEC (birth time, 9 digits)"
	newloop "$f" || bail_out "cannot attach a loop device"
	like "$(serial_json "$LOOPDEV")" "^loop:$maj:$min:$ino:${bt/./\\.}(:g[0-9]+)?\$" \
		"a loop device: loop:MAJ:MIN:INO:SEC.NSEC of its backing file"
	newloop "$f" -o 1048576 || bail_out "cannot attach a loop device"
	like "$(serial_json "$LOOPDEV")" "^loop:$maj:$min:$ino:${bt/./\\.}(:g[0-9]+)?@1048576\$" \
		"a loop at an offset: @OFFSET appended"
fi
case_end

# ---- 1: identity ----
case_begin 1a-wrong-serial "a free loop, a serial that is nobody's"
newloop "$(img w1.img)" || bail_out "cannot attach a loop device"
L=$LOOPDEV
watch "$L"
watch "$W/w1.img"
refused3 "$L" "NOT-THIS-DRIVE-0000" "not the drive the plan names"
same_refusal
case_end

case_begin 1b-other-drive-serial "a free loop named by another loop's serial"
newloop "$(img o1.img)" || bail_out "cannot attach a loop device"
L=$LOOPDEV
newloop "$(img o2.img)" || bail_out "cannot attach a loop device"
so=$(serial_json "$LOOPDEV")
like "$so" '^loop:' "$CASE: the other loop is named $so"
watch "$L"
watch "$W/o1.img"
watch "$LOOPDEV"
refused3 "$L" "$so" "not the drive the plan names"
same_refusal
case_end

case_begin 1c-empty-serial "--serial '' / serial = (empty)"
newloop "$(img e1.img)" || bail_out "cannot attach a loop device"
L=$LOOPDEV
watch "$L"
nonzero dry-run "$L" ""
nonzero run "$L" ""
nonzero start "$L" ""
case_end

case_begin 1d-file-other-serial "a file named by another file's serial"
f=$(img f1.img)
so=$(serial_json "$(img f2.img)")
watch "$f"
watch "$W/f2.img"
refused3 "$f" "$so" "not the drive the plan names"
same_refusal
case_end

# ---- 2: mounted ----
for mode in rw ro; do
	case_begin "2-mounted-$mode" "mkfs.ext4 on a loop, mounted $mode"
	newloop "$(img "m$mode.img")" || bail_out "cannot attach a loop device"
	L=$LOOPDEV
	mkext4 "$L"
	if ! domount "$L" "$W/mnt/$mode" "$mode"; then
		case_skip "cannot mount ext4 here"
		continue
	fi
	s=$(serial_json "$L")
	watch "$L"
	watch "$W/m$mode.img"
	FSCK_DEV=$L
	refused3 "$L" "$s" "is mounted at $W/mnt/$mode"
	same_refusal
	drives_inuse "$L" "is mounted at $W/mnt/$mode"
	case_end
done

# ---- 3: partitions ----
case_begin 3a-partition-mounted "a partition mounted, the whole loop targeted"
newloop "$(img p.img)" -P || bail_out "cannot attach a loop device"
P=$LOOPDEV
if ! addpart1 "$P" 83; then
	case_skip "cannot make a partition on a loop device"
else
	mkext4 "$PART"
	if ! domount "$PART" "$W/mnt/part"; then
		case_skip "cannot mount ext4 here"
	else
		s=$(serial_json "$P")
		watch "$P"
		watch "$W/p.img"
		FSCK_DEV=$PART
		refused3 "$P" "$s" "is mounted at $W/mnt/part"
		same_refusal
		drives_inuse "$P" "is mounted at $W/mnt/part"

		# the same set-up, the partition itself as target
		CASE=3b-partition-target
		diag "---- $CASE: a partition as target: plateau takes whole drives"
		refused3 "$PART" "$s" "partition"
		same_refusal
		case_end
	fi
fi

# ---- 4: swap ----
case_begin 4a-swap-whole "swap on the whole loop"
newloop "$(img sw.img)" || bail_out "cannot attach a loop device"
L=$LOOPDEV
mkswap -q "$L" 64 >/dev/null 2>&1
if ! doswapon "$L"; then
	case_skip "swapon does not work here"
else
	s=$(serial_json "$L")
	watch "$L" 1
	watch "$W/sw.img" 1
	refused3 "$L" "$s" "swap"
	same_refusal
	drives_inuse "$L" "swap"
	case_end
fi

case_begin 4b-swap-partition "swap on a partition, the whole loop targeted"
newloop "$(img swp.img)" -P || bail_out "cannot attach a loop device"
P=$LOOPDEV
if ! addpart1 "$P" 82; then
	case_skip "cannot make a partition on a loop device"
else
	mkswap -q "$PART" 64 >/dev/null 2>&1
	if ! doswapon "$PART"; then
		case_skip "swapon does not work here"
	else
		s=$(serial_json "$P")
		watch "$P" 2
		watch "$W/swp.img" 2
		refused3 "$P" "$s" "swap"
		same_refusal
		drives_inuse "$P" "swap"
		case_end
	fi
fi

# a small ext4 of our own, for a swap file and for inode reuse
SCRATCH_MARK=${#UNDO[@]}
FS=
newloop "$(mkfile scratch.img 64M)" && mkext4 "$LOOPDEV" && domount "$LOOPDEV" "$W/mnt/scratch" && FS=$W/mnt/scratch

case_begin 4c-swap-file "a swap file, as a file target"
if [ -z "$FS" ]; then
	case_skip "no ext4 scratch file system"
else
	sf=$FS/swapfile
	dd if=/dev/urandom of="$sf" bs=1M count=16 status=none && chmod 600 "$sf" && mkswap -q "$sf" 64 >/dev/null 2>&1
	if ! doswapon "$sf"; then
		case_skip "swapon of a file does not work here"
	else
		s=$(serial_json "$sf")
		watch "$sf" 1
		refused3 "$sf" "$s" "swap"
		same_refusal
		drives_inuse "$sf" "swap"
		case_end
	fi
fi

# ---- 5: loops on loops ----
case_begin 5a-loop-on-loop "A on B, A mounted, B targeted"
newloop "$(img b.img)" || bail_out "cannot attach a loop device"
LB=$LOOPDEV
newloop "$LB" || bail_out "cannot attach a loop device on $LB"
LA=$LOOPDEV
mkext4 "$LA"
if ! domount "$LA" "$W/mnt/a"; then
	case_skip "cannot mount ext4 here"
else
	s=$(serial_json "$LB")
	watch "$LB"
	watch "$W/b.img"
	FSCK_DEV=$LA
	refused3 "$LB" "$s" "backs loop"
	same_refusal
	drives_inuse "$LB" "backs loop"
	case_end
fi

case_begin 5b-three-deep "C on A on B, C mounted, B targeted"
newloop "$(img b3.img)" || bail_out "cannot attach a loop device"
LB=$LOOPDEV
newloop "$LB" || bail_out "cannot attach a loop device on $LB"
LA=$LOOPDEV
newloop "$LA" || bail_out "cannot attach a loop device on $LA"
LC=$LOOPDEV
mkext4 "$LC"
if ! domount "$LC" "$W/mnt/c"; then
	case_skip "cannot mount ext4 here"
else
	s=$(serial_json "$LB")
	watch "$LB"
	watch "$W/b3.img"
	FSCK_DEV=$LC
	refused3 "$LB" "$s" "backs loop"
	same_refusal
	drives_inuse "$LB" "backs loop"

	CASE=5c-three-deep-middle
	diag "---- $CASE: C on A on B, C mounted, A targeted"
	s=$(serial_json "$LA")
	refused3 "$LA" "$s" "backs loop"
	same_refusal
	drives_inuse "$LA" "backs loop"
	case_end
fi

# ---- 6: backing files ----
case_begin 6a-unlinked-backing "a mounted loop's backing file unlinked, its hard link targeted"
f=$(img f6.img)
ln "$f" "$W/g6.img"
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
mkext4 "$L"
if ! domount "$L" "$W/mnt/f6"; then
	case_skip "cannot mount ext4 here"
else
	rm -f "$f"
	s=$(serial_json "$W/g6.img")
	watch "$W/g6.img"
	watch "$L"
	FSCK_DEV=$L
	refused3 "$W/g6.img" "$s" "the file backs loop"
	same_refusal
	drives_inuse "$W/g6.img" "the file backs loop"
	case_end
fi

case_begin 6b-hardlink-backing "a loop's backing file reached through a hard link"
f=$(img f6b.img)
ln "$f" "$W/g6b.img"
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s=$(serial_json "$W/g6b.img")
watch "$W/g6b.img"
refused3 "$W/g6b.img" "$s" "the file backs loop"
same_refusal
drives_inuse "$W/g6b.img" "the file backs loop"
case_end

case_begin 6c-unlinked-loop "a free loop whose backing file is unlinked, named as plateau drives names it"
# plateau(1), SAFETY: its birth time cannot be read, so it is never written
f=$(img f6c.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
rm -f "$f"
s=$(serial_json "$L")
diag "plateau drives names it ${s:-(nothing)}"
watch "$L"
refused3 "$L" "$s" "birth time"
same_refusal
case_end

# ---- 7: inode reuse ----
case_begin 7-inode-reuse "the old serial of a deleted file, on a new file with its inode number"
if [ -z "$FS" ]; then
	case_skip "no ext4 scratch file system"
else
	mkdir -p "$FS/reuse"
	old=$FS/reuse/old.img
	head -c 16M /dev/urandom >"$old"
	s_old=$(serial_json "$old")
	ino=$(stat -c %i "$old")
	rm -f "$old"
	new=
	for i in $(seq 1 64); do
		: >"$FS/reuse/new$i.img"
		if [ "$(stat -c %i "$FS/reuse/new$i.img")" = "$ino" ]; then
			new=$FS/reuse/new$i.img
			break
		fi
	done
	if [ -z "$new" ]; then
		case_skip "inode $ino was not reused in 64 files"
	else
		head -c 16M /dev/urandom >"$new"
		diag "old serial $s_old, the new file (inode $ino) is $(serial_json "$new")"
		watch "$new"
		refused3 "$new" "$s_old" "not the drive the plan names"
		same_refusal
		case_end
	fi
fi

# ---- 8: old-form serials ----
case_begin 8a-old-serial-loop "loop:MAJ:MIN:INO (no birth time)"
f=$(img old8.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s="loop:$(stat -c '%Hd:%Ld:%i' "$f")"
watch "$L"
watch "$f"
refused3 "$L" "$s" "re-read the serial"
same_refusal
case_end

case_begin 8b-old-serial-file "file:MAJ:MIN:INO (no birth time)"
f=$(img old8f.img)
s="file:$(stat -c '%Hd:%Ld:%i' "$f")"
watch "$f"
refused3 "$f" "$s" "re-read the serial"
same_refusal
case_end

# ---- 9: locks between plateau processes ----
# bg_run TARGET SERIAL: plateau run writing the first half for up to 2 min -> $BG
bg_run() {
	: >"$W/bg.out"
	"$PLATEAU" --db "$RDB" run --target "$1" --serial "$2" --profile 4k-randwrite --threads 1 \
		--iodepth 4 --duration 120s --interval 1s --footprint 50% >"$W/bg.out" 2>"$W/bg.err" &
	BG=$!
	track "$BG"
	undo_push "kill_wait -TERM $BG"
	wait_for 30 "plateau run (pid $BG) to write its first sample" _bg_sampled
	kill -0 "$BG" 2>/dev/null && grep -q 'round' "$W/bg.out"
}
# a sample written, or the process gone (refused)
_bg_sampled() { grep -q 'round' "$W/bg.out" || ! kill -0 "$BG" 2>/dev/null; }

case_begin 9a-lock-plateau-run "plateau run writing a loop; the same loop again"
f=$(img lk.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s=$(serial_json "$L")
if ! bg_run "$L" "$s"; then
	case_skip "plateau run does not write in the background: $(head -c 300 "$W/bg.err")"
else
	# the second half is not the first run's: it must not change
	watch "$L" 16
	watch "$f" 16
	refused3 "$L" "$s" "locked by pid $BG"
	diag "plateau drives while plateau run holds it: $(drives_info "$L" | cut -f1,2)"
	ok "$(kill -0 "$BG" 2>/dev/null && echo 0 || echo 1)" "$CASE: the first plateau run goes on"
	case_end
fi

case_begin 9b-two-loops-one-file "two loops over one file, the first written, the second targeted"
# plateau(1), SAFETY: for a loop target another loop over the same file is a
# reason of its own, so the first loop may be refused already; if it is
# written, its lock must keep the second one out
f=$(img two.img)
newloop "$f" || bail_out "cannot attach a loop device"
L1=$LOOPDEV
newloop "$f" || bail_out "cannot attach a second loop device"
L2=$LOOPDEV
s=$(serial_json "$L2")
if bg_run "$L1" "$(serial_json "$L1")"; then
	diag "the first loop ($L1) is written by plateau run, pid $BG"
	watch "$L2" 16
	watch "$f" 16
	refused3 "$L2" "$s" "locked by pid $BG"
else
	diag "the first loop ($L1) is refused: $(head -c 300 "$W/bg.err")"
	watch "$L1"
	watch "$L2"
	watch "$f"
	is "$(wait "$BG"; echo $?)" 6 "$CASE: plateau run on the first loop $L1 is refused (exit 6)"
	has "$(cat "$W/bg.err")" "backs $(basename "$L2")" "$CASE: ... because the file backs the other loop $(basename "$L2")"
	refused3 "$L2" "$s" "backs $(basename "$L1")"
fi
same_refusal
case_end

case_begin 9c-lock-plateaud "plateaud writing a loop; plateau run, the dry run and start on it"
f=$(img lkd.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s=$(serial_json "$L")
write_plan "$W/hold.plan" "$L" "$s" "footprint = 50%" 120s
out=$(pctl start "$W/hold.plan" 2>&1)
if ! [[ $out =~ run\ ([0-9]+)\ started ]]; then
	case_skip "plateaud does not start the holding run: $out"
else
	hold=${BASH_REMATCH[1]}
	undo_push "pctl stop $hold; timeout 30 $PLATEAU --db $DB wait $hold --timeout 20s"
	wait_for 30 "run $hold to write its first sample" has_samples "$hold" 1
	watch "$L" 16
	watch "$f" 16
	REFUSAL=()
	refused dry-run "$L" "$s" "locked by pid $DPID"
	refused run "$L" "$s" "locked by pid $DPID"
	refused start "$L" "$s" "~locked by pid|run $hold"
	is "$(run_state "$hold")" preconditioning "$CASE: the holding run $hold goes on"
	case_end
fi

case_begin 9d-lock-hard-link "plateau run writing a file; the same file through a hard link"
f=$(img hl.img)
ln "$f" "$W/hl-link.img"
if ! bg_run "$f" "$(serial_json "$f")"; then
	case_skip "plateau run does not write in the background: $(head -c 300 "$W/bg.err")"
else
	s=$(serial_json "$W/hl-link.img")
	watch "$W/hl-link.img" 16
	refused3 "$W/hl-link.img" "$s" "locked by pid $BG"
	ok "$(kill -0 "$BG" 2>/dev/null && echo 0 || echo 1)" "$CASE: the first plateau run goes on"
	case_end
fi

# ---- 10: an O_EXCL holder ----
case_begin 10-o-excl-holder "another process holds the loop open with O_EXCL"
f=$(img ex.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s=$(serial_json "$L")
"$PY" -c 'import os,sys,time; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print("held", flush=True); time.sleep(600)' \
	"$L" >"$W/holder.out" 2>&1 &
H=$!
track "$H"
undo_push "kill_wait $H"
if ! wait_for 20 "the O_EXCL holder" grep -q held "$W/holder.out"; then
	case_skip "cannot hold $L with O_EXCL: $(cat "$W/holder.out")"
else
	watch "$L"
	watch "$f"
	refused3 "$L" "$s" "O_EXCL"
	same_refusal
	diag "plateau drives while held O_EXCL: $(drives_info "$L" | cut -f1,2)"
	case_end
fi

# ---- 12: the race between check and use ----
case_begin 12-check-use-race "a symlink swapped between the gate's check and the writes"
# guard-tool hold opens the gate on LINK (-> A), says "open SERIAL", waits for
# a line; meanwhile LINK is pointed at B; then it writes 1 MiB through the
# gate's descriptor: A gets the writes, B (named by nobody) is unchanged
GT=$HELPERS/guard-tool
if [ ! -x "$GT" ]; then
	case_skip "$GT not built (make tests)"
else
	newloop "$(img race-a.img)" || bail_out "cannot attach a loop device"
	LA=$LOOPDEV
	newloop "$(img race-b.img)" || bail_out "cannot attach a loop device"
	LB=$LOOPDEV
	sa=$(serial_json "$LA")
	ln -sfn "$LA" "$W/race-link"
	mkfifo "$W/race.in"
	"$GT" hold "$W/race-link" "$sa" <"$W/race.in" >"$W/race.out" 2>&1 &
	RACE=$!
	track "$RACE"
	undo_push "kill_wait $RACE"
	exec {racefd}>"$W/race.in"
	undo_push "exec {racefd}>&-"
	watch "$LB"
	watch "$W/race-b.img"
	_read "$LA" 0 "$SNAP/race-a.before"
	if ! wait_for 20 "guard-tool to open the gate" grep -q '^open \|^refused' "$W/race.out"; then
		case_skip "guard-tool hold does not open: $(cat "$W/race.out")"
	else
		is "$(head -n 1 "$W/race.out")" "open $sa" "$CASE: the gate opened $LA as $sa"
		ln -sfn "$LB" "$W/race-link"
		echo go >&"$racefd"
		wait_for 30 "guard-tool to write and recheck" grep -q '^recheck' "$W/race.out"
		wait "$RACE"
		RC=$?
		RUNS_ADDED=0
		ERR=
		measure
		diag "matrix | $CASE | guard-tool | refused=no | exit=$RC | reason=- | bytes_changed=$CHANGED"
		is "$CHANGED" 0 "$CASE: $LB, swapped in after the check, is unchanged" || diag "  $CHDETAIL"
		has "$(cat "$W/race.out")" "wrote 1048576 bytes" "$CASE: 1 MiB written"
		has "$(cat "$W/race.out")" "recheck ok" "$CASE: the recheck through the descriptor: still $sa"
		_read "$LA" 0 "$SNAP/race-a.after"
		n=$(count_diff "$SNAP/race-a.before" "$SNAP/race-a.after")
		ok "$([ "$n" -gt 0 ] && echo 0 || echo 1)" "$CASE: the writes went to $LA, the drive the gate checked ($n bytes changed)"
		case_end
	fi
fi

# ---- 11: control ----
case_begin 11a-control-loop "a free loop, rightly named: written"
f=$(img ctl.img)
newloop "$f" || bail_out "cannot attach a loop device"
L=$LOOPDEV
s=$(serial_json "$L")
is "$(drives_info "$L" | cut -f1)" false "$CASE: plateau drives: not in use"
watch "$L"
watch "$f"
written dry-run "$L" "$s"
written run "$L" "$s"
written start "$L" "$s"
case_end

case_begin 11b-control-file "a free file, rightly named: written"
f=$(img ctlf.img)
s=$(serial_json "$f")
watch "$f"
written dry-run "$f" "$s"
written run "$f" "$s"
written start "$f" "$s"
case_end

undo_to "$SCRATCH_MARK"
is "$(sql 'PRAGMA integrity_check;')" ok "the daemon's database: integrity_check = ok"
daemon_term 10
is "${DSTATUS:-}" 0 "plateaud exits 0"
done_testing
