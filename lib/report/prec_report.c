/* SPDX-License-Identifier: MIT */
/*
 * The reporting session (prec_report.h): how a record becomes a counted stack.
 *
 * The first pass (add_stream) reads only headers: the events of every stream, matched by
 * name, type and config, and whether samples carry call chains, stack copies and CPU
 * numbers; open() then decides from the first stream whether this host's kernel symbols and
 * JIT maps stand for the recorded machine, and whether stack copies can be unwound here.
 *
 * Then each stream's records are read in file order (read_records):
 *  - LOST / LOST_SAMPLES, build-id and READ records are taken as they come;
 *  - SAMPLE and the side records (MMAP, MMAP2, COMM, FORK, EXIT) go through the ordering
 *    queue (prec_order.h) when every event has a time, so that they reach the machine state
 *    (prec_machine.h) and prec_stacks.c in time order, round by round, as perf does;
 *  - a side record updates the machine state: threads, their comms and address spaces;
 *  - a sample becomes a stack of (DSO, address) frames counted in the hist (prec_stacks.c).
 * Each stream starts from a fresh machine state, as each is self-contained; the symbol
 * tables, the hist and the events carry over.
 *
 * While reading, a loader thread (prec_symtab__loader_start) loads the symbol tables of the
 * DSOs met so far; finish() waits for it, then the hist symbolizes each distinct frame once
 * and folds the stacks into entries (prec_hist.h), which the views print (prec_view.h).
 *
 * Memory: the queue holds copies of at most about two rounds of records; everything else
 * grows with distinct stacks and DSOs, not with samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_log.h"
#include "prec_record.h"
#include "prec_report_int.h"

/* ---- records ---- */

/*
 * A READ record (u32 pid, tid; then read_format's value, without a group), written by perf
 * record -s for each thread and event: its value is added to the thread's count of the
 * event, for -T (opts.thread_counts).  Records of a group read are left out.
 */
static int add_read(struct prec_report_session *rs, const struct prec_record *rec)
{
	int evsel = prec_reader__evsel_of(rs->r, rec);
	uint64_t rf = evsel < 0 ? 0 : prec_reader__evsel(rs->r, (size_t)evsel)->attr.read_format;
	size_t nev = rs->nr_gev;
	struct prec_rec_read rd;
	uint64_t key;
	bool is_new;
	long i;

	if (evsel < 0 || (rf & PERF_FORMAT_GROUP) ||
	    prec_rec_read__parse(rec->data, rec->size, rf, &rd))
		return 0;
	key = (uint64_t)rd.pid << 32 | rd.tid;
	i = prec_keyset__intern(&rs->read_ids, &key, &is_new);
	if (i < 0)
		return (int)i;
	if (is_new) {
		if (prec_array__grow((void **)&rs->read_vals, &rs->read_cap,
				     ((size_t)i + 1) * nev, sizeof(*rs->read_vals), 64))
			return -ENOMEM;
		memset(rs->read_vals + (size_t)i * nev, 0, nev * sizeof(*rs->read_vals));
	}
	rs->read_vals[(size_t)i * nev + rs->evmap[evsel]] += rd.value;
	return 0;
}

/* The ordering queue's output: a record in time order. */
static int process_now(void *arg, const struct perf_event_header *rec, size_t size, int evsel)
{
	struct prec_report_session *rs = arg;
	int err;

	if (rec->type == PERF_RECORD_SAMPLE)
		return evsel >= 0 ? prec_stacks__sample(rs, rec, size, rec->misc, evsel) : 0;
	/* a side record too short for its type is left out */
	err = prec_machine__process(rs->m, rec->type, rec, size);
	return err == -ENOMEM ? err : 0;
}

/* The BUILD_ID feature: malformed entries are left out. */
static void load_build_id_feature(struct prec_report_session *rs)
{
	size_t len = 0, off = 0;
	const void *p = prec_reader__feature(rs->r, PREC_FEAT_BUILD_ID, &len);
	struct prec_rec_build_id b;
	int rc;

	while (p && (rc = prec_build_id_feature__next(p, len, &off, &b)) != 0)
		if (rc > 0)
			prec_machine__add_build_id(rs->m, b.filename, b.id, b.size);
}

