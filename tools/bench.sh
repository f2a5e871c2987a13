#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make bench: `plateau run` (the product path: plan, runner, engine, sampler
# and the SQLite store, as the daemon runs them) against Debian's fio
# (ioengine=io_uring) on the same target, threads, depth and block size,
# interleaved A/B B/A, after docs/performance.md's protocol:
#
#  - before every run, wait until the machine is under BENCH_IDLE_PCT (10 %)
#    busy, measured over one second from /proc/stat;
#  - RAMP (2 s) excluded, RUNTIME (10 s) measured, BENCH_PAIRS (5) pairs.
#    plateau runs RAMP + RUNTIME seconds at a 1 s interval and its first
#    RAMP samples are left out; fio gets --ramp_time RAMP --runtime RUNTIME;
#  - plateau's figures come from the database the run wrote: IOPS is
#    sum(a_ios) / sum(end_ns - start_ns) over the measured samples, the mean
#    latency is the I/O-weighted mean of a_lat_mean_ns, the percentiles come
#    from the samples' histograms (r_hist, w_hist) merged, as lib/hist.c
#    computes them;
#  - latency agreement: plateau stamps an I/O before it is prepared and
#    submitted, so its latency is fio's lat (submission + completion), not
#    clat.  fio runs with --lat_percentiles=1 and --group_reporting, so its
#    JSON holds one job whose percentiles come from all threads' merged
#    histograms, as plateau's do; fio's clat mean is shown beside;
#  - IOPS min/median/max per engine and the median of the paired ratios;
#  - CPU seconds per million I/Os from WHOLE-MACHINE /proc/stat deltas (user
#    nice system irq softirq steal) over the run, divided by the run's I/Os
#    (IOPS x (ramp + runtime), the same formula for both engines), because
#    fio's own usr/sys leaves out io-wq workers and loop kernel threads;
#  - identical workloads: direct I/O, random offsets without a map aligned to
#    the block size, uniform over the whole target, incompressible data.
#    fio runs with its defaults otherwise (no fixedbufs/registerfiles; add
#    them with BENCH_FIO_OPTS); fio --thread is the comparison everywhere,
#    and the 16x16 cases also run fio's default one-process-per-job;
#  - the databases go to a small tmpfs the script mounts, so that the store
#    shares no file system with a target (the store-cost section measures
#    what sharing the disk costs).
#
# Extra sections (plateau only, interleaved pairs):
#  - sampling cost: --interval 100ms against --interval 10s, both
#    BENCH_SAMPLING_DURATION long, 4k randwrite 1x32 on loop-shm, IOPS over
#    the whole run (the same ramp in both) and CPU per I/O;
#  - store cost: a loop over a file in BENCH_DIR, the database on the tmpfs,
#    or beside the backing file with PLATEAU_DB_SYNC=full or normal; IOPS and
#    the worst per-sample maximum latency, at a 1 s interval.
#
# usage: sh tools/bench.sh BUILD_DIR
# env:   BENCH_PAIRS (5), BENCH_RUNTIME (10), BENCH_RAMP (2, whole seconds),
#        BENCH_SIZE_MB (1024), BENCH_TARGETS ("loop-shm zram loop-disk file"),
#        BENCH_CASES (see below), BENCH_DIR (/var/tmp: where the on-disk files
#        go), BENCH_IDLE_PCT (10), BENCH_IDLE_WAIT (120 s), BENCH_FIO_OPTS,
#        BENCH_ENGINE_ALONE (0; 1: also run tests/helpers/engine-run, the
#        engine without plan, runner or store, as an extra row),
#        BENCH_SAMPLING (1), BENCH_SAMPLING_PAIRS (BENCH_PAIRS),
#        BENCH_SAMPLING_DURATION (10),
#        BENCH_STORE (1), BENCH_STORE_PAIRS (BENCH_PAIRS),
#        BENCH_STORE_DURATION (10), BENCH_STORE_CASES ("randwrite:4k:1:1
#        randwrite:4k:2:16"), BENCH_OUT (also write the tables there)
set -u

