/* SPDX-License-Identifier: MIT */
/*
 * The symtab: one prec_dso per (path, build-id), kernel, or JIT map, each loaded on its first
 * question; finding the file to read (--symfs, the recorded path, the build-id directory,
 * .gnu_debuglink); the binary search over the sorted symbol array (prec_symvec.c) every
 * loader fills.
 *
 * Invariants: a DSO's symbol array is sorted by start, holds one symbol per start address,
 * and each entry's `up` names the nearest earlier entry whose range reaches past its start, so
 * a lookup is one binary search plus a walk up nested ranges (none in ordinary files).  A
 * file whose build-id differs from the recorded one is never read for symbols, nor, when no
 * build-id was recorded, a file at the recorded path that is not the recorded inode.  A lookup
 * allocates nothing, except the demangled name of a symbol it returns for the first time.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

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

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
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
		if (has_prefix(path, anon[i])) {
			*ret_short = "[unknown]";
			return PREC_DSO_KIND_ANON;
		}
	}
	/* "/memfd:..." is a file to perf 6.1 (one that cannot be opened): so here too */
	if (path[0] == '[' || has_prefix(path, "/SYSV") || !path[0])
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
	if (has_prefix(path, "[kernel.kallsyms]"))
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

/* ---- finding files ---- */

bool prec_build_id_match(const uint8_t *rec, size_t rec_len, const uint8_t *file, size_t file_len)
{
	size_t i;

	/* perf pads build-ids to 20 bytes with zeros */
	if (!file_len || rec_len < file_len || memcmp(rec, file, file_len))
		return false;
	for (i = file_len; i < rec_len; i++)
		if (rec[i])
			return false;
	return true;
}

/* The build-id to expect of a debug file: the recorded one, else the executable's. */
static bool expected_build_id(const struct prec_dso *d, const uint8_t **ret, size_t *ret_len)
{
	static const uint8_t zero4[4];

	if (d->build_id_len && d->build_id_len != 0xff) {
		*ret = d->build_id;
		*ret_len = d->build_id_len;
		/* perf pads md5 build-ids to 20 bytes; the file tells the true length */
		if (d->file_build_id_len &&
		    prec_build_id_match(d->build_id, d->build_id_len, d->file_build_id,
					d->file_build_id_len))
			*ret_len = d->file_build_id_len;
		else if (*ret_len == PREC_BUILD_ID_SIZE && !memcmp(d->build_id + 16, zero4, 4))
			*ret_len = 16;
		return true;
	}
	if (d->file_build_id_len) {
		*ret = d->file_build_id;
		*ret_len = d->file_build_id_len;
		return true;
	}
	return false;
}

static bool join(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, len, "%s%s%s", a, b, c ? c : "");

	return n > 0 && (size_t)n < len;
}

static bool try_debug(struct prec_dso *d, const char *path, const uint8_t *bid, size_t bid_len,
		      bool check_crc, struct prec_elf *ret, const char **ret_path)
{
	struct prec_elf pe;

	if (d->runtime_path && !strcmp(path, d->runtime_path))
		return false;
	if (prec_elf_open(path, &pe) != PREC_OPEN_OK)
		return false;
	if (bid_len && pe.build_id_len) {
		if (!prec_build_id_match(bid, bid_len, pe.build_id, pe.build_id_len))
			goto reject;
	} else if (bid_len) {
		goto reject;
	} else if (check_crc) {
		uint32_t crc;

		if (prec_elf_crc32(pe.elf, &crc) || crc != d->debuglink_crc)
			goto reject;
	}
	*ret_path = prec_symtab__intern(d->st, path);
	if (!*ret_path)
		goto reject;
	*ret = pe;
	return true;
reject:
	prec_debug("%s: does not match %s; ignored", path, d->long_name);
	prec_elf_close(&pe);
	return false;
}

