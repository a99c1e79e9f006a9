/* SPDX-License-Identifier: MIT */
/*
 * lib/report's hist.  The samples are made up: random stacks over the functions of a kernel
 * symbol file written here, and over DSOs whose files do not exist ([unknown]), loaded by the
 * symbol loader's thread while samples are still being added; the last DSO is never handed
 * to the loader.  The report, with graphs down to 0.01% so that the stacks' occurrences show,
 * must be the same whether or not the frames were indexed before the loader stopped, and
 * whatever part of them the background symbolizer (prec_hist__background) indexed and
 * symbolized: all it could (it stops symbolizing at the last DSO's first frame), or as far as
 * it got when the samples ended.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_hist.h"
#include "prec_hist_int.h"
#include "prec_symbol.h"
#include "prec_view.h"
#include "tap.h"

#define NR_FNS 3000
#define NR_DSOS 40
#define NR_SAMPLES 60000
#define KBASE 0xffffffff81000000ULL

static char ksyms[PATH_MAX / 2];

static void write_kallsyms(void)
{
	int fd = tap_mkstemp(ksyms, sizeof(ksyms), "hist");
	FILE *f = fdopen(fd, "w");
	int i;

	if (!f)
		abort();
	for (i = 0; i < NR_FNS; i++)
		fprintf(f, "%016llx T kfn_%04d\n", KBASE + (unsigned long long)i * 0x100, i);
	fclose(f);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13; /* xorshift64 */
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

enum mode {
	PLAIN, /* everything done by finish, no loader thread */
	LOADER_INDEXED, /* with the loader thread, frames indexed before it stops */
	BACKGROUND_DRAINED, /* with background symbolizing, which takes every node */
	BACKGROUND, /* with background symbolizing, stopped wherever it is */
};

static uint32_t nodes_seen; /* by the last report() */
static uint32_t bg_symbolized, bg_frames; /* by the last report() with BACKGROUND_DRAINED */

/* The --stdio report (no-children, call graphs) and the folded stacks of the made-up
 * samples, in one malloc'd string. */
static char *report(enum mode mode)
{
	static const char *const comms[] = { "cc1", "as", "make" };
	struct prec_symtab_opts so = { 0 };
	struct prec_hist_opts ho = { 0 };
	struct prec_view_opts vo = { 0 };
	struct prec_view_evsel ev = { .name = "cpu-clock" };
	struct prec_symtab *st = NULL;
	struct prec_hist *h = NULL;
	struct prec_hist_frame fr[16];
	uint32_t kid, dso_id[NR_DSOS];
	uint64_t x = 88172645463325252ULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int i, k;

	so.kallsyms = ksyms;
	so.debug_dir = "/nonexistent";
	so.jit_dir = "/nonexistent";
	ho.keys[0] = PREC_SORT_COMM;
	ho.keys[1] = PREC_SORT_DSO;
	ho.keys[2] = PREC_SORT_SYM;
	ho.nr_keys = 3;
	ho.keep_occurrences = true;
	ho.callee_order = true;
	ho.need_comm = true;
	if (prec_symtab__new(&so, &st) || prec_hist__new(&ho, st, 1, &h))
		abort();
	if (mode != PLAIN && prec_symtab__loader_start(st))
		abort();
	if ((mode == BACKGROUND || mode == BACKGROUND_DRAINED) && prec_hist__background(h))
		abort();
	kid = (uint32_t)prec_hist__dso_id(h, prec_symtab__kernel(st));
	prec_symtab__prefetch(st, prec_symtab__kernel(st));
	for (i = 0; i < NR_SAMPLES; i++) {
		struct prec_hist_sample s = { 0 };
		size_t depth = 1 + rnd(&x) % 14;
		long ctx, node;
		int nr_dsos;

		if (i < NR_DSOS) { /* a new DSO now and then, queued before its first frame */
			char path[64];
			struct prec_dso *d;

			snprintf(path, sizeof(path), "/nonexistent/lib%d.so", i);
			d = prec_symtab__dso(st, path, NULL, 0);
			if (!d)
				abort();
			dso_id[i] = (uint32_t)prec_hist__dso_id(h, d);
			if (i < NR_DSOS - 1)
				prec_symtab__prefetch(st, d);
		}
		/* the DSOs seen so far; the last one, never prefetched, only in the last quarter */
		nr_dsos = i < NR_DSOS - 1 ? i + 1 : i < NR_SAMPLES / 4 * 3 ? NR_DSOS - 1 : NR_DSOS;
		for (k = 0; k < (int)depth; k++) {
			uint64_t r = rnd(&x);

			memset(&fr[k], 0, sizeof(fr[k]));
			if (r % 8 == 0) { /* a user frame in one of the DSOs seen so far */
				fr[k].dso = dso_id[(r >> 8) % (uint64_t)nr_dsos];
				fr[k].addr = (r >> 20) % 0x4000;
			} else { /* a kernel function, at its start or a bit in */
				fr[k].dso = kid;
				fr[k].flags = PREC_FRAME_KERNEL;
				fr[k].addr = KBASE + (r >> 8) % NR_FNS * 0x100 + (r >> 40) % 0x100;
			}
			if (k)
				fr[k].flags |= PREC_FRAME_RET;
		}
		s.comm = comms[rnd(&x) % 3];
		s.pid = s.tid = 100;
		s.period = 1000 + rnd(&x) % 3;
		ctx = prec_hist__context(h, &s);
		node = ctx < 0 ? ctx : prec_hist__stack(h, (uint32_t)ctx, fr, depth);
		if (node < 0)
			abort();
		prec_hist__count(h, (uint32_t)ctx, (uint32_t)node, s.period);
	}
	if (mode == BACKGROUND_DRAINED) {
		if (prec_hist_bg__stop(h->bg, true))
			abort();
		h->bg = NULL;
		bg_symbolized = h->nr_symbolized;
		bg_frames = h->frames.n;
	}
	if (mode != PLAIN && prec_hist__index_frames(h))
		abort();
	prec_symtab__loader_stop(st);
	if (prec_hist__finish(h))
		abort();
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	vo.graph = PREC_GRAPH_GRAPH;
	vo.graph_threshold = 0.01; /* low enough that graphs show: they hold occurrences */
	vo.evsels = &ev;
	if (prec_view__stdio(h, &vo, out) || prec_view__folded(h, PREC_VIEW_ALL_EVENTS, out))
		abort();
	fclose(out);
	nodes_seen = h->nr_nodes;
	prec_hist__free(h);
	prec_symtab__free(st);
	return text;
}

