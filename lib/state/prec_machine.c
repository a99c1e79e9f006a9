/* SPDX-License-Identifier: MIT */
/*
 * Replays COMM / FORK / MMAP / MMAP2 into threads and address spaces.
 *
 * Invariants: each mspace's maps are sorted by start and never overlap (a new mapping cuts
 * away whatever it covers, as mmap(2) does); every thread points to the mspace of its pid;
 * every string is interned in the machine's strset.  A COMM with the exec flag empties the
 * process's address space: the new image's mappings follow it; the old ones stay behind the
 * new ones until the process is sampled in user mode (samples inside execve after the COMM
 * still carry the old image's user stack; perf never drops them).  A forked process shares
 * its parent's map array until one of the two changes its maps (most exec before they do:
 * the copy was never needed).  Record bodies are read by lib/data's decoders (prec_record.h),
 * which check them against the record's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "prec_machine.h"
#include "prec_record.h"

#define PREC_RECENT_THREADS 64

/* A record of the machine's keysets: a key and what the machine keeps for it. */
struct tid_rec {
	uint64_t tid;
	struct prec_thread *t; /* NULL only when making it failed */
};

struct pid_rec {
	uint64_t pid;
	struct prec_mspace *ms;
};

struct bid_rec {
	struct prec_build_id id;
	struct prec_build_id *copy; /* what maps point to: records move, this does not */
};

struct path_rec {
	const char *path; /* interned */
	const struct prec_build_id *id;
};

struct prec_machine {
	struct prec_strset strs;
	struct prec_keyset threads; /* struct tid_rec */
	struct prec_keyset spaces; /* struct pid_rec */
	struct prec_mspace kernel;
	struct prec_keyset bids; /* struct bid_rec: the interned build-ids */
	struct prec_keyset path_bids; /* struct path_rec: the BUILD_ID feature's */
	uint64_t gen; /* count of map changes; stamps prec_mspace.gen */
	struct prec_thread *recent[PREC_RECENT_THREADS]; /* by tid: last looked up (never move) */
};

int prec_machine__new(struct prec_machine **ret)
{
	struct prec_machine *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	prec_keyset__init_records(&m->threads, sizeof(uint64_t), sizeof(struct tid_rec));
	prec_keyset__init_records(&m->spaces, sizeof(uint64_t), sizeof(struct pid_rec));
	prec_keyset__init_records(&m->bids, sizeof(struct prec_build_id), sizeof(struct bid_rec));
	prec_keyset__init_records(&m->path_bids, sizeof(const char *), sizeof(struct path_rec));
	m->kernel.pid = PREC_PID_KERNEL;
	*ret = m;
	return 0;
}

/* A map array, shared by the processes whose maps are the same since a fork. */
struct prec_mapvec {
	uint32_t refs;
	size_t cap;
	struct prec_map maps[];
};

static void vec_put(struct prec_mapvec *v)
{
	if (v && !--v->refs)
		free(v);
}

void prec_machine__free(struct prec_machine *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->threads.n; i++)
		free(((struct tid_rec *)prec_keyset__record(&m->threads, i))->t);
	for (i = 0; i < m->spaces.n; i++) {
		struct prec_mspace *ms = ((struct pid_rec *)prec_keyset__record(&m->spaces, i))->ms;

		if (ms) {
			vec_put(ms->vec);
			vec_put(ms->old_vec);
			free(ms);
		}
	}
	vec_put(m->kernel.vec);
	for (i = 0; i < m->bids.n; i++)
		free(((struct bid_rec *)prec_keyset__record(&m->bids, i))->copy);
	prec_keyset__release(&m->threads);
	prec_keyset__release(&m->spaces);
	prec_keyset__release(&m->bids);
	prec_keyset__release(&m->path_bids);
	prec_strset__release(&m->strs);
	free(m);
}

uint64_t prec_machine__generation(const struct prec_machine *m, const struct prec_mspace *ms)
{
	return ms && ms->gen > m->kernel.gen ? ms->gen : m->kernel.gen;
}

static void changed(struct prec_machine *m, struct prec_mspace *ms)
{
	ms->gen = ++m->gen;
}

static struct prec_mspace *mspace_of(struct prec_machine *m, uint32_t pid)
{
	uint64_t key = pid;
	struct pid_rec *rec;
	long id;

	if (pid == PREC_PID_KERNEL)
		return &m->kernel;
	id = prec_keyset__intern(&m->spaces, &key, NULL);
	if (id < 0)
		return NULL;
	rec = prec_keyset__record(&m->spaces, (uint32_t)id);
	if (!rec->ms) {
		rec->ms = calloc(1, sizeof(*rec->ms));
		if (rec->ms)
			rec->ms->pid = pid;
	}
	return rec->ms;
}

