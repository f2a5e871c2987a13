#!/bin/sh
# demo.sh BUILD_DIR: a real short run through the daemon (`make demo`).
# As root: a loop device (direct I/O) over a sparse file; otherwise the file
# itself.  1 s samples: erase, fill, precondition until steady state, a small
# sweep; then `plateau show` and the curve.  The database stays in BUILD/demo;
# as root, the loop's file goes to /dev/shm when it has room, so that the database's
# commits do not flush a journal on the disk being measured (the run warns
# with a store-shares-disk event when they share one).
set -eu
B=$1
D="$B/demo"
P="$B/plateau --db $D/plateau.db --socket $D/control.sock"
mkdir -p "$D"
rm -f "$D/plateau.db" "$D/plateau.db-wal" "$D/plateau.db-shm" "$D/control.sock" "$D/disk.img"
img_dir=$D
# only under a loop device: tmpfs itself takes no O_DIRECT
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null && [ -d /dev/shm ] && [ -w /dev/shm ] &&
	[ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt 1572864 ] 2>/dev/null; then
	img_dir=$(mktemp -d /dev/shm/plateau-demo.XXXXXX)
fi

loop=""
daemon=""
cleanup() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	[ "$img_dir" != "$D" ] && rm -rf "$img_dir"
	true
}
trap cleanup EXIT INT TERM

truncate -s 1G "$img_dir/disk.img"
target="$img_dir/disk.img"
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null; then
	if loop=$(losetup --direct-io=on --show -f "$img_dir/disk.img" 2>/dev/null); then
		target=$loop
		# 256 request slots instead of 128 (docs/performance.md)
		echo mq-deadline >"/sys/block/${loop#/dev/}/queue/scheduler" 2>/dev/null || true
	else
		loop=""
	fi
fi
serial=$($B/plateau drives "$target" --csv | awk -F, 'NR == 2 { print $4 }')
echo "demo target: $target (serial $serial)"

cat >"$D/demo.plan" <<PLAN
# written by make demo
[run]
device = $target
serial = $serial
name = demo
interval = 1s

[erase]
method = auto

[fill]
passes = 1
bs = 128k
iodepth = 16

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 16
steady = snia
max_rounds = 40

[sweep]
points = 1x1 1x8 2x16 4x16
time = 3s
ramp = 1s
PLAN

# plateaud takes a regular file as a target only beneath file_targets
printf '[daemon]\nfile_targets = %s\n' "$img_dir" >"$D/plateaud.conf"
chmod 0644 "$D/plateaud.conf"
$B/plateaud --db "$D/plateau.db" --socket "$D/control.sock" --config "$D/plateaud.conf" \
	2>"$D/plateaud.log" &
daemon=$!
i=0
while [ ! -S "$D/control.sock" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
$P start "$D/demo.plan"
run=$($P runs --csv | awk -F, 'END { print $1 }')
$P wait "$run" --for done --timeout 110s || { cat "$D/plateaud.log"; exit 1; }
echo
$P show "$run"
echo
if $P help plot >/dev/null 2>&1; then
	$P plot "$run" --width "${COLUMNS:-100}"
else
	$P samples "$run" --metric iops,lat,p99
fi
echo
echo "The run is in $D/plateau.db: try  $B/plateau --db $D/plateau.db steady $run --json"
