#!/bin/bash
# Every plan, command and output shown in README.md, the man pages and
# examples/ is run (docs.extract.pl finds the blocks):
#   - plans (README's ```ini, man-page blocks with a [run] line,
#     examples/*.plan) pass `plateau check`;
#   - plateaud.conf examples (examples/plateaud.conf, plateaud(8)) start
#     plateaud;
#   - every `plateau ...` command line (README's ```sh, man pages' "$ plateau"
#     and "# plateau" lines) runs against a scratch database, daemon and loop
#     device, with the drive, run numbers and files made to fit (a
#     sweep's plot, points, latency and export read an ended run with every
#     phase; an export file, a directory of two hosts' databases and a fio
#     JSON are made for the commands that name them); it must not be
#     refused as usage (2), not found (3) or daemon unreachable (4);
#   - outputs are checked for their shape, not byte for byte (columns are
#     added as plateau grows): a table's header in the docs must be found,
#     column by column in that order, in a line of the real output; a
#     "label   value" line's label must start a real line; README's list of
#     JSON keys must be in the JSON; the erase methods `drives` lists for a
#     loop device must be what an erase accepts;
#   - what plateau.plan(5) and plateaud(8) say about comments after values
#     and hooks in sticky directories.
# A block the test cannot run says why in a diag line, by file and line.
set -u
. "$PLATEAU_SRC/tests/integration/daemon-lib.sh"

S=$PLATEAU_SRC
command -v perl >/dev/null || skip_all "perl is not installed"
command -v losetup >/dev/null || skip_all "losetup is not installed"
[ "$(id -u)" = 0 ] || skip_all "docs.t runs plateaud as root on a loop device"

BLK=$W/blocks
mkdir -p "$BLK" "$W/cwd" "$W/tmp"
perl "$S/tests/integration/docs.extract.pl" "$BLK" "$S/README.md" "$S/docs/plateau.1" \
	"$S/docs/plateau.plan.5" "$S/docs/plateaud.8"
ok $? "docs.extract.pl extracts the example blocks"
nblocks=$(wc -l <"$BLK/index")
ok "$([ "$nblocks" -ge 40 ] && echo 0 || echo 1)" "$nblocks blocks found (README, plateau(1), plateau.plan(5), plateaud(8))"

# the man pages render without a groff warning
if command -v groff >/dev/null; then
	for f in plateau.1 plateau.plan.5 plateaud.8; do
		is "$(groff -man -ww -z -Tutf8 "$S/docs/$f" 2>&1)" "" "docs/$f: groff -ww prints no warning"
	done
else
	skip 3 "groff is not installed"
fi

# --- plans ---------------------------------------------------------------
nplans=0
while IFS=$'\t' read -r n where lang section; do
	# (SYNOPSIS shows the form, with placeholders: not a plan)
	if [ "$lang" = ini ] || { [ "$lang" = roff ] && [ "$section" != SYNOPSIS ] &&
		grep -qx '\[run\]' "$BLK/$n"; }; then
		cp "$BLK/$n" "$W/plan-$n.plan"
		out=$("$PLATEAU" check "$W/plan-$n.plan" 2>&1)
		ok $? "$where: the plan passes plateau check" || diag "$out"
		nplans=$((nplans + 1))
	fi
done <"$BLK/index"
ok "$([ "$nplans" -ge 2 ] && echo 0 || echo 1)" "$nplans plans in README and the man pages"
for f in "$S"/examples/*.plan; do
	out=$("$PLATEAU" check "$f" 2>&1)
	ok $? "examples/${f##*/} passes plateau check" || diag "$out"
done

# plateau.plan(5), SYNTAX: no comments after a value; the message it quotes
want=$(sed -n 's/^\.BR "\(lab\.plan:6: \[precondition\] threads: .*\)" \.$/\1/p' "$S/docs/plateau.plan.5" |
	sed "s/\\\\(aq/'/g")
