/* SPDX-License-Identifier: MIT */
/*
 * lib/report's view prints its percentages without printf (what that saves is in
 * doc/performance.md); they must come out exactly as printf's "%.2f%%", ties included.
 * Checked against the C library on every share v/total with total < 4000 and on random
 * large ones.
 * Also: the pid, tid and CPU columns print -1 (no process, no CPU recorded) as perf does, and
 * a report large enough for the view's second thread (rows sorted on it, rows and graphs
 * drawn ahead) prints the same as on one thread, and rows of equal weight come in perf's
 * order.
 */
#include <stdlib.h>

#include "prec_hist.h"
#include "prec_symbol.h"
#include "prec_view.h"
#include "tap.h"

static long differ;

static void check(double p)
{
	char a[64], b[64];
	size_t n = prec_view__pct_text(p, a);

	snprintf(b, sizeof(b), "%.2f%%", p);
	if ((strcmp(a, b) || n != strlen(b)) && differ++ < 5)
		printf("# %.20g: %s, printf says %s\n", p, a, b);
}

/* Count sample s with stack fr[0, n). */
static void add_sample(struct prec_hist *h, const struct prec_hist_sample *s,
		       const struct prec_hist_frame *fr, size_t n)
{
	long ctx = prec_hist__context(h, s);
	long node = ctx < 0 ? ctx : prec_hist__stack(h, (uint32_t)ctx, fr, n);

	if (node < 0)
		abort();
	prec_hist__count(h, (uint32_t)ctx, (uint32_t)node, s->period);
}

/* Finish h and return its --stdio text (malloc'ed). */
static char *stdio_text(struct prec_hist *h, const struct prec_view_opts *vo)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out || prec_hist__index_frames(h) || prec_hist__finish(h) ||
	    prec_view__stdio(h, vo, out))
		abort();
	fclose(out);
	return text;
}

/* A symbol table that finds nothing of this machine's, and a hist with options ho on it. */
static void new_hist(const struct prec_hist_opts *ho, struct prec_symtab **st, struct prec_hist **h)
{
	struct prec_symtab_opts so = { 0 };

	so.debug_dir = "/nonexistent";
	so.jit_dir = "/nonexistent";
	if (prec_symtab__new(&so, st) || prec_hist__new(ho, *st, 1, h))
		abort();
}

/* A one-sample report sorted by pid, tid and cpu, for a sample of pid/tid/cpu -1. */
static void check_minus_one(void)
{
	struct prec_hist_opts ho = { 0 };
	struct prec_view_opts vo = { 0 };
	struct prec_view_evsel ev = { .name = "cpu-clock" };
	struct prec_hist_sample s = { 0 };
	struct prec_hist_frame fr = { 0 };
	struct prec_symtab *st = NULL;
	struct prec_hist *h = NULL;
	char *text, *row;

	ho.keys[0] = PREC_SORT_PID;
	ho.keys[1] = PREC_SORT_TID;
	ho.keys[2] = PREC_SORT_CPU;
	ho.nr_keys = 3;
	new_hist(&ho, &st, &h);
	s.pid = s.tid = s.cpu = UINT32_MAX;
	s.comm = "app";
	s.period = 1;
	fr.addr = 0x1234; /* dso 0: no mapping */
	add_sample(h, &s, &fr, 1);
	vo.graph = PREC_GRAPH_NONE;
	vo.evsels = &ev;
	text = stdio_text(h, &vo);
	row = strstr(text, "\n#\n   ") ? strstr(text, "\n#\n   ") + 3 : text; /* the entry */
	ok(!strcmp(row, "   100.00%       -1:app       -1:app  -001\n\n\n"),
	   "pid, tid and cpu -1 print as perf prints them (\"-1\", \"-001\")");
	if (strcmp(row, "   100.00%       -1:app       -1:app  -001\n\n\n"))
		printf("# the row: %s", row);
	free(text);
	prec_hist__free(h);
	prec_symtab__free(st);
}

/*
 * Rows of equal weight in perf's order: one in a shared object before those without one, and
 * those by their addresses' difference taken as signed (0xffffffffff600000 before 0x10).  Made
 * in the other order, so that the order the entries were made in cannot pass for it.
 */
