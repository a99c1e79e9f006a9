/* SPDX-License-Identifier: MIT */
/*
 * Truncation and corruption of the reader's input (lib/data/prec_reader.c).  Three inputs:
 * a pipe-form stream from our writer, the same compressed (records spanning COMPRESSED
 * records), and a real perf file-form recording (tests/data/perf-file-small.data).  Each is
 * cut at every byte offset and read from memory and from a file descriptor: opening either
 * fails cleanly (the cut is inside the pipe header or the file header / attrs / ids) or
 * succeeds, and then the reader hands out exactly the complete records before the cut,
 * identical to the full read, then 0, with prec_reader__truncated() (and a warning) exactly
 * when the cut is not at a record boundary (file form: when it is before the end of the data
 * section); the end marker of our streams is seen exactly in the uncut read, and a cut one
 * is said to be cut short (prec_reader__cut_short()), perf's file form never.  File-form
 * features are present exactly when their table entry and payload lie before the cut.
 * Corrupt sizes mid-stream, garbage COMPRESSED payloads and a data section ending inside a
 * record give -EBADMSG, sticky, with the offset in the log message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_log.h"
#include "prec_reader.h"
#include "prec_writer.h"
#include "tap.h"

/* ---- log capture ----------------------------------------------------------------------- */

static int log_warnings, log_errors;
static char log_last[512];

static void log_cb(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == PREC_LOG_WARN)
		log_warnings++;
	if (level == PREC_LOG_ERROR)
		log_errors++;
	if (level <= PREC_LOG_WARN)
		snprintf(log_last, sizeof(log_last), "%s", msg);
}

static void log_reset(void)
{
	log_warnings = log_errors = 0;
	log_last[0] = 0;
}

/* ---- inputs ------------------------------------------------------------------------------ */

static unsigned char *slurp_fd(int fd, size_t *ret_len)
{
	struct stat st;
	unsigned char *p;

	if (fstat(fd, &st))
		abort();
	p = malloc((size_t)st.st_size + 1);
	if (!p || pread(fd, p, (size_t)st.st_size, 0) != st.st_size)
		abort();
	*ret_len = (size_t)st.st_size;
	return p;
}

static void check(int err)
{
	if (err) {
		diag("writer: %s", strerror(-err));
		abort();
	}
}

/*
 * About 30 records.  With raw_size 3000 the samples add up to more than one compression
 * chunk, so some records span two COMPRESSED records.  `bogus` adds a kernel record whose
 * size field is 4 through add_raw.
 */
