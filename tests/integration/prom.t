#!/bin/bash
# SPDX-License-Identifier: MIT
#
# prom.t: the Prometheus side (issue 6, "Alerting and fleets").
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/prom.t
#
# - examples/prometheus/plateau.rules.yml passes `promtool check rules`;
# - its unit tests (plateau.rules.test.yml) pass `promtool test rules`: each
#   alert fires, and does not fire, on made-up series; a rule weakened on
#   purpose fails them, so they test something;
# - the textfile a real plateaud writes during a run (a 128 MiB regular
#   file, 200 ms rounds) passes `promtool check metrics` and carries the
#   run's labels and every metric the rules use.
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PROMDIR=$PLATEAU_SRC/examples/prometheus
RULES=$PROMDIR/plateau.rules.yml
PLATEAU=$PLATEAU_BUILD/plateau
PLATEAUD=$PLATEAU_BUILD/plateaud

command -v promtool >/dev/null ||
	skip_all "no promtool (Debian: apt-get install prometheus)"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET

T=$(mktemp -d "${TMPDIR:-/tmp}/plateau-prom.XXXXXX") || bail_out "mktemp failed"
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# --- the rules ---

out=$(promtool check rules "$RULES" 2>&1)
ok $? "promtool check rules plateau.rules.yml" || diag "$out"
has "$out" "SUCCESS: 4 rules found" "four rules"
for a in PlateauSteadyStateReached PlateauSteadyStateLost PlateauRunFailed PlateauNoSample; do
	grep -q "^      - alert: $a\$" "$RULES"
	ok $? "rule $a"
done

out=$(cd "$PROMDIR" && promtool test rules plateau.rules.test.yml 2>&1)
ok $? "promtool test rules plateau.rules.test.yml" || diag "$out"

# the checks are real: a broken rule file fails check, a weakened rule
# (two intervals instead of three; no host separation) fails the tests
sed 's/expr: plateau_steady == 1/expr: plateau_steady ==/' "$RULES" >"$T/plateau.rules.yml"
promtool check rules "$T/plateau.rules.yml" >/dev/null 2>&1
isnt "$?" 0 "promtool check rules rejects a broken expression"
cp "$PROMDIR/plateau.rules.test.yml" "$T/"
sed 's/> 3 \* plateau_sample_interval_seconds/> 2 * plateau_sample_interval_seconds/' "$RULES" \
	>"$T/plateau.rules.yml"
(cd "$T" && promtool test rules plateau.rules.test.yml >/dev/null 2>&1)
isnt "$?" 0 "the unit tests catch 'no sample for 2 intervals'"
sed 's/and ignoring (state) (plateau_run_state/and on (run, device, serial) (plateau_run_state/' \
	"$RULES" >"$T/plateau.rules.yml"
(cd "$T" && promtool test rules plateau.rules.test.yml >/dev/null 2>&1)
isnt "$?" 0 "the unit tests catch a rule that mixes hosts"

# --- the textfile of a real run ---

if [ ! -x "$PLATEAUD" ] || [ ! -x "$PLATEAU" ]; then
	skip 25 "no $PLATEAUD or $PLATEAU (build first)"
	done_testing
fi

IMG=$T/target.img
truncate -s 128M "$IMG"
SERIAL=$("$PLATEAU" drives "$IMG" --csv |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "serial") c = i; next } { print $c }')
like "$SERIAL" '^file:[0-9]+:[0-9]+:[0-9]+:[0-9]+\.[0-9]{9}(:g[0-9]+)?$' "plateau drives: the file's serial"
cat >"$T/prom.plan" <<EOF
[run]
device = $IMG
serial = $SERIAL
name = prom-test
interval = 200ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
after_steady = continue
max_rounds = 300
EOF
PROM=$T/plateau.prom
D=(--db "$T/p.db" --socket "$T/ctl.sock")
# plateaud takes regular files only beneath plateaud.conf's file_targets
printf '[daemon]\nfile_targets = %s\n' "$(dirname "$IMG")" >"$T/plateaud.conf"
"$PLATEAUD" "${D[@]}" --config "$T/plateaud.conf" --prometheus-file "$PROM" 2>"$T/plateaud.log" &
DPID=$!
for _ in $(seq 50); do [ -S "$T/ctl.sock" ] && break; sleep 0.1; done
out=$("$PLATEAU" "${D[@]}" start "$T/prom.plan" 2>&1)
is "$out" "run 1 started" "plateau start: run 1" || diag "$(cat "$T/plateaud.log")"

# the file is replaced atomically (rename), so a copy is one whole write;
# wait for a few rounds
LABELS="run=\"1\",device=\"$IMG\",serial=\"$SERIAL\""
# value METRIC FILE: the value of METRIC{$LABELS} in FILE (empty if absent)
value() {
	awk -v p="$1{$LABELS} " 'index($0, p) == 1 { print substr($0, length(p) + 1) }' "$2"
}
for _ in $(seq 100); do
	cp "$PROM" "$T/snap1.prom" 2>/dev/null &&
		[ "$(value plateau_rounds "$T/snap1.prom")" -ge 3 ] 2>/dev/null && break
	sleep 0.1
