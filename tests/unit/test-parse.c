/* SPDX-License-Identifier: MIT */
/*
 * lib/util/prec_parse: sizes, perf's -m, durations, --switch-output, --min-free and
 * wall-clock times, each with values that must parse to an exact result and strings that
 * must be refused with -EINVAL (wrong shape) or -ERANGE (too big, before the epoch).  Times
 * are checked in UTC and in a zone with daylight saving time, set through TZ, against a fixed
 * "now", so the results do not depend on the machine or the day.
 */
#include <time.h>

#include "prec_parse.h"
#include "tap.h"

#define NS 1000000000ULL
#define MS 1000000ULL
#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)
#define TiB (1024ULL * GiB)

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int err = prec_parse_size(s, &v);

	if (ok(!err, "size \"%s\" parses (%d)", s, err))
		is_u64(v, want, "size \"%s\"", s);
}

static void size_bad(const char *s, int want)
{
	uint64_t v = 12345;
	int err = prec_parse_size(s, &v);

	ok(err == want && v == 12345, "size \"%s\" refused with %d (got %d), *ret untouched", s,
	   want, err);
}

static void test_sizes(void)
{
	size_ok("0", 0);
	size_ok("512", 512);
	size_ok("512B", 512);
	size_ok("64K", 64 * KiB);
	size_ok("64k", 64 * KiB);
	size_ok("8M", 8 * MiB);
	size_ok("8m", 8 * MiB);
	size_ok("8MB", 8 * MiB);
	size_ok("8MiB", 8 * MiB);
	size_ok("1G", GiB);
	size_ok("1.5G", GiB + GiB / 2);
	size_ok("0.5K", 512);
	size_ok("1.3K", 1331); /* 1331.2 truncated */
	size_ok("2T", 2 * TiB);
	size_ok("16777215T", 16777215 * TiB);
	size_ok("18446744073709551615", UINT64_MAX);

	size_bad("", -EINVAL);
	size_bad("M", -EINVAL);
	size_bad("8 M", -EINVAL);
	size_bad(" 8M", -EINVAL);
	size_bad("8M ", -EINVAL);
	size_bad("-8M", -EINVAL);
	size_bad("+8M", -EINVAL);
	size_bad("8X", -EINVAL);
	size_bad("8MM", -EINVAL);
	size_bad("8Mb", -EINVAL);
	size_bad("8ib", -EINVAL);
	size_bad("8iB", -EINVAL);
	size_bad("1.5", -EINVAL);
	size_bad("1.5B", -EINVAL);
	size_bad("1.", -EINVAL);
	size_bad(".5K", -EINVAL);
	size_bad("1.0000000001G", -EINVAL);
	size_bad("0x10", -EINVAL);
	size_bad("16777216T", -ERANGE);
	size_bad("18446744073709551616", -ERANGE);
	size_bad("99999999999999999999999K", -ERANGE);
	ok(prec_parse_size(NULL, &(uint64_t){ 0 }) == -EINVAL, "size NULL refused");
}

static void pages_ok(const char *s, uint64_t page, uint64_t want, bool want_rounded)
{
	uint64_t v = 0;
	bool rounded = !want_rounded;
	int err = prec_parse_mmap_pages(s, page, &v, &rounded);

	if (ok(!err, "-m \"%s\" parses (%d)", s, err)) {
		is_u64(v, want, "-m \"%s\" pages", s);
		ok(rounded == want_rounded, "-m \"%s\" rounded is %d", s, want_rounded);
	}
}

static void test_mmap_pages(void)
{
	uint64_t v = 7;

	pages_ok("8", 4096, 8, false);
	pages_ok("3", 4096, 4, true);
	pages_ok("1", 4096, 1, false);
	pages_ok("8M", 4096, 2048, false);
	pages_ok("64K", 4096, 16, false);
	pages_ok("100K", 4096, 32, true); /* 25 pages, then a power of two */
	pages_ok("5000B", 4096, 2, true);
	pages_ok("1", 65536, 1, false);
	pages_ok("2147483648", 4096, 1ULL << 31, false);
	ok(prec_parse_mmap_pages("0", 4096, &v, NULL) == -EINVAL && v == 7, "-m 0 refused");
	ok(prec_parse_mmap_pages("0K", 4096, &v, NULL) == -EINVAL, "-m 0K refused");
	ok(prec_parse_mmap_pages("1.5", 4096, &v, NULL) == -EINVAL, "-m 1.5 (pages) refused");
	ok(prec_parse_mmap_pages("8Q", 4096, &v, NULL) == -EINVAL, "-m 8Q refused");
	ok(prec_parse_mmap_pages("2147483649", 4096, &v, NULL) == -ERANGE,
	   "-m beyond 2^31 pages refused");
	ok(prec_parse_mmap_pages("16383T", 4096, &v, NULL) == -ERANGE, "-m 16383T refused");
	ok(prec_parse_mmap_pages("8", 3000, &v, NULL) == -EINVAL, "a page size not 2^n refused");
	ok(prec_parse_mmap_pages("8", 0, &v, NULL) == -EINVAL && v == 7, "page size 0 refused");
}

