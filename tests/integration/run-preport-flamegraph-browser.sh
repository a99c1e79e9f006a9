#!/bin/sh
# SPDX-License-Identifier: MIT
# preport --flamegraph in a real browser: Debian's chromium driven by npm's playwright-core
# (flamegraph-browser.js) over the flame graph of the golden system-wide recording: it loads
# without script errors and without a network request, a click on a frame zooms it to the
# full width and reset brings it back, Ctrl-F opens the search, and a search highlights frames
# and shows the share of the samples --folded gives the stacks it matches (a function nested
# in another that matches is not counted twice), also for text that is not the regular
# expression it looks like (a C++ name, "(anonymous namespace)::helper", of the C++
# recording).  In a window lower than the graph, the title, search box, details line and
# Reset zoom stay in view wherever the page is scrolled, and Ctrl-F does not scroll it, also
# 900 px wide.  In windows narrower than the graph (1000 px, resized to 700 px) nothing is cut
# off and a click still zooms (review 22 #14).  The inverted graph loads without errors too.
# Both show their frames as an <img> (where scripts never run: a wiki's, a README's) as the
# page with its script does before a click.
#
# Skipped, with the reason, without chromium (/usr/bin/chromium, or $CHROMIUM), node, or
# playwright-core (in $PRECORD_NODE_MODULES, else tests/node/node_modules under the source
# directory: npm install --prefix tests/node --no-audit --no-fund playwright-core).
# FLAME_SHOT=FILE.png keeps a screenshot of each graph (FILE.png and FILE-inverted.png), and
# of its frames as an <img> (FILE-img.png, FILE-inverted-img.png).
# shellcheck disable=SC2154 # top_srcdir and workdir come from test-lib.sh

. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMIUM
MODULES=$NODE_MODULES
[ -x "$CHROMIUM" ] || skip "no chromium at $CHROMIUM (apt-get install chromium)"
command -v node >/dev/null 2>&1 || skip "node is not installed (apt-get install nodejs)"
[ -d "$MODULES/playwright-core" ] ||
	skip "no playwright-core in $MODULES (npm install --prefix tests/node playwright-core)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it reads --folded)"
JS=$top_srcdir/tests/integration/flamegraph-browser.js
XDG_CACHE_HOME=$workdir/xdg-cache
export XDG_CACHE_HOME
unset PREPORT_TIMES

# prep REC ARGS...: preport over golden recording REC
prep() {
	_rec=$1
	shift
	golden_preport "$_rec" kallsyms "$@" 2>"$workdir/preport.err" ||
		fail "preport $*: $(lines "$workdir/preport.err")"
}
prep precord-sys --folded >"$workdir/folded"
prep precord-sys --flamegraph "$workdir/flame.svg"
prep precord-sys -G --flamegraph "$workdir/inverted.svg"
prep precord-g --folded >"$workdir/cxx.folded"
prep precord-g --flamegraph "$workdir/cxx.svg"

# the samples of the stacks (in --folded output $2) with a frame (or command) that holds
# the text $1 or that the regular expression $1 matches, as the search box finds them
folded_samples() {
	python3 - "$1" "$2" <<'PY'
import re, sys
term = sys.argv[1]
try:
    r = re.compile(term)
except re.error:
    r = None
total = 0
for line in open(sys.argv[2], encoding='utf-8', errors='replace'):
    stack, _, count = line.rstrip('\n').rpartition(' ')
    if any(term in f or (r and r.search(f)) for f in stack.split(';')):
        total += int(count)
print(total)
PY
}

# browse SVG CLICK SEARCH SHOT [FOLDED [low]]
browse() {
	_want=$(folded_samples "$3" "${5:-$workdir/folded}")
	node "$JS" "$MODULES" "$1" "$2" "$3" "$_want" "${4:-}" "${6:-}" \
		>"$workdir/browse.out" 2>&1
	_rc=$?
	[ "$_rc" = 2 ] && case $(cat "$workdir/browse.out") in
	*"Executable doesn't exist"* | *"Failed to launch"*)
		skip "chromium does not start: $(lines "$workdir/browse.out")" ;;
	esac
	while IFS= read -r _line; do
		case $_line in
		ok:*) ok "$(basename "$1"): ${_line#ok: }" ;;
		*) bad "$(basename "$1"): ${_line#FAIL: }" ;;
		esac
	done <"$workdir/browse.out"
	[ "$_rc" = 0 ] || [ "$nr_bad" -gt 0 ] || bad "$(basename "$1"): node exited $_rc"
}

shot=${FLAME_SHOT:-}
browse "$workdir/flame.svg" outer '^(main|outer)$' "$shot" "$workdir/folded" low
browse "$workdir/inverted.svg" hot_a '^hot_' "${shot:+${shot%.png}-inverted.png}" \
	"$workdir/folded" low
# a C++ name as the report prints it: as a regular expression it matches nothing
browse "$workdir/cxx.svg" 'app::work<unsigned long>' '(anonymous namespace)::helper' \
	"${shot:+${shot%.png}-cxx.png}" "$workdir/cxx.folded"

finish
