/* SPDX-License-Identifier: MIT */
/*
 * What precord's front ends (one-shot recording, daemon) share: the signals that stop them,
 * read from a signalfd so that the poll loop wakes for them; the wording of the session's
 * errors; the summary of an output.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "precord.h"

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int next_option(int argc, char **argv, const char *optstring, const struct option *longopts,
		const char **ret_arg)
{
	int i = optind ? optind : 1; /* optind = 0 asks glibc for a fresh scan from 1 */

	*ret_arg = i < argc ? argv[i] : "";
	return getopt_long(argc, argv, optstring, longopts, NULL);
}

void bad_option(const char *cmd, const struct option *longopts, const char *arg, int c)
{
	size_t len = strcspn(arg, "=");
	int matches = 0;

	if (strncmp(arg, "--", 2)) { /* a short option: getopt names it in optopt */
		if (c == ':')
			fprintf(stderr, "%s: option '-%c' needs a value; run '%s --help'\n", cmd,
				optopt, cmd);
		else
			fprintf(stderr, "%s: invalid option '-%c'; run '%s --help'\n", cmd, optopt,
				cmd);
		return;
	}
	for (const struct option *o = longopts; o->name; o++)
		if (!strncmp(o->name, arg + 2, len - 2))
			matches++;
	if (c == ':')
		fprintf(stderr, "%s: option '%.*s' needs a value; run '%s --help'\n", cmd,
			(int)len, arg, cmd);
	else if (optopt) /* a known option given a value */
		fprintf(stderr, "%s: option '%.*s' takes no value; run '%s --help'\n", cmd,
			(int)len, arg, cmd);
	else if (matches > 1)
		fprintf(stderr, "%s: option '%.*s' is ambiguous (%d options begin so); run '%s "
				"--help'\n", cmd, (int)len, arg, matches, cmd);
	else
		fprintf(stderr, "%s: unrecognized option '%.*s'; run '%s --help'\n", cmd,
			(int)len, arg, cmd);
}

int stop_signals(sigset_t *set, bool hup_ignored)
{
	int fd;

	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGUSR2);
	/* a closed terminal stops the recording cleanly; under nohup it stays ignored */
	if (!hup_ignored)
		sigaddset(set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, set, NULL))
		return -errno;
	fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int read_signals(int fd)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD && (!stop || stop == SIGUSR2))
			stop = (int)si.ssi_signo;
	return stop;
}

/*
 * Permission denied by kernel.perf_event_paranoid, for a user without CAP_PERFMON: above 0
 * no event samples a whole CPU (pid -1: -a, -C, the daemon), above 1 none samples the
 * kernel, and above 2 (a patch some distributions carry) nothing is allowed.  Say what the
 * current level forbids and the level that allows it; below those, something else refused.
 */
static void denied_text(const struct prec_events_error *e, char *buf, size_t len)
{
	int level = prec_perf_paranoid();

	if (e->pid == -1 && level >= 1)
		snprintf(buf, len, "cannot open %s on CPU %d: sampling whole CPUs (-a, -C, the "
				"daemon) is not allowed at kernel.perf_event_paranoid=%d; it "
				"needs 0 or lower: run as root, or lower it with 'sysctl "
				"kernel.perf_event_paranoid=0'", e->spec, e->cpu, level);
	else if (level >= 3)
		snprintf(buf, len, "cannot open %s: kernel.perf_event_paranoid=%d allows no "
				"profiling without root; run as root, or lower it with 'sysctl "
				"kernel.perf_event_paranoid=2' (user space of your own processes)",
			e->spec, level);
	else if (e->excludes_user && level >= 2)
		snprintf(buf, len, "cannot record %s: kernel samples are not allowed at "
				"kernel.perf_event_paranoid=%d and it excludes user space; run as "
				"root, lower it with 'sysctl kernel.perf_event_paranoid=1', or "
				"drop the :k", e->spec, level);
	else
		snprintf(buf, len, "cannot open %s on CPU %d: permission denied, although "
				"kernel.perf_event_paranoid=%d allows it (a security module or a "
				"container may refuse it); run as root", e->spec, e->cpu, level);
}

