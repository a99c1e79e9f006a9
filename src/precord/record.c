/* SPDX-License-Identifier: MIT */
/*
 * The recording session: events opened per CPU (and per target thread), one ring per CPU,
 * a poll loop that drains every ring into the stream writer, and a clean end.
 *
 * Order matters: the workload is forked first but held before exec; the events are opened
 * on it with enable_on_exec; the header and synthesized state are written; then the
 * workload is released.  The stream is flushed (zstd frame ended, bytes written) at least
 * every flush interval, so a crash of precord loses at most that much.  Errors are reported
 * here, once, in one line that says what to do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prec_evspec.h"
#include "prec_ring.h"
#include "precord.h"

#define MAX_EVENTS 32

struct event {
	struct perf_event_attr attr;
	char name[128];
	uint64_t *ids;
	size_t nr_ids;
};

struct cpu_ring {
	int cpu;
	int fd; /* the fd the ring is mapped from */
	struct prec_ring *ring;
};

struct session {
	const struct rec_opts *o;
	struct event ev[MAX_EVENTS];
	size_t nr_ev;
	int *cpus;
	size_t nr_cpus;
	pid_t *tids; /* -1 alone for system-wide */
	size_t nr_tids;
	int *fds; /* nr_ev x nr_cpus x nr_tids */
	size_t nr_fds;
	struct cpu_ring *rings;
	size_t nr_rings;
	struct prec_writer *w;
	int out_fd;
	bool write_failed;
	struct prec_ring_stats st;
	pid_t child;
	int go_fd, err_fd;
};

static volatile sig_atomic_t got_stop, got_child;
static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	char c = 0;

	if (sig == SIGCHLD)
		got_child = 1;
	else
		got_stop = sig;
	if (write(sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a wakeup is pending anyway */
	}
	errno = saved;
}

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Parse "0-3,5" into a sorted list; every CPU must be online. */
static int parse_cpu_list(const char *s, int **ret, size_t *nr, const char *what)
{
	int *v = NULL;
	size_t n = 0;
	const char *p = s;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi, c;

		if (end == p || lo < 0)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				goto bad;
			p = end;
		}
		if (hi > 4095)
			goto bad;
		for (c = lo; c <= hi; c++) {
			int *nv = realloc(v, (n + 1) * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			v[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
		else
			break;
	}
	if (!n)
		goto bad;
	*ret = v;
	*nr = n;
	return 0;
bad:
	if (what)
		fprintf(stderr, "precord: bad CPU list '%s'; give CPUs like 0-3,5\n", what);
	free(v);
	return -EINVAL;
}

static int online_cpus(int **ret, size_t *nr)
{
	char buf[1024];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		if (f)
			fclose(f);
		snprintf(buf, sizeof(buf), "0-%ld", n > 0 ? n - 1 : 0);
	} else {
		fclose(f);
	}
	return parse_cpu_list(buf, ret, nr, NULL);
}

