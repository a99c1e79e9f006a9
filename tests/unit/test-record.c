/* SPDX-License-Identifier: MIT */
/*
 * Tests of the record decoders (lib/data/prec_record.c): each one against a record built
 * byte by byte from the layouts of the reference (shared/reference/perf-data-format.md),
 * every field checked; then every truncation of that record is -EBADMSG, both cut short of
 * its header's size and with a header that claims fewer bytes than the fixed body, a record
 * of another type is refused, and variable parts (names, ids, read values) that do not fit
 * are refused.  Truncated records are copied into heap blocks of exactly their size, so
 * ASan or valgrind catch any read past the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_record.h"
#include "prec_sample.h"
#include "tap.h"

static unsigned char buf[256];
static size_t len; /* bytes of the record being built in buf */

static void begin(uint32_t type, uint16_t misc)
{
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	len = 8;
}

static void put(const void *p, size_t n)
{
	memcpy(buf + len, p, n);
	len += n;
}

static void put32(uint32_t v)
{
	put(&v, 4);
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

/* A string with its NUL, padded with NULs to a multiple of `align`. */
static void put_str(const char *s, size_t align)
{
	size_t n = strlen(s) + 1;

	put(s, n);
	len += (align - n % align) % align;
}

/* Set the header's size to the bytes built so far, and return it. */
static size_t end(void)
{
	uint16_t n = (uint16_t)len;

	memcpy(buf + 6, &n, 2);
	return len;
}

/* The decoders, to be run by truncations() */
enum decoder {
	D_MMAP,
	D_COMM,
	D_FORK,
	D_LOST,
	D_LOST_SAMPLES,
	D_THROTTLE,
	D_SWITCH,
	D_READ,
	D_BUILD_ID,
	D_ATTR,
	D_FEATURE,
	D_EVENT_UPDATE,
	D_OOB,
	D_ID_INDEX,
};

static uint64_t read_format; /* for D_READ */

static int decode(enum decoder d, const void *r, size_t n)
{
	union prec_rec_body u;

	switch (d) {
	case D_MMAP:
		return prec_rec_mmap__parse(r, n, &u.mmap);
	case D_COMM:
		return prec_rec_comm__parse(r, n, &u.comm);
	case D_FORK:
		return prec_rec_fork__parse(r, n, &u.fork);
	case D_LOST:
		return prec_rec_lost__parse(r, n, &u.lost);
	case D_LOST_SAMPLES:
		return prec_rec_lost_samples__parse(r, n, &u.v);
	case D_THROTTLE:
		return prec_rec_throttle__parse(r, n, &u.throttle);
	case D_SWITCH:
		return prec_rec_switch__parse(r, n, &u.sw);
	case D_READ:
		return prec_rec_read__parse(r, n, read_format, &u.read);
	case D_BUILD_ID:
		return prec_rec_build_id__parse(r, n, &u.bid);
	case D_ATTR:
		return prec_rec_attr__parse(r, n, &u.attr);
	case D_FEATURE:
		return prec_rec_feature__parse(r, n, &u.feature);
	case D_EVENT_UPDATE:
		return prec_rec_event_update__parse(r, n, &u.update);
	case D_OOB:
		return prec_rec_oob__parse(r, n, &u.v);
	case D_ID_INDEX:
		return prec_rec_id_index__parse(r, n, &u.id_index);
	}
	return -EINVAL;
}

/* The record in `rec` (`n` bytes, its header says so) through decoder `d` from a heap copy of
 * exactly `size` bytes whose header says `hsize`. */
static int run(enum decoder d, const unsigned char *rec, size_t size, uint16_t hsize)
{
	unsigned char *cut = malloc(size ? size : 1);
	int rc;

	memcpy(cut, rec, size);
	if (size >= 8)
		memcpy(cut + 6, &hsize, 2);
	rc = decode(d, cut, size);
	free(cut);
	return rc;
}

/*
 * Every truncation of the record at `rec` (`n` bytes) is refused: cut short of its header's
 * size, and, below `min` (the fixed body), with a header that claims the shorter size.  A
 * record of another type is refused too.
 */
static void truncations(const char *what, enum decoder d, const unsigned char *rec, size_t n,
			size_t min)
{
	unsigned char other[256];
	uint32_t type = 0x7e;
	int bad = 0, bad_short = 0;
	size_t k;

	for (k = 0; k < n; k++)
		bad += run(d, rec, k, (uint16_t)n) == -EBADMSG;
	for (k = 8; k < min; k++)
		bad_short += run(d, rec, k, (uint16_t)k) == -EBADMSG;
	ok(bad == (int)n, "%s: every cut of the %zu bytes is -EBADMSG (%d)", what, n, bad);
	ok(bad_short == (int)(min - 8), "%s: a header shorter than %zu bytes is -EBADMSG (%d)",
	   what, min, bad_short);
	memcpy(other, rec, n);
	memcpy(other, &type, 4);
	ok(decode(d, other, n) == -EBADMSG, "%s: a record of another type is -EBADMSG", what);
}

/*
 * prec_rec_mmap__parse against the byte layout of the reference (section 5.3): both forms of
 * the 24-byte union, a trailer after the name, and every truncation refused.
 */
static void test_mmap2(void)
{
	struct perf_event_header h = {PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 112};
	uint32_t u32[2] = {3695, 3696};
	uint64_t u64[5] = {0x55cbc2fce000ULL, 0x5000, 0x2000, 248056, 77};
	struct prec_mmap2 m;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &h, 8);
	memcpy(buf + 8, u32, 8);
	memcpy(buf + 16, u64, 24);
	u32[0] = 0xfe;
	u32[1] = 1;
	memcpy(buf + 40, u32, 8);
	memcpy(buf + 48, u64 + 3, 16);
	u32[0] = 5;
	u32[1] = 2;
	memcpy(buf + 64, u32, 8);
	memcpy(buf + 72, "/usr/bin/sleep", 15); /* 16 bytes with padding, then a trailer */
	ok(prec_rec_mmap__parse(buf, 112, &m) == 0 && m.pid == 3695 && m.tid == 3696 &&
	       m.addr == 0x55cbc2fce000ULL && m.len == 0x5000 && m.pgoff == 0x2000 &&
	       m.maj == 0xfe && m.min == 1 && m.ino == 248056 && m.ino_generation == 77 &&
	       !m.has_build_id && m.prot == 5 && m.flags == 2 &&
	       !strcmp(m.filename, "/usr/bin/sleep"),
	   "MMAP2 with device and inode: every field");
	h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memcpy(buf, &h, 8);
	memset(buf + 40, 0, 24);
	buf[40] = 20;
	buf[44] = 0xab;
	buf[63] = 0xcd;
	ok(prec_rec_mmap__parse(buf, 112, &m) == 0 && m.has_build_id && m.build_id_size == 20 &&
	       m.build_id[0] == 0xab && m.build_id[19] == 0xcd && m.ino == 0,
	   "MMAP2 with a build-id: its size and bytes");
	ok(prec_rec_mmap__parse(buf, 136, &m) == 0, "a longer buffer: the header's size counts");
	/* the flag over device and inode, as a kernel bug writes it for other listeners */
	u32[0] = 0xfe;
	u32[1] = 1;
	memcpy(buf + 40, u32, 8);
	memcpy(buf + 48, u64 + 3, 16);
	ok(prec_rec_mmap__parse(buf, 112, &m) == 0 && !m.has_build_id && m.maj == 0xfe &&
	       m.min == 1 && m.ino == 248056 && m.ino_generation == 77,
	   "the build-id flag over device 254 (size byte 254): device and inode");
	u32[0] = 0x103; /* 259: size byte 3, a reserved byte 1 */
	memcpy(buf + 40, u32, 4);
	ok(prec_rec_mmap__parse(buf, 112, &m) == 0 && !m.has_build_id && m.maj == 0x103,
	   "the build-id flag over device 259 (reserved byte 1): device and inode");
	u32[0] = 0; /* overlayfs, btrfs: major 0, size byte 0 */
	memcpy(buf + 40, u32, 4);
	ok(prec_rec_mmap__parse(buf, 112, &m) == 0 && !m.has_build_id && m.maj == 0 && m.min == 1,
	   "the build-id flag over device 0:1 (size byte 0): device and inode");
	memset(buf + 40, 0, 24);
	buf[40] = 20;
	buf[44] = 0xab;
	buf[63] = 0xcd;
	truncations("MMAP2", D_MMAP, buf, 112, 73);
	memset(buf + 72, 'x', 40);
	ok(prec_rec_mmap__parse(buf, 112, &m) == -EBADMSG, "a name without its NUL: -EBADMSG");
}

