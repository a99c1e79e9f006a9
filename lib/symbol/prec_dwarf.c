/* SPDX-License-Identifier: MIT */
/*
 * Source lines and inline frames from DWARF, through libdw.
 *
 * libdw is opened for a DSO only when one of these questions is first asked, from the symbol
 * file if it has DWARF, else from its separate debug file (build-id, then .gnu_debuglink);
 * a dwz .gnu_debugaltlink file is found the same way and handed to libdw, so libdw never
 * opens files itself.  Each distinct address is answered once: the answer (source line and
 * inline frames) is kept in a per-DSO table keyed by address, strings interned in the symtab.
 * An inlined function is named as perf names it (its demangled linkage name) and carries an
 * id that is one function's, wherever it was inlined, and differs between functions that
 * show the same name.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "prec_buf.h"
#include "prec_symbol_int.h"

#define INLINE_MAX 32 /* frames kept per address */

struct dw_answer {
	const char *srcline;
	const char *outer; /* the line executing in the function the inlined ones are in */
	const char *outer_path; /* its file with the directory the debug info gives */
	int outer_decl; /* the line where that function is declared; 0: unknown */
	uint32_t first, n; /* into frames */
};

/* An address range of a DIE: of a unit (see cu_of()), or of a unit's outermost scope, a
 * function usually (see unit_index()). */
struct die_range {
	uint64_t lo, hi;
	uint64_t max_hi; /* the largest hi of the ranges up to this one, in lo order */
	Dwarf_Off off; /* of the DIE: which comes first */
	Dwarf_Die die;
};

/* DIEs by address: the units of a file, or the outermost scopes of one unit. */
struct range_index {
	struct die_range *r;
	size_t n;
	bool usable; /* built within the limits; else lookups walk the DIEs */
};

struct prec_dwarf {
	struct prec_elf own; /* the debug file, when DWARF is not in the symbol file */
	struct prec_elf alt; /* the dwz file */
	Dwarf *dw, *altdw;
	struct prec_keyset cache; /* uint64_t vaddr -> index in answers */
	struct dw_answer *answers;
	size_t capanswers;
	struct prec_inline_frame *frames;
	uint32_t nframes;
	size_t capframes;
	struct prec_keyset units; /* uint64_t unit DIE offset -> index in unit_idx */
	struct range_index *unit_idx;
	size_t capunits;
	struct range_index cus; /* the units, made on the first need */
	bool cus_tried;
};

void prec_dwarf__free(struct prec_dwarf *w)
{
	size_t i;

	if (!w)
		return;
	if (w->dw)
		dwarf_end(w->dw);
	if (w->altdw)
		dwarf_end(w->altdw);
	prec_elf_close(&w->alt);
	prec_elf_close(&w->own);
	prec_keyset__release(&w->cache);
	for (i = 0; i < w->units.n; i++)
		free(w->unit_idx[i].r);
	free(w->unit_idx);
	prec_keyset__release(&w->units);
	free(w->answers);
	free(w->frames);
	free(w->cus.r);
	free(w);
}

static bool try_alt(struct prec_dwarf *w, const char *path, const uint8_t *bid, size_t bid_len)
{
	struct prec_elf pe;

	if (prec_elf_open(path, &pe) != PREC_OPEN_OK)
		return false;
	if (bid_len && !prec_build_id_match(bid, bid_len, pe.build_id, pe.build_id_len)) {
		prec_elf_close(&pe);
		return false;
	}
	w->altdw = dwarf_begin_elf(pe.elf, DWARF_C_READ, NULL);
	if (!w->altdw) {
		prec_elf_close(&pe);
		return false;
	}
	w->alt = pe;
	return true;
}

