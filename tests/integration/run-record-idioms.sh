#!/bin/sh
# SPDX-License-Identifier: MIT
# perf record's idioms that precord takes the same way, and the messages of refusals:
#   -p PID -- sleep 1   the command times the recording of PID: exit 0, every sample of PID
#   -a -p PID           a warning, then only PID is recorded
#   -F max / -F 10000000  the kernel's limit (kernel.perf_event_max_sample_rate) is used, with
#                       a warning when more was asked for
#   -z                  without a level: level 1, COMPRESSED records
#   -e cycles           on a machine without a PMU: one line, then cpu-clock (checked only
#                       where cycles cannot be opened)
#   -t TID              of a thread that does not exist: the message says "thread"
#   --flush-interval 0  the message gives the range
#   unprivileged        (as nobody, with kernel.perf_event_paranoid >= 2) -e cpu-clock:k is
#                       refused with the cure instead of recording nothing; -p 1 blames the
#                       right to trace, not perf_event_paranoid; -a is refused in one line
#                       that names the level that allows it (0), and a command records user
#                       space only, saying 1 would allow kernel samples.  Where the sysctl
#                       can be set (root), each for a moment and set back at once: at 1, -a
#                       gets the same advice and a command records with no fallback line;
#                       at 0, -a records
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo
DEMO=$WL/demo

# attr_freq FILE: the sample_freq of FILE's first event, as perf reads it.
attr_freq() {
	"$PERF" report -i "$1" --header-only 2>/dev/null |
		sed -n 's/^# event : .*sample_freq } = \([0-9]*\).*/\1/p' | head -n 1
}

# all_of_pid LABEL SAMPLES PID: there are samples, and every one is of PID.
all_of_pid() {
	_n=$(grep -c . "$2")
	_m=$(sample_field "$2" pid | grep -c "^$3\$")
	if [ "$_n" -gt 0 ] && [ "$_n" -eq "$_m" ]; then
		ok "$1: all $_n samples are of $3"
	else
		bad "$1: $_m of $_n samples are of $3"
	fi
}

say "--- -p PID -- sleep 1"
start_bg "$DEMO" 60000
sleep 0.3
f=$workdir/timer.data
record timer -e cpu-clock -F 999 -p "$bg_pid" -o "$f" -- sleep 1
check_status "-p PID -- sleep 1" "$rec_rc" 0
check_summary "-p PID -- sleep 1" "$rec_err"
preport_reads "-p PID -- sleep 1" "$f"
all_of_pid "-p PID -- sleep 1" "$f.samples" "$bg_pid"

say "--- -a -p PID"
f=$workdir/ap.data
record ap -e cpu-clock -F 999 -a -p "$bg_pid" -o "$f" --duration 0.5
check_status "-a -p" "$rec_rc" 0
if grep -q "warning: -a and -p given; recording only the processes given with -p" "$rec_err"; then
	ok "-a -p: warns"
else
	bad "-a -p: no warning: $(lines "$rec_err")"
fi
preport_reads "-a -p" "$f"
all_of_pid "-a -p" "$f.samples" "$bg_pid"
stop_bg "$bg_pid"

say "--- -F max and -F above the limit"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
f=$workdir/fmax.data
record fmax -e cpu-clock -F max -o "$f" -- "$DEMO" 50
check_status "-F max" "$rec_rc" 0
got=$(attr_freq "$f")
if [ "$got" = "$max" ]; then ok "-F max: sample_freq $got, the kernel's limit"; else bad "-F max: sample_freq '$got', want $max"; fi
f=$workdir/fbig.data
record fbig -e cpu-clock -F $((max + 1)) -o "$f" -- "$DEMO" 50
check_status "-F $((max + 1))" "$rec_rc" 0
got=$(attr_freq "$f")
if [ "$got" = "$max" ]; then ok "-F $((max + 1)): capped to $got"; else bad "-F $((max + 1)): sample_freq '$got', want $max"; fi
if grep -q "warning: -F $((max + 1)) is above the kernel's limit; sampling at $max Hz" "$rec_err"; then
	ok "-F $((max + 1)): warns"
else
	bad "-F $((max + 1)): no warning: $(lines "$rec_err")"
fi

say "--- -z without a level"
f=$workdir/z.data
record z -z -e cpu-clock -F 999 -o "$f" -- "$DEMO" 100
check_status "-z" "$rec_rc" 0
preport_reads "-z" "$f"
if grep -q ': COMPRESSED ' "$f.dump"; then ok "-z: COMPRESSED records"; else bad "-z: no COMPRESSED records"; fi

say "--- -e cycles without a PMU"
if "$PERF" stat -e cycles -x, true >/dev/null 2>"$workdir/pmu.err" &&
	! grep -q "not supported\|not counted" "$workdir/pmu.err"; then
	say "this machine counts cycles: the fallback is not checked"
else
	f=$workdir/cycles.data
	record cycles -e cycles -o "$f" -- "$DEMO" 100
	check_status "-e cycles" "$rec_rc" 0
	n=$(grep -c "no hardware cycles event on this machine; sampling cpu-clock instead" "$rec_err")
	if [ "$n" -eq 1 ]; then ok "-e cycles: one line says so"; else bad "-e cycles: $n lines say so: $(lines "$rec_err" 3)"; fi
	preport_reads "-e cycles" "$f"
	if [ "$(sample_event "$f.samples" | sort -u)" = cpu-clock ]; then
		ok "-e cycles: the samples are of cpu-clock"
	else
		bad "-e cycles: sample events $(sample_event "$f.samples" | sort -u | join_lines)"
	fi
fi

