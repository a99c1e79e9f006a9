/* SPDX-License-Identifier: MIT */
/*
 * The kernel symbol cache: the running kernel's own text symbols (not those of modules, BPF
 * programs or trampolines), as read from /proc/kallsyms, kept in one file per boot so that
 * later reports skip the read.  Reading /proc/kallsyms costs ~40 ms of kernel and parsing
 * time for ~120k symbols, the largest single cost of a report of a short recording; the
 * cached table is mapped and checked in ~2 ms.
 *
 * Why it is exact: within one boot the kernel's own symbols never change (KASLR is decided
 * at boot); what changes (modules, BPF, ftrace and kprobe trampolines) lives in the module
 * area, above the kernel image on x86-64.  So the cache covers every address below the end of
 * the image's last symbol, and a lookup above reads /proc/kallsyms after all (prec_symbol.c).
 * Below, the cached table answers what the full one would: the full table only adds symbols
 * above, and perf's end rules give the last kernel symbol the same end either way (it is
 * followed by a module-area symbol, or by none).  The store checks that layout and writes
 * nothing when it does not hold; other architectures are not cached.
 *
 * The file is found by the boot id (/proc/sys/kernel/random/boot_id) and also carries the
 * first bytes of /proc/kallsyms, compared on load (a kernel addresses check that costs a 4
 * KiB read).  It must be a regular file of ours that no one else may write; its header and a
 * checksum of the rest are checked before use, and any mismatch means a fresh read, never a
 * crash or a wrong symbol.  Lookups then read what they need with pread(): an index of
 * every KC_BLOCK-th start, then the block of entries it points to and the name found, each
 * kept once read.  Mapping the file instead made up to all of it resident (the page cache
 * hands out large folios and faults map them whole), more than a small report's own memory.
 * Files are written under a temporary name and renamed into place, never rewritten, and the
 * files of earlier boots are removed when a new one is written, so the cache holds one file
 * (~6 MB).
 *
 * Layout (native byte order; a different byte order fails the version check):
 *   struct kc_header, `head_len` bytes of /proc/kallsyms padded to 8,
 *   the index: ceil(nsyms / KC_BLOCK) x struct kc_index, where every KC_BLOCK-th entry
 *   starts and where its name does,
 *   nsyms x struct prec_kcsym, names_len bytes of NUL-terminated names padded to 8 with NULs;
 *   the header holds a checksum of everything after it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_log.h"
#include "prec_symbol_int.h"

#define KC_MAGIC "PRECKSY1"
#define KC_VERSION 3
#define KC_BLOCK 64 /* entries per block: 1.5 KiB read at a time */
#define KC_HEAD_MAX 4096
#define KC_PREFIX "kallsyms-"
/* bounds a cache file must respect: a kernel has 100k-300k text symbols */
#define KC_MAX_SIZE (256ULL << 20)
/* the layout argument above is made for x86-64; elsewhere nothing is cached */
#if defined(__x86_64__)
#define KC_LAYOUT_KNOWN 1
#else
#define KC_LAYOUT_KNOWN 0
#endif

struct kc_header {
	char magic[8];
	uint32_t version;
	uint32_t sym_size; /* sizeof(struct prec_kcsym) */
	uint64_t file_size;
	char boot_id[48]; /* NUL-padded */
	uint32_t nsyms;
	uint32_t head_len;
	uint64_t names_len;
	uint64_t sum; /* body_sum() of everything after the header */
};

struct kc_index {
	uint64_t start; /* of the block's first entry */
	uint64_t name; /* offset of its name: the block's names (stored in entry order) start here */
};

/* A block read: its entries, the stretch of the names they point into, and each name once
 * interned. */
struct kc_block {
	struct prec_kcsym e[KC_BLOCK];
	const char *interned[KC_BLOCK];
	char *names;
	uint64_t names_base; /* offset of names[0] in the names */
	size_t names_size;
};

/* A cache file in use: what lookups read from it, and what they have read. */
struct prec_kcache {
	int fd;
	uint32_t nsyms, nblocks;
	uint64_t ents_off, names_off, names_len;
	struct kc_index *index; /* nblocks */
	struct kc_block **blocks; /* nblocks, NULL until read */
};

