/* SPDX-License-Identifier: MIT */
/*
 * precord daemon: a recording session writing a directory of segments.
 *
 * One loop waits on the rings, the signalfd and the control socket (all through one epoll
 * fd handed to the session as its wake fd).  ctl_server.c answers the socket's clients, with
 * the status this file writes, and hands rotate and stop back to the loop.  A segment ends
 * when its time or size is up, on SIGUSR2 or `precord ctl rotate`, and at the stop: the
 * session drains into it and ends its stream, the directory closes it (fsync, rename from
 * .partial), the next one begins, and retention runs over the whole directory.  The rings
 * never stop, so nothing falls between two segments.
 *
 * A full disk (ENOSPC, EDQUOT): retention frees what it may and the daemon goes on in a new
 * segment; if nothing may go, the segment is closed and the daemon keeps draining (counting
 * what it cannot write) and tries a new segment every RETRY_MS, saying so once each way.
 *
 * Retention never deletes the newest closed segment for --max-disk, and a segment switches
 * once it holds a quarter of --max-disk (MAX_DISK_SHARE) whatever --switch-output says: a
 * stopped run always leaves its last segment.  A limit that deletions cannot meet (that one
 * segment over --max-disk, a --min-free with nothing left to delete) is said once each time
 * it begins to hold, in the log and in the status.
 *
 * --min-free guards the file system while a segment grows, not only at a switch: the free space
 * is looked at after each flush and every FREE_CHECK_BYTES written, and below the limit the
 * segment switches (retention then deletes the oldest); if nothing is left to delete, writing
 * stops as on a full disk, until a retry finds the limit and RESUME_FREE more free.  A segment
 * also switches at a quarter (MAX_DISK_SHARE) of the room --min-free leaves for segments (the
 * free space above the limit and the closed segments together, as of its start): what such a
 * switch deletes is then an older segment, not the one just ended.
 *
 * DIR removed while the daemon runs (its fd then has no link left) is looked for at each
 * flush: nothing written could ever be read, and a new daemon could start on a new DIR of the
 * same name beside this one, so the daemon says so and exits 1 (systemd starts it again).
 *
 * Memory does not grow with uptime: the session's task table holds the live processes only
 * (an exited one goes once its last samples are drained), the build-id cache is capped, and
 * a status is one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "prec_log.h"
#include "prec_tasks.h"
#include "precord.h"
#include "service.h"

#define RETRY_MS 10000 /* after a full disk, try a new segment this often */
#define RESUME_FREE (1u << 20) /* and only with this much free: less fills at the first flush */
#define MAX_DISK_SHARE 4 /* a segment switches at 1/4 of --max-disk at most */
#define FREE_CHECK_BYTES (256u << 10) /* --min-free: statvfs this often, and at flushes */

/* What the last error or warning (status) is about, so that its end can be marked. */
enum note_kind { NOTE_OTHER, NOTE_STOPPED, NOTE_OVER_DISK, NOTE_NO_FREE };

struct daemon {
	const struct rec_opts *o;
	struct prec_session *s;
	struct prec_segdir *dir;
	int sig_fd, ctl_fd, ep_fd;

	/* the live segment */
	int seg_fd;
	struct prec_segment seg;
	uint64_t seg_start_ms;

	uint64_t started_ms;
	uint64_t samples_written; /* in closed segments */
	uint64_t segments_closed;
	bool stopping, switch_asked;
	bool dir_removed; /* DIR was unlinked under us: stop, status 1 */
	bool disk_full; /* writing stopped until space returns (or the write error passes) */
	int stop_err; /* the write error that stopped writing: a full disk or another */
	bool resumed; /* a segment begun after a full disk, its first flush not written yet */
	uint64_t disk_full_since_ms, dropped_at_full, next_retry_ms;
	uint64_t switch_bytes; /* --switch-output's size, lowered to fit --max-disk; 0: none */
	uint64_t seg_switch_bytes; /* this segment's: switch_bytes, lowered to fit --min-free */
	uint64_t free_checked_bytes; /* the live segment's size at the last --min-free check */
	bool min_free_stop; /* writing stopped because --min-free cannot be met */
	bool min_free_said; /* the live segment was once ended early for --min-free */
	unsigned unmet_said;   /* retention limits said to be unmet, 1u << prec_prune_reason */
	enum note_kind last_kind;
	char last_error[1024]; /* a message may name a long DIR */
};

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A size as an option takes it (256K, 5G) when it is a whole number of such units. */
static const char *fmt_size(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && n && n % 1024 == 0) {
		n /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64 "B", n);
	else
		snprintf(buf, len, "%" PRIu64 "%c", n, units[u]);
	return buf;
}

/* A duration as an option takes it (30s, 10m, 7d), in its largest whole unit. */
static const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"d", 86400000000000ULL}, {"h", 3600000000000ULL}, {"m", 60000000000ULL},
		     {"s", 1000000000ULL},     {"ms", 1000000ULL},	{"us", 1000ULL}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns && ns % units[i].ns == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].name);
			return buf;
		}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

