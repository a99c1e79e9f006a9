/* SPDX-License-Identifier: MIT */
/*
 * The --stdio view's rows and columns, and the sort keys.  Per event, the entries to show
 * are chosen, their columns sized from all of them (also those --percent-limit then hides,
 * as perf does) and sorted: by weight, then by the sort keys in turn, then by entry id (a
 * second thread sorts a big report's rows while the widths are measured).  Each row is
 * built in a buffer and written in one piece; prec_view_graph.c prints the graph under it.
 * The sort keys are one table, sort_keys[]: name, column title, padding, comparison and
 * cell text of each.
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
#include "prec_view_int.h"

/* ---- text of a symbolized frame ---- */

static const char *dso_text(const struct prec_hist *h, uint32_t dso_id)
{
	struct prec_dso *d = prec_hist__dso(h, dso_id);

	return d ? prec_dso__short_name(d) : "[unknown]";
}

bool prec_view_stack_of(const struct prec_hist *h, uint32_t stack, uint32_t evsel)
{
	struct prec_hist_sample s;

	if (evsel == PREC_VIEW_ALL_EVENTS || prec_hist__nr_events(h) < 2)
		return true;
	prec_hist__stack_sample(h, stack, &s);
	return s.evsel == evsel;
}

/* The function name as a call graph or folded stack shows it. */
const char *prec_view_frame_name(const struct prec_hist *h, uint32_t sfid, bool folded, char *buf,
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

/* "0x%016llx", or "%016llx" for a zero (perf's "%-#.*llx": printf gives no 0x to a zero),
 * without printf: a report can have thousands of unsymbolized addresses, each formatted
 * twice (width, then line). */
static void addr_text(uint64_t a, char *p)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	if (a) {
		*p++ = '0';
		*p++ = 'x';
	}
	for (i = 15; i >= 0; i--)
		*p++ = digits[(a >> (4 * i)) & 15];
	*p = 0;
}

/* The Symbol column: the mode ("[.]", "[k]"), then the name as a call graph shows it, or the
 * address in perf's width ("[.] 0x00000000000011a9"). */
static void sym_text(const struct prec_hist *h, uint32_t sfid, char *buf, size_t len)
{
	const struct prec_sframe *sf = prec_hist__sframe(h, sfid);
	const char *name;
	size_t n;

	if (sf->kind == PREC_SF_ADDR || sf->kind == PREC_SF_NOMAP) {
		addr_text(sf->addr, buf + 4); /* 19 bytes; every caller's buffer is larger */
	} else {
		name = prec_view_frame_name(h, sfid, false, buf + 4, len - 4);
		n = strlen(name);
		if (n + 5 > len)
			n = len - 5;
		memmove(buf + 4, name, n);
		buf[4 + n] = 0;
	}
	memcpy(buf, sf->kernel ? "[k] " : "[.] ", 4);
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
};

static int cmp_name(const char *a, const char *b)
{
	return a == b ? 0 : cmp_text(a, b);
}

/* Addresses as perf orders them: by their difference taken as signed (so 0xffff... comes
 * before 0x5555...) */
static int cmp_addr(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0 ? -1 : a != b;
}

/* ---- the sort keys ---- */

static int cmp_comm(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	(void)v;
	return cmp_name(x->comm, y->comm);
}

static int cmp_tid(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	return cmp_u64(v->entries[x->entry].key.tid, v->entries[y->entry].key.tid);
}

static int cmp_cpu(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	return cmp_u64(v->entries[x->entry].key.cpu, v->entries[y->entry].key.cpu);
}

static int cmp_srcline(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	return cmp_text(v->entries[x->entry].key.srcline, v->entries[y->entry].key.srcline);
}

/* by name; those without a shared object last, as perf */
static int cmp_dso(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	(void)v;
	if (!x->dso != !y->dso)
		return x->dso ? -1 : 1;
	return x->dso ? cmp_name(x->dso, y->dso) : 0;
}

/* named ones by name, then the others by address (perf holds them equal and keeps them in
 * its own order of them, which is cmp_addr()'s) */
static int cmp_sym(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	(void)v;
	if (!x->sym != !y->sym)
		return x->sym ? -1 : 1;
	return x->sym ? cmp_name(x->sym, y->sym) : cmp_addr(x->addr, y->addr);
}