/* A new thread: "swapper" for tid 0, ":TID" until its COMM is seen. */
static struct prec_thread *thread_new(struct prec_machine *m, uint32_t pid, uint32_t tid)
{
	struct prec_thread *t = calloc(1, sizeof(*t));
	char name[24];

	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	if (tid == 0)
		snprintf(name, sizeof(name), "swapper");
	else
		snprintf(name, sizeof(name), ":%u", tid);
	t->comm = prec_strset__intern(&m->strs, name);
	t->ms = mspace_of(m, pid);
	if (!t->comm || !t->ms) {
		free(t);
		return NULL;
	}
	return t;
}

struct prec_thread *prec_machine__thread(struct prec_machine *m, uint32_t pid, uint32_t tid)
{
	struct prec_thread **slot = &m->recent[tid % PREC_RECENT_THREADS], *t = *slot;
	uint64_t key = tid;
	struct tid_rec *rec;
	long id;

	/* samples come from a few threads at a time: those answer without a lookup */
	if (t && t->tid == tid && (t->pid == pid || pid == UINT32_MAX))
		return t;
	id = prec_keyset__intern(&m->threads, &key, NULL);
	if (id < 0)
		return NULL;
	rec = prec_keyset__record(&m->threads, (uint32_t)id);
	if (!rec->t)
		return rec->t = thread_new(m, pid, tid);
	t = rec->t;
	*slot = t;
	if (t->pid != pid && pid != UINT32_MAX) {
		/* a tid reused by another process, or a pid learnt late */
		struct prec_mspace *ms = mspace_of(m, pid);

		if (!ms)
			return NULL;
		t->pid = pid;
		t->ms = ms;
		memset(t->user, 0, sizeof(t->user)); /* another thread now */
	}
	return t;
}

