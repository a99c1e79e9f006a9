#!/bin/sh
# SPDX-License-Identifier: MIT
# preport --header-only on damaged features of a real perf recording
# (tests/data/perf-file-small.data, 20 features; no perf_event_open needed).  Each copy has
# one feature's payload or section entry changed in place:
#   - HOSTNAME's section 3 bytes long, CMDLINE's count 0xffffffff, CACHE's version 2,
#     EVENT_DESC's attr size 8, NRCPUS claiming 1000 CPUs (so that CPU_TOPOLOGY's per-CPU
#     part is too short): that feature is one "# NAME: malformed" line, the features after it
#     are printed as in the intact file, nothing goes to stderr, the exit status is 0;
#   - an escape character in the host name: printed as '?', no control byte reaches stdout.
# EVENT_DESC rebuilt with other attr sizes (the payload appended, its section entry pointed
# there): 32 (below PERF_ATTR_SIZE_VER0) and one past the section are malformed, and the
# report does not take the event's name from them either; 64 (VER0), 128 and 136 (larger than
# preport knows) print the event as the intact file does, and the report takes its name.
# shellcheck disable=SC2154 # top_srcdir and workdir come from test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
SRC=$top_srcdir/tests/data/perf-file-small.data
[ -f "$SRC" ] || fail "no $SRC"

# u64 FILE OFFSET: the little-endian u64 at OFFSET.
u64() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

# poke FILE OFFSET BYTE...: write the bytes (hex, e.g. ff 1b) at OFFSET.
poke() {
	_f=$1
	_o=$2
	shift 2
	_b=
	for _x in "$@"; do
		_b=$_b$(printf '\\%03o' "0x$_x")
	done
	# shellcheck disable=SC2059 # the octal escapes are the format
	printf "$_b" | dd of="$_f" bs=1 seek="$_o" conv=notrunc status=none ||
		fail "cannot write to $_f"
}

# entry BIT: the offset of feature BIT's {offset, size} in the feature table (after the data
# section; one entry per feature bit set, in bit order).
table=$(($(u64 "$SRC" 40) + $(u64 "$SRC" 48)))
bits=$(u64 "$SRC" 72)
entry() {
	_i=0
	_n=0
	while [ "$_i" -lt "$1" ]; do
		_n=$((_n + (bits >> _i & 1)))
		_i=$((_i + 1))
	done
	echo $((table + 16 * _n))
}
payload() { u64 "$SRC" "$(entry "$1")"; } # BIT: where feature BIT's payload starts

# damaged NAME OFFSET BYTE...: $workdir/NAME.data, the recording with the bytes written there.
damaged() {
	_n=$1
	shift
	cp "$SRC" "$workdir/$_n.data" || fail "cannot copy $SRC"
	poke "$workdir/$_n.data" "$@"
}

# run NAME: --header-only of $workdir/NAME.data (or of the intact file for "intact") into
# $workdir/NAME.out, .err, and $rc; the capture-time line left out.
run() {
	_in=$workdir/$1.data
	[ "$1" = intact ] && _in=$SRC
	"$PREPORT" -i "$_in" --header-only >"$workdir/$1.raw" 2>"$workdir/$1.err"
	rc=$?
	grep -v '^# captured on' "$workdir/$1.raw" >"$workdir/$1.out"
}

# malformed NAME FEATURE NEXT-LINE: NAME's header says FEATURE is malformed and still has
# NEXT-LINE (the start of a line of a later feature, as in the intact file).
malformed() {
	run "$1"
	if [ "$rc" != 0 ] || [ -s "$workdir/$1.err" ]; then
		bad "$1: exit $rc, stderr: $(lines "$workdir/$1.err")"
		return
	fi
	grep -q "^# $2: malformed\$" "$workdir/$1.out"
	check $? "$1: '# $2: malformed'"
	grep -q "^$3" "$workdir/$1.out" && grep -q "^$3" "$workdir/intact.out"
	check $? "$1: '$3...' still printed"
	[ "$(grep -c malformed "$workdir/$1.out")" = 1 ]
	check $? "$1: one feature malformed, no other"
}

run intact
[ "$rc" = 0 ] && [ ! -s "$workdir/intact.err" ] &&
	grep -q '^# hostname : vm$' "$workdir/intact.out" &&
	! grep -q malformed "$workdir/intact.out"
check $? "the intact file: hostname printed, nothing malformed (exit $rc)"

damaged hostname-short $(($(entry 3) + 8)) 03
malformed hostname-short HOSTNAME "# os release : "

damaged cmdline-count "$(payload 11)" ff ff ff ff
malformed cmdline-count CMDLINE "# event : name = cpu-clock"

damaged cache-version "$(payload 20)" 02
malformed cache-version CACHE "# time of first sample : "

