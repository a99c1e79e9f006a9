#!/bin/sh
# SPDX-License-Identifier: MIT
# preport --pprof, checked with its real readers: go tool pprof (Debian's golang-go) and npm's
# pprof-format, a second decoder written independently of Go's.  Over the golden recordings
# (with their --symfs and --kallsyms, so this part runs where perf_event_open is refused) and
# over a fresh system-wide recording where it is allowed:
#   - `go tool pprof -top` lists the functions of `preport --no-children --sort sym` with the
#     same flat shares (within 0.1 points; unsymbolized addresses, which pprof groups by
#     binary, left out);
#   - `-traces`, folded into "comm;outer;...;leaf COUNT" lines, equals `preport --folded`;
#   - `-lines` gives the source lines of `preport --sort srcline` with the same shares, and
#     some where the binary has debug info;
#   - `-tagfocus comm=X` gives the shares of `preport --comms X`;
#   - `-tags` gives the pid and tid shares of `--sort pid` (`tid`), pid 0 (the idle task)
#     included, and `-tagfocus pid=0` the shares of `--pid 0`;
#   - pprof-format decodes every file, every id it refers to exists, and its samples add up
#     to preport's; a C++ function's system_name is its mangled name, a C one's and every
#     name under --no-demangle has none (go tool pprof would demangle and cut it down), so
#     that go tool pprof's own demangling keeps the names of a C++ template program apart;
#   - a source file the debug information names relative to the unit's directory is given
#     with that directory: go tool pprof -list finds it from anywhere;
#   - a copy of a binary (same build-id, another path) keeps a mapping of its own;
#   - a profile without samples (an empty range, a corrupt input) still has the event's
#     sample type and period type;
#   - a bad --pprof path (a directory, a symbolic link, an unwritable place) is one line on
#     stderr and exit status 1, and the file written is 0600.
# The pprof-format part skips (exit 77 at the end, if all else passed) without the npm
# modules in $PRECORD_NODE_MODULES (default tests/node/node_modules of the source tree:
# npm install --prefix tests/node --no-audit --no-fund pprof-format).
# shellcheck disable=SC2154 # top_srcdir and workdir come from test-lib.sh

. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_file "$PREPORT" preport
G=$top_srcdir/tests/data/golden
[ -d "$G" ] || fail "no golden data in $G"
command -v go >/dev/null 2>&1 ||
	skip "go is not installed (Debian package golang-go): go tool pprof reads the profiles"

# go and pprof: never the network, nothing outside the scratch directory
GOCACHE=$workdir/gocache
GOPATH=$workdir/gopath
GOFLAGS=-mod=mod
GOPROXY=off
GOTOOLCHAIN=local
PPROF_TMPDIR=$workdir/pprof-tmp
PPROF_BINARY_PATH=$workdir/no-binaries
export GOCACHE GOPATH GOFLAGS GOPROXY GOTOOLCHAIN PPROF_TMPDIR PPROF_BINARY_PATH
go tool pprof -h >"$workdir/pprof-help" 2>&1 ||
	skip "go tool pprof does not run: $(lines "$workdir/pprof-help")"

NM=$NODE_MODULES
have_decoder=0
if command -v node >/dev/null 2>&1 && [ -d "$NM/pprof-format" ]; then
	have_decoder=1
else
	say "no node or no pprof-format in $NM: the second decoder's checks are skipped"
fi

# pprof NAME OUT ARGS...: go tool pprof ARGS on NAME's profile into OUT (-symbolize=none: what
# the file says, nothing looked up on this host; with PPROF_SYM=local, pprof demangles as it
# does by default, which cuts down a name it takes for a mangled one).
pprof() {
	_f=$workdir/$1.pb.gz
	_o=$2
	shift 2
	go tool pprof -symbolize="${PPROF_SYM:-none}" -nodecount=1000000 -nodefraction=0 \
		-edgefraction=0 \
		"$@" "$_f" >"$_o" 2>"$_o.err"
}

# top_shares: pprof's -top on stdin as "NAME<TAB>FLAT%" lines, summed per name, of the
# functions it has names for ("[binary]" and "<unknown>" are addresses without a symbol).
top_shares() {
	awk '
	/^ *flat  *flat%/ { on = 1; next }
	on {
		pct = $2
		sub(/%$/, "", pct)
		name = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", name)
		sub(/ \((partial-)?inline\)$/, "", name)
		if (name ~ /^\[.*\]$/ || name == "<unknown>")
			next
		s[name] += pct
	}
	END { for (n in s) printf "%s\t%.2f\n", n, s[n] }' | sort
}