static void check_equal_rows(void)
{
	static const char *const want[] = { "libx.so ", "[.] 0xffffffffff600000\n",
					    "[.] 0x0000000000000010\n" };
	struct prec_hist_opts ho = { 0 };
	struct prec_view_opts vo = { 0 };
	struct prec_view_evsel ev = { .name = "cpu-clock" };
	struct prec_hist_frame fr[3] = { { .addr = 0x10 }, { .addr = 0xffffffffff600000ULL },
					 { .addr = 0x1000 } };
	struct prec_symtab *st = NULL;
	struct prec_hist *h = NULL;
	const char *at[3], *rows;
	char *text;
	size_t i;

	ho.keys[0] = PREC_SORT_COMM;
	ho.keys[1] = PREC_SORT_DSO;
	ho.keys[2] = PREC_SORT_SYM;
	ho.nr_keys = 3;
	new_hist(&ho, &st, &h);
	fr[2].dso = (uint32_t)prec_hist__dso_id(h, prec_symtab__dso(st, "/nonexistent/libx.so",
								    NULL, 0));
	for (i = 0; i < 3; i++) {
		struct prec_hist_sample s = { .pid = 1, .tid = 1, .comm = "app", .period = 1 };

		add_sample(h, &s, &fr[i], 1);
	}
	vo.graph = PREC_GRAPH_NONE;
	vo.evsels = &ev;
	text = stdio_text(h, &vo);
	rows = strstr(text, "\n#\n ") ? strstr(text, "\n#\n ") : text; /* past the header */
	for (i = 0; i < 3; i++)
		at[i] = strstr(rows, want[i]);
	ok(at[0] && at[1] && at[2] && at[0] < at[1] && at[1] < at[2],
	   "equal rows: a shared object's first, then addresses as perf orders them");
	if (!(at[0] && at[1] && at[2] && at[0] < at[1] && at[1] < at[2]))
		printf("# the report:\n%s", text);
	free(text);
	prec_hist__free(h);
	prec_symtab__free(st);
}

#define BIG_SAMPLES 30000
#define BIG_ADDRS 9000 /* distinct frames, each an entry of its own (sorted by sym) */

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13; /* xorshift64 */
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The --stdio text of a report of random stacks of unmapped frames; *ret_rows: its entries. */
static char *big_report(bool children, bool one_thread, uint32_t *ret_rows)
{
	static const char *const comms[] = { "app", "worker" };
	struct prec_hist_opts ho = { 0 };
	struct prec_view_opts vo = { 0 };
	struct prec_view_evsel ev = { .name = "cpu-clock" };
	struct prec_hist_frame fr[8];
	struct prec_symtab *st = NULL;
	struct prec_hist *h = NULL;
	uint64_t x = 88172645463325252ULL;
	char *text;
	int i, k;

	ho.keys[0] = PREC_SORT_COMM;
	ho.keys[1] = PREC_SORT_SYM;
	ho.nr_keys = 2;
	ho.children = children;
	ho.keep_occurrences = true;
	new_hist(&ho, &st, &h);
	for (i = 0; i < BIG_SAMPLES; i++) {
		struct prec_hist_sample s = { 0 };
		int depth = 1 + (int)(rnd(&x) % 8);

		memset(fr, 0, sizeof(fr));
		for (k = 0; k < depth; k++) /* dso 0: no mapping; few outer frames, many leaves */
			fr[k].addr = 0x1000 + 0x10 * (rnd(&x) % (k ? 64 * (uint64_t)k : BIG_ADDRS));
		s.comm = comms[rnd(&x) % 2];
		s.pid = s.tid = 100;
		s.period = 1 + rnd(&x) % 3; /* equal weights, so that the keys decide */
		add_sample(h, &s, fr, (size_t)depth);
	}
	vo.graph = PREC_GRAPH_GRAPH;
	vo.graph_threshold = 0.01;
	vo.evsels = &ev;
	vo.one_thread = one_thread;
	text = stdio_text(h, &vo);
	prec_hist__entries(h, ret_rows);
	prec_hist__free(h);
	prec_symtab__free(st);
	return text;
}

static void check_one_thread(void)
{
	int children;

	for (children = 0; children < 2; children++) {
		uint32_t rows, rows1;
		char *two = big_report(children, false, &rows);
		char *one = big_report(children, true, &rows1);

		ok(rows >= 4096 && strstr(two, "---"), "%s: %u entries (the sort thread takes 4096 "
		   "or more), graphs shown", children ? "children" : "no children", rows);
		ok(!strcmp(two, one), "%s: the same output on one thread as on two (%zu bytes)",
		   children ? "children" : "no children", strlen(two));
		free(two);
		free(one);
	}
}

int main(void)
{
	static const double edges[] = { 0.0, 0.005, 0.015, 0.125, 0.375, 0.625, 0.875, 1.125,
					2.5, 9.995, 99.995, 100.0, 1e-300, 12.345, 0.045 };
	uint64_t total, v, x = 88172645463325252ULL;
	long i, n = 0;

	for (total = 1; total < 4000; total += 3)
		for (v = 0; v <= total; v++, n++)
			check(100.0 * (double)v / (double)total);
	for (i = 0; i < 2000000; i++, n++) {
		x ^= x << 13; /* xorshift64 */
		x ^= x >> 7;
		x ^= x << 17;
		total = x % 100000000000ULL + 1;
		check(100.0 * (double)(x / 7 % (total + 1)) / (double)total);
	}
	for (i = 0; i < (long)(sizeof(edges) / sizeof(edges[0])); i++, n++)
		check(edges[i]);
	ok(differ == 0, "%ld shares printed as printf prints them (%ld differ)", n, differ);
	check_minus_one();
	check_equal_rows();
	check_one_thread();
	return done_testing();
}
