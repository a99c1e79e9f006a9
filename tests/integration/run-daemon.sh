#!/bin/sh
# SPDX-License-Identifier: MIT
# precord daemon switches segments and says what it does (issue 17, "Tests"):
#   by time      --switch-output=1s: a second segment begins without any request
#   by request   with a bare --switch-output (signal; it does not take the -e after it),
#                `precord ctl rotate` and SIGUSR2 each begin a new segment
#   by size      --switch-output=64K: segments end once they hold 64 KiB
#   SIGTERM      stops the daemon cleanly (status 0, its last log line, no .partial)
#   segments     every closed segment is read on its own by preport -D and by perf report,
#                which names the workload's hot_a; the stop leaves no .partial; the last log
#                line's sample count equals the samples in the segments; DIR is 0700 and
#                segments are 0600; a segment's '# cmdline :' says 'precord daemon --dir'
#   ctl status   every field there (also with --dir after the command); samples written > 0
#                after a while, segments equal the files in DIR, the live segment exists as
#                a .partial file
#   --background the parent exits 0 and names the daemon's pid on stdout (also when stdout
#                is a file); the daemon logs into DIR/precord.log (truncated as by
#                copytruncate, it goes on at its start) and ends on ctl stop;
#                after a SIGKILL the restart's recovery line reaches the log too, whose
#                every line starts with an ISO 8601 time; a start that fails after the fork
#                (a bad -C, a DIR too long for the socket) exits 1 with the reason on
#                stderr, one line, also in the log
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record demo
start_bg "$WL/demo" 120000

say "--- switches by time"
D=$workdir/dir
if start_daemon time "$D" -a -e cpu-clock -F 999 -g --switch-output=1s; then
	m=$(stat -c %a "$D")
	if [ "$m" = 700 ]; then ok "DIR is created with mode 700"; else bad "DIR has mode $m"; fi
	wait_seq "$D" 2
	check $? "by time: a second segment begins after 1 s, unasked (log: $(lines "$dlog" 3))"

	# ctl status, read while recording
	"$PRECORD" ctl --dir "$D" status >"$workdir/status.out" 2>"$workdir/status.err"
	check_status "ctl status" $? 0 "$workdir/status.err"
	for k in pid uptime target directory segments "bytes on disk" "samples written" \
		"samples not written" "lost records" "lost samples" "throttle events" \
		"daemon cpu" "daemon rss" "live segment" "last error"; do
		grep -q "^$k: ." "$workdir/status.out" || bad "ctl status has no '$k:' line"
	done
	ok "ctl status: $(grep -c . "$workdir/status.out") lines: $(join_lines <"$workdir/status.out")"
	st() { awk -v k="$1" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3) }' \
		"$workdir/status.out"; }
	[ "$(st pid)" = "$dpid" ]
	check $? "ctl status: pid is the daemon's ($dpid)"
	n=$(st "samples written")
	[ "$n" -gt 0 ] 2>/dev/null
	check $? "ctl status: samples written ($n) > 0"
	live=$(st "live segment")
	# (or it was, and a switch since closed it)
	{ [ -f "$D/$live" ] || [ -f "$D/${live%.partial}" ]; } &&
		case $live in *.partial) true ;; *) false ;; esac
	check $? "ctl status: the live segment $live is a .partial file in DIR"
	# the files are counted right after the status: a switch in between shows as one more
	nfiles=$(($(closed_segments "$D" | grep -c .) + $(live_segments "$D" | grep -c .)))
	n=$(st segments)
	[ "$n" -eq "$nfiles" ] || [ "$n" -eq $((nfiles - 1)) ]
	check $? "ctl status: segments ($n) equals the segment files in DIR ($nfiles)"
	grep -q '^target: all CPUs, cpu-clock at 999 Hz' "$workdir/status.out"
	check $? "ctl status: target says all CPUs, cpu-clock at 999 Hz"
	grep -q '^last error: none$' "$workdir/status.out"
	check $? "ctl status: last error: none"
	# --dir after the command, as users type it
	"$PRECORD" ctl status --dir "$D" >"$workdir/status2.out" 2>"$workdir/status2.err"
	check_status "ctl status --dir DIR" $? 0 "$workdir/status2.err"
	grep -q "^directory: $D\$" "$workdir/status2.out"
	check $? "ctl status --dir DIR asks the daemon on DIR: $(lines "$workdir/status2.out" 4)"

	wait_seq "$D" 3
	check $? "by time: a third segment begins"
	stop_daemon "time" "$D"

	n=$(live_segments "$D" | grep -c .)
	[ "$n" -eq 0 ]
	check $? "after the stop no .partial segment is left ($n)"
	m=$(find "$D" -maxdepth 1 -type f -name 'precord-*' ! -perm 600 | join_lines)
	[ -z "$m" ]
	check $? "every segment has mode 600${m:+; not: $m}"
	f=$(closed_segments "$D" | head -n 1)
	"$PREPORT" --header-only -i "$D/$f" >"$workdir/header.out" 2>&1
	grep -q "^# cmdline : .*precord daemon --dir $D -a " "$workdir/header.out"
	check $? "the header's cmdline is the daemon's: $(grep '^# cmdline' "$workdir/header.out")"
	total=0
	last=$(closed_segments "$D" | tail -n 1)
	for f in $(closed_segments "$D"); do
		# the last segment ends with the stop, at any moment: it must read; the others
		# hold a second of demo's samples each
		if [ "$f" = "$last" ]; then
			segment_reads "$f" "$D/$f"
		else
			segment_reads "$f" "$D/$f" hot_a
		fi
		total=$((total + $(grep -c . "$D/$f.samples")))
	done
	# shellcheck disable=SC2046 # two words, on purpose
	set -- $(log_stopped "$dlog")
	nseg=$(closed_segments "$D" | grep -c .)
	if [ "${1:-x}" = "$total" ] && [ "${2:-x}" = "$nseg" ]; then
		ok "the last log line counts $total samples in $nseg segments, as the segments hold"
	else
		bad "the log says '${1:-?} samples in ${2:-?} segments', the DIR holds $total in $nseg: $(lines "$dlog" 4)"
	fi
