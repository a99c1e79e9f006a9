/* SPDX-License-Identifier: MIT */
/*
 * precord ctl: ask a running daemon over its control socket in its directory.  The protocol
 * is one command line in and the answer, text, until the daemon closes the connection.
 * Options may come before or after the command (two getopt passes, neither reorders argv).
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
	fprintf(f, "usage: precord ctl [--dir DIR] status|rotate|stop [--dir DIR]\n"
		   "  status   what the daemon recording into DIR is doing, one fact a line\n"
		   "  rotate   close the live segment and start a new one (as SIGUSR2)\n"
		   "  stop     stop the daemon cleanly (as SIGTERM)\n"
		   "DIR is the daemon's --dir (default %s).\n",
		PRECORD_DEFAULT_DIR);
}

/* Whether a daemon holds DIR's lock (its socket being gone): 1 if so, else 0. */
static int lock_held(const char *dir)
{
	struct prec_segdir *d;
	int held;

	if (prec_segdir__open_read(dir, &d))
		return 0;
	held = prec_segdir__writer_active(d) == 1;
	prec_segdir__free(d);
	return held;
}

/*
 * The options of argv[1..argc-1] up to the first non-option, whose index is returned; -1
 * after --help, -2 after a bad option (said).
 */
static int parse_options(int argc, char **argv, const char **dir)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *arg;
	int c;

	optind = 0; /* glibc: a fresh scan, also for the second call */
	opterr = 0;
	while ((c = next_option(argc, argv, "+:d:h", longopts, &arg)) != -1) {
		switch (c) {
		case 'd':
			*dir = optarg;
			break;
		case 'h':
			ctl_usage(stdout);
			return -1;
		default:
			bad_option("precord ctl", longopts, arg, c);
			return -2;
		}
	}
	return optind;
}

int ctl_main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *dir = PRECORD_DEFAULT_DIR, *cmd;
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int i, fd, rc = 0;
	bool error = false;

	/* options go before or after the command: precord ctl status --dir D */
	i = parse_options(argc, argv, &dir);
	if (i >= 0 && i < argc) {
		int after = parse_options(argc - i, argv + i, &dir);

		if (after >= 0 && after < argc - i) {
			fprintf(stderr, "precord ctl: unexpected argument '%s'; give one command: "
					"precord ctl [--dir DIR] status|rotate|stop\n", argv[i + after]);
			return 2;
		}
		i = after < 0 ? after : i;
	}
	if (i < 0)
		return i == -1 ? 0 : 2;
	if (i == argc) {
		ctl_usage(stderr);
		return 2;
	}
	cmd = argv[i];
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

		if ((err == ENOENT || err == ECONNREFUSED) && lock_held(dir))
			fprintf(stderr, "precord ctl: a precord daemon holds %s but its control "
					"socket %s/%s is gone; restart that daemon (its pid is in "
					"%s/%s)\n", dir, dir, PRECORD_SOCKET_NAME, dir,
				PREC_SEGDIR_LOCK_NAME);
		else if (err == ENOENT || err == ECONNREFUSED)
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
