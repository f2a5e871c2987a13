#!/bin/bash
# SPDX-License-Identifier: MIT
#
# prom.t: the Prometheus side (issue 6, "Alerting and fleets"; issue 13,
# "Prometheus" and "Many hosts, one lab").
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/prom.t
#
# - examples/prometheus/plateau.rules.yml passes `promtool check rules`;
# - its unit tests (plateau.rules.test.yml) pass `promtool test rules`: each
#   alert fires, and does not fire, on made-up series (steady state not
#   reached included, and no verdict alert firing for the day an ended run
#   stays in the file); a rule weakened on purpose fails them, so they test
#   something;
# - the scrape and federation examples pass `promtool check config`;
# - the textfile a real plateaud writes during a run (a 128 MiB regular
#   file, 200 ms rounds; a precondition that cannot reach steady state in 20
#   rounds, then a 70 % read one) passes `promtool check metrics`, carries
#   the run's labels and every metric the rules use, each per-sample figure
#   equal to the stored sample's (every stored percentile, per direction),
#   the phase label following the phase, and counters equal to the sums of
#   the stored samples.
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

ALERTS="PlateauSteadyStateReached PlateauSteadyStateLost PlateauSteadyStateNotReached
	PlateauRunFailed PlateauNoSample"
out=$(promtool check rules "$RULES" 2>&1)
ok $? "promtool check rules plateau.rules.yml" || diag "$out"
has "$out" "SUCCESS: 5 rules found" "five rules"
for a in $ALERTS; do
	grep -q "^      - alert: $a\$" "$RULES"
	ok $? "rule $a"
done

out=$(cd "$PROMDIR" && promtool test rules plateau.rules.test.yml 2>&1)
ok $? "promtool test rules plateau.rules.test.yml" || diag "$out"
# every alert is tested
for a in $ALERTS; do
	grep -q "alertname: $a\$" "$PROMDIR/plateau.rules.test.yml"
	ok $? "the unit tests evaluate $a"
done

# the checks are real: a broken rule file fails check, a weakened rule
# fails the tests
sed 's/^          plateau_steady == 1$/          plateau_steady ==/' "$RULES" >"$T/plateau.rules.yml"
promtool check rules "$T/plateau.rules.yml" >/dev/null 2>&1
isnt "$?" 0 "promtool check rules rejects a broken expression"
cp "$PROMDIR/plateau.rules.test.yml" "$T/"
# mutate FILE-DESCRIPTION PYTHON-REPLACE-ARGS: the rules with one change
# (which must apply) fail the unit tests
mutant() {
	local desc=$1
	shift
	python3 - "$RULES" "$T/plateau.rules.yml" "$@" <<'EOF'
import sys
s = open(sys.argv[1]).read()
t = s.replace(sys.argv[3], sys.argv[4])
if t == s:
    sys.exit("mutation does not apply: " + sys.argv[3])
open(sys.argv[2], "w").write(t)
EOF
	[ $? = 0 ] || { fail "$desc: the mutation applies"; return; }
	(cd "$T" && promtool test rules plateau.rules.test.yml >/dev/null 2>&1)
	isnt "$?" 0 "the unit tests catch $desc"
}
mutant "'no sample for 2 intervals'" \
	'> 3 * plateau_sample_interval_seconds' '> 2 * plateau_sample_interval_seconds'
mutant "a rule that mixes hosts" \
	'and ignoring (state) (plateau_run_state' 'and on (run, device, serial) (plateau_run_state'
mutant "steady state reached firing for the day an ended run stays" \
	'plateau_steady == 1
            unless' 'plateau_steady == 1
            or'
mutant "steady state lost firing for the day an ended run stays" \
	'plateau_steady_lost == 1
            unless' 'plateau_steady_lost == 1
            or'
mutant "an ended run's verdict alerts cut at its end (missed between two scrapes)" \
	'time() - plateau_run_end_timestamp_seconds > 600
                    and plateau_run_end_timestamp_seconds > 0)
        labels:
          severity: info' 'time() - plateau_run_end_timestamp_seconds > 0
                    and plateau_run_end_timestamp_seconds > 0)
        labels:
          severity: info'
mutant "steady state not reached firing for a day after the run" \
	'unless ignoring (phase, phase_kind)' 'or ignoring (phase, phase_kind)'
