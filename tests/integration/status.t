#!/bin/bash
# SPDX-License-Identifier: MIT
#
# status.t: what `plateau status`, `top` and `stop` say of a run (issue 13).
#  - right after fill -> precondition the status shows the precondition's
#    load (threads x iodepth) and never the fill's last sample;
#  - every number of `status --json` reads back as what it says (integers as
#    integers), with the phase's rate and unit, elapsed time, ETA and bound,
#    the rounds judged of max_rounds and the window's excursions;
#  - after kill -9 and a restart, ROUNDS counts the rounds already stored
#    from the moment the phase resumes;
#    and the last stored round's rate comes with its p99 (both, or neither);
#  - in a sweep, just after a point ends the status shows the next point's
#    load and none of the ended point's figures (RATE and P99_US "-") until
#    the new point's own first sample;
#  - `plateau stop` of a finished run says it ended, how and when (exit 1);
#  - `plateau top` not on a terminal prints one frame without escape codes.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"

# json_get FILE EXPR: a Python expression over the reply's first run (r)
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"][0] if d.get("runs") else {}; v=eval(sys.argv[2]); print("null" if v is None else v)' "$1" "$2"
}

# events of KIND in phase SEQ of run RUN
nevents() {
	sql "SELECT count(*) FROM events WHERE run_id = $1 AND kind = '$2' AND phase_id = (SELECT id FROM phases WHERE run_id = $1 AND seq = $3);"
}
has_events() { [ "$(nevents "$1" "$2" "$3" 2>/dev/null)" -ge "$4" ] 2>/dev/null; }
rounds_of() { sql "SELECT count(*) FROM samples WHERE partial = 0 AND phase_id = (SELECT id FROM phases WHERE run_id = $1 AND seq = $2);"; }
has_rounds() { [ "$(rounds_of "$1" "$2" 2>/dev/null)" -ge "$3" ] 2>/dev/null; }

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# --- a phase change: fill (1 x 32) -> precondition (2 x 8) ---
# the interval (1 s) is far longer than it takes to see the event and ask
dev=$(mkfile a.img 32M)
cat >"$W/a.plan" <<EOF
[run]
device = $dev
serial = $(serial_of "$dev")
name = status-change
interval = 1s

[fill]
passes = 1
bs = 4k
threads = 1
iodepth = 32

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 8
steady = snia
window = 3
data_limit = 1
slope_limit = 1
max_rounds = 200
EOF
is "$(pctl start "$W/a.plan" 2>&1)" "run 1 started" "run 1 started (fill 1x32, then precondition 2x8)"
wait_for 60 "phase 2 of run 1 to start" has_events 1 phase-started 2 1
pctl status 1 --json >"$W/s1.json" 2>&1
ok $? "status --json right after the phase-started event"
pctl status 1 >"$W/s1.txt" 2>&1
started=$(sql "SELECT started_ns FROM phases WHERE run_id = 1 AND seq = 2;")
is "$(json_get "$W/s1.json" 'r["phase"], r["phase_kind"]')" "(2, 'precondition')" \
	"  it is in phase 2, the precondition"
is "$(json_get "$W/s1.json" 'r["threads"], r["iodepth"]')" "(2, 8)" \
	"  threads x iodepth are the precondition's (2 x 8), not the fill's (1 x 32)"
last=$(json_get "$W/s1.json" 'r.get("last_sample_ns")')
ok "$([ "$last" = null ] || [ "$last" -ge "$started" ] && echo 0 || echo 1)" \
	"  no sample of the fill: last_sample_ns $last is none or after the phase started ($started)"
is "$(json_get "$W/s1.json" 'r["rate_unit"], r["max_rounds"], r["eta_max_ns"] is not None and r["eta_max_ns"] <= 200 * 10**9')" \
	"('IOPS', 200, True)" "  a precondition's rate is in IOPS, of max_rounds 200, at most 200 s left"
if [ "$last" = null ]; then
	like "$(grep -E '^ +1 ' "$W/s1.txt")" ' 2x8 .* - +[0-9]' \
		"  the table: load 2x8, no P99 yet (-)" || diag "$(cat "$W/s1.txt")"
else
	skip 1 "a precondition sample came before the table was asked"
fi

# --- every number of status --json reads back ---
wait_for 30 "3 rounds of the precondition (a judged window)" has_rounds 1 2 3
wait_for 10 "status to show a judged window" \
	eval "pctl status 1 --json >'$W/s2.json' 2>&1 && [ \"\$(json_get '$W/s2.json' 'r[\"data_limit\"]')\" != null ]"
