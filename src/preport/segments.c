/* SPDX-License-Identifier: MIT */
/*
 * The input of a report as a sequence of streams: one file (or standard input), or the
 * segments of a directory written by `precord daemon`, oldest first, the live one included
 * (read up to its last flush).  A wall-clock range (--since/--until) picks the segments that
 * may hold samples in it and, inside each stream, the samples whose wall-clock time (from the
 * stream's CLOCK_DATA) falls in it: the result is that of reading every segment whole.  A
 * segment's samples do not lie inside its own span (its name's time to its mtime): the rings
 * are drained into the next segment after the switch, and the kernel keeps mtimes coarsely.
 * So a segment is picked by where its samples can lie (seg_bounds()), and a finished one is
 * left out only if its end marker's first and last sample times say it holds none in range.
 *
 * Each segment is a complete stream with its own header, events and synthesized state: the
 * report opens one at a time, reads it through, and starts its state afresh for the next, so
 * at most one segment's reader is open and memory does not grow with their number.  A
 * segment that cannot be opened or whose header is damaged is reported in one warning line
 * and skipped; nothing about one segment stops the others.  Only the listing of --header
 * reads segments on several threads, each its own, and prints when all are counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prec_clock.h"
#include "prec_log.h"
#include "prec_report.h"
#include "prec_segdir.h"
#include "preport.h"

#define NSEC ((uint64_t)1000000000)
#define PROGRESS_MIN_BYTES (64u << 20)
/* Around the times of names and mtimes: the millisecond cut of a name, a coarse mtime (a tick
 * late at most), the clock readings of CLOCK_DATA.  Wider only costs a segment read more. */
#define SLACK_NS NSEC
/* --header on a directory: threads that count segments besides the main one, at most */
#define MAX_COUNTING_THREADS 15

/* A span of times in ns; first 0: none. */
struct span {
	uint64_t first, last;
};

struct preport_input {
	const char *path;
	struct prec_reader *single; /* a file: the caller's reader; NULL for a directory */
	struct prec_segdir *d;
	struct prec_segment *segs; /* every segment listed, oldest first */
	size_t nsegs;
	size_t *pick; /* indexes into segs of those in the range */
	size_t npick;
	struct preport_range range;
	char pathbuf[4096];
	int fd; /* of the open segment, -1 if none */
	bool *bad; /* per picked stream: damaged in the first pass, skipped */
	int writer; /* prec_segdir__writer_active(): a .partial is live only if a daemon runs */
	struct span wall; /* of the samples counted, where streams map to the wall */
	uint64_t span; /* the streams' times from first to last sample counted, added up */
	bool counted; /* some sample was */
	/* every sample read, counted or not, on the streams' clock and on the wall: what a
	 * time range that counted none missed */
	struct span all, all_wall;
	char damage[320]; /* the first stream read that was cut short or corrupt, in brief */
	size_t nr_damaged;
};

bool preport_is_dir(const char *path)
{
	struct stat st;

	return strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* "2026-11-26 03:10:05" in local time, with ".123" when ms is set. */
void preport_format_wall(uint64_t ns, bool ms, char *buf, size_t len)
{
	time_t secs = (time_t)(ns / NSEC);
	struct tm tm;
	size_t n;

	if (!localtime_r(&secs, &tm) || !(n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))) {
		snprintf(buf, len, "@%" PRIu64, ns / NSEC);
		return;
	}
	if (ms)
		snprintf(buf + n, len - n, ".%03" PRIu64, ns % NSEC / 1000000);
}

/*
 * The window of sample times of stream r that --since/--until keep.  -ENODATA (and a warning
 * naming the stream, if warn_missing) when r cannot map its times to the wall clock.
 */
static int stream_window(const struct preport_input *in, struct prec_reader *r, const char *name,
			 struct preport_stream *s)
{
	struct prec_clock c;
	int err;

