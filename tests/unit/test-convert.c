/* SPDX-License-Identifier: MIT */
/*
 * Conversion to perf's file form (lib/data/prec_convert.c, prec_file_writer.c).  Inputs: a
 * pipe stream of our writer (two events told apart by PERF_SAMPLE_IDENTIFIER, zstd and
 * plain, ending with the end marker) with MMAP2 records in inode form, in build-id form and
 * one in the false build-id form a kernel bug writes (size byte 254); the same stream cut
 * short; perf's own file form (tests/data/perf-file-small.data).  The output is read back
 * with prec_reader: file form; the same events (attr, ids, names); the input's records in
 * order, each byte for byte, except those of the pipe header, COMPRESSED and the end marker,
 * and the false build-id flag cleared; features copied (HOSTNAME), dropped (COMPRESSED) or
 * rebuilt (EVENT_DESC, SAMPLE_TIME = first and last sample time, BUILD_ID = the one true
 * build-id, or perf's entries).  A cut stream converts and is said to be cut; one cut inside
 * its header holds no record and is -ENODATA; a tracepoint event is refused (-EOPNOTSUPP).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_convert.h"
#include "prec_log.h"
#include "prec_reader.h"
#include "prec_writer.h"
#include "tap.h"

static const uint64_t ids[2][2] = {{11, 12}, {21, 22}};
static const char *const names[2] = {"cycles:u", "instructions:u"};
static const uint8_t good_bid[20] = {0xb1, 0xd0, 1, 2, 3, 4, 5, 6, 7, 8,
				     9, 10, 11, 12, 13, 14, 15, 16, 17, 18};

static void check(int err)
{
	if (err) {
		diag("setup: %s", strerror(-err));
		abort();
	}
}

static void make_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->config = config;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a->sample_id_all = 1;
	a->sample_period = 1000;
}

/* Write the test stream into a new temporary file; returns its fd (at offset 0). */
static int write_input(int level, uint32_t type0, char *path, size_t len)
{
	struct prec_writer_opts o = {.compress_level = level};
	struct prec_sample_id sid = {7, 7, 100, 11, 0, 0};
	struct perf_event_attr a[2];
	struct prec_writer *w;
	struct prec_mmap2 m;
	struct prec_sample s;
	int fd = tap_mkstemp(path, len, "convert"), i;

	make_attr(&a[0], type0, 0);
	make_attr(&a[1], PERF_TYPE_HARDWARE, 1);
	check(prec_writer__new(fd, &o, &w));
	check(prec_writer__add_attr(w, &a[0], ids[0], 2));
	check(prec_writer__add_attr(w, &a[1], ids[1], 2));
	check(prec_writer__add_feature_string(w, PREC_FEAT_HOSTNAME, "convert-host"));
	check(prec_writer__add_feature_string(w, PREC_FEAT_VERSION, PREC_VERSION_PREFIX "t"));
	check(prec_writer__add_event_desc(w, names));
	check(prec_writer__end_header(w));
	check(prec_writer__add_comm(w, 7, 7, "app", false, NULL));
	check(prec_writer__add_finished_init(w));
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 7;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.maj = 8;
	m.ino = 99;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/opt/app";
	check(prec_writer__add_mmap2(w, PERF_RECORD_MISC_USER, &m, &sid));
	m.has_build_id = true;
	m.build_id_size = 20;
	memcpy(m.build_id, good_bid, 20);
	m.filename = "/lib/libgood.so";
	check(prec_writer__add_mmap2(w, PERF_RECORD_MISC_USER, &m, &sid));
	m.filename = "/lib/libgood.so"; /* the same file mapped again: one BUILD_ID entry */
	check(prec_writer__add_mmap2(w, PERF_RECORD_MISC_USER, &m, &sid));
	for (i = 0; i < 10; i++) {
		memset(&s, 0, sizeof(s));
		s.id = ids[i % 2][0];
		s.ip = 0x400100 + (uint64_t)i;
		s.pid = s.tid = 7;
		s.time = 5000 - (uint64_t)i * 10; /* not in order: first/last are min/max */
		s.period = 1000;
		check(prec_writer__add_sample(w, (size_t)(i % 2), PERF_RECORD_MISC_USER, &s));
	}
	check(prec_writer__add_finished_round(w));
	check(prec_writer__finish(w));
	prec_writer__free(w);
	return fd;
}

/*
 * The false build-id form: set the flag on the first MMAP2 (inode form, maj 8 -> size byte
 * 8 is fine) and its size byte to 254, as a kernel bug writes.  Plain streams only.
 */
