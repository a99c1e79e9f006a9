/* SPDX-License-Identifier: MIT */
/*
 * Segment directories.  Invariants:
 *  - Every operation inside the directory goes through dirfd (openat, fstatat, renameat2,
 *    unlinkat) with O_NOFOLLOW or AT_SYMLINK_NOFOLLOW: once DIR is open, no path is looked up
 *    again and no symbolic link inside it is followed.
 *  - A writer holds an flock on DIR/precord.lock from open to free; lockfd < 0 means
 *    read-only, and then nothing in the directory is created, renamed or deleted.
 *  - A segment's name changes once, from live to final, by a rename that never replaces a
 *    file; a closed segment is never opened for writing, and only retention deletes one.
 *    Each create, rename and delete is followed by an fsync of the directory, so a power cut
 *    leaves every closed segment in place under its final name.
 *  - next_seq is above every number in the directory and above the one kept in
 *    DIR/precord.seq (the last number given, replaced by a rename before each segment is
 *    created), so numbers go on across restarts even after retention emptied the directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_log.h"
#include "prec_record.h"
#include "prec_segdir.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NAME_PREFIX "precord-"
#define NAME_SUFFIX ".data"
#define LIVE_SUFFIX ".partial"
#define CREATE_TRIES 16
#define SEQ_TMP_NAME PREC_SEGDIR_SEQ_NAME ".tmp"
#define SEQ_MAX 999999999999999ULL /* a sane last number: 10^15 segments is none we wrote */

struct prec_segdir {
	int dirfd;
	int lockfd;
	char *path;
	uint64_t next_seq;
	bool has_live;
	bool seq_warned; /* a failed write of precord.seq was said */
	unsigned unmet;	 /* limits the last prune could not meet, 1u << prec_prune_reason */
	struct prec_segment live;
};

