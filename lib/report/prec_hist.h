/* SPDX-License-Identifier: MIT */
/*
 * Sample aggregation for the reporter.
 *
 * While records are read, each sample is reduced to a context (event, comm, pid, tid, cpu:
 * only the parts the report needs) and a stack of frames, each frame a (DSO, address) pair.
 * Frames are interned once; stacks are interned as paths in a trie whose roots are contexts,
 * so memory grows with the number of distinct stacks, not with the number of samples.
 *
 * prec_hist__finish() then symbolizes each distinct frame once and folds the stacks into
 * entries keyed by the sort keys, with self and children (cumulative) totals.  The views
 * (prec_view.h) print them.  prec_hist.c's opening comment follows a sample step by step.
 *
 * Addresses in frames are what prec_symbol.h takes: a file offset for an ELF DSO, the absolute
 * address for the kernel, JIT maps, and frames without a mapping.
 *
 * The hist is opaque: samples go in through prec_hist__context/stack/count, and once it is
 * finished the views read entries, their occurrences, and stacks as call paths through the
 * functions at the end of this file.  Not thread-safe while samples go in; a finished hist
 * may be read by several threads at once.
 */
#ifndef PREC_HIST_H
#define PREC_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_symtab;
struct prec_dso;
/* Opaque: its fields are prec_hist*.c's (prec_hist_int.h); everything else goes through the
 * functions below. */
struct prec_hist;

/* The sort keys; what each means and shows is prec_view.c's table of them. */
enum prec_sort_key {
	PREC_SORT_COMM,
	PREC_SORT_PID,
	PREC_SORT_TID,
	PREC_SORT_DSO,
	PREC_SORT_SYM,
	PREC_SORT_SRCLINE,
	PREC_SORT_CPU,
	PREC_SORT__MAX,
};

#define PREC_HIST_MAX_KEYS 8

struct prec_hist_opts {
	enum prec_sort_key keys[PREC_HIST_MAX_KEYS];
	size_t nr_keys;
	bool children; /* cumulative totals for every function on a stack */
	bool inline_frames; /* expand inlined functions into frames of their own (libdw) */
	bool need_comm; /* keep comm in contexts even if not a sort key (--folded) */
	bool need_thread; /* keep pid, tid and comm in contexts (--pprof's labels) */
	bool keep_occurrences; /* remember where each entry occurs, for call graphs */
	bool callee_order; /* which occurrence of a recursive function a graph starts from */
	const char *const *dso_filter; /* NULL-terminated short or long names; NULL: all */
	const char *const *sym_filter; /* NULL-terminated symbol names; NULL: all */
};

/* Is k one of o's sort keys? */
static inline bool prec_hist_opts__has_key(const struct prec_hist_opts *o, enum prec_sort_key k)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

/* Frame flags. */
#define PREC_FRAME_KERNEL 1u /* a kernel address ([k] rather than [.]) */
#define PREC_FRAME_RET 2u /* a return address: looked up at addr - 1 */
/* the sampled address of a sample whose call chain perf 6.1 discards (a value in it that
 * looks like a context marker but is none): counts for its entry, in no call graph */
#define PREC_FRAME_NOCHAIN 4u

struct prec_hist_frame {
	uint32_t dso; /* from prec_hist__dso_id(); 0: no mapping */
	uint32_t flags;
	uint64_t addr;
};

struct prec_hist_sample {
	uint32_t evsel;
	uint32_t pid, tid, cpu;
	const char *comm; /* a stable (interned) pointer */
	uint64_t period;
};

/* A symbolized frame. */
enum prec_sframe_kind {
	PREC_SF_SYM, /* a function of the DSO */
	PREC_SF_INLINE, /* a function inlined there (with --inline) */
	PREC_SF_ADDR, /* the DSO loaded, but no symbol covers the address */
	PREC_SF_UNKNOWN, /* the DSO could not be used (gone, changed, ...) */
	PREC_SF_NOMAP, /* no mapping held the address */
};

struct prec_sframe {
	uint32_t dso; /* hist DSO id; 0 none */
	uint32_t kind; /* enum prec_sframe_kind */
	uint64_t addr; /* symbol start (SYM), the address (ADDR, NOMAP), 0 otherwise */
	const char *name; /* symbol name, or NULL */
	uint32_t kernel; /* 1 for [k] */
	uint32_t pad;
};

struct prec_entry_key {
	const char *comm;
	const char *srcline;
	uint32_t evsel, pid, tid, cpu;
	uint32_t dso; /* hist DSO id when dso is a key, else 0 */
	uint32_t sframe; /* sframe id + 1 when sym is a key, else 0 */
};

