/* SPDX-License-Identifier: MIT */
/*
 * Aggregation: how a sample becomes an entry (a row of the report).
 *
 * While reading, for each sample:
 *  1. prec_hist__context(): the parts of the sample the sort keys need (event, comm, pid,
 *     tid, cpu) are its context; each distinct context has an id and a root node.
 *  2. prec_hist__stack(): its frames, (DSO id, address) pairs, are walked from the outermost
 *     down to the leaf, each step finding or making the child node (parent, frame) of a
 *     trie.  A node's children are a short list (the one found last first), and once there
 *     are more than LIST_MAX of them, in a hash table of all such nodes (nslot).  The node
 *     reached is the sample's stack.
 *  3. prec_hist__count(): the stack's node counts the sample and its period.
 * At the end, prec_hist__finish():
 *  4. index: each node's frame gets a frame id, in the order frames first appeared;
 *  5. symbolize: each distinct frame once, into sframes (the functions inlined there with
 *     --inline, then its own function; or why it has none): prec_hist_sym.c;
 *  6. count: each node with samples, a stack, adds them to the entry of its leaf's sframe
 *     in its context (the entry's key is made of the sort keys); with children also, once
 *     per stack, to the cumulative totals of every entry on it; where each entry occurs is
 *     kept for the call graphs.
 * The views (prec_view.h) sort and print the entries.  With prec_hist__background() a thread
 * of its own takes steps 4 and 5 while samples are still read (prec_hist_bg.c); finish then
 * does what is left, with the same outcome.
 *
 * Invariants: ids are dense and never change.  A trie node id indexes the node array; its
 * key is (parent node, frame), roots being (UINT32_MAX, context id).  A parent is older than
 * its children.  Entries are made in node order, so output never depends on hash values.
 * Everything after the read is proportional to the number of distinct frames and stacks,
 * never to the number of samples.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_hist.h"
#include "prec_hist_int.h"
#include "prec_symbol.h"

#define ROOT_PARENT UINT32_MAX
#define NO_NODE UINT32_MAX /* end of a child list */
#define LIST_MAX 8 /* children kept as a list only; more go to the hash */

/* Growth of the hist's arrays: from 64 items, doubling. */
static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return prec_array__grow(arr, cap, need, size, 64);
}

/* grow(), with the new elements zeroed. */
static int grow_zero(void **arr, size_t *cap, size_t need, size_t size)
{
	return prec_array__grow_zero(arr, cap, need, size, 64);
}

#define NSLOT_FIRST 512

int prec_hist__new(const struct prec_hist_opts *opts, struct prec_symtab *st, uint32_t nr_evsels,
		   struct prec_hist **ret)
{
	struct prec_hist *h = aligned_alloc(64, sizeof(*h)); /* see prec_hist_int.h */

	if (!h)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	h->opts = *opts;
	h->symtab = st;
	h->ctx_comm = opts->need_comm || opts->need_thread ||
		      prec_hist_opts__has_key(opts, PREC_SORT_COMM) ||
		      prec_hist_opts__has_key(opts, PREC_SORT_PID) ||
		      prec_hist_opts__has_key(opts, PREC_SORT_TID);
	h->ctx_pid = prec_hist_opts__has_key(opts, PREC_SORT_PID);
	h->ctx_tid = prec_hist_opts__has_key(opts, PREC_SORT_TID);
	h->ctx_cpu = prec_hist_opts__has_key(opts, PREC_SORT_CPU);
	h->ctx_thread = opts->need_thread;
	prec_keyset__init(&h->dso_ids, sizeof(uintptr_t));
	prec_keyset__init(&h->ctxs, sizeof(struct prec_ctx_key));
	prec_keyset__init_records(&h->thread_comms, 2 * sizeof(uint32_t),
				  2 * sizeof(uint32_t) + sizeof(const char *));
	prec_keyset__init(&h->frames, sizeof(struct prec_hist_frame));
	prec_keyset__init(&h->sframes, sizeof(struct prec_sframe));
	/* the entries are their keyset's records: one array, grown without copies */
	prec_keyset__init_records(&h->entry_ids, sizeof(struct prec_entry_key),
				  sizeof(struct prec_entry));
	h->nr_ev = nr_evsels ? nr_evsels : 1;
	h->ev = calloc(h->nr_ev, sizeof(*h->ev));
	h->dsos = calloc(16, sizeof(*h->dsos));
	if (!h->ev || !h->dsos) {
		prec_hist__free(h);
		return -ENOMEM;
	}
	h->cap_dsos = 16;
	h->nr_dsos = 1; /* id 0: no mapping */
	*ret = h;
	return 0;
}

