/* SPDX-License-Identifier: MIT */
/*
 * lib/data/prec_segdir: segment names and their round trip; a directory refused when it is a
 * symbolic link, a file, owned by someone else or writable by others; the lock against a
 * second writer (in this process and in another); symbolic links, FIFOs and directories named
 * like segments never listed, followed or deleted; the recovery of a segment left live by a
 * process killed with SIGKILL; numbers that go on after a reopen, also of an emptied
 * directory (precord.seq, garbage in it ignored); and each retention limit
 * alone and together, never deleting the live segment.  Free space on a small file system is
 * tested in test-segdir-space.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_log.h"
#include "prec_segdir.h"
#include "tap.h"

#define NS 1000000000ULL
#define T0 (1795662605123ULL * 1000000) /* 2026-11-26 03:10:05.123 UTC */

static char base[256];
static char warnings[4096];

static void keep_log(enum prec_log_level level, const char *msg, void *ctx)
{
	size_t used = strlen(warnings);

	snprintf(warnings + used, sizeof(warnings) - used, "%s%s", used ? " | " : "", msg);
}

/* base/name, or base/dir/name; the last four results stay valid. */
static const char *in(const char *dir, const char *name)
{
	static char path[4][512];
	static int which;

	which = (which + 1) % 4;
	snprintf(path[which], sizeof(path[which]), "%s/%s%s%s", base, dir ? dir : "",
		 dir ? "/" : "", name);
	return path[which];
}

static const char *at(const char *name)
{
	return in(NULL, name);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		diag("cannot write %s: %s", path, strerror(errno));
		abort();
	}
	close(fd);
}

