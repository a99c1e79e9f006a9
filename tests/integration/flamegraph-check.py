#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Checks a flame graph SVG of preport against the same recording's --folded output:
#   flamegraph-check.py SVG FOLDED [--inverted] [--names FILE]
# The SVG must be well-formed XML (python's parser) with its frames as data in the
# #flamedata script (see lib/report/prec_view_flame.c); rebuilt into a tree (preorder,
# depth), every frame's count must equal the samples of the folded lines that begin with its
# path (callers first; leaf first with --inverted), siblings of one name added up (they differ
# by DSO); a frame's samples are those ending there plus its children's, plus less than a
# pixel's (total / width) of children left out, or a "(N frames merged)" frame holding
# exactly the samples of the children left out; no folded path of a pixel's samples or more
# is missing.  (Where children were left out, a frame may weigh less than its name path in
# --folded: a sibling of the same name in another DSO may be among them.)  With --names, each line of FILE
# (bytes, invalid UTF-8 read as U+FFFD) must be the name of a frame.  Prints one line per
# failed check, and "ok: ..." totals; exits 1 on a failure.  The frames drawn in the SVG (for
# where no script runs) must be the data's: one rect each, as wide as its samples at the full
# width, placed by preorder and depth, titled with its name, DSO and samples; each name
# written on a frame is that frame's (cut to end in "..", where it does not fit).
import json
import re
import sys
import xml.etree.ElementTree as ET

args = sys.argv[1:]
inverted = '--inverted' in args
names_file = None
if '--names' in args:
    names_file = args[args.index('--names') + 1]
svg_path, folded_path = args[0], args[1]
SVG = '{http://www.w3.org/2000/svg}'
failed = 0


def xml_chars(raw):
    # bytes as the flame graph shows them: invalid UTF-8 as U+FFFD, as browsers decode it,
    # and the two characters XML cannot hold too
    return raw.decode('utf-8', 'replace').replace('\ufffe', '\ufffd').replace('\uffff', '\ufffd')


def as_text(s):
    # a name as the SVG's text holds it: control characters as spaces
    return re.sub('[\x00-\x1f\x7f]', ' ', s)


def bad(msg):
    global failed
    failed += 1
    print('FAIL: ' + msg)


root = ET.parse(svg_path).getroot()
data = None
for s in root.iter(SVG + 'script'):
    if s.get('id') == 'flamedata':
        data = json.loads(s.text)
if data is None:
    print('FAIL: no #flamedata in ' + svg_path)
    sys.exit(1)
S, A, width = data['strings'], data['frames'], data['width']
if len(A) % 5:
    bad('frames array of %d numbers, not a multiple of 5' % len(A))
frames = [A[i:i + 5] for i in range(0, len(A) - len(A) % 5, 5)]

# folded: prefix sums and exact ends, by path (a tuple of names)
prefix, ends, total = {}, {}, 0
with open(folded_path, 'rb') as f:
    for raw in f:
        line = xml_chars(raw.rstrip(b'\n'))
        stack, _, count = line.rpartition(' ')
        path = stack.split(';')
        if inverted:
            path = path[1:][::-1] + path[:1]
        count = int(count)
        total += count
        ends[tuple(path)] = ends.get(tuple(path), 0) + count
        for i in range(1, len(path) + 1):
            prefix[tuple(path[:i])] = prefix.get(tuple(path[:i]), 0) + count

# the tree: parent by preorder and depth
stack, by_path, kids, merged = [], {}, {}, []
for i, (depth, name, dso, kind, count) in enumerate(frames):
    while stack and frames[stack[-1]][0] >= depth:
        stack.pop()
    if depth != len(stack):
        bad('frame %d at depth %d under a frame at depth %d' % (i, depth, len(stack) - 1))
        break
    parent = stack[-1] if stack else -1
    path = tuple(S[frames[j][1]] for j in stack[1:]) + ((S[name],) if stack else ())
    if parent >= 0:
        kids.setdefault(parent, []).append(i)
    if kind == 5:
        merged.append((i, parent))
    elif stack:
        by_path[path] = by_path.get(path, 0) + count
    stack.append(i)
    frames[i] = frames[i] + [path]

if frames and frames[0][4] != total:
    bad('the root holds %d samples, --folded %d' % (frames[0][4], total))
