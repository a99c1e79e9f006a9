/* SPDX-License-Identifier: MIT */
/*
 * The recording session (see prec_session.h).  Invariants:
 *  - The events and rings live as long as the session; an output (writer on an fd) comes
 *    and goes, its writer kept as `spare` for the next one (reset, not made anew).  Records
 *    are handed to the writer only between begin_output and end_output; drained at any
 *    other time (or after a write error) they are dropped and counted.
 *  - `st` holds the session's running ring totals; an output's totals are the difference
 *    from `out_base`, taken when it began.
 *  - The lost-sample counters of the kernel are running totals too: each output gets a
 *    LOST_SAMPLES record for what was lost since the previous output ended.
 *  - With drop_unsampled, `held` is the previous drain round, not written yet, and `cur`
 *    the round being drained; both are empty outside an output.  A round is written whole
 *    (less what the filter leaves out), in drain order.
 *  - With keep_tasks, every record drained passes by the task table, written or not (with
 *    drop_unsampled, a round as it is written, less what the filter leaves out: those
 *    processes have no sample to name), and each drain (a pass over every ring) ends the
 *    table's pass: a new output's state is what the rings had told when it began.
 *  - A FINISHED_ROUND comes only between two whole passes over the rings (end_round).
 *    The filter is sound because the samples of a process precede its last EXIT in time: a
 *    sample drained after the EXIT's round was published before the next round's drain of
 *    its ring began.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_buildid.h"
#include "prec_session.h"
#include "prec_synth.h"
#include "prec_tasks.h"
#include "prec_writer.h"

/*
 * A FINISHED_ROUND after a drain pass once this many record bytes were written since the
 * last one, and at every flush.  Each one ends the compressed group, and zstd costs twice as
 * much per byte in 4 KiB groups as in 32 KiB ones; readers hold about two rounds in memory.
 */
#define ROUND_MIN_BYTES (64u * 1024)

/* A process as one drain round saw it (drop_unsampled). */
struct proc {
	uint32_t pid;
	uint32_t ppid; /* from the FORK that made it, when born */
	int32_t threads; /* FORKs minus EXITs of its threads in the round */
	bool born; /* the FORK that made the process is in the round */
	bool sampled;
	bool drop; /* its side records are left out */
};

/* A drain round held back (drop_unsampled): its records and the processes they name. */
struct round {
	struct prec_buf recs; /* whole records, ring after ring, as drained */
	uint64_t samples;
	bool unsure; /* a sample whose pid could not be read: nothing is left out */
	struct proc *procs;
	size_t nr_procs, cap_procs;
	uint32_t *slots; /* index + 1 into procs, 0: free; a power of two, at most half full */
	uint32_t nr_slots;
};

struct prec_session {
	struct prec_session_opts o;
	struct prec_events *ev;
	int *cpus;
	size_t nr_cpus;
	pid_t *tids; /* -1 alone for system-wide */
	size_t nr_tids;
	struct pollfd *pfd; /* one per open event fd (nr_pfd), then the caller's wake fd */
	size_t nr_pfd;
	struct prec_buildid_cache *bids; /* build-ids from user space, not attr.build_id */
	size_t nr_hup;
	struct prec_tasks *tasks; /* keep_tasks: the targets' tasks, as drained */
	uint64_t tasks_lost; /* ring records lost when the table last heard of it */

	struct prec_ring_stats st;
	uint64_t dropped, raw_total, written_total;
	uint64_t lost_reported[PREC_EVENTS_MAX]; /* lost samples already written, per event */
	uint64_t lost_base; /* the counters' sum when the current output began */

	/* the current output */
	struct prec_writer *w;
	struct prec_writer *spare; /* the last output's, kept for the next (its memory) */
	int werr;
	struct prec_ring_stats out_base;
	uint64_t out_dropped_base;
	uint64_t handed; /* samples of the output handed to the writer */
	uint64_t unrounded; /* record bytes written since the last FINISHED_ROUND */
	uint64_t kept_samples, kept_raw;
	struct round rounds[2];
	struct round *held, *cur; /* drop_unsampled: the round waiting, the round draining */
};

