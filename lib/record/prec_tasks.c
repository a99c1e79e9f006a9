/* SPDX-License-Identifier: MIT */
/*
 * The task table (see prec_tasks.h).  Invariants:
 *  - `slots` is an open-addressing table of processes by pid (linear probing, a power of two,
 *    at most half full; deletion shifts the entries after a hole back), each process
 *    allocated on its own.
 *  - A process's maps are sorted by address and never overlap; each holds a reference to its
 *    file name (names are shared by the copies a FORK makes and the pieces a cut leaves).
 *  - A thread or process that exited keeps its place, marked with the pass its EXIT was
 *    drained in, until the end of the next pass; `pending` lists the pids with such tasks,
 *    in pass order, so that a pass's end looks at them alone.
 *  - The table never holds pid 0 or the kernel's maps (pid -1): the session writes the
 *    kernel map itself, and readers know the idle task.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prec_buf.h"
#include "prec_record.h"
#include "prec_synth.h"
#include "prec_tasks.h"

struct name {
	uint32_t refs;
	char s[];
};

struct tmap {
	struct prec_mmap2 m; /* filename: name->s */
	struct name *name;
	uint64_t time; /* of the record that made it; 0: read from /proc */
	uint16_t misc; /* cpumode and the data flag */
};

struct thread {
	uint32_t tid;
	bool dead;
	uint64_t exit_pass, exit_time;
	uint64_t comm_time; /* of the COMM that named it; 0: from /proc or its FORK */
	char comm[16];
};

struct proc {
	uint32_t pid;
	bool dead; /* every thread it had has exited */
	uint64_t exit_pass, exit_time;
	uint64_t exec_time; /* its last exec's COMM, 0: none seen */
	struct thread *threads;
	size_t nr_threads, cap_threads;
	struct tmap *maps;
	size_t nr_maps, cap_maps;
	size_t maps_read; /* how many /proc showed when it was last read */
	bool unseen; /* live before a seeding of every process, not met in /proc yet */
};

struct pending {
	uint32_t pid;
	uint64_t pass;
};

struct prec_tasks {
	struct prec_sample_layout layout;
	bool data_maps;
	bool seeded, stale;
	uint64_t pass;
	uint64_t last_time; /* the latest record time noted */
	int clockid; /* of the records' times, -1: not known */
	struct proc **slots;
	uint32_t nr_slots, nr_procs;
	struct pending *pending;
	size_t nr_pending, cap_pending;
	uint64_t resyncs;
};

int prec_tasks__new(const struct prec_sample_layout *l, int clockid, bool data_maps,
		    struct prec_tasks **ret)
{
	struct prec_tasks *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->layout = *l;
	t->clockid = clockid;
	t->data_maps = data_maps;
	*ret = t;
	return 0;
}

static void name_put(struct name *n)
{
	if (n && !--n->refs)
		free(n);
}

static struct name *name_new(const char *s)
{
	size_t len = strlen(s);
	struct name *n = malloc(sizeof(*n) + len + 1);

	if (!n)
		return NULL;
	n->refs = 1;
	memcpy(n->s, s, len + 1);
	return n;
}

static void maps_clear(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		name_put(p->maps[i].name);
	p->nr_maps = 0;
}

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	maps_clear(p);
	free(p->maps);
	free(p->threads);
	free(p);
}

void prec_tasks__free(struct prec_tasks *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_slots; i++)
		proc_free(t->slots[i]);
	free(t->slots);
	free(t->pending);
	free(t);
}

/* ---- the table of processes ---- */

static uint32_t home(const struct prec_tasks *t, uint32_t pid)
{
	return (pid * 0x9e3779b1u) & (t->nr_slots - 1);
}

static uint32_t find_slot(const struct prec_tasks *t, uint32_t pid)
{
	uint32_t i;

	for (i = home(t, pid); t->slots[i] && t->slots[i]->pid != pid;
	     i = (i + 1) & (t->nr_slots - 1))
		;
	return i;
}

static struct proc *find(const struct prec_tasks *t, uint32_t pid)
{
	return t->nr_slots ? t->slots[find_slot(t, pid)] : NULL;
}

