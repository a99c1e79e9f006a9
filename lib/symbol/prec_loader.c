/* SPDX-License-Identifier: MIT */
/*
 * The background loader: one thread that loads queued DSOs (prec_dso__status) while the
 * caller goes on reading samples.  What the thread shares with the caller: the symtab's
 * string set (locked in prec_symtab__intern_n) and this queue (locked here).  Each queued DSO
 * is touched by the thread only; the caller promises not to ask it anything until stop()
 * has joined the thread, which makes every load the thread finished visible to the caller.
 * With nothing queued, the thread sleeps until something is.  Once every DSO queued so far is
 * loaded (prec_symtab__loader_settled()), the thread no longer touches them: another thread
 * of the caller's may then look them up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "prec_buf.h"
#include "prec_symbol_int.h"

struct prec_loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct prec_dso **q; /* q[head..n) wait */
	size_t head, n, cap;
	unsigned int loading; /* taken from the queue, not loaded yet */
	bool stop;
};

/* Load what the queue holds, one DSO at a time; called and returning with l->lock held. */
static void load_queued(struct prec_loader *l)
{
	while (l->head < l->n) {
		struct prec_dso *d = l->q[l->head++];

		l->loading++;
		pthread_mutex_unlock(&l->lock);
		/* opening debug info inflates its compressed sections (libc6-dbg's: tens of
		 * milliseconds): here, while the caller reads, rather than at the first lookup */
		if (prec_dso__status(d) == PREC_DSO_OK && d->st->loader_dwarf)
			prec_dwarf__open(d);
		pthread_mutex_lock(&l->lock);
		l->loading--;
	}
}

static void *loader_main(void *arg)
{
	struct prec_loader *l = arg;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		load_queued(l);
		if (!l->stop)
			pthread_cond_wait(&l->wake, &l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

bool prec_symtab__loader_settled(struct prec_symtab *st)
{
	struct prec_loader *l = st->loader;
	bool settled;

	if (!l)
		return true;
	pthread_mutex_lock(&l->lock);
	settled = l->head == l->n && !l->loading;
	pthread_mutex_unlock(&l->lock);
	return settled;
}

void prec_symtab__loader_dwarf(struct prec_symtab *st)
{
	st->loader_dwarf = true;
}

bool prec_dso__prefetched(const struct prec_dso *d)
{
	return d->queued;
}

int prec_symtab__loader_start(struct prec_symtab *st)
{
	struct prec_loader *l;
	int err;

	if (st->loader)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	err = pthread_create(&l->thread, NULL, loader_main, l);
	if (err) {
		pthread_cond_destroy(&l->wake);
		pthread_mutex_destroy(&l->lock);
		free(l);
		return -err;
	}
	st->loader = l;
	return 0;
}

void prec_symtab__prefetch(struct prec_symtab *st, struct prec_dso *d)
{
	struct prec_loader *l = st->loader;

	if (!l || !d || d->queued || d->status != PREC_DSO_UNLOADED)
		return;
	pthread_mutex_lock(&l->lock);
	if (prec_array__grow((void **)&l->q, &l->cap, l->n + 1, sizeof(*l->q), 64)) {
		pthread_mutex_unlock(&l->lock);
		return; /* the DSO loads on its first question instead */
	}
	l->q[l->n++] = d;
	d->queued = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

void prec_symtab__loader_stop(struct prec_symtab *st)
{
	struct prec_loader *l = st->loader;

	if (!l)
		return;
	/* help with what still waits, so both CPUs load until the queue is empty */
	pthread_mutex_lock(&l->lock);
	load_queued(l);
	l->stop = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l->q);
	free(l);
	st->loader = NULL;
}
