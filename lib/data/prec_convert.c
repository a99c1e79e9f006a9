/* SPDX-License-Identifier: MIT */
/*
 * Conversion to the file form.  One pass over the input: the events are known once the
 * reader has read the header (pipe form: the HEADER_ATTR records before the first other
 * record), so the attrs go first, then each record as it comes; features are collected on
 * the way and written at the end.  Build-ids are kept once per (file name, build-id, pid,
 * cpumode), in the order first seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_convert.h"
#include "prec_file_writer.h"
#include "prec_hash.h"
#include "prec_log.h"
#include "prec_writer.h"

#define NAME_ALIGN 64

/* One BUILD_ID entry; a keyset key, so its padding is zeroed. */
struct bid_key {
	const char *name; /* interned */
	int32_t pid;
	uint16_t misc; /* cpumode */
	uint8_t size;
	uint8_t pad;
	uint8_t id[PREC_BUILD_ID_SIZE];
	uint32_t pad2;
};

struct conv {
	struct prec_reader *r;
	struct prec_file_writer *w;
	struct prec_keyset bids;
	struct prec_strset names;
	struct prec_time_range times;
	struct prec_convert_stats st;
	unsigned char fixed[UINT16_MAX]; /* an MMAP2 record being repaired */
};

static int add_build_id(struct conv *c, int32_t pid, uint16_t cpumode, const uint8_t *id,
			size_t size, const char *name)
{
	struct bid_key k;
	long rc;

	if (!size || size > PREC_BUILD_ID_SIZE)
		return 0;
	memset(&k, 0, sizeof(k));
	k.name = prec_strset__intern(&c->names, name);
	if (!k.name)
		return -ENOMEM;
	k.pid = pid;
	k.misc = cpumode;
	k.size = (uint8_t)size;
	memcpy(k.id, id, size);
	rc = prec_keyset__intern(&c->bids, &k, NULL);
	return rc < 0 ? (int)rc : 0;
}

/* A HEADER_BUILD_ID record; a malformed one is left out. */
static int add_build_id_record(struct conv *c, const struct prec_record *rec)
{
	struct prec_rec_build_id b;

	if (prec_rec_build_id__parse(rec->data, rec->size, &b))
		return 0;
	return add_build_id(c, b.pid, b.cpumode, b.id, b.size, b.filename);
}

/* The input's BUILD_ID feature (file form); malformed entries are left out. */
static int add_build_id_feature(struct conv *c)
{
	struct prec_rec_build_id b;
	const void *p;
	size_t len = 0, off = 0;
	int rc, err = 0;

	p = prec_reader__feature(c->r, PREC_FEAT_BUILD_ID, &len);
	while (!err && (rc = prec_build_id_feature__next(p, len, &off, &b)) != 0)
		if (rc > 0)
			err = add_build_id(c, b.pid, b.cpumode, b.id, b.size, b.filename);
	return err;
}

/* EVENT_DESC from the events as the reader knows them, names included. */
static int set_event_desc(struct conv *c)
{
	struct prec_buf b = {0};
	uint32_t nr = (uint32_t)prec_reader__nr_evsels(c->r), asz = PREC_ATTR_SIZE, i;
	int err = prec_buf__append(&b, &nr, 4);

	if (!err)
		err = prec_buf__append(&b, &asz, 4);
	for (i = 0; !err && i < nr; i++) {
		const struct prec_evsel *e = prec_reader__evsel(c->r, i);

		err = prec_feat_put_event(&b, &e->attr, e->ids, e->nr_ids, e->name);
	}
	if (!err)
		err = prec_file_writer__set_feature(c->w, PREC_FEAT_EVENT_DESC, b.data, b.len);
	prec_buf__release(&b);
	return err;
}

/* BUILD_ID: one entry per build-id seen, the name NUL-padded to a multiple of 64. */
static int set_build_ids(struct conv *c)
{
	struct prec_buf b = {0};
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < c->bids.n; i++) {
		const struct bid_key *k = prec_keyset__key(&c->bids, i);
		size_t n = strlen(k->name) + 1;
		size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		struct perf_event_header h = {0, (uint16_t)(k->misc | PREC_MISC_BUILD_ID_SIZE),
					      (uint16_t)(36 + padded)};
		unsigned char fixed[28];

		if (36 + padded > UINT16_MAX)
			continue;
		memset(fixed, 0, sizeof(fixed));
		memcpy(fixed, &k->pid, 4);
		memcpy(fixed + 4, k->id, PREC_BUILD_ID_SIZE);
		fixed[24] = k->size;
		err = prec_buf__append(&b, &h, sizeof(h));
		if (!err)
			err = prec_buf__append(&b, fixed, sizeof(fixed));
		if (!err)
			err = prec_buf__append(&b, k->name, n);
		if (!err)
			err = prec_buf__append_zeros(&b, padded - n);
		c->st.build_ids++;
	}
	if (!err && b.len)
		err = prec_file_writer__set_feature(c->w, PREC_FEAT_BUILD_ID, b.data, b.len);
	prec_buf__release(&b);
	return err;
}

static bool copies_feature(unsigned int feat)
{
	switch (feat) {
	case PREC_FEAT_TRACING_DATA: /* never taken: tracepoints are refused */
	case PREC_FEAT_BUILD_ID:     /* rebuilt */
	case PREC_FEAT_EVENT_DESC:
	case PREC_FEAT_SAMPLE_TIME:
	case PREC_FEAT_COMPRESSED: /* the old form's, untrue of the new file */
	case PREC_FEAT_DIR_FORMAT:
	case PREC_FEAT_AUXTRACE: /* file offsets of the old file */
		return false;
	default:
		return true;
	}
}

