/* SPDX-License-Identifier: MIT */
/*
 * The symtab: one prec_dso per (path, build-id), kernel, or JIT map, each loaded on its first
 * question (prec_dsoload.c); the binary search over the sorted symbol array (prec_symvec.c)
 * every loader fills, and the names a lookup returns.
 *
 * Invariants: a DSO's symbol array is sorted by start, holds one symbol per start address,
 * and each entry's `up` names the nearest earlier entry whose range reaches past its start, so
 * a lookup is one binary search plus a walk up nested ranges (none in ordinary files).  A
 * lookup allocates nothing, except the demangled name of a symbol it returns for the first time.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_log.h"
#include "prec_symbol_int.h"

#ifdef PREC_HAVE_DEMANGLE
#include <libiberty/demangle.h>
#endif

/* ---- symtab ---- */

struct dso_key {
	const char *path;
	uint32_t pid;
	uint8_t kind;
	uint8_t bid_len;
	uint8_t pad[2];
	uint8_t bid[PREC_FILE_BUILD_ID_MAX];
	/* without a build-id: the recorded device and inode (not the generation, which maps
	 * read from /proc lack: they and the kernel's records of the file are one DSO) */
	uint32_t maj, min;
	uint64_t ino;
};

const char *prec_symtab__intern(struct prec_symtab *st, const char *s)
{
	return prec_symtab__intern_n(st, s, strlen(s));
}

const char *prec_symtab__intern_n(struct prec_symtab *st, const char *s, size_t len)
{
	const char *r;

	pthread_mutex_lock(&st->strs_lock);
	r = prec_strset__intern_n(&st->strs, s, len);
	pthread_mutex_unlock(&st->strs_lock);
	return r;
}

int prec_symtab__new(const struct prec_symtab_opts *opts, struct prec_symtab **ret)
{
	struct prec_symtab *st;
	struct prec_symtab_opts o = { 0 };

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	if (opts)
		o = *opts;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->strs_lock, NULL);
	prec_keyset__init(&st->keys, sizeof(struct dso_key));
	prec_keyset__init(&st->jit_pids, sizeof(uint64_t));
	st->opts.use_proc_kallsyms = o.use_proc_kallsyms;
	st->opts.no_demangle = o.no_demangle;
	if ((o.symfs && o.symfs[0] && !(st->opts.symfs = prec_symtab__intern(st, o.symfs))) ||
	    (o.kallsyms && !(st->opts.kallsyms = prec_symtab__intern(st, o.kallsyms))) ||
	    !(st->opts.debug_dir = prec_symtab__intern(
		  st, o.debug_dir && o.debug_dir[0] ? o.debug_dir : "/usr/lib/debug")) ||
	    !(st->opts.jit_dir =
		  prec_symtab__intern(st, o.jit_dir && o.jit_dir[0] ? o.jit_dir : "/tmp")) ||
	    (o.cache_dir && o.cache_dir[0] &&
	     !(st->opts.cache_dir = prec_symtab__intern(st, o.cache_dir))) ||
	    !(st->opts.proc_kallsyms = prec_symtab__intern(
		  st, o.proc_kallsyms && o.proc_kallsyms[0] ? o.proc_kallsyms : "/proc/kallsyms")) ||
	    !(st->opts.boot_id_file = prec_symtab__intern(
		  st, o.boot_id_file && o.boot_id_file[0] ? o.boot_id_file
							  : "/proc/sys/kernel/random/boot_id"))) {
		prec_symtab__free(st);
		return -ENOMEM;
	}
	*ret = st;
	return 0;
}

static void dso_free(struct prec_dso *d)
{
	prec_dso__cfi_free(d);
	prec_dwarf__free(d->dwarf);
	elf_end(d->elf);
	free(d->image);
	free(d->syms);
	free(d->segs);
	prec_kcache_free(d->kc);
	free(d);
}

void prec_symtab__free(struct prec_symtab *st)
{
	uint32_t i;

	if (!st)
		return;
	prec_symtab__loader_stop(st);
	for (i = 0; i < st->ndsos; i++)
		dso_free(st->dsos[i]);
	free(st->dsos);
	free(st->modules);
	prec_keyset__release(&st->keys);
	prec_keyset__release(&st->jit_pids);
	prec_strset__release(&st->strs);
	pthread_mutex_destroy(&st->strs_lock);
	free(st);
}

static bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);

	return n >= m && !memcmp(s + n - m, x, m);
}

/* Mappings with no file to read; the short name perf shows for them. */
static enum prec_dso_kind classify(const char *path, const char **ret_short)
{
	static const char *const anon[] = {"//anon", "/dev/zero", "/anon_hugepage", "[anon"};
	size_t i;

	*ret_short = NULL;
	if (!strcmp(path, "[vdso]"))
		return PREC_DSO_KIND_VDSO;
	for (i = 0; i < sizeof(anon) / sizeof(anon[0]); i++) {
		if (prec_has_prefix(path, anon[i])) {
			*ret_short = "[unknown]";
			return PREC_DSO_KIND_ANON;
		}
	}
	/* "/memfd:..." is a file to perf 6.1 (one that cannot be opened): so here too */
	if (path[0] == '[' || prec_has_prefix(path, "/SYSV") || !path[0])
		return PREC_DSO_KIND_ANON;
	return PREC_DSO_KIND_ELF;
}

static struct prec_dso *dso_get(struct prec_symtab *st, const struct dso_key *k,
				const char *long_name, const char *short_name)
{
	struct prec_dso *d;
	long id;

	id = prec_keyset__find(&st->keys, k);
	if (id >= 0)
		return st->dsos[id];
	/* everything that can fail comes before the key is added, which then cannot leave a
	 * key without its DSO */
	if (prec_array__grow((void **)&st->dsos, &st->capdsos, (size_t)st->ndsos + 1,
			     sizeof(*st->dsos), 64))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->st = st;
	d->kind = k->kind;
	d->long_name = prec_symtab__intern(st, long_name);
	d->short_name = prec_symtab__intern(st, short_name);
	d->pid = k->pid;
	d->build_id_len = k->bid_len;
	memcpy(d->build_id, k->bid, sizeof(d->build_id));
	d->fid.maj = k->maj;
	d->fid.min = k->min;
	d->fid.ino = k->ino;
	if (!d->long_name || !d->short_name || prec_keyset__intern(&st->keys, k, NULL) < 0) {
		free(d);
		return NULL;
	}
	st->dsos[st->ndsos++] = d;
	return d;
}

struct prec_dso *prec_symtab__dso(struct prec_symtab *st, const char *path, const uint8_t *build_id,
				  size_t build_id_len)
{
	return prec_symtab__dso_file(st, path, build_id, build_id_len, NULL);
}

struct prec_dso *prec_symtab__dso_file(struct prec_symtab *st, const char *path,
				       const uint8_t *build_id, size_t build_id_len,
				       const struct prec_file_id *id)
{
	struct prec_dso *d;
	struct dso_key k;
	const char *short_name, *slash;
	uint32_t n;

	if (!path)
		path = "";
	if (prec_has_prefix(path, "[kernel.kallsyms]"))
		return prec_symtab__kernel(st);
	memset(&k, 0, sizeof(k));
	k.kind = (uint8_t)classify(path, &short_name);
	k.path = prec_symtab__intern(st, path);
	if (!k.path)
		return NULL;
	if (build_id && build_id_len) {
		if (build_id_len > PREC_FILE_BUILD_ID_MAX) {
			k.bid_len = 0xff;
		} else {
			k.bid_len = (uint8_t)build_id_len;
			memcpy(k.bid, build_id, build_id_len);
		}
	} else if (id && id->ino && k.kind == PREC_DSO_KIND_ELF) {
		k.maj = id->maj;
		k.min = id->min;
		k.ino = id->ino;
	}
	if (!short_name) {
		slash = strrchr(path, '/');
		short_name = slash && slash[1] ? slash + 1 : path;
	}
	if (!path[0])
		short_name = "[unknown]";
	n = st->ndsos;
	d = dso_get(st, &k, path, short_name);
	/* the map that made the DSO tells the generation: set before anyone can queue it for
	 * the loader, never after (a DSO made from /proc's maps is checked without one) */
	if (d && k.ino && st->ndsos > n)
		d->fid.gen = id->gen;
	return d;
}

struct prec_dso *prec_symtab__kernel(struct prec_symtab *st)
{
	struct dso_key k;

	if (st->kernel)
		return st->kernel;
	memset(&k, 0, sizeof(k));
	k.kind = PREC_DSO_KIND_KERNEL;
	st->kernel = dso_get(st, &k, "[kernel.kallsyms]", "[kernel.kallsyms]");
	return st->kernel;
}