static int setup_events(struct session *s)
{
	const struct rec_opts *o = s->o;
	const char *list = o->events ? o->events : "cycles";
	char **names;
	size_t i;
	int err;

	err = prec_evspec_split(list, &names);
	if (err)
		return err;
	for (i = 0; names[i]; i++) {
		struct event *e;

		if (s->nr_ev == MAX_EVENTS) {
			fprintf(stderr, "precord: too many events (at most %d)\n", MAX_EVENTS);
			err = -E2BIG;
			break;
		}
		e = &s->ev[s->nr_ev];
		memset(e, 0, sizeof(*e));
		err = prec_evspec_parse(names[i], "/sys", &e->attr, e->name, sizeof(e->name));
		if (err) {
			fprintf(stderr, "precord: unknown event '%s'; see 'precord --help' for event "
					"names, or use rNNNN or pmu/config=N/\n", names[i]);
			break;
		}
		s->nr_ev++;
	}
	prec_evspec_free_list(names);
	if (err)
		return err;

	for (i = 0; i < s->nr_ev; i++) {
		struct perf_event_attr *a = &s->ev[i].attr;

		a->size = sizeof(*a);
		if (o->period) {
			a->sample_period = o->period;
		} else {
			a->freq = 1;
			a->sample_freq = o->freq ? o->freq : 4000;
		}
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_PERIOD;
		if (o->all_cpus || o->cpu_list)
			a->sample_type |= PERF_SAMPLE_CPU;
		if (o->callchain || o->dwarf)
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (o->dwarf) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = 0xff0fffULL; /* x86_64: GPRs, IP, FLAGS, CS, SS */
			a->sample_stack_user = o->stack_size;
			a->exclude_callchain_user = 1;
		}
		if (s->nr_ev > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a->disabled = 1;
		a->inherit = o->all_cpus ? 0 : 1;
		a->enable_on_exec = s->o->cmd && !o->all_cpus && !o->nr_pids ? 1 : 0;
		a->sample_id_all = 1;
		if (i == 0) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->context_switch = 1;
			a->build_id = 1;
			/*
			 * A DWARF unwinder reads .eh_frame_hdr, which lives in a read-only,
			 * non-executable segment: without its map the stack copies cannot be
			 * unwound (perf record sets this for --call-graph dwarf too).
			 */
			a->mmap_data = o->dwarf;
		}
	}
	return 0;
}

static int open_one(struct session *s, struct event *e, pid_t pid, int cpu, int *ret_fd)
{
	struct perf_event_attr *a = &e->attr;
	long fd;

	for (;;) {
		fd = perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			*ret_fd = (int)fd;
			return 0;
		}
		if (errno == EINVAL && a->build_id) {
			a->build_id = 0; /* kernel < 5.12: plain MMAP2 */
			continue;
		}
		if (errno == EINVAL && (a->read_format & PERF_FORMAT_LOST)) {
			a->read_format &= ~(uint64_t)PERF_FORMAT_LOST; /* kernel < 6.0 */
			continue;
		}
		if ((errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			if (!s->o->quiet)
				fprintf(stderr, "precord: kernel samples not allowed "
						"(kernel.perf_event_paranoid=%d); recording user space "
						"only\n", paranoid());
			continue;
		}
		if ((errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) &&
		    a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES &&
		    !s->o->events) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CPU_CLOCK;
			a->precise_ip = 0;
			snprintf(e->name, sizeof(e->name), "cpu-clock");
			if (!s->o->quiet)
				fprintf(stderr, "precord: no hardware cycles event on this machine; "
						"sampling cpu-clock instead\n");
			continue;
		}
		return -errno;
	}
}

