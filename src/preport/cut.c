/* SPDX-License-Identifier: MIT */
/*
 * The warning for a recording that was cut short: a precord stream that lacks its end marker
 * (precord killed, disk full, or still recording).  Said once, after the records were read,
 * in one line with the time the recording ends at.  Sample times are the perf clock's unless
 * the events used another clock (use_clockid); when they did and the CLOCK_DATA feature ties
 * that clock to the wall clock, the end is given as a date and time, otherwise relative to
 * the first sample and in the clock's seconds as `perf script` prints them.  The sample
 * times come from the records' events, found as -D finds them (preport_evsel_of()).  The same
 * in brief for an export's title (preport_cut_note()).
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "prec_clock.h"
#include "preport.h"

const struct prec_evsel *preport_evsel_of(const struct prec_reader *r,
					 const struct prec_record *rec)
{
	int idx = prec_reader__evsel_of(r, rec);

	return idx < 0 ? NULL : prec_reader__evsel(r, (size_t)idx);
}

void preport_times_add_record(struct prec_time_range *t, const struct prec_reader *r,
			      const struct prec_record *rec)
{
	const struct prec_evsel *e = rec->type == PERF_RECORD_SAMPLE ? preport_evsel_of(r, rec)
								      : NULL;

	if (e)
		prec_time_range__add(t, prec_sample__time(&e->layout, rec->data, rec->size));
}

/*
 * The wall-clock time of sample time `t`, as "2026-11-26 08:12:03.412 UTC" in `buf`, when
 * every event used the clock that CLOCK_DATA ties to the wall clock.  False otherwise.
 */
static bool wall_time(const struct prec_reader *r, uint64_t t, char *buf, size_t len)
{
	struct prec_clock clk;
	time_t secs;
	struct tm tm;
	size_t n;

	if (prec_clock__from_stream(r, &clk))
		return false;
	t = prec_clock__wall(&clk, t);
	preport_format_wall(t, true, buf, len);
	secs = (time_t)(t / 1000000000);
	n = strlen(buf);
	if (!localtime_r(&secs, &tm) || !strftime(buf + n, len - n, " %Z", &tm))
		buf[n] = 0;
	return true;
}

void preport_warn_cut(const struct prec_reader *r, const char *input,
		      const struct prec_time_range *t, const char *why)
{
	if (!why)
		why = "the recorder was killed, its disk filled up, or it is still recording";
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
	else if (wall_time(r, t->last, when, sizeof(when)))
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

void preport_cut_note(const struct prec_reader *r, const struct prec_time_range *t, char *buf,
		      size_t len)
{
	char when[128];

	if (!t->first)
		snprintf(buf, len, "cut short");
	else if (wall_time(r, t->last, when, sizeof(when)))
		snprintf(buf, len, "cut short at %s", when);
	else
		snprintf(buf, len, "cut short %.3f s after the first sample",
			 (double)(t->last - t->first) / 1e9);
}
