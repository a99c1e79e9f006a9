#!/bin/sh
# SPDX-License-Identifier: MIT
# Compatibility: OUR reader reads PERF's files.
#
# Records tests/workloads/demo (300 ms) with perf record in six forms: file, pipe (-o - >
# file), -z, -z -m 4 (a small ring: several COMPRESSED records, which perf may cut in the
# middle of a record), -g and pipe with -z.  For each recording, preport -D must exit 0 with
# nothing about an error or a truncation on stderr, print as many record lines as its TOTAL,
# and count exactly what perf counts.
#
# How perf counts (perf 6.1, `perf report --stats`, "Aggregated stats"): every record it
# reads, each once, under perf's type names, which preport uses too: kernel records, the
# records perf writes itself (FINISHED_ROUND, FINISHED_INIT, ID_INDEX, THREAD_MAP, CPU_MAP,
# EVENT_UPDATE, and in pipe form ATTR and FEATURE, the end-of-features marker included), and
# for compression both each COMPRESSED record and every record decompressed from it.  TOTAL
# is the sum; types with no record are not printed.  The file form's header attrs and feature
# sections are not records and are counted by neither.  So no type needs mapping, and preport
# must count no type that perf does not print.  For pipe form with -z, perf 6.1's --stats
# fails ("Couldn't decompress data"), so perf report -D's identical totals are used (see
# perf_stats in test-lib.sh).
#
# Also: preport reads the pipe-form recordings from standard input (redirected and through a
# pipe) with the same output as from the file, and perf's view of the demo profile is checked
# loosely (hot_a 65-85%, hot_b 15-35%) to keep the workload honest.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_perf
need_file "$DEMO" "the demo workload"
need_file "$PREPORT" preport
perf_event

# record NAME PERF-RECORD-OPTIONS...: NAME.data in the work directory.
record() {
	_name=$1
	shift
	case " $* " in
	*" -o - "*) "$PERF" record -e "$PERF_EVENT" "$@" -- "$DEMO" 300 >"$workdir/$_name.data" \
		2>"$workdir/$_name.rec.err" ;;
	*) "$PERF" record -e "$PERF_EVENT" -o "$workdir/$_name.data" "$@" -- "$DEMO" 300 \
		>/dev/null 2>"$workdir/$_name.rec.err" ;;
	esac
	_rc=$?
	if [ "$_rc" -ne 0 ] || [ ! -s "$workdir/$_name.data" ]; then
		bad "$_name: perf record $* failed (status $_rc): $(lines "$workdir/$_name.rec.err")"
		return 1
	fi
	ok "$_name: perf record -e $PERF_EVENT${*:+ $*} wrote $(wc -c <"$workdir/$_name.data") bytes"
}

# check_dump LABEL DUMP ERR STATUS: preport -D ran cleanly and is consistent with itself.
check_dump() {
	if [ "$4" -eq 0 ]; then ok "$1: preport -D exits 0"; else bad "$1: preport -D exits $4"; fi
	if grep -E -i 'error|truncated' "$3" >/dev/null; then
		bad "$1: preport -D stderr: $(lines "$3")"
	else
		ok "$1: no error or truncation reported"
	fi
	_lines=$(grep -c '^0x' "$2")
	_total=$(sed -n 's/^ *TOTAL: *\([0-9][0-9]*\)$/\1/p' "$2")
	if [ "$_lines" = "${_total:-x}" ]; then
		ok "$1: $_lines record lines = TOTAL"
	else
		bad "$1: $_lines record lines, TOTAL says ${_total:-nothing}"
	fi
}

# same_as_file LABEL DATA SUFFIX STATUS: DATA.SUFFIX (the dump read from standard input) is
# DATA.dump, with a clean exit and nothing on stderr.
same_as_file() {
	if [ "$4" -eq 0 ] && [ ! -s "$2.$3.err" ] && cmp -s "$2.dump" "$2.$3"; then
		ok "$1 prints the same as from the file"
	else
		bad "$1: status $4, stderr '$(lines "$2.$3.err" 1)'," \
			"$(cmp "$2.dump" "$2.$3" 2>&1 | head -n 1)"
	fi
}

for spec in "f:" "p:-o -" "z:-z" "zm:-z -m 4" "g:-g" "pz:-z -o -"; do
	name=${spec%%:*}
	opts=${spec#*:}
	data=$workdir/$name.data
	say "--- $name: perf record${opts:+ $opts}"
	# shellcheck disable=SC2086 # $opts are separate words on purpose
	record "$name" $opts || continue

	"$PREPORT" -D -i "$data" >"$data.dump" 2>"$data.dump.err"
	check_dump "$name" "$data.dump" "$data.dump.err" $?

	if perf_stats "$data" "$data.perf" >"$data.perf.msg"; then
		cat "$data.perf.msg"
		preport_counts "$data.dump" "$data.ours"
		compare_counts "$data.perf" "$data.ours" "$name"
	else
		bad "$name: $(cat "$data.perf.msg")"
	fi

	case $name in
	p*)
		"$PREPORT" -D -i - <"$data" >"$data.stdin" 2>"$data.stdin.err"
		same_as_file "$name: preport -D -i - < FILE" "$data" stdin $?
		# shellcheck disable=SC2002 # a real pipe, not a redirected file
		cat "$data" | "$PREPORT" -D -i - >"$data.pipe" 2>"$data.pipe.err"
		same_as_file "$name: cat FILE | preport -D -i -" "$data" pipe $?
		;;
	esac
done

# The demo workload's profile as perf sees it (loose bounds: a sampling profile of 300 ms).
if [ -s "$workdir/f.data" ]; then
	rep=$workdir/f.rep
	"$PERF" report -i "$workdir/f.data" --stdio --sort sym >"$rep" 2>/dev/null
	for spec in hot_a:65:85 hot_b:15:35; do
		sym=${spec%%:*}
		lo=${spec#*:}
		hi=${lo#*:}
		lo=${lo%:*}
		got=$(awk -v s="$sym" '$1 ~ /%$/ && $NF == s { sub(/%/, "", $1); print $1; exit }' "$rep")
		if [ -n "$got" ] &&
			awk -v g="$got" -v l="$lo" -v h="$hi" 'BEGIN { exit !(g >= l && g <= h) }'; then
			ok "demo profile: $sym $got% (want $lo..$hi%)"
		else
			bad "demo profile: $sym ${got:-absent}% (want $lo..$hi%)"
		fi
	done
fi

finish