/* The dwz common file named by .gnu_debugaltlink of the file behind `elf` at `path`. */
static void open_alt(struct prec_dso *d, struct prec_dwarf *w, Elf *elf, const char *path)
{
	const struct prec_symtab_opts *o = &d->st->opts;
	const uint8_t *bid;
	size_t bid_len, i;
	const char *link = prec_elf_altlink(elf, &bid, &bid_len), *slash;
	char buf[PATH_MAX], hex[2 * PREC_FILE_BUILD_ID_MAX + 1];

	if (!link)
		return;
	if (bid_len > PREC_FILE_BUILD_ID_MAX)
		bid_len = 0;
	if (link[0] == '/') {
		if (o->symfs &&
		    snprintf(buf, sizeof(buf), "%s%s", o->symfs, link) < (int)sizeof(buf) &&
		    try_alt(w, buf, bid, bid_len))
			goto found;
		if (!o->symfs && try_alt(w, link, bid, bid_len))
			goto found;
	} else if ((slash = strrchr(path, '/')) &&
		   snprintf(buf, sizeof(buf), "%.*s/%s", (int)(slash - path), path, link) <
		       (int)sizeof(buf) &&
		   try_alt(w, buf, bid, bid_len)) {
		goto found;
	}
	if (bid_len) {
		for (i = 0; i < bid_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", bid[i]);
		if (snprintf(buf, sizeof(buf), "%s%s/.build-id/%.2s/%s.debug",
			     o->symfs ? o->symfs : "", o->debug_dir, hex,
			     hex + 2) < (int)sizeof(buf) &&
		    try_alt(w, buf, bid, bid_len))
			goto found;
	}
	return;
found:
	dwarf_setalt(w->dw, w->altdw);
}

int prec_dwarf__open(struct prec_dso *d)
{
	struct prec_dwarf *w;
	const char *path = d->file_used;

	if (d->dwarf_tried)
		return d->dwarf ? 0 : -ENOENT;
	d->dwarf_tried = true;
	if ((d->kind != PREC_DSO_KIND_ELF && d->kind != PREC_DSO_KIND_VDSO) ||
	    prec_dso__status(d) != PREC_DSO_OK || !d->elf)
		return -ENOENT;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	prec_keyset__init(&w->cache, sizeof(uint64_t));
	prec_keyset__init(&w->units, sizeof(uint64_t));
	w->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!w->dw && d->kind == PREC_DSO_KIND_ELF &&
	    prec_dso__open_debug_file(d, &w->own, &path) == PREC_OPEN_OK) {
		if (w->own.has_debug_info)
			w->dw = dwarf_begin_elf(w->own.elf, DWARF_C_READ, NULL);
	}
	if (!w->dw) {
		prec_dwarf__free(w);
		return -ENOENT;
	}
	open_alt(d, w, w->own.elf ? w->own.elf : d->elf, path);
	d->dwarf = w;
	return 0;
}

Dwarf_CFI *prec_dwarf__cfi(struct prec_dwarf *dw)
{
	return dw ? dwarf_getcfi(dw->dw) : NULL;
}

/* Path `in` cleaned of "." and "dir/.." parts and doubled slashes, as text only (no symbolic
 * link is followed), into out of size n; false when it does not fit. */
static bool path_clean(const char *in, char *out, size_t n)
{
	size_t len = 0, keep = 0; /* keep: the length of the leading "/" and "../" parts */
	bool abs = *in == '/';

	if (abs) {
		out[len++] = '/';
		keep = 1;
	}
	while (*in) {
		const char *end = strchr(in, '/');
		size_t part = end ? (size_t)(end - in) : strlen(in);

		if ((part == 1 && *in == '.') || !part) {
			/* nothing */
		} else if (part == 2 && in[0] == '.' && in[1] == '.' && len > keep) {
			while (len > keep && out[len - 1] != '/')
				len--;
			if (len > keep)
				len--; /* the slash before it */
		} else if (part == 2 && in[0] == '.' && in[1] == '.' && abs) {
			/* "/.." is "/" */
		} else {
			if (len + part + 2 > n)
				return false;
			if (len && out[len - 1] != '/')
				out[len++] = '/';
			memcpy(out + len, in, part);
			len += part;
			if (part == 2 && in[0] == '.' && in[1] == '.')
				keep = len;
		}
		in += part + (end ? 1 : 0);
	}
	if (!len)
		out[len++] = '.';
	out[len] = 0;
	return true;
}