static int grow(struct prec_tasks *t)
{
	uint32_t n = t->nr_slots ? t->nr_slots * 2 : 1024, old = t->nr_slots, i;
	struct proc **old_slots = t->slots;

	if (2 * (t->nr_procs + 1) <= t->nr_slots)
		return 0;
	t->slots = calloc(n, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old_slots;
		return -ENOMEM;
	}
	t->nr_slots = n;
	for (i = 0; i < old; i++)
		if (old_slots[i])
			t->slots[find_slot(t, old_slots[i]->pid)] = old_slots[i];
	free(old_slots);
	return 0;
}

/* Take process `pid` out of the table and free it. */
static void forget(struct prec_tasks *t, uint32_t pid)
{
	uint32_t mask = t->nr_slots - 1, i = find_slot(t, pid), j, h;

	if (!t->slots[i])
		return;
	proc_free(t->slots[i]);
	t->slots[i] = NULL;
	t->nr_procs--;
	/* shift back the entries of the run after the hole that may not sit after it */
	for (j = (i + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
		h = home(t, t->slots[j]->pid);
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			t->slots[i] = t->slots[j];
			t->slots[j] = NULL;
			i = j;
		}
	}
}

/* Process `pid`, made (empty) if the table has none; NULL on -ENOMEM. */
static struct proc *get(struct prec_tasks *t, uint32_t pid)
{
	struct proc *p = find(t, pid);

	if (p)
		return p;
	if (grow(t))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	t->slots[find_slot(t, pid)] = p;
	t->nr_procs++;
	return p;
}

/* A fresh process `pid` in place of an exited one of the same pid (the pid was reused). */
static struct proc *renew(struct prec_tasks *t, uint32_t pid)
{
	forget(t, pid);
	return get(t, pid);
}

static struct thread *find_thread(const struct proc *p, uint32_t tid)
{
	size_t i;

	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	return NULL;
}

static struct thread *get_thread(struct proc *p, uint32_t tid)
{
	struct thread *th = find_thread(p, tid);

	if (th)
		return th;
	if (prec_array__grow((void **)&p->threads, &p->cap_threads, p->nr_threads + 1,
			     sizeof(*p->threads), 4))
		return NULL;
	th = &p->threads[p->nr_threads++];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	return th;
}

static int add_pending(struct prec_tasks *t, uint32_t pid)
{
	if (t->nr_pending && t->pending[t->nr_pending - 1].pid == pid &&
	    t->pending[t->nr_pending - 1].pass == t->pass)
		return 0;
	if (prec_array__grow((void **)&t->pending, &t->cap_pending, t->nr_pending + 1,
			     sizeof(*t->pending), 64))
		return -ENOMEM;
	t->pending[t->nr_pending].pid = pid;
	t->pending[t->nr_pending++].pass = t->pass;
	return 0;
}

/* ---- maps ---- */

/* The first map of p that ends after `addr`. */
static size_t first_after(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].m.addr + p->maps[mid].m.len > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Map nm (its name reference is taken over, also on failure) into p, cutting away what it
 * overlaps, unless something it overlaps is newer: the records came out of time order, and
 * the newer map stands.
 */
static int insert_map(struct proc *p, struct tmap *nm)
{
	uint64_t start = nm->m.addr, end = nm->m.addr + nm->m.len;
	size_t lo = first_after(p, start), hi, i, nr_new;
	struct tmap left, right;
	bool has_left = false, has_right = false;

	for (hi = lo; hi < p->nr_maps && p->maps[hi].m.addr < end; hi++)
		if (nm->time && p->maps[hi].time > nm->time) {
			name_put(nm->name);
			return 0;
		}
	if (lo < hi && p->maps[lo].m.addr < start) {
		left = p->maps[lo];
		left.m.len = start - left.m.addr;
		has_left = true;
	}
	if (lo < hi && p->maps[hi - 1].m.addr + p->maps[hi - 1].m.len > end) {
		right = p->maps[hi - 1];
		right.m.pgoff += end - right.m.addr;
		right.m.len = right.m.addr + right.m.len - end;
		right.m.addr = end;
		has_right = true;
	}
	nr_new = p->nr_maps - (hi - lo) + 1 + has_left + has_right;
	if (prec_array__grow((void **)&p->maps, &p->cap_maps, nr_new, sizeof(*p->maps), 8)) {
		name_put(nm->name);
		return -ENOMEM;
	}
	if (has_left)
		left.name->refs++;
	if (has_right)
		right.name->refs++;
	for (i = lo; i < hi; i++)
		name_put(p->maps[i].name);
	memmove(&p->maps[lo + 1 + has_left + has_right], &p->maps[hi],
		(p->nr_maps - hi) * sizeof(*p->maps));
	i = lo;
	if (has_left)
		p->maps[i++] = left;
	p->maps[i++] = *nm;
	if (has_right)
		p->maps[i] = right;
	p->nr_maps = nr_new;
	return 0;
}

