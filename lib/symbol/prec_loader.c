/* SPDX-License-Identifier: MIT */
/*
 * The background loader: one thread that loads queued DSOs (prec_dso__status) while the
 * caller goes on reading samples.  What the thread shares with the caller: the symtab's
 * string set (locked in prec_symtab__intern_n) and this queue (locked here).  Each queued DSO
 * is touched by the thread only; the caller promises not to ask it anything until stop()
 * has joined the thread, which makes every load the thread finished visible to the caller.
 *
 * With nothing queued, the thread runs the idle hook, if one is set (the reporter indexes
 * and symbolizes the frames read so far there); the hook asks prec_symtab__loader_settled()
 * whether every DSO queued until then is loaded before it looks any up, and if not returns
 * to have them loaded first.  The hook never loads, so replacing it waits for little.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "prec_buf.h"
#include "prec_symbol_int.h"

struct prec_loader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t idle_done; /* signalled when a call of the idle hook returns */
	struct prec_dso **q; /* q[head..n) wait */
	size_t head, n, cap;
	unsigned int loading; /* taken from the queue, not loaded yet */
	bool stop;
	bool in_idle; /* the hook is running */
	int (*idle)(void *arg);
	void *idle_arg;
};

/* Load what the queue holds, one DSO at a time; called and returning with l->lock held. */
static void load_queued(struct prec_loader *l)
{
	while (l->head < l->n) {
		struct prec_dso *d = l->q[l->head++];

		l->loading++;
		pthread_mutex_unlock(&l->lock);
		prec_dso__status(d);
		pthread_mutex_lock(&l->lock);
		l->loading--;
	}
}

/* How long the thread sleeps between idle hook calls that found nothing to do. */
#define IDLE_POLL_NS 1000000

static void *loader_main(void *arg)
{
	struct prec_loader *l = arg;

	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		load_queued(l);
		if (l->stop)
			break;
		if (l->idle) {
			/* read under the lock: prec_symtab__loader_idle() clears them meanwhile */
			int (*fn)(void *arg) = l->idle;
			void *fn_arg = l->idle_arg;
			struct timespec ts;
			int more;

			l->in_idle = true;
			pthread_mutex_unlock(&l->lock);
			more = fn(fn_arg);
			pthread_mutex_lock(&l->lock);
			l->in_idle = false;
			pthread_cond_broadcast(&l->idle_done);
			if (more > 0 || l->stop || l->head < l->n)
				continue;
			if (more < 0) /* the hook is done for good */
				l->idle = NULL;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += IDLE_POLL_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&l->wake, &l->lock, &ts);
		} else {
			pthread_cond_wait(&l->wake, &l->lock);
		}
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

void prec_symtab__loader_idle(struct prec_symtab *st, int (*fn)(void *arg), void *arg)
{
	struct prec_loader *l = st->loader;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->idle = NULL; /* no new call of the old hook starts */
	while (l->in_idle) /* and one running ends first */
		pthread_cond_wait(&l->idle_done, &l->lock);
	l->idle = fn;
	l->idle_arg = arg;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
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
	pthread_cond_init(&l->idle_done, NULL);
	err = pthread_create(&l->thread, NULL, loader_main, l);
	if (err) {
		pthread_cond_destroy(&l->idle_done);
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
	pthread_cond_destroy(&l->idle_done);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l->q);
	free(l);
	st->loader = NULL;
}
