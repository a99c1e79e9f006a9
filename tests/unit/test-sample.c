/* SPDX-License-Identifier: MIT */
/*
 * Tests of the SAMPLE / sample_id codec (lib/data/prec_sample.c): encode -> parse round trips
 * for hand-picked and random sample_type / read_format / branch / register combinations,
 * byte layouts checked against hand-built records (field order, id positions, RAW padding),
 * the sample_id trailer for every combination of its fields, prec_record__id,
 * prec_sample__time, and bounds:
 * every truncation of an encoded sample or trailer is -EBADMSG, absurd counts are refused,
 * and encoding never writes past `cap`.  Truncated inputs are copied into heap blocks of
 * exactly their size, so ASan or valgrind catch any read past the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_sample.h"
#include "tap.h"

#define REC_WORDS 8192 /* 64 KiB */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* The sizes of the variable parts of one sample. */
struct params {
	uint64_t callchain_nr;
	uint32_t raw_size;
	uint64_t branch_nr;
	uint64_t regs_user_abi;
	uint64_t stack_size;
	uint64_t stack_dyn_size;
	uint64_t read_nr; /* group members */
	uint64_t regs_intr_abi;
	uint64_t aux_size;
};

/* Backing storage for the variable parts of a prec_sample being encoded. */
struct storage {
	uint64_t callchain[1024];
	unsigned char raw[1024];
	uint64_t branches[3 * 256];
	uint64_t regs_user[64];
	uint64_t regs_intr[64];
	uint64_t stack[512];
	uint64_t read[64];
	uint64_t aux[128];
};

static struct storage st;
static uint64_t rec[REC_WORDS];

static void layout_of(struct prec_sample_layout *l, uint64_t sample_type, uint64_t read_format,
		      uint64_t branch_type, uint64_t regs_user, uint64_t regs_intr, bool id_all)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = sample_type;
	a.read_format = read_format;
	a.branch_sample_type = branch_type;
	a.sample_regs_user = regs_user;
	a.sample_regs_intr = regs_intr;
	a.sample_id_all = id_all;
	prec_sample_layout__init(l, &a);
}

static size_t read_block_size(uint64_t rf, uint64_t nr)
{
	size_t hdr = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		     ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
	size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);

	if (rf & PERF_FORMAT_GROUP)
		return 8 + hdr + nr * per;
	return hdr + per;
}

