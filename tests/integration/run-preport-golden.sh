#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden tests: preport over the recordings checked in under tests/data/golden/ (perf's and
# precord's, file and pipe form, compressed or not, frame-pointer and DWARF call chains, one
# system-wide), with many views, each output compared byte for byte with the expected one in
# tests/data/golden/expected/RECORDING/VIEW.out (stdout; VIEW.err holds the exit status and
# stderr when either says something).  Nothing is recorded, so this runs where the kernel
# refuses perf_event_open.
#
# Every run looks for binaries only under the recordings' --symfs and for kernel symbols only
# in their --kallsyms file, with HOME, XDG_CACHE_HOME and the symbol cache in a scratch
# directory and --max-stack given (its default is the host's perf_event_max_stack): the
# outputs are the same on every machine.  Where strace is installed, one run per recording is
# traced to check that preport opens nothing of the host beyond what it opens to start.
#
# GOLDEN_UPDATE=1 rewrites the expected files from this build's outputs instead (review the
# diff before committing it):
#   GOLDEN_UPDATE=1 make check TESTS=tests/integration/run-preport-golden.sh
# GOLDEN_ONLY=RECORDING limits the run to one recording.
# shellcheck disable=SC2154 # top_srcdir and workdir come from test-lib.sh

. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
G=$top_srcdir/tests/data/golden
EXP=$G/expected
[ -d "$G" ] || fail "no golden data in $G"
update=${GOLDEN_UPDATE:-0}

HOME=$workdir/home
XDG_CACHE_HOME=$workdir/xdg-cache
mkdir -p "$HOME" "$XDG_CACHE_HOME" || fail "cannot make $HOME"
export HOME XDG_CACHE_HOME
unset PREPORT_TIMES

if [ "$update" = 1 ]; then
	rm -rf "$EXP/${GOLDEN_ONLY:-}"
	mkdir -p "$EXP" || fail "cannot rewrite $EXP"
	say "rewriting the expected outputs in $EXP/${GOLDEN_ONLY:-}"
fi

# golden REC VIEW ARGS...: preport -i REC.data ARGS... (from the data directory, so that no
# path of this machine is in the output), compared with or written to the expected files.
# --header's capture time is the file's modification time: that line is left out.
golden() {
	_rec=$1
	_view=$2
	shift 2
	_got=$workdir/$_rec.$_view
	golden_preport "$_rec" kallsyms "$@" >"$_got.raw" 2>"$_got.stderr"
	_rc=$?
	sed '/^# captured on *: /d' "$_got.raw" >"$_got.out"
	if [ "$_rc" != 0 ] || [ -s "$_got.stderr" ]; then
		{ echo "exit $_rc"; cat "$_got.stderr"; } >"$_got.err"
	fi
	_exp=$EXP/$_rec/$_view
	if [ "$update" = 1 ]; then
		mkdir -p "$EXP/$_rec"
		cp "$_got.out" "$_exp.out"
		[ ! -f "$_got.err" ] || cp "$_got.err" "$_exp.err"
		ok "$_rec $_view: written ($(wc -l <"$_got.out") lines)"
		return
	fi
	echo "$_rec/$_view.out" >>"$workdir/compared"
	[ ! -f "$_exp.err" ] || echo "$_rec/$_view.err" >>"$workdir/compared"
	if [ ! -f "$_exp.out" ]; then
		bad "$_rec $_view: no expected output $_exp.out (GOLDEN_UPDATE=1 writes it)"
	elif ! cmp -s "$_exp.out" "$_got.out"; then
		bad "$_rec $_view: output differs from $_rec/$_view.out (preport $*):"
		diff -u "$_exp.out" "$_got.out" | head -n 30
		printf '  stderr: %s\n' "$(lines "$_got.stderr" 4)"
	elif [ -f "$_exp.err" ] || [ -f "$_got.err" ]; then
		if [ -f "$_exp.err" ] && [ -f "$_got.err" ] && cmp -s "$_exp.err" "$_got.err"; then
			ok "$_rec $_view: same output, exit status and stderr"
		else
			bad "$_rec $_view: exit status or stderr differ (preport $*):"
			diff -u "${_exp}.err" "$_got.err" 2>&1 | head -n 10
		fi
	else
		ok "$_rec $_view: same output ($(wc -l <"$_got.out") lines)"
	fi
}