	s->window = false;
	if (!in->range.set)
		return 0;
	err = prec_clock__from_stream(r, &c);
	if (err) {
		if (in->single)
			fprintf(stderr,
				"preport: %s has %s wall-clock data (CLOCK_DATA), so --since and "
				"--until cannot be applied; record with precord, or with perf "
				"record -k mono\n",
				preport_shown(name), err == -ENODATA ? "no" : "unusable");
		else
			prec_warn("segment %s has %s wall-clock data (CLOCK_DATA): all its "
				  "samples are counted",
				  name, err == -ENODATA ? "no" : "unusable");
		return err;
	}
	s->window = true;
	s->lo = prec_clock__time(&c, in->range.since_ns);
	s->hi = in->range.until_ns ? prec_clock__time(&c, in->range.until_ns) : UINT64_MAX;
	return 0;
}

static struct preport_input *input_new(const char *path, const struct preport_range *range)
{
	struct preport_input *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->path = path;
	in->fd = -1;
	if (range)
		in->range = *range;
	return in;
}

int preport_input__new_file(struct prec_reader *r, const char *path,
			    const struct preport_range *range, struct preport_input **ret)
{
	struct preport_input *in = input_new(path, range);
	struct preport_stream s;
	int err;

	if (!in)
		return -ENOMEM;
	in->single = r;
	if (in->range.set) {
		/* in pipe form the clock comes with the header records */
		err = prec_reader__read_header(r);
		if (!err)
			err = stream_window(in, r, path, &s);
		if (err) {
			free(in);
			return err;
		}
	}
	*ret = in;
	return 0;
}

/*
 * The wall-clock times the samples of segs[i] can lie in, from the names and mtimes alone.
 * The daemon names a segment when it begins it, after the previous one has ended, and its
 * samples are those published after the previous segment's last drain of their ring began
 * (prec_session__end_output()), so after that segment began.  Hence: from the previous
 * segment's start (the first listed: any time, as retention may have deleted what came
 * before it) to the next one's start; for the last, to its last write (mtime) if it is
 * closed, else (live) to any time.
 */
static void seg_bounds(const struct preport_input *in, size_t i, uint64_t *lo, uint64_t *hi)
{
	const struct prec_segment *seg = in->segs;

	*lo = i && seg[i - 1].start_ns > SLACK_NS ? seg[i - 1].start_ns - SLACK_NS : 0;
	if (i + 1 < in->nsegs)
		*hi = seg[i + 1].start_ns + SLACK_NS;
	else if (!seg[i].live && seg[i].mtime_ns >= seg[i].start_ns)
		*hi = seg[i].mtime_ns + SLACK_NS;
	else
		*hi = UINT64_MAX;
}

static int open_segment(struct preport_input *in, size_t k, struct prec_reader **ret,
			const char **why);
static void close_segment(struct preport_input *in, struct prec_reader *r);

/*
 * Whether segs[k] certainly holds no sample in the range: a finished segment ends with the
 * end marker (doc/file-format.md), whose first and last sample times its CLOCK_DATA maps as
 * stream_window() maps the range for the per-sample filter.  False whenever that cannot be
 * told (live, cut short, no usable clock, no times in the marker, not readable: then it is
 * read, and warned about, as any other).
 */
static bool holds_none(struct preport_input *in, size_t k)
{
	uint64_t t[2], lo, hi;
	struct prec_reader *r;
	struct prec_clock c;
	const char *why;
	bool none = false;

	if (in->segs[k].live)
		return false;
	preport_log_subject(NULL, true); /* the reading warns, if it must */
	if (open_segment(in, k, &r, &why)) {
		preport_log_subject(NULL, false);
		return false;
	}
	if (!prec_clock__from_stream(r, &c) && !prec_segment_sample_times(in->fd, &t[0], &t[1])) {
		lo = prec_clock__time(&c, in->range.since_ns);
		hi = in->range.until_ns ? prec_clock__time(&c, in->range.until_ns) : UINT64_MAX;
		none = t[1] < lo || t[0] > hi;
	}
	close_segment(in, r);
	preport_log_subject(NULL, false);
	return none;
}

static bool overlaps(const struct preport_input *in, size_t i)
{
	uint64_t lo, hi;

	if (!in->range.set)
		return true;
	seg_bounds(in, i, &lo, &hi);
	return hi >= in->range.since_ns && (!in->range.until_ns || lo <= in->range.until_ns);
}

