#!/bin/sh
# SPDX-License-Identifier: MIT
# A recording of two events (precord -e cpu-clock,page-faults): --folded and --flamegraph
# show the first event's stacks only, as perf report prints one section per event (summing
# CPU time with page faults is meaningless).  The folded counts add up to the cpu-clock
# samples of -D, the graph is those stacks (flamegraph-check.py), its subtitle names the event
# drawn and says page-faults is not, and stderr has one line naming page-faults for each.
# With --since -3650d (which leaves no sample out) the subtitle gives the time it resolved to
# (a reader of the file later cannot resolve "-3650d") and does not say "filtered".
# Two copies of demo at different paths are told apart in the frames' details (their paths).
# A copy of the recording cut short, and one corrupt, give graphs whose subtitle begins with
# "partial:" and says so (a file handed around must not pass for the whole recording).
# Needs perf_event_open (else SKIP with the kernel's reason) and python3.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"
# shellcheck source=tests/integration/record-lib.sh
. "$(dirname "$0")/record-lib.sh"

need_record demo
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it reads the SVG)"

f=$workdir/two.data
record two -e cpu-clock,page-faults -g -o "$f" -- "$WL/demo" 300
check_status "precord -e cpu-clock,page-faults" "$rec_rc" 0

# the samples of each event, one by one from the raw dump
"$PREPORT" -i "$f" -D >"$workdir/dump" 2>"$workdir/dump.err" ||
	fail "preport -D: $(lines "$workdir/dump.err")"
cpu=$(grep -c ': SAMPLE .* cpu-clock ' "$workdir/dump")
pf=$(grep -c ': SAMPLE .* page-faults ' "$workdir/dump")
[ "$cpu" -gt 0 ] && [ "$pf" -gt 0 ]
check $? "the recording has both events: $cpu cpu-clock and $pf page-faults samples"

"$PREPORT" -i "$f" --folded >"$workdir/folded" 2>"$workdir/folded.err"
check_status "--folded" $? 0 "$workdir/folded.err"
n=$(awk '{ n += $NF } END { print n + 0 }' "$workdir/folded")
[ "$n" = "$cpu" ]
check $? "--folded: $n samples, the $cpu of cpu-clock (not $((cpu + pf)) of both)"
one_line "--folded" "$workdir/folded.err" "page-faults ($pf samples)"

svg=$workdir/two.svg
"$PREPORT" -i "$f" --flamegraph "$svg" 2>"$workdir/svg.err"
check_status "--flamegraph" $? 0 "$workdir/svg.err"
one_line "--flamegraph" "$workdir/svg.err" "page-faults ($pf samples)"
if python3 "$top_srcdir/tests/integration/flamegraph-check.py" "$svg" "$workdir/folded" \
	>"$workdir/check" 2>&1; then
	ok "the graph is --folded's stacks: $(lines "$workdir/check" 1)"
else
	bad "the graph is not --folded's stacks: $(lines "$workdir/check" 4)"
fi
subtitle() {
	python3 -c 'import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text"):
    if t.get("id") == "subtitle":
        print(t.text or "")' "$1"
}
sub=$(subtitle "$svg")
case $sub in
"cpu-clock (page-faults not drawn) · $cpu samples, "*) ok "subtitle: $sub" ;;
*) bad "subtitle: '$sub', not 'cpu-clock (page-faults not drawn) · $cpu samples, ...'" ;;
esac

"$PREPORT" -i "$f" --since -3650d --flamegraph "$workdir/since.svg" 2>"$workdir/since.err"
check_status "--since -3650d --flamegraph" $? 0 "$workdir/since.err"
sub=$(subtitle "$workdir/since.svg")
time="'[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'"
if printf '%s\n' "$sub" | grep -q -v -e filtered -e 3650d &&
	printf '%s\n' "$sub" | grep -q -E " $cpu samples, .* --since $time: no sample left out\$"; then
	ok "--since -3650d: $sub"
else
	bad "--since -3650d: the subtitle is '$sub', not '... --since 'TIME': no sample left out'"
fi

# two copies of demo: their frames' details name each one's path
mkdir -p "$workdir/a" "$workdir/b" && cp "$WL/demo" "$workdir/a/demo" &&
	cp "$WL/demo" "$workdir/b/demo" || fail "cannot copy demo"
f=$workdir/copies.data
record copies -g -o "$f" -- sh -c '"$1/a/demo" 300 & "$1/b/demo" 300; wait' sh "$workdir"
check_status "precord two copies of demo" "$rec_rc" 0
"$PREPORT" -i "$f" --flamegraph "$workdir/copies.svg" 2>"$workdir/copies.err"
check_status "--flamegraph of two copies" $? 0 "$workdir/copies.err"
dsos=$(python3 -c 'import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}title"):
    lines = (t.text or "").split("\n")
    if len(lines) > 1 and lines[1].endswith("/demo"):
        print(lines[1])' "$workdir/copies.svg" | sort -u | tr '\n' ' ')
[ "$dsos" = "$workdir/a/demo $workdir/b/demo " ]
check $? "two copies of demo: the frames' details name '$workdir/a/demo' and \
'$workdir/b/demo': $dsos"

# subtitle_all SVG: the subtitle's text, with its parts (the damage) and the filters' line
subtitle_all() {
	python3 -c 'import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text"):
    if t.get("id") in ("subtitle", "filters"):
        print("".join(t.itertext()))' "$1"
}
size=$(stat -c %s "$f")
head -c $((size - 100)) "$f" >"$workdir/cut.data"
"$PREPORT" -i "$workdir/cut.data" --flamegraph "$workdir/cut.svg" 2>"$workdir/cut.err"
check_status "--flamegraph of a recording cut short" $? 0 "$workdir/cut.err"
sub=$(subtitle_all "$workdir/cut.svg")
# ("cut short at TIME" when a sample before the cut has a time; the whole recording may be
# in the zstd frame the cut falls in, which leaves no sample: once in CI)
case $sub in
"partial: input cut short"*" · cpu-clock · "*) ok "cut short: $sub" ;;
*) bad "cut short: the subtitle is '$sub', not 'partial: input cut short ...'" ;;
esac
# the size of the last record (pipe form: records one after the other from byte 16) made
# 1, smaller than a record's header: corrupt there, the records before it read
python3 - "$f" "$workdir/corrupt.data" <<'PY' || fail "cannot make the corrupt copy"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
offs, o = [], 16
while o + 8 <= len(b):
    offs.append(o)
    o += struct.unpack_from('<H', b, o + 6)[0]
struct.pack_into("<H", b, offs[-1] + 6, 1)
open(sys.argv[2], 'wb').write(b)
PY
"$PREPORT" -i "$workdir/corrupt.data" --flamegraph "$workdir/corrupt.svg" \
	2>"$workdir/corrupt.err"
check_status "--flamegraph of a corrupt recording" $? 1 "$workdir/corrupt.err"
sub=$(subtitle_all "$workdir/corrupt.svg")
case $sub in
"partial: input corrupt: "*" · cpu-clock · "*) ok "corrupt: $sub" ;;
*) bad "corrupt: the subtitle is '$sub', not 'partial: input corrupt: ...'" ;;
esac
finish