/* Under the pid and tid keys each thread is named by the command it had last, as in perf. */
static int name_threads(struct prec_report_session *rs)
{
	uint32_t i, pid, tid;
	int err = 0;

	for (i = 0; !err && prec_hist__thread(rs->h, i, &pid, &tid); i++) {
		struct prec_thread *t = prec_machine__thread(rs->m, pid, tid);

		err = t ? prec_hist__set_thread_comm(rs->h, pid, tid, t->comm) : -ENOMEM;
	}
	return err;
}

static int read_records(struct prec_report_session *rs, const struct prec_report_stream *st)
{
	struct prec_record rec;
	uint64_t n = 0;
	int err;

	while ((err = prec_reader__next(rs->r, &rec)) > 0) {
		int evsel = -1;
		uint64_t time = 0;

		if (st->progress && !(++n & 0xffff))
			st->progress(st->arg, prec_reader__offset(rs->r));
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
			struct prec_rec_lost lost;
			int bad = rec.type == PERF_RECORD_LOST ?
				prec_rec_lost__parse(rec.data, rec.size, &lost) :
				prec_rec_lost_samples__parse(rec.data, rec.size, &lost.lost);

			evsel = prec_reader__evsel_of(rs->r, &rec);
			if (!bad)
				rs->lost[rec.type == PERF_RECORD_LOST_SAMPLES]
					[rs->evmap[evsel >= 0 ? evsel : 0]] += lost.lost;
			if (rec.type == PERF_RECORD_LOST_SAMPLES)
				rs->have_lost_samples = true;
			continue;
		}
		case PREC_REC_HEADER_BUILD_ID: {
			struct prec_rec_build_id b;

			if (!prec_rec_build_id__parse(rec.data, rec.size, &b))
				prec_machine__add_build_id(rs->m, b.filename, b.id, b.size);
			continue;
		}
		case PERF_RECORD_READ:
			if (rs->o.thread_counts) {
				err = add_read(rs, &rec);
				if (err)
					return err;
			}
			continue;
		case PREC_REC_FINISHED_ROUND:
			if (rs->ordered) {
				err = prec_order__round(rs->order);
				if (err)
					return err;
			}
			continue;
		default:
			continue;
		}
		evsel = prec_reader__evsel_of(rs->r, &rec);
		if (evsel < 0 && rec.type == PERF_RECORD_SAMPLE) {
			rs->unknown_evsel++;
			continue;
		}
		if (rs->ordered) {
			const struct prec_evsel *ev =
				prec_reader__evsel(rs->r, evsel < 0 ? 0 : (size_t)evsel);

			if (rec.type == PERF_RECORD_SAMPLE) {
				/* fully parsed when processed; here only its time */
				time = prec_sample__time(&ev->layout, rec.data, rec.size);
				prec_time_range__add(&rs->times, time);
				/* processed a round later: a kernel sample's symbols (kallsyms, the
				 * longest load) start loading now */
				if (prec_report_cpumode_kernel(rec.misc))
					prec_stacks__queue_kernel(rs);
			} else {
				struct prec_sample_id sid;

				/* synthesized records carry no trailer time: 0, first */
				if (!prec_sample_id__parse(&ev->layout, rec.data, rec.size, &sid))
					time = sid.time;
			}
			err = prec_order__add(rs->order, &rec, time, evsel);
		} else {
			err = process_now(rs, rec.data, rec.size, evsel);
			prec_reader__release(rs->r, NULL); /* nothing is held */
		}
		if (err)
			return err;
	}
	if (err < 0 && err != -EBADMSG)
		return err;
	/* corrupt: what came before it is still reported */
	return prec_order__flush_all(rs->order) ?: err;
}

/* ---- streams and events ---- */