/* The pid of a file name "perf-PID.map", or -1. */
static int64_t jit_map_pid(const char *name)
{
	uint64_t pid = 0;
	const char *p;

	if (strncmp(name, "perf-", 5))
		return -1;
	for (p = name + 5; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (uint64_t)(*p - '0');
		if (pid > UINT32_MAX)
			return -1;
	}
	return p > name + 5 && !strcmp(p, ".map") ? (int64_t)pid : -1;
}

/*
 * List jit_dir's perf-PID.map files once.  A system-wide recording has thousands of
 * processes with addresses outside every mapping; asking the file system for each one's map
 * cost more than reading their samples.  A map written after the listing is not seen (perf
 * reads them as late as this too: when it first needs them).  When the directory cannot be
 * read, each map is looked for by name instead.
 */
static void jit_list(struct prec_symtab *st)
{
	struct dirent *de;
	DIR *dir;

	st->jit_listing = JIT_UNLISTABLE;
	dir = opendir(st->opts.jit_dir);
	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR)
			st->jit_listing = JIT_LISTED; /* no directory: no maps */
		return;
	}
	for (;;) {
		int64_t pid;
		uint64_t key;

		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		pid = jit_map_pid(de->d_name);
		if (pid < 0)
			continue;
		key = (uint64_t)pid;
		if (prec_keyset__intern(&st->jit_pids, &key, NULL) < 0)
			break;
	}
	if (!de && !errno)
		st->jit_listing = JIT_LISTED;
	closedir(dir);
}

bool prec_symtab__jit_may_exist(struct prec_symtab *st, uint32_t pid)
{
	uint64_t key = pid;

	if (st->jit_listing == JIT_UNLISTED)
		jit_list(st);
	return st->jit_listing != JIT_LISTED || prec_keyset__find(&st->jit_pids, &key) >= 0;
}

struct prec_dso *prec_symtab__jit(struct prec_symtab *st, uint32_t pid)
{
	char path[PATH_MAX], name[32];
	struct prec_dso *d;
	struct dso_key k;
	uint64_t key = pid;

	memset(&k, 0, sizeof(k));
	k.kind = PREC_DSO_KIND_JIT;
	k.pid = pid;
	snprintf(name, sizeof(name), "perf-%" PRIu32 ".map", pid);
	snprintf(path, sizeof(path), "%s/%s", st->opts.jit_dir, name);
	d = dso_get(st, &k, path, name);
	if (st->jit_listing == JIT_UNLISTED)
		jit_list(st);
	if (d && d->status == PREC_DSO_UNLOADED && st->jit_listing == JIT_LISTED &&
	    prec_keyset__find(&st->jit_pids, &key) < 0)
		d->status = PREC_DSO_NOT_FOUND; /* not listed: nothing to open */
	return d;
}

/* ---- DSO queries ---- */

enum prec_dso_status prec_dso__status(struct prec_dso *d)
{
	if (d->status == PREC_DSO_UNLOADED)
		prec_dso__load(d);
	return d->status;
}

const char *prec_dso_status__str(enum prec_dso_status s)
{
	switch (s) {
	case PREC_DSO_UNLOADED:
		return "not loaded yet";
	case PREC_DSO_OK:
		return "ok";
	case PREC_DSO_NOT_FOUND:
		return "file not found";
	case PREC_DSO_BUILDID_MISMATCH:
		return "build-id mismatch";
	case PREC_DSO_NO_SYMBOLS:
		return "no symbols";
	case PREC_DSO_BAD_FILE:
		return "not a usable ELF file";
	case PREC_DSO_NO_FILE:
		return "no file behind the mapping";
	case PREC_DSO_FILE_CHANGED:
		return "file changed since recording";
	case PREC_DSO_DELETED:
		return "file deleted while mapped";
	}
	return "unknown status";
}

const char *prec_dso__short_name(const struct prec_dso *d)
{
	return d->short_name;
}

const char *prec_dso__long_name(const struct prec_dso *d)
{
	return d->long_name;
}

const char *prec_dso__file_used(struct prec_dso *d)
{
	prec_dso__status(d);
	return d->file_used;
}

bool prec_dso__is_kernel(const struct prec_dso *d)
{
	return d->kind == PREC_DSO_KIND_KERNEL;
}