static void dur_ok(const char *s, uint64_t want_ns)
{
	uint64_t v = 0;
	int err = prec_parse_duration_ns(s, &v);

	if (ok(!err, "duration \"%s\" parses (%d)", s, err))
		is_u64(v, want_ns, "duration \"%s\" in ns", s);
}

static void dur_bad(const char *s, int want)
{
	uint64_t v = 99;
	int err = prec_parse_duration_ns(s, &v);

	ok(err == want && v == 99, "duration \"%s\" refused with %d (got %d)", s, want, err);
}

static void test_durations(void)
{
	uint64_t ms = 0;

	dur_ok("0", 0);
	dur_ok("30", 30 * NS);
	dur_ok("30s", 30 * NS);
	dur_ok("10m", 600 * NS);
	dur_ok("10min", 600 * NS);
	dur_ok("1h", 3600 * NS);
	dur_ok("2d", 2 * 86400 * NS);
	dur_ok("500ms", 500 * MS);
	dur_ok("250us", 250000);
	dur_ok("7ns", 7);
	dur_ok("1.5h", 5400 * NS);
	dur_ok("0.25", 250 * MS);
	dur_ok("0.000000001", 1);
	dur_ok("213503d", 213503ULL * 86400 * NS);

	dur_bad("", -EINVAL);
	dur_bad("s", -EINVAL);
	dur_bad("10M", -EINVAL); /* a size, not a duration */
	dur_bad("10 s", -EINVAL);
	dur_bad("10sec", -EINVAL);
	dur_bad("1h30m", -EINVAL);
	dur_bad("-5s", -EINVAL);
	dur_bad("5S", -EINVAL);
	dur_bad("0.0000000001", -EINVAL);
	dur_bad("213504d", -ERANGE);
	dur_bad("18446744074s", -ERANGE);

	ok(!prec_parse_duration_ms("1500us", &ms) && ms == 2, "1500us is 2 ms, rounded up");
	ok(!prec_parse_duration_ms("10m", &ms) && ms == 600000, "10m is 600000 ms");
	ok(!prec_parse_duration_ms("0", &ms) && ms == 0, "0 is 0 ms");
	ok(prec_parse_duration_ms("x", &ms) == -EINVAL && ms == 0, "x is not a duration in ms");
}

static void switch_ok(const char *s, uint64_t time_ms, uint64_t size, bool sig)
{
	struct prec_switch_spec sp = { 1, 1, !sig };
	int err = prec_parse_switch_output(s, &sp);

	if (ok(!err, "--switch-output=%s parses (%d)", s, err))
		ok(sp.time_ms == time_ms && sp.size_bytes == size && sp.signal_only == sig,
		   "--switch-output=%s: time %" PRIu64 " ms, size %" PRIu64 ", signal %d", s,
		   sp.time_ms, sp.size_bytes, sp.signal_only);
}

static void switch_bad(const char *s, int want)
{
	struct prec_switch_spec sp = { 3, 4, false };
	int err = prec_parse_switch_output(s, &sp);

	ok(err == want && sp.time_ms == 3 && sp.size_bytes == 4,
	   "--switch-output=%s refused with %d (got %d)", s, want, err);
}

