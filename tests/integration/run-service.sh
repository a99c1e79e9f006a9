#!/bin/sh
# SPDX-License-Identifier: MIT
# precord as a systemd service (src/precord/service.c, contrib/systemd/precord.service):
#   notify      READY=1 with STATUS, STATUS (one line), WATCHDOG=1 and STOPPING=1 arrive on
#               a NOTIFY_SOCKET, in order, from the main pid; nothing without NOTIFY_SOCKET;
#               the watchdog interval is half WATCHDOG_USEC, and 0 when WATCHDOG_PID names
#               another process.  Built without libsystemd: one warning, nothing sent.
#   journal     service_log writes "<N>MSG" when JOURNAL_STREAM names stderr, else
#               "precord: MSG" (also when JOURNAL_STREAM names another file, or stderr was
#               redirected since); one line each
#   man         `man precord-ctl` shows its own page, which points to precord-daemon(1), and
#               `man -l doc/precord-ctl.1` works in a checkout
#   unit        `systemd-analyze verify` of the unit (ExecStart= pointed at this build, its
#               man page found in doc/) prints nothing; `systemd-analyze security
#               --offline=true` rates it at most 2.5, and the only capabilities it leaves
#               are CAP_PERFMON, CAP_SYS_PTRACE and CAP_SYSLOG; none of the settings that
#               would take from the recorder what it needs (/proc/kallsyms, CAP_SYSLOG,
#               other users' processes) is on
#   caps        (as root, where perf_event_open works) `precord -a` run as an unprivileged
#               user with only the unit's AmbientCapabilities= records a root-owned
#               workload's maps, its build-id read through /proc/PID/root (the file is in
#               another mount namespace), and the kernel map (kallsyms addresses)
#   daemon      precord daemon with NOTIFY_SOCKET and WATCHDOG_USEC (as the unit's user, where
#               the caps part runs): READY=1 with a STATUS, WATCHDOG=1, STOPPING=1 after
#               SIGTERM, all from the main pid; it exits 0 and leaves closed segments only
#   syscalls    (with strace) every system call precord daemon makes while recording,
#               switching and answering precord ctl passes the unit's SystemCallFilter=
# Skips (77) when python3 (the notify listener) or systemd-analyze with --offline is missing,
# after the checks it could make; the caps, daemon and syscalls parts are skipped, said so,
# where they cannot run.
# shellcheck disable=SC2016 # sh -c scripts in single quotes, expanded by that shell
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

PRECORD=${PRECORD:-$top_builddir/src/precord/precord}
PROBE=$top_builddir/tests/tools/notify-probe
LISTEN=$top_srcdir/tests/tools/notify-listen.py
UNIT=$top_builddir/contrib/systemd/precord.service
need_file "$PROBE" notify-probe
need_file "$PRECORD" precord
[ -f "$UNIT" ] || fail "the unit is missing: $UNIT (build it first: make contrib/systemd/precord.service)"
missing=

# expect LABEL FILE WANT-FILE: FILE's lines are exactly WANT-FILE's.
expect() {
	if cmp -s "$2" "$3"; then
		ok "$1: $(join_lines <"$2")"
	else
		bad "$1: got '$(join_lines <"$2")', want '$(join_lines <"$3")'"
	fi
}

say "--- notify"
"$PROBE" init >"$workdir/built.out" 2>&1
built=$(sed -n 's/^libsystemd=//p' "$workdir/built.out")
say "notify-probe built with libsystemd: $built"
if ! command -v python3 >/dev/null 2>&1; then
	missing="python3 (the NOTIFY_SOCKET listener)"
elif [ "$built" = yes ]; then
	python3 "$LISTEN" -- "$PROBE" init ready 'recording 2 CPUs' status 'segment 3