static bool file_has(const char *path, const char *text)
{
	char buf[256] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n == (ssize_t)strlen(text) && !memcmp(buf, text, (size_t)n);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Valid names with a character or two changed: refused, or accepted as exactly themselves. */
static void test_mangled_names(void)
{
	static const char chars[] = "0123456789-+.TZ pa\t";
	unsigned seed = 42, accepted = 0, bad = 0;
	char name[PREC_SEGMENT_NAME_MAX];

	for (int round = 0; round < 100000; round++) {
		struct prec_segment seg;
		size_t len;

		len = (size_t)prec_segment_format_name(T0 + (uint64_t)rand_r(&seed) * 1000003ULL,
						       (uint64_t)rand_r(&seed) % 3000000,
						       rand_r(&seed) & 1, name, sizeof(name));
		for (int k = rand_r(&seed) % 2; k >= 0; k--)
			name[rand_r(&seed) % (int)len] =
			    chars[rand_r(&seed) % (int)(sizeof(chars) - 1)];
		if (rand_r(&seed) % 8 == 0)
			name[rand_r(&seed) % (int)len] = '\0';
		if (prec_segment_parse_name(name, &seg))
			continue;
		accepted++;
		if (strcmp(seg.name, name) || seg.live != (strstr(name, ".partial") != NULL)) {
			if (!bad++)
				diag("accepted as another: \"%s\" -> \"%s\"", name, seg.name);
		}
	}
	ok(!bad && accepted, "100000 mangled names: refused or exactly themselves (%u accepted)",
	   accepted);
}

static void test_names(void)
{
	char buf[PREC_SEGMENT_NAME_MAX];
	struct prec_segment seg;
	static const char *const bad[] = {
		"precord-20261126T031005.123Z-42.data",
		"precord-20261126T031005.123Z-0000042.data",
		"precord-20261131T031005.123Z-000042.data",
		"precord-20260229T031005.123Z-000042.data",
		"precord-20261126T251005.123Z-000042.data",
		"precord-20261126T031005.123Z-000042.data.old",
		"precord-20261126T031005.123Z-000042.dat",
		"precord-20261126T031005.123Z-000042.partial",
		"precord-20261126T031005.123Z- 00042.data",
		"precord-20261126T031005.123Z-+00042.data",
		"precord-20261126T031005.12Z-000042.data",
		"precord-20261126T031005Z-000042.data",
		"precord-2026-11-26T031005.123Z-000042.data",
		"precord-20261126T031005.123Z-000042.data\t",
		"precord-20261126T031005.123Z-99999999999999999999.data",
		"Precord-20261126T031005.123Z-000042.data",
		"perf.data.2026112603100512",
		"precord.lock",
		"",
	};
	int n;

	n = prec_segment_format_name(T0, 42, false, buf, sizeof(buf));
	ok(n > 0 && !strcmp(buf, "precord-20261126T031005.123Z-000042.data"),
	   "a segment's name: %s", buf);
	prec_segment_format_name(T0 + 999999, 42, true, buf, sizeof(buf));
	ok(!strcmp(buf, "precord-20261126T031005.123Z-000042.data.partial"),
	   "a live one's, the start truncated to the millisecond: %s", buf);
	ok(!prec_segment_parse_name(buf, &seg) && seg.start_ns == T0 && seg.seq == 42 &&
		   seg.live && !strcmp(seg.name, buf) && seg.size == 0,
	   "it parses back");
	n = prec_segment_format_name(0, UINT64_MAX, true, buf, sizeof(buf));
	ok(n > 0 && n < PREC_SEGMENT_NAME_MAX && !prec_segment_parse_name(buf, &seg) &&
		   seg.seq == UINT64_MAX && seg.start_ns == 0,
	   "the longest name fits and parses back: %s", buf);
	n = prec_segment_format_name(1234567 * NS, 1000000, false, buf, sizeof(buf));
	ok(n > 0 && !prec_segment_parse_name(buf, &seg) && seg.seq == 1000000 &&
		   seg.start_ns == 1234567 * NS,
	   "a number past six digits: %s", buf);
	ok(prec_segment_format_name(T0, 1, false, buf, 20) == -ENAMETOOLONG,
	   "a short buffer is -ENAMETOOLONG");
	n = prec_segment_format_name(UINT64_MAX, 1, false, buf, sizeof(buf));
	ok(n > 0 && !strcmp(buf, "precord-25540721T233433.709Z-000001.data"),
	   "the last start a u64 holds: %s", buf);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(prec_segment_parse_name(bad[i], &seg) == -EINVAL, "not a segment: \"%s\"",
		   bad[i]);
	test_mangled_names();
}

static void test_refusals(void)
{
	struct prec_segdir_refusal why;
	struct prec_segdir *d = NULL;
	struct stat st;
	int err;

	err = prec_segdir__open(at("missing"), 0, &why, &d);
	ok(err == -ENOENT, "a missing DIR without CREATE is -ENOENT (%d)", err);
	err = prec_segdir__open(at("no/such/parent"), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -ENOENT, "CREATE makes the last component only (%d)", err);

	umask(022);
	err = prec_segdir__open(at("made"), PREC_SEGDIR_CREATE, &why, &d);
	if (stat(at("made"), &st))
		st.st_mode = 0;
	ok(!err && (st.st_mode & 07777) == 0700,
	   "CREATE makes DIR with mode 0700 (%d, %o)", err, st.st_mode & 07777);
	ok(d && !strcmp(prec_segdir__path(d), at("made")) && prec_segdir__fd(d) >= 0,
	   "path and fd are kept");
	ok(!stat(at("made/" PREC_SEGDIR_LOCK_NAME), &st) && (st.st_mode & 0777) == 0600,
	   "the lock file is 0600");
	prec_segdir__free(d);
	d = NULL;

	mkdir(at("real"), 0700);
	symlink("real", at("link"));
	err = prec_segdir__open(at("link"), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -ELOOP && !d, "DIR a symbolic link to a directory: -ELOOP (%d)", err);
	/* O_NOFOLLOW checks only a final name: a path must not end past the link's name */
	for (const char *const *p = (const char *const[]){ "link/", "link//", "link/.", "link/./",
							  "link/././/", NULL }; *p; p++) {
		err = prec_segdir__open(at(*p), PREC_SEGDIR_CREATE, &why, &d);
		ok(err == -ELOOP && !d && !exists(at("real/" PREC_SEGDIR_LOCK_NAME)),
		   "DIR '%s', through a symbolic link: -ELOOP, nothing made in its target (%d)",
		   *p, err);
	}
	err = prec_segdir__open(at("link/.."), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -EINVAL && !d, "DIR 'link/..', ending in '..': -EINVAL (%d)", err);
	err = prec_segdir__open(at("real/"), PREC_SEGDIR_CREATE, &why, &d);
	ok(!err && d, "DIR 'real/', a directory with a trailing slash, is accepted (%d)", err);
	prec_segdir__free(d);
	d = NULL;
	unlink(at("real/" PREC_SEGDIR_LOCK_NAME));
	symlink("nowhere", at("dangling"));
	err = prec_segdir__open(at("dangling"), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -ELOOP && !exists(at("nowhere")),
	   "DIR a dangling link: -ELOOP, nothing made (%d)", err);
	err = prec_segdir__open(at("dangling/"), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -ELOOP && !exists(at("nowhere")),
	   "DIR 'dangling/': -ELOOP, nothing made (%d)", err);
	write_file(at("file"), "x");
	err = prec_segdir__open(at("file"), PREC_SEGDIR_CREATE, &why, &d);
	ok(err == -ENOTDIR, "DIR a file: -ENOTDIR (%d)", err);

	mkdir(at("open"), 0700);
	chmod(at("open"), 0777);
	err = prec_segdir__open(at("open"), 0, &why, &d);
	ok(err == -EPERM && why.mode == 0777 && why.owner == geteuid(),
	   "DIR mode 0777: -EPERM, mode %o", why.mode);
	chmod(at("open"), 0720);
	err = prec_segdir__open(at("open"), 0, &why, &d);
	ok(err == -EPERM && why.mode == 0720, "DIR mode 0720 (group-writable): -EPERM (%d)", err);
	chmod(at("open"), 0755);
	err = prec_segdir__open(at("open"), 0, &why, &d);
	ok(!err, "DIR mode 0755 is accepted (%d)", err);
	prec_segdir__free(d);
	d = NULL;

	if (geteuid() == 0) {
		mkdir(at("theirs"), 0700);
		if (chown(at("theirs"), 12345, 12345))
			diag("chown: %s", strerror(errno));
		err = prec_segdir__open(at("theirs"), 0, &why, &d);
		ok(err == -EPERM && why.owner == 12345,
		   "DIR owned by uid 12345: -EPERM, owner %u (%d)", (unsigned)why.owner, err);
		/* A lock file that is someone else's is refused too. */
		mkdir(at("lockother"), 0700);
		write_file(at("lockother/" PREC_SEGDIR_LOCK_NAME), "");
		if (chown(at("lockother/" PREC_SEGDIR_LOCK_NAME), 12345, 12345))
			diag("chown: %s", strerror(errno));
		err = prec_segdir__open(at("lockother"), 0, &why, &d);
		ok(err == -EPERM && why.owner == 12345, "a lock file of uid 12345: -EPERM (%d)",
		   err);
	} else {
		diag("not root: the owner checks need chown, not run");
	}

	mkdir(at("locklink"), 0700);
	symlink("../file", at("locklink/" PREC_SEGDIR_LOCK_NAME));
	err = prec_segdir__open(at("locklink"), 0, &why, &d);
	ok(err == -ELOOP && file_has(at("file"), "x"),
	   "a lock file that is a symbolic link is not followed (%d)", err);

	err = prec_segdir__open_read(at("link"), &d);
	ok(!err, "reading may go through a link the user named (%d)", err);
	prec_segdir__free(d);
	prec_segdir__free(NULL);
}

/* The names listed, space-separated, for comparing a listing with what it should be. */
static const char *listing(struct prec_segdir *d, size_t *ret_n)
{
	static char out[4096];
	struct prec_segment *segs = NULL;
	size_t n = 0;
	int err = prec_segdir__list(d, &segs, &n);

	out[0] = '\0';
	if (err)
		snprintf(out, sizeof(out), "error %d", err);
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(out);

		snprintf(out + used, sizeof(out) - used, "%s%" PRIu64 "%s", i ? " " : "",
			 segs[i].seq, segs[i].live ? "p" : "");
	}
	free(segs);
	if (ret_n)
		*ret_n = n;
	return out;
}

