#!/bin/bash
# SPDX-License-Identifier: MIT
#
# report.t: `plateau report` on the fixture database (tests/fixtures/basic.sql)
# - one run (1: erase, fill, precondition steady at round 11, sweep), three
# runs (1 2 3), a run without a sweep (3: in progress, 3 rounds), a run that
# never reached steady state (2) - plus a phase of 4000 samples (drawn
# downsampled) and hostile strings (escaping).  Checked:
#   - the page: self-contained (no <script src>, <link>, @import, url() or
#     src/href to the network), the verdicts, drive identity, erase record,
#     plan, phases, evidence and sweep tables, uPlot's license inlined;
#   - the JSON the charts are drawn from (jq): series and sample counts,
#     window rounds and values, sweep points, chart counts;
#   - exit codes and one-line errors, and that a failed report writes
#     nothing and leaves an existing file alone;
#   - in a real browser (headless Chromium): every chart drew
#     (report.js sets <body data-charts-drawn>), one canvas per chart, and
#     nothing at all was logged to the console; a screenshot of each report
#     is kept in $PLATEAU_BUILD/tests/out/ (see the diag lines).
#
# Chromium logs every console message, whatever its level (log, warn,
# error, an uncaught exception), to stderr as
#   [pid:tid:MMDD/HHMMSS.us:INFO:CONSOLE:LINE] "text", source: URL (LINE)
# with --enable-logging=stderr --v=0, so the test demands no CONSOLE line at
# all (report.js logs nothing unless a chart fails) and first proves, on a
# page that logs an error and throws, that this check catches both.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/report.t
#   PLATEAU_BROWSER_REQUIRED=1   no chromium is a failure, not a skip
#   PLATEAU_CHROMIUM=PATH        the browser (default: chromium from $PATH;
#                                empty: none, to try the skip)
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
MKDB=$PLATEAU_BUILD/tests/helpers/mkdb

[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
[ -x "$MKDB" ] || skip_all "no $MKDB (make tests)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"
command -v jq >/dev/null || skip_all "no jq (apt-get install jq)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET
umask 022

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-report.XXXXXX") || bail_out "mktemp failed"
trap 'rm -rf "$T"' EXIT

DB=$T/basic.db
"$MKDB" "$DB" || bail_out "mkdb $DB failed"
sqlite3 -bail "$DB" <"$PLATEAU_SRC/tests/fixtures/basic.sql" || bail_out "loading basic.sql failed"

# run ARGS...: plateau; sets RC, OUT, ERR
run() {
	"$PLATEAU" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

# data FILE: the JSON document the charts are drawn from
data() {
	sed -n '/^<script type="application\/json" id="plateau-data">$/{n;p;q}' "$1"
}

# jqd FILE FILTER: jq -c FILTER over the page's JSON
jqd() {
	data "$1" | jq -c "$2"
}

# report NAME ARGS...: plateau --db $DB report ARGS -o $T/NAME.html, exit 0,
# nothing on stderr or stdout
report() {
	local name=$1
	shift
	run --db "${RDB:-$DB}" report "$@" -o "$T/$name.html"
	is "$RC" 0 "report $* ($name): exit 0"
	is "$ERR" "" "report $* ($name): nothing on stderr"
	is "$OUT" "" "report $* ($name): nothing on stdout"
}

# selfcontained NAME: nothing in the page is fetched from anywhere
selfcontained() {
	local f=$T/$1.html
	is "$(grep -ciE '<script[^>]*[[:space:]]src[[:space:]]*=' "$f")" 0 "$1: no <script src=>"
	is "$(grep -ciE '<link[[:space:]>]' "$f")" 0 "$1: no <link>"
	is "$(grep -ciE '<(img|iframe|object|embed|base|audio|video|source)[[:space:]>]' "$f")" 0 \
		"$1: no img/iframe/object/embed/base/media elements"
	is "$(grep -ciE '@import|url\([[:space:]]*["'\'']?[[:space:]]*(https?:)?//' "$f")" 0 \
		"$1: no @import or url() to the network"
	is "$(grep -ciE '(src|href|action)[[:space:]]*=[[:space:]]*["'\'']?[[:space:]]*(https?:)?//' "$f")" 0 \
		"$1: no src/href/action to the network"
	is "$(grep -c 'fetch(\|XMLHttpRequest\|new WebSocket\|EventSource(' "$f")" 0 \
		"$1: no fetch/XHR/WebSocket in the page"
	like "$(head -c 15 "$f")" '^<!DOCTYPE html>' "$1: an HTML document"
	is "$(tail -n 1 "$f")" "</html>" "$1: complete (ends with </html>)"
	is "$(jqd "$f" .charts)" "$(grep -c 'data-chart="' "$f")" \
		"$1: the JSON counts every chart placeholder"
}

###########################################################################
diag "one run (1): erase, fill, precondition steady at round 11, sweep"

report one 1
F=$T/one.html
selfcontained one
is "$(jqd "$F" '.runs | length')" 1 "one: 1 run in the data"
is "$(jqd "$F" '.groups | length')" 1 "one: 1 preconditioning group"
is "$(jqd "$F" '.groups[0].series | length')" 1 "one: 1 series in it"
is "$(jqd "$F" '.groups[0].series[0] | [.phase, .samples, .per_bucket]')" '[3,12,1]' \
	"one: phase 3, 12 samples, not downsampled"
for m in iops lat lat_max lat_stddev; do
	is "$(jqd "$F" ".groups[0].series[0].$m | [(.t | length), (.y | length)]")" '[12,12]' \
		"one: $m has 12 points"