enum prec_open_result prec_dso__open_debug_file(struct prec_dso *d, struct prec_elf *ret,
						const char **ret_path)
{
	const struct prec_symtab_opts *o = &d->st->opts;
	const uint8_t *bid = NULL;
	size_t bid_len = 0, i;
	char path[PATH_MAX], hex[2 * PREC_FILE_BUILD_ID_MAX + 1], dir[PATH_MAX];
	const char *slash;

	if (expected_build_id(d, &bid, &bid_len)) {
		for (i = 0; i < bid_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", bid[i]);
		/* <debug_dir>/.build-id/ab/cdef....debug, under --symfs when given */
		if (o->symfs && join(dir, sizeof(dir), o->symfs, o->debug_dir, NULL) &&
		    snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2) <
			(int)sizeof(path) &&
		    try_debug(d, path, bid, bid_len, false, ret, ret_path))
			return PREC_OPEN_OK;
		if (!o->symfs &&
		    snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", o->debug_dir, hex,
			     hex + 2) < (int)sizeof(path) &&
		    try_debug(d, path, bid, bid_len, false, ret, ret_path))
			return PREC_OPEN_OK;
	}
	if (!d->debuglink || !d->runtime_path)
		return PREC_OPEN_MISSING;
	/* .gnu_debuglink: next to the file, in .debug/ beside it, under debug_dir + its dir */
	slash = strrchr(d->runtime_path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - d->runtime_path) : 1,
		 slash ? d->runtime_path : ".");
	if (join(path, sizeof(path), dir, "/", d->debuglink) &&
	    try_debug(d, path, bid, bid_len, true, ret, ret_path))
		return PREC_OPEN_OK;
	if (join(path, sizeof(path), dir, "/.debug/", d->debuglink) &&
	    try_debug(d, path, bid, bid_len, true, ret, ret_path))
		return PREC_OPEN_OK;
	slash = strrchr(d->long_name, '/');
	if (slash && d->long_name[0] == '/' &&
	    snprintf(path, sizeof(path), "%s%s%.*s/%s", o->symfs ? o->symfs : "", o->debug_dir,
		     (int)(slash - d->long_name), d->long_name, d->debuglink) < (int)sizeof(path) &&
	    try_debug(d, path, bid, bid_len, true, ret, ret_path))
		return PREC_OPEN_OK;
	return PREC_OPEN_MISSING;
}

/*
 * Whether `pe`, opened at the recorded path, is the file d's record names (d has no
 * build-id).  The inode must be the recorded one, and so must the generation where both are
 * known.  The device must be too, except that an anonymous device (major 0) on one side is
 * what overlayfs and btrfs show stat() while the kernel's records name the device below, and
 * that equal nonzero generations vouch for a disk whose numbers changed since (a reboot).
 */
static bool same_file(const struct prec_dso *d, const struct prec_elf *pe, const char *path)
{
	const struct prec_file_id *f = &d->fid;
	bool gen_equal = f->gen && pe->gen_known && f->gen == pe->gen;

	if (pe->ino != f->ino || (f->gen && pe->gen_known && f->gen != pe->gen))
		return false;
	if (pe->dev_major == f->maj && pe->dev_minor == f->min)
		return true;
	if (!pe->dev_major || !f->maj || gen_equal) {
		prec_debug("%s: inode %" PRIu64 " as recorded, on device %u:%u, recorded as %u:%u; "
			   "taken as the same file",
			   path, f->ino, pe->dev_major, pe->dev_minor, f->maj, f->min);
		return true;
	}
	return false;
}

static void set_failed(struct prec_dso *d, bool mismatch, bool changed, bool bad)
{
	d->status = mismatch  ? PREC_DSO_BUILDID_MISMATCH
		    : changed ? PREC_DSO_FILE_CHANGED
		    : bad     ? PREC_DSO_BAD_FILE
			      : PREC_DSO_NOT_FOUND;
}

/* Finish a load: symbols from `syms`, segments and PLT from `runtime`; keeps syms mapped. */
static void load_from(struct prec_dso *d, struct prec_elf *syms, struct prec_elf *runtime,
		      const char *used)
{
	int err = prec_elf_load_syms(d, syms, runtime);

	if (err) {
		if (err == -EBADMSG)
			prec_warn("%s: malformed symbol table; not used for symbols", used);
		else if (err == -E2BIG)
			prec_warn("%s: symbol table larger than the limit of %u symbols (a corrupt "
				  "or crafted file?); not used for symbols",
				  used, PREC_SYMS_MAX);
		else
			prec_warn("%s: cannot load symbols: %s", used, strerror(-err));
		free(d->segs);
		d->segs = NULL;
		d->nsegs = 0;
		d->status =
		    err == -EBADMSG || err == -E2BIG ? PREC_DSO_BAD_FILE : PREC_DSO_NO_SYMBOLS;
		return;
	}
	d->file_used = used;
	d->status = d->nsyms ? PREC_DSO_OK : PREC_DSO_NO_SYMBOLS;
	d->elf = syms->elf;
	syms->elf = NULL;
}