/* The node array's storage: a mapping that moves as it grows keeps every item. */
static void check_maparray(void)
{
	uint32_t *a = NULL, i, bad = 0;
	size_t cap = 0, caps = 0, last = 0;
	unsigned char *z = prec_calloc_written(3 * 4096 + 5, 1);

	for (i = 0; i < 1000000; i++) {
		if (prec_maparray__grow((void **)&a, &cap, (size_t)i + 1, sizeof(*a)))
			break;
		if (cap != last)
			caps++;
		last = cap;
		a[i] = i * 2654435761u;
	}
	for (uint32_t k = 0; k < i; k++)
		bad += a[k] != k * 2654435761u;
	for (size_t k = i; k < cap; k++)
		bad += a[k] != 0;
	ok(i == 1000000 && !bad && caps > 5 && cap >= i,
	   "a map array grown to %u items in %zu steps keeps them all (%u wrong)",
	   i, caps, bad);
	prec_maparray__free(a, cap, sizeof(*a));
	for (i = 0; z && i < 3 * 4096 + 5; i++)
		bad += z[i] != 0;
	ok(z && !bad, "prec_calloc_written gives zeroed memory");
	free(z);
}

/* Is (tag, value) where a lookup from its home finds it? */
static bool slot_found(const uint64_t *t, uint32_t n, uint64_t v)
{
	uint32_t p = (uint32_t)(v >> 32) & (n - 1);

	while (t[p] && t[p] != v)
		p = (p + 1) & (n - 1);
	return t[p] == v;
}

static void slot_put(uint64_t *t, uint32_t n, uint64_t v)
{
	uint32_t p = (uint32_t)(v >> 32) & (n - 1);

	while (t[p])
		p = (p + 1) & (n - 1);
	t[p] = v;
}

static int cmp_radix(const void *a, const void *b)
{
	const struct prec_radix *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

/*
 * prec_radix__sort against qsort by (key, original position): keys that differ in a few
 * bytes only (the sort skips the others), with many equal ones (it must be stable), and
 * keys all equal.
 */
static void check_radix(void)
{
	enum { N = 20000 };
	static struct prec_radix a[2 * N], want[N];
	static const uint64_t masks[] = { 0xff00000000ff00ffULL, 0x3, ~0ULL, 0 };
	uint64_t x = 7;
	size_t m, i, bad;

	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		const struct prec_radix *r;

		for (i = 0; i < N; i++) {
			a[i].key = (rnd(&x) & masks[m]) | 0x1000;
			a[i].val = i;
			want[i] = a[i];
		}
		qsort(want, N, sizeof(*want), cmp_radix);
		r = prec_radix__sort(a, a + N, N);
		for (i = 0, bad = 0; i < N; i++)
			bad += r[i].key != want[i].key || r[i].val != want[i].val;
		ok(!bad, "radix sort of %d keys under mask %#" PRIx64 ": as qsort, stable (%zu off)",
		   N, masks[m], bad);
	}
}