/* The threads to open events for: -1 (system-wide), the workload, or those of the pids. */
static int collect_tids(struct prec_session *s, struct prec_events_error *ret_err)
{
	const struct prec_session_opts *o = &s->o;
	size_t i;

	if (!o->nr_pids) {
		s->tids = malloc(sizeof(pid_t));
		if (!s->tids)
			return -ENOMEM;
		s->tids[0] = o->system_wide || o->workload <= 0 ? -1 : o->workload;
		s->nr_tids = 1;
		return 0;
	}
	for (i = 0; i < o->nr_pids; i++) {
		char path[64];
		struct dirent *de;
		pid_t *nt;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)o->pids[i]);
		d = o->threads_only ? NULL : opendir(path);
		if (!d) {
			snprintf(path, sizeof(path), "/proc/%d", (int)o->pids[i]);
			if (access(path, F_OK)) {
				ret_err->pid = o->pids[i];
				return -ESRCH;
			}
			nt = realloc(s->tids, (s->nr_tids + 1) * sizeof(pid_t));
			if (!nt)
				return -ENOMEM;
			s->tids = nt;
			s->tids[s->nr_tids++] = o->pids[i];
			continue;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			nt = realloc(s->tids, (s->nr_tids + 1) * sizeof(pid_t));
			if (!nt) {
				closedir(d);
				return -ENOMEM;
			}
			s->tids = nt;
			s->tids[s->nr_tids++] = (pid_t)atoi(de->d_name);
		}
		closedir(d);
	}
	return 0;
}

static int collect_cpus(struct prec_session *s, struct prec_events_error *ret_err)
{
	size_t i;
	int err;

	if (!s->o.cpu_list)
		return prec_cpus_online(&s->cpus, &s->nr_cpus);
	err = prec_cpus_parse(s->o.cpu_list, &s->cpus, &s->nr_cpus);
	ret_err->cpu = -1;
	if (err)
		return err;
	for (i = 0; i < s->nr_cpus; i++) {
		char p[96];

		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d", s->cpus[i]);
		if (access(p, F_OK)) {
			ret_err->cpu = s->cpus[i];
			return -EINVAL;
		}
	}
	return 0;
}

int prec_session__new(const struct prec_session_opts *o, struct prec_session **ret,
		      struct prec_events_error *ret_err)
{
	struct prec_events_opts eo = o->ev;
	struct prec_session *s;
	size_t i;
	int err;

	memset(ret_err, 0, sizeof(*ret_err));
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->o.drop_unsampled = o->drop_unsampled && !o->ev.switch_events;
	s->werr = 0;
	s->held = &s->rounds[0];
	s->cur = &s->rounds[1];
	err = collect_cpus(s, ret_err);
	if (!err)
		err = collect_tids(s, ret_err);
	if (err)
		goto fail;
	eo.cpu_field = o->system_wide || o->cpu_list;
	/* as perf: -t records the threads named, not those they start */
	eo.inherit = !o->system_wide && !o->threads_only;
	eo.enable_on_exec = o->workload > 0 && !o->system_wide && !o->nr_pids;
	err = prec_buildid_cache__new(0, &s->bids);
	if (!err)
		err = prec_events__new(&eo, &s->ev, ret_err);
	if (!err)
		err = prec_events__open(s->ev, s->cpus, s->nr_cpus, s->tids, s->nr_tids,
					o->nr_pids > 0, ret_err);
	if (err)
		goto fail;
	/* every event fd, not only the rings': a ring's first thread may exit before the others
	 * writing into it (a leader's pthread_exit) */
	s->pfd = calloc(prec_events__nr_fds(s->ev) + 1, sizeof(*s->pfd));
	if (!s->pfd) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < prec_events__nr_fds(s->ev); i++) {
		if (prec_events__fd(s->ev, i) < 0)
			continue;
		s->pfd[s->nr_pfd].fd = prec_events__fd(s->ev, i);
		s->pfd[s->nr_pfd++].events = POLLIN;
	}
	if (o->keep_tasks && (o->system_wide || o->nr_pids)) {
		struct prec_sample_layout l;

		/* side records come from the first event, in its trailer layout */
		prec_sample_layout__init(&l, prec_events__attr(s->ev, 0));
		err = prec_tasks__new(&l, o->ev.clockid, o->ev.dwarf, &s->tasks);
		if (err)
			goto fail;
	}
	*ret = s;
	return 0;
fail:
	prec_session__free(s);
	return err;
}

