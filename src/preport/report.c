/* SPDX-License-Identifier: MIT */
/*
 * The report pipeline: records in time order (by rounds, like perf: at each FINISHED_ROUND
 * the records up to the previous round's latest time are processed), side records replayed
 * into the machine, each sample's addresses resolved to (DSO, offset) frames and counted in
 * the hist, then symbolization and the views.
 *
 * Memory: the queue holds copies of at most about two rounds of records (bounded by
 * QUEUE_MAX_BYTES in files without rounds); everything else grows with distinct stacks.
 *
 * Several streams (the segments of a directory, segments.c) are read as one recording, one
 * after the other: each is self-contained (its own events, header and synthesized state), so
 * for each the machine state starts afresh, the queue is emptied at its end and the chain
 * cache forgotten, while the symbol tables, the hist and the events carry over.  Events are
 * matched across streams by name, type and config, and numbered in order of appearance.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "prec_buf.h"
#include "prec_hist.h"
#include "prec_log.h"
#include "prec_machine.h"
#include "prec_symbol.h"
#include "prec_view.h"
#include "preport.h"

#define MAX_FRAMES 1024 /* deeper chains are cut (the kernel gives at most 127 + markers) */
#define MAX_UNWOUND 512 /* user frames unwound from a stack copy (perf: 127 by default) */
#define QUEUE_MAX_BYTES (64u << 20)
#define PROGRESS_MIN_BYTES (64u << 20)
#define MAP_ANON_PRIV ((void *)1) /* map->priv of anonymous memory: JIT code of the pid */

#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#endif
#define REC_HEADER_BUILD_ID 67
#define REC_FINISHED_ROUND 68
#define FEAT_BUILD_ID 2
#define FEAT_HOSTNAME 3
#define FEAT_OSRELEASE 4
#define FEAT_ARCH 6

/*
 * A cache of resolved call chains: the same raw chain of the same process, under the same
 * machine state, gives the same stack, so it is resolved once.  Direct-mapped.
 *
 * It pays where samples repeat their chains (one busy process: over 99% hits) and costs
 * where they rarely do (a system-wide recording of a build: 15% hits, and reading took 84
 * instead of 70 ms with it), since a miss still looks up and stores.  So the cache watches
 * its hits over windows of CC_WINDOW samples and, after a window under 1/4, sits out the
 * next CC_REST samples, then measures again.
 */
#define CC_SLOTS 16384
#define CC_WINDOW 4096
#define CC_REST (7 * CC_WINDOW)
struct cc_slot {
	uint64_t hash, gen;
	uint32_t pid, ctx, node, mode;
	uint32_t n, cap;
	uint64_t *ips;
	bool broken; /* the stack copy ended before the outermost caller */
};

#define IN_PLACE 2 /* qent.arena of a record the reader keeps (prec_record.stable) */

struct qent {
	uint64_t time;
	uint64_t seq;
	size_t off; /* in arenas[arena]; IN_PLACE: the record's address */
	uint32_t size;
	int evsel;
	unsigned int arena;
};

struct rep {
	struct prec_reader *r;
	const struct preport_report_opts *o;
	struct prec_machine *m;
	struct prec_symtab *st;
	struct prec_hist *h;
	/* samples lost per event (struct gev) in the stream being read: [0] by LOST records,
	 * [1] by LOST_SAMPLES records, which count what LOST records also do; lost_total adds
	 * each stream's count as perf would report it (end_stream_lost) */
	uint64_t *lost[2], *lost_total;
	bool have_lost_samples; /* in the stream being read */
	uint64_t *broken; /* per event (struct gev): period of samples whose stack copy was too
			   * short */
	uint32_t kernel_id;
	bool kernel_queued; /* the kernel's symbols were handed to the loader */
	struct prec_keyset jit_ids; /* pid -> hist dso id (0: no JIT map) */
	uint32_t *jit_val;
	size_t jit_cap;
	/* -T: counts of READ records (perf record -s), per thread in order of appearance */
	struct prec_keyset read_ids; /* pid << 32 | tid -> index */
	uint64_t *read_vals; /* nr_gev per thread */
	size_t read_cap;
	/* file_ids: path interned in `paths` (which outlives each stream's machine) -> file_val,
	 * the path's first DSO */
	struct prec_keyset file_ids;
	struct prec_strset paths;
	struct file_dso *file_val;
	size_t file_cap;
	bool ordered; /* every event has time and sample_id_all */
	struct qent *q;
	size_t nq, qcap;
	/* copies of the queued records, 8-byte aligned: new ones go to arenas[cur]; the other
	 * holds what the last flush left (a round's records wait for the next round) */
	struct prec_buf arenas[2];
	unsigned int cur;
	size_t queued_bytes; /* of the records in the queue, padded */
	uint64_t seq, round_max, prev_round_max;
	struct prec_time_range times; /* of the samples, for the cut-short warning */
	/* the frames of the sample being resolved (one of frbuf), and in the other those of
	 * the stack that waits to go into the trie (see defer_stack) */
	struct prec_hist_frame *frames;
	struct prec_hist_frame frbuf[2][MAX_FRAMES];
	struct {
		bool on;
		uint32_t ctx;
		size_t nf;
		uint64_t period;
	} pend;
	struct cc_slot *cc;
	uint32_t cc_seen, cc_hits; /* in this window */
	uint32_t cc_rest; /* samples that skip the cache before the next window */
	struct qent *qtmp;
	size_t qtmp_cap;
	uint64_t bad_samples, unknown_evsel;
	/* the stream being read: its events' numbers among all streams' (struct gev), and
	 * --since/--until as a window of its sample times */
	uint32_t *evmap;
	size_t evmap_cap, nr_gev;
	bool win;
	uint64_t win_lo, win_hi;
	struct prec_strset comms; /* the comms of the hist's contexts */
	bool unwind; /* samples' user stack copies are unwound (x86-64) */
	uint64_t *uw_ips; /* a chain with its user part unwound */
	size_t uw_cap;
};

/* ---- phase times ---- */

/*
 * With PREPORT_TIMES set in the environment, the end of each phase of a report is written
 * to stderr in milliseconds since it began, with what the main thread has used so far (CPU
 * time, page faults, voluntary+involuntary context switches, time runnable but not
 * running): for measuring, not for users (see doc/performance.md).
 */
struct phases {
	bool on;
	struct timespec t0;
};