static unsigned char *make_stream(int level, uint32_t raw_size, bool bogus, size_t *ret_len)
{
	static const struct prec_sample_id sid = {10, 11, 5000, 0, 0, 0};
	static const struct prec_id_index_entry ie[1] = {{77, 0, 0, 10}};
	struct prec_writer_opts o = {.compress_level = level};
	struct perf_event_attr a;
	struct prec_writer *w;
	struct prec_mmap2 m;
	struct prec_sample s;
	uint64_t chain[6] = {PREC_CONTEXT_USER, 1, 2, 3, 4, 5};
	unsigned char *raw, *buf;
	uint64_t id = 77;
	char path[4096];
	int fd, i;

	raw = malloc(raw_size + 1);
	if (!raw)
		abort();
	for (i = 0; i < (int)raw_size; i++)
		raw[i] = (unsigned char)((i * 7) & 0x1f);
	fd = tap_mkstemp(path, sizeof(path), "truncate");
	check(prec_writer__new(fd, &o, &w));
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	check(prec_writer__add_attr(w, &a, &id, 1));
	check(prec_writer__add_feature_string(w, PREC_FEAT_HOSTNAME, "host"));
	check(prec_writer__add_feature_string(w, PREC_FEAT_ARCH, "x86_64"));
	check(prec_writer__add_feature_string(w, PREC_FEAT_VERSION, PREC_VERSION_PREFIX "test"));
	check(prec_writer__end_header(w));
	check(prec_writer__add_id_index(w, ie, 1));
	check(prec_writer__add_mmap(w, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0,
				    0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
				    "[kernel.kallsyms]_text", NULL));
	check(prec_writer__add_comm(w, 10, 10, "perf-exec", false, NULL));
	check(prec_writer__add_finished_init(w));
	check(prec_writer__add_comm(w, 10, 10, "hot", true, &sid));
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 10;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/tmp/hot";
	check(prec_writer__add_mmap2(w, PERF_RECORD_MISC_USER, &m, &sid));
	m.has_build_id = true;
	m.build_id_size = 20;
	memset(m.build_id, 0xab, 20);
	m.filename = "/lib/libc.so.6";
	check(prec_writer__add_mmap2(w, PERF_RECORD_MISC_USER, &m, &sid));
	check(prec_writer__add_task(w, false, 10, 10, 11, 10, 5100, &sid));
	memset(&s, 0, sizeof(s));
	s.pid = 10;
	s.tid = 11;
	s.period = 1000;
	s.callchain = chain;
	s.raw = raw;
	for (i = 0; i < 12; i++) {
		s.ip = 0x401000 + (uint64_t)i;
		s.time = 6000 + (uint64_t)i;
		s.callchain_nr = 1 + (uint64_t)i % 6;
		s.raw_size = raw_size - (uint32_t)i;
		check(prec_writer__add_sample(w, 0, PERF_RECORD_MISC_USER, &s));
		if (i == 5) {
			check(prec_writer__add_lost(w, 77, 3, &sid));
			check(prec_writer__add_throttle(w, false, 7000, 77, 77, &sid));
			check(prec_writer__add_switch(w, true, false, 0, 0, &sid));
		}
	}
	if (bogus) {
		uint64_t rec[2] = {PERF_RECORD_COMM | (uint64_t)4 << 48, 0};

		check(prec_writer__add_raw(w, rec, sizeof(rec)));
	}
	check(prec_writer__add_finished_round(w));
	s.raw_size = 3;
	check(prec_writer__add_sample(w, 0, PERF_RECORD_MISC_USER, &s));
	check(prec_writer__add_task(w, true, 10, 10, 11, 10, 9000, &sid));
	check(prec_writer__add_finished_round(w));
	check(prec_writer__finish(w));
	prec_writer__free(w);
	buf = slurp_fd(fd, ret_len);
	close(fd);
	unlink(path);
	free(raw);
	return buf;
}

static unsigned char *load_golden(const char *name, size_t *ret_len)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	unsigned char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir && srcdir[0] ? srcdir : ".", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		diag("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = slurp_fd(fd, ret_len);
	close(fd);
	return buf;
}

/* ---- the full read ------------------------------------------------------------------------ */

struct rec_copy {
	uint32_t type;
	size_t size;
	uint64_t offset;
	bool decompressed;
	uint64_t outer_end; /* end of the outer record this one was read from */
	unsigned char *bytes;
};

struct full {
	struct rec_copy *v;
	size_t n;
	uint64_t data_end; /* file form: end of the data section; pipe form: length */
	bool pipe;
	/* pipe form: outer record boundaries and what the decompressed data left over there */
	uint64_t *bounds;
	uint64_t *leftover;
	size_t nr_bounds;
};

static void full_free(struct full *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].bytes);
	free(f->v);
	free(f->bounds);
	free(f->leftover);
	memset(f, 0, sizeof(*f));
}

static void push_bound(struct full *f, uint64_t at, uint64_t left)
{
	f->bounds = realloc(f->bounds, (f->nr_bounds + 1) * sizeof(*f->bounds));
	f->leftover = realloc(f->leftover, (f->nr_bounds + 1) * sizeof(*f->leftover));
	if (!f->bounds || !f->leftover)
		abort();
	f->bounds[f->nr_bounds] = at;
	f->leftover[f->nr_bounds] = left;
	f->nr_bounds++;
}