/* What the body must weigh, computed independently of the codec. */
static size_t expected_size(const struct prec_sample_layout *l, const struct params *p)
{
	/* clang-format off */
	static const uint64_t fixed[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,		 PERF_SAMPLE_TID,
		PERF_SAMPLE_TIME,	PERF_SAMPLE_ADDR,	 PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID,	PERF_SAMPLE_CPU,	 PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_DATA_SRC,	PERF_SAMPLE_TRANSACTION, PERF_SAMPLE_PHYS_ADDR,
		PERF_SAMPLE_CGROUP,	PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	/* clang-format on */
	uint64_t t = l->sample_type;
	size_t n = 0, i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		n += (t & fixed[i]) ? 8 : 0;
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		n += 8;
	if (t & PERF_SAMPLE_READ)
		n += read_block_size(l->read_format, p->read_nr);
	if (t & PERF_SAMPLE_CALLCHAIN)
		n += 8 + 8 * p->callchain_nr;
	if (t & PERF_SAMPLE_RAW)
		n += (4 + (size_t)p->raw_size + 7) / 8 * 8;
	if (t & PERF_SAMPLE_BRANCH_STACK)
		n += 8 + ((l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) ? 8 : 0) +
		     24 * p->branch_nr;
	if (t & PERF_SAMPLE_REGS_USER)
		n += 8 +
		     (p->regs_user_abi ? 8 * (size_t)__builtin_popcountll(l->regs_user_mask) : 0);
	if (t & PERF_SAMPLE_STACK_USER)
		n += 8 + (p->stack_size ? p->stack_size + 8 : 0);
	if (t & PERF_SAMPLE_REGS_INTR)
		n += 8 +
		     (p->regs_intr_abi ? 8 * (size_t)__builtin_popcountll(l->regs_intr_mask) : 0);
	if (t & PERF_SAMPLE_AUX)
		n += 8 + p->aux_size;
	return n;
}

static void fill_words(uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = rnd();
}

/* A sample with random values and variable parts of the sizes in `p`. */
static void make_sample(const struct prec_sample_layout *l, const struct params *p,
			struct prec_sample *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->ip = rnd();
	s->pid = (uint32_t)rnd();
	s->tid = (uint32_t)rnd();
	s->time = rnd();
	s->addr = rnd();
	s->id = rnd();
	s->stream_id = rnd();
	s->cpu = (uint32_t)rnd();
	s->period = rnd();

	s->read_size = read_block_size(l->read_format, p->read_nr);
	fill_words(st.read, s->read_size / 8);
	if (l->read_format & PERF_FORMAT_GROUP)
		st.read[0] = p->read_nr;
	s->read = st.read;

	s->callchain_nr = p->callchain_nr;
	fill_words(st.callchain, p->callchain_nr);
	if (p->callchain_nr)
		st.callchain[0] = PREC_CONTEXT_USER;
	s->callchain = st.callchain;

	s->raw_size = p->raw_size;
	for (i = 0; i < p->raw_size; i++)
		st.raw[i] = (unsigned char)(rnd() | 1);
	s->raw = st.raw;

	s->branch_nr = p->branch_nr;
	s->branch_hw_idx = rnd();
	fill_words(st.branches, 3 * p->branch_nr);
	s->branch_entries = st.branches;

	s->regs_user_abi = p->regs_user_abi;
	fill_words(st.regs_user, 64);
	s->regs_user = st.regs_user;

	s->stack_size = p->stack_size;
	s->stack_dyn_size = p->stack_dyn_size;
	fill_words(st.stack, p->stack_size / 8);
	s->stack_data = st.stack;

	s->weight = rnd();
	s->data_src = rnd();
	s->transaction = rnd();
	s->regs_intr_abi = p->regs_intr_abi;
	fill_words(st.regs_intr, 64);
	s->regs_intr = st.regs_intr;
	s->phys_addr = rnd();
	s->cgroup = rnd();
	s->data_page_size = rnd();
	s->code_page_size = rnd();
	s->aux_size = p->aux_size;
	fill_words(st.aux, p->aux_size / 8);
	s->aux = st.aux;
}

#define SAME(field)                                                                                \
	do {                                                                                       \
		if (a->field != b->field) {                                                        \
			diag("field " #field " differs: %#" PRIx64 " vs %#" PRIx64,                \
			     (uint64_t)a->field, (uint64_t)b->field);                              \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define SAME_BYTES(pa, pb, n, what)                                                                \
	do {                                                                                       \
		if ((size_t)(n) != 0 && memcmp((pa), (pb), (n))) {                                 \
			diag("%s differs", what);                                                  \
			return false;                                                              \
		}                                                                                  \
	} while (0)

/* Does the parsed sample b carry what the layout says a encoded? */
static bool same_sample(const struct prec_sample_layout *l, const struct prec_sample *a,
			const struct prec_sample *b)
{
	uint64_t t = l->sample_type;
	size_t nregs;

	if (t & PERF_SAMPLE_IP)
		SAME(ip);
	if (t & PERF_SAMPLE_TID) {
		SAME(pid);
		SAME(tid);
	}
	if (t & PERF_SAMPLE_TIME)
		SAME(time);
	if (t & PERF_SAMPLE_ADDR)
		SAME(addr);
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		SAME(id);
	if (t & PERF_SAMPLE_STREAM_ID)
		SAME(stream_id);
	if (t & PERF_SAMPLE_CPU)
		SAME(cpu);
	if (t & PERF_SAMPLE_PERIOD)
		SAME(period);
	if (t & PERF_SAMPLE_READ) {
		SAME(read_size);
		SAME_BYTES(a->read, b->read, a->read_size, "read block");
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		SAME(callchain_nr);
		SAME_BYTES(a->callchain, b->callchain, 8 * a->callchain_nr, "callchain");
	}
	if (t & PERF_SAMPLE_RAW) {
		SAME(raw_size);
		SAME_BYTES(a->raw, b->raw, a->raw_size, "raw data");
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		SAME(branch_nr);
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			SAME(branch_hw_idx);
		else if (b->branch_hw_idx != 0)
			return false;
		SAME_BYTES(a->branch_entries, b->branch_entries, 24 * a->branch_nr, "branches");
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		nregs = prec_popcount64(l->regs_user_mask);
		SAME(regs_user_abi);
		if (a->regs_user_abi)
			SAME_BYTES(a->regs_user, b->regs_user, 8 * nregs, "user regs");
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		SAME(stack_size);
		SAME_BYTES(a->stack_data, b->stack_data, a->stack_size, "user stack");
		if (a->stack_size)
			SAME(stack_dyn_size);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		SAME(weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		SAME(data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		SAME(transaction);
	if (t & PERF_SAMPLE_REGS_INTR) {
		nregs = prec_popcount64(l->regs_intr_mask);
		SAME(regs_intr_abi);
		if (a->regs_intr_abi)
			SAME_BYTES(a->regs_intr, b->regs_intr, 8 * nregs, "intr regs");
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		SAME(phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		SAME(cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		SAME(data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		SAME(code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		SAME(aux_size);
		SAME_BYTES(a->aux, b->aux, a->aux_size, "aux data");
	}
	return true;
}

/* Put a SAMPLE header in front of a body of `n` bytes already at rec + 8. */
static void set_header(uint64_t *r, size_t n, uint32_t type)
{
	struct perf_event_header h = {
	    .type = type, .misc = PERF_RECORD_MISC_USER, .size = (uint16_t)(8 + n)};

	memcpy(r, &h, sizeof(h));
}

/*
 * Parse every strict prefix of the record (copied into an exact-size heap block); all must be
 * -EBADMSG.  The other entry points must stay inside the block too.  Returns failures.
 */
static int check_prefixes(const struct prec_sample_layout *l, const void *r, size_t size)
{
	struct prec_sample s;
	struct prec_sample_id sid;
	int fails = 0, err;
	size_t cut;

	for (cut = 0; cut < size; cut++) {
		unsigned char *p = malloc(cut ? cut : 1);

		if (!p)
			abort();
		memcpy(p, r, cut);
		err = prec_sample__parse(l, p, cut, &s);
		if (err != -EBADMSG) {
			if (fails++ < 3)
				diag("prefix of %zu of %zu bytes: parse returned %d", cut, size,
				     err);
		}
		(void)prec_record__id(l, p, cut);
		(void)prec_sample__time(l, p, cut);
		(void)prec_sample_id__parse(l, p, cut, &sid);
		free(p);
	}
	return fails;
}

/* Whether every field the layout does not have was set to 0 (or NULL) by the parse. */
static bool absent_are_zero(const struct prec_sample_layout *l, const struct prec_sample *s)
{
	uint64_t t = l->sample_type;
	bool bad = false;

#define ZERO_UNLESS(flags, cond)                                           \
	do {                                                               \
		if (!(t & (flags)) && !(cond)) {                           \
			diag("%s not zero without its sample_type bit", #cond); \
			bad = true;                                        \
		}                                                          \
	} while (0)
	ZERO_UNLESS(PERF_SAMPLE_IP, !s->ip);
	ZERO_UNLESS(PERF_SAMPLE_TID, !s->pid && !s->tid);
	ZERO_UNLESS(PERF_SAMPLE_TIME, !s->time);
	ZERO_UNLESS(PERF_SAMPLE_ADDR, !s->addr);
	ZERO_UNLESS(PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER, !s->id);
	ZERO_UNLESS(PERF_SAMPLE_STREAM_ID, !s->stream_id);
	ZERO_UNLESS(PERF_SAMPLE_CPU, !s->cpu);
	ZERO_UNLESS(PERF_SAMPLE_PERIOD, !s->period);
	ZERO_UNLESS(PERF_SAMPLE_READ, !s->read && !s->read_size);
	ZERO_UNLESS(PERF_SAMPLE_CALLCHAIN, !s->callchain_nr && !s->callchain);
	ZERO_UNLESS(PERF_SAMPLE_RAW, !s->raw_size && !s->raw);
	ZERO_UNLESS(PERF_SAMPLE_BRANCH_STACK,
		    !s->branch_nr && !s->branch_hw_idx && !s->branch_entries);
	ZERO_UNLESS(PERF_SAMPLE_REGS_USER, !s->regs_user_abi && !s->regs_user);
	ZERO_UNLESS(PERF_SAMPLE_STACK_USER,
		    !s->stack_size && !s->stack_data && !s->stack_dyn_size);
	ZERO_UNLESS(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, !s->weight);
	ZERO_UNLESS(PERF_SAMPLE_DATA_SRC, !s->data_src);
	ZERO_UNLESS(PERF_SAMPLE_TRANSACTION, !s->transaction);
	ZERO_UNLESS(PERF_SAMPLE_REGS_INTR, !s->regs_intr_abi && !s->regs_intr);
	ZERO_UNLESS(PERF_SAMPLE_PHYS_ADDR, !s->phys_addr);
	ZERO_UNLESS(PERF_SAMPLE_CGROUP, !s->cgroup);
	ZERO_UNLESS(PERF_SAMPLE_DATA_PAGE_SIZE, !s->data_page_size);
	ZERO_UNLESS(PERF_SAMPLE_CODE_PAGE_SIZE, !s->code_page_size);
	ZERO_UNLESS(PERF_SAMPLE_AUX, !s->aux_size && !s->aux);
#undef ZERO_UNLESS
	return !bad;
}

/* Encode, check the size, parse back (over garbage), compare; then all prefixes. */
static bool round_trip(const struct prec_sample_layout *l, const struct params *p, bool prefixes)
{
	struct prec_sample s, back;
	size_t want = expected_size(l, p);
	long n;
	int err;

	make_sample(l, p, &s);
	memset(rec, 0xa5, sizeof(rec));
	n = prec_sample__encode(l, &s, rec + 1, sizeof(rec) - 8);
	if (n < 0 || (size_t)n != want) {
		diag("encode returned %ld, want %zu (sample_type %#" PRIx64 ")", n, want,
		     l->sample_type);
		return false;
	}
	set_header(rec, (size_t)n, PERF_RECORD_SAMPLE);
	memset(&back, 0x5a, sizeof(back));
	err = prec_sample__parse(l, rec, 8 + (size_t)n, &back);
	if (err) {
		diag("parse returned %d (sample_type %#" PRIx64 ")", err, l->sample_type);
		return false;
	}
	if (!same_sample(l, &s, &back) || !absent_are_zero(l, &back)) {
		diag("sample_type %#" PRIx64 " read_format %#" PRIx64, l->sample_type,
		     l->read_format);
		return false;
	}
	if ((l->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) &&
	    prec_record__id(l, rec, 8 + (size_t)n) != s.id) {
		diag("prec_record__id does not find the id (sample_type %#" PRIx64 ")",
		     l->sample_type);
		return false;
	}
	if (!(l->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) &&
	    prec_record__id(l, rec, 8 + (size_t)n) != 0)
		return false;
	if (prec_sample__time(l, rec, 8 + (size_t)n) !=
	    ((l->sample_type & PERF_SAMPLE_TIME) ? s.time : 0)) {
		diag("prec_sample__time does not find the time (sample_type %#" PRIx64 ")",
		     l->sample_type);
		return false;
	}
	if (prefixes && check_prefixes(l, rec, 8 + (size_t)n))
		return false;
	return true;
}

struct combo {
	const char *name;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_type;
	uint64_t regs_user;
	uint64_t regs_intr;
	struct params p;
};

#define BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

/* clang-format off */
static const struct combo combos[] = {
	{ "no fields", 0, 0, 0, 0, 0, { 0 } },
	{ "ip only", PERF_SAMPLE_IP, 0, 0, 0, 0, { 0 } },
	{ "perf record default", BASIC, 0, 0, 0, 0, { 0 } },
	{ "every fixed field",
	  PERF_SAMPLE_IDENTIFIER | BASIC | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT |
		  PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |
		  PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE,
	  0, 0, 0, 0, { 0 } },
	{ "weight struct", BASIC | PERF_SAMPLE_WEIGHT_STRUCT, 0, 0, 0, 0, { 0 } },
	{ "callchain empty", BASIC | PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0, { .callchain_nr = 0 } },
	{ "callchain 1", BASIC | PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0, { .callchain_nr = 1 } },
	{ "callchain 127", BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_IDENTIFIER, 0, 0, 0, 0,
	  { .callchain_nr = 127 } },
	{ "raw 0 (4 bytes pad)", BASIC | PERF_SAMPLE_RAW, 0, 0, 0, 0, { .raw_size = 0 } },
	{ "raw 1 (3 bytes pad)", BASIC | PERF_SAMPLE_RAW, 0, 0, 0, 0, { .raw_size = 1 } },
	{ "raw 4 (no pad)", BASIC | PERF_SAMPLE_RAW, 0, 0, 0, 0, { .raw_size = 4 } },
	{ "raw 5 (7 bytes pad)", BASIC | PERF_SAMPLE_RAW, 0, 0, 0, 0, { .raw_size = 5 } },
	{ "raw 12 (no pad)", BASIC | PERF_SAMPLE_RAW, 0, 0, 0, 0, { .raw_size = 12 } },
	{ "raw 100 + callchain", BASIC | PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0,
	  { .raw_size = 100, .callchain_nr = 9 } },
	{ "branch stack empty", BASIC | PERF_SAMPLE_BRANCH_STACK, 0, 0, 0, 0, { 0 } },
	{ "branch stack 16", BASIC | PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_ANY, 0, 0,
	  { .branch_nr = 16 } },
	{ "branch stack 16 hw_idx", BASIC | PERF_SAMPLE_BRANCH_STACK, 0,
	  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX, 0, 0, { .branch_nr = 16 } },
	{ "branch stack 0 hw_idx", BASIC | PERF_SAMPLE_BRANCH_STACK, 0,
	  PERF_SAMPLE_BRANCH_HW_INDEX, 0, 0, { .branch_nr = 0 } },
	{ "regs user abi 0", BASIC | PERF_SAMPLE_REGS_USER, 0, 0, 0xff0fff, 0,
	  { .regs_user_abi = 0 } },
	{ "regs user abi 2", BASIC | PERF_SAMPLE_REGS_USER, 0, 0, 0xff0fff, 0,
	  { .regs_user_abi = 2 } },
	{ "regs user all 64", BASIC | PERF_SAMPLE_REGS_USER, 0, 0, ~0ULL, 0,
	  { .regs_user_abi = 2 } },
	{ "regs user empty mask", BASIC | PERF_SAMPLE_REGS_USER, 0, 0, 0, 0,
	  { .regs_user_abi = 2 } },
	{ "stack user 0", BASIC | PERF_SAMPLE_STACK_USER, 0, 0, 0, 0, { .stack_size = 0 } },
	{ "stack user 256 dyn 200", BASIC | PERF_SAMPLE_STACK_USER, 0, 0, 0, 0,
	  { .stack_size = 256, .stack_dyn_size = 200 } },
	{ "dwarf unwinding",
	  BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0, 0,
	  0xff0fff, 0,
	  { .callchain_nr = 5, .regs_user_abi = 2, .stack_size = 4096, .stack_dyn_size = 4096 } },
	{ "read non-group value only", BASIC | PERF_SAMPLE_READ, 0, 0, 0, 0, { 0 } },
	{ "read non-group all", BASIC | PERF_SAMPLE_READ,
	  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
		  PERF_FORMAT_LOST,
	  0, 0, 0, { 0 } },
	{ "read group 0", BASIC | PERF_SAMPLE_READ, PERF_FORMAT_GROUP, 0, 0, 0, { .read_nr = 0 } },
	{ "read group 3 id", BASIC | PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0, 0,
	  { .read_nr = 3 } },
	{ "read group 4 all", BASIC | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	  PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED |
		  PERF_FORMAT_TOTAL_TIME_RUNNING,
	  0, 0, 0, { .read_nr = 4, .callchain_nr = 3 } },
	{ "regs intr", BASIC | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER, 0, 0, 0x3, 0xf0f0,
	  { .regs_user_abi = 1, .regs_intr_abi = 2 } },
	{ "aux 0", BASIC | PERF_SAMPLE_AUX, 0, 0, 0, 0, { .aux_size = 0 } },
	{ "aux 64", BASIC | PERF_SAMPLE_AUX | PERF_SAMPLE_CODE_PAGE_SIZE, 0, 0, 0, 0,
	  { .aux_size = 64 } },
	{ "id (no identifier)", BASIC | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU, 0,
	  0, 0, 0, { 0 } },
	{ "identifier and id", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID | PERF_SAMPLE_TIME, 0, 0,
	  0, 0, { 0 } },
	{ "everything",
	  (PERF_SAMPLE_MAX - 1) & ~(uint64_t)PERF_SAMPLE_WEIGHT,
	  PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED,
	  PERF_SAMPLE_BRANCH_HW_INDEX, 0x5555, 0xaaaa,
	  { .callchain_nr = 7, .raw_size = 13, .branch_nr = 3, .regs_user_abi = 2,
	    .stack_size = 64, .stack_dyn_size = 8, .read_nr = 2, .regs_intr_abi = 2,
	    .aux_size = 16 } },
};
/* clang-format on */

static void test_combos(void)
{
	size_t i;

	for (i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
		const struct combo *c = &combos[i];
		struct prec_sample_layout l;

		layout_of(&l, c->sample_type, c->read_format, c->branch_type, c->regs_user,
			  c->regs_intr, true);
		ok(round_trip(&l, &c->p, true), "round trip and every prefix: %s", c->name);
	}
}

/* Random sample_type/read_format/masks/sizes; each is a round trip, prefixes for some. */
static void test_random(void)
{
	int i, fails = 0, n = 3000;

	for (i = 0; i < n; i++) {
		struct prec_sample_layout l;
		struct params p;
		uint64_t bt = (rnd() & 1) ? PERF_SAMPLE_BRANCH_HW_INDEX : 0;
		uint64_t ru = (rnd() & 3) ? rnd() & rnd() : ~0ULL;

		layout_of(&l, rnd() & (PERF_SAMPLE_MAX - 1), rnd() & (PERF_FORMAT_MAX - 1), bt, ru,
			  rnd(), rnd() & 1);
		memset(&p, 0, sizeof(p));
		p.callchain_nr = rnd_below(130);
		p.raw_size = (uint32_t)rnd_below(40);
		p.branch_nr = rnd_below(33);
		p.regs_user_abi = rnd_below(3);
		p.stack_size = 8 * rnd_below(40);
		p.stack_dyn_size = rnd_below(p.stack_size + 1);
		p.read_nr = rnd_below(6);
		p.regs_intr_abi = rnd_below(3);
		p.aux_size = 8 * rnd_below(9);
		if (!round_trip(&l, &p, i % 10 == 0) && fails++ < 5)
			diag("random case %d failed", i);
	}
	ok(fails == 0, "%d random layouts round trip (every prefix of 1 in 10 refused)", n);
}

/* The exact bytes of a few layouts, built by hand from the format description. */
static void test_golden_layouts(void)
{
	struct prec_sample_layout l;
	struct prec_sample s, back;
	uint64_t want[16];
	uint64_t chain[3] = {PREC_CONTEXT_USER, 0x401000, 0x401234};
	unsigned char raw[5] = {1, 2, 3, 4, 5};
	long n;

	/* perf record -g: ip, pid|tid, time, period, nr, ips */
	layout_of(&l, BASIC | PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0, true);
	memset(&s, 0, sizeof(s));
	s.ip = 0x401000;
	s.pid = 100;
	s.tid = 101;
	s.time = 123456789;
	s.period = 250000;
	s.callchain_nr = 3;
	s.callchain = chain;
	want[0] = 0x401000;
	want[1] = 100 | (uint64_t)101 << 32;
	want[2] = 123456789;
	want[3] = 250000;
	want[4] = 3;
	memcpy(&want[5], chain, sizeof(chain));
	n = prec_sample__encode(&l, &s, rec, sizeof(rec));
	ok(n == 64 && !memcmp(rec, want, 64),
	   "-g sample: field order ip, tid, time, period, chain");
	ok(l.id_pos == -1 && l.is_pos == -1, "-g sample: no id positions");
	is_u64(l.trailer_size, 16, "-g sample: trailer is tid + time");

	/* IDENTIFIER first, then ID in its own slot, CPU with a zero reserved half */
	layout_of(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_CPU, 0,
		  0, 0, 0, true);
	memset(&s, 0, sizeof(s));
	s.id = 77;
	s.ip = 0x1234;
	s.cpu = 3;
	want[0] = 77;
	want[1] = 0x1234;
	want[2] = 77;
	want[3] = 3;
	n = prec_sample__encode(&l, &s, rec, sizeof(rec));
	ok(n == 32 && !memcmp(rec, want, 32), "identifier layout: id, ip, id, cpu|0");
	ok(l.id_pos == 0 && l.is_pos == 1, "identifier: id at slot 0, trailer id last (%d, %d)",
	   l.id_pos, l.is_pos);

	/* ID without IDENTIFIER: after ip, tid, time, addr */
	layout_of(&l,
		  PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU,
		  0, 0, 0, 0, true);
	ok(l.id_pos == 4, "id after ip, tid, time, addr: slot %d", l.id_pos);
	ok(l.is_pos == 3, "trailer id before stream_id and cpu: slot %d from the end", l.is_pos);
	is_u64(l.trailer_size, 40, "trailer tid, time, id, stream_id, cpu");
	layout_of(&l, PERF_SAMPLE_ID, 0, 0, 0, 0, true);
	ok(l.id_pos == 0 && l.is_pos == 1, "id alone: slot 0, last in trailer");

	/* RAW: u32 size + data + zero padding to 8 */
	layout_of(&l, PERF_SAMPLE_RAW, 0, 0, 0, 0, false);
	memset(&s, 0, sizeof(s));
	s.raw_size = 5;
	s.raw = raw;
	memset(rec, 0xff, 64);
	n = prec_sample__encode(&l, &s, rec, sizeof(rec));
	{
		static const unsigned char w[16] = {5, 0, 0, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0};

		ok(n == 16 && !memcmp(rec, w, 16), "raw 5 bytes: size, data, 7 zero bytes");
	}
	s.raw_size = 4;
	n = prec_sample__encode(&l, &s, rec, sizeof(rec));
	ok(n == 8, "raw 4 bytes: no padding (%ld)", n);
	ok(l.trailer_size == 0, "no sample_id_all: no trailer");

	/* BRANCH_STACK with HW_INDEX: nr, hw_idx, entries */
	{
		uint64_t br[6] = {1, 2, 3, 4, 5, 6};

		layout_of(&l, PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_HW_INDEX, 0, 0,
			  false);
		memset(&s, 0, sizeof(s));
		s.branch_nr = 2;
		s.branch_hw_idx = 9;
		s.branch_entries = br;
		n = prec_sample__encode(&l, &s, rec, sizeof(rec));
		want[0] = 2;
		want[1] = 9;
		memcpy(&want[2], br, sizeof(br));
		ok(n == 64 && !memcmp(rec, want, 64), "branch stack: nr, hw_idx, entries");
		layout_of(&l, PERF_SAMPLE_BRANCH_STACK, 0, 0, 0, 0, false);
		n = prec_sample__encode(&l, &s, rec, sizeof(rec));
		ok(n == 56 && rec[0] == 2 && !memcmp(&rec[1], br, sizeof(br)),
		   "branch stack without hw_idx: nr, entries");
	}

	/* STACK_USER: size, data, dyn_size; size 0 has no dyn_size */
	{
		uint64_t stack[2] = {0x11, 0x22};

		layout_of(&l, PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT, 0, 0, 0, 0, false);
		memset(&s, 0, sizeof(s));
		s.stack_size = 16;
		s.stack_data = stack;
		s.stack_dyn_size = 12;
		s.weight = 42;
		n = prec_sample__encode(&l, &s, rec, sizeof(rec));
		ok(n == 40 && rec[0] == 16 && rec[1] == 0x11 && rec[2] == 0x22 && rec[3] == 12 &&
		       rec[4] == 42,
		   "stack user: size, data, dyn_size, then weight");
		s.stack_size = 0;
		n = prec_sample__encode(&l, &s, rec, sizeof(rec));
		ok(n == 16 && rec[0] == 0 && rec[1] == 42, "empty stack user: no dyn_size");
	}

	/* READ non-group and group */
	{
		uint64_t rd[7] = {2, 1000, 11, 5, 22, 6};

		layout_of(&l, PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0, 0, false);
		memset(&s, 0, sizeof(s));
		s.read = rd;
		s.read_size = 5 * 8;
		n = prec_sample__encode(&l, &s, rec, sizeof(rec) - 8);
		memmove(rec + 1, rec, (size_t)n);
		set_header(rec, (size_t)n, PERF_RECORD_SAMPLE);
		ok(n == 40 && !prec_sample__parse(&l, rec, 48, &back) && back.read_size == 40,
		   "read group of 2 with ids: nr + 2 x {value, id}");
		layout_of(&l, PERF_SAMPLE_READ,
			  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			      PERF_FORMAT_ID,
			  0, 0, 0, false);
		s.read_size = 32;
		n = prec_sample__encode(&l, &s, rec + 1, sizeof(rec) - 8);
		set_header(rec, (size_t)n, PERF_RECORD_SAMPLE);
		ok(n == 32 && !prec_sample__parse(&l, rec, 40, &back) && back.read_size == 32,
		   "read non-group: value, enabled, running, id");
	}
}

/* Hand-made bodies with absurd counts: each must be -EBADMSG, not a huge read. */
static void test_absurd_counts(void)
{
	/* clang-format off */
	struct {
		const char *name;
		uint64_t sample_type, read_format, branch_type, regs;
		uint64_t words[4];
		size_t nwords;
	} cases[] = {
		{ "callchain nr 2^64-1", PERF_SAMPLE_CALLCHAIN, 0, 0, 0, { UINT64_MAX, 1, 2 }, 3 },
		{ "callchain nr 2^61", PERF_SAMPLE_CALLCHAIN, 0, 0, 0, { 1ULL << 61, 1, 2 }, 3 },
		{ "callchain nr one too many", PERF_SAMPLE_CALLCHAIN, 0, 0, 0, { 3, 1, 2 }, 3 },
		{ "raw size 2^32-1", PERF_SAMPLE_RAW, 0, 0, 0, { 0xffffffffULL, 0 }, 2 },
		{ "raw size one too many", PERF_SAMPLE_RAW, 0, 0, 0, { 13, 0 }, 2 },
		{ "branch nr overflows x24", PERF_SAMPLE_BRANCH_STACK, 0, 0, 0,
		  { UINT64_MAX / 24 * 2 + 1, 0, 0 }, 3 },
		{ "branch nr 1 with hw_idx, 16 bytes left", PERF_SAMPLE_BRANCH_STACK, 0,
		  PERF_SAMPLE_BRANCH_HW_INDEX, 0, { 1, 0, 0, 0 }, 4 },
		{ "regs abi set, 64 regs missing", PERF_SAMPLE_REGS_USER, 0, 0, ~0ULL, { 2, 0 }, 2 },
		{ "stack size 2^64-1", PERF_SAMPLE_STACK_USER, 0, 0, 0, { UINT64_MAX, 0 }, 2 },
		{ "stack size 2^63", PERF_SAMPLE_STACK_USER, 0, 0, 0, { 1ULL << 63, 0 }, 2 },
		{ "stack dyn_size > size", PERF_SAMPLE_STACK_USER, 0, 0, 0, { 8, 0, 16 }, 3 },
		{ "stack dyn_size missing", PERF_SAMPLE_STACK_USER, 0, 0, 0, { 8, 0 }, 2 },
		{ "read group nr 2^64-1", PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0,
		  { UINT64_MAX, 1, 2 }, 3 },
		{ "read group nr 2^60", PERF_SAMPLE_READ, PERF_FORMAT_GROUP, 0, 0,
		  { 1ULL << 60, 1, 2 }, 3 },
		{ "read non-group short", PERF_SAMPLE_READ, PERF_FORMAT_ID | PERF_FORMAT_LOST, 0, 0,
		  { 1, 2 }, 2 },
		{ "aux size 2^64-8", PERF_SAMPLE_AUX, 0, 0, 0, { UINT64_MAX - 7, 0 }, 2 },
		{ "aux size one too many", PERF_SAMPLE_AUX, 0, 0, 0, { 17, 0, 0 }, 3 },
	};
	/* clang-format on */
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct prec_sample_layout l;
		struct prec_sample s;
		size_t size = 8 + 8 * cases[i].nwords;
		uint64_t *r = malloc(size);
		int err;

		if (!r)
			abort();
		layout_of(&l, cases[i].sample_type, cases[i].read_format, cases[i].branch_type,
			  cases[i].regs, 0, false);
		memcpy(r + 1, cases[i].words, 8 * cases[i].nwords);
		set_header(r, 8 * cases[i].nwords, PERF_RECORD_SAMPLE);
		err = prec_sample__parse(&l, r, size, &s);
		ok(err == -EBADMSG, "absurd count refused: %s (%d)", cases[i].name, err);
		free(r);
	}
}

/* Encoding: -ENOSPC for every cap too small (never writing past it), -EINVAL for odd sizes. */
static void test_encode_errors(void)
{
	struct prec_sample_layout l;
	struct prec_sample s;
	struct params p = {.callchain_nr = 6,
			   .raw_size = 7,
			   .branch_nr = 2,
			   .regs_user_abi = 2,
			   .stack_size = 32,
			   .stack_dyn_size = 32,
			   .read_nr = 2,
			   .regs_intr_abi = 2,
			   .aux_size = 8};
	size_t need, cap;
	int fails = 0;
	long n;

	layout_of(&l, (PERF_SAMPLE_MAX - 1) & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT,
		  PERF_FORMAT_GROUP | PERF_FORMAT_ID, PERF_SAMPLE_BRANCH_HW_INDEX, 0xf, 0xf0, true);
	make_sample(&l, &p, &s);
	need = expected_size(&l, &p);
	for (cap = 0; cap < need; cap++) {
		unsigned char *out = malloc(cap ? cap : 1);

		if (!out)
			abort();
		n = prec_sample__encode(&l, &s, out, cap);
		if (n != -ENOSPC && fails++ < 3)
			diag("cap %zu of %zu: encode returned %ld", cap, need, n);
		free(out);
	}
	ok(fails == 0, "encode with every cap below %zu bytes is -ENOSPC", need);
	n = prec_sample__encode(&l, &s, rec, need);
	is_u64((uint64_t)n, need, "encode with the exact cap fits");

	layout_of(&l, PERF_SAMPLE_READ, 0, 0, 0, 0, false);
	s.read_size = 12;
	ok(prec_sample__encode(&l, &s, rec, sizeof(rec)) == -EINVAL,
	   "read block of 12 bytes: -EINVAL");
	layout_of(&l, PERF_SAMPLE_STACK_USER, 0, 0, 0, 0, false);
	s.stack_size = 12;
	ok(prec_sample__encode(&l, &s, rec, sizeof(rec)) == -EINVAL, "stack of 12 bytes: -EINVAL");
	layout_of(&l, PERF_SAMPLE_AUX, 0, 0, 0, 0, false);
	s.aux_size = 4;
	ok(prec_sample__encode(&l, &s, rec, sizeof(rec)) == -EINVAL, "aux of 4 bytes: -EINVAL");
	layout_of(&l, PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0, false);
	s.callchain_nr = UINT64_MAX / 4;
	ok(prec_sample__encode(&l, &s, rec, sizeof(rec)) == -ENOSPC,
	   "callchain of 2^62 entries: -ENOSPC, no overflow");
	layout_of(&l, PERF_SAMPLE_BRANCH_STACK, 0, 0, 0, 0, false);
	s.branch_nr = UINT64_MAX / 16;
	ok(prec_sample__encode(&l, &s, rec, sizeof(rec)) == -ENOSPC,
	   "branch stack of 2^60 entries: -ENOSPC, no overflow");
}

static const uint64_t trailer_bits[] = {
    PERF_SAMPLE_TID,	   PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
    PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,  PERF_SAMPLE_IDENTIFIER,
};

/* The trailer for all 64 combinations of its fields, behind a COMM-like body. */
static void test_trailer(void)
{
	int fails = 0, prefix_fails = 0;
	unsigned int m, k;

	for (m = 0; m < 64; m++) {
		struct prec_sample_layout l;
		struct prec_sample_id id, back;
		uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
		size_t want = 0, size, cut;
		uint64_t r[16], got_id;

		for (k = 0; k < 6; k++)
			if (m & (1U << k)) {
				t |= trailer_bits[k];
				want += 8;
			}
		layout_of(&l, t, 0, 0, 0, 0, true);
		if (l.trailer_size != want) {
			diag("mask %#x: trailer_size %zu, want %zu", m, l.trailer_size, want);
			fails++;
			continue;
		}
		id.pid = 0x1111 + m;
		id.tid = 0x2222 + m;
		id.time = 0x3333333333ULL + m;
		id.id = 0x4444 + m;
		id.stream_id = 0x5555 + m;
		id.cpu = 7 + m;
		/* COMM: pid, tid, "bash\0\0\0\0", then the trailer */
		r[1] = 1 | (uint64_t)2 << 32;
		memcpy(&r[2], "bash\0\0\0\0", 8);
		memset(&r[3], 0xee, want);
		prec_sample_id__encode(&l, &id, &r[3]);
		size = 24 + want;
		set_header(r, size - 8, PERF_RECORD_COMM);
		memset(&back, 0xcc, sizeof(back));
		if (prec_sample_id__parse(&l, r, size, &back)) {
			fails++;
			continue;
		}
		if (((t & PERF_SAMPLE_TID) && (back.pid != id.pid || back.tid != id.tid)) ||
		    ((t & PERF_SAMPLE_TIME) && back.time != id.time) ||
		    ((t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) && back.id != id.id) ||
		    ((t & PERF_SAMPLE_STREAM_ID) && back.stream_id != id.stream_id) ||
		    ((t & PERF_SAMPLE_CPU) && back.cpu != id.cpu)) {
			diag("mask %#x: trailer fields differ", m);
			fails++;
		}
		got_id = prec_record__id(&l, r, size);
		if (got_id != ((t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? id.id : 0)) {
			diag("mask %#x: prec_record__id gives %#" PRIx64, m, got_id);
			fails++;
		}
		/* the zero trailer perf writes for synthesized records */
		memset(&r[3], 0xee, want);
		prec_sample_id__encode(&l, NULL, &r[3]);
		for (k = 0; k < want / 8; k++)
			if (r[3 + k])
				fails++;
		if (prec_sample_id__parse(&l, r, size, &back) || back.id || back.time || back.pid)
			fails++;
		/* a record shorter than header + trailer */
		for (cut = 0; cut < 8 + want; cut++) {
			unsigned char *p = malloc(cut ? cut : 1);

			if (!p)
				abort();
			memcpy(p, r, cut);
			if (want && prec_sample_id__parse(&l, p, cut, &back) != -EBADMSG)
				prefix_fails++;
			(void)prec_record__id(&l, p, cut);
			free(p);
		}
	}
	ok(fails == 0, "trailer encode/parse/record id for all 64 field combinations");
	ok(prefix_fails == 0, "trailer parse of a record shorter than 8 + trailer is -EBADMSG");
}

static void test_trailer_misc(void)
{
	struct prec_sample_layout l;
	struct prec_sample_id id;
	uint64_t r[4] = {0, 0x99, 0x42, 0x43};

	set_header(r, 24, PERF_RECORD_LOST);
	layout_of(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, 0, 0, 0, 0, false);
	ok(l.trailer_size == 0, "sample_id_all off: no trailer");
	memset(&id, 0xcc, sizeof(id));
	ok(prec_sample_id__parse(&l, r, 32, &id) == 0 && id.id == 0 && id.time == 0,
	   "sample_id_all off: parse gives zeros");
	is_u64(prec_record__id(&l, r, 32), 0, "sample_id_all off: non-sample record has no id");

	layout_of(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, 0, 0, 0, 0, true);
	is_u64(prec_record__id(&l, r, 32), 0x43, "identifier: record id is the last u64");
	ok(prec_sample_id__parse(&l, r, 32, &id) == 0 && id.time == 0x42 && id.id == 0x43,
	   "identifier + time trailer parsed from the end");
	ok(prec_sample_id__parse(&l, r, 16, &id) == -EBADMSG, "8-byte body, 16-byte trailer");

	layout_of(&l, PERF_SAMPLE_TID, 0, 0, 0, 0, true);
	is_u64(prec_record__id(&l, r, 32), 0, "no id in the layout: 0");
	is_u64(prec_record__id(&l, r, 4), 0, "record shorter than a header: 0");
}

static void test_popcount(void)
{
	ok(prec_popcount64(0) == 0 && prec_popcount64(~0ULL) == 64 &&
	       prec_popcount64(0xff0fff) == 20 && prec_popcount64(1ULL << 63) == 1,
	   "prec_popcount64");
}

int main(void)
{
	test_popcount();
	test_golden_layouts();
	test_combos();
	test_random();
	test_absurd_counts();
	test_encode_errors();
	test_trailer();
	test_trailer_misc();
	return done_testing();
}
