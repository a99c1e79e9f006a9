#!/bin/sh
# SPDX-License-Identifier: MIT
# `precord -a` beside other profilers, and the build-ids it records (issue 17, item 8).
#
# With attr.build_id on its events, the kernel marks the mmap event it shares with every other
# listener as carrying a build-id and leaves the mark on: while such a `precord -a` ran, a
# `perf record -- cmd` aborted ("assertion failed at util/build-id.c", stack smashing) and
# perf's pipe output held MMAP2 records flagged as build-ids that were device and inode.
# precord now takes build-ids from the ELF notes in user space.  Checked here:
#   neighbours  while `precord -a -e cpu-clock -g` runs, `perf record -e cpu-clock -g` of the
#               demo, file form and pipe form: perf exits 0, no MMAP2 record of its files
#               carries the build-id flag (preport -D), and perf report names hot_a
#   own file    precord's file has no flagged MMAP2 either; one BUILD_ID record (pid -1)
#               for the demo, which perf ran twice, with the build-id readelf -n reads, and
#               one for demo-bid, a process that ran before precord started (its maps were
#               synthesized from /proc), with the build-id it was linked with, ahead of its
#               first MMAP2; preport reads the file and preport and perf report name
#               demo-bid's hot_a
#   rebuilt     `precord -- DIR/demo` with DIR/demo a copy of demo-bid: perf report and
#               preport name hot_a; after DIR/demo is replaced by the demo (same code, another
#               build-id) neither does (perf shows addresses: it honours the record)
# A host where another program samples system-wide with attr.build_id (perf record
# --buildid-mmap, a precord older than this one) marks perf's records whatever precord does.
# So perf's own recording is checked before and after, and the processes of the host are
# watched while precord runs: when perf's side fails and that recording is marked too, or
# another system-wide precord or a --buildid-mmap recorder ran meanwhile, the test skips,
# naming the cause.  Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo demo-bid
DEMO=$WL/demo
DEMOBID=$WL/demo-bid
BID_HEX=707265636f72642d6275696c642d69642d746573 # tests/workloads/demo-bid's, Makefile.am

# dump FILE: preport -D of FILE into FILE.D; 0 when preport read it cleanly (a file still
# being written has no end marker yet: that warning is no fault).
dump() {
	"$PREPORT" -D -i "$1" >"$1.D" 2>"$1.D.err" &&
		! grep -v -F 'was cut short (no end marker)' "$1.D.err" | grep -q .
}

# flagged FILE: how many MMAP2 records of FILE (dumped by dump) carry the build-id flag.
flagged() {
	grep -c ': MMAP2 .* build-id ' "$1.D"
}

# marked_host: perf's own recording of the demo has flagged MMAP2 records (some program on
# the host samples with attr.build_id).  Sets $why.
marked_host() {
	_f=$workdir/probe-$1.data
	"$PERF" record -q -e cpu-clock -o - -- "$DEMO" 50 >"$_f" 2>"$_f.err"
	dump "$_f" || fail "preport cannot read perf's pipe output $_f: $(lines "$_f.D.err")"
	_n=$(flagged "$_f")
	why="another program on this host samples with attr.build_id (perf record"
	why="$why --buildid-mmap, or an older precord): $_n MMAP2 records of perf's own"
	why="$why recording ($1 precord ran) carry the kernel's build-id flag, whatever precord does"
	[ "$_n" -gt 0 ]
}

marked_host before && skip "$why"

# watch_foreign: every 0.2 s, the other processes that may sample system-wide with
# attr.build_id (precord -a / -C, anything with --buildid-mmap), one "PID COMMAND" a line
# on standard output.  Runs until killed.
watch_foreign() {
	while :; do
		for _c in $(grep -a -l -z -x -e -a -e -C -e --buildid-mmap \
			/proc/[0-9]*/cmdline 2>/dev/null); do
			_p=${_c#/proc/}
			_p=${_p%/cmdline}
			[ "$_p" = "${rec_pid:-}" ] && continue
			_a=$(tr '\0' ' ' <"$_c" 2>/dev/null)
			case "$(cat "/proc/$_p/comm" 2>/dev/null) $_a" in
			precord*|*--buildid-mmap*) echo "$_p $_a" ;;
			esac
		done
		sleep 0.2
	done
}