/* "file.c:12" for a path and line, interned, and the path itself, interned, into *ret_path:
 * a relative one (the line table's directory can be) joined to the unit's DW_AT_comp_dir,
 * where the compiler ran.  NULL (and *ret_path NULL) without both. */
static const char *srcline_str(struct prec_dso *d, Dwarf_Die *cu, const char *file, int line,
			       const char **ret_path)
{
	const char *base, *dir = NULL;
	char buf[PATH_MAX + 16], full[PATH_MAX];
	Dwarf_Attribute a;

	*ret_path = NULL;
	if (!file || line <= 0)
		return NULL;
	if (*file != '/' && cu && dwarf_attr(cu, DW_AT_comp_dir, &a))
		dir = dwarf_formstring(&a);
	if (dir && *dir == '/' &&
	    (size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, file) < sizeof(buf) &&
	    path_clean(buf, full, sizeof(full)))
		*ret_path = prec_symtab__intern(d->st, full);
	else
		*ret_path = prec_symtab__intern(d->st, file);
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	snprintf(buf, sizeof(buf), "%s:%d", base, line);
	return prec_symtab__intern(d->st, buf);
}

static int range_push(struct range_index *ix, size_t *cap, uint64_t lo, uint64_t hi,
		      Dwarf_Die *die)
{
	struct die_range *r;

	if (prec_array__grow((void **)&ix->r, cap, ix->n + 1, sizeof(*ix->r), 64))
		return -ENOMEM;
	r = &ix->r[ix->n++];
	r->lo = lo;
	r->hi = hi;
	r->off = dwarf_dieoffset(die);
	r->die = *die;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct die_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sort the pushed ranges, and the index is usable. */
static void range_sort(struct range_index *ix)
{
	uint64_t max_hi = 0;
	size_t i;

	if (ix->n)
		qsort(ix->r, ix->n, sizeof(*ix->r), cmp_range);
	for (i = 0; i < ix->n; i++) {
		max_hi = ix->r[i].hi > max_hi ? ix->r[i].hi : max_hi;
		ix->r[i].max_hi = max_hi;
	}
	ix->usable = true;
}

/* Of the DIEs with a range holding pc, the first in DIE order (the one a walk finds first);
 * NULL for none. */
static const struct die_range *range_find(const struct range_index *ix, uint64_t pc)
{
	const struct die_range *best = NULL;
	size_t lo = 0, hi = ix->n, i;

	while (lo < hi) { /* the first range that starts after pc */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && ix->r[i].max_hi > pc;)
		if (ix->r[i].hi > pc && (!best || ix->r[i].off < best->off))
			best = &ix->r[i];
	return best;
}

/* Every unit's ranges; -ENOMEM. */
static int index_cus(struct prec_dwarf *w)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	Dwarf_Die cu;

	for (; dwarf_nextcu(w->dw, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t ro = 0;

		if (!dwarf_offdie(w->dw, off + hsize, &cu))
			continue;
		/* what dwarf_haspc() asks: pc in one of its ranges */
		while ((ro = dwarf_ranges(&cu, ro, &base, &lo, &hi)) > 0)
			if (lo < hi && range_push(&w->cus, &cap, lo, hi, &cu))
				return -ENOMEM;
	}
	range_sort(&w->cus);
	return 0;
}

/*
 * The compile unit of pc: by .debug_aranges, else the first unit whose ranges hold pc.
 * That second question walked every unit for each address that .debug_aranges does not
 * cover (all of them in a file without one, and code outside any unit: PLT, assembly), half
 * of the DWARF work of --inline on a system-wide recording; it is answered by a binary search
 * in an index of all units' ranges, made on its first need.
 */
static bool cu_of(struct prec_dwarf *w, uint64_t pc, Dwarf_Die *ret)
{
	const struct die_range *r;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(w->dw, pc, ret))
		return true;
	if (!w->cus_tried) {
		w->cus_tried = true;
		if (index_cus(w)) {
			free(w->cus.r);
			memset(&w->cus, 0, sizeof(w->cus));
		}
	}
	if (!w->cus.usable) { /* ask each unit */
		for (; dwarf_nextcu(w->dw, off, &next, &hsize, NULL, NULL, NULL) == 0; off = next)
			if (dwarf_offdie(w->dw, off + hsize, ret) && dwarf_haspc(ret, pc) > 0)
				return true;
		return false;
	}
	r = range_find(&w->cus, pc);
	if (r)
		*ret = r->die;
	return r;
}