of 5' watchdog ready-bare stopping >"$workdir/n.out" 2>"$workdir/n.err"
	rc=$?
	child=$(sed -n 's/^child //p' "$workdir/n.out")
	[ "$rc" -eq 0 ] || bad "notify: listener or probe exits $rc: $(lines "$workdir/n.err" 3)"
	grep -E '^[0-9]+ [0-9]+ ' "$workdir/n.out" | cut -d' ' -f1,3- >"$workdir/n.msgs"
	cat >"$workdir/n.want" <<-EOF
		1 READY=1
		1 STATUS=recording 2 CPUs
		2 STATUS=segment 3 of 5
		3 WATCHDOG=1
		4 READY=1
		5 STOPPING=1
	EOF
	expect "notifications (datagram, assignment)" "$workdir/n.msgs" "$workdir/n.want"
	pids=$(grep -E '^[0-9]+ [0-9]+ ' "$workdir/n.out" | cut -d' ' -f2 | sort -u | join_lines)
	if [ -n "$child" ] && [ "$pids" = "$child" ]; then
		ok "notify: every datagram comes from the main pid $child"
	else
		bad "notify: datagrams from pids '$pids', want only the main pid $child"
	fi
	if grep -q '^notifying=yes$' "$workdir/n.out" && grep -q '^watchdog_ms=0$' "$workdir/n.out"
	then
		ok "notify: service_notifying() under NOTIFY_SOCKET; no watchdog without WATCHDOG_USEC"
	else
		bad "notify: probe says $(grep -F -e = "$workdir/n.out" | join_lines)"
	fi
	[ -s "$workdir/n.err" ] && bad "notify: stderr not empty: $(lines "$workdir/n.err" 3)"

	# A status is cut at 255 bytes.
	long=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "0123456789" }')
	python3 "$LISTEN" -- "$PROBE" status "$long" >"$workdir/long.out" 2>&1
	got=$(sed -n 's/^[0-9]* [0-9]* STATUS=//p' "$workdir/long.out" | awk '{ print length($0) }')
	if [ "$got" = 255 ]; then
		ok "a 400-byte status is cut to 255"
	else
		bad "a 400-byte status: got '$got' bytes, want 255: $(lines "$workdir/long.out" 2)"
	fi

	# The watchdog is this process's only when WATCHDOG_PID names it (sh -c ... exec keeps
	# the pid, so $$ is the probe's).
	python3 "$LISTEN" -- sh -c 'WATCHDOG_USEC=30000000 WATCHDOG_PID=$$ exec "$0" init' \
		"$PROBE" >"$workdir/w.out" 2>&1
	python3 "$LISTEN" -- env WATCHDOG_USEC=30000000 WATCHDOG_PID=1 "$PROBE" init \
		>"$workdir/w1.out" 2>&1
	python3 "$LISTEN" -- env WATCHDOG_USEC=3000 "$PROBE" init >"$workdir/w2.out" 2>&1
	w=$(sed -n 's/^watchdog_ms=//p' "$workdir/w.out")
	w1=$(sed -n 's/^watchdog_ms=//p' "$workdir/w1.out")
	w2=$(sed -n 's/^watchdog_ms=//p' "$workdir/w2.out")
	if [ "$w" = 15000 ] && [ "$w1" = 0 ] && [ "$w2" = 1 ]; then
		ok "watchdog interval: 15000 ms for WATCHDOG_USEC=30 s, 0 for another pid's, 1 for 3 ms"
	else
		bad "watchdog interval: '$w' '$w1' '$w2', want 15000 0 1: $(lines "$workdir/w.out" 4)"
	fi
else
	python3 "$LISTEN" -- "$PROBE" init ready up watchdog stopping >"$workdir/n.out" \
		2>"$workdir/n.err"
	if ! grep -q -E '^[0-9]+ [0-9]+ ' "$workdir/n.out" &&
		[ "$(grep -c . "$workdir/n.err")" -eq 1 ] &&
		grep -q 'NOTIFY_SOCKET is set, but precord was built without libsystemd' \
			"$workdir/n.err"; then
		ok "without libsystemd: nothing sent, one warning: $(cat "$workdir/n.err")"
	else
		bad "without libsystemd: got $(lines "$workdir/n.out" 4) / $(lines "$workdir/n.err" 3)"
	fi
fi
# No manager: nothing is sent and nothing is said.
env -u NOTIFY_SOCKET -u WATCHDOG_USEC "$PROBE" init ready up status s watchdog stopping \
	>"$workdir/none.out" 2>"$workdir/none.err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$workdir/none.err" ] &&
	grep -q '^notifying=no$' "$workdir/none.out" && grep -q '^watchdog_ms=0$' "$workdir/none.out"
then
	ok "without NOTIFY_SOCKET: no-ops, silent"
else
	bad "without NOTIFY_SOCKET: exit $rc, $(lines "$workdir/none.out" 3) / $(lines "$workdir/none.err" 2)"
fi

