/* SPDX-License-Identifier: MIT */
/*
 * The reader's events (`struct prec_evsel`): their attrs and ids from the file form's attr
 * section or from pipe-form HEADER_ATTR records, their names from EVENT_UPDATE records and
 * the EVENT_DESC feature (prec_reader_features.c), else derived from the attr; and the index
 * from a record's id to its event.
 *
 * Invariants: at most MAX_ATTRS events and MAX_IDS ids in all, checked before anything is
 * allocated; every event has a name; `named[i]` says event i's name was recorded, and a
 * recorded name is not replaced by EVENT_DESC's; the id index is sorted and covers every
 * event's ids whenever `ids_dirty` is false.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_log.h"
#include "prec_reader_int.h"

#define MAX_ATTRS 4096
#define MAX_ATTR_SIZE 4096
#define MAX_IDS (1U << 20)

const char *prec_event_name_from_attr(const struct perf_event_attr *attr, char *buf, size_t len)
{
	static const char *const hw[] = {
		"cycles",	  "instructions",	     "cache-references",
		"cache-misses",	  "branch-instructions",     "branch-misses",
		"bus-cycles",	  "stalled-cycles-frontend", "stalled-cycles-backend",
		"ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock",	   "task-clock",       "page-faults",	"context-switches",
		"cpu-migrations",  "minor-faults",     "major-faults",	"alignment-faults",
		"emulation-faults", "dummy",	       "bpf-output",	"cgroup-switches",
	};

	if (attr->type == PERF_TYPE_HARDWARE && attr->config < sizeof(hw) / sizeof(hw[0]))
		snprintf(buf, len, "%s", hw[attr->config]);
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config < sizeof(sw) / sizeof(sw[0]))
		snprintf(buf, len, "%s", sw[attr->config]);
	else if (attr->type == PERF_TYPE_RAW)
		snprintf(buf, len, "r%" PRIx64, (uint64_t)attr->config);
	else if (attr->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, len, "tracepoint:%" PRIu64, (uint64_t)attr->config);
	else
		snprintf(buf, len, "%u/0x%" PRIx64 "/", attr->type, (uint64_t)attr->config);
	return buf;
}

static int cmp_id(const void *a, const void *b)
{
	const struct prec_id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int rebuild_ids(struct prec_reader *r)
{
	size_t i, j, n = 0;
	struct prec_id_entry *v;

	for (i = 0; i < r->nr_evsels; i++)
		n += r->evsels[i].nr_ids;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (n && !v)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < r->nr_evsels; i++)
		for (j = 0; j < r->evsels[i].nr_ids; j++) {
			v[n].id = r->evsels[i].ids[j];
			v[n].idx = i;
			n++;
		}
	if (n)
		qsort(v, n, sizeof(*v), cmp_id);
	free(r->ids);
	r->ids = v;
	r->nr_ids = n;
	r->ids_dirty = false;
	return 0;
}

/*
 * The index is rebuilt once after a run of attrs, not per attr: attrs may share one id
 * array, and re-sorting everything per attr made a small file cost minutes.
 */
int prec_reader__ensure_ids(struct prec_reader *r)
{
	return r->ids_dirty ? rebuild_ids(r) : 0;
}

/* Take an attr of `asz` bytes (validated by the caller) and its ids; marks the index stale. */
static int add_evsel(struct prec_reader *r, const void *attr, size_t asz, const void *ids,
		     size_t nr_ids)
{
	struct prec_evsel *e;
	bool *named;
	char nbuf[64];

	if (r->nr_evsels >= MAX_ATTRS || nr_ids > MAX_IDS - r->ids_total)
		return -EBADMSG;
	e = realloc(r->evsels, (r->nr_evsels + 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	r->evsels = e;
	named = realloc(r->named, (r->nr_evsels + 1) * sizeof(*named));
	if (!named)
		return -ENOMEM;
	r->named = named;
	e = &r->evsels[r->nr_evsels];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, attr, asz < sizeof(e->attr) ? asz : sizeof(e->attr));
	if (nr_ids) {
		e->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!e->ids)
			return -ENOMEM;
		memcpy(e->ids, ids, nr_ids * sizeof(uint64_t));
	}
	e->nr_ids = nr_ids;
	e->name = strdup(prec_event_name_from_attr(&e->attr, nbuf, sizeof(nbuf)));
	if (!e->name) {
		free(e->ids);
		return -ENOMEM;
	}
	prec_sample_layout__init(&e->layout, &e->attr);
	r->named[r->nr_evsels] = false;
	r->nr_evsels++;
	r->ids_total += nr_ids;
	r->ids_dirty = true;
	return 0;
}

void prec_reader__set_name(struct prec_reader *r, size_t idx, const char *name)
{
	char *n;

	if (idx >= r->nr_evsels || !name[0])
		return;
	n = strdup(name);
	if (!n)
		return;
	free(r->evsels[idx].name);
	r->evsels[idx].name = n;
	r->named[idx] = true;
}