say "--- messages"
pmax=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
notid=$((pmax - 1))
if [ ! -e "/proc/$notid" ]; then
	record notid -e cpu-clock -t "$notid" --duration 0.2 -o "$workdir/notid.data"
	if [ "$rec_rc" -ne 0 ]; then ok "-t $notid: exit status $rec_rc"; else bad "-t $notid: exit status 0"; fi
	one_line "-t $notid" "$rec_err" "thread $notid does not exist"
fi
record flush -e cpu-clock --flush-interval 0 -o "$workdir/flush.data" -- true
check_status "--flush-interval 0" "$rec_rc" 2
one_line "--flush-interval 0" "$rec_err" "from 1 to 3600000"

say "--- unprivileged"
par=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1 || [ "$par" -lt 2 ]; then
	say "not root, no setpriv, or perf_event_paranoid $par < 2: the unprivileged cases are not checked"
else
	# a copy nobody can run, in a directory nobody can enter
	pub=$(mktemp -d "${TMPDIR:-/tmp}/precord-pub.XXXXXX")
	chmod 0777 "$pub"
	cp "$PRECORD" "$pub/precord"
	chmod 0755 "$pub/precord"
	asnobody() {
		setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all "$@"
	}
	asnobody "$pub/precord" -e cpu-clock:k -o "$pub/k.data" -- true >/dev/null 2>"$workdir/k.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then ok "nobody, -e cpu-clock:k: refused (exit $rc)"; else bad "nobody, -e cpu-clock:k: exit 0"; fi
	one_line "nobody, -e cpu-clock:k" "$workdir/k.err" "drop the :k"
	asnobody "$pub/precord" -e cpu-clock -p 1 --duration 0.2 -o "$pub/p1.data" >/dev/null 2>"$workdir/p1.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then ok "nobody, -p 1: refused (exit $rc)"; else bad "nobody, -p 1: exit 0"; fi
	one_line "nobody, -p 1" "$workdir/p1.err" "ptrace"
	if grep -q paranoid "$workdir/p1.err"; then
		bad "nobody, -p 1: the message blames perf_event_paranoid"
	else
		ok "nobody, -p 1: the message does not blame perf_event_paranoid"
	fi
	# no_kernel_line LABEL STDERR: the user-space fallback was not taken (nor said)
	no_kernel_line() {
		if grep -q 'kernel samples not allowed' "$2"; then
			bad "$1: says kernel samples are not allowed: $(lines "$2" 3)"
		else
			ok "$1: does not say kernel samples are not allowed"
		fi
	}
	# at_paranoid LEVEL CMD...: CMD with kernel.perf_event_paranoid at LEVEL, set back to
	# $par right after (and by the EXIT trap); 99 when it cannot be set
	at_paranoid() {
		_lvl=$1
		shift
		echo "$_lvl" 2>/dev/null >/proc/sys/kernel/perf_event_paranoid || return 99
		"$@"
		_rc=$?
		echo "$par" >/proc/sys/kernel/perf_event_paranoid
		return $_rc
	}
	asnobody "$pub/precord" -e cpu-clock -a -o "$pub/a.data" -- true >/dev/null 2>"$workdir/a$par.err"
	rc=$?
	if [ "$rc" -eq 1 ]; then ok "nobody, -a at $par: refused (exit 1)"; else bad "nobody, -a at $par: exit $rc, want 1"; fi
	one_line "nobody, -a at $par" "$workdir/a$par.err" "kernel.perf_event_paranoid=0'"
	if [ "$par" -eq 2 ]; then
		asnobody "$pub/precord" -e cpu-clock -o "$pub/u.data" -- true >/dev/null 2>"$workdir/u2.err"
		check_status "nobody, a command at 2" $? 0 "$workdir/u2.err"
		if grep -q 'kernel samples not allowed at kernel.perf_event_paranoid=2 (1 or lower' "$workdir/u2.err"; then
			ok "nobody, a command at 2: user space only, and 1 would allow kernel samples"
		else
			bad "nobody, a command at 2: no line on the user-space fallback: $(lines "$workdir/u2.err" 3)"
		fi
	fi
	if echo "$par" 2>/dev/null >/proc/sys/kernel/perf_event_paranoid; then
		trap 'echo "$par" >/proc/sys/kernel/perf_event_paranoid; _record_cleanup' EXIT
		at_paranoid 1 asnobody "$pub/precord" -e cpu-clock -a -o "$pub/a.data" -- true \
			>/dev/null 2>"$workdir/a1.err"
		rc=$?
		if [ "$rc" -eq 1 ]; then ok "nobody, -a at 1: refused (exit 1)"; else bad "nobody, -a at 1: exit $rc, want 1"; fi
		one_line "nobody, -a at 1" "$workdir/a1.err" "kernel.perf_event_paranoid=0'"
		at_paranoid 1 asnobody "$pub/precord" -e cpu-clock -o "$pub/u.data" -- true \
			>/dev/null 2>"$workdir/u1.err"
		check_status "nobody, a command at 1" $? 0 "$workdir/u1.err"
		no_kernel_line "nobody, a command at 1" "$workdir/u1.err"
		at_paranoid 0 asnobody "$pub/precord" -e cpu-clock -a -o "$pub/a.data" -- true \
			>/dev/null 2>"$workdir/a0.err"
		check_status "nobody, -a at 0 (as the advice says)" $? 0 "$workdir/a0.err"
		no_kernel_line "nobody, -a at 0" "$workdir/a0.err"
		say "kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid) again"
	else
		say "kernel.perf_event_paranoid cannot be set here: levels 1 and 0 are not checked"
	fi
	rm -rf "$pub"
fi

finish