/*
 * Read the whole input once; remember every record.  For pipe form, also walk the outer
 * records with an independent zstd decoder to learn, at each boundary, how many decompressed
 * bytes do not yet form a whole record.
 */
static bool read_full(const unsigned char *buf, size_t len, struct full *f)
{
	struct prec_reader *r;
	struct prec_record rec;
	uint64_t comp_off = 0, comp_size = 0;
	int rc;

	memset(f, 0, sizeof(*f));
	log_reset();
	if (prec_reader__open_mem(buf, len, &r))
		return false;
	f->pipe = prec_reader__is_pipe(r);
	while ((rc = prec_reader__next(r, &rec)) == 1) {
		struct rec_copy *c;

		f->v = realloc(f->v, (f->n + 1) * sizeof(*f->v));
		if (!f->v)
			abort();
		c = &f->v[f->n++];
		c->type = rec.type;
		c->size = rec.size;
		c->offset = rec.offset;
		c->decompressed = rec.decompressed;
		if (rec.type == PREC_REC_COMPRESSED) {
			comp_off = rec.offset;
			comp_size = rec.size;
		}
		c->outer_end = rec.decompressed ? comp_off + comp_size : rec.offset + rec.size;
		if (rec.decompressed && rec.offset != comp_off)
			return false;
		c->bytes = malloc(rec.size);
		if (!c->bytes)
			abort();
		memcpy(c->bytes, rec.data, rec.size);
	}
	f->data_end = prec_reader__offset(r);
	if (rc != 0 || prec_reader__truncated(r) || log_warnings || log_errors) {
		diag("full read: rc %d, truncated %d, log: %s", rc, prec_reader__truncated(r),
		     log_last);
		prec_reader__free(r);
		return false;
	}
	prec_reader__free(r);

	if (f->pipe) {
		ZSTD_DStream *d = ZSTD_createDStream();
		static unsigned char out[1 << 20];
		uint64_t pos = PREC_PIPE_HEADER_SIZE, produced = 0, whole = 0;
		size_t k = 0;

		if (!d || ZSTD_isError(ZSTD_initDStream(d)))
			abort();
		push_bound(f, pos, 0);
		while (pos + 8 <= len) {
			struct perf_event_header h;

			memcpy(&h, buf + pos, sizeof(h));
			if (h.type == PREC_REC_COMPRESSED) {
				ZSTD_inBuffer in = {buf + pos + 8, h.size - 8u, 0};

				while (in.pos < in.size) {
					ZSTD_outBuffer o = {out, sizeof(out), 0};
					size_t zr = ZSTD_decompressStream(d, &o, &in);

					if (ZSTD_isError(zr))
						abort();
					produced += o.pos;
				}
			}
			pos += h.size;
			while (k < f->n && f->v[k].outer_end <= pos) {
				if (f->v[k].decompressed)
					whole += f->v[k].size;
				k++;
			}
			push_bound(f, pos, produced - whole);
		}
		ZSTD_freeDStream(d);
	}
	return true;
}

/* Is the cut at an outer record boundary, and if so, with what left over? */
static bool boundary(const struct full *f, uint64_t cut, uint64_t *ret_left)
{
	size_t i;

	for (i = 0; i < f->nr_bounds; i++)
		if (f->bounds[i] == cut) {
			*ret_left = f->leftover[i];
			return true;
		}
	return false;
}

/*
 * Read a reader opened on a prefix of `cut` bytes and compare with the full read.
 * Returns 0 or 1 (failure, described once).
 */
