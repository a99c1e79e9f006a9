/* SPDX-License-Identifier: MIT */
/*
 * preport --pprof: the finished hist as a pprof profile, encoded by protobuf-c from our own
 * prec_profile.proto and gzip-compressed by zlib as it is written, on a thread of its own
 * (prec_gzip.c).
 *
 * A protobuf message that is several encodings one after another is the message with their
 * fields merged (repeated fields appended), so the profile is written in pieces: the samples
 * as Profiles of SAMPLE_BATCH samples each as their stacks are walked, then one Profile with
 * everything the samples refer to (string table, mappings, locations, functions, sample
 * types, times).  The bytes are those of one Profile packed whole.  Memory therefore grows
 * with the distinct frames, functions and DSOs, never with the samples, and the packed bytes
 * go straight into the deflate stream.
 *
 * Ids: location i + 1 is the i-th frame met (a frame is a (DSO, flags, address) of the hist);
 * function i + 1 the i-th (symbolized frame, source file) met; mapping i + 1 the
 * i-th DSO met.  String 0 is "".  Addresses are the hist's: a file offset for an ELF file, so
 * a mapping's memory_start equals its file_offset and pprof's address - start + offset gives
 * the offset back; absolute for the kernel and JIT maps (file_offset 0 for the kernel).
 *
 * A function's name is the hist's (demangled); its system_name the linkage name: of an
 * inlined function from the DWARF as its location is made, of a symbol from
 * prec_dso__linkage_names(), asked once per DSO for all of them before the tables are
 * written; none (0, "") where there is no linkage name other than the name (C, kernel, JIT,
 * PLT, a static C++ function without DW_AT_linkage_name, every name under --no-demangle), as
 * go tool pprof would take a name equal to its system_name for a mangled one and cut its
 * template arguments and parameters off.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "prec_buf.h"
#include "prec_gzip.h"
#include "prec_hash.h"
#include "prec_pprof.h"
#include "prec_profile.pb-c.h"
#include "prec_symbol.h"

#define MAX_INLINE 16 /* as the hist keeps them (prec_hist_sym.c) */
#define SAMPLE_BATCH 1024 /* samples packed as one message */
#define LOC_BATCH 4096 /* locations packed as one message */

/* Pack message m whole and hand it to the gzip stream: 0, -ENOMEM or -EIO.  (protobuf-c's
 * pack_to_buffer hands its buffer a few bytes at a time and sizes each nested message once
 * more per level; packing samples a batch at a time into flat memory takes half its CPU.)
 * With `bound` (0: none), a size m cannot exceed, the buffer is that large and m is not
 * sized first: protobuf-c sizes each nested message as it packs it anyway, and sizing the
 * samples twice cost as much as packing them. */
static int gz_pack(struct prec_gzip *g, const ProtobufCMessage *m, size_t bound)
{
	size_t len = bound ? bound : protobuf_c_message_get_packed_size(m);
	uint8_t *buf = prec_gzip__buf(g, len);

	if (!buf)
		return -ENOMEM;
	return prec_gzip__write(g, protobuf_c_message_pack(m, buf));
}

/* Bounds of the packed size, in a Profile, of a sample with n locations and c values, and of
 * a location with n lines: a field's tag is one byte (field numbers below 16), a varint at
 * most 10 bytes and a message's length at most 5. */
#define SAMPLE_BOUND(n, c) (6 + (6 + 11 * (size_t)(n)) + (6 + 11 * (size_t)(c)) + 3 * (6 + 4 * 11))
#define LOCATION_BOUND(n) (6 + 3 * 11 + 2 + (6 + 2 * 11) * (size_t)(n))

/* A function is a name in a file: code of one symbol that comes from an #included file
 * (glibc's vfprintf-process-arg.c in __vfprintf_internal) is a function of its own there,
 * since a pprof line has only a number and takes its file from its function. */
struct func {
	int64_t name, filename, start_line;
	int64_t system_name; /* 0: none */
	uint32_t sf; /* its sframe */
	uint32_t next; /* the next function of the same sframe in another file; 0: none */
};

struct line {
	uint32_t func; /* function id */
	int64_t line;
};

struct loc {
	uint32_t mapping; /* mapping id, 0: none */
	uint64_t addr;
	uint32_t line_start, nr_lines;
};

