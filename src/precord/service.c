/* SPDX-License-Identifier: MIT */
/*
 * precord under a service manager (systemd): notifications through libsystemd's sd_notify
 * and log lines that journald files under their priority.
 *
 * The environment is read once, by service_init() (or the first call that needs it), and
 * never changed: NOTIFY_SOCKET decides whether anything is sent, WATCHDOG_USEC (for this
 * pid, WATCHDOG_PID) the watchdog interval, JOURNAL_STREAM which stream is journald's (each
 * log line compares stderr with it, since stderr may be redirected later).  Built without
 * libsystemd (configure --with-systemd=no) every notification is a no-op, and a set
 * NOTIFY_SOCKET gets one warning, since the manager would wait for READY=1 in vain.  A failed
 * notification is reported once, never more.  Each log line is one write(2) of one line, so that
 * journald files it whole under its own priority; a line never reaches the manager as a
 * notification, nor a notification as a log line.
 *
 * For --background: lines may be kept (with the time they were said) until the log file
 * exists, then written into it, and a log that is not journald's gets a timestamp a line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "service.h"

#define STATUS_MAX 256	  /* with its NUL */
#define LOG_LINE_MAX 1024 /* the message, without prefix and newline */
#define HEAD_MAX 48	  /* "2026-11-26T03:10:05.123Z precord: " or "<N>" */
#define KEPT_MAX 16384	  /* lines kept for the log: those before the daemon starts */

static struct {
	bool initialized;
	bool notify;	    /* NOTIFY_SOCKET set and libsystemd built in */
	bool journal_env;   /* JOURNAL_STREAM was set and well formed */
	bool notify_failed; /* a failed notification was reported */
	unsigned long long journal_dev, journal_ino;
	uint64_t watchdog_usec;
	bool timestamps; /* each line not for journald starts with the time */
	bool keep;	 /* lines are also kept, timestamped, for service_log_replay() */
	size_t kept_len;
	char kept[KEPT_MAX];
} svc;

/* A decimal number that starts at s (no sign, no blank); *end is the first byte after it. */
static bool parse_dec(const char *s, unsigned long long *ret, const char **end)
{
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*ret = strtoull(s, &e, 10);
	if (errno)
		return false;
	*end = e;
	return true;
}

/* JOURNAL_STREAM is "DEV:INO" of the stream journald gave the service. */
static void read_journal_stream(void)
{
	const char *s = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;

	if (!s || !parse_dec(s, &dev, &s) || *s++ != ':' || !parse_dec(s, &ino, &s) || *s)
		return;
	svc.journal_env = true;
	svc.journal_dev = dev;
	svc.journal_ino = ino;
}

/*
 * Asked at each line, not once: stderr may be redirected after service_init() (to the log
 * file of --background, or by a shell in ExecStart=), and then it is no longer journald's.
 */
static bool stderr_is_journal(void)
{
	struct stat st;

	if (!svc.journal_env || fstat(STDERR_FILENO, &st))
		return false;
	return (unsigned long long)st.st_dev == svc.journal_dev &&
	       (unsigned long long)st.st_ino == svc.journal_ino;
}

#ifdef HAVE_LIBSYSTEMD
static void init_notify(void)
{
	uint64_t usec;

	svc.notify = true;
	if (sd_watchdog_enabled(0, &usec) > 0)
		svc.watchdog_usec = usec;
}

static void send_notify(const char *msg)
{
	int err = sd_notify(0, msg);

	if (err < 0 && !svc.notify_failed) {
		svc.notify_failed = true;
		service_log(LOG_WARNING, "cannot notify the service manager (NOTIFY_SOCKET): %s",
			    strerror(-err));
	}
}
#else
static void init_notify(void)
{
	service_log(LOG_WARNING, "NOTIFY_SOCKET is set, but precord was built without libsystemd "
				 "and cannot tell the service manager it is ready; rebuild it with "
				 "libsystemd-dev installed, or run it as Type=simple");
}

static void send_notify(const char *msg)
{
	(void)msg;
}
#endif

void service_init(void)
{
	const char *sock;

	if (svc.initialized)
		return;
	svc.initialized = true;
	read_journal_stream();
	sock = getenv("NOTIFY_SOCKET");
	if (sock && *sock)
		init_notify();
}

bool service_notifying(void)
{
	service_init();
	return svc.notify;
}

