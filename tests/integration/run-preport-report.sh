#!/bin/sh
# SPDX-License-Identifier: MIT
# preport's reports against Linux perf report on the same files, and against the workloads'
# known structure.
#
# Recordings (cpu-clock, -F 999, -g, about 1 s each):
#   demo      by perf record, file form          threads   by perf record -z, pipe form
#   libwork   by precord                         forkexec  by precord (fork + exec)
#   deep      by precord                         kernel    by precord: dd, mostly in the kernel
#   mangled   by perf record, file form: C++ names, shown demangled as perf shows them
#   demo-dwarf by perf record --call-graph dwarf: user stacks unwound by preport
#   notime    by perf record --no-timestamp: samples without times, processed as read
# For each: the flat profile of `preport --no-children --sort sym` equals perf report's within
# 0.5 points for every symbol (either side's), and the same with --children for both columns.
# Then: --folded has the workloads' call paths; a stripped binary is symbolized from its debug
# file found by build-id (under --symfs); a deleted and a replaced binary show [unknown] (never
# a wrong symbol) and count in the "Not symbolized" line; an always_inline function shows with
# --inline; filters, -n, -t, --percent-limit and the call graph give what they say.
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo threads forkexec libwork deep mangled
need_file "$WRITE_STREAM" write-stream

# flat FILE OUT CHILDREN-OPT TOOL...: "SYMBOL PCT [SELF]" lines of a --sort sym report, summed
# by name (perf and preport may split a name across DSOs differently).
flat() {
	_f=$1
	_o=$2
	_c=$3
	shift 3
	"$@" -i "$_f" --stdio "$_c" --sort sym -g none >"$_o.raw" 2>"$_o.err"
	_rc=$?
	awk -v ch="$_c" '$1 ~ /%$/ {
		p = $1; sub(/%$/, "", p); s = 0; i = 2
		if (ch == "--children") { s = $2; sub(/%$/, "", s); i = 3 }
		name = $(i + 1); for (j = i + 2; j <= NF; j++) name = name " " $j
		tp[name] += p; ts[name] += s
	} END { for (n in tp) printf "%s\t%.2f\t%.2f\n", n, tp[n], ts[n] }' "$_o.raw" |
		sort >"$_o"
	return $_rc
}

