/* SPDX-License-Identifier: MIT */
/*
 * Pipe-form stream writer.  Invariants:
 *  - `out` holds finished bytes in file order; they reach the fd only through write_out().
 *  - With compression, `pending` holds kernel-record bytes not yet compressed, at most
 *    PREC_WRITER_CHUNK.  A chunk is compressed only once more bytes wait behind it, so when
 *    the group is closed the last chunk is never empty (perf 6.1 rejects a COMPRESSED record
 *    that decompresses to nothing).
 *  - The buffers and the zstd context are made once, at their bounded size, and touched, and
 *    prec_writer__reset() keeps them for the next stream: the resident memory of a writer
 *    that runs for weeks is the same after its first stream as after its thousandth.
 *  - One zstd frame runs from the first COMPRESSED record to finish, like perf's: closing a
 *    group (a user record, a flush) only flushes it, so everything written decodes while the
 *    history keeps serving the next group (15% smaller with 4 KiB groups than a frame each).
 *    finish ends the frame in the record that carries the last data, if any waits.
 *  - Each COMPRESSED record decompresses to at most PREC_WRITER_CHUNK bytes, the mmap_len we
 *    declare, and its payload stays below perf's 65527-byte limit.
 *  - After the first write error, `err` is sticky and nothing else is written.
 *  - finish writes the end marker (a SAMPLE_TIME HEADER_FEATURE, the only one after the
 *    end-of-features marker) once, as the last record, and only if every byte before it was
 *    written: a stream without it was cut short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_writer.h"

#define MAX_RECORD 65535
#define MAX_COMPRESSED_PAYLOAD 65527

struct wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	struct prec_sample_layout layout;
};

struct prec_writer {
	int fd;
	int level;
	int err;
	bool header_done;
	ZSTD_CCtx *cctx;
	struct prec_buf out;
	struct prec_buf pending;
	struct prec_buf rec;
	struct wattr *attrs;
	size_t nr_attrs;
	struct prec_writer_stats stats;
	/* SAMPLE times seen, for the end marker; sample_times is false when the attrs do not
	 * agree on where a sample's time is */
	bool sample_times, ended;
	struct prec_time_range times;
};

/*
 * A failed write (disk full) may have stored part of the buffer: cut a regular file back to
 * where this write started, so the file ends at a record boundary.  (On a pipe lseek fails
 * and nothing can be taken back; the reader copes with a cut record.)
 */
static void take_back(struct prec_writer *w, off_t start, size_t done)
{
	if (start < 0 || !done)
		return;
	if (ftruncate(w->fd, start) == 0 && lseek(w->fd, start, SEEK_SET) == start)
		w->stats.written_bytes -= done;
}

static int write_out(struct prec_writer *w);

/* Room for `n` bytes in b, its pages written now rather than at first use. */
static int reserve_touched(struct prec_buf *b, size_t n)
{
	int err = prec_buf__reserve(b, n);

	if (!err)
		memset(b->data + b->len, 0, b->cap - b->len);
	return err;
}

/* A new stream on fd: the pipe header; the writer is fresh or reset. */
static int start(struct prec_writer *w, int fd)
{
	uint64_t hdr[2] = { PREC_MAGIC, PREC_PIPE_HEADER_SIZE };
	int err;

	w->fd = fd;
	err = prec_buf__append(&w->out, hdr, sizeof(hdr));
	return err ? err : write_out(w);
}

static int write_out(struct prec_writer *w)
{
	off_t start;
	size_t done = 0;
	ssize_t n;

	if (w->err)
		return w->err;
	if (!w->out.len)
		return 0;
	start = lseek(w->fd, 0, SEEK_CUR);
	while (done < w->out.len) {
		n = write(w->fd, w->out.data + done, w->out.len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
			take_back(w, start, done);
			return w->err;
		}
		if (n == 0) {
			w->err = -EIO;
			take_back(w, start, done);
			return w->err;
		}
		done += (size_t)n;
		w->stats.written_bytes += (uint64_t)n;
	}
	w->out.len = 0;
	return 0;
}