# preport_shares: a preport report (-g none) on stdin the same way: the Symbol column, names
# of functions only (not "0x..." nor "[unknown]").
preport_shares() {
	awk '
	/^ +[0-9.]+%  \[[.k]\] / {
		pct = $1
		sub(/%$/, "", pct)
		name = $0
		sub(/^ +[0-9.]+%  \[[.k]\] /, "", name)
		sub(/ +$/, "", name)
		sub(/ \(inlined\)$/, "", name)
		if (name ~ /^0x/ || name == "[unknown]")
			next
		s[name] += pct
	}
	END { for (n in s) printf "%s\t%.2f\n", n, s[n] }' | sort
}

# lines_shares: pprof's -lines -top on stdin as "FILE:LINE<TAB>FLAT%", summed; and preport's
# --sort srcline report the same way (its rows with a file and line).
lines_shares() {
	awk '
	/^ *flat  *flat%/ { on = 1; next }
	on {
		sub(/ \((partial-)?inline\)$/, "")
		if ($NF !~ /^[^ ]+:[0-9]+$/)
			next
		pct = $2
		sub(/%$/, "", pct)
		where = $NF
		sub(/.*\//, "", where) # pprof has the directory too; --sort srcline, perf, not
		s[where] += pct
	}
	END { for (n in s) printf "%s\t%.2f\n", n, s[n] }' | sort
}
srcline_shares() {
	awk '
	/^ +[0-9.]+%  [^ ]+:[0-9]+ *$/ && $2 !~ /^\?\?:/ {
		pct = $1
		sub(/%$/, "", pct)
		s[$2] += pct
	}
	END { for (n in s) printf "%s\t%.2f\n", n, s[n] }' | sort
}

# same_shares LABEL A B: the name<TAB>share lists A and B agree within 0.1 points, a name
# missing on one side counting as 0 there.
same_shares() {
	_diff=$(awk -F '\t' '
	FILENAME == ARGV[1] { a[$1] = $2; seen[$1] = 1; next }
	{ b[$1] = $2; seen[$1] = 1 }
	END {
		for (n in seen) {
			d = a[n] - b[n]
			if (d > 0.1 || d < -0.1)
				printf "%s: %s%% vs %s%%; ", n, a[n] + 0, b[n] + 0
		}
	}' "$2" "$3")
	if [ -n "$_diff" ]; then
		bad "$1: shares differ: $_diff"
	elif [ ! -s "$2" ] && [ ! -s "$3" ]; then
		bad "$1: no function at all"
	else
		ok "$1: the same $(wc -l <"$2") functions with the same shares"
	fi
}

# traces_folded: pprof's -traces (sample_index=samples) on stdin as preport's --folded lines:
# "comm;outer;...;leaf COUNT", merged and sorted.  pprof names a frame without a function
# "[binary]" (the basename of its mapping's file) or "<unknown>" (no mapping), where --folded
# says "[DSO]" and "[unknown]".
traces_folded() {
	awk '
	function flush() {
		if (n) {
			line = comm == "" ? "[unknown]" : comm
			for (i = n; i >= 1; i--)
				line = line ";" f[i]
			c[line] += v
		}
		n = 0
		comm = ""
	}
	/^-----------\+/ { flush(); next }
	substr($0, 11, 3) == ":  " {
		key = substr($0, 1, 10)
		gsub(/ /, "", key)
		if (key == "comm")
			comm = substr($0, 14)
		next
	}
	substr($0, 11, 3) == "   " && length($0) > 13 {
		val = substr($0, 1, 10)
		gsub(/ /, "", val)
		if (val != "")
			v = val
		name = substr($0, 14)
		sub(/ \((partial-)?inline\)$/, "", name)
		if (name == "<unknown>")
			name = "[unknown]"
		if (name ~ /^\[\[.*\]\]$/)
			name = substr(name, 2, length(name) - 2)
		f[++n] = name
	}
	END {
		flush()
		for (l in c)
			print l " " c[l]
	}' | sort
}

# check_traces LABEL NAME FOLDED: -traces of NAME's profile against preport's --folded.
check_traces() {
	if ! pprof "$2" "$workdir/$2.traces" -sample_index=samples -traces; then
		bad "$1: go tool pprof -traces failed: $(lines "$workdir/$2.traces.err" 3)"
		return
	fi
	traces_folded <"$workdir/$2.traces" >"$workdir/$2.traces.folded"
	# a DSO whose own name is bracketed ([vdso]) is "[[vdso]]" in --folded, and pprof's
	# "[[vdso]]" became "[vdso]" above: one pair of brackets on both sides
	sed 's/\(^\|;\)\[\[\([^];]*\)\]\]\(;\| \)/\1[\2]\3/g' "$3" |
		awk '{ i = match($0, / [0-9]+$/); c[substr($0, 1, i - 1)] += substr($0, i + 1) }
		END { for (k in c) print k " " c[k] }' |
		sort >"$workdir/$2.folded.sorted"
	if cmp -s "$workdir/$2.traces.folded" "$workdir/$2.folded.sorted"; then
		ok "$1: -traces gives the $(wc -l <"$3") stacks of --folded"
	else
		bad "$1: -traces and --folded differ: $(diff "$workdir/$2.folded.sorted" \
			"$workdir/$2.traces.folded" | grep '^[<>]' | head -n 4 | join_lines)"
	fi
}

# decode LABEL NAME SAMPLES: pprof-format reads NAME's profile, and its samples (values
# 0) add up to SAMPLES.
cat >"$workdir/decode.js" <<'EOF'
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require(process.argv[2] + '/pprof-format');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[3])));
const str = p.stringTable.strings;
const ids = (arr) => new Set(arr.map((x) => Number(x.id)));
const loc = ids(p.location), fn = ids(p.function), map = ids(p.mapping);
const bad = [];
const s = (i, what) => { if (Number(i) < 0 || Number(i) >= str.length) bad.push(what); };
let total = 0;
if (str[0] !== '') bad.push('string 0 is not empty');
for (const t of p.sampleType) { s(t.type, 'sample type'); s(t.unit, 'sample unit'); }
for (const x of p.sample) {
	if (x.value.length !== p.sampleType.length) bad.push('values');
	for (const l of x.locationId) if (!loc.has(Number(l))) bad.push('location ' + l);
	for (const l of x.label) { s(l.key, 'label key'); s(l.str, 'label'); }
	total += Number(x.value[0]);
}
for (const l of p.location) {
	if (Number(l.mappingId) && !map.has(Number(l.mappingId))) bad.push('mapping ' + l.mappingId);
	for (const n of l.line) if (!fn.has(Number(n.functionId))) bad.push('function ' + n.functionId);
}
for (const f of p.function) { s(f.name, 'name'); s(f.systemName, 'system name'); s(f.filename, 'file'); }
for (const m of p.mapping) { s(m.filename, 'mapping file'); s(m.buildId, 'build-id'); }
if (bad.length) { console.log('bad: ' + bad.slice(0, 5).join(', ')); process.exit(1); }
if (process.argv[4]) /* where that function starts, "file:line" */
	for (const f of p.function)
		if (str[f.name] === process.argv[4])
			console.error(str[f.filename] + ':' + f.startLine);