struct prec_entry {
	struct prec_entry_key key;
	uint32_t sframe; /* a representative sframe (for the dso/sym columns) */
	uint64_t self_period, self_count;
	uint64_t acc_period, acc_count; /* children mode: every stack it is on */
	uint32_t max_depth; /* children mode: longest chain below it (caller order) or above it
			     * (callee order), whole stack as leaf */
	uint32_t occ_start, occ_n; /* occurrences, when kept: prec_hist__occurrences() */
};

/* Where an entry occurs: on stack `node` (a stack id, see prec_hist__path()), at position
 * `pos` of its path (0 = leaf). */
struct prec_occurrence {
	uint32_t node;
	uint32_t pos;
};

struct prec_evsel_stats {
	uint64_t nr_samples, period; /* all samples that passed the sample filters */
	uint64_t unsym_period, unsym_count; /* leaf frame not symbolized */
};

/* Per-DSO unsymbolized totals (for the report header). */
struct prec_dso_unsym {
	uint32_t dso;
	uint64_t period;
};

int prec_hist__new(const struct prec_hist_opts *opts, struct prec_symtab *st, uint32_t nr_evsels,
		   struct prec_hist **ret);
void prec_hist__free(struct prec_hist *h);

/* The id of a DSO for frames (cache it, e.g. in the map).  -ENOMEM. */
long prec_hist__dso_id(struct prec_hist *h, struct prec_dso *d);
/* The DSO of an id; NULL for 0 (no mapping) and ids the hist did not give. */
struct prec_dso *prec_hist__dso(const struct prec_hist *h, uint32_t id);

/*
 * Counting a sample in three steps, so that a caller can cache the stack of a repeated call
 * chain: its context id, the stack id of its frames (leaf first, at least one; a node of the
 * trie), and the count.  Both ids stay valid for the hist's lifetime.  -ENOMEM / -E2BIG.
 */
long prec_hist__context(struct prec_hist *h, const struct prec_hist_sample *s);
long prec_hist__stack(struct prec_hist *h, uint32_t ctx, const struct prec_hist_frame *frames,
		      size_t nr);
void prec_hist__count(struct prec_hist *h, uint32_t ctx, uint32_t node, uint64_t period);
/* A sample of event `evsel` left out of the entries (perf's --comms, --pid, --tid filters):
 * counted in the event's totals only, which stay the base of the percentages, as in perf. */
void prec_hist__count_filtered(struct prec_hist *h, uint32_t evsel, uint64_t period);

/*
 * Under the pid and tid sort keys an entry is a thread's, named by the command it had last, as
 * in perf (a process that execs is one entry): give that command for a thread before
 * prec_hist__finish() (comm interned); a thread without one is named by the command of its
 * samples.  0 or -ENOMEM.
 */
int prec_hist__set_thread_comm(struct prec_hist *h, uint32_t pid, uint32_t tid, const char *comm);
/* The command given for that thread, else `comm`. */
const char *prec_hist__thread_comm(const struct prec_hist *h, uint32_t pid, uint32_t tid,
				   const char *comm);
/* The threads to name that way: under the pid or tid key, thread i of those the samples so
 * far were of (a thread may come more than once), into *ret_pid and *ret_tid; false past the
 * last one, and always without those keys. */
bool prec_hist__thread(const struct prec_hist *h, uint32_t i, uint32_t *ret_pid, uint32_t *ret_tid);

/*
 * The switch for background symbolizing (prec_hist_bg.c): from now on, a thread of its own
 * indexes and symbolizes the frames of the nodes made so far, while the caller adds samples.
 * It looks up only DSOs that the caller handed to prec_symtab__prefetch() with the symtab's
 * loader running, and the caller must do so before a DSO's first frame, or never (then
 * finish symbolizes from that DSO's first frame on).  Until prec_hist__index_frames() or
 * prec_hist__background_stop() the caller may only add samples, and must stop it before
 * prec_symtab__loader_stop().  0, or -errno (then there is no thread: finish does it all).
 */
int prec_hist__background(struct prec_hist *h);
/* Stop the thread, wherever it is (finish does the rest).  Its error (-ENOMEM), or 0. */
int prec_hist__background_stop(struct prec_hist *h);
/* Stop the background thread, then give the frames of the nodes so far their ids (finish does
 * it for the rest).  It needs no symbols: a caller can do it while symbol tables still load.
 * 0 or -ENOMEM. */
