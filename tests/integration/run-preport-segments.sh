#!/bin/sh
# SPDX-License-Identifier: MIT
# preport -i DIR: a directory of segments, as precord daemon writes it, read as one recording.
#
# The directory is built without the daemon: segments named as prec_segment_format_name()
# names them (precord-YYYYMMDDTHHMMSS.mmmZ-NNNNNN.data, the live one .partial; dir 0700,
# files 0600), written by tests/tools/write-stream with wall-clock data (--wall: CLOCK_DATA
# puts the first sample at that time; samples 100 ms apart), so that this part runs where
# perf_event_open is refused.  Segments start 3 h, 1 h and 1 min ago, and their files'
# mtimes (a segment's end) are set a few seconds after their start.  Checked:
#   - the report of DIR is the merged profile: its folded stacks are the sums of the
#     segments' own, and its sample count their total;
#   - --since/--until (wall clock, in the forms @SECONDS, -2h, "YYYY-MM-DD HH:MM:SS", a bare
#     HH:MM:SS) pick the segments and, inside them, the samples: exact counts, computed from
#     the sample times; the report says the range applied and how many segments it read;
#   - the same on a single file; a file without wall-clock data is a one-line error;
#   - for ranges at segment boundaries, the directory counts what its files count with the same
#     range, where samples lie before their segment's name and after its mtime (as the
#     daemon's can), and the warnings give times to the millisecond;
#   - -D honours --since/--until (the samples outside are left out, and counted), and the
#     range line keeps a fraction of a second;
#   - --header lists the segments (samples, bytes, live: only while DIR's lock is held, else
#     "left live by a crash"); -D dumps each after a separator;
#   - a segment cut to 10 bytes and one of random bytes each give one warning naming it,
#     and the rest still reports; the listing marks them damaged;
#   - a FIFO and a symbolic link named like segments, and other files, are ignored;
#   - an empty directory is a one-line error; one whose only segment is empty warns and
#     exits 1 with one error line; a bad --since a usage error.
# Then, where precord can record: two recordings of the demo workload by precord put in a
# directory (its folded stacks are the sum of the two files' own), and precord daemon with
# 1 s segments while demo runs (merged profile = sum of the segments', --since/--until
# around the run keep all of demo's samples, before it none, ranges around each switch count
# what the files count, the listing has every segment).
# Where perf can record: perf record -k mono, its wall clock as preport maps it, and
# --header-only's clock lines identical to perf report's.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"

now=$(date +%s)
t1=$((now - 10800))
t2=$((now - 3600))
t3=$((now - 60))
dir=$workdir/segs
mkdir -m 700 "$dir"

# segname SECONDS SEQ [.partial]: a segment's name as the daemon gives it.
segname() {
	printf 'precord-%s.000Z-%06d.data%s\n' "$(date -u -d "@$1" +%Y%m%dT%H%M%S)" "$2" "${3:-}"
}

# segment SECONDS SEQ SUFFIX SYMBOL:COUNT...: write one segment; prints its path.
segment() {
	_t=$1
	_p=$dir/$(segname "$1" "$2" "$3")
	shift 3
	(umask 077 && "$WRITE_STREAM" -o "$_p" --wall "$_t" --step-ms 100 "$DEMO" "$@") ||
		fail "write-stream failed for $_p"
	echo "$_p"
}

s1=$(segment "$t1" 1 "" hot_a:30 hot_b:10)
s2=$(segment "$t2" 2 "" hot_a:20 hot_b:20)
s3=$(segment "$t3" 3 .partial hot_a:5 hot_b:5)
touch -d "@$((t1 + 5))" "$s1"
touch -d "@$((t2 + 5))" "$s2"

# run NAME ARGS...: preport ARGS; sets rc, out, err.
run() {
	out=$workdir/$1.out
	err=$workdir/$1.err
	shift
	"$PREPORT" "$@" >"$out" 2>"$err"
	rc=$?
}

# expect_ok LABEL: the last run exited 0.
expect_ok() {
	if [ "$rc" -ne 0 ]; then
		bad "$1: exit status $rc; its stderr: $(lines "$err" 4)"
		return 1
	fi
	return 0
}

# folded_total FILE: the samples of a --folded output.
folded_total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

# samples_line: the number in "# Samples: N" of the last stdio report.
samples_line() { sed -n 's/^# Samples: \([0-9]*\).*/\1/p' "$out" | head -n 1; }

# count LABEL WANT ARGS...: preport --folded ARGS counts WANT samples.
count() {
	_l=$1
	_w=$2
	shift 2
	run count -q --folded "$@"
	expect_ok "$_l" || return
	_g=$(folded_total "$out")
	if [ "$_g" -eq "$_w" ]; then
		ok "$_l: $_g samples"
	else
		bad "$_l: $_g samples, want $_w: $(lines "$out" 3)"
	fi
}

