/* SPDX-License-Identifier: MIT */
/*
 * Between prec_hist.c, its symbolizer (prec_hist_sym.c) and its background thread
 * (prec_hist_bg.c), nothing else (and test-hist, which looks inside): the hist's fields.
 * Everyone else has prec_hist.h's functions.
 */
#ifndef PREC_HIST_INT_H
#define PREC_HIST_INT_H

#include "prec_hash.h"
#include "prec_hist.h"

/* A symbolized frame: its sframes, sf_seq[sf_start] on (sf_n of them: the innermost inlined
 * function first, its own function last), and whether that is a symbol.  The first is also
 * `leaf`, which finish reads for every stack: one place to miss the cache, not two. */
struct prec_frame_sym {
	uint32_t sf_start, sf_n;
	uint32_t unsym; /* 0: its function is a symbol; else the DSO id of its sframe + 1 */
	uint32_t leaf; /* sf_seq[sf_start] */
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

struct prec_hist_bg;
struct prec_hist_warm;
struct prec_inline_frame;

#define PREC_HIST_MAX_INLINE 16 /* inline frames kept per address */

struct prec_hist {
	struct prec_hist_opts opts;
	struct prec_symtab *symtab; /* not owned */
	bool ctx_comm, ctx_pid, ctx_tid, ctx_cpu; /* which context parts are kept */
	bool ctx_thread; /* pid and tid kept, though no sort key (need_thread) */

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

	struct prec_node *node; /* by node id */
	struct prec_node_total *node_total; /* by node id */
	uint32_t nr_nodes;
	size_t cap_nodes, cap_node_total;
	/* open-addressing hash of crowded parents' children by (parent, frame): slots hold
	 * (hash tag << 32 | node id + 1), the keys are the nodes themselves */
	uint64_t *nslot;
	uint32_t nr_nslots, nr_hashed;
	struct prec_hist_bg *bg; /* see prec_hist__background() */
	struct prec_hist_warm *warm; /* during finish: see prec_hist_warm__start() */

	struct prec_evsel_stats *ev;
	uint32_t nr_ev;

	/* after prec_hist__finish() */
	struct prec_keyset entry_ids;
	struct prec_entry *entries; /* entry_ids's records, by id */
	uint32_t nr_entries;
	struct prec_occurrence *occ;
	size_t nr_occ;
	struct prec_dso_unsym *unsym; /* sorted by period, descending */
	size_t nr_unsym;
	bool finished;

	/*
	 * Steps 4 and 5, indexing and symbolizing, which the background thread may do while the
	 * caller adds samples: on cache lines of their own (the hist is 64-byte aligned and its
	 * size a multiple of 64), so that the thread's writes for every node do not take from the
	 * reading thread the line of its trie's fields.  Sharing one cost that thread 11-19% of
	 * its CPU in the read phase on A (doc/performance.md).
	 */
	_Alignas(64) struct prec_keyset frames; /* struct prec_hist_frame -> frame id */
	uint32_t *node_frame; /* node id -> frame id (roots: context id) */
	uint32_t nr_indexed; /* nodes below this have their frame id */
	size_t cap_node_frame;
	struct prec_keyset sframes; /* struct prec_sframe -> id */
	struct prec_frame_sym *frame_sym; /* by frame id */
	uint32_t nr_symbolized; /* frames below this have their sframes */
	size_t cap_frame_sym;
	uint32_t *sf_seq;
	size_t nr_sf_seq, cap_sf_seq;
	const char **frame_srcline; /* with the srcline key */
	struct prec_strset strs;
};

/* Samples whose stack ends at `node`, and their period. */
static inline uint64_t prec_hist__node_count(const struct prec_hist *h, uint32_t node)
{
	return h->node_total[node].count;
}

static inline uint64_t prec_hist__node_period(const struct prec_hist *h, uint32_t node)
{
	return h->node_total[node].period;
}

/* Context `id`'s key. */
static inline const struct prec_ctx_key *prec_hist__ctx(const struct prec_hist *h, uint32_t id)
{
	return (const struct prec_ctx_key *)prec_keyset__key(&h->ctxs, id);
}

/* Frame fid, as indexed. */
static inline struct prec_hist_frame prec_hist__frame_at(const struct prec_hist *h, uint32_t fid)
{
	return *(const struct prec_hist_frame *)prec_keyset__key(&h->frames, fid);
}

/* Give node h->nr_indexed, whose frame is f (a root's if `root`), its frame id; *is_new says
 * whether the frame is new (then its id is h->frames.n - 1).  0 or -ENOMEM. */
int prec_hist__index_node(struct prec_hist *h, const struct prec_hist_frame *f, bool root,
			  bool *is_new);
/* Symbolize frame h->nr_symbolized (indexed already), of DSO d.  0 or -ENOMEM. */
int prec_hist__symbolize_next(struct prec_hist *h, struct prec_dso *d);

/* The thread, started for the nodes from h->nr_nodes on (all indexed before).  0 or -errno. */
int prec_hist_bg__start(struct prec_hist *h, struct prec_hist_bg **ret);
/* A node was made (the caller's thread, in node order). */
void prec_hist_bg__add(struct prec_hist_bg *bg, const struct prec_hist_frame *f,
		       struct prec_dso *d, bool root);
/* Stop the thread and free it (NULL: nothing): wherever it is, or with `drain` once it has
 * taken every node made so far.  The thread's error, or 0. */
int prec_hist_bg__stop(struct prec_hist_bg *bg, bool drain);

/* During finish, while the caller symbolizes frames h->nr_symbolized on in order: a thread
 * that asks the DWARF answers of the frames of DSOs whose debug info is open, in the same
 * order (prec_hist_bg.c).  NULL when there is nothing to ask or no thread. */
struct prec_hist_warm *prec_hist_warm__start(struct prec_hist *h);
/* Whether the answers of hist DSO `dso`'s frames come from w (false for NULL): then the
 * caller must not ask that DSO itself, and takes them with prec_hist_warm__take(). */
bool prec_hist_warm__covers(const struct prec_hist_warm *w, uint32_t dso);
/* The answers of frame fid, the next frame of a covered DSO: its inline frames into inl (at
 * most PREC_HIST_MAX_INLINE; their number, or what prec_dso__inlines() returned) and, with
 * the srcline key, its source line (prec_dso__srcline()) into *ret_srcline.  -EINVAL when
 * fid is not the next. */
int prec_hist_warm__take(struct prec_hist_warm *w, uint32_t fid, struct prec_inline_frame *inl,
			 const char **ret_srcline);
/* Stop the thread (after the last take, or early) and free it; NULL: nothing. */
void prec_hist_warm__stop(struct prec_hist_warm *w);

#endif
