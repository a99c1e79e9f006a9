/* SPDX-License-Identifier: MIT */
/*
 * Call graphs of the --stdio view: for one entry at a time, a tree of the call chains of the
 * stacks the entry occurs on (prec_hist's occurrences), printed as perf prints it (graph,
 * fractal), or its chains one by one (flat, folded).  The tree is rebuilt for each entry, so
 * its memory is bounded by the largest single graph.  Siblings and chains come in perf's
 * order, so outputs match perf's byte for byte.
 *
 * With two entries or more, a second thread draws rows and graphs ahead of the printing
 * thread into memory (prec_graph__print_entries); both only read the hist, and the output
 * is the same as one thread's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_hash.h"
#include "prec_view_int.h"

struct prec_gnode {
	uint32_t sf;
	uint32_t parent;
	uint32_t first_child, next_sibling; /* 0: none (node 0 is the root) */
	uint32_t hint; /* the child taken last (0: none), tried before the hash */
	uint64_t period; /* of the chains through this node */
	uint64_t end_period; /* of the chains ending here */
	uint64_t count, end_count; /* the same in samples */
};

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

static void graph_init(struct prec_graph *g)
{
	memset(g, 0, sizeof(*g));
	prec_keyset__init(&g->ids, 2 * sizeof(uint32_t));
}

static void graph_release(struct prec_graph *g)
{
	prec_keyset__release(&g->ids);
	free(g->nodes);
	free(g->seq);
	free(g->prefix);
}

static long gnode_child(struct prec_graph *g, uint32_t parent, uint32_t sf)
{
	uint32_t key[2] = { parent, sf }, hint = g->nodes[parent].hint;
	bool is_new;
	long id;

	if (hint && g->nodes[hint].sf == sf)
		return hint; /* chains of one entry share most of their path */
	id = prec_keyset__intern(&g->ids, key, &is_new);
	if (id < 0)
		return id;
	id++;
	if (is_new) {
		if (prec_array__grow((void **)&g->nodes, &g->cap, (size_t)id + 1,
				     sizeof(*g->nodes), 256))
			return -ENOMEM;
		memset(&g->nodes[id], 0, sizeof(g->nodes[id]));
		g->nodes[id].sf = sf;
		g->nodes[id].parent = parent;
		g->nodes[id].next_sibling = g->nodes[parent].first_child;
		g->nodes[parent].first_child = (uint32_t)id;
		g->nr = (size_t)id + 1;
	}
	g->nodes[parent].hint = (uint32_t)id;
	return id;
}

/* Build the graph of entry `e`: the chains of every stack it is on (see prec_hist.h). */
static int graph_build(struct prec_graph *g, const struct prec_view *v, const struct prec_entry *e)
{
	const struct prec_hist *h = v->h;
	const struct prec_occurrence *occ = prec_hist__occurrences(h, e);
	bool caller = v->o->caller_order;
	uint32_t i;

	prec_keyset__release(&g->ids);
	prec_keyset__init(&g->ids, 2 * sizeof(uint32_t));
	if (prec_array__grow((void **)&g->nodes, &g->cap, 1, sizeof(*g->nodes), 256))
		return -ENOMEM;
	memset(&g->nodes[0], 0, sizeof(g->nodes[0]));
	g->nr = 1;
	for (i = 0; i < e->occ_n; i++) {
		const struct prec_occurrence *oc = &occ[i];
		struct prec_path path;
		/* callers first from a non-leaf position need the stack only down from there */
		long n = prec_hist__path(h, oc->node, caller && oc->pos ? oc->pos : SIZE_MAX, &path,
					 &g->seq, &g->seq_cap);
		uint64_t p = path.period;
		uint64_t nc = v->o->graph_value == PREC_GRAPH_COUNT ? path.count : 0;
		long k, id = 0;
		long from, to, step;

		if (n < 0)
			return (int)n;
		if ((long)oc->pos >= n || !path.chain)
			continue;
		if (caller) { /* outermost first; from the entry down, or whole for the leaf */
			from = oc->pos == 0 ? n - 1 : (long)oc->pos;
			to = -1;
			step = -1;
		} else {
			from = oc->pos;
			to = n;
			step = 1;
		}
		g->nodes[0].period += p;
		g->nodes[0].count += nc;
		for (k = from; k != to; k += step) {
			id = gnode_child(g, (uint32_t)id, g->seq[k]);
			if (id < 0)
				return (int)id;
			g->nodes[id].period += p;
			g->nodes[id].count += nc;
		}
		g->nodes[id].end_period += p;
		g->nodes[id].end_count += nc;
	}
	return 0;
}