static void phases_start(struct phases *p)
{
	p->on = getenv("PREPORT_TIMES") != NULL;
	if (p->on)
		clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

static void phase_end(const struct phases *p, const char *name)
{
	unsigned long long queued = 0;
	struct timespec t;
	struct rusage ru;
	FILE *f;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	getrusage(RUSAGE_THREAD, &ru);
	f = fopen("/proc/thread-self/schedstat", "r"); /* run, then runnable time, in ns */
	if (f) {
		if (fscanf(f, "%*u %llu", &queued) != 1)
			queued = 0;
		fclose(f);
	}
	fprintf(stderr,
		"preport: %-6s %8.2f ms  (this thread: %.2f ms cpu, %ld page faults, %ld+%ld "
		"switches, %.2f ms runnable)\n",
		name,
		(double)(t.tv_sec - p->t0.tv_sec) * 1e3 + (double)(t.tv_nsec - p->t0.tv_nsec) / 1e6,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
		ru.ru_minflt, ru.ru_nvcsw, ru.ru_nivcsw, (double)queued / 1e6);
}

/* ---- filters ---- */

static bool in_u32_list(const uint32_t *list, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

/* --cpu, --time and --since/--until: a sample outside is not in the report at all, as in perf. */
static bool sample_in_scope(const struct rep *R, const struct prec_sample *s)
{
	const struct preport_report_opts *o = R->o;

	if (o->cpus && (s->cpu >= o->nr_cpu_bits || !o->cpus[s->cpu]))
		return false;
	if (R->win && (s->time < R->win_lo || s->time > R->win_hi))
		return false;
	return !o->time_set ||
	       (s->time >= o->time_start && (!o->time_end || s->time <= o->time_end));
}

/* --pid, --tid and --comms: a sample outside is in no entry but still in the totals that
 * percentages are of, as in perf. */
static bool sample_passes(const struct rep *R, const struct prec_sample *s, const char *comm)
{
	const struct preport_report_opts *o = R->o;
	size_t i;

	if (o->nr_pids && !in_u32_list(o->pids, o->nr_pids, s->pid))
		return false;
	if (o->nr_tids && !in_u32_list(o->tids, o->nr_tids, s->tid))
		return false;
	if (o->comms) {
		for (i = 0; o->comms[i]; i++)
			if (!strcmp(o->comms[i], comm))
				return true;
		return false;
	}
	return true;
}

/* ---- address resolution ---- */

static bool is_anon_path(const char *p)
{
	return !strcmp(p, "//anon") || !strncmp(p, "[anon", 5) || !strncmp(p, "/dev/zero", 9) ||
	       !strncmp(p, "/anon_hugepage", 14);
}

/* What preport keeps in a thread's prec_thread.user[]. */
enum {
	TU_CTX_COMM, /* the comm for which TU_CTX holds the context */
	TU_CTX,	     /* (evsel + 1) << 32 | context id; 0: none yet */
	TU_JIT,	     /* jit_id() of its process + 1; 0: not asked yet */
};

/* The DSO that a path's maps share with the maps of the same file in another form. */
struct file_dso {
	struct prec_build_id bid; /* len 0: not known yet */
	uint32_t maj, min; /* with ino: the device and inode of the file; ino 0: not known yet */
	uint64_t ino;
	uint32_t id; /* hist DSO id */
};

/*
 * The hist DSO id of a file mapping.  Maps of processes that ran before the recording began
 * come in inode form (device and inode, no build-id), those of processes started during it
 * in build-id form: one file, one DSO, whatever form its maps came in.  As perf does, a map
 * that lacks the build-id is the same file as the other maps of its path, unless its device
 * and inode tell another file; maps whose build-ids differ, or whose inodes differ, are
 * different files.  So the first DSO of a path serves its maps whose identity does not
 * contradict it, and the first build-id and the first inode seen for the path (before or
 * after) are taken as that DSO's.  A contradicting map gets the DSO of its own identity.
 * Keys live in R->paths, not the machine: a directory's streams each have their own.
 */
static long file_dso_id(struct rep *R, const struct prec_map *map)
{
	const struct prec_build_id *b = map->build_id;
	struct prec_file_id fid = { map->maj, map->min, map->ino, map->ino_gen };
	const char *path = prec_strset__intern(&R->paths, map->path);
	struct file_dso *e;
	struct prec_dso *d;
	bool is_new, same_bid, same_ino;
	long i, id;

	if (!path)
		return -ENOMEM;
	i = prec_keyset__intern(&R->file_ids, &path, &is_new);
	if (i < 0)
		return i;
	if (is_new) {
		if (prec_array__grow((void **)&R->file_val, &R->file_cap, (size_t)i + 1,
				     sizeof(*R->file_val), 64))
			return -ENOMEM;
		memset(&R->file_val[i], 0, sizeof(R->file_val[i]));
	}
	e = &R->file_val[i];
	same_bid = !b || !e->bid.len || (e->bid.len == b->len && !memcmp(e->bid.id, b->id, b->len));
	same_ino = !fid.ino || !e->ino ||
		   (e->ino == fid.ino && e->maj == fid.maj && e->min == fid.min);
	if (!is_new && same_bid && same_ino) {
		if (b && !e->bid.len)
			e->bid = *b;
		if (fid.ino && !e->ino)
			e->maj = fid.maj, e->min = fid.min, e->ino = fid.ino;
		return e->id;
	}
	d = prec_symtab__dso_file(R->st, map->path, b ? b->id : NULL, b ? b->len : 0, &fid);
	if (!d)
		return -ENOMEM;
	id = prec_hist__dso_id(R->h, d);
	if (id < 0)
		return id;
	prec_symtab__prefetch(R->st, d);
	if (is_new) {
		if (b)
			e->bid = *b;
		e->maj = fid.maj, e->min = fid.min, e->ino = fid.ino;
		e->id = (uint32_t)id;
	}
	return id;
}

/* The hist DSO id of the JIT map of thread t's process, 0 when it has none. */
static long jit_id(struct rep *R, struct prec_thread *t)
{
	uint32_t pid = t->pid;
	uint64_t key = pid;
	bool is_new;
	long id;

	/* asked for every frame outside a file mapping: the thread remembers it */
	if (t->user[TU_JIT])
		return (long)t->user[TU_JIT] - 1;
	id = prec_keyset__intern(&R->jit_ids, &key, &is_new);
	if (id < 0)
		return id;
	if (is_new) {
		struct prec_dso *d;
		long hid = 0;

		if (prec_array__grow((void **)&R->jit_val, &R->jit_cap, (size_t)id + 1,
				     sizeof(*R->jit_val), 64))
			return -ENOMEM;
		if (prec_symtab__jit_may_exist(R->st, pid)) {
			d = prec_symtab__jit(R->st, pid);
			if (!d)
				return -ENOMEM;
			if (prec_dso__status(d) == PREC_DSO_OK) {
				hid = prec_hist__dso_id(R->h, d);
				if (hid < 0)
					return hid;
			}
		}
		R->jit_val[id] = (uint32_t)hid;
	}
	t->user[TU_JIT] = (uint64_t)R->jit_val[id] + 1;
	return R->jit_val[id];
}

static int user_frame(struct rep *R, struct prec_thread *t, uint64_t addr,
		      struct prec_hist_frame *f)
{
	struct prec_map *map = prec_mspace__find(t->ms, addr);
	void *priv = map ? map->priv : NULL;
	long id;

	f->addr = addr;
	if (map && !priv) {
		/* memfd code is a JIT's when the process has a perf map; otherwise it is shown
		 * as perf 6.1 shows it, a file that cannot be read (name and file offsets).  That
		 * depends on the process, and forked processes share maps: not kept in the map. */
		bool memfd = !strncmp(map->path, "/memfd:", 7);
		bool jit = memfd && (id = jit_id(R, t)) != 0;

		if (jit && id < 0)
			return (int)id;
		if (jit || is_anon_path(map->path) || !strcmp(map->path, "[heap]") ||
		    !strcmp(map->path, "[stack]")) {
			priv = MAP_ANON_PRIV;
		} else {
			id = file_dso_id(R, map);
			if (id < 0)
				return (int)id;
			priv = (void *)(uintptr_t)((uint64_t)id << 1);
		}
		if (!memfd)
			map->priv = priv;
	}
	if (map && priv != MAP_ANON_PRIV) {
		f->dso = (uint32_t)((uintptr_t)priv >> 1);
		f->addr = addr - map->start + map->pgoff;
		return 0;
	}
	id = jit_id(R, t);
	if (id < 0)
		return (int)id;
	f->dso = (uint32_t)id; /* 0: no mapping; the address stays absolute either way */
	return 0;
}

static bool cpumode_kernel(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL ||
	       m == PERF_RECORD_MISC_HYPERVISOR;
}

/* Hand the kernel's symbols to the loader thread, once. */
static void queue_kernel(struct rep *R)
{
	if (!R->kernel_queued) {
		prec_symtab__prefetch(R->st, prec_symtab__kernel(R->st));
		R->kernel_queued = true;
	}
}

static int add_frame(struct rep *R, struct prec_thread *t, uint64_t addr, bool kernel, bool ret,
		     size_t *n)
{
	struct prec_hist_frame *f = &R->frames[*n];
	int err;

	if (*n >= MAX_FRAMES)
		return 0;
	memset(f, 0, sizeof(*f));
	if (kernel) {
		queue_kernel(R);
		f->dso = R->kernel_id;
		f->addr = addr;
		f->flags = PREC_FRAME_KERNEL;
	} else {
		err = user_frame(R, t, addr, f);
		if (err)
			return err;
	}
	if (ret)
		f->flags |= PREC_FRAME_RET;
	(*n)++;
	return 0;
}

/*
 * Resolve a raw call chain (or the ip alone) into frames, leaf first; returns how many.  At
 * most --max-stack addresses are used, as perf does: of the whole chain, or of each part
 * (kernel, user) of a chain whose user part was unwound (`per_part`).
 */
static int resolve_chain(struct rep *R, struct prec_thread *t, const uint64_t *ips, size_t n,
			 uint16_t misc, bool chain, bool per_part, size_t *ret_n)
{
	bool kernel = cpumode_kernel(misc), first = true;
	size_t nf = 0, i, used = 0;
	int err;

	if (!chain)
		return add_frame(R, t, ips[0], kernel, false, ret_n);
	for (i = 0; i < n && nf < MAX_FRAMES; i++) {
		uint64_t a = ips[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			/* perf 6.1 takes a chain with any other such value (a frame-pointer walk
			 * can end in -72) as corrupt and drops all of it */
			if (a != (uint64_t)PERF_CONTEXT_KERNEL && a != (uint64_t)PERF_CONTEXT_USER &&
			    a != (uint64_t)PERF_CONTEXT_HV && !per_part) {
				*ret_n = 0;
				return 1;
			}
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL ||
				 a == (uint64_t)PERF_CONTEXT_GUEST_KERNEL ||
				 a == (uint64_t)PERF_CONTEXT_HV;
			first = true; /* a context's first address is where it was, not a return
				       * address */
			if (per_part)
				used = 0;
			continue;
		}
		if (used >= R->o->max_stack) {
			if (!per_part)
				break;
			continue;
		}
		used++;
		err = add_frame(R, t, a, kernel, !first, &nf);
		if (err)
			return err;
		first = false;
	}
	*ret_n = nf;
	return 0;
}

/*
 * The cache slot of a raw chain: from its length and at most its first four and last two
 * addresses (which tell almost all chains apart), mixed cheaply: the slot's full compare
 * does the rest.
 */
static uint64_t chain_hash(const uint64_t *ips, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < n && i < 4; i++)
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdULL;
	for (i = n > 6 ? n - 2 : 4; i < n; i++)
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

/* The frame buffer that is not R->frames: the waiting stack's. */
static struct prec_hist_frame *other_frames(struct rep *R)
{
	return R->frbuf[R->frames == R->frbuf[0]];
}

/*
 * The stack that waits (R->pend) goes into the trie and is counted.  A stack waits there
 * for one sample (defer_stack) so that the hash slot of its first lookup is fetched into
 * the cache meanwhile: on A that lookup misses the cache for nearly every stack (the
 * outermost frames of cc1's stacks, cut short without frame pointers, are all over the
 * place).  Stacks still go in in sample order, so nodes are made in the same order, and
 * counts do not depend on when they are added.
 */
static int settle_stack(struct rep *R)
{
	long node;

	if (!R->pend.on)
		return 0;
	R->pend.on = false;
	node = prec_hist__stack(R->h, R->pend.ctx, other_frames(R), R->pend.nf);
	if (node < 0)
		return (int)node;
	prec_hist__count(R->h, R->pend.ctx, (uint32_t)node, R->pend.period);
	return 0;
}

/* Count the stack of R->frames[0, nf) one sample from now (see settle_stack). */
static int defer_stack(struct rep *R, uint32_t ctx, size_t nf, uint64_t period)
{
	int err;

	err = settle_stack(R);
	if (err)
		return err;
	R->pend.on = true;
	R->pend.ctx = ctx;
	R->pend.nf = nf;
	R->pend.period = period;
	R->frames = other_frames(R);
	return 0;
}

/*
 * The frames of a raw chain, resolved into R->frames: how many, or a negative errno.  A
 * broken stack (its copy ended before the outermost caller) ends in perf's root frame for
 * it: address 0xffffffffffffffff, in no mapping.
 */
static long resolve_frames(struct rep *R, struct prec_thread *t, const struct prec_sample *s,
			   const uint64_t *ips, size_t n, uint16_t misc, bool chain, bool unwound,
			   bool broken)
{
	size_t nf = 0;
	int err = resolve_chain(R, t, ips, n, misc, chain, unwound, &nf);
	bool dropped = err == 1; /* the sample counts, with no chain */

	if (dropped)
		err = 0;
	if (!err && !nf) { /* a chain of markers only, or dropped: the ip alone */
		err = add_frame(R, t, s->ip, cpumode_kernel(misc), false, &nf);
		if (!err && dropped && nf)
			R->frames[0].flags |= PREC_FRAME_NOCHAIN;
	}
	if (!err && broken && nf && nf < MAX_FRAMES) {
		memset(&R->frames[nf], 0, sizeof(R->frames[nf]));
		R->frames[nf++].addr = UINT64_MAX;
	}
	return err ? err : (long)nf;
}

/* Whether this sample uses the chain cache (see CC_WINDOW). */
static bool cc_use(struct rep *R)
{
	/* at the end of a window, sit out the next stretch if the window paid little */
	if (R->cc_seen == CC_WINDOW) {
		if (R->cc_hits < CC_WINDOW / 4)
			R->cc_rest = CC_REST;
		R->cc_seen = 0;
		R->cc_hits = 0;
	}
	if (R->cc_rest) {
		R->cc_rest--;
		return false;
	}
	R->cc_seen++;
	return true;
}

struct unwind_ctx {
	struct rep *R;
	struct prec_thread *t;
};

/* prec_unwind()'s question: the DSO at pc in the sampled process, as user_frame() maps it. */
static struct prec_dso *unwind_find(void *arg, uint64_t pc, uint64_t *ret_off)
{
	struct unwind_ctx *c = arg;
	struct prec_hist_frame f;

	memset(&f, 0, sizeof(f));
	if (user_frame(c->R, c->t, pc, &f) || !f.dso)
		return NULL;
	*ret_off = f.addr;
	return prec_hist__dso(c->R->h, f.dso);
}

/*
 * The chain of a sample with a user stack copy: its kernel part as recorded, then the user
 * part unwound from the copy (perf records such samples with exclude_callchain_user, so
 * the kernel gives no user part).  NULL when the sample has no user registers (a kernel
 * thread) or on -ENOMEM, and the recorded chain is used.
 */
static const uint64_t *unwound_chain(struct rep *R, const struct prec_evsel *ev,
				     struct prec_thread *t, const struct prec_sample *s,
				     bool chain, size_t *ret_n, bool *ret_broken)
{
	struct unwind_ctx c = { R, t };
	struct prec_unwind_regs regs;
	size_t nk = 0, need;
	uint64_t len;

	if (!s->regs_user_abi || !s->stack_size ||
	    prec_unwind_regs_x86_64(&regs, ev->layout.regs_user_mask, s->regs_user))
		return NULL;
	if (chain)
		while (nk < s->callchain_nr && s->callchain[nk] != (uint64_t)PERF_CONTEXT_USER)
			nk++;
	need = nk + 1 + MAX_UNWOUND;
	if (prec_array__grow((void **)&R->uw_ips, &R->uw_cap, need, sizeof(uint64_t), 64))
		return NULL;
	if (nk)
		memcpy(R->uw_ips, s->callchain, nk * sizeof(uint64_t));
	R->uw_ips[nk] = (uint64_t)PERF_CONTEXT_USER;
	len = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size : s->stack_size;
	*ret_n = nk + 1 +
		 prec_unwind(&regs, s->stack_data, len, unwind_find, &c, R->uw_ips + nk + 1,
			     R->o->max_stack < MAX_UNWOUND ? R->o->max_stack : MAX_UNWOUND,
			     ret_broken);
	return R->uw_ips;
}

/*
 * A READ record (u32 pid, tid; then read_format's value, without a group), written by perf
 * record -s for each thread and event: its value is added to the thread's count of the
 * event, for -T.  Records of a group read are left out.
 */
static int add_read(struct rep *R, const struct prec_record *rec)
{
	int evsel = prec_reader__evsel_of(R->r, rec);
	const unsigned char *p = rec->data;
	size_t nev = R->nr_gev;
	uint32_t pid, tid;
	uint64_t key, v;
	bool is_new;
	long i;

	if (evsel < 0 || rec->size < 24 ||
	    prec_reader__evsel(R->r, (size_t)evsel)->attr.read_format & PERF_FORMAT_GROUP)
		return 0;
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	memcpy(&v, p + 16, 8);
	key = (uint64_t)pid << 32 | tid;
	i = prec_keyset__intern(&R->read_ids, &key, &is_new);
	if (i < 0)
		return (int)i;
	if (is_new) {
		if (prec_array__grow((void **)&R->read_vals, &R->read_cap,
				     ((size_t)i + 1) * nev, sizeof(*R->read_vals), 64))
			return -ENOMEM;
		memset(R->read_vals + (size_t)i * nev, 0, nev * sizeof(*R->read_vals));
	}
	R->read_vals[(size_t)i * nev + R->evmap[evsel]] += v;
	return 0;
}

static int ndigits(int64_t v)
{
	return snprintf(NULL, 0, "%" PRId64, v);
}

/* -T: perf's table of the threads' counts (the header alone when there are none); ve: the
 * events' names. */
static void print_threads(const struct rep *R, const struct prec_view_evsel *ve, FILE *out)
{
	const uint64_t *keys = (const uint64_t *)(const void *)R->read_ids.keys;
	size_t n = R->read_ids.n, i, e, nev = R->nr_gev;
	int pw = 3, tw = 3, w[64];

	for (e = 0; e < nev && e < 64; e++)
		w[e] = (int)strlen(ve[e].name);
	for (i = 0; i < n; i++) {
		int a = ndigits((int32_t)(keys[i] >> 32)), b = ndigits((int32_t)keys[i]);

		pw = a > pw ? a : pw;
		tw = b > tw ? b : tw;
		for (e = 0; e < nev && e < 64; e++) {
			int c = snprintf(NULL, 0, "%" PRIu64, R->read_vals[i * nev + e]);

			w[e] = c > w[e] ? c : w[e];
		}
	}
	fprintf(out, "#\n# %*s  %*s", pw, "PID", tw, "TID");
	for (e = 0; e < nev && e < 64 && n; e++)
		fprintf(out, "  %*s", w[e], ve[e].name);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "  %*d  %*d", pw, (int32_t)(keys[i] >> 32), tw, (int32_t)keys[i]);
		for (e = 0; e < nev && e < 64; e++)
			fprintf(out, "  %*" PRIu64, w[e], R->read_vals[i * nev + e]);
		fputc('\n', out);
	}
}