B=${1:?usage: sh tools/bench.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PLATEAU=$B/plateau
RUN=$B/tests/helpers/engine-run
PAIRS=${BENCH_PAIRS:-5}
RUNTIME=${BENCH_RUNTIME:-10}
RAMP=${BENCH_RAMP:-2}
SIZE_MB=${BENCH_SIZE_MB:-1024}
TARGETS=${BENCH_TARGETS:-loop-shm zram loop-disk file}
# rw:bs:threads:depth
CASES=${BENCH_CASES:-randwrite:4k:1:1 randwrite:4k:1:32 randwrite:4k:16:16 randread:4k:1:32 write:128k:1:16}
DIR=${BENCH_DIR:-/var/tmp}
IDLE_PCT=${BENCH_IDLE_PCT:-10}
IDLE_WAIT=${BENCH_IDLE_WAIT:-120}
FIO_OPTS=${BENCH_FIO_OPTS:-}
ENGINE_ALONE=${BENCH_ENGINE_ALONE:-0}
SAMPLING=${BENCH_SAMPLING:-1}
SAMPLING_PAIRS=${BENCH_SAMPLING_PAIRS:-$PAIRS}
SAMPLING_DURATION=${BENCH_SAMPLING_DURATION:-10}
STORE=${BENCH_STORE:-1}
STORE_PAIRS=${BENCH_STORE_PAIRS:-$PAIRS}
STORE_DURATION=${BENCH_STORE_DURATION:-10}
STORE_CASES=${BENCH_STORE_CASES:-randwrite:4k:1:1 randwrite:4k:2:16}
OUT=${BENCH_OUT:-}

case $RAMP in
'' | *[!0-9]*)
	echo "bench: BENCH_RAMP=$RAMP: expected whole seconds" >&2
	exit 2
	;;
esac
if [ "$STORE_DURATION" -le "$RAMP" ]; then
	echo "bench: BENCH_STORE_DURATION=$STORE_DURATION: expected more than BENCH_RAMP ($RAMP)" >&2
	exit 2
fi

need=$PLATEAU
[ "$ENGINE_ALONE" = 1 ] && need="$need $RUN"
for f in $need; do
	[ -x "$f" ] || make -C "$SRC" --no-print-directory B="$B" "$f" >&2 || exit 1
done
command -v sqlite3 >/dev/null 2>&1 || {
	echo "bench: sqlite3 is needed to read plateau's database (apt-get install sqlite3)" >&2
	exit 1
}
HAVE_FIO=0
if command -v fio >/dev/null 2>&1; then
	if command -v jq >/dev/null 2>&1; then
		HAVE_FIO=1
	else
		echo "bench: jq is needed to read fio's JSON (apt-get install jq): plateau only" >&2
	fi
fi
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1

work=$(mktemp -d "${TMPDIR:-/tmp}/plateau-bench.XXXXXX") || exit 1
results=$work/results
tables=$work/tables
lat_rows=$work/lat
: >"$results"
: >"$tables"
loop_dev=
zram_id=
shm_file=
disk_file=
beside_db=
dbfs=
serial=
idle_timeouts=0

zram_remove() { # the device can stay busy for a moment after its last user
	zr_n=0
	while [ "$zr_n" -lt 20 ]; do
		zramctl --reset "/dev/zram$1" 2>/dev/null
		echo "$1" 2>/dev/null >/sys/class/zram-control/hot_remove && return 0
		[ -e "/sys/block/zram$1" ] || return 0 # removed despite the error
		sleep 0.25
		zr_n=$((zr_n + 1))
	done
	log "could not remove /dev/zram$1"
}

cleanup() {
	[ -n "$loop_dev" ] && losetup -d "$loop_dev" 2>/dev/null
	[ -n "$zram_id" ] && zram_remove "$zram_id"
	[ -n "$shm_file" ] && rm -f "$shm_file"
	[ -n "$disk_file" ] && rm -f "$disk_file"
	[ -n "$beside_db" ] && rm -f "$beside_db" "$beside_db-wal" "$beside_db-shm"
	[ -n "$dbfs" ] && umount "$dbfs" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "bench: $*" >&2; }

# The databases live on their own tmpfs: not the target's file system
# (loop-shm's backing file is on /dev/shm), not the root disk.
DBDIR=$work/db
mkdir -p "$DBDIR" || exit 1
if [ "$ROOT" = 1 ] && mount -t tmpfs -o size=256m,mode=0700 plateau-bench "$DBDIR"; then
	dbfs=$DBDIR
	DBWHERE="a tmpfs of its own"