say "--- the merged profile"
: >"$workdir/sum.in"
for f in "$s1" "$s2" "$s3"; do
	run one -q --folded -i "$f"
	expect_ok "$(basename "$f") alone" && cat "$out" >>"$workdir/sum.in"
done
awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' "$workdir/sum.in" |
	sort >"$workdir/sum.want"
run dir -q --folded -i "$dir"
if expect_ok "preport -i DIR --folded"; then
	sort "$out" >"$workdir/dir.got"
	if cmp -s "$workdir/sum.want" "$workdir/dir.got"; then
		ok "DIR's folded stacks are the sums of its segments':" \
			"$(join_lines <"$workdir/dir.got")"
	else
		bad "DIR's folded stacks $(join_lines <"$workdir/dir.got")," \
			"want $(join_lines <"$workdir/sum.want")"
	fi
fi
run dirstdio -q -i "$dir"
if expect_ok "preport -i DIR"; then
	[ "$(samples_line)" = 90 ]
	check $? "preport -i DIR counts 90 samples (got '$(samples_line)')"
	grep -q 'hot_a' "$out"
	check $? "preport -i DIR names hot_a"
fi

say "--- --since / --until"
count "--since @t1+2 --until @t2+1 (20 of segment 1, 11 of segment 2)" 31 \
	-i "$dir" --since "@$((t1 + 2))" --until "@$((t2 + 1))"
count "--since -2h (segments 2 and 3)" 50 -i "$dir" --since -2h
count "--until @t1+1.05 (samples at 0.0 to 1.0 s of segment 1)" 11 \
	-i "$dir" --until "@$((t1 + 1)).05"
local_since=$(date -d "@$t2" '+%Y-%m-%d %H:%M:%S')
local_until=$(date -d "@$((t2 + 2))" '+%H:%M:%S')
count "--since '$local_since' --until $local_until (local time; 21 of segment 2)" 21 \
	-i "$dir" --since "$local_since" --until "$local_until"
count "a range between segments" 0 -i "$dir" --since "@$((t1 + 60))" --until "@$((t1 + 120))"
# segment 1 may hold samples up to segment 2's start, and 2 from 1's start on (the names say
# no more): both are read, and the warning says where their samples lie
run between --folded -i "$dir" --since "@$((t1 + 60))" --until "@$((t1 + 120))"
grep -q 'warning: no sample of .* the samples of the 2 segments read span .*\.900 (local' "$err"
check $? "which says what the samples of the segments around it span:\
 $(grep 'no sample' "$err")"
# A range that holds no sample, of a recording with call chains: every view, the exports too,
# says so in the one warning line the report gives, with what the samples span, and exits as
# the report does (0, an empty report); never that there are no call chains.
cdir=$workdir/chains
mkdir -m 700 "$cdir"
cs=$cdir/$(segname "$t1" 1)
(umask 077 && "$WRITE_STREAM" -o "$cs" --wall "$t1" --step-ms 100 --caller main "$DEMO" \
	hot_a:10 main:0) || fail "write-stream failed for $cs"
touch -d "@$((t1 + 5))" "$cs"
late="--since @$((t1 + 60)) --until @$((t1 + 120))"
gap="--since @$((t1 + 1)).01 --until @$((t1 + 1)).02" # between two samples
for input in file dir; do
	for range in "$late" "$gap" "--time 100,200"; do
		want="no sample of '.*' is in the time range asked for; the samples"
		case $input:$range in
		"dir:$late") want="no segment of .* is in the time range asked for; they span" ;;
		dir:*) want="$want of the 1 segment read span .* (local time)" ;;
		*) want="$want span .* (local time)" ;;
		esac
		case $range in
		--time*) want="$want, [0-9.]* to [0-9.]* s on the perf clock" ;;
		esac
		[ "$input" = file ] && in=$cs || in=$cdir
		for view in report --folded --pprof --flamegraph; do
			case $view in
			report) set -- ;;
			--folded) set -- --folded ;;
			*) set -- "$view" "$workdir/empty.export" ;;
			esac
			# shellcheck disable=SC2086 # the range's options and values
			run empty-range -i "$in" $range "$@"
			if [ "$rc" -eq 0 ] && [ "$(grep -c . "$err")" -eq 1 ] &&
				grep -q "^preport: warning: $want" "$err"; then
				ok "$input, $range, $view: exit 0, one line: $(cat "$err")"
			else
				bad "$input, $range, $view: exit $rc, want 0 and one line saying" \
					"'$want': $(lines "$err" 3)"
			fi
		done
	done
done
run range -q -i "$dir" --since "@$((t1 + 2))" --until "@$((t2 + 1))"
if expect_ok "the report of a range"; then
	# the live segment 3 may hold samples from segment 2's start on
	grep -q '^# time range: from .* to .*, 3 of 3 segments' "$out"
	check $? "the report says the range and the segments read: $(grep '^# time range' "$out")"
	[ "$(samples_line)" = 31 ]
	check $? "its sample count is 31 (got '$(samples_line)')"