/* Whether all samples segs[i] can hold lie in the range: it is read, its end marker unasked. */
static bool inside(const struct preport_input *in, size_t i)
{
	uint64_t lo, hi;

	seg_bounds(in, i, &lo, &hi);
	return lo >= in->range.since_ns && (!in->range.until_ns || hi <= in->range.until_ns);
}

/*
 * Pick the segments that may hold samples in the range, less those whose end marker says they
 * hold none; but if that leaves none, those are read all the same, so that the warning says
 * where their samples lie, to the millisecond.  -ENOMEM or 0.
 */
static int pick_segments(struct preport_input *in)
{
	size_t i, n = 0, *keep;

	for (i = 0; i < in->nsegs; i++)
		if (overlaps(in, i))
			in->pick[in->npick++] = i;
	if (!in->range.set || !in->npick)
		return 0;
	keep = calloc(in->npick, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (i = 0; i < in->npick; i++)
		if (inside(in, in->pick[i]) || !holds_none(in, in->pick[i]))
			keep[n++] = in->pick[i];
	if (n) {
		memcpy(in->pick, keep, n * sizeof(*keep));
		in->npick = n;
	}
	free(keep);
	return 0;
}

int preport_input__new_dir(const char *path, const struct preport_range *range,
			   struct preport_input **ret)
{
	struct preport_input *in = input_new(path, range);
	int err;

	if (!in)
		return -ENOMEM;
	err = prec_segdir__open_read(path, &in->d);
	if (!err)
		err = prec_segdir__list(in->d, &in->segs, &in->nsegs);
	if (!err && !in->nsegs)
		err = -ENOENT;
	if (!err && !(in->pick = calloc(in->nsegs, sizeof(*in->pick))))
		err = -ENOMEM;
	if (err) {
		if (err == -ENOENT)
			fprintf(stderr,
				"preport: no segments in '%s' (files named "
				"precord-YYYYMMDDTHHMMSS.mmmZ-N.data); give a directory "
				"written by precord daemon, or a recording file\n",
				path);
		else
			fprintf(stderr, "preport: cannot read the directory '%s': %s\n", path,
				strerror(-err));
		preport_input__free(in);
		return err;
	}
	in->writer = prec_segdir__writer_active(in->d);
	err = pick_segments(in);
	if (err) {
		preport_input__free(in);
		return err;
	}
	if (!in->npick) {
		char a[32], b[32];

		preport_format_wall(in->segs[0].start_ns, true, a, sizeof(a));
		preport_format_wall(prec_segment_end_ns(in->segs, in->nsegs, in->nsegs - 1), true,
				    b, sizeof(b));
		prec_warn("no segment of %s is in the time range asked for; they span %s to %s",
			  path, a, b);
	}
	*ret = in;
	return 0;
}

void preport_input__free(struct preport_input *in)
{
	if (!in)
		return;
	if (in->fd >= 0)
		close(in->fd);
	free(in->bad);
	free(in->pick);
	free(in->segs);
	prec_segdir__free(in->d);
	free(in);
}

static size_t count(const struct preport_input *in)
{
	return in->single ? 1 : in->npick;
}

/* A --since/--until time, with its milliseconds if it has any; 0 is `none` if given. */
static void format_bound(uint64_t ns, const char *none, char *buf, size_t len)
{
	if (!ns && none)
		snprintf(buf, len, "%s", none);
	else
		preport_format_wall(ns, ns % NSEC != 0, buf, len);
}

size_t preport_input__count(const struct preport_input *in, size_t *ret_all)
{
	*ret_all = in->single ? 0 : in->nsegs;
	return in->single ? 1 : in->npick;
}

void preport_input__print_range(const struct preport_input *in, FILE *out)
{
	const struct preport_range *rg = &in->range;
	char a[32], b[32];

	if (!rg->set)
		return;
	format_bound(rg->since_ns, "the start", a, sizeof(a));
	format_bound(rg->until_ns, "the end", b, sizeof(b));
	fprintf(out, "# time range: from %s to %s (local time)", a, b);
	if (!in->single)
		fprintf(out, ", %zu of %zu segments", in->npick, in->nsegs);
	fputs("\n#\n", out);
}

/* Open segment segs[k]: its reader with the header read, or -errno with *why set. */
/* Open segs[k] and read its header: its fd and reader, or -errno and *why.  Uses nothing of
 * `in` that changes, so the listing's threads call it at once. */
static int open_reader(const struct preport_input *in, size_t k, int *ret_fd,
		       struct prec_reader **ret, const char **why)
{
	struct prec_reader *r = NULL;
	int fd = -1, err;

	*why = NULL;
	preport_clear_error();
	err = prec_segdir__open_segment(in->d, &in->segs[k], &fd);
	if (!err)
		err = prec_reader__open_fd(fd, &r);
	if (!err)
		err = prec_reader__read_header(r);
	if (!err && !prec_reader__nr_evsels(r)) {
		err = -EBADMSG;
		*why = "no events in its header";
	}
	if (err) {
		if (!*why)
			*why = err == -EBADMSG || err == -EPROTONOSUPPORT ? preport_why(err)
									  : strerror(-err);
		prec_reader__free(r);
		if (fd >= 0)
			close(fd);
		return err;
	}
	*ret_fd = fd;
	*ret = r;
	return 0;
}

static int open_segment(struct preport_input *in, size_t k, struct prec_reader **ret,
			const char **why)
{
	return open_reader(in, k, &in->fd, ret, why);
}

/* The path of segs[k], in in->pathbuf. */
static const char *segment_path(struct preport_input *in, size_t k)
{
	snprintf(in->pathbuf, sizeof(in->pathbuf), "%s/%s", in->path, in->segs[k].name);
	return in->pathbuf;
}

static void close_segment(struct preport_input *in, struct prec_reader *r)
{
	prec_reader__free(r);
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}

int preport_input__open_stream(struct preport_input *in, size_t i, struct preport_stream *ret)
{
	const struct prec_segment *seg;
	struct prec_reader *r;
	const char *why;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (in->single) {
		err = prec_reader__read_header(in->single);
		if (err)
			return err;
		ret->r = in->single;
		ret->name = in->path;
		ret->path = in->path;
		return stream_window(in, in->single, in->path, ret);
	}
	seg = &in->segs[in->pick[i]];
	err = open_segment(in, in->pick[i], &r, &why);
	if (err == -ENOENT) {
		prec_warn("segment %s is gone (deleted since it was listed); skipped", seg->name);
		return err;
	}
	if (err) {
		prec_warn("segment %s is damaged (%s); skipped", seg->name, why);
		return err;
	}
	preport_log_subject(seg->name, false);
	ret->r = r;
	ret->name = seg->name;
	ret->path = segment_path(in, in->pick[i]);
	/* a .partial no daemon holds is one a crash left: cut short, and said so */
	ret->live = seg->live && in->writer;
	/* without a clock the segment still counts whole: it was picked by its span */
	if (stream_window(in, r, seg->name, ret) == -ENOMEM) {
		close_segment(in, r);
		return -ENOMEM;
	}
	return 0;
}

void preport_input__close_stream(struct preport_input *in, struct preport_stream *s)
{
	if (s->r && !in->single) {
		close_segment(in, s->r);
		preport_log_subject(NULL, false);
	}
	s->r = NULL;
}

/* ---- the streams read as one recording ---- */

int preport_input__survey(struct preport_input *in, struct prec_report_session *rs)
{
	size_t n = count(in), i, nr_ok = 0;
	int err = 0;

	free(in->bad);
	in->bad = calloc(n ? n : 1, sizeof(*in->bad));
	if (!in->bad)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		struct preport_stream s;

		err = preport_input__open_stream(in, i, &s);
		if (err) {
			in->bad[i] = true;
			err = err == -ENOMEM ? err : 0;
			continue;
		}
		nr_ok++;
		err = prec_report_session__add_stream(rs, s.r);
		preport_input__close_stream(in, &s);
	}
	if (err || nr_ok)
		return err;
	/* a single file's own error, or no segment readable (each one's reason warned) */
	if (in->single)
		return -EBADMSG;
	if (!n)
		return 0;
	fprintf(stderr, "preport: no segment could be read in '%s'\n", in->path);
	return -ENODATA;
}