done
# a_ios / 60 s (see cli.t); x = end of the round in minutes since the phase start
is "$(jqd "$F" '.groups[0].series[0].iops.y')" \
	'[200000,180000,160000,140000,120000,110000,105000,100000,101000,99000,100000,100500]' \
	"one: IOPS per round"
is "$(jqd "$F" '.groups[0].series[0].iops.t')" '[1,2,3,4,5,6,7,8,9,10,11,12]' \
	"one: minutes since the phase started"
is "$(jqd "$F" '.groups[0].series[0].lat.y | [first, last]')" '[100,265]' \
	"one: mean latency in us"
is "$(jqd "$F" '.groups[0].series[0].steady_t')" 11 "one: steady marked at minute 11"
is "$(jqd "$F" '.windows | length')" 1 "one: 1 measurement window"
is "$(jqd "$F" '.windows[0] | [.start, .end, .steady, .average, .slope, .intercept]')" \
	'[7,11,true,101000,-1100,110900]' "one: window 7-11, steady, average, fitted line"
is "$(jqd "$F" '.windows[0].values')" '[105000,100000,101000,99000,100000]' "one: window values"
is "$(jqd "$F" '.sweeps | length')" 1 "one: 1 sweep"
is "$(jqd "$F" '[.sweeps[0].series[] | [.threads, .iodepth]]')" '[[2,[2]],[4,[8]],[16,[16]]]' \
	"one: a sweep line per thread count (2x2 4x8 16x16: three of one point)"
is "$(jqd "$F" '[.sweeps[0].points[] | [.threads, .iodepth, .iops, .lat, .p99]]')" \
	'[[2,2,40000,90,225],[4,8,95000,330,825],[16,16,101000,2500,6250]]' \
	"one: sweep points: IOPS, mean and p99"
is "$(jqd "$F" '.sweeps[0].points[2] | [.read.ios, .read.p99, .write.ios, .write.mean, .write.p99, .write["p99.99"]]')" \
	'[0,null,6060000,2500,6250,15000]' "one: the point's latency per direction (no reads: null)"
is "$(jqd "$F" .charts)" 8 "one: 8 charts (4 over time, 1 window, 3 sweep)"
is "$(jqd "$F" '.windows[0].latency | [.source, .write.p50, .write.p99, .write["p99.99"], .write.max, .read.ios, .read.p99]')" \
	'["rounds",198,550,1320,2000,0,null]' \
	"one: the window's latency per direction (no histograms: the rounds' percentiles averaged)"
HTML=$(cat "$F")
has "$HTML" '<title>plateau report: run 1</title>' "one: title"
has "$HTML" 'steady at round 11' "one: verdict"
has "$HTML" '6000 within 20200 IOPS (20% of the average): pass' "one: data excursion and limit"
has "$HTML" '4400 within 10100 IOPS (10% of the average): pass' "one: slope excursion and limit"
has "$HTML" 'y = -1100 × round + 110900' "one: fitted line"
has "$HTML" '7–11 (the first window that passed)' "one: window rounds"
has "$HTML" '<td>S6CKNA0R123456</td>' "one: drive serial"
has "$HTML" '<td>GDC5302Q</td>' "one: firmware"
has "$HTML" '3.49 TiB (3840755982336 bytes)' "one: capacity"
has "$HTML" 'format-user (asked for auto)' "one: erase method"
has "$HTML" 'format-crypto: REJECTED' "one: the rejected erase attempt"
has "$HTML" 'passed: 18 of 18 sampled ranges read as 0x00' "one: erase verified"
has "$HTML" '<td class="n">29m48s</td>' "one: fill phase duration"
has "$HTML" '<td class="n">12m00s</td>' "one: precondition phase duration"
has "$HTML" $'<pre class="plan">[run]\ndevice = /dev/nvme0n1' "one: the plan, preformatted"
has "$HTML" 'points = 2x2 4x8 16x16' "one: the whole plan"
has "$HTML" '<td class="n">3</td><td class="n">16</td><td class="n">16</td><td class="n">256</td><td class="n">101000</td><td class="n">413.70</td><td class="n">—</td>' \
	"one: sweep points table row (no reads: a dash)"
has "$HTML" 'IOPS against queue depth, one line per thread count' "one: the sweep chart by queue depth"
has "$HTML" 'Mean latency against IOPS (demand intensity)' "one: the demand intensity chart"
has "$HTML" '<tr><td>writes</td><td class="n">30300000</td><td class="n">219.7&#8239;µs</td><td class="n">198.0&#8239;µs</td>' \
	"one: the window's latency table, per direction"
has "$HTML" 'profile 4k-randwrite; 16 threads × queue depth 16; criterion snia; window 5; data limit 20 %; slope limit 10 %; max rounds 25; metrics iops' \
	"one: phase parameters as text"
unlike "$HTML" '{&quot;profile' "one: no raw JSON parameters"
has "$HTML" 'steady-reached' "one: events"
has "$HTML" 'Copyright (c) 2022 Leon Sorokin' "one: uPlot's license inlined"
has "$HTML" 'Permission is hereby granted, free of charge' "one: with its text"
unlike "$HTML" 'downsampled' "one: nothing downsampled"

###########################################################################
diag "three runs (1 2 3) overlaid"

report three 1 2 3
F=$T/three.html
selfcontained three
is "$(jqd "$F" '[.runs[].id]')" '[1,2,3]' "three: runs 1 2 3"
is "$(jqd "$F" '[.runs[].color] | unique | length')" 3 "three: a colour each"
is "$(jqd "$F" '.groups | length')" 2 "three: 2 groups: one per workload"
is "$(jqd "$F" '[.groups[] | [.workload, .loads_differ, [.series[] | [.run, .phase, .samples]]]]')" \
	'[["4k-randwrite: random writes of 4k",true,[[0,3,12],[2,1,3]]],["8k-7030: random I/O, 70 % reads, of 8k",false,[[1,1,12]]]]' \
	"three: runs 1 and 3 (4k random writes) overlaid, run 2 (8k 70/30) apart"
