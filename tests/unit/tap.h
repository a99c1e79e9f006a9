/* SPDX-License-Identifier: MIT */
/*
 * A tiny header-only TAP producer for the unit tests.  Each check prints "ok N - what" or
 * "not ok N - what"; done_testing() prints the plan and returns the exit status for the
 * automake harness (0 all passed, 1 something failed); skip_all() returns 77 (skipped).
 * One test program per translation unit, so the counters can be file-static.
 */
#ifndef PREC_TAP_H
#define PREC_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static inline __attribute__((format(printf, 2, 0))) void tap_vreport(bool pass, const char *fmt,
								     va_list ap)
{
	tap_count++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

/* One check; returns cond so callers can stop early: if (!ok(...)) return; */
static inline __attribute__((format(printf, 2, 3))) bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* A check of two integers that prints both on failure. */
static inline __attribute__((format(printf, 3, 4))) bool is_u64(uint64_t got, uint64_t want,
								const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		printf("#   got %" PRIu64 " (%#" PRIx64 "), want %" PRIu64 " (%#" PRIx64 ")\n", got,
		       got, want, want);
	return got == want;
}

/* A diagnostic line ("# ..."), ignored by TAP consumers. */
static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# failed %d of %d\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

static inline int skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	return 77;
}

/* A temporary file under $TMPDIR (or /tmp) named after the test; aborts if it cannot be made. */
static inline int tap_mkstemp(char *path, size_t len, const char *test)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/precord-test-%s-XXXXXX", dir && dir[0] ? dir : "/tmp", test);
	fd = mkstemp(path);
	if (fd < 0) {
		diag("mkstemp %s: %s", path, strerror(errno));
		abort();
	}
	return fd;
}

#endif
