#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tap-summary.sh DIR: one line a machine can read, after prove's own summary:
#   make check: N passed, N failed, N skipped
# over every TAP stream prove dumped into DIR (PERL_TEST_HARNESS_DUMP_TAP).
# A test is one "ok"/"not ok" line of a test program (subtests, indented,
# are not counted).  "ok ... # SKIP" and a program that skips all ("1..0 #
# SKIP") are skipped; "not ok", a "Bail out!", the tests a program planned
# but never ran, and a program that printed no plan are failed.
set -u
dir=${1:?usage: tap-summary.sh DIR}
[ -d "$dir" ] || { echo "make check: no test ran (no $dir)"; exit 1; }
find "$dir" -type f | sort | while read -r f; do
	awk '
		BEGIN { plan = -1; seen = 0; p = 0; f = 0; s = 0; bail = 0 }
		/^1\.\.0([ \t]|$)/ { plan = 0; if (seen == 0) s++; next }
		/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
		/^ok([ \t]|$)/ {
			seen++
			if (tolower($0) ~ /#[ \t]*skip/) s++; else p++
			next
		}
		/^not ok([ \t]|$)/ {
			seen++
			if (tolower($0) ~ /#[ \t]*todo/) p++; else f++
			next
		}
		/^Bail out!/ { bail = 1 }
		END {
			if (bail) f++
			if (plan > seen) f += plan - seen
			if (plan < 0 && !bail) f++
			print p, f, s
		}' "$f"
done | awk '{ p += $1; f += $2; s += $3 }
	END { printf "make check: %d passed, %d failed, %d skipped\n", p, f, s }'