static uint32_t nr_blocks(uint32_t nsyms)
{
	return (nsyms + KC_BLOCK - 1) / KC_BLOCK;
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Bytes of a body before its names: the head of /proc/kallsyms, the index, the entries. */
static size_t before_names(size_t head_len, uint32_t nsyms)
{
	return pad8(head_len) + (size_t)nr_blocks(nsyms) * sizeof(struct kc_index) +
	       (size_t)nsyms * sizeof(struct prec_kcsym);
}

/* A checksum against damage (not an attacker: the file is private), four independent lanes
 * so it runs at memory speed: ~1 ms for the ~6 MB of a file.  Fed in pieces whose sizes are
 * multiples of 32 (sum_blocks), then the rest, a multiple of 8 (sum_end). */
#define SUM_MUL 0x9e3779b97f4a7c15ULL

static void sum_blocks(uint64_t h[4], const uint8_t *p, size_t n)
{
	uint64_t w;
	size_t i;
	int k;

	for (i = 0; i + 32 <= n; i += 32)
		for (k = 0; k < 4; k++) {
			memcpy(&w, p + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * SUM_MUL;
			h[k] ^= h[k] >> 31;
		}
}

static uint64_t sum_end(uint64_t h[4], const uint8_t *p, size_t n, uint64_t total)
{
	uint64_t w, r = total;
	size_t i;
	int k;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h[0] = (h[0] ^ w) * SUM_MUL;
		h[0] ^= h[0] >> 31;
	}
	for (k = 0; k < 4; k++)
		r = (r ^ h[k]) * SUM_MUL ^ ((r ^ h[k]) >> 29);
	return r;
}

static uint64_t body_sum(const uint8_t *p, size_t n)
{
	uint64_t h[4] = { 1, 2, 3, 4 };

	sum_blocks(h, p, n & ~(size_t)31);
	return sum_end(h, p + (n & ~(size_t)31), n & 31, n);
}

/* The boot id from `path` in buf (a UUID: hex digits and dashes only, since it names a
 * file), or false. */
static bool read_boot_id(const char *path, char buf[48])
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t i;

	if (fd < 0)
		return false;
	n = read(fd, buf, 47);
	close(fd);
	if (n <= 0)
		return false;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (n < 8)
		return false;
	for (i = 0; i < (size_t)n; i++) {
		char c = buf[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-'))
			return false;
	}
	memset(buf + n, 0, 48 - (size_t)n);
	return true;
}

/* The first whole lines of the kallsyms file at `path`, at most KC_HEAD_MAX bytes; its
 * length, 0 when unreadable or empty. */
static size_t read_head(const char *path, char *buf)
{
	size_t have = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return 0;
	while (have < KC_HEAD_MAX) {
		ssize_t n = read(fd, buf + have, KC_HEAD_MAX - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	while (have && buf[have - 1] != '\n')
		have--;
	return have;
}

/* This boot's id and cache file, when there is a cache directory and a boot id. */
static bool cache_path(const struct prec_symtab *st, char boot_id[48], char *buf, size_t len)
{
	int n;

	if (!st->opts.cache_dir || !read_boot_id(st->opts.boot_id_file, boot_id))
		return false;
	n = snprintf(buf, len, "%s/" KC_PREFIX "%s", st->opts.cache_dir, boot_id);
	return n > 0 && (size_t)n < len;
}

/* The cache file at `path`, open, if it is a regular file of ours that only we may write, of
 * sane size; else -1. */
static int open_file(const char *path, size_t *ret_len)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH)) || (uint64_t)sb.st_size < sizeof(struct kc_header) ||
	    (uint64_t)sb.st_size > KC_MAX_SIZE) {
		close(fd);
		return -1;
	}
	*ret_len = (size_t)sb.st_size;
	return fd;
}

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t have = 0;

	while (have < n) {
		ssize_t r = pread(fd, (char *)buf + have, n - have, (off_t)(off + have));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		have += (size_t)r;
	}
	return true;
}

/*
 * Whether the header fits this boot and file, and the body its checksum.  The body is read,
 * not mapped, so checking it adds nothing to our resident size: only the pages lookups touch
 * later count.  The checksum stands for the checks of each entry: the writer's table is
 * sorted, its offsets in range; lookups still guard what could make them fault or loop.
 */