fi
run rangefrac -q -i "$dir" --since "@$((t1 + 2)).5" --until "@$((t2 + 1))"
if expect_ok "a range with a fraction of a second"; then
	want=$(date -d "@$((t1 + 2))" '+%H:%M:%S').500
	grep '^# time range: ' "$out" | grep -q -F " $want to "
	check $? "the range line keeps the fraction ($want): $(grep '^# time range' "$out")"
fi
run rangedump -D -i "$dir" --since "@$((t1 + 2))" --until "@$((t2 + 1))"
if expect_ok "-D -i DIR with --since/--until"; then
	n=$(grep -c ': SAMPLE ' "$out")
	[ "$n" -eq 31 ] && [ "$(grep -c '^# ======== segment ' "$out")" -eq 3 ]
	check $? "-D prints the 31 samples of the range, from 3 segments ($n)"
	grep -q '^(20 samples outside --since/--until left out)$' "$out"
	check $? "and says how many it left out: $(grep 'left out' "$out" | join_lines)"
fi
run filedump -D -i "$s1" --since "@$((t1 + 2))"
if expect_ok "-D -i FILE with --since"; then
	n=$(grep -c ': SAMPLE ' "$out")
	[ "$n" -eq 20 ]
	check $? "-D of one file prints the 20 samples from --since on ($n)"
fi
count "a single file with --since" 20 -i "$s1" --since "@$((t1 + 2))"
"$WRITE_STREAM" -o "$workdir/noclock.data" "$DEMO" hot_a:10 || fail "write-stream failed"
run noclock -i "$workdir/noclock.data" --since -1h
if [ "$rc" -eq 1 ] && [ "$(grep -c . "$err")" -eq 1 ] && grep -q 'no wall-clock data' "$err"; then
	ok "a file without CLOCK_DATA and --since: one line, exit 1: $(cat "$err")"
else
	bad "a file without CLOCK_DATA and --since: exit $rc, want 1 and one line: $(lines "$err" 3)"
fi
run badsince -i "$dir" --since "next tuesday"
if [ "$rc" -eq 2 ] && [ "$(grep -c . "$err")" -eq 1 ] && grep -q -- '--since' "$err"; then
	ok "a bad --since: usage error in one line: $(cat "$err")"
else
	bad "a bad --since: exit $rc, want 2 and one line: $(lines "$err" 3)"
fi

say "--- ranges at segment boundaries"
# A segment's samples need not lie in its span (its name's time to its mtime): the daemon
# drains the rings into the next segment after a switch, so that one holds samples from before
# its name; and the kernel keeps mtimes coarsely, so a segment's last sample can follow its
# mtime.  Segments built so (samples 100 ms apart): A named T, samples T+0 to T+0.9, mtime
# T+0.5; B named T+1.5, samples T+1.0 to T+1.9, mtime T+1.95; C named T+3, samples T+3.0 to
# T+3.9, mtime T+4.  For each range, the directory counts what its files count.

# same_as_files LABEL DIR ARGS...: preport -i DIR ARGS counts the sum of what each segment file
# of DIR counts with ARGS.
same_as_files() {
	_l=$1
	_d=$2
	shift 2
	_sum=0
	for _f in "$_d"/precord-*.data; do
		run rfile -q --folded -i "$_f" "$@"
		expect_ok "$_l: $(basename "$_f") alone" || return
		_sum=$((_sum + $(folded_total "$out")))
	done
	count "$_l: the directory counts what its files count" "$_sum" -i "$_d" "$@"
}

# sample_span FILE: 50 us before and after FILE's first sample, then its last, on the wall
# clock (@SECONDS with 9 decimals), from -D's sample times and the reference time that
# --header-only prints (to the microsecond); nothing if FILE has no sample.
sample_span() {
	_ref=$("$PREPORT" --header-only -i "$1" 2>/dev/null | sed -n \
		's/^# reference time: .* = \([0-9]*\)\.\([0-9]\{6\}\) (TOD) = \([0-9]*\)\.\([0-9]\{9\}\) (monotonic)$/\1 \2 \3\4/p')
	[ -n "$_ref" ] || return 0
	"$PREPORT" -D -i "$1" 2>/dev/null | awk -v ref="$_ref" '
		function wall(t, x, s) {
			x = r[2] * 1000 + (t - r[3])
			s = int(x / 1e9)
			if (x < s * 1e9)
				s--
			return sprintf("@%d.%09d", r[1] + s, x - s * 1e9)
		}
		/: SAMPLE / {
			for (i = 1; i < NF; i++)
				if ($i == "time") {
					t = $(i + 1) + 0
					if (!n++ || t < lo)
						lo = t
					if (t > hi)
						hi = t
				}
		}
		END {
			split(ref, r, " ")
			if (n)
				print wall(lo - 50000), wall(lo + 50000), wall(hi - 50000), wall(hi + 50000)
		}'
}

