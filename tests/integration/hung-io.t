#!/bin/bash
# SPDX-License-Identifier: MIT
#
# hung-io.t: a drive that stops answering.  The target is a file on an ext4
# filesystem that the test freezes (fsfreeze): its O_DIRECT writes then
# block in the kernel until it is thawed, as I/O to a dead device does.
#   - `plateau run --io-timeout 2s` fails the run a few seconds after the
#     freeze, naming the I/O that hung; every I/O given up on is counted as
#     an error in the samples; the run is recorded failed while the
#     filesystem is still frozen;
#   - under plateaud, `plateau stop` of a run whose I/O hangs ends it (it
#     waited for ever before: the stop drained the in-flight I/O), the
#     daemon goes on serving and runs another drive meanwhile.
. "${PLATEAU_SRC:?}/tests/integration/daemon-lib.sh"

for x in mkfs.ext4 fsfreeze mount umount fallocate; do
	command -v "$x" >/dev/null || skip_all "$x is not installed"
done
MNT=$W/mnt
mkdir -p "$MNT"
truncate -s 128M "$W/fs.img"
mkfs.ext4 -q -F "$W/fs.img" >/dev/null 2>&1 || skip_all "mkfs.ext4 failed"
mount -o loop "$W/fs.img" "$MNT" 2>/dev/null || skip_all "cannot mount an ext4 image here"
# thaw before anything waits for the processes the freeze holds
# (a ring's files are let go asynchronously: umount may need a moment)
unmount() {
	local i
	fsfreeze -u "$MNT" 2>/dev/null
	for i in $(seq 50); do
		umount "$MNT" 2>/dev/null && return 0
		sleep 0.1
	done
	umount -l "$MNT"
}
at_cleanup unmount
fsfreeze -f "$MNT" 2>/dev/null && fsfreeze -u "$MNT" || skip_all "cannot freeze a filesystem here"
T=$MNT/target.img
fallocate -l 48M "$T" || bail_out "fallocate $T failed"

state_is() { [ "$(run_state "$1" 2>/dev/null)" = "$2" ]; }

# --- the foreground runner: a hang in the middle of a run ---
OUT=$W/run.out
"$PLATEAU" --db "$DB" run --target "$T" --profile 4k-randwrite --threads 2 --iodepth 8 \
	--interval 200ms --duration 60s --io-timeout 2s --quiet >"$OUT" 2>&1 &
RPID=$!
track "$RPID"
wait_for 20 "run 1 to store 3 samples" has_samples 1 3
ok $? "plateau run writes to the file (3 samples stored)" || bail_out "$(cat "$OUT")"
fsfreeze -f "$MNT"
t0=$(now_ms)
wait_for 20 "run 1 to be recorded failed" state_is 1 failed
ok $? "the run is recorded failed while the filesystem is still frozen"
dt=$(($(now_ms) - t0))
ok "$([ "$dt" -lt 10000 ] && echo 0 || echo 1)" "  within 10 s of the freeze with --io-timeout 2s (${dt} ms)"
msg=$(sql "SELECT error FROM runs WHERE id = 1;")
re="^write at offset [0-9]+ \(4096 bytes\) of $T not completed after [2-4] s: the device does not answer; ([0-9]+) I/Os? abandoned$"
like "$msg" "$re" "  the error names the hung I/O, its age and what was given up"
# both threads hang (every write blocks); each abandons its own in-flight
# I/O and says so in its own message, the first one is kept
if [[ $msg =~ $re ]]; then n=${BASH_REMATCH[1]}; else n=-1; fi
ok "$([ "$n" -ge 1 ] && [ "$n" -le 8 ] && echo 0 || echo 1)" "  1..8 I/Os of the first thread abandoned ($n)"
errs=$(sql "SELECT sum(s.errors) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE p.run_id = 1;")
ok "$([ "$errs" -ge "$n" ] && [ "$errs" -le 16 ] && echo 0 || echo 1)" \
	"  the abandoned I/Os are counted as errors in the samples ($errs, at most 2 x 8)"
is "$(sql "SELECT state FROM phases WHERE run_id = 1;")" failed "  the phase failed too"
like "$(sql "SELECT message FROM events WHERE run_id = 1 AND kind = 'run-failed';")" \
	"not completed after [2-4] s: the device does not answer" "  a run-failed event says why"
fsfreeze -u "$MNT"
wait_for 20 "plateau run to exit once thawed" _gone "$RPID"
wait "$RPID"
is "$?" 5 "plateau run exits 5 (the run failed) once the kernel gives the I/O back"
like "$(cat "$OUT")" "plateau: run 1 failed: write at offset [0-9]+ \(4096 bytes\) of $T not completed" \
	"  and said why"

# --- the daemon: stop a run whose I/O hangs ---
daemon_start
ok $? "plateaud starts" || bail_out "$(cat "$LOG")"
cat >"$W/hang.plan" <<EOF
[run]
device = $T
serial = $(serial_of "$T")
name = hang
interval = 200ms
io_timeout = 2s

[precondition]
profile = 4k-randwrite
threads = 2
iodepth = 4
steady = none
max_rounds = 1000
EOF
is "$(pctl start "$W/hang.plan" 2>&1)" "run 2 started" "run 2 starts"
wait_for 20 "run 2 to store 3 samples" has_samples 2 3
ok $? "  and writes (3 samples stored)"
fsfreeze -f "$MNT"
sleep 0.5
t0=$(now_ms)
out=$(pctl stop 2 2>&1)
ok $? "plateau stop 2 is accepted while its I/O hangs" || diag "$out"
out=$(timeout 30 "$PLATEAU" --db "$DB" --socket "$SOCK" wait 2 --timeout 20s 2>&1)
rc=$?
dt=$(($(now_ms) - t0))
is "$rc" 5 "run 2 ends, failed (exit 5), instead of draining for ever"
like "$out" "run 2 failed: write at offset [0-9]+ \(4096 bytes\) of $T not completed after [2-4] s" \
	"  naming the hung write"
ok "$([ "$dt" -lt 10000 ] && echo 0 || echo 1)" "  within 10 s of the stop (${dt} ms)"

# the daemon is fine: it answers and runs another drive meanwhile
like "$(pctl show 2 2>&1)" "^run 2: hang \(failed\).*error +write at offset [0-9]+ \(4096 bytes\) of $T not completed" "plateau show 2: failed, and why"
g=$(mkfile other.img 32M)
cat >"$W/other.plan" <<EOF
[run]
device = $g
serial = $(serial_of "$g")
name = other
interval = 200ms

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = none
max_rounds = 3
EOF
is "$(pctl start "$W/other.plan" 2>&1)" "run 3 started" "another run starts while the frozen writes are pending"
is "$(timeout 30 "$PLATEAU" --db "$DB" wait 3 --timeout 20s 2>&1)" "run 3 done" "  and completes"
check_run 3
ok "$(kill -0 "$DPID" 2>/dev/null && echo 0 || echo 1)" "plateaud is still running"
fsfreeze -u "$MNT"
daemon_term 20
is "$DSTATUS" 0 "plateaud exits 0 after the thaw"
done_testing
