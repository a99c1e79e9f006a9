#!/bin/sh
# SPDX-License-Identifier: MIT
# preport on bad input: one line on stderr and a non-zero exit, never a crash.
#
# Errors (exit 1, exactly one stderr line that is not a warning): a missing file, an empty
# file, empty standard input, random bytes, "PERFILE2" followed by random bytes, a directory,
# a byte-swapped magic (the line must say "byte order"), a perf.data cut inside its header.
# Usage errors (exit 2, one line): unknown long and short options, -i without its argument,
# -g fractal,count, -g ...,address and a -g print limit (perf's, which preport does not do);
# --kallsyms with a missing, random, empty file or a directory.  Errors on standard input
# name it so.  Words: one malformed sample is "1 malformed sample"; --time takes -D's times
# (ns) in seconds, and --help says so.
# Truncation (exit 0, only warnings on stderr, one of them saying "truncated", and exactly
# the records that lie wholly before the cut printed): perf's file form cut in the data
# section and in the feature section, and our pipe stream (zstd and plain) cut at several
# offsets, inside COMPRESSED records too.
# Robustness: copies of those files with bytes overwritten at seeded random places exit 0 or
# 1 (never >= 128), with the same stderr rules and no sanitizer report; SIGBUS (a mapped
# file cut short meanwhile) is one line and exit 1.
#
# The perf.data file comes from perf record (cpu-clock) when perf is installed and allowed
# to record; without it those cases are skipped with a note and the rest still runs.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"

# random_bytes SEED COUNT: deterministic pseudo-random bytes on stdout.
random_bytes() {
	# shellcheck disable=SC2059 # the format is made of octal escapes on purpose
	printf "$(awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed)
		for (i = 0; i < n; i++) printf "\\%03o", int(rand() * 256) }')"
}

# mutate IN OUT SEED COUNT: OUT is IN with COUNT bytes overwritten at seeded random offsets.
mutate() {
	cp "$1" "$2"
	_size=$(wc -c <"$1")
	awk -v seed="$3" -v n="$4" -v size="$_size" 'BEGIN { srand(seed)
		for (i = 0; i < n; i++) printf "%d %03o\n", int(rand() * size), int(rand() * 256) }' |
		while read -r _pos _byte; do
			# shellcheck disable=SC2059 # an octal escape
			printf "\\$_byte" | dd of="$2" bs=1 seek="$_pos" conv=notrunc 2>/dev/null
		done
}

# run NAME ARGS...: preport ARGS with stdin from $stdin (default /dev/null; reset after the
# call); sets rc, out, err.
stdin=
run() {
	_name=$1
	shift
	out=$workdir/$_name.out
	err=$workdir/$_name.err
	"$PREPORT" "$@" <"${stdin:-/dev/null}" >"$out" 2>"$err"
	rc=$?
	stdin=
}

# not_warnings: the number of stderr lines that are not warnings; errlines: those lines.
not_warnings() { grep -v '^preport: warning: ' "$err" | grep -c .; }
errlines() { grep -v '^preport: warning: ' "$err" | join_lines; }

# no_crash LABEL: exit status below 128 and no sanitizer report.
no_crash() {
	if [ "$rc" -ge 128 ]; then
		bad "$1: preport crashed (status $rc): $(lines "$err" 3)"
		return 1
	fi
	if grep -E -q 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
		bad "$1: sanitizer report: $(grep -E 'Sanitizer|runtime error:' "$err" | head -n 1)"
		return 1
	fi
	return 0
}

# expect_error LABEL STATUS [PATTERN]: the last run failed with STATUS and one stderr line
# (matching the extended regex PATTERN, case-insensitively, if given).
expect_error() {
	no_crash "$1" || return
	_n=$(not_warnings)
	if [ "$rc" -ne "$2" ]; then
		bad "$1: exit status $rc, want $2; stderr: $(lines "$err")"
	elif [ "$_n" -ne 1 ]; then
		bad "$1: $_n stderr lines, want one: $(errlines)"
	elif [ -n "${3:-}" ] && ! errlines | grep -E -i -q "$3"; then
		bad "$1: the error does not say /$3/: $(errlines)"
	else
		ok "$1: exit $rc, one line: $(errlines)"
	fi
}

