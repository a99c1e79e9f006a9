/* SPDX-License-Identifier: MIT */
/*
 * Background symbolizing: steps 4 and 5 of prec_hist.c (index, symbolize) done on a thread of
 * its own while the caller still adds samples, so that finish has less left to do.
 *
 * What each side owns until prec_hist_bg__stop() has joined the thread: the caller (the
 * reading thread) the trie, the contexts and the DSO table; the thread the frame table,
 * node_frame, the sframes and everything per frame (prec_hist.c keeps them apart).  They
 * share nothing else: for each node it makes, the caller appends a copy of its frame and DSO
 * to a list of chunks here and publishes the count (release); the thread reads up to that
 * count (acquire), and frees a chunk once it is past it and the caller has linked the next.
 * With nothing to do the thread sleeps on a condition variable, and the caller wakes it once
 * a chunk's worth waits (or to stop), so that it does not take the CPU from the caller for
 * every few nodes.
 *
 * The thread looks a DSO up only when prec_symtab__prefetch() queued it and the loader has
 * loaded everything queued (prec_symtab__loader_settled()): then neither the loader nor the
 * caller touches it until the loader stops.  Frames are symbolized in frame id order, so at
 * the first frame of a DSO it may not look up (a JIT map the caller loads itself), it only
 * indexes from then on; finish symbolizes the rest, as it indexes what the thread had not
 * reached when it was stopped.  Either way the outcome is the one-thread path's.
 *
 * With inline frames or source lines, the DWARF answers of the frames finish symbolizes are
 * about half of its work, and the read leaves the other CPU idle then: prec_hist_warm__start()
 * asks them on a thread of its own, in frame order, and hands them to the symbolizer through
 * a ring of answers (prec_hist_warm__take()), so that the DWARF lookups overlap the rest of
 * symbolizing.  The thread reads only the frames and the DSO table, which no longer change,
 * and asks only DSOs whose debug info is open (prec_dso__dwarf_open()), which the caller then
 * only looks up (prec_dso__lookup()) until stop().  The answers are the same whoever asks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prec_hist_int.h"
#include "prec_symbol.h"

#define CHUNK 4096 /* nodes per chunk */
#define PUBLISH 256 /* nodes the caller makes before it publishes them */
#define WAKE CHUNK /* nodes that wait before the caller wakes a sleeping thread */

struct item {
	struct prec_hist_frame f;
	struct prec_dso *d;
	bool root;
};

struct chunk {
	struct chunk *next; /* set by the caller (release) once it writes to the next */
	struct item items[CHUNK];
};

/* The caller's fields, the ones they share and the thread's each have a cache line of their
 * own: the caller writes its count for every node. */
struct prec_hist_bg {
	struct prec_hist *h;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;

	_Alignas(64) struct chunk *tail; /* the chunk the caller writes to */
	uint32_t nr_items; /* the caller's count */
	uint32_t woken; /* nr_items when the caller last woke the thread */
	bool failed; /* out of memory for a chunk: nothing more is published */

	_Alignas(64) uint32_t pub; /* items the thread may read (release / acquire) */
	bool stop; /* the caller's request (seq_cst) */
	bool drain; /* with stop: do what was published first */
	bool sleeping; /* the thread waits on `wake` (seq_cst: see bg_sleep) */

	_Alignas(64) struct chunk *head; /* the oldest chunk not freed */
	bool symbolizing; /* no frame it may not look up met yet */
	int err;
};

static void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* Sleep until the caller publishes more than `done` items or asks to stop.  The thread says it
 * sleeps, then looks once more; the caller publishes, then looks whether it sleeps: with
 * both sequentially consistent, one of them sees the other's store. */
static void bg_sleep(struct prec_hist_bg *bg, uint32_t done)
{
	pthread_mutex_lock(&bg->lock);
	__atomic_store_n(&bg->sleeping, true, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&bg->pub, __ATOMIC_SEQ_CST) == done &&
	       !__atomic_load_n(&bg->stop, __ATOMIC_SEQ_CST))
		pthread_cond_wait(&bg->wake, &bg->lock);
	__atomic_store_n(&bg->sleeping, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&bg->lock);
}

/* The caller's side: publish n items, and wake the thread if it sleeps and enough wait (or
 * `always`). */
static void bg_publish(struct prec_hist_bg *bg, uint32_t n, bool always)
{
	__atomic_store_n(&bg->pub, n, __ATOMIC_SEQ_CST);
	if ((always || n - bg->woken >= WAKE) &&
	    __atomic_load_n(&bg->sleeping, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&bg->lock);
		pthread_cond_signal(&bg->wake);
		pthread_mutex_unlock(&bg->lock);
		bg->woken = n;
	}
}