void prec_hist__free(struct prec_hist *h)
{
	if (!h)
		return;
	prec_hist__background_stop(h); /* first: its thread uses the hist */
	prec_keyset__release(&h->dso_ids);
	prec_keyset__release(&h->ctxs);
	prec_keyset__release(&h->thread_comms);
	prec_keyset__release(&h->frames);
	prec_keyset__release(&h->sframes);
	prec_keyset__release(&h->entry_ids);
	prec_strset__release(&h->strs);
	free(h->dsos);
	free(h->ctx_root);
	prec_maparray__free(h->node, h->cap_nodes, sizeof(*h->node));
	prec_maparray__free(h->node_total, h->cap_node_total, sizeof(*h->node_total));
	prec_slots__free(h->nslot, h->nr_nslots);
	free(h->node_frame);
	free(h->ev);
	free(h->frame_sym);
	free(h->sf_seq);
	free(h->frame_srcline);
	free(h->occ);
	free(h->unsym);
	free(h);
}

long prec_hist__dso_id(struct prec_hist *h, struct prec_dso *d)
{
	uintptr_t key = (uintptr_t)d;
	bool is_new;
	long id;

	if (!d)
		return 0;
	id = prec_keyset__intern(&h->dso_ids, &key, &is_new);
	if (id < 0)
		return id;
	if (is_new) {
		size_t cap = h->cap_dsos;

		if (grow((void **)&h->dsos, &cap, (size_t)h->nr_dsos + 1, sizeof(*h->dsos)))
			return -ENOMEM;
		h->cap_dsos = (uint32_t)cap;
		h->dsos[h->nr_dsos++] = d;
	}
	return id + 1;
}

struct prec_dso *prec_hist__dso(const struct prec_hist *h, uint32_t id)
{
	return id < h->nr_dsos ? h->dsos[id] : NULL;
}

static bool frame_eq(const struct prec_hist_frame *a, const struct prec_hist_frame *b)
{
	return a->addr == b->addr && a->dso == b->dso && a->flags == b->flags;
}

/* A new node (parent, f); its id, or -ENOMEM. */
static long node_new(struct prec_hist *h, uint32_t parent, const struct prec_hist_frame *f)
{
	uint32_t id = h->nr_nodes;
	struct prec_node *n;
	bool root = parent == ROOT_PARENT;

	if (id == UINT32_MAX - 1)
		return -E2BIG;
	/* inline for most nodes: two calls for each of A's 230k nodes were 9.7M instructions */
	if ((id >= h->cap_nodes || id >= h->cap_node_total) &&
	    (prec_maparray__grow((void **)&h->node, &h->cap_nodes, (size_t)id + 1,
				 sizeof(*h->node)) ||
	     prec_maparray__grow((void **)&h->node_total, &h->cap_node_total, (size_t)id + 1,
				 sizeof(*h->node_total))))
		return -ENOMEM;
	n = &h->node[id];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->child = NO_NODE;
	n->next_sibling = NO_NODE;
	n->frame = *f;
	if (h->bg)
		prec_hist_bg__add(h->bg, f, root ? NULL : prec_hist__dso(h, f->dso), root);
	h->node_total[id].period = 0;
	h->node_total[id].count = 0;
	h->nr_nodes++;
	return id;
}

/* The hash of the node (parent, f) in h->nslot: its high half is the tag kept in the slot,
 * whose low bits pick the slot, so growing the table reads no node. */
static uint64_t node_hash(uint32_t parent, const struct prec_hist_frame *f)
{
	uint64_t x = f->addr * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)parent << 32 | f->dso) ^
		     (uint64_t)f->flags << 24;

	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 32;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 29);
}

/* The slot of the node (parent, f) with hash `hv`, or the empty slot where it would go (the
 * table is at most half full).  A slot's tag tells most other nodes apart unread. */
