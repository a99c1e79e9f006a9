#!/bin/sh
# SPDX-License-Identifier: MIT
# --inline names C++ inlined frames as perf does, by the demangled linkage name, and keeps
# different functions apart: a C++ program (built here with c++ -O2 -g) spends its time in
# two always_inline templates of one DWARF name, app::mix<T> and other::mix<T>, about half
# each.  preport --inline --sort sym must show "app::mix<unsigned long> (inlined)" and
# "other::mix<unsigned long> (inlined)" as two rows of at least 10% each (not one row named
# by DWARF's "mix<long unsigned int>"), the same names in the call graph, and with
# --no-demangle the linkage names.
# Needs a C++ compiler (else SKIP) and perf_event_open (else SKIP with the kernel's reason).
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"
# shellcheck source=tests/integration/record-lib.sh
. "$(dirname "$0")/record-lib.sh"

CXX=${CXX:-c++}
command -v "$CXX" >/dev/null 2>&1 || skip "no C++ compiler ($CXX)"
need_record

src=$workdir/mix.cc
cat >"$src" <<'EOF'
#include <cstdlib>
static volatile unsigned long sink;
namespace app {
template <typename T> inline __attribute__((always_inline)) T mix(T x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
}
namespace other {
template <typename T> inline __attribute__((always_inline)) T mix(T x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}
}
__attribute__((noinline)) void outer_fn(int n)
{
	unsigned long x = 1, y = 2;
	for (int i = 0; i < n; i++) {
		x = app::mix(x);
		y = other::mix(y);
	}
	sink = x + y;
}
int main(int argc, char **argv)
{
	outer_fn(argc > 1 ? atoi(argv[1]) : 3000);
	return 0;
}
EOF
"$CXX" -O2 -g -fno-omit-frame-pointer -o "$workdir/mix" "$src" 2>"$workdir/cxx.err" ||
	fail "cannot build the C++ program: $(lines "$workdir/cxx.err")"

f=$workdir/mix.data
record mix -e cpu-clock -F 999 -g -o "$f" -- "$workdir/mix" 3000
check_status "precord of the C++ program" "$rec_rc" 0

# share NAME FILE: the percent of the row whose symbol is NAME (inlined), 0 if none.
share() {
	awk -v want="$1 (inlined)" '$1 ~ /%$/ && $2 == "[.]" {
		name = $0; sub(/^ *[0-9.]+% +\[\.\] /, "", name); sub(/ +$/, "", name)
		if (name == want) { sub(/%$/, "", $1); t += $1 } } END { print t + 0 }' "$2"
}

out=$workdir/inline.out
"$PREPORT" -i "$f" --stdio --no-children --inline -g none --sort sym >"$out" 2>"$workdir/inline.err"
a=$(share 'app::mix<unsigned long>' "$out")
o=$(share 'other::mix<unsigned long>' "$out")
if awk -v a="$a" -v o="$o" 'BEGIN { exit !(a >= 10 && o >= 10) }'; then
	ok "two rows: app::mix<unsigned long> $a%, other::mix<unsigned long> $o%"
else
	bad "want app::mix<unsigned long> and other::mix<unsigned long> rows of >= 10% each, got $a% and $o%: $(lines "$out" 14) $(lines "$workdir/inline.err" 2)"
fi
if grep -q 'mix<long unsigned int>' "$out"; then
	bad "DWARF's name shows: $(grep 'mix<long unsigned int>' "$out" | join_lines)"
else
	ok "no row named by DWARF's mix<long unsigned int>"
fi

"$PREPORT" -i "$f" --stdio --no-children --inline -g caller --sort sym >"$workdir/graph.out" 2>&1
if grep -q '^ *[|-]*other::mix<unsigned long> (inlined)$' "$workdir/graph.out" &&
	grep -q '^ *[|-]*app::mix<unsigned long> (inlined)$' "$workdir/graph.out"; then
	ok "the call graph names both"
else
	bad "the call graph: $(lines "$workdir/graph.out" 20)"
fi

"$PREPORT" -i "$f" --stdio --no-children --inline --no-demangle -g none --sort sym \
	>"$workdir/mangled.out" 2>&1
a=$(share '_ZN3app3mixImEET_S1_' "$workdir/mangled.out")
o=$(share '_ZN5other3mixImEET_S1_' "$workdir/mangled.out")
if awk -v a="$a" -v o="$o" 'BEGIN { exit !(a >= 10 && o >= 10) }'; then
	ok "--no-demangle: the linkage names, $a% and $o%"
else
	bad "--no-demangle: $(lines "$workdir/mangled.out" 14)"
fi

# --flamegraph --inline: the inlined frames say so in their names, as the report does (so a
# search finds them), and in their kind (colour, details); the graph is still the stacks of
# --folded --inline, which names them without the mark
fg=$workdir/inline.svg
if ! command -v python3 >/dev/null 2>&1; then
	echo "no python3: the flame graph of --inline is not checked"
elif "$PREPORT" -i "$f" --inline --folded >"$workdir/inline.folded" 2>"$workdir/fg.err" &&
	"$PREPORT" -i "$f" --inline --flamegraph "$fg" 2>>"$workdir/fg.err"; then
	if python3 "$top_srcdir/tests/integration/flamegraph-check.py" "$fg" \
		"$workdir/inline.folded" >"$workdir/fg.check" 2>&1; then
		ok "--flamegraph --inline: $(lines "$workdir/fg.check" 1)"
	else
		bad "--flamegraph --inline: $(lines "$workdir/fg.check" 4)"
	fi
	# each mix is a frame of kind 7 (inlined) whose title says "inlined"
	python3 - "$fg" >"$workdir/fg.kinds" 2>&1 <<'PY'
import json, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
d = next(json.loads(s.text) for s in root.iter(NS + 'script') if s.get('id') == 'flamedata')
titles = {r.get('id'): r.find(NS + 'title').text for r in root.iter(NS + 'rect') if r.get('id')}
S, A = d['strings'], d['frames']
for want in ('app::mix<unsigned long> (inlined)', 'other::mix<unsigned long> (inlined)'):
    ids = [i // 5 for i in range(0, len(A), 5) if S[A[i + 1]] == want]
    ok = ids and all(A[5 * i + 3] == 7 and titles['f%d' % i].split('\n')[-2] == 'inlined'
                     for i in ids)
    print(('ok ' if ok else 'bad ') + want + ': ' + repr([titles.get('f%d' % i) for i in ids]))
PY
	if grep -q '^bad' "$workdir/fg.kinds" || ! grep -q '^ok' "$workdir/fg.kinds"; then
		bad "--flamegraph --inline: $(lines "$workdir/fg.kinds" 4)"
	else
		ok "--flamegraph --inline: both mix frames are of kind inlined, titled so"
	fi
else
	bad "--flamegraph --inline failed: $(lines "$workdir/fg.err")"
fi
finish