void prec_session__free(struct prec_session *s)
{
	size_t i;

	if (!s)
		return;
	prec_writer__free(s->w);
	prec_writer__free(s->spare);
	for (i = 0; i < 2; i++) {
		prec_buf__release(&s->rounds[i].recs);
		free(s->rounds[i].procs);
		free(s->rounds[i].slots);
	}
	prec_buildid_cache__free(s->bids);
	prec_tasks__free(s->tasks);
	prec_events__free(s->ev);
	free(s->pfd);
	free(s->cpus);
	free(s->tids);
	free(s);
}

void prec_session__enable(struct prec_session *s, bool on)
{
	prec_events__enable(s->ev, on);
}

/* The sum of the kernel's lost-sample counters, a running total. */
static uint64_t lost_samples(const struct prec_session *s)
{
	uint64_t n = 0;
	size_t e;

	for (e = 0; e < prec_events__nr(s->ev); e++)
		n += prec_events__lost_samples(s->ev, e);
	return n;
}

static void set_werr(struct prec_session *s, int err)
{
	if (err && !s->werr)
		s->werr = err;
}

/* Note what the last successful flush put in the file for good. */
static void kept(struct prec_session *s)
{
	struct prec_writer_stats ws;

	prec_writer__get_stats(s->w, &ws);
	s->kept_samples = s->handed;
	s->kept_raw = ws.raw_bytes;
}

/*
 * Read /proc into the task table if it was never read or may be wrong.  On failure (no
 * memory) the table is dropped: from then on each output reads /proc, as without it.
 */
static int seed_tasks(struct prec_session *s)
{
	const struct prec_session_opts *o = &s->o;
	size_t i;
	int err = 0;

	if (!prec_tasks__needs_seed(s->tasks))
		return 0;
	if (o->system_wide)
		err = prec_tasks__seed_all(s->tasks);
	for (i = 0; !err && !o->system_wide && i < o->nr_pids; i++)
		err = prec_tasks__seed_process(s->tasks, o->pids[i]);
	if (err) {
		prec_tasks__free(s->tasks);
		s->tasks = NULL;
	}
	return err;
}

static int write_state(struct prec_session *s)
{
	const struct prec_session_opts *o = &s->o;
	const char *names[PREC_EVENTS_MAX];
	size_t i, n = prec_events__nr(s->ev);
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		size_t nr_ids;
		const uint64_t *ids = prec_events__ids(s->ev, i, &nr_ids);

		err = prec_writer__add_attr(s->w, prec_events__attr(s->ev, i), ids, nr_ids);
		names[i] = prec_events__name(s->ev, i);
	}
	if (!err)
		err = prec_synth_features(s->w, o->argc, o->argv);
	if (!err && o->ev.clockid >= 0)
		err = prec_synth_clock(s->w, o->ev.clockid);
	if (!err)
		err = prec_writer__add_event_desc(s->w, names);
	if (!err)
		err = prec_writer__end_header(s->w);
	if (!err)
		err = prec_synth_kernel_mmap(s->w);
	if (!err && s->tasks && !seed_tasks(s))
		err = prec_tasks__write(s->tasks, s->w, s->bids);
	else if (!err && o->system_wide)
		err = prec_synth_all_processes(s->w, o->ev.dwarf, s->bids);
	for (i = 0; !err && !s->tasks && i < o->nr_pids && !o->system_wide; i++)
		err = prec_synth_process(s->w, o->pids[i], o->ev.dwarf, s->bids);
	if (!err && o->workload > 0 && !o->system_wide && !o->nr_pids)
		/* the workload is held before exec: it is still precord's fork */
		err = prec_writer__add_comm(s->w, (uint32_t)o->workload, (uint32_t)o->workload,
					    "precord", false, NULL);
	if (!err)
		err = prec_writer__add_finished_init(s->w);
	if (!err)
		err = prec_writer__flush(s->w);
	return err;
}

int prec_session__begin_output(struct prec_session *s, int fd)
{
	struct prec_writer_opts wo = { .compress_level = s->o.zlevel };
	int err;

	if (s->w)
		return -EBUSY;
	s->werr = 0;
	s->out_base = s->st;
	s->out_dropped_base = s->dropped;
	s->lost_base = lost_samples(s);
	s->handed = s->kept_samples = s->kept_raw = s->unrounded = 0;
	prec_buildid_cache__new_epoch(s->bids); /* each output names its own files */
	if (s->spare) {
		s->w = s->spare;
		s->spare = NULL;
		err = prec_writer__reset(s->w, fd);
		if (err) {
			set_werr(s, err);
			return err;
		}
	} else {
		err = prec_writer__new(fd, &wo, &s->w);
		if (err)
			return err;
	}
	err = write_state(s);
	if (err) {
		set_werr(s, err);
		return err;
	}
	kept(s);
	return 0;
}