int prec_hist__index_frames(struct prec_hist *h);
/* Symbolize and build the entries.  0 or -ENOMEM. */
int prec_hist__finish(struct prec_hist *h);

/*
 * What the views read, once prec_hist__finish() returned 0; pointers stay valid, and their
 * contents unchanged, for the hist's lifetime.  Nothing here writes: two threads may read at
 * once.
 */

/* The options the hist was made with (a copy; the filter lists are the caller's). */
const struct prec_hist_opts *prec_hist__opts(const struct prec_hist *h);

/* The number of events (evsel 0 .. n - 1; at least 1), and the totals of one. */
uint32_t prec_hist__nr_events(const struct prec_hist *h);
const struct prec_evsel_stats *prec_hist__event(const struct prec_hist *h, uint32_t evsel);

/* The DSOs whose leaf frames were not symbolized, heaviest first, *ret_nr of them. */
const struct prec_dso_unsym *prec_hist__unsym(const struct prec_hist *h, size_t *ret_nr);

/* The entries, by entry id, *ret_nr of them (in the order they were made). */
const struct prec_entry *prec_hist__entries(const struct prec_hist *h, uint32_t *ret_nr);

/* A symbolized frame by id (an entry's sframe, or a position of a path). */
const struct prec_sframe *prec_hist__sframe(const struct prec_hist *h, uint32_t id);
/* Does it pass the --dso / --symbols filters? */
bool prec_hist__sframe_shown(const struct prec_hist *h, uint32_t sf);

/* Where entry e occurs (with keep_occurrences): e->occ_n occurrences, in stack id order, one
 * per stack: each stack e is on (children), or that ends at e (without). */
const struct prec_occurrence *prec_hist__occurrences(const struct prec_hist *h,
						     const struct prec_entry *e);

/* Stacks have ids 0 .. prec_hist__nr_stacks() - 1; most are only the outer part of longer
 * ones (no sample ends there) and weigh nothing. */
uint32_t prec_hist__nr_stacks(const struct prec_hist *h);

/* A stack as a call path. */
struct prec_path {
	uint64_t period, count; /* of the samples whose stack it is; 0: only an outer part */
	bool chain; /* false: its samples' call chains were dropped (PREC_FRAME_NOCHAIN): it
		     * counts for its entries, and is in no call graph */
};

/*
 * Stack `stack`'s weight into *ret and, if it weighs anything, its path: the sframe ids of
 * its frames, leaf first (the functions inlined at a frame before the frame's own), into
 * *seq, reallocated as needed (*cap its capacity).  Only as far as positions 0..upto if the
 * stack goes further (SIZE_MAX: all of it).  Returns the path's length (0 for a stack that
 * weighs nothing), or -ENOMEM.
 */
long prec_hist__path(const struct prec_hist *h, uint32_t stack, size_t upto, struct prec_path *ret,
		     uint32_t **seq, size_t *cap);
/* The command of a stack's samples, if the hist keeps commands (need_comm, or a comm, pid or
 * tid key), else NULL. */
const char *prec_hist__stack_comm(const struct prec_hist *h, uint32_t stack);

/*
 * Stacks as their frames, for exports that need addresses (pprof): frames have ids
 * 0 .. prec_hist__nr_frames() - 1, and each is a (DSO, flags, address) with its sframes.
 */
uint32_t prec_hist__nr_frames(const struct prec_hist *h);
struct prec_hist_frame prec_hist__frame(const struct prec_hist *h, uint32_t fid);
/* Frame fid's sframe ids into *ret (the hist's array): the functions inlined there, innermost
 * first (with inline_frames), then its own function last.  Returns how many (at least 1). */
uint32_t prec_hist__frame_sframes(const struct prec_hist *h, uint32_t fid, const uint32_t **ret);
/* Is frame fid's own function a symbol of its DSO? */
bool prec_hist__frame_symbolized(const struct prec_hist *h, uint32_t fid);
/* Like prec_hist__path(), but the stack's frame ids, leaf first, one per frame (all of it). */
long prec_hist__stack_frames(const struct prec_hist *h, uint32_t stack, struct prec_path *ret,
			     uint32_t **seq, size_t *cap);
/* The context of a stack's samples into *ret: its event, and the command, pid and tid if the
 * hist keeps them (else NULL and 0); cpu as kept, period 0. */
void prec_hist__stack_sample(const struct prec_hist *h, uint32_t stack,
			     struct prec_hist_sample *ret);

#endif