static void report_open_error(struct session *s, struct event *e, pid_t pid, int cpu, int err)
{
	if (err == -EACCES || err == -EPERM)
		fprintf(stderr, "precord: cannot open %s on CPU %d: permission denied "
				"(kernel.perf_event_paranoid=%d); run as root or lower it with "
				"'sysctl kernel.perf_event_paranoid=1'\n", e->name, cpu, paranoid());
	else if (err == -EMFILE || err == -ENFILE)
		fprintf(stderr, "precord: too many open files opening %s on CPU %d; raise the "
				"limit with 'ulimit -n' or record fewer CPUs (-C)\n", e->name, cpu);
	else if (err == -ESRCH)
		fprintf(stderr, "precord: process %d does not exist (any more); check the PID\n",
			(int)pid);
	else if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		fprintf(stderr, "precord: event %s is not supported on this machine; try "
				"-e cpu-clock\n", e->name);
	else
		fprintf(stderr, "precord: cannot open %s on CPU %d: %s\n", e->name, cpu,
			strerror(-err));
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int open_events(struct session *s)
{
	size_t e, c, t, k = 0;
	int err;

	s->nr_fds = s->nr_ev * s->nr_cpus * s->nr_tids;
	s->fds = malloc(s->nr_fds * sizeof(int));
	s->rings = calloc(s->nr_cpus, sizeof(*s->rings));
	if (!s->fds || !s->rings)
		return -ENOMEM;
	for (k = 0; k < s->nr_fds; k++)
		s->fds[k] = -1;
	k = 0;
	for (e = 0; e < s->nr_ev; e++) {
		struct event *ev = &s->ev[e];

		ev->ids = calloc(s->nr_cpus * s->nr_tids, sizeof(uint64_t));
		if (!ev->ids)
			return -ENOMEM;
		for (c = 0; c < s->nr_cpus; c++) {
			for (t = 0; t < s->nr_tids; t++, k++) {
				int fd = -1;

				err = open_one(s, ev, s->tids[t], s->cpus[c], &fd);
				if (err == -ESRCH && s->o->nr_pids && s->nr_tids > 1)
					continue; /* a thread exited while we attached */
				if (err) {
					report_open_error(s, ev, s->tids[t], s->cpus[c], err);
					return err;
				}
				s->fds[k] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &ev->ids[ev->nr_ids]) == 0)
					ev->nr_ids++;
				if (!s->rings[c].ring) {
					err = prec_ring__map(fd, s->o->mmap_pages, &s->rings[c].ring);
					if (err) {
						fprintf(stderr, "precord: cannot map a %zu-page ring "
								"buffer: %s; use a smaller -m or raise "
								"kernel.perf_event_mlock_kb\n",
							s->o->mmap_pages, strerror(-err));
						return err;
					}
					s->rings[c].fd = fd;
					s->rings[c].cpu = s->cpus[c];
					s->nr_rings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[c].fd)) {
					err = -errno;
					fprintf(stderr, "precord: cannot share the CPU %d ring: %s\n",
						s->cpus[c], strerror(-err));
					return err;
				}
			}
		}
	}
	return 0;
}

