#!/bin/bash
# SPDX-License-Identifier: MIT
#
# latency.t: `plateau latency` against percentiles computed independently.
#
# plateaud runs a mixed (70 % read) precondition judged with limits so loose
# that rounds 1-3 are its steady window, then a two-point sweep, on a regular
# file.  A Python decoder written from hist.h's description of the stored
# histogram format (varints, buckets, midpoints, nearest rank) merges the
# stored read and write histograms of each span and computes the percentiles
# itself; plateau's answer must be the same number, exactly, for:
#   - one round: also the round's own stored p50..p99.99, mean, min, max;
#   - rounds 2-5, the steady window (rounds 1-3), the whole phase;
#   - one sweep point, and the whole sweep;
# at percentiles the samples do not store (12.5, 99.999).  Then the errors.
#
#   PLATEAU_BUILD=$PWD/build PLATEAU_SRC=$PWD prove -v tests/integration/latency.t
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

command -v python3 >/dev/null || skip_all "no python3 (the independent percentiles)"

f=$(mkfile target.img 64M)
serial=$(serial_of "$f")
cat >"$W/lat.plan" <<EOF
[run]
device = $f
serial = $serial
name = latency-test
interval = 200ms

[precondition]
profile = 8k-7030
threads = 1
iodepth = 4
criterion = snia
window = 3
data_limit = 1000
slope_limit = 1000
after_steady = continue
max_rounds = 6

[sweep]
profile = 8k-7030
points = 1x2 2x2
time = 400ms
ramp = 100ms
EOF

