/* SPDX-License-Identifier: MIT */
/*
 * The symtab and its DSOs: one prec_dso per (path, build-id or recorded inode), per kernel,
 * per JIT map, made on first mention with the names perf shows for it; the JIT maps present,
 * listed once; a DSO's status and names.  A DSO's symbols are loaded on its first question
 * (prec_dsoload.c) and looked up in prec_symlookup.c.
 *
 * Invariants: a DSO is made once per key and lives as long as the symtab; a key is never
 * stored without its DSO.  Names are interned in the symtab (under its lock: the background
 * loader interns too).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prec_buf.h"
#include "prec_symbol_int.h"

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