static int check_prefix(struct prec_reader *r, const struct full *f, uint64_t cut, const char *how)
{
	struct prec_record rec;
	uint64_t limit = cut < f->data_end ? cut : f->data_end, left = 0;
	size_t k = 0, want = 0;
	bool want_trunc;
	int rc;

	while (want < f->n && f->v[want].outer_end <= limit)
		want++;
	if (f->pipe)
		want_trunc = cut < f->data_end && !(boundary(f, cut, &left) && left == 0);
	else
		want_trunc = cut < f->data_end;

	while ((rc = prec_reader__next(r, &rec)) == 1) {
		const struct rec_copy *c = &f->v[k];

		if (k >= want) {
			diag("%s cut %" PRIu64 ": record %zu (type %u) past the %zu complete ones",
			     how, cut, k, rec.type, want);
			return 1;
		}
		if (rec.size != c->size || rec.type != c->type || rec.offset != c->offset ||
		    rec.decompressed != c->decompressed || memcmp(rec.data, c->bytes, c->size)) {
			diag("%s cut %" PRIu64 ": record %zu differs from the full read", how, cut,
			     k);
			return 1;
		}
		k++;
	}
	if (rc != 0 || k != want) {
		diag("%s cut %" PRIu64 ": rc %d after %zu records, want 0 after %zu (%s)", how, cut,
		     rc, k, want, log_last);
		return 1;
	}
	if (prec_reader__next(r, &rec) != 0) {
		diag("%s cut %" PRIu64 ": next after the end is not 0", how, cut);
		return 1;
	}
	if (prec_reader__truncated(r) != want_trunc || (want_trunc && !log_warnings)) {
		diag("%s cut %" PRIu64 ": truncated() %d, want %d (%d warnings)", how, cut,
		     prec_reader__truncated(r), want_trunc, log_warnings);
		return 1;
	}
	if (log_errors) {
		diag("%s cut %" PRIu64 ": error logged: %s", how, cut, log_last);
		return 1;
	}
	/* our streams end with the end marker; every cut loses it, and says so once the VERSION
	 * feature that names precord was read */
	if (prec_reader__ended(r) != (f->pipe && cut >= f->data_end) ||
	    prec_reader__cut_short(r) != (f->pipe && cut < f->data_end &&
					   prec_reader__feature(r, PREC_FEAT_VERSION, NULL))) {
		diag("%s cut %" PRIu64 ": ended() %d, cut_short() %d", how, cut,
		     prec_reader__ended(r), prec_reader__cut_short(r));
		return 1;
	}
	return 0;
}

/* File form: features present exactly when table entry and payload are before the cut. */
static int check_features(struct prec_reader *r, const unsigned char *buf, size_t len, uint64_t cut)
{
	uint64_t h[13], bits, table;
	unsigned int feat, k = 0;
	bool table_ok = true;

	if (len < 104)
		return 0;
	memcpy(h, buf, sizeof(h));
	bits = h[9];
	table = h[5] + h[6];
	for (feat = 1; feat < 64; feat++) {
		uint64_t sec[2];
		size_t got;
		const void *p;
		bool want;

		if (!(bits & (1ULL << feat)))
			continue;
		memcpy(sec, buf + table + 16 * k, 16);
		if (table + 16 * (k + 1) > cut)
			table_ok = false;
		k++;
		want = table_ok && sec[0] + sec[1] <= cut;
		p = prec_reader__feature(r, feat, &got);
		if (!!p != want || (p && (got != sec[1] || memcmp(p, buf + sec[0], got)))) {
			diag("file cut %" PRIu64 ": feature %u present %d, want %d", cut, feat, !!p,
			     want);
			return 1;
		}
	}
	return 0;
}