/* -U: whether a sample's own frame has a function.  perf leaves the other samples out
 * before counting anything.  Looks the DSO up now, so no loader thread runs then. */
static bool leaf_resolved(struct rep *R, const struct prec_hist_frame *f)
{
	struct prec_dso *d = f->dso ? prec_hist__dso(R->h, f->dso) : NULL;

	return d && !prec_dso__lookup(d, f->addr, NULL, NULL);
}

static int process_sample(struct rep *R, const void *rec, size_t size, uint16_t misc, int evidx)
{
	const struct prec_evsel *ev = prec_reader__evsel(R->r, (size_t)evidx);
	struct prec_hist_sample hs;
	struct prec_sample s;
	struct prec_thread *t;
	struct cc_slot *slot;
	const uint64_t *ips;
	size_t n;
	uint64_t hash = 0, gen = 0; /* set with slot (GCC 12 cannot tell) */
	uint32_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool chain, unwound = false, broken = false;
	long ctx, node, nf;
	int err;

	if (prec_sample__parse(&ev->layout, rec, size, &s)) {
		R->bad_samples++;
		return 0;
	}
	t = prec_machine__thread(R->m, s.pid, s.tid);
	if (!t)
		return -ENOMEM;
	/* in user mode after an exec: the old image's maps have served their time */
	if (t->ms->nr_old && mode == PERF_RECORD_MISC_USER)
		prec_machine__user_seen(R->m, t->ms);
	if (!sample_in_scope(R, &s))
		return 0;
	memset(&hs, 0, sizeof(hs));
	hs.evsel = R->evmap[evidx];
	hs.pid = s.pid;
	hs.tid = s.tid;
	hs.cpu = (ev->layout.sample_type & PERF_SAMPLE_CPU) ? s.cpu : UINT32_MAX;
	if (ev->layout.sample_type & PERF_SAMPLE_PERIOD)
		hs.period = s.period;
	else
		hs.period = ev->attr.freq ? 1 : (ev->attr.sample_period ? ev->attr.sample_period : 1);
	if (!sample_passes(R, &s, t->comm)) {
		prec_hist__count_filtered(R->h, hs.evsel, hs.period);
		return 0;
	}
	/* a thread's samples are mostly of one context: the thread remembers it (unless the
	 * context has the CPU in it) */
	if (t->user[TU_CTX] >> 32 == (uint64_t)evidx + 1 &&
	    t->user[TU_CTX_COMM] == (uintptr_t)t->comm && !R->h->ctx_cpu) {
		ctx = (long)(uint32_t)t->user[TU_CTX];
	} else {
		/* the hist keeps the comm: a copy that outlives this stream's machine */
		hs.comm = prec_strset__intern(&R->comms, t->comm);
		if (!hs.comm)
			return -ENOMEM;
		ctx = prec_hist__context(R->h, &hs);
		if (ctx < 0)
			return (int)ctx;
		t->user[TU_CTX_COMM] = (uintptr_t)t->comm;
		t->user[TU_CTX] = ((uint64_t)evidx + 1) << 32 | (uint64_t)ctx;
	}

	chain = (ev->layout.sample_type & PERF_SAMPLE_CALLCHAIN) && s.callchain_nr;
	ips = chain ? s.callchain : &s.ip;
	n = chain ? s.callchain_nr : 1;
	if (R->unwind) {
		const uint64_t *u = unwound_chain(R, ev, t, &s, chain, &n, &broken);

		if (u) { /* else n is untouched */
			ips = u;
			chain = true;
			unwound = true;
		}
		if (broken)
			R->broken[hs.evsel] += hs.period;
	}
	slot = NULL;
	if (cc_use(R)) {
		gen = prec_machine__generation(R->m, t->ms);
		hash = chain_hash(ips, n) ^
		       ((uint64_t)s.pid << 32 | (uint64_t)ctx) * 0x9e3779b97f4a7c15ULL ^ mode;
		slot = &R->cc[hash & (CC_SLOTS - 1)];
		if (slot->ips && slot->hash == hash && slot->gen == gen && slot->pid == s.pid &&
		    slot->ctx == (uint32_t)ctx && slot->mode == mode && slot->n == n &&
		    slot->broken == broken && !memcmp(slot->ips, ips, n * 8)) {
			prec_hist__count(R->h, (uint32_t)ctx, slot->node, hs.period);
			R->cc_hits++;
			return 0;
		}
	}
	nf = resolve_frames(R, t, &s, ips, n, misc, chain, unwound, broken);
	if (nf < 0)
		return (int)nf;
	if (R->o->hide_unresolved && (!nf || !leaf_resolved(R, &R->frames[0])))
		return 0;
	if (!slot)
		return defer_stack(R, (uint32_t)ctx, (size_t)nf, hs.period);
	/* the waiting stack first: nodes are made in sample order */
	err = settle_stack(R);
	if (err)
		return err;
	node = prec_hist__stack(R->h, (uint32_t)ctx, R->frames, (size_t)nf);
	if (node < 0)
		return (int)node;
	prec_hist__count(R->h, (uint32_t)ctx, (uint32_t)node, hs.period);
	if (n > slot->cap) {
		uint64_t *p = realloc(slot->ips, n * 8);

		if (!p)
			return 0; /* the cache is only a cache */
		slot->ips = p;
		slot->cap = (uint32_t)n;
	}
	memcpy(slot->ips, ips, n * 8);
	slot->n = (uint32_t)n;
	slot->hash = hash;
	slot->gen = gen;
	slot->pid = s.pid;
	slot->ctx = (uint32_t)ctx;
	slot->mode = mode;
	slot->broken = broken;
	slot->node = (uint32_t)node;
	return 0;
}