# compare_flat LABEL FILE CHILDREN-OPT: preport's shares equal perf's within 0.5 points.
compare_flat() {
	flat "$2" "$2.perf$3" "$3" "$PERF" report || { bad "$1: perf report $3 fails: $(lines "$2.perf$3.err")"; return; }
	flat "$2" "$2.prep$3" "$3" "$PREPORT" || { bad "$1: preport $3 fails: $(lines "$2.prep$3.err")"; return; }
	if [ "$3" = --children ] && ! grep -q '^# Children' "$2.perf$3.raw"; then
		# perf 6.1 sets up children mode before it has read a pipe's attrs, so it never
		# uses it there; the folded-stack checks cover preport's call paths instead
		say "$1 --children: perf report prints no Children column for pipe-form input; compared only without"
		rm -f "$2.perf$3.raw" "$2.prep$3.raw"
		return
	fi
	if [ ! -s "$2.prep$3" ]; then
		bad "$1: preport $3 prints no entries"
		return
	fi
	_worst=$(awk -F '\t' 'NR == FNR { p[$1] = $2; ps[$1] = $3; seen[$1] = 1; next }
		{ q[$1] = $2; qs[$1] = $3; seen[$1] = 1 }
		END {
			w = -1
			for (n in seen) {
				d = p[n] - q[n]; if (d < 0) d = -d
				e = ps[n] - qs[n]; if (e < 0) e = -e
				if (e > d) d = e
				if (d > w) { w = d; wn = n " (perf " p[n] "/" ps[n] ", preport " q[n] "/" qs[n] ")" }
			}
			printf "%.2f %s\n", w, wn
		}' "$2.perf$3" "$2.prep$3")
	_n=$(grep -c . "$2.perf$3")
	if awk -v w="${_worst%% *}" 'BEGIN { exit !(w >= 0 && w <= 0.5) }'; then
		ok "$1 $3: $_n symbols of perf report within 0.5 points in preport; largest gap ${_worst}"
	else
		bad "$1 $3: a share differs by more than 0.5 points: ${_worst}"
		sed 's/^/  perf:    /' "$2.perf$3" | head -n 12
		sed 's/^/  preport: /' "$2.prep$3" | head -n 12
	fi
	rm -f "$2.perf$3.raw" "$2.prep$3.raw"
}

# same_as_perf LABEL FILE [OPTION...]: preport's report (default: without children) is perf
# report's, byte for byte: rows, columns, call graphs and the order of equal rows.  Header comments differ on
# purpose (preport's own wording, its "Not symbolized" line) and are left out, and so are rows
# naming a PLT entry: when a library's debug file is installed, perf 6.1 names its PLT entries
# from the debug file's empty .dynstr ("@plt"), where preport gives "__tunable_get_val@plt".
# Also perf's rows for _init: once in many runs of mangled (whose loop calls clock_gettime
# through the PLT) perf 6.1 put a PLT sample under _init, which preport showed as
# clock_gettime@plt (our symbol for 0x1040-0x104f there); presumably perf's zero-size _init,
# stretched to the next symbol it had, overlaps the PLT symbols it adds afterwards.  Likewise
# the PLT's header (the lazy-binding stub): once in many runs of libwork a sample fell there,
# which preport showed as perf's own ".plt" symbol while perf 6.1 had no ".plt" row (its row
# was among those left out here, presumably _init again); so ".plt" rows are left out too.
# The graph of perf's _init row goes with it (its "---_init" line: once in CI, demo -g fractal).
# In fractal mode perf 6.1 may name the branch of hidden callees "[...] (inlined)": its "[...]"
# symbol is allocated without clearing its inlined flag.
# ld.so's _start ends with its call of _dl_start, so that call's return address is the first
# byte of _dl_start_user: perf 6.1 names the frame by the return address (_dl_start_user),
# preport by the call before it (_start, the caller; see preport(1), SYMBOLS).  A sample in
# ld.so's start-up is rare at these rates, but it made forkexec's comparison fail once in CI.
comparable_rows() {
	grep -v -e '^#' -e '@plt$' -e '\[\.\] _init$' -e '\[\.\] \.plt$' -e '-_init$' |
		sed -e 's/--\[\.\.\.\] (inlined)$/--[...]/' -e 's/\(-\{2,3\}\| \)_dl_start_user$/\1_start/'
}

same_as_perf() {
	_l=$1
	_f=$2
	shift 2
	[ $# -gt 0 ] || set -- --no-children
	"$PERF" report -i "$_f" --stdio "$@" 2>"$_f.same.err" | comparable_rows >"$_f.same.perf"
	"$PREPORT" -i "$_f" "$@" 2>>"$_f.same.err" | comparable_rows >"$_f.same.prep"
	if [ -s "$_f.same.perf" ] && cmp -s "$_f.same.perf" "$_f.same.prep"; then
		ok "$_l $*: preport's report is perf report's, byte for byte ($(grep -c . "$_f.same.perf") lines)"
	else
		bad "$_l $*: preport's report differs from perf report's: $(diff "$_f.same.perf" "$_f.same.prep" | head -n 6 | join_lines)"
	fi
}

# folded_share FOLDED REGEX: percent of the folded stacks' counts on lines matching REGEX.
folded_share() {
	# the pattern through the environment: awk -v would turn "\[" into a bracket expression
	RE=$2 awk '{ re = ENVIRON["RE"]; n = $NF; t += n; line = $0; sub(/ [0-9]+$/, "", line); if (line ~ re) m += n }
		END { printf "%.1f\n", t ? 100 * m / t : 0 }' "$1"
}

# check_folded LABEL FOLDED REGEX MIN: at least MIN% of the samples are on stacks matching REGEX.
# The minimums are floors for a loaded machine, well below the quiet shares (demo 75:25,
# threads 50:50, libwork 60:40): with other recorders and builds on two cores, hot_b came out
# at 12.4% of demo-dwarf's 194 samples and parent_work at 26.4%; what a check shows is that
# the stacks have that shape, not the split.
check_folded() {
	_s=$(folded_share "$2" "$3")
	if awk -v s="$_s" -v m="$4" 'BEGIN { exit !(s >= m) }'; then
		ok "$1: $_s% of the folded samples match $3 (want >= $4%)"
	else
		bad "$1: $_s% of the folded samples match $3, want >= $4%; top: $(sort -k2 -t' ' -rn "$2" | head -n 2 | join_lines)"
	fi
}

# perf_flat_folded WORKLOAD MS: records the workload with perf record -g (file form) into
# $f = $workdir/WORKLOAD.data, compares the flat profiles (with and without children) and
# writes preport's --folded stacks to $f.folded.
perf_flat_folded() {
	f=$workdir/$1.data
	"$PERF" record -q -e $ev -F 999 -g -o "$f" -- "$WL/$1" "$2" >/dev/null 2>"$f.err" ||
		fail "perf record fails: $(lines "$f.err")"
	compare_flat "$1" "$f" --no-children
	compare_flat "$1" "$f" --children
	same_as_perf "$1" "$f"
	# with children, above 1% (below it ld.so's entry point is _start here, looked up at
	# the return address - 1, and _dl_start_user in perf, which takes the address itself)
	same_as_perf "$1" "$f" --children --percent-limit 1
	# -g folded and -g flat laid out and sorted as perf; a bare -g is graph,0.5,caller
	same_as_perf "$1" "$f" --no-children -g folded
	same_as_perf "$1" "$f" --children -g folded --percent-limit 1
	same_as_perf "$1" "$f" --no-children -g flat
	same_as_perf "$1" "$f" --children -g flat --percent-limit 1
	same_as_perf "$1" "$f" --no-children -g
	# the values a graph or chain shows: sample counts, periods
	same_as_perf "$1" "$f" --no-children -g graph,0.5,caller,function,count
	same_as_perf "$1" "$f" --children -g graph,1,callee,period --percent-limit 1
	# equal rows (a chain of kernel entries, main and its callers): with call graphs
	# perf puts a caller above its callee, measured in callee order by the chain up to the
	# root; under -g none by the sort keys alone.  Down to 0.2%, above a lone sample.
	same_as_perf "$1" "$f" --children -g callee --percent-limit 0.2
	same_as_perf "$1" "$f" --children -n -g none --percent-limit 0.2
	# -g none alone keeps the Children column, as perf 6.1 does on a file-form recording
	# (review 22 #5: it drops it only for pipe-form input, -g none or not)
	same_as_perf "$1" "$f" -g none --percent-limit 1
	same_as_perf "$1" "$f" --children --percent-limit 5 -g none
	same_as_perf "$1" "$f" --no-children -g flat,count
	same_as_perf "$1" "$f" --no-children -g folded,period
	# fractal: each branch's share of its caller's, hidden callees as one "[...]" branch
	same_as_perf "$1" "$f" --no-children -g fractal
	same_as_perf "$1" "$f" --children --percent-limit 1 -g fractal,5
	# --time in perf's percent forms, of the span its SAMPLE_TIME feature gives (review 22 #6)
	for _t in 10%/2 0%-10%,30%-40% 25% 10%/1,10%/3,10%/10; do
		same_as_perf "$1" "$f" --no-children -g none --time "$_t"
		_a=$("$PERF" report -i "$f" --stdio --no-children -g none --time "$_t" 2>&1 |
			sed -n 's/^# Samples: \([0-9]*\) .*/\1/p')
		_b=$("$PREPORT" -i "$f" --stdio --no-children -g none --time "$_t" 2>"$f.time.err" |
			sed -n 's/^# Samples: \([0-9]*\) .*/\1/p')
		if [ -n "$_a" ] && [ "$_a" = "$_b" ]; then
			ok "$1 --time $_t: $_b samples, as perf report"
		else
			bad "$1 --time $_t: preport counts '$_b' samples, perf report '$_a': $(lines "$f.time.err")"
		fi
	done
	# with --sort sym a graph leaves out the entry's own frame (the row names it)
	same_as_perf "$1" "$f" --no-children --sort sym
	"$PREPORT" -i "$f" --folded >"$f.folded" 2>"$f.folded.err"
	check $? "$1: preport --folded exits 0"
	nosyms_folded "$1" "$f"
}

# nosyms_folded WORKLOAD FILE: with no symbols (an empty --symfs), preport --folded names
# every frame as perf script's frames collapse into folded stacks (stackcollapse-perf.pl,
# inferno): "[unknown] (DSO)" is "[" DSO's base name "]", a bracketed DSO keeping its own
# brackets ([[kernel.kallsyms]], [[vdso]]); so both give the same stacks.
nosyms_folded() {
	mkdir -p "$workdir/nosyms"
	if ! "$PERF" script -i "$2" --symfs="$workdir/nosyms" -F comm,ip,sym,dso >"$2.script" \
		2>"$2.script.err"; then
		say "$1: perf script failed ($(lines "$2.script.err" 1)): unsymbolized names unchecked"
		return
	fi
	awk '
	function flush(  i, line) {
		if (n) {
			line = comm
			for (i = n; i >= 1; i--)
				line = line ";" f[i]
			c[line]++
		}
		n = 0
	}
	/^[^ \t]/ { flush(); comm = $1; next }
	/^$/ { flush(); next }
	{
		dso = $NF
		gsub(/^\(|\)$/, "", dso)
		name = $2
		for (i = 3; i < NF; i++)
			name = name " " $i
		if (name == "[unknown]") {
			sub(/.*\//, "", dso)
			name = dso == "[unknown]" ? dso : "[" dso "]"
		}
		f[++n] = name
	}
	END { flush(); for (l in c) print l " " c[l] }' "$2.script" | sort >"$2.collapsed"
	"$PREPORT" -i "$2" --symfs "$workdir/nosyms" --folded 2>"$2.nosyms.err" |
		sort >"$2.nosyms"
	if [ -s "$2.nosyms" ] && cmp -s "$2.collapsed" "$2.nosyms"; then
		ok "$1: unsymbolized, --folded gives the $(wc -l <"$2.nosyms") stacks of" \
			"perf script's, collapsed ($(grep -o '\[\[[^];]*\]\]' "$2.nosyms" |
				sort -u | join_lines))"
	else
		bad "$1: unsymbolized, --folded and perf script's stacks differ:" \
			"$(diff "$2.collapsed" "$2.nosyms" | grep '^[<>]' | head -n 4 | join_lines)" \
			"$(lines "$2.nosyms.err" 2)"
	fi
}

ev=cpu-clock
say "--- demo by perf record -g (file form)"
perf_flat_folded demo 1500
check_folded demo "$f.folded" '^demo;(.*;)?main;outer;hot_a$' 55
check_folded demo "$f.folded" '^demo;(.*;)?main;outer;hot_b$' 8
# -n and -t: sample counts that add up, fields split by the separator
"$PREPORT" -i "$f" --no-children -n -t '|' --sort comm,dso,sym -g none >"$f.t" 2>&1
n=$(awk -F'|' '$1 ~ /%$/ { n += $2 } END { print n + 0 }' "$f.t")
want=$(awk '{ n += $NF } END { print n + 0 }' "$f.folded")
if [ "$n" -gt 0 ] && [ "$n" = "$want" ] && grep -q '|demo|demo|\[\.\] hot_a$' "$f.t"; then
	ok "demo: -n -t '|' gives $n samples (as many as --folded counts) in rows like $(grep hot_a "$f.t")"
else
	bad "demo: -n -t '|': sum of samples $n, --folded counts $want; $(lines "$f.t" 12)"
fi
# the call graph under hot_b (no children: callee order) goes outer, main: with --sort sym
# it does not repeat hot_b, which the row names
"$PREPORT" -i "$f" --no-children --sort sym >"$f.graph" 2>&1
if awk '/\[\.\] hot_b$/ { on = 1; next } on && /^$/ { exit } on { print }' "$f.graph" |
	sed 's/--[0-9.]*%--//' | tr -d ' |-' | grep . | head -n 2 | tr '\n' ' ' | grep -q '^outer main $'; then
	ok "demo: the call graph of hot_b is (hot_b) <- outer <- main"
else
	bad "demo: the call graph of hot_b: $(awk '/\[\.\] hot_b$/ { on = 1 } on' "$f.graph" | head -n 6 | join_lines)"
fi
# with children no graph under --sort sym starts with its own entry's function; a caller-order
# graph keeps its outermost caller (perf 6.1 leaves out whatever frame comes first)
"$PREPORT" -i "$f" --children --sort sym >"$f.cgraph" 2>&1
"$PREPORT" -i "$f" --no-children -g caller --sort sym >"$f.callers" 2>&1
first_frame() {
	awk -v s="$2" '$NF == s && /%/ { on = 1; next } on && /^$/ { exit }
		on && /--/ { sub(/.*--/, ""); print; exit }' "$1"
}
own=$(awk '/%/ && !/^#/ { name = $NF; next } /^ *---/ && name != "" { f = $0; sub(/.*---/, "", f)
	if (f == name) print name; name = "" } /^$/ { name = "" }' "$f.cgraph")
top=$(first_frame "$f.callers" hot_a)
if [ -z "$own" ] && [ -n "$top" ] && [ "$top" != main ] && [ "$top" != hot_a ]; then
	ok "demo --sort sym: no graph repeats its entry; hot_a's callers start at $top"
else
	bad "demo --sort sym: graphs starting with their entry: '$own'; hot_a's callers start at '$top': $(lines "$f.callers" 20)"
fi
# --percent-limit hides hot_b (25%) but not hot_a (75%); --symbols keeps only hot_b
"$PREPORT" -i "$f" --no-children --sort sym -g none --percent-limit 40 >"$f.pl" 2>&1
if grep -q 'hot_a$' "$f.pl" && ! grep -q 'hot_b$' "$f.pl"; then
	ok "demo: --percent-limit 40 keeps hot_a, hides hot_b"
else
	bad "demo: --percent-limit 40: $(grep '%' "$f.pl" | join_lines)"
fi
"$PREPORT" -i "$f" --no-children --sort sym -g none --symbols hot_b >"$f.sy" 2>&1
if [ "$(grep -c '%  ' "$f.sy")" -eq 1 ] && grep -q 'hot_b$' "$f.sy"; then
	ok "demo: --symbols hot_b shows only hot_b"
else
	bad "demo: --symbols hot_b: $(grep '%' "$f.sy" | join_lines)"
fi

# without sample times (perf record --no-timestamp) records are processed as they are read,
# none queued for ordering.  Then which samples precede the exec's COMM and MMAP records
# depends on how the CPUs' buffers were written out, the same for both tools; when many do,
# perf 6.1 was seen to print the earlier name cut to the column's width ("perf-ex" for
# "perf-exec"), so such a file is compared by symbol only.
say "--- demo by perf record -g --no-timestamp (no sample times)"
f=$workdir/notime.data
"$PERF" record -q -e $ev -F 999 -g --no-timestamp -o "$f" -- "$WL/demo" 500 >/dev/null 2>"$f.err" ||
	fail "perf record --no-timestamp fails: $(lines "$f.err")"
compare_flat notime "$f" --no-children

if [ "${PREC_DEMANGLE:-yes}" = no ]; then
	say "--- mangled: not checked, preport was configured with --disable-demangle"
else
	say "--- mangled (C++ symbol names) by perf record -g (file form)"
	# the shares are compared by name: they match only when the names are perf's
	perf_flat_folded mangled 1000
	check_folded mangled "$f.folded" \
		'^mangled;(.*;)?main;app::Engine::run;app::Engine::operator[(][)];app::work<unsigned long>$' 60
	check_folded mangled "$f.folded" \
		'^mangled;(.*;)?main;app::Engine::run;app::Engine::operator[(][)];[(]anonymous namespace[)]::helper$' 15
	"$PREPORT" -i "$f" --no-children --sort sym -g none --symbols 'app::work<unsigned long>' >"$f.sy" 2>&1
	if [ "$(grep -c '%  ' "$f.sy")" -eq 1 ] && grep -q '\[\.\] app::work<unsigned long>$' "$f.sy"; then
		ok "mangled: --symbols takes the demangled name"
	else
		bad "mangled: --symbols 'app::work<unsigned long>': $(grep '%' "$f.sy" | join_lines)"
	fi
	"$PREPORT" -i "$f" --no-children --sort sym -g none --no-demangle >"$f.nd" 2>&1
	if grep -q '\[\.\] _ZN3app4workImEET_S1_S1_$' "$f.nd" &&
		grep -q '\[\.\] _ZN12_GLOBAL__N_16helperEm.isra.0$' "$f.nd" && ! grep -q 'app::' "$f.nd"; then
		ok "mangled: --no-demangle shows the names as mangled"
	else
		bad "mangled: --no-demangle: $(grep '%' "$f.nd" | join_lines)"
	fi
fi

f=$workdir/demo-dwarf.data
say "--- demo by perf record --call-graph dwarf: preport unwinds the stack copies"
# perf 6.1 has been seen to fail here once, on an assertion of its own (util/build-id.c)
# while another test loaded the machine; that is not preport's to answer for
if ! "$PERF" record -q -N -e $ev -F 999 --call-graph dwarf -o "$f" -- "$WL/demo" 1000 \
	>/dev/null 2>"$f.err"; then
	say "demo-dwarf: not checked: perf record --call-graph dwarf fails: $(lines "$f.err")"
else
	compare_flat demo-dwarf "$f" --no-children
	"$PREPORT" -i "$f" --folded >"$f.folded" 2>"$f.folded.err"
	check $? "demo-dwarf: preport --folded exits 0"
	check_folded demo-dwarf "$f.folded" '^demo;(.*;)?_start;(.*;)?main;outer;hot_a$' 55
	check_folded demo-dwarf "$f.folded" '^demo;(.*;)?_start;(.*;)?main;outer;hot_b$' 8
	"$PREPORT" -i "$f" --no-children -g none >"$f.rep" 2>&1
	if grep -q '^# Broken stacks' "$f.rep"; then
		bad "demo-dwarf: stacks that reach _start counted as broken: $(grep '^# Broken' "$f.rep")"
	else
		ok "demo-dwarf: no broken stacks (the copies reach _start)"
	fi
fi

f=$workdir/deep-dwarf.data
say "--- deep by perf record --call-graph dwarf,256: copies too small to reach main"
if ! "$PERF" record -q -N -e $ev -F 999 --call-graph dwarf,256 -o "$f" -- "$WL/deep" 500 \
	>/dev/null 2>"$f.err"; then
	say "deep-dwarf: not checked: perf record --call-graph dwarf,256 fails: $(lines "$f.err")"
else
	# perf 6.1 ends such a stack in a frame at 0xffffffffffffffff, in no shared object; so
	# does preport, and it says how many samples that was
	"$PREPORT" -i "$f" --children -g none >"$f.rep" 2>"$f.rep.err"
	"$PERF" report -i "$f" --stdio --children -g none >"$f.perf" 2>/dev/null
	root_share() {
		awk '$NF == "0xffffffffffffffff" && $(NF - 2) == "[unknown]" && $1 ~ /%$/ {
			sub(/%$/, "", $1); print $1 }' "$1"
	}
	r=$(root_share "$f.rep")
	pr=$(root_share "$f.perf")
	b=$(sed -n 's/^# Broken stacks: \([0-9.]*\)% .*/\1/p' "$f.rep")
	if [ -n "$r" ] && [ -n "$pr" ] && [ "$b" = "$r" ] &&
		awk -v r="$r" -v p="$pr" 'BEGIN { d = r - p; if (d < 0) d = -d; exit !(r >= 50 && d <= 1) }'; then
		ok "deep-dwarf: [unknown] 0xffffffffffffffff roots $r% (perf $pr%); $(grep '^# Broken' "$f.rep" | cut -c1-40)"
	else
		bad "deep-dwarf: root frame $r% (perf '$pr'), broken line '$b': $(grep -e '^# Broken' -e 'ffffffff' "$f.rep" | join_lines) $(lines "$f.rep.err")"
	fi
	"$PREPORT" -i "$f" --folded >"$f.folded" 2>&1
	check_folded deep-dwarf "$f.folded" '^deep;\[unknown\];descend;' 50
	# the graphs show the root; -g folded leaves it out, as perf (a value it takes for a
	# context marker).  Not compared byte for byte: preport gets one more frame out of each
	# of these copies than perf 6.1 does.  The root is the graph's only branch ("---ROOT") or,
	# when a sample's copy ended elsewhere (once in CI), its first ("|--99.19%--ROOT").
	"$PREPORT" -i "$f" --no-children -g caller >"$f.graph" 2>&1
	"$PREPORT" -i "$f" --no-children -g folded >"$f.gfolded" 2>&1
	if grep -v '^#' "$f.graph" | grep -m 1 -E -- '-(-|[0-9.]+%--)[^ ]+$' |
		grep -q -- '-0xffffffffffffffff$' &&
		grep -q '^[0-9.]*% deep_leaf;descend' "$f.gfolded" &&
		! grep -q 0xffffffffffffffff "$f.gfolded"; then
		ok "deep-dwarf: -g caller starts at 0xffffffffffffffff, -g folded leaves it out"
	else
		bad "deep-dwarf: -g caller: $(grep -v '^#' "$f.graph" | lines /dev/stdin 6); -g folded: $(grep -v '^#' "$f.gfolded" | lines /dev/stdin 4)"
	fi