mutant "steady state not reached mixing hosts" \
	'plateau_steady_not_reached == 1' 'max without (instance) (plateau_steady_not_reached) == 1'

# the scrape and federation examples are valid Prometheus configurations
for c in prometheus.yml federation.yml; do
	out=$(cd "$PROMDIR" && promtool check config "$c" 2>&1)
	ok $? "promtool check config $c" || diag "$out"
done
has "$(cat "$PROMDIR/federation.yml")" "honor_labels: true" \
	"federation keeps each host's instance and job labels"

# --- the textfile of a real run ---

if [ ! -x "$PLATEAUD" ] || [ ! -x "$PLATEAU" ]; then
	skip 64 "no $PLATEAUD or $PLATEAU (build first)"
	done_testing
fi
command -v python3 >/dev/null || {
	skip 64 "python3 is not installed"
	done_testing
}

IMG=$T/target.img
truncate -s 128M "$IMG"
SERIAL=$("$PLATEAU" drives "$IMG" --csv |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "serial") c = i; next } { print $c }')
like "$SERIAL" '^file:[0-9]+:[0-9]+:[0-9]+:[0-9]+\.[0-9]{9}(:g[0-9]+)?$' "plateau drives: the file's serial"
# phase 1 cannot pass limits of 0.0001 % (a round differs from the next by
# more than one I/O in a million): it ends "not steady" after 20 rounds,
# 4 s in which even a busy machine's test sees it; phase 2 reads and
# writes, and runs until stopped
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
window = 5
max_rounds = 20
data_limit = 0.0001
slope_limit = 0.0001

[precondition]
rw = randrw
bssplit = 4k/100
rwmix = 70
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
for _ in $(seq 100); do [ -S "$T/ctl.sock" ] && break; sleep 0.05; done
out=$("$PLATEAU" "${D[@]}" start "$T/prom.plan" 2>&1)
is "$out" "run 1 started" "plateau start: run 1" || diag "$(cat "$T/plateaud.log")"

LABELS="run=\"1\",device=\"$IMG\",serial=\"$SERIAL\""
P1=',phase="1",phase_kind="precondition"'
P2=',phase="2",phase_kind="precondition"'
# value METRIC FILE [LABELS]: the value of METRIC{$LABELS LABELS} in FILE
# (empty if absent)
value() {
	awk -v p="$1{$LABELS${3:-}} " 'index($0, p) == 1 { print substr($0, length(p) + 1) }' "$2"
}
# snap NAME METRIC LABELS MIN: copy the textfile (replaced by rename: a copy
# is one whole write) to $T/NAME.prom until METRIC{$LABELS LABELS} >= MIN in
# it, polling every 50 ms for at most a minute
snap() {
	local v end=$((SECONDS + 60))
	while [ $SECONDS -le $end ]; do
		if cp "$PROM" "$T/$1.prom" 2>/dev/null; then
			v=$(value "$2" "$T/$1.prom" "$3")
			[ -n "$v" ] && [ "$v" -ge "$4" ] && return 0
		fi
		sleep 0.05
	done
	return 1
}
# dbcheck FILE: every value of FILE is an integer or the shortest text that
# reads back; every per-sample figure is the stored sample's, exactly;
# counters and summary counts are the sums of the samples stored by the time
# of the file (those that ended by its plateau_last_sample_timestamp_seconds);
# prints what differs, nothing when all agree
dbcheck() {
	python3 - "$1" "$T/p.db" <<'EOF'
import re, sqlite3, sys
series = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'^([a-z_]+)\{(.*)\} (\S+)$', line)
    labels = dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2)))
    if labels.get("run") != "1":
        continue
    labels.pop("run"); labels.pop("device"); labels.pop("serial")
    series[(m.group(1), tuple(sorted(labels.items())))] = m.group(3)
def get(name, **labels):
    return series.get((name, tuple(sorted(labels.items()))))
bad = []
def expect(name, want, **labels):
    got = get(name, **labels)
    if want is None:
        if got is not None:
            bad.append("%s %s: %s, expected none" % (name, labels, got))
    elif got is None:
        bad.append("%s %s: missing, expected %r" % (name, labels, want))
    elif isinstance(want, int):
        if got != str(want):
            bad.append("%s %s: %s, expected the integer %d" % (name, labels, got, want))
    elif float(got) != want:
        bad.append("%s %s: %s, expected %r" % (name, labels, got, want))