static void plant_false_build_id(int fd)
{
	struct stat st;
	unsigned char *p;
	size_t off = PREC_PIPE_HEADER_SIZE;

	if (fstat(fd, &st))
		abort();
	p = malloc((size_t)st.st_size);
	if (!p || pread(fd, p, (size_t)st.st_size, 0) != st.st_size)
		abort();
	while (off + 8 <= (size_t)st.st_size) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.type == PERF_RECORD_MMAP2) {
			h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
			memcpy(p + off, &h, sizeof(h));
			p[off + 40] = 254;
			if (pwrite(fd, p + off, 48, (off_t)off) != 48)
				abort();
			break;
		}
		off += h.size;
	}
	free(p);
}

struct rec {
	uint32_t type;
	uint16_t misc;
	size_t size;
	unsigned char *bytes;
};

/* The records a reader hands out, copied; returns how many, or -1. */
static long read_all(struct prec_reader *r, struct rec **ret)
{
	struct prec_record rec;
	struct rec *v = NULL;
	long n = 0;
	int rc;

	while ((rc = prec_reader__next(r, &rec)) == 1) {
		v = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!v)
			abort();
		v[n].type = rec.type;
		v[n].misc = rec.misc;
		v[n].size = rec.size;
		v[n].bytes = malloc(rec.size);
		if (!v[n].bytes)
			abort();
		memcpy(v[n].bytes, rec.data, rec.size);
		n++;
	}
	*ret = v;
	return rc == 0 ? n : -1;
}

static void free_recs(struct rec *v, long n)
{
	while (n-- > 0)
		free(v[n].bytes);
	free(v);
}

static bool dropped(uint32_t type)
{
	return type == PREC_REC_HEADER_ATTR || type == PREC_REC_HEADER_FEATURE ||
	       type == PREC_REC_COMPRESSED || type == PREC_REC_HEADER_BUILD_ID;
}

/* Convert the input at `in` into a new file `out`, opened for reading in *ret_out. */
static int convert(const char *in, struct prec_convert_stats *st, char *out, size_t len,
		   struct prec_reader **ret_out)
{
	struct prec_reader *r;
	int fd, err;

	check(prec_reader__open(in, &r));
	fd = tap_mkstemp(out, len, "convert-out");
	err = prec_convert_to_file(r, fd, st);
	prec_reader__free(r);
	close(fd);
	if (!err)
		check(prec_reader__open(out, ret_out));
	return err;
}

/* Records of `in` (all but the dropped ones) equal the output's, in order. */
static int compare_records(const char *in, struct prec_reader *out, bool false_bid)
{
	struct prec_reader *r;
	struct rec *a, *b;
	long na, nb, i, j = 0;
	int fails = 0;

	check(prec_reader__open(in, &r));
	na = read_all(r, &a);
	prec_reader__free(r);
	nb = read_all(out, &b);
	if (na < 0 || nb < 0) {
		diag("reading failed: %ld, %ld", na, nb);
		return 1;
	}
	for (i = 0; i < na; i++) {
		uint16_t misc = a[i].misc;

		if (dropped(a[i].type))
			continue;
		if (false_bid && a[i].type == PERF_RECORD_MMAP2 && a[i].bytes[40] == 254) {
			misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
			memcpy(a[i].bytes + 4, &misc, 2);
			false_bid = false;
		}
		if (j >= nb || b[j].size != a[i].size ||
		    memcmp(b[j].bytes, a[i].bytes, a[i].size)) {
			if (fails++ < 3)
				diag("input record %ld (type %u) is not output record %ld", i,
				     a[i].type, j);
		}
		j++;
	}
	if (j != nb && fails++ < 3)
		diag("%ld records kept, the output has %ld", j, nb);
	if (false_bid && fails++ < 3)
		diag("no false build-id in the input");
	free_recs(a, na);
	free_recs(b, nb);
	return fails;
}

/* BUILD_ID entries: count, and whether `name` has `id`. */
static int count_build_ids(struct prec_reader *r, const char *name, const uint8_t *id,
			   bool *ret_found)
{
	const unsigned char *p;
	size_t len = 0, off = 0;
	int n = 0;

	p = prec_reader__feature(r, PREC_FEAT_BUILD_ID, &len);
	*ret_found = false;
	while (p && off + 36 <= len) {
		struct perf_event_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < 36 || h.size > len - off || (h.size - 36) % 64)
			return -1;
		if (name && !strcmp((const char *)p + off + 36, name) && p[off + 32] == 20 &&
		    !memcmp(p + off + 12, id, 20) && (h.misc & 0x8000))
			*ret_found = true;
		off += h.size;
		n++;
	}
	return off == len ? n : -1;
}