value=$(sed -n 's/^\.B "threads = \(.*\)"$/\1/p' "$S/docs/plateau.plan.5")
printf '[run]\ndevice = /dev/x\nserial = X\nname = lab\n[precondition]\nthreads = %s\n' "$value" >"$W/lab.plan"
out=$(cd "$W" && "$PLATEAU" check lab.plan 2>&1)
st=$?
is "$st" 2 "plateau.plan(5): a comment after a value is refused (exit 2)"
is "${out#plateau: }" "$want" "with the message plateau.plan(5) quotes" 

# plateau.plan(5): an alias with or without blanks around '=' (bs=4k, metric=p99)
printf '[run]\ndevice = /dev/x\nserial = X\n[precondition]\nrw = randwrite\nbs=4k\nmetric=p99\nmax_rounds = 25\n' >"$W/alias.plan"
out=$("$PLATEAU" check "$W/alias.plan" 2>&1)
ok $? "plateau.plan(5): bs=4k and metric=p99 without blanks pass check" || diag "$out"
has "$out" "4k/100" "bs=4k is read as 4k"
has "$out" "p99" "metric=p99 is read as p99"

# README's exit codes are plateau's (plateau help lists them)
help=$("$PLATEAU" help 2>&1 | sed -n '/^Exit status:/,$p' | tr '\n' ' ')
for code in $(sed -n '/^### Exit codes/,/^###* [A-Z]/s/^| \([0-9]\) | .*/\1/p' "$S/README.md"); do
	like "$help" "(^|[:;] )$code " "README's exit code $code is in plateau help"
done

# --- the scratch world: a loop device, a daemon, a finished run -------------
mkloop disk.img 256M || bail_out "no loop device"
LOOP=$LOOPDEV
SERIAL=$(serial_of "$LOOP")
[ -n "$SERIAL" ] || bail_out "no serial for $LOOP"
truncate -s 64M "$W/test.img"
daemon_start --prometheus-file "$W/plateau.prom" || bail_out "plateaud does not start: $(tail -n 5 "$LOG")"

# a plan shaped like the lab suite's first phases (erase, fill, precondition,
# sweep: phase 3 is the precondition, as in the docs' examples), small and quick
quick_plan() { # quick_plan MAX_ROUNDS
	cat <<EOF
[run]
device = $LOOP
serial = $SERIAL
name = docs
interval = 100ms

[erase]
method = auto

[fill]
passes = 1
bs = 1m

[precondition]
profile = 4k-randwrite
threads = 1
iodepth = 4
steady = snia
max_rounds = $1

[sweep]
points = 1x1 1x4
time = 300ms
ramp = 100ms
EOF
}
quick_plan 10 >"$W/quick.plan"
quick_plan 100000 >"$W/long.plan"
latest_run() { pctl runs --csv 2>/dev/null | awk -F, 'NR > 1 { r = $1 } END { print r }'; }
run_done() { [ "$(run_state "$1")" = done ]; }
out=$(pctl start "$W/quick.plan" 2>&1)
ok $? "a scratch run starts" || diag "$out"
RUN=$(latest_run)
wait_for 60 "run $RUN to end" run_done "$RUN"
ok $? "and ends (run $RUN)"

# two more runs (in the foreground, on a file) for the reports that compare runs
for k in 1 2; do
	out=$(pctl run --target "$W/test.img" --profile 4k-randwrite --threads 1 --iodepth 1 \
		--interval 100ms --duration 1s --quiet 2>&1) || diag "$out"
done
is "$(pctl runs --csv | awk 'END { print NR - 1 }')" 3 "three runs to show and compare"

# inputs the docs' commands name
for p in nightly lab-suite lab-4k test activerange snia-steady-state; do
	cp "$W/quick.plan" "$W/cwd/$p.plan"
done
pctl samples "$RUN" --phase 3 --csv >"$W/cwd/results.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "iops") c = i; print "iops,write_iops"; next }
	{ print $c "," $c }' "$W/cwd/results.csv" >"$W/cwd/r.csv" && mv "$W/cwd/r.csv" "$W/cwd/results.csv"
for t in $(seq 1000 1000 300000); do
	echo "$t, $((5000 + t % 7)), 1, 4096, 0"