size_t prec_dso__build_id(const struct prec_dso *d, const uint8_t **ret)
{
	if (d->build_id_len && d->build_id_len <= PREC_FILE_BUILD_ID_MAX) {
		*ret = d->build_id;
		return d->build_id_len;
	}
	*ret = d->file_build_id;
	return d->file_build_id_len <= PREC_FILE_BUILD_ID_MAX ? d->file_build_id_len : 0;
}

uint64_t prec_dso__off_to_vaddr(const struct prec_dso *d, uint64_t off)
{
	const struct prec_seg *best = NULL;
	uint32_t i;

	if (d->kind != PREC_DSO_KIND_ELF && d->kind != PREC_DSO_KIND_VDSO)
		return off;
	for (i = 0; i < d->nsegs; i++) {
		const struct prec_seg *s = &d->segs[i];

		if (off >= s->off && off - s->off < s->filesz)
			return off - s->off + s->vaddr;
		if (off >= s->off && (!best || s->off > best->off))
			best = s;
	}
	return best ? off - best->off + best->vaddr : off;
}

#ifdef PREC_HAVE_DEMANGLE
char *prec_demangle(const char *name)
{
	static const char plt[] = "@plt";
	size_t len, dlen, n = sizeof(plt) - 1;
	char *base, *dm, *ret;

	/* what libiberty's demangler (Rust first, then C++) takes; perf hands it every name */
	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2) && strncmp(name, "_GLOBAL_", 8))
		return NULL;
	len = strlen(name);
	if (len <= n || strcmp(name + len - n, plt))
		return cplus_demangle(name, DMGL_NO_OPTS);
	/* perf demangles a PLT entry's symbol, then appends "@plt" (without parameters the
	 * demangler ignores what follows the name, so "@plt" would be lost) */
	base = strndup(name, len - n);
	dm = base ? cplus_demangle(base, DMGL_NO_OPTS) : NULL;
	free(base);
	if (!dm)
		return NULL;
	dlen = strlen(dm);
	ret = malloc(dlen + n + 1);
	if (ret) {
		memcpy(ret, dm, dlen);
		memcpy(ret + dlen, plt, n + 1);
	}
	free(dm);
	return ret;
}
#else
char *prec_demangle(const char *name)
{
	(void)name;
	return NULL;
}
#endif

static struct prec_syment *find_sym(const struct prec_dso *d, uint64_t a)
{
	uint32_t lo = 0, hi = d->nsyms, i;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	for (i = lo - 1; i != PREC_NO_UP; i = d->syms[i].up) {
		struct prec_syment *e = &d->syms[i];

		if (prec_sym_holds(e->start, e->end, a))
			return e;
	}
	return NULL;
}

/* The entry of d that starts at `a` and whose name has been shown, or NULL. */
static const struct prec_syment *sym_at(const struct prec_dso *d, uint64_t a)
{
	uint32_t lo = prec_syments_lower_bound(d->syms, d->nsyms, a);

	for (; lo < d->nsyms && d->syms[lo].start == a; lo++) /* PLT entries may share it */
		if (d->syms[lo].flags & PREC_SYMENT_SHOWN)
			return &d->syms[lo];
	return NULL;
}

/* Settle the name of symbol `e` of `d` for showing: demangled where perf demangles it (ELF
 * files, not the kernel or JIT maps), once. */
static void show_name(struct prec_dso *d, struct prec_syment *e)
{
	char *dm;
	const char *s;

	e->flags |= PREC_SYMENT_SHOWN;
	if (d->kintern) { /* see kernel_cover() */
		s = prec_symtab__intern(d->st, e->name);
		if (s)
			e->name = s;
		return;
	}
	if (d->st->opts.no_demangle || (d->kind != PREC_DSO_KIND_ELF && d->kind != PREC_DSO_KIND_VDSO))
		return;
	dm = prec_demangle(e->name);
	if (!dm)
		return;
	s = prec_symtab__intern(d->st, dm); /* on -ENOMEM the mangled name stays */
	free(dm);
	if (s) {
		e->name = s;
		e->flags |= PREC_SYMENT_DEMANGLED;
	}
}

/*
 * Kernel symbols from the cache cover the kernel image and what lies below it: for an
 * address above, read the live table after all (once), which also has modules, BPF and
 * trampolines.  The cache handed out interned names; the live table's are interned too when
 * first shown, so that a function looked up before and after is one name, one report entry.
 * If the read fails, addresses above stay unknown.
 */
