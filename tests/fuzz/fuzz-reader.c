/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf.data reader (lib/data/prec_reader.c) and the SAMPLE /
 * sample_id codec (prec_sample.c).  The input is opened from memory; every record is read;
 * each SAMPLE is parsed with the layout of the event prec_reader__evsel_of names, every
 * other kernel record has its sample_id trailer parsed; every feature is decoded with the
 * prec_feat__ cursor helpers.  Inputs of odd length go through prec_reader__read_header()
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
