/* SPDX-License-Identifier: MIT */
/*
 * The time-ordering queue (prec_order.h).  Entries are (time, arrival) with the place of
 * the record: a copy in one of two arenas, or the reader's own memory.  Copies are 8-byte
 * aligned; new ones go to arenas[cur], the other arena holds what the last flush left (a
 * round's records wait for the next round), so a record is copied once.  Invariant: after a
 * flush every entry left has a time above the limit, in (time, arrival) order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_order.h"

#define QUEUE_MAX_BYTES (64u << 20)
#define IN_PLACE 2 /* qent.arena of a record the reader keeps (prec_record.stable) */

struct qent {
	uint64_t time;
	uint64_t seq;
	size_t off; /* in arenas[arena]; IN_PLACE: the record's address */
	uint32_t size;
	int evsel;
	unsigned int arena;
};

struct prec_order {
	prec_order_fn fn;
	void *arg;
	struct prec_reader *r;
	struct qent *q;
	size_t nq, qcap;
	struct prec_buf arenas[2];
	unsigned int cur;
	size_t queued_bytes; /* of the records in the queue, padded */
	uint64_t seq, round_max, prev_round_max;
	struct qent *qtmp;
	size_t qtmp_cap;
};

int prec_order__new(prec_order_fn fn, void *arg, struct prec_order **ret)
{
	struct prec_order *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->fn = fn;
	q->arg = arg;
	*ret = q;
	return 0;
}

void prec_order__free(struct prec_order *q)
{
	if (!q)
		return;
	free(q->qtmp);
	free(q->q);
	prec_buf__release(&q->arenas[0]);
	prec_buf__release(&q->arenas[1]);
	free(q);
}

void prec_order__reset(struct prec_order *q, struct prec_reader *r)
{
	q->r = r;
	q->nq = 0;
	q->queued_bytes = 0;
	q->arenas[0].len = q->arenas[1].len = 0;
	q->seq = q->round_max = q->prev_round_max = 0;
}

