/* SPDX-License-Identifier: MIT */
/*
 * The reporting session's insides, shared by prec_report.c (the session, its streams and
 * records) and prec_stacks.c (a sample made into a counted stack).  Not for other modules.
 */
#ifndef PREC_REPORT_INT_H
#define PREC_REPORT_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "prec_hash.h"
#include "prec_hist.h"
#include "prec_machine.h"
#include "prec_order.h"
#include "prec_report.h"
#include "prec_symbol.h"

#define PREC_REPORT_MAX_FRAMES 1024 /* deeper chains are cut (the kernel gives at most 127 +
				     * markers) */

/* An event of the recording, as matched across streams. */
struct prec_report_gev {
	struct prec_report_event pub; /* name malloc'ed; the counts are totals over streams */
	uint32_t type;
	uint64_t config;
};

struct prec_report_cc_slot;

struct prec_report_session {
	struct prec_report_opts o;
	struct prec_reader *r; /* the stream being read */
	struct prec_machine *m; /* its state */
	struct prec_symtab *st;
	struct prec_hist *h;
	bool ctx_cpu; /* the CPU is a sort key: a sample's context is not its thread's alone */
	struct prec_order *order;

	/* the first pass */
	struct prec_report_gev *gev;
	size_t gev_n, gev_cap;
	size_t nr_gev; /* the events of the first pass (the hist's) */
	bool callchains, stack_copies, cpu_numbers;
	size_t nr_streams;
	bool this_host; /* the first stream was recorded on this host and kernel */
	bool same_arch; /* ... on this host's architecture */
	bool unwind; /* samples' user stack copies are unwound (x86-64) */
	struct prec_symtab_opts so;
	char jit_dir[PATH_MAX];
	size_t nr_read; /* streams read */

	/* the stream being read: its events' numbers among all streams' (gev), and its window
	 * of sample times */
	uint32_t *evmap;
	size_t evmap_cap;
	bool ordered; /* every event has time and sample_id_all */
	bool win;
	uint64_t win_lo, win_hi;
	struct prec_time_range times; /* of its samples */
	struct prec_time_range counted; /* of its samples in scope (--cpu, --time, window) */
	/* samples lost per event in it: [0] by LOST records, [1] by LOST_SAMPLES records,
	 * which count what LOST records also do (see end_stream_lost) */
	uint64_t *lost[2];
	bool have_lost_samples;
	uint64_t bad_samples, unknown_evsel;

	/* opts.thread_counts: READ records' counts, per thread in order of appearance */
	struct prec_keyset read_ids; /* pid << 32 | tid -> index */
	uint64_t *read_vals; /* nr_gev per thread */
	size_t read_cap;

	/* prec_stacks.c's */
	uint32_t kernel_id;
	bool kernel_queued; /* the kernel's symbols were handed to the loader */
	struct prec_keyset jit_ids; /* pid -> the JIT map's hist DSO id */
	/* path interned in `paths` (which outlives each stream's machine) -> its first DSO */
	struct prec_keyset file_ids;
	struct prec_strset paths;
	struct prec_strset comms; /* the comms of the hist's contexts */
	struct prec_hist_frame frames[PREC_REPORT_MAX_FRAMES]; /* of the sample being resolved */
	struct prec_report_cc_slot *cc;
	uint32_t cc_seen, cc_hits; /* in this window */
	uint32_t cc_rest; /* samples that skip the cache before the next window */
	uint64_t *uw_ips; /* a chain with its user part unwound */
	size_t uw_cap;

	bool started, reading_done;
};

static inline bool prec_report_cpumode_kernel(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL ||
	       m == PERF_RECORD_MISC_HYPERVISOR;
}

/* prec_stacks.c */
/* The chain cache and the frame buffers, at start().  0 or -ENOMEM. */
int prec_stacks__init(struct prec_report_session *s);
/* Count one SAMPLE record (`rec`, `size` bytes) of stream event evidx.  0 or -ENOMEM. */
int prec_stacks__sample(struct prec_report_session *s, const void *rec, size_t size,
			uint16_t misc, int evidx);
/* Hand the kernel's symbols to the loader thread, once. */
void prec_stacks__queue_kernel(struct prec_report_session *s);
/* A new machine state: what the cache knows of the old one is forgotten. */
void prec_stacks__forget(struct prec_report_session *s);
/* What only reading needs (the cache, the unwinding buffer): freed after the last read. */
void prec_stacks__release(struct prec_report_session *s);
/* Everything else of prec_stacks.c's (NULL-safe parts). */
void prec_stacks__free(struct prec_report_session *s);

#endif