static void test_switch_output(void)
{
	switch_ok("signal", 0, 0, true);
	switch_ok("10m", 600000, 0, false);
	switch_ok("30s", 30000, 0, false);
	switch_ok("500ms", 500, 0, false);
	switch_ok("1h", 3600000, 0, false);
	switch_ok("10M", 0, 10 * MiB, false);
	switch_ok("64MiB", 0, 64 * MiB, false);
	switch_ok("1G", 0, GiB, false);
	switch_ok("512B", 0, 512, false);
	switch_ok("10m,256M", 600000, 256 * MiB, false);
	switch_ok("256M,10m", 600000, 256 * MiB, false);
	switch_ok("1.5h,1.5G", 5400000, GiB + GiB / 2, false);

	switch_bad("", -EINVAL);
	switch_bad("signals", -EINVAL);
	switch_bad("SIGNAL", -EINVAL);
	switch_bad("signal,10m", -EINVAL);
	switch_bad("10", -EINVAL); /* perf too: a time or a size? */
	switch_bad("0s", -EINVAL);
	switch_bad("0M", -EINVAL);
	switch_bad("10m,", -EINVAL);
	switch_bad(",10m", -EINVAL);
	switch_bad("10m,20m", -EINVAL);
	switch_bad("10M,20G", -EINVAL);
	switch_bad("10m,256M,1h", -EINVAL);
	switch_bad("10m 256M", -EINVAL);
	switch_bad("10x", -EINVAL);
	switch_bad("10000000000000000000000000000000000s", -EINVAL); /* longer than a term */
	switch_bad("300000000000d", -ERANGE);
	switch_bad("20000000T", -ERANGE);
}

static void test_min_free(void)
{
	struct prec_min_free m = { 1, 1 };

	ok(!prec_parse_min_free("1G", &m) && m.bytes == GiB && m.pct_bp == 0, "--min-free=1G");
	ok(!prec_parse_min_free("5%", &m) && m.bytes == 0 && m.pct_bp == 500, "--min-free=5%%");
	ok(!prec_parse_min_free("2.5%", &m) && m.pct_bp == 250, "--min-free=2.5%%");
	ok(!prec_parse_min_free("0.01%", &m) && m.pct_bp == 1, "--min-free=0.01%%");
	ok(!prec_parse_min_free("99.99%", &m) && m.pct_bp == 9999, "--min-free=99.99%%");
	ok(!prec_parse_min_free("0", &m) && m.bytes == 0 && m.pct_bp == 0, "--min-free=0");
	m = (struct prec_min_free){ 1, 1 };
	ok(prec_parse_min_free("100%", &m) == -ERANGE && m.bytes == 1, "--min-free=100%% refused");
	ok(prec_parse_min_free("250%", &m) == -ERANGE, "--min-free=250%% refused");
	ok(prec_parse_min_free("2.555%", &m) == -EINVAL, "--min-free=2.555%% refused");
	ok(prec_parse_min_free("%", &m) == -EINVAL, "--min-free=%% refused");
	ok(prec_parse_min_free("5 %", &m) == -EINVAL, "--min-free='5 %%' refused");
	ok(prec_parse_min_free("5%%", &m) == -EINVAL, "--min-free=5%%%% refused");
	ok(prec_parse_min_free("5G%", &m) == -EINVAL, "--min-free=5G%% refused");
	ok(prec_parse_min_free("", &m) == -EINVAL, "--min-free='' refused");
	ok(prec_parse_min_free("1Q", &m) == -EINVAL && m.bytes == 1, "--min-free=1Q refused");

	m = (struct prec_min_free){ .pct_bp = 250 };
	is_u64(prec_min_free__bytes(&m, 1000 * MiB), 25 * MiB, "2.5%% of 1000 MiB");
	is_u64(prec_min_free__bytes(&m, UINT64_MAX), UINT64_MAX / 40, "2.5%% of 2^64-1 fits");
	m = (struct prec_min_free){ .bytes = 77 };
	is_u64(prec_min_free__bytes(&m, 1000), 77, "a size is itself");
}

static void use_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void time_ok(const char *s, uint64_t now, uint64_t want)
{
	uint64_t v = 1;
	int err = prec_parse_time(s, now, &v);

	if (ok(!err, "time \"%s\" parses (%d) in TZ=%s", s, err, getenv("TZ")))
		is_u64(v, want, "time \"%s\" in TZ=%s", s, getenv("TZ"));
}

static void time_bad(const char *s, uint64_t now, int want)
{
	uint64_t v = 1;
	int err = prec_parse_time(s, now, &v);

	ok(err == want && v == 1, "time \"%s\" refused with %d (got %d)", s, want, err);
}