# the last sample's figures, exactly as the database gives them (Python's
# sqlite3 reads the stored doubles whole; the sqlite3 shell prints 15 digits)
is "$(python3 - "$W/s2.json" "$DB" <<'EOF'
import json, re, sqlite3, sys
text = open(sys.argv[1]).read()
r = json.loads(text)["runs"][0]
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True, timeout=10)
row = db.execute("""SELECT s.start_ns, s.end_ns, s.a_ios, s.a_bytes, s.a_lat_mean_ns, s.a_lat_p99_ns
    FROM samples s JOIN phases p ON p.id = s.phase_id
    WHERE p.run_id = ? AND p.seq = 2 AND s.seq = ?""", (r["run"], r["last_round"])).fetchone()
start, end, ios, nbytes, mean, p99 = row
secs = (end - start) / 1e9
want = {"iops": ios / secs, "bw_mbps": nbytes / secs / 1e6, "lat_mean_us": mean / 1e3,
        "lat_p99_us": p99 / 1e3}
bad = [k for k, v in want.items() if r[k] != v]
# integers as integers
for m in re.finditer(r'"(\w+)": (-?[0-9][0-9.eE+-]*)', text):
    k, num = m.groups()
    if (k.endswith("_ns") or k in ("run", "phase", "rounds", "threads", "iodepth", "window",
                                  "rounds_judged", "max_rounds", "last_round")) and \
            not re.fullmatch(r"-?[0-9]+", num):
        bad.append(k + "=" + num)
print(" ".join("%s=%r" % (k, r.get(k)) for k in bad) if bad else "exact")
EOF
)" "exact" "status --json: the last sample's IOPS, MB/s, mean and p99 exactly as stored; integers as integers"
is "$(json_get "$W/s2.json" 'all(isinstance(r[k], float) or isinstance(r[k], int) for k in ("data_excursion", "data_limit", "slope_excursion", "slope_limit", "rate", "progress"))')" \
	True "  the window's excursions, limits, rate and progress are numbers"
is "$(json_get "$W/s2.json" 'r["rounds_judged"] >= 3 and r["data_limit"] > 0')" True \
	"  rounds judged and the data limit (1 % of the average) are given"
like "$(pctl status 1 2>&1 | grep -E '^ +1 ')" ' IOPS .*[0-9]+/200 +(no: data [0-9]+%, slope [0-9]+% of limit|since round)' \
	"the table: rate in IOPS, ROUNDS judged/200, and how far the window is from passing"

# --- kill -9, restart: the rounds already stored count at once ---
stored=$(rounds_of 1 2)
before=$(nevents 1 phase-started 2)
daemon_kill9
daemon_start || bail_out "plateaud did not restart: $(cat "$LOG")"
wait_for 30 "phase 2 of run 1 to resume" has_events 1 phase-started 2 $((before + 1))
pctl status 1 --json >"$W/s3.json" 2>&1
rc3=$?
wait_for 30 "the resumed precondition's gap event" has_events 1 gap 2 1
pctl status 1 --json >"$W/s4.json" 2>&1
# the rate read back from the stored rounds comes with the latency of the
# sample it is from (that round, or a later one of the resumed phase)
is "$(python3 - "$W/s4.json" "$DB" <<'EOF'
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))["runs"][0]
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True, timeout=10)
seq = r.get("last_round")
if seq is None:
    print("no last sample, rate %r" % r.get("rate"))
    sys.exit()
start, end, ios, p99 = db.execute("""SELECT s.start_ns, s.end_ns, s.a_ios, s.a_lat_p99_ns
    FROM samples s JOIN phases p ON p.id = s.phase_id
    WHERE p.run_id = ? AND p.seq = 2 AND s.seq = ?""", (r["run"], seq)).fetchone()
iops = ios / ((end - start) / 1e9)
bad = [k for k, v in (("rate", iops), ("iops", iops), ("lat_p99_us", p99 / 1e3))
       if r.get(k) != v]
print(" ".join("%s=%r" % (k, r.get(k)) for k in bad) if bad else "from round %d" % seq)
EOF
)" "from round $(json_get "$W/s4.json" 'r.get("last_round")')" \
	"  after the gap event: rate, IOPS and p99 are of the last stored round" ||
	diag "$(cat "$W/s4.json")"
like "$(pctl status 1 2>&1 | grep -E '^ +1 ')" ' 2x8 .* [0-9]+ IOPS +[0-9]+\.[0-9] ' \
	"  the table: the rate and its P99_US" || diag "$(pctl status 1 2>&1)"

ok $rc3 "status --json right after the resumed phase-started event"
is "$(json_get "$W/s3.json" 'r["rounds"] >= '"$stored"' and r["rounds_judged"] >= '"$stored")" True \
	"  ROUNDS counts the $stored rounds stored before the kill (got $(json_get "$W/s3.json" 'r["rounds"]'))"
is "$(json_get "$W/s3.json" 'r["threads"], r["iodepth"]')" "(2, 8)" "  and the phase's load"
like "$(pctl status 1 2>&1 | grep -E '^ +1 ')" " ([1-9][0-9]*)/200 " "  the table too"