/* What is known of a DSO of the hist (by hist DSO id). */
struct dso_info {
	uint64_t lo, hi; /* its frames' addresses */
	uint32_t mapping; /* mapping id, 0: none yet */
	bool lines; /* some location of it has line numbers */
	/* for choosing the main binary: is this the program of command `comm` (its file name
	 * begins with the command, as the kernel cuts it), and the samples of such a command
	 * on it */
	const char *comm;
	bool is_program;
	uint32_t last_stack; /* + 1: the last stack counted */
	uint64_t program_samples;
};

struct pp {
	struct prec_hist *h;
	const struct prec_pprof_opts *o;
	/* the string table: index i + 1 is strs[i]; text is looked up by interned pointer */
	struct prec_strset text;
	struct prec_keyset str_ids;
	const char **strs;
	size_t cap_strs;
	uint32_t *loc_of; /* frame id -> location id, 0: none yet */
	struct loc *locs;
	size_t nr_locs, cap_locs;
	struct line *lines;
	size_t nr_lines, cap_lines;
	uint32_t *func_of; /* sframe id -> function id, 0: none yet */
	size_t cap_func_of;
	struct func *funcs;
	size_t nr_funcs, cap_funcs;
	struct dso_info *dsos; /* by hist DSO id */
	size_t cap_dsos;
	uint32_t *map_dso; /* mapping id - 1 -> hist DSO id */
	uint32_t main_map; /* mapping id of the main binary (pprof's first mapping); 0: the first */
	size_t nr_maps, cap_maps;
	int64_t *col; /* event -> index of its value, 0: not sampled */
	size_t nr_cols;
};

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	return prec_array__grow(arr, cap, need, size, 64);
}

static int grow_zero(void **arr, size_t *cap, size_t need, size_t size)
{
	return prec_array__grow_zero(arr, cap, need, size, 64);
}

/* The index of string s (an interned, stable pointer) in the table; -ENOMEM. */
static int64_t str_of(struct pp *p, const char *s)
{
	uintptr_t key = (uintptr_t)s;
	bool is_new;
	long id;

	if (!s || !*s)
		return 0;
	id = prec_keyset__intern(&p->str_ids, &key, &is_new);
	if (id < 0)
		return id;
	if (is_new) {
		if (grow((void **)&p->strs, &p->cap_strs, (size_t)id + 1, sizeof(*p->strs)))
			return -ENOMEM;
		p->strs[id] = s;
	}
	return id + 1;
}

/* The same for any text, or its first len bytes. */
static int64_t str_n(struct pp *p, const char *s, size_t len)
{
	const char *in = prec_strset__intern_n(&p->text, s, len);

	return in ? str_of(p, in) : -ENOMEM;
}

static int64_t str(struct pp *p, const char *s)
{
	return str_n(p, s, strlen(s));
}

/* "file.c:12" into the file's string index and the line; 0 for a NULL srcline. */
static int64_t srcline_split(struct pp *p, const char *srcline, int64_t *ret_line)
{
	const char *colon = srcline ? strrchr(srcline, ':') : NULL;

	*ret_line = 0;
	if (!colon)
		return 0;
	*ret_line = strtoll(colon + 1, NULL, 10);
	return str_n(p, srcline, (size_t)(colon - srcline));
}

/* The function of sframe sf in source file `file` (0: not known), with `start` (its
 * declaration's line) if it has none yet, and its linkage name when new (NULL: none known
 * yet); its id or -ENOMEM. */
static long func_of(struct pp *p, uint32_t sf, int64_t file, int start, const char *linkage)
{
	const struct prec_sframe *s = prec_hist__sframe(p->h, sf);
	struct func *f;
	uint32_t id, last = 0; /* the last function of sf looked at */
	int64_t name, sys;

	if (grow_zero((void **)&p->func_of, &p->cap_func_of, (size_t)sf + 1, sizeof(uint32_t)))
		return -ENOMEM;
	for (id = p->func_of[sf]; id; last = id, id = p->funcs[id - 1].next) {
		f = &p->funcs[id - 1];
		if (!f->filename)
			f->filename = file;
		if (file && f->filename != file)
			continue;
		if (!f->start_line)
			f->start_line = start;
		return id;
	}
	name = str(p, s->name ? s->name : "[unknown]");
	sys = linkage ? str(p, linkage) : 0;
	if (name < 0 || sys < 0 ||
	    grow((void **)&p->funcs, &p->cap_funcs, p->nr_funcs + 1, sizeof(*f)))
		return -ENOMEM;
	f = &p->funcs[p->nr_funcs++];
	f->name = name;
	f->system_name = sys;
	f->sf = sf;
	f->filename = file;
	f->start_line = start;
	f->next = 0;
	if (last)
		p->funcs[last - 1].next = (uint32_t)p->nr_funcs;
	else
		p->func_of[sf] = (uint32_t)p->nr_funcs;
	return (long)p->nr_funcs;
}