int prec_segment_format_name(uint64_t start_ns, uint64_t seq, bool live, char *buf, size_t len)
{
	time_t secs = (time_t)(start_ns / NSEC_PER_SEC);
	unsigned ms = (unsigned)(start_ns % NSEC_PER_SEC / NSEC_PER_MSEC);
	struct tm tm;
	int n;

	if (!gmtime_r(&secs, &tm))
		return -ERANGE; /* cannot happen: 2^64 ns is the year 2554 */
	n = snprintf(buf, len,
		     NAME_PREFIX "%04d%02d%02dT%02d%02d%02d.%03uZ-%06llu" NAME_SUFFIX "%s",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ms, (unsigned long long)seq, live ? LIVE_SUFFIX : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

int prec_segment_parse_name(const char *name, struct prec_segment *ret)
{
	struct prec_segment seg = { 0 };
	char again[PREC_SEGMENT_NAME_MAX];
	unsigned long long seq;
	struct tm tm = { 0 };
	int ms, len = 0;
	const char *rest;
	time_t secs;

	/*
	 * sscanf() is lax (blanks, signs, fields out of range), but only a name that
	 * prec_segment_format_name() gives back unchanged is accepted: one file, one name.
	 */
	if (sscanf(name, NAME_PREFIX "%4d%2d%2dT%2d%2d%2d.%3dZ-%20llu%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &seq, &len) != 8 ||
	    !len || ms < 0)
		return -EINVAL;
	rest = name + len;
	seg.live = !strcmp(rest, NAME_SUFFIX LIVE_SUFFIX);
	if (!seg.live && strcmp(rest, NAME_SUFFIX))
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	secs = timegm(&tm);
	if (secs < 0)
		return -EINVAL;
	seg.start_ns = (uint64_t)secs * NSEC_PER_SEC + (uint64_t)ms * NSEC_PER_MSEC;
	seg.seq = seq;
	if (prec_segment_format_name(seg.start_ns, seg.seq, seg.live, again, sizeof(again)) < 0 ||
	    strcmp(again, name))
		return -EINVAL;
	memcpy(seg.name, again, sizeof(again));
	*ret = seg;
	return 0;
}

uint64_t prec_segment_end_ns(const struct prec_segment *segs, size_t n, size_t i)
{
	if (segs[i].mtime_ns >= segs[i].start_ns)
		return segs[i].mtime_ns;
	return i + 1 < n ? segs[i + 1].start_ns : segs[i].start_ns;
}

/* Rename inside the directory without replacing a file that has the new name. */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (!renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A file system without RENAME_NOREPLACE: link() never replaces either. */
	if (linkat(dirfd, from, dirfd, to, 0))
		return -errno;
	if (unlinkat(dirfd, from, 0)) {
		int err = -errno;

		unlinkat(dirfd, to, 0);
		return err;
	}
	return 0;
}

static void sync_dir(struct prec_segdir *d)
{
	if (fsync(d->dirfd))
		prec_warn("%s: cannot sync the directory: %s", d->path, strerror(errno));
}

static int compare_segments(const void *a, const void *b)
{
	const struct prec_segment *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (int)x->live - (int)y->live;
}

int prec_segdir__list(struct prec_segdir *d, struct prec_segment **ret, size_t *ret_n)
{
	struct prec_segment *segs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int fd, err = 0;
	DIR *dir;

	fd = openat(d->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		err = -errno;
		close(fd);
		return err;
	}
	while ((errno = 0, de = readdir(dir))) {
		struct prec_segment seg;
		struct stat st;

		if (prec_segment_parse_name(de->d_name, &seg))
			continue;
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(d->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue; /* deleted or renamed since readdir() */
			err = -errno;
			break;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		seg.size = (uint64_t)st.st_size;
		seg.disk_bytes = (uint64_t)st.st_blocks * 512;
		seg.mtime_ns =
		    (uint64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + (uint64_t)st.st_mtim.tv_nsec;
		err = prec_array__grow((void **)&segs, &cap, n + 1, sizeof(*segs), 16);
		if (err)
			break;
		segs[n++] = seg;
	}
	if (!err && errno)
		err = -errno;
	closedir(dir);
	if (err) {
		free(segs);
		return err;
	}
	if (n)
		qsort(segs, n, sizeof(*segs), compare_segments);
	*ret = segs;
	*ret_n = n;
	return 0;
}

/*
 * The last number kept in DIR/precord.seq ("42\n"), or 0 if there is none.  A file that is
 * not ours, not a regular file, or not a plain number up to SEQ_MAX is ignored with a
 * warning: it only helps numbering, the listing alone keeps names unique.
 */
static uint64_t read_seq(struct prec_segdir *d)
{
	char buf[32];
	unsigned long long v;
	struct stat st;
	ssize_t n;
	char *end;
	int fd;

	fd = openat(d->dirfd, PREC_SEGDIR_SEQ_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			prec_warn("%s: cannot read %s (%s); numbering goes on from the segments "
				  "found",
				  d->path, PREC_SEGDIR_SEQ_NAME, strerror(errno));
		return 0;
	}
	n = -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (buf[0] >= '0' && buf[0] <= '9' && !errno && end != buf && !strcmp(end, "\n") &&
		    v <= SEQ_MAX)
			return v;
	}
	prec_warn("%s: ignored %s, which does not hold a segment number; numbering goes on from "
		  "the segments found",
		  d->path, PREC_SEGDIR_SEQ_NAME);
	return 0;
}

/* Keep seq as the last number given, replacing precord.seq by a rename (never half written). */
static int write_seq(struct prec_segdir *d, uint64_t seq)
{
	char buf[32];
	int fd, n, err = 0;

	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)seq);
	unlinkat(d->dirfd, SEQ_TMP_NAME, 0);
	fd = openat(d->dirfd, SEQ_TMP_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, (size_t)n) != n || fsync(fd))
		err = errno ? -errno : -EIO;
	close(fd);
	if (!err && renameat(d->dirfd, SEQ_TMP_NAME, d->dirfd, PREC_SEGDIR_SEQ_NAME))
		err = -errno;
	if (err)
		unlinkat(d->dirfd, SEQ_TMP_NAME, 0);
	return err;
}

/* Close what an earlier run left live, and number on after every segment found. */
static int recover(struct prec_segdir *d)
{
	struct prec_segment *segs;
	bool changed = false; /* a name renamed or removed: the directory wants a sync */
	size_t n;
	int err;

	err = prec_segdir__list(d, &segs, &n);
	if (err)
		return err;
	d->next_seq = read_seq(d) + 1;
	for (size_t i = 0; i < n; i++) {
		char final[PREC_SEGMENT_NAME_MAX];
		int fd;

		if (segs[i].seq >= d->next_seq)
			d->next_seq = segs[i].seq + 1;
		if (!segs[i].live)
			continue;
		fd = openat(d->dirfd, segs[i].name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			struct stat st;
			bool empty = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == 0;

			fsync(fd); /* what the crash left, on disk before the rename */
			close(fd);
			/* killed between its creation and its first write: nothing to keep */
			if (empty && !unlinkat(d->dirfd, segs[i].name, 0)) {
				changed = true;
				prec_warn("%s: removed %s, left empty by an earlier run that did "
					  "not end cleanly", d->path, segs[i].name);
				continue;
			}
		}
		prec_segment_format_name(segs[i].start_ns, segs[i].seq, false, final,
					 sizeof(final));
		err = rename_noreplace(d->dirfd, segs[i].name, final);
		if (err) {
			prec_warn("%s: %s was left live by an earlier run and cannot be closed "
				  "(%s); it stays as it is",
				  d->path, segs[i].name, strerror(-err));
			continue;
		}
		changed = true;
		prec_warn("%s: closed %s, left live by an earlier run that did not end cleanly",
			  d->path, final);
	}
	if (changed)
		sync_dir(d);
	free(segs);
	return 0;
}

static int segdir_new(const char *path, int dirfd, struct prec_segdir **ret)
{
	struct prec_segdir *d = calloc(1, sizeof(*d));

	if (!d || !(d->path = strdup(path))) {
		free(d);
		return -ENOMEM;
	}
	d->dirfd = dirfd;
	d->lockfd = -1;
	d->next_seq = 1;
	*ret = d;
	return 0;
}

int prec_segdir__write_pid(struct prec_segdir *d)
{
	char buf[24];
	int n;

	if (d->lockfd < 0)
		return -EBADF;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(d->lockfd, 0) || pwrite(d->lockfd, buf, (size_t)n, 0) != n)
		return errno ? -errno : -EIO;
	return 0;
}