/* Whether drained records go into a file. */
static bool accepting(const struct prec_session *s)
{
	return s->w && !s->werr;
}

/* ---- drop_unsampled: the processes of a drain round ---- */

static struct proc *round_find(const struct round *r, uint32_t pid)
{
	uint32_t mask = r->nr_slots - 1, i;

	if (!r->nr_slots)
		return NULL;
	for (i = (pid * 0x9e3779b1u) & mask; r->slots[i]; i = (i + 1) & mask)
		if (r->procs[r->slots[i] - 1].pid == pid)
			return &r->procs[r->slots[i] - 1];
	return NULL;
}

/* Room for one more process: the slots at most half full. */
static int round_grow(struct round *r)
{
	uint32_t n = r->nr_slots ? r->nr_slots * 2 : 256, i, j;
	uint32_t *slots;
	int err;

	err = prec_array__grow((void **)&r->procs, &r->cap_procs, r->nr_procs + 1,
			       sizeof(*r->procs), 128);
	if (err)
		return err;
	if (2 * (r->nr_procs + 1) <= r->nr_slots)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < r->nr_procs; i++) {
		for (j = (r->procs[i].pid * 0x9e3779b1u) & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = i + 1;
	}
	free(r->slots);
	r->slots = slots;
	r->nr_slots = n;
	return 0;
}

/* The process `pid` of the round, added if new; NULL on -ENOMEM. */
static struct proc *round_proc(struct round *r, uint32_t pid)
{
	struct proc *p = round_find(r, pid);
	uint32_t i;

