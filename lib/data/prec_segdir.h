/* SPDX-License-Identifier: MIT */
/*
 * A segment directory: where `precord daemon` writes its recording as a series of
 * self-contained segments, and where `preport -i DIR` reads them back in time order.
 *
 * Names sort by time: precord-20261126T031005.123Z-000042.data is the segment that started
 * at 2026-11-26 03:10:05.123 UTC, the 42nd in this directory (the number goes on across
 * restarts).  The live segment, the one being written, carries a ".partial" suffix until it
 * is closed; a closed segment never changes again.  Other files in the directory (the lock
 * file precord.lock, the daemon's socket, anything else) are ignored, and nothing in it is
 * ever followed through a symbolic link.
 *
 * Writer's use (one daemon per directory, held by a lock):
 *   prec_segdir__open(DIR, PREC_SEGDIR_CREATE, &why, &d)   refuses an unsafe DIR, locks it,
 *                                                          closes segments left live by a crash
 *   prec_segdir__create_segment(d, now, &seg, &fd)         the live segment; write to fd
 *   prec_segdir__close_segment(d, fd, &seg)                fsync, rename to its final name
 *   prec_segdir__prune(d, &limits, now, fn, ctx)           retention, after each switch
 *   prec_segdir__free(d)
 * Reader's use: prec_segdir__open_read(), prec_segdir__list(), prec_segdir__open_segment().
 *
 * Functions return 0 (or a count) or -errno; they never print.  Not thread-safe.
 */
#ifndef PREC_SEGDIR_H
#define PREC_SEGDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "prec_parse.h"

#define PREC_SEGDIR_LOCK_NAME "precord.lock"
/* The last segment number given, so that numbering goes on in an emptied directory. */
#define PREC_SEGDIR_SEQ_NAME "precord.seq"

/* Longest name (with the 20-digit largest number and ".partial"), with its NUL. */
#define PREC_SEGMENT_NAME_MAX 64

struct prec_segment {
	char name[PREC_SEGMENT_NAME_MAX]; /* file name inside the directory */
	uint64_t start_ns;		  /* start, ns since the epoch (UTC), to the millisecond */
	uint64_t seq;			  /* its number in the directory */
	bool live;			  /* named .partial: being written, or cut by a crash */
	uint64_t size;			  /* bytes (st_size); 0 from prec_segment_parse_name() */
	uint64_t disk_bytes;		  /* bytes allocated on disk (st_blocks * 512) */
	uint64_t mtime_ns;		  /* last modification, ns since the epoch */
};

/*
 * Write the name of the segment that starts at start_ns (truncated to milliseconds) with
 * number seq into buf (len bytes, PREC_SEGMENT_NAME_MAX is always enough).  Returns the length
 * or -ENAMETOOLONG if buf is too small.
 */
int prec_segment_format_name(uint64_t start_ns, uint64_t seq, bool live, char *buf, size_t len);

/*
 * Read a name written by prec_segment_format_name() into *ret (name, start_ns, seq, live; the
 * rest 0).  -EINVAL for any other name, including one that only looks like it (a zero-padded
 * number longer than needed, a date that does not exist).
 */
int prec_segment_parse_name(const char *name, struct prec_segment *ret);

/*
 * When segs[i] of a listing (n items, in time order) ended, as ns since the epoch: its mtime
 * (its last write), unless that is before its start (a clock stepped back, a copy that lost
 * its times): then the next segment's start, or its own start if it is the last.  For
 * retention by age and for picking segments by time; a segment may end later than the next
 * one starts (the clocks differ a little), so a reader that picks by time should not assume
 * they do not overlap.
 */
uint64_t prec_segment_end_ns(const struct prec_segment *segs, size_t n, size_t i);