is "$(jqd "$F" '[.groups[].series[] | .iops.y | length]')" '[12,3,12]' "three: points per run"
is "$(jqd "$F" '[.windows[] | [.run, .start, .end, .steady]]')" '[[0,7,11,true],[1,8,12,false]]' \
	"three: windows of runs 1 and 2 (run 3 has too few rounds)"
is "$(jqd "$F" '[.sweeps[].series[].run] | unique')" '[0]' "three: only run 1 has a sweep"
is "$(jqd "$F" .charts)" 13 "three: 13 charts"
HTML=$(cat "$F")
has "$HTML" 'phase 3 4k-randwrite: steady at round 11' "three: run 1 verdict"
has "$HTML" 'phase 1 8k-7030: NOT steady after 12 rounds (max-rounds cap reached)' \
	"three: run 2 verdict"
has "$HTML" 'NOT steady after 3 rounds (fewer than the window of 5; still running)' \
	"three: run 3 verdict"
has "$HTML" 'write at offset 1048576 (8192 bytes): Input/output error' "three: run 2's error"

###########################################################################
diag "a run without a sweep (3, in progress)"

report nosweep 3
F=$T/nosweep.html
selfcontained nosweep
is "$(jqd "$F" '[(.sweeps | length), (.windows | length), .charts]')" '[0,0,4]' \
	"nosweep: no sweep, no window to judge, the 4 charts over time"
is "$(jqd "$F" '.groups[0].series[0] | [.samples, (.iops.y | length), .steady_t]')" '[3,3,null]' \
	"nosweep: 3 samples, not steady"
HTML=$(cat "$F")
unlike "$HTML" 'id="sweeps"' "nosweep: no sweep section"
has "$HTML" '3 rounds so far: the window is 5 rounds, so there is nothing to judge yet.' \
	"nosweep: says why there is no window"
has "$HTML" '>no sweep<' "nosweep: summary says no sweep"

###########################################################################
diag "a run that never reached steady state (2)"

report never 2
F=$T/never.html
selfcontained never
is "$(jqd "$F" '.windows[0] | [.start, .end, .steady, .average, .slope, .intercept]')" \
	'[8,12,false,36000,-6000,96000]' "never: the last judged window, not steady"
is "$(jqd "$F" '.windows[0].values')" '[48000,42000,36000,30000,24000]' "never: its values"
is "$(jqd "$F" '.groups[0].series[0].steady_t')" null "never: no steady mark"
is "$(jqd "$F" .charts)" 5 "never: 5 charts"
HTML=$(cat "$F")
has "$HTML" '<td class="verdict">NOT steady after 12 rounds (max-rounds cap reached)</td>' \
	"never: NOT steady verdict"
has "$HTML" '8–12 (the last window judged)' "never: says which window is shown"
has "$HTML" '24000 exceeds 7200 IOPS (20% of the average): FAIL' "never: data excursion fails"
has "$HTML" '24000 exceeds 3600 IOPS (10% of the average): FAIL' "never: slope excursion fails"

###########################################################################
diag "the same judgement as plateau steady, with the phase's own criterion"

for r in 1 2; do
	run --db "$DB" steady "$r" --json
	is "$(jq -c '[.window_start, .window_end, .average, .slope, .intercept, .steady]' "$T/out")" \
		"$(jqd "$T/three.html" ".windows[$((r - 1))] | [.start, .end, .average, .slope, .intercept, .steady]")" \
		"run $r: the window of the report is the one plateau steady judges"
done
CRIT=$T/crit.db
cp "$DB" "$CRIT"
sqlite3 -bail "$CRIT" <<'EOF' || bail_out "making $CRIT failed"
UPDATE phases SET params = '{"criterion":"snia","metrics":["iops","lat"],"max_rounds":25}' WHERE id = 3;
UPDATE phases SET params = '{"criterion":"fio-slope","slope_limit":1}' WHERE id = 5;
EOF
RDB=$CRIT report crit 1 2
RDB=
F=$T/crit.html
is "$(jqd "$F" '[.windows[] | [.run, .metric, .unit, .start, .end, .steady]]')" \
	'[[0,"iops","IOPS",8,12,false],[0,"lat","µs",8,12,false],[1,"iops","IOPS",8,12,false]]' \
	"crit: a window per judged metric (iops and lat must pass together: never)"
is "$(jqd "$F" .charts)" 14 "crit: 14 charts (two workloads: 4 + 4 over time, 3 windows, 3 sweep)"
HTML=$(cat "$F")
has "$HTML" '60 exceeds 47 µs (20% of the average): FAIL' "crit: lat data excursion"
has "$HTML" '6000 exceeds 360 IOPS (1% of the mean): FAIL' "crit: fio-slope limit, 1 % of the mean"
has "$HTML" '<tr><th>Criterion</th><td>fio-slope, window 5 rounds, 12 rounds judged</td></tr>' \
	"crit: fio-slope named"
BLOCK=$(sed -n '/run 2 phase 1 (8k-7030), iops/,/<\/table>/p' "$F")
has "$BLOCK" 'Slope excursion' "crit: fio-slope judges the slope"
unlike "$BLOCK" 'Data excursion' "crit: and no data excursion"

###########################################################################
diag "standard output, bad input, nothing half-written"