/* A closed segment of `bytes` bytes that started at start_ns and was last written at mtime. */
static struct prec_segment closed_segment(struct prec_segdir *d, uint64_t start_ns, size_t bytes,
					  uint64_t mtime_ns)
{
	static char zeros[4096];
	struct prec_segment seg = { 0 };
	int fd = -1;

	if (prec_segdir__create_segment(d, start_ns, &seg, &fd))
		abort();
	for (size_t done = 0; done < bytes;) {
		size_t n = bytes - done < sizeof(zeros) ? bytes - done : sizeof(zeros);

		if (write(fd, zeros, n) != (ssize_t)n)
			abort();
		done += n;
	}
	if (mtime_ns) {
		struct timespec ts[2] = {
			{ .tv_sec = (time_t)(mtime_ns / NS), .tv_nsec = (long)(mtime_ns % NS) },
			{ .tv_sec = (time_t)(mtime_ns / NS), .tv_nsec = (long)(mtime_ns % NS) },
		};

		futimens(fd, ts);
	}
	if (prec_segdir__close_segment(d, fd, &seg))
		abort();
	close(fd);
	return seg;
}

/*
 * A child that opens DIR for writing (with a closed segment and a live one holding "cut
 * short" if `segments`), tells us, and waits to be killed.  Returns its pid once it is ready,
 * or -1.
 */
