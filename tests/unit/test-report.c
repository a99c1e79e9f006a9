/* SPDX-License-Identifier: MIT */
/*
 * lib/report's session and its time ordering, through their APIs:
 *  - prec_order hands records on in (time, arrival) order, a round late: at a FINISHED_ROUND
 *    only what the round before covered, everything at the end;
 *  - a session that reads a golden recording twice, as two streams (the segments of a
 *    directory), matches their events into one and counts everything twice: the folded
 *    stacks have twice the counts of one read, and the lost samples (perf-lost.data: LOST and
 *    LOST_SAMPLES records for the same 42 drops) are 2 x 42.
 */
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>

#include "prec_order.h"
#include "prec_report.h"
#include "prec_view.h"
#include "tap.h"

/* ---- prec_order ---- */

struct seen {
	uint64_t time[16];
	int evsel[16];
	size_t n;
};

static int collect(void *arg, const struct perf_event_header *rec, size_t size, int evsel)
{
	struct seen *s = arg;
	uint64_t t;

	if (s->n == 16 || size < 16)
		return -E2BIG;
	memcpy(&t, (const unsigned char *)rec + 8, 8);
	s->time[s->n] = t;
	s->evsel[s->n++] = evsel;
	return 0;
}

/* Queue a 16-byte record holding its time (a copy: not stable). */
static int add(struct prec_order *q, uint64_t time, int evsel)
{
	unsigned char buf[16];
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = 0, .size = 16 };
	struct prec_record rec = { 0 };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &time, 8);
	rec.type = h.type;
	rec.size = h.size;
	rec.data = buf;
	return prec_order__add(q, &rec, time, evsel);
}

static void test_order(struct prec_reader *r)
{
	static const uint64_t want[] = { 3, 4, 5, 6, 6, 7, 9 };
	struct prec_order *q;
	struct seen s = { 0 };
	size_t i;
	bool same = true;
	int err;

	if (!ok(!prec_order__new(collect, &s, &q), "prec_order__new"))
		return;
	prec_order__reset(q, r);
	err = add(q, 5, 0) ?: add(q, 3, 0) ?: prec_order__round(q);
	is_u64(err ? UINT64_MAX : s.n, 0, "the first round waits for the next");
	err = add(q, 4, 0) ?: add(q, 9, 0) ?: add(q, 6, 1) ?: add(q, 6, 2) ?: prec_order__round(q);
	is_u64(err ? UINT64_MAX : s.n, 3, "the second round hands on what the first covered");
	err = add(q, 7, 0) ?: prec_order__flush_all(q);
	is_u64(err ? UINT64_MAX : s.n, 7, "the end hands on the rest");
	for (i = 0; i < s.n && i < 7; i++)
		same = same && s.time[i] == want[i];
	ok(same, "in time order: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		 " %" PRIu64 " %" PRIu64,
	   s.time[0], s.time[1], s.time[2], s.time[3], s.time[4], s.time[5], s.time[6]);
	ok(s.evsel[3] == 1 && s.evsel[4] == 2, "equal times keep their arrival order");
	prec_order__free(q);
}

/* ---- the session ---- */

/* The folded view of `path` read `times` times as that many streams; the lost samples of
 * its first event into *ret_lost.  malloc'ed text, or NULL. */
