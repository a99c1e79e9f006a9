/* SPDX-License-Identifier: MIT */
/*
 * Parsers of sizes, durations, switch and free-space specs and wall-clock times.  Every
 * parser reads a number as whole + frac/div (struct number) and scales it by its unit in one
 * place, scale(), which checks for overflow; so "1.5G" and "1.5h" are exact where they can
 * be and -ERANGE where they do not fit, never wrapped.  A string is accepted only if it is
 * consumed to its end.  Local times go through mktime() (the C library's idea of TZ), times
 * with a zone through timegm().
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "prec_parse.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define FRAC_DIGITS_MAX 9

struct number {
	uint64_t whole;
	uint64_t frac; /* frac / div is the part after the point, div a power of ten */
	uint64_t div;
	bool overflow; /* whole did not fit: -ERANGE once the shape is known to be right */
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits, then optionally a point and 1 to 9 digits; *sp is moved past them. */
static int parse_number(const char **sp, struct number *n)
{
	const char *p = *sp;

	if (!is_digit(*p))
		return -EINVAL;
	n->whole = 0;
	n->overflow = false;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (n->whole > (UINT64_MAX - d) / 10)
			n->overflow = true;
		else
			n->whole = n->whole * 10 + d;
	}
	n->frac = 0;
	n->div = 1;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		for (int i = 0; is_digit(*p); p++, i++) {
			if (i == FRAC_DIGITS_MAX)
				return -EINVAL;
			n->frac = n->frac * 10 + (uint64_t)(*p - '0');
			n->div *= 10;
		}
	}
	*sp = p;
	return 0;
}

/* n * unit, the fraction truncated; frac < div <= 10^9 keeps every product below 2^64. */
static int scale(const struct number *n, uint64_t unit, uint64_t *ret)
{
	uint64_t v, f;

	if (n->overflow || (unit && n->whole > UINT64_MAX / unit))
		return -ERANGE;
	v = n->whole * unit;
	f = n->frac * (unit / n->div) + n->frac * (unit % n->div) / n->div;
	if (v > UINT64_MAX - f)
		return -ERANGE;
	*ret = v + f;
	return 0;
}

/* "", "B", or K/M/G/T in either case, optionally followed by "B" or "iB". */
static int size_unit(const char *p, uint64_t *ret_unit)
{
	static const char letters[] = "KMGT";
	const char *l;
	char c = *p;

	if (!c || !strcmp(p, "B")) {
		*ret_unit = 1;
		return 0;
	}
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	l = strchr(letters, c);
	if (!l)
		return -EINVAL;
	p++;
	if (*p && strcmp(p, "B") && strcmp(p, "iB"))
		return -EINVAL;
	*ret_unit = 1ULL << (10 * (l - letters + 1));
	return 0;
}

static int size_of(const struct number *n, const char *unit_str, uint64_t *ret)
{
	uint64_t unit;

	if (size_unit(unit_str, &unit))
		return -EINVAL;
	if (unit == 1 && n->frac)
		return -EINVAL; /* a fraction of a byte */
	return scale(n, unit, ret);
}

int prec_parse_size(const char *s, uint64_t *ret_bytes)
{
	struct number n;

	if (!s || parse_number(&s, &n))
		return -EINVAL;
	return size_of(&n, s, ret_bytes);
}

int prec_parse_mmap_pages(const char *s, uint64_t page_size, uint64_t *ret_pages,
			  bool *ret_rounded)
{
	const uint64_t max_pages = 1ULL << 31;
	uint64_t v, pages, p2;
	struct number n;
	bool rounded;
	int err;

	if (!s || !page_size || (page_size & (page_size - 1)) || parse_number(&s, &n))
		return -EINVAL;
	if (!*s) {
		if (n.frac)
			return -EINVAL; /* a fraction of a page */
		err = scale(&n, 1, &pages);
		if (err)
			return err;
		rounded = false;
	} else {
		err = size_of(&n, s, &v);
		if (err)
			return err;
		pages = v / page_size + (v % page_size != 0);
		rounded = v % page_size != 0;
	}
	if (!pages)
		return -EINVAL;
	if (pages > max_pages)
		return -ERANGE;
	for (p2 = 1; p2 < pages; p2 <<= 1)
		;
	*ret_pages = p2;
	if (ret_rounded)
		*ret_rounded = rounded || p2 != pages;
	return 0;
}

