#!/bin/sh
# SPDX-License-Identifier: MIT
# How precord ends: exit statuses, signals, crash recovery and the errors users hit.
#   exit status     `precord -- sh -c 'exit 3'` exits 3, `exit 0` 0; a workload killed by
#                   SIGUSR1 / SIGKILL gives 128+10 / 128+9
#   SIGINT          to precord alone, mid-run: the workload is stopped (SIGTERM, status 143),
#                   the summary is printed, perf and preport read the file (hot_a leads hot_b) and
#                   agree on its record counts
#   Ctrl-C          SIGINT to the workload and precord at once: exit 130 (the workload's
#                   status), the file is complete
#   SIGTERM         to precord: exit 143, the file is complete
#   --duration      with a command that outlives it: exit 0 (precord stopped the command as
#                   asked), the file is complete; a command killed by its own SIGTERM: 143
#   end marker      every normal end (the above, --duration, a command that cannot run)
#                   leaves a file whose last record is the end marker, and preport -D says
#                   nothing on stderr
#   SIGKILL         precord killed mid-run with --flush-interval 200: perf report and preport
#                   still read the file, with samples (hot_a leads hot_b) and equal record counts;
#                   preport -D and preport warn in one line that it was cut short and when it
#                   ends, which they never do for the normal ends above (their stderr is empty)
#   disk full       precord recording 3000 short processes (megabytes of records, however
#                   busy the machine) into a 256 KiB tmpfs (where one can be mounted): exit 1,
#                   one line about the write error, and preport warns the file was cut short
#   errors          nonexistent command: 127 and one line on stderr naming it; unwritable
#                   output (-o /proc/x/y): 1, one line naming the file, and the workload never
#                   runs; unknown event, bad CPU list, PID that does not exist: non-zero and
#                   one line each, and no summary
# Recordings sample at 4000 Hz, so that sampling noise in the hot_a check stays well below 5
# points on a busy machine.  Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo
DEMO=$WL/demo

# ends_with_marker LABEL FILE: the last record preport -D lists (FILE.dump, from
# preport_reads) is the end marker, a SAMPLE_TIME feature record.
ends_with_marker() {
	_last=$(grep '^0x' "$2.dump" | tail -n 1)
	case $_last in
	*": FEATURE SAMPLE_TIME") ok "$1: the file ends with the end marker" ;;
	*) bad "$1: the last record is not the end marker: $_last" ;;
	esac
}

