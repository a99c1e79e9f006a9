/* SPDX-License-Identifier: MIT */
/*
 * A recording session: sampling events on their targets, their rings, and the output the
 * rings are drained into.  `precord` (one output until the end) and `precord daemon` (one
 * output per segment) are two front ends over it.
 *
 * Use:
 *   prec_session__new()           targets resolved, events opened (still disabled)
 *   prec_session__begin_output()  a stream on an fd: header, features, synthesized state
 *   prec_session__enable()        (events that wait for the workload's exec need not)
 *   loop: prec_session__wait(), prec_session__drain(), prec_session__flush() at least every
 *         flush interval; a new segment: prec_session__end_output() then begin_output()
 *   prec_session__end_output()    totals and the end of the stream
 *   prec_session__free()
 *
 * The rings run on across a switch: everything drained before end_output goes to the old
 * output, everything after begin_output to the new one (what the kernel writes in between
 * waits in the rings), so no record is lost or written twice at a boundary.  Each output is
 * self-contained: it starts with its own header and the synthesized state of the targets
 * (threads, maps, the kernel map), read anew from /proc, or with keep_tasks written from the
 * session's table of tasks.
 *
 * With drop_unsampled, a drain round is held back until the next one has been drained, and
 * then written without the side records of the processes that began and ended in it with
 * no sample and no child that outlived the round: nothing any view shows changes, the file
 * gets smaller and the compressor has less to do.  What the file holds then lags by one
 * drain round; end_output writes everything held.
 *
 * Write errors: the first one of an output is kept (prec_session__write_error()); from then
 * on that output takes nothing more and what drains is dropped and counted, so the rings never
 * fill up.  The file stays valid up to its last good flush.  A new output starts clean.
 *
 * The session never prints: warnings go through the log callback (prec_log.h), errors are
 * -errno with details in struct prec_events_error where events are concerned.
 */
#ifndef PREC_SESSION_H
#define PREC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prec_events.h"
#include "prec_ring.h"

struct prec_session;

struct prec_session_opts {
	struct prec_events_opts ev; /* cpu_field, inherit, enable_on_exec are set here */
	const char *cpu_list; /* NULL: every online CPU */
	bool system_wide; /* every process (on the CPUs) */
	const pid_t *pids; /* processes (or with threads_only, threads) to attach to */
	size_t nr_pids;
	bool threads_only;
	pid_t workload; /* > 0: a forked command held before exec; the events follow it */
	int zlevel; /* 0: uncompressed; 1..19: zstd */
	/*
	 * Leave out the side records (FORK, COMM, MMAP, MMAP2, EXIT) of processes that began
	 * and ended within one drain round without a sample; each round is then written one
	 * round late (the next one tells whether a sample of them was still on its way).  Not
	 * with context-switch records, which name such processes.
	 */
	bool drop_unsampled;
	/*
	 * Keep a table of the targets' tasks (prec_tasks.h) from the side records drained and
	 * write each output's state from it, /proc being read for the first output only (and
	 * again after the kernel lost records): a process that ended during a switch keeps its
	 * COMM and maps in the new output, where its last samples land.  For system-wide
	 * sessions and pids; ignored for a workload.
	 */
	bool keep_tasks;
	int argc; /* for the CMDLINE feature */
	char **argv;
};

/* Totals of an output (or of the session so far). */
struct prec_session_stats {
	struct prec_ring_stats ring; /* everything drained */
	uint64_t kept_samples; /* samples the file holds for sure (as of the last good flush) */
	uint64_t kept_raw_bytes; /* raw record bytes as of then */
	uint64_t raw_bytes; /* raw record bytes handed to the writer */
	uint64_t written_bytes; /* bytes on disk */
	uint64_t dropped_samples; /* drained after a write error, never written */
	uint64_t lost_samples; /* samples the kernel dropped (its PERF_FORMAT_LOST counters) */
};

/*
 * Resolve the targets (CPUs, threads of the pids) and open the events.  Errors: -EINVAL for
 * a bad CPU list or a CPU that does not exist (ret_err->what stays NONE, ret_err->cpu names
 * it, -1 for a bad list), -ESRCH for a pid that does not exist (ret_err->pid), or the events'
 * errors.
 */
int prec_session__new(const struct prec_session_opts *o, struct prec_session **ret,
		      struct prec_events_error *ret_err);
void prec_session__free(struct prec_session *s);

void prec_session__enable(struct prec_session *s, bool on);

/*
 * Start writing to `fd` (not owned; it must stay open until end_output): the stream header,
 * the attrs, the features, then the synthesized state, flushed.  Errors: -errno of the write
 * (the output is then ended with nothing more written), -EBUSY if one is already going.
 */
int prec_session__begin_output(struct prec_session *s, int fd);

/*
 * Drain every ring into the output, then write everything the session has to say about the
 * output (lost samples), end the stream (unless writing had failed) and drop the writer.
 * *ret (may be NULL) gets the output's totals.  Returns the output's write error, or 0.
 */
int prec_session__end_output(struct prec_session *s, struct prec_session_stats *ret);

/*
 * Wait up to timeout_ms (-1: no limit) until a ring has data, every target is gone, or
 * `wake_fd` (if >= 0) is readable.  Returns 0 or -errno (-EINTR is not an error: 0).
 */
int prec_session__wait(struct prec_session *s, int timeout_ms, int wake_fd);

/* Every ring reported POLLHUP: the targets are gone (not for system-wide sessions). */
bool prec_session__targets_gone(const struct prec_session *s);

/* Drain every ring into the output (or drop it, counted, when there is none or it failed). */
void prec_session__drain(struct prec_session *s);

/* Write out what is buffered; returns the output's write error, or 0. */
int prec_session__flush(struct prec_session *s);

/* The first write error of the current output, or 0. */
int prec_session__write_error(const struct prec_session *s);

struct prec_tasks_stats;
/* The size of the task table (keep_tasks); -ENOENT without one. */
int prec_session__task_stats(const struct prec_session *s, struct prec_tasks_stats *ret);

/* The session's events (names, attrs as opened). */
const struct prec_events *prec_session__events(const struct prec_session *s);

/* Totals of the current output (zeros when there is none), and of the whole session. */
void prec_session__output_stats(const struct prec_session *s, struct prec_session_stats *ret);
void prec_session__total_stats(const struct prec_session *s, struct prec_session_stats *ret);

#endif
