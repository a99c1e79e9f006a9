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
	bool by_depth; /* equal entries of a thread by their chains' depth (see cmp_rowkeys) */
};

static inline double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
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

/* Are stack's samples of event evsel (PREC_VIEW_ALL_EVENTS: of any)? */
bool prec_view_stack_of(const struct prec_hist *h, uint32_t stack, uint32_t evsel);

/* The function name of sframe sfid as a call graph (folded false) or folded stack shows it:
 * a string of the hist or buf (len bytes). */
const char *prec_view_frame_name(const struct prec_hist *h, uint32_t sfid, bool folded, char *buf,
				 size_t len);
/* Entry e's row, written to v->out in one piece, built in `row`.  0 or -ENOMEM. */
int prec_view_print_row(const struct prec_view *v, const struct prec_entry *e,
			struct prec_line *row);

/* The rows rows[0, nr) (entry ids, in print order), each followed by its graph, on two
 * threads when there are two rows or more, one_thread is off and a second thread can start
 * (the output is the same).  0, -ENOMEM. */
int prec_graph__print_entries(const struct prec_view *v, const uint32_t *rows, size_t nr,
			      struct prec_line *row);

/* The flame graph's stylesheet and script, written into each SVG (prec_view_flame_page.c). */
extern const char prec_flame_css[];
extern const char prec_flame_script[];

#endif