# readable LABEL FILE: preport and perf read FILE, agree on its counts, and hot_a leads hot_b.
readable() {
	preport_reads "$1" "$2"
	ends_with_marker "$1" "$2"
	counts_agree "$1" "$2"
	perf_report "$1" "$2" sym "$2.rep"
	check_demo_split "$1" "$2.rep"
}
# ---- exit statuses ----
say "--- exit status passthrough"
for c in "exit 0:0" "exit 3:3" "kill -USR1 \$\$:138" "kill -KILL \$\$:137"; do
	cmd=${c%:*}
	want=${c##*:}
	record status -q -e cpu-clock -o "$workdir/status.data" -- sh -c "$cmd"
	check_status "precord -- sh -c '$cmd'" "$rec_rc" "$want"
done

# ---- SIGINT / SIGTERM to precord, mid-run ----
# stop_midrun NAME SIGNAL TARGET: start precord -- demo 5000, let it run for about 1 s, send
# SIGNAL to TARGET (precord: precord alone; both: the demo and precord at once, as a terminal
# does on Ctrl-C) and wait.  Sets rc and child (the demo's pid).
stop_midrun() {
	f=$workdir/$1.data
	"$PRECORD" -e cpu-clock -F 4000 -g -o "$f" -- "$DEMO" 5000 \
		>"$workdir/$1.out" 2>"$workdir/$1.err" &
	pp=$!
	sleep 1
	child=$(children_of "$pp" | head -n 1)
	bg_pids="$bg_pids $child"
	if [ "$3" = both ] && [ -n "$child" ]; then
		kill -s "$2" "$child" "$pp"
	else
		kill -s "$2" "$pp"
	fi
	wait "$pp"
	rc=$?
}

# workload_gone LABEL: the demo precord started is no longer running.
workload_gone() {
	if [ -z "$child" ]; then
		bad "$1: precord had no child process after 1 s"
	elif kill -0 "$child" 2>/dev/null; then
		bad "$1: the workload ($child) still runs after precord exited"
	else
		ok "$1: the workload ($child) is gone"
	fi
}

say "--- SIGINT to precord mid-run"
stop_midrun sigint INT precord
check_status "SIGINT" "$rc" 143 "$workdir/sigint.err"
workload_gone "SIGINT"
check_summary "SIGINT" "$workdir/sigint.err"
readable "SIGINT" "$f"

say "--- Ctrl-C: SIGINT to the workload and precord mid-run"
stop_midrun ctrlc INT both
check_status "Ctrl-C" "$rc" 130 "$workdir/ctrlc.err"
workload_gone "Ctrl-C"
check_summary "Ctrl-C" "$workdir/ctrlc.err"
readable "Ctrl-C" "$f"

say "--- SIGTERM to precord mid-run"
stop_midrun sigterm TERM precord
check_status "SIGTERM" "$rc" 143 "$workdir/sigterm.err"
workload_gone "SIGTERM"
check_summary "SIGTERM" "$workdir/sigterm.err"
readable "SIGTERM" "$f"

say "--- SIGKILL to precord mid-run, --flush-interval 200"
f=$workdir/sigkill.data
"$PRECORD" -e cpu-clock -F 4000 -g --flush-interval 200 -o "$f" -- "$DEMO" 4000 \
	>"$workdir/sigkill.out" 2>"$workdir/sigkill.err" &
pp=$!
sleep 1
child=$(children_of "$pp" | head -n 1)
bg_pids="$bg_pids $child"
kill -s KILL "$pp"
wait "$pp"
check_status "SIGKILL" $? 137 "$workdir/sigkill.err"
[ -n "$child" ] && stop_bg "$child"
if [ -s "$f" ]; then
	ok "SIGKILL: the file has $(wc -c <"$f") bytes"
else
	bad "SIGKILL: the file is empty or missing"
fi
cut_readable "SIGKILL" "$f"
check_demo_split "SIGKILL" "$f.rep"
n=$(grep -c . "$f.samples")
if [ "$n" -gt 0 ]; then
	ok "SIGKILL: $n samples survive"
else
	bad "SIGKILL: no samples in the file"
fi

say "--- --duration: attached with -p, stopped by the clock"
start_bg "$DEMO" 5000
f=$workdir/duration.data
record duration -e cpu-clock -p "$bg_pid" --duration 0.5 -o "$f"
check_status "-p --duration 0.5" "$rec_rc" 0
preport_reads "-p --duration 0.5" "$f"
ends_with_marker "-p --duration 0.5" "$f"
stop_bg "$bg_pid"
say "--- --duration with a command: the clock ends it (exit 0), unless it dies of its own signal"
f=$workdir/duration-cmd.data
record duration-cmd -e cpu-clock --duration 0.5 -o "$f" -- "$DEMO" 100000
check_status "--duration 0.5 -- demo" "$rec_rc" 0
preport_reads "--duration 0.5 -- demo" "$f"
ends_with_marker "--duration 0.5 -- demo" "$f"
record duration-own -q -e cpu-clock --duration 60 -o "$f" -- sh -c 'kill -TERM $$'
check_status "--duration 60 -- sh -c 'kill -TERM \$\$'" "$rec_rc" 143

# ---- disk full ----
say "--- disk full: precord writing to a small tmpfs"
small=$workdir/small
mkdir "$small"
if mount -t tmpfs -o size=256k,mode=0700 precord-test "$small" 2>"$workdir/mount.err"; then
	f=$small/full.data
	# 3000 short processes: their COMM, MMAP2, FORK, EXIT and SWITCH records alone come to
	# megabytes, however little CPU time the machine gives them
	record full -e cpu-clock -F 4000 -g --no-compress --flush-interval 100 -o "$f" -- \
		sh -c 'i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done'
	check_status "disk full" "$rec_rc" 1
	if grep -q "^precord: cannot write '$f': No space left on device" "$workdir/full.err"; then
		ok "disk full: precord says so: $(grep "cannot write" "$workdir/full.err")"
	else
		bad "disk full: no 'cannot write ... No space left': $(lines "$workdir/full.err" 3)"
	fi
	cp "$f" "$workdir/full.data"
	# no room even for the header: one line that says what to do, and no empty file left
	dd if=/dev/zero of="$small/filler" bs=4k count=100 2>/dev/null
	g=$small/nothing.data
	record full0 -e cpu-clock -o "$g" -- true
	check_status "disk full at the start" "$rec_rc" 1
	if [ "$(grep -c . "$workdir/full0.err")" -eq 1 ] &&
		grep -q "^precord: cannot write '$g': No space left on device; free space there, or write elsewhere with -o\$" "$workdir/full0.err" &&
		[ ! -e "$g" ]; then
		ok "disk full at the start: one line with what to do, no empty file left"
	else
		bad "disk full at the start: $(lines "$workdir/full0.err" 3); file left: $(ls -l "$g" 2>&1)"
	fi
	umount "$small"
	cut_readable "disk full" "$workdir/full.data"
else
	say "disk full: skipped, cannot mount a tmpfs here: $(lines "$workdir/mount.err" 1)"
fi

# ---- errors users hit ----
say "--- a command that does not exist"
for cmd in /nonexistent/precord-test-cmd precord-test-no-such-command; do
	record nocmd -e cpu-clock -o "$workdir/nocmd.data" -- "$cmd" arg
	check_status "nonexistent command $cmd" "$rec_rc" 127
	one_line "nonexistent command $cmd" "$workdir/nocmd.err" "$cmd"
	preport_reads "nonexistent command $cmd" "$workdir/nocmd.data"
	ends_with_marker "nonexistent command $cmd" "$workdir/nocmd.data"
done

say "--- unwritable output"
marker=$workdir/workload-ran
record unwritable -e cpu-clock -o /proc/x/y -- sh -c "touch '$marker'"
check_status "-o /proc/x/y" "$rec_rc" 1
one_line "-o /proc/x/y" "$workdir/unwritable.err" /proc/x/y
if [ -e "$marker" ]; then
	bad "-o /proc/x/y: the workload ran although the output cannot be written"
else
	ok "-o /proc/x/y: the workload did not run"
fi

say "--- bad event, CPU list, PID"
# no_start LABEL WORD PRECORD-ARGS...: precord fails with one line naming WORD, no workload
no_start() {
	_l=$1
	_w=$2
	shift 2
	rm -f "$marker"
	record nostart "$@" -o "$workdir/nostart.data" -- sh -c "touch '$marker'"
	if [ "$rec_rc" -ne 0 ] && [ "$rec_rc" -lt 126 ]; then
		ok "$_l: exit status $rec_rc"
	else
		bad "$_l: exit status $rec_rc, want a failure (1..125)"
	fi
	one_line "$_l" "$workdir/nostart.err" "$_w"
	if [ -e "$marker" ]; then
		bad "$_l: the workload ran"
	else
		ok "$_l: the workload did not run"
	fi
}
no_start "-e no-such-event" no-such-event -e no-such-event
no_start "-C 4095" 4095 -e cpu-clock -C 4095
no_start "-C 0-x" 0-x -e cpu-clock -C 0-x
# a PID that does not exist: take the highest possible one (pid_max - 1), if it is free
pmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
nopid=$((pmax - 1))
if [ ! -e "/proc/$nopid" ]; then
	record nopid -e cpu-clock -p "$nopid" --duration 1 -o "$workdir/nopid.data"
	if [ "$rec_rc" -ne 0 ]; then ok "-p $nopid: exit status $rec_rc"; else bad "-p $nopid: exit status 0"; fi
	one_line "-p $nopid" "$workdir/nopid.err" "$nopid"
fi

finish
