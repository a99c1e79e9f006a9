#!/bin/sh
# SPDX-License-Identifier: MIT
# precord's targets, events and output options, each on a workload of tests/workloads/:
#   -p PID          attach to a running demo for 1 s: exit 0, every sample has its pid, hot_a
#                   leads hot_b (so the synthesized maps resolve), chains reach main
#   -p PID          attach to a running `threads`: both threads sampled (>= 25% each), under
#                   the thread names read from /proc (synthesized COMM); -t TID: only that
#                   thread (every sample its tid, thread_b seen, thread_a never), and the
#                   synthesized COMM/MMAP2 records carry its process id
#   -a              1 s with a demo running: samples of more than one pid including the demo,
#                   all with a cpu, COMM and SWITCH_CPU_WIDE records; perf finds hot_a in demo
#   -C 0            system-wide on CPU 0 with a demo pinned to CPU 0 and one to CPU 1: every
#                   sample is on cpu 0, the first demo is sampled and the second is not;
#                   -C 0 -- sleep: the same CPU-wide recording, timed by the command (perf's
#                   meaning), so the first demo is sampled, not only sleep
#   -e cpu-clock,task-clock (and -e X -e Y): samples of both events in preport -D and perf
#   -c 100000       every sample's period is 100000
#   --call-graph dwarf[,4096]: every sample has regs-abi 2 and stack 8192 (4096); perf
#                   unwinds the stack copies to main, also after -p (maps synthesized)
#   -o -            to a pipe into `perf report -i -`: hot_a leads; the workload's stdout does
#                   not go into the stream
#   existing output renamed to FILE.old, byte for byte
#   --no-compress and -z 19: perf and preport read the file; no COMPRESSED records without
#                   compression
# Every recording is also read by preport -D.  Recordings whose profile is checked (+-5 points)
# sample at 4000 Hz for 1 s, so that sampling noise stays well below that on a busy machine.
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo threads
DEMO=$WL/demo
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

# all_equal LINES FIELD VALUE LABEL: every preport -D line in LINES has FIELD VALUE (and there
# are some).
all_equal() {
	sample_field "$1" "$2" | sort | uniq -c >"$1.$2"
	_lines=$(grep -c . "$1")
	if [ "$(grep -c . "$1.$2")" -eq 1 ] && [ "$(awk '{ print $2 }' "$1.$2")" = "$3" ] &&
		[ "$(awk '{ print $1 }' "$1.$2")" -eq "$_lines" ]; then
		ok "$4: all $_lines records have $2 $3"
	else
		bad "$4: of $_lines records, by $2: $(tr '\n' ' ' <"$1.$2" | tr -s ' '); want all $3"
	fi
}

# ---- -p: attach to a running demo ----
say "--- -p: attach to a running demo for 1 s"
# It runs far longer than the checks on a loaded machine take; stop_bg ends it.
start_bg "$DEMO" 100000
sleep 0.3
f=$workdir/attach.data
record attach -e cpu-clock -F 4000 -g -p "$bg_pid" --duration 1 -o "$f"
check_status "-p" "$rec_rc" 0
check_summary "-p" "$workdir/attach.err"
preport_reads "-p" "$f"
all_equal "$f.samples" pid "$bg_pid" "-p"
perf_report "-p" "$f" sym "$f.rep"
check_demo_split "-p" "$f.rep"
perf_chains "-p" "$f" "$f.chains"
check_chains "-p" "$f.chains" hot_a '^hot_a;outer;main(;|$)'

say "--- -p with --call-graph dwarf: perf unwinds with the synthesized maps"
f=$workdir/attach-dwarf.data
record attach-dwarf -e cpu-clock -F 999 --call-graph dwarf -p "$bg_pid" --duration 0.5 -o "$f"
check_status "-p --call-graph dwarf" "$rec_rc" 0
preport_reads "-p --call-graph dwarf" "$f"
perf_chains "-p --call-graph dwarf" "$f" "$f.chains"
check_chains "-p --call-graph dwarf" "$f.chains" hot_a '^hot_a;outer;main(;|$)' 90
stop_bg "$bg_pid"