# earlier A B [later]: the earlier of two @SECONDS.NANOSECONDS times (with "later", the later).
earlier() {
	if [ "$(printf '%s\n' "$1" "$2" | sort | head -n 1)" = "$1" ]; then
		[ -z "${3:-}" ] && echo "$1" || echo "$2"
	else
		[ -z "${3:-}" ] && echo "$2" || echo "$1"
	fi
}

bt=$((now - 600))
bdir=$workdir/bounds
mkdir -m 700 "$bdir"
# bseg SECONDS MS SEQ WALL_SECONDS MTIME SYMBOL:COUNT: a closed segment named SECONDS.MS.
bseg() {
	_p=$bdir/$(printf 'precord-%s.%03dZ-%06d.data' "$(date -u -d "@$1" +%Y%m%dT%H%M%S)" "$2" \
		"$3")
	(umask 077 && "$WRITE_STREAM" -o "$_p" --wall "$4" --step-ms 100 "$DEMO" "$6") ||
		fail "write-stream failed for $_p"
	touch -d "@$5" "$_p"
}
bseg "$bt" 0 1 "$bt" "$bt.5" hot_a:10
bseg "$((bt + 1))" 500 2 "$((bt + 1))" "$((bt + 1)).95" hot_b:10
bseg "$((bt + 3))" 0 3 "$((bt + 3))" "$((bt + 4))" hot_a:10
for at in 0.85 0.95 1.05 1.45 1.55 1.95 2.5 3.05 3.95; do
	b=$((bt + ${at%.*})).${at#*.}
	same_as_files "--since T+$at" "$bdir" --since "@$b"
	same_as_files "--until T+$at" "$bdir" --until "@$b"
done
same_as_files "--since T+0.85 --until T+1.05" "$bdir" --since "@$bt.85" \
	--until "@$((bt + 1)).05"
same_as_files "--since T+1.05 --until T+1.45 (before B's name, after A's mtime)" "$bdir" \
	--since "@$((bt + 1)).05" --until "@$((bt + 1)).45"
same_as_files "--since T+2.5 --until T+2.9 (between B and C: none)" "$bdir" \
	--since "@$((bt + 2)).5" --until "@$((bt + 2)).9"
run gapwarn --folded -i "$bdir" --since "@$((bt + 2)).5" --until "@$((bt + 2)).9"
grep -q "warning: no sample of .* span .*:[0-9][0-9]\.[0-9][0-9][0-9] to " "$err"
check $? "a range between the samples of two segments: the warning gives their span to the\
 millisecond: $(grep 'no sample' "$err")"
run lateprint --folded -i "$bdir" --since "@$((bt + 60))"
grep -q "warning: no segment of .* they span .*:[0-9][0-9]\.000 to .*:[0-9][0-9]\.000$" "$err"
check $? "a range after every segment: the warning gives their span to the millisecond:\
 $(grep 'no segment' "$err")"
run bheader --header-only -i "$bdir" --since "@$((bt + 1)).05" --until "@$((bt + 1)).45"
if expect_ok "--header-only with a range before B's name"; then
	grep -q '^# segment directory : .*(3 segments, 1 from ' "$out"
	check $? "the range picks one segment (B, by its end marker): $(lines "$out" 1)"
fi

say "--- --header and -D"
run header --header-only -i "$dir"
if expect_ok "--header-only -i DIR"; then
	for f in "$s1" "$s2" "$s3"; do
		grep -q "^# $(basename "$f") " "$out"
		check $? "the listing has $(basename "$f")"
	done
	awk -v n="$(basename "$s1")" '$2 == n && $(NF - 1) == 40 { f = 1 } END { exit !f }' "$out"
	check $? "the listing counts 40 samples in segment 1: $(grep "^# $(basename "$s1")" "$out")"
	grep "^# $(basename "$s3")" "$out" | grep -q ' left live by a crash$'
	check $? "no daemon holds DIR: the .partial is one left by a crash:\
 $(grep "^# $(basename "$s3")" "$out")"
	grep -q '^# clockid: monotonic (1)$' "$out"
	check $? "the first segment's header follows, with its clock"
fi
# a daemon's lock on DIR, held by flock(1) while preport lists it
if command -v flock >/dev/null; then
	: >"$dir/precord.lock"
	out=$workdir/header_locked.out
	err=$workdir/header_locked.err
	flock -x "$dir/precord.lock" "$PREPORT" --header-only -i "$dir" >"$out" 2>"$err"
	rc=$?
	if expect_ok "--header-only -i DIR while its lock is held"; then
		grep "^# $(basename "$s3")" "$out" | grep -q ' live$'
		check $? "a daemon holds DIR: the listing marks the live segment:\
 $(grep "^# $(basename "$s3")" "$out")"
	fi
else
	say "flock(1) is missing: a held lock not checked"
fi
rm -f "$dir/precord.lock"
run dump -D -i "$dir"
if expect_ok "-D -i DIR"; then
	[ "$(grep -c '^# ======== segment ' "$out")" -eq 3 ]
	check $? "-D prints a separator per segment"
	grep -q "^# ======== segment $(basename "$s3") (left live by a crash) ========$" "$out"
	check $? "-D: the .partial is one left by a crash: $(grep '^# ======== ' "$out" | tail -1)"
	[ "$(grep -c ': SAMPLE ' "$out")" -eq 90 ]
	check $? "-D prints the 90 samples of all segments"
fi

say "--- --time in perf's percent forms (review 22 #6)"
# segment 1 alone: 40 samples 100 ms apart, so its span is 3.9 s: 10%/1 is [0, 390 ms) and
# keeps samples 0-3; 50%-60% is [1950, 2340) ms: samples 20-23; 100% is all of them
count "--time 10%/1 of segment 1" 4 -i "$s1" --time 10%/1
count "--time 10%/1,10%/6 of segment 1" 8 -i "$s1" --time 10%/1,10%/6
count "--time 0%-10%,50%-60% of segment 1" 8 -i "$s1" --time 0%-10%,50%-60%
count "--time 100% of segment 1" 40 -i "$s1" --time 100%
# (a directory's are checked below on the daemon's: write-stream's segments do not share a
# clock)
# usage_error LABEL PATTERN ARGS...: preport ARGS exits 2 with one line matching PATTERN
usage_error() {
	_l=$1
	_p=$2
	shift 2
	"$PREPORT" -q --folded "$@" >/dev/null 2>"$workdir/usage.err"
	_rc=$?
	if [ "$_rc" -eq 2 ] && [ "$(grep -c . "$workdir/usage.err")" -eq 1 ] &&
		grep -q -e "$_p" "$workdir/usage.err"; then
		ok "$_l: exit 2, $(lines "$workdir/usage.err" 1)"
	else
		bad "$_l: exit $_rc, want 2 and one line /$_p/: $(lines "$workdir/usage.err" 3)"
	fi
}
usage_error "--time in percent on standard input" 'give the recording as a file' \
	-i - --time 10%/1 <"$s1"
for t in 5%-2% 10%/0 10%/11 10%/1,0%-5% 10%,20% 50%-60; do
	usage_error "--time $t" "^preport: bad value '$t' for --time: give START,END" \
		-i "$s1" --time "$t"
done

say "--- a segment left live by a crash (review 22 #8)"
# a closed segment, then a .partial without its end marker, as a SIGKILLed daemon leaves them
kdir=$workdir/killed
mkdir -m 700 "$kdir"
ks=$kdir/$(segname "$t2" 1)
(umask 077 && "$WRITE_STREAM" -o "$ks" --precord --wall "$t2" --step-ms 100 "$DEMO" hot_a:6) ||
	fail "write-stream failed for $ks"
kp=$kdir/$(segname "$t3" 2 .partial)
(umask 077 && "$WRITE_STREAM" -o "$kp" --precord --cut --wall "$t3" --step-ms 100 "$DEMO" \
	hot_a:4 hot_b:4) || fail "write-stream failed for $kp"
touch -d "@$((t2 + 5))" "$ks"
kname=$(basename "$kp")
# cut_checks LABEL WANT: preport -i KDIR warns WANT times (1: once, that the .partial was cut
# short, naming the daemon as the cause; 0: not), and its flame graph's subtitle says
# "partial:" (1) or not (0)
cut_checks() {
	"$PREPORT" -q --folded -i "$kdir" >"$workdir/kfold.out" 2>"$workdir/kfold.err"
	_rc=$?
	_n=$(grep -c "^preport: warning: $kname was cut short (no end marker): it ends at .*, 0.700 s after the first sample; the daemon writing it was killed or its disk filled up$" "$workdir/kfold.err")
	_all=$(grep -c . "$workdir/kfold.err")
	_got=$(folded_total "$workdir/kfold.out")
	if [ "$_rc" -eq 0 ] && [ "$_n" -eq "$2" ] && [ "$_all" -eq "$2" ] && [ "$_got" -eq 14 ]; then
		ok "$1: exit 0, 14 samples, $_n warning(s) $(lines "$workdir/kfold.err" 1)"
	else
		bad "$1: exit $_rc, $_got samples (want 14), $_n cut-short warnings of $_all lines (want $2): $(lines "$workdir/kfold.err" 3)"
	fi
	"$PREPORT" -i "$kdir" --flamegraph "$workdir/kflame.svg" 2>"$workdir/kflame.err"
	_rc=$?
	_sub=$(python3 -c 'import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text"):
    if t.get("id") == "subtitle":
        print("".join(t.itertext()))' "$workdir/kflame.svg" 2>&1)
	case $_rc:$2:$_sub in
	"0:1:partial: segment $kname cut short at "*" · cpu-clock · 14 samples"* | \
		"0:0:cpu-clock · 14 samples"*)
		ok "$1: the flame graph's subtitle is '$_sub'" ;;
	*) bad "$1: the flame graph's subtitle is '$_sub' (exit $_rc): $(lines "$workdir/kflame.err" 2)" ;;
	esac
}
cut_checks "no daemon holds the directory: the .partial was left by a crash" 1
if command -v flock >/dev/null; then
	: >"$kdir/precord.lock"
	exec 9>"$kdir/precord.lock" # this shell holds the lock, as a running daemon does
	flock -x 9
	cut_checks "a daemon holds the directory: its live .partial is read in silence" 0
	exec 9>&-
	rm -f "$kdir/precord.lock"
