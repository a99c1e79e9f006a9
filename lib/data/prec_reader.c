/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader (file form and pipe form, with or without compression).
 *
 * Layers inside this file:
 *  - `struct src`: bytes of the input at an absolute offset, from memory (a regular file
 *    opened by path is mapped) or from an fd through a buffer that is refilled with read(2);
 *    the file-form header parts are read with pread(2) (a non-seekable fd in file form is
 *    read into memory first).  Records in memory are handed out in place, and stay valid:
 *    a reporter that must hold records back to order them need not copy them.
 *  - the outer record loop: one record at a time, each length checked against what is left.
 *  - the decompressor: COMPRESSED payloads are fed to one ZSTD_DStream, which continues
 *    across records and frames; output is produced in steps of at most ZSTD_STEP bytes into
 *    `dbuf`, from which whole records are handed out, so memory stays bounded whatever the
 *    compression ratio.
 * Invariants: a record handed out is complete and 8-byte aligned; `err` is sticky; nothing is
 * allocated from a length that was not checked against a fixed maximum first.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_log.h"
#include "prec_reader.h"

#define READ_CHUNK (256 * 1024)
#define ZSTD_STEP (256 * 1024)
#define MAX_ATTRS 4096
#define MAX_ATTR_SIZE 4096
#define MAX_IDS (1U << 20)
#define MAX_FEATURE_SIZE (64U << 20)
#define NO_LIMIT UINT64_MAX
/* Types at or above this are garbage: perf 6.1 stops at 82, newer perf adds a few. */
#define MAX_READ_AHEAD (32U << 20) /* bytes of header records prec_reader__read_header() keeps */
#define RELEASE_STEP (1U << 20) /* bytes of a mapped file given back at a time */

struct src {
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

struct feature {
	void *data;
	size_t len;
	bool present;
};

/* A record read ahead by prec_reader__read_header(), to be handed out again. */
struct replay_rec {
	struct prec_record rec; /* rec.data points at `copy` */
	void *copy;
};

struct id_entry {
	uint64_t id;
	size_t idx;
};

struct prec_reader {
	struct src src;
	bool pipe;
	bool truncated;
	bool features_ended; /* pipe form: the end-of-features marker has passed */
	bool end_marker; /* the last record so far is precord's end marker */
	int err;
	bool done;
	uint64_t limit; /* end of the data section, NO_LIMIT for pipe form / killed files */
	uint64_t skip; /* out-of-band bytes to skip before the next record */

	struct prec_evsel *evsels;
	bool *named;
	size_t nr_evsels;
	struct id_entry *ids; /* sorted index of all events' ids, rebuilt when ids_dirty */
	size_t nr_ids;
	size_t ids_total; /* ids of all events, at most MAX_IDS */
	bool ids_dirty;