/*
 * The first and last sample times (on the stream's own clock) in the end marker of a closed
 * segment open on fd: its last record, a SAMPLE_TIME HEADER_FEATURE of 32 bytes that the
 * writer leaves uncompressed (doc/file-format.md).  0; -ENODATA when the file does not end
 * with one that holds times (live, cut short, written by another program); -errno of reading.
 */
int prec_segment_sample_times(int fd, uint64_t *ret_first, uint64_t *ret_last);

struct prec_segdir;

/* Create DIR (mode 0700) if it is missing; its parent must exist, as for mkdir(1). */
#define PREC_SEGDIR_CREATE 0x1u

/* Why prec_segdir__open() refused a directory, for the caller's message. */
struct prec_segdir_refusal {
	uid_t owner;	/* -EPERM: the owner of DIR (or of its lock file) */
	mode_t mode;	/* -EPERM: their permission bits */
	pid_t lock_pid; /* -EBUSY: the process holding the lock, 0 if it did not say */
};

/*
 * Open DIR for writing segments.  DIR is refused unless it is a directory (-ENOTDIR), not a
 * symbolic link (-ELOOP, also when written "link/" or "link/."), does not end in ".."
 * (-EINVAL: that would be the parent of what its last name leads to), owned by the
 * effective uid and not writable by group or others (-EPERM, *why says owner and mode).
 * Then it is locked for this process and its children (flock on DIR/precord.lock, which
 * gets our pid): if another process holds the lock, -EBUSY and why->lock_pid says which.  Last, every segment left live by an earlier run is
 * closed (renamed to its final name, never overwritten: if that name exists it stays live)
 * and logged as a warning; numbering continues after the highest number found, or the one
 * kept in DIR/precord.seq if higher (a garbage precord.seq is ignored with a warning).
 * why may be NULL.  *ret is freed with prec_segdir__free().
 */
int prec_segdir__open(const char *path, unsigned flags, struct prec_segdir_refusal *why,
		      struct prec_segdir **ret);

/*
 * Open DIR for reading only: no lock, no checks of owner or mode, nothing renamed.  DIR itself
 * may be reached through a symbolic link (the user named it); entries never are.
 */
int prec_segdir__open_read(const char *path, struct prec_segdir **ret);

/*
 * Whether a writer (a running daemon) holds DIR's lock now: 1 if so (always for d opened by
 * prec_segdir__open()), 0 if not (its .partial segment, if any, was left by a writer that
 * did not end cleanly; also when DIR has no lock file), -errno if it cannot be told (the
 * lock file is not ours to open).  Tested with a shared non-blocking flock, dropped at once:
 * a daemon starting in that instant is refused as if another held DIR.
 */
int prec_segdir__writer_active(struct prec_segdir *d);

/*
 * Close the directory and drop the lock.  A live segment stays live (.partial), to be closed
 * by the next prec_segdir__open(): call prec_segdir__close_segment() first.  NULL-safe.
 */
void prec_segdir__free(struct prec_segdir *d);

/* The path given to open, and the directory's fd (owned by d), e.g. for a socket inside. */
const char *prec_segdir__path(const struct prec_segdir *d);
int prec_segdir__fd(const struct prec_segdir *d);

/* Write getpid() into the lock file again: after a fork that keeps d (--background). */
int prec_segdir__write_pid(struct prec_segdir *d);

/*
 * All segments, closed and live, oldest first (by start, then number), with size and mtime.
 * Files with other names, and entries that are not regular files (symbolic links, FIFOs,
 * directories) whatever their names, are left out.  *ret (free() it) holds *ret_n items;
 * NULL when there are none.
 */
int prec_segdir__list(struct prec_segdir *d, struct prec_segment **ret, size_t *ret_n);

/*
 * Open a listed segment for reading, without following a symbolic link.  If it was live when
 * listed and has been closed since, its final name is opened.  -EINVAL if it is no longer a
 * regular file.  The caller closes *ret_fd.
 */
int prec_segdir__open_segment(struct prec_segdir *d, const struct prec_segment *seg,
			      int *ret_fd);

