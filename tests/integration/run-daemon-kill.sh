#!/bin/sh
# SPDX-License-Identifier: MIT
# precord daemon after SIGKILL (issue 17, "Crash safety"): four runs on one DIR, each killed
# with SIGKILL at a random moment (200 ms switches in two of them, so that kills land in
# and around switches, and with --switch-max-files 3 each switch also deletes a segment;
# two right after `precord ctl rotate`).  After each kill:
#   - every file in DIR, closed or the leftover .partial, is read by preport -D (exit 0,
#     nothing on stderr but, for a leftover, a warning that it was cut short: no end marker,
#     and a kill can end a write() part way) and by perf report (which says "no samples" for a
#     leftover killed before its first flush: preport must then count no samples either)
#   - the next start closes the leftover (renamed without .partial, never overwritten, its
#     bytes unchanged), or removes it if the kill came before its first write (it is empty),
#     and numbers its segments after every earlier one
# A last run, with --switch-max-files 1, counts the last leftover against that limit at its
# start, is stopped cleanly and leaves no .partial.
# DIR removed (rm -rf) under a running daemon (review 22 #11: it sampled on for ever, logging
# EBUSY): the daemon says DIR was removed and exits 1 (waited for at most 30 s).
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record # -a samples idle CPUs too: no workload is needed for data
D=$workdir/dir
R=$workdir/read
mkdir "$R"
seed=$$
say "random seed $seed (moments of the kills)"

# file_reads LABEL FILE: preport -D and perf report read FILE; a file without samples may
# get perf's "no samples".  A segment left live by a kill (named in $leftovers) has no end
# marker and may end in a record cut by the kill: preport reads it with a warning.
leftovers=
file_reads() {
	_f=${2##*/}
	case " $leftovers " in
	*" ${_f%.partial} "*) cut_reads "$1" "$2" ;;
	*) preport_reads "$1" "$2" ;;
	esac
	if [ "$(grep -c . "$2.samples")" -gt 0 ]; then
		perf_report "$1" "$2" sym "$2.report"
		return
	fi
	"$PERF" report -i "$2" --stdio --no-children --sort sym -g none >"$2.report" 2>"$2.report.err"
	rc=$?
	msg=$(grep -v -e 'has no samples' -e '^Error:$' "$2.report.err" |
		grep -E -i "couldn't|failed|error|invalid" | head -n 2 | join_lines)
	if [ "$rc" -eq 0 ] && [ -z "$msg" ]; then
		ok "$1: perf report reads it (no samples, as preport says)"
	else
		bad "$1: perf report exits $rc: $msg"
	fi
}

round=0
leftover=
for mode in 200ms 1500ms rotate200ms rotate1500ms; do
	round=$((round + 1))
	sw=${mode#rotate}
	before=$(max_seq "$D")
	start_daemon "kill$round" "$D" -a -e cpu-clock -F 999 -g --switch-output="$sw" \
		--switch-max-files 3 || break
	if [ -n "$leftover" ] && [ ! -s "$workdir/leftover.copy" ]; then
		# killed between the segment's creation and its first write: nothing to keep
		if [ ! -e "$D/$leftover" ] && [ ! -e "$D/${leftover%.partial}" ] &&
			grep -q "removed $leftover, left empty" "$dlog"; then
			ok "round $round: the empty leftover $leftover is removed, and the log says so"
		else
			bad "round $round: the empty leftover $leftover is not removed: $(ls "$D" | join_lines) $(lines "$dlog" 3)"
		fi
	elif [ -n "$leftover" ]; then
		closed=${leftover%.partial}
		if [ ! -e "$D/$leftover" ] && [ -f "$D/$closed" ] &&
			cmp -s "$workdir/leftover.copy" "$D/$closed"; then
			ok "round $round: the leftover $leftover is closed as $closed, its bytes unchanged"
		else
			bad "round $round: the leftover $leftover is not closed as $closed: $(ls "$D" | join_lines)"
		fi
	fi
	first=$(status_of "$D" "live segment") # a listing could fall between two segments
	if [ "$(seq_of "$first")" -gt "$before" ]; then
		ok "round $round: the new live segment $first is numbered after $before"
	else
		bad "round $round: the new live segment '$first' is not numbered after $before"
	fi
	# a moment between 0.2 and 1.6 s, from the seed
	t=$(awk -v s=$((seed + round)) 'BEGIN { srand(s); printf "%.2f\n", 0.2 + 1.4 * rand() }')
	sleep "$t"
	case $mode in
	rotate*) "$PRECORD" ctl --dir "$D" rotate >/dev/null 2>&1 ;;
	esac
	kill -9 "$dpid"
	wait "$dpid" 2>/dev/null
	forget_daemon "$dpid"
	say "round $round: SIGKILL after $t s ($mode)"
	n=$(live_segments "$D" | grep -c .)
	if [ "$n" -le 1 ]; then
		ok "round $round: at most one .partial is left ($n)"
	else
		bad "round $round: $n .partial files are left: $(live_segments "$D" | join_lines)"
	fi
	leftover=$(live_segments "$D" | tail -n 1)
	leftovers="$leftovers ${leftover%.partial}"
	[ -n "$leftover" ] && cp "$D/$leftover" "$workdir/leftover.copy"
	for f in $(closed_segments "$D") $(live_segments "$D"); do
		[ -e "$R/$f.dump" ] && continue # read in an earlier round
		if [ "$f" = "$leftover" ] && [ ! -s "$D/$f" ]; then
			say "round $round: the kill came before $f's first write: it is empty"
			continue
		fi
		cp "$D/$f" "$R/$f" # read a copy: the dumps stay out of DIR
		file_reads "round $round: $f" "$R/$f"
	done
done

before=$(max_seq "$D")
if start_daemon last "$D" -a -e cpu-clock -F 999 -g --switch-output=500ms --switch-max-files 1
then
	n=$(closed_segments "$D" | grep -c .)
	if [ -z "$leftover" ]; then
		say "the last kill left no .partial"
	elif grep -q -e "closed ${leftover%.partial}, .*earlier run" \
		-e "removed $leftover, left empty" "$dlog" && [ "$n" -le 1 ]; then
		ok "the leftover is closed and counts against --switch-max-files 1 ($n closed)"
	else
		bad "with the leftover $leftover and --switch-max-files 1, $n closed segments: $(lines "$dlog" 3)"
	fi
	sleep 1
	stop_daemon last "$D"
	n=$(live_segments "$D" | grep -c .)
	[ "$n" -eq 0 ]
	check $? "after a clean stop no .partial is left ($n)"
	for f in $(closed_segments "$D"); do
		[ "$(seq_of "$f")" -gt "$before" ] && cp "$D/$f" "$R/$f" && file_reads "last: $f" "$R/$f"
	done
fi

say "--- DIR removed under a running daemon"
G=$workdir/gone
if start_daemon gone "$G" -a -e cpu-clock -F 99 --switch-output=1h; then
	rm -rf "$G"
	i=0
	while kill -0 "$dpid" 2>/dev/null && [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$dpid" 2>/dev/null; then
		bad "the daemon still runs 30 s after its DIR was removed: $(lines "$dlog" 4)"
	else
		wait "$dpid"
		rc=$?
		forget_daemon "$dpid"
		[ "$rc" -eq 1 ] && grep -q "$G was removed" "$dlog"
		check $? "the daemon says DIR was removed and exits $rc (want 1): $(lines "$dlog" 4)"
	fi
fi

finish
