/* SPDX-License-Identifier: MIT */
/*
 * Writer -> reader round trips (lib/data/prec_writer.c, prec_reader.c).  Each stream holds
 * every record the writer can produce (attrs, features, every typed record, raw kernel bytes),
 * with one event or two (PERF_SAMPLE_IDENTIFIER, told apart by prec_reader__evsel_of),
 * uncompressed and zstd levels 1 and 3, plus two large streams of 50k samples.  While writing,
 * the test builds the bytes each record must have from the format description; the reader's
 * records are compared with them byte for byte, read from memory, from the path, and from a
 * pipe fed by a child that runs the writer itself.  The raw file is also walked here to check
 * the compression invariants (payload <= 65527, each COMPRESSED record decompresses to
 * 1..PREC_WRITER_MMAP_LEN bytes, a group ends flushed (all it holds decodes) but the zstd
 * frame goes on to finish, records span chunks), and write errors are checked on /dev/full (-ENOSPC, sticky, earlier output stays a valid stream) and
 * on a file that cannot grow (-EFBIG; the partial write is cut back to a record boundary).
 * A writer reset for another stream writes it as a new writer would, byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zstd.h>

#include "prec_abi.h"
#include "prec_buf.h"
#include "prec_log.h"
#include "prec_reader.h"
#include "prec_writer.h"
#include "tap.h"

#define MAX_PAYLOAD 65527

/* ---- configuration ------------------------------------------------------------------- */

struct cfg {
	const char *name;
	int level;
	int nr_attrs;
	int big; /* number of extra samples in the bulk part */
	bool cut; /* a write error stopped the stream: no end marker */
};

/* clang-format off */
static const struct cfg cfgs[] = {
	{ "plain, 1 event", 0, 1, 0, false },
	{ "plain, 2 events", 0, 2, 0, false },
	{ "zstd 1, 1 event", 1, 1, 0, false },
	{ "zstd 1, 2 events", 1, 2, 0, false },
	{ "zstd 3, 1 event", 3, 1, 0, false },
	{ "zstd 3, 2 events", 3, 2, 0, false },
	{ "zstd 1, 1 event, 50k samples", 1, 1, 50000, false },
	{ "plain, 2 events, 50k samples", 0, 2, 50000, false },
};
/* clang-format on */

static const uint64_t event_ids[2][2] = {{1000, 1001}, {2000, 2001}};
static const char *const event_names[2] = {"cycles:u", "instructions:u"};

/* ---- expectations --------------------------------------------------------------------- */

struct exp_rec {
	size_t off; /* in exp.bytes */
	size_t size;
	int evsel; /* what prec_reader__evsel_of must say */
	bool has_sid;
	struct prec_sample_id sid; /* trailer of a non-SAMPLE kernel record */
};

struct exp {
	struct prec_buf bytes;
	struct exp_rec *v;
	size_t n, cap;
};