/* A duration unit in nanoseconds; "" (seconds) only when !need_unit. */
static int duration_unit(const char *p, bool need_unit, uint64_t *ret_unit)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC },
		{ "m", 60 * NSEC_PER_SEC },
		{ "min", 60 * NSEC_PER_SEC },
		{ "h", 3600 * NSEC_PER_SEC },
		{ "d", 86400 * NSEC_PER_SEC },
	};

	if (!*p) {
		if (need_unit)
			return -EINVAL;
		*ret_unit = NSEC_PER_SEC;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(p, units[i].name)) {
			*ret_unit = units[i].ns;
			return 0;
		}
	}
	return -EINVAL;
}

int prec_parse_duration_ns(const char *s, uint64_t *ret_ns)
{
	struct number n;
	uint64_t unit;

	if (!s || parse_number(&s, &n) || duration_unit(s, false, &unit))
		return -EINVAL;
	return scale(&n, unit, ret_ns);
}

static uint64_t ns_to_ms_up(uint64_t ns)
{
	return ns / NSEC_PER_MSEC + (ns % NSEC_PER_MSEC != 0);
}

int prec_parse_duration_ms(const char *s, uint64_t *ret_ms)
{
	uint64_t ns;
	int err = prec_parse_duration_ns(s, &ns);

	if (err)
		return err;
	*ret_ms = ns_to_ms_up(ns);
	return 0;
}

/* One term of a SPEC: a duration if its unit is one, else a size with an explicit unit. */
static int switch_term(const char *s, size_t len, struct prec_switch_spec *spec)
{
	char term[32];
	const char *p = term;
	struct number n;
	uint64_t unit, v;
	int err;

	if (!len || len >= sizeof(term))
		return -EINVAL;
	memcpy(term, s, len);
	term[len] = '\0';
	if (parse_number(&p, &n) || !*p)
		return -EINVAL;
	if (!duration_unit(p, true, &unit)) {
		if (spec->time_ms)
			return -EINVAL;
		err = scale(&n, unit, &v);
		if (err)
			return err;
		spec->time_ms = ns_to_ms_up(v);
		return spec->time_ms ? 0 : -EINVAL;
	}
	if (spec->size_bytes)
		return -EINVAL;
	err = size_of(&n, p, &v);
	if (err)
		return err;
	spec->size_bytes = v;
	return v ? 0 : -EINVAL;
}

int prec_parse_switch_output(const char *s, struct prec_switch_spec *ret)
{
	struct prec_switch_spec spec = { 0 };
	const char *comma;
	int err;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "signal")) {
		spec.signal_only = true;
		*ret = spec;
		return 0;
	}
	comma = strchr(s, ',');
	err = switch_term(s, comma ? (size_t)(comma - s) : strlen(s), &spec);
	if (!err && comma)
		err = switch_term(comma + 1, strlen(comma + 1), &spec);
	if (err)
		return err;
	*ret = spec;
	return 0;
}

int prec_parse_min_free(const char *s, struct prec_min_free *ret)
{
	size_t len = s ? strlen(s) : 0;
	struct prec_min_free m = { 0 };
	struct number n;
	const char *p = s;
	int err;

	if (!len)
		return -EINVAL;
	if (s[len - 1] != '%') {
		err = prec_parse_size(s, &m.bytes);
		if (err)
			return err;
		*ret = m;
		return 0;
	}
	if (parse_number(&p, &n) || p != s + len - 1 || n.div > 100)
		return -EINVAL;
	if (n.overflow || n.whole >= 100)
		return -ERANGE;
	m.pct_bp = (uint32_t)(n.whole * 100 + n.frac * (100 / n.div));
	*ret = m;
	return 0;
}

uint64_t prec_min_free__bytes(const struct prec_min_free *m, uint64_t fs_bytes)
{
	if (!m->pct_bp)
		return m->bytes;
	return fs_bytes / 10000 * m->pct_bp + fs_bytes % 10000 * m->pct_bp / 10000;
}

