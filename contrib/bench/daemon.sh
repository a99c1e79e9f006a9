#!/bin/bash
# Daemon benchmark: `precord daemon` side by side with `perf record --switch-output`, in one
# run, on the same load (issue 17).
#
#   contrib/bench/daemon.sh [BUILDDIR]      (BUILDDIR defaults to the source tree)
#
# Both recorders run at the same time for DURATION seconds (default 600), each into its own
# directory:
#   precord daemon -a -g -F 99 -e $EV --switch-output=1m --dir P
#   perf record    -a -g -F 99 -e $EV --switch-output=1m --switch-max-files=100000 -o F/perf.data
# on one load: two CPU-bound threads (contrib/bench/spin.c) and a shell loop that starts
# $PROCS short processes (/bin/true; default 50,000 per 600 s, paced evenly over the run).
# Every $STEP seconds (default 5) each recorder's VmRSS is read from /proc; CPU seconds are
# the recorder's user+system time from getrusage (/usr/bin/time around it, all its threads;
# 10 ms steps), and its time on a CPU up to just before the stop from /proc/PID/schedstat
# (nanoseconds, without the stop's own work).
# At the end: CPU (and the ratio precord/perf), peak and final RSS, RSS drift from minute 2
# to the end (from 1/5 of DURATION when shorter), bytes of the segment files, samples,
# lost records (perf report's "Total Lost Samples" summed over each tool's files; precord
# also by `precord ctl status` before the stop), missing samples (estimated from gaps, see
# below), and whether every file reads (`perf report --stdio` on all files of both,
# `preport` on precord's segments).  Then one table of the issue's targets with pass or
# fail.  PERF_OPTS adds perf record options (PERF_OPTS=-z: perf compresses too, the
# like-for-like CPU comparison).  Needs root (system-wide recording) and Linux perf.
# KEEP=1 keeps the directories (printed).  The machine's load average is printed at start
# and end: both recorders see the same noise, since they run side by side.
set -u
B=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
PRECORD=$B/src/precord/precord
PREPORT=$B/src/preport/preport
DURATION=${DURATION:-600}
case $DURATION in
*[!0-9]* | "") echo "daemon.sh: DURATION=$DURATION: give whole seconds, 10 or more" >&2; exit 1 ;;
esac
PROCS=${PROCS:-$((50000 * DURATION / 600))}
STEP=${STEP:-5}
EV=${EV:-cpu-clock}
PERF_OPTS=${PERF_OPTS:-} # more perf record options, e.g. -z to have perf compress too
PRECORD_OPTS=${PRECORD_OPTS:-} # more precord daemon options, e.g. --no-compress
T=${T:-$(mktemp -d)}
KEEP=${KEEP:-0}
export PERF_PAGER=cat PAGER=cat

for f in "$PRECORD" "$PREPORT"; do
	[ -x "$f" ] || { echo "daemon.sh: $f not built; run make" >&2; exit 1; }
