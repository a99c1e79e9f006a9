/* SPDX-License-Identifier: MIT */
/*
 * A sample made into a counted stack (the session's part between a SAMPLE record and the
 * hist; prec_report.c has the records around it):
 *
 *  1. The sample is parsed with its event's layout and its thread found in the machine
 *     state; the filters that leave it out of everything (--cpu, --time, the stream's
 *     window) or out of the entries only (--comms, --pid, --tid) are applied.
 *  2. Its context (event, comm, pid, tid, cpu: as far as the sort keys need) is looked up in
 *     the hist; a thread remembers its last one.
 *  3. Its chain: the recorded call chain, or the ip alone, or, with a user stack copy, the
 *     kernel part as recorded and the user part unwound (prec_unwind, x86-64).
 *  4. The chain cache: the same raw chain of the same process and context, under the same
 *     machine state (prec_machine__generation), is the same stack, so a hit only counts.
 *  5. Otherwise each address is resolved to a frame (DSO, address): the kernel's, a file
 *     mapping's (one DSO per file, whatever form its maps came in: file_dso_id), a JIT map's,
 *     or none.  File frames hold the file offset, the others the address.
 *  6. The frames go into the hist's trie as a stack and the sample is counted at its node.
 *     Symbols come later, once per distinct frame, when the hist is finished.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_log.h"
#include "prec_report_int.h"

#define MAX_UNWOUND 512 /* user frames unwound from a stack copy (perf: 127 by default) */
#define MAP_ANON_PRIV ((void *)1) /* map->priv of anonymous memory: JIT code of the pid */

/*
 * A cache of resolved call chains: the same raw chain of the same process, under the same
 * machine state, gives the same stack, so it is resolved once.  Direct-mapped.  It pays
 * where samples repeat their chains and costs where they rarely do, since a miss still looks
 * up and stores: so the cache watches its hits over windows of CC_WINDOW samples and, after
 * a window under 1/4, sits out the next CC_REST samples, then measures again (figures in
 * doc/performance.md).
 */
#define CC_SLOTS 16384
#define CC_WINDOW 4096
#define CC_REST (7 * CC_WINDOW)
struct prec_report_cc_slot {
	uint64_t hash, gen;
	uint32_t pid, ctx, node, mode;
	uint32_t n, cap;
	uint64_t *ips;
	bool broken; /* the stack copy ended before the outermost caller */
};

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
static bool sample_in_scope(const struct prec_report_session *rs, const struct prec_sample *s)
{
	const struct prec_report_opts *o = &rs->o;
	size_t i;

	if (o->cpus && (s->cpu >= o->nr_cpu_bits || !o->cpus[s->cpu]))
		return false;
	if (rs->win && (s->time < rs->win_lo || s->time > rs->win_hi))
		return false;
	for (i = 0; i < o->nr_time_ranges; i++)
		if (s->time >= o->time_ranges[i][0] &&
		    (!o->time_ranges[i][1] || s->time <= o->time_ranges[i][1]))
			break;
	if (o->nr_time_ranges && i == o->nr_time_ranges)
		return false;
	return !o->time_set ||
	       (s->time >= o->time_start && (!o->time_end || s->time <= o->time_end));
}

/* --pid, --tid and --comms: a sample outside is in no entry but still in the totals that
 * percentages are of, as in perf. */