run --db "$DB" report 1 -o -
is "$RC" 0 "-o -: exit 0"
like "$(head -c 15 "$T/out")" '^<!DOCTYPE html>' "-o -: the page on stdout"
is "$(data "$T/out" | jq -c '.groups[0].series[0].samples')" 12 "-o -: with its data"
run --db "$DB" report 1 --output="$T/long.html"
[ "$RC" = 0 ] && [ -s "$T/long.html" ]
ok $? "--output=FILE writes the report"
is "$(stat -c %a "$T/long.html")" 644 "the report is 0644 under umask 022"

echo "keep me" >"$T/keep.html"
# expect_fail RC NEEDLE NAME ARGS...: exit RC, one "plateau: " line naming
# NEEDLE, nothing on stdout, keep.html untouched and no temporary file left
expect_fail() {
	local want_rc=$1 needle=$2 name=$3
	shift 3
	run "$@"
	is "$RC" "$want_rc" "$name: exit $want_rc"
	is "$(wc -l <"$T/err")" 1 "$name: one line on stderr"
	like "$ERR" '^plateau: ' "$name: stderr starts with 'plateau: '"
	has "$ERR" "$needle" "$name: stderr names '$needle'"
	is "$OUT" "" "$name: nothing on stdout"
	is "$(cat "$T/keep.html")" "keep me" "$name: the existing file is untouched"
	is "$(find "$T" -name '.keep.html.*' | wc -l)" 0 "$name: no temporary file left"
}
expect_fail 3 "no run 99" "unknown run" --db "$DB" report 99 -o "$T/keep.html"
expect_fail 3 "no run 99" "one unknown run among good ones" --db "$DB" report 1 99 2 -o "$T/keep.html"
expect_fail 2 "-o FILE.html" "missing -o" --db "$DB" report 1
expect_fail 2 "missing RUN" "no run" --db "$DB" report -o "$T/keep.html"
expect_fail 2 "'abc'" "not a run number" --db "$DB" report abc -o "$T/keep.html"
expect_fail 2 "run 1 is named twice" "a run twice" --db "$DB" report 1 2 1 -o "$T/keep.html"
expect_fail 2 "takes no --json" "--json" --db "$DB" report 1 --json -o "$T/keep.html"
expect_fail 2 "given twice" "-o twice" --db "$DB" report 1 -o "$T/keep.html" -o "$T/x.html"
expect_fail 3 "$T/nope.db" "no database" --db "$T/nope.db" report 1 -o "$T/keep.html"
expect_fail 2 "$T/no/such/dir/x.html" "unwritable target" --db "$DB" report 1 -o "$T/no/such/dir/x.html"
[ ! -e "$T/x.html" ]
ok $? "no report written by a failed command"

# -o over a database the report reads (the file itself, its -wal, a file of
# a --db DIR): refused, the database left as it was (the rename would have
# replaced it with the page)
mkdir "$T/selfdir"
for f in "$T/self.db" "$T/selfdir/s.db"; do
	"$MKDB" "$f" && sqlite3 -bail "$f" <"$PLATEAU_SRC/tests/fixtures/basic.sql" &&
		"$PLATEAU" --db "$f" runs >/dev/null || bail_out "making $f failed"
done
[ -e "$T/self.db-wal" ] || bail_out "reading self.db left no -wal"
SELFSUM=$(cat "$T/self.db" "$T/self.db-wal" "$T/selfdir/s.db" | sha256sum)
for o in "$T/self.db" "$T/self.db-wal" "$T/self.db-shm"; do
	run --db "$T/self.db" report 1 -o "$o"
	is "$RC" 2 "-o ${o#"$T"/} while reading self.db: exit 2"
	has "$ERR" "report: -o $o is one of the databases read" "  says why"
done
run --db "$T/selfdir" report 1 -o "$T/selfdir/s.db"
is "$RC" 2 "-o DIR/s.db while reading --db DIR: exit 2"
has "$ERR" "is one of the databases read" "  says why"
is "$(cat "$T/self.db" "$T/self.db-wal" "$T/selfdir/s.db" | sha256sum)" "$SELFSUM" \
	"  the databases and their -wal are untouched"
run --db "$T/self.db" runs --csv
is "$RC:$(echo "$OUT" | wc -l)" "0:5" "  self.db still reads: 4 runs"

###########################################################################
diag "a partial sample (the drain at a stop) is kept in the database, not drawn"
cp "$DB" "$T/partial.db"
sqlite3 -bail "$T/partial.db" "
	CREATE TEMP TABLE last AS SELECT * FROM samples WHERE phase_id = 3
	    ORDER BY seq DESC LIMIT 1;
	UPDATE last SET seq = seq + 1, start_ns = end_ns, end_ns = end_ns + 50000000,
	    w_ios = 10, w_bytes = 40960, a_ios = 10, a_bytes = 40960, partial = 1;
	INSERT INTO samples SELECT * FROM last;" || bail_out "adding a partial sample failed"
RDB=$T/partial.db report partial 1
is "$(jqd "$T/partial.html" '.groups[0].series[0] | [.samples, (.iops.y | length)]')" '[12,12]' \
	"partial: 12 samples drawn of the 13 stored"
is "$(jqd "$T/partial.html" '.groups[0].series[0].iops.y')" \
	"$(jqd "$F" '.groups[0].series[0].iops.y')" "partial: the IOPS curve of the run without it"

diag "a long phase is drawn from per-span minima and maxima"

