/* SPDX-License-Identifier: MIT */
/*
 * perf.data in file form (the seekable layout `perf record -o FILE` writes), uncompressed:
 * for tools that read only that form (perf diff, perf annotate on compressed data, hotspot
 * built without zstd).  Layout: the 104-byte header, the id arrays, the attrs, the records,
 * then the feature table at exactly the end of the data and the feature payloads.
 *
 * Order of use:
 *   prec_file_writer__new()           a placeholder header
 *   prec_file_writer__add_attr()      every event, before the first record
 *   prec_file_writer__add_record()    records, in file order
 *   prec_file_writer__set_feature()   any time before finish
 *   prec_file_writer__finish()        the feature table and payloads, then the real header
 *
 * The fd is not owned; it must be a new, empty, seekable file (the header is rewritten at
 * offset 0).  Until finish the header says data size 0, which perf reads as a recording that
 * did not finish.  Every function returns 0 or -errno; a write error is sticky.
 */
#ifndef PREC_FILE_WRITER_H
#define PREC_FILE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

struct prec_file_writer;

int prec_file_writer__new(int fd, struct prec_file_writer **ret);
void prec_file_writer__free(struct prec_file_writer *w); /* NULL-safe */

/* One event: its attr (written with size 128, as perf 6.1 does) and the ids of its fds.
 * -EINVAL once a record was added. */
int prec_file_writer__add_attr(struct prec_file_writer *w, const struct perf_event_attr *attr,
			       const uint64_t *ids, size_t nr_ids);

/* One whole record (header included), `size` bytes as its header says. */
int prec_file_writer__add_record(struct prec_file_writer *w, const void *rec, size_t size);

/* The payload of feature `feat` (1..31), copied; replaces an earlier one. */
int prec_file_writer__set_feature(struct prec_file_writer *w, unsigned int feat, const void *data,
				  size_t len);

int prec_file_writer__finish(struct prec_file_writer *w);

/* Bytes of records written so far. */
uint64_t prec_file_writer__data_size(const struct prec_file_writer *w);

#endif