minimum = max(1, (total + width - 1) // width)
npath = {}
for f in frames[1:]:
    if f[3] != 5:
        npath[f[5]] = npath.get(f[5], 0) + 1


def exact(p):
    # the only frame of its name path, with all of the path's samples: the samples that end
    # there are its own
    f = frames[p]
    return p == 0 or (npath.get(f[5]) == 1 and f[4] == prefix.get(f[5], -1))


# what each frame's children left out: merged into a frame, or dropped (under a pixel)
lossy = set()
for p, (depth, name, dso, kind, count, path) in enumerate(frames):
    if kind == 5:
        continue
    ks = kids.get(p, [])
    has_merged = any(frames[k][3] == 5 for k in ks)
    below = sum(frames[k][4] for k in ks)
    if below > count:
        bad('children of %s weigh more than it' % (';'.join(path) or 'all'))
    if not exact(p):
        lossy.add(path)
        continue
    dropped = count - ends.get(path, 0) - below
    if dropped < 0 or dropped >= minimum or (dropped and has_merged):
        bad('%s: %d samples, %d end there, children %d' %
            (';'.join(path) or 'all', count, ends.get(path, 0), below))
    if dropped or has_merged:
        lossy.add(path)
for path, count in by_path.items():
    want = prefix.get(path, 0)
    # a sibling of the same name in another DSO may be merged or dropped
    if count != want and not (path[:-1] in lossy and count < want):
        bad('%s: %d samples in the flame graph, %d in --folded' % (';'.join(path), count, want))
for path, count in prefix.items():
    if count >= minimum and path not in by_path and path[:-1] not in lossy:
        bad('%s (%d samples, a pixel is %d) is not drawn' % (';'.join(path), count, minimum))
# the frames drawn in the file, for where no script runs: rect fI for frame I, at the place
# and width its samples give at full width (the data's preorder and depth), its title the
# frame's name, DSO, kind and samples; each name that fits written on its frame
top, fh, maxdepth = data['top'], data['fh'], data['maxdepth']
scale = (width - 20) / frames[0][4] if frames and frames[0][4] else 0
rects = {}
for g in root.iter(SVG + 'g'):
    if g.get('id') == 'frames':
        rects = {r.get('id'): r for r in g.iter(SVG + 'rect')}
if len(rects) != len(frames):
    bad('%d frames drawn in the SVG, %d in its data' % (len(rects), len(frames)))
pos, drawn, fits = {}, {}, 0
for i, (depth, name, dso, kind, count, path) in enumerate(frames):
    x = pos.get(depth, 0) if depth else 0
    pos[depth], pos[depth + 1] = x + count, x
    r = rects.get('f%d' % i)
    if r is None:
        bad('frame %d (%s) is not drawn' % (i, S[name]))
        continue
    y = top + (depth if inverted else maxdepth - depth) * fh
    want = (10 + x * scale, y, count * scale)
    have = (float(r.get('x')), float(r.get('y')), float(r.get('width')))
    if any(abs(a - b) > 0.006 for a, b in zip(want, have)):
        bad('frame %d (%s, %d samples) drawn at x, y, width %s, not %s' %
            (i, S[name], count, have, tuple(round(v, 2) for v in want)))
    t = r.find(SVG + 'title')
    lines = t.text.split('\n') if t is not None and t.text else []
    want = [as_text(S[name])] + ([as_text(S[dso])] if dso else [])
    if lines[:-2] != want or not lines[-1].startswith('%d sample' % count):
        bad('frame %d: title %r, not %r and %d samples' % (i, lines, want, count))
    drawn[(round(10 + x * scale + 3, 2), y + fh - 4.5)] = as_text(S[name])
    fits += (count * scale - 6) / 6.6 >= 3
labels = []
for g in root.iter(SVG + 'g'):
    if g.get('id') == 'labels':
        labels = list(g.iter(SVG + 'text'))
for t in labels:
    name = drawn.get((round(float(t.get('x')), 2), float(t.get('y'))))
    text = t.text or ''
    if name is None or not (text == name or text.endswith('..') and name.startswith(text[:-2])):
        bad('the name %r drawn at %s, %s is not its frame\'s (%r)' %
            (text, t.get('x'), t.get('y'), name))
if len(labels) != fits:
    bad('%d names drawn on the frames, %d fit' % (len(labels), fits))

if names_file:
    have = set(S)
    with open(names_file, 'rb') as f:
        for raw in f:
            want = xml_chars(raw.rstrip(b'\n'))
            if want not in have:
                bad('no frame named %r' % want)
if failed:
    sys.exit(1)
print('ok: %d frames (%d merged, %d named) drawn, %d samples, %d folded paths' %
      (len(frames), len(merged), len(labels), total, len(prefix)))
