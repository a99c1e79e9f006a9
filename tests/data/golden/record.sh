#!/bin/sh
# SPDX-License-Identifier: MIT
# Remakes the golden recordings, the workload binaries they sample and the kernel symbols
# they need (see README.md).  Run as root from this directory, with a built precord:
#   sh record.sh PATH/TO/precord
# Needs gcc, perf, unshare (util-linux) and python3.  Everything it makes replaces what is
# checked in: regenerate the expected outputs afterwards (GOLDEN_UPDATE=1) and review them.
# shellcheck disable=SC2086 # $F is split on purpose
set -eu
[ $# -eq 1 ] || { echo "usage: sh record.sh PATH/TO/precord" >&2; exit 2; }
here=$(pwd)
O=/opt/precord-golden
B=$O/bin
rm -rf "$O"
mkdir -p "$O/src" "$B" "$O/tools"
cp src/*.c "$O/src/"
cp "$1" "$O/tools/precord"

# the workloads, built in $O/src so that their debug information names that directory
F="-O1 -g -fno-omit-frame-pointer -fno-inline"
cd "$O/src"
gcc $F -o ../bin/demo demo.c
gcc $F -pthread -o ../bin/threads threads.c
gcc $F -o ../bin/libwork libwork.c -ldl
gcc $F -fPIC -shared -o ../bin/libhot.so libhot.c
gcc $F -o ../bin/deep deep.c
gcc $F -o ../bin/mangled mangled.c
gcc $F -o ../bin/forkexec forkexec.c

work=$(mktemp -d)
cd "$work"
PATH=$O/tools:$PATH
export PERF_CONFIG=/dev/null PERF_BUILDID_DIR=$work/.buildid
perf record -q -e cpu-clock:u -F 250 -g -o perf-file.data -- $B/demo 300
perf record -q -e cpu-clock:u -F 250 -g -o - -- $B/threads 200 >perf-pipe.data
perf record -q -z -e cpu-clock:u -F 100 --call-graph dwarf,4096 -o perf-z-dwarf.data -- \
	$B/libwork 300
# samples lost: a 32 KiB ring for 16 KiB stack copies at 20 kHz
perf record -q -z -e cpu-clock:u --call-graph dwarf,16384 -m 8 -F 20000 -o perf-lost.data -- \
	$B/demo 10
# per-thread counts (READ records) for -T
perf record -q -s -e cpu-clock:u -F 200 -g -o perf-read.data -- $B/threads 100
precord -q -e cpu-clock:u -F 500 -g -o precord-g.data -- $B/mangled 300
precord -q -e cpu-clock:u -F 200 --call-graph dwarf,4096 -o precord-dwarf.data -- $B/deep 300
precord -q -e cpu-clock:u -F 250 -g -z 19 -o - -- $B/forkexec 200 $B/demo 200 >precord-pipe-z19.data
# system-wide, in a PID namespace of its own (processes outside it are pid 0 there, and none
# of their names is synthesized): a demo that runs before the recording starts, another
# started by it, and dd in the kernel
W="$B/demo 400 & dd if=/dev/zero of=/dev/null bs=4k count=300000 2>/dev/null; wait"
unshare -pf --mount-proc sh -c "$B/demo 1500 & sleep 0.3
	precord -q -a -g -F 99 -e cpu-clock -o precord-sys.data -- sh -c '$W'; wait"
chmod 644 ./*.data

# the kernel symbols the samples need: every kernel address of every chain, by perf script
for f in ./*.data; do
	perf script -i "$f" -F ip 2>/dev/null
done | awk '$1 ~ /^ffff/ { print $1 }' | sort -u >kaddrs
python3 "$here/trim-kallsyms.py" kaddrs /proc/kallsyms >kallsyms

cp ./*.data kallsyms "$here/"
rm -rf "$here/symfs"
mkdir -p "$here/symfs$B"
cp "$B"/* "$here/symfs$B/"
cd "$here"
rm -rf "$work" "$O"
