/* SPDX-License-Identifier: MIT */
/*
 * The record stream reader: perf.data in file form or pipe form, plain or with
 * PERF_RECORD_COMPRESSED (perf's single unterminated zstd frame, or our independent frames),
 * from a path, a file descriptor (standard input included) or memory.
 *
 * prec_reader__next() hands out records in file order.  A COMPRESSED record is handed out
 * itself, then the records decompressed from it (marked `decompressed`); records may span
 * COMPRESSED records.  In pipe form, HEADER_ATTR / HEADER_FEATURE / EVENT_UPDATE records are
 * absorbed into the reader's event list and feature table as they pass, and handed out too.
 *
 * Robustness: every length is checked against what remains and against a fixed maximum; no
 * allocation is driven by an unchecked size; decompression proceeds in bounded steps.  A
 * truncated tail ends the stream normally (0) with a warning through the log callback and
 * prec_reader__truncated() true.  Garbage returns -EBADMSG, with the byte offset logged.
 * A byte-swapped (other-endian) file is refused with -EPROTONOSUPPORT.
 */
#ifndef PREC_READER_H
#define PREC_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "prec_record.h"
#include "prec_sample.h"

struct prec_reader;

/* One event of the recording. */
struct prec_evsel {
	struct perf_event_attr attr; /* zero-extended or cut to our struct size */
	uint64_t *ids;
	size_t nr_ids;
	char *name; /* from EVENT_DESC / EVENT_UPDATE, or derived from the attr; never NULL */
	struct prec_sample_layout layout;
};

struct prec_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const void *data; /* the whole record, header included, 8-byte aligned */
	uint64_t offset; /* file offset of the record, or of the COMPRESSED record it came from */
	uint64_t inner_offset; /* offset in the decompressed stream (decompressed records) */
	bool decompressed;
	/* `data` stays valid until prec_reader__release() passes it or the reader is freed
	 * (a record of a mapped file or of memory), not only until the next call */
	bool stable;
};

/* Open `path`; "-" means standard input. */
int prec_reader__open(const char *path, struct prec_reader **ret);
/* Read from `fd` (not owned; it must stay open until prec_reader__free()). */
int prec_reader__open_fd(int fd, struct prec_reader **ret);
/* Read from memory (not copied; it must outlive the reader). For fuzzing and tests. */
int prec_reader__open_mem(const void *data, size_t len, struct prec_reader **ret);
void prec_reader__free(struct prec_reader *r);
/*
 * The caller holds no stable record before `p` (one handed out earlier, or NULL: none at
 * all): the reader may give the memory of a mapped file up to there back to the kernel, so
 * that a large file does not stay mapped whole.  Cheap; call it now and then.
 */
void prec_reader__release(struct prec_reader *r, const void *p);

/*
 * The next record: 1 and *ret filled, 0 at the end of the stream, or -errno.  Pointers in
 * *ret stay valid until the next call.  After an error, further calls return the same error.
 */
int prec_reader__next(struct prec_reader *r, struct prec_record *ret);

/*
 * Make the header complete before any record is wanted.  In pipe form the events and features
 * arrive as HEADER_ATTR / HEADER_FEATURE records: this reads and absorbs them, up to and
 * including the first record of another type, and keeps copies, so that prec_reader__next()
 * still hands out every record from the first one, in order (they are not absorbed twice).
 * A read error or the end of the stream met on the way is reported by prec_reader__next()
 * after those records.  In file form, and when called again, it does nothing.
 * Returns 0, or -ENOMEM (the reader is then unusable).
 */
int prec_reader__read_header(struct prec_reader *r);

bool prec_reader__is_pipe(const struct prec_reader *r);
bool prec_reader__truncated(const struct prec_reader *r);
/*
 * Whether the records read so far end with precord's end marker (a SAMPLE_TIME
 * HEADER_FEATURE after the end of the pipe header, as the last record; its payload is then
 * prec_reader__feature(PREC_FEAT_SAMPLE_TIME)).  Meaningful once prec_reader__next() has
 * returned 0.
 */
bool prec_reader__ended(const struct prec_reader *r);
/* Whether the VERSION feature says precord wrote the stream (PREC_VERSION_PREFIX). */
bool prec_reader__from_precord(const struct prec_reader *r);
/*
 * After the end of the stream (prec_reader__next() returned 0): a pipe-form stream written by
 * precord that lacks the end marker, i.e. the recorder was killed, its disk filled up, or it
 * is still writing.
 * False for perf's streams and for file-form files (they have other signs of a cut).
 */
bool prec_reader__cut_short(const struct prec_reader *r);

size_t prec_reader__nr_evsels(const struct prec_reader *r);
const struct prec_evsel *prec_reader__evsel(const struct prec_reader *r, size_t idx);
/*
 * The event a kernel record belongs to, by its id (one event: always 0; id 0: the first).
 * -ENOENT for an unknown id or when there are no events.
 */
int prec_reader__evsel_of(const struct prec_reader *r, const struct prec_record *rec);

/*
 * A header feature's payload, or NULL if absent.  In pipe form a feature appears once its
 * HEADER_FEATURE record has been read (call prec_reader__read_header() to have them all).
 * The payload is owned by the reader and unchecked: decode it with the cursor below.
 */
const void *prec_reader__feature(const struct prec_reader *r, unsigned int feat, size_t *ret_len);

/* File offset of the next outer record (records kept by read_header() count as unread). */
uint64_t prec_reader__offset(const struct prec_reader *r);

/* Name for an attr without a recorded name ("cycles", "cpu-clock", "raw 0x1c2", ...). */
const char *prec_event_name_from_attr(const struct perf_event_attr *attr, char *buf, size_t len);

/*
 * Helpers to decode feature payloads: a cursor over `len` bytes.  Each getter returns 0 or
 * -EBADMSG when the payload is too short; strings are returned malloc'ed (caller frees).
 */
struct prec_feat_cursor {
	const unsigned char *p;
	size_t len;
	size_t off;
};
int prec_feat__u32(struct prec_feat_cursor *c, uint32_t *ret);
int prec_feat__u64(struct prec_feat_cursor *c, uint64_t *ret);
int prec_feat__string(struct prec_feat_cursor *c, char **ret);
int prec_feat__bytes(struct prec_feat_cursor *c, size_t n, const void **ret);

/*
 * EVENT_DESC, the one walker of it: u32 nr, u32 attr_size, then per event the attr
 * (attr_size bytes), u32 nr_ids, the event's name (a string) and nr_ids u64 ids.
 * prec_event_desc__begin() reads the two counts: -EBADMSG when the payload is too short or,
 * with events, the attr size is below PERF_ATTR_SIZE_VER0 (no perf ever wrote such an attr;
 * its fields would not be where they belong).  prec_event_desc__next() decodes the next event
 * into *ret: the attr cut or zero-extended to struct perf_event_attr, the name malloc'ed (the
 * caller frees it), the ids pointing into the payload and unaligned (read them with memcpy).
 * 0, -EBADMSG (payload too short) or -ENOMEM; *ret is set only on success.
 */
struct prec_event_desc {
	struct perf_event_attr attr;
	char *name;
	const void *ids;
	uint32_t nr_ids;
};
int prec_event_desc__begin(struct prec_feat_cursor *c, uint32_t *ret_nr, uint32_t *ret_attr_size);
int prec_event_desc__next(struct prec_feat_cursor *c, uint32_t attr_size,
			  struct prec_event_desc *ret);

#endif
