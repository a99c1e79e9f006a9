/* SPDX-License-Identifier: MIT */
/*
 * preport's report: the reporting session (lib/report/prec_report.h) reads the input's
 * streams into a hist; this file chooses the hist's and the view's options from preport's
 * and from what the recording holds, and prints: the time range line, the view, the
 * per-thread counts of -T.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_hist.h"
#include "prec_log.h"
#include "prec_pprof.h"
#include "prec_report.h"
#include "prec_view.h"
#include "preport.h"

/* ---- phase times ---- */

/*
 * With PREPORT_TIMES set in the environment, the end of each phase of a report is written
 * to stderr in milliseconds since it began, with what the main thread has used so far (CPU
 * time, page faults, voluntary+involuntary context switches, time runnable but not
 * running): for measuring, not for users (see doc/performance.md).
 */
struct phases {
	bool on;
	struct timespec t0;
};

static void phases_start(struct phases *p)
{
	p->on = getenv("PREPORT_TIMES") != NULL;
	if (p->on)
		clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

static void phase_end(const struct phases *p, const char *name)
{
	unsigned long long queued = 0;
	struct timespec t;
	struct rusage ru;
	FILE *f;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	getrusage(RUSAGE_THREAD, &ru);
	f = fopen("/proc/thread-self/schedstat", "r"); /* run, then runnable time, in ns */
	if (f) {
		if (fscanf(f, "%*u %llu", &queued) != 1)
			queued = 0;
		fclose(f);
	}
	fprintf(stderr,
		"preport: %-6s %8.2f ms  (this thread: %.2f ms cpu, %ld page faults, %ld+%ld "
		"switches, %.2f ms runnable)\n",
		name,
		(double)(t.tv_sec - p->t0.tv_sec) * 1e3 + (double)(t.tv_nsec - p->t0.tv_nsec) / 1e6,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
		ru.ru_minflt, ru.ru_nvcsw, ru.ru_nivcsw, (double)queued / 1e6);
}

static int ndigits(int64_t v)
{
	return snprintf(NULL, 0, "%" PRId64, v);
}

/* -T: perf's table of the threads' counts (the header alone when there are none); ve: the
 * events' names. */
static void print_threads(const struct prec_report_session *rs, const struct prec_view_evsel *ve,
			  size_t nev, FILE *out)
{
	const uint64_t *keys, *vals;
	size_t n = prec_report_session__thread_counts(rs, &keys, &vals), i, e;
	int pw = 3, tw = 3, w[64];

	for (e = 0; e < nev && e < 64; e++)
		w[e] = (int)strlen(ve[e].name);
	for (i = 0; i < n; i++) {
		int a = ndigits((int32_t)(keys[i] >> 32)), b = ndigits((int32_t)keys[i]);

		pw = a > pw ? a : pw;
		tw = b > tw ? b : tw;
		for (e = 0; e < nev && e < 64; e++) {
			int c = snprintf(NULL, 0, "%" PRIu64, vals[i * nev + e]);

			w[e] = c > w[e] ? c : w[e];
		}
	}
	fprintf(out, "#\n# %*s  %*s", pw, "PID", tw, "TID");
	for (e = 0; e < nev && e < 64 && n; e++)
		fprintf(out, "  %*s", w[e], ve[e].name);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "  %*d  %*d", pw, (int32_t)(keys[i] >> 32), tw, (int32_t)keys[i]);
		for (e = 0; e < nev && e < 64; e++)
			fprintf(out, "  %*" PRIu64, w[e], vals[i * nev + e]);
		fputc('\n', out);
	}
}

/* The hist's options and the view's, from preport's and what the recording holds. */
static void choose(const struct preport_report_opts *o, const struct prec_report_facts *f,
		   struct prec_hist_opts *ho, struct prec_view_opts *vo)
{
	bool callchains = f->callchains;
	bool known = f->nr_streams > 0; /* none: a range that picked no segment (said so) */

