#!/bin/sh
# SPDX-License-Identifier: MIT
# preport never shows another file's symbols for a map without a build-id: the file found at
# the recorded path must be the recorded device and inode (and generation, where known).
#
# Synthetic recordings (tests/tools/write-stream: MMAP2 records in inode form, no build-id)
# of a copy of the demo workload, reported after the copy was
#   - left alone: its functions (hot_a, hot_b);
#   - replaced by another program of the same name: one row, [unknown], and the header's
#     "Not symbolized" line says "file changed since recording";
#   - the same, with --symfs holding the original: its functions (a --symfs file is trusted);
#   - recorded under "PATH (deleted)" with another program at PATH: [unknown], "file deleted
#     while mapped";
#   - recorded with another inode generation than the file's (where the file system has
#     generations, read with lsattr -v): [unknown]; with the file's own: its functions;
#   - recorded with the build-id flag set over device and inode, as a kernel bug writes them:
#     its functions (read as device and inode, not as a build-id).
# Then, where perf_event_open is allowed, real recordings of a running copy that is replaced
# afterwards: `precord -p PID` (maps read from /proc) and `perf record -o -` (perf's pipe
# form has no build-ids): [unknown], never the new program's functions.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"
# shellcheck source=tests/integration/record-lib.sh
. "$(dirname "$0")/record-lib.sh"

need_file "$PREPORT" preport
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"
OTHER=$top_builddir/tests/workloads/deep
need_file "$OTHER" "the deep workload"

# report NAME ARGS...: preport --stdio --no-children --sort sym ARGS into $workdir/NAME.out
# and .err; sets rc, out, err, rows (the symbol column of each row, one per line).
report() {
	_name=$1
	shift
	out=$workdir/$_name.out
	err=$workdir/$_name.err
	"$PREPORT" --stdio --no-children --sort sym "$@" >"$out" 2>"$err"
	rc=$?
	rows=$(sed -n 's/^ *[0-9.]*%  *\[.\] //p' "$out" | sed 's/ *$//')
}

# expect_rows LABEL WANT: preport exited 0 and its rows' symbols, joined by spaces, are WANT.
expect_rows() {
	_got=$(printf '%s\n' "$rows" | join_lines)
	if [ "$rc" -ne 0 ]; then
		bad "$1: preport exited $rc: $(lines "$err" 3)"
	elif [ "$_got" = "$2" ]; then
		ok "$1: rows are $2"
	else
		bad "$1: rows are '$_got', want '$2'; stderr: $(lines "$err" 3)"
	fi
}

# expect_reason LABEL TEXT: the header's "Not symbolized" line gives TEXT as the reason.
expect_reason() {
	if grep -q "^# Not symbolized: .*($2)" "$out"; then
		ok "$1: the header says '$2'"
	else
		bad "$1: no '# Not symbolized: ... ($2)' line: $(grep '^# Not symbolized' "$out")"
	fi
}

# ---- synthetic recordings ----

app=$workdir/app
cp "$DEMO" "$app" || fail "cannot copy the demo workload"
"$WRITE_STREAM" -o "$workdir/plain.data" "$app" hot_a:30 hot_b:10 ||
	fail "write-stream failed on $app"
report plain -i "$workdir/plain.data"
expect_rows "unchanged file" "hot_a | hot_b"

# a symfs tree with the original at the recorded path, for later
mkdir -p "$workdir/symfs$workdir" && cp "$DEMO" "$workdir/symfs$app"

# another program of the same name: a new inode at the path
cp "$OTHER" "$app.new" && mv "$app.new" "$app"
report replaced -i "$workdir/plain.data"
expect_rows "replaced file" "[unknown]"
expect_reason "replaced file" "file changed since recording"
report symfs -i "$workdir/plain.data" --symfs "$workdir/symfs"
expect_rows "replaced file, original under --symfs" "hot_a | hot_b"

# recorded as deleted; the program now at the old name is another one
rm -f "$app"
cp "$DEMO" "$workdir/gone"
"$WRITE_STREAM" -o "$workdir/deleted.data" --map-name "$app (deleted)" "$workdir/gone" \
	hot_a:30 hot_b:10 || fail "write-stream --map-name failed"