db = sqlite3.connect(sys.argv[2])
ts = float(get("plateau_last_sample_timestamp_seconds"))
phase = get("plateau_phase")
seq, kind = db.execute("SELECT seq, kind FROM phases WHERE run_id = 1 AND seq = ?",
                       (int(phase),)).fetchone()
P = dict(phase=str(seq), phase_kind=kind)
cols = ["seq", "start_ns", "end_ns", "partial", "aborted"]
for d in "rwa":
    cols += ["%s_ios" % d, "%s_bytes" % d, "%s_lat_mean_ns" % d, "%s_lat_max_ns" % d]
    cols += ["%s_lat_%s_ns" % (d, p) for p in ("p50", "p90", "p99", "p999", "p9999")]
rows = [dict(zip(cols, r)) for r in db.execute(
    "SELECT %s FROM samples s JOIN phases p ON p.id = s.phase_id "
    "WHERE p.run_id = 1 AND p.seq = ? ORDER BY s.seq" % ", ".join("s." + c for c in cols),
    (seq,))]
rows = [r for r in rows if r["end_ns"] / 1e9 <= ts]
full = [r for r in rows if not r["partial"] and not r["aborted"]]
if not full:
    bad.append("no full sample of phase %d stored by %r" % (seq, ts))
else:
    s = full[-1]
    secs = (s["end_ns"] - s["start_ns"]) / 1e9
    for d, name in (("r", "read"), ("w", "write"), ("a", "all")):
        ios = s[d + "_ios"]
        expect("plateau_iops", float(ios) / secs, direction=name, **P)
        expect("plateau_bandwidth_bytes_per_second", float(s[d + "_bytes"]) / secs,
               direction=name, **P)
        lat = ios > 0
        expect("plateau_latency_mean_seconds", s[d + "_lat_mean_ns"] / 1e9 if lat else None,
               direction=name, **P)
        expect("plateau_latency_max_seconds", s[d + "_lat_max_ns"] / 1e9 if lat else None,
               direction=name, **P)
        for q, p in (("0.5", "p50"), ("0.9", "p90"), ("0.99", "p99"), ("0.999", "p999"),
                     ("0.9999", "p9999")):
            expect("plateau_latency_seconds",
                   s["%s_lat_%s_ns" % (d, p)] / 1e9 if lat else None,
                   direction=name, quantile=q, **P)
        count, total = 0, 0.0
        for r in rows:
            count += r[d + "_ios"]
            total += r[d + "_lat_mean_ns"] * float(r[d + "_ios"])
        expect("plateau_latency_seconds_count", count if count else None, direction=name, **P)
        expect("plateau_latency_seconds_sum", total / 1e9 if count else None,
               direction=name, **P)
    last = max(r["end_ns"] for r in rows)
    expect("plateau_last_sample_timestamp_seconds", last / 1e9)
allrows = [r for r in db.execute(
    "SELECT s.end_ns, s.r_ios, s.w_ios, s.r_bytes, s.w_bytes, s.errors FROM samples s "
    "JOIN phases p ON p.id = s.phase_id WHERE p.run_id = 1")]
allrows = [r for r in allrows if r[0] / 1e9 <= ts]
for i, name in ((1, "read"), (2, "write")):
    expect("plateau_ios_total", sum(r[i] for r in allrows), direction=name)
    expect("plateau_bytes_total", sum(r[i + 2] for r in allrows), direction=name)
expect("plateau_io_errors_total", sum(r[5] for r in allrows))
# every value is an integer or the shortest text that reads back
for (name, labels), v in series.items():
    if re.fullmatch(r"-?[0-9]+", v):
        continue
    x = float(v)
    short = next(p for p in range(1, 18) if float("%.*g" % (p, x)) == x)
    digits = re.sub(r"[^0-9]", "", v.split("e")[0]).lstrip("0")
    if len(digits) != short:
        bad.append("%s %s: %s is not the shortest text of its double (%d digits)"
                   % (name, dict(labels), v, short))