static int add_map(struct proc *p, uint16_t misc, const struct prec_mmap2 *m, uint64_t time)
{
	struct tmap nm = { .m = *m, .time = time, .misc = misc };

	if (!m->len || m->addr + m->len < m->addr)
		return 0;
	nm.name = name_new(m->filename ? m->filename : "");
	if (!nm.name)
		return -ENOMEM;
	nm.m.filename = NULL;
	return insert_map(p, &nm);
}

/* ---- reading /proc ---- */

/* Process `pid` as /proc shows it: what the table had of it is replaced. */
static struct proc *seen(struct prec_tasks *t, uint32_t pid)
{
	struct proc *p = find(t, pid);

	if (p && p->dead)
		return renew(t, pid); /* an exited process's pid, reused */
	if (!p)
		return get(t, pid);
	if (p->unseen) {
		maps_clear(p);
		p->nr_threads = 0;
		p->maps_read = 0;
		p->exec_time = 0;
		p->unseen = false;
	}
	return p;
}

static int sink_comm(void *ctx, pid_t pid, pid_t tid, const char *comm)
{
	struct prec_tasks *t = ctx;
	struct proc *p = seen(t, (uint32_t)pid);
	struct thread *th;

	th = p ? get_thread(p, (uint32_t)tid) : NULL;
	if (!th)
		return -ENOMEM;
	th->dead = false;
	strncpy(th->comm, comm, sizeof(th->comm) - 1);
	return 0;
}

static int sink_mmap2(void *ctx, uint16_t misc, const struct prec_mmap2 *m)
{
	struct prec_tasks *t = ctx;
	struct proc *p = seen(t, m->pid);

	if (!p)
		return -ENOMEM;
	p->maps_read++;
	return add_map(p, misc, m, 0);
}

static int seed_end(struct prec_tasks *t, int err)
{
	if (err == -ENOMEM) {
		t->stale = true;
		return err;
	}
	t->seeded = true;
	return 0; /* a process that went while it was read is no error */
}

int prec_tasks__seed_all(struct prec_tasks *t)
{
	struct prec_synth_sink k = { sink_comm, sink_mmap2, t };
	uint64_t now = t->last_time;
	struct timespec ts;
	uint32_t i;
	int err;

	/*
	 * What /proc shows replaces what the table had (it may be wrong).  A live process that
	 * /proc no longer shows has exited, its EXIT still on its way or lost: it is kept as
	 * exited in this pass, for the samples it may have left in the rings.
	 */
	for (i = 0; i < t->nr_slots; i++)
		if (t->slots[i])
			t->slots[i]->unseen = !t->slots[i]->dead;
	/* every record of such a process is older than this; a newer one is of a new process */
	if (t->clockid >= 0 && !clock_gettime(t->clockid, &ts))
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	err = prec_synth_read_all(&k, t->data_maps);
	for (i = 0; i < t->nr_slots; i++) {
		struct proc *p = t->slots[i];

		if (!p || !p->unseen)
			continue;
		p->unseen = false;
		if (err)
			continue; /* not read to the end: the table stays stale */
		p->dead = true;
		p->exit_pass = t->pass;
		p->exit_time = now;
		if (add_pending(t, p->pid))
			err = -ENOMEM;
	}
	t->stale = false;
	return seed_end(t, err);
}

int prec_tasks__seed_process(struct prec_tasks *t, pid_t pid)
{
	struct prec_synth_sink k = { sink_comm, sink_mmap2, t };

	return seed_end(t, prec_synth_read_process(&k, pid, t->data_maps));
}

bool prec_tasks__needs_seed(const struct prec_tasks *t)
{
	return !t->seeded || t->stale;
}

void prec_tasks__set_stale(struct prec_tasks *t)
{
	t->stale = true;
}

/*
 * p's maps have grown past twice what /proc showed (unmaps are never told): read them
 * again.  Records drained later that are older than this reading apply on top, as after
 * the first one.
 */