# ---- -p and -t on a process with threads ----
say "--- -p and -t: attach to a running 'threads'"
start_bg "$WL/threads" 100000
tpid=$bg_pid
sleep 0.3
f=$workdir/attach-threads.data
record attach-threads -e cpu-clock -F 4000 -g -p "$tpid" --duration 1 -o "$f"
check_status "-p threads" "$rec_rc" 0
preport_reads "-p threads" "$f"
perf_report "-p threads" "$f" comm,sym "$f.rep"
# The threads split 50:50 over their whole run, not within any 1 s window on a busy machine,
# so this only checks that each thread is well represented under its own name.
for t in thread_a thread_b; do
	s=$(share "$f.rep" $t $t)
	if awk -v s="$s" 'BEGIN { exit !(s >= 25) }'; then
		ok "-p threads: $t in comm $t has $s% of the samples (want >= 25%)"
	else
		bad "-p threads: $t in comm $t has $s% of the samples, want >= 25%"
	fi
done
tids=$(sample_field "$f.samples" tid | sort -u | grep -v "^$tpid\$" | tr '\n' ' ')
if [ "$(echo "$tids" | wc -w)" -eq 2 ]; then
	ok "-p threads: samples from the two threads $tids"
else
	bad "-p threads: samples from the threads '$tids' of $tpid, want two"