console.log(total + ' samples, ' + p.sample.length + ' stacks, ' + p.location.length +
	' locations, ' + p.function.length + ' functions, ' + p.mapping.length + ' mappings, types ' +
	p.sampleType.map((t) => str[t.type] + '/' + str[t.unit]).join(' '));
EOF
decode() {
	[ "$have_decoder" = 1 ] || return 0
	if node "$workdir/decode.js" "$NM" "$workdir/$2.pb.gz" >"$workdir/$2.dec" 2>&1 &&
		[ "$(cut -d ' ' -f 1 "$workdir/$2.dec")" = "$3" ]; then
		ok "$1: pprof-format decodes it: $(cat "$workdir/$2.dec")"
	else
		bad "$1: pprof-format: $(lines "$workdir/$2.dec" 3) (want $3 samples)"
	fi
}

# samples_of FOLDED: the number of samples in preport's --folded output.
samples_of() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

# check_recording LABEL NAME PREPORT-ARGS...: every check on one recording; its profile is
# $workdir/NAME.pb.gz.
check_recording() {
	_l=$1
	_n=$2
	shift 2
	if ! "$PREPORT" "$@" --pprof "$workdir/$_n.pb.gz" >"$workdir/$_n.pp.out" \
		2>"$workdir/$_n.pp.err"; then
		bad "$_l: preport --pprof failed: $(lines "$workdir/$_n.pp.err" 3)"
		return
	fi
	if [ -s "$workdir/$_n.pp.out" ]; then
		bad "$_l: preport --pprof wrote to stdout: $(lines "$workdir/$_n.pp.out")"
	fi
	"$PREPORT" "$@" --inline --no-children --sort sym -g none >"$workdir/$_n.sym" \
		2>"$workdir/$_n.sym.err" ||
		bad "$_l: preport --sort sym failed: $(lines "$workdir/$_n.sym.err" 3)"
	if pprof "$_n" "$workdir/$_n.top" -top; then
		top_shares <"$workdir/$_n.top" >"$workdir/$_n.top.sh"
		preport_shares <"$workdir/$_n.sym" >"$workdir/$_n.sym.sh"
		same_shares "$_l: -top vs --no-children --sort sym" "$workdir/$_n.top.sh" \
			"$workdir/$_n.sym.sh"
	else
		bad "$_l: go tool pprof -top failed: $(lines "$workdir/$_n.top.err" 3)"
	fi
	"$PREPORT" "$@" --inline --folded >"$workdir/$_n.folded" 2>"$workdir/$_n.folded.err" ||
		bad "$_l: preport --folded failed: $(lines "$workdir/$_n.folded.err" 3)"
	check_traces "$_l" "$_n" "$workdir/$_n.folded"
	"$PREPORT" "$@" --inline --no-children --sort srcline -g none >"$workdir/$_n.src" \
		2>"$workdir/$_n.src.err" ||
		bad "$_l: preport --sort srcline failed: $(lines "$workdir/$_n.src.err" 3)"
	if pprof "$_n" "$workdir/$_n.lines" -lines -top; then
		lines_shares <"$workdir/$_n.lines" >"$workdir/$_n.lines.sh"
		srcline_shares <"$workdir/$_n.src" >"$workdir/$_n.src.sh"
		# either side may have lines the other lacks, within the 0.1-point tolerance
		if [ -s "$workdir/$_n.src.sh" ] || [ -s "$workdir/$_n.lines.sh" ]; then
			same_shares "$_l: -lines vs --sort srcline" "$workdir/$_n.lines.sh" \
				"$workdir/$_n.src.sh"
		else
			ok "$_l: no source lines in either (no debug info)"
		fi
	else
		bad "$_l: go tool pprof -lines failed: $(lines "$workdir/$_n.lines.err" 3)"
	fi
	# -tagfocus on the command with the most samples whose name is a plain word
	_comm=$(awk '{ sub(/ [0-9]+$/, ""); split($0, a, ";"); c = a[1] }
		c ~ /^[A-Za-z0-9_.-]+$/ { n[c] += $NF } END { for (k in n) print n[k], k }' \
		"$workdir/$_n.folded" | sort -k1,1nr -k2 | awk 'NR == 1 { print $2 }')
	if [ -n "$_comm" ]; then
		"$PREPORT" "$@" --inline --no-children --sort sym -g none --comms "$_comm" \
			>"$workdir/$_n.comm" 2>"$workdir/$_n.comm.err" ||
			bad "$_l: preport --comms failed: $(lines "$workdir/$_n.comm.err" 3)"
		if pprof "$_n" "$workdir/$_n.tf" -tagfocus "comm=^$_comm\$" -top; then
			top_shares <"$workdir/$_n.tf" >"$workdir/$_n.tf.sh"
			preport_shares <"$workdir/$_n.comm" >"$workdir/$_n.comm.sh"
			same_shares "$_l: -tagfocus comm=$_comm vs --comms $_comm" \
				"$workdir/$_n.tf.sh" "$workdir/$_n.comm.sh"
		else
			bad "$_l: go tool pprof -tagfocus failed: $(lines "$workdir/$_n.tf.err" 3)"
		fi
	fi
	decode "$_l" "$_n" "$(samples_of "$workdir/$_n.folded")"
}

# ---- the golden recordings ----
HOME=$workdir/home
export HOME
cd "$G" || fail "cannot enter $G"
for rec in precord-g precord-sys precord-dwarf perf-file perf-z-dwarf; do
	[ -f "$rec.data" ] || fail "no $G/$rec.data"
	check_recording "$rec" "$rec" -i "$rec.data" --symfs symfs --kallsyms kallsyms \
		--max-stack 127
done
# go tool pprof demangles (and cuts down) what it takes for mangled names: with
# --no-demangle, it must still list the mangled names preport shows
PPROF_SYM=local check_recording "precord-g --no-demangle" nodm-g -i precord-g.data \
	--symfs symfs --kallsyms kallsyms --max-stack 127 --no-demangle
if grep -q ' _ZN3app4workImEET_S1_S1_$' "$workdir/nodm-g.top"; then
	ok "precord-g --no-demangle: -top lists the mangled _ZN3app4workImEET_S1_S1_"
else
	bad "precord-g --no-demangle: -top lacks _ZN3app4workImEET_S1_S1_: \
$(sed -n '/flat%/,$p' "$workdir/nodm-g.top" | head -n 6 | join_lines)"
fi
# the function main of mangled.c starts where its source says
if [ "$have_decoder" = 1 ]; then
	# the file with the directory it was built in (/opt/precord-golden/src, see
	# tests/data/golden/README.md), so that go tool pprof -list can open it
	want=/opt/precord-golden/src/mangled.c:$(grep -n '^int main(' "$G/src/mangled.c" |
		cut -d : -f 1)
	got=$(node "$workdir/decode.js" "$NM" "$workdir/precord-g.pb.gz" main 2>&1 >/dev/null)
	[ "$got" = "$want" ]
	check $? "precord-g: function main starts at $want (got $got)"
fi
# system_name is the name of the symbol table where it is another name than the function's:
# mangled for C++ (the asm label of mangled.c); none for C, nor with --no-demangle, where
# the name is the mangled one
cat >"$workdir/decode-names.js" <<'EOF'
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require(process.argv[2] + '/pprof-format');
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[3])));
const str = p.stringTable.strings;
for (const f of p.function)
	console.log(str[f.name] + ' = ' + str[f.systemName]);