struct progress {
	uint64_t size;
	int last;
};

static void progress(void *arg, uint64_t offset)
{
	struct progress *p = arg;
	int pc = (int)(100 * offset / p->size);

	if (pc != p->last) {
		fprintf(stderr, "\rpreport: reading %d%%", pc);
		p->last = pc;
	}
}

/* Read one stream into rs, with a progress line on a terminal for a big file. */
static int read_stream(struct prec_report_session *rs, const struct preport_stream *s,
		       bool show_progress)
{
	struct prec_report_stream st = { s->r, 0, UINT64_MAX, NULL, NULL };
	struct progress p = { 0, -1 };
	struct stat sb;
	int err;

	if (s->window) {
		st.lo = s->lo;
		st.hi = s->hi;
	}
	if (show_progress && strcmp(s->path, "-") && !stat(s->path, &sb) &&
	    (uint64_t)sb.st_size > PROGRESS_MIN_BYTES && isatty(2)) {
		p.size = (uint64_t)sb.st_size;
		st.progress = progress;
		st.arg = &p;
	}
	err = prec_report_session__read(rs, &st);
	if (p.size)
		fputs("\r                      \r", stderr);
	return err;
}

static void span_add(struct span *s, uint64_t a, uint64_t b)
{
	if (!s->first || a < s->first)
		s->first = a;
	if (b > s->last)
		s->last = b;
}

