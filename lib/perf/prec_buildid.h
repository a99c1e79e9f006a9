/* SPDX-License-Identifier: MIT */
/*
 * Build-ids of mapped files, read in user space from their ELF notes (NT_GNU_BUILD_ID), and
 * a bounded cache of them keyed by (device, inode).
 *
 * The recorder does not ask the kernel for build-ids (attr.build_id): on current kernels that
 * marks the mmap event shared by every listener, and other profilers on the host break.
 * Instead it looks each mapped file up here: the first lookup of a file opens and reads it,
 * every later one is a hash lookup.  A file that is not ELF, has no note or cannot be read
 * is remembered as having none and is not read again.
 *
 * The cache holds at most `max_entries` files; past that the least recently used ones go
 * (a clock sweep), so a recorder that runs for weeks keeps a flat footprint.  It counts
 * "epochs" (one per output stream): prec_buildid_cache__lookup() says whether a file is
 * seen for the first time in the current epoch, so that each output file gets one build-id
 * record per file.  Not thread-safe.
 */
#ifndef PREC_BUILDID_H
#define PREC_BUILDID_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prec_abi.h"

#define PREC_BUILDID_CACHE_DEFAULT 4096 /* files */

struct prec_buildid {
	uint8_t id[PREC_BUILD_ID_SIZE]; /* zero past len */
	uint8_t len; /* 0: the file has none we can use */
};

/*
 * The build-id note of the ELF file open on `fd` (read with pread/mmap; the offset is not
 * used).  0, -ENOEXEC (not ELF), -ENODATA (no NT_GNU_BUILD_ID note, or one longer than
 * PREC_BUILD_ID_SIZE bytes), or -EIO (libelf could not read it).  *ret is set only on success.
 */
int prec_buildid_read_fd(int fd, struct prec_buildid *ret);

/* The same for the regular file at `path`, opened without following a final symlink:
 * -ENOENT, -ELOOP, -EINVAL (not a regular file) and other open(2) errors too. */
int prec_buildid_read_path(const char *path, struct prec_buildid *ret);

/* A mapped file as a MMAP2 record or /proc/PID/maps describes it. */
struct prec_mapped_file {
	uint32_t maj, min;
	uint64_t ino;
	uint64_t ino_generation; /* 0: not known */
	const char *path; /* absolute, as the kernel printed it */
	pid_t pid; /* a process that maps it (<= 0: none known) */
	uint64_t start, end; /* that mapping, for /proc/PID/map_files (0, 0: not known) */
};

struct prec_buildid_cache;

struct prec_buildid_cache_stats {
	uint64_t lookups;
	uint64_t reads; /* files opened and read */
	uint64_t found; /* reads that gave a build-id */
	uint64_t evictions;
	uint64_t entries; /* now */
};

/* max_entries: 0 for PREC_BUILDID_CACHE_DEFAULT.  0 or -ENOMEM. */
int prec_buildid_cache__new(size_t max_entries, struct prec_buildid_cache **ret);
void prec_buildid_cache__free(struct prec_buildid_cache *c); /* NULL-safe */

/*
 * The build-id of `f`, read on first sight.  The file is opened at f->path (no final symlink
 * followed), else at /proc/PID/root/PATH, else at /proc/PID/map_files/START-END, and used only
 * if it is a regular file with f's device and inode: a path that now names another file (a
 * rebuilt binary, another mount namespace) gives none rather than a wrong build-id.  Files
 * that cannot have one (no absolute path, inode 0) are not looked up or remembered.  A known
 * ino_generation that differs from the remembered one means the inode was reused: the file
 * is read again.
 *
 * Returns 1 with *ret set when the file has a build-id and this is its first lookup in the
 * current epoch (write its build-id record now), else 0 (*ret untouched).  Nothing is
 * allocated: a file libelf cannot read for want of memory counts as having none.
 */
int prec_buildid_cache__lookup(struct prec_buildid_cache *c, const struct prec_mapped_file *f,
			       struct prec_buildid *ret);

/* Start a new epoch (a new output file): every file is "first seen" again, nothing is re-read. */
void prec_buildid_cache__new_epoch(struct prec_buildid_cache *c);

void prec_buildid_cache__get_stats(const struct prec_buildid_cache *c,
				   struct prec_buildid_cache_stats *ret);

#endif
