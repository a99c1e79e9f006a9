/* SPDX-License-Identifier: MIT */
/*
 * The flame graph (preport --flamegraph): one self-contained SVG that shows its frames
 * wherever it is shown, and a script that makes them interactive where scripts run.
 *
 * The hist's stacks are merged into a tree of frames, as --folded sees them (but for the
 * " (inlined)" that names an inlined function as the report does): the command, then the
 * outermost caller down to the leaf (inverted: the leaf first, up to the command).
 * Siblings are merged by name and DSO, so a frame's count is the samples of the folded lines
 * that begin with its path, and siblings are ordered by name, then DSO.  A frame narrower
 * than a pixel at full width (count * width < total) is not drawn: a parent's such children
 * become one "(N frames merged)" frame after its other children, itself left out when it is
 * still narrower than a pixel (its samples stay in the parent's width).  So the frames drawn
 * are bounded by the width times the depth, whatever the recording's size.
 *
 * The frames are drawn in the file at the full width (a rect each, with its details as a
 * <title>, and the names that fit), so that an <img>, an image viewer or a browser without
 * scripts shows the graph and its tooltips.  The same frames are also data for the script
 * (one JSON array of numbers, one of strings), which moves the rects to zoom and searches the
 * names; rect "fI" is frame I of the data.  The controls above the frames and the details
 * line below are groups that the script keeps in the window when a deep graph is scrolled;
 * in a window narrower than the drawing the script scales the whole down to its width (the
 * file's width and height stay those of the drawing, the size an <img> shows).
 * Every text of the recording is escaped: XML entities in the SVG's own text, \u escapes in
 * the data (which therefore holds no '<', '>' or '&'), U+FFFD for invalid UTF-8.  No network
 * resource is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_hash.h"
#include "prec_symbol.h"
#include "prec_view_int.h"

/* What a frame is: the kind numbers of the data the script reads. */
enum fkind { FK_USER, FK_KERNEL, FK_JIT, FK_UNSYM, FK_COMM, FK_MERGED, FK_ROOT, FK_INLINE };

#define COMM_DSO UINT32_MAX /* the DSO id in the key of a command's frame */
#define FRAME_H 16
#define TOP 72	  /* the title, subtitle and controls above the frames */
#define SUB2 16	  /* more above the frames when the filters have a line of their own */
#define BOTTOM 34 /* the details line below */
#define PAD 10	  /* left and right of the frames */

struct fkey {
	uint32_t parent, dso; /* node id; the hist's DSO id, or COMM_DSO */
	const char *name;     /* interned */
};

struct fnode {
	uint64_t count;
	const char *name, *dso; /* dso: NULL for none */
	uint8_t kind;
};

struct fchild {
	const char *name, *dso;
	uint32_t id;
};

/* A frame drawn: in preorder, x in samples from the left edge. */
struct fdraw {
	const char *name, *dso;
	uint64_t x, count;
	uint32_t depth;
	uint8_t kind;
};

struct sfinfo {
	const char *name, *dso;
	uint8_t kind, set;
};

struct flame {
	const struct prec_hist *h;
	struct prec_keyset keys; /* struct fkey -> node id - 1 */
	struct fnode *nodes;	 /* node 0: the root */
	size_t nr, cap;
	struct sfinfo *sf; /* by sframe id, filled as met */
	size_t sf_cap;
	struct prec_strset names;
	uint32_t *first; /* children of node i: kids[first[i] .. first[i + 1]) */
	struct fchild *kids;
	uint64_t min;		 /* the smallest count drawn: a pixel at full width */
	struct prec_keyset strs; /* string pointer -> index - 1 in the data's string table */
	const char **str_order;
	size_t str_cap;
	struct fdraw *draw; /* the frames drawn, in preorder */
	size_t nr_draw, draw_cap;
	uint32_t max_depth;
	unsigned int top; /* TOP, or TOP + SUB2 */
	bool inverted, has_inline;
};