static const char *text_comm(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	(void)h, (void)buf;
	return e->key.comm ? e->key.comm : "[unknown]";
}

/* perf's pid key shows the thread, by its last command; signed, as perf prints it: a tid of
 * -1 is "-1" */
static const char *text_tid(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	const char *comm = prec_hist__thread_comm(h, e->key.pid, e->key.tid, e->key.comm);

	snprintf(buf, NAME_MAX_LEN, "%7d:%s", (int32_t)e->key.tid, comm ? comm : "");
	return buf;
}

static const char *text_cpu(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	(void)h;
	snprintf(buf, NAME_MAX_LEN, "%3.3d", (int32_t)e->key.cpu);
	return buf;
}

static const char *text_dso(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	(void)buf;
	return dso_text(h, prec_hist__sframe(h, e->sframe)->dso);
}

static const char *text_sym(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	sym_text(h, e->sframe, buf, NAME_MAX_LEN);
	return buf;
}

static const char *text_srcline(const struct prec_hist *h, const struct prec_entry *e, char *buf)
{
	(void)h, (void)buf;
	return e->key.srcline ? e->key.srcline : "??:0";
}

/*
 * The sort keys, by enum prec_sort_key: a new key is an entry here (and its part of the
 * entry's key in prec_hist.c).  A key's column is as wide as its widest text, and padded to
 * that width also as the last column unless pad_last is false (perf's rule for sym and
 * srcline).  cmp orders two rows by the key, ascending.  text gives the cell: in buf
 * (NAME_MAX_LEN bytes) or a string of the hist.
 */
static const struct sort_key {
	const char *name, *alias; /* for --sort and -F; alias: perf's long name */
	const char *title;
	bool pad_last;
	int (*cmp)(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y);
	const char *(*text)(const struct prec_hist *h, const struct prec_entry *e, char *buf);
} sort_keys[PREC_SORT__MAX] = {
	[PREC_SORT_COMM] = { "comm", "command", "Command", true, cmp_comm, text_comm },
	[PREC_SORT_PID] = { "pid", NULL, "Pid:Command", true, cmp_tid, text_tid },
	[PREC_SORT_TID] = { "tid", NULL, "Tid:Command", true, cmp_tid, text_tid },
	[PREC_SORT_DSO] = { "dso", NULL, "Shared Object", true, cmp_dso, text_dso },
	[PREC_SORT_SYM] = { "sym", "symbol", "Symbol", false, cmp_sym, text_sym },
	[PREC_SORT_SRCLINE] = { "srcline", NULL, "Source:Line", false, cmp_srcline, text_srcline },
	[PREC_SORT_CPU] = { "cpu", NULL, "CPU", true, cmp_cpu, text_cpu },
};

/* a name of the list [p, p + len) */
static bool key_is(const char *name, const char *p, size_t len)
{
	return name && strlen(name) == len && !strncmp(p, name, len);
}

int prec_sort_keys__parse(const char *list, enum prec_sort_key *keys, size_t *ret_nr,
			  const char **ret_bad, size_t *ret_bad_len)
{
	const char *p;
	size_t nr = 0, len;

	for (p = list; *p; p += len + (p[len] == ',')) {
		int k, found = -1;

		len = strcspn(p, ",");
		for (k = 0; k < PREC_SORT__MAX && found < 0; k++)
			if (key_is(sort_keys[k].name, p, len) || key_is(sort_keys[k].alias, p, len))
				found = k;
		if (found < 0 && key_is("overhead", p, len))
			continue; /* perf's Overhead column, always shown: not a key of ours */
		if (found < 0 || nr == PREC_HIST_MAX_KEYS) {
			*ret_bad = p;
			*ret_bad_len = len;
			return -EINVAL;
		}
		keys[nr++] = (enum prec_sort_key)found;
	}
	if (!nr) {
		*ret_bad = list;
		*ret_bad_len = 0;
		return -EINVAL;
	}
	*ret_nr = nr;
	return 0;
}

const char *prec_sort_key__name(enum prec_sort_key k)
{
	return (unsigned)k < PREC_SORT__MAX ? sort_keys[k].name : NULL;
}

/* ---- flat entries ---- */

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

/* v in decimal, in buf (21 bytes at least), without printf as the percentages. */
static const char *u64_text(uint64_t v, char *buf)
{
	char *p = buf + 20;

	*p = 0;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	return p;
}

