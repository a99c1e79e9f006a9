# SPDX-License-Identifier: MIT
# Helpers for tests/integration/run-*.sh; source it with
#   . "$(dirname "$0")/test-lib.sh"
#
# Environment (set by TESTS_ENVIRONMENT in Makefile.am; defaults for running a script by hand
# from an in-tree build): top_builddir, top_srcdir, PREPORT, and optionally PERF (the perf
# binary) and KEEP_WORKDIR=1 (keep the scratch directory for a post-mortem).
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip.  Every check prints one line, so the
# test's .log says what was checked.  Plain POSIX sh (runs under dash).

set -u

me=$(basename "$0" .sh)
_lib_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$_lib_dir/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PREPORT=${PREPORT:-$top_builddir/src/preport/preport}
# shellcheck disable=SC2034 # used by the scripts that source this file
DEMO=$top_builddir/tests/workloads/demo
# npm modules of the tests that use real readers (pprof-format, playwright-core):
# npm install --prefix tests/node --no-audit --no-fund pprof-format playwright-core
# shellcheck disable=SC2034
NODE_MODULES=${PRECORD_NODE_MODULES:-$top_srcdir/tests/node/node_modules}
# shellcheck disable=SC2034
WRITE_STREAM=$top_builddir/tests/tools/write-stream
LC_ALL=C
export LC_ALL

nr_bad=0
nr_ok=0

say() { printf '%s: %s\n' "$me" "$*"; }
skip() { printf 'SKIP: %s: %s\n' "$me" "$*"; exit 77; }
fail() { printf 'FAIL: %s: %s\n' "$me" "$*" >&2; exit 1; }

# A check that passed / failed; failures are counted and the script goes on, so one run lists
# every problem.  finish() turns the count into the exit status.
ok() { nr_ok=$((nr_ok + 1)); printf 'ok: %s\n' "$*"; }
bad() { nr_bad=$((nr_bad + 1)); printf 'FAIL: %s\n' "$*"; }
finish() {
	if [ "$nr_bad" -gt 0 ]; then
		printf '%s: %d of %d checks failed\n' "$me" "$nr_bad" $((nr_ok + nr_bad))
		exit 1
	fi
	printf '%s: all %d checks passed\n' "$me" "$nr_ok"
	exit 0
}
# join_lines: stdin's lines joined by " | " on one line.
join_lines() { awk 'NR > 1 { printf " | " } { printf "%s", $0 } END { if (NR) print "" }'; }

# lines FILE [N]: the first N (default 2) non-blank lines of FILE on one line, for messages.
lines() { grep -v '^[[:space:]]*$' "$1" | head -n "${2:-2}" | join_lines; }

# check COND-EXIT-STATUS MESSAGE: ok or bad depending on the status of the previous command.
check() {
	if [ "$1" -eq 0 ]; then ok "$2"; else bad "$2"; fi
}

# ---- scratch directory, removed on exit ----
workdir=$(mktemp -d "${TMPDIR:-/tmp}/precord-$me.XXXXXX") || fail "mktemp -d failed"
_cleanup() {
	if [ "${KEEP_WORKDIR:-0}" = 1 ]; then
		printf '%s: kept %s\n' "$me" "$workdir"
	else
		rm -rf "$workdir"
	fi
}
trap _cleanup EXIT
# preport's kernel symbol cache: this test's own, not the user's
PRECORD_CACHE_DIR=$workdir/cache
export PRECORD_CACHE_DIR
# perf's build-id cache (~/.debug) and configuration: this test's own too (a HOME of its
# own; perf 6.1 still looked in ~/.debug with PERF_BUILDID_DIR set), so that what one test's
# perf record put there (a binary by its build-id) cannot symbolize another test's recording
HOME=$workdir/home
mkdir -p "$HOME" && export HOME
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE

# golden_preport REC KALLSYMS [ARG...]: preport over the golden recording REC
# (tests/data/golden/REC.data) with the binaries of its symfs and the kallsyms file KALLSYMS
# there, so that it reads the same on any machine.
golden_preport() {
	_gp_rec=$1
	_gp_ks=$2
	shift 2
	(cd "$top_srcdir/tests/data/golden" && exec "$PREPORT" -i "$_gp_rec.data" --symfs symfs \
		--kallsyms "$_gp_ks" --max-stack 127 "$@")
}

# need_file PATH WHAT: fail (not skip) when a program of the build is missing.
need_file() {
	[ -x "$1" ] || fail "$2 is missing: $1 (build it first: make ${1#"$top_builddir"/})"
}

# ---- Linux perf ----

# have_perf: sets PERF (and keeps perf's configuration, build-id cache and pager out of the
# test), or returns 1 with the reason in PERF_MISSING: perf absent, or not running (Debian's
# wrapper fails when no perf matches the running kernel).
have_perf() {
	if [ -z "${PERF:-}" ]; then
		if command -v perf >/dev/null 2>&1; then
			PERF=perf
		elif [ -x /usr/bin/perf ]; then
			PERF=/usr/bin/perf
		else
			PERF_MISSING="Linux perf is not installed (Debian: linux-perf)"
			return 1
		fi
	fi
	if ! _v=$("$PERF" version 2>&1); then
		PERF_MISSING="'$PERF version' fails: $(printf '%s\n' "$_v" | head -n 1)"
		return 1
	fi
	PERF_VERSION=$_v
	PERF_CONFIG=/dev/null
	PERF_BUILDID_DIR=$workdir/buildid-cache
	PERF_PAGER='cat'
	PAGER='cat'
	export PERF PERF_CONFIG PERF_BUILDID_DIR PERF_PAGER PAGER
}

