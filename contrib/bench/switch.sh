#!/bin/bash
# Segment switch benchmark: what a daemon switch costs, A/B between two builds.
#
#   contrib/bench/switch.sh BUILD_A BUILD_B
#
# For each build in turn, RUNS times each (default 7, alternating A and B): start
# `precord daemon -v -a -g -F 99 -e cpu-clock --switch-output` (switches on request only) in
# a fresh directory, ask for SWITCHES switches with SIGUSR2 (default 100), each once the
# previous one's segment exists, and stop it.  Per run it prints the daemon's time on a CPU
# (/proc/PID/schedstat, nanoseconds) spent over the switches divided by their number, and the
# median of the daemon's own "segment ... began: its header and synthesized state took N ms"
# lines (wall time, whole milliseconds).  At the end, the medians of both per build.
# EXTRA=N first starts N idle processes (sleep), to see how the cost grows with the number
# of processes on the host (ps -e counts them).  Needs root (system-wide recording).
set -u
A=${1:?usage: switch.sh BUILD_A BUILD_B}
B=${2:?usage: switch.sh BUILD_A BUILD_B}
RUNS=${RUNS:-7}
SWITCHES=${SWITCHES:-100}
EXTRA=${EXTRA:-0}
T=$(mktemp -d)
sleepers=()
cleanup() {
	[ ${#sleepers[@]} -gt 0 ] && kill "${sleepers[@]}" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
for ((i = 0; i < EXTRA; i++)); do
	sleep 3600 &
	sleepers+=($!)
done
echo "processes on the host: $(ps -e --no-headers | wc -l); $SWITCHES switches a run"

oncpu() { awk '{ print $1 }' "/proc/$1/schedstat"; }
segs() { find "$1" -maxdepth 1 -name 'precord-*' | wc -l; }

# run BUILD LABEL: one run; prints "LABEL cpu_us_per_switch took_median_ms"
run() {
	local d=$T/dir log=$T/log pid c0 c1 n i
	rm -rf "$d"
	"$1/src/precord/precord" daemon -v --dir "$d" -a -g -F 99 -e cpu-clock --switch-output \
		>"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		"$1/src/precord/precord" ctl --dir "$d" status >/dev/null 2>&1 && break
		sleep 0.1
	done
	c0=$(oncpu "$pid")
	for ((i = 0; i < SWITCHES; i++)); do
		n=$(segs "$d")
		kill -USR2 "$pid"
		while [ "$(segs "$d")" -le "$n" ]; do sleep 0.005; done
	done
	# the last switch's state is written once the status answers again
	"$1/src/precord/precord" ctl --dir "$d" status >/dev/null 2>&1
	c1=$(oncpu "$pid")
	"$1/src/precord/precord" ctl --dir "$d" stop >/dev/null 2>&1
	wait "$pid"
	took=$(sed -n 's/.*synthesized state took \([0-9]*\) ms.*/\1/p' "$log" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "$2 $(((c1 - c0) / SWITCHES / 1000)) $took"
}

: >"$T/results"
for ((r = 0; r < RUNS; r++)); do
	run "$A" A | tee -a "$T/results"
	run "$B" B | tee -a "$T/results"
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for l in A B; do
	c=$(awk -v l="$l" '$1 == l { print $2 }' "$T/results" | med)
	t=$(awk -v l="$l" '$1 == l { print $3 }' "$T/results" | med)
	echo "$l: median CPU per switch $c us, median header+state $t ms ($RUNS runs)"
done
