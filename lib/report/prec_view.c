/* SPDX-License-Identifier: MIT */
/*
 * The --stdio and folded views.  Entries are chosen and sorted per event; columns are sized
 * from the rows about to be printed.  A call graph is built for one entry at a time from the
 * stacks the entry occurs on, so its memory is bounded by the largest single graph; a second
 * thread draws graphs ahead of the rows (their text waits in memory until printed).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_symbol.h"
#include "prec_view.h"

#define NAME_MAX_LEN 1024

/* ---- text of a symbolized frame ---- */

static const char *dso_text(const struct prec_hist *h, uint32_t dso_id)
{
	struct prec_dso *d = prec_hist__dso(h, dso_id);

	return d ? prec_dso__short_name(d) : "[unknown]";
}

/* The function name as a call graph or folded stack shows it. */
static const char *frame_name(const struct prec_hist *h, uint32_t sfid, bool folded, char *buf,
			      size_t len)
{
	const struct prec_sframe *sf = prec_hist__sframe(h, sfid);

	switch (sf->kind) {
	case PREC_SF_SYM:
		return sf->name;
	case PREC_SF_INLINE:
		if (folded)
			return sf->name;
		snprintf(buf, len, "%s (inlined)", sf->name);
		return buf;
	case PREC_SF_ADDR:
	case PREC_SF_NOMAP:
		if (folded) {
			snprintf(buf, len, "[%s]", dso_text(h, sf->dso));
			return sf->dso ? buf : "[unknown]";
		}
		snprintf(buf, len, "%#" PRIx64, sf->addr);
		return buf;
	default:
		if (folded) {
			snprintf(buf, len, "[%s]", dso_text(h, sf->dso));
			return buf;
		}
		return "[unknown]";
	}
}

/* The Symbol column: "[.] name", "[k] name", "[.] 0x00000000000011a9". */
/* "MODE 0x%016llx", or "MODE %016llx" for a zero (perf's "%-#.*llx": printf gives no 0x to a
 * zero), without printf: a report can have thousands of unsymbolized addresses, each formatted
 * twice (width, then line). */
static void addr_text(const char *mode, uint64_t a, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	char *p = buf;
	int i;

	memcpy(p, mode, 3);
	p[3] = ' ';
	p += 4;
	if (a) {
		*p++ = '0';
		*p++ = 'x';
	}
	for (i = 15; i >= 0; i--)
		*p++ = digits[(a >> (4 * i)) & 15];
	*p = 0;
}

static void sym_text(const struct prec_hist *h, uint32_t sfid, char *buf, size_t len)
{
	const struct prec_sframe *sf = prec_hist__sframe(h, sfid);
	const char *mode = sf->kernel ? "[k]" : "[.]";

	switch (sf->kind) {
	case PREC_SF_SYM: {
		size_t n = strlen(sf->name);

		if (n + 5 > len)
			n = len - 5;
		memcpy(buf, mode, 3);
		buf[3] = ' ';
		memcpy(buf + 4, sf->name, n);
		buf[4 + n] = 0;
		break;
	}
	case PREC_SF_INLINE:
		snprintf(buf, len, "%s %s (inlined)", mode, sf->name);
		break;
	case PREC_SF_ADDR:
	case PREC_SF_NOMAP:
		addr_text(mode, sf->addr, buf); /* 24 bytes; every caller's buffer is larger */
		break;
	default:
		snprintf(buf, len, "%s [unknown]", mode);
		break;
	}
}

/* ---- flat entries ---- */

/* one to one with enum prec_view_col */
enum col_kind { COL_CHILDREN, COL_SELF, COL_SAMPLES, COL_PERIOD, COL_KEY };
_Static_assert((int)COL_PERIOD == (int)PREC_COL_PERIOD && (int)COL_KEY == (int)PREC_COL_KEY,
	       "enum col_kind follows enum prec_view_col");

struct col {
	enum col_kind kind;
	enum prec_sort_key key;
	const char *title;
	bool right;
	int width;
};

struct view {
	struct prec_hist *h;
	const struct prec_view_opts *o;
	FILE *out;
	uint32_t evsel;
	uint64_t total; /* the event's period */
	struct col cols[PREC_VIEW_MAX_FIELDS];
	size_t nr_cols;
	bool by_self; /* children counted, but entries ordered by their own share (-F) */
	bool by_keys; /* entries ordered by the sort keys alone (-F with --sort, as perf) */
};

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

size_t prec_view__pct_text(double p, char *buf)
{
	long double x = (long double)p * 100.0L, f;
	unsigned long long r, ip;
	char tmp[24];
	size_t n = 0, k = 0;

	if (!(p >= 0.0) || p > 1e15) /* not a share: let printf say what it is */
		return (size_t)snprintf(buf, 32, "%.2f%%", p);
	r = (unsigned long long)x; /* exact: x has no more than 60 significant bits */
	f = x - (long double)r;
	if (f > 0.5L || (f == 0.5L && (r & 1)))
		r++;
	ip = r / 100;
	do
		tmp[k++] = (char)('0' + ip % 10);
	while ((ip /= 10));
	while (k)
		buf[n++] = tmp[--k];
	buf[n++] = '.';
	buf[n++] = (char)('0' + r % 100 / 10);
	buf[n++] = (char)('0' + r % 10);
	buf[n++] = '%';
	buf[n] = 0;
	return n;
}

static const char *u64_text(uint64_t v, char *buf)
{
	char *p = buf + 20;

	*p = 0;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	return p;
}

/* The text of column c for entry e: in buf (len >= NAME_MAX_LEN) or a string of the hist. */
static const char *cell(const struct view *v, const struct col *c, const struct prec_entry *e,
			char *buf, size_t len)
{
	const struct prec_hist *h = v->h;

	switch (c->kind) {
	case COL_CHILDREN:
		prec_view__pct_text(pct(e->acc_period, v->total), buf);
		return buf;
	case COL_SELF:
		prec_view__pct_text(pct(e->self_period, v->total), buf);
		return buf;
	case COL_SAMPLES:
		return u64_text(e->self_count, buf);
	case COL_PERIOD:
		return u64_text(e->self_period, buf);
	case COL_KEY:
		break;
	}
	switch (c->key) {
	case PREC_SORT_COMM:
		return e->key.comm ? e->key.comm : "[unknown]";
	/* perf's pid key shows the thread, by its last command; signed, as perf prints it: a
	 * tid of -1 is "-1" */
	case PREC_SORT_PID:
	case PREC_SORT_TID: {
		const char *comm = prec_hist__thread_comm(h, e->key.pid, e->key.tid, e->key.comm);

		snprintf(buf, len, "%7d:%s", (int32_t)e->key.tid, comm ? comm : "");
		return buf;
	}
	case PREC_SORT_CPU:
		snprintf(buf, len, "%3.3d", (int32_t)e->key.cpu);
		return buf;
	case PREC_SORT_DSO:
		return dso_text(h, prec_hist__sframe(h, e->sframe)->dso);
	case PREC_SORT_SYM:
		sym_text(h, e->sframe, buf, len);
		return buf;
	case PREC_SORT_SRCLINE:
		return e->key.srcline ? e->key.srcline : "??:0";
	default:
		return "";
	}
}

