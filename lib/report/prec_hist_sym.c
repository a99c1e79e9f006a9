/* SPDX-License-Identifier: MIT */
/*
 * Step 5 of prec_hist.c: symbolizing a frame, once, into its sframes.  A frame (DSO, address)
 * becomes the functions inlined at that address (with --inline, innermost first, from libdw)
 * and then its own function (the DSO's symbol covering the address); a frame without one is
 * an address of its DSO, or [unknown] when the DSO could not be used, or outside any mapping.
 * Return addresses are looked up at the call (addr - 1).  Frames are symbolized in frame id
 * order, so that sframe ids, and with them the output, do not depend on who symbolized them:
 * finish on the caller's thread, or the background thread (prec_hist_bg.c) while reading.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_hist_int.h"
#include "prec_symbol.h"

static void sframe_key(struct prec_sframe *sf, uint32_t dso, enum prec_sframe_kind kind,
		       uint64_t addr, const char *name, bool kernel)
{
	memset(sf, 0, sizeof(*sf));
	sf->dso = dso;
	sf->kind = kind;
	sf->addr = addr;
	sf->name = name;
	sf->kernel = kernel;
}

static long sframe_intern(struct prec_hist *h, uint32_t dso, enum prec_sframe_kind kind,
			  uint64_t addr, const char *name, bool kernel)
{
	struct prec_sframe sf;

	sframe_key(&sf, dso, kind, addr, name, kernel);
	return prec_keyset__intern(&h->sframes, &sf, NULL);
}

static int seq_push(struct prec_hist *h, size_t *cap, uint32_t v)
{
	if (prec_array__grow((void **)&h->sf_seq, cap, h->nr_sf_seq + 1, sizeof(uint32_t), 64))
		return -ENOMEM;
	h->sf_seq[h->nr_sf_seq++] = v;
	return 0;
}

/* The srcline of an address whose line info is `s` (NULL: none), or perf's without line info:
 * "sym+OFF" (decimal), else "dso[ADDR]" (hexadecimal), else, outside any mapping, "??:0". */
static const char *srcline_of(struct prec_hist *h, const struct prec_hist_frame *f,
			      struct prec_dso *d, const char *s, uint64_t addr,
			      const struct prec_sym *sym, bool have_sym)
{
	char buf[512];

	if (s)
		return prec_strset__intern(&h->strs, s);
	if (have_sym)
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, sym->name,
			 addr >= sym->start ? addr - sym->start : 0);
	else if (d)
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", prec_dso__short_name(d), f->addr);
	else
		snprintf(buf, sizeof(buf), "??:0");
	return prec_strset__intern(&h->strs, buf);
}

/* A frame's own function (not an inlined one), and its sframe's key. */
struct lookup {
	struct prec_sframe key;
	uint64_t addr; /* where it was looked up: a return address's call, at addr - 1 */
	bool kernel;
	struct prec_sym sym;
	int rc; /* 0: sym is the frame's function */
};

/* Look frame f (in DSO d) up into *a. */
static void look_up(const struct prec_hist_frame *f, struct prec_dso *d, struct lookup *a)
{
	bool kernel = f->flags & PREC_FRAME_KERNEL;
	uint64_t addr = f->addr - ((f->flags & PREC_FRAME_RET) && f->addr ? 1 : 0);

	a->addr = addr;
	a->kernel = kernel;
	a->rc = -ENOENT;
	if (!d) {
		sframe_key(&a->key, 0, PREC_SF_NOMAP, f->addr, NULL, kernel);
	} else {
		a->rc = prec_dso__lookup(d, addr, &a->sym, NULL);
		if (!a->rc)
			sframe_key(&a->key, f->dso, PREC_SF_SYM, a->sym.start, a->sym.name, kernel);
		else if (prec_dso__status(d) != PREC_DSO_OK)
			sframe_key(&a->key, f->dso, PREC_SF_UNKNOWN, 0, NULL, kernel);
		else
			sframe_key(&a->key, f->dso, PREC_SF_ADDR, f->addr, NULL, kernel);
	}
}

/* The next frame's sframes (frame ids are symbolized in order): the inlined functions first
 * (with --inline), then its own function. */
int prec_hist__symbolize_next(struct prec_hist *h, struct prec_dso *d)
{
	uint32_t i = h->nr_symbolized;
	struct prec_hist_frame f = prec_hist__frame_at(h, i);
	size_t cap = h->cap_frame_sym;
	struct prec_frame_sym *fs;
	struct prec_inline_frame inl[PREC_HIST_MAX_INLINE];
	const char *line = NULL; /* the address's source line, with the srcline key */
	struct lookup a;
	long sf;
	int nr = 0, k;

	if (prec_array__grow((void **)&h->frame_sym, &h->cap_frame_sym, (size_t)i + 1,
			     sizeof(*fs), 64) ||
	    (prec_hist_opts__has_key(&h->opts, PREC_SORT_SRCLINE) &&
	     prec_array__grow((void **)&h->frame_srcline, &cap, (size_t)i + 1, sizeof(char *),
			      64)))
		return -ENOMEM;
	fs = &h->frame_sym[i];
	look_up(&f, d, &a);
	fs->sf_start = (uint32_t)h->nr_sf_seq;
	if (prec_hist_warm__covers(h->warm, f.dso)) { /* asked already, on the other thread */
		nr = prec_hist_warm__take(h->warm, i, inl, &line);
		if (nr != -EINVAL && (a.rc || !h->opts.inline_frames))
			nr = 0; /* not asked on the one-thread path */
	} else if (d && !a.rc && h->opts.inline_frames) {
		nr = prec_dso__inlines(d, a.addr, inl, PREC_HIST_MAX_INLINE);
	}
	for (k = 0; k < nr; k++) {
		sf = sframe_intern(h, f.dso, PREC_SF_INLINE, inl[k].id, inl[k].name, a.kernel);
		if (sf < 0 || seq_push(h, &h->cap_sf_seq, (uint32_t)sf))
			return -ENOMEM;
	}
	if (nr < 0)
		return nr;
	sf = prec_keyset__intern(&h->sframes, &a.key, NULL);
	if (sf < 0 || seq_push(h, &h->cap_sf_seq, (uint32_t)sf))
		return -ENOMEM;
	fs->sf_n = (uint32_t)(nr > 0 ? nr + 1 : 1);
	fs->leaf = h->sf_seq[fs->sf_start];
	/* the last sframe, sf, is the frame's own function: a symbol when the lookup found one */
	fs->unsym = a.rc ? prec_hist__sframe(h, (uint32_t)sf)->dso + 1 : 0;
	if (h->frame_srcline) {
		if (d && !prec_hist_warm__covers(h->warm, f.dso))
			line = prec_dso__srcline(d, a.addr);
		h->frame_srcline[i] = srcline_of(h, &f, d, line, a.addr, &a.sym, !a.rc);
		if (!h->frame_srcline[i])
			return -ENOMEM;
	}
	h->nr_symbolized++;
	return 0;
}
