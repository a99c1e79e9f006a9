/* SPDX-License-Identifier: MIT */
/*
 * Between the parts of the record stream reader, nothing else; everyone else has
 * prec_reader.h.  The parts:
 *  - prec_reader.c: the object (open, free), the start of a stream (magic, pipe header,
 *    file header), the record loop, the decompressor, the read-ahead of the pipe header;
 *  - prec_reader_src.c: `struct prec_src`, the bytes of the input;
 *  - prec_reader_events.c: the events, their id index and names, from the file header's attr
 *    section or from HEADER_ATTR / EVENT_UPDATE records;
 *  - prec_reader_features.c: the header features, from the file header's feature sections or
 *    from HEADER_FEATURE records, and the cursor that decodes their payloads.
 */
#ifndef PREC_READER_INT_H
#define PREC_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_reader.h"

/* The size of an input that is not a regular file, and the end of a data section whose end
 * is not known (pipe form, a file whose recorder was killed). */
#define PREC_NO_LIMIT UINT64_MAX

/*
 * The bytes of the input at an absolute offset: from memory (a regular file opened by path
 * is mapped) or from an fd through a buffer that is refilled with read(2).  The file-form
 * header parts are read with pread(2) (a non-seekable fd in file form is read into memory
 * first).
 */
struct prec_src {
	int fd; /* -1: memory */
	bool own_fd;
	const unsigned char *mem;
	size_t mem_len;
	unsigned char *owned_mem; /* slurped non-seekable input */
	void *map; /* the file mapped (then mem), and how much of it was given back */
	size_t map_len, released;
	struct prec_buf buf; /* fd mode: buf.data[bpos..len) holds bytes from `pos` on */
	size_t bpos;
	uint64_t pos;
	bool eof;
};

struct prec_reader_feature {
	void *data;
	size_t len;
	bool present;
};

/* A record read ahead by prec_reader__read_header(), to be handed out again. */
struct prec_replay_rec {
	struct prec_record rec; /* rec.data points at `copy` */
	void *copy;
};

struct prec_id_entry {
	uint64_t id;
	size_t idx;
};

struct prec_reader {
	struct prec_src src;
	bool pipe;
	bool truncated;
	bool features_ended; /* pipe form: the end-of-features marker has passed */
	bool end_marker; /* the last record so far is precord's end marker */
	int err;
	bool done;
	uint64_t limit; /* end of the data section, PREC_NO_LIMIT for pipe form / killed files */
	uint64_t skip; /* out-of-band bytes to skip before the next record */

	/* prec_reader_events.c */
	struct prec_evsel *evsels;
	bool *named;
	size_t nr_evsels;
	struct prec_id_entry *ids; /* sorted index of all events' ids, rebuilt when ids_dirty */
	size_t nr_ids;
	size_t ids_total; /* ids of all events, at most MAX_IDS */
	bool ids_dirty;

	/* prec_reader_features.c */
	struct prec_reader_feature features[PREC_FEAT_BITS];

	/* decompression */
	ZSTD_DStream *dctx;
	struct prec_buf zin;
	size_t zin_pos;
	uint64_t z_outer_offset;
	struct prec_buf dbuf;
	size_t dpos;
	uint64_t d_offset; /* decompressed-stream offset of dbuf[dpos] */
	bool z_active;

	struct prec_buf recbuf; /* aligned copy of an unaligned record */

	/* pipe form: records prec_reader__read_header() consumed, already absorbed */
	struct prec_replay_rec *replay;
	size_t nr_replay;
	size_t replay_pos; /* next one to hand out */
	bool header_read;
};

/* Corrupt input at file offset `off`: logs `what` there and returns -EBADMSG. */
int prec_reader_bad(uint64_t off, const char *what);

/* ---- prec_reader_src.c ---- */

/* Map the regular file `fd` for reading in place (s->map set), or leave it to be read. */
void prec_src__map(struct prec_src *s, int fd);
/* Close an owned fd, unmap, free the buffers. */
void prec_src__close(struct prec_src *s);
/*
 * Point *ret at up to `n` bytes at the current position; *avail says how many are there
 * (fewer only at the end of the input).  From memory they stay where they are; from an fd
 * they are valid until the next peek.  0 or -errno (a read error or -ENOMEM).
 */
int prec_src__peek(struct prec_src *s, size_t n, const unsigned char **ret, size_t *avail);
void prec_src__advance(struct prec_src *s, size_t n);
/* Skip `n` bytes; returns the number actually skipped (less at end of input), or -errno. */
int64_t prec_src__skip(struct prec_src *s, uint64_t n);
/* The size of a regular file or of memory, else PREC_NO_LIMIT. */
uint64_t prec_src__size(struct prec_src *s);
/* Make the position `off` the next byte read by the record loop. */
int prec_src__seek(struct prec_src *s, uint64_t off);
/* Read a whole non-seekable input into memory (file form from a pipe): then it is memory,
 * and an owned fd is closed.  0 or -errno. */
int prec_src__slurp(struct prec_src *s);
/* Random access for the file-form header parts. Returns -EBADMSG past the end. */
int prec_src__pread(struct prec_src *s, uint64_t off, void *dst, size_t n);
/* prec_src__pread() of the header part `what` at `off`; past the end is logged as corrupt. */
int prec_src__read_part(struct prec_src *s, uint64_t off, void *dst, size_t n, const char *what);
/* prec_reader__release() of a mapped file. */
void prec_src__release(struct prec_src *s, const void *p);

/* ---- prec_reader_events.c ---- */

/*
 * Read the file form's attr section: attrs_size / attr_size entries from attrs_off, each an
 * attr and the file section of its ids; then build the id index.  0, -EBADMSG (logged, with
 * the offset), -ENOMEM or -errno.
 */
int prec_reader__read_attrs(struct prec_reader *r, uint64_t attrs_off, uint64_t attrs_size,
			    uint64_t attr_size);
/* Take a HEADER_ATTR / EVENT_UPDATE record of `size` bytes at `off`: a bad or unwanted one
 * is left out with a warning (HEADER_ATTR) or silently (EVENT_UPDATE), never an error. */
void prec_reader__absorb_attr(struct prec_reader *r, const unsigned char *p, size_t size,
			      uint64_t off);
void prec_reader__absorb_event_update(struct prec_reader *r, const unsigned char *p, size_t size);
/* Give event `idx` a copy of the recorded name `name` (an empty one is no name; out of
 * memory, the old name stays). */
void prec_reader__set_name(struct prec_reader *r, size_t idx, const char *name);
/* Rebuild the id index if attrs came since (once after a run of attrs); 0 or -ENOMEM. */
int prec_reader__ensure_ids(struct prec_reader *r);
void prec_reader__free_events(struct prec_reader *r);

/* ---- prec_reader_features.c ---- */

/*
 * Read the file form's feature sections, whose table starts at `off` (one {offset, size}
 * per bit set in the header's `bits`).  A bad one is skipped with a warning; 0 or -ENOMEM.
 */
int prec_reader__read_features(struct prec_reader *r, uint64_t off, const uint64_t bits[4]);
/* Take a HEADER_FEATURE record of `size` bytes at `off` (the end-of-features marker and
 * precord's end marker are noted); a bad one is left out with a warning, never an error. */
void prec_reader__absorb_feature(struct prec_reader *r, const unsigned char *p, size_t size,
				 uint64_t off);
void prec_reader__free_features(struct prec_reader *r);

#endif
