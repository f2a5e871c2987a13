#!/bin/bash
# SPDX-License-Identifier: MIT
#
# points.t: `plateau points` on a real sweep.  plateaud runs a 2x2
# thread x queue-depth sweep (and a short precondition before it) on a
# regular file; then `plateau points` must list one row per load point, in
# plan order, with the plan's threads and iodepth, and figures equal to the
# database's points table (the same rows `plateau points --json` and
# `--csv` give, numbers read back exactly), null latency for the reads a
# write sweep does not make, and clear errors for a phase that is not a sweep.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/points.t
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

command -v python3 >/dev/null || skip_all "no python3 (to read JSON and CSV)"

f=$(mkfile target.img 64M)
serial=$(serial_of "$f")
cat >"$W/sweep.plan" <<EOF
[run]
device = $f
serial = $serial
name = points-test
interval = 200ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 2
max_rounds = 2
criterion = none

[sweep]
points = 1x1 1x4 2x1 2x4
time = 400ms
ramp = 100ms
EOF

daemon_start || bail_out "no daemon: $(cat "$LOG")"
out=$(pctl start "$W/sweep.plan" 2>&1)
like "$out" '^run [0-9]+ started$' "the sweep run starts" || bail_out "$out"
run=${out//[^0-9]/}
out=$(timeout 90 "$PLATEAU" --db "$DB" wait "$run" --timeout 60s 2>&1)
is "$out" "run $run done" "the sweep run ends done" || bail_out "$(tail -n 20 "$LOG")"
# a short sweep of large sequential transfers: drawn in MB/s, as the report
# draws it (every transfer at least 64 KiB)
cat >"$W/seq.plan" <<EOF
[run]
device = $f
serial = $serial
name = points-seq
interval = 200ms

[sweep]
profile = 128k-seqread
points = 1x1 1x2
time = 300ms
ramp = 100ms
EOF
out=$(pctl start "$W/seq.plan" 2>&1)
like "$out" '^run [0-9]+ started$' "the 128k sequential sweep starts" || bail_out "$out"
seqrun=${out//[^0-9]/}
out=$(timeout 90 "$PLATEAU" --db "$DB" wait "$seqrun" --timeout 60s 2>&1)
is "$out" "run $seqrun done" "the 128k sequential sweep ends done" || bail_out "$(tail -n 20 "$LOG")"
daemon_term

out=$(pctl plot "$seqrun" --width 80 2>&1)
is "$?" 0 "plot of the 128k sequential sweep: exit 0"
has "$out" "bw (MB/s) against queue depth, 2 load points" \
	"plot of a 128k sequential sweep: MB/s by default, as the report"
has "$(pctl plot "$seqrun" --width 80 --metric iops 2>&1)" "iops (IOPS) against queue depth" \
	"plot --metric iops of the 128k sweep: IOPS when asked"
has "$(pctl plot "$run" --phase 2 --width 80 2>&1)" "iops (IOPS) against queue depth, 4 load points" \
	"plot of the 4k random sweep: IOPS by default"

pid=$(phase_id "$run" 2)
# the database's points: seq threads iodepth ios bytes errors, per direction
# mean p99 p99.99 latency (ns), start and end
want=$(sql "SELECT seq, threads, iodepth FROM points WHERE phase_id = $pid ORDER BY seq;" | tr '|' ' ')

# --- the table ---
out=$(pctl points "$run" 2>"$W/err")
is "$?" 0 "points $run: exit 0"
is "$(cat "$W/err")" "" "points $run: nothing on stderr"
like "$(head -n 1 <<<"$out")" '^POINT +THREADS +QD +IOPS +MB/S .*P99_US +P99\.99_US' \
	"points $run: a header with units"
is "$(tail -n +2 <<<"$out" | wc -l)" 4 "points $run: four rows, one per load point"
is "$(tail -n +2 <<<"$out" | awk '{ print $1, $2, $3 }')" "$want" \
	"points $run: point, threads and iodepth of each row are the database's"
is "$want" $'1 1 1\n2 1 4\n3 2 1\n4 2 4' "the database holds the plan's load points, in order"
out2=$(pctl points "$run" --phase 2)
is "$out2" "$out" "points $run --phase 2: the same (the last sweep is the default)"

# --- JSON and CSV against the points table, exactly ---
pctl points "$run" --json >"$W/p.json"
is "$?" 0 "points --json: exit 0"
pctl points "$run" --csv >"$W/p.csv"
is "$?" 0 "points --csv: exit 0"
sql -json "SELECT seq, threads, iodepth, start_ns, end_ns, errors, r_ios, w_ios, a_ios, a_bytes,
	a_lat_mean_ns, a_lat_p99_ns, a_lat_p9999_ns, r_lat_mean_ns, r_lat_p99_ns, r_lat_p9999_ns,
	w_lat_mean_ns, w_lat_p99_ns, w_lat_p9999_ns FROM points WHERE phase_id = $pid ORDER BY seq;" \
	>"$W/db.json"
read -r host uuid <<<"$(sql "SELECT host || ' ' || uuid FROM runs WHERE id = $run;")"
check=$(python3 - "$W/p.json" "$W/p.csv" "$W/db.json" "$run" "$host" "$uuid" <<'EOF'
import csv, json, sys
from datetime import datetime, timezone
got = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
db = json.load(open(sys.argv[3]))
bad = []
written = 0
if len(got) != len(db) or len(rows) != len(db):
    bad.append("rows: json %d csv %d db %d" % (len(got), len(rows), len(db)))
def iso(ns):
    t = datetime.fromtimestamp(ns // 10**9, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ns % 10**9 // 10**6)
for g, c, d in zip(got, rows, db):
    secs = (d["end_ns"] - d["start_ns"]) / 1e9
    want = {
        "run": int(sys.argv[4]), "host": sys.argv[5], "uuid": sys.argv[6],
        "point": d["seq"], "threads": d["threads"], "iodepth": d["iodepth"],
        "iops": d["a_ios"] / secs, "bw_mbps": d["a_bytes"] / secs / 1e6,
        "read_iops": d["r_ios"] / secs, "write_iops": d["w_ios"] / secs,
        "errors": d["errors"], "start": iso(d["start_ns"]), "end": iso(d["end_ns"]),
    }
    for pfx, dirp, ios in (("", "a", d["a_ios"]), ("read_", "r", d["r_ios"]), ("write_", "w", d["w_ios"])):
        for key, col in (("lat_mean_us", "lat_mean_ns"), ("lat_p99_us", "lat_p99_ns"), ("lat_p9999_us", "lat_p9999_ns")):
            want[pfx + key] = d[dirp + "_" + col] / 1e3 if ios else None
    if set(g) != set(want):
        bad.append("point %d: keys %s" % (d["seq"], sorted(set(g) ^ set(want))))
    for k, v in want.items():
        if g.get(k) != v or type(g.get(k)) is not type(v) and not (isinstance(v, float) and isinstance(g.get(k), int) and g.get(k) == v):
            bad.append("json point %d %s: %r != %r" % (d["seq"], k, g.get(k), v))
        cv = c.get(k)
        if v is None:
            ok = cv == ""
        elif isinstance(v, str):
            ok = cv == v
        elif isinstance(v, int):
            ok = cv == str(v)
        else:
            ok = float(cv) == v
        if not ok:
            bad.append("csv point %d %s: %r != %r" % (d["seq"], k, cv, v))
    if d["r_ios"] != 0:
        bad.append("point %d: a write sweep read (%d)" % (d["seq"], d["r_ios"]))
    written += d["w_ios"]
if not written:
    bad.append("the sweep wrote nothing")
print("\n".join(bad) if bad else "ok")
EOF
)
is "$check" "ok" "points --json and --csv: whose run (run, host, uuid) and every figure of the points table, exactly (IOPS and MB/s over each point's time, latency ns/1000, null for no reads)"
ok "$([ -n "$host" ] && [ ${#uuid} -ge 32 ] && echo 0 || echo 1)" "the run has a host ($host) and a uuid ($uuid)"
is "$(head -n 1 "$W/p.csv")" "run,host,uuid,point,threads,iodepth,iops,bw_mbps,read_iops,write_iops,lat_mean_us,lat_p99_us,lat_p9999_us,read_lat_mean_us,read_lat_p99_us,read_lat_p9999_us,write_lat_mean_us,write_lat_p99_us,write_lat_p9999_us,errors,start,end" \
	"points --csv: the stable, unit-suffixed header"

# over several databases the table names the run HOST:N
"$HELPERS/mkdb" "$W/other.db" || bail_out "other.db"
out=$("$PLATEAU" --db "$DB" --db "$W/other.db" points "$uuid" 2>&1)
is "$?" 0 "points over two databases: exit 0"
is "$(head -n 1 <<<"$out")" "run $host:$run phase 2 sweep" "points over two databases: the run as HOST:N first"
like "$(sed -n 2p <<<"$out")" '^POINT +THREADS +QD' "points over two databases: then the header"

# --- not a sweep, no sweep, bad input ---
out=$(pctl points "$run" --phase 1 2>&1)
is "$?" 2 "points --phase 1 (a precondition): exit 2"
has "$out" "phase 1 is a precondition phase, not a sweep" "points --phase 1: says why"
out=$(pctl points "$run" --phase 3 2>&1)
is "$?" 3 "points --phase 3 (none): exit 3"
has "$out" "has no phase 3" "points --phase 3: no such phase"
out=$(pctl points 99 2>&1)
is "$?" 3 "points 99: exit 3"
out=$(pctl points "$run" --phase x 2>&1)
is "$?" 2 "points --phase x: exit 2"
out=$(pctl points 2>&1)
is "$?" 2 "points without RUN: exit 2"
has "$out" "usage: plateau points RUN" "points without RUN: the usage line"

# --- the fixture's sweep against golden files (the format, to the byte) ---
# PLATEAU_UPDATE_GOLDEN=1 rewrites tests/golden/points-1.* (look first)
"$HELPERS/mkdb" "$W/fixture.db" && sqlite3 -bail "$W/fixture.db" <"$PLATEAU_SRC/tests/fixtures/basic.sql" ||
	bail_out "fixture database"
for fmt in txt json csv; do
	opt=()
	[ "$fmt" = txt ] || opt=(--"$fmt")
	TZ=UTC "$PLATEAU" --db "$W/fixture.db" points 1 "${opt[@]}" >"$W/points-1.$fmt" 2>"$W/err"
	is "$?" 0 "fixture: points 1 ${opt[*]}: exit 0"
	if [ -n "${PLATEAU_UPDATE_GOLDEN:-}" ]; then
		cp "$W/points-1.$fmt" "$PLATEAU_SRC/tests/golden/points-1.$fmt"
		pass "updated tests/golden/points-1.$fmt"
	else
		is_file "$W/points-1.$fmt" "$PLATEAU_SRC/tests/golden/points-1.$fmt" \
			"fixture: points 1 ${opt[*]} matches tests/golden/points-1.$fmt"
	fi
done

# a run without a sweep: a foreground run of a precondition
"$PLATEAU" --db "$W/nosweep.db" run --yes --quiet --target "$f" --profile 4k-randwrite \
	--threads 1 --iodepth 1 --interval 200ms --duration 1s >"$W/nosweep.out" 2>&1
ok $? "a run without a sweep (plateau run)" || diag "$(cat "$W/nosweep.out")"
out=$("$PLATEAU" --db "$W/nosweep.db" points 1 2>&1)
is "$?" 3 "points of a run without a sweep: exit 3"
has "$out" "run 1 has no sweep phase" "points of a run without a sweep: says so"

done_testing