fi

say "--- damaged segments"
d1=$(segment "$((t1 + 30))" 4 "" hot_a:7)
truncate -s 10 "$d1"
d2=$dir/$(segname "$((t1 + 40))" 5)
awk 'BEGIN { srand(17); for (i = 0; i < 3000; i++) printf "%c", int(rand() * 255) + 1 }' >"$d2"
run damaged -q --folded -i "$dir"
if expect_ok "a directory with two damaged segments"; then
	[ "$(folded_total "$out")" -eq 90 ]
	check $? "the other segments still report 90 samples (got $(folded_total "$out"))"
fi
run damaged2 --folded -i "$dir"
for f in "$d1" "$d2"; do
	n=$(grep -c "segment $(basename "$f") is damaged" "$err")
	[ "$n" -eq 1 ]
	check $? "one warning for $(basename "$f"): $(grep "$(basename "$f")" "$err" | head -n 1)"
done
grep -v '^preport: warning: ' "$err" | grep -q . && bad "errors besides warnings: $(lines "$err" 3)"
run damagedhdr --header-only -i "$dir"
if expect_ok "--header-only with damaged segments"; then
	[ "$(grep -c 'damaged: ' "$out")" -eq 2 ]
	check $? "the listing marks the two damaged segments"
fi

# The listing counts segments on several threads: 30 copies of s1, s2, d1 and d2 in turn, and
# each line must say what the listing of $dir says of its original (its own reason, too).
say "--- a listing of many segments"
no_name() { awk '{ $2 = $3 = $4 = $5 = $6 = ""; print }'; } # nor start and end
many=$workdir/many
mkdir -m 700 "$many"
: >"$workdir/many.want"
i=0
while [ "$i" -lt 30 ]; do
	case $((i % 4)) in
	0) f=$s1 ;;
	1) f=$s2 ;;
	2) f=$d1 ;;
	*) f=$d2 ;;
	esac
	name=$(segname "$((t1 + 60 * i))" "$((i + 1))")
	cp "$f" "$many/$name" || fail "cannot copy $f"
	grep "^# $(basename "$f") " "$workdir/damagedhdr.out" | no_name >>"$workdir/many.want"
	i=$((i + 1))