EOF
if [ "$have_decoder" = 1 ]; then
	sys=$(sed -n 's/^uint64_t work(.*__asm__("\(_Z[^"]*\)");$/\1/p' "$G/src/mangled.c")
	"$PREPORT" -i precord-g.data --symfs symfs --kallsyms kallsyms --no-demangle \
		--pprof "$workdir/nodm.pb.gz" 2>"$workdir/nodm.err" ||
		bad "--no-demangle --pprof failed: $(lines "$workdir/nodm.err" 3)"
	for nf in "precord-g:app::work<unsigned long> = $sys" "precord-g:main = " \
		"nodm:$sys = "; do
		node "$workdir/decode-names.js" "$NM" "$workdir/${nf%%:*}.pb.gz" >"$workdir/names" \
			2>&1
		if grep -qxF "${nf#*:}" "$workdir/names"; then
			ok "${nf%%:*}: name = system_name: ${nf#*:}"
		else
			bad "${nf%%:*}: no function ${nf#*:}: $(lines "$workdir/names" 6)"
		fi
	done
fi
# pprof takes the first mapping for the program ("File:"): the workload's, not the first
# file met (ld.so in the system-wide one)
for rf in precord-g:mangled precord-sys:demo; do
	file=$(sed -n 's/^File: //p' "$workdir/${rf%%:*}.top")
	[ "$file" = "${rf#*:}" ]
	check $? "${rf%%:*}: go tool pprof names the program ${rf#*:} (File: $file)"
