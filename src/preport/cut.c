/* SPDX-License-Identifier: MIT */
/*
 * The warning for a recording that was cut short: a precord stream that lacks its end marker
 * (precord killed, disk full).  Said once, after the records were read, in one line with the
 * time the recording ends at.  Sample times are the perf clock's, which has no fixed relation
 * to the wall clock, so the end is given relative to the first sample, and in the perf
 * clock's seconds as `perf script` prints them.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>

#include "preport.h"

void preport_times_add_record(struct prec_time_range *t, const struct prec_reader *r,
			      const struct prec_record *rec)
{
	const struct prec_evsel *e;
	int idx;

	if (rec->type != PERF_RECORD_SAMPLE)
		return;
	idx = prec_reader__evsel_of(r, rec);
	e = idx < 0 ? NULL : prec_reader__evsel(r, (size_t)idx);
	if (e)
		prec_time_range__add(t, prec_sample__time(&e->layout, rec->data, rec->size));
}

void preport_warn_cut(const struct prec_reader *r, const char *input,
		      const struct prec_time_range *t)
{
	const char *name = strcmp(input, "-") ? input : "standard input";
	const char *why = "the recorder was killed or its disk filled up";

	if (!prec_reader__cut_short(r))
		return;
	if (!t->first)
		fprintf(stderr,
			"preport: warning: %s was cut short (no end marker) before any "
			"timed sample; %s\n",
			name, why);
	else
		fprintf(stderr,
			"preport: warning: %s was cut short (no end marker): it ends %.3f s "
			"after the first sample (at %" PRIu64 ".%06" PRIu64 " on the perf "
			"clock); %s\n",
			name, (double)(t->last - t->first) / 1e9, t->last / 1000000000,
			t->last % 1000000000 / 1000, why);
}