fi

f=$workdir/badchain.data
say "--- a stream whose chains end in -72 every 4th sample (write-stream --bad-chain 4)"
if "$WRITE_STREAM" -o "$f" --caller main --bad-chain 4 "$WL/demo" hot_a:300 hot_b:100 main:0 \
	>"$f.err" 2>&1; then
	# perf 6.1 drops such a chain: the sample counts, in no call graph, and the graph's
	# single root then shows its share (100 of hot_a's 300 samples have no chain)
	same_as_perf badchain "$f"
	if grep -q -- '--50.00%--hot_a$' "$f.same.prep"; then
		ok "badchain: hot_a's graph holds the 200 samples with a chain (50.00% of all)"
	else
		bad "badchain: hot_a's graph: $(grep -A 3 'hot_a$' "$f.same.prep" | join_lines)"
	fi
else
	bad "write-stream --bad-chain fails: $(lines "$f.err")"
fi

f=$workdir/threads.data
say "--- threads by perf record -z -g -o - (pipe form, compressed)"
"$PERF" record -q -z -e $ev -F 999 -g -o - -- "$WL/threads" 1000 >"$f" 2>"$f.err" ||
	fail "perf record -o - fails: $(lines "$f.err")"
compare_flat threads "$f" --no-children
compare_flat threads "$f" --children
same_as_perf threads "$f"
# perf's pid key is the thread's: one row per thread, tid and command
same_as_perf threads "$f" --no-children --sort pid,sym -g none
# --tid and --pid leave samples out of the rows, not out of the percentages' base (perf's)
tid=$("$PREPORT" -i "$f" --no-children --sort pid -g none 2>/dev/null |
	awk '$2 ~ /:thread_a$/ { sub(/:.*/, "", $2); print $2; exit }')
