/* SPDX-License-Identifier: MIT */
/*
 * The reader's input: bytes at an absolute offset, whatever the input is.
 *
 * From memory (prec_reader__open_mem(), a regular file opened by path and mapped, or a
 * non-seekable file-form input read whole by prec_src__slurp()), bytes are handed out in
 * place: a record there stays valid, so a reporter that must hold records back to order them
 * need not copy them.  From an fd (standard input, a pipe, a file mmap refused), they pass
 * through `buf`, refilled with read(2) in READ_CHUNK steps, and are valid until the next
 * peek.  The file-form header parts are read with pread(2) apart from that sequential
 * position.
 *
 * Invariants: `pos` is the absolute offset of the next byte of the record loop; in fd mode
 * buf.data[bpos..len) holds the bytes from `pos` on; a mapped file's pages before `released`
 * have been given back to the kernel and are never read again by the record loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_reader_int.h"

#define READ_CHUNK (256 * 1024)
#define RELEASE_STEP (1U << 20) /* bytes of a mapped file given back at a time */

static int fill(struct prec_src *s, size_t n)
{
	ssize_t got;
	int err;

	while (s->buf.len - s->bpos < n && !s->eof) {
		if (s->bpos && s->bpos >= s->buf.len / 2) {
			prec_buf__consume(&s->buf, s->bpos);
			s->bpos = 0;
		}
		err = prec_buf__reserve(&s->buf, READ_CHUNK);
		if (err)
			return err;
		got = read(s->fd, s->buf.data + s->buf.len, READ_CHUNK);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			s->eof = true;
		s->buf.len += (size_t)got;
	}
	return 0;
}

int prec_src__peek(struct prec_src *s, size_t n, const unsigned char **ret, size_t *avail)
{
	int err;

	if (s->fd < 0) {
		size_t left = s->pos < s->mem_len ? s->mem_len - (size_t)s->pos : 0;

		*ret = s->mem + (s->pos < s->mem_len ? s->pos : s->mem_len);
		*avail = left < n ? left : n;
		return 0;
	}
	err = fill(s, n);
	if (err)
		return err;
	*ret = s->buf.data + s->bpos;
	*avail = s->buf.len - s->bpos < n ? s->buf.len - s->bpos : n;
	return 0;
}

void prec_src__advance(struct prec_src *s, size_t n)
{
	s->pos += n;
	if (s->fd >= 0)
		s->bpos += n;
}

int64_t prec_src__skip(struct prec_src *s, uint64_t n)
{
	uint64_t done = 0;
	const unsigned char *p;
	size_t avail;
	int err;

	while (done < n) {
		size_t want = n - done > READ_CHUNK ? READ_CHUNK : (size_t)(n - done);

		err = prec_src__peek(s, want, &p, &avail);
		if (err)
			return err;
		if (!avail)
			break;
		prec_src__advance(s, avail);
		done += avail;
	}
	return (int64_t)done;
}

int prec_src__pread(struct prec_src *s, uint64_t off, void *dst, size_t n)
{
	size_t done = 0;
	ssize_t got;

	if (s->fd < 0) {
		if (off > s->mem_len || n > s->mem_len - off)
			return -EBADMSG;
		memcpy(dst, s->mem + off, n);
		return 0;
	}
	/* an offset off_t cannot hold is past any file (pread would say EINVAL) */
	if (off > (uint64_t)INT64_MAX - n)
		return -EBADMSG;
	while (done < n) {
		got = pread(s->fd, (char *)dst + done, n - done, (off_t)(off + done));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (got == 0)
			return -EBADMSG;
		done += (size_t)got;
	}
	return 0;
}

int prec_src__read_part(struct prec_src *s, uint64_t off, void *dst, size_t n, const char *what)
{
	int err = prec_src__pread(s, off, dst, n);

	return err == -EBADMSG ? prec_reader_bad(off, what) : err;
}

uint64_t prec_src__size(struct prec_src *s)
{
	struct stat st;

	if (s->fd < 0)
		return s->mem_len;
	if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	return PREC_NO_LIMIT;
}

int prec_src__seek(struct prec_src *s, uint64_t off)
{
	if (s->fd < 0) {
		s->pos = off;
		return 0;
	}
	s->buf.len = 0;
	s->bpos = 0;
	s->pos = off;
	/* past the end there is nothing to read, and lseek may refuse the offset (EINVAL) */
	s->eof = off >= prec_src__size(s);
	if (!s->eof && lseek(s->fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	return 0;
}

int prec_src__slurp(struct prec_src *s)
{
	int err;

	while (!s->eof) {
		err = fill(s, s->buf.len - s->bpos + READ_CHUNK);
		if (err)
			return err;
	}
	prec_buf__consume(&s->buf, s->bpos);
	s->owned_mem = s->buf.data;
	s->mem = s->owned_mem;
	s->mem_len = s->buf.len;
	s->buf.data = NULL;
	s->buf.len = s->buf.cap = 0;
	s->bpos = 0;
	if (s->own_fd)
		close(s->fd);
	s->fd = -1;
	s->own_fd = false;
	return 0;
}

/*
 * Mapped, a file is read in place: no copy through a buffer, and records stay where they
 * are.  Its pages are the page cache's (no memory of our own), and what has been read is
 * given back now and then (prec_src__release).  Left unmapped (read through the fd) when it
 * is not a regular file, is empty, or mmap refuses.
 */
void prec_src__map(struct prec_src *s, int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX / 2)
		return;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return;
	(void)madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	s->map = p;
	s->map_len = (size_t)st.st_size;
	s->mem = p;
	s->mem_len = (size_t)st.st_size;
}

void prec_src__release(struct prec_src *s, const void *p)
{
	const unsigned char *c = p;
	size_t upto, pg;

	if (!s->map)
		return;
	if (!c || c < s->mem || c > s->mem + s->mem_len)
		upto = s->pos < s->mem_len ? (size_t)s->pos : s->mem_len;
	else
		upto = (size_t)(c - s->mem);
	/* a megabyte at a time: each step is one call, whose pages go back at once.  (Pages
	 * given back too early would only be read again from the page cache: the mapping is
	 * private and never written.) */
	if (upto < s->released + RELEASE_STEP)
		return;
	pg = (size_t)sysconf(_SC_PAGESIZE);
	upto = upto / pg * pg;
	(void)madvise((unsigned char *)s->map + s->released, upto - s->released, MADV_DONTNEED);
	s->released = upto;
}

void prec_src__close(struct prec_src *s)
{
	if (s->own_fd)
		close(s->fd);
	if (s->map)
		munmap(s->map, s->map_len);
	free(s->owned_mem);
	prec_buf__release(&s->buf);
}