done >"$W/cwd/job_iops.1.log"
cp "$S/tests/fixtures/fio-ss.json" "$W/cwd/fio.json"
# the ended run with every phase (a sweep measured): what the docs' sweep,
# latency and export examples read, whatever runs the docs started since
DONE_RUN=$RUN
# an export file, and a directory of two hosts' databases (README, "Many
# hosts"): the run as if made on alpha and on beta, each with its own uuid
out=$(pctl export "$DONE_RUN" -o "$W/cwd/host7.db" 2>&1)
ok $? "an export file for the docs' import" || diag "$out"
mkdir "$W/cwd/hosts"
for h in alpha beta; do
	cp "$W/cwd/host7.db" "$W/cwd/hosts/$h.db"
done
sqlite3 -bail "$W/cwd/hosts/alpha.db" "UPDATE runs SET host = 'alpha';" &&
	sqlite3 -bail "$W/cwd/hosts/beta.db" \
		"UPDATE runs SET host = 'beta', uuid = 'bbbbbbbb-0001-4000-8000-000000000000';"
ok $? "two hosts' databases in hosts/"

# --- commands ------------------------------------------------------------
# the command made to fit: the docs' drives, serials, run numbers and paths
# become the scratch ones; a foreground run is kept short
fit() {
	sed -E -e "s#(^|[ =])/tmp/#\1$W/tmp/#g" \
		-e "s#/dev/(loop0|nvme0n1)\b#$LOOP#g" \
		-e "s#loop:[0-9][0-9:.g]*#$SERIAL#g" \
		-e "s#\b(S6ABC123|S6CKNA0R123456)\b#$SERIAL#g" \
		-e "s#/var/tmp/test\.img#$W/test.img#g" \
		-e "s#/usr/local/share/plateau/examples/#$S/examples/#g" |
		perl -0777 -pe '
			# a sweep, its points and latency, an export: the ended run
			# with every phase
			s{(plateau(?: --\S+ \S+)* (?:points|latency|export)) [0-9]+\b}{$1 \$DONE_RUN}g;
			s{(plateau(?: --\S+ \S+)* plot) [0-9]+\b(?=[^\n]*--(?:phase 4|x)\b)}{$1 \$DONE_RUN}g;
			# RUN numbers after a command that takes runs
			s{(plateau(?: --\S+ \S+)* (?:show|samples|steady|plot|report|wait|stop|status))((?: [0-9]+)+)\b}
			 {my $k = 0; $1 . join("", map { my $i = $k++; $i ? " \$RUN$i" : " \$RUN" } split(" ", $2))}ge;
			# a foreground run (continued lines too) kept short
			if (/\bplateau\b[^\n]* run --/) {
				s/--interval \S+/--interval 100ms/g;
				s/--max-rounds \S+/--max-rounds 10/g;
				s/\s*\z/ --duration 3s --quiet\n/;
			}'
}
# plateau on the scratch daemon and database, unless the line names its own
plateau() {
	local a=("$@") own_db="" own_sock=""
	for x in "${a[@]}"; do
		[ "$x" = --db ] && own_db=1
		[ "$x" = --socket ] && own_sock=1
	done
	local g=()
	[ -z "$own_db" ] && g+=(--db "$DB")
	[ -z "$own_sock" ] && g+=(--socket "$SOCK")
	timeout 60 "$PLATEAU" "${g[@]}" "$@"
}
export -f plateau
export PLATEAU DB SOCK DONE_RUN

# run_doc WHERE TEXT: run a command (or script) in the scratch directory
run_doc() {
	local where=$1 text=$2 st
	RUN=$(latest_run)
	# a second and third run for the commands that compare runs
	read -r RUN1 RUN2 <<<"$(pctl runs --csv 2>/dev/null | awk -F, -v r="$RUN" 'NR > 1 && $1 != r { print $1 }' |
		tail -n 2 | tr '\n' ' ')"
	(cd "$W/cwd" && RUN=$RUN RUN1=$RUN1 RUN2=$RUN2 bash -o pipefail -c "$text") >"$W/cmd.out" 2>"$W/cmd.err"
	st=$?
	case $st in
	2 | 3 | 4 | 124 | 126 | 127)
		ok 1 "$where: $text" || diag "exit $st: $(head -c 600 "$W/cmd.err")"
		;;
	*)
		if grep -Eq 'unknown option|usage:|no command' "$W/cmd.err"; then
			ok 1 "$where: $text" || diag "$(head -c 600 "$W/cmd.err")"
		else
			ok 0 "$where: $text (exit $st)"
		fi
		;;
	esac
}