void session_error_text(const char *cpu_list, bool threads_only, int err,
			const struct prec_events_error *e, char *buf, size_t len)
{
	const char *what = threads_only ? "thread" : "process";

	switch (e->what) {
	case PREC_EVENTS_ERR_NONE:
		if (err == -EINVAL && e->cpu >= 0)
			snprintf(buf, len, "bad CPU list '%s': CPU %d does not exist; this "
					"machine has CPUs 0-%ld", cpu_list, e->cpu,
				sysconf(_SC_NPROCESSORS_CONF) - 1);
		else if (err == -EINVAL)
			snprintf(buf, len, "bad CPU list '%s'; give CPUs like 0-3,5",
				cpu_list);
		else if (err == -ESRCH)
			snprintf(buf, len, "%s %d does not exist; check the %s", what,
				(int)e->pid, threads_only ? "TID" : "PID");
		else
			snprintf(buf, len, "cannot start recording: %s", strerror(-err));
		return;
	case PREC_EVENTS_ERR_SPEC:
		if (e->err == -EOPNOTSUPP) {
			snprintf(buf, len, "'%s' is a tracepoint; precord records hardware and "
					"software events, not tracepoints: use 'perf record -e %s' "
					"for it", e->spec, e->spec);
			return;
		}
		snprintf(buf, len, "unknown event '%s'; see 'precord --help' for event "
				"names, or use rNNNN or pmu/config=N/", e->spec);
		return;
	case PREC_EVENTS_ERR_TOO_MANY:
		snprintf(buf, len, "too many events (at most %d); give fewer with -e",
			PREC_EVENTS_MAX);
		return;
	case PREC_EVENTS_ERR_MAP:
		snprintf(buf, len, "cannot map the ring buffer of CPU %d: %s; use a smaller "
				"-m or raise kernel.perf_event_mlock_kb", e->cpu, strerror(-err));
		return;
	case PREC_EVENTS_ERR_OUTPUT:
		snprintf(buf, len, "cannot share the CPU %d ring: %s", e->cpu,
			strerror(-err));
		return;
	case PREC_EVENTS_ERR_OPEN:
		break;
	}
	if ((err == -EACCES || err == -EPERM) && !prec_pid_may_be_traced(e->pid))
		snprintf(buf, len, "cannot profile %s %d: permission denied; it belongs to "
				"another user and profiling it needs the right to trace it (ptrace): "
				"run precord as its user or as root", what, (int)e->pid);
	else if (err == -EACCES || err == -EPERM)
		denied_text(e, buf, len);
	else if (err == -EMFILE || err == -ENFILE)
		snprintf(buf, len, "too many open files opening %s on CPU %d; raise the "
				"limit with 'ulimit -n' or record fewer CPUs (-C)", e->spec, e->cpu);
	else if (err == -ESRCH)
		snprintf(buf, len, "%s %d does not exist (any more); check the %s", what,
			(int)e->pid, threads_only ? "TID" : "PID");
	else if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		snprintf(buf, len, "event %s is not supported on this machine; try "
				"-e cpu-clock", e->spec);
	else
		snprintf(buf, len, "cannot open %s on CPU %d: %s; check the event's terms and "
				"modifiers, or try -e cpu-clock", e->spec, e->cpu, strerror(-err));
}

void report_session_error(const char *cpu_list, bool threads_only, int err,
			  const struct prec_events_error *e)
{
	char why[512];

	session_error_text(cpu_list, threads_only, err, e, why, sizeof(why));
	fprintf(stderr, "precord: %s\n", why);
}

void session_opts(const struct rec_opts *o, pid_t workload, struct prec_session_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->ev.events = o->events;
	so->ev.freq = o->freq;
	so->ev.period = o->period;
	so->ev.callchain = o->callchain;
	so->ev.dwarf = o->dwarf;
	so->ev.stack_size = o->stack_size;
	so->ev.mmap_pages = o->mmap_pages;
	so->ev.clockid = o->clockid;
	so->ev.switch_events = o->switch_events;
	so->cpu_list = o->cpu_list;
	so->system_wide = o->all_cpus;
	so->pids = o->pids;
	so->nr_pids = o->nr_pids;
	so->threads_only = o->threads_only;
	so->workload = workload;
	so->zlevel = o->zlevel;
	so->argc = o->argc_all;
	so->argv = o->argv_all;
}

const char *fmt_bytes(uint64_t n, char *buf, size_t len)
{
	if (n < 10 * 1024)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)n / 1024);
	else
		snprintf(buf, len, "%.1f MiB", (double)n / (1024 * 1024));
	return buf;
}

void print_summary(const struct rec_opts *o, const struct prec_session_stats *st, double secs,
		   bool write_failed)
{
	const struct prec_ring_stats *r = &st->ring;
	/* the LOST records and the counters describe the same drops: count the larger */
	uint64_t lost = r->lost > st->lost_samples ? r->lost : st->lost_samples;
	char b1[32], b2[32];
	double ratio, pct;

	ratio = st->written_bytes ? (double)st->kept_raw_bytes / (double)st->written_bytes : 0;
	pct = r->samples + lost ? 100.0 * (double)lost / (double)(r->samples + lost) : 0;
	fprintf(stderr,
		"precord: %" PRIu64 " samples in %.2f s, %" PRIu64 " lost records (%" PRIu64
		" samples, %.2f%%), %" PRIu64 " throttle events; wrote %s (%s raw, "
		"%.1fx) to %s\n",
		st->kept_samples, secs, r->lost_records, lost, pct, r->throttles,
		fmt_bytes(st->written_bytes, b1, sizeof(b1)),
		fmt_bytes(st->kept_raw_bytes, b2, sizeof(b2)), ratio,
		strcmp(o->output, "-") ? o->output : "standard output");
	if (write_failed)
		fprintf(stderr, "precord: warning: %" PRIu64 " samples recorded after the last "
				"good flush were not written\n", r->samples - st->kept_samples);
	if (lost)
		fprintf(stderr, "precord: warning: %.2f%% of samples were lost; use a larger "
				"buffer (-m) or a lower frequency (-F)\n", pct);
	if (r->bad)
		fprintf(stderr, "precord: warning: %" PRIu64 " ring buffer overruns skipped\n",
			r->bad);
}