static void exp_free(struct exp *e)
{
	prec_buf__release(&e->bytes);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* One stream being written, and what it must contain. */
struct ctx {
	const struct cfg *cfg;
	struct prec_writer *w;
	struct exp *ex; /* NULL: write only */
	struct perf_event_attr attrs[2];
	struct prec_sample_layout layouts[2];
	int err; /* first writer error */
	const char *err_what;
	uint64_t rng;
	struct prec_buf cur; /* the expected record being built */
	uint64_t first_time, last_time; /* of the samples written, for the end marker */
};

static uint64_t rnd(struct ctx *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void note(struct ctx *c, int err, const char *what)
{
	if (err && !c->err) {
		c->err = err;
		c->err_what = what;
	}
}

static void must(int err)
{
	if (err) {
		diag("out of memory in the test");
		abort();
	}
}

static void put(struct ctx *c, const void *p, size_t n)
{
	must(prec_buf__append(&c->cur, p, n));
}

static void put32(struct ctx *c, uint32_t v)
{
	put(c, &v, 4);
}

static void put64(struct ctx *c, uint64_t v)
{
	put(c, &v, 8);
}

/* NUL-terminated, zero padded to a multiple of `align`. */
static void put_str(struct ctx *c, const char *s, size_t align)
{
	size_t n = strlen(s) + 1;

	put(c, s, n);
	must(prec_buf__append_zeros(&c->cur, (align - n % align) % align));
}

static void begin(struct ctx *c, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};

	c->cur.len = 0;
	put(c, &h, sizeof(h));
}

/* The sample_id trailer of the first event, written out field by field. */
static void put_trailer(struct ctx *c, const struct prec_sample_id *sid)
{
	static const struct prec_sample_id zero;
	uint64_t t = c->attrs[0].sample_type;

	if (!c->attrs[0].sample_id_all)
		return;
	if (!sid)
		sid = &zero;
	if (t & PERF_SAMPLE_TID) {
		put32(c, sid->pid);
		put32(c, sid->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		put64(c, sid->time);
	if (t & PERF_SAMPLE_ID)
		put64(c, sid->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(c, sid->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		put32(c, sid->cpu);
		put32(c, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(c, sid->id);
}

/* Which event an id belongs to (0 for ids of no event). */
static int evsel_of_id(uint64_t id)
{
	return id == event_ids[1][0] || id == event_ids[1][1];
}

/* The trailer fields the first event's layout carries; the others read back as 0. */
static void mask_sid(const struct ctx *c, const struct prec_sample_id *in,
		     struct prec_sample_id *out)
{
	uint64_t t = c->attrs[0].sample_type;

	memset(out, 0, sizeof(*out));
	if (!in || !c->attrs[0].sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		out->pid = in->pid;
		out->tid = in->tid;
	}
	if (t & PERF_SAMPLE_TIME)
		out->time = in->time;
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		out->id = in->id;
	if (t & PERF_SAMPLE_STREAM_ID)
		out->stream_id = in->stream_id;
	if (t & PERF_SAMPLE_CPU)
		out->cpu = in->cpu;
}

/* Finish the record in c->cur and file it as expected. */
static void end(struct ctx *c, int evsel, const struct prec_sample_id *sid)
{
	struct perf_event_header h;
	struct exp *e = c->ex;
	struct exp_rec *r;

	memcpy(&h, c->cur.data, sizeof(h));
	h.size = (uint16_t)c->cur.len;
	memcpy(c->cur.data, &h, sizeof(h));
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 256;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			abort();
	}
	r = &e->v[e->n++];
	memset(r, 0, sizeof(*r));
	r->off = e->bytes.len;
	r->size = c->cur.len;
	r->evsel = evsel;
	if (h.type < PREC_REC_USER_START && h.type != PERF_RECORD_SAMPLE) {
		r->has_sid = true;
		mask_sid(c, sid, &r->sid);
		r->evsel = c->cfg->nr_attrs > 1 ? evsel_of_id(r->sid.id) : 0;
	}
	must(prec_buf__append(&e->bytes, c->cur.data, c->cur.len));
}

/* ---- the records, each written and described ------------------------------------------ */

static void x_comm(struct ctx *c, uint32_t pid, uint32_t tid, const char *comm, bool exec,
		   const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_comm(c->w, pid, tid, comm, exec, sid), "comm");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(c, pid);
	put32(c, tid);
	put_str(c, comm, 8);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_mmap(struct ctx *c, uint16_t misc, uint32_t pid, uint32_t tid, uint64_t addr,
		   uint64_t len, uint64_t pgoff, const char *name, const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_mmap(c->w, misc, pid, tid, addr, len, pgoff, name, sid), "mmap");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_MMAP, misc);
	put32(c, pid);
	put32(c, tid);
	put64(c, addr);
	put64(c, len);
	put64(c, pgoff);
	put_str(c, name, 8);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_mmap2(struct ctx *c, uint16_t misc, const struct prec_mmap2 *m,
		    const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_mmap2(c->w, misc, m, sid), "mmap2");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_MMAP2, misc | (m->has_build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32(c, m->pid);
	put32(c, m->tid);
	put64(c, m->addr);
	put64(c, m->len);
	put64(c, m->pgoff);
	if (m->has_build_id) {
		unsigned char b[24] = {0};

		b[0] = m->build_id_size;
		memcpy(b + 4, m->build_id, 20);
		put(c, b, sizeof(b));
	} else {
		put32(c, m->maj);
		put32(c, m->min);
		put64(c, m->ino);
		put64(c, m->ino_generation);
	}
	put32(c, m->prot);
	put32(c, m->flags);
	put_str(c, m->filename, 8);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_task(struct ctx *c, bool exit, uint32_t pid, uint32_t ppid, uint32_t tid,
		   uint32_t ptid, uint64_t time, const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_task(c->w, exit, pid, ppid, tid, ptid, time, sid), "task");
	if (!c->ex)
		return;
	begin(c, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0);
	put32(c, pid);
	put32(c, ppid);
	put32(c, tid);
	put32(c, ptid);
	put64(c, time);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_lost(struct ctx *c, uint64_t id, uint64_t lost, const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_lost(c->w, id, lost, sid), "lost");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_LOST, 0);
	put64(c, id);
	put64(c, lost);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_lost_samples(struct ctx *c, uint64_t lost, const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_lost_samples(c->w, lost, sid), "lost_samples");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_LOST_SAMPLES, 0);
	put64(c, lost);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_throttle(struct ctx *c, bool un, uint64_t time, uint64_t id, uint64_t stream_id,
		       const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_throttle(c->w, un, time, id, stream_id, sid), "throttle");
	if (!c->ex)
		return;
	begin(c, un ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);
	put64(c, time);
	put64(c, id);
	put64(c, stream_id);
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void x_switch(struct ctx *c, bool out, bool cpu_wide, uint32_t pid, uint32_t tid,
		     const struct prec_sample_id *sid)
{
	note(c, prec_writer__add_switch(c->w, out, cpu_wide, pid, tid, sid), "switch");
	if (!c->ex)
		return;
	begin(c, cpu_wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH,
	      out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
	if (cpu_wide) {
		put32(c, pid);
		put32(c, tid);
	}
	put_trailer(c, sid);
	end(c, 0, sid);
}

static void note_sample_time(struct ctx *c, uint64_t t)
{
	if (!c->first_time || t < c->first_time)
		c->first_time = t;
	if (t > c->last_time)
		c->last_time = t;
}

static void x_sample(struct ctx *c, int attr, uint16_t misc, const struct prec_sample *s)
{
	long n;

	note_sample_time(c, s->time);
	note(c, prec_writer__add_sample(c->w, (size_t)attr, misc, s), "sample");
	if (!c->ex)
		return;
	begin(c, PERF_RECORD_SAMPLE, misc);
	must(prec_buf__reserve(&c->cur, 65536));
	n = prec_sample__encode(&c->layouts[attr], s, c->cur.data + 8, 65536);
	if (n < 0)
		abort();
	c->cur.len += (size_t)n;
	end(c, attr, NULL);
}

static void x_user(struct ctx *c, uint32_t type)
{
	if (type == PREC_REC_FINISHED_ROUND)
		note(c, prec_writer__add_finished_round(c->w), "finished_round");
	else
		note(c, prec_writer__add_finished_init(c->w), "finished_init");
	if (!c->ex)
		return;
	begin(c, type, 0);
	end(c, -1, NULL);
}

static void x_id_index(struct ctx *c)
{
	struct prec_id_index_entry e[4];
	size_t n = 0, i;
	int a, j;

	for (a = 0; a < c->cfg->nr_attrs; a++)
		for (j = 0; j < 2; j++) {
			e[n].id = event_ids[a][j];
			e[n].idx = (uint64_t)j;
			e[n].cpu = (uint64_t)j;
			e[n].tid = (uint64_t)-1;
			n++;
		}
	note(c, prec_writer__add_id_index(c->w, e, n), "id_index");
	if (!c->ex)
		return;
	begin(c, PREC_REC_ID_INDEX, 0);
	put64(c, n);
	for (i = 0; i < n; i++) {
		put64(c, e[i].id);
		put64(c, e[i].idx);
		put64(c, e[i].cpu);
		put64(c, e[i].tid);
	}
	end(c, -1, NULL);
}

/* HEADER_BUILD_ID: header (misc = cpumode | 0x8000), s32 pid, id[20], size, 3 reserved,
 * the name padded to 64 bytes (so 36 + 64 bytes for a short name: not 8-aligned). */
static void x_build_id(struct ctx *c, const uint8_t *id, size_t len, const char *name)
{
	unsigned char body[28] = {0};
	int32_t pid = -1;

	note(c, prec_writer__add_build_id(c->w, PERF_RECORD_MISC_USER, -1, id, len, name),
	     "build_id");
	if (!c->ex)
		return;
	begin(c, PREC_REC_HEADER_BUILD_ID, PERF_RECORD_MISC_USER | 0x8000);
	memcpy(body, &pid, 4);
	memcpy(body + 4, id, len);
	body[24] = (unsigned char)len;
	put(c, body, sizeof(body));
	put_str(c, name, 64);
	end(c, -1, NULL);
}

/* Kernel records in ring-buffer form: a COMM and a SAMPLE of event 0, back to back. */
static void x_raw(struct ctx *c, const struct prec_sample *s)
{
	static const struct prec_sample_id sid = {7, 8, 999, 1001, 0, 2};
	struct prec_buf raw = {0};
	struct exp *saved = c->ex;
	struct exp tmp = {0};
	size_t i;

	note_sample_time(c, s->time);
	/* build both records with the expectation builder, then replay them as raw bytes */
	c->ex = &tmp;
	begin(c, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32(c, 7);
	put32(c, 8);
	put_str(c, "raw-comm", 8);
	put_trailer(c, &sid);
	end(c, 0, &sid);
	begin(c, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	must(prec_buf__reserve(&c->cur, 65536));
	c->cur.len += (size_t)prec_sample__encode(&c->layouts[0], s, c->cur.data + 8, 65536);
	end(c, 0, NULL);
	c->ex = saved;
	must(prec_buf__append(&raw, tmp.bytes.data, tmp.bytes.len));
	note(c, prec_writer__add_raw(c->w, raw.data, raw.len), "raw");
	if (c->ex)
		for (i = 0; i < tmp.n; i++) {
			c->cur.len = 0;
			put(c, tmp.bytes.data + tmp.v[i].off, tmp.v[i].size);
			end(c, tmp.v[i].evsel, tmp.v[i].has_sid ? &sid : NULL);
		}
	prec_buf__release(&raw);
	exp_free(&tmp);
}

/* ---- header part ------------------------------------------------------------------------ */

static void init_attrs(struct ctx *c)
{
	struct perf_event_attr *a = c->attrs;
	int i;

	memset(a, 0, sizeof(c->attrs));
	if (c->cfg->nr_attrs == 1) {
		a[0].type = PERF_TYPE_SOFTWARE;
		a[0].config = PERF_COUNT_SW_CPU_CLOCK;
		a[0].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	} else {
		a[0].type = PERF_TYPE_HARDWARE;
		a[0].config = PERF_COUNT_HW_CPU_CYCLES;
		a[0].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				   PERF_SAMPLE_CALLCHAIN;
		a[1].type = PERF_TYPE_HARDWARE;
		a[1].config = PERF_COUNT_HW_INSTRUCTIONS;
		a[1].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	}
	for (i = 0; i < c->cfg->nr_attrs; i++) {
		a[i].size = PREC_ATTR_SIZE;
		a[i].sample_period = 4000;
		a[i].freq = 1;
		a[i].sample_id_all = 1;
		a[i].disabled = 1;
		a[i].exclude_kernel = 1;
		prec_sample_layout__init(&c->layouts[i], &a[i]);
	}
}

/* A perf header string: u32 padded length, text, NUL, zeros up to a multiple of 64. */
static void put_hstr(struct ctx *c, const char *s)
{
	size_t n = strlen(s) + 1;

	put32(c, (uint32_t)((n + 63) / 64 * 64));
	put_str(c, s, 64);
}

static void begin_feature(struct ctx *c, uint64_t feat)
{
	begin(c, PREC_REC_HEADER_FEATURE, 0);
	put64(c, feat);
}

static void write_header(struct ctx *c)
{
	static const char *const cmdline[] = {"precord", "record", "-g", "--", "./hot"};
	static const uint32_t nrcpus[2] = {4, 8};
	int i, j;

	for (i = 0; i < c->cfg->nr_attrs; i++) {
		note(c, prec_writer__add_attr(c->w, &c->attrs[i], event_ids[i], 2), "attr");
		if (!c->ex)
			continue;
		begin(c, PREC_REC_HEADER_ATTR, 0);
		put(c, &c->attrs[i], PREC_ATTR_SIZE);
		put(c, event_ids[i], sizeof(event_ids[i]));
		end(c, -1, NULL);
	}
	note(c, prec_writer__add_feature_string(c->w, PREC_FEAT_HOSTNAME, "testhost"), "hostname");
	note(c, prec_writer__add_feature_string(c->w, PREC_FEAT_OSRELEASE, ""), "osrelease");
	note(c, prec_writer__add_feature_strings(c->w, PREC_FEAT_CMDLINE, cmdline, 5), "cmdline");
	note(c, prec_writer__add_feature(c->w, PREC_FEAT_NRCPUS, nrcpus, sizeof(nrcpus)), "nrcpus");
	note(c, prec_writer__add_feature_string(c->w, PREC_FEAT_VERSION, PREC_VERSION_PREFIX "t"),
	     "version");
	if (c->cfg->nr_attrs > 1)
		note(c, prec_writer__add_event_desc(c->w, event_names), "event_desc");
	note(c, prec_writer__end_header(c->w), "end_header");
	if (!c->ex)
		return;
	begin_feature(c, PREC_FEAT_HOSTNAME);
	put_hstr(c, "testhost");
	end(c, -1, NULL);
	begin_feature(c, PREC_FEAT_OSRELEASE);
	put_hstr(c, "");
	end(c, -1, NULL);
	begin_feature(c, PREC_FEAT_CMDLINE);
	put32(c, 5);
	for (i = 0; i < 5; i++)
		put_hstr(c, cmdline[i]);
	end(c, -1, NULL);
	begin_feature(c, PREC_FEAT_NRCPUS);
	put(c, nrcpus, sizeof(nrcpus));
	end(c, -1, NULL);
	begin_feature(c, PREC_FEAT_VERSION);
	put_hstr(c, PREC_VERSION_PREFIX "t");
	end(c, -1, NULL);
	if (c->cfg->nr_attrs > 1) {
		begin_feature(c, PREC_FEAT_EVENT_DESC);
		put32(c, (uint32_t)c->cfg->nr_attrs);
		put32(c, PREC_ATTR_SIZE);
		for (i = 0; i < c->cfg->nr_attrs; i++) {
			put(c, &c->attrs[i], PREC_ATTR_SIZE);
			put32(c, 2);
			put_hstr(c, event_names[i]);
			for (j = 0; j < 2; j++)
				put64(c, event_ids[i][j]);
		}
		end(c, -1, NULL);
	}
	if (c->cfg->level) {
		begin_feature(c, PREC_FEAT_COMPRESSED);
		put32(c, 0);
		put32(c, 1);
		put32(c, (uint32_t)c->cfg->level);
		put32(c, 0);
		put32(c, PREC_WRITER_MMAP_LEN);
		end(c, -1, NULL);
	}
	begin_feature(c, PREC_FEAT_LAST);
	end(c, -1, NULL);
}

/* ---- the body ----------------------------------------------------------------------------- */

static uint64_t chain[128];
static unsigned char rawdata[64];

static void make_sample(struct ctx *c, int attr, uint64_t i, struct prec_sample *s)
{
	size_t k;

	memset(s, 0, sizeof(*s));
	s->ip = 0x400000 + (rnd(c) & 0xffff);
	s->pid = 4242;
	s->tid = 4242 + (uint32_t)(i % 3);
	s->time = 1000000 + i * 1000;
	s->id = event_ids[attr][i % 2];
	s->cpu = (uint32_t)(i % 4);
	s->period = 250000 + (rnd(c) & 0xff);
	s->callchain_nr = 1 + rnd(c) % 64;
	chain[0] = PREC_CONTEXT_USER;
	for (k = 1; k < s->callchain_nr; k++)
		chain[k] = 0x400000 + (rnd(c) & 0xfffff);
	s->callchain = chain;
	s->raw_size = (uint32_t)(rnd(c) % 21);
	for (k = 0; k < s->raw_size; k++)
		rawdata[k] = (unsigned char)rnd(c);
	s->raw = rawdata;
}

static int write_stream(struct ctx *c)
{
	static const struct prec_sample_id sid0 = {4242, 4242, 5000, 1000, 0, 1};
	static const struct prec_sample_id sid1 = {4242, 4243, 6000, 2001, 0, 3};
	struct prec_mmap2 m;
	struct prec_sample s;
	int i, a;

	init_attrs(c);
	write_header(c);

	/* what perf synthesizes first */
	x_id_index(c);
	x_mmap(c, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0, 0xffffffff81000000ULL, 0x12090c8,
	       0xffffffff81000000ULL, "[kernel.kallsyms]_text", NULL);
	x_comm(c, 4242, 4242, "perf-exec", false, NULL);
	{
		static const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8,
					       9, 10, 11, 12, 13, 14, 15, 0x99};

		x_build_id(c, id, 20, "/opt/hot");
		x_build_id(c, id, 8, "/usr/lib/a-longer-name-of-more-than-sixty-four-bytes/libhot.so.1");
	}
	x_user(c, PREC_REC_FINISHED_INIT);

	/* kernel records */
	x_comm(c, 4242, 4242, "hot", true, &sid0);
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 4242;
	m.addr = 0x55d0c0000000ULL;
	m.len = 0x1000;
	m.pgoff = 0x1000;
	m.maj = 0xfe;
	m.min = 1;
	m.ino = 123456;
	m.ino_generation = 7;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/tmp/hot";
	x_mmap2(c, PERF_RECORD_MISC_USER, &m, &sid0);
	m.has_build_id = true;
	m.build_id_size = 20;
	for (i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xa0 + i);
	m.filename = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	x_mmap2(c, PERF_RECORD_MISC_USER, &m, &sid1);
	m.build_id_size = 16;
	m.filename = "1234567";
	x_mmap2(c, PERF_RECORD_MISC_USER, &m, NULL);
	x_task(c, false, 4242, 4242, 4243, 4242, 5500, &sid0);
	x_comm(c, 4242, 4243, "worker-thread-with-a-long-name", false, &sid1);
	for (i = 0; i < 8; i++) {
		a = c->cfg->nr_attrs > 1 ? i % 2 : 0;
		make_sample(c, a, (uint64_t)i, &s);
		x_sample(c, a, i % 3 ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL, &s);
	}
	x_lost(c, 1000, 31, &sid0);
	x_lost_samples(c, 17, NULL);
	x_throttle(c, false, 7000, 1001, 1001, &sid0);
	x_throttle(c, true, 7100, 2000, 2000, &sid1);
	x_switch(c, true, false, 0, 0, &sid0);
	x_switch(c, false, false, 0, 0, NULL);
	x_switch(c, true, true, 4243, 4243, &sid1);
	x_switch(c, false, true, 1, 1, &sid0);
	x_user(c, PREC_REC_FINISHED_ROUND);
	make_sample(c, 0, 99, &s);
	x_raw(c, &s);
	note(c, prec_writer__flush(c->w), "flush");

	/* bulk */
	for (i = 0; i < c->cfg->big; i++) {
		a = c->cfg->nr_attrs > 1 ? (i / 7) % 2 : 0;
		make_sample(c, a, (uint64_t)i, &s);
		x_sample(c, a, PERF_RECORD_MISC_USER, &s);
		if (i % 997 == 0)
			x_mmap2(c, PERF_RECORD_MISC_USER, &m, &sid0);
		if (i % 5000 == 4999)
			x_user(c, PREC_REC_FINISHED_ROUND);
		if (i % 20000 == 19999)
			note(c, prec_writer__flush(c->w), "flush");
	}
	x_user(c, PREC_REC_FINISHED_ROUND);
	/* the stream ends in compressed data: finish must end the zstd frame with it */
	x_task(c, true, 4242, 4242, 4242, 4242, 9999, &sid0);
	note(c, prec_writer__finish(c->w), "finish");
	if (c->ex) {
		/* the end marker: SAMPLE_TIME with the first and last sample times */
		begin_feature(c, PREC_FEAT_SAMPLE_TIME);
		put64(c, c->first_time);
		put64(c, c->last_time);
		end(c, -1, NULL);
	}
	/* nothing after the marker; a second finish writes no second one */
	if (prec_writer__add_finished_round(c->w) != -EINVAL)
		note(c, -EPROTO, "a record after finish");
	note(c, prec_writer__finish(c->w), "finish again");
	return c->err;
}

/* Write the stream of `cfg` with w (its pipe header written); fill `ex` unless NULL. */
static int produce_with(const struct cfg *cfg, struct prec_writer *w, struct exp *ex,
			struct prec_writer_stats *ret_stats)
{
	struct ctx c;
	int err;

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.ex = ex;
	c.rng = 0x1234567887654321ULL;
	c.w = w;
	err = write_stream(&c);
	if (err)
		diag("writer failed at %s: %s", c.err_what, strerror(-err));
	if (ret_stats)
		prec_writer__get_stats(c.w, ret_stats);
	prec_buf__release(&c.cur);
	return err;
}

/* Write the stream of `cfg` to fd with a new writer; fill `ex` unless NULL. */
static int produce(const struct cfg *cfg, int fd, struct exp *ex,
		   struct prec_writer_stats *ret_stats)
{
	struct prec_writer_opts o = {.compress_level = cfg->level};
	struct prec_writer *w;
	int err;

	err = prec_writer__new(fd, &o, &w);
	if (err)
		return err;
	err = produce_with(cfg, w, ex, ret_stats);
	prec_writer__free(w);
	return err;
}

/* ---- reading back ------------------------------------------------------------------------ */

static int log_warnings;
static char log_last[256];

static void log_cb(enum prec_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level <= PREC_LOG_WARN) {
		log_warnings++;
		snprintf(log_last, sizeof(log_last), "%s", msg);
	}
}

/* Compare everything the reader hands out with the expectations; returns failures. */
static int check_reader(struct prec_reader *r, const struct cfg *cfg, const struct exp *ex,
			uint64_t file_size, const char *how)
{
	struct prec_record rec;
	size_t k = 0;
	uint64_t pos = PREC_PIPE_HEADER_SIZE, nr_comp = 0;
	int rc, fails = 0;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		if (fails++ < 5)                                                                   \
			diag(__VA_ARGS__);                                                         \
	} while (0)

	log_warnings = 0;
	while ((rc = prec_reader__next(r, &rec)) == 1) {
		const struct exp_rec *e;
		const unsigned char *want;
		struct perf_event_header h;

		if ((uintptr_t)rec.data & 7)
			FAIL("%s: record %zu is not 8-byte aligned", how, k);
		if (!rec.decompressed) {
			if (rec.offset != pos)
				FAIL("%s: record at %#" PRIx64 " reported at %#" PRIx64, how, pos,
				     rec.offset);
			pos += rec.size;
		}
		if (rec.type == PREC_REC_COMPRESSED) {
			nr_comp++;
			if (!cfg->level)
				FAIL("%s: COMPRESSED record in a plain stream", how);
			continue;
		}
		if (k >= ex->n) {
			FAIL("%s: extra record of type %u", how, rec.type);
			break;
		}
		e = &ex->v[k];
		want = ex->bytes.data + e->off;
		memcpy(&h, want, sizeof(h));
		if (rec.size != e->size || rec.type != h.type || rec.misc != h.misc ||
		    memcmp(rec.data, want, e->size)) {
			FAIL("%s: record %zu (type %u, size %u) differs from what was written "
			     "(type %u, size %zu)",
			     how, k, rec.type, rec.size, h.type, e->size);
		}
		if (rec.decompressed != (cfg->level && rec.type < PREC_REC_USER_START))
			FAIL("%s: record %zu: decompressed flag %d", how, k, rec.decompressed);
		if (rec.type < PREC_REC_USER_START) {
			int idx = prec_reader__evsel_of(r, &rec);

			if (idx != e->evsel)
				FAIL("%s: record %zu (type %u): evsel_of %d, want %d", how, k,
				     rec.type, idx, e->evsel);
		}
		if (rec.type == PERF_RECORD_SAMPLE) {
			const struct prec_evsel *ev = prec_reader__evsel(r, (size_t)e->evsel);
			struct prec_sample s;

			if (!ev || prec_sample__parse(&ev->layout, rec.data, rec.size, &s))
				FAIL("%s: record %zu: sample does not parse", how, k);
			else if (s.pid != 4242 || s.period < 250000 ||
				 ((ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
				  (s.callchain_nr < 1 || s.callchain_nr > 64 ||
				   s.callchain[0] != PREC_CONTEXT_USER)) ||
				 ((ev->attr.sample_type & PERF_SAMPLE_RAW) && s.raw_size > 20) ||
				 (cfg->nr_attrs > 1 && evsel_of_id(s.id) != e->evsel))
				FAIL("%s: record %zu: sample fields wrong", how, k);
		} else if (e->has_sid) {
			const struct prec_evsel *ev = prec_reader__evsel(r, 0);
			struct prec_sample_id sid;

			if (prec_sample_id__parse(&ev->layout, rec.data, rec.size, &sid) ||
			    sid.pid != e->sid.pid || sid.tid != e->sid.tid ||
			    sid.time != e->sid.time || sid.id != e->sid.id ||
			    sid.stream_id != e->sid.stream_id || sid.cpu != e->sid.cpu)
				FAIL("%s: record %zu (type %u): trailer differs", how, k, rec.type);
		}
		k++;
	}
	if (rc != 0)
		FAIL("%s: reader returned %d after %zu records", how, rc, k);
	if (k != ex->n)
		FAIL("%s: %zu records read, %zu written", how, k, ex->n);
	if (prec_reader__next(r, &rec) != 0)
		FAIL("%s: next after the end is not 0", how);
	if (prec_reader__truncated(r) || log_warnings)
		FAIL("%s: reader saw a truncated or bad stream: %s", how, log_last);
	if (prec_reader__ended(r) == cfg->cut || !prec_reader__from_precord(r) ||
	    prec_reader__cut_short(r) != cfg->cut)
		FAIL("%s: end marker seen wrongly (ended %d, from precord %d, cut short %d)", how,
		     prec_reader__ended(r), prec_reader__from_precord(r),
		     prec_reader__cut_short(r));
	if (!prec_reader__is_pipe(r))
		FAIL("%s: not detected as pipe form", how);
	if (pos != file_size || prec_reader__offset(r) != file_size)
		FAIL("%s: records end at %" PRIu64 ", offset %" PRIu64 ", file has %" PRIu64, how,
		     pos, prec_reader__offset(r), file_size);
	if (cfg->level && nr_comp == 0)
		FAIL("%s: no COMPRESSED record", how);
#undef FAIL
	return fails;
}

/* Events and features as the reader sees them after the whole stream. */
static int check_header_info(struct prec_reader *r, const struct cfg *cfg)
{
	static const char *const cmdline[] = {"precord", "record", "-g", "--", "./hot"};
	struct prec_feat_cursor cur;
	struct ctx c;
	const void *p;
	size_t len, i;
	uint32_t u32, u32b;
	uint64_t u64;
	char *str;
	int fails = 0;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fails++;                                                                           \
		diag(__VA_ARGS__);                                                                 \
	} while (0)

	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	init_attrs(&c);
	if (prec_reader__nr_evsels(r) != (size_t)cfg->nr_attrs)
		FAIL("%zu events, want %d", prec_reader__nr_evsels(r), cfg->nr_attrs);
	for (i = 0; i < (size_t)cfg->nr_attrs; i++) {
		const struct prec_evsel *ev = prec_reader__evsel(r, i);
		const char *name = cfg->nr_attrs > 1 ? event_names[i] : "cpu-clock";

		if (!ev) {
			FAIL("event %zu missing", i);
			continue;
		}
		if (memcmp(&ev->attr, &c.attrs[i], sizeof(ev->attr)))
			FAIL("event %zu: attr differs", i);
		if (ev->nr_ids != 2 || memcmp(ev->ids, event_ids[i], sizeof(event_ids[i])))
			FAIL("event %zu: ids differ", i);
		if (strcmp(ev->name, name))
			FAIL("event %zu: name '%s', want '%s'", i, ev->name, name);
		if (ev->layout.sample_type != c.attrs[i].sample_type ||
		    ev->layout.trailer_size != c.layouts[i].trailer_size)
			FAIL("event %zu: layout differs", i);
	}
	if (prec_reader__evsel(r, (size_t)cfg->nr_attrs))
		FAIL("an event past the last");

	p = prec_reader__feature(r, PREC_FEAT_HOSTNAME, &len);
	cur = (struct prec_feat_cursor){p, len, 0};
	if (!p || len != 68 || prec_feat__string(&cur, &str))
		FAIL("HOSTNAME missing or not a string");
	else {
		if (strcmp(str, "testhost") || cur.off != len)
			FAIL("HOSTNAME is '%s'", str);
		free(str);
	}
	p = prec_reader__feature(r, PREC_FEAT_OSRELEASE, &len);
	cur = (struct prec_feat_cursor){p, len, 0};
	if (!p || prec_feat__string(&cur, &str))
		FAIL("OSRELEASE missing");
	else {
		if (str[0])
			FAIL("OSRELEASE is '%s'", str);
		free(str);
	}
	p = prec_reader__feature(r, PREC_FEAT_CMDLINE, &len);
	cur = (struct prec_feat_cursor){p, len, 0};
	if (!p || prec_feat__u32(&cur, &u32) || u32 != 5)
		FAIL("CMDLINE missing or wrong count");
	else
		for (i = 0; i < 5; i++) {
			if (prec_feat__string(&cur, &str)) {
				FAIL("CMDLINE string %zu missing", i);
				break;
			}
			if (strcmp(str, cmdline[i]))
				FAIL("CMDLINE[%zu] is '%s'", i, str);
			free(str);
		}
	if (p && cur.off != len)
		FAIL("CMDLINE has trailing bytes");
	p = prec_reader__feature(r, PREC_FEAT_NRCPUS, &len);
	cur = (struct prec_feat_cursor){p, len, 0};
	if (!p || len != 8 || prec_feat__u32(&cur, &u32) || prec_feat__u32(&cur, &u32b) ||
	    u32 != 4 || u32b != 8)
		FAIL("NRCPUS wrong");
	if (!p || prec_feat__u32(&cur, &u32) != -EBADMSG ||
	    prec_feat__u64(&cur, &u64) != -EBADMSG || prec_feat__bytes(&cur, 1, &p) != -EBADMSG ||
	    prec_feat__string(&cur, &str) != -EBADMSG)
		FAIL("cursor past the end of NRCPUS is not -EBADMSG");
	if (!prec_reader__feature(r, PREC_FEAT_EVENT_DESC, &len) != (cfg->nr_attrs == 1))
		FAIL("EVENT_DESC presence wrong");
	p = prec_reader__feature(r, PREC_FEAT_COMPRESSED, &len);
	if (!cfg->level != !p)
		FAIL("COMPRESSED feature presence wrong");
	if (p) {
		uint32_t comp[5];

		memcpy(comp, p, sizeof(comp));
		if (len != 20 || comp[1] != 1 || comp[2] != (uint32_t)cfg->level ||
		    comp[4] != PREC_WRITER_MMAP_LEN)
			FAIL("COMPRESSED feature wrong");
	}
	if (prec_reader__feature(r, PREC_FEAT_BUILD_ID, NULL) ||
	    prec_reader__feature(r, PREC_FEAT_LAST, NULL) || prec_reader__feature(r, 100000, NULL))
		FAIL("a feature that was not written is present");
#undef FAIL
	return fails;
}

/*
 * Walk the file and check the compression invariants; count records of the decompressed
 * stream that span two COMPRESSED records.
 */
static int check_compressed(const unsigned char *buf, size_t len,
			    const struct prec_writer_stats *stats, size_t *ret_spanning)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	struct prec_buf dec = {0};
	size_t *ends = NULL, nr_ends = 0, pos = PREC_PIPE_HEADER_SIZE, last = 0, i, at;
	size_t spanning = 0, nr_comp = 0, whole = 0;
	bool in_group = false;
	int fails = 0;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		if (fails++ < 5)                                                                   \
			diag(__VA_ARGS__);                                                         \
	} while (0)

	if (!d || ZSTD_isError(ZSTD_initDStream(d)))
		abort();
	while (pos + 8 <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.size < 8 || h.size > len - pos) {
			FAIL("bad record at %#zx", pos);
			break;
		}
		if (h.type == PREC_REC_COMPRESSED) {
			ZSTD_inBuffer in = {buf + pos + 8, h.size - 8u, 0};
			size_t before = dec.len, r = 0;

			nr_comp++;
			if (h.size - 8 > MAX_PAYLOAD || h.size == 8)
				FAIL("COMPRESSED at %#zx: payload of %u bytes", pos, h.size - 8);
			do {
				ZSTD_outBuffer out;

				must(prec_buf__reserve(&dec, 1 << 20));
				out = (ZSTD_outBuffer){dec.data + dec.len, 1 << 20, 0};
				r = ZSTD_decompressStream(d, &out, &in);
				if (ZSTD_isError(r)) {
					FAIL("COMPRESSED at %#zx: %s", pos, ZSTD_getErrorName(r));
					goto out;
				}
				dec.len += out.pos;
				if (out.pos < out.size && in.pos == in.size)
					break;
			} while (1);
			if (dec.len == before || dec.len - before > PREC_WRITER_MMAP_LEN)
				FAIL("COMPRESSED at %#zx decompresses to %zu bytes", pos,
				     dec.len - before);
			ends = realloc(ends, (nr_ends + 1) * sizeof(*ends));
			if (!ends)
				abort();
			ends[nr_ends++] = dec.len;
			last = r;
			in_group = true;
		} else {
			/* a group ends flushed: every byte fed so far decodes, whole records */
			while (in_group && whole + 8 <= dec.len) {
				struct perf_event_header k;

				memcpy(&k, dec.data + whole, sizeof(k));
				if (k.size < 8)
					break;
				whole += k.size;
			}
			if (in_group && whole != dec.len)
				FAIL("group before the record at %#zx not flushed: %zu of %zu bytes "
				     "decode to whole records", pos, whole, dec.len);
			if (h.type < PREC_REC_USER_START)
				FAIL("kernel record type %u outside the compressed data", h.type);
			in_group = false;
		}
		pos += h.size;
	}
	if (pos != len)
		FAIL("%zu bytes after the last record", len - pos);
	if (in_group && last != 0)
		FAIL("zstd frame not ended at the end of the stream (finish)");
	if (nr_comp != stats->nr_compressed)
		FAIL("%zu COMPRESSED records, writer counted %" PRIu64, nr_comp,
		     stats->nr_compressed);
	/* records of the decompressed stream, and the chunk boundaries they cross */
	for (at = 0, i = 0; at + 8 <= dec.len;) {
		struct perf_event_header h;

		memcpy(&h, dec.data + at, sizeof(h));
		if (h.size < 8 || h.size > dec.len - at) {
			FAIL("decompressed record at +%#zx is broken", at);
			break;
		}
		while (i < nr_ends && ends[i] <= at)
			i++;
		if (i < nr_ends && ends[i] < at + h.size)
			spanning++;
		at += h.size;
	}
	if (at != dec.len)
		FAIL("decompressed stream ends inside a record");
out:
	*ret_spanning = spanning;
	ZSTD_freeDStream(d);
	prec_buf__release(&dec);
	free(ends);
#undef FAIL
	return fails;
}