# The views every recording gets.
common_views() {
	_r=$1
	golden "$_r" default
	golden "$_r" children --children
	golden "$_r" no-children --no-children
	golden "$_r" caller -g caller
	golden "$_r" callee -g callee
	golden "$_r" no-children-caller --no-children -g caller
	golden "$_r" inverted --no-children -G
	golden "$_r" graph-threshold --children -g graph,5
	golden "$_r" graph-flat --no-children -g flat
	golden "$_r" graph-folded --no-children -g folded
	golden "$_r" folded --folded
	golden "$_r" sort-dso --no-children --sort dso
	golden "$_r" sort-sym --sort sym
	golden "$_r" sort-dso-sym --no-children --sort dso,sym -n -g none
	golden "$_r" sort-comm-pid --no-children --sort comm,pid -g none
	golden "$_r" sort-pid-tid --no-children --sort pid,tid -g none
	golden "$_r" sort-srcline --no-children --sort srcline -g none
	golden "$_r" sort-sym-srcline --children --sort sym,srcline
	golden "$_r" inline --inline --no-children
	golden "$_r" inline-children --inline --children
	golden "$_r" percent-limit --percent-limit 10 -n
	golden "$_r" max-stack-2 --max-stack 2
	golden "$_r" max-stack-0 --no-children --max-stack 0
	golden "$_r" field-sep --no-children -n -t ';'
	golden "$_r" no-demangle --no-children --sort sym --no-demangle -g none
	golden "$_r" dump -D
	golden "$_r" header --header --no-children -g none
	golden "$_r" header-only --header-only
}

x86_64=false
[ "$(uname -m)" = x86_64 ] && x86_64=true

for rec in perf-file perf-pipe perf-z-dwarf precord-g precord-dwarf precord-pipe-z19 \
	precord-sys perf-lost perf-read; do
	[ -z "${GOLDEN_ONLY:-}" ] || [ "$GOLDEN_ONLY" = "$rec" ] || continue
	case $rec in
	perf-read)
		# per-thread counts in READ records (perf record -s), for -T
		say "--- $rec"
		golden "$rec" threads -T --no-children -g none
		golden "$rec" threads-children -T
		golden "$rec" dump -D
		continue
		;;
	perf-lost)
		# samples lost, in LOST and LOST_SAMPLES records: a few views suffice
		if ! $x86_64 && [ "$update" != 1 ]; then
			say "--- $rec: not checked, preport unwinds DWARF stacks on x86-64 only"
			continue
		fi
		say "--- $rec"
		golden "$rec" default
		golden "$rec" no-children --no-children -g none
		golden "$rec" dump -D
		continue
		;;
	*dwarf)
		if ! $x86_64 && [ "$update" != 1 ]; then
			say "--- $rec: not checked, preport unwinds DWARF stacks on x86-64 only"
			continue
		fi
		;;
	precord-g)
		if [ "${PREC_DEMANGLE:-yes}" = no ] && [ "$update" != 1 ]; then
			say "--- $rec: not checked, preport was configured with --disable-demangle"
			continue
		fi
		;;
	esac
	say "--- $rec"
	common_views "$rec"
	case $rec in
	perf-file)
		golden "$rec" comms --comms demo
		golden "$rec" comms-none --comms nosuch
		golden "$rec" pid --pid 31888 --no-children
		golden "$rec" symbols --symbols hot_a
		golden "$rec" dsos --dsos demo --no-children --sort dso,sym
		golden "$rec" time --time 691.3,691.4 --no-children
		golden "$rec" cpu-none --cpu 0
		# perf's options and spellings: -S, --show-total-period, --no-call-graph, the
		# sort key overhead, --tui/--gtk (text anyway), -k (refused with what to do)
		golden "$rec" perf-opts -S hot_a --no-children --show-total-period -n \
			--no-call-graph --sort overhead,sym
		golden "$rec" total-period --show-total-period -n -g none
		golden "$rec" tui --tui --no-children -g none
		golden "$rec" gtk --gtk --sort sym
		golden "$rec" vmlinux -k vmlinux
		golden "$rec" sort-overhead-only --sort overhead
		golden "$rec" fields-self -g none -F overhead,sym
		golden "$rec" fields-children -g none -F overhead_children,overhead,sym
		golden "$rec" fields-sym-only -g none --no-children -F sym
		golden "$rec" fields-sort --no-children -g none -F comm,sym --sort sym
		golden "$rec" fields-counts --no-children -g none -F sym,overhead,sample,period
		golden "$rec" fields-limit -g none -F sym,overhead --percent-limit 10
		golden "$rec" fields-bad -F overhead,nosuch
		golden "$rec" fields-no-key -F overhead
		golden "$rec" hide-unresolved -U
		golden "$rec" threads-none -T --no-children -g none
		;;
	perf-pipe)
		golden "$rec" comms --comms thread_a
		golden "$rec" tid --tid 32002 --no-children
		golden "$rec" symbols --symbols thread_b,main --children
		golden "$rec" sort-comm-tid --no-children --sort comm,tid
		;;
	perf-z-dwarf)
		golden "$rec" dsos --dsos libhot.so --no-children
		golden "$rec" symbols --symbols lib_hot
		golden "$rec" max-stack-3 --max-stack 3 --no-children -g caller
		;;
	precord-g)
		golden "$rec" symbols --symbols 'app::work<unsigned long>' --no-children
		golden "$rec" no-demangle-graph --no-demangle --children
		golden "$rec" folded-no-demangle --folded --no-demangle
		;;
	precord-dwarf)
		golden "$rec" symbols --symbols deep_leaf --no-children -g caller
		golden "$rec" max-stack-5 --max-stack 5 --no-children
		;;
	precord-pipe-z19)
		golden "$rec" comms --comms demo
		golden "$rec" pid --pid 32269 --no-children
		golden "$rec" sort-comm-dso-sym --sort comm,dso,sym -n -g none --no-children
		;;
	precord-sys)
		golden "$rec" cpu0 --cpu 0 --no-children
		golden "$rec" sort-cpu --no-children --sort cpu,comm -g none
		golden "$rec" comms --comms dd
		golden "$rec" pid --pid 2,6 --no-children --sort pid,dso,sym
		golden "$rec" dsos --dsos '[kernel.kallsyms]' --no-children -g caller
		golden "$rec" symbols --symbols do_syscall_64,hot_a
		golden "$rec" dso-only --no-children --sort dso -g none
		golden "$rec" fields-pid -F pid,overhead,sample --sort dso -g none
		golden "$rec" hide-unresolved -U --no-children -g none --sort dso,sym
		golden "$rec" hide-unresolved-children --hide-unresolved -g caller
		;;
	esac
