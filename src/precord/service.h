/* SPDX-License-Identifier: MIT */
/*
 * precord under a service manager: readiness, status and watchdog notifications (sd_notify)
 * and log lines that journald files under their syslog priority.
 */
#ifndef PRECORD_SERVICE_H
#define PRECORD_SERVICE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h> /* LOG_ERR ... LOG_DEBUG for service_log() */

/*
 * Reads the environment once (NOTIFY_SOCKET, WATCHDOG_USEC/WATCHDOG_PID, JOURNAL_STREAM).
 * Call it at daemon start, before anything below (which otherwise calls it on first use).
 * When NOTIFY_SOCKET is set but precord was built without libsystemd, says so once.
 */
void service_init(void);
/* Whether a service manager listens (NOTIFY_SOCKET set and libsystemd built in). */
bool service_notifying(void);
/*
 * READY=1 (with a STATUS), STATUS=..., STOPPING=1, WATCHDOG=1.  No-ops without a manager.
 * A status is one short line (newlines become spaces; cut at 255 bytes).
 */
void service_ready(const char *status_fmt, ...) __attribute__((format(printf, 1, 2)));
void service_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void service_stopping(void);
void service_watchdog(void);
/* How often to call service_watchdog(): half the manager's WATCHDOG_USEC, in ms; 0: never. */
uint64_t service_watchdog_interval_ms(void);
/*
 * One log line on stderr: "precord: MSG" normally; under journald (JOURNAL_STREAM matches
 * stderr's device:inode) "<N>MSG" with the syslog priority N (LOG_ERR=3, LOG_WARNING=4,
 * LOG_NOTICE=5, LOG_INFO=6, LOG_DEBUG=7) and no program prefix (journald adds it).
 * MSG may end in a newline or not; a message longer than 1 KiB is cut.  errno is kept.
 */
void service_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Lines from now on start with an ISO 8601 time in UTC ("2026-11-26T03:10:05.123Z precord:
 * MSG"), unless they go to journald, which has its own (for --background's log file).
 */
void service_log_timestamps(bool on);
/*
 * service_log_keep(true): lines are also kept in memory (the first 16 KiB, each with the
 * time it was said) until service_log_replay() writes them, timestamped, on stderr (the log
 * file by then) and stops keeping; service_log_keep(false) drops them.
 */
void service_log_keep(bool on);
void service_log_replay(void);
void service_vlog(int priority, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