/* The top of the frames at depth: the root at the bottom, or at the top when inverted. */
static unsigned int row_y(const struct flame *f, uint32_t depth)
{
	return f->top + (f->inverted ? depth : f->max_depth - depth) * FRAME_H;
}

static bool is_jit(const char *dso)
{
	size_t n = dso ? strlen(dso) : 0;

	return (n > 9 && !strncmp(dso, "perf-", 5) && !strcmp(dso + n - 4, ".map")) ||
	       (n > 10 && !strncmp(dso, "jitted-", 7) && !strcmp(dso + n - 3, ".so"));
}

/* What the tree needs of sframe id: its folded name, DSO and kind; NULL on -ENOMEM. */
static const struct sfinfo *sframe_info(struct flame *f, uint32_t id)
{
	const struct prec_sframe *sf;
	struct prec_dso *d;
	struct sfinfo *s;
	char buf[NAME_MAX_LEN];
	size_t old = f->sf_cap;

	if (id >= f->sf_cap) {
		if (prec_array__grow((void **)&f->sf, &f->sf_cap, (size_t)id + 1, sizeof(*f->sf),
				     1024))
			return NULL;
		memset(f->sf + old, 0, (f->sf_cap - old) * sizeof(*f->sf));
	}
	s = &f->sf[id];
	if (s->set)
		return s;
	sf = prec_hist__sframe(f->h, id);
	/* an inlined function is named as the report names it, "NAME (inlined)" */
	s->name = prec_strset__intern(
	    &f->names,
	    prec_view_frame_name(f->h, id, sf->kind != PREC_SF_INLINE, buf, sizeof(buf)));
	if (!s->name)
		return NULL;
	d = prec_hist__dso(f->h, sf->dso);
	/* the path, which tells copies of a binary apart (short names are shared); interned,
	 * so that equal strings are one entry of the data's table */
	s->dso = d ? prec_strset__intern(&f->names, prec_dso__long_name(d)) : NULL;
	if (d && !s->dso)
		return NULL;
	if (sf->kind == PREC_SF_ADDR || sf->kind == PREC_SF_UNKNOWN || sf->kind == PREC_SF_NOMAP)
		s->kind = FK_UNSYM;
	else if (sf->kind == PREC_SF_INLINE)
		s->kind = FK_INLINE;
	else if (sf->kernel)
		s->kind = FK_KERNEL;
	else if (d && is_jit(prec_dso__short_name(d)))
		s->kind = FK_JIT;
	else
		s->kind = FK_USER;
	s->set = 1;
	return s;
}

/* The child of `parent` for (name, dso id), made if new: its node id, or -ENOMEM. */
static long child(struct flame *f, uint32_t parent, const char *name, uint32_t dso_id,
		  const char *dso, uint8_t kind)
{
	struct fkey k;
	bool is_new;
	long id;

	memset(&k, 0, sizeof(k));
	k.parent = parent;
	k.dso = dso_id;
	k.name = name;
	id = prec_keyset__intern(&f->keys, &k, &is_new);
	if (id < 0)
		return id;
	if (is_new) {
		if (prec_array__grow((void **)&f->nodes, &f->cap, (size_t)id + 2, sizeof(*f->nodes),
				     1024))
			return -ENOMEM;
		f->nodes[id + 1] = (struct fnode){.name = name, .dso = dso, .kind = kind};
		f->nr = (size_t)id + 2;
	}
	return id + 1;
}

