/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (preport --folded), for flame graph tools: one line per distinct symbolized
 * stack, "comm;outer;...;leaf COUNT", the stacks that symbolize alike merged, lines in byte
 * order.  Counts are samples, not periods.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_view_int.h"

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
	uint32_t *seq = NULL, node, nr_stacks = prec_hist__nr_stacks(h);
	char *line = NULL, buf[NAME_MAX_LEN];
	int err = -ENOMEM;

	memset(&lines, 0, sizeof(lines));
	prec_keyset__init(&ids, sizeof(uintptr_t));
	for (node = 0; node < nr_stacks; node++) {
		struct prec_path path;
		const char *s, *comm;
		uintptr_t key;
		size_t len = 0;
		long n, k, id;
		bool is_new;

		n = prec_hist__path(h, node, SIZE_MAX, &path, &seq, &seq_cap);
		if (n < 0)
			goto out;
		if (!path.count)
			continue;
		comm = prec_hist__stack_comm(h, node);
		for (k = n; k >= -1; k--) {
			size_t l;

			if (k == n)
				s = comm ? comm : "[unknown]";
			else if (k >= 0)
				s = prec_view_frame_name(h, seq[k], true, buf, sizeof(buf));
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
		    prec_array__grow((void **)&order, &order_cap, (size_t)id + 1, sizeof(*order),
				     256))
			goto out;
		if (is_new) {
			counts[id] = 0;
			order[id] = s;
		}
		counts[id] += path.count;
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