int prec_writer__new(int fd, const struct prec_writer_opts *opts, struct prec_writer **ret)
{
	struct prec_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->level = opts ? opts->compress_level : 0;
	if (w->level < 0 || w->level > ZSTD_maxCLevel()) {
		free(w);
		return -EINVAL;
	}
	if (w->level) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx) {
			free(w);
			return -ENOMEM;
		}
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
	}
	/* out: written once past OUTBUF, so it holds that and one more record or chunk (its
	 * pages come in as they are used: a daemon flushes long before) */
	err = prec_buf__reserve(&w->out, PREC_WRITER_OUTBUF + MAX_RECORD + 8);
	if (!err)
		err = reserve_touched(&w->rec, MAX_RECORD + 8);
	if (!err && w->cctx)
		err = reserve_touched(&w->pending, PREC_WRITER_CHUNK);
	if (!err)
		err = start(w, fd);
	if (err) {
		prec_writer__free(w);
		return err;
	}
	*ret = w;
	return 0;
}

int prec_writer__reset(struct prec_writer *w, int fd)
{
	size_t i;

	for (i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].ids);
	free(w->attrs);
	w->attrs = NULL;
	w->nr_attrs = 0;
	w->err = 0;
	w->header_done = w->sample_times = w->ended = false;
	memset(&w->times, 0, sizeof(w->times));
	memset(&w->stats, 0, sizeof(w->stats));
	w->out.len = w->pending.len = w->rec.len = 0;
	if (w->cctx)
		ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only); /* a new frame, same memory */
	return start(w, fd);
}

void prec_writer__free(struct prec_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].ids);
	free(w->attrs);
	ZSTD_freeCCtx(w->cctx);
	prec_buf__release(&w->out);
	prec_buf__release(&w->pending);
	prec_buf__release(&w->rec);
	free(w);
}

/* Compress `n` raw bytes into one COMPRESSED record appended to out. */
static int compress_chunk(struct prec_writer *w, const void *data, size_t n, bool end)
{
	size_t bound = ZSTD_compressBound(n) + 64;
	ZSTD_inBuffer in = { data, n, 0 };
	ZSTD_outBuffer zout;
	struct perf_event_header h;
	size_t r, start;
	int err;

	err = prec_buf__reserve(&w->out, sizeof(h) + bound);
	if (err)
		return err;
	start = w->out.len;
	zout.dst = w->out.data + start + sizeof(h);
	zout.size = bound;
	zout.pos = 0;
	do {
		r = ZSTD_compressStream2(w->cctx, &zout, &in, end ? ZSTD_e_end : ZSTD_e_flush);
		if (ZSTD_isError(r))
			return -EIO;
	} while (r != 0 && zout.pos < zout.size);
	if (r != 0 || in.pos != n || zout.pos == 0 || zout.pos > MAX_COMPRESSED_PAYLOAD)
		return -EOVERFLOW;
	h.type = PREC_REC_COMPRESSED;
	h.misc = 0;
	h.size = (uint16_t)(sizeof(h) + zout.pos);
	memcpy(w->out.data + start, &h, sizeof(h));
	w->out.len += sizeof(h) + zout.pos;
	w->stats.nr_compressed++;
	return 0;
}

/*
 * Close the compressed group: compress what waits, flushed so that every byte fed so far is
 * decodable.  The zstd frame goes on (its history keeps helping the ratio) unless `end`.
 */
static int close_group(struct prec_writer *w, bool end)
{
	int err;

	if (!w->cctx || !w->pending.len)
		return 0;
	err = compress_chunk(w, w->pending.data, w->pending.len, end);
	if (err)
		return err;
	w->pending.len = 0;
	return 0;
}

static int maybe_write(struct prec_writer *w)
{
	if (w->out.len >= PREC_WRITER_OUTBUF)
		return write_out(w);
	return 0;
}