pid=$("$PREPORT" -D -i "$f" 2>/dev/null | awk '/: SAMPLE / { for (i = 1; i < NF; i++)
	if ($i == "pid") { print $(i + 1); exit } }')
if [ -n "$tid" ]; then
	same_as_perf threads "$f" --no-children -g none --tid "$tid"
	same_as_perf threads "$f" --no-children --tid "$tid"
	"$PERF" report -i "$f" --stdio --no-children -g none --tid "$tid" 2>/dev/null |
		grep -e '^# Samples' -e '^# Event count' >"$f.base.perf"
	"$PREPORT" -i "$f" --no-children -g none --tid "$tid" 2>&1 |
		grep -e '^# Samples' -e '^# Event count' >"$f.base.prep"
	if [ -s "$f.base.perf" ] && cmp -s "$f.base.perf" "$f.base.prep"; then
		ok "threads --tid $tid: the header counts all samples, as perf: $(join_lines <"$f.base.prep")"
	else
		bad "threads --tid $tid: header $(join_lines <"$f.base.prep"), perf: $(join_lines <"$f.base.perf")"
	fi
else
	bad "threads: no thread_a row under --sort pid"
fi
[ -n "$pid" ] && same_as_perf threads "$f" --no-children -g none --pid "$pid"
"$PREPORT" -i - --folded <"$f" >"$f.folded" 2>"$f.folded.err"
check $? "threads: preport -i - --folded reads standard input"
check_folded threads "$f.folded" '^thread_a;(.*;)?start_thread;(.*;)?thread_a$' 25
check_folded threads "$f.folded" '^thread_b;(.*;)?start_thread;(.*;)?thread_b$' 25
"$PREPORT" -i "$f" --no-children --sort comm,sym -g none --comms thread_a >"$f.comm" 2>&1
if grep -q 'thread_a  *\[\.\] thread_a$' "$f.comm" && ! grep -q '\] thread_b$' "$f.comm"; then
	ok "threads: --comms thread_a keeps thread_a's samples only"
