/* SPDX-License-Identifier: MIT */
/*
 * precord ctl: ask a running daemon over its control socket in its directory.  The protocol
 * is one command line in and the answer, text, until the daemon closes the connection.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "precord.h"

static void ctl_usage(FILE *f)
{
	fprintf(f, "usage: precord ctl [--dir DIR] status|rotate|stop\n"
		   "  status   what the daemon recording into DIR is doing, one fact a line\n"
		   "  rotate   close the live segment and start a new one (as SIGUSR2)\n"
		   "  stop     stop the daemon cleanly (as SIGTERM)\n"
		   "DIR is the daemon's --dir (default %s).\n",
		PRECORD_DEFAULT_DIR);
}

int ctl_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *dir = PRECORD_DEFAULT_DIR, *cmd;
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int c, fd, rc = 0;
	bool error = false;

	while ((c = getopt_long(argc, argv, "+d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			ctl_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "precord ctl: unknown option; run 'precord ctl --help'\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		ctl_usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "status") && strcmp(cmd, "rotate") && strcmp(cmd, "stop")) {
		fprintf(stderr, "precord ctl: unknown command '%s'; give status, rotate or stop\n",
			cmd);
		return 2;
	}
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir,
			     PRECORD_SOCKET_NAME) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "precord ctl: the path %s is too long for a socket\n", dir);
		return 1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = errno;

		if (err == ENOENT || err == ECONNREFUSED)
			fprintf(stderr, "precord ctl: no precord daemon is running on %s; start "
					"one with 'precord daemon --dir %s'\n", dir, dir);
		else if (err == EACCES || err == EPERM)
			fprintf(stderr, "precord ctl: cannot reach the daemon on %s: permission "
					"denied; run as root or as the daemon's user\n", dir);
		else
			fprintf(stderr, "precord ctl: cannot reach the daemon on %s: %s\n", dir,
				strerror(err));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%s\n", cmd);
	/* no SIGPIPE: a daemon that answered and closed first has its answer read below */
	if (send(fd, buf, strlen(buf), MSG_NOSIGNAL) < 0 && errno != EPIPE) {
		fprintf(stderr, "precord ctl: cannot send to the daemon on %s: %s\n", dir,
			strerror(errno));
		close(fd);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		/* the daemon's "error: WHY" becomes one line of ours */
		if (!got && n >= 7 && !strncmp(buf, "error: ", 7)) {
			error = true;
			fprintf(stderr, "precord ctl: the daemon on %s says: ", dir);
			p += 7;
		}
		fwrite(p, 1, (size_t)(n - (p - buf)), error ? stderr : stdout);
		got += (size_t)n;
	}
	if (n < 0 || !got) {
		fprintf(stderr, "precord ctl: no answer from the daemon on %s: %s\n", dir,
			n < 0 ? strerror(errno) : "it closed the connection");
		error = true;
	}
	close(fd);
	if (error)
		rc = 1;
	return rc;
}
