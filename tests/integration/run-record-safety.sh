#!/bin/sh
# SPDX-License-Identifier: MIT
# What precord does to the workload, the output file and the host:
#   workload        starts with default signal dispositions and an empty signal mask:
#                   `yes | head -1` prints no "Broken pipe", SigBlk/SigIgn are 0 (but for
#                   a SIGHUP ignored by nohup), also when precord runs in the background
#   file mode       the output is 0600 (it holds stack copies), also under umask 000
#   SIGHUP          (a closed terminal) stops precord cleanly: summary, readable file
#   symlink         an output path that is a symbolic link is refused, and nothing is
#                   written where it points; a link at FILE.old is replaced, not followed
#   FIFO            an output that is a FIFO is refused at once (no blocking open)
#   disk full       on a tmpfs with 256 KiB free: exit 1, one error line, and the summary counts only
#                   the samples the file holds (preport -D counts the same, and warns that
#                   the file was cut short), the rest as not written
# Skips when perf is missing or the kernel refuses perf_event_open; the disk-full part is
# skipped (said so) where a tmpfs cannot be mounted.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo
DEMO=$WL/demo

say "--- the workload's signals"
record pipe -q -e cpu-clock -o "$workdir/pipe.data" -- sh -c 'yes | head -n 1'
check_status "yes | head -n 1" "$rec_rc" 0
if [ "$(cat "$workdir/pipe.out")" = y ] && ! grep -q -i 'broken pipe' "$workdir/pipe.err"; then
	ok "yes | head -n 1: prints y and no 'Broken pipe'"
else
	bad "yes | head -n 1: stdout '$(lines "$workdir/pipe.out")', stderr '$(lines "$workdir/pipe.err")'"
fi
record sigs -q -e cpu-clock -o "$workdir/sigs.data" -- sh -c 'grep -E "^Sig(Blk|Ign)" /proc/self/status'
check_status "signal state" "$rec_rc" 0
# Only a SIGHUP ignored by precord's caller (nohup) stays ignored; the rest of signals 1-31
# is default.  (32 and up are the C library's own, which it does not let a program reset.)
std_ign() { echo $((0x$(awk '$1 == "SigIgn:" { print $2 }' "$1") & 0x7fffffff)); }
blk=$(awk '$1 == "SigBlk:" { print $2 }' "$workdir/sigs.out")
ign=$(std_ign "$workdir/sigs.out")
want=$(($(std_ign /proc/$$/status) & 1))
if [ "$blk" = 0000000000000000 ] && [ "$ign" -eq "$want" ]; then
	ok "the workload has an empty signal mask and default dispositions (signals 1-31 ignored: $ign)"
else
	bad "the workload's SigBlk $blk (want 0), signals 1-31 ignored $ign (want $want)"
fi
# the same for a precord started in the background by a script, which ignores SIGINT
"$PRECORD" -q -e cpu-clock -o "$workdir/sigs2.data" -- sh -c 'grep "^SigIgn" /proc/self/status' \
	>"$workdir/sigs2.out" 2>"$workdir/sigs2.err" &
wait $!
ign=$(std_ign "$workdir/sigs2.out")
if [ "$ign" -eq "$want" ]; then
	ok "started in the background, the workload does not inherit the ignored SIGINT"
else
	bad "started in the background, the workload's SigIgn is $ign, want $want"
fi

say "--- file mode"
f=$workdir/mode.data
(umask 000 && "$PRECORD" -q -e cpu-clock -o "$f" -- true 2>"$f.err")
m=$(stat -c %a "$f" 2>/dev/null)
if [ "$m" = 600 ]; then ok "output mode 600 under umask 000"; else bad "output mode '$m', want 600"; fi
"$PRECORD" -q -e cpu-clock -o "$f" -- true 2>"$f.err"
m=$(stat -c %a "$f.old" 2>/dev/null)
if [ "$m" = 600 ]; then ok "FILE.old keeps mode 600"; else bad "FILE.old mode '$m', want 600"; fi

