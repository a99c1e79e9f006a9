#!/bin/sh
# SPDX-License-Identifier: MIT
# precord daemon leaves out the side records (FORK, COMM, MMAP2, EXIT) of processes that
# began and ended within one drain round without a sample, and keeps everything of the
# others.  Two daemons record the same moments (-a -e cpu-clock -F 99 -g), one with
# --keep-unsampled, while a shell runs 200 short processes (a copy of true named precmark)
# and `forkexec 300 demo 300` (two processes that get samples, begun and ended during the
# recording).
#   all kept      with --keep-unsampled, the segments hold a precmark COMM for each of the
#                 200 (when the kernel lost no record)
#   left out      by default, fewer precmark processes are in the segments, and each one
#                 there is one the filter must keep: it has a sample, or its FORK and EXIT
#                 lie in different drain rounds (a FINISHED_ROUND between them), or one of
#                 them is not in the segment, or its EXIT is in the segment's last round
#                 (written whole at the end)
#   sampled       by default, forkexec and demo keep their COMM and the MMAP2 of their
#                 binary, and preport names parent_work and hot_a, as with --keep-unsampled
#   readable      every segment of both reads with preport -D and perf report
# Counts come from preport -D; nothing here depends on timing or load.  Skips when perf is
# missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record demo forkexec
need_file /bin/true "/bin/true"
# named for this run only: the daemons record the whole machine, where another run of this
# test may make its own (the kernel keeps 15 bytes of a command: 'pm' and the pid fit)
MARK=pm$$
cp /bin/true "$workdir/$MARK" || fail "cannot copy /bin/true"
N=200

K=$workdir/keep
D=$workdir/drop
# A FINISHED_ROUND comes after a drain pass only once 64 KiB were written since the last
# one, or at a flush: the checks below take the records between two FINISHED_ROUNDs for one
# drain pass, which holds when every pass flushes (a pass every millisecond at most, as the
# rings wake the daemon only when half full).  With the default second, a process whose FORK
# and EXIT fell in two passes of one group was kept rightly and counted wrong (once in CI).
start_daemon keep "$K" -a -e cpu-clock -F 99 -g --keep-unsampled --flush-interval 1 || finish
kpid=$dpid
klog=$dlog
start_daemon drop "$D" -a -e cpu-clock -F 99 -g --flush-interval 1 || finish

i=0
while [ "$i" -lt "$N" ]; do
	"$workdir/$MARK"
	i=$((i + 1))
done
PATH=$WL:$PATH "$WL/forkexec" 300 demo 300 >/dev/null 2>&1
check $? "forkexec 300 demo 300 ran"
# a few more drain rounds, so that most of the above is not in a segment's last round
sleep 3

stop_daemon drop "$D"
dpid=$kpid
dlog=$klog
stop_daemon keep "$K"

# every closed segment read by preport -D and perf report; DIR.dump: their preport -D
# outputs one after the other, each followed by a line "END-OF-SEGMENT"
for dir in "$K" "$D"; do
	: >"$dir.dump"
	for f in $(closed_segments "$dir"); do
		segment_reads "$(basename "$dir")/$f" "$dir/$f"
		{ cat "$dir/$f.dump"; echo END-OF-SEGMENT; } >>"$dir.dump"
	done
done