static bool check(int fd, const struct kc_header *h, size_t len, const char *boot_id,
		  const char *head, size_t head_len)
{
	enum { CHUNK = 64 * 1024 };
	uint64_t lanes[4] = { 1, 2, 3, 4 };
	size_t off = sizeof(*h), body = len - sizeof(*h);
	uint8_t *buf;
	bool ok = true;

	if (memcmp(h->magic, KC_MAGIC, 8) || h->version != KC_VERSION ||
	    h->sym_size != sizeof(struct prec_kcsym) || h->file_size != len || len % 8 ||
	    memcmp(h->boot_id, boot_id, sizeof(h->boot_id)) || !h->nsyms ||
	    h->nsyms > PREC_SYMS_MAX || h->head_len != head_len || head_len > KC_HEAD_MAX ||
	    body < before_names(head_len, h->nsyms) ||
	    body - before_names(head_len, h->nsyms) != h->names_len || !h->names_len)
		return false;
	buf = malloc(CHUNK);
	if (!buf)
		return false;
	while (ok && off < len) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;

		if (!read_at(fd, buf, n, off)) {
			ok = false;
			break;
		}
		if (off == sizeof(*h) && memcmp(buf, head, head_len)) /* head_len <= CHUNK */
			ok = false;
		/* CHUNK is a multiple of 32: only the last piece has a rest */
		sum_blocks(lanes, buf, off + n < len ? n : n & ~(size_t)31);
		if (off + n == len)
			ok = ok && sum_end(lanes, buf + (n & ~(size_t)31), n & 31, body) == h->sum &&
			     !buf[n - 1]; /* the names end with a NUL */
		off += n;
	}
	free(buf);
	return ok;
}

void prec_kcache_free(struct prec_kcache *kc)
{
	uint32_t i;

	if (!kc)
		return;
	for (i = 0; kc->blocks && i < kc->nblocks; i++) {
		if (kc->blocks[i])
			free(kc->blocks[i]->names);
		free(kc->blocks[i]);
	}
	free(kc->blocks);
	free(kc->index);
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc);
}

/* Block b, read if it was not yet (entries, then its names: up to where the next block's
 * start); NULL if the file cannot be read. */
static struct kc_block *block(struct prec_kcache *kc, uint32_t b)
{
	struct kc_block *k = kc->blocks[b];
	uint32_t n = b + 1 < kc->nblocks ? KC_BLOCK : kc->nsyms - b * KC_BLOCK;
	uint64_t lo, hi;

	if (k)
		return k;
	k = calloc(1, sizeof(*k));
	if (!k || !read_at(kc->fd, k->e, (size_t)n * sizeof(k->e[0]),
			   kc->ents_off + (uint64_t)b * KC_BLOCK * sizeof(k->e[0]))) {
		free(k);
		return NULL;
	}
	lo = kc->index[b].name;
	hi = b + 1 < kc->nblocks ? kc->index[b + 1].name : kc->names_len;
	if (hi > kc->names_len)
		hi = kc->names_len;
	if (lo < hi && hi - lo <= 1u << 20) { /* else each name is read alone (a changed file) */
		k->names = malloc((size_t)(hi - lo));
		if (k->names && read_at(kc->fd, k->names, (size_t)(hi - lo), kc->names_off + lo)) {
			k->names_base = lo;
			k->names_size = (size_t)(hi - lo);
		} else {
			free(k->names);
			k->names = NULL;
		}
	}
	kc->blocks[b] = k;
	return k;
}

static const struct prec_kcsym *entry(struct prec_kcache *kc, uint32_t i)
{
	struct kc_block *k = block(kc, i / KC_BLOCK);

	return k ? &k->e[i % KC_BLOCK] : NULL;
}

/* The name of entry i, interned once; "" when it cannot be read (a file changed under us:
 * the checksum vouched for it at load), NULL without memory. */
