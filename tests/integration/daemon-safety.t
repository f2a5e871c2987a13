#!/bin/bash
# SPDX-License-Identifier: MIT
#
# daemon-safety.t: plateaud refuses to write to a drive the plan does not
# name, and refuses before anything is written: the target's checksum is
# the same before and after, and no run (nor event) is recorded.  The
# safety gate's refusals exit 6, an invalid plan 2.
#   - a wrong serial, another file's serial, no serial at all; the old
#     synthetic serial form without the birth time (re-read the serial);
#   - a loop device named by its backing file's serial (root);
#   - the backing file of an attached loop device, rightly named: in use;
#   - a plan for another database;
#   - --dry-run with the right serial: shows, starts and writes nothing;
#   - a run whose target is swapped for another file while plateaud is
#     down: the resumed run fails on the identity check, the new file is
#     left untouched.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

sum() { sha256sum <"$1" | cut -d' ' -f1; }
nruns() { sql 'SELECT count(*) FROM runs;'; }
nevents() { sql 'SELECT count(*) FROM events;'; }

# write_plan FILE DEVICE SERIAL-LINE
write_plan() {
	cat >"$1" <<EOF
[run]
device = $2
$3
interval = 200ms

[erase]

[fill]
passes = 1

[precondition]
profile = 4k-randwrite
steady = none
max_rounds = 3
EOF
}

# refused LABEL PLAN TARGET ERE [EXIT]: start is refused naming the problem
# (exit 6: the gate; 2: an invalid plan); nothing changes
refused() {
	local label=$1 plan=$2 target=$3 re=$4 want=${5:-6} before after out rc
	before=$(sum "$target")
	out=$(pctl start "$plan" 2>&1)
	rc=$?
	is "$rc" "$want" "$label: plateau start exits $want"
	like "$out" "$re" "$label: ${out:0:150}"
	after=$(sum "$target")
	is "$after" "$before" "$label: the target is unchanged (sha256)"
	is "$(nruns):$(nevents)" "0:0" "$label: no run and no event recorded"
}

daemon_start || bail_out "no daemon: $(cat "$LOG")"

f=$W/data.img
head -c 32M /dev/urandom >"$f"
other=$(mkfile other.img 32M)
sf=$(serial_of "$f")
so=$(serial_of "$other")

write_plan "$W/wrong.plan" "$f" "serial = file:0:0:12345:1700000000.000000000"
refused "wrong serial" "$W/wrong.plan" "$f" \
	"^plateau: refusing $f: it is .*$sf.*, not the drive the plan names \(serial file:0:0:12345:1700000000\.000000000\)$"
write_plan "$W/oldform.plan" "$f" "serial = file:0:0:12345"
refused "old serial form" "$W/oldform.plan" "$f" \
	"^plateau: refusing $f: serial file:0:0:12345 is the old synthetic form.*re-read the serial with plateau drives $f$"
write_plan "$W/other.plan" "$f" "serial = $so"
refused "another file's serial" "$W/other.plan" "$f" "refusing $f: .*not the drive the plan names \(serial $so\)"
write_plan "$W/none.plan" "$f" "# no serial"
refused "no serial" "$W/none.plan" "$f" "\[run\] serial \(or eui64, nguid, wwn\) is required" 2
write_plan "$W/db.plan" "$f" "serial = $sf
database = $W/elsewhere.db"
refused "another database" "$W/db.plan" "$f" "database = $W/elsewhere.db, but this plateaud records into $DB" 2
ok "$([ ! -e "$W/elsewhere.db" ] && echo 0 || echo 1)" "another database: it is not created either"

# --- dry run ---
write_plan "$W/right.plan" "$f" "serial = $sf"
before=$(sum "$f")
out=$(pctl start --dry-run "$W/right.plan" 2>&1)
is "$?" 0 "dry run with the right serial exits 0"
has "$out" "dry run: nothing was started or written" "dry run: says nothing was started"
like "$out" "phase 1  erase: .*would try \[\"punch\"" "dry run: shows the erase method that would run"
like "$out" "checks +identity matches the plan \(serial\); not in use; free" "dry run: shows the checks"
out=$(pctl start --dry-run --json "$W/right.plan" 2>&1)
like "$out" "\"serial\": \"$sf\"" "dry run --json: the drive's identity"
is "$(sum "$f")" "$before" "dry run: the target is unchanged"
is "$(nruns):$(nevents)" "0:0" "dry run: no run recorded"

# --- loop devices ---
if [ "$(id -u)" != 0 ]; then
	skip 9 "loop devices need root"
else
	truncate -s 0 "$W/loop.img"
	head -c 32M /dev/urandom >"$W/loop.img"
	if ! LOOPDEV=$(losetup --direct-io=on -f --show "$W/loop.img" 2>/dev/null); then
		skip 9 "cannot attach a loop device"
	else
		_LOOPS+=("$LOOPDEV")
		sl=$(serial_of "$LOOPDEV")
		sb=$(serial_of "$W/loop.img")
		like "$sl" '^loop:' "the loop device is named $sl"
		write_plan "$W/loopwrong.plan" "$LOOPDEV" "serial = $sb"
		refused "loop named by its backing file's serial" "$W/loopwrong.plan" "$LOOPDEV" \
			"refusing $LOOPDEV: .*not the drive the plan names \(serial $sb\)"
		write_plan "$W/backing.plan" "$W/loop.img" "serial = $sb"
		refused "the backing file of a loop device" "$W/backing.plan" "$W/loop.img" \
			"^plateau: refusing $W/loop.img: the file backs $(basename "$LOOPDEV")$"
	fi
fi

# --- the target changes identity while plateaud is down ---
g=$(mkfile swap.img 32M)
write_plan "$W/swap.plan" "$g" "serial = $(serial_of "$g")"
sed -i 's/^max_rounds = 3/max_rounds = 200/' "$W/swap.plan"
out=$(pctl start "$W/swap.plan" 2>&1)
is "$out" "run 1 started" "swap: run 1 starts"
wait_for 20 "run 1 to precondition" eval '[ "$(run_state 1)" = preconditioning ]'
daemon_term 10
is "$(run_state 1)" preconditioning "swap: paused while preconditioning"
head -c 32M /dev/urandom >"$W/new.img"
mv "$W/new.img" "$g"
before=$(sum "$g")
daemon_start
ok $? "swap: plateaud starts again"
out=$(timeout 30 "$PLATEAU" --db "$DB" wait 1 --timeout 20s 2>&1)
is "$?" 5 "swap: plateau wait says the run failed (exit 5)"
like "$out" "run 1 failed: refusing $g: it is .*, not the drive the plan names \(serial file:" \
	"swap: the run failed on the identity check"
is "$(sum "$g")" "$before" "swap: the file now at that path is untouched"
is "$(event_kinds 1 '^run-')" "run-created run-started run-paused run-resumed run-failed" \
	"swap: events started, paused, resumed, failed"
is "$(sql 'PRAGMA integrity_check;')" ok "integrity_check = ok"
daemon_term 10
is "$DSTATUS" 0 "plateaud exits 0"
done_testing