/*
 * Hash slots doubled in place keep every slot findable from its home: random tags through
 * eight doublings, and tags crowded at the end of the table, whose runs wrap around.
 */
static void check_slots(void)
{
	uint64_t *t = NULL, x = 42;
	uint32_t n = 0, nr = 0, i, lost = 0, grows = 0;

	for (i = 0; i < 70000; i++) {
		uint64_t v = (rnd(&x) & 0xffffffff00000000ULL) | (i + 1);

		if ((uint64_t)(nr + 1) * 2 > n) {
			if (prec_slots__grow(&t, &n, 512))
				abort();
			grows++;
			for (uint32_t k = 0; k < n; k++) /* every slot, after each doubling */
				if (t[k] && !slot_found(t, n, t[k]))
					lost++;
		}
		slot_put(t, n, v);
		nr++;
	}
	ok(!lost && grows == 10 && n == 262144,
	   "70000 random slots through %u doublings to %u: all found from their homes (%u lost)",
	   grows - 1, n, lost);
	prec_slots__free(t, n);

	/* half a table of tags whose homes are the last slots, a run that wraps around to the
	 * start: homes that stay in the old half, then homes at the end of the new half */
	for (uint64_t top = 511; top <= 1023; top += 512) {
		t = NULL;
		n = 0;
		if (prec_slots__grow(&t, &n, 512))
			abort();
		for (i = 0; i < 256; i++)
			slot_put(t, n, (top - i % 4) << 32 | (i + 1));
		if (prec_slots__grow(&t, &n, 512))
			abort();
		for (i = 0, lost = 0; i < 256; i++)
			lost += !slot_found(t, n, (top - i % 4) << 32 | (i + 1));
		ok(!lost && n == 1024,
		   "a run wrapping around the end, homes %" PRIu64 "..%" PRIu64 " when doubled: all "
		   "found (%u lost)",
		   top - 3, top, lost);
		prec_slots__free(t, n);
	}
}

/* A frame whose DSO id the hist never gave is refused. */
static void check_bad_frame(void)
{
	struct prec_hist_opts ho = { 0 };
	struct prec_hist_sample s = { 0 };
	struct prec_hist_frame f = { .dso = 7, .addr = 0x1000 };
	struct prec_hist *h = NULL;
	long ctx, node;

	ho.keys[0] = PREC_SORT_SYM;
	ho.nr_keys = 1;
	if (prec_hist__new(&ho, NULL, 1, &h))
		abort();
	s.comm = "x";
	ctx = prec_hist__context(h, &s);
	node = ctx < 0 ? ctx : prec_hist__stack(h, (uint32_t)ctx, &f, 1);
	ok(node == -EINVAL, "a frame with a DSO id the hist never gave: -EINVAL (%ld)", node);
	prec_hist__free(h);
}

/* The API the views and the session read a finished hist through: threads to name, per-event
 * totals, entries, their occurrences and stacks as call paths. */
