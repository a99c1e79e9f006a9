/* SPDX-License-Identifier: MIT */
/*
 * SAMPLE body and sample_id trailer codec.  The kernel emits SAMPLE fields in a fixed order,
 * each present when its sample_type bit is set; non-SAMPLE records carry a trailer (when
 * sample_id_all is set) that is parsed from the end, so the body length does not matter.
 * Every read is bounds-checked with a cursor that refuses to step past the record.
 */
#include <errno.h>
#include <string.h>

#include "prec_sample.h"

unsigned int prec_popcount64(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

void prec_sample_layout__init(struct prec_sample_layout *l, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;
	int pos;

	memset(l, 0, sizeof(*l));
	l->sample_type = t;
	l->read_format = attr->read_format;
	l->branch_sample_type = attr->branch_sample_type;
	l->regs_user_mask = attr->sample_regs_user;
	l->regs_intr_mask = attr->sample_regs_intr;
	l->sample_id_all = attr->sample_id_all;

	l->id_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		l->id_pos = 0;
	} else if (t & PERF_SAMPLE_ID) {
		pos = 0;
		pos += !!(t & PERF_SAMPLE_IP);
		pos += !!(t & PERF_SAMPLE_TID);
		pos += !!(t & PERF_SAMPLE_TIME);
		pos += !!(t & PERF_SAMPLE_ADDR);
		l->id_pos = pos;
	}

	l->is_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER)
		l->is_pos = 1;
	else if (t & PERF_SAMPLE_ID)
		l->is_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);

	if (l->sample_id_all) {
		size_t n = 0;

		n += (t & PERF_SAMPLE_TID) ? 8 : 0;
		n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
		n += (t & PERF_SAMPLE_ID) ? 8 : 0;
		n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
		n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
		n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
		l->trailer_size = n;
	}
}

struct cursor {
	const unsigned char *p;
	size_t left;
	int err;
};

static uint64_t cur_u64(struct cursor *c)
{
	uint64_t v;

	if (c->left < 8) {
		c->err = -EBADMSG;
		c->left = 0;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	c->left -= 8;
	return v;
}

static void cur_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = cur_u64(c);
	uint32_t w[2];

	memcpy(w, &v, 8);
	*a = w[0];
	*b = w[1];
}

