/* SPDX-License-Identifier: MIT */
/*
 * lib/data/prec_segdir on a full file system: --min-free as a size and as a percentage, and a
 * disk that fills while a segment is live, on a 1 MiB tmpfs of our own.  The tmpfs is mounted
 * in a mount namespace of this process, so it goes away with the process however the test
 * ends.  Without the right to do that (not root, a container without CAP_SYS_ADMIN) the test
 * is skipped (77) with the reason.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "prec_segdir.h"
#include "tap.h"

#define NS 1000000000ULL
#define T0 (1795662605123ULL * 1000000) /* 2026-11-26 03:10:05.123 UTC */
#define SEG_BYTES (100 * 1024)

static char base[256];
static char dirpath[300];

static int write_all(int fd, size_t bytes)
{
	static char zeros[4096];

	for (size_t done = 0; done < bytes;) {
		size_t n = bytes - done < sizeof(zeros) ? bytes - done : sizeof(zeros);
		ssize_t w = write(fd, zeros, n);

		if (w < 0)
			return -errno;
		done += (size_t)w;
	}
	return 0;
}

static uint64_t avail_bytes(struct prec_segdir *d, uint64_t *ret_total)
{
	struct statvfs vfs;

	if (fstatvfs(prec_segdir__fd(d), &vfs))
		abort();
	if (ret_total)
		*ret_total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

/* A fresh directory with `n` closed segments of SEG_BYTES and an empty live one. */
static struct prec_segdir *filled(const char *name, int n, int *ret_fd)
{
	struct prec_segdir *d = NULL;
	struct prec_segment seg;

	snprintf(dirpath, sizeof(dirpath), "%s/%s", base, name);
	if (prec_segdir__open(dirpath, PREC_SEGDIR_CREATE, NULL, &d))
		abort();
	for (int i = 0; i < n; i++) {
		int fd;

		if (prec_segdir__create_segment(d, T0 + (uint64_t)i * NS, &seg, &fd) ||
		    write_all(fd, SEG_BYTES) || prec_segdir__close_segment(d, fd, NULL))
			abort();
		close(fd);
	}
	if (prec_segdir__create_segment(d, T0 + (uint64_t)n * NS, &seg, ret_fd))
		abort();
	return d;
}

static void remove_dir(struct prec_segdir *d, int live_fd)
{
	struct prec_segment *segs = NULL;
	size_t n = 0;

	close(live_fd);
	prec_segdir__list(d, &segs, &n);
	for (size_t i = 0; i < n; i++)
		unlinkat(prec_segdir__fd(d), segs[i].name, 0);
	free(segs);
	unlinkat(prec_segdir__fd(d), PREC_SEGDIR_LOCK_NAME, 0);
	prec_segdir__free(d);
	rmdir(dirpath);
}

static void count_pruned(const struct prec_segment *seg, enum prec_prune_reason why, void *ctx)
{
	int *free_count = ctx;

	*free_count += why == PREC_PRUNE_FREE;
}

static void test_min_free(void)
{
	struct prec_segment *segs = NULL;
	struct prec_retention lim = { 0 };
	struct prec_segdir *d;
	uint64_t avail, total;
	size_t n;
	int fd, err, whys = 0;

	/* A size: 250 KiB more than is free now takes three 100 KiB segments. */
	d = filled("size", 6, &fd);
	avail = avail_bytes(d, NULL);
	lim.min_free.bytes = avail + 250 * 1024;
	err = prec_segdir__prune(d, &lim, T0, count_pruned, &whys);
	ok(err == 3 && whys == 3, "--min-free=free+250K: 3 of 100K go (%d, %d for free space)", err,
	   whys);
	ok(avail_bytes(d, NULL) >= lim.min_free.bytes,
	   "and the space is free: %" PRIu64 " >= %" PRIu64, avail_bytes(d, NULL),
	   lim.min_free.bytes);
	ok(prec_segdir__prune(d, &lim, T0, NULL, NULL) == 0, "then nothing more goes");
	remove_dir(d, fd);

	/* A percentage of the file system: free + 150 KiB takes two. */
	d = filled("pct", 6, &fd);
	avail = avail_bytes(d, &total);
	lim.min_free.bytes = 0;
	lim.min_free.pct_bp = (uint32_t)(((avail + 150 * 1024) * 10000 + total - 1) / total);
	err = prec_segdir__prune(d, &lim, T0, NULL, NULL);
	ok(err == 2, "--min-free=%u.%02u%% of %" PRIu64 " KiB with %" PRIu64 " KiB free: 2 go (%d)",
	   lim.min_free.pct_bp / 100, lim.min_free.pct_bp % 100, total / 1024, avail / 1024, err);

	/* More than the whole file system can give: every closed one goes, never the live one. */
	lim.min_free.pct_bp = 9999;
	err = prec_segdir__prune(d, &lim, T0, NULL, NULL);
	if (prec_segdir__list(d, &segs, &n))
		n = 0;
	ok(err == 4 && n == 1 && segs[0].live,
	   "--min-free=99.99%%: the other 4 go, the live one stays (%d, %zu left)", err, n);
	ok(prec_segdir__unmet(d) == 1u << PREC_PRUNE_FREE,
	   "and the limit is told unmet, for the caller's warning (%#x)", prec_segdir__unmet(d));
	lim.min_free.pct_bp = 1;
	err = prec_segdir__prune(d, &lim, T0, NULL, NULL);
	ok(err == 0 && prec_segdir__unmet(d) == 0, "a --min-free that holds is met (%d, %#x)", err,
	   prec_segdir__unmet(d));
	free(segs);
	remove_dir(d, fd);
}

static void test_disk_full(void)
{
	struct prec_retention none = { 0 }, lim = { .min_free.bytes = 1 };
	struct prec_segment *segs = NULL;
	struct prec_segdir *d;
	int fd, err, rounds = 0;
	size_t n = 0;

	d = filled("full", 3, &fd);
	err = write_all(fd, 2 << 20);
	ok(err == -ENOSPC, "the live segment fills the disk (%d)", err);
	err = prec_segdir__prune_for_space(d, &none, T0, NULL, NULL);
	ok(err == 0, "disk full, no --min-free: nothing deleted, the writer stops (%d)", err);
	err = prec_segdir__prune_for_space(d, &lim, T0, NULL, NULL);
	ok(err == 1, "disk full, --min-free set: the oldest goes (%d)", err);
	err = write_all(fd, 64 * 1024);
	ok(!err, "and the live segment is written again (%d)", err);

	/* Write and prune until only the live segment is left. */
	while (rounds < 10 && write_all(fd, 2 << 20) == -ENOSPC &&
	       prec_segdir__prune_for_space(d, &lim, T0, NULL, NULL) > 0)
		rounds++;
	if (prec_segdir__list(d, &segs, &n))
		n = 0;
	ok(rounds == 2 && n == 1 && segs[0].live,
	   "two more rounds leave the live one alone (%d rounds, %zu left)", rounds, n);
	free(segs);
	remove_dir(d, fd);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	if (unshare(CLONE_NEWNS))
		return skip_all("unshare(CLONE_NEWNS) refused: mounting a test tmpfs needs root");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return skip_all("cannot make our mounts private: no test tmpfs");
	snprintf(base, sizeof(base), "%s/precord-test-space-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		diag("mkdtemp %s: %s", base, strerror(errno));
		return 1;
	}
	if (mount("precord-test", base, "tmpfs", MS_NOSUID | MS_NODEV, "size=1M,mode=0700")) {
		diag("mount -t tmpfs %s: %s", base, strerror(errno));
		rmdir(base);
		return skip_all("cannot mount a 1 MiB tmpfs");
	}
	test_min_free();
	test_disk_full();
	umount(base);
	rmdir(base);
	return done_testing();
}
