/* SPDX-License-Identifier: MIT */
/*
 * What the view's three files share; not for callers of prec_view.h.  prec_view.c prints
 * the rows and columns of the --stdio view and holds the sort keys' table;
 * prec_view_graph.c builds and prints an entry's call graph; prec_view_folded.c prints
 * folded stacks.
 */
#ifndef PREC_VIEW_INT_H
#define PREC_VIEW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "prec_hash.h"
#include "prec_view.h"

#define NAME_MAX_LEN 1024 /* a frame's or a cell's text buffer */

struct prec_column {
	enum prec_view_col kind;
	enum prec_sort_key key;
	const char *title;
	bool right;
	int width;
};

struct prec_view {
	struct prec_hist *h;
	const struct prec_hist_opts *ho; /* the hist's options */
	const struct prec_entry *entries; /* the hist's, by entry id */
	uint32_t nr_entries;
	const struct prec_view_opts *o;
	FILE *out;
	uint32_t evsel;
	uint64_t total; /* the event's period */
	struct prec_column cols[PREC_VIEW_MAX_FIELDS];
	size_t nr_cols;
	bool by_self; /* children counted, but entries ordered by their own share (-F) */
	bool by_keys; /* entries ordered by the sort keys alone (-F with --sort, as perf) */
};

static inline double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static inline const char *u64_text(uint64_t v, char *buf)
{
	char *p = buf + 20;

	*p = 0;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	return p;
}

static inline uint64_t primary(const struct prec_view *v, const struct prec_entry *e)
{
	return v->ho->children ? e->acc_period : e->self_period;
}

/* A row put together before it is written: one fwrite a row instead of one per piece (see
 * doc/performance.md). */
struct prec_line {
	char *p;
	size_t n, cap;
	bool failed; /* out of memory: the row is not written */
};

/* The function name of sframe sfid as a call graph (folded false) or folded stack shows it:
 * a string of the hist or buf (len bytes). */
const char *prec_view_frame_name(const struct prec_hist *h, uint32_t sfid, bool folded, char *buf,
				 size_t len);
/* Entry e's row, written to v->out in one piece, built in `row`.  0 or -ENOMEM. */
int prec_view_print_row(const struct prec_view *v, const struct prec_entry *e,
			struct prec_line *row);

/* One entry's call graph at a time (reused for the next: the arrays keep their memory). */
struct prec_graph {
	struct prec_keyset ids; /* (parent, sframe) -> node id - 1 */
	struct prec_gnode *nodes;
	size_t nr, cap;
	uint32_t *seq;
	size_t seq_cap;
	char *prefix;
	size_t prefix_cap;
};

/* An empty graph, and what frees it. */
void prec_graph__init(struct prec_graph *g);
void prec_graph__release(struct prec_graph *g);
/* Entry e's graph or chains (v->o->graph) to v->out, a tree with the blank line after it
 * when it printed something; nothing when e has no chain or is below the threshold (perf:
 * "do not add a blank line if it printed nothing").  0, -ENOMEM. */
int prec_graph__print(struct prec_graph *g, const struct prec_view *v, const struct prec_entry *e);
/* The rows rows[0, nr) (entry ids, in print order), each followed by its graph, on two
 * threads when there are two rows or more, one_thread is off and a second thread can start.
 * 0, -ENOMEM. */
int prec_graph__print_entries(const struct prec_view *v, struct prec_graph *g, const uint32_t *rows,
			      size_t nr, struct prec_line *row);

#endif