static uint32_t nslot_probe(const struct prec_hist *h, uint32_t parent,
			    const struct prec_hist_frame *f, uint64_t hv)
{
	uint32_t tag = (uint32_t)(hv >> 32), mask = h->nr_nslots - 1, s = tag & mask;
	uint64_t v;

	while ((v = h->nslot[s])) {
		if ((uint32_t)(v >> 32) == tag) {
			const struct prec_node *n = &h->node[(uint32_t)v - 1];

			if (n->parent == parent && frame_eq(&n->frame, f))
				break;
		}
		s = (s + 1) & mask;
	}
	return s;
}

/* Put node `id` (not there yet) in h->nslot, growing it first if it would be over half
 * full. */
static int nslot_add(struct prec_hist *h, uint32_t id)
{
	const struct prec_node *n;
	uint64_t hv;

	if ((uint64_t)(h->nr_hashed + 1) * 2 > h->nr_nslots) {
		int err = prec_slots__grow(&h->nslot, &h->nr_nslots, NSLOT_FIRST);

		if (err)
			return err;
	}
	n = &h->node[id];
	hv = node_hash(n->parent, &n->frame);
	h->nslot[nslot_probe(h, n->parent, &n->frame, hv)] =
		(hv >> 32) << 32 | ((uint64_t)id + 1);
	h->nr_hashed++;
	return 0;
}

/*
 * The child (parent, f), added if new.  The children of a node are a list while they are few
 * (a new stack usually grows from a node without children: no hash at all), the child found
 * moving to its front, and go to h->nslot once there are more than LIST_MAX of them.  Either
 * way the parent's `child` is then the node returned, which prec_hist__stack() tries first
 * next time.  (Roots are found through h->ctx_root.)
 */
static long node_intern(struct prec_hist *h, uint32_t parent, const struct prec_hist_frame *f)
{
	struct prec_node *p = &h->node[parent];
	uint32_t c, prev = NO_NODE, kids;
	long id;
	int err;

	if (p->nr_children <= LIST_MAX) {
		for (c = p->child; c != NO_NODE; prev = c, c = h->node[c].next_sibling) {
			if (!frame_eq(&h->node[c].frame, f))
				continue;
			if (prev != NO_NODE) {
				h->node[prev].next_sibling = h->node[c].next_sibling;
				h->node[c].next_sibling = p->child;
				p->child = c;
			}
			return c;
		}
	} else if (h->nr_nslots) {
		uint64_t v = h->nslot[nslot_probe(h, parent, f, node_hash(parent, f))];

		if (v) {
			p->child = (uint32_t)v - 1;
			return (uint32_t)v - 1;
		}
	}
	id = node_new(h, parent, f);
	if (id < 0)
		return id;
	p = &h->node[parent]; /* node_new may have moved the array */
	kids = p->nr_children;
	if (kids == LIST_MAX) {
		/* one child too many for a list: from now on the hash has them all */
		for (c = p->child; c != NO_NODE; c = h->node[c].next_sibling) {
			err = nslot_add(h, c);
			if (err)
				return err;
		}
	}
	if (kids < LIST_MAX) {
		h->node[id].next_sibling = p->child;
	} else {
		err = nslot_add(h, (uint32_t)id);
		if (err)
			return err;
	}
	p->child = (uint32_t)id;
	if (kids <= LIST_MAX) /* past LIST_MAX only "more" matters */
		p->nr_children++;
	return id;
}

long prec_hist__context(struct prec_hist *h, const struct prec_hist_sample *s)
{
	struct prec_ctx_key ck;
	bool is_new;
	long ctx, node;

	memset(&ck, 0, sizeof(ck));
	ck.evsel = s->evsel < h->nr_ev ? s->evsel : 0;
	ck.comm = h->ctx_comm ? s->comm : NULL;
	ck.pid = h->ctx_pid || h->ctx_tid || h->ctx_thread ? s->pid : 0;
	/* perf's pid key is the thread's */
	ck.tid = h->ctx_pid || h->ctx_tid || h->ctx_thread ? s->tid : 0;
	ck.cpu = h->ctx_cpu ? s->cpu : 0;
	/* consecutive samples are mostly of one thread: remember the last context */
	if (h->has_last_ctx && ck.comm == h->last_ctx_key.comm &&
	    ck.evsel == h->last_ctx_key.evsel && ck.pid == h->last_ctx_key.pid &&
	    ck.tid == h->last_ctx_key.tid && ck.cpu == h->last_ctx_key.cpu)
		return h->last_ctx;
	ctx = prec_keyset__intern(&h->ctxs, &ck, &is_new);
	if (ctx >= 0 && !is_new) {
		h->last_ctx_key = ck;
		h->last_ctx = (uint32_t)ctx;
		h->has_last_ctx = true;
	}
	if (ctx < 0 || !is_new)
		return ctx;
	{
		size_t cap = h->cap_ctx;

		if (grow((void **)&h->ctx_root, &cap, (size_t)ctx + 1, sizeof(uint32_t)))
			return -ENOMEM;
		h->cap_ctx = cap;
	}
	{
		struct prec_hist_frame root = { .dso = (uint32_t)ctx };

		node = node_new(h, ROOT_PARENT, &root);
	}
	if (node < 0)
		return node;
	h->ctx_root[ctx] = (uint32_t)node;
	return ctx;
}