/* Take `n` bytes (already known to be a sane count) and return where they start. */
static const void *cur_take(struct cursor *c, uint64_t n)
{
	const void *p = c->p;

	if (c->err || n > c->left) {
		c->err = -EBADMSG;
		c->left = 0;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

/* Take `count` u64 values, guarding the multiplication. */
static const uint64_t *cur_take_u64s(struct cursor *c, uint64_t count)
{
	if (count > c->left / 8) {
		c->err = -EBADMSG;
		c->left = 0;
		return NULL;
	}
	return cur_take(c, count * 8);
}

size_t prec_read_format_size(uint64_t read_format, const void *p, size_t avail)
{
	uint64_t rf = read_format, nr;
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	size_t n = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		   ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);

	if (!(rf & PERF_FORMAT_GROUP))
		return n + per <= avail ? n + per : 0;
	/* nr, the times, then nr values */
	n += 8;
	if (avail < n)
		return 0;
	memcpy(&nr, p, 8);
	if (nr > (avail - n) / per)
		return 0;
	return n + nr * per;
}

int prec_sample__parse(const struct prec_sample_layout *l, const void *rec, size_t size,
		       struct prec_sample *ret)
{
	struct cursor c = { (const unsigned char *)rec + 8, size >= 8 ? size - 8 : 0, 0 };
	uint64_t t = l->sample_type;
	uint32_t u32a, u32b;

	if (size < 8)
		return -EBADMSG;
	/*
	 * Every field is set once, to what the record has or to 0: a memset of the whole struct
	 * first (a `rep stos` of 280 bytes) was half the time of this function.
	 */
	ret->id = (t & PERF_SAMPLE_IDENTIFIER) ? cur_u64(&c) : 0;
	ret->ip = (t & PERF_SAMPLE_IP) ? cur_u64(&c) : 0;
	ret->pid = ret->tid = 0;
	if (t & PERF_SAMPLE_TID)
		cur_u32x2(&c, &ret->pid, &ret->tid);
	ret->time = (t & PERF_SAMPLE_TIME) ? cur_u64(&c) : 0;
	ret->addr = (t & PERF_SAMPLE_ADDR) ? cur_u64(&c) : 0;
	if (t & PERF_SAMPLE_ID)
		ret->id = cur_u64(&c);
	ret->stream_id = (t & PERF_SAMPLE_STREAM_ID) ? cur_u64(&c) : 0;
	ret->cpu = 0;
	if (t & PERF_SAMPLE_CPU) {
		cur_u32x2(&c, &u32a, &u32b);
		ret->cpu = u32a;
	}
	ret->period = (t & PERF_SAMPLE_PERIOD) ? cur_u64(&c) : 0;
	ret->read = NULL;
	ret->read_size = 0;
	if (t & PERF_SAMPLE_READ) {
		size_t n = c.err ? 0 : prec_read_format_size(l->read_format, c.p, c.left);

		if (!n)
			return -EBADMSG;
		ret->read_size = n;
		ret->read = cur_take(&c, n);
	}
	ret->callchain_nr = 0;
	ret->callchain = NULL;
	if (t & PERF_SAMPLE_CALLCHAIN) {
		ret->callchain_nr = cur_u64(&c);
		ret->callchain = cur_take_u64s(&c, ret->callchain_nr);
	}
	ret->raw_size = 0;
	ret->raw = NULL;
	if (t & PERF_SAMPLE_RAW) {
		if (c.left < 4)
			return -EBADMSG;
		memcpy(&ret->raw_size, c.p, 4);
		cur_take(&c, 4);
		ret->raw = cur_take(&c, ret->raw_size);
		/* u32 + data is padded to 8 by the kernel */
		if (!c.err) {
			size_t pad = (8 - ((4 + (size_t)ret->raw_size) & 7)) & 7;

			cur_take(&c, pad);
		}
	}
	ret->branch_nr = ret->branch_hw_idx = 0;
	ret->branch_entries = NULL;
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		ret->branch_nr = cur_u64(&c);
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			ret->branch_hw_idx = cur_u64(&c);
		if (ret->branch_nr > c.left / 24)
			return -EBADMSG;
		ret->branch_entries = cur_take(&c, ret->branch_nr * 24);
	}
	ret->regs_user_abi = 0;
	ret->regs_user = NULL;
	if (t & PERF_SAMPLE_REGS_USER) {
		ret->regs_user_abi = cur_u64(&c);
		if (ret->regs_user_abi)
			ret->regs_user = cur_take_u64s(&c, prec_popcount64(l->regs_user_mask));
	}
	ret->stack_size = ret->stack_dyn_size = 0;
	ret->stack_data = NULL;
	if (t & PERF_SAMPLE_STACK_USER) {
		ret->stack_size = cur_u64(&c);
		if (ret->stack_size) {
			ret->stack_data = cur_take(&c, ret->stack_size);
			ret->stack_dyn_size = cur_u64(&c);
			if (ret->stack_dyn_size > ret->stack_size)
				return -EBADMSG;
		}
	}
	ret->weight = (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) ? cur_u64(&c) : 0;
	ret->data_src = (t & PERF_SAMPLE_DATA_SRC) ? cur_u64(&c) : 0;
	ret->transaction = (t & PERF_SAMPLE_TRANSACTION) ? cur_u64(&c) : 0;
	ret->regs_intr_abi = 0;
	ret->regs_intr = NULL;
	if (t & PERF_SAMPLE_REGS_INTR) {
		ret->regs_intr_abi = cur_u64(&c);
		if (ret->regs_intr_abi)
			ret->regs_intr = cur_take_u64s(&c, prec_popcount64(l->regs_intr_mask));
	}
	ret->phys_addr = (t & PERF_SAMPLE_PHYS_ADDR) ? cur_u64(&c) : 0;
	ret->cgroup = (t & PERF_SAMPLE_CGROUP) ? cur_u64(&c) : 0;
	ret->data_page_size = (t & PERF_SAMPLE_DATA_PAGE_SIZE) ? cur_u64(&c) : 0;
	ret->code_page_size = (t & PERF_SAMPLE_CODE_PAGE_SIZE) ? cur_u64(&c) : 0;
	ret->aux_size = 0;
	ret->aux = NULL;
	if (t & PERF_SAMPLE_AUX) {
		ret->aux_size = cur_u64(&c);
		ret->aux = cur_take(&c, ret->aux_size);
	}
	return c.err;
}

