# SPDX-License-Identifier: MIT
# Helpers for tests/integration/run-record-*.sh, on top of test-lib.sh; source both with
#   . "$(dirname "$0")/test-lib.sh"
#   . "$(dirname "$0")/record-lib.sh"
#
# Environment: PRECORD (set by TESTS_ENVIRONMENT; defaults to the in-tree build) and what
# test-lib.sh reads.  Plain POSIX sh.
# shellcheck shell=sh disable=SC2154,SC2034 # workdir comes from test-lib.sh; rec_rc is output

PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
WL=$top_builddir/tests/workloads

# need_record: perf, precord, preport and the named workloads are there, and the kernel lets
# us sample cpu-clock; skips (77) with the kernel's reason when perf_event_open is refused.
# Usage: need_record WORKLOAD...
need_record() {
	need_perf
	need_file "$PRECORD" precord
	need_file "$PREPORT" preport
	for _w in "$@"; do
		need_file "$WL/$_w" "the $_w workload"
	done
	_p=$workdir/probe-precord.data
	if "$PRECORD" -q -e cpu-clock -o "$_p" -- true >/dev/null 2>"$_p.err"; then
		say "precord can record cpu-clock"
		return 0
	fi
	# precord failed: a refusal by the kernel is a skip, anything else is precord's fault.
	probe_perf_event || skip "$PERF_REFUSED"
	fail "precord cannot record 'true' with -e cpu-clock, though perf can: $(head -n 1 "$_p.err")"
}

# record NAME PRECORD-ARGS...: run precord; its stdout goes to $workdir/NAME.out, its stderr
# to $workdir/NAME.err (also named by $rec_err), its exit status to $rec_rc.
rec_err=/dev/null
record() {
	_n=$1
	shift
	rec_err=$workdir/$_n.err
	"$PRECORD" "$@" >"$workdir/$_n.out" 2>"$rec_err"
	rec_rc=$?
}

# check_status LABEL GOT WANT [STDERR-FILE]: on a mismatch, shows the program's stderr
# (default: that of the last `record`).
check_status() {
	if [ "$2" -eq "$3" ]; then
		ok "$1: exit status $2"
	else
		bad "$1: exit status $2, want $3; its stderr: $(lines "${4:-$rec_err}" 4)"
	fi
}

# one_line LABEL STDERR-FILE WORD: exactly one line on stderr, and it contains WORD.
one_line() {
	_n=$(grep -c . "$2")
	if [ "$_n" -eq 1 ] && grep -q -F -- "$3" "$2"; then
		ok "$1: one line on stderr: $(cat "$2")"
	else
		bad "$1: want one line naming '$3' on stderr, got $_n: $(head -n 3 "$2" | tr '\n' '|')"
	fi
}

# check_summary LABEL STDERR-FILE: precord printed its summary line ("precord: N samples in
# ...") with N > 0; sets $summary_samples.
check_summary() {
	summary_samples=$(sed -n 's/^precord: \([0-9][0-9]*\) samples in .*/\1/p' "$2" | tail -n 1)
	if [ -n "$summary_samples" ] && [ "$summary_samples" -gt 0 ]; then
		ok "$1: summary line says $summary_samples samples"
	else
		bad "$1: no summary line with samples on stderr: $(tail -n 2 "$2" | tr '\n' ' ')"
	fi
}

# preport_reads LABEL FILE: preport -D reads FILE with exit status 0 and nothing on stderr;
# the dump is kept in FILE.dump and its sample lines in FILE.samples.
preport_reads() {
	"$PREPORT" -D -i "$2" >"$2.dump" 2>"$2.dump.err"
	_rc=$?
	grep -F ': SAMPLE ' "$2.dump" >"$2.samples"
	if [ "$_rc" -eq 0 ] && [ ! -s "$2.dump.err" ]; then
		ok "$1: preport -D reads it ($(grep -c . "$2.samples") samples)"
	else
		bad "$1: preport -D exits $_rc: $(head -n 2 "$2.dump.err" | tr '\n' ' ')"
	fi
}

# cut_warning LABEL STDERR-FILE: the only line in STDERR-FILE is preport's warning that the
# recording was cut short, with the time it ends at.
cut_warning() {
	_want='^preport: warning: .* was cut short [(]no end marker[)]: it ends (at [0-9: .-]* [A-Z]*, )?[0-9.]* s'
	if [ "$(grep -c . "$2")" -eq 1 ] && grep -E -q "$_want after the first sample" "$2"; then
		ok "$1: one warning line: $(cat "$2")"
	else
		bad "$1: want one 'cut short' warning on stderr, got: $(lines "$2" 3)"
	fi
}