say "--- SIGHUP to precord mid-run"
f=$workdir/hup.data
"$PRECORD" -e cpu-clock -F 999 -g -o "$f" -- "$DEMO" 5000 >"$workdir/hup.out" 2>"$workdir/hup.err" &
pp=$!
sleep 1
child=$(children_of "$pp" | head -n 1)
bg_pids="$bg_pids $child"
kill -s HUP "$pp"
wait "$pp"
rc=$?
if [ "$rc" -ne 129 ]; then
	ok "SIGHUP: precord ends on its own terms (exit status $rc, the workload's)"
else
	bad "SIGHUP: precord died of the signal (exit status 129): $(lines "$workdir/hup.err")"
fi
check_summary "SIGHUP" "$workdir/hup.err"
preport_reads "SIGHUP" "$f"

say "--- an output path that is a symbolic link"
target=$workdir/target
ln -s "$target" "$workdir/link.data"
record link -q -e cpu-clock -o "$workdir/link.data" -- true
if [ "$rec_rc" -ne 0 ] && [ ! -e "$target" ]; then
	ok "-o LINK: refused (exit $rec_rc), nothing written where it points"
else
	bad "-o LINK: exit $rec_rc, target exists: $([ -e "$target" ] && echo yes || echo no)"
fi
one_line "-o LINK" "$rec_err" "symbolic link"
f=$workdir/old.data
"$PRECORD" -q -e cpu-clock -o "$f" -- true 2>/dev/null
ln -s "$target" "$f.old"
record old -q -e cpu-clock -o "$f" -- true
check_status "FILE.old a symbolic link" "$rec_rc" 0
if [ ! -e "$target" ] && [ -f "$f.old" ] && [ ! -L "$f.old" ]; then
	ok "FILE.old a symbolic link: the link is replaced by the old recording, not followed"
else
	bad "FILE.old a symbolic link: target exists $([ -e "$target" ] && echo yes || echo no), FILE.old $(ls -l "$f.old")"
fi

say "--- an output that is a FIFO"
mkfifo "$workdir/fifo"
# timeout only keeps a broken precord from hanging the suite; a refusal is immediate
timeout -k 5 20 "$PRECORD" -q -e cpu-clock -o "$workdir/fifo" -- true >/dev/null 2>"$workdir/fifo.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then
	ok "-o FIFO: refused (exit $rc)"
else
	bad "-o FIFO: exit $rc (124: precord blocked in open)"
fi
one_line "-o FIFO" "$workdir/fifo.err" "not a regular file"

say "--- disk full"
mnt=$workdir/small
mkdir "$mnt"
if mount -t tmpfs -o size=1m,mode=0700 precord-test "$mnt" 2>"$workdir/mount.err"; then
	# 256 KiB left: uncompressed samples fill it within a second, however loaded the machine;
	# flushed every 20 ms, some samples make it first
	head -c $((1024 * 1024 - 256 * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null
	f=$mnt/full.data
	record full -e cpu-clock -F 20000 -g --no-compress --flush-interval 20 -o "$f" -- \
		"$DEMO" 3000
	check_status "disk full" "$rec_rc" 1
	if grep -q "cannot write .*No space left on device" "$rec_err"; then
		ok "disk full: the error says so"
	else
		bad "disk full: no 'No space left' error: $(lines "$rec_err" 3)"
	fi
	n=$(grep -c "cannot write" "$rec_err")
	if [ "$n" -eq 1 ]; then ok "disk full: said once"; else bad "disk full: said $n times"; fi
	cp "$f" "$workdir/full.data" # the dumps go beside it, not on the full disk
	f=$workdir/full.data
	cut_readable "disk full" "$f"
	check_summary "disk full" "$rec_err"
	got=$(grep -c . "$f.samples")
	if [ "$got" -eq "$summary_samples" ]; then
		ok "disk full: the summary's $summary_samples samples are the file's"
	else
		bad "disk full: the summary says $summary_samples samples, the file holds $got"
	fi
	if grep -q "samples recorded after the last good flush were not written" "$rec_err"; then
		ok "disk full: the samples not written are counted apart"
	else
		bad "disk full: no count of the samples not written: $(lines "$rec_err" 3)"
	fi
	umount "$mnt"
else
	say "cannot mount a tmpfs ($(lines "$workdir/mount.err" 1)): disk-full part skipped"
fi

finish
