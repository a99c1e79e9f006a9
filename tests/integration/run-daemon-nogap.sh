#!/bin/sh
# SPDX-License-Identifier: MIT
# No gap at a segment switch (issue 17): a constant CPU-bound workload (demo) recorded by
# `precord daemon -a -e cpu-clock -F 999 --switch-output=1s --switch-events` for 15 s
# (the context switches tell when the workload ran).
#   counts      the samples of all segments add up to the daemon's own count (its last log
#               line, "stopped: N samples written in M segments", which includes the final
#               drain; `ctl status` taken just before the stop is at most that), and M is
#               the number of segments in DIR
#   no doubles  no (time, tid) sample is in two segments
#   no gap      the workload's samples, taken from every segment and sorted by time, with
#               the kernel's context-switch records of it: the time the workload spent on a
#               CPU between two consecutive samples that lie in different segments must be
#               at most 5 sample periods; one boundary may exceed that if the longest such
#               time inside a segment is as long (a busy host can stop the whole VM, which
#               no record shows; a gap made by the switch shows at every boundary)
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record demo
start_bg "$WL/demo" 60000
wl=$bg_pid
D=$workdir/dir
start_daemon nogap "$D" -a -e cpu-clock -F 999 --switch-output=1s --switch-events || finish
sleep 15
before=$(status_of "$D" "samples written")
stop_daemon nogap "$D"
stop_bg "$wl"

segs=$(closed_segments "$D")
nseg=$(echo "$segs" | grep -c .)
total=0
i=0
: >"$workdir/events"
: >"$workdir/pairs"
for f in $segs; do
	i=$((i + 1))
	"$PREPORT" -D -i "$D/$f" >"$workdir/seg.dump" 2>"$workdir/seg.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ -s "$workdir/seg.err" ]; then
		bad "$f: preport -D exits $rc: $(lines "$workdir/seg.err")"
	fi
	grep -F ': SAMPLE ' "$workdir/seg.dump" >"$workdir/seg.samples"
	total=$((total + $(grep -c . "$workdir/seg.samples")))
	# (time, tid) of every sample, each pair once per segment
	awk '{ t = ""; d = ""
	       for (k = 1; k < NF; k++) { if ($k == "time") t = $(k + 1); if ($k == "tid") d = $(k + 1) }
	       print t, d }' "$workdir/seg.samples" | sort -u >>"$workdir/pairs"
	# the workload's samples (S), the moments it was switched out (O: another task switched
	# in, the workload the previous one) and in (I: another task switched out for it)
	awk -v tid="$wl" -v seg="$i" '
		function field(k,   j) { for (j = 1; j < NF; j++) if ($j == k) return $(j + 1); return "" }
		/: SAMPLE / && field("tid") == tid { print field("time"), "S", seg, field("period") }
		/: SWITCH_CPU_WIDE in / && field("tid") == tid { print field("time"), "O", seg, 0 }
		/: SWITCH_CPU_WIDE out / && field("tid") == tid { print field("time"), "I", seg, 0 }
	' "$workdir/seg.dump" >>"$workdir/events"
done
say "$nseg segments, $total samples; the workload (tid $wl) has $(grep -c ' S ' "$workdir/events")" \
	"samples and was switched out $(grep -c ' O ' "$workdir/events") times"

# shellcheck disable=SC2046 # two words, on purpose
set -- $(log_stopped "$dlog")
if [ "${1:-x}" = "$total" ] && [ "${2:-x}" = "$nseg" ]; then
	ok "the samples of all $nseg segments ($total) are the daemon's count ($1 in $2 segments)"
else
	bad "the segments hold $total samples in $nseg files; the daemon's log says: $(tail -n 1 "$dlog")"
fi
if [ -n "$before" ] && [ "$before" -le "$total" ] && [ "$before" -gt 0 ]; then
	ok "ctl status before the stop counted $before samples written, at most the final $total"
else
	bad "ctl status before the stop counted '$before' samples written; the segments hold $total"
fi
[ "$nseg" -ge 3 ]
check $? "1 s switches over 15 s gave $nseg segments (want >= 3)"

dups=$(sort "$workdir/pairs" | uniq -d | head -n 3 | join_lines)
[ -z "$dups" ]
check $? "no (time, tid) sample is in two segments${dups:+; twice: $dups}"

# on: the workload's time on a CPU since its last sample (a sample means it runs)
sort -n -k1,1 "$workdir/events" | awk '
	$2 != "S" { if (run) on += $1 - last; last = $1; run = ($2 == "I"); next }
	{
		if (run) on += $1 - last
		if (prev != "") {
			if (pseg != $3) {
				nb++
				if (on > 5 * $4) nbig++
				if (on > maxb) { maxb = on; atb = prev }
			}
			else { ni++; if (on > maxi) maxi = on }
		}
		prev = $1; pseg = $3; period = $4; last = $1; run = 1; on = 0
	}
	END { printf "%d %d %d %d %d %d %s\n", period, nb, nbig, maxb, ni, maxi, atb }' >"$workdir/gaps"
read -r period nb nbig maxb ni maxi atb <"$workdir/gaps"
say "sample period $period ns; $nb pairs of samples across a boundary, the longest time on a" \
	"CPU between them $maxb ns; $ni pairs inside segments, the longest $maxi ns"
if [ "$nb" -lt $((nseg - 1)) ]; then
	bad "$nb pairs of consecutive workload samples across the $((nseg - 1)) boundaries"
elif [ "$nbig" -eq 0 ] || { [ "$nbig" -eq 1 ] && [ "$maxb" -le "$maxi" ]; }; then
	ok "no gap at the $nb boundaries: at most $maxb ns on a CPU between two samples, $nbig over" \
		"(5 periods: $((5 * period)) ns; inside segments: $maxi ns)"
else
	bad "at $nbig boundaries the workload ran over 5 periods without a sample, the longest" \
		"$maxb ns after the one at $atb" \
		"(5 periods: $((5 * period)) ns, inside segments at most $maxi ns);" \
		"log: $(lines "$dlog" 4)"
fi

finish
