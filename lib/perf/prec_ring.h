/* SPDX-License-Identifier: MIT */
/*
 * A perf_event ring buffer and its reader.
 *
 * The kernel appends records and publishes `data_head`; we read [data_tail, data_head) and
 * give the space back by publishing `data_tail`.  prec_ring__drain() loads data_head with
 * acquire ordering (the record bytes are visible once head is), hands the new records to a
 * callback as runs of whole records that are contiguous in memory (a record that wraps
 * around the end of the buffer is copied into a bounce buffer and handed out alone), then
 * stores data_tail with release ordering (our reads are done before the kernel may reuse
 * the space).
 *
 * A ring can be mapped from a perf_event fd, or laid over caller memory (a control page of
 * PREC_RING_CTRL_SIZE bytes followed by a power-of-two data area) for tests.
 */
#ifndef PREC_RING_H
#define PREC_RING_H

#include <stddef.h>
#include <stdint.h>

#define PREC_RING_CTRL_SIZE 4096

struct prec_ring;

struct prec_ring_stats {
	uint64_t bytes;
	uint64_t records;
	uint64_t samples;
	uint64_t lost_records; /* PERF_RECORD_LOST records */
	uint64_t lost; /* samples the kernel said it dropped */
	uint64_t throttles;
	uint64_t bad; /* times the buffer held garbage and was skipped */
};

/*
 * Called with `len` bytes of whole records. A non-zero return stops the drain; the records
 * handed out so far are consumed, the rest stay in the ring.
 */
typedef int (*prec_ring_fn)(void *ctx, const void *data, size_t len);

/* mmap (1 + data_pages) pages of `fd` (data_pages: a power of two). */
int prec_ring__map(int fd, size_t data_pages, struct prec_ring **ret);

/* A ring over memory: PREC_RING_CTRL_SIZE bytes of control page, then data_size bytes. */
int prec_ring__init_mem(void *base, size_t data_size, struct prec_ring **ret);

/* Unmaps (if mapped) and frees. NULL-safe. */
void prec_ring__free(struct prec_ring *r);

/*
 * Hand everything the kernel has published to `fn`, then release the space.
 * Returns fn's non-zero value, or 0.  Stats are added to *st (may be NULL).
 */
int prec_ring__drain(struct prec_ring *r, prec_ring_fn fn, void *ctx, struct prec_ring_stats *st);

/* Bytes published but not consumed yet. */
uint64_t prec_ring__pending(const struct prec_ring *r);

/* Size of the data area in bytes. */
size_t prec_ring__data_size(const struct prec_ring *r);

#endif