fi

say "--- switches on request only (a bare --switch-output, as in perf, is signal)"
D=$workdir/signal
if start_daemon signal "$D" -a --switch-output -e cpu-clock -F 999 -g; then
	"$PRECORD" ctl --dir "$D" rotate >"$workdir/rotate.out" 2>&1
	check_status "ctl rotate" $? 0 "$workdir/rotate.out"
	wait_seq "$D" 2
	check $? "ctl rotate: segment 2 begins"
	kill -s USR2 "$dpid"
	wait_seq "$D" 3
	check $? "SIGUSR2: segment 3 begins"
	sleep 1 # demo's samples for the last segment (the check below asks only that it names hot_a)
	stop_daemon "signal" "$D"
	# the first two segments end at once on request (one held 2 samples, neither of them
	# demo's hot_a, on a busy machine): they must read; the last one names hot_a
	last=$(closed_segments "$D" | tail -n 1)
	for f in $(closed_segments "$D"); do
		if [ "$f" = "$last" ]; then
			segment_reads "$f" "$D/$f" hot_a
		else
			segment_reads "$f" "$D/$f"
		fi
	done
fi

say "--- switches by size"
D=$workdir/size
if start_daemon size "$D" -a -e cpu-clock -F 999 -g --switch-output=64K; then
	wait_seq "$D" 4
	check $? "by size: four segments begin (log: $(lines "$dlog" 3))"
	# SIGTERM stops it as ctl stop does
	kill -s TERM "$dpid"
	wait "$dpid"
	rc=$?
	forget_daemon "$dpid"
	[ "$rc" -eq 0 ] && grep -q 'stopped: ' "$dlog" && [ "$(live_segments "$D" | grep -c .)" -eq 0 ]
	check $? "SIGTERM: exit status $rc, a 'stopped:' log line, no .partial left (log: $(tail -n 1 "$dlog"))"
	last=$(closed_segments "$D" | tail -n 1)
	for f in $(closed_segments "$D"); do
		sz=$(stat -c %s "$D/$f")
		if [ "$f" = "$last" ]; then # ends with the stop, at any size
			segment_reads "$f" "$D/$f"
		elif [ "$sz" -ge 65536 ]; then
			ok "$f: $sz bytes, at least 64 KiB"
			segment_reads "$f" "$D/$f" hot_a
		else
			bad "$f: $sz bytes, less than the 64 KiB of --switch-output=64K"
		fi
	done
fi

# bg_wait_gone PID: wait (at most 30 s) until PID has exited; 1 if it has not.
bg_wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

