/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf.data reader (lib/data/prec_reader.c) and the SAMPLE /
 * sample_id codec (prec_sample.c).  The input is opened from memory; every record is read;
 * each SAMPLE is parsed with the layout of the event prec_reader__evsel_of names, every
 * other kernel record has its sample_id trailer parsed; every record goes through its
 * decoder in prec_record.h; every feature is decoded with the prec_feat__ cursor helpers
 * (BUILD_ID with the build-id entry decoder).  Inputs of odd length go through prec_reader__read_header()
 * first.  Everything the parsers point at is read, so ASan checks the
 * bounds they claim.  A log callback is installed so that message formatting runs too.
 * Then the input is converted to perf's file form (prec_convert.c) into a memory file, and
 * whatever convert accepts must read back whole: no error, no truncation, every record it
 * counted (else the target aborts).
 * Built as the fuzzer with --enable-fuzzing, and linked with replay-main.c into
 * tests/fuzz/replay-reader, which replays the corpus in `make check`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_convert.h"
#include "prec_log.h"
#include "prec_reader.h"
#include "prec_sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void log_sink(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	sink += (uint64_t)level + strlen(msg);
}

static void touch(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s = 0;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void touch_sample(const struct prec_sample_layout *l, const struct prec_sample *s)
{
	touch(s->read, s->read_size);
	touch(s->callchain, (size_t)s->callchain_nr * 8);
	touch(s->raw, s->raw_size);
	touch(s->branch_entries, (size_t)s->branch_nr * 24);
	if (s->regs_user)
		touch(s->regs_user, 8 * (size_t)prec_popcount64(l->regs_user_mask));
	if (s->regs_intr)
		touch(s->regs_intr, 8 * (size_t)prec_popcount64(l->regs_intr_mask));
	touch(s->stack_data, (size_t)s->stack_size);
	touch(s->aux, (size_t)s->aux_size);
}

/* Strings: one perf string, or a u32 count and that many. */
static void walk_strings(struct prec_feat_cursor *c, bool list)
{
	uint32_t nr = 1, i;
	char *s;

	if (list && prec_feat__u32(c, &nr))
		return;
	for (i = 0; i < nr; i++) {
		if (prec_feat__string(c, &s))
			return;
		sink += strlen(s);
		free(s);
	}
}

/* EVENT_DESC: u32 nr, u32 attr_size, nr x {attr, u32 nr_ids, string, u64 ids[]}. */
static void walk_event_desc(struct prec_feat_cursor *c)
{
	uint32_t nr, asz, nids, i;
	const void *p;
	char *s;

	if (prec_feat__u32(c, &nr) || prec_feat__u32(c, &asz))
		return;
	for (i = 0; i < nr; i++) {
		if (prec_feat__bytes(c, asz, &p) || prec_feat__u32(c, &nids) ||
		    prec_feat__string(c, &s))
			return;
		sink += strlen(s);
		free(s);
		if (prec_feat__bytes(c, (size_t)nids * 8, &p))
			return;
		touch(p, (size_t)nids * 8);
	}
}

/* The record through its decoder in prec_record.h; what the decoder points at is read. */
static void decode_record(const struct prec_record *rec, uint64_t read_format)
{
	union prec_rec_body u;
	const void *p = rec->data;
	size_t n = rec->size;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!prec_rec_mmap__parse(p, n, &u.mmap))
			sink += strlen(u.mmap.filename) + u.mmap.build_id_size + u.mmap.ino;
		break;
	case PERF_RECORD_COMM:
		if (!prec_rec_comm__parse(p, n, &u.comm))
			sink += strlen(u.comm.comm);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!prec_rec_fork__parse(p, n, &u.fork))
			sink += u.fork.time;
		break;
	case PERF_RECORD_LOST:
		if (!prec_rec_lost__parse(p, n, &u.lost))
			sink += u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (!prec_rec_lost_samples__parse(p, n, &u.v))
			sink += u.v;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (!prec_rec_throttle__parse(p, n, &u.throttle))
			sink += u.throttle.time;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (!prec_rec_switch__parse(p, n, &u.sw))
			sink += u.sw.next_prev_tid;
		break;
	case PERF_RECORD_READ:
		if (!prec_rec_read__parse(p, n, read_format, &u.read))
			touch(u.read.values, u.read.values_size);
		break;
	case PREC_REC_HEADER_BUILD_ID:
		if (!prec_rec_build_id__parse(p, n, &u.bid))
			sink += strlen(u.bid.filename) + u.bid.size;
		break;
	case PREC_REC_HEADER_ATTR:
		if (!prec_rec_attr__parse(p, n, &u.attr))
			touch(u.attr.ids, u.attr.nr_ids * 8);
		break;
	case PREC_REC_HEADER_FEATURE:
		if (!prec_rec_feature__parse(p, n, &u.feature))
			touch(u.feature.data, u.feature.len);
		break;
	case PREC_REC_EVENT_UPDATE:
		if (!prec_rec_event_update__parse(p, n, &u.update))
			touch(u.update.data, u.update.len);
		break;
	case PREC_REC_HEADER_TRACING_DATA:
	case PREC_REC_AUXTRACE:
		if (!prec_rec_oob__parse(p, n, &u.v))
			sink += u.v;
		break;
	case PREC_REC_ID_INDEX:
		if (!prec_rec_id_index__parse(p, n, &u.id_index))
			touch(u.id_index.entries, (size_t)u.id_index.nr * 32);
		break;
	default:
		break;
	}
}

