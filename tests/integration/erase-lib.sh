# shellcheck shell=bash
# Small TAP producer for the erase/safety/VM scripts (sourced, not run).
# ok COND-STATUS DESC, check DESC CMD..., has FILE ERE, lacks FILE ERE.

tap_n=0
tap_failed=0

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# skip_one REASON: a skipped test point
skip_one() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip $*"
}

check() {
	local desc=$1
	shift
	if "$@"; then ok 0 "$desc"; else ok 1 "$desc"; fi
}

# has FILE ERE: the file has a line matching ERE (shown on failure)
has() {
	if grep -qE -- "$2" "$1"; then
		return 0
	fi
	echo "#   expected /$2/ in $1:" >&2
	sed 's/^/#     /' "$1" >&2
	return 1
}

lacks() {
	if ! grep -qE -- "$2" "$1"; then
		return 0
	fi
	echo "#   did not expect /$2/ in $1:" >&2
	grep -E -- "$2" "$1" | sed 's/^/#     /' >&2
	return 1
}

# count FILE ERE -> number of matching lines
count() {
	grep -cE -- "$2" "$1" || true
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