daemon_start || bail_out "no daemon: $(cat "$LOG")"
out=$(pctl start "$W/lat.plan" 2>&1)
like "$out" '^run [0-9]+ started$' "the run starts" || bail_out "$out"
run=${out//[^0-9]/}
t0=$SECONDS
out=$(timeout 90 "$PLATEAU" --db "$DB" wait "$run" --timeout 60s 2>&1)
diag "the run took $((SECONDS - t0)) s"
is "$out" "run $run done" "the run ends done" || bail_out "$(tail -n 20 "$LOG")"
daemon_term
is "$(sql "SELECT steady || ':' || steady_round FROM phases WHERE run_id = $run AND seq = 1;")" \
	"1:3" "the precondition is steady at round 3 (window 1-3)"

# check.py DB CASES WDIR PCTS: for each line "NAME TABLE WHERE" of CASES,
# the stored histograms of those rows, decoded, merged and evaluated by this
# script alone, against plateau's answer in WDIR/NAME.json (`plateau latency
# --json --dir read,write,all --percentiles PCTS`); prints "NAME ok" or
# "NAME what differs".  One python run for all: starting python costs
# seconds on a busy machine.
cat >"$W/check.py" <<'PYEOF'
import json, math, sqlite3, sys, zlib
from fractions import Fraction

def varint(b, off):
    x = shift = 0
    while True:
        c = b[off]; off += 1
        x |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return x, off

def decode(b):
    # "PLH" 1, sub_bits, max_bits, count, sum, sumsq hi, lo, min, max,
    # non-empty buckets, (gap, count)..., CRC-32 little endian
    assert b[:4] == b"PLH\x01", "magic"
    assert zlib.crc32(b[:-4]) == int.from_bytes(b[-4:], "little"), "crc"
    off = 4
    v = []
    for _ in range(9):
        x, off = varint(b, off)
        v.append(x)
    sub, mx, count, s, hi, lo, mn, mxv, nz = v
    assert (sub, mx) == (6, 36)
    buckets = {}
    idx = 0
    for _ in range(nz):
        g, off = varint(b, off)
        c, off = varint(b, off)
        idx += g
        buckets[idx] = c
        idx += 1
    assert off == len(b) - 4
    return dict(count=count, sum=s, min=mn, max=mxv, buckets=buckets)

def value(i):
    # bucket midpoint (hist.h): exact below 128, else 64 buckets per power of two
    if i < 128:
        return i
    g = i // 64
    return ((i - (g - 1) * 64) << (g - 1)) + (1 << (g - 2))

def merge(hs):
    out = dict(count=0, sum=0, min=None, max=0, buckets={})
    for h in hs:
        if not h["count"]:
            continue
        out["count"] += h["count"]; out["sum"] += h["sum"]
        out["min"] = h["min"] if out["min"] is None else min(out["min"], h["min"])
        out["max"] = max(out["max"], h["max"])
        for i, c in h["buckets"].items():
            out["buckets"][i] = out["buckets"].get(i, 0) + c
    return out

def pct(h, p):
    # nearest rank, exact
    rank = max(1, min(h["count"], math.ceil(Fraction(p) * h["count"] / 100)))
    seen = 0
    for i in sorted(h["buckets"]):
        seen += h["buckets"][i]
        if seen >= rank:
            return min(max(value(i), h["min"]), h["max"])

db, cases, wdir, pcts = sys.argv[1:5]
con = sqlite3.connect(db)
for line in open(cases):
    name, table, where = line.rstrip("\n").split(" ", 2)
    rows = con.execute("SELECT r_hist, w_hist FROM %s WHERE %s" % (table, where)).fetchall()
    rd = [decode(r) for r, w in rows if r is not None]
    wr = [decode(w) for r, w in rows if w is not None]
    got = {o["dir"]: o for o in json.load(open("%s/%s.json" % (wdir, name)))}
    bad = []
    if not rows:
        bad.append("no rows")
    for d, hs in (("read", rd), ("write", wr), ("all", rd + wr)):
        h = merge(hs)
        want = {"ios": h["count"]}
        if table == "samples":
            want["samples"] = len(rows)
        if h["count"]:
            want.update(lat_min_us=h["min"] / 1e3, lat_mean_us=h["sum"] / h["count"] / 1e3,
                        lat_max_us=h["max"] / 1e3)
            for p in pcts.split(","):
                want["p%s_us" % p] = pct(h, p) / 1e3
        g = got.get(d)
        if g is None:
            bad.append("no row " + d)
            continue
        for k, v in want.items():
            if g.get(k) != v:
                bad.append("%s %s: plateau %r, independent %r" % (d, k, g.get(k), v))
    print(name, "; ".join(bad) if bad else "ok")
PYEOF

P1=$(phase_id "$run" 1)
P2=$(phase_id "$run" 2)
PCTS=12.5,50,90,99,99.9,99.99,99.999
: >"$W/cases"
# span NAME TABLE WHERE DESC ARGS...: plateau's answer now, checked below
declare -A DESC
span() {
	local name=$1 table=$2 where=$3 desc=$4
	shift 4
	pctl latency "$run" --json --dir read,write,all --percentiles "$PCTS" "$@" >"$W/$name.json"
	ok $? "latency $*: exit 0"
	echo "$name $table $where" >>"$W/cases"
	DESC[$name]=$desc
}

# --- one round, many rounds, the window, the phase, a point, the sweep ---
# (the round with the most reads and writes: on a busy machine a 200 ms
# round of a file may see no completion at all)
R=$(sql "SELECT seq FROM samples WHERE phase_id = $P1 AND partial = 0
	ORDER BY min(r_ios, w_ios) DESC, seq LIMIT 1;")
span one samples "phase_id = $P1 AND seq = $R" "latency --rounds $R: one round" --phase 1 --rounds "$R"
span many samples "phase_id = $P1 AND seq BETWEEN 2 AND 5" "latency --rounds 2-5: the merged histograms" \
	--phase 1 --rounds 2-5
span window samples "phase_id = $P1 AND partial = 0 AND aborted = 0 AND seq BETWEEN 1 AND 3" \
	"latency --window: the steady window's rounds 1-3" --phase 1 --window
span phase samples "phase_id = $P1 AND aborted = 0" \
	"latency (default: the last precondition, every sample)"
span point points "phase_id = $P2 AND seq = 2" \
	"latency --point 2: the point's measurement (the last sweep by default)" --point 2
span sweep points "phase_id = $P2" "latency --phase 2 (a sweep): every point's measurement merged" \
	--phase 2
span sweeprounds samples "phase_id = $P2 AND aborted = 0 AND seq BETWEEN 1 AND 2" \
	"latency --phase 2 --rounds 1-2: a sweep's samples" --phase 2 --rounds 1-2
n=0
while read -r name result; do
	is "$result" "ok" "${DESC[$name]}: every figure equals the independent decoder's"
	n=$((n + 1))
done < <(python3 "$W/check.py" "$DB" "$W/cases" "$W" "$PCTS" 2>&1)
is "$n" 7 "seven spans checked"

# one round is also the round's own stored p50..p99.99, min and max
stored=$(sql "SELECT r_ios, w_ios, a_ios, r_lat_p50_ns, r_lat_p90_ns, r_lat_p99_ns, r_lat_p999_ns,
	r_lat_p9999_ns, w_lat_p50_ns, w_lat_p90_ns, w_lat_p99_ns, w_lat_p999_ns, w_lat_p9999_ns,
	a_lat_p50_ns, a_lat_p90_ns, a_lat_p99_ns, a_lat_p999_ns, a_lat_p9999_ns,
	a_lat_min_ns, a_lat_max_ns FROM samples WHERE phase_id = $P1 AND seq = $R;" | tr '|' ' ')
read -r rios wios aios _ <<<"$stored"
ok "$([ "$rios" -gt 0 ] && [ "$wios" -gt 0 ] && echo 0 || echo 1)" "round $R is mixed ($rios reads, $wios writes)"
got=$(pctl latency "$run" --phase 1 --rounds "$R" --dir read,write,all --csv | tail -n +2 |
	awk -F, '{ printf "%s ", $12 }')
is "$got" "$rios $wios $aios " "latency --rounds $R: ios of reads, writes, all are the round's"
to_us() { awk '{ for (i = 1; i <= NF; i++) printf "%s%.3f", (i > 1 ? " " : ""), $i / 1000; print "" }'; }
got=$(pctl latency "$run" --phase 1 --rounds "$R" --dir read,write,all |
	awk 'NR > 2 { for (i = 6; i <= 10; i++) s = s (s == "" ? "" : " ") $i } END { print s }')
is "$got" "$(cut -d' ' -f4-18 <<<"$stored" | to_us)" \
	"latency --rounds $R (table): p50..p99.99 of reads, writes and all are the round's stored ones"
got=$(pctl latency "$run" --phase 1 --rounds "$R" | awk 'NR == 3 { print $3, $5 }')
is "$got" "$(cut -d' ' -f19-20 <<<"$stored" | to_us)" "latency --rounds $R: min and max are the round's"
# the span's own columns
field() { sed -n 's/.*"'"$2"'":\([^,}]*\).*/\1/p' "$W/$1.json" | head -n 1; }
is "$(field one run) $(field one phase) $(field one first_round) $(field one last_round) $(field one samples) $(field one point)" \
	"$run 1 $R $R 1 null" "latency --rounds $R: run, phase, rounds $R-$R, 1 sample, no point"
is "$(field window first_round) $(field window last_round)" "1 3" "latency --window: first_round 1, last_round 3"
is "$(field point phase) $(field point point) $(field point first_round)" "2 2 null" "latency --point 2: phase 2, point 2"
is "$(field sweeprounds first_round) $(field sweeprounds last_round) $(field sweeprounds point)" "1 2 null" \
	"latency --phase 2 --rounds 1-2: the sweep's samples 1-2"

# --- CSV: the same numbers; the table ---
pctl latency "$run" --phase 1 --rounds 2-5 --csv --percentiles 50,99.99 >"$W/l.csv"
is "$(head -n 1 "$W/l.csv")" "run,host,uuid,phase,point,first_round,last_round,samples,start,end,dir,ios,lat_min_us,lat_mean_us,lat_max_us,p50_us,p99.99_us" \
	"latency --csv: the header"
r=$(python3 -c '
import csv, json, sys
j = json.load(open(sys.argv[1]))[2]
c = list(csv.DictReader(open(sys.argv[2])))
print("ok" if len(c) == 1 and c[0]["dir"] == "all" and float(c[0]["p99.99_us"]) == j["p99.99_us"]
      and float(c[0]["lat_mean_us"]) == j["lat_mean_us"] and int(c[0]["ios"]) == j["ios"] else "differ")' "$W/many.json" "$W/l.csv")
is "$r" "ok" "latency --csv: one row (all I/O by default), numbers equal to --json's"
out=$(pctl latency "$run" --phase 1 --rounds 2-5 --percentiles 50,99.999)
like "$out" "^run $run phase 1 precondition, samples 2-5 \\(4 samples\\)" "latency table: the span first"
like "$out" $'\n''DIR +IOS +MIN_US +MEAN_US +MAX_US +P50_US +P99\.999_US'$'\n''all +[0-9]+ ' \
	"latency table: a row for all I/O with its percentile columns"

# --- errors ---
# fail RC NEEDLE ARGS...
fail() {
	local rc=$1 needle=$2 out
	shift 2
	out=$(pctl latency "$@" 2>&1)
	is "$?" "$rc" "latency $*: exit $rc"
	has "$out" "$needle" "latency $*: says '$needle'"
}
fail 2 "only a precondition phase is judged" "$run" --phase 2 --window
fail 3 "no samples 50-60" "$run" --phase 1 --rounds 50-60
fail 3 "no load point 9" "$run" --point 9
fail 2 "at most 100" "$run" --percentiles 0
fail 2 "at most 100" "$run" --percentiles 100.5
fail 2 "at most 7 decimals" "$run" --percentiles 99.123456789
fail 2 "given twice" "$run" --percentiles 99,99
fail 2 "one of them at most" "$run" --point 1 --window
fail 2 "--rounds: expected A-B" "$run" --rounds 5-2
fail 2 "--dir: expected read, write or all" "$run" --dir both
fail 2 "not a sweep" "$run" --phase 1 --point 1
fail 3 "no run 99" 99
# samples stored without histograms (the fixture's) cannot give percentiles
"$HELPERS/mkdb" "$W/fixture.db" && sqlite3 -bail "$W/fixture.db" <"$PLATEAU_SRC/tests/fixtures/basic.sql" ||
	bail_out "fixture database"
out=$("$PLATEAU" --db "$W/fixture.db" latency 1 2>&1)
is "$?" 2 "latency of samples without histograms: exit 2"
has "$out" "no stored histogram" "latency of samples without histograms: says so"

# --- a direction the phase never did: an error, not zeros ---
# a write-only precondition (plateau run, in the foreground)
"$PLATEAU" --db "$W/wonly.db" run --yes --quiet --target "$f" --profile 4k-randwrite \
	--threads 1 --iodepth 2 --interval 200ms --duration 1200ms >"$W/wonly.out" 2>&1
ok $? "a write-only run (plateau run)" || diag "$(cat "$W/wonly.out")"
wsql() { sqlite3 -batch -cmd '.timeout 5000' "$W/wonly.db" "$@"; }
is "$(wsql "SELECT sum(r_ios) = 0 AND sum(w_ios) > 0 FROM samples;")" 1 "the write-only run wrote and never read"
wfail() {
	local rc=$1 needle=$2 out
	shift 2
	out=$("$PLATEAU" --db "$W/wonly.db" "$@" 2>&1)
	is "$?" "$rc" "write-only phase: $*: exit $rc"
	has "$out" "$needle" "write-only phase: $*: says '$needle'"
}
wfail 2 "run 1 phase 1 (precondition 4k-randwrite) has no read I/O in any of its" \
	steady 1 --metric read.p99.9
wfail 2 "metric read.p99.9 has no data" steady 1 --metric iops,read.p99.9
wfail 2 "has no read I/O" plot 1 --metric read.p99.9 --width 80
wfail 2 "--dir read has no data" latency 1 --dir read
out=$("$PLATEAU" --db "$W/wonly.db" latency 1 --dir read,write --csv 2>&1)
is "$?" 0 "write-only phase: latency --dir read,write: exit 0 (a row each)"
is "$(cut -d, -f11-16 <<<"$out" | head -n 2)" $'dir,ios,lat_min_us,lat_mean_us,lat_max_us,p50_us\nread,0,,,,' \
	"write-only phase: latency --dir read,write: the read row says 0 I/Os and no latency"
out=$("$PLATEAU" --db "$W/wonly.db" steady 1 --metric write.p99.9 2>&1)
rc=$?
ok "$([ "$rc" = 0 ] || [ "$rc" = 1 ] && echo 0 || echo 1)" "steady --metric write.p99.9 of the writes: judged (exit $rc)"
like "$out" "metric +write\\.p99\\.9 \\(us\\), criterion" "steady --metric write.p99.9: a verdict on write.p99.9"
out=$("$PLATEAU" --db "$W/wonly.db" plot 1 --metric write.p99.9 --width 80 2>&1)
is "$?" 0 "plot --metric write.p99.9 of the writes: exit 0"
has "$out" "write.p99.9 (us)" "plot --metric write.p99.9: the metric in the title"
out=$("$PLATEAU" --db "$W/wonly.db" latency 1 --dir write --csv 2>&1)
is "$?" 0 "latency --dir write of the writes: exit 0"

# --- histograms needed only for the directions asked for ---
cp "$DB" "$W/nohist.db"
sqlite3 -bail "$W/nohist.db" "UPDATE samples SET w_hist = NULL WHERE phase_id = $P1 AND seq = $R;" ||
	bail_out "nohist.db"
hfail() {
	local rc=$1 needle=$2 out
	shift 2
	out=$("$PLATEAU" --db "$W/nohist.db" latency "$run" "$@" 2>&1)
	is "$?" "$rc" "sample $R without its write histogram: latency $*: exit $rc"
	[ -z "$needle" ] || has "$out" "$needle" "sample $R without its write histogram: latency $*: says '$needle'"
	LAST=$out
}
hfail 0 "" --phase 1 --dir read --json
is "$LAST" "$(pctl latency "$run" --phase 1 --dir read --json)" \
	"latency --dir read: the same reads as with every histogram"
hfail 2 "sample $R has write I/Os but no stored histogram" --phase 1 --dir write
hfail 2 "sample $R has write I/Os but no stored histogram" --phase 1 --dir all
hfail 2 "sample $R has write I/Os but no stored histogram" --phase 1

# --- whose run: host and uuid; HOST:N when several databases are read ---
read -r host uuid <<<"$(sql "SELECT host || ' ' || uuid FROM runs WHERE id = $run;")"
ok "$([ -n "$host" ] && [ ${#uuid} -ge 32 ] && echo 0 || echo 1)" "the run has a host ($host) and a uuid ($uuid)"
is "$(field one host) $(field one uuid)" "\"$host\" \"$uuid\"" "latency --json: host and uuid of the run"
is "$(pctl latency "$run" --phase 1 --rounds 2-5 --csv --dir all | cut -d, -f1-3)" \
	$'run,host,uuid\n'"$run,$host,$uuid" "latency --csv: run, host and uuid columns"
out=$("$PLATEAU" --db "$DB" --db "$W/wonly.db" latency "$uuid" --phase 1 --rounds 2-5 2>&1)
is "$?" 0 "latency over two databases: exit 0"
like "$(head -n 1 <<<"$out")" "^run $host:$run phase 1 precondition, samples 2-5" \
	"latency over two databases: the table names the run HOST:N"
out=$("$PLATEAU" --db "$DB" --db "$W/wonly.db" latency "$uuid" --phase 1 --rounds 2-5 --json 2>&1)
has "$out" "\"host\":\"$host\",\"uuid\":\"$uuid\"" "latency --json over two databases: host and uuid"

done_testing