/* ---- records ---- */

static int process_now(struct rep *R, uint32_t type, uint16_t misc, const void *rec, size_t size,
		       int evsel)
{
	if (type == PERF_RECORD_SAMPLE)
		return evsel >= 0 ? process_sample(R, rec, size, misc, evsel) : 0;
	return prec_machine__process(R->m, type, misc, rec, size) == -ENOMEM ? -ENOMEM : 0;
}

static int cmp_qent(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Sort the queue by (time, arrival).  The records of one ring come in time order, so the
 * queue is a few sorted runs (one per CPU and round): merge them, n log(runs).
 */
static int sort_queue(struct rep *R)
{
	struct qent *a = R->q, *b;
	size_t n = R->nq, width_runs, i;
	size_t *runs, nr = 0;

	if (n < 2) /* sorted; and runs[] below needs two slots */
		return 0;
	runs = malloc((n + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	runs[nr++] = 0;
	for (i = 1; i < n; i++)
		if (cmp_qent(&a[i - 1], &a[i]) > 0)
			runs[nr++] = i;
	runs[nr] = n;
	if (nr <= 1) {
		free(runs);
		return 0;
	}
	if (prec_array__grow((void **)&R->qtmp, &R->qtmp_cap, n, sizeof(*R->qtmp), 4096)) {
		free(runs);
		return -ENOMEM;
	}
	b = R->qtmp;
	/* merge run pairs until one run is left; runs[] keeps the boundaries */
	for (width_runs = nr; width_runs > 1;) {
		size_t k = 0, r;

		for (r = 0; r < width_runs; r += 2) {
			size_t lo = runs[r], mid = runs[r + 1 <= width_runs ? r + 1 : width_runs];
			size_t hi = r + 2 <= width_runs ? runs[r + 2] : mid, x = lo, y = mid, o = lo;

			while (x < mid && y < hi)
				b[o++] = cmp_qent(&a[x], &a[y]) <= 0 ? a[x++] : a[y++];
			while (x < mid)
				b[o++] = a[x++];
			while (y < hi)
				b[o++] = a[y++];
			runs[k++] = lo;
		}
		runs[k] = n;
		width_runs = k;
		{
			struct qent *t = a;

			a = b;
			b = t;
		}
	}
	if (a != R->q)
		memcpy(R->q, a, n * sizeof(*a));
	free(runs);
	return 0;
}

/* A record's room in an arena: padded to 8 bytes so the next one stays aligned. */
static size_t arena_size(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

/* Append a copy of a record to `b`. */
static int arena_add(struct prec_buf *b, const void *rec, size_t size)
{
	size_t padded = arena_size(size);

	if (padded > b->cap - b->len && prec_buf__reserve(b, padded))
		return -ENOMEM;
	memcpy(b->data + b->len, rec, size);
	memset(b->data + b->len + size, 0, padded - size);
	b->len += padded;
	return 0;
}

/*
 * Process the queued records with time <= limit, in time order.  What stays is normally
 * all in arenas[cur] (the round just read): that arena becomes the other one and new
 * records go to the emptied one, so a record is copied once.  What stays in the other
 * arena (a file out of perf's order) is copied over first.
 */
static int flush_queue(struct rep *R, uint64_t limit)
{
	unsigned int old = !R->cur;
	const void *oldest;
	size_t i, k = 0;
	int err = 0;

	err = sort_queue(R);
	if (err)
		return err;
	for (i = 0; i < R->nq && R->q[i].time <= limit; i++) {
		const struct qent *e = &R->q[i];
		const struct perf_event_header *hd =
			e->arena == IN_PLACE ? (const void *)(uintptr_t)e->off
					     : (const void *)(R->arenas[e->arena].data + e->off);

		err = process_now(R, hd->type, hd->misc, hd, e->size, e->evsel);
		if (err)
			return err;
	}
	R->queued_bytes = 0;
	oldest = NULL;
	for (; i < R->nq; i++, k++) {
		R->q[k] = R->q[i];
		R->queued_bytes += arena_size(R->q[k].size);
		if (R->q[k].arena == IN_PLACE) {
			const void *p = (const void *)(uintptr_t)R->q[k].off;

			if (!oldest || p < oldest)
				oldest = p;
			continue;
		}
		if (R->q[k].arena == old) {
			size_t off = R->arenas[R->cur].len;

			if (arena_add(&R->arenas[R->cur], R->arenas[old].data + R->q[k].off,
				      R->q[k].size))
				return -ENOMEM;
			R->q[k].arena = R->cur;
			R->q[k].off = off;
		}
	}
	R->nq = k;
	R->arenas[old].len = 0;
	if (!k)
		R->arenas[R->cur].len = 0;
	else
		R->cur = old;
	/* what the queue still holds of a mapped file starts at `oldest` */
	prec_reader__release(R->r, oldest);
	return 0;
}

static int enqueue(struct rep *R, const struct prec_record *rec, uint64_t time, int evsel)
{
	struct prec_buf *a = &R->arenas[R->cur];
	size_t off = a->len;

	/* per record: the call only when full */
	if (R->nq == R->qcap &&
	    prec_array__grow((void **)&R->q, &R->qcap, R->nq + 1, sizeof(*R->q), 4096))
		return -ENOMEM;
	/* a record the reader keeps is not copied */
	if (rec->stable)
		off = (size_t)(uintptr_t)rec->data;
	else if (arena_add(a, rec->data, rec->size))
		return -ENOMEM;
	R->q[R->nq].time = time;
	R->q[R->nq].seq = R->seq++;
	R->q[R->nq].off = off;
	R->q[R->nq].size = rec->size;
	R->q[R->nq].evsel = evsel;
	R->q[R->nq].arena = rec->stable ? IN_PLACE : R->cur;
	R->nq++;
	R->queued_bytes += arena_size(rec->size);
	if (time > R->round_max)
		R->round_max = time;
	/* no rounds in this file: process the older half */
	if (R->queued_bytes > QUEUE_MAX_BYTES)
		return flush_queue(R, R->q[R->nq / 2].time);
	return 0;
}

static void add_build_id(struct rep *R, const unsigned char *p, size_t size)
{
	size_t idlen = 20;

	/* header (8), pid (4), build_id[24] (or data[20], size, pad), filename */
	if (size < 8 + 4 + 24 + 1)
		return;
	if (p[6] | (p[7] << 8)) {
		uint16_t misc;

		memcpy(&misc, p + 6, 2);
		if ((misc & PERF_RECORD_MISC_BUILD_ID_SIZE) && p[12 + 20] <= 20)
			idlen = p[12 + 20];
	}
	if (!memchr(p + 36, 0, size - 36))
		return;
	prec_machine__add_build_id(R->m, (const char *)p + 36, p + 12, idlen);
}

/* The BUILD_ID feature: a run of build-id records, each header.size long. */
static void load_build_id_feature(struct rep *R)
{
	size_t len = 0, off = 0;
	const unsigned char *p = prec_reader__feature(R->r, FEAT_BUILD_ID, &len);

	while (p && off + 8 <= len) {
		uint16_t sz;

		memcpy(&sz, p + off + 6, 2);
		if (sz < 8 || sz > len - off)
			break;
		add_build_id(R, p + off, sz);
		off += sz;
	}
}

static bool feature_equals(struct prec_reader *r, unsigned int feat, const char *want)
{
	struct prec_feat_cursor c;
	char *s = NULL;
	bool eq;

	c.p = prec_reader__feature(r, feat, &c.len);
	c.off = 0;
	if (!c.p)
		return true; /* not recorded: assume this host */
	if (prec_feat__string(&c, &s))
		return false;
	eq = !strcmp(s, want);
	free(s);
	return eq;
}

static void progress(const struct rep *R, uint64_t size, int *last)
{
	int pc = (int)(100 * prec_reader__offset(R->r) / size);

	if (pc != *last) {
		fprintf(stderr, "\rpreport: reading %d%%", pc);
		*last = pc;
	}
}

static int read_records(struct rep *R, const char *input)
{
	struct prec_record rec;
	struct stat sb;
	uint64_t size = 0, n = 0;
	int err, last_pc = -1;

	if (strcmp(input, "-") && !stat(input, &sb) && (uint64_t)sb.st_size > PROGRESS_MIN_BYTES &&
	    isatty(2) && !R->o->quiet)
		size = (uint64_t)sb.st_size;
	while ((err = prec_reader__next(R->r, &rec)) > 0) {
		int evsel = -1;
		uint64_t time = 0;

		if (size && !(++n & 0xffff))
			progress(R, size, &last_pc);
		switch (rec.type) {
		case PERF_RECORD_SAMPLE:
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES: {
			uint64_t lost;
			size_t at = rec.type == PERF_RECORD_LOST ? 16 : 8;

			evsel = prec_reader__evsel_of(R->r, &rec);
			if (rec.size >= at + 8) {
				memcpy(&lost, (const unsigned char *)rec.data + at, 8);
				R->lost[rec.type == PERF_RECORD_LOST_SAMPLES]
				       [R->evmap[evsel >= 0 ? evsel : 0]] += lost;
			}
			if (rec.type == PERF_RECORD_LOST_SAMPLES)
				R->have_lost_samples = true;
			continue;
		}
		case REC_HEADER_BUILD_ID:
			add_build_id(R, rec.data, rec.size);
			continue;
		case PERF_RECORD_READ:
			if (R->o->show_threads) {
				err = add_read(R, &rec);
				if (err)
					return err;
			}
			continue;
		case REC_FINISHED_ROUND:
			if (R->ordered) {
				err = flush_queue(R, R->prev_round_max);
				if (err)
					return err;
				R->prev_round_max = R->round_max;
			}
			continue;
		default:
			continue;
		}
		evsel = prec_reader__evsel_of(R->r, &rec);
		if (evsel < 0 && rec.type == PERF_RECORD_SAMPLE) {
			R->unknown_evsel++;
			continue;
		}
		if (R->ordered) {
			const struct prec_evsel *ev = prec_reader__evsel(R->r, evsel < 0 ? 0 : (size_t)evsel);

			if (rec.type == PERF_RECORD_SAMPLE) {
				/* fully parsed when processed; here only its time */
				time = prec_sample__time(&ev->layout, rec.data, rec.size);
				prec_time_range__add(&R->times, time);
				/* processed a round later: a kernel sample's symbols (kallsyms, the
				 * longest load) start loading now */
				if (cpumode_kernel(rec.misc))
					queue_kernel(R);
			} else {
				struct prec_sample_id sid;

				/* synthesized records carry no trailer time: 0, first */
				if (!prec_sample_id__parse(&ev->layout, rec.data, rec.size, &sid))
					time = sid.time;
			}
			err = enqueue(R, &rec, time, evsel);
		} else {
			err = process_now(R, rec.type, rec.misc, rec.data, rec.size, evsel);
			prec_reader__release(R->r, NULL); /* nothing is held */
		}
		if (err)
			return err;
	}
	if (size)
		fputs("\r                      \r", stderr);
	if (err < 0 && err != -EBADMSG)
		return err;
	/* corrupt: what came before it is still reported */
	return flush_queue(R, UINT64_MAX) ?: settle_stack(R) ?: err;
}

/* Under the pid and tid keys each thread is named by the command it had last, as in perf. */
static int name_threads(struct rep *R)
{
	uint32_t i;
	int err = 0;

	if (!R->h->ctx_pid && !R->h->ctx_tid)
		return 0;
	for (i = 0; i < R->h->ctxs.n && !err; i++) {
		const struct prec_ctx_key *ck = prec_hist__ctx(R->h, i);
		struct prec_thread *t = prec_machine__thread(R->m, ck->pid, ck->tid);

		err = t ? prec_hist__set_thread_comm(R->h, ck->pid, ck->tid, t->comm) : -ENOMEM;
	}
	return err;
}

/*
 * What only reading needs: the chain cache and the ordering queue.  Freed as soon as the
 * records are read, so that symbolizing and printing reuse that memory instead of touching
 * new pages (which costs 1-2 ms per MiB on VMs whose host takes free memory back).
 */
static void free_reading(struct rep *R)
{
	if (R->cc)
		for (size_t i = 0; i < CC_SLOTS; i++)
			free(R->cc[i].ips);
	free(R->cc);
	R->cc = NULL;
	free(R->qtmp);
	R->qtmp = NULL;
	R->qtmp_cap = 0;
	free(R->q);
	R->q = NULL;
	R->nq = R->qcap = 0;
	prec_buf__release(&R->arenas[0]);
	prec_buf__release(&R->arenas[1]);
	free(R->uw_ips);
	R->uw_ips = NULL;
	R->uw_cap = 0;
}

static void free_rep(struct rep *R)
{
	prec_hist__free(R->h);
	prec_symtab__free(R->st);
	prec_machine__free(R->m);
	prec_keyset__release(&R->jit_ids);
	free(R->jit_val);
	prec_keyset__release(&R->file_ids);
	free(R->file_val);
	prec_strset__release(&R->paths);
	prec_keyset__release(&R->read_ids);
	free(R->read_vals);
	free(R->lost[0]);
	free(R->lost[1]);
	free(R->lost_total);
	free(R->broken);
	free(R->evmap);
	prec_strset__release(&R->comms);
	free_reading(R);
}

/* An event of the recording, as matched across streams. */
struct gev {
	char *name;
	uint32_t type;
	uint64_t config;
};

struct gevs {
	struct gev *v;
	size_t n, cap;
};

static void gevs_free(struct gevs *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].name);
	free(g->v);
}

/* The number of stream r's event idx among all streams' events, added if new. */
static long gevs_intern(struct gevs *g, struct prec_reader *r, size_t idx)
{
	const struct prec_evsel *ev = prec_reader__evsel(r, idx);
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].type == ev->attr.type && g->v[i].config == ev->attr.config &&
		    !strcmp(g->v[i].name, ev->name))
			return (long)i;
	if (prec_array__grow((void **)&g->v, &g->cap, g->n + 1, sizeof(*g->v), 4))
		return -ENOMEM;
	g->v[g->n].name = strdup(ev->name);
	if (!g->v[g->n].name)
		return -ENOMEM;
	g->v[g->n].type = ev->attr.type;
	g->v[g->n].config = ev->attr.config;
	return (long)g->n++;
}

