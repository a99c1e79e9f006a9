/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader (file form and pipe form, with or without compression): the object, the
 * start of a stream, and the record loop.  The input's bytes come from prec_reader_src.c; the
 * events and the features the header declares are kept by prec_reader_events.c and
 * prec_reader_features.c (prec_reader_int.h says who holds what).
 *
 * Layers inside this file:
 *  - the start: the magic; in pipe form a 16-byte header, then records; in file form a
 *    header whose attr and feature sections are read in place (pread), then the data section.
 *  - the outer record loop: one record at a time, each length checked against what is left;
 *    pipe-form HEADER_ATTR / HEADER_FEATURE / EVENT_UPDATE records are absorbed as they pass.
 *  - the decompressor: COMPRESSED payloads are fed to one ZSTD_DStream, which continues
 *    across records and frames; output is produced in steps of at most ZSTD_STEP bytes into
 *    `dbuf`, from which whole records are handed out, so memory stays bounded whatever the
 *    compression ratio.
 *  - the read-ahead of prec_reader__read_header(): the pipe header's records, copied to be
 *    handed out again.
 * Invariants: a record handed out is complete and 8-byte aligned; `err` is sticky; nothing is
 * allocated from a length that was not checked against a fixed maximum first.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "prec_log.h"
#include "prec_reader_int.h"

#define ZSTD_STEP (256 * 1024)
#define MAX_READ_AHEAD (32U << 20) /* bytes of header records prec_reader__read_header() keeps */

int prec_reader_bad(uint64_t off, const char *what)
{
	prec_log(PREC_LOG_ERROR, "offset %#" PRIx64 ": %s", off, what);
	return -EBADMSG;
}

/* ---- start ------------------------------------------------------------------------------ */

/*
 * The file form: a header that says where the attr section, the data section and (after the
 * data) the table of feature sections are.  Each section is read by its keeper.
 */
static int read_file_header(struct prec_reader *r)
{
	/* magic, size, attr_size, attrs {offset, size}, data {offset, size}, event_types */
	uint64_t h[9], bits[4] = { 0, 0, 0, 0 };
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size;
	int err;

	err = prec_src__read_part(&r->src, 0, h, sizeof(h), "file header is truncated");
	if (err)
		return err;
	hsize = h[1];
	if (hsize != PREC_FILE_HEADER_SIZE && hsize != PREC_FILE_HEADER_SIZE_OLD)
		return prec_reader_bad(8, "unsupported header size (not a perf.data file?)");
	if (hsize == PREC_FILE_HEADER_SIZE) {
		err = prec_src__read_part(&r->src, sizeof(h), bits, sizeof(bits),
					  "file header is truncated");
		if (err)
			return err;
	}
	attr_size = h[2];
	attrs_off = h[3];
	attrs_size = h[4];
	data_off = h[5];
	data_size = h[6];
	err = prec_reader__read_attrs(r, attrs_off, attrs_size, attr_size);
	if (err)
		return err;

	if (data_size == 0) {
		prec_warn("data size is 0: the recording did not finish (killed?); reading the records up to the end of the file");
		r->limit = PREC_NO_LIMIT;
	} else {
		if (data_off > PREC_NO_LIMIT - data_size)
			return prec_reader_bad(40, "data section overflows");
		r->limit = data_off + data_size;
		err = prec_reader__read_features(r, r->limit, bits);
		if (err)
			return err;
	}
	return prec_src__seek(&r->src, data_off);
}

static int reader_start(struct prec_reader *r)
{
	const unsigned char *p;
	uint64_t h[2];
	size_t avail;
	int err;

	r->limit = PREC_NO_LIMIT;
	err = prec_src__peek(&r->src, 16, &p, &avail);
	if (err)
		return err;
	if (avail < 8) {
		prec_log(PREC_LOG_ERROR, "input is empty or too short to be perf.data (%zu byte%s)",
			 avail, avail == 1 ? "" : "s");
		return -EBADMSG;
	}
	memcpy(h, p, 8);
	if (h[0] == PREC_MAGIC_SWAPPED) {
		prec_log(PREC_LOG_ERROR,
			 "the data was written on a machine of the other byte order; that is not supported");
		return -EPROTONOSUPPORT;
	}
	if (!memcmp(p, "PERFFILE", 8)) {
		prec_log(PREC_LOG_ERROR, "old perf.data version 1 format is not supported");
		return -EPROTONOSUPPORT;
	}
	if (h[0] != PREC_MAGIC)
		return prec_reader_bad(0, "bad magic: not a perf.data file");
	if (avail < 16)
		return prec_reader_bad(8, "header is truncated");
	memcpy(h, p, 16);
	if (h[1] == PREC_PIPE_HEADER_SIZE) {
		r->pipe = true;
		prec_src__advance(&r->src, 16);
		return 0;
	}
	if (r->src.fd >= 0 && lseek(r->src.fd, 0, SEEK_CUR) < 0) {
		err = prec_src__slurp(&r->src);
		if (err)
			return err;
	}
	return read_file_header(r);
}