static unsigned char *slurp(const char *path, size_t *ret_len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		abort();
	p = malloc((size_t)st.st_size + 1);
	if (!p || read(fd, p, (size_t)st.st_size) != st.st_size)
		abort();
	close(fd);
	*ret_len = (size_t)st.st_size;
	return p;
}

/* A child runs the writer into a pipe; the reader reads the pipe. */
static int read_from_writer_pipe(const struct cfg *cfg, const struct exp *ex, uint64_t size)
{
	struct prec_reader *r;
	int p[2], status, err, fails;
	pid_t pid;

	if (pipe(p))
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(p[0]);
		_exit(produce(cfg, p[1], NULL, NULL) ? 1 : 0);
	}
	close(p[1]);
	err = prec_reader__open_fd(p[0], &r);
	if (err) {
		diag("open_fd on the pipe: %s", strerror(-err));
		fails = 1;
	} else {
		fails = check_reader(r, cfg, ex, size, "pipe");
		fails += check_header_info(r, cfg);
		prec_reader__free(r);
	}
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		diag("writer child failed (status %#x)", status);
		fails++;
	}
	return fails;
}

/*
 * A file read by path is mapped and its records are handed out in place: they stay valid
 * (stable) while the reader reads on and gives back, with prec_reader__release(), what is
 * older than the oldest one still held.  Holds a window of the last records by address and
 * checks each against what was written when it leaves the window.  1 on any difference.
 */