static struct prec_map *maps_find(struct prec_map *maps, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

struct prec_map *prec_mspace__find(struct prec_mspace *ms, uint64_t addr)
{
	struct prec_map *map = maps_find(ms->maps, ms->nr, addr);

	return map || !ms->nr_old ? map : maps_find(ms->old, ms->nr_old, addr);
}

void prec_machine__user_seen(struct prec_machine *m, struct prec_mspace *ms)
{
	if (!ms->nr_old)
		return;
	vec_put(ms->old_vec);
	ms->old_vec = NULL;
	ms->old = NULL;
	ms->nr_old = 0;
	changed(m, ms);
}

/* Make ms's map array its own (a copy, if shared) with room for `extra` more maps. */
static int mspace_reserve(struct prec_mspace *ms, size_t extra)
{
	struct prec_mapvec *v = ms->vec, *nv;
	size_t need = ms->nr + extra, cap = v ? v->cap : 16;

	if (v && v->refs == 1 && need <= v->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > (SIZE_MAX - sizeof(*nv)) / sizeof(struct prec_map))
		return -ENOMEM;
	/* a new array whether it grows or stops being shared: growing is rare (doubling) */
	nv = malloc(sizeof(*nv) + cap * sizeof(struct prec_map));
	if (!nv)
		return -ENOMEM;
	nv->refs = 1;
	nv->cap = cap;
	if (ms->nr)
		memcpy(nv->maps, ms->maps, ms->nr * sizeof(struct prec_map));
	vec_put(v);
	ms->vec = nv;
	ms->maps = nv->maps;
	return 0;
}

/* Insert `nm`, cutting away the parts of existing maps it covers. */
static int mspace_insert(struct prec_mspace *ms, const struct prec_map *nm)
{
	struct prec_map left, right;
	bool has_left = false, has_right = false;
	size_t first, last, i, keep;

	if (mspace_reserve(ms, 3))
		return -ENOMEM;
	/* first map that ends after nm->start */
	for (first = 0; first < ms->nr && ms->maps[first].end <= nm->start; first++)
		;
	for (last = first; last < ms->nr && ms->maps[last].start < nm->end; last++)
		;
	/* maps [first, last) overlap nm */
	if (first < last && ms->maps[first].start < nm->start) {
		left = ms->maps[first];
		left.end = nm->start;
		has_left = true;
	}
	if (first < last && ms->maps[last - 1].end > nm->end) {
		right = ms->maps[last - 1];
		right.pgoff += nm->end - right.start;
		right.start = nm->end;
		has_right = true;
	}
	keep = (size_t)has_left + 1 + (size_t)has_right;
	memmove(&ms->maps[first + keep], &ms->maps[last], (ms->nr - last) * sizeof(*ms->maps));
	ms->nr = ms->nr - (last - first) + keep;
	i = first;
	if (has_left)
		ms->maps[i++] = left;
	ms->maps[i++] = *nm;
	if (has_right)
		ms->maps[i] = right;
	return 0;
}

/* The interned copy of a build-id (at most PREC_BUILD_ID_SIZE bytes used), or NULL on
 * -ENOMEM. */
static const struct prec_build_id *bid_intern(struct prec_machine *m, const uint8_t *id,
					      size_t len)
{
	struct prec_build_id k;
	struct bid_rec *rec;
	long i;

	memset(&k, 0, sizeof(k));
	k.len = (uint8_t)(len > PREC_BUILD_ID_SIZE ? PREC_BUILD_ID_SIZE : len);
	memcpy(k.id, id, k.len);
	i = prec_keyset__intern(&m->bids, &k, NULL);
	if (i < 0)
		return NULL;
	rec = prec_keyset__record(&m->bids, (uint32_t)i);
	if (!rec->copy) {
		rec->copy = malloc(sizeof(*rec->copy));
		if (rec->copy)
			*rec->copy = k;
	}
	return rec->copy;
}

int prec_machine__add_build_id(struct prec_machine *m, const char *path, const uint8_t *id,
			       size_t len)
{
	const char *p = prec_strset__intern(&m->strs, path);
	const struct prec_build_id *b = p ? bid_intern(m, id, len) : NULL;
	long idx;

	if (!b)
		return -ENOMEM;
	idx = prec_keyset__intern(&m->path_bids, &p, NULL);
	if (idx < 0)
		return (int)idx;
	((struct path_rec *)prec_keyset__record(&m->path_bids, (uint32_t)idx))->id = b;
	return 0;
}

static void attach_build_id(struct prec_machine *m, struct prec_map *map)
{
	long idx = prec_keyset__find(&m->path_bids, &map->path);

	if (idx >= 0)
		map->build_id = ((struct path_rec *)prec_keyset__record(&m->path_bids,
									(uint32_t)idx))->id;
}

static int do_mmap(struct prec_machine *m, const void *rec, size_t size)
{
	struct prec_map nm = { 0 };
	struct prec_mmap2 r;
	struct prec_mspace *ms;

	if (prec_rec_mmap__parse(rec, size, &r))
		return -EBADMSG;
	if (r.len == 0 || r.addr + r.len < r.addr)
		return 0; /* nothing mapped, or nonsense: ignore rather than fail the report */
	nm.start = r.addr;
	nm.end = r.addr + r.len;
	nm.pgoff = r.pgoff;
	nm.path = prec_strset__intern(&m->strs, r.filename);
	if (!nm.path)
		return -ENOMEM;
	if (r.has_build_id) {
		nm.build_id = bid_intern(m, r.build_id, r.build_id_size);
		if (!nm.build_id)
			return -ENOMEM;
	} else {
		nm.maj = r.maj;
		nm.min = r.min;
		nm.ino = r.ino;
		nm.ino_gen = r.ino_generation;
		attach_build_id(m, &nm);
	}
	/* kernel maps: pid -1; in user records a pid of -1 also means "not a process" */
	ms = mspace_of(m, r.pid);
	if (!ms)
		return -ENOMEM;
	if (r.pid != PREC_PID_KERNEL && !prec_machine__thread(m, r.pid, r.tid))
		return -ENOMEM;
	changed(m, ms);
	return mspace_insert(ms, &nm);
}

static int do_comm(struct prec_machine *m, const void *rec, size_t size)
{
	struct prec_rec_comm c;
	struct prec_thread *t;

	if (prec_rec_comm__parse(rec, size, &c))
		return -EBADMSG;
	t = prec_machine__thread(m, c.pid, c.tid);
	if (!t)
		return -ENOMEM;
	t->comm = prec_strset__intern(&m->strs, c.comm);
	if (!t->comm)
		return -ENOMEM;
	if (c.exec) {
		/* the new image's mappings follow; the old ones wait behind them */
		vec_put(t->ms->old_vec);
		t->ms->old_vec = t->ms->vec;
		t->ms->old = t->ms->maps;
		t->ms->nr_old = t->ms->nr;
		t->ms->vec = NULL;
		t->ms->maps = NULL;
		t->ms->nr = 0;
		changed(m, t->ms);
	}
	return 0;
}

static int do_fork(struct prec_machine *m, const void *rec, size_t size)
{
	struct prec_thread *parent, *child;
	struct prec_rec_fork f;

	if (prec_rec_fork__parse(rec, size, &f) || f.exit)
		return -EBADMSG;
	parent = prec_machine__thread(m, f.ppid, f.ptid);
	if (!parent)
		return -ENOMEM;
	if (f.pid != f.ppid) {
		struct prec_mspace *ms = mspace_of(m, f.pid);

		if (!ms)
			return -ENOMEM;
		/* a new process starts with its parent's mappings: shared until either changes */
		if (ms->nr == 0 && parent->ms && parent->ms->nr && ms != parent->ms) {
			vec_put(ms->vec);
			ms->vec = parent->ms->vec;
			ms->vec->refs++;
			ms->maps = ms->vec->maps;
			ms->nr = parent->ms->nr;
			changed(m, ms);
		}
	}
	child = prec_machine__thread(m, f.pid, f.tid);
	if (!child)
		return -ENOMEM;
	child->comm = parent->comm;
	return 0;
}

int prec_machine__process(struct prec_machine *m, uint32_t type, const void *rec, size_t size)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return do_mmap(m, rec, size);
	case PERF_RECORD_COMM:
		return do_comm(m, rec, size);
	case PERF_RECORD_FORK:
		return do_fork(m, rec, size);
	default:
		return 0;
	}
}