damaged attr-size $(($(payload 12) + 4)) 08 00 00 00
malformed attr-size EVENT_DESC "# sibling sockets : "

damaged nrcpus-1000 "$(payload 7)" e8 03 00 00
malformed nrcpus-1000 CPU_TOPOLOGY "# node0 cpu list : "

# the host name "vm": its first byte after the u32 length
damaged hostname-esc $(($(payload 3) + 4)) 1b
run hostname-esc
grep -q '^# hostname : ?m$' "$workdir/hostname-esc.out"
check $? "an escape character in the host name is printed as '?'"
! tr -d '\n' <"$workdir/hostname-esc.raw" | LC_ALL=C grep -q '[[:cntrl:]]'
check $? "no control character on stdout"

# le VALUE N: VALUE as N little-endian bytes.
le() {
	_b=
	_i=0
	while [ "$_i" -lt "$2" ]; do
		_b=$_b$(printf '\\%03o' $(($1 >> (8 * _i) & 255)))
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2059 # the octal escapes are the format
	printf "$_b"
}

# event_desc NAME SIZE: $workdir/NAME.data, the recording whose EVENT_DESC (one event: a
# 128-byte attr, 2 ids, the name "cpu-clock") is rebuilt at the end of the file with an attr
# of SIZE bytes (cut or zero-extended, its own size field SIZE; a SIZE past the payload: the
# attr as it was) and the name "renamed".
event_desc() {
	_e=$(entry 12)
	_p=$(payload 12)
	_f=$workdir/$1.data
	cp "$SRC" "$_f" || fail "cannot copy $SRC"
	_end=$(wc -c <"$_f")
	{
		le 1 4
		le "$2" 4
		dd if="$SRC" bs=1 skip=$((_p + 8)) count=4 status=none # type
		if [ "$2" -le 4096 ]; then
			le "$2" 4
			_n=$(($2 < 128 ? $2 : 128))
			dd if="$SRC" bs=1 skip=$((_p + 16)) count=$((_n - 8)) status=none
			[ "$2" -le 128 ] || head -c $(($2 - 128)) /dev/zero
		else
			dd if="$SRC" bs=1 skip=$((_p + 12)) count=124 status=none
		fi
		le 2 4    # nr_ids
		le 64 4   # the name, padded to 64 bytes
		printf renamed
		head -c 57 /dev/zero
		dd if="$SRC" bs=1 skip=$((_p + 208)) count=16 status=none # the ids
	} >>"$_f" || fail "cannot write $_f"
	{
		le "$_end" 8
		le $(($(wc -c <"$_f") - _end)) 8
	} | dd of="$_f" bs=1 seek="$_e" conv=notrunc status=none || fail "cannot write $_f"
}

# the intact file's event line, as it would read with another size and name
intact_event() {
	grep '^# event : ' "$workdir/intact.out" |
		sed "s/ = cpu-clock,/ = renamed,/;s/, size = 128,/, size = $1,/"
}

for size in 32 64 128 136 2147483000; do
	event_desc "event-desc-$size" "$size"
	run "event-desc-$size"
	"$PREPORT" -i "$workdir/event-desc-$size.data" --stdio >"$workdir/event-desc-$size.report" \
		2>"$workdir/event-desc-$size.report.err"
	rrc=$?
	if [ "$rc" != 0 ] || [ -s "$workdir/event-desc-$size.err" ] || [ "$rrc" != 0 ]; then
		bad "EVENT_DESC with $size-byte attrs: exit $rc (report: $rrc), stderr:" \
			"$(lines "$workdir/event-desc-$size.err") $(lines "$workdir/event-desc-$size.report.err")"
		continue
	fi
	case $size in
	32 | 2147483000)
		grep -q '^# EVENT_DESC: malformed$' "$workdir/event-desc-$size.out" &&
			! grep -q '^# event : ' "$workdir/event-desc-$size.out"
		check $? "EVENT_DESC with $size-byte attrs: '# EVENT_DESC: malformed'"
		name=cpu-clock
		;;
	*)
		intact_event "$size" >"$workdir/event-desc-$size.want"
		grep '^# event : ' "$workdir/event-desc-$size.out" >"$workdir/event-desc-$size.got"
		cmp -s "$workdir/event-desc-$size.want" "$workdir/event-desc-$size.got" &&
			! grep -q malformed "$workdir/event-desc-$size.out"
		check $? "EVENT_DESC with $size-byte attrs: the event printed as in the intact file"
		name=renamed
		;;
	esac
	grep -q "^# Samples: .* of event '$name'\$" "$workdir/event-desc-$size.report"
	check $? "EVENT_DESC with $size-byte attrs: the report names the event '$name'"
done

finish
