#!/bin/sh
# SPDX-License-Identifier: MIT
# Compatibility: Linux perf reads OUR stream.
#
# tests/tools/write-stream writes a pipe-form stream (lib/data's writer) of 300 samples in
# hot_a and 100 in hot_b of tests/workloads/demo, zstd level 1 and uncompressed.  For each:
#   - perf report --stdio --sort sym shows hot_a 75% and hot_b 25% (+-1 point), names the
#     event from EVENT_DESC, and prints no decompression or processing error;
#   - the same from standard input (perf report -i - < FILE);
#   - perf script shows 400 samples, 300 in hot_a and 100 in hot_b;
#   - perf's record counts (report --stats) say 400 SAMPLEs and equal preport -D's counts.
# Needs perf (skips without it), not perf_event_open.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_perf
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"
need_file "$PREPORT" preport

# check_report LABEL OUT ERR STATUS: the --sort sym report of 300 hot_a + 100 hot_b samples.
check_report() {
	if [ "$4" -eq 0 ]; then ok "$1: perf report exits 0"; else bad "$1: perf report exits $4"; fi
	if grep -E -i "couldn't decompress|failed|error" "$3" >"$3.bad"; then
		bad "$1: perf report complains: $(lines "$3.bad")"
	else
		ok "$1: no decompression or processing error on stderr"
	fi
	for _s in hot_a:75 hot_b:25; do
		_sym=${_s%:*}
		_want=${_s#*:}
		_got=$(awk -v s="$_sym" '$1 ~ /%$/ && $NF == s { sub(/%/, "", $1); print $1; exit }' "$2")
		if [ -z "$_got" ]; then
			bad "$1: $_sym is not in the report"
		elif awk -v g="$_got" -v w="$_want" 'BEGIN { d = g - w; exit !(d <= 1 && d >= -1) }'; then
			ok "$1: $_sym $_got% (want $_want% +-1)"
		else
			bad "$1: $_sym $_got%, want $_want% +-1"
		fi
	done
	if grep -q "^# Samples: 400 *of event 'cpu-clock'" "$2"; then
		ok "$1: 400 samples of event 'cpu-clock' (name from EVENT_DESC)"
	else
		bad "$1: header line is '$(grep '^# Samples' "$2")', want 400 samples of 'cpu-clock'"
	fi
}

for mode in compressed uncompressed; do
	out=$workdir/$mode.data
	if [ "$mode" = compressed ]; then
		opts="--level 1"
	else
		opts="--no-compress"
	fi
	say "--- $mode stream: write-stream $opts demo hot_a:300 hot_b:100"
	# shellcheck disable=SC2086 # $opts is two words on purpose
	if ! "$WRITE_STREAM" -o "$out" $opts "$DEMO" hot_a:300 hot_b:100; then
		bad "$mode: write-stream failed"
		continue
	fi
	ok "$mode: write-stream wrote $(wc -c <"$out") bytes"

	"$PERF" report -i "$out" --stdio --sort sym >"$out.rep" 2>"$out.rep.err"
	check_report "$mode, file" "$out.rep" "$out.rep.err" $?

	"$PERF" report -i - --stdio --sort sym <"$out" >"$out.stdin" 2>"$out.stdin.err"
	check_report "$mode, stdin" "$out.stdin" "$out.stdin.err" $?

	"$PERF" script -F ip,sym -i "$out" >"$out.script" 2>"$out.script.err"
	rc=$?
	n_all=$(grep -c . "$out.script")
	n_a=$(awk '$2 == "hot_a"' "$out.script" | grep -c .)
	n_b=$(awk '$2 == "hot_b"' "$out.script" | grep -c .)
	if [ "$rc" -eq 0 ] && [ "$n_all" -eq 400 ] && [ "$n_a" -eq 300 ] && [ "$n_b" -eq 100 ]; then
		ok "$mode: perf script: 400 samples, 300 hot_a, 100 hot_b"
	else
		bad "$mode: perf script (status $rc): $n_all samples, $n_a hot_a, $n_b hot_b; want 400, 300, 100"
	fi

	if perf_stats "$out" "$out.stats" >"$out.stats.msg"; then
		cat "$out.stats.msg"
		n=$(awk '$1 == "SAMPLE" { print $2 }' "$out.stats")
		if [ "$n" = 400 ]; then
			ok "$mode: perf counts 400 SAMPLE records"
		else
			bad "$mode: perf counts ${n:-no} SAMPLE records, want 400"
		fi
		"$PREPORT" -D -i "$out" >"$out.dump" 2>"$out.dump.err"
		check $? "$mode: preport -D reads our stream"
		preport_counts "$out.dump" "$out.ours"
		compare_counts "$out.stats" "$out.ours" "$mode: record count"
	else
		bad "$mode: $(cat "$out.stats.msg")"
	fi
done

finish