# --- top, not on a terminal: one frame, no escape codes ---
out=$(timeout 20 "$PLATEAU" --db "$DB" --socket "$SOCK" top </dev/null 2>&1)
rc=$?
is "$rc" 0 "top with stdout not a terminal ends after one frame (exit 0)"
unlike "$out" $'\033' "  without screen control codes"
like "$out" 'progress +[0-9.]+% \([0-9]+ of max_rounds 200\), [0-9]+ IOPS, elapsed [0-9hms.]+, ETA' "  with progress, rate, elapsed time and ETA"
like "$out" 'progress +[0-9.]+% \([0-9]+ of max_rounds 200\), ' "  and the rounds judged of max_rounds"

# --- stop of a finished run: it says how it ended ---
is "$(pctl stop 1 2>&1)" "run 1: stop requested" "stop run 1"
wait_for 30 "run 1 to end" eval '[ "$(run_state 1)" = stopped ]'
wait_for 10 "plateaud to reap run 1" eval '! pctl status 1 >/dev/null 2>&1'
out=$(pctl stop 1 2>&1)
rc=$?
is "$rc" 1 "stop of a run that ended: exit 1"
like "$out" '^run 1 had already ended: stopped at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \(stopped by request\); nothing was stopped$' \
	"  says it ended, how, when and why"

# --- a sweep: each point's line shows its own figures, none of the last point's ---
dev2=$(mkfile b.img 32M)
cat >"$W/b.plan" <<EOF
[run]
device = $dev2
serial = $(serial_of "$dev2")
name = status-sweep
interval = 500ms

[sweep]
profile = 4k-randread
points = 1x1 1x2 2x1 2x2
ramp = 2s
time = 4s
EOF
is "$(pctl start "$W/b.plan" 2>&1)" "run 2 started" "run 2 started (a sweep of 4 points, 2 s ramp and 4 s each)"
loads=(- 1x1 1x2 2x1 2x2)
# what status says just after each point's event; judged after the sweep
# (python3 can take seconds to start on a busy machine)
for k in 1 2 3; do
	p=$((k + 1))
	wait_for 60 "point $k of run 2 to be measured" has_events 2 point-measured 1 $k
	pctl status 2 --json >"$W/p$p.json" 2>&1
	pctl status 2 >"$W/p$p.txt" 2>&1
done
wait_for 60 "run 2 to end" eval '[ "$(run_state 2)" = done ]'
for k in 1 2 3; do
	p=$((k + 1))
	# the point's first sample comes after its 2 s ramp: if one came
	# already, it must be this point's
	is "$(python3 - "$W/p$p.json" "$DB" "$p" <<'EOF'
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))["runs"][0]
p = int(sys.argv[3])
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True, timeout=10)
bad = []
if r.get("point") != p:
    bad.append("point=%r" % r.get("point"))
seq = r.get("last_round")
if seq is None:
    for k in ("rate", "iops", "lat_p99_us", "last_sample_ns"):
        if r.get(k) is not None:
            bad.append("%s=%r" % (k, r.get(k)))
else:
    pt = db.execute("""SELECT s.point FROM samples s JOIN phases ph ON ph.id = s.phase_id
        WHERE ph.run_id = ? AND ph.seq = 1 AND s.seq = ?""", (r["run"], seq)).fetchone()
    if not pt or pt[0] != p:
        bad.append("last_round %d is of point %r" % (seq, pt and pt[0]))
    if r.get("rate") != r.get("iops"):
        bad.append("rate=%r iops=%r" % (r.get("rate"), r.get("iops")))
print(" ".join(bad) if bad else "own")
EOF
)" own "after point $k's event: status --json is point $p's, with no figure of point $k" ||
		diag "$(cat "$W/p$p.json")"
	is "$(json_get "$W/p$p.json" '"%dx%d" % (r["threads"], r["iodepth"])')" "${loads[$p]}" \
		"  and point $p's load (${loads[$p]})"
	if [ "$(json_get "$W/p$p.json" 'r.get("last_round")')" = null ]; then
		like "$(grep -E '^ +2 ' "$W/p$p.txt")" " ${loads[$p]} +[0-9.]+% +- +- " \
			"  the table: load ${loads[$p]}, RATE and P99_US - until the point's first sample" ||
			diag "$(cat "$W/p$p.txt")"
	else
		skip 1 "point $p's first sample came before the table was asked"
	fi
done

daemon_term
out=$(pctl stop 1 2>&1)
rc=$?
is "$rc" 1 "with plateaud gone too: exit 1"
like "$out" '^run 1 had already ended: stopped at ' "  from the database"
out=$(pctl stop 99 2>&1)
is "$?" 4 "stop of an unknown run with plateaud gone: exit 4 (plateaud unreachable)"

done_testing
