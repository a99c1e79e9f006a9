#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2317 # the predicates are called through poll
# precord daemon --min-free keeps the space free while the live segment grows, not only at a
# switch (review 22 #7: a segment filled a 4 MiB tmpfs to 52 KiB free under --min-free 50%,
# ctl status saying "last error: none").  On a 16 MiB tmpfs, a demo sampled at 999 Hz with
# DWARF stacks (megabytes a second), 10-minute segments (so only --min-free can end them):
#   50%      segments are deleted "for free space" and the file system never has less than
#            6 MiB free (the limit, 8 MiB, less 2 MiB of slack: the writer puts out up to
#            1 MiB at once between two looks at the free space);
#            the live segment ctl status names exists
#   a filler leaving 6 MiB free: nothing left to delete meets the limit, so writing stops
#            (said once, in the log and ctl status: "none (under --min-free)"), samples
#            not written are counted, at least 4 MiB stays free; the filler removed, it
#            writes again; at the stop every closed segment reads with preport -D
# Free space is sampled every 0.1 s; a wait is an upper bound, never an assertion on time.
# Skips when perf is missing, the kernel refuses perf_event_open, or a tmpfs cannot be
# mounted.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record demo
mount_tmpfs 16m || skip "cannot mount a tmpfs: $mount_error"
REC="-a -e cpu-clock -F 999 --call-graph dwarf --switch-output=10m --min-free=50%"
start_bg "$WL/demo" 600000
busy=$bg_pid

free_now() { echo $(($(stat -f -c '%a * %S' "$mnt"))); }

# watch_free SECONDS CMD...: sample the free space every 0.1 s (lowest in $lowest) until CMD
# succeeds, at most SECONDS long; returns CMD's status.  Set lowest= to begin anew.
lowest=
watch_free() {
	_n=$(($1 * 10))
	shift
	[ -n "$lowest" ] || lowest=$(free_now)
	while [ "$_n" -gt 0 ]; do
		_f=$(free_now)
		[ "$_f" -lt "$lowest" ] && lowest=$_f
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@"
}
deleted_for_free() { [ "$(grep -c 'for free space' "$dlog")" -ge "$1" ]; }
log_says() { grep -q -- "$1" "$dlog"; }
not_written_above() { [ "$(status_of "$D" "samples not written")" -gt "$1" ] 2>/dev/null; }
writing() {
	case $(status_of "$D" "live segment") in
	*.partial) log_says "writing again" ;;
	*) false ;;
	esac
}

say "--- --min-free 50% on a 16 MiB tmpfs"
D=$mnt/d1
# shellcheck disable=SC2086 # REC is words
if start_daemon minfree "$D" $REC; then
	# one deletion shows the limit reached and held; how soon depends on the write rate
	# (zstd, the CPU the demo gets): 2 in 60 s in a CI run on two busy cores
	watch_free 120 deleted_for_free 1
	check $? "segments are deleted for free space ($(grep -c 'for free space' "$dlog") times)"
	[ "$lowest" -ge $((6 << 20)) ]
	check $? "at least 6 MiB stays free while segments grow (lowest: $lowest bytes)"
	l=$(status_of "$D" "live segment")
	[ -n "$l" ] && { [ -f "$D/$l" ] || [ -f "$D/${l%.partial}" ]; }
	check $? "the live segment $l is there"
	stop_daemon minfree "$D"
fi
rm -rf "$D"

say "--- a filler leaves less than --min-free asks"
lowest=
D=$mnt/d2
head -c $(($(free_now) - (6 << 20))) /dev/zero >"$mnt/filler"
say "filler: $(stat -c %s "$mnt/filler") bytes; $(free_now) bytes free"
# shellcheck disable=SC2086
if start_daemon filler "$D" $REC; then
	watch_free 30 log_says "writing stops until space returns"
	check $? "writing stops: $(grep 'cannot be met' "$dlog" | head -n 1)"
	watch_free 30 not_written_above 0
	check $? "samples not written are counted ($(status_of "$D" "samples not written"))"
	l=$(status_of "$D" "live segment")
	[ "$l" = "none (under --min-free)" ]
	check $? "ctl status: live segment: $l"
	e=$(status_of "$D" "last error")
	case $e in *"--min-free cannot be met"*) true ;; *) false ;; esac
	check $? "ctl status: last error: $e"
	kill -0 "$dpid" 2>/dev/null
	check $? "the daemon keeps running"
	n=$(grep -c -e '--min-free cannot be met' "$dlog")
	[ "$n" -eq 1 ]
	check $? "said once ($n times): $(grep "cannot be met" "$dlog" | join_lines)"
	[ "$lowest" -ge $((4 << 20)) ]
	check $? "at least 4 MiB stays free (lowest: $lowest bytes)"
	rm -f "$mnt/filler"
	watch_free 30 writing
	check $? "the filler removed, the daemon writes again (log: $(tail -n 1 "$dlog"))"
	stop_daemon filler "$D"
	for f in $(closed_segments "$D"); do
		cp "$D/$f" "$workdir/$f"
		cut_reads "$f" "$workdir/$f"
	done
fi
stop_bg "$busy"

finish