/* What the first pass over the streams' headers found. */
struct survey {
	struct gevs ev;
	bool *bad; /* per stream: damaged, skipped */
	bool callchains, stack_copies;
	bool cpu_numbers; /* some event records its samples' CPU */
	size_t first; /* the first stream that opened */
	size_t nr_ok;
};

/* Open every stream's header once: the events of all, the damaged ones told once. */
static int survey_streams(struct preport_input *in, struct survey *sv)
{
	size_t n = preport_input__count(in), i, k;
	int err = 0;

	sv->bad = calloc(n ? n : 1, sizeof(*sv->bad));
	if (!sv->bad)
		return -ENOMEM;
	sv->first = n;
	for (i = 0; i < n && !err; i++) {
		struct preport_stream s;

		err = preport_input__open_stream(in, i, &s);
		if (err) {
			sv->bad[i] = true;
			err = err == -ENOMEM ? err : 0;
			continue;
		}
		if (sv->first == n)
			sv->first = i;
		sv->nr_ok++;
		for (k = 0; k < prec_reader__nr_evsels(s.r) && !err; k++) {
			const struct prec_evsel *ev = prec_reader__evsel(s.r, k);
			long g = gevs_intern(&sv->ev, s.r, k);

			if (g < 0)
				err = (int)g;
			if (ev->layout.sample_type & PERF_SAMPLE_CALLCHAIN)
				sv->callchains = true;
			if (ev->layout.sample_type & PERF_SAMPLE_STACK_USER)
				sv->stack_copies = true;
			if (ev->layout.sample_type & PERF_SAMPLE_CPU)
				sv->cpu_numbers = true;
		}
		preport_input__close_stream(in, &s);
	}
	return err;
}