/* ---- open / free ------------------------------------------------------------------------ */

static int reader_new(struct prec_reader **out)
{
	struct prec_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->src.fd = -1;
	*out = r;
	return 0;
}

static int reader_finish_open(struct prec_reader *r, struct prec_reader **ret)
{
	int err = reader_start(r);

	if (err) {
		prec_reader__free(r);
		return err;
	}
	*ret = r;
	return 0;
}

int prec_reader__open_mem(const void *data, size_t len, struct prec_reader **ret)
{
	struct prec_reader *r;
	int err = reader_new(&r);

	if (err)
		return err;
	r->src.mem = data;
	r->src.mem_len = len;
	return reader_finish_open(r, ret);
}

int prec_reader__open_fd(int fd, struct prec_reader **ret)
{
	struct prec_reader *r;
	int err = reader_new(&r);

	if (err)
		return err;
	r->src.fd = fd;
	return reader_finish_open(r, ret);
}

int prec_reader__open(const char *path, struct prec_reader **ret)
{
	struct prec_reader *r;
	int fd, err;

	if (!strcmp(path, "-"))
		return prec_reader__open_fd(STDIN_FILENO, ret);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = reader_new(&r);
	if (err) {
		close(fd);
		return err;
	}
	prec_src__map(&r->src, fd);
	if (r->src.map) {
		close(fd);
	} else {
		r->src.fd = fd;
		r->src.own_fd = true;
	}
	return reader_finish_open(r, ret);
}

void prec_reader__release(struct prec_reader *r, const void *p)
{
	prec_src__release(&r->src, p);
}

static void drop_replay(struct prec_reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_replay; i++)
		free(r->replay[i].copy);
	free(r->replay);
	r->replay = NULL;
	r->nr_replay = r->replay_pos = 0;
}

void prec_reader__free(struct prec_reader *r)
{
	if (!r)
		return;
	prec_src__close(&r->src);
	prec_reader__free_events(r);
	prec_reader__free_features(r);
	ZSTD_freeDStream(r->dctx);
	prec_buf__release(&r->zin);
	prec_buf__release(&r->dbuf);
	prec_buf__release(&r->recbuf);
	drop_replay(r);
	free(r);
}

/* ---- records ---------------------------------------------------------------------------- */

static int hand_out(struct prec_reader *r, const unsigned char *p,
		    const struct perf_event_header *h, struct prec_record *ret)
{
	ret->stable = r->src.fd < 0 && !ret->decompressed;
	if ((uintptr_t)p & 7) {
		r->recbuf.len = 0;
		if (prec_buf__append(&r->recbuf, p, h->size))
			return -ENOMEM;
		p = r->recbuf.data;
		ret->stable = false;
	}
	ret->type = h->type;
	ret->misc = h->misc;
	ret->size = h->size;
	ret->data = p;
	return 1;
}

static void truncated(struct prec_reader *r, const char *what, uint64_t off)
{
	r->truncated = true;
	prec_warn("truncated input: %s at offset %#" PRIx64 "; everything before it was read", what,
		  off);
}

