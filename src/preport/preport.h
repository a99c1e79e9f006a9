/* SPDX-License-Identifier: MIT */
/* preport internals shared between its files. */
#ifndef PREPORT_H
#define PREPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prec_reader.h"

#include "prec_hist.h"
#include "prec_report.h"
#include "prec_view.h"

/*
 * An export's file (export.c): written instead of a report, 0600, never through a symbolic
 * link.  open() before the input is read (0, or 1 after a one-line error: the exit status);
 * begin() when there is something to write, which empties an existing file (0 or -errno);
 * close() after the report, with the exit status so far: the status to exit with (1 when
 * the file could not be written; a file made here is removed again unless all went well).
 */
struct preport_export {
	const char *path; /* NULL: not asked; "-": standard output */
	const char *what; /* for messages: "pprof profile" */
	FILE *f;
	bool created;
	bool complete; /* all of it written (of what came before a corrupt part, too) */
};
int preport_export__open(struct preport_export *e);
int preport_export__begin(const struct preport_export *e);
int preport_export__close(struct preport_export *e, int rc);

/*
 * What the report shows (see preport --help).  The hist's and the view's options are set
 * by the command line where it gives them directly; report.c fills in the rest from what
 * the recording holds (children, graph mode and order when not given, ...).
 */
struct preport_report_opts {
	struct prec_hist_opts hist; /* --sort, --inline, --dsos, --symbols, -F's keys */
	struct prec_view_opts view; /* -n, -F, --show-total-period, --percent-limit, -t, -g */
	int children; /* -1: when there are call chains */
	int graph; /* enum prec_graph_mode, -1: graph when there are call chains */
	int order; /* -1: perf's default, 0: callee, 1: caller */
	bool folded;
	int inline_frames; /* --inline 1, --no-inline 0; -1: not given (on for --pprof) */
	/* --pprof FILE, --flamegraph FILE: a pprof profile or an SVG instead of a view
	 * (preport_opts' files; NULL: not asked) */
	struct preport_export *pprof, *flame;
	bool inverted; /* -G given: with --flamegraph, an icicle of callers */
	/* the options given that leave samples out, as options ("--comms cc1 --cpu 0-3");
	 * NULL: none */
	const char *filters;
	bool quiet;
	/* what the session needs: symbols, -U, -T (thread_counts), --max-stack, the sample
	 * filters */
	struct prec_report_opts session;
	/* --time in percent forms: slices as fractions of the input's span (time_slices.c) */
	double (*time_pct)[2];
	size_t nr_time_pct;
	/* the process exits right after: leave the report's memory to the kernel */
	bool no_teardown;
};

/* --since/--until: wall-clock times, ns since the epoch. */
struct preport_range {
	bool set;
	uint64_t since_ns; /* 0: from the start */
	uint64_t until_ns; /* 0: to the end */
};

/* ---- the command line (options.c) ---- */

struct preport_opts {
	const char *input; /* NULL: not given */
	bool dump_raw; /* -D */
	bool header; /* --header: features, then the report */
	bool header_only; /* --header-only */
	bool verbose; /* -v; -q is report.quiet */
	bool no_symbol_cache;
	const char *since, *until, *fields; /* as given; NULL: not given */
	struct preport_range range; /* --since, --until */
	/* the lists behind report's pointers (--comms, --pid, --tid, --cpu, --dsos, --symbols)
	 * are owned here: preport_opts__free() */
	struct preport_export pprof_file, flame_file; /* report.pprof, report.flame point here */
	struct preport_report_opts report;
};

/*
 * Parse preport's command line into *o, checked, with the defaults filled in (--max-stack:
 * the kernel's limit).  Returns true when the command is to run; false when preport is to
 * exit with *ret_status: 0 after --help or --version, 2 after a one-line error on stderr
 * about a bad option or value, 1 out of memory.  Free *o with preport_opts__free() either way.
 */
bool preport_opts__parse(struct preport_opts *o, int argc, char **argv, int *ret_status);
void preport_opts__free(struct preport_opts *o);

/* ---- -D (dump.c), the end of a stream (cut.c), --header (header.c) ---- */

struct preport_stream;