/*
 * Siblings in perf's order (the order of its children tree): by shared object, the one that
 * came up last first (perf: by the DSO object's address, which mostly grows in the order perf
 * made them, the kernel's first), then from the highest symbol start (or address) down.
 */
static int cmp_gnodes_pos(const struct prec_hist *h, const struct prec_gnode *x,
			  const struct prec_gnode *y)
{
	const struct prec_sframe *fx = prec_hist__sframe(h, x->sf);
	const struct prec_sframe *fy = prec_hist__sframe(h, y->sf);

	if (fx->dso != fy->dso)
		return fx->dso > fy->dso ? -1 : 1;
	if (fx->addr != fy->addr)
		return fx->addr > fy->addr ? -1 : 1;
	return x->sf < y->sf ? -1 : x->sf > y->sf;
}

static int cmp_gnodes_pos_r(const void *a, const void *b, void *arg)
{
	const struct prec_gnode *x = *(const struct prec_gnode *const *)a;
	const struct prec_gnode *y = *(const struct prec_gnode *const *)b;

	return cmp_gnodes_pos(arg, x, y);
}

/* Siblings in a call graph: largest first, equals in perf's order. */
static int cmp_gnodes_desc(const void *a, const void *b, void *arg)
{
	const struct prec_gnode *x = *(const struct prec_gnode *const *)a;
	const struct prec_gnode *y = *(const struct prec_gnode *const *)b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return cmp_gnodes_pos(arg, x, y);
}

static bool fractal(const struct prec_view *v)
{
	return v->o->graph == PREC_GRAPH_FRACTAL;
}

/* Of the chains through `node`, those that go on to a callee (perf's children_hit). */
static uint64_t below(const struct prec_graph *g, uint32_t node)
{
	return g->nodes[node].period - g->nodes[node].end_period;
}

/*
 * The children of `node`, malloc'ed; -1 on -ENOMEM.  `visible`: those above the threshold,
 * largest first (in fractal mode the threshold is a share of the chains below `node`,
 * rounded up as perf does); else all of them, in cmp_gnodes_pos() order.
 */
static long kids_of(const struct prec_view *v, struct prec_graph *g, uint32_t node, bool visible,
		    struct prec_gnode ***ret)
{
	struct prec_gnode **k = NULL;
	size_t n = 0, cap = 0;
	uint32_t c;
	double x = (double)below(g, node) * v->o->graph_threshold / 100.0;
	uint64_t min_rel = (uint64_t)x + ((double)(uint64_t)x < x); /* ceil */

	for (c = g->nodes[node].first_child; c; c = g->nodes[c].next_sibling) {
		if (visible && (fractal(v) ? g->nodes[c].period < min_rel
					   : pct(g->nodes[c].period, v->total) < v->o->graph_threshold))
			continue;
		if (prec_array__grow((void **)&k, &cap, n + 1, sizeof(*k), 4)) {
			free(k);
			return -1;
		}
		k[n++] = &g->nodes[c];
	}
	if (n > 1)
		qsort_r(k, n, sizeof(*k), visible ? cmp_gnodes_desc : cmp_gnodes_pos_r, (void *)v->h);
	*ret = k;
	return (long)n;
}

/* The value a branch or chain shows for node n: of the chains through it, or (`end`) of
 * those that end there; into buf (32 bytes), returns its length. */
static size_t value_text(const struct prec_view *v, const struct prec_gnode *n, bool end, char *buf)
{
	uint64_t period = end ? n->end_period : n->period;

	if (v->o->graph_value == PREC_GRAPH_PERCENT)
		return prec_view__pct_text(pct(period, v->total), buf);
	return (size_t)sprintf(buf, "%" PRIu64,
			       v->o->graph_value == PREC_GRAPH_COUNT ? (end ? n->end_count : n->count)
								     : period);
}