static int set_features(struct conv *c)
{
	unsigned int feat;
	const void *p;
	size_t len;
	int err = 0;

	for (feat = 1; !err && feat < PREC_FEAT_LAST; feat++) {
		if (!copies_feature(feat))
			continue;
		p = prec_reader__feature(c->r, feat, &len);
		if (p)
			err = prec_file_writer__set_feature(c->w, feat, p, len);
	}
	if (!err)
		err = set_event_desc(c);
	if (!err && c->times.first) {
		uint64_t v[2] = {c->times.first, c->times.last};

		err = prec_file_writer__set_feature(c->w, PREC_FEAT_SAMPLE_TIME, v, sizeof(v));
	}
	return err ? err : set_build_ids(c);
}

static int refuse(const char *what)
{
	prec_log(PREC_LOG_ERROR, "the recording holds %s, which convert cannot carry over", what);
	return -EOPNOTSUPP;
}

/* Handle one record: written, dropped, or its facts taken. */
static int take(struct conv *c, const struct prec_record *rec, size_t nr_evsels)
{
	struct prec_mmap2 m;
	int idx, err;

	switch (rec->type) {
	case PREC_REC_HEADER_ATTR:
		if (prec_reader__nr_evsels(c->r) != nr_evsels)
			return refuse("an event announced after the first record");
		return 0;
	case PREC_REC_HEADER_FEATURE:	 /* taken by the reader */
	case PREC_REC_HEADER_EVENT_TYPE: /* obsolete */
	case PREC_REC_COMPRESSED:	 /* its records follow */
		return 0;
	case PREC_REC_HEADER_BUILD_ID:
		return add_build_id_record(c, rec);
	case PREC_REC_HEADER_TRACING_DATA:
		return refuse("tracepoint data");
	case PREC_REC_AUXTRACE:
	case PREC_REC_AUXTRACE_INFO:
		return refuse("AUX area data (Intel PT, ARM SPE)");
	case PERF_RECORD_SAMPLE:
		c->st.samples++;
		idx = prec_reader__evsel_of(c->r, rec);
		if (idx >= 0)
			prec_time_range__add(
			    &c->times, prec_sample__time(&prec_reader__evsel(c->r, idx)->layout,
							 rec->data, rec->size));
		break;
	case PERF_RECORD_MMAP2:
		if (prec_rec_mmap__parse(rec->data, rec->size, &m))
			break; /* carried over as it is */
		/* in build-id form the id replaces device and inode */
		if (m.has_build_id) {
			err = add_build_id(c, -1, rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					   m.build_id, m.build_id_size, m.filename);
			if (err)
				return err;
		} else if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			/* the flag over device and inode (a kernel bug, see prec_record.h):
			 * cleared, or perf reads them as a build-id */
			uint16_t misc = rec->misc & ~PERF_RECORD_MISC_MMAP_BUILD_ID;

			memcpy(c->fixed, rec->data, rec->size);
			memcpy(c->fixed + 4, &misc, 2);
			c->st.mmap2_fixed++;
			c->st.records++;
			return prec_file_writer__add_record(c->w, c->fixed, rec->size);
		}
		break;
	default:
		break;
	}
	c->st.records++;
	return prec_file_writer__add_record(c->w, rec->data, rec->size);
}

int prec_convert_to_file(struct prec_reader *r, int fd, struct prec_convert_stats *ret)
{
	struct prec_record rec;
	struct conv *c;
	size_t i, nr;
	int err, rc;

	c = calloc(1, sizeof(*c)); /* not on the stack: it holds a record buffer */
	if (!c)
		return -ENOMEM;
	c->r = r;
	prec_keyset__init(&c->bids, sizeof(struct bid_key));
	err = prec_reader__read_header(r);
	if (!err)
		err = prec_file_writer__new(fd, &c->w);
	if (err)
		goto out;
	nr = prec_reader__nr_evsels(r);
	for (i = 0; !err && i < nr; i++) {
		const struct prec_evsel *e = prec_reader__evsel(r, i);

		if (e->attr.type == PERF_TYPE_TRACEPOINT)
			err = refuse("tracepoint events");
		else
			err = prec_file_writer__add_attr(c->w, &e->attr, e->ids, e->nr_ids);
	}
	if (!err)
		err = add_build_id_feature(c);
	while (!err && (rc = prec_reader__next(r, &rec)) != 0)
		err = rc < 0 ? rc : take(c, &rec, nr);
	/* the file form cannot say "no records": data size 0 means a recording that never ended */
	if (!err && !c->st.records) {
		prec_log(PREC_LOG_ERROR, "the recording holds no records");
		err = -ENODATA;
	}
	if (!err)
		err = set_features(c);
	if (!err)
		err = prec_file_writer__finish(c->w);
	if (!err) {
		c->st.truncated = prec_reader__truncated(r);
		c->st.cut_short = prec_reader__cut_short(r);
		*ret = c->st;
	}
out:
	prec_file_writer__free(c->w);
	prec_keyset__release(&c->bids);
	prec_strset__release(&c->names);
	free(c);
	return err;
}
