#!/bin/bash
# Recorder benchmark: precord side by side with perf record, in one run.
#
#   contrib/bench/record.sh [BUILDDIR]      (BUILDDIR defaults to the source tree)
#
# Prints four comparisons:
#   1. fixed cost: wall time of `precord -o X -- true` vs `perf record -o Y -- true`
#      (median of N runs);
#   2. overhead at -F 999 -g on a CPU-bound 2-thread workload: CPU time of the workload plus
#      the recorder against the workload alone, split into the workload's part (the kernel's
#      sampling cost lands there) and the recorder's own;
#   3. file size for the same workload: precord (zstd level 1) vs perf record -z (level 1),
#      also vs perf with --switch-events (the same records), with the recorder's own CPU;
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

# Overhead, decomposed.  One round runs the workload alone, under precord and under perf
# (interleaved, so drifts of a shared machine hit all three alike); the workload's CPU is
# counted by an inner `perf stat` (task-clock, all its threads), the recorder's own by an
# outer `perf stat --no-inherit` (the recorder process only).  Counting is cheap; sampling is
# what costs, and the kernel's share of it (the sampling interrupt and the call-chain walk,
# charged to the workload's threads) is the same whoever reads the ring.
R=${R:-5}
tc() { awk -F, '/task-clock/ {printf "%.4f\n", $1 / 1000}' "$1"; }
echo "== 2. overhead at -F 999 -g, 2 threads of fixed work (median of $R interleaved rounds, CPU s)"
for i in $(seq "$R"); do
	perf stat -x, -e task-clock -o "$T/w.stat" -- "$SPIN" 2 "$WORK" >/dev/null 2>&1
	tc "$T/w.stat" >> "$T/ov.alone"
	perf stat --no-inherit -x, -e task-clock -o "$T/r.stat" -- "$PRECORD" -q -e "$EV" -F 999 -g \
		-o "$T/ov.data" -- perf stat -x, -e task-clock -o "$T/w.stat" -- "$SPIN" 2 "$WORK" \
		>/dev/null 2>&1
	tc "$T/w.stat" >> "$T/ov.pw"; tc "$T/r.stat" >> "$T/ov.pr"
	perf stat --no-inherit -x, -e task-clock -o "$T/r.stat" -- perf record -q -e "$EV" -F 999 \
		-g -o "$T/ov.perf" -- perf stat -x, -e task-clock -o "$T/w.stat" -- "$SPIN" 2 "$WORK" \
		>/dev/null 2>&1
	tc "$T/w.stat" >> "$T/ov.fw"; tc "$T/r.stat" >> "$T/ov.fr"
done
for f in alone pw pr fw fr; do median < "$T/ov.$f" > "$T/m.$f"; done
awk -v b="$(cat "$T/m.alone")" -v pw="$(cat "$T/m.pw")" -v pr="$(cat "$T/m.pr")" \
    -v fw="$(cat "$T/m.fw")" -v fr="$(cat "$T/m.fr")" 'BEGIN {
	printf "workload alone %.3f s\n", b
	printf "precord: workload %.3f s (%+.2f%%) + recorder %.3f s (%+.2f%%) = total %+.2f%%\n",
		pw, 100*(pw-b)/b, pr, 100*pr/b, 100*(pw+pr-b)/b
	printf "perf:    workload %.3f s (%+.2f%%) + recorder %.3f s (%+.2f%%) = total %+.2f%%\n",
		fw, 100*(fw-b)/b, fr, 100*fr/b, 100*(fw+fr-b)/b
	printf "recorder CPU ratio precord/perf %.3f\n", fr ? pr/fr : 0 }'

# File size: the same workload recorded R times by each, per-sample sizes compared by
# median.  precord records context switches (perf only with --switch-events), so perf is
# shown both ways; "same content" is the like-for-like comparison.
echo "== 3. file size, -F 999 -g, 2 threads of fixed work, zstd level 1 (median of $R, B/sample)"
bps() { # FILE -> bytes per sample
	local n
	n=$("$PREPORT" -D -i "$1" | awk '$1=="SAMPLE:" {print $2}')
	awk -v s="$(stat -c %s "$1")" -v n="$n" 'BEGIN { printf "%.3f\n", s/n }'
}
for i in $(seq "$R"); do
	perf stat --no-inherit -x, -e task-clock -o "$T/r.stat" -- "$PRECORD" -q -e "$EV" -F 999 -g \
		-z 1 -o "$T/sz.data" -- "$SPIN" 2 "$WORK" >/dev/null 2>&1
	bps "$T/sz.data" >> "$T/sz.p"; tc "$T/r.stat" >> "$T/sz.pc"
	perf stat --no-inherit -x, -e task-clock -o "$T/r.stat" -- perf record -q -e "$EV" -F 999 \
		-g -z -o "$T/sz.perf" -- "$SPIN" 2 "$WORK" >/dev/null 2>&1
	bps "$T/sz.perf" >> "$T/sz.f"; tc "$T/r.stat" >> "$T/sz.fc"
	perf record -q -e "$EV" -F 999 -g -z --switch-events -o "$T/sz.perf" -- "$SPIN" 2 "$WORK" \
		>/dev/null 2>&1
	bps "$T/sz.perf" >> "$T/sz.fs"
done
for f in p pc f fc fs; do median < "$T/sz.$f" > "$T/m.$f"; done
awk -v p="$(cat "$T/m.p")" -v f="$(cat "$T/m.f")" -v fs="$(cat "$T/m.fs")" \
    -v pc="$(cat "$T/m.pc")" -v fc="$(cat "$T/m.fc")" 'BEGIN {
	printf "precord %.2f B/sample   perf -z %.2f (ratio %.2f)   perf -z --switch-events %.2f (same content, ratio %.2f)\n",
		p, f, p/f, fs, p/fs
	printf "recorder CPU while recording: precord %.3f s   perf %.3f s\n", pc, fc }'

echo "== 4. lost samples at -F 20000 -g -a, both CPUs busy for 3 s"
( two 3500 & ) ; sleep 0.2
"$PRECORD" -e "$EV" -F 20000 -g -a -o "$T/lost.data" --duration 3 2>&1 | grep -E "samples in"
sleep 0.6
( two 3500 & ) ; sleep 0.2
perf record -e "$EV" -F 20000 -g -a -o "$T/lost.perf" -- sleep 3 2>&1 | grep -vi "warning" | tail -2
perf report -i "$T/lost.perf" --stats 2>/dev/null | grep -E "LOST|SAMPLE events" | head -3
wait