	*ho = o->hist;
	*vo = o->view;
	ho->children = o->children < 0 ? callchains : o->children && callchains;
	ho->need_comm = o->folded || o->flame;
	/* pprof: pid, tid and comm are labels, and a location's lines are its inlined
	 * functions unless --no-inline says otherwise; it reads stacks, not entries, so no
	 * cumulative totals are made */
	ho->inline_frames = o->inline_frames < 0 ? o->pprof != NULL : o->inline_frames;
	ho->need_thread = o->pprof != NULL;
	if (o->pprof || o->flame)
		ho->children = false; /* exports read stacks, not entries' totals */
	vo->graph = o->graph < 0 ? (callchains ? PREC_GRAPH_GRAPH : PREC_GRAPH_NONE)
				 : (enum prec_graph_mode)o->graph;
	if (!callchains && vo->graph != PREC_GRAPH_NONE) {
		if (o->graph >= 0 && known)
			prec_warn("the recording has no call chains (record with -g): no call "
				  "graphs");
		vo->graph = PREC_GRAPH_NONE;
	}
	if (o->session.max_stack == 0)
		vo->graph = PREC_GRAPH_NONE; /* as perf: no frame of a chain, nothing to draw */
	if ((o->folded || o->flame || o->pprof) && !callchains && known)
		prec_warn("the recording has no call chains (record with -g): each stack is its "
			  "sampled function only");
	/* perf's defaults: callers first with children, callees first without */
	vo->caller_order = o->order < 0 ? ho->children : o->order == 1;
	ho->callee_order = !vo->caller_order;
	ho->keep_occurrences = vo->graph != PREC_GRAPH_NONE && !o->folded && !vo->field_sep &&
			       !o->pprof && !o->flame;
	vo->hide_unresolved = o->session.hide_unresolved;
}

uint64_t preport_event_samples(struct prec_report_session *rs, size_t i)
{
	return prec_hist__event(prec_report_session__hist(rs), (uint32_t)i)->nr_samples +
	       prec_report_session__event(rs, i)->left_out;
}

uint32_t preport_drawn_event(struct prec_report_session *rs, const struct prec_view_evsel *ve,
			     size_t nev, const char *what)
{
	struct prec_buf others = {0};
	size_t i, pick = nev;
	char tmp[48];

	nev = nev < prec_hist__nr_events(prec_report_session__hist(rs))
		  ? nev
		  : prec_hist__nr_events(prec_report_session__hist(rs));
	for (i = 0; i < nev && pick == nev; i++)
		if (preport_event_samples(rs, i))
			pick = i;
	for (i = 0; i < nev && pick == nev; i++)
		if (!ve[i].dummy)
			pick = i;
	if (pick == nev)
		return 0;
	for (i = pick + 1; i < nev; i++) {
		if (!preport_event_samples(rs, i))
			continue;
		snprintf(tmp, sizeof(tmp), " (%" PRIu64 " samples)", preport_event_samples(rs, i));
		if (prec_buf__append(&others, others.len ? ", " : "", others.len ? 2 : 0) ||
		    prec_buf__append(&others, ve[i].name, strlen(ve[i].name)) ||
		    prec_buf__append(&others, tmp, strlen(tmp)))
			break;
	}
	if (others.len && !prec_buf__append(&others, "", 1))
		fprintf(stderr,
			"preport: %s shows one event, %s (the first with samples); left out: %s\n",
			what, ve[pick].name, (const char *)others.data);
	prec_buf__release(&others);
	return (uint32_t)pick;
}

/* --pprof: the hist as a pprof profile into out, begun (failures to write stay in
 * ferror(out->f)). */
static int write_pprof(struct preport_input *in, struct prec_report_session *rs,
		       const struct prec_view_evsel *ve, size_t nev, bool hide_unresolved,
		       struct preport_export *out)
{
	struct prec_pprof_event *evs = calloc(nev ? nev : 1, sizeof(*evs));
	struct prec_pprof_opts po;
	struct preport_range rg;
	size_t i;
	int err;

	if (!evs)
		return -ENOMEM;
	for (i = 0; i < nev; i++) {
		evs[i].name = ve[i].name;
		evs[i].dummy = ve[i].dummy;
		evs[i].fixed_period = prec_report_session__event(rs, i)->fixed_period;
	}
	memset(&po, 0, sizeof(po));
	po.events = evs;
	po.hide_unresolved = hide_unresolved;
	preport_input__times(in, &po.time_nanos, &po.duration_nanos);
	/* no sample counted: the range asked for is the time the profile covers */
	if (!po.time_nanos && !po.duration_nanos && preport_input__range(in, &rg) && rg.since_ns) {
		po.time_nanos = rg.since_ns;
		po.duration_nanos = rg.until_ns > rg.since_ns ? rg.until_ns - rg.since_ns : 0;
	}
	err = prec_pprof__write(prec_report_session__hist(rs), &po, out->f);
	free(evs);
	return err;
}

