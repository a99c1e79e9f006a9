/* SPDX-License-Identifier: MIT */
/*
 * preport --flamegraph FILE: the flame graph's title and subtitle from what the recording
 * says of itself (the command line recorded, system-wide or not, the events, samples, lost
 * share, time range), the input's damage (cut short, corrupt), and the filters given with
 * the samples before them; the graph itself
 * is lib/report's (prec_view__flamegraph), the file export.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_abi.h"
#include "preport.h"

static int add(struct prec_buf *b, const char *s)
{
	return prec_buf__append(b, s, strlen(s));
}

/*
 * The title: "Flame graph:", or "Icicle graph of callers:" when inverted, and what was
 * profiled, from the recorded command line ("precord -a -g -- cmd"): the
 * workload after "--", "system-wide" with -a (and for the daemon, whose default it is); the
 * whole command line when it has no "--";
 * "(no command line recorded)" without one.
 */
static int title_of(struct prec_reader *r, bool inverted, struct prec_buf *b)
{
	size_t len, i, nr_args = 0;
	const void *p = r ? prec_reader__feature(r, PREC_FEAT_CMDLINE, &len) : NULL;
	struct prec_feat_cursor c = {p, p ? len : 0, 0};
	char *args[256];
	uint32_t nr;
	bool all = false, daemon = false, tasks = false;
	long dashes = -1;
	int err = 0;

	if (p && !prec_feat__u32(&c, &nr))
		for (; nr_args < nr && nr_args < 256; nr_args++)
			if (prec_feat__string(&c, &args[nr_args]))
				break;
	for (i = 0; i < nr_args && dashes < 0; i++) {
		if (!strcmp(args[i], "--"))
			dashes = (long)i;
		else if (!strcmp(args[i], "-a") || !strcmp(args[i], "--all-cpus"))
			all = true;
		else if (i == 1 && !strcmp(args[i], "daemon"))
			daemon = true;
		else if (!strncmp(args[i], "-p", 2) || !strncmp(args[i], "-t", 2) ||
			 !strncmp(args[i], "--pid", 5) || !strncmp(args[i], "--tid", 5))
			tasks = true;
	}
	all = all || (daemon && !tasks); /* the daemon's default is -a */
	err = add(b, inverted ? "Icicle graph of callers:" : "Flame graph:");
	if (!nr_args)
		err |= add(b, " (no command line recorded)");
	else if (all)
		err |=
		    add(b, dashes >= 0 ? " system-wide (-a) while running" : " system-wide (-a)");
	for (i = dashes >= 0 ? (size_t)dashes + 1 : 0; i < nr_args && (dashes >= 0 || !all); i++)
		err |= add(b, " ") | add(b, args[i]);
	for (i = 0; i < nr_args; i++)
		free(args[i]);
	return err ? -ENOMEM : prec_buf__append(b, "", 1);
}

/* The subtitle: the event drawn (and the others with samples, not drawn), its samples (before
 * any filter: also into *ret_samples), lost share, the time range. */
static int subtitle_of(struct preport_input *in, struct prec_report_session *rs,
		       const struct prec_view_evsel *ve, size_t nev, uint32_t evsel,
		       struct prec_buf *b, uint64_t *ret_samples)
{
	struct prec_hist *h = prec_report_session__hist(rs);
	uint64_t samples = 0, lost = 0, wall, span;
	char tmp[160], when[96];
	size_t i, others = 0, picked, all;
	int err = 0;

	if (evsel < nev && evsel < prec_hist__nr_events(h)) {
		err |= add(b, ve[evsel].name);
		samples = preport_event_samples(rs, evsel);
		lost = ve[evsel].lost_samples;
	}
	for (i = 0; i < nev && i < prec_hist__nr_events(h); i++)
		if (i != evsel && preport_event_samples(rs, i))
			err |= add(b, others++ ? ", " : " (") | add(b, ve[i].name);
	if (others)
		err |= add(b, " not drawn)");
	snprintf(tmp, sizeof(tmp), "%s%" PRIu64 " samples, %.2f%% lost", b->len ? " \xc2\xb7 " : "",
		 samples, samples + lost ? 100.0 * (double)lost / (double)(samples + lost) : 0.0);
	err |= add(b, tmp);
	preport_input__times(in, &wall, &span);
	if (wall) {
		preport_format_wall(wall, true, when, sizeof(when));
		snprintf(tmp, sizeof(tmp), " \xc2\xb7 from %s, %.3f s", when, (double)span / 1e9);
		err |= add(b, tmp);
	} else if (span) {
		snprintf(tmp, sizeof(tmp), " \xc2\xb7 %.3f s", (double)span / 1e9);
		err |= add(b, tmp);
	}
	picked = preport_input__count(in, &all);
	if (all) {
		snprintf(tmp, sizeof(tmp), " \xc2\xb7 %zu of %zu segments", picked, all);
		err |= add(b, tmp);
	}
	*ret_samples = samples;
	return err ? -ENOMEM : prec_buf__append(b, "", 1);
}

int preport_flame_write(struct preport_input *in, struct prec_report_session *rs,
			const struct prec_view_evsel *ve, size_t nev,
			const struct preport_report_opts *o)
{
	struct prec_buf title = {0}, sub = {0};
	char damage[400];
	struct prec_flame_opts fo = {.inverted = o->inverted,
				     .evsel = preport_drawn_event(rs, ve, nev, "the flame graph")};
	struct preport_stream s;
	size_t all;
	bool opened = preport_input__count(in, &all) && !preport_input__open_stream(in, 0, &s);
	int err;

	err = title_of(opened ? s.r : NULL, o->inverted, &title);
	if (!err)
		err = subtitle_of(in, rs, ve, nev, fo.evsel, &sub, &fo.nr_samples);
	if (opened)
		preport_input__close_stream(in, &s);
	if (!err) {
		fo.title = (const char *)title.data;
		fo.subtitle = (const char *)sub.data;
		fo.filters = o->filters;
		if (preport_input__damage(in, damage, sizeof(damage)))
			fo.damage = damage;
		err = prec_view__flamegraph(prec_report_session__hist(rs), &fo, o->flame->f);
	}
	prec_buf__release(&title);
	prec_buf__release(&sub);
	return err;
}