else
	bad "threads: --comms thread_a: $(grep '%' "$f.comm" | join_lines)"
fi

for w in libwork forkexec deep; do
	f=$workdir/$w.data
	case $w in
	libwork) set -- "$WL/libwork" 1000 ;;
	forkexec) set -- "$WL/forkexec" 700 "$WL/demo" 700 ;;
	deep) set -- "$WL/deep" 1000 ;;
	esac
	say "--- $w by precord -g"
	record "$w" -e $ev -F 999 -g -o "$f" -- "$@"
	check_status "$w: precord" "$rec_rc" 0
	compare_flat "$w" "$f" --no-children
	compare_flat "$w" "$f" --children
	same_as_perf "$w" "$f"
	"$PREPORT" -i "$f" --folded >"$f.folded" 2>"$f.folded.err"
	check $? "$w: preport --folded exits 0"
done
same_as_perf forkexec "$workdir/forkexec.data" --no-children --sort pid -g none
same_as_perf forkexec "$workdir/forkexec.data" --no-children -g fractal,20
# a process that execs is one row under --sort pid, named by its last command (as perf)
f=$workdir/exec.data
record exec -e $ev -F 999 -g -o "$f" -- sh -c \
	'i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done; exec "$0" 300' "$WL/demo"
check_status "exec: precord" "$rec_rc" 0
"$PREPORT" -i "$f" --no-children --sort pid -g none >"$f.pid" 2>"$f.pid.err"
"$PREPORT" -i "$f" --no-children --sort comm -g none >"$f.comm" 2>&1
"$PERF" report -i "$f" --stdio --no-children --sort pid -g none 2>/dev/null |
	comparable_rows | sed 's/ *$//' >"$f.pid.perf"