static void add_col(struct view *v, enum col_kind kind, enum prec_sort_key key, const char *title,
		    bool right, int width)
{
	struct col *c = &v->cols[v->nr_cols++];

	c->kind = kind;
	c->key = key;
	c->title = title;
	c->right = right;
	c->width = width > (int)strlen(title) ? width : (int)strlen(title);
}

static const char *key_title(enum prec_sort_key k)
{
	switch (k) {
	case PREC_SORT_COMM:
		return "Command";
	case PREC_SORT_PID:
		return "Pid:Command";
	case PREC_SORT_TID:
		return "Tid:Command";
	case PREC_SORT_CPU:
		return "CPU";
	case PREC_SORT_DSO:
		return "Shared Object";
	case PREC_SORT_SYM:
		return "Symbol";
	case PREC_SORT_SRCLINE:
		return "Source:Line";
	default:
		return "?";
	}
}

static uint64_t primary(const struct view *v, const struct prec_entry *e)
{
	return v->h->opts.children ? e->acc_period : e->self_period;
}

/* What the entries are ordered by. */
static uint64_t order_value(const struct view *v, const struct prec_entry *e)
{
	return v->by_self ? e->self_period : primary(v, e);
}

static int cmp_text(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/*
 * The rows' order.  Each row's sort keys are first copied into a compact rowkey: most rows of
 * a big report weigh one or two samples, so most comparisons go down to the names, and on the
 * copies they do not chase entry, frame and DSO first, and a name both sides share (an
 * interned string) needs no strcmp.
 */
struct rowkey {
	uint64_t primary, self;
	const char *comm;
	const char *dso; /* NULL: no shared object */
	const char *sym; /* NULL: no name, by addr */
	uint64_t addr;
	uint32_t depth;
	uint32_t entry;
	bool by_keys; /* ordered by the sort keys alone (-F with --sort) */
};

static void rowkey_of(const struct view *v, uint32_t entry, struct rowkey *k)
{
	const struct prec_hist *h = v->h;
	const struct prec_entry *e = &h->entries[entry];
	const struct prec_sframe *f = prec_hist__sframe(h, e->sframe);
	bool named = f->kind == PREC_SF_SYM || f->kind == PREC_SF_INLINE;

	k->by_keys = v->by_keys;
	k->primary = v->by_keys ? 0 : order_value(v, e);
	k->self = v->by_keys ? 0 : e->self_period;
	k->comm = e->key.comm;
	k->dso = f->dso ? dso_text(h, f->dso) : NULL;
	if (f->dso && !k->dso)
		k->dso = "";
	/* cmp_text() takes a NULL name as "": keep named and unnamed apart */
	k->sym = named ? (f->name ? f->name : "") : NULL;
	k->addr = f->addr;
	k->depth = e->max_depth;
	k->entry = entry;
}

static int cmp_name(const char *a, const char *b)
{
	return a == b ? 0 : cmp_text(a, b);
}

/*
 * Heavier first; with children, perf's "caller above callee when they have equal period",
 * which it applies to entries of one thread (the command stands in for the thread here);
 * then by the sort keys in perf's order: strings and numbers ascending, entries without a
 * shared object first and those without a symbol (addresses, in address order) after the
 * named ones; then as the entries were made.
 */
static int cmp_rowkeys(const struct prec_hist *h, const struct rowkey *x, const struct rowkey *y)
{
	const struct prec_entry *ex = &h->entries[x->entry], *ey = &h->entries[y->entry];
	size_t k;
	int c;

	if (x->primary != y->primary)
		return x->primary < y->primary ? 1 : -1;
	if (h->opts.children && !x->by_keys && x->depth != y->depth && x->comm == y->comm)
		return x->depth > y->depth ? -1 : 1;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	for (k = 0; k < h->opts.nr_keys; k++) {
		switch (h->opts.keys[k]) {
		case PREC_SORT_COMM:
			c = cmp_name(x->comm, y->comm);
			break;
		case PREC_SORT_PID:
		case PREC_SORT_TID:
			c = cmp_u64(ex->key.tid, ey->key.tid);
			break;
		case PREC_SORT_CPU:
			c = cmp_u64(ex->key.cpu, ey->key.cpu);
			break;
		case PREC_SORT_SRCLINE:
			c = cmp_text(ex->key.srcline, ey->key.srcline);
			break;
		case PREC_SORT_DSO:
			if (!x->dso != !y->dso) /* perf: first, but last when ordered by keys */
				return (x->dso ? 1 : -1) * (x->by_keys ? -1 : 1);
			c = x->dso ? cmp_name(x->dso, y->dso) : 0;
			break;
		case PREC_SORT_SYM:
			if (!x->sym != !y->sym)
				return x->sym ? -1 : 1;
			c = x->sym ? cmp_name(x->sym, y->sym) : cmp_u64(x->addr, y->addr);
			break;
		default:
			c = 0;
			break;
		}
		if (c)
			return c;
	}
	return x->entry < y->entry ? -1 : 1;
}

struct rowsort {
	const struct view *v;
	const struct rowkey *k;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct rowsort *rs = arg;

	return cmp_rowkeys(rs->v->h, &rs->k[*(const uint32_t *)a], &rs->k[*(const uint32_t *)b]);
}

/* Without memory for the copies: each comparison makes its two. */
static int cmp_entries(const void *a, const void *b, void *arg)
{
	const struct view *v = arg;
	struct rowkey x, y;

	rowkey_of(v, *(const uint32_t *)a, &x);
	rowkey_of(v, *(const uint32_t *)b, &y);
	return cmp_rowkeys(v->h, &x, &y);
}

/*
 * Without children the comparison is a strict total order (the sort keys in turn, then the
 * entry), so any correct sort gives the one order, and it is made of stable radix sorts
 * instead: by the last key first, the number (descending) last, starting from entry order.
 * A string key sorts by its rank in text order.  On A (26k rows, most of them one sample of
 * one period, so that the names decide) a qsort took 3 ms on two threads, mostly cache
 * misses on the keys.  False, and pos untouched, without memory.
 */

/* pos[0, nr) stably by val[pos[i]], ascending; a is scratch for 2 * nr. */
static void radix_pass(uint32_t *pos, size_t nr, const uint64_t *val, struct prec_radix *a)
{
	struct prec_radix *r;
	size_t i;

	for (i = 0; i < nr; i++) {
		a[i].key = val[pos[i]];
		a[i].val = pos[i];
	}
	r = prec_radix__sort(a, a + nr, nr);
	for (i = 0; i < nr; i++)
		pos[i] = (uint32_t)r[i].val;
}

struct text_group {
	const char *s;
	uint32_t at, n; /* its rows: r[at, at + n) of text_ranks() */
};

_Static_assert(sizeof(struct text_group) <= sizeof(struct prec_radix),
	       "text_ranks() keeps the groups in the radix sort's other half");

static int cmp_group_text(const void *a, const void *b)
{
	return cmp_text(((const struct text_group *)a)->s, ((const struct text_group *)b)->s);
}

/*
 * The ranks in text order (cmp_text) of str[0, nr) into rank[]: equal texts, equal ranks.
 * Names are interned, so the rows share few pointers: grouped by pointer with a radix sort,
 * one string of each group is compared.  a is scratch for 2 * nr.
 */
static void text_ranks(const char *const *str, uint32_t nr, uint64_t *rank,
		       struct prec_radix *a)
{
	struct prec_radix *r;
	struct text_group *g;
	uint32_t i, j, ng = 0;
	uint64_t rk = 0;

	for (i = 0; i < nr; i++) {
		a[i].key = (uintptr_t)str[i];
		a[i].val = i;
	}
	r = prec_radix__sort(a, a + nr, nr);
	g = (struct text_group *)(r == a ? a + nr : a); /* the other half: as many bytes */
	for (i = 0; i < nr; i = j) {
		for (j = i + 1; j < nr && r[j].key == r[i].key; j++)
			;
		g[ng].s = str[r[i].val];
		g[ng].at = i;
		g[ng++].n = j - i;
	}
	qsort(g, ng, sizeof(*g), cmp_group_text);
	for (i = 0; i < ng; i++) {
		if (i && cmp_text(g[i - 1].s, g[i].s))
			rk++;
		for (j = g[i].at; j < g[i].at + g[i].n; j++)
			rank[r[j].val] = rk;
	}
}

static bool sort_by_radix(const struct rowsort *rs, uint32_t *pos, size_t nr)
{
	const struct prec_hist *h = rs->v->h;
	const struct rowkey *k = rs->k;
	/* one block: a radix sort's two halves, then the values and the names */
	struct prec_radix *a = nr <= UINT32_MAX ? malloc(nr * (2 * sizeof(*a) + 16)) : NULL;
	uint64_t *val = a ? (uint64_t *)(a + 2 * nr) : NULL;
	const char **str = a ? (const char **)(val + nr) : NULL;
	size_t i, n = h->opts.nr_keys;

	if (!a)
		return false;

	/* pos is in entry order: the last tie-break holds from the start */
	while (n-- > 0) {
		enum prec_sort_key key = h->opts.keys[n];
		bool text = key == PREC_SORT_COMM || key == PREC_SORT_SRCLINE ||
			    key == PREC_SORT_DSO;
		size_t m;

		for (i = 0; i < nr && text; i++)
			str[i] = key == PREC_SORT_COMM	  ? k[i].comm
				 : key == PREC_SORT_SRCLINE ? h->entries[k[i].entry].key.srcline
							    : k[i].dso;
		if (text)
			text_ranks(str, (uint32_t)nr, val, a);
		switch (key) {
		case PREC_SORT_PID:
		case PREC_SORT_TID:
		case PREC_SORT_CPU:
			for (i = 0; i < nr; i++) {
				const struct prec_entry_key *ek = &h->entries[k[i].entry].key;

				val[i] = key == PREC_SORT_CPU ? ek->cpu : ek->tid;
			}
			radix_pass(pos, nr, val, a);
			break;
		case PREC_SORT_COMM:
		case PREC_SORT_SRCLINE:
			radix_pass(pos, nr, val, a);
			break;
		case PREC_SORT_DSO: /* by name, those without one first */
			radix_pass(pos, nr, val, a);
			for (i = 0; i < nr; i++)
				val[i] = k[i].dso != NULL;
			radix_pass(pos, nr, val, a);
			break;
		case PREC_SORT_SYM: /* named ones by name, then the others by address */
			for (i = 0, m = 0; i < nr; i++)
				if (k[i].sym)
					str[m++] = k[i].sym;
			/* the named rows' ranks, in val[0, m) */
			text_ranks(str, (uint32_t)m, val, a);
			for (i = nr; i-- > 0;) /* spread out: val[i] = rank or address */
				val[i] = k[i].sym ? val[--m] : k[i].addr;
			radix_pass(pos, nr, val, a);
			for (i = 0; i < nr; i++)
				val[i] = k[i].sym == NULL;
			radix_pass(pos, nr, val, a);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < nr; i++)
		val[i] = ~k[i].primary;
	radix_pass(pos, nr, val, a);
	free(a);
	return true;
}

/* Sort rows (entry indices, ascending).  With children, the same qsort_r on the same input
 * whatever the memory, so the same order whatever the comparator's quirks (its
 * caller-above-callee rule is not transitive). */
static void sort_rows(const struct view *v, uint32_t *rows, size_t nr)
{
	struct rowkey *k = malloc(nr * sizeof(*k));
	uint32_t *pos = malloc(nr * sizeof(*pos));
	struct rowsort rs = { v, k };
	size_t i;

	if (!k || !pos) {
		free(k);
		free(pos);
		qsort_r(rows, nr, sizeof(*rows), cmp_entries, (void *)v);
		return;
	}
	for (i = 0; i < nr; i++) {
		rowkey_of(v, rows[i], &k[i]);
		pos[i] = (uint32_t)i;
	}
	if (v->h->opts.children || v->by_keys || !sort_by_radix(&rs, pos, nr))
		qsort_r(pos, nr, sizeof(*pos), cmp_rows, &rs);
	for (i = 0; i < nr; i++)
		rows[i] = k[pos[i]].entry;
	free(k);
	free(pos);
}

/* Rows sorted on a thread of their own (see stdio_event): from this many. */
#define SORT_THREAD_MIN 4096

struct sort_job {
	const struct view *v;
	uint32_t *rows;
	size_t nr;
};

static void *sort_job_main(void *arg)
{
	struct sort_job *j = arg;

	sort_rows(j->v, j->rows, j->nr);
	return NULL;
}

/* ---- call graphs ---- */

struct gnode {
	uint32_t sf;
	uint32_t parent;
	uint32_t first_child, next_sibling; /* 0: none (node 0 is the root) */
	uint32_t hint; /* the child taken last (0: none), tried before the hash */
	uint64_t period; /* of the chains through this node */
	uint64_t end_period; /* of the chains ending here */
	uint64_t count, end_count; /* the same in samples */
};

struct graph {
	struct prec_keyset ids; /* (parent, sframe) -> node id - 1 */
	struct gnode *nodes;
	size_t nr, cap;
	uint32_t *seq;
	size_t seq_cap;
	char *prefix;
	size_t prefix_cap;
};

/* An empty graph (what graph_release() frees). */
static void graph_init(struct graph *g)
{
	memset(g, 0, sizeof(*g));
	prec_keyset__init(&g->ids, 2 * sizeof(uint32_t));
}

static void graph_release(struct graph *g)
{
	prec_keyset__release(&g->ids);
	free(g->nodes);
	free(g->seq);
	free(g->prefix);
}

static long gnode_child(struct graph *g, uint32_t parent, uint32_t sf)
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
static int graph_build(struct graph *g, const struct view *v, const struct prec_entry *e)
{
	const struct prec_hist *h = v->h;
	bool caller = v->o->caller_order;
	uint32_t i;

	prec_keyset__release(&g->ids);
	prec_keyset__init(&g->ids, 2 * sizeof(uint32_t));
	if (prec_array__grow((void **)&g->nodes, &g->cap, 1, sizeof(*g->nodes), 256))
		return -ENOMEM;
	memset(&g->nodes[0], 0, sizeof(g->nodes[0]));
	g->nr = 1;
	for (i = 0; i < e->occ_n; i++) {
		const struct prec_occurrence *oc = &h->occ[e->occ_start + i];
		uint64_t p = prec_hist__node_period(h, oc->node);
		/* counts only when shown: one more array read per occurrence */
		uint64_t nc = v->o->graph_value == PREC_GRAPH_COUNT ?
				      prec_hist__node_count(h, oc->node) : 0;
		/* callers first from a non-leaf position need the stack only down from there */
		long n = caller && oc->pos ?
				 prec_hist__stack_seq_upto(h, oc->node, oc->pos, &g->seq, &g->seq_cap) :
				 prec_hist__stack_seq(h, oc->node, &g->seq, &g->seq_cap);
		long k, id = 0;
		long from, to, step;

		if (n < 0)
			return (int)n;
		if ((long)oc->pos >= n ||
		    (prec_node__frame(&h->node[oc->node]).flags & PREC_FRAME_NOCHAIN))
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
static int cmp_gnodes_pos(const struct prec_hist *h, const struct gnode *x, const struct gnode *y)
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
	const struct gnode *x = *(const struct gnode *const *)a;
	const struct gnode *y = *(const struct gnode *const *)b;

	return cmp_gnodes_pos(arg, x, y);
}

/* Siblings in a call graph: largest first, equals in perf's order. */
static int cmp_gnodes_desc(const void *a, const void *b, void *arg)
{
	const struct gnode *x = *(const struct gnode *const *)a;
	const struct gnode *y = *(const struct gnode *const *)b;

	if (x->period != y->period)
		return x->period < y->period ? 1 : -1;
	return cmp_gnodes_pos(arg, x, y);
}

static bool fractal(const struct view *v)
{
	return v->o->graph == PREC_GRAPH_FRACTAL;
}

/* Of the chains through `node`, those that go on to a callee (perf's children_hit). */
static uint64_t below(const struct graph *g, uint32_t node)
{
	return g->nodes[node].period - g->nodes[node].end_period;
}

/*
 * The children of `node` above the threshold, largest first, malloc'ed; -1 on -ENOMEM.  In
 * fractal mode the threshold is a share of the chains below `node`, rounded up as perf does.
 */
static long visible_kids(const struct view *v, struct graph *g, uint32_t node,
			 struct gnode ***ret)
{
	struct gnode **k = NULL;
	size_t n = 0, cap = 0;
	uint32_t c;
	double x = (double)below(g, node) * v->o->graph_threshold / 100.0;
	uint64_t min_rel = (uint64_t)x + ((double)(uint64_t)x < x); /* ceil */

	for (c = g->nodes[node].first_child; c; c = g->nodes[c].next_sibling) {
		if (fractal(v) ? g->nodes[c].period < min_rel
			       : pct(g->nodes[c].period, v->total) < v->o->graph_threshold)
			continue;
		if (prec_array__grow((void **)&k, &cap, n + 1, sizeof(*k), 4)) {
			free(k);
			return -1;
		}
		k[n++] = &g->nodes[c];
	}
	if (n)
		qsort_r(k, n, sizeof(*k), cmp_gnodes_desc, (void *)v->h);
	*ret = k;
	return (long)n;
}

/* The value a branch or chain shows for node n: of the chains through it, or (`end`) of
 * those that end there; into buf (32 bytes), returns its length. */
static size_t value_text(const struct view *v, const struct gnode *n, bool end, char *buf)
{
	uint64_t x;
	const char *t;

	switch (v->o->graph_value) {
	case PREC_GRAPH_PERIOD:
		x = end ? n->end_period : n->period;
		break;
	case PREC_GRAPH_COUNT:
		x = end ? n->end_count : n->count;
		break;
	default:
		return prec_view__pct_text(pct(end ? n->end_period : n->period, v->total), buf);
	}
	t = u64_text(x, buf);
	memmove(buf, t, strlen(t) + 1);
	return strlen(buf);
}

static int set_prefix(struct graph *g, size_t len)
{
	if (prec_array__grow((void **)&g->prefix, &g->prefix_cap, len + 1, 1, 64))
		return -ENOMEM;
	g->prefix[len] = 0;
	return 0;
}

static int print_branches(const struct view *v, struct graph *g, uint32_t node, size_t plen,
			  uint64_t base);

#define GRAPH_LEVEL 10 /* columns of a graph level after its "|" */

/* Print the single path below `node` (prefix g->prefix[0..plen)), then its branches; in
 * fractal mode their shares are of `base`, or with 0 of the chains below the path. */
static int print_follow(const struct view *v, struct graph *g, uint32_t node, size_t plen,
			uint64_t base)
{
	char buf[NAME_MAX_LEN];

	for (;;) {
		struct gnode **kids;
		long n = visible_kids(v, g, node, &kids);

		if (n < 0)
			return -ENOMEM;
		if (n == 1 && kids[0]->period == g->nodes[node].period) {
			node = (uint32_t)(kids[0] - g->nodes);
			free(kids);
			if (set_prefix(g, plen))
				return -ENOMEM;
			fprintf(v->out, "%s%s\n", g->prefix,
				frame_name(v->h, g->nodes[node].sf, false, buf, sizeof(buf)));
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
static int print_branches(const struct view *v, struct graph *g, uint32_t node, size_t plen,
			  uint64_t base)
{
	char buf[NAME_MAX_LEN], p[48];
	struct gnode **kids;
	long n = visible_kids(v, g, node, &kids), i;
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
			frame_name(v->h, kids[i]->sf, false, buf, sizeof(buf)));
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
static bool skips_own_frame(const struct view *v)
{
	return v->h->opts.keys[0] == PREC_SORT_SYM;
}

/*
 * The tree of entry e, whose weight is `weight`; 1 when it printed something, 0 when nothing
 * was above the threshold, or a negative errno.  A single root is printed without its share
 * when it carries all of the entry's weight (perf: not when some of the entry's samples have
 * no chain, or other roots are below the threshold); with --sort sym, without the entry's own
 * frame (the row above names it), and then the graph goes on from the frame after it, or
 * branches right away.
 */
static int print_graph_tree(const struct view *v, struct graph *g, const struct prec_entry *e,
			    uint64_t weight)
{
	char buf[NAME_MAX_LEN];
	struct gnode **kids;
	long n = visible_kids(v, g, 0, &kids);
	uint32_t kid;
	int err;

	if (n < 0)
		return -ENOMEM;
	if (set_prefix(g, GRAPH_INDENT + 3)) {
		free(kids);
		return -ENOMEM;
	}
	memset(g->prefix, ' ', GRAPH_INDENT + 3);
	if (n != 1 || kids[0]->period != weight) {
		free(kids);
		err = n ? print_branches(v, g, 0, GRAPH_INDENT, weight) : 0;
		return err ? err : n > 0;
	}
	kid = (uint32_t)(kids[0] - g->nodes);
	free(kids);
	if (skips_own_frame(v) && g->nodes[kid].sf == e->sframe) {
		n = visible_kids(v, g, kid, &kids);
		if (n < 0)
			return -ENOMEM;
		if (n != 1 || kids[0]->period != g->nodes[kid].period) {
			free(kids);
			err = n ? print_branches(v, g, kid, GRAPH_INDENT, weight) : 0;
			return err ? err : n > 0;
		}
		kid = (uint32_t)(kids[0] - g->nodes);
		free(kids);
	}
	fprintf(v->out, "%*s|\n%*s---%s\n", GRAPH_INDENT, "", GRAPH_INDENT, "",
		frame_name(v->h, g->nodes[kid].sf, false, buf, sizeof(buf)));
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
	const struct graph *g = arg;
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
static int collect_chains(const struct view *v, struct graph *g, uint32_t node,
			  struct chain_pos *list, size_t *nr)
{
	struct gnode **kids = NULL;
	size_t n = 0, cap = 0, i;
	uint32_t c;
	int err = 0;

	for (c = g->nodes[node].first_child; c; c = g->nodes[c].next_sibling) {
		if (prec_array__grow((void **)&kids, &cap, n + 1, sizeof(*kids), 4)) {
			free(kids);
			return -ENOMEM;
		}
		kids[n++] = &g->nodes[c];
	}
	if (n > 1)
		qsort_r(kids, n, sizeof(*kids), cmp_gnodes_pos_r, (void *)v->h);
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
static int print_chains(const struct view *v, struct graph *g)
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
		const struct gnode *end = &g->nodes[list[i].node];
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
			name = frame_name(v->h, sfid, false, buf, sizeof(buf));

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
static bool graph_shown(const struct view *v, const struct prec_entry *e)
{
	if (fractal(v)) /* its threshold is relative */
		return true;
	return pct(primary(v, e), v->total) >= v->o->graph_threshold;
}

/* Build and print entry e's graph or chains to v->out; a graph with the blank line after it
 * when it printed something. */
static int print_graph(const struct view *v, struct graph *g, const struct prec_entry *e)
{
	int err = graph_build(g, v, e);

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

/* A row put together before it is written: one fwrite a row instead of one per piece
 * (stdio's per-call cost was a quarter of the view on a 14k-row report). */
struct line {
	char *p;
	size_t n, cap;
	bool failed; /* out of memory: pieces go straight to the stream */
};

/* Room for `more` bytes; false (and the line written out, from now on pieces go straight to
 * the stream) when there is no memory for it. */
static bool line_room(struct line *l, FILE *out, size_t more)
{
	if (!l->failed && !prec_array__grow((void **)&l->p, &l->cap, l->n + more, 1, 256))
		return true;
	if (!l->failed && l->n)
		fwrite(l->p, 1, l->n, out);
	l->failed = true;
	l->n = 0;
	return false;
}

static inline void line_put(struct line *l, FILE *out, const char *t, size_t n, size_t pad)
{
	if (!n && !pad) /* nothing; and l->p may still be NULL */
		return;
	if (l->cap - l->n < n + pad && !line_room(l, out, n + pad)) {
		fwrite(t, 1, n, out);
		while (pad--)
			fputc(' ', out);
		return;
	}
	memcpy(l->p + l->n, t, n);
	if (pad)
		memset(l->p + l->n + n, ' ', pad);
	l->n += n + pad;
}

/* t in a field of `width` columns, right- or left-aligned (printf's %*s without printf). */
static void put_padded(struct line *l, FILE *out, const char *t, int width, bool right)
{
	size_t n = strlen(t);
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

	if (right)
		line_put(l, out, "", 0, pad);
	line_put(l, out, t, n, right ? 0 : pad);
}

/* Entry e's row: written to v->out in one piece, built in `row`. */
static void print_row(const struct view *v, const struct prec_entry *e, struct line *row)
{
	const char *sep = v->o->field_sep;
	char buf[NAME_MAX_LEN];
	size_t c;

	row->n = 0;
	line_put(row, v->out, sep ? "" : "  ", sep ? 0 : 2, 0);
	for (c = 0; c < v->nr_cols; c++) {
		const struct col *col = &v->cols[c];
		const char *t = cell(v, col, e, buf, sizeof(buf));

		if (sep) {
			line_put(row, v->out, sep, c ? strlen(sep) : 0, 0);
			line_put(row, v->out, t, strlen(t), 0);
		} else if (c + 1 == v->nr_cols && col->kind == COL_KEY &&
			   (col->key == PREC_SORT_SYM || col->key == PREC_SORT_SRCLINE)) {
			/* perf pads every last column but these */
			line_put(row, v->out, "  ", c ? 2 : 0, 0);
			line_put(row, v->out, t, strlen(t), 0);
		} else {
			line_put(row, v->out, "  ", c ? 2 : 0, 0);
			put_padded(row, v->out, t, col->width, col->right);
		}
	}
	line_put(row, v->out, "\n", 1, 0);
	if (row->n)
		fwrite(row->p, 1, row->n, v->out);
}

/* Entry e's row, then, with `graphs`, its graph.  A graph with nothing above the threshold
 * prints nothing, not even the blank line that ends a graph (perf: "do not add a blank line
 * if it printed nothing"). */
static int print_entry(const struct view *v, struct graph *g, const struct prec_entry *e,
		       struct line *row, bool graphs)
{
	print_row(v, e, row);
	if (graphs && e->occ_n && graph_shown(v, e))
		return print_graph(v, g, e);
	return 0;
}

#define ROW_AHEAD 4

/* Entries rows[0, nr), each with its graph. */
static int print_entries(const struct view *v, struct graph *g, const uint32_t *rows, size_t nr,
			 struct line *row)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		/* the rows ahead: their entries, then (fetched by now) their sframes */
		if (i + 2 * ROW_AHEAD < nr)
			__builtin_prefetch(&v->h->entries[rows[i + 2 * ROW_AHEAD]]);
		if (i + ROW_AHEAD < nr)
			__builtin_prefetch(
				prec_hist__sframe(v->h, v->h->entries[rows[i + ROW_AHEAD]].sframe));
		err = print_entry(v, g, &v->h->entries[rows[i]], row, true);
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
	struct view v; /* the helper's copy; out is its memory stream */
	struct graph g;
	struct line row;
	pthread_t thread;
};

/* Print job j into memory with view v's settings (its out is replaced), graph g and row
 * buffer `row`. */
static void draw_job(struct view v, struct graph *g, struct line *row, struct gjob *j)
{
	FILE *f = open_memstream(&j->text, &j->len);

	if (!f) {
		j->err = -ENOMEM;
		return;
	}
	v.out = f;
	j->err = print_entries(&v, g, j->rows, j->nr, row);
	if (fclose(f) && !j->err)
		j->err = -ENOMEM;
}

/* Take the next job and draw it; called and returning with p->lock held. */
static void take_and_draw(struct gpool *p, const struct view *v, struct graph *g, struct line *row)
{
	struct gjob *j = &p->jobs[p->next++];

	pthread_mutex_unlock(&p->lock);
	draw_job(*v, g, row, j);
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
static int gpool_print(struct gpool *p, const struct view *v, struct graph *g, struct line *row,
		       size_t k)
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

/* Start the helper on jobs; false (and nothing to undo) if it cannot start. */
static bool gpool_start(struct gpool *p, const struct view *v, struct gjob *jobs, size_t nr)
{
	memset(p, 0, sizeof(*p));
	p->jobs = jobs;
	p->nr = nr;
	p->v = *v;
	graph_init(&p->g);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->done, NULL);
	if (pthread_create(&p->thread, NULL, graph_helper, p)) {
		pthread_cond_destroy(&p->done);
		pthread_mutex_destroy(&p->lock);
		return false;
	}
	return true;
}

/* Stop the helper: no job is left for it to take, then it is joined. */
static void gpool_stop(struct gpool *p)
{
	size_t k;

	pthread_mutex_lock(&p->lock);
	p->next = p->nr;
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	for (k = 0; k < p->nr; k++)
		free(p->jobs[k].text);
	free(p->row.p);
	graph_release(&p->g);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
}

/* ---- the stdio view ---- */

static void print_event_header(const struct view *v)
{
	const struct prec_hist *h = v->h;
	const struct prec_evsel_stats *st = &h->ev[v->evsel];
	const struct prec_view_evsel *ve = v->o->evsels ? &v->o->evsels[v->evsel] : NULL;
	uint64_t lost = ve ? ve->lost_samples : 0, n = st->nr_samples;
	char unit = ' ';
	size_t i, shown = 0;

	fprintf(v->out, "#\n# Total Lost Samples: %" PRIu64, lost);
	if (lost)
		fprintf(v->out, " (%.2f%% of %" PRIu64 ")", pct(lost, lost + st->nr_samples),
			lost + st->nr_samples);
	fputs("\n#\n", v->out);
	if (n > 1000) {
		n /= 1000;
		unit = 'K';
	}
	if (n > 1000) {
		n /= 1000;
		unit = 'M';
	}
	fprintf(v->out, "# Samples: %" PRIu64 "%c of event '%s'\n", n, unit,
		ve && ve->name ? ve->name : "unknown");
	fprintf(v->out, "# Event count (approx.): %" PRIu64 "\n", st->period);
	if (st->unsym_period) {
		double u = pct(st->unsym_period, st->period);

		if (u < 0.01)
			fputs("# Not symbolized: <0.01% of the event count", v->out);
		else
			fprintf(v->out, "# Not symbolized: %.2f%% of the event count", u);
		for (i = 0; i < h->nr_unsym && shown < 4; i++) {
			struct prec_dso *d = prec_hist__dso(h, h->unsym[i].dso);

			if (pct(h->unsym[i].period, st->period) < 0.01)
				continue;
			fprintf(v->out, "%s %s %.2f%% (%s)", shown ? ";" : ":",
				d ? prec_dso__short_name(d) : "[unknown]",
				pct(h->unsym[i].period, st->period),
				!d ? "no mapping"
				   : prec_dso__status(d) == PREC_DSO_OK
					     ? "no symbol at the address"
					     : prec_dso_status__str(prec_dso__status(d)));
			shown++;
		}
		fputc('\n', v->out);
	}
	if (ve && ve->broken_period) {
		double b = pct(ve->broken_period, st->period);

		fprintf(v->out,
			"# Broken stacks: %s%.2f%% of the event count (the stack copy ended before "
			"the outermost caller; record with a larger --call-graph dwarf,SIZE)\n",
			b < 0.01 ? "<" : "", b < 0.01 ? 0.01 : b);
	}
	fputs("#\n", v->out);
}

/* The width of column c for entry e.  cell() hands names over as they are and formats the
 * rest without printf, so measuring a cell costs little more than a strlen. */
static int cell_width(const struct view *v, const struct col *c, const struct prec_entry *e)
{
	char buf[NAME_MAX_LEN];

	return (int)strlen(cell(v, c, e, buf, sizeof(buf)));
}

static void widen(struct col *c, int w)
{
	if (w > c->width)
		c->width = w;
}

/* The number a number column shows for e. */
static uint64_t col_number(const struct col *c, const struct prec_entry *e)
{
	switch (c->kind) {
	case COL_CHILDREN:
		return e->acc_period;
	case COL_SELF:
	case COL_PERIOD:
		return e->self_period;
	default:
		return e->self_count;
	}
}

/* Widen column c to its widest cell among rows.  Numbers print wider as they grow, so only
 * the largest of a number column is formatted. */
static void col_width(struct view *v, struct col *c, const uint32_t *rows, size_t nr)
{
	const struct prec_entry *widest = NULL;
	size_t i;

	if (c->kind != COL_KEY) {
		for (i = 0; i < nr; i++) {
			const struct prec_entry *e = &v->h->entries[rows[i]];

			if (!widest || col_number(c, e) > col_number(c, widest))
				widest = e;
		}
		if (widest)
			widen(c, cell_width(v, c, widest));
		return;
	}
	for (i = 0; i < nr; i++)
		widen(c, cell_width(v, c, &v->h->entries[rows[i]]));
}

static int stdio_event(struct view *v, struct graph *g)
{
	struct gjob *jobs = NULL;
	struct gpool pool;
	size_t njobs;
	bool pooled = false;
	struct prec_hist *h = v->h;
	const struct prec_view_opts *o = v->o;
	const char *sep = o->field_sep;
	bool graphs = o->graph != PREC_GRAPH_NONE && !sep;
	uint32_t *rows = NULL, i;
	size_t nr = 0, c;
	struct line row = { 0 };
	struct sort_job sj = { 0 };
	pthread_t sorter;
	int err = 0;

	rows = malloc(((size_t)h->nr_entries + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < h->nr_entries; i++) {
		const struct prec_entry *e = &h->entries[i];

		if (e->key.evsel != v->evsel || !primary(v, e))
			continue;
		if ((h->opts.dso_filter || h->opts.sym_filter) &&
		    !prec_hist__sframe_shown(h, e->sframe))
			continue;
		if (o->hide_unresolved && prec_hist__sframe(h, e->sframe)->kind != PREC_SF_SYM &&
		    prec_hist__sframe(h, e->sframe)->kind != PREC_SF_INLINE)
			continue;
		rows[nr++] = i;
	}
	/* a big report's rows are sorted on another thread, a copy of them, while the columns'
	 * widths are measured here */
	if (nr >= SORT_THREAD_MIN && (sj.rows = malloc(nr * sizeof(*rows)))) {
		memcpy(sj.rows, rows, nr * sizeof(*rows));
		sj.v = v;
		sj.nr = nr;
		if (pthread_create(&sorter, NULL, sort_job_main, &sj)) {
			free(sj.rows);
			sj.rows = NULL;
		}
	}
	/* the columns fit every entry, also those --percent-limit hides, as in perf; measured
	 * before the sort, with the rows in the order of the entries in memory (in sorted order
	 * each row's entry, frame and name were a cache miss: 8-12 ms of 26k rows) */
	for (c = 0; c < v->nr_cols && !sep; c++)
		col_width(v, &v->cols[c], rows, nr);
	if (sj.rows) {
		pthread_join(sorter, NULL);
		free(rows);
		rows = sj.rows;
	} else if (nr) {
		sort_rows(v, rows, nr);
	}
	/* the hidden ones are the smallest, so the last rows (--percent-limit is of Children
	 * with children, also when -F orders the rows by their own share) */
	if (v->by_self) {
		size_t kept = 0;

		for (i = 0; i < nr; i++)
			if (pct(primary(v, &h->entries[rows[i]]), v->total) >= o->percent_limit)
				rows[kept++] = rows[i];
		nr = kept;
	}
	while (nr && pct(primary(v, &h->entries[rows[nr - 1]]), v->total) < o->percent_limit)
		nr--;
	print_event_header(v);
	if (sep) {
		fputs("# ", v->out);
		for (c = 0; c < v->nr_cols; c++)
			fprintf(v->out, "%s%s", c ? sep : "", v->cols[c].title);
		fputc('\n', v->out);
	} else {
		fputs("# ", v->out);
		for (c = 0; c < v->nr_cols; c++)
			fprintf(v->out, "%s%*s", c ? "  " : "",
				v->cols[c].right ? v->cols[c].width : -v->cols[c].width,
				v->cols[c].title);
		fputs("\n# ", v->out);
		for (c = 0; c < v->nr_cols; c++) {
			int k;

			fputs(c ? "  " : "", v->out);
			for (k = 0; k < v->cols[c].width; k++)
				fputc('.', v->out);
		}
		fputs("\n#\n", v->out);
	}
	/* with graphs, a second thread helps once there are two entries or more */
	njobs = 0;
	if (graphs && nr >= 2) {
		size_t at = 0;

		jobs = calloc(nr, sizeof(*jobs));
		if (!jobs) {
			free(rows);
			return -ENOMEM;
		}
		for (; at < nr; njobs++) {
			size_t want = njobs / 2 < 5 ? (size_t)1 << (njobs / 2) : GJOB_ROWS;

			jobs[njobs].rows = rows + at;
			jobs[njobs].nr = nr - at < want ? nr - at : want;
			at += jobs[njobs].nr;
		}
		pooled = gpool_start(&pool, v, jobs, njobs);
	}
	if (pooled)
		for (i = 0; i < njobs && !err; i++)
			err = gpool_print(&pool, v, g, &row, i);
	else
		for (i = 0; i < nr && !err; i++)
			err = print_entry(v, g, &h->entries[rows[i]], &row, graphs);
	if (pooled)
		gpool_stop(&pool);
	free(row.p);
	free(jobs);
	fputs("\n\n", v->out);
	free(rows);
	return err;
}

/* -F's columns; without Children among them, entries go by their own share as in perf, and
 * the own share is "Overhead" either way. */
static void add_fields(struct view *v)
{
	const struct prec_view_opts *o = v->o;
	bool children = false;
	size_t i;

	for (i = 0; i < o->nr_fields; i++)
		children |= o->fields[i].col == PREC_COL_CHILDREN;
	v->by_self = v->h->opts.children && !children;
	for (i = 0; i < o->nr_fields && i < PREC_VIEW_MAX_FIELDS; i++) {
		static const struct {
			const char *title;
			int width;
		} num[] = { [PREC_COL_CHILDREN] = { "Children", 8 },
			    [PREC_COL_SELF] = { "Overhead", 8 },
			    [PREC_COL_SAMPLES] = { "Samples", 12 },
			    [PREC_COL_PERIOD] = { "Period", 12 } };
		const struct prec_view_field *f = &o->fields[i];

		if (f->col == PREC_COL_KEY)
			add_col(v, COL_KEY, f->key, key_title(f->key), false, 0);
		else
			add_col(v, (enum col_kind)f->col, 0, num[f->col].title, true,
				num[f->col].width);
	}
	/* with --sort, perf adds the sort keys -F lacks and orders the entries by the keys */
	v->by_keys = o->fields_sorted;
	for (i = 0; i < v->h->opts.nr_keys && o->fields_sorted; i++) {
		enum prec_sort_key k = v->h->opts.keys[i];
		size_t j;

		for (j = 0; j < o->nr_fields; j++)
			if (o->fields[j].col == PREC_COL_KEY && o->fields[j].key == k)
				break;
		if (j == o->nr_fields && v->nr_cols < PREC_VIEW_MAX_FIELDS)
			add_col(v, COL_KEY, k, key_title(k), false, 0);
	}
}

int prec_view__stdio(struct prec_hist *h, const struct prec_view_opts *o, FILE *out)
{
	struct graph g;
	struct view v;
	uint32_t ev;
	size_t k;
	int err = 0;

	graph_init(&g);
	if (!o->field_sep)
		fputs("# To display the recording's header, use --header or --header-only.\n#\n", out);
	for (ev = 0; ev < h->nr_ev && !err; ev++) {
		if (!h->ev[ev].nr_samples && h->nr_ev > 1)
			continue;
		memset(&v, 0, sizeof(v));
		v.h = h;
		v.o = o;
		v.out = out;
		v.evsel = ev;
		v.total = h->ev[ev].period;
		if (o->nr_fields) {
			add_fields(&v);
		} else if (h->opts.children) {
			add_col(&v, COL_CHILDREN, 0, "Children", true, 8);
			add_col(&v, COL_SELF, 0, "Self", true, 8);
		} else {
			add_col(&v, COL_SELF, 0, "Overhead", true, 8);
		}
		if (!o->nr_fields && o->show_nr_samples)
			add_col(&v, COL_SAMPLES, 0, "Samples", true, 12);
		if (!o->nr_fields && o->show_total_period)
			add_col(&v, COL_PERIOD, 0, "Period", true, 12);
		for (k = 0; k < h->opts.nr_keys && !o->nr_fields; k++)
			add_col(&v, COL_KEY, h->opts.keys[k], key_title(h->opts.keys[k]), false, 0);
		err = stdio_event(&v, &g);
	}
	graph_release(&g);
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

/* ---- folded stacks ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int prec_view__folded(struct prec_hist *h, FILE *out)
{
	struct prec_strset lines;
	struct prec_keyset ids; /* interned line pointer -> id */
	const char **order = NULL;
	uint64_t *counts = NULL;
	size_t counts_cap = 0, order_cap = 0, seq_cap = 0, len_cap = 0, i;
	uint32_t *seq = NULL, node;
	char *line = NULL, buf[NAME_MAX_LEN];
	int err = -ENOMEM;

	memset(&lines, 0, sizeof(lines));
	prec_keyset__init(&ids, sizeof(uintptr_t));
	for (node = 0; node < h->nr_nodes; node++) {
		const struct prec_ctx_key *ck;
		const char *s;
		uintptr_t key;
		size_t len = 0;
		long n, k, id;
		bool is_new;

		if (!prec_hist__node_count(h, node))
			continue;
		n = prec_hist__stack_seq(h, node, &seq, &seq_cap);
		if (n < 0)
			goto out;
		ck = prec_hist__ctx(h, prec_hist__node_ctx(h, node));
		for (k = n; k >= -1; k--) {
			size_t l;

			if (k == n)
				s = ck->comm ? ck->comm : "[unknown]";
			else if (k >= 0)
				s = frame_name(h, seq[k], true, buf, sizeof(buf));
			else
				break;
			l = strlen(s);
			if (prec_array__grow((void **)&line, &len_cap, len + l + 2, 1, 256))
				goto out;
			if (k != n)
				line[len++] = ';';
			memcpy(line + len, s, l);
			len += l;
			line[len] = 0;
		}
		s = prec_strset__intern(&lines, line);
		if (!s)
			goto out;
		key = (uintptr_t)s;
		id = prec_keyset__intern(&ids, &key, &is_new);
		if (id < 0)
			goto out;
		if (prec_array__grow((void **)&counts, &counts_cap, (size_t)id + 1, sizeof(*counts),
				     256) ||
		    prec_array__grow((void **)&order, &order_cap, (size_t)id + 1, sizeof(*order), 256))
			goto out;
		if (is_new) {
			counts[id] = 0;
			order[id] = s;
		}
		counts[id] += prec_hist__node_count(h, node);
	}
	/* sorted lines, each with its count: find the count back through the id table */
	if (ids.n)
		qsort(order, ids.n, sizeof(*order), cmp_str);
	for (i = 0; i < ids.n; i++) {
		uintptr_t key = (uintptr_t)order[i];
		long id = prec_keyset__find(&ids, &key);

		fprintf(out, "%s %" PRIu64 "\n", order[i], id >= 0 ? counts[id] : 0);
	}
	err = ferror(out) ? -EIO : 0;
out:
	prec_strset__release(&lines);
	prec_keyset__release(&ids);
	free(order);
	free(counts);
	free(seq);
	free(line);
	return err;
}