static int check_stable(const char *path, const struct exp *ex, bool plain, size_t *ret_n)
{
	enum { WINDOW = 4096 };
	static const void *held[WINDOW];
	struct prec_reader *r;
	struct prec_record rec;
	size_t k = 0, i, nstable = 0;
	int fails = 0;

	i = (size_t)-prec_reader__open(path, &r);
	if (i) {
		diag("open %s: %s", path, strerror((int)i));
		return 1;
	}
	while (prec_reader__next(r, &rec) == 1) {
		if (rec.type == PREC_REC_COMPRESSED)
			continue;
		if (k >= ex->n) {
			diag("extra record %zu of type %u", k, rec.type);
			prec_reader__free(r);
			return 1;
		}
		if (k >= WINDOW && held[k % WINDOW]) { /* leaves the window: still as written */
			const struct exp_rec *e = &ex->v[k - WINDOW];

			if (memcmp(held[k % WINDOW], ex->bytes.data + e->off, e->size) && !fails++)
				diag("record %zu changed while held", k - WINDOW);
		}
		held[k % WINDOW] = rec.stable ? rec.data : NULL;
		nstable += rec.stable;
		/* the mapping starts on a page: where the file has a record on 8 bytes, so does
		 * memory, and it is not copied */
		if (plain && rec.stable != !(rec.offset & 7) && !fails++)
			diag("record %zu (type %u, offset %#" PRIx64 ") %s in place", k, rec.type,
			     rec.offset, rec.stable ? "wrongly" : "not");
		k++;
		/* the oldest record held is the next to leave */
		prec_reader__release(r, k >= WINDOW ? held[k % WINDOW] : held[0]);
	}
	for (i = k > WINDOW ? k - WINDOW : 0; i < k; i++)
		if (held[i % WINDOW])
			fails += memcmp(held[i % WINDOW], ex->bytes.data + ex->v[i].off,
					ex->v[i].size) != 0;
	prec_reader__release(r, NULL);
	prec_reader__free(r);
	*ret_n = nstable;
	return fails || k != ex->n;
}