static int cmp_qent(const struct qent *x, const struct qent *y)
{
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the queue by (time, arrival).  The records of one ring come in time order, so the
 * queue is a few sorted runs (one per CPU and round): merge them, n log(runs).
 */
static int sort_queue(struct prec_order *q)
{
	struct qent *a = q->q, *b;
	size_t n = q->nq, width_runs, i;
	size_t *runs, nr = 0;

	if (n < 2) /* sorted; and runs[] below needs two slots */
		return 0;
	runs = malloc((n + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	runs[nr++] = 0;
	for (i = 1; i < n; i++)
		if (cmp_qent(&a[i - 1], &a[i]) > 0)
			runs[nr++] = i;
	runs[nr] = n;
	if (nr <= 1) {
		free(runs);
		return 0;
	}
	if (prec_array__grow((void **)&q->qtmp, &q->qtmp_cap, n, sizeof(*q->qtmp), 4096)) {
		free(runs);
		return -ENOMEM;
	}
	b = q->qtmp;
	/* merge run pairs until one run is left; runs[] keeps the boundaries */
	for (width_runs = nr; width_runs > 1;) {
		size_t k = 0, r;
		struct qent *t;

		for (r = 0; r < width_runs; r += 2) {
			size_t lo = runs[r], mid = runs[r + 1 <= width_runs ? r + 1 : width_runs];
			size_t hi = r + 2 <= width_runs ? runs[r + 2] : mid;
			size_t x = lo, y = mid, o = lo;

			while (x < mid && y < hi)
				b[o++] = cmp_qent(&a[x], &a[y]) <= 0 ? a[x++] : a[y++];
			while (x < mid)
				b[o++] = a[x++];
			while (y < hi)
				b[o++] = a[y++];
			runs[k++] = lo;
		}
		runs[k] = n;
		width_runs = k;
		t = a;
		a = b;
		b = t;
	}
	if (a != q->q)
		memcpy(q->q, a, n * sizeof(*a));
	free(runs);
	return 0;
}

/* A record's room in an arena: padded to 8 bytes so the next one stays aligned. */
static size_t arena_size(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

/* Append a copy of a record to `b`. */
static int arena_add(struct prec_buf *b, const void *rec, size_t size)
{
	size_t padded = arena_size(size);

	if (padded > b->cap - b->len && prec_buf__reserve(b, padded))
		return -ENOMEM;
	memcpy(b->data + b->len, rec, size);
	memset(b->data + b->len + size, 0, padded - size);
	b->len += padded;
	return 0;
}

/*
 * Hand on the queued records with time <= limit, in time order.  What stays is normally all
 * in arenas[cur] (the round just read): that arena becomes the other one and new records go
 * to the emptied one.  What stays in the other arena (a file out of perf's order) is copied
 * over first.
 */
static int flush(struct prec_order *q, uint64_t limit)
{
	unsigned int old = !q->cur;
	const void *oldest;
	size_t i, k = 0;
	int err;

	err = sort_queue(q);
	if (err)
		return err;
	for (i = 0; i < q->nq && q->q[i].time <= limit; i++) {
		const struct qent *e = &q->q[i];
		const struct perf_event_header *hd =
			e->arena == IN_PLACE ? (const void *)(uintptr_t)e->off
					     : (const void *)(q->arenas[e->arena].data + e->off);

		err = q->fn(q->arg, hd, e->size, e->evsel);
		if (err)
			return err;
	}
	q->queued_bytes = 0;
	oldest = NULL;
	for (; i < q->nq; i++, k++) {
		q->q[k] = q->q[i];
		q->queued_bytes += arena_size(q->q[k].size);
		if (q->q[k].arena == IN_PLACE) {
			const void *p = (const void *)(uintptr_t)q->q[k].off;

			if (!oldest || p < oldest)
				oldest = p;
			continue;
		}
		if (q->q[k].arena == old) {
			size_t off = q->arenas[q->cur].len;

			if (arena_add(&q->arenas[q->cur], q->arenas[old].data + q->q[k].off,
				      q->q[k].size))
				return -ENOMEM;
			q->q[k].arena = q->cur;
			q->q[k].off = off;
		}
	}
	q->nq = k;
	q->arenas[old].len = 0;
	if (!k)
		q->arenas[q->cur].len = 0;
	else
		q->cur = old;
	/* what the queue still holds of a mapped file starts at `oldest` */
	prec_reader__release(q->r, oldest);
	return 0;
}

/* The entry of a record whose copy (or the reader's own) is at `off`. */
static inline int push(struct prec_order *q, const struct prec_record *rec, uint64_t time,
		       int evsel, size_t off)
{
	struct qent *e = &q->q[q->nq++];

	e->time = time;
	e->seq = q->seq++;
	e->off = off;
	e->size = rec->size;
	e->evsel = evsel;
	e->arena = rec->stable ? IN_PLACE : q->cur;
	q->queued_bytes += arena_size(rec->size);
	if (time > q->round_max)
		q->round_max = time;
	/* no rounds in this file: hand on the older half */
	if (q->queued_bytes > QUEUE_MAX_BYTES)
		return flush(q, q->q[q->nq / 2].time);
	return 0;
}

/* prec_order__add() when the queue is full or the record must be copied. */
static __attribute__((noinline)) int add_slow(struct prec_order *q, const struct prec_record *rec,
					     uint64_t time, int evsel)
{
	struct prec_buf *a = &q->arenas[q->cur];
	size_t off = a->len;

	if (q->nq == q->qcap &&
	    prec_array__grow((void **)&q->q, &q->qcap, q->nq + 1, sizeof(*q->q), 4096))
		return -ENOMEM;
	/* a record the reader keeps is not copied */
	if (rec->stable)
		off = (size_t)(uintptr_t)rec->data;
	else if (arena_add(a, rec->data, rec->size))
		return -ENOMEM;
	return push(q, rec, time, evsel, off);
}

int prec_order__add(struct prec_order *q, const struct prec_record *rec, uint64_t time,
		    int evsel)
{
	/* the common case (a record of a mapped file, room left) out of the way of the rest,
	 * which would cost it register saves */
	if (q->nq == q->qcap || !rec->stable)
		return add_slow(q, rec, time, evsel);
	return push(q, rec, time, evsel, (size_t)(uintptr_t)rec->data);
}

int prec_order__round(struct prec_order *q)
{
	int err = flush(q, q->prev_round_max);

	q->prev_round_max = q->round_max;
	return err;
}

int prec_order__flush_all(struct prec_order *q)
{
	return flush(q, UINT64_MAX);
}