# cut_readable LABEL FILE: like readable, but preport -D and preport warn that FILE was cut.
cut_readable() {
	"$PREPORT" -D -i "$2" >"$2.dump" 2>"$2.dump.err"
	_rc=$?
	grep -F ': SAMPLE ' "$2.dump" >"$2.samples"
	check "$_rc" "$1: preport -D reads it ($(grep -c . "$2.samples") samples, exit $_rc)"
	cut_warning "$1: preport -D" "$2.dump.err"
	"$PREPORT" -i "$2" >"$2.report" 2>"$2.report.err"
	check $? "$1: preport reads it"
	cut_warning "$1: preport" "$2.report.err"
	counts_agree "$1" "$2"
	perf_report "$1" "$2" sym "$2.rep"
}

# counts_agree LABEL FILE: perf's record counts of FILE equal preport -D's (FILE.dump, from
# preport_reads).
counts_agree() {
	if perf_stats "$2" "$2.stats" >"$2.stats.msg"; then
		grep -v '^note:' "$2.stats.msg" | grep . | sed 's/^/  /'
		preport_counts "$2.dump" "$2.counts"
		compare_counts "$2.stats" "$2.counts" "$1: record counts"
	else
		bad "$1: $(cat "$2.stats.msg")"
	fi
}

# count_of FILE TYPE: preport's count of records of TYPE (from counts_agree or preport_counts).
count_of() {
	awk -v t="$2" '$1 == t { n = $2 } END { print n + 0 }' "$1"
}

# sample_field SAMPLES NAME: the value after the word NAME in each preport -D sample line.
sample_field() {
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); break } }' "$1"
}

# sample_event SAMPLES: the event name of each preport -D sample line (the word after SAMPLE
# and its optional [u]/[k] mode).
sample_event() {
	awk '{ for (i = 1; i < NF; i++) if ($i == "SAMPLE") {
		if ($(i + 1) ~ /^\[/) i++
		print $(i + 1)
		break
	} }' "$1"
}

# perf_report LABEL FILE SORT OUT: `perf report --stdio --no-children --sort SORT` without
# call graphs into OUT; checks the exit status and that stderr names no error.
perf_report() {
	"$PERF" report -i "$2" --stdio --no-children --sort "$3" -g none >"$4" 2>"$4.err"
	_rc=$?
	if [ "$_rc" -ne 0 ]; then
		bad "$1: perf report --sort $3 exits $_rc: $(grep . "$4.err" | head -n 2 | tr '\n' ' ')"
	elif grep -E -i "couldn't|failed|error|invalid" "$4.err" >/dev/null; then
		bad "$1: perf report complains: $(grep -E -i "couldn't|failed|error|invalid" "$4.err" | head -n 2 | tr '\n' ' ')"
	else
		ok "$1: perf report --sort $3 reads it ($(sed -n "s/^# Samples: *\([0-9][0-9.]*[KM]*\) .*/\1/p" "$4" | head -n 1) samples)"
	fi
}

# share REPORT SYM [KEY]: the summed percentage of the report lines whose last field is SYM
# (and, with KEY, whose second field is KEY: the comm or dso of --sort comm,sym / dso,sym).
share() {
	awk -v s="$2" -v k="${3:-}" '$1 ~ /%$/ && $NF == s && (k == "" || $2 == k) {
		sub(/%$/, "", $1); t += $1 } END { printf "%.2f\n", t }' "$1"
}

# share_verdict LABEL WHAT GOT COND WANT: ok if the awk condition COND holds for g=GOT.
share_verdict() {
	if awk -v g="$3" "BEGIN { exit !($4) }"; then
		ok "$1: $2 $3% (want $5)"
	else
		bad "$1: $2 $3%, want $5"
	fi
}

# check_share LABEL REPORT SYM WANT [KEY]: SYM's share is WANT% +-5 points.
check_share() {
	share_verdict "$1" "$3${5:+ in $5}" "$(share "$2" "$3" "${5:-}")" \
		"g - $4 <= 5 && g - $4 >= -5" "$4% +-5"
}

