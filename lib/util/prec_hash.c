/* SPDX-License-Identifier: MIT */
/*
 * Open-addressing hash tables with linear probing, grown at 50% load.  A keyset stores ids
 * in its slots and the keys in one array in id order, so ids are dense and stable, and a
 * rehash touches only the slots.  A strset stores pointers to copies kept in chunks that
 * never move, so interned pointers stay valid until release.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "prec_buf.h"
#include "prec_hash.h"

#define MUL 0x9e3779b97f4a7c15ULL

uint64_t prec_hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = n * MUL, w;

	while (n >= 8) {
		memcpy(&w, c, 8);
		h = (h ^ w) * MUL;
		h ^= h >> 29;
		c += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, c, n);
		h = (h ^ w) * MUL;
	}
	h ^= h >> 32;
	h *= MUL;
	return h ^ (h >> 29);
}

/* Put slot v (not there yet) into t, whose size is mask + 1: from its home on, the first
 * empty slot. */
static void slot_put(uint64_t *t, uint32_t mask, uint64_t v)
{
	uint32_t p = (uint32_t)(v >> 32) & mask;

	while (t[p])
		p = (p + 1) & mask;
	t[p] = v;
}

/* Put every slot of t (n slots) where a fresh table would have it. */
static int slots_rehash(uint64_t *t, uint32_t n)
{
	uint32_t i, k = 0;
	uint64_t *v = malloc((size_t)n / 2 * sizeof(*v) + sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (t[i] && k <= n / 2)
			v[k++] = t[i];
	memset(t, 0, (size_t)n * sizeof(*t));
	for (i = 0; i < k; i++)
		slot_put(t, n - 1, v[i]);
	free(v);
	return 0;
}

/*
 * Doubling in place.  A slot's new home is its old one or that plus the old size.  The old
 * half is taken in circular order from just after an empty slot, so that each run of full
 * slots is taken from its start; each slot taken is emptied and put back from its new home.
 * A slot put back in the old half lands at or before where it was (its run, from its home
 * on, has been taken already), one put in the new half meets only slots put there; neither
 * passes over a slot not yet taken, whose emptying would cut it off from its home.  The one
 * exception, a run in the new half reaching its end and wrapping around to the old half, is
 * mended by putting everything back afresh.
 */
int prec_slots__grow(uint64_t **slots, uint32_t *nr, uint32_t first)
{
	uint32_t old = *nr, n = old ? old * 2 : first, mask = n - 1;
	uint64_t *t;

	if (!n || (n & mask) || n > (1u << 29))
		return -E2BIG;
	if (!old)
		t = mmap(NULL, (size_t)n * sizeof(*t), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		t = mremap(*slots, (size_t)old * sizeof(*t), (size_t)n * sizeof(*t), MREMAP_MAYMOVE);
	if (t == MAP_FAILED)
		return -ENOMEM;
	if ((size_t)n * sizeof(*t) >= (2u << 20)) /* huge pages where aligned: see prec_buf.c */
		(void)madvise(t, (size_t)n * sizeof(*t), MADV_HUGEPAGE);
	/* the new pages are written at once: one call, not a fault per page (nor two: see
	 * prec_calloc_written); an old kernel without it faults them in one by one */
	(void)madvise(t + old, (size_t)(n - old) * sizeof(*t), MADV_POPULATE_WRITE);
	*slots = t;
	*nr = n;
	if (!old)
		return 0;
	return prec_slots__double_in(t, old);
}

int prec_slots__double_in(uint64_t *t, uint32_t old)
{
	uint32_t n = old * 2, mask = n - 1, s0, k;
	bool wrapped = false;

	for (s0 = 0; s0 < old && t[s0]; s0++)
		;
	if (s0 == old) /* no empty slot: not a table of ours; still, keep every slot */
		return slots_rehash(t, n);
	for (k = 1; k <= old; k++) {
		uint32_t i = (s0 + k) & (old - 1), p;
		uint64_t v = t[i];

		if (!v)
			continue;
		t[i] = 0;
		p = (uint32_t)(v >> 32) & mask;
		while (t[p]) {
			p = (p + 1) & mask;
			wrapped |= !p;
		}
		t[p] = v;
	}
	return wrapped ? slots_rehash(t, n) : 0;
}

void prec_slots__free(uint64_t *slots, uint32_t nr)
{
	if (slots)
		munmap(slots, (size_t)nr * sizeof(*slots));
}

void prec_keyset__init(struct prec_keyset *ks, size_t ksize)
{
	prec_keyset__init_records(ks, ksize, ksize);
}

void prec_keyset__init_records(struct prec_keyset *ks, size_t ksize, size_t rsize)
{
	memset(ks, 0, sizeof(*ks));
	ks->ksize = ksize;
	ks->rsize = rsize > ksize ? rsize : ksize;
}

/* A slot holds (tag << 32 | id + 1), the tag being the hash's high half: most probes of
 * another key are told apart without reading the key array.  The tag's low bits pick the
 * home slot, so growing the table reads no key. */
#define SLOT(id, h) ((uint64_t)((h) >> 32) << 32 | ((uint64_t)(id) + 1))
#define SLOT_ID(v) ((uint32_t)(v)-1)
#define SLOT_TAG(v) ((uint32_t)((v) >> 32))

/*
 * Keys of whole 8-byte words (all the reporter's) are compared and copied inline, a word at
 * a time: a call to memcmp/memcpy per probe cost more than the compare.
 */
static inline bool key_eq(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	if (n % 8)
		return !memcmp(a, b, n);
	for (size_t i = 0; i < n; i += 8) {
		uint64_t u, v;

		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		if (u != v)
			return false;
	}
	return true;
}

static inline void key_copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n % 8) {
		memcpy(dst, src, n);
		return;
	}
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		memcpy(d + i, &w, 8);
	}
}

