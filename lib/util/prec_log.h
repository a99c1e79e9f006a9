/* SPDX-License-Identifier: MIT */
/*
 * Logging for library code.  The library never writes to stdout or stderr: it hands each
 * message to the callback installed by the program.  Without a callback, messages are
 * dropped.  Messages are single lines without a trailing newline.
 */
#ifndef PREC_LOG_H
#define PREC_LOG_H

enum prec_log_level {
	PREC_LOG_ERROR = 0,
	PREC_LOG_WARN = 1,
	PREC_LOG_INFO = 2,
	PREC_LOG_DEBUG = 3,
};

typedef void (*prec_log_fn)(enum prec_log_level level, const char *msg, void *ctx);

/* Install the callback (NULL drops every message). Not thread-safe against prec_log(). */
void prec_log_set_fn(prec_log_fn fn, void *ctx);

/* Format a message and pass it to the callback. */
void prec_log(enum prec_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define prec_warn(...) prec_log(PREC_LOG_WARN, __VA_ARGS__)
#define prec_debug(...) prec_log(PREC_LOG_DEBUG, __VA_ARGS__)

#endif
