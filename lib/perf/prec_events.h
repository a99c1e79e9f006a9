/* SPDX-License-Identifier: MIT */
/*
 * A set of sampling events opened with perf_event_open(2): every event on every CPU for
 * every target thread (or system-wide), one ring buffer per CPU that all events of that CPU
 * share.  The first event also carries the side records a reporter needs (mmap2, comm,
 * task, context switches).
 *
 * Use:
 *   prec_events__new()       parse the event list and lay out the attrs
 *   prec_events__open()      open them on CPUs x threads and map the rings
 *   prec_events__enable()    start (unless they enable themselves at the workload's exec)
 *   prec_events__ring()      drain each ring (prec_ring.h)
 *   prec_events__free()
 *
 * Where the kernel refuses something that has a usual way out, the set takes it and says so
 * through the log callback (PREC_LOG_WARN): kernel samples not allowed -> user space only
 * (unless the event excludes user space), cycles without a PMU -> cpu-clock.  Other failures
 * are returned as -errno with the details in a struct prec_events_error, for the caller to
 * word.
 */
#ifndef PREC_EVENTS_H
#define PREC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "prec_ring.h"

#define PREC_EVENTS_MAX 32

struct prec_events;

struct prec_events_opts {
	const char *events; /* comma-separated list as -e takes it; NULL: cycles */
	uint64_t freq; /* samples per second, or */
	uint64_t period; /* events per sample (when not 0) */
	bool callchain; /* frame-pointer call chains */
	bool dwarf; /* user registers and stack copies */
	uint32_t stack_size; /* bytes of stack per sample with dwarf */
	bool cpu_field; /* samples carry their CPU */
	bool inherit; /* follow the targets' new threads and children */
	bool enable_on_exec; /* start at the target's next exec */
	size_t mmap_pages; /* ring data pages per CPU, a power of two */
	int clockid; /* sample timestamps from this clock (CLOCK_MONOTONIC...); -1: perf's own */
	bool switch_events; /* context-switch records (perf's --switch-events) */
};

/* What failed, for the caller's message. */
struct prec_events_error {
	enum {
		PREC_EVENTS_ERR_NONE,
		PREC_EVENTS_ERR_SPEC, /* `spec` is not an event we know */
		PREC_EVENTS_ERR_TOO_MANY, /* more than PREC_EVENTS_MAX events */
		PREC_EVENTS_ERR_OPEN, /* perf_event_open of `name` on `cpu` for `pid` */
		PREC_EVENTS_ERR_MAP, /* mapping the ring of `cpu` */
		PREC_EVENTS_ERR_OUTPUT, /* sharing the ring of `cpu` */
	} what;
	int err; /* -errno */
	char spec[128]; /* the event as given, or its canonical name */
	int cpu;
	pid_t pid;
	bool excludes_user; /* the event refused samples only the kernel (:k) */
};

/* Parse the list and lay out the attrs. Errors: -ENOENT/-EINVAL (ERR_SPEC), -E2BIG, -ENOMEM. */
int prec_events__new(const struct prec_events_opts *o, struct prec_events **ret,
		     struct prec_events_error *ret_err);

/*
 * Open every event on each of `cpus` for each of `tids` (-1 alone: system-wide).  With
 * `skip_gone`, a thread that exited meanwhile (ESRCH) is skipped as long as one remains.
 * Errors as described in *ret_err; what was opened stays for prec_events__free().
 */
int prec_events__open(struct prec_events *ev, const int *cpus, size_t nr_cpus, const pid_t *tids,
		      size_t nr_tids, bool skip_gone, struct prec_events_error *ret_err);

void prec_events__enable(struct prec_events *ev, bool on);

size_t prec_events__nr(const struct prec_events *ev);
const struct perf_event_attr *prec_events__attr(const struct prec_events *ev, size_t i);
const char *prec_events__name(const struct prec_events *ev, size_t i);
/* The ids of event i's fds (PERF_EVENT_IOC_ID), *ret_nr of them. */
const uint64_t *prec_events__ids(const struct prec_events *ev, size_t i, size_t *ret_nr);

size_t prec_events__nr_rings(const struct prec_events *ev);
struct prec_ring *prec_events__ring(const struct prec_events *ev, size_t i);
/*
 * The event fds, k < prec_events__nr_fds() (-1 for a thread that exited while attaching):
 * poll(2) them all for POLLIN.  An fd gives POLLHUP once its thread is gone; the rings are
 * done only when every fd has, since the other fds of a CPU write into the ring of its first.
 */
size_t prec_events__nr_fds(const struct prec_events *ev);
int prec_events__fd(const struct prec_events *ev, size_t k);

/*
 * Samples the kernel dropped for event i because a ring was full, summed over its fds
 * (PERF_FORMAT_LOST; 0 where the kernel cannot tell).  A running total.
 */
uint64_t prec_events__lost_samples(const struct prec_events *ev, size_t i);

/* Unmaps, closes, frees.  NULL-safe. */
void prec_events__free(struct prec_events *ev);

/* "0-3,5" -> sorted CPU numbers (malloc'ed). -EINVAL for a bad list, -ENOMEM. */
int prec_cpus_parse(const char *list, int **ret, size_t *ret_nr);
/* The CPU list in a sysfs file such as /sys/devices/system/cpu/present; -errno. */
int prec_cpus_read(const char *path, int **ret, size_t *ret_nr);
/* The online CPUs. */
int prec_cpus_online(int **ret, size_t *ret_nr);

/*
 * A clock as perf's -k/--clockid names it (monotonic, monotonic_raw, realtime, boottime, tai,
 * their short forms mono, raw, real, boot, or a number).  -EINVAL for anything else.
 */
int prec_clockid_parse(const char *name, int *ret);

/* kernel.perf_event_paranoid (2 when it cannot be read). */
int prec_perf_paranoid(void);
/*
 * Whether the right to trace `pid` is no obstacle to profiling it: we are root, it is ours,
 * or pid <= 0 (system-wide).
 */
bool prec_pid_may_be_traced(pid_t pid);

#endif
