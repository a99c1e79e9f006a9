/* SPDX-License-Identifier: MIT */
/*
 * The reporting session: one recording, read from one stream or several (the segments of a
 * directory, oldest first), made into a finished prec_hist and the facts per event that a
 * report prints beside it (lost samples, broken stacks).  A caller picks the hist's options
 * and reads the result; rounds, side records, address spaces, symbol loading and unwinding
 * stay inside.  prec_report.c tells how a record becomes a counted stack; doc/reporter.md
 * follows a sample from the file to a row of the report, module by module.
 *
 * Use, in this order:
 *   prec_report_session__new(opts)
 *   prec_report_session__add_stream(r)      each stream's header, in reading order
 *   prec_report_session__open(&facts)       then choose the hist's options from the facts
 *   prec_report_session__start(&hist_opts)
 *   prec_report_session__read(stream)       each stream added, in the same order
 *   prec_report_session__finish()
 *   prec_report_session__hist(), __event(), __thread_counts(), __free()
 *
 * Streams are self-contained (their own events, header and synthesized state): each is read
 * with a fresh machine state, while the symbol tables, the hist and the events carry over.
 * Events are matched across streams by name, type and config, numbered in order of first
 * appearance; those numbers are the hist's event numbers.
 *
 * Errors are -errno; details go to the log callback (prec_log.h), nothing is printed.  Not
 * thread-safe; between start() and finish() the session may run a symbol loader thread of
 * its own.
 */
#ifndef PREC_REPORT_H
#define PREC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prec_hist.h"
#include "prec_reader.h"

struct prec_report_session;

/* What the session is asked for.  Pointers must outlive the session. */
struct prec_report_opts {
	/* symbols: see prec_symtab_opts (what this host may stand for is decided from the
	 * recording) */
	const char *symfs, *kallsyms, *cache_dir;
	bool no_demangle;
	uint32_t max_stack; /* frames of a chain used, per part (kernel, user) when unwound */
	bool hide_unresolved; /* samples whose own function is unknown are left out (-U) */
	bool thread_counts; /* keep the counts of READ records per thread (perf record -s) */
	/* Filters; NULL / 0 when not given.  --cpu, --time and a stream's window leave a
	 * sample out of everything; --comms, --pid and --tid out of the entries only (it stays
	 * in the event's totals, the base of the percentages), as in perf. */
	const char *const *comms;
	const uint32_t *pids, *tids;
	size_t nr_pids, nr_tids;
	const bool *cpus; /* nr_cpu_bits flags */
	uint32_t nr_cpu_bits;
	bool time_set;
	uint64_t time_start, time_end; /* ns; end 0: open */
	/* --time's percent forms, resolved: a sample is kept when it lies in one of these
	 * (pairs of start and end, end 0: open), on top of time_start/time_end */
	const uint64_t (*time_ranges)[2];
	size_t nr_time_ranges;
};

/* What the first pass found, for choosing the hist's and views' options. */
struct prec_report_facts {
	size_t nr_events;
	size_t nr_streams; /* added */
	bool callchains; /* samples have call chains: recorded, or unwound from stack copies */
	bool cpu_numbers; /* some event records its samples' CPU */
};

/* An event of the recording, after finish(). */
struct prec_report_event {
	const char *name;
	uint64_t lost_samples; /* as perf reports them */
	uint64_t broken_period; /* of the samples whose stack copy ended before the outermost
				 * caller */
	bool dummy; /* perf's tracking event (software, dummy): side records, never samples */
	uint64_t fixed_period; /* the attr's sample_period; 0: sampled at a frequency */
	uint64_t left_out; /* samples that --cpu, --time, a stream's window or -U left out of
			    * everything (not in the hist's totals) */
};

/* One stream to read. */
struct prec_report_stream {
	struct prec_reader *r; /* header read; not owned */
	uint64_t lo, hi; /* only samples with lo <= time <= hi count; 0, UINT64_MAX: all */
	/* called every 65536 records with the reader's offset; NULL: never */
	void (*progress)(void *arg, uint64_t offset);
	void *arg;
};

int prec_report_session__new(const struct prec_report_opts *opts,
			     struct prec_report_session **ret);
/* NULL-safe; stops the loader thread if one runs, frees the hist. */
void prec_report_session__free(struct prec_report_session *s);

/* The first pass: the header of the next stream (r's header read; r is not kept).  0 or
 * -ENOMEM. */
int prec_report_session__add_stream(struct prec_report_session *s, struct prec_reader *r);
/*
 * After the first pass: the symbols set up (this host's kernel and JIT maps used only if
 * the first stream was recorded on it), and whether stack copies are unwound, with a warning
 * when they cannot be.  0, -ENOTSUP when a CPU filter is given and no event records CPU
 * numbers (before any warning), or -ENOMEM.
 */
int prec_report_session__open(struct prec_report_session *s, struct prec_report_facts *ret);
/* The hist made with these options (prec_hist_opts); reading may begin.  0 or -ENOMEM. */
int prec_report_session__start(struct prec_report_session *s, const struct prec_hist_opts *ho);
/*
 * Read the records of the next stream added.  0; -EBADMSG when it is corrupt (the records
 * before count, and the next stream may be read); -ESTALE when it has an event the first pass
 * did not see (the file changed meanwhile: nothing of it counted); or -ENOMEM.
 */
int prec_report_session__read(struct prec_report_session *s, const struct prec_report_stream *st);
/* The times of the samples of the stream read last (for saying where a stream ends). */
const struct prec_time_range *prec_report_session__times(const struct prec_report_session *s);
/* The times of those of its samples that --cpu, --time and the stream's window left in (what
 * a report covers). */
const struct prec_time_range *
prec_report_session__counted_times(const struct prec_report_session *s);
/* Symbolize and build the entries, after the last read.  0 or -ENOMEM. */
int prec_report_session__finish(struct prec_report_session *s);

/* The finished hist, owned by the session. */
struct prec_hist *prec_report_session__hist(struct prec_report_session *s);
/* Event i (< facts.nr_events). */
const struct prec_report_event *prec_report_session__event(const struct prec_report_session *s,
							    size_t i);
/* With opts.thread_counts: the threads that READ records counted, in order of appearance;
 * each has a key (pid << 32 | tid) and nr_events counts in *ret_counts.  Returns how many. */
size_t prec_report_session__thread_counts(const struct prec_report_session *s,
					  const uint64_t **ret_keys, const uint64_t **ret_counts);

#endif
