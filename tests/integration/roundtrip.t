#!/bin/bash
# SPDX-License-Identifier: MIT
#
# roundtrip.t: every number a script reads from `plateau samples`, `show`,
# `steady` and `analyze` in --json and --csv is the stored one, exactly.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/roundtrip.t
#
# A real run (`plateau run`, 8k-7030 reads and writes on a file, 200 ms
# samples for 2.1 s: ten full samples and a partial last one) is read back
# through the CLI and compared with its database (sqlite3) by a Python
# program below:
# - samples --json / --csv: every key of every row equals what the row holds
#   (integers as integers: ios, bytes, errors; IOPS = ios / length, MB/s =
#   bytes / length / 10^6, latencies ns / 1000, lengths ns / 10^9), compared
#   after parsing with ==, so %.1f IOPS or a 0.1 s elapsed_s fails;
# - steady --json / --csv, show --json's verdict and analyze of the
#   samples' own CSV: the window's values equal the stored series; average,
#   slope, intercept, excursions and limits are one double wherever printed
#   (== across the five outputs) and agree with the SNIA arithmetic redone
#   here to 1e-10 (%.6g is off by up to 5e-6); analyze of `samples --csv`
#   judges the rounds steady judges (the partial row left out);
# - show --json: each phase's integers, times, params and stored result as
#   the database has them.
set -u

: "${PLATEAU_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${PLATEAU_BUILD:=$PLATEAU_SRC/build}"
. "$PLATEAU_SRC/tests/integration/tap.sh"

PLATEAU=$PLATEAU_BUILD/plateau
[ -x "$PLATEAU" ] || skip_all "no $PLATEAU (build first)"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (apt-get install sqlite3)"
command -v python3 >/dev/null || skip_all "no python3"

export TZ=UTC LC_ALL=C
unset PLATEAU_DB PLATEAU_SOCKET

# not /dev/shm: tmpfs has no O_DIRECT
T=$(mktemp -d "${TMPDIR:-/var/tmp}/plateau-roundtrip.XXXXXX") || bail_out "mktemp failed"
trap 'rm -rf "$T"' EXIT
DB=$T/rt.db

truncate -s 64M "$T/target.img"
"$PLATEAU" --db "$DB" run --yes --quiet --target "$T/target.img" --profile 8k-7030 \
	--threads 1 --iodepth 4 --interval 200ms --duration 2.1s >"$T/run.out" 2>&1