say "--- journal"
# JOURNAL_STREAM names the stream journald gave the service; stderr is compared with it.
log=$workdir/log
: >"$log"
stream=$(stat -c '%d:%i' "$log")
: >"$workdir/other"
other=$(stat -c '%d:%i' "$workdir/other")
env -u NOTIFY_SOCKET JOURNAL_STREAM="$stream" "$PROBE" log 4 'disk full; pruning' \
	log 3 'two
lines' log-errno 'cannot write segment' log 7 'ends in a newline
' 2>>"$log"
printf '%s\n' '<4>disk full; pruning' '<3>two lines' \
	'<3>cannot write segment: No space left on device' '<7>ends in a newline' >"$workdir/log.want"
expect "under journald" "$log" "$workdir/log.want"
# stderr redirected after service_init() (as --background does) is no longer journald's
: >"$log"
env -u NOTIFY_SOCKET JOURNAL_STREAM="$stream" "$PROBE" init log 6 before stderr "$workdir/later" \
	log 6 after >/dev/null 2>>"$log"
printf '%s\n' '<6>before' >"$workdir/log.want"
printf '%s\n' 'precord: after' >"$workdir/later.want"
expect "under journald, before stderr is redirected" "$log" "$workdir/log.want"
expect "after stderr is redirected" "$workdir/later" "$workdir/later.want"
env -u NOTIFY_SOCKET -u JOURNAL_STREAM "$PROBE" log 4 'disk full' 2>"$workdir/plain"
printf '%s\n' 'precord: disk full' >"$workdir/plain.want"
expect "without JOURNAL_STREAM" "$workdir/plain" "$workdir/plain.want"
env -u NOTIFY_SOCKET JOURNAL_STREAM="$other" "$PROBE" log 4 'disk full' 2>"$workdir/redir"
expect "JOURNAL_STREAM of another file" "$workdir/redir" "$workdir/plain.want"

say "--- man precord-ctl"
if ! command -v man >/dev/null 2>&1; then
	say "man is missing: man precord-ctl not checked"
else
	mkdir -p "$workdir/manctl/man1"
	cp "$top_srcdir/doc/precord-daemon.1" "$top_srcdir/doc/precord-ctl.1" "$workdir/manctl/man1/"
	MANPATH=$workdir/manctl MANWIDTH=80 man -P cat precord-ctl >"$workdir/manctl.out" 2>&1
	grep -q '^PRECORD-CTL(1) ' "$workdir/manctl.out" &&
		grep -q 'precord-daemon(1)' "$workdir/manctl.out"
	check $? "man precord-ctl shows its page, naming precord-daemon(1): $(lines "$workdir/manctl.out" 1)"
	MANWIDTH=80 man -P cat -l "$top_srcdir/doc/precord-ctl.1" >"$workdir/manctl-l.out" 2>&1
	grep -q '^PRECORD-CTL(1) ' "$workdir/manctl-l.out"
	check $? "man -l doc/precord-ctl.1 works in a checkout: $(lines "$workdir/manctl-l.out" 1)"
fi

say "--- unit"
if ! command -v systemd-analyze >/dev/null 2>&1; then
	missing="${missing:+$missing; }systemd-analyze (Debian: systemd)"
elif ! systemd-analyze security --help 2>/dev/null | grep -q -e '--offline'; then
	missing="${missing:+$missing; }systemd-analyze security --offline (systemd 252 or later)"
