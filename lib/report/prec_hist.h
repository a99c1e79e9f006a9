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
 * address for the kernel, JIT maps, and frames without a mapping.  Not thread-safe.
 */
#ifndef PREC_HIST_H
#define PREC_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prec_hash.h"

struct prec_symtab;
struct prec_dso;
struct prec_hist_bg;

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
	bool keep_occurrences; /* remember where each entry occurs, for call graphs */
	bool callee_order; /* which occurrence of a recursive function a graph starts from */
	const char *const *dso_filter; /* NULL-terminated short or long names; NULL: all */
	const char *const *sym_filter; /* NULL-terminated symbol names; NULL: all */
};

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
	uint32_t max_depth; /* children mode: longest chain below it (whole stack as leaf) */
	uint32_t occ_start, occ_n; /* occurrences, when kept */
};

/* Where an entry occurs: on stack (leaf trie node) `node`, at position `pos` of its
 * symbolized sequence (0 = leaf). */
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

/* A symbolized frame: its sframes, sf_seq[sf_start] on (sf_n of them: the innermost inlined
 * function first, its own function last), and whether that is a symbol. */
struct prec_frame_sym {
	uint32_t sf_start, sf_n;
	uint32_t unsym; /* 0: its function is a symbol; else the DSO id of its sframe + 1 */
};

struct prec_ctx_key {
	const char *comm;
	uint32_t evsel, pid, tid, cpu;
};

/* A node of the stack trie: one frame below its parent; one per distinct stack prefix. */
struct prec_node {
	uint32_t parent; /* UINT32_MAX for roots */
	/* The child tried first: while the children are a list, its head, which is the child
	 * a stack took last (a hit moves to the front); once they are hashed, the child taken
	 * last.  UINT32_MAX: no child. */
	uint32_t child;
	uint32_t next_sibling; /* in the parent's list while the parent keeps one */
	uint32_t nr_children; /* up to LIST_MAX + 1: beyond LIST_MAX they are in prec_hist.nslot */
	struct prec_hist_frame frame; /* roots: the context id as dso, no flags, addr 0 */
};

/* Of the samples whose stack ends at a node. */
struct prec_node_total {
	uint64_t period, count;
};

/* The frame of a node (of a root: the context id as dso). */
static inline struct prec_hist_frame prec_node__frame(const struct prec_node *n)
{
	return n->frame;
}

struct prec_hist {
	struct prec_hist_opts opts;
	struct prec_symtab *symtab; /* not owned */
	bool ctx_comm, ctx_pid, ctx_tid, ctx_cpu; /* which context parts are kept */

	struct prec_dso **dsos; /* [0] = NULL (no mapping) */
	uint32_t nr_dsos, cap_dsos;
	struct prec_keyset dso_ids; /* pointer value -> id */

	struct prec_keyset ctxs; /* context key -> id */
	/* (pid, tid) -> the command a thread is named by under the pid and tid keys (see
	 * prec_hist__set_thread_comm()) */
	struct prec_keyset thread_comms;
	struct prec_ctx_key last_ctx_key; /* of the last context looked up, if has_last_ctx */
	uint32_t last_ctx;
	bool has_last_ctx;
	uint32_t *ctx_root; /* context id -> root node */
	size_t cap_ctx;

	struct prec_keyset frames; /* struct prec_hist_frame -> frame id (from index_frames) */

	struct prec_node *node; /* by node id */
	struct prec_node_total *node_total; /* by node id */
	uint32_t nr_nodes;
	size_t cap_nodes, cap_node_total;
	/* open-addressing hash of crowded parents' children by (parent, frame): slots hold
	 * (hash tag << 32 | node id + 1), the keys are the nodes themselves */
	uint64_t *nslot;
	uint32_t nr_nslots, nr_hashed;
	uint32_t *node_frame; /* node id -> frame id (roots: context id), from index_frames */
	uint32_t nr_indexed; /* nodes below this have their frame id */
	size_t cap_node_frame;
	struct prec_hist_bg *bg; /* see prec_hist__background() */

	struct prec_evsel_stats *ev;
	uint32_t nr_ev;

	/* after prec_hist__finish() (the background thread may do a part before) */
	struct prec_keyset sframes; /* struct prec_sframe -> id */
	struct prec_frame_sym *frame_sym; /* by frame id */
	uint32_t nr_symbolized; /* frames below this have their sframes */
	size_t cap_frame_sym;
	uint32_t *sf_seq;
	size_t nr_sf_seq, cap_sf_seq;
	const char **frame_srcline; /* with the srcline key */
	struct prec_keyset entry_ids;
	struct prec_entry *entries; /* entry_ids's records, by id */
	uint32_t nr_entries;
	struct prec_occurrence *occ;
	size_t nr_occ;
	struct prec_dso_unsym *unsym; /* sorted by period, descending */
	size_t nr_unsym;
	struct prec_strset strs;
	bool finished;
};

int prec_hist__new(const struct prec_hist_opts *opts, struct prec_symtab *st, uint32_t nr_evsels,
		   struct prec_hist **ret);
void prec_hist__free(struct prec_hist *h);

/* The id of a DSO for frames (cache it, e.g. in the map).  -ENOMEM. */
long prec_hist__dso_id(struct prec_hist *h, struct prec_dso *d);
static inline struct prec_dso *prec_hist__dso(const struct prec_hist *h, uint32_t id)
{
	return id < h->nr_dsos ? h->dsos[id] : NULL;
}

/*
 * Counting a sample in three steps, so that a caller can cache the stack of a repeated call
 * chain: its context id, the trie node of its frames (leaf first, at least one), and the count.
 * Both ids stay valid for the hist's lifetime.  -ENOMEM / -E2BIG.
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

static inline const struct prec_sframe *prec_hist__sframe(const struct prec_hist *h, uint32_t id)
{
	return (const struct prec_sframe *)prec_keyset__key(&h->sframes, id);
}

/* The symbolized sequence of stack `node` (a leaf trie node), leaf first, into *seq
 * (reallocated as needed; *cap its capacity).  Returns its length, or -ENOMEM. */
long prec_hist__stack_seq(const struct prec_hist *h, uint32_t node, uint32_t **seq, size_t *cap);
/* The same, but only as far as it takes to have positions 0..upto (at least upto + 1 entries,
 * fewer only when the stack is shorter). */
long prec_hist__stack_seq_upto(const struct prec_hist *h, uint32_t node, size_t upto,
			       uint32_t **seq, size_t *cap);
/* Samples whose stack ends at `node`. */
static inline uint64_t prec_hist__node_count(const struct prec_hist *h, uint32_t node)
{
	return h->node_total[node].count;
}

/* The period of the samples whose stack ends at `node`. */
static inline uint64_t prec_hist__node_period(const struct prec_hist *h, uint32_t node)
{
	return h->node_total[node].period;
}

/* The context id of a trie node's stack, and the context's key. */
uint32_t prec_hist__node_ctx(const struct prec_hist *h, uint32_t node);

static inline const struct prec_ctx_key *prec_hist__ctx(const struct prec_hist *h, uint32_t id)
{
	return (const struct prec_ctx_key *)prec_keyset__key(&h->ctxs, id);
}

/* Does this sframe pass the --dso / --symbols filters? */
bool prec_hist__sframe_shown(const struct prec_hist *h, uint32_t sf);

#endif
