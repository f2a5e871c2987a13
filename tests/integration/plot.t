#!/bin/bash
# SPDX-License-Identifier: MIT
#
# plot.t: `plateau plot` and `plateau top`.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/plot.t
#   PLATEAU_UPDATE_GOLDEN=1 ... rewrites tests/golden/plot-*.txt from the
#   current output (look at every changed chart before committing it).
#
# plot: charts of the fixture database (tests/fixtures/basic.sql) at fixed
# widths against golden files: braille and --ascii, 40, 80 and 120 columns,
# every metric once; the steady window of run 1 (rounds 7-11, worked out in
# cli.t) marked, "not steady" for run 2; one sample; a flat series; 200,000
# samples (tests/helpers/gendb) drawn in a few seconds; the width taken from
# $COLUMNS; every exit code.
#
# top: --once against a stand-in daemon (a Perl socket server answering a
# fixed status) whose window figures are worked out below; not on a terminal
# one frame, or with --interval frames between lines of dashes, never screen
# control codes; on a terminal (script(1)) a redraw per frame; against the real
# plateaud with one run in progress on a regular file, and with no daemon.
#
# Run 1 phase 3, the last window (rounds 8-12: 100000 101000 99000 100000
# 100500 IOPS): average 100100, max - min 2000 = 10 % of the 20 % limit
# (20020); slope (-2*100000 - 101000 + 100000 + 2*100500) / 10 = 0: 0 % of
# the 10 % limit.
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
PLATEAUD=$PLATEAU_BUILD/plateaud
MKDB=$PLATEAU_BUILD/tests/helpers/mkdb
GENDB=$PLATEAU_BUILD/tests/helpers/gendb
GOLDEN=$PLATEAU_SRC/tests/golden

