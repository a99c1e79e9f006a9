#!/bin/sh
# SPDX-License-Identifier: MIT
# precord daemon's retention, over the whole directory and across restarts (issue 17):
#   --switch-max-files 2   two runs on one DIR (perf counts only the files of its current
#                          run; ours counts all): at most 2 closed segments and the live one
#                          at any time, and after the second run none of the first's left
#   --max-disk 1M          segments switch at 256K (a quarter of it, said at start, shown
#                          by ctl status), stay under 1M together at the stop, at least one
#                          left; a cap below 1M is refused; a closed segment over the cap is
#                          kept while it is the newest, said once (log and ctl status)
#   --min-free 99%         cannot be met: said once, in the log and ctl status, and
#                          nothing is written (the daemon runs on; a rotate changes
#                          nothing); --min-free while segments grow: run-daemon-minfree.sh
#   --max-age 2s           a run started more than 2 s after the last one ended deletes
#                          every earlier segment at its start, and keeps its own live one
#   --max-age=5            refused with a usage error that asks for a unit
# The live segment is never deleted: the one ctl status names exists.
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record demo # the --max-disk part samples a demo; -a samples whatever else runs
REC="-a -e cpu-clock -F 999 -g --switch-events" # context switches: data enough to fill

# live_kept LABEL DIR: the live segment that ctl status names is in DIR.  With 200 ms
# segments and --switch-max-files 2, a segment may be closed and deleted between the status
# and the look on a loaded machine: a live segment deleted is missing at every try, so up to
# five tries tell that from a slow look.
live_kept() {
	for _try in 1 2 3 4 5; do
		_l=$(status_of "$2" "live segment")
		# (closed since, by a switch, it lost its .partial)
		if [ -n "$_l" ] && { [ -f "$2/$_l" ] || [ -f "$2/${_l%.partial}" ]; }; then
			ok "$1: the live segment $_l is there"
			return
		fi
	done
	bad "$1: the live segment '$_l' named by ctl status is not in DIR (5 tries)"
}

# bytes_of DIR: the sizes of the segments in DIR, added up.
bytes_of() {
	find "$1" -maxdepth 1 -type f -name 'precord-*' -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }'
}

say "--- --max-age without a unit"
"$PRECORD" daemon --dir "$workdir/nounit" --max-age=5 >"$workdir/nounit.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q 'give a unit: 5d, 5h, 5m' "$workdir/nounit.out" && [ ! -e "$workdir/nounit" ]
check $? "--max-age=5 is refused (rc $rc), asking for a unit: $(lines "$workdir/nounit.out" 2)"

say "--- --switch-max-files 2, two runs"
D=$workdir/files
for run in 1 2; do
	s=$(max_seq "$D")
	# shellcheck disable=SC2086 # REC is words
	start_daemon "files$run" "$D" $REC --switch-output=200ms --switch-max-files 2 || break
	wait_seq "$D" $((s + 5)) || bad "run $run: no segment $((s + 5)) after 30 s: $(lines "$dlog" 3)"
	# a switch renames the live segment before retention runs: count closed and live
	n=$(($(closed_segments "$D" | grep -c .) + $(live_segments "$D" | grep -c .)))
	[ "$n" -le 3 ]
	check $? "run $run: $n segments while recording (want <= 2 closed and the live one)"
	live_kept "run $run" "$D"
	stop_daemon "files$run" "$D"
	n=$(closed_segments "$D" | grep -c .)
	[ "$n" -le 2 ] && [ "$(live_segments "$D" | grep -c .)" -eq 0 ]
	check $? "run $run: $n closed segments after the stop (want <= 2), no .partial"
done
old=$(closed_segments "$D" | while read -r f; do [ "$(seq_of "$f")" -le "$s" ] && echo "$f"; done)
[ -z "$old" ]
check $? "after run 2, none of run 1's segments (numbers <= $s) is left${old:+: $old}"

say "--- --max-disk below 1M"
for v in 5 50K; do
	"$PRECORD" daemon --dir "$workdir/tiny" --max-disk="$v" >"$workdir/tiny.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(grep -c . "$workdir/tiny.out")" -eq 1 ] &&
		grep -q 'at least 1M' "$workdir/tiny.out" && [ ! -e "$workdir/tiny" ]
	check $? "--max-disk=$v is refused (rc $rc) in one line: $(lines "$workdir/tiny.out" 2)"
done