done
# pid and tid 0 (the idle task, in every system-wide recording) are labels as any other:
# -tags gives the shares of --sort pid (tid), and -tagfocus pid=0 those of --pid 0
for key in pid tid; do
	pprof precord-sys "$workdir/tags" -tags
	awk -v k="$key" '
	/^ *[a-z_]+: +Total / { on = $1 == k ":"; next }
	on && /\(.*%\): / { pct = $0; sub(/.*\(/, "", pct); sub(/%\).*/, "", pct)
		printf "%s\t%.2f\n", $NF, pct }' "$workdir/tags" | sort >"$workdir/tags.sh"
	"$PREPORT" -i precord-sys.data --symfs symfs --kallsyms kallsyms --no-children -g none \
		--sort "$key" 2>"$workdir/key.err" | awk '/^ +[0-9.]+%  +[0-9]+:/ {
		sub(/%$/, "", $1); sub(/:.*/, "", $2); s[$2] += $1 }
		END { for (n in s) printf "%s\t%.2f\n", n, s[n] }' | sort >"$workdir/key.sh"
	grep -q '^0	[1-9]' "$workdir/key.sh" || bad "precord-sys: no $key 0 in --sort $key: \
$(lines "$workdir/key.sh" 4) $(lines "$workdir/key.err")"
	same_shares "precord-sys: -tags $key vs --sort $key" "$workdir/tags.sh" "$workdir/key.sh"