static int find_id(const struct prec_reader *r, uint64_t id)
{
	size_t lo = 0, hi = r->nr_ids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ids[mid].id == id)
			return (int)r->ids[mid].idx;
		if (r->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Each attr of the section is followed by a file section {offset, size} of its ids. */
int prec_reader__read_attrs(struct prec_reader *r, uint64_t attrs_off, uint64_t attrs_size,
			    uint64_t attr_size)
{
	uint64_t fsize = prec_src__size(&r->src), nr_attrs, i, ids[2], off = attrs_off;
	unsigned char *abuf = NULL;
	uint64_t *idv = NULL;
	int err = 0;

	if (!attr_size)
		return prec_reader_bad(16, "attr size is 0");
	nr_attrs = attrs_size / attr_size;
	if (nr_attrs > MAX_ATTRS)
		return prec_reader_bad(32, "too many events");

	abuf = malloc(MAX_ATTR_SIZE + 16);
	if (!abuf)
		return -ENOMEM;
	for (i = 0; i < nr_attrs; i++) {
		uint32_t asz;

		err = prec_src__read_part(&r->src, off, abuf, 8, "attr section outside the file");
		if (err)
			goto out;
		memcpy(&asz, abuf + 4, 4);
		if (!asz)
			asz = 64;
		if (asz < 64 || asz > MAX_ATTR_SIZE || (asz & 7)) {
			err = prec_reader_bad(off, "bad attr size");
			goto out;
		}
		err = prec_src__read_part(&r->src, off, abuf, asz + 16,
					  "attr section outside the file");
		if (err)
			goto out;
		memcpy(ids, abuf + asz, 16);
		if (ids[1] / 8 > MAX_IDS || (fsize != PREC_NO_LIMIT && ids[1] > fsize)) {
			err = prec_reader_bad(off + asz, "bad id section");
			goto out;
		}
		free(idv);
		idv = malloc(ids[1] ? ids[1] : 8);
		if (!idv) {
			err = -ENOMEM;
			goto out;
		}
		if (ids[1]) {
			err = prec_src__read_part(&r->src, ids[0], idv, ids[1] / 8 * 8,
						  "id array outside the file");
			if (err)
				goto out;
		}
		err = add_evsel(r, abuf, asz, idv, ids[1] / 8);
		if (err) {
			err = err == -EBADMSG ? prec_reader_bad(off, "too many ids") : err;
			goto out;
		}
		off += asz + 16;
	}
	err = prec_reader__ensure_ids(r);
out:
	free(abuf);
	free(idv);
	return err;
}

void prec_reader__absorb_attr(struct prec_reader *r, const unsigned char *p, size_t size,
			      uint64_t off)
{
	struct prec_rec_attr a;
	int err;

	if (prec_rec_attr__parse(p, size, &a)) {
		prec_warn("offset %#" PRIx64 ": HEADER_ATTR too short or with a bad attr size; "
			  "ignored", off);
		return;
	}
	err = add_evsel(r, &a.attr, sizeof(a.attr), a.ids, a.nr_ids);
	if (err)
		prec_warn("offset %#" PRIx64 ": HEADER_ATTR not taken (%s)", off, strerror(-err));
}

void prec_reader__absorb_event_update(struct prec_reader *r, const unsigned char *p, size_t size)
{
	struct prec_rec_event_update u;
	char name[256];
	size_t n;
	int idx;

	if (prec_rec_event_update__parse(p, size, &u) || u.type != PREC_EVENT_UPDATE_NAME ||
	    prec_reader__ensure_ids(r))
		return;
	n = u.len < sizeof(name) - 1 ? u.len : sizeof(name) - 1;
	memcpy(name, u.data, n);
	name[n] = 0;
	idx = r->nr_evsels == 1 ? 0 : find_id(r, u.id);
	if (idx >= 0)
		prec_reader__set_name(r, (size_t)idx, name);
}

size_t prec_reader__nr_evsels(const struct prec_reader *r)
{
	return r->nr_evsels;
}

const struct prec_evsel *prec_reader__evsel(const struct prec_reader *r, size_t idx)
{
	return idx < r->nr_evsels ? &r->evsels[idx] : NULL;
}

int prec_reader__evsel_of(const struct prec_reader *r, const struct prec_record *rec)
{
	uint64_t id;

	if (!r->nr_evsels)
		return -ENOENT;
	if (r->nr_evsels == 1)
		return 0;
	if (rec->type != PERF_RECORD_SAMPLE && !r->evsels[0].layout.sample_id_all)
		return 0;
	id = prec_record__id(&r->evsels[0].layout, rec->data, rec->size);
	if (!id)
		return 0;
	return find_id(r, id);
}

void prec_reader__free_events(struct prec_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i].ids);
		free(r->evsels[i].name);
	}
	free(r->evsels);
	free(r->named);
	free(r->ids);
}
