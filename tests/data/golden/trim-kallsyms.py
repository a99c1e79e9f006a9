# SPDX-License-Identifier: MIT
# trim-kallsyms.py ADDRESSES KALLSYMS: the text symbol lines of KALLSYMS that a report of
# ADDRESSES (hexadecimal, one a line) needs: for each address and the byte before it (return
# addresses are looked up there), the symbols that start at the greatest address at or below
# it, and those at the next greater address (which end the first ones).
import bisect
import sys

addrs = [int(l, 16) for l in open(sys.argv[1]) if l.strip()]
lines = []
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) >= 3 and f[1] in "tTwW":
        lines.append((int(f[0], 16), l))
starts = sorted({a for a, _ in lines})
keep = set()
for a in addrs:
    for x in (a, a - 1):
        i = bisect.bisect_right(starts, x) - 1
        if i >= 0:
            keep.add(starts[i])
        if i + 1 < len(starts):
            keep.add(starts[i + 1])
sys.stdout.write("".join(l for a, l in lines if a in keep))