long prec_hist__stack(struct prec_hist *h, uint32_t ctx, const struct prec_hist_frame *frames,
		      size_t nr)
{
	long node = h->ctx_root[ctx];
	uint32_t c;
	size_t i;

	for (i = nr; i-- > 0;) {
		if (frames[i].dso >= h->nr_dsos)
			return -EINVAL; /* not a frame of this hist */
		/* consecutive stacks share their outer part: try the child taken last time */
		c = h->node[node].child;
		if (c != NO_NODE && frame_eq(&h->node[c].frame, &frames[i])) {
			node = c;
			continue;
		}
		node = node_intern(h, (uint32_t)node, &frames[i]);
		if (node < 0)
			return node;
	}
	return node;
}

void prec_hist__count(struct prec_hist *h, uint32_t ctx, uint32_t node, uint64_t period)
{
	uint32_t ev = prec_hist__ctx(h, ctx)->evsel;

	h->node_total[node].period += period;
	h->node_total[node].count++;
	h->ev[ev].nr_samples++;
	h->ev[ev].period += period;
}

void prec_hist__count_filtered(struct prec_hist *h, uint32_t evsel, uint64_t period)
{
	uint32_t ev = evsel < h->nr_ev ? evsel : 0;

	h->ev[ev].nr_samples++;
	h->ev[ev].period += period;
}

/* Frame fid's source line, with the srcline key (else NULL). */
static const char *srcline_at(const struct prec_hist *h, uint32_t fid)
{
	return h->frame_srcline ? h->frame_srcline[fid] : NULL;
}

/* The stack of `node`, leaf first, as sframe ids, with the node of each position (if nd). */
static long stack_seq2(const struct prec_hist *h, uint32_t node, size_t upto, uint32_t **seq,
		       uint32_t **nd, size_t *cap)
{
	size_t n = 0;

	for (; h->node[node].parent != ROOT_PARENT && n <= upto; node = h->node[node].parent) {
		uint32_t f = h->node_frame[node], k, nsf = h->frame_sym[f].sf_n;

		if (n + nsf > *cap) {
			size_t c1 = *cap, c2 = *cap;

			if (grow((void **)seq, &c1, n + nsf, sizeof(uint32_t)) ||
			    (nd && grow((void **)nd, &c2, n + nsf, sizeof(uint32_t))))
				return -ENOMEM;
			*cap = c1;
		}
		for (k = 0; k < nsf; k++) {
			(*seq)[n] = h->sf_seq[h->frame_sym[f].sf_start + k];
			if (nd)
				(*nd)[n] = node;
			n++;
		}
	}
	return (long)n;
}

long prec_hist__path(const struct prec_hist *h, uint32_t stack, size_t upto, struct prec_path *ret,
		     uint32_t **seq, size_t *cap)
{
	const struct prec_node_total *t = &h->node_total[stack];

	ret->period = t->period;
	ret->count = t->count;
	ret->chain = !(h->node[stack].frame.flags & PREC_FRAME_NOCHAIN);
	if (!t->count)
		return 0;
	return stack_seq2(h, stack, upto, seq, NULL, cap);
}

const char *prec_hist__stack_comm(const struct prec_hist *h, uint32_t stack)
{
	while (h->node[stack].parent != ROOT_PARENT)
		stack = h->node[stack].parent;
	return prec_hist__ctx(h, h->node[stack].frame.dso)->comm;
}

