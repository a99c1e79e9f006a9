/* SPDX-License-Identifier: MIT */
/*
 * The warning for a recording that was cut short: a precord stream that lacks its end marker
 * (precord killed, disk full, or still recording).  Said once, after the records were read,
 * in one line with the time the recording ends at.  Sample times are the perf clock's unless
 * the events used another clock (use_clockid); when they did and the CLOCK_DATA feature ties
 * that clock to the wall clock, the end is given as a date and time, otherwise relative to
 * the first sample and in the clock's seconds as `perf script` prints them.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>
#include <time.h>

#include "prec_clock.h"
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

bool preport_wall_time(const struct prec_reader *r, uint64_t t, char *buf, size_t len)
{
	struct prec_clock clk;
	uint64_t wall;
	char date[64];
	struct tm tm;
	time_t secs;

	if (prec_clock__from_stream(r, &clk))
		return false;
	wall = prec_clock__wall(&clk, t);
	secs = (time_t)(wall / 1000000000);
	if (!localtime_r(&secs, &tm) || !strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm))
		return false;
	snprintf(buf, len, "%s.%03u", date, (unsigned int)(wall % 1000000000 / 1000000));
	if (strftime(date, sizeof(date), " %Z", &tm))
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", date);
	return true;
}

void preport_warn_cut(const struct prec_reader *r, const char *input,
		      const struct prec_time_range *t)
{
	const char *why = "the recorder was killed, its disk filled up, or it is still recording";
	const char *name;
	char when[128];

	if (!input || !prec_reader__cut_short(r))
		return;
	name = strcmp(input, "-") ? input : "standard input";
	if (!t->first)
		fprintf(stderr,
			"preport: warning: %s was cut short (no end marker); it holds no timed "
			"sample; %s\n",
			name, why);
	else if (preport_wall_time(r, t->last, when, sizeof(when)))
		fprintf(stderr,
			"preport: warning: %s was cut short (no end marker): it ends at %s, "
			"%.3f s after the first sample; %s\n",
			name, when, (double)(t->last - t->first) / 1e9, why);
	else
		fprintf(stderr,
			"preport: warning: %s was cut short (no end marker): it ends %.3f s "
			"after the first sample (at %" PRIu64 ".%06" PRIu64 " on the perf "
			"clock); %s\n",
			name, (double)(t->last - t->first) / 1e9, t->last / 1000000000,
			t->last % 1000000000 / 1000, why);
}