static int set_prefix(struct prec_graph *g, size_t len)
{
	if (prec_array__grow((void **)&g->prefix, &g->prefix_cap, len + 1, 1, 64))
		return -ENOMEM;
	g->prefix[len] = 0;
	return 0;
}

static int print_branches(const struct prec_view *v, struct prec_graph *g, uint32_t node,
			  size_t plen, uint64_t base);

#define GRAPH_LEVEL 10 /* columns of a graph level after its "|" */

/* Print the single path below `node` (prefix g->prefix[0..plen)), then its branches; in
 * fractal mode their shares are of `base`, or with 0 of the chains below the path. */
static int print_follow(const struct prec_view *v, struct prec_graph *g, uint32_t node, size_t plen,
			uint64_t base)
{
	char buf[NAME_MAX_LEN];

	for (;;) {
		struct prec_gnode **kids;
		long n = kids_of(v, g, node, true, &kids);

		if (n < 0)
			return -ENOMEM;
		if (n == 1 && kids[0]->period == g->nodes[node].period) {
			node = (uint32_t)(kids[0] - g->nodes);
			free(kids);
			if (set_prefix(g, plen))
				return -ENOMEM;
			fprintf(
			    v->out, "%s%s\n", g->prefix,
			    prec_view_frame_name(v->h, g->nodes[node].sf, false, buf, sizeof(buf)));
			continue;
		}
		free(kids);
		return n ? print_branches(v, g, node, plen, base ? base : below(g, node)) : 0;
	}
}

/*
 * The branches below `node`.  In fractal mode (perf's graph_rel) their shares are of `base`,
 * and what the hidden ones weigh is a last "[...]" branch.
 */
static int print_branches(const struct prec_view *v, struct prec_graph *g, uint32_t node,
			  size_t plen, uint64_t base)
{
	char buf[NAME_MAX_LEN], p[48];
	struct prec_gnode **kids;
	long n = kids_of(v, g, node, true, &kids), i;
	uint64_t rest = base;
	int err = 0;

	if (n < 0)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		rest -= kids[i]->period < rest ? kids[i]->period : rest;
	if (!fractal(v))
		rest = 0;
	/* as perf: each level is 11 columns, "|" or " " and 10 more, whatever the width of the
	 * "--12.34%--" that opens a branch; the line before a branch has them all */
	for (i = 0; i < n && !err; i++) {
		bool last = i == n - 1 && !rest; /* "[...]" comes last */
		uint32_t kid = (uint32_t)(kids[i] - g->nodes);
		size_t w = 2 + (fractal(v) ? prec_view__pct_text(pct(kids[i]->period, base), p + 2)
					   : value_text(v, kids[i], false, p + 2)) + 2;

		p[0] = p[1] = '-';
		memcpy(p + w - 2, "--", 3);
		if (set_prefix(g, plen + 1 + GRAPH_LEVEL)) {
			err = -ENOMEM;
			break;
		}
		g->prefix[plen] = 0;
		fprintf(v->out, "%s|%*s\n", g->prefix, GRAPH_LEVEL, "");
		fprintf(v->out, "%s%c%s%s\n", g->prefix, last ? ' ' : '|', p,
			prec_view_frame_name(v->h, kids[i]->sf, false, buf, sizeof(buf)));
		g->prefix[plen] = last ? ' ' : '|';
		memset(g->prefix + plen + 1, ' ', GRAPH_LEVEL);
		err = print_follow(v, g, kid, plen + 1 + GRAPH_LEVEL, 0);
		g->prefix[plen] = 0;
	}
	free(kids);
	if (!err && rest && rest != base) {
		prec_view__pct_text(pct(rest, base), p);
		if (set_prefix(g, plen))
			return -ENOMEM;
		fprintf(v->out, "%s --%s--[...]\n", g->prefix, p);
	}
	return err;
}

#define GRAPH_INDENT 12

/* Whether a graph leaves out the frame it starts with when that is the entry's own symbol:
 * perf does when the sort keys start with sym (and then whatever the frame is). */
static bool skips_own_frame(const struct prec_view *v)
{
	return v->ho->keys[0] == PREC_SORT_SYM;
}