else
	DBWHERE="$DBDIR (not root: no tmpfs of its own)"
	log "databases in $DBWHERE"
fi

# busy and idle jiffies of the whole machine
stat_cpu() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit }' /proc/stat; }

# (sh has no local variables: helpers use their own prefixes)
busy_pct_1s() {
	set -- $(stat_cpu)
	bp_b=$1 bp_i=$2
	sleep 1
	set -- $(stat_cpu)
	awk -v b="$(($1 - bp_b))" -v i="$(($2 - bp_i))" 'BEGIN { printf "%d", b + i ? 100 * b / (b + i) : 0 }'
}

wait_idle() {
	wi_n=0
	while [ "$wi_n" -lt "$IDLE_WAIT" ]; do
		[ "$(busy_pct_1s)" -lt "$IDLE_PCT" ] && return 0
		wi_n=$((wi_n + 1))
	done
	idle_timeouts=$((idle_timeouts + 1))
	log "machine still busy after ${IDLE_WAIT}s, running anyway"
}

# serial_of PATH: what `plateau drives` names it (plateau run writes to a
# block device only when told its serial)
serial_of() { "$PLATEAU" drives "$1" --json | sed -n 's/.*"serial":"\([^"]*\)".*/\1/p'; }

# db_stats DB SKIP: "iops mean p50 p99 p999 max" (latencies in ns) over the
# samples after the first SKIP of the run's measuring phase.  The histogram
# blobs are decoded as lib/hist.c encodes them (magic, version, varints:
# sub_bits max_bits count sum sumsq_hi sumsq_lo min max nonzero, then
# nonzero pairs of bucket-index delta and count), merged, and read as
# hist_percentile() reads them: the bucket's midpoint, clamped to [min, max].
db_stats() {
	sqlite3 -separator '|' "$1" "SELECT s.a_ios, s.a_lat_mean_ns, s.a_lat_max_ns,
		s.end_ns - s.start_ns, hex(s.r_hist), hex(s.w_hist) FROM samples s
		JOIN phases p ON p.id = s.phase_id WHERE p.kind = 'precondition' AND s.seq > $2;" |
		awk -F'|' '
	function hexbytes(hx,    n, i) {
		n = length(hx) / 2
		for (i = 1; i <= n; i++)
			by[i] = (index(HX, substr(hx, 2 * i - 1, 1)) - 1) * 16 + index(HX, substr(hx, 2 * i, 1)) - 1
		return n
	}
	function varint(    v, m, b) {
		v = 0; m = 1
		do { b = by[pos++]; v += (b % 128) * m; m *= 128 } while (b >= 128)
		return v
	}
	function decode(hx,    n, k, f, idx, d, c) {
		if (hx == "") return
		n = hexbytes(hx)
		pos = 5
		for (k = 1; k <= 9; k++) f[k] = varint()
		if (f[1] != 6 || f[2] != 36) { bad = 1; return }
		if (f[3] == 0) return
		if (f[7] < hmin) hmin = f[7]
		if (f[8] > hmax) hmax = f[8]
		idx = 0
		for (k = 0; k < f[9]; k++) { d = varint(); c = varint(); idx += d; bucket[idx] += c; hcount += c; idx++ }
		if (pos > n - 3) bad = 1
	}
	function bval(i,    g) {
		if (i < 128) return i
		g = int(i / 64)
		return (i - (g - 1) * 64) * 2 ^ (g - 1) + 2 ^ (g - 2)
	}
	function pct(p,    x, rank, seen, i, v) {
		x = hcount * p / 100
		rank = int(x + 0.5)
		if (x - rank > 1e-6) rank++
		if (rank < 1) rank = 1
		for (i = 0; i < 1984; i++) {
			seen += bucket[i]
			if (seen < rank) continue
			v = bval(i)
			return v < hmin ? hmin : v > hmax ? hmax : v
		}
		return hmax
	}
	BEGIN { HX = "0123456789ABCDEF"; hmin = 2 ^ 64 }
	{
		ios += $1; lat += $1 * $2; dur += $4
		if ($3 > max) max = $3
		decode($5); decode($6)
	}
	END {
		if (bad || !dur || !ios || hcount != ios) { print "0 0 0 0 0 0"; exit }
		printf "%.1f %.0f %.0f %.0f %.0f %.0f\n", ios * 1e9 / dur, lat / ios, pct(50), pct(99), pct(99.9), max
	}'
}