BIG=$T/big.db
cp "$DB" "$BIG"
# run 4 gets a precondition phase of 4000 one-minute rounds at 1000 IOPS,
# with a spike (10000 IOPS) at round 1234 and a dip (100 IOPS) at 2345
sqlite3 -bail "$BIG" <<'EOF' || bail_out "making $BIG failed"
INSERT INTO phases VALUES (7, 4, 1, 'precondition', '4k-randwrite', '{"profile":"4k-randwrite","criterion":"snia"}', 'done', 1796095000000000000, 1796335000000000000, 0, 0, 4000, NULL, NULL, NULL);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 4000),
v(i, ios) AS (SELECT i, CASE i WHEN 1234 THEN 600000 WHEN 2345 THEN 6000 ELSE 60000 END FROM r)
INSERT INTO samples SELECT 7, i, 1796095000000000000 + (i - 1) * 60000000000, 1796095000000000000 + i * 60000000000, 0,
	0, 0, 0.0, 0.0, 0, 0, 0, 0, 0, 0, 0,
	ios, ios * 4096, 100000.0, 25000.0, 20000, 800000, 90000, 150000, 250000, 400000, 600000,
	ios, ios * 4096, 100000.0, 25000.0, 20000, 800000, 90000, 150000, 250000, 400000, 600000,
	NULL, NULL, 0, NULL, 0 FROM v;
EOF
RDB=$BIG report big 4
RDB=
F=$T/big.html
selfcontained big
is "$(jqd "$F" '.groups[0].series[0] | [.samples, .per_bucket]')" '[4000,3]' \
	"big: 4000 samples in spans of 3 (at most 1500 spans)"
N=$(jqd "$F" '.groups[0].series[0].iops.y | length')
ok $(( N > 3000 || N < 1334 )) "big: $N points drawn (1334..3000)"
is "$(jqd "$F" '.groups[0].series[0].iops.y | [max, min]')" '[10000,100]' \
	"big: the spike and the dip survive"
is "$(jqd "$F" '[.groups[0].series[0].iops.t[] | select(. == 1234 or . == 2345)]')" '[1234,2345]' \
	"big: at their own times"
has "$(cat "$F")" 'run 4: 4000 samples drawn as at most 3000 points' "big: the page says so"
has "$(cat "$F")" 'steady at round 5' "big: judged on every sample"

###########################################################################
diag "strings from the database cannot break out of the page"

EVIL=$T/evil.db
cp "$DB" "$EVIL"
sqlite3 -bail "$EVIL" <<'EOF' || bail_out "making $EVIL failed"
UPDATE runs SET name = '</script><script>document.title="pwned"</script><b id=evil>x</b>',
	plan = '<!-- [run]' || char(10) || 'name = </script><img src=x onerror=alert(1)>' WHERE id = 1;
UPDATE drives SET model = 'A&B "quoted" <i>model</i>' WHERE id = 1;
UPDATE phases SET name = '<!--', params = '{"profile":"</script>","threads":16,"iodepth":16,"criterion":"snia","max_rounds":25}' WHERE id = 3;
EOF
RDB=$EVIL report evil 1 2
RDB=
F=$T/evil.html
selfcontained evil
HTML=$(cat "$F")
unlike "$HTML" '</script><script>document' "evil: the run name cannot close a script"
unlike "$HTML" '<b id=evil>' "evil: nor open an element"
is "$(grep -c '<!--' "$F")" 0 "evil: no comment opened by the plan or a phase name"
has "$HTML" '&lt;/script&gt;&lt;script&gt;document.title=&quot;pwned&quot;' "evil: the name escaped in HTML"
has "$HTML" 'A&amp;B &quot;quoted&quot; &lt;i&gt;model&lt;/i&gt;' "evil: the model escaped"
has "$HTML" '\u003c/script>\u003cscript>' "evil: '<' written as \\u003c in the JSON"
is "$(jqd "$F" '.runs[0].name')" '"</script><script>document.title=\"pwned\"</script><b id=evil>x</b>"' \
	"evil: the JSON still holds the name as it is"
is "$(jqd "$F" '.groups[0].series[0].name')" '"<!--"' "evil: and the phase name"

###########################################################################
diag "a 4x4 thread x queue depth sweep: a line per thread count (tests/fixtures/report-sweep.sql)"

GRID=$T/grid.db
cp "$DB" "$GRID"
sqlite3 -bail "$GRID" <"$PLATEAU_SRC/tests/fixtures/report-sweep.sql" || bail_out "loading report-sweep.sql failed"
RDB=$GRID report sweep 5
RDB=
F=$T/sweep.html
selfcontained sweep
is "$(jqd "$F" '.sweeps | length')" 2 "sweep: two sweeps (8k 70/30, 128k sequential reads)"
is "$(jqd "$F" '[.sweeps[0].series[] | [.run, .threads, .iodepth]]')" \
	'[[0,1,[1,4,16,32]],[0,2,[1,4,16,32]],[0,4,[1,4,16,32]],[0,8,[1,4,16,32]]]' \
	"sweep: one series per thread count, over queue depth in order (measured queue depth first)"
is "$(jqd "$F" '[.sweeps[] | .y]')" '["iops","bw"]' "sweep: IOPS for 8k, MB/s for 128k sequential"
is "$(jqd "$F" '.sweeps[0].points | length')" 16 "sweep: 16 points in the table data"
is "$(jqd "$F" '[.sweeps[0].series[3] | .iops[3] < .iops[2], .lat[3] > .lat[2]]')" '[true,true]' \
	"sweep: 8 threads at QD 32 lose IOPS and gain latency (the demand-intensity hook)"