/* A line of the location being made: sframe sf at srcline ("file.c:12"), whose file is
 * `path` with its directory where the debug info gives one (what go tool pprof -list opens). */
static int line_push(struct pp *p, uint32_t sf, const char *srcline, const char *path, int start,
		     const char *linkage)
{
	int64_t lineno, file = srcline_split(p, srcline, &lineno);
	long fn;

	if (file > 0 && path)
		file = str(p, path);
	if (file < 0)
		return -ENOMEM;
	fn = func_of(p, sf, file, start, linkage);
	if (fn < 0 || grow((void **)&p->lines, &p->cap_lines, p->nr_lines + 1, sizeof(*p->lines)))
		return -ENOMEM;
	p->lines[p->nr_lines].func = (uint32_t)fn;
	p->lines[p->nr_lines].line = lineno;
	p->nr_lines++;
	return 0;
}

/* The location of frame fid, made when first met: its id, or -ENOMEM. */
static long loc_of(struct pp *p, uint32_t fid)
{
	struct prec_hist_frame f;
	struct prec_dso *d;
	struct loc *l;
	const uint32_t *sfs;
	uint32_t nsf, k;

	if (p->loc_of[fid])
		return p->loc_of[fid];
	f = prec_hist__frame(p->h, fid);
	d = prec_hist__dso(p->h, f.dso);
	if (grow((void **)&p->locs, &p->cap_locs, p->nr_locs + 1, sizeof(*p->locs)))
		return -ENOMEM;
	l = &p->locs[p->nr_locs];
	l->addr = f.addr;
	l->mapping = 0;
	l->line_start = (uint32_t)p->nr_lines;
	l->nr_lines = 0;
	if (d) {
		struct dso_info *di = &p->dsos[f.dso];

		if (!di->mapping) {
			if (grow((void **)&p->map_dso, &p->cap_maps, p->nr_maps + 1,
				 sizeof(*p->map_dso)))
				return -ENOMEM;
			p->map_dso[p->nr_maps++] = f.dso;
			di->mapping = (uint32_t)p->nr_maps;
		}
		l->mapping = di->mapping;
	}
	nsf = prec_hist__frame_sframes(p->h, fid, &sfs);
	if (d && prec_hist__frame_symbolized(p->h, fid)) {
		/* a return address is looked up at the call, as the hist did */
		uint64_t at = f.addr - ((f.flags & PREC_FRAME_RET) && f.addr ? 1 : 0);
		struct prec_inline_frame inl[MAX_INLINE];
		int nr = 0;

		if (nsf > 1) {
			nr = prec_dso__inlines(d, at, inl, MAX_INLINE);
			if (nr < 0)
				return nr;
		}
		for (k = 0; k < nsf; k++) {
			const char *sl = NULL, *path = NULL, *linkage = NULL;
			int start = 0;

			if (k + 1 == nsf) {
				sl = prec_dso__outer_srcline(d, at, &start, &path);
			} else if ((int)k < nr) {
				sl = inl[k].srcline;
				path = inl[k].path;
				start = inl[k].decl_line;
				linkage = inl[k].linkage;
			}
			if (line_push(p, sfs[k], sl, path, start, linkage))
				return -ENOMEM;
			if (sl)
				p->dsos[f.dso].lines = true;
		}
		l->nr_lines = nsf;
	}
	p->nr_locs++;
	p->loc_of[fid] = (uint32_t)p->nr_locs;
	return (long)p->nr_locs;
}

/* The unit of an event's period: cpu time for the clock events, else a count. */
static bool is_time_event(const char *name)
{
	size_t n = strcspn(name, ":/");

	return (n == 9 && !strncmp(name, "cpu-clock", 9)) ||
	       (n == 10 && !strncmp(name, "task-clock", 10));
}

