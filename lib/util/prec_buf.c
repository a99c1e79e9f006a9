/* SPDX-License-Identifier: MIT */
/*
 * Growable byte buffer.  Invariant: len <= cap; data is NULL only when cap is 0.  Growth is
 * geometric so appends are amortised O(1); sizes are checked for overflow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prec_buf.h"

int prec_buf__reserve(struct prec_buf *b, size_t extra)
{
	size_t need, cap;
	unsigned char *p;

	if (extra > SIZE_MAX - b->len)
		return -ENOMEM;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int prec_buf__append(struct prec_buf *b, const void *p, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = prec_buf__reserve(b, n);
	if (err)
		return err;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int prec_buf__append_zeros(struct prec_buf *b, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = prec_buf__reserve(b, n);
	if (err)
		return err;
	memset(b->data + b->len, 0, n);
	b->len += n;
	return 0;
}

void prec_buf__consume(struct prec_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void prec_buf__release(struct prec_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

int prec_array__grow(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int prec_array__grow_zero(void **arr, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t old = *cap;

	if (prec_array__grow(arr, cap, need, elem, first))
		return -ENOMEM;
	if (*cap > old)
		memset((char *)*arr + old * elem, 0, (*cap - old) * elem);
	return 0;
}

void *prec_calloc_written(size_t n, size_t size)
{
	volatile unsigned char *p = calloc(n, size);
	size_t i;

	if (p) /* calloc checked n * size */
		for (i = 0; i < n * size; i += 4096)
			p[i] = 0;
	return (void *)p;
}

/*
 * Huge pages for the large arrays: the trie's nodes on A (8 MiB) cost the reading thread 2,000
 * page faults in 4 KiB pages, and their random reads a TLB miss each.  A mapping of a multiple
 * of 2 MiB is placed at a 2 MiB boundary by the kernel (6.7 on), and with MADV_HUGEPAGE
 * (transparent_hugepage "madvise", Debian's default) its aligned parts are faulted in 2 MiB at
 * a time.  Where the kernel has no THP the advice fails, and it is 4 KiB pages as before.
 */
#define HUGE_BYTES ((size_t)2 << 20)

/* The bytes of a mapping for `cap` items of `elem` bytes: a whole number of pages, of huge
 * pages from one on. */
static size_t map_bytes(size_t cap, size_t elem)
{
	size_t pg = cap * elem >= HUGE_BYTES ? HUGE_BYTES : (size_t)sysconf(_SC_PAGESIZE);

	return (cap * elem + pg - 1) / pg * pg;
}

/* Whether an array of `cap` items of `elem` bytes is in a mapping (else malloc'ed). */
static int is_mapped(size_t cap, size_t elem)
{
	return cap * elem >= PREC_MAPARRAY_MIN;
}

int prec_maparray__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16, bytes, old;
	void *p;

	if (need <= *cap)
		return 0;
	if (!elem || need > SIZE_MAX / 4 / elem)
		return -ENOMEM;
	while (ncap < need)
		ncap *= 2;
	if (!is_mapped(ncap, elem)) /* still small: the same doubling, malloc'ed */
		return prec_array__grow(arr, cap, need, elem, 16);
	bytes = map_bytes(ncap, elem);
	old = is_mapped(*cap, elem) ? map_bytes(*cap, elem) : 0;
	if (old >= HUGE_BYTES || (old && bytes < HUGE_BYTES)) {
		p = mremap(*arr, old, bytes, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return -ENOMEM;
	} else {
		/* a new mapping (the first, or the first of huge pages, aligned): copied into */
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		if (bytes >= HUGE_BYTES)
			(void)madvise(p, bytes, MADV_HUGEPAGE);
		if (*cap)
			memcpy(p, *arr, *cap * elem);
		if (old)
			munmap(*arr, old);
		else
			free(*arr);
	}
	*arr = p;
	*cap = bytes / elem; /* the whole last page */
	return 0;
}

void prec_maparray__free(void *arr, size_t cap, size_t elem)
{
	if (is_mapped(cap, elem))
		munmap(arr, map_bytes(cap, elem));
	else
		free(arr);
}

struct prec_radix *prec_radix__sort(struct prec_radix *a, struct prec_radix *b, size_t n)
{
	size_t cnt[8][256], i, sum, c;
	unsigned int d, k, nb = 0, bytes[8];
	uint64_t diff = 0;

	/* the bytes in which some keys differ: only those are counted and sorted by */
	for (i = 1; i < n; i++)
		diff |= a[i].key ^ a[0].key;
	for (d = 0; d < 8; d++)
		if ((diff >> (8 * d)) & 0xff)
			bytes[nb++] = d;
	memset(cnt, 0, nb * sizeof(cnt[0]));
	for (i = 0; i < n; i++)
		for (k = 0; k < nb; k++)
			cnt[k][(a[i].key >> (8 * bytes[k])) & 0xff]++;
	for (k = 0; k < nb; k++) {
		struct prec_radix *t;

		for (i = 0, sum = 0; i < 256; i++) {
			c = cnt[k][i];
			cnt[k][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[cnt[k][(a[i].key >> (8 * bytes[k])) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}