say "--- --max-disk 1M: segments switch at a quarter of it"
D=$workdir/bytes
start_bg "$WL/demo" 60000 # data enough for 1.5 MiB of segments, however idle the machine
busy=$bg_pid
# shellcheck disable=SC2086
if start_daemon bytes "$D" $REC --flush-interval 100 --switch-output=1h --max-disk=1M; then
	grep -q 'segments also switch at 256K, a quarter of --max-disk 1M' "$dlog"
	check $? "the start says segments switch at 256K: $(lines "$dlog" 1)"
	"$PRECORD" ctl --dir "$D" status >"$workdir/bytes.status" 2>&1
	grep -q '^switch: after 1h or at 256K (a quarter of --max-disk)$' "$workdir/bytes.status" &&
		grep -q '^retention: --max-disk 1M$' "$workdir/bytes.status"
	check $? "ctl status shows the switch and the retention:\
 $(grep -e '^switch' -e '^retention' "$workdir/bytes.status" | join_lines)"
	wait_seq "$D" 7 || bad "--max-disk: no segment 7 after 30 s: $(lines "$dlog" 3)"
	live_kept "--max-disk" "$D"
	stop_daemon bytes "$D"
	b=$(bytes_of "$D")
	n=$(closed_segments "$D" | grep -c .)
	[ "$b" -le 1048576 ] && [ "$n" -ge 1 ]
	check $? "--max-disk 1M: $n segments of $b bytes in all after the stop (want <= 1M, >= 1)"
	grep -q 'for --max-disk' "$dlog"
	check $? "--max-disk: the log names segments deleted for it"
	! grep -q 'cannot be met' "$dlog"
	check $? "--max-disk: no warning while it is met"
fi
stop_bg "$busy"

say "--- --max-disk 1M with a closed segment over it"
D=$workdir/over
mkdir -m 700 "$D"
# an earlier run's last segment, bigger than the cap (retention reads only its size)
big=precord-20200101T000000.000Z-000001.data
head -c $((2 << 20)) /dev/zero >"$D/$big"
chmod 600 "$D/$big"
# shellcheck disable=SC2086
if start_daemon over "$D" $REC --switch-output=1h --max-disk=1M; then
	[ -f "$D/$big" ]
	check $? "the earlier run's last segment is kept at the start, though over --max-disk"
	grep -q -e '--max-disk 1M cannot be met' "$dlog"
	check $? "the log says --max-disk cannot be met: $(grep 'cannot be met' "$dlog")"
	e=$(status_of "$D" "last error")
	case $e in *"--max-disk 1M cannot be met"*) true ;; *) false ;; esac
	check $? "ctl status: last error: $e"
	stop_daemon over "$D"
	n=$(closed_segments "$D" | grep -c .)
	[ ! -f "$D/$big" ] && [ "$n" -eq 1 ]
	check $? "at the stop it goes for the run's own segment, which stays ($n left)"
	n=$(grep -c 'cannot be met' "$dlog")
	[ "$n" -eq 1 ]
	check $? "said once ($n times)"
fi

say "--- --min-free 99%: it cannot be met"
D=$workdir/free99
# shellcheck disable=SC2086
if start_daemon free99 "$D" $REC --switch-output=1h --min-free=99%; then
	"$PRECORD" ctl --dir "$D" rotate >/dev/null 2>&1
	"$PRECORD" ctl --dir "$D" rotate >/dev/null 2>&1
	e=$(status_of "$D" "last error")
	case $e in *"--min-free cannot be met"*) true ;; *) false ;; esac
	check $? "ctl status: last error: $e"
	l=$(status_of "$D" "live segment")
	n=$(($(closed_segments "$D" | grep -c .) + $(live_segments "$D" | grep -c .)))
	[ "$l" = "none (under --min-free)" ] && [ "$n" -eq 0 ]
	check $? "nothing is written: live segment: $l; $n segments"
	stop_daemon free99 "$D"
	n=$(grep -c -e '--min-free cannot be met' "$dlog")
	[ "$n" -eq 1 ]
	check $? "the log says once ($n times) that --min-free cannot be met:\
 $(grep 'cannot be met' "$dlog" | head -n 1)"
fi

say "--- --max-age 2s across a restart"
D=$workdir/age
# shellcheck disable=SC2086
if start_daemon age "$D" $REC --switch-output=200ms --max-age=2s; then
	wait_seq "$D" 3 || bad "--max-age: no segment 3 after 30 s: $(lines "$dlog" 3)"
	stop_daemon age "$D"
	s=$(max_seq "$D")
	n=$(closed_segments "$D" | grep -c .)
	sleep 3
	# shellcheck disable=SC2086
	if start_daemon age2 "$D" $REC --switch-output=1h --max-age=2s; then
		left=$(closed_segments "$D" | grep -c .)
		[ "$left" -eq 0 ]
		check $? "--max-age 2s: $n segments that ended 3 s before the start are deleted ($left left)"
		live_kept "--max-age" "$D"
		grep -q 'for --max-age' "$dlog"
		check $? "--max-age: the log names segments deleted for it"
		stop_daemon age2 "$D"
	fi
fi

finish
