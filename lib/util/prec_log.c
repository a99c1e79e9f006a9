/* SPDX-License-Identifier: MIT */
/*
 * The log callback.  Formatting happens only when a callback is installed, so silent users
 * (fuzzers, benchmarks) pay nothing for messages.
 */
#include <stdarg.h>
#include <stdio.h>

#include "prec_log.h"

static prec_log_fn log_fn;
static void *log_ctx;

void prec_log_set_fn(prec_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void prec_log(enum prec_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(level, msg, log_ctx);
}