# plateau_run DB TARGET RW BS T Q INTERVAL SECONDS [OPTION...]: one `plateau run`
plateau_run() {
	pr_db=$1 pr_target=$2 pr_rw=$3 pr_bs=$4 pr_t=$5 pr_q=$6 pr_iv=$7 pr_s=$8
	shift 8
	rm -f "$pr_db" "$pr_db-wal" "$pr_db-shm"
	# shellcheck disable=SC2086
	"$PLATEAU" --db "$pr_db" run --yes --quiet --target "$pr_target" ${serial:+--serial "$serial"} \
		--rw "$pr_rw" --bssplit "$pr_bs" --threads "$pr_t" --iodepth "$pr_q" \
		--interval "$pr_iv" --duration "${pr_s}s" --precondition-with none "$@" >/dev/null 2>"$work/err" ||
		log "plateau run failed: $(tail -n 2 "$work/err" | tr '\n' ' ')"
}

# run_one ENGINE TARGET RW BS T Q: prints "iops busy_jiffies mean p50 p99
# p999 clat_mean" (latencies in ns; 0 where an engine has no such figure)
run_one() {
	engine=$1 target=$2 rw=$3 bs=$4 t=$5 q=$6
	set -- $(stat_cpu)
	b0=$1
	case $engine in
	plateau)
		plateau_run "$DBDIR/run.db" "$target" "$rw" "$bs" "$t" "$q" 1s $((RAMP + RUNTIME))
		set -- $(db_stats "$DBDIR/run.db" "$RAMP")
		stats="$1 $2 $3 $4 $5 0"
		rm -f "$DBDIR/run.db" "$DBDIR/run.db-wal" "$DBDIR/run.db-shm"
		;;
	engine)
		iops=$("$RUN" --target "$target" --rw "$rw" --bs "$bs" --threads "$t" --iodepth "$q" \
			--duration "${RUNTIME}s" --ramp "${RAMP}s" --interval 60s --quiet 2>/dev/null |
			sed -n 's/^result .*"iops": \([0-9.]*\).*/\1/p')
		stats="${iops:-0} 0 0 0 0 0"
		;;
	fio-thread | fio-proc)
		mode=--thread
		[ "$engine" = fio-proc ] && mode=
		rm -f "$work/fio.json"
		# shellcheck disable=SC2086
		fio --name=bench --filename="$target" --size="${SIZE_MB}M" --ioengine=io_uring \
			--direct=1 --rw="$rw" --bs="$bs" --numjobs="$t" --iodepth="$q" $mode \
			--norandommap --randrepeat=0 --time_based --runtime="$RUNTIME" \
			--ramp_time="$RAMP" --group_reporting --lat_percentiles=1 --clat_percentiles=0 \
			--percentile_list=50:99:99.9 $FIO_OPTS --output-format=json \
			--output="$work/fio.json" >/dev/null 2>&1
		stats=$(jq -r '.jobs[0] as $j | (if $j.write.iops > 0 then $j.write else $j.read end) as $d |
			"\($j.read.iops + $j.write.iops) \($d.lat_ns.mean) \($d.lat_ns.percentile["50.000000"])" +
			" \($d.lat_ns.percentile["99.000000"]) \($d.lat_ns.percentile["99.900000"]) \($d.clat_ns.mean)"' \
			"$work/fio.json" 2>/dev/null)
		[ -n "$stats" ] || stats="0 0 0 0 0 0"
		;;
	esac
	set -- $(stat_cpu) $stats
	echo "$3 $(($1 - b0)) $4 $5 $6 $7 $8"
}