int prec_sample_id__parse(const struct prec_sample_layout *l, const void *rec, size_t size,
			  struct prec_sample_id *ret)
{
	const unsigned char *p;
	uint64_t t = l->sample_type;
	struct prec_sample_id id;
	uint64_t v;
	uint32_t w[2];

	memset(&id, 0, sizeof(id));
	if (!l->sample_id_all || !l->trailer_size) {
		*ret = id;
		return 0;
	}
	if (size < 8 + l->trailer_size)
		return -EBADMSG;
	p = (const unsigned char *)rec + size - l->trailer_size;
#define NEXT() (memcpy(&v, p, 8), p += 8, v)
	if (t & PERF_SAMPLE_TID) {
		memcpy(w, p, 8);
		p += 8;
		id.pid = w[0];
		id.tid = w[1];
	}
	if (t & PERF_SAMPLE_TIME)
		id.time = NEXT();
	if (t & PERF_SAMPLE_ID)
		id.id = NEXT();
	if (t & PERF_SAMPLE_STREAM_ID)
		id.stream_id = NEXT();
	if (t & PERF_SAMPLE_CPU) {
		memcpy(w, p, 8);
		p += 8;
		id.cpu = w[0];
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		id.id = NEXT();
#undef NEXT
	*ret = id;
	return 0;
}

uint64_t prec_record__id(const struct prec_sample_layout *l, const void *rec, size_t size)
{
	struct perf_event_header h;
	uint64_t v = 0;

	if (size < 8)
		return 0;
	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE) {
		if (l->id_pos < 0 || size < 8 + 8 * (size_t)(l->id_pos + 1))
			return 0;
		memcpy(&v, (const unsigned char *)rec + 8 + 8 * l->id_pos, 8);
		return v;
	}
	if (!l->sample_id_all || l->is_pos < 0 || size < 8 + 8 * (size_t)l->is_pos)
		return 0;
	memcpy(&v, (const unsigned char *)rec + size - 8 * l->is_pos, 8);
	return v;
}

void prec_time_range__add(struct prec_time_range *t, uint64_t time)
{
	if (!time)
		return;
	if (!t->first || time < t->first)
		t->first = time;
	if (time > t->last)
		t->last = time;
}

uint64_t prec_sample__time(const struct prec_sample_layout *l, const void *rec, size_t size)
{
	uint64_t st = l->sample_type, t = 0;
	size_t off = 8;

	/* TIME follows IDENTIFIER, IP and TID in a SAMPLE body */
	off += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	off += (st & PERF_SAMPLE_IP) ? 8 : 0;
	off += (st & PERF_SAMPLE_TID) ? 8 : 0;
	if ((st & PERF_SAMPLE_TIME) && off + 8 <= size)
		memcpy(&t, (const unsigned char *)rec + off, 8);
	return t;
}

