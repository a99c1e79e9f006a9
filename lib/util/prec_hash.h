/* SPDX-License-Identifier: MIT */
/*
 * Interning tables.  A prec_keyset maps fixed-size keys to dense ids 0, 1, 2, ... in order of
 * first appearance, so callers keep their payloads in plain arrays indexed by id.  A
 * prec_strset interns strings: equal strings give the same stable pointer.
 *
 * Both zero-initialise to an empty but unusable state: call the __init first.  Keys are
 * compared bytewise, so callers zero any padding.  Not thread-safe.
 */
#ifndef PREC_HASH_H
#define PREC_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_keyset {
	size_t ksize; /* bytes per key */
	/* bytes per record: the key, then (with prec_keyset__init_records) the caller's
	 * data about it, zeroed when the key is added */
	size_t rsize;
	unsigned char *keys; /* n records, id order: a prec_maparray (prec_buf.h) of cap */
	size_t cap;
	uint32_t n;
	uint64_t *slots; /* hash tag << 32 | id + 1, 0 = empty; nslots is a power of two */
	uint32_t nslots;
};

/*
 * Tables of tagged slots (tag << 32 | value, 0 = empty), of a power-of-two size n, the home
 * slot of a tag being tag & (n - 1), collisions going on to the next slot (linear probing),
 * at most half full.  prec_slots__grow() makes one (*nr == 0: of `first` slots, a power of
 * two) or doubles it in place: the table is a mapping of its own that grows by moving its
 * pages, and the slots are moved within it, so growing touches only the new half's pages
 * (a table copied into a new one touches both, twice the memory in all).  0, -ENOMEM or
 * -E2BIG.  Free with prec_slots__free().
 */
int prec_slots__grow(uint64_t **slots, uint32_t *nr, uint32_t first);
/* The same doubling, of a table t of `old` slots in memory that already holds 2 * old, the
 * second half zeroed (a table in a reserved mapping that does not move).  0 or -ENOMEM. */
int prec_slots__double_in(uint64_t *t, uint32_t old);
void prec_slots__free(uint64_t *slots, uint32_t nr);

void prec_keyset__init(struct prec_keyset *ks, size_t ksize);
/* A keyset whose records are `rsize` bytes, the key their first `ksize`: the records are
 * then the caller's array by id (prec_keyset__record), with no copy of the keys beside. */
void prec_keyset__init_records(struct prec_keyset *ks, size_t ksize, size_t rsize);
/* The id of `key`, added if new (*ret_new tells which; may be NULL); -ENOMEM, or -E2BIG past
 * 2^31 keys. */
long prec_keyset__intern(struct prec_keyset *ks, const void *key, bool *ret_new);
/* Hash of `key` for the two below.  prec_keyset__prefetch() brings the key's home slot
 * into the cache ahead of an intern (a hint: harmless if the table grows meanwhile). */
uint64_t prec_keyset__hash(const struct prec_keyset *ks, const void *key);
void prec_keyset__prefetch(const struct prec_keyset *ks, uint64_t h);
long prec_keyset__intern_hashed(struct prec_keyset *ks, const void *key, uint64_t h,
				bool *ret_new);
/* The next step ahead, once the slot is in: fetch the key the home slot points to, if its
 * tag is the key's (reads the slot). */
void prec_keyset__prefetch_key(const struct prec_keyset *ks, uint64_t h);
/* Room for n keys in all, so that interning up to there neither rehashes nor moves the
 * records.  0 or -ENOMEM/-E2BIG. */
int prec_keyset__reserve(struct prec_keyset *ks, uint32_t n);
/* The id of `key`, or -ENOENT. */
long prec_keyset__find(const struct prec_keyset *ks, const void *key);
static inline const void *prec_keyset__key(const struct prec_keyset *ks, uint32_t id)
{
	return ks->keys + (size_t)id * ks->rsize;
}
/* Record `id`, writable; the array moves when a key is added. */
static inline void *prec_keyset__record(struct prec_keyset *ks, uint32_t id)
{
	return ks->keys + (size_t)id * ks->rsize;
}
void prec_keyset__release(struct prec_keyset *ks); /* back to empty; init again to reuse */

struct prec_strset {
	char **slots;
	size_t nslots, n;
	struct prec_strchunk *chunks;
};

/* The interned copy of `s` (valid until release), or NULL on -ENOMEM. */
const char *prec_strset__intern(struct prec_strset *ss, const char *s);
/* Same, for `len` bytes that need not be terminated. */
const char *prec_strset__intern_n(struct prec_strset *ss, const char *s, size_t len);
void prec_strset__release(struct prec_strset *ss);

/* A 64-bit hash of `n` bytes. */
uint64_t prec_hash_bytes(const void *p, size_t n);

#endif