/* Append kernel-type bytes to the compressed group (or straight out without compression). */
static int emit_kernel_bytes(struct prec_writer *w, const void *p, size_t n)
{
	size_t off, take;
	int err;

	w->stats.raw_bytes += n;
	if (!w->cctx) {
		err = prec_buf__append(&w->out, p, n);
		return err ? err : maybe_write(w);
	}
	for (off = 0; off < n; off += take) {
		if (w->pending.len == PREC_WRITER_CHUNK) { /* and more comes: a whole chunk */
			err = compress_chunk(w, w->pending.data, PREC_WRITER_CHUNK, false);
			if (!err)
				err = maybe_write(w);
			if (err)
				return err;
			w->pending.len = 0;
		}
		take = n - off < PREC_WRITER_CHUNK - w->pending.len ?
			       n - off :
			       PREC_WRITER_CHUNK - w->pending.len;
		memcpy(w->pending.data + w->pending.len, (const unsigned char *)p + off, take);
		w->pending.len += take;
	}
	return 0;
}

static int emit_user_record(struct prec_writer *w, const void *p, size_t n)
{
	int err = close_group(w, false);

	if (err)
		return err;
	w->stats.raw_bytes += n;
	err = prec_buf__append(&w->out, p, n);
	return err ? err : maybe_write(w);
}

/* The times of the SAMPLE records among `len` bytes of whole kernel records. */
static void note_sample_times(struct prec_writer *w, const unsigned char *p, size_t len)
{
	struct perf_event_header h;
	size_t off = 0;

	if (!w->sample_times)
		return;
	while (len - off >= sizeof(h)) {
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return;
		if (h.type == PERF_RECORD_SAMPLE)
			prec_time_range__add(&w->times, prec_sample__time(&w->attrs[0].layout,
									  p + off, h.size));
		off += h.size;
	}
}

/* Emit the record assembled in w->rec, whose header size is filled in here. */
static int emit_rec(struct prec_writer *w)
{
	struct perf_event_header h;

	if (w->err)
		return w->err;
	if (w->rec.len > MAX_RECORD)
		return -E2BIG;
	memcpy(&h, w->rec.data, sizeof(h));
	h.size = (uint16_t)w->rec.len;
	memcpy(w->rec.data, &h, sizeof(h));
	w->stats.nr_records++;
	if (h.type == PERF_RECORD_SAMPLE)
		note_sample_times(w, w->rec.data, w->rec.len);
	if (h.type < PREC_REC_USER_START)
		return emit_kernel_bytes(w, w->rec.data, w->rec.len);
	return emit_user_record(w, w->rec.data, w->rec.len);
}

static int rec_begin(struct prec_writer *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	w->rec.len = 0;
	return prec_buf__append(&w->rec, &h, sizeof(h));
}

static int rec_put(struct prec_writer *w, const void *p, size_t n)
{
	return prec_buf__append(&w->rec, p, n);
}

/* A NUL-terminated string padded with zeros to a multiple of `align`. */
static int rec_put_padded_str(struct prec_writer *w, const char *s, size_t align)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + align - 1) / align * align;
	int err = rec_put(w, s, n);

	return err ? err : prec_buf__append_zeros(&w->rec, padded - n);
}

static int rec_put_trailer(struct prec_writer *w, const struct prec_sample_id *sid)
{
	const struct prec_sample_layout *l;
	int err;

	if (!w->nr_attrs)
		return 0;
	l = &w->attrs[0].layout;
	if (!l->trailer_size)
		return 0;
	err = prec_buf__reserve(&w->rec, l->trailer_size);
	if (err)
		return err;
	prec_sample_id__encode(l, sid, w->rec.data + w->rec.len);
	w->rec.len += l->trailer_size;
	return 0;
}

static int check_header_phase(struct prec_writer *w)
{
	if (w->err)
		return w->err;
	return w->header_done ? -EINVAL : 0;
}