ncmds=0
while IFS=$'\t' read -r n where lang section; do
	[ "$lang" = sh ] || [ "$lang" = roff ] || continue
	base=${where%:*}
	line0=${where##*:}
	# plateaud(8) EXAMPLES' foreground plateaud and its plan: run below
	grep -q '^# plateaud ' "$BLK/$n" && continue
	# a script (plateau.1 EXAMPLES): run whole
	if grep -q '^out=\$(plateau start' "$BLK/$n"; then
		run_doc "$where" "$(fit <"$BLK/$n")"
		ncmds=$((ncmds + 1))
		continue
	fi
	i=0
	cmd=""
	while IFS= read -r l || [ -n "$l" ]; do
		i=$((i + 1))
		if [ -n "$cmd" ]; then
			cmd+=$'\n'$l
		else
			case $lang:$l in
			sh:plateau\ * | sh:\$\ plateau\ * | roff:\$\ plateau\ * | roff:\#\ plateau\ *) cmd=${l#[\$#] } ;;
			*) continue ;;
			esac
		fi
		[[ $cmd == *\\ ]] && continue
		# a refusal the docs show (a loop stack mounted elsewhere) is not
		# rebuilt here: the command must still be accepted
		run_doc "$base:$((line0 + i - 1))" "$(printf '%s\n' "$cmd" | fit)"
		ncmds=$((ncmds + 1))
		cmd=""
	done <"$BLK/$n"
done <"$BLK/index"
ok "$([ "$ncmds" -ge 30 ] && echo 0 || echo 1)" "$ncmds documented commands ran"

# the docs' runs on the loop device end before another daemon uses it
active_runs() { sql "SELECT id FROM runs WHERE state NOT IN ('done', 'failed', 'stopped');"; }
all_ended() { [ -z "$(active_runs)" ]; }
end_all() {
	wait_for 30 "the documented runs to end" all_ended && return 0
	for r in $(active_runs); do pctl stop "$r" >/dev/null 2>&1; done
	wait_for 30 "the documented runs to stop" all_ended
}
end_all