# bench_case TARGETNAME DEVICE RW BS T Q [ENGINES]
bench_case() {
	name=$1 dev=$2 rw=$3 bs=$4 t=$5 q=$6
	engines=${7:-plateau fio-thread}
	label="$bs $rw ${t}x$q"
	rev=$(echo "$engines" | awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "") }')
	p=1
	while [ "$p" -le "$PAIRS" ]; do
		order=$engines
		[ $((p % 2)) -eq 0 ] && order=$rev
		for eng in $order; do
			wait_idle
			r=$(run_one "$eng" "$dev" "$rw" "$bs" "$t" "$q")
			log "$name $label pair $p $eng: $r"
			echo "$name|$label|$eng|$p|$r" >>"$results"
		done
		p=$((p + 1))
	done
}

AWK_STATS='
function med(a, n,    i, j, x, b) {
	for (i = 1; i <= n; i++) b[i] = a[i]
	for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j > 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
	return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
}
function mn(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
function mx(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
function k(x) { return sprintf("%.0fk", x / 1000) }
function us(x) { return x >= 100000 ? sprintf("%.0f", x / 1000) : sprintf("%.1f", x / 1000) }
'

# summarize NAME LABEL SHOWN: one IOPS row per comparison that ran, and its
# latency rows into $lat_rows
summarize() {
	awk -F'|' -v name="$1" -v label="$2" -v shown="$3" -v secs="$((RUNTIME + RAMP))" \
		-v latf="$lat_rows" "$AWK_STATS"'
	$1 == name && $2 == label {
		split($5, v, " ")
		iops[$3, $4] = v[1]
		# CPU seconds per million I/Os: whole-machine busy / I/Os of the run
		cpu[$3, $4] = v[1] > 0 ? (v[2] / hz) / (v[1] * secs / 1e6) : 0
		for (s = 1; s <= 5; s++) lat[$3, $4, s] = v[s + 2]
		seen[$3] = 1
		if ($4 > np) np = $4
	}
	END {
		for (p = 1; p <= np; p++) { a[p] = iops["plateau", p]; ca[p] = cpu["plateau", p] }
		pl = sprintf("%s (%s-%s)", k(med(a, np)), k(mn(a, np)), k(mx(a, np)))
		if (!("fio-thread" in seen) && !("fio-proc" in seen) && !("engine" in seen))
			printf "| %s | %s | - | - | %.2f | - | - |\n", shown, pl, med(ca, np)
		for (f = 1; f <= 3; f++) {
			fl = f == 1 ? "fio-thread" : f == 2 ? "fio-proc" : "engine"
			if (!(fl in seen)) continue
			for (p = 1; p <= np; p++) {
				b[p] = iops[fl, p]; cb[p] = cpu[fl, p]
				r[p] = b[p] > 0 ? a[p] / b[p] : 0
				cr[p] = cb[p] > 0 ? ca[p] / cb[p] : 0
			}
			printf "| %s | %s | %s %s (%s-%s) | **%.2f** (%.2f-%.2f) | %.2f | %.2f | %.2f |\n",
				shown, pl, f == 1 ? "fio --thread" : f == 2 ? "fio procs" : "engine alone",
				k(med(b, np)), k(mn(b, np)), k(mx(b, np)), med(r, np), mn(r, np), mx(r, np),
				med(ca, np), med(cb, np), med(cr, np)
			if (f == 3) continue
			# latency: plateau against fio lat, per statistic median of the pairs
			row = sprintf("| %s | %s |", shown, f == 1 ? "--thread" : "procs")
			pv = ""; fv = ""; rv = ""
			for (s = 1; s <= 4; s++) {
				for (p = 1; p <= np; p++) {
					x[p] = lat["plateau", p, s]; y[p] = lat[fl, p, s]
					r[p] = y[p] > 0 ? x[p] / y[p] : 0
				}
				pv = pv (s > 1 ? " / " : "") us(med(x, np))
				fv = fv (s > 1 ? " / " : "") us(med(y, np))
				rv = rv sprintf(" %s%.2f%s |", s == 1 ? "**" : "", med(r, np), s == 1 ? "**" : "")
			}
			for (p = 1; p <= np; p++) y[p] = lat[fl, p, 5]
			printf "%s %s | %s |%s %s |\n", row, pv, fv, rv, us(med(y, np)) >>latf
		}
	}' hz="$(getconf CLK_TCK)" "$results"
}

table_head() {
	{
		echo
		echo "#### $1"
		echo
		echo "| case | plateau run IOPS med (min-max) | against: IOPS med (min-max) | IOPS ratio plateau/other, median of pairs (min-max) | plateau CPU s / M I/O | other CPU s / M I/O | CPU ratio |"
		echo "|---|---|---|---|---|---|---|"
	} >>"$tables"
	: >"$lat_rows"
}

lat_table() {
	[ -s "$lat_rows" ] || return 0
	{
		echo
		echo "Latency, µs, median over the runs: plateau's (submission + completion) against fio's lat; ratios plateau/fio are medians of the pairs' ratios; fio's clat (completion only) for comparison:"
		echo
		echo "| case | fio | plateau mean / p50 / p99 / p99.9 | fio lat mean / p50 / p99 / p99.9 | ratio mean | p50 | p99 | p99.9 | fio clat mean |"
		echo "|---|---|---|---|---|---|---|---|---|"
		cat "$lat_rows"
	} >>"$tables"
}

prefill() { # a sequential write over the whole target, so reads read data
	plateau_run "$DBDIR/prefill.db" "$1" write 128k 1 16 1s 1 --fill-passes 1 # then 1 s of load
	rm -f "$DBDIR/prefill.db" "$DBDIR/prefill.db-wal" "$DBDIR/prefill.db-shm"
}

bench_target() { # NAME DEVICE
	name=$1 dev=$2
	table_head "$name ($dev)"
	for c in $CASES; do
		IFS=: read -r rw bs t q <<-EOF
			$c
		EOF
		engines=plateau
		[ "$HAVE_FIO" = 1 ] && engines="$engines fio-thread"
		sched=
		if [ "$t" -gt 1 ]; then
			[ "$HAVE_FIO" = 1 ] && engines="$engines fio-proc"
			# docs/performance.md: the loop's 128 request slots overflow at 16x16
			case $dev in
			/dev/loop*)
				sched=/sys/block/${dev#/dev/}/queue/scheduler
				echo mq-deadline >"$sched" 2>/dev/null || sched=
				;;
			esac
		fi
		[ "$ENGINE_ALONE" = 1 ] && engines="$engines engine"
		bench_case "$name" "$dev" "$rw" "$bs" "$t" "$q" "$engines"
		shown="$bs $rw ${t}x$q"
		[ -n "$sched" ] && shown="$shown (mq-deadline)"
		summarize "$name" "$bs $rw ${t}x$q" "$shown" >>"$tables"
		[ -n "$sched" ] && echo none >"$sched" 2>/dev/null
	done
	lat_table
}

bench_sampling() { # DEVICE: 100 ms against 10 s intervals, 4k randwrite 1x32
	dev=$1
	p=1
	while [ "$p" -le "$SAMPLING_PAIRS" ]; do
		order="100ms 10s"
		[ $((p % 2)) -eq 0 ] && order="10s 100ms"
		for iv in $order; do
			wait_idle
			set -- $(stat_cpu)
			b0=$1
			plateau_run "$DBDIR/run.db" "$dev" randwrite 4k 1 32 "$iv" "$SAMPLING_DURATION"
			set -- $(stat_cpu) $(db_stats "$DBDIR/run.db" 0)
			n=$(sqlite3 "$DBDIR/run.db" "SELECT count(*) FROM samples;")
			rm -f "$DBDIR/run.db" "$DBDIR/run.db-wal" "$DBDIR/run.db-shm"
			log "sampling $iv pair $p: $3 IOPS, $n samples, $(($1 - b0)) jiffies"
			echo "sampling|$iv|$p|$3|$(($1 - b0))|$n" >>"$results"
		done
		p=$((p + 1))
	done
	{
		echo
		echo "#### cost of sampling ($dev, 4k randwrite 1x32, plateau run, ${SAMPLING_DURATION} s runs, database on a tmpfs)"
		echo
		echo "| interval | samples per run | IOPS med (min-max) | IOPS ratio 100ms/10s, median of pairs (min-max) | CPU s / M I/O med | CPU ratio 100ms/10s, median of pairs (min-max) |"
		echo "|---|---|---|---|---|---|"
		awk -F'|' -v secs="$SAMPLING_DURATION" -v hz="$(getconf CLK_TCK)" "$AWK_STATS"'
		$1 == "sampling" {
			v[$2, $3] = $4; c[$2, $3] = $4 > 0 ? ($5 / hz) / ($4 * secs / 1e6) : 0; n[$2] = $6
			if ($3 > np) np = $3
		}
		END {
			for (p = 1; p <= np; p++) {
				a[p] = v["100ms", p]; b[p] = v["10s", p]; r[p] = b[p] > 0 ? a[p] / b[p] : 0
				ca[p] = c["100ms", p]; cb[p] = c["10s", p]; cr[p] = cb[p] > 0 ? ca[p] / cb[p] : 0
			}
			printf "| 100 ms | %d | %s (%s-%s) | **%.3f** (%.3f-%.3f) | %.2f | **%.3f** (%.3f-%.3f) |\n", n["100ms"], k(med(a, np)), k(mn(a, np)), k(mx(a, np)), med(r, np), mn(r, np), mx(r, np), med(ca, np), med(cr, np), mn(cr, np), mx(cr, np)
			printf "| 10 s | %d | %s (%s-%s) | | %.2f | |\n", n["10s"], k(med(b, np)), k(mn(b, np)), k(mx(b, np)), med(cb, np)
		}' "$results"
	} >>"$tables"
}

# bench_store: where the database goes and how it syncs, on a loop over a
# file on the root disk, the database on the tmpfs or beside the file
bench_store() {
	disk_file=$DIR/plateau-bench.$$.img
	beside_db=$DIR/plateau-bench.$$.db
	fallocate -l "${SIZE_MB}M" "$disk_file" 2>/dev/null || truncate -s "${SIZE_MB}M" "$disk_file" || return
	loop_dev=$(losetup --direct-io=on -f --show "$disk_file") || return
	serial=$(serial_of "$loop_dev")
	for c in $STORE_CASES; do
		IFS=: read -r rw bs t q <<-EOF
			$c
		EOF
		label="$bs $rw ${t}x$q"
		p=1
		while [ "$p" -le "$STORE_PAIRS" ]; do
			order="tmpfs beside-full beside-normal"
			[ $((p % 2)) -eq 0 ] && order="beside-normal beside-full tmpfs"
			for cf in $order; do
				case $cf in
				tmpfs) db=$DBDIR/run.db sync=full ;;
				beside-full) db=$beside_db sync=full ;;
				beside-normal) db=$beside_db sync=normal ;;
				esac
				wait_idle
				export PLATEAU_DB_SYNC="$sync"
				plateau_run "$db" "$loop_dev" "$rw" "$bs" "$t" "$q" 1s "$STORE_DURATION"
				unset PLATEAU_DB_SYNC
				r=$(db_stats "$db" "$RAMP")
				rm -f "$db" "$db-wal" "$db-shm"
				log "store $label pair $p $cf: $r"
				echo "store|$label|$cf|$p|$r" >>"$results"
			done
			p=$((p + 1))
		done
	done
	losetup -d "$loop_dev"
	loop_dev=
	serial=
	rm -f "$disk_file"
	disk_file=
	beside_db=
	{
		echo
		echo "#### cost of the store on the target's disk (loop over a file in $DIR, direct-io=on; plateau run, 1 s interval, ${STORE_DURATION} s runs, first ${RAMP} s left out)"
		echo
		echo "| case | database | IOPS med (min-max) | IOPS ratio to tmpfs, median of pairs (min-max) | worst sample max latency, ms: median of runs (max) |"
		echo "|---|---|---|---|---|"
		for c in $STORE_CASES; do
			IFS=: read -r rw bs t q <<-EOF
				$c
			EOF
			awk -F'|' -v label="$bs $rw ${t}x$q" -v dir="$DIR" "$AWK_STATS"'
			$1 == "store" && $2 == label {
				split($5, v, " "); iops[$3, $4] = v[1]; mxl[$3, $4] = v[6]
				if ($4 > np) np = $4
			}
			END {
				for (p = 1; p <= np; p++) base[p] = iops["tmpfs", p]
				for (f = 1; f <= 3; f++) {
					cf = f == 1 ? "tmpfs" : f == 2 ? "beside-full" : "beside-normal"
					shown = f == 1 ? "on a tmpfs" : f == 2 ? "beside, synchronous=FULL" : "beside, synchronous=NORMAL"
					for (p = 1; p <= np; p++) {
						a[p] = iops[cf, p]; m[p] = mxl[cf, p] / 1e6
						r[p] = base[p] > 0 ? a[p] / base[p] : 0
					}
					printf "| %s | %s | %s (%s-%s) | %s | %.1f (%.1f) |\n", label, shown,
						k(med(a, np)), k(mn(a, np)), k(mx(a, np)),
						f == 1 ? "1" : sprintf("**%.3f** (%.3f-%.3f)", med(r, np), mn(r, np), mx(r, np)),
						med(m, np), mx(m, np)
				}
			}' "$results"
		done
	} >>"$tables"
}