done
"$PREPORT" -i precord-sys.data --symfs symfs --kallsyms kallsyms --inline --no-children \
	--sort sym -g none --pid 0 >"$workdir/pid0" 2>"$workdir/pid0.err" ||
	bad "precord-sys: preport --pid 0 failed: $(lines "$workdir/pid0.err" 3)"
if pprof precord-sys "$workdir/pid0.tf" -tagfocus pid=0 -top; then
	top_shares <"$workdir/pid0.tf" >"$workdir/pid0.tf.sh"
	preport_shares <"$workdir/pid0" >"$workdir/pid0.sh"
	same_shares "precord-sys: -tagfocus pid=0 vs --pid 0" "$workdir/pid0.tf.sh" \
		"$workdir/pid0.sh"
else
	bad "precord-sys: go tool pprof -tagfocus pid=0 failed: $(lines "$workdir/pid0.tf.err" 3)"
fi
# the duration is that of the samples counted: with --time, the window's, not the whole
# recording's (the first and last sample times from -D, in ns; --time takes seconds)
span=$(cd "$G" && "$PREPORT" -i precord-g.data -D 2>/dev/null | awk '/ SAMPLE / {
	for (i = 1; i < NF; i++) if ($i == "time") t = $(i + 1)
	if (!f) f = t
	l = t }
	END { printf "%.9f,%.9f %d", f / 1e9, (f + (l - f) / 4) / 1e9, (l - f) / 4 / 1e6 }')
win=${span% *}
want_ms=${span#* }
if (cd "$G" && "$PREPORT" -i precord-g.data --symfs symfs --time "$win" \
	--pprof "$workdir/window.pb.gz" 2>"$workdir/window.err") &&
	pprof window "$workdir/window.top" -top; then
	got=$(sed -n 's/^Duration: \([0-9.]*\)\(m\?s\),.*/\1 \2/p' "$workdir/window.top" |
		awk '{ print $2 == "s" ? $1 * 1000 : $1 }')
	awk -v g="${got:-0}" -v w="$want_ms" 'BEGIN { exit !(g > 0 && g <= w + 1) }'
	check $? "--time $win: the profile's duration ${got:-?} ms is within the window's $want_ms ms"
else
	bad "--time $win: --pprof or go tool pprof failed: $(lines "$workdir/window.err")"
fi
# go tool pprof -list shows main's source, found through the path the profile gives
pprof precord-g "$workdir/list" -list '^main$' -trim_path /opt/precord-golden/src \
	-source_path "$G/src"
if grep -q 'int main(' "$workdir/list"; then
	ok "precord-g: -list shows main's source: $(grep -m 1 'int main(' "$workdir/list" |
		sed 's/^ *//')"
else
	bad "precord-g: -list does not show main's source: $(lines "$workdir/list" 4) \
$(lines "$workdir/list.err" 2)"
fi
# some source lines where there is debug info
if grep -q 'mangled\.c:[0-9]' "$workdir/precord-g.lines"; then
	ok "precord-g: -lines shows source lines: $(grep -m 1 'mangled\.c:[0-9]' \
		"$workdir/precord-g.lines" | sed 's/^ *//')"
else
	bad "precord-g: -lines shows no line of mangled.c: $(lines "$workdir/precord-g.lines" 8)"
fi
cd "$workdir" || fail "cannot enter $workdir"

# ---- the file, and bad paths ----
mode=$(stat -c %a "$workdir/precord-g.pb.gz")
[ "$mode" = 600 ]
check $? "the profile is mode 0600 (got $mode)"
gzip -t "$workdir/precord-g.pb.gz"
check $? "the profile is gzip-compressed"