fi
tid_b=$(for t in /proc/"$tpid"/task/*; do
	[ "$(cat "$t/comm" 2>/dev/null)" = thread_b ] && basename "$t"
done)
if [ -n "$tid_b" ]; then
	f=$workdir/tid.data
	record tid -e cpu-clock -F 999 -g -t "$tid_b" --duration 0.5 -o "$f"
	check_status "-t" "$rec_rc" 0
	preport_reads "-t" "$f"
	all_equal "$f.samples" tid "$tid_b" "-t"
	all_equal "$f.samples" pid "$tpid" "-t"
	# the synthesized COMM and MMAP2 records must name the process, as the samples do
	grep -E ': (COMM|MMAP2) ' "$f.dump" >"$f.side"
	all_equal "$f.side" pid "$tpid" "-t, COMM and MMAP2 records"
	# Which functions the thread is seen in depends on the machine's load (kernel entry
	# and exit show up on a busy one); that no sample is of the other thread does not.
	perf_report "-t" "$f" sym "$f.rep"
	check_share_min "-t" "$f.rep" thread_b 1
	share_verdict "-t" "thread_a (the other thread)" "$(share "$f.rep" thread_a)" "g == 0" "0%"
else
	bad "-t: cannot find the thread_b thread of $tpid in /proc"
fi
stop_bg "$tpid"

# -p of a process whose leader leaves (pthread_exit) while its threads run on: the recording
# goes on until the last thread ends, as perf's does.  The leader leaves 0.6 s after the
# start, the threads spin for 1.5 s; precord attaches before the leader leaves.
start_bg "$WL/threads" 1500 600
lpid=$bg_pid
sleep 0.2
f=$workdir/leader-exit.data
record leader-exit -e cpu-clock -F 999 -p "$lpid" --duration 20 -o "$f" # 20 s: a guard
check_status "-p, leader leaves" "$rec_rc" 0
preport_reads "-p, leader leaves" "$f"
# the samples after the leader's EXIT; checked only when precord found the two threads at
# the attach (their COMM records of time 0): a thread made later is followed by inheritance
# from the leader's event alone, which ends with the leader, in perf too
lexit=$(awk -v p="$lpid" '/: EXIT / && $0 ~ " tid " p " " { print $NF; exit }' "$f.dump")
nthr=$(grep -c ": COMM pid $lpid tid [0-9]* comm thread_[ab] time 0\$" "$f.dump")
if [ -z "$lexit" ] || [ "$nthr" -ne 2 ]; then
	say "-p, leader leaves: precord attached before the threads existed or after the leader left (EXIT '$lexit', threads seen $nthr): not checked"
else
	n=$(awk -v t="$lexit" '{ for (i = 1; i < NF; i++) if ($i == "time" && $(i + 1) > t) { n++; break } }
		END { print n + 0 }' "$f.samples")
	if [ "$n" -ge 100 ]; then
		ok "-p, leader leaves: $n samples of its threads after it left"
	else
		bad "-p, leader leaves: $n samples after the leader left, want >= 100 (the threads spin on for about 0.9 s each): $(lines "$workdir/leader-exit.err" 2)"
	fi
fi
stop_bg "$lpid"

# -p A,B where A ends first: B is recorded to its end (the first fd of each CPU's ring is A's)
start_bg "$DEMO" 400
apid=$bg_pid
start_bg "$DEMO" 1500
bpid=$bg_pid
sleep 0.1
f=$workdir/two-pids.data
record two-pids -e cpu-clock -F 999 -p "$apid,$bpid" --duration 20 -o "$f"
check_status "-p A,B" "$rec_rc" 0
preport_reads "-p A,B" "$f"
aexit=$(awk -v p="$apid" '/: EXIT / && $0 ~ " tid " p " " { print $NF; exit }' "$f.dump")
if [ -z "$aexit" ]; then
	say "-p A,B: A ($apid) ended before the attach: not checked"
else
	n=$(awk -v t="$aexit" -v p="$bpid" '$0 ~ " pid " p " " {
		for (i = 1; i < NF; i++) if ($i == "time" && $(i + 1) > t) { n++; break } }
		END { print n + 0 }' "$f.samples")
	# B runs 1.1 s of wall time after A: at least 20 samples even when it gets 2% of a CPU
	# (the code before gave 0-2)
	if [ "$n" -ge 20 ]; then
		ok "-p A,B: $n samples of B after A ended"
	else
		bad "-p A,B: $n samples of B after A ended, want >= 20: $(lines "$workdir/two-pids.err" 2)"
	fi
fi
stop_bg "$apid"
stop_bg "$bpid"

# -t names threads, and as in perf (which sets no inherit for -t) the processes and threads
# they start after the attach are not recorded: here a shell that starts demo half a second
# after it (the "; true" keeps the shell from exec'ing demo in its own thread).
start_bg sh -c "sleep 0.5; \"$DEMO\" 600; true"
spid=$bg_pid
f=$workdir/tid-children.data
record tid-children -e cpu-clock -F 999 -t "$spid" --duration 1.5 -o "$f"
check_status "-t SHELL" "$rec_rc" 0
preport_reads "-t SHELL" "$f"
n=$(sample_field "$f.samples" tid | grep -cv "^$spid\$")
if [ "$n" -eq 0 ]; then
	ok "-t SHELL: no sample of the demo the shell started after the attach"
else
	bad "-t SHELL: $n samples of other threads than $spid (the demo it started): -t must not follow them"
fi
stop_bg "$spid"

# ---- -a ----
say "--- -a: the whole system for 1 s, with a demo running"
start_bg "$DEMO" 3000
sleep 0.2
f=$workdir/all.data
record all -e cpu-clock -F 999 -g -a --duration 1 -o "$f"
check_status "-a" "$rec_rc" 0
check_summary "-a" "$workdir/all.err"
preport_reads "-a" "$f"
counts_agree "-a" "$f"
npid=$(sample_field "$f.samples" pid | sort -u | grep -c .)
if [ "$npid" -gt 1 ]; then
	ok "-a: samples of $npid pids"
else
	bad "-a: samples of $npid pids, want more than one"
fi
if sample_field "$f.samples" pid | grep -q "^$bg_pid\$"; then
	ok "-a: the running demo ($bg_pid) is sampled"
else
	bad "-a: no sample of the running demo ($bg_pid)"
fi
n=$(sample_field "$f.samples" cpu | grep -c .)
if [ "$n" -eq "$(grep -c . "$f.samples")" ]; then
	ok "-a: every sample has a cpu"
else
	bad "-a: $n of $(grep -c . "$f.samples") samples have a cpu"
fi
for t in COMM SWITCH_CPU_WIDE MMAP2; do
	n=$(count_of "$f.counts" $t)
	if [ "$n" -gt 0 ]; then ok "-a: $n $t records"; else bad "-a: no $t records"; fi
done
perf_report "-a" "$f" comm,sym "$f.rep"
s=$(share "$f.rep" hot_a demo)
if awk -v s="$s" 'BEGIN { exit !(s > 0) }'; then
	ok "-a: perf resolves hot_a in the demo that started before the recording ($s%)"
else
	bad "-a: perf does not find hot_a in comm demo"
fi
stop_bg "$bg_pid"

# ---- -C 0 ----
say "--- -C 0: CPU 0 only, a demo pinned to CPU 0 and one to CPU 1"
if command -v taskset >/dev/null 2>&1 && [ "$ncpu" -ge 2 ]; then
	start_bg taskset -c 0 "$DEMO" 3000
	on0=$bg_pid
	start_bg taskset -c 1 "$DEMO" 3000
	on1=$bg_pid
	sleep 0.2
	# "-- sleep 0.5": as in perf, a command with -C only times the recording of the CPUs
	for form in "--duration 0.5" "-- sleep 0.5"; do
		l="-C 0 $form"
		f=$workdir/cpu0.data
		rm -f "$f"
		# shellcheck disable=SC2086 # $form is several words on purpose
		record cpu0 -e cpu-clock -F 999 -C 0 -o "$f" $form
		check_status "$l" "$rec_rc" 0
		preport_reads "$l" "$f"
		all_equal "$f.samples" cpu 0 "$l"
		pids=$(sample_field "$f.samples" pid | sort | uniq -c | sort -rn | head -n 3 | join_lines)
		if sample_field "$f.samples" pid | grep -q "^$on0\$"; then
			ok "$l: the demo pinned to CPU 0 is sampled"
		else
			bad "$l: no sample of the demo pinned to CPU 0 ($on0); pids sampled: $pids"
		fi
		if sample_field "$f.samples" pid | grep -q "^$on1\$"; then
			bad "$l: the demo pinned to CPU 1 ($on1) is sampled"
		else
			ok "$l: the demo pinned to CPU 1 is not sampled"
		fi
	done
	stop_bg "$on0"
	stop_bg "$on1"
else
	say "no taskset or one CPU: -C 0 only checks that all samples are on CPU 0"
	f=$workdir/cpu0.data
	record cpu0 -e cpu-clock -F 999 -C 0 --duration 0.5 -o "$f"
	check_status "-C 0" "$rec_rc" 0
	preport_reads "-C 0" "$f"
	all_equal "$f.samples" cpu 0 "-C 0"
fi

# ---- -e lists ----
for form in "-e cpu-clock,task-clock" "-e cpu-clock -e task-clock"; do
	say "--- $form"
	f=$workdir/events.data
	rm -f "$f"
	# shellcheck disable=SC2086 # $form is several words on purpose
	record events $form -F 999 -o "$f" -- "$DEMO" 400
	check_status "$form" "$rec_rc" 0
	preport_reads "$form" "$f"
	sample_event "$f.samples" | sort | uniq -c >"$f.events"
	nc=$(awk '$2 == "cpu-clock" { print $1 }' "$f.events")
	nt=$(awk '$2 == "task-clock" { print $1 }' "$f.events")
	nc=${nc:-0}
	nt=${nt:-0}
	na=$(grep -c . "$f.samples")
	if [ "$nc" -gt 0 ] && [ "$nt" -gt 0 ] && [ $((nc + nt)) -eq "$na" ]; then
		ok "$form: preport -D names both events: $nc cpu-clock and $nt task-clock samples"
	else
		bad "$form: $nc cpu-clock and $nt task-clock samples of $na in preport -D; want both, nothing else"
	fi
	perf_report "$form" "$f" sym "$f.rep"
	if grep -q "^# Samples: .* of event 'cpu-clock'" "$f.rep" &&
		grep -q "^# Samples: .* of event 'task-clock'" "$f.rep"; then
		ok "$form: perf report shows both events"
	else
		bad "$form: perf report shows the events: $(grep '^# Samples' "$f.rep" | tr '\n' ' ')"
	fi
done

# ---- -c ----
say "--- -c 100000"
f=$workdir/count.data
record count -e cpu-clock -c 100000 -o "$f" -- "$DEMO" 200
check_status "-c 100000" "$rec_rc" 0
preport_reads "-c 100000" "$f"
all_equal "$f.samples" period 100000 "-c 100000"

# ---- --call-graph dwarf ----
for size in "" 4096; do
	mode=dwarf${size:+,$size}
	say "--- --call-graph $mode"
	f=$workdir/dwarf$size.data
	record dwarf$size -e cpu-clock -F 999 --call-graph "$mode" -o "$f" -- "$DEMO" 500
	check_status "--call-graph $mode" "$rec_rc" 0
	preport_reads "--call-graph $mode" "$f"
	all_equal "$f.samples" regs-abi 2 "--call-graph $mode"
	all_equal "$f.samples" stack "${size:-8192}" "--call-graph $mode"
	perf_chains "--call-graph $mode" "$f" "$f.chains"
	check_chains "--call-graph $mode" "$f.chains" hot_a '^hot_a;outer;main(;|$)' 90
	# preport unwinds the stack copies: its stacks of hot_a are hot_a <- outer <- main
	"$PREPORT" -i "$f" --folded >"$f.folded" 2>"$f.folded.err"
	rc=$?
	r=$(awk '{ s = $0; sub(/ [0-9]+$/, "", s) } s ~ /;hot_a$/ { n += $NF; if (s ~ /;main;outer;hot_a$/) m += $NF }
		END { printf "%d %d\n", m, n }' "$f.folded")
	if [ "$rc" -eq 0 ] && [ "${r#* }" -gt 0 ] && [ $((${r% *} * 100)) -ge $((${r#* } * 90)) ] &&
		! grep -q 'does not unwind\|unwinds only' "$f.folded.err"; then
		ok "--call-graph $mode: preport unwinds ${r% *} of ${r#* } hot_a samples to main;outer;hot_a"
	else
		bad "--call-graph $mode: preport exits $rc, ${r% *} of ${r#* } hot_a samples unwound to main;outer;hot_a; $(lines "$f.folded.err") $(sort -t' ' -k2 -rn "$f.folded" | head -n 2 | join_lines)"
	fi
done

# ---- -o - ----
say "--- -o - into perf report -i -"
f=$workdir/pipe
"$PRECORD" -e cpu-clock -F 4000 -o - -- "$DEMO" 1000 2>"$f.err" |
	"$PERF" report -i - --stdio --no-children --sort sym -g none >"$f.rep" 2>"$f.rep.err"
rc=$?
check_status "-o - | perf report -i -" "$rc" 0 "$f.err"
check_demo_split "-o - | perf report -i -" "$f.rep"
if grep -q '^precord: .* samples in .* to standard output$' "$f.err"; then
	ok "-o -: the summary says 'standard output'"
else
	bad "-o -: summary line: $(tail -n 1 "$f.err")"
fi
# the marker is computed, so the command line in the header does not contain it
"$PRECORD" -e cpu-clock -F 999 -o - -- sh -c "echo marker-\$((6 * 7)); exec '$DEMO' 200" \
	>"$f.data" 2>"$f.err2"
rc=$?
check_status "-o -, workload writing to stdout" "$rc" 0 "$f.err2"
if [ "$(head -c 8 "$f.data")" = PERFILE2 ] && ! grep -q marker-42 "$f.data" &&
	grep -q marker-42 "$f.err2"; then
	ok "-o -: the workload's standard output goes to stderr, not into the stream"
else
	bad "-o -: the workload's output is in the stream or lost (stream starts '$(head -c 8 "$f.data")')"
fi
preport_reads "-o - to a file" "$f.data"

# ---- existing output renamed ----
say "--- an existing output file is renamed to FILE.old"
f=$workdir/again.data
record again1 -e cpu-clock -o "$f" -- "$DEMO" 100
cp "$f" "$workdir/first.copy"
record again2 -e cpu-clock -o "$f" -- "$DEMO" 100
check_status "second recording" "$rec_rc" 0
if [ -f "$f.old" ] && cmp -s "$f.old" "$workdir/first.copy"; then
	ok "the first recording is now $(basename "$f").old, byte for byte"
else
	bad "$(basename "$f").old is missing or differs from the first recording"
fi
preport_reads "FILE.old" "$f.old"
preport_reads "new FILE" "$f"

# ---- compression levels ----
for z in --no-compress "-z 19"; do
	say "--- $z"
	f=$workdir/z.data
	rm -f "$f"
	# shellcheck disable=SC2086 # $z is two words on purpose
	record z -e cpu-clock -F 4000 -g $z -o "$f" -- "$DEMO" 1000
	check_status "$z" "$rec_rc" 0
	preport_reads "$z" "$f"
	counts_agree "$z" "$f"
	n=$(count_of "$f.counts" COMPRESSED)
	if [ "$z" = --no-compress ]; then
		if [ "$n" -eq 0 ]; then ok "$z: no COMPRESSED records"; else bad "$z: $n COMPRESSED records"; fi
	else
		if [ "$n" -gt 0 ]; then ok "$z: $n COMPRESSED records"; else bad "$z: no COMPRESSED records"; fi
	fi
	perf_report "$z" "$f" sym "$f.rep"
	check_demo_split "$z" "$f.rep"
done

finish
