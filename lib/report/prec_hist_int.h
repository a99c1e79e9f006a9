/* SPDX-License-Identifier: MIT */
/*
 * Between prec_hist.c, its symbolizer (prec_hist_sym.c) and its background thread
 * (prec_hist_bg.c), nothing else.
 */
#ifndef PREC_HIST_INT_H
#define PREC_HIST_INT_H

#include "prec_hist.h"

static inline bool prec_hist_opts__has_key(const struct prec_hist_opts *o, enum prec_sort_key k)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

/* Frame fid, as indexed. */
static inline struct prec_hist_frame prec_hist__frame_at(const struct prec_hist *h, uint32_t fid)
{
	return *(const struct prec_hist_frame *)prec_keyset__key(&h->frames, fid);
}

/* Give node h->nr_indexed, whose frame is f (a root's if `root`), its frame id; *is_new says
 * whether the frame is new (then its id is h->frames.n - 1).  0 or -ENOMEM. */
int prec_hist__index_node(struct prec_hist *h, const struct prec_hist_frame *f, bool root,
			  bool *is_new);
/* Symbolize frame h->nr_symbolized (indexed already), of DSO d.  0 or -ENOMEM. */
int prec_hist__symbolize_next(struct prec_hist *h, struct prec_dso *d);

/* The thread, started for the nodes from h->nr_nodes on (all indexed before).  0 or -errno. */
int prec_hist_bg__start(struct prec_hist *h, struct prec_hist_bg **ret);
/* A node was made (the caller's thread, in node order). */
void prec_hist_bg__add(struct prec_hist_bg *bg, const struct prec_hist_frame *f,
		       struct prec_dso *d, bool root);
/* Stop the thread and free it (NULL: nothing): wherever it is, or with `drain` once it has
 * taken every node made so far.  The thread's error, or 0. */
int prec_hist_bg__stop(struct prec_hist_bg *bg, bool drain);

#endif
