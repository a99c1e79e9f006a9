# SPDX-License-Identifier: MIT
# Helpers for tests/integration/run-daemon*.sh, on top of test-lib.sh and record-lib.sh;
# source all three with
#   . "$(dirname "$0")/test-lib.sh"
#   . "$(dirname "$0")/record-lib.sh"
#   . "$(dirname "$0")/daemon-lib.sh"
#
# Every daemon started here is remembered and stopped (SIGTERM, by pid, then reaped) when the
# script ends, before a tmpfs mounted by mount_tmpfs is unmounted.
# Waits are upper bounds that end as soon as what is awaited happens, never assertions on how
# long something took.  Plain POSIX sh.
# shellcheck shell=sh disable=SC2154,SC2034 # workdir, bg_pids come from the other libs

# start_daemon NAME DIR ARGS...: `precord daemon --dir DIR ARGS...` in the background, its
# stdout and stderr in $workdir/NAME.log (named by $dlog), its pid in $dpid.  Returns 0 once
# the daemon answers `precord ctl status` (waiting at most 30 s), 1 (said) if it exited or
# never answered.
dlog=/dev/null
dpid=
start_daemon() {
	_n=$1
	_d=$2
	shift 2
	dlog=$workdir/$_n.log
	"$PRECORD" daemon --dir "$_d" "$@" >"$dlog" 2>&1 &
	dpid=$!
	bg_pids="$bg_pids $dpid"
	_i=0
	while [ "$_i" -lt 300 ]; do
		if ! kill -0 "$dpid" 2>/dev/null; then
			wait "$dpid"
			bad "$_n: the daemon exited ($?) before it answered: $(lines "$dlog" 4)"
			return 1
		fi
		if "$PRECORD" ctl --dir "$_d" status >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	bad "$_n: the daemon did not answer precord ctl status within 30 s: $(lines "$dlog" 4)"
	return 1
}

# forget_daemon PID: the daemon is gone (reaped by the caller); do not kill it at the end.
forget_daemon() {
	bg_pids=$(echo "$bg_pids" | tr ' ' '\n' | grep -v "^$1\$" | tr '\n' ' ')
}

# stop_daemon LABEL DIR: `precord ctl stop`, then wait for the daemon ($dpid); checks that
# it exits 0 (its log shown if not).  The daemon is killed if it has not ended after 60 s.
stop_daemon() {
	"$PRECORD" ctl --dir "$2" stop >"$workdir/stop.out" 2>&1 ||
		bad "$1: precord ctl stop failed: $(lines "$workdir/stop.out")"
	_i=0
	while kill -0 "$dpid" 2>/dev/null && [ "$_i" -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$dpid" 2>/dev/null && kill -9 "$dpid"
	wait "$dpid"
	_rc=$?
	forget_daemon "$dpid"
	if [ "$_rc" -eq 0 ]; then
		ok "$1: the daemon stops with status 0"
	else
		bad "$1: the daemon exits $_rc after ctl stop; its log: $(lines "$dlog" 6)"
	fi
}

# status_of DIR FIELD: the value of FIELD ("samples written", ...) in `precord ctl status`.
status_of() {
	"$PRECORD" ctl --dir "$1" status 2>/dev/null |
		awk -v k="$2" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }'
}

# closed_segments DIR: the closed segments' names in DIR (regular files only), oldest first.
closed_segments() {
	find "$1" -maxdepth 1 -type f -name 'precord-*Z-*.data' -printf '%f\n' 2>/dev/null | sort
}

# live_segments DIR: the names of the live (.partial) segments in DIR.
live_segments() {
	find "$1" -maxdepth 1 -type f -name 'precord-*Z-*.data.partial' -printf '%f\n' 2>/dev/null |
		sort
}

# seq_of NAME: a segment's sequence number (the digits after "Z-"), without leading zeros.
seq_of() {
	echo "$1" | sed 's/.*Z-0*\([0-9][0-9]*\)\.data.*/\1/'
}

# max_seq DIR: the highest sequence number of a segment (closed or live) in DIR, 0 if none.
max_seq() {
	_m=0
	for _f in $(closed_segments "$1") $(live_segments "$1"); do
		_s=$(seq_of "$_f")
		[ "$_s" -gt "$_m" ] && _m=$_s
	done
	echo "$_m"
}

# segment_reads LABEL FILE [SYM]: preport -D reads FILE (exit 0, nothing on stderr), perf
# report reads it, and, with SYM, perf report names SYM among its symbols.
segment_reads() {
	preport_reads "$1" "$2"
	perf_report "$1" "$2" sym "$2.report"
	if [ -n "${3:-}" ]; then
		if awk -v s="$3" '$1 ~ /%$/ && $NF == s { f = 1 } END { exit !f }' "$2.report"; then
			ok "$1: perf report names $3 ($(share "$2.report" "$3")%)"
		else
			bad "$1: perf report does not name $3; its top lines: $(grep '%' "$2.report" | head -n 3 | tr -s ' ' | join_lines)"
		fi
	fi
}

# cut_reads LABEL FILE: as preport_reads, for a segment that may have been cut (left live by
# a kill, or ended by a full disk): preport -D exits 0 and says nothing but that FILE was cut
# ("cut short", "truncated input").  Sets $was_cut to 1 if it said so, else 0.
cut_reads() {
	"$PREPORT" -D -i "$2" >"$2.dump" 2>"$2.dump.err"
	_rc=$?
	grep -F ': SAMPLE ' "$2.dump" >"$2.samples"
	was_cut=0
	grep -q . "$2.dump.err" && was_cut=1
	if [ "$_rc" -eq 0 ] && ! grep -v -e 'was cut short' -e 'truncated input' "$2.dump.err" | grep -q .
	then
		ok "$1: preport -D reads it ($(grep -c . "$2.samples") samples)" \
			"$([ "$was_cut" = 1 ] && echo "and says it was cut")"
	else
		bad "$1: preport -D exits $_rc: $(lines "$2.dump.err")"
	fi
}

# log_stopped LOG: the "stopped: N samples written in M segments" line's N and M, as "N M".
log_stopped() {
	sed -n 's/.*stopped: \([0-9][0-9]*\) samples written in \([0-9][0-9]*\) segments\{0,1\}.*/\1 \2/p' \
		"$1" | tail -n 1
}

# wait_seq DIR N: wait (at most 30 s) until a segment numbered N or higher exists in DIR;
# returns 1 if none does.
wait_seq() {
	_i=0
	while [ "$(max_seq "$1")" -lt "$2" ] && [ "$_i" -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(max_seq "$1")" -ge "$2" ]
}

# mount_tmpfs SIZE: a tmpfs of SIZE (mount's size=) at $workdir/mnt, in $mnt; returns 1 with
# mount's complaint in $mount_error when it cannot be mounted.  Unmounted at exit.
mnt=
mount_tmpfs() {
	[ -d "$workdir/mnt" ] || mkdir -m 0700 "$workdir/mnt"
	if mount -t tmpfs -o "size=$1,mode=0700" precord-test "$workdir/mnt" \
		2>"$workdir/mount.err"; then
		mnt=$workdir/mnt
		return 0
	fi
	mount_error=$(lines "$workdir/mount.err" 1)
	return 1
}

_daemon_cleanup() {
	for _b in $bg_pids; do
		kill "$_b" 2>/dev/null
		wait "$_b" 2>/dev/null
	done
	[ -n "$mnt" ] && umount "$mnt"
	_record_cleanup
}
trap _daemon_cleanup EXIT