uint32_t prec_hist__nr_frames(const struct prec_hist *h)
{
	return h->frames.n;
}

struct prec_hist_frame prec_hist__frame(const struct prec_hist *h, uint32_t fid)
{
	return prec_hist__frame_at(h, fid);
}

uint32_t prec_hist__frame_sframes(const struct prec_hist *h, uint32_t fid, const uint32_t **ret)
{
	*ret = h->sf_seq + h->frame_sym[fid].sf_start;
	return h->frame_sym[fid].sf_n;
}

bool prec_hist__frame_symbolized(const struct prec_hist *h, uint32_t fid)
{
	return !h->frame_sym[fid].unsym;
}

long prec_hist__stack_frames(const struct prec_hist *h, uint32_t stack, struct prec_path *ret,
			     uint32_t **seq, size_t *cap)
{
	const struct prec_node_total *t = &h->node_total[stack];
	size_t n = 0;

	ret->period = t->period;
	ret->count = t->count;
	ret->chain = !(h->node[stack].frame.flags & PREC_FRAME_NOCHAIN);
	if (!t->count)
		return 0;
	for (; h->node[stack].parent != ROOT_PARENT; stack = h->node[stack].parent) {
		if (grow((void **)seq, cap, n + 1, sizeof(uint32_t)))
			return -ENOMEM;
		(*seq)[n++] = h->node_frame[stack];
	}
	return (long)n;
}

void prec_hist__stack_sample(const struct prec_hist *h, uint32_t stack,
			     struct prec_hist_sample *ret)
{
	const struct prec_ctx_key *ck;

	while (h->node[stack].parent != ROOT_PARENT)
		stack = h->node[stack].parent;
	ck = prec_hist__ctx(h, h->node[stack].frame.dso);
	memset(ret, 0, sizeof(*ret));
	ret->evsel = ck->evsel;
	ret->pid = ck->pid;
	ret->tid = ck->tid;
	ret->cpu = ck->cpu;
	ret->comm = ck->comm;
}

int prec_hist__set_thread_comm(struct prec_hist *h, uint32_t pid, uint32_t tid, const char *comm)
{
	uint32_t key[2] = { pid, tid };
	bool is_new;
	long id = prec_keyset__intern(&h->thread_comms, key, &is_new);

	if (id < 0)
		return (int)id;
	memcpy((char *)prec_keyset__record(&h->thread_comms, (uint32_t)id) + sizeof(key), &comm,
	       sizeof(comm));
	return 0;
}

const char *prec_hist__thread_comm(const struct prec_hist *h, uint32_t pid, uint32_t tid,
				   const char *comm)
{
	uint32_t key[2] = { pid, tid };
	long id = h->thread_comms.n ? prec_keyset__find(&h->thread_comms, key) : -1;

	if (id < 0)
		return comm;
	memcpy(&comm, (const char *)prec_keyset__key(&h->thread_comms, (uint32_t)id) + sizeof(key),
	       sizeof(comm));
	return comm;
}

bool prec_hist__thread(const struct prec_hist *h, uint32_t i, uint32_t *ret_pid, uint32_t *ret_tid)
{
	const struct prec_ctx_key *ck;

	if ((!h->ctx_pid && !h->ctx_tid) || i >= h->ctxs.n)
		return false;
	ck = prec_hist__ctx(h, i);
	*ret_pid = ck->pid;
	*ret_tid = ck->tid;
	return true;
}

/* The key of the entry of sframe sf (with srcline) in context ck.  dso is sf's DSO id, which is
 * its frame's: taken from the node at hand, where the sframe would be one more place to miss
 * the cache for every entry of every stack. */
static void entry_key(const struct prec_hist *h, const struct prec_ctx_key *ck, uint32_t sf,
		      uint32_t dso, const char *srcline, struct prec_entry_key *k)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->evsel = ck->evsel;
	for (i = 0; i < h->opts.nr_keys; i++) {
		switch (h->opts.keys[i]) {
		case PREC_SORT_COMM:
			k->comm = ck->comm;
			break;
		case PREC_SORT_PID:
		case PREC_SORT_TID:
			if (!k->comm)
				k->comm = prec_hist__thread_comm(h, ck->pid, ck->tid, ck->comm);
			k->pid = ck->pid;
			k->tid = ck->tid;
			break;
		case PREC_SORT_CPU:
			k->cpu = ck->cpu;
			break;
		case PREC_SORT_DSO:
			k->dso = dso;
			break;
		case PREC_SORT_SYM:
			k->sframe = sf + 1;
			break;
		case PREC_SORT_SRCLINE:
			k->srcline = srcline;
			break;
		default:
			break;
		}
	}
}

