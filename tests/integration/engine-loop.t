#!/bin/bash
# SPDX-License-Identifier: MIT
# lib/engine on loop devices (root): footprint and alignment read back from
# the device, rwmix and bssplit, fills written exactly N times, resume,
# samples adding up, O_EXCL, an I/O error mid-run (a loop device over a
# file on a tmpfs that fills up), and bad parameters refused before any I/O.
set -u

B=${PLATEAU_BUILD:-build}
RUN=$B/tests/helpers/engine-run
VERIFY=$B/tests/helpers/engine-verify
n=0
failed=0

ok() { # ok COND-STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
diag() { echo "# $*"; }
# field NAME: a value from engine-run's "result {...}" line on stdin
field() { sed -n -e "s/^result .*\"$1\": \"\([^\"]*\)\".*/\1/p" -e t \
	-e "s/^result .*\"$1\": \([^,}]*\).*/\1/p"; }

[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root for loop devices"; exit 0; }
command -v losetup >/dev/null || { echo "1..0 # SKIP no losetup"; exit 0; }
[ -x "$RUN" ] && [ -x "$VERIFY" ] || { echo "1..0 # SKIP helpers not built in $B"; exit 0; }

tmp=$(mktemp -d /dev/shm/plateau-engine-t.XXXXXX)
small=$tmp/small
loops=()
cleanup() {
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	mountpoint -q "$small" && umount "$small"
	rm -rf "$tmp"
}
trap cleanup EXIT

mkloop() { # mkloop FILE: the device in $loop (not a subshell, so cleanup sees it)
	loop=$(losetup --direct-io=on -f --show "$1") || return 1
	loops+=("$loop")
}

truncate -s 64M "$tmp/a.img"
mkloop "$tmp/a.img" || { echo "1..0 # SKIP cannot set up a loop device"; exit 0; }
dev=$loop
diag "loop device $dev over $tmp/a.img"

# --- random writes: footprint, alignment, sizes, samples -----------------
out=$("$RUN" --target "$dev" --rw randwrite --bssplit 4k/25:8k/25:64k/50 --threads 2 \
	--iodepth 8 --offset 4m --size 16m --duration 1s --interval 100ms 2>&1)
rc=$?
ios=$(echo "$out" | field ios)
ok $((rc != 0 || ios < 1000)) "random writes on $dev ($ios I/Os, rc $rc)"
ok $(($(echo "$out" | field sample_ios) != ios)) "samples add up to the total"
ok $(($(echo "$out" | grep -c '^sample ') < 9)) "about one sample per 100 ms"
v=$("$VERIFY" --target "$dev" --offset 4m --size 16m --sizes 4k,8k,64k --outside-zero)
ok $? "read back: every write inside the footprint, aligned, sized as asked ($v)"
stamped=$(echo "$v" | sed -n 's/.*stamped=\([0-9]*\).*/\1/p')
ok $((stamped < 1000)) "read back found the writes ($stamped stamped blocks)"
bs=$(echo "$out" | field bs_ios)
awk -v bs="$bs" -v n="$ios" 'BEGIN {
	split(bs, e, ","); split("0.25 0.25 0.5", p, " ")
	for (i = 1; i <= 3; i++) { split(e[i], kv, ":"); sd = sqrt(n * p[i] * (1 - p[i]))
		d = kv[2] - n * p[i]; if (d < 0) d = -d; if (d > 5 * sd + 1) exit 1 }
	exit 0 }'
ok $? "bssplit 25/25/50 within 5 sigma ($bs)"

# --- rwmix ------------------------------------------------------------------
out=$("$RUN" --target "$dev" --rw randrw --rwmix 70 --bs 4k --threads 1 --iodepth 16 \
	--duration 1s --interval 100ms 2>&1)
rd=$(echo "$out" | field read_ios)
ios=$(echo "$out" | field ios)
awk -v r="$rd" -v n="$ios" 'BEGIN { sd = sqrt(n * 0.21); d = r - 0.7 * n; if (d < 0) d = -d
	exit !(n > 1000 && d <= 5 * sd + 1) }'
ok $? "rwmix 70: $rd reads of $ios I/Os"

# --- fill: every block exactly N times, then resume ------------------------
dd if=/dev/zero of="$dev" bs=1M count=64 oflag=direct status=none
out=$("$RUN" --target "$dev" --profile 128k-seqwrite --threads 2 --iodepth 4 --fill-passes 2 \
	--offset 1m --size 20m --interval 100ms 2>&1)
ok $? "fill of 2 passes over 20 MiB"
ok $(($(echo "$out" | field stream_bytes) != 2 * 20 * 1048576)) \
	"low-water mark at the end is 2 x footprint"
[ "$(echo "$out" | field stop)" = done ]
ok $? "stop reason: done"
ok $(($(echo "$out" | field bytes) != 2 * 20 * 1048576)) "wrote exactly 2 x footprint"
v=$("$VERIFY" --target "$dev" --offset 1m --size 20m --pass 2 --all-stamped --outside-zero \
	--sizes 128k)
