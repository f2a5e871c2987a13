#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make bench: plateau's load engine (tests/helpers/engine-run, lib/engine)
# against Debian's fio (ioengine=io_uring) on the same target, threads,
# depth and block size, interleaved A/B B/A, after PERF-NOTES.md's protocol:
#
#  - before every run, wait until the machine is under BENCH_IDLE_PCT (10 %)
#    busy, measured over one second from /proc/stat;
#  - RAMP (2 s) excluded, RUNTIME (10 s) measured, BENCH_PAIRS (5) pairs;
#  - IOPS min/median/max per engine and the median of the paired ratios;
#  - CPU seconds per million I/Os from WHOLE-MACHINE /proc/stat deltas (user
#    nice system irq softirq steal) over the run, divided by the run's I/Os
#    (IOPS x (ramp + runtime), the same formula for both engines), because
#    fio's own usr/sys leaves out io-wq workers and loop kernel threads;
#  - identical workloads: direct I/O, random offsets without a map aligned to
#    the block size, uniform over the whole target, incompressible data.
#    fio runs with its defaults otherwise (no fixedbufs/registerfiles; add
#    them with BENCH_FIO_OPTS); fio --thread is the comparison everywhere,
#    and the 16x16 cases also run fio's default one-process-per-job.
#
# usage: sh tools/bench.sh BUILD_DIR
# env:   BENCH_PAIRS (5), BENCH_RUNTIME (10), BENCH_RAMP (2), BENCH_SIZE_MB (1024),
#        BENCH_TARGETS ("loop-shm zram loop-disk file"), BENCH_CASES (see below),
#        BENCH_DIR (/var/tmp: where the on-disk files go), BENCH_IDLE_PCT (10),
#        BENCH_IDLE_WAIT (120 s), BENCH_SAMPLING (1: also measure the cost of
#        100 ms sampling), BENCH_FIO_OPTS, BENCH_OUT (also write the tables there)
set -u

B=${1:?usage: sh tools/bench.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
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
SAMPLING=${BENCH_SAMPLING:-1}
FIO_OPTS=${BENCH_FIO_OPTS:-}
OUT=${BENCH_OUT:-}

if [ ! -x "$RUN" ]; then
	make -C "$SRC" --no-print-directory B="$B" "$RUN" >&2 || exit 1
fi
HAVE_FIO=0
command -v fio >/dev/null 2>&1 && HAVE_FIO=1
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1

work=$(mktemp -d "${TMPDIR:-/tmp}/plateau-bench.XXXXXX") || exit 1
results=$work/results
tables=$work/tables
: >"$results"
: >"$tables"
loop_dev=
zram_id=
shm_file=
disk_file=
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
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "bench: $*" >&2; }

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

# run_one ENGINE TARGET RW BS T Q [EXTRA]: prints "iops busy_jiffies"
run_one() {
	engine=$1 target=$2 rw=$3 bs=$4 t=$5 q=$6
	shift 6
	set -- $(stat_cpu) "$@"
	b0=$1
	shift 2
	case $engine in
	plateau)
		iops=$("$RUN" --target "$target" --rw "$rw" --bs "$bs" --threads "$t" --iodepth "$q" \
			--duration "${RUNTIME}s" --ramp "${RAMP}s" --interval 60s --quiet "$@" 2>/dev/null |
			sed -n 's/^result .*"iops": \([0-9.]*\).*/\1/p')
		;;
	fio-thread | fio-proc)
		mode=--thread
		[ "$engine" = fio-proc ] && mode=
		# shellcheck disable=SC2086
		iops=$(fio --name=bench --filename="$target" --size="${SIZE_MB}M" --ioengine=io_uring \
			--direct=1 --rw="$rw" --bs="$bs" --numjobs="$t" --iodepth="$q" $mode \
			--norandommap --randrepeat=0 --time_based --runtime="$RUNTIME" \
			--ramp_time="$RAMP" --group_reporting $FIO_OPTS --output-format=terse \
			--terse-version=3 2>/dev/null |
			awk -F';' 'NF > 50 { printf "%.1f", $8 + $49 }')
		;;
	esac
	set -- $(stat_cpu)
	echo "${iops:-0} $(($1 - b0))"
}