static void enable_events(struct session *s, bool on)
{
	size_t k;

	for (k = 0; k < s->nr_fds; k++)
		if (s->fds[k] >= 0)
			ioctl(s->fds[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* ---- workload ---- */

static int start_workload(struct session *s)
{
	int go[2], errp[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(errp[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		/* with -o -, standard output carries the stream: keep the workload off it */
		if (!strcmp(s->o->output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(s->o->cmd[0], s->o->cmd);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	s->child = pid;
	s->go_fd = go[1];
	s->err_fd = errp[0];
	return 0;
}

/* Release the workload; returns 0 once exec succeeded, or the exec errno (negative). */
static int release_workload(struct session *s)
{
	char c = 1;
	int e = 0;
	ssize_t n;

	if (write(s->go_fd, &c, 1) != 1)
		return -EPIPE;
	close(s->go_fd);
	s->go_fd = -1;
	n = read(s->err_fd, &e, sizeof(e));
	close(s->err_fd);
	s->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

/* ---- writing ---- */

static void report_write_error(struct session *s, int err)
{
	if (s->write_failed)
		return;
	s->write_failed = true;
	fprintf(stderr, "precord: cannot write '%s': %s; recording stopped, the file is valid up "
			"to the last flush%s\n", s->o->output, strerror(-err),
		s->child > 0 ? "; the workload keeps running" : "");
}

static int ring_to_writer(void *ctx, const void *data, size_t len)
{
	struct session *s = ctx;
	int err;

	if (s->write_failed)
		return 0; /* drop: the ring must not fill up and stall nothing else */
	err = prec_writer__add_raw(s->w, data, len);
	if (err)
		report_write_error(s, err);
	return 0;
}

static void drain_all(struct session *s)
{
	uint64_t before = s->st.bytes;
	size_t i;
	int err;

	for (i = 0; i < s->nr_rings; i++)
		prec_ring__drain(s->rings[i].ring, ring_to_writer, s, &s->st);
	if (s->st.bytes != before && !s->write_failed) {
		err = prec_writer__add_finished_round(s->w);
		if (err)
			report_write_error(s, err);
	}
}

static void flush(struct session *s)
{
	int err;

	if (s->write_failed)
		return;
	err = prec_writer__flush(s->w);
	if (err)
		report_write_error(s, err);
}

static int open_output(struct session *s)
{
	const char *path = s->o->output;
	char old[4096];
	struct stat st;
	int fd;

	if (!strcmp(path, "-")) {
		s->out_fd = STDOUT_FILENO;
		return 0;
	}
	/* like perf: keep the previous recording as FILE.old (regular files only) */
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size) {
		snprintf(old, sizeof(old), "%s.old", path);
		if (rename(path, old)) {
			fprintf(stderr, "precord: cannot rename '%s' to '%s': %s\n", path, old,
				strerror(errno));
			return -errno;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = -errno;

		fprintf(stderr, "precord: cannot create '%s': %s; choose another file with -o\n",
			path, strerror(-err));
		return err;
	}
	s->out_fd = fd;
	return 0;
}

static int write_header(struct session *s)
{
	const char *names[MAX_EVENTS];
	struct prec_writer_opts wo = { .compress_level = s->o->zlevel };
	size_t i;
	int err;

	err = prec_writer__new(s->out_fd, &wo, &s->w);
	for (i = 0; !err && i < s->nr_ev; i++)
		err = prec_writer__add_attr(s->w, &s->ev[i].attr, s->ev[i].ids, s->ev[i].nr_ids);
	if (!err)
		err = synth_features(s->w, s->o->argc_all, s->o->argv_all);
	for (i = 0; i < s->nr_ev; i++)
		names[i] = s->ev[i].name;
	if (!err)
		err = prec_writer__add_event_desc(s->w, names);
	if (!err)
		err = prec_writer__end_header(s->w);
	if (!err)
		err = synth_kernel_mmap(s->w);
	if (!err && s->o->all_cpus)
		err = synth_all_processes(s->w, s->o->dwarf);
	for (i = 0; !err && i < s->o->nr_pids && !s->o->all_cpus; i++)
		err = synth_process(s->w, s->o->pids[i], s->o->dwarf);
	if (!err && s->child > 0)
		err = prec_writer__add_comm(s->w, (uint32_t)s->child, (uint32_t)s->child,
					    "precord", false, NULL);
	if (!err)
		err = prec_writer__add_finished_init(s->w);
	if (!err)
		err = prec_writer__flush(s->w);
	if (err)
		fprintf(stderr, "precord: cannot write '%s': %s\n", s->o->output, strerror(-err));
	return err;
}

static int collect_tids(struct session *s)
{
	const struct rec_opts *o = s->o;
	size_t i;

	if (o->all_cpus || (!o->cmd && !o->nr_pids)) {
		s->tids = malloc(sizeof(pid_t));
		if (!s->tids)
			return -ENOMEM;
		s->tids[0] = -1;
		s->nr_tids = 1;
		return 0;
	}
	if (o->cmd) {
		s->tids = malloc(sizeof(pid_t));
		if (!s->tids)
			return -ENOMEM;
		s->tids[0] = s->child;
		s->nr_tids = 1;
		return 0;
	}
	for (i = 0; i < o->nr_pids; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)o->pids[i]);
		d = o->threads_only ? NULL : opendir(path);
		if (!d) {
			char p2[64];

			snprintf(p2, sizeof(p2), "/proc/%d", (int)o->pids[i]);
			if (access(p2, F_OK)) {
				fprintf(stderr, "precord: process %d does not exist; check the PID\n",
					(int)o->pids[i]);
				return -ESRCH;
			}
			s->tids = realloc(s->tids, (s->nr_tids + 1) * sizeof(pid_t));
			if (!s->tids)
				return -ENOMEM;
			s->tids[s->nr_tids++] = o->pids[i];
			continue;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			s->tids = realloc(s->tids, (s->nr_tids + 1) * sizeof(pid_t));
			if (!s->tids) {
				closedir(d);
				return -ENOMEM;
			}
			s->tids[s->nr_tids++] = (pid_t)atoi(de->d_name);
		}
		closedir(d);
	}
	return 0;
}

/*
 * Samples the kernel dropped because a ring was full, per event (PERF_FORMAT_LOST), written
 * as LOST_SAMPLES records like perf does.  Returns the total.
 */
static uint64_t write_lost_samples(struct session *s)
{
	uint64_t total = 0;
	size_t e, k, per = s->nr_cpus * s->nr_tids;

	for (e = 0; e < s->nr_ev; e++) {
		uint64_t lost = 0, v[3];

		if (!(s->ev[e].attr.read_format & PERF_FORMAT_LOST))
			continue;
		for (k = e * per; k < (e + 1) * per; k++)
			if (s->fds[k] >= 0 && read(s->fds[k], v, sizeof(v)) == (ssize_t)sizeof(v))
				lost += v[2];
		if (lost && !s->write_failed) {
			struct prec_sample_id sid = { 0 };
			int err;

			sid.id = s->ev[e].nr_ids ? s->ev[e].ids[0] : 0;
			err = prec_writer__add_lost_samples(s->w, lost, &sid);
			if (err)
				report_write_error(s, err);
		}
		total += lost;
	}
	return total;
}

static const char *fmt_bytes(uint64_t n, char *buf, size_t len)
{
	if (n < 10 * 1024)
		snprintf(buf, len, "%" PRIu64 " B", n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)n / 1024);
	else
		snprintf(buf, len, "%.1f MiB", (double)n / (1024 * 1024));
	return buf;
}

static void summary(struct session *s, double secs)
{
	struct prec_writer_stats ws;
	char b1[32], b2[32];
	double ratio, pct;

	if (s->o->quiet || !s->w)
		return;
	prec_writer__get_stats(s->w, &ws);
	ratio = ws.written_bytes ? (double)ws.raw_bytes / (double)ws.written_bytes : 0;
	pct = s->st.samples + s->st.lost ?
		100.0 * (double)s->st.lost / (double)(s->st.samples + s->st.lost) : 0;
	fprintf(stderr,
		"precord: %" PRIu64 " samples in %.2f s, %" PRIu64 " lost records (%" PRIu64
		" samples, %.2f%%), %" PRIu64 " throttle events; wrote %s (%s raw, "
		"%.1fx) to %s\n",
		s->st.samples, secs, s->st.lost_records, s->st.lost, pct, s->st.throttles,
		fmt_bytes(ws.written_bytes, b1, sizeof(b1)), fmt_bytes(ws.raw_bytes, b2, sizeof(b2)),
		ratio, strcmp(s->o->output, "-") ? s->o->output : "standard output");
	if (s->st.lost)
		fprintf(stderr, "precord: warning: %.2f%% of samples were lost; use a larger "
				"buffer (-m) or a lower frequency (-F)\n", pct);
	if (s->st.bad)
		fprintf(stderr, "precord: warning: %" PRIu64 " ring buffer overruns skipped\n",
			s->st.bad);
}

static void free_session(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_rings; i++)
		prec_ring__free(s->rings[i].ring);
	for (i = 0; s->fds && i < s->nr_fds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	for (i = 0; i < s->nr_ev; i++)
		free(s->ev[i].ids);
	prec_writer__free(s->w);
	free(s->rings);
	free(s->fds);
	free(s->cpus);
	free(s->tids);
	if (s->out_fd > STDERR_FILENO)
		close(s->out_fd);
}

static int exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int record_run(const struct rec_opts *o)
{
	struct session s = { .o = o, .child = -1, .go_fd = -1, .err_fd = -1, .out_fd = -1 };
	struct sigaction sa;
	uint64_t start, next_flush, deadline = 0, lost;
	int status = 0, rc = 1, err;
	bool child_done = false, timed_out = false;
	struct pollfd *pfd = NULL;
	size_t i;

	raise_fd_limit();
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
		fprintf(stderr, "precord: cannot create a pipe: %s\n", strerror(errno));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (o->cpu_list) {
		if (parse_cpu_list(o->cpu_list, &s.cpus, &s.nr_cpus, o->cpu_list))
			goto out;
		for (i = 0; i < s.nr_cpus; i++) {
			char p[96];

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d", s.cpus[i]);
			if (access(p, F_OK)) {
				fprintf(stderr, "precord: bad CPU list '%s': CPU %d does not exist; "
						"this machine has CPUs 0-%ld\n", o->cpu_list,
					s.cpus[i], sysconf(_SC_NPROCESSORS_CONF) - 1);
				goto out;
			}
		}
	} else if (online_cpus(&s.cpus, &s.nr_cpus)) {
		fprintf(stderr, "precord: cannot read the list of online CPUs\n");
		goto out;
	}
	if (setup_events(&s))
		goto out;
	if (o->cmd && start_workload(&s)) {
		fprintf(stderr, "precord: cannot start '%s': %s\n", o->cmd[0], strerror(errno));
		goto out;
	}
	if (collect_tids(&s) || open_events(&s))
		goto out;
	if (open_output(&s) || write_header(&s))
		goto out;

	start = now_ms();
	if (o->duration > 0)
		deadline = start + (uint64_t)(o->duration * 1000);
	if (!(o->cmd && !o->all_cpus && !o->nr_pids))
		enable_events(&s, true);
	if (o->cmd) {
		err = release_workload(&s);
		if (err) {
			fprintf(stderr, "precord: cannot run '%s': %s\n", o->cmd[0], strerror(-err));
			waitpid(s.child, NULL, 0);
			s.child = -1;
			rc = err == -ENOENT ? 127 : 126; /* as shells do */
			/* a complete, empty recording: not one that was cut short */
			err = prec_writer__finish(s.w);
			if (err)
				report_write_error(&s, err);
			goto out;
		}
	}

	pfd = calloc(s.nr_rings + 1, sizeof(*pfd));
	if (!pfd)
		goto out;
	for (i = 0; i < s.nr_rings; i++) {
		pfd[i].fd = s.rings[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[s.nr_rings].fd = sig_pipe[0];
	pfd[s.nr_rings].events = POLLIN;
	next_flush = start + o->flush_ms;

	while (!got_stop) {
		uint64_t now = now_ms();
		int timeout = next_flush > now ? (int)(next_flush - now) : 0;
		size_t hup = 0;

		if (deadline && deadline <= now) {
			timed_out = true;
			break;
		}
		if (deadline && (int)(deadline - now) < timeout)
			timeout = (int)(deadline - now);
		if (poll(pfd, s.nr_rings + 1, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[s.nr_rings].revents) {
			char buf[64];

			while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
				;
		}
		if (got_child && s.child > 0 && !child_done) {
			got_child = 0;
			if (waitpid(s.child, &status, WNOHANG) == s.child)
				child_done = true;
		}
		drain_all(&s);
		for (i = 0; i < s.nr_rings; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR)) {
				pfd[i].fd = -1;
				hup++;
			} else if (pfd[i].fd < 0) {
				hup++;
			}
		if (now_ms() >= next_flush) {
			flush(&s);
			next_flush = now_ms() + o->flush_ms;
		}
		if (child_done || (s.nr_rings && hup == s.nr_rings))
			break;
	}

	enable_events(&s, false);
	drain_all(&s);
	lost = write_lost_samples(&s);
	if (lost > s.st.lost)
		s.st.lost = lost; /* the LOST records and the counters describe the same drops */
	if (s.child > 0 && !child_done) {
		if (got_stop || timed_out)
			kill(s.child, SIGTERM); /* the workload does not outlive the recording */
		waitpid(s.child, &status, 0);
		child_done = true;
	}
	if (!s.write_failed) {
		err = prec_writer__finish(s.w);
		if (err)
			report_write_error(&s, err);
	}
	summary(&s, (double)(now_ms() - start) / 1000.0);
	if (s.out_fd >= 0 && s.out_fd != STDOUT_FILENO && close(s.out_fd) && !s.write_failed)
		report_write_error(&s, -errno);
	s.out_fd = -1;
	if (child_done && o->cmd)
		rc = exit_status(status);
	else
		rc = s.write_failed ? 1 : 0;
	if (s.write_failed && rc == 0)
		rc = 1;
out:
	if (s.child > 0 && !child_done) {
		kill(s.child, SIGKILL);
		waitpid(s.child, NULL, 0);
	}
	free(pfd);
	free_session(&s);
	return rc;
}
