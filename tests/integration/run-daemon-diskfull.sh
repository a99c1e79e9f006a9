#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2317 # the predicates are called through poll
# precord daemon on a full disk (issue 17, "Disk full"): DIR on a 4 MiB tmpfs, then a filler
# file leaves ~100 KiB free.  The daemon (no retention limit, so nothing may be deleted):
#   - says once in its log, in one line, that the disk is full, naming the remedy (free space,
#     or --max-disk/--min-free: review 22 #9) (besides a warning that the
#     segment being written was cut; and not again while it retries, ~12 s, even when
#     16 KiB come back: enough to begin a segment, not to write it), keeps running, and
#     ctl status's "samples not written" grows
#   - after the filler is removed, writes again and says so once (waited for at most 30 s:
#     an upper bound)
#   - at the stop, every segment closed before the disk filled is still there, and every
#     closed segment reads with preport -D, cut short (no end marker) only the one that
#     was being written when the disk filled up
# Skips when perf is missing, the kernel refuses perf_event_open, or a tmpfs cannot be
# mounted.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record # -a samples idle CPUs too: no workload is needed for data
mount_tmpfs 4m || skip "cannot mount a tmpfs: $mount_error"
D=$mnt/dir

# poll SECONDS CMD...: run CMD every 0.1 s until it succeeds, at most SECONDS long.
poll() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@"
}
log_says() { grep -q -- "$1" "$dlog"; }
not_written_above() { [ "$(status_of "$D" "samples not written")" -gt "$1" ] 2>/dev/null; }
writing() {
	case $(status_of "$D" "live segment") in
	*.partial) log_says "writing again" ;;
	*) false ;;
	esac
}

start_daemon full "$D" -a -e cpu-clock -F 999 -g --switch-output=500ms || finish
wait_seq "$D" 2 || bad "no switch in 30 s: $(lines "$dlog" 3)"
before=$(closed_segments "$D")
dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
truncate -s -100K "$mnt/filler"
say "filler: $(stat -c %s "$mnt/filler") bytes; $(($(stat -f -c '%a * %S' "$mnt"))) bytes free"

poll 30 log_says "is full"
check $? "the daemon says the disk is full (log: $(lines "$dlog" 4))"
grep "is full" "$dlog" | grep -q -e "free space there, or restart the daemon with --max-disk or --min-free"
check $? "with no retention set, it names the remedy: $(grep "is full" "$dlog" | head -n 1)"
poll 30 not_written_above 0
n1=$(status_of "$D" "samples not written")
check $? "ctl status counts samples not written ($n1)"
poll 30 not_written_above "$n1"
n2=$(status_of "$D" "samples not written")
check $? "samples not written grow ($n1, then $n2)"
# a little space comes back (enough for a new segment's header, not for its first flush),
# then past one retry (every 10 s): no "writing again" followed by a second "is full"
truncate -s -16K "$mnt/filler"
sleep 11
n=$(grep -c "is full" "$dlog")
[ "$n" -eq 1 ]
check $? "the log says the disk is full once ($n times) while it stays full"
# besides a warning that the segment being written was cut
n=$(grep "No space left" "$dlog" | grep -c -v "ended early")
[ "$n" -eq 1 ]
check $? "one log line says the disk is full: $(grep "No space left" "$dlog" | join_lines)"
kill -0 "$dpid" 2>/dev/null
check $? "the daemon keeps running on a full disk"
"$PRECORD" ctl --dir "$D" status >"$workdir/status.now" 2>&1
grep -q '^live segment: none (disk full)$' "$workdir/status.now"
check $? "ctl status: $(grep -e '^live segment' -e '^last error' "$workdir/status.now" | join_lines)"

n=$(grep -c "writing again" "$dlog")
[ "$n" -eq 0 ]
check $? "with 16 KiB free the daemon does not claim to write again ($n times)"
rm -f "$mnt/filler"
poll 30 writing
check $? "after the filler is removed the daemon writes again (log: $(tail -n 1 "$dlog"))"
n=$(grep -c "writing again" "$dlog")
[ "$n" -eq 1 ]
check $? "the log says it writes again once ($n times)"
e=$(status_of "$D" "last error")
case $e in *" is full "*"(ended "[0-2][0-9]:[0-5][0-9]:[0-5][0-9]")") true ;; *) false ;; esac
check $? "ctl status keeps the disk-full episode, ended: $e"
stop_daemon full "$D"
lost=
for f in $before; do
	[ -f "$D/$f" ] || lost="$lost $f"
done
[ -z "$lost" ]
check $? "every segment closed before the disk filled is still there${lost:+; gone:$lost}"
ncut=0
for f in $(closed_segments "$D"); do
	cp "$D/$f" "$workdir/$f"
	cut_reads "$f" "$workdir/$f"
	ncut=$((ncut + was_cut))
done
[ "$ncut" -le 1 ]
check $? "$ncut segment was cut (want at most the one the disk filled up)"

finish