say "--- --background"
D=$workdir/bg
"$PRECORD" daemon --dir "$D" --background -a -e cpu-clock -F 99 >"$workdir/bg.out" 2>"$workdir/bg.err"
check_status "--background" $? 0 "$workdir/bg.err"
pid=$(status_of "$D" pid)
if [ -n "$pid" ] && grep -q "recording into $D (pid $pid)" "$workdir/bg.out"; then
	ok "--background: the parent says where and which pid ($pid) on stdout, even into a file"
else
	bad "--background: stdout '$(lines "$workdir/bg.out")', ctl status's pid '$pid'"
fi
if [ -n "$pid" ]; then
	bg_pids="$bg_pids $pid"
	: >"$D/precord.log" # as logrotate's copytruncate does: the log is O_APPEND
	"$PRECORD" ctl --dir "$D" stop >/dev/null 2>&1
	bg_wait_gone "$pid"
	check $? "--background: ctl stop ends the detached daemon"
	grep -q 'stopped: ' "$D/precord.log"
	check $? "--background: DIR/precord.log has its log: $(lines "$D/precord.log" 3)"
	[ "$(tr -d '\000' <"$D/precord.log" | wc -c)" -eq "$(wc -c <"$D/precord.log")" ]
	check $? "--background: after a truncation the log goes on at its start (no NUL bytes)"
fi

say "--- --background: a daemon killed, then started again"
D=$workdir/bgkill
"$PRECORD" daemon --dir "$D" --background -a -e cpu-clock -F 99 >/dev/null 2>"$workdir/bgk.err"
check_status "--background (to be killed)" $? 0 "$workdir/bgk.err"
pid=$(status_of "$D" pid)
if [ -n "$pid" ]; then
	kill -s KILL "$pid"
	bg_wait_gone "$pid"
	"$PRECORD" daemon --dir "$D" --background -a -e cpu-clock -F 99 >/dev/null \
		2>"$workdir/bgk2.err"
	check_status "--background after a SIGKILL" $? 0 "$workdir/bgk2.err"
	pid=$(status_of "$D" pid)
	[ -n "$pid" ] && bg_pids="$bg_pids $pid"
	"$PRECORD" ctl --dir "$D" stop >/dev/null 2>&1
	[ -n "$pid" ] && bg_wait_gone "$pid"
	# the segment left live is closed (or, if still empty, removed) as the new one opens
	# DIR, before it detaches: that line goes into the log as well
	grep -q 'by an earlier run' "$D/precord.log"
	check $? "--background: the restart's recovery line is in DIR/precord.log: $(lines "$D/precord.log" 4)"
	n=$(grep -c -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z precord: ' \
		"$D/precord.log")
	[ "$n" -eq 0 ] && [ -s "$D/precord.log" ]
	check $? "--background: every line of DIR/precord.log starts with an ISO 8601 time ($n do not)"
else
	bad "--background: no daemon answers on $D: $(lines "$workdir/bgk.err")"
fi

say "--- --background: a start that fails after detaching says why on the terminal"
# bg_fails LABEL WORD ARGS...: precord daemon --background ARGS exits 1 with one line naming
# WORD on stderr, and DIR/precord.log (DIR is the --dir in ARGS, $bgdir) has that line too.
bg_fails() {
	_l=$1
	_w=$2
	shift 2
	"$PRECORD" daemon --background "$@" >"$workdir/bgf.out" 2>"$workdir/bgf.err"
	check_status "$_l" $? 1 "$workdir/bgf.err"
	one_line "$_l" "$workdir/bgf.err" "$_w"
	[ -s "$workdir/bgf.err" ] &&
		grep -q -F -- "$(sed 's/^precord: //' "$workdir/bgf.err")" "$bgdir/precord.log"
	check $? "$_l: DIR/precord.log has the same line: $(lines "$bgdir/precord.log" 2)"
}
bgdir=$workdir/bgcpu
# 4095 is a well-formed list (a malformed one is a usage error, found before detaching)
bg_fails "--background -C 4095" "CPU 4095 does not exist" --dir "$bgdir" -C 4095 -e cpu-clock
bgdir=$workdir/$(printf '%0120d' 0)
bg_fails "--background with a DIR too long for the socket" "choose a shorter --dir" \
	--dir "$bgdir" -e cpu-clock

finish
