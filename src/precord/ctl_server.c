/* SPDX-License-Identifier: MIT */
/*
 * The daemon's control socket, the server end of `precord ctl` (ctl.c is the client).
 *
 * The socket is DIR/precord.sock, mode 0600, in the directory the daemon owns and has locked:
 * a socket found there at start is a crashed daemon's, and is replaced.  Clients are served
 * one at a time from the daemon's loop: one command line in (CTL_TIMEOUT_MS at most to send
 * it, so a silent client holds the loop no longer), one answer out, and the connection
 * closes.  Only root and the daemon's own user (SO_PEERCRED) are answered.
 *
 * The server changes nothing in the daemon: the status is the daemon's text (a callback),
 * and rotate and stop are handed back to the loop, which acts on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "precord.h"
#include "service.h"

#define CTL_TIMEOUT_MS 1000 /* a control client has this long to send its command */

size_t ctl_server_max_dir(void)
{
	struct sockaddr_un sa;

	return sizeof(sa.sun_path) - sizeof(PRECORD_SOCKET_NAME) - 1;
}

int ctl_server_open(const char *dir, int dir_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, PRECORD_SOCKET_NAME) >=
	    sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* the directory is ours and locked: a socket left by a crashed daemon is stale */
	unlinkat(dir_fd, PRECORD_SOCKET_NAME, 0);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		err = -errno;
		close(fd);
		return err;
	}
	fchmodat(dir_fd, PRECORD_SOCKET_NAME, 0600, 0);
	return fd;
}

void ctl_server_close(int fd, int dir_fd)
{
	if (fd < 0)
		return;
	unlinkat(dir_fd, PRECORD_SOCKET_NAME, 0);
	close(fd);
}

enum ctl_request ctl_server_serve(int fd, ctl_status_fn *status, void *ctx)
{
	enum ctl_request req = CTL_NONE;
	struct ucred cred = { .uid = (uid_t)-1 }; /* -1 in the log if the check fails */
	socklen_t cl = sizeof(cred);
	struct pollfd pfd;
	char cmd[64], reply[4096];
	ssize_t n = 0;
	int cfd;

	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0)
		return CTL_NONE;
	/*
	 * The command is read first, even from a client that is refused: closing a socket with
	 * unread data resets it, and the client would lose the answer.
	 */
	pfd.fd = cfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, CTL_TIMEOUT_MS) == 1)
		n = read(cfd, cmd, sizeof(cmd) - 1);
	if (n <= 0) {
		close(cfd);
		return CTL_NONE;
	}
	cmd[n] = 0;
	cmd[strcspn(cmd, "\r\n")] = 0;
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		service_log(LOG_WARNING, "control socket: refused a client with uid %d",
			    (int)cred.uid);
		snprintf(reply, sizeof(reply), "error: permission denied; run precord ctl as root "
					       "or as the daemon's user\n");
	} else if (!strcmp(cmd, "status")) {
		status(ctx, reply, sizeof(reply));
	} else if (!strcmp(cmd, "rotate")) {
		req = CTL_ROTATE;
		snprintf(reply, sizeof(reply), "ok: switching to a new segment\n");
	} else if (!strcmp(cmd, "stop")) {
		req = CTL_STOP;
		snprintf(reply, sizeof(reply), "ok: stopping\n");
	} else {
		snprintf(reply, sizeof(reply), "error: unknown command '%.40s'\n", cmd);
	}
	if (write(cfd, reply, strlen(reply)) < 0) {
		/* the client went away: nothing to tell it */
	}
	close(cfd);
	return req;
}
