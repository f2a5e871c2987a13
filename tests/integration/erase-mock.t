#!/bin/bash
# erase-mock.t: the NVMe erase path through libnvme against an LD_PRELOAD
# ioctl mock (tests/mock/nvme-ioctl.c) that checks every Sanitize / Format
# NVM command dword and plays back identify data, statuses and Sanitize
# Status log pages.  The "namespace" is a plain file: when the mock lets a
# command erase, it zeroes (or fills) the file, and the read-back verify of
# lib/erase checks the real data.
#
# Covered: identity through libnvme; sanitize crypto and block succeeding
# with progress; sanitize already in progress picked up, never restarted;
# sanitize failed (decoded, no fallback); explicit methods the drive does
# not advertise refused before sending; the auto fallback chain on Invalid
# Opcode / Invalid Field; format SES=2 rejected then SES=1; the current LBA
# format kept; a status that must stop the chain; the deadline; stopping
# while polling; the FNA scope warnings; the identity mismatch refusal; and
# that the mock itself fails on an unexpected command.
set -u
. "${PLATEAU_SRC:?}/tests/integration/erase-lib.sh"

B=${PLATEAU_BUILD:?}
TOOL=$B/tests/helpers/erase-tool
MOCK=$B/tests/mock/nvme-ioctl.so
[ -x "$TOOL" ] || skip_all "$TOOL not built (make tests)"
[ -f "$MOCK" ] || skip_all "$MOCK not built (make tests)"