done
run many --header-only -i "$many"
if expect_ok "--header-only on 30 segments"; then
	grep '^# precord-' "$out" | no_name >"$workdir/many.got"
	if [ "$(wc -l <"$workdir/many.got")" -eq 30 ] &&
		cmp -s "$workdir/many.want" "$workdir/many.got"; then
		ok "each of the 30 segments is listed with its original's samples, bytes and state"
	else
		bad "the listing of 30 copies differs from their originals':" \
			"$(diff "$workdir/many.want" "$workdir/many.got" | grep '^[<>]' | head -n 4 |
				join_lines)"
	fi
fi

say "--- what is not a segment"
mkfifo "$dir/$(segname "$((t1 + 50))" 6)"
ln -s "$s1" "$dir/$(segname "$((t1 + 51))" 7)"
echo "notes" >"$dir/README"
out=$workdir/others.out
err=$workdir/others.err
timeout 60 "$PREPORT" -q --folded -i "$dir" >"$out" 2>"$err"
rc=$?
if expect_ok "a FIFO and a symbolic link named like segments, and a README"; then
	[ "$(folded_total "$out")" -eq 90 ]
	check $? "they are ignored: still 90 samples (got $(folded_total "$out"))"
fi

say "--- errors"
mkdir -m 700 "$workdir/empty"
run empty -i "$workdir/empty"
if [ "$rc" -eq 1 ] && [ "$(grep -c . "$err")" -eq 1 ] && grep -q 'no segments in' "$err"; then
	ok "an empty directory: one line, exit 1: $(cat "$err")"
else
	bad "an empty directory: exit $rc, want 1 and one line: $(lines "$err" 3)"
fi
# no segment can be read: each one's warning, then one error line, exit 1 (no empty report)
mkdir -m 700 "$workdir/unreadable"
: >"$workdir/unreadable/$(segname "$((now - 600))" 1)"
run unreadable -i "$workdir/unreadable"
if [ "$rc" -eq 1 ] && [ ! -s "$out" ] && grep -q '^preport: warning: segment .* skipped' "$err" &&
	[ "$(grep -v '^preport: warning: ' "$err" | grep -c .)" -eq 1 ] &&
	grep -q "^preport: no segment could be read in '.*unreadable'" "$err"; then
	ok "a directory whose one segment is empty: exit 1: $(join_lines <"$err")"