/* The entry of sframe sf (DSO id dso, with srcline) in context ck, made if new. */
static long entry_of(struct prec_hist *h, const struct prec_ctx_key *ck, uint32_t sf,
		     uint32_t dso, const char *srcline)
{
	struct prec_entry_key k;
	bool is_new;
	long id;

	entry_key(h, ck, sf, dso, srcline, &k);
	id = prec_keyset__intern(&h->entry_ids, &k, &is_new);

	if (id < 0 || !is_new)
		return id;
	/* the record is the key and zeros; the array may have moved */
	h->entries = prec_keyset__record(&h->entry_ids, 0);
	h->entries[id].sframe = sf;
	h->nr_entries = (uint32_t)id + 1;
	return id;
}

struct occ3 {
	uint32_t entry, node, pos;
};

static int unsym_add(struct prec_hist *h, uint32_t dso, uint64_t period, size_t *cap)
{
	size_t i;

	for (i = 0; i < h->nr_unsym; i++) {
		if (h->unsym[i].dso == dso) {
			h->unsym[i].period += period;
			return 0;
		}
	}
	if (grow((void **)&h->unsym, cap, h->nr_unsym + 1, sizeof(*h->unsym)))
		return -ENOMEM;
	h->unsym[h->nr_unsym].dso = dso;
	h->unsym[h->nr_unsym].period = period;
	h->nr_unsym++;
	return 0;
}

static int cmp_unsym(const void *a, const void *b)
{
	const struct prec_dso_unsym *x = a, *y = b;

	return x->period < y->period ? 1 : x->period > y->period ? -1 : 0;
}

/* Frame ids in the order the frames first appeared, which is the order of their first nodes
 * (a root's "frame" id is its context id). */
int prec_hist__index_node(struct prec_hist *h, const struct prec_hist_frame *f, bool root,
			  bool *is_new)
{
	long fid = root ? (long)f->dso : prec_keyset__intern(&h->frames, f, is_new);

	if (fid < 0 || grow((void **)&h->node_frame, &h->cap_node_frame, h->nr_indexed + 1,
			    sizeof(*h->node_frame)))
		return -ENOMEM;
	if (root)
		*is_new = false;
	h->node_frame[h->nr_indexed++] = (uint32_t)fid;
	return 0;
}

int prec_hist__index_frames(struct prec_hist *h)
{
	int err = prec_hist__background_stop(h);
	bool is_new;

	for (; !err && h->nr_indexed < h->nr_nodes;) {
		const struct prec_node *nd = &h->node[h->nr_indexed];

		err = prec_hist__index_node(h, &nd->frame, nd->parent == ROOT_PARENT, &is_new);
	}
	return err;
}

/* What prec_hist__finish() builds up while it goes over the stacks. */
struct fin {
	uint32_t *nctx; /* node -> context */
	uint32_t *seq, *nd; /* a stack's sframes and their nodes (children mode) */
	size_t cap;
	uint32_t *stamp; /* entry -> gen of the stack that last counted for it */
	size_t stamp_cap;
	uint32_t gen;
	struct occ3 *o3;
	size_t o3_cap, nr_o3;
	size_t unsym_cap;
};

/* Remember that entry e occurs at position pos of node's stack.  0 or -ENOMEM. */
static int o3_push(struct fin *F, long e, uint32_t node, long pos)
{
	if (F->nr_o3 == F->o3_cap &&
	    grow((void **)&F->o3, &F->o3_cap, F->nr_o3 + 1, sizeof(*F->o3)))
		return -ENOMEM;
	F->o3[F->nr_o3].entry = (uint32_t)e;
	F->o3[F->nr_o3].node = node;
	F->o3[F->nr_o3].pos = (uint32_t)pos;
	F->nr_o3++;
	return 0;
}