W=$(mktemp -d "$B/erase-mock.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
DEV=$W/nvme0n1   # 4096 blocks of 512 bytes
SIZE=2097152

fresh_data() {
	head -c $SIZE /dev/urandom >"$DEV"
	sum_before=$(cksum <"$DEV")
}
unchanged() { [ "$(cksum <"$DEV")" = "$sum_before" ]; }
all_bytes() { # all_bytes 00|ff
	if [ "$1" = 00 ]; then
		cmp -s -n $SIZE "$DEV" /dev/zero
	else
		cmp -s -n $SIZE "$DEV" <(head -c $SIZE /dev/zero | tr '\0' '\377')
	fi
}

# run NAME SCENARIO-TEXT erase-tool-args... -> $W/NAME.out, .log, rc in $rc
run() {
	local name=$1 scen=$2
	shift 2
	printf '%s\n' "$scen" >"$W/$name.scen"
	: >"$W/$name.log"
	PLATEAU_NVME_MOCK=$W/$name.scen PLATEAU_NVME_MOCK_LOG=$W/$name.log LD_PRELOAD=$MOCK \
		"$TOOL" "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	out=$W/$name.out
	log=$W/$name.log
	cat "$W/$name.err" >>"$out"
}

CTRL_ALL='ctrl serial="MOCK-SN-0001" model="Plateau Mock NVMe" firmware="1.2" oacs=0x000a fna=0x04 sanicap=0x00000003'
NS='ns nsid=1 nsze=4096 lbads=9 dlfeat=1 eui64=0011223344556677 nguid=00112233445566778899aabbccddeeff'
FAST=(--kind nvme --want MOCK-SN-0001 --poll-ms 1 --samples 8)

# --- identity through libnvme ---
fresh_data
run identify "$CTRL_ALL
$NS" identify "$DEV" --kind nvme
check "identify: exit 0" [ $rc -eq 0 ]
check "identify: kind nvme" has "$out" '^kind: nvme$'
check "identify: serial from Identify Controller SN" has "$out" '^serial: MOCK-SN-0001$'
check "identify: model, padding trimmed" has "$out" '^model: Plateau Mock NVMe$'
check "identify: firmware" has "$out" '^firmware: 1\.2$'
check "identify: eui64 as nvme-cli prints it" has "$out" '^eui64: 0011223344556677$'
check "identify: nguid" has "$out" '^nguid: 00112233445566778899aabbccddeeff$'
check "identify: capacity NSZE x LBA size" has "$out" "^capacity_bytes: $SIZE\$"
check "identify: LBA size" has "$out" '^lba_bytes: 512$'
check "identify: OACS, FNA, SANICAP" has "$out" '^sanicap: 0x00000003$'
check "identify: methods from the capabilities" has "$out" \
	'^erase_methods: sanitize-crypto,sanitize-block,format-crypto,format-user,none$'
check "identify: nothing destructive sent" lacks "$log" 'opc=0x8[04]'

# --- the plan names the drive: mismatch refused before anything ---
fresh_data
run mismatch "$CTRL_ALL
$NS" erase "$DEV" --kind nvme --want MOCK-SN-0002 --poll-ms 1
check "mismatch: refused (EPERM)" [ $rc -ne 0 ] && has "$out" '^result: EPERM$'
check "mismatch: message names both identities" has "$out" \
	'^msg: refusing .*serial MOCK-SN-0001.*not the drive the plan names \(serial MOCK-SN-0002\)'
check "mismatch: no sanitize, format or log read sent" lacks "$log" 'opc=0x(8[04]|02)'
check "mismatch: data unchanged" unchanged
run mismatch-eui "$CTRL_ALL
$NS" match "$DEV" "EUI.00-11-22-33-44-55-66-77" --kind nvme
check "match: the EUI64 names it too" has "$out" '^match: eui64$'

# --- sanitize crypto succeeding, with progress ---
fresh_data
run crypto "$CTRL_ALL
$NS
log sstat=0x0000
log sstat=0x0002 sprog=0x4000 etce=12 etbe=600 scdw10=4 repeat=2
log sstat=0x0002 sprog=0xc000 etce=12 etbe=600 scdw10=4
log sstat=0x0101 etce=12 scdw10=4
expect sanitize cdw10=0x00000004 status=0 erase=0" erase "$DEV" "${FAST[@]}"
check "crypto: exit 0" [ $rc -eq 0 ]
check "crypto: sanitize-crypto ran" has "$out" '^ran: sanitize-crypto$'
check "crypto: SANACT=4, no-deallocate off, AUSE 0 (CDW10 0x4)" has "$log" \
	'opc=0x84 nsid=0 cdw10=0x00000004 '
check "crypto: sent exactly once" [ "$(count "$log" 'opc=0x84')" -eq 1 ]
check "crypto: progress 25% with the controller's ETCE" has "$out" \
	'^progress: method=sanitize-crypto phase=running fraction=0\.2500 estimate_s=12 '
check "crypto: progress 75%" has "$out" 'fraction=0\.7500'
check "crypto: polled the log with RAE set (CDW10 0x007f8081)" has "$log" \
	'opc=0x02 nsid=4294967295 cdw10=0x007f8081'
check "crypto: scope warning: every namespace" has "$out" '^warning: sanitize erases every namespace'
check "crypto: verify passed, all ranges zero" has "$out" \
	'^verify: done=1 passed=1 expect=0x00 ranges=10 zero=10 ones=0 other=0'
check "crypto: the data is zero" all_bytes 00

# --- sanitize block succeeding; DLFEAT says deallocated blocks read FFh ---
fresh_data
run block 'ctrl serial="MOCK-SN-0001" oacs=0x0002 sanicap=0x00000002
ns nsid=1 nsze=4096 lbads=9 dlfeat=2
log sstat=0x0001 scdw10=4
log sstat=0x0002 sprog=0x8000 etbe=30 scdw10=2
log sstat=0x0001 scdw10=2
expect sanitize cdw10=0x00000002 status=0 erase=0xff' erase "$DEV" "${FAST[@]}" --method sanitize-block
check "block: exit 0" [ $rc -eq 0 ]
check "block: sanitize-block ran (SANACT=2)" has "$out" '^ran: sanitize-block$' &&
	has "$log" 'opc=0x84 nsid=0 cdw10=0x00000002 '
check "block: estimate is ETBE" has "$out" 'fraction=0\.5000 estimate_s=30 '
check "block: verify expects FFh from DLFEAT and passes" has "$out" \
	'^verify: done=1 passed=1 expect=0xff ranges=10 zero=0 ones=10 other=0'
check "block: the data is FFh" all_bytes ff

# --- a sanitize already in progress (after a crash) is polled, not restarted ---
head -c $SIZE /dev/zero >"$DEV"
run inprog "$CTRL_ALL
$NS
log sstat=0x0002 sprog=0x8000 etce=40 scdw10=4
log sstat=0x0002 sprog=0xf000 etce=40 scdw10=4
log sstat=0x0101 scdw10=4" erase "$DEV" "${FAST[@]}"
check "in progress: exit 0" [ $rc -eq 0 ]
check "in progress: resumed" has "$out" '^resumed: 1$'
check "in progress: the running operation's method recorded" has "$out" '^ran: sanitize-crypto$'
check "in progress: progress says resumed" has "$out" 'fraction=0\.5000 estimate_s=40 resumed=1'
check "in progress: no Sanitize command sent" lacks "$log" 'opc=0x84'
check "in progress: verify passed" has "$out" '^verify: done=1 passed=1'

# an overwrite sanitize (SANACT 3, not one of plateau's methods, no read-back)
# in progress is followed to its end, and then the planned erase runs, so the
# record says what erased the drive (it used to end "done" with ran=none)
fresh_data
run overwrite "$CTRL_ALL
$NS
log sstat=0x0002 sprog=0x8000 scdw10=3
log sstat=0x0101 scdw10=3
expect sanitize cdw10=0x00000004 status=0x0000 erase=0x00
log sstat=0x0101 scdw10=4" erase "$DEV" "${FAST[@]}"
check "overwrite in progress: exit 0" [ $rc -eq 0 ]
check "overwrite in progress: waited for, noted, not counted" has "$out" \
	'^attempt: method=none .*SANACT 3.*not counted as an erase, the planned erase follows'
check "overwrite in progress: then the planned sanitize was sent" has "$log" \
	'opc=0x84 nsid=0 cdw10=0x00000004 '
check "overwrite in progress: the record names it" has "$out" '^ran: sanitize-crypto$'
check "overwrite in progress: and reads back" has "$out" '^verify: done=1 passed=1'

run resume "$CTRL_ALL
$NS
log sstat=0x0002 sprog=0x2000 etce=40 scdw10=2
log sstat=0x0001 scdw10=2" resume "$DEV" --kind nvme --poll-ms 1 --samples 2
check "resume: exit 0, resumed, block erase from SCDW10" [ $rc -eq 0 ] &&
	has "$out" '^resumed: 1$' && has "$out" '^ran: sanitize-block$'
check "resume: nothing sent" lacks "$log" 'opc=0x8[04]'
run resume-done "$CTRL_ALL
$NS
log sstat=0x0101 scdw10=4" resume "$DEV" --kind nvme --poll-ms 1 --samples 2
check "resume: finished earlier, nothing written since (GDE): done" [ $rc -eq 0 ] &&
	has "$out" '^ran: sanitize-crypto$'
run resume-stale "$CTRL_ALL
$NS
log sstat=0x0001 scdw10=4" resume "$DEV" --kind nvme --poll-ms 1
check "resume: finished earlier but written since: ENOENT (erase again)" [ $rc -ne 0 ] &&
	has "$out" '^result: ENOENT$' && has "$out" 'Global Data Erased is 0'

# --- sanitize failed: decoded, and no fallback to format ---
fresh_data
run failed "$CTRL_ALL
$NS
log sstat=0x0000
log sstat=0x0002 sprog=0x1000 scdw10=4
log sstat=0x0003 scdw10=4
expect sanitize cdw10=0x00000004 status=0" erase "$DEV" "${FAST[@]}"
check "failed: exit non-zero, EIO" [ $rc -ne 0 ] && has "$out" '^result: EIO$'
check "failed: decoded from SSTAT" has "$out" \
	'^msg: sanitize-crypto: sanitize failed: Sanitize Status log SSTAT 0x0003'
check "failed: nothing else tried" [ "$(count "$log" 'opc=0x8[04]')" -eq 1 ]
check "failed: not completed" has "$out" '^completed: 0$'

# --- explicit methods the drive does not advertise: refused before sending ---
fresh_data
QEMU_LIKE='ctrl serial="MOCK-SN-0001" oacs=0x010a fna=0x00 sanicap=0
ns nsid=1 nsze=4096 lbads=9'
for m in sanitize-crypto sanitize-block format-crypto; do
	run "refuse-$m" "$QEMU_LIKE" erase "$DEV" "${FAST[@]}" --method $m
	check "unsupported $m: refused (EOPNOTSUPP)" [ $rc -ne 0 ] && has "$out" '^result: EOPNOTSUPP$'
	check "unsupported $m: attempt recorded as not sent" has "$out" "^attempt: method=$m sent=0"
	check "unsupported $m: no command sent" lacks "$log" 'opc=0x(8[04]|02)'
done
check "unsupported: sanitize refusal cites SANICAP CES" has "$W/refuse-sanitize-crypto.out" \
	'SANICAP bit 0 \(CES\) is 0'
check "unsupported: format-crypto refusal cites FNA bit 2" has "$W/refuse-format-crypto.out" \
	'FNA bit 2 \(crypto erase\) is 0'
check "unsupported: data unchanged" unchanged

# --- the auto chain: each rejection decoded, the next method tried ---
fresh_data
run chain "$CTRL_ALL
$NS
log sstat=0x0000
expect sanitize cdw10=0x00000004 status=0x4001
expect sanitize cdw10=0x00000002 status=0x4002
expect format nsid=1 cdw10=0x00000400 status=0x4002
expect format nsid=1 cdw10=0x00000200 status=0 erase=0" erase "$DEV" "${FAST[@]}"
check "chain: exit 0" [ $rc -eq 0 ]
check "chain: format-user ran" has "$out" '^ran: format-user$'
check "chain: crypto sanitize rejected, decoded" has "$out" \
	'^attempt: method=sanitize-crypto sent=1 err=EREMOTEIO status=0x4001 msg=Sanitize: Invalid Command Opcode \(0x4001\)$'
check "chain: block sanitize rejected, decoded" has "$out" \
	'^attempt: method=sanitize-block sent=1 err=EREMOTEIO status=0x4002 msg=Sanitize: Invalid Field in Command \(0x4002\)$'
check "chain: format SES=2 rejected, decoded" has "$out" \
	'^attempt: method=format-crypto sent=1 err=EREMOTEIO status=0x4002 msg=Format NVM: Invalid Field in Command \(0x4002\)$'
check "chain: format SES=1 recorded as the one that ran" has "$out" \
	'^attempt: method=format-user sent=1 err=0 .*Format NVM SES=1'
check "chain: commands in order" [ "$(grep -oE 'opc=0x8[04] nsid=[0-9]+ cdw10=0x[0-9a-f]+' "$log" | tr '\n' ' ')" = \
	"opc=0x84 nsid=0 cdw10=0x00000004 opc=0x84 nsid=0 cdw10=0x00000002 opc=0x80 nsid=1 cdw10=0x00000400 opc=0x80 nsid=1 cdw10=0x00000200 " ]
# identified once through the gate's descriptor, and again after the format
# (the kernel revalidates the namespace): the last Identify follows the last Format
check "chain: re-identified after the format" [ "$(grep -n 'opc=0x06 nsid=0 cdw10=0x00000001' "$log" | tail -1 | cut -d: -f1)" -gt "$(grep -n 'opc=0x80 ' "$log" | tail -1 | cut -d: -f1)" ]
check "chain: verify passed" has "$out" '^verify: done=1 passed=1'
check "chain: the data is zero" all_bytes 00

# --- format SES=2 rejected then SES=1, on a drive without sanitize ---
fresh_data
run ses 'ctrl serial="MOCK-SN-0001" oacs=0x0002 fna=0x04 sanicap=0
ns nsid=1 nsze=4096 lbads=9
expect format nsid=1 cdw10=0x00000400 status=0x4002
expect format nsid=1 cdw10=0x00000200 status=0 erase=0' erase "$DEV" "${FAST[@]}"
check "ses: SES=2 rejected, SES=1 ran" [ $rc -eq 0 ] && has "$out" '^ran: format-user$' &&
	has "$out" '^attempt: method=format-crypto sent=1 err=EREMOTEIO status=0x4002'
check "ses: no Sanitize Status log read without SANICAP" lacks "$log" 'opc=0x02'
check "ses: never SES=0" lacks "$log" 'opc=0x80 nsid=[0-9]+ cdw10=0x[0-9a-f]{5}[01][0-9a-f]{2} '
check "ses: data zero" all_bytes 00

# --- format keeps the LBA format, metadata and PI settings in use ---
fresh_data
run lbaf 'ctrl serial="MOCK-SN-0001" oacs=0x0002 fna=0 sanicap=0
ns nsid=1 nsze=4096 lbads=9 nlbaf=1 flbas=0x11 dps=0x01
expect format nsid=1 cdw10=0x00000231 status=0 erase=0' erase "$DEV" "${FAST[@]}" --method format-user
check "lbaf: LBAF 1, MSET 1, PI 1, SES 1 (CDW10 0x231)" [ $rc -eq 0 ] && has "$log" 'cdw10=0x00000231'

# --- a status that means "look at the drive" stops auto ---
fresh_data
run stopchain 'ctrl serial="MOCK-SN-0001" oacs=0x0002 fna=0x04 sanicap=0
ns nsid=1 nsze=4096 lbads=9
expect format nsid=1 cdw10=0x00000400 status=0x401d' erase "$DEV" "${FAST[@]}"
check "stop chain: Sanitize In Progress ends auto" [ $rc -ne 0 ] && has "$out" '^result: EREMOTEIO$' &&
	has "$out" 'Sanitize In Progress \(0x401d\)'
check "stop chain: SES=1 not tried" [ "$(count "$log" 'opc=0x80')" -eq 1 ]
check "stop chain: data unchanged" unchanged

# --- an explicit method the drive rejects: no fallback ---
fresh_data
run explicit "$CTRL_ALL
$NS
log sstat=0x0000
expect sanitize cdw10=0x00000004 status=0x4001" erase "$DEV" "${FAST[@]}" --method sanitize-crypto
check "explicit: rejected, reported, nothing else sent" [ $rc -ne 0 ] &&
	has "$out" '^msg: sanitize-crypto: Sanitize: Invalid Command Opcode \(0x4001\)$' &&
	[ "$(count "$log" 'opc=0x8[04]')" -eq 1 ]

# --- the deadline: a clear failure, the sanitize left to run ---
fresh_data
run deadline "$CTRL_ALL
$NS
log sstat=0x0000
log sstat=0x0002 sprog=0x1000 etce=3600 scdw10=4
expect sanitize cdw10=0x00000004 status=0" erase "$DEV" "${FAST[@]}" --poll-ms 5 --deadline-ms 60
check "deadline: ETIMEDOUT" [ $rc -ne 0 ] && has "$out" '^result: ETIMEDOUT$'
check "deadline: says where it was and what the controller estimated" has "$out" \
	'^msg: .*sanitize still in progress after [0-9]+ms at 6\.2% \(controller estimate: 1h00m00s\); it cannot be aborted'
check "deadline: started once" [ "$(count "$log" 'opc=0x84')" -eq 1 ]
check "deadline: ended near the deadline" [ "$(sed -n 's/^elapsed_ms: //p' "$out")" -lt 2000 ]

# --- stop while polling: between polls, never mid-command ---
fresh_data
run stop "$CTRL_ALL
$NS
log sstat=0x0000
log sstat=0x0002 sprog=0x1000 etce=60 scdw10=4
expect sanitize cdw10=0x00000004 status=0" erase "$DEV" "${FAST[@]}" --stop-after 3
check "stop: ECANCELED, the sanitize continues in the drive" [ $rc -ne 0 ] &&
	has "$out" '^result: ECANCELED$' && has "$out" 'continues in the drive'

# --- dry run: scope warnings, nothing sent ---
run dry 'ctrl serial="MOCK-SN-0001" oacs=0x0002 fna=0x07 sanicap=0
ns nsid=1 nsze=4096 lbads=9' dry-run "$DEV" --kind nvme
check "dry-run: chain format-crypto then format-user" has "$out" '^chain: format-crypto,format-user$'
check "dry-run: FNA bit 0 shown" has "$out" '^warning: Identify Controller FNA bit 0 is set'
check "dry-run: FNA bit 1 shown" has "$out" '^warning: Identify Controller FNA bit 1 is set'
check "dry-run: all namespaces flagged" has "$out" '^all_namespaces: 1$'
check "dry-run: nothing but identify sent" lacks "$log" 'opc=0x(8[04]|02)'

# --- the mock itself fails on a command the scenario does not allow ---
fresh_data
run unexpected "$CTRL_ALL
$NS
log sstat=0x0000" erase "$DEV" "${FAST[@]}"
check "mock: an unexpected sanitize aborts the run (exit 99)" [ $rc -eq 99 ] &&
	has "$out" '^MOCK-FAIL: unexpected sanitize'
run leftover "$CTRL_ALL
$NS
log sstat=0x0000
expect sanitize cdw10=0x00000004 status=0" identify "$DEV" --kind nvme
check "mock: an expected command that never came fails the run (exit 98)" [ $rc -eq 98 ]

done_testing
