/* SPDX-License-Identifier: MIT */
/*
 * File-form writer.  Invariants:
 *  - `pos` is the file offset the next byte of `out` goes to; bytes reach the fd only through
 *    write_out(), in order, so the file is written front to back and only the header is
 *    written twice (placeholder first, pwrite at finish).
 *  - The ids and attrs are written once, before the first record (or at finish when there is
 *    none); after that no attr may be added.
 *  - The feature table starts exactly where the records end, one entry per feature set, in
 *    ascending order, as perf reads it; payloads follow it back to back.
 *  - After the first error, `err` is sticky and nothing else is written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_file_writer.h"

#define OUTBUF (1024 * 1024)
#define ATTR_ENTRY (PREC_ATTR_SIZE + 16)

struct fw_attr {
	unsigned char attr[PREC_ATTR_SIZE];
	uint64_t *ids;
	size_t nr_ids;
};

struct fw_feature {
	void *data;
	size_t len;
	bool present;
};

struct prec_file_writer {
	int fd;
	int err;
	struct prec_buf out;
	uint64_t pos;
	struct fw_attr *attrs;
	size_t nr_attrs;
	bool data_started;
	uint64_t attrs_off, data_off;
	struct fw_feature feat[PREC_FEAT_LAST];
};

static int write_out(struct prec_file_writer *w)
{
	size_t done = 0;
	ssize_t n;

	if (w->err)
		return w->err;
	while (done < w->out.len) {
		n = write(w->fd, w->out.data + done, w->out.len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err = n < 0 ? -errno : -EIO;
			return w->err;
		}
		done += (size_t)n;
	}
	w->pos += done;
	w->out.len = 0;
	return 0;
}

/* Append to the output; returns the file offset the bytes will have. */
static int put(struct prec_file_writer *w, const void *p, size_t n)
{
	int err;

	if (w->err)
		return w->err;
	err = prec_buf__append(&w->out, p, n);
	if (err)
		return w->err = err;
	return w->out.len >= OUTBUF ? write_out(w) : 0;
}

static uint64_t offset(const struct prec_file_writer *w)
{
	return w->pos + w->out.len;
}

int prec_file_writer__new(int fd, struct prec_file_writer **ret)
{
	struct prec_file_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	err = prec_buf__append_zeros(&w->out, PREC_FILE_HEADER_SIZE);
	if (!err)
		err = write_out(w);
	if (err) {
		prec_file_writer__free(w);
		return err;
	}
	*ret = w;
	return 0;
}

void prec_file_writer__free(struct prec_file_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].ids);
	free(w->attrs);
	for (i = 0; i < PREC_FEAT_LAST; i++)
		free(w->feat[i].data);
	prec_buf__release(&w->out);
	free(w);
}

int prec_file_writer__add_attr(struct prec_file_writer *w, const struct perf_event_attr *attr,
			       const uint64_t *ids, size_t nr_ids)
{
	struct fw_attr *v, *a;
	uint32_t size = PREC_ATTR_SIZE;

	if (w->err)
		return w->err;
	if (w->data_started)
		return -EINVAL;
	v = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->attrs = v;
	a = &v[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(a->attr, attr, sizeof(*attr) < PREC_ATTR_SIZE ? sizeof(*attr) : PREC_ATTR_SIZE);
	memcpy(a->attr + 4, &size, 4);
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!a->ids)
			return -ENOMEM;
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	}
	a->nr_ids = nr_ids;
	w->nr_attrs++;
	return 0;
}

/* The id arrays, then the attrs, each followed by {offset, size} of its ids: as perf does. */
static int start_data(struct prec_file_writer *w)
{
	uint64_t *ids_off;
	size_t i;
	int err = 0;

	if (w->data_started)
		return w->err;
	w->data_started = true;
	ids_off = calloc(w->nr_attrs ? w->nr_attrs : 1, sizeof(*ids_off));
	if (!ids_off)
		return w->err = -ENOMEM;
	for (i = 0; !err && i < w->nr_attrs; i++) {
		ids_off[i] = offset(w);
		err = put(w, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(uint64_t));
	}
	w->attrs_off = offset(w);
	for (i = 0; !err && i < w->nr_attrs; i++) {
		uint64_t sec[2] = {ids_off[i], w->attrs[i].nr_ids * sizeof(uint64_t)};

		err = put(w, w->attrs[i].attr, PREC_ATTR_SIZE);
		if (!err)
			err = put(w, sec, sizeof(sec));
	}
	w->data_off = offset(w);
	free(ids_off);
	return err;
}

int prec_file_writer__add_record(struct prec_file_writer *w, const void *rec, size_t size)
{
	int err = start_data(w);

	return err ? err : put(w, rec, size);
}

int prec_file_writer__set_feature(struct prec_file_writer *w, unsigned int feat, const void *data,
				  size_t len)
{
	struct fw_feature *f;
	void *copy;

	if (feat == 0 || feat >= PREC_FEAT_LAST)
		return -EINVAL;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, len);
	f = &w->feat[feat];
	free(f->data);
	f->data = copy;
	f->len = len;
	f->present = true;
	return 0;
}

uint64_t prec_file_writer__data_size(const struct prec_file_writer *w)
{
	return w->data_started ? offset(w) - w->data_off : 0;
}

int prec_file_writer__finish(struct prec_file_writer *w)
{
	uint64_t h[13], bits[4] = {0, 0, 0, 0}, data_end, at, sec[2];
	unsigned int feat, nr = 0;
	size_t done = 0;
	ssize_t n;
	int err = start_data(w);

	if (err)
		return err;
	data_end = offset(w);
	for (feat = 1; feat < PREC_FEAT_LAST; feat++)
		if (w->feat[feat].present) {
			bits[feat / 64] |= 1ULL << (feat % 64);
			nr++;
		}
	at = data_end + (uint64_t)nr * 16;
	for (feat = 1; !err && feat < PREC_FEAT_LAST; feat++) {
		if (!w->feat[feat].present)
			continue;
		sec[0] = at;
		sec[1] = w->feat[feat].len;
		at += sec[1];
		err = put(w, sec, sizeof(sec));
	}
	for (feat = 1; !err && feat < PREC_FEAT_LAST; feat++)
		if (w->feat[feat].present)
			err = put(w, w->feat[feat].data, w->feat[feat].len);
	if (!err)
		err = write_out(w);
	if (err)
		return err;

	h[0] = PREC_MAGIC;
	h[1] = PREC_FILE_HEADER_SIZE;
	h[2] = ATTR_ENTRY;
	h[3] = w->attrs_off;
	h[4] = (uint64_t)w->nr_attrs * ATTR_ENTRY;
	h[5] = w->data_off;
	h[6] = data_end - w->data_off;
	h[7] = h[8] = 0; /* event_types: unused */
	memcpy(&h[9], bits, sizeof(bits));
	while (done < sizeof(h)) {
		n = pwrite(w->fd, (const char *)h + done, sizeof(h) - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return w->err = n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}