if [ "$(grep -v '^#' "$f.pid" | grep -c '%')" -eq 1 ] && grep -q '^ *100.00%  *[0-9]*:demo$' "$f.pid" &&
	grep -q ' sh *$' "$f.comm" && comparable_rows <"$f.pid" | sed 's/ *$//' | cmp -s - "$f.pid.perf"; then
	ok "exec: --sort pid shows sh then demo as one row, as perf: $(grep -v '^#' "$f.pid" | grep '%')"
else
	bad "exec: --sort pid: $(grep '%' "$f.pid" | join_lines); perf: $(join_lines <"$f.pid.perf"); --sort comm: $(grep '%' "$f.comm" | join_lines); $(lines "$f.pid.err")"
fi
# libwork is built for 60% in lib_hot, but its split varies from run to run on a VM
# (perf report alone: 54-67%, and 44% once); the structure is what is checked here
check_folded libwork "$workdir/libwork.data.folded" '^libwork;(.*;)?main;lib_hot$' 20
check_folded libwork "$workdir/libwork.data.folded" '^libwork;(.*;)?main;local_work$' 10
check_folded forkexec "$workdir/forkexec.data.folded" '^forkexec;(.*;)?main;parent_work$' 15
check_folded forkexec "$workdir/forkexec.data.folded" '^demo;(.*;)?main;outer;hot_[ab]$' 15
d40=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf ";descend" }')
check_folded deep "$workdir/deep.data.folded" "^deep;(.*;)?main${d40};deep_leaf\$" 90
# --max-stack 5: stacks of at most five frames, deep_leaf and four descend
"$PREPORT" -i "$workdir/deep.data" --folded --max-stack 5 >"$workdir/deep.ms" 2>&1
if [ "$(awk -F';' '{ if (NF > m) m = NF } END { print m + 0 }' "$workdir/deep.ms")" -eq 6 ] &&
	grep -q '^deep;descend;descend;descend;descend;deep_leaf [0-9]*$' "$workdir/deep.ms"; then
	ok "deep: --max-stack 5 keeps five frames of each chain"