else
	say "using $(systemd-analyze --version | head -n 1)"
	# verify needs ExecStart='s program and the Documentation= man page: this build's.
	u=$workdir/precord.service
	sed "s|^ExecStart=[^ ]*/precord |ExecStart=$PRECORD |" "$UNIT" >"$u"
	mkdir -p "$workdir/man/man1"
	ln -s "$top_srcdir/doc/precord-daemon.1" "$workdir/man/man1/precord-daemon.1"
	MANPATH=$workdir/man systemd-analyze verify "$u" >"$workdir/verify.out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$workdir/verify.out" ]; then
		ok "systemd-analyze verify: no warnings"
	else
		bad "systemd-analyze verify exits $rc: $(lines "$workdir/verify.out" 4)"
	fi
	systemd-analyze security --offline=true "$u" >"$workdir/sec.out" 2>&1
	level=$(sed -n 's/.*Overall exposure level for [^:]*: *\([0-9.]*\).*/\1/p' "$workdir/sec.out")
	if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }'; then
		ok "systemd-analyze security --offline=true: exposure $level (at most 2.5)"
	else
		bad "exposure '$level', want at most 2.5: $(grep -E '^(✗|-) ' "$workdir/sec.out" | awk '{ print $2 }' | head -n 8 | join_lines)"
	fi
	# a failed item starts with "✗", or "-" in the C locale
	caps=$(grep -E '^(✗|-) CapabilityBoundingSet=' "$workdir/sec.out" |
		sed 's/.*CapabilityBoundingSet=~\([^ ]*\).*/\1/' | sort | join_lines)
	if printf '%s\n' "$caps" | grep -q -x -E '(CAP_(PERFMON|SYS_PTRACE|SYSLOG)( \| )?)+'; then
		ok "capabilities the analyzer sees left: $caps (of CAP_PERFMON CAP_SYS_PTRACE CAP_SYSLOG)"
	else
		bad "capabilities left: $caps"
	fi
	# ProtectKernelTunables= hides /proc/kallsyms and ProtectKernelLogs= drops CAP_SYSLOG (no
	# kernel map); ProtectProc=/ProcSubset= and PrivateUsers= hide other users' processes or
	# make the capabilities count in a user namespace only.
	if grep -n -E '^(ProtectKernelTunables|ProtectKernelLogs|PrivateUsers)=(yes|true|on|1)|^ProtectProc=(invisible|noaccess)|^ProcSubset=pid' \
		"$u" >"$workdir/taken"; then
		bad "the unit takes what the recorder needs: $(join_lines <"$workdir/taken")"
	else
		ok "the unit leaves /proc/kallsyms, CAP_SYSLOG and every process to the recorder"
	fi
fi

say "--- caps"
# The unit's dynamic user: no root, only the ambient capabilities.  A uid of the range
# systemd gives dynamic users, chosen to be nobody's.  The workload is root's and runs from a
# file that only its own mount namespace sees (as in a container or under PrivateTmp=), so
# that its build-id can only be read through /proc/PID/root.
uid=61999
caps=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT" | tr '[:upper:]' '[:lower:]' |
	sed 's/cap_/+/g; s/ /,/g')
why=
ns=$workdir/ns
mkdir "$ns"
if [ "$(id -u)" -ne 0 ]; then
	why="not root"
elif ! command -v setpriv >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
	why="setpriv or unshare is missing (Debian: util-linux)"
elif [ -z "$caps" ]; then
	why="the unit has no AmbientCapabilities="
elif ! "$PRECORD" -q -a -e cpu-clock -o "$workdir/probe.data" -- true 2>"$workdir/probe.err"
then
	why="root cannot record -a here: $(lines "$workdir/probe.err" 1)"
elif ! setpriv --reuid=$uid --regid=$uid --clear-groups test -x "$PRECORD"; then
	why="an unprivileged user cannot run $PRECORD (a directory above it is closed)"
elif ! unshare -m --propagation private sh -c 'mount -t tmpfs prec-ns "$0"' "$ns" \
	2>"$workdir/ns.err"; then
	why="cannot mount a tmpfs in a new mount namespace: $(lines "$workdir/ns.err" 1)"
fi
if [ -n "$why" ]; then
	say "skipped the caps part: $why"
else
	chmod 711 "$workdir"
	mkdir "$workdir/caps"
	chown $uid:$uid "$workdir/caps"
	unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=755 prec-ns "$0" &&
		cp "$1" "$0/demo-ns" && exec "$0/demo-ns" 8000' "$ns" "$DEMO" >/dev/null &
	demo=$!
	i=0
	while [ $i -lt 100 ] && ! readlink "/proc/$demo/exe" | grep -q 'demo-ns$'; do
		sleep 0.1
		i=$((i + 1))
	done
	setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs \
		--bounding-set=-all,"$caps" --inh-caps="$caps" --ambient-caps="$caps" \
		"$PRECORD" -a -F 99 -g -o "$workdir/caps/a.data" -- true \
		>"$workdir/caps.out" 2>"$workdir/caps.err"
	rc=$?
	kill $demo 2>/dev/null
	wait $demo 2>/dev/null
	if [ -e "$ns/demo-ns" ]; then
		bad "caps: $ns/demo-ns is visible outside its mount namespace; the test is void"
	elif [ "$rc" -eq 0 ]; then
		ok "precord -a as uid $uid with $caps only: exit 0"
		"$PREPORT" -D -i "$workdir/caps/a.data" >"$workdir/caps.dump" 2>&1
		if grep -q "MMAP2 .* pid $demo .*/demo-ns" "$workdir/caps.dump"; then
			ok "a root-owned process's maps are read (pid $demo, demo-ns)"
		else
			bad "no map of demo-ns (pid $demo) in the recording"
		fi
		if grep -q 'BUILD_ID .*/demo-ns$' "$workdir/caps.dump"; then
			ok "its build-id is read through /proc/$demo/root (CAP_SYS_PTRACE)"
		else
			bad "no build-id for demo-ns: /proc/PID/root of a root process was not readable"
		fi
		if grep -q 'MMAP .*\[kernel\.kallsyms\]' "$workdir/caps.dump"; then
			ok "the kernel map is recorded: /proc/kallsyms shows addresses (CAP_SYSLOG)"
		else
			bad "no kernel map in the recording: /proc/kallsyms addresses were hidden"
		fi
	else
		bad "precord -a as uid $uid with $caps exits $rc: $(lines "$workdir/caps.err" 3)"
	fi