/* Every cut, from memory and through an fd on a file shortened with ftruncate. */
static void test_every_cut(const char *name, const unsigned char *buf, size_t len,
			   uint64_t min_open)
{
	struct full f;
	struct prec_reader *r;
	char path[4096];
	int fails_mem = 0, fails_fd = 0, fails_feat = 0, err, fd;
	size_t cut, spanning = 0;

	if (!ok(read_full(buf, len, &f), "%s: full read of %zu bytes is clean", name, len))
		return;
	for (cut = 0; cut < f.nr_bounds; cut++)
		spanning += f.leftover[cut] != 0;
	diag("%s: %zu records, %zu outer record boundaries, %zu of them inside a decompressed "
	     "record",
	     name, f.n, f.nr_bounds, spanning);
	for (cut = 0; cut <= len; cut++) {
		unsigned char *p = malloc(cut ? cut : 1);

		if (!p)
			abort();
		memcpy(p, buf, cut);
		log_reset();
		err = prec_reader__open_mem(p, cut, &r);
		if (cut < min_open) {
			if (err != -EBADMSG && fails_mem++ < 3)
				diag("%s mem cut %zu: open returned %d, want -EBADMSG", name, cut,
				     err);
			if (!err)
				prec_reader__free(r);
		} else if (err) {
			if (fails_mem++ < 3)
				diag("%s mem cut %zu: open failed: %d (%s)", name, cut, err,
				     log_last);
		} else {
			if (!f.pipe && fails_feat < 3 && check_features(r, buf, len, cut))
				fails_feat++;
			if (fails_mem < 3 && check_prefix(r, &f, cut, "mem"))
				fails_mem++;
			prec_reader__free(r);
		}
		free(p);
	}
	ok(fails_mem == 0, "%s: every cut 0..%zu from memory: clean error or the whole records",
	   name, len);
	if (!f.pipe)
		ok(fails_feat == 0, "%s: features present exactly when inside every cut", name);

	fd = tap_mkstemp(path, sizeof(path), "truncate");
	if (write(fd, buf, len) != (ssize_t)len)
		abort();
	for (cut = len + 1; cut-- > 0;) {
		if (ftruncate(fd, (off_t)cut) || lseek(fd, 0, SEEK_SET) < 0)
			abort();
		log_reset();
		err = prec_reader__open_fd(fd, &r);
		if (cut < min_open) {
			if (err >= 0 && fails_fd++ < 3)
				diag("%s fd cut %zu: open succeeded", name, cut);
			if (!err)
				prec_reader__free(r);
		} else if (err) {
			if (fails_fd++ < 3)
				diag("%s fd cut %zu: open failed: %d", name, cut, err);
		} else {
			if (fails_fd < 3 && check_prefix(r, &f, cut, "fd"))
				fails_fd++;
			prec_reader__free(r);
		}
	}
	close(fd);
	unlink(path);
	ok(fails_fd == 0, "%s: every cut 0..%zu through a file descriptor", name, len);
	full_free(&f);
}

/* ---- corruption ------------------------------------------------------------------------- */

/* Read until an error; want `want_ok` good records first, then -EBADMSG twice. */
static void expect_bad(const char *what, const unsigned char *buf, size_t len, size_t want_ok,
		       const char *want_in_log)
{
	struct prec_reader *r;
	struct prec_record rec;
	size_t k = 0;
	int rc, err;

	log_reset();
	err = prec_reader__open_mem(buf, len, &r);
	if (!ok(err == 0, "%s: opens", what))
		return;
	while ((rc = prec_reader__next(r, &rec)) == 1)
		k++;
	ok(rc == -EBADMSG && (want_ok == (size_t)-1 || k == want_ok),
	   "%s: -EBADMSG (%d) after %zu records (want %zd)", what, rc, k, (ssize_t)want_ok);
	ok(prec_reader__next(r, &rec) == -EBADMSG && prec_reader__next(r, &rec) == -EBADMSG,
	   "%s: and the error is sticky", what);
	ok(log_errors > 0 && strstr(log_last, want_in_log), "%s: the log says where: \"%s\"", what,
	   log_last);
	prec_reader__free(r);
}

/* Offset and index of the n-th outer record of `type`. */
static bool find_outer(const unsigned char *buf, size_t len, uint32_t type, int nth,
		       size_t *ret_off, size_t *ret_idx)
{
	size_t pos = PREC_PIPE_HEADER_SIZE, idx = 0;

	while (pos + 8 <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.type == type && nth-- == 0) {
			*ret_off = pos;
			*ret_idx = idx;
			return true;
		}
		pos += h.size;
		idx++;
	}
	return false;
}