/* The times t of a stream's samples into clock (NULL: not kept) and, where the stream says
 * how, on the wall clock into wall.  False when t holds no sample. */
static bool add_times(struct span *clock, struct span *wall, const struct prec_reader *r,
		      const struct prec_time_range *t)
{
	struct prec_clock c;

	if (!t->first || t->last < t->first)
		return false;
	if (clock)
		span_add(clock, t->first, t->last);
	if (!prec_clock__from_stream(r, &c))
		span_add(wall, prec_clock__wall(&c, t->first), prec_clock__wall(&c, t->last));
	return true;
}

void preport_input__times(const struct preport_input *in, uint64_t *ret_wall_first,
			  uint64_t *ret_duration)
{
	*ret_wall_first = in->wall.first;
	*ret_duration = in->wall.first ? in->wall.last - in->wall.first : in->span;
}

/* Stream s was cut short or is corrupt (what): noted for an export's title, the first one. */
static void note_damage(struct preport_input *in, const struct preport_stream *s, const char *what)
{
	if (!in->nr_damaged++)
		snprintf(in->damage, sizeof(in->damage), "%s%s %s",
			 in->single ? "input" : "segment ", in->single ? "" : s->name, what);
}

bool preport_input__damage(const struct preport_input *in, char *buf, size_t len)
{
	if (in->nr_damaged > 1)
		snprintf(buf, len, "%s; and %zu more", in->damage, in->nr_damaged - 1);
	else if (in->nr_damaged)
		snprintf(buf, len, "%s", in->damage);
	return in->nr_damaged;
}

bool preport_input__range(const struct preport_input *in, struct preport_range *ret_range)
{
	if (!in->range.set)
		return false;
	*ret_range = in->range;
	return true;
}

void preport_input__warn_no_sample(const struct preport_input *in, bool time_set)
{
	char a[32], b[32], wall[96] = "", clk[96] = "", segs[64] = "";

	if ((!in->range.set && !time_set) || in->counted || !in->all.first)
		return;
	if (in->all_wall.first) {
		preport_format_wall(in->all_wall.first, true, a, sizeof(a));
		preport_format_wall(in->all_wall.last, true, b, sizeof(b));
		snprintf(wall, sizeof(wall), "%s to %s (local time)", a, b);
	}
	if (time_set || !*wall)
		snprintf(clk, sizeof(clk), "%s%.6f to %.6f s on the perf clock (as --time takes it)",
			 *wall ? ", " : "", (double)in->all.first / 1e9, (double)in->all.last / 1e9);
	if (!in->single)
		snprintf(segs, sizeof(segs), " of the %zu segment%s read", in->npick,
			 in->npick == 1 ? "" : "s");
	prec_warn("no sample of %s is in the time range asked for; the samples%s span %s%s",
		  preport_shown(in->path), segs, wall, clk);
}