static void load_elf(struct prec_dso *d)
{
	struct prec_symtab *st = d->st;
	const char *paths[4];
	char bufs[4][PATH_MAX];
	char stripped[PATH_MAX];
	const char *path = d->long_name, *dbg_path = NULL;
	struct prec_elf rt = { 0 }, dbg = { 0 };
	bool have_rt = false, have_dbg = false, mismatch = false, changed = false, bad = false;
	bool is_deleted;
	size_t n = 0, n_symfs, i, len = strlen(path);
	static const char deleted[] = " (deleted)";

	if (d->build_id_len == 0xff) {
		d->status = PREC_DSO_BUILDID_MISMATCH;
		return;
	}
	/* a file deleted or replaced while mapped: its old self may still be under its old
	 * name, or another file may be; only a build-id can tell */
	stripped[0] = 0;
	is_deleted = len > sizeof(deleted) - 1 &&
		     !strcmp(path + len - (sizeof(deleted) - 1), deleted) &&
		     !has_prefix(path, "/memfd:"); /* never had a name to open: not found */
	if (is_deleted && d->build_id_len)
		snprintf(stripped, sizeof(stripped), "%.*s", (int)(len - (sizeof(deleted) - 1)),
			 path);
	if (st->opts.symfs) {
		if (join(bufs[n], PATH_MAX, st->opts.symfs, path, NULL))
			paths[n] = bufs[n], n++;
		if (stripped[0] && join(bufs[n], PATH_MAX, st->opts.symfs, stripped, NULL))
			paths[n] = bufs[n], n++;
	}
	n_symfs = n; /* files under --symfs are trusted, not checked by inode */
	if (!st->opts.symfs) { /* --symfs is the recorded machine's root: no host file */
		paths[n++] = path;
		if (stripped[0])
			paths[n++] = stripped;
	}

	for (i = 0; i < n && !have_rt; i++) {
		switch (prec_elf_open(paths[i], &rt)) {
		case PREC_OPEN_MISSING:
			break;
		case PREC_OPEN_BAD:
			bad = true;
			break;
		case PREC_OPEN_OK:
			if (d->build_id_len && !prec_build_id_match(d->build_id, d->build_id_len,
								    rt.build_id, rt.build_id_len)) {
				prec_debug("%s: build-id differs from the recorded one; ignored",
					   paths[i]);
				mismatch = true;
				prec_elf_close(&rt);
				break;
			}
			/* the host's file at the recorded path: it must be the recorded inode */
			if (!d->build_id_len && d->fid.ino && i >= n_symfs &&
			    !same_file(d, &rt, paths[i])) {
				prec_debug("%s: not the file recorded (inode %" PRIu64 " on %u:%u, "
					   "recorded %" PRIu64 " on %u:%u); ignored",
					   paths[i], rt.ino, rt.dev_major, rt.dev_minor, d->fid.ino,
					   d->fid.maj, d->fid.min);
				changed = true;
				prec_elf_close(&rt);
				break;
			}
			have_rt = true;
			d->runtime_path = prec_symtab__intern(st, paths[i]);
			memcpy(d->file_build_id, rt.build_id, sizeof(d->file_build_id));
			d->file_build_id_len = rt.build_id_len;
			d->debuglink = prec_elf_debuglink(rt.elf, &d->debuglink_crc);
			if (d->debuglink)
				d->debuglink = prec_symtab__intern(st, d->debuglink);
			break;
		}
	}
	if (have_rt && !d->runtime_path) {
		prec_elf_close(&rt);
		d->status = PREC_DSO_NO_SYMBOLS;
		return;
	}
	/* a stripped executable: symbols from its debug file, addresses from itself */
	if (!have_rt || !rt.has_symtab) {
		if (prec_dso__open_debug_file(d, &dbg, &dbg_path) == PREC_OPEN_OK) {
			if (dbg.has_symtab)
				have_dbg = true;
			else
				prec_elf_close(&dbg);
		}
	}
	if (have_dbg)
		load_from(d, &dbg, have_rt ? &rt : NULL, dbg_path);
	else if (have_rt)
		load_from(d, &rt, &rt, d->runtime_path);
	else if (is_deleted && !d->build_id_len && !mismatch && !changed && !bad)
		d->status = PREC_DSO_DELETED;
	else
		set_failed(d, mismatch, changed, bad);
	prec_elf_close(&dbg);
	prec_elf_close(&rt);
}