static void set_size(unsigned char *buf, size_t off, uint16_t size)
{
	memcpy(buf + off + 6, &size, 2);
}

static void test_corrupt(void)
{
	unsigned char *plain, *comp, *bogus, *copy;
	size_t plain_len, comp_len, bogus_len, off, idx;
	char where[64];

	plain = make_stream(0, 100, false, &plain_len);
	comp = make_stream(1, 3000, false, &comp_len);
	bogus = make_stream(1, 100, true, &bogus_len);
	copy = malloc(plain_len > comp_len ? plain_len : comp_len);
	if (!copy)
		abort();

	/* a SAMPLE in the middle claims 0 and then 7 bytes */
	if (!find_outer(plain, plain_len, PERF_RECORD_SAMPLE, 3, &off, &idx))
		abort();
	snprintf(where, sizeof(where), "%#zx", off);
	memcpy(copy, plain, plain_len);
	set_size(copy, off, 0);
	expect_bad("plain, record size 0", copy, plain_len, idx, where);
	set_size(copy, off, 7);
	expect_bad("plain, record size 7", copy, plain_len, idx, where);

	/* the FINISHED_ROUND after the compressed group claims 3 bytes */
	if (!find_outer(comp, comp_len, PREC_REC_FINISHED_ROUND, 0, &off, &idx))
		abort();
	memcpy(copy, comp, comp_len);
	set_size(copy, off, 3);
	snprintf(where, sizeof(where), "%#zx", off);
	expect_bad("zstd, record size 3 after compressed data", copy, comp_len, (size_t)-1, where);

	/* the first COMPRESSED payload is garbage */
	if (!find_outer(comp, comp_len, PREC_REC_COMPRESSED, 0, &off, &idx))
		abort();
	memcpy(copy, comp, comp_len);
	{
		uint16_t size;

		memcpy(&size, copy + off + 6, 2);
		memset(copy + off + 8, 0xff, size - 8u);
	}
	snprintf(where, sizeof(where), "%#zx", off);
	expect_bad("zstd, garbage COMPRESSED payload", copy, comp_len, idx + 1, where);

	/* inside the compressed data, a record claims 4 bytes */
	expect_bad("zstd, record size 4 inside compressed data", bogus, bogus_len, (size_t)-1,
		   "smaller than its header");

	free(plain);
	free(comp);
	free(bogus);
	free(copy);
}

/* File form: a data section that ends inside a record, or after the end of the file. */
static void test_file_sizes(const unsigned char *buf, size_t len)
{
	unsigned char *copy = malloc(len);
	struct prec_reader *r;
	struct prec_record rec;
	uint64_t data_off, data_size, v;
	size_t data_end;
	int rc, n;

	if (!copy)
		abort();
	memcpy(copy, buf, len);
	memcpy(&data_off, buf + 40, 8);
	memcpy(&data_size, buf + 48, 8);
	data_end = (size_t)(data_off + data_size);
	v = data_size - 4;
	memcpy(copy + 48, &v, 8);
	expect_bad("file, data section ends inside the last record", copy, len, (size_t)-1,
		   "crosses the end of the data section");

	/* the file ends with the data (features lost), data.size says more */
	v = data_size * 4;
	memcpy(copy + 48, &v, 8);
	log_reset();
	n = 0;
	if (ok(prec_reader__open_mem(copy, data_end, &r) == 0, "file, data size past EOF: opens")) {
		while ((rc = prec_reader__next(r, &rec)) == 1)
			n++;
		ok(rc == 0 && n > 0 && prec_reader__truncated(r) && log_warnings,
		   "file, data size past EOF: %d records, then 0, truncated: %s", n, log_last);
		prec_reader__free(r);
	}

	/* what a killed perf record leaves: data.size 0, no feature table */
	v = 0;
	memcpy(copy + 48, &v, 8);
	log_reset();
	n = 0;
	if (ok(prec_reader__open_mem(copy, data_end, &r) == 0, "file, data size 0: opens")) {
		while ((rc = prec_reader__next(r, &rec)) == 1)
			n++;
		ok(rc == 0 && n > 0 && !prec_reader__truncated(r) && log_warnings,
		   "file, data size 0: %d records up to the end of the file, then 0: %s", n,
		   log_last);
		prec_reader__free(r);
	}
	/* and with the feature table still behind the data: read as records, no crash */
	log_reset();
	if (ok(prec_reader__open_mem(copy, len, &r) == 0, "file, data size 0, features behind")) {
		while ((rc = prec_reader__next(r, &rec)) == 1)
			;
		ok(rc == 0 || rc == -EBADMSG, "file, data size 0, features behind: ends with %d",
		   rc);
		prec_reader__free(r);
	}
	free(copy);
}

