/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (preport --folded), for flame graph tools: one line per distinct symbolized
 * stack, "comm;outer;...;leaf COUNT", the stacks that symbolize alike merged, lines in byte
 * order.  Counts are samples, not periods, of one event or of all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_hash.h"
#include "prec_view_int.h"

struct folded_line {
	const char *text; /* interned: one pointer per distinct line */
	uint64_t count;
};

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

/* Name s onto the line, then `end` (';' or the closing NUL).  0 or -ENOMEM. */
static int put_name(struct prec_buf *line, const char *s, char end)
{
	size_t n = strlen(s);

	if (line->cap - line->len <= n && prec_buf__reserve(line, n + 1))
		return -ENOMEM;
	memcpy(line->data + line->len, s, n);
	line->data[line->len + n] = (unsigned char)end;
	line->len += n + 1;
	return 0;
}

/* The text of a stack (its frames seq[0, n), leaf first) into `line`, NUL-terminated: the
 * comm, then the frames from the outermost caller to the leaf.  0 or -ENOMEM. */
static int stack_text(const struct prec_hist *h, const uint32_t *seq, long n, const char *comm,
		      struct prec_buf *line)
{
	char buf[NAME_MAX_LEN];

	line->len = 0;
	if (put_name(line, comm ? comm : "[unknown]", n ? ';' : 0))
		return -ENOMEM;
	while (n-- > 0)
		if (put_name(line, prec_view_frame_name(h, seq[n], true, buf, sizeof(buf)),
			     n ? ';' : 0))
			return -ENOMEM;
	return 0;
}

int prec_view__folded(struct prec_hist *h, uint32_t evsel, FILE *out)
{
	struct prec_strset texts = { 0 };
	struct prec_keyset ids; /* interned text -> its folded_line */
	struct prec_buf line = { 0 };
	struct folded_line *lines;
	size_t seq_cap = 0, i;
	uint32_t *seq = NULL, node, nr_stacks = prec_hist__nr_stacks(h);
	int err = -ENOMEM;

	prec_keyset__init_records(&ids, sizeof(const char *), sizeof(struct folded_line));
	for (node = 0; node < nr_stacks; node++) {
		struct prec_path path;
		long n = prec_hist__path(h, node, SIZE_MAX, &path, &seq, &seq_cap), id;
		const char *text;

		if (n < 0)
			goto out;
		/* --dsos and --symbols: the stacks of the samples taken in what they name, as the
		 * entries of a report without children are */
		if (!path.count || !prec_hist__sframe_shown(h, seq[0]) ||
		    !prec_view_stack_of(h, node, evsel))
			continue;
		if (stack_text(h, seq, n, prec_hist__stack_comm(h, node), &line))
			goto out;
		text = prec_strset__intern(&texts, (const char *)line.data);
		id = text ? prec_keyset__intern(&ids, &text, NULL) : -ENOMEM;
		if (id < 0)
			goto out;
		((struct folded_line *)prec_keyset__record(&ids, (uint32_t)id))->count += path.count;
	}
	/* no more lookups: the records are sorted where they are */
	lines = (struct folded_line *)(void *)ids.keys;
	if (ids.n)
		qsort(lines, ids.n, sizeof(*lines), cmp_lines);
	for (i = 0; i < ids.n; i++)
		fprintf(out, "%s %" PRIu64 "\n", lines[i].text, lines[i].count);
	err = ferror(out) ? -EIO : 0;
out:
	prec_strset__release(&texts);
	prec_keyset__release(&ids);
	prec_buf__release(&line);
	free(seq);
	return err;
}
