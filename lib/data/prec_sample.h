/* SPDX-License-Identifier: MIT */
/*
 * Decoding and encoding of PERF_RECORD_SAMPLE bodies and of the sample_id trailer of other
 * kernel records, driven by an attr's sample_type, read_format and register masks.
 *
 * Parsing never reads outside the record: every field is checked against the record size.
 * Pointers in a parsed sample point into the record passed in, which must be 8-byte aligned.
 */
#ifndef PREC_SAMPLE_H
#define PREC_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* What an attr says about the layout of the records it produces. */
struct prec_sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t regs_user_mask;
	uint64_t regs_intr_mask;
	bool sample_id_all;
	int id_pos; /* u64 slot of the id in a SAMPLE body, -1 if none */
	int is_pos; /* u64 slot of the id counted from the end of other records, -1 if none */
	size_t trailer_size; /* bytes of the sample_id trailer (0 unless sample_id_all) */
};

void prec_sample_layout__init(struct prec_sample_layout *l, const struct perf_event_attr *attr);

/* The sample_id trailer fields; which are meaningful depends on the layout. */
struct prec_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

struct prec_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id; /* from ID or IDENTIFIER */
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const void *read; /* READ: the raw read_format block */
	size_t read_size;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;
	const void *branch_entries; /* branch_nr x {from, to, flags} */
	uint64_t regs_user_abi;
	const uint64_t *regs_user; /* popcount(regs_user_mask) entries if abi != 0 */
	uint64_t stack_size;
	const void *stack_data;
	uint64_t stack_dyn_size;
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
};

/*
 * Parse the SAMPLE record `rec` (header included, `size` bytes, 8-byte aligned).
 * Returns 0, or -EBADMSG if a field does not fit the record (then *ret is partly filled:
 * not to be used).
 */
int prec_sample__parse(const struct prec_sample_layout *l, const void *rec, size_t size,
		       struct prec_sample *ret);

/*
 * Parse the sample_id trailer of a non-SAMPLE kernel record (header included).
 * Returns 0 (fields zeroed if the layout has no trailer), or -EBADMSG if the record is too
 * short to hold it.
 */
int prec_sample_id__parse(const struct prec_sample_layout *l, const void *rec, size_t size,
			  struct prec_sample_id *ret);

/* The id of any kernel record (SAMPLE or not), or 0 when it carries none. */
uint64_t prec_record__id(const struct prec_sample_layout *l, const void *rec, size_t size);

/* The time of a SAMPLE record without parsing the rest: 0 when the layout has no TIME or
 * the record is too short to hold it. */
uint64_t prec_sample__time(const struct prec_sample_layout *l, const void *rec, size_t size);

/* Encode a trailer of l->trailer_size bytes into `out` (NULL id: all zero, as perf does). */
void prec_sample_id__encode(const struct prec_sample_layout *l, const struct prec_sample_id *id,
			    void *out);

/*
 * Encode the body of a SAMPLE (no header) into `out` (`cap` bytes). Returns the number of
 * bytes written, or -ENOSPC / -EINVAL (a variable part that is not a multiple of 8).
 */
long prec_sample__encode(const struct prec_sample_layout *l, const struct prec_sample *s,
			 void *out, size_t cap);

/*
 * Bytes of the read_format block (PERF_SAMPLE_READ, the READ record) at `p`, of which `avail`
 * are readable: with PERF_FORMAT_GROUP its count of values is read there.  0 when the block
 * does not fit.
 */
size_t prec_read_format_size(uint64_t read_format, const void *p, size_t avail);

/* The earliest and the latest of a set of sample times (0 and 0: none yet). */
struct prec_time_range {
	uint64_t first, last;
};
/* Count `time` in; 0 (no time) is ignored. */
void prec_time_range__add(struct prec_time_range *t, uint64_t time);

/* Number of set bits, for register masks. */
unsigned int prec_popcount64(uint64_t v);

#endif