# bad_path LABEL PATH: preport refuses to write the profile to PATH in one line, exit 1.
bad_path() {
	"$PREPORT" -i "$G/precord-g.data" --symfs "$G/symfs" --kallsyms "$G/kallsyms" \
		--pprof "$2" >"$workdir/bad.out" 2>"$workdir/bad.err"
	check_status "$1" $? 1 "$workdir/bad.err"
	one_line "$1" "$workdir/bad.err" "$2"
}
mkdir "$workdir/adir"
bad_path "--pprof to a directory" "$workdir/adir"
echo keep >"$workdir/target"
ln -s "$workdir/target" "$workdir/link.pb.gz"
bad_path "--pprof to a symbolic link" "$workdir/link.pb.gz"
[ "$(cat "$workdir/target")" = keep ]
check $? "the symbolic link's target is left alone"
bad_path "--pprof into a missing directory" "$workdir/nowhere/x.pb.gz"
if [ "$(id -u)" != 0 ]; then
	mkdir "$workdir/ro" && chmod 0500 "$workdir/ro"
	bad_path "--pprof into a read-only directory" "$workdir/ro/x.pb.gz"
fi
"$PREPORT" -i "$workdir/missing.data" --pprof "$workdir/new.pb.gz" >/dev/null 2>&1
[ ! -e "$workdir/new.pb.gz" ]
check $? "a report that fails leaves no profile behind"

# ---- profiles without samples: what was recorded all the same ----
# no_samples LABEL NAME: NAME's profile has the event's sample type and a period type
no_samples() {
	if pprof "$2" "$workdir/$2.raw" -raw; then
		if grep -q '^PeriodType: cpu nanoseconds' "$workdir/$2.raw" &&
			grep -q '^samples/count cpu/nanoseconds' "$workdir/$2.raw"; then
			ok "$1: the profile says what was recorded: $(lines "$workdir/$2.raw" 5)"
		else
			bad "$1: the profile lacks the event: $(lines "$workdir/$2.raw" 6)"
		fi
	else
		bad "$1: go tool pprof -raw failed: $(lines "$workdir/$2.raw.err" 3)"
	fi
}
# a --time window before the first sample
"$PREPORT" -i "$G/precord-g.data" --symfs "$G/symfs" --kallsyms "$G/kallsyms" \
	--time 1,2 --pprof "$workdir/notime.pb.gz" >/dev/null 2>"$workdir/notime.err" ||
	bad "--pprof of an empty --time window failed: $(lines "$workdir/notime.err" 3)"
no_samples "an empty --time window" notime
# a recording cut off after its header and first records (no sample read)
head -c 600 "$G/precord-g.data" >"$workdir/cut.data"
"$PREPORT" -i "$workdir/cut.data" --symfs "$G/symfs" --pprof "$workdir/cut.pb.gz" \
	>/dev/null 2>"$workdir/cut.err"
[ -s "$workdir/cut.pb.gz" ] || bad "--pprof of a cut-short input wrote nothing: \
$(lines "$workdir/cut.err" 3)"
no_samples "a cut-short input" cut

# ---- fresh recordings ----
if "$PRECORD" -q -a -g -F 499 -o "$workdir/sys.data" -- sleep 1 >/dev/null \
	2>"$workdir/sys.err"; then
	check_recording "system-wide" sys -i "$workdir/sys.data"
elif have_perf && ! probe_perf_event; then
	say "no fresh system-wide recording: $PERF_REFUSED"
else
	bad "precord -a -g -- sleep 1 failed: $(lines "$workdir/sys.err" 3)"
fi

# the demo workload (its debug information names tests/workloads/demo.c relative to the build
# directory), then a copy of it under another name: the same build-id at two paths
if [ -x "$DEMO" ] && cp "$DEMO" "$workdir/app" &&
	"$PRECORD" -q -g -F 499 -o "$workdir/two.data" -- \
		sh -c "\"$DEMO\" 300; \"$workdir/app\" 300" >/dev/null 2>"$workdir/two.err"; then
	check_recording "demo and its copy" two -i "$workdir/two.data"
	pprof two "$workdir/two.raw" -raw
	for m in "$DEMO" "$workdir/app"; do
		m=$(cd "$(dirname "$m")" && pwd)/$(basename "$m")
		grep -q " $m\( \|$\)" "$workdir/two.raw"
		check $? "demo and its copy: go tool pprof has a mapping of $m: \
$(sed -n '/^Mappings/,$p' "$workdir/two.raw" | head -n 4 | join_lines)"
	done
	# a --since/--until range without samples: the range is the profile's time
	"$PREPORT" -i "$workdir/two.data" --since 1970-01-02 --until 1970-01-03 \
		--pprof "$workdir/norange.pb.gz" >/dev/null 2>"$workdir/norange.err" ||
		bad "--pprof of an empty range failed: $(lines "$workdir/norange.err" 3)"
	no_samples "an empty range" norange
	grep -q '^Time: 1970-01-02 ' "$workdir/norange.raw"
	check $? "an empty range: the profile's time is the range's: \
$(grep '^Time' "$workdir/norange.raw")"
	(cd / && pprof two "$workdir/two.list" -list '^hot_a$')
	if grep -q 'hot_a(uint64_t' "$workdir/two.list"; then
		ok "demo: go tool pprof -list finds demo.c from /: $(sed -n 1p "$workdir/two.list")"
	else
		bad "demo: go tool pprof -list does not find demo.c from /: \
$(lines "$workdir/two.list" 3) $(lines "$workdir/two.list.err" 2)"
	fi