static int build(struct flame *f, bool inverted, uint32_t evsel)
{
	uint32_t *seq = NULL, stack, nr_stacks = prec_hist__nr_stacks(f->h);
	size_t seq_cap = 0;
	int err = -ENOMEM;

	if (prec_array__grow((void **)&f->nodes, &f->cap, 1, sizeof(*f->nodes), 1024))
		return -ENOMEM;
	f->nodes[0] = (struct fnode){.name = "all", .kind = FK_ROOT};
	f->nr = 1;
	for (stack = 0; stack < nr_stacks; stack++) {
		struct prec_path path;
		const char *comm;
		long n, i, cur = 0;

		n = prec_hist__path(f->h, stack, SIZE_MAX, &path, &seq, &seq_cap);
		if (n < 0)
			goto out;
		if (!path.count || !prec_hist__sframe_shown(f->h, seq[0]) || /* --dsos, --symbols */
		    !prec_view_stack_of(f->h, stack, evsel))
			continue;
		comm = prec_hist__stack_comm(f->h, stack);
		comm = prec_strset__intern(&f->names, comm ? comm : "[unknown]");
		if (!comm)
			goto out;
		f->nodes[0].count += path.count;
		for (i = 0; i <= n; i++) {
			const struct sfinfo *s;
			long pos = inverted ? i : n - i; /* position in seq; n: the command */

			if (pos == n) {
				cur = child(f, (uint32_t)cur, comm, COMM_DSO, NULL, FK_COMM);
			} else {
				uint32_t sfid = seq[pos];

				s = sframe_info(f, sfid);
				if (!s)
					goto out;
				cur = child(f, (uint32_t)cur, s->name,
					    prec_hist__sframe(f->h, sfid)->dso, s->dso, s->kind);
			}
			if (cur < 0) {
				err = (int)cur;
				goto out;
			}
			f->nodes[cur].count += path.count;
		}
	}
	err = 0;
out:
	free(seq);
	return err;
}

static int cmp_child(const void *a, const void *b)
{
	const struct fchild *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->dso || !y->dso)
		return !!x->dso - !!y->dso;
	return strcmp(x->dso, y->dso);
}

static uint32_t parent_of(const struct flame *f, size_t node)
{
	return ((const struct fkey *)prec_keyset__key(&f->keys, (uint32_t)node - 1))->parent;
}

/* Each node's children, sorted, from the keys' parents. */
static int link_children(struct flame *f)
{
	size_t i;

	f->first = calloc(f->nr + 1, sizeof(*f->first));
	f->kids = malloc((f->nr ? f->nr : 1) * sizeof(*f->kids));
	if (!f->first || !f->kids)
		return -ENOMEM;
	for (i = 1; i < f->nr; i++)
		f->first[parent_of(f, i) + 1]++;
	for (i = 1; i <= f->nr; i++)
		f->first[i] += f->first[i - 1];
	/* fill with first[p] as parent p's cursor, which ends at its end: shift back by one */
	for (i = 1; i < f->nr; i++) {
		uint32_t p = parent_of(f, i);
		struct fchild *c = &f->kids[f->first[p]++];

		c->name = f->nodes[i].name;
		c->dso = f->nodes[i].dso;
		c->id = (uint32_t)i;
	}
	for (i = f->nr; i > 0; i--)
		f->first[i] = f->first[i - 1];
	f->first[0] = 0;
	for (i = 0; i < f->nr; i++)
		if (f->first[i + 1] - f->first[i] > 1)
			qsort(f->kids + f->first[i], f->first[i + 1] - f->first[i],
			      sizeof(*f->kids), cmp_child);
	return 0;
}

/* The index of string s in the data's table (0: none), added if new; -ENOMEM. */
static long str_index(struct flame *f, const char *s)
{
	uintptr_t key = (uintptr_t)s;
	bool is_new;
	long id;

	if (!s)
		return 0;
	id = prec_keyset__intern(&f->strs, &key, &is_new);
	if (id < 0)
		return id;
	if (is_new) {
		if (prec_array__grow((void **)&f->str_order, &f->str_cap, (size_t)id + 1,
				     sizeof(*f->str_order), 256))
			return -ENOMEM;
		f->str_order[id] = s;
	}
	return id + 1;
}

static int put_num(struct prec_buf *b, uint64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%" PRIu64 ",", v);

	return prec_buf__append(b, buf, (size_t)n) ? -ENOMEM : 0;
}