done

# One file is one DSO whatever form its maps came in: in the system-wide recording, demo ran
# before it began (maps synthesized in inode form) and during it (build-id form).  Said here
# as well as in the expected output, so that a regenerated golden cannot lose it unseen.
if [ -f "$workdir/precord-sys.dso-only.out" ]; then
	dup=$(awk '$1 ~ /%$/ { print $2 }' "$workdir/precord-sys.dso-only.out" | sort | uniq -d |
		join_lines)
	if [ -z "$dup" ]; then
		ok "precord-sys: each shared object is one entry of --sort dso"
	else
		bad "precord-sys: one file split into several entries of --sort dso: $dup"
	fi
fi

# perf's total of lost samples, not twice it: the recording has 11 LOST records and one
# LOST_SAMPLES record, which count the same 42 drops ("Processed 129 samples and lost 32.56%").
if [ -f "$workdir/perf-lost.default.out" ]; then
	lost=$(grep '^# Total Lost Samples:' "$workdir/perf-lost.default.out")
	if [ "$lost" = "# Total Lost Samples: 42 (32.56% of 129)" ]; then
		ok "perf-lost: 42 lost samples, as perf counts them"
	else
		bad "perf-lost: '$lost', want 42 (32.56% of 129) as perf"
	fi
fi

# A directory of segments is read as one recording (preport -i DIR): two copies of a
# recording as two segments must give twice its counts, where each fix above is kept per
# stream: lost samples counted once in each, -T's counts, one DSO per file across segments,
# and --cpu refused when no segment has CPU numbers.
# segdir REC: $workdir/seg-REC holding REC.data twice, as precord daemon names segments.
segdir() {
	_d=$workdir/seg-$1
	mkdir -p -m 700 "$_d" &&
		cp "$G/$1.data" "$_d/precord-20261126T100000.000Z-000001.data" &&
		cp "$G/$1.data" "$_d/precord-20261126T100100.000Z-000002.data" ||
		fail "cannot make the segment directory $_d"
}
# rep_dir REC NAME ARGS...: preport -i the segment directory of REC into $workdir/NAME.dir.*
rep_dir() {
	_rec=$1
	_name=$2
	shift 2
	(cd "$G" && exec "$PREPORT" -i "$workdir/seg-$_rec" --symfs symfs --kallsyms kallsyms \
		--max-stack 127 "$@") >"$workdir/$_name.dir.out" 2>"$workdir/$_name.dir.err"
}
if [ "$update" != 1 ] && [ -z "${GOLDEN_ONLY:-}" ]; then
	segdir perf-lost
	rep_dir perf-lost lost
	lost=$(grep '^# Total Lost Samples:' "$workdir/lost.dir.out")
	if [ "$lost" = "# Total Lost Samples: 84 (32.56% of 258)" ]; then
		ok "two segments of perf-lost: 84 lost samples, 42 in each"
	else
		bad "two segments of perf-lost: '$lost', want 84 (32.56% of 258):" \
			"$(lines "$workdir/lost.dir.err" 4)"
	fi

	segdir perf-read
	rep_dir perf-read threads -T --no-children -g none
	# the single file's rows with every count doubled
	awk '/^# *PID/ { t = 1; print; next }
	     t && NF == 3 { printf "  %s  %s  %d\n", $1, $2, 2 * $3; next } t' \
		"$workdir/perf-read.threads.out" | tr -s ' ' >"$workdir/threads.want"
	sed -n '/^# *PID/,$p' "$workdir/threads.dir.out" | tr -s ' ' >"$workdir/threads.got"
	if [ -s "$workdir/threads.want" ] && cmp -s "$workdir/threads.want" "$workdir/threads.got"
	then
		ok "two segments of perf-read: -T gives each thread twice its count"
	else
		bad "two segments of perf-read: -T gives '$(join_lines <"$workdir/threads.got")'," \
			"want '$(join_lines <"$workdir/threads.want")':" \
			"$(lines "$workdir/threads.dir.err" 4)"
	fi

	segdir precord-sys
	rep_dir precord-sys dso --no-children --sort dso -g none
	if grep '%' "$workdir/precord-sys.dso-only.out" >"$workdir/dso.want" &&
		grep '%' "$workdir/dso.dir.out" | cmp -s "$workdir/dso.want" -; then
		ok "two segments of precord-sys: --sort dso gives the file's rows, each file once"
	else
		bad "two segments of precord-sys: --sort dso differs from the single file's:" \
			"$(grep '%' "$workdir/dso.dir.out" | join_lines)"
	fi

	segdir perf-file
	rep_dir perf-file cpu --cpu 0
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'does not contain CPU events' "$workdir/cpu.dir.err"; then
		ok "two segments of perf-file: --cpu is refused (no CPU numbers), exit 2"
	else
		bad "two segments of perf-file: --cpu gave exit $rc:" \
			"$(lines "$workdir/cpu.dir.err" 4)"
	fi