static void test_cfg(const struct cfg *cfg)
{
	struct prec_writer_stats stats;
	struct prec_reader *r;
	struct exp ex = {0};
	unsigned char *buf, *unaligned;
	char path[4096];
	size_t len, spanning = 0;
	int fd, err, fails;

	fd = tap_mkstemp(path, sizeof(path), "stream");
	err = produce(cfg, fd, &ex, &stats);
	close(fd);
	ok(err == 0, "%s: writer succeeds (%zu records)", cfg->name, ex.n);
	buf = slurp(path, &len);
	ok(stats.written_bytes == len && stats.nr_records == ex.n - 2,
	   "%s: writer stats: %" PRIu64 " bytes (file %zu), %" PRIu64 " records", cfg->name,
	   stats.written_bytes, len, stats.nr_records);
	if (cfg->level) {
		fails = check_compressed(buf, len, &stats, &spanning);
		ok(fails == 0,
		   "%s: %" PRIu64 " COMPRESSED records: payload <= 65527, 1..%d bytes each, groups "
		   "end flushed, the frame at finish",
		   cfg->name, stats.nr_compressed, PREC_WRITER_MMAP_LEN);
		if (cfg->big)
			ok(stats.nr_compressed > 100 && spanning > 10,
			   "%s: %" PRIu64 " COMPRESSED records, %zu records span two of them",
			   cfg->name, stats.nr_compressed, spanning);
	}

	err = prec_reader__open_mem(buf, len, &r);
	if (ok(err == 0, "%s: open_mem (%s)", cfg->name, strerror(-err))) {
		fails = check_reader(r, cfg, &ex, len, "mem");
		ok(fails == 0, "%s: from memory, every record is what was written", cfg->name);
		ok(check_header_info(r, cfg) == 0, "%s: events, names and features", cfg->name);
		prec_reader__free(r);
	}
	err = prec_reader__open_mem(buf, len, &r);
	if (ok(err == 0, "%s: open_mem for read_header", cfg->name)) {
		ok(prec_reader__read_header(r) == 0 && check_header_info(r, cfg) == 0,
		   "%s: read_header: events, names and features before any record", cfg->name);
		ok(check_reader(r, cfg, &ex, len, "read_header") == 0,
		   "%s: after read_header, still every record from the first", cfg->name);
		prec_reader__free(r);
	}
	unaligned = malloc(len + 1);
	if (!unaligned)
		abort();
	memcpy(unaligned + 1, buf, len);
	err = prec_reader__open_mem(unaligned + 1, len, &r);
	if (ok(err == 0, "%s: open_mem on an odd address", cfg->name)) {
		ok(check_reader(r, cfg, &ex, len, "mem+1") == 0,
		   "%s: from an odd address, every record is what was written (aligned)",
		   cfg->name);
		prec_reader__free(r);
	}
	free(unaligned);
	err = prec_reader__open(path, &r);
	if (ok(err == 0, "%s: open path", cfg->name)) {
		ok(check_reader(r, cfg, &ex, len, "path") == 0,
		   "%s: from the file, every record is what was written", cfg->name);
		prec_reader__free(r);
	}
	{
		size_t nstable = 0;
		int bad = check_stable(path, &ex, !cfg->level, &nstable);

		ok(bad == 0,
		   "%s: from the file (%zu bytes), %zu records handed out in place stay as "
		   "written while the reader reads on and gives back older ones",
		   cfg->name, len, nstable);
	}
	ok(read_from_writer_pipe(cfg, &ex, len) == 0,
	   "%s: writer -> pipe -> open_fd, every record is what was written", cfg->name);

	unlink(path);
	free(buf);
	exp_free(&ex);
}