# check_demo_split LABEL REPORT: the demo's profile in a perf report --sort sym: hot_a and
# hot_b together hold most samples (>= 50%) and hot_a leads, with 55-90% of the two.  The
# demo is built for 75:25 and gives that on a quiet machine; on two busy cores the split
# moved by up to 7 points (68:32, 80:20), so the checks ask only what load cannot change.
check_demo_split() {
	_a=$(share "$2" hot_a)
	_b=$(share "$2" hot_b)
	share_verdict "$1" "hot_a and hot_b together" "$(awk -v a="$_a" -v b="$_b" 'BEGIN { printf "%.2f", a + b }')" \
		"g >= 50" ">= 50%"
	share_verdict "$1" "hot_a's part of hot_a and hot_b ($_a% and $_b%)" \
		"$(awk -v a="$_a" -v b="$_b" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * a / (a + b); else print 0 }')" \
		"g >= 55 && g <= 90" "55-90%; 75% on a quiet machine"
}

# check_share_min LABEL REPORT SYM MIN [KEY]: SYM's share is at least MIN%.
check_share_min() {
	share_verdict "$1" "$3${5:+ in $5}" "$(share "$2" "$3" "${5:-}")" "g >= $4" ">= $4%"
}

# perf_chains LABEL FILE OUT: perf script's samples of FILE, one a line in OUT:
#   COMM PID TID FRAME;FRAME;...   (leaf first; spaces in COMM become _)
# FILE must have call chains (-g or --call-graph dwarf).
perf_chains() {
	"$PERF" script -i "$2" -F comm,pid,tid,ip,sym >"$3.raw" 2>"$3.err"
	_rc=$?
	awk 'function flush() {
		if (hdr != "")
			print hdr, (chain == "" ? "-" : chain)
		hdr = ""
		chain = ""
	}
	/^\t/ {
		n = split($0, f, " ")
		chain = chain (chain == "" ? "" : ";") (n >= 2 ? f[2] : "[unknown]")
		next
	}
	/^[ \t]*$/ { flush(); next }
	{
		flush()
		split($NF, pt, "/")
		c = $1
		for (i = 2; i < NF; i++)
			c = c "_" $i
		hdr = c " " pt[1] " " pt[2]
	}
	END { flush() }' "$3.raw" >"$3"
	if [ "$_rc" -eq 0 ] && [ -s "$3" ]; then
		ok "$1: perf script reads it ($(grep -c . "$3") samples)"
	else
		bad "$1: perf script exits $_rc with $(grep -c . "$3") samples: $(grep . "$3.err" | head -n 2 | tr '\n' ' ')"
	fi
}

# check_chains LABEL CHAINS LEAF REGEX [MIN% [DESC]]: at least MIN% (default 95) of the samples
# whose leaf is LEAF have a chain matching the awk regular expression REGEX (described as DESC
# in the message, default REGEX itself); and there are such samples.
check_chains() {
	_r=$(awk -v l="$3" -v re="$4" '{ split($4, f, ";") } f[1] == l { n++; if ($4 ~ re) m++ }
		END { printf "%d %d\n", m, n }' "$2")
	_m=${_r% *}
	_n=${_r#* }
	_min=${5:-95}
	_desc=${6:-$4}
	if [ "$_n" -gt 0 ] && [ $((_m * 100)) -ge $((_n * _min)) ]; then
		ok "$1: $_m of $_n $3 samples have the chain $_desc (want >= $_min%)"
	else
		_common=$(awk -v l="$3" '{ split($4, f, ";") } f[1] == l { print $4 }' "$2" |
			sort | uniq -c | sort -rn | head -n 1)
		bad "$1: $_m of $_n $3 samples have the chain $_desc, want >= $_min%; most common: $_common"
	fi
}

# leaf_values CHAINS LEAF FIELD: the distinct values of FIELD (1 comm, 2 pid, 3 tid) among the
# samples whose leaf is LEAF, one a line.
leaf_values() {
	awk -v l="$2" -v k="$3" '{ split($4, f, ";") } f[1] == l { print $k }' "$1" | sort -u
}

# children_of PID: the pids of PID's children, one a line.
children_of() {
	if [ -r "/proc/$1/task/$1/children" ]; then
		tr ' ' '\n' <"/proc/$1/task/$1/children" | grep .
	else
		pgrep -P "$1"
	fi
}

# ---- workloads in the background ----
# start_bg CMD ARGS...: start CMD in the background; its pid in $bg_pid.  Whatever is still
# running at exit is killed (by pid).  stop_bg PID: kill it and reap it.
bg_pids=
start_bg() {
	"$@" >/dev/null 2>&1 &
	bg_pid=$!
	bg_pids="$bg_pids $bg_pid"
}
stop_bg() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	bg_pids=$(echo "$bg_pids" | tr ' ' '\n' | grep -v "^$1\$" | tr '\n' ' ')
}
_record_cleanup() {
	for _b in $bg_pids; do
		kill "$_b" 2>/dev/null
	done
	_cleanup
}
trap _record_cleanup EXIT