cp "$OTHER" "$app"
report deleted -i "$workdir/deleted.data"
expect_rows "deleted file, another at its old name" "[unknown]"
expect_reason "deleted file, another at its old name" "file deleted while mapped"

# the inode generation, where the file system keeps one
cp "$DEMO" "$workdir/gen"
gen=$(lsattr -v "$workdir/gen" 2>/dev/null | awk '{ print $1 }')
case $gen in
'' | *[!0-9]*)
	say "no inode generation here (lsattr -v: '$gen'): generation checks skipped"
	;;
*)
	if [ "$gen" -ne 0 ]; then
		"$WRITE_STREAM" -o "$workdir/gen-ok.data" --ino-gen "$gen" "$workdir/gen" \
			hot_a:30 hot_b:10 || fail "write-stream --ino-gen failed"
		report gen-ok -i "$workdir/gen-ok.data"
		expect_rows "the file's own generation ($gen)" "hot_a | hot_b"
	fi
	other_gen=$(((gen + 1) % 4294967296))
	[ "$other_gen" -ne 0 ] || other_gen=1
	"$WRITE_STREAM" -o "$workdir/gen-bad.data" --ino-gen "$other_gen" "$workdir/gen" \
		hot_a:30 hot_b:10 || fail "write-stream --ino-gen failed"
	report gen-bad -i "$workdir/gen-bad.data"
	expect_rows "another generation ($other_gen, the file has $gen)" "[unknown]"
	expect_reason "another generation" "file changed since recording"
	;;
esac

# the kernel bug: build-id flag over device and inode
cp "$DEMO" "$workdir/bug"
"$WRITE_STREAM" -o "$workdir/bug.data" --kernel-bug "$workdir/bug" hot_a:30 hot_b:10 ||
	fail "write-stream --kernel-bug failed"
report bug -i "$workdir/bug.data"
expect_rows "build-id flag over device and inode" "hot_a | hot_b"

# ---- real recordings, where the kernel lets us ----

live=$workdir/live/app
mkdir -p "$workdir/live" && cp "$DEMO" "$live"
if ! have_perf || ! probe_perf_event; then
	say "live recordings skipped: ${PERF_MISSING:-${PERF_REFUSED:-}}"
	finish
fi

# replace_live: the program at $live becomes another one (a new inode)
replace_live() { cp "$OTHER" "$live.new" && mv "$live.new" "$live"; }

# has_hot_a LABEL: the last report's rows include hot_a; else the recording has no sample
# in it to check (a starved workload), which is said and the case skipped (status 1).
has_hot_a() {
	if printf '%s\n' "$rows" | grep -q '^hot_a$'; then
		ok "$1: hot_a before the file is replaced"
		return 0
	fi
	say "$1: no sample in hot_a (rows: $(printf '%s\n' "$rows" | join_lines)); skipped"
	return 1
}

# precord -p: the maps come from /proc/PID/maps, read once the workload runs the program
cp "$DEMO" "$live"
"$live" 5000 &
pid=$!
i=0
while [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" != "$live" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$PRECORD" -q -e cpu-clock -F 499 -p "$pid" --duration 2 -o "$workdir/attach.data" \
	>/dev/null 2>"$workdir/attach.rec.err"
prc=$?
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ "$prc" -ne 0 ]; then
	bad "precord -p exited $prc: $(lines "$workdir/attach.rec.err" 2)"
else
	report attach-before -i "$workdir/attach.data" --comms app --dsos app
	if has_hot_a "precord -p"; then
		replace_live
		report attach-after -i "$workdir/attach.data" --comms app --dsos app
		expect_rows "precord -p, file replaced" "[unknown]"
	fi
fi

# perf's pipe form carries no build-ids
cp "$DEMO" "$live"
if "$PERF" record -q -e "$PERF_EVENT" -F 499 -o - -- "$live" 500 >"$workdir/perf.data" \
	2>"$workdir/perf.rec.err"; then
	report perf-before -i "$workdir/perf.data" --dsos app
	if has_hot_a "perf pipe file"; then
		replace_live
		report perf-after -i "$workdir/perf.data" --dsos app
		expect_rows "perf pipe file, file replaced" "[unknown]"
		expect_reason "perf pipe file, file replaced" "file changed since recording"
	fi
else
	say "perf record failed (perf's own trouble on this kernel?): $(lines "$workdir/perf.rec.err" 2)"
fi
finish