/* An export into e, written or failed with e2: the report's error (err) so far, or e2.  A
 * failure to write the file is left to preport_export__close(), which says it. */
static int export_done(struct preport_export *e, int e2, int err)
{
	if (!e2) {
		e->complete = !ferror(e->f);
		return err;
	}
	return e2 == -EIO && ferror(e->f) ? err : e2;
}

int preport_report_input(struct preport_input *in, const struct preport_report_opts *o,
			 FILE *out)
{
	struct prec_report_session *rs = NULL;
	struct prec_view_evsel *ve = NULL;
	struct prec_report_opts so = o->session;
	uint64_t (*slices)[2] = NULL;
	struct prec_report_facts f;
	struct prec_hist_opts ho;
	struct prec_view_opts vo;
	struct phases ph;
	size_t i;
	int err, e2;

	phases_start(&ph);
	err = o->nr_time_pct ? preport_time_slices_resolve(in, (const double(*)[2])o->time_pct,
							   o->nr_time_pct, &slices)
			     : 0;
	so.time_ranges = (const uint64_t(*)[2])slices;
	so.nr_time_ranges = slices ? o->nr_time_pct : 0;
	if (!err)
		err = prec_report_session__new(&so, &rs);
	if (!err)
		err = preport_input__survey(in, rs);
	if (!err)
		err = prec_report_session__open(rs, &f);
	if (err)
		goto out;
	choose(o, &f, &ho, &vo);
	ve = calloc(f.nr_events ? f.nr_events : 1, sizeof(*ve));
	err = ve ? prec_report_session__start(rs, &ho) : -ENOMEM;
	if (err)
		goto out;
	phase_end(&ph, "setup");
	err = preport_input__read(in, rs, !o->quiet);
	if ((!err || err == -EBADMSG) && !o->session.cpus) /* else --cpu may be why */
		preport_input__warn_no_sample(in, o->session.time_set);
	phase_end(&ph, "read");
	if (err && err != -EBADMSG)
		goto out;
	e2 = prec_report_session__finish(rs);
	if (e2) {
		err = e2;
		goto out;
	}
	if (err == -EBADMSG && !o->pprof && !o->flame) /* an export's stdout is its own */
		fprintf(out, "# the input is corrupt after this point; what came before is "
			     "reported\n");
	phase_end(&ph, "finish");
	for (i = 0; i < f.nr_events; i++) {
		const struct prec_report_event *ev = prec_report_session__event(rs, i);

		ve[i].name = ev->name;
		ve[i].lost_samples = ev->lost_samples;
		ve[i].broken_period = ev->broken_period;
		ve[i].dummy = ev->dummy;
	}
	vo.evsels = ve;
	if (o->pprof || o->flame) {
		struct preport_export *ex = o->pprof ? o->pprof : o->flame;

		e2 = preport_export__begin(ex);
		if (!e2)
			e2 = o->pprof ? write_pprof(in, rs, ve, f.nr_events,
						    o->session.hide_unresolved, ex)
				      : preport_flame_write(in, rs, ve, f.nr_events, o);
		err = export_done(ex, e2, err);
		phase_end(&ph, o->pprof ? "pprof" : "flamegraph");
		goto out;
	}
	if (!o->folded)
		preport_input__print_range(in, out);
	if (o->folded)
		e2 = prec_view__folded(prec_report_session__hist(rs),
				       preport_drawn_event(rs, ve, f.nr_events, "--folded"), out);
	else
		e2 = prec_view__stdio(prec_report_session__hist(rs), &vo, out);
	if (e2)
		err = e2;
	else if (o->session.thread_counts && !o->folded)
		print_threads(rs, ve, f.nr_events, out);
	phase_end(&ph, "view");
	if (o->no_teardown && (!err || err == -EBADMSG)) {
		free(ve);
		return err;
	}
out:
	free(ve);
	prec_report_session__free(rs);
	free(slices);
	return err;
}
