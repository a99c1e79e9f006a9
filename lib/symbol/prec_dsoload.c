/* SPDX-License-Identifier: MIT */
/*
 * Loading a DSO's symbols on its first question: finding the file to read (under --symfs, at
 * the recorded path, in the build-id directory, through .gnu_debuglink), checking that it is
 * the recorded one, and handing it to its loader (ELF, this process's vdso, kallsyms or its
 * cache, a JIT map), then settling the DSO's status.
 *
 * Invariants: a file whose build-id differs from the recorded one is never read for symbols,
 * nor, when no build-id was recorded, a file at the recorded path that is not the recorded
 * inode (files under --symfs are trusted).  A load ends with a status other than UNLOADED, and
 * a DSO whose status is not OK holds no symbols.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "prec_log.h"
#include "prec_symbol_int.h"

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
		     !prec_has_prefix(path, "/memfd:"); /* never had a name to open: not found */
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

void prec_dso__load(struct prec_dso *d)
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
