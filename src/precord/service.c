/* SPDX-License-Identifier: MIT */
/*
 * The service layer without a service manager: log lines on stderr; notifications are not
 * sent.  (The systemd side, with libsystemd, replaces this file.)
 */
#include <stdio.h>

#include "service.h"

void service_init(void)
{
}

bool service_notifying(void)
{
	return false;
}

void service_ready(const char *status_fmt, ...)
{
	(void)status_fmt;
}

void service_status(const char *fmt, ...)
{
	(void)fmt;
}

void service_stopping(void)
{
}

void service_watchdog(void)
{
}

uint64_t service_watchdog_interval_ms(void)
{
	return 0;
}

void service_vlog(int priority, const char *fmt, va_list ap)
{
	(void)priority;
	fputs("precord: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void service_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	service_vlog(priority, fmt, ap);
	va_end(ap);
}