static int add_drawn(struct flame *f, uint32_t depth, uint64_t x, const char *name, const char *dso,
		     uint8_t kind, uint64_t count)
{
	if (prec_array__grow((void **)&f->draw, &f->draw_cap, f->nr_draw + 1, sizeof(*f->draw),
			     1024))
		return -ENOMEM;
	f->draw[f->nr_draw++] = (struct fdraw){
	    .name = name, .dso = dso, .x = x, .count = count, .depth = depth, .kind = kind};
	if (depth > f->max_depth)
		f->max_depth = depth;
	f->has_inline |= kind == FK_INLINE;
	return 0;
}

/* Node id and what is drawn of its subtree, in preorder, at depth and x (in samples). */
static int emit(struct flame *f, uint32_t id, uint32_t depth, uint64_t x)
{
	const struct fnode *n = &f->nodes[id];
	uint64_t merged = 0, nr_merged = 0, cx = x;
	uint32_t k;
	int err = add_drawn(f, depth, x, n->name, n->dso, n->kind, n->count);

	for (k = f->first[id]; !err && k < f->first[id + 1]; k++) {
		uint32_t c = f->kids[k].id;

		if (f->nodes[c].count >= f->min) {
			err = emit(f, c, depth + 1, cx);
			cx += f->nodes[c].count;
		} else {
			merged += f->nodes[c].count;
			nr_merged++;
		}
	}
	if (!err && merged && merged >= f->min) {
		char buf[64];
		const char *name;

		snprintf(buf, sizeof(buf), "(%" PRIu64 " frame%s merged)", nr_merged,
			 nr_merged == 1 ? "" : "s");
		name = prec_strset__intern(&f->names, buf);
		err = name ? add_drawn(f, depth + 1, cx, name, NULL, FK_MERGED, merged) : -ENOMEM;
	}
	return err;
}

/*
 * One code point of p (at most `left` bytes) into *cp, and its length.  A malformed sequence
 * is one U+FFFD for its longest start that could have begun a valid one (at least a byte),
 * as browsers and Python decode it: no overlong form, surrogate or value past U+10FFFF.
 */