fi

say "--- daemon"
# precord daemon under a NOTIFY_SOCKET with a watchdog, as the unit runs it (its dynamic user
# and capabilities, where the caps part ran): READY=1 with a STATUS, WATCHDOG=1 every half
# WATCHDOG_USEC, and STOPPING=1 after SIGTERM (sent once a WATCHDOG=1 came).
if [ "$built" != yes ] || ! command -v python3 >/dev/null 2>&1; then
	say "skipped the daemon part: needs libsystemd and python3"
elif ! "$PRECORD" -q -a -e cpu-clock -o "$workdir/probe-d.data" -- true 2>"$workdir/probe-d.err"
then
	say "skipped the daemon part: cannot record -a here: $(lines "$workdir/probe-d.err" 1)"
else
	dir=$workdir/segs
	mkdir -m 700 "$dir"
	as=
	if [ -z "$why" ]; then
		chown $uid:$uid "$dir"
		as="setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs"
		as="$as --bounding-set=-all,$caps --inh-caps=$caps --ambient-caps=$caps"
	fi
	# the unit's own command line, with this test's directory ("%%" is "%" in a unit)
	args=$(sed -n 's/^ExecStart=[^ ]*\/precord //p' "$UNIT" | sed "s/%%/%/g; s|--dir [^ ]*|--dir $dir|")
	# shellcheck disable=SC2086 # $as and $args are words on purpose
	WATCHDOG_USEC=1000000 python3 "$LISTEN" --signal-on WATCHDOG=1:TERM -- \
		$as "$PRECORD" $args >"$workdir/d.out" 2>"$workdir/d.err"
	rc=$?
	say "precord $args${as:+ (as uid $uid with $caps)}: exit $rc"
	child=$(sed -n 's/^child //p' "$workdir/d.out")
	grep -E '^[0-9]+ [0-9]+ ' "$workdir/d.out" >"$workdir/d.msgs"
	if [ "$rc" -eq 0 ]; then
		ok "daemon: exit status 0 after SIGTERM"
	else
		bad "daemon: exit status $rc; its stderr: $(lines "$workdir/d.err" 4)"
	fi
	first=$(awk '$1 == 1 { $1 = $2 = ""; sub(/^ +/, ""); printf "%s%s", s, $0; s = " | " }' \
		"$workdir/d.msgs")
	case $first in
	"READY=1 | STATUS="?*) ok "daemon: first notification: $first" ;;
	*) bad "daemon: first notification '$first', want READY=1 and a STATUS" ;;
	esac
	if grep -q ' WATCHDOG=1$' "$workdir/d.msgs"; then
		ok "daemon: WATCHDOG=1 ($(grep -c ' WATCHDOG=1$' "$workdir/d.msgs") times)"
	else
		bad "daemon: no WATCHDOG=1 under WATCHDOG_USEC=1 s: $(join_lines <"$workdir/d.msgs")"
	fi
	last=$(tail -n 1 "$workdir/d.msgs" | cut -d' ' -f3-)
	if [ "$last" = STOPPING=1 ]; then
		ok "daemon: STOPPING=1 last"
	else
		bad "daemon: last notification '$last', want STOPPING=1"
	fi
	pids=$(cut -d' ' -f2 "$workdir/d.msgs" | sort -u | join_lines)
	if [ -n "$child" ] && [ "$pids" = "$child" ]; then
		ok "daemon: every datagram comes from the main pid"
	else
		bad "daemon: datagrams from pids '$pids', want only the main pid $child"
	fi
	segs=$(find "$dir" -name 'precord-*.data' | wc -l)
	partial=$(find "$dir" -name '*.partial' | wc -l)
	if [ "$segs" -ge 1 ] && [ "$partial" -eq 0 ]; then
		ok "daemon: $segs closed segment(s), none left live"
	else
		bad "daemon: $segs closed and $partial live segments: $(find "$dir" -mindepth 1 -printf '%f\n' | join_lines);" \
			"$(df -h "$dir" | tail -n 1); its stderr: $(lines "$workdir/d.err" 4)"
	fi