/* pprof takes its first mapping for the profiled program ("File:"): the one whose file is
 * named as the command of the most samples it is on. */
static bool names_program(const char *path, const char *comm)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(comm);

	base = base ? base + 1 : path;
	/* the kernel keeps 15 bytes of a command */
	return n && (n >= 15 ? !strncmp(base, comm, n) : !strcmp(base, comm));
}

static void count_program(struct pp *p, uint32_t mapping, uint32_t stack, const char *comm,
			  uint64_t count)
{
	uint32_t dso = mapping ? p->map_dso[mapping - 1] : 0;
	struct dso_info *di = &p->dsos[dso];

	if (!mapping || !comm || di->last_stack == stack + 1)
		return;
	di->last_stack = stack + 1;
	if (di->comm != comm) {
		struct prec_dso *d = prec_hist__dso(p->h, dso);

		di->comm = comm;
		di->is_program = !prec_dso__is_kernel(d) &&
				 names_program(prec_dso__long_name(d), comm);
	}
	if (di->is_program) {
		di->program_samples += count;
		if (!p->main_map ||
		    di->program_samples > p->dsos[p->map_dso[p->main_map - 1]].program_samples)
			p->main_map = mapping;
	}
}

/* Samples packed together, as one Profile message. */
struct batch {
	Prec__Pprof__Sample smp[SAMPLE_BATCH], *smpp[SAMPLE_BATCH];
	Prec__Pprof__Label lab[SAMPLE_BATCH][3], *labp[SAMPLE_BATCH][3];
	size_t ids_at[SAMPLE_BATCH]; /* where each sample's location ids begin in ids */
	size_t bound; /* of the batch's packed size: SAMPLE_BOUND of each */
	int64_t *values; /* nr_cols per sample */
	uint64_t *ids;
	size_t n, nr_ids, cap_ids;
};

static int batch_flush(struct prec_gzip *g, struct batch *b)
{
	Prec__Pprof__Profile prof = PREC__PPROF__PROFILE__INIT;
	size_t i, bound;

	if (!b->n)
		return 0;
	for (i = 0; i < b->n; i++) /* ids may have moved as they grew */
		b->smp[i].location_id = b->ids + b->ids_at[i];
	prof.n_sample = b->n;
	prof.sample = b->smpp;
	b->n = 0;
	b->nr_ids = 0;
	bound = b->bound;
	b->bound = 0;
	return gz_pack(g, &prof.base, bound);
}

