/* SPDX-License-Identifier: MIT */
/*
 * Build-ids from ELF notes, and the cache that reads each mapped file once.
 *
 * Reading: the ELF magic is checked with one pread, so most non-ELF files cost an open and
 * 4 bytes; then libelf reads the note segments (PT_NOTE, else SHT_NOTE sections) with
 * pread, never mmap, so that a file truncated under us cannot raise SIGBUS.
 *
 * Which file: a path from a mapping may now name another file (rebuilt, deleted, or seen
 * from another mount namespace).  A file is used only when, opened, it is a regular file
 * with the mapping's inode and device; nothing is opened that lstat(2) does not show to be a
 * regular file of that inode, so a FIFO or a device node in a map's place is never opened.
 *
 * Cache invariants: entries[0, n) are in use, each in exactly one hash chain (bucket of its
 * key); n <= cap; `hand` is the clock hand over entries, and an entry looked up since the
 * hand last passed it has `ref` set.  epoch starts at 1, so an entry's `epoch` of 0 means
 * "never reported".
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/magic.h>

#include "prec_buf.h"
#include "prec_buildid.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define MAX_NOTE_BYTES (64 * 1024) /* a note segment larger than this is not a build-id's */

static int note_in(Elf_Data *d, struct prec_buildid *ret)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
			if (!nh.n_descsz || nh.n_descsz > PREC_BUILD_ID_SIZE)
				return -ENODATA;
			memset(ret, 0, sizeof(*ret));
			memcpy(ret->id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			ret->len = (uint8_t)nh.n_descsz;
			return 0;
		}
		off = next;
	}
	return -ENODATA;
}

static int note_in_phdrs(Elf *elf, struct prec_buildid *ret)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -ENODATA;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_filesz > MAX_NOTE_BYTES)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && !note_in(d, ret))
			return 0;
	}
	return -ENODATA;
}

static int note_in_sections(Elf *elf, struct prec_buildid *ret)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    sh.sh_size > MAX_NOTE_BYTES)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && !note_in(d, ret))
			return 0;
	}
	return -ENODATA;
}

int prec_buildid_read_fd(int fd, struct prec_buildid *ret)
{
	unsigned char ident[SELFMAG];
	struct prec_buildid b;
	Elf *elf;
	int err;

	if (pread(fd, ident, SELFMAG, 0) != SELFMAG || memcmp(ident, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EIO;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EIO;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -ENOEXEC;
	}
	err = note_in_phdrs(elf, &b);
	if (err)
		err = note_in_sections(elf, &b);
	elf_end(elf);
	if (!err)
		*ret = b;
	return err;
}

int prec_buildid_read_path(const char *path, struct prec_buildid *ret)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else
		err = S_ISREG(st.st_mode) ? prec_buildid_read_fd(fd, ret) : -EINVAL;
	close(fd);
	return err;
}

/* ---- which file ---- */

static bool same_file(const struct stat *st, const struct prec_mapped_file *f, int fd)
{
	struct statfs sfs;

	if (!S_ISREG(st->st_mode) || st->st_ino != f->ino)
		return false;
	if (major(st->st_dev) == f->maj && minor(st->st_dev) == f->min)
		return true;
	/* btrfs shows stat(2) a device per subvolume, mmap events the file system's */
	return fd >= 0 && !fstatfs(fd, &sfs) && sfs.f_type == BTRFS_SUPER_MAGIC;
}

/*
 * Open `path` if it is f's file.  `follow`: the last component may be a (magic) link, as in
 * /proc/PID/map_files.  The fd, or -1.
 */