static void check_api(void)
{
	struct prec_hist_opts ho = { 0 };
	struct prec_hist_frame fr[3];
	struct prec_hist *h = NULL;
	const struct prec_entry *ents, *e11 = NULL, *e12 = NULL;
	const struct prec_occurrence *oc;
	struct prec_path path = { 0 };
	uint32_t nr, i, pid, tid, seen = 0, *seq = NULL, weigh_nothing = 0;
	size_t cap = 0;
	long n = -1, n0 = -1, nochain = -1;
	int k;

	ho.keys[0] = PREC_SORT_PID;
	ho.keys[1] = PREC_SORT_SYM;
	ho.nr_keys = 2;
	ho.children = true;
	ho.keep_occurrences = true;
	if (prec_hist__new(&ho, NULL, 1, &h))
		abort();
	for (k = 0; k < 3; k++) {
		fr[k] = (struct prec_hist_frame){ .addr = 0x10 * (uint64_t)(k + 1) };
		if (k)
			fr[k].flags = PREC_FRAME_RET;
	}
	for (k = 0; k < 3; k++) { /* tid 11: two samples on one stack, tid 12: no chain */
		struct prec_hist_sample s = { .pid = 10, .tid = k < 2 ? 11 : 12, .period = 5 };
		struct prec_hist_frame only = { .addr = 0x10, .flags = PREC_FRAME_NOCHAIN };
		long ctx, node;

		s.comm = k < 2 ? "a" : "b";
		ctx = prec_hist__context(h, &s);
		if (ctx < 0)
			abort();
		if (k < 2)
			node = prec_hist__stack(h, (uint32_t)ctx, fr, 3);
		else
			node = prec_hist__stack(h, (uint32_t)ctx, &only, 1);
		if (node < 0)
			abort();
		prec_hist__count(h, (uint32_t)ctx, (uint32_t)node, s.period);
	}
	prec_hist__count_filtered(h, 0, 7);
	for (i = 0; prec_hist__thread(h, i, &pid, &tid); i++)
		seen |= pid == 10 && (tid == 11 || tid == 12) ? 1u << (tid - 11) : 4u;
	ok(i == 2 && seen == 3, "the threads to name: (10, 11) and (10, 12) (%u of them)", i);
	if (prec_hist__finish(h))
		abort();
	ok(prec_hist__nr_events(h) == 1 && prec_hist__event(h, 0)->nr_samples == 4 &&
		   prec_hist__event(h, 0)->period == 22,
	   "per-event totals count the filtered sample too");
	ents = prec_hist__entries(h, &nr);
	for (i = 0; i < nr; i++) {
		const struct prec_sframe *sf = prec_hist__sframe(h, ents[i].sframe);

		if (sf->kind == PREC_SF_NOMAP && sf->addr == 0x10)
			*(ents[i].key.tid == 11 ? &e11 : &e12) = &ents[i];
	}
	ok(nr == 4 && e11 && e12 && e11->self_count == 2 && e11->acc_period == 10 &&
		   e11->occ_n == 1 && e12->occ_n == 1,
	   "entries: one per thread and function (%u), the leaf's with its samples", nr);
	if (e11 && e11->occ_n == 1) {
		oc = prec_hist__occurrences(h, e11);
		n = prec_hist__path(h, oc->node, SIZE_MAX, &path, &seq, &cap);
		n0 = prec_hist__path(h, oc->node, 0, &path, &seq, &cap);
		ok(n == 3 && n0 == 1 && oc->pos == 0 && path.count == 2 && path.period == 10 &&
			   path.chain && prec_hist__sframe(h, seq[0]) == prec_hist__sframe(h, e11->sframe) &&
			   !strcmp(prec_hist__stack_comm(h, oc->node), "a"),
		   "an occurrence's path: 3 frames, leaf first, 1 up to position 0, its weight and "
		   "command (%ld, %ld)",
		   n, n0);
	}
	if (e12 && e12->occ_n == 1) {
		oc = prec_hist__occurrences(h, e12);
		nochain = prec_hist__path(h, oc->node, SIZE_MAX, &path, &seq, &cap);
		ok(nochain == 1 && !path.chain && path.count == 1,
		   "a stack whose chain was dropped says so");
	}
	for (i = 0; i < prec_hist__nr_stacks(h); i++)
		weigh_nothing += prec_hist__path(h, i, SIZE_MAX, &path, &seq, &cap) == 0 &&
				 !path.count;
	ok(prec_hist__nr_stacks(h) == 6 && weigh_nothing == 4,
	   "stacks: 2 roots and 4 frames, 2 of them with samples (%u, %u weigh nothing)",
	   prec_hist__nr_stacks(h), weigh_nothing);
	free(seq);
	prec_hist__free(h);
	ho.keys[0] = PREC_SORT_COMM;
	if (prec_hist__new(&ho, NULL, 1, &h))
		abort();
	{
		struct prec_hist_sample s = { .pid = 10, .tid = 11, .comm = "a" };

		ok(prec_hist__context(h, &s) >= 0 && !prec_hist__thread(h, 0, &pid, &tid),
		   "without the pid and tid keys there are no threads to name");
	}
	prec_hist__free(h);
}

int main(void)
{
	char *plain, *loader, *drained, *bg;

	check_maparray();
	check_slots();
	check_radix();
	check_bad_frame();
	check_api();

	write_kallsyms();
	plain = report(PLAIN);
	ok(strstr(plain, "kfn_0") && strstr(plain, "[unknown]"),
	   "kernel functions and unknown DSOs in the report (%zu bytes)", strlen(plain));
	loader = report(LOADER_INDEXED);
	ok(!strcmp(loader, plain),
	   "with the loader thread, frames indexed before it stopped: the same report (%u nodes)",
	   nodes_seen);
	drained = report(BACKGROUND_DRAINED);
	ok(!strcmp(drained, plain) && bg_symbolized && bg_symbolized < bg_frames,
	   "background symbolizing, to its end: the same report (it symbolized %u of %u frames)",
	   bg_symbolized, bg_frames);
	bg = report(BACKGROUND);
	ok(!strcmp(bg, plain), "background symbolizing, stopped where it was: the same report");
	free(loader);
	free(drained);
	free(bg);
	free(plain);
	unlink(ksyms);
	return done_testing();
}
