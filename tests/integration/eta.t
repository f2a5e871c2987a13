#!/bin/bash
# SPDX-License-Identifier: MIT
#
# eta.t: an ETA for the night (issue 13).
#  - plateau check estimates each phase and the run, states the bound, prints
#    the phase parameters as text, and gives exact numbers in --json (a sweep
#    point of 1234567 s was 1.23457e+06);
#  - plateau start --dry-run adds the drive's capacity, and the rate of the
#    drive's last complete fill once there is one (measured);
#  - during a fill, status gives the rate in MB/s, its progress and an ETA;
#    during a sweep, the point of the points and an exact ETA.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"

# jq_py FILE EXPR: a Python expression over the document (d)
jq_py() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print("null" if v is None else v)' "$1" "$2"
}

# --- plateau check: no daemon, no drive ---
cat >"$W/night.plan" <<'EOF'
[run]
device = /dev/nvme9n1
serial = S1
interval = 1m
footprint = 64g

[erase]
method = sanitize-crypto
deadline = 2h

[fill]
passes = 1
expected_rate = 128m/s

[precondition]
profile = 4k-randwrite
max_rounds = 25

[sweep]
points = 1x1 2x2
ramp = 1.5s
time = 1234567s
EOF
out=$("$PLATEAU" check "$W/night.plan" 2>&1)
is "$?" 0 "check: exit 0" || diag "$out"
like "$out" $'\n  phase 4  sweep +4k-randwrite \\(random, 0% reads, 4k/100\\), points 1x1 2x2, ramp 1.5s, time 342h56m07s per point\n' \
	"the phases' parameters as text, not JSON"
unlike "$out" '[{}]' "  no raw JSON in the table"
like "$out" $'\n  phase 1  erase +unknown before it starts; at most 2h00m00s \\(the erase.s deadline\\)\n' \
	"erase: no controller estimate without the drive; its deadline bounds it"
like "$out" $'\n  phase 2  fill +8m32s \\(64.00 GiB at 128.00 MiB/s, \\[fill\\] expected_rate\\)\n' \
	"fill: the footprint at the plan's expected_rate"
like "$out" $'\n  phase 3  precondition +5m00s to 25m00s \\(a first window of 5 rounds to max_rounds 25, rounds of 1m00s\\)\n' \
	"precondition: from its window to max_rounds x interval"
like "$out" $'\n  total +at least 686h05m49s, at most 688h25m49s$' \
	"the run: at least and at most, stated"
"$PLATEAU" check "$W/night.plan" --json >"$W/night.json" 2>&1
is "$?" 0 "check --json: exit 0"
is "$(jq_py "$W/night.json" 'd["phases"][3]["time_s"], d["phases"][3]["ramp_s"], d["interval_s"]')" \
	"(1234567, 1.5, 60)" "check --json: time 1234567 s, ramp 1.5 s and the interval exact"
is "$(jq_py "$W/night.json" '[(p["min_s"], p["max_s"], p["basis"]) for p in d["estimate"]["phases"]]')" \
	"[(None, 7200, 'deadline'), (512, 512, 'expected-rate'), (300, 1500, 'rounds'), (2469137, 2469137, 'exact')]" \
	"check --json: each phase's least and most in seconds, and how"
is "$(jq_py "$W/night.json" '(d["estimate"]["min_s"], d["estimate"]["max_s"], d["phases"][1]["expected_rate_bps"])')" \
	"(2469949, 2478349, 134217728)" "  and the run's (integers as integers), the plan's rate in bytes/s"
printf '[run]\ndevice = /dev/x\nserial = S\n[fill]\nexpected_rate = quick\n' >"$W/bad.plan"
out=$("$PLATEAU" check "$W/bad.plan" 2>&1)
is "$?" 2 "a bad expected_rate: exit 2"
is "$out" "plateau: $W/bad.plan:5: [fill] expected_rate: expected a size per second ('500m/s', '2g'), not 'quick'" \
	"  the error names file, line, field and what is expected"

daemon_start || bail_out "no daemon: $(cat "$LOG")"

# --- start --dry-run: the drive's capacity; then a measured fill rate ---
f=$(mkfile fill.img 32M)
serial=$(serial_of "$f")
cat >"$W/fill.plan" <<EOF
[run]
device = $f
serial = $serial
name = eta-fill
interval = 200ms

[fill]
passes = 1
bs = 64k
iodepth = 4
expected_rate = 1m
EOF
out=$(pctl start --dry-run "$W/fill.plan" 2>&1)
is "$?" 0 "start --dry-run: exit 0" || diag "$out"
like "$out" $'\n  phase 1  fill +32(\\.0)?s \\(32.00 MiB at 1.00 MiB/s, \\[fill\\] expected_rate\\)\n' \
	"dry run: the fill from the drive's capacity (32 MiB) at the plan's rate"
