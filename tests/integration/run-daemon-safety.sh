#!/bin/sh
# SPDX-License-Identifier: MIT
# What precord daemon and precord ctl refuse (issue 17, "Security" and "Errors"), each with
# one line on stderr and a non-zero exit:
#   DIR           a symbolic link (also written link/ or link/., which once got past the
#                 check: timeout ends a daemon that would start), a path ending in "..", a
#                 directory owned by another user (65534), one with mode 0777; a second
#                 daemon on the same DIR (named by the first's pid)
#   ctl           as another user (setpriv; the part is skipped without it): the socket is
#                 0600 in a 0700 DIR, so the connect fails; with CAP_DAC_OVERRIDE it does
#                 not, and the daemon refuses the uid itself (SO_PEERCRED); it keeps running
#   planted links symbolic links in DIR named like a closed and like a live segment are not
#                 followed: retention (--switch-max-files 1) does not delete their targets,
#                 the restart does not close them, ctl status does not count them
#   bad input     an unknown --switch-output SPEC, a SPEC after a bare --switch-output
#                 (which is signal, as in perf, and takes no next argument), a bad
#                 --max-disk, the record options -o, --duration and -q (usage errors, rc 2),
#                 an unknown option (one line that starts "precord daemon:"), ctl with no
#                 daemon, an unknown ctl command; -F with -c (while -c alone replaces the
#                 default -F 99: review 22 #16, it was refused as if -F were given);
#                 ctl to a daemon whose socket was removed: not "no daemon is running"
#                 (which invites a second start) but that the daemon holding DIR lost it
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

need_record

# refused LABEL WANT-STATUS WORD CMD...: CMD exits WANT-STATUS with one line naming WORD.
refused() {
	_l=$1
	_want=$2
	_w=$3
	shift 3
	"$@" >"$workdir/refused.out" 2>"$workdir/refused.err"
	check_status "$_l" $? "$_want" "$workdir/refused.err"
	one_line "$_l" "$workdir/refused.err" "$_w"
}

say "--- bad input"
refused "unknown --switch-output" 2 "--switch-output" \
	"$PRECORD" daemon --dir "$workdir/bad" --switch-output=10q
refused "a SPEC after a bare --switch-output" 2 "--switch-output=10m" \
	"$PRECORD" daemon --dir "$workdir/bad" --switch-output 10m
"$PRECORD" daemon --switch-output --help >"$workdir/help.out" 2>&1
check_status "a bare --switch-output does not take the --help after it" $? 0 "$workdir/help.out"
refused "bad --max-disk" 2 "--max-disk" "$PRECORD" daemon --dir "$workdir/bad" --max-disk=lots
# record options that mean nothing to the daemon: refused, not ignored (they were)
refused "-o for the daemon" 2 "-o/--output is not a daemon option" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/bad" -e cpu-clock -o foo.data
refused "--duration for the daemon" 2 "--duration is not a daemon option" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/bad" -e cpu-clock --duration=2
refused "-q for the daemon" 2 "-q/--quiet is not a daemon option" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/bad" -e cpu-clock -q
refused "an unknown option" 2 \
	"precord daemon: unrecognized option '--frob'; run 'precord daemon --help'" \
	"$PRECORD" daemon --dir "$workdir/bad" --frob
refused "a daemon option without its value" 2 "option '--max-age' needs a value" \
	"$PRECORD" daemon --dir "$workdir/bad" --max-age
[ ! -e "$workdir/bad" ] && [ ! -e foo.data ]
check $? "bad options create no DIR (and no foo.data)"
refused "ctl without a daemon" 1 "no precord daemon is running" \
	"$PRECORD" ctl --dir "$workdir/none" status
refused "unknown ctl command" 2 "unknown command" "$PRECORD" ctl --dir "$workdir/none" frob
long=$workdir/$(printf '%0120d' 0)
refused "--dir too long for a socket" 1 "choose a shorter --dir" \
	"$PRECORD" daemon --dir "$long" -e cpu-clock

refused "-F with -c" 2 "give either -F or -c" \
	"$PRECORD" daemon --dir "$workdir/bad" -e cpu-clock -F 99 -c 100000
if start_daemon period "$workdir/period" -e cpu-clock -c 10000000; then
	t=$(status_of "$workdir/period" target)
	case $t in *"cpu-clock every 10000000 events"*) true ;; *) false ;; esac
	check $? "-c 10000000 alone replaces the default -F 99: target: $t"
	stop_daemon period "$workdir/period"
fi

if start_daemon nosock "$workdir/nosock" -e cpu-clock; then
	rm "$workdir/nosock/precord.sock"
	refused "ctl with the socket removed" 1 "holds $workdir/nosock but its control socket" \
		"$PRECORD" ctl --dir "$workdir/nosock" status
	kill "$dpid"
	wait "$dpid"
	forget_daemon "$dpid"
fi