static void note(struct daemon *d, int priority, enum note_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Log an error or a warning once and keep it for `precord ctl status`. */
static void note(struct daemon *d, int priority, enum note_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->last_error, sizeof(d->last_error), fmt, ap);
	va_end(ap);
	d->last_kind = kind;
	service_log(priority, "%s", d->last_error);
}

#define note_error(d, ...) note(d, LOG_ERR, NOTE_OTHER, __VA_ARGS__)

/* The condition of the kept error or warning has ended: the status says when, and keeps it. */
static void note_ended(struct daemon *d, enum note_kind kind)
{
	size_t n = strlen(d->last_error);
	time_t t = time(NULL);
	char when[16];
	struct tm tm;

	if (!n || d->last_kind != kind || !localtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%H:%M:%S", &tm))
		return;
	snprintf(d->last_error + n, sizeof(d->last_error) - n, " (ended %s)", when);
	d->last_kind = NOTE_OTHER;
}

static void on_pruned(const struct prec_segment *seg, enum prec_prune_reason why, void *ctx)
{
	static const char *const reasons[] = {
		[PREC_PRUNE_FILES] = "--switch-max-files",
		[PREC_PRUNE_BYTES] = "--max-disk",
		[PREC_PRUNE_AGE] = "--max-age",
		[PREC_PRUNE_FREE] = "free space",
	};
	(void)ctx;
	service_log(LOG_INFO, "deleted %s (%" PRIu64 " bytes) for %s", seg->name, seg->size,
		    reasons[why]);
}

static uint64_t dir_bytes(struct daemon *d, size_t *ret_n)
{
	struct prec_segment *segs = NULL;
	uint64_t bytes = 0;
	size_t n = 0;

	if (!prec_segdir__list(d->dir, &segs, &n))
		for (size_t i = 0; i < n; i++)
			bytes += segs[i].size;
	free(segs);
	if (ret_n)
		*ret_n = n;
	return bytes;
}

/*
 * The file system's space available to unprivileged users and what --min-free asks to keep
 * free there, in bytes.  Returns false without a --min-free or when statvfs fails.
 */
static bool free_space(struct daemon *d, uint64_t *ret_avail, uint64_t *ret_want)
{
	const struct prec_min_free *m = &d->o->retention.min_free;
	struct statvfs vfs;

	if ((!m->bytes && !m->pct_bp) || fstatvfs(prec_segdir__fd(d->dir), &vfs))
		return false;
	*ret_avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	*ret_want = prec_min_free__bytes(m, (uint64_t)vfs.f_blocks * vfs.f_frsize);
	return true;
}

/* A retention limit that deletions cannot meet is said when it begins, and its end marked. */
static void say_unmet(struct daemon *d)
{
	const struct prec_retention *r = &d->o->retention;
	unsigned now = prec_segdir__unmet(d->dir), begun = now & ~d->unmet_said;
	unsigned ended = d->unmet_said & ~now;
	char b1[32], b2[32];

	if (begun & (1u << PREC_PRUNE_BYTES))
		note(d, LOG_WARNING, NOTE_OVER_DISK,
		     "--max-disk %s cannot be met: %s holds %s with only the newest closed segment "
		     "and the live one, which retention keeps; raise --max-disk",
		     fmt_size(r->max_bytes, b1, sizeof(b1)), d->o->dir,
		     fmt_bytes(dir_bytes(d, NULL), b2, sizeof(b2)));
	if (begun & (1u << PREC_PRUNE_FREE)) {
		struct statvfs vfs;
		uint64_t avail = 0;

		if (!fstatvfs(prec_segdir__fd(d->dir), &vfs))
			avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		note(d, LOG_WARNING, NOTE_NO_FREE,
		     "--min-free cannot be met: no closed segment is left to delete in %s and its "
		     "file system has %s free%s; free space on it or lower --min-free",
		     d->o->dir, fmt_bytes(avail, b1, sizeof(b1)),
		     d->stopping ? "" : ": writing stops until space returns");
	}
	if (ended & (1u << PREC_PRUNE_BYTES))
		note_ended(d, NOTE_OVER_DISK);
	/* while writing stays stopped for it, the retry marks the end */
	if ((ended & (1u << PREC_PRUNE_FREE)) && !d->min_free_stop)
		note_ended(d, NOTE_NO_FREE);
	d->unmet_said = now;
}

static void prune(struct daemon *d)
{
	int n = prec_segdir__prune(d->dir, &d->o->retention, wall_ns(), on_pruned, NULL);

	if (n < 0)
		note_error(d, "cannot apply retention in %s: %s", d->o->dir, strerror(-n));
	else
		say_unmet(d);
}

static bool retention_set(const struct prec_retention *r)
{
	return r->max_files || r->max_bytes || r->max_age_ns || r->min_free.bytes ||
	       r->min_free.pct_bp;
}

static bool space_error(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

/* Take back a live segment that holds nothing worth keeping (at most its header). */
static void drop_segment(struct daemon *d)
{
	struct prec_segment closed;

	prec_session__end_output(d->s, NULL);
	if (!prec_segdir__close_segment(d->dir, d->seg_fd, &closed))
		unlinkat(prec_segdir__fd(d->dir), closed.name, 0);
	close(d->seg_fd);
	d->seg_fd = -1;
}

/*
 * The size at which the segment just begun switches: switch_bytes, lowered to a quarter of
 * the room --min-free leaves for segments (the free space above it and the closed segments,
 * which retention may delete, together).  Without room, the --min-free check ends it.
 */
static void set_segment_switch(struct daemon *d)
{
	uint64_t avail, want, room, cap;

	d->seg_switch_bytes = d->switch_bytes;
	d->free_checked_bytes = 0;
	if (!free_space(d, &avail, &want))
		return;
	room = avail + dir_bytes(d, NULL);
	if (room <= want)
		return;
	cap = (room - want) / MAX_DISK_SHARE;
	if (!d->seg_switch_bytes || cap < d->seg_switch_bytes)
		d->seg_switch_bytes = cap;
}

/*
 * Begin a new live segment.  Returns 0 or -errno; an error is said here (once) unless it is
 * a full disk, which the caller says.
 */
static int begin_segment(struct daemon *d)
{
	struct prec_tasks_stats ts;
	uint64_t t0;
	int err;

	err = prec_segdir__create_segment(d->dir, wall_ns(), &d->seg, &d->seg_fd);
	if (err) {
		if (!d->disk_full && !space_error(err))
			note_error(d, "cannot create a segment in %s: %s", d->o->dir,
				   strerror(-err));
		return err;
	}
	t0 = now_ms();
	err = prec_session__begin_output(d->s, d->seg_fd);
	if (err) {
		drop_segment(d); /* an empty segment has nothing to keep */
		if (!d->disk_full && !space_error(err))
			note_error(d, "cannot write a segment in %s: %s", d->o->dir,
				   strerror(-err));
		return err;
	}
	d->seg_start_ms = now_ms();
	set_segment_switch(d);
	if (d->o->verbose && !prec_session__task_stats(d->s, &ts))
		service_log(LOG_DEBUG, "segment %s began: its header and synthesized state took "
				       "%" PRIu64 " ms (task table: %" PRIu64 " processes, %" PRIu64
				       " threads, %" PRIu64 " maps, %" PRIu64 " read again)",
			    d->seg.name, d->seg_start_ms - t0, ts.processes, ts.threads, ts.maps,
			    ts.resyncs);
	else if (d->o->verbose)
		service_log(LOG_DEBUG, "segment %s began: its header and synthesized state took "
				       "%" PRIu64 " ms", d->seg.name, d->seg_start_ms - t0);
	return 0;
}

/* End the live segment: its stream, then its name.  Returns its write error, or 0. */
static int end_segment(struct daemon *d)
{
	struct prec_session_stats st;
	int werr, err;

	if (d->seg_fd < 0)
		return 0;
	werr = prec_session__end_output(d->s, &st);
	d->samples_written += st.kept_samples;
	err = prec_segdir__close_segment(d->dir, d->seg_fd, NULL);
	if (err)
		note_error(d, "cannot close segment %s: %s", d->seg.name, strerror(-err));
	else
		d->segments_closed++;
	close(d->seg_fd);
	d->seg_fd = -1;
	return werr;
}

/* Writing stops until a retry finds space: the samples drained meanwhile are counted. */
static void stop_writing(struct daemon *d, int err)
{
	struct prec_session_stats total;

	prec_session__total_stats(d->s, &total);
	d->disk_full = true;
	d->stop_err = err;
	d->disk_full_since_ms = now_ms();
	d->dropped_at_full = total.dropped_samples;
	d->next_retry_ms = now_ms() + RETRY_MS;
}

/*
 * A write failed.  The segment is ended either way (a writer that failed takes nothing more).
 * For a full disk retention may free space; if it frees nothing, writing stops until a retry
 * finds space.  A segment that could write no sample (only its header) is taken back; if a
 * retry began it, the disk is still full, which was said already.
 */
static void handle_write_error(struct daemon *d, int err)
{
	struct prec_session_stats cur;
	int n = 0;

	if (d->seg_fd >= 0) { /* a switch may have ended it already */
		prec_session__output_stats(d->s, &cur);
		if (!cur.kept_samples)
			drop_segment(d); /* it holds its header at most: nothing to keep */
		else
			end_segment(d);
	}
	if (d->resumed) {
		d->resumed = false;
		d->disk_full = true;
		d->next_retry_ms = now_ms() + RETRY_MS;
		return;
	}
	if (space_error(err)) {
		n = prec_segdir__prune_for_space(d->dir, &d->o->retention, wall_ns(), on_pruned,
						 NULL);
		if (n >= 0)
			say_unmet(d);
	}
	if (n > 0 && !begin_segment(d))
		return;
	stop_writing(d, err);
	if (space_error(err))
		note(d, LOG_ERR, NOTE_STOPPED,
		     "%s is full (%s): writing stopped; nothing closed is lost, the "
		     "samples meanwhile are counted and writing resumes when space returns; free "
		     "space there%s",
		     d->o->dir, strerror(-err),
		     retention_set(&d->o->retention) ? "" : ", or restart the daemon with "
		     "--max-disk or --min-free so that old segments make room");
	else /* an I/O error, a file system gone read-only: the same retry may cure it */
		note(d, LOG_ERR, NOTE_STOPPED,
		     "cannot write segment %s in %s (%s): writing stopped; nothing "
		     "closed is lost, the samples meanwhile are counted and a new segment "
		     "is tried every %d s",
		     d->seg.name, d->o->dir, strerror(-err), RETRY_MS / 1000);
}

static void retry_after_full(struct daemon *d)
{
	uint64_t avail, want = 0;
	struct statvfs vfs;

	if (!d->disk_full || now_ms() < d->next_retry_ms)
		return;
	d->next_retry_ms = now_ms() + RETRY_MS;
	prune(d);
	if (!free_space(d, &avail, &want)) /* no --min-free: only RESUME_FREE */
		avail = fstatvfs(prec_segdir__fd(d->dir), &vfs) ? UINT64_MAX /* writes will tell */
								 : (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail < want + RESUME_FREE)
		return;
	if (begin_segment(d))
		return;
	d->disk_full = false;
	d->resumed = true; /* said once its first flush is written */
	if (d->min_free_stop) {
		d->min_free_stop = false;
		note_ended(d, NOTE_NO_FREE);
	}
}

/* A segment begun after a full disk has written its first flush: writing goes on. */
static void confirm_resume(struct daemon *d)
{
	struct prec_session_stats total;

	if (!d->resumed || d->seg_fd < 0 || prec_session__write_error(d->s))
		return;
	d->resumed = false;
	prec_session__total_stats(d->s, &total);
	service_log(LOG_NOTICE, "writing again after %.0f s: %" PRIu64 " samples were not written",
		    (double)(now_ms() - d->disk_full_since_ms) / 1000.0,
		    total.dropped_samples - d->dropped_at_full);
	note_ended(d, NOTE_STOPPED);
}

static void switch_segment(struct daemon *d)
{
	int err;

	if (d->resumed)
		return; /* after its first flush: a failure before that is handled quietly */
	d->switch_asked = false;
	if (d->disk_full)
		return;
	err = end_segment(d);
	if (err) {
		/* its last flush failed: the same as a write error between switches */
		service_log(LOG_WARNING, "segment %s ended early: %s", d->seg.name, strerror(-err));
		handle_write_error(d, err);
		return;
	}
	prune(d);
	if (prec_segdir__unmet(d->dir) & (1u << PREC_PRUNE_FREE)) {
		/* --min-free with nothing left to delete (said by prune): do not fill the disk */
		d->min_free_stop = true;
		stop_writing(d, -ENOSPC);
		return;
	}
	err = begin_segment(d);
	if (err)
		handle_write_error(d, err);
}

/*
 * --min-free, after each flush and every FREE_CHECK_BYTES the live segment grows: below the
 * limit, the segment switches now (said once a run), and retention makes room.
 */
static void check_min_free(struct daemon *d, bool flushed)
{
	struct prec_session_stats cur;
	uint64_t avail, want;
	char b1[32], b2[32];

	if (d->seg_fd < 0 || d->switch_asked)
		return;
	prec_session__output_stats(d->s, &cur);
	if (!flushed && cur.written_bytes < d->free_checked_bytes + FREE_CHECK_BYTES)
		return;
	d->free_checked_bytes = cur.written_bytes;
	if (!free_space(d, &avail, &want) || avail >= want)
		return;
	d->switch_asked = true;
	if (d->min_free_said)
		return;
	d->min_free_said = true;
	note(d, LOG_WARNING, NOTE_OTHER,
	     "%s's file system has %s free, under --min-free's %s: segment %s ends early and "
	     "retention deletes the oldest segments (not said again)",
	     d->o->dir, fmt_bytes(avail, b1, sizeof(b1)), fmt_bytes(want, b2, sizeof(b2)),
	     d->seg.name);
}

/* ---- settings ---- */

/*
 * The size at which a segment switches: --switch-output's, lowered to a quarter of --max-disk,
 * so that the live segment and the newest closed one, which retention keeps, fit under it.
 * Said once at start when it lowers (or adds) a size.
 */
static void set_switch_size(struct daemon *d)
{
	const struct prec_switch_spec *sw = &d->o->switch_spec;
	uint64_t cap = d->o->retention.max_bytes / MAX_DISK_SHARE;
	char b1[32], b2[32], b3[32];

	d->switch_bytes = sw->size_bytes;
	if (!cap || (d->switch_bytes && d->switch_bytes <= cap))
		return;
	d->switch_bytes = cap;
	if (sw->size_bytes)
		service_log(LOG_NOTICE,
			    "segments switch at %s, a quarter of --max-disk %s, instead "
			    "of --switch-output's %s",
			    fmt_size(cap, b1, sizeof(b1)),
			    fmt_size(d->o->retention.max_bytes, b2, sizeof(b2)),
			    fmt_size(sw->size_bytes, b3, sizeof(b3)));
	else
		service_log(LOG_NOTICE, "segments also switch at %s, a quarter of --max-disk %s",
			    fmt_size(cap, b1, sizeof(b1)),
			    fmt_size(d->o->retention.max_bytes, b2, sizeof(b2)));
}

/* "switch: ...\nretention: ...\n" for the status. */
static void settings_text(const struct daemon *d, char *buf, size_t len)
{
	const struct prec_switch_spec *sw = &d->o->switch_spec;
	const struct prec_retention *r = &d->o->retention;
	char t[32], b[32], sws[96], ret[256] = "";
	size_t n = 0;

	if (r->max_files)
		n += (size_t)snprintf(ret + n, sizeof(ret) - n, ", --switch-max-files %" PRIu64,
				      r->max_files);
	if (r->max_bytes && n < sizeof(ret))
		n += (size_t)snprintf(ret + n, sizeof(ret) - n, ", --max-disk %s",
				      fmt_size(r->max_bytes, b, sizeof(b)));
	if (r->max_age_ns && n < sizeof(ret))
		n += (size_t)snprintf(ret + n, sizeof(ret) - n, ", --max-age %s",
				      fmt_duration(r->max_age_ns, t, sizeof(t)));
	if (r->min_free.pct_bp && n < sizeof(ret))
		n += (size_t)snprintf(ret + n, sizeof(ret) - n, ", --min-free %u.%02u%%",
				      r->min_free.pct_bp / 100, r->min_free.pct_bp % 100);
	else if (r->min_free.bytes && n < sizeof(ret))
		snprintf(ret + n, sizeof(ret) - n, ", --min-free %s",
			 fmt_size(r->min_free.bytes, b, sizeof(b)));
	if (sw->time_ms && d->switch_bytes)
		snprintf(sws, sizeof(sws), "after %s or at %s",
			 fmt_duration(sw->time_ms * 1000000, t, sizeof(t)),
			 fmt_size(d->switch_bytes, b, sizeof(b)));
	else if (sw->time_ms)
		snprintf(sws, sizeof(sws), "after %s",
			 fmt_duration(sw->time_ms * 1000000, t, sizeof(t)));
	else if (d->switch_bytes)
		snprintf(sws, sizeof(sws), "at %s", fmt_size(d->switch_bytes, b, sizeof(b)));
	else
		snprintf(sws, sizeof(sws), "on SIGUSR2 or precord ctl rotate only");
	snprintf(buf, len, "switch: %s%s\nretention: %s\n", sws,
		 d->switch_bytes != sw->size_bytes ? " (a quarter of --max-disk)" : "",
		 ret[0] ? ret + 2 : "none");
}

/* ---- status ---- */

static void self_usage(double *cpu_s, uint64_t *rss_kb)
{
	struct rusage ru;
	char line[256];
	FILE *f;

	*cpu_s = 0;
	*rss_kb = 0;
	if (!getrusage(RUSAGE_SELF, &ru))
		*cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
			 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
	f = fopen("/proc/self/status", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			*rss_kb = strtoull(line + 6, NULL, 10);
	fclose(f);
}

static void target_text(const struct daemon *d, char *buf, size_t len)
{
	const struct rec_opts *o = d->o;
	const struct prec_events *ev = prec_session__events(d->s);
	const char *name = prec_events__name(ev, 0);
	int n;

	if (o->all_cpus)
		n = snprintf(buf, len, "all CPUs%s%s", o->cpu_list ? " in " : "",
			     o->cpu_list ? o->cpu_list : "");
	else
		n = snprintf(buf, len, "%zu %s", o->nr_pids,
			     o->threads_only ? "threads" : "processes");
	if (n < 0 || (size_t)n >= len)
		return;
	if (o->period)
		snprintf(buf + n, len - (size_t)n, ", %s every %" PRIu64 " events",
			 name, o->period);
	else
		snprintf(buf + n, len - (size_t)n, ", %s at %" PRIu64 " Hz%s",
			 name, o->freq,
			 o->dwarf ? ", dwarf stacks" : o->callchain ? ", call chains" : "");
}

/* The status, one fact a line, into buf (a ctl_status_fn, ctx the daemon). */
static void status_text(void *ctx, char *buf, size_t len)
{
	struct daemon *d = ctx;
	struct prec_session_stats total, cur;
	uint64_t bytes, rss_kb, written;
	size_t nseg = 0;
	double cpu_s, pct;
	char target[256], b1[32], settings[512];

	prec_session__total_stats(d->s, &total);
	prec_session__output_stats(d->s, &cur);
	bytes = dir_bytes(d, &nseg);
	settings_text(d, settings, sizeof(settings));
	self_usage(&cpu_s, &rss_kb);
	target_text(d, target, sizeof(target));
	written = d->samples_written + (d->seg_fd >= 0 ? cur.kept_samples : 0);
	pct = total.ring.samples + total.lost_samples ?
		100.0 * (double)total.lost_samples /
			(double)(total.ring.samples + total.lost_samples) :
		0;
	snprintf(buf, len,
		 "pid: %d\n"
		 "uptime: %.0f s\n"
		 "target: %s\n"
		 "directory: %s\n"
		 "%s"
		 "segments: %zu\n"
		 "bytes on disk: %" PRIu64 " (%s)\n"
		 "samples written: %" PRIu64 "\n"
		 "samples not written: %" PRIu64 "\n"
		 "lost records: %" PRIu64 " (in %" PRIu64 " LOST records)\n"
		 "lost samples: %" PRIu64 " (%.2f%%)\n"
		 "throttle events: %" PRIu64 "\n"
		 "daemon cpu: %.2f s\n"
		 "daemon rss: %" PRIu64 " KiB\n"
		 "live segment: %s\n"
		 "last error: %s\n",
		 (int)getpid(), (double)(now_ms() - d->started_ms) / 1000.0, target, d->o->dir,
		 settings,
		 nseg, bytes, fmt_bytes(bytes, b1, sizeof(b1)), written, total.dropped_samples,
		 total.ring.lost, total.ring.lost_records, total.lost_samples, pct,
		 total.ring.throttles, cpu_s, rss_kb,
		 d->seg_fd >= 0 ? d->seg.name : !d->disk_full ? "none"
		 : d->min_free_stop ? "none (under --min-free)"
		 : space_error(d->stop_err) ? "none (disk full)" : "none (write error)",
		 d->last_error[0] ? d->last_error : "none");
}

static void update_service_status(struct daemon *d)
{
	struct prec_session_stats total;

	if (!service_notifying())
		return;
	prec_session__total_stats(d->s, &total);
	service_status("%s; %" PRIu64 " samples, %" PRIu64 " lost; segment %s",
		       !d->disk_full ? "recording" : d->min_free_stop ?
		       "under --min-free, not writing" : space_error(d->stop_err) ?
		       "disk full, not writing" : "write error, not writing", total.ring.samples,
		       total.lost_samples, d->seg_fd >= 0 ? d->seg.name : "none");
}

/* ---- control socket ---- */

/* One client of the control socket: ctl_server.c answers it, the loop acts on what it asked. */
static void serve_ctl(struct daemon *d)
{
	enum ctl_request req = ctl_server_serve(d->ctl_fd, status_text, d);

	if (req == CTL_ROTATE)
		d->switch_asked = true;
	else if (req == CTL_STOP)
		d->stopping = true;
}

/* ---- setup ---- */

static int open_dir(struct daemon *d)
{
	struct prec_segdir_refusal why = { 0 };
	int err = prec_segdir__open(d->o->dir, PREC_SEGDIR_CREATE, &why, &d->dir);

	switch (err) {
	case 0:
		return 0;
	case -EBUSY:
		if (why.lock_pid)
			fprintf(stderr, "precord: another precord daemon (pid %d) is using %s; "
					"stop it first (precord ctl --dir %s stop) or choose "
					"another --dir\n", (int)why.lock_pid, d->o->dir, d->o->dir);
		else
			fprintf(stderr, "precord: another precord daemon is using %s; stop it "
					"first or choose another --dir\n", d->o->dir);
		break;
	case -EPERM:
		fprintf(stderr, "precord: refusing %s: it is owned by uid %d with mode %04o; the "
				"daemon's directory must be its own and not writable by others "
				"(chown/chmod 0700 it, or choose another --dir)\n", d->o->dir,
			(int)why.owner, (unsigned int)why.mode & 07777);
		break;
	case -ELOOP:
		fprintf(stderr, "precord: refusing %s: it is a symbolic link; give the directory "
				"itself with --dir\n", d->o->dir);
		break;
	case -ENOTDIR:
		fprintf(stderr, "precord: %s is not a directory; choose another --dir\n",
			d->o->dir);
		break;
	case -EINVAL:
		fprintf(stderr, "precord: refusing %s: it ends in '..'; give the directory by its "
				"own name with --dir\n", d->o->dir);
		break;
	case -ENOENT:
		fprintf(stderr, "precord: cannot create %s: its parent directory does not exist; "
				"create it or choose another --dir\n", d->o->dir);
		break;
	default:
		fprintf(stderr, "precord: cannot use %s: %s; choose another --dir\n", d->o->dir,
			strerror(-err));
	}
	return err;
}

/*
 * --background, the parent: wait until the child says "ok" (it records) or why it cannot,
 * which goes on the terminal (the child logged it too), and exit.
 */
static void wait_for_child(const struct daemon *d, int fd, pid_t pid)
{
	char msg[sizeof(d->last_error) + 2];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(msg) - 1 && (n = read(fd, msg + got, sizeof(msg) - 1 - got)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			got += (size_t)n;
	}
	msg[got] = 0;
	msg[strcspn(msg, "\n")] = 0;
	if (!strcmp(msg, "ok")) {
		printf("precord daemon: recording into %s (pid %d); stop it with 'precord ctl --dir "
		       "%s stop'\n", d->o->dir, (int)pid, d->o->dir);
		fflush(stdout); /* _exit() does not: stdout may be a file or a pipe */
		_exit(0);
	}
	if (msg[0])
		fprintf(stderr, "precord: %s\n", msg);
	else
		fprintf(stderr, "precord: the daemon ended before it began recording; see %s/"
				"precord.log\n", d->o->dir);
	_exit(1);
}

/*
 * --background: the parent waits until the child is recording (or says why not), then
 * exits; the child leaves the terminal and logs into DIR/precord.log, which begins with
 * what was said before (the recovery of a segment an earlier run left live).
 */
static int go_background(struct daemon *d, int *ret_ready_fd)
{
	int p[2], logfd;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		wait_for_child(d, p[0], pid);
	}
	close(p[0]);
	setsid();
	logfd = openat(prec_segdir__fd(d->dir), "precord.log",
		       O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	*ret_ready_fd = p[1];
	prec_segdir__write_pid(d->dir);
	if (logfd >= 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (nul >= 0) {
			dup2(nul, STDIN_FILENO);
			close(nul);
		}
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		close(logfd);
		service_log_timestamps(true);
		service_log_replay();
	}
	return 0;
}

/* --background: tell the parent "ok", or the error that stopped the start (one line). */
static void tell_ready(int *fd, const char *error)
{
	const char *msg = !error ? "ok" : error[0] ? error : "cannot start; its log says why";

	if (*fd < 0)
		return;
	if (write(*fd, msg, strlen(msg)) < 0) {
		/* the parent is gone */
	}
	close(*fd);
	*fd = -1;
}

static void log_from_lib(enum prec_log_level level, const char *msg, void *ctx)
{
	const struct rec_opts *o = ctx;

	if (level >= PREC_LOG_INFO && !o->verbose)
		return;
	service_log(level == PREC_LOG_ERROR ? LOG_ERR :
		    level == PREC_LOG_WARN  ? LOG_WARNING :
		    level == PREC_LOG_INFO  ? LOG_INFO :
					      LOG_DEBUG,
		    "%s", msg);
}

static int add_epoll(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* ---- the loop ---- */

static int next_timeout(struct daemon *d, uint64_t next_flush, uint64_t next_watchdog)
{
	uint64_t now = now_ms(), t = next_flush;

	if (d->o->switch_spec.time_ms && d->seg_fd >= 0 &&
	    d->seg_start_ms + d->o->switch_spec.time_ms < t)
		t = d->seg_start_ms + d->o->switch_spec.time_ms;
	if (next_watchdog && next_watchdog < t)
		t = next_watchdog;
	if (d->disk_full && d->next_retry_ms < t)
		t = d->next_retry_ms;
	return t > now ? (int)(t - now) : 0;
}

/* Whether DIR was removed (rm -rf): its fd then names a directory with no link left. */
static bool dir_was_removed(struct daemon *d)
{
	struct stat st;

	if (fstat(prec_segdir__fd(d->dir), &st) || st.st_nlink)
		return false;
	note_error(d, "%s was removed while the daemon recorded into it: stopping, since nothing "
		      "written there can be read; start the daemon again to record into a new %s",
		   d->o->dir, d->o->dir);
	d->dir_removed = true;
	return true;
}

static void run_loop(struct daemon *d)
{
	const struct rec_opts *o = d->o;
	uint64_t wd_ms = service_watchdog_interval_ms();
	uint64_t next_flush = now_ms() + o->flush_ms, next_wd = wd_ms ? now_ms() + wd_ms : 0;
	uint64_t next_status = now_ms() + 10000;

	while (!d->stopping) {
		struct epoll_event evs[4];
		int i, n, sig, err;
		bool flushed;

		err = prec_session__wait(d->s, next_timeout(d, next_flush, next_wd), d->ep_fd);
		if (err) {
			note_error(d, "waiting for samples failed: %s", strerror(-err));
			break;
		}
		n = epoll_wait(d->ep_fd, evs, 4, 0);
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == d->ctl_fd) {
				serve_ctl(d);
				continue;
			}
			sig = read_signals(d->sig_fd);
			if (sig == SIGUSR2)
				d->switch_asked = true;
			else if (sig)
				d->stopping = true;
		}
		prec_session__drain(d->s);
		flushed = now_ms() >= next_flush;
		if (flushed) {
			prec_session__flush(d->s);
			confirm_resume(d);
			next_flush = now_ms() + o->flush_ms;
			if (dir_was_removed(d))
				break;
		}
		err = prec_session__write_error(d->s);
		if (err && d->seg_fd >= 0)
			handle_write_error(d, err);
		retry_after_full(d);
		check_min_free(d, flushed);
		if (d->seg_fd >= 0 && !d->switch_asked) {
			struct prec_session_stats cur;

			prec_session__output_stats(d->s, &cur);
			if ((o->switch_spec.time_ms &&
			     now_ms() >= d->seg_start_ms + o->switch_spec.time_ms) ||
			    (d->seg_switch_bytes && cur.written_bytes >= d->seg_switch_bytes))
				d->switch_asked = true;
		}
		if (d->switch_asked && !d->stopping)
			switch_segment(d);
		if (next_wd && now_ms() >= next_wd) {
			service_watchdog();
			next_wd = now_ms() + wd_ms;
		}
		if (now_ms() >= next_status) {
			update_service_status(d);
			next_status = now_ms() + 10000;
		}
		if (prec_session__targets_gone(d->s)) {
			service_log(LOG_NOTICE, "every process recorded has exited; stopping");
			break;
		}
	}
}

static void log_totals(struct daemon *d)
{
	struct prec_session_stats total;

	prec_session__total_stats(d->s, &total);
	service_log(LOG_NOTICE, "stopped: %" PRIu64 " samples written in %" PRIu64
				" segment%s, %" PRIu64 " not written, %" PRIu64 " lost samples, "
				"%" PRIu64 " lost records",
		    d->samples_written, d->segments_closed, d->segments_closed == 1 ? "" : "s",
		    total.dropped_samples, total.lost_samples, total.ring.lost);
}

int daemon_run(const struct rec_opts *o)
{
	struct daemon d = { .o = o, .sig_fd = -1, .ctl_fd = -1, .ep_fd = -1, .seg_fd = -1 };
	struct prec_session_opts so;
	struct prec_events_error eerr;
	sigset_t sigs;
	int err, rc = 1, ready_fd = -1;

	service_init();
	/* from here the library's lines are the log's, those of open_dir's recovery too */
	prec_log_set_fn(log_from_lib, (void *)o);
	if (open_dir(&d))
		return 1;
	if (o->background && (err = go_background(&d, &ready_fd))) {
		fprintf(stderr, "precord: cannot go to the background: %s\n", strerror(-err));
		goto out;
	}
	service_log_keep(false); /* in the foreground, stderr had them */
	signal(SIGPIPE, SIG_IGN);
	d.sig_fd = stop_signals(&sigs, false);
	if (d.sig_fd < 0) {
		note_error(&d, "cannot set up signal handling: %s", strerror(-d.sig_fd));
		goto out;
	}
	session_opts(o, -1, &so);
	so.drop_unsampled = !o->keep_unsampled;
	so.keep_tasks = true;
	err = prec_session__new(&so, &d.s, &eerr);
	if (err) {
		char why[512];

		session_error_text(o->cpu_list, o->threads_only, err, &eerr, why, sizeof(why));
		note_error(&d, "%s", why);
		goto out;
	}
	err = ctl_server_open(o->dir, prec_segdir__fd(d.dir));
	if (err == -ENAMETOOLONG) {
		note_error(&d, "the path %s is too long for the control socket %s in it (at "
			       "most %zu bytes); choose a shorter --dir", o->dir,
			   PRECORD_SOCKET_NAME, ctl_server_max_dir());
		goto out;
	} else if (err < 0) {
		note_error(&d, "cannot create the control socket %s/%s: %s", o->dir,
			   PRECORD_SOCKET_NAME, strerror(-err));
		goto out;
	}
	d.ctl_fd = err;
	d.ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (d.ep_fd < 0 || add_epoll(d.ep_fd, d.sig_fd) || add_epoll(d.ep_fd, d.ctl_fd)) {
		note_error(&d, "cannot set up the event loop: %s", strerror(errno));
		goto out;
	}
	set_switch_size(&d);
	prune(&d); /* segments of earlier runs count */
	/*
	 * Enabled before the first segment reads /proc: what changes after that reading is in
	 * the rings, and the session's task table (and the segment) learn it from there.
	 */
	prec_session__enable(d.s, true);
	if (prec_segdir__unmet(d.dir) & (1u << PREC_PRUNE_FREE)) {
		/* said by prune: begin as after a full disk, writing when space returns */
		d.min_free_stop = true;
		stop_writing(&d, -ENOSPC);
	} else if ((err = begin_segment(&d))) {
		if (space_error(err))
			note_error(&d, "cannot begin a segment in %s: %s; free some space", o->dir,
				   strerror(-err));
		goto out;
	}
	d.started_ms = now_ms();
	if (d.seg_fd >= 0) {
		service_log(LOG_NOTICE, "recording into %s (segment %s)", o->dir, d.seg.name);
		service_ready("recording; segment %s", d.seg.name);
	} else {
		service_log(LOG_NOTICE, "recording into %s; writing waits until --min-free holds",
			    o->dir);
		service_ready("recording; not writing while --min-free cannot be met");
	}
	tell_ready(&ready_fd, NULL);

	run_loop(&d);

	service_stopping();
	prec_session__enable(d.s, false);
	if (d.dir_removed && d.seg_fd >= 0) { /* the segment has no name left to close */
		prec_session__end_output(d.s, NULL);
		close(d.seg_fd);
		d.seg_fd = -1;
	} else if (d.seg_fd >= 0) {
		end_segment(&d);
	}
	if (!d.dir_removed)
		prune(&d);
	log_totals(&d);
	rc = d.dir_removed ? 1 : 0;
out:
	tell_ready(&ready_fd, d.last_error);
	ctl_server_close(d.ctl_fd, prec_segdir__fd(d.dir));
	if (d.seg_fd >= 0)
		end_segment(&d);
	if (d.ep_fd >= 0)
		close(d.ep_fd);
	if (d.sig_fd >= 0)
		close(d.sig_fd);
	prec_session__free(d.s);
	prec_segdir__free(d.dir);
	return rc;
}
