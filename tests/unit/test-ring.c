/* SPDX-License-Identifier: MIT */
/*
 * Tests prec_ring__drain() against a simulated mmap page in memory: a fake kernel writes
 * records of many sizes and publishes data_head; the reader must hand out exactly those
 * records, in order, intact, whatever the start offset (so records wrap at every position),
 * and also while a writer thread races the reader.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "prec_ring.h"

static int failures;

#define CHECK(cond, ...)                                                                       \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			failures++;                                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                   \
			fprintf(stderr, __VA_ARGS__);                                          \
			fputc('\n', stderr);                                                   \
		}                                                                              \
	} while (0)

struct sim {
	unsigned char *mem;
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	size_t size;
};

static void sim_init(struct sim *s, size_t size, uint64_t start)
{
	s->mem = aligned_alloc(4096, PREC_RING_CTRL_SIZE + size);
	memset(s->mem, 0, PREC_RING_CTRL_SIZE + size);
	s->pg = (struct perf_event_mmap_page *)s->mem;
	s->data = s->mem + PREC_RING_CTRL_SIZE;
	s->size = size;
	s->pg->data_head = start;
	s->pg->data_tail = start;
}

/* Record `seq` has a size derived from seq and a body filled from seq. */
static uint16_t rec_size(uint64_t seq, unsigned int maxsz)
{
	return (uint16_t)(8 + 8 * ((seq * 2654435761u) % (maxsz / 8)));
}

static void make_rec(uint64_t seq, unsigned int maxsz, unsigned char *out)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 0 };
	uint16_t i;

	h.size = rec_size(seq, maxsz);
	memcpy(out, &h, 8);
	for (i = 8; i < h.size; i++)
		out[i] = (unsigned char)(seq * 31 + i);
	if (h.size >= 16)
		memcpy(out + 8, &seq, 8);
}

/* Fake kernel: write one record at head if there is room; returns 1 if written. */
static int sim_write(struct sim *s, uint64_t seq, unsigned int maxsz)
{
	unsigned char rec[65536];
	uint64_t head = s->pg->data_head;
	uint64_t tail = __atomic_load_n(&s->pg->data_tail, __ATOMIC_ACQUIRE);
	uint16_t n = rec_size(seq, maxsz), i;

	if (head + n - tail > s->size)
		return 0;
	make_rec(seq, maxsz, rec);
	for (i = 0; i < n; i++)
		s->data[(head + i) & (s->size - 1)] = rec[i];
	__atomic_store_n(&s->pg->data_head, head + n, __ATOMIC_RELEASE);
	return 1;
}

struct checker {
	uint64_t next_seq;
	unsigned int maxsz;
	uint64_t bytes;
};

static int check_fn(void *ctx, const void *data, size_t len)
{
	struct checker *c = ctx;
	const unsigned char *p = data;
	unsigned char want[65536];
	struct perf_event_header h;

	while (len) {
		CHECK(len >= 8, "partial header in a run");
		if (len < 8)
			return -1;
		memcpy(&h, p, 8);
		make_rec(c->next_seq, c->maxsz, want);
		CHECK(h.size <= len, "record crosses the run end");
		if (h.size > len || memcmp(p, want, h.size)) {
			CHECK(0, "record %llu differs", (unsigned long long)c->next_seq);
			return -1;
		}
		c->next_seq++;
		c->bytes += h.size;
		p += h.size;
		len -= h.size;
	}
	return 0;
}