static int resync(struct prec_tasks *t, struct proc *p)
{
	struct prec_synth_sink k = { sink_comm, sink_mmap2, t };

	maps_clear(p);
	p->maps_read = 0;
	t->resyncs++;
	return prec_synth_read_maps(&k, (pid_t)p->pid, t->data_maps);
}

/* ---- records ---- */

static int note_comm(struct prec_tasks *t, const void *rec, size_t size, uint64_t time)
{
	struct prec_rec_comm c;
	struct thread *th;
	struct proc *p;
	size_t i, n;

	if (prec_rec_comm__parse(rec, size, &c) || !c.pid)
		return 0;
	p = find(t, c.pid);
	if (p && p->dead) {
		if (time && time <= p->exit_time)
			return 0; /* a late record of the process that exited */
		p = renew(t, c.pid);
	} else if (!p) {
		p = get(t, c.pid);
	}
	th = p ? get_thread(p, c.tid) : NULL;
	if (!th)
		return -ENOMEM;
	/*
	 * The rings are drained one CPU after another: a COMM older than the one that named
	 * the thread is an earlier exec or rename drained late (an exec chain such as a shell
	 * script ending in python3 runs across CPUs), and its name is no longer the thread's.
	 */
	if (time && time < th->comm_time)
		return 0;
	strncpy(th->comm, c.comm, sizeof(th->comm) - 1);
	th->comm[sizeof(th->comm) - 1] = 0;
	th->comm_time = time;
	if (!c.exec || (time && time < p->exec_time))
		return 0;
	/*
	 * An exec leaves one thread, named by the COMM (a thread other than the leader that
	 * execs takes the leader's tid, and no EXIT tells of its old one).  The new image's
	 * maps follow; those older than the exec are the old image's.
	 */
	th->dead = false;
	p->threads[0] = *th;
	p->nr_threads = 1;
	p->exec_time = time;
	for (i = n = 0; i < p->nr_maps; i++) {
		if (time && p->maps[i].time > time)
			p->maps[n++] = p->maps[i];
		else
			name_put(p->maps[i].name);
	}
	p->nr_maps = n;
	p->maps_read = 0;
	return 0;
}

static int note_mmap(struct prec_tasks *t, const void *rec, size_t size, uint16_t misc,
		     uint64_t time)
{
	struct prec_mmap2 m;
	struct proc *p;
	int err;

	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    prec_rec_mmap__parse(rec, size, &m) || !m.pid || m.pid == (uint32_t)-1)
		return 0;
	p = find(t, m.pid);
	if (p && p->dead) {
		if (time && time <= p->exit_time)
			return 0;
		p = renew(t, m.pid);
	} else if (!p) {
		p = get(t, m.pid);
	}
	if (!p)
		return -ENOMEM;
	if (p->exec_time && time && time < p->exec_time)
		return 0; /* the old image's, come after the exec */
	err = add_map(p, misc & (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID, &m, time);
	if (!err && p->nr_maps > 2 * p->maps_read + PREC_TASKS_SLACK)
		err = resync(t, p);
	return err;
}

/* A new process starts with its parent's maps (unless records of its own came first). */
static int copy_maps(struct proc *child, const struct proc *parent)
{
	size_t i;

	if (!parent || child->nr_maps || child->exec_time || !parent->nr_maps)
		return 0;
	if (prec_array__grow((void **)&child->maps, &child->cap_maps, parent->nr_maps,
			     sizeof(*child->maps), 8))
		return -ENOMEM;
	memcpy(child->maps, parent->maps, parent->nr_maps * sizeof(*child->maps));
	child->nr_maps = parent->nr_maps;
	for (i = 0; i < child->nr_maps; i++)
		child->maps[i].name->refs++;
	child->maps_read = parent->maps_read;
	return 0;
}

static int note_fork(struct prec_tasks *t, const struct prec_rec_fork *f)
{
	struct proc *p = find(t, f->pid), *parent;
	const struct thread *pth;
	struct thread *th;

	if (!f->pid)
		return 0;
	if (p && p->dead) {
		if (f->time && f->time <= p->exit_time)
			return 0; /* its EXIT came first: it stays gone */
		p = renew(t, f->pid);
	} else if (!p) {
		p = get(t, f->pid);
	}
	if (!p)
		return -ENOMEM;
	if (find_thread(p, f->tid))
		return 0; /* read from /proc, or its EXIT came first */
	th = get_thread(p, f->tid);
	if (!th)
		return -ENOMEM;
	/* looked up now: making the thread may have moved p's threads */
	parent = find(t, f->ppid);
	pth = parent ? find_thread(parent, f->ptid) : NULL;
	if (pth)
		memcpy(th->comm, pth->comm, sizeof(th->comm));
	return f->pid != f->ppid ? copy_maps(p, parent) : 0;
}