/* Pack the samples, one stack at a time, SAMPLE_BATCH to a message. */
static int write_samples(struct pp *p, struct prec_gzip *g)
{
	struct prec_hist *h = p->h;
	uint32_t nr_stacks = prec_hist__nr_stacks(h), stack, *fids = NULL;
	size_t cap = 0;
	struct batch *b = calloc(1, sizeof(*b));
	int64_t k_pid = str(p, "pid"), k_tid = str(p, "tid"), k_comm = str(p, "comm"), comm_str = 0;
	const char *comm = NULL; /* the last stack's, whose string is comm_str */
	int err = -ENOMEM;

	if (!b || k_pid < 0 || k_tid < 0 || k_comm < 0)
		goto out;
	b->values = calloc(SAMPLE_BATCH * p->nr_cols, sizeof(*b->values));
	if (!b->values)
		goto out;
	for (stack = 0; stack < nr_stacks; stack++) {
		Prec__Pprof__Sample *smp = &b->smp[b->n];
		Prec__Pprof__Label *lab = b->lab[b->n];
		int64_t *values = b->values + b->n * p->nr_cols;
		struct prec_hist_sample hs;
		struct prec_path path;
		const uint32_t *sfs;
		long n, i, id;

		n = prec_hist__stack_frames(h, stack, &path, &fids, &cap);
		if (n < 0)
			goto out;
		if (!n)
			continue;
		prec_hist__frame_sframes(h, fids[0], &sfs);
		if (!prec_hist__sframe_shown(h, sfs[0]) ||
		    (p->o->hide_unresolved && !prec_hist__frame_symbolized(h, fids[0])))
			continue;
		prec_hist__stack_sample(h, stack, &hs);
		if (grow((void **)&b->ids, &b->cap_ids, b->nr_ids + (size_t)n, sizeof(*b->ids)))
			goto out;
		b->ids_at[b->n] = b->nr_ids;
		for (i = 0; i < n; i++) {
			id = loc_of(p, fids[i]);
			if (id < 0)
				goto out;
			b->ids[b->nr_ids++] = (uint64_t)id;
			count_program(p, p->locs[id - 1].mapping, stack, hs.comm, path.count);
		}
		memset(values, 0, p->nr_cols * sizeof(*values));
		values[0] = (int64_t)path.count;
		values[p->col[hs.evsel]] = (int64_t)path.period;
		for (i = 0; i < 3; i++) {
			prec__pprof__label__init(&lab[i]);
			b->labp[b->n][i] = &lab[i];
		}
		/* Readers take a label whose str, num and num_unit are all 0 for none: pid and
		 * tid 0 get the unit go tool pprof infers for the others, named as the key. */
		lab[0].key = k_pid;
		lab[0].num = hs.pid;
		lab[0].num_unit = hs.pid ? 0 : k_pid;
		lab[1].key = k_tid;
		lab[1].num = hs.tid;
		lab[1].num_unit = hs.tid ? 0 : k_tid;
		lab[2].key = k_comm;
		if (!comm_str || hs.comm != comm) { /* stacks come mostly thread by thread */
			comm = hs.comm;
			comm_str = str(p, comm ? comm : "[unknown]");
			if (comm_str < 0)
				goto out;
		}
		lab[2].str = comm_str;
		prec__pprof__sample__init(smp);
		smp->n_location_id = (size_t)n;
		smp->n_value = p->nr_cols;
		smp->value = values;
		smp->n_label = 3;
		smp->label = b->labp[b->n];
		b->bound += SAMPLE_BOUND(n, p->nr_cols);
		b->smpp[b->n++] = smp;
		if (b->n == SAMPLE_BATCH) {
			err = batch_flush(g, b);
			if (err)
				goto out;
		}
	}
	err = batch_flush(g, b);
out:
	free(fids);
	if (b) {
		free(b->ids);
		free(b->values);
	}
	free(b);
	return err;
}

/* Each DSO's lowest and highest frame address, for its mapping. */
static int dso_ranges(struct pp *p)
{
	uint32_t n = prec_hist__nr_frames(p->h), fid;

	for (fid = 0; fid < n; fid++) {
		struct prec_hist_frame f = prec_hist__frame(p->h, fid);
		struct dso_info *di;

		if (grow_zero((void **)&p->dsos, &p->cap_dsos, (size_t)f.dso + 1, sizeof(*p->dsos)))
			return -ENOMEM;
		di = &p->dsos[f.dso];
		if (!di->hi || f.addr < di->lo)
			di->lo = f.addr;
		if (f.addr + 1 > di->hi)
			di->hi = f.addr + 1;
	}
	return 0;
}

/* The build-id of DSO d in hex, as a string index; 0 for none. */
static int64_t build_id_str(struct pp *p, struct prec_dso *d)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *b;
	size_t n = prec_dso__build_id(d, &b), i;
	char buf[2 * 64 + 1];

	if (!n || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		buf[2 * i] = hex[b[i] >> 4];
		buf[2 * i + 1] = hex[b[i] & 15];
	}
	buf[2 * n] = 0;
	return str(p, buf);
}

/* The locations, LOC_BATCH to a Profile: their messages are larger than the hist's frames,
 * made all at once they were the export's peak of memory. */
