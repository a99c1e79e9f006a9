/* SPDX-License-Identifier: MIT */
/*
 * --time in perf's percent forms: "10%/2" (the 2nd slice of 10%), "0%-10%" (a range), a
 * comma-separated list of either kind ("10%/1,10%/3", "0%-10%,30%-40%"), or one "25%" (the
 * first 25%).  Percentages are of the time from the input's first sample to its last, as in
 * perf report: from a perf file's SAMPLE_TIME feature when it has one (perf's own source for
 * them), else from the sample times themselves, read in a pass of their own over every
 * stream.  Each slice becomes [first + round(a * span), first + round(b * span)], less 1 ns at
 * its end unless it ends at the last sample, so that adjacent slices share no sample; a
 * sample is kept when it lies in one of them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prec_abi.h"
#include "preport.h"

/* "12.5%" (the whole of s..end) -> 0.125; false if it is not that. */
static bool parse_pct(const char *s, const char *end, double *ret)
{
	char *e;

	if (end - s < 2 || end[-1] != '%')
		return false;
	*ret = strtod(s, &e) / 100.0;
	return e == end - 1 && e != s && *ret >= 0 && *ret <= 1;
}

/* One item of the list, s..end: "P%/N" or "A%-B%" (as the list's kind says), or "P%". */
static bool parse_item(const char *s, const char *end, bool slash, bool dash, double ret[2])
{
	const char *sep = memchr(s, slash ? '/' : '-', (size_t)(end - s));
	double pct;
	char *e;
	long n;

	if (!slash && !dash) {
		ret[0] = 0;
		return parse_pct(s, end, &ret[1]) && ret[1] > 0;
	}
	if (!sep)
		return false;
	if (dash)
		return parse_pct(s, sep, &ret[0]) && parse_pct(sep + 1, end, &ret[1]) &&
		       ret[0] <= ret[1];
	if (!parse_pct(s, sep, &pct) || pct <= 0 || sep + 1 == end)
		return false;
	n = strtol(sep + 1, &e, 10);
	if (e != end || n < 1)
		return false;
	ret[0] = pct * (double)(n - 1);
	ret[1] = pct * (double)n;
	return ret[1] <= 1 + 1e-9;
}

int preport_time_slices_parse(const char *arg, double (**ret)[2], size_t *ret_n)
{
	bool slash = strchr(arg, '/'), dash = strchr(arg, '-');
	const char *p = arg, *comma;
	double(*v)[2];
	size_t n = 1, i = 0;

	for (comma = arg; (comma = strchr(comma, ',')); comma++)
		n++;
	if ((!slash && !dash && n > 1) || !(v = calloc(n, sizeof(*v))))
		return n > 1 && !slash && !dash ? -EINVAL : -ENOMEM;
	for (; i < n; i++, p = comma + 1) {
		comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		if (!parse_item(p, comma, slash, dash, v[i])) {
			free(v);
			return -EINVAL;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* A perf file's SAMPLE_TIME feature, if it holds times: the first and last sample's. */
static bool feature_times(const struct prec_reader *r, struct prec_time_range *t)
{
	const unsigned char *p;
	size_t len;

	p = prec_reader__feature(r, PREC_FEAT_SAMPLE_TIME, &len);
	if (!p || len < 16)
		return false;
	memcpy(&t->first, p, 8); /* the reader takes files of this host's byte order */
	memcpy(&t->last, p + 8, 8);
	return t->first && t->last >= t->first;
}

/* The sample times of r from here on into t; -errno of a read that failed before any. */
static int scan_times(struct prec_reader *r, struct prec_time_range *t)
{
	struct prec_record rec;
	int err;

	while ((err = prec_reader__next(r, &rec)) > 0) {
		preport_times_add_record(t, r, &rec);
		prec_reader__release(r, NULL);
	}
	return err < 0 && !t->first ? err : 0;
}

/* The first and last sample time of the whole input into t (0, 0: it has none). */
static int input_times(struct preport_input *in, struct prec_time_range *t)
{
	size_t all, n = preport_input__count(in, &all), i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct prec_time_range one = {0};
		struct preport_stream s;
		struct prec_reader *r;

		/* the report's own reading warns of what is wrong, once */
		preport_log_subject(NULL, true);
		err = preport_input__open_stream(in, i, &s);
		preport_log_subject(NULL, true);
		if (err) {
			/* a damaged segment is skipped (the report says so); a file's error is
			 * its own */
			err = err == -ENOMEM || !all ? err : 0;
			preport_log_subject(NULL, false);
			continue;
		}
		if (!all && !feature_times(s.r, &one)) {
			/* the caller's reader must stay unread: a second one over the file */
			err = strcmp(s.path, "-") ? prec_reader__open(s.path, &r)
						  : -ESPIPE; /* refused with the options */
			if (!err) {
				err = scan_times(r, &one);
				prec_reader__free(r);
			}
		} else if (all) {
			err = scan_times(s.r, &one);
		}
		preport_input__close_stream(in, &s);
		preport_log_subject(NULL, false);
		if (one.first) {
			prec_time_range__add(t, one.first);
			prec_time_range__add(t, one.last);
		}
	}
	return err;
}

int preport_time_slices_resolve(struct preport_input *in, const double (*pct)[2], size_t n,
				uint64_t (**ret)[2])
{
	struct prec_time_range t = {0};
	uint64_t(*v)[2], span;
	size_t i;
	int err = input_times(in, &t);

	if (err)
		return err;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	span = t.last - t.first;
	for (i = 0; i < n && t.first; i++) {
		v[i][0] = t.first + (uint64_t)llround(pct[i][0] * (double)span);
		v[i][1] = t.first + (uint64_t)llround(pct[i][1] * (double)span);
		if (v[i][1] > v[i][0] && v[i][1] != t.last)
			v[i][1]--;
	}
	/* no sample at all: nothing to cut, every range is the whole */
	for (; i < n; i++)
		v[i][0] = v[i][1] = 0;
	*ret = v;
	return 0;
}