static void notify(const char *msg)
{
	if (service_notifying())
		send_notify(msg);
}

/* buf (of strlen(head) + STATUS_MAX bytes at least) = head, then the status on one line. */
__attribute__((format(printf, 3, 0))) static void format_status(char *buf, const char *head,
								const char *fmt, va_list ap)
{
	size_t n = strlen(head);
	char *p;

	memcpy(buf, head, n + 1);
	vsnprintf(buf + n, STATUS_MAX, fmt, ap);
	for (p = buf + n; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

void service_ready(const char *status_fmt, ...)
{
	char buf[sizeof("READY=1\nSTATUS=") + STATUS_MAX];
	va_list ap;

	if (!service_notifying())
		return;
	if (!status_fmt) {
		notify("READY=1");
		return;
	}
	va_start(ap, status_fmt);
	format_status(buf, "READY=1\nSTATUS=", status_fmt, ap);
	va_end(ap);
	notify(buf);
}

void service_status(const char *fmt, ...)
{
	char buf[sizeof("STATUS=") + STATUS_MAX];
	va_list ap;

	if (!service_notifying())
		return;
	va_start(ap, fmt);
	format_status(buf, "STATUS=", fmt, ap);
	va_end(ap);
	notify(buf);
}

void service_stopping(void)
{
	notify("STOPPING=1");
}

void service_watchdog(void)
{
	notify("WATCHDOG=1");
}

uint64_t service_watchdog_interval_ms(void)
{
	uint64_t ms;

	if (!service_notifying() || !svc.watchdog_usec)
		return 0;
	ms = svc.watchdog_usec / 2000;
	return ms ? ms : 1;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* The time now as ISO 8601 in UTC with milliseconds and a blank, as segment names give it. */
static void timestamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03dZ ", (int)(ts.tv_nsec / 1000000) % 1000);
}

void service_log_timestamps(bool on)
{
	svc.timestamps = on;
}

void service_log_keep(bool on)
{
	svc.keep = on;
	svc.kept_len = 0;
}

void service_log_replay(void)
{
	write_all(STDERR_FILENO, svc.kept, svc.kept_len);
	service_log_keep(false);
}

/* A copy of line (its message at msg) for service_log_replay(), with the time it was said. */
static void keep_line(const char *ts, const char *msg, size_t n)
{
	size_t tn = strlen(ts), head = sizeof("precord: ") - 1;

	if (svc.kept_len + tn + head + n > sizeof(svc.kept))
		return; /* the lines said before the daemon detaches are far fewer */
	memcpy(svc.kept + svc.kept_len, ts, tn);
	memcpy(svc.kept + svc.kept_len + tn, "precord: ", head);
	memcpy(svc.kept + svc.kept_len + tn + head, msg, n);
	svc.kept_len += tn + head + n;
}

void service_vlog(int priority, const char *fmt, va_list ap)
{
	static const char cut[] = "...";
	char line[HEAD_MAX + LOG_LINE_MAX + sizeof(cut)], ts[HEAD_MAX] = "";
	int saved = errno;
	size_t head, n;
	char *p;
	int r;

	service_init();
	if (priority < LOG_EMERG)
		priority = LOG_EMERG;
	if (priority > LOG_DEBUG)
		priority = LOG_DEBUG;
	if (svc.keep || svc.timestamps)
		timestamp(ts, sizeof(ts));
	if (stderr_is_journal()) /* journald stamps each line itself */
		head = (size_t)snprintf(line, HEAD_MAX, "<%d>", priority);
	else
		head = (size_t)snprintf(line, HEAD_MAX, "%sprecord: ", svc.timestamps ? ts : "");
	errno = saved; /* for %m */
	r = vsnprintf(line + head, LOG_LINE_MAX + 1, fmt, ap);
	n = r < 0 ? 0 : (size_t)r;
	if (n > LOG_LINE_MAX) {
		n = LOG_LINE_MAX;
		memcpy(line + head + n, cut, sizeof(cut) - 1);
		n += sizeof(cut) - 1;
	}
	while (n && line[head + n - 1] == '\n')
		n--;
	for (p = line + head; p < line + head + n; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	line[head + n] = '\n';
	write_all(STDERR_FILENO, line, head + n + 1);
	if (svc.keep)
		keep_line(ts, line + head, n + 1);
	errno = saved;
}

void service_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	service_vlog(priority, fmt, ap);
	va_end(ap);
}