/* Make R ready for stream s: its events' numbers, its window, fresh state. */
static int start_stream(struct rep *R, struct gevs *g, const struct preport_stream *s,
			bool fresh_state)
{
	size_t nev = prec_reader__nr_evsels(s->r), i;
	int err;

	R->r = s->r;
	if (prec_array__grow((void **)&R->evmap, &R->evmap_cap, nev ? nev : 1, sizeof(*R->evmap),
			     8))
		return -ENOMEM;
	R->evmap[0] = 0;
	R->ordered = nev > 0;
	for (i = 0; i < nev; i++) {
		const struct prec_evsel *ev = prec_reader__evsel(s->r, i);
		long k = gevs_intern(g, s->r, i);

		if (k < 0)
			return (int)k;
		if ((size_t)k >= R->nr_gev)
			return -ESTALE; /* not in the first pass: the file changed since */
		R->evmap[i] = (uint32_t)k;
		if (!(ev->layout.sample_type & PERF_SAMPLE_TIME) || !ev->layout.sample_id_all)
			R->ordered = false;
	}
	R->win = s->window;
	R->win_lo = s->lo;
	R->win_hi = s->hi;
	R->seq = R->round_max = R->prev_round_max = 0;
	if (fresh_state) {
		/* the cache's entries name the old state's generations */
		for (i = 0; i < CC_SLOTS; i++) {
			free(R->cc[i].ips);
			R->cc[i].ips = NULL;
			R->cc[i].cap = 0;
		}
		prec_machine__free(R->m);
		R->m = NULL;
		err = prec_machine__new(&R->m);
		if (err)
			return err;
	}
	load_build_id_feature(R);
	return 0;
}