/*
 * A keyset's slot table: from 2 MiB on a mapping of its own in huge pages (see prec_buf.c;
 * the frame and sframe tables of a large report, probed at random by the background thread),
 * below that malloc'ed.
 */
#define HUGE_SLOTS ((2u << 20) / sizeof(uint64_t))

static uint64_t *slots_alloc(uint32_t n)
{
	uint64_t *t;

	if (n < HUGE_SLOTS)
		return prec_calloc_written(n, sizeof(*t));
	t = mmap(NULL, (size_t)n * sizeof(*t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	(void)madvise(t, (size_t)n * sizeof(*t), MADV_HUGEPAGE);
	return t;
}

static void slots_free(uint64_t *t, uint32_t n)
{
	if (n < HUGE_SLOTS)
		free(t);
	else
		munmap(t, (size_t)n * sizeof(*t));
}

static int keyset_grow_slots(struct prec_keyset *ks)
{
	uint32_t nslots = ks->nslots ? ks->nslots * 2 : 64, i, mask = nslots - 1;
	uint64_t *slots;

	if (nslots == 0 || nslots > (1u << 31))
		return -E2BIG;
	/* a new table, not prec_slots__grow(): the old one goes back to malloc, whose memory
	 * the other thread's allocations then reuse instead of faulting in fresh pages (on A,
	 * in place cost the reading thread 400 more page faults) */
	slots = slots_alloc(nslots);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < ks->nslots; i++)
		if (ks->slots[i])
			slot_put(slots, mask, ks->slots[i]);
	slots_free(ks->slots, ks->nslots);
	ks->slots = slots;
	ks->nslots = nslots;
	return 0;
}

/* The slot that holds `key` (hash `h`), or the empty slot where it would go.  There is
 * always an empty slot: the table is kept at most half full. */
/* The home slot of hash h: where its probe starts. */
static uint32_t home(const struct prec_keyset *ks, uint64_t h)
{
	return (uint32_t)(h >> 32) & (ks->nslots - 1);
}

static uint32_t probe(const struct prec_keyset *ks, const void *key, uint64_t h)
{
	uint32_t tag = (uint32_t)(h >> 32), mask = ks->nslots - 1, s = home(ks, h);

	while (ks->slots[s]) {
		uint64_t v = ks->slots[s];

		if (SLOT_TAG(v) == tag && key_eq(prec_keyset__key(ks, SLOT_ID(v)), key, ks->ksize))
			break;
		s = (s + 1) & mask;
	}
	return s;
}

long prec_keyset__find(const struct prec_keyset *ks, const void *key)
{
	uint32_t s;

	if (!ks->nslots)
		return -ENOENT;
	s = probe(ks, key, prec_hash_bytes(key, ks->ksize));
	return ks->slots[s] ? (long)SLOT_ID(ks->slots[s]) : -ENOENT;
}

uint64_t prec_keyset__hash(const struct prec_keyset *ks, const void *key)
{
	return prec_hash_bytes(key, ks->ksize);
}

void prec_keyset__prefetch(const struct prec_keyset *ks, uint64_t h)
{
	if (ks->nslots)
		__builtin_prefetch(&ks->slots[home(ks, h)]);
}

void prec_keyset__prefetch_key(const struct prec_keyset *ks, uint64_t h)
{
	uint64_t v;

	if (!ks->nslots)
		return;
	v = ks->slots[home(ks, h)];
	if (v && SLOT_TAG(v) == (uint32_t)(h >> 32))
		__builtin_prefetch(prec_keyset__key(ks, SLOT_ID(v)));
}

int prec_keyset__reserve(struct prec_keyset *ks, uint32_t n)
{
	int err;

	while ((uint64_t)n * 2 > ks->nslots) {
		err = keyset_grow_slots(ks);
		if (err)
			return err;
	}
	if (n > ks->cap && prec_maparray__grow((void **)&ks->keys, &ks->cap, n, ks->rsize))
		return -ENOMEM;
	return 0;
}

long prec_keyset__intern(struct prec_keyset *ks, const void *key, bool *ret_new)
{
	return prec_keyset__intern_hashed(ks, key, prec_hash_bytes(key, ks->ksize), ret_new);
}

long prec_keyset__intern_hashed(struct prec_keyset *ks, const void *key, uint64_t h,
				bool *ret_new)
{
	uint32_t s;
	int err;

	if ((uint64_t)(ks->n + 1) * 2 > ks->nslots) {
		err = keyset_grow_slots(ks);
		if (err)
			return err;
	}
	s = probe(ks, key, h);
	if (ks->slots[s]) {
		if (ret_new)
			*ret_new = false;
		return SLOT_ID(ks->slots[s]);
	}
	if (ks->n >= ks->cap &&
	    prec_maparray__grow((void **)&ks->keys, &ks->cap, (size_t)ks->n + 1, ks->rsize))
		return -ENOMEM;
	key_copy(ks->keys + (size_t)ks->n * ks->rsize, key, ks->ksize);
	if (ks->rsize > ks->ksize)
		memset(ks->keys + (size_t)ks->n * ks->rsize + ks->ksize, 0, ks->rsize - ks->ksize);
	ks->slots[s] = SLOT(ks->n, h);
	if (ret_new)
		*ret_new = true;
	return ks->n++;
}

void prec_keyset__release(struct prec_keyset *ks)
{
	prec_maparray__free(ks->keys, ks->cap, ks->rsize);
	slots_free(ks->slots, ks->nslots);
	prec_keyset__init_records(ks, ks->ksize, ks->rsize);
}

/* ---- strings ---- */

struct prec_strchunk {
	struct prec_strchunk *next;
	size_t used, cap;
	char data[];
};

static char *strset_store(struct prec_strset *ss, const char *s, size_t len)
{
	struct prec_strchunk *c = ss->chunks;
	char *p;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > 16384 ? len + 1 : 16384;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = ss->chunks;
		c->used = 0;
		c->cap = cap;
		ss->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = 0;
	c->used += len + 1;
	return p;
}

static int strset_grow(struct prec_strset *ss)
{
	size_t nslots = ss->nslots ? ss->nslots * 2 : 256, i, mask = nslots - 1;
	char **slots = prec_calloc_written(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < ss->nslots; i++) {
		size_t s;

		if (!ss->slots[i])
			continue;
		s = prec_hash_bytes(ss->slots[i], strlen(ss->slots[i])) & mask;
		while (slots[s])
			s = (s + 1) & mask;
		slots[s] = ss->slots[i];
	}
	free(ss->slots);
	ss->slots = slots;
	ss->nslots = nslots;
	return 0;
}

const char *prec_strset__intern_n(struct prec_strset *ss, const char *s, size_t len)
{
	size_t mask, i;

	if ((ss->n + 1) * 2 > ss->nslots && strset_grow(ss))
		return NULL;
	mask = ss->nslots - 1;
	i = prec_hash_bytes(s, len) & mask;
	while (ss->slots[i]) {
		if (!strncmp(ss->slots[i], s, len) && ss->slots[i][len] == 0)
			return ss->slots[i];
		i = (i + 1) & mask;
	}
	ss->slots[i] = strset_store(ss, s, len);
	if (!ss->slots[i])
		return NULL;
	ss->n++;
	return ss->slots[i];
}

const char *prec_strset__intern(struct prec_strset *ss, const char *s)
{
	return prec_strset__intern_n(ss, s, strlen(s));
}

void prec_strset__release(struct prec_strset *ss)
{
	while (ss->chunks) {
		struct prec_strchunk *c = ss->chunks;

		ss->chunks = c->next;
		free(c);
	}
	free(ss->slots);
	memset(ss, 0, sizeof(*ss));
}
