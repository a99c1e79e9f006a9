#!/bin/bash
# Recorder benchmark: precord side by side with perf record, in one run.
#
#   contrib/bench/record.sh [BUILDDIR]      (BUILDDIR defaults to the source tree)
#
# Prints four comparisons:
#   1. fixed cost: wall time of `precord -o X -- true` vs `perf record -o Y -- true`
#      (median of N runs);
#   2. overhead at -F 999 -g on a CPU-bound 2-thread workload: CPU time (user+sys) of the
#      workload plus the recorder, against the workload alone;
#   3. file size for the same workload: precord (zstd level 1) vs perf record -z (level 1),
#      with the recorder's own CPU time;
#   4. lost samples at -F 20000 -g -a with default buffers, both CPUs busy.
# Run it on a quiet machine; figures are medians, the machine is noisy.  Needs root (or a
# low perf_event_paranoid) and Linux perf.
set -u
B=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
PRECORD=$B/src/precord/precord
PREPORT=$B/src/preport/preport
DEMO=$B/tests/workloads/demo
N=${N:-9}
EV=${EV:-cpu-clock}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for f in "$PRECORD" "$PREPORT" "$DEMO"; do
	[ -x "$f" ] || { echo "record.sh: $f not built; run make and make $DEMO" >&2; exit 1; }
done
command -v perf >/dev/null || { echo "record.sh: perf not installed (apt-get install linux-perf)" >&2; exit 1; }

now() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# CPU seconds (user+sys) of a command and all its children.
cpu_of() {
	/usr/bin/time -o "$T/time.out" -f "%U %S" "$@" >/dev/null 2>&1
	awk '{printf "%.3f\n", $1 + $2}' "$T/time.out"
}

# A CPU-bound workload with two threads and fixed work (CPU time comparable across runs).
SPIN=$T/spin
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$SPIN" "$(dirname "$0")/spin.c" || exit 1
WORK=${WORK:-1500} # millions of iterations per thread
# Wall-clock bound load for the loss test: two demo processes in parallel.
two() { "$DEMO" "$1" & "$DEMO" "$1"; wait; }
export -f two
export DEMO

echo "== 1. fixed cost: record 'true' (median of $N, wall ms)"
for tool in precord perf; do
	for i in $(seq "$N"); do
		s=$(now)
		if [ $tool = precord ]; then
			"$PRECORD" -q -e "$EV" -o "$T/fc.data" -- true 2>/dev/null
		else
			perf record -q -e "$EV" -o "$T/fc.perf" -- true >/dev/null 2>&1
		fi
		echo $(( ($(now) - s) / 1000 ))
	done | median > "$T/res.fc.$tool"
done
pc=$(cat "$T/res.fc.precord"); pf=$(cat "$T/res.fc.perf")
awk -v a="$pc" -v b="$pf" 'BEGIN { printf "precord %.1f ms   perf %.1f ms   ratio perf/precord %.1fx\n", a/1000, b/1000, b/a }'

echo "== 2. overhead at -F 999 -g, 2 threads of fixed work (median of 5, CPU s)"
for i in 1 2 3 4 5; do cpu_of "$SPIN" 2 "$WORK"; done | median > "$T/res.base"
for i in 1 2 3 4 5; do cpu_of "$PRECORD" -q -e "$EV" -F 999 -g -o "$T/ov.data" -- "$SPIN" 2 "$WORK"; done | median > "$T/res.ov.precord"
for i in 1 2 3 4 5; do cpu_of perf record -q -e "$EV" -F 999 -g -o "$T/ov.perf" -- "$SPIN" 2 "$WORK"; done | median > "$T/res.ov.perf"
awk -v b="$(cat "$T/res.base")" -v p="$(cat "$T/res.ov.precord")" -v f="$(cat "$T/res.ov.perf")" 'BEGIN {
	printf "alone %.3f s   with precord %.3f s (%+.2f%%)   with perf %.3f s (%+.2f%%)\n",
		b, p, 100*(p-b)/b, f, 100*(f-b)/b }'

echo "== 3. file size, -F 999 -g, 2 threads of fixed work, zstd level 1"
cpr=$(cpu_of "$PRECORD" -q -e "$EV" -F 999 -g -z 1 -o "$T/sz.data" -- "$SPIN" 2 "$WORK")
cpf=$(cpu_of perf record -q -e "$EV" -F 999 -g -z -o "$T/sz.perf" -- "$SPIN" 2 "$WORK")
sp=$(stat -c %s "$T/sz.data"); sf=$(stat -c %s "$T/sz.perf")
np=$("$PREPORT" -D -i "$T/sz.data" | awk '$1=="SAMPLE:" {print $2}')
nf=$("$PREPORT" -D -i "$T/sz.perf" | awk '$1=="SAMPLE:" {print $2}')
awk -v sp="$sp" -v sf="$sf" -v np="$np" -v nf="$nf" -v cp="$cpr" -v cf="$cpf" 'BEGIN {
	printf "precord %d B (%d samples, %.1f B/sample)   perf -z %d B (%d samples, %.1f B/sample)   per-sample ratio %.2f\n",
		sp, np, sp/np, sf, nf, sf/nf, (sp/np)/(sf/nf);
	printf "CPU s of the whole run: precord %.3f  perf %.3f\n", cp, cf }'

echo "== 4. lost samples at -F 20000 -g -a, both CPUs busy for 3 s"
( two 3500 & ) ; sleep 0.2
"$PRECORD" -e "$EV" -F 20000 -g -a -o "$T/lost.data" --duration 3 2>&1 | grep -E "samples in"
sleep 0.6
( two 3500 & ) ; sleep 0.2
perf record -e "$EV" -F 20000 -g -a -o "$T/lost.perf" -- sleep 3 2>&1 | grep -vi "warning" | tail -2
perf report -i "$T/lost.perf" --stats 2>/dev/null | grep -E "LOST|SAMPLE events" | head -3
wait