/*
 * After a stream: its lost samples into R->lost_total.  The kernel's count of samples dropped
 * for a full ring comes in LOST records while recording and, from perf 6.0 and precord, once
 * more in LOST_SAMPLES records at the end: perf reports the latter alone.  Decided per
 * stream, as a live segment has no LOST_SAMPLES yet.
 */
static void end_stream_lost(struct rep *R)
{
	for (size_t g = 0; g < R->nr_gev; g++) {
		R->lost_total[g] += R->lost[R->have_lost_samples][g];
		R->lost[0][g] = R->lost[1][g] = 0;
	}
	R->have_lost_samples = false;
}

/* Read every stream of the input after the first pass; -EBADMSG only for a single file. */
static int read_streams(struct rep *R, struct preport_input *in, struct survey *sv)
{
	size_t n = preport_input__count(in), i;
	bool first = true;
	int err = 0;

	for (i = 0; i < n; i++) {
		struct preport_stream s;

		if (sv->bad[i])
			continue;
		err = preport_input__open_stream(in, i, &s);
		if (err == -ENOMEM)
			return err;
		if (err)
			continue; /* changed since the first pass; warned */
		err = start_stream(R, &sv->ev, &s, !first);
		memset(&R->times, 0, sizeof(R->times));
		if (!err)
			err = read_records(R, s.path);
		end_stream_lost(R);
		if (!err) /* a live segment has no end marker yet */
			preport_warn_cut(s.r, s.live ? NULL : s.name, &R->times);
		first = false;
		preport_input__close_stream(in, &s);
		if (err == -ESTALE) {
			prec_warn("%s changed while it was read; skipped", s.name);
			err = 0;
		}
		if (err == -EBADMSG && preport_input__is_dir(in)) {
			prec_warn("segment %s is corrupt (%s): its records before that are counted",
				  s.name, preport_why(err));
			err = 0;
		}
		if (err)
			return err;
	}
	return 0;
}

/* The report's line on --since/--until, before the view. */
static void print_range(struct preport_input *in, FILE *out)
{
	const struct preport_range *rg = preport_input__range(in);
	char a[32], b[32];

	if (!rg->set)
		return;
	if (rg->since_ns)
		preport_format_wall(rg->since_ns, false, a, sizeof(a));
	else
		snprintf(a, sizeof(a), "the start");
	if (rg->until_ns)
		preport_format_wall(rg->until_ns, false, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "the end");
	fprintf(out, "# time range: from %s to %s (local time)", a, b);
	if (preport_input__is_dir(in))
		fprintf(out, ", %zu of %zu segments", preport_input__count(in),
			preport_input__nr_segments(in));
	fputs("\n#\n", out);
}

int preport_report(struct prec_reader *r, const char *input, const struct preport_report_opts *o,
		   FILE *out)
{
	struct preport_input *in;
	int err = preport_input__new_file(r, input, NULL, &in);

	if (err)
		return err;
	err = preport_report_input(in, o, out);
	preport_input__free(in);
	return err;
}