start_load=$(cut -d' ' -f1-3 /proc/loadavg)
start_time=$(date -u '+%Y-%m-%d %H:%M')
log "pairs $PAIRS, ${RAMP}s ramp + ${RUNTIME}s runs, targets: $TARGETS"

for target in $TARGETS; do
	case $target in
	loop-shm)
		[ "$ROOT" = 1 ] || { log "loop-shm needs root, skipped"; continue; }
		shm_file=/dev/shm/plateau-bench.$$.img
		truncate -s "${SIZE_MB}M" "$shm_file" || continue
		loop_dev=$(losetup --direct-io=on -f --show "$shm_file") || { rm -f "$shm_file"; shm_file=; continue; }
		serial=$(serial_of "$loop_dev")
		prefill "$loop_dev"
		bench_target "loop over a /dev/shm file, direct-io=on" "$loop_dev"
		[ "$SAMPLING" = 1 ] && bench_sampling "$loop_dev"
		losetup -d "$loop_dev"
		loop_dev=
		serial=
		rm -f "$shm_file"
		shm_file=
		;;
	zram)
		[ "$ROOT" = 1 ] && [ -e /sys/class/zram-control/hot_add ] && command -v zramctl >/dev/null ||
			{ log "no zram here (or not root), skipped"; continue; }
		zram_id=$(cat /sys/class/zram-control/hot_add) || continue
		zramctl --size "${SIZE_MB}M" --algorithm lz4 "/dev/zram$zram_id" || continue
		serial=$(serial_of "/dev/zram$zram_id")
		prefill "/dev/zram$zram_id"
		bench_target "zram (lz4)" "/dev/zram$zram_id"
		serial=
		zram_remove "$zram_id"
		zram_id=
		;;
	loop-disk | file)
		if [ "$target" = loop-disk ] && [ "$ROOT" != 1 ]; then
			log "loop-disk needs root, skipped"
			continue
		fi
		disk_file=$DIR/plateau-bench.$$.img
		fallocate -l "${SIZE_MB}M" "$disk_file" 2>/dev/null || truncate -s "${SIZE_MB}M" "$disk_file" || continue
		prefill "$disk_file"
		if [ "$target" = loop-disk ]; then
			loop_dev=$(losetup --direct-io=on -f --show "$disk_file") || continue
			serial=$(serial_of "$loop_dev")
			bench_target "loop over a file on the root disk ($DIR), direct-io=on" "$loop_dev"
			losetup -d "$loop_dev"
			loop_dev=
			serial=
		else
			bench_target "plain file on the root disk ($DIR)" "$disk_file"
		fi
		rm -f "$disk_file"
		disk_file=
		;;
	*)
		log "unknown target $target"
		;;
	esac
done

if [ "$STORE" = 1 ]; then
	if [ "$ROOT" = 1 ] && [ -n "$dbfs" ]; then
		bench_store
	else
		log "the store-cost section needs root (a loop device and a tmpfs), skipped"
	fi
fi

{
	echo "### plateau run vs fio ($start_time to $(date -u '+%H:%M UTC'))"
	echo
	echo "$(uname -sr), $(nproc) CPUs, $(fio --version 2>/dev/null || echo 'no fio'), $PAIRS ABBA pairs of ${RAMP}s ramp + ${RUNTIME}s, databases on $DBWHERE, load average at start $start_load, at end $(cut -d' ' -f1-3 /proc/loadavg); runs started after waiting for <${IDLE_PCT}% busy ($idle_timeouts waits of ${IDLE_WAIT}s timed out)."
	[ "$HAVE_FIO" = 1 ] || echo "fio (with jq) is not installed: plateau only."
	cat "$tables"
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