is "$(jqd "$F" .charts)" 6 "sweep: 6 charts (3 per sweep)"
HTML=$(cat "$F")
has "$HTML" 'IOPS against queue depth, one line per thread count' "sweep: the IOPS chart"
has "$HTML" 'MB/s against queue depth, one line per thread count' "sweep: MB/s for large transfers"
has "$HTML" 'Mean latency against IOPS (demand intensity), one line per thread count' "sweep: demand intensity"
has "$HTML" '<th colspan="3">Read latency</th><th colspan="3">Write latency</th>' "sweep: read and write latency columns"
has "$HTML" 'workload 8k-7030: random I/O, 70 % reads, of 8k; points 1x1 2x1' "sweep: parameters as text"
has "$HTML" 'time 1m00s; ramp 5.0s' "sweep: durations as text"
# Every number of the points is the stored figure converted exactly as
# sample_metric() does (I/Os / 60 s, bytes / 60 s / 1e6, ns / 1e3), and
# must read back as that double: jq compares them as doubles.
sqlite3 -json "$GRID" "SELECT seq, threads, iodepth, a_ios, a_bytes, r_lat_p99_ns, r_lat_p9999_ns,
	w_lat_p99_ns, w_lat_p9999_ns, a_lat_p99_ns, a_lat_max_ns FROM points WHERE phase_id = 20
	ORDER BY threads, iodepth" >"$T/points.json"
data "$F" >"$T/sweep.json"
is "$(jq -c --slurpfile db "$T/points.json" '[range(16) as $i | .sweeps[0].points[$i] as $p | $db[0][$i] as $r |
	($p.point == $r.seq and $p.iops == $r.a_ios / 60 and $p.bw == $r.a_bytes / 60 / 1e6 and
	 $p.p99 == $r.a_lat_p99_ns / 1e3 and $p.lat_max == $r.a_lat_max_ns / 1e3 and
	 $p.read.p99 == $r.r_lat_p99_ns / 1e3 and $p.read["p99.99"] == $r.r_lat_p9999_ns / 1e3 and
	 $p.write.p99 == $r.w_lat_p99_ns / 1e3 and $p.write["p99.99"] == $r.w_lat_p9999_ns / 1e3)] | unique' "$T/sweep.json")" \
	'[true]' "sweep: every point's IOPS, MB/s and latencies read back exactly"
is "$(jq -c '[.sweeps[0].points[] | .iops | tostring | select(test("^[0-9]+\\.[0-9]{8,}$"))] | length > 8' "$T/sweep.json")" \
	true "sweep: non-round IOPS keep their digits (not %.6g)"

###########################################################################
diag "runs are compared by workload and load, and the page says when they differ"

RDB=$GRID report workloads 6 7
F=$T/workloads.html
is "$(jqd "$F" '[.groups[] | [.workload, .load, .loads_differ, [.series[].run]]]')" \
	'[["4k-randwrite: random writes of 4k","2x8",false,[0]],["128k-seqwrite: sequential writes of 128k","4x32",false,[1]]]' \
	"workloads: 4k random at 2x8 and 128k sequential at 4x32 are not overlaid"
HTML=$(cat "$F")
has "$HTML" 'Preconditioning 1: 4k-randwrite: random writes of 4k, 2×8</h2>' "workloads: the heading names workload and load"
has "$HTML" 'Not compared here: <span class="swatch" style="background:#d55e00"></span><a href="#run-7">run 7</a> seq128k-4x32 ran 128k-seqwrite: sequential writes of 128k (<a href="#precondition-2">Preconditioning 2</a>).' \
	"workloads: the note says which run is elsewhere, with what"
RDB=$GRID report loads 6 8
F=$T/loads.html
is "$(jqd "$F" '[.groups[] | [.load, .loads_differ, [.series[].run]]]')" '[[null,true,[0,1]]]' \
	"loads: the same workload at 2x8 and 4x32: one group, marked"
has "$(cat "$F")" '<span class="differs">— the loads differ: run 6 2×8, run 8 4×32</span></h2>' \
	"loads: the heading says the loads differ"
RDB=$GRID report order 8 6 1
F=$T/order.html
is "$(jqd "$F" '[.groups[] | [.load, .loads_differ, [.series[] | [.run, .phase]]]]')" '[[null,true,[[0,1],[1,1],[2,3]]]]' \
	"order: a profile's name (run 1) and its pattern, reads and sizes (runs 6, 8) are one workload; three loads, one group, marked"
has "$(cat "$F")" '— the loads differ: run 8 4×32, run 6 2×8, run 1 16×16</span>' "order: in the order the runs were named"
RDB=

###########################################################################
diag "a window's latency from its histograms, and every curve value exact (tests/helpers/gendb)"

GEN=$T/gen.db
"$PLATEAU_BUILD/tests/helpers/gendb" "$GEN" 40 --host hostG >/dev/null || bail_out "gendb failed"
RDB=$GEN report gen 1
RDB=
F=$T/gen.html
data "$F" >"$T/gen.json"
run --db "$GEN" latency 1 --window --json
is "$RC" 0 "gen: plateau latency --window: exit 0"
is "$(jq -c '.windows[0] | [.start, .end, .latency.source, .latency.all.ios, .latency.all.mean,
	.latency.all.p50, .latency.all.p90, .latency.all.p99, .latency.all["p99.9"], .latency.all["p99.99"],
	.latency.all.max]' "$T/gen.json")" \
	"$(jq -c '.[0] | [.first_round, .last_round, "histograms", .ios, .lat_mean_us, .p50_us, .p90_us,
	.p99_us, .["p99.9_us"], .["p99.99_us"], .lat_max_us]' "$T/out")" \
	"gen: the window's percentiles are those of plateau latency --window (merged histograms)"
