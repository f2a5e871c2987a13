#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench-query.sh BUILD_DIR [SAMPLES]: time the query side of the CLI on a
# database of SAMPLES (default 1,000,000) samples in one run's
# precondition phase, made by BUILD_DIR/tests/helpers/gendb and kept in
# $TMPDIR (reused when it exists).  Best wall-clock time of 3 runs and the
# largest resident set, as a markdown table.
#
#   make tests && sh tools/bench-query.sh build
set -eu

B=${1:?usage: sh tools/bench-query.sh BUILD_DIR [SAMPLES]}
N=${2:-1000000}
B=$(cd "$B" && pwd)
PLATEAU=$B/plateau
GENDB=$B/tests/helpers/gendb
DB=${TMPDIR:-/tmp}/plateau-bench-$N.db
RUNS=3

for f in "$PLATEAU" "$GENDB"; do
	[ -x "$f" ] || {
		echo "bench-query: no $f (make B=$B all tests)" >&2
		exit 2
	}
done

if [ ! -s "$DB" ]; then
	echo "generating $DB ($N samples) ..." >&2
	rm -f "$DB" "$DB-wal" "$DB-shm"
	t0=$(date +%s.%N)
	"$GENDB" "$DB" "$N" >&2
	t1=$(date +%s.%N)
	echo "generated in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s" >&2
fi

if [ -x /usr/bin/time ] && /usr/bin/time -f '%e' true 2>/dev/null; then
	GNU_TIME=1
else
	GNU_TIME=0
fi

# measure CMD...: prints "SECONDS RSS_KB" of one run (RSS "-" without GNU time)
measure() {
	if [ "$GNU_TIME" = 1 ]; then
		/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || true
		cat "$TMP/time"
	else
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>"$TMP/err" || true
		t1=$(date +%s.%N)
		awk "BEGIN { printf \"%.3f -\\n\", $t1 - $t0 }"
	fi
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# row "DESCRIPTION" CMD...: best of $RUNS, largest RSS
row() {
	desc=$1
	shift
	best=""
	rss=0
	i=0
	while [ $i -lt $RUNS ]; do
		m=$(measure "$@")
		s=${m% *}
		r=${m#* }
		if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then
			best=$s
		fi
		if [ "$r" != "-" ] && [ "$r" -gt "$rss" ]; then
			rss=$r
		fi
		i=$((i + 1))
	done
	if [ -s "$TMP/err" ]; then
		echo "bench-query: $desc: $(head -n 1 "$TMP/err")" >&2
	fi
	# shellcheck disable=SC2016 # the backquotes are markdown
	if [ "$GNU_TIME" = 1 ]; then
		printf '| `%s` | %.2f | %.1f |\n' "$desc" "$best" "$(awk "BEGIN { print $rss / 1024 }")"
	else
		printf '| `%s` | %.2f | - |\n' "$desc" "$best"
	fi
}

count=$(sqlite3 "$DB" 'SELECT count(*) FROM samples' 2>/dev/null || echo "?")
size=$(du -m "$DB" | cut -f1)
echo "database: $DB, $count samples, $size MiB; $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "best of $RUNS runs, output to /dev/null"
echo
echo "| command | best wall (s) | max RSS (MiB) |"
echo "|---|---:|---:|"
row "plateau samples 1" "$PLATEAU" --db "$DB" samples 1
row "plateau samples 1 --csv" "$PLATEAU" --db "$DB" samples 1 --csv
row "plateau samples 1 --json" "$PLATEAU" --db "$DB" samples 1 --json
row "plateau steady 1" "$PLATEAU" --db "$DB" steady 1
row "plateau steady 1 --json" "$PLATEAU" --db "$DB" steady 1 --json
row "plateau show 1" "$PLATEAU" --db "$DB" show 1