/*
 * -D: one line per record, then totals per type.  With a window (win->window, from
 * --since/--until), the samples outside it are left out and counted.  win may be NULL.
 * Returns 0 or -errno.
 */
int preport_dump(struct prec_reader *r, const char *input, const struct preport_stream *win,
		 FILE *out);

/* The event of record `rec`, or NULL when its id is not known (cut.c). */
const struct prec_evsel *preport_evsel_of(const struct prec_reader *r,
					 const struct prec_record *rec);
/* Counts the time of `rec` into `t` if it is a SAMPLE. */
void preport_times_add_record(struct prec_time_range *t, const struct prec_reader *r,
			      const struct prec_record *rec);
/*
 * After the last record was read: one warning line on stderr if `r` is a precord stream that
 * was cut short (prec_reader__cut_short()), saying when it ends and `why` (NULL: the causes a
 * single recording has).  Nothing for a NULL input (a daemon's live segment, which has no end
 * marker yet).
 */
void preport_warn_cut(const struct prec_reader *r, const char *input,
		      const struct prec_time_range *t, const char *why);
/* The same in brief, "cut short at TIME", into buf (len bytes). */
void preport_cut_note(const struct prec_reader *r, const struct prec_time_range *t, char *buf,
		      size_t len);

/*
 * --header / --header-only: print the header and its features.  In pipe form call
 * prec_reader__read_header() first, or the features are not known yet.  A malformed feature
 * is one "# NAME: malformed" line, not an error.  Returns 0 or -errno (-ENOMEM, -EIO).
 */
int preport_print_header(struct prec_reader *r, const char *input, FILE *out);

/* The library's last error message for err (or strerror), and forgetting it (preport.c). */
const char *preport_why(int err);
void preport_clear_error(void);
/* The input as messages name it: 'PATH' quoted, or standard input for "-"; valid until the
 * next call. */
const char *preport_shown(const char *input);
/* Name `name` (NULL: nothing) in the library's warnings from now on, or mute them. */
void preport_log_subject(const char *name, bool mute);

/* ---- the input as a sequence of streams (segments.c) ---- */

/* One stream of the input, open. */
struct preport_stream {
	struct prec_reader *r; /* header read */
	const char *name;      /* for messages: the file, or the segment's name */
	const char *path;      /* its path */
	bool live;	       /* the live segment of a directory */
	bool window;	       /* --since/--until: only samples with lo <= time <= hi */
	uint64_t lo, hi;
};

struct preport_input;

/* ---- --time's percent forms (time_slices.c) ---- */

/*
 * Parse perf's percent forms of --time ("10%/2", "0%-10%,30%-40%", "25%") into *ret, n pairs
 * of fractions (start, end) of the input's span, to free().  -EINVAL for anything else.
 */
int preport_time_slices_parse(const char *arg, double (**ret)[2], size_t *ret_n);
/*
 * The n slices as sample times, *ret (to free()), from the first and last sample of `in`
 * (streams opened and closed again; a perf file's SAMPLE_TIME feature when it has one).
 * -errno of reading; -ESPIPE for standard input, which cannot be read twice.
 */
int preport_time_slices_resolve(struct preport_input *in, const double (*pct)[2], size_t n,
				uint64_t (**ret)[2]);

bool preport_is_dir(const char *path);
/* "2026-11-26 03:10:05" in local time, with ".123" if ms. */
void preport_format_wall(uint64_t ns, bool ms, char *buf, size_t len);

/*
 * A single stream r (not owned).  With a range, r must have wall-clock data: else a one-line
 * error is printed and -ENODATA or -EBADMSG returned.
 */
int preport_input__new_file(struct prec_reader *r, const char *path,
			    const struct preport_range *range, struct preport_input **ret);
/*
 * The segments of directory path that overlap range (NULL: all).  Errors (an unreadable
 * directory, -ENOENT when it holds no segments) are printed in one line.
 */
int preport_input__new_dir(const char *path, const struct preport_range *range,
			   struct preport_input **ret);
void preport_input__free(struct preport_input *in);
/* After preport_input__read(): the wall-clock time of the first sample counted (ns since the
 * epoch; 0 when no stream has wall-clock data) and the time from the first to the last. */
void preport_input__times(const struct preport_input *in, uint64_t *ret_wall_first,
			  uint64_t *ret_duration);