[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
[ -x "$MKDB" ] || skip_all "no $MKDB (make tests)"
"$PLATEAU" help plot >/dev/null 2>&1 || skip_all "this plateau has no plot command"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET COLUMNS
# display width of the widest line: wc -L counts characters in a UTF-8 locale
UTF8_LOCALE=C.UTF-8

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-plot.XXXXXX") || bail_out "mktemp failed"
DPID=
FPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null && wait "$FPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

DB=$T/basic.db
"$MKDB" "$DB" || bail_out "mkdb $DB failed"
sqlite3 -bail "$DB" <"$PLATEAU_SRC/tests/fixtures/basic.sql" || bail_out "loading basic.sql failed"

# run ARGS...: plateau; sets RC, OUT, ERR ($T/out, $T/err)
run() {
	"$PLATEAU" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# width: the widest line of $T/out in columns
width() {
	LC_ALL=$UTF8_LOCALE wc -L <"$T/out"
}

# golden FILE WIDTH ARGS...: `plateau --db $DB plot ARGS --width WIDTH`
# prints FILE, no line wider than WIDTH, exit 0, nothing on stderr
golden() {
	local file=$1 w=$2
	shift 2
	run --db "$DB" plot "$@" --width "$w"
	if [ -n "${PLATEAU_UPDATE_GOLDEN:-}" ]; then
		mkdir -p "$GOLDEN"
		cp "$T/out" "$GOLDEN/$file"
		pass "updated tests/golden/$file"
	else
		is_file "$T/out" "$GOLDEN/$file" "plot $* --width $w matches tests/golden/$file"
	fi
	is "$RC" 0 "plot $* --width $w: exit 0"
	is "$ERR" "" "plot $* --width $w: nothing on stderr"
	is "$(width)" "$w" "plot $* --width $w: the axis fills $w columns, no line is wider"
}

# expect_fail RC NEEDLE ARGS...: exit RC, one line "plateau: ...NEEDLE..." on
# stderr, nothing on stdout
expect_fail() {
	local want_rc=$1 needle=$2
	shift 2
	run "$@"
	is "$RC" "$want_rc" "$*: exit $want_rc"
	is "$(wc -l <"$T/err")" 1 "$*: one line on stderr"
	like "$ERR" '^plateau: ' "$*: stderr starts with 'plateau: '"
	has "$ERR" "$needle" "$*: stderr says '$needle'"
	is "$OUT" "" "$*: nothing on stdout"
}

# --- plot: golden charts ---

golden plot-1.txt 80 1 --height 16
golden plot-1-ascii.txt 80 1 --height 16 --ascii
golden plot-1-w40.txt 40 1 --height 12
golden plot-1-w120.txt 120 1 --height 12
golden plot-1-bw.txt 72 1 --metric bw --height 8
golden plot-1-lat.txt 72 1 --metric lat --height 8
golden plot-1-lat-max.txt 72 1 --metric lat-max --height 8
golden plot-1-lat-stddev.txt 72 1 --metric lat-stddev --height 8
golden plot-1-p99.txt 72 1 --metric p99 --height 8 --ascii
golden plot-2.txt 72 2 --height 10
golden plot-3-flat.txt 60 3 --metric lat --height 6
golden plot-3.txt 60 3 --phase 1 --height 6 --ascii

# --- plot: what the charts must show ---

run --db "$DB" plot 1 --width 80
has "$OUT" "run 1 nightly-4k, phase 3 precondition 4k-randwrite, iops (IOPS), 12 samples" \
	"plot 1: the title names run, phase, workload and metric"
has "$OUT" "steady at round 11 (window 7-11); snia on iops, window 5 rounds" \
	"plot 1: the verdict of plateau show"
like "$OUT" $'\n'' +├(─)+ window 7-11 (─)+┤'$'\n' "plot 1: the window bracketed under the axis"
# (a row whose data line crosses both edges shows the data there)
n=$(grep -c '┊' "$T/out")
ok $((n < 14)) "plot 1: the window's edges marked down the rows ($n of 16)"
like "$OUT" $'\n''IOPS'$'\n''200k ┤' "plot 1: unit over the y axis, ticks with k"
like "$OUT" $'\n'' +0 +1 +2 .* 11 min'$'\n' "plot 1: elapsed minutes under the time axis"
LC_ALL=C grep -q $'\xe2[\xa0-\xa3]' "$T/out"
ok $? "plot 1: braille dots (U+2800-U+28FF)"

run --db "$DB" plot 1 --width 80 --ascii
LC_ALL=C grep -q $'[\x80-\xff]' "$T/out"
isnt "$?" 0 "plot 1 --ascii: only ASCII"
like "$OUT" $'\n'' +\[=+ window 7-11 =+\]'$'\n' "plot 1 --ascii: the window in brackets"

run --db "$DB" plot 2 --width 120
has "$OUT" "not steady after 12 rounds (max-rounds reached); snia on iops, window 5 rounds" \
	"plot 2: not steady"
unlike "$OUT" "window [0-9]+-[0-9]+" "plot 2: no window marked"
is "$(grep -c '┊' "$T/out")" 0 "plot 2: no window edges"

# the default height is 16 rows between the unit line and the axis
run --db "$DB" plot 1 --width 80
is "$(sed -n '3,18p' "$T/out" | grep -c '[┤│]')" 16 "plot 1: 16 rows by default"

# deterministic
run --db "$DB" plot 1 --width 80 --metric p99
cp "$T/out" "$T/first"
run --db "$DB" plot 1 --width 80 --metric p99
cmp -s "$T/out" "$T/first"
ok $? "plot: the same chart twice"

# fitted to the width: $COLUMNS when stdout is not a terminal, else 80
COLUMNS=50 run --db "$DB" plot 1
is "$(width)" 50 "plot with COLUMNS=50: 50 columns"
run --db "$DB" plot 1
is "$(width)" 80 "plot without a terminal or COLUMNS: 80 columns"
COLUMNS=junk run --db "$DB" plot 1
is "$(width)" 80 "plot with COLUMNS=junk: 80 columns"
run --db "$DB" plot 1 --width 20
is "$RC" 0 "plot --width 20 (the narrowest): exit 0"
is "$(width)" 20 "plot --width 20: 20 columns"

# one sample; a run name with an escape sequence is shown harmless
ONE=$T/one.db
cp "$DB" "$ONE"
sqlite3 -bail "$ONE" "DELETE FROM samples WHERE phase_id = 3 AND seq > 1;
	UPDATE runs SET name = 'evil' || char(27) || '[2J' WHERE id = 1;" || bail_out "one.db"
run --db "$ONE" plot 1 --width 60 --height 6
is "$RC" 0 "plot of one sample: exit 0"
has "$OUT" "run 1 evil?[2J, phase 3" "plot: control characters of a name replaced"
has "$OUT" "iops (IOPS), 1 sample" "plot of one sample: 1 sample"
has "$OUT" "not steady after 1 round;" "plot of one sample: not steady after 1 round"
LC_ALL=C grep -q $'\xe2[\xa0-\xa3]' "$T/out"
ok $? "plot of one sample: the sample is drawn"
LC_ALL=C grep -q $'\x1b' "$T/out"
isnt "$?" 0 "plot: no escape character reaches the terminal"

# many samples: a column holds the min..max of thousands
if [ -x "$GENDB" ]; then
	"$GENDB" "$T/big.db" 200000 >/dev/null || bail_out "gendb failed"
	start=$SECONDS
	run --db "$T/big.db" plot 1 --width 100 --height 12
	is "$RC" 0 "plot of 200000 samples: exit 0"
	ok $((SECONDS - start > 20)) "plot of 200000 samples: within 20 s ($((SECONDS - start)) s)"
	has "$OUT" "200000 samples" "plot of 200000 samples: all read"
	has "$OUT" "steady at round 17 (window 13-17)" "plot of 200000 samples: gendb's verdict"
	is "$(width)" 100 "plot of 200000 samples: 100 columns"
	like "$OUT" ' d'$'\n' "plot of 200000 one-minute samples: the time axis in days"
else
	skip 6 "no $GENDB (make tests)"
fi

# --- plot: a partial sample (the drain of a stopped phase) is not drawn ---

cp "$DB" "$T/partial.db"
sqlite3 -bail "$T/partial.db" "
	CREATE TEMP TABLE last AS SELECT * FROM samples WHERE phase_id = 3
	    ORDER BY seq DESC LIMIT 1;
	UPDATE last SET seq = seq + 1, start_ns = end_ns, end_ns = end_ns + 50000000,
	    w_ios = 10, w_bytes = 40960, a_ios = 10, a_bytes = 40960, partial = 1;
	INSERT INTO samples SELECT * FROM last;" ||
	bail_out "adding a partial sample failed"
run --db "$DB" plot 1 --width 80 --height 16
full=$OUT
run --db "$T/partial.db" plot 1 --width 80 --height 16
is "$RC" 0 "plot with a partial sample: exit 0"
has "$OUT" "iops (IOPS), 12 samples (1 partial not drawn)" \
	"plot with a partial sample: the title counts it as not drawn"
is "$(sed -n "/^IOPS$/,\$p" <<<"$OUT")" "$(sed -n "/^IOPS$/,\$p" <<<"$full")" \
	"plot with a partial sample: the chart is the one without it"
run --db "$T/partial.db" samples 1 --csv
is "$(tail -n 1 <<<"$OUT" | awk -F, '{ print $1, $NF }')" "13 true" \
	"the partial sample is still stored and listed by plateau samples"

# --- plot: every stored figure is a metric ---

# write.p99.9 of the fixture's write-only phase is its all-I/O p99.9, and
# read.* of it is refused: no reads, no data (never a flat line at 0)
run --db "$DB" plot 1 --metric p99.9 --width 72 --height 8
all=$(sed -n '3,$p' <<<"$OUT")
run --db "$DB" plot 1 --metric write.p99.9 --width 72 --height 8
is "$RC" 0 "plot --metric write.p99.9: exit 0"
has "$OUT" "write.p99.9 (us), 12 samples" "plot --metric write.p99.9: named in the title"
is "$(sed -n '3,$p' <<<"$OUT")" "$all" "plot --metric write.p99.9: the chart of p99.9 (every I/O a write)"
run --db "$DB" plot 1 --metric read.iops --width 72 --height 8
is "$RC" 2 "plot --metric read.iops of a write-only phase: exit 2"
has "$ERR" "has no read I/O in any of its" "plot --metric read.iops: the phase has no reads, said so"
is "$OUT" "" "plot --metric read.iops: no chart"

# --- plot: sweeps, the points against their load ---

# The fixture's sweep (2x2 4x8 16x16): three thread counts, a point each.
golden plot-1-sweep.txt 72 1 --phase 4 --height 8
# A 2x2 thread x queue sweep (phase 5, added here): 1x1 10000 IOPS, 1x4
# 40000, 2x1 20000, 2x4 60000; mean latency 100 us but 133.3 at 2x4.
GRID=$T/grid.db
cp "$DB" "$GRID"
sqlite3 -bail "$GRID" "
	INSERT INTO phases VALUES (7, 1, 5, 'sweep', '4k-randwrite',
	    '{\"profile\":\"4k-randwrite\",\"points\":[\"1x1\",\"1x4\",\"2x1\",\"2x4\"]}', 'done',
	    1796002721000000000, 1796003001000000000, 0, 0, 4, NULL, NULL, NULL);
	CREATE TEMP TABLE t AS SELECT * FROM points WHERE phase_id = 4 AND seq = 1;
	UPDATE t SET phase_id = 7, seq = 1, threads = 1, iodepth = 1, w_ios = 600000, a_ios = 600000,
	    w_bytes = 2457600000, a_bytes = 2457600000, w_lat_mean_ns = 100000, a_lat_mean_ns = 100000;
	INSERT INTO points SELECT * FROM t;
	UPDATE t SET seq = 2, iodepth = 4, w_ios = 2400000, a_ios = 2400000, w_bytes = 9830400000,
	    a_bytes = 9830400000;
	INSERT INTO points SELECT * FROM t;
	UPDATE t SET seq = 3, threads = 2, iodepth = 1, w_ios = 1200000, a_ios = 1200000,
	    w_bytes = 4915200000, a_bytes = 4915200000;
	INSERT INTO points SELECT * FROM t;
	UPDATE t SET seq = 4, iodepth = 4, w_ios = 3600000, a_ios = 3600000, w_bytes = 14745600000,
	    a_bytes = 14745600000, w_lat_mean_ns = 133333.33, a_lat_mean_ns = 133333.33;
	INSERT INTO points SELECT * FROM t;" || bail_out "adding a 2x2 sweep failed"
DB=$GRID golden plot-grid-qd.txt 72 1 --phase 5 --height 12
DB=$GRID golden plot-grid-qd-ascii.txt 60 1 --phase 5 --height 8 --ascii
DB=$GRID golden plot-grid-iops.txt 72 1 --phase 5 --height 10 --x iops
DB=$GRID golden plot-grid-bw.txt 60 1 --phase 5 --height 8 --metric bw --ascii

run --db "$GRID" plot 1 --phase 5 --width 72 --height 12
has "$OUT" "phase 5 sweep 4k-randwrite," "sweep plot: the title names the phase"
has "$OUT" "iops (IOPS) against queue depth, 4 load points" "sweep plot: IOPS against queue depth by default"
is "$(tail -n 1 <<<"$OUT")" "lines: * 1 thread, o 2 threads" \
	"sweep plot: the legend names both thread counts and their markers"
chart=$(sed -n '4,15p' <<<"$OUT" | cut -c6-)
is "$(tr -cd '*' <<<"$chart" | wc -c) $(tr -cd 'o' <<<"$chart" | wc -c)" "2 2" \
	"sweep plot: two lines, a marker at each of their two points"
is "$(grep -c '·' <<<"$chart")" 10 "sweep plot: each line joins its points (dots on 10 rows)"
like "$(sed -n 16,17p <<<"$OUT")" '^ +└┬(─)+┬'$'\n'' +1 +4 QD$' \
	"sweep plot: queue depths 1 and 4 under the axis, at its ends"
# the markers' heights: 1x1 (10k) lowest, 2x4 (60k) on the top row
is "$(grep -n '\*' <<<"$chart" | tail -n 1 | cut -d: -f1) $(grep -n 'o' <<<"$chart" | head -n 1 | cut -d: -f1)" \
	"10 1" "sweep plot: 1x1 near the bottom, 2x4 on the top row"
like "$(sed -n 4p <<<"$OUT")" '^60k ┤ +(·)+o$' "sweep plot: 2x4's 60k IOPS at the top right"

run --db "$GRID" plot 1 --phase 5 --width 72 --height 10 --x iops
has "$OUT" "lat (us) against iops (IOPS), 4 load points" "demand intensity: latency against IOPS"
is "$(tail -n 1 <<<"$OUT")" "lines: * 1 thread, o 2 threads" "demand intensity: the same legend"
like "$OUT" $'\n'' +0 +10k +20k .*IOPS'$'\n' "demand intensity: IOPS from 0 along the x axis"
run --db "$GRID" plot 1 --phase 5 --width 72 --height 10 --x iops --metric p99
has "$OUT" "p99 (us) against iops (IOPS)" "demand intensity with --metric p99"
run --db "$GRID" plot 1 --phase 5 --width 72 --height 8 --metric bw
has "$OUT" "bw (MB/s) against queue depth" "sweep plot --metric bw: MB/s against queue depth"
# the same grid against threads: a line per queue depth
DB=$GRID golden plot-grid-threads.txt 60 1 --phase 5 --height 8 --x threads --ascii
run --db "$GRID" plot 1 --phase 5 --width 60 --height 8 --x threads --ascii
has "$OUT" "iops (IOPS) against threads, 4 load points" "sweep plot --x threads: IOPS against threads"
is "$(tail -n 1 <<<"$OUT")" "lines: * QD 1, o QD 4" "sweep plot --x threads: a line per queue depth"
like "$OUT" $'\n'' +1 +2 threads'$'\n' "sweep plot --x threads: thread counts under the axis"
# a thread-scaling sweep at one queue depth (1x8 2x8 4x8; phase 6) is read
# against threads without asking
sqlite3 -bail "$GRID" "
	INSERT INTO phases VALUES (8, 1, 6, 'sweep', '4k-randwrite',
	    '{\"profile\":\"4k-randwrite\",\"points\":[\"1x8\",\"2x8\",\"4x8\"]}', 'done',
	    1796003001000000000, 1796003201000000000, 0, 0, 3, NULL, NULL, NULL);
	CREATE TEMP TABLE u AS SELECT * FROM points WHERE phase_id = 7 AND seq = 1;
	UPDATE u SET phase_id = 8, seq = 1, threads = 1, iodepth = 8;
	INSERT INTO points SELECT * FROM u;
	UPDATE u SET seq = 2, threads = 2, w_ios = 1500000, a_ios = 1500000;
	INSERT INTO points SELECT * FROM u;
	UPDATE u SET seq = 3, threads = 4, w_ios = 2100000, a_ios = 2100000;
	INSERT INTO points SELECT * FROM u;" || bail_out "adding a thread-scaling sweep failed"
DB=$GRID golden plot-scale.txt 60 1 --phase 6 --height 8 --ascii
run --db "$GRID" plot 1 --phase 6 --width 60 --height 8 --ascii
has "$OUT" "iops (IOPS) against threads, 3 load points" "one queue depth, many thread counts: against threads"
is "$(tail -n 1 <<<"$OUT")" "lines: * QD 8" "one queue depth: one line"
run --db "$GRID" plot 1 --phase 6 --width 60 --height 8 --x qd --ascii
has "$OUT" "against queue depth" "--x qd: against queue depth even then"
run --db "$GRID" plot 1 --phase 5 --x time
is "$RC" 3 "sweep plot --x time: the samples over time (none in the fixture): exit 3"
has "$ERR" "no samples (its load points: plateau plot without --x time)" "sweep plot --x time: says where the points are"

# --- plot: exit codes ---

expect_fail 3 "no run 9" --db "$DB" plot 9
expect_fail 3 "no samples" --db "$DB" plot 4
expect_fail 3 "no samples" --db "$DB" plot 1 --phase 2
expect_fail 3 "no samples" --db "$DB" plot 1 --phase 4 --x time
expect_fail 3 "no phase 9" --db "$DB" plot 1 --phase 9
expect_fail 3 "$T/none.db" --db "$T/none.db" plot 1
expect_fail 2 "unknown metric 'iopz'" --db "$DB" plot 1 --metric iopz
expect_fail 2 "--width" --db "$DB" plot 1 --width 19
expect_fail 2 "--width" --db "$DB" plot 1 --width 1001
expect_fail 2 "--height" --db "$DB" plot 1 --height 2
expect_fail 2 "--phase" --db "$DB" plot 1 --phase x
expect_fail 2 "usage" --db "$DB" plot
expect_fail 2 "usage" --db "$DB" plot 1 2
expect_fail 2 "run number" --db "$DB" plot x
expect_fail 2 "--x: expected time, qd, threads or a metric" --db "$DB" plot 1 --x depth
expect_fail 2 "only a sweep's load points are drawn against their load" --db "$DB" plot 1 --x qd
expect_fail 2 "only a sweep's load points are drawn against their load" --db "$DB" plot 1 --phase 3 --x iops
expect_fail 2 "unknown metric 'read.p99.5'" --db "$DB" plot 1 --metric read.p99.5
expect_fail 2 "--x: expected" --db "$DB" plot 1 --phase 4 --x write.p42

# --- top ---

expect_fail 4 "not reachable at $T/no.sock" --db "$DB" --socket "$T/no.sock" top --once
expect_fail 2 "--interval" --socket "$T/no.sock" top --interval 10ms
expect_fail 2 "usage" --socket "$T/no.sock" top 1

# a stand-in daemon: answers each connection with the contents of $T/reply
if command -v perl >/dev/null; then
	perl -MIO::Socket::UNIX -e '
		my ($path, $file) = @ARGV;
		my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $path, Listen => 5)
			or die "listen: $!";
		while (my $c = $s->accept) {
			my $req = <$c>;
			open(my $f, "<", $file) or die; my $reply = do { local $/; <$f> }; close $f;
			print $c $reply; close $c;
		}' "$T/fake.sock" "$T/reply" &
	FPID=$!
	for _ in $(seq 50); do [ -S "$T/fake.sock" ] && break; sleep 0.1; done

	printf '%s\n' '{"ok":true,"version":"0.1.0","database":"'"$DB"'","runs":[{"run":1,"name":"nightly-4k","state":"preconditioning","device":"/dev/nvme0n1","serial":"S6CKNA0R123456","phase":3,"phase_kind":"precondition","phase_name":"4k-randwrite","progress":null,"rounds":12,"window":5,"steady":true,"steady_round":11,"steady_lost":false,"threads":16,"iodepth":16,"interval_s":60},{"run":3,"name":"in-progress","state":"preconditioning","device":"/dev/nvme0n1","serial":"S6CKNA0R123456","phase":1,"phase_kind":"precondition","phase_name":"4k-randwrite","progress":null,"rounds":3,"window":5,"steady":false,"steady_round":null,"steady_lost":false,"threads":16,"iodepth":16,"interval_s":60},{"run":2,"name":"qlc\u001b[2J","state":"filling","device":"/dev/loop7","serial":"LOOP-00c1-4242","phase":1,"phase_kind":"fill","phase_name":"128k x2","progress":0.25,"rounds":0,"window":0,"steady":false,"steady_round":null,"steady_lost":false,"threads":1,"iodepth":32,"interval_s":60}]}' >"$T/reply"
	cat >"$T/want" <<EOF
plateaud 0.1.0, database $DB: 3 runs in progress

run 1 nightly-4k: preconditioning, phase 3 precondition 4k-randwrite
  drive     /dev/nvme0n1, serial S6CKNA0R123456, 16 x 16 (threads x iodepth)
  last      no sample yet
  rounds    12, steady since round 11
  window    rounds 8-12, snia iops: data 10% of limit, slope 0% of limit (passes)

run 3 in-progress: preconditioning, phase 1 precondition 4k-randwrite
  drive     /dev/nvme0n1, serial S6CKNA0R123456, 16 x 16 (threads x iodepth)
  last      no sample yet
  rounds    3, not steady yet
  window    3 of 5 rounds measured (snia)

run 2 qlc?[2J: filling, phase 1 fill 128k x2
  drive     /dev/loop7, serial LOOP-00c1-4242, 1 x 32 (threads x iodepth)
  progress  25.0%
  last      no sample yet
EOF
	run --db "$DB" --socket "$T/fake.sock" top --once
	is "$RC" 0 "top --once (stand-in daemon): exit 0"
	is_file "$T/out" "$T/want" "top --once: runs, progress, rounds and the last window's figures"
	is "$ERR" "" "top --once: nothing on stderr"

	printf '%s\n' '{"ok":true,"version":"0.1.0","database":"'"$DB"'","runs":[]}' >"$T/reply"
	run --db "$DB" --socket "$T/fake.sock" top --once
	is "$OUT" "plateaud 0.1.0, database $DB: no runs in progress" "top --once: no runs"
	printf 'not json\n' >"$T/reply"
	expect_fail 4 "not a JSON object" --db "$DB" --socket "$T/fake.sock" top --once
	printf '%s\n' '{"ok":false,"error":"no"}' >"$T/reply"
	expect_fail 4 "refused" --db "$DB" --socket "$T/fake.sock" top --once
	printf '%s\n' '{"ok":true,"runs":{}}' >"$T/reply"
	expect_fail 4 "no list of runs" --db "$DB" --socket "$T/fake.sock" top --once

	# not on a terminal without --interval: one frame, then exit
	printf '%s\n' '{"ok":true,"version":"0.1.0","database":"'"$DB"'","runs":[]}' >"$T/reply"
	run --db "$DB" --socket "$T/fake.sock" top
	is "$RC" 0 "top, stdout not a terminal: exit 0 after one frame"
	is "$OUT" "plateaud 0.1.0, database $DB: no runs in progress" \
		"  the frame of --once, without screen control codes"

	# until_count N PATTERN FILE: poll (up to 30 s) until FILE has N lines
	# matching PATTERN
	until_count() {
		for _ in $(seq 300); do
			[ "$(LC_ALL=C grep -c -- "$2" "$3" 2>/dev/null)" -ge "$1" ] 2>/dev/null && return 0
			sleep 0.1
		done
		return 1
	}
	frame='^plateaud 0\.1\.0, database .*: no runs in progress   [0-9]\{4\}-'

	# --interval, not on a terminal: frames one after another, each after a
	# line of dashes, never a screen control code; Ctrl-C ends it with 0
	"$PLATEAU" --db "$DB" --socket "$T/fake.sock" top --interval 200ms >"$T/live" 2>"$T/err" &
	TPID=$!
	until_count 3 "$frame" "$T/live"
	ok $? "top --interval, not on a terminal: a frame every interval"
	kill -INT "$TPID"
	wait "$TPID"
	is "$?" 0 "  Ctrl-C ends it with 0"
	LC_ALL=C grep -q $'\x1b' "$T/live"
	isnt "$?" 0 "  no screen control codes" || diag "$(cat -A "$T/live" | head -5)"
	frames=$(grep -c "$frame" "$T/live")
	is "$(grep -c '^-\{20,\}$' "$T/live")" "$((frames - 1))" \
		"  a line of dashes between each two of its $frames frames"
	like "$(head -n 1 "$T/live")" '^plateaud 0\.1\.0, database .*: no runs in progress   [0-9]{4}-' \
		"  the first line is the first frame's"
	is "$(cat "$T/err")" "" "  nothing on stderr"

	# --interval on a terminal (script(1) gives it one): clears the screen
	# for each frame and ends at Ctrl-C with 0
	if command -v script >/dev/null; then
		script -qefc "exec $PLATEAU --db $DB --socket $T/fake.sock top --interval 200ms" \
			"$T/tty" </dev/null >/dev/null 2>&1 &
		SPID=$!
		until_count 3 $'\e\[H\e\[2J' "$T/tty"
		ok $? "top --interval on a terminal: clears the screen for each frame"
		TPID=$(ps -o pid= --ppid "$SPID" | head -n 1)
		[ -n "$TPID" ] && kill -INT $TPID
		wait "$SPID"
		is "$?" 0 "  Ctrl-C ends it with 0"
		has "$(cat "$T/tty")" "Ctrl-C quits" "  and says how to quit"
	else
		skip 3 "script(1) is not installed"
	fi

	kill "$FPID" 2>/dev/null
	wait "$FPID" 2>/dev/null
	FPID=
else
	skip 26 "no perl for the stand-in daemon"
fi

# the real daemon with a run in progress on a 128 MiB file, 200 ms rounds
if [ -x "$PLATEAUD" ]; then
	IMG=$T/target.img
	truncate -s 128M "$IMG"
	SERIAL=$("$PLATEAU" drives "$IMG" --csv |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "serial") c = i; next }
			 { print $c }')
	cat >"$T/top.plan" <<EOF
[run]
device = $IMG
serial = $SERIAL
name = top-test
interval = 200ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
after_steady = continue
max_rounds = 300
EOF
	D=(--db "$T/p.db" --socket "$T/ctl.sock")
	# plateaud takes regular files only beneath plateaud.conf's file_targets
	printf '[daemon]\nfile_targets = %s\n' "$(dirname "$IMG")" >"$T/plateaud.conf"
	"$PLATEAUD" "${D[@]}" --config "$T/plateaud.conf" 2>"$T/plateaud.log" &
	DPID=$!
	for _ in $(seq 50); do [ -S "$T/ctl.sock" ] && break; sleep 0.1; done
	run "${D[@]}" start "$T/top.plan"
	is "$OUT" "run 1 started" "plateaud: run 1 started" || diag "$ERR" "$(cat "$T/plateaud.log")"
	for _ in $(seq 100); do
		run "${D[@]}" top --once
		[[ $OUT == *"  window    rounds"* ]] && break
		sleep 0.2
	done
	is "$RC" 0 "top --once (plateaud): exit 0"
	like "$OUT" '^plateaud [^ ]+, database '"$T"'/p.db: 1 run in progress' "top --once: one run"
	has "$OUT" "run 1 top-test: preconditioning, phase 1 precondition 4k-randwrite" \
		"top --once: run, state and phase"
	has "$OUT" "  drive     $IMG, serial $SERIAL, 1 x 4 (threads x iodepth)" "top --once: drive"
	like "$OUT" $'\n''  last      round [0-9]+, [0-9.]+[mun]?s ago: [0-9]+ IOPS, [0-9.]+ MB/s, mean [0-9.]+ us, p99 [0-9.]+ us'$'\n' \
		"top --once: the last sample"
	like "$OUT" $'\n''  rounds    [0-9]+, (steady since round [0-9]+|not steady yet|steady state LOST)'$'\n' \
		"top --once: rounds and steady state"
	like "$OUT" $'\n''  window    rounds [0-9]+-[0-9]+, snia iops: data [0-9]+% of limit, slope [0-9]+% of limit' \
		"top --once: how close the last window is"
	LC_ALL=C grep -q $'\x1b' "$T/out"
	isnt "$?" 0 "top --once: no escape codes"
	run "${D[@]}" stop 1
	run "${D[@]}" wait 1 --timeout 20s
	is "$RC" 1 "plateaud: the run stopped"
	for _ in $(seq 50); do
		run "${D[@]}" top --once
		[[ $OUT == *": no runs in progress" ]] && break
		sleep 0.1
	done
	like "$OUT" ': no runs in progress$' "top --once after the run: no runs in progress"
	kill "$DPID"
	wait "$DPID"
	is "$?" 0 "plateaud: exits 0 on SIGTERM"
	DPID=
else
	skip 12 "no $PLATEAUD"
fi

done_testing