static int check_record_phase(struct prec_writer *w)
{
	if (w->err)
		return w->err;
	return w->header_done && !w->ended ? 0 : -EINVAL;
}

int prec_writer__add_attr(struct prec_writer *w, const struct perf_event_attr *attr,
			  const uint64_t *ids, size_t nr_ids)
{
	struct perf_event_attr a;
	struct wattr *na;
	int err = check_header_phase(w);

	if (err)
		return err;
	if (nr_ids > (MAX_RECORD - 8 - PREC_ATTR_SIZE) / 8)
		return -E2BIG;
	na = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	w->attrs = na;
	na = &w->attrs[w->nr_attrs];
	memset(na, 0, sizeof(*na));
	if (nr_ids) {
		na->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!na->ids)
			return -ENOMEM;
		memcpy(na->ids, ids, nr_ids * sizeof(uint64_t));
	}
	na->nr_ids = nr_ids;
	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(a) < PREC_ATTR_SIZE ? sizeof(a) : PREC_ATTR_SIZE);
	a.size = PREC_ATTR_SIZE;
	na->attr = a;
	prec_sample_layout__init(&na->layout, &a);
	w->nr_attrs++;

	err = rec_begin(w, PREC_REC_HEADER_ATTR, 0);
	if (!err)
		err = prec_buf__append_zeros(&w->rec, PREC_ATTR_SIZE);
	if (!err) {
		memcpy(w->rec.data + 8, &a, sizeof(a) < PREC_ATTR_SIZE ? sizeof(a) : PREC_ATTR_SIZE);
		err = rec_put(w, ids, nr_ids * sizeof(uint64_t));
	}
	return err ? err : emit_rec(w);
}

int prec_writer__add_feature(struct prec_writer *w, unsigned int feat, const void *data,
			     size_t len)
{
	uint64_t id = feat;
	int err = check_header_phase(w);

	if (err)
		return err;
	if (feat == 0 || feat >= PREC_FEAT_LAST)
		return -EINVAL;
	if (len > MAX_RECORD - 16)
		return -E2BIG;
	err = rec_begin(w, PREC_REC_HEADER_FEATURE, 0);
	if (!err)
		err = rec_put(w, &id, 8);
	if (!err)
		err = rec_put(w, data, len);
	return err ? err : emit_rec(w);
}

int prec_feat_put_string(struct prec_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t padded = (uint32_t)((n + 63) / 64 * 64);
	int err;

	if (n > 65536)
		return -E2BIG;
	err = prec_buf__append(b, &padded, 4);
	if (!err)
		err = prec_buf__append(b, s, n);
	if (!err)
		err = prec_buf__append_zeros(b, padded - n);
	return err;
}

int prec_feat_put_event(struct prec_buf *b, const struct perf_event_attr *attr, const uint64_t *ids,
			size_t nr_ids, const char *name)
{
	unsigned char a[PREC_ATTR_SIZE];
	uint32_t size = PREC_ATTR_SIZE, nids = (uint32_t)nr_ids;
	int err;

	memset(a, 0, sizeof(a));
	memcpy(a, attr, sizeof(*attr) < sizeof(a) ? sizeof(*attr) : sizeof(a));
	memcpy(a + 4, &size, 4);
	err = prec_buf__append(b, a, sizeof(a));
	if (!err)
		err = prec_buf__append(b, &nids, 4);
	if (!err)
		err = prec_feat_put_string(b, name);
	return err ? err : prec_buf__append(b, ids, nr_ids * sizeof(uint64_t));
}

int prec_writer__add_feature_string(struct prec_writer *w, unsigned int feat, const char *s)
{
	struct prec_buf b = { 0 };
	int err = prec_feat_put_string(&b, s);

	if (!err)
		err = prec_writer__add_feature(w, feat, b.data, b.len);
	prec_buf__release(&b);
	return err;
}