static void test_every_offset(size_t size, unsigned int maxsz)
{
	uint64_t start;

	for (start = 0; start < 2 * size; start += 8) {
		struct sim s;
		struct prec_ring *r;
		struct checker c = { 0, maxsz, 0 };
		struct prec_ring_stats st = { 0 };
		uint64_t seq = 0;
		int round;

		sim_init(&s, size, start + (start >= size ? (1ULL << 33) : 0));
		if (prec_ring__init_mem(s.mem, size, &r)) {
			CHECK(0, "init_mem failed");
			return;
		}
		for (round = 0; round < 6; round++) {
			while (sim_write(&s, seq, maxsz))
				seq++;
			CHECK(prec_ring__drain(r, check_fn, &c, &st) == 0, "drain failed");
			CHECK(s.pg->data_tail == s.pg->data_head, "tail not published");
		}
		CHECK(c.next_seq == seq, "start %llu: got %llu of %llu records",
		      (unsigned long long)start, (unsigned long long)c.next_seq,
		      (unsigned long long)seq);
		CHECK(st.samples == seq && st.records == seq, "stats count wrong");
		prec_ring__free(r);
		free(s.mem);
	}
}

static void test_garbage(void)
{
	struct sim s;
	struct prec_ring *r;
	struct checker c = { 0, 64, 0 };
	struct prec_ring_stats st = { 0 };
	struct perf_event_header bad = { .type = 9, .misc = 0, .size = 4 };

	sim_init(&s, 4096, 0);
	prec_ring__init_mem(s.mem, 4096, &r);
	sim_write(&s, 0, 64);
	memcpy(s.data + s.pg->data_head, &bad, 8);
	s.pg->data_head += 64;
	CHECK(prec_ring__drain(r, check_fn, &c, &st) == 0, "drain over garbage failed");
	CHECK(c.next_seq == 1, "good record before garbage not handed out");
	CHECK(st.bad == 1, "garbage not counted");
	CHECK(s.pg->data_tail == s.pg->data_head, "garbage not skipped");
	/* head too far ahead of tail */
	s.pg->data_head += 3 * 4096;
	CHECK(prec_ring__drain(r, check_fn, &c, &st) == 0 && st.bad == 2, "overrun not handled");
	prec_ring__free(r);
	free(s.mem);
}

static int accept_fn(void *ctx, const void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

static void test_lost(void)
{
	struct sim s;
	struct prec_ring *r;
	struct prec_ring_stats st = { 0 };
	unsigned char rec[24];
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .misc = 0, .size = 24 };
	uint64_t v[2] = { 7, 31 };

	sim_init(&s, 4096, 4096 - 8); /* the LOST record wraps */
	prec_ring__init_mem(s.mem, 4096, &r);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, v, 16);
	for (int i = 0; i < 24; i++)
		s.data[(4096 - 8 + i) & 4095] = rec[i];
	s.pg->data_head += 24;
	CHECK(prec_ring__drain(r, accept_fn, NULL, &st) == 0, "drain failed");
	CHECK(st.lost_records == 1 && st.lost == 31, "LOST not counted (%llu)",
	      (unsigned long long)st.lost);
	prec_ring__free(r);
	free(s.mem);
}

struct race {
	struct sim s;
	uint64_t total;
	unsigned int maxsz;
};

static void *writer_thread(void *arg)
{
	struct race *rc = arg;
	uint64_t seq = 0;

	while (seq < rc->total) {
		if (sim_write(&rc->s, seq, rc->maxsz))
			seq++;
	}
	return NULL;
}

static void test_race(void)
{
	struct race rc;
	struct prec_ring *r;
	struct checker c = { 0, 2048, 0 };
	pthread_t t;

	rc.total = 300000;
	rc.maxsz = 2048;
	sim_init(&rc.s, 16384, 16384 - 40);
	prec_ring__init_mem(rc.s.mem, 16384, &r);
	pthread_create(&t, NULL, writer_thread, &rc);
	while (c.next_seq < rc.total && !failures)
		prec_ring__drain(r, check_fn, &c, NULL);
	pthread_join(t, NULL);
	CHECK(c.next_seq == rc.total, "race: got %llu of %llu", (unsigned long long)c.next_seq,
	      (unsigned long long)rc.total);
	prec_ring__free(r);
	free(rc.s.mem);
}

int main(void)
{
	test_every_offset(4096, 64);
	test_every_offset(4096, 1024);
	test_every_offset(8192, 4096);
	test_garbage();
	test_lost();
	test_race();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("test-ring: all checks passed\n");
	return 0;
}