# ---- a process that runs before precord starts: its maps are synthesized ----
start_bg "$DEMOBID" 60000
demobid_pid=$bg_pid
i=0
while [ "$(readlink "/proc/$demobid_pid/exe" 2>/dev/null)" != "$DEMOBID" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(readlink "/proc/$demobid_pid/exe")" = "$DEMOBID" ] || fail "demo-bid did not start"

say "--- precord -a -e cpu-clock -g in the background"
all=$workdir/all.data
"$PRECORD" -a -e cpu-clock -g -o "$all" >"$workdir/all.out" 2>"$workdir/all.err" &
rec_pid=$!
watch_foreign >"$workdir/foreign" 2>/dev/null &
watch_pid=$!
bg_pids="$bg_pids $watch_pid"
# running once its file holds a sample: header and synthesized state written, events enabled
i=0
while ! { dump "$all" && grep -q ': SAMPLE ' "$all.D"; } && [ $i -lt 600 ]; do
	kill -0 "$rec_pid" 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
if ! grep -q ': SAMPLE ' "$all.D" 2>/dev/null; then
	kill "$rec_pid" 2>/dev/null
	wait "$rec_pid"
	fail "precord -a wrote no sample: $(lines "$workdir/all.err" 3)"
fi

# ---- perf beside it ----
# perf_beside LABEL FILE PERF-OUTPUT...: perf record of the demo, into FILE.
perf_beside() {
	_l=$1
	_f=$2
	shift 2
	say "--- $_l: perf record -e cpu-clock -g $* -- demo 300"
	"$PERF" record -e cpu-clock -g "$@" -- "$DEMO" 300 >"$_f.out" 2>"$_f.err"
	_rc=$?
	[ "$1" = "-o" ] && [ "$2" = "-" ] && mv "$_f.out" "$_f"
	if [ "$_rc" -eq 0 ]; then
		ok "$_l: perf record exits 0"
	else
		bad "$_l: perf record exits $_rc: $(grep . "$_f.err" | tail -n 3 | join_lines)"
	fi
}
bad_before=$nr_bad
perf_beside "perf file form" "$workdir/perf-file.data" -o "$workdir/perf-file.data"
perf_beside "perf pipe form" "$workdir/perf-pipe.data" -o -

kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
stop_bg "$watch_pid"
stop_bg "$demobid_pid"

# perf's files: readable, no flagged MMAP2, hot_a named
for form in file pipe; do
	f=$workdir/perf-$form.data
	if ! dump "$f"; then
		bad "perf $form form: preport -D cannot read it: $(lines "$f.D.err")"
		continue
	fi
	n=$(flagged "$f")
	m=$(grep -c ': MMAP2 ' "$f.D")
	if [ "$n" -eq 0 ] && [ "$m" -gt 0 ]; then
		ok "perf $form form: none of its $m MMAP2 records carries the build-id flag"
	else
		bad "perf $form form: $n of its $m MMAP2 records carry the build-id flag:" \
			"$(grep ': MMAP2 .* build-id ' "$f.D" | head -n 1)"
	fi
	perf_report "perf $form form" "$f" sym "$f.rep"
	check_share_min "perf $form form" "$f.rep" hot_a 50
done
if [ "$nr_bad" -gt "$bad_before" ]; then
	marked_host after && skip "$why"
	if [ -s "$workdir/foreign" ]; then
		skip "perf's side failed while another system-wide profiler ran on this host, which" \
			"may sample with attr.build_id and mark perf's records whatever precord does:" \
			"$(sort -u "$workdir/foreign" | head -n 3 | join_lines)"
	fi
fi

# ---- precord's own file ----
say "--- precord -a's file"
if [ "$rc" -eq 0 ]; then
	ok "precord -a: exit status 0"
else
	bad "precord -a: exit status $rc: $(lines "$workdir/all.err" 3)"
fi
preport_reads "precord -a" "$all"
n=$(flagged "$all")
if [ "$n" -eq 0 ]; then
	ok "precord -a: no MMAP2 record carries the build-id flag"
else
	bad "precord -a: $n MMAP2 records carry the build-id flag"
fi

# build_id_lines PATH: the BUILD_ID records of PATH in the dump, as "LINE BUILD-ID".
build_id_lines() {
	awk -v p="$1" '$3 == "BUILD_ID" && $NF == p { print NR, $(NF - 1), $5 }' "$all.dump"
}
want=$(readelf -n "$DEMO" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
build_id_lines "$DEMO" >"$workdir/demo.bids"
if [ "$(grep -c . "$workdir/demo.bids")" -eq 1 ] &&
	[ "$(cut -d' ' -f3 "$workdir/demo.bids")" = -1 ] &&
	{ [ -z "$want" ] || [ "$(cut -d' ' -f2 "$workdir/demo.bids")" = "$want" ]; }; then
	ok "precord -a: one BUILD_ID record for the demo (run twice), pid -1, build-id" \
		"${want:-(no readelf to compare with)} $(cut -d' ' -f2 "$workdir/demo.bids")"
else
	bad "precord -a: want one BUILD_ID record of pid -1 with build-id ${want:-?} for $DEMO," \
		"got: $(join_lines <"$workdir/demo.bids")"
fi
build_id_lines "$DEMOBID" >"$workdir/demobid.bids"
first_map=$(awk -v p="$DEMOBID" '$3 == "MMAP2" && $NF == p || $3 == "MMAP2" &&
	$(NF - 2) == p { print NR; exit }' "$all.dump")
if [ "$(grep -c . "$workdir/demobid.bids")" -eq 1 ] &&
	[ "$(cut -d' ' -f2 "$workdir/demobid.bids")" = "$BID_HEX" ] &&
	[ -n "$first_map" ] && [ "$(cut -d' ' -f1 "$workdir/demobid.bids")" -lt "$first_map" ]; then
	ok "precord -a: the synthesized maps of demo-bid have its build-id $BID_HEX, ahead of them"
else
	bad "precord -a: want one BUILD_ID record $BID_HEX for $DEMOBID before its first MMAP2" \
		"(line ${first_map:-none}), got: $(join_lines <"$workdir/demobid.bids")"
fi
perf_report "precord -a" "$all" dso,sym "$all.rep"
check_share_min "precord -a" "$all.rep" hot_a 0.01 demo-bid
"$PREPORT" -i "$all" --no-children -g none --sort dso,sym >"$all.prep" 2>"$all.prep.err"
rc=$?
if [ "$rc" -eq 0 ] && awk '$NF == "hot_a" && $0 ~ /demo-bid/ { f = 1 } END { exit !f }' "$all.prep"
then
	ok "precord -a: preport names demo-bid's hot_a"
else
	bad "precord -a: preport exits $rc without demo-bid's hot_a: $(lines "$all.prep.err")"
fi

# ---- a binary rebuilt after the recording ----
say "--- precord -- DIR/demo, DIR/demo rebuilt afterwards"
{ mkdir "$workdir/bin" && cp "$DEMOBID" "$workdir/bin/demo"; } || fail "cannot copy demo-bid"
rb=$workdir/rebuilt.data
record rebuilt -q -e cpu-clock -F 4000 -o "$rb" -- "$workdir/bin/demo" 300
check_status "precord -- DIR/demo" "$rec_rc" 0
perf_report "before the rebuild" "$rb" sym "$rb.rep1"
check_share_min "before the rebuild" "$rb.rep1" hot_a 50
{ cp "$DEMO" "$workdir/bin/demo.new" && mv -f "$workdir/bin/demo.new" "$workdir/bin/demo"; } ||
	fail "cannot replace DIR/demo"
# perf's build-id cache may hold demo-bid from this test's perf runs: an empty one here, so
# that only the file on disk can answer, as on a machine that never recorded it
home=$HOME
HOME=$workdir/home-empty
mkdir -p "$HOME"
perf_report "after the rebuild" "$rb" sym "$rb.rep2"
HOME=$home
share_verdict "after the rebuild" "perf report: hot_a" "$(share "$rb.rep2" hot_a)" "g == 0" \
	"0: the file's build-id is not the recording's"
"$PREPORT" -i "$rb" >"$rb.prep" 2>"$rb.prep.err"
if ! grep -qw hot_a "$rb.prep" && grep -q 'build-id mismatch' "$rb.prep"; then
	ok "after the rebuild: preport names no hot_a and says 'build-id mismatch'"
else
	bad "after the rebuild: preport:" \
		"$(grep -w -e hot_a -e mismatch "$rb.prep" | head -n 2 | join_lines)"
fi

finish