/* This process's vdso, which is the recorded one when the recording was made on this host. */
static void load_vdso(struct prec_dso *d)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long lo, hi;
	struct prec_elf pe;
	char line[512];
	size_t size = 0;
	FILE *f;

	d->status = PREC_DSO_NO_FILE;
	if (!d->st->opts.use_proc_kallsyms || !base)
		return;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    lo == base && hi > lo && hi - lo <= (1u << 20))
			size = (size_t)(hi - lo);
	}
	fclose(f);
	if (!size)
		return;
	d->image = malloc(size);
	if (!d->image)
		return;
	memcpy(d->image, (const void *)base, size);
	if (prec_elf_open_mem(d->image, size, "[vdso]", &pe) != PREC_OPEN_OK) {
		d->status = PREC_DSO_BAD_FILE;
		return;
	}
	if (d->build_id_len &&
	    !prec_build_id_match(d->build_id, d->build_id_len, pe.build_id, pe.build_id_len)) {
		d->status = PREC_DSO_BUILDID_MISMATCH;
	} else {
		d->runtime_path = d->long_name;
		load_from(d, &pe, &pe, d->long_name);
	}
	prec_elf_close(&pe);
}

static void load_kernel(struct prec_dso *d)
{
	struct prec_symtab *st = d->st;
	const char *path = st->opts.kallsyms;
	bool proc = !path && st->opts.use_proc_kallsyms;
	int err;

	if (proc)
		path = st->opts.proc_kallsyms;
	if (!path) {
		d->status = PREC_DSO_NOT_FOUND;
		return;
	}
	err = proc && !prec_kcache_load(d) ? 0 : prec_kallsyms_load(d, path);
	if (!err && proc && !d->kpartial)
		prec_kcache_store(d);
	switch (err) {
	case 0:
		d->file_used = path;
		d->status = d->nsyms || d->kc ? PREC_DSO_OK : PREC_DSO_NO_SYMBOLS;
		break;
	case -ENOENT:
		d->status = PREC_DSO_NOT_FOUND;
		break;
	case -ENODATA:
		if (!st->warned_kptr)
			prec_warn("%s: every kernel address is 0 (kernel.kptr_restrict); kernel "
				  "symbols unavailable; run as root or lower kptr_restrict",
				  path);
		st->warned_kptr = true;
		d->status = PREC_DSO_NO_SYMBOLS;
		break;
	case -ENOMEM:
		d->status = PREC_DSO_NO_SYMBOLS;
		break;
	default:
		d->status = PREC_DSO_BAD_FILE;
		break;
	}
}

static void load_jit(struct prec_dso *d)
{
	int err = prec_jitmap_load(d, d->long_name);

	if (!err) {
		d->file_used = d->long_name;
		d->status = d->nsyms ? PREC_DSO_OK : PREC_DSO_NO_SYMBOLS;
	} else if (err == -ENOENT) {
		d->status = PREC_DSO_NOT_FOUND;
	} else if (err == -ENOMEM) {
		d->status = PREC_DSO_NO_SYMBOLS;
	} else {
		d->status = PREC_DSO_BAD_FILE;
	}
}

static void load(struct prec_dso *d)
{
	switch (d->kind) {
	case PREC_DSO_KIND_ELF:
		load_elf(d);
		break;
	case PREC_DSO_KIND_VDSO:
		load_vdso(d);
		break;
	case PREC_DSO_KIND_KERNEL:
		load_kernel(d);
		break;
	case PREC_DSO_KIND_JIT:
		load_jit(d);
		break;
	case PREC_DSO_KIND_ANON:
		d->status = PREC_DSO_NO_FILE;
		break;
	}
	if (d->status == PREC_DSO_UNLOADED)
		d->status = PREC_DSO_NO_SYMBOLS;
	if (d->status != PREC_DSO_OK) {
		free(d->syms);
		d->syms = NULL;
		d->nsyms = 0;
	}
}

/* ---- DSO queries ---- */

enum prec_dso_status prec_dso__status(struct prec_dso *d)
{
	if (d->status == PREC_DSO_UNLOADED)
		load(d);
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
	       (has_prefix(s->name, "__pfx_") || has_prefix(s->name, "__cfi_"));
}

int prec_dso__lookup(struct prec_dso *d, uint64_t addr, struct prec_sym *ret, uint64_t *ret_vaddr)
{
	struct prec_sym s, next;
	uint64_t v;

	if (d->status != PREC_DSO_OK) {
		if (d->status == PREC_DSO_UNLOADED)
			load(d);
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