/* ---- wall-clock times ---- */

struct clock_time {
	int hour, min, sec;
	uint64_t ns;
};

/* Exactly `width` digits. */
static int fixed_digits(const char **sp, int width, int *ret)
{
	int v = 0;

	for (int i = 0; i < width; i++) {
		if (!is_digit((*sp)[i]))
			return -EINVAL;
		v = v * 10 + ((*sp)[i] - '0');
	}
	*sp += width;
	*ret = v;
	return 0;
}

/* H:MM or HH:MM, then optionally :SS and a fraction of up to 9 digits. */
static int parse_clock(const char **sp, struct clock_time *t)
{
	const char *p = *sp;
	int width = is_digit(p[0]) && is_digit(p[1]) ? 2 : 1;

	t->sec = 0;
	t->ns = 0;
	if (fixed_digits(&p, width, &t->hour) || *p++ != ':' || fixed_digits(&p, 2, &t->min))
		return -EINVAL;
	if (*p == ':') {
		p++;
		if (fixed_digits(&p, 2, &t->sec))
			return -EINVAL;
		if (*p == '.') {
			uint64_t mul = NSEC_PER_SEC;

			if (!is_digit(*++p))
				return -EINVAL;
			for (; is_digit(*p); p++) {
				if (mul == 1)
					return -EINVAL;
				mul /= 10;
				t->ns += (uint64_t)(*p - '0') * mul;
			}
		}
	}
	if (t->hour > 23 || t->min > 59 || t->sec > 59)
		return -EINVAL;
	*sp = p;
	return 0;
}

static bool is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

static int secs_to_ns(int64_t secs, uint64_t ns, uint64_t *ret)
{
	if (secs < 0)
		return -ERANGE;
	if ((uint64_t)secs > (UINT64_MAX - ns) / NSEC_PER_SEC)
		return -ERANGE;
	*ret = (uint64_t)secs * NSEC_PER_SEC + ns;
	return 0;
}

/* A local date and time; mday may be one off the month (mktime() normalises it). */
static int local_to_ns(int year, int mon, int mday, const struct clock_time *t, uint64_t *ret)
{
	struct tm tm = {
		.tm_year = year - 1900,
		.tm_mon = mon - 1,
		.tm_mday = mday,
		.tm_hour = t->hour,
		.tm_min = t->min,
		.tm_sec = t->sec,
		.tm_isdst = -1,
	};
	time_t secs;

	errno = 0;
	secs = mktime(&tm);
	if (secs == (time_t)-1 && errno)
		return -ERANGE;
	return secs_to_ns((int64_t)secs, t->ns, ret);
}

/* The local date of `ns`, `day_offset` days later (mday may then be 0 or 32: see above). */
static int local_date(uint64_t ns, int day_offset, int *y, int *m, int *d)
{
	time_t secs = (time_t)(ns / NSEC_PER_SEC);
	struct tm tm;

	if (!localtime_r(&secs, &tm))
		return -ERANGE;
	*y = tm.tm_year + 1900;
	*m = tm.tm_mon + 1;
	*d = tm.tm_mday + day_offset;
	return 0;
}

enum clock_rule {
	LATEST_AT_OR_BEFORE, /* a bare time of day is the latest such moment <= ref */
	FIRST_AT_OR_AFTER,   /* ... the first such moment >= ref */
};

static int time_of_day(const struct clock_time *t, uint64_t ref_ns, enum clock_rule rule,
		       uint64_t *ret)
{
	int y, m, d, err;
	uint64_t v;

	err = local_date(ref_ns, 0, &y, &m, &d);
	if (!err)
		err = local_to_ns(y, m, d, t, &v);
	if (!err && rule == LATEST_AT_OR_BEFORE && v > ref_ns)
		err = local_to_ns(y, m, d - 1, t, &v);
	else if (!err && rule == FIRST_AT_OR_AFTER && v < ref_ns)
		err = local_to_ns(y, m, d + 1, t, &v);
	if (err)
		return err;
	*ret = v;
	return 0;
}