static void test_mmap(void)
{
	struct prec_mmap2 m;
	size_t n;

	begin(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put32(77);
	put32(78);
	put64(0x400000);
	put64(0x1000);
	put64(0x2000);
	put_str("/bin/true", 8);
	put64(99); /* trailer */
	n = end();
	ok(prec_rec_mmap__parse(buf, n, &m) == 0 && m.pid == 77 && m.tid == 78 &&
	       m.addr == 0x400000 && m.len == 0x1000 && m.pgoff == 0x2000 && !m.ino &&
	       !m.has_build_id && !strcmp(m.filename, "/bin/true"),
	   "MMAP: every field, no file identity");
	truncations("MMAP", D_MMAP, buf, n, 41);
	memset(buf + 40, 'x', n - 40);
	ok(prec_rec_mmap__parse(buf, n, &m) == -EBADMSG, "MMAP: a name without its NUL: -EBADMSG");
}

static void test_comm(void)
{
	struct prec_rec_comm c;
	size_t n;

	begin(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(10);
	put32(11);
	put_str("bash", 8);
	put64(1234); /* trailer */
	n = end();
	ok(prec_rec_comm__parse(buf, n, &c) == 0 && c.pid == 10 && c.tid == 11 && c.exec &&
	       !strcmp(c.comm, "bash"),
	   "COMM: pid, tid, exec, name");
	truncations("COMM", D_COMM, buf, n, 17);
	memset(buf + 16, 'x', n - 16);
	ok(prec_rec_comm__parse(buf, n, &c) == -EBADMSG, "COMM: a name without its NUL: -EBADMSG");
}

static void test_fork(void)
{
	struct prec_rec_fork f;
	size_t n;

	begin(PERF_RECORD_EXIT, 0);
	put32(1);
	put32(2);
	put32(3);
	put32(4);
	put64(5555);
	n = end();
	ok(prec_rec_fork__parse(buf, n, &f) == 0 && f.exit && f.pid == 1 && f.ppid == 2 &&
	       f.tid == 3 && f.ptid == 4 && f.time == 5555,
	   "EXIT: pid, ppid, tid, ptid, time");
	truncations("EXIT", D_FORK, buf, n, 32);
	begin(PERF_RECORD_FORK, 0);
	put32(1);
	put32(2);
	put32(3);
	put32(4);
	put64(5555);
	n = end();
	ok(prec_rec_fork__parse(buf, n, &f) == 0 && !f.exit && f.ptid == 4, "FORK: its fields");
}

static void test_lost(void)
{
	struct prec_rec_lost l;
	uint64_t v = 0;
	size_t n;

	begin(PERF_RECORD_LOST, 0);
	put64(54);
	put64(31);
	n = end();
	ok(prec_rec_lost__parse(buf, n, &l) == 0 && l.id == 54 && l.lost == 31, "LOST: id, lost");
	truncations("LOST", D_LOST, buf, n, 24);
	begin(PERF_RECORD_LOST_SAMPLES, 0);
	put64(17);
	put64(0); /* trailer */
	n = end();
	ok(prec_rec_lost_samples__parse(buf, n, &v) == 0 && v == 17, "LOST_SAMPLES: lost");
	truncations("LOST_SAMPLES", D_LOST_SAMPLES, buf, n, 16);
}

static void test_throttle_switch(void)
{
	struct prec_rec_throttle t;
	struct prec_rec_switch s;
	size_t n;

	begin(PERF_RECORD_UNTHROTTLE, 0);
	put64(100);
	put64(54);
	put64(55);
	n = end();
	ok(prec_rec_throttle__parse(buf, n, &t) == 0 && t.unthrottle && t.time == 100 &&
	       t.id == 54 && t.stream_id == 55,
	   "UNTHROTTLE: time, id, stream id");
	truncations("UNTHROTTLE", D_THROTTLE, buf, n, 32);
	begin(PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	put32(40);
	put32(41);
	n = end();
	ok(prec_rec_switch__parse(buf, n, &s) == 0 && s.out && s.cpu_wide &&
	       s.next_prev_pid == 40 && s.next_prev_tid == 41,
	   "SWITCH_CPU_WIDE: out, the other task");
	truncations("SWITCH_CPU_WIDE", D_SWITCH, buf, n, 16);
	begin(PERF_RECORD_SWITCH, 0);
	n = end();
	ok(prec_rec_switch__parse(buf, n, &s) == 0 && !s.out && !s.cpu_wide && !s.next_prev_pid,
	   "SWITCH: a header alone, in");
}

static void test_read(void)
{
	struct prec_rec_read r;
	size_t n;

	read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	begin(PERF_RECORD_READ, 0);
	put32(7);
	put32(8);
	put64(12345); /* value, enabled, id */
	put64(999);
	put64(54);
	n = end();
	ok(prec_rec_read__parse(buf, n, read_format, &r) == 0 && r.pid == 7 && r.tid == 8 &&
	       r.value == 12345 && r.values_size == 24,
	   "READ: pid, tid, the count, the block's size");
	truncations("READ", D_READ, buf, n, 40);

	read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	begin(PERF_RECORD_READ, 0);
	put32(7);
	put32(8);
	put64(2); /* nr, then {value, id} x 2 */
	put64(10);
	put64(54);
	put64(20);
	put64(55);
	n = end();
	ok(prec_rec_read__parse(buf, n, read_format, &r) == 0 && r.value == 0 &&
	       r.values_size == 40,
	   "READ of a group: the block's size, no single count");
	truncations("READ of a group", D_READ, buf, n, 56);
	memset(buf + 16, 0xff, 8); /* nr = 2^64 - 1 */
	ok(prec_rec_read__parse(buf, n, read_format, &r) == -EBADMSG,
	   "READ of a group: an absurd count is -EBADMSG");
}

/* A HEADER_BUILD_ID record (or feature entry of `type`) for a 16-byte id at buf + at. */
static size_t build_id_rec(uint32_t type, uint16_t misc, uint8_t size, const char *name)
{
	uint8_t id[PREC_BUILD_ID_SIZE] = {0}, rest[4] = {size, 0, 0, 0};
	int i;

	for (i = 0; i < 16; i++)
		id[i] = (uint8_t)(0xa0 + i);
	begin(type, misc);
	put32((uint32_t)-1);
	put(id, sizeof(id));
	put(rest, 4);
	put_str(name, 64);
	return end();
}

static void test_build_id(void)
{
	struct prec_rec_build_id b;
	unsigned char feat[512];
	size_t n, n1, off = 0;
	int r1, r2, r3, r4;

	n = build_id_rec(PREC_REC_HEADER_BUILD_ID, PERF_RECORD_MISC_USER | PREC_MISC_BUILD_ID_SIZE,
			 16, "/usr/lib/libc.so.6");
	ok(prec_rec_build_id__parse(buf, n, &b) == 0 && b.pid == -1 &&
	       b.cpumode == PERF_RECORD_MISC_USER && b.size == 16 && b.id[0] == 0xa0 &&
	       b.id[15] == 0xaf && b.id[16] == 0 && !strcmp(b.filename, "/usr/lib/libc.so.6"),
	   "HEADER_BUILD_ID: pid, cpumode, size, id, name");
	truncations("HEADER_BUILD_ID", D_BUILD_ID, buf, n, 37);
	buf[32] = PREC_BUILD_ID_SIZE + 1;
	ok(prec_rec_build_id__parse(buf, n, &b) == -EBADMSG,
	   "HEADER_BUILD_ID: a size above %d bytes is -EBADMSG", PREC_BUILD_ID_SIZE);
	memset(buf + 36, 'x', n - 36);
	ok(prec_rec_build_id__parse(buf, n, &b) == -EBADMSG,
	   "HEADER_BUILD_ID: a name without its NUL: -EBADMSG");
	n = build_id_rec(PREC_REC_HEADER_BUILD_ID, PERF_RECORD_MISC_KERNEL, 0, "[kernel.kallsyms]");
	ok(prec_rec_build_id__parse(buf, n, &b) == 0 && b.size == PREC_BUILD_ID_SIZE &&
	       b.cpumode == PERF_RECORD_MISC_KERNEL,
	   "HEADER_BUILD_ID without the size flag: %d bytes", PREC_BUILD_ID_SIZE);

	/* a feature payload: a good entry, a bad one (size byte 30), a good one */
	n1 = build_id_rec(0, PREC_MISC_BUILD_ID_SIZE, 16, "/a");
	memcpy(feat, buf, n1);
	memcpy(feat + n1, buf, n1);
	feat[n1 + 32] = 30;
	n = build_id_rec(0, PREC_MISC_BUILD_ID_SIZE, 16, "/b");
	memcpy(feat + 2 * n1, buf, n);
	n += 2 * n1;
	r1 = prec_build_id_feature__next(feat, n, &off, &b);
	r2 = prec_build_id_feature__next(feat, n, &off, &b);
	r3 = prec_build_id_feature__next(feat, n, &off, &b);
	ok(r1 == 1 && r2 == -EBADMSG && r3 == 1 && !strcmp(b.filename, "/b") &&
	       prec_build_id_feature__next(feat, n, &off, &b) == 0,
	   "BUILD_ID feature: good, bad (skipped), good, end (%d %d %d)", r1, r2, r3);
	off = 0;
	memset(feat + n1 + 6, 0xff, 2); /* the second entry claims 65535 bytes */
	r1 = prec_build_id_feature__next(feat, n, &off, &b);
	r2 = prec_build_id_feature__next(feat, n, &off, &b);
	r3 = prec_build_id_feature__next(feat, n, &off, &b);
	r4 = prec_build_id_feature__next(feat, n - 3, &off, &b);
	ok(r1 == 1 && r2 == -EBADMSG && r3 == 0 && r4 == 0 && off == n,
	   "BUILD_ID feature: an entry size past the end stops it (%d %d %d)", r1, r2, r3);
	off = 0;
	ok(prec_build_id_feature__next(feat, 5, &off, &b) == -EBADMSG &&
	       prec_build_id_feature__next(feat, 5, &off, &b) == 0 &&
	       prec_build_id_feature__next(NULL, 0, &off, &b) == 0,
	   "BUILD_ID feature: a cut header is -EBADMSG, then the end; no payload is the end");
}

static void test_attr(void)
{
	struct perf_event_attr a;
	struct prec_rec_attr r;
	uint64_t id;
	size_t n;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = PREC_ATTR_SIZE;
	a.sample_type = 0x147;
	begin(PREC_REC_HEADER_ATTR, 0);
	put(&a, PREC_ATTR_SIZE);
	put64(54);
	put64(55);
	n = end();
	ok(prec_rec_attr__parse(buf, n, &r) == 0 && r.attr.type == PERF_TYPE_SOFTWARE &&
	       r.attr.sample_type == 0x147 && r.attr_size == PREC_ATTR_SIZE && r.nr_ids == 2 &&
	       (memcpy(&id, (const unsigned char *)r.ids + 8, 8), id == 55),
	   "HEADER_ATTR: the attr and its ids");
	truncations("HEADER_ATTR", D_ATTR, buf, n, 72);
	a.size = 0;
	memcpy(buf + 8, &a, 8);
	ok(prec_rec_attr__parse(buf, n, &r) == 0 && r.attr_size == 64 && r.nr_ids == 10,
	   "HEADER_ATTR: attr size 0 is 64 bytes");
	a.size = 68;
	memcpy(buf + 8, &a, 8);
	ok(prec_rec_attr__parse(buf, n, &r) == -EBADMSG, "HEADER_ATTR: size 68 is -EBADMSG");
	a.size = 256;
	memcpy(buf + 8, &a, 8);
	ok(prec_rec_attr__parse(buf, n, &r) == -EBADMSG,
	   "HEADER_ATTR: an attr larger than its record is -EBADMSG");
}

static void test_header_records(void)
{
	struct prec_rec_event_update u;
	struct prec_rec_id_index x;
	struct prec_rec_feature f;
	uint64_t v = 0;
	size_t n;

	begin(PREC_REC_HEADER_FEATURE, 0);
	put64(PREC_FEAT_HOSTNAME);
	put("host\0\0\0", 8);
	n = end();
	ok(prec_rec_feature__parse(buf, n, &f) == 0 && f.feat == PREC_FEAT_HOSTNAME && f.len == 8 &&
	       !memcmp(f.data, "host", 5),
	   "HEADER_FEATURE: number and payload");
	truncations("HEADER_FEATURE", D_FEATURE, buf, n, 16);

	begin(PREC_REC_EVENT_UPDATE, 0);
	put64(PREC_EVENT_UPDATE_NAME);
	put64(7);
	put("cycles\0", 8);
	n = end();
	ok(prec_rec_event_update__parse(buf, n, &u) == 0 && u.type == PREC_EVENT_UPDATE_NAME &&
	       u.id == 7 && u.len == 8 && !strcmp(u.data, "cycles"),
	   "EVENT_UPDATE: type, id, data");
	truncations("EVENT_UPDATE", D_EVENT_UPDATE, buf, n, 24);

	begin(PREC_REC_HEADER_TRACING_DATA, 0);
	put32(13);
	put32(0);
	n = end();
	ok(prec_rec_oob__parse(buf, n, &v) == 0 && v == 16,
	   "HEADER_TRACING_DATA: 13 bytes out of band, padded to 16");
	truncations("HEADER_TRACING_DATA", D_OOB, buf, n, 16);
	begin(PREC_REC_AUXTRACE, 0);
	put64(4096);
	put64(0);
	n = end();
	ok(prec_rec_oob__parse(buf, n, &v) == 0 && v == 4096, "AUXTRACE: 4096 bytes out of band");

	begin(PREC_REC_ID_INDEX, 0);
	put64(2);
	for (v = 0; v < 8; v++)
		put64(v);
	n = end();
	ok(prec_rec_id_index__parse(buf, n, &x) == 0 && x.nr == 2, "ID_INDEX: two entries");
	truncations("ID_INDEX", D_ID_INDEX, buf, n, 16);
	v = 3;
	memcpy(buf + 8, &v, 8);
	ok(prec_rec_id_index__parse(buf, n, &x) == -EBADMSG,
	   "ID_INDEX: more entries than the record holds is -EBADMSG");
}

int main(void)
{
	test_mmap();
	test_mmap2();
	test_comm();
	test_fork();
	test_lost();
	test_throttle_switch();
	test_read();
	test_build_id();
	test_attr();
	test_header_records();
	return done_testing();
}