static bool sample_passes(const struct prec_report_session *rs, const struct prec_sample *s,
			  const char *comm)
{
	const struct prec_report_opts *o = &rs->o;
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

/* What the session keeps in a thread's prec_thread.user[]. */
enum {
	TU_CTX_COMM, /* the comm for which TU_CTX holds the context */
	TU_CTX,	     /* (evsel + 1) << 32 | context id; 0: none yet */
	TU_JIT,	     /* jit_id() of its process + 1; 0: not asked yet */
};

/* The DSO that a path's maps share with the maps of the same file in another form: the
 * records of rs->file_ids. */
struct file_dso {
	const char *path; /* the key, interned in rs->paths */
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
 * Keys live in rs->paths, not the machine: a directory's streams each have their own.
 */
static long file_dso_id(struct prec_report_session *rs, const struct prec_map *map)
{
	const struct prec_build_id *b = map->build_id;
	struct prec_file_id fid = { map->maj, map->min, map->ino, map->ino_gen };
	const char *path = prec_strset__intern(&rs->paths, map->path);
	struct file_dso *e;
	struct prec_dso *d;
	bool is_new, same_bid, same_ino;
	long i, id;

	if (!path)
		return -ENOMEM;
	i = prec_keyset__intern(&rs->file_ids, &path, &is_new);
	if (i < 0)
		return i;
	e = prec_keyset__record(&rs->file_ids, (uint32_t)i);
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
	d = prec_symtab__dso_file(rs->st, map->path, b ? b->id : NULL, b ? b->len : 0, &fid);
	if (!d)
		return -ENOMEM;
	id = prec_hist__dso_id(rs->h, d);
	if (id < 0)
		return id;
	prec_symtab__prefetch(rs->st, d);
	if (is_new) {
		if (b)
			e->bid = *b;
		e->maj = fid.maj, e->min = fid.min, e->ino = fid.ino;
		e->id = (uint32_t)id;
	}
	return id;
}

/* The records of rs->jit_ids. */
struct jit_dso {
	uint64_t pid; /* the key */
	uint32_t id; /* hist DSO id of the process's JIT map; 0: none */
};

/* The hist DSO id of the JIT map of thread t's process, 0 when it has none. */
static long jit_id(struct prec_report_session *rs, struct prec_thread *t)
{
	uint64_t pid = t->pid;
	struct jit_dso *j;
	bool is_new;
	long id;

	/* asked for every frame outside a file mapping: the thread remembers it */
	if (t->user[TU_JIT])
		return (long)t->user[TU_JIT] - 1;
	id = prec_keyset__intern(&rs->jit_ids, &pid, &is_new);
	if (id < 0)
		return id;
	j = prec_keyset__record(&rs->jit_ids, (uint32_t)id);
	if (is_new && prec_symtab__jit_may_exist(rs->st, t->pid)) {
		struct prec_dso *d = prec_symtab__jit(rs->st, t->pid);
		long hid;

		if (!d)
			return -ENOMEM;
		if (prec_dso__status(d) == PREC_DSO_OK) {
			hid = prec_hist__dso_id(rs->h, d);
			if (hid < 0)
				return hid;
			j->id = (uint32_t)hid;
		}
	}
	t->user[TU_JIT] = (uint64_t)j->id + 1;
	return j->id;
}

static int user_frame(struct prec_report_session *rs, struct prec_thread *t, uint64_t addr,
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
		bool jit = memfd && (id = jit_id(rs, t)) != 0;

		if (jit && id < 0)
			return (int)id;
		if (jit || is_anon_path(map->path) || !strcmp(map->path, "[heap]") ||
		    !strcmp(map->path, "[stack]")) {
			priv = MAP_ANON_PRIV;
		} else {
			id = file_dso_id(rs, map);
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
	id = jit_id(rs, t);
	if (id < 0)
		return (int)id;
	f->dso = (uint32_t)id; /* 0: no mapping; the address stays absolute either way */
	return 0;
}

/* Hand the kernel's symbols to the loader thread, once. */
void prec_stacks__queue_kernel(struct prec_report_session *rs)
{
	if (!rs->kernel_queued) {
		prec_symtab__prefetch(rs->st, prec_symtab__kernel(rs->st));
		rs->kernel_queued = true;
	}
}

static int add_frame(struct prec_report_session *rs, struct prec_thread *t, uint64_t addr,
		     bool kernel, bool ret, size_t *n)
{
	struct prec_hist_frame *f = &rs->frames[*n];
	int err;

	if (*n >= PREC_REPORT_MAX_FRAMES)
		return 0;
	memset(f, 0, sizeof(*f));
	if (kernel) {
		prec_stacks__queue_kernel(rs);
		f->dso = rs->kernel_id;
		f->addr = addr;
		f->flags = PREC_FRAME_KERNEL;
	} else {
		err = user_frame(rs, t, addr, f);
		if (err)
			return err;
	}
	if (ret)
		f->flags |= PREC_FRAME_RET;
	(*n)++;
	return 0;
}

/* The cache slot of a raw chain: a hash of its length and addresses. */
static uint64_t chain_hash(const uint64_t *ips, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ ips[i]) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

/*
 * The frames of a raw call chain (`chain`; else of the ip alone), leaf first, into
 * rs->frames: how many, or a negative errno.  At most --max-stack addresses are used, as perf
 * does: of the whole chain, or of each part (kernel, user) of a chain whose user part was
 * unwound (`per_part`).  A broken stack (its copy ended before the outermost caller) ends in
 * perf's root frame for it: address 0xffffffffffffffff, in no mapping.
 */
static long resolve_frames(struct prec_report_session *rs, struct prec_thread *t,
			   const struct prec_sample *s, const uint64_t *ips, size_t n,
			   uint16_t misc, bool chain, bool per_part, bool broken)
{
	bool kernel = prec_report_cpumode_kernel(misc), first = true, dropped = false;
	size_t nf = 0, i, used = 0;
	int err = 0;

	for (i = 0; chain && i < n && nf < PREC_REPORT_MAX_FRAMES && !err; i++) {
		uint64_t a = ips[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			/* perf 6.1 takes a chain with any other such value (a frame-pointer walk
			 * can end in -72) as corrupt and drops all of it */
			if (a != (uint64_t)PERF_CONTEXT_KERNEL &&
			    a != (uint64_t)PERF_CONTEXT_USER &&
			    a != (uint64_t)PERF_CONTEXT_HV && !per_part) {
				dropped = true;
				nf = 0;
				break;
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
		if (used >= rs->o.max_stack) {
			if (!per_part)
				break;
			continue;
		}
		used++;
		err = add_frame(rs, t, a, kernel, !first, &nf);
		first = false;
	}
	if (!err && !nf) { /* no chain, a chain of markers only, or a dropped one: the ip */
		err = add_frame(rs, t, s->ip, prec_report_cpumode_kernel(misc), false, &nf);
		if (!err && dropped && nf) /* the sample counts, with no chain */
			rs->frames[0].flags |= PREC_FRAME_NOCHAIN;
	}
	if (!err && broken && nf && nf < PREC_REPORT_MAX_FRAMES) {
		memset(&rs->frames[nf], 0, sizeof(rs->frames[nf]));
		rs->frames[nf++].addr = UINT64_MAX;
	}
	return err ? err : (long)nf;
}

/* Whether this sample uses the chain cache (see CC_WINDOW). */
static bool cc_use(struct prec_report_session *rs)
{
	/* at the end of a window, sit out the next stretch if the window paid little */
	if (rs->cc_seen == CC_WINDOW) {
		if (rs->cc_hits < CC_WINDOW / 4)
			rs->cc_rest = CC_REST;
		rs->cc_seen = 0;
		rs->cc_hits = 0;
	}
	if (rs->cc_rest) {
		rs->cc_rest--;
		return false;
	}
	rs->cc_seen++;
	return true;
}

struct unwind_ctx {
	struct prec_report_session *rs;
	struct prec_thread *t;
};

/* prec_unwind()'s question: the DSO at pc in the sampled process, as user_frame() maps it. */
static struct prec_dso *unwind_find(void *arg, uint64_t pc, uint64_t *ret_off)
{
	struct unwind_ctx *c = arg;
	struct prec_hist_frame f;

	memset(&f, 0, sizeof(f));
	if (user_frame(c->rs, c->t, pc, &f) || !f.dso)
		return NULL;
	*ret_off = f.addr;
	return prec_hist__dso(c->rs->h, f.dso);
}

/*
 * The chain of a sample with a user stack copy: its kernel part as recorded, then the user
 * part unwound from the copy (perf records such samples with exclude_callchain_user, so
 * the kernel gives no user part).  NULL when the sample has no user registers (a kernel
 * thread) or on -ENOMEM, and the recorded chain is used.
 */
static const uint64_t *unwound_chain(struct prec_report_session *rs, const struct prec_evsel *ev,
				     struct prec_thread *t, const struct prec_sample *s,
				     bool chain, size_t *ret_n, bool *ret_broken)
{
	struct unwind_ctx c = { rs, t };
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
	if (prec_array__grow((void **)&rs->uw_ips, &rs->uw_cap, need, sizeof(uint64_t), 64))
		return NULL;
	if (nk)
		memcpy(rs->uw_ips, s->callchain, nk * sizeof(uint64_t));
	rs->uw_ips[nk] = (uint64_t)PERF_CONTEXT_USER;
	len = s->stack_dyn_size < s->stack_size ? s->stack_dyn_size : s->stack_size;
	*ret_n = nk + 1 +
		 prec_unwind(&regs, s->stack_data, len, unwind_find, &c, rs->uw_ips + nk + 1,
			     rs->o.max_stack < MAX_UNWOUND ? rs->o.max_stack : MAX_UNWOUND,
			     ret_broken);
	return rs->uw_ips;
}

/* -U: whether a sample's own frame has a function.  perf leaves the other samples out
 * before counting anything.  Looks the DSO up now, so no loader thread runs then. */
static bool leaf_resolved(struct prec_report_session *rs, const struct prec_hist_frame *f)
{
	struct prec_dso *d = f->dso ? prec_hist__dso(rs->h, f->dso) : NULL;

	return d && !prec_dso__lookup(d, f->addr, NULL, NULL);
}

int prec_stacks__sample(struct prec_report_session *rs, const void *rec, size_t size, uint16_t misc,
			int evidx)
{
	const struct prec_evsel *ev = prec_reader__evsel(rs->r, (size_t)evidx);
	struct prec_hist_sample hs;
	struct prec_sample s;
	struct prec_thread *t;
	struct prec_report_cc_slot *slot;
	const uint64_t *ips;
	size_t n;
	uint64_t hash = 0, gen = 0; /* set with slot (GCC 12 cannot tell) */
	uint32_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool chain, unwound = false, broken = false;
	long ctx, node, nf;

	if (prec_sample__parse(&ev->layout, rec, size, &s)) {
		rs->bad_samples++;
		return 0;
	}
	t = prec_machine__thread(rs->m, s.pid, s.tid);
	if (!t)
		return -ENOMEM;
	/* in user mode after an exec: the old image's maps have served their time */
	if (t->ms->nr_old && mode == PERF_RECORD_MISC_USER)
		prec_machine__user_seen(rs->m, t->ms);
	if (!sample_in_scope(rs, &s)) {
		rs->gev[rs->evmap[evidx]].pub.left_out++;
		return 0;
	}
	prec_time_range__add(&rs->counted, s.time);
	memset(&hs, 0, sizeof(hs));
	hs.evsel = rs->evmap[evidx];
	hs.pid = s.pid;
	hs.tid = s.tid;
	hs.cpu = (ev->layout.sample_type & PERF_SAMPLE_CPU) ? s.cpu : UINT32_MAX;
	if (ev->layout.sample_type & PERF_SAMPLE_PERIOD)
		hs.period = s.period;
	else if (ev->attr.freq || !ev->attr.sample_period)
		hs.period = 1;
	else
		hs.period = ev->attr.sample_period;
	if (!sample_passes(rs, &s, t->comm)) {
		prec_hist__count_filtered(rs->h, hs.evsel, hs.period);
		return 0;
	}
	/* a thread's samples are mostly of one context: the thread remembers it (unless the
	 * context has the CPU in it) */
	if (t->user[TU_CTX] >> 32 == (uint64_t)evidx + 1 &&
	    t->user[TU_CTX_COMM] == (uintptr_t)t->comm && !rs->ctx_cpu) {
		ctx = (long)(uint32_t)t->user[TU_CTX];
	} else {
		/* the hist keeps the comm: a copy that outlives this stream's machine */
		hs.comm = prec_strset__intern(&rs->comms, t->comm);
		if (!hs.comm)
			return -ENOMEM;
		ctx = prec_hist__context(rs->h, &hs);
		if (ctx < 0)
			return (int)ctx;
		t->user[TU_CTX_COMM] = (uintptr_t)t->comm;
		t->user[TU_CTX] = ((uint64_t)evidx + 1) << 32 | (uint64_t)ctx;
	}

	chain = (ev->layout.sample_type & PERF_SAMPLE_CALLCHAIN) && s.callchain_nr;
	ips = chain ? s.callchain : &s.ip;
	n = chain ? s.callchain_nr : 1;
	if (rs->unwind) {
		const uint64_t *u = unwound_chain(rs, ev, t, &s, chain, &n, &broken);

		if (u) { /* else n is untouched */
			ips = u;
			chain = true;
			unwound = true;
		}
		if (broken)
			rs->gev[hs.evsel].pub.broken_period += hs.period;
	}
	slot = NULL;
	if (cc_use(rs)) {
		gen = prec_machine__generation(rs->m, t->ms);
		hash = chain_hash(ips, n) ^
		       ((uint64_t)s.pid << 32 | (uint64_t)ctx) * 0x9e3779b97f4a7c15ULL ^ mode;
		slot = &rs->cc[hash & (CC_SLOTS - 1)];
		if (slot->ips && slot->hash == hash && slot->gen == gen && slot->pid == s.pid &&
		    slot->ctx == (uint32_t)ctx && slot->mode == mode && slot->n == n &&
		    slot->broken == broken && !memcmp(slot->ips, ips, n * 8)) {
			prec_hist__count(rs->h, (uint32_t)ctx, slot->node, hs.period);
			rs->cc_hits++;
			return 0;
		}
	}
	nf = resolve_frames(rs, t, &s, ips, n, misc, chain, unwound, broken);
	if (nf < 0)
		return (int)nf;
	if (rs->o.hide_unresolved && (!nf || !leaf_resolved(rs, &rs->frames[0]))) {
		rs->gev[hs.evsel].pub.left_out++;
		return 0;
	}
	node = prec_hist__stack(rs->h, (uint32_t)ctx, rs->frames, (size_t)nf);
	if (node < 0)
		return (int)node;
	prec_hist__count(rs->h, (uint32_t)ctx, (uint32_t)node, hs.period);
	if (!slot)
		return 0;
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

int prec_stacks__init(struct prec_report_session *rs)
{
	long kid;

	prec_keyset__init_records(&rs->jit_ids, sizeof(uint64_t), sizeof(struct jit_dso));
	prec_keyset__init_records(&rs->file_ids, sizeof(const char *), sizeof(struct file_dso));
	rs->cc = prec_calloc_written(CC_SLOTS, sizeof(*rs->cc));
	if (!rs->cc)
		return -ENOMEM;
	kid = prec_hist__dso_id(rs->h, prec_symtab__kernel(rs->st));
	if (kid < 0)
		return (int)kid;
	rs->kernel_id = (uint32_t)kid;
	return 0;
}

void prec_stacks__forget(struct prec_report_session *rs)
{
	/* the cache's entries name the old state's generations */
	for (size_t i = 0; rs->cc && i < CC_SLOTS; i++) {
		free(rs->cc[i].ips);
		rs->cc[i].ips = NULL;
		rs->cc[i].cap = 0;
	}
}

void prec_stacks__release(struct prec_report_session *rs)
{
	prec_stacks__forget(rs);
	free(rs->cc);
	rs->cc = NULL;
	free(rs->uw_ips);
	rs->uw_ips = NULL;
	rs->uw_cap = 0;
}

void prec_stacks__free(struct prec_report_session *rs)
{
	prec_stacks__release(rs);
	prec_keyset__release(&rs->jit_ids);
	prec_keyset__release(&rs->file_ids);
	prec_strset__release(&rs->paths);
	prec_strset__release(&rs->comms);
}
