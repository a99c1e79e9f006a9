#!/bin/bash
# Reporter benchmark: preport side by side with perf report, in one run, on the same files.
#
#   contrib/bench/report.sh [BUILDDIR]      (BUILDDIR defaults to the source tree)
#
# Two recordings, both made by perf record (so perf report reads its own files):
#   A. system-wide `-a -g` for $DA seconds (default 16) while this project is built from
#      scratch with make -j2, again and again, -F $FA (default 4000): about 130k samples on
#      two CPUs whatever the machine's speed, many processes and DSOs;
#   B. one process, `-g -c $CB` (default 20000 ns of cpu-clock) on the 2-thread spin
#      workload, $SB x 1000M iterations per thread (default: as many as give 2M samples,
#      from a short recording first): about 2M samples, few distinct stacks;
#   C. one compiler run (gcc -O2 -c lib/data/prec_reader.c), `--call-graph dwarf -F $FC`
#      (default 2000): a thousand or two samples with 8 KiB user stack copies, which both
#      tools unwind (perf report takes about 20 s here, so C has its own run count, $NC).
# For each: wall time and peak RSS (median of $N runs, the two tools alternating, and the
# range of the runs' pairwise time ratios) of
# `perf report --stdio` and `preport --stdio` with the same view, with children (the default
# with call chains) and with --no-children; output to /dev/null.  Needs root (or a low
# perf_event_paranoid).
# preport keeps the running kernel's symbols in a cache file (see preport(1)); one report
# writes it before the runs, as a user's first report of the boot would, and A without
# children is also run with --no-symbol-cache (/proc/kallsyms read every time): line A2.
# Then the exports, on each recording of $EXPORTS (default "A B"), $N runs in turns: preport's
# default view (--stdio), --flamegraph FILE and --pprof FILE, perf script to /dev/null and
# perf script to a file (the first step of a perf-based flame-graph pipeline), each with its
# wall time, user+sys CPU and peak RSS, and each export's ratios to the default view and to
# both perf script runs.
# The recordings are made in $T (default: a new temporary directory, removed at the end
# unless KEEP=1) and reused from there when it holds them; a T given is never removed.  The
# runs' own files go to a temporary directory of their own, so that several runs may share
# one T.
set -u
B=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PREPORT=$B/src/preport/preport
N=${N:-3}
EV=${EV:-cpu-clock}
FA=${FA:-4000}
DA=${DA:-16}
CB=${CB:-20000}
SB=${SB:-}
FC=${FC:-2000}
NC=${NC:-3}
EXPORTS=${EXPORTS:-A B}
KEEP=${KEEP:-0}
if [ -z "${T:-}" ]; then
	T=$(mktemp -d)
	[ "$KEEP" = 1 ] || TMP_T=$T
fi
S=$(mktemp -d) # the runs' outputs and times
trap 'rm -rf "$S" ${TMP_T:+"$TMP_T"}' EXIT

[ -x "$PREPORT" ] || { echo "report.sh: $PREPORT not built; run make" >&2; exit 1; }
command -v perf >/dev/null || { echo "report.sh: perf not installed (apt-get install linux-perf)" >&2; exit 1; }
export PERF_PAGER=cat PAGER=cat

