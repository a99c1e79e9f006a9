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

/* What the report shows (see preport --help). */
struct preport_report_opts {
	enum prec_sort_key keys[PREC_HIST_MAX_KEYS];
	size_t nr_keys;
	int children; /* -1: when there are call chains */
	int graph; /* enum prec_graph_mode, -1: graph when there are call chains */
	double graph_threshold;
	int graph_value; /* enum prec_graph_value */
	int order; /* -1: perf's default, 0: callee, 1: caller */
	bool folded;
	const char *flamegraph; /* --flamegraph FILE ("-": stdout), written instead of a view */
	FILE *flame_out; /* opened by preport_flame_open() */
	bool inverted; /* -G given: with --flamegraph, an icicle of callers */
	bool show_nr_samples;
	bool show_total_period;
	struct prec_view_field fields[PREC_VIEW_MAX_FIELDS]; /* -F */
	size_t nr_fields;
	bool fields_sorted; /* -F and --sort */
	double percent_limit;
	const char *field_sep;
	bool inline_frames;
	bool quiet;
	/* what the session needs: symbols, -U, -T (thread_counts), --max-stack, the sample
	 * filters */
	struct prec_report_opts session;
	const char *const *dsos, *const *syms; /* --dsos, --symbols; NULL: all */
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
	struct preport_range range; /* --since, --until */
	/* the lists behind report's pointers (--comms, --pid, --tid, --cpu, --dsos, --symbols)
	 * are owned here: preport_opts__free() */
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

/* ---- the report (report.c) ---- */

/*
 * Read the records and print the report.  Returns 0, -EBADMSG after printing what came
 * before a corrupt part, or -errno (-ENOMEM, -EIO).
 */
int preport_report(struct prec_reader *r, const char *input, const struct preport_report_opts *o,
		   FILE *out);

struct preport_stream;

/*
 * -D: one line per record, then totals per type.  With a window (win->window, from
 * --since/--until), the samples outside it are left out and counted.  win may be NULL.
 * Returns 0 or -errno.
 */
int preport_dump(struct prec_reader *r, const char *input, const struct preport_stream *win,
		 FILE *out);

/*
 * The wall-clock time of sample time `t`, as "2026-11-26 08:12:03.412 UTC" in `buf`, when
 * every event used the clock that CLOCK_DATA ties to the wall clock.  False otherwise.
 */
bool preport_wall_time(const struct prec_reader *r, uint64_t t, char *buf, size_t len);

/* Counts the time of `rec` into `t` if it is a SAMPLE. */
void preport_times_add_record(struct prec_time_range *t, const struct prec_reader *r,
			      const struct prec_record *rec);
/*
 * After the last record was read: one warning line on stderr if `r` is a precord stream that
 * was cut short (prec_reader__cut_short()), saying when it ends.  Nothing for a NULL input
 * (a daemon's live segment, which has no end marker yet).
 */
void preport_warn_cut(const struct prec_reader *r, const char *input,
		      const struct prec_time_range *t);

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
	bool segment, live;    /* a segment of a directory; the live one */
	bool window;	       /* --since/--until: only samples with lo <= time <= hi */
	uint64_t lo, hi;
};

struct preport_input;

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
bool preport_input__is_dir(const struct preport_input *in);
/* Streams to read (segments picked), and all segments of the directory (0 for a file). */
size_t preport_input__count(const struct preport_input *in);
size_t preport_input__nr_segments(const struct preport_input *in);
const struct preport_range *preport_input__range(const struct preport_input *in);
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
/* -i DIR -D: each picked segment's dump after a separator line. */
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

/* Read the streams of `in` as one recording and print the report (as preport_report); or,
 * with o->cpus and no event that records CPU numbers, -ENOTSUP before printing anything. */
int preport_report_input(struct preport_input *in, const struct preport_report_opts *o,
			 FILE *out);

/* ---- --flamegraph (flame.c) ---- */

/* Open o->flamegraph for writing into o->flame_out (0600, no symlink followed; "-": stdout).
 * False after a one-line error on stderr. */
bool preport_flame_open(struct preport_report_opts *o);
/* Close it (nothing if it is not open).  keep: the report succeeded; else the file is removed.
 * False after a one-line error on stderr when the SVG could not be written (then removed). */
bool preport_flame_close(struct preport_report_opts *o, bool keep);
/* The flame graph of the finished session rs, titled from the first stream's header and the
 * events ve (nev of them) and written to o->flame_out.  0, -EIO or -ENOMEM. */
int preport_flame_write(struct preport_input *in, struct prec_report_session *rs,
			const struct prec_view_evsel *ve, size_t nev,
			const struct preport_report_opts *o);

#endif