static pid_t read_lock_pid(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;
	char *end;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return end != buf && (*end == '\n' || !*end) && pid > 0 && pid <= 0x7fffffff ? (pid_t)pid
										     : 0;
}

static int lock_dir(struct prec_segdir *d, struct prec_segdir_refusal *why)
{
	struct stat st;
	int err;

	d->lockfd = openat(d->dirfd, PREC_SEGDIR_LOCK_NAME,
			   O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (d->lockfd < 0)
		return -errno;
	if (fstat(d->lockfd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		why->owner = st.st_uid;
		why->mode = st.st_mode & 07777;
		return -EPERM;
	}
	if (flock(d->lockfd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		if (err == -EWOULDBLOCK) {
			why->lock_pid = read_lock_pid(d->lockfd);
			return -EBUSY;
		}
		return err;
	}
	return prec_segdir__write_pid(d);
}

/*
 * DIR without what lets a path end past its last name: trailing slashes and "/." ("link/"
 * and "link/." follow the link, which O_NOFOLLOW checks only in a final name).  A path that
 * ends in ".." names the parent of whatever its last name leads to: -EINVAL.
 */
static int final_name(const char *path, char **ret)
{
	char *p = strdup(path);
	size_t n;

	if (!p)
		return -ENOMEM;
	n = strlen(p);
	for (;;) {
		while (n > 1 && p[n - 1] == '/')
			n--;
		if (n > 2 && p[n - 1] == '.' && p[n - 2] == '/')
			n -= 2;
		else
			break;
	}
	p[n] = 0;
	if (n > 2 && !strcmp(p + n - 3, "/..")) {
		free(p);
		return -EINVAL;
	}
	*ret = p;
	return 0;
}

int prec_segdir__open(const char *path, unsigned flags, struct prec_segdir_refusal *why,
		      struct prec_segdir **ret)
{
	struct prec_segdir_refusal unused;
	struct prec_segdir *d = NULL;
	struct stat st;
	char *name;
	int dirfd, err;

	if (!why)
		why = &unused;
	memset(why, 0, sizeof(*why));
	err = final_name(path, &name);
	if (err)
		return err;
	if ((flags & PREC_SEGDIR_CREATE) && mkdir(name, 0700) && errno != EEXIST) {
		err = -errno;
		free(name);
		return err;
	}
	dirfd = open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		err = -errno;
		/* O_NOFOLLOW|O_DIRECTORY on a symbolic link says ENOTDIR: say what it is. */
		if ((err == -ENOTDIR || err == -ELOOP) && !lstat(name, &st))
			err = S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
		free(name);
		return err;
	}
	free(name);
	if (fstat(dirfd, &st)) {
		err = -errno;
		close(dirfd);
		return err;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		why->owner = st.st_uid;
		why->mode = st.st_mode & 07777;
		close(dirfd);
		return -EPERM;
	}
	err = segdir_new(path, dirfd, &d);
	if (err) {
		close(dirfd);
		return err;
	}
	err = lock_dir(d, why);
	if (!err)
		err = recover(d);
	if (err) {
		prec_segdir__free(d);
		return err;
	}
	*ret = d;
	return 0;
}

int prec_segdir__open_read(const char *path, struct prec_segdir **ret)
{
	int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err;

	if (dirfd < 0)
		return -errno;
	err = segdir_new(path, dirfd, ret);
	if (err)
		close(dirfd);
	return err;
}

int prec_segdir__writer_active(struct prec_segdir *d)
{
	int fd, err;

	if (d->lockfd >= 0)
		return 1;
	fd =
	    openat(d->dirfd, PREC_SEGDIR_LOCK_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!flock(fd, LOCK_SH | LOCK_NB))
		err = 0;
	else
		err = errno == EWOULDBLOCK ? 1 : -errno;
	close(fd); /* drops the shared lock, if taken */
	return err;
}

void prec_segdir__free(struct prec_segdir *d)
{
	if (!d)
		return;
	if (d->lockfd >= 0)
		close(d->lockfd);
	close(d->dirfd);
	free(d->path);
	free(d);
}

const char *prec_segdir__path(const struct prec_segdir *d)
{
	return d->path;
}

int prec_segdir__fd(const struct prec_segdir *d)
{
	return d->dirfd;
}

int prec_segdir__open_segment(struct prec_segdir *d, const struct prec_segment *seg,
			      int *ret_fd)
{
	const int oflags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	struct stat st;
	int fd, err;

	fd = openat(d->dirfd, seg->name, oflags);
	if (fd < 0 && errno == ENOENT && seg->live) {
		char final[PREC_SEGMENT_NAME_MAX];

		if (prec_segment_format_name(seg->start_ns, seg->seq, false, final,
					     sizeof(final)) > 0)
			fd = openat(d->dirfd, final, oflags);
		if (fd < 0)
			errno = ENOENT;
	}
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && !S_ISREG(st.st_mode))
		err = -EINVAL;
	if (err) {
		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

int prec_segdir__create_segment(struct prec_segdir *d, uint64_t start_ns,
				struct prec_segment *ret_seg, int *ret_fd)
{
	struct prec_segment seg = { .start_ns = start_ns / NSEC_PER_MSEC * NSEC_PER_MSEC };
	int fd = -1, err;

	if (d->lockfd < 0)
		return -EBADF;
	if (d->has_live)
		return -EBUSY;
	for (int i = 0; i < CREATE_TRIES && fd < 0; i++) {
		char final[PREC_SEGMENT_NAME_MAX];
		struct stat st;

		seg.seq = d->next_seq++;
		err = prec_segment_format_name(seg.start_ns, seg.seq, false, final, sizeof(final));
		if (err < 0)
			return err;
		if (!fstatat(d->dirfd, final, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* its final name is taken: the rename would fail */
		/* before the segment: a power cut then skips a number, never reuses one */
		err = write_seq(d, seg.seq);
		/* a full disk fails the segment too, and its writer says so */
		if (err && err != -ENOSPC && err != -EDQUOT && !d->seq_warned) {
			d->seq_warned = true;
			prec_warn("%s: cannot keep the last segment number in %s (%s); numbering "
				  "may start again if the directory is emptied",
				  d->path, PREC_SEGDIR_SEQ_NAME, strerror(-err));
		}
		prec_segment_format_name(seg.start_ns, seg.seq, true, seg.name, sizeof(seg.name));
		fd = openat(d->dirfd, seg.name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	sync_dir(d);
	seg.live = true;
	d->live = seg;
	d->has_live = true;
	*ret_seg = seg;
	*ret_fd = fd;
	return 0;
}

const struct prec_segment *prec_segdir__live(const struct prec_segdir *d)
{
	return d->has_live ? &d->live : NULL;
}

int prec_segdir__close_segment(struct prec_segdir *d, int fd, struct prec_segment *ret_seg)
{
	struct prec_segment seg;
	int err;

	if (!d->has_live)
		return -EINVAL;
	seg = d->live;
	if (fsync(fd))
		prec_warn("%s: cannot sync %s: %s", d->path, seg.name, strerror(errno));
	prec_segment_format_name(seg.start_ns, seg.seq, false, seg.name, sizeof(seg.name));
	err = rename_noreplace(d->dirfd, d->live.name, seg.name);
	if (err)
		return err;
	sync_dir(d);
	seg.live = false;
	d->has_live = false;
	if (ret_seg)
		*ret_seg = seg;
	return 0;
}

static bool is_live(const struct prec_segdir *d, const struct prec_segment *seg)
{
	return d->has_live && !strcmp(seg->name, d->live.name);
}

static bool min_free_set(const struct prec_retention *lim)
{
	return lim->min_free.bytes || lim->min_free.pct_bp;
}

/*
 * Which limit, if any, the oldest closed segment, which ended at `end`, must go for.  The
 * newest closed one never goes for max_bytes: a cap smaller than a segment would otherwise
 * delete each segment as it closes, and a stopped run would leave nothing.
 */
static bool over_limit(const struct prec_retention *lim, uint64_t end, bool newest, uint64_t closed,
		       uint64_t bytes, uint64_t avail, uint64_t want_free, uint64_t now_ns,
		       enum prec_prune_reason *why)
{
	if (lim->max_files && closed > lim->max_files)
		*why = PREC_PRUNE_FILES;
	else if (lim->max_bytes && bytes > lim->max_bytes && !newest)
		*why = PREC_PRUNE_BYTES;
	else if (lim->max_age_ns && end < now_ns && now_ns - end > lim->max_age_ns)
		*why = PREC_PRUNE_AGE;
	else if (avail < want_free)
		*why = PREC_PRUNE_FREE;
	else
		return false;
	return true;
}

static int prune(struct prec_segdir *d, const struct prec_retention *lim, uint64_t now_ns,
		 bool for_space, prec_segdir_pruned_fn fn, void *ctx)
{
	uint64_t closed = 0, bytes = 0, avail = 0, want_free = 0;
	struct prec_segment *segs;
	int deleted = 0, err;
	size_t n, newest = SIZE_MAX;

	if (d->lockfd < 0)
		return -EBADF;
	if (min_free_set(lim)) {
		struct statvfs vfs;

		if (fstatvfs(d->dirfd, &vfs))
			return -errno;
		avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		want_free =
		    prec_min_free__bytes(&lim->min_free, (uint64_t)vfs.f_blocks * vfs.f_frsize);
	}
	err = prec_segdir__list(d, &segs, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (!is_live(d, &segs[i])) {
			closed++;
			newest = i;
		}
		bytes += segs[i].size;
	}
	for (size_t i = 0; i < n; i++) {
		enum prec_prune_reason why = PREC_PRUNE_FREE;

		if (is_live(d, &segs[i]))
			continue;
		if (!over_limit(lim, prec_segment_end_ns(segs, n, i), i == newest, closed, bytes,
				avail, want_free, now_ns, &why) &&
		    !(for_space && !deleted && min_free_set(lim)))
			break;
		if (unlinkat(d->dirfd, segs[i].name, 0) && errno != ENOENT) {
			err = -errno;
			break;
		}
		closed--;
		bytes -= segs[i].size;
		avail += segs[i].disk_bytes;
		deleted++;
		if (fn)
			fn(&segs[i], why, ctx);
	}
	if (deleted)
		sync_dir(d);
	free(segs);
	if (err)
		return err;
	d->unmet = (lim->max_bytes && bytes > lim->max_bytes ? 1u << PREC_PRUNE_BYTES : 0) |
		   (avail < want_free ? 1u << PREC_PRUNE_FREE : 0);
	return deleted;
}

unsigned prec_segdir__unmet(const struct prec_segdir *d)
{
	return d->unmet;
}

int prec_segdir__prune(struct prec_segdir *d, const struct prec_retention *lim, uint64_t now_ns,
		       prec_segdir_pruned_fn fn, void *ctx)
{
	return prune(d, lim, now_ns, false, fn, ctx);
}

int prec_segdir__prune_for_space(struct prec_segdir *d, const struct prec_retention *lim,
				 uint64_t now_ns, prec_segdir_pruned_fn fn, void *ctx)
{
	return prune(d, lim, now_ns, true, fn, ctx);
}

int prec_segment_sample_times(int fd, uint64_t *ret_first, uint64_t *ret_last)
{
	unsigned char tail[32]; /* 8 header + 8 feature id + 2 * 8 times */
	struct prec_rec_feature f;
	uint64_t t[2];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_size < (off_t)sizeof(tail))
		return -ENODATA;
	n = pread(fd, tail, sizeof(tail), st.st_size - (off_t)sizeof(tail));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(tail) || prec_rec_feature__parse(tail, sizeof(tail), &f) ||
	    f.feat != PREC_FEAT_SAMPLE_TIME || f.len != sizeof(t))
		return -ENODATA;
	memcpy(t, f.data, sizeof(t));
	if (!t[0] || t[0] > t[1])
		return -ENODATA;
	*ret_first = t[0];
	*ret_last = t[1];
	return 0;
}
