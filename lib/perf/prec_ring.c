/* SPDX-License-Identifier: MIT */
/*
 * Ring-buffer draining.  Invariants: `tail` is our private copy of data_tail, advanced only
 * past records that were handed to the callback; `head` positions are byte counts that grow
 * forever (never masked) and are reduced with `mask` only to index the data area; the
 * kernel writes 8-byte-aligned records of 8..65535 bytes, but we check every header anyway
 * and treat a bad one as garbage: everything up to head is skipped and counted in `bad`.
 * The counts read only headers, and the body of LOST through lib/data's decoder.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "prec_record.h"
#include "prec_ring.h"

struct prec_ring {
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	size_t size;
	uint64_t mask;
	uint64_t tail;
	void *map;
	size_t map_len;
	unsigned char bounce[65536];
};

static int ring_new(void *base, size_t ctrl, size_t data_size, struct prec_ring **ret)
{
	struct prec_ring *r;

	if (!data_size || (data_size & (data_size - 1)))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->pg = base;
	r->data = (unsigned char *)base + ctrl;
	r->size = data_size;
	r->mask = data_size - 1;
	r->tail = __atomic_load_n(&r->pg->data_tail, __ATOMIC_RELAXED);
	*ret = r;
	return 0;
}

int prec_ring__map(int fd, size_t data_pages, struct prec_ring **ret)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (data_pages + 1) * (size_t)page;
	void *m;
	int err;

	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	err = ring_new(m, (size_t)page, data_pages * (size_t)page, ret);
	if (err) {
		munmap(m, len);
		return err;
	}
	(*ret)->map = m;
	(*ret)->map_len = len;
	return 0;
}

int prec_ring__init_mem(void *base, size_t data_size, struct prec_ring **ret)
{
	return ring_new(base, PREC_RING_CTRL_SIZE, data_size, ret);
}

void prec_ring__free(struct prec_ring *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r);
}

/* Copy `n` bytes starting at ring position `pos`, across the end if needed. */
static void ring_copy(const struct prec_ring *r, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & r->mask);
	size_t first = r->size - off < n ? r->size - off : n;

	memcpy(dst, r->data + off, first);
	if (first < n)
		memcpy((unsigned char *)dst + first, r->data, n - first);
}

/* Count the record `rec` (contiguous, `h` its header) in. */
static void count(const struct perf_event_header *h, const void *rec, struct prec_ring_stats *st)
{
	struct prec_rec_lost lost;

	st->records++;
	st->bytes += h->size;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		st->samples++;
		break;
	case PERF_RECORD_LOST:
		st->lost_records++;
		if (!prec_rec_lost__parse(rec, h->size, &lost))
			st->lost += lost.lost;
		break;
	case PERF_RECORD_THROTTLE:
		st->throttles++;
		break;
	default:
		break;
	}
}

static void publish_tail(struct prec_ring *r, uint64_t tail)
{
	r->tail = tail;
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
}

int prec_ring__drain(struct prec_ring *r, prec_ring_fn fn, void *ctx, struct prec_ring_stats *st)
{
	struct prec_ring_stats dummy;
	struct perf_event_header h;
	uint64_t head, pos, run;
	size_t off;
	int rc = 0;

	if (!st)
		st = &dummy;
	head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	pos = r->tail;
	if (head - pos > r->size) {
		/* we fell behind or the page is garbage: nothing in between can be trusted */
		st->bad++;
		publish_tail(r, head);
		return 0;
	}
	run = pos;
	while (pos < head) {
		if (head - pos < sizeof(h))
			goto garbage;
		ring_copy(r, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pos)
			goto garbage;
		off = (size_t)(pos & r->mask);
		if (off + h.size > r->size) {
			/* the record wraps: hand out the run before it, then the record alone */
			if (pos > run) {
				rc = fn(ctx, r->data + (run & r->mask), (size_t)(pos - run));
				run = pos;
				if (rc)
					goto out;
				publish_tail(r, pos);
			}
			ring_copy(r, pos, r->bounce, h.size);
			count(&h, r->bounce, st);
			rc = fn(ctx, r->bounce, h.size);
			pos += h.size;
			run = pos;
			if (rc)
				goto out;
			publish_tail(r, pos);
			continue;
		}
		count(&h, r->data + off, st);
		pos += h.size;
		if (off + h.size == r->size) {
			/* the run ends exactly at the end of the buffer */
			rc = fn(ctx, r->data + (run & r->mask), (size_t)(pos - run));
			run = pos;
			if (rc)
				goto out;
			publish_tail(r, pos);
		}
	}
	if (pos > run)
		rc = fn(ctx, r->data + (run & r->mask), (size_t)(pos - run));
	run = pos;
out:
	publish_tail(r, run);
	return rc;
garbage:
	if (pos > run)
		rc = fn(ctx, r->data + (run & r->mask), (size_t)(pos - run));
	st->bad++;
	publish_tail(r, head);
	return rc;
}

uint64_t prec_ring__pending(const struct prec_ring *r)
{
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE) - r->tail;
}

size_t prec_ring__data_size(const struct prec_ring *r)
{
	return r->size;
}