static void walk_build_ids(const void *p, size_t len)
{
	struct prec_rec_build_id b;
	size_t off = 0;
	int rc;

	while ((rc = prec_build_id_feature__next(p, len, &off, &b)) != 0)
		if (rc > 0)
			sink += strlen(b.filename) + b.size;
}

static void walk_features(struct prec_reader *r)
{
	unsigned int feat;

	for (feat = 0; feat < PREC_FEAT_BITS; feat++) {
		struct prec_feat_cursor c;
		size_t len = 0;
		const void *p = prec_reader__feature(r, feat, &len);
		uint64_t v;

		if (!p)
			continue;
		c = (struct prec_feat_cursor){p, len, 0};
		switch (feat) {
		case PREC_FEAT_HOSTNAME:
		case PREC_FEAT_OSRELEASE:
		case PREC_FEAT_VERSION:
		case PREC_FEAT_ARCH:
		case PREC_FEAT_CPUDESC:
		case PREC_FEAT_CPUID:
			walk_strings(&c, false);
			break;
		case PREC_FEAT_CMDLINE:
			walk_strings(&c, true);
			break;
		case PREC_FEAT_EVENT_DESC:
			walk_event_desc(&c);
			break;
		case PREC_FEAT_BUILD_ID:
			walk_build_ids(p, len);
			break;
		default:
			while (!prec_feat__u64(&c, &v))
				sink += v;
			break;
		}
	}
}

/* Convert the input into a memory file; what convert writes must read back whole. */
static void convert_and_read_back(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct prec_convert_stats st;
	struct prec_reader *r;
	struct prec_record rec;
	uint64_t n = 0;
	int rc;

	if (fd < 0)
		fd = memfd_create("fuzz-convert", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		return;
	if (prec_reader__open_mem(data, size, &r))
		return;
	rc = prec_convert_to_file(r, fd, &st);
	prec_reader__free(r);
	if (rc)
		return;
	if (lseek(fd, 0, SEEK_SET) || prec_reader__open_fd(fd, &r))
		abort(); /* convert wrote a file its own reader cannot open */
	while ((rc = prec_reader__next(r, &rec)) == 1)
		n++;
	if (rc || n != st.records || prec_reader__truncated(r) || prec_reader__is_pipe(r))
		abort();
	prec_reader__free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prec_reader *r;
	struct prec_record rec;
	size_t i;

	prec_log_set_fn(log_sink, NULL);
	if (prec_reader__open_mem(data, size, &r))
		return 0;
	/* both ways of meeting pipe-form headers: read ahead (and replayed), or as they pass */
	if ((size & 1) && prec_reader__read_header(r)) {
		prec_reader__free(r);
		return 0;
	}
	walk_features(r);
	while (prec_reader__next(r, &rec) == 1) {
		const struct prec_evsel *ev;
		int idx;

		touch(rec.data, rec.size);
		idx = prec_reader__evsel_of(r, &rec);
		ev = prec_reader__evsel(r, idx >= 0 ? (size_t)idx : 0);
		decode_record(&rec, ev ? ev->attr.read_format : 0);
		if (!ev || rec.type >= PREC_REC_USER_START)
			continue;
		sink += prec_record__id(&ev->layout, rec.data, rec.size);
		if (rec.type == PERF_RECORD_SAMPLE) {
			struct prec_sample s;

			if (!prec_sample__parse(&ev->layout, rec.data, rec.size, &s))
				touch_sample(&ev->layout, &s);
		} else {
			struct prec_sample_id sid;

			if (!prec_sample_id__parse(&ev->layout, rec.data, rec.size, &sid))
				sink += sid.id + sid.time;
		}
	}
	/* pipe form: features and names arrive with the records */
	walk_features(r);
	for (i = 0; i < prec_reader__nr_evsels(r); i++) {
		const struct prec_evsel *ev = prec_reader__evsel(r, i);

		sink += strlen(ev->name) + ev->nr_ids;
		touch(ev->ids, ev->nr_ids * 8);
	}
	sink += prec_reader__truncated(r) + prec_reader__is_pipe(r) + prec_reader__offset(r);
	prec_reader__free(r);
	convert_and_read_back(data, size);
	return 0;
}
