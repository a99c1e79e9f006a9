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
 * KiB read).  It must be a regular file of ours that no one else may write; everything in it
 * is checked before use (sizes, offsets, order), and any mismatch means a fresh read, never
 * a crash or a wrong symbol.  Files are written under a temporary name and renamed into
 * place, never rewritten, and the files of earlier boots are removed when a new one is
 * written, so the cache holds one file (~6 MB).
 *
 * Layout (native byte order; a different byte order fails the version check):
 *   struct kc_header, `head_len` bytes of /proc/kallsyms padded to 8,
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prec_log.h"
#include "prec_symbol_int.h"

#define KC_MAGIC "PRECKSY1"
#define KC_VERSION 1
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

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
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

static bool cache_path(const struct prec_symtab *st, const char *boot_id, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/" KC_PREFIX "%s", st->opts.cache_dir, boot_id);

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
	    body < pad8(head_len) + (size_t)h->nsyms * sizeof(struct prec_kcsym) ||
	    body - pad8(head_len) - (size_t)h->nsyms * sizeof(struct prec_kcsym) != h->names_len ||
	    !h->names_len)
		return false;
	buf = malloc(CHUNK);
	if (!buf)
		return false;
	while (ok && off < len) {
		size_t n = len - off < CHUNK ? len - off : CHUNK;
		ssize_t r = pread(fd, buf, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)n) {
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

int prec_kcache_load(struct prec_dso *d)
{
	const struct prec_symtab *st = d->st;
	char boot_id[48], path[PATH_MAX], head[KC_HEAD_MAX];
	struct kc_header h;
	size_t head_len, len = 0, ents;
	uint8_t *p;
	int fd;

	if (!st->opts.cache_dir || !read_boot_id(st->opts.boot_id_file, boot_id) ||
	    !cache_path(st, boot_id, path, sizeof(path)))
		return -ENOENT;
	fd = open_file(path, &len);
	if (fd < 0)
		return -ENOENT;
	head_len = read_head(st->opts.proc_kallsyms, head);
	if (!head_len || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    !check(fd, &h, len, boot_id, head, head_len)) {
		close(fd);
		prec_log(PREC_LOG_INFO, "%s: not this kernel's symbols or damaged; not used", path);
		return -EBADMSG;
	}
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -ENOMEM;
	ents = sizeof(h) + pad8(head_len);
	d->kmap = p;
	d->kmap_len = len;
	d->kcsyms = (const struct prec_kcsym *)(p + ents);
	d->nkcsyms = h.nsyms;
	d->kcnames = (const char *)(p + ents + (size_t)h.nsyms * sizeof(struct prec_kcsym));
	d->kcnames_len = h.names_len;
	d->kcover_hi = d->kcsyms[h.nsyms - 1].end;
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
	uint8_t *body = NULL;
	char *names;
	size_t head_len, names_len = 0, body_len;
	uint32_t n, i;
	int fd;
	bool ok;

	if (!KC_LAYOUT_KNOWN || !st->opts.cache_dir ||
	    !read_boot_id(st->opts.boot_id_file, boot_id) ||
	    !cache_path(st, boot_id, path, sizeof(path)) ||
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
	body_len = pad8(head_len) + (size_t)n * sizeof(*ks) + pad8(names_len);
	body = calloc(1, body_len);
	if (!body)
		return;
	memcpy(body, head, head_len);
	ks = (struct prec_kcsym *)(body + pad8(head_len));
	names = (char *)(ks + n);
	names_len = 0;
	for (i = 0; i < n; i++) {
		size_t l = strlen(d->syms[i].name) + 1;

		ks[i].start = d->syms[i].start;
		ks[i].end = d->syms[i].end;
		ks[i].name = (uint32_t)names_len;
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
	h.names_len = body_len - pad8(head_len) - (size_t)n * sizeof(*ks); /* with the padding */
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