int prec_writer__add_feature_strings(struct prec_writer *w, unsigned int feat,
				     const char *const *v, size_t n)
{
	struct prec_buf b = { 0 };
	uint32_t nr = (uint32_t)n;
	size_t i;
	int err = prec_buf__append(&b, &nr, 4);

	for (i = 0; !err && i < n; i++)
		err = prec_feat_put_string(&b, v[i]);
	if (!err)
		err = prec_writer__add_feature(w, feat, b.data, b.len);
	prec_buf__release(&b);
	return err;
}

int prec_writer__add_event_desc(struct prec_writer *w, const char *const *names)
{
	struct prec_buf b = { 0 };
	uint32_t nr = (uint32_t)w->nr_attrs, asz = PREC_ATTR_SIZE;
	size_t i;
	int err = prec_buf__append(&b, &nr, 4);

	if (!err)
		err = prec_buf__append(&b, &asz, 4);
	for (i = 0; !err && i < w->nr_attrs; i++)
		err = prec_feat_put_event(&b, &w->attrs[i].attr, w->attrs[i].ids,
					  w->attrs[i].nr_ids, names[i] ? names[i] : "");
	if (!err)
		err = prec_writer__add_feature(w, PREC_FEAT_EVENT_DESC, b.data, b.len);
	prec_buf__release(&b);
	return err;
}

/* Whether every attr has a sample's time at the same place (the first attr's layout finds it). */
static bool same_time_slot(const struct prec_writer *w)
{
	const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME;
	size_t i;

	if (!w->nr_attrs || !(w->attrs[0].layout.sample_type & PERF_SAMPLE_TIME))
		return false;
	for (i = 1; i < w->nr_attrs; i++)
		if ((w->attrs[i].layout.sample_type & before) !=
		    (w->attrs[0].layout.sample_type & before))
			return false;
	return true;
}

int prec_writer__end_header(struct prec_writer *w)
{
	uint64_t end = PREC_FEAT_LAST;
	int err = check_header_phase(w);

	if (err)
		return err;
	if (w->cctx) {
		uint32_t comp[5] = { 0, 1, (uint32_t)w->level, 0, PREC_WRITER_MMAP_LEN };

		err = prec_writer__add_feature(w, PREC_FEAT_COMPRESSED, comp, sizeof(comp));
		if (err)
			return err;
	}
	err = rec_begin(w, PREC_REC_HEADER_FEATURE, 0);
	if (!err)
		err = rec_put(w, &end, 8);
	if (!err)
		err = emit_rec(w);
	if (!err) {
		w->header_done = true;
		w->sample_times = same_time_slot(w);
	}
	return err;
}

const struct prec_sample_layout *prec_writer__layout(const struct prec_writer *w, size_t idx)
{
	return idx < w->nr_attrs ? &w->attrs[idx].layout : NULL;
}

int prec_writer__add_comm(struct prec_writer *w, uint32_t pid, uint32_t tid, const char *comm,
			  bool exec, const struct prec_sample_id *sid)
{
	uint32_t ids[2] = { pid, tid };
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	if (!err)
		err = rec_put(w, ids, 8);
	if (!err)
		err = rec_put_padded_str(w, comm, 8);
	if (!err)
		err = rec_put_trailer(w, sid);
	return err ? err : emit_rec(w);
}

int prec_writer__add_mmap(struct prec_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t len, uint64_t pgoff, const char *filename,
			  const struct prec_sample_id *sid)
{
	uint32_t ids[2] = { pid, tid };
	uint64_t v[3] = { addr, len, pgoff };
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, PERF_RECORD_MMAP, misc);
	if (!err)
		err = rec_put(w, ids, 8);
	if (!err)
		err = rec_put(w, v, sizeof(v));
	if (!err)
		err = rec_put_padded_str(w, filename, 8);
	if (!err)
		err = rec_put_trailer(w, sid);
	return err ? err : emit_rec(w);
}