# the per-sample figures are the current phase's only
for (name, labels) in series:
    l = dict(labels)
    if "phase" in l and l["phase"] != str(seq) and name != "plateau_steady_not_reached":
        bad.append("%s %s: a series of phase %s in phase %d" % (name, l, l["phase"], seq))
print("\n".join(bad))
EOF
}

# --- phase 1: write only ---
snap snap1 plateau_rounds "$P1" 3
ok $? "the textfile shows phase 1's rounds" || diag "$(cat "$PROM" "$T/plateaud.log")"
out=$(promtool check metrics <"$T/snap1.prom" 2>&1)
ok $? "promtool check metrics: the textfile of a run in progress parses and lints clean" ||
	diag "$out"
UUID=$(sqlite3 "$T/p.db" "SELECT uuid FROM runs WHERE id = 1;")
like "$UUID" '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "the run's stored global id"
grep -qFx "plateau_run_info{run=\"1\",name=\"prom-test\",device=\"$IMG\",serial=\"$SERIAL\",phase=\"1\",phase_kind=\"precondition\",workload=\"4k-randwrite\",uuid=\"$UUID\",host=\"$(hostname)\"} 1" \
	"$T/snap1.prom"
ok $? "plateau_run_info: name, phase number and kind, workload, global id, host" ||
	diag "$(grep plateau_run_info "$T/snap1.prom")"
grep -qFx "plateau_run_state{$LABELS,state=\"preconditioning\"} 1" "$T/snap1.prom"
ok $? "plateau_run_state: preconditioning"
is "$(value plateau_phase "$T/snap1.prom")" 1 "plateau_phase 1"
is "$(value plateau_steady_not_reached "$T/snap1.prom" "$P1")" 0 \
	"plateau_steady_not_reached 0 while phase 1 runs"
is "$(value plateau_phase_rounds_max "$T/snap1.prom" "$P1")" 20 "plateau_phase_rounds_max 20"
iv=$(value plateau_sample_interval_seconds "$T/snap1.prom")
is "$iv" 0.2 "plateau_sample_interval_seconds: 0.2, the shortest text"
for m in plateau_steady plateau_steady_lost plateau_last_sample_timestamp_seconds \
	plateau_run_end_timestamp_seconds plateau_phase; do
	[ -n "$(value "$m" "$T/snap1.prom")" ]
	ok $? "$m for the run"
done
for d in read write all; do
	[ -n "$(value plateau_iops "$T/snap1.prom" "$P1,direction=\"$d\"")" ]
	ok $? "plateau_iops direction=$d in phase 1"
done
is "$(value plateau_iops "$T/snap1.prom" "$P1,direction=\"read\"")" 0 "  no reads in a write phase"
isnt "$(value plateau_iops "$T/snap1.prom" "$P1,direction=\"write\"")" 0 "  writes"
is "$(grep -c "^plateau_latency_seconds{$LABELS$P1,direction=\"write\",quantile=" "$T/snap1.prom")" 5 \
	"five write quantiles (0.5 to 0.9999)"
is "$(grep -c "^plateau_latency_[a-z_]*{$LABELS$P1,direction=\"read\"" "$T/snap1.prom")" 0 \
	"  and no read latency where nothing was read"
out=$(dbcheck "$T/snap1.prom" 2>&1)
is "$out" "" "phase 1: every figure is the stored last full sample's, counters the stored sums"

# where the phase is (runner_status): its start as stored, rounds judged of
# max_rounds, the latest it can end; a precondition that stops at steady
# state has no expected end until it is steady
# same_double TEXT NS: TEXT reads back as the double NS / 1e9 exactly
same_double() { python3 -c 'import sys; sys.exit(float(sys.argv[1]) != int(sys.argv[2]) / 1e9)' "$1" "$2"; }
start1=$(sqlite3 "$T/p.db" "SELECT started_ns FROM phases WHERE run_id = 1 AND seq = 1;")
v=$(value plateau_phase_start_timestamp_seconds "$T/snap1.prom" "$P1")
same_double "$v" "$start1"
ok $? "plateau_phase_start_timestamp_seconds is the stored start of phase 1 ($v, $start1 ns)"
j=$(value plateau_phase_rounds_judged "$T/snap1.prom" "$P1")
[ -n "$j" ] && [ "$j" -ge 3 ] && [ "$j" -le 20 ]
ok $? "plateau_phase_rounds_judged: $j of 20"
emax=$(value plateau_phase_eta_max_timestamp_seconds "$T/snap1.prom" "$P1")
awk -v e="$emax" -v s="$v" 'BEGIN { exit !(e != "" && e > s) }'
ok $? "plateau_phase_eta_max_timestamp_seconds after the phase's start ($emax)"
is "$(value plateau_phase_eta_timestamp_seconds "$T/snap1.prom" "$P1")" "" \
	"  and no expected end: it stops at steady state, whenever that is"