elif have_perf && ! probe_perf_event; then
	say "no recording of the demo: $PERF_REFUSED"
else
	bad "precord -g -- demo failed: $(lines "$workdir/two.err" 3)"
fi

# a C++ program of templates, whose names go tool pprof would cut down if it took them for
# mangled ones: a static inline template, whose inlined instances have no linkage name, and
# a class template, two instantiations of each; -top and -traces as preport's (with --inline)
# while pprof demangles
if command -v g++ >/dev/null 2>&1; then
	cat >"$workdir/tmpl.cpp" <<'EOF'
#include <chrono>
#include <cstdio>
#include <cstdlib>
namespace app {
template <typename T> struct Acc {
	T v{};
	__attribute__((noinline)) void add(T x)
	{
		for (int i = 0; i < 40; i++)
			v = v * 31 + x + (T)i;
	}
};
template <typename T> static inline __attribute__((always_inline)) T mix(T a, T b)
{
	for (int i = 0; i < 40; i++)
		a = (a ^ (b << 7)) * 2654435761u + (b >> 3) + (T)i;
	return a;
}
template <typename T> __attribute__((noinline)) T work(T seed, int n)
{
	Acc<T> acc;
	for (int i = 0; i < n; i++)
		acc.add(mix<T>(seed, (T)i));
	return acc.v;
}
}
int main(int argc, char **argv)
{
	auto t0 = std::chrono::steady_clock::now();
	auto ms = std::chrono::milliseconds(argc > 1 ? atoi(argv[1]) : 500);
	unsigned long r = 0;
	while (std::chrono::steady_clock::now() - t0 < ms) {
		r += app::work<unsigned long>(r, 20000);
		r += app::work<unsigned int>((unsigned)r, 10000);
	}
	printf("%lu\n", r);
	return 0;
}
EOF
	if ! g++ -O1 -g -fno-omit-frame-pointer -o "$workdir/tmpl" "$workdir/tmpl.cpp" \
		2>"$workdir/tmpl.cc.err"; then
		bad "g++ cannot build the template program: $(lines "$workdir/tmpl.cc.err" 3)"
	elif "$PRECORD" -q -g -F 499 -o "$workdir/tmpl.data" -- "$workdir/tmpl" 600 >/dev/null \
		2>"$workdir/tmpl.err"; then
		PPROF_SYM=local check_recording "C++ templates" tmpl -i "$workdir/tmpl.data"
		PPROF_SYM=local check_recording "C++ templates --no-demangle" tmpl-nodm \
			-i "$workdir/tmpl.data" --no-demangle
		for f in 'app::Acc<unsigned long>::add' 'app::Acc<unsigned int>::add' \
			'mix<long unsigned int> (inline)' 'mix<unsigned int> (inline)'; do
			grep -qF " $f" "$workdir/tmpl.top"
			check $? "C++ templates: -top lists $f"
		done
	elif have_perf && ! probe_perf_event; then
		say "no recording of the template program: $PERF_REFUSED"
	else
		bad "precord -g -- tmpl failed: $(lines "$workdir/tmpl.err" 3)"
	fi
else
	say "no g++: the C++ template program is not checked"
fi

if [ "$have_decoder" = 0 ] && [ "$nr_bad" = 0 ]; then
	skip "all $nr_ok checks passed, but pprof-format is not in $NM (npm install --prefix" \
		"tests/node --no-audit --no-fund pprof-format)"
fi
finish