# record_keys DUMP: "OFFSET [SIZE]: TYPE" of each record line of a preport -D output.
record_keys() { awk '/^0x[0-9a-f]+(\+0x[0-9a-f]+)? \[0x[0-9a-f]+\]: / { print $1, $2, $3 }' "$1"; }

# records_before CUT DUMP: the keys of the records of a complete DUMP that lie wholly before
# byte CUT (a record decompressed from a COMPRESSED record: when that record does).
records_before() {
	record_keys "$2" | awk -v cut="$1" '
		function hex(s,  v, i) {
			s = tolower(s); sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		{
			split($1, o, "+"); size = substr($2, 2, length($2) - 3)
			if (o[2] == "") { end[o[1]] = hex(o[1]) + hex(size); e = end[o[1]] }
			else e = end[o[1]]
			if (e > cut) exit
			print
		}'
}

# expect_truncated LABEL FULL_DUMP CUT: the last run read a file cut at CUT.
expect_truncated() {
	no_crash "$1" || return
	if [ "$rc" -ne 0 ]; then
		bad "$1: exit status $rc, want 0; stderr: $(lines "$err")"
		return
	fi
	if [ "$(not_warnings)" -ne 0 ] || ! grep -q 'truncated' "$err"; then
		bad "$1: want only warnings on stderr, one saying 'truncated': $(lines "$err" 4)"
		return
	fi
	records_before "$3" "$2" >"$out.want"
	record_keys "$out" >"$out.got"
	_want=$(grep -c . "$out.want")
	_got=$(grep -c . "$out.got")
	if cmp -s "$out.want" "$out.got"; then
		_warn=$(grep truncated "$err" | head -n 1 | sed 's/^preport: warning: //')
		ok "$1: exit 0, warns '$_warn', prints the $_got records before the cut"
	else
		bad "$1: printed $_got records, want the $_want before the cut" \
			"(first difference: $(diff "$out.want" "$out.got" | sed -n 2p))"
	fi
}

# expect_robust LABEL: the last run (on damaged input) ended cleanly either way.
expect_robust() {
	no_crash "$1" || return
	_n=$(not_warnings)
	case $rc in
	0) [ "$_n" -eq 0 ] && ok "$1: exit 0" && return ;;
	1) [ "$_n" -eq 1 ] && ok "$1: exit 1, one line: $(errlines)" && return ;;
	esac
	bad "$1: exit $rc with $_n non-warning stderr lines: $(errlines)"
}

# ---- inputs ----
say "--- inputs"
# All inputs live in $workdir; the loops below go over their names.
"$WRITE_STREAM" -o "$workdir/stream.data" "$DEMO" hot_a:300 hot_b:100 || fail "write-stream failed"
"$WRITE_STREAM" -o "$workdir/plain.data" --no-compress "$DEMO" hot_a:300 hot_b:100 ||
	fail "write-stream failed"
ok "our streams: stream.data $(wc -c <"$workdir/stream.data") bytes (zstd)," \
	"plain.data $(wc -c <"$workdir/plain.data") bytes"

perf_file=
if ! have_perf; then
	say "note: $PERF_MISSING; perf.data cases skipped"
elif ! probe_perf_event; then
	say "note: $PERF_REFUSED; perf.data cases skipped"
elif ! "$PERF" record -q -e "$PERF_EVENT" -o "$workdir/perf.data" -- "$DEMO" 100 >/dev/null \
	2>"$workdir/rec.err"; then
	say "note: perf record failed, perf.data cases skipped: $(head -n 1 "$workdir/rec.err")"
else
	perf_file=perf.data
	ok "perf.data (file form): $(wc -c <"$workdir/perf.data") bytes from perf record -e $PERF_EVENT"
fi

for f in stream.data plain.data $perf_file; do
	run "full-$f" -D -i "$workdir/$f"
	if [ "$rc" -ne 0 ] || [ -s "$err" ]; then
		fail "preport -D cannot read the intact $f (status $rc): $(head -n 1 "$err")"
	fi
	cp "$out" "$workdir/$f.dump"