# The rule "no sample for 3 intervals" compares the timestamp with time():
# %.9g would print a Unix time as 1.79599656e+09, rounded to 10 s.
ts=$(value plateau_last_sample_timestamp_seconds "$T/snap1.prom")
like "$ts" '^[0-9]{10}(\.[0-9]+)?$' "plateau_last_sample_timestamp_seconds to the second at least ($ts)"

# --- phase 2: reads and writes; the phase label follows ---
# (a whole window of 5 rounds judged)
snap snap2 plateau_rounds "$P2" 6
ok $? "the textfile shows phase 2's rounds" || diag "$(cat "$PROM")"
out=$(promtool check metrics <"$T/snap2.prom" 2>&1)
ok $? "promtool check metrics: the textfile in phase 2" || diag "$out"
is "$(value plateau_phase "$T/snap2.prom")" 2 "plateau_phase 2"
grep -q "^plateau_run_info{.*,phase=\"2\",phase_kind=\"precondition\",workload=\"random 4k/100 70% read\",uuid=\"$UUID\",host=\"[^\"]*\"} 1\$" \
	"$T/snap2.prom"
ok $? "plateau_run_info: phase 2 and its workload"
is "$(grep -c "^plateau_[a-z_]*{$LABELS$P1" "$T/snap2.prom")" 1 \
	"no series of phase 1 left but its verdict: the curves stop at the phase change"
is "$(value plateau_steady_not_reached "$T/snap2.prom" "$P1")" 1 \
	"plateau_steady_not_reached 1 for phase 1 (20 rounds, limits it cannot pass)"
is "$(value plateau_steady_not_reached "$T/snap2.prom" "$P2")" 0 \
	"plateau_steady_not_reached 0 for phase 2, running"
is "$(sqlite3 "$T/p.db" "SELECT count(*) FROM events WHERE run_id = 1 AND kind = 'steady-not-reached';")" 1 \
	"  as the stored event says"
is "$(value plateau_phase_rounds_max "$T/snap2.prom" "$P2")" 300 "plateau_phase_rounds_max 300"
for d in read write all; do
	is "$(grep -c "^plateau_latency_seconds{$LABELS$P2,direction=\"$d\",quantile=" "$T/snap2.prom")" 5 \
		"five $d quantiles in phase 2"
done
start2=$(sqlite3 "$T/p.db" "SELECT started_ns FROM phases WHERE run_id = 1 AND seq = 2;")
v=$(value plateau_phase_start_timestamp_seconds "$T/snap2.prom" "$P2")
same_double "$v" "$start2"
ok $? "plateau_phase_start_timestamp_seconds is the stored start of phase 2"
# after_steady = continue: it ends at max_rounds, 300 rounds of 200 ms
j=$(value plateau_phase_rounds_judged "$T/snap2.prom" "$P2")
eta=$(value plateau_phase_eta_timestamp_seconds "$T/snap2.prom" "$P2")
emax=$(value plateau_phase_eta_max_timestamp_seconds "$T/snap2.prom" "$P2")
ts=$(value plateau_last_sample_timestamp_seconds "$T/snap2.prom")
is "$eta" "$emax" "phase 2 (after_steady = continue) ends at its bound"
awk -v e="$eta" -v t="$ts" -v j="$j" 'BEGIN { d = e - t - (300 - j) * 0.2; exit !(e != "" && j >= 6 && d > -2 && d < 2) }'
ok $? "  the rounds left after the last sample ($j of 300 judged): $eta, last sample $ts"
for b in data slope; do
	x=$(value plateau_window_excursion "$T/snap2.prom" "$P2,bound=\"$b\"")
	l=$(value plateau_window_limit "$T/snap2.prom" "$P2,bound=\"$b\"")
	awk -v x="$x" -v l="$l" 'BEGIN { exit !(x != "" && x >= 0 && l > 0) }'
	ok $? "the window's $b excursion ($x) against its limit ($l)"
done
out=$(dbcheck "$T/snap2.prom" 2>&1)
is "$out" "" "phase 2: every figure is the stored last full sample's, counters the stored sums"
# counters only grow
for m in plateau_ios_total plateau_bytes_total; do
	for d in read write; do
		a=$(value $m "$T/snap1.prom" ",direction=\"$d\"")
		b=$(value $m "$T/snap2.prom" ",direction=\"$d\"")
		[ -n "$a" ] && [ "$a" -le "$b" ]
		ok $? "$m{direction=\"$d\"} does not go back ($a, then $b)"
	done
done
isnt "$(value plateau_ios_total "$T/snap2.prom" ',direction="read"')" 0 "  reads counted"

# --- the end of the run ---
"$PLATEAU" "${D[@]}" stop 1 >/dev/null 2>&1
"$PLATEAU" "${D[@]}" wait 1 --timeout 30s >/dev/null 2>&1
is "$?" 1 "the run stopped"
# the file is rewritten when the daemon has reaped the run
end=$((SECONDS + 30))
while [ $SECONDS -le $end ]; do
	cp "$PROM" "$T/snap3.prom" && grep -qFx "plateau_run_state{$LABELS,state=\"stopped\"} 1" "$T/snap3.prom" &&
		break
	sleep 0.05
done
grep -qFx "plateau_run_state{$LABELS,state=\"stopped\"} 1" "$T/snap3.prom"
ok $? "after the run: plateau_run_state{state=\"stopped\"} 1"
grep -qFx "plateau_run_state{$LABELS,state=\"preconditioning\"} 1" "$T/snap3.prom"
isnt "$?" 0 "after the run: no longer preconditioning in the textfile"
out=$(promtool check metrics <"$T/snap3.prom" 2>&1)
ok $? "promtool check metrics: the textfile after the run" || diag "$out"
# PlateauRunFailed and the verdict alerts need an ended run's state,
# verdicts and end in the file; its per-sample figures are gone, so that
# no curve runs on flat for the day the run stays
for m in plateau_steady plateau_steady_lost; do
	[ -n "$(value $m "$T/snap3.prom")" ]
	ok $? "after the run: $m kept"
done
is "$(value plateau_steady_not_reached "$T/snap3.prom" "$P1")" 1 \
	"after the run: plateau_steady_not_reached kept for phase 1"
end=$(value plateau_run_end_timestamp_seconds "$T/snap3.prom")
like "$end" '^[0-9]{10}(\.[0-9]+)?$' "after the run: plateau_run_end_timestamp_seconds ($end)"
is "$(grep -c "^plateau_\(iops\|bandwidth_bytes_per_second\|latency_[a-z_]*\|rounds\|phase_[a-z_]*\|window_[a-z_]*\|sweep_[a-z_]*\){$LABELS" "$T/snap3.prom")" 0 \
	"after the run: no per-sample figure, no timing of a phase"
# every I/O stored is counted, the last (partial) sample's too
sums=$(sqlite3 "$T/p.db" "SELECT sum(r_ios), sum(w_ios), sum(r_bytes), sum(w_bytes), sum(errors)
	FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.run_id = 1;")
got="$(value plateau_ios_total "$T/snap3.prom" ',direction="read"')|$(value plateau_ios_total "$T/snap3.prom" ',direction="write"')|$(value plateau_bytes_total "$T/snap3.prom" ',direction="read"')|$(value plateau_bytes_total "$T/snap3.prom" ',direction="write"')|$(value plateau_io_errors_total "$T/snap3.prom")"
is "$got" "$sums" "after the run: the counters are the sums of every stored sample (ios, bytes, errors)"
like "$(grep '^# TYPE plateau_[a-z_]*_total ' "$T/snap3.prom" | sort | tr '\n' ' ')" \
	'^# TYPE plateau_bytes_total counter # TYPE plateau_io_errors_total counter # TYPE plateau_ios_total counter $' \
	"the _total series are counters"

kill "$DPID"
wait "$DPID"
is "$?" 0 "plateaud exits 0 on SIGTERM"
DPID=

done_testing