static int write_locations(struct pp *p, struct prec_gzip *g)
{
	Prec__Pprof__Profile prof = PREC__PPROF__PROFILE__INIT;
	Prec__Pprof__Location *lp = calloc(LOC_BATCH, sizeof(*lp)), **lpp;
	Prec__Pprof__Line *ln = NULL, **lnp = NULL;
	size_t cap_ln = 0, cap_lnp = 0, i, k, n, nl, bound;
	int err = -ENOMEM;

	lpp = calloc(LOC_BATCH, sizeof(*lpp));
	if (!lp || !lpp)
		goto out;
	for (i = 0; i < p->nr_locs; i += n) {
		const struct loc *l = &p->locs[i];

		n = p->nr_locs - i < LOC_BATCH ? p->nr_locs - i : LOC_BATCH;
		nl = l[n - 1].line_start + l[n - 1].nr_lines - l[0].line_start;
		if (grow((void **)&ln, &cap_ln, nl, sizeof(*ln)) ||
		    grow((void **)&lnp, &cap_lnp, nl, sizeof(*lnp)))
			goto out;
		for (k = 0; k < nl; k++) {
			const struct line *li = &p->lines[l[0].line_start + k];

			prec__pprof__line__init(&ln[k]);
			ln[k].function_id = li->func;
			ln[k].line = li->line;
			lnp[k] = &ln[k];
		}
		for (k = 0, bound = 0; k < n; k++) {
			bound += LOCATION_BOUND(l[k].nr_lines);
			prec__pprof__location__init(&lp[k]);
			lp[k].id = i + k + 1;
			lp[k].mapping_id = l[k].mapping;
			lp[k].address = l[k].addr;
			lp[k].n_line = l[k].nr_lines;
			if (l[k].nr_lines)
				lp[k].line = lnp + (l[k].line_start - l[0].line_start);
			lpp[k] = &lp[k];
		}
		prof.n_location = n;
		prof.location = lpp;
		err = gz_pack(g, &prof.base, bound);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(lp);
	free(lpp);
	free(ln);
	free(lnp);
	return err;
}

/* A function of a symbol, by the symbol's DSO and start, for linkage_names(). */
struct func_at {
	uint32_t dso, func;
	uint64_t start;
};

static int func_at_cmp(const void *a, const void *b)
{
	const struct func_at *x = a, *y = b;

	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The system_name of the symbols' functions: their linkage names, asked of each DSO once for
 * the starts of all its functions.  Inlined functions have theirs from the DWARF already
 * (func_of()); unsymbolized ones keep their name.
 */
static int linkage_names(struct pp *p)
{
	struct func_at *fa = malloc((p->nr_funcs + 1) * sizeof(*fa));
	uint64_t *starts = malloc((p->nr_funcs + 1) * sizeof(*starts));
	const char **names = malloc((p->nr_funcs + 1) * sizeof(*names));
	size_t n = 0, i, j, k, u;
	int err = -ENOMEM;

	if (!fa || !starts || !names)
		goto out;
	for (i = 0; i < p->nr_funcs; i++) {
		const struct prec_sframe *s = prec_hist__sframe(p->h, p->funcs[i].sf);

		if (s->kind != PREC_SF_SYM || !s->dso || s->kernel)
			continue;
		fa[n].dso = s->dso;
		fa[n].func = (uint32_t)i;
		fa[n].start = s->addr;
		n++;
	}
	qsort(fa, n, sizeof(*fa), func_at_cmp);
	for (i = 0; i < n; i = j) {
		struct prec_dso *d = prec_hist__dso(p->h, fa[i].dso);

		for (j = i, u = 0; j < n && fa[j].dso == fa[i].dso; j++)
			if (!u || starts[u - 1] != fa[j].start)
				starts[u++] = fa[j].start;
		err = prec_dso__linkage_names(d, starts, u, names);
		if (err)
			goto out;
		for (k = i, u = 0; k < j; k++) {
			int64_t id;

			if (k > i && fa[k].start != fa[k - 1].start)
				u++;
			if (!names[u])
				continue;
			id = str(p, names[u]);
			if (id < 0) {
				err = -ENOMEM;
				goto out;
			}
			p->funcs[fa[k].func].system_name = id;
		}
	}
	err = 0;
out:
	free(fa);
	free(starts);
	free(names);
	return err;
}

/*
 * Everything the samples refer to, in the order of its fields in one Profile: the sample
 * types and mappings, the locations, then the functions, strings, times and period.
 */
static int write_tables(struct pp *p, struct prec_gzip *g, int64_t *types, int64_t *units,
			int64_t period)
{
	Prec__Pprof__Profile prof = PREC__PPROF__PROFILE__INIT;
	Prec__Pprof__ValueType *vt = NULL, **vtp = NULL, period_type = PREC__PPROF__VALUE_TYPE__INIT;
	Prec__Pprof__Mapping *mp = NULL, **mpp = NULL;
	Prec__Pprof__Function *fn = NULL, **fnp = NULL;
	struct prec_keyset bids; /* the build-ids given to a mapping, by string index */
	char **strs = NULL;
	size_t i, nstr;
	int err = -ENOMEM;

	prec_keyset__init(&bids, sizeof(int64_t));

	vt = calloc(p->nr_cols, sizeof(*vt));
	vtp = calloc(p->nr_cols, sizeof(*vtp));
	mp = calloc(p->nr_maps + 1, sizeof(*mp));
	mpp = calloc(p->nr_maps + 1, sizeof(*mpp));
	fn = calloc(p->nr_funcs + 1, sizeof(*fn));
	fnp = calloc(p->nr_funcs + 1, sizeof(*fnp));
	if (!vt || !vtp || !mp || !mpp || !fn || !fnp)
		goto out;
	for (i = 0; i < p->nr_cols; i++) {
		prec__pprof__value_type__init(&vt[i]);
		vt[i].type = types[i];
		vt[i].unit = units[i];
		vtp[i] = &vt[i];
	}
	for (i = 0; i < p->nr_maps; i++) {
		uint32_t dso = p->map_dso[i];
		struct prec_dso *d = prec_hist__dso(p->h, dso);
		const struct dso_info *di = &p->dsos[dso];
		bool ok = prec_dso__status(d) == PREC_DSO_OK;

		prec__pprof__mapping__init(&mp[i]);
		mp[i].id = i + 1;
		mp[i].memory_start = di->lo;
		mp[i].memory_limit = di->hi;
		mp[i].file_offset = prec_dso__is_kernel(d) ? 0 : di->lo;
		mp[i].filename = str(p, prec_dso__long_name(d));
		mp[i].build_id = build_id_str(p, d);
		if (mp[i].filename < 0 || mp[i].build_id < 0)
			goto out;
		/* A copy of a file at another path (same build-id) is a mapping of its own, as
		 * it is a DSO of its own in every view; but go tool pprof merges mappings of the
		 * same build-id, size and offset (under the first one's name) as it reads them.
		 * The first path keeps the build-id, the others are told apart by their names. */
		if (mp[i].build_id) {
			bool is_new;

			if (prec_keyset__intern(&bids, &mp[i].build_id, &is_new) < 0)
				goto out;
			if (!is_new)
				mp[i].build_id = 0;
		}
		mp[i].has_functions = ok;
		mp[i].has_filenames = ok && di->lines;
		mp[i].has_line_numbers = ok && di->lines;
		mp[i].has_inline_frames = ok && di->lines && prec_hist__opts(p->h)->inline_frames;
		mpp[i] = &mp[i];
	}
	if (p->main_map > 1) { /* the main binary first, ids unchanged */
		memmove(mpp + 1, mpp, (p->main_map - 1) * sizeof(*mpp));
		mpp[0] = &mp[p->main_map - 1];
	}
	prof.n_sample_type = p->nr_cols;
	prof.sample_type = vtp;
	prof.n_mapping = p->nr_maps;
	prof.mapping = mpp;
	err = gz_pack(g, &prof.base, 0);
	if (!err)
		err = write_locations(p, g);
	if (err)
		goto out;
	err = -ENOMEM;
	for (i = 0; i < p->nr_funcs; i++) {
		prec__pprof__function__init(&fn[i]);
		fn[i].id = i + 1;
		fn[i].name = p->funcs[i].name;
		/* go tool pprof demangles and cuts down (template arguments, parameters) a name
		 * that equals its system_name: none unless it is another name */
		if (p->funcs[i].system_name != p->funcs[i].name)
			fn[i].system_name = p->funcs[i].system_name;
		fn[i].filename = p->funcs[i].filename;
		fn[i].start_line = p->funcs[i].start_line;
		fnp[i] = &fn[i];
	}
	/* last: the mappings added their names */
	nstr = p->str_ids.n + 1;
	strs = calloc(nstr, sizeof(*strs));
	if (!strs)
		goto out;
	strs[0] = "";
	for (i = 1; i < nstr; i++)
		strs[i] = (char *)p->strs[i - 1];
	prec__pprof__profile__init(&prof);
	prof.n_function = p->nr_funcs;
	prof.function = fnp;
	prof.n_string_table = nstr;
	prof.string_table = strs;
	prof.time_nanos = (int64_t)p->o->time_nanos;
	prof.duration_nanos = (int64_t)p->o->duration_nanos;
	if (p->nr_cols > 1) {
		period_type.type = types[1];
		period_type.unit = units[1];
		prof.period_type = &period_type;
		prof.period = period;
		prof.default_sample_type = types[1];
	}
	err = gz_pack(g, &prof.base, 0);
out:
	free(vt);
	free(vtp);
	free(mp);
	free(mpp);
	free(fn);
	free(fnp);
	free(strs);
	prec_keyset__release(&bids);
	return err;
}

/* Whether event e has a column: it has samples, or no event has and it is not a dummy (a
 * profile of an empty range says what was recorded all the same). */
static bool has_column(struct pp *p, uint32_t e, bool none_sampled)
{
	return none_sampled ? !p->o->events[e].dummy : prec_hist__event(p->h, e)->nr_samples > 0;
}

/* The value columns: samples, then one per event with samples.  0 or -ENOMEM. */
static int columns(struct pp *p, int64_t **ret_types, int64_t **ret_units, int64_t *ret_period)
{
	uint32_t nev = prec_hist__nr_events(p->h), e, sampled = 0;
	int64_t *types, *units;
	bool none;

	for (e = 0; e < nev; e++)
		sampled += prec_hist__event(p->h, e)->nr_samples > 0;
	none = !sampled;
	for (e = 0; none && e < nev; e++)
		sampled += has_column(p, e, none);
	p->col = calloc(nev, sizeof(*p->col));
	types = calloc((size_t)sampled + 1, sizeof(*types));
	units = calloc((size_t)sampled + 1, sizeof(*units));
	*ret_types = types;
	*ret_units = units;
	if (!p->col || !types || !units)
		return -ENOMEM;
	types[0] = str(p, "samples");
	units[0] = str(p, "count");
	p->nr_cols = 1;
	*ret_period = 0;
	for (e = 0; e < nev; e++) {
		const struct prec_evsel_stats *st = prec_hist__event(p->h, e);
		const char *name = p->o->events[e].name ? p->o->events[e].name : "events";
		bool t = is_time_event(name);
		size_t c = p->nr_cols;

		if (!has_column(p, e, none))
			continue;
		/* one event: pprof's usual names; more: each by its own */
		types[c] = str(p, sampled == 1 ? (t ? "cpu" : "events") : name);
		units[c] = str(p, t ? "nanoseconds" : "count");
		if (c == 1) /* the period of the first: its mean, else its attr's */
			*ret_period = st->nr_samples ? (int64_t)(st->period / st->nr_samples)
						     : (int64_t)p->o->events[e].fixed_period;
		p->col[e] = (int64_t)c;
		p->nr_cols++;
	}
	for (e = 0; e < p->nr_cols; e++)
		if (types[e] < 0 || units[e] < 0)
			return -ENOMEM;
	return 0;
}

int prec_pprof__write(struct prec_hist *h, const struct prec_pprof_opts *o, FILE *out)
{
	struct prec_gzip *g = NULL;
	int64_t *types = NULL, *units = NULL, period;
	struct pp p;
	int err, err2;

	memset(&p, 0, sizeof(p));
	p.h = h;
	p.o = o;
	prec_keyset__init(&p.str_ids, sizeof(uintptr_t));
	/* level 1: a file 13% larger than the default level's for half the CPU */
	err = prec_gzip__open(out, Z_BEST_SPEED, &g);
	if (err)
		goto out;
	p.loc_of = calloc((size_t)prec_hist__nr_frames(h) + 1, sizeof(*p.loc_of));
	if (!p.loc_of)
		err = -ENOMEM;
	if (!err)
		err = dso_ranges(&p);
	if (!err)
		err = columns(&p, &types, &units, &period);
	if (!err)
		err = write_samples(&p, g);
	if (!err)
		err = linkage_names(&p);
	if (!err)
		err = write_tables(&p, g, types, units, period);
	err2 = prec_gzip__close(g);
	if (!err)
		err = err2;
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
out:
	free(types);
	free(units);
	free(p.col);
	free(p.loc_of);
	free(p.locs);
	free(p.lines);
	free(p.func_of);
	free(p.funcs);
	free(p.dsos);
	free(p.map_dso);
	free(p.strs);
	prec_keyset__release(&p.str_ids);
	prec_strset__release(&p.text);
	return err;
}