static pid_t writer_child(const char *dir, bool segments)
{
	struct prec_segdir *d = NULL;
	struct prec_segment seg;
	int sync[2], fd;
	pid_t child;
	char c = 0;

	if (pipe(sync))
		abort();
	child = fork();
	if (child == 0) {
		close(sync[0]);
		if (prec_segdir__open(at(dir), PREC_SEGDIR_CREATE, NULL, &d))
			_exit(1);
		if (segments) {
			closed_segment(d, T0, 3, 0);
			if (prec_segdir__create_segment(d, T0 + NS, &seg, &fd) ||
			    write(fd, "cut short", 9) != 9)
				_exit(1);
		}
		if (write(sync[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &c, 1) != 1)
		c = 0;
	close(sync[0]);
	if (c != 'x') {
		waitpid(child, NULL, 0);
		return -1;
	}
	return child;
}

/* SIGKILL it; true if it died of that. */
static bool kill_child(pid_t child)
{
	int status = 0;

	if (child < 0)
		return false;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static void test_lock(void)
{
	struct prec_segdir_refusal why;
	struct prec_segdir *d1 = NULL, *d2 = NULL;
	char pidline[32];
	pid_t child;
	int err;

	err = prec_segdir__open(at("locked"), PREC_SEGDIR_CREATE, &why, &d1);
	ok(!err, "a first writer opens DIR (%d)", err);
	snprintf(pidline, sizeof(pidline), "%d\n", (int)getpid());
	ok(file_has(at("locked/" PREC_SEGDIR_LOCK_NAME), pidline), "the lock file holds our pid");
	err = prec_segdir__open(at("locked"), 0, &why, &d2);
	ok(err == -EBUSY && why.lock_pid == getpid() && !d2,
	   "a second open is -EBUSY naming pid %d (%d)", (int)why.lock_pid, err);
	ok(prec_segdir__write_pid(d1) == 0, "write_pid");
	prec_segdir__free(d1);
	err = prec_segdir__open(at("locked"), 0, &why, &d2);
	ok(!err, "after free the lock is free (%d)", err);
	prec_segdir__free(d2);

	/* Held by another process, which then dies. */
	child = writer_child("locked", false);
	err = prec_segdir__open(at("locked"), 0, &why, &d2);
	ok(child > 0 && err == -EBUSY && why.lock_pid == child,
	   "held by another process: -EBUSY naming its pid %d (%d)", (int)why.lock_pid, err);
	err = prec_segdir__open_read(at("locked"), &d2);
	ok(!err && prec_segdir__writer_active(d2) == 1, "a reader sees the writer active (%d)",
	   err ? err : prec_segdir__writer_active(d2));
	ok(kill_child(child), "which is killed");
	ok(prec_segdir__writer_active(d2) == 0, "and, once it is killed, no writer (%d)",
	   prec_segdir__writer_active(d2));
	prec_segdir__free(d2);
	err = prec_segdir__open(at("locked"), 0, &why, &d2);
	ok(!err, "the lock of a killed process is free: the reader's test kept none (%d)", err);
	prec_segdir__free(d2);
	err = prec_segdir__open_read(base, &d2);
	ok(!err && prec_segdir__writer_active(d2) == 0,
	   "a directory without a lock file has no "
	   "writer (%d)",
	   err ? err : prec_segdir__writer_active(d2));
	prec_segdir__free(d2);
}

static void test_segments(void)
{
	struct prec_segdir *d = NULL, *r = NULL;
	struct prec_segment seg, seg2, *segs = NULL;
	char name[PREC_SEGMENT_NAME_MAX];
	struct stat st;
	int fd = -1, fd2 = -1, err;
	size_t n;

	if (prec_segdir__open(at("segs"), PREC_SEGDIR_CREATE, NULL, &d))
		abort();
	ok(!strcmp(listing(d, &n), "") && n == 0, "a new DIR lists nothing");
	err = prec_segdir__create_segment(d, T0, &seg, &fd);
	ok(!err && fd >= 0 && seg.live && seg.seq == 1 &&
		   !strcmp(seg.name, "precord-20261126T031005.123Z-000001.data.partial"),
	   "the first segment is live, number 1: %s", seg.name);
	if (fstat(fd, &st))
		st.st_mode = 0;
	ok((st.st_mode & 07777) == 0600 && S_ISREG(st.st_mode),
	   "segments are 0600 (%o)", st.st_mode & 07777);
	ok(prec_segdir__live(d) && !strcmp(prec_segdir__live(d)->name, seg.name),
	   "it is the live one");
	ok(prec_segdir__create_segment(d, T0, &seg2, &fd2) == -EBUSY,
	   "a second live segment is -EBUSY");
	ok(write(fd, "hello", 5) == 5, "written");
	ok(!strcmp(listing(d, NULL), "1p"), "listed live: %s", listing(d, NULL));

	if (prec_segdir__open_read(at("segs"), &r))
		abort();
	ok(!prec_segdir__list(r, &segs, &n) && n == 1 && segs[0].live && segs[0].size == 5,
	   "a reader lists it with its size");
	err = prec_segdir__close_segment(d, fd, &seg2);
	close(fd);
	ok(!err && !seg2.live && !strcmp(seg2.name, "precord-20261126T031005.123Z-000001.data"),
	   "closed, renamed to %s", seg2.name);
	ok(!exists(at("segs/precord-20261126T031005.123Z-000001.data.partial")) &&
		   file_has(at("segs/precord-20261126T031005.123Z-000001.data"), "hello"),
	   "the live name is gone, the data is under the final name");
	ok(!prec_segdir__live(d), "no live segment");
	ok(prec_segdir__close_segment(d, -1, NULL) == -EINVAL, "closing with none live: -EINVAL");
	err = prec_segdir__open_segment(r, &segs[0], &fd);
	ok(!err && read(fd, name, 5) == 5 && !memcmp(name, "hello", 5),
	   "a reader opens a segment listed live and closed since (%d)", err);
	if (!err)
		close(fd);
	free(segs);
	ok(prec_segdir__create_segment(r, T0, &seg, &fd) == -EBADF,
	   "a reader cannot create segments");

	/* The wall clock went back: listing is by start time, then number. */
	closed_segment(d, T0 + 10 * NS, 1, 0);
	closed_segment(d, T0 - 10 * NS, 1, 0);
	closed_segment(d, T0 + 10 * NS, 1, 0);
	ok(!strcmp(listing(d, NULL), "3 1 2 4"), "listed by start, then number: %s",
	   listing(d, NULL));

	prec_segdir__free(r);
	prec_segdir__free(d);
}

/* Entries named like segments that are not regular files: never listed, followed or deleted. */
static void test_not_files(void)
{
	struct prec_retention all = {.max_files = 1, .max_bytes = 1, .max_age_ns = 1};
	struct prec_segdir *d = NULL;
	char name[PREC_SEGMENT_NAME_MAX];
	struct prec_segment seg;
	int fd = -1, err;

	if (prec_segdir__open(at("odd"), PREC_SEGDIR_CREATE, NULL, &d))
		abort();
	closed_segment(d, T0, 10, 0);
	write_file(in("odd", "notes.txt"), "notes");
	write_file(in("odd", "perf.data"), "perf");
	write_file(at("target"), "secret");
	prec_segment_format_name(T0 - NS, 7, false, name, sizeof(name));
	symlink("../target", in("odd", name));
	prec_segment_format_name(T0 - NS, 8, true, name, sizeof(name));
	symlink("../target", in("odd", name));
	prec_segment_format_name(T0 - NS, 9, false, name, sizeof(name));
	mkdir(in("odd", name), 0700);
	prec_segment_format_name(T0 - NS, 10, false, name, sizeof(name));
	mkfifo(in("odd", name), 0600);
	ok(!strcmp(listing(d, NULL), "1"), "symlinks, a .partial symlink, a directory, a FIFO and "
					    "other names are not listed: %s",
	   listing(d, NULL));
	prec_segdir__free(d);

	/* Reopened: the .partial symlink is not "recovered" and its target is untouched. */
	err = prec_segdir__open(at("odd"), 0, NULL, &d);
	prec_segment_format_name(T0 - NS, 8, true, name, sizeof(name));
	ok(!err && exists(in("odd", name)) && file_has(at("target"), "secret"),
	   "a .partial symlink is left alone at open (%d)", err);

	/* The next live name is planted as a symlink: created with O_EXCL, never through it. */
	prec_segment_format_name(T0, 2, true, name, sizeof(name));
	symlink("../target", in("odd", name));
	err = prec_segdir__create_segment(d, T0, &seg, &fd);
	ok(!err && seg.seq == 3 && file_has(at("target"), "secret"),
	   "a symlink on the next name is skipped, not followed: number %" PRIu64 " (%d)", seg.seq,
	   err);
	ok(write(fd, "live", 4) == 4 && file_has(in("odd", seg.name), "live"),
	   "the live segment is a file of its own");

	err = prec_segdir__prune(d, &all, UINT64_MAX, NULL, NULL);
	ok(err == 1 && file_has(at("target"), "secret") && exists(in("odd", name)) &&
		   file_has(in("odd", "notes.txt"), "notes") &&
		   file_has(in("odd", "perf.data"), "perf") &&
		   file_has(in("odd", seg.name), "live"),
	   "pruning everything deletes the one closed segment only (%d)", err);
	ok(!strcmp(listing(d, NULL), "3p"), "left: the live one: %s", listing(d, NULL));
	close(fd);
	prec_segdir__free(d);
}

/* A writer killed while a segment is live; the next open closes it, without overwriting. */
static void test_recovery(void)
{
	struct prec_segdir *d = NULL;
	char name[PREC_SEGMENT_NAME_MAX], final[PREC_SEGMENT_NAME_MAX];
	struct prec_segment seg;
	int fd = -1, err;

	ok(kill_child(writer_child("crash", true)), "a writer killed with a live segment");
	prec_segment_format_name(T0 + NS, 2, true, name, sizeof(name));
	prec_segment_format_name(T0 + NS, 2, false, final, sizeof(final));
	ok(exists(in("crash", name)), "it left %s", name);

	warnings[0] = '\0';
	err = prec_segdir__open(at("crash"), 0, NULL, &d);
	ok(!err && !exists(in("crash", name)) && file_has(in("crash", final), "cut short"),
	   "the next open closed it, data intact (%d)", err);
	ok(strstr(warnings, final) && strstr(warnings, "earlier run"), "and said so: %s",
	   warnings);
	ok(!strcmp(listing(d, NULL), "1 2"), "both listed closed: %s", listing(d, NULL));
	err = prec_segdir__create_segment(d, T0 + 2 * NS, &seg, &fd);
	ok(!err && seg.seq == 3, "numbering goes on at 3 (%" PRIu64 ")", seg.seq);
	/* Left live and empty by free (a crash of this writer before its first write): the
	 * next open removes it. */
	prec_segdir__free(d);
	close(fd);
	prec_segment_format_name(T0 + 2 * NS, 3, true, name, sizeof(name));
	warnings[0] = '\0';
	err = prec_segdir__open(at("crash"), 0, NULL, &d);
	ok(!err && !exists(in("crash", name)) && strstr(warnings, name) &&
		   strstr(warnings, "left empty"),
	   "an empty live segment is removed at the next open, and said so (%d): %s", err,
	   warnings);
	ok(!strcmp(listing(d, NULL), "1 2"), "listed: %s", listing(d, NULL));
	prec_segdir__free(d);

	/* A live one whose final name exists: neither is overwritten or deleted. */
	prec_segment_format_name(T0 + 3 * NS, 40, false, final, sizeof(final));
	prec_segment_format_name(T0 + 3 * NS, 40, true, name, sizeof(name));
	write_file(in("crash", final), "closed");
	write_file(in("crash", name), "live");
	warnings[0] = '\0';
	err = prec_segdir__open(at("crash"), 0, NULL, &d);
	ok(!err && file_has(in("crash", final), "closed") && file_has(in("crash", name), "live"),
	   "a live segment whose final name is taken stays as it is (%d)", err);
	ok(strstr(warnings, name) && strstr(warnings, "cannot be closed"), "and said so: %s",
	   warnings);
	ok(!strcmp(listing(d, NULL), "1 2 40 40p"), "listed: %s", listing(d, NULL));
	err = prec_segdir__create_segment(d, T0 + 4 * NS, &seg, &fd);
	ok(!err && seg.seq == 41, "numbering goes on after the highest number, 41 (%" PRIu64 ")",
	   seg.seq);
	ok(!prec_segdir__close_segment(d, fd, NULL), "closed");
	close(fd);
	prec_segdir__free(d);

	err = prec_segdir__open(at("crash"), 0, NULL, &d);
	ok(!err && !strcmp(listing(d, NULL), "1 2 40 40p 41"),
	   "reopened: nothing renamed that was closed: %s", listing(d, NULL));
	prec_segdir__free(d);
}

/* Numbers go on in a directory emptied between runs, kept in precord.seq; garbage there is
 * ignored with a warning. */
static void test_seq_state(void)
{
	static const char *const garbage[] = {"junk\n", "-5\n", "99999999999999999999\n", "",
					      "12 \n"};
	struct prec_segdir *d = NULL;
	struct prec_segment seg;
	struct stat st;
	int fd = -1, err;

	err = prec_segdir__open(at("seq"), PREC_SEGDIR_CREATE, NULL, &d);
	for (int i = 0; i < 3 && !err; i++) {
		seg = closed_segment(d, T0 + (uint64_t)i * NS, 10, T0 + (uint64_t)i * NS);
		unlink(in("seq", seg.name)); /* as retention would */
	}
	prec_segdir__free(d);
	ok(!err && file_has(in("seq", PREC_SEGDIR_SEQ_NAME), "3\n") &&
	       !stat(in("seq", PREC_SEGDIR_SEQ_NAME), &st) && (st.st_mode & 0777) == 0600,
	   "precord.seq holds the last number, 3, mode 0600 (%d)", err);
	warnings[0] = '\0';
	err = prec_segdir__open(at("seq"), 0, NULL, &d);
	ok(!err && !strcmp(listing(d, NULL), ""), "reopened empty (%d)", err);
	err = prec_segdir__create_segment(d, T0 + 9 * NS, &seg, &fd);
	ok(!err && seg.seq == 4 && !warnings[0],
	   "an emptied directory numbers on at 4 (%" PRIu64 "), quietly: %s", seg.seq, warnings);
	ok(!prec_segdir__close_segment(d, fd, NULL), "closed");
	close(fd);
	prec_segdir__free(d);

	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		write_file(in("seq", PREC_SEGDIR_SEQ_NAME), garbage[i]);
		warnings[0] = '\0';
		err = prec_segdir__open(at("seq"), 0, NULL, &d);
		ok(!err && strstr(warnings, PREC_SEGDIR_SEQ_NAME) && strstr(warnings, "ignored"),
		   "garbage %zu in precord.seq is ignored with a warning (%d): %s", i, err,
		   warnings);
		err = err ? err : prec_segdir__create_segment(d, T0 + 10 * NS, &seg, &fd);
		ok(!err && seg.seq == 5 + i,
		   "and numbering goes on after the segments found, at %zu (%" PRIu64 ")", 5 + i,
		   seg.seq);
		if (!err) {
			prec_segdir__close_segment(d, fd, NULL);
			close(fd);
		}
		prec_segdir__free(d);
	}
	/* a symbolic link named precord.seq is not followed, for reading or writing */
	unlink(in("seq", PREC_SEGDIR_SEQ_NAME));
	write_file(at("seq-target"), "1000\n");
	if (symlink(at("seq-target"), in("seq", PREC_SEGDIR_SEQ_NAME)))
		abort();
	warnings[0] = '\0';
	err = prec_segdir__open(at("seq"), 0, NULL, &d);
	err = err ? err : prec_segdir__create_segment(d, T0 + 11 * NS, &seg, &fd);
	ok(!err && seg.seq == 10 && file_has(at("seq-target"), "1000\n") &&
	       file_has(in("seq", PREC_SEGDIR_SEQ_NAME), "10\n"),
	   "a symbolic link there is neither followed nor written through (%d, %" PRIu64 "): %s",
	   err, seg.seq, warnings);
	if (!err) {
		prec_segdir__close_segment(d, fd, NULL);
		close(fd);
	}
	prec_segdir__free(d);
}

struct pruned {
	char names[1024];
	uint64_t bytes;
	int count;
	int why[4];
};

static void on_pruned(const struct prec_segment *seg, enum prec_prune_reason why, void *ctx)
{
	struct pruned *p = ctx;
	size_t used = strlen(p->names);

	snprintf(p->names + used, sizeof(p->names) - used, "%s%" PRIu64, used ? " " : "",
		 seg->seq);
	p->bytes += seg->size;
	p->count++;
	p->why[why]++;
}

/*
 * A fresh directory `dir` with closed segments 1..n, of `size` bytes each, started a minute
 * apart from `start` and last written at their start plus 50 s; then a live one of `size`.
 */
static struct prec_segdir *filled(const char *dir, int n, size_t size, uint64_t start, int *ret_fd)
{
	struct prec_segdir *d = NULL;
	struct prec_segment seg;

	if (prec_segdir__open(at(dir), PREC_SEGDIR_CREATE, NULL, &d))
		abort();
	for (int i = 0; i < n; i++)
		closed_segment(d, start + (uint64_t)i * 60 * NS, size,
			       start + (uint64_t)i * 60 * NS + 50 * NS);
	if (prec_segdir__create_segment(d, start + (uint64_t)n * 60 * NS, &seg, ret_fd))
		abort();
	for (size_t i = 0; i < size; i++)
		if (write(*ret_fd, "x", 1) != 1)
			abort();
	return d;
}

static void test_end(void)
{
	struct prec_segment segs[3] = {
		{ .start_ns = 100, .mtime_ns = 150 },
		{ .start_ns = 200, .mtime_ns = 50 },
		{ .start_ns = 300, .mtime_ns = 10 },
	};

	is_u64(prec_segment_end_ns(segs, 3, 0), 150, "a segment ends at its mtime");
	is_u64(prec_segment_end_ns(segs, 3, 1), 300,
	       "or, if that is before its start, the next start");
	is_u64(prec_segment_end_ns(segs, 3, 2), 300, "or, for the last one, its own start");
}

static void test_retention(void)
{
	const uint64_t now = T0 + 3600 * NS;
	struct prec_retention lim;
	struct prec_segdir *d, *r;
	struct pruned p;
	int fd, err;

	/* Count: closed segments only, as perf's --switch-max-files. */
	d = filled("count", 5, 100, T0, &fd);
	lim = (struct prec_retention){ .max_files = 2 };
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 3 && !strcmp(p.names, "1 2 3") && p.bytes == 300 && p.why[PREC_PRUNE_FILES] == 3,
	   "max_files 2: the 3 oldest go, told by name and bytes: %s, %" PRIu64 " (%d)", p.names,
	   p.bytes, err);
	ok(!strcmp(listing(d, NULL), "4 5 6p"), "left: %s", listing(d, NULL));
	ok(prec_segdir__prune(d, &lim, now, on_pruned, &p) == 0, "a second prune deletes nothing");
	close(fd);
	prec_segdir__free(d);

	/* Bytes: the live one counts. */
	d = filled("bytes", 5, 1000, T0, &fd);
	lim = (struct prec_retention){ .max_bytes = 3500 };
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 3 && !strcmp(p.names, "1 2 3") && p.why[PREC_PRUNE_BYTES] == 3,
	   "max_bytes 3500 of 6000 (the live one's 1000 with them): 3 go: %s (%d)", p.names, err);
	ok(prec_segdir__unmet(d) == 0, "the limit is met (%#x)", prec_segdir__unmet(d));
	lim.max_bytes = 1;
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 1 && !strcmp(listing(d, NULL), "5 6p"),
	   "max_bytes 1: the closed ones go but the newest, the live one stays: %s (%d)",
	   listing(d, NULL), err);
	ok(prec_segdir__unmet(d) == 1u << PREC_PRUNE_BYTES,
	   "and the limit is told unmet, for the caller's warning (%#x)", prec_segdir__unmet(d));
	/* The run stops: its last segment, now the newest closed one, stays. */
	ok(!prec_segdir__close_segment(d, fd, NULL), "the live one is closed");
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 1 && !strcmp(listing(d, NULL), "6"),
	   "max_bytes 1 after the stop: the run's last segment stays: %s (%d)", listing(d, NULL),
	   err);
	/* Another limit still takes the newest closed one. */
	lim = (struct prec_retention){.max_bytes = 1, .max_age_ns = 1};
	err = prec_segdir__prune(d, &lim, T0 + 100 * 3600 * NS, on_pruned, &p);
	ok(err == 1 && !strcmp(listing(d, NULL), "") && prec_segdir__unmet(d) == 0,
	   "max_age long past takes it (%d, %#x)", err, prec_segdir__unmet(d));
	close(fd);
	prec_segdir__free(d);

	/* Age: by the end (mtime); segment i ended at T0 + 60 i + 50 s. */
	d = filled("age", 5, 10, T0, &fd);
	lim = (struct prec_retention){ .max_age_ns = 3600 * NS - 170 * NS };
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 2 && !strcmp(p.names, "1 2") && p.why[PREC_PRUNE_AGE] == 2,
	   "max_age 58m10s at T0+1h: the 2 that ended before T0+1m50s go: %s (%d)", p.names, err);
	lim.max_age_ns = 1;
	err = prec_segdir__prune(d, &lim, T0 + 100 * 3600 * NS, NULL, NULL);
	ok(err == 3 && !strcmp(listing(d, NULL), "6p"),
	   "max_age long past: every closed one goes, the live one stays: %s (%d)",
	   listing(d, NULL), err);
	close(fd);
	prec_segdir__free(d);

	/* All together: each limit takes its share, oldest first. */
	d = filled("together", 8, 100, T0, &fd);
	lim = (struct prec_retention){
		.max_files = 6,		 /* 1 2 */
		.max_bytes = 600,	 /* then 3 (8 closed + live = 900 bytes) */
		.max_age_ns = 3330 * NS, /* then 4 (ended at T0+230 s) */
	};
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune(d, &lim, now, on_pruned, &p);
	ok(err == 4 && !strcmp(p.names, "1 2 3 4") && p.why[PREC_PRUNE_FILES] == 2 &&
		   p.why[PREC_PRUNE_BYTES] == 1 && p.why[PREC_PRUNE_AGE] == 1,
	   "count, bytes and age together: %s go, for %d %d %d (%d)", p.names,
	   p.why[PREC_PRUNE_FILES], p.why[PREC_PRUNE_BYTES], p.why[PREC_PRUNE_AGE], err);
	ok(!strcmp(listing(d, NULL), "5 6 7 8 9p"), "left: %s", listing(d, NULL));

	/* Without limits nothing goes; a reader may not prune. */
	lim = (struct prec_retention){ 0 };
	ok(prec_segdir__prune(d, &lim, now, NULL, NULL) == 0, "no limits: nothing deleted");
	ok(prec_segdir__prune_for_space(d, &lim, now, NULL, NULL) == 0,
	   "disk full without --min-free: nothing deleted, the writer must stop");
	/* Disk full (or a quota) with --min-free set and met: the oldest goes anyway. */
	lim.min_free.bytes = 1;
	memset(&p, 0, sizeof(p));
	err = prec_segdir__prune_for_space(d, &lim, now, on_pruned, &p);
	ok(err == 1 && !strcmp(p.names, "5") && p.why[PREC_PRUNE_FREE] == 1,
	   "disk full with --min-free set: the oldest goes, for free space: %s (%d)", p.names, err);
	ok(prec_segdir__prune(d, &lim, now, NULL, NULL) == 0,
	   "a plain prune with that --min-free met deletes nothing");
	lim.min_free.bytes = 0;
	if (prec_segdir__open_read(at("together"), &r))
		abort();
	lim.max_files = 1;
	ok(prec_segdir__prune(r, &lim, now, NULL, NULL) == -EBADF, "a reader cannot prune");
	prec_segdir__free(r);
	close(fd);
	prec_segdir__free(d);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path) ? -1 : 0;
}