else
	bad "a directory whose one segment is empty: exit $rc, want 1, its warning and one" \
		"error line, no report: $(lines "$err" 3) / $(lines "$out" 1)"
fi

say "--- recordings by precord"
PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
rdir=$workdir/recorded
can_record=no
mkdir -m 700 "$rdir"
if [ ! -x "$PRECORD" ]; then
	say "no precord: skipped"
elif ! "$PRECORD" -q -e cpu-clock -o "$workdir/probe.data" -- true >/dev/null \
	2>"$workdir/probe.err"; then
	say "precord cannot record here ($(lines "$workdir/probe.err" 1)): skipped"
else
	can_record=yes
	: >"$workdir/rsum.in"
	for i in 1 2; do
		f=$rdir/$(segname "$((now - 100 + i * 10))" "$i")
		"$PRECORD" -q -e cpu-clock -F 499 -o "$f" -- "$DEMO" 300 >/dev/null \
			2>"$workdir/rec$i.err" ||
			bad "precord recording $i failed: $(lines "$workdir/rec$i.err" 2)"
		run rone -q --folded -i "$f"
		expect_ok "recording $i alone" && cat "$out" >>"$workdir/rsum.in"
	done
	awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' \
		"$workdir/rsum.in" | sort >"$workdir/rsum.want"
	run rdir -q --folded -i "$rdir"
	if expect_ok "preport -i DIR of two precord recordings"; then
		sort "$out" >"$workdir/rdir.got"
		n="$(folded_total "$out") samples, $(grep -c . "$out") stacks"
		cmp -s "$workdir/rsum.want" "$workdir/rdir.got"
		check $? "their folded stacks are the sums of the two files' ($n)"
		grep -q 'hot_a' "$out"
		check $? "hot_a is named"
	fi
fi

say "--- segments written by precord daemon"
ddir=$workdir/daemon
if [ "$can_record" != yes ]; then
	say "precord cannot record here: skipped"
else
	"$PRECORD" daemon --dir "$ddir" -e cpu-clock -F 199 --switch-output=1s \
		>/dev/null 2>"$workdir/daemon.err" &
	dpid=$!
	# the first segment exists once the daemon records
	i=0
	while [ "$i" -lt 100 ] && ! ls "$ddir" 2>/dev/null | grep -q '^precord-'; do
		kill -0 "$dpid" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
fi
if [ -f "$workdir/daemon.err" ] && ! kill -0 "$dpid" 2>/dev/null; then
	wait "$dpid"
	if grep -q -i -E 'permission|paranoid|not allowed' "$workdir/daemon.err"; then
		say "precord daemon may not record system-wide here: skipped:" \
			"$(lines "$workdir/daemon.err" 1)"
	else
		bad "precord daemon did not start: $(lines "$workdir/daemon.err" 3)"
	fi
