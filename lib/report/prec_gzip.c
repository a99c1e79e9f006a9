/* SPDX-License-Identifier: MIT */
/*
 * A gzip stream deflated on a thread of its own.  Two buffers take turns: the caller fills
 * one while the thread deflates the other, so packing and deflating (each a third of
 * preport --pprof's own work) overlap.  Each buffer is either the caller's (not full) or,
 * once handed over (full), the thread's until the thread empties it; `lock` guards the full
 * flags, `err` and `done`.  The buffers are deflated in the order they were handed over, so
 * the output is the one a single thread gives.  Only the thread touches the z_stream and the
 * FILE until it is joined; without a thread the caller deflates each buffer as it hands it
 * over.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <zlib.h>

#include "prec_buf.h"
#include "prec_gzip.h"

#define OUT_CHUNK (64 * 1024)

struct slot {
	uint8_t *buf;
	size_t cap, len;
	bool full;
};

struct prec_gzip {
	z_stream z;
	FILE *out;
	struct slot slot[2];
	unsigned int fill; /* the slot the caller fills next */
	pthread_t thread;
	bool threaded, done;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a slot became full or empty, or done */
	int err;
	unsigned char obuf[OUT_CHUNK];
};

/* Deflate len bytes at p (flush: Z_NO_FLUSH or Z_FINISH) into the file: 0 or -EIO. */
static int deflate_out(struct prec_gzip *g, const uint8_t *p, size_t len, int flush)
{
	int rc;

	do {
		size_t in = len < (1u << 30) ? len : (1u << 30); /* avail_in is 32 bits wide */
		int f = in == len ? flush : Z_NO_FLUSH;

		g->z.next_in = (unsigned char *)p;
		g->z.avail_in = (uInt)in;
		do {
			size_t n;

			g->z.next_out = g->obuf;
			g->z.avail_out = sizeof(g->obuf);
			rc = deflate(&g->z, f);
			if (rc == Z_STREAM_ERROR)
				return -EIO;
			n = sizeof(g->obuf) - g->z.avail_out;
			if (n && fwrite(g->obuf, 1, n, g->out) != n)
				return -EIO;
		} while (g->z.avail_out == 0 || (f == Z_FINISH && rc != Z_STREAM_END));
		p += in;
		len -= in;
	} while (len);
	return 0;
}

static void *gzip_main(void *arg)
{
	struct prec_gzip *g = arg;
	unsigned int next = 0;
	int err = 0;

	pthread_mutex_lock(&g->lock);
	for (;;) {
		struct slot *s = &g->slot[next];

		if (!s->full) {
			if (g->done)
				break;
			pthread_cond_wait(&g->cond, &g->lock);
			continue;
		}
		pthread_mutex_unlock(&g->lock);
		if (!err)
			err = deflate_out(g, s->buf, s->len, Z_NO_FLUSH);
		pthread_mutex_lock(&g->lock);
		if (err && !g->err)
			g->err = err;
		s->full = false;
		next ^= 1;
		pthread_cond_broadcast(&g->cond);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int prec_gzip__open(FILE *out, int level, struct prec_gzip **ret)
{
	struct prec_gzip *g = calloc(1, sizeof(*g));

	*ret = NULL;
	if (!g)
		return -ENOMEM;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->out = out;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->threaded = !pthread_create(&g->thread, NULL, gzip_main, g);
	*ret = g;
	return 0;
}

uint8_t *prec_gzip__buf(struct prec_gzip *g, size_t len)
{
	struct slot *s = &g->slot[g->fill];

	pthread_mutex_lock(&g->lock);
	while (s->full)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	if (prec_array__grow((void **)&s->buf, &s->cap, len ? len : 1, 1, OUT_CHUNK))
		return NULL;
	return s->buf;
}

int prec_gzip__write(struct prec_gzip *g, size_t len)
{
	struct slot *s = &g->slot[g->fill];
	int err;

	if (!g->threaded) {
		if (!g->err)
			g->err = deflate_out(g, s->buf, len, Z_NO_FLUSH);
		return g->err;
	}
	pthread_mutex_lock(&g->lock);
	s->len = len;
	s->full = true;
	g->fill ^= 1;
	err = g->err;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return err;
}

int prec_gzip__close(struct prec_gzip *g)
{
	int err;

	if (!g)
		return 0;
	if (g->threaded) {
		pthread_mutex_lock(&g->lock);
		g->done = true;
		pthread_cond_broadcast(&g->cond);
		pthread_mutex_unlock(&g->lock);
		pthread_join(g->thread, NULL);
	}
	if (!g->err)
		g->err = deflate_out(g, NULL, 0, Z_FINISH);
	err = g->err;
	deflateEnd(&g->z);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g->slot[0].buf);
	free(g->slot[1].buf);
	free(g);
	return err;
}