/* Write errors: -ENOSPC from /dev/full, sticky; what was flushed before stays readable. */
static void test_dev_full(int level)
{
	struct cfg cfg = {"dev/full", level, 1, 0, true};
	struct prec_writer_opts o = {.compress_level = level};
	struct prec_writer *w = (struct prec_writer *)&o;
	struct prec_writer_stats stats;
	struct prec_sample s;
	struct prec_reader *r;
	struct ctx c;
	struct exp ex = {0};
	char path[4096];
	size_t n_before;
	int full, fd, err, calls;
	uint64_t before;

	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full < 0) {
		ok(true, "# SKIP /dev/full: %s", strerror(errno));
		return;
	}
	err = prec_writer__new(full, &o, &w);
	ok(err == -ENOSPC && w == (struct prec_writer *)&o,
	   "zstd %d: new on /dev/full is -ENOSPC (%d), *ret untouched", level, err);

	/* good records, flushed; then the fd turns into /dev/full */
	fd = tap_mkstemp(path, sizeof(path), "stream");
	memset(&c, 0, sizeof(c));
	c.cfg = &cfg;
	c.ex = &ex;
	c.rng = 1;
	err = prec_writer__new(fd, &o, &c.w);
	if (!ok(err == 0, "zstd %d: new on a file", level))
		return;
	init_attrs(&c);
	write_header(&c);
	x_comm(&c, 1, 1, "before", false, NULL);
	make_sample(&c, 0, 1, &s);
	x_sample(&c, 0, PERF_RECORD_MISC_USER, &s);
	note(&c, prec_writer__flush(c.w), "flush");
	ok(c.err == 0, "zstd %d: records before the device fills up", level);
	n_before = ex.n;
	prec_writer__get_stats(c.w, &stats);
	before = stats.written_bytes;

	if (dup2(full, fd) < 0)
		abort();
	ok(prec_writer__add_comm(c.w, 2, 2, "after", false, NULL) == 0,
	   "zstd %d: a buffered record does not fail yet", level);
	err = prec_writer__flush(c.w);
	ok(err == -ENOSPC, "zstd %d: flush to a full device is -ENOSPC (%d)", level, err);
	ok(prec_writer__add_comm(c.w, 3, 3, "later", false, NULL) == -ENOSPC &&
	       prec_writer__add_sample(c.w, 0, PERF_RECORD_MISC_USER, &s) == -ENOSPC &&
	       prec_writer__add_finished_round(c.w) == -ENOSPC &&
	       prec_writer__add_raw(c.w, "x", 1) == -ENOSPC && prec_writer__flush(c.w) == -ENOSPC &&
	       prec_writer__finish(c.w) == -ENOSPC,
	   "zstd %d: the error is sticky for records, flush and finish", level);
	prec_writer__get_stats(c.w, &stats);
	is_u64(stats.written_bytes, before, "zstd %d: nothing counted as written after the error",
	       level);
	prec_writer__free(c.w);
	prec_buf__release(&c.cur);
	close(fd);

	ex.n = n_before;
	err = prec_reader__open(path, &r);
	if (ok(err == 0, "zstd %d: the file written before the error opens", level)) {
		ok(check_reader(r, &cfg, &ex, before, "dev/full") == 0,
		   "zstd %d: the file holds exactly the records flushed before the error, without "
		   "the end marker: cut short", level);
		prec_reader__free(r);
	}
	unlink(path);
	exp_free(&ex);

	/* no explicit flush: the output buffer fills up and a record call reports the error */
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	memset(&c, 0, sizeof(c));
	c.cfg = &cfg;
	c.rng = 2;
	if (fd < 0 || prec_writer__new(fd, &o, &c.w))
		abort();
	init_attrs(&c);
	write_header(&c);
	if (dup2(full, fd) < 0)
		abort();
	err = 0;
	for (calls = 0; calls < 1000000 && !err; calls++) {
		make_sample(&c, 0, (uint64_t)calls, &s);
		err = prec_writer__add_sample(c.w, 0, PERF_RECORD_MISC_USER, &s);
	}
	ok(err == -ENOSPC, "zstd %d: adding records to a full device fails after %d records (%d)",
	   level, calls, err);
	ok(prec_writer__add_sample(c.w, 0, PERF_RECORD_MISC_USER, &s) == -ENOSPC &&
	       prec_writer__finish(c.w) == -ENOSPC,
	   "zstd %d: and stays failed", level);
	prec_writer__free(c.w);
	close(fd);
	close(full);
}