done
out=$(promtool check metrics <"$T/snap1.prom" 2>&1)
ok $? "promtool check metrics: the textfile of a run in progress parses and lints clean" ||
	diag "$out"
like "$(value plateau_iops "$T/snap1.prom")" '^[0-9.]+(e[+-][0-9]+)?$' \
	"plateau_iops with the run's labels"
grep -qFx "plateau_iops{$LABELS} 0" "$T/snap1.prom"
isnt "$?" 0 "plateau_iops is not 0"
grep -qFx "plateau_run_state{$LABELS,state=\"preconditioning\"} 1" "$T/snap1.prom"
ok $? "plateau_run_state: preconditioning"
grep -qFx "plateau_run_info{run=\"1\",name=\"prom-test\",device=\"$IMG\",serial=\"$SERIAL\",phase=\"precondition\",workload=\"4k-randwrite\"} 1" \
	"$T/snap1.prom"
ok $? "plateau_run_info: name, phase, workload"
iv=$(value plateau_sample_interval_seconds "$T/snap1.prom")
awk -v v="$iv" 'BEGIN { exit !(v != "" && v - 0.2 < 1e-9 && 0.2 - v < 1e-9) }'
ok $? "plateau_sample_interval_seconds: 0.2 ($iv)"
for m in plateau_steady plateau_steady_lost plateau_last_sample_timestamp_seconds \
	plateau_bandwidth_bytes_per_second plateau_latency_mean_seconds \
	plateau_latency_p99_seconds plateau_phase; do
	[ -n "$(value "$m" "$T/snap1.prom")" ]
	ok $? "$m for the run"
done
for _ in $(seq 50); do
	cp "$PROM" "$T/snap2.prom" && ! cmp -s "$T/snap1.prom" "$T/snap2.prom" && break
	sleep 0.1
done
r1=$(value plateau_rounds "$T/snap1.prom")
r2=$(value plateau_rounds "$T/snap2.prom")
ok $((r2 <= r1)) "the file is rewritten at each sample (rounds $r1, then $r2)"

# The rule "no sample for 3 intervals" compares the timestamp with time():
# %.9g would print a Unix time as 1.79599656e+09, rounded to 10 s.
ts=$(value plateau_last_sample_timestamp_seconds "$T/snap2.prom")
like "$ts" '^[0-9]{10}(\.[0-9]+)?$' "plateau_last_sample_timestamp_seconds to the second at least ($ts)"

"$PLATEAU" "${D[@]}" stop 1 >/dev/null 2>&1
"$PLATEAU" "${D[@]}" wait 1 --timeout 20s >/dev/null 2>&1
is "$?" 1 "the run stopped"
# let the daemon reap it
for _ in $(seq 20); do
	out=$("$PLATEAU" "${D[@]}" status 2>&1)
	[ "$out" = "no runs in progress" ] && break
	sleep 0.1
done
cp "$PROM" "$T/snap3.prom"
# PlateauNoSample must not see a finished run as one in progress: the file
# is rewritten when a run ends.  PlateauRunFailed needs the final state of a
# finished run in the file for a while (plateau_run_state{...,state="failed"}
# 1; here "stopped"), with its other series at their last values.
grep -qFx "plateau_run_state{$LABELS,state=\"preconditioning\"} 1" "$T/snap3.prom"
isnt "$?" 0 "after the run: no longer preconditioning in the textfile"
grep -qFx "plateau_run_state{$LABELS,state=\"stopped\"} 1" "$T/snap3.prom"
ok $? "after the run: plateau_run_state{state=\"stopped\"} 1"
[ -n "$(value plateau_steady "$T/snap3.prom")" ]
ok $? "after the run: plateau_steady kept at its last value"
out=$(promtool check metrics <"$T/snap3.prom" 2>&1)
ok $? "promtool check metrics: the textfile after the run" || diag "$out"
# the stop cut the last interval short: that sample (mostly the queue
# draining) is stored, partial when shorter than 90 % of the interval (a stop
# that lands in the last tenth of an interval leaves a full one), and
# plateau_iops keeps the last full interval's IOPS
csv=$("$PLATEAU" --db "$T/p.db" samples 1 --csv 2>&1)
last=$(sqlite3 "$T/p.db" "SELECT partial, end_ns - start_ns < 180000000 FROM samples
	WHERE phase_id = (SELECT max(phase_id) FROM samples) ORDER BY seq DESC LIMIT 1;")
is "$(tail -n 1 <<<"$csv" | awk -F, '{ print $NF }')" "$([ "$last" = "1|1" ] && echo true || echo false)" \
	"the stop's last sample is partial exactly when shorter than 90 % of the 200 ms interval ($last)"
is "${last%|*}" "${last#*|}" "  and the stored flag says the same"
full_iops=$(awk -F, 'NR > 1 && $NF == "false" { v = $4 } END { print v }' <<<"$csv")
prom_iops=$(value plateau_iops "$T/snap3.prom")
awk -v a="$prom_iops" -v b="$full_iops" 'BEGIN { d = a - b; exit !(b > 0 && d < 0.051 && d > -0.051) }'
ok $? "after the run: plateau_iops ($prom_iops) is the last full sample's ($full_iops)"

kill "$DPID"
wait "$DPID"
is "$?" 0 "plateaud exits 0 on SIGTERM"
DPID=

done_testing