static size_t utf8_next(const unsigned char *p, size_t left, uint32_t *cp)
{
	uint32_t c = p[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, c &= 0x0f;
		lo = c == 0 ? 0xa0 : 0x80;   /* E0: no overlong form */
		hi = c == 0xd ? 0x9f : 0xbf; /* ED: no surrogate */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, c &= 0x07;
		lo = c == 0 ? 0x90 : 0x80; /* F0: no overlong form */
		hi = c == 4 ? 0x8f : 0xbf; /* F4: not past U+10FFFF */
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf) {
		if (i >= left || p[i] < lo || p[i] > hi) {
			*cp = 0xfffd;
			return i;
		}
		c = c << 6 | (p[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* s as XML character data (also fit for an attribute's value), at most max characters. */
static void put_xml(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	for (; left && max; max--) {
		uint32_t c;
		size_t n = utf8_next(p, left, &c);

		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\'')
			fputs("&apos;", out);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', out);
		else if (c >= 0xfffd && c <= 0xffff) /* as the data has them */
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(p, 1, n, out);
		p += n;
		left -= n;
	}
}

/* s in `room` pixels at `px` pixels a character (an estimate): cut to end in ".." when it is
 * longer, nothing when fewer than 3 characters fit; the script's fit() does the same. */
static void put_fitted(FILE *out, const char *s, double room, double px)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t fits = room > 0 ? (size_t)(room / px) : 0, left = strlen(s), n = 0;
	uint32_t c;

	if (fits < 3)
		return;
	while (left && n <= fits) {
		size_t k = utf8_next(p, left, &c);

		p += k;
		left -= k;
		n++;
	}
	if (n <= fits) {
		put_xml(out, s, SIZE_MAX);
	} else {
		put_xml(out, s, fits - 2);
		fputs("..", out);
	}
}

/* s as a JSON string that holds no '<', '>' or '&', whatever s is. */
static int put_json(struct prec_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	int err = prec_buf__append(b, "\"", 1);

	while (left && !err) {
		uint32_t c;
		size_t n = utf8_next(p, left, &c);
		char esc[8];

		if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' ||
		    c == 0x7f || c == 0x2028 || c == 0x2029 || c >= 0xfffd) {
			if (c > 0xffff) { /* a valid code point beyond the BMP: as it is */
				err = prec_buf__append(b, p, n);
			} else {
				snprintf(esc, sizeof(esc), "\\u%04x",
					 c == 0xfffe || c == 0xffff ? 0xfffd : c);
				err = prec_buf__append(b, esc, 6);
			}
		} else {
			err = prec_buf__append(b, p, n);
		}
		p += n;
		left -= n;
	}
	return err || prec_buf__append(b, "\"", 1) ? -ENOMEM : 0;
}

static const char *const kind_names[] = {"user",    "kernel", "JIT", "unsymbolized",
					 "command", "merged", "all", "inlined"};

/* One channel (n: 0 red, 8 green, 4 blue) of the colour of hue h (degrees), saturation s and
 * lightness l (0 to 1), as CSS converts hsl(): 0 to 255. */
static unsigned int hsl_channel(double h, double s, double l, double n)
{
	double k = n + h / 30, a = s * (l < 1 - l ? l : 1 - l), t;

	while (k >= 12)
		k -= 12;
	t = k - 3 < 9 - k ? k - 3 : 9 - k;
	t = t > 1 ? 1 : t < -1 ? -1 : t;
	return (unsigned int)((l - a * t) * 255 + 0.5);
}

/* The fill of a frame of kind k as "#rrggbb": the kind's hues, v (0 to 1) choosing among them
 * so that neighbours differ. */
static void fill_of(uint8_t k, double v, char buf[8])
{
	double h = 0, s = 0, l;

	switch (k) {
	case FK_USER:
		h = 5 + 40 * v, s = 0.85, l = 0.58 + 0.08 * v;
		break;
	case FK_KERNEL:
		h = 195 + 25 * v, s = 0.65, l = 0.62 + 0.10 * v;
		break;
	case FK_JIT:
		h = 95 + 35 * v, s = 0.55, l = 0.52 + 0.10 * v;
		break;
	case FK_UNSYM:
		l = 0.68 + 0.10 * v;
		break;
	case FK_COMM:
		h = 265 + 20 * v, s = 0.45, l = 0.72;
		break;
	case FK_MERGED:
		l = 0.91;
		break;
	case FK_INLINE: /* aqua, as flamegraph.pl draws inlined frames */
		h = 170 + 15 * v, s = 0.55, l = 0.56 + 0.10 * v;
		break;
	default: /* the root */
		l = 0.78;
		break;
	}
	snprintf(buf, 8, "#%02x%02x%02x", hsl_channel(h, s, l, 0), hsl_channel(h, s, l, 8),
		 hsl_channel(h, s, l, 4));
}

/* A number from 0 to 1 for a frame's name (FNV-1a), the same in every graph. */
static double name_shade(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return (double)(h % 1000) / 1000;
}

/* The legend of the colours, bottom right (the kinds' colours at their middle); inlined
 * functions only where the graph has some. */
static void put_legend(FILE *out, unsigned int width, unsigned int y, bool inlined)
{
	static const uint8_t keys[] = {FK_USER, FK_INLINE, FK_KERNEL, FK_JIT, FK_UNSYM, FK_COMM};
	unsigned int x = width - 10, i;
	char fill[8];

	/* right-aligned, at about 7 pixels a character */
	for (i = 0; i < sizeof(keys); i++)
		if (keys[i] != FK_INLINE || inlined)
			x -= 30 + 7 * (unsigned int)strlen(kind_names[keys[i]]);
	for (i = 0; i < sizeof(keys); i++) {
		if (keys[i] == FK_INLINE && !inlined)
			continue;
		fill_of(keys[i], 0.5, fill);
		fprintf(out,
			"<rect x=\"%u\" y=\"%u\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%u\" y=\"%u\">%s</text>\n",
			x, y - 9, fill, x + 14, y, kind_names[keys[i]]);
		x += 30 + 7 * (unsigned int)strlen(kind_names[keys[i]]);
	}
}

/*
 * The frames as the script finds them unzoomed, so that the graph shows where no script runs
 * (an <img>, an image viewer): rect "fI" for frame I of the data, its details in its title
 * (name, DSO path, kind, samples and share, a line each), and the names that fit.
 */
static void put_frames(FILE *out, const struct flame *f, unsigned int width)
{
	uint64_t total = f->nodes[0].count;
	double scale = total ? (double)(width - 2 * PAD) / (double)total : 0;
	char fill[8];
	size_t i;

	/* outlines cost the browser most of its painting in graphs of many thousands of frames */
	fprintf(out, "<g id=\"frames\"%s>\n", f->nr_draw < 5000 ? " class=\"outlined\"" : "");
	for (i = 0; i < f->nr_draw; i++) {
		const struct fdraw *d = &f->draw[i];

		fill_of(d->kind, name_shade(d->name), fill);
		fprintf(out,
			"<rect id=\"f%zu\" x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
			"fill=\"%s\"><title>",
			i, PAD + (double)d->x * scale, row_y(f, d->depth), (double)d->count * scale,
			FRAME_H - 1, fill);
		put_xml(out, d->name, SIZE_MAX);
		if (d->dso) {
			fputc('\n', out);
			put_xml(out, d->dso, SIZE_MAX);
		}
		fprintf(out, "\n%s\n%" PRIu64 " sample%s (%.2f%%)</title></rect>\n",
			kind_names[d->kind], d->count, d->count == 1 ? "" : "s",
			total ? 100.0 * (double)d->count / (double)total : 0.0);
	}
	fputs("</g>\n<g id=\"labels\">\n", out);
	for (i = 0; i < f->nr_draw; i++) {
		const struct fdraw *d = &f->draw[i];
		double w = (double)d->count * scale;

		if ((w - 6) / 6.6 < 3) /* as put_fitted() says */
			continue;
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", PAD + (double)d->x * scale + 3,
			row_y(f, d->depth) + FRAME_H - 4.5);
		put_fitted(out, d->name, w - 6, 6.6);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

/* The data the script reads: {"strings": [...], "frames": [depth, name, dso, kind, count,
 * ...], ...}, names and DSOs as indexes into the strings (0: none). */
static int put_data(FILE *out, struct flame *f, const struct prec_flame_opts *o, unsigned int width)
{
	struct prec_buf nums = {0}, data = {0};
	size_t i;
	int err = -ENOMEM;

	for (i = 0; i < f->nr_draw; i++) {
		const struct fdraw *d = &f->draw[i];
		long n = str_index(f, d->name), s = str_index(f, d->dso);

		if (n < 0 || s < 0 || put_num(&nums, d->depth) || put_num(&nums, (uint64_t)n) ||
		    put_num(&nums, (uint64_t)s) || put_num(&nums, d->kind) ||
		    put_num(&nums, d->count))
			goto out;
	}
	if (prec_buf__append(&data, "{\"strings\":[\"\"", 14))
		goto out;
	for (i = 0; i < f->strs.n; i++)
		if (prec_buf__append(&data, ",", 1) || put_json(&data, f->str_order[i]))
			goto out;
	if (prec_buf__append(&data, "],\"frames\":[", 12) ||
	    prec_buf__append(&data, nums.data, nums.len ? nums.len - 1 : 0))
		goto out;
	fprintf(out, "<script type=\"application/json\" id=\"flamedata\">");
	fwrite(data.data, 1, data.len, out);
	fprintf(out,
		"],\"width\":%u,\"fh\":%u,\"top\":%u,\"maxdepth\":%u,\"inverted\":%s}"
		"</script>\n",
		width, FRAME_H, f->top, f->max_depth, o->inverted ? "true" : "false");
	err = 0;
out:
	prec_buf__release(&nums);
	prec_buf__release(&data);
	return err;
}

/* The characters (code points) of s. */
static size_t nr_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 0;
	uint32_t c;

	for (; left; n++) {
		size_t k = utf8_next(p, left, &c);

		p += k;
		left -= k;
	}
	return n;
}

/*
 * The subtitle's text: "partial: DAMAGE · SUBTITLE" (without damage, SUBTITLE), and with
 * filters "filtered: FILTERS; N of M samples", N the samples drawn (a reader of the file must
 * see that it shows a part of the recording), or "FILTERS: no sample left out" when N is M.
 * The filters follow the subtitle after " · ", or have a line of their own under it when the
 * two do not fit in one (*two_lines).  0 or -ENOMEM.
 */
struct subtitle {
	struct prec_buf damage, sub, filters; /* NUL-terminated; filters: without the counts */
	char counts[64];
	bool two_lines;
};

#define SUB_PX 7.2 /* pixels a character of the subtitle, about */

static int subtitle_of(struct subtitle *t, const struct flame *f, const struct prec_flame_opts *o,
		       unsigned int width)
{
	const char *sub = o->subtitle ? o->subtitle : "";
	bool left_out = f->nodes[0].count < o->nr_samples;
	size_t room = (size_t)((width - 2 * PAD) / SUB_PX), len;
	int err = 0;

	memset(t, 0, sizeof(*t));
	if (o->damage)
		err |= prec_buf__append(&t->damage, "partial: ", 9) ||
		       prec_buf__append(&t->damage, o->damage, strlen(o->damage)) ||
		       prec_buf__append(&t->damage, *sub ? " \xc2\xb7 " : "", *sub ? 4 : 0);
	err |=
	    prec_buf__append(&t->damage, "", 1) || prec_buf__append(&t->sub, sub, strlen(sub) + 1);
	if (o->filters) {
		if (left_out)
			snprintf(t->counts, sizeof(t->counts),
				 "; %" PRIu64 " of %" PRIu64 " samples", f->nodes[0].count,
				 o->nr_samples);
		else
			snprintf(t->counts, sizeof(t->counts), ": no sample left out");
		err |= (left_out && prec_buf__append(&t->filters, "filtered: ", 10)) ||
		       prec_buf__append(&t->filters, o->filters, strlen(o->filters) + 1);
	}
	if (err)
		return -ENOMEM;
	if (o->filters) {
		len = nr_chars((const char *)t->damage.data) + nr_chars(sub) + 3 +
		      nr_chars((const char *)t->filters.data) + strlen(t->counts);
		t->two_lines = len > room;
	}
	return 0;
}

static void subtitle__release(struct subtitle *t)
{
	prec_buf__release(&t->damage);
	prec_buf__release(&t->sub);
	prec_buf__release(&t->filters);
}

/* The subtitle's line(s): what does not fit is cut from the subtitle and the filters, not
 * from the damage or the counts. */
static void put_subtitle(FILE *out, const struct subtitle *t, unsigned int width)
{
	const char *damage = (const char *)t->damage.data, *sub = (const char *)t->sub.data;
	const char *filters = (const char *)t->filters.data;
	double room = width - 2 * PAD;

	fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"40\">", width / 2);
	if (*damage) {
		fputs("<tspan id=\"damage\">", out);
		put_fitted(out, damage, room, SUB_PX);
		fputs("</tspan>", out);
		room -= SUB_PX * (double)nr_chars(damage);
	}
	if (filters && !t->two_lines) {
		put_xml(out, sub, SIZE_MAX);
		fputs(*sub ? " \xc2\xb7 " : "", out);
		put_fitted(out, filters,
			   room - SUB_PX * (double)(nr_chars(sub) + 3 + strlen(t->counts)), SUB_PX);
		fputs(t->counts, out);
	} else {
		put_fitted(out, sub, room, SUB_PX);
	}
	fputs("</text>\n", out);
	if (filters && t->two_lines) {
		fprintf(out, "<text id=\"filters\" x=\"%u\" y=\"%u\">", width / 2, 40 + SUB2);
		put_fitted(out, filters, width - 2 * PAD - SUB_PX * (double)strlen(t->counts),
			   SUB_PX);
		fprintf(out, "%s</text>\n", t->counts);
	}
}

static int write_svg(struct flame *f, const struct prec_flame_opts *o, unsigned int width,
		     FILE *out)
{
	struct subtitle sub;
	unsigned int height;
	const char *title = o->title	  ? o->title
			    : o->inverted ? "Icicle graph of callers"
					  : "Flame graph";
	int err = subtitle_of(&sub, f, o, width);

	if (err)
		return err;
	f->top = TOP + (sub.two_lines ? SUB2 : 0);
	height = f->top + (f->max_depth + 1) * FRAME_H + BOTTOM;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n<title>",
		width, height, width, height);
	put_xml(out, title, SIZE_MAX);
	fprintf(out, "</title>\n<style>\n%s</style>\n", prec_flame_css);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n");
	/* the controls and the footer on a background of their own: the script keeps them in
	 * the window, over the frames */
	fprintf(out, "<g id=\"controls\"><rect width=\"100%%\" height=\"%u\" fill=\"#f8f8f4\"/>\n",
		f->top - 2);
	/* about 0.6 em a character */
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"22\">", width / 2);
	put_fitted(out, title, width - 2 * PAD, 10.2);
	fputs("</text>\n", out);
	put_subtitle(out, &sub, width);
	subtitle__release(&sub);
	fprintf(out,
		"<text id=\"reset\" class=\"btn hidden\" x=\"10\" y=\"%u\">Reset zoom</text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n</g>\n"
		"<g id=\"footer\"><rect y=\"%u\" width=\"100%%\" height=\"%u\" "
		"fill=\"#f8f8f4\"/>\n<text id=\"details\" x=\"10\" y=\"%u\"> </text>\n",
		f->top - 10, width - 260, f->top - 10, height - BOTTOM + 2, BOTTOM - 2,
		height - 12);
	put_legend(out, width, height - 12, f->has_inline);
	fputs("</g>\n", out);
	put_frames(out, f, width);
	if (!f->nodes[0].count)
		fprintf(out,
			"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">No samples to draw: the "
			"recording has none, or the filters left none in.</text>\n",
			width / 2, f->top + 12);
	err = put_data(out, f, o, width);
	if (!err)
		fprintf(out, "<script><![CDATA[\n%s]]></script>\n</svg>\n", prec_flame_script);
	return err;
}

int prec_view__flamegraph(struct prec_hist *h, const struct prec_flame_opts *o, FILE *out)
{
	/* the title, search box and legend need about 400 pixels */
	unsigned int width = o->width ? (o->width < 400 ? 400 : o->width) : 1200;
	struct flame f;
	int err;

	memset(&f, 0, sizeof(f));
	f.h = h;
	f.inverted = o->inverted;
	prec_keyset__init(&f.keys, sizeof(struct fkey));
	prec_keyset__init(&f.strs, sizeof(uintptr_t));
	err = build(&f, o->inverted, o->evsel);
	if (!err)
		err = link_children(&f);
	if (!err) {
		/* a pixel at full width: count * width >= total */
		f.min = (f.nodes[0].count + width - 1) / width;
		if (!f.min)
			f.min = 1;
		err = emit(&f, 0, 0, 0);
	}
	if (!err)
		err = write_svg(&f, o, width, out);
	if (!err && ferror(out))
		err = -EIO;
	prec_keyset__release(&f.keys);
	prec_keyset__release(&f.strs);
	prec_strset__release(&f.names);
	free(f.draw);
	free(f.nodes);
	free(f.sf);
	free(f.first);
	free(f.kids);
	free(f.str_order);
	return err;
}