samples() { # FILE: its sample count, as perf reports it
	perf report -i "$1" --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# once LABEL CMD...: one run, its standard output to $OUT (default /dev/null); appends
# "WALL_S PEAK_KIB CPU_S" (CPU: user+sys) to $S/LABEL.all.  The wall time is taken around
# /usr/bin/time with bash's microsecond clock (time's own %e has 10 ms steps, a tenth of
# preport's time on A); it includes time's fork and exec, ~1 ms, for both tools.
once() {
	_l=$1
	shift
	_t0=$EPOCHREALTIME
	/usr/bin/time -o "$S/t.out" -f "%M %U %S" "$@" >"${OUT:-/dev/null}" 2>"$S/$_l.err"
	_t1=$EPOCHREALTIME
	echo "$_t0 $_t1 $(cat "$S/t.out")" |
		awk '{printf "%.4f %s %.2f\n", $2 - $1, $3, $4 + $5}' >>"$S/$_l.all"
}

# med LABEL: the medians of LABEL's runs into $S/LABEL: "WALL_S PEAK_KIB CPU_S".
med() {
	echo "$(awk '{print $1}' "$S/$1.all" | median) $(awk '{print $2}' "$S/$1.all" | median)" \
		"$(awk '{print $3}' "$S/$1.all" | median)" >"$S/$1"
}

compare() { # compare NAME FILE [RUNS]; $VIEWS (default both), $EXTRA: more preport options
	for view in ${VIEWS:-children no-children}; do
		rm -f "$S/perf.$1.$view.all" "$S/prep.$1.$view.all"
		# interleaved, so that both see the same machine whatever it does meanwhile
		for _i in $(seq "${3:-$N}"); do
			once "perf.$1.$view" perf report -i "$2" --stdio --$view
			# shellcheck disable=SC2086 # EXTRA is a list of options
			once "prep.$1.$view" "$PREPORT" -i "$2" --stdio --$view ${EXTRA:-}
		done
		med "perf.$1.$view"
		med "prep.$1.$view"
		read -r pw pm _ <"$S/perf.$1.$view"
		read -r qw qm _ <"$S/prep.$1.$view"
		awk -v n="$1" -v v="$view" -v pw="$pw" -v pm="$pm" -v qw="$qw" -v qm="$qm" 'BEGIN {
			printf "%-3s --%-12s perf report %7.3f s %7.1f MiB   preport %6.3f s %6.1f MiB   time %5.3fx  memory %5.3fx\n",
				n, v, pw, pm / 1024, qw, qm / 1024, qw / pw, qm / pm }'
		# the spread of the runs, pair by pair: how far one run's ratio can be from the
		# median's on this machine
		paste "$S/perf.$1.$view.all" "$S/prep.$1.$view.all" | awk '$1 > 0 {
			r = $4 / $1; if (!n++ || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
			END { if (n > 1) printf "      (its %d pairs: time ratio %.3fx to %.3fx)\n", n, lo, hi }'
	done
}

if [ ! -s "$T/a.data" ]; then
	echo "== recording A: perf record -a -g -F $FA for $DA s during builds of this project (make -j2)"
	rm -rf "$T/build" && mkdir -p "$T/build"
	(cd "$T/build" && "$SRC/configure" -q >/dev/null 2>&1) || { echo "report.sh: configure failed" >&2; exit 1; }
	# the builds run in a process group of their own, stopped when the recording ends
	setsid sh -c 'while :; do make -s -C "$1" clean; make -s -C "$1" -j2; done' sh "$T/build" \
		>/dev/null 2>&1 &
	_bpid=$!
	sleep 0.2
	perf record -q -e "$EV" -a -g -F "$FA" -o "$T/a.data" -- sleep "$DA" >/dev/null 2>&1
	kill -- -"$_bpid" 2>/dev/null
	wait "$_bpid" 2>/dev/null
fi
if [ ! -s "$T/b.data" ]; then
	cc -O1 -g -fno-omit-frame-pointer -pthread -o "$T/spin" "$SRC/contrib/bench/spin.c" || exit 1
	if [ -z "$SB" ]; then # the samples of 1000M iterations per thread, recorded the same way
		perf record -q -e "$EV" -g -c "$CB" -o "$T/cal.data" -- "$T/spin" 2 1000 >/dev/null 2>&1
		SB=$(awk -v n="$(samples "$T/cal.data")" 'BEGIN {
			s = n > 0 ? int(2000000 / n + 0.5) : 6; print s < 1 ? 1 : s }')
		rm -f "$T/cal.data"
	fi
	echo "== recording B: perf record -g -c $CB on spin (2 threads) ($SB x 1000M iterations per thread)"
	# spin's work is in millions of iterations per thread; ~1000M is about 1 s here
	perf record -q -e "$EV" -g -c "$CB" -o "$T/b.data" -- "$T/spin" 2 $((SB * 1000)) >/dev/null 2>&1
fi
if [ ! -s "$T/c.data" ]; then
	echo "== recording C: perf record --call-graph dwarf -F $FC of gcc -O2 -c lib/data/prec_reader.c"
	# every lib/ directory is on the include path: the file includes across layers
	perf record -q -e "$EV" --call-graph dwarf -F "$FC" -o "$T/c.data" -- \
		gcc -O2 -c "$SRC/lib/data/prec_reader.c" $(printf -- '-I%s ' "$SRC"/lib/*/) \
		-o "$T/c.o" >/dev/null 2>"$T/c.err"
	[ -s "$T/c.o" ] || { echo "report.sh: the compiler run of C failed:" >&2; cat "$T/c.err" >&2; exit 1; }
fi
for f in a b c; do
	printf '%s: %s samples, %s MiB\n' "$f" "$(samples "$T/$f.data")" "$(du -m "$T/$f.data" | cut -f1)"
done
"$PREPORT" -i "$T/a.data" --stdio >/dev/null 2>&1 # the kernel symbol cache, if not there yet
echo "== wall time and peak RSS, median of $N interleaved runs (ratio: preport / perf report)"
compare A "$T/a.data"
echo "   A2: A again, preport with --no-symbol-cache"
EXTRA=--no-symbol-cache VIEWS=no-children compare A2 "$T/a.data"
compare B "$T/b.data"
compare C "$T/c.data" "$NC"

# exports NAME FILE [RUNS]: the exports beside preport's default view and perf script.
exports() {
	_runs=(default flame pprof script scriptf)
	for _r in "${_runs[@]}"; do rm -f "$S/x.$1.$_r.all"; done
	for _i in $(seq "${3:-$N}"); do
		once "x.$1.default" "$PREPORT" -i "$2" --stdio
		once "x.$1.flame" "$PREPORT" -i "$2" --flamegraph "$S/x.svg"
		once "x.$1.pprof" "$PREPORT" -i "$2" --pprof "$S/x.pb.gz"
		once "x.$1.script" perf script -i "$2"
		OUT=$S/x.script once "x.$1.scriptf" perf script -i "$2"
	done
	for _r in "${_runs[@]}"; do med "x.$1.$_r"; done
	read -r dw dm dc <"$S/x.$1.default"
	read -r sw _ <"$S/x.$1.script"
	read -r fw _ <"$S/x.$1.scriptf"
	for _r in "${_runs[@]}"; do
		case $_r in
		default) _what="preport --stdio (default view)" _size= ;;
		flame) _what="preport --flamegraph FILE" _size=$S/x.svg ;;
		pprof) _what="preport --pprof FILE" _size=$S/x.pb.gz ;;
		script) _what="perf script >/dev/null" _size= ;;
		scriptf) _what="perf script >FILE" _size=$S/x.script ;;
		esac
		read -r w m c <"$S/x.$1.$_r"
		awk -v n="$1" -v what="$_what" -v w="$w" -v m="$m" -v c="$c" -v dw="$dw" -v dm="$dm" \
			-v dc="$dc" -v sw="$sw" -v fw="$fw" -v r="$_r" \
			-v size="$([ -n "$_size" ] && du -k "$_size" | cut -f1)" 'BEGIN {
			printf "%-3s %-31s %7.3f s  %6.2f s CPU  %6.1f MiB", n, what, w, c, m / 1024
			if (size != "")
				printf size < 1024 ? "  (%.0f KiB out)" : "  (%.1f MiB out)",
					size < 1024 ? size : size / 1024
			printf "\n"
			if (r == "flame" || r == "pprof")
				printf "      vs default view: time %.2fx  CPU %.2fx  memory %.2fx;  vs perf script: time %.3fx (>/dev/null)  %.3fx (>FILE)\n",
					w / dw, c / dc, m / dm, w / sw, w / fw }'
	done
}

echo "== exports: wall time, user+sys CPU and peak RSS, median of $N runs in turns"
for x in $EXPORTS; do
	case $x in
	A | B) exports "$x" "$T/$(echo "$x" | tr AB ab).data" ;;
	*) echo "report.sh: EXPORTS: A or B, not '$x'" >&2 ;;
	esac
done