/* The text of column c for entry e: in buf (NAME_MAX_LEN bytes) or a string of the hist. */
static const char *cell(const struct prec_view *v, const struct prec_column *c,
			const struct prec_entry *e, char *buf)
{
	switch (c->kind) {
	case PREC_COL_CHILDREN:
		prec_view__pct_text(pct(e->acc_period, v->total), buf);
		return buf;
	case PREC_COL_SELF:
		prec_view__pct_text(pct(e->self_period, v->total), buf);
		return buf;
	case PREC_COL_SAMPLES:
		return u64_text(e->self_count, buf);
	case PREC_COL_PERIOD:
		return u64_text(e->self_period, buf);
	case PREC_COL_KEY:
		break;
	}
	return sort_keys[c->key].text(v->h, e, buf);
}

/* A column: a number's, right-aligned, at least as wide as perf makes it; or a key's. */
static void add_col(struct prec_view *v, enum prec_view_col kind, enum prec_sort_key key)
{
	static const struct {
		const char *title;
		int width;
	} num[] = { [PREC_COL_CHILDREN] = { "Children", 8 },
		    [PREC_COL_SELF] = { "Overhead", 8 },
		    [PREC_COL_SAMPLES] = { "Samples", 12 },
		    [PREC_COL_PERIOD] = { "Period", 12 } };
	struct prec_column *c = &v->cols[v->nr_cols++];

	c->kind = kind;
	c->key = key;
	c->right = kind != PREC_COL_KEY;
	c->title = c->right ? num[kind].title : sort_keys[key].title;
	c->width = c->right ? num[kind].width : (int)strlen(c->title);
}