void prec_sample_id__encode(const struct prec_sample_layout *l, const struct prec_sample_id *id,
			    void *out)
{
	unsigned char *p = out;
	uint64_t t = l->sample_type;
	uint32_t w[2];

	if (!l->trailer_size)
		return;
	if (!id) {
		memset(out, 0, l->trailer_size);
		return;
	}
#define PUT(v) do { uint64_t x_ = (v); memcpy(p, &x_, 8); p += 8; } while (0)
	if (t & PERF_SAMPLE_TID) {
		w[0] = id->pid;
		w[1] = id->tid;
		memcpy(p, w, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME)
		PUT(id->time);
	if (t & PERF_SAMPLE_ID)
		PUT(id->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		PUT(id->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		w[0] = id->cpu;
		w[1] = 0;
		memcpy(p, w, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		PUT(id->id);
#undef PUT
}

struct wcursor {
	unsigned char *p;
	size_t left;
	int err;
};

static void w_bytes(struct wcursor *w, const void *src, size_t n)
{
	if (w->err)
		return;
	if (n > w->left) {
		w->err = -ENOSPC;
		return;
	}
	if (n)
		memcpy(w->p, src, n);
	w->p += n;
	w->left -= n;
}

static void w_u64(struct wcursor *w, uint64_t v)
{
	w_bytes(w, &v, 8);
}

static void w_u32x2(struct wcursor *w, uint32_t a, uint32_t b)
{
	uint32_t x[2] = { a, b };

	w_bytes(w, x, 8);
}

long prec_sample__encode(const struct prec_sample_layout *l, const struct prec_sample *s,
			 void *out, size_t cap)
{
	struct wcursor w = { out, cap, 0 };
	uint64_t t = l->sample_type;
	unsigned char *start = out;

	if (t & PERF_SAMPLE_IDENTIFIER)
		w_u64(&w, s->id);
	if (t & PERF_SAMPLE_IP)
		w_u64(&w, s->ip);
	if (t & PERF_SAMPLE_TID)
		w_u32x2(&w, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		w_u64(&w, s->time);
	if (t & PERF_SAMPLE_ADDR)
		w_u64(&w, s->addr);
	if (t & PERF_SAMPLE_ID)
		w_u64(&w, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		w_u64(&w, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		w_u32x2(&w, s->cpu, 0);
	if (t & PERF_SAMPLE_PERIOD)
		w_u64(&w, s->period);
	if (t & PERF_SAMPLE_READ) {
		if (s->read_size & 7)
			return -EINVAL;
		w_bytes(&w, s->read, s->read_size);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		w_u64(&w, s->callchain_nr);
		if (s->callchain_nr > cap / 8)
			return -ENOSPC;
		w_bytes(&w, s->callchain, s->callchain_nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		size_t pad = (8 - ((4 + (size_t)s->raw_size) & 7)) & 7;
		static const unsigned char zeros[8];

		w_bytes(&w, &s->raw_size, 4);
		w_bytes(&w, s->raw, s->raw_size);
		w_bytes(&w, zeros, pad);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		w_u64(&w, s->branch_nr);
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			w_u64(&w, s->branch_hw_idx);
		if (s->branch_nr > cap / 24)
			return -ENOSPC;
		w_bytes(&w, s->branch_entries, s->branch_nr * 24);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		w_u64(&w, s->regs_user_abi);
		if (s->regs_user_abi)
			w_bytes(&w, s->regs_user, 8 * (size_t)prec_popcount64(l->regs_user_mask));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		w_u64(&w, s->stack_size);
		if (s->stack_size) {
			if (s->stack_size & 7)
				return -EINVAL;
			w_bytes(&w, s->stack_data, s->stack_size);
			w_u64(&w, s->stack_dyn_size);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		w_u64(&w, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		w_u64(&w, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		w_u64(&w, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		w_u64(&w, s->regs_intr_abi);
		if (s->regs_intr_abi)
			w_bytes(&w, s->regs_intr, 8 * (size_t)prec_popcount64(l->regs_intr_mask));
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		w_u64(&w, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		w_u64(&w, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		w_u64(&w, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		w_u64(&w, s->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		if (s->aux_size & 7)
			return -EINVAL;
		w_u64(&w, s->aux_size);
		w_bytes(&w, s->aux, s->aux_size);
	}
	if (w.err)
		return w.err;
	return (long)(w.p - start);
}