done

# ---- filters that leave nothing ----
# perf record -a adds a tracking event (dummy) that has no samples: a filter that leaves no
# sample prints the sampled event's empty report ("# Samples: 0"), as for a one-event file.
if [ -n "$perf_file" ]; then
	say "--- filters that leave no sample (perf record -a: the event and perf's dummy)"
	if ! "$PERF" record -q -a -e "$PERF_EVENT" -o "$workdir/perf-a.data" -- "$DEMO" 100 \
		>/dev/null 2>"$workdir/rec-a.err"; then
		say "note: perf record -a failed, not checked: $(head -n 1 "$workdir/rec-a.err")"
	else
		for filter in "--cpu 4095" "--time 1000000,1000001"; do
			# shellcheck disable=SC2086 # an option and its value
			run empty-filter -i "$workdir/perf-a.data" --no-children $filter
			if [ "$rc" -eq 0 ] && grep -q "^# Samples: 0  *of event '$PERF_EVENT" "$out" &&
				grep -q '^# Overhead' "$out" && ! grep -q dummy "$out"; then
				ok "perf -a file, $filter: the empty report of '$PERF_EVENT'"
			else
				bad "perf -a file, $filter: exit $rc, not the empty report:" \
					"$(join_lines <"$out") / $(lines "$err" 2)"
			fi
		done
	fi
fi

# ---- plain errors ----
say "--- errors"
run missing -D -i "$workdir/does-not-exist"
expect_error "missing file" 1 'does-not-exist'

: >"$workdir/empty"
run empty -D -i "$workdir/empty"
expect_error "empty file" 1

stdin=$workdir/empty
run empty-stdin -D -i -
expect_error "empty standard input" 1 "cannot read standard input:"

for seed in 1 2 3; do
	random_bytes "$seed" 4096 >"$workdir/random$seed"
	run "random$seed" -D -i "$workdir/random$seed"
	expect_error "4096 random bytes (seed $seed)" 1
done
random_bytes 4 10 >"$workdir/random-short"
run random-short -D -i "$workdir/random-short"
expect_error "10 random bytes" 1

{ printf 'PERFILE2'; random_bytes 5 4096; } >"$workdir/magic-random"
run magic-random -D -i "$workdir/magic-random"
expect_error "magic followed by random bytes" 1

run directory -D -i "$workdir"
expect_error "a directory" 1

# On disk the magic "PERFILE2" of the other byte order reads "2ELIFREP".
for f in stream.data $perf_file; do
	{ printf '2ELIFREP'; tail -c +9 "$workdir/$f"; } >"$workdir/$f.swapped"
	run swapped -D -i "$workdir/$f.swapped"
	expect_error "byte-swapped magic ($f)" 1 'byte order'
	stdin=$workdir/$f.swapped
	run swapped-stdin -D -i -
	expect_error "byte-swapped magic ($f, stdin)" 1 "standard input:.*byte order"
done

# a recording cut right after its 16-byte pipe header (its recorder killed as it began)
head -c 16 "$workdir/stream.data" >"$workdir/header-only.data"
for view in --stdio --folded; do
	run header-only -i "$workdir/header-only.data" "$view"
	expect_error "header only, $view" 1 "holds no event, nothing to report"
done