int prec_writer__add_mmap2(struct prec_writer *w, uint16_t misc, const struct prec_mmap2 *m,
			   const struct prec_sample_id *sid)
{
	unsigned char body[64];
	uint32_t u32[2];
	uint64_t u64[3];
	int err = check_record_phase(w);

	if (err)
		return err;
	memset(body, 0, sizeof(body));
	u32[0] = m->pid;
	u32[1] = m->tid;
	memcpy(body, u32, 8);
	u64[0] = m->addr;
	u64[1] = m->len;
	u64[2] = m->pgoff;
	memcpy(body + 8, u64, 24);
	if (m->has_build_id) {
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		body[32] = m->build_id_size > PREC_BUILD_ID_SIZE ? PREC_BUILD_ID_SIZE
								  : m->build_id_size;
		memcpy(body + 36, m->build_id, PREC_BUILD_ID_SIZE);
	} else {
		u32[0] = m->maj;
		u32[1] = m->min;
		memcpy(body + 32, u32, 8);
		u64[0] = m->ino;
		u64[1] = m->ino_generation;
		memcpy(body + 40, u64, 16);
	}
	u32[0] = m->prot;
	u32[1] = m->flags;
	memcpy(body + 56, u32, 8);
	err = rec_begin(w, PERF_RECORD_MMAP2, misc);
	if (!err)
		err = rec_put(w, body, sizeof(body));
	if (!err)
		err = rec_put_padded_str(w, m->filename, 8);
	if (!err)
		err = rec_put_trailer(w, sid);
	return err ? err : emit_rec(w);
}

int prec_writer__add_task(struct prec_writer *w, bool exit, uint32_t pid, uint32_t ppid,
			  uint32_t tid, uint32_t ptid, uint64_t time,
			  const struct prec_sample_id *sid)
{
	uint32_t ids[4] = { pid, ppid, tid, ptid };
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0);
	if (!err)
		err = rec_put(w, ids, sizeof(ids));
	if (!err)
		err = rec_put(w, &time, 8);
	if (!err)
		err = rec_put_trailer(w, sid);
	return err ? err : emit_rec(w);
}

static int add_u64s(struct prec_writer *w, uint32_t type, uint16_t misc, const uint64_t *v,
		    size_t n, const struct prec_sample_id *sid)
{
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, type, misc);
	if (!err)
		err = rec_put(w, v, n * 8);
	if (!err)
		err = rec_put_trailer(w, sid);
	return err ? err : emit_rec(w);
}

int prec_writer__add_lost(struct prec_writer *w, uint64_t id, uint64_t lost,
			  const struct prec_sample_id *sid)
{
	uint64_t v[2] = { id, lost };

	return add_u64s(w, PERF_RECORD_LOST, 0, v, 2, sid);
}

int prec_writer__add_lost_samples(struct prec_writer *w, uint64_t lost,
				  const struct prec_sample_id *sid)
{
	return add_u64s(w, PERF_RECORD_LOST_SAMPLES, 0, &lost, 1, sid);
}

int prec_writer__add_throttle(struct prec_writer *w, bool unthrottle, uint64_t time, uint64_t id,
			      uint64_t stream_id, const struct prec_sample_id *sid)
{
	uint64_t v[3] = { time, id, stream_id };

	return add_u64s(w, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0, v, 3,
			sid);
}

int prec_writer__add_switch(struct prec_writer *w, bool out, bool cpu_wide,
			    uint32_t next_prev_pid, uint32_t next_prev_tid,
			    const struct prec_sample_id *sid)
{
	uint16_t misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	uint32_t ids[2] = { next_prev_pid, next_prev_tid };
	uint64_t v;

	if (!cpu_wide)
		return add_u64s(w, PERF_RECORD_SWITCH, misc, NULL, 0, sid);
	memcpy(&v, ids, 8);
	return add_u64s(w, PERF_RECORD_SWITCH_CPU_WIDE, misc, &v, 1, sid);
}