# plateaud(8) EXAMPLES: plateaud in the foreground with its own database and
# socket and a hook in /tmp (root's file in a root-owned sticky directory:
# accepted, HOOKS says); then a plan started on it
line=$(grep -h '^# plateaud --db /tmp/' "$BLK"/* | head -n 1)
is "${line:+found}" found "plateaud(8) EXAMPLES shows plateaud with a hook in /tmp"
sticky=$(mktemp -d /tmp/plateau-docs-sticky.XXXXXX)
at_cleanup "rm -rf '$sticky'"
chmod 1777 "$sticky"
# the hook runs as hook_user: nobody here (plateau-hook may not exist)
mkdir "$W/hooklog" && chown nobody "$W/hooklog" && chmod 0755 "$W"
printf '[daemon]\nfile_targets = %s\nhook_user = nobody\n' "$W" >"$W/p2.conf"
printf '#!/bin/sh\necho "$PLATEAU_EVENT" >>%s/hooklog/hook.log\n' "$W" >"$sticky/hook.sh"
chmod 0755 "$sticky/hook.sh"
cmd=$(printf '%s\n' "${line#\# }" | sed -e "s#/tmp/p\.db#$W/p2.db#; s#/tmp/p\.sock#$W/p2.sock#; s#/tmp/hook\.sh#$sticky/hook.sh#")
# shellcheck disable=SC2086
(cd "$W" && exec "$B"/$cmd --config "$W/p2.conf" >"$W/p2.log" 2>&1) &
track $!
p2_up() { "$PLATEAU" --socket "$W/p2.sock" status >/dev/null 2>&1; }
wait_for 10 "plateaud with a hook in a sticky directory" p2_up
ok $? "it starts"
unlike "$(cat "$W/p2.log")" 'not run as it stands' "the hook in a root-owned sticky directory is not refused"
line=$(grep -h '^# plateau --db /tmp/p.db' "$BLK"/* | head -n 1)
is "${line:+found}" found "and a plan started on it"
cmd=$(printf '%s\n' "${line#\# }" | sed -e "s#/tmp/p\.db#$W/p2.db#; s#/tmp/p\.sock#$W/p2.sock#")
# shellcheck disable=SC2086
out=$(cd "$W/cwd" && "$B"/$cmd 2>&1)
ok $? "$cmd" || diag "$out"
hook_ran() { grep -qx run-done "$W/hooklog/hook.log" 2>/dev/null; }
wait_for 60 "the hook to hear run-done" hook_ran
ok $? "the hook runs for the run's events (run-done)" || diag "$(cat "$W/p2.log")"
# not sticky, others may write: refused at every call, as HOOKS says
chmod 0777 "$sticky"
out=$(cd "$W/cwd" && "$PLATEAU" --db "$W/p2.db" --socket "$W/p2.sock" start test.plan 2>&1)
hook_refused() { grep -q "not run: directory $sticky must be owned by root and writable by its owner only" "$W/p2.log"; }
wait_for 60 "the hook to be refused at its next call" hook_refused
ok $? "once the directory loses its sticky bit, the next call refuses the hook (checked at every call)" ||
	diag "$(tail -n 5 "$W/p2.log")"

# --- plateaud.conf examples start plateaud ----------------------------------
confs=("$S/examples/plateaud.conf")
while IFS=$'\t' read -r n where lang section; do
	[ "$section" = "CONFIGURATION FILE" ] && grep -qx '\[daemon\]' "$BLK/$n" && confs+=("$BLK/$n")
done <"$BLK/index"
is "${#confs[@]}" 2 "two plateaud.conf examples: examples/ and plateaud(8)"
k=0
for c in "${confs[@]}"; do
	k=$((k + 1))
	install -m 0644 "$c" "$W/conf$k"
	"$PLATEAUD" --config "$W/conf$k" --db "$W/c$k.db" --socket "$W/c$k.sock" \
		--prometheus-file "$W/c$k.prom" >"$W/c$k.log" 2>&1 &
	pid=$!
	track $pid
	c_up() { "$PLATEAU" --socket "$W/c$k.sock" status >/dev/null 2>&1; }
	wait_for 10 "plateaud with ${c#"$S"/}" c_up
	ok $? "plateaud starts with ${c#"$W"/blocks/} as its configuration" || diag "$(cat "$W/c$k.log")"
	kill -TERM $pid 2>/dev/null
done

# --- outputs: tables and labels ---------------------------------------------
# the real output of a section's command, for the scratch run
long_run=
section_output() {
	case $1 in
	status* | top*)
		if [ -z "$long_run" ]; then
			end_all
			# the drive's lock goes a moment after the run's state is stored
			started() { pctl start "$W/long.plan" >/dev/null 2>&1; }
			wait_for 10 "the long run to start" started
			long_run=$(latest_run)
			in_pre() { pctl status "$long_run" 2>/dev/null | grep -q precondition &&
				[ "$(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id
					WHERE p.run_id = $long_run AND p.seq = 3;")" -ge 6 ]; }
			wait_for 60 "run $long_run to precondition" in_pre
		fi
		pctl status
		pctl status "$long_run"
		timeout 10 "$PLATEAU" --db "$DB" --socket "$SOCK" top --once </dev/null
		;;
	drives*) "$PLATEAU" drives "$LOOP" "$W/test.img" ;;
	runs*) pctl runs ;;
	points*) pctl points "$DONE_RUN" ;;
	latency*) pctl latency "$DONE_RUN" --rounds 1-5 --percentiles 50,99,99.99,99.999 --dir read,write ;;
	show*) pctl show "$RUN" ;;
	samples*) pctl samples "$RUN" --phase 3 ;;
	steady*) pctl steady "$RUN" --phase 3 ;;
	check*) "$PLATEAU" check "$W/cwd/lab-4k.plan" ;;
	start*)
		end_all
		unlocked() { ! pctl start --dry-run "$W/quick.plan" 2>&1 | grep -q 'is locked by'; }
		wait_for 10 "the drive's lock to go" unlocked
		pctl start --dry-run "$W/quick.plan"
		;;
	esac
}
# header HDR OUT: the header's columns (split at two blanks or more) appear
# in that order in one line of OUT, as whole columns
header_found() {
	perl -e '
		my ($hdr, $file) = @ARGV;
		$hdr =~ s/^\s+|\s+$//g;
		$hdr =~ s/\s+\.\.\.$//;
		my @cols = split /\s{2,}/, $hdr;
		my $re = "(?:^|\\s)" . join("\\s(?:.*\\s)?", map { quotemeta } @cols) . "(?:\\s|\$)";
		open(my $f, "<", $file) or die;
		while (my $l = <$f>) {
			chomp $l;
			$l =~ s/\s+/ /g;
			exit 0 if $l =~ /$re/;
		}
		exit 1;' "$1" "$2"
}
nshapes=0
RUN=$(latest_run)
while IFS=$'\t' read -r n where lang section; do
	[[ $lang == roff && $where == */plateau.1:* ]] || continue
	case $section in
	status* | top* | drives* | runs* | points* | latency* | show* | samples* | steady* | check* | start*) ;;
	*) continue ;;
	esac
	section_output "$section" >"$W/real.out" 2>&1
	while IFS= read -r l; do
		# a table header: four or more upper-case columns (P99.99_US; a
		# trailing ... stands for more)
		if [[ $l =~ ^\ *[A-Z][A-Z0-9_/]+(\ +[A-Z][A-Za-z0-9_/.]*){3,}(\ \.\.\.)?\ *$ ]]; then
			header_found "$l" "$W/real.out"
			ok $? "$where ($section): the columns $(echo $l)" ||
				diag "$(grep -E '^ *[A-Z]{2,}' "$W/real.out" | head -n 5)"
			nshapes=$((nshapes + 1))
		# a label: two-space indent, one lower-case word, two blanks or more
		elif [[ $l =~ ^(\ \ )?([a-z]+)\ {2,}[^\ ] ]]; then
			label=${BASH_REMATCH[2]}
			grep -Eq "^ *$label( |$)" "$W/real.out"
			ok $? "$where ($section): a line labelled '$label'" ||
				diag "$(head -n 12 "$W/real.out")"
			nshapes=$((nshapes + 1))
		fi
	done <"$BLK/$n"
