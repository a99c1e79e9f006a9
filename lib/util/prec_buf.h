/* SPDX-License-Identifier: MIT */
/*
 * A growable byte buffer.  Zero-initialise it (struct prec_buf b = {0}); free it with
 * prec_buf__release().  The storage is malloc'ed and aligned for any type, so data at
 * offset 0 is 8-byte aligned.
 */
#ifndef PREC_BUF_H
#define PREC_BUF_H

#include <stddef.h>

struct prec_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* Make room for at least `extra` more bytes after len. -ENOMEM on failure. */
int prec_buf__reserve(struct prec_buf *b, size_t extra);

/* Append `n` bytes (n may be 0). -ENOMEM on failure, buffer unchanged. */
int prec_buf__append(struct prec_buf *b, const void *p, size_t n);

/* Append `n` zero bytes. */
int prec_buf__append_zeros(struct prec_buf *b, size_t n);

/* Drop the first `n` bytes (n <= len), moving the rest to the front. */
void prec_buf__consume(struct prec_buf *b, size_t n);

/* Free the storage; the buffer is empty and reusable afterwards. NULL-safe. */
void prec_buf__release(struct prec_buf *b);

#endif