static const char *name_of(struct prec_symtab *st, struct prec_kcache *kc, uint32_t i)
{
	struct kc_block *k = kc->blocks[i / KC_BLOCK]; /* read: entry i was */
	const char **done = &k->interned[i % KC_BLOCK];
	uint64_t off = k->e[i % KC_BLOCK].name;
	char buf[1024]; /* a kernel symbol name is at most 512 bytes (KSYM_NAME_LEN) */
	const char *p;
	size_t n, len;

	if (*done)
		return *done;
	if (off >= kc->names_len)
		return "";
	if (k->names && off >= k->names_base && off < k->names_base + k->names_size) {
		p = k->names + (off - k->names_base);
		n = k->names_size - (size_t)(off - k->names_base);
	} else {
		n = sizeof(buf) < kc->names_len - off ? sizeof(buf) : (size_t)(kc->names_len - off);
		if (!read_at(kc->fd, buf, n, kc->names_off + off))
			return "";
		p = buf;
	}
	len = strnlen(p, n);
	if (len == n)
		return "";
	*done = prec_symtab__intern_n(st, p, len);
	return *done;
}

int prec_kcache_lookup(struct prec_dso *d, uint64_t a, struct prec_sym *ret)
{
	struct prec_kcache *kc = d->kc;
	uint32_t lo = 0, hi = kc->nblocks, b, i;
	const struct prec_kcsym *e;
	const struct kc_block *k;

	/* the last block starting at or below a, then the last entry in it */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (kc->index[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	b = lo - 1;
	k = block(kc, b);
	if (!k)
		return -EIO;
	lo = 0;
	hi = b + 1 < kc->nblocks ? KC_BLOCK : kc->nsyms - b * KC_BLOCK;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (k->e[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	lo += b * KC_BLOCK;
	/* as find_sym(): the entry, then those whose range encloses it; an up link that does
	 * not go back (a changed file) ends the walk */
	for (i = lo - 1; i != PREC_NO_UP; i = e->up) {
		e = entry(kc, i);
		if (!e)
			return -EIO;
		if (prec_sym_holds(e->start, e->end, a)) {
			if (ret) {
				ret->name = name_of(d->st, kc, i);
				ret->start = e->start;
				ret->size = e->end - e->start;
			}
			return ret && !ret->name ? -ENOMEM : 0;
		}
		if (e->up != PREC_NO_UP && e->up >= i)
			break;
	}
	return -ENOENT;
}

int prec_kcache_load(struct prec_dso *d)
{
	const struct prec_symtab *st = d->st;
	char boot_id[48], path[PATH_MAX], head[KC_HEAD_MAX];
	struct prec_kcache *kc;
	const struct prec_kcsym *last;
	struct kc_header h;
	size_t head_len, len = 0;
	int fd;

	if (!cache_path(st, boot_id, path, sizeof(path)))
		return -ENOENT;
	fd = open_file(path, &len);
	if (fd < 0)
		return -ENOENT;
	head_len = read_head(st->opts.proc_kallsyms, head);
	if (!head_len || !read_at(fd, &h, sizeof(h), 0) ||
	    !check(fd, &h, len, boot_id, head, head_len)) {
		close(fd);
		prec_log(PREC_LOG_INFO, "%s: not this kernel's symbols or damaged; not used", path);
		return -EBADMSG;
	}
	kc = calloc(1, sizeof(*kc));
	if (!kc) {
		close(fd);
		return -ENOMEM;
	}
	kc->fd = fd;
	kc->nsyms = h.nsyms;
	kc->nblocks = nr_blocks(h.nsyms);
	kc->names_off = sizeof(h) + before_names(head_len, h.nsyms);
	kc->ents_off = kc->names_off - (uint64_t)h.nsyms * sizeof(struct prec_kcsym);
	kc->names_len = h.names_len;
	kc->index = malloc((size_t)kc->nblocks * sizeof(*kc->index));
	kc->blocks = calloc(kc->nblocks, sizeof(*kc->blocks));
	if (!kc->index || !kc->blocks ||
	    !read_at(fd, kc->index, (size_t)kc->nblocks * sizeof(*kc->index),
		     sizeof(h) + pad8(head_len)) ||
	    !(last = entry(kc, h.nsyms - 1))) {
		prec_kcache_free(kc);
		return -ENOMEM;
	}
	d->kc = kc;
	d->kcover_hi = last->end;
	d->kpartial = true;
	prec_log(PREC_LOG_INFO, "kernel symbols from the cache %s", path);
	return 0;
}

/* mkdir -p of the cache directory, private. */
static bool make_dir(const char *dir)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(dir);

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return false;
		buf[i] = dir[i];
	}
	return true;
}

/* Remove the files of other boots (and temporary files left by a crash). */
static void prune(const char *dir, const char *keep)
{
	DIR *dp = opendir(dir);
	struct dirent *de;

	if (!dp)
		return;
	while ((de = readdir(dp))) {
		/* this boot's file, and temporary files of this boot that another run may be
		 * writing, stay */
		if (strncmp(de->d_name, KC_PREFIX, sizeof(KC_PREFIX) - 1) ||
		    !strncmp(de->d_name, keep, strlen(keep)))
			continue;
		(void)unlinkat(dirfd(dp), de->d_name, 0);
	}
	closedir(dp);
}

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

/* How many leading entries of d are the kernel's own, when the layout allows caching them
 * (see the top of the file); 0 otherwise. */
static uint32_t own_symbols(const struct prec_dso *d)
{
	uint32_t k = 0, i;

	while (k < d->nsyms && !d->syms[k].module)
		k++;
	if (!k)
		return 0;
	for (i = k; i < d->nsyms; i++)
		if (!d->syms[i].module || d->syms[i].start < d->syms[k - 1].end)
			return 0;
	return k;
}

void prec_kcache_store(const struct prec_dso *d)
{
	const struct prec_symtab *st = d->st;
	char boot_id[48], path[PATH_MAX], tmp[PATH_MAX], head[KC_HEAD_MAX];
	struct kc_header h;
	struct prec_kcsym *ks;
	struct kc_index *index;
	uint8_t *body = NULL;
	char *names;
	size_t head_len, names_len = 0, body_len;
	uint32_t n, i;
	int fd;
	bool ok;

	if (!KC_LAYOUT_KNOWN || !cache_path(st, boot_id, path, sizeof(path)) ||
	    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return;
	n = own_symbols(d);
	head_len = read_head(st->opts.proc_kallsyms, head);
	if (!n || !head_len)
		return;
	for (i = 0; i < n; i++)
		names_len += strlen(d->syms[i].name) + 1;
	if (names_len > UINT32_MAX)
		return;
	/* one body, padded to 8 for the checksum */
	body_len = before_names(head_len, n) + pad8(names_len);
	body = calloc(1, body_len);
	if (!body)
		return;
	memcpy(body, head, head_len);
	index = (struct kc_index *)(body + pad8(head_len));
	ks = (struct prec_kcsym *)(index + nr_blocks(n));
	names = (char *)(ks + n);
	names_len = 0;
	for (i = 0; i < n; i++) {
		size_t l = strlen(d->syms[i].name) + 1;

		ks[i].start = d->syms[i].start;
		ks[i].end = d->syms[i].end;
		ks[i].name = (uint32_t)names_len;
		if (i % KC_BLOCK == 0) {
			index[i / KC_BLOCK].start = ks[i].start;
			index[i / KC_BLOCK].name = names_len;
		}
		ks[i].up = d->syms[i].up;
		memcpy(names + names_len, d->syms[i].name, l);
		names_len += l;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KC_MAGIC, 8);
	h.version = KC_VERSION;
	h.sym_size = sizeof(*ks);
	memcpy(h.boot_id, boot_id, sizeof(h.boot_id));
	h.nsyms = n;
	h.head_len = (uint32_t)head_len;
	h.names_len = body_len - before_names(head_len, n); /* with the padding */
	h.file_size = sizeof(h) + body_len;
	h.sum = body_sum(body, body_len);
	if (!make_dir(st->opts.cache_dir) || (fd = mkstemp(tmp)) < 0) {
		prec_log(PREC_LOG_INFO, "%s: cannot write the kernel symbol cache: %s",
			 st->opts.cache_dir, strerror(errno));
		free(body);
		return;
	}
	ok = write_all(fd, &h, sizeof(h)) && write_all(fd, body, body_len);
	if (close(fd))
		ok = false;
	if (ok && !rename(tmp, path)) {
		prune(st->opts.cache_dir, strrchr(path, '/') + 1);
		prec_log(PREC_LOG_INFO, "kernel symbols cached in %s", path);
	} else {
		prec_log(PREC_LOG_INFO, "%s: cannot write the kernel symbol cache: %s",
			 st->opts.cache_dir, strerror(errno ? errno : EIO));
		(void)unlink(tmp);
	}
	free(body);
}