done <"$BLK/index"
# plateaud(8) PROMETHEUS METRICS: every metric of the example is in the
# textfile while a run preconditions (names, not labels or values); an
# ended run keeps no per-sample series, so the long run must still be going
# (a section above may have ended it) and the textfile must show a sample
if [ -n "$long_run" ] && ! pctl status "$long_run" 2>/dev/null | grep -q precondition; then
	long_run=
fi
section_output status >/dev/null 2>&1
# one copy of the textfile is checked: plateaud replaces it at every sample,
# point and status tick, and a later one may hold fewer series
prom_has_sample() {
	cp "$W/plateau.prom" "$W/prom.snap" 2>/dev/null &&
		grep -q '^plateau_iops{' "$W/prom.snap" &&
		grep -q '^plateau_latency_seconds{' "$W/prom.snap"
}
wait_for 30 "the textfile to show run $long_run's samples" prom_has_sample
nmetrics=0
while IFS=$'\t' read -r n where lang section; do
	# (the example may stand in a subsection: a block of textfile lines)
	[[ $where == */plateaud.8:* ]] && grep -q '^plateau_[a-z_]*[{ ]' "$BLK/$n" || continue
	for m in $(grep -oE '^plateau_[a-z_]+' "$BLK/$n" | sort -u); do
		grep -qE "^$m[{ ]" "$W/prom.snap"
		ok $? "$where: the textfile has $m" || diag "$(grep -oE '^plateau_[a-z_]+' "$W/prom.snap" | sort -u | tr '\n' ' ')"
		nmetrics=$((nmetrics + 1))
	done
done <"$BLK/index"
ok "$([ "$nmetrics" -ge 3 ] && echo 0 || echo 1)" "$nmetrics documented metrics checked"
[ -n "$long_run" ] && pctl stop "$long_run" >/dev/null 2>&1

