/* SPDX-License-Identifier: MIT */
/*
 * Sampling events opened per CPU and per target thread, and their rings.
 *
 * Layout: fds[e][c][t] for event e, CPU c, thread t (-1 where a thread was skipped); the
 * first fd opened on a CPU owns that CPU's ring and every later fd of the CPU is redirected
 * into it (PERF_EVENT_IOC_SET_OUTPUT), so one drain per CPU sees all events in the order the
 * kernel wrote them.  The attrs are fixed once the first fd opens: the fallbacks taken while
 * opening (older kernels, kernel samples refused, no PMU) change the attr in place, so every
 * fd of an event has the same attr, which is the one written to the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "prec_events.h"
#include "prec_evspec.h"
#include "prec_log.h"

struct event {
	struct perf_event_attr attr;
	char name[128];
	uint64_t *ids;
	size_t nr_ids;
};

struct cpu_ring {
	int fd; /* the fd the ring is mapped from */
	struct prec_ring *ring;
};

struct prec_events {
	struct event ev[PREC_EVENTS_MAX];
	size_t nr_ev;
	size_t mmap_pages;
	int *fds;
	size_t nr_fds, per_event; /* per_event = nr_cpus x nr_tids */
	struct cpu_ring *rings;
	size_t nr_rings;
};

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

int prec_clockid_parse(const char *name, int *ret)
{
	static const struct {
		const char *name, *alias;
		int id;
	} clocks[] = {
		{ "monotonic", "mono", CLOCK_MONOTONIC },
		{ "monotonic_raw", "raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", "real", CLOCK_REALTIME },
		{ "boottime", "boot", CLOCK_BOOTTIME },
		{ "tai", "tai", CLOCK_TAI },
	};
	char *end;
	long v;
	size_t i;

	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(name, clocks[i].name) || !strcasecmp(name, clocks[i].alias) ||
		    (!strncasecmp(name, "CLOCK_", 6) && !strcasecmp(name + 6, clocks[i].name))) {
			*ret = clocks[i].id;
			return 0;
		}
	v = strtol(name, &end, 10);
	if (!*name || *end || v < 0 || v > 15)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int prec_perf_paranoid(void)
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

bool prec_pid_may_be_traced(pid_t pid)
{
	char path[64];
	struct stat st;

	if (pid <= 0 || geteuid() == 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) || st.st_uid == geteuid();
}

static void set_attr(struct perf_event_attr *a, const struct prec_events_opts *o, bool first,
		     bool several)
{
	a->size = sizeof(*a);
	if (o->period) {
		a->sample_period = o->period;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (o->cpu_field)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (o->callchain || o->dwarf)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->dwarf) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = 0xff0fffULL; /* x86_64: GPRs, IP, FLAGS, CS, SS */
		a->sample_stack_user = o->stack_size;
		a->exclude_callchain_user = 1;
	}
	if (several)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = 1;
	a->inherit = o->inherit;
	a->enable_on_exec = o->enable_on_exec;
	a->sample_id_all = 1;
	if (o->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = o->switch_events;
		/*
		 * Never attr.build_id: the kernel sets the build-id flag in the mmap event it
		 * shares with every listener and does not clear it for the others, which
		 * breaks concurrent perf sessions.  Build-ids come from user space instead.
		 */
		/*
		 * A DWARF unwinder reads .eh_frame_hdr, which lives in a read-only,
		 * non-executable segment: without its map the stack copies cannot be
		 * unwound (perf record sets this for --call-graph dwarf too).
		 */
		a->mmap_data = o->dwarf;
	}
}

int prec_events__new(const struct prec_events_opts *o, struct prec_events **ret,
		     struct prec_events_error *ret_err)
{
	struct prec_events *ev;
	char **names;
	size_t i;
	int err;