static char *report(const char *dir, const char *file, int times, uint64_t *ret_lost)
{
	char symfs[PATH_MAX + 16], kallsyms[PATH_MAX + 16], path[PATH_MAX + 64];
	struct prec_report_opts o = { 0 };
	struct prec_hist_opts ho = { 0 };
	struct prec_report_session *rs = NULL;
	struct prec_report_facts f;
	struct prec_reader *r[2] = { NULL, NULL };
	char *text = NULL;
	size_t len = 0;
	FILE *out = NULL;
	int i, err;

	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	o.symfs = symfs;
	o.kallsyms = kallsyms;
	o.max_stack = 127;
	ho.keys[0] = PREC_SORT_COMM;
	ho.keys[1] = PREC_SORT_DSO;
	ho.keys[2] = PREC_SORT_SYM;
	ho.nr_keys = 3;
	ho.need_comm = true;
	err = prec_report_session__new(&o, &rs);
	for (i = 0; i < times && !err; i++) {
		err = prec_reader__open(path, &r[i]);
		if (!err)
			err = prec_reader__read_header(r[i]);
		if (!err)
			err = prec_report_session__add_stream(rs, r[i]);
	}
	if (!err)
		err = prec_report_session__open(rs, &f);
	if (!err && f.nr_events != 1)
		err = -EPROTO;
	if (!err)
		err = prec_report_session__start(rs, &ho);
	for (i = 0; i < times && !err; i++) {
		struct prec_report_stream st = { r[i], 0, UINT64_MAX, NULL, NULL };

		err = prec_report_session__read(rs, &st);
	}
	if (!err)
		err = prec_report_session__finish(rs);
	if (!err) {
		*ret_lost = prec_report_session__event(rs, 0)->lost_samples;
		out = open_memstream(&text, &len);
		err = out ? prec_view__folded(prec_report_session__hist(rs), PREC_VIEW_ALL_EVENTS,
					      out)
			  : -ENOMEM;
	}
	if (out)
		fclose(out);
	prec_report_session__free(rs);
	for (i = 0; i < 2; i++)
		prec_reader__free(r[i]);
	if (err) {
		printf("# %s x%d: %s\n", file, times, strerror(-err));
		free(text);
		return NULL;
	}
	return text;
}

/* Whether every line of `twice` is a line of `once` with its count doubled, and as many. */
static bool doubled(const char *once, const char *twice, size_t *ret_lines)
{
	const char *a = once, *b = twice;

	*ret_lines = 0;
	while (*a && *b) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		const char *sa = ea ? ea : a + strlen(a), *sb = eb ? eb : b + strlen(b);
		const char *ca = sa, *cb = sb;

		while (ca > a && ca[-1] != ' ')
			ca--;
		while (cb > b && cb[-1] != ' ')
			cb--;
		if (ca - a != cb - b || memcmp(a, b, (size_t)(ca - a)) ||
		    2 * strtoull(ca, NULL, 10) != strtoull(cb, NULL, 10))
			return false;
		(*ret_lines)++;
		a = ea ? ea + 1 : sa;
		b = eb ? eb + 1 : sb;
	}
	return !*a && !*b;
}

/* The contents of a file, malloc'ed; NULL if it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t n = 0, cap = 0;
	int c;

	if (!f)
		return NULL;
	while ((c = getc(f)) != EOF) {
		if (n + 2 > cap) {
			char *t = realloc(text, cap = cap ? 2 * cap : 4096);

			if (!t)
				break;
			text = t;
		}
		text[n++] = (char)c;
	}
	if (text)
		text[n] = 0;
	fclose(f);
	return text;
}

/* has_golden: the golden test keeps preport --folded of the file (expected/REC/folded.out) */
static void test_session(const char *dir, const char *file, uint64_t lost_once, bool has_golden)
{
	uint64_t lost1 = 0, lost2 = 0;
	char *once = report(dir, file, 1, &lost1);
	char *twice = report(dir, file, 2, &lost2);
	char golden[PATH_MAX + 64], *want;
	size_t lines = 0;

	/* what preport --folded printed of it, through the same session */
	snprintf(golden, sizeof(golden), "%s/expected/%.*s/folded.out", dir,
		 (int)(strlen(file) - strlen(".data")), file);
	want = has_golden ? slurp(golden) : NULL;
	if (ok(once && twice && *once, "%s read once and twice as two streams", file)) {
		bool same = doubled(once, twice, &lines);

		if (has_golden)
			ok(want && !strcmp(once, want), "%s: the folded stacks of preport --folded",
			   file);
		ok(same, "%s: the same folded stacks (%zu), each counted twice", file, lines);
		is_u64(lost1, lost_once, "%s: lost samples of one read", file);
		is_u64(lost2, 2 * lost_once, "%s: lost samples of two streams", file);
	}
	free(want);
	free(once);
	free(twice);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct prec_reader *r;

	snprintf(dir, sizeof(dir), "%s/tests/data/golden", top && top[0] ? top : ".");
	snprintf(path, sizeof(path), "%s/precord-g.data", dir);
	if (ok(!prec_reader__open(path, &r), "open %s", path)) {
		test_order(r);
		prec_reader__free(r);
	}
	test_session(dir, "perf-lost.data", 42, false);
	test_session(dir, "precord-g.data", 0, true);
	test_session(dir, "perf-pipe.data", 0, true);
	return done_testing();
}