/*
 * The tree of entry e, whose weight is `weight`; 1 when it printed something, 0 when nothing
 * was above the threshold, or a negative errno.  A single root is printed without its share
 * when it carries all of the entry's weight (perf: not when some of the entry's samples have
 * no chain, or other roots are below the threshold); with --sort sym, without the entry's own
 * frame (the row above names it), and then the graph goes on from the frame after it, or
 * branches right away.
 */
static int print_graph_tree(const struct prec_view *v, struct prec_graph *g,
			    const struct prec_entry *e, uint64_t weight)
{
	char buf[NAME_MAX_LEN];
	struct prec_gnode **kids;
	uint32_t node = 0, kid;
	long n;
	int err;

	if (set_prefix(g, GRAPH_INDENT + 3))
		return -ENOMEM;
	memset(g->prefix, ' ', GRAPH_INDENT + 3);
	/* the root, then (--sort sym) the entry's own frame: passed over when one branch below
	 * carries all of it */
	for (;;) {
		n = kids_of(v, g, node, true, &kids);
		if (n < 0)
			return -ENOMEM;
		if (n != 1 || kids[0]->period != (node ? g->nodes[node].period : weight)) {
			free(kids);
			err = n ? print_branches(v, g, node, GRAPH_INDENT, weight) : 0;
			return err ? err : n > 0;
		}
		kid = (uint32_t)(kids[0] - g->nodes);
		free(kids);
		if (node || !skips_own_frame(v) || g->nodes[kid].sf != e->sframe)
			break;
		node = kid;
	}
	fprintf(v->out, "%*s|\n%*s---%s\n", GRAPH_INDENT, "", GRAPH_INDENT, "",
		prec_view_frame_name(v->h, g->nodes[kid].sf, false, buf, sizeof(buf)));
	err = print_follow(v, g, kid, GRAPH_INDENT + 3, weight);
	return err ? err : 1;
}

struct chain_pos {
	uint32_t node, rank;
};

/* Chains in perf's order: heavier first (by the samples that end there), equals in the order
 * collect_chains() found them. */
static int cmp_chains(const void *a, const void *b, void *arg)
{
	const struct prec_graph *g = arg;
	const struct chain_pos *x = a, *y = b;
	uint64_t px = g->nodes[x->node].end_period, py = g->nodes[y->node].end_period;

	if (px != py)
		return px < py ? 1 : -1;
	return x->rank < y->rank ? -1 : 1;
}

/*
 * The nodes below `node` where chains end above the threshold into list[*nr...], in perf's
 * order for equal chains: children before their parent, siblings in cmp_gnodes_pos() order.
 */
static int collect_chains(const struct prec_view *v, struct prec_graph *g, uint32_t node,
			  struct chain_pos *list, size_t *nr)
{
	struct prec_gnode **kids = NULL;
	long n = kids_of(v, g, node, false, &kids), i;
	int err = n < 0 ? -ENOMEM : 0;

	for (i = 0; i < n && !err; i++)
		err = collect_chains(v, g, (uint32_t)(kids[i] - g->nodes), list, nr);
	free(kids);
	if (!err && node && g->nodes[node].end_period &&
	    pct(g->nodes[node].end_period, v->total) >= v->o->graph_threshold) {
		list[*nr].node = node;
		list[*nr].rank = (uint32_t)*nr;
		(*nr)++;
	}
	return err;
}

/*
 * -g flat / folded: every chain that ends somewhere, heaviest first.  As perf, a flat chain
 * shows the share of all the chains through its last frame, a folded one of those that end
 * there; flat chains are each followed by a blank line, folded ones by none.
 */
