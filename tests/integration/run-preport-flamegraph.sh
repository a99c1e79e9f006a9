#!/bin/sh
# SPDX-License-Identifier: MIT
# preport --flamegraph over the golden recordings (tests/data/golden, with their --symfs and
# --kallsyms, so nothing is recorded): each SVG, drawn and inverted (-G), is well-formed XML
# and its frames add up to the same run's --folded counts (flamegraph-check.py says how);
# kernel symbols with hostile names (markup, quotes, "]]>", "</script>", invalid UTF-8,
# U+FFFE, a control character) leave the SVG well-formed and come out as their names; the
# subtitle says which filters left samples out and how many samples are drawn of all (on a
# line of their own when too long to follow it); the
# output is 0600 and a symlink in its place is not followed; bad uses get one line and a
# non-zero exit.  The browser's side is run-preport-flamegraph-browser.sh.
# shellcheck disable=SC2154 # top_srcdir and workdir come from test-lib.sh

. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it reads the SVG)"
G=$top_srcdir/tests/data/golden
CHECK=$top_srcdir/tests/integration/flamegraph-check.py
XDG_CACHE_HOME=$workdir/xdg-cache
export XDG_CACHE_HOME
unset PREPORT_TIMES


# flame REC KALLSYMS NAME [CHECK-ARGS...]: the folded stacks and both flame graphs of REC,
# checked
flame() {
	_rec=$1
	_ks=$2
	_out=$workdir/$3
	shift 3
	golden_preport "$_rec" "$_ks" --folded >"$_out.folded" 2>"$_out.folded.err" ||
		{ bad "$_rec: --folded failed: $(lines "$_out.folded.err")"; return; }
	for _inv in "" -G; do
		_svg=$_out$_inv.svg
		if ! golden_preport "$_rec" "$_ks" $_inv --flamegraph "$_svg" >"$_svg.out" \
			2>"$_svg.err"; then
			bad "$_rec $_inv: --flamegraph failed: $(lines "$_svg.err")"
			continue
		fi
		[ ! -s "$_svg.out" ] && [ ! -s "$_svg.err" ]
		check $? "$_rec $_inv: nothing on stdout or stderr $(lines "$_svg.err")"
		if python3 "$CHECK" "$_svg" "$_out.folded" ${_inv:+--inverted} "$@" \
			>"$_svg.check" 2>&1; then
			ok "$_rec $_inv: $(lines "$_svg.check" 1)"
		else
			bad "$_rec $_inv: $(lines "$_svg.check" 4)"
		fi
	done
}

for _data in "$G"/*.data; do
	_rec=$(basename "$_data" .data)
	flame "$_rec" kallsyms "$_rec"
done

# --symbols: only the stacks of samples taken in that function, in the folded stacks and in
# the graph alike (a flame graph once drew every stack whatever the filters)
sf=$workdir/symfilter
golden_preport precord-g kallsyms --symbols 'app::work<unsigned long>' --folded >"$sf.folded" \
	2>"$sf.err" || bad "--symbols --folded failed: $(lines "$sf.err")"
if golden_preport precord-g kallsyms --symbols 'app::work<unsigned long>' --flamegraph "$sf.svg" \
	2>"$sf.err" && python3 "$CHECK" "$sf.svg" "$sf.folded" >"$sf.check" 2>&1; then
	ok "--symbols: the graph is the filtered folded stacks: $(lines "$sf.check" 1)"
else
	bad "--symbols: the graph is not the filtered folded stacks: $(lines "$sf.err") \
$(lines "$sf.check" 4)"
fi
if grep -q 'helper' "$workdir/symfilter.folded"; then
	bad "--symbols: --folded still has another function's stacks: $(lines \
		"$workdir/symfilter.folded")"
elif grep -q 'app::work<unsigned long> ' "$workdir/symfilter.folded"; then
	ok "--symbols: --folded keeps the named function's stacks only"
else
	bad "--symbols: --folded lost the named function: $(lines "$workdir/symfilter.folded")"
fi

# a filter is said in the subtitle, "filtered: OPTIONS; N of M samples", N the samples drawn
# (--folded's with the same filter), M all of them (--folded's without): a graph handed
# around must not pass for the whole recording; without a filter, it says none
subtitle() {
	textof "$1" subtitle
}
samples() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}
# the title says which graph it is: -G draws an icicle of callers, not a flame graph
textof() {
	python3 -c 'import sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text"):
    if t.get("id") == sys.argv[2]:
        print(t.text or "")' "$1" "$2"
}
t=$(textof "$workdir/precord-sys.svg" title)
tg=$(textof "$workdir/precord-sys-G.svg" title)
case $t/$tg in
"Flame graph: "*/"Icicle graph of callers: "*) ok "titles: '$t', with -G '$tg'" ;;
*) bad "titles: '$t', with -G '$tg'" ;;
esac

all=$(samples "$workdir/precord-sys.folded")
sub=$(subtitle "$workdir/precord-sys.svg")
case $sub in
*filtered* | "") bad "no filter: the subtitle is '$sub'" ;;
*) ok "no filter: the subtitle says none: $sub" ;;
esac
# filtered ARGS SAID: the graph with filter ARGS (a word each) says SAID
filtered() {
	_said=$1
	shift
	_f=$workdir/filtered
	if ! golden_preport precord-sys kallsyms "$@" --folded >"$_f.folded" 2>"$_f.err" ||
		! golden_preport precord-sys kallsyms "$@" --flamegraph "$_f.svg" 2>"$_f.err"; then
		bad "$*: preport failed: $(lines "$_f.err")"
		return
	fi
	_n=$(samples "$_f.folded")
	_sub=$(subtitle "$_f.svg")
	case $_sub in
	*" 80 samples, "*"filtered: $_said; $_n of $all samples")
		[ "$_n" -lt "$all" ]
		check $? "$*: $_sub" ;;
	*) bad "$*: the subtitle is '$_sub', not 'filtered: $_said; $_n of $all samples'" ;;
	esac
}
filtered "--comms demo" --comms demo
filtered "--cpu 1" --cpu 1
filtered "--time 695.6,695.8" --time 695.6,695.8
filtered "--symbols hot_a" -S hot_a
filtered "--dsos demo" --dsos demo
filtered "--hide-unresolved" -U
filtered "--comms dd,demo --pid 1,2,3 --cpu 1" --cpu 1 --comms "dd,demo" --pid 1,2,3
filtered "--comms 'x'\\''y'" --comms "x'y"