run bad-long --no-such-option
expect_error "unknown option --no-such-option" 2
run bad-short -Z
expect_error "unknown option -Z" 2
run no-arg -D -i
expect_error "-i without a file" 2
run cg-word -i "$workdir/stream.data" -g nosuch
expect_error "-g nosuch" 2 "unknown call graph spec 'nosuch' for -g; give a mode"
# call-graph settings of perf's that preport does not do are refused, never ignored
run cg-fractal -i "$workdir/stream.data" -g fractal,count
expect_error "-g fractal,count" 2 'fractal shows percentages only'
run cg-address -i "$workdir/stream.data" -g graph,0.5,caller,address
expect_error "-g ...,address" 2 'address key.*not supported'
run cg-limit -i "$workdir/stream.data" -g graph,0.5,10,caller
expect_error "-g with a print limit" 2 'print limit.*not supported'
# --kallsyms FILE that cannot serve is refused before anything is read (perf: "Invalid file")
run kallsyms-missing -i "$workdir/stream.data" --kallsyms "$workdir/does-not-exist"
expect_error "--kallsyms missing file" 2 "does-not-exist' cannot be read"
run kallsyms-random -i "$workdir/stream.data" --kallsyms "$workdir/random1"
expect_error "--kallsyms random bytes" 2 "random1' is not a kallsyms file"
run kallsyms-empty -i "$workdir/stream.data" --kallsyms "$workdir/empty"
expect_error "--kallsyms empty file" 2 "empty' is empty"
run kallsyms-dir -i "$workdir/stream.data" --kallsyms "$workdir"
expect_error "--kallsyms a directory" 2 "is not a regular file"
printf 'ffffffff81000000 T _text\nffffffff81000100 T some_function\n' >"$workdir/kallsyms"
run kallsyms-ok -i "$workdir/stream.data" --kallsyms "$workdir/kallsyms"
if [ "$rc" -eq 0 ] && [ ! -s "$err" ]; then
	ok "--kallsyms with a kallsyms file: exit 0, nothing on stderr"
else
	bad "--kallsyms with a kallsyms file: exit $rc: $(lines "$err")"
fi

# ---- small things said right ----
say "--- words"
# one sample whose call chain claims 4096 entries: "1 malformed sample skipped"
"$WRITE_STREAM" -o "$workdir/chain.data" --no-compress --caller main "$DEMO" hot_a:30 main:0 ||
	fail "write-stream --caller failed"
run chain-D -D -i "$workdir/chain.data"
first=$(grep -m 1 ': SAMPLE .* callchain 3$' "$out" | cut -d' ' -f1)
if [ -z "$first" ]; then
	bad "no SAMPLE with a call chain of 3 in -D of chain.data: $(lines "$out")"
else
	# after the header, ip, pid/tid, time and period: the chain's u64 count (little-endian)
	cp "$workdir/chain.data" "$workdir/chain-bad.data"
	printf '\000\020\000\000\000\000\000\000' |
		dd of="$workdir/chain-bad.data" bs=1 seek=$((first + 40)) conv=notrunc 2>/dev/null
	run chain-bad -i "$workdir/chain-bad.data" --no-children
	if [ "$rc" -eq 0 ] && [ "$(cat "$err")" = "preport: warning: 1 malformed sample skipped" ]
	then
		ok "one malformed sample: '$(cat "$err")'"
	else
		bad "one malformed sample: exit $rc, want one line '1 malformed sample skipped':" \
			"$(lines "$err" 3)"
	fi
fi
# --time takes seconds; -D shows the times in ns: the window around one sample's time / 1e9
# holds that sample alone (write-stream's samples are 1 ms apart)
t=$(grep -m 10 ': SAMPLE ' "$workdir/stream.data.dump" | tail -n 1 |
	sed 's/.* time \([0-9]*\) .*/\1/')
win=$(awk -v t="$t" 'BEGIN { printf "%.6f,%.6f", (t - 100000) / 1e9, (t + 100000) / 1e9 }')
run time-window -i "$workdir/stream.data" --no-children --time "$win"
if [ "$rc" -eq 0 ] && grep -q "^# Samples: 1 " "$out"; then
	ok "--time $win (the 10th sample's time $t ns from -D, in seconds): one sample"
else
	bad "--time $win (-D's time $t ns): exit $rc, not one sample:" \
		"$(grep '^# Samples' "$out") $(lines "$err")"
fi
"$PREPORT" --help >"$workdir/help.out" 2>&1
if grep -q -e '--time START,END .*seconds; -D shows ns' "$workdir/help.out"; then
	ok "--help: --time is in seconds, -D shows ns"
else
	bad "--help does not say --time is in seconds and -D's times in ns:" \
		"$(grep -e '--time' "$workdir/help.out")"
fi

# ---- truncation ----
say "--- truncation"
# cut NAME N: $workdir/NAME.cutN holds the first N bytes of $workdir/NAME.
cut() { head -c "$2" "$workdir/$1" >"$workdir/$1.cut$2"; }

