#!/bin/sh
# SPDX-License-Identifier: MIT
# precord convert: recordings rewritten as perf.data files that the tools which read nothing
# else take.  perf 6.1's annotate and diff crash on compressed streams, diff refuses pipe
# streams, buildid-list fails on them, and hotspot's perfparser (Debian's 1.3, built without
# zstd) reads 0 samples from a compressed stream.  For each converted file:
#   - perf report -D counts as many SAMPLE records as preport -D counts in the input;
#   - perf annotate --stdio annotates a sampled function (exit 0, its name and 'Percent');
#   - hotspot-perfparser --print-stats reads that many samples (skipped without hotspot);
#   - perf diff of two converted files exits 0 and lists hot_a;
#   - preport's report of it is the report of the input, byte for byte.
# Inputs: write-stream's synthetic streams of the demo (compressed and plain; these need no
# perf_event_open) and, where the kernel lets us record, precord's own recording (its
# build-id for the demo is listed by perf buildid-list), one of precord killed by SIGKILL
# (converted, with one warning that it was cut short) and perf's own 'record -z -o -'.
# Also: a cut input (converted up to the cut, one warning), garbage and empty input (exit 1,
# one line, nothing written), an output that is a symlink (refused, its target untouched),
# an existing output (kept as .old), and the mode of what is written (0600).
. "$(dirname "$0")/test-lib.sh"

need_perf
PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
need_file "$PRECORD" precord
need_file "$PREPORT" preport
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"
PARSER=
for _p in /usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser \
	$(dpkg -L hotspot 2>/dev/null | grep '/hotspot-perfparser$'); do
	[ -x "$_p" ] && PARSER=$_p && break
done
[ -n "$PARSER" ] || say "hotspot-perfparser not installed (Debian: hotspot): its checks are skipped"

# convert LABEL IN OUT: precord convert -i IN -o OUT; stderr in OUT.err, status in $conv_rc.
convert() {
	"$PRECORD" convert -i "$2" -o "$3" >"$3.out" 2>"$3.err"
	conv_rc=$?
}

# preport_samples IN: the SAMPLE records preport -D counts in IN.
preport_samples() {
	"$PREPORT" -D -i "$1" 2>/dev/null | grep -c ': SAMPLE '
}

# converted LABEL IN OUT: the conversion exited 0, printed its summary as its last line, and
# OUT is a perf.data file of mode 600.
converted() {
	if [ "$conv_rc" -eq 0 ] && tail -n 1 "$3.err" | grep -q '^precord convert: wrote '; then
		ok "$1: convert exits 0: $(tail -n 1 "$3.err")"
	else
		bad "$1: convert exits $conv_rc: $(lines "$3.err" 3)"
		return 1
	fi
	_mode=$(stat -c %a "$3")
	if [ "$_mode" = 600 ] && [ "$(head -c 8 "$3")" = PERFILE2 ]; then
		ok "$1: a perf.data file of mode $_mode"
	else
		bad "$1: mode $_mode, magic '$(head -c 8 "$3")'"
	fi
	"$PREPORT" -i "$2" --no-children --sort sym >"$3.in.rep" 2>/dev/null
	"$PREPORT" -i "$3" --no-children --sort sym >"$3.rep" 2>/dev/null
	if cmp -s "$3.in.rep" "$3.rep" && grep -q hot_a "$3.rep"; then
		ok "$1: preport reports the same of both files"
	else
		_d=$(diff "$3.in.rep" "$3.rep" | sed -n 2,3p | join_lines)
		bad "$1: preport's reports differ: $_d"
	fi
}