/*
 * Create the live segment, starting at start_ns (wall clock), with the next number: mode
 * 0600, O_EXCL, never through a symbolic link, then the directory is synced so the name
 * survives a power cut.  The caller owns *ret_fd (write-only) and closes it, after
 * prec_segdir__close_segment().  -EBUSY if a segment is live already; -EBADF if d is open
 * for reading only.
 */
int prec_segdir__create_segment(struct prec_segdir *d, uint64_t start_ns,
				struct prec_segment *ret_seg, int *ret_fd);

/* The live segment as created (size 0), or NULL. */
const struct prec_segment *prec_segdir__live(const struct prec_segdir *d);

/*
 * Close the live segment: fsync fd (the caller's, left open), rename it to its final name
 * without replacing anything, fsync the directory.  A failed fsync is logged as a warning and
 * does not stop the close: the segment will not be written again either way.  If the rename
 * fails the segment stays live and the error is returned.  *ret_seg (may be NULL) gets the
 * closed segment's name and numbers.
 */
int prec_segdir__close_segment(struct prec_segdir *d, int fd, struct prec_segment *ret_seg);

/* Retention limits; 0 (and a zero min_free) is no limit. */
struct prec_retention {
	uint64_t max_files;	       /* closed segments to keep (the live one not counted, as
					  perf's --switch-max-files) */
	uint64_t max_bytes;	       /* all segments together, the live one included */
	uint64_t max_age_ns;	       /* a segment goes once it ended this long ago */
	struct prec_min_free min_free; /* free space to leave on the file system */
};

enum prec_prune_reason {
	PREC_PRUNE_FILES, /* more than max_files */
	PREC_PRUNE_BYTES, /* more than max_bytes */
	PREC_PRUNE_AGE,	  /* older than max_age */
	PREC_PRUNE_FREE,  /* less free space than min_free, or the disk is full */
};

/* Told of each segment deleted, for the caller's log. */
typedef void (*prec_segdir_pruned_fn)(const struct prec_segment *seg, enum prec_prune_reason why,
				      void *ctx);

/*
 * Delete closed segments, oldest first, until every limit holds: never the live one, nor the
 * newest closed one for max_bytes (a run always leaves its last segment), so max_bytes and
 * min_free may still not hold when nothing else may go: prec_segdir__unmet() says so.  Age is
 * counted from prec_segment_end_ns().  Free space is what statvfs says is available to unprivileged
 * users, plus what each deletion frees (counted from its blocks, so a segment a reader keeps
 * open cannot make every other one go).  The directory is synced after the deletions.  fn
 * (may be NULL) is called for each.  Returns how many were deleted, or -errno (some may have
 * been deleted).  -EBADF if d is open for reading only.
 */
int prec_segdir__prune(struct prec_segdir *d, const struct prec_retention *lim, uint64_t now_ns,
		       prec_segdir_pruned_fn fn, void *ctx);

/*
 * For a write that failed with ENOSPC or EDQUOT: prune as above, and if that deletes nothing
 * but a min_free is set (the user allowed old segments to go for space), delete the oldest
 * closed segment anyway, since the file system is then below any threshold.  Returns how many
 * were deleted: 0 tells the caller to stop writing until space returns.
 */
int prec_segdir__prune_for_space(struct prec_segdir *d, const struct prec_retention *lim,
				 uint64_t now_ns, prec_segdir_pruned_fn fn, void *ctx);

/*
 * The limits that the last prune (successful) left unmet, as a mask of
 * 1u << PREC_PRUNE_BYTES (the live segment and the newest closed one alone are over
 * max_bytes) and 1u << PREC_PRUNE_FREE (less free than min_free, with no closed segment left
 * to delete); 0 before the first prune.  For the caller's one warning.
 */
unsigned prec_segdir__unmet(const struct prec_segdir *d);

#endif