else
	bad "deep: --max-stack 5: $(sort -t' ' -k2 -rn "$workdir/deep.ms" | head -n 2 | join_lines)"
fi

# ---- kernel samples: dd copies byte by byte, most of its time in system calls ----
f=$workdir/kernel.data
say "--- kernel: precord -g -- dd"
record kernel -e $ev -F 999 -g -o "$f" -- dd if=/dev/zero of=/dev/null bs=1 count=400000
check_status "kernel: precord" "$rec_rc" 0
"$PREPORT" -i "$f" --no-children --sort dso,sym -g none >"$f.rep" 2>"$f.rep.err"
k=$(awk '$1 ~ /%$/ && $2 == "[kernel.kallsyms]" && $3 == "[k]" && $4 !~ /^0x/ && $4 != "[unknown]" {
	sub(/%$/, "", $1); t += $1 } END { printf "%.1f", t }' "$f.rep")
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)" != 0 ]; then
	say "kernel: not root and kptr_restrict is set: kernel symbols are hidden; share check skipped"
elif awk -v k="$k" 'BEGIN { exit !(k >= 30) }'; then
	ok "kernel: $k% of dd's samples resolve to kernel functions"
	compare_flat kernel "$f" --no-children
	# the kernel symbol cache: written by the first report, read by the next, same report
	rm -rf "$PRECORD_CACHE_DIR"
	for i in 1 2; do
		"$PREPORT" -v -i "$f" --no-children --sort dso,sym -g none >"$f.kc$i" 2>"$f.kc$i.err"
	done
	"$PREPORT" -i "$f" --no-children --sort dso,sym -g none --no-symbol-cache >"$f.kc0" 2>&1
	if [ "$(uname -m)" != x86_64 ]; then
		say "kernel: no symbol cache on $(uname -m)"
	elif grep -q 'kernel symbols cached in' "$f.kc1.err" &&
		grep -q 'kernel symbols from the cache' "$f.kc2.err" &&
		cmp -s "$f.kc0" "$f.kc1" && cmp -s "$f.kc0" "$f.kc2"; then
		ok "kernel: the symbol cache is written, then read, and the report is the same"
	else
		bad "kernel: symbol cache: $(lines "$f.kc1.err" 3) / $(lines "$f.kc2.err" 3)" \
			"$(diff "$f.kc0" "$f.kc2" | head -n 4 | join_lines)"
	fi
else
	bad "kernel: only $k% of dd's samples resolve to kernel functions, want >= 30%: $(lines "$f.rep" 14)"
fi