static int note_exit(struct prec_tasks *t, const struct prec_rec_fork *f)
{
	struct proc *p = find(t, f->pid);
	struct thread *th;
	size_t i;

	if (!f->pid || (p && p->dead && (!f->time || f->time > p->exit_time)))
		return 0; /* one more thread of a process gone, or a record out of place */
	p = p ? p : get(t, f->pid);
	th = p ? get_thread(p, f->tid) : NULL; /* (a tombstone if its FORK has not come) */
	if (!th)
		return -ENOMEM;
	th->dead = true;
	th->exit_pass = t->pass;
	th->exit_time = f->time;
	for (i = 0; i < p->nr_threads && p->threads[i].dead; i++)
		;
	if (i == p->nr_threads) {
		p->dead = true;
		p->exit_pass = t->pass;
		p->exit_time = f->time;
	}
	return add_pending(t, f->pid);
}

void prec_tasks__note(struct prec_tasks *t, const void *rec, size_t size)
{
	struct perf_event_header h;
	struct prec_sample_id sid;
	struct prec_rec_fork f;
	int err = 0;

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_COMM && h.type != PERF_RECORD_MMAP2 &&
	    h.type != PERF_RECORD_MMAP && h.type != PERF_RECORD_FORK && h.type != PERF_RECORD_EXIT)
		return;
	if (prec_sample_id__parse(&t->layout, rec, size, &sid))
		sid.time = 0;
	if (sid.time > t->last_time)
		t->last_time = sid.time;
	switch (h.type) {
	case PERF_RECORD_COMM:
		err = note_comm(t, rec, size, sid.time);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = note_mmap(t, rec, size, h.misc, sid.time);
		break;
	default:
		if (prec_rec_fork__parse(rec, size, &f))
			break;
		err = f.exit ? note_exit(t, &f) : note_fork(t, &f);
		break;
	}
	if (err)
		t->stale = true;
}

void prec_tasks__end_pass(struct prec_tasks *t)
{
	size_t i, j, n;

	for (i = 0; i < t->nr_pending && t->pending[i].pass < t->pass; i++) {
		struct proc *p = find(t, t->pending[i].pid);

		if (!p)
			continue;
		if (p->dead && p->exit_pass < t->pass) {
			forget(t, p->pid);
			continue;
		}
		for (j = n = 0; j < p->nr_threads; j++)
			if (!p->threads[j].dead || p->threads[j].exit_pass >= t->pass)
				p->threads[n++] = p->threads[j];
		p->nr_threads = n;
	}
	memmove(t->pending, t->pending + i, (t->nr_pending - i) * sizeof(*t->pending));
	t->nr_pending -= i;
	t->pass++;
}

/* ---- writing ---- */

int prec_tasks__write(const struct prec_tasks *t, struct prec_writer *w,
		      struct prec_buildid_cache *bids)
{
	uint32_t i;
	size_t j;
	int err = 0;

	for (i = 0; !err && i < t->nr_slots; i++) {
		const struct proc *p = t->slots[i];

		if (!p)
			continue;
		for (j = 0; !err && j < p->nr_threads; j++)
			err = prec_writer__add_comm(w, p->pid, p->threads[j].tid,
						    p->threads[j].comm, false, NULL);
		for (j = 0; !err && j < p->nr_maps; j++) {
			struct prec_mmap2 m = p->maps[j].m;

			m.filename = p->maps[j].name->s;
			m.pid = m.tid = p->pid; /* a copy made by a FORK names the parent */
			err = prec_synth_build_id(w, bids, p->maps[j].misc, &m);
			if (!err)
				err = prec_writer__add_mmap2(w, p->maps[j].misc, &m, NULL);
		}
	}
	return err;
}

void prec_tasks__get_stats(const struct prec_tasks *t, struct prec_tasks_stats *ret)
{
	uint32_t i;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < t->nr_slots; i++) {
		if (!t->slots[i])
			continue;
		ret->processes++;
		ret->threads += t->slots[i]->nr_threads;
		ret->maps += t->slots[i]->nr_maps;
	}
	ret->resyncs = t->resyncs;
}