/* Count the stack that ends at `node`: 0 or -ENOMEM. */
static int fin_count(struct prec_hist *h, struct fin *F, uint32_t node)
{
	uint32_t f0 = h->node_frame[node];
	const struct prec_frame_sym *fs = &h->frame_sym[f0];
	uint64_t p = prec_hist__node_period(h, node), c = prec_hist__node_count(h, node);
	const struct prec_ctx_key *ck = prec_hist__ctx(h, F->nctx[node]);
	long n, e, k;

	/* symbolized or not is a property of the leaf's real (not inlined) frame */
	if (fs->unsym) {
		h->ev[ck->evsel].unsym_period += p;
		h->ev[ck->evsel].unsym_count += c;
		if (unsym_add(h, fs->unsym - 1, p, &F->unsym_cap))
			return -ENOMEM;
	}
	/* self: the leaf */
	e = entry_of(h, ck, fs->leaf, h->node[node].frame.dso, srcline_at(h, f0));
	if (e < 0)
		return -ENOMEM;
	h->entries[e].self_period += p;
	h->entries[e].self_count += c;
	if (!h->opts.children) {
		/* only the leaf's entry, once, on a stack of depth 1 as far as max_depth goes:
		 * its occurrence */
		if (!h->opts.keep_occurrences)
			return 0;
		if (h->entries[e].max_depth < 1)
			h->entries[e].max_depth = 1;
		return o3_push(F, e, node, 0);
	}
	n = stack_seq2(h, node, SIZE_MAX, &F->seq, &F->nd, &F->cap);
	if (n < 0)
		return -ENOMEM;
	if (++F->gen == 0) { /* wrapped: clear the stamps */
		memset(F->stamp, 0, F->stamp_cap * sizeof(*F->stamp));
		F->gen = 1;
	}
	for (k = 0; k < n; k++) {
		/* position order decides which occurrence of a recursive function carries the
		 * graph: the leaf first, then the outermost (caller order) or the innermost
		 * (callee order) */
		long pos = k == 0 ? 0 : h->opts.callee_order ? k : n - k;

		if (pos) {
			uint32_t at = F->nd[pos];

			e = entry_of(h, ck, F->seq[pos], h->node[at].frame.dso,
				     srcline_at(h, h->node_frame[at]));
			if (e < 0)
				return -ENOMEM;
		}
		/* checked here: a call for each of A's 660k positions was 14M instructions */
		if (h->nr_entries > F->stamp_cap &&
		    grow_zero((void **)&F->stamp, &F->stamp_cap, h->nr_entries, sizeof(*F->stamp)))
			return -ENOMEM;
		/* perf puts callers above callees of equal weight by the depth of the chain it
		 * keeps for an entry, largest over the stacks: the whole stack for the leaf,
		 * else from the entry's occurrence down to the leaf (caller order) or up to the
		 * root (callee order); see cmp_rowkeys() */
		{
			uint32_t d = pos == 0 ? (uint32_t)n
				     : h->opts.callee_order ? (uint32_t)(n - pos) : (uint32_t)pos + 1;

			if (d > h->entries[e].max_depth)
				h->entries[e].max_depth = d;
		}
		if (F->stamp[e] == F->gen)
			continue;
		F->stamp[e] = F->gen;
		h->entries[e].acc_period += p;
		h->entries[e].acc_count += c;
		if (h->opts.keep_occurrences && o3_push(F, e, node, pos))
			return -ENOMEM;
	}
	return 0;
}

/* Count the stacks of all nodes, F->nctx filled in on the way (a parent is older than its
 * children). */
static int fin_nodes(struct prec_hist *h, struct fin *F)
{
	uint32_t node;
	int err;

	for (node = 0; node < h->nr_nodes; node++) {
		uint32_t parent = h->node[node].parent;

		/* a root has no frame: nothing to show */
		if (parent == ROOT_PARENT) {
			F->nctx[node] = h->node[node].frame.dso;
			continue;
		}
		F->nctx[node] = F->nctx[parent];
		if (!prec_hist__node_count(h, node)) /* not a stack */
			continue;
		err = fin_count(h, F, node);
		if (err)
			return err;
	}
	return 0;
}

static void fin_free(struct fin *F)
{
	free(F->seq);
	free(F->nd);
	free(F->stamp);
	free(F->o3);
}

