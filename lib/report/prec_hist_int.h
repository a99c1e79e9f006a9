/* SPDX-License-Identifier: MIT */
/*
 * Between prec_hist.c and its background symbolizer (prec_hist_bg.c), nothing else: the two
 * steps the thread takes, and the thread's control.
 */
#ifndef PREC_HIST_INT_H
#define PREC_HIST_INT_H

#include "prec_hist.h"

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