static void test_times_utc(void)
{
	const uint64_t now = 1795683600 * NS; /* 2026-11-26 09:00:00 UTC */
	const uint64_t t031005 = 1795662605 * NS;

	use_tz("UTC0");
	time_ok("2026-11-26 03:10:05", now, t031005);
	time_ok("2026-11-26T03:10:05", now, t031005);
	time_ok("2026-11-26T03:10:05Z", now, t031005);
	time_ok("2026-11-26 03:10:05.5", now, t031005 + 500 * MS);
	time_ok("2026-11-26 03:10:05.000000001", now, t031005 + 1);
	time_ok("2026-11-26 03:10", now, t031005 - 5 * NS);
	time_ok("2026-11-26 3:10", now, t031005 - 5 * NS);
	time_ok("2026-11-26", now, 1795651200 * NS);
	time_ok("2026-11-26T04:10:05+01:00", now, t031005);
	time_ok("2026-11-26T04:10:05+0100", now, t031005);
	time_ok("2026-11-26T04:10:05+01", now, t031005);
	time_ok("2026-11-25T22:10:05-05:00", now, t031005);
	time_ok("2000-02-29 12:00:00", now, 951825600 * NS);
	time_ok("1970-01-01 00:00:00", now, 0);
	time_ok("1970-01-01T01:00:00+01:00", now, 0);
	time_ok("03:10:05", now, t031005);
	time_ok("03:10", now, t031005 - 5 * NS);
	time_ok("09:00", now, now); /* now itself is not in the future */
	time_ok("23:50", now, 1795650600 * NS); /* later than now: last night */
	time_ok("00:10", now, 1795651800 * NS);
	time_ok("today", now, 1795651200 * NS);
	time_ok("yesterday", now, 1795564800 * NS);
	time_ok("today 03:10:05", now, t031005);
	time_ok("todayT03:10:05", now, t031005);
	time_ok("today 23:50", now, (1795651200 + 85800) * NS); /* said today: in the future */
	time_ok("yesterday 23:50", now, 1795650600 * NS);
	time_ok("now", now, now);
	time_ok("-2h", now, now - 7200 * NS);
	time_ok("-90s", now, now - 90 * NS);
	time_ok("-90", now, now - 90 * NS);
	time_ok("-1.5d", now, now - 129600 * NS);
	time_ok("@1795662605", now, t031005);
	time_ok("@1795662605.25", now, t031005 + 250 * MS);
	time_ok("@0", now, 0);
	time_ok("@18446744073.709551615", now, UINT64_MAX);

	time_bad("", now, -EINVAL);
	time_bad("yesterdays", now, -EINVAL);
	time_bad("today 25:00", now, -EINVAL);
	time_bad("2026-11-26 03:10:05 ", now, -EINVAL);
	time_bad(" 03:10", now, -EINVAL);
	time_bad("2026-11-26  03:10", now, -EINVAL);
	time_bad("2026-11-26_03:10", now, -EINVAL);
	time_bad("2026-13-01", now, -EINVAL);
	time_bad("2026-02-29", now, -EINVAL); /* not a leap year */
	time_bad("2026-04-31", now, -EINVAL);
	time_bad("2026-11-00", now, -EINVAL);
	time_bad("2026-1-26", now, -EINVAL);
	time_bad("26-11-26", now, -EINVAL);
	time_bad("2026/11/26", now, -EINVAL);
	time_bad("24:00", now, -EINVAL);
	time_bad("03:60", now, -EINVAL);
	time_bad("03:10:60", now, -EINVAL);
	time_bad("03:1", now, -EINVAL);
	time_bad("031:10", now, -EINVAL);
	time_bad("03:10:05.", now, -EINVAL);
	time_bad("03:10:05.0000000001", now, -EINVAL);
	time_bad("03:10Z", now, -EINVAL); /* a zone only after a full date */
	time_bad("2026-11-26T03:10:05+1", now, -EINVAL);
	time_bad("2026-11-26T03:10:05+24:00", now, -EINVAL);
	time_bad("2026-11-26T03:10:05ZZ", now, -EINVAL);
	time_bad("2026-11-26T03:10:05 Z", now, -EINVAL);
	time_bad("-2x", now, -EINVAL);
	time_bad("--2h", now, -EINVAL);
	time_bad("+2h", now, -EINVAL);
	time_bad("@", now, -EINVAL);
	time_bad("@-5", now, -EINVAL);
	time_bad("@1e9", now, -EINVAL);
	time_bad("Now", now, -EINVAL);
	time_bad("1969-12-31 23:59:59", now, -ERANGE);
	time_bad("1970-01-01T00:59:59+01:00", now, -ERANGE);
	time_bad("-60", 59 * NS, -ERANGE);
	time_bad("@18446744073.709551616", now, -ERANGE);
	time_bad("9999-12-31T23:59:59Z", now, -ERANGE);
	ok(prec_parse_time(NULL, now, &(uint64_t){ 0 }) == -EINVAL, "time NULL refused");
}

