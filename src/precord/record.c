/* SPDX-License-Identifier: MIT */
/*
 * One-shot recording: a recording session (lib/record) writing one output until the workload
 * ends, a signal stops it, or --duration passes.
 *
 * Order matters: the workload is forked first but held before exec; the events are opened
 * on it with enable_on_exec; the header and synthesized state are written; then the
 * workload is released.  The stream is flushed at least every flush interval, so a crash
 * of precord loses at most that much.  Errors are reported here, once, in one line that says
 * what to do.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prec_session.h"
#include "precord.h"

struct workload {
	pid_t pid;
	int go_fd, err_fd;
};

/*
 * Fork the command and hold it before exec until release().  It runs as it would without
 * precord: default dispositions (not our ignored SIGPIPE, which makes `yes | head -1` print
 * "Broken pipe", nor the SIGINT a non-interactive shell ignores for background jobs; only a
 * SIGHUP ignored by nohup stays so), an empty signal mask.
 */
static int start_workload(const struct rec_opts *o, bool hup_ignored, struct workload *wl)
{
	int go[2], errp[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		char c;
		int sig, e;

		close(go[1]);
		close(errp[0]);
		for (sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP && !(sig == SIGHUP && hup_ignored))
				signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		/* with -o -, standard output carries the stream: keep the workload off it */
		if (!strcmp(o->output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(o->cmd[0], o->cmd);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	wl->pid = pid;
	wl->go_fd = go[1];
	wl->err_fd = errp[0];
	return 0;
}

/* Release the workload; returns 0 once exec succeeded, or the exec errno (negative). */
static int release_workload(struct workload *wl)
{
	char c = 1;
	int e = 0;
	ssize_t n;

	if (write(wl->go_fd, &c, 1) != 1)
		return -EPIPE;
	close(wl->go_fd);
	wl->go_fd = -1;
	n = read(wl->err_fd, &e, sizeof(e));
	close(wl->err_fd);
	wl->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

/*
 * The output is a new regular file, 0600 (it holds stack copies and command lines), created
 * where the path names without following a symlink: a link planted in a shared directory
 * must not make root write where it points.  An existing non-empty regular file is kept as
 * FILE.old, as perf does; anything else that is not a regular file (a FIFO would block
 * open() beyond the reach of SIGINT) is refused.
 */
static int open_output(const char *path, int *ret_fd)
{
	char old[4096];
	struct stat st;
	int fd, err;

	if (!strcmp(path, "-")) {
		*ret_fd = STDOUT_FILENO;
		return 0;
	}
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			fprintf(stderr, "precord: '%s' is a symbolic link; precord does not write "
					"through links: remove it or choose another file with -o\n",
				path);
			return -ELOOP;
		}
		if (!S_ISREG(st.st_mode)) {
			fprintf(stderr, "precord: '%s' is not a regular file; give a file name "
					"with -o, or -o - to write to standard output\n", path);
			return -EINVAL;
		}
		if (st.st_size && snprintf(old, sizeof(old), "%s.old", path) < (int)sizeof(old) &&
		    rename(path, old)) {
			err = -errno;
			fprintf(stderr, "precord: cannot keep '%s' as '%s': %s; move '%s' away or "
					"choose another file with -o\n",
				path, old, strerror(-err), old);
			return err;
		}
		if (!st.st_size && unlink(path) && errno != ENOENT) {
			err = -errno;
			fprintf(stderr, "precord: cannot replace '%s': %s; choose another file "
					"with -o\n", path, strerror(-err));
			return err;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		if (err == -EEXIST)
			fprintf(stderr, "precord: '%s' was created by someone else while precord "
					"started; choose another file with -o\n", path);
		else
			fprintf(stderr, "precord: cannot create '%s': %s; choose another file with "
					"-o\n", path, strerror(-err));
		return err;
	}
	*ret_fd = fd;
	return 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static void write_error(const struct rec_opts *o, int err, bool workload_runs)
{
	fprintf(stderr, "precord: cannot write '%s': %s; recording stopped, the file is valid up "
			"to the last flush%s\n", o->output, strerror(-err),
		workload_runs ? "; the workload keeps running" : "");
}

/* A file that got not even its header holds nothing: remove it, if it is still the one made. */
static void drop_empty_output(const char *path, int fd)
{
	struct stat a, b;

	if (strcmp(path, "-") && !fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && S_ISREG(b.st_mode))
		unlink(path);
}

int record_run(const struct rec_opts *o)
{
	struct workload wl = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct prec_session_opts so;
	struct prec_session *s = NULL;
	struct prec_session_stats st;
	struct prec_events_error eerr;
	bool workload_is_target = o->cmd && !o->all_cpus && !o->nr_pids;
	bool child_done = false, timed_out = false, hup_ignored, said_write_error = false;
	bool stopped_by_clock = false; /* we sent the workload SIGTERM at --duration's end */
	uint64_t start, next_flush, deadline = 0;
	int status = 0, rc = 1, err, out_fd = -1, sig_fd = -1;
	sigset_t sigs;

	raise_fd_limit();
	hup_ignored = signal(SIGHUP, SIG_IGN) == SIG_IGN;
	signal(SIGPIPE, SIG_IGN); /* -o - into a reader that went away: EPIPE, not death */
	sig_fd = stop_signals(&sigs, hup_ignored);
	if (sig_fd < 0) {
		fprintf(stderr, "precord: cannot set up signal handling: %s\n", strerror(-sig_fd));
		return 1;
	}
	if (o->cmd && (err = start_workload(o, hup_ignored, &wl))) {
		fprintf(stderr, "precord: cannot start '%s': %s\n", o->cmd[0], strerror(-err));
		goto out;
	}
	session_opts(o, workload_is_target ? wl.pid : -1, &so);
	err = prec_session__new(&so, &s, &eerr);
	if (err) {
		report_session_error(o->cpu_list, o->threads_only, err, &eerr);
		goto out;
	}
	if (open_output(o->output, &out_fd))
		goto out;
	err = prec_session__begin_output(s, out_fd);
	if (err) {
		bool space = err == -ENOSPC || err == -EDQUOT;

		fprintf(stderr, "precord: cannot write '%s': %s; %s\n", o->output, strerror(-err),
			space ? "free space there, or write elsewhere with -o"
			      : "nothing was recorded");
		drop_empty_output(o->output, out_fd);
		goto out;
	}

	start = now_ms();
	if (o->duration > 0)
		deadline = start + (uint64_t)(o->duration * 1000);
	if (!workload_is_target)
		prec_session__enable(s, true);
	if (o->cmd) {
		err = release_workload(&wl);
		if (err) {
			fprintf(stderr, "precord: cannot run '%s': %s\n", o->cmd[0],
				strerror(-err));
			waitpid(wl.pid, NULL, 0);
			wl.pid = -1;
			prec_session__end_output(s, NULL);
			rc = err == -ENOENT ? 127 : 126; /* as shells do */
			goto out;
		}
	}

	next_flush = start + o->flush_ms;
	for (;;) {
		uint64_t now = now_ms();
		int timeout = next_flush > now ? (int)(next_flush - now) : 0, sig;

		if (deadline && deadline <= now) {
			timed_out = true;
			break;
		}
		if (deadline && (int)(deadline - now) < timeout)
			timeout = (int)(deadline - now);
		if (prec_session__wait(s, timeout, sig_fd))
			break;
		sig = read_signals(sig_fd);
		if (wl.pid > 0 && !child_done && waitpid(wl.pid, &status, WNOHANG) == wl.pid)
			child_done = true;
		prec_session__drain(s);
		if (now_ms() >= next_flush) {
			prec_session__flush(s);
			next_flush = now_ms() + o->flush_ms;
		}
		err = prec_session__write_error(s);
		if (err && !said_write_error) {
			write_error(o, err, wl.pid > 0 && !child_done);
			said_write_error = true;
		}
		/* SIGUSR2 switches a daemon's output; a one-shot recording has only one */
		if ((sig && sig != SIGUSR2) || child_done || prec_session__targets_gone(s))
			break;
	}

	prec_session__enable(s, false);
	if (wl.pid > 0 && !child_done) {
		/* stopped by a signal or the clock: the workload does not outlive the recording */
		if (timed_out || !prec_session__targets_gone(s)) {
			kill(wl.pid, SIGTERM);
			stopped_by_clock = timed_out;
		}
		waitpid(wl.pid, &status, 0);
		child_done = true;
	}
	err = prec_session__end_output(s, &st);
	if (err && !said_write_error) {
		write_error(o, err, false);
		said_write_error = true;
	}
	if (!o->quiet)
		print_summary(o, &st, (double)(now_ms() - start) / 1000.0, said_write_error);
	if (out_fd > STDERR_FILENO && close(out_fd) && !said_write_error) {
		write_error(o, -errno, false);
		said_write_error = true;
	}
	out_fd = -1;
	/* the recording went as asked: the command's death by our SIGTERM is no failure */
	if (stopped_by_clock && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
		rc = 0;
	else if (child_done && o->cmd)
		rc = exit_status(status);
	else
		rc = 0;
	if (said_write_error && rc == 0)
		rc = 1;
out:
	if (wl.pid > 0 && !child_done) {
		kill(wl.pid, SIGKILL);
		waitpid(wl.pid, NULL, 0);
	}
	if (wl.go_fd >= 0)
		close(wl.go_fd);
	if (wl.err_fd >= 0)
		close(wl.err_fd);
	if (out_fd > STDERR_FILENO)
		close(out_fd);
	prec_session__free(s);
	close(sig_fd);
	return rc;
}
