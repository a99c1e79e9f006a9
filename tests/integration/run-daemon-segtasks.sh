#!/bin/sh
# SPDX-License-Identifier: MIT
# Each daemon segment names the processes of every sample in it, also of a process that ended
# during the switch, whose last samples were still in the rings: they land in the next
# segment, which must hold its COMM and the MMAP2 of its binary although the process is gone.
# A daemon records (-a -e cpu-clock -F 4000 -g, switches only on request); N times a marker
# (the segmark workload, copied under a name of this run) spins on the CPU until the live
# segment is renamed, which is after the switch's last drain of it, and exits at once; the
# test asks for the switch with SIGUSR2 and `precord ctl rotate` in turn.
#   named        in every segment, every sample of a marker process is its own: preport
#                --sort pid,dso shows the marker's pid with its name and its binary (or the
#                kernel), never a bare pid or [unknown]
#   across       how many markers had samples in the segment after the one they began in
#                is said (it depends on the timing; nothing is asserted about it)
#   readable     every segment reads with preport -D and perf report
# Nothing here depends on timing or load: the markers end on the daemon's own rename.  Skips
# when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record segmark
# named for this run only: the daemon records the whole machine, where another run of this
# test may make its own (the kernel keeps 15 bytes of a command)
MARK=sm$$
cp "$WL/segmark" "$workdir/$MARK" || fail "cannot copy segmark"
N=16

D=$workdir/dir
start_daemon segtasks "$D" -a -e cpu-clock -F 4000 -g --switch-output || finish

: >"$workdir/markers"
i=0
while [ "$i" -lt "$N" ]; do
	live=$(live_segments "$D")
	seq=$(seq_of "$live")
	[ -n "$live" ] || { bad "no live segment in $D: $(lines "$dlog" 4)"; break; }
	"$workdir/$MARK" "$D/$live" &
	mpid=$!
	# its exec is done (its COMM is on its way) before the switch is asked for
	j=0
	while [ "$(cat "/proc/$mpid/comm" 2>/dev/null)" != "$MARK" ] && [ "$j" -lt 300 ]; do
		sleep 0.01
		j=$((j + 1))
	done
	if [ $((i % 2)) -eq 0 ]; then
		kill -USR2 "$dpid"
	else
		"$PRECORD" ctl --dir "$D" rotate >/dev/null 2>"$workdir/rotate.err" ||
			bad "precord ctl rotate failed: $(lines "$workdir/rotate.err")"
	fi
	# (bounded: a daemon that never closes the segment must not leave the marker spinning)
	j=0
	while kill -0 "$mpid" 2>/dev/null && [ "$j" -lt 600 ]; do
		sleep 0.05
		j=$((j + 1))
	done
	kill "$mpid" 2>/dev/null && bad "segment $seq was not closed within 30 s: $(lines "$dlog" 4)"
	wait "$mpid"
	check_status "marker $mpid ran until segment $seq was closed" $? 0 /dev/null
	echo "$mpid $seq" >>"$workdir/markers"
	wait_seq "$D" $((seq + 1)) || { bad "no segment after $seq: $(lines "$dlog" 4)"; break; }
	i=$((i + 1))
done
stop_daemon segtasks "$D"

across=0
for f in $(closed_segments "$D"); do
	segment_reads "$f" "$D/$f"
	"$PREPORT" -i "$D/$f" --stdio --no-children -g none -n --sort pid,dso \
		>"$D/$f.pids" 2>"$D/$f.pids.err"
	check_status "preport -i $f --sort pid,dso" $? 0 "$D/$f.pids.err"
	# rows of marker processes: "PID:COMM DSO" for each marker pid with samples here
	s=$(seq_of "$f")
	awk -v m="$workdir/markers" '
		BEGIN { while ((getline l < m) > 0) { split(l, a, " "); pids[a[1]] = 1 } }
		/^#/ || !/%/ { next }
		{ split($3, p, ":"); if (p[1] in pids) print p[1], $3, $4 }
	' "$D/$f.pids" >"$D/$f.marks"
	awk -v name="$MARK" '{ split($2, p, ":"); if (p[2] != name || $3 == "[unknown]") print }' \
		"$D/$f.marks" >"$D/$f.wrong"
	if [ -s "$D/$f.wrong" ]; then
		bad "segment $s: samples of marker processes without their name or binary" \
			"(pid pid:comm dso): $(head -n 4 "$D/$f.wrong" | join_lines)"
	elif [ -s "$D/$f.marks" ]; then
		ok "segment $s: every sample of a marker names it: $(cut -d' ' -f2,3 "$D/$f.marks" |
			sort -u | join_lines)"
	fi
	# markers begun in an earlier segment with samples in this one
	n=$(awk -v s="$s" -v m="$workdir/markers" '
		BEGIN { while ((getline l < m) > 0) { split(l, a, " "); seg[a[1]] = a[2] } }
		seg[$1] != "" && seg[$1] < s { c[$1] = 1 }
		END { n = 0; for (p in c) n++; print n }' "$D/$f.marks")
	across=$((across + n))
done
say "$across of $N markers had samples in the segment after the one they began in"
finish
