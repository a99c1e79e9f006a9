/* SPDX-License-Identifier: MIT */
/*
 * A growable byte buffer, and the growth rule for typed arrays.  Zero-initialise a buffer
 * (struct prec_buf b = {0}); free it with prec_buf__release().  The storage is malloc'ed
 * and aligned for any type, so data at offset 0 is 8-byte aligned.
 */
#ifndef PREC_BUF_H
#define PREC_BUF_H

#include <stddef.h>
#include <stdint.h>

struct prec_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* Make room for at least `extra` more bytes after len. -ENOMEM on failure. */
int prec_buf__reserve(struct prec_buf *b, size_t extra);

/* Append `n` bytes (n may be 0). -ENOMEM on failure, buffer unchanged. */
int prec_buf__append(struct prec_buf *b, const void *p, size_t n);

/* Append `n` zero bytes. */
int prec_buf__append_zeros(struct prec_buf *b, size_t n);

/* Drop the first `n` bytes (n <= len), moving the rest to the front. */
void prec_buf__consume(struct prec_buf *b, size_t n);

/* Free the storage; the buffer is empty and reusable afterwards. NULL-safe. */
void prec_buf__release(struct prec_buf *b);

/*
 * Make the malloc'ed array *arr (*cap items of `elem` bytes; NULL when *cap is 0) hold at
 * least `need` items, doubling its capacity from at least `first`.  0, or -ENOMEM with *arr
 * and *cap unchanged.  New items are not initialised.
 */
int prec_array__grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first);
/* The same, with the new items zeroed. */
int prec_array__grow_zero(void **arr, size_t *cap, size_t need, size_t elem, size_t first);

/*
 * calloc() for tables that are read before they are written (hash slots): the new pages
 * are written at once, so each costs one page fault.  Fresh pages that are read first map
 * the shared zero page, and the first write then takes a second fault, which in a process
 * with two running threads also interrupts the other CPU to flush its TLB.
 */
void *prec_calloc_written(size_t n, size_t size);

/* A key, and what sorts with it (an index, say), for prec_radix__sort(). */
struct prec_radix {
	uint64_t key;
	uint64_t val;
};

/*
 * Sort a[0, n) by key, ascending and stable: an LSD radix sort, a byte per pass, skipping
 * the passes where every key has the same byte (most of the high ones).  b[0, n) is its
 * scratch; the result is in whichever of the two it returns.
 */
struct prec_radix *prec_radix__sort(struct prec_radix *a, struct prec_radix *b, size_t n);

/*
 * prec_array__grow() for an array that may grow large: malloc'ed while under
 * PREC_MAPARRAY_MIN bytes, beyond that in a mapping of its own, which grows by moving its
 * pages instead of copying them (mremap).  A realloc'ed array fills fresh pages with each
 * copy; this one costs only the pages its items touch.  From 2 MiB on the mapping is a
 * multiple of 2 MiB in transparent huge pages where the kernel has them (prec_buf.c).
 * Capacities double from 16; free with prec_maparray__free().
 */
#define PREC_MAPARRAY_MIN (256u << 10)
int prec_maparray__grow(void **arr, size_t *cap, size_t need, size_t elem);
void prec_maparray__free(void *arr, size_t cap, size_t elem);

#endif