# IOPS = I/Os / ((end - start) / 1e9), x = (end - phase start) / 60e9: computed
# by jq from the stored integers as report-data.c does; equal only when the
# page's numbers read back as the same doubles
sqlite3 -json "$GEN" "SELECT s.a_ios, s.end_ns - s.start_ns AS dur_ns, s.end_ns - p.started_ns AS t_ns
	FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.seq = 3 ORDER BY s.seq" >"$T/gen-db.json"
is "$(jq -c --slurpfile db "$T/gen-db.json" '.groups[0].series[0].iops as $c |
	[range($db[0] | length) as $i | $db[0][$i] as $r |
	 ($c.y[$i] == $r.a_ios / ($r.dur_ns / 1e9) and $c.t[$i] == $r.t_ns / 60e9)] | [length, unique]' "$T/gen.json")" \
	'[40,[true]]' "gen: all 40 IOPS values and their times read back exactly"
is "$(jq -c '[.groups[0].series[0].iops.y[] | tostring | select(length > 7)] | length > 30' "$T/gen.json")" true \
	"gen: with all their digits (noisy IOPS are not round)"
has "$(cat "$F")" "percentiles of the rounds' merged histograms" "gen: the page says where the percentiles come from"

###########################################################################
diag "--metric: latency beyond p99, per direction"

report metric 2 --metric read.p99.9,write.lat --metric p99.99,lat-max,read.iops,p99.99
F=$T/metric.html
is "$(jqd "$F" '[.curves[] | [.key, .lat]]')" \
	'[["iops",false],["lat",true],["lat_max",true],["lat_stddev",true],["read.p99.9",true],["write.lat",true],["p99.99",true],["read.iops",false]]' \
	"metric: the default four and the four asked for (a default or a repeat drawn once)"
is "$(jqd "$F" '.groups[0].series[0] | [.["read.p99.9"].y[0], .["write.lat"].y[0], .["p99.99"].y[0]]')" '[960,300,1548]' \
	"metric: their values (round 1: read p99.9, write mean, p99.99 in us)"
is "$(jqd "$F" .charts)" 9 "metric: 9 charts (8 over time, 1 window)"
is "$(jqd "$F" '.groups[0].series[0]["read.iops"].y[0]')" 63000 "metric: reads per second (3780000 in 60 s)"
has "$(cat "$F")" '99.9th percentile latency of reads (read.p99.9)' "metric: the chart's caption"
# run 2's window is rounds 8-12: reads 2016000 + ... + 1008000, p50 316.8 ... 374.4 us
is "$(jqd "$F" '.windows[0].latency | [.source, .read.ios, .read.p50, .write.p99, .all.p99]')" \
	'["rounds",7560000,345.6,1200,1032]' "metric: the window's latency per direction (70/30: both)"
run --db "$DB" report 2 --metric read.p42 -o "$T/x.html"
is "$RC" 2 "metric: an unknown metric: exit 2"
has "$ERR" "--metric 'read.p42': expected one of" "metric: named in the error"

###########################################################################
diag "three databases from three hosts in one report"

for h in A B C; do
	l=$(echo $h | tr ABC abc)
	"$MKDB" "$T/host$h.db" || bail_out "mkdb failed"
	sqlite3 -bail "$T/host$h.db" <"$PLATEAU_SRC/tests/fixtures/basic.sql" || bail_out "loading basic.sql failed"
	# each host's runs have their own host name and global ids
	sqlite3 -bail "$T/host$h.db" "UPDATE runs SET host = 'host$h', uuid = '$l$l$l$l$l$l$l$l' || substr(uuid, 9)" ||
		bail_out "renaming host $h failed"
done
run --db "$T/hostA.db" --db "$T/hostB.db" --db "$T/hostC.db" report hostA:1 hostB:2 hostC:1 -o "$T/threedb.html"
is "$RC" 0 "threedb: exit 0" || diag "$ERR"
is "$ERR" "" "threedb: nothing on stderr"
F=$T/threedb.html
selfcontained threedb
is "$(jqd "$F" '[.runs[] | [.ref, .host, .id, .uuid]]')" \
	'[["hostA:1","hostA",1,"aaaaaaaa-0000-4000-8000-000000000001"],["hostB:2","hostB",2,"bbbbbbbb-0000-4000-8000-000000000002"],["hostC:1","hostC",1,"cccccccc-0000-4000-8000-000000000001"]]' \
	"threedb: the three runs with their hosts and global ids"
is "$(jqd "$F" '[.runs[].db]')" "[\"$T/hostA.db\",\"$T/hostB.db\",\"$T/hostC.db\"]" "threedb: each from its database"
is "$(jqd "$F" '[.groups[] | [.series[].run]]')" '[[0,2],[1]]' \
	"threedb: hostA:1 and hostC:1 (one workload and load) overlaid, hostB:2 apart"
HTML=$(cat "$F")
has "$HTML" '<title>plateau report: hostA:1, hostB:2, hostC:1</title>' "threedb: title"
has "$HTML" "from 3 databases: $T/hostA.db, $T/hostB.db, $T/hostC.db." "threedb: names the databases"
for h in A B C; do
	has "$HTML" "<td>host$h</td>" "threedb: host$h in the tables"
done
has "$HTML" '<td class="uuid">bbbbbbbb-0000-4000-8000-000000000002</td>' "threedb: the global id in the summary"
has "$HTML" '<section class="run" id="run-3-1">' "threedb: hostC:1 has its own section"
mkdir "$T/lab"
cp "$T/hostA.db" "$T/hostB.db" "$T/hostC.db" "$T/lab/"
run --db "$T/lab" report hostC:1 hostB:2 -o "$T/labdir.html"
is "$RC:$ERR" "0:" "threedb: --db DIR: exit 0, nothing on stderr"
is "$(jqd "$T/labdir.html" '[.runs[] | [.ref, .db]]')" "[[\"hostC:1\",\"$T/lab/hostC.db\"],[\"hostB:2\",\"$T/lab/hostB.db\"]]" \
	"threedb: --db DIR: each run from its file in the directory"