is "$?" 0 "plateau run on a file completes" || diag "$(cat "$T/run.out")"
set -- $(sqlite3 -separator " " "$DB" "SELECT count(*), sum(partial), sum(r_ios) > 0 AND sum(w_ios) > 0
	FROM samples")
ok "$([ "${1:-0}" -ge 6 ] && [ "${3:-0}" = 1 ] && echo 0 || echo 1)" \
	"the run stored ${1:-0} samples (6 or more), with reads and writes" ||
	diag "$(sqlite3 "$DB" 'SELECT seq, r_ios, w_ios, partial, end_ns - start_ns FROM samples')"
# the last interval (2.0 to 2.1 s) is cut short unless the sampler ran late
[ "${2:-0}" = 1 ] || diag "no partial sample this time: analyze's partial rows go untested"

# the CLI's outputs, each written once; the checker reads them
q() {
	local out=$1
	shift
	"$PLATEAU" --db "$DB" "$@" >"$T/$out" 2>"$T/$out.err"
	local rc=$?
	ok "$([ "$rc" -le 1 ] && [ ! -s "$T/$out.err" ] && echo 0 || echo 1)" \
		"plateau $*: exit 0 or 1, nothing on stderr" || diag "exit $rc: $(cat "$T/$out.err")"
}
q samples.json samples 1 --json
q samples.csv samples 1 --csv
q steady.json steady 1 --json
q steady.csv steady 1 --csv
q show.json show 1 --json
q analyze.json analyze "$T/samples.csv" --json
q analyze.csv analyze "$T/samples.csv" --csv

python3 - "$DB" "$T" >"$T/checks" 2>"$T/checks.err" <<'EOF'
import csv, json, sqlite3, sys
from datetime import datetime, timezone

db, d = sys.argv[1], sys.argv[2]
con = sqlite3.connect(db)
con.row_factory = sqlite3.Row

def check(good, name, why=""):
    print("%d\t%s\t%s" % (1 if good else 0, name, why))

def iso(ns):
    return datetime.fromtimestamp(ns // 1000000 / 1000, timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ns // 1000000 % 1000)

ph = con.execute("SELECT * FROM phases WHERE run_id = 1 AND kind = 'precondition'").fetchone()
rows = con.execute("SELECT * FROM samples WHERE phase_id = ? AND aborted = 0 ORDER BY seq",
                   (ph["id"],)).fetchall()
t0 = ph["started_ns"] or rows[0]["start_ns"]

PCT = [("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99_9"), ("p9999", "p99_99")]

def want(r):
    """every key of a samples row, as the database says it"""
    secs = (r["end_ns"] - r["start_ns"]) / 1e9
    w = {"round": r["seq"], "start": iso(r["start_ns"]), "end": iso(r["end_ns"]),
         "elapsed_s": (r["end_ns"] - t0) / 1e9, "length_s": secs,
         "point": r["point"], "threads": None, "iodepth": None,
         "errors": r["errors"], "partial": bool(r["partial"])}
    for p, pre in (("a", ""), ("r", "read_"), ("w", "write_")):
        w[pre + "ios"] = r[p + "_ios"]
        w[pre + "bytes"] = r[p + "_bytes"]
        w[pre + "iops"] = r[p + "_ios"] / secs
        w[pre + "bw_mbps"] = r[p + "_bytes"] / secs / 1e6
        w[pre + "lat_mean_us"] = r[p + "_lat_mean_ns"] / 1e3
        w[pre + "lat_stddev_us"] = r[p + "_lat_stddev_ns"] / 1e3
        w[pre + "lat_min_us"] = r[p + "_lat_min_ns"] / 1e3
        w[pre + "lat_max_us"] = r[p + "_lat_max_ns"] / 1e3
        for col, key in PCT:
            w[pre + "lat_%s_us" % key] = r["%s_lat_%s_ns" % (p, col)] / 1e3
    return w

INTS = {"round", "errors"} | {pre + k for pre in ("", "read_", "write_") for k in ("ios", "bytes")}

def compare(fmt, got_rows, parse):
    check(len(got_rows) == len(rows), "samples %s: %d rows, one per stored sample" % (fmt, len(rows)),
          "got %d" % len(got_rows))
    keys = list(want(rows[0]).keys())
    check(set(got_rows[0].keys()) == set(keys) if got_rows else False,
          "samples %s: the %d keys" % (fmt, len(keys)),
          "extra %s missing %s" % (sorted(set(got_rows[0]) - set(keys)) if got_rows else "",
                                   sorted(set(keys) - set(got_rows[0])) if got_rows else ""))
    for k in keys:
        bad = []
        for g, r in zip(got_rows, rows):
            w = want(r)[k]
            v = parse(k, g.get(k))
            if v != w or (k in INTS and fmt == "--json" and type(g.get(k)) is not int):
                bad.append("round %d: %r, want %r" % (r["seq"], g.get(k), w))
        check(not bad, "samples %s: %s equals the database's in every row" % (fmt, k),
              "; ".join(bad[:3]))

sj = json.load(open(d + "/samples.json"))
compare("--json", sj, lambda k, v: v)

def csv_value(k, v):
    if v is None or v == "":
        return None
    if k in ("start", "end"):
        return v
    if k == "partial":
        return {"true": True, "false": False}.get(v, v)
    return int(v) if k in INTS or k == "point" else float(v)

compare("--csv", list(csv.DictReader(open(d + "/samples.csv"))), csv_value)

# the stored series: IOPS of the full samples, the rounds of the judgement
series = [r["a_ios"] / ((r["end_ns"] - r["start_ns"]) / 1e9) for r in rows if not r["partial"]]

def snia(v):
    """the evidence redone: window average, least-squares fit over rounds
    start..end (1-based), intercept at round 0, SNIA excursions, limits"""
    s, e = v["window_start"], v["window_end"]
    y = series[s - 1:e]
    n = len(y)
    avg = sum(y) / n
    xs = list(range(s, e + 1))
    xm = sum(xs) / n
    slope = sum((x - xm) * (yy - avg) for x, yy in zip(xs, y)) / sum((x - xm) ** 2 for x in xs)
    return {"average": avg, "slope": slope, "intercept": avg - slope * xm,
            "data_excursion": max(y) - min(y), "slope_excursion": abs(slope) * (n - 1),
            "data_limit": 0.2 * avg, "slope_limit": 0.1 * avg}

NUMS = ["average", "slope", "intercept", "data_excursion", "slope_excursion", "data_limit",
        "slope_limit"]
ROUNDS = ["rounds", "steady_round", "window_start", "window_end", "lost_round"]

def csv_verdict(path):
    r = next(csv.DictReader(open(path)))
    v = {k: float(r[k]) for k in NUMS}
    v.update({k: int(r[k]) if r[k] else None for k in ROUNDS})
    v.update({k: r[k] == "true" for k in ("steady", "lost")})
    return v

verdicts = {
    "steady --json": json.load(open(d + "/steady.json")),
    "steady --csv": csv_verdict(d + "/steady.csv"),
    "show --json": json.load(open(d + "/show.json"))["phases"][ph["seq"] - 1]["steady_state"],
    "analyze (samples --csv) --json": json.load(open(d + "/analyze.json")),
    "analyze (samples --csv) --csv": csv_verdict(d + "/analyze.csv"),
}
ref = verdicts["steady --json"]
check(ref["rounds"] == len(series), "steady: %d rounds, the full samples" % len(series),
      "got %r" % ref["rounds"])
check(ref["window_end"] is not None, "steady: a window was judged", "window_end null")
if ref["window_end"] is not None:
    redo = snia(ref)
    for name, v in verdicts.items():
        same = [k for k in NUMS + ROUNDS + ["steady", "lost"] if v.get(k) != ref.get(k)]
        check(not same, "%s: every figure equals steady --json's" % name,
              "; ".join("%s %r, want %r" % (k, v.get(k), ref.get(k)) for k in same[:4]))
    for k in NUMS:
        w = redo[k]
        check(abs(ref[k] - w) <= 1e-10 * max(abs(w), redo["average"]),
              "steady --json: %s is the window's %s to 1e-10" % (k, k), "%r, want %r" % (ref[k], w))
    for name in ("steady --json", "show --json", "analyze (samples --csv) --json"):
        wv = verdicts[name].get("window_values")
        check(wv == series[ref["window_start"] - 1:ref["window_end"]],
              "%s: window_values are the stored rounds' IOPS, exactly" % name,
              "%r, want %r" % (wv, series[ref["window_start"] - 1:ref["window_end"]]))
    src = verdicts["analyze (samples --csv) --json"]["source"]
    check(src.get("partial_rows") == len(rows) - len(series),
          "analyze: the samples' %d partial row(s) left out" % (len(rows) - len(series)),
          "source %r" % src)

# show --json: what the database holds of each phase
show = json.load(open(d + "/show.json"))
for p in con.execute("SELECT * FROM phases WHERE run_id = 1 ORDER BY seq"):
    g = show["phases"][p["seq"] - 1]
    w = {"phase": p["seq"], "kind": p["kind"], "name": p["name"], "state": p["state"],
         "progress_bytes": p["progress_bytes"], "total_bytes": p["total_bytes"],
         "rounds": p["rounds"], "started": iso(p["started_ns"]) if p["started_ns"] else None,
         "ended": iso(p["ended_ns"]) if p["ended_ns"] else None,
         "params": json.loads(p["params"]),
         "result": json.loads(p["result"]) if p["result"] else None}
    bad = [k for k in w if g.get(k) != w[k] or (type(w[k]) is int and type(g.get(k)) is not int)]
    check(not bad, "show --json: phase %d as stored (integers, times, params, result)" % p["seq"],
          "; ".join("%s %r, want %r" % (k, g.get(k), w[k]) for k in bad[:3]))
EOF
[ -s "$T/checks.err" ] && diag "$(cat "$T/checks.err")"
n=0
while IFS=$'\t' read -r good name why; do
	n=$((n + 1))
	if [ "$good" = 1 ]; then
		pass "$name"
	else
		fail "$name"
		diag "$why"
	fi
done <"$T/checks"
ok "$([ "$n" -ge 100 ] && echo 0 || echo 1)" "the checker ran its $n checks (100 or more)"

done_testing