static int open_if_same(const char *path, const struct prec_mapped_file *f, bool follow)
{
	struct stat st;
	int fd;

	if (fstatat(AT_FDCWD, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) ||
	    !S_ISREG(st.st_mode) || st.st_ino != f->ino)
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !same_file(&st, f, fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_mapped(const struct prec_mapped_file *f)
{
	char p[4096 + 64];
	int fd = open_if_same(f->path, f, false);

	if (fd >= 0 || f->pid <= 0)
		return fd;
	/* the process may see another root (a container) */
	if (snprintf(p, sizeof(p), "/proc/%d/root%s", (int)f->pid, f->path) < (int)sizeof(p)) {
		fd = open_if_same(p, f, false);
		if (fd >= 0)
			return fd;
	}
	/* deleted or replaced since it was mapped: the mapping still holds it */
	if (f->end <= f->start)
		return -1;
	snprintf(p, sizeof(p), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)f->pid, f->start,
		 f->end);
	return open_if_same(p, f, true);
}

/* ---- the cache ---- */

struct entry {
	uint32_t maj, min;
	uint64_t ino;
	uint64_t gen; /* i_generation when known, else 0 */
	uint64_t epoch; /* last epoch it was reported in */
	int32_t next; /* hash chain, -1 ends it */
	bool ref;
	struct prec_buildid bid;
};

struct prec_buildid_cache {
	struct entry *e;
	size_t cap, n, hand;
	int32_t *bucket;
	size_t mask;
	uint64_t epoch;
	struct prec_buildid_cache_stats st;
};

int prec_buildid_cache__new(size_t max_entries, struct prec_buildid_cache **ret)
{
	struct prec_buildid_cache *c;
	size_t nb = 16, i;

	if (!max_entries)
		max_entries = PREC_BUILDID_CACHE_DEFAULT;
	if (max_entries > INT32_MAX / 2)
		return -EINVAL;
	while (nb < 2 * max_entries)
		nb *= 2;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* the bounded size, touched now: the pages do not come in over weeks as files appear */
	c->e = prec_calloc_written(max_entries, sizeof(*c->e));
	c->bucket = malloc(nb * sizeof(*c->bucket));
	if (!c->e || !c->bucket) {
		prec_buildid_cache__free(c);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++)
		c->bucket[i] = -1;
	c->cap = max_entries;
	c->mask = nb - 1;
	c->epoch = 1;
	*ret = c;
	return 0;
}

void prec_buildid_cache__free(struct prec_buildid_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->bucket);
	free(c);
}

static size_t bucket_of(const struct prec_buildid_cache *c, uint32_t maj, uint32_t min,
			uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)maj << 44) ^ ((uint64_t)min << 24)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & c->mask;
}

/* A free entry: a new one while there is room, else the clock's victim, unlinked. */
static struct entry *take_entry(struct prec_buildid_cache *c)
{
	struct entry *v;
	int32_t *link;

	if (c->n < c->cap)
		return &c->e[c->n++];
	while (c->e[c->hand].ref) {
		c->e[c->hand].ref = false;
		c->hand = (c->hand + 1) % c->cap;
	}
	v = &c->e[c->hand];
	c->hand = (c->hand + 1) % c->cap;
	link = &c->bucket[bucket_of(c, v->maj, v->min, v->ino)];
	while (*link != (int32_t)(v - c->e))
		link = &c->e[*link].next;
	*link = v->next;
	c->st.evictions++;
	return v;
}

static void fill(struct prec_buildid_cache *c, struct entry *e, const struct prec_mapped_file *f)
{
	unsigned int gen = 0;
	int fd = open_mapped(f);

	memset(&e->bid, 0, sizeof(e->bid));
	e->gen = f->ino_generation;
	e->epoch = 0;
	c->st.reads++;
	if (fd < 0)
		return;
	if (!e->gen && !ioctl(fd, FS_IOC_GETVERSION, &gen))
		e->gen = gen; /* so that a later reuse of the inode is told apart */
	if (!prec_buildid_read_fd(fd, &e->bid))
		c->st.found++;
	close(fd);
}

int prec_buildid_cache__lookup(struct prec_buildid_cache *c, const struct prec_mapped_file *f,
			       struct prec_buildid *ret)
{
	size_t b;
	struct entry *e;
	int32_t i;

	if (!f->ino || !f->path || f->path[0] != '/')
		return 0;
	c->st.lookups++;
	b = bucket_of(c, f->maj, f->min, f->ino);
	for (i = c->bucket[b]; i >= 0; i = c->e[i].next) {
		e = &c->e[i];
		if (e->ino == f->ino && e->maj == f->maj && e->min == f->min)
			break;
	}
	if (i < 0) {
		e = take_entry(c);
		e->maj = f->maj;
		e->min = f->min;
		e->ino = f->ino;
		e->next = c->bucket[b];
		c->bucket[b] = (int32_t)(e - c->e);
		fill(c, e, f);
	} else if (f->ino_generation && e->gen && f->ino_generation != e->gen) {
		fill(c, e, f); /* the inode number was reused by another file */
	} else if (f->ino_generation && !e->gen) {
		e->gen = f->ino_generation; /* first told: a later change means reuse */
	}
	e->ref = true;
	if (!e->bid.len || e->epoch == c->epoch)
		return 0;
	e->epoch = c->epoch;
	*ret = e->bid;
	return 1;
}

void prec_buildid_cache__new_epoch(struct prec_buildid_cache *c)
{
	c->epoch++;
}

void prec_buildid_cache__get_stats(const struct prec_buildid_cache *c,
				   struct prec_buildid_cache_stats *ret)
{
	*ret = c->st;
	ret->entries = c->n;
}