/*
 * File form with `n` attrs that all point at one array of `nids` ids: the id index must be
 * built once (it was rebuilt per attr: minutes for a 40 KB file), and past 2^20 ids in all
 * the file is refused.
 */
static void test_shared_ids(size_t n, size_t nids, bool want_ok)
{
	size_t ids_off = 104, attrs_off = ids_off + 8 * nids, ent = 64 + 16;
	size_t data_off = attrs_off + n * ent, len = data_off + 8, i;
	uint64_t *buf = calloc(1, len + 8), v;
	unsigned char *b = (unsigned char *)buf;
	struct prec_reader *r;
	struct prec_record rec;
	int err;

	if (!buf)
		abort();
	memcpy(b, "PERFILE2", 8);
	buf[1] = 104;
	buf[2] = ent;
	buf[3] = attrs_off;
	buf[4] = n * ent;
	buf[5] = data_off;
	buf[6] = 8;
	for (i = 0; i < nids; i++)
		buf[13 + i] = 1 + 7 * i;
	for (i = 0; i < n; i++) {
		unsigned char *a = b + attrs_off + i * ent;
		uint32_t type_size[2] = {PERF_TYPE_SOFTWARE, 64};

		memcpy(a, type_size, 8);
		v = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
		memcpy(a + 24, &v, 8);
		v = ids_off;
		memcpy(a + 64, &v, 8);
		v = 8 * nids;
		memcpy(a + 72, &v, 8);
	}
	memcpy(b + data_off, &(struct perf_event_header){PREC_REC_FINISHED_ROUND, 0, 8}, 8);
	log_reset();
	err = prec_reader__open_mem(b, len, &r);
	if (want_ok) {
		if (ok(err == 0, "%zu attrs sharing %zu ids: opens", n, nids)) {
			ok(prec_reader__nr_evsels(r) == n && prec_reader__next(r, &rec) == 1 &&
			       prec_reader__next(r, &rec) == 0,
			   "%zu attrs sharing %zu ids: all events, then the records", n, nids);
			prec_reader__free(r);
		}
	} else {
		ok(err == -EBADMSG && strstr(log_last, "too many ids"),
		   "%zu attrs sharing %zu ids: refused (%d): %s", n, nids, err, log_last);
		if (!err)
			prec_reader__free(r);
	}
	free(buf);
}

/* Read everything; a summary to compare two ways of reading the same bytes. */
static void summarize(struct prec_reader *r, int *ret_rc, int *ret_n, bool *ret_trunc)
{
	struct prec_record rec;
	int rc, n = 0;

	while ((rc = prec_reader__next(r, &rec)) == 1)
		n++;
	*ret_rc = rc;
	*ret_n = n;
	*ret_trunc = prec_reader__truncated(r);
}

/*
 * Header fields pointing far outside the file: memory and fd agree (offsets off_t cannot
 * hold made pread/lseek fail with EINVAL on the fd path only).
 */
