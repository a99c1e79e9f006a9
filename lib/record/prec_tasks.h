/* SPDX-License-Identifier: MIT */
/*
 * The live tasks of a recording session: for each process its threads' comms and its
 * mappings, kept from the side records (COMM, FORK, EXIT, MMAP2) the session drains anyway,
 * after a first reading of /proc.  A new output (a daemon segment) writes its synthesized
 * state from here instead of reading /proc again, so that
 *  - a process that ended while the last samples it left in the rings were still on their
 *    way is in the new output: an exited process stays in the table until a whole pass over
 *    the rings has been drained after its EXIT (every sample it had published before it
 *    exited has then been drained);
 *  - a switch costs a walk over the table, not a reading of /proc.
 *
 * Use:
 *   prec_tasks__new()                     with the layout of the records' trailers
 *   prec_tasks__seed_all() / __seed_process()   read /proc (again when __needs_seed())
 *   for each record drained: prec_tasks__note(); after each pass over every ring:
 *   prec_tasks__end_pass()
 *   prec_tasks__write()                   the state, as COMM and MMAP2 records
 *
 * Records are applied in the order they are drained, which across rings is not quite their
 * time order; their times settle what matters: an exec drops only the mappings older than
 * it, a mapping replaces only older ones it overlaps, a FORK that comes after its EXIT does
 * not bring the task back.
 *
 * Memory is bounded by the live tasks: an exited one goes after the pass that follows its
 * EXIT, an exec drops the old image's maps, a new mapping cuts away what it overlaps, and a
 * process whose maps (never told of unmaps) pass twice what /proc showed last, plus
 * PREC_TASKS_SLACK, has them read again from /proc.  When the table may be wrong (no memory
 * for a record, records the kernel lost: prec_tasks__set_stale()), __needs_seed() says so
 * and the next seeding starts over from /proc.
 *
 * Never prints; 0 or -errno.  Not thread-safe.
 */
#ifndef PREC_TASKS_H
#define PREC_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prec_sample.h"
#include "prec_writer.h"

#define PREC_TASKS_SLACK 256 /* maps a process may have beyond twice /proc's count */

struct prec_tasks;
struct prec_buildid_cache;

/*
 * `l`: the layout of the records' sample_id trailers (copied); clockid: the clock of their
 * times (-1: not known); data_maps: also the non-executable maps (as the events'
 * mmap_data).  0 or -ENOMEM.
 */
int prec_tasks__new(const struct prec_sample_layout *l, int clockid, bool data_maps,
		    struct prec_tasks **ret);
void prec_tasks__free(struct prec_tasks *t); /* NULL-safe */

/*
 * Read /proc: every process, or process `pid` (a thread id stands for its process).  What
 * /proc shows of a process replaces what the table had; with __seed_all() a live process
 * of the table that /proc no longer shows counts as exited in the current pass.  0, or
 * -ENOMEM (the table then needs seeding again).
 */
int prec_tasks__seed_all(struct prec_tasks *t);
int prec_tasks__seed_process(struct prec_tasks *t, pid_t pid);
/* The table was never seeded, or may be wrong since it was (seed_all forgets the latter). */
bool prec_tasks__needs_seed(const struct prec_tasks *t);
void prec_tasks__set_stale(struct prec_tasks *t);

/* A record drained from a ring (whole, `size` bytes checked by the ring); other types are
 * ignored.  On -ENOMEM the table is stale. */
void prec_tasks__note(struct prec_tasks *t, const void *rec, size_t size);
/* A pass over every ring is done: tasks that exited before it go. */
void prec_tasks__end_pass(struct prec_tasks *t);

/*
 * COMM for each thread and MMAP2 for each mapping in the table (each file's build-id record
 * from `bids`, may be NULL, before its first MMAP2 in the output).  The writer's error.
 */
int prec_tasks__write(const struct prec_tasks *t, struct prec_writer *w,
		      struct prec_buildid_cache *bids);

struct prec_tasks_stats {
	uint64_t processes, threads, maps; /* now, exited ones still held included */
	uint64_t resyncs; /* processes whose maps were read again from /proc */
};
void prec_tasks__get_stats(const struct prec_tasks *t, struct prec_tasks_stats *ret);

#endif