/*
 * A regular file that cannot grow (RLIMIT_FSIZE, in a child): the writer fails with -EFBIG
 * and cuts the partial write back, so the file holds whole records up to the last good write.
 */
static void test_file_limit(int level)
{
	struct cfg cfg = {"file size limit", level, 1, 50000, true};
	struct prec_reader *r;
	struct prec_record rec;
	struct exp ex = {0};
	struct stat st;
	char path[4096];
	size_t k = 0, bad = 0;
	int fd, status, rc, err;
	pid_t pid;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || produce(&cfg, fd, &ex, NULL))
		abort();
	close(fd);
	fd = tap_mkstemp(path, sizeof(path), "stream");
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		struct rlimit rl = {100000, 100000};

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		_exit(produce(&cfg, fd, NULL, NULL) == -EFBIG ? 0 : 1);
	}
	close(fd);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "zstd %d: writing past RLIMIT_FSIZE fails with -EFBIG (status %#x)", level, status);
	err = prec_reader__open(path, &r);
	if (ok(err == 0 && !stat(path, &st), "zstd %d: the cut-back file opens", level)) {
		log_warnings = 0;
		while ((rc = prec_reader__next(r, &rec)) == 1) {
			if (rec.type == PREC_REC_COMPRESSED)
				continue;
			if (k >= ex.n || rec.size != ex.v[k].size ||
			    memcmp(rec.data, ex.bytes.data + ex.v[k].off, rec.size))
				bad++;
			k++;
		}
		ok(rc == 0 && !bad && k > 10 && !prec_reader__truncated(r) && !log_warnings &&
		       prec_reader__offset(r) == (uint64_t)st.st_size && st.st_size <= 100000 &&
		       prec_reader__cut_short(r),
		   "zstd %d: it ends at a record boundary: %zu whole records, %lld bytes, no end "
		   "marker (cut short)", level, k, (long long)st.st_size);
		prec_reader__free(r);
	}
	unlink(path);
	exp_free(&ex);
}