	struct feature features[PREC_FEAT_BITS];

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
	struct replay_rec *replay;
	size_t nr_replay;
	size_t replay_pos; /* next one to hand out */
	bool header_read;
};

/* ---- input ---------------------------------------------------------------------------- */

static int src_fill(struct src *s, size_t n)
{
	ssize_t got;
	int err;

	while (s->buf.len - s->bpos < n && !s->eof) {
		if (s->bpos && s->bpos >= s->buf.len / 2) {
			prec_buf__consume(&s->buf, s->bpos);
			s->bpos = 0;
		}
		err = prec_buf__reserve(&s->buf, READ_CHUNK);
		if (err)
			return err;
		got = read(s->fd, s->buf.data + s->buf.len, READ_CHUNK);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			s->eof = true;
		s->buf.len += (size_t)got;
	}
	return 0;
}

/* Point *ret at up to `n` bytes at the current position; *avail says how many are there. */
static int src_peek(struct src *s, size_t n, const unsigned char **ret, size_t *avail)
{
	int err;

	if (s->fd < 0) {
		size_t left = s->pos < s->mem_len ? s->mem_len - (size_t)s->pos : 0;

		*ret = s->mem + (s->pos < s->mem_len ? s->pos : s->mem_len);
		*avail = left < n ? left : n;
		return 0;
	}
	err = src_fill(s, n);
	if (err)
		return err;
	*ret = s->buf.data + s->bpos;
	*avail = s->buf.len - s->bpos < n ? s->buf.len - s->bpos : n;
	return 0;
}

static void src_advance(struct src *s, size_t n)
{
	s->pos += n;
	if (s->fd >= 0)
		s->bpos += n;
}

/* Skip `n` bytes; returns the number actually skipped (less at end of input), or -errno. */
static int64_t src_skip(struct src *s, uint64_t n)
{
	uint64_t done = 0;
	const unsigned char *p;
	size_t avail;
	int err;

	while (done < n) {
		size_t want = n - done > READ_CHUNK ? READ_CHUNK : (size_t)(n - done);

		err = src_peek(s, want, &p, &avail);
		if (err)
			return err;
		if (!avail)
			break;
		src_advance(s, avail);
		done += avail;
	}
	return (int64_t)done;
}

/* Random access for the file-form header parts. Returns -EBADMSG past the end. */
static int src_pread(struct src *s, uint64_t off, void *dst, size_t n)
{
	size_t done = 0;
	ssize_t got;

	if (s->fd < 0) {
		if (off > s->mem_len || n > s->mem_len - off)
			return -EBADMSG;
		memcpy(dst, s->mem + off, n);
		return 0;
	}
	/* an offset off_t cannot hold is past any file (pread would say EINVAL) */
	if (off > (uint64_t)INT64_MAX - n)
		return -EBADMSG;
	while (done < n) {
		got = pread(s->fd, (char *)dst + done, n - done, (off_t)(off + done));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			return -EBADMSG;
		done += (size_t)got;
	}
	return 0;
}

static uint64_t src_size(struct src *s)
{
	struct stat st;

	if (s->fd < 0)
		return s->mem_len;
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	return NO_LIMIT;
}

/* Make the position `off` the next byte read by the record loop. */
static int src_seek(struct src *s, uint64_t off)
{
	if (s->fd < 0) {
		s->pos = off;
		return 0;
	}
	s->buf.len = 0;
	s->bpos = 0;
	s->pos = off;
	/* past the end there is nothing to read, and lseek may refuse the offset (EINVAL) */
	s->eof = off >= src_size(s);
	if (!s->eof && lseek(s->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	return 0;
}

/* Read a whole non-seekable input into memory (file form from a pipe). */
static int src_slurp(struct src *s)
{
	int err;

	while (!s->eof) {
		err = src_fill(s, s->buf.len - s->bpos + READ_CHUNK);
		if (err)
			return err;
	}
	prec_buf__consume(&s->buf, s->bpos);
	s->owned_mem = s->buf.data;
	s->mem = s->owned_mem;
	s->mem_len = s->buf.len;
	s->buf.data = NULL;
	s->buf.len = s->buf.cap = 0;
	s->bpos = 0;
	if (s->own_fd)
		close(s->fd);
	s->fd = -1;
	s->own_fd = false;
	return 0;
}

/* ---- events ---------------------------------------------------------------------------- */

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
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int rebuild_ids(struct prec_reader *r)
{
	size_t i, j, n = 0;
	struct id_entry *v;

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
static int ensure_ids(struct prec_reader *r)
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

static void set_name(struct prec_reader *r, size_t idx, const char *name)
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

/* ---- features -------------------------------------------------------------------------- */

int prec_feat__bytes(struct prec_feat_cursor *c, size_t n, const void **ret)
{
	if (c->off > c->len || n > c->len - c->off)
		return -EBADMSG;
	*ret = c->p + c->off;
	c->off += n;
	return 0;
}

int prec_feat__u32(struct prec_feat_cursor *c, uint32_t *ret)
{
	const void *p;
	int err = prec_feat__bytes(c, 4, &p);

	if (!err)
		memcpy(ret, p, 4);
	return err;
}

int prec_feat__u64(struct prec_feat_cursor *c, uint64_t *ret)
{
	const void *p;
	int err = prec_feat__bytes(c, 8, &p);

	if (!err)
		memcpy(ret, p, 8);
	return err;
}

int prec_feat__string(struct prec_feat_cursor *c, char **ret)
{
	const void *p;
	uint32_t len;
	char *s;
	int err = prec_feat__u32(c, &len);

	if (!err)
		err = prec_feat__bytes(c, len, &p);
	if (err)
		return err;
	s = strndup(p, len);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* Apply EVENT_DESC names to events that have no recorded name yet. */
static void apply_event_desc(struct prec_reader *r, const void *data, size_t len)
{
	struct prec_feat_cursor c = { data, len, 0 };
	uint32_t nr, asz, nids, i;
	const void *p;
	char *name;

	if (prec_feat__u32(&c, &nr) || prec_feat__u32(&c, &asz))
		return;
	for (i = 0; i < nr; i++) {
		if (prec_feat__bytes(&c, asz, &p) || prec_feat__u32(&c, &nids) ||
		    prec_feat__string(&c, &name))
			return;
		if (i < r->nr_evsels && !r->named[i])
			set_name(r, i, name);
		free(name);
		if (nids > (c.len - c.off) / 8 || prec_feat__bytes(&c, (size_t)nids * 8, &p))
			return;
	}
}

static int store_feature(struct prec_reader *r, unsigned int feat, const void *data, size_t len)
{
	struct feature *f = &r->features[feat];
	void *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	free(f->data);
	f->data = copy;
	f->len = len;
	f->present = true;
	if (feat == PREC_FEAT_EVENT_DESC)
		apply_event_desc(r, data, len);
	return 0;
}

/* ---- file form header ------------------------------------------------------------------- */

static int bad(struct prec_reader *r, uint64_t off, const char *what)
{
	prec_log(PREC_LOG_ERROR, "offset %#" PRIx64 ": %s", off, what);
	return -EBADMSG;
}

static int read_file_header(struct prec_reader *r)
{
	uint64_t h[13], bits[4] = { 0, 0, 0, 0 };
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size, fsize, off;
	uint64_t nr_attrs, i, ids[2];
	unsigned char *abuf = NULL;
	uint64_t *idv = NULL;
	unsigned int feat, k;
	int err;

	fsize = src_size(&r->src);
	err = src_pread(&r->src, 0, h, 72);
	if (err)
		return err == -EBADMSG ? bad(r, 0, "file header is truncated") : err;
	hsize = h[1];
	if (hsize != PREC_FILE_HEADER_SIZE && hsize != PREC_FILE_HEADER_SIZE_OLD)
		return bad(r, 8, "unsupported header size (not a perf.data file?)");
	if (hsize == PREC_FILE_HEADER_SIZE) {
		err = src_pread(&r->src, 72, bits, sizeof(bits));
		if (err)
			return err == -EBADMSG ? bad(r, 72, "file header is truncated") : err;
	}
	attr_size = h[2];
	attrs_off = h[3];
	attrs_size = h[4];
	data_off = h[5];
	data_size = h[6];
	if (!attr_size)
		return bad(r, 16, "attr size is 0");
	nr_attrs = attrs_size / attr_size;
	if (nr_attrs > MAX_ATTRS)
		return bad(r, 32, "too many events");

	abuf = malloc(MAX_ATTR_SIZE);
	if (!abuf)
		return -ENOMEM;
	off = attrs_off;
	for (i = 0; i < nr_attrs; i++) {
		uint32_t asz;

		err = src_pread(&r->src, off, abuf, 8);
		if (err)
			goto out_bad_attr;
		memcpy(&asz, abuf + 4, 4);
		if (!asz)
			asz = 64;
		if (asz < 64 || asz > MAX_ATTR_SIZE || (asz & 7)) {
			err = bad(r, off, "bad attr size");
			goto out;
		}
		err = src_pread(&r->src, off, abuf, asz);
		if (!err)
			err = src_pread(&r->src, off + asz, ids, 16);
		if (err)
			goto out_bad_attr;
		if (ids[1] / 8 > MAX_IDS || (fsize != NO_LIMIT && ids[1] > fsize)) {
			err = bad(r, off + asz, "bad id section");
			goto out;
		}
		free(idv);
		idv = malloc(ids[1] ? ids[1] : 8);
		if (!idv) {
			err = -ENOMEM;
			goto out;
		}
		if (ids[1]) {
			err = src_pread(&r->src, ids[0], idv, ids[1] / 8 * 8);
			if (err) {
				err = err == -EBADMSG ? bad(r, ids[0], "id array outside the file") : err;
				goto out;
			}
		}
		err = add_evsel(r, abuf, asz, idv, ids[1] / 8);
		if (err) {
			err = err == -EBADMSG ? bad(r, off, "too many ids") : err;
			goto out;
		}
		off += asz + 16;
	}
	err = ensure_ids(r);
	if (err)
		goto out;

	if (data_size == 0) {
		prec_warn("data size is 0: the recording did not finish (killed?); reading the records up to the end of the file");
		r->limit = NO_LIMIT;
	} else {
		if (data_off > NO_LIMIT - data_size) {
			err = bad(r, 40, "data section overflows");
			goto out;
		}
		r->limit = data_off + data_size;
		off = r->limit;
		for (feat = 0, k = 0; feat < PREC_FEAT_BITS; feat++) {
			uint64_t sec[2];

			if (!(bits[feat / 64] & (1ULL << (feat % 64))))
				continue;
			k++;
			if (feat >= PREC_FEAT_LAST || feat == 0)
				continue;
			if (src_pread(&r->src, off + (uint64_t)(k - 1) * 16, sec, 16)) {
				prec_warn("feature table is truncated; %s and later features skipped",
					  prec_feature_name(feat));
				break;
			}
			if (sec[1] > MAX_FEATURE_SIZE) {
				prec_warn("feature %s: size %" PRIu64 " is not sane; skipped",
					  prec_feature_name(feat), sec[1]);
				continue;
			}
			/* before allocating: the size comes from the file */
			if (fsize != NO_LIMIT && (sec[0] > fsize || sec[1] > fsize - sec[0])) {
				prec_warn("feature %s lies outside the file; skipped",
					  prec_feature_name(feat));
				continue;
			}
			free(abuf);
			abuf = malloc(sec[1] ? sec[1] : 1);
			if (!abuf) {
				err = -ENOMEM;
				goto out;
			}
			if (src_pread(&r->src, sec[0], abuf, sec[1])) {
				prec_warn("feature %s lies outside the file; skipped",
					  prec_feature_name(feat));
				continue;
			}
			err = store_feature(r, feat, abuf, sec[1]);
			if (err)
				goto out;
		}
	}
	err = src_seek(&r->src, data_off);
	goto out;
out_bad_attr:
	if (err == -EBADMSG)
		err = bad(r, off, "attr section outside the file");
out:
	free(abuf);
	free(idv);
	return err;
}

/* ---- open / free ------------------------------------------------------------------------ */

static int reader_start(struct prec_reader *r)
{
	const unsigned char *p;
	uint64_t h[2];
	size_t avail;
	int err;

	r->limit = NO_LIMIT;
	err = src_peek(&r->src, 16, &p, &avail);
	if (err)
		return err;
	if (avail < 8) {
		prec_log(PREC_LOG_ERROR, "input is empty or too short to be perf.data (%zu bytes)",
			 avail);
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
		return bad(r, 0, "bad magic: not a perf.data file");
	if (avail < 16)
		return bad(r, 8, "header is truncated");
	memcpy(h, p, 16);
	if (h[1] == PREC_PIPE_HEADER_SIZE) {
		r->pipe = true;
		src_advance(&r->src, 16);
		return 0;
	}
	if (r->src.fd >= 0 && lseek(r->src.fd, 0, SEEK_CUR) < 0) {
		err = src_slurp(&r->src);
		if (err)
			return err;
	}
	return read_file_header(r);
}

/*
 * Map a regular file for reading in place: no copy through a buffer, and records stay where
 * they are.  Its pages are the page cache's (no memory of our own), and what has been read
 * is given back now and then (prec_reader__release).  Left unmapped (read through the fd)
 * when it is not a regular file, is empty, or mmap refuses.
 */
static void map_file(struct src *s, int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX / 2)
		return;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return;
	(void)madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	s->map = p;
	s->map_len = (size_t)st.st_size;
	s->mem = p;
	s->mem_len = (size_t)st.st_size;
}

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
	map_file(&r->src, fd);
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
	struct src *s = &r->src;
	const unsigned char *c = p;
	size_t upto, pg;

	if (!s->map)
		return;
	if (!c || c < s->mem || c > s->mem + s->mem_len)
		upto = s->pos < s->mem_len ? (size_t)s->pos : s->mem_len;
	else
		upto = (size_t)(c - s->mem);
	/* a megabyte at a time: each step is one call, whose pages go back at once.  (Pages
	 * given back too early would only be read again from the page cache: the mapping is
	 * private and never written.) */
	if (upto < s->released + RELEASE_STEP)
		return;
	pg = (size_t)sysconf(_SC_PAGESIZE);
	upto = upto / pg * pg;
	(void)madvise((unsigned char *)s->map + s->released, upto - s->released, MADV_DONTNEED);
	s->released = upto;
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
	size_t i;

	if (!r)
		return;
	if (r->src.own_fd)
		close(r->src.fd);
	if (r->src.map)
		munmap(r->src.map, r->src.map_len);
	free(r->src.owned_mem);
	prec_buf__release(&r->src.buf);
	for (i = 0; i < r->nr_evsels; i++) {
		free(r->evsels[i].ids);
		free(r->evsels[i].name);
	}
	free(r->evsels);
	free(r->named);
	free(r->ids);
	for (i = 0; i < PREC_FEAT_BITS; i++)
		free(r->features[i].data);
	ZSTD_freeDStream(r->dctx);
	prec_buf__release(&r->zin);
	prec_buf__release(&r->dbuf);
	prec_buf__release(&r->recbuf);
	drop_replay(r);
	free(r);
}

/* ---- records ---------------------------------------------------------------------------- */

static int hand_out(struct prec_reader *r, const unsigned char *p, const struct perf_event_header *h,
		    struct prec_record *ret)
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

static void absorb_header_attr(struct prec_reader *r, const unsigned char *p, size_t size,
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

static void absorb_header_feature(struct prec_reader *r, const unsigned char *p, size_t size,
				  uint64_t off)
{
	struct prec_rec_feature f;
	uint64_t feat;

	if (prec_rec_feature__parse(p, size, &f)) {
		prec_warn("offset %#" PRIx64 ": HEADER_FEATURE too short; ignored", off);
		return;
	}
	feat = f.feat;
	if (feat == PREC_FEAT_LAST) {
		r->features_ended = true;
		return;
	}
	if (feat == PREC_FEAT_SAMPLE_TIME && r->features_ended)
		r->end_marker = true;
	if (feat == 0 || feat >= PREC_FEAT_LAST) {
		prec_warn("offset %#" PRIx64 ": unknown feature %" PRIu64 "; ignored", off, feat);
		return;
	}
	if (store_feature(r, (unsigned int)feat, f.data, f.len))
		prec_warn("offset %#" PRIx64 ": out of memory storing a feature", off);
}

static void absorb_event_update(struct prec_reader *r, const unsigned char *p, size_t size)
{
	struct prec_rec_event_update u;
	char name[256];
	size_t n;
	int idx;

	if (prec_rec_event_update__parse(p, size, &u) || u.type != PREC_EVENT_UPDATE_NAME ||
	    ensure_ids(r))
		return;
	n = u.len < sizeof(name) - 1 ? u.len : sizeof(name) - 1;
	memcpy(name, u.data, n);
	name[n] = 0;
	idx = r->nr_evsels == 1 ? 0 : find_id(r, u.id);
	if (idx >= 0)
		set_name(r, (size_t)idx, name);
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
		skipped = src_skip(&r->src, want);
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
	err = src_peek(&r->src, sizeof(h), &p, &avail);
	if (err)
		return err;
	if (avail == 0) {
		if (r->limit != NO_LIMIT)
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
		return bad(r, off, "record size is smaller than its header");
	if (h.type == 0 || h.type >= PREC_REC_TYPE_LIMIT)
		return bad(r, off, "unknown record type (garbage in the stream?)");
	if (r->limit != NO_LIMIT && h.size > r->limit - off)
		return bad(r, off, "record crosses the end of the data section");
	err = src_peek(&r->src, h.size, &p, &avail);
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
		absorb_header_attr(r, p, h.size, off);
		break;
	case PREC_REC_HEADER_FEATURE:
		absorb_header_feature(r, p, h.size, off);
		break;
	case PREC_REC_EVENT_UPDATE:
		absorb_event_update(r, p, h.size);
		break;
	default:
		break;
	}
	src_advance(&r->src, h.size);
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
		int err = ensure_ids(r);

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
	struct replay_rec *v;
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

bool prec_reader__from_precord(const struct prec_reader *r)
{
	const struct feature *f = &r->features[PREC_FEAT_VERSION];
	size_t n = sizeof(PREC_VERSION_PREFIX) - 1;

	/* a perf string: u32 length, then the text */
	return f->present && f->len >= 4 + n &&
	       !memcmp((const char *)f->data + 4, PREC_VERSION_PREFIX, n);
}

bool prec_reader__cut_short(const struct prec_reader *r)
{
	return r->pipe && r->done && prec_reader__from_precord(r) && !prec_reader__ended(r);
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

const void *prec_reader__feature(const struct prec_reader *r, unsigned int feat, size_t *ret_len)
{
	if (feat >= PREC_FEAT_BITS || !r->features[feat].present)
		return NULL;
	if (ret_len)
		*ret_len = r->features[feat].len;
	return r->features[feat].data;
}

uint64_t prec_reader__offset(const struct prec_reader *r)
{
	if (r->replay_pos < r->nr_replay)
		return r->replay[r->replay_pos].rec.offset;
	return r->src.pos;
}