elif [ -f "$workdir/daemon.err" ]; then
	dstart=$(date +%s)
	"$DEMO" 2500 &
	demo_pid=$!
	wait "$demo_pid"
	dend=$(($(date +%s) + 1))
	kill -TERM "$dpid"
	wait "$dpid"
	drc=$?
	[ "$drc" -eq 0 ]
	check $? "precord daemon stopped cleanly (status $drc): $(lines "$workdir/daemon.err" 3)"
	nseg=$(ls "$ddir" | grep -c '^precord-.*\.data$')
	: >"$workdir/dsum.in"
	for f in "$ddir"/precord-*.data; do
		run done1 -q --folded --comms demo -i "$f"
		expect_ok "daemon segment $(basename "$f") alone" && cat "$out" >>"$workdir/dsum.in"
	done
	awk '{ n = $NF; $NF = ""; c[$0] += n } END { for (k in c) print k c[k] }' \
		"$workdir/dsum.in" | sort >"$workdir/dsum.want"
	run ddir -q --folded --comms demo -i "$ddir"
	if expect_ok "preport -i DIR of the daemon's $nseg segments"; then
		sort "$out" >"$workdir/ddir.got"
		n="$nseg segments, $(folded_total "$out") samples of demo"
		[ "$nseg" -ge 2 ] && cmp -s "$workdir/dsum.want" "$workdir/ddir.got" &&
			grep -q hot_a "$out"
		check $? "the daemon's segments merge into the sum of their profiles ($n)"
		# by pid: the daemon records the whole system, where other tests may run a demo
		# of their own before or after this one (that made this check fail once, 99 of 101)
		run dpid -q --folded --pid "$demo_pid" -i "$ddir"
		all=$(folded_total "$out")
		[ "$all" -gt 0 ]
		check $? "the daemon holds samples of demo's pid $demo_pid ($all)"
		count "the daemon: --since/--until around the run keep all $all samples of demo" \
			"$all" --pid "$demo_pid" -i "$ddir" --since "@$dstart" --until "@$dend"
		count "the daemon: --until before the run keeps none of demo" 0 \
			--pid "$demo_pid" -i "$ddir" --until "@$((dstart - 2))"
		# --time in percent is of the whole directory's span, first sample to last
		# (review 22 #6): the counts -D's sample times give for 0%-40% and 10%/9
		"$PREPORT" -D -i "$ddir" 2>/dev/null | sed -n 's/.*: SAMPLE .* time \([0-9]*\) .*/\1/p' \
			>"$workdir/dtimes"
		for t in 0%-40% 10%/9; do
			want=$(awk -v t="$t" 'NR == FNR { if (!f || $1 < f) f = $1; if ($1 > l) l = $1; next }
				FNR == 1 { s = l - f; split(t, a, /[%\/-]+/)
					if (t ~ /\//) { lo = a[1] * (a[2] - 1) / 100; hi = a[1] * a[2] / 100 }
					else { lo = a[1] / 100; hi = a[2] / 100 }
					b = f + int(lo * s + 0.5); e = f + int(hi * s + 0.5)
					if (e > b && e != l) e-- }
				$1 >= b && $1 <= e { n++ } END { print n + 0 }' \
				"$workdir/dtimes" "$workdir/dtimes")
			if [ "$want" -gt 0 ]; then
				count "the daemon: --time $t of the directory's $(grep -c . "$workdir/dtimes") samples" \
					"$want" -i "$ddir" --time "$t"
			else
				bad "the daemon: -D shows no sample in --time $t: $(lines "$workdir/dtimes" 2)"
			fi
		done
	fi
	# at each switch, ranges that start or end 50 us around the last sample of the segment
	# before and the first of the one after (from -D's times, mapped to the wall clock by
	# the reference time --header-only prints, to the microsecond): the directory counts
	# what its files count
	prev=
	nsw=0
	for f in "$ddir"/precord-*.data; do
		cur=$(sample_span "$f")
		n=$(basename "$f")
		if [ -n "$prev" ] && [ -n "$cur" ]; then
			nsw=$((nsw + 1))
			# $1 $2: 50 us before and after the last sample before; $3 $4: the first after
			# shellcheck disable=SC2086 # two times each
			set -- ${prev#* * } ${cur% * *}
			same_as_files "daemon, --since 50 us before the first sample of $n" "$ddir" \
				--since "$3"
			same_as_files "daemon, --until 50 us after the last sample before $n" "$ddir" \
				--until "$2"
			same_as_files "daemon, the last sample before $n and its first" "$ddir" \
				--since "$(earlier "$1" "$3")" --until "$(earlier "$4" "$2" later)"
			[ "$(earlier "$2" "$3")" = "$2" ] &&
				same_as_files "daemon, between the samples around $n" "$ddir" \
					--since "$2" --until "$3"
		fi
		prev=$cur
	done
	[ "$nsw" -gt 0 ]
	check $? "ranges were checked around $nsw of the daemon's $((nseg - 1)) switches"
	run dhdr --header-only -i "$ddir"
	if expect_ok "--header-only on the daemon's directory"; then
		[ "$(grep -c '^# precord-' "$out")" -eq "$nseg" ] && ! grep -q 'damaged' "$out"
		check $? "the listing has the $nseg segments, none damaged"
	fi
fi

say "--- perf record -k mono: the kernel's own clock data"
if ! have_perf; then
	say "$PERF_MISSING: skipped"
else
	kf=$workdir/perf-k.data
	before=$(date +%s)
	if "$PERF" record -q -k mono -e cpu-clock -F 499 -o "$kf" -- "$DEMO" 300 >/dev/null \
		2>"$workdir/perf-k.err"; then
		after=$(($(date +%s) + 1))
		run pall -q --folded -i "$kf"
		all=$(folded_total "$out")
		[ "$all" -gt 0 ]
		check $? "perf -k mono: preport reads $all samples"
		count "perf -k mono: --since and --until around the recording keep all $all" "$all" \
			-i "$kf" --since "@$before" --until "@$after"
		count "perf -k mono: --until before the recording keeps none" 0 \
			-i "$kf" --until "@$((before - 1))"
		count "perf -k mono: --since after the recording keeps none" 0 \
			-i "$kf" --since "@$((after + 1))"
		run pkhdr --header-only -i "$kf"
		grep -E '^# (clockid|reference time)' "$out" >"$workdir/k.ours"
		if "$PERF" report --header-only -i "$kf" 2>/dev/null |
			grep -E '^# (clockid|reference time)' >"$workdir/k.perf"; then
			n=$(join_lines <"$workdir/k.ours")
			cmp -s "$workdir/k.ours" "$workdir/k.perf"
			check $? "perf -k mono: --header-only prints the clock as perf does: $n"
		else
			say "perf report --header-only failed: header comparison skipped"
		fi
	else
		say "perf record -k mono failed ($(lines "$workdir/perf-k.err" 1)): skipped"
	fi
fi

finish
