/* SPDX-License-Identifier: MIT */
/*
 * Record body decoders, one per record type (layouts: shared/reference/perf-data-format.md
 * sections 5 and 7).  Each one first checks the header (type, a size that covers the fixed
 * body and fits the bytes the caller has), then reads fields with memcpy at offsets inside
 * that size, so a record may sit at any alignment (records after a COMPRESSED one are not
 * 8-aligned) and a short or corrupt record is -EBADMSG, never a read past its end.  Nothing
 * is written to *ret before every check has passed.
 */
#include <errno.h>
#include <string.h>

#include "prec_record.h"
#include "prec_sample.h"

/* The header of `rec` if its type is `t1` or `t2` and its size is at least `min` and fits. */
static int head(const void *rec, size_t size, uint32_t t1, uint32_t t2, size_t min,
		struct perf_event_header *h)
{
	if (size < sizeof(*h))
		return -EBADMSG;
	memcpy(h, rec, sizeof(*h));
	if ((h->type != t1 && h->type != t2) || h->size < min || h->size > size)
		return -EBADMSG;
	return 0;
}

static uint32_t u32_at(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static uint64_t u64_at(const unsigned char *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* The string at `off` if a NUL ends it before `end`, else NULL. */
static const char *str_at(const unsigned char *p, size_t off, size_t end)
{
	return off < end && memchr(p + off, 0, end - off) ? (const char *)p + off : NULL;
}

int prec_rec_mmap__parse(const void *rec, size_t size, struct prec_mmap2 *ret)
{
	const unsigned char *p = rec, *u = p + 40;
	struct perf_event_header h;
	struct prec_mmap2 m;
	size_t name;

	/* header 8, pid/tid 8, addr/len/pgoff 24, (MMAP2: the 24-byte union, prot/flags 8),
	 * then a name */
	if (head(rec, size, PERF_RECORD_MMAP, PERF_RECORD_MMAP2, 41, &h))
		return -EBADMSG;
	name = h.type == PERF_RECORD_MMAP2 ? 72 : 40;
	memset(&m, 0, sizeof(m));
	m.filename = str_at(p, name, h.size);
	if (!m.filename)
		return -EBADMSG;
	m.pid = u32_at(p, 8);
	m.tid = u32_at(p, 12);
	m.addr = u64_at(p, 16);
	m.len = u64_at(p, 24);
	m.pgoff = u64_at(p, 32);
	if (h.type == PERF_RECORD_MMAP2) {
		/* the flag alone does not say (see the header): a build-id is 1 to 20 bytes, with
		 * zero reserved bytes after its size; anything else there is a device number */
		if ((h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && u[0] &&
		    u[0] <= PREC_BUILD_ID_SIZE && !u[1] && !u[2] && !u[3]) {
			m.has_build_id = true;
			m.build_id_size = u[0];
			memcpy(m.build_id, u + 4, PREC_BUILD_ID_SIZE);
		} else {
			m.maj = u32_at(p, 40);
			m.min = u32_at(p, 44);
			m.ino = u64_at(p, 48);
			m.ino_generation = u64_at(p, 56);
		}
		m.prot = u32_at(p, 64);
		m.flags = u32_at(p, 68);
	}
	*ret = m;
	return 0;
}

int prec_rec_comm__parse(const void *rec, size_t size, struct prec_rec_comm *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;
	const char *comm;

	if (head(rec, size, PERF_RECORD_COMM, PERF_RECORD_COMM, 17, &h))
		return -EBADMSG;
	comm = str_at(p, 16, h.size);
	if (!comm)
		return -EBADMSG;
	ret->pid = u32_at(p, 8);
	ret->tid = u32_at(p, 12);
	ret->exec = h.misc & PERF_RECORD_MISC_COMM_EXEC;
	ret->comm = comm;
	return 0;
}

int prec_rec_fork__parse(const void *rec, size_t size, struct prec_rec_fork *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;

	if (head(rec, size, PERF_RECORD_FORK, PERF_RECORD_EXIT, 32, &h))
		return -EBADMSG;
	ret->exit = h.type == PERF_RECORD_EXIT;
	ret->pid = u32_at(p, 8);
	ret->ppid = u32_at(p, 12);
	ret->tid = u32_at(p, 16);
	ret->ptid = u32_at(p, 20);
	ret->time = u64_at(p, 24);
	return 0;
}

int prec_rec_lost__parse(const void *rec, size_t size, struct prec_rec_lost *ret)
{
	struct perf_event_header h;

	if (head(rec, size, PERF_RECORD_LOST, PERF_RECORD_LOST, 24, &h))
		return -EBADMSG;
	ret->id = u64_at(rec, 8);
	ret->lost = u64_at(rec, 16);
	return 0;
}

int prec_rec_lost_samples__parse(const void *rec, size_t size, uint64_t *ret_lost)
{
	struct perf_event_header h;

	if (head(rec, size, PERF_RECORD_LOST_SAMPLES, PERF_RECORD_LOST_SAMPLES, 16, &h))
		return -EBADMSG;
	*ret_lost = u64_at(rec, 8);
	return 0;
}

int prec_rec_throttle__parse(const void *rec, size_t size, struct prec_rec_throttle *ret)
{
	struct perf_event_header h;

	if (head(rec, size, PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE, 32, &h))
		return -EBADMSG;
	ret->unthrottle = h.type == PERF_RECORD_UNTHROTTLE;
	ret->time = u64_at(rec, 8);
	ret->id = u64_at(rec, 16);
	ret->stream_id = u64_at(rec, 24);
	return 0;
}

int prec_rec_switch__parse(const void *rec, size_t size, struct prec_rec_switch *ret)
{
	struct perf_event_header h;
	bool wide;

	if (head(rec, size, PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE, 8, &h))
		return -EBADMSG;
	wide = h.type == PERF_RECORD_SWITCH_CPU_WIDE;
	if (wide && h.size < 16)
		return -EBADMSG;
	ret->out = h.misc & PERF_RECORD_MISC_SWITCH_OUT;
	ret->cpu_wide = wide;
	ret->next_prev_pid = wide ? u32_at(rec, 8) : 0;
	ret->next_prev_tid = wide ? u32_at(rec, 12) : 0;
	return 0;
}

int prec_rec_read__parse(const void *rec, size_t size, uint64_t read_format,
			 struct prec_rec_read *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;
	size_t n;

	if (head(rec, size, PERF_RECORD_READ, PERF_RECORD_READ, 16, &h))
		return -EBADMSG;
	n = prec_read_format_size(read_format, p + 16, h.size - 16u);
	if (!n)
		return -EBADMSG;
	ret->pid = u32_at(p, 8);
	ret->tid = u32_at(p, 12);
	ret->value = (read_format & PERF_FORMAT_GROUP) ? 0 : u64_at(p, 16);
	ret->values = p + 16;
	ret->values_size = n;
	return 0;
}

int prec_rec_build_id__parse(const void *rec, size_t size, struct prec_rec_build_id *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;
	const char *name;
	uint8_t n = PREC_BUILD_ID_SIZE;

	/* header 8, pid 4, id 20, size 1, reserved 3, a name */
	if (head(rec, size, 0, PREC_REC_HEADER_BUILD_ID, 37, &h))
		return -EBADMSG;
	name = str_at(p, 36, h.size);
	if (h.misc & PREC_MISC_BUILD_ID_SIZE)
		n = p[32];
	if (!name || n > PREC_BUILD_ID_SIZE)
		return -EBADMSG;
	memcpy(&ret->pid, p + 8, 4);
	ret->cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	ret->size = n;
	memset(ret->id, 0, sizeof(ret->id));
	memcpy(ret->id, p + 12, n);
	ret->filename = name;
	return 0;
}

int prec_build_id_feature__next(const void *p, size_t len, size_t *off,
				struct prec_rec_build_id *ret)
{
	const unsigned char *e;
	struct perf_event_header h;

	if (!p || *off >= len)
		return 0;
	e = (const unsigned char *)p + *off;
	if (len - *off < sizeof(h)) {
		*off = len;
		return -EBADMSG;
	}
	memcpy(&h, e, sizeof(h));
	if (h.size < sizeof(h) || h.size > len - *off) {
		*off = len;
		return -EBADMSG;
	}
	*off += h.size;
	return prec_rec_build_id__parse(e, h.size, ret) ? -EBADMSG : 1;
}

int prec_rec_attr__parse(const void *rec, size_t size, struct prec_rec_attr *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;
	uint32_t asz;

	if (head(rec, size, PREC_REC_HEADER_ATTR, PREC_REC_HEADER_ATTR, 8 + 64, &h))
		return -EBADMSG;
	asz = u32_at(p, 8 + 4);
	if (!asz)
		asz = 64;
	if (asz < 64 || (asz & 7) || asz > h.size - 8u)
		return -EBADMSG;
	memset(&ret->attr, 0, sizeof(ret->attr));
	memcpy(&ret->attr, p + 8, asz < sizeof(ret->attr) ? asz : sizeof(ret->attr));
	ret->attr_size = asz;
	ret->ids = p + 8 + asz;
	ret->nr_ids = (h.size - 8u - asz) / 8;
	return 0;
}

int prec_rec_feature__parse(const void *rec, size_t size, struct prec_rec_feature *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;

	if (head(rec, size, PREC_REC_HEADER_FEATURE, PREC_REC_HEADER_FEATURE, 16, &h))
		return -EBADMSG;
	ret->feat = u64_at(p, 8);
	ret->data = p + 16;
	ret->len = h.size - 16u;
	return 0;
}

int prec_rec_event_update__parse(const void *rec, size_t size, struct prec_rec_event_update *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;

	if (head(rec, size, PREC_REC_EVENT_UPDATE, PREC_REC_EVENT_UPDATE, 24, &h))
		return -EBADMSG;
	ret->type = u64_at(p, 8);
	ret->id = u64_at(p, 16);
	ret->data = p + 24;
	ret->len = h.size - 24u;
	return 0;
}

int prec_rec_oob__parse(const void *rec, size_t size, uint64_t *ret_bytes)
{
	struct perf_event_header h;

	if (head(rec, size, PREC_REC_HEADER_TRACING_DATA, PREC_REC_AUXTRACE, 16, &h))
		return -EBADMSG;
	if (h.type == PREC_REC_AUXTRACE)
		*ret_bytes = u64_at(rec, 8);
	else
		*ret_bytes = ((uint64_t)u32_at(rec, 8) + 7) & ~7ULL;
	return 0;
}

int prec_rec_id_index__parse(const void *rec, size_t size, struct prec_rec_id_index *ret)
{
	const unsigned char *p = rec;
	struct perf_event_header h;
	uint64_t nr;

	if (head(rec, size, PREC_REC_ID_INDEX, PREC_REC_ID_INDEX, 16, &h))
		return -EBADMSG;
	nr = u64_at(p, 8);
	if (nr > (h.size - 16u) / 32)
		return -EBADMSG;
	ret->nr = nr;
	ret->entries = p + 16;
	return 0;
}