done
command -v perf >/dev/null ||
	{ echo "daemon.sh: perf not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -x /usr/bin/time ] ||
	{ echo "daemon.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
[ "$DURATION" -ge 10 ] ||
	{ echo "daemon.sh: DURATION=$DURATION: give whole seconds, 10 or more" >&2; exit 1; }

PD=$T/precord
FD=$T/perf
mkdir -p "$FD"
LOAD_PIDS=
PREC_TIME='' PERF_TIME='' PREC='' PERF=''
cleanup() {
	[ -n "$PREC" ] && kill -TERM "$PREC" 2>/dev/null
	[ -n "$PERF" ] && kill -INT "$PERF" 2>/dev/null
	# shellcheck disable=SC2086 # a list of pids
	[ -n "$LOAD_PIDS" ] && kill $LOAD_PIDS 2>/dev/null
	wait
	if [ "$KEEP" = 1 ]; then echo "kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SPIN=$T/spin
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$SPIN" "$(dirname "$0")/spin.c" || exit 1

# procs N SECONDS: start N /bin/true over SECONDS, evenly; on SIGTERM, write the count.
# Sleeps with bash's read -t on a descriptor that never has data, so the pacing itself
# starts no process.
procs() {
	local n=0 t0=${EPOCHREALTIME/./} due now fd
	exec {fd}<> <(:)
	trap 'echo $n > "$T/procs.count"; exit 0' TERM
	while :; do
		/bin/true
		n=$((n + 1))
		due=$((t0 + n * $2 * 1000000 / $1))
		now=${EPOCHREALTIME/./}
		if [ "$due" -gt "$now" ]; then
			read -r -t "$(printf '%d.%06d' $(((due - now) / 1000000)) $(((due - now) % 1000000)))" \
				-u "$fd" _ 2>/dev/null
		fi
	done
}

rss() { # PID: VmRSS in KiB, or empty once it is gone
	awk '$1 == "VmRSS:" {print $2}' "/proc/$1/status" 2>/dev/null
}
anon() { # PID: RssAnon in KiB (the rest of VmRSS is mapped files and shared memory)
	awk '$1 == "RssAnon:" {print $2}' "/proc/$1/status" 2>/dev/null
}
oncpu() { # PID: seconds on a CPU so far, all its threads (schedstat counts ns)
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ns += $1} END {printf "%.3f", ns / 1e9}'
}
hwm() { # PID: VmHWM (peak RSS) in KiB
	awk '$1 == "VmHWM:" {print $2}' "/proc/$1/status" 2>/dev/null
}
child() { # PID: the one child of /usr/bin/time PID
	local c
	for _ in $(seq 50); do
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		[ -n "$c" ] && { echo "${c%% *}"; return; }
		sleep 0.1
	done
}

echo "== daemon benchmark: $DURATION s, -a -g -F 99 -e $EV, switch every minute," \
	"$PROCS short processes${PERF_OPTS:+, perf $PERF_OPTS}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

"$SPIN" 2 100000000 >/dev/null &
LOAD_PIDS=$!
procs "$PROCS" "$DURATION" &
LOAD_PIDS="$LOAD_PIDS $!"
PROCS_PID=$!
sleep 2

# shellcheck disable=SC2086 # PRECORD_OPTS is a list of options
/usr/bin/time -o "$T/precord.time" -f "%U %S %M" "$PRECORD" daemon -a -g -F 99 -e "$EV" \
	$PRECORD_OPTS --switch-output=1m --dir "$PD" 2>"$T/precord.err" &
PREC_TIME=$!
# shellcheck disable=SC2086 # PERF_OPTS is a list of options
/usr/bin/time -o "$T/perf.time" -f "%U %S %M" perf record -q -a -g -F 99 -e "$EV" $PERF_OPTS \
	--switch-output=1m --switch-max-files=100000 -o "$FD/perf.data" >"$T/perf.out" \
	2>"$T/perf.err" &
PERF_TIME=$!
PREC=$(child "$PREC_TIME")
PERF=$(child "$PERF_TIME")
failed() { # MESSAGE: say it, show both recorders' stderr, stop
	echo "daemon.sh: $1" >&2
	cat "$T/precord.err" "$T/perf.err" >&2
	exit 1
}
if [ -z "$PREC" ] || [ -z "$PERF" ]; then
	failed "a recorder did not start"
fi

# RSS timeline: "SECONDS PRECORD_KIB PERF_KIB PRECORD_ANON_KIB PERF_ANON_KIB", every STEP
# seconds.
t0=${EPOCHREALTIME/./}
el=0
while [ "$el" -lt "$DURATION" ]; do
	r1=$(rss "$PREC")
	r2=$(rss "$PERF")
	if [ -z "$r1" ] || [ -z "$r2" ]; then
		failed "a recorder ended early (precord rss '$r1', perf rss '$r2')"
	fi
	echo "$el $r1 $r2 $(anon "$PREC") $(anon "$PERF")" >>"$T/rss"
	sleep "$STEP"
	el=$(((${EPOCHREALTIME/./} - t0) / 1000000))
done
echo "$el $(rss "$PREC") $(rss "$PERF") $(anon "$PREC") $(anon "$PERF")" >>"$T/rss"
prec_hwm=$(hwm "$PREC")
perf_hwm=$(hwm "$PERF")
prec_oncpu=$(oncpu "$PREC")
perf_oncpu=$(oncpu "$PERF")
"$PRECORD" ctl --dir "$PD" status >"$T/status" 2>&1

# Stop both at once, then the load.
"$PRECORD" ctl --dir "$PD" stop >/dev/null 2>>"$T/precord.err" &
kill -INT "$PERF"
wait "$PREC_TIME"
prec_rc=$?
wait "$PERF_TIME"
perf_rc=$?
PREC='' PERF=''
kill -TERM "$PROCS_PID"
wait "$PROCS_PID"
kill "${LOAD_PIDS%% *}"
wait
LOAD_PIDS=
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "short processes started: $(cat "$T/procs.count" 2>/dev/null)"
[ "$prec_rc" = 0 ] || { echo "precord daemon exited $prec_rc:" >&2; cat "$T/precord.err" >&2; }
# perf record ends a SIGINT by raising it again once its files are written: 130 is normal.
[ "$perf_rc" = 0 ] || [ "$perf_rc" = 130 ] ||
	{ echo "perf record exited $perf_rc:" >&2; cat "$T/perf.err" >&2; }

# Files: each read by perf report (both tools'), precord's also by preport.  Samples:
# precord's by preport -D's record count, perf's by perf report --stats (perf 6.1's --stats
# cannot read compressed pipe files, precord's or perf's own -z -o -).  Lost: perf report's
# "Total Lost Samples", summed over each tool's files.  The kernel counts there every record
# it could not write, side records too (precord's context switches are most of its
# records), so the samples actually missing are also estimated from the samples themselves:
# the spinning threads keep both CPUs busy, so on each CPU consecutive samples of one file
# are one period (1/99 s) apart; a gap longer than 4 periods counts as gap/period - 1
# missing samples (in the files that read).  A stall of the (virtual) machine shows as the
# same gap in both tools.
PERIOD_NS=$((1000000000 / 99))
gaps() { # stdin "CPU TIME_NS" lines of one file: estimated missing samples
	sort -k1,1n -k2,2n | awk -v p="$PERIOD_NS" '
		NR > 1 && $1 == c && $2 - t > 4 * p {m += int(($2 - t) / p + 0.5) - 1}
		{c = $1; t = $2}
		END {print m + 0}'
}
reads() { # TOOL FILE...: "FILES BAD SAMPLES LOST MISSING" over the files
	local tool=$1 f bad=0 n=0 s=0 l=0 m=0 v fbad
	shift
	for f in "$@"; do
		n=$((n + 1))
		fbad=0
		# perf report exits 0 on a file whose compressed records it cannot decode
		if ! perf report -i "$f" --stdio >"$T/pr.out" 2>"$T/pr.err" ||
			grep -q -e "failed to process" -e "decompress" "$T/pr.err"; then
			fbad=1
			bad=$((bad + 1))
			echo "perf report cannot read $tool's $f:" >&2
			head -n 3 "$T/pr.err" >&2
		fi
		v=$(awk '/^# Total Lost Samples:/ {l += $5} END {print l + 0}' "$T/pr.out")
		l=$((l + v))
		if [ "$tool" = perf ]; then
			v=$(perf report -i "$f" --stats 2>/dev/null |
				sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n 1)
			s=$((s + ${v:-0}))
			v=$(perf script -i "$f" -F cpu,time 2>/dev/null | tr -d '[]:.' |
				awk '{printf "%d %.0f\n", $1, $2 * 1000}' | gaps) # us to ns
		else
			if ! "$PREPORT" -i "$f" --stdio >/dev/null 2>"$T/pp.err"; then
				[ "$fbad" = 1 ] || bad=$((bad + 1))
				fbad=1
				echo "preport cannot read $f:" >&2
				head -n 3 "$T/pp.err" >&2
			fi
			"$PREPORT" -D -i "$f" 2>/dev/null | awk -v st="$T/dump.samples" '
				$1 == "SAMPLE:" {print $2 > st}
				/ SAMPLE / {
					for (i = 1; i < NF; i++) {
						if ($i == "time")
							t = $(i + 1)
						if ($i == "cpu")
							c = $(i + 1)
					}
					print c, t
				}' >"$T/dump.ct"
			v=$(cat "$T/dump.samples" 2>/dev/null)
			s=$((s + ${v:-0}))
			rm -f "$T/dump.samples"
			v=$(gaps <"$T/dump.ct")
		fi
		# a file a reader gave up on has no gaps to count (perf script aborts there too)
		[ "$fbad" = 1 ] || m=$((m + v))
	done
	echo "$n $bad $s $l $m"
}
shopt -s nullglob
pfiles=("$PD"/precord-*.data)
ffiles=("$FD"/perf.data.*)
partial=("$PD"/*.partial)
read -r pn pbad psam plost pmiss <<<"$(reads precord "${pfiles[@]}")"
read -r fn fbad fsam flost fmiss <<<"$(reads perf "${ffiles[@]}")"
pbytes=$(cat "${pfiles[@]}" /dev/null | wc -c)
fbytes=$(cat "${ffiles[@]}" /dev/null | wc -c)
slost=$(sed -n 's/^lost samples: \([0-9]*\).*/\1/p' "$T/status")
ssam=$(sed -n 's/^samples written: \([0-9]*\).*/\1/p' "$T/status")
scpu=$(sed -n 's/^daemon cpu: \(.*\)/\1/p' "$T/status")

# RSS figures: peak (largest of the samples and VmHWM), final (last sample), and the drift
# from the sample nearest to 2 minutes (1/5 of DURATION when shorter) to the last one.
at=$((DURATION < 600 ? DURATION / 5 : 120))
# (time's last line: a recorder that ends by a signal gets a line about it first)
read -r pcpu ppeak <<<"$(tail -n 1 "$T/precord.time" | awk '{printf "%.2f %s", $1 + $2, $3}')"
read -r fcpu fpeak <<<"$(tail -n 1 "$T/perf.time" | awk '{printf "%.2f %s", $1 + $2, $3}')"
read -r prss_at frss_at <<<"$(awk -v a="$at" '$1 >= a {print $2, $3; exit}' "$T/rss")"
read -r prss_end frss_end <<<"$(tail -n 1 "$T/rss" | awk '{print $2, $3}')"
read -r prss_max frss_max <<<"$(awk '$2 > p {p = $2} $3 > f {f = $3} END {print p, f}' "$T/rss")"
pk() { printf '%s\n' "$@" | sort -n | tail -n 1; }
ppeak=$(pk "$ppeak" "$prss_max" "${prec_hwm:-0}")
fpeak=$(pk "$fpeak" "$frss_max" "${perf_hwm:-0}")

echo "RSS timeline (s, precord KiB, perf KiB, and of these anonymous), every minute:"
awk -v s="$STEP" 'NR == 1 || int($1 / 60) != m {print "  " $0; m = int($1 / 60)}' "$T/rss"
awk -v d="$DURATION" -v at="$at" \
    -v pcpu="$pcpu" -v fcpu="$fcpu" -v scpu="$scpu" -v pon="$prec_oncpu" -v fon="$perf_oncpu" \
    -v ppeak="$ppeak" -v fpeak="$fpeak" -v pend="$prss_end" -v fend="$frss_end" \
    -v pat="$prss_at" -v fat="$frss_at" -v pb="$pbytes" -v fb="$fbytes" \
    -v pn="$pn" -v fn="$fn" -v psam="$psam" -v fsam="$fsam" -v ssam="$ssam" \
    -v plost="$plost" -v flost="$flost" -v slost="$slost" -v pmiss="$pmiss" -v fmiss="$fmiss" \
    -v pbad="$pbad" -v fbad="$fbad" -v npart="${#partial[@]}" \
    -v prc="$prec_rc" -v frc="$perf_rc" 'BEGIN {
	pdrift = pat ? 100 * (pend - pat) / pat : 0
	fdrift = fat ? 100 * (fend - fat) / fat : 0
	printf "%-34s %14s %14s\n", "", "precord daemon", "perf record"
	printf "%-34s %14.2f %14.2f   (precord by ctl status: %s)\n", "CPU s (user+sys)", pcpu, fcpu, scpu
	printf "%-34s %14.3f %14.3f   (ratio %.3f)\n", "CPU s on a CPU before the stop", pon, fon,
		(fon > 0 ? pon / fon : 0)
	printf "%-34s %14.1f %14.1f\n", "peak RSS MiB", ppeak / 1024, fpeak / 1024
	printf "%-34s %14.1f %14.1f\n", "final RSS MiB", pend / 1024, fend / 1024
	printf "%-34s %+13.1f%% %+13.1f%%\n", sprintf("RSS drift %d s to end", at), pdrift, fdrift
	printf "%-34s %14d %14d\n", "files", pn, fn
	printf "%-34s %14d %14d\n", "bytes on disk", pb, fb
	printf "%-34s %14d %14d   (precord by ctl status: %s)\n", "samples (perf report)", psam, fsam, ssam
	printf "%-34s %14d %14d   (precord by ctl status: %s)\n",
		"lost records (perf report)", plost, flost, slost
	printf "%-34s %14d %14d\n", "missing samples (gaps)", pmiss, fmiss
	printf "%-34s %14d %14d\n", "files unreadable", pbad, fbad
	printf "%-34s %14d %14d   (perf: 130 is its normal end on SIGINT)\n", "exit status", prc, frc
	print ""
	print "target                                      figure            result"
	ok = 1
	r = fcpu > 0 ? pcpu / fcpu : 0
	t(sprintf("recorder CPU <= 1/4 of perf"), sprintf("%.3f of perf", r), fcpu > 0 && r <= 0.25)
	t("peak RSS <= 32 MiB", sprintf("%.1f MiB", ppeak / 1024), ppeak <= 32768)
	t(sprintf("RSS drift %d s to end < 10%%", at), sprintf("%+.1f%%", pdrift),
		pdrift < 10 && pdrift > -10)
	t("bytes on disk <= perf", sprintf("%.3f of perf", fb ? pb / fb : 0), pb <= fb)
	t("no more missing samples than perf", sprintf("%d vs %d", pmiss, fmiss), pmiss <= fmiss)
	t("no more lost records than perf", sprintf("%d vs %d", plost > slost ? plost : slost, flost),
		(plost > slost ? plost : slost) <= flost)
	t("every file reads", sprintf("%d+%d bad, %d partial", pbad, fbad, npart),
		pbad + fbad + npart == 0 && pn > 0 && fn > 0)
	print ok ? "all targets met" : "some targets missed"
}
function t(name, fig, pass) {
	printf "%-43s %-17s %s\n", name, fig, pass ? "pass" : "FAIL"
	if (!pass)
		ok = 0
}'
