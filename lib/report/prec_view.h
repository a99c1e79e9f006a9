/* SPDX-License-Identifier: MIT */
/*
 * Views of a finished prec_hist: perf report's --stdio layout (flat entries, each optionally
 * with its call graph as a tree), and folded stacks for flame graph tools.  Output goes to a
 * FILE; errors are -EIO when it fails (the caller reports them) or -ENOMEM.
 *
 * Each of the hist's entries (one per distinct value of the sort keys) is a row; its columns
 * and order come from the sort keys' table in prec_view.c, its call graph from
 * prec_view_graph.c (built from the stacks the entry occurs on); prec_view_folded.c prints
 * the stacks themselves, prec_view_flame.c draws them as a flame graph (an SVG).
 */
#ifndef PREC_VIEW_H
#define PREC_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prec_hist.h"

/* Parse a --sort list ("comm,dso,sym"; perf's "overhead" is skipped, perf's long names
 * "symbol" and "command" are taken).  0, or -EINVAL with the bad key in *ret_bad (length 0:
 * the list has no key). */
int prec_sort_keys__parse(const char *list, enum prec_sort_key *keys, size_t *ret_nr,
			  const char **ret_bad, size_t *ret_bad_len);
/* The --sort name of key k. */
const char *prec_sort_key__name(enum prec_sort_key k);

enum prec_graph_mode {
	PREC_GRAPH_NONE,
	PREC_GRAPH_GRAPH, /* a tree per entry, percentages of the event's total */
	PREC_GRAPH_FLAT, /* every chain in full */
	PREC_GRAPH_FOLDED, /* every chain on one line, frames joined by ';' */
	PREC_GRAPH_FRACTAL, /* a tree, each branch's percentage of its caller's (perf's) */
};

/* What a call graph's branches and chains show (perf's -g ...,percent|period|count). */
enum prec_graph_value {
	PREC_GRAPH_PERCENT, /* share of the event's total */
	PREC_GRAPH_PERIOD, /* the event count */
	PREC_GRAPH_COUNT, /* the number of samples */
};

struct prec_view_evsel {
	const char *name;
	uint64_t lost_samples; /* for "# Total Lost Samples" */
	uint64_t broken_period; /* of the samples whose stack copy ended before the outermost
				 * caller, for "# Broken stacks" */
	bool dummy; /* perf's tracking event: when no event has samples, the others are shown */
};

/* A column that -F asks for: a percentage or count, or a sort key's column. */
enum prec_view_col {
	PREC_COL_CHILDREN, /* perf's overhead_children */
	PREC_COL_SELF, /* overhead: "Self" beside Children, else "Overhead" */
	PREC_COL_SAMPLES, /* sample */
	PREC_COL_PERIOD, /* period */
	PREC_COL_KEY, /* a sort key's column; the key must be one of the hist's */
};

struct prec_view_field {
	enum prec_view_col col;
	enum prec_sort_key key; /* with PREC_COL_KEY */
};

#define PREC_VIEW_MAX_FIELDS (2 * PREC_HIST_MAX_KEYS + 4)

struct prec_view_opts {
	bool show_nr_samples; /* -n */
	bool show_total_period; /* --show-total-period: the entry's own period */
	bool hide_unresolved; /* -U: no entry for a function that is not known */
	double percent_limit; /* hide entries under this share (percent) */
	const char *field_sep; /* -t: no alignment, fields joined by this; NULL: columns */
	enum prec_graph_mode graph;
	double graph_threshold; /* percent of the event's total (fractal: of the caller's);
				 * smaller branches hidden */
	enum prec_graph_value graph_value;
	bool caller_order; /* graph chains from the outermost caller down (else from the
			    * entry toward its callers) */
	const struct prec_view_evsel *evsels; /* hist->nr_ev of them */
	/* -F: exactly these columns, in this order (perf's --fields); entries are sorted by
	 * Children when it is one of them, else by the entry's own share.  0: perf's layout
	 * (Children and Self, or Overhead; -n and --show-total-period; the sort keys) */
	struct prec_view_field fields[PREC_VIEW_MAX_FIELDS];
	size_t nr_fields;
	/* -F with --sort: the hist's keys that -F lacks are added as columns, and entries are
	 * ordered by the keys alone (in the hist's key order), as perf does */
	bool fields_sorted;
	/* everything on the calling thread: no second thread sorts a large report's rows or
	 * draws rows and graphs ahead (the output is the same either way) */
	bool one_thread;
};

/* "%.2f%%" of p (a share in percent), exactly as printf prints it, without printf; buf holds
 * at least 32 bytes.  Returns the length. */
size_t prec_view__pct_text(double p, char *buf);

/* perf report --stdio. */
int prec_view__stdio(struct prec_hist *h, const struct prec_view_opts *o, FILE *out);

/* One line per distinct symbolized stack: "comm;outer;...;leaf COUNT" (sample counts). */
/* evsel: the stacks of that event only (its index), or PREC_VIEW_ALL_EVENTS. */
#define PREC_VIEW_ALL_EVENTS UINT32_MAX
int prec_view__folded(struct prec_hist *h, uint32_t evsel, FILE *out);

struct prec_flame_opts {
	const char *title, *subtitle; /* plain text (escaped by the view); NULL: a default, none */
	bool inverted; /* an icicle of callers: leaf functions at the top, their callers below */
	unsigned int width; /* of the SVG in pixels (at least 400); 0: 1200 */
	/* the filters given ("--comms cc1"; NULL: none) and the samples before them: the
	 * subtitle then ends "filtered: FILTERS; N of M samples", N those drawn */
	const char *filters;
	uint64_t nr_samples;
	uint32_t evsel; /* the event drawn (its index), or PREC_VIEW_ALL_EVENTS */
	/* the input was cut short or is corrupt ("input cut short at TIME"; NULL:
	 * neither): the subtitle begins "partial: DAMAGE", so the graph passes for no more */
	const char *damage;
};

/*
 * A flame graph of the stacks --folded prints (sample counts): one self-contained SVG whose
 * frames are drawn in the file (they show without scripts, as an <img>), with its own script
 * (hover details, click to zoom, search), frames narrower than a pixel merged
 * (prec_view_flame.c).  0, -EIO or -ENOMEM.
 */
int prec_view__flamegraph(struct prec_hist *h, const struct prec_flame_opts *o, FILE *out);

#endif