# plateaud(8) CONTROL PROTOCOL: the request shown gets a reply with the keys shown
while IFS=$'\t' read -r n where lang section; do
	[ "$section" = "CONTROL PROTOCOL" ] && grep -q "^# echo '{" "$BLK/$n" || continue
	req=$(sed -n "s/^# echo '\(.*\)' | socat .*/\1/p" "$BLK/$n")
	reply=$(printf '%s\n' "$req" | "$HELPERS/ctl-send" --lines 1 "$SOCK")
	for k in $(sed -n '2p' "$BLK/$n" | grep -oE '"[a-z_]+":' | tr -d '":'); do
		has "$reply" "\"$k\":" "$where: $req is answered with \"$k\""
	done
done <"$BLK/index"

# every MESSAGE_ID the docs give (32 hex digits) is one plateau or plateaud sends
for id in $(cat "$S/README.md" "$S"/docs/*.[158] | grep -oE '\b[0-9a-f]{32}\b' | sort -u); do
	grep -q "\"$id\"" "$S"/lib/*.[ch] "$S"/daemon/*.[ch] "$S"/tools/*.[ch]
	ok $? "MESSAGE_ID=$id is one plateau or plateaud sends"
done
ok "$([ "$nshapes" -ge 15 ] && echo 0 || echo 1)" "$nshapes table headers and labels checked"

# README: the drives table's header and the loop device's erase methods
blk=$(awk -F'\t' '$2 ~ /README\.md:/ { print $1 }' "$BLK/index" | while read -r n; do
	grep -q '^\$ plateau drives' "$BLK/$n" && echo "$n"
done | head -n 1)
hdr=$(sed -n '2p' "$BLK/$blk")
"$PLATEAU" drives >"$W/drives.out" 2>&1
header_found "$hdr" "$W/drives.out"
ok $? "README: plateau drives prints the columns $(echo $hdr)" || diag "$(head -n 3 "$W/drives.out")"
doc_methods=$(awk '$1 ~ /^\/dev\/loop/ { for (i = 1; i <= NF; i++) if ($i ~ /^[a-z-]+(,[a-z-]+)+$/) print $i }' "$BLK/$blk")
real_methods=$("$PLATEAU" drives "$LOOP" --csv | awk -F'"' 'NR == 2 { print $2 }')
is "$doc_methods" "$real_methods" "README: a loop device's erase methods are what plateau drives lists"
# ... and exactly what an erase accepts
for m in secure-discard discard zero punch sanitize-crypto format-user; do
	sed "s/^method = auto$/method = $m/" "$W/quick.plan" >"$W/m.plan"
	pctl start --dry-run "$W/m.plan" >"$W/m.out" 2>&1
	st=$?
	erase=$(grep '^phase 1 ' "$W/m.out")
	if [[ ",$real_methods," == *",$m,"* ]]; then
		ok "$([ $st = 0 ] && [ -n "$erase" ] && [[ $erase != *REFUSED* ]] && echo 0 || echo 1)" \
			"$LOOP: $m, listed by drives, is accepted by an erase (dry run)" || diag "$(cat "$W/m.out")"
	else
		ok "$([ $st != 0 ] || [[ $erase == *REFUSED* ]] && echo 0 || echo 1)" \
			"$LOOP: $m, not listed by drives, is refused by an erase (dry run)" || diag "$(cat "$W/m.out")"
	fi
done

# README: `steady` and `analyze` --json print at least the keys it lists
keys=$(tr '\n' ' ' <"$S/README.md" | grep -o 'With `--json` they print at least [^.]*' |
	grep -o '`[a-z_]*`' | tr -d '`' | grep -v '^json$')
ok "$([ "$(wc -w <<<"$keys")" -ge 10 ] && echo 0 || echo 1)" "README lists the verdict's JSON keys"
pctl steady "$RUN" --phase 3 --json >"$W/steady.json" 2>&1
"$PLATEAU" analyze "$W/cwd/results.csv" --column iops --json >"$W/analyze.json" 2>&1
for k in $keys; do
	grep -q "\"$k\":" "$W/steady.json" && grep -q "\"$k\":" "$W/analyze.json"
	ok $? "steady --json and analyze --json have \"$k\""
done
done_testing
