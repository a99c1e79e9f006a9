#!/bin/sh
# SPDX-License-Identifier: MIT
# preport --flamegraph in a real browser: Debian's chromium driven by npm's playwright-core
# (flamegraph-browser.js) over the flame graph of the golden system-wide recording: it loads
# without script errors and without a network request, a click on a frame zooms it to the
# full width and reset brings it back, Ctrl-F opens the search, and a search highlights frames
# and shows the share of the samples --folded gives the stacks it matches (a function nested
# in another that matches is not counted twice).  The inverted graph loads without errors too.
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
G=$top_srcdir/tests/data/golden
JS=$top_srcdir/tests/integration/flamegraph-browser.js
XDG_CACHE_HOME=$workdir/xdg-cache
export XDG_CACHE_HOME
unset PREPORT_TIMES

prep() {
	(cd "$G" && exec "$PREPORT" -i precord-sys.data --symfs symfs --kallsyms kallsyms \
		--max-stack 127 "$@") 2>"$workdir/preport.err" ||
		fail "preport $*: $(lines "$workdir/preport.err")"
}
prep --folded >"$workdir/folded"
prep --flamegraph "$workdir/flame.svg"
prep -G --flamegraph "$workdir/inverted.svg"

# the samples of the stacks with a frame (or command) matching $1, from --folded
folded_samples() {
	python3 - "$1" "$workdir/folded" <<'PY'
import re, sys
r = re.compile(sys.argv[1])
total = 0
for line in open(sys.argv[2], encoding='utf-8', errors='replace'):
    stack, _, count = line.rstrip('\n').rpartition(' ')
    if any(r.search(f) for f in stack.split(';')):
        total += int(count)
print(total)
PY
}

# browse SVG CLICK SEARCH SHOT
browse() {
	_want=$(folded_samples "$3")
	node "$JS" "$MODULES" "$1" "$2" "$3" "$_want" "${4:-}" >"$workdir/browse.out" 2>&1
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
browse "$workdir/flame.svg" outer '^(main|outer)$' "$shot"
browse "$workdir/inverted.svg" hot_a '^hot_' "${shot:+${shot%.png}-inverted.png}"

finish