/* Index (and symbolize, while it may) the item of node h->nr_indexed.  0 or -ENOMEM. */
static int take(struct prec_hist_bg *bg, const struct item *it)
{
	struct prec_hist *h = bg->h;
	bool is_new;
	int err = prec_hist__index_node(h, &it->f, it->root, &is_new);

	if (err || !is_new || !bg->symbolizing)
		return err;
	/* the new frame must be the next to symbolize, and its DSO one it may look up */
	if (h->nr_symbolized + 1 != h->frames.n || (it->d && !prec_dso__prefetched(it->d))) {
		bg->symbolizing = false;
		return 0;
	}
	return prec_hist__symbolize_next(h, it->d);
}

static void *bg_main(void *arg)
{
	struct prec_hist_bg *bg = arg;
	uint32_t done = 0;
	int err;

	for (;;) {
		bool stop = __atomic_load_n(&bg->stop, __ATOMIC_SEQ_CST);
		uint32_t pub = __atomic_load_n(&bg->pub, __ATOMIC_ACQUIRE);

		if (stop && (!bg->drain || done == pub))
			break;
		if (done == pub) {
			bg_sleep(bg, done);
			continue;
		}
		/* every DSO of these nodes was queued before its first node was made */
		if (!prec_symtab__loader_settled(bg->h->symtab)) {
			nap();
			continue;
		}
		for (; done < pub; done++) {
			struct chunk *c = bg->head;

			/* past the head: the caller has linked the next */
			if (done && !(done % CHUNK)) {
				bg->head = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
				free(c);
				c = bg->head;
			}
			err = take(bg, &c->items[done % CHUNK]);
			if (err) {
				bg->err = err;
				return NULL;
			}
			if (!(done % 64) && __atomic_load_n(&bg->stop, __ATOMIC_ACQUIRE) &&
			    !bg->drain)
				return NULL;
		}
	}
	return NULL;
}

int prec_hist_bg__start(struct prec_hist *h, struct prec_hist_bg **ret)
{
	struct prec_hist_bg *bg = aligned_alloc(64, sizeof(*bg));
	int err;

	if (!bg)
		return -ENOMEM;
	memset(bg, 0, sizeof(*bg));
	bg->h = h;
	bg->symbolizing = true;
	bg->head = bg->tail = malloc(sizeof(*bg->tail));
	if (!bg->head) {
		free(bg);
		return -ENOMEM;
	}
	bg->head->next = NULL;
	pthread_mutex_init(&bg->lock, NULL);
	pthread_cond_init(&bg->wake, NULL);
	err = pthread_create(&bg->thread, NULL, bg_main, bg);
	if (err) {
		pthread_cond_destroy(&bg->wake);
		pthread_mutex_destroy(&bg->lock);
		free(bg->head);
		free(bg);
		return -err;
	}
	*ret = bg;
	return 0;
}

void prec_hist_bg__add(struct prec_hist_bg *bg, const struct prec_hist_frame *f,
		       struct prec_dso *d, bool root)
{
	struct item *it;

	if (bg->failed)
		return;
	if (bg->nr_items && !(bg->nr_items % CHUNK)) {
		struct chunk *c = malloc(sizeof(*c));

		if (!c) {
			bg->failed = true;
			bg_publish(bg, bg->nr_items, true);
			return;
		}
		c->next = NULL;
		__atomic_store_n(&bg->tail->next, c, __ATOMIC_RELEASE);
		bg->tail = c;
	}
	it = &bg->tail->items[bg->nr_items % CHUNK];
	it->f = *f;
	it->d = d;
	it->root = root;
	if (!(++bg->nr_items % PUBLISH))
		bg_publish(bg, bg->nr_items, false);
}

int prec_hist_bg__stop(struct prec_hist_bg *bg, bool drain)
{
	struct chunk *c;
	int err;

	if (!bg)
		return 0;
	bg->drain = drain;
	__atomic_store_n(&bg->pub, bg->nr_items, __ATOMIC_SEQ_CST);
	__atomic_store_n(&bg->stop, true, __ATOMIC_SEQ_CST);
	bg_publish(bg, bg->nr_items, true);
	pthread_join(bg->thread, NULL);
	pthread_cond_destroy(&bg->wake);
	pthread_mutex_destroy(&bg->lock);
	for (c = bg->head; c;) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
	err = bg->err;
	free(bg);
	return err;
}