static void test_mem_fd_agree(const unsigned char *buf, size_t len)
{
	/* clang-format off */
	static const struct {
		const char *what;
		size_t at; /* 0xffff: the ids offset of the first attr */
		uint64_t v;
	} muts[] = {
		{ "ids offset 2^64-8", 0xffff, UINT64_MAX - 7 },
		{ "ids offset 2^63", 0xffff, 1ULL << 63 },
		{ "attrs offset 2^63", 24, 1ULL << 63 },
		{ "attrs offset 2^64-64", 24, UINT64_MAX - 63 },
		{ "data offset 2^62", 40, 1ULL << 62 },
		{ "data offset 2^63+8", 40, (1ULL << 63) + 8 },
		{ "data offset past EOF", 40, 100000 },
	};
	/* clang-format on */
	unsigned char *copy = malloc(len);
	char path[4096];
	size_t i;

	if (!copy)
		abort();
	for (i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
		struct prec_reader *r;
		int err_m, err_f, rc_m = 0, rc_f = 0, n_m = 0, n_f = 0, fd;
		bool t_m = false, t_f = false;
		size_t at = muts[i].at;
		uint64_t attrs_off, attr_size;

		memcpy(copy, buf, len);
		if (at == 0xffff) {
			memcpy(&attrs_off, buf + 24, 8);
			memcpy(&attr_size, buf + 16, 8);
			at = (size_t)(attrs_off + attr_size - 16);
		}
		memcpy(copy + at, &muts[i].v, 8);
		log_reset();
		err_m = prec_reader__open_mem(copy, len, &r);
		if (!err_m) {
			summarize(r, &rc_m, &n_m, &t_m);
			prec_reader__free(r);
		}
		fd = tap_mkstemp(path, sizeof(path), "truncate");
		if (write(fd, copy, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET))
			abort();
		log_reset();
		err_f = prec_reader__open_fd(fd, &r);
		if (!err_f) {
			summarize(r, &rc_f, &n_f, &t_f);
			prec_reader__free(r);
		}
		close(fd);
		unlink(path);
		ok(err_m == err_f && rc_m == rc_f && n_m == n_f && t_m == t_f &&
		       (err_m == 0 || err_m == -EBADMSG),
		   "file, %s: memory (%d, %d, %d records) and fd (%d, %d, %d records) agree",
		   muts[i].what, err_m, rc_m, n_m, err_f, rc_f, n_f);
	}
	free(copy);
}

int main(void)
{
	unsigned char *buf;
	size_t len;

	prec_log_set_fn(log_cb, NULL);

	buf = make_stream(0, 100, false, &len);
	test_every_cut("plain stream", buf, len, PREC_PIPE_HEADER_SIZE);
	free(buf);
	buf = make_stream(1, 3000, false, &len);
	test_every_cut("zstd stream", buf, len, PREC_PIPE_HEADER_SIZE);
	free(buf);
	test_corrupt();
	test_shared_ids(300, 2000, true);
	test_shared_ids(130, 8192, false);

	buf = load_golden("perf-file-small.data", &len);
	if (ok(buf != NULL, "golden perf file-form recording is there")) {
		uint64_t attrs_off, attrs_size, data_off, ids[2];

		/* perf writes the ids, then the attrs, then the data: all needed to open */
		memcpy(&attrs_off, buf + 24, 8);
		memcpy(&attrs_size, buf + 32, 8);
		memcpy(&data_off, buf + 40, 8);
		memcpy(ids, buf + attrs_off + attrs_size - 16, 16);
		ok(ids[0] + ids[1] <= attrs_off && attrs_off + attrs_size == data_off,
		   "golden file: ids, attrs, data in this order");
		test_every_cut("perf file form", buf, len, attrs_off + attrs_size);
		test_file_sizes(buf, len);
		test_mem_fd_agree(buf, len);
		free(buf);
	}
	return done_testing();
}
