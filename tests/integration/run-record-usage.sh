#!/bin/sh
# SPDX-License-Identifier: MIT
# precord's usage errors, one row per bad option or value, for precord and precord daemon:
# each exits 2 (precord(1): "2 for a usage error") with one line on stderr that names what
# was wrong and says what to do (give, use, run, see, choose...), and the command never runs
# (nor does a daemon start).  Also: an output whose FILE.old is a directory is refused (1) in
# one line that says to move it away.  Tracepoints (sched:sched_switch, tracepoint/config=N/)
# are such usage errors, and the line says to record them with perf record.
# Needs no perf_event_open: every usage error is found before an event is opened; only the
# FILE.old check records, and is left out (said so) where the kernel refuses.
. "$(dirname "$0")/test-lib.sh"

PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
need_file "$PRECORD" precord
marker=$workdir/command-ran
todo='give|use|run|see|choose|drop|move|remove'

# usage_line LABEL RC STDERR-FILE WORD: exit status 2, one line naming WORD and what to do,
# and the command did not run.
usage_line() {
	_n=$(grep -c . "$3")
	if [ "$2" -eq 2 ] && [ "$_n" -eq 1 ] && grep -q -F -- "$4" "$3" &&
		grep -q -E -w "$todo" "$3"; then
		ok "$1: exit 2, $(cat "$3")"
	else
		bad "$1: exit $2 with $_n lines, want 2 and one line naming '$4' and what to do: $(lines "$3" 3)"
	fi
	if [ -e "$marker" ]; then
		bad "$1: the command ran"
		rm -f "$marker"
	fi
}

# usage WORD ARGS...: precord ARGS -o FILE -- (a command leaving a marker) is a usage error
# naming WORD.
usage() {
	_w=$1
	shift
	"$PRECORD" "$@" -o "$workdir/u.data" -- sh -c "touch '$marker'" >/dev/null 2>"$workdir/u.err"
	usage_line "$(echo "precord $*" | cut -c 1-100)" $? "$workdir/u.err" "$_w"
}

# daemon_usage WORD ARGS...: precord daemon ARGS (in a directory it could not create, so
# that a daemon wrongly started stops at once) is a usage error naming WORD.
daemon_usage() {
	_w=$1
	shift
	timeout 30 "$PRECORD" daemon --dir "$workdir/missing/d" "$@" >/dev/null 2>"$workdir/d.err"
	usage_line "precord daemon $*" $? "$workdir/d.err" "$_w"
}

say "--- precord"
usage "'abc'" -p abc
usage "'1,abc'" -p 1,abc
usage "'0'" -t 0
usage "'abc'" -C abc
usage "'3-1'" -C 3-1
usage "'0-3,x'" -C 0-3,x
usage "'nosuch'" -e nosuch
usage "'cpu-clock:x'" -e cpu-clock:x
usage "''" -e cpu-clock,,task-clock
usage "nosuchpmu/config=1/" -e nosuchpmu/config=1/
usage "use 'perf record -e sched:sched_switch'" -e sched:sched_switch
usage "use 'perf record -e syscalls:sys_enter_*'" -e cpu-clock,syscalls:sys_enter_*
if [ -e /sys/bus/event_source/devices/tracepoint/type ]; then
	usage "use 'perf record -e tracepoint/config=1/'" -e tracepoint/config=1/
fi
usage "event groups ('{...}') are not supported" -e '{cpu-clock,page-faults}'
usage "give the events without braces" -e cpu-clock -e '{page-faults}'
usage "too many events" -e "$(printf 'cpu-clock,%.0s' $(seq 40))cpu-clock"
usage "'0'" -F 0
usage "'abc'" -F abc
usage "'0'" -c 0
usage "-F or -c" -F 99 -c 1000
usage "'lbr'" --call-graph lbr
usage "'dwarf,0'" --call-graph dwarf,0
usage "'dwarf,70000'" --call-graph dwarf,70000
usage "'20'" -z 20
usage "'0'" -z0
usage "'3x'" -m 3x
usage "'0'" --flush-interval 0
usage "'abc'" --duration abc
usage "'0'" --duration 0
usage "'nosuch'" -k nosuch
usage "--dir" --dir "$workdir/d"
usage "--max-disk" --max-disk=1G
usage "--nosuch" --nosuch
usage "'-x'" -x
"$PRECORD" -e cpu-clock --output >/dev/null 2>"$workdir/u.err"
usage_line "precord --output (no value)" $? "$workdir/u.err" "--output"
"$PRECORD" -e cpu-clock >/dev/null 2>"$workdir/u.err"
usage_line "precord with nothing to record" $? "$workdir/u.err" "nothing to record"

say "--- precord daemon"
daemon_usage "'abc'" -C abc
daemon_usage "'nosuch'" -e nosuch
daemon_usage "'0'" -F 0
daemon_usage "not tracepoints" -e sched:sched_switch
daemon_usage "event groups" -e '{cpu-clock,page-faults}'
daemon_usage "-o/--output" -o x.data
daemon_usage "--duration" --duration 5
daemon_usage "-q/--quiet" -q
daemon_usage "'abc'" --switch-output=abc
daemon_usage "'0'" --switch-max-files 0
daemon_usage "at least 1M" --max-disk 1K
daemon_usage "give a unit" --max-age 7
daemon_usage "'100%'" --min-free 100%
daemon_usage "'sleep'" sleep 1
daemon_usage "--nosuch" --nosuch

say "--- FILE.old is a directory"
mkdir -p "$workdir/ex.data.old"
echo x >"$workdir/ex.data"
"$PRECORD" -q -e cpu-clock -o "$workdir/ex.data" -- true >/dev/null 2>"$workdir/ex.err"
rc=$?
if grep -q -i -E 'permission|paranoid|not allowed|not supported' "$workdir/ex.err"; then
	say "the kernel refuses to record here: not checked ($(lines "$workdir/ex.err" 1))"
elif [ "$rc" -eq 1 ] && [ "$(grep -c . "$workdir/ex.err")" -eq 1 ] &&
	grep -q "move '.*ex.data.old' away" "$workdir/ex.err"; then
	ok "FILE.old a directory: exit 1, $(cat "$workdir/ex.err")"
else
	bad "FILE.old a directory: exit $rc, want 1 and one line saying to move it away: $(lines "$workdir/ex.err" 3)"
fi

finish