ok $? "read back: every block of the footprint carries pass 2, nothing outside ($v)"

dd if=/dev/zero of="$dev" bs=1M count=64 oflag=direct status=none
out=$("$RUN" --target "$dev" --profile 128k-seqwrite --threads 2 --iodepth 4 --fill-passes 2 \
	--size 16m --bytes 20m --interval 100ms 2>&1)
lw=$(echo "$out" | field stream_bytes)
[ "$(echo "$out" | field stop)" = bytes ] && [ "$lw" -eq $((20 * 1048576)) ]
ok $? "fill interrupted after 20 MiB: low-water mark $lw"
out=$("$RUN" --target "$dev" --profile 128k-seqwrite --threads 2 --iodepth 4 --fill-passes 2 \
	--size 16m --resume "$lw" --interval 100ms 2>&1)
[ "$(echo "$out" | field stop)" = done ] &&
	[ "$(echo "$out" | field bytes)" -eq $((32 * 1048576 - lw)) ]
ok $? "resumed fill wrote the remaining $(echo "$out" | field bytes) bytes"
v=$("$VERIFY" --target "$dev" --offset 0 --size 16m --pass 2 --all-stamped --outside-zero)
ok $? "read back after resume: all blocks carry pass 2 ($v)"

# --- O_EXCL: a second engine on a busy device is refused ---------------------
"$RUN" --target "$dev" --profile 4k-randread --duration 2s --quiet >/dev/null 2>&1 &
bg=$!
sleep 0.5
err=$("$RUN" --target "$dev" --profile 4k-randread --duration 1s --quiet 2>&1 >/dev/null)
rc=$?
wait $bg
[ $rc -eq 2 ] && echo "$err" | grep -q "O_EXCL: Device or resource busy"
ok $? "a busy device is refused before any I/O: $err"

# --- bad parameters: clear error, nothing written -----------------------------
dd if=/dev/zero of="$dev" bs=1M count=64 oflag=direct status=none
check_bad() { # check_bad NEEDLE ARGS...
	local needle=$1 err rc
	shift
	err=$("$RUN" --target "$dev" "$@" --duration 1s 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && echo "$err" | grep -q -- "$needle"
	ok $? "refused ($*): $err"
}
check_bad "past the end" --profile 4k-randwrite --offset 60m --size 8m
check_bad "iodepth 0" --profile 4k-randwrite --iodepth 0
check_bad "sum to 90" --profile 4k-randwrite --bssplit 4k/50:8k/40
check_bad "not a multiple of the logical block size" --profile 4k-randwrite --bs 6k --lba 4k
check_bad "unknown profile" --profile 4k-randwirte
cmp -s -n $((64 * 1048576)) "$dev" /dev/zero
ok $? "the device is still all zero"

# --- an I/O error mid-run: the loop's backing file outgrows its tmpfs -----------
mkdir -p "$small"
# (losetup -d under a run does not do it: with the device open it only sets
# autoclear, and the loop goes away after the engine closes it.)
if mount -t tmpfs -o size=48m plateau-engine-t "$small"; then
	truncate -s 256M "$small/b.img"
	mkloop "$small/b.img"
	edev=$loop
	out=$("$RUN" --target "$edev" --profile 4k-randwrite --iodepth 8 --duration 20s \
		--interval 100ms 2>&1)
	rc=$?
	ios=$(echo "$out" | field ios)
	errno=$(echo "$out" | field first_errno)
	elapsed=$(echo "$out" | field elapsed_s)
	diag "$(echo "$out" | grep '^result')"
	ok $((rc != 1)) "the run ends with exit 1 on the I/O error"
	[ "$(echo "$out" | field stop)" = error ] && [ "$errno" -gt 0 ] &&
		[ "$(echo "$out" | field errors)" -ge 1 ]
	ok $? "reported: stop error, errno $errno, $(echo "$out" | field errors) errors"
	awk -v e="$elapsed" 'BEGIN { exit !(e < 15) }'
	ok $? "ended early (after $elapsed s of 20)"
	# how many samples depends on how fast the 48 MiB fill up (under one
	# 100 ms interval on a quick machine): at least the partial one
	ok $((ios < 1000 || $(echo "$out" | grep -c '^sample ') < 1)) \
		"what was measured is kept ($ios I/Os, $(echo "$out" | grep -c '^sample ') samples)"
	ok $(($(echo "$out" | field sample_ios) != ios)) "the samples hold every I/O"
	echo "$out" | grep -q "engine-run: write at offset"
	ok $? "the message names the write and its offset"
else
	for i in 1 2 3 4 5 6; do
		n=$((n + 1))
		echo "ok $n # skip cannot mount a tmpfs"
	done
fi

echo "1..$n"
[ $failed -eq 0 ]