	if (p)
		return p;
	if (round_grow(r))
		return NULL;
	for (i = (pid * 0x9e3779b1u) & (r->nr_slots - 1); r->slots[i];
	     i = (i + 1) & (r->nr_slots - 1))
		;
	p = &r->procs[r->nr_procs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	r->slots[i] = (uint32_t)r->nr_procs;
	return p;
}

static void round_clear(struct round *r)
{
	r->recs.len = 0;
	r->samples = 0;
	r->unsure = false;
	if (r->nr_procs)
		memset(r->slots, 0, r->nr_slots * sizeof(*r->slots));
	r->nr_procs = 0;
}

/* The side records the filter may leave out; each begins its body with the pid. */
static bool side_record(uint32_t type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
	       type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT;
}

/* The body of FORK and EXIT. */
struct task_body {
	uint32_t pid, ppid, tid, ptid;
};

/* What record `p` (whole, 8-byte aligned) tells about the processes of round r. */
static int round_note(struct round *r, const struct prec_sample_layout *l, const unsigned char *p,
		      const struct perf_event_header *h)
{
	struct task_body t;
	struct proc *pr, *parent;

	if (h->type == PERF_RECORD_SAMPLE) {
		struct prec_sample smp;

		r->samples++;
		if (prec_sample__parse(l, p, h->size, &smp)) {
			r->unsure = true;
			return 0;
		}
		pr = round_proc(r, smp.pid);
		if (!pr)
			return -ENOMEM;
		pr->sampled = true;
		return 0;
	}
	if (!side_record(h->type) || h->size < sizeof(*h) + sizeof(t))
		return 0;
	memcpy(&t, p + sizeof(*h), sizeof(t)); /* COMM and MMAPs: pid, tid and more */
	pr = round_proc(r, t.pid);
	if (!pr)
		return -ENOMEM;
	if (h->type == PERF_RECORD_EXIT) {
		pr->threads--;
	} else if (h->type == PERF_RECORD_FORK) {
		pr->threads++;
		if (t.pid != t.ppid) { /* a new process, not a thread */
			pr->born = true;
			pr->ppid = t.ppid;
			/* seen: a parent is kept if its child is */
			parent = round_proc(r, t.ppid);
			if (!parent)
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Decide which processes of round r go: born and gone in it (as many EXITs as FORKs of its
 * threads), no sample, nothing of it in the next round (a late sample, a late child), and
 * no child that is kept.
 */
static void round_decide(struct round *r, const struct round *next)
{
	size_t i;

	for (i = 0; i < r->nr_procs; i++) {
		struct proc *p = &r->procs[i];

		p->drop = p->born && !p->threads && !p->sampled && !round_find(next, p->pid) &&
			  !r->unsure && !next->unsure;
	}
	for (i = 0; i < r->nr_procs; i++) {
		struct proc *p = &r->procs[i];

		if (!p->born || p->drop)
			continue;
		/* a kept child keeps its parents: the child's FORK names them */
		for (p = round_find(r, p->ppid); p && p->drop; p = round_find(r, p->ppid))
			p->drop = false;
	}
}

/* Whether the filter leaves record p of round r out. */
static bool left_out(const struct round *r, const unsigned char *p,
		     const struct perf_event_header *h)
{
	const struct proc *pr;
	uint32_t pid;

	if (!side_record(h->type) || h->size < sizeof(*h) + sizeof(pid))
		return false;
	memcpy(&pid, p + sizeof(*h), sizeof(pid));
	pr = round_find(r, pid);
	return pr && pr->drop;
}

/* Move the records of round r that the filter keeps together, in place, in their order. */
static void round_compact(struct round *r)
{
	unsigned char *p = r->recs.data;
	struct perf_event_header h;
	size_t off, to = 0, len = r->recs.len;

	for (off = 0; len - off >= sizeof(h); off += h.size) {
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break; /* the ring checked the run: not reached */
		if (left_out(r, p + off, &h))
			continue;
		if (to != off)
			memmove(p + to, p + off, h.size);
		to += h.size;
	}
	r->recs.len = to;
}

/* ---- to the writer ---- */

/*
 * A run of ring records to the writer, after the build-id records of the files its MMAP2s
 * map for the first time in this output (readers apply build-id records at once, so they
 * are in place before any sample in the file).  They go before the whole run, not before
 * each MMAP2: a record of ours ends the compressed group, and a flush per file cost an
 * eighth of the daemon's CPU on a host that starts processes all the time.
 *
 * Our events never ask for build-ids, yet an MMAP2 may arrive with the build-id flag: the
 * kernel sets it in the event it shares with every listener when one of them (another tool)
 * asks, and does not clear it for the others.  Our body still holds device and inode, so the
 * flag is cleared in a copy of the record: left in, it makes perf read them as a build-id.
 */
static int write_run(struct prec_session *s, const unsigned char *p, size_t len)
{
	unsigned char fixed[8192];
	struct perf_event_header h;
	size_t off, start = 0;
	int err = 0;

	for (off = 0; !err && len - off >= sizeof(h); off += h.size) {
		struct prec_mmap2 m;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break; /* the ring checked the run: not reached */
		if (h.type == PERF_RECORD_MMAP2 && !(h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
		    !prec_rec_mmap__parse(p + off, h.size, &m))
			err = prec_synth_build_id(s->w, s->bids, h.misc, &m);
	}
	for (off = 0; !err && len - off >= sizeof(h); off += h.size) {
		struct prec_mmap2 m;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type != PERF_RECORD_MMAP2 || !(h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ||
		    h.size > sizeof(fixed))
			continue;
		h.misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
		memcpy(fixed, p + off, h.size);
		memcpy(fixed, &h, sizeof(h));
		err = prec_writer__add_raw(s->w, p + start, off - start);
		if (!err && !prec_rec_mmap__parse(fixed, h.size, &m))
			err = prec_synth_build_id(s->w, s->bids, h.misc, &m);
		if (!err)
			err = prec_writer__add_raw(s->w, fixed, h.size);
		start = off + h.size;
	}
	if (!err)
		err = prec_writer__add_raw(s->w, p + start, len - start);
	return err;
}

/* Every record drained goes by the task table, written or not. */
static void note_tasks(struct prec_session *s, const unsigned char *p, size_t len)
{
	struct perf_event_header h;
	size_t off;

	if (!s->tasks)
		return;
	for (off = 0; len - off >= sizeof(h); off += h.size) {
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break; /* the ring checked the run: not reached */
		if (h.type != PERF_RECORD_SAMPLE)
			prec_tasks__note(s->tasks, p + off, h.size);
	}
}

/* A pass over every ring is done; a record the kernel lost may have been one of a task's. */
static void tasks_end_pass(struct prec_session *s)
{
	if (!s->tasks)
		return;
	prec_tasks__end_pass(s->tasks);
	if (s->st.lost_records != s->tasks_lost) {
		s->tasks_lost = s->st.lost_records;
		prec_tasks__set_stale(s->tasks);
	}
}

static int ring_to_writer(void *ctx, const void *data, size_t len)
{
	struct prec_session *s = ctx;

	note_tasks(s, data, len);
	if (accepting(s))
		set_werr(s, write_run(s, data, len));
	return 0; /* a failed output drops the rest: the rings must not fill up */
}

/* drop_unsampled: a run of ring records into the round being drained. */
static int ring_to_round(void *ctx, const void *data, size_t len)
{
	struct prec_session *s = ctx;
	const struct prec_sample_layout *l;
	struct perf_event_header h;
	struct round *r = s->cur;
	size_t off, base = r->recs.len;
	uint64_t samples = r->samples;
	int err;

	if (!accepting(s)) {
		note_tasks(s, data, len);
		return 0;
	}
	err = prec_buf__append(&r->recs, data, len);
	l = prec_writer__layout(s->w, 0);
	for (off = 0; !err && len - off >= sizeof(h); off += h.size) {
		memcpy(&h, r->recs.data + base + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break; /* the ring checked the run: not reached */
		err = round_note(r, l, r->recs.data + base + off, &h);
	}
	if (err) { /* the run is not taken (the output fails with it) */
		r->recs.len = base;
		r->samples = samples;
		set_werr(s, err);
		note_tasks(s, data, len);
	}
	return 0;
}

/*
 * Write round r (the filter deciding with `next`, the round drained after it; NULL: keep
 * everything), or count its samples as dropped if the output has failed.  The round is
 * empty afterwards.
 */
static void write_round(struct prec_session *s, struct round *r, const struct round *next)
{
	int err;

	if (!r->recs.len)
		return;
	if (accepting(s) && next) {
		round_decide(r, next);
		round_compact(r);
	}
	/*
	 * The task table learns a round as it is written: the processes the filter left out
	 * had no sample to name, and were most of its work on a host that starts processes all
	 * the time.
	 */
	note_tasks(s, r->recs.data, r->recs.len);
	if (accepting(s)) {
		err = write_run(s, r->recs.data, r->recs.len);
		set_werr(s, err);
		if (!err) {
			s->handed += r->samples;
			s->unrounded += r->recs.len;
		}
	}
	if (!accepting(s))
		s->dropped += r->samples;
	round_clear(r);
}

/*
 * A FINISHED_ROUND, if records were written since the last one and there are enough of them
 * or `always`.  Every record before it was drained in an earlier pass over all rings than
 * every record after it, which is what readers that sort by rounds need.
 */
static void end_round(struct prec_session *s, bool always)
{
	if (!accepting(s) || !s->unrounded || (!always && s->unrounded < ROUND_MIN_BYTES))
		return;
	set_werr(s, prec_writer__add_finished_round(s->w));
	s->unrounded = 0;
}

void prec_session__drain(struct prec_session *s)
{
	uint64_t before = s->st.bytes;
	struct round *r;
	size_t i;

	if (s->o.drop_unsampled && s->w) {
		for (i = 0; i < prec_events__nr_rings(s->ev); i++) {
			uint64_t samples = s->st.samples, taken = s->cur->samples;

			prec_ring__drain(prec_events__ring(s->ev, i), ring_to_round, s, &s->st);
			/* those the round could not take */
			s->dropped += s->st.samples - samples - (s->cur->samples - taken);
		}
		write_round(s, s->held, s->cur);
		if (!accepting(s))
			write_round(s, s->cur, NULL); /* counted as dropped */
		r = s->held;
		s->held = s->cur;
		s->cur = r;
		end_round(s, false);
		tasks_end_pass(s);
		return;
	}
	for (i = 0; i < prec_events__nr_rings(s->ev); i++) {
		uint64_t samples = s->st.samples;
		bool took = accepting(s);

		prec_ring__drain(prec_events__ring(s->ev, i), ring_to_writer, s, &s->st);
		if (!took || !accepting(s))
			s->dropped += s->st.samples - samples;
		else
			s->handed += s->st.samples - samples;
	}
	s->unrounded += s->st.bytes - before;
	end_round(s, false);
	tasks_end_pass(s);
}

int prec_session__flush(struct prec_session *s)
{
	if (!accepting(s))
		return s->werr;
	end_round(s, true);
	set_werr(s, prec_writer__flush(s->w));
	if (!s->werr)
		kept(s);
	return s->werr;
}

int prec_session__write_error(const struct prec_session *s)
{
	return s->werr;
}

/* LOST_SAMPLES records for what the kernel dropped since the previous output ended. */
static void write_lost_samples(struct prec_session *s)
{
	size_t e;

	for (e = 0; e < prec_events__nr(s->ev); e++) {
		uint64_t total = prec_events__lost_samples(s->ev, e);
		uint64_t lost = total - s->lost_reported[e];
		struct prec_sample_id sid = { 0 };
		size_t nr_ids;
		const uint64_t *ids = prec_events__ids(s->ev, e, &nr_ids);

		if (!lost || !accepting(s))
			continue;
		sid.id = nr_ids ? ids[0] : 0;
		set_werr(s, prec_writer__add_lost_samples(s->w, lost, &sid));
		if (!s->werr)
			s->lost_reported[e] = total;
	}
}

static void stats_since(const struct prec_session *s, struct prec_session_stats *ret)
{
	struct prec_writer_stats ws = { 0 };
	const struct prec_ring_stats *a = &s->st, *b = &s->out_base;

	memset(ret, 0, sizeof(*ret));
	if (!s->w)
		return;
	prec_writer__get_stats(s->w, &ws);
	ret->ring.bytes = a->bytes - b->bytes;
	ret->ring.records = a->records - b->records;
	ret->ring.samples = a->samples - b->samples;
	ret->ring.lost_records = a->lost_records - b->lost_records;
	ret->ring.lost = a->lost - b->lost;
	ret->ring.throttles = a->throttles - b->throttles;
	ret->ring.bad = a->bad - b->bad;
	ret->raw_bytes = ws.raw_bytes;
	ret->written_bytes = ws.written_bytes;
	ret->dropped_samples = s->dropped - s->out_dropped_base;
	ret->lost_samples = lost_samples(s) - s->lost_base;
	ret->kept_samples = s->werr ? s->kept_samples : s->handed;
	ret->kept_raw_bytes = s->werr ? s->kept_raw : ws.raw_bytes;
}

int prec_session__end_output(struct prec_session *s, struct prec_session_stats *ret)
{
	struct prec_session_stats st;
	int err;

	if (!s->w)
		return -EINVAL;
	prec_session__drain(s);
	write_round(s, s->held, NULL); /* nothing comes after it in this output */
	end_round(s, true);
	write_lost_samples(s);
	if (accepting(s)) {
		set_werr(s, prec_writer__finish(s->w));
		if (!s->werr)
			kept(s);
	}
	stats_since(s, &st);
	s->raw_total += st.kept_raw_bytes;
	s->written_total += st.written_bytes;
	if (ret)
		*ret = st;
	err = s->werr;
	s->spare = s->w;
	s->w = NULL;
	return err;
}

int prec_session__wait(struct prec_session *s, int timeout_ms, int wake_fd)
{
	size_t i, n = s->nr_pfd;

	s->pfd[n].fd = wake_fd;
	s->pfd[n].events = POLLIN;
	if (poll(s->pfd, n + 1, timeout_ms) < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++)
		if (s->pfd[i].fd >= 0 && (s->pfd[i].revents & (POLLHUP | POLLERR))) {
			s->pfd[i].fd = -1; /* poll ignores it from now on */
			s->nr_hup++;
		}
	return 0;
}

bool prec_session__targets_gone(const struct prec_session *s)
{
	return s->nr_pfd && s->nr_hup == s->nr_pfd;
}

void prec_session__output_stats(const struct prec_session *s, struct prec_session_stats *ret)
{
	stats_since(s, ret);
}

void prec_session__total_stats(const struct prec_session *s, struct prec_session_stats *ret)
{
	struct prec_session_stats cur;

	stats_since(s, &cur);
	memset(ret, 0, sizeof(*ret));
	ret->ring = s->st;
	ret->dropped_samples = s->dropped;
	ret->kept_raw_bytes = s->raw_total + cur.kept_raw_bytes;
	ret->written_bytes = s->written_total + cur.written_bytes;
	ret->raw_bytes = ret->kept_raw_bytes;
	ret->kept_samples = s->st.samples - s->dropped;
	ret->lost_samples = lost_samples(s);
}

const struct prec_events *prec_session__events(const struct prec_session *s)
{
	return s->ev;
}

int prec_session__task_stats(const struct prec_session *s, struct prec_tasks_stats *ret)
{
	if (!s->tasks)
		return -ENOENT;
	prec_tasks__get_stats(s->tasks, ret);
	return 0;
}