/* The call site of inlined instance `die` ("file.c:N" inside its caller), its file's path
 * into *ret_path. */
static const char *call_site(struct prec_dso *d, Dwarf_Die *cu, Dwarf_Die *die,
			     const char **ret_path)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t nfiles;

	*ret_path = NULL;
	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &file) ||
	    !dwarf_attr(die, DW_AT_call_line, &a) || dwarf_formudata(&a, &line) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || file >= nfiles || line > INT_MAX)
		return NULL;
	return srcline_str(d, cu, dwarf_filesrc(files, file, NULL, NULL), (int)line, ret_path);
}

/*
 * The name perf shows for the function of inlined instance `die` and its id (see
 * prec_inline_frame): interned, NULL on -ENOMEM; *ret_linkage its linkage name, interned
 * (NULL: none, or -ENOMEM).  perf takes the linkage name and demangles it; the DWARF name of
 * a C++ function is another text ("mix<long unsigned int>" for app::mix<unsigned long>)
 * that drops its namespace.
 */
static const char *inline_name(struct prec_dso *d, Dwarf_Die *die, const char **ret_linkage,
			       uint64_t *ret_id, int *ret_line)
{
	Dwarf_Attribute a;
	const char *linkage = NULL, *name = dwarf_diename(die), *file, *base, *shown;
	char *dm = NULL, key[1024];
	int line = 0, n;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		linkage = dwarf_formstring(&a);
	file = dwarf_decl_file(die);
	base = file ? strrchr(file, '/') : NULL;
	base = base ? base + 1 : file;
	if (dwarf_decl_line(die, &line))
		line = 0;
	*ret_line = line;
	/* where it is declared, by file name (units may spell the directory differently) */
	shown = linkage ? linkage : name ? name : "??";
	n = snprintf(key, sizeof(key), "%s:%s:%d", shown, base ? base : "", line);
	*ret_id = prec_hash_bytes(key, n > 0 && (size_t)n < sizeof(key) ? (size_t)n : strlen(key));
	if (linkage && d->st->opts.no_demangle)
		name = linkage; /* as ELF symbols show then */
	else if (linkage)
		dm = prec_demangle(linkage);
	shown = dm ? dm : name ? name : linkage ? linkage : "??";
	shown = prec_symtab__intern(d->st, shown);
	free(dm);
	*ret_linkage = linkage ? prec_symtab__intern(d->st, linkage) : NULL;
	return shown;
}

static int push_frame(struct prec_dwarf *w, const char *name, const char *linkage,
		      const char *srcline, const char *path, uint64_t id, int decl_line)
{
	if (w->nframes == UINT32_MAX)
		return -E2BIG;
	if (prec_array__grow((void **)&w->frames, &w->capframes, (size_t)w->nframes + 1,
			     sizeof(*w->frames), 64))
		return -ENOMEM;
	w->frames[w->nframes].name = name;
	w->frames[w->nframes].linkage = linkage;
	w->frames[w->nframes].srcline = srcline;
	w->frames[w->nframes].path = path;
	w->frames[w->nframes].id = id;
	w->frames[w->nframes].decl_line = decl_line;
	w->nframes++;
	return 0;
}

#define SCOPE_DEPTH_MAX 64	   /* nesting of scopes we follow */
#define SCOPE_VISITS_MAX (1 << 22) /* DIEs looked at for one address */

/* The scopes containing a pc, outermost first. */
struct scope_path {
	Dwarf_Die die[SCOPE_DEPTH_MAX];
	int n;
	long visits;
};

static bool is_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
	       tag == DW_TAG_catch_block || tag == DW_TAG_entry_point;
}

/* DIEs without an address range that may still hold functions. */
static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_interface_type;
}