fi

say "--- syscalls"
# Every system call the daemon makes while it records, switches segments and answers
# precord ctl (status, rotate, stop) must pass the unit's SystemCallFilter= (a call it
# denies fails with EPERM, and the daemon with it).
if ! command -v strace >/dev/null 2>&1; then
	say "skipped the syscalls part: strace is missing (Debian: strace)"
elif ! command -v systemd-analyze >/dev/null 2>&1; then
	say "skipped the syscalls part: systemd-analyze is missing"
elif ! "$PRECORD" -q -a -e cpu-clock -o "$workdir/probe-s.data" -- true 2>"$workdir/probe-s.err"
then
	say "skipped the syscalls part: cannot record -a here: $(lines "$workdir/probe-s.err" 1)"
else
	# group_calls @GROUP|NAME: the system calls it stands for, nested groups resolved
	group_calls() {
		case $1 in
		@*)
			for _c in $(systemd-analyze syscall-filter "$1" 2>/dev/null |
				awk 'NR > 1 && /^ +[-@a-z0-9_]+$/ { print $1 }'); do
				group_calls "$_c"
			done
			;;
		*) echo "$1" ;;
		esac
	}
	: >"$workdir/allow"
	: >"$workdir/deny"
	sed -n 's/^SystemCallFilter=//p' "$UNIT" >"$workdir/filter"
	while read -r list; do
		case $list in
		"~"*) to=deny list=${list#"~"} ;;
		*) to=allow ;;
		esac
		for item in $list; do
			group_calls "$item" >>"$workdir/$to"
		done
	done <"$workdir/filter"
	sdir=$workdir/strace-segs
	mkdir -m 700 "$sdir"
	strace -f -qq -o "$workdir/strace.out" "$PRECORD" daemon -e cpu-clock --dir "$sdir" \
		--max-disk=1G --min-free=1% >"$workdir/s.out" 2>"$workdir/s.err" &
	spid=$!
	i=0
	while [ $i -lt 300 ] && [ ! -S "$sdir/precord.sock" ] && kill -0 $spid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	"$PRECORD" ctl --dir "$sdir" status >"$workdir/ctl.out" 2>&1 &&
		"$PRECORD" ctl --dir "$sdir" rotate >>"$workdir/ctl.out" 2>&1 &&
		"$PRECORD" ctl --dir "$sdir" stop >>"$workdir/ctl.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || kill $spid 2>/dev/null
	wait $spid
	src=$?
	awk '{ sub(/^[0-9]+ +/, "") } match($0, /^[a-z0-9_]+\(/) {
		print substr($0, 1, RLENGTH - 1) }' "$workdir/strace.out" | sort -u >"$workdir/used"
	refused=
	while read -r call; do
		if ! grep -q -x "$call" "$workdir/allow" || grep -q -x "$call" "$workdir/deny"; then
			refused="$refused $call"
		fi
	done <"$workdir/used"
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
		bad "syscalls: the daemon under strace: ctl $rc, exit $src: $(lines "$workdir/ctl.out" 2) $(lines "$workdir/s.err" 3)"
	elif [ "$(grep -c . "$workdir/allow")" -lt 100 ]; then
		bad "syscalls: the unit's filter allows $(grep -c . "$workdir/allow") calls: cannot read its groups"
	elif [ -z "$refused" ]; then
		ok "syscalls: the unit's filter admits all $(grep -c . "$workdir/used") the daemon made"
	else
		bad "syscalls: the unit's filter refuses what the daemon made:$refused"
	fi
fi

if [ "$nr_bad" -eq 0 ] && [ -n "$missing" ]; then
	printf '%s: the %d checks made passed\n' "$me" "$nr_ok"
	skip "missing: $missing"
fi
finish