# filters too long to follow the subtitle have a line of their own under it, whole, and the
# frames move down under it (the graph is still --folded's stacks)
long=demo,$(printf '%0100d' 0)
f=$workdir/long
golden_preport precord-sys kallsyms --comms "$long" --folded >"$f.folded" 2>"$f.err" &&
	golden_preport precord-sys kallsyms --comms "$long" --flamegraph "$f.svg" 2>"$f.err" ||
	bad "--comms $long: preport failed: $(lines "$f.err")"
n=$(samples "$f.folded")
line=$(textof "$f.svg" filters)
[ "$line" = "filtered: --comms $long; $n of $all samples" ]
check $? "long filters: a line of their own: '$line'; the subtitle: '$(subtitle "$f.svg")'"
python3 "$CHECK" "$f.svg" "$f.folded" >"$f.check" 2>&1
check $? "long filters: the graph is the filtered folded stacks: $(lines "$f.check" 4)"

# hostile kernel symbol names in a copy of the golden kallsyms (no ';': folded stacks split
# there)
python3 - "$G/kallsyms" "$workdir/kallsyms" "$workdir/names" <<'PY' ||
import sys
names = {
    b'vfs_write': b'<b>&amp"q\'</b>]]>\xff\xfe',
    b'vfs_read': b'</script><script>alert(1)</script>',
    b'do_syscall_64': b'bad\xc3\x28utf8\xe2\x82&lt\xed\xa0\x80\xf4\x90\x80\x80',
    b'ksys_read': b'\xf0\x9f\x94\xa5fire\xef\xbf\xbe\x01',
}
out = []
for line in open(sys.argv[1], 'rb').read().split(b'\n'):
    f = line.split(b' ')
    if len(f) >= 3 and f[2] in names:
        f[2] = names.pop(f[2])
    out.append(b' '.join(f))
if names:
    sys.exit('not in kallsyms: %r' % list(names))
open(sys.argv[2], 'wb').write(b'\n'.join(out))
open(sys.argv[3], 'wb').write(b'\n'.join([
    b'<b>&amp"q\'</b>]]>\xff\xfe', b'</script><script>alert(1)</script>',
    b'bad\xc3\x28utf8\xe2\x82&lt\xed\xa0\x80\xf4\x90\x80\x80',
    b'\xf0\x9f\x94\xa5fire\xef\xbf\xbe\x01']) + b'\n')
PY
	fail "cannot make the hostile kallsyms"
flame precord-sys "$workdir/kallsyms" hostile --names "$workdir/names"

# no sample left by the filters: a well-formed SVG that says so
golden_preport precord-g kallsyms --comms no-such-command --flamegraph "$workdir/empty.svg" \
	2>"$workdir/empty.err" &&
	python3 "$CHECK" "$workdir/empty.svg" /dev/null >"$workdir/empty.check" 2>&1 &&
	grep -q "No samples to draw" "$workdir/empty.svg"
check $? "no sample passes the filters: $(lines "$workdir/empty.check") $(lines "$workdir/empty.err")"

# the file: 0600, a symlink in its place not followed, bad uses said in one line
svg=$workdir/precord-g.svg
[ "$(stat -c %a "$svg")" = 600 ]
check $? "the SVG is 0600 (it holds recorded names): $(stat -c %a "$svg")"
ln -s "$workdir/target" "$workdir/link.svg"
golden_preport precord-g kallsyms --flamegraph "$workdir/link.svg" >/dev/null 2>"$workdir/link.err"
rc=$?
[ "$rc" = 1 ] && [ ! -e "$workdir/target" ] && [ "$(wc -l <"$workdir/link.err")" = 1 ]
check $? "a symlink at the output is not followed: exit $rc, $(lines "$workdir/link.err")"
golden_preport precord-g kallsyms --flamegraph "$workdir/no/such/dir.svg" >/dev/null \
	2>"$workdir/dir.err"
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$workdir/dir.err")" = 1 ] && grep -q "no/such/dir.svg" "$workdir/dir.err"
check $? "an output that cannot be made: exit $rc, $(lines "$workdir/dir.err")"
golden_preport precord-g kallsyms --folded --flamegraph "$workdir/both.svg" >/dev/null \
	2>"$workdir/both.err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$workdir/both.err")" = 1 ]
check $? "--folded with --flamegraph: exit $rc, $(lines "$workdir/both.err")"
golden_preport no-such-recording kallsyms --flamegraph "$workdir/none.svg" >/dev/null \
	2>"$workdir/none.err"
rc=$?
[ "$rc" != 0 ] && [ ! -e "$workdir/none.svg" ]
check $? "no SVG is left behind when the report fails: exit $rc, $(lines "$workdir/none.err")"
golden_preport precord-g kallsyms --flamegraph - >"$workdir/stdout.svg" 2>"$workdir/stdout.err" &&
	python3 "$CHECK" "$workdir/stdout.svg" "$workdir/precord-g.folded" >/dev/null
check $? "--flamegraph - writes the SVG to stdout $(lines "$workdir/stdout.err")"

finish
