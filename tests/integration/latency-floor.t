#!/bin/bash
# SPDX-License-Identifier: MIT
#
# latency-floor.t: no I/O is recorded with a latency below what a device can
# do.  The completion loop reads the clock once per batch; a loop that kept
# reaping completions that arrived after that read (an I/O re-issued and
# submitted inside the loop, stamped with the same time) recorded them as
# now - now = 0: 0.1-23 % of all I/Os at queue depth >= 16 on a loop device
# over tmpfs, and a stored minimum of 0 in every such run.  Through the
# product path (`plateau run`), at 1x32 and 2x16, reads and writes: every
# sample's minimum latency is at least 1 us.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

[ -d /dev/shm ] && [ -w /dev/shm ] || skip_all "no writable /dev/shm (tmpfs)"
img=$(mktemp /dev/shm/plateau-floor.XXXXXX) || bail_out "mktemp in /dev/shm failed"
at_cleanup "rm -f $img"
truncate -s 256M "$img"
LOOPDEV=$(losetup --direct-io=on -f --show "$img") || skip_all "no loop device"
_LOOPS+=("$LOOPDEV")
serial=$(serial_of "$LOOPDEV")

n=0
for load in "1 32 4k-randwrite" "2 16 4k-randwrite" "1 32 4k-randread"; do
	set -- $load
	n=$((n + 1))
	db=$W/floor-$n.db
	"$PLATEAU" --db "$db" run --yes --quiet --target "$LOOPDEV" --serial "$serial" \
		--profile "$3" --threads "$1" --iodepth "$2" --interval 500ms --duration 3s \
		>"$W/run-$n.out" 2>&1
	is "$?" 0 "$1x$2 $3: plateau run completes"
	got=$(sqlite3 "$db" "SELECT count(*) || ' ' || sum(a_ios) || ' ' || min(a_lat_min_ns)
		FROM samples WHERE a_ios > 0;")
	set -- $got
	ok "$([ "${1:-0}" -ge 4 ] && [ "${2:-0}" -gt 1000 ] && echo 0 || echo 1)" \
		"$load: $1 samples, $2 I/Os measured"
	ok "$([ "${3:-0}" -ge 1000 ] && echo 0 || echo 1)" \
		"$load: the smallest latency recorded is ${3:-?} ns, not below 1 us"
done

# === the database on the target's storage: warned, by device numbers ===
# a loop device stacked on a loop device over a file beside the database
truncate -s 64M "$W/stack.img"
L1=$(losetup --direct-io=on -f --show "$W/stack.img") || bail_out "no loop device"
_LOOPS+=("$L1")
L2=$(losetup --direct-io=on -f --show "$L1") || bail_out "no loop device"
_LOOPS+=("$L2")
s2=$(serial_of "$L2")
for where in beside apart; do
	if [ "$where" = beside ]; then db=$W/beside.db; else db=$(mktemp -u /dev/shm/plateau-apart.XXXXXX).db; fi
	[ "$where" = apart ] && at_cleanup "rm -f $db $db-wal $db-shm"
	out=$("$PLATEAU" --db "$db" run --yes --quiet --target "$L2" --serial "$s2" \
		--profile 4k-randwrite --threads 1 --iodepth 4 --interval 500ms --duration 1s 2>&1)
	is "$?" 0 "database $where the target's file: plateau run completes"
	n=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE kind = 'store-shares-disk';")
	if [ "$where" = beside ]; then
		is "$n" 1 "database beside the file under $L2 -> $L1: one store-shares-disk event"
		like "$out" "store-shares-disk: the database \\(on [^)]*\\) and the target share [^:]*: each sample's commit flushes" \
			"  and the operator is told why"
	else
		is "$n" 0 "database on another file system: no warning"
	fi
done

# === a read workload: its write variant by default, the reads on request ===
# the kernel's own counters of the loop device (/sys/block/loopN/stat:
# reads completed is field 1, writes completed field 5)
dev=${LOOPDEV#/dev/}
kstat() { awk '{ print $1, $5 }' "/sys/block/$dev/stat"; }
for mode in default none write; do
	args=()
	[ "$mode" = default ] || args=(--precondition-with "$mode")
	set -- $(kstat)
	r0=$1 w0=$2
	out=$("$PLATEAU" --db "$W/read-$mode.db" run --yes --quiet --target "$LOOPDEV" \
		--serial "$serial" --profile 4k-randread --threads 1 --iodepth 8 --interval 500ms \
		--duration 1s "${args[@]}" 2>&1)
	is "$?" 0 "4k-randread ($mode): plateau run completes"
	set -- $(kstat)
	reads=$(($1 - r0)) writes=$(($2 - w0))
	if [ "$mode" = none ]; then
		ok "$([ "$reads" -gt 1000 ] && [ "$writes" = 0 ] && echo 0 || echo 1)" \
			"4k-randread (none): the kernel counted $reads reads and $writes writes"
		like "$out" $'\nload 4k-randread\n' "4k-randread (none): the output names the load"
	else
		ok "$([ "$writes" -gt 1000 ] && [ "$reads" -lt 100 ] && echo 0 || echo 1)" \
			"4k-randread ($mode): preconditioned with writes ($writes writes, $reads reads)"
		like "$out" "load 4k-randread\\+write \\(the write variant of 4k-randread; --precondition-with none runs it as given\\)" \
			"4k-randread ($mode): the output says the writes are the write variant"
	fi
done
out=$("$PLATEAU" --db "$W/bad.db" run --target "$LOOPDEV" --serial "$serial" \
	--profile 4k-randread --duration 1s --precondition-with reads 2>&1)
is "$?" 2 "--precondition-with reads: exit 2"
like "$out" "expected write .* or none .*, not 'reads'" "--precondition-with reads: says what it takes"

done_testing