	memset(ret_err, 0, sizeof(*ret_err));
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->mmap_pages = o->mmap_pages;
	err = prec_evspec_split(o->events ? o->events : "cycles", &names);
	if (err) {
		free(ev);
		return err;
	}
	for (i = 0; names[i]; i++) {
		struct event *e = &ev->ev[ev->nr_ev];

		snprintf(ret_err->spec, sizeof(ret_err->spec), "%s", names[i]);
		if (ev->nr_ev == PREC_EVENTS_MAX) {
			ret_err->what = PREC_EVENTS_ERR_TOO_MANY;
			err = -E2BIG;
			break;
		}
		err = prec_evspec_parse(names[i], "/sys", &e->attr, e->name, sizeof(e->name));
		if (err) {
			ret_err->what = PREC_EVENTS_ERR_SPEC;
			break;
		}
		ev->nr_ev++;
	}
	prec_evspec_free_list(names);
	if (err) {
		ret_err->err = err;
		free(ev);
		return err;
	}
	memset(ret_err, 0, sizeof(*ret_err));
	for (i = 0; i < ev->nr_ev; i++)
		set_attr(&ev->ev[i].attr, o, i == 0, ev->nr_ev > 1);
	*ret = ev;
	return 0;
}

/* Open one fd, taking the usual ways out of a refusal (see the header). */
static int open_one(struct event *e, pid_t pid, int cpu, int *ret_fd)
{
	struct perf_event_attr *a = &e->attr;
	long fd;

	for (;;) {
		fd = perf_event_open(a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			*ret_fd = (int)fd;
			return 0;
		}
		if (errno == EINVAL && (a->read_format & PERF_FORMAT_LOST)) {
			a->read_format &= ~(uint64_t)PERF_FORMAT_LOST; /* kernel < 6.0 */
			continue;
		}
		/*
		 * Kernel samples refused (paranoid 2 or more): fall back to user space only,
		 * unless user space was excluded (`-e cpu-clock:k`), which would record nothing
		 * at all.  Not for a per-CPU event (pid -1): one refused at 2 is refused at 1
		 * too, for sampling whole CPUs, and the caller says what would allow it.
		 */
		if ((errno == EACCES || errno == EPERM) && !a->exclude_kernel && !a->exclude_user &&
		    pid != -1 && prec_perf_paranoid() >= 2 && prec_pid_may_be_traced(pid)) {
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			prec_warn("kernel samples not allowed at kernel.perf_event_paranoid=%d "
				  "(1 or lower allows them, or CAP_PERFMON); recording user space "
				  "only", prec_perf_paranoid());
			continue;
		}
		/* cycles, asked for or by default, on a machine without a PMU (most VMs) */
		if ((errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV) &&
		    a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES) {
			a->type = PERF_TYPE_SOFTWARE;
			a->config = PERF_COUNT_SW_CPU_CLOCK;
			a->precise_ip = 0;
			snprintf(e->name, sizeof(e->name), "cpu-clock");
			prec_warn("no hardware cycles event on this machine; sampling cpu-clock "
				  "instead");
			continue;
		}
		return -errno;
	}
}

static int fail(struct prec_events_error *ret_err, int what, int err, const struct event *e,
		int cpu, pid_t pid)
{
	ret_err->what = what;
	ret_err->err = err;
	ret_err->cpu = cpu;
	ret_err->pid = pid;
	ret_err->excludes_user = e->attr.exclude_user;
	snprintf(ret_err->spec, sizeof(ret_err->spec), "%s", e->name);
	return err;
}

int prec_events__open(struct prec_events *ev, const int *cpus, size_t nr_cpus, const pid_t *tids,
		      size_t nr_tids, bool skip_gone, struct prec_events_error *ret_err)
{
	size_t e, c, t, k;
	int err;

	memset(ret_err, 0, sizeof(*ret_err));
	ev->per_event = nr_cpus * nr_tids;
	ev->nr_fds = ev->nr_ev * ev->per_event;
	ev->fds = malloc(ev->nr_fds * sizeof(int));
	ev->rings = calloc(nr_cpus, sizeof(*ev->rings));
	if (!ev->fds || !ev->rings)
		return -ENOMEM;
	for (k = 0; k < ev->nr_fds; k++)
		ev->fds[k] = -1;
	k = 0;
	for (e = 0; e < ev->nr_ev; e++) {
		struct event *evt = &ev->ev[e];

		evt->ids = calloc(ev->per_event, sizeof(uint64_t));
		if (!evt->ids)
			return -ENOMEM;
		for (c = 0; c < nr_cpus; c++) {
			struct cpu_ring *r = &ev->rings[c];

			for (t = 0; t < nr_tids; t++, k++) {
				int fd = -1;

				err = open_one(evt, tids[t], cpus[c], &fd);
				if (err == -ESRCH && skip_gone && nr_tids > 1)
					continue; /* a thread exited while we attached */
				if (err)
					return fail(ret_err, PREC_EVENTS_ERR_OPEN, err, evt,
						    cpus[c], tids[t]);
				ev->fds[k] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &evt->ids[evt->nr_ids]) == 0)
					evt->nr_ids++;
				if (!r->ring) {
					err = prec_ring__map(fd, ev->mmap_pages, &r->ring);
					if (err)
						return fail(ret_err, PREC_EVENTS_ERR_MAP, err, evt,
							    cpus[c], tids[t]);
					r->fd = fd;
					ev->nr_rings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
					return fail(ret_err, PREC_EVENTS_ERR_OUTPUT, -errno, evt,
						    cpus[c], tids[t]);
				}
			}
		}
	}
	/* rings are mapped in CPU order, but a CPU whose threads all exited has none */
	for (c = 0, k = 0; c < nr_cpus; c++)
		if (ev->rings[c].ring)
			ev->rings[k++] = ev->rings[c];
	return 0;
}