int preport_input__read(struct preport_input *in, struct prec_report_session *rs,
			bool show_progress)
{
	size_t n = count(in), i;
	int err = 0;

	for (i = 0; i < n; i++) {
		struct preport_stream s;

		if (in->bad[i])
			continue;
		err = preport_input__open_stream(in, i, &s);
		if (err == -ENOMEM)
			return err;
		if (err)
			continue; /* changed since the first pass; warned */
		err = read_stream(rs, &s, show_progress);
		if (!err || err == -EBADMSG) {
			const struct prec_time_range *t = prec_report_session__counted_times(rs);

			if (add_times(NULL, &in->wall, s.r, t)) {
				in->span += t->last - t->first;
				in->counted = true;
			}
			add_times(&in->all, &in->all_wall, s.r, prec_report_session__times(rs));
		}
		if (!err && !s.live && prec_reader__cut_short(s.r)) { /* live: no end marker yet */
			char note[192];

			/* a directory's segment that is not live was left by a daemon */
			preport_warn_cut(s.r, s.name, prec_report_session__times(rs),
					 in->single ? NULL
						    : "the daemon writing it was killed or its disk "
						      "filled up");
			preport_cut_note(s.r, prec_report_session__times(rs), note, sizeof(note));
			note_damage(in, &s, note);
		}
		if (err == -EBADMSG) {
			char note[256];

			snprintf(note, sizeof(note), "corrupt: %s", preport_why(err));
			note_damage(in, &s, note);
		}
		preport_input__close_stream(in, &s);
		if (err == -ESTALE) {
			prec_warn("%s changed while it was read; skipped", s.name);
			err = 0;
		}
		if (err == -EBADMSG && !in->single) {
			prec_warn("segment %s is corrupt (%s): its records before that are counted",
				  s.name, preport_why(err));
			err = 0;
		}
		if (err)
			return err;
	}
	return 0;
}

/* ---- preport -i DIR --header and -D ---- */

struct seg_count {
	uint64_t samples;
	bool truncated;
	int err;
	char why[256]; /* a copy: preport_why()'s text is the counting thread's */
};

static void count_segment(const struct preport_input *in, size_t k, struct seg_count *c)
{
	struct prec_reader *r;
	struct prec_record rec;
	const char *why;
	int fd, err;

	if (open_reader(in, k, &fd, &r, &why)) {
		c->err = -EBADMSG;
		snprintf(c->why, sizeof(c->why), "%s", why);
		return;
	}
	while ((err = prec_reader__next(r, &rec)) > 0) {
		if (rec.type == PERF_RECORD_SAMPLE)
			c->samples++;
		prec_reader__release(r, NULL);
	}
	c->truncated = prec_reader__truncated(r);
	if (err < 0) {
		c->err = err;
		snprintf(c->why, sizeof(c->why), "%s", preport_why(err));
	}
	prec_reader__free(r);
	close(fd);
}

/* The picked segments counted by several threads, each taking the next one not taken. */
struct seg_counting {
	const struct preport_input *in;
	struct seg_count *counts; /* one per picked segment */
	size_t next;		  /* atomic */
};

static void *count_segments(void *arg)
{
	struct seg_counting *sc = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&sc->next, 1, __ATOMIC_RELAXED)) < sc->in->npick)
		count_segment(sc->in, sc->in->pick[i], &sc->counts[i]);
	return NULL;
}

/* Count every picked segment: decompressing them is nearly all a listing's work, so one
 * thread per CPU does it (this one among them; fewer if threads cannot be made). */
