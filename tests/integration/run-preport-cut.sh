#!/bin/sh
# SPDX-License-Identifier: MIT
# preport's warning for a recording that was cut short, on write-stream's synthetic streams
# of the demo (400 samples 1 ms apart from time 0.001 s; no perf_event_open needed):
#   - a precord stream (VERSION "precord ...") that ends with the end marker: preport and
#     preport -D say nothing on stderr;
#   - the same without the marker (--cut), compressed and plain, from a file and from
#     standard input: one warning line, "ends 0.399 s after the first sample (at 0.400000
#     on the perf clock)"; the report is still printed in full (hot_a 75%);
#   - with use_clockid and a CLOCK_DATA feature tying the clock to the wall clock: the line
#     gives the date and time of the end (TZ=UTC);
#   - without any sample: the line says it holds no timed sample;
#   - a stream without precord's VERSION (as perf writes) and without the marker: no warning;
#   - --header-only does not read the records and says nothing;
#   - the cut stream converted to perf's file form (precord convert): no warning.
. "$(dirname "$0")/test-lib.sh"

PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
need_file "$PREPORT" preport
need_file "$PRECORD" precord
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"
TZ=UTC
export TZ

# stream NAME WRITE-STREAM-OPTIONS...: $workdir/NAME.data of 300 hot_a and 100 hot_b samples.
stream() {
	_n=$1
	shift
	"$WRITE_STREAM" -o "$workdir/$_n.data" "$@" "$DEMO" hot_a:300 hot_b:100 ||
		fail "write-stream $* failed"
}

# run LABEL PREPORT-ARGS...: preport's stdout in $out, stderr in $err, status in $rc.
run() {
	_l=$1
	shift
	out=$workdir/$_l.out
	err=$workdir/$_l.err
	"$PREPORT" "$@" >"$out" 2>"$err"
	rc=$?
}

# quiet LABEL: the last run exited 0 and said nothing on stderr.
quiet() {
	if [ "$rc" -eq 0 ] && [ ! -s "$err" ]; then
		ok "$1: exit 0, nothing on stderr"
	else
		bad "$1: exit $rc, stderr: $(lines "$err" 3)"
	fi
}

# warned LABEL TEXT: the last run exited 0 with one line on stderr: the cut warning with TEXT.
warned() {
	if [ "$rc" -eq 0 ] && [ "$(grep -c . "$err")" -eq 1 ] &&
		grep -q "^preport: warning: .* was cut short (no end marker): $2; $why\$" "$err"; then
		ok "$1: one line: $(cat "$err")"
	else
		bad "$1: exit $rc, want one line with '$2': $(lines "$err" 3)"
	fi
}

# a recording still being written lacks its marker too: that is one of the causes given
why="the recorder was killed, its disk filled up, or it is still recording"
rel="it ends 0.399 s after the first sample (at 0.400000 on the perf clock)"

stream ended --precord
run ended -i "$workdir/ended.data"
quiet "ended with the marker: report"
run ended-D -D -i "$workdir/ended.data"
quiet "ended with the marker: -D"

for mode in compressed plain; do
	if [ "$mode" = plain ]; then opt=--no-compress; else opt=--level=1; fi
	stream "cut-$mode" --precord --cut "$opt"
	f=$workdir/cut-$mode.data
	run "cut-$mode" -i "$f" --no-children --sort sym
	warned "$mode, cut: report" "$rel"
	if grep -q '75.00%.*hot_a' "$out"; then
		ok "$mode, cut: the report is printed in full (hot_a 75.00%)"
	else
		bad "$mode, cut: no 'hot_a 75.00%' line: $(lines "$out" 3)"
	fi
	run "cut-$mode-D" -D -i "$f"
	warned "$mode, cut: -D" "$rel"
	"$PREPORT" -i - <"$f" >"$workdir/stdin.out" 2>"$workdir/stdin.err"
	rc=$?
	err=$workdir/stdin.err
	warned "$mode, cut: from standard input" "$rel"
	if grep -q "standard input was cut short" "$err"; then
		ok "$mode, cut: standard input is named so"
	else
		bad "$mode, cut: the warning does not name standard input: $(lines "$err")"
	fi
done

stream clock --precord --cut --clock-data 1795000000000000000
run clock -i "$workdir/clock.data"
warned "cut, CLOCK_DATA" \
	"it ends at 2026-11-18 11:06:40.400 UTC, 0.399 s after the first sample"

"$WRITE_STREAM" -o "$workdir/nosamples.data" --precord --cut "$DEMO" hot_a:0 ||
	fail "write-stream without samples failed"
run nosamples -D -i "$workdir/nosamples.data"
if [ "$rc" -eq 0 ] && [ "$(grep -c . "$err")" -eq 1 ] &&
	grep -q "was cut short (no end marker); it holds no timed sample; " "$err"; then
	ok "cut, no samples: one line: $(cat "$err")"
else
	bad "cut, no samples: exit $rc: $(lines "$err" 3)"
fi

stream notours --cut
run notours -i "$workdir/notours.data"
quiet "no precord VERSION, no marker (as perf's streams)"

run header-only --header-only -i "$workdir/cut-plain.data"
quiet "cut, --header-only"

"$PRECORD" convert -q -i "$workdir/cut-plain.data" -o "$workdir/converted.data" \
	2>"$workdir/convert.err"
run converted -i "$workdir/converted.data"
quiet "cut, then converted to the file form"

finish