/* After preport_input__read(): true, and into buf (len bytes) in brief, when a stream read
 * was cut short or is corrupt ("input cut short at TIME", "segment NAME corrupt: WHY; and 2
 * more"): what an export shows is then partial. */
bool preport_input__damage(const struct preport_input *in, char *buf, size_t len);
/* The --since/--until range (wall-clock ns since the epoch, 0: open at that end) into
 * *ret_range; false, *ret_range untouched, when none was given. */
bool preport_input__range(const struct preport_input *in, struct preport_range *ret_range);
/* After preport_input__read(), when --since/--until or --time (time_set) were given and
 * left no sample of those read: a warning that says so, with the times the samples span. */
void preport_input__warn_no_sample(const struct preport_input *in, bool time_set);
/* The streams to read: 1 for a file, the segments picked for a directory, whose count of
 * all its segments goes into *ret_all (0 for a file). */
size_t preport_input__count(const struct preport_input *in, size_t *ret_all);
/* The report's line on --since/--until (nothing without them), with the number of segments
 * read of a directory. */
void preport_input__print_range(const struct preport_input *in, FILE *out);
/*
 * Open stream i (one at a time).  A damaged segment is reported in a warning and -errno
 * returned: skip it.  -ENOMEM is the only error that should stop the caller.
 */
int preport_input__open_stream(struct preport_input *in, size_t i, struct preport_stream *ret);
void preport_input__close_stream(struct preport_input *in, struct preport_stream *s);
/* -i DIR --header: one line per picked segment (start, end, samples, bytes, markers). */
int preport_input__print_listing(struct preport_input *in, FILE *out);
/* The header of the first readable picked segment. */
int preport_input__print_first_header(struct preport_input *in, FILE *out);
/* -D: the file's dump, or each picked segment's after a separator line.  For a file, its
 * error (-EBADMSG after the records before the corrupt part); a corrupt segment is warned
 * about.  0 or -errno. */
int preport_input__dump(struct preport_input *in, FILE *out);

struct prec_report_session;
/*
 * The first pass of a report: each picked stream's header into rs
 * (prec_report_session__add_stream); a damaged segment is warned about and skipped from then
 * on.  0, -EBADMSG for a single file whose header cannot be read, -ENODATA when no segment
 * of a directory can be read (said on stderr, after each one's warning), or -ENOMEM.
 */
int preport_input__survey(struct preport_input *in, struct prec_report_session *rs);
/*
 * The second pass: each stream's records into rs (prec_report_session__read), with a warning
 * for a stream cut short or a corrupt segment, and a progress line on a terminal for big
 * files if show_progress.  0, -EBADMSG for a single file that is corrupt (what came before
 * counts), or -errno.
 */
int preport_input__read(struct preport_input *in, struct prec_report_session *rs,
			bool show_progress);

/* ---- the report (report.c) ---- */

/*
 * Read the streams of `in` as one recording and print the report.  Returns 0, -EBADMSG
 * after printing what came before a corrupt part of a single file, -errno (-ENOMEM, -EIO);
 * or, with o->cpus and no event that records CPU numbers, -ENOTSUP before printing anything.
 */
int preport_report_input(struct preport_input *in, const struct preport_report_opts *o,
			 FILE *out);

/* The samples of event i that were read (of a finished session), those a filter left out
 * included. */
uint64_t preport_event_samples(struct prec_report_session *rs, size_t i);
/*
 * The event whose stacks --folded and --flamegraph show (one: summing the samples of two
 * events is meaningless): the first that has samples, else the first that is not perf's
 * dummy, else 0.  When others have samples, a note on stderr names them and says that `what`
 * shows this one only.
 */
uint32_t preport_drawn_event(struct prec_report_session *rs, const struct prec_view_evsel *ve,
			     size_t nev, const char *what);

/* ---- --flamegraph (flame.c) ---- */

/* The flame graph of the finished session rs, titled from the first stream's header and the
 * events ve (nev of them), written to o->flame (begun).  0, -EIO or -ENOMEM. */
int preport_flame_write(struct preport_input *in, struct prec_report_session *rs,
			const struct prec_view_evsel *ve, size_t nev,
			const struct preport_report_opts *o);

#endif