static void test_stream(int level)
{
	char in[4096], out[4096];
	struct prec_convert_stats st;
	struct prec_reader *r;
	const uint64_t *v;
	struct stat sb;
	size_t len, i;
	bool found;
	int fd, n;

	fd = write_input(level, PERF_TYPE_HARDWARE, in, sizeof(in));
	if (!level)
		plant_false_build_id(fd);
	close(fd);
	if (!ok(convert(in, &st, out, sizeof(out), &r) == 0, "zstd %d: converts", level))
		return;
	ok(!prec_reader__is_pipe(r) && !prec_reader__truncated(r), "zstd %d: file form",
	   level);
	ok(compare_records(in, r, !level) == 0,
	   "zstd %d: every record kept, in order, byte for byte%s", level,
	   level ? "" : " (the false build-id flag cleared)");
	is_u64(st.samples, 10, "zstd %d: 10 samples counted", level);
	is_u64(st.mmap2_fixed, level ? 0 : 1, "zstd %d: false build-ids repaired", level);
	ok(!st.truncated && !st.cut_short, "zstd %d: not cut", level);
	n = (int)prec_reader__nr_evsels(r);
	for (i = 0; i < 2 && n == 2; i++) {
		const struct prec_evsel *e = prec_reader__evsel(r, i);

		ok(e->attr.size == PREC_ATTR_SIZE && e->nr_ids == 2 &&
		       !memcmp(e->ids, ids[i], sizeof(ids[i])) && !strcmp(e->name, names[i]) &&
		       e->attr.config == i,
		   "zstd %d: event %zu: attr, ids and name '%s'", level, i, e->name);
	}
	is_u64((uint64_t)n, 2, "zstd %d: two events", level);
	v = prec_reader__feature(r, PREC_FEAT_SAMPLE_TIME, &len);
	ok(v && len == 16 && v[0] == 4910 && v[1] == 5000,
	   "zstd %d: SAMPLE_TIME is the first and last sample time", level);
	ok(prec_reader__feature(r, PREC_FEAT_HOSTNAME, NULL) &&
	       prec_reader__feature(r, PREC_FEAT_VERSION, NULL) &&
	       !prec_reader__feature(r, PREC_FEAT_COMPRESSED, NULL),
	   "zstd %d: HOSTNAME and VERSION copied, no COMPRESSED", level);
	n = count_build_ids(r, "/lib/libgood.so", good_bid, &found);
	ok(n == 1 && found && st.build_ids == 1,
	   "zstd %d: BUILD_ID has the one true build-id, once (%d entries)", level, n);
	ok(!prec_reader__cut_short(r), "zstd %d: a converted file is never 'cut short'", level);
	prec_reader__free(r);
	unlink(out);

	/* without the end marker (32 bytes) and the FINISHED_ROUND before it */
	if (stat(in, &sb) || truncate(in, sb.st_size - 40))
		abort();
	if (ok(convert(in, &st, out, sizeof(out), &r) == 0, "zstd %d: a cut stream converts",
	       level)) {
		ok(st.cut_short && !st.truncated && st.samples == 10,
		   "zstd %d: 10 samples, said to be cut short", level);
		prec_reader__free(r);
		unlink(out);
	}
	/* inside the header: no record at all, which the file form cannot say */
	if (truncate(in, 200))
		abort();
	ok(convert(in, &st, out, sizeof(out), &r) == -ENODATA,
	   "zstd %d: a stream cut in its header is -ENODATA", level);
	unlink(out);
	unlink(in);
}

static void test_perf_file(void)
{
	const char *srcdir = getenv("srcdir");
	char in[4096], out[4096];
	struct prec_convert_stats st;
	struct prec_reader *r, *orig;
	bool found;
	int n, n0;

	snprintf(in, sizeof(in), "%s/tests/data/perf-file-small.data",
		 srcdir && srcdir[0] ? srcdir : ".");
	if (!ok(convert(in, &st, out, sizeof(out), &r) == 0, "perf's file form converts"))
		return;
	ok(compare_records(in, r, false) == 0, "perf file: every record kept, byte for byte");
	check(prec_reader__open(in, &orig));
	n0 = count_build_ids(orig, NULL, NULL, &found);
	n = count_build_ids(r, NULL, NULL, &found);
	ok(n0 > 0 && n == n0, "perf file: its %d BUILD_ID entries carried over (%d)", n0, n);
	ok(prec_reader__feature(r, PREC_FEAT_CMDLINE, NULL) && !st.cut_short,
	   "perf file: CMDLINE copied; not said to be cut");
	prec_reader__free(orig);
	prec_reader__free(r);
	unlink(out);
}

static void test_tracepoint(void)
{
	char in[4096], out[4096];
	struct prec_convert_stats st;
	struct prec_reader *r = NULL;

	close(write_input(0, PERF_TYPE_TRACEPOINT, in, sizeof(in)));
	ok(convert(in, &st, out, sizeof(out), &r) == -EOPNOTSUPP,
	   "a tracepoint event is refused with -EOPNOTSUPP");
	unlink(out);
	unlink(in);
}

static void quiet_log(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)msg;
	(void)ctx;
}

int main(void)
{
	prec_log_set_fn(quiet_log, NULL);
	test_stream(0);
	test_stream(1);
	test_perf_file();
	test_tracepoint();
	return done_testing();
}