like "$out" $'\n  total +32(\\.0)?s$' "  and the run's total"
is "$(pctl start "$W/fill.plan" 2>&1)" "run 1 started" "run 1: a fill of the same drive"
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 1 2>&1)" "run 1 done" "  done"
pctl start --dry-run "$W/fill.plan" --json >"$W/dry.json" 2>&1
is "$(jq_py "$W/dry.json" '(d["estimate"]["phases"][0]["basis"], d["estimate"]["phases"][0]["bytes"], d["estimate"]["phases"][0]["rate_bps"] > 1048576)')" \
	"('measured-rate', 33554432, True)" \
	"a second dry run: the rate measured by run 1's fill, not the plan's 1 MiB/s"
rate=$(sql "SELECT progress_bytes * 1e9 / (ended_ns - started_ns) FROM phases WHERE run_id = 1 AND seq = 1;")
is "$(jq_py "$W/dry.json" 'abs(d["estimate"]["phases"][0]["rate_bps"] / '"$rate"' - 1) < 1e-9')" True \
	"  the rate of run 1's fill: its bytes over its time ($rate B/s)"

# --- status during a fill: MB/s, progress, ETA ---
g=$(mkfile big.img 2G)
cat >"$W/big.plan" <<EOF
[run]
device = $g
serial = $(serial_of "$g")
name = eta-big
interval = 200ms

[fill]
passes = 1
bs = 4k
iodepth = 1

[sweep]
profile = 4k-randread
points = 1x1 1x2 1x4
ramp = 100ms
time = 1s
EOF
fill_samples() { [ "$(sql "SELECT count(*) FROM samples WHERE partial = 0 AND phase_id = (SELECT id FROM phases WHERE run_id = 2 AND seq = 1);" 2>/dev/null)" -ge 2 ] 2>/dev/null; }
is "$(pctl start "$W/big.plan" 2>&1)" "run 2 started" "run 2: a long fill (2 GiB at 4k, depth 1), then a sweep"
wait_for 60 "two fill samples of run 2" fill_samples
pctl status 2 --json >"$W/fill.json" 2>&1
if [ "$(jq_py "$W/fill.json" 'd["runs"][0]["phase_kind"]')" = fill ]; then
	is "$(jq_py "$W/fill.json" '(lambda r: (r["rate_unit"], r["rate"] == r["bw_mbps"], 0 < r["progress"] < 1, r["eta_ns"] > 0, r["eta_max_ns"], r["elapsed_ns"] > 0))(d["runs"][0])')" \
		"('MB/s', True, True, True, None, True)" \
		"status of a fill: its rate in MB/s (the last sample's), progress, an ETA, no bound"
	is "$(jq_py "$W/fill.json" '(lambda r: abs(r["eta_ns"] - (1 - r["progress"]) * 2**31 / (r["rate"] * 1e6) * 1e9) < 2e9 + 0.2 * r["eta_ns"])(d["runs"][0])')" True \
		"  the ETA: the bytes left at that rate"
	like "$(pctl status 2 2>&1 | grep -E '^ +2 ')" ' 1x1 +[0-9.]+% +[0-9.]+ MB/s ' \
		"  the table: load, progress, MB/s"
else
	skip 3 "the fill ended before status was asked"
fi
pctl stop 2 >/dev/null 2>&1
wait_for 30 "run 2 to stop" eval '[ "$(run_state 2)" = stopped ]'

# --- status during a sweep: the point and an exact ETA ---
s=$(mkfile sweep.img 16M)
cat >"$W/sweep.plan" <<EOF
[run]
device = $s
name = eta-sweep
interval = 200ms

[sweep]
profile = 4k-randread
points = 1x1 1x2 1x4 1x8
ramp = 500ms
time = 2s
EOF
point_started() { [ "$(sql "SELECT count(*) FROM events WHERE run_id = 3 AND kind = 'point-measured';" 2>/dev/null)" -ge 1 ] 2>/dev/null; }
is "$(pctl start "$W/sweep.plan" 2>&1)" "run 3 started" "run 3: a sweep of 4 points of 2.5 s"
wait_for 30 "run 3's first point" point_started
pctl status 3 --json >"$W/sweep.json" 2>&1
pctl status 3 >"$W/sweep.txt" 2>&1
if [ "$(jq_py "$W/sweep.json" 'd["runs"][0]["phase_kind"] if d["runs"] else None')" = sweep ]; then
	is "$(jq_py "$W/sweep.json" '(lambda r: (r["npoints"], r["point"] >= 2, r["eta_ns"] == r["eta_max_ns"], 0 < r["eta_ns"] <= (4 - r["point"] + 1) * 2500000000, r["rate_unit"]))(d["runs"][0])')" \
		"(4, True, True, True, 'IOPS')" \
		"status of a sweep: point of 4, an exact ETA within the points left, IOPS"
	like "$(grep -E '^ +3 ' "$W/sweep.txt")" ' [2-4]/4 ' "  the table: the point of the points" ||
		diag "$(cat "$W/sweep.txt")"
else
	skip 2 "the sweep ended before status was asked"
fi
is "$(timeout 60 "$PLATEAU" --db "$DB" wait 3 2>&1)" "run 3 done" "run 3 done"

done_testing