#define RING 512 /* answers asked ahead (about 400 KiB) */

struct warm_answer {
	uint32_t fid;
	int nr; /* inline frames, or -errno */
	const char *srcline;
	struct prec_inline_frame inl[PREC_HIST_MAX_INLINE];
};

struct prec_hist_warm {
	struct prec_hist *h;
	pthread_t thread;
	uint32_t from; /* the first frame to symbolize */
	bool *dwarf; /* by hist DSO id: its debug info was open at the start */
	uint32_t nr_dsos;
	bool srcline; /* the srcline key: ask the source line too */
	pthread_mutex_t lock; /* guards the counts and stop */
	pthread_cond_t cond; /* an answer was made or taken, or stop */
	uint32_t made, taken; /* answers; made - taken of them wait in the ring */
	bool stop;
	struct warm_answer ring[RING];
};

static void *warm_main(void *arg)
{
	struct prec_hist_warm *w = arg;
	uint32_t fid;
	bool stop;

	for (fid = w->from; fid < w->h->frames.n; fid++) {
		struct prec_hist_frame f = prec_hist__frame_at(w->h, fid);
		struct warm_answer *a = &w->ring[w->made % RING];
		/* at the address the symbolizer asks: a return address's call */
		uint64_t addr = f.addr - ((f.flags & PREC_FRAME_RET) && f.addr ? 1 : 0);
		struct prec_dso *d = prec_hist__dso(w->h, f.dso);

		if (!prec_hist_warm__covers(w, f.dso))
			continue;
		pthread_mutex_lock(&w->lock);
		while (w->made - w->taken == RING && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		stop = w->stop;
		pthread_mutex_unlock(&w->lock);
		if (stop)
			break;
		/* the slot is the thread's until made counts it */
		a->fid = fid;
		a->nr = prec_dso__inlines(d, addr, a->inl, PREC_HIST_MAX_INLINE);
		a->srcline = w->srcline ? prec_dso__srcline(d, addr) : NULL;
		pthread_mutex_lock(&w->lock);
		w->made++;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

bool prec_hist_warm__covers(const struct prec_hist_warm *w, uint32_t dso)
{
	return w && dso < w->nr_dsos && w->dwarf[dso];
}

int prec_hist_warm__take(struct prec_hist_warm *w, uint32_t fid, struct prec_inline_frame *inl,
			 const char **ret_srcline)
{
	struct warm_answer *a;
	int nr;

	pthread_mutex_lock(&w->lock);
	while (w->made == w->taken)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	a = &w->ring[w->taken % RING];
	if (a->fid != fid)
		return -EINVAL; /* not the frames in order: a bug */
	nr = a->nr;
	if (nr > 0)
		memcpy(inl, a->inl, (size_t)nr * sizeof(*inl));
	*ret_srcline = a->srcline;
	pthread_mutex_lock(&w->lock);
	w->taken++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return nr;
}

struct prec_hist_warm *prec_hist_warm__start(struct prec_hist *h)
{
	struct prec_hist_warm *w;
	bool any = false;
	uint32_t i;

	if ((!h->opts.inline_frames && !prec_hist_opts__has_key(&h->opts, PREC_SORT_SRCLINE)) ||
	    h->nr_symbolized == h->frames.n)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->dwarf = calloc(h->nr_dsos, sizeof(*w->dwarf))))
		goto fail;
	for (i = 1; i < h->nr_dsos; i++) {
		w->dwarf[i] = h->dsos[i] && prec_dso__dwarf_open(h->dsos[i]);
		any |= w->dwarf[i];
	}
	w->h = h;
	w->nr_dsos = h->nr_dsos;
	w->from = h->nr_symbolized;
	w->srcline = prec_hist_opts__has_key(&h->opts, PREC_SORT_SRCLINE);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (any && !pthread_create(&w->thread, NULL, warm_main, w))
		return w;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
fail:
	if (w)
		free(w->dwarf);
	free(w);
	return NULL;
}

void prec_hist_warm__stop(struct prec_hist_warm *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w->dwarf);
	free(w);
}

int prec_hist__background(struct prec_hist *h)
{
	int err = h->bg ? 0 : prec_hist__index_frames(h);

	return err || h->bg ? err : prec_hist_bg__start(h, &h->bg);
}

int prec_hist__background_stop(struct prec_hist *h)
{
	int err = prec_hist_bg__stop(h->bg, false);

	h->bg = NULL;
	return err;
}