/* h->occ: the occurrences F gathered (in node order), by entry.  0 or -ENOMEM. */
static int occurrences(struct prec_hist *h, const struct fin *F)
{
	uint32_t *cnt = calloc((size_t)h->nr_entries + 1, sizeof(uint32_t));
	size_t i;

	h->occ = malloc((F->nr_o3 ? F->nr_o3 : 1) * sizeof(*h->occ));
	if (!cnt || !h->occ) {
		free(cnt);
		return -ENOMEM;
	}
	for (i = 0; i < F->nr_o3; i++)
		cnt[F->o3[i].entry + 1]++;
	for (i = 0; i < h->nr_entries; i++) {
		h->entries[i].occ_start = cnt[i];
		h->entries[i].occ_n = cnt[i + 1];
		cnt[i + 1] += cnt[i];
	}
	for (i = 0; i < h->nr_entries; i++)
		cnt[i] = h->entries[i].occ_start;
	for (i = 0; i < F->nr_o3; i++) {
		const struct occ3 *o = &F->o3[i];

		h->occ[cnt[o->entry]].node = o->node;
		h->occ[cnt[o->entry]].pos = o->pos;
		cnt[o->entry]++;
	}
	h->nr_occ = F->nr_o3;
	free(cnt);
	return 0;
}

int prec_hist__finish(struct prec_hist *h)
{
	struct fin F;
	int err;

	if (h->finished)
		return 0;
	err = prec_hist__index_frames(h);
	if (err)
		return err;
	h->finished = true;
	h->warm = prec_hist_warm__start(h);
	while (!err && h->nr_symbolized < h->frames.n) {
		uint32_t dso = prec_hist__frame_at(h, h->nr_symbolized).dso;

		err = prec_hist__symbolize_next(h, prec_hist__dso(h, dso));
	}
	prec_hist_warm__stop(h->warm);
	h->warm = NULL;
	if (err)
		return err;
	memset(&F, 0, sizeof(F));
	F.nctx = malloc((h->nr_nodes ? h->nr_nodes : 1) * sizeof(*F.nctx));
	err = F.nctx ? fin_nodes(h, &F) : -ENOMEM;
	if (!err && h->opts.keep_occurrences)
		err = occurrences(h, &F);
	if (!err && h->nr_unsym)
		qsort(h->unsym, h->nr_unsym, sizeof(*h->unsym), cmp_unsym);
	fin_free(&F);
	free(F.nctx);
	return err;
}

static bool name_in(const char *name, const char *const *list)
{
	for (; name && *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

bool prec_hist__sframe_shown(const struct prec_hist *h, uint32_t sfid)
{
	const struct prec_sframe *sf = prec_hist__sframe(h, sfid);

	if (h->opts.dso_filter) {
		struct prec_dso *d = prec_hist__dso(h, sf->dso);

		if (!d || (!name_in(prec_dso__short_name(d), h->opts.dso_filter) &&
			   !name_in(prec_dso__long_name(d), h->opts.dso_filter)))
			return false;
	}
	if (h->opts.sym_filter && !name_in(sf->name, h->opts.sym_filter))
		return false;
	return true;
}

/* ---- what the views read ---- */

const struct prec_hist_opts *prec_hist__opts(const struct prec_hist *h)
{
	return &h->opts;
}

uint32_t prec_hist__nr_events(const struct prec_hist *h)
{
	return h->nr_ev;
}

const struct prec_evsel_stats *prec_hist__event(const struct prec_hist *h, uint32_t evsel)
{
	return &h->ev[evsel < h->nr_ev ? evsel : 0];
}

const struct prec_dso_unsym *prec_hist__unsym(const struct prec_hist *h, size_t *ret_nr)
{
	*ret_nr = h->nr_unsym;
	return h->unsym;
}

const struct prec_entry *prec_hist__entries(const struct prec_hist *h, uint32_t *ret_nr)
{
	*ret_nr = h->nr_entries;
	return h->entries;
}

const struct prec_sframe *prec_hist__sframe(const struct prec_hist *h, uint32_t id)
{
	return (const struct prec_sframe *)prec_keyset__key(&h->sframes, id);
}

const struct prec_occurrence *prec_hist__occurrences(const struct prec_hist *h,
						     const struct prec_entry *e)
{
	return h->occ ? h->occ + e->occ_start : NULL;
}

uint32_t prec_hist__nr_stacks(const struct prec_hist *h)
{
	return h->nr_nodes;
}
