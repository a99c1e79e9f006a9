/* SPDX-License-Identifier: MIT */
/*
 * notify-probe: drives src/precord/service.c as precord daemon does, so that a test can see
 * what a service manager and journald receive from it.
 *
 * Usage: notify-probe OP...  with each OP one of
 *   init            service_init(); prints "libsystemd=yes|no", "notifying=yes|no" and
 *                   "watchdog_ms=N" (service_watchdog_interval_ms()) on stdout
 *   ready TEXT      service_ready("%s", TEXT)        status TEXT   service_status("%s", TEXT)
 *   ready-bare      service_ready(NULL)              watchdog      service_watchdog()
 *   stopping        service_stopping()               log N TEXT    service_log(N, "%s", TEXT)
 *   log-errno TEXT  service_log(LOG_ERR, "TEXT: %m") with errno = ENOSPC
 *   stderr FILE     stderr is FILE from now on (appended to), as --background does
 * run in order.  The exit status is 0, 1 if FILE cannot be opened, or 2 for a usage error
 * (one line on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "service.h"

#ifdef HAVE_LIBSYSTEMD
#define BUILT_WITH "yes"
#else
#define BUILT_WITH "no"
#endif

static int usage(const char *op)
{
	fprintf(stderr,
		"notify-probe: unknown operation or missing argument: '%s'; usage: "
		"notify-probe OP... (see its source)\n",
		op);
	return 2;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *op = argv[i];
		const char *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(op, "init")) {
			service_init();
			printf("libsystemd=%s\nnotifying=%s\nwatchdog_ms=%llu\n", BUILT_WITH,
			       service_notifying() ? "yes" : "no",
			       (unsigned long long)service_watchdog_interval_ms());
			fflush(stdout);
		} else if (!strcmp(op, "ready-bare")) {
			service_ready(NULL);
		} else if (!strcmp(op, "watchdog")) {
			service_watchdog();
		} else if (!strcmp(op, "stopping")) {
			service_stopping();
		} else if (!strcmp(op, "ready") && arg) {
			service_ready("%s", arg);
			i++;
		} else if (!strcmp(op, "status") && arg) {
			service_status("%s", arg);
			i++;
		} else if (!strcmp(op, "stderr") && arg) {
			int fd = open(arg, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

			if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
				perror("notify-probe: stderr");
				return 1;
			}
			close(fd);
			i++;
		} else if (!strcmp(op, "log-errno") && arg) {
			errno = ENOSPC;
			service_log(LOG_ERR, "%s: %m", arg);
			i++;
		} else if (!strcmp(op, "log") && arg && i + 2 < argc) {
			service_log(atoi(arg), "%s", argv[i + 2]);
			i += 2;
		} else {
			return usage(op);
		}
	}
	return 0;
}