run --db "$T/hostA.db" --db "$T/hostB.db" report hostA:1 hostA:1 -o "$T/x.html"
is "$RC:$ERR" "2:plateau: run hostA:1 is named twice" "threedb: a run named twice"
cp "$T/hostA.db" "$T/copyA.db"
sqlite3 -bail "$T/copyA.db" "UPDATE runs SET host = 'lab'" || bail_out "copyA failed"
run --db "$T/hostA.db" --db "$T/copyA.db" report hostA:1 lab:1 -o "$T/x.html"
is "$RC:$ERR" "2:plateau: runs hostA:1 and lab:1 are the same run (global id aaaaaaaa-0000-4000-8000-000000000001): name it once" \
	"threedb: the same run in two databases (imported) named twice"

###########################################################################
# The browser

CHROMIUM=${PLATEAU_CHROMIUM-$(command -v chromium || command -v chromium-browser || true)}
BROWSER_TESTS=72
if [ -z "$CHROMIUM" ]; then
	if [ "${PLATEAU_BROWSER_REQUIRED:-}" = 1 ]; then
		fail "chromium is required (PLATEAU_BROWSER_REQUIRED=1): apt-get install -y chromium"
	else
		skip $BROWSER_TESTS "no chromium (apt-get install -y chromium)"
	fi
	done_testing
fi

OUTDIR=$PLATEAU_BUILD/tests/out
mkdir -p "$OUTDIR" 2>/dev/null && [ -w "$OUTDIR" ] || OUTDIR=$(mktemp -d "${TMPDIR:-/tmp}/plateau-report-out.XXXXXX")

# browser ARGS... URL: headless Chromium with a fresh profile and nothing
# that talks to the network; stdout to $T/dom, stderr to $T/log
browser() {
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --virtual-time-budget=5000 "$@" >"$T/dom" 2>"$T/log"
	BRC=$?
	rm -rf "$profile"
}

# console: the console messages of the last browser run
console() {
	grep -E ':CONSOLE[:(]' "$T/log"
}

diag "browser: $CHROMIUM ($("$CHROMIUM" --version 2>/dev/null | grep -v '^/' | head -n 1))"

# The check must see what a broken page logs: an error and an exception.
cat >"$T/broken.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title></head><body>
<script>console.error("deliberate error from report.t");</script>
<script>undefinedFunctionFromReportT();</script>
</body></html>
EOF
browser --enable-logging=stderr --v=0 --dump-dom "file://$T/broken.html"
is "$BRC" 0 "self-test: chromium ran"
has "$(console)" '"deliberate error from report.t"' "self-test: console.error is caught"
has "$(console)" 'undefinedFunctionFromReportT is not defined' "self-test: an exception is caught"

# ... and report.js must say so when a chart fails
sed 's/data-chart="sweep-qd"/data-chart="bogus"/' "$T/one.html" >"$T/bogus.html"
browser --enable-logging=stderr --v=0 --dump-dom "file://$T/bogus.html"
has "$(grep -o '<body[^>]*>' "$T/dom")" 'data-charts-state="error"' "self-test: a failed chart is marked"
is "$(grep -c 'class="[^"]*chart-error' "$T/dom")" 1 "self-test: on its element"
has "$(console)" 'plateau report: chart bogus' "self-test: and logged to the console"

# check NAME: open $T/NAME.html, every chart drawn, no console message,
# a screenshot kept
check() {
	local name=$1 f=$T/$1.html want body shot
	want=$(jqd "$f" .charts)
	browser --enable-logging=stderr --v=0 --dump-dom "file://$f"
	is "$BRC" 0 "$name: chromium opened the report"
	body=$(grep -o '<body[^>]*>' "$T/dom" | head -n 1)
	has "$body" "data-charts-state=\"done\"" "$name: report.js finished"
	has "$body" "data-charts-drawn=\"$want\"" "$name: all $want charts drawn"
	is "$(grep -o '<canvas' "$T/dom" | wc -l)" "$want" "$name: $want canvases"
	is "$(grep -oE '<canvas width="[0-9]+" height="[0-9]+"' "$T/dom" |
		awk -F'"' '$2 < 200 || $4 < 100' | wc -l)" 0 "$name: every canvas has a real size"
	is "$(grep -c 'class="[^"]*chart-error' "$T/dom")" 0 "$name: no chart failed"
	is "$(console)" "" "$name: nothing logged to the console" || diag "$(console)"
	shot=$OUTDIR/report-$name.png
	rm -f "$shot"
	browser --hide-scrollbars --window-size=1280,${2:-2400} --screenshot="$shot" "file://$f"
	[ "$BRC" = 0 ] && [ "$(head -c 8 "$shot" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	ok $? "$name: screenshot taken" && diag "screenshot: $shot"
}

check one 4200
check three 2400
check nosweep 2000
check never 2400
check evil 2400
check sweep 2400
check metric 2400
check threedb 3000
is "$(grep -c '<b id="evil">' "$T/dom")" 0 "evil: no element injected into the DOM"

# print: report.js redraws the charts at the page's width before printing
browser --no-pdf-header-footer --print-to-pdf="$OUTDIR/report-three.pdf" "file://$T/three.html"
[ "$BRC" = 0 ] && [ "$(head -c 5 "$OUTDIR/report-three.pdf" 2>/dev/null)" = "%PDF-" ]
ok $? "three: printed to PDF" && diag "printed: $OUTDIR/report-three.pdf"

done_testing