/* "", "Z", or +HH:MM, +HHMM, +HH (or -): the zone after an ISO date and time. */
static int parse_zone(const char *p, bool *ret_utc, int *ret_offset_s)
{
	int sign, hh, mm = 0;

	*ret_utc = false;
	*ret_offset_s = 0;
	if (!*p)
		return 0;
	*ret_utc = true;
	if (!strcmp(p, "Z"))
		return 0;
	if (*p != '+' && *p != '-')
		return -EINVAL;
	sign = *p++ == '-' ? -1 : 1;
	if (fixed_digits(&p, 2, &hh))
		return -EINVAL;
	if (*p == ':')
		p++;
	if (*p && fixed_digits(&p, 2, &mm))
		return -EINVAL;
	if (*p || hh > 23 || mm > 59)
		return -EINVAL;
	*ret_offset_s = sign * (hh * 3600 + mm * 60);
	return 0;
}

/* YYYY-MM-DD, then nothing (midnight, local) or ' '/'T', a clock time and a zone. */
static int parse_date_time(const char *p, uint64_t *ret)
{
	struct clock_time t = { 0 };
	int y, m, d, offset;
	bool utc;

	if (fixed_digits(&p, 4, &y) || *p++ != '-' || fixed_digits(&p, 2, &m) || *p++ != '-' ||
	    fixed_digits(&p, 2, &d))
		return -EINVAL;
	if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return -EINVAL;
	if (*p) {
		if (*p != ' ' && *p != 'T')
			return -EINVAL;
		p++;
		if (parse_clock(&p, &t) || parse_zone(p, &utc, &offset))
			return -EINVAL;
		if (utc) {
			struct tm tm = {
				.tm_year = y - 1900,
				.tm_mon = m - 1,
				.tm_mday = d,
				.tm_hour = t.hour,
				.tm_min = t.min,
				.tm_sec = t.sec,
			};

			return secs_to_ns((int64_t)timegm(&tm) - offset, t.ns, ret);
		}
	}
	if (y < 1970)
		return -ERANGE;
	return local_to_ns(y, m, d, &t, ret);
}

/* "today" or "yesterday", alone (midnight) or followed by ' '/'T' and a clock time. */
static int parse_day_word(const char *p, int day_offset, uint64_t now_ns, uint64_t *ret)
{
	struct clock_time t = { 0 };
	int y, m, d, err;

	if (*p) {
		if (*p != ' ' && *p != 'T')
			return -EINVAL;
		p++;
		if (parse_clock(&p, &t) || *p)
			return -EINVAL;
	}
	err = local_date(now_ns, day_offset, &y, &m, &d);
	if (err)
		return err;
	return local_to_ns(y, m, d, &t, ret);
}

static int parse_time(const char *s, uint64_t now_ns, uint64_t ref_ns, enum clock_rule rule,
		      uint64_t *ret)
{
	struct clock_time t;
	const char *p = s;
	struct number n;
	uint64_t v;
	int err;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "now")) {
		*ret = now_ns;
		return 0;
	}
	if (*s == '@') {
		p++;
		if (parse_number(&p, &n) || *p)
			return -EINVAL;
		return scale(&n, NSEC_PER_SEC, ret);
	}
	if (*s == '-') {
		err = prec_parse_duration_ns(s + 1, &v);
		if (err)
			return err;
		if (v > now_ns)
			return -ERANGE;
		*ret = now_ns - v;
		return 0;
	}
	if (!strncmp(s, "today", 5))
		return parse_day_word(s + 5, 0, now_ns, ret);
	if (!strncmp(s, "yesterday", 9))
		return parse_day_word(s + 9, -1, now_ns, ret);
	if (is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) && s[4] == '-')
		return parse_date_time(s, ret);
	if (parse_clock(&p, &t) || *p)
		return -EINVAL;
	return time_of_day(&t, ref_ns, rule, ret);
}

int prec_parse_time(const char *s, uint64_t now_ns, uint64_t *ret_ns)
{
	return parse_time(s, now_ns, now_ns, LATEST_AT_OR_BEFORE, ret_ns);
}

int prec_parse_time_after(const char *s, uint64_t now_ns, uint64_t since_ns, uint64_t *ret_ns)
{
	return parse_time(s, now_ns, since_ns, FIRST_AT_OR_AFTER, ret_ns);
}