static void count_picked(const struct preport_input *in, struct seg_count *counts)
{
	struct seg_counting sc = { in, counts, 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 1 ? (size_t)cpus - 1 : 0, i, started = 0;
	pthread_t *t;

	if (n > MAX_COUNTING_THREADS)
		n = MAX_COUNTING_THREADS;
	if (n >= in->npick)
		n = in->npick ? in->npick - 1 : 0;
	t = n ? calloc(n, sizeof(*t)) : NULL;
	for (i = 0; t && i < n; i++)
		if (!pthread_create(&t[started], NULL, count_segments, &sc))
			started++;
	count_segments(&sc);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
}

/* How a .partial segment is named: live, or left so by a daemon that is gone. */
static const char *live_label(const struct preport_input *in)
{
	return in->writer ? "live" : "left live by a crash";
}

int preport_input__print_listing(struct preport_input *in, FILE *out)
{
	char start[32], end[32], since[32], until[32];
	uint64_t total_samples = 0, total_bytes = 0;
	struct seg_count *counts;
	size_t i;

	fprintf(out, "# segment directory : %s (%zu segments", in->path, in->nsegs);
	if (in->range.set) {
		format_bound(in->range.since_ns, NULL, since, sizeof(since));
		format_bound(in->range.until_ns, "now", until, sizeof(until));
		fprintf(out, ", %zu from %s to %s", in->npick, since, until);
	}
	fputs(")\n", out);
	fprintf(out, "# %-48s %-23s %-23s %10s %12s\n", "segment", "start", "end", "samples",
		"bytes");
	counts = calloc(in->npick ? in->npick : 1, sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	/* what is wrong goes in the listing, not in warnings too */
	preport_log_subject(NULL, true);
	count_picked(in, counts);
	preport_log_subject(NULL, false);
	for (i = 0; i < in->npick; i++) {
		size_t k = in->pick[i];
		const struct prec_segment *seg = &in->segs[k];
		const struct seg_count *c = &counts[i];

		preport_format_wall(seg->start_ns, true, start, sizeof(start));
		preport_format_wall(prec_segment_end_ns(in->segs, in->nsegs, k), true, end,
				    sizeof(end));
		fprintf(out, "# %-48s %-23s %-23s %10" PRIu64 " %12" PRIu64, seg->name, start, end,
			c->samples, seg->size);
		if (seg->live)
			fprintf(out, "  %s", live_label(in));
		if (c->err)
			fprintf(out, "  damaged: %s", c->why);
		else if (c->truncated && !seg->live)
			fputs("  cut short", out);
		fputc('\n', out);
		total_samples += c->samples;
		total_bytes += seg->size;
	}
	fprintf(out, "# %-48s %-23s %-23s %10" PRIu64 " %12" PRIu64 "\n#\n", "total", "", "",
		total_samples, total_bytes);
	free(counts);
	return ferror(out) ? -EIO : 0;
}

int preport_input__print_first_header(struct preport_input *in, FILE *out)
{
	size_t i;

	for (i = 0; i < in->npick; i++) {
		struct prec_reader *r;
		const char *why;
		int err;

		if (open_segment(in, in->pick[i], &r, &why))
			continue;
		fprintf(out, "# header of %s:\n", in->segs[in->pick[i]].name);
		err = preport_print_header(r, segment_path(in, in->pick[i]), out);
		close_segment(in, r);
		return err;
	}
	return 0;
}

int preport_input__dump(struct preport_input *in, FILE *out)
{
	size_t n = count(in), i;

	for (i = 0; i < n; i++) {
		struct preport_stream s;
		int err;

		if (!in->single) {
			const struct prec_segment *seg = &in->segs[in->pick[i]];

			fprintf(out, "# ======== segment %s%s%s%s ========\n", seg->name,
				seg->live ? " (" : "", seg->live ? live_label(in) : "",
				seg->live ? ")" : "");
		}
		err = preport_input__open_stream(in, i, &s);
		if (err && (err == -ENOMEM || in->single))
			return err;
		if (err)
			continue; /* warned */
		err = preport_dump(s.r, s.live ? NULL : s.name, &s, out);
		preport_input__close_stream(in, &s);
		if (in->single || err == -ENOMEM || err == -EIO)
			return err;
		if (err)
			prec_warn("segment %s is corrupt after the records printed (%s)", s.name,
				  preport_why(err));
	}
	return 0;
}