/*
 * Walk down from `parent` along the scopes that contain pc.  Our own walk rather than
 * dwarf_getscopes(): that one continues into the abstract origin past an inlined instance
 * (we want the concrete callers) and leaks on some corrupt input.  Offsets must grow and the
 * walk is bounded, so corrupt sibling links cannot make it loop.
 */
static bool find_scopes(Dwarf_Die *parent, Dwarf_Addr pc, struct scope_path *p, int depth)
{
	Dwarf_Die child;
	Dwarf_Off last = 0;

	if (depth >= SCOPE_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return false;
	do {
		Dwarf_Off off = dwarf_dieoffset(&child);
		int tag = dwarf_tag(&child);

		if (off <= last || ++p->visits > SCOPE_VISITS_MAX)
			return false;
		last = off;
		if (is_scope(tag) && dwarf_haspc(&child, pc) > 0) {
			p->die[p->n++] = child;
			find_scopes(&p->die[p->n - 1], pc, p, depth + 1);
			return true;
		}
		if (is_container(tag) && find_scopes(&child, pc, p, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * The outermost scopes of a unit (its functions, also those inside namespaces and classes),
 * each range of each, sorted by address: an address then finds its function by a binary
 * search where find_scopes() would walk the unit's DIEs from the top, which was a third of
 * a report with --inline on a system-wide recording.  Built with find_scopes()'s limits;
 * -E2BIG past them (then lookups walk, as before).
 */
static int index_scopes(Dwarf_Die *parent, struct range_index *ix, size_t *cap, long *visits,
			int depth)
{
	Dwarf_Die child;
	Dwarf_Off last = 0;

	if (depth >= SCOPE_DEPTH_MAX)
		return -E2BIG;
	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		Dwarf_Off off = dwarf_dieoffset(&child);
		int tag = dwarf_tag(&child), err;

		if (off <= last || ++*visits > SCOPE_VISITS_MAX)
			return -E2BIG;
		last = off;
		if (is_scope(tag)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t ro = 0;

			/* what dwarf_haspc() asks: pc in one of its ranges */
			while ((ro = dwarf_ranges(&child, ro, &base, &lo, &hi)) > 0)
				if (lo < hi && range_push(ix, cap, lo, hi, &child))
					return -ENOMEM;
		} else if (is_container(tag)) {
			err = index_scopes(&child, ix, cap, visits, depth + 1);
			if (err)
				return err;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The index of unit `cu`, built on its first lookup; NULL when there is none (-ENOMEM). */
static struct range_index *unit_index(struct prec_dwarf *w, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu);
	struct range_index *ix;
	size_t cap = 0;
	long id, visits = 0;
	bool is_new;

	id = prec_keyset__intern(&w->units, &key, &is_new);
	if (id < 0 || prec_array__grow((void **)&w->unit_idx, &w->capunits, (size_t)id + 1,
				       sizeof(*w->unit_idx), 16))
		return NULL;
	ix = &w->unit_idx[id];
	if (!is_new)
		return ix;
	memset(ix, 0, sizeof(*ix));
	if (index_scopes(cu, ix, &cap, &visits, 0)) {
		free(ix->r);
		ix->r = NULL;
		ix->n = 0;
		return ix; /* not usable: walk */
	}
	range_sort(ix);
	return ix;
}

/* The outermost scope of unit cu that holds pc, by its index: 1 and *ret; 0 for none; -1
 * without an index (then find_scopes() walks).  Of several, the first in DIE order, which
 * is the one the walk would find. */
static int unit_find(struct prec_dwarf *w, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *ret)
{
	struct range_index *ix = unit_index(w, cu);
	const struct die_range *r;

	if (!ix || !ix->usable)
		return -1;
	r = range_find(ix, pc);
	if (!r)
		return 0;
	*ret = r->die;
	return 1;
}

/* Source line and inline chain at pc, into a new answer. */
static int compute(struct prec_dso *d, struct prec_dwarf *w, uint64_t pc, struct dw_answer *a)
{
	struct scope_path *path;
	Dwarf_Die cu, top;
	Dwarf_Line *line;
	const char *where, *where_path, *name, *linkage;
	uint64_t id;
	int i, lineno, decl, err = 0;

	memset(a, 0, sizeof(*a));
	a->first = w->nframes;
	if (!cu_of(w, pc, &cu))
		return 0;
	line = dwarf_getsrc_die(&cu, pc);
	if (line && !dwarf_lineno(line, &lineno))
		a->srcline = srcline_str(d, &cu, dwarf_linesrc(line, NULL, NULL), lineno,
					  &where_path);
	else
		where_path = NULL;

	path = calloc(1, sizeof(*path));
	if (!path)
		return -ENOMEM;
	switch (unit_find(w, &cu, pc, &top)) {
	case 1:
		path->die[path->n++] = top;
		find_scopes(&path->die[0], pc, path, 1);
		break;
	case 0:
		break;
	default:
		find_scopes(&cu, pc, path, 0);
	}
	/* innermost first: inlined instances up to the function they were inlined into */
	where = a->srcline;
	for (i = path->n - 1; i >= 0 && a->n < INLINE_MAX; i--) {
		int tag = dwarf_tag(&path->die[i]);

		if (tag == DW_TAG_subprogram) {
			if (dwarf_decl_line(&path->die[i], &a->outer_decl))
				a->outer_decl = 0;
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		name = inline_name(d, &path->die[i], &linkage, &id, &decl);
		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = push_frame(w, name, linkage, where, where_path, id, decl);
		if (err)
			break;
		a->n++;
		where = call_site(d, &cu, &path->die[i], &where_path);
	}
	a->outer = where;
	a->outer_path = where_path;
	free(path);
	if (err)
		w->nframes = a->first;
	return err;
}

/* The cached answer for `addr` (same space as lookups), or NULL without DWARF. */
static const struct dw_answer *answer(struct prec_dso *d, uint64_t addr, int *ret_err)
{
	struct prec_dwarf *w;
	struct dw_answer a;
	uint64_t pc;
	long id;
	bool is_new;
	int err;

	*ret_err = 0;
	if (prec_dwarf__open(d))
		return NULL;
	w = d->dwarf;
	pc = prec_dso__off_to_vaddr(d, addr);
	id = prec_keyset__find(&w->cache, &pc);
	if (id >= 0)
		return &w->answers[id];
	err = compute(d, w, pc, &a);
	if (err)
		goto fail;
	if (prec_array__grow((void **)&w->answers, &w->capanswers, (size_t)w->cache.n + 1,
			     sizeof(*w->answers), 256)) {
		err = -ENOMEM;
		goto fail;
	}
	id = prec_keyset__intern(&w->cache, &pc, &is_new);
	if (id < 0) {
		err = (int)id;
		goto fail;
	}
	w->answers[id] = a;
	return &w->answers[id];
fail:
	w->nframes = a.first;
	*ret_err = err;
	return NULL;
}

int prec_dso__inlines(struct prec_dso *d, uint64_t addr, struct prec_inline_frame *ret, size_t max)
{
	const struct dw_answer *a;
	size_t n;
	int err;

	a = answer(d, addr, &err);
	if (!a)
		return err;
	n = a->n < max ? a->n : max;
	if (n)
		memcpy(ret, d->dwarf->frames + a->first, n * sizeof(*ret));
	return (int)n;
}

bool prec_dso__dwarf_open(const struct prec_dso *d)
{
	return d->dwarf_tried && d->dwarf;
}

const char *prec_dso__srcline(struct prec_dso *d, uint64_t addr)
{
	const struct dw_answer *a;
	int err;

	a = answer(d, addr, &err);
	return a ? a->srcline : NULL;
}

const char *prec_dso__outer_srcline(struct prec_dso *d, uint64_t addr, int *ret_decl_line,
				    const char **ret_path)
{
	const struct dw_answer *a;
	int err;

	a = answer(d, addr, &err);
	*ret_decl_line = a ? a->outer_decl : 0;
	*ret_path = a ? a->outer_path : NULL;
	return a ? a->outer : NULL;
}