# bench_case TARGETNAME DEVICE RW BS T Q [ENGINES]
bench_case() {
	name=$1 dev=$2 rw=$3 bs=$4 t=$5 q=$6
	engines=${7:-plateau fio-thread}
	[ "$HAVE_FIO" = 1 ] || engines=plateau
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

# summarize NAME LABEL SHOWN: one markdown row per fio flavour that ran
summarize() {
	awk -F'|' -v name="$1" -v label="$2" -v shown="$3" -v secs="$((RUNTIME + RAMP))" '
	function med(a, n,    i, j, x, b) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j > 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
	}
	function mn(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function mx(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	function k(x) { return sprintf("%.0fk", x / 1000) }
	$1 == name && $2 == label {
		split($5, v, " ")
		iops[$3, $4] = v[1]
		# CPU seconds per million I/Os: whole-machine busy / I/Os of the run
		cpu[$3, $4] = v[1] > 0 ? (v[2] / hz) / (v[1] * secs / 1e6) : 0
		seen[$3] = 1
		if ($4 > np) np = $4
	}
	END {
		for (p = 1; p <= np; p++) { a[p] = iops["plateau", p]; ca[p] = cpu["plateau", p] }
		pl = sprintf("%s (%s-%s)", k(med(a, np)), k(mn(a, np)), k(mx(a, np)))
		if (!("fio-thread" in seen) && !("fio-proc" in seen))
			printf "| %s | %s | %s | - | - | %.2f | - | - |\n", name, shown, pl, med(ca, np)
		for (f = 1; f <= 2; f++) {
			fl = f == 1 ? "fio-thread" : "fio-proc"
			if (!(fl in seen)) continue
			for (p = 1; p <= np; p++) {
				b[p] = iops[fl, p]; cb[p] = cpu[fl, p]
				r[p] = b[p] > 0 ? a[p] / b[p] : 0
				cr[p] = cb[p] > 0 ? ca[p] / cb[p] : 0
			}
			printf "| %s | %s | %s | %s %s (%s-%s) | **%.2f** (%.2f-%.2f) | %.2f | %.2f | %.2f |\n",
				name, shown, pl, fl == "fio-thread" ? "--thread" : "procs",
				k(med(b, np)), k(mn(b, np)), k(mx(b, np)), med(r, np), mn(r, np), mx(r, np),
				med(ca, np), med(cb, np), med(cr, np)
		}
	}' hz="$(getconf CLK_TCK)" "$results"
}

table_head() {
	{
		echo
		echo "### $1"
		echo
		echo "| target | case | plateau IOPS med (min-max) | fio IOPS med (min-max) | IOPS ratio plateau/fio, median of pairs (min-max) | plateau CPU s / M I/O | fio CPU s / M I/O | CPU ratio |"
		echo "|---|---|---|---|---|---|---|---|"
	} >>"$tables"
}

prefill() { # a sequential write over the whole target, so reads read data
	"$RUN" --target "$1" --profile 128k-seqwrite --threads 1 --iodepth 16 --fill-passes 1 \
		--interval 60s --quiet >/dev/null 2>&1 || log "prefill of $1 failed"
}

bench_target() { # NAME DEVICE
	name=$1 dev=$2
	table_head "$name ($dev)"
	for c in $CASES; do
		IFS=: read -r rw bs t q <<-EOF
			$c
		EOF
		engines="plateau fio-thread"
		sched=
		if [ "$t" -gt 1 ]; then
			engines="plateau fio-thread fio-proc"
			# PERF-NOTES: the loop's 128 request slots overflow at 16x16
			case $dev in
			/dev/loop*)
				sched=/sys/block/${dev#/dev/}/queue/scheduler
				echo mq-deadline >"$sched" 2>/dev/null || sched=
				;;
			esac
		fi
		bench_case "$name" "$dev" "$rw" "$bs" "$t" "$q" "$engines"
		shown="$bs $rw ${t}x$q"
		[ -n "$sched" ] && shown="$shown (mq-deadline)"
		summarize "$name" "$bs $rw ${t}x$q" "$shown" >>"$tables"
		[ -n "$sched" ] && echo none >"$sched" 2>/dev/null
	done
}

bench_sampling() { # DEVICE: 100 ms against 60 s intervals, 4k randwrite 1x32
	dev=$1
	p=1
	while [ "$p" -le "$PAIRS" ]; do
		order="100ms 60s"
		[ $((p % 2)) -eq 0 ] && order="60s 100ms"
		for iv in $order; do
			wait_idle
			iops=$("$RUN" --target "$dev" --rw randwrite --bs 4k --threads 1 --iodepth 32 \
				--duration "${RUNTIME}s" --ramp "${RAMP}s" --interval "$iv" --quiet |
				sed -n 's/^result .*"iops": \([0-9.]*\).*/\1/p')
			log "sampling $iv pair $p: $iops"
			echo "sampling|$iv|$p|$iops" >>"$results"
		done
		p=$((p + 1))
	done
	{
		echo
		echo "### cost of sampling ($dev, 4k randwrite 1x32, plateau only)"
		echo
		echo "| interval | IOPS med (min-max) | ratio 100ms/60s, median of pairs (min-max) |"
		echo "|---|---|---|"
		awk -F'|' '
		function med(a, n,    i, j, x, b) {
			for (i = 1; i <= n; i++) b[i] = a[i]
			for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j > 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
			return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
		}
		function mn(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
		function mx(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
		$1 == "sampling" { v[$2, $3] = $4; if ($3 > np) np = $3 }
		END {
			for (p = 1; p <= np; p++) { a[p] = v["100ms", p]; b[p] = v["60s", p]; r[p] = b[p] > 0 ? a[p] / b[p] : 0 }
			printf "| 100 ms | %.0fk (%.0fk-%.0fk) | **%.3f** (%.3f-%.3f) |\n", med(a, np) / 1000, mn(a, np) / 1000, mx(a, np) / 1000, med(r, np), mn(r, np), mx(r, np)
			printf "| 60 s | %.0fk (%.0fk-%.0fk) | |\n", med(b, np) / 1000, mn(b, np) / 1000, mx(b, np) / 1000
		}' "$results"
	} >>"$tables"
}

start_load=$(cut -d' ' -f1-3 /proc/loadavg)
log "pairs $PAIRS, ${RAMP}s ramp + ${RUNTIME}s runs, targets: $TARGETS"

for target in $TARGETS; do
	case $target in
	loop-shm)
		[ "$ROOT" = 1 ] || { log "loop-shm needs root, skipped"; continue; }
		shm_file=/dev/shm/plateau-bench.$$.img
		truncate -s "${SIZE_MB}M" "$shm_file" || continue
		loop_dev=$(losetup --direct-io=on -f --show "$shm_file") || { rm -f "$shm_file"; shm_file=; continue; }
		prefill "$loop_dev"
		bench_target "loop over a /dev/shm file, direct-io=on" "$loop_dev"
		[ "$SAMPLING" = 1 ] && bench_sampling "$loop_dev"
		losetup -d "$loop_dev"
		loop_dev=
		rm -f "$shm_file"
		shm_file=
		;;
	zram)
		[ "$ROOT" = 1 ] && [ -e /sys/class/zram-control/hot_add ] && command -v zramctl >/dev/null ||
			{ log "no zram here (or not root), skipped"; continue; }
		zram_id=$(cat /sys/class/zram-control/hot_add) || continue
		zramctl --size "${SIZE_MB}M" --algorithm lz4 "/dev/zram$zram_id" || continue
		prefill "/dev/zram$zram_id"
		bench_target "zram (lz4)" "/dev/zram$zram_id"
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
			bench_target "loop over a file on the root disk ($DIR), direct-io=on" "$loop_dev"
			losetup -d "$loop_dev"
			loop_dev=
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

{
	echo "## plateau engine vs fio ($(date -u '+%Y-%m-%d %H:%M UTC'))"
	echo
	echo "$(uname -sr), $(nproc) CPUs, $(fio --version 2>/dev/null || echo 'no fio'), $PAIRS ABBA pairs of ${RAMP}s ramp + ${RUNTIME}s, load average at start $start_load, at end $(cut -d' ' -f1-3 /proc/loadavg); runs started after waiting for <${IDLE_PCT}% busy ($idle_timeouts waits timed out)."
	[ "$HAVE_FIO" = 1 ] || echo "fio is not installed: plateau only."
	cat "$tables"
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
