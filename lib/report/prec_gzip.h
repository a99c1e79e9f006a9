/* SPDX-License-Identifier: MIT */
/*
 * A gzip stream into a FILE, deflated by zlib on a thread of its own while the caller fills
 * the next buffer (preport --pprof).
 */
#ifndef PREC_GZIP_H
#define PREC_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct prec_gzip;

/* A stream at zlib level `level` into `out`: 0 and *ret, or -ENOMEM.  Without a thread
 * (pthread_create failed) the caller's thread deflates, with the same output. */
int prec_gzip__open(FILE *out, int level, struct prec_gzip **ret);

/* A buffer of at least len bytes for the caller to fill, then hand over with
 * prec_gzip__write(); NULL on -ENOMEM.  Waits while both buffers are being deflated. */
uint8_t *prec_gzip__buf(struct prec_gzip *g, size_t len);

/* Deflate the first len bytes of the buffer prec_gzip__buf() gave: 0, or the first error of
 * the stream (-EIO: deflating or writing failed). */
int prec_gzip__write(struct prec_gzip *g, size_t len);

/* End the stream and free it: 0, or its first error.  The FILE is not flushed or closed. */
int prec_gzip__close(struct prec_gzip *g);

#endif