/* The number of stream r's event idx among all streams' events, added if new. */
static long gev_intern(struct prec_report_session *rs, struct prec_reader *r, size_t idx)
{
	const struct prec_evsel *ev = prec_reader__evsel(r, idx);
	struct prec_report_gev *g;
	size_t i;

	for (i = 0; i < rs->gev_n; i++) {
		g = &rs->gev[i];
		if (g->type == ev->attr.type && g->config == ev->attr.config &&
		    !strcmp(g->pub.name, ev->name))
			return (long)i;
	}
	if (prec_array__grow((void **)&rs->gev, &rs->gev_cap, rs->gev_n + 1, sizeof(*rs->gev), 4))
		return -ENOMEM;
	g = &rs->gev[rs->gev_n];
	memset(g, 0, sizeof(*g));
	g->pub.name = strdup(ev->name);
	if (!g->pub.name)
		return -ENOMEM;
	g->type = ev->attr.type;
	g->config = ev->attr.config;
	g->pub.dummy = g->type == PERF_TYPE_SOFTWARE && g->config == PERF_COUNT_SW_DUMMY;
	g->pub.fixed_period = ev->attr.freq ? 0 : ev->attr.sample_period;
	return (long)rs->gev_n++;
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

int prec_report_session__new(const struct prec_report_opts *opts,
			     struct prec_report_session **ret)
{
	struct prec_report_session *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return -ENOMEM;
	rs->o = *opts;
	rs->this_host = rs->same_arch = true;
	prec_keyset__init(&rs->read_ids, sizeof(uint64_t));
	*ret = rs;
	return 0;
}

int prec_report_session__add_stream(struct prec_report_session *rs, struct prec_reader *r)
{
	struct utsname un;
	size_t k;

	for (k = 0; k < prec_reader__nr_evsels(r); k++) {
		const struct prec_evsel *ev = prec_reader__evsel(r, k);
		long g = gev_intern(rs, r, k);

		if (g < 0)
			return (int)g;
		if (ev->layout.sample_type & PERF_SAMPLE_CALLCHAIN)
			rs->callchains = true;
		if (ev->layout.sample_type & PERF_SAMPLE_STACK_USER)
			rs->stack_copies = true;
		if (ev->layout.sample_type & PERF_SAMPLE_CPU)
			rs->cpu_numbers = true;
	}
	/* the machine facts of the first stream stand for all */
	if (!rs->nr_streams++ && !uname(&un)) {
		rs->this_host = feature_equals(r, PREC_FEAT_HOSTNAME, un.nodename) &&
				feature_equals(r, PREC_FEAT_OSRELEASE, un.release);
		rs->same_arch = feature_equals(r, PREC_FEAT_ARCH, un.machine);
	}
	return 0;
}

int prec_report_session__open(struct prec_report_session *rs, struct prec_report_facts *ret)
{
	const struct prec_report_opts *o = &rs->o;
	struct prec_symtab_opts *so = &rs->so;
	struct utsname un;
	bool have_un;

	/* as perf: --cpu on samples without CPU numbers would silently select none, or all */
	if (o->cpus && rs->nr_streams && !rs->cpu_numbers)
		return -ENOTSUP;
	rs->nr_gev = rs->gev_n;
	memset(so, 0, sizeof(*so));
	so->symfs = o->symfs;
	so->kallsyms = o->kallsyms;
	so->no_demangle = o->no_demangle;
	so->cache_dir = o->cache_dir;
	have_un = !uname(&un);
	/* --symfs stands for the recorded machine, as in perf: nothing of this host's kernel
	 * (kallsyms, vdso) or /tmp (JIT maps) is used then */
	so->use_proc_kallsyms = !o->symfs && have_un && rs->this_host;
	if (o->symfs && snprintf(rs->jit_dir, sizeof(rs->jit_dir), "%s/tmp", o->symfs) <
				(int)sizeof(rs->jit_dir))
		so->jit_dir = rs->jit_dir;
	if (!o->kallsyms && o->symfs)
		prec_warn("with --symfs, kernel symbols come only from --kallsyms FILE");
	else if (!o->kallsyms && !so->use_proc_kallsyms)
		prec_warn("the recording was made on another host or kernel: kernel symbols need "
			  "--kallsyms FILE from that machine");
	if (rs->stack_copies) {
		/* unwinding loads DSOs as it reads, so no background loader */
		rs->unwind = have_un && !strcmp(un.machine, "x86_64") && rs->same_arch;
		if (!rs->unwind)
			prec_warn("the recording has user stack copies (--call-graph dwarf), "
				  "which preport unwinds only for x86-64 recordings on x86-64: "
				  "user-space call chains stop at the sampled function");
	}
	memset(ret, 0, sizeof(*ret));
	ret->nr_events = rs->nr_gev;
	ret->nr_streams = rs->nr_streams;
	ret->callchains = rs->callchains || rs->unwind;
	ret->cpu_numbers = rs->cpu_numbers;
	return 0;
}

int prec_report_session__start(struct prec_report_session *rs, const struct prec_hist_opts *ho)
{
	size_t nev = rs->nr_gev ? rs->nr_gev : 1;
	int err;

	rs->ctx_cpu = prec_hist_opts__has_key(ho, PREC_SORT_CPU);
	err = prec_machine__new(&rs->m);
	if (!err)
		err = prec_symtab__new(&rs->so, &rs->st);
	if (!err)
		err = prec_hist__new(ho, rs->st, (uint32_t)rs->nr_gev, &rs->h);
	if (!err)
		err = prec_order__new(process_now, rs, &rs->order);
	if (err)
		return err;
	rs->lost[0] = calloc(nev, sizeof(*rs->lost[0]));
	rs->lost[1] = calloc(nev, sizeof(*rs->lost[1]));
	if (!rs->lost[0] || !rs->lost[1])
		return -ENOMEM;
	err = prec_stacks__init(rs);
	if (err)
		return err;
	rs->started = true;
	/* symbol tables load on the other CPU while the records are read, and frames are
	 * symbolized on a third thread as the loader is done with their DSOs; without threads
	 * all that is done when first needed */
	if (ho->inline_frames || prec_hist_opts__has_key(ho, PREC_SORT_SRCLINE))
		prec_symtab__loader_dwarf(rs->st);
	if (!rs->unwind && !rs->o.hide_unresolved && prec_symtab__loader_start(rs->st))
		prec_log(PREC_LOG_INFO, "no background thread for symbol loading");
	else if (!rs->unwind && !rs->o.hide_unresolved && prec_hist__background(rs->h))
		prec_log(PREC_LOG_INFO, "no background thread for symbolizing");
	return 0;
}

/* Ready for stream r: its events' numbers, its window, fresh state after the first. */
static int start_stream(struct prec_report_session *rs, const struct prec_report_stream *st,
			bool fresh_state)
{
	size_t nev = prec_reader__nr_evsels(st->r), i;
	int err;

	rs->r = st->r;
	if (prec_array__grow((void **)&rs->evmap, &rs->evmap_cap, nev ? nev : 1,
			     sizeof(*rs->evmap), 8))
		return -ENOMEM;
	rs->evmap[0] = 0;
	rs->ordered = nev > 0;
	for (i = 0; i < nev; i++) {
		const struct prec_evsel *ev = prec_reader__evsel(st->r, i);
		long k = gev_intern(rs, st->r, i);

		if (k < 0)
			return (int)k;
		if ((size_t)k >= rs->nr_gev)
			return -ESTALE; /* not in the first pass: the file changed since */
		rs->evmap[i] = (uint32_t)k;
		if (!(ev->layout.sample_type & PERF_SAMPLE_TIME) || !ev->layout.sample_id_all)
			rs->ordered = false;
	}
	rs->win = st->lo || st->hi != UINT64_MAX;
	rs->win_lo = st->lo;
	rs->win_hi = st->hi;
	prec_order__reset(rs->order, st->r);
	if (fresh_state) {
		prec_stacks__forget(rs);
		prec_machine__free(rs->m);
		rs->m = NULL;
		err = prec_machine__new(&rs->m);
		if (err)
			return err;
	}
	load_build_id_feature(rs);
	return 0;
}

/*
 * After a stream: its lost samples into the events' totals.  The kernel's count of samples
 * dropped for a full ring comes in LOST records while recording and, from perf 6.0 and
 * precord, once more in LOST_SAMPLES records at the end: perf reports the latter alone.
 * Decided per stream, as a live segment has no LOST_SAMPLES yet.
 */
static void end_stream_lost(struct prec_report_session *rs)
{
	for (size_t g = 0; g < rs->nr_gev; g++) {
		rs->gev[g].pub.lost_samples += rs->lost[rs->have_lost_samples][g];
		rs->lost[0][g] = rs->lost[1][g] = 0;
	}
	rs->have_lost_samples = false;
}

int prec_report_session__read(struct prec_report_session *rs, const struct prec_report_stream *st)
{
	int err = start_stream(rs, st, rs->nr_read++ > 0);

	memset(&rs->times, 0, sizeof(rs->times));
	memset(&rs->counted, 0, sizeof(rs->counted));
	if (!err)
		err = read_records(rs, st);
	end_stream_lost(rs);
	return err;
}

const struct prec_time_range *prec_report_session__times(const struct prec_report_session *rs)
{
	return &rs->times;
}

const struct prec_time_range *
prec_report_session__counted_times(const struct prec_report_session *rs)
{
	return &rs->counted;
}

/* The end of reading: what only reading needs is freed (so that symbolizing and printing
 * reuse that memory instead of touching new pages), and the loader thread stopped. */
static int end_reading(struct prec_report_session *rs, bool ok)
{
	int err = 0;

	if (rs->reading_done)
		return 0;
	rs->reading_done = true;
	prec_order__free(rs->order);
	rs->order = NULL;
	prec_stacks__release(rs);
	/* indexing needs no symbols: done while the other thread may still load them */
	if (ok)
		err = prec_hist__index_frames(rs->h);
	else
		prec_hist__background_stop(rs->h);
	prec_symtab__loader_stop(rs->st);
	return err;
}

int prec_report_session__finish(struct prec_report_session *rs)
{
	int err = end_reading(rs, true);

	if (err)
		return err;
	if (rs->bad_samples)
		prec_warn("%" PRIu64 " malformed sample%s skipped", rs->bad_samples,
			  rs->bad_samples == 1 ? "" : "s");
	if (rs->unknown_evsel)
		prec_warn("%" PRIu64 " sample%s of an unknown event skipped", rs->unknown_evsel,
			  rs->unknown_evsel == 1 ? "" : "s");
	err = name_threads(rs);
	return err ? err : prec_hist__finish(rs->h);
}

struct prec_hist *prec_report_session__hist(struct prec_report_session *rs)
{
	return rs->h;
}

const struct prec_report_event *prec_report_session__event(const struct prec_report_session *rs,
							    size_t i)
{
	return &rs->gev[i].pub;
}

size_t prec_report_session__thread_counts(const struct prec_report_session *rs,
					  const uint64_t **ret_keys, const uint64_t **ret_counts)
{
	*ret_keys = (const uint64_t *)(const void *)rs->read_ids.keys;
	*ret_counts = rs->read_vals;
	return rs->read_ids.n;
}

void prec_report_session__free(struct prec_report_session *rs)
{
	if (!rs)
		return;
	if (rs->started)
		end_reading(rs, false);
	prec_hist__free(rs->h);
	prec_symtab__free(rs->st);
	prec_machine__free(rs->m);
	prec_order__free(rs->order);
	prec_stacks__free(rs);
	prec_keyset__release(&rs->read_ids);
	free(rs->read_vals);
	free(rs->lost[0]);
	free(rs->lost[1]);
	free(rs->evmap);
	for (size_t i = 0; i < rs->gev_n; i++)
		free((char *)rs->gev[i].pub.name);
	free(rs->gev);
	free(rs);
}
