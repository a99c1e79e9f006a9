/* SPDX-License-Identifier: MIT */
/*
 * Parsers for the values users type on the command line: sizes, durations, perf's
 * --switch-output SPEC, --min-free, and wall-clock times for --since/--until.  They never
 * print and never accept a prefix: the whole string is the value, without blanks.  Every
 * function returns 0, -EINVAL for a string of the wrong shape (the caller prints what is
 * accepted) or -ERANGE for one of the right shape whose value does not fit; *ret is written
 * only on success.
 *
 * Numbers are decimal, with at most 9 digits after a point ("1.5G", "0.25h"); a fraction of
 * a unit is truncated to whole bytes or nanoseconds.
 */
#ifndef PREC_PARSE_H
#define PREC_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/*
 * A size in bytes: a number, then an optional unit K, M, G or T (binary: 1024, 1024^2, ...,
 * as perf; either case), which may be followed by "B" or "iB" ("8M", "8MB", "8MiB", "64k");
 * "B" alone or no unit is bytes, which must then be whole.
 */
int prec_parse_size(const char *s, uint64_t *ret_bytes);

/*
 * perf's -m/--mmap-pages: a plain number is a count of pages, a size (with a unit) is
 * rounded up to whole pages; either is then rounded up to a power of two, as perf does.
 * *ret_rounded (may be NULL) tells whether rounding changed the value, for the caller's
 * warning.  0 pages is -EINVAL; a count that cannot be rounded within 2^31 pages is -ERANGE.
 */
int prec_parse_mmap_pages(const char *s, uint64_t page_size, uint64_t *ret_pages,
			  bool *ret_rounded);

/*
 * A duration: a number and a unit, ns, us, ms, s, m or min, h, d (lower case); a plain
 * number is seconds.  "30s", "10m", "1h", "2d", "500ms", "1.5h".
 */
int prec_parse_duration_ns(const char *s, uint64_t *ret_ns);

/* The same in milliseconds, rounded up ("1us" is 1 ms, so only "0" is 0). */
int prec_parse_duration_ms(const char *s, uint64_t *ret_ms);

/* perf's --switch-output=SPEC. */
struct prec_switch_spec {
	uint64_t time_ms;    /* switch after this long; 0: not by time */
	uint64_t size_bytes; /* switch once a segment is this big; 0: not by size */
	bool signal_only;    /* "signal": only SIGUSR2 (or a request) switches */
};

/*
 * SPEC is "signal", a duration, a size, or a duration and a size separated by a comma in
 * either order ("10m,256M": whichever comes first).  A term is a duration if its unit is one
 * (so "10m" is ten minutes and "10M" ten MiB, as in perf); a number without a unit, a zero,
 * two terms of one kind or anything else is -EINVAL.
 */
int prec_parse_switch_output(const char *s, struct prec_switch_spec *ret);

/* --min-free: free space to leave on a file system, in bytes or in hundredths of a percent. */
struct prec_min_free {
	uint64_t bytes;	 /* a size; 0 if given as a percentage */
	uint32_t pct_bp; /* a percentage in basis points (2.5% is 250); 0 if a size */
};

/*
 * SIZE (prec_parse_size()) or PCT% with at most two decimals ("5%", "2.5%").  A percentage
 * of 100 or more is -ERANGE: it could never hold.
 */
int prec_parse_min_free(const char *s, struct prec_min_free *ret);

/* The bytes *m asks to keep free on a file system of fs_bytes bytes. */
uint64_t prec_min_free__bytes(const struct prec_min_free *m, uint64_t fs_bytes);

/*
 * A wall-clock time, as nanoseconds since the epoch (UTC), for --since/--until.  `now_ns` is
 * the current time (passed in so that tests are reproducible).  Accepted, in local time
 * unless a zone is given:
 *   2026-11-26 03:10:05      2026-11-26T03:10:05      2026-11-26 03:10      2026-11-26
 *   2026-11-26T03:10:05Z     2026-11-26T03:10:05+01:00 (an ISO 8601 zone after a full date)
 *   03:10  03:10:05  03:10:05.250   a time of day (see below)
 *   today  yesterday  today 03:10  yesterday 03:10
 *   -2h  -90s  -1.5d        that long before now (a plain number is seconds)
 *   now  @1795000000  @1795000000.5   seconds since the epoch
 * A bare time of day is the latest such moment at or before now: at 09:00, "03:10" is this
 * morning and "23:50" last night, since a recording holds only the past.
 * Seconds may carry up to 9 decimals.  Times before the epoch are -ERANGE.
 */
int prec_parse_time(const char *s, uint64_t now_ns, uint64_t *ret_ns);

/*
 * The same, for the end of a range that starts at since_ns: a bare time of day is the first
 * such moment at or after since_ns, so "--since 23:50 --until 00:10" spans midnight and
 * "--since 03:10 --until 03:15" stays on one day whenever it is asked.
 */
int prec_parse_time_after(const char *s, uint64_t now_ns, uint64_t since_ns, uint64_t *ret_ns);

#endif
