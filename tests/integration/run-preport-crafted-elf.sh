#!/bin/sh
# SPDX-License-Identifier: MIT
# A crafted ELF file cannot take preport's memory: a big-endian ELF whose .symtab declares
# 4 GiB (a sparse file, so it costs no disk) made libelf convert the whole section before
# the symbol limit was checked (8 GiB resident).  preport must refuse the table from its
# header: exit 0, one warning line naming the file and the limit, the samples [unknown] with
# the reason "not a usable ELF file", and a peak resident size far below the table (read
# with GNU time's %M where installed, else preport runs under a ulimit -v that leaves room
# for the mapping of the file but not for a converted copy).  The same for a 4 GiB note
# section, which was converted whole when the build-id was looked for: exit 0, a small peak,
# its samples [unknown] ("no symbols").
#
# The recordings are synthetic (tests/tools/write-stream): their map names a file that
# --symfs resolves to the crafted one; no perf_event_open is needed.
# shellcheck source=tests/integration/test-lib.sh
. "$(dirname "$0")/test-lib.sh"

need_file "$PREPORT" preport
need_file "$WRITE_STREAM" write-stream
need_file "$DEMO" "the demo workload"

# declared size of .symtab: 4 GiB less 16 bytes, a whole number of 24-byte symbols (libelf
# refuses to read a section that is not)
SYMTAB_SIZE=4294967280
SYMTAB_OFF=4096
RSS_MAX_KIB=262144 # 256 MiB; a report of this recording needs a few tens

# be VALUE BYTES: VALUE as BYTES big-endian bytes on stdout.
be() {
	_v=$1
	_n=$2
	_s=
	while [ "$_n" -gt 0 ]; do
		_s="\\$(printf '%03o' $((_v & 255)))$_s"
		_v=$((_v >> 8))
		_n=$((_n - 1))
	done
	# shellcheck disable=SC2059 # the format is made of octal escapes on purpose
	printf "$_s"
}

# zeros N: N zero bytes.
zeros() { head -c "$1" /dev/zero; }

# shdr NAME TYPE OFFSET SIZE LINK INFO ALIGN ENTSIZE: an ELF64 section header, big-endian.
shdr() {
	be "$1" 4
	be "$2" 4
	be 0 8 # flags
	be 0 8 # addr
	be "$3" 8
	be "$4" 8
	be "$5" 4
	be "$6" 4
	be "$7" 8
	be "$8" 8
}

# crafted_elf PATH TYPE: an ELF64 big-endian shared object (PowerPC64) whose section 1 has
# TYPE (2 SHT_SYMTAB, 7 SHT_NOTE; named .symtab either way) and 4 GiB declared at SYMTAB_OFF,
# all zeros (a hole), then .strtab and .shstrtab.
crafted_elf() {
	{
		printf '\177ELF\002\002\001'
		zeros 9
		be 3 2  # e_type ET_DYN
		be 21 2 # e_machine EM_PPC64
		be 1 4  # e_version
		be 0 8  # e_entry
		be 0 8  # e_phoff
		be 256 8 # e_shoff
		be 0 4  # e_flags
		be 64 2 # e_ehsize
		be 56 2 # e_phentsize
		be 0 2  # e_phnum
		be 64 2 # e_shentsize
		be 4 2  # e_shnum
		be 3 2  # e_shstrndx
		# 0x40: .shstrtab (27 bytes), padded to 0x80
		printf '\000.symtab\000.strtab\000.shstrtab\000'
		zeros 37
		# 0x80: .strtab, padded to 0x100
		printf '\000hot\000'
		zeros 123
		# 0x100: section headers
		zeros 64
		if [ "$2" -eq 2 ]; then
			shdr 1 2 "$SYMTAB_OFF" "$SYMTAB_SIZE" 2 1 8 24 # .symtab
		else
			shdr 1 "$2" "$SYMTAB_OFF" "$SYMTAB_SIZE" 0 0 4 0
		fi
		shdr 9 3 128 5 0 0 1 0                         # .strtab
		shdr 17 3 64 27 0 0 1 0                        # .shstrtab
	} >"$1" || return 1
	truncate -s $((SYMTAB_OFF + SYMTAB_SIZE)) "$1"
}

mkdir -p "$workdir/symfs"
crafted_elf "$workdir/symfs/crafted" 2 && crafted_elf "$workdir/symfs/notes" 7 ||
	fail "cannot write the crafted ELF files"
say "crafted: $(wc -c <"$workdir/symfs/crafted") bytes, $(du -k "$workdir/symfs/crafted" |
	cut -f 1) KiB on disk"
"$WRITE_STREAM" -o "$workdir/crafted.data" --map-name /crafted "$DEMO" hot_a:20 &&
	"$WRITE_STREAM" -o "$workdir/notes.data" --map-name /notes "$DEMO" hot_a:20 ||
	fail "write-stream failed"

# report NAME: preport on $workdir/NAME.data through the symfs, its peak resident size
# checked; sets rc, out, err.
report() {
	out=$workdir/$1.out
	err=$workdir/$1.err
	set -- "$1" "$PREPORT" -i "$workdir/$1.data" --symfs "$workdir/symfs" --stdio \
		--no-children --sort dso,sym
	if /usr/bin/time -f %M true >/dev/null 2>&1; then
		shift
		/usr/bin/time -o "$out.rss" -f %M "$@" >"$out" 2>"$err"
		rc=$?
		peak=$(tail -n 1 "$out.rss")
		if [ "$peak" -le "$RSS_MAX_KIB" ] 2>/dev/null; then
			ok "peak resident size $peak KiB (at most $RSS_MAX_KIB)"
		else
			bad "peak resident size '$peak' KiB, more than $RSS_MAX_KIB"
		fi
	else
		# room for the 4 GiB mapping of the file and 2 GiB more (preport reserves
		# address space ahead), not for a converted copy of the section
		limit=$(((SYMTAB_OFF + SYMTAB_SIZE) / 1024 + 2097152))
		say "no GNU time: preport runs under ulimit -v $limit (KiB)"
		shift
		(ulimit -v "$limit" && exec "$@") >"$out" 2>"$err"
		rc=$?
	fi
	if [ "$rc" -eq 0 ]; then
		ok "preport exited 0"
	else
		bad "preport exited $rc: $(lines "$err" 3)"
	fi
}

# unknown NAME REASON: the samples of NAME are one [unknown] row, for REASON.
unknown() {
	if grep -q "^ *100.00%  *$1  *\[.\] \[unknown\]" "$out"; then
		ok "$1: its samples are [unknown]"
	else
		bad "$1: its samples are not one [unknown] row: $(grep '%' "$out" | join_lines)"
	fi
	if grep -q "^# Not symbolized: .*$1.*($2)" "$out"; then
		ok "$1: the header says '$2'"
	else
		bad "$1: no reason '$2' in the header: $(grep '^# Not symbolized' "$out")"
	fi
}

report crafted
nwarn=$(grep -c 'crafted' "$err")
if [ "$nwarn" -eq 1 ] && grep -q "crafted: symbol table larger than the limit" "$err"; then
	ok "one line says why: $(grep crafted "$err")"
else
	bad "want one line on the crafted file's symbol table, got $nwarn: $(lines "$err" 3)"
fi
unknown crafted "not a usable ELF file"

report notes
unknown notes "no symbols"
finish