int prec_writer__add_sample(struct prec_writer *w, size_t attr_idx, uint16_t misc,
			    const struct prec_sample *s)
{
	long n;
	int err = check_record_phase(w);

	if (err)
		return err;
	if (attr_idx >= w->nr_attrs)
		return -EINVAL;
	err = rec_begin(w, PERF_RECORD_SAMPLE, misc);
	if (!err)
		err = prec_buf__reserve(&w->rec, MAX_RECORD);
	if (err)
		return err;
	n = prec_sample__encode(&w->attrs[attr_idx].layout, s, w->rec.data + 8, MAX_RECORD - 8);
	if (n < 0)
		return (int)n;
	w->rec.len += (size_t)n;
	return emit_rec(w);
}

int prec_writer__add_finished_round(struct prec_writer *w)
{
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, PREC_REC_FINISHED_ROUND, 0);
	return err ? err : emit_rec(w);
}

int prec_writer__add_finished_init(struct prec_writer *w)
{
	int err = check_record_phase(w);

	if (!err)
		err = rec_begin(w, PREC_REC_FINISHED_INIT, 0);
	return err ? err : emit_rec(w);
}

int prec_writer__add_build_id(struct prec_writer *w, uint16_t cpumode, int32_t pid,
			      const uint8_t *id, size_t len, const char *filename)
{
	unsigned char body[28];
	int err = check_record_phase(w);

	if (err)
		return err;
	if (len > PREC_BUILD_ID_SIZE || !filename[0])
		return -EINVAL;
	/* pid, build_id[20], its size, 3 reserved; "has size" in misc (perf's 0x8000) */
	memset(body, 0, sizeof(body));
	memcpy(body, &pid, 4);
	memcpy(body + 4, id, len);
	body[24] = (uint8_t)len;
	err = rec_begin(w, PREC_REC_HEADER_BUILD_ID,
			(uint16_t)((cpumode & PERF_RECORD_MISC_CPUMODE_MASK) | PREC_MISC_BUILD_ID_SIZE));
	if (!err)
		err = rec_put(w, body, sizeof(body));
	if (!err)
		err = rec_put_padded_str(w, filename, 64);
	return err ? err : emit_rec(w);
}

int prec_writer__add_id_index(struct prec_writer *w, const struct prec_id_index_entry *e,
			      size_t n)
{
	uint64_t nr = n;
	int err = check_record_phase(w);

	if (err)
		return err;
	if (n > (MAX_RECORD - 16) / sizeof(*e))
		return -E2BIG;
	err = rec_begin(w, PREC_REC_ID_INDEX, 0);
	if (!err)
		err = rec_put(w, &nr, 8);
	if (!err)
		err = rec_put(w, e, n * sizeof(*e));
	return err ? err : emit_rec(w);
}

int prec_writer__add_raw(struct prec_writer *w, const void *buf, size_t len)
{
	int err = check_record_phase(w);

	if (err)
		return err;
	note_sample_times(w, buf, len);
	return emit_kernel_bytes(w, buf, len);
}

static int flush_all(struct prec_writer *w, bool end_frame)
{
	int err;

	if (w->err)
		return w->err;
	err = close_group(w, end_frame);
	if (err)
		return err;
	return write_out(w);
}

int prec_writer__flush(struct prec_writer *w)
{
	return flush_all(w, false);
}

int prec_writer__finish(struct prec_writer *w)
{
	uint64_t v[3] = { PREC_FEAT_SAMPLE_TIME, w->times.first, w->times.last };
	int err;

	if (w->err || !w->header_done || w->ended)
		return flush_all(w, true);
	/* the marker goes out only behind everything else: a write error first leaves none */
	err = flush_all(w, true);
	if (!err)
		err = rec_begin(w, PREC_REC_HEADER_FEATURE, 0);
	if (!err)
		err = rec_put(w, v, sizeof(v));
	if (!err)
		err = emit_rec(w);
	if (!err)
		err = write_out(w);
	if (!err)
		w->ended = true;
	return err;
}

void prec_writer__get_stats(const struct prec_writer *w, struct prec_writer_stats *ret)
{
	*ret = w->stats;
}