static int print_chains(const struct prec_view *v, struct prec_graph *g)
{
	struct chain_pos *list = malloc(g->nr * sizeof(*list));
	uint32_t *path = malloc(g->nr * sizeof(*path));
	bool flat = v->o->graph == PREC_GRAPH_FLAT;
	char buf[NAME_MAX_LEN];
	size_t nr = 0, i, depth, k;
	int err = -ENOMEM;

	if (!list || !path)
		goto out;
	err = collect_chains(v, g, 0, list, &nr);
	if (err)
		goto out;
	if (nr > 1)
		qsort_r(list, nr, sizeof(*list), cmp_chains, g);
	for (i = 0; i < nr; i++) {
		const struct prec_gnode *end = &g->nodes[list[i].node];
		uint32_t c;

		depth = 0;
		for (c = list[i].node; c; c = g->nodes[c].parent)
			path[depth++] = c;
		value_text(v, end, !flat, buf);
		if (flat)
			fprintf(v->out, "%*s%s\n", GRAPH_INDENT - 1, "", buf);
		else
			fprintf(v->out, "%s ", buf);
		for (k = depth; k-- > 0;) {
			uint32_t sfid = g->nodes[path[k]].sf;
			const struct prec_sframe *sf = prec_hist__sframe(v->h, sfid);
			const char *name;

			/* perf leaves out what looks like a context marker: the root frame of a
			 * broken stack */
			if (sf->kind == PREC_SF_NOMAP && sf->addr >= PREC_CONTEXT_MAX)
				continue;
			name = prec_view_frame_name(v->h, sfid, false, buf, sizeof(buf));

			if (flat)
				fprintf(v->out, "%*s%s\n", GRAPH_INDENT + 4, "", name);
			else
				fprintf(v->out, "%s%s", k + 1 < depth ? ";" : "", name);
		}
		fputc('\n', v->out);
	}
out:
	free(list);
	free(path);
	return err;
}

/*
 * Whether entry e's graph has anything to show: no branch or chain weighs more than all the
 * stacks through the entry, so below the threshold the graph is not built.  Those stacks
 * are its occurrences, one per stack (prec_hist__finish()), whose periods add up to the
 * entry's primary period: with children every stack it is on, without only those it ends.
 */
static bool graph_shown(const struct prec_view *v, const struct prec_entry *e)
{
	if (fractal(v)) /* its threshold is relative */
		return true;
	return pct(primary(v, e), v->total) >= v->o->graph_threshold;
}

/* Entry e's graph or chains (v->o->graph) to v->out, a tree with the blank line after it
 * when it printed something; nothing when e has no chain or is below the threshold (perf:
 * "do not add a blank line if it printed nothing").  0, -ENOMEM. */
static int graph_print(struct prec_graph *g, const struct prec_view *v, const struct prec_entry *e)
{
	int err;

	if (!e->occ_n || !graph_shown(v, e))
		return 0;
	err = graph_build(g, v, e);
	if (err)
		return err;
	if (v->o->graph != PREC_GRAPH_GRAPH && !fractal(v))
		return print_chains(v, g);
	err = print_graph_tree(v, g, e, primary(v, e));
	if (err <= 0) /* nothing printed: no blank line either, as perf */
		return err;
	fputc('\n', v->out);
	return 0;
}

#define ROW_AHEAD 4

/* Entries rows[0, nr), each row with its graph. */
static int print_entries(const struct prec_view *v, struct prec_graph *g, const uint32_t *rows,
			 size_t nr, struct prec_line *row)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		/* the rows ahead: their entries, then (fetched by now) their sframes */
		if (i + 2 * ROW_AHEAD < nr)
			__builtin_prefetch(&v->entries[rows[i + 2 * ROW_AHEAD]]);
		if (i + ROW_AHEAD < nr)
			__builtin_prefetch(
				prec_hist__sframe(v->h, v->entries[rows[i + ROW_AHEAD]].sframe));
		err = prec_view_print_row(v, &v->entries[rows[i]], row) ?:
		      graph_print(g, v, &v->entries[rows[i]]);
	}
	return err;
}

/*
 * Entries (row and graph) printed by two threads.  The entries are jobs numbered in print
 * order; each thread takes the next one not taken.  The helper prints into memory, which the
 * printing thread copies out when it reaches that entry; an entry nobody has taken yet when
 * its turn comes is printed by the printing thread itself, straight to the output, and while
 * it waits for one the helper is printing it prints later ones into memory.  Both only read
 * the hist.  Rows are jobs too: each reads its entry, frame and name, cache misses that the
 * two threads then take in parallel.
 */
/* Entries per job: the first rows, the heaviest, have the largest graphs, so jobs start at
 * one entry and double every two jobs up to GJOB_ROWS, which keep the many small entries of
 * the tail from costing a handover each. */