# ---- a stripped binary, its debug file by build-id under --symfs ----
mkdir -p "$workdir/bin" "$workdir/root"
s=$workdir/bin/demo-stripped
if command -v objcopy >/dev/null 2>&1 && command -v strip >/dev/null 2>&1; then
	cp "$WL/demo" "$s"
	bid=$(readelf -n "$s" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
	dbg=$workdir/root/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)
	mkdir -p "$dbg"
	objcopy --only-keep-debug "$s" "$dbg/$(echo "$bid" | cut -c3-).debug"
	strip "$s"
	f=$workdir/stripped.data
	record stripped -e $ev -F 999 -o "$f" -- "$s" 700
	"$PREPORT" -i "$f" --no-children --sort sym --symfs "$workdir/root" >"$f.rep" 2>"$f.rep.err"
	a=$(share "$f.rep" hot_a)
	"$PREPORT" -i "$f" --no-children --sort sym >"$f.nodbg" 2>&1
	if [ -n "$bid" ] && awk -v a="$a" 'BEGIN { exit !(a >= 60) }' && ! grep -q 'hot_a$' "$f.nodbg"; then
		ok "stripped: hot_a $a% from the debug file by build-id $bid; without it, no hot_a"
	else
		bad "stripped: hot_a $a% with --symfs (build-id '$bid'): $(lines "$f.rep" 12); $(lines "$f.rep.err")"
	fi
else
	say "stripped: objcopy/strip not installed (binutils); check skipped"
fi

# ---- a deleted and a replaced binary: [unknown], never a wrong symbol ----
g=$workdir/bin/demo-gone
cp "$WL/demo" "$g"
f=$workdir/gone.data
record gone -e $ev -F 999 -g -o "$f" -- "$g" 500
rm -f "$g"
"$PREPORT" -i "$f" --no-children --sort dso,sym >"$f.rep" 2>"$f.rep.err"
rc=$?
u=$(awk '$1 ~ /%$/ && $2 == "demo-gone" && $NF == "[unknown]" { sub(/%$/, "", $1); t += $1 } END { printf "%.1f", t }' "$f.rep")
if [ $rc -eq 0 ] && awk -v u="$u" 'BEGIN { exit !(u >= 80) }' && ! grep -q 'hot_a$' "$f.rep" &&
	grep -q '^# Not symbolized: .*demo-gone .*not found' "$f.rep"; then
	ok "gone: $u% in demo-gone [unknown]; $(grep '^# Not symbolized' "$f.rep")"
else
	bad "gone: exit $rc, $u% [unknown]: $(lines "$f.rep" 14) $(lines "$f.rep.err")"
fi
cp "$WL/deep" "$g" # another program at the same path: another build-id
"$PREPORT" -i "$f" --no-children --sort dso,sym >"$f.rep2" 2>&1
if ! grep -E -q 'hot_a$|hot_b$|deep_leaf$|descend$' "$f.rep2" &&
	grep -q '^# Not symbolized: .*demo-gone .*build-id' "$f.rep2"; then
	ok "replaced: no symbol of either program is shown; $(grep '^# Not symbolized' "$f.rep2")"
else
	bad "replaced: $(lines "$f.rep2" 14)"
fi

# ---- --inline: an always_inline function as a frame of its own ----
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	src=$workdir/inl.c
	cat >"$src" <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long mix_inlined(unsigned long x)
{
	for (int i = 0; i < 200000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
__attribute__((noinline)) void outer_fn(int n)
{
	unsigned long x = 1;
	for (int i = 0; i < n; i++)
		x = mix_inlined(x);
	sink = x;
}
int main(int argc, char **argv)
{
	outer_fn(argc > 1 ? atoi(argv[1]) : 3000);
	return 0;
}
EOF
	if "${CC:-cc}" -O2 -g -fno-omit-frame-pointer -o "$workdir/inl" "$src" 2>"$workdir/inl.cc.err"; then
		f=$workdir/inl.data
		record inl -e $ev -F 999 -g -o "$f" -- "$workdir/inl" 6000
		"$PREPORT" -i "$f" --no-children --sort sym --inline -g none >"$f.rep" 2>&1
		"$PREPORT" -i "$f" --no-children --sort sym -g none >"$f.noinl" 2>&1
		i=$(awk '$1 ~ /%$/ && $3 == "mix_inlined" && $4 == "(inlined)" { sub(/%$/, "", $1); t += $1 } END { print t + 0 }' "$f.rep")
		if awk -v i="$i" 'BEGIN { exit !(i >= 50) }' && grep -q 'outer_fn$' "$f.noinl"; then
			ok "inline: mix_inlined (inlined) has $i% with --inline; outer_fn without"
		else
			bad "inline: mix_inlined (inlined) $i%: $(lines "$f.rep" 12); without: $(lines "$f.noinl" 12)"
		fi
	else
		bad "inline: cannot compile the test program: $(lines "$workdir/inl.cc.err")"
	fi
fi

# ---- bad input: one line, non-zero, no crash ----
"$PREPORT" -i "$workdir/demo.data" --sort nosuchkey >"$workdir/bad.out" 2>"$workdir/bad.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(grep -c . "$workdir/bad.err")" -eq 1 ] && grep -q "sort key 'nosuchkey'" "$workdir/bad.err"; then
	ok "bad --sort key: exit 2, $(cat "$workdir/bad.err")"
else
	bad "bad --sort key: exit $rc, $(lines "$workdir/bad.err")"
fi
finish