say "--- DIR refused"
mkdir -m 0700 "$workdir/real"
ln -s real "$workdir/link"
refused "DIR is a symlink" 1 "symbolic link" "$PRECORD" daemon --dir "$workdir/link" -e cpu-clock
refused "DIR is a symlink, with a trailing slash" 1 "symbolic link" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/link/" -e cpu-clock
refused "DIR is a symlink, written link/." 1 "symbolic link" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/link/." -e cpu-clock
refused "DIR ends in .." 1 "'..'" \
	timeout 30 "$PRECORD" daemon --dir "$workdir/link/.." -e cpu-clock
mkdir -m 0700 "$workdir/other"
chown 65534 "$workdir/other"
refused "DIR owned by uid 65534" 1 "owned by uid 65534" \
	"$PRECORD" daemon --dir "$workdir/other" -e cpu-clock
mkdir "$workdir/open"
chmod 0777 "$workdir/open"
refused "DIR with mode 0777" 1 "mode 0777" "$PRECORD" daemon --dir "$workdir/open" -e cpu-clock
n=$(find "$workdir/real" "$workdir/other" "$workdir/open" -mindepth 1 | grep -c .)
[ "$n" -eq 0 ]
check $? "nothing is created in a refused DIR ($n files)"

say "--- a running daemon"
D=$workdir/dir
mkdir -m 0700 "$D"
echo victim >"$workdir/victim"
echo victim2 >"$workdir/victim2"
old=precord-20200101T000000.000Z-000001.data
ln -s "$workdir/victim" "$D/$old"
ln -s "$workdir/victim2" "$D/precord-20200101T000001.000Z-000002.data.partial"
if start_daemon safety "$D" -a -e cpu-clock -F 99 --switch-output=200ms --switch-max-files 1
then
	first=$dpid
	refused "a second daemon on DIR" 1 "pid $first" \
		"$PRECORD" daemon --dir "$D" -e cpu-clock --switch-output=200ms
	if command -v setpriv >/dev/null 2>&1; then
		refused "ctl as uid 65534" 1 "permission denied" setpriv --reuid 65534 \
			--regid 65534 --clear-groups "$PRECORD" ctl --dir "$D" stop
		kill -0 "$first" 2>/dev/null && "$PRECORD" ctl --dir "$D" status >/dev/null 2>&1
		check $? "the daemon keeps running and answering after uid 65534's attempt"
		# with CAP_DAC_OVERRIDE the connect succeeds: the daemon itself must refuse
		# (SO_PEERCRED)
		dac="setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps +dac_override"
		dac="$dac --ambient-caps +dac_override"
		if $dac true 2>"$workdir/dac.err"; then
			# shellcheck disable=SC2086 # dac is words
			refused "ctl as uid 65534 with CAP_DAC_OVERRIDE" 1 "precord ctl: " \
				$dac "$PRECORD" ctl --dir "$D" stop
			grep -q 'permission denied' "$workdir/refused.err"
			check $? "the daemon's refusal says permission denied"
			kill -0 "$first" 2>/dev/null && "$PRECORD" ctl --dir "$D" status >/dev/null 2>&1
			check $? "the daemon keeps running after refusing uid 65534"
			grep -q 'refused a client with uid 65534' "$dlog"
			check $? "the daemon's log names the refused uid 65534"
		else
			say "setpriv cannot keep CAP_DAC_OVERRIDE ($(lines "$workdir/dac.err" 1)):" \
				"the daemon's own refusal is not checked"
		fi
	else
		say "setpriv is missing: ctl as another user not checked"
	fi
	# a few switches, so that retention runs with the planted links in DIR
	wait_seq "$D" $(($(max_seq "$D") + 3)) || bad "no switch in 30 s: $(lines "$dlog" 3)"
	stop_daemon "safety" "$D"
	# a restart must not close the planted .partial link either; without switches the
	# files stay as they are while they are counted
	if start_daemon safety2 "$D" -a -e cpu-clock -F 99 --switch-max-files 1; then
		n=$(status_of "$D" segments)
		nfiles=$(($(closed_segments "$D" | grep -c .) + $(live_segments "$D" | grep -c .)))
		[ "$n" -eq "$nfiles" ]
		check $? "ctl status counts $n segments, the regular segment files ($nfiles), not the links"
		stop_daemon "safety2" "$D"
	fi
	if [ "$(cat "$workdir/victim")" = victim ] && [ "$(cat "$workdir/victim2")" = victim2 ]; then
		ok "the targets of the planted links are intact"
	else
		bad "a planted link's target was changed or deleted: $(lines "$dlog" 4)"
	fi
	if [ -L "$D/$old" ] && [ -L "$D/precord-20200101T000001.000Z-000002.data.partial" ]; then
		ok "the planted links are left alone"
	else
		bad "a planted link was deleted or renamed: $(find "$D" -maxdepth 1 -type l | join_lines)"
	fi
	n=$(closed_segments "$D" | grep -c .)
	[ "$n" -le 1 ]
	check $? "--switch-max-files 1 leaves $n closed segment (links not counted)"
fi

finish