#define GJOB_ROWS 32

struct gjob {
	const uint32_t *rows; /* the entries of the job, in print order */
	size_t nr;
	char *text; /* the helper's drawing */
	size_t len;
	int err;
	bool done;
};

struct gpool {
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct gjob *jobs;
	size_t nr, next; /* jobs[next..nr) are not taken */
	struct prec_view v; /* the helper's copy */
	struct prec_graph g;
	struct prec_line row;
	pthread_t thread;
};

/* Take the next job and draw it into memory, with v's settings, graph g and row buffer
 * `row`; called and returning with p->lock held. */
static void take_and_draw(struct gpool *p, const struct prec_view *v, struct prec_graph *g,
			  struct prec_line *row)
{
	struct gjob *j = &p->jobs[p->next++];
	struct prec_view mem = *v;

	pthread_mutex_unlock(&p->lock);
	mem.out = open_memstream(&j->text, &j->len);
	j->err = mem.out ? print_entries(&mem, g, j->rows, j->nr, row) : -ENOMEM;
	if (mem.out && fclose(mem.out) && !j->err)
		j->err = -ENOMEM;
	pthread_mutex_lock(&p->lock);
	j->done = true;
	pthread_cond_broadcast(&p->done);
}

static void *graph_helper(void *arg)
{
	struct gpool *p = arg;

	pthread_mutex_lock(&p->lock);
	while (p->next < p->nr)
		take_and_draw(p, &p->v, &p->g, &p->row);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * Print job k: straight to the output if nobody took it yet; else, until it is done, do
 * later ones into memory too; then copy it out.
 */
static int gpool_print(struct gpool *p, const struct prec_view *v, struct prec_graph *g,
		       struct prec_line *row, size_t k)
{
	struct gjob *j = &p->jobs[k];
	int err;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (p->next == k) { /* not taken: ours */
			p->next++;
			pthread_mutex_unlock(&p->lock);
			return print_entries(v, g, j->rows, j->nr, row);
		}
		if (j->done)
			break;
		if (p->next < p->nr)
			take_and_draw(p, v, g, row);
		else
			pthread_cond_wait(&p->done, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	err = j->err;
	if (!err && j->len && fwrite(j->text, 1, j->len, v->out) != j->len)
		err = -EIO;
	free(j->text);
	j->text = NULL;
	return err;
}

int prec_graph__print_entries(const struct prec_view *v, const uint32_t *rows, size_t nr,
			      struct prec_line *row)
{
	struct gpool p = { 0 };
	struct prec_graph g;
	size_t at, i;
	int err = 0;

	graph_init(&g);
	/* one thread for one row, when asked, or without memory for the jobs */
	p.jobs = nr >= 2 && !v->o->one_thread ? calloc(nr, sizeof(*p.jobs)) : NULL;
	if (!p.jobs) {
		err = print_entries(v, &g, rows, nr, row);
		graph_release(&g);
		return err;
	}
	for (at = 0; at < nr; p.nr++) {
		size_t want = p.nr / 2 < 5 ? (size_t)1 << (p.nr / 2) : GJOB_ROWS;

		p.jobs[p.nr].rows = rows + at;
		p.jobs[p.nr].nr = nr - at < want ? nr - at : want;
		at += p.jobs[p.nr].nr;
	}
	p.v = *v;
	graph_init(&p.g);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.done, NULL);
	if (pthread_create(&p.thread, NULL, graph_helper, &p)) {
		err = print_entries(v, &g, rows, nr, row);
	} else {
		for (i = 0; i < p.nr && !err; i++)
			err = gpool_print(&p, v, &g, row, i);
		/* no job is left for the helper to take (after an error too) */
		pthread_mutex_lock(&p.lock);
		p.next = p.nr;
		pthread_mutex_unlock(&p.lock);
		pthread_join(p.thread, NULL);
	}
	for (i = 0; i < p.nr; i++)
		free(p.jobs[i].text);
	free(p.jobs);
	free(p.row.p);
	graph_release(&p.g);
	graph_release(&g);
	pthread_cond_destroy(&p.done);
	pthread_mutex_destroy(&p.lock);
	return err;
}