# need_perf: have_perf, or skip the test.
need_perf() {
	have_perf || skip "$PERF_MISSING"
	say "using $PERF_VERSION ($(command -v "$PERF"))"
}

# probe_perf_event: sets PERF_EVENT to cycles if perf really records it, else to cpu-clock;
# returns 1 with PERF_REFUSED set when even cpu-clock is refused.  (perf 6.1 silently falls
# back from cycles to cpu-clock when there is no PMU, so the recorded event is read back.)
probe_perf_event() {
	_p=$workdir/probe.data
	if "$PERF" record -q -e cycles -o "$_p" -- true >/dev/null 2>"$_p.err"; then
		case $("$PERF" evlist -i "$_p" 2>/dev/null | head -n 1) in
		cycles*)
			PERF_EVENT=cycles
			return 0
			;;
		esac
	fi
	if "$PERF" record -q -e cpu-clock -o "$_p" -- true >/dev/null 2>"$_p.err"; then
		PERF_EVENT=cpu-clock
		return 0
	fi
	_para=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
	_why=$(grep -E -v '^[[:space:]]*(Error:)?[[:space:]]*$' "$_p.err" | head -n 1)
	PERF_REFUSED="the kernel refused perf_event_open for cpu-clock"
	PERF_REFUSED="$PERF_REFUSED (kernel.perf_event_paranoid=$_para): $_why"
	return 1
}

# perf_event: as probe_perf_event, but skips the test when perf_event_open is refused.
perf_event() {
	probe_perf_event || skip "$PERF_REFUSED"
	say "recording with -e $PERF_EVENT"
}

# ---- record counts ----

# perf_stats FILE OUT: perf's "Aggregated stats" of FILE as "NAME COUNT" lines in OUT (TOTAL
# first).  perf 6.1 `report --stats` cannot read a compressed pipe-form stream: its stats mode
# replaces the tool callbacks and drops HEADER_FEATURE handling, so the COMPRESSED feature
# (mmap_len) is never seen and it stops with "Couldn't decompress data".  `perf report -D`
# prints the same counters after its dump, with full processing, so that is used instead.
perf_stats() {
	"$PERF" report --stats -i "$1" >"$2.raw" 2>"$2.err"
	_rc=$?
	if grep -q "Couldn't decompress" "$2.err"; then
		say "note: perf report --stats cannot decompress $(basename "$1")" \
			"(perf 6.1 stats-mode bug); using the totals of perf report -D"
		"$PERF" report -D -i "$1" >"$2.raw" 2>"$2.err"
		_rc=$?
	fi
	sed -n '/^Aggregated stats:/,/ stats:$/ s/^ *\([A-Z_0-9]*\) events: *\([0-9][0-9]*\).*/\1 \2/p' \
		"$2.raw" >"$2"
	if [ "$_rc" -ne 0 ] || ! grep -q '^TOTAL ' "$2"; then
		printf 'perf report failed on %s (status %d): %s\n' "$1" "$_rc" "$(lines "$2.err" 3)"
		return 1
	fi
	return 0
}

# preport_counts DUMP OUT: the "Records by type:" block of a `preport -D` output as
# "NAME COUNT" lines (spaces inside a name, as in "UNKNOWN( 99)", removed).
preport_counts() {
	sed -n '/^Records by type:$/,$ s/^ *\(.*[^ ]\): *\([0-9][0-9]*\)$/\1 \2/p' "$1" |
		awk '{ c = $NF; $NF = ""; n = $0; gsub(/ /, "", n); print n, c }' >"$2"
}

# compare_counts PERF_COUNTS PREPORT_COUNTS LABEL: every type perf counts must have exactly
# perf's count in preport's table, and preport must count no type perf does not print.
# Prints both tables side by side first.
compare_counts() {
	printf '  %-16s %10s %10s\n' TYPE perf preport
	awk 'NR == FNR { p[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }; next }
	     { q[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
	     END { for (i = 1; i <= n; i++) {
			k = order[i]
			printf "  %-16s %10s %10s\n", k, (k in p) ? p[k] : "-", (k in q) ? q[k] : "-"
	     } }' "$1" "$2"
	_before=$nr_bad
	while read -r _n _c; do
		_o=$(awk -v n="$_n" '$1 == n { print $2 }' "$2")
		[ "$_o" = "$_c" ] || bad "$3: $_n: perf counts $_c, preport ${_o:-none}"
	done <"$1"
	while read -r _n _c; do
		if ! awk -v n="$_n" '$1 == n { f = 1 } END { exit !f }' "$1"; then
			bad "$3: preport counts $_c $_n records; perf counts none"
		fi
	done <"$2"
	if [ "$nr_bad" -eq "$_before" ]; then
		ok "$3: preport's counts equal perf's for all $(grep -c . "$1") lines perf prints"
	fi
}