fi

# Expected files that no view produced: a view was removed or renamed.
if [ "$update" != 1 ] && [ -z "${GOLDEN_ONLY:-}" ]; then
	(cd "$EXP" && find . -type f | sed 's|^\./||' | sort) >"$workdir/present"
	sort "$workdir/compared" >"$workdir/compared.sorted"
	stale=$(comm -23 "$workdir/present" "$workdir/compared.sorted" | join_lines)
	if [ -n "$stale" ]; then
		bad "expected files that no view checks (remove them or regenerate): $stale"
	else
		ok "every expected file was checked ($(grep -c . "$workdir/present") files)"
	fi
fi

# Nothing of the host: each recording's default view and its --inline srcline view, traced.
# Every file preport names must be the input, under the symfs, the kallsyms file, one that
# `preport --version` names too (the dynamic loader and preport's own libraries), or its own
# /proc/PID/fd (where libdw looks for the name of an ELF file it was given from memory).
if [ "$update" != 1 ] && command -v strace >/dev/null 2>&1 &&
	strace -f -qq -o /dev/null true 2>/dev/null; then
	strace -f -qq -e trace=%file -o "$workdir/base.trace" "$PREPORT" --version >/dev/null 2>&1
	sed -n 's/^[0-9]* *[a-z0-9_]*([A-Z_]*,* *"\([^"]*\)".*/\1/p' "$workdir/base.trace" |
		sort -u >"$workdir/base.paths"
	for rec in perf-file perf-pipe perf-z-dwarf precord-g precord-dwarf precord-pipe-z19 \
		precord-sys perf-lost perf-read; do
		[ -z "${GOLDEN_ONLY:-}" ] || [ "$GOLDEN_ONLY" = "$rec" ] || continue
		for args in "" "--inline --sort sym,srcline"; do
			# shellcheck disable=SC2086 # args is split on purpose
			(cd "$G" && strace -f -qq -e trace=%file -o "$workdir/$rec.trace" \
				"$PREPORT" -i "$rec.data" --symfs symfs --kallsyms kallsyms \
				--max-stack 127 $args >/dev/null 2>&1)
			sed -n 's/^[0-9]* *[a-z0-9_]*([A-Z_]*,* *"\([^"]*\)".*/\1/p' \
				"$workdir/$rec.trace" | sort -u |
				grep -v -x -F -e "$rec.data" -e kallsyms -f "$workdir/base.paths" |
				grep -v -E '^symfs/|^/proc(/self|/[0-9]+)?(/fd(/[0-9]+)?)?$' \
				>"$workdir/$rec.host" || true
			if [ -s "$workdir/$rec.host" ]; then
				bad "$rec ${args:-default}: preport looked at host files:" \
					"$(head -n 5 "$workdir/$rec.host" | join_lines)"
			else
				ok "$rec ${args:-default}: preport opened nothing of the host"
			fi
		done
	done
else
	say "strace is not installed or cannot trace here: the host-independence check is skipped"
fi

finish