# what a dump says of the processes named NAME by an exec COMM: one line per process,
# "PID SAMPLES FORK_ROUND EXIT_ROUND LAST_ROUND MMAP2S" (rounds: FINISHED_ROUNDs before the
# record within its segment, -1 when absent; LAST_ROUND: that of the segment's last
# FINISHED_ROUND, the round the end writes whole)
procs() {
	awk -v name="$1" '
		function field(k,   j) {
			for (j = 1; j < NF; j++)
				if ($j == k)
					return $(j + 1)
			return ""
		}
		function flush_seg(   p) {
			for (p in named)
				print p, samples[p] + 0, (p in fk) ? fk[p] : -1,
				      (p in ex) ? ex[p] : -1, round - 1, mmaps[p] + 0
			delete named; delete samples; delete fk; delete ex; delete mmaps
			round = 0
		}
		BEGIN { round = 0 } # a number from the start: a FORK before the first round prints 0
		/^END-OF-SEGMENT$/ { flush_seg(); next }
		/: FINISHED_ROUND/ { round++; next }
		/: COMM / && field("comm") == name && / exec / { named[field("pid")] = 1 }
		/: SAMPLE / { samples[field("pid")]++ }
		/: FORK / { fk[field("pid")] = round }
		/: EXIT / && field("pid") == field("tid") { ex[field("pid")] = round }
		/: MMAP2 / && index($0, "/" name " ") { mmaps[field("pid")]++ }
	' "$2"
}

procs "$MARK" "$K.dump" >"$workdir/keep.marks"
procs "$MARK" "$D.dump" >"$workdir/drop.marks"
nk=$(grep -c . "$workdir/keep.marks")
nd=$(grep -c . "$workdir/drop.marks")
lost=$(grep -c ': LOST' "$K.dump")
if [ "$lost" -gt 0 ]; then
	say "the kernel lost records ($lost LOST records): not counting precmark's COMMs"
elif [ "$nk" -eq "$N" ]; then
	ok "with --keep-unsampled all $N precmark processes are in the segments"
else
	bad "with --keep-unsampled $nk precmark processes are in the segments, want $N"
fi
[ "$nd" -lt "$N" ]
check $? "by default $nd of the $N precmark processes are in the segments (fewer)"
# PID SAMPLES FORK_ROUND EXIT_ROUND LAST_ROUND MMAP2S: which must the filter keep?
awk '$2 == 0 && $3 >= 0 && $4 >= 0 && $3 == $4 && $4 != $5' "$workdir/drop.marks" \
	>"$workdir/drop.wrong"
if [ -s "$workdir/drop.wrong" ]; then
	bad "by default these precmark processes (pid samples fork-round exit-round last-round" \
		"mmap2s) began and ended in one round with no sample, yet are there:" \
		"$(head -n 5 "$workdir/drop.wrong" | join_lines)"
else
	why=$(awk '$2 > 0 { s++ } $2 == 0 && ($3 < 0 || $4 < 0 || $3 != $4) { r++ }
		$2 == 0 && $3 >= 0 && $3 == $4 && $4 == $5 { l++ }
		END { printf "%d with samples, %d across rounds, %d in a last round", s, r, l }' \
		"$workdir/drop.marks")
	ok "by default each precmark process there is one the filter keeps ($why)"
fi

for name in forkexec demo; do
	procs "$name" "$D.dump" >"$workdir/$name.procs"
	if awk '$2 > 0 && $6 > 0 { f = 1 } END { exit !f }' "$workdir/$name.procs"; then
		ok "by default $name keeps its COMM and the MMAP2 of its binary beside its" \
			"samples ($(head -n 1 "$workdir/$name.procs"))"
	else
		bad "by default no $name process with samples has its COMM and MMAP2 (pid" \
			"samples fork-round exit-round last-round mmap2s:" \
			"$(join_lines <"$workdir/$name.procs"))"
	fi
done
for dir in "$K" "$D"; do
	"$PREPORT" -i "$dir" --stdio --no-children >"$dir.report" 2>"$dir.report.err"
	check_status "preport -i $(basename "$dir")" $? 0 "$dir.report.err"
	for sym in parent_work hot_a; do
		if awk -v s="$sym" '$1 ~ /%$/ && $NF == s { f = 1 } END { exit !f }' "$dir.report"
		then
			ok "preport -i $(basename "$dir") names $sym"
		else
			bad "preport -i $(basename "$dir") does not name $sym; its top lines:" \
				"$(grep '%' "$dir.report" | head -n 3 | tr -s ' ' | join_lines)"
		fi
	done
done
finish
