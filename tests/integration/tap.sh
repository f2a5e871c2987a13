# SPDX-License-Identifier: MIT
# tap.sh: a small TAP producer for plateau's integration tests (bash).
#
#   . "$PLATEAU_SRC/tests/integration/tap.sh"
#   plan 3                      # or done_testing at the end
#   ok "$?" "the command worked"       # pass when the status is 0
#   is "$got" "$want" "same text"
#   like "$got" 'ERE' "matches"        # bash [[ =~ ]] (POSIX ERE)
#   unlike "$got" 'ERE' "does not match"
#   has "$got" "fixed text" "contains" # fixed-string search
#   is_file got.txt want.txt "same file"   # shows a diff on failure
#   diag "a note on stdout";  skip 2 "why";  skip_all "why";  bail_out "why"
#   TODO="bug: ..."             # following checks are TODO until TODO=""
#                               # (PLATEAU_TEST_STRICT=1: TODO failures count)
#   done_testing                # prints the plan if needed; exits 0 or 1
#
# Every check returns 0 on pass and 1 on failure, so `is ... || diag ...`
# works.  Checks run in the caller's shell: no subshells, the counter holds.

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=-1
TODO=${TODO:-}

plan() {
	TAP_PLANNED=$1
	echo "1..$1"
}

diag() {
	local line
	while IFS= read -r line; do
		echo "# $line"
	done <<<"$*"
}

# _tap_result PASS NAME: print one result line
_tap_result() {
	local pass=$1 name=$2 directive=""
	TAP_N=$((TAP_N + 1))
	local todo=$TODO
	[ -n "${PLATEAU_TEST_STRICT:-}" ] && todo=""
	[ -n "$todo" ] && directive=" # TODO $todo"
	# '#' in a name would start a directive
	name=${name//#/\\#}
	if [ "$pass" = 1 ]; then
		echo "ok $TAP_N - $name$directive"
		return 0
	fi
	echo "not ok $TAP_N - $name$directive"
	[ -z "$todo" ] && TAP_FAILED=$((TAP_FAILED + 1))
	# the line of the test script that called the outermost function
	local n=${#BASH_LINENO[@]}
	echo "#   Failed test at ${BASH_SOURCE[n - 1]:-$0} line ${BASH_LINENO[n - 2]:-?}."
	return 1
}

ok() {
	local status=$1 name=${2:-}
	if [ "$status" = 0 ]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "  status: $status"
		return 1
	fi
}

is() {
	local got=$1 want=$2 name=${3:-}
	if [ "$got" == "$want" ]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "         got: '$got'"
		diag "    expected: '$want'"
		return 1
	fi
}

isnt() {
	local got=$1 dont=$2 name=${3:-}
	if [ "$got" != "$dont" ]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "         got: '$got'"
		diag "    expected: anything else"
		return 1
	fi
}

like() {
	local got=$1 re=$2 name=${3:-}
	if [[ $got =~ $re ]]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "                  '$got'"
		diag "    doesn't match '$re'"
		return 1
	fi
}

unlike() {
	local got=$1 re=$2 name=${3:-}
	if ! [[ $got =~ $re ]]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "                  '$got'"
		diag "          matches '$re'"
		return 1
	fi
}

has() {
	local got=$1 needle=$2 name=${3:-}
	if [[ $got == *"$needle"* ]]; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "                  '$got'"
		diag "    doesn't contain '$needle'"
		return 1
	fi
}

is_file() {
	local got=$1 want=$2 name=${3:-}
	if [ ! -f "$want" ]; then
		_tap_result 0 "$name"
		diag "    $want does not exist"
		return 1
	fi
	if cmp -s "$got" "$want"; then
		_tap_result 1 "$name"
	else
		_tap_result 0 "$name"
		diag "$(diff -u "$want" "$got" | head -n 40)"
		return 1
	fi
}

pass() { _tap_result 1 "${1:-}"; }
fail() { _tap_result 0 "${1:-}"; }

skip() {
	local n=$1 why=${2:-} i
	for ((i = 0; i < n; i++)); do
		TAP_N=$((TAP_N + 1))
		echo "ok $TAP_N # skip $why"
	done
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

bail_out() {
	echo "Bail out! $*"
	exit 255
}

done_testing() {
	if [ "$TAP_PLANNED" -lt 0 ]; then
		echo "1..$TAP_N"
	elif [ "$TAP_PLANNED" -ne "$TAP_N" ]; then
		echo "# planned $TAP_PLANNED tests but ran $TAP_N"
		exit 1
	fi
	if [ "$TAP_FAILED" -gt 0 ]; then
		echo "# failed $TAP_FAILED of $TAP_N tests"
		exit 1
	fi
	exit 0
}
