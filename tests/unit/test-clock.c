/* SPDX-License-Identifier: MIT */
/*
 * A stream's wall clock (lib/data/prec_clock.c): streams written with lib/data's writer into
 * a temporary file, with and without CLOCKID and CLOCK_DATA, read back with the reader, and
 * the mapping checked: the fields, the refusals (no feature, a wrong size or version, an
 * event on another clock or on none), and conversions both ways, exact and saturating.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_clock.h"
#include "prec_reader.h"
#include "prec_writer.h"
#include "tap.h"

#define TOD 1795000000123456789ULL /* 2026-11-18 11:06:40.123456789 UTC */
#define CLK 2163520525077ULL

struct spec {
	bool clock_data;
	uint32_t version, clockid;
	size_t len; /* of the CLOCK_DATA payload */
	bool use_clockid;
	int attr_clockid;
	bool clockid_feature;
};

/* Write a stream as spec says, read its header back, and return its mapping. */
static int clock_of(const struct spec *sp, struct prec_clock *ret)
{
	char path[] = "/tmp/test-clock.XXXXXX";
	struct perf_event_attr attr;
	struct prec_writer *w = NULL;
	struct prec_reader *r = NULL;
	unsigned char cd[32] = {0};
	uint64_t id = 1, tod = TOD, clk = CLK, res = 1;
	int fd = mkstemp(path), err;

	if (fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	attr.use_clockid = sp->use_clockid;
	attr.clockid = sp->attr_clockid;
	memcpy(cd, &sp->version, 4);
	memcpy(cd + 4, &sp->clockid, 4);
	memcpy(cd + 8, &tod, 8);
	memcpy(cd + 16, &clk, 8);
	err = prec_writer__new(fd, NULL, &w);
	if (!err)
		err = prec_writer__add_attr(w, &attr, &id, 1);
	if (!err && sp->clockid_feature)
		err = prec_writer__add_feature(w, PREC_FEAT_CLOCKID, &res, sizeof(res));
	if (!err && sp->clock_data)
		err = prec_writer__add_feature(w, PREC_FEAT_CLOCK_DATA, cd, sp->len);
	if (!err)
		err = prec_writer__end_header(w);
	if (!err)
		err = prec_writer__finish(w);
	prec_writer__free(w);
	close(fd);
	if (!err)
		err = prec_reader__open(path, &r);
	if (!err)
		err = prec_reader__read_header(r);
	if (!err)
		err = prec_clock__from_stream(r, ret);
	prec_reader__free(r);
	unlink(path);
	return err;
}

static void test_features(void)
{
	const struct spec good = {true, 1, CLOCK_MONOTONIC, 24, true, CLOCK_MONOTONIC, true};
	struct spec sp;
	struct prec_clock c;
	int err;

	memset(&c, 0, sizeof(c));
	err = clock_of(&good, &c);
	if (ok(err == 0, "CLOCKID and CLOCK_DATA are read (%d)", err)) {
		is_u64((uint64_t)c.clockid, CLOCK_MONOTONIC, "clockid");
		is_u64(c.res_ns, 1, "resolution from CLOCKID");
		is_u64(c.tod_ns, TOD, "wall-clock time");
		is_u64(c.clock_ns, CLK, "the same moment on the clock");
	}
	sp = good;
	sp.clockid_feature = false;
	err = clock_of(&sp, &c);
	ok(err == 0 && c.res_ns == 0, "CLOCK_DATA without CLOCKID: resolution 0 (%d)", err);

	sp = good;
	sp.clock_data = false;
	is_u64((uint64_t)-clock_of(&sp, &c), ENODATA, "no CLOCK_DATA: -ENODATA");
	sp = good;
	sp.version = 2;
	is_u64((uint64_t)-clock_of(&sp, &c), EBADMSG, "CLOCK_DATA version 2: -EBADMSG");
	sp = good;
	sp.len = 20;
	is_u64((uint64_t)-clock_of(&sp, &c), EBADMSG, "CLOCK_DATA of 20 bytes: -EBADMSG");
	sp = good;
	sp.len = 32;
	is_u64((uint64_t)-clock_of(&sp, &c), EBADMSG, "CLOCK_DATA of 32 bytes: -EBADMSG");
	sp = good;
	sp.use_clockid = false;
	sp.attr_clockid = 0;
	is_u64((uint64_t)-clock_of(&sp, &c), EBADMSG,
	       "an event without use_clockid cannot be mapped: -EBADMSG");
	sp = good;
	sp.attr_clockid = CLOCK_BOOTTIME;
	is_u64((uint64_t)-clock_of(&sp, &c), EBADMSG,
	       "an event on another clock than CLOCK_DATA's: -EBADMSG");
	sp = good;
	sp.clockid = CLOCK_BOOTTIME;
	sp.attr_clockid = CLOCK_BOOTTIME;
	err = clock_of(&sp, &c);
	ok(err == 0 && c.clockid == CLOCK_BOOTTIME, "boottime on both sides is fine (%d)", err);
}

static void test_conversions(void)
{
	struct prec_clock c = {CLOCK_MONOTONIC, 1, TOD, CLK};
	struct prec_clock small = {CLOCK_MONOTONIC, 1, 5, 1000};
	struct prec_clock late = {CLOCK_MONOTONIC, 1, 5, UINT64_MAX - 10};

	is_u64(prec_clock__wall(&c, CLK), TOD, "the reference moment maps to its wall time");
	is_u64(prec_clock__wall(&c, CLK + 2500000000ULL), TOD + 2500000000ULL,
	       "2.5 s later on the clock is 2.5 s later on the wall");
	is_u64(prec_clock__wall(&c, CLK - 7), TOD - 7, "7 ns earlier");
	is_u64(prec_clock__time(&c, TOD + 42), CLK + 42, "wall to clock, later");
	is_u64(prec_clock__time(&c, TOD - 42), CLK - 42, "wall to clock, earlier");
	is_u64(prec_clock__time(&c, prec_clock__wall(&c, 123456789)), 123456789, "round trip");
	is_u64(prec_clock__wall(&c, UINT64_MAX), UINT64_MAX, "wall saturates at the top");
	is_u64(prec_clock__time(&c, 0), 0, "a wall time long before the clock's start is 0");
	is_u64(prec_clock__time(&late, 100), UINT64_MAX, "clock saturates at the top");
	is_u64(prec_clock__wall(&small, 0), 0, "a time before the epoch on the wall is 0");
	is_u64(prec_clock__wall(&small, 996), 1, "just after the epoch");
}

int main(void)
{
	test_features();
	test_conversions();
	return done_testing();
}