static void test_times_range(void)
{
	const uint64_t now = 1795683600 * NS; /* 2026-11-26 09:00:00 UTC */
	const uint64_t t2350 = 1795650600 * NS;
	uint64_t since = 0, until = 0;

	use_tz("UTC0");
	ok(!prec_parse_time("23:50", now, &since) &&
		   !prec_parse_time_after("00:10", now, since, &until) && since == t2350 &&
		   until == t2350 + 1200 * NS,
	   "--since 23:50 --until 00:10 spans midnight");
	/* Asked at 03:12, during the range: both ends on the same day. */
	ok(!prec_parse_time("03:10", 1795662720 * NS, &since) &&
		   !prec_parse_time_after("03:15", 1795662720 * NS, since, &until) &&
		   since == 1795662600 * NS && until == 1795662900 * NS,
	   "--since 03:10 --until 03:15 asked at 03:12 stays on one day");
	ok(!prec_parse_time_after("03:10", now, 1795662600 * NS, &until) &&
		   until == 1795662600 * NS,
	   "an end equal to the start is the start");
	ok(!prec_parse_time_after("-1h", now, 0, &until) && until == now - 3600 * NS,
	   "relative ends are relative to now");
	ok(!prec_parse_time_after("2026-11-26 03:10", now, now, &until) &&
		   until == 1795662600 * NS,
	   "a full date is itself, even before the start");
}

static void test_times_zone(void)
{
	/* Central Europe: UTC+1, and UTC+2 from the last Sunday of March to that of October. */
	const uint64_t now = 1795649400 * NS; /* 2026-11-25 23:30 UTC, 2026-11-26 00:30 CET */

	use_tz("CET-1CEST,M3.5.0,M10.5.0/3");
	time_ok("2026-11-26 03:10:05", now, (1795662605 - 3600) * NS);
	time_ok("2026-07-01 12:00", now, 1782900000 * NS); /* summer: UTC+2 */
	time_ok("2026-07-01T10:00:00Z", now, 1782900000 * NS);
	time_ok("today", now, 1795647600 * NS); /* the local day already began */
	time_ok("03:10", now, 1795572600 * NS);	/* later than 00:30 local: yesterday's */
	time_ok("00:15", now, (1795649400 - 900) * NS);
	time_ok("@1795662605", now, 1795662605 * NS);
	time_ok("-2h", now, now - 7200 * NS);
	use_tz("UTC0");
}

/*
 * Random strings over the parsers' alphabet: each parser answers 0, -EINVAL or -ERANGE, and
 * leaves *ret alone unless it answers 0 (run under the sanitizers, this also checks reads).
 */
static void test_random_strings(void)
{
	static const char alphabet[] = "0123456789.:-+ ,%@TZBKMGTkmgtsdhinuo";
	const uint64_t now = 1795683600 * NS;
	unsigned seed = 17, bad = 0, accepted = 0;
	char s[24];

	for (int round = 0; round < 200000; round++) {
		size_t len = (size_t)(rand_r(&seed) % (int)(sizeof(s) - 1));
		struct prec_switch_spec sp = { 7, 7, false };
		struct prec_min_free mf = { 7, 7 };
		uint64_t v[5] = { 7, 7, 7, 7, 7 };
		int err[7];

		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[rand_r(&seed) % (int)(sizeof(alphabet) - 1)];
		s[len] = '\0';
		err[0] = prec_parse_size(s, &v[0]);
		err[1] = prec_parse_mmap_pages(s, 4096, &v[1], NULL);
		err[2] = prec_parse_duration_ns(s, &v[2]);
		err[3] = prec_parse_time(s, now, &v[3]);
		err[4] = prec_parse_time_after(s, now, now - 3600 * NS, &v[4]);
		err[5] = prec_parse_switch_output(s, &sp);
		err[6] = prec_parse_min_free(s, &mf);
		for (int i = 0; i < 7; i++) {
			bool untouched = i < 5	    ? v[i] == 7
					 : i == 5 ? sp.time_ms == 7 && sp.size_bytes == 7
						  : mf.bytes == 7 && mf.pct_bp == 7;

			accepted += !err[i];
			if ((err[i] && err[i] != -EINVAL && err[i] != -ERANGE) ||
			    (err[i] && !untouched)) {
				if (!bad++)
					diag("parser %d on \"%s\": %d", i, s, err[i]);
			}
		}
	}
	ok(!bad, "200000 random strings: only 0, -EINVAL or -ERANGE, *ret untouched on error "
		 "(%u accepted)",
	   accepted);
}

int main(void)
{
	test_sizes();
	test_mmap_pages();
	test_durations();
	test_switch_output();
	test_min_free();
	test_times_utc();
	test_times_range();
	test_times_zone();
	test_random_strings();
	return done_testing();
}
