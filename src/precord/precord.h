/* SPDX-License-Identifier: MIT */
/* precord internals shared between its parts. */
#ifndef PRECORD_H
#define PRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <signal.h>

#include "prec_parse.h"
#include "prec_segdir.h"
#include "prec_session.h"

struct rec_opts {
	char **cmd; /* workload argv, or NULL */
	int argc_all; /* for the CMDLINE feature */
	char **argv_all;
	pid_t *pids; /* -p / -t */
	size_t nr_pids;
	bool threads_only; /* -t: the given tids, not their processes */
	bool all_cpus; /* -a */
	const char *cpu_list; /* -C */
	const char *events; /* -e, comma-separated; NULL = default */
	uint64_t freq; /* -F */
	uint64_t period; /* -c */
	bool callchain; /* -g / --call-graph fp */
	bool dwarf; /* --call-graph dwarf */
	uint32_t stack_size;
	const char *output;
	int zlevel; /* 0 = --no-compress */
	size_t mmap_pages;
	unsigned int flush_ms;
	double duration; /* seconds, 0 = none */
	int clockid; /* -k: sample times from this clock; -1 = perf's own */
	bool switch_events; /* context-switch records (one-shot: yes; daemon: --switch-events) */
	bool quiet, verbose;
	/* precord daemon only */
	const char *dir; /* --dir */
	struct prec_switch_spec switch_spec; /* --switch-output */
	struct prec_retention retention; /* --switch-max-files, --max-disk, --max-age, --min-free */
	bool background; /* --background */
	bool keep_unsampled; /* --keep-unsampled: no prec_session_opts.drop_unsampled */
};

#define PRECORD_DEFAULT_DIR "/var/lib/precord"

/* Run the recording; returns the exit status for main(). */
int record_run(const struct rec_opts *o);
/* Run the daemon (daemon.c); returns the exit status for main(). */
int daemon_run(const struct rec_opts *o);
/* `precord convert ARGS` (argv[0] is "convert", convert.c); returns the exit status. */
int convert_main(int argc, char **argv);
/* precord ctl [--dir DIR] status|rotate|stop (ctl.c); returns the exit status. */
int ctl_main(int argc, char **argv);

/* The control socket's name inside the segment directory. */
#define PRECORD_SOCKET_NAME "precord.sock"

/* ---- the control socket's server, for the daemon (ctl_server.c) ---- */
/* What a client asked of the daemon's loop; a status it has had answered already. */
enum ctl_request { CTL_NONE, CTL_ROTATE, CTL_STOP };
/* Writes the daemon's status, one fact a line, into buf. */
typedef void ctl_status_fn(void *ctx, char *buf, size_t len);
/* The longest DIR whose DIR/precord.sock fits a socket address. */
size_t ctl_server_max_dir(void);
/*
 * Listen on DIR/precord.sock, mode 0600, replacing a stale one (dir_fd is DIR, which the
 * daemon owns and has locked).  Returns the listening fd (nonblocking, close-on-exec),
 * -ENAMETOOLONG for a DIR longer than ctl_server_max_dir(), or -errno.
 */
int ctl_server_open(const char *dir, int dir_fd);
/* Serve one waiting client (status through status(ctx)); returns what the loop must do. */
enum ctl_request ctl_server_serve(int fd, ctl_status_fn *status, void *ctx);
/* Remove the socket from DIR and close fd; fd < 0 is nothing. */
void ctl_server_close(int fd, int dir_fd);

/* The session's options from the command line's; workload > 0 if the events follow it. */
void session_opts(const struct rec_opts *o, pid_t workload, struct prec_session_opts *so);

/* ---- shared by the front ends (frontend.c) ---- */
uint64_t now_ms(void);
struct option;
/*
 * getopt_long() that also gives the element it reads (*ret_arg, for bad_option()).  The
 * caller sets opterr = 0 and starts optstring with "+:" (no reordering, ':' for a missing
 * value).
 */
int next_option(int argc, char **argv, const char *optstring, const struct option *longopts,
		const char **ret_arg);
/* The one line for what next_option() returned as '?' or ':' reading arg, as CMD says it. */
void bad_option(const char *cmd, const struct option *longopts, const char *arg, int c);
/*
 * Block the signals that stop a recording (SIGINT, SIGTERM, SIGHUP unless it was ignored)
 * and those it waits for (SIGCHLD, SIGUSR2), and return a signalfd for them, or -errno.
 */
int stop_signals(sigset_t *set, bool hup_ignored);
/* Read every pending signal; returns the first that stops (SIGUSR2 only if nothing else), or 0. */
int read_signals(int fd);
/* The one line for a failed prec_session__new(), on stderr or (without "precord: ") in buf. */
void report_session_error(const char *cpu_list, bool threads_only, int err,
			  const struct prec_events_error *e);
void session_error_text(const char *cpu_list, bool threads_only, int err,
			const struct prec_events_error *e, char *buf, size_t len);
const char *fmt_bytes(uint64_t n, char *buf, size_t len);
/* precord's closing line (and its warnings) for an output's totals. */
void print_summary(const struct rec_opts *o, const struct prec_session_stats *st, double secs,
		   bool write_failed);

#endif