# tools_read LABEL OUT WANT SYM: perf and hotspot read WANT samples of OUT, perf annotates SYM.
tools_read() {
	if perf_stats "$2" "$2.stats" >"$2.stats.msg"; then
		_n=$(awk '$1 == "SAMPLE" { print $2 }' "$2.stats")
		if [ "${_n:-0}" -eq "$3" ]; then
			ok "$1: perf reads $_n samples, as preport in the input"
		else
			bad "$1: perf reads ${_n:-no} samples, preport $3 in the input"
		fi
	else
		bad "$1: $(cat "$2.stats.msg")"
	fi
	# a recording killed early on a very busy machine may hold no sample yet
	[ "$3" -gt 0 ] || say "$1: no samples, perf annotate not tried"
	if [ "$3" -gt 0 ]; then
		"$PERF" annotate --stdio -i "$2" "$4" >"$2.ann" 2>"$2.ann.err"
		_rc=$?
		if [ "$_rc" -eq 0 ] && grep -q Percent "$2.ann" && grep -q "<$4>:" "$2.ann"; then
			ok "$1: perf annotate shows $4 ($(grep -c . "$2.ann") lines)"
		else
			bad "$1: perf annotate $4 exits $_rc: $(lines "$2.ann.err" 2) |" \
				"$(lines "$2.ann" 2)"
		fi
	fi
	[ -n "$PARSER" ] || return 0
	"$PARSER" --input "$2" --print-stats >"$2.pp" 2>&1
	_rc=$?
	_n=$(sed -n 's/^samples: *\([0-9]*\)$/\1/p' "$2.pp" | head -n 1)
	if [ "$_rc" -eq 0 ] && [ "${_n:-0}" -eq "$3" ]; then
		ok "$1: hotspot-perfparser reads $_n samples"
	else
		bad "$1: perfparser exits $_rc, ${_n:-no} samples, want $3: $(lines "$2.pp" 3)"
	fi
}

# diff_ok LABEL A B: perf diff A B exits 0 and lists hot_a.
diff_ok() {
	"$PERF" diff "$2" "$3" >"$2.diff" 2>"$2.diff.err"
	_rc=$?
	if [ "$_rc" -eq 0 ] && grep -q 'hot_a' "$2.diff"; then
		ok "$1: perf diff exits 0 and lists hot_a"
	else
		bad "$1: perf diff exits $_rc: $(lines "$2.diff.err" 2)"
	fi
}

# ---- synthetic streams: no perf_event_open needed ----
for mode in compressed plain; do
	in=$workdir/ws-$mode.data
	if [ "$mode" = compressed ]; then opt="--level=1"; else opt=--no-compress; fi
	"$WRITE_STREAM" -o "$in" "$opt" "$DEMO" hot_a:300 hot_b:100 || fail "write-stream failed"
	say "--- write-stream, $mode"
	convert "$mode" "$in" "$in.perf"
	converted "$mode" "$in" "$in.perf" && tools_read "$mode" "$in.perf" 400 hot_a
done
diff_ok "write-stream" "$workdir/ws-compressed.data.perf" "$workdir/ws-plain.data.perf"