/* A whole record from the decompressed data: 1, 0 (need more input) or -errno. */
static int next_decompressed(struct prec_reader *r, struct prec_record *ret)
{
	struct perf_event_header h;
	size_t avail, r0;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	int err;

	for (;;) {
		avail = r->dbuf.len - r->dpos;
		if (avail >= sizeof(h)) {
			memcpy(&h, r->dbuf.data + r->dpos, sizeof(h));
			if (h.size < sizeof(h)) {
				prec_log(PREC_LOG_ERROR,
					 "offset %#" PRIx64 ": compressed data at +%#" PRIx64
					 ": record size %u is smaller than its header",
					 r->z_outer_offset, r->d_offset, h.size);
				return -EBADMSG;
			}
			if (h.type == 0 || h.type >= PREC_REC_TYPE_LIMIT) {
				prec_log(PREC_LOG_ERROR,
					 "offset %#" PRIx64 ": compressed data at +%#" PRIx64
					 ": unknown record type %u",
					 r->z_outer_offset, r->d_offset, h.type);
				return -EBADMSG;
			}
			if (h.type == PREC_REC_COMPRESSED) {
				prec_log(PREC_LOG_ERROR,
					 "offset %#" PRIx64 ": COMPRESSED record nested in compressed data",
					 r->z_outer_offset);
				return -EBADMSG;
			}
			if (avail >= h.size) {
				const unsigned char *p = r->dbuf.data + r->dpos;

				ret->offset = r->z_outer_offset;
				ret->inner_offset = r->d_offset;
				ret->decompressed = true;
				r->dpos += h.size;
				r->d_offset += h.size;
				return hand_out(r, p, &h, ret);
			}
		}
		if (r->zin_pos >= r->zin.len)
			return 0;
		if (r->dpos) {
			prec_buf__consume(&r->dbuf, r->dpos);
			r->dpos = 0;
		}
		err = prec_buf__reserve(&r->dbuf, ZSTD_STEP);
		if (err)
			return err;
		in.src = r->zin.data;
		in.size = r->zin.len;
		in.pos = r->zin_pos;
		out.dst = r->dbuf.data + r->dbuf.len;
		out.size = ZSTD_STEP;
		out.pos = 0;
		r0 = ZSTD_decompressStream(r->dctx, &out, &in);
		if (ZSTD_isError(r0)) {
			prec_log(PREC_LOG_ERROR, "offset %#" PRIx64 ": cannot decompress: %s",
				 r->z_outer_offset, ZSTD_getErrorName(r0));
			return -EBADMSG;
		}
		if (in.pos == r->zin_pos && out.pos == 0) {
			/* no progress: the rest of this payload is an incomplete block */
			r->zin_pos = r->zin.len;
			return 0;
		}
		r->zin_pos = in.pos;
		r->dbuf.len += out.pos;
	}
}

static int next_outer(struct prec_reader *r, struct prec_record *ret)
{
	struct perf_event_header h;
	const unsigned char *p;
	size_t avail;
	uint64_t off;
	int64_t skipped;
	int err;

	if (r->skip) {
		uint64_t want = r->skip;

		r->skip = 0;
		skipped = prec_src__skip(&r->src, want);
		if (skipped < 0)
			return (int)skipped;
		if ((uint64_t)skipped < want) {
			truncated(r, "out-of-band data cut short", r->src.pos);
			return 0;
		}
	}
	off = r->src.pos;
	if (off >= r->limit)
		return 0;
	err = prec_src__peek(&r->src, sizeof(h), &p, &avail);
	if (err)
		return err;
	if (avail == 0) {
		if (r->limit != PREC_NO_LIMIT)
			truncated(r, "data section ends early", off);
		else if (r->dbuf.len > r->dpos)
			truncated(r, "incomplete record in the compressed data", r->z_outer_offset);
		return 0;
	}
	if (avail < sizeof(h)) {
		truncated(r, "incomplete record header", off);
		return 0;
	}
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h))
		return prec_reader_bad(off, "record size is smaller than its header");
	if (h.type == 0 || h.type >= PREC_REC_TYPE_LIMIT)
		return prec_reader_bad(off, "unknown record type (garbage in the stream?)");
	if (r->limit != PREC_NO_LIMIT && h.size > r->limit - off)
		return prec_reader_bad(off, "record crosses the end of the data section");
	err = prec_src__peek(&r->src, h.size, &p, &avail);
	if (err)
		return err;
	if (avail < h.size) {
		truncated(r, "incomplete record", off);
		return 0;
	}

	r->end_marker = false;
	switch (h.type) {
	case PREC_REC_COMPRESSED:
		if (!r->dctx) {
			r->dctx = ZSTD_createDStream();
			if (!r->dctx || ZSTD_isError(ZSTD_initDStream(r->dctx)))
				return -ENOMEM;
		}
		if (r->zin_pos < r->zin.len)
			prec_debug("offset %#" PRIx64 ": previous compressed payload not consumed",
				   off);
		r->zin.len = 0;
		r->zin_pos = 0;
		err = prec_buf__append(&r->zin, p + sizeof(h), h.size - sizeof(h));
		if (err)
			return err;
		r->z_outer_offset = off;
		r->z_active = true;
		break;
	case PREC_REC_HEADER_TRACING_DATA:
	case PREC_REC_AUXTRACE:
		if (prec_rec_oob__parse(p, h.size, &r->skip))
			r->skip = 0;
		break;
	case PREC_REC_HEADER_ATTR:
		prec_reader__absorb_attr(r, p, h.size, off);
		break;
	case PREC_REC_HEADER_FEATURE:
		prec_reader__absorb_feature(r, p, h.size, off);
		break;
	case PREC_REC_EVENT_UPDATE:
		prec_reader__absorb_event_update(r, p, h.size);
		break;
	default:
		break;
	}
	prec_src__advance(&r->src, h.size);
	ret->offset = off;
	ret->inner_offset = 0;
	ret->decompressed = false;
	return hand_out(r, p, &h, ret);
}