int preport_report_input(struct preport_input *in, const struct preport_report_opts *o,
			 FILE *out)
{
	struct prec_symtab_opts so;
	struct prec_hist_opts ho;
	struct prec_view_opts vo;
	struct prec_view_evsel *ve = NULL;
	struct utsname un;
	char jit_dir[PATH_MAX];
	struct rep R;
	struct phases ph;
	struct survey sv;
	struct preport_stream first = { 0 };
	size_t nev, i;
	bool callchains, stack_copies, have_un;
	long kid;
	int err;

	phases_start(&ph);
	memset(&R, 0, sizeof(R));
	memset(&sv, 0, sizeof(sv));
	R.frames = R.frbuf[0];
	R.o = o;
	prec_keyset__init(&R.jit_ids, sizeof(uint64_t));
	prec_keyset__init(&R.file_ids, sizeof(const char *));
	prec_keyset__init(&R.read_ids, sizeof(uint64_t));
	err = survey_streams(in, &sv);
	if (err)
		goto out;
	if (!sv.nr_ok) {
		/* a single file's own error, or no segment readable */
		if (!preport_input__is_dir(in)) {
			err = -EBADMSG;
			goto out;
		}
		if (preport_input__count(in))
			prec_warn("no segment could be read");
	}
	/* as perf: --cpu on samples without CPU numbers would silently select none, or all */
	if (o->cpus && sv.nr_ok && !sv.cpu_numbers) {
		err = -ENOTSUP;
		goto out;
	}
	callchains = sv.callchains;
	stack_copies = sv.stack_copies;
	nev = sv.ev.n;
	R.nr_gev = nev;

	/* the machine facts of the first stream stand for all */
	if (sv.nr_ok) {
		err = preport_input__open_stream(in, sv.first, &first);
		if (err)
			goto out;
	}
	memset(&so, 0, sizeof(so));
	so.symfs = o->symfs;
	so.kallsyms = o->kallsyms;
	so.no_demangle = o->no_demangle;
	so.cache_dir = o->cache_dir;
	have_un = !uname(&un);
	/* --symfs stands for the recorded machine, as in perf: nothing of this host's kernel
	 * (kallsyms, vdso) or /tmp (JIT maps) is used then */
	so.use_proc_kallsyms = !o->symfs && have_un &&
			       (!first.r || (feature_equals(first.r, FEAT_HOSTNAME, un.nodename) &&
					     feature_equals(first.r, FEAT_OSRELEASE, un.release)));
	if (o->symfs &&
	    snprintf(jit_dir, sizeof(jit_dir), "%s/tmp", o->symfs) < (int)sizeof(jit_dir))
		so.jit_dir = jit_dir;
	if (!o->kallsyms && o->symfs)
		prec_warn("with --symfs, kernel symbols come only from --kallsyms FILE");
	else if (!o->kallsyms && !so.use_proc_kallsyms)
		prec_warn("the recording was made on another host or kernel: kernel symbols need "
			  "--kallsyms FILE from that machine");

	if (stack_copies) {
		/* unwinding loads DSOs as it reads, so no background loader */
		R.unwind = have_un && !strcmp(un.machine, "x86_64") &&
			   feature_equals(first.r, FEAT_ARCH, un.machine);
		if (!R.unwind)
			prec_warn("the recording has user stack copies (--call-graph dwarf), which "
				  "preport unwinds only for x86-64 recordings on x86-64: user-space "
				  "call chains stop at the sampled function");
		else
			callchains = true;
	}
	preport_input__close_stream(in, &first);

	memset(&ho, 0, sizeof(ho));
	memcpy(ho.keys, o->keys, sizeof(ho.keys));
	ho.nr_keys = o->nr_keys;
	ho.children = o->children < 0 ? callchains : o->children && callchains;
	ho.inline_frames = o->inline_frames;
	ho.need_comm = o->folded;
	vo.graph = o->graph < 0 ? (callchains ? PREC_GRAPH_GRAPH : PREC_GRAPH_NONE)
				: (enum prec_graph_mode)o->graph;
	if (!callchains && vo.graph != PREC_GRAPH_NONE) {
		if (o->graph >= 0)
			prec_warn("the recording has no call chains (record with -g): no call "
				  "graphs");
		vo.graph = PREC_GRAPH_NONE;
	}
	if (o->max_stack == 0)
		vo.graph = PREC_GRAPH_NONE; /* as perf: no frame of a chain, nothing to draw */
	if (o->folded && !callchains)
		prec_warn("the recording has no call chains (record with -g): each stack is its "
			  "sampled function only");
	/* perf's defaults: callers first with children, callees first without */
	vo.caller_order = o->order < 0 ? ho.children : o->order == 1;
	ho.callee_order = !vo.caller_order;
	ho.keep_occurrences = vo.graph != PREC_GRAPH_NONE && !o->folded && !o->field_sep;
	ho.dso_filter = o->dsos;
	ho.sym_filter = o->syms;
	vo.show_nr_samples = o->show_nr_samples;
	vo.show_total_period = o->show_total_period;
	vo.hide_unresolved = o->hide_unresolved;
	memcpy(vo.fields, o->fields, sizeof(vo.fields));
	vo.nr_fields = o->nr_fields;
	vo.fields_sorted = o->fields_sorted;
	vo.percent_limit = o->percent_limit;
	vo.field_sep = o->field_sep;
	vo.graph_threshold = o->graph_threshold;
	vo.graph_value = (enum prec_graph_value)o->graph_value;

	err = prec_machine__new(&R.m);
	if (!err)
		err = prec_symtab__new(&so, &R.st);
	if (!err)
		err = prec_hist__new(&ho, R.st, (uint32_t)nev, &R.h);
	if (err)
		goto out;
	R.lost[0] = calloc(nev ? nev : 1, sizeof(*R.lost[0]));
	R.lost[1] = calloc(nev ? nev : 1, sizeof(*R.lost[1]));
	R.lost_total = calloc(nev ? nev : 1, sizeof(*R.lost_total));
	R.broken = calloc(nev ? nev : 1, sizeof(*R.broken));
	ve = calloc(nev ? nev : 1, sizeof(*ve));
	R.cc = prec_calloc_written(CC_SLOTS, sizeof(*R.cc));
	if (!R.lost[0] || !R.lost[1] || !R.lost_total || !R.broken || !ve || !R.cc) {
		err = -ENOMEM;
		goto out;
	}
	kid = prec_hist__dso_id(R.h, prec_symtab__kernel(R.st));
	if (kid < 0) {
		err = (int)kid;
		goto out;
	}
	R.kernel_id = (uint32_t)kid;

	/* symbol tables load on the other CPU while the records are read, and frames are
	 * symbolized on a third thread as the loader is done with their DSOs; without threads
	 * all that is done when first needed */
	if (!R.unwind && !o->hide_unresolved && prec_symtab__loader_start(R.st))
		prec_log(PREC_LOG_INFO, "no background thread for symbol loading");
	else if (!R.unwind && !o->hide_unresolved && prec_hist__background(R.h))
		prec_log(PREC_LOG_INFO, "no background thread for symbolizing");
	phase_end(&ph, "setup");
	err = read_streams(&R, in, &sv);
	phase_end(&ph, "read");
	free_reading(&R);
	if (!err || err == -EBADMSG) {
		/* indexing needs no symbols: done while the other thread may still load them */
		int e2 = prec_hist__index_frames(R.h);

		if (e2)
			err = e2;
	} else {
		prec_hist__background_stop(R.h);
	}
	prec_symtab__loader_stop(R.st);
	phase_end(&ph, "loaded");
	if (err == -EBADMSG)
		fprintf(out, "# the input is corrupt after this point; what came before is "
			     "reported\n");
	else if (err)
		goto out;
	if (R.bad_samples)
		prec_warn("%" PRIu64 " malformed samples skipped", R.bad_samples);
	if (R.unknown_evsel)
		prec_warn("%" PRIu64 " samples of an unknown event skipped", R.unknown_evsel);
	{
		int e2 = name_threads(&R);

		if (!e2)
			e2 = prec_hist__finish(R.h);

		if (e2) {
			err = e2;
			goto out;
		}
	}
	phase_end(&ph, "finish");
	for (i = 0; i < nev; i++) {
		ve[i].name = sv.ev.v[i].name;
		ve[i].lost_samples = R.lost_total[i];
		ve[i].broken_period = R.broken[i];
	}
	vo.evsels = ve;
	if (!o->folded)
		print_range(in, out);
	{
		int e2 = o->folded ? prec_view__folded(R.h, out) : prec_view__stdio(R.h, &vo, out);

		if (e2)
			err = e2;
		else if (o->show_threads && !o->folded)
			print_threads(&R, ve, out);
	}
	phase_end(&ph, "view");
out:
	free(ve);
	free(sv.bad);
	gevs_free(&sv.ev);
	if (!o->no_teardown)
		free_rep(&R);
	return err;
}
