/* SPDX-License-Identifier: MIT */
/*
 * Records put back in time order, by rounds as perf does: the kernel writes each CPU's ring
 * in time order, but the rings are drained one after the other, so a file holds a few sorted
 * runs per FINISHED_ROUND.  At each FINISHED_ROUND the records up to the previous round's
 * latest time are handed on; the rest wait for the next round.
 *
 * The queue keeps copies of the records it holds (about two rounds; bounded by a maximum in
 * files without rounds, where the older half is handed on when it is reached), except records
 * the reader keeps itself (prec_record.stable), which are referenced in place and released
 * to the reader once handed on.  Not thread-safe.
 */
#ifndef PREC_ORDER_H
#define PREC_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "prec_reader.h"

struct prec_order;

/* What receives the records in time order: `rec` is the whole record (header included),
 * valid during the call.  A non-zero return stops the flush and is returned from it. */
typedef int (*prec_order_fn)(void *arg, const struct perf_event_header *rec, size_t size,
			     int evsel);

int prec_order__new(prec_order_fn fn, void *arg, struct prec_order **ret);
void prec_order__free(struct prec_order *q); /* NULL-safe */

/* Start a stream read from r (not owned): an empty queue, no rounds seen yet. */
void prec_order__reset(struct prec_order *q, struct prec_reader *r);

/* Queue a record with its time (0 for records without one: they go first) and event.
 * 0, an error of the callback, or -ENOMEM. */
int prec_order__add(struct prec_order *q, const struct prec_record *rec, uint64_t time,
		    int evsel);
/* A FINISHED_ROUND: hand on what the round before it covered.  0 or an error as above. */
int prec_order__round(struct prec_order *q);
/* The end of the stream: hand on everything.  0 or an error as above. */
int prec_order__flush_all(struct prec_order *q);

#endif