/* Calls in the wrong phase or with bad arguments. */
static void test_misuse(void)
{
	static const char *const names[1] = {"x"};
	struct prec_writer_opts o = {.compress_level = 99};
	struct perf_event_attr a;
	struct prec_writer *w = NULL;
	char *huge;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		abort();
	ok(prec_writer__new(fd, &o, &w) == -EINVAL && !w, "level 99 is -EINVAL");
	o.compress_level = -1;
	ok(prec_writer__new(fd, &o, &w) == -EINVAL && !w, "level -1 is -EINVAL");
	if (prec_writer__new(fd, NULL, &w))
		abort();
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_IP;
	ok(prec_writer__add_comm(w, 1, 1, "x", false, NULL) == -EINVAL,
	   "a record before end_header is -EINVAL");
	ok(prec_writer__add_feature(w, 0, "", 0) == -EINVAL &&
	       prec_writer__add_feature(w, PREC_FEAT_LAST, "", 0) == -EINVAL,
	   "feature 0 and 32 are -EINVAL");
	ok(prec_writer__add_attr(w, &a, NULL, 0) == 0, "an attr without ids");
	ok(prec_writer__add_event_desc(w, names) == 0, "event desc");
	ok(prec_writer__layout(w, 0) && !prec_writer__layout(w, 1), "layout of 0, none for 1");
	ok(prec_writer__end_header(w) == 0, "end_header");
	ok(prec_writer__add_attr(w, &a, NULL, 0) == -EINVAL &&
	       prec_writer__add_feature_string(w, PREC_FEAT_HOSTNAME, "h") == -EINVAL &&
	       prec_writer__end_header(w) == -EINVAL,
	   "header calls after end_header are -EINVAL");
	ok(prec_writer__add_sample(w, 1, 0, &(struct prec_sample){0}) == -EINVAL,
	   "sample of an unknown attr is -EINVAL");
	huge = malloc(70000);
	if (!huge)
		abort();
	memset(huge, 'a', 69999);
	huge[69999] = 0;
	ok(prec_writer__add_comm(w, 1, 1, huge, false, NULL) == -E2BIG,
	   "a record over 64 KiB is -E2BIG");
	ok(prec_writer__add_comm(w, 1, 1, "fine", false, NULL) == 0 && prec_writer__finish(w) == 0,
	   "and the writer goes on");
	free(huge);
	prec_writer__free(w);
	prec_writer__free(NULL);
	prec_reader__free(NULL);
	close(fd);
}

/*
 * prec_writer__reset: a writer that wrote a stream, then failed to begin one on /dev/full,
 * writes the next stream byte for byte as a new writer does (same zstd frame, no attrs or
 * times of the old one), and it reads back.
 */
static void test_reset(const struct cfg *cfg)
{
	struct prec_writer_opts o = {.compress_level = cfg->level};
	struct prec_writer_stats stats;
	struct prec_writer *w;
	struct prec_reader *r;
	struct exp ex = {0};
	unsigned char *fresh, *again;
	size_t nf, na;
	char pf[4096], pa[4096];
	int ff, fa, full;

	ff = tap_mkstemp(pf, sizeof(pf), "fresh");
	ok(produce(cfg, ff, NULL, NULL) == 0, "%s: a new writer writes the stream", cfg->name);
	close(ff);
	fa = tap_mkstemp(pa, sizeof(pa), "again");
	if (prec_writer__new(fa, &o, &w))
		abort();
	ok(produce_with(cfg, w, NULL, NULL) == 0, "%s: so does another, to be reset", cfg->name);
	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full < 0)
		abort();
	ok(prec_writer__reset(w, full) == -ENOSPC, "%s: reset onto /dev/full is -ENOSPC", cfg->name);
	close(full);
	if (ftruncate(fa, 0) || lseek(fa, 0, SEEK_SET))
		abort();
	ok(prec_writer__reset(w, fa) == 0, "%s: then a reset onto a file succeeds", cfg->name);
	ok(produce_with(cfg, w, &ex, &stats) == 0, "%s: and writes the stream again", cfg->name);
	prec_writer__free(w);
	close(fa);
	fresh = slurp(pf, &nf);
	again = slurp(pa, &na);
	ok(nf == na && !memcmp(fresh, again, nf) && stats.written_bytes == na,
	   "%s: the reset writer's stream is the new writer's, byte for byte (%zu and %zu bytes)",
	   cfg->name, nf, na);
	if (ok(prec_reader__open(pa, &r) == 0, "%s: open the reset writer's stream", cfg->name)) {
		ok(check_reader(r, cfg, &ex, na, "reset") == 0,
		   "%s: after a reset, every record is what was written", cfg->name);
		prec_reader__free(r);
	}
	unlink(pf);
	unlink(pa);
	free(fresh);
	free(again);
	exp_free(&ex);
}

int main(void)
{
	size_t i;

	signal(SIGPIPE, SIG_IGN);
	prec_log_set_fn(log_cb, NULL);
	test_misuse();
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		test_cfg(&cfgs[i]);
	test_dev_full(0);
	test_dev_full(1);
	test_file_limit(0);
	test_file_limit(1);
	test_reset(&cfgs[0]);
	test_reset(&cfgs[6]);
	return done_testing();
}
