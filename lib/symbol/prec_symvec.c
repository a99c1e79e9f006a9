/* SPDX-License-Identifier: MIT */
/*
 * The sorted symbol array every loader fills (ELF tables, kallsyms, JIT maps): growing it,
 * sorting it by start, and perf's rules for the result: zero-size symbols end where the next
 * one starts, one symbol per start address (perf's choice among aliases), and the `up` links
 * a lookup follows out of nested ranges.
 *
 * Invariants: a loader pushes, then sorts, fixes ends, dedups and links, in that order; until
 * the link, `up` holds an entry's insertion position, which breaks ties between equal starts as
 * perf's rb-tree does.  After it, `up` names the nearest earlier entry whose range reaches past
 * the entry's start, or PREC_NO_UP.  Nothing here allocates per symbol; a sort or link that
 * cannot get its scratch memory falls back to a slower way that needs none, with the same
 * result.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_symbol_int.h"

int prec_symvec__reserve(struct prec_symvec *sv, uint32_t extra)
{
	struct prec_syment *v;
	uint64_t cap = (uint64_t)sv->n + extra;

	if (cap <= sv->cap)
		return 0;
	if (cap > 2ULL * PREC_SYMS_MAX)
		return -E2BIG;
	v = realloc(sv->v, (size_t)cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	sv->v = v;
	sv->cap = (uint32_t)cap;
	return 0;
}

int prec_symvec__push(struct prec_symvec *sv, uint64_t start, uint64_t size, const char *name,
		      uint8_t bind)
{
	struct prec_syment *e;

	if (sv->n == sv->cap) {
		uint32_t cap = sv->cap ? sv->cap * 2 : 256;
		struct prec_syment *v;

		if (sv->cap >= PREC_SYMS_MAX * 2)
			return -E2BIG;
		v = realloc(sv->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	e = &sv->v[sv->n];
	e->start = start;
	e->end = start + size < start ? UINT64_MAX : start + size;
	e->name = name;
	e->up = sv->n;
	e->module = 0;
	e->bind = bind;
	e->flags = 0;
	sv->n++;
	return 0;
}

static int syment_cmp(const void *a, const void *b)
{
	const struct prec_syment *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->up < y->up ? -1 : x->up > y->up;
}

void prec_symvec__sort(struct prec_symvec *sv)
{
	struct prec_radix *keys, *sorted;
	struct prec_syment *out;
	uint32_t i;
	bool is_sorted = true;

	/* `up` holds the position until link(): equal starts keep insertion order, as in perf's
	 * rb-tree */
	for (i = 0; i < sv->n; i++) {
		sv->v[i].up = i;
		if (i && sv->v[i].start < sv->v[i - 1].start)
			is_sorted = false;
	}
	if (is_sorted)
		return;
	keys = malloc(2 * (size_t)sv->n * sizeof(*keys));
	out = malloc((size_t)sv->n * sizeof(*out));
	if (!keys || !out) {
		/* slower, but needs no memory */
		free(keys);
		free(out);
		qsort(sv->v, sv->n, sizeof(*sv->v), syment_cmp);
		return;
	}
	for (i = 0; i < sv->n; i++) {
		keys[i].key = sv->v[i].start;
		keys[i].val = i;
	}
	sorted = prec_radix__sort(keys, keys + sv->n, sv->n);
	for (i = 0; i < sv->n; i++)
		out[i] = sv->v[sorted[i].val];
	free(keys);
	free(sv->v);
	sv->v = out;
	sv->cap = sv->n;
}

static uint64_t page_after(uint64_t a)
{
	uint64_t r = (a + 4095) & ~4095ULL;

	if (r < a || r + 4096 < r)
		return UINT64_MAX;
	return r + 4096;
}

void prec_symvec__fixup_end(struct prec_symvec *sv, bool kallsyms)
{
	uint32_t i;

	for (i = 0; i + 1 < sv->n; i++) {
		struct prec_syment *p = &sv->v[i], *c = &sv->v[i + 1];

		if (p->end != p->start)
			continue;
		if (kallsyms && !p->module != !c->module)
			p->end = page_after(p->start);
		else
			p->end = c->start;
	}
	if (sv->n && sv->v[sv->n - 1].end == sv->v[sv->n - 1].start)
		sv->v[sv->n - 1].end = page_after(sv->v[sv->n - 1].start);
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when b should replace a. */
static bool better(const struct prec_syment *a, const struct prec_syment *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	bool wa, wb;
	size_t na, nb;

	if (!lb && la)
		return false;
	if (!la && lb)
		return true;
	wa = a->bind == STB_WEAK;
	wb = b->bind == STB_WEAK;
	if (wa != wb)
		return wa;
	wa = a->bind == STB_GLOBAL;
	wb = b->bind == STB_GLOBAL;
	if (wa != wb)
		return wb;
	na = leading_underscores(a->name);
	nb = leading_underscores(b->name);
	if (na != nb)
		return na > nb;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na != nb)
		return nb > na;
	/* perf's generic arch__choose_best_symbol(): avoid the kernel's SyS aliases */
	return !strncmp(a->name, "SyS", 3) || !strncmp(a->name, "compat_SyS", 10);
}

void prec_symvec__dedup(struct prec_symvec *sv)
{
	uint32_t i, out = 0;

	for (i = 0; i < sv->n; i++) {
		if (out && sv->v[out - 1].start == sv->v[i].start) {
			if (better(&sv->v[out - 1], &sv->v[i]))
				sv->v[out - 1] = sv->v[i];
			continue;
		}
		sv->v[out++] = sv->v[i];
	}
	sv->n = out;
}

void prec_symvec__link(struct prec_symvec *sv)
{
	uint32_t i, top = 0;
	uint32_t *stack;

	if (!sv->n)
		return;
	/* a stack of candidates: an entry that ends before some start ends before every later
	 * start too, so it is popped for good */
	stack = malloc((size_t)sv->n * sizeof(*stack));
	for (i = 0; i < sv->n; i++) {
		struct prec_syment *e = &sv->v[i];

		if (!stack) {
			e->up = i && sv->v[i - 1].end > e->start ? i - 1 : PREC_NO_UP;
			continue;
		}
		while (top && sv->v[stack[top - 1]].end <= e->start)
			top--;
		e->up = top ? stack[top - 1] : PREC_NO_UP;
		stack[top++] = i;
	}
	free(stack);
}

void prec_symvec__release(struct prec_symvec *sv)
{
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

uint32_t prec_syments_lower_bound(const struct prec_syment *v, uint32_t n, uint64_t a)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].start < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