void prec_events__enable(struct prec_events *ev, bool on)
{
	size_t k;

	for (k = 0; k < ev->nr_fds; k++)
		if (ev->fds[k] >= 0)
			ioctl(ev->fds[k], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

size_t prec_events__nr(const struct prec_events *ev)
{
	return ev->nr_ev;
}

const struct perf_event_attr *prec_events__attr(const struct prec_events *ev, size_t i)
{
	return &ev->ev[i].attr;
}

const char *prec_events__name(const struct prec_events *ev, size_t i)
{
	return ev->ev[i].name;
}

const uint64_t *prec_events__ids(const struct prec_events *ev, size_t i, size_t *ret_nr)
{
	*ret_nr = ev->ev[i].nr_ids;
	return ev->ev[i].ids;
}

size_t prec_events__nr_rings(const struct prec_events *ev)
{
	return ev->nr_rings;
}

struct prec_ring *prec_events__ring(const struct prec_events *ev, size_t i)
{
	return ev->rings[i].ring;
}

size_t prec_events__nr_fds(const struct prec_events *ev)
{
	return ev->nr_fds;
}

int prec_events__fd(const struct prec_events *ev, size_t k)
{
	return ev->fds[k];
}

uint64_t prec_events__lost_samples(const struct prec_events *ev, size_t i)
{
	uint64_t lost = 0, v[3];
	size_t k;

	if (!(ev->ev[i].attr.read_format & PERF_FORMAT_LOST) || !ev->fds)
		return 0;
	/* read_format ID|LOST: value, id, lost */
	for (k = i * ev->per_event; k < (i + 1) * ev->per_event; k++)
		if (ev->fds[k] >= 0 && read(ev->fds[k], v, sizeof(v)) == (ssize_t)sizeof(v))
			lost += v[2];
	return lost;
}

void prec_events__free(struct prec_events *ev)
{
	size_t i;

	if (!ev)
		return;
	for (i = 0; ev->rings && i < ev->nr_rings; i++)
		prec_ring__free(ev->rings[i].ring);
	for (i = 0; ev->fds && i < ev->nr_fds; i++)
		if (ev->fds[i] >= 0)
			close(ev->fds[i]);
	for (i = 0; i < ev->nr_ev; i++)
		free(ev->ev[i].ids);
	free(ev->rings);
	free(ev->fds);
	free(ev);
}

int prec_cpus_parse(const char *s, int **ret, size_t *ret_nr)
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
	*ret_nr = n;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

int prec_cpus_read(const char *path, int **ret, size_t *ret_nr)
{
	char buf[1024];
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	err = fgets(buf, sizeof(buf), f) ? prec_cpus_parse(buf, ret, ret_nr) : -EIO;
	fclose(f);
	return err;
}

int prec_cpus_online(int **ret, size_t *ret_nr)
{
	char buf[64];
	long n;

	if (!prec_cpus_read("/sys/devices/system/cpu/online", ret, ret_nr))
		return 0;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "0-%ld", n > 0 ? n - 1 : 0);
	return prec_cpus_parse(buf, ret, ret_nr);
}