if [ -n "$perf_file" ]; then
	# perf_file_header: u64 data.offset at byte 40, data.size at 48.
	# shellcheck disable=SC2046 # two numbers
	set -- $(od -An -t u8 -j 40 -N 16 "$workdir/$perf_file")
	doff=$1
	dsize=$2
	dend=$((doff + dsize))
	say "perf.data: data section $doff..$dend of $(wc -c <"$workdir/$perf_file") bytes"
	for n in 8 50 103 120 $((doff - 1)); do
		cut "$perf_file" "$n"
		run "pcut$n" -D -i "$workdir/$perf_file.cut$n"
		expect_error "perf.data cut at $n (in the header)" 1
	done
	for n in $((doff + 4)) $((doff + 100)) $((doff + dsize / 2)) $((dend - 3)) $((dend + 20)); do
		cut "$perf_file" "$n"
		run "pcut$n" -D -i "$workdir/$perf_file.cut$n"
		expect_truncated "perf.data cut at $n" "$workdir/$perf_file.dump" "$n"
	done
fi

for f in stream.data plain.data; do
	size=$(wc -c <"$workdir/$f")
	for n in 4 15; do
		cut "$f" "$n"
		run "scut$n" -D -i "$workdir/$f.cut$n"
		expect_error "$f cut at $n (in the pipe header)" 1
	done
	# Every 7th part of the stream: record headers, ATTR, FEATUREs, COMPRESSED payloads.
	# A cut exactly between two records leaves a shorter but complete stream, so a cut that
	# falls on a record boundary moves one byte on (where the fractions fall depends on the
	# sizes, which depend on the build directory's path written into the stream).
	"$PREPORT" -D -i "$workdir/$f" 2>/dev/null |
		sed -n 's/^0x\([0-9a-f]*\) \[0x\([0-9a-f]*\)\]:.*/\1 \2/p' |
		while read -r o l; do echo $((0x$o)) $((0x$o + 0x$l)); done | tr ' ' '\n' |
		sort -un >"$workdir/$f.bounds"
	for n in 20 100 $((size / 7)) $((size * 2 / 7)) $((size * 3 / 7)) $((size * 4 / 7)) \
		$((size * 5 / 7)) $((size * 6 / 7)) $((size - 1)); do
		while grep -qx "$n" "$workdir/$f.bounds"; do n=$((n + 1)); done
		cut "$f" "$n"
		run "scut$n" -D -i "$workdir/$f.cut$n"
		expect_truncated "$f cut at $n of $size" "$workdir/$f.dump" "$n"
		stdin=$workdir/$f.cut$n
		run "scut$n-stdin" -D -i -
		expect_truncated "$f cut at $n of $size (stdin)" "$workdir/$f.dump" "$n"
	done
done

# ---- a file cut short while mapped ----
# Reading a mapped file (the input, or a binary for its symbols) that another program cuts
# short raises SIGBUS: one line and exit 1, not death by the signal.  Sent here while preport
# waits on a FIFO for its standard input, the one point where the timing is certain.
say "--- SIGBUS"
mkfifo "$workdir/fifo"
"$PREPORT" -i - <"$workdir/fifo" >"$workdir/bus.out" 2>"$workdir/bus.err" &
bus_pid=$!
exec 9>"$workdir/fifo" # a writer that sends nothing: preport blocks reading
sleep 1
kill -BUS "$bus_pid"
wait "$bus_pid"
rc=$?
exec 9>&-
err=$workdir/bus.err
expect_error "SIGBUS while reading" 1 'truncated meanwhile'

# ---- damaged files ----
say "--- damaged files (bytes overwritten at seeded random offsets)"
for f in stream.data plain.data $perf_file; do
	for seed in 1 2 3 4 5 6 7 8; do
		mutate "$workdir/$f" "$workdir/$f.bad$seed" "$seed" 16
		run "bad$seed" -D -i "$workdir/$f.bad$seed"
		expect_robust "$f with 16 bytes overwritten (seed $seed)"
	done
done

finish