static void rowkey_of(const struct prec_view *v, uint32_t entry, struct rowkey *k)
{
	const struct prec_hist *h = v->h;
	const struct prec_entry *e = &v->entries[entry];
	const struct prec_sframe *f = prec_hist__sframe(h, e->sframe);
	bool named = f->kind == PREC_SF_SYM || f->kind == PREC_SF_INLINE;

	k->primary = v->by_keys ? 0 : v->by_self ? e->self_period : primary(v, e);
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

/*
 * Heavier first; with children and call graphs, perf's "caller above callee when they have
 * equal period", which it applies to entries of one thread (the command stands in for the
 * thread here); then by the sort keys in perf's order: strings and numbers ascending, entries
 * without a shared object last and those without a symbol (addresses, as cmp_addr() orders
 * them) after the named ones; then as the entries were made.
 */
static int cmp_rowkeys(const struct prec_view *v, const struct rowkey *x, const struct rowkey *y)
{
	size_t k;
	int c;

	if (x->primary != y->primary)
		return x->primary < y->primary ? 1 : -1;
	if (v->by_depth && x->depth != y->depth && x->comm == y->comm) {
		/* deeper first in caller order (a caller's chain down to the leaf is longer),
		 * shallower first in callee order (its chain up to the root is shorter) */
		bool first = v->ho->callee_order ? x->depth < y->depth : x->depth > y->depth;

		return first ? -1 : 1;
	}
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	for (k = 0; k < v->ho->nr_keys; k++) {
		c = sort_keys[v->ho->keys[k]].cmp(v, x, y);
		if (c)
			return c;
	}
	return x->entry < y->entry ? -1 : 1;
}

struct rowsort {
	const struct prec_view *v;
	const struct rowkey *k;
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct rowsort *rs = arg;

	return cmp_rowkeys(rs->v, &rs->k[*(const uint32_t *)a], &rs->k[*(const uint32_t *)b]);
}

/* Sort rows (entry indices, ascending).  0 or -ENOMEM.  With children the comparison's
 * caller-above-callee rule is not transitive: the order is qsort_r's on this input. */
static int sort_rows(const struct prec_view *v, uint32_t *rows, size_t nr)
{
	struct rowkey *k = malloc(nr * sizeof(*k));
	uint32_t *pos = malloc(nr * sizeof(*pos));
	struct rowsort rs = { v, k };
	size_t i;

	if (k && pos) {
		for (i = 0; i < nr; i++) {
			rowkey_of(v, rows[i], &k[i]);
			pos[i] = (uint32_t)i;
		}
		qsort_r(pos, nr, sizeof(*pos), cmp_rows, &rs);
		for (i = 0; i < nr; i++)
			rows[i] = k[pos[i]].entry;
	}
	free(k);
	free(pos);
	return k && pos ? 0 : -ENOMEM;
}

/* Rows sorted on a thread of their own (see stdio_event): from this many. */
#define SORT_THREAD_MIN 4096

struct sort_job {
	const struct prec_view *v;
	uint32_t *rows;
	size_t nr;
	int err;
};

static void *sort_job_main(void *arg)
{
	struct sort_job *j = arg;

	j->err = sort_rows(j->v, j->rows, j->nr);
	return NULL;
}

/* Piece t (n bytes), then pad spaces, onto the row; without memory for them the row fails. */
static inline void line_put(struct prec_line *l, const char *t, size_t n, size_t pad)
{
	if (l->failed || (!n && !pad)) /* nothing to do; and l->p may still be NULL */
		return;
	if (l->cap - l->n < n + pad &&
	    prec_array__grow((void **)&l->p, &l->cap, l->n + n + pad, 1, 256)) {
		l->failed = true;
		return;
	}
	memcpy(l->p + l->n, t, n);
	if (pad)
		memset(l->p + l->n + n, ' ', pad);
	l->n += n + pad;
}

int prec_view_print_row(const struct prec_view *v, const struct prec_entry *e,
			struct prec_line *row)
{
	const char *sep = v->o->field_sep;
	char buf[NAME_MAX_LEN];
	size_t c;

	row->n = 0;
	line_put(row, "  ", sep ? 0 : 2, 0);
	for (c = 0; c < v->nr_cols; c++) {
		const struct prec_column *col = &v->cols[c];
		const char *t = cell(v, col, e, buf);
		size_t n = strlen(t), width = 0, pad;

		/* padded to the column's width (printf's %*s), unless with -t, or in the last
		 * column a key that perf leaves unpadded there */
		if (!sep && (c + 1 < v->nr_cols || col->kind != PREC_COL_KEY ||
			     sort_keys[col->key].pad_last))
			width = (size_t)col->width;
		pad = width > n ? width - n : 0;
		if (sep)
			line_put(row, sep, c ? strlen(sep) : 0, 0);
		else /* a constant gap: its copy is inlined */
			line_put(row, "  ", c ? 2 : 0, col->right ? pad : 0);
		line_put(row, t, n, col->right ? 0 : pad);
	}
	line_put(row, "\n", 1, 0);
	if (row->failed)
		return -ENOMEM;
	fwrite(row->p, 1, row->n, v->out);
	return 0;
}

/* ---- the stdio view ---- */

static void print_event_header(const struct prec_view *v)
{
	const struct prec_hist *h = v->h;
	const struct prec_evsel_stats *st = prec_hist__event(h, v->evsel);
	const struct prec_view_evsel *ve = v->o->evsels ? &v->o->evsels[v->evsel] : NULL;
	uint64_t lost = ve ? ve->lost_samples : 0, n = st->nr_samples;
	const char *unit = " KM"; /* perf's: thousands, then millions */
	size_t i, shown = 0, nr_unsym;
	const struct prec_dso_unsym *unsym = prec_hist__unsym(h, &nr_unsym);

	fprintf(v->out, "#\n# Total Lost Samples: %" PRIu64, lost);
	if (lost)
		fprintf(v->out, " (%.2f%% of %" PRIu64 ")", pct(lost, lost + st->nr_samples),
			lost + st->nr_samples);
	fputs("\n#\n", v->out);
	for (; n > 1000 && unit[1]; unit++)
		n /= 1000;
	fprintf(v->out, "# Samples: %" PRIu64 "%c of event '%s'\n", n, *unit,
		ve && ve->name ? ve->name : "unknown");
	fprintf(v->out, "# Event count (approx.): %" PRIu64 "\n", st->period);
	if (st->unsym_period) {
		double u = pct(st->unsym_period, st->period);

		if (u < 0.01)
			fputs("# Not symbolized: <0.01% of the event count", v->out);
		else
			fprintf(v->out, "# Not symbolized: %.2f%% of the event count", u);
		for (i = 0; i < nr_unsym && shown < 4; i++) {
			struct prec_dso *d = prec_hist__dso(h, unsym[i].dso);

			if (pct(unsym[i].period, st->period) < 0.01)
				continue;
			fprintf(v->out, "%s %s %.2f%% (%s)", shown ? ";" : ":",
				d ? prec_dso__short_name(d) : "[unknown]",
				pct(unsym[i].period, st->period),
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
static int cell_width(const struct prec_view *v, const struct prec_column *c,
		      const struct prec_entry *e)
{
	char buf[NAME_MAX_LEN];

	return (int)strlen(cell(v, c, e, buf));
}

static void widen(struct prec_column *c, int w)
{
	if (w > c->width)
		c->width = w;
}

/* The number a number column shows for e. */
static uint64_t col_number(const struct prec_column *c, const struct prec_entry *e)
{
	switch (c->kind) {
	case PREC_COL_CHILDREN:
		return e->acc_period;
	case PREC_COL_SELF:
	case PREC_COL_PERIOD:
		return e->self_period;
	default:
		return e->self_count;
	}
}

/* Widen column c to its widest cell among rows.  Numbers print wider as they grow, so only
 * the largest of a number column is formatted. */
static void col_width(struct prec_view *v, struct prec_column *c, const uint32_t *rows, size_t nr)
{
	const struct prec_entry *widest = NULL;
	size_t i;

	if (c->kind != PREC_COL_KEY) {
		for (i = 0; i < nr; i++) {
			const struct prec_entry *e = &v->entries[rows[i]];

			if (!widest || col_number(c, e) > col_number(c, widest))
				widest = e;
		}
		if (widest)
			widen(c, cell_width(v, c, widest));
		return;
	}
	for (i = 0; i < nr; i++)
		widen(c, cell_width(v, c, &v->entries[rows[i]]));
}

static int stdio_event(struct prec_view *v)
{
	struct prec_hist *h = v->h;
	const struct prec_view_opts *o = v->o;
	const char *sep = o->field_sep;
	bool graphs = o->graph != PREC_GRAPH_NONE && !sep;
	uint32_t *rows = NULL, i;
	size_t nr = 0, c;
	struct prec_line row = { 0 };
	struct sort_job sj = { 0 };
	pthread_t sorter;
	int err = 0;

	rows = malloc(((size_t)v->nr_entries + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < v->nr_entries; i++) {
		const struct prec_entry *e = &v->entries[i];

		if (e->key.evsel != v->evsel || !primary(v, e))
			continue;
		if ((v->ho->dso_filter || v->ho->sym_filter) &&
		    !prec_hist__sframe_shown(h, e->sframe))
			continue;
		if (o->hide_unresolved && prec_hist__sframe(h, e->sframe)->kind != PREC_SF_SYM &&
		    prec_hist__sframe(h, e->sframe)->kind != PREC_SF_INLINE)
			continue;
		rows[nr++] = i;
	}
	/* a big report's rows are sorted on another thread, a copy of them, while the columns'
	 * widths are measured here */
	if (!o->one_thread && nr >= SORT_THREAD_MIN && (sj.rows = malloc(nr * sizeof(*rows)))) {
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
	 * each row's entry, frame and name is a cache miss) */
	for (c = 0; c < v->nr_cols && !sep; c++)
		col_width(v, &v->cols[c], rows, nr);
	if (sj.rows) {
		pthread_join(sorter, NULL);
		free(rows);
		rows = sj.rows;
		err = sj.err;
	} else if (nr) {
		err = sort_rows(v, rows, nr);
	}
	if (err) {
		free(rows);
		return err;
	}
	/* the hidden ones are the smallest, so the last rows (--percent-limit is of Children
	 * with children, also when -F orders the rows by their own share) */
	if (v->by_self) {
		size_t kept = 0;

		for (i = 0; i < nr; i++)
			if (pct(primary(v, &v->entries[rows[i]]), v->total) >= o->percent_limit)
				rows[kept++] = rows[i];
		nr = kept;
	}
	while (nr && pct(primary(v, &v->entries[rows[nr - 1]]), v->total) < o->percent_limit)
		nr--;
	print_event_header(v);
	/* the titles, and without -t a line of dots under each */
	fputs("# ", v->out);
	for (c = 0; c < v->nr_cols; c++)
		fprintf(v->out, "%s%*s", c ? (sep ? sep : "  ") : "",
			sep ? 0 : v->cols[c].right ? v->cols[c].width : -v->cols[c].width,
			v->cols[c].title);
	fputc('\n', v->out);
	for (c = 0; c < v->nr_cols && !sep; c++) {
		fputs(c ? "  " : "# ", v->out);
		for (int k = 0; k < v->cols[c].width; k++)
			fputc('.', v->out);
	}
	if (!sep)
		fputs("\n#\n", v->out);
	if (graphs)
		err = prec_graph__print_entries(v, rows, nr, &row);
	else
		for (i = 0; i < nr && !err; i++)
			err = prec_view_print_row(v, &v->entries[rows[i]], &row);
	free(row.p);
	fputs("\n\n", v->out);
	free(rows);
	return err;
}

/* -F's columns; without Children among them, entries go by their own share as in perf, and
 * the own share is "Overhead" either way. */
static void add_fields(struct prec_view *v)
{
	const struct prec_view_opts *o = v->o;
	bool children = false;
	size_t i;

	for (i = 0; i < o->nr_fields; i++)
		children |= o->fields[i].col == PREC_COL_CHILDREN;
	v->by_self = v->ho->children && !children;
	for (i = 0; i < o->nr_fields && i < PREC_VIEW_MAX_FIELDS; i++)
		add_col(v, o->fields[i].col, o->fields[i].key);
	/* with --sort, perf adds the sort keys -F lacks and orders the entries by the keys */
	v->by_keys = o->fields_sorted;
	v->by_depth &= !v->by_keys;
	for (i = 0; i < v->ho->nr_keys && o->fields_sorted; i++) {
		enum prec_sort_key k = v->ho->keys[i];
		size_t j;

		for (j = 0; j < o->nr_fields; j++)
			if (o->fields[j].col == PREC_COL_KEY && o->fields[j].key == k)
				break;
		if (j == o->nr_fields && v->nr_cols < PREC_VIEW_MAX_FIELDS)
			add_col(v, PREC_COL_KEY, k);
	}
}

/*
 * Of several events, those with samples are shown, as in perf; when filters leave none with
 * samples, the sampled events' empty reports (not the tracking event's), as for one event.
 */
static bool shown_if_empty(const struct prec_view_opts *o, uint32_t ev, bool any_samples,
			   const struct prec_evsel_stats *st)
{
	if (any_samples)
		return st->nr_samples;
	return !o->evsels || !o->evsels[ev].dummy;
}

int prec_view__stdio(struct prec_hist *h, const struct prec_view_opts *o, FILE *out)
{
	const struct prec_hist_opts *ho = prec_hist__opts(h);
	uint32_t ev, nr_ev = prec_hist__nr_events(h);
	struct prec_view v;
	bool any_samples = false;
	size_t k;
	int err = 0;

	if (!o->field_sep)
		fputs("# To display the recording's header, use --header or --header-only.\n#\n",
		      out);
	for (ev = 0; ev < nr_ev && !any_samples; ev++)
		any_samples = prec_hist__event(h, ev)->nr_samples;
	for (ev = 0; ev < nr_ev && !err; ev++) {
		if (nr_ev > 1 && !shown_if_empty(o, ev, any_samples, prec_hist__event(h, ev)))
			continue;
		memset(&v, 0, sizeof(v));
		v.h = h;
		v.ho = ho;
		v.entries = prec_hist__entries(h, &v.nr_entries);
		v.o = o;
		v.out = out;
		v.evsel = ev;
		v.total = prec_hist__event(h, ev)->period;
		/* perf has no chains to measure under -g none (the columns stay) */
		v.by_depth = ho->children && o->graph != PREC_GRAPH_NONE;
		if (o->nr_fields) {
			add_fields(&v);
		} else {
			if (ho->children)
				add_col(&v, PREC_COL_CHILDREN, 0);
			add_col(&v, PREC_COL_SELF, 0);
			if (ho->children)
				v.cols[1].title = "Self";
			if (o->show_nr_samples)
				add_col(&v, PREC_COL_SAMPLES, 0);
			if (o->show_total_period)
				add_col(&v, PREC_COL_PERIOD, 0);
			for (k = 0; k < ho->nr_keys; k++)
				add_col(&v, PREC_COL_KEY, ho->keys[k]);
		}
		err = stdio_event(&v);
	}
	if (!err && ferror(out))
		err = -EIO;
	return err;
}