# ---- what precord and perf record ----
if probe_perf_event; then
	say "--- precord -g, compressed"
	rec=$workdir/rec.data
	"$PRECORD" -q -e cpu-clock -F 2000 -g -o "$rec" -- "$DEMO" 500 2>"$rec.err" ||
		bad "precord failed: $(lines "$rec.err")"
	convert "precord" "$rec" "$rec.perf"
	if converted "precord" "$rec" "$rec.perf"; then
		tools_read "precord" "$rec.perf" "$(preport_samples "$rec")" hot_a
		diff_ok "precord" "$rec.perf" "$workdir/ws-plain.data.perf"
		bid=$(readelf -n "$DEMO" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
		"$PERF" buildid-list -i "$rec.perf" >"$rec.bid" 2>"$rec.bid.err"
		if [ -z "$bid" ]; then
			say "the demo has no build-id note: buildid-list not checked"
		elif grep -q "^$bid .*/demo$" "$rec.bid"; then
			ok "precord: perf buildid-list lists the demo's build-id $bid"
		else
			bad "precord: buildid-list lacks '$bid .../demo': $(lines "$rec.bid" 4)"
		fi
	fi

	say "--- precord killed by SIGKILL"
	kf=$workdir/killed.data
	"$PRECORD" -q -e cpu-clock -F 2000 -g --flush-interval 100 -o "$kf" -- "$DEMO" 3000 \
		2>/dev/null &
	pp=$!
	sleep 1
	kill -s KILL "$pp"
	wait "$pp"
	convert "killed" "$kf" "$kf.perf"
	converted "killed" "$kf" "$kf.perf"
	_want="^precord convert: warning: .* was cut short (no end marker)"
	if [ "$(grep -c . "$kf.perf.err")" -eq 2 ] && grep -q "$_want" "$kf.perf.err"; then
		ok "killed: one warning: $(head -n 1 "$kf.perf.err")"
	else
		bad "killed: want a 'cut short' warning and the summary: $(lines "$kf.perf.err" 3)"
	fi
	tools_read "killed" "$kf.perf" "$(preport_samples "$kf")" hot_a

	say "--- perf record -z -o - (perf's compressed pipe stream)"
	pz=$workdir/perf-z.data
	if "$PERF" record -q -z -e "$PERF_EVENT" -g -o - -- "$DEMO" 500 >"$pz" 2>"$pz.err"; then
		convert "perf -z pipe" "$pz" "$pz.perf"
		converted "perf -z pipe" "$pz" "$pz.perf" &&
			tools_read "perf -z pipe" "$pz.perf" "$(preport_samples "$pz")" hot_a
	else
		bad "perf record -z -o - failed: $(lines "$pz.err")"
	fi
else
	say "recording skipped: $PERF_REFUSED"
fi

# ---- a cut input, bad input ----
say "--- input cut short, and bad input"
# the plain stream: the compressed one is a single COMPRESSED record, that a cut empties
in=$workdir/ws-plain.data
size=$(wc -c <"$in")
cut=$workdir/cut.data
head -c $((size * 2 / 3)) "$in" >"$cut"
convert "cut" "$cut" "$cut.perf"
converted "cut" "$cut" "$cut.perf"
if [ "$(grep -c . "$cut.perf.err")" -eq 2 ] && grep -q "warning: .*truncated" "$cut.perf.err"; then
	ok "cut: one warning: $(head -n 1 "$cut.perf.err")"
else
	bad "cut: want one 'truncated' warning and the summary: $(lines "$cut.perf.err" 3)"
fi
n=$(preport_samples "$cut")
[ "$n" -gt 0 ] || bad "cut: preport reads no samples in the cut input"
tools_read "cut" "$cut.perf" "$n" hot_a

# bad_input LABEL FILE: exit 1, one line on stderr, no output left behind.
bad_input() {
	_o=$workdir/bad.perf
	convert "$1" "$2" "$_o"
	if [ "$conv_rc" -eq 1 ] && [ "$(grep -c . "$_o.err")" -eq 1 ]; then
		ok "$1: exit 1, one line: $(cat "$_o.err")"
	else
		bad "$1: exit $conv_rc, want 1 and one line: $(lines "$_o.err" 3)"
	fi
	if ls "$workdir"/bad.perf?* 2>/dev/null | grep -v '\.\(out\|err\)$' >/dev/null ||
		[ -e "$_o" ]; then
		bad "$1: an output was left behind: $(ls "$workdir" | grep bad.perf | join_lines)"
	else
		ok "$1: no output left behind"
	fi
}
printf 'not a recording at all\n' >"$workdir/garbage.data"
bad_input "garbage" "$workdir/garbage.data"
: >"$workdir/empty.data"
bad_input "empty file" "$workdir/empty.data"
bad_input "missing file" "$workdir/no-such.data"

# ---- where the output goes ----
say "--- the output"
echo "keep me" >"$workdir/target"
ln -s "$workdir/target" "$workdir/link.perf"
convert "symlink output" "$in" "$workdir/link.perf"
if [ "$conv_rc" -eq 1 ] && [ "$(cat "$workdir/target")" = "keep me" ] &&
	[ -L "$workdir/link.perf" ]; then
	ok "symlink output: refused, target untouched: $(cat "$workdir/link.perf.err")"
else
	bad "symlink output: exit $conv_rc, target now '$(head -c 20 "$workdir/target")'"
fi
o=$workdir/twice.perf
convert "first" "$in" "$o"
cp "$o" "$workdir/first.copy"
convert "second" "$workdir/ws-compressed.data" "$o"
if [ "$conv_rc" -eq 0 ] && cmp -s "$o.old" "$workdir/first.copy" && ! cmp -s "$o" "$o.old"; then
	ok "existing output: kept as $(basename "$o").old"
else
	bad "existing output: exit $conv_rc; the earlier file is not $(basename "$o").old"
fi
"$PRECORD" convert -i "$in" -o - >/dev/null 2>"$workdir/stdout.err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(grep -c . "$workdir/stdout.err")" -eq 1 ]; then
	ok "-o -: refused with one line: $(cat "$workdir/stdout.err")"
else
	bad "-o -: exit $rc: $(lines "$workdir/stdout.err")"
fi
# an unknown option: one line naming it (getopt's own message came first, before)
"$PRECORD" convert --bogus -i "$in" >/dev/null 2>"$workdir/opt.err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(grep -c . "$workdir/opt.err")" -eq 1 ] &&
	grep -q "'--bogus'" "$workdir/opt.err"; then
	ok "unknown option: one line: $(cat "$workdir/opt.err")"
else
	bad "unknown option: exit $rc, want 2 and one line naming it: $(lines "$workdir/opt.err")"
fi

finish