static void kernel_cover(struct prec_dso *d, uint64_t a)
{
	if (!d->kpartial || a < d->kcover_hi)
		return;
	d->kpartial = false;
	prec_log(PREC_LOG_INFO, "kernel address %#" PRIx64 " is outside the cached symbols: "
		 "reading %s", a, d->st->opts.proc_kallsyms);
	if (!prec_kallsyms_load(d, d->st->opts.proc_kallsyms) && d->nsyms) {
		prec_kcache_free(d->kc);
		d->kc = NULL;
		d->kintern = true;
		return;
	}
	free(d->syms);
	free(d->image);
	d->image = NULL;
	d->syms = NULL;
	d->nsyms = 0;
}

/* The symbol holding `v` in d's own address space: 0 or -ENOENT. */
static int lookup_at(struct prec_dso *d, uint64_t v, struct prec_sym *ret)
{
	struct prec_syment *e;

	kernel_cover(d, v);
	if (d->kc) /* its read errors too leave the address unknown */
		return prec_kcache_lookup(d, v, ret) ? -ENOENT : 0;
	e = find_sym(d, v);
	if (!e)
		return -ENOENT;
	if (!(e->flags & PREC_SYMENT_SHOWN))
		show_name(d, e);
	ret->name = e->name;
	ret->start = e->start;
	ret->size = e->end - e->start;
	return 0;
}

/*
 * The kernel pads each function with 16 bytes of NOPs before it, named __pfx_<function> in
 * kallsyms (__cfi_<function> with kCFI, where they hold its type check).  They are the next
 * function's: an address there, or a return address at a function's first byte (looked up at
 * the byte before: an interrupted address in the middle of a chain), is that function.
 */
static bool kernel_prefix(const struct prec_dso *d, const struct prec_sym *s)
{
	return d->kind == PREC_DSO_KIND_KERNEL && s->size && s->start + s->size > s->start &&
	       (prec_has_prefix(s->name, "__pfx_") || prec_has_prefix(s->name, "__cfi_"));
}

int prec_dso__lookup(struct prec_dso *d, uint64_t addr, struct prec_sym *ret, uint64_t *ret_vaddr)
{
	struct prec_sym s, next;
	uint64_t v;

	if (d->status != PREC_DSO_OK) {
		if (d->status == PREC_DSO_UNLOADED)
			prec_dso__load(d);
		if (d->status != PREC_DSO_OK) {
			if (ret_vaddr)
				*ret_vaddr = addr;
			return -ENOENT;
		}
	}
	v = prec_dso__off_to_vaddr(d, addr);
	if (ret_vaddr)
		*ret_vaddr = v;
	if (lookup_at(d, v, &s))
		return -ENOENT;
	if (kernel_prefix(d, &s) && !lookup_at(d, s.start + s.size, &next) &&
	    next.start == s.start + s.size)
		s = next;
	if (ret)
		*ret = s;
	return 0;
}

const char *prec_dso__kernel_module(struct prec_dso *d, uint64_t addr)
{
	const struct prec_syment *e;

	if (d->kind != PREC_DSO_KIND_KERNEL || prec_dso__status(d) != PREC_DSO_OK)
		return NULL;
	kernel_cover(d, addr);
	if (d->kc) /* the kernel's own symbols: no module */
		return NULL;
	e = find_sym(d, addr);
	if (!e || !e->module || e->module > d->st->nmodules)
		return NULL;
	return d->st->modules[e->module - 1];
}

int prec_dso__linkage_names(struct prec_dso *d, const uint64_t *starts, size_t n, const char **ret)
{
	const char **want = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct prec_syment *e = NULL;

		if (d->status == PREC_DSO_OK && !d->kc)
			e = sym_at(d, starts[i]);
		ret[i] = e ? e->name : NULL;
		if (!e || !(e->flags & PREC_SYMENT_DEMANGLED))
			continue;
		ret[i] = NULL;
		if (has_suffix(e->name, "@plt")) /* named after a relocation, not in the table */
			continue;
		if (!want) {
			want = calloc(n, sizeof(*want));
			if (!want)
				return -ENOMEM;
		}
		want[i] = e->name;
	}
	if (want && d->elf)
		prec_elf_linkage_names(d, starts, want, n, ret);
	free(want);
	return 0;
}