static int next_record(struct prec_reader *r, struct prec_record *ret)
{
	int rc;

	if (r->err)
		return r->err;
	if (r->done)
		return 0;
	if (r->z_active) {
		rc = next_decompressed(r, ret);
		if (rc != 0) {
			if (rc < 0)
				r->err = rc;
			return rc;
		}
	}
	rc = next_outer(r, ret);
	if (rc >= 0 && (rc == 0 || ret->type != PREC_REC_HEADER_ATTR)) {
		int err = prec_reader__ensure_ids(r);

		if (err)
			rc = err;
	}
	if (rc < 0)
		r->err = rc;
	else if (rc == 0)
		r->done = true;
	return rc;
}

int prec_reader__next(struct prec_reader *r, struct prec_record *ret)
{
	if (r->replay_pos < r->nr_replay) {
		*ret = r->replay[r->replay_pos++].rec;
		return 1;
	}
	/* the last replayed record was handed out by the previous call: its copy may go */
	if (r->nr_replay)
		drop_replay(r);
	return next_record(r, ret);
}

static int keep_for_replay(struct prec_reader *r, const struct prec_record *rec)
{
	struct prec_replay_rec *v;
	void *copy;

	v = realloc(r->replay, (r->nr_replay + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->replay = v;
	copy = malloc(rec->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec->data, rec->size);
	v[r->nr_replay].rec = *rec;
	v[r->nr_replay].rec.data = copy;
	v[r->nr_replay].rec.stable = false; /* the copy goes once it has been handed out */
	v[r->nr_replay].copy = copy;
	r->nr_replay++;
	return 0;
}

int prec_reader__read_header(struct prec_reader *r)
{
	struct prec_record rec;
	size_t kept = 0;
	int err;

	if (!r->pipe || r->header_read)
		return 0;
	r->header_read = true;
	for (;;) {
		if (kept > MAX_READ_AHEAD) {
			prec_warn("offset %#" PRIx64 ": more than %u bytes of header records; "
				  "later features appear only as the records are read",
				  r->src.pos, MAX_READ_AHEAD);
			return 0;
		}
		/* the end or an error stays pending in the reader: next() reports it in order */
		if (next_record(r, &rec) <= 0)
			return 0;
		err = keep_for_replay(r, &rec);
		if (err) {
			r->err = err; /* a record was lost: the stream cannot go on */
			return err;
		}
		kept += rec.size;
		if (rec.type != PREC_REC_HEADER_ATTR && rec.type != PREC_REC_HEADER_FEATURE)
			return 0;
	}
}

bool prec_reader__is_pipe(const struct prec_reader *r)
{
	return r->pipe;
}

bool prec_reader__truncated(const struct prec_reader *r)
{
	return r->truncated;
}

bool prec_reader__ended(const struct prec_reader *r)
{
	return r->end_marker && !r->truncated;
}

bool prec_reader__cut_short(const struct prec_reader *r)
{
	return r->pipe && r->done && prec_reader__from_precord(r) && !prec_reader__ended(r);
}

uint64_t prec_reader__offset(const struct prec_reader *r)
{
	if (r->replay_pos < r->nr_replay)
		return r->replay[r->replay_pos].rec.offset;
	return r->src.pos;
}