/* The end marker's times: read from a file's last 32 bytes, and nothing from other ends. */
static void test_sample_times(void)
{
	uint64_t marker[4] = { PREC_REC_HEADER_FEATURE | (32ull << 48), PREC_FEAT_SAMPLE_TIME,
			       1000, 5000 };
	uint64_t first = 0, last = 0;
	const char *path = at("marker.data");
	int err;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (!ok(fd >= 0, "a file for the end marker"))
		return;
	ok(prec_segment_sample_times(fd, &first, &last) == -ENODATA, "an empty file: no times");
	ok(write(fd, "some records before it..", 24) == 24 &&
	   write(fd, marker, sizeof(marker)) == (ssize_t)sizeof(marker), "a file ends with it");
	err = prec_segment_sample_times(fd, &first, &last);
	ok(!err && first == 1000 && last == 5000, "its times are read: %d, %" PRIu64 " to %" PRIu64,
	   err, first, last);
	ok(pwrite(fd, "x", 1, 24 + 8) == 1 &&
	   prec_segment_sample_times(fd, &first, &last) == -ENODATA,
	   "another feature at the end: no times");
	close(fd);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	prec_log_set_fn(keep_log, NULL);
	snprintf(base, sizeof(base), "%s/precord-test-segdir-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		diag("mkdtemp %s: %s", base, strerror(errno));
		return 1;
	}
	test_names();
	test_refusals();
	test_lock();
	test_segments();
	test_not_files();
	test_recovery();
	test_seq_state();
	test_end();
	test_retention();
	test_sample_times();
	if (!tap_failed)
		nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	else
		diag("left %s for a look", base);
	return done_testing();
}
