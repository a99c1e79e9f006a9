/* SPDX-License-Identifier: MIT */
/*
 * The files of preport's exports (--pprof FILE, --flamegraph FILE): written instead of a
 * report, and holding recorded data (command names, functions, stacks), so made as a
 * recording is: 0600, never through a symbolic link, a regular file only.  Each is opened
 * before the input is read, so that a bad path fails at once, but an existing file is
 * emptied only when there is something to write into it; a file we made is removed again
 * when the report fails, so no half-written export is left behind.  "-" is standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preport.h"

static int refuse(const struct preport_export *e, const char *why)
{
	fprintf(stderr, "preport: cannot write the %s to '%s': %s\n", e->what, e->path, why);
	return 1;
}

int preport_export__open(struct preport_export *e)
{
	struct stat st;
	int fd;

	if (!e->path)
		return 0;
	if (!strcmp(e->path, "-")) {
		e->f = stdout;
		return 0;
	}
	e->created = true;
	fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* O_NONBLOCK: a FIFO in its place must not block us here */
		e->created = false;
		fd = open(e->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	if (fd < 0)
		return refuse(e, errno == ELOOP ? "it is a symbolic link; give the file itself or a "
						  "new name"
				 : errno == EISDIR ? "it is a directory; give a file name"
				 : errno == ENXIO  ? "not a regular file; give a file name"
						   : strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(e, "not a regular file; give a file name");
	}
	if ((st.st_mode & 07777) != 0600)
		(void)fchmod(fd, 0600); /* recorded data is never readable by others */
	e->f = fdopen(fd, "w");
	if (!e->f) {
		close(fd);
		return refuse(e, "out of memory");
	}
	return 0;
}

int preport_export__begin(const struct preport_export *e)
{
	if (e->f == stdout || !ftruncate(fileno(e->f), 0))
		return 0;
	return -errno;
}

int preport_export__close(struct preport_export *e, int rc)
{
	int err = 0;

	if (!e->f)
		return rc;
	errno = 0;
	if (rc == 0 && (ferror(e->f) || fflush(e->f)))
		err = errno ? errno : EIO;
	if (e->f != stdout && fclose(e->f) && !err && rc == 0)
		err = errno ? errno : EIO;
	e->f = NULL;
	if (err) {
		refuse(e, strerror(err));
		rc = 1;
	}
	/* a report that failed after the export was written (a corrupt part of the input: what
	 * came before it is exported, as it is reported) keeps it */
	if (e->created && (err || (rc && !e->complete)))
		unlink(e->path);
	return rc;
}
